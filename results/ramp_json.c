/*
 * ramp_json.c - load ramps from JSON: fio's --output-format=json and
 * hcisweep's own result files.
 *
 * fio writes one document per run, so a ramp over iodepth is often several
 * documents concatenated in one file; they are read one after another and
 * the line of any parse error is counted from the start of the file (fio's
 * "note: ..." lines, printed on stdout too, are skipped). Within
 * one fio document, jobs of equal iodepth ran side by side (numjobs), so
 * their IOPS add up; across documents, equal iodepths are repeats and are
 * averaged by ramp_normalise(). The fio layout `hcisweep block` writes
 * ("fio version": "hcisweep-...") is a sweep whose jobs ran one after
 * another: one ramp per rw and bs, as for hcisweep's own block results.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/parse.h"
#include "core/resfile.h"
#include "results/ramp.h"
#include "results/ramp_priv.h"
#include "results/tip_json.h"
#include "results/tip_scan.h"

/* ios-weighted latency accumulator of one sweep point. */
struct lat_acc {
        double ios, sum_ms;
};

static double num(const json_t *j, const char *key)
{
        const json_t *v = json_object_get(j, key);

        if (json_is_number(v))
                return json_number_value(v);
        if (json_is_string(v)) {
                double d;

                if (!ramp_num(json_string_value(v), &d))
                        return d;
        }
        return NAN;
}

static void lat_add(struct lat_acc *a, double ios, double mean_ns)
{
        if (ios > 0 && isfinite(mean_ns)) {
                a->ios += ios;
                a->sum_ms += ios * mean_ns / 1e6;
        }
}

static double lat_mean(const struct lat_acc *a)
{
        return a->ios > 0 ? a->sum_ms / a->ios : NAN;
}

/* ---- fio ---------------------------------------------------------------- */

/* One fio direction: IOPS, and its ios-weighted total latency (clat when lat is absent). */
static double fio_dir(const json_t *job, const char *dir, struct lat_acc *acc)
{
        const json_t *d = json_object_get(job, dir);
        double iops = num(d, "iops"), ios = num(d, "total_ios"), mean;

        if (!json_is_object(d) || !isfinite(iops))
                return 0;
        mean = num(json_object_get(d, "lat_ns"), "mean");
        if (!isfinite(mean))
                mean = num(json_object_get(d, "clat_ns"), "mean");
        lat_add(acc, isfinite(ios) ? ios : iops, mean);
        return iops;
}

static double fio_iodepth(const json_t *doc, const json_t *job)
{
        double qd = num(json_object_get(job, "job options"), "iodepth");

        if (!isfinite(qd))
                qd = num(json_object_get(doc, "global options"), "iodepth");
        return isfinite(qd) ? qd : 1; /* fio's default */
}

static int fio_doc(const json_t *doc, struct ramp *r, unsigned line, char *err, size_t errlen)
{
        const json_t *jobs = json_object_get(doc, "jobs");
        unsigned n = (unsigned)json_array_size(jobs), first = r->n;
        struct lat_acc *acc = calloc(n ? n : 1, sizeof(*acc));
        int rc = 0;

        if (!acc)
                return -ENOMEM;
        if (!json_is_array(jobs) || !n) {
                rc = errf(err, errlen, -EINVAL, "line %u: fio output without jobs[]", line);
                goto out;
        }
        for (unsigned i = 0; !rc && i < n; i++) {
                const json_t *job = json_array_get(jobs, i);
                double qd = fio_iodepth(doc, job);
                struct lat_acc a = {0, 0};
                double iops = fio_dir(job, "read", &a) + fio_dir(job, "write", &a);
                unsigned k = first;

                while (k < r->n && r->p[k].load != qd)
                        k++;
                if (k == r->n)
                        rc = ramp_add(r, qd, 0, NAN);
                if (rc)
                        break;
                r->p[k].tput += iops;
                acc[k - first].ios += a.ios;
                acc[k - first].sum_ms += a.sum_ms;
                r->p[k].lat_ms = lat_mean(&acc[k - first]);
        }
out:
        free(acc);
        return rc;
}

