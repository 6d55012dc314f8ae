/*
 * merge.c - oltp results merged exactly (see merge.h).
 *
 * Each input is read into a merge of its own first and only then added to
 * the whole, so an input refused halfway through (a field of the wrong
 * type in its last host) leaves the whole untouched: scale marks that VM's
 * part degraded and merges the others.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/resfile.h"
#include "oltp/merge.h"
#include "oltp/report.h"

#define MAX_PCTS  OLTP_MAX_PCTS
#define MAX_FILES 256 /* the inputs one merge remembers, to refuse one given twice */

/*
 * A host keeps its histogram as compact JSON text (hist_to_json's sparse
 * buckets), not as a struct hist: a struct hist is ~76 KB, its text a few
 * hundred bytes, so 20k hosts fit in tens of MB. The writer expands one
 * host at a time into a scratch histogram.
 */
struct mhost {
        char *name;
        unsigned port;
        struct oltp_counts c;
        double tps, qps, down_s;
        int down_at_end, degraded;
        char *hist;
};

struct oltp_merge {
        unsigned n;
        char workload[64];
        double iv_len; /* the first interval's t: the interval length (0: no intervals) */
        double pcts[MAX_PCTS];
        unsigned npct;
        double seconds, tps, qps;
        struct oltp_counts total;
        struct hist *lat, *qwait, *scratch;
        unsigned threads, event_threads;
        struct mhost *hosts;
        unsigned nhosts, hcap;
        unsigned *slots; /* open-addressing index of hosts by name:port (UINT_MAX: empty) */
        unsigned nslots;
        struct oltp_host_result *hres; /* for oltp_merge_result */
        struct oltp_row *rows;         /* sorted by t, no two at the same t */
        unsigned nrows;
        struct oltp_rows_out rows_out; /* writes rows into a result (oltp_merge_json) */
        json_t *inputs;                /* the merge object's list */
        json_t *config;                /* the first input's */
        char *partial;                 /* "A: why; B: why" or NULL */
        char *error;
        int has_rate, overloaded;
        double target_tps, achieved_tps;
        uint64_t overflows, qw_min, qw_max;
        struct {
                dev_t dev;
                ino_t ino;
        } files[MAX_FILES];
        unsigned nfiles;
};

struct oltp_merge *oltp_merge_new(void)
{
        struct oltp_merge *m = calloc(1, sizeof(*m));

        if (!m)
                return NULL;
        m->lat = hist_new();
        m->qwait = hist_new();
        m->scratch = hist_new();
        m->inputs = json_array();
        m->qw_min = UINT64_MAX;
        if (!m->lat || !m->qwait || !m->scratch || !m->inputs) {
                oltp_merge_free(m);
                return NULL;
        }
        return m;
}

static void host_free(struct mhost *h)
{
        free(h->name);
        free(h->hist);
}

