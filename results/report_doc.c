/*
 * report_doc.c - one report written as HTML and Markdown at once.
 *
 * The HTML carries its own style sheet and nothing else from outside; the
 * Markdown is GitHub-flavoured (pipe tables), for pasting into a ticket or a
 * review. Markdown cells escape '|' so a config value cannot break a table.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/report_priv.h"

static const char css[] =
    "body{font-family:sans-serif;max-width:1100px;margin:1.5em auto;padding:0 1em;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}"
    "h3{font-size:1.05em}table{border-collapse:collapse;margin:.6em 0;font-size:.9em}"
    "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}"
    "th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}"
    ".warn{background:#fff3cd;border:1px solid #e0b800;padding:.5em .8em}"
    ".meta{color:#666;font-size:.9em}.ort{font-weight:bold}"
    ".verdict{background:#eef4fb;border:1px solid #8fb3d9;padding:.5em .8em;margin:.6em 0;"
    "font-family:monospace;font-size:.95em;white-space:pre-wrap}.verdict .v1{font-weight:bold}"
    "figure{margin:1em 0}svg.plot{max-width:100%;height:auto}";

static char *vfmt(const char *fmt, va_list ap)
{
        va_list ap2;
        char *s;
        int n;

        va_copy(ap2, ap);
        n = vsnprintf(NULL, 0, fmt, ap2);
        va_end(ap2);
        s = n < 0 ? NULL : malloc((size_t)n + 1);
        if (s)
                vsnprintf(s, (size_t)n + 1, fmt, ap);
        return s;
}

static void md_esc(struct sbuf *b, const char *s)
{
        for (; s && *s; s++) {
                if (*s == '|')
                        sb_printf(b, "\\|");
                else if (*s == '\n')
                        sb_printf(b, " ");
                else
                        sb_printf(b, "%c", *s);
        }
}

void doc_begin(struct doc *d, const char *fmt, ...)
{
        va_list ap;
        char *t;

        va_start(ap, fmt);
        t = vfmt(fmt, ap);
        va_end(ap);
        if (!t) {
                d->html.oom = 1;
                return;
        }
        sb_printf(&d->html,
                  "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<title>");
        sb_esc(&d->html, t);
        sb_printf(&d->html, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
        sb_esc(&d->html, t);
        sb_printf(&d->html, "</h1>\n");
        sb_printf(&d->md, "# %s\n\n", t);
        free(t);
}

void doc_end(struct doc *d)
{
        sb_printf(&d->html, "</body>\n</html>\n");
}

void doc_free(struct doc *d)
{
        sb_free(&d->html);
        sb_free(&d->md);
}

void doc_h(struct doc *d, int level, const char *fmt, ...)
{
        va_list ap;
        char *t;

        va_start(ap, fmt);
        t = vfmt(fmt, ap);
        va_end(ap);
        if (!t) {
                d->html.oom = 1;
                return;
        }
        sb_printf(&d->html, "<h%d>", level);
        sb_esc(&d->html, t);
        sb_printf(&d->html, "</h%d>\n", level);
        sb_printf(&d->md, "%.*s %s\n\n", level, "######", t);
        free(t);
}

void doc_p(struct doc *d, const char *cls, const char *fmt, ...)
{
        va_list ap;
        char *t;

        va_start(ap, fmt);
        t = vfmt(fmt, ap);
        va_end(ap);
        if (!t) {
                d->html.oom = 1;
                return;
        }
        if (cls)
                sb_printf(&d->html, "<p class=\"%s\">", cls);
        else
                sb_printf(&d->html, "<p>");
        sb_esc(&d->html, t);
        sb_printf(&d->html, "</p>\n");
        sb_printf(&d->md, "%s%s\n\n", cls && !strcmp(cls, "warn") ? "> " : "", t);
        free(t);
}

/* One table row in both documents: <tr><TAG>…</TAG></tr> and "| … |". */
static void doc_cells(struct doc *d, const char *tag, const char *const *cells, unsigned n)
{
        sb_printf(&d->html, "<tr>");
        sb_printf(&d->md, "|");
        for (unsigned i = 0; i < n; i++) {
                sb_printf(&d->html, "<%s>", tag);
                sb_esc(&d->html, cells[i]);
                sb_printf(&d->html, "</%s>", tag);
                sb_printf(&d->md, " ");
                md_esc(&d->md, cells[i]);
                sb_printf(&d->md, " |");
        }
        sb_printf(&d->html, "</tr>\n");
        sb_printf(&d->md, "\n");
}

