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

static int write_tmp(const char *tmp, const char *text, size_t len)
{
        int fd, ret;

        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        ret = write_all(fd, text, len);
        if (!ret && fsync(fd) < 0)
                ret = -errno;
        /* close() reports delayed write errors on NFS */
        if (close(fd) < 0 && !ret)
                ret = -errno;
        return ret;
}

int res_write_text(const char *path, const char *text, unsigned long len, char *err, size_t errlen)
{
        char *tmp = NULL;
        int ret, renamed = 0;

        if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0) {
                tmp = NULL;
                ret = -ENOMEM;
                goto out;
        }
        ret = write_tmp(tmp, text, len);
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

int res_write_json(const char *path, const json_t *j, char *err, size_t errlen)
{
        char *text = json_dumps(j, DUMP_FLAGS);
        size_t len;
        char *nl;
        int ret;

        if (!text) {
                snprintf(err, errlen, "%s: cannot encode JSON: %s", path, strerror(ENOMEM));
                return -ENOMEM;
        }
        /* end with a newline so the file is a proper text file for cat and diff */
        len = strlen(text);
        nl = realloc(text, len + 2);
        if (!nl) {
                free(text);
                snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
                return -ENOMEM;
        }
        nl[len] = '\n';
        nl[len + 1] = '\0';
        ret = res_write_text(path, nl, len + 1, err, errlen);
        free(nl);
        return ret;
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
