/*
 * scale_drivers.c - a driver per VM, one window, merged (scale_drivers.h).
 *
 * The controller is one thread and one loop (core/reactor.h): it watches
 * every driver's stdout, read through its carrier (core/driverproto.h: the
 * lines decoded there, the driver's clock known there), and every driver's
 * exit (a pidfd); its timers open the window on time, tick the progress
 * line and --target-ci's rule, and kill a driver that hangs. The result
 * comes back on the pipe, not in a file, so a driver on another machine
 * (over ssh, in a guest) is collected the same way; the driver's own log
 * holds its stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/driverproto.h"
#include "core/log.h"
#include "core/reactor.h"
#include "core/resfile.h"
#include "core/sbuf.h"
#include "oltp/merge.h"
#include "oltp/oltp.h"
#include "core/steady_merge.h"
#include "scale/scale_drivers.h"
#include "scale/live.h"
#include "scale/scale_run.h"

#define READY_TIMEOUT_S 120 /* connect and prepare */
#define HANG_GRACE_S    30  /* past warm-up + time + lost-vm-timeout */
#define EXIT_GRACE_S    10  /* from the end of a driver's output to its exit */
/* --target-ci: the controller's "measure" and "stop" decide; a driver's own limits, this
 * much later, only end it when they do not come */
#define CI_SLACK_S 5
#define MAX_ARGS   96
/* The progress line and --target-ci's rule are fed this often (and a Ctrl-C that came
 * just before the loop waited is seen within it); nothing else waits on a slice. */
#define TICK_NS       (100 * 1000000ull)
#define CLOCK_WAIT_MS 2000 /* one answer to the carrier's clock question */
/* The most a started line may lie from its go: beyond it, the driver's clock is not ours. */
#define SKEW_MAX_NS (86400LL * 1000000000LL)

struct loop;

struct drv {
        unsigned vm;
        char host[256]; /* where it runs, when not here (lab_endpoint.driver_host) */
        pid_t pid;
        int pidfd;              /* its exit, watched; -1: none (the tick reaps it) */
        struct dp_carrier *car; /* its lines and clock; NULL: not started */
        struct re_file out_w, pid_w;
        struct loop *L;
        char *doc; /* its result document, as it came */
        size_t doclen;
        int ready, started, eof, reaped, broke;
        int status;
        double cpu_s;     /* its own CPU, said on its result line; < 0: not said */
        int64_t start_ns; /* its start minus the go, in the controller's clock */
        char json[LAB_PATH_MAX + 64], log[LAB_PATH_MAX + 64];
        char why[300];
        struct steady_merge *ci; /* --target-ci: where its samples go; NULL */
};

/* The one loop of a run: its drivers, its timers, what it tells the step. */
struct loop {
        struct reactor *re;
        struct drv *dv;
        unsigned n;
        struct scale *s;
        const struct scale_drivers_cb *cb;
        const struct oltp_engine_cfg *ec;
        struct steady_merge *ci;
        int64_t go_ns; /* the go, controller's CLOCK_REALTIME; 0 before it */
        uint64_t t_go; /* the same instant, clk_now_ns() */
        double hang_s; /* past this, every driver still there is killed */
        enum steady_phase told;
        int stopped; /* Ctrl-C passed on */
        struct re_timer tick, window, hang;
};

/* Options the driver gets from the controller's own, not from the echo. */
static int skipped(const char *k)
{
        static const char *const skip[] = {"json",
                                           "output-dir",
                                           "metrics-listen",
                                           "mysql-host",
                                           "mysql-port",
                                           "threads",
                                           "rand-seed",
                                           "report-interval",
                                           "target-ci",
                                           "mysql-password-file",
                                           "mysql-user",
                                           "mysql-db",
                                           "percentile",
                                           "mysql-defaults-file",
                                           NULL};

        for (unsigned i = 0; skip[i]; i++)
                if (!strcmp(k, skip[i]))
                        return 1;
        return 0;
}

