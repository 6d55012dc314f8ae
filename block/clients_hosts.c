/*
 * clients_hosts.c - the hosts of a block client run, sampled during every
 * point (clients_hosts.h). The reading itself is lab/cluster.c's, the one
 * scale uses; this file lists the hosts and paces the samples.
 *
 * The sampler thread owns the cluster: it opens a window when the point's
 * ramp is over, closes it and opens the next every interval, and closes
 * the last one when the controller says the point ended. The controller
 * only sets a state under the mutex, and waits only in blk_hosts_end.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/hostsrc.h"
#include "core/opts.h"
#include "lab/cluster.h"
#include "lab/hosts.h"
#include "lab/labopts.h"
#include "lab/inventory.h"
#include "block/clients_hosts.h"

#define MAX_HOSTS 256

enum phase { IDLE, ARMED, RUNNING, ENDING, DONE, QUIT };

struct blk_hosts {
        struct lab_cluster *c;
        double interval_s;
        pthread_t th;
        int th_up;
        pthread_mutex_t mu;
        pthread_cond_t cv;
        /* guarded by mu */
        enum phase phase;
        uint64_t open_at_ns; /* ARMED: when the window opens (clk_now_ns) */
        uint64_t length_ns;  /* how long it stays open, unless ended sooner; 0: until ended */
        /* the point being sampled: the sampler's while RUNNING/ENDING */
        uint64_t t0_ns;
        struct lab_hosts *point;
        json_t *series;
};

/* ---- the hosts: this one, then the lab's or the inventory's ---- */

/* The lab's hosts after h[0] (this one), each with --metrics-source's source: their total. */
static int lab_hosts(const struct blk_hosts_cfg *cfg, const struct lab_spec *spec,
                     struct lab_hostinfo *h, char *err, size_t errlen)
{
        unsigned n = 1;
        int rc = 0;

        while (n <= MAX_HOSTS &&
               (rc = lab_host_get(cfg->lab_ops, cfg->lab_b, spec, n - 1, &h[n], err, errlen)) == 0)
                n++;
        return rc < 0 && rc != -ENOENT ? rc : (int)n;
}

/* The inventory's storage and client hosts after h[0], each with --metrics-source's source. */
static int inventory_hosts(const char *inventory, const struct lab_spec *spec,
                           struct lab_hostinfo *h, char *err, size_t errlen)
{
        int n = inventory ? lab_inventory_hosts(inventory, h + 1, MAX_HOSTS, err, errlen) : 0;

        for (int i = 1; i <= n; i++) {
                int rc = h[i].source[0] ? lab_host_metrics(spec, &h[i], err, errlen) : 0;

                if (rc < 0)
                        return rc;
        }
        return n < 0 ? n : n + 1;
}

/* The hosts of cfg into h (MAX_HOSTS + 1 of them): their count, or -errno with err. */
static int list_hosts(const struct blk_hosts_cfg *cfg, struct lab_hostinfo *h, char *err,
                      size_t errlen)
{
        static const struct lab_spec auto_spec = {.metrics_source = LAB_METRICS_AUTO};
        const struct lab_spec *spec = cfg->spec ? cfg->spec : &auto_spec;

        /* this host from its /proc, whatever the source of the others: no URL names it */
        h[0] = (struct lab_hostinfo){.name = "local", .source = "procfs", .where = "/proc"};
        snprintf(h[0].role, sizeof(h[0].role), "%s", cfg->local_clients ? "client" : "controller");
        if (cfg->lab_ops && cfg->lab_b && cfg->lab_ops->host)
                return lab_hosts(cfg, spec, h, err, errlen);
        return inventory_hosts(cfg->inventory, spec, h, err, errlen);
}

/* ---- the sampler ---- */

static struct timespec abs_of(uint64_t ns)
{
        /* mu's condition variable waits on CLOCK_MONOTONIC, clk_now_ns()'s clock */
        return (struct timespec){.tv_sec = (time_t)(ns / 1000000000u),
                                 .tv_nsec = (long)(ns % 1000000000u)};
}

/* Close the window open since *since into the point, as one sample of the series. */
static void sample(struct blk_hosts *h, uint64_t *since)
{
        struct lab_hosts *win = NULL;
        char why[1024];
        uint64_t now;

        lab_cluster_end(h->c, &win, why, sizeof(why));
        now = clk_now_ns();
        if (win) {
                json_t *s = json_object();
                json_t *cl = lab_hosts_json(win);

                if (s && cl) {
                        json_object_set_new(s, "t_s", json_real((double)(*since - h->t0_ns) / 1e9));
                        json_object_set_new(s, "seconds", json_real((double)(now - *since) / 1e9));
                        json_object_set(s, "hosts", json_object_get(cl, "hosts"));
                        json_array_append(h->series, s);
                }
                json_decref(s);
                json_decref(cl);
                lab_hosts_fold(h->point, win);
                lab_hosts_free(win);
        }
        *since = now;
}

