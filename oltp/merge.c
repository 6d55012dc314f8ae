/*
 * merge.c - oltp results merged exactly (see merge.h).
 *
 * Each input is read into a merge of its own first and only then added to
 * the whole, so an input refused halfway through (a field of the wrong
 * type in its last host) leaves the whole untouched: scale marks that VM's
 * part degraded and merges the others.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/resfile.h"
#include "oltp/merge.h"

#define MAX_PCTS 16

struct mrow {
        double t;
        unsigned n; /* inputs that had a row at t */
        double tps, qps, rd, wr, ot, err_s, rec_s, qlen, conc;
        int has_queue;
        uint64_t pct[MAX_PCTS]; /* the largest of the inputs' */
};

struct mhost {
        char name[256];
        unsigned port;
        struct oltp_counts c;
        double tps, qps, down_s;
        int down_at_end, degraded;
        struct hist *lat;
};

struct oltp_merge {
        unsigned n;
        char workload[64];
        double iv_len; /* the first interval's t: the interval length (0: no intervals) */
        double pcts[MAX_PCTS];
        unsigned npct;
        double seconds, tps, qps;
        struct oltp_counts total;
        struct hist *lat, *qwait;
        unsigned threads, event_threads;
        struct mhost *hosts;
        unsigned nhosts;
        struct oltp_host_result *hres; /* for oltp_merge_result */
        struct mrow *rows;
        unsigned nrows;
        json_t *inputs; /* the merge object's list */
        json_t *config; /* the first input's */
        char *partial;  /* "A: why; B: why" or NULL */
        char *error;
        int has_rate, overloaded;
        double target_tps, achieved_tps;
        uint64_t overflows, qw_min, qw_max;
};

struct oltp_merge *oltp_merge_new(void)
{
        struct oltp_merge *m = calloc(1, sizeof(*m));

        if (!m)
                return NULL;
        m->lat = hist_new();
        m->qwait = hist_new();
        m->inputs = json_array();
        m->qw_min = UINT64_MAX;
        if (!m->lat || !m->qwait || !m->inputs) {
                oltp_merge_free(m);
                return NULL;
        }
        return m;
}

void oltp_merge_free(struct oltp_merge *m)
{
        if (!m)
                return;
        for (unsigned i = 0; i < m->nhosts; i++)
                hist_free(m->hosts[i].lat);
        free(m->hosts);
        free(m->hres);
        free(m->rows);
        hist_free(m->lat);
        hist_free(m->qwait);
        json_decref(m->inputs);
        json_decref(m->config);
        free(m->partial);
        free(m->error);
        free(m);
}

unsigned oltp_merge_count(const struct oltp_merge *m)
{
        return m->n;
}

/* ---- reading one input ---- */

struct rd {
        const char *name;
        char *err;
        size_t errlen;
};

static int bad(const struct rd *r, const char *what, const char *key)
{
        snprintf(r->err, r->errlen, "%s: not an oltp result: %s%s%s", r->name, what, key ? " " : "",
                 key ? key : "");
        return -EINVAL;
}

static int get_num(const struct rd *r, const json_t *o, const char *key, double *v)
{
        const json_t *x = json_object_get(o, key);

        if (!json_is_number(x))
                return bad(r, "no number", key);
        *v = json_number_value(x);
        return isfinite(*v) ? 0 : bad(r, "no finite number", key);
}

static int get_u64(const struct rd *r, const json_t *o, const char *key, uint64_t *v)
{
        const json_t *x = json_object_get(o, key);

        if (!json_is_integer(x) || json_integer_value(x) < 0)
                return bad(r, "no count", key);
        *v = (uint64_t)json_integer_value(x);
        return 0;
}

static int get_counts(const struct rd *r, const json_t *t, struct oltp_counts *c, double *tps,
                      double *qps)
{
        const json_t *q = json_object_get(t, "queries");

        if (!json_is_object(t))
                return bad(r, "no object", "totals");
        if (!json_is_object(q))
                return bad(r, "no object", "totals.queries");
        return get_u64(r, t, "transactions", &c->txns) || get_u64(r, q, "read", &c->reads) ||
                       get_u64(r, q, "write", &c->writes) || get_u64(r, q, "other", &c->other) ||
                       get_u64(r, t, "errors", &c->errors) ||
                       get_u64(r, t, "reconnects", &c->reconnects) ||
                       get_u64(r, t, "failed_connects", &c->failed_connects) ||
                       get_num(r, t, "tps", tps) || get_num(r, t, "qps", qps)
                   ? -EINVAL
                   : 0;
}

