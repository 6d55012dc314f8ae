/*
 * monitor.c - the host monitor thread: /proc counters turned into rates.
 *
 * Each tick reads cumulative kernel counters (/proc/stat, /proc/diskstats,
 * /proc/net/dev, /proc/PID/stat) into a snapshot and stores the difference
 * to the previous snapshot as one sample of rates and percentages, so a
 * sample is exactly what iostat/mpstat/sar print for one interval. The
 * thread waits on a condition variable with a deadline on CLOCK_MONOTONIC
 * (the clock of clk_now_ns) so mon_stop() wakes it at once and ticks do not
 * drift. One mutex guards everything the thread touches; mon_cpu_between()
 * takes it (scale and block read windows while sampling runs), the other
 * accessors only run after mon_stop() has joined the thread.
 */
#include "core/monitor.h"
#include "core/clock.h"
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

/* Field order of a /proc/stat "cpu" line. */
enum { F_USER, F_NICE, F_SYSTEM, F_IDLE, F_IOWAIT, F_IRQ, F_SOFTIRQ, F_STEAL, F_COUNT };

struct raw_cpu {
        int id; /* -1: the total line */
        ull v[F_COUNT];
};

struct raw_disk {
        char name[32];
        ull rd, rd_sect, wr, wr_sect, io_ticks, in_queue_ms;
};

struct raw_net {
        char name[32];
        ull rx_bytes, rx_pkts, tx_bytes, tx_pkts;
};

struct snap {
        uint64_t t_ns;
        struct raw_cpu total;
        struct raw_cpu *cpus;
        size_t ncpus, cap_cpus;
        struct raw_disk *disks;
        size_t ndisks, cap_disks;
        struct raw_net *nets;
        size_t nnets, cap_nets;
};

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
        long hz;
        pthread_t thread;
        int running;
        int stop_req;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        struct snap prev;
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

static void snap_free(struct snap *s)
{
        free(s->cpus);
        free(s->disks);
        free(s->nets);
        memset(s, 0, sizeof(*s));
}

static void sample_free(struct sample *s)
{
        free(s->cpus);
        free(s->disks);
        free(s->nets);
        free(s->pids);
        memset(s, 0, sizeof(*s));
}

static int parse_cpu_line(const char *line, struct raw_cpu *c)
{
        const char *p = line + 3;
        char *end;
        int n;

        memset(c, 0, sizeof(*c));
        c->id = -1;
        if (!isspace((unsigned char)*p)) {
                c->id = (int)strtol(p, &end, 10);
                if (end == p)
                        return -EINVAL;
                p = end;
        }
        n = sscanf(p, "%llu %llu %llu %llu %llu %llu %llu %llu", &c->v[F_USER], &c->v[F_NICE],
                   &c->v[F_SYSTEM], &c->v[F_IDLE], &c->v[F_IOWAIT], &c->v[F_IRQ], &c->v[F_SOFTIRQ],
                   &c->v[F_STEAL]);
        return n >= 4 ? 0 : -EINVAL;
}

static int read_stat(struct snap *s)
{
        FILE *f = fopen("/proc/stat", "re");
        char line[512];
        struct raw_cpu c;
        int ret = 0, seen_total = 0;

        if (!f)
                return -errno;
        /* The cpu lines come first; stop before the long "intr" line. */
        while (fgets(line, sizeof(line), f) && strncmp(line, "cpu", 3) == 0) {
                if (parse_cpu_line(line, &c) < 0)
                        continue;
                if (c.id < 0) {
                        s->total = c;
                        seen_total = 1;
                        continue;
                }
                ret = grow((void **)&s->cpus, &s->cap_cpus, s->ncpus, sizeof(c));
                if (ret < 0)
                        goto out;
                s->cpus[s->ncpus++] = c;
        }
        if (!seen_total)
                ret = -EINVAL;
out:
        fclose(f);
        return ret;
}

static int is_partition(const char *name)
{
        char path[128], dev[32];
        char *p;

        /* sysfs spells the '/' of names like cciss/c0d0 as '!' */
        snprintf(dev, sizeof(dev), "%s", name);
        for (p = dev; *p; p++)
                if (*p == '/')
                        *p = '!';
        snprintf(path, sizeof(path), "/sys/class/block/%s/partition", dev);
        return access(path, F_OK) == 0;
}

static int is_idle_virtual(const struct raw_disk *d)
{
        int virt = !strncmp(d->name, "loop", 4) || !strncmp(d->name, "ram", 3) ||
                   !strncmp(d->name, "zram", 4);

        return virt && d->rd == 0 && d->wr == 0;
}

