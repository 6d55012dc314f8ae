/*
 * tipping.h - the answer to "at what VM count does adding VMs stop paying,
 * and which resource is to blame": one definition, used by `scale`,
 * `analyze` and `compare` (and by a searching plan that asks it after every
 * step). Pure arithmetic, no I/O, no allocation, any thread.
 *
 * Three figures describe a ramp of steps (load N = VM count, throughput X):
 *
 *   measured peak   the step of highest throughput.
 *   USL fit         Gunther's Universal Scalability Law
 *                       X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1))
 *                   fitted by least squares (sigma, kappa >= 0); sigma is
 *                   contention, kappa coherency (crosstalk); the fit predicts
 *                   its peak at N* = sqrt((1 - sigma) / kappa) (none when
 *                   kappa = 0); rmse is the fit's error in throughput units.
 *   knee            the TIPPING POINT: the last step before the first step
 *                   whose scaling efficiency
 *                       e = ln(X_k / X_k-1) / ln(N_k / N_k-1)
 *                   falls below RES_TIP_SHARE. e is the marginal throughput
 *                   per added VM as a fraction of the mean throughput per VM
 *                   (exactly so as the steps get small: dX/dN / (X/N)); 1 is
 *                   linear scaling, 0 a flat curve, < 0 a falling one. It does
 *                   not depend on how far apart the steps are.
 *
 * Noise: each step carries a band [lo, hi] within which its true throughput
 * lies (with --repeat: the repeats' min..max around their median; without:
 * its 95% confidence interval by batch means, --target-ci's when the step
 * has one, else of its per-interval throughput (res_tip_band); lo = hi =
 * throughput when unknown). A step's efficiency is decided only beyond the
 * noise: its half-widths in ln X (of both steps, added in quadrature) give
 * a band on e; the step "scaled" when the whole band is >= RES_TIP_SHARE,
 * "tipped" when it is wholly below. Otherwise the later steps decide,
 * each measured from the last step that scaled: when one of them lies
 * wholly below RES_TIP_SHARE the curve tipped at that last scaled step or
 * at the undecided one ("between 2 and 3 VMs": load .. load_hi, the
 * attribution read against the deciding step); when one lies wholly above,
 * the curve scaled through it and the walk goes on from there. Only when
 * no later step decides does the answer say "more repeats needed"
 * (undecided = 1, no tipping point).
 *
 * Attribution compares the tipping step with the step after it, where the
 * scaling broke (or, when no resource was at its limit there, with each
 * later step in turn, citing the first that names one: a resource just
 * short of its limit where the gain collapsed saturates a step or two
 * later while the curve stays flat), and names the resource that
 * saturated in between:
 *   memory    OOM kills, swapping or > RES_TIP_MAJFLT_PER_S major faults/s;
 *   (the CPU figure below is the compute layer's: the CPUs the VMs are
 *   pinned to when they have CPUs of their own, as in two-layer, where the
 *   storage service's CPUs idling would hide them; else the host's)
 *   cpu       host CPU >= RES_TIP_SAT_PCT busy (steal included); "compute
 *             limiting storage" when the storage service, in the I/O path
 *             (>= RES_TIP_STORAGE_CPU_MIN % of the host), kept its CPU share
 *             flat or lost some while its latency rose;
 *   vm-cpu    the VMs throttled by their own CPU quotas for at least
 *             RES_TIP_THROTTLE_TIME_PCT of the step (cpu.stat's throttled
 *             time), in >= RES_TIP_THROTTLE_PCT of their periods, or their
 *             quotas >= RES_TIP_SAT_PCT used, while the host had CPU left:
 *             add VMs or vCPUs, not storage;
 *   storage   storage utilisation (the busiest VM disk) >= RES_TIP_SAT_PCT,
 *             or its latency up more than RES_TIP_LAT_FACTOR times, with
 *             host CPU to spare;
 *   cpu       (plain) host CPU saturated otherwise;
 *   none      none of these; the reason lists the figures that were missing.
 * The reason cites the figures of both steps and the headroom left at the
 * tipping point (host CPU idle, storage utilisation, IOPS and latency, the
 * storage service's CPU, the VMs' quota use and throttling; "latency flat:
 * storage had headroom" when it was).
 *
 * How to call it (e.g. after every step of a plan):
 *
 *     struct res_tip_step st[K];     // ascending load, valid steps only
 *     for (k...) { res_tip_step_init(&st[k], vms, tps_median);
 *                  st[k].lo = tps_min; st[k].hi = tps_max;  // if known
 *                  st[k].r.cpu_busy_pct = ...; }            // NAN: unknown
 *     struct res_tip t;
 *     res_tip_find(st, K, "VMs", &t);
 *     if (t.found)          tipped at st[t.step].load, t.limited_by, t.reason
 *     else if (t.undecided) noise too wide at st[t.step]: repeat that step
 *     else                  still scaling at the last step: add VMs
 *     t.usl.peak_load       where the fit expects the peak (NAN: none)
 */