static int get_hist(const struct rd *r, const json_t *o, struct hist *h, const char *where)
{
        char e[256];

        if (hist_add_json(h, json_object_get(o, "hist"), e, sizeof(e))) {
                snprintf(r->err, r->errlen, "%s: not an oltp result: %s hist: %s", r->name, where,
                         e);
                return -EINVAL;
        }
        return 0;
}

static int read_head(struct oltp_merge *one, const struct rd *r, const json_t *j)
{
        const json_t *ver = json_object_get(j, "schema_version");
        const char *kind = json_string_value(json_object_get(j, "kind"));
        const char *wl =
            json_string_value(json_object_get(json_object_get(j, "config"), "workload"));
        uint64_t thr = 0, ethr = 0;

        if (!json_is_object(j) || !json_is_number(ver))
                return bad(r, "no", "schema_version");
        if (json_number_value(ver) > RES_SCHEMA_VERSION) {
                snprintf(r->err, r->errlen,
                         "%s: schema_version %g is newer than this hcisweep reads", r->name,
                         json_number_value(ver));
                return -EINVAL;
        }
        if (!kind || strcmp(kind, "oltp")) {
                snprintf(r->err, r->errlen, "%s: not an oltp result (kind '%s')", r->name,
                         kind ? kind : "(none)");
                return -EINVAL;
        }
        if (!wl)
                return bad(r, "no", "config.workload");
        snprintf(one->workload, sizeof(one->workload), "%s", wl);
        one->config = json_deep_copy(json_object_get(j, "config"));
        if (!one->config)
                return -ENOMEM;
        if (get_num(r, j, "seconds", &one->seconds) || get_u64(r, j, "threads", &thr))
                return -EINVAL;
        if (json_object_get(j, "event_threads") && get_u64(r, j, "event_threads", &ethr))
                return -EINVAL;
        one->threads = (unsigned)thr;
        one->event_threads = (unsigned)ethr;
        return get_counts(r, json_object_get(j, "totals"), &one->total, &one->tps, &one->qps) ||
                       get_hist(r, j, one->lat, "the")
                   ? -EINVAL
                   : 0;
}

static int read_pcts(struct oltp_merge *one, const struct rd *r, const json_t *j)
{
        const json_t *p = json_object_get(json_object_get(j, "lat_ns"), "percentile"), *v;
        const char *k;

        if (!json_is_object(p))
                return bad(r, "no object", "lat_ns.percentile");
        json_object_foreach((json_t *)p, k, v)
        {
                char *end;
                double x = strtod(k, &end);

                if (*end || !(x > 0 && x <= 100))
                        return bad(r, "a percentile key that is not one", k);
                if (one->npct < MAX_PCTS)
                        one->pcts[one->npct++] = x;
        }
        return 0;
}

static int read_host(struct mhost *h, const struct rd *r, const json_t *o)
{
        const char *name = json_string_value(json_object_get(o, "host"));
        uint64_t port = 0;
        double down = 0;
        const json_t *dae = json_object_get(o, "down_at_end"),
                     *deg = json_object_get(o, "degraded");

        if (!json_is_object(o) || !name)
                return bad(r, "a hosts[] entry without", "host");
        snprintf(h->name, sizeof(h->name), "%s", name);
        if (get_u64(r, o, "port", &port) ||
            get_counts(r, json_object_get(o, "totals"), &h->c, &h->tps, &h->qps) ||
            get_hist(r, o, h->lat, "a host's"))
                return -EINVAL;
        if (json_object_get(o, "down_s") && get_num(r, o, "down_s", &down))
                return -EINVAL;
        h->port = (unsigned)port;
        h->down_s = down;
        h->down_at_end = json_is_true(dae);
        h->degraded = json_is_true(deg);
        return 0;
}

static int read_hosts(struct oltp_merge *one, const struct rd *r, const json_t *j)
{
        const json_t *a = json_object_get(j, "hosts");
        size_t n = json_array_size(a);

        if (!json_is_array(a))
                return bad(r, "no array", "hosts");
        one->hosts = calloc(n ? n : 1, sizeof(*one->hosts));
        if (!one->hosts)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                struct mhost *h = &one->hosts[one->nhosts++];

                if (!(h->lat = hist_new()))
                        return -ENOMEM;
                if (read_host(h, r, json_array_get(a, i)))
                        return -EINVAL;
        }
        return 0;
}

