/*
 * monitor.c - the host monitor thread: /proc counters turned into rates.
 *
 * Each tick reads this host as every host is read: through the procfs
 * host source (core/hostsrc.h on /proc: stat, diskstats, net/dev, meminfo,
 * vmstat) plus /proc/PID/stat of the watched PIDs, and stores the
 * difference to the previous reading as one sample of rates and
 * percentages, so a sample is exactly what iostat/mpstat/sar print for one
 * interval. The rates are hostsrc's (one CPU split, one disk rate and disk
 * filter, one rule for a counter that went backwards: a CPU that did voids
 * the sample, a disk or an interface that did is left out of it). The
 * thread waits on a condition variable with a deadline on CLOCK_MONOTONIC
 * (the clock of clk_now_ns) so mon_stop() wakes it at once and ticks do not
 * drift. One mutex guards everything the thread touches; mon_cpu_between()
 * takes it (scale and block read windows while sampling runs), the other
 * accessors only run after mon_stop() has joined the thread.
 */
#include "core/monitor.h"
#include "core/clock.h"
#include "core/hostsrc.h"
#include "core/procfs.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define NS_PER_S        1000000000ull
#define MIN_INTERVAL_MS 100u

typedef unsigned long long ull;

struct watch {
        int pid;
        char *label;
        int have_base; /* ticks/majflt/t_ns hold a reading */
        ull ticks, majflt;
        uint64_t t_ns;
};

struct cpu_rate {
        int id;
        struct mon_cpu pct;
};

struct disk_rate {
        char name[32];
        double r_iops, w_iops, r_bytes_s, w_bytes_s, util;
        double aqu_sz; /* time-weighted requests in flight (iostat's aqu-sz) */
};

struct net_rate {
        char name[32];
        double rx_bytes_s, tx_bytes_s, rx_pkts_s, tx_pkts_s;
};

struct pid_rate {
        const char *label; /* owned by the watch, which lives as long as the monitor */
        double cpu_pct;
        ull majflt;
};

struct sample {
        uint64_t t0_ns, t1_ns;
        struct mon_cpu cpu;
        struct cpu_rate *cpus;
        size_t ncpus;
        struct disk_rate *disks;
        size_t ndisks;
        struct net_rate *nets;
        size_t nnets;
        struct pid_rate *pids;
        size_t npids;
};

struct mon {
        unsigned interval_ms;
        uint64_t start_ns;
        int64_t start_real_ms; /* start_ns in wall-clock ms: samples' t lines up with dashboards */
        long hz;
        pthread_t thread;
        int running;
        int stop_req;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        struct hostsrc src; /* this host's /proc */
        int src_open;
        struct hostsrc_counters *prev, *cur; /* the last reading, the one being taken */
        struct hostsrc_rates *rates;         /* take_sample's scratch */
        struct sample *samples;
        size_t nsamples, cap_samples;
        struct watch *watches;
        size_t nwatches, cap_watches;
        unsigned dropped; /* ticks lost to unreadable /proc or ENOMEM */
};

/* Make room for one more element. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
        size_t ncap;
        void *p;

        if (n < *cap)
                return 0;
        ncap = *cap ? *cap * 2 : 8;
        p = realloc(*arr, ncap * elem);
        if (!p)
                return -ENOMEM;
        *arr = p;
        *cap = ncap;
        return 0;
}

/* Counters can reset (device re-added, counter wrap): never a negative rate. */
static ull delta(ull now, ull before)
{
        return now >= before ? now - before : 0;
}

static void sample_free(struct sample *s)
{
        free(s->cpus);
        free(s->disks);
        free(s->nets);
        free(s->pids);
        memset(s, 0, sizeof(*s));
}

static void pct_of(const struct hostsrc_cpu *p, struct mon_cpu *o)
{
        *o = (struct mon_cpu){.user = p->user,
                              .nice = p->nice,
                              .system = p->system,
                              .iowait = p->iowait,
                              .irq = p->irq,
                              .softirq = p->softirq,
                              .steal = p->steal,
                              .idle = p->idle};
}