/* The oltp options as "--name=value" words in b (NUL-separated), from the config echo. */
static int echo_args(struct scale *s, struct sbuf *b)
{
        struct opt_group g[2] = {{0}, {0}};
        const char *k;
        json_t *cfg, *v;

        for (unsigned i = 0; s->conf.g[i].defs; i++)
                if (s->conf.g[i].defs == oltp_opt_defs)
                        g[0] = s->conf.g[i];
        if (!g[0].defs || !(cfg = opt_to_json(g)))
                return -ENOMEM;
        json_object_foreach(cfg, k, v)
        {
                struct sbuf one = {0};
                char *eq;

                if (skipped(k) || opt_ini_line(&one, k, v) != 1 || !one.s) {
                        sb_free(&one);
                        continue;
                }
                one.s[strcspn(one.s, "\n")] = '\0';
                eq = strstr(one.s, " = ");
                if (eq)
                        sb_printf(b, "--%s=%s%c", k, eq + 3, '\0');
                sb_free(&one);
        }
        json_decref(cfg);
        return b->oom ? -ENOMEM : 0;
}

int scale_driver_spawn(const struct lab_backend_ops *ops, struct lab_backend *b, unsigned vm,
                       const struct proc_spawn *sp, pid_t *pid, int *in_w, int *out_r, char *err,
                       size_t errlen)
{
        int in[2], out[2], rc;

        *in_w = *out_r = -1;
        if (pipe2(in, O_CLOEXEC) < 0)
                return errf(err, errlen, -errno, "pipe: %s", strerror(errno));
        if (pipe2(out, O_CLOEXEC) < 0) {
                rc = errf(err, errlen, -errno, "pipe: %s", strerror(errno));
                close(in[0]);
                close(in[1]);
                return rc;
        }
        rc = ops->spawn(b, vm, sp, (int[]){in[0], out[1]}, pid, err, errlen);
        close(in[0]);
        close(out[1]);
        if (rc < 0) {
                close(in[1]);
                close(out[0]);
                return rc;
        }
        *in_w = in[1];
        *out_r = out[0];
        return 0;
}

/* Start VM d->vm's driver (scale_driver_spawn), its carrier on our ends; its password is
 * its first line of input. */
static int spawn_one(struct scale *s, struct drv *d, const char *words, size_t wlen,
                     const struct oltp_engine_cfg *ec, char *err, size_t errlen)
{
        const struct oltp_dsn *dsn = &s->lab.dsn[d->vm - 1];
        const struct oltp_opts *o = oltp_cli_opts(s->conf.oc);
        char a[8][LAB_PATH_MAX + 80];
        char *argv[MAX_ARGS + 12];
        struct lab_endpoint ep;
        char self[LAB_PATH_MAX], who[64];
        int in_w, out_r, n = 0, rc;

        dp_self_exe(self, sizeof(self)); /* by its own name: the driver's comm is "hcisweep" */
        argv[n++] = self;
        argv[n++] = "oltp";
        argv[n++] = "run";
        for (size_t off = 0; off < wlen && n < MAX_ARGS; off += strlen(words + off) + 1)
                argv[n++] = (char *)words + off;
        snprintf(a[0], sizeof(a[0]), "--mysql-host=%s:%u", dsn->host, dsn->port);
        snprintf(a[1], sizeof(a[1]), "--threads=%u", oltp_cli_threads(s->conf.oc));
        snprintf(a[2], sizeof(a[2]), "--rand-seed=%llu",
                 (unsigned long long)(o->rand_seed + d->vm));
        snprintf(a[3], sizeof(a[3]), "--result-stdout");
        snprintf(a[4], sizeof(a[4]), "--mysql-user=%s", dsn->user);
        snprintf(a[5], sizeof(a[5]), "--mysql-db=%s", dsn->db);
        snprintf(a[6], sizeof(a[6]), "--time=%g", ec->time_s + (d->ci ? CI_SLACK_S : 0));
        snprintf(a[7], sizeof(a[7]), "--warmup-time=%g",
                 oltp_engine_warmup_max(ec) + (d->ci ? CI_SLACK_S : 0));
        if (s->lab.ops->endpoint(s->lab.b, d->vm, &ep, err, errlen) == 0)
                snprintf(d->host, sizeof(d->host), "%s", ep.driver_host);
        for (unsigned i = 0; i < 8; i++)
                argv[n++] = a[i];
        if (d->ci)
                argv[n++] = "--steady-remote";
        if (s->watch.vlive)
                argv[n++] = "--live-intervals";
        if (dsn->password)
                argv[n++] = "--mysql-password-stdin";
        argv[n++] = "--start-on-go";
        argv[n] = NULL;
        rc = scale_driver_spawn(s->lab.ops, s->lab.b, d->vm,
                                &(struct proc_spawn){argv, d->log, NULL, NULL}, &d->pid, &in_w,
                                &out_r, err, errlen);
        if (rc < 0)
                return rc;
        snprintf(who, sizeof(who), "vm%u's driver", d->vm);
        /* a driver on another machine or in a guest is asked for its clock (the backend's
         * carrier says how); one here shares ours */
        d->car = dp_carrier_new(s->lab.ops->driver_carrier ? s->lab.ops->driver_carrier
                                                           : &dp_carrier_pipe,
                                NULL, in_w, out_r, who);
#ifdef SYS_pidfd_open
        d->pidfd = (int)syscall(SYS_pidfd_open, d->pid, 0);
        if (d->pidfd >= 0)
                fcntl(d->pidfd, F_SETFD, FD_CLOEXEC);
#endif
        /* after this, d is running: a failure here is judged as its end */
        if (!d->car) {
                snprintf(d->why, sizeof(d->why), "out of memory");
                d->eof = 1;
        } else if (dsn->password &&
                   dp_carrier_send_password(d->car, dsn->password, d->why, sizeof(d->why)) < 0)
                dp_carrier_close_input(d->car);
        return 0;
}

