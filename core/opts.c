/*
 * opts.c - the one options table behind every command. A module lists its
 * options once (struct opt_def) and this file turns that list into
 * command-line parsing, INI job files, validation, --help text and the
 * effective-config echo in result JSON, so the five can never disagree.
 * Names compare with '_' equal to '-' because INI authors write either.
 * A name may appear in more than one group of a command (two modules
 * sharing --percentile): setting it sets every one of them, while the JSON
 * and INI echo list it once, from the first group.
 * Values are parsed and checked before the config is touched: a rejected
 * value leaves the previous one in place.
 */
#include "core/exitcode.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/sbuf.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define OPT_NAME_MAX    128
#define OPT_MSG_MAX     256
#define OPT_HELP_COL    30
#define OPT_SUGGEST_MAX 64

struct opt_ref {
        const struct opt_group *g;
        const struct opt_def *d;
};

static void *opt_field(const struct opt_ref *r)
{
        return (char *)r->g->cfg + r->d->off;
}

static char opt_norm(char c)
{
        return c == '_' ? '-' : c;
}

static int opt_name_eq(const char *a, const char *b)
{
        for (; *a && *b; a++, b++) {
                if (opt_norm(*a) != opt_norm(*b))
                        return 0;
        }
        return *a == *b;
}

static int opt_find(const struct opt_group *g, const char *name, struct opt_ref *r)
{
        const struct opt_def *d;

        for (; g->defs; g++) {
                for (d = g->defs; d->name; d++) {
                        if (opt_name_eq(d->name, name)) {
                                r->g = g;
                                r->d = d;
                                return 0;
                        }
                }
        }
        return -ENOENT;
}

/* True when d is not the first definition of its name (an earlier group owns it). */
static int opt_shadowed(const struct opt_group *g, const struct opt_group *in,
                        const struct opt_def *d)
{
        struct opt_ref r;

        return opt_find(g, d->name, &r) == 0 && (r.g != in || r.d != d);
}

/* Levenshtein distance, '_' equal to '-'; names longer than the buffer count as far away. */
static unsigned opt_distance(const char *a, const char *b)
{
        unsigned row[OPT_SUGGEST_MAX + 1], i, j, la = (unsigned)strlen(a), lb = (unsigned)strlen(b);

        if (la > OPT_SUGGEST_MAX || lb > OPT_SUGGEST_MAX)
                return UINT32_MAX;
        for (j = 0; j <= lb; j++)
                row[j] = j;
        for (i = 1; i <= la; i++) {
                unsigned diag = row[0];

                row[0] = i;
                for (j = 1; j <= lb; j++) {
                        unsigned up = row[j];
                        unsigned sub = diag + (opt_norm(a[i - 1]) != opt_norm(b[j - 1]));

                        row[j] = sub;
                        if (up + 1 < row[j])
                                row[j] = up + 1;
                        if (row[j - 1] + 1 < row[j])
                                row[j] = row[j - 1] + 1;
                        diag = up;
                }
        }
        return row[lb];
}

static int opt_unknown(const struct opt_group *g, const char *name, char *err, size_t errlen)
{
        const struct opt_def *d, *best = NULL;
        unsigned dist, best_dist = UINT32_MAX, limit = 1 + (unsigned)strlen(name) / 4;

        for (; g->defs; g++) {
                for (d = g->defs; d->name; d++) {
                        dist = opt_distance(name, d->name);
                        if (dist < best_dist) {
                                best_dist = dist;
                                best = d;
                        }
                }
        }
        if (best && best_dist <= (limit < 3 ? limit : 3))
                return errf(err, errlen, -EINVAL, "unknown option --%s (did you mean --%s?)", name,
                            best->name);
        return errf(err, errlen, -EINVAL, "unknown option --%s", name);
}

/* A bound as a user would write it: sizes with suffixes, whole numbers without ".0". */
static void opt_fmt_num(const struct opt_def *d, double v, char *buf, size_t len)
{
        if ((d->type == OPT_SIZE || d->type == OPT_SIZELIST) && v >= 0 && v < 0x1p64)
                fmt_size((uint64_t)v, buf, len);
        else if (v == floor(v) && fabs(v) < 1e15)
                snprintf(buf, len, "%.0f", v);
        else
                snprintf(buf, len, "%g", v);
}

/* shown: the value as the user typed it (or formatted alike). */
static int opt_check_bounds(const struct opt_def *d, double v, const char *shown, char *err,
                            size_t errlen)
{
        char b[64];

        if (d->min == d->max)
                return 0;
        if (v < d->min) {
                opt_fmt_num(d, d->min, b, sizeof(b));
                return errf(err, errlen, -EINVAL, "option --%s: %s is below the minimum %s",
                            d->name, shown, b);
        }
        if (v > d->max) {
                opt_fmt_num(d, d->max, b, sizeof(b));
                return errf(err, errlen, -EINVAL, "option --%s: %s is above the maximum %s",
                            d->name, shown, b);
        }
        return 0;
}

/*
 * A parse.c message, which does not name the option, as this option's
 * error. Callers of this file see -EINVAL for any bad value (opts.h), so
 * parse.c's -ERANGE folds into it; only -ENOMEM stays apart.
 */
static int opt_prefix(const struct opt_def *d, int rc, const char *msg, char *err, size_t errlen)
{
        errf(err, errlen, -EINVAL, "option --%s: %s", d->name, msg);
        return rc == -ENOMEM ? rc : -EINVAL;
}

