/*
 * resfile.c - result files that survive crashes and full disks.
 *
 * A result is written to "NAME.tmp.PID" next to the target, flushed with
 * fsync, renamed over the target and the directory is fsynced so the
 * rename itself is durable. rename() within one directory is atomic, so a
 * reader (or a rerun after a crash or SIGKILL) sees the old complete file
 * or the new complete file. The PID in the temporary name keeps two
 * processes writing the same result from truncating each other's file.
 */
#include "core/resfile.h"
#include "core/clock.h"
#include "core/monitor.h"
#include "core/secret.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(RES_REAL_DIGITS))
/* A series row: one line. */
#define ROW_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(RES_REAL_DIGITS))

json_t *res_window_json(int64_t start_ms, int64_t end_ms)
{
        char a[32], b[32];

        if (start_ms <= 0 || end_ms < start_ms)
                return json_null();
        clk_iso8601_ms(start_ms, a, sizeof(a));
        clk_iso8601_ms(end_ms, b, sizeof(b));
        return json_pack("{s:s,s:s}", "start", a, "end", b);
}

json_t *res_as_written(const json_t *j)
{
        char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER |
                                       JSON_REAL_PRECISION(RES_REAL_DIGITS));
        json_t *o;

        if (!text)
                return NULL;
        o = json_loads(text, JSON_DECODE_ANY, NULL);
        free(text);
        return o;
}

/* Every string of the config echo without CHAP secrets (core/secret.h), in place. */
static void redact_config(json_t *config)
{
        const char *key;
        json_t *v;

        json_object_foreach(config, key, v)
        {
                const char *s = json_string_value(v);
                char *clean = s ? malloc(strlen(s) + 1) : NULL;

                if (clean && secret_redact(s, clean, strlen(s) + 1))
                        json_string_set(v, clean);
                free(clean);
        }
}

json_t *res_new(const char *kind, json_t *config)
{
        char now[32];
        json_t *o = json_object();
        int bad = !o;

        if (bad)
                return NULL;
        clk_iso8601_now(now, sizeof(now));
        bad |= json_object_set_new(o, "schema_version", json_integer(RES_SCHEMA_VERSION));
        bad |= json_object_set_new(o, "hcisweep_version", json_string(HCISWEEP_VERSION));
        bad |= json_object_set_new(o, "kind", json_string(kind ? kind : ""));
        bad |= json_object_set_new(o, "started_at", json_string(now));
        redact_config(config);
        bad |= json_object_set(o, "config", config ? config : json_null());
        bad |= json_object_set_new(o, "host", host_info_json());
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static int write_all(int fd, const char *buf, size_t len)
{
        ssize_t n;

        while (len > 0) {
                n = write(fd, buf, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                buf += n;
                len -= (size_t)n;
        }
        return 0;
}

/* The directory holding path ("." when it has no slash). Caller frees. */
static char *dir_of(const char *path)
{
        const char *slash = strrchr(path, '/');

        if (!slash)
                return strdup(".");
        if (slash == path)
                return strdup("/");
        return strndup(path, (size_t)(slash - path));
}

void res_dirname(const char *path, char *dir, size_t len)
{
        const char *slash = strrchr(path, '/');

        snprintf(dir, len, "%.*s", slash ? (int)(slash - path + (slash == path)) : 1,
                 slash ? path : ".");
}

static int fsync_dir(const char *path)
{
        char *dir = dir_of(path);
        int fd, ret = 0;

        if (!dir)
                return -ENOMEM;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                ret = -errno;
                goto out;
        }
        /* some filesystems cannot fsync a directory; the rename stands anyway */
        if (fsync(fd) < 0 && errno != EINVAL)
                ret = -errno;
        close(fd);
out:
        free(dir);
        return ret;
}

/* A full filesystem names the directory: that is what the user has to free or change. */
static void write_error(const char *path, int ret, char *err, size_t errlen)
{
        char *dir = ret == -ENOSPC || ret == -EDQUOT ? dir_of(path) : NULL;

        if (dir)
                snprintf(err, errlen, "no space left on %s (%s not written%s)", dir, path,
                         ret == -EDQUOT ? ": disk quota exceeded" : "");
        else
                snprintf(err, errlen, "%s: %s", path, strerror(-ret));
        free(dir);
}

/* What a temporary file is filled by: 0 or -errno. */
typedef int (*fill_fn)(int fd, void *user);

static int write_tmp(const char *tmp, fill_fn fill, void *user)
{
        int fd, ret;

        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        ret = fill(fd, user);
        if (!ret && fsync(fd) < 0)
                ret = -errno;
        /* close() reports delayed write errors on NFS */
        if (close(fd) < 0 && !ret)
                ret = -errno;
        return ret;
}

/* path replaced atomically by what fill writes (the file's opening paragraph). */
static int write_atomic(const char *path, fill_fn fill, void *user, char *err, size_t errlen)
{
        char *tmp = NULL;
        int ret, renamed = 0;

        if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0) {
                tmp = NULL;
                ret = -ENOMEM;
                goto out;
        }
        ret = write_tmp(tmp, fill, user);
        if (ret < 0)
                goto out;
        if (rename(tmp, path) < 0) {
                ret = -errno;
                goto out;
        }
        renamed = 1;
        ret = fsync_dir(path);
out:
        if (ret < 0) {
                if (tmp && !renamed)
                        unlink(tmp);
                write_error(path, ret, err, errlen);
        }
        free(tmp);
        return ret;
}

