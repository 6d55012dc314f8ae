/*
 * scale.c - `hcisweep scale`: step the number of database VMs up through a
 * plan (--vms 1,2,4 or 4-32:4), run the OLTP workload on all of them at
 * once at every step (one engine over N hosts, --threads connections per
 * VM), and find where adding VMs stops paying and why (results/tipping.h).
 *
 * Per step: create and start VMs 1..N (running ones are kept), create the
 * tables on VMs that lack them, then --repeat measured runs, each with a
 * warm-up; the counters of scale_probe.c are read when the warm-up ends and
 * when the run ends, and the host monitor gives CPU for that same window.
 * A VM lost mid-run ends the run once its short retry budget is spent; the
 * step keeps what was measured, is marked degraded, and the plan goes on
 * (the next step starts the VM again). SIGINT ends the current run; what
 * was measured is written, marked partial. The lab is torn down at the end
 * unless --keep-lab, so no server outlives the command.
 *
 * With --block-load, block I/O runs on every VM's LUN during each measured
 * run (warm-up included), the mixed load of an HCI cluster whose storage
 * serves databases and block volumes at once. The run directory (result,
 * intervals.csv, job.ini) is saved after every step, marked partial until
 * the last write, so a killed run keeps its steps.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/exitcode.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/opts.h"
#include "core/progress.h"
#include "core/resfile.h"
#include "oltp/live.h"
#include "oltp/oltpopts.h"
#include "oltp/prepare.h"
#include "results/rundir.h"
#include "results/store.h"
#include "results/tip_json.h"
#include "lab/labopts.h"
#include "scale/live.h"
#include "scale/scale.h"
#include "lab/sql.h"
#include "scale/search.h"
#include "scale/cmd_scale.h"

#define MAX_PCT 16

/* The options of scale alone; the lab is described by labopts.h. */
struct scale_cfg {
        char *output_dir, *block_load, *vms_spec;
        long long repeat, resolution;
        double latency_slo, lost_timeout;
        int keep_lab, dry_run;
};

#define O(f) offsetof(struct scale_cfg, f)
static const struct opt_def scale_opts[] = {
    {"vms", OPT_STR, O(vms_spec), "1,2,4", 0, 0,
     "VM counts of the plan, ascending: 1,2,4 or 4-32:4; or auto[:MAX], a searching plan that "
     "doubles the count until the gain collapses, then bisects (MAX: 64)",
     NULL, 0},
    {"resolution", OPT_INT, O(resolution), "1", 1, LAB_MAX_VMS,
     "--vms auto: bisect until the tipping step's neighbours are this many VMs away", NULL, 0},
    {"repeat", OPT_INT, O(repeat), "1", 1, SCALE_MAX_REPEAT, "measured runs per step", NULL, 0},
    {"latency-slo", OPT_DOUBLE, O(latency_slo), "0", 0, 1e7,
     "stop when a step's p99 exceeds MS milliseconds (0: no limit)", NULL, 0},
    {"lost-vm-timeout", OPT_DOUBLE, O(lost_timeout), "3", 0.1, 3600,
     "a VM unreachable this many seconds ends the step as degraded", NULL, 0},
    {"output-dir", OPT_STR, O(output_dir), "runs", 0, 0,
     "results go to DIR/scale-TIME/result.json (unless --json)", NULL, 0},
    {"keep-lab", OPT_BOOL, O(keep_lab), "0", 0, 0, "leave the VMs running at the end", NULL, 0},
    {"dry-run", OPT_BOOL, O(dry_run), "0", 0, 0,
     "print the plan and its worst-case duration, start nothing", NULL, 0},
    {"block-load", OPT_STR, O(block_load), NULL, 0, 0,
     "block I/O on every VM's LUN during each measured run: rw=randrw,bs=4k,iodepth=4,"
     "rwmixread=70,numjobs=1 (any of the keys; these are the defaults)",
     NULL, OPT_F_LIST},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};
#undef O

/* The options as documentation (cfg NULL): the man page and completion read them. */
const struct opt_group cmd_scale_options[] = {{scale_opts, NULL, "scale options"},
                                              {lab_opts, NULL, "lab options"},
                                              {oltp_opt_defs, NULL, "oltp options"},
                                              {NULL, NULL, NULL}};

static const char usage_text[] =
    "hcisweep scale [options]\n"
    "  Step the number of database VMs through --vms, run the OLTP workload on all of\n"
    "  them at once at every step (--threads connections PER VM), and report TPS, merged\n"
    "  latency, host CPU and storage per step, and the tipping point with the resource\n"
    "  that limited it. Exit codes: 0 done (steps may be degraded), 2 bad usage, plan\n"
    "  or inventory, 3 VMs could not be started or prepared, 130 interrupted.";

/* The plan of --vms: a list of counts, or a search (search.h). */
struct scale_plan {
        struct u64_list vms; /* a list's counts */
        int search;          /* auto[:MAX] */
        struct search_cfg cfg;
        unsigned nslots;                /* the most steps it may take */
        unsigned max;                   /* the most VMs it may ask for */
        unsigned order[PARSE_LIST_MAX]; /* a search's counts, in the order measured */
        unsigned norder;
};

/* What the user asked for: the options as parsed and checked. */
struct scale_conf {
        struct scale_cfg cfg;
        struct lab_cfg lab;
        struct opt_group g[4]; /* scale, lab, oltp */
        struct oltp_cli *oc;
        struct lab_spec spec;
        struct scale_load_spec load; /* --block-load */
        double pcts[MAX_PCT];
        unsigned npct;
        double plan_s; /* seconds of measured and warm-up runs in the plan */
        struct scale_plan plan;
};

/* The lab as the run uses it: the backend and what is known of each VM. */
struct scale_lab {
        const struct lab_backend_ops *ops;
        struct lab_backend *b;
        struct oltp_dsn dsn[LAB_MAX_VMS];
        char pw[LAB_MAX_VMS][256];
        int has_tables[LAB_MAX_VMS + 1];
        int watched[LAB_MAX_VMS + 1]; /* PIDs the monitor follows; [0]: the target */
        /* VM i's data disk as last seen: for the result's lab object */
        struct lab_vm_stats disk[LAB_MAX_VMS + 1];
        char lun[LAB_MAX_VMS + 1][LAB_PATH_MAX];
        unsigned ndisk;
};

/* What watches the runs: the counters, the host monitor, the block load. */
struct scale_watch {
        struct scale_probe *probe;
        struct scale_load *ld; /* the step's LUNs, open */
        struct mon *mon;       /* the whole run */
        int mon_stopped;
        struct metrics *metrics; /* --metrics-listen, or NULL */
        struct oltp_live *live;
};

/* The measured run in flight, as the engine's tick sees it. */
struct scale_flight {
        struct scale_step *step;
        unsigned rep;
        double warmup_s;
        int window_open;
        struct scale_snap snap0;
        uint64_t t0;
        double done_s; /* of this run, warm-up included */
        char ci[32];   /* ", CI 2.1%" once the steady-state rule has one */
};

struct scale {
        struct scale_conf conf;
        struct scale_lab lab;
        struct scale_watch watch;
        struct scale_flight run;
        struct scale_step *steps;
        unsigned nsteps;
        struct progress *prog;
        double done_s;     /* seconds of runs done (warm-up included) */
        unsigned runs;     /* runs done */
        unsigned max_runs; /* runs the plan may take */
        double run_max_s;  /* the longest one run may take */
        char stop_reason[256];
        char dir[1024]; /* run directory; "" with --json */
        char path[1100];
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
        (void)sig;
        interrupted = 1;
        oltp_engine_request_stop();
}

static int exit_of(int rc)
{
        return rc == -EINVAL ? HCI_EXIT_USAGE : HCI_EXIT_TARGET;
}

/* ---- options ---------------------------------------------------------- */

