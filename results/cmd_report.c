/*
 * cmd_report.c - `hcisweep report RUN`: one offline HTML page and its Markdown
 * twin, next to the run's result.json.
 *
 * Each section is emitted once into both documents through the doc_*
 * helpers, so the two never disagree on a figure; only the plots are
 * HTML-only (inline SVG). The page has no script and fetches nothing, so it
 * can be mailed or archived and still open. What makes a figure
 * untrustworthy (a partial run, host CPU steal, throughput that varied
 * between intervals) is written above the figures, not in a footnote.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/exitcode.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/resfile.h"
#include "results/knee.h"
#include "results/report_priv.h"
#include "results/results.h"
#include "results/rundir.h"
#include "results/save.h"
#include "results/svg.h"

#define CV_LIMIT 0.10

struct report_cfg {
        char *output_dir;
};

#define O(f) offsetof(struct report_cfg, f)
static const struct opt_def report_opts[] = {
    {"output-dir", OPT_STR, O(output_dir), NULL, 0, 0,
     "write report.html and report.md here (default: next to result.json)", NULL, 0},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};
#undef O

/* The options as documentation (cfg NULL): the man page and completion read them. */
const struct opt_group cmd_report_options[] = {{report_opts, NULL, "report options"},
                                               {NULL, NULL, NULL}};

static const char usage_text[] =
    "hcisweep report RUN [--output-dir DIR]\n"
    "  RUN: a run directory, a result.json, or a run id of `hcisweep results list`";

/* ---- figures and sections shared by every kind ------------------------------ */

static void load_table(struct doc *d, const struct run_view *v, const struct run_series *s)
{
        static const char *const head[] = {
            "load",  "throughput", "mean latency (ms)", "p99 latency (ms)",
            "ops/s", "MB/s",       "interval CV"};
        char c[7][32], lh[64], th[64];
        const char *cells[7];

        snprintf(lh, sizeof(lh), "load (%s)", v->load_name);
        snprintf(th, sizeof(th), "throughput (%s)", v->tput_name);
        cells[0] = lh;
        cells[1] = th;
        for (int i = 2; i < 7; i++)
                cells[i] = head[i];
        doc_table(d, cells, 7);
        for (unsigned i = 0; i < s->n; i++) {
                const struct run_point *p = &s->p[i];

                snprintf(c[0], sizeof(c[0]), "%g", p->load);
                snprintf(c[1], sizeof(c[1]), "%.1f", p->tput);
                doc_fmt_sig(p->mean_ms, c[2], sizeof(c[2]));
                doc_fmt_sig(p->p99_ms, c[3], sizeof(c[3]));
                snprintf(c[4], sizeof(c[4]), "%.1f", p->ops_s);
                if (isnan(p->mb_s))
                        snprintf(c[5], sizeof(c[5]), "-");
                else
                        snprintf(c[5], sizeof(c[5]), "%.2f", p->mb_s);
                if (isnan(p->cv))
                        snprintf(c[6], sizeof(c[6]), "-");
                else
                        snprintf(c[6], sizeof(c[6]), "%.1f%%", p->cv * 100);
                for (int k = 0; k < 7; k++)
                        cells[k] = c[k];
                doc_row(d, cells, 7);
        }
        doc_table_end(d);
}

/* Peak, knee, and the SPEC SFS overall response time of one ramp. */
static int ramp_summary(struct doc *d, const struct run_view *v, const struct run_series *s)
{
        double *x = calloc(s->n ? s->n : 1, sizeof(double));
        double *y = calloc(s->n ? s->n : 1, sizeof(double));
        double ort = run_overall_response_ms(s);
        char ortb[32];
        int peak, knee;

        if (!x || !y) {
                free(x);
                free(y);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < s->n; i++) {
                x[i] = s->p[i].load;
                y[i] = s->p[i].tput;
        }
        peak = knee_peak(y, s->n);
        knee = peak > 0 ? knee_kneedle(x, y, (unsigned)peak + 1, 1.0) : -1;
        if (peak >= 0)
                doc_p(d, NULL, "Peak: %.1f %s at %s %g.", y[peak], v->tput_name, v->load_name,
                      x[peak]);
        if (knee >= 0)
                doc_p(d, NULL, "Knee (Kneedle): %s %g.", v->load_name, x[knee]);
        doc_fmt_sig(ort, ortb, sizeof(ortb));
        if (isfinite(ort))
                doc_p(d, "ort",
                      "Overall response time: %s ms (area under mean latency against "
                      "throughput, from the first point to the peak, divided by the peak "
                      "throughput).",
                      ortb);
        free(x);
        free(y);
        return 0;
}