static int read_row(struct mrow *w, const struct oltp_merge *one, const struct rd *r,
                    const json_t *o)
{
        const json_t *q = json_object_get(o, "queries_s");
        const json_t *p = json_object_get(json_object_get(o, "lat_ns"), "percentile");

        if (!json_is_object(o) || !json_is_object(q) || !json_is_object(p))
                return bad(r, "an interval without", "queries_s or lat_ns.percentile");
        if (get_num(r, o, "t", &w->t) || get_num(r, o, "tps", &w->tps) ||
            get_num(r, o, "qps", &w->qps) || get_num(r, q, "read", &w->rd) ||
            get_num(r, q, "write", &w->wr) || get_num(r, q, "other", &w->ot) ||
            get_num(r, o, "errors_s", &w->err_s) || get_num(r, o, "reconnects_s", &w->rec_s))
                return -EINVAL;
        w->n = 1;
        w->has_queue = json_object_get(o, "queue_length") != NULL;
        if (w->has_queue &&
            (get_num(r, o, "queue_length", &w->qlen) || get_num(r, o, "concurrency", &w->conc)))
                return -EINVAL;
        /* the interval rows use the same keys as the whole run's lat_ns */
        for (unsigned i = 0; i < one->npct; i++) {
                const char *k;
                const json_t *v;

                json_object_foreach((json_t *)p, k, v)
                {
                        if (strtod(k, NULL) == one->pcts[i] && json_is_integer(v))
                                w->pct[i] = (uint64_t)json_integer_value(v);
                }
        }
        return 0;
}

static int read_rows(struct oltp_merge *one, const struct rd *r, const json_t *j)
{
        const json_t *a = json_object_get(j, "intervals");
        size_t n = json_array_size(a);

        if (!json_is_array(a))
                return bad(r, "no array", "intervals");
        one->rows = calloc(n ? n : 1, sizeof(*one->rows));
        if (!one->rows)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (read_row(&one->rows[one->nrows++], one, r, json_array_get(a, i)))
                        return -EINVAL;
        one->iv_len = n ? one->rows[0].t : 0;
        return 0;
}

static int read_rate(struct oltp_merge *one, const struct rd *r, const json_t *j)
{
        const json_t *o = json_object_get(j, "rate"), *qw;
        double mn = 0, mx = 0;

        if (!o)
                return 0;
        qw = json_object_get(o, "queue_wait_ns");
        one->has_rate = 1;
        one->overloaded = json_is_true(json_object_get(o, "overloaded"));
        if (get_num(r, o, "target_tps", &one->target_tps) ||
            get_num(r, o, "achieved_tps", &one->achieved_tps) ||
            get_u64(r, o, "queue_overflows", &one->overflows) || get_num(r, qw, "min", &mn) ||
            get_num(r, qw, "max", &mx))
                return -EINVAL;
        one->qw_min = (uint64_t)mn;
        one->qw_max = (uint64_t)mx;
        return 0;
}

/* *dst gains "; " and text (or becomes text). 0 or -ENOMEM. */
static int append_str(char **dst, const char *text)
{
        size_t len = (*dst ? strlen(*dst) + 2 : 0) + strlen(text) + 1;
        char *n = malloc(len);

        if (!n)
                return -ENOMEM;
        snprintf(n, len, "%s%s%s", *dst ? *dst : "", *dst ? "; " : "", text);
        free(*dst);
        *dst = n;
        return 0;
}

/* *dst gains "NAME: why". */
static int set_str(char **dst, const char *name, const char *why)
{
        char buf[1024];

        snprintf(buf, sizeof(buf), "%s: %s", name, why);
        return append_str(dst, buf);
}

static int read_marks(struct oltp_merge *one, const char *name, const json_t *j)
{
        const char *why = json_string_value(json_object_get(j, "partial_reason"));
        const char *error = json_string_value(json_object_get(j, "error"));
        int partial = json_is_true(json_object_get(j, "partial"));
        const json_t *host = json_object_get(j, "host");
        json_t *in;

        if (partial && set_str(&one->partial, name, why ? why : "partial"))
                return -ENOMEM;
        if (error && set_str(&one->error, name, error))
                return -ENOMEM;
        in = json_pack("{s:s, s:O?, s:O?, s:f, s:f, s:b}", "file", name, "started_at",
                       json_object_get(j, "started_at"), "hostname",
                       json_object_get(host, "hostname"), "seconds", one->seconds, "tps", one->tps,
                       "partial", partial);
        if (in && why)
                json_object_set_new(in, "partial_reason", json_string(why));
        return !in || json_array_append_new(one->inputs, in) ? -ENOMEM : 0;
}

