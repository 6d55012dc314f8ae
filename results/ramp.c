/*
 * ramp.c - load ramps: the point list, format detection, and the two text
 * formats (CSV and sysbench output).
 *
 * Parsers are strict about what they read and silent about what they skip:
 * a CSV cell that should be a number and is not is an error naming its line,
 * while sysbench lines that carry no figure of the ramp are ignored. Every
 * parser fills a struct ramp_set and leaves it empty on error.
 */
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/resfile.h"
#include "results/ramp.h"
#include "results/ramp_priv.h"

#define LINE_MAX_LEN 4096
#define CSV_MAX_COLS 256

struct line_iter {
        const char *p, *end;
        unsigned no;
        char buf[LINE_MAX_LEN];
        int truncated;
};

int ramp_num(const char *s, double *out)
{
        char *end;
        double v;

        while (isspace((unsigned char)*s))
                s++;
        if (!*s)
                return -EINVAL;
        errno = 0;
        v = strtod(s, &end);
        while (isspace((unsigned char)*end))
                end++;
        if (*end || errno || !isfinite(v))
                return -EINVAL;
        *out = v;
        return 0;
}

int ramp_add(struct ramp *r, double load, double tput, double lat_ms)
{
        struct res_tip_step s;

        res_tip_step_init(&s, load, tput);
        return ramp_add_step(r, &s, lat_ms);
}

int ramp_add_step(struct ramp *r, const struct res_tip_step *s, double lat_ms)
{
        if (r->n == r->cap) {
                unsigned cap = r->cap ? r->cap * 2 : 16;
                struct ramp_point *p = realloc(r->p, cap * sizeof(*p));

                if (!p)
                        return -ENOMEM;
                r->p = p;
                r->cap = cap;
        }
        r->p[r->n++] = (struct ramp_point){s->load, s->tput, lat_ms, s->lo, s->hi, s->r, s->hosts};
        return 0;
}

void ramp_tip_steps(const struct ramp *r, struct res_tip_step *out)
{
        for (unsigned i = 0; i < r->n; i++) {
                res_tip_step_init(&out[i], r->p[i].load, r->p[i].tput);
                out[i].lo = r->p[i].lo;
                out[i].hi = r->p[i].hi;
                out[i].r = r->p[i].r;
                out[i].hosts = r->p[i].hosts;
        }
}

#define NRES (sizeof(struct res_tip_res) / sizeof(double))

/* The mean of the known values of each resource figure of points i..j-1. */
static void mean_res(const struct ramp_point *p, unsigned i, unsigned j, struct res_tip_res *out)
{
        double v[NRES] = {0};

        for (unsigned f = 0; f < NRES; f++) {
                double sum = 0;
                unsigned n = 0;

                for (unsigned k = i; k < j; k++) {
                        double x;

                        memcpy(&x, (const char *)&p[k].r + f * sizeof(double), sizeof(x));
                        if (!isnan(x))
                                sum += x, n++;
                }
                v[f] = n ? sum / n : NAN;
        }
        memcpy(out, v, sizeof(*out));
}

static int point_cmp(const void *a, const void *b)
{
        const struct ramp_point *x = a, *y = b;

        return (x->load > y->load) - (x->load < y->load);
}

void ramp_normalise(struct ramp *r)
{
        unsigned i, j, out = 0;

        /* qsort is not stable, but equal loads are averaged, so order among them is moot. */
        if (r->n > 1)
                qsort(r->p, r->n, sizeof(*r->p), point_cmp);
        for (i = 0; i < r->n; i = j) {
                double t = 0, l = 0, lo = r->p[i].lo, hi = r->p[i].hi;
                struct res_tip_res res;

                for (j = i; j < r->n && r->p[j].load == r->p[i].load; j++) {
                        t += r->p[j].tput;
                        l += r->p[j].lat_ms; /* NAN stays NAN: a repeat without latency */
                        lo = fmin(lo, fmin(r->p[j].lo, r->p[j].tput));
                        hi = fmax(hi, fmax(r->p[j].hi, r->p[j].tput));
                }
                mean_res(r->p, i, j, &res);
                r->p[out].load = r->p[i].load;
                r->p[out].tput = t / (j - i);
                r->p[out].lat_ms = l / (j - i);
                r->p[out].lo = lo;
                r->p[out].hi = hi;
                r->p[out].r = res;
                r->p[out].hosts = r->p[i].hosts;
                out++;
        }
        r->n = out;
}

