/*
 * scale_drivers.c - a driver per VM, one window, merged (scale_drivers.h).
 *
 * The controller is one thread: it polls the drivers' stdout pipes (their
 * ready and started lines, their report, copied to nothing, and last their
 * result, which it writes into the run's directory; the driver's own log
 * holds stderr) with a short timeout, so it also opens the window on time,
 * ticks the progress line, passes Ctrl-C on and kills a driver that hangs.
 * The result comes back on the pipe, not in a file, so a driver on another
 * machine (over ssh, in a guest) is collected the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/driverproto.h"
#include "core/log.h"
#include "core/resfile.h"
#include "core/sbuf.h"
#include "oltp/merge.h"
#include "oltp/oltp.h"
#include "scale/scale_drivers.h"
#include "scale/scale_drivers_ci.h"
#include "scale/scale_run.h"

#define READY_TIMEOUT_S 120 /* connect and prepare */
#define HANG_GRACE_S    30  /* past warm-up + time + lost-vm-timeout */
#define EXIT_GRACE_S    10  /* from the end of a driver's output to its exit */
/* --target-ci: the controller's "measure" and "stop" decide; a driver's own limits, this
 * much later, only end it when they do not come */
#define CI_SLACK_S 5
#define MAX_ARGS   96

struct drv {
        unsigned vm;
        char host[256]; /* where it runs, when not here (lab_endpoint.driver_host) */
        pid_t pid;
        int in, out; /* our ends: its stdin, its stdout */
        char line[256];
        size_t llen;
        struct sbuf result; /* the line after OLTP_DRIVER_RESULT */
        int in_result, got_result;
        int ready, started, eof, reaped, killed;
        int status;
        double cpu_s;
        long long start_ns;
        char json[LAB_PATH_MAX + 64], log[LAB_PATH_MAX + 64];
        char why[300];
        struct drivers_ci *ci; /* --target-ci: where its samples go; NULL */
};

static long long real_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

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

/* End d's input: before "go" it ends without a run; after, it stops as on
 * SIGINT and prints what it measured (oltp/oltp.h). Over ssh the remote
 * driver sees the same end, also when the client is killed. */
static void close_input(struct drv *d)
{
        if (d->in >= 0) {
                close(d->in);
                d->in = -1;
        }
}

/*
 * The password goes to the driver as the first line of its input
 * (--mysql-password-stdin), never on its command line (other users of its
 * host read /proc/PID/cmdline; over ssh, the remote host's too) nor into a
 * file where it runs.
 */
static int give_password(int fd, const char *pw, char *err, size_t errlen)
{
        size_t len = strlen(pw), off = 0;
        char line[1024];

        if (len >= sizeof(line) - 1 || strchr(pw, '\n'))
                return errf(err, errlen, -EINVAL, "its password does not fit on one line");
        memcpy(line, pw, len);
        line[len++] = '\n';
        while (off < len) { /* a fresh pipe takes it whole; a signal may cut the write */
                ssize_t n = write(fd, line + off, len - off);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        break;
                off += (size_t)n;
        }
        memset(line, 0, sizeof(line));
        return off == len
                   ? 0
                   : errf(err, errlen, -EIO, "could not give it the password: %s", strerror(errno));
}

static int spawn_one(struct scale *s, struct drv *d, const char *words, size_t wlen,
                     const struct oltp_engine_cfg *ec, char *err, size_t errlen)
{
        const struct oltp_dsn *dsn = &s->lab.dsn[d->vm - 1];
        const struct oltp_opts *o = oltp_cli_opts(s->conf.oc);
        char a[8][LAB_PATH_MAX + 80];
        char *argv[MAX_ARGS + 12];
        struct lab_endpoint ep;
        int in[2], out[2], n = 0, rc;

        char self[LAB_PATH_MAX];
        ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);

        /* this very binary, by its own name: the driver's comm is "hcisweep", not "exe" */
        if (sl <= 0)
                snprintf(self, sizeof(self), "/proc/self/exe");
        else
                self[sl] = '\0';
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
        if (dsn->password)
                argv[n++] = "--mysql-password-stdin";
        argv[n++] = "--start-on-go";
        argv[n] = NULL;
        if (pipe2(in, O_CLOEXEC) < 0 || (pipe2(out, O_CLOEXEC) < 0 && (close(in[0]), 1))) {
                rc = -errno;
                snprintf(err, errlen, "pipe: %s", strerror(errno));
                return rc;
        }
        rc = s->lab.ops->spawn(s->lab.b, d->vm, &(struct proc_spawn){argv, d->log, NULL, NULL},
                               (int[]){in[0], out[1]}, &d->pid, err, errlen);
        close(in[0]);
        close(out[1]);
        if (rc < 0) {
                close(in[1]);
                close(out[0]);
                return rc;
        }
        d->in = in[1];
        d->out = out[0];
        fcntl(d->out, F_SETFL, O_NONBLOCK);
        /* after this, d is running: a failure here is judged as its end */
        if (dsn->password && give_password(d->in, dsn->password, d->why, sizeof(d->why)) < 0)
                close_input(d);
        return 0;
}

