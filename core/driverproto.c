/*
 * driverproto.c - the driver protocol's lines, their bounded reader, and
 * the carrier that moves them and measures the far clock (driverproto.h).
 * One place encodes and decodes every line, so the controller, the guest
 * bridge and the drivers cannot drift apart, and every number that comes
 * from the other end is checked here once.
 */
#include "core/driverproto.h"
#include "core/hostport.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/hist.h"

#define PFX      "hcisweep-driver "
#define MAX_TOKS 6
#define CHUNK    65536

/* ---- lines ------------------------------------------------------------------- */

static const struct {
        enum dp_kind kind;
        const char *word;
} words[] = {
    {DP_READY, DRIVER_LINE_READY},   {DP_STARTED, DRIVER_LINE_STARTED},
    {DP_SAMPLE, DRIVER_LINE_SAMPLE}, {DP_CLOCK, DRIVER_LINE_CLOCK},
    {DP_RESULT, DRIVER_LINE_RESULT}, {DP_ASK, DRIVER_LINE_ASK},
    {DP_GO, DRIVER_LINE_GO},         {DP_MEASURE, DRIVER_LINE_MEASURE},
    {DP_STOP, DRIVER_LINE_STOP},
};

static const char *word_of(enum dp_kind k)
{
        for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
                if (words[i].kind == k)
                        return words[i].word;
        return NULL;
}