/* ---- the loop ------------------------------------------------------------------- */

static void kill_all(struct drv *dv, unsigned n, int sig)
{
        for (unsigned i = 0; i < n; i++)
                if (dv[i].pid > 0 && !dv[i].reaped)
                        kill(dv[i].pid, sig);
}

/* End d's input: before the go it ends without a run; after, it stops as on SIGINT and
 * prints what it measured (oltp/drvside.h). Over ssh the remote driver sees the same end,
 * also when the client is killed. */
static void close_inputs(struct drv *dv, unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                if (dv[i].car)
                        dp_carrier_close_input(dv[i].car);
}

/* Reap d if it has exited. */
static void reap(struct drv *d, int block)
{
        pid_t p;

        if (d->reaped || d->pid <= 0)
                return;
        do
                p = waitpid(d->pid, &d->status, block ? 0 : WNOHANG);
        while (p < 0 && errno == EINTR);
        if (p != d->pid)
                return;
        d->reaped = 1;
        re_unwatch(d->L->re, &d->pid_w);
        if (d->pidfd >= 0)
                close(d->pidfd);
        d->pidfd = -1;
}

static void on_exit_fd(struct re_file *f, unsigned fired)
{
        (void)fired;
        reap(f->arg, 0);
}

/* d's output has ended (its carrier closed it): no more samples from it. */
static void output_ended(struct drv *d)
{
        re_unwatch(d->L->re, &d->out_w);
        d->eof = 1;
        if (d->ci)
                steady_merge_gone(d->ci, d->vm - 1);
}

/* A message from driver d, decoded by the one protocol: its numbers are checked there, its
 * start moved into our clock by its carrier, and taken from the go with saturation, so a
 * remote value can never overflow here. */
