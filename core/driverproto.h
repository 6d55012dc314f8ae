/*
 * driverproto.h - the driver protocol: the lines a load driver and the one
 * who started it (the controller) exchange, the bounded reader of those
 * lines, and the carrier, the controller's end of one driver, which owns
 * the clock offset of the machine the driver runs on.
 *
 * A driver is this very binary run elsewhere: `hcisweep oltp run
 * --start-on-go` (scale's --driver-placement vm), or `hcisweep block ...`
 * on a block client. It reads orders on its stdin and writes its lines on
 * its stdout; anything else it prints there (its report) is a line of
 * kind DP_OTHER, which readers skip.
 *
 *   controller -> driver                driver -> controller
 *   PASSWORD (first line, optional)
 *                                       hcisweep-driver ready [K]
 *   clock                               hcisweep-driver clock NS
 *   go [K [AT]]                         hcisweep-driver started NS [K]
 *                                       hcisweep-driver sample S DONE [K]
 *                                       hcisweep-driver sample S DONE [K] iv=L err=E lat=B
 *   measure [K]
 *   stop [K]
 *   (end of input: stop as on SIGINT)   hcisweep-driver result [K] [cpu=S]
 *                                       DOCUMENT (one line of JSON)
 *
 * K is a point of a sweep (block's queue depths; 0, and left out on the
 * wire, for oltp's one run). NS are nanoseconds of CLOCK_REALTIME on the
 * driver's machine; AT, when given, is the instant to start at in that
 * same clock (the carrier converts from the controller's). S is seconds
 * since the go, DONE the work done since the go (transactions, I/Os).
 * The second form is a report interval's (`oltp run --live-intervals`,
 * scale's live endpoint): S seconds measured at its end, DONE transactions
 * and E errors measured so far, L its length, B its latency buckets (core/
 * hist.h's layout) as "D:C,D:C,...", D the distance of a bucket's index
 * from the previous pair's (the first's from 0), C its count; to stay on
 * one line neighbouring buckets may be pooled (dp_lat_format). Older
 * drivers never write it (they are not given the option); an older
 * controller is never asked to read it.
 * cpu=S is the driver's own CPU time (user + system, its whole life), so
 * the controller never takes its ssh client's or bridge's CPU for it.
 * DOCUMENT is opaque here: oltp's result, or block's per-point result;
 * its reader decides what it means.
 *
 * Bounds: every line is at most DP_LINE_MAX bytes before its newline, the
 * document DP_DOC_MAX; a longer one is an error naming the driver, never
 * cut and parsed. Numbers are checked: a number out of range is -ERANGE,
 * never wrapped, and every conversion into the controller's clock
 * saturates.
 *
 * Threads: nothing here has global state. A reader or a carrier belongs to
 * the one thread that made it (the controller's loop, a bridge).
 * Errors: 0 / negative errno, with one line in err (the caller's buffer).
 */
#ifndef HCI_DRIVERPROTO_H
#define HCI_DRIVERPROTO_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* The words on the wire (kept for the few that match lines by hand: tests, docs). */
#define DRIVER_LINE_READY   "hcisweep-driver ready"
#define DRIVER_LINE_STARTED "hcisweep-driver started"
#define DRIVER_LINE_RESULT  "hcisweep-driver result"
#define DRIVER_LINE_SAMPLE  "hcisweep-driver sample"
#define DRIVER_LINE_CLOCK   "hcisweep-driver clock"
#define DRIVER_LINE_GO      "go"
#define DRIVER_LINE_MEASURE "measure"
#define DRIVER_LINE_STOP    "stop"
#define DRIVER_LINE_ASK     "clock"

#define DP_LINE_MAX     1024       /* bytes of a line, its newline excluded */
#define DP_DOC_MAX      (64 << 20) /* bytes of a result's document (core/resfile.h's limit) */
#define DP_PASSWORD_MAX 1023       /* bytes of the password line, its newline excluded */
#define DP_CLOCK_TRIES  5          /* round trips dp_carrier_measure takes the shortest of */

enum dp_kind {
        DP_OTHER = 0, /* not a protocol line: the driver's report; skipped */
        /* driver -> controller */
        DP_READY,   /* connected and prepared for point K; waits for its go */
        DP_STARTED, /* began point K at ns (its clock) */
        DP_SAMPLE,  /* t_s seconds after the go, done units of work so far */
        DP_CLOCK,   /* answer to DP_ASK: its clock read ns */
        DP_RESULT,  /* point K's result: doc, doclen; cpu_s (< 0: not said) */
        /* controller -> driver */
        DP_ASK,     /* read your clock (answered by DP_CLOCK) */
        DP_GO,      /* start point K, at ns of its clock (0: now) */
        DP_MEASURE, /* the warm-up is over: measure from now */
        DP_STOP,    /* stop now, and give the result */
};