static void opt_fmt_choices(const struct opt_def *d, char *buf, size_t len)
{
        size_t used = 0;
        int i, n;

        buf[0] = '\0';
        for (i = 0; d->choices && d->choices[i] && used < len; i++) {
                n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", d->choices[i]);
                if (n < 0)
                        break;
                used += (size_t)n;
        }
}

static int opt_choice(const struct opt_def *d, const char *word, uint64_t *idx, char *err,
                      size_t errlen)
{
        char list[OPT_MSG_MAX];
        uint64_t i;

        for (i = 0; d->choices && d->choices[i]; i++) {
                if (!strcasecmp(d->choices[i], word)) {
                        *idx = i;
                        return 0;
                }
        }
        opt_fmt_choices(d, list, sizeof(list));
        return errf(err, errlen, -EINVAL, "option --%s: '%s' is not one of: %s", d->name, word,
                    list);
}

/* Split a comma list into trimmed words, calling fn on each; "" is the empty list. */
static int opt_each_word(const struct opt_def *d, const char *val, struct u64_list *l,
                         int (*fn)(const struct opt_def *, const char *, struct u64_list *, char *,
                                   size_t),
                         char *err, size_t errlen)
{
        char word[OPT_NAME_MAX];
        const char *p = val, *end;
        size_t n;
        int rc;

        l->n = 0;
        for (;;) {
                while (isspace((unsigned char)*p))
                        p++;
                end = strchr(p, ',');
                n = end ? (size_t)(end - p) : strlen(p);
                while (n && isspace((unsigned char)p[n - 1]))
                        n--;
                if (!n && !end && !l->n)
                        return 0;
                if (!n || n >= sizeof(word))
                        return errf(err, errlen, -EINVAL, "option --%s: bad item in list '%s'",
                                    d->name, val);
                if (l->n >= PARSE_LIST_MAX)
                        return errf(err, errlen, -EINVAL,
                                    "option --%s: list has more than %d items", d->name,
                                    PARSE_LIST_MAX);
                memcpy(word, p, n);
                word[n] = '\0';
                rc = fn(d, word, l, err, errlen);
                if (rc)
                        return rc;
                if (!end)
                        return 0;
                p = end + 1;
        }
}

static int opt_add_choice(const struct opt_def *d, const char *w, struct u64_list *l, char *err,
                          size_t errlen)
{
        return opt_choice(d, w, &l->v[l->n++], err, errlen);
}

static int opt_add_double(const struct opt_def *d, const char *w, struct u64_list *l, char *err,
                          size_t errlen)
{
        char msg[OPT_MSG_MAX];
        double v;
        int rc;

        rc = parse_double(w, &v, msg, sizeof(msg));
        if (rc)
                return opt_prefix(d, rc, msg, err, errlen);
        rc = opt_check_bounds(d, v, w, err, errlen);
        if (rc)
                return rc;
        memcpy(&l->v[l->n++], &v, sizeof(v));
        return 0;
}

static int opt_parse_u64_list(const struct opt_def *d, const char *val, struct u64_list *l,
                              char *err, size_t errlen)
{
        int is_size = d->type == OPT_SIZELIST;
        char msg[OPT_MSG_MAX], shown[32];
        unsigned i;
        int rc;

        l->n = 0;
        if (!val[strspn(val, " \t")])
                return 0;
        rc = parse_u64_list(val, is_size, l, msg, sizeof(msg));
        if (rc)
                return opt_prefix(d, rc, msg, err, errlen);
        for (i = 0; i < l->n; i++) {
                if (is_size)
                        fmt_size(l->v[i], shown, sizeof(shown));
                else
                        snprintf(shown, sizeof(shown), "%llu", (unsigned long long)l->v[i]);
                rc = opt_check_bounds(d, (double)l->v[i], shown, err, errlen);
                if (rc)
                        return rc;
        }
        return 0;
}

static int opt_parse_scalar(const struct opt_def *d, const char *val, void *out, char *err,
                            size_t errlen)
{
        char msg[OPT_MSG_MAX], shown[32];
        int64_t i64;
        uint64_t u64;
        double dbl;
        int rc;

        switch (d->type) {
        case OPT_BOOL:
                rc = parse_bool(val, out, msg, sizeof(msg));
                return rc ? opt_prefix(d, rc, msg, err, errlen) : 0;
        case OPT_INT:
                rc = parse_i64(val, &i64, msg, sizeof(msg));
                if (rc)
                        return opt_prefix(d, rc, msg, err, errlen);
                snprintf(shown, sizeof(shown), "%lld", (long long)i64);
                rc = opt_check_bounds(d, (double)i64, shown, err, errlen);
                if (!rc)
                        *(long long *)out = i64;
                return rc;
        case OPT_SIZE:
                rc = parse_size(val, &u64, msg, sizeof(msg));
                if (rc)
                        return opt_prefix(d, rc, msg, err, errlen);
                fmt_size(u64, shown, sizeof(shown));
                rc = opt_check_bounds(d, (double)u64, shown, err, errlen);
                if (!rc)
                        *(uint64_t *)out = u64;
                return rc;
        case OPT_DOUBLE:
                rc = parse_double(val, &dbl, msg, sizeof(msg));
                if (rc)
                        return opt_prefix(d, rc, msg, err, errlen);
                rc = opt_check_bounds(d, dbl, val, err, errlen);
                if (!rc)
                        *(double *)out = dbl;
                return rc;
        case OPT_ENUM:
                rc = opt_choice(d, val, &u64, err, errlen);
                if (!rc)
                        *(int *)out = (int)u64;
                return rc;
        default:
                return errf(err, errlen, -EINVAL, "option --%s: unsupported type", d->name);
        }
}