struct text {
        const char *s;
        size_t len;
};

static int fill_text(int fd, void *user)
{
        const struct text *t = user;

        return write_all(fd, t->s, t->len);
}

int res_write_text(const char *path, const char *text, unsigned long len, char *err, size_t errlen)
{
        struct text t = {text, len};

        return write_atomic(path, fill_text, &t, err, errlen);
}

/* The end of the string starting at s[i] == '"' (the index of its closing quote). */
static size_t string_end(const char *s, size_t i)
{
        for (i++; s[i] && s[i] != '"'; i++)
                if (s[i] == '\\' && s[i + 1])
                        i++;
        return i;
}

/* The index of the ']' closing the array at s[i] == '[', or 0 when it holds an object. */
static size_t flat_array_end(const char *s, size_t i)
{
        int depth = 0;

        for (; s[i]; i++) {
                if (s[i] == '"')
                        i = string_end(s, i);
                else if (s[i] == '{')
                        return 0;
                else if (s[i] == '[')
                        depth++;
                else if (s[i] == ']' && --depth == 0)
                        return i;
        }
        return 0;
}

/*
 * Pretty text with every array that holds no object on one line ("[1924, 1]", a histogram's
 * buckets): jansson puts each number on a line of its own, which made a histogram of a few
 * hundred buckets the biggest part of a result, growing with the run. In place.
 */
static void flatten_arrays(char *s)
{
        size_t r = 0, w = 0, end;

        while (s[r]) {
                if (s[r] == '"') {
                        end = string_end(s, r);
                        memmove(s + w, s + r, end - r + 1);
                        w += end - r + 1;
                        r = end + 1;
                        continue;
                }
                if (s[r] != '[' || !(end = flat_array_end(s, r))) {
                        s[w++] = s[r++];
                        continue;
                }
                for (; r <= end; r++) {
                        if (s[r] == '"') {
                                size_t e = string_end(s, r);

                                memmove(s + w, s + r, e - r + 1);
                                w += e - r + 1;
                                r = e;
                        } else if (s[r] == ',') {
                                s[w++] = ',';
                                s[w++] = ' '; /* ",\n  " is at least two bytes: room for it */
                        } else if (s[r] != ' ' && s[r] != '\n') {
                                s[w++] = s[r];
                        }
                }
        }
        s[w] = '\0';
}

/* ---- a result tree written out, its row sources in place (resfile.h) ---- */

/* The text of a row source's value, as jansson encodes it: "\u0000res-rows:0x...". */
#define ROWS_TAG    "res-rows:"
#define ROWS_DUMPED "\"\\u0000" ROWS_TAG
#define SINK_BUF    65536

/* Where a tree's text goes: a file descriptor (buffered here) or a FILE. */
struct sink {
        int fd;
        FILE *f;
        size_t len;
        int rc;
        char buf[SINK_BUF];
};

static void sink_flush(struct sink *o)
{
        if (!o->rc && o->len && o->f && fwrite(o->buf, 1, o->len, o->f) != o->len)
                o->rc = errno ? -errno : -EIO;
        else if (!o->rc && o->len && !o->f)
                o->rc = write_all(o->fd, o->buf, o->len);
        o->len = 0;
}

