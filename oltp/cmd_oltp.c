/*
 * cmd_oltp.c - `hcisweep oltp prepare|run|cleanup`: parsing (the options of
 * oltpopts.h), dispatch, the run's report and its result file.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/exitcode.h"
#include "core/hostport.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/monitor.h"
#include "core/opts.h"
#include "core/progress.h"
#include "core/resfile.h"
#include "results/save.h"
#include "oltp/driver.h"
#include "oltp/drvside.h"
#include "oltp/engine.h"
#include "oltp/live.h"
#include "oltp/merge.h"
#include "oltp/oltp.h"
#include "oltp/oltpopts.h"
#include "oltp/prepare.h"
#include "oltp/report.h"

/* Options of `oltp` alone, not shared with scale's oltp group. */
struct merge_opts {
        int merge;
        int start_on_go;
        int result_stdout;
        char *ready_file, *go_file, *result_hosts;
        int password_stdin;
        int steady_remote;
        int live_intervals;
};

static const struct opt_def merge_opt_defs[] = {
    {"merge", OPT_BOOL, offsetof(struct merge_opts, merge), "0", 0, 0,
     "oltp run --merge A.json B.json...: merge oltp results into one (oltp/merge.h), no run", NULL,
     0},
    {"start-on-go", OPT_BOOL, offsetof(struct merge_opts, start_on_go), "0", 0, 0,
     "connect and prepare, print \"hcisweep-driver ready\", start on a \"go\" line on stdin "
     "(scale's drivers)",
     NULL, OPT_F_HIDDEN},
    {"result-stdout", OPT_BOOL, offsetof(struct merge_opts, result_stdout), "0", 0, 0,
     "the result on stdout after a \"" OLTP_DRIVER_RESULT "\" line, no file (scale's drivers)",
     NULL, OPT_F_HIDDEN},
    {"ready-file", OPT_STR, offsetof(struct merge_opts, ready_file), NULL, 0, 0,
     "with --go-file: also say ready by creating this file (a driver in a guest, whose stdout "
     "is read only once it exits)",
     NULL, OPT_F_HIDDEN | OPT_F_PATH},
    {"go-file", OPT_STR, offsetof(struct merge_opts, go_file), NULL, 0, 0,
     "with --start-on-go: start when this file appears instead of on a \"go\" line (a driver "
     "in a guest, whose stdin is not live)",
     NULL, OPT_F_HIDDEN | OPT_F_PATH},
    {"result-hosts", OPT_STR, offsetof(struct merge_opts, result_hosts), NULL, 0, 0,
     "name the result's hosts[] so, one HOST:PORT per --mysql-host (a driver in a guest reaches "
     "its server at the guest's own address; its controller knows it by another)",
     NULL, OPT_F_HIDDEN | OPT_F_LIST},
    {"mysql-password-stdin", OPT_BOOL, offsetof(struct merge_opts, password_stdin), "0", 0, 0,
     "the password is the first line of stdin, before anything else (scale's drivers)", NULL,
     OPT_F_HIDDEN},
    {"steady-remote", OPT_BOOL, offsetof(struct merge_opts, steady_remote), "0", 0, 0,
     "with --start-on-go: print a throughput sample every 0.5 s, end the warm-up on a "
     "\"" DRIVER_LINE_MEASURE "\" line and the run on a \"" DRIVER_LINE_STOP "\" line on stdin "
     "(scale's --target-ci decides on its drivers' merged series)",
     NULL, OPT_F_HIDDEN},
    {"live-intervals", OPT_BOOL, offsetof(struct merge_opts, live_intervals), "0", 0, 0,
     "with --start-on-go: every report interval as a \"" DRIVER_LINE_SAMPLE "\" line "
     "(transactions, errors, latency buckets) for scale's --metrics-listen",
     NULL, OPT_F_HIDDEN},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0}};

/* The options as documentation (cfg NULL): the man page and completion read them. */
const struct opt_group cmd_oltp_options[] = {
    {oltp_opt_defs, NULL, "oltp options"}, {merge_opt_defs, NULL, NULL}, {NULL, NULL, NULL}};

#define MERGE_MAX 256 /* result files one --merge takes */

