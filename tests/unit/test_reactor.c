/*
 * test_reactor.c - core/reactor: descriptor events on real pipes, timers
 * called back in deadline order whatever order they were armed in, moved,
 * cancelled (also from a callback, also the one at the top of the heap),
 * and a heap that grows past its first size. No wall-clock figure is
 * asserted: deadlines are set in the past or the near future and only the
 * order and the count of callbacks are checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/reactor.h"

#define NT 500

struct rec {
        unsigned fired[8], nfired;
        unsigned order[NT], norder;
        struct reactor *re;
        struct re_timer *cancel; /* a callback cancels this one */
};

static struct rec R;

static void on_file(struct re_file *f, unsigned fired)
{
        (void)f;
        if (R.nfired < 8)
                R.fired[R.nfired] = fired;
        R.nfired++;
}

static void on_timer(struct re_timer *t)
{
        if (R.norder < NT)
                R.order[R.norder++] = (unsigned)(uintptr_t)t->arg;
        if (R.cancel)
                re_timer_cancel(R.re, R.cancel);
}

static struct reactor *fresh(size_t ntimers)
{
        char err[256] = "";
        struct reactor *re = re_new(ntimers, err, sizeof(err));

        assert_non_null(re);
        memset(&R, 0, sizeof(R));
        R.re = re;
        return re;
}

static void test_pipe_events(void **state)
{
        struct reactor *re = fresh(4);
        struct re_file rd, wr;
        int p[2];
        char c = 'x';

        (void)state;
        assert_int_equal(pipe(p), 0);
        re_file_init(&rd, on_file, NULL);
        re_file_init(&wr, on_file, NULL);
        assert_int_equal(re_watch(re, &rd, p[0], RE_READ), 0);
        /* nothing to read, nothing armed: the round ends at its limit with no callback */
        assert_int_equal(re_run_once(re, clk_now_ns() + 20000000ull), 0);

        assert_int_equal(write(p[1], &c, 1), 1);
        assert_int_equal(re_run_once(re, clk_now_ns() + 5000000000ull), 1);
        assert_int_equal(R.fired[0], RE_READ);

        /* the write end is writable at once; the same watch again changes nothing */
        assert_int_equal(re_watch(re, &wr, p[1], RE_WRITE), 0);
        assert_int_equal(re_watch(re, &wr, p[1], RE_WRITE), 0);
        re_unwatch(re, &rd);
        R.nfired = 0;
        assert_int_equal(re_run_once(re, clk_now_ns() + 5000000000ull), 1);
        assert_int_equal(R.fired[0], RE_WRITE);

        /* unwatched, a readable pipe stays silent; the closed write end hangs up the read end */
        re_unwatch(re, &wr);
        assert_int_equal(re_run_once(re, clk_now_ns()), 0);
        assert_int_equal(read(p[0], &c, 1), 1);
        close(p[1]);
        assert_int_equal(re_watch(re, &rd, p[0], RE_READ), 0);
        R.nfired = 0;
        assert_int_equal(re_run_once(re, clk_now_ns() + 5000000000ull), 1);
        assert_true(R.fired[0] & RE_HUP);
        assert_int_equal(re_watch(re, &rd, -1, RE_READ), 0); /* fd < 0 only unwatches */
        assert_int_equal(rd.fd, -1);
        close(p[0]);
        /* a closed descriptor cannot be watched: the error comes back, f stays unwatched */
        assert_int_equal(re_watch(re, &rd, p[0], RE_READ), -EBADF);
        assert_int_equal(rd.fd, -1);
        re_free(re);
}

static void test_timer_order(void **state)
{
        struct reactor *re = fresh(2); /* grows to NT */
        static struct re_timer t[NT];
        uint64_t base = clk_now_ns() - 1000000000ull, seed = 12345;

        (void)state;
        for (unsigned i = 0; i < NT; i++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                re_timer_init(&t[i], on_timer, (void *)(uintptr_t)i);
                assert_int_equal(re_timer_arm(re, &t[i], base + (seed >> 44)), 0);
        }
        /* move some (earlier and later), cancel others */
        for (unsigned i = 0; i < NT; i += 7)
                assert_int_equal(re_timer_arm(re, &t[i], t[i].when / 2 + base / 2), 0);
        for (unsigned i = 3; i < NT; i += 11)
                assert_int_equal(re_timer_arm(re, &t[i], t[i].when + 999999), 0);
        unsigned live = NT;
        for (unsigned i = 5; i < NT; i += 13) {
                re_timer_cancel(re, &t[i]);
                re_timer_cancel(re, &t[i]); /* twice is harmless */
                assert_false(re_timer_armed(&t[i]));
                live--;
        }
        uint64_t first = UINT64_MAX;
        for (unsigned i = 0; i < NT; i++)
                if (re_timer_armed(&t[i]) && t[i].when < first)
                        first = t[i].when;
        assert_true(re_next_timer(re) == first);

        /* every deadline has passed: one round calls them all back, earliest first */
        assert_int_equal(re_run_once(re, clk_now_ns() + 5000000000ull), (int)live);
        assert_int_equal(R.norder, live);
        for (unsigned k = 1; k < R.norder; k++)
                assert_true(t[R.order[k - 1]].when <= t[R.order[k]].when);
        for (unsigned k = 0; k < R.norder; k++)
                assert_false(R.order[k] % 13 == 5); /* cancelled ones never come back */
        assert_true(re_next_timer(re) == UINT64_MAX);
        re_free(re);
}

static void test_future_and_cancel_in_callback(void **state)
{
        struct reactor *re = fresh(4);
        struct re_timer a, b, c;
        uint64_t now = clk_now_ns();

        (void)state;
        re_timer_init(&a, on_timer, (void *)1);
        re_timer_init(&b, on_timer, (void *)2);
        re_timer_init(&c, on_timer, (void *)3);
        assert_int_equal(re_timer_arm(re, &c, now + 30000000ull), 0);
        assert_int_equal(re_timer_arm(re, &a, now + 10000000ull), 0);
        assert_int_equal(re_timer_arm(re, &b, now + 20000000ull), 0);
        R.cancel = &b; /* a's callback cancels b */
        /* the rounds wait for the timers themselves: a far limit still ends at each deadline */
        while (re_timer_armed(&a) || re_timer_armed(&c))
                assert_true(re_run_once(re, clk_now_ns() + 60000000000ull) >= 0);
        assert_int_equal(R.norder, 2);
        assert_int_equal(R.order[0], 1);
        assert_int_equal(R.order[1], 3);
        assert_false(re_timer_armed(&b));
        assert_true(clk_now_ns() >= now + 30000000ull); /* never early */
        re_free(re);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_pipe_events),
            cmocka_unit_test(test_timer_order),
            cmocka_unit_test(test_future_and_cancel_in_callback),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