/* Blank the way the list readers skip blanks (isspace: also \v and \f). */
static int opt_blank(const char *s)
{
        while (isspace((unsigned char)*s))
                s++;
        return !*s;
}

/*
 * An empty value (opts.h): refused when the option has a default, since
 * "" would silently replace it; "not set" for a string or list without
 * one. Returns 1 when the caller should parse val as usual.
 */
static int opt_empty(const struct opt_def *d, void *dst, char *err, size_t errlen)
{
        if (d->def && d->def[0])
                return errf(err, errlen, -EINVAL,
                            "option --%s: empty value (leave the option out for its default, %s)",
                            d->name, d->flags & OPT_F_SECRET ? "***" : d->def);
        if (d->type == OPT_STR) {
                free(*(char **)dst);
                *(char **)dst = NULL;
                return 0;
        }
        if (d->type == OPT_LIST || d->type == OPT_SIZELIST || d->type == OPT_ENUMLIST ||
            d->type == OPT_DLIST) {
                ((struct u64_list *)dst)->n = 0;
                return 0;
        }
        return 1;
}

/* A comma list of names (OPT_F_LIST): "a,,b", "a," and ",a" are typing mistakes. */
static int opt_check_items(const struct opt_def *d, const char *val, char *err, size_t errlen)
{
        unsigned item = 1;

        /* The value itself is not quoted: a --target list may hold CHAP secrets. */
        for (const char *p = val;; item++) {
                size_t n = strcspn(p, ",");

                if (strspn(p, " \t") >= n)
                        return errf(err, errlen, -EINVAL,
                                    "option --%s: item %u of the list is empty", d->name, item);
                if (!p[n])
                        return 0;
                p += n + 1;
        }
}

/* Parse val for d into dst, a field of d's type; dst keeps its value on error. */
static int opt_store(const struct opt_def *d, const char *val, void *dst, char *err, size_t errlen)
{
        struct u64_list l;
        char *copy = NULL;
        int rc;

        if (opt_blank(val) && (rc = opt_empty(d, dst, err, errlen)) <= 0)
                return rc;
        switch (d->type) {
        case OPT_STR:
                if ((d->flags & OPT_F_LIST) && (rc = opt_check_items(d, val, err, errlen)))
                        return rc;
                if (!(copy = strdup(val)))
                        return opt_prefix(d, -ENOMEM, "out of memory", err, errlen);
                free(*(char **)dst);
                *(char **)dst = copy;
                return 0;
        case OPT_LIST:
        case OPT_SIZELIST:
                rc = opt_parse_u64_list(d, val, &l, err, errlen);
                break;
        case OPT_ENUMLIST:
                rc = opt_each_word(d, val, &l, opt_add_choice, err, errlen);
                break;
        case OPT_DLIST:
                rc = opt_each_word(d, val, &l, opt_add_double, err, errlen);
                break;
        default:
                return opt_parse_scalar(d, val, dst, err, errlen);
        }
        if (!rc)
                memcpy(dst, &l, sizeof(l));
        return rc;
}

union opt_scratch {
        int i;
        long long ll;
        uint64_t u;
        double d;
        char *s;
        struct u64_list l;
};

/*
 * Store val into every definition called name, in every group: a name
 * shared by two modules means the same thing to both. With dry set the
 * value is only checked, so a caller can reject it before changing anything.
 */
static int opt_store_named(const struct opt_group *g, const char *name, const char *val, int dry,
                           char *err, size_t errlen)
{
        union opt_scratch tmp;
        struct opt_ref r;
        int rc;

        for (r.g = g; r.g->defs; r.g++) {
                for (r.d = r.g->defs; r.d->name; r.d++) {
                        if (!opt_name_eq(r.d->name, name))
                                continue;
                        memset(&tmp, 0, sizeof(tmp));
                        rc = opt_store(r.d, val, dry ? (void *)&tmp : opt_field(&r), err, errlen);
                        if (dry && r.d->type == OPT_STR)
                                free(tmp.s);
                        if (rc)
                                return rc;
                }
        }
        return 0;
}

static int opt_set_named(const struct opt_group *g, const char *name, const char *val, char *err,
                         size_t errlen)
{
        int rc = opt_store_named(g, name, val, 1, err, errlen);

        return rc ? rc : opt_store_named(g, name, val, 0, err, errlen);
}

static void opt_zero(const struct opt_ref *r)
{
        static const size_t sizes[] = {
            [OPT_BOOL] = sizeof(int),
            [OPT_INT] = sizeof(long long),
            [OPT_SIZE] = sizeof(uint64_t),
            [OPT_DOUBLE] = sizeof(double),
            [OPT_STR] = sizeof(char *),
            [OPT_ENUM] = sizeof(int),
            [OPT_LIST] = sizeof(struct u64_list),
            [OPT_SIZELIST] = sizeof(struct u64_list),
            [OPT_ENUMLIST] = sizeof(struct u64_list),
            [OPT_DLIST] = sizeof(struct u64_list),
        };

        if (r->d->type == OPT_STR)
                *(char **)opt_field(r) = NULL;
        else if (r->d->type == OPT_DOUBLE)
                *(double *)opt_field(r) = 0.0;
        else
                memset(opt_field(r), 0, sizes[r->d->type]);
}