static const char usage_line[] =
    "hcisweep oltp prepare|run|cleanup [options]\n"
    "  sysbench-style OLTP against one or many MySQL/MariaDB servers.\n"
    "  The password comes from --mysql-password-file, MYSQL_PWD or an option file\n"
    "  (--mysql-defaults-file, else ~/.my.cnf): never needed on the command line.\n"
    "  Exit 1 means an SQL error; exit 3 a server unreachable, refused, or lost and still\n"
    "  down at the end. The result is saved every 5 s while running and marked\n"
    "  \"partial\": true when the run did not end normally.\n"
    "  oltp run --merge A.json B.json... runs nothing: it merges results of oltp run\n"
    "  (totals summed, histograms bucket by bucket, intervals aligned by time, hosts[]\n"
    "  kept) and saves and prints the merged result like a run's; exit 2 names an input\n"
    "  that is not an oltp result or does not match the first one.";

#define OLTP_SAVE_EVERY_S 5 /* a running result is saved this often, marked partial */

struct ctx {
        struct oltp_cli *c;
        const struct oltp_opts *o;
        struct oltp_report *rep;
        struct progress *prog;
        struct oltp_live *live;   /* --metrics-listen, or NULL */
        const char *metrics_addr; /* as bound, or NULL */
        struct opt_group g[3];
        struct res_save save; /* where the result goes (results/save.h) */
        struct merge_opts m;
        char *files[MERGE_MAX]; /* --merge's inputs */
        int nfiles;
        struct oltp_dsn *names; /* --result-hosts, one per host, or NULL */
        struct drvside ds;      /* --start-on-go: the driver's side (drvside.h) */
};

static int do_prepare(struct ctx *x, int cleanup)
{
        struct oltp_prep_cfg p;
        char err[600];
        int rc;

        oltp_cli_prep_cfg(x->c, &p);
        rc = cleanup ? oltp_cleanup(&p, err, sizeof(err)) : oltp_prepare(&p, err, sizeof(err));
        if (rc) {
                log_error("oltp %s: %s", cleanup ? "cleanup" : "prepare", err);
                return HCI_EXIT_TARGET;
        }
        return HCI_EXIT_OK;
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
        (void)sig;
        got_signal = 1;
        oltp_engine_request_stop();
}

/* The driver's side of the protocol (drvside.h), as the engine's callbacks. */
static int on_ready(void *user)
{
        return drvside_ready(&((struct ctx *)user)->ds);
}

static void on_sample(void *user, double since_go_s, uint64_t done)
{
        drvside_sample(&((struct ctx *)user)->ds, since_go_s, done);
}

static enum steady_phase remote_phase(void *user)
{
        return drvside_phase(&((struct ctx *)user)->ds);
}

/* The result object of res (save.h marks it partial). NULL on ENOMEM. */
static json_t *result_json(struct ctx *x, struct oltp_report *rep, const struct oltp_result *res,
                           struct mon *mon)
{
        json_t *cfg = opt_to_json(x->g), *top = cfg ? res_new("oltp", cfg) : NULL;
        unsigned nhosts;

        json_decref(cfg);
        if (top && ((mon && json_object_set_new(top, "monitor", mon_to_json(mon))) ||
                    (x->metrics_addr &&
                     json_object_set_new(top, "metrics_address", json_string(x->metrics_addr))) ||
                    oltp_report_json(rep, res, x->names ? x->names : oltp_cli_hosts(x->c, &nhosts),
                                     top))) {
                json_decref(top);
                top = NULL;
        }
        return top;
}

/*
 * Every few seconds the figures so far are saved, marked partial, so a
 * killed run keeps what it measured; the final save replaces them.
 */
static void on_checkpoint(void *user, const struct oltp_result *so_far)
{
        struct ctx *x = user;
        char why[96];
        json_t *top;

        if (x->save.to_stdout) {
                /* nothing to save until the end: the driver's log shows it is measuring */
                fprintf(stderr, "oltp: %.0f s measured, %llu transaction(s) so far\n",
                        so_far->seconds, (unsigned long long)so_far->total.txns);
                return;
        }
        snprintf(why, sizeof(why), "running: saved at %.0f s, the run had not ended",
                 so_far->seconds);
        top = result_json(x, x->rep, so_far, NULL);
        if (!top)
                log_warn("oltp: saving the result so far: out of memory");
        else
                res_save_progress(&x->save, top, why);
        json_decref(top);
}

/* 0, or -errno when the result could not be written (the last checkpoint stays). */
static int write_json(struct ctx *x, struct oltp_report *rep, const struct oltp_result *res,
                      struct mon *mon, const char *why)
{
        json_t *top = result_json(x, rep, res, mon);
        int rc;