static void sink_put(struct sink *o, const char *s, size_t n)
{
        while (n && !o->rc) {
                size_t k = n < SINK_BUF - o->len ? n : SINK_BUF - o->len;

                memcpy(o->buf + o->len, s, k);
                o->len += k;
                s += k;
                n -= k;
                if (o->len == SINK_BUF)
                        sink_flush(o);
        }
}

static void sink_spaces(struct sink *o, size_t n)
{
        static const char sp[] = "                                ";

        for (; n > sizeof(sp) - 1; n -= sizeof(sp) - 1)
                sink_put(o, sp, sizeof(sp) - 1);
        sink_put(o, sp, n);
}

json_t *res_rows_ref(const struct res_rows *src)
{
        char tag[64];
        int n = snprintf(tag, sizeof(tag), "%c" ROWS_TAG "%p", 0, (const void *)src);

        return json_stringn(tag, (size_t)n);
}

/* The source v stands for, NULL when v is anything else. */
static const struct res_rows *rows_of(const json_t *v)
{
        const char *s = json_string_value(v);
        void *p = NULL;

        if (!s || json_string_length(v) < 2 || s[0] || strncmp(s + 1, ROWS_TAG, strlen(ROWS_TAG)))
                return NULL;
        return sscanf(s + 1 + strlen(ROWS_TAG), "%p", &p) == 1 ? p : NULL;
}

size_t res_rows_size(const json_t *v)
{
        const struct res_rows *src = rows_of(v);

        return src ? src->n : json_array_size(v);
}

const json_t *res_rows_get(const json_t *v, size_t i)
{
        const struct res_rows *src = rows_of(v);

        if (!src)
                return json_array_get(v, i);
        return i < src->n ? src->row(src->user, i) : NULL;
}

/* src's rows as jansson writes an array of them whose line is indented by indent spaces. */
static void emit_rows(const struct res_rows *src, size_t flags, size_t indent, struct sink *o)
{
        int pretty = (flags & JSON_MAX_INDENT) != 0;

        sink_put(o, "[", 1);
        for (size_t i = 0; i < src->n && !o->rc; i++) {
                const json_t *row = src->row(src->user, i);
                char *t = row ? json_dumps(row, flags) : NULL, *line, *nl;

                if (!t) {
                        o->rc = -ENOMEM;
                        break;
                }
                if (i)
                        sink_put(o, ",", 1);
                if (pretty) {
                        flatten_arrays(t);
                        for (line = t; (nl = strchr(line, '\n')); line = nl + 1) {
                                sink_put(o, "\n", 1);
                                sink_spaces(o, indent + 2);
                                sink_put(o, line, (size_t)(nl - line));
                        }
                        sink_put(o, "\n", 1);
                        sink_spaces(o, indent + 2);
                        sink_put(o, line, strlen(line));
                } else {
                        sink_put(o, t, strlen(t));
                }
                free(t);
        }
        if (pretty && src->n) {
                sink_put(o, "\n", 1);
                sink_spaces(o, indent);
        }
        sink_put(o, "]", 1);
}

/* The indentation of the line holding p, in spaces. */
static size_t line_indent(const char *text, const char *p)
{
        const char *bol = p, *q;

        while (bol > text && bol[-1] != '\n')
                bol--;
        for (q = bol; *q == ' '; q++)
                ;
        return (size_t)(q - bol);
}

/*
 * text (j dumped with flags) into o, each row source's string replaced by its rows. Only
 * res_rows_ref makes a string that starts with NUL (parsed input cannot hold one), so what
 * follows the tag is one of our pointers.
 */
static void emit_text(const char *text, size_t flags, struct sink *o)
{
        const size_t skip = strlen(ROWS_DUMPED);
        const char *at = text, *p, *end;

        while ((p = strstr(at, ROWS_DUMPED))) {
                void *src = NULL;

                end = strchr(p + skip, '"');
                if (!end || sscanf(p + skip, "%p", &src) != 1 || !src) {
                        sink_put(o, at, (size_t)(p + skip - at)); /* not one: kept as it is */
                        at = p + skip;
                        continue;
                }
                sink_put(o, at, (size_t)(p - at));
                emit_rows(src, flags, line_indent(text, p), o);
                at = end + 1;
        }
        sink_put(o, at, strlen(at));
}

