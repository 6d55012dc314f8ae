/*
 * hostsrc_probe.c - test helper: read host-metrics sources over the window
 * of a command, as a step probe does.
 *
 *   hostsrc_probe [--align NAME] NAME=SOURCE:WHERE... -- CMD [ARGS...]
 *
 * Opens every source (core/hostsrc.h), reads each, runs CMD to its end,
 * reads each again and prints one line per host and one per disk:
 *   host NAME busy=.. user=.. system=.. iowait=.. steal=.. busiest=..
 *        mem=.. swapin=.. rx=.. tx=.. psi=0|1
 *   disk NAME DEV util=.. iops=.. lat=..
 * SOURCE libvirt (a build with libvirt) takes a connection URI as WHERE,
 * opens a connection, lends it to the source (lab/hostsrc_libvirt.h) as a
 * libvirt lab's backend does, and adds one line per running domain
 * (virConnectGetAllDomainStats on that connection, read here: what the
 * test checks the guests did), its counters at the end and its CPU over
 * the window:
 *   vm NAME DOMAIN cpu_pct=.. cpu_s=.. vcpu_s=.. rd_reqs=.. wr_reqs=..
 *      rd_bytes=.. wr_bytes=.. rd_s=.. wr_s=.. rx=.. tx=..
 * Exit 3 with the error (which names the host) when a source cannot be
 * opened or read, 4 when a window is discarded (a counter went backwards),
 * CMD's failure as 5.
 *
 * --align NAME: NAME is a source whose counters are a scrape's (prometheus):
 * at both ends of the window it is read until a new scrape shows (polled
 * every 10 ms, at most 15 s), the others read at every poll (and for 1.2 s
 * before, as a scrape under way is timed at its start), and each of them
 * keeps its reading nearest the new scrape's time: every source's
 * window then starts and ends within a poll of the scrapes', whatever the
 * scrape and the query took; a line per other host says how far:
 *   align NAME start_ms=.. end_ms=..   (its readings' time minus the scrapes')
 *
 *   hostsrc_probe --cost EVERY_MS,FOR_S NAME=SOURCE:WHERE...
 *
 * What reading costs the reader (bench/hostsrc_cost): every EVERY_MS (on a
 * fixed schedule, as a monitor's ticks) reads every source once, one after
 * the other as scale does, for FOR_S seconds, then prints one line:
 *   cost hosts=N rounds=.. wall_s=.. user_s=.. sys_s=.. cpu_pct=..
 *        cpu_pct_per_8_hosts=.. read_ms_median=.. read_ms_max=..
 *        round_ms_median=..
 * CPU is this process's own (getrusage, every thread: libcurl's too) over
 * the rounds' schedule (ROUNDS x EVERY_MS, the last round's idle included),
 * in % of one CPU; opening the sources comes before it. A read that fails
 * is exit 3, naming the host.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/hostsrc.h"
#ifdef HAVE_LIBVIRT
#include <libvirt/virterror.h>

#include "lab/hostsrc_libvirt.h"
#endif

#define MAX_HOSTS      16
#define MAX_VMS        16
#define ALIGN_POLL     10000000ull /* ns between reads while waiting for a new scrape */
#define ALIGN_WAIT_S   15
#define ALIGN_PREROLL  1200000000ull /* ns of readings before the wait: a scrape's timeout */
#define ALIGN_RING     400           /* readings kept: 4 s of polls */
#define COST_MAX_READS 100000

#ifdef HAVE_LIBVIRT
#define NS 1e9
#define DOMAIN_STATS_WANT                                                                          \
        (VIR_DOMAIN_STATS_CPU_TOTAL | VIR_DOMAIN_STATS_VCPU | VIR_DOMAIN_STATS_BLOCK |             \
         VIR_DOMAIN_STATS_INTERFACE)

