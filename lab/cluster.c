/*
 * lab/cluster.c - the lab's hosts over each measured window
 * (lab/cluster.h). Counters are big (a host's every CPU and disk), so
 * the two reads of a window live on the heap, one pair per host.
 *
 * Each open host has a reader thread of its own: the window's reads are
 * posted to every host at once, so all windows open and close together, and
 * opening a window never waits (it runs on the thread that drives the load).
 * Closing waits for the hosts' reads, each bounded by its source's timeout;
 * a host still busy with an earlier read loses the window, nobody else.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostsrc.h"
#include "lab/hosts.h"
#include "lab/cluster.h"

struct host {
        struct lab_hostinfo info;
        int controller; /* this host's own /proc */
        int open;       /* src is open */
        int begun;      /* this window's first read was posted */
        int measured;   /* at0 and at1 hold the last closed window's reads */
        struct hostsrc src;
        struct hostsrc_counters *at0, *at1;
        char error[256]; /* why it could not be opened, "" */
        /* the reader thread; mu guards what follows it */
        pthread_t th;
        int th_up;
        pthread_mutex_t mu;
        pthread_cond_t cv;
        int want;          /* read into slot want-1 next; 0 nothing; -1 quit */
        int busy;          /* a read is in flight */
        int done[2];       /* slot 0 (at0) / 1 (at1) holds the posted read's outcome */
        int rc[2];         /* its 0 / -errno */
        char rerr[2][256]; /* its error */
};

struct lab_cluster {
        unsigned n;
        struct host *h;
};

/* One host over a step: the time-weighted mean of the windows that read it. */
struct host_step {
        struct lab_hostinfo info;
        int controller;
        int missing; /* did not answer when the run started (--metrics-optional) */
        double seconds;
        double fam_s[6]; /* seconds measured per family (bit i of HOSTSRC_*) */
        struct hostsrc_rates r;
        unsigned missed; /* windows it could not read */
        char error[256]; /* the last reason, "" */
};

struct lab_hosts {
        unsigned n;
        struct host_step *h;
};

/* The reader thread: one read at a time, into the slot posted. */
static void *reader(void *arg)
{
        struct host *h = arg;
        char err[256];

        pthread_mutex_lock(&h->mu);
        for (;;) {
                int slot, rc;

                while (!h->want)
                        pthread_cond_wait(&h->cv, &h->mu);
                if (h->want < 0)
                        break;
                slot = h->want - 1;
                h->want = 0;
                h->busy = 1;
                pthread_mutex_unlock(&h->mu);
                err[0] = '\0';
                rc = hostsrc_read(&h->src, slot ? h->at1 : h->at0, err, sizeof(err));
                pthread_mutex_lock(&h->mu);
                h->rc[slot] = rc;
                snprintf(h->rerr[slot], sizeof(h->rerr[slot]), "%s", err);
                h->done[slot] = 1;
                h->busy = 0;
                pthread_cond_broadcast(&h->cv);
        }
        pthread_mutex_unlock(&h->mu);
        return NULL;
}

/* Ask h's reader for a read into slot; -EBUSY when it is still at an earlier one. */
static int post(struct host *h, int slot)
{
        int rc = 0;

        pthread_mutex_lock(&h->mu);
        if (h->busy || h->want) {
                rc = -EBUSY;
        } else {
                h->done[slot] = 0;
                h->want = slot + 1;
                pthread_cond_signal(&h->cv);
        }
        pthread_mutex_unlock(&h->mu);
        return rc;
}

/* The outcome of h's read into slot, waiting until deadline (CLOCK_REALTIME):
 * 0, -errno with why, -ETIMEDOUT when it did not come back in time. */
static int await(struct host *h, int slot, const struct timespec *deadline, char *why, size_t len)
{
        int rc = 0;

        pthread_mutex_lock(&h->mu);
        while (!h->done[slot] && rc == 0)
                rc = pthread_cond_timedwait(&h->cv, &h->mu, deadline);
        if (h->done[slot]) {
                rc = h->rc[slot];
                snprintf(why, len, "%s", h->rerr[slot]);
        } else {
                rc = -ETIMEDOUT;
                snprintf(why, len, "%s (%s): no answer within %d s", h->info.name, h->src.ops->name,
                         HOSTSRC_HTTP_TIMEOUT_MS / 1000 + 1);
        }
        pthread_mutex_unlock(&h->mu);
        return rc;
}