/* The total's split (-EAGAIN: not one tick yet; -ERANGE: it went back), then each
 * CPU there at both ends, by id: one that came or went in the interval is left out. */
static int build_cpus(const struct hostsrc_counters *a, const struct hostsrc_counters *b,
                      struct sample *s)
{
        struct hostsrc_cpu pct;
        int rc = hostsrc_cpu_split(&a->total, &b->total, &pct);

        if (rc < 0)
                return rc;
        pct_of(&pct, &s->cpu);
        s->cpus = calloc(b->ncpus ? b->ncpus : 1, sizeof(*s->cpus));
        if (!s->cpus)
                return -ENOMEM;
        for (unsigned id = 0; id < a->ncpus && id < b->ncpus; id++) {
                rc = hostsrc_cpu_split(&a->cpu[id], &b->cpu[id], &pct);
                if (rc == -EAGAIN)
                        pct.idle = 100; /* no tick accounted on it in a short interval */
                else if (rc < 0)
                        continue;
                s->cpus[s->ncpus].id = (int)id;
                pct_of(&pct, &s->cpus[s->ncpus++].pct);
        }
        return 0;
}

/* The disks hostsrc_rates measured (whole disks, hostsrc_disk_wanted). */
static int build_disks(const struct hostsrc_rates *r, struct sample *s)
{
        s->disks = calloc(r->ndisks ? r->ndisks : 1, sizeof(*s->disks));
        if (!s->disks)
                return -ENOMEM;
        for (unsigned i = 0; (r->have & HOSTSRC_DISKS) && i < r->ndisks; i++) {
                const struct hostsrc_disk_rate *d = &r->disk[i];

                s->disks[s->ndisks++] = (struct disk_rate){.r_iops = d->read_iops,
                                                           .w_iops = d->write_iops,
                                                           .r_bytes_s = d->read_bytes_s,
                                                           .w_bytes_s = d->write_bytes_s,
                                                           .util = d->util_pct,
                                                           .aqu_sz = d->aqu_sz};
                snprintf(s->disks[s->ndisks - 1].name, sizeof(s->disks[0].name), "%s", d->name);
        }
        return 0;
}

/* Every interface there at both ends (lo and virtual ones too: a sample lists them
 * apart, nothing sums them); one whose counters went back is left out. */
static int build_nets(const struct hostsrc_counters *a, const struct hostsrc_counters *b,
                      struct sample *s, double dt)
{
        s->nets = calloc(b->nnets ? b->nnets : 1, sizeof(*s->nets));
        if (!s->nets)
                return -ENOMEM;
        for (unsigned i = 0; i < b->nnets; i++) {
                const struct hostsrc_net *x = hostsrc_net_find(a, b->net[i].name);
                struct hostsrc_net per_s;
                struct net_rate *r = &s->nets[s->nnets];

                if (!x || hostsrc_net_rate(x, &b->net[i], dt, &per_s) < 0)
                        continue;
                snprintf(r->name, sizeof(r->name), "%s", per_s.name);
                r->rx_bytes_s = per_s.rx_bytes;
                r->tx_bytes_s = per_s.tx_bytes;
                r->rx_pkts_s = per_s.rx_packets;
                r->tx_pkts_s = per_s.tx_packets;
                s->nnets++;
        }
        return 0;
}

/* utime + stime in ticks and majflt of /proc/PID/stat. */
static int read_pid_stat(int pid, ull *ticks, ull *majflt)
{
        struct procfs_stat st;
        int ret = procfs_pid_stat(pid, &st);

        if (ret < 0)
                return ret;
        *ticks = st.utime + st.stime;
        *majflt = st.majflt;
        return 0;
}

static void watch_read(struct watch *w, uint64_t now, struct pid_rate *out, int *have_rate, long hz)
{
        ull ticks, majflt;
        double dt;

        *have_rate = 0;
        /* an exited PID is simply left out of this and later samples */
        if (read_pid_stat(w->pid, &ticks, &majflt) < 0)
                return;
        if (w->have_base && now > w->t_ns) {
                dt = (double)(now - w->t_ns) / NS_PER_S;
                out->label = w->label;
                out->cpu_pct = 100.0 * (double)delta(ticks, w->ticks) / (double)hz / dt;
                out->majflt = delta(majflt, w->majflt);
                *have_rate = 1;
        }
        w->have_base = 1;
        w->ticks = ticks;
        w->majflt = majflt;
        w->t_ns = now;
}

