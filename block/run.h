/*
 * run.h - the block core loop: workers that keep engines' queues full, and
 * all the timing and accounting around them.
 *
 * A struct blk_run holds the open targets and one worker per (target,
 * session, job). Instances are opened once and reused by every sweep point,
 * so an iSCSI sweep logs in once. Each point runs all workers at once for
 * ramp + runtime; only I/Os completed after the ramp are counted.
 *
 * All calls are made from one controlling thread; workers are internal.
 */
#ifndef HCI_BLK_RUN_H
#define HCI_BLK_RUN_H

#include <stdint.h>

#include "block/engine.h"
#include "block/verify.h"
#include "core/hist.h"
#include "core/steady.h"

enum blk_rw { BLK_RW_RANDREAD, BLK_RW_RANDWRITE, BLK_RW_RANDRW, BLK_RW_READ, BLK_RW_WRITE };

/* Their names, as --rw spells them, indexed by enum blk_rw; NULL-terminated. */
extern const char *const blk_rw_names[];

#define BLK_MAX_BAD               16             /* mismatches described per target and point */
#define BLK_IO_TIMEOUT_DEFAULT_NS 30000000000ull /* when blk_run_opts.io_timeout_ns is 0 */
#define BLK_MAX_INTERVALS         4096

/* What one target is, as the user named it. */
struct blk_target_spec {
        const char *path;  /* file/device path or iscsi:// URL */
        const char *label; /* the same without credentials: what messages print */
        const struct blk_engine_ops *ops;
};

/* How the run opens its targets. */
struct blk_run_opts {
        unsigned workers_per_target; /* sessions × numjobs */
        unsigned max_depth;          /* deepest iodepth of the sweep */
        uint32_t max_bs;             /* largest block size of the sweep */
        uint64_t offset, size;       /* region; size 0 = to the end of the target */
        int direct;
        int writable;         /* some point writes, or precondition */
        uint64_t create_size; /* file targets: create/extend to this many bytes */
        const char *initiator;
        int split_region; /* give each worker of a target its own slice */
        /*
         * An I/O the target does not answer within this fails as a timeout
         * (counted in errors and timeouts) and ends the point with the
         * session failed: -ETIMEDOUT from blk_run_point.
         */
        uint64_t io_timeout_ns;
        /* CHAP secrets for iSCSI targets (NULL: from the URL or libiscsi's environment) */
        const char *chap_secret, *chap_target_secret;
        unsigned engine_flags; /* BLK_OPEN_* for every instance */
};

/* One sweep point. */
struct blk_point_spec {
        enum blk_rw rw;
        uint32_t bs;
        unsigned iodepth;
        unsigned rwmixread; /* percent of reads for randrw */
        uint64_t ramp_ns, run_ns;
        int verify;           /* stamp writes / check reads */
        uint64_t generation;  /* verify generation of this run */
        unsigned interval_ms; /* per-interval series step */
        /*
         * fio's batching knobs. batch_submit: push to the engine after every
         * this many queued I/Os (0: once per refill, or in the reap that
         * follows). batch_complete_min/max: reap at least / at most this many
         * completions at a time (0: 1 / iodepth).
         */
        unsigned batch_submit, batch_complete_min, batch_complete_max;
        /*
         * > 0: the point's ramp and measured time by core/steady.h's rule on
         * IOPS sampled from the start; ramp_ns and run_ns are then the
         * longest each may take (ramp_ns 0: half of run_ns).
         */
        double target_ci_pct;
        /*
         * 1: the ramp lasts until blk_run_measure() says the measured window
         * opens (the caller's own rule decides when, e.g. `scale --target-ci`
         * opening its OLTP window), or until ramp_ns when that is not 0.
         */
        int ramp_until_told;
};

/* Counts for one direction. */
struct blk_dir_result {
        uint64_t ios, bytes, errors;
        uint64_t timeouts;  /* of errors: not answered within the I/O timeout */
        uint64_t sense[16]; /* errors by SCSI sense key; sense[0] = errors without sense */
        struct hist *hist;
};

struct blk_interval {
        double t; /* seconds since measurement start, end of interval */
        uint64_t ios[2], bytes[2];
        uint64_t reconnects; /* sessions re-established during the interval */
};