/* One running domain's cumulative counters (seconds, requests, bytes). */
struct vm {
        char name[96];
        unsigned vm;     /* N of a lab domain hcisweep-LAB-vmN, else 0 */
        unsigned nvcpus; /* vcpu.current */
        double cpu_s;    /* cpu.time: the whole QEMU process */
        double vcpu_s;   /* sum of vcpu.N.time: the guest's CPUs */
        double rd_reqs, wr_reqs, rd_bytes, wr_bytes; /* over every disk */
        double rd_s, wr_s;                           /* time spent reading / writing */
        double rx_bytes, tx_bytes;                   /* over every interface libvirt defines */
};
#endif

struct probe {
        struct hostsrc src;
        struct hostsrc_counters a, b;
        struct hostsrc_rates r;
#ifdef HAVE_LIBVIRT
        virConnectPtr conn; /* ours, lent to a libvirt source; NULL for the others */
        unsigned nva, nvb;
        struct vm va[MAX_VMS], vb[MAX_VMS];
#endif
};

#ifdef HAVE_LIBVIRT

static double param_value(const virTypedParameter *t)
{
        switch (t->type) {
        case VIR_TYPED_PARAM_ULLONG:
                return (double)t->value.ul;
        case VIR_TYPED_PARAM_LLONG:
                return (double)t->value.l;
        case VIR_TYPED_PARAM_UINT:
                return t->value.ui;
        case VIR_TYPED_PARAM_INT:
                return t->value.i;
        default:
                return 0;
        }
}

/* Whether field is PREFIX.N.SUFFIX (a per-vCPU, per-disk or per-interface one). */
static int indexed(const char *field, const char *prefix, const char *suffix)
{
        size_t p = strlen(prefix), f = strlen(field), x = strlen(suffix);
        const char *d;

        if (strncmp(field, prefix, p) || f <= p + x || strcmp(field + f - x, suffix))
                return 0;
        for (d = field + p; d < field + f - x; d++)
                if (*d < '0' || *d > '9')
                        return 0;
        return 1;
}

/* Where a per-vCPU, per-disk or per-interface field's value is summed, or NULL. */
static double *summed_field(struct vm *v, const char *field)
{
        static const char *const fields[][2] = {
            {"vcpu.", ".time"},      {"block.", ".rd.reqs"},  {"block.", ".wr.reqs"},
            {"block.", ".rd.bytes"}, {"block.", ".wr.bytes"}, {"block.", ".rd.times"},
            {"block.", ".wr.times"}, {"net.", ".rx.bytes"},   {"net.", ".tx.bytes"},
        };
        double *const sums[] = {&v->vcpu_s, &v->rd_reqs, &v->wr_reqs,  &v->rd_bytes, &v->wr_bytes,
                                &v->rd_s,   &v->wr_s,    &v->rx_bytes, &v->tx_bytes};

        for (size_t k = 0; k < sizeof(sums) / sizeof(sums[0]); k++)
                if (indexed(field, fields[k][0], fields[k][1]))
                        return sums[k];
        return NULL;
}

static void domain_counters(virDomainStatsRecordPtr r, const char *name, struct vm *v)
{
        const char *vm = strrchr(name, 'm');

        memset(v, 0, sizeof(*v));
        snprintf(v->name, sizeof(v->name), "%s", name);
        if (vm && strlen(name) > 3 && !strncmp(vm - 2, "-vm", 3) && vm[1])
                v->vm = (unsigned)strtoul(vm + 1, NULL, 10);
        for (int k = 0; k < r->nparams; k++) {
                const virTypedParameter *t = &r->params[k];
                double *sum = summed_field(v, t->field);

                if (sum)
                        *sum += param_value(t);
                else if (!strcmp(t->field, "cpu.time"))
                        v->cpu_s = param_value(t);
                else if (!strcmp(t->field, "vcpu.current"))
                        v->nvcpus = (unsigned)param_value(t);
        }
        /* libvirt's times are nanoseconds */
        v->cpu_s /= NS;
        v->vcpu_s /= NS;
        v->rd_s /= NS;
        v->wr_s /= NS;
}

