/*
 * guest_driver.c - a load driver inside a guest, through its agent
 * (guest_driver.h): the version check and the bridge's start on the
 * controller's side, and the bridge itself, a process of its own (exec'd,
 * never a fork of the threaded controller) that polls the agent and
 * speaks the driver protocol (core/driverproto.h) on its stdin and stdout.
 */
#include "lab/guest_driver.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/driverproto.h"
#include "core/exitcode.h"
#include "core/hostport.h"
#include "core/log.h"
#include "core/opts.h"
#include "lab/backend.h"
#include "lab/qga.h"
#include "lab/sql.h"

#define OPEN_TIMEOUT_MS    60000 /* a busy TCG guest's agent */
#define VERSION_TIMEOUT_MS 60000 /* the guest's first exec of the binary loads it from iSCSI */
#define KILL_TIMEOUT_MS    15000
#define READY_POLL_MS      200
#define RUN_POLL_MS        500
#define SAMPLE_POLL_MS     250              /* --steady-remote: samples come every 500 ms */
#define GUEST_DB           "127.0.0.1:3306" /* MariaDB in the guest (build-guest-image.sh) */
#define MAX_ARGS           160
#define GUEST_PATH         "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static int open_agent(const struct guest_agent *a, unsigned i, const volatile sig_atomic_t *cancel,
                      struct qga **q, char *err, size_t errlen)
{
        char where[16];

        snprintf(where, sizeof(where), "vm%u", i);
        if (a->socket)
                return qga_open_unix(a->socket, where, OPEN_TIMEOUT_MS, cancel, q, err, errlen);
        return qga_open_libvirt(a->uri, a->domain, where, OPEN_TIMEOUT_MS, cancel, q, err, errlen);
}

/* ---- the controller's side ------------------------------------------------------ */

/* The first line of text, without its line end, into out. */
static void first_line(const char *text, char *out, size_t outlen)
{
        snprintf(out, outlen, "%.*s", (int)strcspn(text ? text : "", "\r\n"), text ? text : "");
}

/* guest_driver.h: the guest's hcisweep answers --version as this one does. */
static int check_version(const struct guest_agent *a, unsigned i,
                         const volatile sig_atomic_t *cancel, char *err, size_t errlen)
{
        const char *want = "hcisweep " HCISWEEP_VERSION;
        char *argv[] = {"--version", NULL}, got[160], why[512];
        struct qga_status st = {0};
        struct qga *q = NULL;
        int rc = open_agent(a, i, cancel, &q, err, errlen);

        if (rc < 0)
                return rc;
        rc = qga_run(q, GUEST_DRIVER_BIN, argv, VERSION_TIMEOUT_MS, &st, why, sizeof(why));
        if (rc == -EREMOTEIO) {
                snprintf(err, errlen,
                         "vm%u: the guest cannot run %s (%s): a lab made before "
                         "drivers ran in guests; take it down with --purge and up again",
                         i, GUEST_DRIVER_BIN, why);
                rc = -ENOEXEC;
        } else if (rc < 0) {
                snprintf(err, errlen, "%s", why);
        } else if (st.exitcode != 0) {
                first_line(st.errs, got, sizeof(got));
                snprintf(err, errlen, "vm%u: %s --version in the guest exited %lld%s: %s", i,
                         GUEST_DRIVER_BIN, (long long)st.exitcode, st.signal ? " (killed)" : "",
                         got[0] ? got : "no message");
                rc = -ENOEXEC;
        } else {
                first_line(st.out, got, sizeof(got));
                if (strcmp(got, want)) {
                        snprintf(err, errlen,
                                 "vm%u: the guest's %s is '%s', this one is '%s': a lab made by "
                                 "another build; take it down with --purge and up again",
                                 i, GUEST_DRIVER_BIN, got, want);
                        rc = -EPROTO;
                }
        }
        qga_status_free(&st);
        qga_close(q);
        return rc;
}

