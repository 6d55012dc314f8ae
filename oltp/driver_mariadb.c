/*
 * driver_mariadb.c - the OLTP driver ops over MariaDB Connector/C.
 *
 * Connector/C runs each blocking call in a small coroutine when the handle
 * has MYSQL_OPT_NONBLOCK; mysql_*_start returns the events it waits for and
 * mysql_*_cont resumes it. An execute here is up to two such calls in a
 * row (execute, then store_result when the statement returns rows), so the
 * connection remembers which phase is pending and ->cont picks it up.
 *
 * Memory per connection limits how many connections one client can drive,
 * so the coroutine stack and the network buffer are sized explicitly.
 *
 * No speculative read (struct oltp_io_tune.wait_first_read): in
 * the non-blocking API every socket read goes ma_pvio_read ->
 * ma_pvio_read_async -> pvio->methods->async_read, and a read that fails
 * with EAGAIN yields MYSQL_WAIT_READ to the caller. Right after a request
 * is sent the reply is almost never there yet, so that first recv() is a
 * system call that fails. Each connected handle's pvio gets a copy of the
 * socket plugin's methods (kept in the connection, which the hooks find
 * from the methods pointer) whose async_write marks "request sent" and
 * whose async_read, the first time after that, fails with EAGAIN without
 * a system call: the library yields, the engine's (level-triggered) epoll
 * waits for the reply, and the retry's recv() finds it.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/socket.h>

#include <errmsg.h>
#include <mysql.h>
#include <mysqld_error.h>
#include <ma_pvio.h>

#include "oltp/driver.h"

enum phase { PH_NONE, PH_CONNECT, PH_PREPARE, PH_EXECUTE, PH_STORE, PH_QUERY };

/*
 * The deepest use of the coroutine stack measured here is under 8 KiB
 * (connect with a host name and an authentication plugin to load; statements
 * and 100-row fetches need about 4 KiB). Connector/C's default reserves
 * 256 KiB in a mapping of its own; 64 KiB keeps a wide margin and comes from
 * the heap, which saves a page or two of resident memory per connection.
 */
#define CORO_STACK (64 * 1024)
/* Connector/C grows it for any larger packet; every statement here is < 1 KiB. */
#define NET_BUFFER 2048

/* Counts of the socket hooks, per connection (the hot path touches no shared line). */
struct io_counts {
        uint64_t writes;   /* async_write calls */
        uint64_t reads;    /* async_read calls passed to the plugin (a recv each) */
        uint64_t deferred; /* first reads after a write answered EAGAIN without a recv */
};

struct io_hook {
        PVIO_METHODS m;           /* the plugin's methods, async_read/async_write ours */
        const PVIO_METHODS *base; /* the plugin's own; NULL: not hooked */
        int armed;                /* a request went out since the last read */
        struct io_counts n;
};

struct oltp_dconn {
        MYSQL *m;
        struct io_hook io;
        MYSQL_STMT **stmts;
        unsigned nslots;
        enum phase ph;
        unsigned slot;       /* statement of the pending operation */
        unsigned err;        /* outcome of the last finished operation */
        const char *msg;     /* its message (owned by the library) */
        int iret;            /* out-parameter of the int-returning calls */
        MYSQL *mret;         /* out-parameter of connect */
        MYSQL_BIND binds[4]; /* parameters of a statement being prepared */
        unsigned nbinds;
};

/*
 * Connector/C's MYSQL_WAIT_* bits and the engine's OLTP_WAIT_* bits have the
 * same values today, but nothing ties them: the ops translate both ways.
 */
static int wait_of(int st)
{
        return (st & MYSQL_WAIT_READ ? OLTP_WAIT_READ : 0) |
               (st & MYSQL_WAIT_WRITE ? OLTP_WAIT_WRITE : 0) |
               (st & MYSQL_WAIT_EXCEPT ? OLTP_WAIT_EXCEPT : 0) |
               (st & MYSQL_WAIT_TIMEOUT ? OLTP_WAIT_TIMEOUT : 0);
}

