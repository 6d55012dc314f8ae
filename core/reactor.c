/*
 * reactor.c - the event loop of reactor.h over epoll, timers in a min-heap.
 *
 * The heap is an array of timer pointers ordered by deadline, parent
 * before children (slot k's children are 2k+1 and 2k+2); each timer knows
 * its own slot, so cancelling or moving one sifts it from where it is.
 * epoll_pwait2 takes a nanosecond timeout (kernels before 5.11 lack it:
 * epoll_wait's milliseconds then, rounded up so a timer is never early).
 */
#include "core/reactor.h"
#include "core/clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 256

struct reactor {
        int epfd;
        struct re_timer **heap;
        size_t n, cap;
        uint64_t spin_ns;
        uint64_t now;   /* clk_now_ns() when the last wait returned: see re_now() */
        uint64_t given; /* re_set_now()'s time for the next wait, 0 when none */
};

void re_file_init(struct re_file *f, re_file_fn fn, void *arg)
{
        *f = (struct re_file){.fn = fn, .arg = arg, .fd = -1};
}

void re_timer_init(struct re_timer *t, re_timer_fn fn, void *arg)
{
        *t = (struct re_timer){.fn = fn, .arg = arg};
}

struct reactor *re_new(size_t ntimers, char *err, size_t errlen)
{
        struct reactor *re = calloc(1, sizeof(*re));

        if (!re || !(re->heap = calloc(ntimers ? ntimers : 1, sizeof(*re->heap)))) {
                free(re);
                snprintf(err, errlen, "out of memory");
                errno = ENOMEM;
                return NULL;
        }
        re->cap = ntimers ? ntimers : 1;
        re->epfd = epoll_create1(EPOLL_CLOEXEC);
        if (re->epfd < 0) {
                int e = errno;

                snprintf(err, errlen, "cannot create an epoll instance: %s", strerror(e));
                free(re->heap);
                free(re);
                errno = e; /* the caller's -errno */
                return NULL;
        }
        re->now = clk_now_ns();
        return re;
}

void re_free(struct reactor *re)
{
        if (!re)
                return;
        close(re->epfd);
        free(re->heap);
        free(re);
}

/* ---- descriptors ---- */

static uint32_t epoll_bits(unsigned mask)
{
        return (mask & RE_READ ? EPOLLIN : 0) | (mask & RE_WRITE ? EPOLLOUT : 0) |
               (mask & RE_PRI ? EPOLLPRI : 0);
}

int re_watch(struct reactor *re, struct re_file *f, int fd, unsigned mask)
{
        struct epoll_event ee = {.events = epoll_bits(mask), .data.ptr = f};

        if (f->fd >= 0 && f->fd != fd)
                re_unwatch(re, f);
        if (fd < 0 || (f->fd == fd && f->mask == mask))
                return 0;
        if (epoll_ctl(re->epfd, f->fd == fd ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ee) < 0) {
                int rc = -errno;

                re_unwatch(re, f);
                return rc;
        }
        f->fd = fd;
        f->mask = mask;
        return 0;
}

void re_unwatch(struct reactor *re, struct re_file *f)
{
        if (f->fd >= 0)
                epoll_ctl(re->epfd, EPOLL_CTL_DEL, f->fd, NULL);
        f->fd = -1;
        f->mask = 0;
}

static unsigned fired_of(uint32_t ev)
{
        return (ev & EPOLLIN ? RE_READ : 0) | (ev & EPOLLOUT ? RE_WRITE : 0) |
               (ev & EPOLLPRI ? RE_PRI : 0) | (ev & (EPOLLHUP | EPOLLERR) ? RE_HUP : 0);
}

/* ---- timers: the heap ---- */

static void place(struct reactor *re, size_t k, struct re_timer *t)
{
        re->heap[k] = t;
        t->slot = k + 1;
}

static void sift_up(struct reactor *re, size_t k)
{
        struct re_timer *t = re->heap[k];

        while (k > 0 && re->heap[(k - 1) / 2]->when > t->when) {
                place(re, k, re->heap[(k - 1) / 2]);
                k = (k - 1) / 2;
        }
        place(re, k, t);
}

