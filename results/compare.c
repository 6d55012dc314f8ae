/*
 * compare.c - `hcisweep compare A B [C...]`: runs of one kind side by side.
 *
 * Steps are matched by load (VM count, queue depth within a rw/bs group, or
 * interval time) and every figure of B, C... is also given as a ratio to A,
 * the baseline. The crossover is the first step at which the run ahead in
 * throughput changes, which is the answer HCI-versus-two-layer sizing asks
 * for ("hci ahead up to 20 VMs, two-layer ahead from 24"). The table goes to
 * the terminal, overlay plots and the same table to an HTML page.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/exitcode.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/resfile.h"
#include "results/report_priv.h"
#include "results/results.h"
#include "results/rundir.h"

#define MAX_RUNS 8

struct compare_cfg {
        char *html, *output_dir;
};

#define O(f) offsetof(struct compare_cfg, f)
static const struct opt_def compare_opts[] = {
    {"html", OPT_STR, O(html), NULL, 0, 0, "write the HTML page here (default: compare.html)", NULL,
     0},
    {"output-dir", OPT_STR, O(output_dir), NULL, 0, 0,
     "directory of the default compare.html (default: the current directory)", NULL, 0},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};
#undef O

/* The options as documentation (cfg NULL): the man page and completion read them. */
const struct opt_group cmd_compare_options[] = {{compare_opts, NULL, "compare options"},
                                                {NULL, NULL, NULL}};

static const char usage_text[] =
    "hcisweep compare RUN_A RUN_B [RUN_C...] [--html FILE] [--output-dir DIR]\n"
    "  runs of one kind (block, oltp or scale); ratios are to RUN_A";

struct cmp {
        unsigned n;
        struct run_view v[MAX_RUNS];
        char label[MAX_RUNS][112];
};

static const struct run_series *find_series(const struct run_view *v, const char *name)
{
        for (unsigned i = 0; i < v->nseries; i++)
                if (!strcmp(v->s[i].name, name))
                        return &v->s[i];
        return NULL;
}

static const struct run_point *at_load(const struct run_series *s, double load)
{
        for (unsigned i = 0; s && i < s->n; i++)
                if (fabs(s->p[i].load - load) <= 1e-9 * fmax(1, fabs(load)))
                        return &s->p[i];
        return NULL;
}

static void step_name(const struct run_view *v, double load, char *buf, size_t len)
{
        if (!strcmp(v->kind, "block"))
                snprintf(buf, len, "QD %g", load);
        else if (!strcmp(v->kind, "scale"))
                snprintf(buf, len, "%g VMs", load);
        else
                snprintf(buf, len, "%g s", load);
}

/*
 * The first step where the leader in throughput changes between a and b.
 * Writes the sentence and returns the load of the crossover (NaN when none).
 */
static double crossover(const struct cmp *c, const struct run_series *a, unsigned bi,
                        const struct run_series *b, char *out, size_t len)
{
        const struct run_view *v = &c->v[0];
        int lead = 0;
        double last = NAN;
        char s1[48], s2[48];

        for (unsigned i = 0; i < a->n; i++) {
                const struct run_point *q = at_load(b, a->p[i].load);
                int now;

                if (!q || isnan(q->tput) || isnan(a->p[i].tput) || q->tput == a->p[i].tput)
                        continue;
                now = q->tput > a->p[i].tput ? 1 : -1;
                if (lead && now != lead) {
                        step_name(v, last, s1, sizeof(s1));
                        step_name(v, a->p[i].load, s2, sizeof(s2));
                        snprintf(out, len, "%s ahead up to %s, %s ahead from %s",
                                 c->label[lead > 0 ? bi : 0], s1, c->label[now > 0 ? bi : 0], s2);
                        return a->p[i].load;
                }
                lead = now;
                last = a->p[i].load;
        }
        if (lead)
                snprintf(out, len, "%s ahead at every common step, no crossover",
                         c->label[lead > 0 ? bi : 0]);
        else
                snprintf(out, len, "no common step with different throughput");
        return NAN;
}