/* ---- hcisweep results ----------------------------------------------------- */

static struct ramp *group_of(struct ramp_set *s, unsigned first, const char *name)
{
        for (unsigned i = first; i < s->n; i++)
                if (!strcmp(s->r[i].name, name))
                        return &s->r[i];
        return ramp_set_push(s, name, "iodepth", "iops", "mean");
}

/*
 * A client-count scan's points (the result has scan[]): one ramp per rw, bs
 * and iodepth over the client count, each point read as the scan's verdict
 * reads it (tip_scan.h: its hosts too), so analyze gives block's verdict.
 */
static int hs_block_scan(const json_t *pts, struct ramp_set *s, unsigned line, char *err,
                         size_t errlen)
{
        unsigned first = s->n;
        const json_t *p;
        size_t i;

        json_array_foreach(pts, i, p)
        {
                const json_t *rw = json_object_get(p, "rw");
                double bs = num(p, "bs"), qd = num(p, "iodepth");
                struct res_scan_step st;
                char name[96], size[32];
                struct ramp *r;

                if (!json_is_string(rw) || !isfinite(bs) || !isfinite(qd) ||
                    res_scan_step_of_point(p, &st))
                        return errf(err, errlen, -EINVAL,
                                    "line %u: points[%zu] lacks rw, bs, iodepth or n_clients", line,
                                    i);
                fmt_size((uint64_t)bs, size, sizeof(size));
                snprintf(name, sizeof(name), "%s %s qd %g", json_string_value(rw), size, qd);
                r = group_of(s, first, name);
                if (!r)
                        return -ENOMEM;
                snprintf(r->load_name, sizeof(r->load_name), "clients");
                if (ramp_add_step(r, &st.st, st.mean_us > 0 ? st.mean_us / 1e3 : NAN))
                        return -ENOMEM;
        }
        return 0;
}

static int hs_block(const json_t *doc, struct ramp_set *s, unsigned line, char *err, size_t errlen)
{
        const json_t *pts = json_object_get(doc, "points"), *p;
        unsigned first = s->n;
        size_t i;

        if (!json_is_array(pts) || !json_array_size(pts))
                return errf(err, errlen, -EINVAL, "line %u: block result without points[]", line);
        if (json_is_array(json_object_get(doc, "scan")))
                return hs_block_scan(pts, s, line, err, errlen);
        json_array_foreach(pts, i, p)
        {
                const json_t *rw = json_object_get(p, "rw");
                double bs = num(p, "bs"), qd = num(p, "iodepth");
                struct lat_acc a = {0, 0};
                char name[96], size[32];
                struct ramp *r;
                double iops;

                if (!json_is_string(rw) || !isfinite(bs) || !isfinite(qd))
                        return errf(err, errlen, -EINVAL,
                                    "line %u: points[%zu] lacks rw, bs or iodepth", line, i);
                fmt_size((uint64_t)bs, size, sizeof(size));
                snprintf(name, sizeof(name), "%s %s", json_string_value(rw), size);
                r = group_of(s, first, name);
                if (!r)
                        return -ENOMEM;
                iops = 0;
                for (int d = 0; d < 2; d++) {
                        const json_t *dj = json_object_get(p, d ? "write" : "read");
                        double v = num(dj, "iops");

                        iops += isfinite(v) ? v : 0;
                        lat_add(&a, num(dj, "ios"), num(json_object_get(dj, "lat_ns"), "mean"));
                }
                if (ramp_add(r, qd, iops, lat_mean(&a)))
                        return -ENOMEM;
        }
        return 0;
}

/* The percentile an interval reports, preferring sysbench's default p95. */
static const char *pick_pct(const json_t *pct)
{
        static const char *const keys[] = {"95.0", "99.0", "50.0", NULL};

        for (unsigned i = 0; keys[i]; i++)
                if (json_object_get(pct, keys[i]))
                        return keys[i];
        return json_object_size(pct) ? json_object_iter_key(json_object_iter((json_t *)pct)) : NULL;
}

