/*
 * sbuf.c - the growable text buffer: doubles its capacity (from 4 KiB) so
 * appends cost amortised O(1), and formats twice only when it grows.
 */
#include "core/sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (b->oom)
                return;
        va_start(ap, fmt);
        n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
                b->oom = 1;
                return;
        }
        if (!b->s || b->len + (size_t)n + 1 > b->cap) {
                size_t cap = b->cap ? b->cap : 4096;
                char *s;

                while (cap < b->len + (size_t)n + 1)
                        cap *= 2;
                s = realloc(b->s, cap);
                if (!s) {
                        b->oom = 1;
                        return;
                }
                b->s = s;
                b->cap = cap;
                va_start(ap, fmt);
                vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
                va_end(ap);
        }
        b->len += (size_t)n;
}

void sb_free(struct sbuf *b)
{
        free(b->s);
        memset(b, 0, sizeof(*b));
}
