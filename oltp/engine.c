/*
 * engine.c - connections as state machines over a reactor, a few threads.
 *
 * Why this shape: a sysbench thread per connection stops scaling long
 * before the servers do when one client drives dozens of database VMs.
 * Here a thread owns a slice of the connections and a reactor
 * (core/reactor.h): each connection's socket and timer call back into the
 * state machine below, which walks CONNECT -> PREPARE (every statement
 * slot) -> IDLE -> EXEC (the planned steps of one transaction) and back,
 * through the driver's start/cont calls, and falls into BACKOFF/CONNECT
 * when its server goes away. A driver call that completes at once is
 * followed immediately, so a fast server costs no epoll round trip per
 * statement. The loop itself (worker_main) only adds what the reactor does
 * not know: the start of the run, arrivals of --rate, and the stop.
 *
 * Accounting: each thread counts into one of its two tallies (counts,
 * histograms and down time per host) and the reporting thread, at every
 * --report-interval and checkpoint, switches the thread to the other and
 * drains the first into its own totals (see drain_worker): no lock on the
 * path of a transaction. Nothing is allocated per statement: steps and
 * parameter buffers live in the connection.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/exitcode.h"
#include "core/reactor.h"
#include "core/steady.h"
#include "oltp/engine.h"

#define MAX_WAIT_NS    20000000ull   /* re-check stop flags at least this often */
#define DRAIN_NS       5000000000ull /* in-flight transactions get this long at the end */
#define QUEUE_CAP      (1u << 16)
#define BACKOFF_MIN_MS 50
#define BACKOFF_MAX_MS 1000

enum cstate { CS_CONNECT, CS_PREPARE, CS_IDLE, CS_EXEC, CS_ROLLBACK, CS_BACKOFF };

struct worker;

struct conn {
        struct oltp_dconn *d;
        struct worker *w;
        unsigned idx, host;
        int pending, in_idle, in_txn, ever_ready;
        struct re_file rf;  /* the driver's socket while an operation waits on it */
        struct re_timer rt; /* the driver's timeout, or the end of a backoff */
        enum cstate st;
        unsigned slot, nsteps, step;
        unsigned q[3]; /* statements done in this transaction, per class */
        uint64_t t_sched, t_started, down_since;
        uint64_t wait_since; /* when the operation now pending started waiting (stall watch) */
        unsigned backoff_ms;
        uint64_t txns, busy_ns;
        struct oltp_rng rng;
        int32_t p_id, p_id2, p_k;
        unsigned long c_len, pad_len;
        char p_c[OLTP_C_LEN + 1], p_pad[OLTP_PAD_LEN + 1];
        struct oltp_step steps[];
};

struct hstat {
        struct oltp_counts c;
        struct hist *lat;
        uint64_t down_ns; /* connection-nanoseconds disconnected while measuring */
};

/* What a worker counted in the measured window since the last drain. */
struct tally {
        struct hstat *hs;   /* per host */
        struct hist *lat;   /* every host: the interval's latency */
        struct hist *qwait; /* --rate: queue wait */
};

struct engine;

struct worker {
        pthread_t th;
        struct engine *e;
        unsigned id;
        struct reactor *re;
        int kicked;
        struct conn **conns;
        unsigned nconns, npending;
        uint64_t next_stall_check;
        struct tally tl[2]; /* the worker writes tl[tl_cur], the reporter drains the other */
        _Atomic unsigned tl_cur;
        _Atomic int tl_busy; /* the worker is writing into tl[tl_cur] */
        _Atomic unsigned busy;
        _Atomic uint64_t qlen;
        uint64_t *queue, next_arrival, last_done, qoverflow;
        unsigned qhead, qn, nidle;
        double mean_gap_ns;
        struct conn **idle;
        struct oltp_rng rng;
        _Atomic uint64_t done; /* transactions finished, warm-up included (steady.h samples) */
};

struct engine {
        const struct oltp_engine_cfg *cfg;
        const struct oltp_driver_ops *ops;
        struct worker *w;
        unsigned nw;
        uint64_t t_go;
        _Atomic uint64_t t_warm, t_end; /* t_end 0: no time limit; both move with --target-ci */
        _Atomic uint64_t t_stop;        /* when the stop flag was first raised; 0: not yet */
        struct steady *st;              /* --target-ci: the reporting thread's */
        uint64_t st_next, st_prev, st_done;
        int remote_measuring; /* cfg->remote_phase said STEADY_MEASURE */
        _Atomic int go, stop;
        _Atomic unsigned nready;
        _Atomic uint64_t started;
        pthread_mutex_t fmu;
        int fatal;
        char fatal_msg[512];
        /* the reporting thread's: everything drained so far, and the interval in progress */
        struct hstat *acc;
        struct hist *acc_qwait;
        struct oltp_counts iv;
        struct hist *ivlat;
};

static _Atomic int stop_requested;

void oltp_engine_request_stop(void)
{
        atomic_store(&stop_requested, 1);
}

