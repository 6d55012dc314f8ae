/*
 * sbuf.h - a growable NUL-terminated text buffer.
 *
 * Reports, plots, CSV files and job files are built in one before they
 * are written whole. An append that cannot grow the buffer sets oom and
 * makes every later append a no-op, so a caller checks once, at the end,
 * instead of after every line. Not thread-safe: one buffer, one thread.
 */
#ifndef HCI_SBUF_H
#define HCI_SBUF_H

#include <stddef.h>

/* Zero-initialise (struct sbuf b = {0}); s is NULL until the first append. */
struct sbuf {
        char *s;
        size_t len, cap;
        int oom; /* an append failed: the text is incomplete */
};

/* Append printf-formatted text. */
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Free the text and zero b, ready for reuse. */
void sb_free(struct sbuf *b);

#endif