/* ---- adding one merge into another ---- */

static int same_t(double a, double b)
{
        return fabs(a - b) <= 1e-6 * (fabs(a) > 1 ? fabs(a) : 1);
}

static int add_row(struct oltp_merge *m, const struct mrow *s)
{
        struct mrow *d = NULL, *n;

        for (unsigned i = 0; i < m->nrows && !d; i++)
                if (same_t(m->rows[i].t, s->t))
                        d = &m->rows[i];
        if (!d) {
                unsigned at = m->nrows;

                if (!(n = realloc(m->rows, (m->nrows + 1) * sizeof(*n))))
                        return -ENOMEM;
                m->rows = n;
                while (at > 0 && m->rows[at - 1].t > s->t) /* keep the series in time order */
                        at--;
                memmove(&m->rows[at + 1], &m->rows[at], (m->nrows - at) * sizeof(*n));
                m->nrows++;
                m->rows[at] = *s;
                return 0;
        }
        d->n += s->n;
        d->tps += s->tps;
        d->qps += s->qps;
        d->rd += s->rd;
        d->wr += s->wr;
        d->ot += s->ot;
        d->err_s += s->err_s;
        d->rec_s += s->rec_s;
        d->qlen += s->qlen;
        d->conc += s->conc;
        d->has_queue |= s->has_queue;
        for (unsigned i = 0; i < MAX_PCTS; i++)
                if (s->pct[i] > d->pct[i])
                        d->pct[i] = s->pct[i];
        return 0;
}

static int add_host(struct oltp_merge *m, const struct mhost *s)
{
        struct mhost *d = NULL, *n;

        for (unsigned i = 0; i < m->nhosts && !d; i++)
                if (!strcmp(m->hosts[i].name, s->name) && m->hosts[i].port == s->port)
                        d = &m->hosts[i];
        if (!d) {
                if (!(n = realloc(m->hosts, (m->nhosts + 1) * sizeof(*n))))
                        return -ENOMEM;
                m->hosts = n;
                d = &m->hosts[m->nhosts];
                memset(d, 0, sizeof(*d));
                if (!(d->lat = hist_new()))
                        return -ENOMEM;
                m->nhosts++;
                snprintf(d->name, sizeof(d->name), "%s", s->name);
                d->port = s->port;
        }
        oltp_counts_add(&d->c, &s->c);
        d->tps += s->tps;
        d->qps += s->qps;
        hist_merge(d->lat, s->lat);
        d->down_s = d->down_s > s->down_s ? d->down_s : s->down_s;
        d->down_at_end |= s->down_at_end;
        d->degraded |= s->degraded;
        return 0;
}

static int check_match(const struct oltp_merge *m, const struct oltp_merge *one, const char *name,
                       char *err, size_t errlen)
{
        if (!m->n)
                return 0;
        if (strcmp(m->workload, one->workload)) {
                snprintf(err, errlen, "%s: workload %s differs from the first input's %s", name,
                         one->workload, m->workload);
                return -EINVAL;
        }
        if (m->iv_len > 0 && one->iv_len > 0 && !same_t(m->iv_len, one->iv_len)) {
                snprintf(err, errlen,
                         "%s: intervals of %g s cannot be aligned with the first input's of %g s",
                         name, one->iv_len, m->iv_len);
                return -EINVAL;
        }
        return 0;
}

static int combine(struct oltp_merge *m, struct oltp_merge *one)
{
        size_t i;
        json_t *v;

        if (!m->n) {
                memcpy(m->workload, one->workload, sizeof(m->workload));
                memcpy(m->pcts, one->pcts, sizeof(m->pcts));
                m->npct = one->npct;
                m->config = json_incref(one->config);
        }
        if (m->iv_len <= 0)
                m->iv_len = one->iv_len;
        m->seconds = m->seconds > one->seconds ? m->seconds : one->seconds;
        m->tps += one->tps;
        m->qps += one->qps;
        oltp_counts_add(&m->total, &one->total);
        hist_merge(m->lat, one->lat);
        m->threads += one->threads;
        m->event_threads += one->event_threads;
        for (unsigned h = 0; h < one->nhosts; h++)
                if (add_host(m, &one->hosts[h]))
                        return -ENOMEM;
        for (unsigned r = 0; r < one->nrows; r++)
                if (add_row(m, &one->rows[r]))
                        return -ENOMEM;
        json_array_foreach(one->inputs, i, v)
        {
                if (json_array_append(m->inputs, v))
                        return -ENOMEM;
        }
        if ((one->partial && append_str(&m->partial, one->partial)) ||
            (one->error && append_str(&m->error, one->error)))
                return -ENOMEM;
        m->has_rate |= one->has_rate;
        m->overloaded |= one->overloaded;
        m->target_tps += one->target_tps;
        m->achieved_tps += one->achieved_tps;
        m->overflows += one->overflows;
        if (one->has_rate && one->qw_min < m->qw_min)
                m->qw_min = one->qw_min;
        if (one->qw_max > m->qw_max)
                m->qw_max = one->qw_max;
        m->n++;
        return 0;
}