static void fmt_v(double v, int metric, char *buf, size_t len)
{
        if (metric)
                doc_fmt_sig(v, buf, len);
        else if (isnan(v))
                snprintf(buf, len, "-");
        else
                snprintf(buf, len, "%.1f", v);
}

static void fmt_ratio(double b, double a, char *buf, size_t len)
{
        if (a > 0 && isfinite(b))
                snprintf(buf, len, "%.2f", b / a);
        else
                snprintf(buf, len, "-");
}

#define NMET 3
static const char *const met_name[NMET] = {"", "mean ms", "p99 ms"};
static const size_t met_off[NMET] = {offsetof(struct run_point, tput),
                                     offsetof(struct run_point, mean_ms),
                                     offsetof(struct run_point, p99_ms)};

static double met(const struct run_point *p, int m)
{
        double v;

        if (!p)
                return NAN;
        memcpy(&v, (const char *)p + met_off[m], sizeof(v));
        return v;
}

/* One table (terminal and HTML): load, then per metric A, and B.. with B/A. */
static void group_table(const struct cmp *c, const struct run_series *const *s, struct doc *d)
{
        const struct run_view *v = &c->v[0];
        unsigned ncol = 1 + NMET * (2 * c->n - 1), k;
        char cells[1 + NMET * (2 * MAX_RUNS - 1)][240];
        const char *cp[1 + NMET * (2 * MAX_RUNS - 1)];

        for (k = 0; k < ncol; k++)
                cp[k] = cells[k];
        snprintf(cells[0], sizeof(cells[0]), "%s", v->load_name);
        k = 1;
        for (int m = 0; m < NMET; m++)
                for (unsigned r = 0; r < c->n; r++) {
                        snprintf(cells[k++], sizeof(cells[0]), "%s %s", c->label[r],
                                 m ? met_name[m] : v->tput_name);
                        if (r)
                                snprintf(cells[k++], sizeof(cells[0]), "%s/%s", c->label[r],
                                         c->label[0]);
                }
        doc_table(d, cp, ncol);
        for (unsigned i = 0; i < s[0]->n; i++) {
                double load = s[0]->p[i].load;

                snprintf(cells[0], sizeof(cells[0]), "%g", load);
                k = 1;
                for (int m = 0; m < NMET; m++) {
                        double a = met(&s[0]->p[i], m);

                        for (unsigned r = 0; r < c->n; r++) {
                                double b = met(at_load(s[r], load), m);

                                fmt_v(b, m, cells[k++], sizeof(cells[0]));
                                if (r)
                                        fmt_ratio(b, a, cells[k++], sizeof(cells[0]));
                        }
                }
                doc_row(d, cp, ncol);
        }
        doc_table_end(d);
}

static void print_group(const struct cmp *c, const struct run_series *const *s)
{
        const struct run_view *v = &c->v[0];

        printf("%12s", v->load_name);
        for (int m = 0; m < NMET; m++)
                for (unsigned r = 0; r < c->n; r++)
                        printf(r ? " %10.10s %6s" : " %10.10s", c->label[r], r ? "ratio" : "");
        printf("\n%12s", "");
        for (int m = 0; m < NMET; m++)
                for (unsigned r = 0; r < c->n; r++)
                        printf(r ? " %10s %6s" : " %10s", m ? met_name[m] : v->tput_name, "");
        printf("\n");
        for (unsigned i = 0; i < s[0]->n; i++) {
                double load = s[0]->p[i].load;
                char b[32];

                printf("%12g", load);
                for (int m = 0; m < NMET; m++) {
                        double a = met(&s[0]->p[i], m);

                        for (unsigned r = 0; r < c->n; r++) {
                                double x = met(at_load(s[r], load), m);

                                fmt_v(x, m, b, sizeof(b));
                                printf(" %10s", b);
                                if (r) {
                                        fmt_ratio(x, a, b, sizeof(b));
                                        printf(" %6s", b);
                                }
                        }
                }
                printf("\n");
        }
}

