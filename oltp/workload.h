/*
 * workload.h - what one transaction of each sysbench OLTP workload executes.
 *
 * A workload is built once from its name and sysbench's knobs into the list
 * of prepared statements a connection needs (one per statement kind and
 * table, plus BEGIN/COMMIT) and a recipe for transactions. Each
 * transaction is then planned into a flat array of steps (statement slot,
 * parameter values, query class), which the engine walks; planning draws
 * table numbers and ids exactly where sysbench's Lua scripts draw them.
 *
 * The struct oltp_workload is read-only after oltp_wl_new() and shared by
 * all threads; plans live in per-connection memory of oltp_wl_max_steps().
 */
#ifndef HCI_OLTP_WORKLOAD_H
#define HCI_OLTP_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "oltp/rand.h"

/* Statement kinds: one prepared statement per kind and table, then the shared ones. */
enum oltp_kind {
        OLTP_K_POINT,
        OLTP_K_SIMPLE_RANGE,
        OLTP_K_SUM_RANGE,
        OLTP_K_ORDER_RANGE,
        OLTP_K_DISTINCT_RANGE,
        OLTP_K_UPDATE_INDEX,
        OLTP_K_UPDATE_NON_INDEX,
        OLTP_K_DELETE,
        OLTP_K_INSERT,
        OLTP_K_NTABLE_KINDS,
        OLTP_K_BEGIN = OLTP_K_NTABLE_KINDS,
        OLTP_K_COMMIT,
        OLTP_K_NKINDS, /* ROLLBACK, only after errors, is not prepared (driver.h) */
};

/* sysbench's query classes (how its counters split queries). */
enum oltp_class { OLTP_Q_READ, OLTP_Q_WRITE, OLTP_Q_OTHER };

/* Which parameters a statement binds, in order. */
enum oltp_param { OLTP_P_ID, OLTP_P_ID2, OLTP_P_K, OLTP_P_C, OLTP_P_PAD };

/* The knobs of sysbench's oltp_common.lua, same names and defaults. */
struct oltp_knobs {
        long long tables, table_size, range_size;
        long long point_selects, simple_ranges, sum_ranges, order_ranges, distinct_ranges;
        long long index_updates, non_index_updates, delete_inserts;
        int range_selects, skip_trx;
};

struct oltp_step {
        uint32_t slot;      /* prepared statement index of the connection */
        uint8_t kind;       /* enum oltp_kind */
        uint8_t cls;        /* enum oltp_class */
        int32_t id, id2, k; /* ids (id2 = id + range_size - 1 for ranges), k for inserts */
};

struct oltp_workload;

/* NULL-terminated names of the eight workloads, for the options table. */
extern const char *const oltp_wl_names[];

/* Build workload index wl (into oltp_wl_names). NULL with err set on bad knobs or ENOMEM. */
struct oltp_workload *oltp_wl_new(int wl, const struct oltp_knobs *kn, const struct oltp_dist *d,
                                  char *err, size_t errlen);
void oltp_wl_free(struct oltp_workload *w);

/* Number of prepared statements a connection needs. */
unsigned oltp_wl_nslots(const struct oltp_workload *w);

/* SQL text of a slot into buf; returns its kind, or -1 when the slot is unused by this workload. */
int oltp_wl_slot_sql(const struct oltp_workload *w, unsigned slot, char *buf, size_t len);

/* Parameters of a kind: number, and which ones in order (at most 4). */
unsigned oltp_wl_params(enum oltp_kind kind, enum oltp_param out[4]);

/* Upper bound of steps in one transaction. */
unsigned oltp_wl_max_steps(const struct oltp_workload *w);

/* Plan one transaction into steps[] (room for max_steps); returns the step count. */
unsigned oltp_wl_plan(const struct oltp_workload *w, struct oltp_rng *r, struct oltp_step *steps);

/* Whether the workload wraps transactions in BEGIN/COMMIT (for rollback on errors). */
int oltp_wl_has_trx(const struct oltp_workload *w);

#endif