/* j into o: dumped with flags, pretty text with its flat arrays on one line (below). */
static int emit_tree(const json_t *j, size_t flags, struct sink *o)
{
        char *text = json_dumps(j, flags);

        if (!text)
                return -ENOMEM;
        if (flags & JSON_MAX_INDENT)
                flatten_arrays(text);
        emit_text(text, flags, o);
        free(text);
        sink_flush(o);
        return o->rc;
}

struct json_fill {
        const json_t *j;
        struct sink *o;
};

static int fill_json(int fd, void *user)
{
        struct json_fill *jf = user;

        jf->o->fd = fd;
        jf->o->rc = 0;
        jf->o->len = 0;
        if (emit_tree(jf->j, DUMP_FLAGS, jf->o))
                return jf->o->rc;
        /* end with a newline so the file is a proper text file for cat and diff */
        sink_put(jf->o, "\n", 1);
        sink_flush(jf->o);
        return jf->o->rc;
}

int res_write_json(const char *path, const json_t *j, char *err, size_t errlen)
{
        struct sink *o = malloc(sizeof(*o));
        struct json_fill jf = {j, o};
        int ret;

        if (!o) {
                snprintf(err, errlen, "%s: cannot encode JSON: %s", path, strerror(ENOMEM));
                return -ENOMEM;
        }
        o->f = NULL;
        ret = write_atomic(path, fill_json, &jf, err, errlen);
        if (ret == -ENOMEM)
                snprintf(err, errlen, "%s: cannot encode JSON: %s", path, strerror(ENOMEM));
        free(o);
        return ret;
}

int res_dump_file(const json_t *j, FILE *f, size_t flags)
{
        struct sink *o = calloc(1, sizeof(*o));
        int rc;

        if (!o)
                return -ENOMEM;
        o->f = f;
        errno = 0;
        rc = emit_tree(j, flags, o);
        free(o);
        return rc;
}

static int mkdir_one(const char *path)
{
        struct stat st;

        if (mkdir(path, 0755) == 0)
                return 0;
        if (errno != EEXIST)
                return -errno;
        if (stat(path, &st) < 0)
                return -errno;
        return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int res_mkdirs(const char *path, char *err, size_t errlen)
{
        char *copy = NULL, *p;
        int ret = 0;

        if (!path || !*path) {
                ret = -EINVAL;
                goto out;
        }
        copy = strdup(path);
        if (!copy) {
                ret = -ENOMEM;
                goto out;
        }
        /* each prefix ending before a '/', then the whole path */
        for (p = copy + 1; *p && !ret; p++) {
                if (*p != '/' || p[-1] == '/')
                        continue;
                *p = '\0';
                ret = mkdir_one(copy);
                *p = '/';
        }
        if (!ret)
                ret = mkdir_one(copy);
out:
        if (ret < 0)
                snprintf(err, errlen, "%s: %s", path ? path : "", strerror(-ret));
        free(copy);
        return ret;
}

/* A file can really be created in dir: access() says yes to root on
 * /proc, a read-only mount or a full inode table, the write would not. */
static int probe_dir(const char *dir, const char *shown, char *err, size_t errlen)
{
        char *probe = NULL;
        int fd, rc = 0;

        if (asprintf(&probe, "%s/.hcisweep-probe.%d", dir, (int)getpid()) < 0) {
                snprintf(err, errlen, "%s: out of memory", shown);
                return -ENOMEM;
        }
        fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
                rc = -errno;
                snprintf(err, errlen, "%s: cannot create a file in %s: %s", shown, dir,
                         strerror(errno));
        } else {
                close(fd);
                unlink(probe);
        }
        free(probe);
        return rc;
}

static int check_dir(const char *dir, const char *shown, char *err, size_t errlen)
{
        struct stat st;

        if (!dir) {
                snprintf(err, errlen, "%s: out of memory", shown);
                return -ENOMEM;
        }
        if (stat(dir, &st) < 0) {
                snprintf(err, errlen, "%s: directory %s: %s", shown, dir, strerror(errno));
                return -errno;
        }
        if (!S_ISDIR(st.st_mode)) {
                snprintf(err, errlen, "%s: %s is not a directory", shown, dir);
                return -ENOTDIR;
        }
        if (access(dir, W_OK | X_OK) < 0) {
                snprintf(err, errlen, "%s: directory %s: %s", shown, dir, strerror(errno));
                return -errno;
        }
        return probe_dir(dir, shown, err, errlen);
}

