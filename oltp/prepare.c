/*
 * prepare.c - sysbench's sbtest tables, created and loaded in parallel.
 *
 * The load is what takes time (100 tables × 10M rows in the field), so each
 * (host, table) pair is a job taken by a pool of loader threads, each with
 * its own connection. Rows go in as large multi-row INSERTs in autocommit,
 * and the secondary index is created after the load, which InnoDB builds
 * by sorting instead of by row-by-row insertion: that is sysbench's order
 * too, and it keeps the tables interchangeable between the two tools.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "oltp/prepare.h"

#define ROWS_PER_INSERT 1000
#define ROW_MAX         (16 + OLTP_C_LEN + OLTP_PAD_LEN + 8)

struct loader {
        const struct oltp_prep_cfg *cfg;
        _Atomic unsigned next;
        _Atomic uint64_t rows;
        pthread_mutex_t mu;
        int rc;
        char err[512];
};

static void fail(struct loader *l, const struct oltp_dsn *h, const struct oltp_dconn *c, unsigned e)
{
        pthread_mutex_lock(&l->mu);
        if (!l->rc) {
                l->rc = -EIO;
                snprintf(l->err, sizeof(l->err), "%s:%u: %s (error %u)", h->host, h->port,
                         l->cfg->ops->errmsg(c), e);
        }
        pthread_mutex_unlock(&l->mu);
}

static int failed(struct loader *l)
{
        int rc;

        pthread_mutex_lock(&l->mu);
        rc = l->rc;
        pthread_mutex_unlock(&l->mu);
        return rc;
}

static size_t put_row(char *p, struct oltp_rng *r, const struct oltp_prep_cfg *cfg, int first)
{
        size_t n = 0;

        n += (size_t)sprintf(p, "%s(%u,'", first ? "" : ",",
                             oltp_rand_dist(r, cfg->dist, 1, (uint32_t)cfg->table_size));
        oltp_rand_str(r, oltp_c_tmpl, OLTP_C_LEN, p + n);
        n += OLTP_C_LEN;
        memcpy(p + n, "','", 3);
        n += 3;
        oltp_rand_str(r, oltp_pad_tmpl, OLTP_PAD_LEN, p + n);
        n += OLTP_PAD_LEN;
        memcpy(p + n, "')", 2);
        return n + 2;
}

static unsigned load_rows(struct loader *l, struct oltp_dconn *c, unsigned table, char *buf,
                          struct oltp_rng *r)
{
        const struct oltp_prep_cfg *cfg = l->cfg;
        uint64_t done = 0;

        while (done < cfg->table_size) {
                uint64_t n = cfg->table_size - done;
                size_t len;
                unsigned e;

                if (n > ROWS_PER_INSERT)
                        n = ROWS_PER_INSERT;
                len = (size_t)sprintf(buf, "INSERT INTO sbtest%u(k, c, pad) VALUES", table);
                for (uint64_t i = 0; i < n; i++)
                        len += put_row(buf + len, r, cfg, i == 0);
                e = cfg->ops->query_sync(c, buf, len);
                if (e)
                        return e;
                done += n;
                atomic_fetch_add(&l->rows, n);
                if (failed(l))
                        return 0;
        }
        return 0;
}

static unsigned load_table(struct loader *l, struct oltp_dconn *c, unsigned table,
                           const struct oltp_dsn *h, char *buf, struct oltp_rng *r)
{
        const struct oltp_driver_ops *ops = l->cfg->ops;
        unsigned e;
        int n;

        fprintf(l->cfg->out, "Creating table 'sbtest%u' on %s:%u...\n", table, h->host, h->port);
        n = snprintf(buf, 512,
                     "CREATE TABLE sbtest%u(\n  id INTEGER NOT NULL AUTO_INCREMENT,\n"
                     "  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n"
                     "  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n"
                     ") /*! ENGINE = innodb */ ",
                     table);
        e = ops->query_sync(c, buf, (unsigned long)n);
        if (!e)
                e = load_rows(l, c, table, buf, r);
        if (!e) {
                n = snprintf(buf, 128, "CREATE INDEX k_%u ON sbtest%u(k)", table, table);
                e = ops->query_sync(c, buf, (unsigned long)n);
        }
        return e;
}