static int build_pids(struct mon *m, uint64_t now, struct sample *s)
{
        size_t i;
        int have;

        s->pids = calloc(m->nwatches ? m->nwatches : 1, sizeof(*s->pids));
        if (!s->pids)
                return -ENOMEM;
        for (i = 0; i < m->nwatches; i++) {
                watch_read(&m->watches[i], now, &s->pids[s->npids], &have, m->hz);
                s->npids += (size_t)have;
        }
        return 0;
}

static int sample_build(struct mon *m, struct sample *s)
{
        const struct hostsrc_counters *a = m->prev, *b = m->cur;
        double dt = (double)(b->t_ns - a->t_ns) / NS_PER_S;
        int rc;

        s->t0_ns = a->t_ns;
        s->t1_ns = b->t_ns;
        if ((rc = build_cpus(a, b, s)) < 0)
                return rc;
        hostsrc_rates(a, b, m->rates); /* its families say what it measured */
        if (build_disks(m->rates, s) < 0 || build_nets(a, b, s, dt) < 0 ||
            build_pids(m, b->t_ns, s) < 0)
                return -ENOMEM;
        return 0;
}

/* Called with m->lock held (or after the thread is joined). */
static void take_sample(struct mon *m)
{
        struct hostsrc_counters *t;
        struct sample s = {0};
        char err[256];
        int rc;

        if (hostsrc_read(&m->src, m->cur, err, sizeof(err)) < 0) {
                m->dropped++;
                return;
        }
        if (m->cur->t_ns <= m->prev->t_ns)
                return;
        rc = sample_build(m, &s);
        if (rc == -EAGAIN) { /* not one tick accounted yet: keep the old baseline */
                sample_free(&s);
                return;
        }
        if (rc < 0 || grow((void **)&m->samples, &m->cap_samples, m->nsamples, sizeof(s)) < 0) {
                sample_free(&s); /* the CPU went back (or no memory): the interval is lost */
                m->dropped++;
        } else {
                m->samples[m->nsamples++] = s;
        }
        t = m->prev;
        m->prev = m->cur;
        m->cur = t;
}

static struct timespec ns_to_ts(uint64_t ns)
{
        struct timespec ts = {.tv_sec = (time_t)(ns / NS_PER_S), .tv_nsec = (long)(ns % NS_PER_S)};

        return ts;
}

static void *mon_thread(void *arg)
{
        struct mon *m = arg;
        uint64_t step = (uint64_t)m->interval_ms * 1000000ull;
        uint64_t next = m->start_ns;
        struct timespec ts;

        pthread_mutex_lock(&m->lock);
        while (!m->stop_req) {
                next += step;
                ts = ns_to_ts(next);
                while (!m->stop_req && pthread_cond_timedwait(&m->cond, &m->lock, &ts) != ETIMEDOUT)
                        ;
                if (m->stop_req)
                        break;
                take_sample(m);
                /* after a suspend or a long stall, re-align instead of bursting */
                if (next + step < clk_now_ns())
                        next = clk_now_ns();
        }
        pthread_mutex_unlock(&m->lock);
        return NULL;
}

static int mon_init_sync(struct mon *m)
{
        pthread_condattr_t attr;
        int ret;

        ret = pthread_condattr_init(&attr);
        if (ret)
                return -ret;
        ret = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        if (!ret)
                ret = pthread_cond_init(&m->cond, &attr);
        pthread_condattr_destroy(&attr);
        if (ret)
                return -ret;
        ret = pthread_mutex_init(&m->lock, NULL);
        if (ret) {
                pthread_cond_destroy(&m->cond);
                return -ret;
        }
        return 0;
}

struct mon *mon_start(unsigned interval_ms, char *err, size_t errlen)
{
        struct mon *m = NULL;
        int ret;