static void on_msg(struct drv *d, const struct dp_msg *m)
{
        int64_t skew;

        switch (m->kind) {
        case DP_READY:
                d->ready = 1;
                break;
        case DP_SAMPLE: /* a report interval's is the live endpoint's (scale/live.h) */
                if (m->iv_s > 0)
                        scale_live_vms_sample(d->L->s->watch.vlive, d->vm, m);
                else if (d->ci)
                        steady_merge_sample(d->ci, d->vm - 1, m->t_s, m->done);
                break;
        case DP_STARTED:
                skew = dp_sub_sat(m->local_ns, d->L->go_ns);
                if (!d->L->go_ns || skew < -SKEW_MAX_NS || skew > SKEW_MAX_NS) {
                        log_warn("vm%u's driver: started %lld ns from its go: not a start, "
                                 "left unmeasured",
                                 d->vm, (long long)skew);
                        break;
                }
                d->started = 1;
                d->start_ns = skew;
                break;
        case DP_RESULT:
                free(d->doc);
                d->doclen = 0;
                if ((d->doc = malloc(m->doclen + 1))) {
                        memcpy(d->doc, m->doc, m->doclen);
                        d->doclen = m->doclen;
                }
                d->cpu_s = m->cpu_s;
                break;
        default:
                break;
        }
}

/* What d wrote: every whole message handled; a line the protocol refuses ends its part
 * (named, its input closed), what it writes after that is dropped. */
static void on_output(struct re_file *f, unsigned fired)
{
        struct drv *d = f->arg;
        struct dp_msg m;
        char e[400];
        int rc;

        (void)fired;
        dp_carrier_fill(d->car);
        while (!d->broke && (rc = dp_carrier_next(d->car, &m, e, sizeof(e))) != 0) {
                if (rc == 1) {
                        on_msg(d, &m);
                        continue;
                }
                d->broke = 1;
                log_warn("%s", e);
                if (!d->why[0])
                        snprintf(d->why, sizeof(d->why), "broke the protocol: %.250s",
                                 strchr(e, ':') ? strchr(e, ':') + 2 : e);
                dp_carrier_close_input(d->car);
        }
        if (dp_carrier_out_fd(d->car) < 0)
                output_ended(d);
}

/* kind (DP_MEASURE, DP_STOP) to every driver still listening (one that is gone is judged
 * by how it ended) */
static void tell_all(void *arg, enum dp_kind kind)
{
        struct loop *L = arg;
        struct dp_msg m = {.kind = kind};
        char e[300];

        for (unsigned i = 0; i < L->n; i++)
                if (L->dv[i].car && !L->dv[i].eof &&
                    dp_carrier_send(L->dv[i].car, &m, e, sizeof(e)) < 0)
                        log_warn("scale: %s", e);
}

/* --target-ci: the rule on the merged series (core/steady_merge.h); "measure" and then
 * "stop" to every driver as it says, the window opened with the first. */
static void steer(struct loop *L)
{
        enum steady_phase ph = steady_merge_steer(L->ci, &L->told, tell_all, L);
        struct steady_res r;
        double left;

        steady_merge_result(L->ci, &r, &left);
        L->cb->steady(L->s, ph, &r, left); /* opens the window once it measures */
}

/* The tick: the progress line, --target-ci's rule, and the reaping of a driver whose exit
 * is not watched (no pidfd). */
static void on_tick_t(struct re_timer *t)
{
        struct loop *L = t->arg;
        double el = (double)(clk_now_ns() - L->t_go) / 1e9;

        for (unsigned i = 0; i < L->n; i++)
                if (L->dv[i].pidfd < 0)
                        reap(&L->dv[i], 0);
        if (L->go_ns && L->ci && !L->stopped)
                steer(L);
        if (L->go_ns && L->cb->tick)
                L->cb->tick(L->s, el);
        re_timer_arm(L->re, t, clk_now_ns() + TICK_NS);
}

/* --warmup-time after the go (without --target-ci, whose rule opens it). */
static void on_window_t(struct re_timer *t)
{
        struct loop *L = t->arg;

        if (!L->s->run.window_open)
                L->cb->open_window(L->s);
}

static void on_hang_t(struct re_timer *t)
{
        struct loop *L = t->arg;

        for (unsigned i = 0; i < L->n; i++)
                if (!L->dv[i].reaped && !L->dv[i].why[0])
                        snprintf(L->dv[i].why, sizeof(L->dv[i].why),
                                 "hung past its window (%.0f s): killed", L->hang_s);
        kill_all(L->dv, L->n, SIGKILL);
        close_inputs(L->dv, L->n);
}

