/*
 * clock.c - sleeping and wall-clock stamps for the monotonic clock of
 * clock.h. Sleeps run to an absolute CLOCK_MONOTONIC deadline so a signal
 * that interrupts one does not stretch it when it restarts; stamps are UTC
 * so results taken on hosts in different time zones sort and compare as-is.
 */
#include "core/clock.h"

#include <errno.h>
#include <stdio.h>

void clk_sleep_ns(uint64_t ns)
{
        uint64_t deadline;
        struct timespec ts;

        if (!ns)
                return;
        deadline = clk_now_ns() + ns;
        ts.tv_sec = (time_t)(deadline / 1000000000ull);
        ts.tv_nsec = (long)(deadline % 1000000000ull);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

void clk_iso8601_now(char *buf, size_t len)
{
        time_t now = time(NULL);
        struct tm tm;

        if (!buf || !len)
                return;
        if (!gmtime_r(&now, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
                buf[0] = '\0';
}

int64_t clk_real_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void clk_iso8601_ms(int64_t ms, char *buf, size_t len)
{
        time_t sec = (time_t)(ms / 1000);
        struct tm tm;
        char s[24];

        if (!buf || !len)
                return;
        if (ms < 0 || !gmtime_r(&sec, &tm) || !strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm))
                buf[0] = '\0';
        else
                snprintf(buf, len, "%s.%03dZ", s, (int)(ms % 1000));
}