        if (interval_ms < MIN_INTERVAL_MS) {
                snprintf(err, errlen, "monitor interval %u ms is below %u ms", interval_ms,
                         MIN_INTERVAL_MS);
                return NULL;
        }
        m = calloc(1, sizeof(*m));
        if (!m) {
                snprintf(err, errlen, "monitor: %s", strerror(ENOMEM));
                return NULL;
        }
        m->interval_ms = interval_ms;
        m->hz = sysconf(_SC_CLK_TCK);
        if (m->hz <= 0)
                m->hz = 100;
        ret = mon_init_sync(m);
        if (ret < 0) {
                free(m);
                snprintf(err, errlen, "monitor: %s", strerror(-ret));
                return NULL;
        }
        m->prev = malloc(sizeof(*m->prev));
        m->cur = malloc(sizeof(*m->cur));
        m->rates = malloc(sizeof(*m->rates));
        ret = m->prev && m->cur && m->rates ? 0 : -ENOMEM;
        if (ret < 0) {
                snprintf(err, errlen, "monitor: %s", strerror(ENOMEM));
                goto out;
        }
        ret = hostsrc_open(&m->src, &hostsrc_procfs_ops, "local", "/proc", NULL, NULL, err, errlen);
        m->src_open = ret == 0;
        if (ret == 0 && (ret = hostsrc_read(&m->src, m->prev, err, errlen)) < 0) {
                char why[256];

                snprintf(why, sizeof(why), "monitor: %s", err);
                snprintf(err, errlen, "%s", why);
        }
        if (ret < 0)
                goto out;
        m->start_ns = m->prev->t_ns;
        m->start_real_ms = clk_real_ms() - (int64_t)((clk_now_ns() - m->start_ns) / 1000000);
        ret = -pthread_create(&m->thread, NULL, mon_thread, m);
        if (ret < 0) {
                snprintf(err, errlen, "monitor thread: %s", strerror(-ret));
                goto out;
        }
        m->running = 1;
out:
        if (ret < 0) {
                mon_free(m);
                return NULL;
        }
        return m;
}

void mon_watch_pid(struct mon *m, int pid, const char *label)
{
        struct watch *w;
        char buf[32];

        if (!m || pid <= 0)
                return;
        if (!label) {
                snprintf(buf, sizeof(buf), "%d", pid);
                label = buf;
        }
        pthread_mutex_lock(&m->lock);
        if (grow((void **)&m->watches, &m->cap_watches, m->nwatches, sizeof(*w)) < 0)
                goto out;
        w = &m->watches[m->nwatches];
        memset(w, 0, sizeof(*w));
        w->pid = pid;
        w->label = strdup(label);
        if (!w->label)
                goto out;
        /* baseline now, so the next sample already carries this PID's rate */
        if (read_pid_stat(pid, &w->ticks, &w->majflt) == 0) {
                w->have_base = 1;
                w->t_ns = clk_now_ns();
        }
        m->nwatches++;
out:
        pthread_mutex_unlock(&m->lock);
}

static void stop_thread(struct mon *m)
{
        pthread_mutex_lock(&m->lock);
        m->stop_req = 1;
        pthread_cond_signal(&m->cond);
        pthread_mutex_unlock(&m->lock);
        pthread_join(m->thread, NULL);
        m->running = 0;
}

void mon_stop(struct mon *m)
{
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 10000000};
        uint64_t half;
        int tries;

        if (!m || !m->running)
                return;
        stop_thread(m);
        half = (uint64_t)m->interval_ms * 500000ull;
        /*
         * A tail much shorter than the interval holds a handful of jiffies,
         * so one of them spent in steal reads as 50% steal: drop it unless
         * it would be the only sample of the run.
         */
        if (m->nsamples == 0 || clk_now_ns() - m->prev->t_ns >= half)
                take_sample(m);
        for (tries = 0; m->nsamples == 0 && tries < 100; tries++) {
                nanosleep(&pause, NULL);
                take_sample(m);
        }
}