int dp_encode(const struct dp_msg *m, char *buf, size_t len)
{
        const char *w = word_of(m->kind);
        char k[16] = "";
        int n;

        if (!w)
                return -EINVAL;
        if (m->point)
                snprintf(k, sizeof(k), " %u", m->point);
        switch (m->kind) {
        case DP_STARTED:
                n = snprintf(buf, len, "%s %lld%s\n", w, (long long)m->ns, k);
                break;
        case DP_CLOCK:
                n = snprintf(buf, len, "%s %lld\n", w, (long long)m->ns);
                break;
        case DP_SAMPLE:
                if (m->iv_s > 0)
                        n = snprintf(buf, len, "%s %.6f %llu%s iv=%.6f err=%llu lat=%.*s\n", w,
                                     m->t_s, (unsigned long long)m->done, k, m->iv_s,
                                     (unsigned long long)m->errors, (int)m->latlen,
                                     m->lat ? m->lat : "");
                else
                        n = snprintf(buf, len, "%s %.6f %llu%s\n", w, m->t_s,
                                     (unsigned long long)m->done, k);
                break;
        case DP_RESULT:
                if (m->cpu_s >= 0)
                        n = snprintf(buf, len, "%s%s cpu=%.6f\n", w, k, m->cpu_s);
                else
                        n = snprintf(buf, len, "%s%s\n", w, k);
                break;
        case DP_GO:
                if (m->ns)
                        n = snprintf(buf, len, "%s %u %lld\n", w, m->point, (long long)m->ns);
                else
                        n = snprintf(buf, len, "%s%s\n", w, k);
                break;
        case DP_ASK:
                n = snprintf(buf, len, "%s\n", w);
                break;
        default: /* READY, MEASURE, STOP */
                n = snprintf(buf, len, "%s%s\n", w, k);
                break;
        }
        return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

/* The tokens after the word, split at single spaces (at most MAX_TOKS). */
static int split(const char *s, size_t len, char tok[MAX_TOKS][32], int *ntok)
{
        *ntok = 0;
        while (len) {
                const char *sp;
                size_t n;

                if (*s != ' ' || *ntok == MAX_TOKS)
                        return -EPROTO;
                s++;
                len--;
                sp = memchr(s, ' ', len);
                n = sp ? (size_t)(sp - s) : len;
                if (!n || n >= 32)
                        return -EPROTO;
                memcpy(tok[*ntok], s, n);
                tok[(*ntok)++][n] = '\0';
                s += n;
                len -= n;
        }
        return 0;
}

static int num_i64(const char *s, int64_t *v)
{
        char *end;
        long long x;

        errno = 0;
        x = strtoll(s, &end, 10);
        if (end == s || *end || (*s != '-' && (*s < '0' || *s > '9')))
                return -EPROTO;
        if (errno == ERANGE)
                return -ERANGE;
        *v = x;
        return 0;
}

static int num_u64(const char *s, uint64_t *v)
{
        char *end;
        unsigned long long x;

        if (*s < '0' || *s > '9')
                return *s == '-' ? -ERANGE : -EPROTO;
        errno = 0;
        x = strtoull(s, &end, 10);
        if (*end)
                return -EPROTO;
        if (errno == ERANGE)
                return -ERANGE;
        *v = x;
        return 0;
}

static int num_point(const char *s, unsigned *k)
{
        uint64_t v;
        int rc = num_u64(s, &v);

        if (rc == 0 && v > UINT_MAX)
                rc = -ERANGE;
        if (rc == 0)
                *k = (unsigned)v;
        return rc;
}

/* A finite, non-negative figure (seconds). */
static int num_secs(const char *s, double *v)
{
        char *end;
        double x;

        if (*s < '0' || *s > '9')
                return *s == '-' ? -ERANGE : -EPROTO;
        x = strtod(s, &end);
        if (*end)
                return -EPROTO;
        if (!isfinite(x) || x > 1e12)
                return -ERANGE;
        *v = x;
        return 0;
}

/* A sample's tokens after S DONE: [K], then a report interval's iv= and err= (both, with
 * lat=, or none). */
static int sample_rest(struct dp_msg *m, char t[MAX_TOKS][32], int n)
{
        int i = 2, rc = 0;

        if (i < n && !strchr(t[i], '=') && (rc = num_point(t[i++], &m->point)))
                return rc;
        if (i == n)
                return m->lat ? -EPROTO : 0;
        if (n - i != 2 || strncmp(t[i], "iv=", 3) || strncmp(t[i + 1], "err=", 4) || !m->lat)
                return -EPROTO;
        if ((rc = num_secs(t[i] + 3, &m->iv_s)) || (rc = num_u64(t[i + 1] + 4, &m->errors)))
                return rc;
        return m->iv_s > 0 ? 0 : -ERANGE;
}

static int decode_args(struct dp_msg *m, char t[MAX_TOKS][32], int n)
{
        int rc = 0;

        switch (m->kind) {
        case DP_STARTED: /* NS [K] */
                if (n < 1 || n > 2)
                        return -EPROTO;
                rc = num_i64(t[0], &m->ns);
                return rc ? rc : n == 2 ? num_point(t[1], &m->point) : 0;
        case DP_CLOCK:
                return n == 1 ? num_i64(t[0], &m->ns) : -EPROTO;
        case DP_SAMPLE: /* S DONE [K] [iv=L err=E] (lat= is cut off before) */
                if (n < 2 || (rc = num_secs(t[0], &m->t_s)) || (rc = num_u64(t[1], &m->done)))
                        return rc ? rc : -EPROTO;
                return sample_rest(m, t, n);
        case DP_RESULT: /* [K] [cpu=S] */
                for (int i = 0; i < n && !rc; i++)
                        rc = !strncmp(t[i], "cpu=", 4) ? num_secs(t[i] + 4, &m->cpu_s)
                                                       : num_point(t[i], &m->point);
                return rc;
        case DP_GO: /* [K [AT]] */
                if (n > 2)
                        return -EPROTO;
                if (n >= 1 && (rc = num_point(t[0], &m->point)))
                        return rc;
                if (n == 2 && (rc = num_i64(t[1], &m->ns)) == 0 && m->ns < 0)
                        rc = -ERANGE;
                return rc;
        case DP_ASK:
                return n ? -EPROTO : 0;
        default: /* READY, MEASURE, STOP: [K] */
                if (n > 1)
                        return -EPROTO;
                return n ? num_point(t[0], &m->point) : 0;
        }
}

/* A sample's " lat=B" (its last token, the only long one): checked, kept in m, cut off. */
static int cut_lat(const char *line, size_t *len, struct dp_msg *m)
{
        static const char key[] = " lat=";
        const char *p = NULL;

        for (size_t i = 0; i + sizeof(key) - 1 <= *len; i++)
                if (!memcmp(line + i, key, sizeof(key) - 1)) {
                        p = line + i;
                        break;
                }
        if (!p)
                return 0;
        m->lat = p + sizeof(key) - 1;
        m->latlen = *len - (size_t)(m->lat - line);
        *len = (size_t)(p - line);
        return dp_lat_add(m->lat, m->latlen, NULL);
}

int dp_decode(const char *line, size_t len, struct dp_msg *m)
{
        char t[MAX_TOKS][32];
        int n;

        memset(m, 0, sizeof(*m));
        m->cpu_s = -1;
        for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
                size_t wl = strlen(words[i].word);

                if (len < wl || memcmp(line, words[i].word, wl) || (len > wl && line[wl] != ' '))
                        continue;
                m->kind = words[i].kind;
                if (m->kind == DP_SAMPLE && cut_lat(line, &len, m) < 0)
                        return -EPROTO;
                if (split(line + wl, len - wl, t, &n) < 0)
                        return -EPROTO;
                return decode_args(m, t, n);
        }
        /* an unknown word of ours is a driver of another version: not its report */
        return len >= strlen(PFX) && !memcmp(line, PFX, strlen(PFX)) ? -EPROTO : 0;
}

