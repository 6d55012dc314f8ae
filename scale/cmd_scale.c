/*
 * cmd_scale.c - `hcisweep scale`, the step loop: step the number of database VMs up through a
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/exitcode.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/progress.h"
#include "core/resfile.h"
#include "oltp/prepare.h"
#include "scale/live.h"
#include "scale/cmd_scale.h"
#include "scale/scale_drivers.h"
#include "scale/scale_run.h"

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

/* ---- one measured run ------------------------------------------------------ */

static void open_window(struct scale *s)
{
        scale_probe_take(s->watch.probe, &s->run.snap0);
        lab_cluster_begin(s->watch.cluster);
        s->run.t0 = s->run.snap0.t_ns;
        s->run.window_open = 1;
        s->run.step->rep[s->run.rep].win_start_ms = clk_real_ms();
        scale_load_measure(s->watch.ld);
}

static void on_tick(void *user, double done_s)
{
        struct scale *s = user;

        if (!s->run.window_open && done_s >= s->run.warmup_s) {
                open_window(s);
                /* the engine measures from the end of its warm-up; the tick that saw it came up
                 * to a tick (250 ms) later: the window starts where the engine's time does */
                s->run.step->rep[s->run.rep].win_start_ms -=
                    (int64_t)((done_s - s->run.warmup_s) * 1000);
        }
        s->run.done_s = done_s;
        prog_update(s->prog, s->done_s + done_s, "%u VMs, run %u/%lld%s%s", s->run.step->vms,
                    s->run.rep + 1, s->conf.cfg.repeat, s->run.window_open ? "" : ", warming up",
                    s->run.ci);
}