int guest_driver_spawn(const struct guest_agent *a, unsigned i, const struct proc_spawn *sp,
                       const int *stdio, const volatile sig_atomic_t *cancel, int *checked,
                       pid_t *pid, char *err, size_t errlen)
{
        char vm[32], agent[LAB_PATH_MAX + 16], uri[LAB_PATH_MAX + 16], self[LAB_PATH_MAX];
        char *argv[MAX_ARGS + 12];
        ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
        int n = 0, rc;

        if (!*checked) {
                if ((rc = check_version(a, i, cancel, err, errlen)) < 0)
                        return rc;
                *checked = 1;
        }
        /* by its own name: the bridge's comm is "hcisweep", as the drivers' are */
        if (sl <= 0)
                snprintf(self, sizeof(self), "/proc/self/exe");
        else
                self[sl] = '\0';
        snprintf(vm, sizeof(vm), "--vm=%u", i);
        if (a->socket)
                snprintf(agent, sizeof(agent), "--agent=unix:%s", a->socket);
        else
                snprintf(agent, sizeof(agent), "--agent=libvirt:%s", a->domain);
        snprintf(uri, sizeof(uri), "--libvirt-uri=%s", a->uri ? a->uri : "");
        argv[n++] = self;
        argv[n++] = "lab";
        argv[n++] = "guest-driver";
        argv[n++] = vm;
        argv[n++] = agent;
        if (!a->socket)
                argv[n++] = uri;
        argv[n++] = "--";
        for (size_t k = 0; sp->argv[k]; k++) {
                if (n == MAX_ARGS + 10) {
                        snprintf(err, errlen, "vm%u: the driver has too many arguments", i);
                        return -E2BIG;
                }
                argv[n++] = sp->argv[k];
        }
        argv[n] = NULL;
        return proc_spawn_io(&(struct proc_spawn){argv, sp->log_path, NULL, NULL}, stdio, 1, pid,
                             err, errlen);
}

/* ---- the bridge ---------------------------------------------------------------- */

static volatile sig_atomic_t interrupted;  /* SIGINT: stop the driver, keep its result */
static volatile sig_atomic_t abandoned;    /* SIGTERM: the controller is gone */
static volatile sig_atomic_t cancel_agent; /* cuts an agent wait short */

static void on_signal(int sig)
{
        if (sig == SIGINT) {
                interrupted = 1;
        } else {
                abandoned = 1;
                cancel_agent = 1;
        }
}

struct bridge_opts {
        long long vm;
        char *agent, *libvirt_uri;
};

#define O(f) offsetof(struct bridge_opts, f)
static const struct opt_def bridge_opt_defs[] = {
    {"vm", OPT_INT, O(vm), "1", 1, LAB_MAX_VMS, "the VM", NULL, 0},
    {"agent", OPT_STR, O(agent), NULL, 0, 0, "unix:SOCKET or libvirt:DOMAIN", NULL, 0},
    {"libvirt-uri", OPT_STR, O(libvirt_uri), NULL, 0, 0, "libvirt: the domain's connection", NULL,
     0},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};
#undef O

struct bridge {
        unsigned vm;
        struct qga *q;
        char ready[96], go[96];   /* files in the guest's /run */
        char *args[MAX_ARGS + 8]; /* the driver's arguments in the guest, after its name */
        char host_arg[300], names_arg[300], ready_arg[120], go_arg[120];
        char pw[256]; /* its stdin: the password, one line */
        size_t pwlen;
        int64_t pid;     /* the driver, in the guest */
        int killed;      /* a signal was sent to it */
        int input_ended; /* our stdin ended after "go" */
        /* --steady-remote: GO.samples relayed up to soff, GO.measure and GO.stop made on the
         * controller's word (a line of our stdin so far in order) */
        int steady;
        char samples[104], measure[104], stop[104], order[16];
        uint64_t soff;
        size_t olen;
        /* a streaming driver (--start-on-go: any number of ready/go exchanges): its stdin
         * the FIFO GO.in, held open by the agent (inh), its stdout the file GO.out, relayed
         * from oofs on; the controller's line so far in ln, the driver's in pend */
        int stream;
        char in_path[104], out_path[104];
        int64_t inh;
        int in_open;
        uint64_t ooff;
        char ln[DP_LINE_MAX + 2];
        size_t lnlen;
        char *pend;
        size_t plen, pcap;
        struct qga_status st; /* how it ended */
        char err[1024];
};

#define OUT_LINE_MAX   ((size_t)DP_DOC_MAX + 1) /* a point's JSON is one line of the driver's */
#define STREAM_POLL_MS 100

/* --mysql-password-stdin: the controller's first line on our stdin, read byte by byte so
 * its "go" stays in the pipe; it goes on as the driver's stdin (input-data). */