void mon_cpu_add(struct mon_cpu *acc, const struct mon_cpu *c, double w)
{
        acc->user += w * c->user;
        acc->nice += w * c->nice;
        acc->system += w * c->system;
        acc->iowait += w * c->iowait;
        acc->irq += w * c->irq;
        acc->softirq += w * c->softirq;
        acc->steal += w * c->steal;
        acc->idle += w * c->idle;
}

void mon_cpu_div(struct mon_cpu *c, double d)
{
        c->user /= d;
        c->nice /= d;
        c->system /= d;
        c->iowait /= d;
        c->irq /= d;
        c->softirq /= d;
        c->steal /= d;
        c->idle /= d;
}

static void cpu_between(const struct mon *m, uint64_t t0, uint64_t t1, struct mon_cpu *out)
{
        int all = t0 == 0 && t1 == 0;
        double w, wsum = 0;
        const struct sample *s;
        size_t i;

        memset(out, 0, sizeof(*out));
        for (i = 0; i < m->nsamples; i++) {
                s = &m->samples[i];
                if (!all && (s->t0_ns < t0 || s->t0_ns > t1))
                        continue;
                /* weight by length: the last sample of a run is often short */
                w = (double)(s->t1_ns - s->t0_ns);
                wsum += w;
                mon_cpu_add(out, &s->cpu, w);
        }
        if (wsum > 0)
                mon_cpu_div(out, wsum);
}

/* The CPUs of set within sample s, each counted once, weight w each. */
static unsigned set_cpus_add(const struct sample *s, const cpu_set_t *set, double w,
                             struct mon_cpu *acc, double *wsum)
{
        unsigned n = 0;

        for (size_t i = 0; i < s->ncpus; i++) {
                if (s->cpus[i].id < 0 || s->cpus[i].id >= CPU_SETSIZE ||
                    !CPU_ISSET(s->cpus[i].id, set))
                        continue;
                mon_cpu_add(acc, &s->cpus[i].pct, w);
                *wsum += w;
                n++;
        }
        return n;
}

unsigned mon_cpus_between(const struct mon *m, uint64_t t0, uint64_t t1, const cpu_set_t *set,
                          struct mon_cpu *out)
{
        pthread_mutex_t *lock = m ? (pthread_mutex_t *)&m->lock : NULL;
        int all = t0 == 0 && t1 == 0;
        unsigned most = 0;
        double wsum = 0;

        memset(out, 0, sizeof(*out));
        if (!m)
                return 0;
        pthread_mutex_lock(lock);
        for (size_t i = 0; i < m->nsamples; i++) {
                const struct sample *s = &m->samples[i];
                unsigned n;

                if (!all && (s->t0_ns < t0 || s->t0_ns > t1))
                        continue;
                n = set_cpus_add(s, set, (double)(s->t1_ns - s->t0_ns), out, &wsum);
                most = n > most ? n : most;
        }
        pthread_mutex_unlock(lock);
        if (wsum > 0)
                mon_cpu_div(out, wsum);
        return most;
}

void mon_cpu_between(const struct mon *m, uint64_t t0, uint64_t t1, struct mon_cpu *out)
{
        /* The sampling thread may be appending (and reallocating) samples. */
        pthread_mutex_t *lock = m ? (pthread_mutex_t *)&m->lock : NULL;

        memset(out, 0, sizeof(*out));
        if (!m)
                return;
        pthread_mutex_lock(lock);
        cpu_between(m, t0, t1, out);
        pthread_mutex_unlock(lock);
}

static json_t *cpu_json(const struct mon_cpu *c)
{
        return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "user", c->user, "nice", c->nice,
                         "system", c->system, "iowait", c->iowait, "irq", c->irq, "softirq",
                         c->softirq, "steal", c->steal, "idle", c->idle);
}

