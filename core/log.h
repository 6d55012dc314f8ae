/*
 * log.h - messages for people.
 *
 * Errors and warnings go to stderr as one line "hcisweep: error: ...".
 * Info goes to stderr too (stdout is for results), unless quiet.
 * Any thread; each call writes its line with one write().
 */
#ifndef HCI_LOG_H
#define HCI_LOG_H

void log_set_quiet(int quiet);
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
