/*
 * fuzz_expo.c - libFuzzer target for the exposition-text parser
 * (core/expo.c), the node_exporter source's reading of a body
 * (hostsrc_node_parse) and the prometheus source's reading of an API reply
 * (hostsrc_prom_parse): what an exporter or a Prometheus server on the
 * network hands hcisweep.
 *
 * Every input is a body, given to all three. The parse must end without a
 * crash, leak or undefined behaviour; every sample it gives must have a
 * valid metric name and NUL-terminated labels; a body either source reader
 * takes must give counters whose rates against themselves, a second later,
 * are all finite and not negative.
 *
 * Build: cmake -DCMAKE_C_COMPILER=clang -DWITH_FUZZ=ON; make fuzz_expo.
 * Run: fuzz_expo tests/fuzz/corpus_expo (tests/cli/test_fuzz_slow.sh).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expo.h"
#include "core/hostsrc.h"
#include "core/hostsrc_http.h" /* the bodies' parsers, no network */

#define FUZZ_ASSERT(cond, ...)                                                                     \
        do {                                                                                       \
                if (!(cond)) {                                                                     \
                        fprintf(stderr, "fuzz_expo: " __VA_ARGS__);                                \
                        abort();                                                                   \
                }                                                                                  \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check(void *user, const struct expo_sample *s)
{
        size_t *n = user;

        FUZZ_ASSERT(s->name[0] && strlen(s->name) < EXPO_MAX_LINE, "bad name\n");
        FUZZ_ASSERT(s->nlabels <= EXPO_MAX_LABELS, "%zu labels\n", s->nlabels);
        for (size_t i = 0; i < s->nlabels; i++)
                FUZZ_ASSERT(strlen(s->labels[i].name) + strlen(s->labels[i].value) < EXPO_MAX_LINE,
                            "label %zu runs past the line\n", i);
        (*n)++;
        return 0;
}

/* Rates of c against itself a second later: finite, not negative. */
static void check_rates(const struct hostsrc_counters *c)
{
        static struct hostsrc_counters a, b;
        static struct hostsrc_rates r;

        a = *c;
        b = *c;
        a.t_ns = 1;
        b.t_ns = 1000000001ull;
        if (hostsrc_rates(&a, &b, &r) == 0) {
                FUZZ_ASSERT(isfinite(r.busy) && r.busy >= 0 && isfinite(r.busiest_cpu),
                            "cpu rates %g %g\n", r.busy, r.busiest_cpu);
                for (unsigned i = 0; i < r.ndisks; i++)
                        FUZZ_ASSERT(isfinite(r.disk[i].iops) && r.disk[i].iops >= 0,
                                    "disk rate %g\n", r.disk[i].iops);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static struct hostsrc_counters c;
        char err[256];
        size_t n = 0;

        expo_parse((const char *)data, size, check, &n, err, sizeof(err));
        memset(&c, 0, sizeof(c));
        if (hostsrc_node_parse((const char *)data, size, &c, err, sizeof(err)) == 0)
                check_rates(&c);
        memset(&c, 0, sizeof(c));
        if (hostsrc_prom_parse((const char *)data, size, "127.0.0.2:9100", 0, &c, err,
                               sizeof(err)) == 0)
                check_rates(&c);
        return 0;
}