int ramp_has_latency(const struct ramp *r)
{
        for (unsigned i = 0; i < r->n; i++)
                if (isnan(r->p[i].lat_ms))
                        return 0;
        return r->n > 0;
}

struct ramp *ramp_set_push(struct ramp_set *s, const char *name, const char *load_name,
                           const char *tput_name, const char *lat_name)
{
        struct ramp *r = realloc(s->r, (s->n + 1) * sizeof(*r));

        if (!r)
                return NULL;
        s->r = r;
        r = &s->r[s->n++];
        memset(r, 0, sizeof(*r));
        snprintf(r->name, sizeof(r->name), "%s", name);
        snprintf(r->load_name, sizeof(r->load_name), "%s", load_name);
        snprintf(r->tput_name, sizeof(r->tput_name), "%s", tput_name);
        snprintf(r->lat_name, sizeof(r->lat_name), "%s", lat_name);
        return r;
}

void ramp_set_free(struct ramp_set *s)
{
        for (unsigned i = 0; i < s->n; i++)
                free(s->r[i].p);
        free(s->r);
        memset(s, 0, sizeof(*s));
}

/* Next line into it->buf without its end of line; 0 at the end of the input. */
static int line_next(struct line_iter *it)
{
        const char *nl;
        size_t n;

        if (it->p >= it->end)
                return 0;
        nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
        n = (size_t)((nl ? nl : it->end) - it->p);
        it->truncated = n >= sizeof(it->buf);
        if (it->truncated)
                n = sizeof(it->buf) - 1;
        memcpy(it->buf, it->p, n);
        it->buf[n] = '\0';
        if (n && it->buf[n - 1] == '\r')
                it->buf[n - 1] = '\0';
        it->p = nl ? nl + 1 : it->end;
        it->no++;
        return 1;
}

static void line_init(struct line_iter *it, const char *buf, size_t len)
{
        it->p = buf;
        it->end = buf + len;
        it->no = 0;
}

/* ---- CSV ---------------------------------------------------------------- */

/* Split buf in place at commas; fields are trimmed of blanks and one pair of quotes. */
static unsigned csv_split(char *buf, char **f, unsigned max)
{
        unsigned n = 0;
        char *p = buf;

        for (;;) {
                char *c = strchr(p, ','), *s = p, *e;

                if (c)
                        *c = '\0';
                while (isspace((unsigned char)*s))
                        s++;
                e = s + strlen(s);
                while (e > s && isspace((unsigned char)e[-1]))
                        *--e = '\0';
                if (e - s >= 2 && *s == '"' && e[-1] == '"') {
                        e[-1] = '\0';
                        s++;
                }
                if (n < max)
                        f[n] = s;
                n++;
                if (!c)
                        return n;
                p = c + 1;
        }
}

static int blank_or_comment(const char *s)
{
        while (isspace((unsigned char)*s))
                s++;
        return !*s || *s == '#';
}

/* Optional columns beyond load and throughput, and where their value goes. */
static const struct {
        const char *name;
        size_t off; /* into struct ramp_point */
        int share;  /* a share of a whole, 0..100: above is not a measurement */
} csv_opt[] = {
    {"latency_ms", offsetof(struct ramp_point, lat_ms), 0},
    {"throughput_min", offsetof(struct ramp_point, lo), 0},
    {"throughput_max", offsetof(struct ramp_point, hi), 0},
    {"cpu_busy_pct", offsetof(struct ramp_point, r.cpu_busy_pct), 1},
    {"steal_pct", offsetof(struct ramp_point, r.steal_pct), 1},
    {"storage_cpu_pct", offsetof(struct ramp_point, r.storage_cpu_pct), 0},
    {"compute_cpu_pct", offsetof(struct ramp_point, r.compute_cpu_pct), 0},
    {"storage_util_pct", offsetof(struct ramp_point, r.storage_util_pct), 1},
    {"storage_lat_ms", offsetof(struct ramp_point, r.storage_lat_ms), 0},
    {"vm_cpu_pct", offsetof(struct ramp_point, r.vm_cpu_pct), 0},
    {"vm_throttled_time_pct", offsetof(struct ramp_point, r.vm_throttled_time_pct), 1},
};
#define NOPT (sizeof(csv_opt) / sizeof(csv_opt[0]))