static void set_fatal(struct engine *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Raise the stop flag, noting when first: the measured window ends there (down time too). */
static void raise_stop(struct engine *e)
{
        uint64_t zero = 0;

        atomic_compare_exchange_strong(&e->t_stop, &zero, clk_now_ns());
        atomic_store(&e->stop, 1);
}

static void set_fatal(struct engine *e, int code, const char *fmt, ...)
{
        va_list ap;

        pthread_mutex_lock(&e->fmu);
        if (!e->fatal) {
                e->fatal = code;
                va_start(ap, fmt);
                vsnprintf(e->fatal_msg, sizeof(e->fatal_msg), fmt, ap);
                va_end(ap);
        }
        pthread_mutex_unlock(&e->fmu);
        raise_stop(e);
}

static int stopping(const struct engine *e)
{
        return atomic_load_explicit(&e->stop, memory_order_relaxed);
}

static const struct oltp_dsn *dsn_of(const struct conn *c)
{
        return &c->w->e->cfg->hosts[c->host];
}

/* ---- waiting: the reactor's watches and timers ---- */

/* when 0: none. The heap has room for every connection's timer, so arming cannot fail. */
static void set_deadline(struct conn *c, uint64_t when)
{
        if (when)
                re_timer_arm(c->w->re, &c->rt, when);
        else
                re_timer_cancel(c->w->re, &c->rt);
}

static void unregister(struct conn *c)
{
        re_unwatch(c->w->re, &c->rf);
}

static void set_pending(struct conn *c, int on)
{
        if (on != c->pending) {
                c->w->npending += on ? 1 : (unsigned)-1;
                /* the wake-up's time: a stall lasts seconds, so no clock read per statement */
                if (on)
                        c->wait_since = re_now(c->w->re);
        }
        c->pending = on;
}

static void conn_wait(struct conn *c, int mask)
{
        const struct oltp_driver_ops *ops = c->w->e->ops;
        unsigned want = (mask & OLTP_WAIT_READ ? RE_READ : 0) |
                        (mask & OLTP_WAIT_WRITE ? RE_WRITE : 0) |
                        (mask & OLTP_WAIT_EXCEPT ? RE_PRI : 0);

        set_pending(c, 1);
        /* a socket epoll refuses is left to the driver's timeout */
        re_watch(c->w->re, &c->rf, ops->fd(c->d), want);
        if (mask & OLTP_WAIT_TIMEOUT)
                set_deadline(c, re_now(c->w->re) + (uint64_t)ops->timeout_ms(c->d) * 1000000ull);
        else if (c->st != CS_BACKOFF)
                set_deadline(c, 0);
}

/* ---- transactions ---- */

static int in_window(const struct engine *e, uint64_t now)
{
        return now >= e->t_warm && (!e->t_end || now <= e->t_end) && atomic_load(&e->go);
}

static void fill_params(struct conn *c, const struct oltp_step *s)
{
        c->p_id = s->id;
        c->p_id2 = s->id2;
        c->p_k = s->k;
        if (s->kind == OLTP_K_UPDATE_NON_INDEX || s->kind == OLTP_K_INSERT)
                oltp_rand_str(&c->rng, oltp_c_tmpl, OLTP_C_LEN, c->p_c);
        if (s->kind == OLTP_K_INSERT)
                oltp_rand_str(&c->rng, oltp_pad_tmpl, OLTP_PAD_LEN, c->p_pad);
}

static int issue(struct conn *c)
{
        const struct oltp_step *s = &c->steps[c->step];

        fill_params(c, s);
        return c->w->e->ops->execute_start(c->d, s->slot);
}

static int begin_txn(struct conn *c, uint64_t t_sched)
{
        struct worker *w = c->w;

        c->t_sched = t_sched;
        c->in_txn = 1;
        atomic_store_explicit(&w->busy, atomic_load(&w->busy) + 1, memory_order_relaxed);
        c->nsteps = oltp_wl_plan(w->e->cfg->wl, &c->rng, c->steps);
        c->step = 0;
        c->q[0] = c->q[1] = c->q[2] = 0;
        c->st = CS_EXEC;
        return issue(c);
}

static void end_txn(struct conn *c)
{
        struct worker *w = c->w;

        if (!c->in_txn)
                return;
        c->in_txn = 0;
        atomic_store_explicit(&w->busy, atomic_load(&w->busy) - 1, memory_order_relaxed);
        c->st = CS_IDLE;
}

static void push_idle(struct conn *c)
{
        struct worker *w = c->w;

        c->st = CS_IDLE;
        if (w->e->cfg->rate > 0 && !c->in_idle) {
                w->idle[w->nidle++] = c;
                c->in_idle = 1;
        }
}

static int events_left(struct engine *e)
{
        uint64_t n = e->cfg->events;

        if (!n)
                return 1;
        return atomic_fetch_add(&e->started, 1) < n;
}

/*
 * Start the next transaction if there is one to run; -1 when the connection goes idle.
 * now: the clock when the caller just read it (the end of the transaction before, which is
 * this one's start), else 0.
 */
static int next_txn(struct conn *c, uint64_t now)
{
        struct worker *w = c->w;
        struct engine *e = w->e;
        uint64_t t;

        if (!atomic_load(&e->go) || stopping(e)) {
                push_idle(c);
                return -1;
        }
        if (e->cfg->rate <= 0) {
                if (!events_left(e)) {
                        c->st = CS_IDLE;
                        return -1;
                }
                return begin_txn(c, now ? now : clk_now_ns());
        }
        if (!w->qn || !events_left(e)) {
                push_idle(c);
                return -1;
        }
        t = w->queue[w->qhead];
        w->qhead = (w->qhead + 1) % QUEUE_CAP;
        w->qn--;
        atomic_store_explicit(&w->qlen, w->qn, memory_order_relaxed);
        c->t_started = now ? now : clk_now_ns();
        return begin_txn(c, t);
}

/*
 * The worker's side of the tallies: every write is bracketed by tally_open
 * and tally_close. tl_busy and tl_cur are sequentially consistent, so either
 * the reporter's switch comes first and tally_open returns the new tally, or
 * the reporter sees tl_busy set and waits for tally_close (drain_worker).
 */
static struct tally *tally_open(struct worker *w)
{
        atomic_store(&w->tl_busy, 1);
        return &w->tl[atomic_load(&w->tl_cur)];
}

static void tally_close(struct worker *w)
{
        atomic_store_explicit(&w->tl_busy, 0, memory_order_release);
}

static void count_txn(struct conn *c, uint64_t now)
{
        struct worker *w = c->w;
        uint64_t lat = now - c->t_sched;
        struct tally *t;
        struct hstat *h;

        atomic_fetch_add_explicit(&w->done, 1, memory_order_relaxed);
        if (!in_window(w->e, now))
                return;
        c->txns++;
        c->busy_ns += lat;
        w->last_done = now;
        t = tally_open(w);
        h = &t->hs[c->host];
        /* Queue wait is kept for the same transactions as latency, so wait <= latency holds. */
        if (w->e->cfg->rate > 0)
                hist_record(t->qwait, c->t_started - c->t_sched);
        h->c.txns++;
        h->c.reads += c->q[OLTP_Q_READ];
        h->c.writes += c->q[OLTP_Q_WRITE];
        h->c.other += c->q[OLTP_Q_OTHER];
        hist_record(h->lat, lat);
        hist_record(t->lat, lat);
        tally_close(w);
}

enum cevent { EV_ERROR, EV_RECONNECT, EV_FAILED_CONNECT };

static uint64_t *event_counter(struct oltp_counts *k, enum cevent ev)
{
        return ev == EV_ERROR       ? &k->errors
               : ev == EV_RECONNECT ? &k->reconnects
                                    : &k->failed_connects;
}

static void count_event(struct conn *c, enum cevent ev)
{
        struct worker *w = c->w;

        if (!in_window(w->e, clk_now_ns()))
                return;
        (*event_counter(&tally_open(w)->hs[c->host].c, ev))++;
        tally_close(w);
}

/* The part of [c->down_since, now] inside the measured window goes to the host's down time. */
static void count_down(struct conn *c, uint64_t now)
{
        struct engine *e = c->w->e;
        uint64_t from = c->down_since > e->t_warm ? c->down_since : e->t_warm;
        uint64_t to = e->t_end && now > e->t_end ? e->t_end : now;
        uint64_t t_stop = atomic_load(&e->t_stop);

        /* Never past the end of the measured window: not the drain, not the join. */
        if (t_stop && to > t_stop)
                to = t_stop;

        if (!c->down_since || !atomic_load(&e->go) || to <= from)
                return;
        tally_open(c->w)->hs[c->host].down_ns += to - from;
        tally_close(c->w);
}

/* ---- errors ---- */

static int lost(struct conn *c)
{
        struct worker *w = c->w;
        struct engine *e = w->e;
        uint64_t now = clk_now_ns();
        const struct oltp_dsn *h = dsn_of(c);

        end_txn(c);
        unregister(c);
        e->ops->disconnect(c->d);
        if (c->down_since)
                count_event(c,
                            EV_FAILED_CONNECT); /* a reconnect attempt that did not get through */
        if (!c->down_since) {
                c->down_since = now;
                c->backoff_ms = BACKOFF_MIN_MS;
        } else if (c->backoff_ms < BACKOFF_MAX_MS) {
                c->backoff_ms *= 2;
        }
        if ((double)(now - c->down_since) / 1e9 > e->cfg->retry_budget_s) {
                set_fatal(e, HCI_EXIT_TARGET, "%s:%u: server unreachable for more than %.0f s",
                          h->host, h->port, e->cfg->retry_budget_s);
                c->st = CS_IDLE;
                return -1;
        }
        c->st = CS_BACKOFF;
        set_deadline(c, now + (uint64_t)c->backoff_ms * 1000000ull);
        return -1;
}

/*
 * A server that stops answering (frozen, or a network that drops
 * everything) keeps the socket open: no error ever comes. An operation
 * with no answer for the reconnect budget counts as a lost connection from
 * when it started waiting, so the host is degraded, and a server that stays
 * silent ends the run as one that stays down does.
 */
static int stalled(struct conn *c)
{
        uint64_t since = c->wait_since;
        int rc = lost(c);

        if (since && since < c->down_since)
                c->down_since = since;
        return rc;
}

static int ignorable(const struct engine *e, unsigned err)
{
        if (e->cfg->ignore_all)
                return 1;
        for (unsigned i = 0; i < e->cfg->nignore; i++)
                if (e->cfg->ignore[i] == err)
                        return 1;
        return 0;
}

/* sysbench restarts the event: a new plan, but the latency keeps its start. */
static int retry_txn(struct conn *c)
{
        const struct oltp_workload *wl = c->w->e->cfg->wl;

        if (stopping(c->w->e)) {
                end_txn(c);
                return -1;
        }
        c->nsteps = oltp_wl_plan(wl, &c->rng, c->steps);
        c->step = 0;
        c->st = CS_EXEC;
        return issue(c);
}

static int exec_failed(struct conn *c, unsigned err)
{
        struct engine *e = c->w->e;
        const struct oltp_dsn *h = dsn_of(c);

        if (e->ops->classify(err) == OLTP_ERR_LOST)
                return lost(c);
        if (!ignorable(e, err)) {
                set_fatal(e, HCI_EXIT_CHECK, "%s:%u: error %u: %s", h->host, h->port, err,
                          e->ops->errmsg(c->d));
                end_txn(c);
                return -1;
        }
        count_event(c, EV_ERROR);
        if (!oltp_wl_has_trx(e->cfg->wl))
                return retry_txn(c);
        c->st = CS_ROLLBACK;
        return e->ops->query_start(c->d, "ROLLBACK");
}

/* ---- connecting and preparing ---- */

static int bind_of(struct conn *c, enum oltp_param p, struct oltp_bind *b)
{
        switch (p) {
        case OLTP_P_ID:
                *b = (struct oltp_bind){OLTP_BIND_INT32, &c->p_id, 0, NULL};
                break;
        case OLTP_P_ID2:
                *b = (struct oltp_bind){OLTP_BIND_INT32, &c->p_id2, 0, NULL};
                break;
        case OLTP_P_K:
                *b = (struct oltp_bind){OLTP_BIND_INT32, &c->p_k, 0, NULL};
                break;
        case OLTP_P_C:
                *b = (struct oltp_bind){OLTP_BIND_CHAR, c->p_c, OLTP_C_LEN, &c->c_len};
                break;
        case OLTP_P_PAD:
                *b = (struct oltp_bind){OLTP_BIND_CHAR, c->p_pad, OLTP_PAD_LEN, &c->pad_len};
                break;
        }
        return 0;
}

static int conn_ready(struct conn *c)
{
        struct engine *e = c->w->e;

        if (c->ever_ready) {
                count_event(c, EV_RECONNECT);
                count_down(c, clk_now_ns());
        } else {
                c->ever_ready = 1;
                atomic_fetch_add(&e->nready, 1);
        }
        c->down_since = 0;
        c->st = CS_IDLE;
        return next_txn(c, 0);
}

static int prepare_next(struct conn *c)
{
        const struct oltp_workload *wl = c->w->e->cfg->wl;
        unsigned n = oltp_wl_nslots(wl);
        char sql[160];
        int kind = -1;

        while (c->slot < n && (kind = oltp_wl_slot_sql(wl, c->slot, sql, sizeof(sql))) < 0)
                c->slot++;
        if (c->slot >= n)
                return conn_ready(c);

        enum oltp_param ps[4];
        struct oltp_bind b[4];
        unsigned np = oltp_wl_params((enum oltp_kind)kind, ps);

        for (unsigned i = 0; i < np; i++)
                bind_of(c, ps[i], &b[i]);
        return c->w->e->ops->prepare_start(c->d, c->slot, sql, b, np);
}

static int connect_failed(struct conn *c, unsigned err)
{
        struct engine *e = c->w->e;
        const struct oltp_dsn *h = dsn_of(c);

        if (!c->ever_ready) {
                set_fatal(e, HCI_EXIT_TARGET, "%s:%u: cannot connect: %s (error %u)", h->host,
                          h->port, e->ops->errmsg(c->d), err);
                c->st = CS_IDLE;
                return -1;
        }
        return lost(c);
}

static int start_connect(struct conn *c)
{
        c->st = CS_CONNECT;
        set_deadline(c, 0);
        return c->w->e->ops->connect_start(c->d, dsn_of(c));
}

/* The operation in flight finished: act on it, start the next; see advance(). */
static int on_done(struct conn *c)
{
        const struct oltp_driver_ops *ops = c->w->e->ops;
        unsigned err = ops->error(c->d);
        const struct oltp_dsn *h = dsn_of(c);
        uint64_t now;

        switch (c->st) {
        case CS_CONNECT:
                if (err)
                        return connect_failed(c, err);
                c->st = CS_PREPARE;
                c->slot = 0;
                return prepare_next(c);
        case CS_PREPARE:
                if (err && ops->classify(err) == OLTP_ERR_LOST)
                        return lost(c);
                if (err) {
                        set_fatal(c->w->e, HCI_EXIT_TARGET, "%s:%u: prepare failed: %s (error %u)",
                                  h->host, h->port, ops->errmsg(c->d), err);
                        c->st = CS_IDLE;
                        return -1;
                }
                c->slot++;
                return prepare_next(c);
        case CS_EXEC:
                if (err)
                        return exec_failed(c, err);
                c->q[c->steps[c->step].cls]++;
                if (++c->step < c->nsteps)
                        return issue(c);
                now = clk_now_ns();
                count_txn(c, now);
                end_txn(c);
                return next_txn(c, now);
        case CS_ROLLBACK:
                if (err && ops->classify(err) == OLTP_ERR_LOST)
                        return lost(c);
                c->q[OLTP_Q_OTHER]++;
                return retry_txn(c);
        default:
                return -1;
        }
}

/* Follow finished operations until one has to wait (armed) or none is left. */
static void advance(struct conn *c, int rc)
{
        while (rc == 0)
                rc = on_done(c);
        if (rc > 0) {
                conn_wait(c, rc);
        } else {
                set_pending(c, 0);
                if (c->st != CS_BACKOFF)
                        set_deadline(c, 0);
        }
}

/* The reactor's callback for the connection's socket. */
static void conn_event(struct re_file *f, unsigned fired)
{
        struct conn *c = f->arg;
        int ready = 0;

        if (!c->pending) {
                /* a server closing an idle connection: stop listening until it is used again */
                unregister(c);
                return;
        }
        if (fired & (RE_READ | RE_HUP))
                ready |= OLTP_WAIT_READ;
        if (fired & (RE_WRITE | RE_HUP))
                ready |= OLTP_WAIT_WRITE;
        if (fired & RE_PRI)
                ready |= OLTP_WAIT_EXCEPT;
        advance(c, c->w->e->ops->cont(c->d, ready));
}

/* The reactor's callback for the connection's timer (disarmed already). */
static void conn_timer(struct re_timer *t)
{
        struct conn *c = t->arg;

        if (c->st == CS_BACKOFF) {
                advance(c, start_connect(c));
                return;
        }
        if (c->pending)
                advance(c, c->w->e->ops->cont(c->d, OLTP_WAIT_TIMEOUT));
}

/* ---- the per-thread loop ---- */

/* The longest gap of the schedule: past any run (a gap drawn larger is no integer). */
#define GAP_MAX_NS (UINT64_C(1) << 62)

/* The next gap of the Poisson schedule in ns: at least 1, so the schedule always moves
 * on, and at most GAP_MAX_NS, so a huge mean (a tiny rate) never converts out of range. */
static uint64_t next_gap(struct worker *w)
{
        double g = -log1p(-oltp_rng_double(&w->rng)) * w->mean_gap_ns;

        if (!(g >= 1.0))
                return 1;
        return g < (double)GAP_MAX_NS ? (uint64_t)g : GAP_MAX_NS;
}

static void arrivals(struct worker *w, uint64_t now)
{
        struct engine *e = w->e;

        if (e->cfg->rate <= 0 || !atomic_load(&e->go) || stopping(e))
                return;
        while (w->next_arrival <= now) {
                if (w->qn == QUEUE_CAP) {
                        /* Full: every arrival due by now overflows. Count them at once, the
                         * expected number, rather than one by one: at a rate past what this
                         * loop can draw it would never catch up with the clock. */
                        double due = (double)(now - w->next_arrival) / w->mean_gap_ns + 1;

                        w->qoverflow += due < 1e18 ? (uint64_t)due : (uint64_t)1e18;
                        w->next_arrival = now + next_gap(w);
                        break;
                }
                w->queue[(w->qhead + w->qn) % QUEUE_CAP] = w->next_arrival;
                w->qn++;
                w->next_arrival += next_gap(w);
        }
        while (w->qn && w->nidle) {
                struct conn *c = w->idle[--w->nidle];

                c->in_idle = 0;
                if (c->st != CS_IDLE)
                        continue;
                advance(c, next_txn(c, 0));
                /* Back on the idle stack: the run is stopping or out of events (both can
                 * turn true while this loop runs), so no queued arrival can start now;
                 * popping it again would spin here for ever. */
                if (c->in_idle)
                        break;
        }
        atomic_store_explicit(&w->qlen, w->qn, memory_order_relaxed);
}

static void kick(struct worker *w)
{
        if (w->kicked || !atomic_load(&w->e->go))
                return;
        w->kicked = 1;
        w->next_arrival = clk_now_ns();
        if (w->e->cfg->rate > 0)
                return;
        for (unsigned i = 0; i < w->nconns; i++) {
                struct conn *c = w->conns[i];

                if (c->st == CS_IDLE && !c->pending)
                        advance(c, next_txn(c, 0));
        }
}

/* The loop's own limit on a wait: the next arrival, and the stop flags' re-check. The
 * reactor shortens it to the earliest connection timer. */
static uint64_t next_wake(struct worker *w, uint64_t now)
{
        uint64_t t = now + MAX_WAIT_NS;

        /* A full queue takes no arrival: waking for one would only spin. */
        if (w->e->cfg->rate > 0 && w->kicked && w->qn < QUEUE_CAP && w->next_arrival < t)
                t = w->next_arrival;
        return t;
}

/* In-flight transactions get DRAIN_NS at the end, or the reconnect budget when shorter: a
 * server that answers nothing in that time has stalled (see down_times). */
static uint64_t drain_ns(const struct engine *e)
{
        double budget = e->cfg->retry_budget_s * 1e9;

        return budget > 0 && budget < (double)DRAIN_NS ? (uint64_t)budget : DRAIN_NS;
}

/* How often a worker looks for stalled operations. */
#define STALL_CHECK_NS 100000000ull

/* Operations of connections that were up once and have waited past the budget: stalled. */
static void check_stalls(struct worker *w, uint64_t now)
{
        uint64_t budget = (uint64_t)(w->e->cfg->retry_budget_s * 1e9);

        if (now < w->next_stall_check || !budget)
                return;
        w->next_stall_check = now + STALL_CHECK_NS;
        for (unsigned i = 0; i < w->nconns; i++) {
                struct conn *c = w->conns[i];

                /* wait_since may be later than now: set by this loop's pass since */
                if (c->pending && c->ever_ready && c->st != CS_BACKOFF && now > c->wait_since &&
                    now - c->wait_since > budget)
                        advance(c, stalled(c));
        }
}

/* --pin-threads: worker i on the i-th CPU of the process's mask (taskset respected). */
static void pin_worker(const struct worker *w)
{
        cpu_set_t all, one;
        int k = 0, want;

        if (sched_getaffinity(0, sizeof(all), &all) || !CPU_COUNT(&all))
                return;
        want = (int)(w->id % (unsigned)CPU_COUNT(&all));
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
                if (!CPU_ISSET(cpu, &all) || k++ != want)
                        continue;
                CPU_ZERO(&one);
                CPU_SET(cpu, &one);
                pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
                return;
        }
}

