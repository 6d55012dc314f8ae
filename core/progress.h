/*
 * progress.h - one progress line with ETA on a terminal.
 *
 * "\r[ 42%] 1:05 left | QD 16 bs 4k randread | 38.2k IOPS". Silent when
 * stderr is not a terminal (CI logs, pipes), so callers call it freely.
 * Redraws at most 4 times a second. Single thread (the one that reports).
 */
#ifndef HCI_PROGRESS_H
#define HCI_PROGRESS_H

#include <stddef.h>

struct progress;

/* total_s: the whole planned duration in seconds. Returns NULL on ENOMEM (then all calls are
 * no-ops). */
struct progress *prog_start(double total_s);

/* done_s: seconds of the plan done so far; fmt: the status text after the ETA. */
void prog_update(struct progress *p, double done_s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The plan's total changed (runs that end when their figure is steady): the ETA follows. */
void prog_set_total(struct progress *p, double total_s);

/* Clear the line (so the next printed line starts clean) without ending. */
void prog_clear(struct progress *p);

/* Seconds as the line shows them: "4:05", "1:02:03". */
void prog_fmt_duration(char *buf, size_t len, double s);

/* Clear the line and free. */
void prog_end(struct progress *p);

#endif