struct csv_cols {
        unsigned ncols;
        int load, tput, opt[NOPT];
        int host, role, disk; /* per-host rows (ramp_hosts.c); -1 when absent */
        int scan;             /* the load column is "clients": a client-count scan */
        json_t *clusters;     /* with host: load -> hosts[] */
};

static int csv_header(struct line_iter *it, struct csv_cols *c, char *err, size_t errlen)
{
        char *f[CSV_MAX_COLS];

        c->load = c->tput = c->host = c->role = c->disk = -1;
        c->scan = 0;
        for (unsigned k = 0; k < NOPT; k++)
                c->opt[k] = -1;
        c->ncols = csv_split(it->buf, f, CSV_MAX_COLS);
        if (c->ncols > CSV_MAX_COLS)
                return errf(err, errlen, -EINVAL, "line %u: more than %d columns", it->no,
                            CSV_MAX_COLS);
        for (unsigned i = 0; i < c->ncols; i++) {
                if (!strcasecmp(f[i], "load") || (!strcasecmp(f[i], "clients") && c->load < 0))
                        c->load = (int)i, c->scan = !strcasecmp(f[i], "clients");
                else if (!strcasecmp(f[i], "throughput"))
                        c->tput = (int)i;
                else if (!strcasecmp(f[i], "host"))
                        c->host = (int)i;
                else if (!strcasecmp(f[i], "role"))
                        c->role = (int)i;
                else if (!strcasecmp(f[i], "disk_util_pct"))
                        c->disk = (int)i;
                for (unsigned k = 0; k < NOPT; k++)
                        if (!strcasecmp(f[i], csv_opt[k].name))
                                c->opt[k] = (int)i;
        }
        if (c->role < 0)
                c->host = -1; /* a host column alone names a server, not a host's row */
        if (c->host >= 0 && !(c->clusters = json_object()))
                return -ENOMEM;
        if (c->load < 0 || c->tput < 0)
                return errf(err, errlen, -EINVAL,
                            "line %u: the CSV header must name the columns load (or clients) "
                            "and throughput (latency_ms optional)",
                            it->no);
        return 0;
}

static int csv_cell(const struct line_iter *it, char **f, int col, const char *name, int optional,
                    double *out, char *err, size_t errlen)
{
        if (optional && !*f[col]) {
                *out = NAN;
                return 0;
        }
        if (ramp_num(f[col], out))
                return errf(err, errlen, -EINVAL, "line %u: column %s: '%s' is not a number",
                            it->no, name, f[col]);
        if (*out < 0)
                return errf(err, errlen, -EINVAL, "line %u: column %s: %s is negative", it->no,
                            name, f[col]);
        return 0;
}

/* A share column: as csv_cell, and at most SHARE_MAX (100 and what rounding adds). */
#define SHARE_MAX 100.5
static int csv_share(const struct line_iter *it, char **f, int col, const char *name, double *out,
                     char *err, size_t errlen)
{
        int rc = csv_cell(it, f, col, name, 1, out, err, errlen);

        if (!rc && *out > SHARE_MAX)
                return errf(err, errlen, -EINVAL, "line %u: column %s: %.32s%s is over 100%%",
                            it->no, name, f[col], strlen(f[col]) > 32 ? "..." : "");
        return rc;
}

/* A per-host row: its host's figures go to the host, not to the step. */
static int csv_host(const struct line_iter *it, char **f, const struct csv_cols *c,
                    struct ramp_point *p, char *err, size_t errlen)
{
        struct ramp_host_row h = {"", "", p->r.cpu_busy_pct, p->r.steal_pct, NAN};
        int rc = 0;