static _Atomic unsigned incoming_same, incoming_other;

/*
 * --io-report: how many of the worker's connections had their last reply
 * processed on the CPU the worker runs on (SO_INCOMING_CPU), the figure that
 * says whether steering connections to threads by that CPU could help.
 */
static void count_incoming(const struct worker *w)
{
        int here = sched_getcpu();

        for (unsigned i = 0; i < w->nconns; i++) {
                int fd = w->e->ops->fd(w->conns[i]->d), cpu = -1;
                socklen_t len = sizeof(cpu);

                if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_INCOMING_CPU, &cpu, &len) || cpu < 0)
                        continue;
                if (cpu == here)
                        incoming_same++;
                else
                        incoming_other++;
        }
}

static void *worker_main(void *arg)
{
        struct worker *w = arg;
        struct engine *e = w->e;
        uint64_t drain_until = 0;

        if (e->cfg->pin_threads)
                pin_worker(w);
        e->ops->thread_init();
        for (unsigned i = 0; i < w->nconns; i++)
                advance(w->conns[i], start_connect(w->conns[i]));
        for (;;) {
                uint64_t now = clk_now_ns();

                kick(w);
                if (stopping(e) && !drain_until)
                        drain_until = now + drain_ns(e);
                if (drain_until && (!w->npending || now > drain_until))
                        break;
                arrivals(w, now);
                check_stalls(w, now);
                re_set_now(w->re, now);
                re_run_once(w->re, next_wake(w, now));
        }
        if (e->cfg->io.report)
                count_incoming(w);
        for (unsigned i = 0; i < w->nconns; i++) {
                unregister(w->conns[i]);
                e->ops->conn_free(w->conns[i]->d);
                w->conns[i]->d = NULL;
        }
        e->ops->thread_end();
        return NULL;
}