static void kv_table(struct doc *d, const char *h1, const char *h2, const json_t *o)
{
        const char *head[2] = {h1, h2}, *key, *cells[2];
        const json_t *v;

        doc_table(d, head, 2);
        json_object_foreach((json_t *)o, key, v)
        {
                char *s = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

                cells[0] = key;
                cells[1] = json_is_string(v) ? json_string_value(v) : s ? s : "?";
                doc_row(d, cells, 2);
                free(s);
        }
        doc_table_end(d);
}

static void monitor_section(struct doc *d, const json_t *r)
{
        const json_t *sum = json_object_get(json_object_get(r, "monitor"), "summary");
        const json_t *cpu = json_object_get(sum, "cpu");

        doc_h(d, 2, "Host monitor");
        if (!json_is_object(sum)) {
                doc_p(d, NULL, "No host monitor summary in this result.");
                return;
        }
        doc_p(d, NULL,
              "Mean host CPU: user %.1f%%, system %.1f%%, iowait %.1f%%, steal %.1f%% "
              "(highest sample %.1f%%), idle %.1f%%.",
              res_num(cpu, "user"), res_num(cpu, "system"), res_num(cpu, "iowait"),
              res_num(cpu, "steal"), res_num(sum, "steal_max"), res_num(cpu, "idle"));
}

/* A figure whose steady-state rule (--target-ci) was not met is flagged, never accepted quietly. */
static void steady_warning(struct doc *d, const json_t *st, const char *label)
{
        const json_t *ci = json_object_get(st, "ci_pct");
        char reached[64];

        if (!st || !json_is_false(json_object_get(st, "met")))
                return;
        if (json_is_number(ci))
                snprintf(reached, sizeof(reached), "reached +-%.2f%%", json_number_value(ci));
        else
                snprintf(reached, sizeof(reached), "was never computed");
        doc_p(d, "warn",
              "Warning: %s: the 95%% CI of its mean throughput %s, not the --target-ci %g%%, in "
              "%.0f s measured%s: a less certain figure than asked for.",
              label, reached, res_num(st, "target_ci_pct"), res_num(st, "measured_s"),
              json_is_false(json_object_get(st, "settled")) ? " (its warm-up never settled)" : "");
}

/* "1, 2, 5" of the steps whose steady state is false at key; their number. */
static unsigned steps_false(const json_t *r, const char *key, char *buf, size_t len)
{
        const json_t *x;
        unsigned n = 0;
        size_t i, at = 0;

        buf[0] = '\0';
        json_array_foreach(json_object_get(r, "steps"), i, x)
        {
                if (!json_is_false(json_object_get(json_object_get(x, "steady"), key)))
                        continue;
                if (at < len)
                        at += (size_t)snprintf(buf + at, len - at, "%s%.0f", n ? ", " : "",
                                               res_num(x, "vms"));
                n++;
        }
        return n;
}

