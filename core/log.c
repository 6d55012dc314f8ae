/*
 * log.c - one-line messages for people on stderr. Each message is built in
 * a stack buffer and leaves in a single write(), so lines from concurrent
 * threads never interleave mid-line, and nothing is buffered by stdio that
 * a crash or _exit() could lose. CHAP secrets in quoted URLs are dropped
 * (core/secret.h). errno is preserved so a caller can log
 * and then still report the error it was handling.
 */
#include "core/log.h"
#include "core/secret.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LOG_LINE_MAX 2048

static atomic_int log_quiet;

void log_set_quiet(int quiet)
{
        atomic_store_explicit(&log_quiet, quiet != 0, memory_order_relaxed);
}

static void write_all(const char *buf, size_t len)
{
        ssize_t n;

        while (len) {
                n = write(STDERR_FILENO, buf, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return;
                buf += n;
                len -= (size_t)n;
        }
}

static void log_line(const char *prefix, const char *fmt, va_list ap)
{
        char line[LOG_LINE_MAX], clean[LOG_LINE_MAX];
        size_t plen = strlen(prefix), len;
        int saved = errno, n;

        memcpy(line, prefix, plen);
        n = vsnprintf(line + plen, sizeof(line) - plen - 1, fmt, ap);
        if (n < 0)
                n = 0;
        len = plen + (size_t)n;
        if (len > sizeof(line) - 2) {
                /* too long: cut, and say so */
                len = sizeof(line) - 2;
                memcpy(line + len - 3, "...", 3);
        }
        line[len++] = '\n';
        line[len] = '\0';
        /* a message may quote a URL the user gave: never its CHAP secret */
        if (secret_redact(line, clean, sizeof(clean)))
                write_all(clean, strlen(clean));
        else
                write_all(line, len);
        errno = saved;
}

void log_error(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        log_line("hcisweep: error: ", fmt, ap);
        va_end(ap);
}

void log_warn(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        log_line("hcisweep: warning: ", fmt, ap);
        va_end(ap);
}

void log_info(const char *fmt, ...)
{
        va_list ap;

        if (atomic_load_explicit(&log_quiet, memory_order_relaxed))
                return;
        va_start(ap, fmt);
        log_line("hcisweep: ", fmt, ap);
        va_end(ap);
}

int errf(char *err, size_t errlen, int rc, const char *fmt, ...)
{
        va_list ap;

        if (err && errlen) {
                va_start(ap, fmt);
                vsnprintf(err, errlen, fmt, ap);
                va_end(ap);
        }
        return rc;
}