/* ---- setup, reporting and results ---- */

static struct conn *conn_new(struct engine *e, unsigned idx)
{
        unsigned ms = oltp_wl_max_steps(e->cfg->wl);
        struct conn *c = calloc(1, sizeof(*c) + ms * sizeof(struct oltp_step));

        if (!c)
                return NULL;
        c->d = e->ops->conn_new(oltp_wl_nslots(e->cfg->wl));
        if (!c->d) {
                free(c);
                return NULL;
        }
        c->idx = idx;
        c->host = idx % e->cfg->nhosts;
        re_file_init(&c->rf, conn_event, c);
        re_timer_init(&c->rt, conn_timer, c);
        c->c_len = OLTP_C_LEN;
        c->pad_len = OLTP_PAD_LEN;
        oltp_rng_seed(&c->rng, e->cfg->seed * 0x9e3779b97f4a7c15ull + idx + 1);
        return c;
}

static void hstats_free(struct hstat *hs, unsigned n)
{
        for (unsigned h = 0; hs && h < n; h++)
                hist_free(hs[h].lat);
        free(hs);
}

/* Per-host counts with a latency histogram each; NULL on ENOMEM. */
static struct hstat *hstats_new(unsigned n)
{
        struct hstat *hs = calloc(n, sizeof(*hs));