static int group_plots(const struct cmp *c, const struct run_series *const *s, double mark,
                       const char *mark_label, struct doc *d)
{
        const struct run_view *v = &c->v[0];
        double *cols[3 * MAX_RUNS] = {0};
        struct svg_plot tp, lp;
        char title[2][160], names[MAX_RUNS][128];
        int rc = 0;

        snprintf(title[0], sizeof(title[0]), "%s%s%s against %s", s[0]->name,
                 s[0]->name[0] ? ": " : "", v->tput_name, v->load_name);
        snprintf(title[1], sizeof(title[1]), "%s%sp99 latency against %s", s[0]->name,
                 s[0]->name[0] ? ": " : "", v->load_name);
        svg_plot_init(&tp, title[0], v->load_name, v->tput_name);
        svg_plot_init(&lp, title[1], v->load_name, "p99 latency (ms)");
        tp.xint = lp.xint = !strcmp(v->kind, "scale");
        tp.xlog2 = lp.xlog2 = !strcmp(v->kind, "block");
        tp.mark_x = lp.mark_x = mark;
        tp.mark_label = lp.mark_label = mark_label;
        for (unsigned r = 0; r < c->n; r++) {
                if (!s[r])
                        continue;
                cols[3 * r] = run_column(s[r], offsetof(struct run_point, load));
                cols[3 * r + 1] = run_column(s[r], offsetof(struct run_point, tput));
                cols[3 * r + 2] = run_column(s[r], offsetof(struct run_point, p99_ms));
                if (!cols[3 * r] || !cols[3 * r + 1] || !cols[3 * r + 2]) {
                        rc = -ENOMEM;
                        goto out;
                }
                snprintf(names[r], sizeof(names[r]), "%s", c->label[r]);
                svg_plot_add(&tp, names[r], cols[3 * r], cols[3 * r + 1], s[r]->n, 0, (int)r);
                svg_plot_add(&lp, names[r], cols[3 * r], cols[3 * r + 2], s[r]->n, 0, (int)r);
        }
        doc_plot(d, &tp);
        doc_plot(d, &lp);
out:
        for (unsigned i = 0; i < 3 * MAX_RUNS; i++)
                free(cols[i]);
        return rc;
}

static int one_group(const struct cmp *c, const struct run_series *a, struct doc *d)
{
        const struct run_series *s[MAX_RUNS] = {a};
        char sentence[MAX_RUNS][400], all[MAX_RUNS * 402] = "";
        double mark = NAN;

        for (unsigned r = 1; r < c->n; r++)
                s[r] = find_series(&c->v[r], a->name);
        if (a->name[0]) {
                printf("\n== %s ==\n", a->name);
                doc_h(d, 2, "%s", a->name);
        }
        print_group(c, s);
        for (unsigned r = 1; r < c->n; r++) {
                double x;

                if (!s[r]) {
                        snprintf(sentence[r], sizeof(sentence[r]), "%s has no %s", c->label[r],
                                 a->name);
                        x = NAN;
                } else {
                        x = crossover(c, a, r, s[r], sentence[r], sizeof(sentence[r]));
                }
                if (isnan(mark) && !isnan(x))
                        mark = x;
                printf("crossover: %s\n", sentence[r]);
                doc_p(d, "crossover", "Crossover: %s.", sentence[r]);
                if (!isnan(x) || c->n == 2)
                        snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s",
                                 all[0] ? "; " : "", sentence[r]);
        }
        if (group_plots(c, s, mark, all, d))
                return -ENOMEM;
        group_table(c, s, d);
        return 0;
}

static int load_runs(struct cmp *c, char **runs, int n)
{
        char path[4096], err[512];

        for (int i = 0; i < n; i++) {
                json_t *r = NULL;
                int rc = res_resolve_run(runs[i], path, sizeof(path), err, sizeof(err));

                if (!rc)
                        rc = res_load(path, &r, err, sizeof(err));
                if (!rc)
                        rc = run_view_build(r, path, &c->v[i], err, sizeof(err));
                json_decref(r);
                if (rc) {
                        log_error("compare: %s", err);
                        return rc;
                }
                c->n++;
                if (strcmp(c->v[i].kind, c->v[0].kind)) {
                        log_error("compare: %s is a %s run and %s a %s run: compare runs of one "
                                  "kind",
                                  runs[0], c->v[0].kind, runs[i], c->v[i].kind);
                        return -EINVAL;
                }
        }
        return 0;
}

