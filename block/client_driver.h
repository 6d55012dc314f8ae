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
 * One per process; its watcher thread runs only during a point.
 */
#ifndef HCI_BLK_CLIENT_DRIVER_H
#define HCI_BLK_CLIENT_DRIVER_H

#include <signal.h>
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

/* From here until blk_drv_unwatch: the end of stdin or "stop" calls interrupt(arg). */
int blk_drv_watch(struct blk_drv *d, void (*interrupt)(void *), void *arg);
void blk_drv_unwatch(struct blk_drv *d);

/* Point k's result line and document. 0, or -errno (logged: the controller is gone). */
int blk_drv_result(struct blk_drv *d, unsigned k, const json_t *point);

#endif
