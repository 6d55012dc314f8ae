/*
 * test_clock.c - clk_sleep_ns() sleeps at least as long as asked, also
 * when a signal interrupts it, and clk_iso8601_now() writes a UTC stamp
 * that parses back to the current second.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "core/clock.h"

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
        (void)sig;
        alarms++;
}

static void test_sleep_at_least(void **state)
{
        uint64_t t0, t1;

        (void)state;
        t0 = clk_now_ns();
        clk_sleep_ns(2000000);
        t1 = clk_now_ns();
        assert_true(t1 - t0 >= 2000000);
        t0 = clk_now_ns();
        clk_sleep_ns(0);
        assert_true(clk_now_ns() >= t0);
}

/* A signal arriving mid-sleep must not cut the sleep short. */
static void test_sleep_survives_signals(void **state)
{
        struct sigaction sa = {.sa_handler = on_alarm}, old;
        struct itimerval it = {.it_interval = {0, 1000}, .it_value = {0, 1000}};
        struct itimerval off = {{0, 0}, {0, 0}};
        uint64_t t0, t1;

        (void)state;
        sigemptyset(&sa.sa_mask);
        assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
        assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
        t0 = clk_now_ns();
        clk_sleep_ns(20000000);
        t1 = clk_now_ns();
        setitimer(ITIMER_REAL, &off, NULL);
        sigaction(SIGALRM, &old, NULL);
        assert_true(alarms > 0);
        assert_true(t1 - t0 >= 20000000);
}

static void test_iso8601(void **state)
{
        char buf[32], small[20] = "x";
        struct tm tm;
        time_t t0, t1, t;
        size_t i;

        (void)state;
        t0 = time(NULL);
        clk_iso8601_now(buf, sizeof(buf));
        t1 = time(NULL);
        assert_int_equal(strlen(buf), 20);
        for (i = 0; i < 20; i++) {
                if (i == 4 || i == 7)
                        assert_int_equal(buf[i], '-');
                else if (i == 10)
                        assert_int_equal(buf[i], 'T');
                else if (i == 13 || i == 16)
                        assert_int_equal(buf[i], ':');
                else if (i == 19)
                        assert_int_equal(buf[i], 'Z');
                else
                        assert_true(isdigit((unsigned char)buf[i]));
        }
        memset(&tm, 0, sizeof(tm));
        assert_non_null(strptime(buf, "%Y-%m-%dT%H:%M:%SZ", &tm));
        t = timegm(&tm);
        assert_true(t >= t0 && t <= t1);
        /* exactly 21 bytes fit; 20 do not, and leave an empty string */
        clk_iso8601_now(buf, 21);
        assert_int_equal(strlen(buf), 20);
        clk_iso8601_now(small, sizeof(small));
        assert_string_equal(small, "");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sleep_at_least),
            cmocka_unit_test(test_sleep_survives_signals),
            cmocka_unit_test(test_iso8601),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