/* --vms: a list of counts, or auto[:MAX]. */
static int parse_plan(const char *spec, unsigned resolution, struct scale_plan *p, char *err,
                      size_t errlen)
{
        const struct u64_list *v = &p->vms;
        char why[256];
        uint64_t max = LAB_MAX_VMS;

        memset(p, 0, sizeof(*p));
        if (!strncmp(spec, "auto", 4) && (!spec[4] || spec[4] == ':')) {
                if (spec[4] && (parse_u64(spec + 5, &max, why, sizeof(why)) < 0 || max < 1 ||
                                max > LAB_MAX_VMS)) {
                        snprintf(err, errlen, "option --vms: auto:MAX wants MAX in 1..%d, not '%s'",
                                 LAB_MAX_VMS, spec + 5);
                        return -EINVAL;
                }
                p->search = 1;
                p->cfg = (struct search_cfg){.max = (unsigned)max, .resolution = resolution};
                p->nslots = search_max_steps(&p->cfg);
                p->max = p->cfg.max;
                return 0;
        }
        if (parse_u64_list(spec, 0, &p->vms, why, sizeof(why)) < 0) {
                snprintf(err, errlen, "option --vms: %s", why);
                return -EINVAL;
        }
        for (unsigned i = 0; i < v->n; i++)
                if (v->v[i] < 1 || v->v[i] > LAB_MAX_VMS || (i && v->v[i] <= v->v[i - 1])) {
                        snprintf(err, errlen,
                                 i && v->v[i] <= v->v[i - 1]
                                     ? "option --vms: the plan must ascend (%llu after %llu)"
                                 : v->v[i] < 1 ? "option --vms: %llu is below the minimum 1"
                                               : "option --vms: %llu is above the maximum 64",
                                 (unsigned long long)v->v[i],
                                 (unsigned long long)(i ? v->v[i - 1] : 0));
                        return -EINVAL;
                }
        if (!v->n) {
                snprintf(err, errlen, "option --vms: empty plan");
                return -EINVAL;
        }
        p->nslots = v->n;
        p->max = (unsigned)v->v[v->n - 1];
        return 0;
}

static int check_plan(struct scale *s, char *err, size_t errlen)
{
        return parse_plan(s->conf.cfg.vms_spec, (unsigned)s->conf.cfg.resolution, &s->conf.plan,
                          err, errlen);
}

/* The lab's LUNs take the block load; a backend without storage has none. */
static int check_load(struct scale *s, char *err, size_t errlen)
{
        if (!s->conf.cfg.block_load)
                return 0;
        if (!s->lab.ops->has_storage) {
                snprintf(err, errlen, "option --block-load: the %s backend has no LUNs to load",
                         s->lab.ops->name);
                return -EINVAL;
        }
        return scale_load_parse(s->conf.cfg.block_load, &s->conf.load, err, errlen);
}

static int parse(struct scale *s, int argc, char **argv, char *err, size_t errlen)
{
        char *pos[1];
        int npos = 0, help = 0;

        s->conf.oc = oltp_cli_new(&s->conf.g[2]);
        if (!s->conf.oc) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        s->conf.g[0] = (struct opt_group){scale_opts, &s->conf.cfg, "scale options"};
        s->conf.g[1] = (struct opt_group){lab_opts, &s->conf.lab, "lab options"};
        if (opt_defaults(s->conf.g, err, errlen) < 0 ||
            opt_parse_argv(s->conf.g, argc - 1, argv + 1, pos, 1, &npos, &help, err, errlen) < 0)
                return -EINVAL;
        if (help) {
                opt_help(stdout, s->conf.g, usage_text);
                return 1;
        }
        if (npos) {
                snprintf(err, errlen, "scale: unexpected argument '%s'", pos[0]);
                return -EINVAL;
        }
        if (lab_spec(&s->conf.lab, &s->conf.spec, &s->lab.ops, err, errlen) < 0 ||
            check_plan(s, err, errlen) < 0 || check_load(s, err, errlen) < 0 ||
            oltp_cli_setup(s->conf.oc, err, errlen) < 0 ||
            oltp_cli_check_outputs(s->conf.oc, err, errlen) < 0 ||
            oltp_cli_workload(s->conf.oc, err, errlen) < 0)
                return -EINVAL;
        const char *user, *db, *pw;
        oltp_cli_login(s->conf.oc, &user, &db, &pw);
        s->conf.spec.have_password = pw != NULL;
        s->conf.npct = oltp_cli_percentiles(s->conf.oc, s->conf.pcts, MAX_PCT);
        s->conf.spec.cancel = &interrupted; /* Ctrl-C during a VM's boot ends the wait */
        return 0;
}

/* ---- VMs and tables ----------------------------------------------------- */

static int fill_dsn(struct scale *s, unsigned i, char *err, size_t errlen)
{
        struct oltp_dsn *d = &s->lab.dsn[i - 1];
        const char *user, *db, *pw;
        struct lab_endpoint ep;
        int rc = s->lab.ops->endpoint(s->lab.b, i, &ep, err, errlen);

        if (rc < 0)
                return rc;
        oltp_cli_login(s->conf.oc, &user, &db, &pw);
        if (ep.password_file[0]) {
                rc = lab_read_password(ep.password_file, s->lab.pw[i - 1], sizeof(s->lab.pw[0]),
                                       err, errlen);
                if (rc < 0)
                        return rc;
                pw = s->lab.pw[i - 1];
        }
        /* The lab or inventory knows how its servers are logged in to; the
         * --mysql-* options fill what it leaves open. */
        free((char *)d->user);
        free((char *)d->db);
        memset(d, 0, sizeof(*d));
        snprintf(d->host, sizeof(d->host), "%s", ep.host);
        d->port = ep.port;
        d->user = ep.user[0] ? strdup(ep.user) : strdup(user);
        d->db = ep.database[0] ? strdup(ep.database) : strdup(db);
        d->password = pw;
        d->connect_timeout_s = 3;
        if (!d->user || !d->db) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        return 0;
}

static void free_dsns(struct scale *s)
{
        for (unsigned i = 0; i < LAB_MAX_VMS; i++) {
                free((char *)s->lab.dsn[i].user);
                free((char *)s->lab.dsn[i].db);
                s->lab.dsn[i].user = s->lab.dsn[i].db = NULL;
        }
        memset(s->lab.pw, 0, sizeof(s->lab.pw));
}

/* Tables sbtest1..N all there, and the last one as long as --table-size. */
static int tables_ready(struct scale *s, const struct oltp_dsn *d, const struct oltp_prep_cfg *pc)
{
        const struct oltp_driver_ops *ops = pc->ops;
        struct oltp_dconn *c = ops->conn_new(0);
        char sql[256];
        uint64_t n = 0, max_id = 0;
        int ok = 0;

        (void)s;
        if (!c)
                return 0;
        if (!ops->connect_sync(c, d)) {
                snprintf(sql, sizeof(sql),
                         "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = "
                         "DATABASE() AND table_name REGEXP '^sbtest[0-9]+$' AND "
                         "CAST(SUBSTR(table_name, 7) AS UNSIGNED) BETWEEN 1 AND %u",
                         pc->tables);
                if (!ops->query_u64_sync(c, sql, &n) && n == pc->tables) {
                        snprintf(sql, sizeof(sql), "SELECT COALESCE(MAX(id), 0) FROM sbtest%u",
                                 pc->tables);
                        ok = !ops->query_u64_sync(c, sql, &max_id) && max_id >= pc->table_size;
                }
        }
        ops->conn_free(c);
        return ok;
}