int opt_defaults(const struct opt_group *g, char *err, size_t errlen)
{
        struct opt_ref r;
        int rc;

        /* Fields are taken as uninitialised: nothing is freed here (see opt_free). */
        for (r.g = g; r.g->defs; r.g++) {
                for (r.d = r.g->defs; r.d->name; r.d++) {
                        opt_zero(&r);
                        if (r.d->def && (rc = opt_store(r.d, r.d->def, opt_field(&r), err, errlen)))
                                return rc;
                }
        }
        return 0;
}

int opt_set(const struct opt_group *g, const char *name, const char *val, char *err, size_t errlen)
{
        struct opt_ref r;

        if (!strncmp(name, "--", 2))
                name += 2;
        if (opt_find(g, name, &r))
                return opt_unknown(g, name, err, errlen);
        if (!val && r.d->type != OPT_BOOL)
                return errf(err, errlen, -EINVAL, "option --%s needs a value", r.d->name);
        return opt_set_named(g, name, val ? val : "1", err, errlen);
}

/* One "--name[=value]" word; may take the next word as its value (*used = 2). */
static int opt_argv_one(const struct opt_group *g, int argc, char **argv, int *used, char *err,
                        size_t errlen)
{
        const char *arg = argv[0] + 2, *eq = strchr(arg, '='), *val = eq ? eq + 1 : NULL;
        size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
        char name[OPT_NAME_MAX];
        struct opt_ref r;

        *used = 1;
        if (n == 0 || n >= sizeof(name))
                return errf(err, errlen, -EINVAL, "unknown option %s", argv[0]);
        memcpy(name, arg, n);
        name[n] = '\0';
        if (opt_find(g, name, &r)) {
                /* "--no-force" turns a flag off. */
                if (!val && !strncmp(name, "no-", 3) && !opt_find(g, name + 3, &r) &&
                    r.d->type == OPT_BOOL)
                        return opt_set_named(g, name + 3, "0", err, errlen);
                return opt_unknown(g, name, err, errlen);
        }
        if (!val && r.d->type == OPT_BOOL) {
                int b;
                /* fio writes "--direct 1": take a following bool word as the value. */
                if (argc >= 2 && !parse_bool(argv[1], &b, NULL, 0)) {
                        val = argv[1];
                        *used = 2;
                } else {
                        val = "1";
                }
        }
        if (!val) {
                if (argc < 2 || !strncmp(argv[1], "--", 2))
                        return errf(err, errlen, -EINVAL, "option --%s needs a value", r.d->name);
                val = argv[1];
                *used = 2;
        }
        return opt_set_named(g, name, val, err, errlen);
}

int opt_parse_argv(const struct opt_group *g, int argc, char **argv, char **pos, int maxpos,
                   int *npos, int *help, char *err, size_t errlen)
{
        int i, used, rc, only_pos = 0, np = 0;

        *help = 0;
        if (npos)
                *npos = 0;
        for (i = 0; i < argc; i += used) {
                const char *a = argv[i];

                used = 1;
                if (only_pos || a[0] != '-' || !strcmp(a, "-")) {
                        if ((np >= maxpos || !npos) && maxpos > 0 && npos)
                                return errf(err, errlen, -EINVAL,
                                            "unexpected argument '%s': at most %d allowed", a,
                                            maxpos);
                        if (np >= maxpos || !npos)
                                return errf(err, errlen, -EINVAL, "unexpected argument '%s'", a);
                        pos[np++] = argv[i];
                        *npos = np;
                } else if (!strcmp(a, "--")) {
                        only_pos = 1;
                } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
                        *help = 1;
                        return 0;
                } else if (a[1] != '-') {
                        return errf(err, errlen, -EINVAL, "unknown option %s", a);
                } else if ((rc = opt_argv_one(g, argc - i, argv + i, &used, err, errlen))) {
                        return rc;
                }
        }
        return 0;
}

int opt_command_start(const struct opt_group *g, const char *usage, int argc, char **argv,
                      char **pos, int maxpos, int *npos)
{
        char err[512];
        int help = 0;

        if (opt_defaults(g, err, sizeof(err)) ||
            opt_parse_argv(g, argc - 1, argv + 1, pos, maxpos, npos, &help, err, sizeof(err))) {
                log_error("%s: %s", argv[0], err);
                return -EINVAL;
        }
        if (help) {
                opt_help(stdout, g, usage);
                return 1;
        }
        return 0;
}

const char *opt_metavar(const struct opt_def *d)
{
        static const char *const names[] = {
            [OPT_BOOL] = "",      [OPT_INT] = "N",          [OPT_SIZE] = "SIZE",
            [OPT_DOUBLE] = "NUM", [OPT_STR] = "STR",        [OPT_ENUM] = "NAME",
            [OPT_LIST] = "LIST",  [OPT_SIZELIST] = "SIZES", [OPT_ENUMLIST] = "NAMES",
            [OPT_DLIST] = "NUMS",
        };

        return names[d->type];
}

/* In --help: not hidden, and listed once even when two groups share the name. */
int opt_listed(const struct opt_group *g, const struct opt_group *in, const struct opt_def *d)
{
        return !(d->flags & OPT_F_HIDDEN) && !opt_shadowed(g, in, d);
}