        if (c->disk >= 0)
                rc = csv_share(it, f, c->disk, "disk_util_pct", &h.disk_util, err, errlen);
        if (rc)
                return rc;
        if (strlen(f[c->host]) >= sizeof(h.name))
                return errf(err, errlen, -EINVAL,
                            "line %u: column host: longer than %zu characters", it->no,
                            sizeof(h.name) - 1);
        snprintf(h.name, sizeof(h.name), "%s", f[c->host]);
        snprintf(h.role, sizeof(h.role), "%s", f[c->role]);
        p->r.cpu_busy_pct = p->r.steal_pct = NAN;
        return ramp_hosts_add(c->clusters, p->load, &h, it->no, err, errlen);
}

static int csv_row(struct line_iter *it, const struct csv_cols *c, struct ramp *r, char *err,
                   size_t errlen)
{
        char *f[CSV_MAX_COLS];
        unsigned n = csv_split(it->buf, f, CSV_MAX_COLS);
        struct ramp_point p;
        struct res_tip_step st;
        double load, tput;
        int rc;

        if (n != c->ncols)
                return errf(err, errlen, -EINVAL, "line %u: %u fields, the header has %u", it->no,
                            n, c->ncols);
        rc = csv_cell(it, f, c->load, "load", 0, &load, err, errlen);
        if (!rc)
                rc = csv_cell(it, f, c->tput, "throughput", 0, &tput, err, errlen);
        if (rc)
                return rc;
        res_tip_step_init(&st, load, tput);
        p = (struct ramp_point){load, tput, NAN, NAN, NAN, st.r, st.hosts};
        for (unsigned k = 0; !rc && k < NOPT; k++) {
                double v = NAN;

                if (c->opt[k] >= 0 && csv_opt[k].share)
                        rc = csv_share(it, f, c->opt[k], csv_opt[k].name, &v, err, errlen);
                else if (c->opt[k] >= 0)
                        rc = csv_cell(it, f, c->opt[k], csv_opt[k].name, 1, &v, err, errlen);
                memcpy((char *)&p + csv_opt[k].off, &v, sizeof(v));
        }
        if (!rc && c->host >= 0)
                rc = csv_host(it, f, c, &p, err, errlen);
        if (rc)
                return rc;
        st.lo = isnan(p.lo) ? tput : fmin(p.lo, tput);
        st.hi = isnan(p.hi) ? tput : fmax(p.hi, tput);
        st.r = p.r;
        return ramp_add_step(r, &st, p.lat_ms);
}

int ramp_parse_csv(const char *buf, size_t len, struct ramp_set *out, char *err, size_t errlen)
{
        struct line_iter *it = malloc(sizeof(*it));
        struct csv_cols c;
        struct ramp *r;
        int rc = -ENOMEM, have_header = 0;

        c.clusters = NULL;
        memset(out, 0, sizeof(*out));
        snprintf(out->format, sizeof(out->format), "csv");
        r = ramp_set_push(out, "", "load", "throughput", "latency_ms");
        if (!it || !r)
                goto out;
        line_init(it, buf, len);
        rc = 0;
        while (!rc && line_next(it)) {
                if (it->truncated)
                        rc = errf(err, errlen, -EINVAL, "line %u: longer than %d characters",
                                  it->no, LINE_MAX_LEN - 1);
                else if (blank_or_comment(it->buf))
                        continue;
                else if (!have_header)
                        rc = csv_header(it, &c, err, errlen), have_header = 1;
                else
                        rc = csv_row(it, &c, r, err, errlen);
        }
        if (!rc && !have_header)
                rc = errf(err, errlen, -EINVAL,
                          "line %u: no CSV header (load,throughput[,latency_ms])", it->no);
        if (!rc && c.scan)
                snprintf(r->load_name, sizeof(r->load_name), "clients");
        if (!rc)
                ramp_normalise(r);
        if (!rc && c.clusters)
                rc = ramp_hosts_apply(c.clusters, r);
out:
        if (rc == -ENOMEM)
                snprintf(err, errlen, "out of memory");
        if (rc)
                ramp_set_free(out);
        json_decref(c.clusters);
        free(it);
        return rc;
}

/* ---- sysbench ----------------------------------------------------------- */

struct sb_state {
        double threads, tput, lat;
        int tput_rank; /* which figure set tput: 3 transactions, 2 events/s, 1 operations */
        int in_latency;
        struct ramp *final, *interval;
};