int res_check_file(const char *path, char *err, size_t errlen)
{
        struct stat st;
        char *dir;
        int rc;

        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
                snprintf(err, errlen, "%s: %s", path,
                         S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
                return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        }
        dir = dir_of(path);
        rc = check_dir(dir, path, err, errlen);
        free(dir);
        return rc;
}

int res_check_dir(const char *path, char *err, size_t errlen)
{
        char *dir = strdup(path), *up;
        struct stat st;
        int rc;

        /* The nearest part that exists must be a directory one can create in. */
        while (dir && stat(dir, &st) < 0 && (errno == ENOENT || errno == ENOTDIR) &&
               strcmp(dir, ".") && strcmp(dir, "/")) {
                up = dir_of(dir);
                free(dir);
                dir = up;
        }
        rc = check_dir(dir, path, err, errlen);
        free(dir);
        return rc;
}

#define CHUNK   65536
#define CAP_MAX ((size_t)RES_FILE_MAX + CHUNK + 2) /* the limit, one chunk past it and the NUL */

static int read_too_big(const char *path, char *err, size_t errlen)
{
        snprintf(err, errlen, "%s: larger than %d MiB, the limit for a result or load ramp", path,
                 RES_FILE_MAX >> 20);
        return -EFBIG;
}

int res_read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
        FILE *f = fopen(path, "rb");
        size_t cap = 0, n = 0;
        struct stat st;
        char *b = NULL;
        int rc = 0;

        *buf = NULL;
        *len = 0;
        if (!f) {
                rc = -errno;
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                return rc;
        }
        /* A regular file says its size: no need to read a sparse 1 GiB one to refuse it. */
        if (fstat(fileno(f), &st) < 0) {
                st.st_mode = 0;
        } else if (S_ISDIR(st.st_mode)) {
                rc = -EISDIR;
                snprintf(err, errlen, "%s: is a directory", path);
        } else if (S_ISREG(st.st_mode) && st.st_size > RES_FILE_MAX) {
                rc = read_too_big(path, err, errlen);
        }
        /* Devices and pipes say nothing: read at most one chunk past the limit. */
        while (!rc) {
                if (*len > RES_FILE_MAX) {
                        rc = read_too_big(path, err, errlen);
                        break;
                }
                if (*len + CHUNK + 1 > cap) {
                        size_t want = cap * 2 + CHUNK + 1;
                        char *nb = realloc(b, cap = want < CAP_MAX ? want : CAP_MAX);

                        if (!nb) {
                                rc = -ENOMEM;
                                snprintf(err, errlen, "%s: out of memory", path);
                                break;
                        }
                        b = nb;
                }
                n = fread(b + *len, 1, cap - *len - 1, f);
                *len += n;
                if (n == 0 && ferror(f)) {
                        rc = errno ? -errno : -EIO;
                        snprintf(err, errlen, "%s: %s", path, strerror(-rc));
                } else if (n == 0) {
                        break;
                }
        }
        fclose(f);
        if (rc) {
                free(b);
                *len = 0;
                return rc;
        }
        b[*len] = '\0';
        *buf = b;
        return 0;
}

/* ---- series files (resfile.h) ---------------------------------------------- */

struct res_series {
        FILE *f;
        char path[4200];
        char *last; /* the last complete row as the file holds it, without its newline */
};

static int series_err(const char *path, int rc, char *err, size_t errlen)
{
        write_error(path, rc, err, errlen);
        return rc;
}

/* A line that fits the buffer is one row; a longer one reads as -E2BIG. *n = its length. */
static int read_line(FILE *f, char *buf, size_t cap, size_t *n)
{
        int big = 0;

        for (;;) {
                size_t k;

                if (!fgets(buf, (int)cap, f))
                        return ferror(f) ? -EIO : (big ? -E2BIG : 1); /* 1: end */
                k = strlen(buf);
                if (k && buf[k - 1] == '\n') {
                        *n = k;
                        return big ? -E2BIG : 0;
                }
                if (feof(f)) { /* a last line without its newline: torn */
                        *n = k;
                        return big ? -E2BIG : 2;
                }
                big = 1;
        }
}

