/*
 * engine_libiscsi.c - the iSCSI engine: one libiscsi session per instance,
 * driven asynchronously from our own poll() loop. open() logs in (CHAP and
 * mutual CHAP from the URL, libiscsi's LIBISCSI_CHAP_* environment, or the
 * secrets of blk_open_args, which win), reads the LUN geometry with READ
 * CAPACITY(16) and preallocates one slot per queue-depth entry plus a ring of
 * completions, so the I/O path allocates nothing of its own. queue() issues
 * READ16/WRITE16 straight from the core loop's buffer; the completion callback
 * runs inside iscsi_service() and appends the I/O to the ring; reap() polls,
 * services and hands the ring back. libiscsi re-establishes a lost session by
 * itself and replays the commands in flight; the engine only counts those
 * reconnects, bounds how often libiscsi retries, and reports the session as
 * lost when it gives up.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "block/engine.h"

#define LIS_LOGIN_TIMEOUT_S   10    /* per login/logout PDU; also bounds open() */
#define LIS_IO_TIMEOUT_S      30    /* default: a command the target never answers fails */
#define LIS_RECONNECT_RETRIES 4     /* libiscsi backs off 1, 2, 3, 4 s between tries */
#define LIS_LOST_LIMIT_MS     60000 /* give up if never logged in again this long */
#define LIS_TICK_MS           100   /* longest single poll(): timeouts run at least this often */
#define LIS_LOGOUT_TIMEOUT_MS 3000
#define LIS_TCP_SYN_RETRIES   2 /* an unanswered connect fails after about 7 s */

/*
 * One synchronous step run by our loop. It lives in the instance, not on the
 * stack: a step that timed out may still get its callback later, even from
 * iscsi_destroy_context().
 */
struct lis_wait {
        int done;
        int status;
        struct scsi_task *task;
};

enum lis_step { LIS_STEP_CONNECT, LIS_STEP_READCAP, LIS_STEP_LOGOUT, LIS_NSTEPS };

/* One outstanding command; the iovec must live as long as the task. */
struct lis_slot {
        struct lis_eng *eng;
        struct blk_io *io;
        struct scsi_task *task;
        struct scsi_iovec iov;
};

struct lis_eng {
        struct iscsi_context *ctx;
        int lun;
        uint32_t block_size;
        uint64_t size;
        int writable;
        int io_timeout_s; /* per command, libiscsi's own timer (whole seconds) */

        unsigned depth;
        unsigned outstanding; /* queued and not yet returned by reap() */
        struct lis_slot *slots;
        struct lis_slot **free_slots;
        unsigned nfree;
        struct blk_io **ring; /* completions waiting for reap(), depth entries */
        unsigned ring_head, ring_count;

        int logged_in; /* iscsi_is_logged_in() at the last look */
        int lost;      /* the session dropped and is not back yet */
        uint64_t lost_since_ms;
        uint64_t reconnects;
        int dead; /* 0, or -errno once the session is gone for good */

        struct lis_wait steps[LIS_NSTEPS];
        int opening;  /* open() is logging in */
        int sock_err; /* errno of a failed TCP connect seen during open() */
        char err[512];
};

/* Only for poll deadlines and the lost-session limit; I/O is timed by the core loop. */
static uint64_t lis_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* err = what, then libiscsi's own message on the same line (it may hold newlines). */
static void lis_seterr(struct lis_eng *e, const char *what, int with_lib)
{
        size_t n;

        if (with_lib)
                snprintf(e->err, sizeof(e->err), "%s (libiscsi: %s", what, iscsi_get_error(e->ctx));
        else
                snprintf(e->err, sizeof(e->err), "%s", what);
        for (char *p = e->err; *p; p++)
                if (*p == '\n')
                        *p = ' ';
        n = strlen(e->err);
        while (n > 0 && e->err[n - 1] == ' ')
                e->err[--n] = '\0';
        if (with_lib && n + 1 < sizeof(e->err))
                memcpy(e->err + n, ")", 2);
}

/* Replace every occurrence of secret in s by "***" (in place, never longer). */
static void lis_redact(char *s, const char *secret, size_t slen)
{
        char *p;

        if (slen < 3)
                return;
        while ((p = strstr(s, secret)) != NULL) {
                memcpy(p, "***", 3);
                memmove(p + 3, p + slen, strlen(p + slen) + 1);
        }
}

