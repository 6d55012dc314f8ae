/*
 * workload.c - sysbench's eight OLTP workloads as recipes of statement groups.
 *
 * sysbench's Lua scripts run groups of statements (N point selects on one
 * random table, each range kind on its own random table, delete+insert
 * pairs on one table, ...). A recipe here is that ordered list of groups;
 * planning a transaction walks it and draws tables uniformly and ids from
 * the configured distribution, as the scripts do. The statement texts are
 * sysbench's, so the server does the same work for both tools.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "oltp/workload.h"

const char *const oltp_wl_names[] = {
    "oltp_read_write",   "oltp_read_only",    "oltp_write_only",
    "oltp_point_select", "oltp_update_index", "oltp_update_non_index",
    "oltp_insert",       "oltp_delete",       NULL,
};

enum { WL_RW, WL_RO, WL_WO, WL_POINT, WL_UPD_IDX, WL_UPD_NONIDX, WL_INSERT, WL_DELETE };

#define MAX_GROUPS 10

struct group {
        enum oltp_kind kind;
        unsigned count;
        int pair; /* delete followed by an insert of the same id */
};

struct oltp_workload {
        struct oltp_knobs kn;
        const struct oltp_dist *dist;
        int trx, insert_auto_id;
        unsigned ngroups, max_steps;
        struct group groups[MAX_GROUPS];
        int used[OLTP_K_NKINDS];
};

static const struct {
        const char *sql;
        enum oltp_class cls;
        unsigned nparams;
        enum oltp_param params[4];
} kinds[OLTP_K_NKINDS] = {
    [OLTP_K_POINT] = {"SELECT c FROM sbtest%u WHERE id=?", OLTP_Q_READ, 1, {OLTP_P_ID}},
    [OLTP_K_SIMPLE_RANGE] = {"SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ?",
                             OLTP_Q_READ,
                             2,
                             {OLTP_P_ID, OLTP_P_ID2}},
    [OLTP_K_SUM_RANGE] = {"SELECT SUM(k) FROM sbtest%u WHERE id BETWEEN ? AND ?",
                          OLTP_Q_READ,
                          2,
                          {OLTP_P_ID, OLTP_P_ID2}},
    [OLTP_K_ORDER_RANGE] = {"SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c",
                            OLTP_Q_READ,
                            2,
                            {OLTP_P_ID, OLTP_P_ID2}},
    [OLTP_K_DISTINCT_RANGE] = {"SELECT DISTINCT c FROM sbtest%u WHERE id BETWEEN ? AND ? "
                               "ORDER BY c",
                               OLTP_Q_READ,
                               2,
                               {OLTP_P_ID, OLTP_P_ID2}},
    [OLTP_K_UPDATE_INDEX] = {"UPDATE sbtest%u SET k=k+1 WHERE id=?", OLTP_Q_WRITE, 1, {OLTP_P_ID}},
    [OLTP_K_UPDATE_NON_INDEX] = {"UPDATE sbtest%u SET c=? WHERE id=?",
                                 OLTP_Q_WRITE,
                                 2,
                                 {OLTP_P_C, OLTP_P_ID}},
    [OLTP_K_DELETE] = {"DELETE FROM sbtest%u WHERE id=?", OLTP_Q_WRITE, 1, {OLTP_P_ID}},
    [OLTP_K_INSERT] = {"INSERT INTO sbtest%u (id, k, c, pad) VALUES (?, ?, ?, ?)",
                       OLTP_Q_WRITE,
                       4,
                       {OLTP_P_ID, OLTP_P_K, OLTP_P_C, OLTP_P_PAD}},
    [OLTP_K_BEGIN] = {"BEGIN", OLTP_Q_OTHER, 0, {0}},
    [OLTP_K_COMMIT] = {"COMMIT", OLTP_Q_OTHER, 0, {0}},
};

static void add_group(struct oltp_workload *w, enum oltp_kind kind, long long count, int pair)
{
        if (count <= 0)
                return;
        w->groups[w->ngroups++] = (struct group){kind, (unsigned)count, pair};
        w->used[kind] = 1;
        if (pair)
                w->used[OLTP_K_INSERT] = 1;
        w->max_steps += (unsigned)count * (pair ? 2 : 1);
}

static void add_reads(struct oltp_workload *w, long long points)
{
        const struct oltp_knobs *k = &w->kn;

        add_group(w, OLTP_K_POINT, points, 0);
        if (!k->range_selects)
                return;
        add_group(w, OLTP_K_SIMPLE_RANGE, k->simple_ranges, 0);
        add_group(w, OLTP_K_SUM_RANGE, k->sum_ranges, 0);
        add_group(w, OLTP_K_ORDER_RANGE, k->order_ranges, 0);
        add_group(w, OLTP_K_DISTINCT_RANGE, k->distinct_ranges, 0);
}

static void add_writes(struct oltp_workload *w)
{
        add_group(w, OLTP_K_UPDATE_INDEX, w->kn.index_updates, 0);
        add_group(w, OLTP_K_UPDATE_NON_INDEX, w->kn.non_index_updates, 0);
        add_group(w, OLTP_K_DELETE, w->kn.delete_inserts, 1);
}