/* ---- a sample's latency buckets ------------------------------------------------ */

/* One pool (index cur at pooling 2^p, count cnt) as "D:C" after buf[0..*off); -1 full. */
static int lat_pair(char *buf, size_t len, size_t *off, uint64_t *prev, uint64_t cur, unsigned p,
                    uint64_t cnt)
{
        uint64_t at = (cur << p) + ((1u << p) >> 1); /* a pool stands at its middle bucket */
        int w = snprintf(buf + *off, len - *off, "%s%llu:%llu", *off ? "," : "",
                         (unsigned long long)(at - *prev), (unsigned long long)cnt);

        if (w < 0 || (size_t)w >= len - *off)
                return -1;
        *off += (size_t)w;
        *prev = at;
        return 0;
}

/* The buckets of hist_to_json's array bk, pooled by 2^p, into buf; its length or -1. */
static int lat_pairs(const json_t *bk, unsigned p, char *buf, size_t len)
{
        size_t i, off = 0;
        uint64_t prev = 0, cur = 0, cnt = 0;
        json_t *pr;

        if (!len)
                return -1;
        buf[0] = '\0';
        json_array_foreach(bk, i, pr)
        {
                uint64_t idx = (uint64_t)json_integer_value(json_array_get(pr, 0)) >> p;
                uint64_t c = (uint64_t)json_integer_value(json_array_get(pr, 1));

                if (cnt && idx == cur) {
                        cnt += c;
                        continue;
                }
                if (cnt && lat_pair(buf, len, &off, &prev, cur, p, cnt) < 0)
                        return -1;
                cur = idx;
                cnt = c;
        }
        if (cnt && lat_pair(buf, len, &off, &prev, cur, p, cnt) < 0)
                return -1;
        return (int)off;
}

int dp_lat_format(const struct hist *h, char *buf, size_t len)
{
        json_t *j = hist_to_json(h), *bk = j ? json_object_get(j, "buckets") : NULL;
        int n = -1;

        if (!bk) {
                json_decref(j);
                return -ENOMEM;
        }
        for (unsigned p = 0; n < 0 && (1u << p) < hist_nbuckets(); p++)
                n = lat_pairs(bk, p, buf, len);
        json_decref(j);
        return n < 0 ? -ENOSPC : n;
}

/* One decimal number of s[*i..len) up to the next stop character. */
static int lat_num(const char *s, size_t len, size_t *i, uint64_t *v)
{
        size_t start = *i;

        *v = 0;
        for (; *i < len && s[*i] >= '0' && s[*i] <= '9'; (*i)++) {
                if (*v > (UINT64_MAX - 9) / 10)
                        return -ERANGE;
                *v = *v * 10 + (uint64_t)(s[*i] - '0');
        }
        return *i > start && *i - start <= 20 ? 0 : -EPROTO;
}

int dp_lat_add(const char *lat, size_t len, struct hist *h)
{
        uint64_t idx = 0, total = 0;
        size_t i = 0;

        while (i < len) {
                uint64_t d, c, lo, hi;
                int rc;

                if (i && lat[i++] != ',')
                        return -EPROTO;
                if ((rc = lat_num(lat, len, &i, &d)) < 0)
                        return rc;
                if (i >= len || lat[i++] != ':')
                        return -EPROTO;
                if ((rc = lat_num(lat, len, &i, &c)) < 0)
                        return rc;
                if (d > hist_nbuckets() || (idx += d) >= hist_nbuckets() ||
                    __builtin_add_overflow(total, c, &total))
                        return -ERANGE;
                if (h && c) {
                        hist_bucket_range((unsigned)idx, &lo, &hi);
                        hist_record_n(h, lo + (hi - lo) / 2, c);
                }
        }
        return 0;
}