static int password_line(struct bridge *g)
{
        char c;

        g->pwlen = 0;
        for (;;) {
                ssize_t n = read(STDIN_FILENO, &c, 1);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0 || g->pwlen == sizeof(g->pw) - 1) {
                        memset(g->pw, 0, sizeof(g->pw));
                        snprintf(g->err, sizeof(g->err), "vm%u: %s", g->vm,
                                 n <= 0 ? "no password line on standard input"
                                        : "a password line over 255 bytes");
                        return -EINVAL;
                }
                g->pw[g->pwlen++] = c;
                if (c == '\n')
                        return 0;
        }
}

/* The driver's command line in the guest, from the one it has here (guest_driver.h, 1). */
static int guest_args(struct bridge *g, char **in, int nin)
{
        char token[17];
        uint64_t r = 0;
        int n = 0, rc;

        if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
                r = clk_now_ns() ^ (uint64_t)getpid();
        snprintf(token, sizeof(token), "%016llx", (unsigned long long)r);
        snprintf(g->ready, sizeof(g->ready), "/run/hcisweep-driver-vm%u-%s.ready", g->vm, token);
        snprintf(g->go, sizeof(g->go), "/run/hcisweep-driver-vm%u-%s.go", g->vm, token);
        snprintf(g->samples, sizeof(g->samples), "%s.samples", g->go);
        snprintf(g->measure, sizeof(g->measure), "%s.measure", g->go);
        snprintf(g->stop, sizeof(g->stop), "%s.stop", g->go);
        snprintf(g->in_path, sizeof(g->in_path), "%s.in", g->go);
        snprintf(g->out_path, sizeof(g->out_path), "%s.out", g->go);
        /* a block client streams; an OLTP driver (oltp run --start-on-go) takes its one go
         * from the go file */
        for (int k = 2; k < nin && nin > 1 && !strcmp(in[1], "block"); k++)
                g->stream |= !strcmp(in[k], "--start-on-go");
        for (int k = 1; k < nin; k++) {
                if (n >= MAX_ARGS) {
                        snprintf(g->err, sizeof(g->err), "vm%u: too many driver arguments", g->vm);
                        return -E2BIG;
                }
                if (!strncmp(in[k], "--mysql-host=", 13)) {
                        if (strchr(in[k] + 13, ',')) {
                                snprintf(g->err, sizeof(g->err),
                                         "vm%u: a driver in a guest drives its own server only",
                                         g->vm);
                                return -EINVAL;
                        }
                        snprintf(g->host_arg, sizeof(g->host_arg), "--mysql-host=%s", GUEST_DB);
                        snprintf(g->names_arg, sizeof(g->names_arg), "--result-hosts=%s",
                                 in[k] + 13);
                        g->args[n++] = g->host_arg;
                        g->args[n++] = g->names_arg;
                } else if (!strcmp(in[k], "--steady-remote") ||
                           !strcmp(in[k], "--live-intervals")) { /* both write GO.samples */
                        g->steady = 1;
                        g->args[n++] = in[k];
                } else if (!strcmp(in[k], "--mysql-password-stdin")) {
                        rc = password_line(g);
                        if (rc < 0)
                                return rc;
                        g->args[n++] = in[k];
                } else if (!strncmp(in[k], "--mysql-password-file=", 22)) {
                        rc = lab_read_password(in[k] + 22, g->pw, sizeof(g->pw) - 1, g->err,
                                               sizeof(g->err));
                        if (rc < 0)
                                return rc;
                        g->pwlen = strlen(g->pw);
                        g->pw[g->pwlen++] = '\n';
                        g->args[n++] = "--mysql-password-file=/dev/stdin";
                } else {
                        g->args[n++] = in[k];
                }
        }
        if (!g->stream) { /* a streaming driver is told its go on its stdin */
                snprintf(g->ready_arg, sizeof(g->ready_arg), "--ready-file=%s", g->ready);
                snprintf(g->go_arg, sizeof(g->go_arg), "--go-file=%s", g->go);
                g->args[n++] = g->ready_arg;
                g->args[n++] = g->go_arg;
        }
        g->args[n] = NULL;
        return 0;
}