/* Rounds of the loop until done(L) holds or until (clk_now_ns() time) passes. */
static void spin(struct loop *L, int (*done)(struct loop *), uint64_t until)
{
        while (!done(L) && clk_now_ns() < until)
                if (re_run_once(L->re, until) < 0)
                        break;
}

static int all_ready(struct loop *L)
{
        if (*L->cb->stop)
                return 1;
        for (unsigned i = 0; i < L->n; i++)
                if (!L->dv[i].ready && !L->dv[i].eof)
                        return 0;
        return 1;
}

/* The window runs while any driver's output is open; a Ctrl-C (*stop) ends every input:
 * each saves what it measured, partial (a signal to an ssh client would end the client,
 * not the driver, and lose its result). */
static int all_ended(struct loop *L)
{
        if (*L->cb->stop && !L->stopped) {
                close_inputs(L->dv, L->n);
                L->stopped = 1;
        }
        for (unsigned i = 0; i < L->n; i++)
                if (!L->dv[i].eof)
                        return 0;
        return 1;
}

static int all_reaped(struct loop *L)
{
        for (unsigned i = 0; i < L->n; i++)
                if (L->dv[i].pid > 0 && !L->dv[i].reaped)
                        return 0;
        return 1;
}

/* Each ready driver's clock against ours (its carrier's), then "go" to every one at one
 * instant; the others' input ends, and so do they. The input of those told to go stays
 * open: its end is how they are stopped. */
static void go_all(struct loop *L)
{
        char e[400];

        for (unsigned i = 0; i < L->n; i++) {
                struct drv *d = &L->dv[i];

                if (d->ready && !d->eof && !*L->cb->stop &&
                    dp_carrier_measure(d->car, CLOCK_WAIT_MS, e, sizeof(e)) < 0)
                        log_warn("%s: its times are taken in its own clock", e);
        }
        L->go_ns = dp_real_ns();
        L->t_go = clk_now_ns();
        for (unsigned i = 0; i < L->n; i++) {
                struct drv *d = &L->dv[i];
                struct dp_msg go = {.kind = DP_GO};

                if (!d->car)
                        continue;
                if (d->ready && !d->eof && dp_carrier_send(d->car, &go, e, sizeof(e)) == 0)
                        continue;
                if (d->ready && !d->eof && !d->why[0])
                        snprintf(d->why, sizeof(d->why), "could not be told to go: %.250s", e);
                dp_carrier_close_input(d->car);
        }
        for (unsigned i = 0; L->ci && i < L->n; i++)
                if (!L->dv[i].ready || L->dv[i].eof) /* not told to go: no samples to wait for */
                        steady_merge_gone(L->ci, i);
}

/* Every driver: ready, its clock, one go, its window, its exit. */
static void run_loop(struct loop *L)
{
        uint64_t t0 = clk_now_ns();

        for (unsigned i = 0; i < L->n; i++) {
                struct drv *d = &L->dv[i];

                if (d->car && re_watch(L->re, &d->out_w, dp_carrier_out_fd(d->car), RE_READ) < 0)
                        output_ended(d);
                if (d->pidfd >= 0 && re_watch(L->re, &d->pid_w, d->pidfd, RE_READ) < 0) {
                        close(d->pidfd);
                        d->pidfd = -1;
                }
        }
        re_timer_arm(L->re, &L->tick, t0 + TICK_NS);
        spin(L, all_ready, t0 + READY_TIMEOUT_S * 1000000000ull);
        for (unsigned i = 0; i < L->n; i++)
                if (!L->dv[i].ready && !L->dv[i].eof && !L->dv[i].why[0])
                        snprintf(L->dv[i].why, sizeof(L->dv[i].why), "%s",
                                 *L->cb->stop ? "interrupted before the window"
                                              : "not ready in time (connect and prepare)");
        go_all(L);
        if (!L->ci)
                re_timer_arm(L->re, &L->window, L->t_go + (uint64_t)(L->ec->warmup_s * 1e9));
        re_timer_arm(L->re, &L->hang, L->t_go + (uint64_t)(L->hang_s * 1e9));
        spin(L, all_ended, UINT64_MAX);
        re_timer_cancel(L->re, &L->window);
        re_timer_cancel(L->re, &L->hang);
        /* every output has ended: each gets a moment to exit by itself (an ssh client closes
         * its output when the remote driver's ends, then waits for the remote exit status:
         * killing it there would lose a clean run) */
        close_inputs(L->dv, L->n);
        spin(L, all_reaped, clk_now_ns() + (uint64_t)EXIT_GRACE_S * 1000000000ull);
        re_timer_cancel(L->re, &L->tick);
        kill_all(L->dv, L->n, SIGKILL); /* none outlives its run */
        for (unsigned i = 0; i < L->n; i++)
                reap(&L->dv[i], 1);
}