        drvside_result_cpu(&x->ds); /* the driver's own CPU, on its result line */
        if (!top) {
                log_error("oltp: out of memory writing the result");
                return -ENOMEM;
        }
        rc = res_save_final(&x->save, top, why, 0);
        json_decref(top);
        return rc;
}

/*
 * Hosts that lost connections are named on screen; one still down at the
 * end makes the run exit 3 (partial), like one down past the budget.
 * Returns the partial reason for that case, in buf, else NULL.
 */
static const char *flag_hosts(struct ctx *x, const struct oltp_result *res, char *buf, size_t len)
{
        unsigned nhosts;
        const struct oltp_dsn *hosts = oltp_cli_hosts(x->c, &nhosts);
        const char *why = NULL;

        for (unsigned h = 0; h < res->nhosts && h < nhosts; h++) {
                const struct oltp_host_result *r = &res->hosts[h];

                if (!oltp_host_degraded(r))
                        continue;
                log_warn("oltp: host %s:%u degraded: connections down %.1f s of %.1f s measured, "
                         "%llu failed reconnect(s), %llu reconnect(s)%s",
                         hosts[h].host, hosts[h].port, r->down_s, res->window_s,
                         (unsigned long long)r->c.failed_connects,
                         (unsigned long long)r->c.reconnects,
                         r->down_at_end ? ", still down at the end" : "");
                if (r->down_at_end && !why) {
                        snprintf(buf, len, "%s:%u unreachable at the end of the run (down %.1f s)",
                                 hosts[h].host, hosts[h].port, r->down_s);
                        why = buf;
                }
        }
        return why;
}

/* The report, the result file and the exit code of a run that ended. */
static int finish(struct ctx *x, struct oltp_report *rep, const struct oltp_result *res,
                  struct mon *mon)
{
        int measured = res->seconds > 0 || res->total.txns;
        char lost[320];
        const char *down, *why;
        int rc;

        if (measured)
                oltp_report_final(rep, res);
        down = flag_hosts(x, res, lost, sizeof(lost));
        if (oltp_rate_overloaded(res, oltp_cli_opts(x->c)->rate))
                log_warn("oltp: overloaded: reached %.1f of %g TPS, %llu arrival(s) dropped from "
                         "a full queue (more --threads, or a lower --rate)",
                         res->seconds > 0 ? (double)res->total.txns / res->seconds : 0.0,
                         oltp_cli_opts(x->c)->rate, (unsigned long long)res->queue_overflows);
        why = res->exit_code ? res->err : res->interrupted ? "interrupted" : down;
        rc = res->exit_code     ? res->exit_code
             : res->interrupted ? HCI_EXIT_INTERRUPTED
             : down             ? HCI_EXIT_TARGET
                                : HCI_EXIT_OK;
        if (measured && write_json(x, rep, res, mon, why))
                return res_save_exit(-EIO);
        if (why && rc != HCI_EXIT_INTERRUPTED)
                log_error("oltp run: %s", why);
        return rc;
}

/* Rows a run without --report-interval keeps at most (an hour of seconds). */
#define OLTP_DEFAULT_ROWS 3600.0

/*
 * Without --report-interval the result still holds intervals, so `report`,
 * `compare` and `analyze` can draw a default run (and the metrics endpoint
 * has its interval): one a second, longer for runs past an hour so the rows
 * stay at most OLTP_DEFAULT_ROWS.
 */
static double default_interval(double time_s)
{
        return time_s > OLTP_DEFAULT_ROWS ? ceil(time_s / OLTP_DEFAULT_ROWS) : 1.0;
}

/* The progress line lives on stderr (terminals only); interval lines clear it first. */
static void on_interval(void *user, const struct oltp_interval *iv)
{
        struct ctx *x = user;

        oltp_live_interval(x->live, iv);
        if (x->m.live_intervals)
                drvside_interval(&x->ds, iv);
        if (x->o->report_interval <= 0) {
                oltp_report_keep(x->rep, iv); /* kept for report/compare/analyze, not printed */
                return;
        }
        prog_clear(x->prog);
        oltp_report_interval(x->rep, iv);
}

static void on_tick(void *user, double done_s)
{
        struct ctx *x = user;

        drvside_tick(&x->ds);
        if (x->o->time > 0)
                prog_update(x->prog, done_s, "%s, %lld connections", oltp_wl_names[x->o->workload],
                            x->o->threads);
}