/* Labels name the runs in tables: topology or directory, made unique with A, B... */
static void set_labels(struct cmp *c)
{
        for (unsigned i = 0; i < c->n; i++) {
                char own[sizeof(c->label[0])]; /* -Os sees c as source and destination */
                int dup = 0;

                for (unsigned k = 0; k < c->n; k++)
                        dup |= k != i && !strcmp(c->v[i].label, c->v[k].label);
                if (dup)
                        snprintf(own, sizeof(own), "%c:%.100s", 'A' + i, c->v[i].label);
                else
                        snprintf(own, sizeof(own), "%s", c->v[i].label);
                memcpy(c->label[i], own, sizeof(own));
        }
}

static int compare_runs(const struct compare_cfg *cfg, struct cmp *c)
{
        char path[4200], err[512];
        struct doc d = {0};
        int rc = 0;

        set_labels(c);
        doc_begin(&d, "hcisweep compare: %s runs", c->v[0].kind);
        for (unsigned i = 0; i < c->n; i++)
                doc_p(&d, "meta", "%c: %s%s", 'A' + i, c->label[i],
                      c->v[i].partial ? " (partial run)" : "");
        for (unsigned i = 0; !rc && i < c->v[0].nseries; i++)
                rc = one_group(c, &c->v[0].s[i], &d);
        doc_end(&d);
        if (rc || d.html.oom) {
                log_error("compare: out of memory");
                rc = -ENOMEM;
                goto out;
        }
        if (cfg->html)
                snprintf(path, sizeof(path), "%s", cfg->html);
        else
                snprintf(path, sizeof(path), "%s/compare.html",
                         cfg->output_dir ? cfg->output_dir : ".");
        if (cfg->output_dir && !cfg->html)
                rc = res_mkdirs(cfg->output_dir, err, sizeof(err));
        if (!rc)
                rc = res_write_text(path, d.html.s, d.html.len, err, sizeof(err));
        if (rc)
                log_error("compare: %s", err);
        else
                printf("html: %s\n", path);
out:
        doc_free(&d);
        return rc;
}

/* The page's place, checked before the runs are read. */
static int check_outputs(const struct compare_cfg *cfg)
{
        char err[512];

        if (cfg->html && res_check_file(cfg->html, err, sizeof(err)) < 0) {
                log_error("compare: option --html: %s", err);
                return -EINVAL;
        }
        if (!cfg->html && cfg->output_dir && res_check_dir(cfg->output_dir, err, sizeof(err)) < 0) {
                log_error("compare: option --output-dir: %s", err);
                return -EINVAL;
        }
        return 0;
}

int cmd_compare(int argc, char **argv)
{
        struct compare_cfg cfg;
        struct opt_group g[2] = {{compare_opts, &cfg, NULL}, {NULL, NULL, NULL}};
        static struct cmp c;
        char *pos[MAX_RUNS];
        int npos = 0, rc = HCI_EXIT_USAGE, st;

        memset(&cfg, 0, sizeof(cfg));
        memset(&c, 0, sizeof(c));
        if ((st = opt_command_start(g, usage_text, argc, argv, pos, MAX_RUNS, &npos)) != 0) {
                rc = st > 0 ? HCI_EXIT_OK : HCI_EXIT_USAGE;
                goto out;
        }
        if (npos < 2) {
                log_error("compare: expected two to %d runs (try hcisweep compare --help)",
                          MAX_RUNS);
                goto out;
        }
        if (check_outputs(&cfg) < 0)
                goto out;
        if (!load_runs(&c, pos, npos) && !compare_runs(&cfg, &c))
                rc = HCI_EXIT_OK;
out:
        for (unsigned i = 0; i < c.n; i++)
                run_view_free(&c.v[i]);
        opt_free(g);
        return rc;
}
