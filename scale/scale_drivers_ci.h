/*
 * scale_drivers_ci.h - `scale --target-ci` with a driver per VM: the
 * steady-state rule (core/steady.h) run by the controller on the drivers'
 * merged throughput, so every driver warms up and measures over one
 * window that the whole step's series decided.
 *
 * Each driver (`oltp run --steady-remote`) prints every STEADY_SAMPLE_S
 * since its go the transactions it has done so far (core/driverproto.h).
 * Sample k of the step is the sum over drivers of each one's rate over its
 * own sample k (they started within a few ms of each other: the same go).
 * It is merged once every driver still running has given it, or once one
 * of them is MERGE_LAG samples ahead (a driver that stalls does not stall
 * the rule; what it gave late is left out of that sample). A driver that
 * ended is not waited for. What the rule says comes back as the phase to
 * tell the drivers: "measure" once, then "stop".
 *
 * Pure bookkeeping: no I/O, no clock. One thread.
 */
#ifndef HCI_SCALE_SCALE_DRIVERS_CI_H
#define HCI_SCALE_SCALE_DRIVERS_CI_H

#include <stdint.h>

#include "core/steady.h"

struct drivers_ci;

/* n drivers, the rule's target and limits (warm-up, then measurement, in s). NULL on ENOMEM. */
struct drivers_ci *drivers_ci_new(unsigned n, double target_ci_pct, double warmup_max_s,
                                  double measure_max_s);
void drivers_ci_free(struct drivers_ci *c);

/* Driver i's sample: seconds since its go, transactions done since (warm-up included). */
void drivers_ci_sample(struct drivers_ci *c, unsigned i, double since_go_s, uint64_t done);

/* Driver i ended (or never started): not waited for from now on. */
void drivers_ci_gone(struct drivers_ci *c, unsigned i);

/* Merge every sample that can be; the phase the rule is in after them. */
enum steady_phase drivers_ci_merge(struct drivers_ci *c);

/* What the rule found, and how long it probably has left (steady_left_s). */
void drivers_ci_result(const struct drivers_ci *c, struct steady_res *r, double *left_s);

#endif