static void *sampler(void *arg)
{
        struct blk_hosts *h = arg;
        uint64_t since = 0;

        pthread_mutex_lock(&h->mu);
        while (h->phase != QUIT) {
                struct timespec at;

                if (h->phase == IDLE || h->phase == DONE) {
                        pthread_cond_wait(&h->cv, &h->mu);
                        continue;
                }
                if (h->phase == ENDING && since == 0) { /* ended before its window opened */
                        h->phase = DONE;
                        pthread_cond_broadcast(&h->cv);
                        continue;
                }
                uint64_t due =
                    h->phase == ARMED ? h->open_at_ns : since + (uint64_t)(h->interval_s * 1e9);
                uint64_t close_at = h->t0_ns + h->length_ns;
                int last = h->phase == RUNNING && h->length_ns && due >= close_at;

                if (last)
                        due = close_at; /* the point's measured window is over */
                if (h->phase != ENDING && clk_now_ns() < due) {
                        at = abs_of(due);
                        pthread_cond_timedwait(&h->cv, &h->mu, &at);
                        continue;
                }
                enum phase was = last ? ENDING : h->phase;
                pthread_mutex_unlock(&h->mu);
                if (was == ARMED) {
                        lab_cluster_begin(h->c);
                        since = h->t0_ns = clk_now_ns();
                } else {
                        sample(h, &since);
                        if (was == RUNNING)
                                lab_cluster_begin(h->c);
                }
                pthread_mutex_lock(&h->mu);
                if (was == ARMED && h->phase == ARMED)
                        h->phase = RUNNING;
                else if (was == ENDING && h->phase != QUIT) {
                        h->phase = DONE;
                        since = 0;
                        pthread_cond_broadcast(&h->cv);
                }
        }
        pthread_mutex_unlock(&h->mu);
        return NULL;
}

/* ---- the controller's side ---- */

int blk_hosts_open(struct blk_hosts **out, const struct blk_hosts_cfg *cfg, char *err,
                   size_t errlen)
{
        struct lab_hostinfo *hi = calloc(MAX_HOSTS + 1, sizeof(*hi));
        struct blk_hosts *h = calloc(1, sizeof(*h));
        pthread_condattr_t ca;
        int n, rc;

        *out = h;
        if (!hi || !h) {
                free(hi);
                return -ENOMEM;
        }
        h->interval_s = cfg->interval_s > 0 ? cfg->interval_s : BLK_HOSTS_INTERVAL_S;
        n = list_hosts(cfg, hi, err, errlen);
        rc = n < 0 ? n : lab_cluster_open_list(&h->c, hi, (unsigned)n, 1, err, errlen);
        free(hi);
        if (rc < 0)
                return rc;
        pthread_mutex_init(&h->mu, NULL);
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&h->cv, &ca);
        pthread_condattr_destroy(&ca);
        if ((rc = pthread_create(&h->th, NULL, sampler, h)) != 0) {
                snprintf(err, errlen, "host sampler: %s", strerror(rc));
                return -rc;
        }
        h->th_up = 1;
        return 0;
}

void blk_hosts_close(struct blk_hosts *h)
{
        if (!h)
                return;
        if (h->th_up) {
                pthread_mutex_lock(&h->mu);
                h->phase = QUIT;
                pthread_cond_broadcast(&h->cv);
                pthread_mutex_unlock(&h->mu);
                pthread_join(h->th, NULL);
                pthread_mutex_destroy(&h->mu);
                pthread_cond_destroy(&h->cv);
        }
        lab_hosts_free(h->point);
        json_decref(h->series);
        lab_cluster_close(h->c);
        free(h);
}

void blk_hosts_begin(struct blk_hosts *h, double delay_s, double length_s)
{
        if (!h || !h->th_up)
                return;
        pthread_mutex_lock(&h->mu);
        lab_hosts_free(h->point);
        json_decref(h->series);
        h->point = lab_hosts_empty(h->c);
        h->series = json_array();
        h->open_at_ns = clk_now_ns() + (uint64_t)(delay_s > 0 ? delay_s * 1e9 : 0);
        h->length_ns = (uint64_t)(length_s > 0 ? length_s * 1e9 : 0);
        h->phase = ARMED;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
}

json_t *blk_hosts_end(struct blk_hosts *h)
{
        json_t *o, *cl;

        if (!h || !h->th_up)
                return NULL;
        pthread_mutex_lock(&h->mu);
        if (h->phase == ARMED || h->phase == RUNNING) {
                h->phase = h->phase == ARMED ? DONE : ENDING;
                pthread_cond_broadcast(&h->cv);
        }
        while (h->phase == ENDING)
                pthread_cond_wait(&h->cv, &h->mu);
        pthread_mutex_unlock(&h->mu);
        o = json_object();
        cl = h->point ? lab_hosts_json(h->point) : NULL;
        if (!o) {
                json_decref(cl);
                return NULL;
        }
        json_object_set_new(o, "interval_s", json_real(h->interval_s));
        json_object_set_new(o, "hosts",
                            cl ? json_incref(json_object_get(cl, "hosts")) : json_array());
        json_object_set_new(o, "series", h->series ? json_incref(h->series) : json_array());
        json_decref(cl);
        return o;
}
