/*
 * report_priv.h - the pieces `hcisweep report` and `hcisweep compare` share
 * (results/cmd_report.c, report_*.c and compare.c only).
 *
 * A struct doc is two documents written side by side, HTML and Markdown:
 * headings, paragraphs and tables go into both; plots (inline SVG) only
 * into the HTML. Text arguments are plain text: the helpers escape it.
 */
#ifndef HCI_REPORT_PRIV_H
#define HCI_REPORT_PRIV_H

#include <jansson.h>

#include "results/report_view.h"
#include "results/rundir.h"
#include "results/svg.h"
#include "results/tip_verdict.h"

struct doc {
        struct sbuf html, md;
};

/* Start both documents with a title (also the first heading). */
void doc_begin(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void doc_end(struct doc *d);
void doc_free(struct doc *d);

void doc_h(struct doc *d, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A paragraph; cls "warn" renders as a warning box (and a quoted line in Markdown). */
void doc_p(struct doc *d, const char *cls, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void doc_table(struct doc *d, const char *const *head, unsigned n);
void doc_row(struct doc *d, const char *const *cells, unsigned n);
void doc_table_end(struct doc *d);

/* Render p into the HTML (a figure); a plot with nothing to draw is left out. */
void doc_plot(struct doc *d, const struct svg_plot *p);

/* The verdict (at most four lines) as a box at the top of the page: in the HTML a
 * <div class="verdict">, its first line bold; in the Markdown a text block. */
void doc_verdict(struct doc *d, const struct res_verdict *v);
/* Its evidence as a table: figure | at step k | at step j | rule it met. */
void doc_evidence(struct doc *d, const struct res_verdict *v);

/* A latency or ratio with three significant digits and no exponent ("-" for NaN). */
void doc_fmt_sig(double v, char *buf, size_t len);

/* The plots and kind-specific sections of a report. 0 or -ENOMEM. */
int report_block(struct doc *d, const json_t *r, const struct run_view *v);
int report_oltp(struct doc *d, const json_t *r, const struct run_view *v);
int report_scale(struct doc *d, const json_t *r, const struct run_view *v,
                 const struct res_verdict *vd);

/* A scale result's "Hosts" section when its steps hold a cluster (a host other than the
 * controller's own /proc); nothing for the local lab. 0 or -ENOMEM. */
int report_hosts(struct doc *d, const json_t *r);
/* A block client run's "Hosts" section, over its points' cluster.hosts[], against the sweep;
 * nothing when no point holds hosts. 0 or -ENOMEM. */
int report_block_hosts(struct doc *d, const json_t *r);
/* A block client run's "Clients" section: per point the aggregate, the per-client spread
 * (min / max IOPS, the slowest client) and one row per client; nothing without clients[]
 * (report_clients.c). 0 or -ENOMEM. */
int report_block_clients(struct doc *d, const json_t *r);
/* Block point i as the report names it: "2: randread 4k qd 8, 2 clients". */
void report_point_name(const json_t *p, size_t i, char *buf, size_t len);

/* "Over time (UTC)": the host monitor's CPU and every step's (scale) or point's (block)
 * throughput over its measured window, on a wall-clock axis; nothing when the result holds no
 * such series (report_series.c). 0 or -ENOMEM. */
int report_time_series(struct doc *d, const json_t *r);

/* A column of a series as a malloc'd array (field at byte offset off of struct run_point). */
double *run_column(const struct run_series *s, size_t off);

#endif
