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

#include "core/driverproto.h"
#include "core/log.h"
#include "block/client_driver.h"

struct blk_drv {
        pthread_t watcher;
        int watching;
        int wake[2]; /* written by unwatch: the watcher returns */
        void (*interrupt)(void *);
        void *arg;
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

        (void)d;
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
        m = (struct dp_msg){.kind = DP_STARTED, .point = k, .ns = dp_real_ns()};
        if (dp_send(1, &m, err, sizeof(err)) < 0) {
                log_error("driver: %s", err);
                return -EPIPE;
        }
        return 1;
}

/* The watcher: stdin's end or a stop line interrupts the point; measure is ignored. */
static void *watch(void *arg)
{
        struct blk_drv *d = arg;
        char buf[DP_LINE_MAX + 1];
        size_t len = 0;

        for (;;) {
                struct pollfd p[2] = {{.fd = 0, .events = POLLIN},
                                      {.fd = d->wake[0], .events = POLLIN}};
                if (poll(p, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (p[1].revents)
                        return NULL;
                if (!p[0].revents)
                        continue;
                ssize_t n = read(0, buf + len, 1);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                if (buf[len] != '\n' && ++len <= DP_LINE_MAX)
                        continue;
                struct dp_msg m;
                int stop = len > DP_LINE_MAX || (dp_decode(buf, len, &m) == 0 && m.kind == DP_STOP);
                len = 0;
                if (stop)
                        break;
        }
        d->interrupt(d->arg);
        return NULL;
}

int blk_drv_watch(struct blk_drv *d, void (*interrupt)(void *), void *arg)
{
        d->interrupt = interrupt;
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
