/*
 * client_driver.c - a block client's end of the driver protocol (see
 * client_driver.h).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/driverproto.h"
#include "core/log.h"
#include "core/steady.h"
#include "block/client_driver.h"

struct blk_drv {
        pthread_t watcher;
        int watching;
        int wake[2]; /* written by unwatch: the watcher returns */
        struct blk_drv_hooks h;
        void *arg;
        unsigned point;    /* the point started last */
        uint64_t started;  /* ... when (clk_now_ns): samples count from here */
        unsigned nsamples; /* samples sent this point */
};

struct blk_drv *blk_drv_new(void)
{
        struct blk_drv *d = calloc(1, sizeof(*d));

        if (d && pipe(d->wake) < 0) {
                free(d);
                return NULL;
        }
        return d;
}

void blk_drv_free(struct blk_drv *d)
{
        if (!d)
                return;
        blk_drv_unwatch(d);
        close(d->wake[0]);
        close(d->wake[1]);
        free(d);
}

/* Sleep until ns of CLOCK_REALTIME (the wire's clock); a signal ends it early. */
static void sleep_until(int64_t ns)
{
        struct timespec ts = {.tv_sec = ns / 1000000000ll, .tv_nsec = ns % 1000000000ll};

        if (ns > dp_real_ns())
                clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL);
}

int blk_drv_wait_go(struct blk_drv *d, unsigned k, const volatile sig_atomic_t *stop)
{
        struct dp_msg m = {.kind = DP_READY, .point = k}, go;
        char err[256];
        int rc;

        if (dp_send(1, &m, err, sizeof(err)) < 0) {
                log_error("driver: %s", err);
                return -EPIPE;
        }
        rc = dp_wait_go(0, 1, stop, &go, err, sizeof(err));
        if (rc < 0)
                log_error("driver: %s", err);
        if (rc <= 0)
                return rc;
        if (go.point != k) {
                log_error("driver: a go for point %u while ready for point %u", go.point, k);
                return -EPROTO;
        }
        sleep_until(go.ns);
        d->point = k;
        d->started = clk_now_ns();
        d->nsamples = 0;
        m = (struct dp_msg){.kind = DP_STARTED, .point = k, .ns = dp_real_ns()};
        if (dp_send(1, &m, err, sizeof(err)) < 0) {
                log_error("driver: %s", err);
                return -EPIPE;
        }
        return 1;
}

/* The next sample's due time (clk_now_ns), and ms until then for poll (-1: no samples). */
static int sample_wait_ms(const struct blk_drv *d, uint64_t *due)
{
        uint64_t now = clk_now_ns();

        if (!d->h.done)
                return -1;
        *due = d->started + (uint64_t)((d->nsamples + 1) * STEADY_SAMPLE_S * 1e9);
        return *due > now ? (int)((*due - now + 999999) / 1000000) : 0;
}

/* --steady-remote: the sample due, if it is (a controller gone is found by stdin's end). */
static void sample_if_due(struct blk_drv *d)
{
        uint64_t due, now = clk_now_ns();
        char err[256];

        if (sample_wait_ms(d, &due) != 0)
                return;
        d->nsamples++;
        struct dp_msg m = {.kind = DP_SAMPLE,
                           .point = d->point,
                           .t_s = (double)(now - d->started) / 1e9,
                           .done = d->h.done(d->arg)};
        if (dp_send(1, &m, err, sizeof(err)) < 0)
                log_warn("driver: %s", err);
}

/* One whole line from the controller: 1 when it ends the watch. */
static int on_line(struct blk_drv *d, const char *buf, size_t len)
{
        struct dp_msg m;

        if (len > DP_LINE_MAX) {
                d->h.interrupt(d->arg);
                return 1;
        }
        if (dp_decode(buf, len, &m) != 0)
                return 0;
        if (m.kind == DP_MEASURE && d->h.measure)
                d->h.measure(d->arg);
        if (m.kind != DP_STOP)
                return 0;
        (d->h.end ? d->h.end : d->h.interrupt)(d->arg);
        return 1;
}

/* The watcher: stdin's end interrupts the point; its lines are the controller's orders. */
static void *watch(void *arg)
{
        struct blk_drv *d = arg;
        char buf[DP_LINE_MAX + 1];
        size_t len = 0;

        for (;;) {
                struct pollfd p[2] = {{.fd = 0, .events = POLLIN},
                                      {.fd = d->wake[0], .events = POLLIN}};
                uint64_t due;
                int n = poll(p, 2, sample_wait_ms(d, &due));

                if (n < 0 && errno != EINTR)
                        break;
                sample_if_due(d);
                if (n <= 0)
                        continue;
                if (p[1].revents)
                        return NULL;
                if (!p[0].revents)
                        continue;
                ssize_t r = read(0, buf + len, 1);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0)
                        break;
                if (buf[len] != '\n' && ++len <= DP_LINE_MAX)
                        continue;
                if (on_line(d, buf, len))
                        return NULL;
                len = 0;
        }
        d->h.interrupt(d->arg);
        return NULL;
}

int blk_drv_watch(struct blk_drv *d, const struct blk_drv_hooks *h, void *arg)
{
        d->h = *h;
        d->arg = arg;
        if (pthread_create(&d->watcher, NULL, watch, d) != 0)
                return -EAGAIN;
        d->watching = 1;
        return 0;
}

void blk_drv_unwatch(struct blk_drv *d)
{
        char c = 1;

        if (!d->watching)
                return;
        if (write(d->wake[1], &c, 1) < 0)
                log_warn("driver: cannot wake the input watcher: %s", strerror(errno));
        pthread_join(d->watcher, NULL);
        d->watching = 0;
        /* drain the wake byte, so the next watch does not end at once */
        struct pollfd p = {.fd = d->wake[0], .events = POLLIN};
        while (poll(&p, 1, 0) > 0 && read(d->wake[0], &c, 1) > 0)
                ;
}

int blk_drv_result(struct blk_drv *d, unsigned k, const json_t *point)
{
        char err[256];
        char *doc = json_dumps(point, JSON_COMPACT);
        int rc;

        (void)d;
        if (!doc)
                return -ENOMEM;
        struct dp_msg m = {
            .kind = DP_RESULT,
            .point = k,
            .cpu_s = dp_self_cpu_s(), /* as the oltp driver says it: -1 unknown */
            .doc = doc,
            .doclen = strlen(doc),
        };
        rc = dp_send(1, &m, err, sizeof(err));
        if (rc < 0)
                log_error("driver: %s", err);
        free(doc);
        return rc;
}