/* Complete rows of f, and the offset where they end (a torn tail starts there). */
static int count_rows(struct res_series *s, size_t *rows, off_t *end)
{
        char *buf = malloc(RES_SERIES_LINE_MAX);
        size_t n;
        int rc;

        s->last = malloc(RES_SERIES_LINE_MAX);
        if (!buf || !s->last) {
                free(buf);
                return -ENOMEM;
        }
        s->last[0] = '\0';
        *rows = 0;
        *end = 0;
        while (!(rc = read_line(s->f, buf, RES_SERIES_LINE_MAX, &n)) || rc == -E2BIG) {
                ++*rows;
                *end = ftello(s->f);
                memcpy(s->last, buf, rc ? 0 : n - 1);
                s->last[rc ? 0 : n - 1] = '\0';
        }
        free(buf);
        return rc == -EIO ? rc : 0;
}

int res_series_open(struct res_series **out, const char *dir, const char *name, size_t *rows,
                    char *err, size_t errlen)
{
        struct res_series *s = calloc(1, sizeof(*s));
        size_t n = 0;
        off_t end = 0;
        int rc;

        *out = NULL;
        if (!s) {
                snprintf(err, errlen, "%s: out of memory", name);
                return -ENOMEM;
        }
        snprintf(s->path, sizeof(s->path), "%s/%s", dir, name);
        s->f = fopen(s->path, "a+e");
        if (!s->f) {
                rc = -errno;
                goto out;
        }
        rewind(s->f);
        rc = count_rows(s, &n, &end);
        if (!rc && ftruncate(fileno(s->f), end) < 0)
                rc = -errno;
        if (!rc && fseeko(s->f, 0, SEEK_END) < 0)
                rc = -errno;
out:
        if (rc) {
                series_err(s->path, rc, err, errlen);
                if (s->f)
                        fclose(s->f);
                free(s->last);
                free(s);
                return rc;
        }
        if (rows)
                *rows = n;
        *out = s;
        return 0;
}

int res_series_add(struct res_series *s, const json_t *row, char *err, size_t errlen)
{
        if (json_dumpf(row, s->f, ROW_FLAGS) || fputc('\n', s->f) == EOF)
                return series_err(s->path, errno ? -errno : -EIO, err, errlen);
        return 0;
}

int res_series_close(struct res_series *s, char *err, size_t errlen)
{
        int rc = 0;

        if (!s)
                return 0;
        if (fflush(s->f) || fsync(fileno(s->f)) < 0)
                rc = -errno;
        if (fclose(s->f) && !rc)
                rc = -errno;
        if (rc)
                series_err(s->path, rc, err, errlen);
        free(s->last);
        free(s);
        return rc;
}

static int is_series_key(const char *key)
{
        return !strcmp(key, "samples") || !strcmp(key, "intervals") || !strcmp(key, "series");
}

/* 1 when the file's rows are the first of rows: its last one is rows' row at that index. */
static int holds_prefix(const struct res_series *s, size_t have, const json_t *rows)
{
        char *text;
        int same;

        if (!have)
                return 1;
        if (have > res_rows_size(rows))
                return 0;
        text = json_dumps(res_rows_get(rows, have - 1), ROW_FLAGS);
        same = text && !strcmp(text, s->last);
        free(text);
        return same;
}

/* Append rows[have..] to dir/name. A file whose rows are not the first of the series (a step
 * measured again, whose new monitor replaced the old one) is written again from its first. */
static int series_write(const char *dir, const char *name, const json_t *rows, char *err,
                        size_t errlen)
{
        struct res_series *s;
        size_t have, i;
        int rc = res_series_open(&s, dir, name, &have, err, errlen);

        if (!rc && !holds_prefix(s, have, rows)) {
                if (ftruncate(fileno(s->f), 0) < 0 || fseeko(s->f, 0, SEEK_SET) < 0)
                        rc = series_err(s->path, -errno, err, errlen);
                have = 0;
        }
        for (i = have; !rc && i < res_rows_size(rows); i++) {
                const json_t *row = res_rows_get(rows, i);

                rc = row ? res_series_add(s, row, err, errlen)
                         : series_err(s->path, -ENOMEM, err, errlen);
        }
        if (s && res_series_close(s, rc ? NULL : err, rc ? 0 : errlen) && !rc)
                rc = -EIO;
        return rc;
}

static json_t *series_ref(const char *name, size_t rows)
{
        return json_pack("{s:s,s:s,s:I}", "file", name, "format", "ndjson", "rows",
                         (json_int_t)rows);
}

struct split {
        const char *dir;
        char *err;
        size_t errlen;
        int rc;
};

/* v with its series moved out (new reference); v itself (a new reference to it) when it
 * holds none. name is v's path in the result, "a.0.b", at most 200 bytes. */