/* The number after "key" on the line, or -EINVAL when the key is there but the number is not. */
static int sb_after(const char *line, const char *key, double *out, int *found)
{
        const char *p = strstr(line, key);
        char *end;

        *found = p != NULL;
        if (!p)
                return 0;
        p += strlen(key);
        while (*p == ' ' || *p == '\t' || *p == '(')
                p++;
        *out = strtod(p, &end);
        return end == p || !isfinite(*out) ? -EINVAL : 0;
}

static int sb_flush(struct sb_state *st, unsigned line, char *err, size_t errlen)
{
        int rc;

        if (st->tput_rank == 0)
                return 0;
        if (st->threads < 0)
                return errf(err, errlen, -EINVAL,
                            "line %u: sysbench report without a 'Number of threads:' line", line);
        rc = ramp_add(st->final, st->threads, st->tput, st->lat);
        st->tput = st->lat = NAN;
        st->tput_rank = 0;
        return rc;
}

/* "[ 10s ] thds: 8 tps: 123.4 qps: ... lat (ms,95%): 12.3 err/s: ..." */
static int sb_interval(struct sb_state *st, const char *line, unsigned no, char *err, size_t errlen)
{
        double thds, tput, lat = NAN, pct;
        int f1, f2;
        const char *l;

        if (sb_after(line, "thds:", &thds, &f1) || !f1)
                return errf(err, errlen, -EINVAL, "line %u: interval line without 'thds: N'", no);
        if (sb_after(line, "tps:", &tput, &f2))
                return errf(err, errlen, -EINVAL, "line %u: bad tps figure", no);
        if (!f2 && (sb_after(line, "eps:", &tput, &f2) || !f2))
                return errf(err, errlen, -EINVAL,
                            "line %u: interval line without tps: or eps:", no);
        if (!strstr(line, "tps:"))
                snprintf(st->interval->tput_name, sizeof(st->interval->tput_name), "eps");
        l = strstr(line, "lat (ms,");
        if (l && sscanf(l, "lat (ms,%lf%%): %lf", &pct, &lat) != 2)
                return errf(err, errlen, -EINVAL, "line %u: bad 'lat (ms,P%%):' figure", no);
        if (l && !st->interval->lat_name[1]) /* set once: "p95" */
                snprintf(st->interval->lat_name, sizeof(st->interval->lat_name), "p%g", pct);
        return ramp_add(st->interval, thds, tput, lat);
}

static int sb_figure(struct sb_state *st, const char *key, int rank, const char *line, unsigned no,
                     char *err, size_t errlen)
{
        const char *p = strstr(line, key), *paren;
        char *end;
        double v;

        if (!p || rank <= st->tput_rank)
                return 0;
        /* "transactions:  1234  (123.4 per sec.)": the rate is inside the parentheses. */
        p += strlen(key);
        paren = strchr(p, '(');
        if (paren)
                p = paren + 1;
        v = strtod(p, &end);
        if (end == p || !isfinite(v))
                return errf(err, errlen, -EINVAL, "line %u: bad figure after '%s'", no, key);
        st->tput = v;
        st->tput_rank = rank;
        snprintf(st->final->tput_name, sizeof(st->final->tput_name), "%s",
                 rank == 3   ? "tps"
                 : rank == 2 ? "eps"
                             : "ops/s");
        return 0;
}

static int sb_line(struct sb_state *st, const char *line, unsigned no, char *err, size_t errlen)
{
        double v;
        int found, rc;

        if (line[0] == '[' && strstr(line, "thds:"))
                return sb_interval(st, line, no, err, errlen);
        if (sb_after(line, "Number of threads:", &v, &found))
                return errf(err, errlen, -EINVAL, "line %u: bad 'Number of threads:'", no);
        if (found) {
                rc = sb_flush(st, no, err, errlen);
                st->threads = v;
                return rc;
        }
        if (strstr(line, "Latency (ms):")) {
                st->in_latency = 1;
                return 0;
        }
        if (st->in_latency && strstr(line, "avg:")) {
                st->in_latency = 0;
                if (sb_after(line, "avg:", &st->lat, &found))
                        return errf(err, errlen, -EINVAL, "line %u: bad 'avg:' latency", no);
                return 0;
        }
        if (strstr(line, "transactions:") && !strstr(line, "per sec."))
                return errf(err, errlen, -EINVAL, "line %u: 'transactions:' without a rate", no);
        rc = sb_figure(st, "transactions:", 3, line, no, err, errlen);
        if (!rc)
                rc = sb_figure(st, "events per second:", 2, line, no, err, errlen);
        if (!rc && strstr(line, "Total operations:") && strstr(line, "per second"))
                rc = sb_figure(st, "Total operations:", 1, line, no, err, errlen);
        return rc;
}