/* Now plus a source's timeout and a second: no read waited on outlives it. */
static struct timespec read_deadline(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += HOSTSRC_HTTP_TIMEOUT_MS / 1000 + 1;
        return ts;
}

/* Open the host's source and start its reader. */
static int open_host(struct host *h, char *err, size_t errlen)
{
        int rc;

        h->at0 = malloc(sizeof(*h->at0));
        h->at1 = malloc(sizeof(*h->at1));
        if (!h->at0 || !h->at1)
                return -ENOMEM;
        rc = lab_host_src_open(&h->info, &h->src, err, errlen);
        if (rc < 0)
                return rc;
        h->open = 1;
        pthread_mutex_init(&h->mu, NULL);
        pthread_cond_init(&h->cv, NULL);
        if ((rc = pthread_create(&h->th, NULL, reader, h)) != 0) {
                snprintf(err, errlen, "%s: cannot start its reader: %s", h->info.name,
                         strerror(rc));
                return -rc;
        }
        h->th_up = 1;
        return 0;
}

/* Stop h's reader (after the read in flight, bounded by its timeout) and close it. */
static void close_host(struct host *h)
{
        if (h->th_up) {
                pthread_mutex_lock(&h->mu);
                h->want = -1;
                pthread_cond_signal(&h->cv);
                pthread_mutex_unlock(&h->mu);
                pthread_join(h->th, NULL);
                h->th_up = 0;
        }
        if (h->open) {
                pthread_mutex_destroy(&h->mu);
                pthread_cond_destroy(&h->cv);
                hostsrc_close(&h->src);
                h->open = 0;
        }
}

/* The lab's hosts with the sources --metrics-source picks (lab/hosts.h). */
static int list_hosts(struct lab_cluster *c, const struct lab_backend_ops *ops,
                      struct lab_backend *b, const struct lab_spec *spec, char *err, size_t errlen)
{
        struct lab_hostinfo h;
        unsigned cap = 0;
        int rc;

        for (unsigned i = 0; (rc = lab_host_get(ops, b, spec, i, &h, err, errlen)) == 0; i++) {
                if (c->n == cap) {
                        struct host *m = realloc(c->h, (cap = cap ? 2 * cap : 4) * sizeof(*m));

                        if (!m)
                                return -ENOMEM;
                        c->h = m;
                }
                memset(&c->h[c->n], 0, sizeof(c->h[c->n]));
                c->h[c->n].info = h;
                c->h[c->n++].controller = lab_host_is_controller(ops);
        }
        return rc == -ENOENT ? 0 : rc;
}

/* The first read of every host: it answers, or it is missing (optional) or stops the run. */
static int first_reads(struct lab_cluster *c, int optional, char *err, size_t errlen)
{
        struct timespec deadline = read_deadline();

        for (unsigned i = 0; i < c->n; i++) {
                struct host *h = &c->h[i];

                if (h->open && await(h, 0, &deadline, h->error, sizeof(h->error)) < 0)
                        close_host(h); /* opened, but the first read failed */
                else if (h->open)
                        h->error[0] = '\0';
                if (h->info.source[0] && !h->open && !optional) {
                        snprintf(err, errlen,
                                 "host %s does not answer: %s (--metrics-optional "
                                 "records it as missing)",
                                 h->info.name, h->error);
                        return -EHOSTDOWN;
                }
        }
        return 0;
}

int lab_cluster_open(struct lab_cluster **out, const struct lab_backend_ops *ops,
                     struct lab_backend *b, const struct lab_spec *spec, int optional, char *err,
                     size_t errlen)
{
        struct lab_cluster *c = calloc(1, sizeof(*c));
        int rc;

        *out = c;
        if (!c)
                return -ENOMEM;
        if ((rc = list_hosts(c, ops, b, spec, err, errlen)) < 0)
                return rc;
        for (unsigned i = 0; i < c->n; i++) {
                struct host *h = &c->h[i];

                if (!h->info.source[0])
                        continue;
                rc = open_host(h, h->error, sizeof(h->error));
                if (rc == -ENOMEM)
                        return rc;
                if (rc == 0)
                        post(h, 0); /* every host's first read at once */
                else
                        close_host(h);
        }
        return first_reads(c, optional, err, errlen);
}