/* A sanitizer build's driver runs in the guest as it would here. */
static void guest_env(char **env)
{
        static const char *const pass[] = {"ASAN_OPTIONS", "UBSAN_OPTIONS"};
        static char bufs[2][1024];
        int n = 0;

        env[n++] = GUEST_PATH;
        for (size_t k = 0; k < 2; k++) {
                const char *v = getenv(pass[k]);

                if (v) {
                        snprintf(bufs[k], sizeof(bufs[k]), "%s=%s", pass[k], v);
                        env[n++] = bufs[k];
                }
        }
        env[n] = NULL;
}

/* Send sig to the driver in the guest and wait for kill to be done. */
static void signal_driver(struct bridge *g, const char *sig)
{
        char cmd[64], *argv[] = {"-c", cmd, NULL}, why[512];
        struct qga_status st = {0};

        snprintf(cmd, sizeof(cmd), "kill -%s %lld", sig, (long long)g->pid);
        if (qga_run(g->q, "/bin/sh", argv, KILL_TIMEOUT_MS, &st, why, sizeof(why)) < 0)
                log_warn("vm%u: kill -%s of the driver in the guest: %s", g->vm, sig, why);
        qga_status_free(&st);
        g->killed = 1;
}

/* The driver's state: 1 exited (g->st filled), 0 running, <0 the agent failed. */
static int driver_exited(struct bridge *g)
{
        int rc = qga_exec_status(g->q, g->pid, &g->st, g->err, sizeof(g->err));

        return rc < 0 ? rc : g->st.exited;
}

/* Wait up to ms for input on stdin; 1 if there is some (or its end). */
static int stdin_ready(int ms)
{
        struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};

        return poll(&p, 1, ms) > 0;
}

/* What every round of a wait on the driver does first with our signals: -EINTR once the
 * controller is gone (SIGTERM); after SIGINT the driver is told once, as Ctrl-C would (it
 * saves what it measured), and the wait goes on for its result. */
static int pass_signals(struct bridge *g)
{
        if (abandoned)
                return -EINTR;
        if (interrupted && !g->killed)
                signal_driver(g, "INT");
        return 0;
}

/* Until the ready file is there (1), the driver exited (0) or the agent failed (<0). */
static int wait_ready(struct bridge *g)
{
        char c;
        int rc;

        for (;;) {
                if (pass_signals(g) < 0)
                        return -EINTR;
                rc = qga_file_exists(g->q, g->ready, g->err, sizeof(g->err));
                if (rc)
                        return rc;
                rc = driver_exited(g);
                if (rc)
                        return rc < 0 ? rc : 0;
                /* before ready, input can only be its end: the controller gave up */
                if (stdin_ready(READY_POLL_MS) && read(STDIN_FILENO, &c, 1) <= 0 && !g->killed)
                        signal_driver(g, "TERM");
        }
}

/* The controller's DP_ASK: the guest's clock, read through the agent, as DP_CLOCK. Its
 * carrier (dp_carrier_guest) takes the round trip's; a clock the agent cannot read is
 * not answered (the carrier's wait ends, and the offset is unknown). */
static void answer_clock(struct bridge *g)
{
        struct dp_msg m = {.kind = DP_CLOCK};
        char why[512];

        if (qga_get_time(g->q, &m.ns, why, sizeof(why)) < 0) {
                log_warn("vm%u: the guest's clock: %s", g->vm, why);
                return;
        }
        if (dp_send(STDOUT_FILENO, &m, why, sizeof(why)) < 0)
                log_warn("vm%u: %s", g->vm, why);
}

/* "go" on stdin: 1 once the go file is made, 0 when the driver is not to start. */
static int wait_go(struct bridge *g)
{
        char line[16];
        size_t len = 0;
        uint64_t last = clk_now_ns();
        int rc;

        while (!abandoned && !interrupted) {
                if (stdin_ready(100)) {
                        ssize_t n = read(STDIN_FILENO, line + len, 1);

                        if (n <= 0)
                                break;
                        if (line[len++] == '\n' || len == sizeof(line) - 1) {
                                line[len] = '\0';
                                len = 0;
                                if (!strcmp(line, DRIVER_LINE_ASK "\n")) {
                                        answer_clock(g);
                                        continue;
                                }
                                if (strcmp(line, DRIVER_LINE_GO "\n"))
                                        break;
                                rc = qga_file_create(g->q, g->go, g->err, sizeof(g->err));
                                if (rc < 0)
                                        log_warn("%s", g->err);
                                return rc == 0;
                        }
                } else if (clk_now_ns() - last > 1000000000ULL) {
                        last = clk_now_ns();
                        if (driver_exited(g))
                                return 0;
                }
        }
        if (!abandoned && !g->killed)
                signal_driver(g, interrupted ? "INT" : "TERM");
        return 0;
}