/* URLs carry CHAP secrets; libiscsi quotes the URL in its parse errors. */
static void lis_redact_url_secrets(char *s, const char *url)
{
        const char *at = strchr(url, '@');
        const char *auth = strstr(url, "://");
        const char *q = strstr(url, "password=");
        char secret[256];

        if (auth && at && at > auth) {
                const char *pw = strpbrk(auth + 3, "%:");
                if (pw && pw < at && (size_t)(at - pw - 1) < sizeof(secret)) {
                        memcpy(secret, pw + 1, (size_t)(at - pw - 1));
                        secret[at - pw - 1] = '\0';
                        lis_redact(s, secret, strlen(secret));
                }
        }
        if (q) {
                size_t len = strcspn(q + 9, "&");
                if (len < sizeof(secret)) {
                        memcpy(secret, q + 9, len);
                        secret[len] = '\0';
                        lis_redact(s, secret, len);
                }
        }
}

static void lis_ring_push(struct lis_eng *e, struct blk_io *io)
{
        e->ring[(e->ring_head + e->ring_count) % e->depth] = io;
        e->ring_count++;
}

static struct blk_io *lis_ring_pop(struct lis_eng *e)
{
        struct blk_io *io = e->ring[e->ring_head];

        e->ring_head = (e->ring_head + 1) % e->depth;
        e->ring_count--;
        return io;
}

static int lis_status_errno(int status)
{
        switch (status) {
        case SCSI_STATUS_GOOD:
                return 0;
        case SCSI_STATUS_CANCELLED:
                return -ECANCELED;
        case SCSI_STATUS_TIMEOUT:
                return -ETIMEDOUT;
        case SCSI_STATUS_BUSY:
        case SCSI_STATUS_TASK_SET_FULL:
                return -EBUSY;
        default:
                return -EIO;
        }
}

/* Runs inside iscsi_service() (or iscsi_destroy_context() for cancellations). */
static void lis_io_done(struct iscsi_context *ctx, int status, void *data, void *priv)
{
        struct lis_slot *s = priv;
        struct lis_eng *e = s->eng;
        struct blk_io *io = s->io;
        struct scsi_task *t = s->task;

        (void)ctx;
        (void)data;
        io->error = lis_status_errno(status);
        io->sense_key = BLK_SENSE_NONE;
        io->ascq = 0;
        if (status == SCSI_STATUS_CHECK_CONDITION) {
                io->sense_key = (uint8_t)t->sense.key;
                io->ascq = (uint16_t)t->sense.ascq;
        } else if (status == SCSI_STATUS_GOOD && t->residual_status == SCSI_RESIDUAL_UNDERFLOW &&
                   t->residual > 0) {
                io->error = -EIO; /* the target moved fewer bytes than asked */
        }
        scsi_free_scsi_task(t);
        s->task = NULL;
        s->io = NULL;
        e->free_slots[e->nfree++] = s;
        lis_ring_push(e, io);
}

/* Follow the login state so a drop followed by a new login counts once. */
static void lis_track_session(struct lis_eng *e)
{
        int in = iscsi_is_logged_in(e->ctx);

        if (e->logged_in && !in) {
                e->lost = 1;
                e->lost_since_ms = lis_now_ms();
        } else if (!e->logged_in && in && e->lost) {
                e->lost = 0;
                e->reconnects++;
        }
        e->logged_in = in;
        if (e->lost && !e->dead && lis_now_ms() - e->lost_since_ms > LIS_LOST_LIMIT_MS) {
                e->dead = -ETIMEDOUT;
                snprintf(e->err, sizeof(e->err),
                         "iSCSI session lost and not re-established within %d s",
                         LIS_LOST_LIMIT_MS / 1000);
        }
}

/*
 * One turn of the event loop: wait at most wait_ms for the socket, then let
 * libiscsi work. With no events wanted libiscsi is between reconnect attempts.
 * Returns 0 or the negative errno of a failure libiscsi reported.
 */