/* Why d's part is left out ("" when it is kept): how it ended. */
static void judge(struct drv *d, int stopped)
{
        if (d->why[0])
                return;
        if (!d->ready)
                snprintf(d->why, sizeof(d->why), "exited before it was ready (see %.200s)", d->log);
        else if (WIFSIGNALED(d->status))
                snprintf(d->why, sizeof(d->why), "killed by signal %d", WTERMSIG(d->status));
        else if (WIFEXITED(d->status) && WEXITSTATUS(d->status) &&
                 !(stopped && WEXITSTATUS(d->status) == 130))
                snprintf(d->why, sizeof(d->why), "exited %d (see %.200s)", WEXITSTATUS(d->status),
                         d->log);
}

/* d's start against the go: over 1% of --time either way is late (its clock, if wrong,
 * would show it early as well). */
static int is_late(const struct drv *d, double time_s)
{
        return d->started && fabs((double)d->start_ns / 1e6) > time_s * 10.0;
}

static json_t *ms_or_null(int known, int64_t ns)
{
        return known ? json_real((double)ns / 1e6) : json_null();
}

static json_t *driver_json(const struct drv *d, const char *where, double time_s, double tps)
{
        const struct dp_clock *k = d->car ? dp_carrier_clock(d->car) : NULL;
        int known = k && k->known;
        json_t *o = json_pack(
            "{s:i, s:s, s:i, s:o, s:o, s:b, s:i, s:o, s:s, s:s, s:o, s:o}", "vm", (int)d->vm,
            "where", where, "pid", (int)d->pid, "cpu_s",
            d->cpu_s >= 0 ? json_real(d->cpu_s) : json_null(), "start_skew_ms",
            ms_or_null(d->started, d->start_ns), "late", is_late(d, time_s), "exit",
            d->reaped ? (WIFEXITED(d->status) ? WEXITSTATUS(d->status) : 128 + WTERMSIG(d->status))
                      : -1,
            "tps", d->why[0] ? json_null() : json_real(tps), "result", d->json, "carrier",
            d->car ? dp_carrier_name(d->car) : "none", "clock_offset_ms",
            ms_or_null(known, known ? k->offset_ns : 0), "clock_err_ms",
            ms_or_null(known, known ? k->err_ns : 0));

        if (o && d->host[0])
                json_object_set_new(o, "host", json_string(d->host));
        if (o && d->why[0])
                json_object_set_new(o, "error", json_string(d->why));
        return o;
}

/* The merge as an engine result, host h for VM h+1. */
static int to_result(const struct oltp_merge *m, struct scale *s, unsigned vms,
                     struct oltp_result *res)
{
        struct oltp_result mr;

        oltp_merge_result(m, &mr);
        memset(res, 0, sizeof(*res));
        res->seconds = mr.seconds;
        res->window_s = mr.window_s;
        res->total = mr.total;
        res->lat = hist_new();
        res->qwait = hist_new();
        res->hosts = calloc(vms, sizeof(*res->hosts));
        if (!res->lat || !res->qwait || !res->hosts)
                return -ENOMEM;
        hist_merge(res->lat, mr.lat);
        res->nhosts = vms;
        for (unsigned v = 0; v < vms; v++) {
                if (!(res->hosts[v].lat = hist_new()))
                        return -ENOMEM;
                for (unsigned h = 0; h < mr.nhosts; h++) {
                        unsigned port;
                        const char *name = oltp_merge_host(m, h, &port);

                        if (!strcmp(name, s->lab.dsn[v].host) && port == s->lab.dsn[v].port) {
                                res->hosts[v].c = mr.hosts[h].c;
                                oltp_merge_host_lat(m, h, res->hosts[v].lat);
                                res->hosts[v].down_s = mr.hosts[h].down_s;
                                res->hosts[v].down_at_end = mr.hosts[h].down_at_end;
                        }
                }
        }
        return 0;
}