static void write_all(int fd, const char *s, size_t n)
{
        while (n) {
                ssize_t w = write(fd, s, n);

                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        return; /* the controller is gone: nothing left to tell */
                s += w;
                n -= (size_t)w;
        }
}

/* --steady-remote: the controller's "measure" or "stop" as a file the driver polls. */
static void on_order(struct bridge *g, const char *line)
{
        const char *path = !strcmp(line, DRIVER_LINE_MEASURE) ? g->measure
                           : !strcmp(line, DRIVER_LINE_STOP)  ? g->stop
                                                              : NULL;

        if (path && g->steady && qga_file_create(g->q, path, g->err, sizeof(g->err)) < 0)
                log_warn("%s", g->err);
}

/* After "go": 1 once our input has ended; the lines read are orders (on_order). */
static int input_ended(struct bridge *g)
{
        char buf[64];
        ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

        for (ssize_t k = 0; k < n; k++) {
                if (buf[k] == '\n') {
                        g->order[g->olen] = '\0';
                        on_order(g, g->order);
                        g->olen = 0;
                } else if (g->olen < sizeof(g->order) - 1) {
                        g->order[g->olen++] = buf[k];
                }
        }
        g->input_ended = n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
        return g->input_ended;
}

/* --steady-remote: the whole lines the driver added to GO.samples, to our stdout. */
static void relay_samples(struct bridge *g)
{
        char buf[4096];
        size_t n;

        do {
                const char *nl;

                if (qga_file_read(g->q, g->samples, g->soff, buf, sizeof(buf), &n, g->err,
                                  sizeof(g->err)) < 0) {
                        log_warn("%s", g->err);
                        return;
                }
                nl = n ? memrchr(buf, '\n', n) : NULL;
                if (!nl)
                        return;
                write_all(STDOUT_FILENO, buf, (size_t)(nl - buf) + 1);
                g->soff += (uint64_t)(nl - buf) + 1;
        } while (n == sizeof(buf));
}

/* Until the driver exits: 0 (g->st filled), or <0 (abandoned, or the agent failed). */
static int wait_exit(struct bridge *g)
{
        int rc;

        if (g->st.exited)
                return 0;
        for (;;) {
                if (pass_signals(g) < 0)
                        return -EINTR;
                rc = driver_exited(g);
                if (rc)
                        return rc < 0 ? rc : 0;
                if (g->steady)
                        relay_samples(g);
                /* a sleep that Ctrl-C cuts short; the end of input stops the driver as
                 * SIGINT does (the controller's way to stop its drivers, oltp/oltp.h) */
                if (!g->input_ended && stdin_ready(g->steady ? SAMPLE_POLL_MS : RUN_POLL_MS) &&
                    input_ended(g) && !g->killed)
                        signal_driver(g, "INT");
                else if (g->input_ended)
                        clk_sleep_ns(RUN_POLL_MS * 1000000LL);
        }
}

/* The driver's stdout to ours, line by line, in the guest's clock (its carrier moves it
 * into the controller's), each start decoded and encoded by the one protocol: a guest's
 * number out of range is dropped with a warning. */
static void relay_line(struct bridge *g, const char *p, size_t n)
{
        struct dp_msg m;
        char buf[DP_LINE_MAX + 2];
        int rc = n <= DP_LINE_MAX ? dp_decode(p, n, &m) : -EMSGSIZE, len;

        if (rc == 0 && m.kind == DP_READY && !g->stream) {
                /* said already, when the ready file came */
        } else if (rc == 0 && m.kind == DP_STARTED) {
                if ((len = dp_encode(&m, buf, sizeof(buf))) > 0)
                        write_all(STDOUT_FILENO, buf, (size_t)len);
        } else if (rc < 0 && n > strlen(DRIVER_LINE_STARTED) &&
                   !memcmp(p, DRIVER_LINE_STARTED, strlen(DRIVER_LINE_STARTED))) {
                log_warn("vm%u: the guest's driver: %.*s: not a start", g->vm,
                         (int)(n < 80 ? n : 80), p);
        } else {
                write_all(STDOUT_FILENO, p, n);
                write_all(STDOUT_FILENO, "\n", 1);
        }
}