/* One line, decoded. Plain data: fields a kind does not use are 0. */
struct dp_msg {
        enum dp_kind kind;
        unsigned point; /* K; 0 when the line does not say */
        int64_t ns;     /* STARTED, CLOCK: the driver's clock; GO: when to start, 0 now */
        double t_s;     /* SAMPLE */
        uint64_t done;  /* SAMPLE */
        /* SAMPLE of a report interval: iv_s its length (> 0; 0 for a --target-ci sample),
         * errors so far, lat its buckets' text (dp_lat_format; decoded: points into the
         * line, checked, valid as doc is; encoded: the caller's) */
        double iv_s;
        uint64_t errors;
        const char *lat;
        size_t latlen;
        double cpu_s; /* RESULT: the driver's CPU seconds; -1 not said */
        /* RESULT: the document. Decoded: points into the reader, valid until its next
         * call. Encoded: the caller's, written after the header line. */
        const char *doc;
        size_t doclen;
        int64_t local_ns; /* dp_carrier_next: ns moved into the controller's clock */
};

/*
 * m as its line, with the newline, NUL-terminated, into buf (for DP_RESULT
 * the header line only: dp_send writes the document after it). The length
 * (without the NUL), or -ENOSPC when it does not fit, -EINVAL for a kind
 * with no line (DP_OTHER).
 */
int dp_encode(const struct dp_msg *m, char *buf, size_t len);

/*
 * The line line[0..len) (no newline) into *m. 0 (DP_OTHER for a line that
 * is not the protocol's), -EPROTO for a protocol word with bad arguments,
 * -ERANGE for a number out of range. A RESULT's document is the next
 * line: the reader takes it.
 */
int dp_decode(const char *line, size_t len, struct dp_msg *m);

struct hist;

/*
 * h's buckets as a sample's lat= text, NUL-terminated, into buf: pooled by
 * 2, 4, ... (aligned, so a pool of at most 128 stays inside one power of
 * two: within 1/64 of the value) until it fits in len - 1 bytes. Its
 * length, or -ENOSPC (len too small even pooled), -ENOMEM.
 */
int dp_lat_format(const struct hist *h, char *buf, size_t len);

/*
 * Add a sample's lat text to h, each count at its bucket's middle (NULL h:
 * only check it). 0, -EPROTO (not "D:C" pairs), -ERANGE (a bucket past the
 * layout, a count that would overflow).
 */
int dp_lat_add(const char *lat, size_t len, struct hist *h);

/* ---- reading: the bounded line reader ----------------------------------------- */

struct dp_reader;

/* A reader for the lines of who (its errors say "WHO: ..."; copied). NULL on ENOMEM. */
struct dp_reader *dp_reader_new(const char *who);
void dp_reader_free(struct dp_reader *r);

/*
 * Read what fd has now (one read(2); fd should be O_NONBLOCK): >0 bytes
 * taken, 0 end of file, -EAGAIN nothing yet, -errno a read error.
 */
int dp_reader_fill(struct dp_reader *r, int fd);

/* Bytes got some other way (a guest's captured stdout): 0, or -ENOMEM. */
int dp_reader_push(struct dp_reader *r, const void *buf, size_t n);

/*
 * The next whole message: 1 with *m, 0 when no whole one is there yet
 * (DP_OTHER lines are skipped), -EMSGSIZE a line or document over its
 * bound, -EPROTO / -ERANGE a bad protocol line, each with err naming who
 * and the line's kind. After an error the reader is spent: later calls
 * give the same error, and dp_reader_fill drops what it reads (a driver
 * that goes on writing is neither blocked nor kept in memory). A last
 * line cut by the end of file is dropped.
 */
int dp_reader_next(struct dp_reader *r, struct dp_msg *m, char *err, size_t errlen);

/* ---- writing ------------------------------------------------------------------ */

/* m's line (and a RESULT's document, then a newline) to fd, whole, EINTR retried. */
int dp_send(int fd, const struct dp_msg *m, char *err, size_t errlen);

/*
 * The password as the first line of a driver's input (--mysql-password-stdin):
 * never on a command line (/proc/PID/cmdline, the remote host's too) nor in
 * a file. -EINVAL if it has a newline or is over DP_PASSWORD_MAX. Every
 * copy made here is wiped.
 */
int dp_send_password(int fd, const char *pw, char *err, size_t errlen);

/*
 * The driver's side: the password line from fd, read byte by byte so
 * nothing after it (the go) is taken from the pipe; '\r' dropped. 0 with
 * pw (NUL-terminated), -EINVAL (no line, or over len - 1 bytes: pw wiped).
 */
int dp_read_password(int fd, char *pw, size_t len, char *err, size_t errlen);

/* ---- clocks ------------------------------------------------------------------- */

/* CLOCK_REALTIME in ns: the clock of every NS on the wire. */
int64_t dp_real_ns(void);

/*
 * This binary's path (/proc/self/exe resolved: a child started by it is
 * called "hcisweep", not "exe"), the path "/proc/self/exe" if that fails.
 */
void dp_self_exe(char *buf, size_t len);

/* This process's CPU time so far (user + system, every thread), seconds; -1 unknown.
 * What a driver says as its result line's cpu=. */
double dp_self_cpu_s(void);

/* The remote clock minus ours, from the round trip with the smallest error. */
struct dp_clock {
        int known;
        int64_t offset_ns; /* remote - local */
        int64_t err_ns;    /* half the round trip: the offset is right within it */
};