/* Prepare the VMs of 1..n that lack the tables, all at once. */
static int prepare_missing(struct scale *s, unsigned n, char *err, size_t errlen)
{
        struct oltp_dsn todo[LAB_MAX_VMS];
        struct oltp_engine_cfg ec;
        struct oltp_prep_cfg pc;
        unsigned m = 0;
        int rc;

        oltp_cli_cfg(s->conf.oc, s->lab.dsn, n, 1, &ec, &pc);
        for (unsigned i = 1; i <= n; i++) {
                if (!s->lab.has_tables[i])
                        s->lab.has_tables[i] = tables_ready(s, &s->lab.dsn[i - 1], &pc);
                if (!s->lab.has_tables[i])
                        todo[m++] = s->lab.dsn[i - 1];
        }
        if (!m)
                return 0;
        prog_clear(s->prog);
        printf("preparing %u table(s) of %llu rows on %u VM(s)\n", pc.tables,
               (unsigned long long)pc.table_size, m);
        pc.hosts = todo;
        pc.nhosts = m;
        pc.out = fopen("/dev/null", "w");
        if (!pc.out)
                pc.out = stderr;
        rc = oltp_cleanup(&pc, err, errlen);
        if (!rc)
                rc = oltp_prepare(&pc, err, errlen);
        if (pc.out != stderr)
                fclose(pc.out);
        if (rc < 0)
                return rc;
        for (unsigned i = 1; i <= n; i++)
                s->lab.has_tables[i] = 1;
        return 0;
}

/* VM i's data disk and LUN, kept for the result's lab object. */
static void note_disk(struct scale *s, unsigned i, const struct lab_vm_stats *vs)
{
        struct lab_endpoint ep;
        char ignored[256];

        s->lab.disk[i] = *vs;
        if (s->lab.ops->endpoint(s->lab.b, i, &ep, ignored, sizeof(ignored)) == 0)
                snprintf(s->lab.lun[i], sizeof(s->lab.lun[i]), "%s", ep.lun_url);
        if (i > s->lab.ndisk)
                s->lab.ndisk = i;
}

static void follow_pids(struct scale *s, unsigned n)
{
        int *watched = s->lab.watched;
        struct lab_storage st = {0};
        struct lab_vm_stats vs;
        struct scale_follow vm[LAB_MAX_VMS + 1];
        char label[32], ignored[256]; /* a VM not reported is not followed */

        memset(vm, 0, sizeof(vm));
        if (s->lab.ops->storage)
                s->lab.ops->storage(s->lab.b, &st, ignored, sizeof(ignored));
        for (unsigned i = 1; i <= n; i++) {
                if (s->lab.ops->stats(s->lab.b, i, &vs, ignored, sizeof(ignored)) < 0)
                        continue;
                note_disk(s, i, &vs);
                if (vs.pid <= 0)
                        continue;
                vm[i].pid = (int)vs.pid;
                vm[i].initiator =
                    vs.initiator_pid > 0 && vs.initiator_pid != vs.pid ? (int)vs.initiator_pid : 0;
                snprintf(vm[i].disk, sizeof(vm[i].disk), "%s", vs.disk);
                snprintf(vm[i].cg_cpu, sizeof(vm[i].cg_cpu), "%s", vs.cpu_cgroup);
                snprintf(vm[i].cg_acct, sizeof(vm[i].cg_acct), "%s", vs.cpuacct_cgroup);
                if (s->watch.mon && watched[i] != vm[i].pid) {
                        snprintf(label, sizeof(label), "vm%u", i);
                        mon_watch_pid(s->watch.mon, vm[i].pid, label);
                        watched[i] = vm[i].pid;
                }
        }
        if (s->watch.mon && st.alive && watched[0] != (int)st.pid) {
                mon_watch_pid(s->watch.mon, (int)st.pid, "target");
                watched[0] = (int)st.pid;
        }
        scale_probe_set(s->watch.probe, st.alive ? (int)st.pid : 0, vm, n);
}

/* Bring VMs 1..n up (keeping running ones) and ready for the workload. */
static int step_up(struct scale *s, unsigned n, char *err, size_t errlen)
{
        int rc, started;

        rc = s->lab.ops->create(s->lab.b, n, err, errlen);
        for (unsigned i = 1; !rc && i <= n; i++) {
                rc = s->lab.ops->start(s->lab.b, i, &started, err, errlen);
                if (!rc)
                        rc = fill_dsn(s, i, err, errlen);
        }
        if (!rc)
                rc = prepare_missing(s, n, err, errlen);
        if (!rc)
                follow_pids(s, n);
        return rc;
}

/* ---- one measured run ------------------------------------------------------ */

static void open_window(struct scale *s)
{
        scale_probe_take(s->watch.probe, &s->run.snap0);
        s->run.t0 = s->run.snap0.t_ns;
        s->run.window_open = 1;
        scale_load_measure(s->watch.ld);
}

static void on_tick(void *user, double done_s)
{
        struct scale *s = user;

        if (!s->run.window_open && done_s >= s->run.warmup_s)
                open_window(s);
        s->run.done_s = done_s;
        prog_update(s->prog, s->done_s + done_s, "%u VMs, run %u/%lld%s%s", s->run.step->vms,
                    s->run.rep + 1, s->conf.cfg.repeat, s->run.window_open ? "" : ", warming up",
                    s->run.ci);
}

/* The plan's total once runs end early: what is done, what the run in
 * flight probably has left, and the runs to come at the mean length of
 * those done so far (the worst case before any is done). */
static void prog_total(struct scale *s, double this_run_s)
{
        double per = s->runs ? s->done_s / s->runs : s->run_max_s;
        unsigned after = s->max_runs > s->runs + 1 ? s->max_runs - s->runs - 1 : 0;

        prog_set_total(s->prog, s->done_s + this_run_s + after * per);
}

/* --target-ci: the rule opened the measured window, and says how long is left. */
static void on_steady(void *user, enum steady_phase ph, const struct steady_res *r, double left_s)
{
        struct scale *s = user;

        if (!s->run.window_open && ph != STEADY_WARMUP) {
                open_window(s);
                s->run.step->rep[s->run.rep].niv = 0; /* intervals from here on */
        }
        if (r->ci_pct >= 0 && ph != STEADY_WARMUP)
                snprintf(s->run.ci, sizeof(s->run.ci), ", CI %.1f%%", r->ci_pct);
        prog_total(s, s->run.done_s + left_s);
}

/* Every interval's TPS is kept for the step's noise band; the live metrics see it too. */
static void on_interval(void *user, const struct oltp_interval *iv)
{
        struct scale *s = user;
        struct scale_rep *r = &s->run.step->rep[s->run.rep];

        if (s->watch.live)
                oltp_live_interval(s->watch.live, iv);
        if (!(iv->len_s > 0) || !s->run.window_open)
                return;
        if (r->niv == r->iv_cap) {
                unsigned cap = r->iv_cap ? 2 * r->iv_cap : 256;
                double *t = realloc(r->iv_t, cap * sizeof(*t)), *v;

                if (t)
                        r->iv_t = t;
                v = t ? realloc(r->iv_tps, cap * sizeof(*v)) : NULL;
                if (!v)
                        return; /* out of memory: a shorter series, a wider band */
                r->iv_tps = v;
                r->iv_cap = cap;
        }
        r->iv_t[r->niv] = iv->t_s;
        r->iv_tps[r->niv++] = (double)iv->c.txns / iv->len_s;
}

/* Which VMs died: their names and the engine's reason, for the step. */
static void name_lost(struct scale *s, struct scale_rep *r, unsigned n, const char *why)
{
        struct lab_vm_stats st;
        char ignored[256]; /* a VM not reported is not named */
        size_t len = 0;

        for (unsigned i = 1; i <= n && len < sizeof(r->error) - 80; i++) {
                if (s->lab.ops->stats(s->lab.b, i, &st, ignored, sizeof(ignored)) < 0 || st.alive)
                        continue;
                len += (size_t)snprintf(r->error + len, sizeof(r->error) - len,
                                        "vm%u (%s:%u) is down; ", i, s->lab.dsn[i - 1].host,
                                        s->lab.dsn[i - 1].port);
        }
        snprintf(r->error + len, sizeof(r->error) - len, "%s", why);
}