        for (unsigned h = 0; hs && h < n; h++)
                if (!(hs[h].lat = hist_new())) {
                        hstats_free(hs, n);
                        return NULL;
                }
        return hs;
}

static int tally_init(struct tally *t, unsigned nhosts)
{
        t->hs = hstats_new(nhosts);
        t->lat = hist_new();
        t->qwait = hist_new();
        return t->hs && t->lat && t->qwait ? 0 : -ENOMEM;
}

static void tally_fini(struct tally *t, unsigned nhosts)
{
        hstats_free(t->hs, nhosts);
        hist_free(t->lat);
        hist_free(t->qwait);
}

/* 0, or -errno with err set (out of memory, too many open files for the reactor). */
static int worker_init(struct engine *e, struct worker *w, unsigned id, char *err, size_t errlen)
{
        const struct oltp_engine_cfg *cfg = e->cfg;

        w->e = e; /* from here on worker_free has a reactor (or NULL) and memory to release */
        w->id = id;
        /* one timer per connection at most: the heap never grows */
        if (!(w->re = re_new(cfg->nconns / e->nw + 1, err, errlen)))
                return -errno;
        re_set_spin(w->re, (uint64_t)cfg->spin_us * 1000u);
        snprintf(err, errlen, "out of memory");
        w->conns = calloc(cfg->nconns / e->nw + 1, sizeof(*w->conns));
        w->idle = calloc(cfg->nconns / e->nw + 1, sizeof(*w->idle));
        w->queue = cfg->rate > 0 ? calloc(QUEUE_CAP, sizeof(*w->queue)) : NULL;
        if (tally_init(&w->tl[0], cfg->nhosts) || tally_init(&w->tl[1], cfg->nhosts) || !w->conns ||
            !w->idle || (cfg->rate > 0 && !w->queue))
                return -ENOMEM;
        if (cfg->rate > 0)
                w->mean_gap_ns = 1e9 * e->nw / cfg->rate;
        oltp_rng_seed(&w->rng, cfg->seed * 31 + id + 7);
        for (unsigned i = id; i < cfg->nconns; i += e->nw) {
                struct conn *c = conn_new(e, i);

                if (!c)
                        return -ENOMEM;
                c->w = w;
                w->conns[w->nconns++] = c;
        }
        return 0;
}