/* The most a started line may lie from its go: beyond it, the driver's clock is not ours. */
#define SKEW_MAX_NS (86400LL * 1000000000LL)

/* A line from driver d, decoded by the one protocol (core/driverproto.h): its numbers are
 * checked there, and its start is taken from the go with saturation, so a remote value
 * can never overflow here. */
static void on_line(struct drv *d, long long go_ns)
{
        struct dp_msg m;
        int64_t skew;

        if (dp_decode(d->line, strlen(d->line), &m) < 0) {
                log_warn("vm%u's driver: not a line of this version: %.80s", d->vm, d->line);
                return;
        }
        switch (m.kind) {
        case DP_READY:
                d->ready = 1;
                break;
        case DP_SAMPLE:
                if (d->ci)
                        drivers_ci_sample(d->ci, d->vm - 1, m.t_s, m.done);
                break;
        case DP_STARTED:
                skew = dp_sub_sat(m.ns, go_ns);
                if (skew < -SKEW_MAX_NS || skew > SKEW_MAX_NS) {
                        log_warn("vm%u's driver: started %lld ns from its go: not a start, "
                                 "left unmeasured",
                                 d->vm, (long long)skew);
                        break;
                }
                d->started = 1;
                d->start_ns = skew;
                break;
        case DP_RESULT:
                sb_free(&d->result);
                d->in_result = 1;
                break;
        default:
                break;
        }
}

/* Take the result line's bytes of buf[0..n): how many were its. */
static size_t take_result(struct drv *d, const char *buf, size_t n)
{
        const char *nl = memchr(buf, '\n', n);
        size_t k = nl ? (size_t)(nl - buf) : n;

        sb_printf(&d->result, "%.*s", (int)k, buf);
        if (nl) {
                d->in_result = 0;
                d->got_result = !d->result.oom && d->result.len > 0;
                return k + 1;
        }
        return k;
}

/* Read what d wrote; lines over the buffer are cut (the report's are short),
 * but for the result's, which is kept whole. */
static void drain(struct drv *d, long long go_ns)
{
        char buf[65536];
        ssize_t n;

        while ((n = read(d->out, buf, sizeof(buf))) > 0)
                for (size_t i = 0; i < (size_t)n; i++) {
                        if (d->in_result) {
                                i += take_result(d, buf + i, (size_t)n - i) - 1;
                        } else if (buf[i] == '\n') {
                                d->line[d->llen] = '\0';
                                on_line(d, go_ns);
                                d->llen = 0;
                        } else if (d->llen < sizeof(d->line) - 1) {
                                d->line[d->llen++] = buf[i];
                        }
                }
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
                d->eof = 1;
                if (d->ci)
                        drivers_ci_gone(d->ci, d->vm - 1);
        }
}