struct blk_target_result {
        struct blk_dir_result dir[2]; /* BLK_READ, BLK_WRITE */
        uint64_t reconnects;
        uint64_t vfy_checked, vfy_mismatches;
        unsigned nbad;
        struct vfy_bad bad[BLK_MAX_BAD];
        int failed; /* a session was lost for good */
        char error[256];
        /*
         * I/Os in flight, integrated over the measured window (I/O x ns),
         * summed over njobs workers. An I/O is in flight from the loop's
         * clock reading that queued it to the one that reaped it; divided by
         * the window this is the time-weighted mean queue depth (iostat's
         * aqu-sz as the process sees it), divided again by njobs the mean
         * per job, to set against --iodepth.
         */
        double inflight_ns;
        unsigned njobs;
};

struct blk_point_result {
        double runtime_s; /* measured seconds */
        unsigned ntargets;
        struct blk_target_result *t;  /* per target */
        struct blk_target_result all; /* merged over targets */
        unsigned nintervals;
        struct blk_interval *iv;       /* all targets together */
        double cpu_user_s, cpu_sys_s;  /* this process during the measured part */
        uint64_t t_start_ns, t_end_ns; /* measured window (clk_now_ns) */
        /* the same in wall-clock ms (clk_real_ms): the point's start (its warm-up from here to
         * win_start_ms), its measured window */
        int64_t warm_ms, win_start_ms, win_end_ms;
        int interrupted;
        int have_steady; /* target_ci_pct was set */
        struct steady_res steady;
};

struct blk_run;

/* Progress callback: seconds done of this phase, and a short status. */
typedef void (*blk_progress_fn)(void *user, double done_s, uint64_t ios_so_far);

/*
 * Open every target and every worker's engine instance. On error returns
 * -errno with err naming the target; partially opened state is released.
 * geoms[i] receives target i's geometry.
 */
int blk_run_open(struct blk_run **out, const struct blk_target_spec *t, unsigned ntargets,
                 const struct blk_run_opts *o, struct blk_geom *geoms, char *err, size_t errlen);

/* The region each target runs over, after offset/size were applied. */
void blk_run_region(const struct blk_run *r, unsigned target, uint64_t *offset, uint64_t *len);

/*
 * Read the first len bytes of target i (for the signature check). buf is
 * caller-owned, 4096-aligned. 0 or -errno.
 */
int blk_run_read_head(struct blk_run *r, unsigned target, void *buf, uint32_t len, char *err,
                      size_t errlen);

/*
 * Run one point. res is allocated by this call (free with
 * blk_point_result_free). Returns 0, or -errno when a session was lost for
 * good (res still holds what was measured, marked failed per target).
 */
int blk_run_point(struct blk_run *r, const struct blk_point_spec *p, struct blk_point_result *res,
                  blk_progress_fn prog, void *user);

/*
 * Precondition: every worker writes its slice once sequentially (bs, at
 * depth), then, if random_ns > 0, random writes for that long. Nothing is
 * measured. generation != 0 stamps verify headers.
 */
int blk_run_precondition(struct blk_run *r, uint32_t bs, unsigned depth, uint64_t random_ns,
                         uint64_t generation, blk_progress_fn prog, void *user, char *err,
                         size_t errlen);

/*
 * Read back what the last write point wrote and check it (verify). Adds to
 * res's vfy_* counts. 0 or -errno.
 */
int blk_run_verify_readback(struct blk_run *r, const struct blk_point_spec *p,
                            struct blk_point_result *res);

/*
 * Ask a running point to stop early (signal-safe: sets a flag). The flag
 * stays set, so a point started after it ends at once too, until
 * blk_run_resume() (a Ctrl-C between two points still stops the sweep).
 */
void blk_run_interrupt(struct blk_run *r);

/* Open the measured window of the point running now, or of the next one,
 * whose ramp_until_told is set (any thread: sets a flag). */
void blk_run_measure(struct blk_run *r);

/*
 * Close the measured window of the point running now: it ends as if its
 * run_ns were up (not interrupted). Told before its measured window
 * opened, the point ends with an empty one. Any thread (sets a flag, for
 * this point only).
 */
void blk_run_end(struct blk_run *r);

/* I/Os completed so far in the point running now, ramp included (any thread). */
uint64_t blk_run_done_ios(const struct blk_run *r);

/*
 * Clear an interrupt so the run can take further points on the sessions it
 * has. 0, or -EBUSY when the interrupt cut a drain short and an engine still
 * owns I/Os of the stopped point: that run can only be closed.
 */
int blk_run_resume(struct blk_run *r);

void blk_point_result_free(struct blk_point_result *res);
void blk_run_close(struct blk_run *r);

#endif