/* ---- the reader ------------------------------------------------------------- */

struct dp_reader {
        char who[128];
        char *buf;
        size_t cap, start, len; /* buf[start..len) not taken yet */
        int in_doc;             /* the next line is a RESULT's document */
        struct dp_msg head;     /* that RESULT's header */
        int err;                /* spent: the error given again */
        char errmsg[256];
};

struct dp_reader *dp_reader_new(const char *who)
{
        struct dp_reader *r = calloc(1, sizeof(*r));

        if (r)
                snprintf(r->who, sizeof(r->who), "%s", who);
        return r;
}

void dp_reader_free(struct dp_reader *r)
{
        if (r)
                free(r->buf);
        free(r);
}

/* Room for n more bytes after buf[len]; what was taken is dropped first. */
static int room(struct dp_reader *r, size_t n)
{
        char *b;
        size_t cap;

        if (r->start) {
                memmove(r->buf, r->buf + r->start, r->len - r->start);
                r->len -= r->start;
                r->start = 0;
        }
        if (r->cap - r->len >= n)
                return 0;
        cap = r->cap ? r->cap : 4096;
        while (cap - r->len < n)
                cap *= 2;
        if (!(b = realloc(r->buf, cap)))
                return -ENOMEM;
        r->buf = b;
        r->cap = cap;
        return 0;
}

int dp_reader_push(struct dp_reader *r, const void *buf, size_t n)
{
        if (room(r, n) < 0)
                return -ENOMEM;
        memcpy(r->buf + r->len, buf, n);
        r->len += n;
        return 0;
}

int dp_reader_fill(struct dp_reader *r, int fd)
{
        ssize_t n;

        if (r->err) /* spent: what comes is read (the far end is not blocked) and dropped */
                r->start = r->len = 0;
        if (room(r, CHUNK) < 0)
                return -ENOMEM;
        do
                n = read(fd, r->buf + r->len, CHUNK);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : -errno;
        r->len += (size_t)n;
        return (int)n;
}

static int spent(struct dp_reader *r, int rc, char *err, size_t errlen)
{
        r->err = rc;
        snprintf(err, errlen, "%s", r->errmsg);
        return rc;
}

static const char *kind_name(enum dp_kind k)
{
        const char *w = word_of(k);

        return w ? w : "line";
}

int dp_reader_next(struct dp_reader *r, struct dp_msg *m, char *err, size_t errlen)
{
        for (;;) {
                const char *p = r->buf + r->start, *nl;
                size_t left = r->len - r->start, bound = r->in_doc ? DP_DOC_MAX : DP_LINE_MAX;
                int rc;

                if (r->err)
                        return spent(r, r->err, err, errlen);
                nl = left ? memchr(p, '\n', left < bound + 1 ? left : bound + 1) : NULL;
                if (!nl) {
                        if (left <= bound)
                                return 0;
                        snprintf(r->errmsg, sizeof(r->errmsg), "%s: %s over %u bytes", r->who,
                                 r->in_doc ? "a result document" : "a line", (unsigned)bound);
                        return spent(r, -EMSGSIZE, err, errlen);
                }
                r->start += (size_t)(nl - p) + 1;
                if (r->in_doc) {
                        r->in_doc = 0;
                        *m = r->head;
                        m->doc = p;
                        m->doclen = (size_t)(nl - p);
                        return 1;
                }
                rc = dp_decode(p, (size_t)(nl - p), m);
                if (rc < 0) {
                        /* the line's control characters are the other end's: never replayed */
                        char raw[62], shown[100];
                        size_t n =
                            (size_t)(nl - p) < sizeof(raw) - 1 ? (size_t)(nl - p) : sizeof(raw) - 1;

                        memcpy(raw, p, n);
                        raw[n] = '\0';
                        hostport_printable(raw, 60, shown, sizeof(shown));
                        snprintf(r->errmsg, sizeof(r->errmsg), "%s: %s '%.99s'", r->who,
                                 rc == -ERANGE ? "a number out of range in" : "a malformed line",
                                 shown);
                        return spent(r, rc, err, errlen);
                }
                if (m->kind == DP_OTHER)
                        continue;
                if (m->kind == DP_RESULT) {
                        r->head = *m;
                        r->in_doc = 1;
                        continue;
                }
                return 1;
        }
}