int oltp_merge_add(struct oltp_merge *m, const char *name, const json_t *j, char *err,
                   size_t errlen)
{
        struct oltp_merge *one = oltp_merge_new();
        struct rd r = {name, err, errlen};
        int rc;

        if (!one) {
                snprintf(err, errlen, "%s: out of memory", name);
                return -ENOMEM;
        }
        rc = read_head(one, &r, j);
        if (!rc)
                rc = read_pcts(one, &r, j);
        if (!rc)
                rc = read_hosts(one, &r, j);
        if (!rc)
                rc = read_rows(one, &r, j);
        if (!rc)
                rc = read_rate(one, &r, j);
        if (!rc)
                rc = read_marks(one, name, j);
        if (!rc)
                rc = check_match(m, one, name, err, errlen);
        if (!rc)
                rc = combine(m, one);
        if (rc == -ENOMEM)
                snprintf(err, errlen, "%s: out of memory", name);
        oltp_merge_free(one);
        return rc;
}

int oltp_merge_add_file(struct oltp_merge *m, const char *path, char *err, size_t errlen)
{
        json_error_t e;
        json_t *j;
        size_t len;
        char *text;
        int rc = res_read_file(path, &text, &len, err, errlen);

        if (rc)
                return rc == -ENOMEM ? rc : -EINVAL;
        j = json_loadb(text, len, 0, &e);
        free(text);
        if (!j) {
                snprintf(err, errlen, "%s:%d: not an oltp result: JSON: %s", path, e.line, e.text);
                return -EINVAL;
        }
        rc = oltp_merge_add(m, path, j, err, errlen);
        json_decref(j);
        return rc;
}

/* ---- reading the merge ---- */

void oltp_merge_result(const struct oltp_merge *m, struct oltp_result *res)
{
        struct oltp_merge *mm = (struct oltp_merge *)m;
        struct oltp_host_result *hr = realloc(mm->hres, (m->nhosts ? m->nhosts : 1) * sizeof(*hr));

        memset(res, 0, sizeof(*res));
        if (hr) {
                mm->hres = hr;
                for (unsigned i = 0; i < m->nhosts; i++)
                        hr[i] =
                            (struct oltp_host_result){m->hosts[i].c, m->hosts[i].lat,
                                                      m->hosts[i].down_s, m->hosts[i].down_at_end};
                res->hosts = hr;
                res->nhosts = m->nhosts;
        }
        res->seconds = m->seconds;
        res->window_s = m->seconds;
        res->total = m->total;
        res->lat = m->lat;
        res->qwait = m->qwait;
        res->queue_overflows = m->overflows;
        res->threads_used = m->event_threads;
}

const char *oltp_merge_host(const struct oltp_merge *m, unsigned i, unsigned *port)
{
        if (i >= m->nhosts)
                return NULL;
        *port = m->hosts[i].port;
        return m->hosts[i].name;
}

unsigned oltp_merge_nintervals(const struct oltp_merge *m)
{
        return m->nrows;
}

void oltp_merge_interval(const struct oltp_merge *m, unsigned i, double *t, double *tps)
{
        *t = i < m->nrows ? m->rows[i].t : 0;
        *tps = i < m->nrows ? m->rows[i].tps : 0;
}

double oltp_merge_tps(const struct oltp_merge *m)
{
        return m->tps;
}

const double *oltp_merge_pcts(const struct oltp_merge *m, unsigned *n)
{
        *n = m->npct;
        return m->pcts;
}

const json_t *oltp_merge_config(const struct oltp_merge *m)
{
        return m->config;
}

const char *oltp_merge_partial(const struct oltp_merge *m)
{
        return m->partial;
}

/* ---- the merged result as JSON ---- */