/* The counters of every running domain on conn now, at most max into out, *n of them. */
static int read_domains(virConnectPtr conn, const char *host, struct vm *out, unsigned max,
                        unsigned *n, char *err, size_t errlen)
{
        virDomainStatsRecordPtr *recs = NULL;
        int nrec = virConnectGetAllDomainStats(conn, DOMAIN_STATS_WANT, &recs,
                                               VIR_CONNECT_GET_ALL_DOMAINS_STATS_ACTIVE);

        *n = 0;
        if (nrec < 0) {
                snprintf(err, errlen, "%s (libvirt): domain stats: %s", host,
                         virGetLastErrorMessage());
                return -EIO;
        }
        for (int k = 0; k < nrec && *n < max; k++) {
                const char *name = virDomainGetName(recs[k]->dom);

                if (name)
                        domain_counters(recs[k], name, &out[(*n)++]);
        }
        virDomainStatsRecordListFree(recs);
        return 0;
}

/* The libvirt source on a connection of our own, lent as a backend lends its own. */
static int open_libvirt(struct probe *p, const struct hostsrc_ops *ops, const char *name,
                        const char *uri, char *err, size_t errlen)
{
        struct hostsrc_libvirt_conn lend = {.conn = virConnectOpen(uri)};
        int rc;

        if (!lend.conn) {
                snprintf(err, errlen, "%s: cannot connect to %s", name, uri);
                return -ECONNREFUSED;
        }
        rc = hostsrc_open(&p->src, ops, name, uri, NULL, &lend, err, errlen);
        if (rc == 0)
                p->conn = lend.conn; /* the source took a reference of its own */
        else
                virConnectClose(lend.conn);
        return rc;
}

static int read_vms(struct probe *p, int end, char *err, size_t errlen)
{
        if (!p->conn)
                return 0;
        return end ? read_domains(p->conn, p->src.host, p->vb, MAX_VMS, &p->nvb, err, errlen)
                   : read_domains(p->conn, p->src.host, p->va, MAX_VMS, &p->nva, err, errlen);
}

static void close_vms(struct probe *p)
{
        if (p->conn)
                virConnectClose(p->conn);
}

static void print_vms(const struct probe *p)
{
        for (unsigned k = 0; k < p->nvb; k++) {
                const struct vm *v = &p->vb[k];
                double pct = -1;

                for (unsigned j = 0; j < p->nva; j++)
                        if (!strcmp(p->va[j].name, v->name) && p->r.seconds > 0)
                                pct = 100.0 * (v->cpu_s - p->va[j].cpu_s) / p->r.seconds;
                printf("vm %s %s cpu_pct=%.2f cpu_s=%.3f vcpu_s=%.3f rd_reqs=%.0f wr_reqs=%.0f "
                       "rd_bytes=%.0f wr_bytes=%.0f rd_s=%.6f wr_s=%.6f rx=%.0f tx=%.0f\n",
                       p->src.host, v->name, pct, v->cpu_s, v->vcpu_s, v->rd_reqs, v->wr_reqs,
                       v->rd_bytes, v->wr_bytes, v->rd_s, v->wr_s, v->rx_bytes, v->tx_bytes);
        }
}
#else
static int open_libvirt(struct probe *p, const struct hostsrc_ops *ops, const char *name,
                        const char *uri, char *err, size_t errlen)
{
        (void)p;
        (void)ops;
        (void)uri;
        snprintf(err, errlen, "%s: a build without libvirt has no libvirt source", name);
        return -ENOTSUP;
}

static void close_vms(struct probe *p)
{
        (void)p;
}

static int read_vms(struct probe *p, int end, char *err, size_t errlen)
{
        (void)p;
        (void)end;
        (void)err;
        (void)errlen;
        return 0;
}

static void print_vms(const struct probe *p)
{
        (void)p;
}
#endif