/* The merged intervals for the step's noise band. */
static void keep_intervals(const struct oltp_merge *m, struct scale_rep *r)
{
        unsigned n = oltp_merge_nintervals(m);
        double *t = realloc(r->iv_t, (n ? n : 1) * sizeof(*t)), *v;

        if (t)
                r->iv_t = t;
        v = t ? realloc(r->iv_tps, (n ? n : 1) * sizeof(*v)) : NULL;
        if (!v)
                return;
        r->iv_tps = v;
        r->iv_cap = n;
        for (r->niv = 0; r->niv < n; r->niv++)
                oltp_merge_interval(m, r->niv, &r->iv_t[r->niv], &r->iv_tps[r->niv]);
}

/* Write d's result document into d->json, where the merge and the user find it. */
static void keep_result(struct drv *d)
{
        char e[600];

        if (!d->why[0] && !d->doc)
                snprintf(d->why, sizeof(d->why), "gave no result (see %.200s)", d->log);
        else if (d->doc && res_write_text(d->json, d->doc, d->doclen, e, sizeof(e)) < 0 &&
                 !d->why[0])
                snprintf(d->why, sizeof(d->why), "its result could not be kept: %.250s", e);
        free(d->doc);
        d->doc = NULL;
}

/* Merge the drivers kept; the others named in r->error. */
static int merge_all(struct scale *s, struct scale_step *st, struct scale_rep *r, struct drv *dv,
                     unsigned n, const struct oltp_engine_cfg *ec, int stopped,
                     struct oltp_result *res)
{
        struct oltp_merge *m = oltp_merge_new();
        json_t *arr = json_array();
        size_t len = 0;
        char e[600];
        int rc = -ENOMEM;

        if (!m || !arr)
                goto out;
        for (unsigned i = 0; i < n; i++) {
                struct drv *d = &dv[i];
                struct oltp_merge *one = NULL;
                double tps = 0;

                judge(d, stopped);
                keep_result(d);
                if (!d->why[0] && oltp_merge_add_file(m, d->json, e, sizeof(e)) < 0)
                        snprintf(d->why, sizeof(d->why), "its result: %.280s", e);
                if (!d->why[0] && (one = oltp_merge_new()) &&
                    oltp_merge_add_file(one, d->json, e, sizeof(e)) == 0)
                        tps = oltp_merge_tps(one);
                oltp_merge_free(one);
                if (d->why[0]) {
                        r->lost = 1;
                        len += (size_t)snprintf(
                            r->error + len, len < sizeof(r->error) ? sizeof(r->error) - len : 0,
                            "%svm%u: driver %s", len ? "; " : "", d->vm, d->why);
                        if (len >= sizeof(r->error))
                                len = sizeof(r->error) - 1;
                        log_warn("scale: %u VMs: vm%u's driver %s: its part of the step is "
                                 "degraded",
                                 st->vms, d->vm, d->why);
                }
                if (is_late(d, ec->time_s))
                        log_warn("scale: %u VMs: vm%u's driver started %.0f ms late, over 1%% of "
                                 "the window",
                                 st->vms, d->vm, (double)d->start_ns / 1e6);
                json_array_append_new(arr,
                                      driver_json(d, s->lab.ops->driver_where, ec->time_s, tps));
        }
        rc = to_result(m, s, st->vms, res);
        keep_intervals(m, r);
        json_decref(st->drivers);
        st->drivers = arr;
        arr = NULL;
out:
        json_decref(arr);
        oltp_merge_free(m);
        return rc;
}