#ifndef HCI_RES_TIPPING_H
#define HCI_RES_TIPPING_H

#include <stddef.h>

#define RES_TIP_SHARE             0.20 /* the knee: efficiency below a fifth of linear */
#define RES_TIP_SAT_PCT           90.0 /* a resource at or above this is saturated */
#define RES_TIP_THROTTLE_PCT      50.0 /* VMs throttled in this share of CFS periods */
#define RES_TIP_THROTTLE_TIME_PCT 25.0 /* VMs throttled this share of the step's time */
#define RES_TIP_LAT_FACTOR        2.0  /* storage latency up this many times: storage-bound */
#define RES_TIP_LAT_RISE          1.2  /* ... up this much: "latency rose" */
#define RES_TIP_FLAT              1.1  /* a share at most this times the last one is flat */
#define RES_TIP_STORAGE_CPU_MIN   1.0  /* storage service CPU (% of host): it is in the I/O path */
#define RES_TIP_MAJFLT_PER_S      50.0
#define RES_TIP_MIN_BATCH         2 /* samples per batch at least (batch-means band) */

/* A step's resource figures; NAN when not measured. Percentages are of the
 * whole host (all CPUs) unless said otherwise. Every field is a double. */
struct res_tip_res {
        double cpu_busy_pct;          /* host CPU busy, steal included, iowait not */
        double steal_pct;             /* host */
        double storage_cpu_pct;       /* the storage service (tgtd) */
        double storage_util_pct;      /* busiest storage device or service, 0..100 */
        double storage_lat_ms;        /* mean storage latency */
        double storage_iops;          /* storage-side IOPS */
        double vm_cpu_pct;            /* the VMs' CPU use in % of their own quota */
        double vm_throttled_pct;      /* share of the VMs' CFS periods that were throttled */
        double driver_cpu_pct;        /* the load generator (hcisweep itself) */
        double majflt_per_s;          /* major faults per second, all VMs */
        double swap_pages;            /* host pages swapped in + out during the step */
        double oom_kills;             /* in the VMs during the step */
        double vm_throttled_time_pct; /* the share of the step's time a VM spent throttled */
        double storage_cpu_user_pct;  /* the storage service's user CPU, % of one CPU */
        double storage_cpu_sys_pct;   /* ... its system CPU, % of one CPU */
        double compute_cpu_pct;       /* two-layer: the VMs' own CPUs busy, % of them */
};

/*
 * The hosts of a cluster as a step read them (tip_json.h: a scale step's
 * cluster.hosts[]): the compute figures of res_tip_res are then the
 * busiest compute host's, the storage figures the storage hosts' (or, in
 * HCI, the hosts' own disks), and these names say whose. n = 0 when the
 * step holds only the controller's own figures (the local lab): nothing
 * is named and res_tip_res stays as the step recorded it.
 */
