/*
 * test_oltp_workload.c - each workload plans what sysbench's script runs:
 * the per-transaction counts of reads/writes/other (oltp_read_write:
 * 14/4/2), one table per statement group, ids inside the table, ranges of
 * range_size rows, delete and insert of the same id, and the knobs
 * (point_selects, skip_trx, range_selects) changing the plan.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "oltp/workload.h"

static const struct oltp_knobs defaults = {
    .tables = 4,
    .table_size = 1000,
    .range_size = 100,
    .point_selects = 10,
    .simple_ranges = 1,
    .sum_ranges = 1,
    .order_ranges = 1,
    .distinct_ranges = 1,
    .index_updates = 1,
    .non_index_updates = 1,
    .delete_inserts = 1,
    .range_selects = 1,
};

static struct oltp_dist dist;

static int wl_index(const char *name)
{
        for (int i = 0; oltp_wl_names[i]; i++)
                if (!strcmp(oltp_wl_names[i], name))
                        return i;
        return -1;
}

/* Plan many transactions and check every one has the wanted class counts. */
static void check_counts(const char *name, const struct oltp_knobs *kn, unsigned r, unsigned w,
                         unsigned o)
{
        char err[128];
        struct oltp_workload *wl = oltp_wl_new(wl_index(name), kn, &dist, err, sizeof(err));
        struct oltp_step steps[64];
        struct oltp_rng rng;

        assert_non_null(wl);
        oltp_rng_seed(&rng, 9);
        assert_true(oltp_wl_max_steps(wl) <= 64);
        for (int t = 0; t < 200; t++) {
                unsigned n = oltp_wl_plan(wl, &rng, steps), c[3] = {0};

                assert_true(n <= oltp_wl_max_steps(wl));
                for (unsigned i = 0; i < n; i++) {
                        char sql[160];

                        c[steps[i].cls]++;
                        assert_true(oltp_wl_slot_sql(wl, steps[i].slot, sql, sizeof(sql)) >= 0);
                }
                assert_int_equal(c[OLTP_Q_READ], r);
                assert_int_equal(c[OLTP_Q_WRITE], w);
                assert_int_equal(c[OLTP_Q_OTHER], o);
        }
        oltp_wl_free(wl);
}

static void test_counts(void **state)
{
        struct oltp_knobs k = defaults;

        (void)state;
        check_counts("oltp_read_write", &k, 14, 4, 2);
        check_counts("oltp_read_only", &k, 14, 0, 2);
        check_counts("oltp_write_only", &k, 0, 4, 2);
        check_counts("oltp_point_select", &k, 1, 0, 0);
        check_counts("oltp_update_index", &k, 0, 1, 0);
        check_counts("oltp_update_non_index", &k, 0, 1, 0);
        check_counts("oltp_insert", &k, 0, 1, 0);
        check_counts("oltp_delete", &k, 0, 1, 0);
        k.point_selects = 3;
        k.skip_trx = 1;
        check_counts("oltp_read_write", &k, 7, 4, 0);
        k.range_selects = 0;
        k.delete_inserts = 2;
        check_counts("oltp_read_write", &k, 3, 6, 0);
}

static void test_plan_values(void **state)
{
        char err[128], sql[160];
        struct oltp_workload *wl = oltp_wl_new(0, &defaults, &dist, err, sizeof(err));
        struct oltp_step s[64];
        struct oltp_rng rng;

        (void)state;
        assert_non_null(wl);
        oltp_rng_seed(&rng, 10);
        for (int t = 0; t < 500; t++) {
                unsigned n = oltp_wl_plan(wl, &rng, s);

                assert_int_equal(n, 20);
                assert_int_equal(s[0].kind, OLTP_K_BEGIN);
                assert_int_equal(s[n - 1].kind, OLTP_K_COMMIT);
                for (unsigned i = 1; i + 1 < n; i++) {
                        assert_true(s[i].id >= 1 && s[i].id <= 1000);
                        if (s[i].kind >= OLTP_K_SIMPLE_RANGE && s[i].kind <= OLTP_K_DISTINCT_RANGE)
                                assert_int_equal(s[i].id2, s[i].id + 99);
                        /* the 10 point selects share one table */
                        if (i > 1 && i <= 10)
                                assert_int_equal(s[i].slot, s[1].slot);
                }
                assert_int_equal(s[17].kind, OLTP_K_DELETE);
                assert_int_equal(s[18].kind, OLTP_K_INSERT);
                assert_int_equal(s[17].id, s[18].id);
                assert_true(s[18].k >= 1 && s[18].k <= 1000);
        }
        assert_int_equal(oltp_wl_slot_sql(wl, s[1].slot, sql, sizeof(sql)), OLTP_K_POINT);
        assert_non_null(strstr(sql, "SELECT c FROM sbtest"));
        assert_non_null(strstr(sql, "WHERE id=?"));
        oltp_wl_free(wl);
}

static void test_bad_knobs(void **state)
{
        char err[128];
        struct oltp_knobs k = defaults;

        (void)state;
        k.tables = 0;
        assert_null(oltp_wl_new(0, &k, &dist, err, sizeof(err)));
        k = defaults;
        k.index_updates = 0;
        assert_null(oltp_wl_new(wl_index("oltp_update_index"), &k, &dist, err, sizeof(err)));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_counts),
            cmocka_unit_test(test_plan_values),
            cmocka_unit_test(test_bad_knobs),
        };
        char err[64];

        oltp_dist_defaults(&dist, OLTP_DIST_SPECIAL);
        oltp_dist_init(&dist, err, sizeof(err));
        return cmocka_run_group_tests(tests, NULL, NULL);
}