static void print_header(struct ctx *x)
{
        unsigned nhosts;

        oltp_cli_hosts(x->c, &nhosts);
        printf("hcisweep %s oltp: %s, %lld connection(s) over %u host(s)\n", HCISWEEP_VERSION,
               oltp_wl_names[x->o->workload], x->o->threads, nhosts);
        if (x->o->rate > 0)
                printf("Target transaction rate: %g/sec\n", x->o->rate);
        if (x->o->report_interval > 0)
                printf("Report intermediate results every %g second(s)\n", x->o->report_interval);
        printf("\n");
        fflush(stdout);
}

static int run_engine(struct ctx *x)
{
        double pcts[PARSE_LIST_MAX];
        unsigned np = x->o->percentile.n;
        struct oltp_engine_cfg ec;
        struct oltp_result res;
        struct oltp_report *rep;
        struct mon *mon;
        struct metrics *metrics = NULL;
        char err[512];
        int rc;

        for (unsigned i = 0; i < np; i++)
                pcts[i] = opt_dlist_get(&x->o->percentile, i);
        rep = oltp_report_new(stdout, pcts, np, x->o->rate);
        if (!rep) {
                log_error("oltp: out of memory");
                return HCI_EXIT_TARGET;
        }
        mon = mon_start(1000, err, sizeof(err));
        if (mon)
                mon_watch_pid(mon, getpid(), "hcisweep");
        oltp_cli_engine_cfg(x->c, &ec);
        ec.on_interval = on_interval;
        ec.on_tick = x->o->time > 0 || x->m.start_on_go ? on_tick : NULL;
        ec.on_checkpoint = on_checkpoint;
        ec.checkpoint_s = OLTP_SAVE_EVERY_S;
        ec.on_ready = on_ready;
        if (x->m.steady_remote) {
                ec.on_sample = on_sample;
                ec.remote_phase = remote_phase;
        }
        ec.user = x;
        if ((rc = metrics_start(&metrics, x->o->metrics_listen, err, sizeof(err))) < 0) {
                log_error("oltp run: %s", err);
                rc = HCI_EXIT_USAGE;
                goto out;
        }
        x->metrics_addr = metrics_address(metrics);
        if (metrics && !(x->live = oltp_live_new(metrics))) {
                log_error("oltp: out of memory");
                rc = HCI_EXIT_TARGET;
                goto out;
        }
        if (ec.report_s <= 0)
                ec.report_s = default_interval(x->o->time);
        if (x->m.result_stdout)
                res_save_open_stdout(&x->save, "oltp", drvside_result_marker(&x->ds));
        else if (res_save_open(&x->save, "oltp", "oltp", x->o->json, x->o->output_dir, err,
                               sizeof(err)) < 0) {
                log_error("oltp run: %s", err);
                rc = HCI_EXIT_USAGE;
                goto out;
        }
        print_header(x);
        x->rep = rep;
        x->prog = prog_start(oltp_engine_max_s(&ec));
        rc = oltp_engine_run(&ec, &res, err, sizeof(err));
        drvside_end(&x->ds);
        prog_end(x->prog);
        x->prog = NULL;
        if (mon)
                mon_stop(mon);
        if (rc) {
                log_error("oltp run: %s", err);
                rc = HCI_EXIT_TARGET;
                goto out;
        }
        rc = finish(x, rep, &res, mon);
        oltp_result_free(&res);
out:
        oltp_live_free(x->live);
        x->live = NULL;
        metrics_stop(metrics);
        mon_free(mon);
        oltp_report_free(rep);
        return rc;
}

static int do_run(struct ctx *x)
{
        /* SA_RESTART, as signal() gave: the clients' reads and writes are not cut short. */
        struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART}, old_int, old_term;
        char err[512];
        int rc;

        if (x->o->time <= 0 && x->o->events <= 0) {
                log_error("oltp run: --time and --events are both 0: the run would never end");
                return HCI_EXIT_USAGE;
        }
        if (oltp_cli_workload(x->c, err, sizeof(err)) < 0) {
                log_error("oltp run: %s", err);
                return HCI_EXIT_USAGE;
        }
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        rc = run_engine(x);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        return rc;
}

