/*
 * clients_agg.c - one point's exact aggregate over many block clients (see
 * clients_agg.h). Everything comes from the clients' point objects and the
 * controller's view of their windows, so a saved result can be aggregated
 * again the same way.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/hist.h"
#include "block/clients_agg.h"

#define MAX_BINS 100000 /* aligned intervals kept per point */

static double num(const json_t *o, const char *k)
{
        const json_t *v = json_object_get(o, k);
        return json_is_number(v) ? json_number_value(v) : 0;
}

static int set(json_t *o, const char *k, json_t *v)
{
        return json_object_set_new(o, k, v) ? -ENOMEM : 0;
}

static double client_iops(const struct blk_client_point *c)
{
        return num(json_object_get(c->point, "read"), "iops") +
               num(json_object_get(c->point, "write"), "iops");
}

/* Every client's histogram of one direction (dir NULL: both), merged. */
static struct hist *merged_hist(const struct blk_client_point *c, unsigned n, const char *dir,
                                char *err, size_t errlen)
{
        static const char *const both[] = {"read", "write"};
        struct hist *h = hist_new();

        for (unsigned i = 0; h && i < n; i++)
                for (unsigned d = 0; d < 2; d++) {
                        if (dir && strcmp(dir, both[d]) != 0)
                                continue;
                        const json_t *hj =
                            json_object_get(json_object_get(c[i].point, both[d]), "hist");
                        if (hj && hist_add_json(h, hj, err, errlen) < 0) {
                                hist_free(h);
                                return NULL;
                        }
                }
        if (!h && !err[0])
                snprintf(err, errlen, "out of memory");
        return h;
}

/* The aggregate of one direction: counts and rates summed, histograms merged. */
static json_t *agg_dir(const struct blk_client_point *c, unsigned n, const char *dir,
                       const double *pcts, unsigned npct, char *err, size_t errlen)
{
        static const char *const summed[] = {"ios", "bytes", "errors", "timeouts"};
        double sums[4] = {0}, iops = 0, bw = 0;
        struct hist *h = merged_hist(c, n, dir, err, errlen);
        json_t *o = json_object();
        int bad = !h || !o;

        for (unsigned i = 0; i < n; i++) {
                const json_t *d = json_object_get(c[i].point, dir);
                for (unsigned k = 0; k < 4; k++)
                        sums[k] += num(d, summed[k]);
                iops += num(d, "iops");
                bw += num(d, "bw_bytes");
        }
        for (unsigned k = 0; !bad && k < 4; k++)
                bad = set(o, summed[k], json_integer((json_int_t)sums[k]));
        bad = bad || set(o, "iops", json_real(iops)) || set(o, "bw_bytes", json_real(bw)) ||
              set(o, "lat_ns", hist_lat_json(h, pcts, npct)) || set(o, "hist", hist_to_json(h));
        hist_free(h);
        if (bad) {
                json_decref(o);
                if (!err[0])
                        snprintf(err, errlen, "out of memory");
                return NULL;
        }
        return o;
}

/* I/Os a client did within [lo, hi] of the controller's clock. */
static double ios_within(const struct blk_client_point *c, double lo, double hi)
{
        const json_t *iv = json_object_get(c->point, "intervals"), *x;
        double prev = 0, got = 0, total;
        size_t i;

        if (hi <= lo)
                return 0;
        if (!json_array_size(iv)) { /* no series: a steady rate over its window */
                double len = c->end_s - c->start_s;
                total = num(json_object_get(c->point, "read"), "ios") +
                        num(json_object_get(c->point, "write"), "ios");
                return len > 0
                           ? total *
                                 fmin(1, fmax(0, fmin(hi, c->end_s) - fmax(lo, c->start_s)) / len)
                           : 0;
        }
        json_array_foreach(iv, i, x)
        {
                double t = num(x, "t"), a = c->start_s + prev, b = c->start_s + t;
                double ios = (num(x, "read_iops") + num(x, "write_iops")) * (t - prev);
                double ov = fmin(b, hi) - fmax(a, lo);
                if (b > a && ov > 0)
                        got += ios * ov / (b - a);
                prev = t;
        }
        return got;
}

static json_t *wall(double ios, double secs)
{
        return json_pack("{s:f,s:f}", "iops", secs > 0 ? ios / secs : 0.0, "seconds",
                         secs > 0 ? secs : 0.0);
}