static int lis_tick(struct lis_eng *e, int wait_ms)
{
        struct pollfd pfd = {.fd = iscsi_get_fd(e->ctx), .events = 0};
        int n, revents = 0;

        pfd.events = (short)iscsi_which_events(e->ctx);
        if (wait_ms > LIS_TICK_MS)
                wait_ms = LIS_TICK_MS;
        if (pfd.events == 0 || pfd.fd < 0) {
                if (wait_ms > 0)
                        poll(NULL, 0, wait_ms);
        } else {
                n = poll(&pfd, 1, wait_ms);
                if (n < 0 && errno != EINTR)
                        return -errno;
                if (n > 0)
                        revents = pfd.revents;
        }
        /* Before login a failed connect shows only as POLLERR: keep its errno. */
        if ((revents & (POLLERR | POLLHUP)) && e->opening && !e->sock_err) {
                int serr = 0;
                socklen_t sl = sizeof(serr);

                if (getsockopt(pfd.fd, SOL_SOCKET, SO_ERROR, &serr, &sl) == 0 && serr)
                        e->sock_err = serr;
        }
        /* revents 0 still runs libiscsi's command timeouts and reconnect timer. */
        if (iscsi_service(e->ctx, revents) < 0)
                return -EIO;
        lis_track_session(e);
        return 0;
}

/* Run the loop until w->done or timeout_ms; -ETIMEDOUT if it never finished. */
static int lis_wait_done(struct lis_eng *e, struct lis_wait *w, int timeout_ms)
{
        uint64_t end = lis_now_ms() + (uint64_t)timeout_ms;
        int rc;

        while (!w->done) {
                uint64_t now = lis_now_ms();

                if (now >= end)
                        return -ETIMEDOUT;
                rc = lis_tick(e, (int)(end - now));
                if (rc < 0 && !w->done)
                        return rc;
        }
        return 0;
}

static void lis_step_done(struct iscsi_context *ctx, int status, void *data, void *priv)
{
        struct lis_wait *w = priv;

        (void)ctx;
        w->done = 1;
        w->status = status;
        w->task = data;
}

static int lis_sock_errno(int serr)
{
        switch (serr) {
        case EHOSTUNREACH:
        case ENETUNREACH:
                return -EHOSTUNREACH;
        case ETIMEDOUT:
                return -ETIMEDOUT;
        default:
                return -ECONNREFUSED;
        }
}

/* Map a failed login to the errno open() promises, from what libiscsi saw. */
static int lis_connect_errno(struct lis_eng *e, int rc, const char *portal)
{
        const char *lib = iscsi_get_error(e->ctx);
        char what[320];
        int err;

        if (e->sock_err) {
                err = lis_sock_errno(e->sock_err);
                snprintf(what, sizeof(what), "cannot connect to iSCSI portal %s: %s", portal,
                         strerror(e->sock_err));
        } else if (rc == -ETIMEDOUT || strstr(lib, "timed out")) {
                err = -ETIMEDOUT;
                snprintf(what, sizeof(what), "no login to iSCSI portal %s within %d s", portal,
                         LIS_LOGIN_TIMEOUT_S);
        } else if (strstr(lib, "resolv")) {
                err = -EHOSTUNREACH;
                snprintf(what, sizeof(what), "cannot resolve iSCSI portal %s", portal);
        } else if (iscsi_is_logged_in(e->ctx)) {
                /* Logged in, then TEST UNIT READY on the LUN failed. */
                err = strstr(lib, "LOGICAL_UNIT_NOT_SUPPORTED") ? -ENOENT : -EIO;
                snprintf(what, sizeof(what), "%s on %s",
                         err == -ENOENT ? "no such LUN" : "LUN not ready", portal);
        } else if (strstr(lib, "Target not found")) {
                err = -ENOENT;
                snprintf(what, sizeof(what), "no such target on %s", portal);
        } else if (strstr(lib, "log in") || strstr(lib, "uthenticat") || strstr(lib, "uthoriz") ||
                   strstr(lib, "CHAP")) {
                err = -EACCES;
                snprintf(what, sizeof(what), "iSCSI login to %s refused", portal);
        } else {
                err = -ECONNREFUSED;
                snprintf(what, sizeof(what), "cannot connect to iSCSI portal %s", portal);
        }
        lis_seterr(e, what, 1);
        return err;
}