static void opt_help_line(FILE *f, const struct opt_def *d, int width)
{
        char left[OPT_NAME_MAX + 16], choices[OPT_MSG_MAX];
        int on = 0;

        snprintf(left, sizeof(left), "--%s%s%s", d->name, d->type == OPT_BOOL ? "" : " ",
                 opt_metavar(d));
        fprintf(f, "  %-*s  %s", width, left, d->help ? d->help : "");
        if (d->type == OPT_ENUM || d->type == OPT_ENUMLIST) {
                opt_fmt_choices(d, choices, sizeof(choices));
                fprintf(f, " (choices: %s)", choices);
        }
        /* A flag that is off by default needs no "[default: 0]". */
        if (d->def && d->def[0] && !(d->flags & OPT_F_SECRET) &&
            (d->type != OPT_BOOL || (!parse_bool(d->def, &on, NULL, 0) && on)))
                fprintf(f, " [default: %s]", d->def);
        fputc('\n', f);
}

void opt_help(FILE *f, const struct opt_group *g, const char *usage)
{
        const struct opt_group *gi;
        const struct opt_def *d;
        int width = 0, n;

        for (gi = g; gi->defs; gi++) {
                for (d = gi->defs; d->name; d++) {
                        n = (int)(strlen(d->name) + 3 + strlen(opt_metavar(d)));
                        if (opt_listed(g, gi, d) && n > width)
                                width = n;
                }
        }
        if (width > OPT_HELP_COL)
                width = OPT_HELP_COL;
        if (usage)
                fprintf(f, "usage: %s\n", usage);
        for (gi = g; gi->defs; gi++) {
                fprintf(f, "\n%s:\n", gi->title ? gi->title : "options");
                for (d = gi->defs; d->name; d++) {
                        if (opt_listed(g, gi, d))
                                opt_help_line(f, d, width);
                }
        }
        fprintf(f, "\n%s", HCI_EXIT_HELP);
}

/* Whether d belongs in JSON/INI output: not secret and not shadowed by an earlier group. */
static int opt_echoed(const struct opt_group *g, const struct opt_group *in,
                      const struct opt_def *d)
{
        return !(d->flags & OPT_F_SECRET) && !opt_shadowed(g, in, d);
}

