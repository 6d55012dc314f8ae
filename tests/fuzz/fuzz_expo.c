/*
 * fuzz_expo.c - libFuzzer target for the exposition-text parser
 * (core/expo.c) and the node_exporter source's reading of a body
 * (hostsrc_node_parse): what an exporter on the network hands hcisweep.
 *
 * Every input is a body. The parse must end without a crash, leak or
 * undefined behaviour; every sample it gives must have a valid metric name
 * and NUL-terminated labels; a body the node_exporter reader takes must give
 * counters whose rates against themselves, a second later, are all finite
 * and not negative.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static struct hostsrc_counters a, b;
        static struct hostsrc_rates r;
        char err[256];
        size_t n = 0;

        expo_parse((const char *)data, size, check, &n, err, sizeof(err));
        memset(&a, 0, sizeof(a));
        if (hostsrc_node_parse((const char *)data, size, &a, err, sizeof(err)) != 0)
                return 0;
        b = a;
        a.t_ns = 1;
        b.t_ns = 1000000001ull;
        if (hostsrc_rates(&a, &b, &r) == 0) {
                FUZZ_ASSERT(isfinite(r.busy) && r.busy >= 0 && isfinite(r.busiest_cpu),
                            "cpu rates %g %g\n", r.busy, r.busiest_cpu);
                for (unsigned i = 0; i < r.ndisks; i++)
                        FUZZ_ASSERT(isfinite(r.disk[i].iops) && r.disk[i].iops >= 0,
                                    "disk rate %g\n", r.disk[i].iops);
        }
        return 0;
}