static int hs_oltp(const json_t *doc, struct ramp_set *s, unsigned line, char *err, size_t errlen)
{
        const json_t *iv = json_object_get(doc, "intervals"), *x;
        struct ramp *r;
        size_t i;

        if (!json_is_array(iv) || !json_array_size(iv))
                return errf(err, errlen, -EINVAL, "line %u: oltp result without intervals[]", line);
        r = ramp_set_push(s, "", "t_s", "tps", "");
        if (!r)
                return -ENOMEM;
        json_array_foreach(iv, i, x)
        {
                const json_t *pct = json_object_get(json_object_get(x, "lat_ns"), "percentile");
                const char *key = pick_pct(pct);
                double t = num(x, "t"), tps = num(x, "tps");

                if (!isfinite(t) || !isfinite(tps))
                        return errf(err, errlen, -EINVAL, "line %u: intervals[%zu] lacks t or tps",
                                    line, i);
                if (key && !r->lat_name[0])
                        snprintf(r->lat_name, sizeof(r->lat_name), "p%g", atof(key));
                if (ramp_add(r, t, tps, key ? num(pct, key) / 1e6 : NAN))
                        return -ENOMEM;
        }
        return 0;
}

/* Steps as tip_json.h reads them, so analyze agrees with the run's own tipping point. */
static int hs_scale(const json_t *doc, struct ramp_set *s, unsigned line, char *err, size_t errlen)
{
        const json_t *steps = json_object_get(doc, "steps"), *x;
        struct ramp *r;
        size_t i;

        if (!json_is_array(steps) || !json_array_size(steps))
                return errf(err, errlen, -EINVAL, "line %u: scale result without steps[]", line);
        r = ramp_set_push(s, "", "vms", "tps", "mean");
        if (!r)
                return -ENOMEM;
        json_array_foreach(steps, i, x)
        {
                double lat = num(json_object_get(x, "lat_ns"), "mean");
                struct res_tip_step st;
                int ok = res_tip_step_from_json(x, &st);

                if (ok < 0)
                        return errf(err, errlen, -EINVAL,
                                    "line %u: steps[%zu] lacks vms or totals.tps", line, i);
                if (ok && ramp_add_step(r, &st, lat / 1e6))
                        return -ENOMEM;
        }
        return 0;
}

static int hs_doc(const json_t *doc, struct ramp_set *s, unsigned line, char *err, size_t errlen)
{
        double ver = num(doc, "schema_version");
        const char *kind = json_string_value(json_object_get(doc, "kind"));

        if (!isfinite(ver) || ver > RES_SCHEMA_VERSION)
                return errf(err, errlen, -EINVAL,
                            "line %u: result schema_version %g is newer than this hcisweep "
                            "reads (%d): upgrade hcisweep",
                            line, ver, RES_SCHEMA_VERSION);
        snprintf(s->format, sizeof(s->format), "hcisweep-%s", kind ? kind : "?");
        if (kind && !strcmp(kind, "block"))
                return hs_block(doc, s, line, err, errlen);
        if (kind && !strcmp(kind, "oltp"))
                return hs_oltp(doc, s, line, err, errlen);
        if (kind && !strcmp(kind, "scale"))
                return hs_scale(doc, s, line, err, errlen);
        return errf(err, errlen, -EINVAL, "line %u: a result of kind '%s' holds no load ramp", line,
                    kind ? kind : "(none)");
}

/*
 * fio's layout written by `hcisweep block --output-format fio-json`: its jobs
 * ran one after another (one per sweep point), so each is a point of the
 * ramp of its rw and bs, never summed with another job of the same iodepth.
 */
