/*
 * drvside.c - the driver's side of the driver protocol for `oltp run
 * --start-on-go` (drvside.h). Every line is encoded and decoded by
 * core/driverproto.c; only the guest's files are this file's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "oltp/drvside.h"
#include "oltp/oltpopts.h"

/* How long a driver waits for its --go-file: its controller gives every driver 120 s to be
 * ready and then says go or ends them; past this no one is left to say it. */
#define GO_FILE_WAIT_S  600
#define GO_FILE_POLL_NS (1000 * 1000LL)     /* its poll: part of the start skew */
#define GO_AT_MAX_NS    (60 * 1000000000LL) /* a go at an instant further ahead: at once */
#define GUEST_PATH_MAX  4200                /* --go-file and a suffix */

void drvside_init(struct drvside *d, int start_on_go, int steady_remote, const char *ready_file,
                  const char *go_file, const volatile sig_atomic_t *stop)
{
        memset(d, 0, sizeof(*d));
        d->start_on_go = start_on_go;
        d->steady_remote = steady_remote;
        d->ready_file = ready_file;
        d->go_file = go_file;
        d->stop = stop;
        d->sample_fd = -1;
}

int drvside_password(struct oltp_cli *c, char *err, size_t errlen)
{
        char pw[DP_PASSWORD_MAX + 1], why[128];
        int rc = dp_read_password(STDIN_FILENO, pw, sizeof(pw), why, sizeof(why));

        if (rc < 0)
                return errf(err, errlen, rc, "option --mysql-password-stdin: %s", why);
        if (oltp_cli_give_password(c, pw) < 0)
                rc = errf(err, errlen, -ENOMEM, "out of memory");
        explicit_bzero(pw, sizeof(pw));
        return rc;
}

/* --go-file: 1 once it exists, 0 on a signal or when no one said go in time. */
static int wait_go_file(struct drvside *d)
{
        struct timespec poll_ts = {0, GO_FILE_POLL_NS};
        uint64_t deadline = clk_now_ns() + GO_FILE_WAIT_S * 1000000000ULL;
        int fd, go = 0;

        if (d->ready_file && (fd = open(d->ready_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) >= 0)
                close(fd);
        else if (d->ready_file)
                log_error("oltp run: --ready-file %s: %s", d->ready_file, strerror(errno));
        while (!*d->stop && !(go = access(d->go_file, F_OK) == 0) && clk_now_ns() < deadline)
                nanosleep(&poll_ts, NULL);
        if (!go && !*d->stop)
                log_error("oltp run: no %s within %d s: not started", d->go_file, GO_FILE_WAIT_S);
        if (d->ready_file)
                unlink(d->ready_file);
        unlink(d->go_file);
        return go;
}

/* A go at an instant (this host's clock, the carrier having moved it here): wait for it. */
static void wait_until(const struct drvside *d, int64_t at_ns)
{
        int64_t now = dp_real_ns();
        struct timespec ts = {(time_t)(at_ns / 1000000000LL), (long)(at_ns % 1000000000LL)};

        if (at_ns <= now || at_ns - now > GO_AT_MAX_NS)
                return;
        while (!*d->stop && clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

/* One line to the controller on stdout, after whatever the report left in its buffer. */
static int say(const struct dp_msg *m)
{
        char err[160];

        fflush(stdout);
        if (dp_send(STDOUT_FILENO, m, err, sizeof(err)) == 0)
                return 0;
        log_error("oltp run: to the controller: %s", err);
        return -1;
}

/*
 * The engine is connected and prepared: say so, wait for the go (answering
 * the controller's clock questions meanwhile), then say when it came
 * (CLOCK_REALTIME ns), so the controller gives many drivers one window and
 * measures how late each began, in its own clock.
 */
int drvside_ready(struct drvside *d)
{
        struct dp_msg go;
        char err[256];
        int rc;

        if (!d->start_on_go)
                return 0;
        if (say(&(struct dp_msg){.kind = DP_READY}) < 0)
                return -1;
        if (d->go_file) {
                rc = wait_go_file(d);
        } else {
                rc = dp_wait_go(STDIN_FILENO, STDOUT_FILENO, d->stop, &go, err, sizeof(err));
                if (rc < 0)
                        log_error("oltp run: from the controller: %s", err);
                if (rc == 1)
                        wait_until(d, go.ns);
        }
        if (rc != 1 || *d->stop)
                return -1;
        return say(&(struct dp_msg){.kind = DP_STARTED, .ns = dp_real_ns()});
}

/* --steady-remote: a whole line the controller wrote after the go. */
static void on_order(struct drvside *d, const char *line)
{
        struct dp_msg m;

        if (dp_decode(line, strlen(line), &m) < 0)
                return;
        if (m.kind == DP_MEASURE && d->told == STEADY_WARMUP)
                d->told = STEADY_MEASURE;
        else if (m.kind == DP_STOP)
                d->told = STEADY_DONE;
}

/*
 * After the go, the end of stdin stops the run as SIGINT does (the result,
 * partial, still goes out). That is how the controller stops its drivers on
 * Ctrl-C, and how a driver over ssh learns that its controller or the
 * connection is gone (no signal crosses ssh without a terminal), so no
 * driver outlives its run. Lines read are --steady-remote's orders.
 */
static void watch_input(struct drvside *d)
{
        struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
        char buf[64];
        ssize_t n;

        if (d->input_ended || poll(&p, 1, 0) <= 0)
                return;
        n = read(STDIN_FILENO, buf, sizeof(buf));
        for (ssize_t k = 0; k < n; k++) {
                if (buf[k] == '\n') {
                        d->in_line[d->in_len] = '\0';
                        on_order(d, d->in_line);
                        d->in_len = 0;
                } else if (d->in_len < sizeof(d->in_line) - 1) {
                        d->in_line[d->in_len++] = buf[k];
                }
        }
        if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN)))
                return;
        d->input_ended = 1;
        log_warn("oltp run: the controller closed this driver's input: stopping, as on SIGINT");
        oltp_engine_request_stop();
}