/* ---- writing ------------------------------------------------------------------ */

static int write_all(int fd, const char *s, size_t n)
{
        while (n) {
                ssize_t w = write(fd, s, n);

                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0 && errno == EAGAIN) {
                        struct pollfd p = {.fd = fd, .events = POLLOUT};

                        poll(&p, 1, -1);
                        continue;
                }
                if (w <= 0)
                        return w < 0 ? -errno : -EIO;
                s += w;
                n -= (size_t)w;
        }
        return 0;
}

int dp_send(int fd, const struct dp_msg *m, char *err, size_t errlen)
{
        char line[DP_LINE_MAX + 2];
        int n = dp_encode(m, line, sizeof(line)), rc;

        if (n < 0) {
                snprintf(err, errlen, "a %s line that cannot be written", kind_name(m->kind));
                return n;
        }
        rc = write_all(fd, line, (size_t)n);
        if (!rc && m->kind == DP_RESULT) {
                if (m->doclen > DP_DOC_MAX || memchr(m->doc, '\n', m->doclen))
                        rc = -EMSGSIZE;
                else if (!(rc = write_all(fd, m->doc, m->doclen)))
                        rc = write_all(fd, "\n", 1);
        }
        if (rc)
                snprintf(err, errlen, "writing '%s': %s", kind_name(m->kind), strerror(-rc));
        return rc;
}

int dp_send_password(int fd, const char *pw, char *err, size_t errlen)
{
        size_t len = strlen(pw);
        char line[DP_PASSWORD_MAX + 2];
        int rc;

        if (len > DP_PASSWORD_MAX || strchr(pw, '\n')) {
                snprintf(err, errlen, "its password does not fit on one line");
                return -EINVAL;
        }
        memcpy(line, pw, len);
        line[len++] = '\n';
        rc = write_all(fd, line, len);
        explicit_bzero(line, sizeof(line));
        if (rc)
                snprintf(err, errlen, "could not give it the password: %s", strerror(-rc));
        return rc;
}

int dp_read_password(int fd, char *pw, size_t len, char *err, size_t errlen)
{
        size_t n = 0;

        for (;;) {
                ssize_t r = read(fd, pw + n, 1);

                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0 || (pw[n] != '\n' && n + 1 >= len)) {
                        explicit_bzero(pw, len);
                        if (r <= 0)
                                snprintf(err, errlen, "no password line on standard input");
                        else
                                snprintf(err, errlen, "a password line over %zu bytes", len - 1);
                        return -EINVAL;
                }
                if (pw[n] == '\n')
                        break;
                n++;
        }
        pw[n] = '\0';
        if (n && pw[n - 1] == '\r')
                pw[n - 1] = '\0';
        return 0;
}

/* ---- clocks ------------------------------------------------------------------- */

int64_t dp_real_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void dp_self_exe(char *buf, size_t len)
{
        ssize_t n = readlink("/proc/self/exe", buf, len - 1);

        if (n <= 0 || (size_t)n >= len - 1)
                snprintf(buf, len, "/proc/self/exe");
        else
                buf[n] = '\0';
}

double dp_self_cpu_s(void)
{
        struct rusage ru;

        if (getrusage(RUSAGE_SELF, &ru) < 0)
                return -1;
        return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
               ru.ru_stime.tv_usec / 1e6;
}

int64_t dp_sub_sat(int64_t a, int64_t b)
{
        int64_t r;

        if (__builtin_sub_overflow(a, b, &r))
                return b < 0 ? INT64_MAX : INT64_MIN;
        return r;
}