struct res_tip_hosts {
        unsigned n;          /* hosts read at the step */
        char cpu_host[64];   /* the busiest compute host, whose CPU the figures are */
        char cpu_next[64];   /* the next busiest compute host; "" when there is one */
        double cpu_next_pct; /* its CPU busy */
        char storage[256];  /* "storage hosts s1 41%, s2 39% busy; busiest disk s1/sdb 60%" or "" */
        char cpu_role[16];  /* cpu_host's role: "client", "compute", "both", ... */
        int nstor;          /* storage hosts read (0: the hosts' own disks are the storage) */
        char disk_host[64]; /* the host of the busiest disk ("" when no disk was read) */
        double disk_pct;    /* its utilisation */
        char stor_host[64]; /* the busiest storage host by CPU ("" when nstor = 0) */
        double stor_pct;    /* its CPU busy */
        int stor_cpu_util;  /* 1: storage_util_pct is stor_host's CPU (a block point's storage
                               host busier than its disks), not a disk's */
};

struct res_tip_step {
        double load;   /* VM count (any load: threads, queue depth) */
        double tput;   /* throughput: the median over repeats, or the mean */
        double lo, hi; /* the band of the true throughput (lo <= tput <= hi) */
        struct res_tip_res r;
        struct res_tip_hosts hosts;
};

enum res_tip_limit { RES_LIM_NONE, RES_LIM_CPU, RES_LIM_STORAGE, RES_LIM_VM_CPU, RES_LIM_MEMORY };

/* Which of the attribution rules above named the resource, in the order they are tried. */
enum res_tip_rule {
        RES_RULE_NONE,         /* none at its limit */
        RES_RULE_MEMORY,       /* swapping, OOM kills, major faults */
        RES_RULE_CPU_STARVES,  /* cpu, compute limiting storage */
        RES_RULE_VM_QUOTA,     /* vm-cpu */
        RES_RULE_STORAGE_UTIL, /* storage saturated, CPU to spare */
        RES_RULE_STORAGE_LAT,  /* storage latency more than doubled, CPU to spare */
        RES_RULE_CPU           /* cpu saturated otherwise */
};

struct res_usl {
        int ok;           /* 0: too few points to fit (fewer than 2 with X > 0) */
        double lambda;    /* throughput of one VM without contention */
        double sigma;     /* contention, >= 0 */
        double kappa;     /* coherency, >= 0 */
        double peak_load; /* N* = sqrt((1 - sigma) / kappa); NAN when kappa = 0 or sigma >= 1 */
        double rmse;      /* root mean square error of the fit, throughput units */
};

struct res_tip {
        int found;      /* 1: a tipping point within the steps */
        int undecided;  /* 1: the step at index step is within the noise */
        int step;       /* tipping step (found) or undecided step; -1 otherwise */
        double load;    /* load of the tipping step; NAN when not found */
        double load_hi; /* the tipping point lies in [load, load_hi] when the step after it
                           was within the noise and a later one decided; else NAN */
        int peak;       /* index of the measured peak, -1 when there are no steps */
        enum res_tip_limit limited_by;
        enum res_tip_rule rule; /* the rule that named limited_by */
        /* The steps the answer rests on (indices; -1 when there are none):
         * from  the last step known to scale (the tipping step when found);
         * to    the step whose efficiency from `from` decided (found), or could
         *       not be decided (undecided); the last step when still scaling;
         * cited the step whose resource figures the attribution read (found). */
        int from, to, cited;
        double eff, eff_lo, eff_hi; /* the efficiency from -> to and its band; NAN: none */
        double lowest;              /* the lowest efficiency of the steps that scaled; NAN */
        char reason[4096];          /* sentences citing the figures */
        struct res_usl usl;
};

/* A step with load and throughput set, no band, every figure NAN. */
void res_tip_step_init(struct res_tip_step *s, double load, double tput);

/*
 * The tipping point of n steps sorted by ascending load (steps that did not
 * complete left out by the caller; a step whose load is not above the one
 * before it is skipped). unit names the load in the reason ("VMs" when
 * NULL). Never fails; n = 0 gives "no step".
 */
void res_tip_find(const struct res_tip_step *s, unsigned n, const char *unit, struct res_tip *out);

