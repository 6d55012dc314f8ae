/*
 * svg.c - inline SVG line plots for the offline HTML reports.
 *
 * Layout is fixed and simple so that every report looks alike: the title on
 * top, the plot area on the left with the y axis starting at zero (a
 * throughput or latency axis that does not start at zero exaggerates
 * differences), the legend in a column on the right. Tick steps are the
 * usual 1-2-5 "nice" numbers; a powers-of-two x axis puts one tick on every
 * power so queue depths 1..128 are evenly spaced, as their sweep is.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "results/svg.h"

#define LEGEND_W 190
#define MARGIN_L 72
#define MARGIN_T 30
#define MARGIN_B 48
#define BAND     15  /* height of one marker label line above the plot area */
#define CHAR_W   6.2 /* mean width of an 11px sans-serif character */

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
#define NCOLORS (sizeof(palette) / sizeof(palette[0]))

void sb_esc(struct sbuf *b, const char *s)
{
        for (; s && *s; s++) {
                switch (*s) {
                case '&':
                        sb_printf(b, "&amp;");
                        break;
                case '<':
                        sb_printf(b, "&lt;");
                        break;
                case '>':
                        sb_printf(b, "&gt;");
                        break;
                case '"':
                        sb_printf(b, "&quot;");
                        break;
                default:
                        sb_printf(b, "%c", *s);
                }
        }
}

void svg_fmt_num(double v, char *buf, size_t len)
{
        double a = fabs(v);

        if (!isfinite(v))
                snprintf(buf, len, "-");
        else if (a >= 1e9)
                snprintf(buf, len, "%.3gG", v / 1e9);
        else if (a >= 1e6)
                snprintf(buf, len, "%.3gM", v / 1e6);
        else if (a >= 1e4)
                snprintf(buf, len, "%.3gk", v / 1e3);
        else if (a == 0)
                snprintf(buf, len, "0");
        else {
                /* small latencies: fixed decimals, never an exponent on an axis */
                int dec = 3 - (int)floor(log10(a));
                char *e;

                snprintf(buf, len, "%.*f", dec < 0 ? 0 : dec > 9 ? 9 : dec, v);
                if (strchr(buf, '.')) {
                        for (e = buf + strlen(buf) - 1; *e == '0'; e--)
                                *e = '\0';
                        if (*e == '.')
                                *e = '\0';
                }
        }
}

void svg_plot_init(struct svg_plot *p, const char *title, const char *xlabel, const char *ylabel)
{
        memset(p, 0, sizeof(*p));
        p->title = title;
        p->xlabel = xlabel;
        p->ylabel = ylabel;
        p->width = 720;
        p->height = 360;
}

int svg_plot_mark(struct svg_plot *p, double x, const char *label, int color)
{
        if (!isfinite(x))
                return 0;
        if (p->nmarks == SVG_MAX_MARKS)
                return -ENOSPC;
        p->marks[p->nmarks++] = (struct svg_mark){x, label, color};
        return 0;
}

int svg_plot_add(struct svg_plot *p, const char *name, const double *x, const double *y, unsigned n,
                 unsigned flags, int color)
{
        if (p->nseries == SVG_MAX_SERIES)
                return -ENOSPC;
        p->s[p->nseries++] = (struct svg_series){name, x, y, n, flags, color};
        return 0;
}

/* The frame a plot is drawn in: data ranges and the pixel box. */
struct frame {
        double x0, x1, y0, y1;     /* axis ranges (log2 of x when xlog2) */
        double px0, px1, py0, py1; /* pixel box: left, right, top, bottom */
        int xlog2;
};

static int x_ok(const struct frame *f, double x)
{
        return isfinite(x) && (!f->xlog2 || x > 0);
}

static double xv(const struct frame *f, double x)
{
        return f->xlog2 ? log2(x) : x;
}

static double px(const struct frame *f, double x)
{
        return f->px0 + (xv(f, x) - f->x0) / (f->x1 - f->x0) * (f->px1 - f->px0);
}

static double py(const struct frame *f, double y)
{
        return f->py1 - (y - f->y0) / (f->y1 - f->y0) * (f->py1 - f->py0);
}

