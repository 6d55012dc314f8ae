/*
 * scale_drivers.h - `scale --driver-placement vm`: one `hcisweep oltp run`
 * per VM, started inside the VM, given one window, merged.
 *
 * For each measured run of a step every VM i gets its own driver: this
 * binary (/proc/self/exe) running `oltp run --start-on-go` against VM i's
 * database alone, with the run's oltp options (--threads per VM, workload,
 * --time, --warmup-time, tables), --rand-seed SEED+i, --result-stdout:
 * its result comes back on its stdout and is kept in
 * DIR/driver-<vms>vm-r<run>-vm<i>.json, its stderr in the .log beside it
 * (DIR: the run directory, or the directory of --json). It is started
 * through the backend's spawn op (lab/backend.h; the local lab: inside the
 * VM's cgroups, so its CPU is the VM's, in cpu_by_owner.vms and in the
 * VM's quota, not in driver), drivers[].where the backend's driver_where.
 *
 * Each driver is spoken to through the carrier its backend names
 * (lab_backend_ops.driver_carrier, core/driverproto.h): the pipe for one
 * on this host (cgroup placement), ssh for one on another host (the static
 * backend's driver_host), guest for one in a VM's guest (its bridge answers
 * the clock question with the guest's clock); over ssh and guest the clock
 * offset is measured before the go as the shortest of DP_CLOCK_TRIES round
 * trips.
 *
 * The window: each driver connects and prepares, prints "hcisweep-driver
 * ready" and waits; once all are ready (or gone) the controller measures
 * each one's clock, writes "go" to every one at once and each answers
 * "hcisweep-driver started NS" (CLOCK_REALTIME of its host, moved into the
 * controller's by its carrier): start_skew_ms is how much later than the
 * controller's go it began; a driver off by more than 1% of --time either
 * way is flagged ("late": true) and warned about. The window opens
 * (probe, cluster, block load) --warmup-time after the go. With
 * --target-ci each driver runs
 * with --steady-remote and the controller applies the steady-state rule
 * to their merged throughput (core/steady_merge.h): it tells every driver
 * "measure" when the rule ends the warm-up, opening the window then, and
 * "stop" when the CI is met or the time is up, closing the window then
 * (--block-load's block clients are told both at the same instants,
 * scale_load.h); the step's steady{} is that rule's.
 *
 * Faults: a driver that exits before it is ready, dies, is killed, hangs
 * past its window (--warmup-time + --time + --lost-vm-timeout + 30 s: it
 * is SIGKILLed), writes a line the protocol refuses (named) or leaves a
 * result --merge refuses is left out of the merge; the run is degraded with "vmI: driver ..." and
 * goes on. Ctrl-C
 * (*stop set) ends every driver's input, which stops its run as SIGINT
 * does and saves what it measured (partial); those results are merged and the step is
 * partial. Every driver is reaped before the run returns, and each dies
 * with the controller (PR_SET_PDEATHSIG).
 *
 * The merged figures (oltp/merge.h, the one merge routine of `oltp run
 * --merge`) come back as an engine result, its hosts[] by VM (host h is
 * VM h+1, empty for a driver left out), so the step is built as with
 * controller placement; st->drivers gains drivers[] {vm, where, host, pid,
 * cpu_s (the driver's own CPU, from its result line's cpu=; null when it
 * gave none), start_skew_ms, late, exit, tps, result, carrier ("pipe",
 * "ssh", "guest"), clock_offset_ms (its clock minus the controller's; null when not
 * measured), clock_err_ms (half the round trip it was measured in), error}.
 */
#ifndef HCI_SCALE_SCALE_DRIVERS_H
#define HCI_SCALE_SCALE_DRIVERS_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "lab/backend.h"
#include "oltp/engine.h"

struct scale;
struct scale_step;
struct scale_rep;

/* What the run gives the drivers: when to open the window, the Ctrl-C flag, and with
 * --target-ci what the rule found after each merged sample (it opens the window once the
 * phase is past the warm-up, as oltp_engine_cfg.on_steady does). */
struct scale_drivers_cb {
        void (*open_window)(struct scale *s);
        void (*tick)(struct scale *s, double done_s);
        void (*steady)(struct scale *s, enum steady_phase ph, const struct steady_res *r,
                       double left_s);
        volatile sig_atomic_t *stop;
};

/*
 * One measured run of st (its repeat st->nrep, rep r) with a driver per VM,
 * ec the run's engine config (times, threads per VM as ec->nconns / VMs).
 * 0 with *res filled (free with oltp_result_free) and r->lost/r->error set
 * for drivers left out; -errno with err when nothing could run (no driver
 * started at all, ENOMEM).
 */
int scale_drivers_run(struct scale *s, struct scale_step *st, struct scale_rep *r,
                      const struct oltp_engine_cfg *ec, const struct scale_drivers_cb *cb,
                      struct oltp_result *res, char *err, size_t errlen);

/*
 * Start VM vm's driver sp through ops->spawn on two fresh pipes (O_CLOEXEC):
 * 0 with *pid, *in_w (its stdin, ours to write) and *out_r (its stdout,
 * ours to read); or -errno with err ("pipe: ..." or the spawn op's) and no
 * fd of ours left open, whichever step failed.
 */
int scale_driver_spawn(const struct lab_backend_ops *ops, struct lab_backend *b, unsigned vm,
                       const struct proc_spawn *sp, pid_t *pid, int *in_w, int *out_r, char *err,
                       size_t errlen);

#endif
