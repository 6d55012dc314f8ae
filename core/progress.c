/*
 * progress.c - the single status line a person watches during a long run.
 *
 * The line is redrawn in place with '\r' and erased to the end with
 * "ESC [ K", so a shorter line leaves no stale characters behind. Redraws
 * are limited to four a second: a reporter may call prog_update() on every
 * completion and the terminal must not become the bottleneck. The ETA is
 * the plan's remaining time, stretched by how much slower than planned the
 * run has been so far (ramps, preparation and stalls all make the wall
 * clock run ahead of the plan).
 */
#include "core/progress.h"
#include "core/clock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define REDRAW_NS    250000000ull
#define CLEAR_TO_EOL "\033[K"

struct progress {
        double total_s;
        uint64_t start_ns;
        uint64_t last_ns;
        int tty;
        int drawn;
};

struct progress *prog_start(double total_s)
{
        struct progress *p = calloc(1, sizeof(*p));

        if (!p)
                return NULL;
        p->total_s = total_s > 0 ? total_s : 0;
        p->start_ns = clk_now_ns();
        p->tty = isatty(STDERR_FILENO);
        return p;
}

void prog_set_total(struct progress *p, double total_s)
{
        if (p)
                p->total_s = total_s > 0 ? total_s : 0;
}

static double eta_s(const struct progress *p, double done_s, uint64_t now)
{
        double left = p->total_s - done_s;
        double elapsed = (double)(now - p->start_ns) / 1e9;

        if (left < 0)
                return 0;
        if (done_s > 0 && elapsed > done_s)
                left *= elapsed / done_s;
        return left;
}

void prog_fmt_duration(char *buf, size_t len, double s)
{
        unsigned long t = (unsigned long)(s + 0.5);

        if (t >= 3600)
                snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
        else
                snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
}

/* Longer than the terminal, the line would wrap and '\r' could not redraw it. */
static int term_columns(void)
{
        struct winsize ws;

        if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
                return ws.ws_col;
        return 0;
}

void prog_update(struct progress *p, double done_s, const char *fmt, ...)
{
        char text[256], eta[32], line[320];
        uint64_t now;
        double pct;
        va_list ap;
        int cols, n;

        if (!p || !p->tty)
                return;
        now = clk_now_ns();
        if (p->drawn && now - p->last_ns < REDRAW_NS)
                return;
        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        pct = p->total_s > 0 ? 100.0 * done_s / p->total_s : 0;
        pct = pct < 0 ? 0 : pct > 100 ? 100 : pct;
        prog_fmt_duration(eta, sizeof(eta), eta_s(p, done_s, now));
        n = snprintf(line, sizeof(line), "[%3d%%] %s left | %s", (int)pct, eta, text);
        cols = term_columns();
        if (cols > 1 && n >= cols)
                n = cols - 1;
        if (n >= (int)sizeof(line))
                n = (int)sizeof(line) - 1;
        fprintf(stderr, "\r%.*s" CLEAR_TO_EOL, n, line);
        fflush(stderr);
        p->last_ns = now;
        p->drawn = 1;
}

void prog_clear(struct progress *p)
{
        if (!p || !p->tty || !p->drawn)
                return;
        fputs("\r" CLEAR_TO_EOL, stderr);
        fflush(stderr);
        /* the next update draws at once, so the line comes back promptly */
        p->drawn = 0;
}

void prog_end(struct progress *p)
{
        prog_clear(p);
        free(p);
}
