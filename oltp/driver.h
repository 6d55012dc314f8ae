/*
 * driver.h - the client library behind the OLTP engine, as a small ops struct.
 *
 * The engine drives hundreds of connections from a few threads, so every
 * operation that talks to the server comes in non-blocking form: a *_start
 * call returns either 0 (finished; read the outcome with ->error) or a mask
 * of OLTP_WAIT_* bits telling the engine what to wait for on ->fd (and, with
 * OLTP_WAIT_TIMEOUT, for how long: ->timeout_ms). When that happens the
 * engine calls ->cont with the bits that fired, until it returns 0. This is
 * the shape of MariaDB Connector/C's mysql_*_start/_cont API; Oracle's
 * libmysqlclient (mysql_*_nonblocking returning NET_ASYNC_*) fits behind the
 * same ops with its own file.
 *
 * Prepared statements live in numbered slots of a connection. Parameters are
 * bound once, at prepare time, to buffers the caller owns and keeps alive;
 * before each execute the caller writes new values into those buffers, so the
 * hot path allocates nothing. ->execute_start also reads any result set
 * to its end, row by row into buffers of the connection (what sysbench does
 * for its SELECTs, without keeping rows per statement).
 *
 * One connection is used by one thread at a time. ->lib_init once per
 * process before anything else; ->thread_init/->thread_end in each thread
 * that uses connections.
 */
#ifndef HCI_OLTP_DRIVER_H
#define HCI_OLTP_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#define OLTP_WAIT_READ    1
#define OLTP_WAIT_WRITE   2
#define OLTP_WAIT_EXCEPT  4
#define OLTP_WAIT_TIMEOUT 8

struct oltp_dsn {
        char host[256];
        unsigned port;
        const char *user, *password, *db; /* owned by the caller; password may be NULL */
        unsigned connect_timeout_s;
};

enum oltp_bind_type { OLTP_BIND_INT32, OLTP_BIND_CHAR };

struct oltp_bind {
        enum oltp_bind_type type;
        void *buf;          /* int32_t, or char[cap] */
        unsigned long cap;  /* CHAR: buffer capacity */
        unsigned long *len; /* CHAR: current length, read at each execute */
};

/* How the engine reacts to an error number. */
enum oltp_err_class {
        OLTP_ERR_NONE,
        OLTP_ERR_LOST,  /* the connection is gone: reconnect */
        OLTP_ERR_OTHER, /* a server error: retry if listed as ignorable, else fatal */
};

struct oltp_dconn;

/*
 * Levers on a driver's socket I/O, set once before the first
 * conn_new; all 0 is the client library's own behaviour.
 */
struct oltp_io_tune {
        /* The first read after a request is sent waits for readiness instead
         * of trying recv() at once (which, the reply not being there yet,
         * returns EAGAIN and costs a system call per statement). */
        int wait_first_read;
        /* SO_BUSY_POLL on each connected socket, microseconds (0: off). The
         * kernel busy-polls only devices with NAPI: on loopback it is a no-op. */
        unsigned busy_poll_us;
        /* Print the driver's I/O counters on stderr at lib_end (diagnostics). */
        int report;
};

struct oltp_driver_ops {
        const char *name;
        int (*lib_init)(void);
        void (*lib_end)(void);
        void (*thread_init)(void);
        void (*thread_end)(void);

        /* A connection handle with nslots statement slots (not connected). NULL on ENOMEM. */
        struct oltp_dconn *(*conn_new)(unsigned nslots);
        /* Close (if connected) and free. */
        void (*conn_free)(struct oltp_dconn *c);
        /* Drop a connection (after a loss) and make the handle ready to connect again. */
        void (*disconnect)(struct oltp_dconn *c);

        int (*connect_start)(struct oltp_dconn *c, const struct oltp_dsn *dsn);
        int (*prepare_start)(struct oltp_dconn *c, unsigned slot, const char *sql,
                             const struct oltp_bind *binds, unsigned nbinds);
        int (*execute_start)(struct oltp_dconn *c, unsigned slot);
        /* A statement without a result set, sent as plain text: for ROLLBACK,
         * needed only after an error, since a prepared statement costs every
         * connection ~9 KiB in Connector/C. */
        int (*query_start)(struct oltp_dconn *c, const char *sql);
        int (*cont)(struct oltp_dconn *c, int ready);

        /* Outcome of the last finished operation: 0 or the server/client error number. */
        unsigned (*error)(const struct oltp_dconn *c);
        /* Its message (valid until the next operation). */
        const char *(*errmsg)(const struct oltp_dconn *c);
        enum oltp_err_class (*classify)(unsigned err);

        /* The socket to wait on (-1 before connecting) and the timeout asked for. */
        int (*fd)(const struct oltp_dconn *c);
        unsigned (*timeout_ms)(const struct oltp_dconn *c);

        /* Blocking helpers for prepare/cleanup: 0 or the error number (message via errmsg). */
        unsigned (*connect_sync)(struct oltp_dconn *c, const struct oltp_dsn *dsn);
        unsigned (*query_sync)(struct oltp_dconn *c, const char *sql, unsigned long len);
        /* First column of the first row of a query, as a number (e.g. COUNT(*)). */
        unsigned (*query_u64_sync)(struct oltp_dconn *c, const char *sql, uint64_t *out);

        /* Optional (NULL: no levers): before any conn_new, after lib_init. */
        void (*tune)(const struct oltp_io_tune *t);
};

/* The drivers of this build, NULL-terminated (drivers.c), and their names in
 * the same order: --driver's choices (oltp_drivers[i]->name). */
extern const struct oltp_driver_ops *const oltp_drivers[];
extern const char *const oltp_driver_names[];

#endif
