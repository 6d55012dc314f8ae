/*
 * scale_load.h - the block load of `hcisweep scale --block-load` (scale_load.c):
 * block I/O on every VM's LUN alongside each measured OLTP run. Internal to
 * scale/. One controlling thread calls these; the point runs in a thread of
 * its own between scale_load_start() and scale_load_finish().
 */
#ifndef HCI_SCALE_SCALE_LOAD_H
#define HCI_SCALE_SCALE_LOAD_H

#include <stddef.h>
#include <stdint.h>

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
};

struct scale_load; /* the step's LUNs, open, and the point in flight */

/* Parse SPEC (rw=randrw,bs=4k,...); -EINVAL naming the key. */
int scale_load_parse(const char *text, struct scale_load_spec *sp, char *err, size_t errlen);
const char *scale_load_rw_name(enum blk_rw rw);
/* Open the n LUN URLs (iscsi://...) for a step; -errno with err naming the LUN. */
int scale_load_open(struct scale_load **out, const struct scale_load_spec *sp,
                    const char *const *urls, unsigned n, char *err, size_t errlen);
/* Start one point in its own thread: ramp_s unmeasured (< 0: until
 * scale_load_measure()), then run_s (0: until stopped). */
int scale_load_start(struct scale_load *l, double ramp_s, double run_s, char *err, size_t errlen);
/* The OLTP run's measured window opened: so does the block load's (any thread). */
void scale_load_measure(struct scale_load *l);
/*
 * The OLTP run is over: stop the point if more than a moment of it is left,
 * wait for it, add it to acc; *iops is its IOPS. 0, or -errno when a LUN
 * was lost (acc->error says which).
 */
int scale_load_finish(struct scale_load *l, struct scale_load_res *acc, double *iops);
void scale_load_close(struct scale_load *l);
double scale_load_iops(const struct scale_load_res *r); /* both directions; 0 when none */

#endif
