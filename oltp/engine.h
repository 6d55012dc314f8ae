/*
 * engine.h - the OLTP event loop: many connections, few threads.
 *
 * oltp_engine_run() opens cfg->nconns connections, spread round-robin over
 * the hosts (connection i talks to host i % nhosts, as sysbench does) and
 * over at most one thread per core. Each thread waits on its connections
 * with epoll and walks each one through its transactions as a small state
 * machine over the driver's non-blocking calls. Closed loop by default: a
 * connection starts its next transaction as soon as the last one commits.
 * With cfg->rate > 0 arrivals are Poisson at that total rate, queue per
 * thread, and latency counts from the scheduled arrival (no coordinated
 * omission); the wait in the queue is kept apart too.
 *
 * Errors: numbers in cfg->ignore (deadlocks, lock waits) roll the
 * transaction back and run a new one, counted in errors; a lost connection
 * reconnects with backoff, prepares again and counts in reconnects; a host
 * that stays unreachable longer than cfg->retry_budget_s ends the run
 * (exit_code 3, results so far kept). Any error on the first connect of a
 * connection (credentials, unknown database, no server) ends it at once
 * (exit_code 3), as does a failing prepare. Failed reconnect attempts count
 * in failed_connects and the time a host's connections spent down in its
 * down_s, so an outage shorter than the budget still shows.
 *
 * With cfg->target_ci_pct > 0 the warm-up and the measured time are not
 * fixed: throughput is sampled every STEADY_SAMPLE_S from the start and
 * core/steady.h's rule ends the warm-up once the series has settled and the
 * run once the 95% CI of its mean is within target_ci_pct percent.
 * warmup_s and time_s are then the longest each may take (warmup_s 0: half
 * of time_s), and res->steady says what the rule found.
 *
 * The calling thread reports: every cfg->report_s it hands the interval's
 * figures to cfg->on_interval. Call from one thread at a time.
 */
#ifndef HCI_OLTP_ENGINE_H
#define HCI_OLTP_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/hist.h"
#include "core/steady.h"
#include "oltp/driver.h"
#include "oltp/rand.h"
#include "oltp/workload.h"

struct oltp_counts {
        uint64_t txns, reads, writes, other, errors, reconnects;
        uint64_t failed_connects; /* reconnect attempts of a lost connection that failed */
};

/* d += s, field by field. */
void oltp_counts_add(struct oltp_counts *d, const struct oltp_counts *s);

struct oltp_interval {
        double t_s;   /* seconds since measurement start, at the interval's end */
        double len_s; /* its length */
        struct oltp_counts c;
        const struct hist *lat; /* transaction latency within the interval */
        uint64_t queue_len;     /* rate mode: transactions waiting to start, at the end */
        unsigned busy;          /* connections inside a transaction, at the end */
        unsigned threads;       /* connections */
};

struct oltp_result;