/* stonewall{first, last, mode} over the clients that gave a point. */
static json_t *stonewall(const struct blk_client_point *c, unsigned n, int last_mode)
{
        double lo = 0, hi = 0, first_lo = 0, first_hi = 0, all = 0, inside = 0;
        int any = 0;

        for (unsigned i = 0; i < n; i++) {
                if (!c[i].point)
                        continue;
                if (!any || c[i].start_s < lo)
                        lo = c[i].start_s;
                if (!any || c[i].end_s > hi)
                        hi = c[i].end_s;
                if (!any || c[i].start_s > first_lo)
                        first_lo = c[i].start_s;
                if (!any || c[i].end_s < first_hi)
                        first_hi = c[i].end_s;
                any = 1;
                all += num(json_object_get(c[i].point, "read"), "ios") +
                       num(json_object_get(c[i].point, "write"), "ios");
        }
        for (unsigned i = 0; i < n; i++)
                if (c[i].point)
                        inside += ios_within(&c[i], first_lo, first_hi);
        return json_pack("{s:o,s:o,s:s}", "first", wall(inside, first_hi - first_lo), "last",
                         wall(all, hi - lo), "mode", last_mode ? "last" : "first");
}

/* The clients' series summed into bins of their own step, from the earliest start. */
static json_t *aligned_intervals(const struct blk_client_point *c, unsigned n)
{
        double t0 = 0, step = 0, end = 0;
        int any = 0;

        for (unsigned i = 0; i < n; i++) {
                const json_t *iv = json_object_get(c[i].point, "intervals");
                if (!json_array_size(iv))
                        continue;
                double s = num(json_array_get(iv, 0), "t");
                if (!any || c[i].start_s < t0)
                        t0 = c[i].start_s;
                if (s > 0 && (step == 0 || s < step))
                        step = s;
                double e = c[i].start_s + num(json_array_get(iv, json_array_size(iv) - 1), "t");
                end = fmax(end, e);
                any = 1;
        }
        json_t *out = json_array();
        if (!any || step <= 0 || !out)
                return out;
        size_t nb = (size_t)ceil((end - t0) / step - 1e-9);
        if (nb > MAX_BINS)
                nb = MAX_BINS;
        for (size_t b = 0; b < nb; b++) {
                double lo = t0 + b * step, hi = lo + step, r = 0, w = 0;
                for (unsigned i = 0; i < n; i++) {
                        const json_t *iv = json_object_get(c[i].point, "intervals"), *x;
                        double prev = 0;
                        size_t k;
                        json_array_foreach(iv, k, x)
                        {
                                double t = num(x, "t"), a = c[i].start_s + prev,
                                       e = c[i].start_s + t, ov = fmin(e, hi) - fmax(a, lo);
                                if (e > a && ov > 0) {
                                        r += num(x, "read_iops") * ov;
                                        w += num(x, "write_iops") * ov;
                                }
                                prev = t;
                        }
                }
                if (json_array_append_new(out,
                                          json_pack("{s:f,s:f,s:f}", "t", (b + 1) * step,
                                                    "read_iops", r / step, "write_iops", w / step)))
                        break;
        }
        return out;
}

static json_t *client_entry(const struct blk_client_point *c, double runtime_s, const double *pcts,
                            unsigned npct)
{
        char why[256] = "";
        struct hist *h = merged_hist(c, 1, NULL, why, sizeof(why));
        const json_t *cpu = json_object_get(c->point, "cpu");
        json_t *lat = json_object(), *o;

        if (h && hist_count(h)) {
                json_t *full = hist_lat_json(h, pcts, npct);
                json_object_set(lat, "mean", json_object_get(full, "mean"));
                json_object_set(lat, "percentile", json_object_get(full, "percentile"));
                json_decref(full);
        }
        hist_free(h);
        o = json_pack(
            "{s:s,s:s,s:s,s:O,s:f,s:f,s:o,s:f,s:f,s:b,s:O,s:O}", "name", c->name, "where",
            c->where ? c->where : "local", "host", c->host ? c->host : "", "targets",
            c->targets ? c->targets : json_null(), "iops", client_iops(c), "bw_bytes",
            num(json_object_get(c->point, "read"), "bw_bytes") +
                num(json_object_get(c->point, "write"), "bw_bytes"),
            "lat_ns", lat, "cpu_s", num(cpu, "process_user_s") + num(cpu, "process_system_s"),
            "start_skew_ms", c->skew_ms, "late",
            fabs(c->skew_ms) > BLK_CLIENT_LATE_SHARE * runtime_s * 1000, "read",
            json_object_get(c->point, "read") ? json_object_get(c->point, "read") : json_null(),
            "write",
            json_object_get(c->point, "write") ? json_object_get(c->point, "write") : json_null());
        if (o)
                json_object_set_new(o, "error", c->error ? json_string(c->error) : json_null());
        if (o && c->carrier)
                json_object_set_new(o, "carrier", json_string(c->carrier));
        if (o && c->point) {
                json_object_set_new(o, "runtime_s", json_real(num(c->point, "runtime_s")));
                json_object_set_new(o, "window_s",
                                    json_pack("{s:f,s:f}", "start", c->start_s - c->go_s, "end",
                                              c->end_s - c->go_s));
        }
        return o;
}