static json_t *cpus_json(const struct sample *s)
{
        json_t *a = json_array(), *c;
        size_t i;

        for (i = 0; a && i < s->ncpus; i++) {
                c = json_pack("{s:i}", "id", s->cpus[i].id);
                if (!c || json_object_update_new(c, cpu_json(&s->cpus[i].pct))) {
                        json_decref(c);
                        c = NULL;
                }
                /* json_array_append_new() drops c when it fails, or when c is NULL */
                if (json_array_append_new(a, c)) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

static json_t *disks_json(const struct sample *s)
{
        const struct disk_rate *d;
        json_t *o = json_object();
        size_t i;

        for (i = 0; o && i < s->ndisks; i++) {
                d = &s->disks[i];
                if (json_object_set_new(o, d->name,
                                        json_pack("{s:f,s:f,s:f,s:f,s:f,s:f}", "r_iops", d->r_iops,
                                                  "w_iops", d->w_iops, "r_bytes_s", d->r_bytes_s,
                                                  "w_bytes_s", d->w_bytes_s, "util", d->util,
                                                  "aqu_sz", d->aqu_sz))) {
                        json_decref(o);
                        return NULL;
                }
        }
        return o;
}

static json_t *nets_json(const struct sample *s)
{
        const struct net_rate *n;
        json_t *o = json_object();
        size_t i;

        for (i = 0; o && i < s->nnets; i++) {
                n = &s->nets[i];
                if (json_object_set_new(o, n->name,
                                        json_pack("{s:f,s:f,s:f,s:f}", "rx_bytes_s", n->rx_bytes_s,
                                                  "tx_bytes_s", n->tx_bytes_s, "rx_pkts_s",
                                                  n->rx_pkts_s, "tx_pkts_s", n->tx_pkts_s))) {
                        json_decref(o);
                        return NULL;
                }
        }
        return o;
}

static json_t *pids_json(const struct sample *s)
{
        const struct pid_rate *p;
        json_t *o = json_object();
        size_t i;

        for (i = 0; o && i < s->npids; i++) {
                p = &s->pids[i];
                if (json_object_set_new(o, p->label,
                                        json_pack("{s:f,s:I}", "cpu_pct", p->cpu_pct, "majflt",
                                                  (json_int_t)p->majflt))) {
                        json_decref(o);
                        return NULL;
                }
        }
        return o;
}

/* json_object_set_new() drops the value on failure, so errors can be or-ed up. */
static json_t *sample_json(const struct mon *m, const struct sample *s)
{
        json_t *o = json_object();
        int bad = !o;

        if (bad)
                return NULL;
        bad |= json_object_set_new(o, "t", json_real((double)(s->t0_ns - m->start_ns) / NS_PER_S));
        bad |= json_object_set_new(o, "dt", json_real((double)(s->t1_ns - s->t0_ns) / NS_PER_S));
        bad |= json_object_set_new(o, "cpu", cpu_json(&s->cpu));
        bad |= json_object_set_new(o, "cpus", cpus_json(s));
        bad |= json_object_set_new(o, "disks", disks_json(s));
        bad |= json_object_set_new(o, "net", nets_json(s));
        bad |= json_object_set_new(o, "pids", pids_json(s));
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static json_t *summary_json(const struct mon *m)
{
        struct mon_cpu mean;
        double steal_max = 0;
        char reason[160] = "";
        json_t *o = json_object();
        size_t i;
        int bad = !o, n = 0;

        if (bad)
                return NULL;
        cpu_between(m, 0, 0, &mean);
        for (i = 0; i < m->nsamples; i++)
                if (m->samples[i].cpu.steal > steal_max)
                        steal_max = m->samples[i].cpu.steal;
        if (mean.steal > MON_STEAL_MEAN_MAX)
                n += snprintf(reason, sizeof(reason), "mean CPU steal %.1f%% > %.0f%%", mean.steal,
                              MON_STEAL_MEAN_MAX);
        if (steal_max > MON_STEAL_PEAK_MAX)
                snprintf(reason + n, sizeof(reason) - (size_t)n,
                         "%sCPU steal reached %.1f%% > %.0f%%", n ? "; " : "", steal_max,
                         MON_STEAL_PEAK_MAX);
        bad |= json_object_set_new(o, "cpu", cpu_json(&mean));
        bad |= json_object_set_new(o, "steal_max", json_real(steal_max));
        bad |= json_object_set_new(o, "untrusted", json_boolean(reason[0] != '\0'));
        bad |= json_object_set_new(o, "reason", json_string(reason));
        bad |= json_object_set_new(o, "samples_dropped", json_integer(m->dropped));
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}

json_t *mon_to_json(const struct mon *m)
{
        json_t *o = json_object(), *samples = json_array();
        char start[32];
        size_t i;
        int bad = !o || !samples;

        for (i = 0; !bad && i < m->nsamples; i++)
                bad |= json_array_append_new(samples, sample_json(m, &m->samples[i]));
        if (bad) {
                json_decref(samples);
                json_decref(o);
                return NULL;
        }
        clk_iso8601_ms(m->start_real_ms, start, sizeof(start));
        bad |= json_object_set_new(o, "started_at", json_string(start));
        bad |= json_object_set_new(o, "interval_s", json_real(m->interval_ms / 1000.0));
        bad |= json_object_set_new(o, "samples", samples);
        bad |= json_object_set_new(o, "summary", summary_json(m));
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}

void mon_free(struct mon *m)
{
        size_t i;

        if (!m)
                return;
        if (m->running)
                stop_thread(m);
        for (i = 0; i < m->nsamples; i++)
                sample_free(&m->samples[i]);
        for (i = 0; i < m->nwatches; i++)
                free(m->watches[i].label);
        free(m->samples);
        free(m->watches);
        free(m->prev);
        free(m->cur);
        free(m->rates);
        if (m->src_open)
                hostsrc_close(&m->src);
        pthread_cond_destroy(&m->cond);
        pthread_mutex_destroy(&m->lock);
        free(m);
}

/* "key<blanks>: value" with exactly this key (so "cpu" does not match "cpu family"). */
static const char *cpuinfo_value(char *line, const char *key)
{
        size_t n = strlen(key);
        char *p = line + n, *end;

        if (strncmp(line, key, n))
                return NULL;
        while (*p == ' ' || *p == '\t')
                p++;
        if (*p++ != ':')
                return NULL;
        while (isspace((unsigned char)*p))
                p++;
        end = p + strlen(p);
        while (end > p && isspace((unsigned char)end[-1]))
                *--end = '\0';
        return p;
}

/* "model name" on x86; other architectures name the line differently. */
static void read_cpu_model(char *buf, size_t len)
{
        static const char *const keys[] = {"model name", "Processor", "cpu model", "cpu"};
        const char *v;
        char line[512];
        size_t k;
        FILE *f;

        buf[0] = '\0';
        for (k = 0; k < sizeof(keys) / sizeof(keys[0]) && !buf[0]; k++) {
                f = fopen("/proc/cpuinfo", "re");
                if (!f)
                        return;
                while (!buf[0] && fgets(line, sizeof(line), f)) {
                        v = cpuinfo_value(line, keys[k]);
                        if (v)
                                snprintf(buf, len, "%s", v);
                }
                fclose(f);
        }
}

static int on_memtotal(void *user, const char *key, uint64_t v)
{
        if (strcmp(key, "MemTotal"))
                return 0;
        *(ull *)user = (ull)v * 1024;
        return 1; /* found: stop */
}

static ull read_memtotal(void)
{
        ull bytes = 0;

        procfs_keyed_at("/proc/meminfo", on_memtotal, &bytes);
        return bytes;
}

/* Strings that are not valid UTF-8 become "" rather than failing the object. */
static json_t *str_json(const char *s)
{
        json_t *j = json_string(s);

        return j ? j : json_string("");
}

json_t *host_info_json(void)
{
        char model[256], host[256] = "";
        struct utsname u;
        json_t *o = json_object();
        int bad = !o;

        if (bad)
                return NULL;
        if (uname(&u) < 0)
                u.release[0] = '\0';
        if (gethostname(host, sizeof(host) - 1) < 0)
                host[0] = '\0';
        read_cpu_model(model, sizeof(model));
        bad |= json_object_set_new(o, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
        bad |= json_object_set_new(o, "model", str_json(model));
        bad |= json_object_set_new(o, "kernel", str_json(u.release));
        bad |= json_object_set_new(o, "memory_bytes", json_integer((json_int_t)read_memtotal()));
        bad |= json_object_set_new(o, "hostname", str_json(host));
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}
