/*
 * expo.c - the Prometheus text exposition format, line by line.
 *
 * Each line is copied into one buffer and parsed in place: names are cut
 * with a NUL where they end, and label values are unescaped over themselves
 * (an escape only ever shrinks), so a sample's strings all point into the
 * line and nothing is allocated per sample.
 */
#include "core/expo.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
        char *p;       /* next byte to read */
        unsigned line; /* 1-based, for errors */
        char *err;
        size_t errlen;
};

static int bad(struct cursor *c, const char *fmt, ...)
{
        char why[160];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(why, sizeof(why), fmt, ap);
        va_end(ap);
        if (c->errlen)
                snprintf(c->err, c->errlen, "line %u: %s", c->line, why);
        return -EINVAL;
}

/* The series of a body seen so far, by a 64-bit hash of the name and the label set (whose
 * order does not matter), with the line each came on: open addressing, kept half empty. */
struct seen {
        uint64_t *hash; /* 0: empty slot */
        unsigned *line;
        size_t cap, n;
};

static uint64_t fnv(uint64_t h, const char *p)
{
        for (; *p; p++)
                h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
        return (h ^ 0xff) * 0x100000001b3ULL; /* the end, so "ab","c" differs from "a","bc" */
}

static uint64_t series_hash(const struct expo_sample *s)
{
        uint64_t set = 0, h = fnv(0xcbf29ce484222325ULL, s->name);

        for (size_t i = 0; i < s->nlabels; i++) {
                uint64_t l = fnv(fnv(0xcbf29ce484222325ULL, s->labels[i].name), s->labels[i].value);

                set += l ^ (l >> 29); /* a sum: the same set in any order */
        }
        h = (h ^ set) * 0x9e3779b97f4a7c15ULL;
        return h ? h : 1;
}

static int seen_grow(struct seen *t)
{
        size_t cap = t->cap ? t->cap * 2 : 1024;
        uint64_t *hash = calloc(cap, sizeof(*hash));
        unsigned *line = calloc(cap, sizeof(*line));

        if (!hash || !line) {
                free(hash);
                free(line);
                return -ENOMEM;
        }
        for (size_t i = 0; i < t->cap; i++) {
                size_t k;

                if (!t->hash[i])
                        continue;
                for (k = t->hash[i] & (cap - 1); hash[k]; k = (k + 1) & (cap - 1))
                        ;
                hash[k] = t->hash[i];
                line[k] = t->line[i];
        }
        free(t->hash);
        free(t->line);
        t->hash = hash;
        t->line = line;
        t->cap = cap;
        return 0;
}

/* 0 when the series is new (and is now recorded), else the line it first came on; -ENOMEM. */
static long seen_add(struct seen *t, uint64_t h, unsigned line)
{
        size_t k;

        if ((t->n + 1) * 2 > t->cap && seen_grow(t) < 0)
                return -ENOMEM;
        for (k = h & (t->cap - 1); t->hash[k]; k = (k + 1) & (t->cap - 1))
                if (t->hash[k] == h)
                        return (long)t->line[k];
        t->hash[k] = h;
        t->line[k] = line;
        t->n++;
        return 0;
}

const char *expo_label(const struct expo_sample *s, const char *name)
{
        for (size_t i = 0; i < s->nlabels; i++)
                if (!strcmp(s->labels[i].name, name))
                        return s->labels[i].value;
        return NULL;
}

static int is_name_start(char ch, int colon)
{
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' ||
               (colon && ch == ':');
}

static int is_name_char(char ch, int colon)
{
        return is_name_start(ch, colon) || (ch >= '0' && ch <= '9');
}

static void skip_blanks(struct cursor *c)
{
        while (*c->p == ' ' || *c->p == '\t')
                c->p++;
}