/* Hosts given as a list (an inventory's): each opened from its source and where. */

int lab_cluster_open_list(struct lab_cluster **out, const struct lab_hostinfo *hosts, unsigned n,
                          int optional, char *err, size_t errlen)
{
        struct lab_cluster *c = calloc(1, sizeof(*c));
        int rc;

        *out = c;
        if (!c || !(c->h = calloc(n ? n : 1, sizeof(*c->h))))
                return -ENOMEM;
        c->n = n;
        for (unsigned i = 0; i < n; i++) {
                struct host *h = &c->h[i];

                h->info = hosts[i];
                h->controller =
                    !strcmp(h->info.source, "procfs") && !strcmp(h->info.where, "/proc");
                if (!h->info.source[0])
                        continue;
                rc = open_host(h, h->error, sizeof(h->error));
                if (rc == -ENOMEM)
                        return rc;
                if (rc == 0)
                        post(h, 0);
                else
                        close_host(h);
        }
        return first_reads(c, optional, err, errlen);
}

int lab_cluster_check(const struct lab_backend_ops *ops, struct lab_backend *b,
                      const struct lab_spec *spec, char *err, size_t errlen)
{
        struct lab_hostinfo h;
        int rc;

        for (unsigned i = 0; (rc = lab_host_get(ops, b, spec, i, &h, err, errlen)) == 0; i++)
                ;
        return rc == -ENOENT ? 0 : rc;
}

void lab_cluster_close(struct lab_cluster *c)
{
        for (unsigned i = 0; c && i < c->n; i++) {
                close_host(&c->h[i]);
                free(c->h[i].at0);
                free(c->h[i].at1);
        }
        if (c)
                free(c->h);
        free(c);
}

unsigned lab_cluster_count(const struct lab_cluster *c)
{
        return c ? c->n : 0;
}

void lab_cluster_print(const struct lab_cluster *c)
{
        for (unsigned i = 0; c && i < c->n; i++) {
                const struct host *h = &c->h[i];

                printf("%s%s (%s, %s", i ? ", " : "hosts: ", h->info.name, h->info.role,
                       h->info.source[0] ? h->info.source : "no source");
                if (h->controller)
                        printf(" %s", h->info.where);
                if (h->info.source[0] && !h->open)
                        printf(", missing: %s", h->error);
                printf(")");
        }
        if (c && c->n)
                printf("\n");
}

void lab_cluster_begin(struct lab_cluster *c)
{
        /* posted, never waited for: a failed or late read shows when the window ends */
        for (unsigned i = 0; c && i < c->n; i++)
                c->h[i].begun = c->h[i].open && post(&c->h[i], 0) == 0;
}

/* Fold x into the mean m of w seconds so far, for dt seconds more. */
static void fold(double *m, double x, double w, double dt)
{
        *m = w > 0 ? (*m * w + x * dt) / (w + dt) : x;
}

static struct hostsrc_disk_rate *disk_in(struct hostsrc_rates *r, const char *name)
{
        for (unsigned i = 0; i < r->ndisks; i++)
                if (!strcmp(r->disk[i].name, name))
                        return &r->disk[i];
        if (r->ndisks == HOSTSRC_MAX_DISKS)
                return NULL;
        memset(&r->disk[r->ndisks], 0, sizeof(r->disk[0]));
        snprintf(r->disk[r->ndisks].name, sizeof(r->disk[0].name), "%s", name);
        return &r->disk[r->ndisks++];
}

/* A disk over the windows that read it: a disk that appeared late is not
 * diluted with zeros, and its latency is per request (I/O-weighted). */
static void fold_disk(struct hostsrc_disk_rate *d, const struct hostsrc_disk_rate *x)
{
        double w = d->seconds, dt = x->seconds;

        fold(&d->util_pct, x->util_pct, w, dt);
        fold(&d->iops, x->iops, w, dt);
        fold(&d->read_bytes_s, x->read_bytes_s, w, dt);
        fold(&d->write_bytes_s, x->write_bytes_s, w, dt);
        if (d->ios + x->ios > 0)
                d->lat_ms = (d->lat_ms * d->ios + x->lat_ms * x->ios) / (d->ios + x->ios);
        d->ios += x->ios;
        d->seconds = w + dt;
}