static json_t *opt_list_json(const struct opt_def *d, const struct u64_list *l)
{
        json_t *a = json_array(), *v;
        unsigned i;

        for (i = 0; a && i < l->n; i++) {
                if (d->type == OPT_DLIST)
                        v = json_real(opt_dlist_get(l, i));
                else if (d->type == OPT_ENUMLIST)
                        v = json_string(d->choices[l->v[i]]);
                else
                        v = json_integer((json_int_t)l->v[i]);
                if (json_array_append_new(a, v)) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

/*
 * JSON holds UTF-8 only, while a path may be any bytes: such a value is
 * echoed with '?' for every byte outside ASCII rather than losing the
 * whole config (json_string refuses it).
 */
static json_t *opt_text_json(const char *s)
{
        json_t *j = json_string(s);
        char *copy;

        if (j || !(copy = strdup(s)))
                return j;
        for (char *p = copy; *p; p++)
                if ((unsigned char)*p >= 0x80)
                        *p = '?';
        j = json_string(copy);
        free(copy);
        return j;
}

const struct opt_def *opt_def_find(const struct opt_group *g, const char *name)
{
        struct opt_ref r;

        return opt_find(g, name, &r) ? NULL : r.d;
}

/* Append the path p (n bytes) to b: as it is when absolute, else after the directory dir. */
static void opt_path_item(struct sbuf *b, const char *p, size_t n, const char *dir)
{
        size_t dl = strlen(dir);

        if (n && p[0] == '/') {
                sb_printf(b, "%.*s", (int)n, p);
                return;
        }
        while (n >= 2 && p[0] == '.' && p[1] == '/') /* "./a", ".//a" */
                for (p += 2, n -= 2; n && *p == '/'; p++, n--)
                        ;
        if (n == 1 && p[0] == '.')
                n = 0;
        while (dl > 1 && dir[dl - 1] == '/')
                dl--;
        sb_printf(b, "%.*s%s%.*s", (int)dl, dir, n && strcmp(dir, "/") ? "/" : "", (int)n, p);
}

char *opt_path_resolve(const struct opt_def *d, const char *val, const char *base)
{
        struct sbuf b = {0}, dir = {0};
        char cwd[4096];

        if (!(d->flags & OPT_F_PATH) || opt_blank(val))
                return strdup(val);
        if (!base || base[0] != '/') {
                if (!getcwd(cwd, sizeof(cwd)))
                        return NULL;
                opt_path_item(&dir, base ? base : "", base ? strlen(base) : 0, cwd);
                if (dir.oom) {
                        sb_free(&dir);
                        return NULL;
                }
                base = dir.s;
        }
        for (const char *p = val;;) {
                size_t n = d->flags & OPT_F_LIST ? strcspn(p, ",") : strlen(p);

                opt_path_item(&b, p, n, base);
                if (!p[n])
                        break;
                sb_printf(&b, ",");
                p += n + 1;
        }
        sb_free(&dir);
        if (b.oom)
                sb_free(&b);
        return b.s;
}

/* A text option's echo; a path absolute (as given if the current directory is gone). */
static json_t *opt_str_json(const struct opt_def *d, const char *s)
{
        char *abs = d->flags & OPT_F_PATH ? opt_path_resolve(d, s, NULL) : NULL;
        json_t *j = opt_text_json(abs ? abs : s);

        free(abs);
        return j;
}

static json_t *opt_value_json(const struct opt_ref *r)
{
        const void *p = opt_field(r);
        const char *s;

        switch (r->d->type) {
        case OPT_BOOL:
                return json_boolean(*(const int *)p);
        case OPT_INT:
                return json_integer(*(const long long *)p);
        case OPT_SIZE:
                return json_integer((json_int_t) * (const uint64_t *)p);
        case OPT_DOUBLE:
                return json_real(*(const double *)p);
        case OPT_STR:
                s = *(char *const *)p;
                return s ? opt_str_json(r->d, s) : json_null();
        case OPT_ENUM:
                return json_string(r->d->choices[*(const int *)p]);
        default:
                return opt_list_json(r->d, p);
        }
}

json_t *opt_to_json(const struct opt_group *g)
{
        json_t *o = json_object();
        struct opt_ref r;

        for (r.g = g; o && r.g->defs; r.g++) {
                for (r.d = r.g->defs; r.d->name; r.d++) {
                        if (opt_echoed(g, r.g, r.d) &&
                            json_object_set_new(o, r.d->name, opt_value_json(&r))) {
                                json_decref(o);
                                return NULL;
                        }
                }
        }
        return o;
}

/* Shortest text that strtod() reads back as exactly v. */
static void opt_fmt_double(double v, char *buf, size_t len)
{
        snprintf(buf, len, "%.15g", v);
        if (strtod(buf, NULL) != v)
                snprintf(buf, len, "%.17g", v);
}

/* One scalar of an echo in job-file form; 0 when it has none (null, object, text with a line
 * break). Booleans are 1/0, doubles the shortest text that reads back exactly. */
static int opt_ini_scalar(struct sbuf *b, const json_t *v)
{
        char buf[64];

        if (json_is_string(v) && !strchr(json_string_value(v), '\n')) {
                sb_printf(b, "%s", json_string_value(v));
        } else if (json_is_integer(v)) {
                sb_printf(b, "%lld", (long long)json_integer_value(v));
        } else if (json_is_real(v)) {
                opt_fmt_double(json_real_value(v), buf, sizeof(buf));
                sb_printf(b, "%s", buf);
        } else if (json_is_boolean(v)) {
                sb_printf(b, "%s", json_is_true(v) ? "1" : "0");
        } else {
                return 0;
        }
        return 1;
}

int opt_ini_line(struct sbuf *b, const char *name, const json_t *v)
{
        size_t i, mark = b->len;
        const json_t *e;

        /* No blank before a string that starts with ';': inih would read it as an
         * inline comment after a blank, and so as an empty value. */
        sb_printf(b, "%s =%s", name,
                  json_is_string(v) && json_string_value(v)[0] == ';' ? "" : " ");
        if (json_is_array(v) && json_array_size(v)) {
                json_array_foreach(v, i, e)
                {
                        if (i)
                                sb_printf(b, ",");
                        if (!opt_ini_scalar(b, e))
                                goto drop;
                }
        } else if (!opt_ini_scalar(b, v)) {
                goto drop;
        }
        sb_printf(b, "\n");
        return 1;
drop: /* unset or not expressible: the option keeps its default when read back */
        if (!b->oom) {
                b->len = mark;
                b->s[mark] = '\0';
        }
        return 0;
}

int opt_to_ini(FILE *f, const struct opt_group *g)
{
        json_t *o = opt_to_json(g);
        struct sbuf b = {0};
        const char *name;
        const json_t *v;
        int rc = 0;

        if (!o)
                return -ENOMEM;
        json_object_foreach(o, name, v) opt_ini_line(&b, name, v);
        if (b.oom)
                rc = -ENOMEM;
        else if (b.s && fputs(b.s, f) == EOF)
                rc = -EIO;
        sb_free(&b);
        json_decref(o);
        return rc;
}

void opt_free(const struct opt_group *g)
{
        struct opt_ref r;
        char **s;

        for (r.g = g; r.g->defs; r.g++) {
                for (r.d = r.g->defs; r.d->name; r.d++) {
                        if (r.d->type != OPT_STR)
                                continue;
                        s = opt_field(&r);
                        free(*s);
                        *s = NULL;
                }
        }
}

double opt_dlist_get(const struct u64_list *l, unsigned i)
{
        double v;

        memcpy(&v, &l->v[i], sizeof(v));
        return v;
}

/*
 * INI job files. The installed inih gives its handler no line number and
 * holds at most INI_MAX_LINE bytes of a line, so inih reads through
 * opt_ini_read(), which counts physical lines and hands an over-long
 * key = value line over as a first chunk plus continuation chunks
 * (" rest", inih's multi-line syntax). opt_ini_handle() joins the chunks
 * of one physical line again before the callback sees the value. Chunks
 * are cut between two non-blank characters so inih's trimming of each
 * chunk loses nothing.
 */
struct opt_ini {
        FILE *f;
        char *line; /* the physical line being handed out */
        size_t cap, len, pos;
        int phys;        /* its number */
        int *chunk_line; /* physical line of every chunk inih read: maps inih's error line */
        int nchunks, chunk_cap;
        int stop, rc;
        opt_ini_cb cb;
        void *user;
        /* The pair waiting for the callback until its line is complete. */
        char *section, *key, *val;
        size_t val_len, val_cap;
        int pending_line;
        /* What inih cannot see: sections named so far, bytes read, a reader's own error. */
        char **sections;
        int nsections;
        size_t total;
        char why[128];
        int why_line;
};

static char *opt_ini_dup(char **dst, const char *s)
{
        free(*dst);
        *dst = strdup(s);
        return *dst;
}

static void opt_ini_flush(struct opt_ini *c)
{
        if (!c->key || c->stop)
                return;
        c->rc = c->cb(c->user, c->section, c->key, c->val, c->pending_line);
        if (c->rc)
                c->stop = 1;
        free(c->key);
        c->key = NULL;
}

/* Geometric growth: a long line arrives in many small chunks. */
static int opt_ini_append(struct opt_ini *c, const char *more)
{
        size_t n = strlen(more), cap = c->val_cap ? c->val_cap : 256;
        char *v = c->val;

        while (cap < c->val_len + n + 1)
                cap *= 2;
        if (cap != c->val_cap || !v) {
                if (!(v = realloc(c->val, cap)))
                        return -ENOMEM;
                c->val = v;
                c->val_cap = cap;
        }
        memcpy(v + c->val_len, more, n + 1);
        c->val_len += n;
        return 0;
}

static int opt_ini_handle(void *user, const char *section, const char *name, const char *value)
{
        struct opt_ini *c = user;
        int line = c->chunk_line[c->nchunks - 1];

        if (c->stop)
                return 1;
        if (c->key && line == c->pending_line && !strcmp(c->key, name) &&
            !strcmp(c->section, section)) {
                if (opt_ini_append(c, value))
                        goto oom;
                return 1;
        }
        opt_ini_flush(c);
        if (c->stop)
                return 1;
        c->val_len = 0;
        if (!opt_ini_dup(&c->section, section) || !opt_ini_dup(&c->key, name) ||
            opt_ini_append(c, value))
                goto oom;
        c->pending_line = line;
        return 1;
oom:
        c->rc = -ENOMEM;
        c->stop = 1;
        return 1;
}

/*
 * Cut a key or continuation line at its inline comment (';' after a blank)
 * and drop the blanks before it and the newline. inih (55) does so for a
 * "name = value" line but not for a continuation line, so without this a
 * value read from a continuation could hold " ;", and its INI echo
 * (opt_ini_line) would then read back cut: one rule for every line.
 */
static void opt_ini_uncomment(struct opt_ini *c)
{
        const char *s = c->line;
        size_t i;

        for (i = 1; i < c->len; i++) {
                if (s[i] == ';' && isspace((unsigned char)s[i - 1]))
                        break;
        }
        c->len = i;
        while (c->len && isspace((unsigned char)s[c->len - 1]))
                c->len--;
}

/* A line inih reads as the continuation of a value: blanks, then neither a
 * comment nor the end of the line. */
static int opt_ini_continues(const char *s)
{
        size_t i = strspn(s, " \t\r\n\v\f");

        return i > 0 && s[i] && s[i] != ';' && s[i] != '#';
}

/* Prepare a line too long for inih: drop comments, trailing blanks and the newline. */
static void opt_ini_shorten(struct opt_ini *c, size_t room)
{
        const char *s = c->line;
        size_t i = strspn(s, " \t");

        if (s[i] == ';' || s[i] == '#')
                c->len = 0;
        else if (s[i] == '[')
                c->len = room; /* inih then reports the unclosed section name */
        else
                opt_ini_uncomment(c);
}

/* Stop the read with a message of the reader's own (a line inih never gets to see). */
static int opt_ini_stop(struct opt_ini *c, int rc, const char *why)
{
        snprintf(c->why, sizeof(c->why), "%s", why);
        c->why_line = c->phys;
        c->rc = rc;
        c->stop = 1;
        return 0;
}

/* One physical line into c->line, bounded in length and in the file's total size. */
static ssize_t opt_ini_getline(struct opt_ini *c)
{
        size_t n = 0;
        int ch;

        while ((ch = getc(c->f)) != EOF) {
                if (n + 2 > c->cap) {
                        size_t cap = c->cap ? c->cap * 2 : 256;
                        char *p = realloc(c->line, cap);

                        if (!p)
                                return -ENOMEM;
                        c->line = p;
                        c->cap = cap;
                }
                if (ch == '\0')
                        return -EILSEQ; /* before the rest of /dev/zero is read */
                c->line[n++] = (char)ch;
                if (++c->total > OPT_INI_FILE_MAX)
                        return -EFBIG;
                if (n > OPT_INI_LINE_MAX)
                        return -E2BIG;
                if (ch == '\n')
                        break;
        }
        if (n == 0)
                return -1;
        c->line[n] = '\0';
        return (ssize_t)n;
}

/* "[name]" lines: a second section of the same name would silently merge into the first. */
static int opt_ini_section(struct opt_ini *c)
{
        const char *s = c->line + strspn(c->line, " \t"), *end;
        char **p;

        if (*s != '[' || !(end = strchr(s, ']')))
                return 0;
        for (int i = 0; i < c->nsections; i++) {
                if (strlen(c->sections[i]) == (size_t)(end - s - 1) &&
                    !strncmp(c->sections[i], s + 1, (size_t)(end - s - 1)))
                        return opt_ini_stop(c, -EINVAL, "section named twice");
        }
        if (c->nsections == OPT_INI_SECTIONS_MAX)
                return opt_ini_stop(c, -EINVAL, "too many sections");
        p = realloc(c->sections, sizeof(*p) * (size_t)(c->nsections + 1));
        if (!p || !(p[c->nsections] = strndup(s + 1, (size_t)(end - s - 1)))) {
                if (p)
                        c->sections = p;
                return opt_ini_stop(c, -ENOMEM, "out of memory");
        }
        c->sections = p;
        c->nsections++;
        return 1;
}

static int opt_ini_next(struct opt_ini *c, size_t room)
{
        ssize_t n = opt_ini_getline(c);

        if (n == -1)
                return 0;
        c->phys++;
        if (n == -ENOMEM)
                return opt_ini_stop(c, -ENOMEM, "out of memory");
        if (n == -EFBIG)
                return opt_ini_stop(c, -EFBIG, "file larger than 16 MiB");
        if (n == -E2BIG)
                return opt_ini_stop(c, -EINVAL, "line longer than 1 MiB");
        if (n == -EILSEQ)
                return opt_ini_stop(c, -EINVAL, "NUL byte in the line");
        opt_ini_section(c);
        if (c->stop)
                return 0;
        c->pos = 0;
        c->len = (size_t)n;
        if (c->len > room) {
                opt_ini_shorten(c, room);
        } else if (opt_ini_continues(c->line)) {
                opt_ini_uncomment(c); /* inih needs no newline: it strips one */
                c->line[c->len] = '\0';
                c->pos = SIZE_MAX;
        } else {
                c->pos = SIZE_MAX; /* short: handed over as it is */
        }
        return 1;
}

/*
 * Length of the next chunk from pos: at most room, ending between two
 * non-blanks; 0 when there is no such place (a cut anywhere else would
 * lose the blanks inih trims off a chunk, and change the value).
 */
static size_t opt_ini_cut(const struct opt_ini *c, size_t room)
{
        const char *s = c->line + c->pos;
        size_t n = c->len - c->pos;

        if (n <= room)
                return n;
        for (n = room; n > 1; n--) {
                if (!isspace((unsigned char)s[n - 1]) && !isspace((unsigned char)s[n]) &&
                    s[n] != ';' && s[n] != '#')
                        return n;
        }
        return 0;
}

static int opt_ini_note_chunk(struct opt_ini *c)
{
        int *p;

        if (c->nchunks == c->chunk_cap) {
                p = realloc(c->chunk_line, sizeof(*p) * (size_t)(c->chunk_cap * 2 + 64));
                if (!p)
                        return -ENOMEM;
                c->chunk_line = p;
                c->chunk_cap = c->chunk_cap * 2 + 64;
        }
        c->chunk_line[c->nchunks++] = c->phys;
        return 0;
}

static char *opt_ini_read(char *str, int num, void *stream)
{
        struct opt_ini *c = stream;
        size_t room = (size_t)num - 3, n;

        if (c->stop || num < 16)
                return NULL;
        if (c->pos >= c->len && !opt_ini_next(c, room))
                return NULL;
        if (opt_ini_note_chunk(c)) {
                c->rc = -ENOMEM;
                c->stop = 1;
                return NULL;
        }
        if (c->pos == SIZE_MAX) {
                memcpy(str, c->line, c->len + 1);
                c->pos = c->len;
                return str;
        }
        n = opt_ini_cut(c, room);
        if (!n && c->pos < c->len) {
                opt_ini_stop(c, -EINVAL,
                             "a long value whose blanks cannot be kept: no two adjacent "
                             "non-blank characters in 190 characters");
                return NULL;
        }
        snprintf(str, (size_t)num, "%s%.*s\n", c->pos ? " " : "", (int)n, c->line + c->pos);
        c->pos += n;
        return str;
}

int opt_read_ini(const char *path, opt_ini_cb cb, void *user, char *err, size_t errlen)
{
        struct opt_ini c = {.cb = cb, .user = user};
        struct stat st;
        int rc = 0, line;

        c.f = fopen(path, "r");
        if (!c.f) {
                rc = -errno;
                errf(err, errlen, -EINVAL, "%s: %s", path, strerror(errno));
                return rc;
        }
        if (fstat(fileno(c.f), &st) == 0 && S_ISDIR(st.st_mode)) {
                fclose(c.f);
                errf(err, errlen, -EINVAL, "%s: is a directory, not a file", path);
                return -EISDIR;
        }
        line = ini_parse_stream(opt_ini_read, &c, opt_ini_handle, &c);
        opt_ini_flush(&c);
        if (c.why[0]) {
                if (c.rc == -EFBIG)
                        errf(err, errlen, -EINVAL, "%s: %s", path, c.why);
                else
                        errf(err, errlen, -EINVAL, "%s:%d: %s", path, c.why_line, c.why);
                rc = c.rc;
        } else if (line > 0 && line <= c.nchunks) {
                rc = errf(err, errlen, -EINVAL,
                          "%s:%d: syntax error (expected [section] or key = value)", path,
                          c.chunk_line[line - 1]);
        } else if (c.rc == -ENOMEM || line < 0) {
                rc = -ENOMEM;
                errf(err, errlen, -EINVAL, "%s: out of memory", path);
        } else if (c.rc) {
                rc = c.rc; /* the callback's own error, message already in its hands */
        } else if (ferror(c.f)) {
                rc = -EIO;
                errf(err, errlen, -EINVAL, "%s: read error", path);
        }
        fclose(c.f);
        free(c.line);
        free(c.chunk_line);
        free(c.section);
        free(c.key);
        free(c.val);
        for (int i = 0; i < c.nsections; i++)
                free(c.sections[i]);
        free(c.sections);
        return rc;
}