static void relay_stdout(struct bridge *g)
{
        const char *p = g->st.out, *end = g->st.out + g->st.outlen;

        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

                relay_line(g, p, n);
                p += n + 1;
        }
}

/* Its ready, go and order files, when the driver left them (it died first). */
static void remove_files(struct bridge *g)
{
        char *argv[] = {"-f",    g->ready,   g->go,       g->samples, g->measure,
                        g->stop, g->in_path, g->out_path, NULL},
             why[512];
        struct qga_status st = {0};

        if (qga_run(g->q, "/bin/rm", argv, KILL_TIMEOUT_MS, &st, why, sizeof(why)) < 0)
                log_warn("vm%u: removing %s: %s", g->vm, g->go, why);
        qga_status_free(&st);
}

/* ---- a streaming driver (--start-on-go) ------------------------------------------
 * The agent can neither feed a program's stdin after it started nor stream its stdout,
 * so the driver's stdin is a FIFO in the guest that the agent holds open for writing
 * (the controller's lines go in with guest-file-write, and its end is the handle's close),
 * and its stdout a file read from where the last read ended. Clock questions are answered
 * here, with the guest's clock through the agent, as before a single go. */

/* GO.in (opened here first: "r+" waits for no reader, and the driver's open then finds a
 * writer) and GO.out, then the driver on them. */
static int stream_start(struct bridge *g, char **env)
{
        char mk[320], run[320], *mkargv[] = {"-c", mk, NULL}, *argv[MAX_ARGS + 12];
        struct qga_status st = {0};
        int n = 0, rc;

        snprintf(mk, sizeof(mk), "umask 077 && mkfifo '%s' && : >'%s'", g->in_path, g->out_path);
        rc = qga_run(g->q, "/bin/sh", mkargv, KILL_TIMEOUT_MS, &st, g->err, sizeof(g->err));
        if (rc == 0 && (st.exitcode || st.signal)) {
                snprintf(g->err, sizeof(g->err), "vm%u: making %s in the guest: %.*s", g->vm,
                         g->in_path, (int)strcspn(st.errs ? st.errs : "", "\n"),
                         st.errs ? st.errs : "");
                rc = -EIO;
        }
        qga_status_free(&st);
        if (rc < 0 ||
            (rc = qga_file_open(g->q, g->in_path, "r+", &g->inh, g->err, sizeof(g->err))) < 0)
                return rc;
        g->in_open = 1;
        snprintf(run, sizeof(run), "exec \"$0\" \"$@\" <'%s' >'%s'", g->in_path, g->out_path);
        argv[n++] = "-c";
        argv[n++] = run;
        argv[n++] = GUEST_DRIVER_BIN;
        for (size_t k = 0; g->args[k]; k++)
                argv[n++] = g->args[k];
        argv[n] = NULL;
        return qga_exec(g->q, "/bin/sh", argv, env, NULL, 0, &g->pid, g->err, sizeof(g->err));
}

/* The end of the driver's input: the agent's handle on GO.in closed. */
static void stream_end_input(struct bridge *g)
{
        char why[512];

        if (g->in_open && qga_file_close(g->q, g->inh, why, sizeof(why)) < 0)
                log_warn("vm%u: closing the driver's input: %s", g->vm, why);
        g->in_open = 0;
}

/* One line of the controller's: a clock question answered here, else on to the driver. */
static void stream_order(struct bridge *g)
{
        char why[512];

        if (g->lnlen == strlen(DRIVER_LINE_ASK) && !memcmp(g->ln, DRIVER_LINE_ASK, g->lnlen)) {
                answer_clock(g);
                return;
        }
        g->ln[g->lnlen++] = '\n';
        if (qga_file_write(g->q, g->inh, g->ln, g->lnlen, why, sizeof(why)) < 0) {
                log_warn("vm%u: the driver's input: %s", g->vm, why);
                stream_end_input(g);
        }
}

/* What our stdin has, line by line; its end (or a line over the protocol's bound, which
 * no controller sends) ends the driver's input. */
static void stream_input(struct bridge *g)
{
        char buf[512];
        ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return;
        if (n <= 0) {
                stream_end_input(g);
                return;
        }
        for (ssize_t k = 0; k < n && g->in_open; k++) {
                if (buf[k] == '\n') {
                        stream_order(g);
                        g->lnlen = 0;
                } else if (g->lnlen == DP_LINE_MAX) {
                        log_error("vm%u: a line of the controller's over %d bytes: the driver's "
                                  "input ends",
                                  g->vm, DP_LINE_MAX);
                        stream_end_input(g);
                } else {
                        g->ln[g->lnlen++] = buf[k];
                }
        }
}

