/*
 * scale_load.h - the block load of `hcisweep scale --block-load` (scale_load.c):
 * block I/O on every VM's LUN alongside each measured OLTP run. Internal to
 * scale/. One controlling thread calls these; the point runs in a thread of
 * its own between scale_load_start() and scale_load_finish().
 *
 * Where it runs: in this process (scale_load_open: the LUNs opened here),
 * or, with --driver-placement vm, inside each VM (scale_load_open_vms): one
 * `hcisweep block` client per VM on its load LUN, started by the backend's
 * spawn op as the OLTP drivers are (its cgroups, its guest, its host) and
 * driven as `block --clients vms` drives its clients (block/clients.h),
 * one point per run; its aggregate is the step's block figures. The
 * clients' windows are whole seconds (block's --ramp-time, --runtime): the
 * run's warm-up and time rounded, at least 1 s measured.
 *
 * The window told (scale_load_start's told, for --target-ci, whose rule
 * decides the OLTP window as it goes): the block load ramps until
 * scale_load_measure() and runs until scale_load_stop(), called at the
 * instants the OLTP window opens and closes, so both are measured over one
 * window and no second rule runs. In the VMs their block clients are
 * steered so (block/clients.h, blk_clients_plan.steered): "measure" and
 * "stop" go out to all of them as the calls come.
 */
#ifndef HCI_SCALE_SCALE_LOAD_H
#define HCI_SCALE_SCALE_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "block/run.h"
#include "core/hist.h"

/* --block-load SPEC: block I/O on every VM's LUN alongside each measured run. */
struct scale_load_spec {
        int on;
        enum blk_rw rw;
        uint32_t bs;
        unsigned iodepth, rwmixread, numjobs;
};

/* What the block load did in one step, summed over its repeats. */
struct scale_load_res {
        int ran;
        double seconds;
        uint64_t ios[2], bytes[2], errors[2]; /* BLK_READ, BLK_WRITE */
        struct hist *lat[2];
        char error[256]; /* a LUN was lost */
        /* Its measured window: wall clock (clk_real_ms) from the first repeat's start to the
         * last one's end (0: not known), and, with have_window_s, the last repeat's in
         * seconds after its go (the point's start; < 0: that end is not known). */
        int64_t win_start_ms, win_end_ms;
        int have_window_s;
        double window_s[2];
        /* In the VMs: the last repeat's clients[] (block's), and the clients lost in any
         * repeat (their names), or NULL. Owned: scale_load_res_free. */
        json_t *clients, *degraded;
};

struct scale_load; /* the step's LUNs, open, and the point in flight */

/* Parse SPEC (rw=randrw,bs=4k,...); -EINVAL naming the key. */
int scale_load_parse(const char *text, struct scale_load_spec *sp, char *err, size_t errlen);
const char *scale_load_rw_name(enum blk_rw rw);
/* Open the n LUN URLs (iscsi://...) for a step; -errno with err naming the LUN. */
int scale_load_open(struct scale_load **out, const struct scale_load_spec *sp,
                    const char *const *urls, unsigned n, char *err, size_t errlen);
/*
 * The same with the load inside the first n VMs of the lab ops/b (kept
 * open by the caller for as long as l), each on its load LUN. -EINVAL
 * when the backend's VMs cannot run a block client.
 */
struct lab_backend;
struct lab_backend_ops;
int scale_load_open_vms(struct scale_load **out, const struct scale_load_spec *sp,
                        const struct lab_backend_ops *ops, struct lab_backend *b, unsigned n,
                        char *err, size_t errlen);
/*
 * Start one point in its own thread: ramp_s unmeasured, then run_s
 * measured. told: the window is told instead, by scale_load_measure() and
 * scale_load_stop(); ramp_s and run_s are then the longest they may last
 * (the OLTP run's longest warm-up and time).
 */
int scale_load_start(struct scale_load *l, double ramp_s, double run_s, int told, char *err,
                     size_t errlen);
/* The OLTP run's measured window opened: so does the block load's (any thread; l may be
 * NULL). Only once a point: what follows is ignored. */
void scale_load_measure(struct scale_load *l);
/* The OLTP run's measured window closed (told): so does the block load's, as a normal end
 * (any thread; l may be NULL). Only once a point. */
void scale_load_stop(struct scale_load *l);
/*
 * The OLTP run is over: stop the point if more than a moment of it is left,
 * wait for it, add it to acc; *iops is its IOPS. 0, or -errno when a LUN
 * was lost (acc->error says which).
 */
int scale_load_finish(struct scale_load *l, struct scale_load_res *acc, double *iops);
void scale_load_close(struct scale_load *l);
double scale_load_iops(const struct scale_load_res *r); /* both directions; 0 when none */
/* Into o (the step's block_load): window{start,end} as the step's window is written,
 * window_s{start,end}, and in the VMs n_clients, clients[] and degraded[] (block's names). */
void scale_load_res_json(const struct scale_load_res *r, json_t *o);
void scale_load_res_free(struct scale_load_res *r); /* its histograms and JSON */

#endif
