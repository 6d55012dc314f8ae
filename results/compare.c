/*
 * compare.c - `hcisweep compare A B [C...]`: runs of one kind side by side.
 *
 * Steps are matched by load (VM count, queue depth within a rw/bs group, or
 * interval time) and every figure of B, C... is also given as a ratio to A,
 * the baseline. The crossover is the first step at which the other run is
 * ahead beyond the noise (tipping.h: the steps' bands do not overlap), which
 * is the answer HCI-versus-two-layer sizing asks for ("hci ahead up to 20
 * VMs, two-layer ahead from 24"); for scale runs each run's tipping point is
 * read off its steps as `scale` and `analyze` read it. The table goes to
 * the terminal, overlay plots with the crossover and the tipping points
 * marked and the same table to an HTML page, and with --json the crossover,
 * the tipping points and the per-step ratios to a JSON file. When a scale
 * run's steps read a cluster's hosts, each run's busiest compute host per
 * step (the host its verdict reads, tip_hosts.c) is shown beside them.
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
#include "results/report_view.h"
#include "results/rundir.h"
#include "results/save.h"
#include "results/tip_json.h"

#define MAX_RUNS 8

struct compare_cfg {
        char *html, *output_dir, *json;
        int explain;
};

#define O(f) offsetof(struct compare_cfg, f)
static const struct opt_def compare_opts[] = {
    {"html", OPT_STR, O(html), NULL, 0, 0, "write the HTML page here (default: compare.html)", NULL,
     0},
    {"output-dir", OPT_STR, O(output_dir), NULL, 0, 0,
     "directory of the default compare.html (default: the current directory)", NULL, 0},
    {"json", OPT_STR, O(json), NULL, 0, 0,
     "write the crossover, each run's tipping point and the per-step ratios as JSON here", NULL, 0},
    {"explain", OPT_BOOL, O(explain), "0", 0, 0,
     "print the evidence behind each run's verdict: each figure at its tipping step and the "
     "step after it, and the rule it met",
     NULL, 0},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};
#undef O

/* The options as documentation (cfg NULL): the man page and completion read them. */
const struct opt_group cmd_compare_options[] = {{compare_opts, NULL, "compare options"},
                                                {NULL, NULL, NULL}};

static const char usage_text[] =
    "hcisweep compare RUN_A RUN_B [RUN_C...] [--html FILE] [--output-dir DIR] [--json FILE]\n"
    "                 [--explain]\n"
    "  runs of one kind (block, oltp or scale); ratios are to RUN_A. Scale runs end with\n"
    "  the answer: each run's verdict (at most four lines) and the crossover.";

struct cmp {
        unsigned n;
        struct run_view v[MAX_RUNS];
        char label[MAX_RUNS][112];
        char path[MAX_RUNS][4096];
        int has_tip[MAX_RUNS]; /* scale runs: tip[] and sv[] below */
        struct res_tip tip[MAX_RUNS];
        struct res_tip_step *sv[MAX_RUNS];
        unsigned nsv[MAX_RUNS];
        struct res_trust trust[MAX_RUNS];
        struct facts {
                char topology[32];
                double host_cpus, compute_cpus, storage_max; /* NAN: not in the result */
        } facts[MAX_RUNS];
        struct res_verdict vd[MAX_RUNS];
        char answer[600]; /* the crossover line of the answer */
        json_t *groups;   /* the --json groups[], built as the tables are */
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

/* A series as tipping-point steps, bands included (malloc'd; NULL on ENOMEM). */
static struct res_tip_step *as_steps(const struct run_series *s)
{
        struct res_tip_step *t = malloc((s->n ? s->n : 1) * sizeof(*t));

