/*
 * steady_merge.h - the steady-state rule (core/steady.h) run by a
 * controller on the merged throughput of many drivers, so that every
 * driver warms up and measures over one window that the whole series
 * decided. `scale --target-ci` uses it for its OLTP drivers, and
 * `block --clients --target-ci` for its block clients.
 *
 * Each driver prints every STEADY_SAMPLE_S since its go the units of work
 * (transactions, I/Os) it has done so far (DP_SAMPLE, core/driverproto.h).
 * Sample k of the run is the sum over drivers of each one's rate over its
 * own sample k (they started within a few ms of each other: the same go).
 * It is merged once every driver still running has given it, or once one
 * of them is STEADY_MERGE_LAG samples ahead (a driver that stalls does not
 * stall the rule; what it gave late is left out of that sample). A driver
 * that ended, or was lost, is not waited for. What the rule says comes
 * back as the phase to tell the drivers: "measure" once, then "stop".
 *
 * Pure bookkeeping: no I/O, no clock. One thread per struct steady_merge.
 */
#ifndef HCI_STEADY_MERGE_H
#define HCI_STEADY_MERGE_H

#include <stdint.h>

#include "core/driverproto.h"
#include "core/steady.h"

#define STEADY_MERGE_LAG 4 /* samples (2 s) a driver may be ahead of the slowest one */

struct steady_merge;

/*
 * n drivers (>= 1), the rule's target and limits (the longest warm-up,
 * then the longest measurement, in s). NULL on ENOMEM or a bad target.
 */
struct steady_merge *steady_merge_new(unsigned n, double target_ci_pct, double warmup_max_s,
                                      double measure_max_s);
void steady_merge_free(struct steady_merge *c);

/* Driver i's sample: seconds since its go, units done since (warm-up included). */
void steady_merge_sample(struct steady_merge *c, unsigned i, double since_go_s, uint64_t done);

/* Driver i ended, was lost or never started: not waited for from now on. */
void steady_merge_gone(struct steady_merge *c, unsigned i);

/* Merge every sample that can be; the phase the rule is in after them. */
enum steady_phase steady_merge_run(struct steady_merge *c);

/*
 * Merge (steady_merge_run) and give the orders that follow: tell(arg,
 * DP_MEASURE) once the warm-up is over, then tell(arg, DP_STOP) once the
 * rule is done, each once. *told is the phase told so far (STEADY_WARMUP
 * before the first call) and is updated. Returns the rule's phase.
 */
enum steady_phase steady_merge_steer(struct steady_merge *c, enum steady_phase *told,
                                     void (*tell)(void *arg, enum dp_kind kind), void *arg);

/* What the rule found, and how long it probably has left (steady_left_s; may be NULL). */
void steady_merge_result(const struct steady_merge *c, struct steady_res *r, double *left_s);

#endif
