/*
 * cmd_results.c - `hcisweep results list|show|add`: the run index from the
 * command line.
 *
 * list filters by kind and topology, newest first; show prints what the
 * index knows of one run (by id or by the path of its result.json); add
 * registers results made earlier, or elsewhere, so that they can be listed.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exitcode.h"
#include "core/log.h"
#include "core/opts.h"
#include "results/result.h"
#include "results/results.h"
#include "results/store.h"

#define MAX_ADD 256

struct results_cfg {
        char *kind, *topology, *index;
        int windows;
};

#define O(f) offsetof(struct results_cfg, f)
static const struct opt_def results_opts[] = {
    {"kind", OPT_STR, O(kind), NULL, 0, 0, "list: only runs of this kind (block, oltp, scale)",
     NULL, 0},
    {"topology", OPT_STR, O(topology), NULL, 0, 0, "list: only runs of this topology", NULL, 0},
    {"windows", OPT_BOOL, O(windows), "0", 0, 0,
     "show: each step's, repeat's and block point's wall-clock windows (UTC start end, as a "
     "Prometheus "
     "query_range or a Grafana time range takes them)",
     NULL, 0},
    {"index", OPT_STR, O(index), NULL, 0, 0,
     "index database (default $HCISWEEP_INDEX, else $XDG_DATA_HOME/hcisweep/index.sqlite)", NULL,
     0},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};
#undef O

/* The options as documentation (cfg NULL): the man page and completion read them. */
const struct opt_group cmd_results_options[] = {{results_opts, NULL, "results options"},
                                                {NULL, NULL, NULL}};

static const char usage_text[] =
    "hcisweep results list [--kind K] [--topology T]\n"
    "       hcisweep results show RUN [--windows] (RUN: id or result path)\n"
    "       hcisweep results add RESULT.json...\n"
    "  every form takes --index FILE";

static void fmt_num(double v, const char *fmt, char *buf, size_t len)
{
        if (isnan(v))
                snprintf(buf, len, "-");
        else
                snprintf(buf, len, fmt, v);
}

static int do_list(struct res_index *ix, const struct results_cfg *c)
{
        struct res_run *runs;
        unsigned n;
        char err[512];

        if (res_index_list(ix, c->kind, c->topology, &runs, &n, err, sizeof(err))) {
                log_error("results: %s", err);
                return HCI_EXIT_USAGE;
        }
        printf("%5s  %-20s  %-6s  %-9s  %s\n", "id", "started_at", "kind", "topology", "headline");
        for (unsigned i = 0; i < n; i++)
                printf("%5lld  %-20s  %-6s  %-9s  %s\n        %s\n", runs[i].id, runs[i].started_at,
                       runs[i].kind, runs[i].topology[0] ? runs[i].topology : "-", runs[i].headline,
                       runs[i].path);
        printf("%u run%s\n", n, n == 1 ? "" : "s");
        free(runs);
        return HCI_EXIT_OK;
}

/* "NAME START END" of window key of o, when it has one. */
static void print_window(const char *name, const json_t *o, const char *key)
{
        const json_t *w = json_object_get(o, key);
        const char *a = json_string_value(json_object_get(w, "start")),
                   *b = json_string_value(json_object_get(w, "end"));

        if (a && b)
                printf("%-24s %s %s\n", name, a, b);
}

/* --windows: the run's, then each step's and repeat's (or block point's) measured and warm-up
 * windows. */
static int show_windows(const struct res_run *r)
{
        json_t *doc, *st, *rep;
        const char *a, *b;
        char err[1200], name[64];
        size_t i, j;

        if (res_load(r->path, &doc, err, sizeof(err))) {
                log_error("results: %s", err);
                return HCI_EXIT_USAGE;
        }
        a = json_string_value(json_object_get(doc, "started_at"));
        b = json_string_value(json_object_get(doc, "ended_at"));
        printf("%-24s %s %s\n", "run", a ? a : "-", b ? b : "-");
        json_array_foreach(json_object_get(doc, "steps"), i, st)
        {
                unsigned vms = (unsigned)json_integer_value(json_object_get(st, "vms"));

                snprintf(name, sizeof(name), "step %zu (%u VMs)", i + 1, vms);
                print_window(name, st, "window");
                snprintf(name, sizeof(name), "step %zu warm-up", i + 1);
                print_window(name, st, "warmup");
                json_array_foreach(json_object_get(st, "repeats"), j, rep)
                {
                        snprintf(name, sizeof(name), "step %zu repeat %zu", i + 1, j + 1);
                        print_window(name, rep, "window");
                }
        }
        json_array_foreach(json_object_get(doc, "points"), i, st)
        {
                const char *rw = json_string_value(json_object_get(st, "rw"));

                snprintf(name, sizeof(name), "point %zu (%s %lld qd%lld)", i + 1, rw ? rw : "?",
                         (long long)json_integer_value(json_object_get(st, "bs")),
                         (long long)json_integer_value(json_object_get(st, "iodepth")));
                print_window(name, st, "window");
                snprintf(name, sizeof(name), "point %zu warm-up", i + 1);
                print_window(name, st, "warmup");
        }
        json_decref(doc);
        return HCI_EXIT_OK;
}

