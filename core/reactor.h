/*
 * reactor.h - one thread's event loop: descriptors and timers, each with a
 * callback.
 *
 * The shape of redis's ae.c/ae_epoll.c. The caller watches descriptors for
 * read, write or priority data and arms timers; re_run_once() waits in
 * epoll until a descriptor is ready, the earliest timer is due or the
 * caller's own limit passes, then calls back every ready descriptor and
 * every due timer, earliest deadline first. Timers live in a binary
 * min-heap: the next deadline is read off its top, and arming or
 * cancelling one costs O(log n), never a scan over everything armed.
 *
 * Watches and timers are intrusive: the caller embeds a struct re_file or
 * struct re_timer in its own object (a connection, say) and the reactor
 * only points at it, so arming allocates nothing (the heap grows by
 * doubling, rarely). A reactor belongs to one thread. Callbacks run on it
 * and may watch, unwatch, arm and cancel anything, their own included; an
 * object whose re_file is watched must outlive the re_run_once() that
 * calls it back, even if unwatched there.
 */
#ifndef HCI_REACTOR_H
#define HCI_REACTOR_H

#include <stddef.h>
#include <stdint.h>

#define RE_READ  1u
#define RE_WRITE 2u
#define RE_PRI   4u
#define RE_HUP   8u /* fired only, never asked: hang-up or error on the descriptor */

struct reactor;
struct re_file;
struct re_timer;

/* fired: the RE_* that are true now (whatever was asked: a hang-up comes anyway). */
typedef void (*re_file_fn)(struct re_file *f, unsigned fired);
typedef void (*re_timer_fn)(struct re_timer *t);

struct re_file {
        re_file_fn fn;
        void *arg;     /* the caller's */
        int fd;        /* -1: not watched */
        unsigned mask; /* RE_READ | RE_WRITE | RE_PRI asked for */
};

struct re_timer {
        re_timer_fn fn;
        void *arg;     /* the caller's */
        uint64_t when; /* clk_now_ns() deadline while armed */
        size_t slot;   /* 1 + its place in the heap; 0: not armed */
};

/* Unwatched / unarmed, with the callback and its argument. */
void re_file_init(struct re_file *f, re_file_fn fn, void *arg);
void re_timer_init(struct re_timer *t, re_timer_fn fn, void *arg);

/*
 * A reactor with room for ntimers armed timers before the heap grows.
 * NULL with err set (epoll_create1's reason, or out of memory).
 */
struct reactor *re_new(size_t ntimers, char *err, size_t errlen);
void re_free(struct reactor *re);

/*
 * Watch fd for mask, in place of what f watched before (a different
 * descriptor is unwatched first). fd < 0 only unwatches. 0, or -errno of
 * epoll_ctl (f is then not watched).
 */
int re_watch(struct reactor *re, struct re_file *f, int fd, unsigned mask);

/*
 * Before a round sleeps, poll (epoll with a zero timeout) for up to ns
 * nanoseconds: a reply that comes within that time is taken without the
 * sleep and the wake-up (a context switch, often an IPI). Each poll is a
 * system call and the CPU stays busy. 0 (the default): sleep at once.
 */
void re_set_spin(struct reactor *re, uint64_t ns);

/* Stop watching (no-op when not watched). Call before closing the descriptor. */
void re_unwatch(struct reactor *re, struct re_file *f);

/* Arm t for when (clk_now_ns() time), moving it if armed. 0 or -ENOMEM. */
int re_timer_arm(struct reactor *re, struct re_timer *t, uint64_t when);

/* Disarm (no-op when not armed). */
void re_timer_cancel(struct reactor *re, struct re_timer *t);

static inline int re_timer_armed(const struct re_timer *t)
{
        return t->slot != 0;
}

/* The earliest armed deadline, UINT64_MAX when none is armed. */
uint64_t re_next_timer(const struct reactor *re);

/*
 * The wake-up time: clk_now_ns() when re_run_once()'s wait last returned
 * (when it was created, before the first round). A callback that needs a
 * coarse "now" (a stall watch, a timeout of seconds) reads it instead of
 * the clock, so a statement costs no clock read of its own. It lags the
 * clock by the callbacks run since: never use it for a latency.
 */
uint64_t re_now(const struct reactor *re);

/*
 * The caller has just read the clock (now): the next re_run_once() computes
 * its wait from it instead of reading the clock again. A loop that reads
 * the clock each round anyway then costs two clock reads per wake-up (its
 * own and re_now()'s), not three.
 */
void re_set_now(struct reactor *re, uint64_t now);

/*
 * One round: wait until a descriptor is ready, the earliest timer is due,
 * or until (clk_now_ns() time) - not at all when one of them has passed -
 * then call back the ready descriptors and the due timers (a timer is
 * disarmed before its callback). Returns the number of callbacks made, or
 * -errno when epoll failed (EINTR is a round with no callback).
 */
int re_run_once(struct reactor *re, uint64_t until);

#endif