void dp_clock_add(struct dp_clock *c, int64_t t0, int64_t remote_ns, int64_t t1)
{
        int64_t rtt, mid, off;

        if (t1 < t0 || __builtin_sub_overflow(t1, t0, &rtt) ||
            __builtin_add_overflow(t0, rtt / 2, &mid) ||
            __builtin_sub_overflow(remote_ns, mid, &off))
                return;
        if (c->known && rtt / 2 >= c->err_ns)
                return;
        c->known = 1;
        c->offset_ns = off;
        c->err_ns = rtt / 2;
}

int64_t dp_clock_to_local(const struct dp_clock *c, int64_t remote_ns)
{
        return c->known ? dp_sub_sat(remote_ns, c->offset_ns) : remote_ns;
}

int64_t dp_clock_to_remote(const struct dp_clock *c, int64_t local_ns)
{
        int64_t r;

        if (!c->known)
                return local_ns;
        if (__builtin_add_overflow(local_ns, c->offset_ns, &r))
                return c->offset_ns < 0 ? INT64_MIN : INT64_MAX;
        return r;
}

/* ---- carriers ------------------------------------------------------------------ */

struct dp_carrier {
        const struct dp_carrier_ops *ops;
        void *ctx;
        int in, out;
        char who[128];
        struct dp_reader *r;
        struct dp_clock clock;
};

struct dp_carrier *dp_carrier_new(const struct dp_carrier_ops *ops, void *ctx, int in_fd,
                                  int out_fd, const char *who)
{
        struct dp_carrier *c = calloc(1, sizeof(*c));

        if (!c || !(c->r = dp_reader_new(who))) {
                free(c);
                if (in_fd >= 0)
                        close(in_fd);
                if (out_fd >= 0)
                        close(out_fd);
                return NULL;
        }
        c->ops = ops;
        c->ctx = ctx;
        c->in = in_fd;
        c->out = out_fd;
        snprintf(c->who, sizeof(c->who), "%s", who);
        if (out_fd >= 0)
                fcntl(out_fd, F_SETFL, fcntl(out_fd, F_GETFL) | O_NONBLOCK);
        return c;
}

void dp_carrier_free(struct dp_carrier *c)
{
        if (!c)
                return;
        dp_carrier_close_input(c);
        if (c->out >= 0)
                close(c->out);
        dp_reader_free(c->r);
        free(c);
}

void *dp_carrier_ctx(const struct dp_carrier *c)
{
        return c->ctx;
}

const char *dp_carrier_name(const struct dp_carrier *c)
{
        return c->ops->name;
}

int dp_carrier_out_fd(const struct dp_carrier *c)
{
        return c->out;
}

const struct dp_clock *dp_carrier_clock(const struct dp_carrier *c)
{
        return &c->clock;
}

void dp_carrier_close_input(struct dp_carrier *c)
{
        if (c->in >= 0) {
                close(c->in);
                c->in = -1;
        }
}

int dp_carrier_send(struct dp_carrier *c, const struct dp_msg *m, char *err, size_t errlen)
{
        struct dp_msg out = *m;
        char e[200];
        int rc;

        if (c->in < 0) {
                snprintf(err, errlen, "%s: its input is closed", c->who);
                return -EPIPE;
        }
        if (out.kind == DP_GO && out.ns)
                out.ns = dp_clock_to_remote(&c->clock, out.ns);
        rc = dp_send(c->in, &out, e, sizeof(e));
        if (rc)
                snprintf(err, errlen, "%s: %s", c->who, e);
        return rc;
}

int dp_carrier_send_password(struct dp_carrier *c, const char *pw, char *err, size_t errlen)
{
        if (c->in < 0) {
                snprintf(err, errlen, "its input is closed");
                return -EPIPE;
        }
        return dp_send_password(c->in, pw, err, errlen);
}

int dp_carrier_fill(struct dp_carrier *c)
{
        int rc;

        if (c->out < 0)
                return 0;
        rc = dp_reader_fill(c->r, c->out);
        if (rc == 0 || (rc < 0 && rc != -EAGAIN)) {
                close(c->out);
                c->out = -1;
        }
        return rc;
}

int dp_carrier_next(struct dp_carrier *c, struct dp_msg *m, char *err, size_t errlen)
{
        int rc = dp_reader_next(c->r, m, err, errlen);

        if (rc == 1 && (m->kind == DP_STARTED || m->kind == DP_CLOCK))
                m->local_ns = dp_clock_to_local(&c->clock, m->ns);
        return rc;
}