static double nice_step(double range, int nticks)
{
        double raw = range / nticks, mag = pow(10, floor(log10(raw))), r = raw / mag;

        return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

/* A wall-clock axis steps by what a clock reads: seconds, minutes, hours, days. */
static double time_step(double range, int nticks)
{
        static const double steps[] = {1,   2,   5,    10,   15,   30,    60,    120,   300,
                                       600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400};
        double raw = range / nticks;

        for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
                if (steps[i] >= raw)
                        return steps[i];
        return ceil(raw / 86400) * 86400;
}

/* HH:MM:SS of Unix time v (UTC); HH:MM when the ticks are whole minutes. */
static void fmt_clock(double v, double step, char *t, size_t len)
{
        time_t s = (time_t)floor(v + 0.5);
        struct tm tm;

        gmtime_r(&s, &tm);
        strftime(t, len, fmod(step, 60) == 0 ? "%H:%M" : "%H:%M:%S", &tm);
}

/* Data ranges; -EINVAL when nothing finite is to be drawn. */
static int find_ranges(const struct svg_plot *p, struct frame *f)
{
        double xmin = INFINITY, xmax = -INFINITY, ymax = -INFINITY, ymin = 0;

        f->xlog2 = p->xlog2;
        for (unsigned i = 0; i < p->nseries; i++)
                for (unsigned k = 0; k < p->s[i].n; k++) {
                        double x = p->s[i].x[k], y = p->s[i].y[k];

                        if (!x_ok(f, x) || !isfinite(y))
                                continue;
                        xmin = fmin(xmin, xv(f, x));
                        xmax = fmax(xmax, xv(f, x));
                        ymin = fmin(ymin, y);
                        ymax = fmax(ymax, y);
                }
        if (!isfinite(xmin))
                return -EINVAL;
        for (unsigned i = 0; i < p->nmarks; i++)
                if (x_ok(f, p->marks[i].x)) {
                        xmin = fmin(xmin, xv(f, p->marks[i].x));
                        xmax = fmax(xmax, xv(f, p->marks[i].x));
                }
        if (xmax <= xmin) {
                xmin -= 1;
                xmax += 1;
        }
        if (ymax <= ymin)
                ymax = ymin + 1;
        f->x0 = f->xlog2 ? floor(xmin) : xmin;
        f->x1 = f->xlog2 ? ceil(xmax) : xmax;
        f->y0 = ymin;
        f->y1 = ceil(ymax / nice_step(ymax - ymin, 5)) * nice_step(ymax - ymin, 5);
        if (f->x1 <= f->x0)
                f->x1 = f->x0 + 1;
        f->px0 = MARGIN_L;
        f->px1 = p->width - LEGEND_W;
        f->py0 = MARGIN_T + BAND * (double)p->nmarks;
        f->py1 = p->height + BAND * (double)p->nmarks - MARGIN_B;
        return 0;
}

static void draw_axes(const struct svg_plot *p, const struct frame *f, struct sbuf *o)
{
        double ys = nice_step(f->y1 - f->y0, 5), xs;
        char t[32];

        sb_printf(o,
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" "
                  "stroke=\"#888\"/>\n",
                  f->px0, f->py0, f->px1 - f->px0, f->py1 - f->py0);
        for (double y = ceil(f->y0 / ys) * ys; y <= f->y1 + ys * 1e-9; y += ys) {
                svg_fmt_num(fabs(y) < ys * 1e-9 ? 0 : y, t, sizeof(t));
                sb_printf(o,
                          "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                          "stroke=\"#e4e4e4\"/><text x=\"%.1f\" y=\"%.1f\" "
                          "text-anchor=\"end\">%s</text>\n",
                          f->px0, f->px1, py(f, y), py(f, y), f->px0 - 5, py(f, y) + 4, t);
        }
        xs = f->xlog2   ? (f->x1 - f->x0 > 10 ? 2 : 1)
             : p->xtime ? time_step(f->x1 - f->x0, 6)
                        : nice_step(f->x1 - f->x0, 8);
        if (p->xint && xs < 1)
                xs = 1;
        for (double x = ceil(f->x0 / xs) * xs; x <= f->x1 + xs * 1e-9; x += xs) {
                double v = f->xlog2 ? exp2(x) : x, pxx;

                pxx = f->px0 + (x - f->x0) / (f->x1 - f->x0) * (f->px1 - f->px0);
                if (p->xtime)
                        fmt_clock(v, xs, t, sizeof(t));
                else
                        svg_fmt_num(fabs(v) < xs * 1e-9 ? 0 : v, t, sizeof(t));
                sb_printf(o,
                          "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                          pxx, pxx, f->py1, f->py1 + 5, pxx, f->py1 + 17, t);
        }
        sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (f->px0 + f->px1) / 2,
                  (double)p->height + BAND * p->nmarks - 12);
        sb_esc(o, p->xlabel);
        sb_printf(o,
                  "</text>\n<text transform=\"translate(16,%.1f) rotate(-90)\" "
                  "text-anchor=\"middle\">",
                  (f->py0 + f->py1) / 2);
        sb_esc(o, p->ylabel);
        sb_printf(o, "</text>\n");
}

static void draw_series(const struct svg_series *s, unsigned idx, const struct frame *f,
                        struct sbuf *o)
{
        const char *col = palette[(unsigned)(s->color >= 0 ? s->color : (int)idx) % NCOLORS];
        const char *dash = s->flags & SVG_DASHED ? " stroke-dasharray=\"6 4\"" : "";
        int open = 0;

        sb_printf(o, "<g class=\"series\">\n");
        for (unsigned k = 0; k < s->n; k++) {
                if (!x_ok(f, s->x[k]) || !isfinite(s->y[k])) {
                        if (open)
                                sb_printf(o, "\"/>\n");
                        open = 0;
                        continue;
                }
                if (!open)
                        sb_printf(o,
                                  "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s "
                                  "points=\"",
                                  col, dash);
                sb_printf(o, "%s%.1f,%.1f", open ? " " : "", px(f, s->x[k]), py(f, s->y[k]));
                open = 1;
        }
        if (open)
                sb_printf(o, "\"/>\n");
        for (unsigned k = 0; k < s->n; k++)
                if (x_ok(f, s->x[k]) && isfinite(s->y[k]))
                        sb_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                                  px(f, s->x[k]), py(f, s->y[k]), col);
        sb_printf(o, "</g>\n");
}