static int mysql_ready(int ready)
{
        return (ready & OLTP_WAIT_READ ? MYSQL_WAIT_READ : 0) |
               (ready & OLTP_WAIT_WRITE ? MYSQL_WAIT_WRITE : 0) |
               (ready & OLTP_WAIT_EXCEPT ? MYSQL_WAIT_EXCEPT : 0) |
               (ready & OLTP_WAIT_TIMEOUT ? MYSQL_WAIT_TIMEOUT : 0);
}

static struct oltp_io_tune tune = {.wait_first_read = 1};

/* Totals over the connections dropped so far (added once per connection). */
static _Atomic uint64_t tot_writes, tot_reads, tot_deferred, tot_hooked, tot_unhooked;

static int mdb_lib_init(void)
{
        return mysql_library_init(0, NULL, NULL) ? -EIO : 0;
}

static void mdb_lib_end(void)
{
        if (tune.report)
                fprintf(stderr,
                        "mariadb io: connections hooked %llu, not hooked %llu; async writes %llu, "
                        "recv %llu, first reads deferred %llu (wait_first_read=%d)\n",
                        (unsigned long long)tot_hooked, (unsigned long long)tot_unhooked,
                        (unsigned long long)tot_writes, (unsigned long long)tot_reads,
                        (unsigned long long)tot_deferred, tune.wait_first_read);
        mysql_library_end();
}

static void mdb_tune(const struct oltp_io_tune *t)
{
        tune = *t;
}

static struct oltp_dconn *conn_of_pvio(const MARIADB_PVIO *p)
{
        return (struct oltp_dconn *)(void *)((char *)p->methods -
                                             offsetof(struct oltp_dconn, io.m));
}

static ssize_t hook_async_write(MARIADB_PVIO *p, const uchar *buf, size_t len)
{
        struct io_hook *h = &conn_of_pvio(p)->io;
        ssize_t r = h->base->async_write(p, buf, len);

        h->n.writes++;
        if (r > 0)
                h->armed = tune.wait_first_read;
        return r;
}

static ssize_t hook_async_read(MARIADB_PVIO *p, uchar *buf, size_t len)
{
        struct io_hook *h = &conn_of_pvio(p)->io;

        if (h->armed) {
                /* the library yields MYSQL_WAIT_READ and retries once readable */
                h->armed = 0;
                h->n.deferred++;
                errno = EAGAIN;
                return -1;
        }
        h->n.reads++;
        return h->base->async_read(p, buf, len);
}

/* After a connect: swap the pvio's methods for the connection's copy. */
static void hook_io(struct oltp_dconn *c)
{
        MARIADB_PVIO *p = c->m->net.pvio;
        int us = (int)tune.busy_poll_us;

        if (us)
                setsockopt((int)mysql_get_socket(c->m), SOL_SOCKET, SO_BUSY_POLL, &us, sizeof(us));
        if (!tune.wait_first_read && !tune.report)
                return;
        if (!p || p->ctls || !p->methods || !p->methods->async_read || !p->methods->async_write) {
                tot_unhooked++;
                return;
        }
        c->io.base = p->methods;
        c->io.m = *p->methods;
        c->io.m.async_read = hook_async_read;
        c->io.m.async_write = hook_async_write;
        c->io.armed = 0;
        p->methods = &c->io.m;
        tot_hooked++;
}

/* Before the handle is closed: add the counts and put the plugin's methods back. */
static void unhook_io(struct oltp_dconn *c)
{
        if (!c->io.base)
                return;
        if (c->m && c->m->net.pvio && c->m->net.pvio->methods == &c->io.m)
                c->m->net.pvio->methods = (PVIO_METHODS *)c->io.base;
        tot_writes += c->io.n.writes;
        tot_reads += c->io.n.reads;
        tot_deferred += c->io.n.deferred;
        memset(&c->io, 0, sizeof(c->io));
}

static void mdb_thread_init(void)
{
        mysql_thread_init();
}

static void mdb_thread_end(void)
{
        mysql_thread_end();
}