static json_t *split_value(struct split *sp, const json_t *v, const char *name, int series)
{
        char sub[256], file[300];
        const char *key;
        json_t *x, *nx, *copy = NULL;
        size_t i;

        if (series && res_rows_size(v)) { /* an array or a row source (res_rows_ref) */
                snprintf(file, sizeof(file), "%s%s", name, RES_SERIES_EXT);
                sp->rc = series_write(sp->dir, file, v, sp->err, sp->errlen);
                return sp->rc ? NULL : series_ref(file, res_rows_size(v));
        }
        if (json_is_object(v) && strlen(name) < 200) {
                json_object_foreach((json_t *)v, key, x)
                {
                        snprintf(sub, sizeof(sub), "%s%s%s", name, *name ? "." : "", key);
                        nx = split_value(sp, x, sub, is_series_key(key));
                        if (!nx || (nx != x && !copy && !(copy = json_copy((json_t *)v))) ||
                            (nx != x && json_object_set(copy, key, nx))) {
                                json_decref(nx);
                                json_decref(copy);
                                return NULL;
                        }
                        json_decref(nx);
                }
        } else if (json_is_array(v) && strlen(name) < 200) {
                json_array_foreach((json_t *)v, i, x)
                {
                        snprintf(sub, sizeof(sub), "%s.%zu", name, i);
                        nx = split_value(sp, x, sub, 0);
                        if (!nx || (nx != x && !copy && !(copy = json_copy((json_t *)v))) ||
                            (nx != x && json_array_set(copy, i, nx))) {
                                json_decref(nx);
                                json_decref(copy);
                                return NULL;
                        }
                        json_decref(nx);
                }
        }
        return copy ? copy : json_incref((json_t *)v);
}

int res_series_split(const char *dir, const json_t *result, json_t **out, char *err, size_t errlen)
{
        struct split sp = {dir, err, errlen, 0};

        *out = split_value(&sp, result, "", 0);
        if (*out)
                return 0;
        if (!sp.rc) {
                snprintf(err, errlen, "%s: out of memory", dir);
                sp.rc = -ENOMEM;
        }
        return sp.rc;
}

/* A reference names a plain file of the run directory: never a path elsewhere. */
static const char *ref_file(const json_t *ref)
{
        const char *f = json_string_value(json_object_get(ref, "file"));

        if (!json_is_object(ref) || !f || !*f || strchr(f, '/') || !strcmp(f, "..") ||
            !strcmp(f, "."))
                return NULL;
        return f;
}

int res_series_foreach(const char *dir, const json_t *ref, size_t every,
                       int (*row)(void *user, json_t *row, size_t i), void *user, char *err,
                       size_t errlen)
{
        const char *name = ref_file(ref);
        json_int_t want = json_integer_value(json_object_get(ref, "rows"));
        char path[4200], *buf = NULL;
        json_error_t e;
        size_t i, n;
        FILE *f = NULL;
        int rc = 0;

        if (!name || !json_is_integer(json_object_get(ref, "rows")) || want < 0) {
                snprintf(err, errlen, "%s: a series reference needs a file name and rows", dir);
                return -EINVAL;
        }
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if (!(f = fopen(path, "re")) || !(buf = malloc(RES_SERIES_LINE_MAX))) {
                rc = f ? -ENOMEM : -errno;
                snprintf(err, errlen, "%s: %s", path, strerror(-rc));
                goto out;
        }
        if (every < 1)
                every = 1;
        for (i = 0; !rc && i < (size_t)want; i++) {
                int got = read_line(f, buf, RES_SERIES_LINE_MAX, &n);
                json_t *r;

                if (got == 1 || got == 2) /* fewer rows than named: what is there */
                        break;
                if (got < 0) {
                        snprintf(err, errlen, "%s:%zu: %s", path, i + 1,
                                 got == -E2BIG ? "row longer than 1 MiB" : strerror(-got));
                        rc = got == -E2BIG ? -EINVAL : got;
                        break;
                }
                if (i % every)
                        continue;
                if (!(r = json_loadb(buf, n, 0, &e))) {
                        snprintf(err, errlen, "%s:%zu: JSON: %s", path, i + 1, e.text);
                        rc = -EINVAL;
                        break;
                }
                rc = row(user, r, i);
                json_decref(r);
        }
out:
        free(buf);
        if (f)
                fclose(f);
        return rc;
}