static int lis_connect(struct lis_eng *e, const struct iscsi_url *url)
{
        struct lis_wait *w = &e->steps[LIS_STEP_CONNECT];
        int rc;

        if (iscsi_full_connect_async(e->ctx, url->portal, url->lun, lis_step_done, w) != 0) {
                e->sock_err = 0;
                return lis_connect_errno(e, -ECONNREFUSED, url->portal);
        }
        rc = lis_wait_done(e, w, (LIS_LOGIN_TIMEOUT_S + 2) * 1000);
        if (rc == 0 && w->status == SCSI_STATUS_GOOD && iscsi_is_logged_in(e->ctx))
                return 0;
        return lis_connect_errno(e, rc, url->portal);
}

static int lis_read_capacity(struct lis_eng *e)
{
        struct lis_wait *w = &e->steps[LIS_STEP_READCAP];
        struct scsi_readcapacity16 *rc16;
        char what[256];
        int rc;

        if (iscsi_readcapacity16_task(e->ctx, e->lun, lis_step_done, w) == NULL) {
                lis_seterr(e, "READ CAPACITY(16) could not be sent", 1);
                return -EIO;
        }
        rc = lis_wait_done(e, w, (LIS_LOGIN_TIMEOUT_S + 2) * 1000);
        if (rc < 0 || w->status != SCSI_STATUS_GOOD) {
                if (w->task && w->status == SCSI_STATUS_CHECK_CONDITION)
                        snprintf(what, sizeof(what), "READ CAPACITY(16) failed: %s, %s",
                                 scsi_sense_key_str(w->task->sense.key),
                                 scsi_sense_ascq_str(w->task->sense.ascq));
                else
                        snprintf(what, sizeof(what), "READ CAPACITY(16) failed");
                lis_seterr(e, what, 1);
                rc = rc < 0 ? rc : -EIO;
                goto out;
        }
        rc16 = scsi_datain_unmarshall(w->task);
        if (rc16 == NULL || rc16->block_length == 0 ||
            (rc16->block_length & (rc16->block_length - 1))) {
                lis_seterr(e, "READ CAPACITY(16) returned no usable block size", 0);
                rc = -EIO;
                goto out;
        }
        e->block_size = rc16->block_length;
        e->size = (rc16->returned_lba + 1) * (uint64_t)rc16->block_length;
        rc = 0;
out:
        if (w->task)
                scsi_free_scsi_task(w->task);
        w->task = NULL;
        return rc;
}

static int lis_alloc(struct lis_eng **ep, unsigned depth)
{
        struct lis_eng *e = calloc(1, sizeof(*e));

        if (e == NULL)
                return -ENOMEM;
        e->depth = depth;
        e->slots = calloc(depth, sizeof(*e->slots));
        e->free_slots = calloc(depth, sizeof(*e->free_slots));
        e->ring = calloc(depth, sizeof(*e->ring));
        if (!e->slots || !e->free_slots || !e->ring) {
                free(e->slots);
                free(e->free_slots);
                free(e->ring);
                free(e);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < depth; i++) {
                e->slots[i].eng = e;
                e->free_slots[i] = &e->slots[depth - 1 - i];
        }
        e->nfree = depth;
        *ep = e;
        return 0;
}

/* A polite logout if the session is up, then the context and our state go. */
static void lis_free(struct lis_eng *e)
{
        if (e->ctx) {
                /* With commands still out (an interrupt, a target that stopped) skip it. */
                if (!e->dead && e->outstanding == 0 && iscsi_is_logged_in(e->ctx)) {
                        struct lis_wait *w = &e->steps[LIS_STEP_LOGOUT];

                        iscsi_set_timeout(e->ctx, LIS_LOGIN_TIMEOUT_S);
                        if (iscsi_logout_async(e->ctx, lis_step_done, w) == 0)
                                lis_wait_done(e, w, LIS_LOGOUT_TIMEOUT_MS);
                }
                /* Cancels what is still in flight: callbacks land in the ring. */
                iscsi_destroy_context(e->ctx);
        }
        /* A READ CAPACITY that timed out may have come back during the teardown. */
        if (e->steps[LIS_STEP_READCAP].task)
                scsi_free_scsi_task(e->steps[LIS_STEP_READCAP].task);
        /* Commands dropped without a callback (lost mid-reconnect) keep their task. */
        for (unsigned i = 0; i < e->depth; i++)
                if (e->slots[i].task)
                        scsi_free_scsi_task(e->slots[i].task);
        free(e->slots);
        free(e->free_slots);
        free(e->ring);
        free(e);
}