static int open_one(struct probe *p, const char *arg, char *err, size_t errlen)
{
        char name[64], source[64];
        const char *eq = strchr(arg, '='), *colon = eq ? strchr(eq, ':') : NULL;
        const struct hostsrc_ops *ops;

        if (!eq || !colon || eq - arg >= (long)sizeof(name) || colon - eq > (long)sizeof(source)) {
                snprintf(err, errlen, "%s: not NAME=SOURCE:WHERE", arg);
                return -EINVAL;
        }
        snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
        snprintf(source, sizeof(source), "%.*s", (int)(colon - eq - 1), eq + 1);
        ops = hostsrc_find(source);
        if (!ops && !strcmp(source, "libvirt"))
                return open_libvirt(p, NULL, name, colon + 1, err, errlen); /* not built */
        if (!ops) {
                snprintf(err, errlen, "%s: no source %s", name, source);
                return -EINVAL;
        }
        if (ops->where & HOSTSRC_AT_CONN) /* it reads through a connection we hold */
                return open_libvirt(p, ops, name, colon + 1, err, errlen);
        return hostsrc_open(&p->src, ops, name, colon + 1, getenv("HOSTSRC_TOKEN"), NULL, err,
                            errlen);
}

static int run(char **argv)
{
        int status;
        pid_t pid = fork();

        if (pid < 0)
                return -1;
        if (pid == 0) {
                execvp(argv[0], argv);
                _exit(127);
        }
        if (waitpid(pid, &status, 0) < 0)
                return -1;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void print(const struct probe *p)
{
        const struct hostsrc_rates *r = &p->r;

        printf("host %s busy=%.2f user=%.2f system=%.2f iowait=%.2f steal=%.2f busiest=%.2f "
               "mem=%.2f swapin=%.2f rx=%.0f tx=%.0f psi=%d\n",
               p->src.host, r->busy, r->user, r->system, r->iowait, r->steal, r->busiest_cpu,
               r->mem_used_pct, r->swap_in_s, r->rx_bytes_s, r->tx_bytes_s, r->have_pressure);
        for (unsigned i = 0; i < r->ndisks; i++)
                printf("disk %s %s util=%.2f iops=%.2f lat=%.3f\n", p->src.host, r->disk[i].name,
                       r->disk[i].util_pct, r->disk[i].iops, r->disk[i].lat_ms);
}

/* The other hosts' readings while the aligned one waits for a new scrape. */
static struct hostsrc_counters *ring[MAX_HOSTS];
static unsigned ring_n;

/* Read every host but the aligned one into the ring's next slot. */
static int ring_read(struct probe *p, int n, int align, char *err, size_t errlen)
{
        unsigned slot = ring_n++ % ALIGN_RING;

        for (int h = 0; h < n; h++) {
                if (h == align)
                        continue;
                if (!ring[h] && !(ring[h] = calloc(ALIGN_RING, sizeof(*ring[h])))) {
                        snprintf(err, errlen, "out of memory");
                        return -ENOMEM;
                }
                if (hostsrc_read(&p[h].src, &ring[h][slot], err, errlen) < 0)
                        return -1;
        }
        return 0;
}

/* How far each host's picked reading was from the aligned sample, ms, at the window's ends. */
static double picked_ms[MAX_HOSTS][2];

/* Host h's ring reading nearest to t_ns into c. */
static void ring_pick(int h, int second, uint64_t t_ns, struct hostsrc_counters *c)
{
        unsigned n = ring_n < ALIGN_RING ? ring_n : ALIGN_RING, best = 0;
        uint64_t d, best_d = UINT64_MAX;

        for (unsigned k = 0; k < n; k++) {
                d = ring[h][k].t_ns > t_ns ? ring[h][k].t_ns - t_ns : t_ns - ring[h][k].t_ns;
                if (d < best_d) {
                        best_d = d;
                        best = k;
                }
        }
        *c = ring[h][best];
        picked_ms[h][second] = ((double)c->t_ns - (double)t_ns) / 1e6;
}

/* Read the aligned host until its sample is newer than the one read when the wait began,
 * the others all the while; each other host keeps its reading nearest the new sample's time. */
static int read_aligned(struct probe *p, int n, int align, int second, char *err, size_t errlen)
{
        struct hostsrc_counters *c = second ? &p[align].b : &p[align].a;
        uint64_t t0, end = clk_now_ns() + ALIGN_WAIT_S * 1000000000ull;
        uint64_t pre = clk_now_ns() + ALIGN_PREROLL;
        int rc = 0;

        /* a scrape running now is timed at its start, before this wait: keep readings of that */
        ring_n = 0;
        while (!rc && clk_now_ns() < pre) {
                rc = ring_read(p, n, align, err, errlen);
                clk_sleep_ns(ALIGN_POLL); /* the poll interval */
        }
        if (!rc)
                rc = hostsrc_read(&p[align].src, c, err, errlen);
        t0 = c->t_ns;
        while (!rc && c->t_ns == t0) {
                if (clk_now_ns() > end) {
                        snprintf(err, errlen, "%s: no new sample in %d s", p[align].src.host,
                                 ALIGN_WAIT_S);
                        return -ETIMEDOUT;
                }
                rc = ring_read(p, n, align, err, errlen);
                if (!rc) {
                        clk_sleep_ns(ALIGN_POLL); /* the poll interval */
                        rc = hostsrc_read(&p[align].src, c, err, errlen);
                }
        }
        if (!rc)
                rc = ring_read(p, n, align, err, errlen); /* the sample may be this recent */
        for (int h = 0; !rc && h < n; h++)
                if (h != align)
                        ring_pick(h, second, c->t_ns, second ? &p[h].b : &p[h].a);
        return rc;
}

/* Read every host (and its VMs) into its a (second 0) or b. */
static int read_all(struct probe *p, int n, int align, int second, char *err, size_t errlen)
{
        if (align >= 0 && read_aligned(p, n, align, second, err, errlen) < 0)
                return -1;
        for (int h = 0; h < n; h++)
                if ((align < 0 &&
                     hostsrc_read(&p[h].src, second ? &p[h].b : &p[h].a, err, errlen) < 0) ||
                    read_vms(&p[h], second, err, errlen) < 0)
                        return -1;
        return 0;
}

static double tv_s(struct timeval tv)
{
        return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
        if (!n)
                return 0;
        qsort(v, n, sizeof(*v), cmp_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One round: every host read once, in order; each read's ms into reads. */
static int cost_round(struct probe *p, int n, double *reads, size_t *nreads, char *err,
                      size_t errlen)
{
        for (int h = 0; h < n; h++) {
                uint64_t t = clk_now_ns();

                if (hostsrc_read(&p[h].src, &p[h].b, err, errlen) < 0)
                        return -1;
                if (*nreads < COST_MAX_READS)
                        reads[(*nreads)++] = (double)(clk_now_ns() - t) / 1e6;
        }
        return 0;
}

/* --cost EVERY_MS,FOR_S: read every source on a fixed schedule, print what it cost. */
static int cost(struct probe *p, int n, const char *spec, char *err, size_t errlen)
{
        static double reads[COST_MAX_READS], rounds[COST_MAX_READS];
        unsigned long every_ms, for_s;
        size_t nreads = 0, nrounds = 0;
        struct rusage r0, r1;
        uint64_t t0, next, end, now;
        double wall, user, sys, read_med, round_med;

        if (sscanf(spec, "%lu,%lu", &every_ms, &for_s) != 2 || !every_ms || !for_s) {
                snprintf(err, errlen, "--cost %s: not EVERY_MS,FOR_S", spec);
                return 2;
        }
        getrusage(RUSAGE_SELF, &r0);
        t0 = next = clk_now_ns();
        end = t0 + for_s * 1000000000ull;
        while (next < end && nrounds < COST_MAX_READS) {
                now = clk_now_ns();
                if (now < next)
                        clk_sleep_ns(next - now); /* the monitor's tick, not a wait on anything */
                now = clk_now_ns();
                if (cost_round(p, n, reads, &nreads, err, errlen) < 0)
                        return 3;
                rounds[nrounds++] = (double)(clk_now_ns() - now) / 1e6;
                next += every_ms * 1000000ull;
        }
        now = clk_now_ns();
        if (now < next)
                clk_sleep_ns(next - now); /* the last round's interval is its cost's too */
        getrusage(RUSAGE_SELF, &r1);
        wall = (double)(clk_now_ns() - t0) / 1e9;
        user = tv_s(r1.ru_utime) - tv_s(r0.ru_utime);
        sys = tv_s(r1.ru_stime) - tv_s(r0.ru_stime);
        read_med = median(reads, nreads); /* sorts reads: the max is then the last */
        round_med = median(rounds, nrounds);
        printf("cost hosts=%d rounds=%zu wall_s=%.3f user_s=%.3f sys_s=%.3f cpu_pct=%.4f "
               "cpu_pct_per_8_hosts=%.4f read_ms_median=%.3f read_ms_max=%.3f "
               "round_ms_median=%.3f\n",
               n, nrounds, wall, user, sys, 100 * (user + sys) / wall,
               100 * (user + sys) / wall * 8 / n, read_med, nreads ? reads[nreads - 1] : 0,
               round_med);
        return 0;
}

int main(int argc, char **argv)
{
        static struct probe p[MAX_HOSTS];
        const char *align_name = NULL, *cost_spec = NULL;
        char err[512];
        int n = 0, i = 1, rc = 0, align = -1;

#ifdef HAVE_LIBVIRT
        hostsrc_register(&hostsrc_libvirt_ops); /* as the libvirt backend does when it opens */
#endif
        if (argc > 2 && !strcmp(argv[1], "--align")) {
                align_name = argv[2];
                i = 3;
        } else if (argc > 2 && !strcmp(argv[1], "--cost")) {
                cost_spec = argv[2];
                i = 3;
        }
        for (; i < argc && strcmp(argv[i], "--"); i++) {
                if (n == MAX_HOSTS || open_one(&p[n], argv[i], err, sizeof(err)) < 0) {
                        fprintf(stderr, "hostsrc_probe: %s\n", n == MAX_HOSTS ? "too many" : err);
                        return 3;
                }
                if (align_name && !strcmp(p[n].src.host, align_name))
                        align = n;
                n++;
        }
        if (cost_spec && n > 0 && i == argc) {
                rc = cost(p, n, cost_spec, err, sizeof(err));
                if (rc)
                        fprintf(stderr, "hostsrc_probe: %s\n", err);
                for (int h = 0; h < n; h++) {
                        hostsrc_close(&p[h].src);
                        close_vms(&p[h]);
                }
                return rc;
        }
        if (i + 1 >= argc || (align_name && align < 0)) {
                fprintf(stderr,
                        "usage: hostsrc_probe [--align NAME] NAME=SOURCE:WHERE... -- CMD\n"
                        "       hostsrc_probe --cost EVERY_MS,FOR_S NAME=SOURCE:WHERE...\n");
                return 2;
        }
        if (read_all(p, n, align, 0, err, sizeof(err)) < 0)
                rc = 3;
        if (!rc && run(argv + i + 1) < 0) {
                snprintf(err, sizeof(err), "%s failed", argv[i + 1]);
                rc = 5;
        }
        if (!rc && read_all(p, n, align, 1, err, sizeof(err)) < 0)
                rc = 3;
        for (int h = 0; h < n && !rc; h++) {
                int rr = hostsrc_rates(&p[h].a, &p[h].b, &p[h].r);
                char why[200];

                hostsrc_rates_why(rr, &p[h].r, why, sizeof(why));
                if (rr < 0) {
                        snprintf(err, sizeof(err), "%s: %s", p[h].src.host, why);
                        rc = 4;
                } else {
                        if (why[0]) /* a family voided, the others stand */
                                printf("lost %s: %s\n", p[h].src.host, why);
                        print(&p[h]);
                        if (align >= 0 && h != align)
                                printf("align %s start_ms=%.1f end_ms=%.1f\n", p[h].src.host,
                                       picked_ms[h][0], picked_ms[h][1]);
                        print_vms(&p[h]);
                }
        }
        if (rc)
                fprintf(stderr, "hostsrc_probe: %s\n", err);
        for (int h = 0; h < n; h++) {
                hostsrc_close(&p[h].src);
                close_vms(&p[h]);
                free(ring[h]);
        }
        return rc;
}