/* A metric name (colons allowed) or label name at c->p; its length, 0 when none. */
static size_t name_len(const char *p, int colon)
{
        size_t n = 0;

        if (!is_name_start(p[0], colon))
                return 0;
        while (is_name_char(p[n], colon))
                n++;
        return n;
}

/* A quoted label value at c->p (past the opening quote), unescaped in place. */
static int label_value(struct cursor *c, const char **out)
{
        char *w = c->p;

        *out = w;
        for (;;) {
                char ch = *c->p++;

                if (ch == '\0')
                        return bad(c, "label value not terminated");
                if (ch == '"')
                        break;
                if (ch == '\\') {
                        ch = *c->p++;
                        if (ch == 'n')
                                ch = '\n';
                        else if (ch != '\\' && ch != '"')
                                return bad(c, "label value: unknown escape");
                }
                *w++ = ch;
        }
        *w = '\0';
        return 0;
}

static int labels(struct cursor *c, struct expo_sample *s)
{
        c->p++; /* '{' */
        for (;;) {
                size_t n;
                char *name;
                int ret;

                skip_blanks(c);
                if (*c->p == '}')
                        break;
                n = name_len(c->p, 0);
                if (!n)
                        return bad(c, "bad label name");
                if (s->nlabels == EXPO_MAX_LABELS)
                        return bad(c, "more than %d labels", EXPO_MAX_LABELS);
                name = c->p;
                c->p += n;
                skip_blanks(c);
                if (*c->p != '=')
                        return bad(c, "label %.*s: no '='", (int)n, name);
                name[n] = '\0'; /* over the '=' */
                c->p++;
                skip_blanks(c);
                if (*c->p != '"')
                        return bad(c, "label %s: value not quoted", name);
                c->p++;
                s->labels[s->nlabels].name = name;
                ret = label_value(c, &s->labels[s->nlabels].value);
                if (ret < 0)
                        return ret;
                s->nlabels++;
                skip_blanks(c);
                if (*c->p == ',') {
                        c->p++;
                        continue;
                }
                if (*c->p != '}')
                        return bad(c, "label set: expected ',' or '}'");
                break;
        }
        c->p++; /* '}' */
        return 0;
}

/* The next blank-delimited token, NUL-terminated in place; NULL at line end. */
static char *token(struct cursor *c)
{
        char *t;

        skip_blanks(c);
        if (!*c->p)
                return NULL;
        t = c->p;
        while (*c->p && *c->p != ' ' && *c->p != '\t')
                c->p++;
        if (*c->p)
                *c->p++ = '\0';
        return t;
}

/* Go's ParseFloat as Prometheus writes values: a decimal number, NaN, ±Inf. */
static int number(const char *t, double *v)
{
        const char *u = (*t == '+' || *t == '-') ? t + 1 : t;
        char *end;

        if (!strcmp(u, "Inf") || !strcmp(u, "inf")) {
                *v = *t == '-' ? -INFINITY : INFINITY;
                return 0;
        }
        if (!strcmp(t, "NaN")) {
                *v = NAN;
                return 0;
        }
        /* strtod would also take hex, "infinity" and "nan(...)": the format has none */
        if (strpbrk(t, "xXnN"))
                return -1;
        errno = 0;
        *v = strtod(t, &end);
        if (end == t || *end)
                return -1;
        /* Go prints subnormals (1e-320): an underflow is a value; an overflow Go writes as +Inf */
        return errno == ERANGE && isinf(*v) ? -1 : 0;
}

static int timestamp(const char *t, int64_t *ms)
{
        char *end;
        long long v;

        errno = 0;
        v = strtoll(t, &end, 10);
        if (end == t || *end || errno)
                return -1;
        *ms = v;
        return 0;
}

