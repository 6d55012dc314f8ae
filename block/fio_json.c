/*
 * fio_json.c - a block result rewritten in fio's JSON layout (see
 * fio_json.h for the mapping). Pure transformation of the result JSON:
 * everything comes from the points, their raw histograms and the config
 * echo, so a saved result can be converted the same way as a live one.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/hist.h"
#include "core/resfile.h"
#include "block/fio_json.h"

const char *const blk_fio_format_names[] = {"json", "fio-json", "fio-json+", NULL};

/* fio's default percentile_list. */
static const double fio_pcts[] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                  80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
#define NFIO_PCTS (sizeof(fio_pcts) / sizeof(fio_pcts[0]))
#define MAX_PCTS  64

static int set(json_t *o, const char *k, json_t *v)
{
        return json_object_set_new(o, k, v) ? -ENOMEM : 0;
}

static json_t *u64(uint64_t v)
{
        return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static double num(const json_t *o, const char *k)
{
        const json_t *v = json_object_get(o, k);
        return json_is_number(v) ? json_number_value(v) : 0;
}

/* fio echoes options as text: "4k", "16", "randread". */
static json_t *as_text(const json_t *v)
{
        char buf[64];

        if (json_is_string(v))
                return json_string(json_string_value(v));
        if (json_is_integer(v))
                snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        else if (json_is_real(v))
                snprintf(buf, sizeof(buf), "%g", json_real_value(v));
        else if (json_is_boolean(v))
                snprintf(buf, sizeof(buf), "%d", json_is_true(v));
        else
                return NULL;
        return json_string(buf);
}

static void size_text(uint64_t b, char *buf, size_t len)
{
        if (b && b % (1u << 20) == 0)
                snprintf(buf, len, "%" PRIu64 "m", b >> 20);
        else if (b && b % 1024 == 0)
                snprintf(buf, len, "%" PRIu64 "k", b >> 10);
        else
                snprintf(buf, len, "%" PRIu64, b);
}

/* The sorted union of fio's default percentiles and the run's own. */
static unsigned percentiles(const json_t *config, double *out)
{
        const json_t *mine = json_object_get(config, "percentile");
        unsigned n = 0;

        for (unsigned i = 0; i < NFIO_PCTS; i++)
                out[n++] = fio_pcts[i];
        for (size_t i = 0; i < json_array_size(mine) && n < MAX_PCTS; i++) {
                double p = json_number_value(json_array_get(mine, i));
                unsigned k = 0;
                while (k < n && out[k] != p)
                        k++;
                if (k == n && p > 0 && p <= 100)
                        out[n++] = p;
        }
        for (unsigned i = 1; i < n; i++) /* insertion sort: a few dozen entries */
                for (unsigned k = i; k > 0 && out[k - 1] > out[k]; k--) {
                        double t = out[k];
                        out[k] = out[k - 1];
                        out[k - 1] = t;
                }
        return n;
}

/* {min,max,mean,stddev,N} of a histogram, as fio writes every *lat_ns. */
static json_t *lat_stats(const struct hist *h)
{
        return json_pack("{s:o,s:o,s:f,s:f,s:o}", "min", u64(hist_min(h)), "max", u64(hist_max(h)),
                         "mean", hist_count(h) ? hist_mean(h) : 0.0, "stddev",
                         hist_count(h) ? hist_stddev(h) : 0.0, "N", u64(hist_count(h)));
}

static json_t *pct_object(const struct hist *h, const double *p, unsigned np)
{
        json_t *o = json_object();
        char key[32];

        for (unsigned i = 0; o && i < np; i++) {
                snprintf(key, sizeof(key), "%f", p[i]);
                if (set(o, key, u64(hist_percentile(h, p[i])))) {
                        json_decref(o);
                        return NULL;
                }
        }
        return o;
}

/* json+ bins: every non-empty bucket, keyed by its midpoint in ns. */
static json_t *bins(const json_t *hj)
{
        const json_t *buckets = json_object_get(hj, "buckets"), *pair;
        json_t *o = json_object();
        size_t i;
        char key[32];

        json_array_foreach(buckets, i, pair)
        {
                uint64_t lo, hi;
                hist_bucket_range((unsigned)json_integer_value(json_array_get(pair, 0)), &lo, &hi);
                snprintf(key, sizeof(key), "%" PRIu64, lo + (hi - lo) / 2);
                if (!o || set(o, key, u64((uint64_t)json_integer_value(json_array_get(pair, 1))))) {
                        json_decref(o);
                        return NULL;
                }
        }
        return o;
}

static json_t *clat(const struct hist *h, const json_t *hj, const double *p, unsigned np, int plus)
{
        json_t *c = lat_stats(h);

        if (!c || !hist_count(h))
                return c;
        if (set(c, "percentile", pct_object(h, p, np)) || (plus && set(c, "bins", bins(hj)))) {
                json_decref(c);
                return NULL;
        }
        return c;
}

/* min, max, mean, sample stddev and count of one series (fio's bw_* / iops_*). */
struct series {
        double min, max, mean, dev;
        unsigned n;
};

static struct series series_of(const json_t *intervals, const char *key, double scale)
{
        struct series s = {0, 0, 0, 0, 0};
        double sum = 0, sumsq = 0;
        const json_t *iv;
        size_t i;

        json_array_foreach(intervals, i, iv)
        {
                double v = num(iv, key) * scale;
                if (!s.n || v < s.min)
                        s.min = v;
                if (!s.n || v > s.max)
                        s.max = v;
                sum += v;
                sumsq += v * v;
                s.n++;
        }
        if (s.n) {
                s.mean = sum / s.n;
                if (s.n > 1)
                        s.dev = sqrt(fmax(0, (sumsq - sum * sum / s.n) / (s.n - 1)));
        }
        return s;
}

static int add_series(json_t *d, const char *prefix, const char *devname, struct series s)
{
        char k[5][32];

        snprintf(k[0], 32, "%s_min", prefix);
        snprintf(k[1], 32, "%s_max", prefix);
        snprintf(k[2], 32, "%s_mean", prefix);
        snprintf(k[3], 32, "%s_%s", prefix, devname);
        snprintf(k[4], 32, "%s_samples", prefix);
        return set(d, k[0], json_integer((json_int_t)llround(s.min))) ||
               set(d, k[1], json_integer((json_int_t)llround(s.max))) ||
               set(d, k[2], json_real(s.mean)) || set(d, k[3], json_real(s.dev)) ||
               set(d, k[4], json_integer(s.n));
}

/* One fio direction ("read", "write", or NULL for the empty "trim"). */
static json_t *direction(const json_t *point, const char *dir, const double *p, unsigned np,
                         int plus)
{
        const json_t *d = dir ? json_object_get(point, dir) : NULL;
        const json_t *hj = json_object_get(d, "hist");
        double secs = num(point, "runtime_s"), bs = num(point, "bs");
        uint64_t ios = (uint64_t)num(d, "ios"), bytes = (uint64_t)num(d, "bytes");
        struct hist *h = hist_new();
        char key[16], why[256];
        json_t *o = json_object();
        int bad = !h || !o;

        if (!bad && hj && hist_add_json(h, hj, why, sizeof(why)) < 0)
                bad = 1;
        snprintf(key, sizeof(key), "%s_iops", dir ? dir : "trim");
        struct series si = series_of(json_object_get(point, "intervals"), key, 1);
        struct series sb = series_of(json_object_get(point, "intervals"), key, bs / 1024);
        if (!dir)
                si.n = sb.n = 0;
        bad = bad || set(o, "io_bytes", u64(bytes)) || set(o, "io_kbytes", u64(bytes >> 10)) ||
              set(o, "bw_bytes", u64(secs > 0 ? (uint64_t)(bytes / secs) : 0)) ||
              set(o, "bw", u64(secs > 0 ? (uint64_t)(bytes / secs / 1024) : 0)) ||
              set(o, "iops", json_real(secs > 0 ? ios / secs : 0)) ||
              set(o, "runtime", json_integer(ios ? (json_int_t)llround(secs * 1000) : 0)) ||
              set(o, "total_ios", u64(ios)) || set(o, "short_ios", json_integer(0)) ||
              set(o, "drop_ios", json_integer(0)) ||
              set(o, "slat_ns",
                  json_pack("{s:i,s:i,s:f,s:f,s:i}", "min", 0, "max", 0, "mean", 0.0, "stddev", 0.0,
                            "N", 0)) ||
              set(o, "clat_ns", clat(h, hj, p, np, plus)) || set(o, "lat_ns", lat_stats(h)) ||
              add_series(o, "bw", "dev", sb) || set(o, "bw_agg", json_real(ios ? 100.0 : 0)) ||
              add_series(o, "iops", "stddev", si);
        hist_free(h);
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static const char *engine_of(const json_t *config)
{
        const char *e = json_string_value(json_object_get(config, "engine"));

        if (e && strcmp(e, "auto") != 0)
                return e;
        return json_is_string(json_object_get(config, "target")) ? "libiscsi" : "io_uring";
}

static json_t *job_options(const json_t *config, const json_t *point, const char *name)
{
        static const char *const echoed[] = {"numjobs", "runtime", "ramp-time", "size", "direct"};
        const char *rw = json_string_value(json_object_get(point, "rw"));
        json_t *o = json_object();
        char bs[32];
        int bad = !o;

        size_text((uint64_t)num(point, "bs"), bs, sizeof(bs));
        bad = bad || set(o, "name", json_string(name)) ||
              set(o, "ioengine", json_string(engine_of(config))) ||
              set(o, "rw", json_string(rw ? rw : "")) || set(o, "bs", json_string(bs)) ||
              set(o, "iodepth", as_text(json_object_get(point, "iodepth")));
        if (!bad && json_object_get(point, "rwmixread"))
                bad = set(o, "rwmixread", as_text(json_object_get(point, "rwmixread")));
        for (unsigned i = 0; !bad && i < sizeof(echoed) / sizeof(echoed[0]); i++) {
                const json_t *v = json_object_get(config, echoed[i]);
                char key[32];
                snprintf(key, sizeof(key), "%s", echoed[i]);
                if (!strcmp(key, "ramp-time"))
                        snprintf(key, sizeof(key), "ramp_time");
                if (v)
                        bad = set(o, key, as_text(v));
        }
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static json_t *job(const json_t *config, const json_t *point, unsigned idx, const double *p,
                   unsigned np, int plus)
{
        double secs = num(point, "runtime_s");
        const json_t *cpu = json_object_get(point, "cpu");
        const char *rw = json_string_value(json_object_get(point, "rw"));
        char name[96], bs[32];
        json_t *j = json_object();
        int bad = !j;

        size_text((uint64_t)num(point, "bs"), bs, sizeof(bs));
        snprintf(name, sizeof(name), "%s-%s-qd%lld", rw ? rw : "?", bs,
                 (long long)num(point, "iodepth"));
        bad =
            bad || set(j, "jobname", json_string(name)) || set(j, "groupid", json_integer(idx)) ||
            set(j, "error", json_integer(json_object_get(point, "failed") ? EIO : 0)) ||
            set(j, "eta", json_integer(0)) ||
            set(j, "elapsed", json_integer((json_int_t)llround(secs))) ||
            set(j, "job options", job_options(config, point, name)) ||
            set(j, "read", direction(point, "read", p, np, plus)) ||
            set(j, "write", direction(point, "write", p, np, plus)) ||
            set(j, "trim", direction(point, NULL, p, np, plus)) ||
            set(j, "job_runtime", json_integer((json_int_t)llround(secs * 1000))) ||
            set(j, "usr_cpu", json_real(secs > 0 ? 100 * num(cpu, "process_user_s") / secs : 0)) ||
            set(j, "sys_cpu",
                json_real(secs > 0 ? 100 * num(cpu, "process_system_s") / secs : 0)) ||
            set(j, "ctx", json_integer(0)) || set(j, "majf", json_integer(0)) ||
            set(j, "minf", json_integer(0));
        if (bad) {
                json_decref(j);
                return NULL;
        }
        return j;
}

/* started_at ("2026-12-01T08:49:20Z") as epoch seconds; now when absent or unreadable. */
static time_t started(const json_t *result)
{
        const char *s = json_string_value(json_object_get(result, "started_at"));
        struct tm tm;

        memset(&tm, 0, sizeof(tm));
        if (s && strptime(s, "%Y-%m-%dT%H:%M:%S", &tm))
                return timegm(&tm);
        return time(NULL);
}

/*
 * A client's share of a point, as a point of its own: the point's shape,
 * the client's read, write, runtime and CPU (clients_agg.h's clients[]).
 */
static json_t *client_point(const json_t *point, const json_t *client)
{
        static const char *const shape[] = {"rw", "bs", "iodepth", "rwmixread"};
        static const char *const own[] = {"read", "write", "runtime_s"};
        json_t *p = json_object();
        double cpu = num(client, "cpu_s");

        for (unsigned k = 0; p && k < 4; k++)
                if (json_object_get(point, shape[k]))
                        json_object_set(p, shape[k], json_object_get(point, shape[k]));
        for (unsigned k = 0; p && k < 3; k++)
                if (json_is_object(json_object_get(client, own[k])) ||
                    json_is_number(json_object_get(client, own[k])))
                        json_object_set(p, own[k], json_object_get(client, own[k]));
        if (p) /* the client's whole CPU time (user + system) is all that is known */
                json_object_set_new(
                    p, "cpu",
                    json_pack("{s:f,s:f}", "process_user_s", cpu, "process_system_s", 0.0));
        if (p && json_object_get(client, "error") &&
            !json_is_null(json_object_get(client, "error")))
                json_object_set(p, "failed", json_object_get(client, "error"));
        return p;
}

/* The aggregate's rates are the clients' summed (each over its own window), not ios / max time. */
static int sum_rates(json_t *all, const json_t *point)
{
        static const char *const dirs[] = {"read", "write"};

        for (unsigned d = 0; d < 2; d++) {
                json_t *o = json_object_get(all, dirs[d]);
                const json_t *x = json_object_get(point, dirs[d]);
                double bw = num(x, "bw_bytes");
                if (o && (set(o, "iops", json_real(num(x, "iops"))) ||
                          set(o, "bw_bytes", u64((uint64_t)bw)) ||
                          set(o, "bw", u64((uint64_t)(bw / 1024)))))
                        return -ENOMEM;
        }
        return 0;
}

/*
 * fio's client mode (fio --client): client_stats[] with one entry per
 * client and point, its hostname named, then one "All clients" entry per
 * point (fio itself sums the whole run into one: here every point has its
 * own).
 */
static int client_stats(json_t *doc, const json_t *config, const json_t *points, const double *p,
                        unsigned np, int plus)
{
        json_t *cs = json_array(), *pt, *c;
        size_t i, k;

        if (!cs || set(doc, "client_stats", cs))
                return -ENOMEM;
        json_array_foreach(points, i, pt)
        {
                json_array_foreach(json_object_get(pt, "clients"), k, c)
                {
                        json_t *cp = client_point(pt, c);
                        json_t *j = cp ? job(config, cp, (unsigned)i, p, np, plus) : NULL;
                        json_decref(cp);
                        if (!j ||
                            set(j, "hostname",
                                json_string(json_string_value(json_object_get(c, "host")))) ||
                            set(j, "port", json_integer(0)) ||
                            set(j, "client",
                                json_string(json_string_value(json_object_get(c, "name")))) ||
                            json_array_append_new(cs, j))
                                return -ENOMEM;
                }
                json_t *all = job(config, pt, (unsigned)i, p, np, plus);
                /* fio names the last client's host here; none is the right one */
                if (!all || set(all, "jobname", json_string("All clients")) ||
                    set(all, "hostname", json_string("all clients")) ||
                    set(all, "port", json_integer(0)) || json_object_del(all, "job options") ||
                    sum_rates(all, pt) < 0 || json_array_append_new(cs, all))
                        return -ENOMEM;
        }
        return 0;
}

json_t *blk_fio_from_block(const json_t *result, int plus, char *err, size_t errlen)
{
        const json_t *config = json_object_get(result, "config");
        const json_t *points = json_object_get(result, "points"), *pt;
        const char *kind = json_string_value(json_object_get(result, "kind"));
        double p[MAX_PCTS];
        unsigned np = percentiles(config, p);
        time_t t0 = started(result);
        char ver[64], when[64];
        struct tm tm;
        json_t *doc, *jobs;
        size_t i;

        if (!kind || strcmp(kind, "block") != 0 || !json_is_array(points)) {
                snprintf(err, errlen, "not a block result: fio output holds block sweeps only");
                return NULL;
        }
        snprintf(ver, sizeof(ver), "hcisweep-%s", HCISWEEP_VERSION);
        gmtime_r(&t0, &tm);
        strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
        jobs = json_array();
        doc = json_pack("{s:s,s:I,s:I,s:s,s:o}", "fio version", ver, "timestamp", (json_int_t)t0,
                        "timestamp_ms", (json_int_t)t0 * 1000, "time", when, "jobs", jobs);
        if (json_object_get(json_array_get(points, 0), "clients")) { /* block --clients */
                if (doc && (json_object_del(doc, "jobs") ||
                            client_stats(doc, config, points, p, np, plus) < 0)) {
                        json_decref(doc);
                        doc = NULL;
                }
                if (!doc)
                        snprintf(err, errlen, "out of memory");
                return doc;
        }
        json_array_foreach(points, i, pt)
        {
                if (!doc ||
                    json_array_append_new(jobs, job(config, pt, (unsigned)i, p, np, plus))) {
                        json_decref(doc);
                        snprintf(err, errlen, "out of memory");
                        return NULL;
                }
        }
        if (!doc)
                snprintf(err, errlen, "out of memory");
        return doc;
}

int blk_fio_write(const char *path, const json_t *result, int format, char *err, size_t errlen)
{
        json_t *doc = blk_fio_from_block(result, format == BLK_FMT_FIO_JSON_PLUS, err, errlen);
        int rc;

        if (!doc)
                return -EINVAL;
        rc = res_write_json(path, doc, err, errlen);
        json_decref(doc);
        return rc;
}