static void build(struct oltp_workload *w, int wl)
{
        switch (wl) {
        case WL_RW:
                add_reads(w, w->kn.point_selects);
                add_writes(w);
                break;
        case WL_RO:
                add_reads(w, w->kn.point_selects);
                break;
        case WL_WO:
                add_writes(w);
                break;
        case WL_POINT: /* sysbench forces one point select per event here */
                add_group(w, OLTP_K_POINT, 1, 0);
                break;
        case WL_UPD_IDX:
                add_group(w, OLTP_K_UPDATE_INDEX, w->kn.index_updates, 0);
                break;
        case WL_UPD_NONIDX:
                add_group(w, OLTP_K_UPDATE_NON_INDEX, w->kn.non_index_updates, 0);
                break;
        case WL_INSERT:
                add_group(w, OLTP_K_INSERT, 1, 0);
                w->insert_auto_id = 1;
                break;
        case WL_DELETE:
                add_group(w, OLTP_K_DELETE, 1, 0);
                break;
        }
        /* only these three scripts issue BEGIN/COMMIT */
        w->trx = !w->kn.skip_trx && (wl == WL_RW || wl == WL_RO || wl == WL_WO);
        if (w->trx) {
                w->used[OLTP_K_BEGIN] = w->used[OLTP_K_COMMIT] = 1;
                w->max_steps += 2;
        }
}

struct oltp_workload *oltp_wl_new(int wl, const struct oltp_knobs *kn, const struct oltp_dist *d,
                                  char *err, size_t errlen)
{
        struct oltp_workload *w;

        if (wl < 0 || wl > WL_DELETE || kn->tables < 1 || kn->table_size < 1 ||
            kn->table_size > 0x7fffffff - kn->range_size) {
                snprintf(err, errlen, "bad workload, --tables or --table-size");
                return NULL;
        }
        w = calloc(1, sizeof(*w));
        if (!w) {
                snprintf(err, errlen, "out of memory");
                return NULL;
        }
        w->kn = *kn;
        w->dist = d;
        build(w, wl);
        if (w->max_steps == 0) {
                snprintf(err, errlen, "the knobs leave %s with no statement to run",
                         oltp_wl_names[wl]);
                free(w);
                return NULL;
        }
        return w;
}

void oltp_wl_free(struct oltp_workload *w)
{
        free(w);
}

unsigned oltp_wl_nslots(const struct oltp_workload *w)
{
        return OLTP_K_NTABLE_KINDS * (unsigned)w->kn.tables + 3;
}

static unsigned slot_of(const struct oltp_workload *w, enum oltp_kind kind, unsigned table)
{
        if (kind >= OLTP_K_NTABLE_KINDS)
                return OLTP_K_NTABLE_KINDS * (unsigned)w->kn.tables + (kind - OLTP_K_BEGIN);
        return (unsigned)kind * (unsigned)w->kn.tables + table - 1;
}

int oltp_wl_slot_sql(const struct oltp_workload *w, unsigned slot, char *buf, size_t len)
{
        unsigned nt = (unsigned)w->kn.tables, kind, table = 0;

        if (slot >= oltp_wl_nslots(w))
                return -1;
        if (slot >= OLTP_K_NTABLE_KINDS * nt) {
                kind = OLTP_K_BEGIN + slot - OLTP_K_NTABLE_KINDS * nt;
        } else {
                kind = slot / nt;
                table = slot % nt + 1;
        }
        if (!w->used[kind])
                return -1;
        snprintf(buf, len, kinds[kind].sql, table);
        return (int)kind;
}

unsigned oltp_wl_params(enum oltp_kind kind, enum oltp_param out[4])
{
        for (unsigned i = 0; i < kinds[kind].nparams; i++)
                out[i] = kinds[kind].params[i];
        return kinds[kind].nparams;
}

unsigned oltp_wl_max_steps(const struct oltp_workload *w)
{
        return w->max_steps;
}

int oltp_wl_has_trx(const struct oltp_workload *w)
{
        return w->trx;
}

static struct oltp_step *put(const struct oltp_workload *w, struct oltp_step *s,
                             enum oltp_kind kind, unsigned table)
{
        s->slot = slot_of(w, kind, table);
        s->kind = (uint8_t)kind;
        s->cls = (uint8_t)kinds[kind].cls;
        s->id = s->id2 = s->k = 0;
        return s;
}

static int32_t draw_id(const struct oltp_workload *w, struct oltp_rng *r)
{
        return (int32_t)oltp_rand_dist(r, w->dist, 1, (uint32_t)w->kn.table_size);
}

unsigned oltp_wl_plan(const struct oltp_workload *w, struct oltp_rng *r, struct oltp_step *steps)
{
        unsigned n = 0, nt = (unsigned)w->kn.tables;
        struct oltp_step *s;

        if (w->trx)
                put(w, &steps[n++], OLTP_K_BEGIN, 0);
        for (unsigned g = 0; g < w->ngroups; g++) {
                const struct group *gr = &w->groups[g];
                unsigned table = oltp_rand_uniform(r, 1, nt);

                for (unsigned i = 0; i < gr->count; i++) {
                        s = put(w, &steps[n++], gr->kind, table);
                        if (gr->kind == OLTP_K_INSERT) { /* oltp_insert: auto-increment id */
                                s->k = draw_id(w, r);
                                continue;
                        }
                        s->id = draw_id(w, r);
                        s->id2 = s->id + (int32_t)w->kn.range_size - 1;
                        if (!gr->pair)
                                continue;
                        int32_t id = s->id;
                        s = put(w, &steps[n++], OLTP_K_INSERT, table);
                        s->id = id;
                        s->k = draw_id(w, r);
                }
        }
        if (w->trx)
                put(w, &steps[n++], OLTP_K_COMMIT, 0);
        return n;
}