static void *loader_main(void *arg)
{
        struct loader *l = arg;
        const struct oltp_prep_cfg *cfg = l->cfg;
        char *buf = malloc(ROWS_PER_INSERT * ROW_MAX + 256);
        unsigned njobs = cfg->tables * cfg->nhosts, j;

        cfg->ops->thread_init();
        while (buf && !failed(l) && (j = atomic_fetch_add(&l->next, 1)) < njobs) {
                const struct oltp_dsn *h = &cfg->hosts[j % cfg->nhosts];
                struct oltp_dconn *c = cfg->ops->conn_new(0);
                struct oltp_rng r;
                unsigned e;

                if (!c)
                        break;
                oltp_rng_seed(&r, cfg->seed * 1000003ull + j);
                e = cfg->ops->connect_sync(c, h);
                if (!e)
                        e = load_table(l, c, j / cfg->nhosts + 1, h, buf, &r);
                if (e)
                        fail(l, h, c, e);
                cfg->ops->conn_free(c);
        }
        if (!buf && !failed(l)) {
                pthread_mutex_lock(&l->mu);
                l->rc = -ENOMEM;
                snprintf(l->err, sizeof(l->err), "out of memory");
                pthread_mutex_unlock(&l->mu);
        }
        free(buf);
        cfg->ops->thread_end();
        return NULL;
}

int oltp_prepare(const struct oltp_prep_cfg *cfg, char *err, size_t errlen)
{
        struct loader l = {.cfg = cfg};
        unsigned njobs = cfg->tables * cfg->nhosts;
        unsigned n = cfg->parallel && cfg->parallel < njobs ? cfg->parallel : njobs;
        pthread_t *th = calloc(n, sizeof(*th));
        uint64_t t0 = clk_now_ns();
        unsigned started = 0;
        double s;

        if (!th) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        pthread_mutex_init(&l.mu, NULL);
        for (; started < n; started++)
                if (pthread_create(&th[started], NULL, loader_main, &l))
                        break;
        for (unsigned i = 0; i < started; i++)
                pthread_join(th[i], NULL);
        free(th);
        pthread_mutex_destroy(&l.mu);
        if (!l.rc && started == 0) {
                l.rc = -EAGAIN;
                snprintf(l.err, sizeof(l.err), "cannot start loader threads");
        }
        if (l.rc) {
                snprintf(err, errlen, "%s", l.err);
                return l.rc;
        }
        s = (double)(clk_now_ns() - t0) / 1e9;
        fprintf(cfg->out, "Loaded %llu rows into %u tables on %u hosts in %.2f s: %.0f rows/s\n",
                (unsigned long long)atomic_load(&l.rows), cfg->tables, cfg->nhosts, s,
                s > 0 ? (double)atomic_load(&l.rows) / s : 0);
        return 0;
}

int oltp_cleanup(const struct oltp_prep_cfg *cfg, char *err, size_t errlen)
{
        const struct oltp_driver_ops *ops = cfg->ops;
        int rc = 0;

        ops->thread_init();
        for (unsigned h = 0; h < cfg->nhosts && !rc; h++) {
                struct oltp_dconn *c = ops->conn_new(0);
                unsigned e;

                if (!c) {
                        snprintf(err, errlen, "out of memory");
                        rc = -ENOMEM;
                        break;
                }
                e = ops->connect_sync(c, &cfg->hosts[h]);
                for (unsigned t = 1; !e && t <= cfg->tables; t++) {
                        char sql[64];
                        int n = snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS sbtest%u", t);

                        fprintf(cfg->out, "Dropping table 'sbtest%u' on %s:%u...\n", t,
                                cfg->hosts[h].host, cfg->hosts[h].port);
                        e = ops->query_sync(c, sql, (unsigned long)n);
                }
                if (e) {
                        snprintf(err, errlen, "%s:%u: %s (error %u)", cfg->hosts[h].host,
                                 cfg->hosts[h].port, ops->errmsg(c), e);
                        rc = -EIO;
                }
                ops->conn_free(c);
        }
        ops->thread_end();
        return rc;
}