void drvside_tick(struct drvside *d)
{
        if (d->start_on_go && !d->go_file) /* a guest's stdin is not live */
                watch_input(d);
}

/* --go-file: GO-FILE.samples, .measure or .stop. */
static void guest_path(const struct drvside *d, const char *suffix, char *out, size_t len)
{
        snprintf(out, len, "%s.%s", d->go_file, suffix);
}

/* A sample to the controller: on stdout, or appended to GO-FILE.samples in a guest (its
 * bridge relays that file's whole lines). */
static void emit(struct drvside *d, const struct dp_msg *m)
{
        char line[DP_LINE_MAX + 2], path[GUEST_PATH_MAX];
        int n;

        if (!d->go_file) {
                say(m);
                return;
        }
        if ((n = dp_encode(m, line, sizeof(line))) < 0)
                return;
        if (d->sample_fd < 0) {
                guest_path(d, "samples", path, sizeof(path));
                d->sample_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        }
        if (d->sample_fd >= 0 && write(d->sample_fd, line, (size_t)n) != n)
                log_warn("oltp run: a sample could not be written: %s", strerror(errno));
}

void drvside_sample(struct drvside *d, double since_go_s, uint64_t done)
{
        emit(d, &(struct dp_msg){.kind = DP_SAMPLE, .t_s = since_go_s, .done = done});
}

void drvside_interval(struct drvside *d, const struct oltp_interval *iv)
{
        /* what is left of a line once its words and numbers are written */
        char lat[DP_LINE_MAX - 160];
        int n;

        d->iv_txns += iv->c.txns;
        d->iv_errors += iv->c.errors;
        if (!(iv->len_s > 0) || !iv->lat || (n = dp_lat_format(iv->lat, lat, sizeof(lat))) < 0)
                return;
        emit(d, &(struct dp_msg){.kind = DP_SAMPLE,
                                 .t_s = iv->t_s,
                                 .done = d->iv_txns,
                                 .iv_s = iv->len_s,
                                 .errors = d->iv_errors,
                                 .lat = lat,
                                 .latlen = (size_t)n});
}

/* What the controller said (asked every few ms): a line on stdin, or GO-FILE.measure and
 * GO-FILE.stop made by the guest bridge. */
enum steady_phase drvside_phase(struct drvside *d)
{
        char path[GUEST_PATH_MAX];

        if (!d->go_file) {
                watch_input(d);
                return d->told;
        }
        guest_path(d, "stop", path, sizeof(path));
        if (access(path, F_OK) == 0)
                return d->told = STEADY_DONE;
        guest_path(d, "measure", path, sizeof(path));
        if (d->told == STEADY_WARMUP && access(path, F_OK) == 0)
                d->told = STEADY_MEASURE;
        return d->told;
}

/* The header line as dp_encode writes it, without its newline (save.h adds one). */
static void result_line(struct drvside *d, double cpu_s)
{
        struct dp_msg m = {.kind = DP_RESULT, .cpu_s = cpu_s};

        if (dp_encode(&m, d->result_line, sizeof(d->result_line)) < 0)
                snprintf(d->result_line, sizeof(d->result_line), "%s", DRIVER_LINE_RESULT);
        d->result_line[strcspn(d->result_line, "\n")] = '\0';
}

const char *drvside_result_marker(struct drvside *d)
{
        result_line(d, -1);
        return d->result_line;
}

void drvside_result_cpu(struct drvside *d)
{
        result_line(d, dp_self_cpu_s());
}

void drvside_end(struct drvside *d)
{
        static const char *const suffix[] = {"samples", "measure", "stop"};
        char path[GUEST_PATH_MAX];

        int wrote = d->sample_fd >= 0;

        if (d->sample_fd >= 0)
                close(d->sample_fd);
        d->sample_fd = -1;
        for (size_t i = 0; d->go_file && (d->steady_remote || wrote) && i < 3; i++) {
                guest_path(d, suffix[i], path, sizeof(path));
                unlink(path);
        }
}
