/*
 * log.h - messages for people.
 *
 * Errors and warnings go to stderr as one line "hcisweep: error: ...".
 * Info goes to stderr too (stdout is for results), unless quiet.
 * Any thread; each call writes its line with one write().
 */
#ifndef HCI_LOG_H
#define HCI_LOG_H

#include <stddef.h>

void log_set_quiet(int quiet);
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The one line a caller's error buffer gets (the 0 / -errno convention):
 * formats into err (when err and errlen are set) and returns rc, so a
 * failure reads `return errf(err, errlen, -EINVAL, "option --%s: ...", ...)`.
 * Any thread.
 */
int errf(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