/* Reap d if it has exited (wait4: its CPU time). */
static void reap(struct drv *d, int block)
{
        struct rusage ru;
        pid_t p;

        if (d->reaped || d->pid <= 0)
                return;
        do
                p = wait4(d->pid, &d->status, block ? 0 : WNOHANG, &ru);
        while (p < 0 && errno == EINTR);
        if (p != d->pid)
                return;
        d->reaped = 1;
        d->cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                   (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Poll every open pipe for up to ms; 1 while any driver still runs. */
static int pump(struct drv *dv, unsigned n, int ms, long long go_ns)
{
        struct pollfd p[LAB_MAX_VMS];
        unsigned k = 0, map[LAB_MAX_VMS];

        for (unsigned i = 0; i < n; i++)
                if (!dv[i].eof && dv[i].out >= 0) {
                        p[k] = (struct pollfd){.fd = dv[i].out, .events = POLLIN};
                        map[k++] = i;
                }
        if (!k)
                return 0;
        if (poll(p, k, ms) > 0)
                for (unsigned j = 0; j < k; j++)
                        if (p[j].revents)
                                drain(&dv[map[j]], go_ns);
        for (unsigned i = 0; i < n; i++)
                if (dv[i].eof)
                        reap(&dv[i], 0);
        return 1;
}

static int all_ready(const struct drv *dv, unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                if (!dv[i].ready && !dv[i].eof)
                        return 0;
        return 1;
}

static void kill_all(struct drv *dv, unsigned n, int sig)
{
        for (unsigned i = 0; i < n; i++)
                if (dv[i].pid > 0 && !dv[i].reaped)
                        kill(dv[i].pid, sig);
}

static void close_inputs(struct drv *dv, unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                close_input(&dv[i]);
}

/* "go" to every driver that is ready; the others' input ends, and so do they. The
 * input of those told to go stays open: its end is how they are stopped. */
static void go_all(struct drv *dv, unsigned n)
{
        for (unsigned i = 0; i < n; i++) {
                if (dv[i].ready && !dv[i].eof && dv[i].in >= 0 && write(dv[i].in, "go\n", 3) == 3)
                        continue;
                if (dv[i].ready && !dv[i].eof && !dv[i].why[0])
                        snprintf(dv[i].why, sizeof(dv[i].why), "could not be told to go: %s",
                                 dv[i].in >= 0 ? strerror(errno) : "its input is closed");
                close_input(&dv[i]);
        }
}

/* Every driver's output has ended: give each a moment to exit by itself.
 * An ssh client closes its output when the remote driver's ends, then waits
 * for the remote exit status: killing it there would lose a clean run. */
static void settle(struct drv *dv, unsigned n)
{
        uint64_t end = clk_now_ns() + (uint64_t)EXIT_GRACE_S * 1000000000ull;
        int left;

        do {
                left = 0;
                for (unsigned i = 0; i < n; i++) {
                        reap(&dv[i], 0);
                        left += dv[i].pid > 0 && !dv[i].reaped;
                }
                if (left)
                        clk_sleep_ns(10000000);
        } while (left && clk_now_ns() < end);
}

/* line to every driver still listening (one that is gone is judged by how it ended) */
static void tell_all(struct drv *dv, unsigned n, const char *line)
{
        size_t len = strlen(line);

        for (unsigned i = 0; i < n; i++)
                if (dv[i].in >= 0 && !dv[i].eof && write(dv[i].in, line, len) != (ssize_t)len)
                        log_warn("scale: vm%u's driver could not be told '%.*s': %s", dv[i].vm,
                                 (int)len - 1, line, strerror(errno));
}

/* --target-ci: the rule on the merged series (scale_drivers_ci.h); "measure" and then
 * "stop" to every driver as it says, the window opened with the first. */
static void steer(struct scale *s, struct drv *dv, unsigned n, struct drivers_ci *ci,
                  const struct scale_drivers_cb *cb, enum steady_phase *told)
{
        enum steady_phase ph = drivers_ci_merge(ci);
        struct steady_res r;
        double left;

        if (ph > STEADY_WARMUP && *told < STEADY_MEASURE)
                tell_all(dv, n, DRIVER_LINE_MEASURE "\n");
        if (ph == STEADY_DONE && *told < STEADY_DONE)
                tell_all(dv, n, DRIVER_LINE_STOP "\n");
        *told = ph;
        drivers_ci_result(ci, &r, &left);
        cb->steady(s, ph, &r, left); /* opens the window once it measures */
}

/* Wait for the go lines, open the window on time (or as --target-ci's rule says), pass
 * Ctrl-C on, kill hangs. */
static void run_window(struct scale *s, struct drv *dv, unsigned n,
                       const struct oltp_engine_cfg *ec, const struct scale_drivers_cb *cb,
                       long long go_ns, struct drivers_ci *ci)
{
        uint64_t t_go = clk_now_ns();
        double hang_s = oltp_engine_max_s(ec) + (ci ? 2 * CI_SLACK_S : 0) +
                        s->conf.cfg.lost_timeout + HANG_GRACE_S;
        enum steady_phase told = STEADY_WARMUP;
        int stopped = 0, hung = 0;

        while (pump(dv, n, 100, go_ns)) {
                double el = (double)(clk_now_ns() - t_go) / 1e9;

                if (ci && !stopped)
                        steer(s, dv, n, ci, cb, &told);
                else if (!ci && !s->run.window_open && el >= ec->warmup_s)
                        cb->open_window(s);
                if (cb->tick)
                        cb->tick(s, el);
                if (*cb->stop && !stopped) {
                        /* each saves what it measured, partial; a signal to an ssh client
                         * would end the client, not the driver, and lose its result */
                        close_inputs(dv, n);
                        stopped = 1;
                }
                if (el > hang_s && !hung) {
                        for (unsigned i = 0; i < n; i++)
                                if (!dv[i].reaped && !dv[i].why[0])
                                        snprintf(dv[i].why, sizeof(dv[i].why),
                                                 "hung past its window (%.0f s): killed", hang_s);
                        kill_all(dv, n, SIGKILL);
                        close_inputs(dv, n);
                        hung = 1;
                }
        }
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

static json_t *driver_json(const struct drv *d, const char *where, double time_s, double tps)
{
        double skew_ms = d->started ? (double)d->start_ns / 1e6 : -1;
        json_t *o = json_pack(
            "{s:i, s:s, s:i, s:f, s:o, s:b, s:i, s:o, s:s}", "vm", (int)d->vm, "where", where,
            "pid", (int)d->pid, "cpu_s", d->cpu_s, "start_skew_ms",
            d->started ? json_real(skew_ms) : json_null(), "late",
            d->started && skew_ms > time_s * 10.0, "exit",
            d->reaped ? (WIFEXITED(d->status) ? WEXITSTATUS(d->status) : 128 + WTERMSIG(d->status))
                      : -1,
            "tps", d->why[0] ? json_null() : json_real(tps), "result", d->json);

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

/* Write d's result line into d->json, where the merge and the user find it. */
static void keep_result(struct drv *d)
{
        char e[600];

        if (!d->why[0] && !d->got_result)
                snprintf(d->why, sizeof(d->why), "gave no result (see %.200s)", d->log);
        else if (d->got_result &&
                 res_write_text(d->json, d->result.s, d->result.len, e, sizeof(e)) < 0 &&
                 !d->why[0])
                snprintf(d->why, sizeof(d->why), "its result could not be kept: %.250s", e);
        sb_free(&d->result);
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
                if (d->started && (double)d->start_ns / 1e6 > ec->time_s * 10.0)
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
        struct drivers_ci *ci = NULL;
        struct sbuf words = {0};
        char dir[LAB_PATH_MAX];
        unsigned n = st->vms, started = 0;
        uint64_t t0;
        long long go_ns = 0;
        int rc;

        memset(res, 0, sizeof(*res));
        memset(dv, 0, sizeof(dv));
        if ((rc = driver_dir(s, dir, sizeof(dir), err, errlen)) < 0)
                return rc;
        if (echo_args(s, &words) < 0 ||
            (ec->target_ci_pct > 0 &&
             !(ci =
                   drivers_ci_new(n, ec->target_ci_pct, oltp_engine_warmup_max(ec), ec->time_s)))) {
                snprintf(err, errlen, "out of memory");
                sb_free(&words);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < n; i++) {
                struct drv *d = &dv[i];
                char why[400];

                d->vm = i + 1;
                d->in = d->out = -1;
                d->ci = ci;
                snprintf(d->json, sizeof(d->json), "%s/driver-%uvm-r%u-vm%u.json", dir, n,
                         st->nrep + 1, d->vm);
                snprintf(d->log, sizeof(d->log), "%s/driver-%uvm-r%u-vm%u.log", dir, n,
                         st->nrep + 1, d->vm);
                unlink(d->json);
                if (spawn_one(s, d, words.s, words.len, ec, why, sizeof(why)) < 0) {
                        snprintf(d->why, sizeof(d->why), "could not start: %.280s", why);
                        d->eof = d->reaped = 1;
                        if (ci)
                                drivers_ci_gone(ci, i);
                        continue;
                }
                started++;
        }
        sb_free(&words);
        if (!started) {
                snprintf(err, errlen, "no driver could start: vm1: %s", dv[0].why);
                drivers_ci_free(ci);
                return -EIO;
        }
        t0 = clk_now_ns();
        while (!all_ready(dv, n) && !*cb->stop &&
               (double)(clk_now_ns() - t0) / 1e9 < READY_TIMEOUT_S)
                pump(dv, n, 100, 0);
        for (unsigned i = 0; i < n; i++)
                if (!dv[i].ready && !dv[i].eof && !dv[i].why[0])
                        snprintf(dv[i].why, sizeof(dv[i].why), "%s",
                                 *cb->stop ? "interrupted before the window"
                                           : "not ready in time (connect and prepare)");
        go_ns = real_ns();
        go_all(dv, n); /* one instant for all; the others see end of input and end */
        for (unsigned i = 0; ci && i < n; i++)
                if (!dv[i].ready || dv[i].eof) /* not told to go: no samples to wait for */
                        drivers_ci_gone(ci, i);
        run_window(s, dv, n, ec, cb, go_ns, ci);
        close_inputs(dv, n);
        settle(dv, n);
        kill_all(dv, n, SIGKILL); /* none outlives its run */
        for (unsigned i = 0; i < n; i++) {
                reap(&dv[i], 1);
                if (dv[i].out >= 0)
                        close(dv[i].out);
        }
        rc = merge_all(s, st, r, dv, n, ec, *cb->stop != 0, res);
        if (rc < 0)
                snprintf(err, errlen, "out of memory");
        if (ci) { /* the rule was the controller's: its finding is the run's */
                res->have_steady = 1;
                drivers_ci_result(ci, &res->steady, NULL);
                drivers_ci_free(ci);
        }
        return rc;
}