        for (unsigned i = 0; t && i < s->n; i++) {
                res_tip_step_init(&t[i], s->p[i].load, s->p[i].tput);
                t[i].lo = s->p[i].lo;
                t[i].hi = s->p[i].hi;
        }
        return t;
}

/* Who is ahead at a's step i beyond the noise: +1 b, -1 a, 0 neither or no such step. */
static int lead_at(const struct res_tip_step *a, unsigned i, const struct res_tip_step *b,
                   unsigned nb)
{
        int first;

        res_tip_crossover(&a[i], 1, b, nb, &first); /* one step: first is its leader */
        return first;
}

/*
 * The first step where the run behind at the first decided step is ahead
 * beyond the noise. Writes the sentence and returns the load of the
 * crossover (NaN when none).
 */
static double crossover(const struct cmp *c, const struct run_series *a, unsigned bi,
                        const struct run_series *b, char *out, size_t len)
{
        const struct run_view *v = &c->v[0];
        struct res_tip_step *sa = as_steps(a), *sb = as_steps(b);
        double last = NAN, x = NAN;
        int first = 0, k;
        char s1[48], s2[48];

        if (!sa || !sb) {
                snprintf(out, len, "out of memory");
                goto out;
        }
        k = res_tip_crossover(sa, a->n, sb, b->n, &first);
        for (int i = 0; first && i < (k < 0 ? (int)a->n : k); i++)
                if (lead_at(sa, (unsigned)i, sb, b->n) == first)
                        last = sa[i].load;
        if (k >= 0) {
                step_name(v, last, s1, sizeof(s1));
                step_name(v, sa[k].load, s2, sizeof(s2));
                snprintf(out, len, "%.111s ahead up to %s, %.111s ahead from %s",
                         c->label[first > 0 ? bi : 0], s1, c->label[first > 0 ? 0 : bi], s2);
                x = sa[k].load;
        } else if (first) {
                snprintf(out, len,
                         "%.111s ahead at every common step decided beyond the noise, no "
                         "crossover",
                         c->label[first > 0 ? bi : 0]);
        } else {
                snprintf(out, len, "no common step with a difference beyond the noise");
        }
out:
        free(sa);
        free(sb);
        return x;
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

/* 1 when some step of some scale run read a cluster's hosts (tip_hosts.c). */
static int any_hosts(const struct cmp *c)
{
        for (unsigned r = 0; r < c->n; r++)
                for (unsigned k = 0; c->has_tip[r] && k < c->nsv[r]; k++)
                        if (c->sv[r][k].hosts.n)
                                return 1;
        return 0;
}

/* Run r's busiest compute host at load, as its verdict read it; NULL when the step has none. */
static const struct res_tip_step *busiest_at(const struct cmp *c, unsigned r, double load)
{
        for (unsigned k = 0; c->has_tip[r] && k < c->nsv[r]; k++) {
                const struct res_tip_step *t = &c->sv[r][k];

                if (fabs(t->load - load) <= 1e-9 * fmax(1, fabs(load)))
                        return t->hosts.n && t->hosts.cpu_host[0] ? t : NULL;
        }
        return NULL;
}

/* "h1 95%", or "-". */
static void fmt_busiest(const struct cmp *c, unsigned r, double load, char *buf, size_t len)
{
        const struct res_tip_step *t = busiest_at(c, r, load);

        if (t)
                snprintf(buf, len, "%.24s %d%%", t->hosts.cpu_host, (int)lround(t->r.cpu_busy_pct));
        else
                snprintf(buf, len, "-");
}

/* 1 when some point of some run is a block client run's (its per-client spread). */
static int any_clients(const struct cmp *c)
{
        for (unsigned r = 0; r < c->n; r++)
                for (unsigned i = 0; i < c->v[r].nseries; i++)
                        for (unsigned k = 0; k < c->v[r].s[i].n; k++)
                                if (!isnan(c->v[r].s[i].p[k].client_min))
                                        return 1;
        return 0;
}

/* Run r's client spread at load: "102284-127565, slowest c1", or "-". */
static void fmt_clients(const struct run_series *s, double load, char *buf, size_t len)
{
        const struct run_point *p = at_load(s, load);

        if (p && !isnan(p->client_min))
                snprintf(buf, len, "%.0f-%.0f, slowest %.24s", p->client_min, p->client_max,
                         p->slowest[0] ? p->slowest : "?");
        else
                snprintf(buf, len, "-");
}

/* One table (terminal and HTML): load, then per metric A, and B.. with B/A; on a cluster
 * each run's busiest compute host last; for block client runs each run's client spread. */
static void group_table(const struct cmp *c, const struct run_series *const *s, struct doc *d)
{
        const struct run_view *v = &c->v[0];
        int hosts = any_hosts(c), clients = any_clients(c);
        unsigned ncol = 1 + NMET * (2 * c->n - 1) + (hosts ? c->n : 0) + (clients ? c->n : 0), k;
        char cells[1 + NMET * (2 * MAX_RUNS - 1) + 2 * MAX_RUNS][240];
        const char *cp[1 + NMET * (2 * MAX_RUNS - 1) + 2 * MAX_RUNS];

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
        for (unsigned r = 0; hosts && r < c->n; r++)
                snprintf(cells[k++], sizeof(cells[0]), "%s busiest host", c->label[r]);
        for (unsigned r = 0; clients && r < c->n; r++)
                snprintf(cells[k++], sizeof(cells[0]), "%s client IOPS min-max", c->label[r]);
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
                for (unsigned r = 0; hosts && r < c->n; r++)
                        fmt_busiest(c, r, load, cells[k++], sizeof(cells[0]));
                for (unsigned r = 0; clients && r < c->n; r++)
                        fmt_clients(s[r], load, cells[k++], sizeof(cells[0]));
                doc_row(d, cp, ncol);
        }
        doc_table_end(d);
}

static void print_group(const struct cmp *c, const struct run_series *const *s)
{
        const struct run_view *v = &c->v[0];
        int hosts = any_hosts(c), clients = any_clients(c);

        printf("%12s", v->load_name);
        for (int m = 0; m < NMET; m++)
                for (unsigned r = 0; r < c->n; r++)
                        printf(r ? " %10.10s %6s" : " %10.10s", c->label[r], r ? "ratio" : "");
        for (unsigned r = 0; hosts && r < c->n; r++)
                printf(" %14.14s", c->label[r]);
        for (unsigned r = 0; clients && r < c->n; r++)
                printf(" %28.28s", c->label[r]);
        printf("\n%12s", "");
        for (int m = 0; m < NMET; m++)
                for (unsigned r = 0; r < c->n; r++)
                        printf(r ? " %10s %6s" : " %10s", m ? met_name[m] : v->tput_name, "");
        for (unsigned r = 0; hosts && r < c->n; r++)
                printf(" %14s", "busiest host");
        for (unsigned r = 0; clients && r < c->n; r++)
                printf(" %28s", "client IOPS min-max");
        printf("\n");
        for (unsigned i = 0; i < s[0]->n; i++) {
                double load = s[0]->p[i].load;
                char b[64];

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
                for (unsigned r = 0; hosts && r < c->n; r++) {
                        fmt_busiest(c, r, load, b, sizeof(b));
                        printf(" %14s", b);
                }
                for (unsigned r = 0; clients && r < c->n; r++) {
                        fmt_clients(s[r], load, b, sizeof(b));
                        printf(" %28s", b);
                }
                printf("\n");
        }
}

/* On a cluster, each run's busiest compute host at load: [{name, cpu_busy_pct} | null]; else
 * NULL (no key). */
static json_t *busiest_json(const struct cmp *c, double load)
{
        json_t *a;

        if (!any_hosts(c) || !(a = json_array()))
                return NULL;
        for (unsigned r = 0; r < c->n; r++) {
                const struct res_tip_step *t = busiest_at(c, r, load);

                json_array_append_new(a, t ? json_pack("{s:s,s:f}", "name", t->hosts.cpu_host,
                                                       "cpu_busy_pct", t->r.cpu_busy_pct)
                                           : json_null());
        }
        return a;
}

/* Per-step figures and ratios to A (and, on a cluster, each run's busiest host), for --json. */
static json_t *group_json(const struct cmp *c, const struct run_series *const *s, double x)
{
        json_t *steps = json_array(), *g;

        for (unsigned i = 0; steps && i < s[0]->n; i++) {
                double load = s[0]->p[i].load, a = s[0]->p[i].tput;
                json_t *tp = json_array(), *ra = json_array();

                for (unsigned r = 0; tp && ra && r < c->n; r++) {
                        const struct run_point *q = at_load(s[r], load);
                        double b = q ? q->tput : NAN;

                        json_array_append_new(tp, isfinite(b) ? json_real(b) : json_null());
                        json_array_append_new(ra, isfinite(b) && a > 0 ? json_real(b / a)
                                                                       : json_null());
                }
                json_array_append_new(steps, json_pack("{s:f,s:o*,s:o*,s:o*}", "load", load,
                                                       "throughput", tp, "ratio_to_a", ra,
                                                       "busiest_host", busiest_json(c, load)));
        }
        g = json_pack("{s:s,s:o,s:o*}", "name", s[0]->name, "crossover",
                      isnan(x) ? json_null() : json_pack("{s:f}", "load", x), "steps", steps);
        return g;
}

static int group_plots(const struct cmp *c, const struct run_series *const *s, double mark,
                       const char *mark_label, struct doc *d)
{
        const struct run_view *v = &c->v[0];
        double *cols[3 * MAX_RUNS] = {0};
        struct svg_plot tp, lp;
        char title[2][160], names[MAX_RUNS][128], tl[MAX_RUNS][256];
        int rc = 0;

        snprintf(title[0], sizeof(title[0]), "%s%s%s against %s", s[0]->name,
                 s[0]->name[0] ? ": " : "", v->tput_name, v->load_name);
        snprintf(title[1], sizeof(title[1]), "%s%sp99 latency against %s", s[0]->name,
                 s[0]->name[0] ? ": " : "", v->load_name);
        svg_plot_init(&tp, title[0], v->load_name, v->tput_name);
        svg_plot_init(&lp, title[1], v->load_name, "p99 latency (ms)");
        tp.xint = lp.xint = !strcmp(v->kind, "scale");
        tp.xlog2 = lp.xlog2 = !strcmp(v->kind, "block");
        svg_plot_mark(&tp, mark, mark_label, -1);
        svg_plot_mark(&lp, mark, mark_label, -1);
        for (unsigned r = 0; r < c->n; r++) {
                if (!c->has_tip[r] || !c->tip[r].found)
                        continue;
                snprintf(tl[r], sizeof(tl[r]), "%s tips at %g VMs (%s)", c->label[r],
                         c->tip[r].load, res_tip_limit_name(c->tip[r].limited_by));
                svg_plot_mark(&tp, c->tip[r].load, tl[r], (int)r);
                svg_plot_mark(&lp, c->tip[r].load, tl[r], (int)r);
        }
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

static int one_group(struct cmp *c, const struct run_series *a, struct doc *d)
{
        const struct run_series *s[MAX_RUNS] = {a};
        char sentence[MAX_RUNS][400], mlabel[160] = "";
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
                if (isnan(mark) && !isnan(x)) {
                        mark = x;
                        step_name(&c->v[0], x, mlabel, sizeof(mlabel));
                        snprintf(mlabel + strlen(mlabel), sizeof(mlabel) - strlen(mlabel),
                                 ": crossover (%s ahead)", c->label[r]);
                        if (c->groups)
                                json_array_append_new(c->groups, group_json(c, s, x));
                }
                printf("crossover: %s\n", sentence[r]);
                doc_p(d, "crossover", "Crossover: %s.", sentence[r]);
        }
        if (isnan(mark) && c->groups)
                json_array_append_new(c->groups, group_json(c, s, NAN));
        if (group_plots(c, s, mark, mlabel, d))
                return -ENOMEM;
        group_table(c, s, d);
        return 0;
}

/* How many CPUs a cpulist ("0-1,3") names; NAN for none. */
static double cpulist_count(const char *s)
{
        double n = 0;

        while (s && *s) {
                char *end;
                long a = strtol(s, &end, 10), b = a;

                if (end == s)
                        return NAN;
                if (*end == '-')
                        b = strtol(end + 1, &end, 10);
                n += b >= a ? (double)(b - a + 1) : 0;
                s = *end == ',' ? end + 1 : end;
                if (*end && *end != ',')
                        break;
        }
        return n > 0 ? n : NAN;
}

/* What a scale result says of where its VMs ran, for the words of "no crossover". */
static void read_facts(const json_t *r, struct facts *f)
{
        const char *topo =
            json_string_value(json_object_get(json_object_get(r, "config"), "topology"));
        const json_t *x;
        size_t i;

        snprintf(f->topology, sizeof(f->topology), "%s", topo ? topo : "");
        f->host_cpus = res_num(json_object_get(r, "host"), "cpus");
        f->compute_cpus = f->storage_max = NAN;
        json_array_foreach(json_object_get(r, "steps"), i, x)
        {
                double st = res_num(json_object_get(x, "cpu_by_owner"), "storage");
                const char *cpus =
                    json_string_value(json_object_get(json_object_get(x, "compute_cpu"), "cpus"));

                if (cpus && isnan(f->compute_cpus))
                        f->compute_cpus = cpulist_count(cpus);
                if (!isnan(st) && !(st <= f->storage_max))
                        f->storage_max = st;
        }
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
                if (!rc && !strcmp(c->v[i].kind, "scale")) {
                        res_trust_of_monitor(json_object_get(r, "monitor"), &c->trust[i]);
                        res_trust_of_cluster(json_object_get(r, "steps"), &c->trust[i]);
                        read_facts(r, &c->facts[i]);
                        rc = res_tip_of_steps(json_object_get(r, "steps"), &c->sv[i], &c->nsv[i],
                                              &c->tip[i]);
                        c->has_tip[i] = !rc;
                        if (rc)
                                snprintf(err, sizeof(err), "out of memory");
                }
                json_decref(r);
                if (rc) {
                        log_error("compare: %s", err);
                        return rc;
                }
                snprintf(c->path[i], sizeof(c->path[i]), "%s", path);
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

/* Why two-layer and HCI never cross, in the host's terms, when the results say. */
static void why_no_crossover(const struct cmp *c, char *buf, size_t len)
{
        const struct facts *two = NULL, *hci = NULL;
        size_t at = strlen(buf);

        for (unsigned i = 0; i < c->n && i < 2; i++) {
                if (!strcmp(c->facts[i].topology, "two-layer"))
                        two = &c->facts[i];
                if (!strcmp(c->facts[i].topology, "hci"))
                        hci = &c->facts[i];
        }
        if (!two || !hci || isnan(two->compute_cpus) || isnan(hci->host_cpus) || at >= len)
                return;
        at += (size_t)snprintf(buf + at, len - at,
                               ": two-layer gives the VMs %g of this host's %g CPUs, HCI gives "
                               "them all %g",
                               two->compute_cpus, hci->host_cpus, hci->host_cpus);
        if (!isnan(hci->storage_max) && at < len)
                snprintf(buf + at, len - at, " and its storage service needed at most %.0f%%",
                         hci->storage_max);
}

/* The answer: each scale run's verdict and the crossover line, on screen and at the top of
 * the page. */
static void the_answer(struct cmp *c, struct doc *d)
{
        int any = 0;

        for (unsigned i = 0; i < c->n; i++) {
                struct res_verdict_in in = {c->label[i], "VMs", &c->trust[i], 0, "TPS"};

                if (!c->has_tip[i])
                        continue;
                res_verdict_build(&in, &c->tip[i], c->sv[i], c->nsv[i], &c->vd[i]);
                any = 1;
        }
        if (!any)
                return;
        if (c->v[0].nseries && c->n >= 2) {
                const struct run_series *b = find_series(&c->v[1], c->v[0].s[0].name);
                double x =
                    b ? crossover(c, &c->v[0].s[0], 1, b, c->answer, sizeof(c->answer)) : NAN;

                if (!b)
                        snprintf(c->answer, sizeof(c->answer), "%s has no steps to compare",
                                 c->label[1]);
                else if (isnan(x))
                        why_no_crossover(c, c->answer, sizeof(c->answer));
        }
        for (unsigned i = 0; i < c->n; i++)
                if (c->has_tip[i])
                        doc_verdict(d, &c->vd[i]);
        if (c->answer[0])
                doc_p(d, "crossover", "Crossover: %s.", c->answer);
}

/* The answer again at the end of the terminal output, where the tables have scrolled it away. */
static void print_answer(const struct compare_cfg *cfg, const struct cmp *c, struct doc *d)
{
        int any = 0;

        for (unsigned i = 0; i < c->n; i++)
                any |= c->has_tip[i];
        if (!any)
                return;
        printf("\nthe answer:\n");
        for (unsigned i = 0; i < c->n; i++) {
                if (!c->has_tip[i])
                        continue;
                for (unsigned k = 0; k < c->vd[i].nlines; k++)
                        printf("%s\n", c->vd[i].line[k]);
                if (cfg->explain)
                        res_verdict_print_table(&c->vd[i], stdout, 2);
        }
        if (c->answer[0])
                printf("crossover: %s\n", c->answer);
        for (unsigned i = 0; i < c->n; i++) {
                if (!c->has_tip[i])
                        continue;
                doc_h(d, 2, "The evidence: %s", c->label[i]);
                doc_evidence(d, &c->vd[i]);
        }
}

static int write_json(const struct compare_cfg *cfg, const struct cmp *c)
{
        json_t *top = res_new("compare", NULL), *runs = json_array(), *g0, *x;
        int rc = -ENOMEM;

        if (!top || !runs)
                goto out;
        for (unsigned i = 0; i < c->n; i++) {
                json_t *o = json_pack("{s:s,s:s,s:s}", "label", c->label[i], "path", c->path[i],
                                      "kind", c->v[i].kind);

                if (o && c->has_tip[i]) {
                        json_t *tp = res_tip_json(&c->tip[i], c->sv[i], "vms");

                        if (!tp || res_verdict_attach(tp, &c->vd[i]) < 0 ||
                            json_object_set_new(o, "tipping_point", tp)) {
                                json_decref(o);
                                goto out;
                        }
                }
                if (!o || json_array_append_new(runs, o))
                        goto out;
        }
        g0 = json_array_get(c->groups, 0);
        x = json_object_get(g0, "crossover");
        rc = json_object_set_new(top, "runs", runs);
        runs = NULL;
        rc |= json_object_set_new(
            top, "crossover",
            json_is_object(x) ? json_pack("{s:O}", !strcmp(c->v[0].kind, "scale") ? "vms" : "load",
                                          json_object_get(x, "load"))
                              : json_null());
        rc |= json_object_set(top, "groups", c->groups);
        if (c->answer[0])
                rc |= json_object_set_new(top, "answer", json_string(c->answer));
        if (rc) {
                rc = -ENOMEM;
                goto out;
        }
        rc = res_save_json_file("compare", "json", cfg->json, top);
out:
        if (rc == -ENOMEM)
                log_error("compare: out of memory");
        json_decref(runs);
        json_decref(top);
        return rc;
}

static int compare_runs(const struct compare_cfg *cfg, struct cmp *c)
{
        char path[4200], err[512];
        struct doc d = {0};
        int rc = 0;

        set_labels(c);
        c->groups = json_array();
        doc_begin(&d, "hcisweep compare: %s runs", c->v[0].kind);
        the_answer(c, &d);
        for (unsigned i = 0; i < c->n; i++)
                doc_p(&d, "meta", "%c: %s%s", 'A' + i, c->label[i],
                      c->v[i].partial ? " (partial run)" : "");
        for (unsigned i = 0; !rc && i < c->v[0].nseries; i++)
                rc = one_group(c, &c->v[0].s[i], &d);
        print_answer(cfg, c, &d);
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
        if (rc)
                log_error("compare: %s", err);
        else
                rc = res_save_text_file("compare", "html", path, d.html.s, d.html.len);
        if (!rc && cfg->json)
                rc = write_json(cfg, c);
out:
        json_decref(c->groups);
        doc_free(&d);
        return rc;
}

/* The page's place, checked before the runs are read. */
static int check_outputs(const struct compare_cfg *cfg)
{
        char err[512];

        /* --json may go into the --output-dir this command makes */
        if (cfg->json && !cfg->output_dir && res_check_file(cfg->json, err, sizeof(err)) < 0) {
                log_error("compare: option --json: %s", err);
                return -EINVAL;
        }
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
        if (!load_runs(&c, pos, npos)) {
                st = compare_runs(&cfg, &c);
                rc = st == -ENOMEM ? HCI_EXIT_USAGE : res_save_exit(st);
        }
out:
        for (unsigned i = 0; i < c.n; i++) {
                run_view_free(&c.v[i]);
                free(c.sv[i]);
        }
        opt_free(g);
        return rc;
}