static int is_ref(const char *key, const json_t *v)
{
        return is_series_key(key) && json_is_object(v) && json_object_get(v, "file");
}

/* How many series references doc holds. */
static size_t count_refs(const json_t *v)
{
        const char *key;
        const json_t *x;
        size_t i, n = 0;

        if (json_is_object(v)) {
                json_object_foreach((json_t *)v, key, x) n += is_ref(key, x) ? 1 : count_refs(x);
        } else if (json_is_array(v)) {
                json_array_foreach((json_t *)v, i, x) n += count_refs(x);
        }
        return n;
}

static int append_row(void *user, json_t *row, size_t i)
{
        (void)i;
        return json_array_append((json_t *)user, row) ? -ENOMEM : 0;
}

struct resolve {
        const char *dir;
        size_t keep;  /* bytes of row text kept of one series; 0: every row */
        size_t whole; /* exact: bytes of the files read so far */
        char *err;
        size_t errlen;
};

/* The size of the file ref names (0 when it cannot be seen: the read says why). */
static size_t ref_size(const struct resolve *rs, const json_t *ref)
{
        const char *f = ref_file(ref);
        char path[4200];
        struct stat st;

        snprintf(path, sizeof(path), "%s/%s", rs->dir, f ? f : "");
        return f && !stat(path, &st) ? (size_t)st.st_size : 0;
}

static int resolve_one(struct resolve *rs, json_t *holder, const char *key, const json_t *ref)
{
        size_t size = ref_size(rs, ref), every = 1;
        json_t *a;
        char k[80];
        int rc;

        if (rs->keep && size > rs->keep) /* every k-th row: what is kept stays within keep */
                every = (size + rs->keep - 1) / rs->keep;
        if (!rs->keep && (rs->whole += size) > RES_FILE_MAX) {
                snprintf(rs->err, rs->errlen,
                         "%s: series files larger than %d MiB together, the limit for reading "
                         "every row",
                         rs->dir, RES_FILE_MAX >> 20);
                return -EFBIG;
        }
        if (!(a = json_array()))
                return -ENOMEM;
        rc = res_series_foreach(rs->dir, ref, every, append_row, a, rs->err, rs->errlen);
        if (rc == -ENOMEM)
                snprintf(rs->err, rs->errlen, "%s: out of memory", rs->dir);
        snprintf(k, sizeof(k), "%s_every", key);
        if (!rc && every > 1 && json_object_set_new(holder, k, json_integer((json_int_t)every)))
                rc = -ENOMEM;
        if (!rc && json_object_set_new(holder, key, a))
                return -ENOMEM;
        if (rc)
                json_decref(a);
        return rc;
}

/* The objects's series are replaced once its keys are walked: a key added while walking
 * ("samples_every") could move the others in the table. */
static int resolve_value(struct resolve *rs, json_t *v)
{
        const char *key, *refs[16];
        unsigned nrefs = 0;
        json_t *x;
        size_t i;
        int rc = 0;

        if (json_is_array(v)) {
                json_array_foreach(v, i, x) if ((rc = resolve_value(rs, x))) return rc;
                return 0;
        }
        if (!json_is_object(v))
                return 0;
        json_object_foreach(v, key, x)
        {
                if (!is_ref(key, x))
                        rc = resolve_value(rs, x);
                else if (nrefs < 16)
                        refs[nrefs++] = key;
                if (rc)
                        return rc;
        }
        for (unsigned k = 0; !rc && k < nrefs; k++) {
                char name[64];

                snprintf(name, sizeof(name), "%s", refs[k]); /* the key goes with its value */
                rc = resolve_one(rs, v, name, json_object_get(v, name));
        }
        return rc;
}

int res_series_resolve(json_t *doc, const char *dir, char *err, size_t errlen)
{
        size_t nref = count_refs(doc);
        struct resolve rs = {dir, 0, 0, err, errlen};

        if (!nref)
                return 0;
        rs.keep = RES_SERIES_KEEP_BUDGET / nref;
        if (rs.keep < RES_SERIES_KEEP_MIN)
                rs.keep = RES_SERIES_KEEP_MIN;
        return resolve_value(&rs, doc);
}

int res_series_resolve_exact(json_t *doc, const char *dir, char *err, size_t errlen)
{
        struct resolve rs = {dir, 0, 0, err, errlen};

        return count_refs(doc) ? resolve_value(&rs, doc) : 0;
}