struct oltp_engine_cfg {
        const struct oltp_driver_ops *ops;
        const struct oltp_workload *wl;
        const struct oltp_dist *dist;
        const struct oltp_dsn *hosts;
        unsigned nhosts;
        unsigned nconns;
        unsigned nthreads;      /* event threads; 0: one per core, at most nconns */
        struct oltp_io_tune io; /* handed to ops->tune before any connection */
        int pin_threads;        /* event thread i on the i-th CPU of the process's mask */
        /* nthreads 0: at most one thread per this many connections (0 or 1: one per core) */
        unsigned conns_per_thread;
        unsigned spin_us; /* event threads poll this long before sleeping (0: never) */
        double time_s;    /* measured time (0: until events) */
        double warmup_s;
        double report_s; /* 0: no intervals */
        double rate;     /* total transactions per second; 0: closed loop */
        uint64_t events; /* stop after this many transactions (0: until time) */
        const unsigned *ignore;
        unsigned nignore;
        int ignore_all;        /* --mysql-ignore-errors=all */
        double retry_budget_s; /* how long a host may stay unreachable */
        uint64_t seed;
        void (*on_interval)(void *user, const struct oltp_interval *iv);
        /* optional, a few times a second: seconds of warm-up + time done so far */
        void (*on_tick)(void *user, double done_s);
        /* > 0: warm-up and measured time by the steady-state rule (above) */
        double target_ci_pct;
        /* optional, with target_ci_pct: after every sample, the phase it left the run in,
         * the figures so far and the seconds probably left (steady_left_s) */
        void (*on_steady)(void *user, enum steady_phase ph, const struct steady_res *r,
                          double left_s);
        /*
         * optional, instead of target_ci_pct's own rule, for a driver whose
         * controller decides on the merged series of many drivers
         * (scale/scale_drivers.h): on_sample gets, every STEADY_SAMPLE_S
         * from the go, the seconds since the go and the transactions done
         * so far, warm-up included; remote_phase, asked every few ms,
         * returns STEADY_MEASURE to end the warm-up now (once), STEADY_DONE
         * to end the run now, else STEADY_WARMUP. warmup_s and time_s stay
         * the longest each may take, time_s counted from the warm-up's end;
         * res->have_steady stays 0 (the controller keeps the rule's result).
         * Both run on the calling thread. Leave target_ci_pct 0 with them.
         */
        void (*on_sample)(void *user, double since_go_s, uint64_t done);
        enum steady_phase (*remote_phase)(void *user);
        /*
         * optional, every checkpoint_s once measuring: the figures so far
         * (counts, histograms, seconds; no per-connection or down-time
         * figures), valid during the call only. Runs on the calling thread,
         * as on_interval does, so a checkpoint can save a partial result.
         */
        void (*on_checkpoint)(void *user, const struct oltp_result *so_far);
        double checkpoint_s;
        /*
         * optional: called once every connection is connected and prepared,
         * before the warm-up starts (a driver placed by scale waits here for
         * its "go", so all drivers share one window). 0 starts the run; else
         * it ends with nothing measured, as after a stop request.
         */
        int (*on_ready)(void *user);
        void *user;
};

struct oltp_host_result {
        struct oltp_counts c;
        struct hist *lat;
        /*
         * Measured seconds its connections spent disconnected, averaged
         * over them (a host down for good from 5 s of 20: about 15), and
         * whether any was still down when the run ended. A connection whose
         * operation got no answer for the reconnect budget (a frozen
         * server), or none by the end of the run, counts as down from when
         * it began to wait. Never more than window_s.
         */
        double down_s;
        int down_at_end;
};

struct oltp_result {
        double seconds;  /* measured time */
        double window_s; /* from the end of the warm-up to the stop: what down_s is out of */
        struct oltp_counts total;
        struct hist *lat;   /* transaction latency, all hosts merged */
        struct hist *qwait; /* rate mode: arrival to start */
        unsigned nhosts;
        struct oltp_host_result *hosts;
        unsigned nconns;
        uint64_t *conn_txns; /* per connection, for sysbench's fairness lines */
        double *conn_busy_s; /* per connection: sum of its transaction latencies */
        uint64_t queue_overflows;
        unsigned threads_used;
        int have_steady;          /* target_ci_pct was set */
        struct steady_res steady; /* what the steady-state rule found */
        int exit_code;            /* an enum hci_exit */
        char err[512];            /* why, when exit_code != 0 */
        int interrupted;          /* oltp_engine_request_stop() ended it */
};

/*
 * Run to the end (time, events, or a fatal error). res is filled in every
 * case where the return is 0, including runs that ended on an error (see
 * res->exit_code). Returns -errno only when nothing could start (ENOMEM,
 * epoll), with err set. Free res with oltp_result_free.
 */
int oltp_engine_run(const struct oltp_engine_cfg *cfg, struct oltp_result *res, char *err,
                    size_t errlen);
void oltp_result_free(struct oltp_result *res);

/* The longest warm-up a run of cfg may take: warmup_s, or half of time_s with
 * target_ci_pct and no warmup_s. */
double oltp_engine_warmup_max(const struct oltp_engine_cfg *cfg);
/* The longest a run of cfg may take, warm-up included (its worst case). */
double oltp_engine_max_s(const struct oltp_engine_cfg *cfg);

/* Request a stop from a signal handler or another thread (the run ends as if its time was up). */
void oltp_engine_request_stop(void);

#endif
