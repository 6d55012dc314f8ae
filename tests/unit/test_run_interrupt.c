/*
 * test_run_interrupt.c - an interrupt ends the point in flight, and after
 * blk_run_resume() the same run (the same sessions: scale's block load keeps
 * its logins from step to step) takes full points again. Driven on the null
 * engine, so only the core loop is exercised; the interrupt comes from a
 * second thread, as from a signal handler or scale's controlling thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>

#include "block/run.h"
#include "core/clock.h"

#define LONG_NS  (60ull * 1000000000ull)
#define SHORT_NS 200000000ull

static void *interrupt_soon(void *arg)
{
        clk_sleep_ns(100000000ull);
        blk_run_interrupt(arg);
        return NULL;
}

static struct blk_run *open_null(void)
{
        struct blk_target_spec t = {"null", "null", blk_engine_find("null")};
        struct blk_run_opts o = {.workers_per_target = 2, .max_depth = 4, .max_bs = 4096};
        struct blk_geom g;
        struct blk_run *r = NULL;
        char err[256] = "";

        assert_non_null(t.ops);
        assert_int_equal(blk_run_open(&r, &t, 1, &o, &g, err, sizeof(err)), 0);
        return r;
}

static struct blk_point_spec point(uint64_t run_ns)
{
        return (struct blk_point_spec){
            .rw = BLK_RW_RANDREAD, .bs = 4096, .iodepth = 4, .run_ns = run_ns, .interval_ms = 50};
}

static void test_resume_after_interrupt(void **state)
{
        struct blk_point_spec p = point(LONG_NS);
        struct blk_point_result res;
        struct blk_run *r = open_null();
        pthread_t th;

        (void)state;
        assert_int_equal(pthread_create(&th, NULL, interrupt_soon, r), 0);
        assert_int_equal(blk_run_point(r, &p, &res, NULL, NULL), 0);
        pthread_join(th, NULL);
        assert_true(res.interrupted);
        assert_true(res.runtime_s < (double)LONG_NS / 1e9);
        blk_point_result_free(&res);

        /* the flag stays until resumed: a later point stops at once as well */
        p = point(LONG_NS);
        assert_int_equal(blk_run_point(r, &p, &res, NULL, NULL), 0);
        assert_true(res.interrupted);
        blk_point_result_free(&res);

        /* resumed, the same run measures a whole point */
        assert_int_equal(blk_run_resume(r), 0);
        p = point(SHORT_NS);
        assert_int_equal(blk_run_point(r, &p, &res, NULL, NULL), 0);
        assert_false(res.interrupted);
        assert_true(res.runtime_s >= (double)SHORT_NS / 1e9);
        assert_true(res.all.dir[BLK_READ].ios > 0);
        blk_point_result_free(&res);
        blk_run_close(r);
}

static void test_resume_without_interrupt(void **state)
{
        struct blk_point_spec p = point(SHORT_NS);
        struct blk_point_result res;
        struct blk_run *r = open_null();

        (void)state;
        assert_int_equal(blk_run_resume(r), 0);
        assert_int_equal(blk_run_point(r, &p, &res, NULL, NULL), 0);
        assert_false(res.interrupted);
        assert_true(res.all.dir[BLK_READ].ios > 0);
        blk_point_result_free(&res);
        blk_run_close(r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_resume_after_interrupt),
            cmocka_unit_test(test_resume_without_interrupt),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