/* A worker worker_init never reached (w->e NULL) holds nothing. */
static void worker_free(struct engine *e, struct worker *w)
{
        if (!w->e)
                return;
        re_free(w->re);
        for (unsigned i = 0; w->conns && i < w->nconns; i++) {
                if (w->conns[i]->d)
                        e->ops->conn_free(w->conns[i]->d);
                free(w->conns[i]);
        }
        tally_fini(&w->tl[0], e->cfg->nhosts);
        tally_fini(&w->tl[1], e->cfg->nhosts);
        free(w->conns);
        free(w->idle);
        free(w->queue);
}

void oltp_counts_add(struct oltp_counts *d, const struct oltp_counts *s)
{
        d->txns += s->txns;
        d->reads += s->reads;
        d->writes += s->writes;
        d->other += s->other;
        d->errors += s->errors;
        d->reconnects += s->reconnects;
        d->failed_connects += s->failed_connects;
}

/* src into dst, and src emptied (an empty one costs nothing). */
static void hist_move(struct hist *dst, struct hist *src)
{
        if (!hist_count(src))
                return;
        hist_merge(dst, src);
        hist_reset(src);
}

/*
 * Take what worker w counted since the last drain into the engine's totals
 * and the interval in progress. The worker is switched to its other tally
 * first; a write it began on this one before it saw the switch ends before
 * tl_busy reads 0 (tally_open), and from then on this one is the reporter's
 * alone until the next switch. The reporting thread only (or any thread
 * after the workers are joined).
 */
static void drain_worker(struct engine *e, struct worker *w)
{
        unsigned old = atomic_load(&w->tl_cur);
        struct tally *t = &w->tl[old];

        atomic_store(&w->tl_cur, !old);
        while (atomic_load(&w->tl_busy))
                sched_yield();
        for (unsigned h = 0; h < e->cfg->nhosts; h++) {
                struct hstat *s = &t->hs[h];

                oltp_counts_add(&e->acc[h].c, &s->c);
                oltp_counts_add(&e->iv, &s->c);
                e->acc[h].down_ns += s->down_ns;
                hist_move(e->acc[h].lat, s->lat);
                memset(&s->c, 0, sizeof(s->c));
                s->down_ns = 0;
        }
        hist_move(e->ivlat, t->lat);
        hist_move(e->acc_qwait, t->qwait);
}

static void drain_all(struct engine *e)
{
        for (unsigned i = 0; i < e->nw; i++)
                drain_worker(e, &e->w[i]);
}

static void report_interval(struct engine *e, uint64_t t_prev, uint64_t now)
{
        struct oltp_interval iv = {0};

        drain_all(e);
        iv.c = e->iv;
        memset(&e->iv, 0, sizeof(e->iv));
        for (unsigned i = 0; i < e->nw; i++) {
                struct worker *w = &e->w[i];

                iv.queue_len += atomic_load(&w->qlen);
                iv.busy += atomic_load(&w->busy);
        }
        iv.t_s = (double)(now - e->t_warm) / 1e9;
        iv.len_s = (double)(now - t_prev) / 1e9;
        iv.lat = e->ivlat;
        iv.threads = e->cfg->nconns;
        e->cfg->on_interval(e->cfg->user, &iv);
        hist_reset(e->ivlat);
}

static int all_ready_or_fatal(struct engine *e)
{
        for (;;) {
                if (stopping(e) || atomic_load(&stop_requested))
                        return -1;
                if (atomic_load(&e->nready) == e->cfg->nconns)
                        return 0;
                clk_sleep_ns(1000000);
        }
}

static int run_done(struct engine *e, uint64_t now)
{
        if (atomic_load(&stop_requested) || stopping(e))
                return 1;
        if (e->t_end && now >= e->t_end)
                return 1;
        if (e->cfg->events && atomic_load(&e->started) >= e->cfg->events) {
                for (unsigned i = 0; i < e->nw; i++)
                        if (atomic_load(&e->w[i].busy))
                                return 0;
                return 1;
        }
        return 0;
}

/*
 * --target-ci: one throughput sample for the steady-state rule. The
 * measured window starts where the rule ends the warm-up and ends where
 * it is met (or time_s after its start). 1 when the window just started.
 */
static int steady_sample(struct engine *e, uint64_t now)
{
        uint64_t done = 0;
        enum steady_phase was, ph;
        struct steady_res r;

        for (unsigned i = 0; i < e->nw; i++)
                done += atomic_load_explicit(&e->w[i].done, memory_order_relaxed);
        if (e->cfg->on_sample) { /* the controller decides (remote_step) */
                e->cfg->on_sample(e->cfg->user, (double)(now - e->t_go) / 1e9, done);
                e->st_next = now + (uint64_t)(STEADY_SAMPLE_S * 1e9);
                return 0;
        }
        was = steady_phase(e->st);
        ph = steady_add(e->st, (double)(done - e->st_done) * 1e9 / (double)(now - e->st_prev));
        e->st_done = done;
        e->st_prev = now;
        e->st_next = now + (uint64_t)(STEADY_SAMPLE_S *
                                      1e9); /* a late wake-up shifts, never bunches, samples */
        if (was == STEADY_WARMUP && ph != STEADY_WARMUP) {
                e->t_warm = now;
                e->t_end = now + (uint64_t)(e->cfg->time_s * 1e9);
        }
        if (ph == STEADY_DONE)
                e->t_end = now;
        if (e->cfg->on_steady) {
                steady_result(e->st, &r);
                e->cfg->on_steady(e->cfg->user, ph, &r, steady_left_s(e->st));
        }
        return was == STEADY_WARMUP && ph != STEADY_WARMUP;
}