/* The whole lines the driver added to GO.out since the last call, relayed; -EMSGSIZE for a
 * line over OUT_LINE_MAX, else 0. An agent's error is logged and read past (the next round
 * reads again), but not once the driver has exited (final): what it wrote would be lost
 * without a word, so the error is returned. */
static int stream_output(struct bridge *g, int final)
{
        size_t n;

        do {
                char *nl;

                if (g->pcap - g->plen < QGA_READ_MAX) {
                        size_t cap = g->pcap ? g->pcap * 2 : 2 * QGA_READ_MAX;
                        char *p = realloc(g->pend, cap);

                        if (!p) {
                                snprintf(g->err, sizeof(g->err), "vm%u: out of memory", g->vm);
                                return -ENOMEM;
                        }
                        g->pend = p;
                        g->pcap = cap;
                }
                if (qga_file_read(g->q, g->out_path, g->ooff, g->pend + g->plen, QGA_READ_MAX, &n,
                                  g->err, sizeof(g->err)) < 0) {
                        if (final)
                                return -EPROTO;
                        log_warn("%s", g->err);
                        return 0; /* read again on the next round */
                }
                g->ooff += n;
                g->plen += n;
                while ((nl = memchr(g->pend, '\n', g->plen))) {
                        size_t len = (size_t)(nl - g->pend);

                        relay_line(g, g->pend, len);
                        memmove(g->pend, nl + 1, g->plen - len - 1);
                        g->plen -= len + 1;
                }
                if (g->plen > OUT_LINE_MAX) {
                        snprintf(g->err, sizeof(g->err),
                                 "vm%u: a line of the guest's driver over %zu bytes", g->vm,
                                 OUT_LINE_MAX);
                        return -EMSGSIZE;
                }
        } while (n == QGA_READ_MAX);
        return 0;
}

/* Until the driver exits (0, g->st filled, every line of it relayed) or <0 (abandoned, the
 * agent failed, a driver's line over the bound: the driver is stopped). */
static int stream_run(struct bridge *g)
{
        int rc;

        for (;;) {
                if (pass_signals(g) < 0)
                        return -EINTR;
                if (g->in_open && stdin_ready(STREAM_POLL_MS))
                        stream_input(g);
                else if (!g->in_open)
                        clk_sleep_ns(STREAM_POLL_MS * 1000000LL);
                if ((rc = stream_output(g, 0)) < 0)
                        break;
                rc = driver_exited(g);
                if (rc)
                        break;
        }
        if (rc == 1 && (rc = stream_output(g, 1)) == 0 && g->plen) /* its last line, unended */
                relay_line(g, g->pend, g->plen);
        if (rc < 0 && !g->st.exited && !g->killed)
                signal_driver(g, "TERM");
        stream_end_input(g);
        return rc < 0 ? rc : 0;
}