int ramp_parse_sysbench(const char *buf, size_t len, struct ramp_set *out, char *err, size_t errlen)
{
        struct line_iter *it = malloc(sizeof(*it));
        struct sb_state st = {.threads = -1, .tput = NAN, .lat = NAN};
        int rc = -ENOMEM;

        memset(out, 0, sizeof(*out));
        snprintf(out->format, sizeof(out->format), "sysbench");
        st.final = ramp_set_push(out, "", "threads", "tps", "avg");
        if (!st.final || !ramp_set_push(out, "", "threads", "tps", "p"))
                goto out;
        st.final = &out->r[0]; /* the second push may have moved the array */
        st.interval = &out->r[1];
        if (!it)
                goto out;
        line_init(it, buf, len);
        rc = 0;
        while (!rc && line_next(it))
                rc = sb_line(&st, it->buf, it->no, err, errlen);
        if (!rc)
                rc = sb_flush(&st, it->no, err, errlen);
        if (rc)
                goto out;
        /* Final reports win; interval lines are the ramp only when there is nothing else. */
        if (st.final->n == 0) {
                free(out->r[0].p);
                out->r[0] = out->r[1];
        } else {
                free(out->r[1].p);
        }
        out->n = 1;
        ramp_normalise(&out->r[0]);
out:
        if (rc == -ENOMEM)
                snprintf(err, errlen, "out of memory");
        if (rc)
                ramp_set_free(out);
        free(it);
        return rc;
}

/* ---- detection ---------------------------------------------------------- */

static int looks_like_sysbench(const char *buf, size_t len)
{
        struct line_iter *it = malloc(sizeof(*it));
        int yes = 0;

        if (!it)
                return 0;
        line_init(it, buf, len);
        while (!yes && line_next(it))
                yes = !strncmp(it->buf, "sysbench ", 9) || strstr(it->buf, "Number of threads:") ||
                      (it->buf[0] == '[' && strstr(it->buf, "] thds:"));
        free(it);
        return yes;
}

size_t ramp_skip_noise(const char *buf, size_t len, size_t off, unsigned *line)
{
        for (;;) {
                while (off < len && isspace((unsigned char)buf[off]))
                        *line += buf[off++] == '\n';
                if (!(len - off > 5 &&
                      (!strncmp(buf + off, "note:", 5) || !strncmp(buf + off, "fio: ", 5))))
                        return off;
                while (off < len && buf[off] != '\n')
                        off++;
        }
}

/* dir: where a result's series files are (NULL: none). */
static int parse_in(const char *buf, size_t len, const char *dir, struct ramp_set *out, char *err,
                    size_t errlen)
{
        unsigned line = 1;
        size_t i = ramp_skip_noise(buf, len, 0, &line);

        if (i < len && buf[i] == '{')
                return ramp_parse_json_at(buf, len, dir, out, err, errlen);
        if (looks_like_sysbench(buf, len))
                return ramp_parse_sysbench(buf, len, out, err, errlen);
        return ramp_parse_csv(buf, len, out, err, errlen);
}

int ramp_parse_buf(const char *buf, size_t len, struct ramp_set *out, char *err, size_t errlen)
{
        return parse_in(buf, len, NULL, out, err, errlen);
}

int ramp_parse_file(const char *path, struct ramp_set *out, char *err, size_t errlen)
{
        char *buf, why[512], dir[4200];
        size_t len;
        int rc = res_read_file(path, &buf, &len, err, errlen);

        memset(out, 0, sizeof(*out));
        if (rc)
                return rc;
        res_dirname(path, dir, sizeof(dir));
        rc = parse_in(buf, len, dir, out, why, sizeof(why));
        if (rc)
                snprintf(err, errlen, "%s: %s", path, why);
        free(buf);
        return rc;
}