/*
 * The URL libiscsi parses: the caller's, with the secrets of blk_open_args
 * (read from files) spliced in as libiscsi expects them, USER%SECRET@ and
 * &target_password=. 0, or -EINVAL with e->err set.
 */
static int lis_full_url(struct lis_eng *e, const struct blk_open_args *a, char *out, size_t len)
{
        const char *auth = strstr(a->path, "://"), *at = auth ? strchr(auth + 3, '@') : NULL;
        size_t n;

        if (a->chap_secret && !at) {
                lis_seterr(e, "a CHAP secret file needs the user in the URL: iscsi://USER@host/...",
                           0);
                return -EINVAL;
        }
        if (a->chap_target_secret && !strstr(a->path, "target_user=")) {
                lis_seterr(e, "a target (mutual) CHAP secret file needs ?target_user=U in the URL",
                           0);
                return -EINVAL;
        }
        if (a->chap_secret)
                n = (size_t)snprintf(out, len, "%.*s%%%s%s",
                                     (int)(auth + 3 + strcspn(auth + 3, ":%@") - a->path), a->path,
                                     a->chap_secret, at);
        else
                n = (size_t)snprintf(out, len, "%s", a->path);
        if (a->chap_target_secret && n < len)
                n += (size_t)snprintf(out + n, len - n, "%ctarget_password=%s",
                                      strchr(out, '?') ? '&' : '?', a->chap_target_secret);
        if (n >= len) {
                lis_seterr(e, "iSCSI URL too long", 0);
                return -EINVAL;
        }
        return 0;
}

static int lis_setup_context(struct lis_eng *e, const struct blk_open_args *a,
                             struct iscsi_url **url)
{
        char name[256], full[2048];

        if (a->initiator && a->initiator[0])
                snprintf(name, sizeof(name), "%s", a->initiator);
        else
                snprintf(name, sizeof(name), "iqn.2026-11.io.hcisweep:initiator-%ld-%u",
                         (long)getpid(), a->session);
        e->ctx = iscsi_create_context(name);
        if (e->ctx == NULL) {
                lis_seterr(e, "iscsi_create_context failed", 0);
                return -ENOMEM;
        }
        iscsi_set_session_type(e->ctx, ISCSI_SESSION_NORMAL);
        /* Set before parsing so a ?header_digest= in the URL still wins. */
        iscsi_set_header_digest(e->ctx, ISCSI_HEADER_DIGEST_NONE);
        iscsi_set_timeout(e->ctx, LIS_LOGIN_TIMEOUT_S);
        iscsi_set_tcp_syncnt(e->ctx, LIS_TCP_SYN_RETRIES);
        iscsi_set_reconnect_max_retries(e->ctx, LIS_RECONNECT_RETRIES);
        /* After a reconnect libiscsi eats the target's UNIT ATTENTION, not our I/O. */
        iscsi_set_no_ua_on_reconnect(e->ctx, 1);
        if (lis_full_url(e, a, full, sizeof(full)) < 0)
                return -EINVAL;
        *url = iscsi_parse_full_url(e->ctx, full);
        if (*url == NULL) {
                lis_seterr(e, "bad iSCSI URL, want iscsi://[user%pass@]host[:port]/IQN/LUN", 1);
                lis_redact_url_secrets(e->err, full);
        }
        memset(full, 0, sizeof(full));
        return *url ? 0 : -EINVAL;
}

static int lis_open(const struct blk_open_args *a, void **inst, struct blk_geom *geom, char *err,
                    size_t errlen)
{
        struct lis_eng *e = NULL;
        struct iscsi_url *url = NULL;
        int rc;

        if (a->path == NULL || a->depth == 0) {
                snprintf(err, errlen, "libiscsi: need an iscsi:// URL and a depth of at least 1");
                return -EINVAL;
        }
        rc = lis_alloc(&e, a->depth);
        if (rc < 0) {
                snprintf(err, errlen, "libiscsi: out of memory for depth %u", a->depth);
                return rc;
        }
        e->writable = a->writable;
        rc = lis_setup_context(e, a, &url);
        if (rc < 0)
                goto out;
        e->lun = url->lun;
        e->opening = 1;
        rc = lis_connect(e, url);
        e->opening = 0;
        if (rc < 0)
                goto out;
        rc = lis_read_capacity(e);
        if (rc < 0)
                goto out;
        e->io_timeout_s =
            a->io_timeout_ms ? (int)((a->io_timeout_ms + 999) / 1000) : LIS_IO_TIMEOUT_S;
        iscsi_set_timeout(e->ctx, e->io_timeout_s);
        geom->size = e->size;
        geom->block_size = e->block_size;
        *inst = e;
out:
        if (url)
                iscsi_destroy_url(url);
        if (rc < 0) {
                snprintf(err, errlen, "%s", e->err);
                lis_free(e);
        }
        return rc;
}