/* cfg->remote_phase: 1 when the controller just ended the warm-up. */
static int remote_step(struct engine *e, uint64_t now)
{
        enum steady_phase ph = e->cfg->remote_phase(e->cfg->user);

        if (ph == STEADY_DONE) {
                if (now < e->t_warm)
                        e->t_warm = now;
                if (!e->t_end || now < e->t_end)
                        e->t_end = now;
                return 0;
        }
        if (ph != STEADY_MEASURE || e->remote_measuring)
                return 0;
        e->remote_measuring = 1;
        if (now >= e->t_warm) /* its own limit came first: measuring already */
                return 0;
        e->t_warm = now;
        e->t_end = now + (uint64_t)(e->cfg->time_s * 1e9);
        return 1;
}

static int result_alloc(const struct engine *e, struct oltp_result *res)
{
        const struct oltp_engine_cfg *cfg = e->cfg;

        res->nhosts = cfg->nhosts;
        res->nconns = cfg->nconns;
        res->threads_used = e->nw;
        res->hosts = calloc(cfg->nhosts, sizeof(*res->hosts));
        res->conn_txns = calloc(cfg->nconns, sizeof(*res->conn_txns));
        res->conn_busy_s = calloc(cfg->nconns, sizeof(*res->conn_busy_s));
        res->lat = hist_new();
        res->qwait = hist_new();
        if (!res->hosts || !res->conn_txns || !res->conn_busy_s || !res->lat || !res->qwait)
                return -ENOMEM;
        for (unsigned h = 0; h < cfg->nhosts; h++)
                if (!(res->hosts[h].lat = hist_new()))
                        return -ENOMEM;
        return 0;
}

/* Per-host counts and histograms drained so far (drain_all first), then the totals. */
static void merge_hosts(struct engine *e, struct oltp_result *res)
{
        const struct oltp_engine_cfg *cfg = e->cfg;

        for (unsigned h = 0; h < cfg->nhosts; h++) {
                oltp_counts_add(&res->hosts[h].c, &e->acc[h].c);
                hist_merge(res->hosts[h].lat, e->acc[h].lat);
        }
        hist_merge(res->qwait, e->acc_qwait);
        for (unsigned h = 0; h < cfg->nhosts; h++) {
                oltp_counts_add(&res->total, &res->hosts[h].c);
                hist_merge(res->lat, res->hosts[h].lat);
        }
}

/* The figures so far, while the workers run (see cfg->on_checkpoint). */
static void checkpoint(struct engine *e, uint64_t now)
{
        struct oltp_result res = {0};

        if (now > e->t_warm && result_alloc(e, &res) == 0) {
                drain_all(e);
                merge_hosts(e, &res);
                res.seconds = (double)(now - e->t_warm) / 1e9;
                e->cfg->on_checkpoint(e->cfg->user, &res);
        }
        oltp_result_free(&res);
}

/* The reporting thread: intervals until the end, then the stop flag. */
static void supervise(struct engine *e)
{
        const struct oltp_engine_cfg *cfg = e->cfg;
        uint64_t step = (uint64_t)(cfg->report_s * 1e9), next = 0, prev = e->t_warm, next_tick = 0;
        uint64_t save_step = (uint64_t)(cfg->checkpoint_s * 1e9), next_save = 0;

        if (cfg->on_checkpoint && save_step)
                next_save = e->t_warm + save_step;

        if (cfg->report_s > 0 && cfg->on_interval)
                next = e->t_warm + step;
        for (;;) {
                uint64_t now = clk_now_ns();

                if (((e->st || cfg->on_sample) && now >= e->st_next && steady_sample(e, now) &&
                     next) ||
                    (cfg->remote_phase && remote_step(e, now) && next)) {
                        prev = e->t_warm;
                        next = prev + step;
                }
                if (next && now >= next && (!e->t_end || next <= e->t_end)) {
                        report_interval(e, prev, next);
                        prev = next;
                        next += step;
                        continue;
                }
                if (run_done(e, now))
                        break;
                if (next_save && now >= next_save) {
                        checkpoint(e, now);
                        next_save = clk_now_ns() + save_step;
                }
                if (cfg->on_tick && now >= next_tick && now > e->t_go + 200000000ull) {
                        cfg->on_tick(cfg->user, (double)(now - e->t_go) / 1e9);
                        next_tick = now + 250000000ull;
                }
                uint64_t wake = now + 10000000ull;
                if (next && next < wake)
                        wake = next;
                if (e->t_end && e->t_end < wake)
                        wake = e->t_end;
                if ((e->st || cfg->on_sample) && e->st_next < wake)
                        wake = e->st_next;
                clk_sleep_ns(wake > now ? wake - now : 0);
        }
        raise_stop(e);
}

/* After the join: connections still down count until now, and mark their host. */
static void down_times(struct engine *e, struct oltp_result *res)
{
        const struct oltp_engine_cfg *cfg = e->cfg;
        uint64_t now = clk_now_ns(), *down = calloc(cfg->nhosts, sizeof(*down));
        unsigned *conns = calloc(cfg->nhosts, sizeof(*conns));

        for (unsigned i = 0; i < e->nw; i++)
                for (unsigned j = 0; j < e->w[i].nconns; j++) {
                        struct conn *c = e->w[i].conns[j];

                        /* Still waiting for an answer when the drain gave up: a server that
                         * stopped answering, down since the wait began. */
                        if (c->pending && c->ever_ready && !c->down_since && c->wait_since)
                                c->down_since = c->wait_since;
                        if (c->down_since && atomic_load(&e->go))
                                res->hosts[c->host].down_at_end = 1;
                        count_down(c, now);
                }
        drain_all(e);
        for (unsigned h = 0; down && h < cfg->nhosts; h++)
                down[h] = e->acc[h].down_ns;
        for (unsigned i = 0; conns && i < cfg->nconns; i++)
                conns[i % cfg->nhosts]++;
        for (unsigned h = 0; down && conns && h < cfg->nhosts; h++)
                res->hosts[h].down_s = conns[h] ? (double)down[h] / conns[h] / 1e9 : 0;
        free(down);
        free(conns);
}

