/*
 * svg.h - line plots as inline SVG, written into a text buffer (core/sbuf.h).
 *
 * Reports must open offline with no script, so every plot is plain SVG text
 * written here: axes with "nice" ticks (linear, or powers of two for queue
 * depths), one polyline with circle markers per series, a legend, and an
 * optional vertical marker with a label (a tipping point, a crossover).
 * Markers (a tipping point, a crossover) are dashed vertical lines whose
 * labels sit in a band of their own above the plot area, one line each, so
 * a label never covers the data; a label too long for the room beside its
 * line is cut with "...", so keep them short and put the whole sentence in
 * the text around the plot.
 * Points whose y is NaN are skipped and break the line. Nothing here
 * allocates except the buffer; an allocation failure is remembered in the
 * buffer (oom) so callers check once at the end.
 */
#ifndef HCI_SVG_H
#define HCI_SVG_H

#include <stddef.h>

#include "core/sbuf.h"

/* Append s to b with &, <, >, " escaped for HTML and SVG text. */
void sb_esc(struct sbuf *b, const char *s);

#define SVG_MAX_SERIES 24
#define SVG_MAX_MARKS  4
#define SVG_DASHED     1u /* series drawn dashed (p99 next to a solid mean) */

struct svg_series {
        const char *name;
        const double *x, *y;
        unsigned n;
        unsigned flags;
        int color; /* index into the palette; series with one colour belong together */
};

struct svg_mark {
        double x;
        const char *label; /* one short line, drawn above the plot area */
        int color;         /* palette index, -1: marker red */
};

struct svg_plot {
        const char *title, *xlabel, *ylabel;
        int xlog2; /* x axis in powers of two (queue depth) */
        int xint;  /* x values are counts (VMs): ticks on whole numbers only */
        int xtime; /* x values are Unix seconds: ticks on whole seconds, minutes or hours,
                    * labelled with the UTC time of day (HH:MM:SS, or HH:MM) */
        unsigned width, height;
        unsigned nseries;
        struct svg_series s[SVG_MAX_SERIES];
        unsigned nmarks;
        struct svg_mark marks[SVG_MAX_MARKS];
};

/* An empty 720x360 plot with no marker. */
void svg_plot_init(struct svg_plot *p, const char *title, const char *xlabel, const char *ylabel);

/* Add a series (arrays are not copied). 0, or -ENOSPC past SVG_MAX_SERIES. */
int svg_plot_add(struct svg_plot *p, const char *name, const double *x, const double *y, unsigned n,
                 unsigned flags, int color);

/* Add a vertical marker at x (NaN: none). 0, or -ENOSPC past SVG_MAX_MARKS. */
int svg_plot_mark(struct svg_plot *p, double x, const char *label, int color);

/* Append the <svg> element. 0, or -EINVAL when no series has a finite point. */
int svg_render(const struct svg_plot *p, struct sbuf *out);

/* 12345 -> "12.3k", 0.5 -> "0.5": axis and table numbers. */
void svg_fmt_num(double v, char *buf, size_t len);

#endif