static enum blk_qres lis_queue(void *inst, struct blk_io *io)
{
        struct lis_eng *e = inst;
        struct lis_slot *s;
        uint64_t lba;

        if (e->outstanding >= e->depth)
                return BLK_Q_BUSY;
        io->sense_key = BLK_SENSE_NONE;
        io->ascq = 0;
        if (io->len == 0 || io->len % e->block_size || io->offset % e->block_size ||
            io->offset + io->len > e->size || io->offset + io->len < io->offset) {
                io->error = -EINVAL;
                return BLK_Q_COMPLETED;
        }
        if (io->ddir == BLK_WRITE && !e->writable) {
                io->error = -EBADF;
                return BLK_Q_COMPLETED;
        }
        if (e->dead) {
                io->error = e->dead;
                return BLK_Q_COMPLETED;
        }
        s = e->free_slots[--e->nfree];
        s->io = io;
        s->iov.iov_base = io->buf;
        s->iov.iov_len = io->len;
        lba = io->offset / e->block_size;
        if (io->ddir == BLK_WRITE)
                s->task =
                    iscsi_write16_iov_task(e->ctx, e->lun, lba, NULL, io->len, (int)e->block_size,
                                           0, 0, 0, 0, 0, lis_io_done, s, &s->iov, 1);
        else
                s->task = iscsi_read16_iov_task(e->ctx, e->lun, lba, io->len, (int)e->block_size, 0,
                                                0, 0, 0, 0, lis_io_done, s, &s->iov, 1);
        if (s->task == NULL) {
                s->io = NULL;
                e->free_slots[e->nfree++] = s;
                lis_seterr(e, "could not queue a SCSI command", 1);
                io->error = -EIO;
                return BLK_Q_COMPLETED;
        }
        io->eng_data = s;
        e->outstanding++;
        return BLK_Q_QUEUED;
}

static int lis_reap(void *inst, unsigned min, unsigned max, struct blk_io **out, int timeout_ms)
{
        struct lis_eng *e = inst;
        uint64_t end = lis_now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
        unsigned n = 0;
        int rc;

        if (min > e->outstanding)
                min = e->outstanding;
        for (;;) {
                uint64_t now;

                if (e->dead)
                        break;
                now = lis_now_ms();
                rc = lis_tick(e, now < end && e->ring_count < min ? (int)(end - now) : 0);
                if (rc < 0 && !e->dead) {
                        e->dead = -ENOTCONN;
                        lis_seterr(e, "iSCSI session lost and could not be re-established", 1);
                }
                if (e->ring_count >= min || lis_now_ms() >= end)
                        break;
        }
        while (n < max && e->ring_count > 0)
                out[n++] = lis_ring_pop(e);
        e->outstanding -= n;
        if (n == 0 && e->dead)
                return e->dead;
        return (int)n;
}

static void lis_stats(void *inst, struct blk_eng_stats *st)
{
        struct lis_eng *e = inst;

        st->reconnects = e->reconnects;
}

static const char *lis_last_error(void *inst)
{
        struct lis_eng *e = inst;

        return e->err;
}

static void lis_close(void *inst)
{
        if (inst)
                lis_free(inst);
}

const struct blk_engine_ops blk_engine_libiscsi = {
    .name = "libiscsi",
    .help = "user-space iSCSI initiator (libiscsi); targets are iscsi:// URLs",
    .takes_url = 1,
    .setup = NULL,
    .open = lis_open,
    .queue = lis_queue,
    .commit = NULL,
    .reap = lis_reap,
    .stats = lis_stats,
    .last_error = lis_last_error,
    .close = lis_close,
    .cleanup = NULL,
};