/* clients[], slowest, client_iops{min,max}, degraded[], cpu, runtime_s into agg. */
static int add_clients(json_t *agg, const struct blk_client_point *c, unsigned n, double runtime_s,
                       const double *pcts, unsigned npct)
{
        json_t *arr = json_array(), *degraded = json_array();
        double lo = 0, hi = 0, usr = 0, sys = 0, rt = 0;
        const char *slowest = NULL;
        int bad = !arr || !degraded;

        for (unsigned i = 0; !bad && i < n; i++) {
                bad = json_array_append_new(arr, client_entry(&c[i], runtime_s, pcts, npct));
                if (!c[i].point) {
                        bad = bad || json_array_append_new(degraded, json_string(c[i].name));
                        continue;
                }
                double x = client_iops(&c[i]);
                if (!slowest || x < lo) {
                        lo = x;
                        slowest = c[i].name;
                }
                hi = fmax(hi, x);
                const json_t *cpu = json_object_get(c[i].point, "cpu");
                usr += num(cpu, "process_user_s");
                sys += num(cpu, "process_system_s");
                rt = fmax(rt, num(c[i].point, "runtime_s"));
        }
        if (bad) {
                json_decref(arr);
                json_decref(degraded);
                return -ENOMEM;
        }
        bad =
            set(agg, "clients", arr) || set(agg, "n_clients", json_integer(n)) ||
            set(agg, "slowest", slowest ? json_string(slowest) : json_null()) ||
            set(agg, "client_iops", json_pack("{s:f,s:f}", "min", lo, "max", hi)) ||
            set(agg, "runtime_s", json_real(rt)) ||
            set(agg, "cpu", json_pack("{s:f,s:f}", "process_user_s", usr, "process_system_s", sys));
        if (!bad && json_array_size(degraded))
                return set(agg, "degraded", degraded);
        json_decref(degraded);
        return bad ? -ENOMEM : 0;
}

/* rw, bs, iodepth, rwmixread of the first client that gave a point. */
static const json_t *shape_of(const struct blk_client_point *c, unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                if (json_is_string(json_object_get(c[i].point, "rw")))
                        return c[i].point;
        return NULL;
}

json_t *blk_clients_aggregate(const struct blk_client_point *c, unsigned n, double runtime_s,
                              const double *pcts, unsigned npct, int stonewall_last, char *err,
                              size_t errlen)
{
        static const char *const shape[] = {"rw", "bs", "iodepth", "rwmixread"};
        const json_t *first = shape_of(c, n);
        json_t *agg;
        int bad;

        if (errlen)
                err[0] = 0;
        if (!first) {
                snprintf(err, errlen, "none of the %u clients gave a result for this point", n);
                return NULL;
        }
        if (!(agg = json_object())) {
                snprintf(err, errlen, "out of memory");
                return NULL;
        }
        bad = 0;
        for (unsigned k = 0; !bad && k < 4; k++)
                if (json_object_get(first, shape[k]))
                        bad = json_object_set(agg, shape[k], json_object_get(first, shape[k]));
        json_t *rd = bad ? NULL : agg_dir(c, n, "read", pcts, npct, err, errlen);
        json_t *wr = rd ? agg_dir(c, n, "write", pcts, npct, err, errlen) : NULL;
        bad = !rd || !wr;
        if (bad) {
                json_decref(rd);
                json_decref(wr);
        }
        bad = bad || set(agg, "read", rd) || set(agg, "write", wr);
        bad =
            bad ||
            set(agg, "errors", json_integer((json_int_t)(num(rd, "errors") + num(wr, "errors")))) ||
            add_clients(agg, c, n, runtime_s, pcts, npct) < 0 ||
            set(agg, "stonewall", stonewall(c, n, stonewall_last)) ||
            set(agg, "intervals", aligned_intervals(c, n));
        if (bad) {
                json_decref(agg);
                if (!err[0])
                        snprintf(err, errlen, "out of memory");
                return NULL;
        }
        return agg;
}