static int sample_line(struct cursor *c, struct expo_sample *s)
{
        size_t n = name_len(c->p, 1);
        char *name = c->p, *t;
        int ret;

        memset(s, 0, sizeof(*s));
        if (!n)
                return bad(c, "bad metric name");
        c->p += n;
        if (*c->p && *c->p != '{' && *c->p != ' ' && *c->p != '\t')
                return bad(c, "bad metric name");
        skip_blanks(c);
        if (*c->p == '{') {
                ret = labels(c, s);
                if (ret < 0)
                        return ret;
        }
        name[n] = '\0'; /* over the '{' or a blank, both read already */
        s->name = name;
        t = token(c);
        if (!t || number(t, &s->value) < 0)
                return bad(c, "%s: value is not a number", s->name);
        t = token(c);
        if (t) {
                if (timestamp(t, &s->ts_ms) < 0)
                        return bad(c, "%s: timestamp is not an integer", s->name);
                s->has_ts = 1;
        }
        if (token(c))
                return bad(c, "%s: text after the timestamp", s->name);
        return 0;
}

static int comment_line(struct cursor *c)
{
        static const char *const types[] = {"counter", "gauge",   "histogram",
                                            "summary", "untyped", NULL};
        char *kw, *name, *t;

        c->p++; /* '#' */
        kw = token(c);
        if (!kw || (strcmp(kw, "HELP") && strcmp(kw, "TYPE")))
                return 0; /* any other comment */
        name = token(c);
        if (!name || name_len(name, 1) != strlen(name))
                return bad(c, "# %s: bad metric name", kw);
        if (!strcmp(kw, "HELP"))
                return 0; /* the docstring is free text */
        t = token(c);
        for (size_t i = 0; t && types[i]; i++)
                if (!strcmp(t, types[i]))
                        return token(c) ? bad(c, "# TYPE %s: text after the type", name) : 0;
        return bad(c, "# TYPE %s: unknown type", name);
}

/* A series given twice in one body: Prometheus refuses the scrape, so summing or keeping
 * either would report a figure the exporter never meant. */
static int once(struct cursor *c, struct seen *t, const struct expo_sample *s)
{
        long first = seen_add(t, series_hash(s), c->line);

        if (first < 0)
                return (int)first;
        if (first)
                return bad(c, "%s: the same series again (first on line %ld)", s->name, first);
        return 0;
}

int expo_parse(const char *body, size_t len, int (*fn)(void *user, const struct expo_sample *s),
               void *user, char *err, size_t errlen)
{
        struct cursor c = {.err = err, .errlen = errlen};
        struct seen seen = {0};
        struct expo_sample *s;
        char *buf;
        size_t off = 0;
        int ret = 0;

        if (len > EXPO_MAX_BODY) {
                snprintf(err, errlen, "body of %zu bytes is over the %u-byte bound", len,
                         EXPO_MAX_BODY);
                return -E2BIG;
        }
        buf = malloc(EXPO_MAX_LINE + 1);
        s = malloc(sizeof(*s));
        if (!buf || !s) {
                ret = -ENOMEM;
                goto out;
        }
        while (off < len && ret == 0) {
                const char *nl = memchr(body + off, '\n', len - off);
                size_t n = nl ? (size_t)(nl - (body + off)) : len - off;

                c.line++;
                if (n > EXPO_MAX_LINE) {
                        ret = bad(&c, "longer than %d bytes", EXPO_MAX_LINE);
                        break;
                }
                if (memchr(body + off, '\0', n)) {
                        ret = bad(&c, "NUL byte");
                        break;
                }
                memcpy(buf, body + off, n);
                buf[n] = '\0';
                off += n + 1;
                c.p = buf;
                skip_blanks(&c);
                if (*c.p == '\0')
                        continue;
                if (*c.p == '#') {
                        ret = comment_line(&c);
                        continue;
                }
                ret = sample_line(&c, s);
                if (ret == 0)
                        ret = once(&c, &seen, s);
                if (ret == 0)
                        ret = fn(user, s);
        }
out:
        free(seen.hash);
        free(seen.line);
        free(buf);
        free(s);
        return ret;
}