static int handle_init(struct oltp_dconn *c)
{
        size_t stack = CORO_STACK;
        unsigned long netbuf = NET_BUFFER;

        c->m = mysql_init(NULL);
        if (!c->m)
                return -ENOMEM;
        if (mysql_options(c->m, MYSQL_OPT_NONBLOCK, &stack) ||
            mysql_options(c->m, MYSQL_OPT_NET_BUFFER_LENGTH, &netbuf)) {
                mysql_close(c->m);
                c->m = NULL;
                return -ENOMEM;
        }
        return 0;
}

static struct oltp_dconn *mdb_conn_new(unsigned nslots)
{
        struct oltp_dconn *c = calloc(1, sizeof(*c));

        if (!c)
                return NULL;
        c->stmts = calloc(nslots ? nslots : 1, sizeof(*c->stmts));
        if (!c->stmts || handle_init(c)) {
                free(c->stmts);
                free(c);
                return NULL;
        }
        c->nslots = nslots;
        return c;
}

/* mysql_close first: it detaches the statements, so closing them sends nothing. */
static void drop(struct oltp_dconn *c)
{
        unhook_io(c);
        if (c->m)
                mysql_close(c->m);
        c->m = NULL;
        for (unsigned i = 0; i < c->nslots; i++) {
                if (c->stmts[i])
                        mysql_stmt_close(c->stmts[i]);
                c->stmts[i] = NULL;
        }
        c->ph = PH_NONE;
}

static void mdb_conn_free(struct oltp_dconn *c)
{
        if (!c)
                return;
        drop(c);
        free(c->stmts);
        free(c);
}

static void mdb_disconnect(struct oltp_dconn *c)
{
        drop(c);
        if (handle_init(c)) {
                c->err = CR_OUT_OF_MEMORY;
                c->msg = "out of memory";
        }
}

static void set_conn_err(struct oltp_dconn *c)
{
        c->err = c->m ? mysql_errno(c->m) : CR_OUT_OF_MEMORY;
        c->msg = c->m ? mysql_error(c->m) : "out of memory";
}

static void set_stmt_err(struct oltp_dconn *c)
{
        MYSQL_STMT *s = c->stmts[c->slot];

        c->err = mysql_stmt_errno(s);
        c->msg = mysql_stmt_error(s);
        if (!c->err) { /* some failures are only recorded on the connection */
                set_conn_err(c);
                if (!c->err) {
                        c->err = CR_UNKNOWN_ERROR;
                        c->msg = "unknown error";
                }
        }
}

static void set_options(struct oltp_dconn *c, const struct oltp_dsn *dsn)
{
        unsigned t = dsn->connect_timeout_s ? dsn->connect_timeout_s : 10;

        mysql_options(c->m, MYSQL_OPT_CONNECT_TIMEOUT, &t);
}

static int connect_done(struct oltp_dconn *c)
{
        c->ph = PH_NONE;
        if (!c->mret) {
                set_conn_err(c);
        } else {
                c->err = 0;
                hook_io(c);
        }
        return 0;
}

static int mdb_connect_start(struct oltp_dconn *c, const struct oltp_dsn *dsn)
{
        int st;

        if (!c->m) {
                c->err = CR_OUT_OF_MEMORY;
                c->msg = "out of memory";
                return 0;
        }
        set_options(c, dsn);
        c->ph = PH_CONNECT;
        st = mysql_real_connect_start(&c->mret, c->m, dsn->host, dsn->user, dsn->password, dsn->db,
                                      dsn->port, NULL, 0);
        return wait_of(st ? st : connect_done(c));
}

static int prepare_done(struct oltp_dconn *c)
{
        MYSQL_STMT *s = c->stmts[c->slot];

        c->ph = PH_NONE;
        c->err = 0;
        if (c->iret || (c->nbinds && mysql_stmt_bind_param(s, c->binds)))
                set_stmt_err(c);
        return 0;
}