void oltp_merge_free(struct oltp_merge *m)
{
        if (!m)
                return;
        for (unsigned i = 0; i < m->nhosts; i++)
                host_free(&m->hosts[i]);
        free(m->hosts);
        free(m->slots);
        free(m->hres);
        oltp_rows_out_free(&m->rows_out);
        free(m->rows);
        hist_free(m->lat);
        hist_free(m->qwait);
        hist_free(m->scratch);
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

/* A rate, a length of time, a queue length: finite and not negative. */
static int get_pos(const struct rd *r, const json_t *o, const char *key, double *v)
{
        if (get_num(r, o, key, v))
                return -EINVAL;
        return *v >= 0 ? 0 : bad(r, "a negative", key);
}

static int get_u64(const struct rd *r, const json_t *o, const char *key, uint64_t *v)
{
        const json_t *x = json_object_get(o, key);

        if (!json_is_integer(x) || json_integer_value(x) < 0)
                return bad(r, "no count", key);
        *v = (uint64_t)json_integer_value(x);
        return 0;
}

/* A count that must fit max (a port, a thread count): never silently cut. */
static int get_small(const struct rd *r, const json_t *o, const char *key, uint64_t max,
                     unsigned *v)
{
        uint64_t x;

        if (get_u64(r, o, key, &x))
                return -EINVAL;
        if (x > max)
                return bad(r, "an out-of-range", key);
        *v = (unsigned)x;
        return 0;
}

/* Nanoseconds written as a JSON number of either kind: checked before the conversion. */
static int get_ns(const struct rd *r, const json_t *o, const char *key, uint64_t *v)
{
        double x;

        if (json_is_integer(json_object_get(o, key)) &&
            json_integer_value(json_object_get(o, key)) < 0)
                return bad(r, "a negative", key);
        if (json_is_integer(json_object_get(o, key)))
                return get_u64(r, o, key, v);
        if (get_pos(r, o, key, &x))
                return -EINVAL;
        if (x >= 0x1p63)
                return bad(r, "an out-of-range", key);
        *v = (uint64_t)x;
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
                       get_pos(r, t, "tps", tps) || get_pos(r, t, "qps", qps)
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
        if (get_pos(r, j, "seconds", &one->seconds) ||
            get_small(r, j, "threads", UINT32_MAX, &one->threads))
                return -EINVAL;
        if (json_object_get(j, "event_threads") &&
            get_small(r, j, "event_threads", UINT32_MAX, &one->event_threads))
                return -EINVAL;
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
        one->npct = 0; /* read again after a streamed intervals[] (read_file_top) */
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

/* h's histogram, validated through scratch, kept as compact text. */
static int keep_hist(struct mhost *h, const struct rd *r, const json_t *o, struct hist *scratch)
{
        hist_reset(scratch);
        if (get_hist(r, o, scratch, "a host's"))
                return -EINVAL;
        h->hist = json_dumps(json_object_get(o, "hist"), JSON_COMPACT);
        return h->hist ? 0 : -ENOMEM;
}

static int read_host(struct mhost *h, const struct rd *r, const json_t *o, struct hist *scratch)
{
        const char *name = json_string_value(json_object_get(o, "host"));
        const json_t *dae = json_object_get(o, "down_at_end"),
                     *deg = json_object_get(o, "degraded");

        if (!json_is_object(o) || !name)
                return bad(r, "a hosts[] entry without", "host");
        if (!(h->name = strdup(name)))
                return -ENOMEM;
        if (get_small(r, o, "port", 65535, &h->port) ||
            get_counts(r, json_object_get(o, "totals"), &h->c, &h->tps, &h->qps))
                return -EINVAL;
        if (json_object_get(o, "down_s") && get_pos(r, o, "down_s", &h->down_s))
                return -EINVAL;
        h->down_at_end = json_is_true(dae);
        h->degraded = json_is_true(deg);
        return keep_hist(h, r, o, scratch);
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
                int rc =
                    read_host(&one->hosts[one->nhosts++], r, json_array_get(a, i), one->scratch);

                if (rc)
                        return rc;
        }
        return 0;
}

static int read_row(struct oltp_row *w, const struct oltp_merge *one, const struct rd *r,
                    const json_t *o)
{
        const json_t *q = json_object_get(o, "queries_s");
        const json_t *p = json_object_get(json_object_get(o, "lat_ns"), "percentile");

        if (!json_is_object(o) || !json_is_object(q) || !json_is_object(p))
                return bad(r, "an interval without", "queries_s or lat_ns.percentile");
        if (get_pos(r, o, "t", &w->t) || get_pos(r, o, "tps", &w->tps) ||
            get_pos(r, o, "qps", &w->qps) || get_pos(r, q, "read", &w->rd) ||
            get_pos(r, q, "write", &w->wr) || get_pos(r, q, "other", &w->ot) ||
            get_pos(r, o, "errors_s", &w->err_s) || get_pos(r, o, "reconnects_s", &w->rec_s))
                return -EINVAL;
        w->inputs = 1;
        w->has_queue = json_object_get(o, "queue_length") != NULL;
        if (w->has_queue &&
            (get_pos(r, o, "queue_length", &w->qlen) || get_pos(r, o, "concurrency", &w->conc)))
                return -EINVAL;
        /* the interval rows use the same keys as the whole run's lat_ns */
        for (unsigned i = 0; i < one->npct; i++) {
                const char *k;
                const json_t *v;

                json_object_foreach((json_t *)p, k, v)
                {
                        if (strtod(k, NULL) == one->pcts[i] && get_ns(r, p, k, &w->pct[i]))
                                return -EINVAL;
                }
        }
        return 0;
}

static int same_t(double a, double b)
{
        return fabs(a - b) <= 1e-6 * (fabs(a) > 1 ? fabs(a) : 1);
}

static int by_t(const void *a, const void *b)
{
        double x = ((const struct oltp_row *)a)->t, y = ((const struct oltp_row *)b)->t;

        return (x > y) - (x < y);
}

static int rows_done(struct oltp_merge *one, const struct rd *r);

static int read_rows(struct oltp_merge *one, const struct rd *r, const json_t *j)
{
        const json_t *a = json_object_get(j, "intervals");
        size_t n = json_array_size(a);

        if (!json_is_array(a))
                return bad(r, "no array", "intervals");
        if (n > UINT32_MAX)
                return bad(r, "too many rows in", "intervals");
        one->rows = calloc(n ? n : 1, sizeof(*one->rows));
        if (!one->rows)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (read_row(&one->rows[one->nrows++], one, r, json_array_get(a, i)))
                        return -EINVAL;
        return rows_done(one, r);
}

/* one's rows, all read in the input's order: the interval length, sorted by t, no t twice. */
static int rows_done(struct oltp_merge *one, const struct rd *r)
{
        size_t n = one->nrows;

        one->iv_len = n ? one->rows[0].t : 0;
        if (n) /* a streamed empty intervals[] has no rows array */
                qsort(one->rows, n, sizeof(*one->rows), by_t);
        for (size_t i = 1; i < n; i++)
                if (same_t(one->rows[i - 1].t, one->rows[i].t)) {
                        snprintf(r->err, r->errlen, "%s: two intervals[] rows at t=%g", r->name,
                                 one->rows[i].t);
                        return -EINVAL;
                }
        return 0;
}

static int read_rate(struct oltp_merge *one, const struct rd *r, const json_t *j)
{
        const json_t *o = json_object_get(j, "rate"), *qw;

        if (!o)
                return 0;
        qw = json_object_get(o, "queue_wait_ns");
        one->has_rate = 1;
        one->overloaded = json_is_true(json_object_get(o, "overloaded"));
        if (!json_is_object(qw))
                return bad(r, "no object", "rate.queue_wait_ns");
        return get_pos(r, o, "target_tps", &one->target_tps) ||
                       get_pos(r, o, "achieved_tps", &one->achieved_tps) ||
                       get_u64(r, o, "queue_overflows", &one->overflows) ||
                       get_ns(r, qw, "min", &one->qw_min) || get_ns(r, qw, "max", &one->qw_max)
                   ? -EINVAL
                   : 0;
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

/*
 * m's rows and one's, both sorted by t, merged in one pass: rows at the
 * same t add up, so a merge costs the rows' count, not its square.
 */
static int add_rows(struct oltp_merge *m, const struct oltp_merge *one)
{
        size_t cap = (size_t)m->nrows + one->nrows, k = 0;
        struct oltp_row *out = calloc(cap ? cap : 1, sizeof(*out));
        unsigned i = 0, j = 0;

        if (!out)
                return -ENOMEM;
        while (i < m->nrows || j < one->nrows) {
                const struct oltp_row *a = i < m->nrows ? &m->rows[i] : NULL,
                                      *b = j < one->nrows ? &one->rows[j] : NULL;

                if (a && b && same_t(a->t, b->t)) {
                        struct oltp_row *d = &out[k++];

                        *d = *a;
                        d->inputs += b->inputs;
                        d->tps += b->tps;
                        d->qps += b->qps;
                        d->rd += b->rd;
                        d->wr += b->wr;
                        d->ot += b->ot;
                        d->err_s += b->err_s;
                        d->rec_s += b->rec_s;
                        d->qlen += b->qlen;
                        d->conc += b->conc;
                        d->has_queue |= b->has_queue;
                        for (unsigned p = 0; p < MAX_PCTS; p++)
                                d->pct[p] = b->pct[p] > d->pct[p] ? b->pct[p] : d->pct[p];
                        i++, j++;
                } else if (a && (!b || a->t < b->t)) {
                        out[k++] = *a, i++;
                } else {
                        out[k++] = *b, j++;
                }
        }
        free(m->rows);
        m->rows = out;
        m->nrows = (unsigned)k;
        return 0;
}

static unsigned host_hash(const char *name, unsigned port)
{
        uint32_t h = 2166136261u ^ port; /* FNV-1a over the whole name */

        for (const unsigned char *p = (const unsigned char *)name; *p; p++)
                h = (h ^ *p) * 16777619u;
        return h;
}

/* The index of name:port in m->hosts, or the free slot where it goes (*slot). */
static struct mhost *host_find(const struct oltp_merge *m, const char *name, unsigned port,
                               unsigned *slot)
{
        unsigned s = host_hash(name, port) & (m->nslots - 1);

        while (m->slots[s] != UINT32_MAX) {
                struct mhost *h = &m->hosts[m->slots[s]];

                if (h->port == port && !strcmp(h->name, name))
                        return h;
                s = (s + 1) & (m->nslots - 1);
        }
        *slot = s;
        return NULL;
}

/* Room for one more host: the index at most half full. */
static int host_room(struct oltp_merge *m)
{
        if (m->nhosts == m->hcap) {
                unsigned cap = m->hcap ? m->hcap * 2 : 16;
                struct mhost *n = realloc(m->hosts, cap * sizeof(*n));

                if (!n)
                        return -ENOMEM;
                m->hosts = n;
                m->hcap = cap;
        }
        if (2 * (m->nhosts + 1) > m->nslots) {
                unsigned ns = m->nslots ? m->nslots * 2 : 32, slot = 0;
                unsigned *n = malloc(ns * sizeof(*n));

                if (!n)
                        return -ENOMEM;
                free(m->slots);
                m->slots = n;
                m->nslots = ns;
                memset(n, 0xff, ns * sizeof(*n));
                for (unsigned i = 0; i < m->nhosts; i++) {
                        host_find(m, m->hosts[i].name, m->hosts[i].port, &slot);
                        m->slots[slot] = i;
                }
        }
        return 0;
}

/* The histograms kept as text a and b, added: *out their sum's text. */
static int hist_sum_text(struct hist *scratch, const char *a, const char *b, char **out)
{
        const char *t[2] = {a, b};
        json_t *j;

        hist_reset(scratch);
        for (int i = 0; i < 2; i++) {
                json_t *x = json_loads(t[i], 0, NULL);
                int rc = x ? hist_add_json(scratch, x, NULL, 0) : -ENOMEM;

                json_decref(x);
                if (rc)
                        return rc;
        }
        j = hist_to_json(scratch);
        *out = j ? json_dumps(j, JSON_COMPACT) : NULL;
        json_decref(j);
        return *out ? 0 : -ENOMEM;
}

/* s (one input's host) into m; its strings move to m. */
static int add_host(struct oltp_merge *m, struct mhost *s)
{
        unsigned slot = 0;
        struct mhost *d = m->nslots ? host_find(m, s->name, s->port, &slot) : NULL;
        char *sum;
        int rc;

        if (!d) {
                if (host_room(m))
                        return -ENOMEM;
                host_find(m, s->name, s->port, &slot);
                m->slots[slot] = m->nhosts;
                m->hosts[m->nhosts++] = *s;
                memset(s, 0, sizeof(*s));
                return 0;
        }
        if ((rc = hist_sum_text(m->scratch, d->hist, s->hist, &sum)))
                return rc;
        free(d->hist);
        d->hist = sum;
        oltp_counts_add(&d->c, &s->c);
        d->tps += s->tps;
        d->qps += s->qps;
        d->down_s = d->down_s > s->down_s ? d->down_s : s->down_s;
        d->down_at_end |= s->down_at_end;
        d->degraded |= s->degraded;
        return 0;
}

/* a + b fits the JSON's signed 64-bit integers. */
static int fits(uint64_t a, uint64_t b)
{
        return a <= INT64_MAX && b <= INT64_MAX - a;
}

static int counts_fit(const struct oltp_counts *a, const struct oltp_counts *b)
{
        return fits(a->txns, b->txns) && fits(a->reads, b->reads) && fits(a->writes, b->writes) &&
               fits(a->other, b->other) &&
               fits(a->reads + a->writes + a->other, b->reads + b->writes + b->other) &&
               fits(a->errors, b->errors) && fits(a->reconnects, b->reconnects) &&
               fits(a->failed_connects, b->failed_connects);
}

/* The whole with one added stays within what the result can say, or -EINVAL naming it. */
static int check_sums(const struct oltp_merge *m, const struct oltp_merge *one, const char *name,
                      char *err, size_t errlen)
{
        const char *what = NULL;

        if (!counts_fit(&m->total, &one->total) || !fits(m->overflows, one->overflows))
                what = "counts";
        else if (!fits(hist_count(m->lat), hist_count(one->lat)))
                what = "latency samples";
        else if (!isfinite(m->tps + one->tps) || !isfinite(m->qps + one->qps) ||
                 !isfinite(m->target_tps + one->target_tps) ||
                 !isfinite(m->achieved_tps + one->achieved_tps))
                what = "rates";
        else if ((uint64_t)m->threads + one->threads > INT32_MAX ||
                 (uint64_t)m->event_threads + one->event_threads > INT32_MAX)
                what = "thread counts";
        for (unsigned r = 0; !what && r < one->nrows; r++)
                if (!isfinite(one->rows[r].tps * (m->n + 1.0)))
                        what = "interval rates";
        if (!what)
                return 0;
        snprintf(err, errlen, "%s: the merged %s would exceed what a result holds", name, what);
        return -EINVAL;
}

static int check_match(const struct oltp_merge *m, const struct oltp_merge *one, const char *name,
                       char *err, size_t errlen)
{
        if (!m->n)
                return check_sums(m, one, name, err, errlen);
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
        return check_sums(m, one, name, err, errlen);
}

/* A host's sums, checked before anything is added (so a refusal leaves m as it was). */
static int check_hosts(struct oltp_merge *m, const struct oltp_merge *one, const char *name,
                       char *err, size_t errlen)
{
        for (unsigned h = 0; h < one->nhosts; h++) {
                const struct mhost *s = &one->hosts[h];
                unsigned slot;
                const struct mhost *d = m->nslots ? host_find(m, s->name, s->port, &slot) : NULL;

                if (d && (!counts_fit(&d->c, &s->c) || !isfinite(d->tps + s->tps) ||
                          !isfinite(d->qps + s->qps))) {
                        snprintf(err, errlen,
                                 "%s: host %s:%u's merged totals would exceed what a "
                                 "result holds",
                                 name, s->name, s->port);
                        return -EINVAL;
                }
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
        if (add_rows(m, one))
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

/* j (and one's rows when rows_read: read from the file already) into m, through one. */
static int add_one(struct oltp_merge *m, struct oltp_merge *one, int rows_read, const char *name,
                   const json_t *j, char *err, size_t errlen)
{
        struct rd r = {name, err, errlen};
        int rc;

        rc = read_head(one, &r, j);
        if (!rc)
                rc = read_pcts(one, &r, j);
        if (!rc)
                rc = read_hosts(one, &r, j);
        if (!rc && !rows_read)
                rc = read_rows(one, &r, j);
        if (!rc)
                rc = read_rate(one, &r, j);
        if (!rc)
                rc = read_marks(one, name, j);
        if (!rc)
                rc = check_match(m, one, name, err, errlen);
        if (!rc)
                rc = check_hosts(m, one, name, err, errlen);
        if (!rc)
                rc = combine(m, one);
        if (rc == -ENOMEM)
                snprintf(err, errlen, "%s: out of memory", name);
        return rc;
}

int oltp_merge_add(struct oltp_merge *m, const char *name, const json_t *j, char *err,
                   size_t errlen)
{
        struct oltp_merge *one = oltp_merge_new();
        int rc;

        if (!one) {
                snprintf(err, errlen, "%s: out of memory", name);
                return -ENOMEM;
        }
        rc = add_one(m, one, 0, name, j, err, errlen);
        oltp_merge_free(one);
        return rc;
}

/*
 * A result file read without the tree of its intervals. 100k rows make a
 * tree of ~230 MB of small blocks (jansson keeps each object as a hash
 * table): building, walking and freeing it was most of a merge's time.
 * Jansson still parses every key and value (JSON_DISABLE_EOF_CHECK says
 * where each ends); this walk only steps over the punctuation between
 * them, the top object's { : , } and the intervals array's [ , ]. The rows
 * are read one at a time when lat_ns (whose percentiles a row's are
 * matched to) came before them, as hcisweep writes a result; otherwise,
 * and for a series reference, intervals stays in the tree. A key twice in
 * the top object is refused (which one would count?).
 */
struct scan {
        const char *s;
        size_t len, pos;
        const struct rd *r;
};

static void scan_ws(struct scan *sc)
{
        while (sc->pos < sc->len && (sc->s[sc->pos] == ' ' || sc->s[sc->pos] == '\n' ||
                                     sc->s[sc->pos] == '\t' || sc->s[sc->pos] == '\r'))
                sc->pos++;
}

static int scan_char(struct scan *sc, char c)
{
        scan_ws(sc);
        if (sc->pos < sc->len && sc->s[sc->pos] == c) {
                sc->pos++;
                return 1;
        }
        return 0;
}

/* "FILE:LINE: not an oltp result: JSON: why", LINE of the byte at sc->pos + off. */
static int scan_fail(const struct scan *sc, size_t off, const char *why)
{
        int line = 1;

        for (size_t i = 0; i < sc->pos + off && i < sc->len; i++)
                line += sc->s[i] == '\n';
        snprintf(sc->r->err, sc->r->errlen, "%s:%d: not an oltp result: JSON: %s", sc->r->name,
                 line, why);
        return -EINVAL;
}

/* The value at sc->pos, parsed by jansson; NULL (err set) when it is not JSON. */
static json_t *scan_value(struct scan *sc)
{
        json_error_t e;
        json_t *v;

        scan_ws(sc);
        v = json_loadb(sc->s + sc->pos, sc->len - sc->pos, JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK,
                       &e);
        if (!v)
                scan_fail(sc, e.position > 0 ? (size_t)e.position : 0, e.text);
        else
                sc->pos += (size_t)e.position;
        return v;
}

/*
 * A row as hcisweep writes it, read without jansson: a row is ~15 numbers, and jansson's
 * tree of one (four hash tables, a block per value) cost more than half a merge. The quick
 * path takes only what it reads with certainty: objects of plain ASCII keys (no escape,
 * none twice) holding objects or non-negative JSON numbers, that read_row would accept.
 * Anything else (a string, a negative or huge number, a missing key, bytes jansson would
 * refuse) is left to jansson and read_row, which accept or refuse it as before, with
 * their messages: the quick path never refuses, it only steps aside.
 */
#define QROW_KEYS  48
#define QROW_DEPTH 3
#define QKEY_MAX   64 /* longer keys are jansson's */

struct qkey {
        const char *k;
        size_t kl;
        int parent, obj, is_int;
        double d;
        long long i;
};

struct qrow {
        struct qkey e[QROW_KEYS];
        int n;
};

static int qpeek(const struct scan *sc)
{
        return sc->pos < sc->len ? (unsigned char)sc->s[sc->pos] : -1;
}

static int qdigits(struct scan *sc)
{
        size_t at = sc->pos;

        while (qpeek(sc) >= '0' && qpeek(sc) <= '9')
                sc->pos++;
        return (int)(sc->pos - at);
}

/* A non-negative JSON number at sc->pos into e (jansson's reading of it); -1: not one. */
static int qnum(struct scan *sc, struct qkey *e)
{
        size_t at = sc->pos;
        int nd = qdigits(sc), c;
        char buf[64], *end;

        if (!nd || (nd > 1 && sc->s[at] == '0'))
                return -1;
        e->is_int = 1;
        if (qpeek(sc) == '.') {
                sc->pos++;
                e->is_int = 0;
                if (!qdigits(sc))
                        return -1;
        }
        if (qpeek(sc) == 'e' || qpeek(sc) == 'E') {
                sc->pos++;
                e->is_int = 0;
                if (qpeek(sc) == '+' || qpeek(sc) == '-')
                        sc->pos++;
                if (!qdigits(sc))
                        return -1;
        }
        c = qpeek(sc);
        if ((c != ',' && c != '}' && c != ' ' && c != '\n' && c != '\t' && c != '\r') ||
            sc->pos - at >= sizeof(buf) || (e->is_int && nd > 18))
                return -1;
        memcpy(buf, sc->s + at, sc->pos - at);
        buf[sc->pos - at] = '\0';
        if (e->is_int) {
                e->i = strtoll(buf, &end, 10);
                e->d = (double)e->i;
        } else {
                e->d = strtod(buf, &end);
        }
        return *end || !isfinite(e->d) ? -1 : 0;
}

static const struct qkey *qget(const struct qrow *q, int parent, const char *key)
{
        size_t kl = strlen(key);

        for (int i = 0; i < q->n; i++)
                if (q->e[i].parent == parent && q->e[i].kl == kl && !memcmp(q->e[i].k, key, kl))
                        return &q->e[i];
        return NULL;
}

/* e's key already among its parent's members. */
static int qdup(const struct qrow *q, const struct qkey *e)
{
        for (int i = 0; i < q->n; i++)
                if (q->e[i].parent == e->parent && q->e[i].kl == e->kl &&
                    !memcmp(q->e[i].k, e->k, e->kl))
                        return 1;
        return 0;
}

/* The object at sc->pos ('{') into q, its members' parent; -1: not a plain one. */
static int qobj(struct scan *sc, struct qrow *q, int parent, int depth)
{
        if (depth > QROW_DEPTH)
                return -1;
        sc->pos++;
        if (scan_char(sc, '}'))
                return 0;
        do {
                struct qkey *e = &q->e[q->n];
                size_t at;

                if (q->n == QROW_KEYS || !scan_char(sc, '"'))
                        return -1;
                for (at = sc->pos;
                     qpeek(sc) >= 0x20 && qpeek(sc) < 0x7f && qpeek(sc) != '"' && qpeek(sc) != '\\';
                     sc->pos++)
                        ;
                if (qpeek(sc) != '"')
                        return -1;
                *e = (struct qkey){.k = sc->s + at, .kl = sc->pos - at, .parent = parent};
                sc->pos++;
                if (e->kl >= QKEY_MAX || qdup(q, e))
                        return -1; /* a key twice: jansson's rule decides */
                q->n++;
                if (!scan_char(sc, ':'))
                        return -1;
                scan_ws(sc);
                if (qpeek(sc) == '{') {
                        e->obj = 1;
                        if (qobj(sc, q, (int)(e - q->e), depth + 1))
                                return -1;
                } else if (qnum(sc, e)) {
                        return -1;
                }
        } while (scan_char(sc, ','));
        return scan_char(sc, '}') ? 0 : -1;
}

static int qpos(const struct qrow *q, int parent, const char *key, double *v)
{
        const struct qkey *e = qget(q, parent, key);

        if (!e || e->obj)
                return -1;
        *v = e->d;
        return 0;
}

/* q's figures into w as read_row would take them; -1 where read_row would refuse. */
static int qfill(const struct qrow *q, const struct oltp_merge *one, struct oltp_row *w)
{
        const struct qkey *qs = qget(q, -1, "queries_s"), *l = qget(q, -1, "lat_ns"), *p;
        int iq, ip;

        if (!qs || !qs->obj || !l || !l->obj)
                return -1;
        iq = (int)(qs - q->e);
        p = qget(q, (int)(l - q->e), "percentile");
        if (!p || !p->obj)
                return -1;
        ip = (int)(p - q->e);
        if (qpos(q, -1, "t", &w->t) || qpos(q, -1, "tps", &w->tps) || qpos(q, -1, "qps", &w->qps) ||
            qpos(q, iq, "read", &w->rd) || qpos(q, iq, "write", &w->wr) ||
            qpos(q, iq, "other", &w->ot) || qpos(q, -1, "errors_s", &w->err_s) ||
            qpos(q, -1, "reconnects_s", &w->rec_s))
                return -1;
        w->inputs = 1;
        w->has_queue = qget(q, -1, "queue_length") != NULL;
        if (w->has_queue &&
            (qpos(q, -1, "queue_length", &w->qlen) || qpos(q, -1, "concurrency", &w->conc)))
                return -1;
        for (unsigned i = 0; i < one->npct; i++)
                for (int k = 0; k < q->n; k++) {
                        const struct qkey *e = &q->e[k];
                        char key[QKEY_MAX];

                        if (e->parent != ip)
                                continue;
                        memcpy(key, e->k, e->kl);
                        key[e->kl] = '\0';
                        if (strtod(key, NULL) != one->pcts[i])
                                continue;
                        if (e->obj || (!e->is_int && e->d >= 0x1p63))
                                return -1;
                        w->pct[i] = e->is_int ? (uint64_t)e->i : (uint64_t)e->d;
                }
        return 0;
}

/* The row at sc->pos into w without jansson: 0, or -1 with sc->pos where it was. */
static int quick_row(struct scan *sc, const struct oltp_merge *one, struct oltp_row *w)
{
        struct qrow q;
        size_t at = sc->pos;

        q.n = 0;
        if (qpeek(sc) == '{' && !qobj(sc, &q, -1, 0) && !qfill(&q, one, w))
                return 0;
        sc->pos = at;
        memset(w, 0, sizeof(*w));
        return -1;
}

/* The intervals array at sc->pos ('['), row by row into one (the percentiles from top). */
static int scan_rows(struct scan *sc, struct oltp_merge *one, const json_t *top)
{
        size_t cap = 0;
        int rc = read_pcts(one, sc->r, top);

        sc->pos++;
        if (rc || scan_char(sc, ']'))
                return rc ? rc : rows_done(one, sc->r);
        do {
                json_t *o;

                if (one->nrows == cap) {
                        struct oltp_row *n;

                        cap = cap ? 2 * cap : 1024;
                        if (cap > UINT32_MAX)
                                return bad(sc->r, "too many rows in", "intervals");
                        if (!(n = realloc(one->rows, cap * sizeof(*n))))
                                return -ENOMEM;
                        one->rows = n;
                }
                memset(&one->rows[one->nrows], 0, sizeof(*one->rows));
                scan_ws(sc);
                if (!quick_row(sc, one, &one->rows[one->nrows])) {
                        one->nrows++;
                        continue;
                }
                if (!(o = scan_value(sc)))
                        return -EINVAL;
                rc = read_row(&one->rows[one->nrows], one, sc->r, o);
                json_decref(o);
                if (rc)
                        return rc;
                one->nrows++;
        } while (scan_char(sc, ','));
        return scan_char(sc, ']') ? rows_done(one, sc->r) : scan_fail(sc, 0, "',' or ']' expected");
}

/* One member "key": value of the top object into top (or, the intervals, into one). */
static int scan_member(struct scan *sc, struct oltp_merge *one, json_t *top, int *rows_read)
{
        json_t *k = scan_value(sc), *v;
        const char *key = json_string_value(k);
        int rc = 0;
        char why[160];

        if (!k)
                return -EINVAL;
        snprintf(why, sizeof(why), "the key %.100s twice in the top object", key ? key : "");
        for (char *c = why; *c; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                        *c = '?'; /* a key's control characters never reach a terminal */
        if (!key || json_object_get(top, key) || (*rows_read && !strcmp(key, "intervals")))
                rc = scan_fail(sc, 0, key ? why : "a key expected");
        else if (!scan_char(sc, ':'))
                rc = scan_fail(sc, 0, "':' expected");
        else if (!strcmp(key, "intervals") && (scan_ws(sc), sc->pos < sc->len) &&
                 sc->s[sc->pos] == '[' && json_object_get(top, "lat_ns")) {
                rc = scan_rows(sc, one, top);
                *rows_read = !rc;
        } else if (!(v = scan_value(sc)))
                rc = -EINVAL;
        else if (json_object_set_new(top, key, v))
                rc = -ENOMEM;
        json_decref(k);
        return rc;
}

static int read_file_top(struct scan *sc, struct oltp_merge *one, json_t *top, int *rows_read)
{
        int rc = 0;

        *rows_read = 0;
        if (!scan_char(sc, '{'))
                return scan_fail(sc, 0, "a result is a JSON object");
        if (!scan_char(sc, '}')) {
                do
                        rc = scan_member(sc, one, top, rows_read);
                while (!rc && scan_char(sc, ','));
                if (!rc && !scan_char(sc, '}'))
                        rc = scan_fail(sc, 0, "',' or '}' expected");
        }
        scan_ws(sc);
        return rc || sc->pos == sc->len ? rc : scan_fail(sc, 0, "end of file expected");
}

/*
 * path names a regular file not added before (a FIFO would block the
 * read, the same file twice would count its transactions twice). Opened
 * without blocking, so a FIFO with no writer is refused, not waited on.
 */
static int check_file(struct oltp_merge *m, const char *path, struct stat *st, char *err,
                      size_t errlen)
{
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

        if (fd < 0 || fstat(fd, st)) {
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                if (fd >= 0)
                        close(fd);
                return -EINVAL;
        }
        close(fd);
        if (!S_ISREG(st->st_mode)) {
                snprintf(err, errlen, "%s: not a regular file", path);
                return -EINVAL;
        }
        for (unsigned i = 0; i < m->nfiles; i++)
                if (m->files[i].dev == st->st_dev && m->files[i].ino == st->st_ino) {
                        snprintf(err, errlen, "%s: the same file as an earlier input", path);
                        return -EINVAL;
                }
        if (m->nfiles == MAX_FILES) {
                snprintf(err, errlen, "%s: more than %d inputs", path, MAX_FILES);
                return -EINVAL;
        }
        return 0;
}

int oltp_merge_add_file(struct oltp_merge *m, const char *path, char *err, size_t errlen)
{
        char dir[4200];
        const struct rd r = {path, err, errlen};
        struct scan sc = {.r = &r};
        struct oltp_merge *one;
        json_t *j;
        char *text;
        struct stat st;
        int rows_read, rc = check_file(m, path, &st, err, errlen);

        if (rc)
                return rc;
        rc = res_read_file(path, &text, &sc.len, err, errlen);
        if (rc)
                return rc == -ENOMEM ? rc : -EINVAL;
        sc.s = text;
        j = json_object();
        one = oltp_merge_new();
        rc = j && one ? read_file_top(&sc, one, j, &rows_read) : -ENOMEM;
        free(text);
        /* a result of a run directory holds its intervals in the files beside it */
        res_dirname(path, dir, sizeof(dir));
        if (!rc && (rc = res_series_resolve_exact(j, dir, err, errlen)) && rc != -ENOMEM)
                rc = -EINVAL;
        if (!rc)
                rc = add_one(m, one, rows_read, path, j, err, errlen);
        else if (rc == -ENOMEM)
                snprintf(err, errlen, "%s: out of memory", path);
        json_decref(j);
        oltp_merge_free(one);
        if (!rc) {
                m->files[m->nfiles].dev = st.st_dev;
                m->files[m->nfiles++].ino = st.st_ino;
        }
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
                        hr[i] = (struct oltp_host_result){m->hosts[i].c, NULL, m->hosts[i].down_s,
                                                          m->hosts[i].down_at_end};
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

int oltp_merge_host_lat(const struct oltp_merge *m, unsigned i, struct hist *into)
{
        json_t *j;
        int rc;

        if (i >= m->nhosts)
                return -EINVAL;
        if (!(j = json_loads(m->hosts[i].hist, 0, NULL)))
                return -ENOMEM;
        rc = hist_add_json(into, j, NULL, 0);
        json_decref(j);
        return rc;
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

/* ---- the merged result as JSON: report.c's writer, host by host ---- */

static int merged_host(void *user, unsigned i, struct oltp_json_host *e,
                       struct oltp_host_result *hr, struct hist *scratch)
{
        const struct oltp_merge *m = user;
        const struct mhost *h = &m->hosts[i];
        int rc = oltp_merge_host_lat(m, i, scratch);

        *hr = (struct oltp_host_result){h->c, scratch, h->down_s, h->down_at_end};
        *e = (struct oltp_json_host){h->name, h->port, hr, h->tps, h->qps, m->seconds, h->degraded};
        return rc ? -ENOMEM : 0;
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
        struct oltp_result res;
        struct oltp_json_over o = {
            .tps = m->tps,
            .qps = m->qps,
            .threads = m->threads,
            .rows = m->rows,
            .nrows = m->nrows,
            .rows_out = (struct oltp_rows_out *)&m->rows_out,
            .nhosts = m->nhosts,
            .host = merged_host,
            .user = (void *)m,
            .rate = m->has_rate ? rate_json(m) : NULL,
        };
        int rc;

        if (m->has_rate && !o.rate)
                return -ENOMEM;
        oltp_merge_result(m, &res);
        rc = oltp_result_json(&res, m->pcts, m->npct, &o, top);
        if (!rc && m->error && json_object_set_new(top, "error", json_string(m->error)))
                rc = -ENOMEM;
        if (!rc && json_object_set_new(top, "merge", merge_obj(m)))
                rc = -ENOMEM;
        return rc;
}
