/*
 * drvside.h - the driver's side of the driver protocol (core/driverproto.h)
 * for `hcisweep oltp run --start-on-go`: what a driver started by scale's
 * controller (scale/scale_drivers.h) says and reads, kept out of
 * cmd_oltp.c, which parses, dispatches and reports.
 *
 * Over stdio (a driver here, in a cgroup, or over ssh):
 *   --mysql-password-stdin  the first line of stdin is the password;
 *   --start-on-go           once connected and prepared: "ready" on stdout,
 *                           then wait for "go" on stdin, answering every
 *                           "clock" with this host's clock (the ssh carrier
 *                           measures the offset so), then "started NS";
 *                           after the go the end of stdin stops the run as
 *                           SIGINT does;
 *   --steady-remote         a sample on stdout every STEADY_SAMPLE_S, the
 *                           controller's "measure" and "stop" read on stdin;
 *   --live-intervals        every report interval as a sample (its length,
 *                           transactions and errors so far, its latency
 *                           buckets), for scale's live endpoint;
 *   --result-stdout         the result line, with cpu= the driver's own CPU
 *                           (getrusage: user + system, all its threads),
 *                           then the result document.
 * In a guest (--go-file, --ready-file: its stdin is not live, its stdout read
 * once it exits, lab/guest_driver.h): ready is a file it creates, go a file
 * it polls for, samples are appended to GO-FILE.samples and the orders are
 * GO-FILE.measure and GO-FILE.stop, all removed at the end.
 *
 * One struct drvside per run, on the driver's one engine thread.
 */
#ifndef HCI_OLTP_DRVSIDE_H
#define HCI_OLTP_DRVSIDE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "core/driverproto.h"
#include "oltp/engine.h"

struct oltp_cli;

struct drvside {
        /* the options (cmd_oltp.c's parse fills them) */
        int start_on_go, steady_remote;
        const char *ready_file, *go_file;
        const volatile sig_atomic_t *stop; /* the driver's signal flag */
        /* state */
        int input_ended;  /* stdin ended after "go" */
        char in_line[32]; /* --steady-remote: a line of stdin so far */
        size_t in_len;
        enum steady_phase told; /* --steady-remote: what the controller said last */
        int sample_fd;          /* --go-file: GO-FILE.samples, or -1 */
        char result_line[64];   /* the result's header line (results/save.h's marker) */

        uint64_t iv_txns, iv_errors; /* --live-intervals: measured so far */
};

/* d for a run with these options; stop is set by the driver's signal handler. */
void drvside_init(struct drvside *d, int start_on_go, int steady_remote, const char *ready_file,
                  const char *go_file, const volatile sig_atomic_t *stop);

/* --mysql-password-stdin: the password line from stdin into c. 0, or -EINVAL / -ENOMEM
 * with err. */
int drvside_password(struct oltp_cli *c, char *err, size_t errlen);

/* The engine's on_ready: with --start-on-go say ready and wait for the go (0 to run,
 * -1 for no run: the end of input, a signal, a bad order); without, 0 at once. */
int drvside_ready(struct drvside *d);

/* The engine's on_tick: after the go, watch stdin for its end (a guest's is not live). */
void drvside_tick(struct drvside *d);

/* --steady-remote: the engine's on_sample and remote_phase. */
void drvside_sample(struct drvside *d, double since_go_s, uint64_t done);
enum steady_phase drvside_phase(struct drvside *d);

/* --live-intervals: the engine's on_interval (a measured report interval). */
void drvside_interval(struct drvside *d, const struct oltp_interval *iv);

/*
 * --result-stdout: the line before the result, in d->result_line (give that to
 * res_save_open_stdout; it must outlive the save). drvside_result_cpu fills in
 * the CPU spent so far: call it just before the final save.
 */
const char *drvside_result_marker(struct drvside *d);
void drvside_result_cpu(struct drvside *d);

/* The run is over: the guest's files are removed, the samples file closed. */
void drvside_end(struct drvside *d);

#endif