static void fold_rates(struct host_step *hs, const struct hostsrc_rates *x)
{
        struct hostsrc_rates *m = &hs->r;
        double dt = x->seconds, *fs = hs->fam_s;

        if (x->have & HOSTSRC_CPU) {
                fold(&m->busy, x->busy, fs[0], dt);
                fold(&m->user, x->user, fs[0], dt);
                fold(&m->system, x->system, fs[0], dt);
                fold(&m->iowait, x->iowait, fs[0], dt);
                fold(&m->steal, x->steal, fs[0], dt);
                fold(&m->busiest_cpu, x->busiest_cpu, fs[0], dt);
        }
        if (x->have & HOSTSRC_MEM)
                fold(&m->mem_used_pct, x->mem_used_pct, fs[1], dt);
        if (x->have & HOSTSRC_SWAP) {
                fold(&m->swap_in_s, x->swap_in_s, fs[2], dt);
                fold(&m->swap_out_s, x->swap_out_s, fs[2], dt);
        }
        if (x->have & HOSTSRC_NET) {
                fold(&m->rx_bytes_s, x->rx_bytes_s, fs[4], dt);
                fold(&m->tx_bytes_s, x->tx_bytes_s, fs[4], dt);
        }
        if (x->have & HOSTSRC_PSI) {
                m->have_pressure = 1;
                fold(&m->psi_cpu_pct, x->psi_cpu_pct, fs[5], dt);
                fold(&m->psi_io_pct, x->psi_io_pct, fs[5], dt);
                fold(&m->psi_mem_pct, x->psi_mem_pct, fs[5], dt);
        }
        for (unsigned i = 0; i < x->ndisks; i++) {
                struct hostsrc_disk_rate *d = disk_in(m, x->disk[i].name);

                if (d)
                        fold_disk(d, &x->disk[i]);
        }
        for (unsigned f = 0; f < 6; f++)
                if (x->have & (1u << f))
                        fs[f] += dt;
        m->have |= x->have;
        hs->seconds += dt;
        m->seconds = hs->seconds;
}

static struct lab_hosts *hosts_new(const struct lab_cluster *c)
{
        struct lab_hosts *hs = calloc(1, sizeof(*hs));

        if (!hs || !(hs->h = calloc(c->n ? c->n : 1, sizeof(*hs->h)))) {
                free(hs);
                return NULL;
        }
        hs->n = c->n;
        for (unsigned i = 0; i < c->n; i++) {
                hs->h[i].info = c->h[i].info;
                hs->h[i].controller = c->h[i].controller;
                hs->h[i].missing = c->h[i].info.source[0] && !c->h[i].open;
                snprintf(hs->h[i].error, sizeof(hs->h[i].error), "%s", c->h[i].error);
        }
        return hs;
}

/* Close h's window: post its second read, or say why it has none (-errno, why set). */
static int window_close(struct host *h, char *why, size_t len)
{
        const struct timespec now = {0, 0}; /* already past: only look */
        int rc;

        if (!h->begun) {
                snprintf(why, len, "%s (%s): still reading an earlier window when this one opened",
                         h->info.name, h->src.ops->name);
                return -EBUSY;
        }
        rc = await(h, 0, &now, why, len);
        if (rc == -ETIMEDOUT)
                snprintf(why, len, "%s (%s): no reading when the window opened (no answer yet)",
                         h->info.name, h->src.ops->name);
        return rc < 0 ? rc : post(h, 1);
}

/* Host h over the window, or why not (0 / -errno, why set). */
static int window_of(struct host *h, const struct timespec *deadline, struct hostsrc_rates *r,
                     char *why, size_t len)
{
        int rc = await(h, 1, deadline, why, len);

        h->measured = rc == 0;
        if (rc == 0) {
                char what[160];

                rc = hostsrc_rates(h->at0, h->at1, r);
                hostsrc_rates_why(rc, r, what, sizeof(what));
                if (what[0])
                        snprintf(why, len, "%s (%s): %s", h->info.name, h->src.ops->name, what);
        }
        return rc;
}

/* One host's window lost: named in hs and appended to why. */
static void missed(struct host_step *hs, const char *one, char *why, size_t len)
{
        size_t at = strlen(why);

        snprintf(hs->error, sizeof(hs->error), "%s", one);
        hs->missed++;
        if (at < len)
                snprintf(why + at, len - at, "%s%s", at ? "; " : "", one);
}