/* A whole disk's counters into the snapshot (names that do not fit are skipped). */
static int on_disk(void *user, const struct procfs_disk *pd)
{
        struct snap *s = user;
        struct raw_disk d = {.rd = pd->rd_ios,
                             .rd_sect = pd->rd_sectors,
                             .wr = pd->wr_ios,
                             .wr_sect = pd->wr_sectors,
                             .io_ticks = pd->io_ms,
                             .in_queue_ms = pd->in_queue_ms};
        size_t len = strlen(pd->name);
        int ret;

        if (len >= sizeof(d.name))
                return 0;
        memcpy(d.name, pd->name, len + 1);
        if (is_idle_virtual(&d) || is_partition(d.name))
                return 0;
        ret = grow((void **)&s->disks, &s->cap_disks, s->ndisks, sizeof(d));
        if (ret < 0)
                return ret;
        s->disks[s->ndisks++] = d;
        return 0;
}

static int read_diskstats(struct snap *s)
{
        return procfs_diskstats(on_disk, s);
}

static int parse_net_line(char *line, struct raw_net *n)
{
        /* Interface names may hold ':' (aliases) but the counters never do. */
        char *colon = strrchr(line, ':');
        char *name = line;

        if (!colon)
                return -EINVAL;
        *colon = '\0';
        while (isspace((unsigned char)*name))
                name++;
        memset(n, 0, sizeof(*n));
        if (strlen(name) >= sizeof(n->name))
                return -EINVAL;
        strcpy(n->name, name);
        if (sscanf(colon + 1, "%llu %llu %*u %*u %*u %*u %*u %*u %llu %llu", &n->rx_bytes,
                   &n->rx_pkts, &n->tx_bytes, &n->tx_pkts) != 4)
                return -EINVAL;
        return 0;
}

static int read_netdev(struct snap *s)
{
        FILE *f = fopen("/proc/net/dev", "re");
        char line[512];
        struct raw_net n;
        int ret = 0, lineno = 0;

        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f)) {
                if (++lineno <= 2 || parse_net_line(line, &n) < 0)
                        continue;
                ret = grow((void **)&s->nets, &s->cap_nets, s->nnets, sizeof(n));
                if (ret < 0)
                        break;
                s->nets[s->nnets++] = n;
        }
        fclose(f);
        return ret;
}

/* /proc/stat is required; disks and network may be absent (containers). */
static int snap_read(struct snap *s)
{
        int ret;

        s->t_ns = clk_now_ns();
        ret = read_stat(s);
        if (ret < 0)
                return ret;
        if (read_diskstats(s) == -ENOMEM || read_netdev(s) == -ENOMEM)
                return -ENOMEM;
        return 0;
}

static ull cpu_jiffies(const struct raw_cpu *c)
{
        ull sum = 0;
        int i;

        for (i = 0; i < F_COUNT; i++)
                sum += c->v[i];
        return sum;
}

static void cpu_split(const struct raw_cpu *now, const struct raw_cpu *before, struct mon_cpu *out)
{
        ull d[F_COUNT], total = 0;
        int i;

        for (i = 0; i < F_COUNT; i++) {
                d[i] = delta(now->v[i], before->v[i]);
                total += d[i];
        }
        memset(out, 0, sizeof(*out));
        if (total == 0) {
                /* no tick accounted on this CPU in a very short interval */
                out->idle = 100.0;
                return;
        }
        out->user = 100.0 * (double)d[F_USER] / (double)total;
        out->nice = 100.0 * (double)d[F_NICE] / (double)total;
        out->system = 100.0 * (double)d[F_SYSTEM] / (double)total;
        out->idle = 100.0 * (double)d[F_IDLE] / (double)total;
        out->iowait = 100.0 * (double)d[F_IOWAIT] / (double)total;
        out->irq = 100.0 * (double)d[F_IRQ] / (double)total;
        out->softirq = 100.0 * (double)d[F_SOFTIRQ] / (double)total;
        out->steal = 100.0 * (double)d[F_STEAL] / (double)total;
}

static const struct raw_cpu *find_cpu(const struct snap *s, int id)
{
        size_t i;

        for (i = 0; i < s->ncpus; i++)
                if (s->cpus[i].id == id)
                        return &s->cpus[i];
        return NULL;
}

static const struct raw_disk *find_disk(const struct snap *s, const char *name)
{
        size_t i;

        for (i = 0; i < s->ndisks; i++)
                if (!strcmp(s->disks[i].name, name))
                        return &s->disks[i];
        return NULL;
}

static const struct raw_net *find_net(const struct snap *s, const char *name)
{
        size_t i;

        for (i = 0; i < s->nnets; i++)
                if (!strcmp(s->nets[i].name, name))
                        return &s->nets[i];
        return NULL;
}

/* CPUs that came online during the interval have no baseline: left out. */
static int build_cpus(const struct snap *cur, const struct snap *prev, struct sample *s)
{
        const struct raw_cpu *before;
        size_t i;

        s->cpus = calloc(cur->ncpus ? cur->ncpus : 1, sizeof(*s->cpus));
        if (!s->cpus)
                return -ENOMEM;
        for (i = 0; i < cur->ncpus; i++) {
                before = find_cpu(prev, cur->cpus[i].id);
                if (!before)
                        continue;
                s->cpus[s->ncpus].id = cur->cpus[i].id;
                cpu_split(&cur->cpus[i], before, &s->cpus[s->ncpus].pct);
                s->ncpus++;
        }
        cpu_split(&cur->total, &prev->total, &s->cpu);
        return 0;
}