static void draw_legend(const struct svg_plot *p, const struct frame *f, struct sbuf *o)
{
        double x = p->width - LEGEND_W + 12;

        for (unsigned i = 0; i < p->nseries; i++) {
                const struct svg_series *s = &p->s[i];
                const char *col = palette[(unsigned)(s->color >= 0 ? s->color : (int)i) % NCOLORS];
                double y = f->py0 + 8 + 16.0 * i;

                sb_printf(o,
                          "<g class=\"legend\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                          "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/><circle cx=\"%.1f\" "
                          "cy=\"%.1f\" r=\"3\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">",
                          x, x + 22, y, y, col,
                          s->flags & SVG_DASHED ? " stroke-dasharray=\"6 4\"" : "", x + 11, y, col,
                          x + 28, y + 4);
                sb_esc(o, s->name);
                sb_printf(o, "</text></g>\n");
        }
}

/* Marker k: its line across the plot area, its label on line k of the band above. */
static void draw_marker(const struct svg_plot *p, const struct frame *f, unsigned k, struct sbuf *o)
{
        const struct svg_mark *m = &p->marks[k];
        const char *col = m->color >= 0 ? palette[(unsigned)m->color % NCOLORS] : "#c00";
        double x = px(f, m->x), y = MARGIN_T + BAND * (k + 1.0) - 4, room;
        int right = x < (f->px0 + f->px1) * 0.55;
        char line[160];
        size_t max;

        room = right ? p->width - 6 - (x + 4) : x - 4 - 6;
        max = room > 4 * CHAR_W ? (size_t)(room / CHAR_W) : 4;
        snprintf(line, sizeof(line), "%s", m->label ? m->label : "");
        if (max < sizeof(line) && strlen(line) > max)
                snprintf(line + max - 3, sizeof(line) - (max - 3), "...");
        sb_printf(o,
                  "<g class=\"marker\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                  "stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n"
                  "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                  "stroke-width=\"1\"/>\n<text fill=\"%s\" x=\"%.1f\" y=\"%.1f\" "
                  "text-anchor=\"%s\">",
                  x, x, f->py0, f->py1, col, x, x, y + 3, f->py0, col, col, x + (right ? 4 : -4), y,
                  right ? "start" : "end");
        sb_esc(o, line);
        sb_printf(o, "</text></g>\n");
}

int svg_render(const struct svg_plot *p, struct sbuf *o)
{
        struct frame f;

        if (find_ranges(p, &f))
                return -EINVAL;
        sb_printf(o,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%u\" "
                  "height=\"%u\" viewBox=\"0 0 %u %u\" font-family=\"sans-serif\" "
                  "font-size=\"11\">\n<text x=\"%.1f\" y=\"18\" text-anchor=\"middle\" "
                  "font-size=\"13\" font-weight=\"bold\">",
                  p->width, p->height + BAND * p->nmarks, p->width, p->height + BAND * p->nmarks,
                  (f.px0 + f.px1) / 2);
        sb_esc(o, p->title);
        sb_printf(o, "</text>\n");
        draw_axes(p, &f, o);
        for (unsigned i = 0; i < p->nseries; i++)
                draw_series(&p->s[i], i, &f, o);
        draw_legend(p, &f, o);
        for (unsigned k = 0; k < p->nmarks; k++)
                if (x_ok(&f, p->marks[k].x))
                        draw_marker(p, &f, k, o);
        sb_printf(o, "</svg>\n");
        return o->oom ? -ENOMEM : 0;
}