/* The steps that did not settle or meet --target-ci: one warning, with what it means. */
static void steps_warning(struct doc *d, const json_t *r)
{
        const json_t *st =
            json_object_get(json_array_get(json_object_get(r, "steps"), 0), "steady");
        char unmet[256], unsettled[256], what[640] = "";
        unsigned nm = steps_false(r, "met", unmet, sizeof(unmet));
        unsigned nu = steps_false(r, "settled", unsettled, sizeof(unsettled));

        if (!nm && !nu)
                return;
        if (nu)
                snprintf(what, sizeof(what),
                         "%u step(s) (%s VMs) did not settle: their TPS still drifted when the "
                         "longest warm-up ran out, so measuring began anyway. ",
                         nu, unsettled);
        if (nm)
                snprintf(what + strlen(what), sizeof(what) - strlen(what),
                         "%u step(s) (%s VMs) did not meet --target-ci %g%%: the 95%% CI of their "
                         "mean TPS stayed wider. ",
                         nm, unmet, res_num(st, "target_ci_pct"));
        doc_p(d, "warn",
              "Warning: %sTheir figures are measured, only less certain than asked: the tipping "
              "point reads each step's wider band, so it answers \"between\" or \"undecided\" "
              "rather than a wrong step. To settle them: a longer --warmup-time (the warm-up rule "
              "needs at least 10 s) and --time, or --repeat 3. The steady-state table has each "
              "step's figures.",
              what);
}

static void steady_warnings(struct doc *d, const json_t *r)
{
        const json_t *x;
        char label[64];
        size_t i;

        steady_warning(d, json_object_get(r, "steady"), "the run");
        steps_warning(d, r);
        json_array_foreach(json_object_get(r, "points"), i, x)
        {
                snprintf(label, sizeof(label), "point %zu", i + 1);
                steady_warning(d, json_object_get(x, "steady"), label);
        }
}

/* Every reason to distrust a figure, before the figures. */
static void warnings(struct doc *d, const json_t *r, const struct run_view *v)
{
        const json_t *sum = json_object_get(json_object_get(r, "monitor"), "summary");
        const char *why = json_string_value(json_object_get(r, "partial_reason"));

        if (v->partial)
                doc_p(d, "warn",
                      "Warning: this run is partial (%s): its figures cover only what "
                      "completed.",
                      why ? why : "interrupted");
        if (json_is_true(json_object_get(sum, "untrusted")))
                doc_p(d, "warn",
                      "Warning: the host monitor marks this run untrusted: %s (steal up to "
                      "%.1f%%). Another tenant took CPU time; figures may be low.",
                      json_string_value(json_object_get(sum, "reason"))
                          ? json_string_value(json_object_get(sum, "reason"))
                          : "CPU steal",
                      res_num(sum, "steal_max"));
        if (!strcmp(
                json_string_value(json_object_get(json_object_get(r, "lab"), "datadir_on"))
                    ? json_string_value(json_object_get(json_object_get(r, "lab"), "datadir_on"))
                    : "",
                "host"))
                doc_p(d, "warn",
                      "Warning: storage not in the data path: the VMs' datadirs are on the host "
                      "disk (--datadir-on host), so the storage service carried none of the "
                      "databases' I/O and the storage figures describe the host disk.");
        for (unsigned i = 0; i < v->nseries; i++)
                for (unsigned k = 0; k < v->s[i].n; k++) {
                        const struct run_point *p = &v->s[i].p[k];

                        if (p->cv > CV_LIMIT)
                                doc_p(d, "warn",
                                      "Warning: %s%s%s %g: throughput varied between intervals "
                                      "(coefficient of variation %.1f%% > %.0f%%): not a "
                                      "steady figure.",
                                      v->s[i].name, v->s[i].name[0] ? ", " : "", v->load_name,
                                      p->load, p->cv * 100, CV_LIMIT * 100);
                }
        steady_warnings(d, r);
}

/* ---- the command ------------------------------------------------------------ */

static int write_docs(const char *dir, struct doc *d)
{
        char path[4200];
        int rc;

        snprintf(path, sizeof(path), "%s/report.html", dir);
        rc = res_save_text_file("report", "html", path, d->html.s, d->html.len);
        snprintf(path, sizeof(path), "%s/report.md", dir);
        if (!rc)
                rc = res_save_text_file("report", "markdown", path, d->md.s, d->md.len);
        return rc;
}