int lab_cluster_end(struct lab_cluster *c, struct lab_hosts **hsp, char *why, size_t len)
{
        struct hostsrc_rates *r;
        struct timespec deadline;
        char one[256];
        int nmissed = 0, *posted;

        if (len)
                why[0] = '\0';
        if (!c || !c->n)
                return 0;
        if (!*hsp && !(*hsp = hosts_new(c)))
                return -ENOMEM;
        if (!(r = malloc(sizeof(*r))) || !(posted = calloc(c->n, sizeof(*posted)))) {
                free(r);
                return -ENOMEM;
        }
        /* every host's window closes at once, then the answers are collected */
        for (unsigned i = 0; i < c->n; i++) {
                struct host_step *hs = &(*hsp)->h[i];

                if (!c->h[i].info.source[0] || hs->missing)
                        continue;
                one[0] = '\0';
                c->h[i].measured = 0;
                if (window_close(&c->h[i], one, sizeof(one)) == 0)
                        posted[i] = 1;
                else
                        missed(hs, one, why, len), nmissed++;
                c->h[i].begun = 0;
        }
        deadline = read_deadline();
        for (unsigned i = 0; i < c->n; i++) {
                struct host_step *hs = &(*hsp)->h[i];

                if (!posted[i])
                        continue;
                one[0] = '\0';
                if (window_of(&c->h[i], &deadline, r, one, sizeof(one)) == 0) {
                        fold_rates(hs, r); /* a family voided (one[] says which) is left out */
                        if (one[0])
                                snprintf(hs->error, sizeof(hs->error), "%s", one);
                        continue;
                }
                missed(hs, one, why, len);
                nmissed++;
        }
        free(posted);
        free(r);
        return nmissed;
}

int lab_cluster_local_cpu(const struct lab_cluster *c, const cpu_set_t *set,
                          struct hostsrc_cpu *pct)
{
        struct hostsrc_cpu one;
        int n = 0;

        memset(pct, 0, sizeof(*pct));
        for (unsigned i = 0; c && i < c->n; i++) {
                const struct host *h = &c->h[i];

                if (!h->controller || !h->measured)
                        continue;
                if (!set)
                        return hostsrc_cpu_split(&h->at0->total, &h->at1->total, pct) == 0;
                for (unsigned id = 0; id < h->at1->ncpus && id < CPU_SETSIZE; id++) {
                        if (!CPU_ISSET(id, set) ||
                            hostsrc_cpu_split(&h->at0->cpu[id], &h->at1->cpu[id], &one) < 0)
                                continue;
                        pct->user += one.user, pct->nice += one.nice, pct->system += one.system;
                        pct->idle += one.idle, pct->iowait += one.iowait, pct->irq += one.irq;
                        pct->softirq += one.softirq, pct->steal += one.steal;
                        n++;
                }
                break;
        }
        if (n)
                *pct = (struct hostsrc_cpu){pct->user / n,    pct->nice / n,   pct->system / n,
                                            pct->idle / n,    pct->iowait / n, pct->irq / n,
                                            pct->softirq / n, pct->steal / n};
        return n;
}

int lab_cluster_local_swap(const struct lab_cluster *c, uint64_t *pages)
{
        *pages = 0;
        for (unsigned i = 0; c && i < c->n; i++) {
                const struct hostsrc_counters *a = c->h[i].at0, *b = c->h[i].at1;

                if (!c->h[i].controller || !c->h[i].measured || !(a->have & b->have & HOSTSRC_SWAP))
                        continue;
                if (b->pswpin < a->pswpin || b->pswpout < a->pswpout)
                        return -ENOENT; /* went back: not known */
                *pages = (uint64_t)((b->pswpin - a->pswpin) + (b->pswpout - a->pswpout));
                return 0;
        }
        return -ENOENT;
}

static json_t *num(double v)
{
        return isfinite(v) ? json_real(v) : json_null();
}

/* v when the window measured family f, else null */
static json_t *fam_num(const struct hostsrc_rates *r, unsigned f, double v)
{
        return r->have & f ? num(v) : json_null();
}