static json_t *totals_json(const struct oltp_counts *c, double tps, double qps)
{
        return json_pack("{s:I, s:f, s:{s:I, s:I, s:I}, s:f, s:I, s:I, s:I}", "transactions",
                         (json_int_t)c->txns, "tps", tps, "queries", "read", (json_int_t)c->reads,
                         "write", (json_int_t)c->writes, "other", (json_int_t)c->other, "qps", qps,
                         "errors", (json_int_t)c->errors, "reconnects", (json_int_t)c->reconnects,
                         "failed_connects", (json_int_t)c->failed_connects);
}

static json_t *hosts_json(const struct oltp_merge *m)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < m->nhosts; i++) {
                const struct mhost *h = &m->hosts[i];
                json_t *o = json_pack(
                    "{s:s, s:i, s:o, s:o, s:o, s:f, s:b, s:b}", "host", h->name, "port",
                    (int)h->port, "totals", totals_json(&h->c, h->tps, h->qps), "lat_ns",
                    hist_lat_json(h->lat, m->pcts, m->npct), "hist", hist_to_json(h->lat), "down_s",
                    h->down_s, "down_at_end", h->down_at_end, "degraded", h->degraded);

                if (!o || json_array_append_new(a, o)) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

static json_t *row_json(const struct oltp_merge *m, const struct mrow *w)
{
        json_t *p = json_object(), *o;
        char key[32];

        for (unsigned i = 0; p && i < m->npct; i++) {
                /* the keys of an oltp run's interval rows (oltp/report.c) */
                snprintf(key, sizeof(key), "%.1f", m->pcts[i]);
                if (fabs(m->pcts[i] * 10 - floor(m->pcts[i] * 10)) > 1e-9)
                        snprintf(key, sizeof(key), "%g", m->pcts[i]);
                json_object_set_new(p, key, json_integer((json_int_t)w->pct[i]));
        }
        o = json_pack("{s:f, s:f, s:f, s:{s:f, s:f, s:f}, s:f, s:f, s:{s:o}, s:i}", "t", w->t,
                      "tps", w->tps, "qps", w->qps, "queries_s", "read", w->rd, "write", w->wr,
                      "other", w->ot, "errors_s", w->err_s, "reconnects_s", w->rec_s, "lat_ns",
                      "percentile", p, "inputs", (int)w->n);
        if (o && w->has_queue) {
                json_object_set_new(o, "queue_length", json_real(w->qlen));
                json_object_set_new(o, "concurrency", json_real(w->conc));
        }
        return o;
}

static json_t *rows_json(const struct oltp_merge *m)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < m->nrows; i++) {
                json_t *o = row_json(m, &m->rows[i]);

                if (!o || json_array_append_new(a, o)) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

static json_t *rate_json(const struct oltp_merge *m)
{
        return json_pack("{s:f, s:f, s:{s:I, s:I}, s:I, s:b}", "target_tps", m->target_tps,
                         "achieved_tps", m->achieved_tps, "queue_wait_ns", "min",
                         (json_int_t)(m->qw_min == UINT64_MAX ? 0 : m->qw_min), "max",
                         (json_int_t)m->qw_max, "queue_overflows", (json_int_t)m->overflows,
                         "overloaded", m->overloaded);
}

static json_t *merge_obj(const struct oltp_merge *m)
{
        return json_pack("{s:O, s:s}", "inputs", m->inputs, "interval_percentiles",
                         "the largest of the inputs' (an upper bound of the merged percentile: "
                         "the inputs keep no per-interval histogram)");
}

int oltp_merge_json(const struct oltp_merge *m, json_t *top)
{
        int rc = 0;

        rc |= json_object_set_new(top, "seconds", json_real(m->seconds));
        rc |= json_object_set_new(top, "threads", json_integer(m->threads));
        rc |= json_object_set_new(top, "event_threads", json_integer(m->event_threads));
        rc |= json_object_set_new(top, "totals", totals_json(&m->total, m->tps, m->qps));
        rc |= json_object_set_new(top, "lat_ns", hist_lat_json(m->lat, m->pcts, m->npct));
        rc |= json_object_set_new(top, "hist", hist_to_json(m->lat));
        rc |= json_object_set_new(top, "hosts", hosts_json(m));
        rc |= json_object_set_new(top, "intervals", rows_json(m));
        if (m->has_rate)
                rc |= json_object_set_new(top, "rate", rate_json(m));
        if (m->error)
                rc |= json_object_set_new(top, "error", json_string(m->error));
        rc |= json_object_set_new(top, "merge", merge_obj(m));
        return rc ? -ENOMEM : 0;
}