static void fill_binds(struct oltp_dconn *c, const struct oltp_bind *b, unsigned n)
{
        memset(c->binds, 0, sizeof(c->binds));
        c->nbinds = n;
        for (unsigned i = 0; i < n; i++) {
                MYSQL_BIND *m = &c->binds[i];

                m->buffer = b[i].buf;
                if (b[i].type == OLTP_BIND_INT32) {
                        m->buffer_type = MYSQL_TYPE_LONG;
                } else {
                        m->buffer_type = MYSQL_TYPE_STRING;
                        m->buffer_length = b[i].cap;
                        m->length = b[i].len;
                }
        }
}

static int mdb_prepare_start(struct oltp_dconn *c, unsigned slot, const char *sql,
                             const struct oltp_bind *binds, unsigned nbinds)
{
        int st;

        if (slot >= c->nslots || nbinds > 4) {
                c->err = CR_UNKNOWN_ERROR;
                c->msg = "bad statement slot";
                return 0;
        }
        if (!c->stmts[slot])
                c->stmts[slot] = mysql_stmt_init(c->m);
        if (!c->stmts[slot]) {
                c->err = CR_OUT_OF_MEMORY;
                c->msg = "out of memory";
                return 0;
        }
        c->slot = slot;
        fill_binds(c, binds, nbinds);
        c->ph = PH_PREPARE;
        st = mysql_stmt_prepare_start(&c->iret, c->stmts[slot], sql, strlen(sql));
        return wait_of(st ? st : prepare_done(c));
}

/*
 * The rows were read (outcome in c->iret): drop them at once. Storing then
 * freeing reads the rows as sysbench does (one store per statement), at half
 * the instructions of fetching them one by one into bound buffers, and the
 * free keeps only the statement's preallocated block, so a connection holds
 * no more memory than with a fetch.
 */
static int store_done(struct oltp_dconn *c)
{
        MYSQL_STMT *s = c->stmts[c->slot];

        c->ph = PH_NONE;
        if (c->iret) {
                set_stmt_err(c);
                return 0;
        }
        c->err = 0;
        mysql_stmt_free_result(s); /* every row is in memory: no network */
        return 0;
}

static int execute_done(struct oltp_dconn *c)
{
        MYSQL_STMT *s = c->stmts[c->slot];
        int st;

        if (c->iret) {
                c->ph = PH_NONE;
                set_stmt_err(c);
                return 0;
        }
        if (mysql_stmt_field_count(s) == 0) {
                c->ph = PH_NONE;
                c->err = 0;
                return 0;
        }
        c->ph = PH_STORE;
        st = mysql_stmt_store_result_start(&c->iret, s);
        return st ? st : store_done(c);
}

static int mdb_execute_start(struct oltp_dconn *c, unsigned slot)
{
        int st;

        c->slot = slot;
        c->ph = PH_EXECUTE;
        st = mysql_stmt_execute_start(&c->iret, c->stmts[slot]);
        return wait_of(st ? st : execute_done(c));
}

static int query_done(struct oltp_dconn *c)
{
        c->ph = PH_NONE;
        if (c->iret)
                set_conn_err(c);
        else
                c->err = 0;
        return 0;
}

static int mdb_query_start(struct oltp_dconn *c, const char *sql)
{
        int st;

        c->ph = PH_QUERY;
        st = mysql_real_query_start(&c->iret, c->m, sql, strlen(sql));
        return wait_of(st ? st : query_done(c));
}

/* Resume the pending phase with MYSQL_WAIT_* bits; MYSQL_WAIT_* bits or 0 back. */
static int cont_phase(struct oltp_dconn *c, int ready)
{
        int st;

        switch (c->ph) {
        case PH_CONNECT:
                st = mysql_real_connect_cont(&c->mret, c->m, ready);
                return st ? st : connect_done(c);
        case PH_PREPARE:
                st = mysql_stmt_prepare_cont(&c->iret, c->stmts[c->slot], ready);
                return st ? st : prepare_done(c);
        case PH_EXECUTE:
                st = mysql_stmt_execute_cont(&c->iret, c->stmts[c->slot], ready);
                return st ? st : execute_done(c);
        case PH_STORE:
                st = mysql_stmt_store_result_cont(&c->iret, c->stmts[c->slot], ready);
                return st ? st : store_done(c);
        case PH_QUERY:
                st = mysql_real_query_cont(&c->iret, c->m, ready);
                return st ? st : query_done(c);
        case PH_NONE:
        default:
                return 0;
        }
}

