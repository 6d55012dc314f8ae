/*
 * clock.h - the one clock every measurement uses.
 *
 * CLOCK_MONOTONIC in integer nanoseconds. Inline because it sits on every
 * I/O and every transaction; vDSO makes it a few tens of nanoseconds.
 */
#ifndef HCI_CLOCK_H
#define HCI_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Monotonic time in nanoseconds. Any thread. */
static inline uint64_t clk_now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sleep for ns nanoseconds (restarts on EINTR). Any thread. */
void clk_sleep_ns(uint64_t ns);

/* Wall-clock time as ISO-8601 UTC ("2026-11-30T03:36:09Z") into buf (>= 21 bytes). */
void clk_iso8601_now(char *buf, size_t len);

/* Wall-clock time in ms since the epoch (CLOCK_REALTIME): for windows a dashboard lines up. */
int64_t clk_real_ms(void);
/* ms as ISO-8601 UTC with milliseconds ("2026-11-30T03:36:09.123Z") into buf (>= 25 bytes). */
void clk_iso8601_ms(int64_t ms, char *buf, size_t len);

#endif
