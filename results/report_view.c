/*
 * report_view.c - the load points a report or a comparison shows, read off
 * a result of any kind.
 *
 * Latency figures come from the raw histogram buckets each result carries:
 * a block point's read and write histograms are merged before its p99 is
 * read, a scale step's histogram already merges its VMs. A mean or a
 * percentile is never averaged across points or VMs. Figures a result does
 * not hold are NaN and shown as "-", never guessed.
 *
 * Scale steps are read by the names of the README: vms, totals{tps,qps}, lat_ns,
 * hist, host_cpu{user,system,iowait,steal,idle[,busy]} (or cpu_busy_pct) and
 * storage{r_iops,w_iops,r_bytes_s,w_bytes_s} (or iops and bytes_s).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/parse.h"
#include "results/report_view.h"
#include "results/result.h"
#include "results/tip_json.h"

/* a + b where an unknown side counts as 0, NaN when both are unknown. */
static double add2(double a, double b)
{
        if (isnan(a) && isnan(b))
                return NAN;
        return (isnan(a) ? 0 : a) + (isnan(b) ? 0 : b);
}

double res_hist_pct_ms(const json_t *const *hists, unsigned n, double pct, double *mean_ms)
{
        struct hist *h = hist_new();
        double v = NAN;
        char err[128];

        if (mean_ms)
                *mean_ms = NAN;
        if (!h)
                return NAN;
        for (unsigned i = 0; i < n; i++)
                if (hists[i] && json_is_object(hists[i]) &&
                    hist_add_json(h, hists[i], err, sizeof(err)))
                        goto out;
        if (hist_count(h)) {
                v = (double)hist_percentile(h, pct) / 1e6;
                if (mean_ms)
                        *mean_ms = hist_mean(h) / 1e6;
        }
out:
        hist_free(h);
        return v;
}

/* Coefficient of variation of per-interval throughput; NaN under two intervals. */
static double cv_of(const json_t *iv, const char *k1, const char *k2)
{
        double s = 0, ss = 0, mean;
        size_t i, n = 0;
        const json_t *x;

        json_array_foreach(iv, i, x)
        {
                double v = add2(res_num(x, k1), k2 ? res_num(x, k2) : NAN);

                if (isnan(v))
                        continue;
                s += v;
                ss += v * v;
                n++;
        }
        if (n < 2)
                return NAN;
        mean = s / (double)n;
        return mean > 0 ? sqrt(fmax(ss / (double)n - mean * mean, 0)) / mean : NAN;
}

static struct run_point *push(struct run_series *s)
{
        struct run_point *p = realloc(s->p, (s->n + 1) * sizeof(*p));

        if (!p)
                return NULL;
        s->p = p;
        p = &s->p[s->n++];
        *p = (struct run_point){
            NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, {NAN, NAN, NAN, NAN},
            NAN, NAN, NAN, NAN, NAN, NAN, ""};
        return p;
}

static struct run_series *series(struct run_view *v, const char *name)
{
        struct run_series *s;

        for (unsigned i = 0; i < v->nseries; i++)
                if (!strcmp(v->s[i].name, name))
                        return &v->s[i];
        s = realloc(v->s, (v->nseries + 1) * sizeof(*s));
        if (!s)
                return NULL;
        v->s = s;
        s = &v->s[v->nseries++];
        memset(s, 0, sizeof(*s));
        snprintf(s->name, sizeof(s->name), "%s", name);
        return s;
}

static void sort_by_load(struct run_series *s)
{
        for (unsigned i = 1; i < s->n; i++)
                for (unsigned k = i; k > 0 && s->p[k].load < s->p[k - 1].load; k--) {
                        struct run_point t = s->p[k];

                        s->p[k] = s->p[k - 1];
                        s->p[k - 1] = t;
                }
}

/* scan: a client-count scan (the result has scan[]): one series per client count too, so each
 * count's aggregate curve is drawn and compared apart, never two counts as one queue depth. */