/* The drivers' run ticks as the engine does (scale_drivers.h). */
static void tick_run(struct scale *s, double done_s)
{
        on_tick(s, done_s);
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

/* --target-ci: the rule opened the measured window, closed it, and says how long is left.
 * The block load is told both at once (scale_load.h), so one window measures both. */
static void on_steady(void *user, enum steady_phase ph, const struct steady_res *r, double left_s)
{
        struct scale *s = user;
        struct scale_rep *rep = &s->run.step->rep[s->run.rep];

        if (!s->run.window_open && ph != STEADY_WARMUP) {
                open_window(s);
                rep->niv = 0; /* intervals from here on */
        }
        if (ph == STEADY_DONE && !rep->win_end_ms) { /* the drivers were told to stop now */
                rep->win_end_ms = clk_real_ms();
                scale_load_stop(s->watch.ld);
        }
        if (r->ci_pct >= 0 && ph != STEADY_WARMUP)
                snprintf(s->run.ci, sizeof(s->run.ci), ", CI %.1f%%", r->ci_pct);
        prog_total(s, s->run.done_s + left_s);
}

/* The drivers' rule reports as the engine's does (scale_drivers.h). */
static void steady_run(struct scale *s, enum steady_phase ph, const struct steady_res *r,
                       double left_s)
{
        on_steady(s, ph, r, left_s);
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
 * This host's CPU over the step's window (set NULL: every CPU), measured
 * once: from the cluster's two reads of it when it is a cluster host (the
 * same window as its cluster figures), else from the monitor's samples.
 * Returns how many CPUs it covers (0: none).
 */
static unsigned step_cpu(const struct scale *s, const struct mon *m, uint64_t t1,
                         const cpu_set_t *set, struct mon_cpu *out)
{
        struct hostsrc_cpu p;
        int n = lab_cluster_local_cpu(s->watch.cluster, set, &p);

        if (n > 0) {
                *out = (struct mon_cpu){.user = p.user,
                                        .nice = p.nice,
                                        .system = p.system,
                                        .iowait = p.iowait,
                                        .irq = p.irq,
                                        .softirq = p.softirq,
                                        .steal = p.steal,
                                        .idle = p.idle};
                return (unsigned)n;
        }
        if (set)
                return mon_cpus_between(m, s->run.t0, t1, set, out);
        mon_cpu_between(m, s->run.t0, t1, out);
        return 1;
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
            !step_cpu(s, m, t1, &set, &r->compute_cpu))
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
        r->warm_ms = clk_real_ms();
        r->win_start_ms = r->win_end_ms = 0;
        /* With --target-ci no one knows the run's length up front: the block
         * load warms up until the OLTP window opens, then runs until the
         * rule closes it (on_steady), or at the latest until the OLTP run ends. */
        if (s->watch.ld &&
            (rc = scale_load_start(s->watch.ld,
                                   ec.target_ci_pct > 0 ? oltp_engine_warmup_max(&ec) : ec.warmup_s,
                                   ec.time_s, ec.target_ci_pct > 0, err, errlen)) < 0)
                return rc;
        m = mon_start(500, why, sizeof(why));
        if (s->run.warmup_s <= 0)
                open_window(s);
        if (s->conf.cfg.driver_placement)
                scale_live_vms_run(s->watch.vlive, st->vms);
        if (s->conf.cfg.driver_placement)
                rc = scale_drivers_run(
                    s, st, r, &ec,
                    &(struct scale_drivers_cb){open_window, tick_run, steady_run, &interrupted},
                    &res, err, errlen);
        else
                rc = oltp_engine_run(&ec, &res, err, errlen);
        if (!s->run.window_open)
                open_window(s);
        if (!r->win_end_ms) /* the rule's stop closed it earlier (on_steady) */
                r->win_end_ms = clk_real_ms();
        scale_probe_take(s->watch.probe, &snap1);
        r->hosts_missed =
            lab_cluster_end(s->watch.cluster, &st->hosts, r->host_error, sizeof(r->host_error));
        if (r->hosts_missed == -ENOMEM)
                return -ENOMEM;
        if (r->hosts_missed > 0)
                log_warn("scale: %u VMs: %s", st->vms, r->host_error);
        if (s->watch.ld && scale_load_finish(s->watch.ld, &st->load, &r->load_iops) < 0)
                log_warn("scale: %u VMs: %s", st->vms, st->load.error);
        if (m) {
                mon_stop(m);
                step_cpu(s, m, snap1.t_ns, NULL, &r->cpu); /* one CPU window per step */
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
        lab_cluster_local_swap(s->watch.cluster, &r->rates.swap_pages); /* the host's, read once */
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

static void step_state(struct scale *s, struct scale_step *st)
{
        struct lab_vm_stats vs;
        char ignored[256]; /* not reported: not alive; never the step's error */

        for (unsigned r = 0; r < st->nrep; r++) {
                if (st->rep[r].lost && st->state < SCALE_DEGRADED) {
                        st->state = SCALE_DEGRADED;
                        snprintf(st->error, sizeof(st->error), "%s", st->rep[r].error);
                }
                if (st->rep[r].hosts_missed > 0 && st->state < SCALE_DEGRADED) {
                        st->state = SCALE_DEGRADED;
                        snprintf(st->error, sizeof(st->error), "%s", st->rep[r].host_error);
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
        if (!rc && s->conf.cfg.driver_placement) /* in each VM, as its OLTP driver */
                rc = scale_load_open_vms(&s->watch.ld, &s->conf.load, s->lab.ops, s->lab.b, n, err,
                                         errlen);
        else if (!rc)
                rc = scale_load_open(&s->watch.ld, &s->conf.load, urls, n, err, errlen);
        free(ep);
        return rc;
}

/* The step's summary onto the live metrics endpoint (live.h). */
static void live_step_done(struct scale *s, const struct scale_step *st)
{
        const struct scale_rates *r = &st->rates;
        struct scale_live_step ls = {.vms = st->vms, .tps = st->tps, .vms_cpu_pct = -1};

        if (!s->watch.metrics)
                return;
        for (unsigned i = 1; i <= st->vms; i++)
                if (r->vm_cpu_pct[i] >= 0)
                        ls.vms_cpu_pct =
                            (ls.vms_cpu_pct < 0 ? 0 : ls.vms_cpu_pct) + r->vm_cpu_pct[i];
        ls.storage_cpu_pct = r->tgt_cpu_pct;
        ls.host_cpu_pct = scale_cpu_busy(&st->cpu) * (double)sysconf(_SC_NPROCESSORS_ONLN);
        scale_live_step_done(s->watch.metrics, &ls, (unsigned)(st - s->steps) + 1);
}

static int run_step(struct scale *s, struct scale_step *st, char *err, size_t errlen)
{
        int rc = scale_step_up(s, st->vms, err, errlen);

        oltp_live_step(s->watch.live, st->vms);
        if (!rc && s->conf.load.on)
                rc = open_load(s, st->vms, err, errlen);
        if (rc < 0) {
                st->state = SCALE_FAILED;
                snprintf(st->error, sizeof(st->error), "%s", err);
                scale_save_consoles(s, st);
                return rc;
        }
        for (long long r = 0; !rc && !interrupted && r < s->conf.cfg.repeat; r++)
                rc = run_once(s, st, err, errlen);
        scale_load_close(s->watch.ld);
        s->watch.ld = NULL;
        scale_summarise(st);
        step_state(s, st);
        live_step_done(s, st);
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

/* The answer: the verdict (tip_verdict.h), with --explain its evidence. */
static void print_verdict(const struct scale *s, const struct res_verdict *v)
{
        for (unsigned i = 0; i < v->nlines; i++)
                printf("%s\n", v->line[i]);
        if (s->conf.cfg.explain)
                res_verdict_print_table(v, stdout, 2);
}

/* --vms auto: what was searched, and the order the counts were measured in. */
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
                scale_save_progress(s);
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
        json_t *raw = scale_steps_json(s), *steps = raw ? res_as_written(raw) : NULL;
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

                if (scale_step_init(s, st, vms) < 0) {
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
                scale_save_progress(s);
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
        struct res_verdict v;
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
        rc = scale_check_backend(s, err, sizeof(err));
        /* a driver's host that refuses our key, or runs another version, is found now */
        if (!rc && s->conf.cfg.driver_placement && s->lab.ops->driver_check)
                rc = s->lab.ops->driver_check(s->lab.b, s->conf.plan.max, err, sizeof(err));
        if (!rc && !(s->watch.probe = scale_probe_new(s->conf.lab.lab_dir)))
                rc = -ENOMEM;
        if (!rc)
                rc = lab_cluster_open(&s->watch.cluster, s->lab.ops, s->lab.b, &s->conf.spec,
                                      s->conf.cfg.metrics_optional, err, sizeof(err));
        if (!rc)
                lab_cluster_print(s->watch.cluster);
        if (!rc && (rc = scale_alloc_steps(s)) < 0)
                snprintf(err, sizeof(err), "out of memory");
        if (!rc)
                rc = res_save_mkdir(&s->save, err, sizeof(err));
        if (!rc &&
            (rc = metrics_start(&s->watch.metrics, oltp_cli_opts(s->conf.oc)->metrics_listen, err,
                                sizeof(err))) == 0 &&
            s->watch.metrics &&
            (!(s->watch.live = oltp_live_new(s->watch.metrics)) ||
             (s->conf.cfg.driver_placement &&
              !(s->watch.vlive = scale_live_vms_new(s->watch.metrics)))))
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
        scale_tipping(s, &t, &v, &steps, &tj);
        print_verdict(s, &v);
        if (s->stop_reason[0])
                printf("stopped early: %s\n", s->stop_reason);
        scale_print_unsettled(s->steps, s->nsteps, s->conf.warmup_max_s, s->conf.time_s,
                              s->conf.target_ci_pct);
        status = interrupted         ? "interrupted"
                 : rc < 0            ? "failed"
                 : s->stop_reason[0] ? "stopped early"
                                     : "complete";
        if (s->nsteps && scale_write_result(s, steps, tj, status) < 0)
                s->save_failed = 1;
        json_decref(steps);
        json_decref(tj);
out:
        oltp_live_free(s->watch.live);
        s->watch.live = NULL;
        scale_live_vms_free(s->watch.vlive);
        s->watch.vlive = NULL;
        metrics_stop(s->watch.metrics);
        s->watch.metrics = NULL;
        teardown(s);
        lab_cluster_close(s->watch.cluster); /* a source may hold the backend's connection */
        s->watch.cluster = NULL;
        s->lab.ops->close(s->lab.b);
        return rc;
}

int cmd_scale(int argc, char **argv)
{
        struct scale *s = calloc(1, sizeof(*s));
        struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term,
                         ign = {.sa_handler = SIG_IGN};
        struct oltp_engine_cfg ec;
        struct oltp_prep_cfg pc;
        char err[1024];
        int rc;

        if (!s) {
                log_error("scale: out of memory");
                return HCI_EXIT_TARGET;
        }
        sigemptyset(&ign.sa_mask);
        sigaction(SIGPIPE, &ign, NULL);
        rc = scale_parse(s, argc, argv, err, sizeof(err));
        s->conf.spec.cancel = &interrupted; /* Ctrl-C during a VM's boot ends the wait */
        if (rc == 1) {
                rc = HCI_EXIT_OK;
                goto out;
        }
        if (!rc && (rc = scale_check_run(s, err, sizeof(err))) < 0 && rc != -EINVAL) {
                log_error("scale: %s", err);
                rc = exit_of(rc);
                goto out;
        }
        if (rc < 0) {
                log_error("%s", err);
                rc = HCI_EXIT_USAGE;
                goto out;
        }
        oltp_cli_cfg(s->conf.oc, s->lab.dsn, 1, 1, &ec, &pc);
        s->run_max_s = oltp_engine_max_s(&ec);
        s->conf.warmup_max_s = oltp_engine_warmup_max(&ec);
        s->conf.time_s = ec.time_s;
        s->conf.target_ci_pct = ec.target_ci_pct;
        s->max_runs = s->conf.plan.nslots * (unsigned)s->conf.cfg.repeat;
        s->conf.plan_s = s->max_runs * s->run_max_s;
        scale_print_plan(s, &ec);
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
        /* a result that could not be written says so first, as every command does */
        rc = s->save_failed ? HCI_EXIT_OUTPUT
             : interrupted  ? HCI_EXIT_INTERRUPTED
             : rc < 0       ? exit_of(rc)
                            : HCI_EXIT_OK;
out:
        scale_free_dsns(s);
        scale_free_steps(s);
        scale_probe_free(s->watch.probe);
        lab_cluster_close(s->watch.cluster);
        mon_free(s->watch.mon);
        opt_free(s->conf.g);
        oltp_cli_free(s->conf.oc);
        free(s);
        return rc;
}