static int hs_fio_doc(const json_t *doc, struct ramp_set *s, unsigned line, char *err,
                      size_t errlen)
{
        const json_t *jobs = json_object_get(doc, "jobs"), *job;
        unsigned first = s->n;
        size_t i;

        if (!json_is_array(jobs) || !json_array_size(jobs))
                return errf(err, errlen, -EINVAL, "line %u: fio output without jobs[]", line);
        json_array_foreach(jobs, i, job)
        {
                const json_t *o = json_object_get(job, "job options");
                const char *rw = json_string_value(json_object_get(o, "rw"));
                const char *bs = json_string_value(json_object_get(o, "bs"));
                struct lat_acc a = {0, 0};
                char name[96];
                struct ramp *r;
                double iops;

                snprintf(name, sizeof(name), "%s %s", rw ? rw : "?", bs ? bs : "?");
                if (!(r = group_of(s, first, name)))
                        return -ENOMEM;
                iops = fio_dir(job, "read", &a) + fio_dir(job, "write", &a);
                if (ramp_add(r, fio_iodepth(doc, job), iops, lat_mean(&a)))
                        return -ENOMEM;
        }
        return 0;
}

/* ---- documents ------------------------------------------------------------ */

static unsigned count_lines(const char *p, size_t n)
{
        unsigned k = 0;

        while (n--)
                k += *p++ == '\n';
        return k;
}

static int one_doc(json_t *doc, const char *dir, struct ramp_set *s, unsigned line, char *err,
                   size_t errlen)
{
        if (!json_is_object(doc))
                return errf(err, errlen, -EINVAL, "line %u: expected a JSON object", line);
        const char *fio = json_string_value(json_object_get(doc, "fio version"));

        if (fio && !strncmp(fio, "hcisweep-", 9) && !s->n) {
                snprintf(s->format, sizeof(s->format), "fio");
                return hs_fio_doc(doc, s, line, err, errlen);
        }
        if (json_object_get(doc, "fio version") || json_object_get(doc, "jobs")) {
                if (!s->n && !ramp_set_push(s, "", "iodepth", "iops", "mean"))
                        return -ENOMEM;
                snprintf(s->format, sizeof(s->format), "fio");
                return fio_doc(doc, &s->r[0], line, err, errlen);
        }
        if (json_object_get(doc, "schema_version") && json_object_get(doc, "kind")) {
                /* a result's series in the files beside it (core/resfile.h) */
                int rc = dir ? res_series_resolve(doc, dir, err, errlen) : 0;

                return rc ? rc : hs_doc(doc, s, line, err, errlen);
        }
        return errf(err, errlen, -EINVAL,
                    "line %u: JSON is neither fio output nor an hcisweep result", line);
}

int ramp_parse_json(const char *buf, size_t len, struct ramp_set *out, char *err, size_t errlen)
{
        return ramp_parse_json_at(buf, len, NULL, out, err, errlen);
}

int ramp_parse_json_at(const char *buf, size_t len, const char *dir, struct ramp_set *out,
                       char *err, size_t errlen)
{
        size_t off = 0;
        unsigned line = 1;
        int rc = 0;

        memset(out, 0, sizeof(*out));
        while (!rc) {
                json_error_t e;
                json_t *doc;

                off = ramp_skip_noise(buf, len, off, &line);
                if (off >= len)
                        break;
                doc = json_loadb(buf + off, len - off, JSON_DISABLE_EOF_CHECK, &e);
                if (!doc) {
                        rc = errf(err, errlen, -EINVAL, "line %u: JSON: %s", line + e.line - 1,
                                  e.text);
                        break;
                }
                if (out->n && strcmp(out->format, "fio") != 0)
                        rc = errf(err, errlen, -EINVAL,
                                  "line %u: only fio output may hold several "
                                  "JSON documents",
                                  line);
                else
                        rc = one_doc(doc, dir, out, line, err, errlen);
                json_decref(doc);
                line += count_lines(buf + off, (size_t)e.position);
                off += (size_t)e.position;
        }
        if (rc == -ENOMEM)
                snprintf(err, errlen, "out of memory");
        for (unsigned i = 0; !rc && i < out->n; i++)
                ramp_normalise(&out->r[i]);
        if (rc)
                ramp_set_free(out);
        return rc;
}