static int render(const json_t *r, const struct run_view *v, const char *path, struct doc *d)
{
        static struct res_verdict vd; /* one report at a time */
        int rc = 0;

        doc_begin(d, "hcisweep %s report: %s", v->kind, v->label);
        /* the answer first: the verdict is what the page is read for */
        if (!strcmp(v->kind, "scale")) {
                if (res_verdict_of_result(r, NULL, &vd) < 0)
                        return -ENOMEM;
                doc_verdict(d, &vd);
        }
        doc_p(d, "meta", "Result %s, started %s, hcisweep %s.", path,
              json_string_value(json_object_get(r, "started_at")),
              json_string_value(json_object_get(r, "hcisweep_version")));
        warnings(d, r, v);
        if (!strcmp(v->kind, "block"))
                rc = report_block(d, r, v);
        else if (!strcmp(v->kind, "oltp"))
                rc = report_oltp(d, r, v);
        else
                rc = report_scale(d, r, v, &vd);
        doc_h(d, 2, "Load points");
        for (unsigned i = 0; !rc && i < v->nseries; i++) {
                if (v->s[i].name[0])
                        doc_h(d, 3, "%s", v->s[i].name);
                load_table(d, v, &v->s[i]);
                rc = ramp_summary(d, v, &v->s[i]);
        }
        if (!rc)
                rc = report_time_series(d, r);
        monitor_section(d, r);
        doc_h(d, 2, "Host");
        kv_table(d, "fact", "value", json_object_get(r, "host"));
        doc_h(d, 2, "Config");
        kv_table(d, "option", "value", json_object_get(r, "config"));
        doc_end(d);
        return rc ? rc : d->html.oom || d->md.oom ? -ENOMEM : 0;
}

/* An exit code: 2 for a run that cannot be read, 4 for a report that cannot be written. */
static int report_one(const struct report_cfg *c, const char *run)
{
        char path[4096], dir[4096], err[512], *slash;
        struct run_view v = {0};
        struct doc d = {0};
        json_t *r = NULL;
        int rc;

        rc = res_resolve_run(run, path, sizeof(path), err, sizeof(err));
        if (!rc)
                rc = res_load(path, &r, err, sizeof(err));
        if (!rc)
                rc = run_view_build(r, path, &v, err, sizeof(err));
        if (!rc && c->output_dir && res_check_dir(c->output_dir, err, sizeof(err)) < 0) {
                rc = -EINVAL;
                log_error("report: option --output-dir: %s", err);
                goto out;
        }
        if (rc) {
                log_error("report: %s", err);
                goto out;
        }
        snprintf(dir, sizeof(dir), "%s", c->output_dir ? c->output_dir : path);
        if (!c->output_dir) {
                slash = strrchr(dir, '/');
                if (slash)
                        *slash = '\0';
                else
                        snprintf(dir, sizeof(dir), ".");
        }
        rc = render(r, &v, path, &d);
        if (rc) {
                log_error("report: out of memory");
                goto out;
        }
        rc = res_mkdirs(dir, err, sizeof(err));
        if (rc)
                log_error("report: %s", err);
        else
                rc = write_docs(dir, &d);
        rc = res_save_exit(rc);
out:
        doc_free(&d);
        run_view_free(&v);
        json_decref(r);
        return rc < 0 ? HCI_EXIT_USAGE : rc;
}

int cmd_report(int argc, char **argv)
{
        struct report_cfg c;
        struct opt_group g[2] = {{report_opts, &c, NULL}, {NULL, NULL, NULL}};
        char *pos[2];
        int npos = 0, rc = HCI_EXIT_USAGE, st;

        memset(&c, 0, sizeof(c));
        if ((st = opt_command_start(g, usage_text, argc, argv, pos, 2, &npos)) != 0) {
                rc = st > 0 ? HCI_EXIT_OK : HCI_EXIT_USAGE;
                goto out;
        }
        if (npos != 1) {
                log_error("report: expected one RUN (try hcisweep report --help)");
                goto out;
        }
        rc = report_one(&c, pos[0]);
out:
        opt_free(g);
        return rc;
}