void doc_table(struct doc *d, const char *const *head, unsigned n)
{
        sb_printf(&d->html, "<table>\n");
        doc_cells(d, "th", head, n);
        sb_printf(&d->md, "|");
        for (unsigned i = 0; i < n; i++)
                sb_printf(&d->md, "%s", i ? " ---: |" : " --- |");
        sb_printf(&d->md, "\n");
}

void doc_row(struct doc *d, const char *const *cells, unsigned n)
{
        doc_cells(d, "td", cells, n);
}

void doc_table_end(struct doc *d)
{
        sb_printf(&d->html, "</table>\n");
        sb_printf(&d->md, "\n");
}

void doc_plot(struct doc *d, const struct svg_plot *p)
{
        size_t mark = d->html.len;

        sb_printf(&d->html, "<figure>\n");
        if (svg_render(p, &d->html) == -EINVAL && !d->html.oom) {
                d->html.len = mark; /* nothing to draw: no empty frame */
                d->html.s[mark] = '\0';
                return;
        }
        sb_printf(&d->html, "</figure>\n");
        sb_printf(&d->md, "*Plot in report.html: %s*\n\n", p->title);
}

void doc_verdict(struct doc *d, const struct res_verdict *v)
{
        sb_printf(&d->html, "<div class=\"verdict\">");
        sb_printf(&d->md, "```text\n");
        for (unsigned i = 0; i < v->nlines; i++) {
                sb_printf(&d->html, "<div%s>", i ? "" : " class=\"v1\"");
                sb_esc(&d->html, v->line[i]);
                sb_printf(&d->html, "</div>");
                sb_printf(&d->md, "%s\n", v->line[i]);
        }
        sb_printf(&d->html, "</div>\n");
        sb_printf(&d->md, "```\n\n");
}

void doc_evidence(struct doc *d, const struct res_verdict *v)
{
        struct res_ev_row rows[RES_VERDICT_EV];
        char hk[48], hj[48];
        const char *head[4] = {"figure", hk, hj, "rule it met"};
        unsigned n = res_verdict_rows(v, rows, RES_VERDICT_EV, hk, hj);

        if (!n)
                return;
        doc_table(d, head, 4);
        for (unsigned i = 0; i < n; i++) {
                char fig[64];
                const char *cells[4] = {fig, rows[i].k, rows[i].j, rows[i].rule};

                snprintf(fig, sizeof(fig), "%s%s", rows[i].figure, rows[i].decides ? " *" : "");
                doc_row(d, cells, 4);
        }
        doc_table_end(d);
        doc_p(d, "meta", "(*) the figures the verdict cites.");
}

void doc_fmt_sig(double v, char *buf, size_t len)
{
        int dec;

        if (!isfinite(v)) {
                snprintf(buf, len, "-");
                return;
        }
        /* three significant digits without an exponent: 0.000057 ms, 12.3 ms */
        dec = v == 0 ? 3 : 2 - (int)floor(log10(fabs(v)));
        dec = dec < 0 ? 0 : dec > 9 ? 9 : dec;
        snprintf(buf, len, "%.*f", dec, v);
}

double *run_column(const struct run_series *s, size_t off)
{
        double *a = calloc(s->n ? s->n : 1, sizeof(double));

        for (unsigned i = 0; a && i < s->n; i++)
                memcpy(&a[i], (const char *)&s->p[i] + off, sizeof(double));
        return a;
}
