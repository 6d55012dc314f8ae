/*
 * metrics.h - live figures over HTTP in the OpenMetrics text format, for
 * Prometheus (or anything that scrapes it) to watch a long run.
 *
 * A command that takes --metrics-listen starts one struct metrics; its
 * measuring code sets samples whenever it has new figures (an interval, a
 * sweep point, a step) and a libmicrohttpd thread renders the current set
 * on every GET, whatever the path. Every sample is named hcisweep_NAME.
 * Host CPU (/proc/stat, as seconds per mode) is read at scrape time, so it
 * is there even between the command's own updates.
 *
 * Where it listens: "ADDR:PORT", "[ADDR6]:PORT" or "localhost:PORT" (an
 * IP literal: nothing is resolved), or "PORT" alone for 127.0.0.1. A
 * loopback address (127.0.0.0/8, ::1) is the normal case; any other address
 * is taken only because the user wrote it out (a warning says it is
 * reachable from elsewhere); the wildcards 0.0.0.0 and :: are refused.
 *
 * Thread safety: every call may be made from any thread; samples are kept
 * under one mutex. A NULL struct metrics makes every setter a no-op, so
 * callers need not check whether metrics are on.
 */
#ifndef HCI_METRICS_H
#define HCI_METRICS_H

#include <stddef.h>

#include "core/hist.h"

/* The options-table entry every measuring command shares (field: char *). */
#define METRICS_LISTEN_OPT(off)                                                                    \
        {                                                                                          \
                "metrics-listen", OPT_STR, (off), NULL, 0, 0,                                      \
                    "serve live OpenMetrics over HTTP on ADDR:PORT (e.g. 127.0.0.1:9464)", NULL, 0 \
        }

struct metrics;

/*
 * Check a --metrics-listen value without listening: 0, or -EINVAL with err
 * naming the option. *loopback (may be NULL) tells whether it is loopback.
 */
int metrics_check_listen(const char *spec, int *loopback, char *err, size_t errlen);

/*
 * Listen on spec. Returns 0 and *out (caller owns; metrics_stop), or
 * -EINVAL (bad address) / -errno (cannot listen) with err set. spec NULL or
 * empty: 0 and *out = NULL (metrics off).
 */
int metrics_start(struct metrics **out, const char *spec, char *err, size_t errlen);

/* Stop listening and free everything. NULL is fine. */
void metrics_stop(struct metrics *m);

/* The port actually bound (useful with port 0). 0 when m is NULL. */
unsigned metrics_port(const struct metrics *m);
/* The address as bound, "ADDR:PORT" ("[ADDR6]:PORT"); metrics_start() prints it on stderr
 * and the results record it as "metrics_address". NULL when m is NULL. */
const char *metrics_address(const struct metrics *m);

/*
 * Set one sample. name is the family (hcisweep_ is prefixed); labels is
 * the text inside {} ("owner=\"vms\"") or NULL; help is one line, the
 * first call's is kept. A counter's value is its running total: the
 * sample is written as NAME_total.
 */
void metrics_gauge(struct metrics *m, const char *name, const char *labels, const char *help,
                   double v);
void metrics_counter(struct metrics *m, const char *name, const char *labels, const char *help,
                     double total);

/*
 * A summary family NAME (in seconds) from a histogram of nanoseconds: the
 * quantiles q[0..nq) (0 < q < 1), NAME_count and NAME_sum. h is read
 * during the call only.
 */
void metrics_summary(struct metrics *m, const char *name, const char *labels, const char *help,
                     const struct hist *h, const double *q, unsigned nq);

/* Remove every sample of a family (e.g. per-VM figures when the VM count changes). */
void metrics_drop(struct metrics *m, const char *name);

/* The whole exposition as text ending with "# EOF\n" (what a scrape gets). Caller frees. */
char *metrics_render(struct metrics *m);

#endif