static void keep_result(struct scale_step *st, struct scale_rep *r, const struct oltp_result *res)
{
        r->seconds = res->seconds;
        r->total = res->total;
        r->tps = res->seconds > 0 ? (double)res->total.txns / res->seconds : 0;
        oltp_counts_add(&st->total, &res->total);
        st->seconds += res->seconds;
        hist_merge(st->lat, res->lat);
        for (unsigned h = 0; h < res->nhosts && h < st->vms; h++) {
                oltp_counts_add(&st->vm[h + 1].c, &res->hosts[h].c);
                hist_merge(st->vm[h + 1].lat, res->hosts[h].lat);
                st->vm[h + 1].seconds += res->seconds;
        }
}

/* Add a CPU list ("0", "0-2,5") to set; -1 when it is not one. */
static int cpu_list_add(const char *list, cpu_set_t *set)
{
        const char *p = list;

        while (*p) {
                char *end;
                long a = strtol(p, &end, 10), b = a;

                if (end == p || a < 0)
                        return -1;
                if (*end == '-') {
                        p = end + 1;
                        b = strtol(p, &end, 10);
                        if (end == p || b < a)
                                return -1;
                }
                for (long c = a; c <= b && c < CPU_SETSIZE; c++)
                        CPU_SET((int)c, set);
                p = end + (*end == ',');
                if (*end && *end != ',')
                        return -1;
        }
        return 0;
}

/*
 * The compute layer's CPU: in two-layer the VMs are pinned to CPUs of
 * their own and the storage service to others, so the host's busy share
 * (one figure over both layers) hides a compute layer at 100%. When every
 * VM of the step names its CPUs and together they are not the whole host,
 * the step records those CPUs and their busy split.
 */
static void compute_cpu(struct scale *s, struct scale_step *st, const struct mon *m, uint64_t t1,
                        struct scale_rep *r)
{
        cpu_set_t set;
        size_t len = 0;

        CPU_ZERO(&set);
        st->compute_cpus[0] = '\0';
        memset(&r->compute_cpu, 0, sizeof(r->compute_cpu));
        for (unsigned i = 1; i <= st->vms; i++)
                if (!s->lab.disk[i].cpuset[0] || cpu_list_add(s->lab.disk[i].cpuset, &set) < 0)
                        return;
        if (CPU_COUNT(&set) >= sysconf(_SC_NPROCESSORS_ONLN) ||
            !mon_cpus_between(m, s->run.t0, t1, &set, &r->compute_cpu))
                return;
        for (int c = 0; c < CPU_SETSIZE && len + 8 < sizeof(st->compute_cpus); c++)
                if (CPU_ISSET(c, &set))
                        len +=
                            (size_t)snprintf(st->compute_cpus + len, sizeof(st->compute_cpus) - len,
                                             "%s%d", len ? "," : "", c);
}

static int run_once(struct scale *s, struct scale_step *st, char *err, size_t errlen)
{
        struct scale_rep *r = &st->rep[st->nrep];
        struct oltp_engine_cfg ec;
        struct oltp_prep_cfg pc;
        struct oltp_result res;
        struct scale_snap snap1;
        struct mon *m;
        char why[512];
        int rc;

        oltp_cli_cfg(s->conf.oc, s->lab.dsn, st->vms, oltp_cli_threads(s->conf.oc), &ec, &pc);
        ec.retry_budget_s = s->conf.cfg.lost_timeout;
        /* the live metrics' interval is a second; else the steady-state rule's sample */
        ec.report_s = s->watch.live ? 1 : STEADY_SAMPLE_S;
        ec.on_interval = on_interval;
        ec.on_tick = on_tick;
        ec.user = s;
        s->run.step = st;
        s->run.rep = st->nrep;
        ec.on_steady = on_steady;
        s->run.warmup_s = ec.target_ci_pct > 0 ? INFINITY : ec.warmup_s; /* the rule opens it */
        s->run.window_open = 0;
        s->run.done_s = 0;
        s->run.ci[0] = 0;
        r->load_iops = -1;
        r->niv = 0;
        /* With --target-ci no one knows the run's length up front: the block
         * load warms up until the OLTP window opens, then runs until the
         * OLTP run ends. */
        if (s->watch.ld &&
            (rc = scale_load_start(s->watch.ld, ec.target_ci_pct > 0 ? -1 : ec.warmup_s,
                                   ec.target_ci_pct > 0 ? 0 : ec.time_s, err, errlen)) < 0)
                return rc;
        m = mon_start(500, why, sizeof(why));
        if (s->run.warmup_s <= 0)
                open_window(s);
        rc = oltp_engine_run(&ec, &res, err, errlen);
        if (!s->run.window_open)
                open_window(s);
        scale_probe_take(s->watch.probe, &snap1);
        if (s->watch.ld && scale_load_finish(s->watch.ld, &st->load, &r->load_iops) < 0)
                log_warn("scale: %u VMs: %s", st->vms, st->load.error);
        if (m) {
                mon_stop(m);
                mon_cpu_between(m, s->run.t0, snap1.t_ns, &r->cpu);
                compute_cpu(s, st, m, snap1.t_ns, r);
                json_decref(st->monitor);
                st->monitor = mon_to_json(m);
                mon_free(m);
        }
        s->done_s += rc < 0 || !res.have_steady ? ec.warmup_s + ec.time_s
                                                : res.steady.warmup_s + res.seconds;
        if (rc < 0)
                return rc;
        s->runs++;
        r->have_steady = res.have_steady;
        r->steady = res.steady;
        scale_probe_rates(s->watch.probe, &s->run.snap0, &snap1, &r->rates);
        keep_result(st, r, &res);
        r->interrupted = interrupted;
        if (res.exit_code) {
                r->lost = 1;
                name_lost(s, r, st->vms, res.err);
        }
        st->nrep++;
        oltp_result_free(&res);
        return 0;
}

/* ---- a step --------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return x < y ? -1 : x > y;
}

/* The step's steady state from its repeats': a step met --target-ci only if every run did. */
static void step_steady(struct scale_step *st)
{
        struct steady_res *a = &st->steady;

        st->have_steady = st->rep[0].have_steady;
        if (!st->have_steady)
                return;
        *a = st->rep[0].steady;
        for (unsigned r = 1; r < st->nrep; r++) {
                const struct steady_res *b = &st->rep[r].steady;

                a->warmup_s += b->warmup_s;
                a->measured_s += b->measured_s;
                if (b->ci_pct < 0 || (a->ci_pct >= 0 && b->ci_pct > a->ci_pct))
                        a->ci_pct = b->ci_pct < 0 ? -1 : b->ci_pct;
                a->met &= b->met;
                a->settled &= b->settled;
        }
}

/* The repeats' cgroup counts, summed (unknown in one: unknown); usage from the cgroup in all. */
static void add_throttling(struct scale_rates *a, const struct scale_rates *b, unsigned vms,
                           int first)
{
        for (unsigned i = 1; i <= vms; i++) {
                double *sum[] = {&a->vm_periods[i], &a->vm_throttled[i], &a->vm_throttled_s[i]};
                const double add[] = {b->vm_periods[i], b->vm_throttled[i], b->vm_throttled_s[i]};

                for (unsigned k = 0; k < 3; k++)
                        *sum[k] = first || (*sum[k] >= 0 && add[k] >= 0) ? *sum[k] + add[k] : -1;
                a->vm_cpu_cg[i] = (first || a->vm_cpu_cg[i]) && b->vm_cpu_cg[i];
        }
}

