/*
 * cmd_analyze.c - `hcisweep analyze FILE`: peak, knee and latency knee of a
 * load ramp from any tool (CSV, sysbench, fio, hcisweep results).
 *
 * The command only reads, computes and prints: parsing is results/ramp*.c
 * and the arithmetic results/knee.c. With --json the same findings are
 * written atomically; the first ramp of the file is also at the top level
 * (peak, knee, latency_knee, slo) so scripts need not look into ramps[].
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
#include "results/knee.h"
#include "results/ramp.h"
#include "results/save.h"
#include "results/results.h"
#include "results/rundir.h"
#include "results/tip_json.h"
#include "results/tip_scan.h"
#include "results/tip_verdict.h"

struct analyze_cfg {
        double latency_slo;
        char *json;
        int explain;
};

/* Who the verdict speaks of: an hcisweep result's topology and its monitor's trust. */
struct about {
        char label[96];
        struct res_trust trust;
};

#define O(f) offsetof(struct analyze_cfg, f)
static const struct opt_def analyze_opts[] = {
    {"latency-slo", OPT_DOUBLE, O(latency_slo), "0", 0, 1e9,
     "latency objective in ms: report the highest load that meets it (0: none)", NULL, 0},
    {"json", OPT_STR, O(json), NULL, 0, 0, "write the findings as JSON here", NULL, 0},
    {"explain", OPT_BOOL, O(explain), "0", 0, 0,
     "print the evidence behind the verdict: each figure at the tipping step and the step "
     "after it, and the rule it met",
     NULL, 0},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};
#undef O

/* The options as documentation (cfg NULL): the man page and completion read them. */
const struct opt_group cmd_analyze_options[] = {{analyze_opts, NULL, "analyze options"},
                                                {NULL, NULL, NULL}};

static const char usage_text[] =
    "hcisweep analyze FILE [--latency-slo MS] [--json OUT] [--explain]\n"
    "  FILE: CSV (header: load,throughput[,latency_ms,throughput_min,throughput_max,\n"
    "        cpu_busy_pct,storage_cpu_pct,storage_util_pct,storage_lat_ms,vm_cpu_pct,\n"
    "        vm_throttled_time_pct,compute_cpu_pct,steal_pct]),\n"
    "        a per-host CSV (the same plus host and role = compute|storage|both, one row per\n"
    "        host and load: cpu_busy_pct, steal_pct and disk_util_pct are then that host's,\n"
    "        the rows of a load one step, its busiest compute host named as scale names it),\n"
    "        a client-count scan's CSV (load column clients, roles client|storage: the scan's\n"
    "        verdict, as hcisweep block --client-counts gives it),\n"
    "        sysbench output, fio JSON output, or an hcisweep result.json (block, oltp, scale)\n"
    "  Prints the measured peak, the USL fit and the knee = the tipping point, with the\n"
    "  resource that limited it when the file has resource figures, as a verdict of at\n"
    "  most four lines (--explain: and the evidence table behind it).";

static json_t *load_or_null(const struct ramp *r, int i)
{
        return i < 0 ? json_null() : json_real(r->p[i].load);
}