static void sift_down(struct reactor *re, size_t k)
{
        struct re_timer *t = re->heap[k];

        for (;;) {
                size_t c = 2 * k + 1;

                if (c >= re->n)
                        break;
                if (c + 1 < re->n && re->heap[c + 1]->when < re->heap[c]->when)
                        c++;
                if (re->heap[c]->when >= t->when)
                        break;
                place(re, k, re->heap[c]);
                k = c;
        }
        place(re, k, t);
}

/* Re-establish the order around slot k after its deadline changed. */
static void fix(struct reactor *re, size_t k)
{
        if (k > 0 && re->heap[(k - 1) / 2]->when > re->heap[k]->when)
                sift_up(re, k);
        else
                sift_down(re, k);
}

int re_timer_arm(struct reactor *re, struct re_timer *t, uint64_t when)
{
        t->when = when;
        if (t->slot) {
                fix(re, t->slot - 1);
                return 0;
        }
        if (re->n == re->cap) {
                struct re_timer **h = realloc(re->heap, 2 * re->cap * sizeof(*h));

                if (!h)
                        return -ENOMEM;
                re->heap = h;
                re->cap *= 2;
        }
        place(re, re->n++, t);
        sift_up(re, re->n - 1);
        return 0;
}

void re_timer_cancel(struct reactor *re, struct re_timer *t)
{
        size_t k;

        if (!t->slot)
                return;
        k = t->slot - 1;
        t->slot = 0;
        if (k == --re->n)
                return;
        place(re, k, re->heap[re->n]);
        fix(re, k);
}

uint64_t re_next_timer(const struct reactor *re)
{
        return re->n ? re->heap[0]->when : UINT64_MAX;
}

/* ---- one round ---- */

void re_set_spin(struct reactor *re, uint64_t ns)
{
        re->spin_ns = ns;
}

/* Poll until an event, until, or spin_ns: the events found, 0 none, -1 with errno. */
static int spin_files(struct reactor *re, struct epoll_event *evs, uint64_t until)
{
        uint64_t now = clk_now_ns(), end = now + re->spin_ns;
        int n = 0;

        if (end > until)
                end = until;
        while (n == 0 && now < end) {
                n = epoll_wait(re->epfd, evs, MAX_EVENTS, 0);
                now = clk_now_ns();
        }
        return n;
}

static int wait_files(struct reactor *re, struct epoll_event *evs, uint64_t until)
{
        int n = re->spin_ns ? spin_files(re, evs, until) : 0;
        uint64_t now = re->given && !re->spin_ns ? re->given : clk_now_ns(),
                 d = until > now ? until - now : 0;
        struct timespec ts = {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)};

        if (n != 0)
                return n < 0 ? (errno == EINTR ? 0 : -errno) : n;
        n = epoll_pwait2(re->epfd, evs, MAX_EVENTS, &ts, NULL);

        if (n < 0 && errno == ENOSYS) {
                uint64_t ms = (d + 999999) / 1000000;

                n = epoll_wait(re->epfd, evs, MAX_EVENTS, ms > 60000 ? 60000 : (int)ms);
        }
        if (n < 0)
                return errno == EINTR ? 0 : -errno;
        return n;
}

uint64_t re_now(const struct reactor *re)
{
        return re->now;
}

void re_set_now(struct reactor *re, uint64_t now)
{
        re->given = now;
}

static int run_timers(struct reactor *re)
{
        int calls = 0;

        /* the wake-up's time: a timer falling due during the callbacks runs next round */
        while (re->n && re->heap[0]->when <= re->now) {
                struct re_timer *t = re->heap[0];

                re_timer_cancel(re, t);
                t->fn(t);
                calls++;
        }
        return calls;
}

int re_run_once(struct reactor *re, uint64_t until)
{
        struct epoll_event evs[MAX_EVENTS];
        uint64_t next = re_next_timer(re);
        int n = wait_files(re, evs, next < until ? next : until), calls = 0;

        re->given = 0;
        re->now = clk_now_ns();
        if (n < 0)
                return n;
        for (int i = 0; i < n; i++) {
                struct re_file *f = evs[i].data.ptr;

                /* unwatched by an earlier callback of this round: its event is stale */
                if (f->fd < 0)
                        continue;
                f->fn(f, fired_of(evs[i].events));
                calls++;
        }
        return calls + run_timers(re);
}