/* Step figures from its repeats: median TPS and its spread, means of the rest. */
static void summarise(struct scale_step *st)
{
        double tps[SCALE_MAX_REPEAT], w, wsum = 0;
        struct scale_rates *a = &st->rates;

        memset(&st->cpu, 0, sizeof(st->cpu));
        memset(&st->compute_cpu, 0, sizeof(st->compute_cpu));
        memset(a, 0, sizeof(*a));
        for (unsigned r = 0; r < st->nrep; r++) {
                const struct scale_rep *p = &st->rep[r];

                tps[r] = p->tps;
                w = p->rates.seconds;
                wsum += w;
                mon_cpu_add(&st->cpu, &p->cpu, w);
                mon_cpu_add(&st->compute_cpu, &p->compute_cpu, w);
                a->disk_util_pct += w * p->rates.disk_util_pct;
                a->disk_bytes_s += w * p->rates.disk_bytes_s;
                a->disk_iops += w * p->rates.disk_iops;
                a->disk_lat_ms += w * p->rates.disk_lat_ms;
                a->tgt_cpu_pct += w * p->rates.tgt_cpu_pct;
                a->self_cpu_pct += w * p->rates.self_cpu_pct;
                a->tgt_io_bytes_s += w * p->rates.tgt_io_bytes_s;
                a->tgt_disk_bytes_s += w * p->rates.tgt_disk_bytes_s;
                a->tgt_user_pct += w * p->rates.tgt_user_pct;
                a->tgt_sys_pct += w * p->rates.tgt_sys_pct;
                a->tgt_host_pct += w * p->rates.tgt_host_pct;
                a->host.iops += w * p->rates.host.iops;
                a->host.bytes_s += w * p->rates.host.bytes_s;
                a->host.lat_ms += w * p->rates.host.lat_ms;
                a->host.util_pct += w * p->rates.host.util_pct;
                a->vdisks = p->rates.vdisks;
                for (unsigned i = 1; i <= st->vms; i++) {
                        a->vm_cpu_pct[i] += w * p->rates.vm_cpu_pct[i];
                        a->ini_cpu_pct[i] += w * p->rates.ini_cpu_pct[i];
                        a->vd[i].iops += w * p->rates.vd[i].iops;
                        a->vd[i].bytes_s += w * p->rates.vd[i].bytes_s;
                        a->vd[i].lat_ms += w * p->rates.vd[i].lat_ms;
                        a->vd[i].util_pct += w * p->rates.vd[i].util_pct;
                        memcpy(a->vd_dev[i], p->rates.vd_dev[i], sizeof(a->vd_dev[i]));
                }
                add_throttling(a, &p->rates, st->vms, r == 0);
                a->swap_pages += p->rates.swap_pages;
                a->majflt += p->rates.majflt;
                a->failcnt += p->rates.failcnt;
                a->oom_kills += p->rates.oom_kills;
        }
        if (wsum > 0) {
                double *f[] = {&a->disk_util_pct,    &a->disk_bytes_s,  &a->disk_iops,
                               &a->disk_lat_ms,      &a->tgt_cpu_pct,   &a->tgt_io_bytes_s,
                               &a->tgt_disk_bytes_s, &a->tgt_user_pct,  &a->tgt_sys_pct,
                               &a->tgt_host_pct,     &a->host.iops,     &a->host.bytes_s,
                               &a->host.lat_ms,      &a->host.util_pct, &a->self_cpu_pct};

                mon_cpu_div(&st->cpu, wsum);
                mon_cpu_div(&st->compute_cpu, wsum);

                for (unsigned k = 0; k < sizeof(f) / sizeof(f[0]); k++)
                        *f[k] /= wsum;
                for (unsigned i = 1; i <= st->vms; i++) {
                        a->vm_cpu_pct[i] /= wsum;
                        a->ini_cpu_pct[i] /= wsum;
                        a->vd[i].iops /= wsum;
                        a->vd[i].bytes_s /= wsum;
                        a->vd[i].lat_ms /= wsum;
                        a->vd[i].util_pct /= wsum;
                }
                a->seconds = wsum;
        }
        if (!st->nrep)
                return;
        step_steady(st);
        qsort(tps, st->nrep, sizeof(tps[0]), cmp_double);
        st->tps_min = tps[0];
        st->tps_max = tps[st->nrep - 1];
        st->tps =
            st->nrep % 2 ? tps[st->nrep / 2] : (tps[st->nrep / 2 - 1] + tps[st->nrep / 2]) / 2;
}

static void step_state(struct scale *s, struct scale_step *st)
{
        struct lab_vm_stats vs;
        char ignored[256]; /* not reported: not alive; never the step's error */

        for (unsigned r = 0; r < st->nrep; r++) {
                if (st->rep[r].lost && st->state < SCALE_DEGRADED) {
                        st->state = SCALE_DEGRADED;
                        snprintf(st->error, sizeof(st->error), "%s", st->rep[r].error);
                }
                if (st->rep[r].interrupted)
                        st->state = SCALE_PARTIAL;
        }
        for (unsigned i = 1; i <= st->vms; i++) {
                snprintf(st->vm[i].host, sizeof(st->vm[i].host), "%.63s", s->lab.dsn[i - 1].host);
                st->vm[i].port = s->lab.dsn[i - 1].port;
                st->vm[i].alive =
                    s->lab.ops->stats(s->lab.b, i, &vs, ignored, sizeof(ignored)) == 0 && vs.alive;
        }
}

/* Open VMs 1..n's block-load LUNs (never the disks their filesystems are
 * on) for the block load, once for all the step's runs. */
static int open_load(struct scale *s, unsigned n, char *err, size_t errlen)
{
        struct lab_endpoint *ep = calloc(n, sizeof(*ep));
        const char *urls[LAB_MAX_VMS];
        int rc = 0;

        if (!ep) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        for (unsigned i = 1; !rc && i <= n; i++) {
                rc = s->lab.ops->endpoint(s->lab.b, i, &ep[i - 1], err, errlen);
                if (!rc && !ep[i - 1].load_lun_url[0]) {
                        snprintf(err, errlen,
                                 "option --block-load: vm%u has no block-load LUN (backend %s)", i,
                                 s->lab.ops->name);
                        rc = -EINVAL;
                }
                urls[i - 1] = ep[i - 1].load_lun_url;
        }
        if (!rc)
                rc = scale_load_open(&s->watch.ld, &s->conf.load, urls, n, err, errlen);
        free(ep);
        return rc;
}

/* The last CONSOLE_TAIL bytes of path (from a line start) into buf; length or 0. */
#define CONSOLE_TAIL (64 * 1024)
static size_t read_tail(const char *path, char *buf)
{
        FILE *f = fopen(path, "rb");
        size_t n = 0;
        long end;
        char *nl;

        if (!f)
                return 0;
        if (fseek(f, 0, SEEK_END) == 0 && (end = ftell(f)) > 0 &&
            fseek(f, end > CONSOLE_TAIL ? end - CONSOLE_TAIL : 0, SEEK_SET) == 0)
                n = fread(buf, 1, CONSOLE_TAIL, f);
        fclose(f);
        if (n == CONSOLE_TAIL && (nl = memchr(buf, '\n', n)) != NULL) {
                n -= (size_t)(nl + 1 - buf);
                memmove(buf, nl + 1, n);
        }
        return n;
}

/* A step that failed keeps each VM's console tail (qemu, libvirt: LAB/vmI/
 * console.log) in the run directory: why a guest did not boot must outlive
 * the lab, which is torn down next. */
static void save_consoles(struct scale *s, struct scale_step *st)
{
        char src[1100], dst[1200], name[64], err[256];
        char *buf = s->dir[0] ? malloc(CONSOLE_TAIL) : NULL;

        for (unsigned i = 1; buf && i <= st->vms && i <= 64; i++) {
                size_t n;

                snprintf(src, sizeof(src), "%s/vm%u/console.log", s->conf.lab.lab_dir, i);
                n = read_tail(src, buf);
                if (!n)
                        continue;
                scale_console_name(name, sizeof(name), st->vms, i);
                snprintf(dst, sizeof(dst), "%s/%s", s->dir, name);
                if (res_write_text(dst, buf, n, err, sizeof(err)) < 0) {
                        log_warn("scale: saving vm%u's console: %s", i, err);
                        continue;
                }
                st->consoles |= 1ULL << (i - 1);
                log_info("scale: vm%u's console log kept in %s", i, dst);
        }
        free(buf);
}