/* The directory the drivers' files go to. */
static int driver_dir(struct scale *s, char *dir, size_t len, char *err, size_t errlen)
{
        const char *slash;

        if (s->save.dir[0]) {
                if (res_save_mkdir(&s->save, err, errlen) < 0)
                        return -EIO;
                snprintf(dir, len, "%.*s", (int)len - 1, s->save.dir);
                return 0;
        }
        slash = strrchr(s->save.path, '/');
        if (!slash)
                snprintf(dir, len, ".");
        else
                snprintf(dir, len, "%.*s", (int)(slash - s->save.path), s->save.path);
        return 0;
}

int scale_drivers_run(struct scale *s, struct scale_step *st, struct scale_rep *r,
                      const struct oltp_engine_cfg *ec, const struct scale_drivers_cb *cb,
                      struct oltp_result *res, char *err, size_t errlen)
{
        struct drv dv[LAB_MAX_VMS];
        struct loop L = {.dv = dv, .n = st->vms, .s = s, .cb = cb, .ec = ec};
        struct sbuf words = {0};
        char dir[LAB_PATH_MAX];
        unsigned n = st->vms, started = 0;
        int rc;

        memset(res, 0, sizeof(*res));
        memset(dv, 0, sizeof(dv));
        if ((rc = driver_dir(s, dir, sizeof(dir), err, errlen)) < 0)
                return rc;
        if (echo_args(s, &words) < 0 ||
            (ec->target_ci_pct > 0 &&
             !(L.ci = steady_merge_new(n, ec->target_ci_pct, oltp_engine_warmup_max(ec),
                                       ec->time_s))) ||
            !(L.re = re_new(8, err, errlen))) {
                snprintf(err, errlen, "out of memory");
                sb_free(&words);
                steady_merge_free(L.ci);
                return -ENOMEM;
        }
        L.hang_s = oltp_engine_max_s(ec) + (L.ci ? 2 * CI_SLACK_S : 0) + s->conf.cfg.lost_timeout +
                   HANG_GRACE_S;
        re_timer_init(&L.tick, on_tick_t, &L);
        re_timer_init(&L.window, on_window_t, &L);
        re_timer_init(&L.hang, on_hang_t, &L);
        for (unsigned i = 0; i < n; i++) {
                struct drv *d = &dv[i];
                char why[400];

                d->vm = i + 1;
                d->L = &L;
                d->pidfd = -1;
                d->cpu_s = -1;
                d->ci = L.ci;
                re_file_init(&d->out_w, on_output, d);
                re_file_init(&d->pid_w, on_exit_fd, d);
                snprintf(d->json, sizeof(d->json), "%s/driver-%uvm-r%u-vm%u.json", dir, n,
                         st->nrep + 1, d->vm);
                snprintf(d->log, sizeof(d->log), "%s/driver-%uvm-r%u-vm%u.log", dir, n,
                         st->nrep + 1, d->vm);
                unlink(d->json);
                if (spawn_one(s, d, words.s, words.len, ec, why, sizeof(why)) < 0) {
                        snprintf(d->why, sizeof(d->why), "could not start: %.280s", why);
                        d->eof = d->reaped = 1;
                        if (L.ci)
                                steady_merge_gone(L.ci, i);
                        continue;
                }
                started++;
        }
        sb_free(&words);
        if (!started) {
                snprintf(err, errlen, "no driver could start: vm1: %s", dv[0].why);
                rc = -EIO;
                goto out;
        }
        run_loop(&L);
        rc = merge_all(s, st, r, dv, n, ec, *cb->stop != 0, res);
        if (rc < 0)
                snprintf(err, errlen, "out of memory");
        if (L.ci) { /* the rule was the controller's: its finding is the run's */
                res->have_steady = 1;
                steady_merge_result(L.ci, &res->steady, NULL);
        }
out:
        for (unsigned i = 0; i < n; i++) {
                re_unwatch(L.re, &dv[i].out_w);
                re_unwatch(L.re, &dv[i].pid_w);
                dp_carrier_free(dv[i].car);
                free(dv[i].doc);
                if (dv[i].pidfd >= 0)
                        close(dv[i].pidfd);
        }
        steady_merge_free(L.ci);
        re_free(L.re);
        return rc;
}