static int do_show(struct res_index *ix, const char *what, int windows)
{
        struct res_run r;
        char err[512], t[32], p[32];

        if (res_index_find(ix, what, &r, err, sizeof(err))) {
                log_error("results: %s", err);
                return HCI_EXIT_USAGE;
        }
        fmt_num(r.tps_or_iops, "%.1f", t, sizeof(t));
        fmt_num(r.p99_ms, "%.3f", p, sizeof(p));
        printf("id:          %lld\n"
               "kind:        %s\n"
               "started_at:  %s\n"
               "topology:    %s\n"
               "headline:    %s\n"
               "%-12s %s\n"
               "p99_ms:      %s\n"
               "path:        %s\n",
               r.id, r.kind, r.started_at, r.topology[0] ? r.topology : "-", r.headline,
               strcmp(r.kind, "block") ? "tps:" : "iops:", t, p, r.path);
        return windows ? show_windows(&r) : HCI_EXIT_OK;
}

static int do_add(struct res_index *ix, char **paths, int n)
{
        int rc = HCI_EXIT_OK;

        for (int i = 0; i < n; i++) {
                struct res_run r;
                char err[512];

                if (res_index_add(ix, paths[i], &r, err, sizeof(err))) {
                        log_error("results: %s", err);
                        rc = HCI_EXIT_USAGE;
                        continue;
                }
                printf("added %lld: %s: %s\n", r.id, r.path, r.headline);
        }
        return rc;
}

static int results_dispatch(const struct results_cfg *c, char **pos, int npos)
{
        struct res_index *ix = NULL;
        char err[512];
        int rc;

        if (strcmp(pos[0], "list") && strcmp(pos[0], "show") && strcmp(pos[0], "add")) {
                log_error("results: unknown subcommand '%s' (list, show or add)", pos[0]);
                return HCI_EXIT_USAGE;
        }
        if ((!strcmp(pos[0], "list") && npos != 1) || (!strcmp(pos[0], "show") && npos != 2) ||
            (!strcmp(pos[0], "add") && npos < 2)) {
                log_error("results %s: wrong number of arguments (try hcisweep results --help)",
                          pos[0]);
                return HCI_EXIT_USAGE;
        }
        if (res_index_open(c->index, &ix, err, sizeof(err))) {
                log_error("results: %s", err);
                return HCI_EXIT_USAGE;
        }
        if (!strcmp(pos[0], "list"))
                rc = do_list(ix, c);
        else if (!strcmp(pos[0], "show"))
                rc = do_show(ix, pos[1], c->windows);
        else
                rc = do_add(ix, pos + 1, npos - 1);
        res_index_close(ix);
        return rc;
}

int cmd_results(int argc, char **argv)
{
        struct results_cfg c;
        struct opt_group g[2] = {{results_opts, &c, NULL}, {NULL, NULL, NULL}};
        char *pos[MAX_ADD + 1];
        int npos = 0, rc = HCI_EXIT_USAGE, st;

        memset(&c, 0, sizeof(c));
        if ((st = opt_command_start(g, usage_text, argc, argv, pos, MAX_ADD + 1, &npos)) != 0) {
                rc = st > 0 ? HCI_EXIT_OK : HCI_EXIT_USAGE;
        } else if (npos < 1) {
                log_error("results: expected list, show RUN or add PATH... (try --help)");
        } else {
                rc = results_dispatch(&c, pos, npos);
        }
        opt_free(g);
        return rc;
}