static int run_step(struct scale *s, struct scale_step *st, char *err, size_t errlen)
{
        int rc = step_up(s, st->vms, err, errlen);

        oltp_live_step(s->watch.live, st->vms);
        if (!rc && s->conf.load.on)
                rc = open_load(s, st->vms, err, errlen);
        if (rc < 0) {
                st->state = SCALE_FAILED;
                snprintf(st->error, sizeof(st->error), "%s", err);
                save_consoles(s, st);
                return rc;
        }
        for (long long r = 0; !rc && !interrupted && r < s->conf.cfg.repeat; r++)
                rc = run_once(s, st, err, errlen);
        scale_load_close(s->watch.ld);
        s->watch.ld = NULL;
        summarise(st);
        step_state(s, st);
        scale_live_step_done(s->watch.metrics, st, (unsigned)(st - s->steps) + 1);
        if (rc < 0) {
                st->state = SCALE_FAILED;
                snprintf(st->error, sizeof(st->error), "%s", err);
        }
        return rc;
}

/* Stop: the step's p99 is over --latency-slo (any plan: more VMs only add latency). */
static int over_slo(struct scale *s, const struct scale_step *st)
{
        double p99 = (double)hist_percentile(st->lat, 99) / 1e6;

        if (!(s->conf.cfg.latency_slo > 0 && st->state == SCALE_OK &&
              p99 > s->conf.cfg.latency_slo))
                return 0;
        snprintf(s->stop_reason, sizeof(s->stop_reason),
                 "p99 %.2f ms at %u VMs exceeds --latency-slo %.2f ms", p99, st->vms,
                 s->conf.cfg.latency_slo);
        return 1;
}

/*
 * Stop a list plan early: p99 over the SLO, or TPS more than 10% below the
 * peak two steps running. A search has its own end (search.h): measured out
 * of order, "two steps running" would mean nothing there.
 */
static int should_stop(struct scale *s, unsigned k)
{
        double peak = 0;
        unsigned below = 0, peak_vms = 0;

        if (over_slo(s, &s->steps[k]))
                return 1;
        for (unsigned i = 0; i <= k; i++) {
                if (s->steps[i].state != SCALE_OK)
                        continue;
                if (s->steps[i].tps > peak) {
                        peak = s->steps[i].tps;
                        peak_vms = s->steps[i].vms;
                        below = 0;
                } else if (s->steps[i].tps < 0.9 * peak) {
                        below++;
                } else {
                        below = 0;
                }
        }
        if (below >= 2) {
                snprintf(s->stop_reason, sizeof(s->stop_reason),
                         "TPS more than 10%% below the peak (%.0f at %u VMs) for two steps", peak,
                         peak_vms);
                return 1;
        }
        return 0;
}

/* ---- the result ------------------------------------------------------------- */

static json_t *steps_json(struct scale *s);

/*
 * The tipping point is read off the steps' JSON as the result file will hold
 * it, as `analyze` and `compare` read it from that file, so the three always
 * agree to the digit; *steps keeps that JSON for the result (NULL on ENOMEM,
 * when the reason says so).
 */
static void tipping(struct scale *s, struct res_tip *t, json_t **steps, json_t **tj)
{
        struct res_tip_step *sv = NULL;
        json_t *raw = steps_json(s);
        unsigned n = 0;

        *steps = raw ? res_as_written(raw) : NULL;
        json_decref(raw);
        *tj = NULL;
        memset(t, 0, sizeof(*t));
        if (!*steps || res_tip_of_steps(*steps, &sv, &n, t) < 0) {
                snprintf(t->reason, sizeof(t->reason), "out of memory");
                return;
        }
        *tj = res_tip_json(t, sv, "vms");
        free(sv);
}

/* Steps whose TPS did not reach --target-ci: named under the answer, never passed over. */
static void print_not_met(const struct scale *s)
{
        unsigned n = 0;

        for (unsigned i = 0; i < s->nsteps; i++) {
                const struct scale_step *st = &s->steps[i];

                if (!st->have_steady || st->steady.met)
                        continue;
                printf("%s%u", n++ ? ", " : "CI not met (--target-ci): ", st->vms);
        }
        if (n)
                printf(" VMs; those steps' TPS is less certain than asked for\n");
}

/* --vms auto: what was searched, and the order the counts were measured in. */
static json_t *search_json(const struct scale_plan *p)
{
        json_t *order = json_array();

        for (unsigned i = 0; order && i < p->norder; i++)
                json_array_append_new(order, json_integer(p->order[i]));
        return json_pack("{s:i,s:i,s:i,s:o}", "max", (int)p->max, "resolution",
                         (int)p->cfg.resolution, "max_steps", (int)p->nslots, "order",
                         order ? order : json_null());
}

static json_t *not_met_json(const struct scale *s)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < s->nsteps; i++)
                if (s->steps[i].have_steady && !s->steps[i].steady.met)
                        json_array_append_new(a, json_integer(s->steps[i].vms));
        return a;
}

/* --json FILE writes that file alone; otherwise a run directory under --output-dir. */
static int result_path(struct scale *s, char *err, size_t errlen)
{
        const char *json = oltp_cli_json(s->conf.oc);
        char why[512];

        if (json) {
                snprintf(s->path, sizeof(s->path), "%s", json);
                return 0;
        }
        if (res_rundir_create(s->conf.cfg.output_dir, "scale", s->dir, sizeof(s->dir), why,
                              sizeof(why)) < 0) {
                snprintf(err, errlen, "option --output-dir: %s", why);
                return -EINVAL;
        }
        snprintf(s->path, sizeof(s->path), "%s/result.json", s->dir);
        return 0;
}

static json_t *steps_json(struct scale *s)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < s->nsteps; i++)
                if (json_array_append_new(a, scale_step_json(&s->steps[i], s->conf.pcts,
                                                             s->conf.npct, &s->conf.load))) {
                        json_decref(a);
                        return NULL;
                }
        return a;
}

/* Where each VM's datadir lives and how its I/O reaches the storage. */
static json_t *lab_json(const struct scale *s)
{
        json_t *vms = json_array(), *o;
        const char *on = "unknown";

        for (unsigned i = 1; vms && i <= s->lab.ndisk; i++) {
                const struct lab_vm_stats *d = &s->lab.disk[i];

                on = lab_datadir_name(d->datadir_on);
                o = json_pack("{s:I,s:s,s:s?,s:s?,s:o,s:s?,s:s?}", "vm", (json_int_t)i,
                              "datadir_on", on, "lun", s->lab.lun[i][0] ? s->lab.lun[i] : NULL,
                              "initiator", d->initiator[0] ? d->initiator : NULL, "initiator_pid",
                              d->initiator_pid > 0 ? json_integer(d->initiator_pid) : json_null(),
                              "mount", d->mount[0] ? d->mount : NULL, "disk",
                              d->disk[0] ? d->disk : NULL);
                if (o)
                        json_array_append_new(vms, o);
        }
        return json_pack("{s:s,s:s,s:o}", "backend", s->lab.ops->name, "datadir_on", on, "vms",
                         vms ? vms : json_null());
}

static json_t *build_result(struct scale *s, json_t *steps, json_t *tip, const char *status)
{
        json_t *cfg = opt_to_json(s->conf.g), *top = cfg ? res_new("scale", cfg) : NULL;
        int bad;

        json_decref(cfg);
        if (!top)
                return NULL;
        bad = json_object_set_new(top, "status", json_string(status));
        bad |= json_object_set_new(
            top, "partial",
            json_boolean(strcmp(status, "complete") && strcmp(status, "stopped early")));
        if (s->stop_reason[0])
                bad |= json_object_set_new(top, "stop_reason", json_string(s->stop_reason));
        bad |=
            json_object_set_new(top, "storage_disk", json_string(scale_probe_disk(s->watch.probe)));
        bad |= json_object_set_new(top, "lab", lab_json(s));
        if (s->watch.mon && s->watch.mon_stopped)
                bad |= json_object_set_new(top, "monitor", mon_to_json(s->watch.mon));
        bad |= json_object_set(top, "steps", steps);
        bad |= json_object_set(top, "tipping_point", tip);
        if (s->nsteps && s->steps[0].have_steady)
                bad |= json_object_set_new(top, "ci_not_met", not_met_json(s));
        if (s->conf.plan.search)
                bad |= json_object_set_new(top, "search", search_json(&s->conf.plan));
        if (bad) {
                json_decref(top);
                return NULL;
        }
        return top;
}