static int mdb_cont(struct oltp_dconn *c, int ready)
{
        return wait_of(cont_phase(c, mysql_ready(ready)));
}

static unsigned mdb_error(const struct oltp_dconn *c)
{
        return c->err;
}

static const char *mdb_errmsg(const struct oltp_dconn *c)
{
        return c->err ? c->msg : "";
}

static enum oltp_err_class mdb_classify(unsigned err)
{
        switch (err) {
        case 0:
                return OLTP_ERR_NONE;
        case CR_CONNECTION_ERROR:
        case CR_CONN_HOST_ERROR:
        case CR_SERVER_GONE_ERROR:
        case CR_TCP_CONNECTION:
        case CR_SERVER_HANDSHAKE_ERR:
        case CR_SERVER_LOST:
        case CR_SERVER_LOST_EXTENDED:
        case CR_ERR_NET_READ:
        case CR_ERR_NET_WRITE:
        case ER_SERVER_SHUTDOWN:
        case ER_CONNECTION_KILLED:
                return OLTP_ERR_LOST;
        default:
                return OLTP_ERR_OTHER;
        }
}

static int mdb_fd(const struct oltp_dconn *c)
{
        return c->m ? (int)mysql_get_socket(c->m) : -1;
}

static unsigned mdb_timeout_ms(const struct oltp_dconn *c)
{
        return c->m ? mysql_get_timeout_value_ms(c->m) : 0;
}

static unsigned mdb_connect_sync(struct oltp_dconn *c, const struct oltp_dsn *dsn)
{
        if (!c->m)
                return CR_OUT_OF_MEMORY;
        set_options(c, dsn);
        if (!mysql_real_connect(c->m, dsn->host, dsn->user, dsn->password, dsn->db, dsn->port, NULL,
                                0)) {
                set_conn_err(c);
                return c->err;
        }
        c->err = 0;
        return 0;
}

static unsigned mdb_query_sync(struct oltp_dconn *c, const char *sql, unsigned long len)
{
        MYSQL_RES *res;

        c->err = 0;
        if (mysql_real_query(c->m, sql, len)) {
                set_conn_err(c);
                return c->err;
        }
        res = mysql_store_result(c->m);
        if (res)
                mysql_free_result(res);
        else if (mysql_field_count(c->m))
                set_conn_err(c);
        return c->err;
}

static unsigned mdb_query_u64_sync(struct oltp_dconn *c, const char *sql, uint64_t *out)
{
        MYSQL_RES *res;
        MYSQL_ROW row;

        *out = 0;
        c->err = 0;
        if (mysql_real_query(c->m, sql, strlen(sql)) || !(res = mysql_store_result(c->m))) {
                set_conn_err(c);
                return c->err;
        }
        row = mysql_fetch_row(res);
        if (row && row[0])
                *out = strtoull(row[0], NULL, 10);
        mysql_free_result(res);
        return 0;
}

const struct oltp_driver_ops oltp_driver_mariadb = {
    .name = "mariadb",
    .lib_init = mdb_lib_init,
    .lib_end = mdb_lib_end,
    .thread_init = mdb_thread_init,
    .thread_end = mdb_thread_end,
    .conn_new = mdb_conn_new,
    .conn_free = mdb_conn_free,
    .disconnect = mdb_disconnect,
    .connect_start = mdb_connect_start,
    .prepare_start = mdb_prepare_start,
    .execute_start = mdb_execute_start,
    .query_start = mdb_query_start,
    .cont = mdb_cont,
    .error = mdb_error,
    .errmsg = mdb_errmsg,
    .classify = mdb_classify,
    .fd = mdb_fd,
    .timeout_ms = mdb_timeout_ms,
    .connect_sync = mdb_connect_sync,
    .query_sync = mdb_query_sync,
    .query_u64_sync = mdb_query_u64_sync,
    .tune = mdb_tune,
};