/* The merged result: the first input's config, its threads the inputs' summed. */
static json_t *merged_json(const struct oltp_merge *m)
{
        json_t *cfg = json_deep_copy(oltp_merge_config(m)),
               *top = cfg ? res_new("oltp", cfg) : NULL;

        if (top && (oltp_merge_json(m, top) ||
                    json_object_set(cfg, "threads", json_object_get(top, "threads")))) {
                json_decref(top);
                top = NULL;
        }
        json_decref(cfg);
        return top;
}

/* oltp run --merge: read every input (exit 2 naming a bad one), print and save the merge. */
static int do_merge(struct ctx *x)
{
        struct oltp_merge *m = oltp_merge_new();
        struct oltp_report *rep = NULL;
        struct oltp_result res;
        const double *pcts;
        unsigned np;
        json_t *top = NULL;
        char err[1200];
        int rc = HCI_EXIT_USAGE;

        if (!m)
                goto oom;
        for (int i = 0; i < x->nfiles; i++)
                if (oltp_merge_add_file(m, x->files[i], err, sizeof(err))) {
                        log_error("oltp run --merge: %s", err);
                        goto out;
                }
        if (x->m.result_stdout)
                res_save_open_stdout(&x->save, "oltp", OLTP_DRIVER_RESULT);
        else if (res_save_open(&x->save, "oltp", "oltp", x->o->json, x->o->output_dir, err,
                               sizeof(err)) < 0) {
                log_error("oltp run: %s", err);
                goto out;
        }
        pcts = oltp_merge_pcts(m, &np);
        oltp_merge_result(m, &res);
        if (!(rep = oltp_report_new(stdout, pcts, np, 0)) || !(top = merged_json(m)))
                goto oom;
        printf("hcisweep %s oltp: %u results merged, %llu transaction(s) over %u host(s)\n\n",
               HCISWEEP_VERSION, oltp_merge_count(m), (unsigned long long)res.total.txns,
               res.nhosts);
        oltp_report_final(rep, &res);
        printf("Merged TPS (the inputs' summed): %.2f\n", oltp_merge_tps(m));
        fflush(stdout);
        rc = res_save_exit(res_save_final(&x->save, top, oltp_merge_partial(m), 0));
        goto out;
oom:
        log_error("oltp run --merge: out of memory");
        rc = HCI_EXIT_OUTPUT;
out:
        json_decref(top);
        oltp_report_free(rep);
        oltp_merge_free(m);
        return rc;
}

static int dispatch(struct ctx *x, const char *sub)
{
        struct oltp_engine_cfg ec;
        const struct oltp_driver_ops *ops;
        int rc;

        if (x->m.merge)
                return do_merge(x);
        oltp_cli_engine_cfg(x->c, &ec);
        ops = ec.ops;

        if (ops->lib_init()) {
                log_error("oltp: cannot initialise the %s client library", ops->name);
                return HCI_EXIT_TARGET;
        }
        if (!strcmp(sub, "prepare"))
                rc = do_prepare(x, 0);
        else if (!strcmp(sub, "cleanup"))
                rc = do_prepare(x, 1);
        else
                rc = do_run(x);
        ops->lib_end();
        return rc;
}

/* oltp run --merge FILE...: two inputs at least; only the output options apply. */
static int parse_merge(struct ctx *x, char **pos, int npos)
{
        char err[512];

        if (strcmp(pos[0], "run")) {
                log_error("oltp: option --merge: only with oltp run");
                return HCI_EXIT_USAGE;
        }
        if (npos < 3) {
                log_error("oltp run: option --merge: give two result files or more");
                return HCI_EXIT_USAGE;
        }
        if (npos - 1 > MERGE_MAX) {
                log_error("oltp run: option --merge: at most %d result files", MERGE_MAX);
                return HCI_EXIT_USAGE;
        }
        for (int i = 1; i < npos; i++)
                x->files[x->nfiles++] = pos[i];
        if (oltp_cli_check_outputs(x->c, err, sizeof(err))) {
                log_error("oltp: %s", err);
                return HCI_EXIT_USAGE;
        }
        return 0;
}