/* Fit the USL to n (load, throughput) points; points with x <= 0 or y <= 0 are skipped. */
void res_usl_fit(const double *x, const double *y, unsigned n, struct res_usl *out);
/* The fitted curve at load x. */
double res_usl_eval(const struct res_usl *u, double x);

/* The scaling efficiency between steps a and b (NAN when undefined) and its band. */
double res_tip_efficiency(const struct res_tip_step *a, const struct res_tip_step *b, double *lo,
                          double *hi);

/*
 * Attribute the break between the tipping step t and the step after it, a:
 * writes the sentence (figures of both steps, headroom at t) into why; unit
 * names the load ("VMs" when NULL).
 */
enum res_tip_limit res_tip_attribute(const struct res_tip_step *t, const struct res_tip_step *a,
                                     const char *unit, char *why, size_t len);

/* The rule that names the resource limiting the scaling from t to a (the order above). */
enum res_tip_rule res_tip_classify(const struct res_tip_res *t, const struct res_tip_res *a);

/*
 * The host a rule's resource was read on, at step a, as words that follow
 * the resource's name: " on h2: 97% busy (h1 88%); storage hosts s1 41%,
 * s2 39% busy; busiest disk s1/sdb 60%" for a CPU rule, "; storage hosts
 * ..." for a storage rule; "" when a holds no hosts or the rule names none.
 */
void res_tip_host_words(const struct res_tip_step *a, enum res_tip_rule rule, char *buf,
                        size_t len);

/*
 * The resource a rule named, short and owned, as a client-count scan's
 * verdict says it (block/clients_scan.h): "storage host s1's disks 98%
 * busy", "storage host s1's CPU 97% busy", "client host c2's CPU 96% busy",
 * "host local's disks 95% busy" (no storage hosts: the clients' own disks),
 * "storage latency 0.40 -> 1.20 ms" (t: the step before a), "memory";
 * the host's name left out when a holds no hosts; "" for RES_RULE_NONE.
 */
void res_tip_limit_owner(const struct res_tip_step *t, const struct res_tip_step *a,
                         enum res_tip_rule rule, char *buf, size_t len);

/* The resource class a rule names (RES_LIM_NONE for RES_RULE_NONE). */
enum res_tip_limit res_tip_rule_limit(enum res_tip_rule rule);

/*
 * The crossover of two ramps (e.g. HCI a, two-layer b): the first load both
 * have at which the run behind at the first decided step is ahead beyond
 * the noise (the bands do not overlap; steps whose bands overlap decide
 * nothing). Returns the index into a of that step, or -1 when none; *first
 * is +1 when b led first, -1 when a did, 0 when no step was decided.
 */
int res_tip_crossover(const struct res_tip_step *a, unsigned na, const struct res_tip_step *b,
                      unsigned nb, int *first);

/* "cpu", "storage", "vm-cpu", "memory" or "none". */
const char *res_tip_limit_name(enum res_tip_limit l);

/*
 * The band of a step's throughput from its samples: with repeats (the
 * repeats' TPS), the median and min..max; otherwise (per-interval TPS, in
 * time order) the mean and its 95% confidence interval by batch means, as
 * --target-ci computes it (core/steady.h: STEADY_CI_BATCHES batches, or
 * batches of RES_TIP_MIN_BATCH samples when the series is shorter), since
 * successive intervals of a loaded server are correlated and the naive
 * standard error comes out too narrow. Too few samples (2 repeats, or
 * 2 * RES_TIP_MIN_BATCH intervals): no band (lo = hi = mid).
 */
void res_tip_band(const double *v, unsigned n, int repeats, double *mid, double *lo, double *hi);

/*
 * A step's band around its throughput tput from its per-interval series
 * v[0..n) (res_tip_band's interval case moved onto tput): what `scale`
 * shows and what a result's step reads back as. *lo = *hi = tput when the
 * series is too short.
 */
void res_tip_band_of_intervals(double tput, const double *v, unsigned n, double *lo, double *hi);

#endif
