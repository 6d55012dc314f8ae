/*
 * client_driver.h - the client's side of `hcisweep block --clients`:
 * `hcisweep block --start-on-go` speaks the driver protocol
 * (core/driverproto.h) on its stdin and stdout, one exchange per point K:
 *
 *   hcisweep-driver ready K            targets open, point K prepared
 *   go K AT                            (from the controller) start at AT
 *   hcisweep-driver started NS K       when it started, its clock
 *   hcisweep-driver result K cpu=S     after the point: its own CPU time,
 *   {point JSON}                       and the point as block writes it
 *
 * While a point runs, the end of stdin or a "stop" line interrupts it (as
 * SIGINT would): the point's result is still given, marked interrupted.
 *
 * With the controller's --target-ci (the block client's --steady-remote),
 * the controller's rule decides the window on the merged series of all
 * clients (core/steady_merge.h). Then, while the point runs, the client
 * also prints every STEADY_SAMPLE_S since it started
 *
 *   hcisweep-driver sample T DONE      I/Os done since it started
 *
 * and the controller's "measure" line opens the measured window, its
 * "stop" line closes it (a normal end, not an interruption); only the end
 * of stdin still interrupts. One per process; its watcher thread runs only
 * during a point.
 */
#ifndef HCI_BLK_CLIENT_DRIVER_H
#define HCI_BLK_CLIENT_DRIVER_H

#include <signal.h>
#include <stdint.h>
#include <jansson.h>

struct blk_drv;

/* On stdin (0) and stdout (1). NULL on ENOMEM. */
struct blk_drv *blk_drv_new(void);
void blk_drv_free(struct blk_drv *d);

/*
 * Say ready for point k, wait for its go (answering clock questions), wait
 * until its instant, say started. 1 to run it; 0 when the input ended, an
 * order other than go came or *stop was set; -errno (logged) on a bad line.
 */
int blk_drv_wait_go(struct blk_drv *d, unsigned k, const volatile sig_atomic_t *stop);

/* What the watcher calls, from its own thread (arg is the watch's). */
struct blk_drv_hooks {
        void (*interrupt)(void *arg); /* the end of stdin (and "stop" without end) */
        /* --steady-remote, or NULL: I/Os done so far this point (sampled), and the orders */
        uint64_t (*done)(void *arg);
        void (*measure)(void *arg);
        void (*end)(void *arg);
};

/*
 * From here until blk_drv_unwatch, the watcher thread reads stdin and calls
 * h's hooks (h is copied). With h->done set it sends a sample every
 * STEADY_SAMPLE_S from the started instant. 0, or -EAGAIN (no thread).
 */
int blk_drv_watch(struct blk_drv *d, const struct blk_drv_hooks *h, void *arg);
void blk_drv_unwatch(struct blk_drv *d);

/* Point k's result line and document. 0, or -errno (logged: the controller is gone). */
int blk_drv_result(struct blk_drv *d, unsigned k, const json_t *point);

#endif