static int collect(struct engine *e, struct oltp_result *res)
{
        uint64_t last = 0;

        if (result_alloc(e, res))
                return -ENOMEM;
        down_times(e, res);
        merge_hosts(e, res);
        for (unsigned i = 0; i < e->nw; i++) {
                struct worker *w = &e->w[i];

                res->queue_overflows += w->qoverflow;
                for (unsigned j = 0; j < w->nconns; j++) {
                        res->conn_txns[w->conns[j]->idx] = w->conns[j]->txns;
                        res->conn_busy_s[w->conns[j]->idx] = (double)w->conns[j]->busy_ns / 1e9;
                }
                if (w->last_done > last)
                        last = w->last_done;
        }
        if (e->t_end && !e->fatal && !atomic_load(&stop_requested))
                res->seconds = (double)(e->t_end - e->t_warm) / 1e9;
        else if (atomic_load(&e->go))
                res->seconds = (double)((last > e->t_warm ? last : clk_now_ns()) - e->t_warm) / 1e9;
        if (atomic_load(&e->go)) {
                uint64_t end = atomic_load(&e->t_stop), t_end = atomic_load(&e->t_end);

                if (!end || (t_end && t_end < end))
                        end = t_end ? t_end : clk_now_ns();
                res->window_s = end > e->t_warm ? (double)(end - e->t_warm) / 1e9 : 0;
        }
        res->exit_code = e->fatal;
        res->interrupted = !e->fatal && atomic_load(&stop_requested);
        snprintf(res->err, sizeof(res->err), "%s", e->fatal_msg);
        return 0;
}

/*
 * Without --event-threads: one per core, but no more than one per
 * conns_per_thread connections. A thread with few connections sleeps and
 * wakes for nearly every reply; at 4 connections one thread made 9% fewer
 * system calls and 39% fewer context switches per statement than two
 * (bench/README.md).
 */
static unsigned pick_threads(const struct oltp_engine_cfg *cfg)
{
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        unsigned per = cfg->conns_per_thread ? cfg->conns_per_thread : 1;
        unsigned n = cfg->nthreads ? cfg->nthreads : (unsigned)(cores > 0 ? cores : 1);

        if (!cfg->nthreads && n > (cfg->nconns + per - 1) / per)
                n = (cfg->nconns + per - 1) / per;

        return n > cfg->nconns ? cfg->nconns : n;
}

static int start_workers(struct engine *e, char *err, size_t errlen)
{
        for (unsigned i = 0; i < e->nw; i++) {
                int rc = pthread_create(&e->w[i].th, NULL, worker_main, &e->w[i]);

                if (rc) {
                        snprintf(err, errlen, "cannot start a thread: %s", strerror(rc));
                        raise_stop(e);
                        for (unsigned j = 0; j < i; j++)
                                pthread_join(e->w[j].th, NULL);
                        return -rc;
                }
        }
        return 0;
}

int oltp_engine_run(const struct oltp_engine_cfg *cfg, struct oltp_result *res, char *err,
                    size_t errlen)
{
        struct engine e = {.cfg = cfg, .ops = cfg->ops};
        int rc = -ENOMEM;

        memset(res, 0, sizeof(*res));
        pthread_mutex_init(&e.fmu, NULL);
        e.nw = pick_threads(cfg);
        if (cfg->ops->tune)
                cfg->ops->tune(&cfg->io);
        e.w = calloc(e.nw, sizeof(*e.w));
        e.acc = hstats_new(cfg->nhosts);
        e.acc_qwait = hist_new();
        e.ivlat = hist_new();
        if (!e.w || !e.acc || !e.acc_qwait || !e.ivlat)
                goto out_nomem;
        if (cfg->target_ci_pct > 0 &&
            !(e.st = steady_new(&(struct steady_cfg){.target_ci_pct = cfg->target_ci_pct,
                                                     .sample_s = STEADY_SAMPLE_S,
                                                     .warmup_max_s = oltp_engine_warmup_max(cfg),
                                                     .measure_max_s = cfg->time_s})))
                goto out_nomem;
        for (unsigned i = 0; i < e.nw; i++)
                if ((rc = worker_init(&e, &e.w[i], i, err, errlen)) < 0)
                        goto out;
        rc = start_workers(&e, err, errlen);
        if (rc)
                goto out;
        if (all_ready_or_fatal(&e) == 0 && (!cfg->on_ready || cfg->on_ready(cfg->user) == 0)) {
                e.t_go = clk_now_ns();
                e.t_warm = e.t_go + (uint64_t)(oltp_engine_warmup_max(cfg) * 1e9);
                e.t_end = cfg->time_s > 0 ? e.t_warm + (uint64_t)(cfg->time_s * 1e9) : 0;
                e.st_prev = e.st_next = e.t_go;
                e.st_next += (uint64_t)(STEADY_SAMPLE_S * 1e9);
                atomic_store(&e.go, 1);
                supervise(&e);
        }
        atomic_store(&e.stop, 1);
        for (unsigned i = 0; i < e.nw; i++)
                pthread_join(e.w[i].th, NULL);
        if (cfg->io.report)
                fprintf(stderr,
                        "engine io: %u event threads; last reply on the thread's CPU: %u "
                        "connections, on another CPU: %u\n",
                        e.nw, incoming_same, incoming_other);
        rc = collect(&e, res);
        if (rc)
                goto out_nomem;
        if (e.st) {
                steady_result(e.st, &res->steady);
                res->have_steady = 1;
        }
        goto out;
out_nomem:
        snprintf(err, errlen, "out of memory");
        rc = -ENOMEM;
out:
        for (unsigned i = 0; e.w && i < e.nw; i++)
                worker_free(&e, &e.w[i]);
        free(e.w);
        steady_free(e.st);
        hstats_free(e.acc, cfg->nhosts);
        hist_free(e.acc_qwait);
        hist_free(e.ivlat);
        pthread_mutex_destroy(&e.fmu);
        return rc;
}

double oltp_engine_warmup_max(const struct oltp_engine_cfg *cfg)
{
        if (cfg->target_ci_pct > 0 && cfg->warmup_s <= 0)
                return cfg->time_s / 2;
        return cfg->warmup_s;
}

double oltp_engine_max_s(const struct oltp_engine_cfg *cfg)
{
        return oltp_engine_warmup_max(cfg) + cfg->time_s;
}

void oltp_result_free(struct oltp_result *res)
{
        for (unsigned h = 0; res->hosts && h < res->nhosts; h++)
                hist_free(res->hosts[h].lat);
        free(res->hosts);
        free(res->conn_txns);
        free(res->conn_busy_s);
        hist_free(res->lat);
        hist_free(res->qwait);
        memset(res, 0, sizeof(*res));
}