static int build_disks(const struct snap *cur, const struct snap *prev, struct sample *s, double dt)
{
        const struct raw_disk *a, *b;
        struct disk_rate *r;
        size_t i;

        s->disks = calloc(cur->ndisks ? cur->ndisks : 1, sizeof(*s->disks));
        if (!s->disks)
                return -ENOMEM;
        for (i = 0; i < cur->ndisks; i++) {
                a = &cur->disks[i];
                b = find_disk(prev, a->name);
                if (!b)
                        continue;
                r = &s->disks[s->ndisks++];
                memcpy(r->name, a->name, sizeof(r->name));
                r->r_iops = (double)delta(a->rd, b->rd) / dt;
                r->w_iops = (double)delta(a->wr, b->wr) / dt;
                r->r_bytes_s = 512.0 * (double)delta(a->rd_sect, b->rd_sect) / dt;
                r->w_bytes_s = 512.0 * (double)delta(a->wr_sect, b->wr_sect) / dt;
                /* io_ticks is in ms; the kernel can overshoot the wall clock a little */
                r->util = 100.0 * (double)delta(a->io_ticks, b->io_ticks) / (dt * 1000.0);
                if (r->util > 100.0)
                        r->util = 100.0;
                r->aqu_sz = (double)delta(a->in_queue_ms, b->in_queue_ms) / (dt * 1000.0);
        }
        return 0;
}

static int build_nets(const struct snap *cur, const struct snap *prev, struct sample *s, double dt)
{
        const struct raw_net *a, *b;
        struct net_rate *r;
        size_t i;

        s->nets = calloc(cur->nnets ? cur->nnets : 1, sizeof(*s->nets));
        if (!s->nets)
                return -ENOMEM;
        for (i = 0; i < cur->nnets; i++) {
                a = &cur->nets[i];
                b = find_net(prev, a->name);
                if (!b)
                        continue;
                r = &s->nets[s->nnets++];
                memcpy(r->name, a->name, sizeof(r->name));
                r->rx_bytes_s = (double)delta(a->rx_bytes, b->rx_bytes) / dt;
                r->tx_bytes_s = (double)delta(a->tx_bytes, b->tx_bytes) / dt;
                r->rx_pkts_s = (double)delta(a->rx_pkts, b->rx_pkts) / dt;
                r->tx_pkts_s = (double)delta(a->tx_pkts, b->tx_pkts) / dt;
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

static int sample_build(struct mon *m, const struct snap *cur, struct sample *s)
{
        double dt = (double)(cur->t_ns - m->prev.t_ns) / NS_PER_S;

        s->t0_ns = m->prev.t_ns;
        s->t1_ns = cur->t_ns;
        if (build_cpus(cur, &m->prev, s) < 0 || build_disks(cur, &m->prev, s, dt) < 0 ||
            build_nets(cur, &m->prev, s, dt) < 0 || build_pids(m, cur->t_ns, s) < 0)
                return -ENOMEM;
        return 0;
}

/* Called with m->lock held (or after the thread is joined). */
static void take_sample(struct mon *m)
{
        struct snap cur = {0};
        struct sample s = {0};

        if (snap_read(&cur) < 0) {
                m->dropped++;
                goto out;
        }
        /* Not one jiffy accounted yet: no split to compute, keep the old baseline. */
        if (cpu_jiffies(&cur.total) <= cpu_jiffies(&m->prev.total) || cur.t_ns <= m->prev.t_ns)
                goto out;
        if (sample_build(m, &cur, &s) < 0 ||
            grow((void **)&m->samples, &m->cap_samples, m->nsamples, sizeof(s)) < 0) {
                sample_free(&s);
                m->dropped++;
                goto out;
        }
        m->samples[m->nsamples++] = s;
        snap_free(&m->prev);
        m->prev = cur;
        memset(&cur, 0, sizeof(cur));
out:
        snap_free(&cur);
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
        ret = snap_read(&m->prev);
        if (ret < 0) {
                snprintf(err, errlen, "monitor: /proc/stat: %s", strerror(-ret));
                goto out;
        }
        m->start_ns = m->prev.t_ns;
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
        if (m->nsamples == 0 || clk_now_ns() - m->prev.t_ns >= half)
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
        size_t i;
        int bad = !o || !samples;

        for (i = 0; !bad && i < m->nsamples; i++)
                bad |= json_array_append_new(samples, sample_json(m, &m->samples[i]));
        if (bad) {
                json_decref(samples);
                json_decref(o);
                return NULL;
        }
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
        snap_free(&m->prev);
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

static ull read_memtotal(void)
{
        char line[256];
        ull kb = 0;
        FILE *f = fopen("/proc/meminfo", "re");

        if (!f)
                return 0;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
                        break;
        fclose(f);
        return kb * 1024;
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