static int run_bridge(struct bridge *g, const struct bridge_opts *o, char **argv, int argc)
{
        struct guest_agent a = {0};
        char *env[4];
        int rc;

        if (!strncmp(o->agent, "unix:", 5)) {
                a.socket = o->agent + 5;
        } else if (!strncmp(o->agent, "libvirt:", 8) && o->libvirt_uri) {
                char host[HOSTPORT_HOST_MAX], why[400] = "a test reaches loopback IP literals only";

                if (hostport_uri_host(o->libvirt_uri, host, sizeof(host), why, sizeof(why)) < 0 ||
                    (host[0] && strcmp(host, "localhost") && !hostport_dial_ok(host))) {
                        snprintf(g->err, sizeof(g->err), "guest-driver: option --libvirt-uri: %s",
                                 why);
                        return -EINVAL;
                }
                a.domain = o->agent + 8;
                a.uri = o->libvirt_uri;
        } else {
                snprintf(g->err, sizeof(g->err),
                         "guest-driver: --agent %s is not unix:SOCKET or "
                         "libvirt:DOMAIN with --libvirt-uri",
                         o->agent);
                return -EINVAL;
        }
        if ((rc = guest_args(g, argv, argc)) < 0 ||
            (rc = open_agent(&a, g->vm, &cancel_agent, &g->q, g->err, sizeof(g->err))) < 0)
                return rc;
        guest_env(env);
        if (g->stream)
                rc = stream_start(g, env);
        else
                rc = qga_exec(g->q, GUEST_DRIVER_BIN, g->args, env, g->pwlen ? g->pw : NULL,
                              g->pwlen, &g->pid, g->err, sizeof(g->err));
        memset(g->pw, 0, sizeof(g->pw));
        if (rc < 0) {
                stream_end_input(g);
                return rc;
        }
        fprintf(stderr, "guest-driver: vm%u: %s started in the guest, pid %lld\n", g->vm,
                GUEST_DRIVER_BIN, (long long)g->pid);
        rc = g->stream ? stream_run(g) : wait_ready(g);
        if (rc == 1 && !g->stream) {
                write_all(STDOUT_FILENO, DRIVER_LINE_READY "\n", strlen(DRIVER_LINE_READY) + 1);
                wait_go(g);
                rc = 0;
        }
        if (!rc)
                rc = wait_exit(g);
        if (rc == -EINTR && abandoned) {
                cancel_agent = 0; /* one last word to the guest: the controller is gone */
                signal_driver(g, "TERM");
                stream_end_input(g);
                return rc;
        }
        if (rc < 0)
                return rc;
        remove_files(g);
        relay_stdout(g);
        write_all(STDERR_FILENO, g->st.errs, g->st.errslen);
        if (g->st.truncated)
                log_warn("vm%u: the guest agent kept only part of the driver's output", g->vm);
        return 0;
}

/*
 * Our exit status for how the guest's driver ended, as the guest agent said it. A signal
 * is told as a shell tells it (128 + N), never raised on this process: the number is the
 * guest's, and a SIGSTOP of ours would hang the controller. A status that no exit status
 * can carry is logged as it came and is a lost driver (HCI_EXIT_TARGET), never 0.
 */
static int status_rc(const struct bridge *g)
{
        if (g->st.signal > 0 && g->st.signal < 128) {
                log_warn("vm%u: the guest's driver was killed by signal %lld", g->vm,
                         (long long)g->st.signal);
                return 128 + (int)g->st.signal;
        }
        if (g->st.signal) {
                log_error("vm%u: the guest's driver ended by signal %lld, which is no signal",
                          g->vm, (long long)g->st.signal);
                return HCI_EXIT_TARGET;
        }
        if (g->st.exitcode >= 0 && g->st.exitcode <= 255)
                return (int)g->st.exitcode;
        log_error("vm%u: the guest's driver exited with status %lld, which no exit status holds",
                  g->vm, (long long)g->st.exitcode);
        return HCI_EXIT_TARGET;
}

int guest_driver_main(int argc, char **argv)
{
        struct sigaction sa = {.sa_handler = on_signal}, ign = {.sa_handler = SIG_IGN};
        struct bridge_opts o = {0};
        struct opt_group grp[2] = {{bridge_opt_defs, &o, NULL}, {NULL, NULL, NULL}};
        struct bridge *g = calloc(1, sizeof(*g));
        char *pos[MAX_ARGS + 1];
        int npos = 0, help = 0, rc = HCI_EXIT_USAGE;

        if (!g) {
                log_error("guest-driver: out of memory");
                return HCI_EXIT_TARGET;
        }
        sigemptyset(&sa.sa_mask);
        sigemptyset(&ign.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGPIPE, &ign, NULL);
        if (opt_defaults(grp, g->err, sizeof(g->err)) < 0 ||
            opt_parse_argv(grp, argc - 1, argv + 1, pos, MAX_ARGS + 1, &npos, &help, g->err,
                           sizeof(g->err)) < 0 ||
            !o.agent || npos < 1) {
                log_error("guest-driver: %s", g->err[0] ? g->err : "want --agent and the driver");
                goto out;
        }
        g->vm = (unsigned)o.vm;
        rc = run_bridge(g, &o, pos, npos);
        if (rc < 0) {
                log_error("guest-driver: %s", g->err);
                rc = rc == -EINVAL ? HCI_EXIT_USAGE : HCI_EXIT_TARGET;
        } else {
                rc = status_rc(g);
        }
out:
        qga_status_free(&g->st);
        qga_close(g->q);
        opt_free(grp);
        free(g->pend);
        free(g);
        return rc;
}
