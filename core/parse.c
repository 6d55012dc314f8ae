/*
 * parse.c - turns the text users type (on the command line or in a job
 * file) into numbers, sizes and lists, and sizes back into text. Every
 * parser is strict: the whole string must be consumed, so "4x" or "16,"
 * is an error with a message quoting what was typed, never a silent 4 or
 * 16. Surrounding blanks are ignored because job files and lists written
 * as "1, 4, 16" carry them. Ranges never add their end point unless a step
 * lands on it: "1-100" is 1,2,4,…,64, like a loop a user would write.
 */
#include "core/parse.h"
#include "core/log.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PARSE_WORD_MAX 128

/* Copy s without surrounding blanks into buf; -1 when it does not fit. */
static int trim_copy(const char *s, size_t n, char *buf, size_t len)
{
        while (n && isspace((unsigned char)*s)) {
                s++;
                n--;
        }
        while (n && isspace((unsigned char)s[n - 1]))
                n--;
        if (n >= len)
                return -1;
        memcpy(buf, s, n);
        buf[n] = '\0';
        return 0;
}

/* Leading digits of s as a u64; *end after them. -ERANGE on overflow, -EINVAL when none. */
static int scan_digits(const char *s, uint64_t *out, const char **end)
{
        uint64_t v = 0;
        const char *p = s;
        int rc = 0;

        for (; isdigit((unsigned char)*p); p++) {
                unsigned d = (unsigned)(*p - '0');

                if (v > (UINT64_MAX - d) / 10)
                        rc = -ERANGE;
                v = v * 10 + d;
        }
        *end = p;
        *out = v;
        if (p == s)
                return -EINVAL;
        return rc;
}

int parse_u64(const char *s, uint64_t *out, char *err, size_t errlen)
{
        char w[PARSE_WORD_MAX];
        const char *end;
        int rc;

        if (trim_copy(s, strlen(s), w, sizeof(w)) || !w[0])
                return errf(err, errlen, -EINVAL, "'%s' is not a number", s);
        if (w[0] == '-')
                return errf(err, errlen, -EINVAL, "'%s' is negative", w);
        rc = scan_digits(w[0] == '+' ? w + 1 : w, out, &end);
        if (rc == -EINVAL || *end)
                return errf(err, errlen, -EINVAL, "'%s' is not a number", w);
        if (rc == -ERANGE)
                return errf(err, errlen, -ERANGE, "'%s' is too large", w);
        return 0;
}

int parse_i64(const char *s, int64_t *out, char *err, size_t errlen)
{
        char w[PARSE_WORD_MAX];
        const char *p;
        uint64_t mag;
        int neg, rc;

        if (trim_copy(s, strlen(s), w, sizeof(w)) || !w[0])
                return errf(err, errlen, -EINVAL, "'%s' is not a number", s);
        neg = w[0] == '-';
        rc = scan_digits(w + (neg || w[0] == '+'), &mag, &p);
        if (rc == -EINVAL || *p)
                return errf(err, errlen, -EINVAL, "'%s' is not a number", w);
        if (rc == -ERANGE || mag > (uint64_t)INT64_MAX + neg)
                return errf(err, errlen, -ERANGE, "'%s' is out of range", w);
        /* Negate in unsigned arithmetic so INT64_MIN needs no special case. */
        *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
        return 0;
}

int parse_double(const char *s, double *out, char *err, size_t errlen)
{
        char w[PARSE_WORD_MAX];
        char *end;
        double v;

        if (trim_copy(s, strlen(s), w, sizeof(w)) || !w[0])
                return errf(err, errlen, -EINVAL, "'%s' is not a number", s);
        errno = 0;
        v = strtod(w, &end);
        if (*end || end == w || isnan(v) || strpbrk(w, "xXpP"))
                return errf(err, errlen, -EINVAL, "'%s' is not a number", w);
        if (errno == ERANGE && fabs(v) > 1.0)
                return errf(err, errlen, -ERANGE, "'%s' is out of range", w);
        /* "inf" is no limit to measure against (and isnormal(inf) is 0: test it first) */
        if (isinf(v))
                return errf(err, errlen, -EINVAL, "'%s' is not a finite number", w);
        /* Underflow: a non-zero value that would silently become 0 (or lose its digits). */
        if (errno == ERANGE || (v != 0 && !isnormal(v)))
                return errf(err, errlen, -ERANGE, "'%s' is too small (not 0, yet below %g)", w,
                            DBL_MIN);
        *out = v;
        return 0;
}

/* Power-of-1024 exponent of a size suffix ("", "b", "k", "KiB", "mb", …), -1 if none. */
static int size_shift(const char *suf)
{
        static const char units[] = "kmgtp";
        const char *u;
        char c = (char)tolower((unsigned char)suf[0]);

        if (!c || !strcasecmp(suf, "b"))
                return 0;
        u = strchr(units, c);
        if (!u)
                return -1;
        suf++;
        if (!*suf || !strcasecmp(suf, "b") || !strcasecmp(suf, "ib"))
                return (int)(u - units + 1) * 10;
        return -1;
}

int parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
        char w[PARSE_WORD_MAX];
        const char *end;
        uint64_t v;
        int rc, shift;

        if (trim_copy(s, strlen(s), w, sizeof(w)) || !w[0])
                return errf(err, errlen, -EINVAL, "'%s' is not a size", s);
        if (w[0] == '-')
                return errf(err, errlen, -EINVAL, "'%s' is negative", w);
        rc = scan_digits(w, &v, &end);
        shift = rc == -EINVAL ? -1 : size_shift(end);
        if (shift < 0)
                return errf(err, errlen, -EINVAL, "'%s' is not a size", w);
        if (rc == -ERANGE || v > ((uint64_t)INT64_MAX >> shift))
                return errf(err, errlen, -ERANGE, "'%s' is too large", w);
        *out = v << shift;
        return 0;
}

int parse_bool(const char *s, int *out, char *err, size_t errlen)
{
        static const char *const yes[] = {"1", "true", "yes", "on", NULL};
        static const char *const no[] = {"0", "false", "no", "off", NULL};
        char w[PARSE_WORD_MAX];
        int i;

        if (trim_copy(s, strlen(s), w, sizeof(w)) == 0) {
                for (i = 0; yes[i]; i++) {
                        if (!strcasecmp(w, yes[i])) {
                                *out = 1;
                                return 0;
                        }
                        if (!strcasecmp(w, no[i])) {
                                *out = 0;
                                return 0;
                        }
                }
        }
        return errf(err, errlen, -EINVAL, "'%s' is not a boolean (use 1/0, true/false, yes/no)", s);
}

static int parse_item(const char *s, int is_size, uint64_t *out, char *err, size_t errlen)
{
        return is_size ? parse_size(s, out, err, errlen) : parse_u64(s, out, err, errlen);
}

static int list_push(struct u64_list *l, uint64_t v, char *err, size_t errlen)
{
        if (l->n >= PARSE_LIST_MAX)
                return errf(err, errlen, -ERANGE, "list has more than %d items", PARSE_LIST_MAX);
        l->v[l->n++] = v;
        return 0;
}

/* "a-b" doubles from a; "a-b:step" adds step. Both stop at b. */
static int expand_range(const char *item, const char *dash, int is_size, struct u64_list *l,
                        char *err, size_t errlen)
{
        char a[PARSE_WORD_MAX], b[PARSE_WORD_MAX];
        const char *colon = strchr(dash, ':');
        uint64_t lo, hi, step = 0, v;
        int rc;

        if (trim_copy(item, (size_t)(dash - item), a, sizeof(a)) ||
            trim_copy(dash + 1, colon ? (size_t)(colon - dash - 1) : strlen(dash + 1), b,
                      sizeof(b)) ||
            !a[0] || !b[0])
                return errf(err, errlen, -EINVAL, "'%s' is not a range (use A-B or A-B:STEP)",
                            item);
        rc = parse_item(a, is_size, &lo, err, errlen);
        if (!rc)
                rc = parse_item(b, is_size, &hi, err, errlen);
        if (!rc && colon)
                rc = parse_item(colon + 1, is_size, &step, err, errlen);
        if (rc)
                return rc;
        if (hi < lo)
                return errf(err, errlen, -EINVAL, "range '%s' runs backwards", item);
        if (colon && step == 0)
                return errf(err, errlen, -EINVAL, "range '%s' has a step of 0", item);
        if (!colon && lo == 0)
                return errf(err, errlen, -EINVAL,
                            "doubling range '%s' must start above 0 (or give a step, A-B:STEP)",
                            item);
        for (v = lo;;) {
                rc = list_push(l, v, err, errlen);
                if (rc)
                        return rc;
                /* Stop before the next step would pass hi or wrap around. */
                if (colon ? hi - v < step : v > hi / 2)
                        return 0;
                v = colon ? v + step : v * 2;
        }
}

int parse_u64_list(const char *s, int is_size, struct u64_list *out, char *err, size_t errlen)
{
        struct u64_list l = {0};
        char item[PARSE_WORD_MAX];
        const char *p = s, *comma, *dash;
        uint64_t v;
        int rc;

        for (;;) {
                comma = strchr(p, ',');
                if (trim_copy(p, comma ? (size_t)(comma - p) : strlen(p), item, sizeof(item)))
                        return errf(err, errlen, -EINVAL, "list item too long in '%s'", s);
                if (!item[0])
                        return errf(err, errlen, -EINVAL,
                                    l.n || comma ? "empty item in list '%s'" : "empty list '%s'",
                                    s);
                /* A '-' after the first character separates a range; a leading one is a sign. */
                dash = strchr(item + 1, '-');
                if (dash) {
                        rc = expand_range(item, dash, is_size, &l, err, errlen);
                } else {
                        rc = parse_item(item, is_size, &v, err, errlen);
                        if (!rc)
                                rc = list_push(&l, v, err, errlen);
                }
                if (rc)
                        return rc;
                if (!comma)
                        break;
                p = comma + 1;
        }
        *out = l;
        return 0;
}

void fmt_size(uint64_t bytes, char *buf, size_t len)
{
        static const char units[] = "kmgtp";
        int i;

        for (i = (int)sizeof(units) - 2; i >= 0 && bytes; i--) {
                unsigned shift = (unsigned)(i + 1) * 10;

                if ((bytes & ((UINT64_C(1) << shift) - 1)) == 0) {
                        snprintf(buf, len, "%llu%c", (unsigned long long)(bytes >> shift),
                                 units[i]);
                        return;
                }
        }
        snprintf(buf, len, "%llu", (unsigned long long)bytes);
}