/*
 * One round trip: local t0, the remote read remote_ns, local t1. Kept if
 * its round trip is the shortest yet; ignored when t1 < t0 or the sums
 * overflow (a hostile or broken answer).
 */
void dp_clock_add(struct dp_clock *c, int64_t t0, int64_t remote_ns, int64_t t1);

/* remote_ns in the local clock (remote_ns - offset), saturating; as is when unknown. */
int64_t dp_clock_to_local(const struct dp_clock *c, int64_t remote_ns);
int64_t dp_clock_to_remote(const struct dp_clock *c, int64_t local_ns);

/* a - b, saturating at INT64_MIN / INT64_MAX. */
int64_t dp_sub_sat(int64_t a, int64_t b);

/* ---- carriers: the controller's end of one driver ----------------------------- */

/*
 * A carrier moves one driver's lines and knows its clock. Whatever runs the
 * driver (a local process in a cgroup, an ssh client, the guest-agent
 * bridge of lab/guest_driver.h) is a child of ours on two pipes; the ops
 * say how the driver's clock is read:
 *   dp_carrier_pipe   this host: the same clock, offset 0 exactly;
 *   dp_carrier_ssh    another host: a DP_ASK line, answered by DP_CLOCK;
 *   dp_carrier_guest  a VM's guest, through the guest-agent bridge of
 *                     lab/guest_driver.h: a DP_ASK line as over ssh, which the
 *                     bridge answers with the guest's clock (guest-get-time),
 *                     so the round trip, and the error bound, include the
 *                     agent's. The bridge relays the driver's lines in the
 *                     guest's clock; this carrier moves them into ours.
 * Which one a lab's drivers need is the backend's (lab_backend_ops.
 * driver_carrier).
 */
struct dp_carrier;

struct dp_carrier_ops {
        const char *name; /* "pipe", "ssh", "guest": what drivers[].carrier says */
        /* One reading of the clock at the other end, waiting at most timeout_ms: 0 with
         * *remote_ns, or -errno with err. */
        int (*read_clock)(struct dp_carrier *c, int64_t *remote_ns, int timeout_ms, char *err,
                          size_t errlen);
};

extern const struct dp_carrier_ops dp_carrier_pipe;
extern const struct dp_carrier_ops dp_carrier_ssh;
extern const struct dp_carrier_ops dp_carrier_guest;

/*
 * The carrier of the driver called who ("vm3's driver") on in_fd (our end
 * of its stdin: we write) and out_fd (its stdout: we read; made
 * O_NONBLOCK). It owns both fds from here on, also when it returns NULL
 * (ENOMEM). ctx is the ops' own (dp_carrier_ctx).
 */
struct dp_carrier *dp_carrier_new(const struct dp_carrier_ops *ops, void *ctx, int in_fd,
                                  int out_fd, const char *who);
/* Closes what is still open. NULL is fine. */
void dp_carrier_free(struct dp_carrier *c);

void *dp_carrier_ctx(const struct dp_carrier *c);
const char *dp_carrier_name(const struct dp_carrier *c); /* its ops' name */
int dp_carrier_out_fd(const struct dp_carrier *c);       /* -1 once at its end */

/*
 * The driver's clock against ours (ops->read_clock DP_CLOCK_TRIES times;
 * shortest round trip kept). Call it when the driver is ready and waits
 * for its go. 0, or -errno with err (the clock then stays unknown and
 * times are taken as they come).
 */
int dp_carrier_measure(struct dp_carrier *c, int timeout_ms, char *err, size_t errlen);
const struct dp_clock *dp_carrier_clock(const struct dp_carrier *c);

/*
 * m to the driver; a DP_GO's ns is in the controller's clock here and goes
 * out in the driver's. -EPIPE once its input is closed.
 */
int dp_carrier_send(struct dp_carrier *c, const struct dp_msg *m, char *err, size_t errlen);
int dp_carrier_send_password(struct dp_carrier *c, const char *pw, char *err, size_t errlen);

/* End the driver's input: before its go it ends without a run, after it stops as on
 * SIGINT and gives what it measured. How every driver is stopped. */
void dp_carrier_close_input(struct dp_carrier *c);

/*
 * Read what the driver wrote (as dp_reader_fill on its stdout; at end of
 * file the out fd is closed and dp_carrier_out_fd is -1), then its next
 * message as dp_reader_next, with m->local_ns = m->ns in our clock.
 */
int dp_carrier_fill(struct dp_carrier *c);
int dp_carrier_next(struct dp_carrier *c, struct dp_msg *m, char *err, size_t errlen);

/* ---- the driver's side over stdio --------------------------------------------- */

/*
 * After DP_READY: wait on in_fd for the go, answering DP_ASK with DP_CLOCK
 * on out_fd. 1 with *go, 0 on the end of input, another order or *stop
 * set (may be NULL), -errno with err for a bad or over-long line.
 */
int dp_wait_go(int in_fd, int out_fd, const volatile sig_atomic_t *stop, struct dp_msg *go,
               char *err, size_t errlen);

#endif