static int save(struct scale *s, const json_t *top, char *err, size_t errlen)
{
        if (s->dir[0])
                return res_rundir_write(s->dir, top, err, errlen);
        return res_write_json(s->path, top, err, errlen);
}

/* The steps so far, marked partial, so a killed run keeps them. */
static void save_progress(struct scale *s)
{
        struct res_tip t;
        json_t *top, *steps, *tj;
        char err[512];

        tipping(s, &t, &steps, &tj);
        top = build_result(s, steps, tj, "running");
        json_decref(steps);
        json_decref(tj);
        if (!top || res_mark_partial(top, "running") < 0)
                log_warn("scale: out of memory saving the steps so far");
        else if (save(s, top, err, sizeof(err)) < 0)
                log_warn("scale: saving the steps so far: %s", err);
        json_decref(top);
}

static int write_result(struct scale *s, json_t *steps, json_t *tj, const char *status)
{
        json_t *top = build_result(s, steps, tj, status);
        char err[512];
        int rc = -ENOMEM;

        if (!top ||
            (json_is_true(json_object_get(top, "partial")) && res_mark_partial(top, status) < 0)) {
                log_error("scale: out of memory building the result");
                goto out;
        }
        rc = save(s, top, err, sizeof(err));
        if (rc < 0) {
                log_error("scale: %s", err);
                goto out;
        }
        printf("result: %s\n", s->path);
        if (res_index_register(s->path, err, sizeof(err)) < 0)
                log_warn("scale: not added to the run index: %s", err);
out:
        json_decref(top);
        return rc;
}

/* ---- the plan ------------------------------------------------------------------ */

/* A step of vms VMs, its histograms allocated. */
static int step_init(struct scale *s, struct scale_step *st, unsigned vms)
{
        st->vms = vms;
        st->vm_cpus = s->conf.spec.vm_cpus;
        if (!(st->lat = hist_new()))
                return -ENOMEM;
        for (unsigned v = 1; v <= st->vms; v++)
                if (!(st->vm[v].lat = hist_new()))
                        return -ENOMEM;
        for (unsigned d = 0; s->conf.load.on && d < 2; d++)
                if (!(st->load.lat[d] = hist_new()))
                        return -ENOMEM;
        return 0;
}

/* Room for every step the plan may take; a list's steps are set up now, a search's as it goes. */
static int alloc_steps(struct scale *s)
{
        const struct scale_plan *p = &s->conf.plan;

        s->steps = calloc(p->nslots, sizeof(*s->steps));
        if (!s->steps)
                return -ENOMEM;
        for (unsigned i = 0; !p->search && i < p->vms.n; i++)
                if (step_init(s, &s->steps[i], (unsigned)p->vms.v[i]) < 0)
                        return -ENOMEM;
        return 0;
}

static void free_steps(struct scale *s)
{
        for (unsigned i = 0; s->steps && i < s->conf.plan.nslots; i++) {
                hist_free(s->steps[i].lat);
                for (unsigned v = 1; v <= LAB_MAX_VMS; v++)
                        hist_free(s->steps[i].vm[v].lat);
                hist_free(s->steps[i].load.lat[0]);
                hist_free(s->steps[i].load.lat[1]);
                json_decref(s->steps[i].monitor);
                for (unsigned r = 0; r < SCALE_MAX_REPEAT; r++) {
                        free(s->steps[i].rep[r].iv_tps);
                        free(s->steps[i].rep[r].iv_t);
                }
        }
        free(s->steps);
}

static int check_backend(struct scale *s, char *err, size_t errlen)
{
        struct scale_plan *p = &s->conf.plan;
        unsigned have;

        if (s->lab.ops->can_start) /* it makes as many VMs as the plan asks */
                return 0;
        have = s->lab.ops->count(s->lab.b);
        if (p->search && !strcmp(s->conf.cfg.vms_spec, "auto") && have < p->max) {
                /* plain auto searches what the inventory has */
                p->cfg.max = p->max = have ? have : 1;
                p->nslots = search_max_steps(&p->cfg);
                s->max_runs = p->nslots * (unsigned)s->conf.cfg.repeat;
        }
        if (have < p->max) {
                snprintf(err, errlen,
                         "option --vms: the plan goes to %u VMs, the inventory lists %u", p->max,
                         have);
                return -EINVAL;
        }
        return 0;
}

static void print_step_row(struct scale *s, const struct scale_step *st)
{
        prog_clear(s->prog);
        scale_print_step(st, (unsigned)s->conf.cfg.repeat, &s->conf.load);
}

static int run_list(struct scale *s, char *err, size_t errlen)
{
        int rc = 0;

        for (unsigned k = 0; k < s->conf.plan.vms.n && !interrupted; k++) {
                rc = run_step(s, &s->steps[k], err, errlen);
                s->nsteps = k + 1;
                print_step_row(s, &s->steps[k]);
                save_progress(s);
                if (rc < 0 || should_stop(s, k))
                        break;
        }
        return rc;
}

static int by_vms(const void *a, const void *b)
{
        unsigned x = ((const struct scale_step *)a)->vms, y = ((const struct scale_step *)b)->vms;

        return x < y ? -1 : x > y;
}

/* The search's next count, from the valid steps as the tipping point reads
 * them (tip_json.h); 0 when the search is over or would measure a count again. */
static int next_count(struct scale *s, unsigned *vms, char *err, size_t errlen)
{
        struct res_tip_step *sv = NULL;
        json_t *raw = steps_json(s), *steps = raw ? res_as_written(raw) : NULL;
        struct res_tip t;
        unsigned n = 0;
        int rc = steps ? res_tip_of_steps(steps, &sv, &n, &t) : -ENOMEM;

        json_decref(raw);
        json_decref(steps);
        *vms = 0;
        if (rc < 0) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        *vms = search_next(&s->conf.plan.cfg, sv, n);
        free(sv);
        for (unsigned i = 0; *vms && i < s->nsteps; i++)
                if (s->steps[i].vms == *vms) /* a degraded step is not measured again */
                        *vms = 0;
        return 0;
}

/* --vms auto: the next count from the search, until it is over; the steps kept in VM order. */
static int run_search(struct scale *s, char *err, size_t errlen)
{
        struct scale_plan *p = &s->conf.plan;
        unsigned vms;
        int rc = 0;

        while (!interrupted && s->nsteps < p->nslots) {
                if ((rc = next_count(s, &vms, err, errlen)) < 0)
                        return rc;
                if (!vms)
                        break;
                struct scale_step *st = &s->steps[s->nsteps];

                if (step_init(s, st, vms) < 0) {
                        snprintf(err, errlen, "out of memory");
                        return -ENOMEM;
                }
                p->order[p->norder++] = vms;
                rc = run_step(s, st, err, errlen);
                s->nsteps++;
                print_step_row(s, st);
                if (rc >= 0 && over_slo(s, st))
                        rc = 1; /* st moves in the sort: read it first */
                qsort(s->steps, s->nsteps, sizeof(*s->steps), by_vms);
                save_progress(s);
                if (rc != 0)
                        break;
        }
        /* The table once more, in VM order, as any plan lists its steps. */
        printf("steps in VM order (measured in the order %u", p->order[0]);
        for (unsigned i = 1; i < p->norder; i++)
                printf(", %u", p->order[i]);
        printf("):\n");
        scale_print_header((unsigned)s->conf.cfg.repeat, s->conf.load.on);
        for (unsigned i = 0; i < s->nsteps; i++)
                print_step_row(s, &s->steps[i]);
        return rc < 0 ? rc : 0;
}

static int run_plan(struct scale *s, char *err, size_t errlen)
{
        scale_print_header((unsigned)s->conf.cfg.repeat, s->conf.load.on);
        return s->conf.plan.search ? run_search(s, err, errlen) : run_list(s, err, errlen);
}