static json_t *disks_json(const struct hostsrc_rates *r)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < r->ndisks; i++) {
                const struct hostsrc_disk_rate *d = &r->disk[i];

                json_array_append_new(a, json_pack("{s:s,s:o,s:o,s:o,s:o,s:o}", "name", d->name,
                                                   "util_pct", num(d->util_pct), "iops",
                                                   num(d->iops), "lat_ms", num(d->lat_ms),
                                                   "read_bytes_s", num(d->read_bytes_s),
                                                   "write_bytes_s", num(d->write_bytes_s)));
        }
        return a;
}

/* A host's figures, or null ones when no window read it. */
static json_t *figures_json(json_t *o, const struct host_step *s)
{
        const struct hostsrc_rates *r = &s->r;
        int have = s->seconds > 0;

        if (!have) {
                json_object_set_new(o, "cpu", json_null());
                json_object_set_new(o, "memory", json_null());
                json_object_set_new(o, "disks", json_array());
                json_object_set_new(o, "net", json_null());
                return o;
        }
        /* a family no window measured (the source does not give it) is null, never 0 */
        json_object_set_new(o, "cpu",
                            !(r->have & HOSTSRC_CPU)
                                ? json_null()
                                : json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "busy", num(r->busy),
                                            "user", num(r->user), "system", num(r->system),
                                            "iowait", num(r->iowait), "steal", num(r->steal),
                                            "busiest_cpu", num(r->busiest_cpu)));
        json_object_set_new(o, "memory",
                            json_pack("{s:o,s:o,s:o}", "used_pct",
                                      fam_num(r, HOSTSRC_MEM, r->mem_used_pct), "swap_in_s",
                                      fam_num(r, HOSTSRC_SWAP, r->swap_in_s), "swap_out_s",
                                      fam_num(r, HOSTSRC_SWAP, r->swap_out_s)));
        json_object_set_new(o, "disks", r->have & HOSTSRC_DISKS ? disks_json(r) : json_null());
        json_object_set_new(o, "net",
                            !(r->have & HOSTSRC_NET)
                                ? json_null()
                                : json_pack("{s:o,s:o}", "rx_bytes_s", num(r->rx_bytes_s),
                                            "tx_bytes_s", num(r->tx_bytes_s)));
        if (r->have_pressure)
                json_object_set_new(o, "pressure",
                                    json_pack("{s:o,s:o,s:o}", "cpu_pct", num(r->psi_cpu_pct),
                                              "io_pct", num(r->psi_io_pct), "memory_pct",
                                              num(r->psi_mem_pct)));
        return o;
}

json_t *lab_hosts_json(const struct lab_hosts *hs)
{
        json_t *a = json_array(), *o;

        for (unsigned i = 0; a && hs && i < hs->n; i++) {
                const struct host_step *s = &hs->h[i];

                o = json_pack("{s:s,s:s,s:s,s:b,s:f}", "name", s->info.name, "role", s->info.role,
                              "source", s->info.source[0] ? s->info.source : "none", "controller",
                              s->controller, "seconds", s->seconds);
                if (!o)
                        continue;
                figures_json(o, s);
                if (s->missing)
                        json_object_set_new(o, "missing", json_true());
                if (s->missed)
                        json_object_set_new(o, "windows_missed", json_integer(s->missed));
                if (s->error[0])
                        json_object_set_new(o, "error", json_string(s->error));
                json_array_append_new(a, o);
        }
        return a ? json_pack("{s:o}", "hosts", a) : NULL;
}

void lab_hosts_free(struct lab_hosts *hs)
{
        if (hs)
                free(hs->h);
        free(hs);
}

int lab_hosts_fold(struct lab_hosts *dst, const struct lab_hosts *win)
{
        if (!dst || !win || dst->n != win->n)
                return -EINVAL;
        for (unsigned i = 0; i < win->n; i++) {
                struct host_step *d = &dst->h[i];
                const struct host_step *w = &win->h[i];

                if (w->seconds > 0)
                        fold_rates(d, &w->r);
                d->missed += w->missed;
                if (w->error[0])
                        snprintf(d->error, sizeof(d->error), "%s", w->error);
        }
        return 0;
}

struct lab_hosts *lab_hosts_empty(const struct lab_cluster *c)
{
        return c && c->n ? hosts_new(c) : NULL;
}