static int block_point(struct run_view *v, const json_t *p, int scan)
{
        const json_t *rd = json_object_get(p, "read"), *wr = json_object_get(p, "write");
        const json_t *h[2] = {res_num(rd, "ios") > 0 ? json_object_get(rd, "hist") : NULL,
                              res_num(wr, "ios") > 0 ? json_object_get(wr, "hist") : NULL};
        const char *rw = json_string_value(json_object_get(p, "rw"));
        char name[96], size[32];
        struct run_series *s;
        struct run_point *x;

        fmt_size((uint64_t)fmax(res_num(p, "bs"), 0), size, sizeof(size));
        snprintf(name, sizeof(name), "%s %s", rw ? rw : "?", size);
        if (scan)
                snprintf(name + strlen(name), sizeof(name) - strlen(name), ", %g client%s",
                         res_num(p, "n_clients"), res_num(p, "n_clients") == 1 ? "" : "s");
        s = series(v, name);
        x = s ? push(s) : NULL;
        if (!x)
                return -ENOMEM;
        x->load = res_num(p, "iodepth");
        x->tput = x->ops_s = add2(res_num(rd, "iops"), res_num(wr, "iops"));
        x->mb_s = add2(res_num(rd, "bw_bytes"), res_num(wr, "bw_bytes")) / 1e6;
        x->p99_ms = res_hist_pct_ms(h, 2, 99.0, &x->mean_ms);
        x->cv = cv_of(json_object_get(p, "intervals"), "read_iops", "write_iops");
        x->client_min = res_num(json_object_get(p, "client_iops"), "min");
        x->client_max = res_num(json_object_get(p, "client_iops"), "max");
        snprintf(x->slowest, sizeof(x->slowest), "%s",
                 json_string_value(json_object_get(p, "slowest"))
                     ? json_string_value(json_object_get(p, "slowest"))
                     : "");
        return 0;
}

static int oltp_series(struct run_view *v, const json_t *r)
{
        struct run_series *s = series(v, "");
        const json_t *x;
        size_t i;

        if (!s)
                return -ENOMEM;
        json_array_foreach(json_object_get(r, "intervals"), i, x)
        {
                const json_t *pct = json_object_get(json_object_get(x, "lat_ns"), "percentile");
                struct run_point *p = push(s);

                if (!p)
                        return -ENOMEM;
                p->load = res_num(x, "t");
                p->tput = res_num(x, "tps");
                p->ops_s = res_num(x, "qps");
                /* the interval's own histogram percentile, as the tool recorded it */
                p->p99_ms = res_num(pct, "99.0") / 1e6;
        }
        return 0;
}

static void scale_resources(const json_t *st, struct run_point *p)
{
        static const char *const owners[4] = {"vms", "storage", "driver", "other"};
        const json_t *cpu = json_object_get(st, "host_cpu"), *sto = json_object_get(st, "storage");
        struct res_tip_step ts;

        for (unsigned k = 0; k < 4; k++)
                p->own[k] = res_num(json_object_get(st, "cpu_by_owner"), owners[k]);
        p->quota_pct = res_num(json_object_get(st, "vm_quota"), "used_pct");
        p->throttled_pct = res_num(json_object_get(st, "vm_quota"), "throttled_time_pct");
        if (res_tip_step_from_json(st, &ts) >= 0) {
                p->lo = ts.lo;
                p->hi = ts.hi;
        }

        p->cpu_busy = res_num(st, "cpu_busy_pct");
        if (isnan(p->cpu_busy))
                p->cpu_busy = res_num(cpu, "busy");
        if (isnan(p->cpu_busy) && json_is_object(cpu))
                p->cpu_busy = 100.0 - add2(res_num(cpu, "idle"), res_num(cpu, "iowait"));
        p->cpu_steal = res_num(cpu, "steal");
        p->stor_iops = add2(res_num(sto, "r_iops"), res_num(sto, "w_iops"));
        if (isnan(p->stor_iops))
                p->stor_iops = res_num(sto, "iops");
        p->mb_s = add2(res_num(sto, "r_bytes_s"), res_num(sto, "w_bytes_s"));
        if (isnan(p->mb_s))
                p->mb_s = res_num(sto, "bytes_s");
        p->mb_s /= 1e6;
}

static int scale_series(struct run_view *v, const json_t *r)
{
        struct run_series *s = series(v, "");
        const json_t *x;
        size_t i;

        if (!s)
                return -ENOMEM;
        json_array_foreach(json_object_get(r, "steps"), i, x)
        {
                const json_t *tot = json_object_get(x, "totals"), *h = json_object_get(x, "hist");
                struct run_point *p = push(s);

                if (!p)
                        return -ENOMEM;
                p->load = res_num(x, "vms");
                p->tput = res_num(tot, "tps");
                p->ops_s = res_num(tot, "qps");
                p->p99_ms = res_hist_pct_ms(&h, 1, 99.0, &p->mean_ms);
                if (isnan(p->mean_ms))
                        p->mean_ms = res_num(json_object_get(x, "lat_ns"), "mean") / 1e6;
                p->cv = cv_of(json_object_get(x, "intervals"), "tps", NULL);
                scale_resources(x, p);
        }
        sort_by_load(s);
        return 0;
}