static json_t *points_json(const struct ramp *r)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < r->n; i++) {
                const struct ramp_point *p = &r->p[i];

                json_t *busiest = NULL;

                if (p->hosts.n && p->hosts.cpu_host[0])
                        busiest = json_pack("{s:s,s:f}", "name", p->hosts.cpu_host, "cpu_busy_pct",
                                            p->r.cpu_busy_pct);
                if (json_array_append_new(
                        a, json_pack("{s:f,s:f,s:o,s:o*}", "load", p->load, "throughput", p->tput,
                                     "latency_ms",
                                     isnan(p->lat_ms) ? json_null() : json_real(p->lat_ms),
                                     "busiest_host", busiest))) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

/* "TPS", "IOPS": the ramp's throughput as the verdict names it. */
static const char *tput_words(const struct ramp *r)
{
        static const char *const names[][2] = {
            {"tps", "TPS"}, {"iops", "IOPS"}, {"eps", "events/s"}};

        for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if (!strcmp(r->tput_name, names[i][0]))
                        return names[i][1];
        return r->tput_name[0] ? r->tput_name : "throughput";
}

/* The verdict of a ramp (tip_verdict.h), on the steps the tipping point was found on. */
static int verdict_of(const struct ramp *r, const struct knee_result *k, const struct about *ab,
                      struct res_verdict *v)
{
        struct res_tip_step *st = malloc((r->n ? r->n : 1) * sizeof(*st));
        struct res_verdict_in in = {r->name[0] ? r->name : ab->label, knee_unit(r), &ab->trust, 0,
                                    tput_words(r)};

        if (!st)
                return -ENOMEM;
        ramp_tip_steps(r, st);
        res_verdict_build(&in, &k->tip, st, r->n, v);
        free(st);
        return 0;
}

static json_t *tip_steps_json(const struct ramp *r, const struct knee_result *k,
                              const struct res_verdict *v)
{
        struct res_tip_step *st = malloc((r->n ? r->n : 1) * sizeof(*st));
        json_t *o;

        if (!st)
                return NULL;
        ramp_tip_steps(r, st);
        o = res_tip_json(&k->tip, st, "load");
        free(st);
        if (o && res_verdict_attach(o, v) < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static json_t *ramp_json(const struct ramp *r, const struct knee_result *k, double slo,
                         const struct res_verdict *v)
{
        json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:o*}", "name", r->name, "load_name", r->load_name,
                              "throughput_name", r->tput_name, "latency_name", r->lat_name,
                              "points", points_json(r));

        if (!o)
                return NULL;
        if (json_object_set_new(o, "peak",
                                json_pack("{s:o,s:f}", "load", load_or_null(r, k->peak),
                                          "throughput", r->p[k->peak].tput)) ||
            json_object_set_new(o, "knee", json_pack("{s:o}", "load", load_or_null(r, k->knee))) ||
            json_object_set_new(o, "kneedle",
                                json_pack("{s:o}", "load", load_or_null(r, k->kneedle))) ||
            json_object_set_new(o, "tipping_point", tip_steps_json(r, k, v)) ||
            json_object_set_new(o, "usl", res_usl_json(&k->tip.usl)) ||
            json_object_set_new(o, "latency_knee",
                                json_pack("{s:o}", "load", load_or_null(r, k->latency_knee))) ||
            (slo > 0 && json_object_set_new(o, "slo",
                                            json_pack("{s:f,s:o}", "latency_ms", slo, "load",
                                                      load_or_null(r, k->slo))))) {
                json_decref(o);
                return NULL;
        }
        return o;
}

/* A client-count scan (load column clients): its verdict as `block --client-counts` gives it,
 * printed and into o as scan{clients, saturated, limited_by, verdict}. 0 or -ENOMEM. */
static int scan_of(const struct ramp *r, json_t *o)
{
        struct res_scan_step *st = malloc((r->n ? r->n : 1) * sizeof(*st));
        struct res_tip_step *ts = malloc((r->n ? r->n : 1) * sizeof(*ts));
        struct res_scan sc;
        int rc = -ENOMEM;

        if (st && ts) {
                ramp_tip_steps(r, ts);
                for (unsigned i = 0; i < r->n; i++)
                        st[i] = (struct res_scan_step){
                            ts[i], isnan(r->p[i].lat_ms) ? 0 : r->p[i].lat_ms * 1e3};
                res_scan_verdict(st, r->n, &sc);
                printf("scan: %s\n", sc.verdict);
                rc = json_object_set_new(o, "scan",
                                         json_pack("{s:i,s:b,s:s,s:s}", "clients", sc.at,
                                                   "saturated", sc.saturated, "limited_by",
                                                   res_tip_limit_name(sc.limited_by), "verdict",
                                                   sc.verdict))
                         ? -ENOMEM
                         : 0;
        }
        free(st);
        free(ts);
        return rc;
}

static void print_usl(const struct ramp *r, const struct res_usl *u)
{
        if (!u->ok) {
                printf("usl: no fit (fewer than 2 points with throughput)\n");
                return;
        }
        printf("usl: lambda %.4g sigma %.4g kappa %.4g rmse %.4g %s; predicted peak ", u->lambda,
               u->sigma, u->kappa, u->rmse, r->tput_name);
        if (isnan(u->peak_load))
                printf("none (kappa = 0: no retrograde region)\n");
        else
                printf("%s %.1f\n", r->load_name, u->peak_load);
}

static void print_ramp(const struct ramp *r, const struct knee_result *k, double slo,
                       const struct res_verdict *v, int explain)
{
        char lat[32];

        if (r->name[0])
                printf("\n== %s ==\n", r->name);
        snprintf(lat, sizeof(lat), "latency_ms(%s)", r->lat_name);
        printf("%10s %14s %16s\n", r->load_name, r->tput_name, lat);
        for (unsigned i = 0; i < r->n; i++) {
                printf("%10g %14.1f ", r->p[i].load, r->p[i].tput);
                if (isnan(r->p[i].lat_ms))
                        printf("%16s", "-");
                else
                        printf("%16.5g", r->p[i].lat_ms);
                printf("%s\n", (int)i == k->peak   ? "  <- peak"
                               : (int)i == k->knee ? "  <- knee"
                                                   : "");
        }
        printf("peak: %s %g (%.1f %s)\n", r->load_name, r->p[k->peak].load, r->p[k->peak].tput,
               r->tput_name);
        print_usl(r, &k->tip.usl);
        if (k->knee >= 0)
                printf("knee: %s %g\n", r->load_name, r->p[k->knee].load);
        else
                printf("knee: none\n");
        if (k->kneedle >= 0)
                printf("kneedle: %s %g\n", r->load_name, r->p[k->kneedle].load);
        for (unsigned i = 0; i < v->nlines; i++)
                printf("%s\n", v->line[i]);
        if (explain)
                res_verdict_print_table(v, stdout, 2);
        if (k->latency_knee >= 0)
                printf("latency knee: %s %g\n", r->load_name, r->p[k->latency_knee].load);
        else
                printf("latency knee: none%s\n", ramp_has_latency(r) ? "" : " (no latency)");
        if (slo > 0 && k->slo >= 0)
                printf("slo %g ms: met up to %s %g\n", slo, r->load_name, r->p[k->slo].load);
        else if (slo > 0)
                printf("slo %g ms: no point meets it\n", slo);
}

static int write_json(const struct opt_group *g, const char *out, const char *file,
                      const struct ramp_set *s, json_t *ramps)
{
        json_t *cfg = opt_to_json(g), *top = res_new("analyze", cfg), *first;
        const char *keys[] = {"points",        "peak", "knee", "kneedle", "latency_knee",
                              "tipping_point", "usl",  "slo",  "scan",    NULL};
        int rc = -ENOMEM;

        json_decref(cfg);
        if (!top)
                goto out;
        first = json_array_get(ramps, 0);
        rc = json_object_set_new(top, "source",
                                 json_pack("{s:s,s:s}", "file", file, "format", s->format));
        for (unsigned i = 0; !rc && keys[i]; i++)
                if (json_object_get(first, keys[i]))
                        rc = json_object_set(top, keys[i], json_object_get(first, keys[i]));
        if (!rc)
                rc = json_object_set(top, "ramps", ramps);
        if (rc) {
                rc = -ENOMEM;
                goto out;
        }
        rc = res_save_json_file("analyze", "analysis", out, top);
out:
        if (rc == -ENOMEM)
                log_error("analyze: out of memory");
        json_decref(top);
        return rc;
}

/* The label and trust of the verdict: an hcisweep result's topology and monitor, else the
 * file's name. */
static void about_file(const char *file, const struct ramp_set *s, struct about *ab)
{
        const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
        json_t *doc = NULL;
        char err[256];

        memset(ab, 0, sizeof(*ab));
        snprintf(ab->label, sizeof(ab->label), "%s", base);
        if (strncmp(s->format, "hcisweep-", 9) || res_load(file, &doc, err, sizeof(err)))
                return;
        if (json_string_value(json_object_get(json_object_get(doc, "config"), "topology")))
                snprintf(
                    ab->label, sizeof(ab->label), "%s",
                    json_string_value(json_object_get(json_object_get(doc, "config"), "topology")));
        res_trust_of_monitor(json_object_get(doc, "monitor"), &ab->trust);
        res_trust_of_cluster(json_object_get(doc, "steps"), &ab->trust);
        json_decref(doc);
}

static int analyze_set(const struct analyze_cfg *c, const struct ramp_set *s, json_t *ramps,
                       const char *file)
{
        static struct res_verdict v; /* one command, one thread */
        struct about ab;

        about_file(file, s, &ab);
        for (unsigned i = 0; i < s->n; i++) {
                const struct ramp *r = &s->r[i];
                struct knee_result k;

                if (r->n < 2) {
                        log_error("analyze: %s: %s%s%shas %u point%s: a ramp needs at least 2",
                                  file, r->name[0] ? "ramp '" : "", r->name, r->name[0] ? "' " : "",
                                  r->n, r->n == 1 ? "" : "s");
                        return HCI_EXIT_USAGE;
                }
                if (knee_analyze(r, c->latency_slo, &k) || verdict_of(r, &k, &ab, &v) ||
                    json_array_append_new(ramps, ramp_json(r, &k, c->latency_slo, &v))) {
                        log_error("analyze: out of memory");
                        return HCI_EXIT_USAGE;
                }
                print_ramp(r, &k, c->latency_slo, &v, c->explain);
                if (!strcmp(r->load_name, "clients") &&
                    scan_of(r, json_array_get(ramps, json_array_size(ramps) - 1))) {
                        log_error("analyze: out of memory");
                        return HCI_EXIT_USAGE;
                }
        }
        return HCI_EXIT_OK;
}

int cmd_analyze(int argc, char **argv)
{
        struct analyze_cfg c;
        struct opt_group g[2] = {{analyze_opts, &c, NULL}, {NULL, NULL, NULL}};
        struct ramp_set s = {0};
        json_t *ramps = NULL;
        char err[512], *pos[2];
        int npos = 0, rc = HCI_EXIT_USAGE, st;

        memset(&c, 0, sizeof(c));
        if ((st = opt_command_start(g, usage_text, argc, argv, pos, 2, &npos)) != 0) {
                rc = st > 0 ? HCI_EXIT_OK : HCI_EXIT_USAGE;
                goto out;
        }
        if (npos != 1) {
                log_error("analyze: expected one FILE (try hcisweep analyze --help)");
                goto out;
        }
        if (c.json && res_check_file(c.json, err, sizeof(err)) < 0) {
                log_error("analyze: option --json: %s", err);
                goto out;
        }
        if (ramp_parse_file(pos[0], &s, err, sizeof(err))) {
                log_error("analyze: %s", err);
                goto out;
        }
        printf("%s: %s, %u ramp%s\n", pos[0], s.format, s.n, s.n == 1 ? "" : "s");
        ramps = json_array();
        rc = ramps ? analyze_set(&c, &s, ramps, pos[0]) : HCI_EXIT_USAGE;
        if (rc == HCI_EXIT_OK && c.json && (st = write_json(g, c.json, pos[0], &s, ramps)) < 0)
                rc = st == -ENOMEM ? HCI_EXIT_USAGE : res_save_exit(st);
out:
        json_decref(ramps);
        ramp_set_free(&s);
        opt_free(g);
        return rc;
}