/* --result-hosts: the names hosts[] get, one per --mysql-host, in its order. */
static int parse_result_hosts(struct ctx *x, char *err, size_t errlen)
{
        unsigned nhosts, n = 0;
        const struct oltp_dsn *hosts = oltp_cli_hosts(x->c, &nhosts);
        char *list, *save = NULL, why[256];
        int rc = 0;

        if (!x->m.result_hosts)
                return 0;
        list = strdup(x->m.result_hosts);
        x->names = calloc(nhosts, sizeof(*x->names));
        if (!list || !x->names) {
                free(list);
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        memcpy(x->names, hosts, nhosts * sizeof(*hosts));
        for (char *t = strtok_r(list, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save), n++)
                if (n < nhosts &&
                    hostport_parse(t, 3306, x->names[n].host, sizeof(x->names[n].host),
                                   &x->names[n].port, why, sizeof(why)) < 0) {
                        snprintf(err, errlen, "option --result-hosts: %s", why);
                        rc = -EINVAL;
                }
        if (!rc && n != nhosts) {
                snprintf(err, errlen, "option --result-hosts: give one name per --mysql-host (%u)",
                         nhosts);
                rc = -EINVAL;
        }
        free(list);
        return rc;
}

static int parse(struct ctx *x, int argc, char **argv, const char **sub)
{
        char err[512], *pos[MERGE_MAX + 2]; /* the verb, the files, one over: named below */
        int npos = 0, help = 0;

        x->c = oltp_cli_new(&x->g[0]);
        if (!x->c) {
                log_error("oltp: out of memory");
                return HCI_EXIT_TARGET;
        }
        x->o = oltp_cli_opts(x->c);
        x->g[1] = (struct opt_group){merge_opt_defs, &x->m, NULL};
        x->g[2] = (struct opt_group){NULL, NULL, NULL};
        if (opt_defaults(x->g, err, sizeof(err)) ||
            opt_parse_argv(x->g, argc - 1, argv + 1, pos, MERGE_MAX + 2, &npos, &help, err,
                           sizeof(err))) {
                log_error("oltp: %s", err);
                return HCI_EXIT_USAGE;
        }
        if (help || (npos == 1 && !strcmp(pos[0], "help"))) {
                opt_help(stdout, x->g, usage_line);
                return -1;
        }
        if (npos < 1 ||
            (strcmp(pos[0], "prepare") && strcmp(pos[0], "run") && strcmp(pos[0], "cleanup"))) {
                log_error("oltp: want one of prepare, run, cleanup (see hcisweep oltp --help)");
                return HCI_EXIT_USAGE;
        }
        *sub = pos[0];
        if (x->m.merge)
                return parse_merge(x, pos, npos);
        if (npos > 1) {
                log_error("oltp: unexpected argument '%s' (see hcisweep oltp --help)", pos[1]);
                return HCI_EXIT_USAGE;
        }
        if (x->m.steady_remote && !x->m.start_on_go) {
                log_error("oltp: option --steady-remote: only with --start-on-go");
                return HCI_EXIT_USAGE;
        }
        drvside_init(&x->ds, x->m.start_on_go, x->m.steady_remote, x->m.ready_file, x->m.go_file,
                     &got_signal);
        if ((x->m.password_stdin && drvside_password(x->c, err, sizeof(err))) ||
            oltp_cli_setup(x->c, err, sizeof(err)) || parse_result_hosts(x, err, sizeof(err)) ||
            (!strcmp(*sub, "run") && oltp_cli_check_outputs(x->c, err, sizeof(err)))) {
                log_error("oltp: %s", err);
                return HCI_EXIT_USAGE;
        }
        return 0;
}

int cmd_oltp_check_option(const char *name, const char *val, char *err, size_t errlen)
{
        struct oltp_opts *o = calloc(1, sizeof(*o));
        struct merge_opts m = {0};
        /* every option a run records in its job.ini, the merge group's included */
        struct opt_group g[3] = {{oltp_opt_defs, o, NULL}, {merge_opt_defs, &m, NULL}, {0}};
        int rc;

        if (!o) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        rc = opt_defaults(g, err, errlen);
        if (!rc)
                rc = opt_set(g, name, val, err, errlen);
        opt_free(g);
        free(o);
        return rc;
}

int cmd_oltp(int argc, char **argv)
{
        struct sigaction ign = {.sa_handler = SIG_IGN};
        struct ctx x;
        const char *sub = NULL;
        int rc;

        memset(&x, 0, sizeof(x));
        x.ds.sample_fd = -1;
        sigemptyset(&ign.sa_mask);
        sigaction(SIGPIPE, &ign, NULL);
        rc = parse(&x, argc, argv, &sub);
        if (rc == 0)
                rc = dispatch(&x, sub);
        else if (rc < 0)
                rc = HCI_EXIT_OK;
        opt_free(x.g);
        oltp_cli_free(x.c);
        free(x.names);
        return rc;
}