static void teardown(struct scale *s)
{
        char err[512];

        if (s->conf.cfg.keep_lab) {
                printf("lab kept running (--keep-lab): hcisweep lab down --lab-dir %s\n",
                       s->conf.lab.lab_dir);
                return;
        }
        if (s->lab.ops->destroy(s->lab.b, 0, err, sizeof(err)) < 0 && s->lab.ops->can_start)
                log_error("scale: tearing the lab down: %s", err);
}

static int run_all(struct scale *s)
{
        struct res_tip t;
        json_t *steps = NULL, *tj = NULL;
        const char *status;
        char err[1024], why[256];
        int rc;

        rc = s->lab.ops->open(&s->conf.spec, &s->lab.b, err, sizeof(err));
        if (rc < 0) {
                log_error("scale: %s", err);
                return rc;
        }
        rc = check_backend(s, err, sizeof(err));
        if (!rc && !(s->watch.probe = scale_probe_new(s->conf.lab.lab_dir)))
                rc = -ENOMEM;
        if (!rc && (rc = alloc_steps(s)) < 0)
                snprintf(err, sizeof(err), "out of memory");
        if (!rc)
                rc = result_path(s, err, sizeof(err));
        if (!rc &&
            (rc = metrics_start(&s->watch.metrics, oltp_cli_opts(s->conf.oc)->metrics_listen, err,
                                sizeof(err))) == 0 &&
            s->watch.metrics && !(s->watch.live = oltp_live_new(s->watch.metrics)))
                rc = -ENOMEM;
        if (rc < 0) {
                log_error("scale: %s", err);
                goto out;
        }
        s->watch.mon = mon_start(1000, why, sizeof(why)); /* none: the result has no monitor */
        s->prog = prog_start(s->conf.plan_s);
        rc = run_plan(s, err, sizeof(err));
        prog_end(s->prog);
        s->prog = NULL;
        if (s->watch.mon)
                mon_stop(s->watch.mon);
        s->watch.mon_stopped = 1;
        if (rc < 0)
                log_error("scale: %s", err);
        tipping(s, &t, &steps, &tj);
        if (t.found)
                printf("tipping point: %g VMs, limited by %s: %s\n", t.load,
                       res_tip_limit_name(t.limited_by), t.reason);
        else if (s->conf.plan.search && !t.undecided)
                printf("tipping point: none within %u VMs, limited by none: %s\n", s->conf.plan.max,
                       t.reason);
        else
                printf("tipping point: %s, limited by none: %s\n",
                       t.undecided ? "undecided" : "none", t.reason);
        if (s->stop_reason[0])
                printf("stopped early: %s\n", s->stop_reason);
        print_not_met(s);
        status = interrupted         ? "interrupted"
                 : rc < 0            ? "failed"
                 : s->stop_reason[0] ? "stopped early"
                                     : "complete";
        if (s->nsteps && write_result(s, steps, tj, status) < 0 && !rc)
                rc = -EIO;
        json_decref(steps);
        json_decref(tj);
out:
        oltp_live_free(s->watch.live);
        s->watch.live = NULL;
        metrics_stop(s->watch.metrics);
        s->watch.metrics = NULL;
        teardown(s);
        s->lab.ops->close(s->lab.b);
        return rc;
}

/* ---- the plan, up front ---------------------------------------------------------- */

/* What the plan will do and how long it may take at worst (--dry-run, and before step one). */
static void print_plan(const struct scale *s, const struct oltp_engine_cfg *ec)
{
        const struct scale_plan *p = &s->conf.plan;
        char one[32], all[32];

        printf("plan:");
        for (unsigned i = 0; i < p->vms.n; i++)
                printf("%s%llu", i ? ", " : " ", (unsigned long long)p->vms.v[i]);
        if (p->search)
                printf(
                    " search up to %u VMs: doubling 1, 2, 4... until the tipping-point rule sees "
                    "the gain collapse, then bisecting until the tipping step's neighbours are "
                    "%u VM(s) away; at most %u steps,",
                    p->max, p->cfg.resolution, p->nslots);
        else
                printf(" VMs,");
        printf(" %lld run(s) per step\n", s->conf.cfg.repeat);
        if (ec->target_ci_pct > 0)
                printf(
                    "each run: warm-up until throughput is steady (at most %g s), measured until "
                    "the 95%% CI of its mean is within %g%% (at most %g s)\n",
                    oltp_engine_warmup_max(ec), ec->target_ci_pct, ec->time_s);
        else
                printf("each run: warm-up %g s, measured %g s\n", ec->warmup_s, ec->time_s);
        prog_fmt_duration(one, sizeof(one), s->run_max_s);
        prog_fmt_duration(all, sizeof(all), s->conf.plan_s);
        printf("worst case: %u run(s) of at most %s = %s, plus starting VMs and preparing "
               "tables\n",
               s->max_runs, one, all);
        fflush(stdout);
}

int cmd_scale_check_option(const char *name, const char *val, char *err, size_t errlen)
{
        struct scale_cfg *cfg = calloc(1, sizeof(*cfg));
        struct lab_cfg *lab = calloc(1, sizeof(*lab));
        struct opt_group g[4] = {{scale_opts, cfg, NULL}, {lab_opts, lab, NULL}, {0}, {0}};
        struct oltp_cli *oc = cfg && lab ? oltp_cli_new(&g[2]) : NULL;
        struct scale_load_spec sp;
        int rc = -ENOMEM;

        if (!oc) {
                snprintf(err, errlen, "out of memory");
                goto out;
        }
        rc = opt_defaults(g, err, errlen);
        if (!rc)
                rc = opt_set(g, name, val, err, errlen);
        if (!rc && !strcmp(name, "vms")) {
                struct scale_plan p;

                rc = parse_plan(cfg->vms_spec, 1, &p, err, errlen);
        }
        if (!rc && cfg->block_load)
                rc = scale_load_parse(cfg->block_load, &sp, err, errlen);
        opt_free(g);
out:
        oltp_cli_free(oc);
        free(lab);
        free(cfg);
        return rc;
}

int cmd_scale(int argc, char **argv)
{
        struct scale *s = calloc(1, sizeof(*s));
        struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
        struct oltp_engine_cfg ec;
        struct oltp_prep_cfg pc;
        char err[1024];
        int rc;

        if (!s) {
                log_error("scale: out of memory");
                return HCI_EXIT_TARGET;
        }
        signal(SIGPIPE, SIG_IGN);
        rc = parse(s, argc, argv, err, sizeof(err));
        if (rc == 1) {
                rc = HCI_EXIT_OK;
                goto out;
        }
        if (rc < 0) {
                log_error("%s", err);
                rc = HCI_EXIT_USAGE;
                goto out;
        }
        oltp_cli_cfg(s->conf.oc, s->lab.dsn, 1, 1, &ec, &pc);
        s->run_max_s = oltp_engine_max_s(&ec);
        s->max_runs = s->conf.plan.nslots * (unsigned)s->conf.cfg.repeat;
        s->conf.plan_s = s->max_runs * s->run_max_s;
        print_plan(s, &ec);
        if (s->conf.cfg.dry_run) {
                rc = HCI_EXIT_OK;
                goto out;
        }
        if (ec.ops->lib_init()) {
                log_error("scale: cannot initialise the %s client library", ec.ops->name);
                rc = HCI_EXIT_TARGET;
                goto out;
        }
        interrupted = 0;
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        rc = run_all(s);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        ec.ops->lib_end();
        rc = interrupted ? HCI_EXIT_INTERRUPTED : rc < 0 ? exit_of(rc) : HCI_EXIT_OK;
out:
        free_dsns(s);
        free_steps(s);
        scale_probe_free(s->watch.probe);
        mon_free(s->watch.mon);
        opt_free(s->conf.g);
        oltp_cli_free(s->conf.oc);
        free(s);
        return rc;
}