int dp_carrier_measure(struct dp_carrier *c, int timeout_ms, char *err, size_t errlen)
{
        struct dp_clock k = {0};

        for (int i = 0; i < DP_CLOCK_TRIES; i++) {
                int64_t t0 = dp_real_ns(), remote, t1;
                int rc = c->ops->read_clock(c, &remote, timeout_ms, err, errlen);

                if (rc < 0)
                        return rc;
                t1 = dp_real_ns();
                dp_clock_add(&k, t0, remote, t1);
        }
        c->clock = k;
        return 0;
}

/* This host: the clock is ours. */
static int pipe_clock(struct dp_carrier *c, int64_t *remote_ns, int timeout_ms, char *err,
                      size_t errlen)
{
        (void)c, (void)timeout_ms, (void)err, (void)errlen;
        *remote_ns = dp_real_ns();
        return 0;
}

/* Another host or a guest: ask, and wait for the answer (the driver says nothing else while
 * it waits for its go; a guest's bridge answers with the guest's clock). */
static int line_clock(struct dp_carrier *c, int64_t *remote_ns, int timeout_ms, char *err,
                      size_t errlen)
{
        uint64_t end = clk_now_ns() + (uint64_t)timeout_ms * 1000000ull;
        struct dp_msg m = {.kind = DP_ASK};
        int rc = dp_carrier_send(c, &m, err, errlen);

        while (rc == 0) {
                struct pollfd p = {.fd = c->out, .events = POLLIN};
                uint64_t now = clk_now_ns();

                rc = dp_carrier_next(c, &m, err, errlen);
                if (rc == 1 && m.kind == DP_CLOCK) {
                        *remote_ns = m.ns;
                        return 0;
                }
                if (rc == 1) {
                        snprintf(err, errlen, "%s: said '%s' when asked for its clock", c->who,
                                 kind_name(m.kind));
                        return -EPROTO;
                }
                if (rc < 0)
                        return rc;
                if (c->out < 0 || now >= end) {
                        snprintf(err, errlen, "%s: %s when asked for its clock", c->who,
                                 c->out < 0 ? "its output ended" : "no answer in time");
                        return c->out < 0 ? -EPIPE : -ETIMEDOUT;
                }
                if (poll(&p, 1, (int)((end - now) / 1000000ull) + 1) < 0 && errno != EINTR)
                        return -errno;
                rc = dp_carrier_fill(c);
                rc = rc == -EAGAIN || rc >= 0 ? 0 : rc;
        }
        return rc;
}

const struct dp_carrier_ops dp_carrier_pipe = {"pipe", pipe_clock};
const struct dp_carrier_ops dp_carrier_ssh = {"ssh", line_clock};
const struct dp_carrier_ops dp_carrier_guest = {"guest", line_clock};

/* ---- the driver's side ---------------------------------------------------------- */

int dp_wait_go(int in_fd, int out_fd, const volatile sig_atomic_t *stop, struct dp_msg *go,
               char *err, size_t errlen)
{
        char line[DP_LINE_MAX + 1];
        size_t len = 0;

        for (;;) {
                struct pollfd p = {.fd = in_fd, .events = POLLIN};
                ssize_t n;

                if (stop && *stop)
                        return 0;
                /* a slice only so a signal between the check and the wait is seen */
                if (poll(&p, 1, 200) <= 0)
                        continue;
                n = read(in_fd, line + len, 1); /* one byte: what follows the go stays queued */
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return 0;
                if (line[len] != '\n') {
                        if (++len > DP_LINE_MAX) {
                                snprintf(err, errlen, "an order over %d bytes", DP_LINE_MAX);
                                return -EMSGSIZE;
                        }
                        continue;
                }
                if (dp_decode(line, len, go) < 0) {
                        snprintf(err, errlen, "a malformed order '%.*s'", (int)len, line);
                        return -EPROTO;
                }
                len = 0;
                if (go->kind == DP_ASK) {
                        struct dp_msg c = {.kind = DP_CLOCK, .ns = dp_real_ns()};

                        if (dp_send(out_fd, &c, err, errlen) < 0)
                                return 0;
                        continue;
                }
                return go->kind == DP_GO;
        }
}