static void set_label(struct run_view *v, const json_t *r, const char *path)
{
        const char *topo =
            json_string_value(json_object_get(json_object_get(r, "config"), "topology"));
        char tmp[4096], *slash;

        if (topo && *topo) {
                snprintf(v->label, sizeof(v->label), "%.95s", topo);
                return;
        }
        snprintf(tmp, sizeof(tmp), "%s", path);
        slash = strrchr(tmp, '/');
        if (slash && !strcmp(slash + 1, "result.json")) {
                *slash = '\0';
                slash = strrchr(tmp, '/');
        }
        snprintf(v->label, sizeof(v->label), "%.95s", slash ? slash + 1 : tmp);
}

static int build(struct run_view *v, const json_t *r)
{
        const json_t *p;
        size_t i;
        int rc = 0;

        if (!strcmp(v->kind, "block")) {
                snprintf(v->load_name, sizeof(v->load_name), "queue depth");
                snprintf(v->tput_name, sizeof(v->tput_name), "IOPS");
                int scan = json_is_array(json_object_get(r, "scan"));

                json_array_foreach(json_object_get(r, "points"), i, p) if (!rc) rc =
                    block_point(v, p, scan);
                for (unsigned k = 0; !rc && k < v->nseries; k++)
                        sort_by_load(&v->s[k]);
                return rc;
        }
        snprintf(v->tput_name, sizeof(v->tput_name), "TPS");
        if (!strcmp(v->kind, "oltp")) {
                snprintf(v->load_name, sizeof(v->load_name), "time (s)");
                return oltp_series(v, r);
        }
        snprintf(v->load_name, sizeof(v->load_name), "VMs");
        return scale_series(v, r);
}

int run_view_build(const json_t *r, const char *path, struct run_view *v, char *err, size_t errlen)
{
        const char *kind = json_string_value(json_object_get(r, "kind"));
        int rc;

        memset(v, 0, sizeof(*v));
        if (!kind || (strcmp(kind, "block") && strcmp(kind, "oltp") && strcmp(kind, "scale"))) {
                snprintf(err, errlen, "%s: not a block, oltp or scale result", path);
                return -EINVAL;
        }
        snprintf(v->kind, sizeof(v->kind), "%s", kind);
        v->partial = json_is_true(json_object_get(r, "partial"));
        set_label(v, r, path);
        rc = build(v, r);
        for (unsigned i = 0; !rc && i < v->nseries; i++)
                for (unsigned k = 0; k < v->s[i].n; k++) {
                        struct run_point *q = &v->s[i].p[k];

                        if (isnan(q->lo) || isnan(q->hi))
                                q->lo = q->hi = q->tput;
                }
        if (rc) {
                snprintf(err, errlen, "out of memory");
        } else if (!v->nseries || !v->s[0].n) {
                snprintf(err, errlen, "%s: the %s result holds no %s", path, kind,
                         !strcmp(kind, "block")  ? "points"
                         : !strcmp(kind, "oltp") ? "intervals"
                                                 : "steps");
                rc = -EINVAL;
        }
        if (rc)
                run_view_free(v);
        return rc;
}

void run_view_free(struct run_view *v)
{
        for (unsigned i = 0; i < v->nseries; i++)
                free(v->s[i].p);
        free(v->s);
        v->s = NULL;
        v->nseries = 0;
}

double run_overall_response_ms(const struct run_series *s)
{
        unsigned peak = 0;
        double area = 0;

        if (s->n < 2)
                return NAN;
        for (unsigned i = 1; i < s->n; i++)
                if (s->p[i].tput > s->p[peak].tput)
                        peak = i;
        if (!peak || !(s->p[peak].tput > 0))
                return NAN;
        for (unsigned i = 1; i <= peak; i++) {
                const struct run_point *a = &s->p[i - 1], *b = &s->p[i];

                area += (b->tput - a->tput) * (a->mean_ms + b->mean_ms) / 2;
        }
        return area / s->p[peak].tput;
}
