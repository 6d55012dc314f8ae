/*
 * qga.c - the QEMU guest agent client (qga.h): the commands, built and
 * read with jansson, and the unix channel, a chardev socket read with a
 * deadline and the caller's cancel flag. The libvirt channel is
 * qga_libvirt.c.
 */
#include "lab/qga.h"

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/base64.h"
#include "core/clock.h"

#define SLICE_MS  100         /* a wait's step: how soon cancel is seen */
#define REPLY_MAX (64U << 20) /* 16 MiB of output each for stdout and stderr, in base64 */
#define SENTINEL  ((unsigned char)0xff)

struct qga {
        const struct qga_chan_ops *ops;
        void *ctx;
        char where[32];
};

int qga_new(const struct qga_chan_ops *ops, void *ctx, const char *where, struct qga **out,
            char *err, size_t errlen)
{
        struct qga *q = calloc(1, sizeof(*q));

        if (!q) {
                ops->close(ctx);
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        q->ops = ops;
        q->ctx = ctx;
        snprintf(q->where, sizeof(q->where), "%s", where);
        *out = q;
        return 0;
}

void qga_close(struct qga *q)
{
        if (!q)
                return;
        q->ops->close(q->ctx);
        free(q);
}

/* ---- the unix channel ----------------------------------------------------- */

struct unix_chan {
        int fd;
        char *buf; /* bytes read and not yet taken */
        size_t len, cap;
        const volatile sig_atomic_t *cancel;
        int timeout_ms; /* for a sync */
        int dirty;      /* a call ended before its reply: that may still come */
};

static void unix_close(void *ctx)
{
        struct unix_chan *c = ctx;

        if (!c)
                return;
        if (c->fd >= 0)
                close(c->fd);
        free(c->buf);
        free(c);
}

/* Wait up to the deadline for fd to be ready for events, a slice at a time. */
static int wait_fd(struct unix_chan *c, short events, uint64_t deadline, char *err, size_t errlen)
{
        for (;;) {
                struct pollfd p = {.fd = c->fd, .events = events};
                uint64_t now = clk_now_ns();
                int n;

                if (c->cancel && *c->cancel) {
                        snprintf(err, errlen, "interrupted");
                        return -EINTR;
                }
                if (now >= deadline) {
                        snprintf(err, errlen, "no answer within the time allowed");
                        return -ETIMEDOUT;
                }
                n = poll(&p, 1, SLICE_MS);
                if (n > 0)
                        return 0;
                if (n < 0 && errno != EINTR) {
                        snprintf(err, errlen, "poll: %s", strerror(errno));
                        return -errno;
                }
        }
}

static int unix_send(struct unix_chan *c, const char *s, size_t n, uint64_t deadline, char *err,
                     size_t errlen)
{
        while (n) {
                ssize_t w;
                int rc = wait_fd(c, POLLOUT, deadline, err, errlen);

                if (rc < 0)
                        return rc;
                w = send(c->fd, s, n, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (w < 0 && errno != EAGAIN && errno != EINTR) {
                        snprintf(err, errlen, "writing: %s", strerror(errno));
                        return -errno;
                }
                if (w > 0) {
                        s += w;
                        n -= (size_t)w;
                }
        }
        return 0;
}

/* Read more bytes into c->buf (at least one, or an error). */
static int unix_fill(struct unix_chan *c, uint64_t deadline, char *err, size_t errlen)
{
        ssize_t n;
        int rc;

        if (c->cap - c->len < 65536) {
                size_t cap = c->cap ? c->cap * 2 : 131072;
                char *b;

                if (cap > REPLY_MAX + 65536) {
                        snprintf(err, errlen, "a reply longer than %u MiB", REPLY_MAX >> 20);
                        return -EPROTO;
                }
                if (!(b = realloc(c->buf, cap))) {
                        snprintf(err, errlen, "out of memory");
                        return -ENOMEM;
                }
                c->buf = b;
                c->cap = cap;
        }
        for (;;) {
                if ((rc = wait_fd(c, POLLIN, deadline, err, errlen)) < 0)
                        return rc;
                n = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, MSG_DONTWAIT);
                if (n > 0) {
                        c->len += (size_t)n;
                        return 0;
                }
                if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                        snprintf(err, errlen, "%s",
                                 n == 0 ? "QEMU closed the agent's socket" : strerror(errno));
                        return n == 0 ? -ECONNRESET : -errno;
                }
        }
}

/* Drop the first n bytes of c->buf. */
static void unix_take(struct unix_chan *c, size_t n)
{
        memmove(c->buf, c->buf + n, c->len - n);
        c->len -= n;
}

/* The next line that is not empty, sentinels dropped, into *line (malloc'd). */
static int unix_line(struct unix_chan *c, uint64_t deadline, char **line, char *err, size_t errlen)
{
        for (;;) {
                char *nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
                size_t k = 0, n;
                int rc;

                while (k < c->len && ((unsigned char)c->buf[k] == SENTINEL || c->buf[k] == '\n' ||
                                      c->buf[k] == '\r' || c->buf[k] == ' '))
                        k++;
                if (k) {
                        unix_take(c, k);
                        continue;
                }
                if (nl) {
                        n = (size_t)(nl - c->buf);
                        if (!(*line = malloc(n + 1))) {
                                snprintf(err, errlen, "out of memory");
                                return -ENOMEM;
                        }
                        memcpy(*line, c->buf, n);
                        (*line)[n] = '\0';
                        unix_take(c, n + 1);
                        return 0;
                }
                if ((rc = unix_fill(c, deadline, err, errlen)) < 0)
                        return rc;
        }
}

static int unix_sync(struct unix_chan *c, int timeout_ms, char *err, size_t errlen);

static int unix_call(void *ctx, const char *cmd, int timeout_ms, char **reply, char *err,
                     size_t errlen)
{
        struct unix_chan *c = ctx;
        uint64_t deadline = clk_now_ns() + (uint64_t)timeout_ms * 1000000ULL;
        int rc = c->dirty ? unix_sync(c, c->timeout_ms, err, errlen) : 0;

        if (!rc)
                rc = unix_send(c, cmd, strlen(cmd), deadline, err, errlen);
        if (!rc)
                rc = unix_send(c, "\n", 1, deadline, err, errlen);
        if (!rc)
                rc = unix_line(c, deadline, reply, err, errlen);
        c->dirty = rc < 0;
        return rc;
}

static const struct qga_chan_ops unix_ops = {"unix", unix_call, unix_close};

/* Drop every byte up to the next sentinel (the start of a delimited reply). */
static int unix_skip_to_sentinel(struct unix_chan *c, uint64_t deadline, char *err, size_t errlen)
{
        for (;;) {
                char *s = c->len ? memchr(c->buf, SENTINEL, c->len) : NULL;
                int rc;

                if (s) {
                        unix_take(c, (size_t)(s - c->buf) + 1);
                        return 0;
                }
                c->len = 0;
                if ((rc = unix_fill(c, deadline, err, errlen)) < 0)
                        return rc;
        }
}

/* qga.h: 0xFF, guest-sync-delimited with a random id, and only its reply counts. */
static int unix_sync(struct unix_chan *c, int timeout_ms, char *err, size_t errlen)
{
        uint64_t deadline = clk_now_ns() + (uint64_t)timeout_ms * 1000000ULL;
        uint32_t id = 0;
        char cmd[128], *line = NULL;
        int rc;

        if (getrandom(&id, sizeof(id), 0) != (ssize_t)sizeof(id))
                id = (uint32_t)(clk_now_ns() ^ (uint64_t)getpid());
        id &= 0x7fffffff;
        c->len = 0; /* what was read belongs to a call given up on */
        snprintf(cmd, sizeof(cmd),
                 "\xff{\"execute\":\"guest-sync-delimited\",\"arguments\":{\"id\":%u}}\n", id);
        rc = unix_send(c, cmd, strlen(cmd), deadline, err, errlen);
        while (!rc) {
                json_t *j, *ret;
                int match;

                rc = unix_skip_to_sentinel(c, deadline, err, errlen);
                if (!rc)
                        rc = unix_line(c, deadline, &line, err, errlen);
                if (rc < 0)
                        break;
                j = json_loads(line, 0, NULL);
                ret = j ? json_object_get(j, "return") : NULL;
                match = json_is_integer(ret) && json_integer_value(ret) == (json_int_t)id;
                json_decref(j);
                free(line);
                line = NULL;
                if (match) {
                        c->dirty = 0;
                        return 0;
                }
        }
        c->dirty = 1;
        return rc;
}

int qga_open_unix(const char *path, const char *where, int timeout_ms,
                  const volatile sig_atomic_t *cancel, struct qga **out, char *err, size_t errlen)
{
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        struct unix_chan *c = calloc(1, sizeof(*c));
        char why[256];
        int rc;

        if (!c) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        c->cancel = cancel;
        c->timeout_ms = timeout_ms;
        c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (strlen(path) >= sizeof(sa.sun_path)) {
                snprintf(why, sizeof(why), "socket path too long");
                rc = -ENAMETOOLONG;
                goto out;
        }
        memcpy(sa.sun_path, path, strlen(path) + 1);
        if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                rc = -errno;
                snprintf(why, sizeof(why), "%s", strerror(errno));
                goto out;
        }
        rc = unix_sync(c, timeout_ms, why, sizeof(why));
out:
        if (rc < 0) {
                snprintf(err, errlen, "%s: guest agent (%s): %s", where, path, why);
                unix_close(c);
                return rc;
        }
        return qga_new(&unix_ops, c, where, out, err, errlen);
}

#ifndef HAVE_LIBVIRT
int qga_open_libvirt(const char *uri, const char *domain, const char *where, int timeout_ms,
                     const volatile sig_atomic_t *cancel, struct qga **out, char *err,
                     size_t errlen)
{
        (void)uri;
        (void)domain;
        (void)timeout_ms;
        (void)cancel;
        (void)out;
        snprintf(err, errlen, "%s: guest agent: this build has no libvirt", where);
        return -ENOTSUP;
}
#endif

/* ---- commands -------------------------------------------------------------- */

/* Send cmd (taken) and return its reply's "return" in *ret (a new reference). */
static int call(struct qga *q, json_t *cmd, int timeout_ms, json_t **ret, char *err, size_t errlen)
{
        const char *name = json_string_value(json_object_get(cmd, "execute"));
        char *text = json_dumps(cmd, JSON_COMPACT), *reply = NULL, why[512];
        json_t *j = NULL, *e;
        int rc;

        *ret = NULL;
        if (!text) {
                snprintf(why, sizeof(why), "out of memory");
                rc = -ENOMEM;
                goto out;
        }
        rc = q->ops->call(q->ctx, text, timeout_ms, &reply, why, sizeof(why));
        if (rc < 0)
                goto out;
        j = json_loads(reply, 0, NULL);
        e = j ? json_object_get(j, "error") : NULL;
        if (e) {
                snprintf(why, sizeof(why), "refused: %s",
                         json_string_value(json_object_get(e, "desc"))
                             ? json_string_value(json_object_get(e, "desc"))
                             : "no reason given");
                rc = -EREMOTEIO;
        } else if (!j || !(*ret = json_incref(json_object_get(j, "return")))) {
                snprintf(why, sizeof(why), "not a reply: %.120s", reply);
                rc = -EPROTO;
        }
out:
        if (rc < 0)
                snprintf(err, errlen, "%s: guest agent %s: %s", q->where, name ? name : "?", why);
        json_decref(cmd);
        json_decref(j);
        if (text) /* guest-exec's input-data may be a password */
                memset(text, 0, strlen(text));
        free(text);
        free(reply);
        return rc;
}

static json_t *command(const char *name, json_t *args)
{
        json_t *c = json_object();

        if (c && json_object_set_new(c, "execute", json_string(name)) == 0 &&
            (!args || json_object_set_new(c, "arguments", args) == 0))
                return c;
        if (!c)
                json_decref(args);
        json_decref(c);
        return NULL;
}

static json_t *strings(char *const v[])
{
        json_t *a = json_array();

        for (size_t i = 0; a && v && v[i]; i++)
                if (json_array_append_new(a, json_string(v[i])) < 0) {
                        json_decref(a);
                        return NULL;
                }
        return a;
}

static int oom(struct qga *q, char *err, size_t errlen)
{
        snprintf(err, errlen, "%s: guest agent: out of memory", q->where);
        return -ENOMEM;
}

int qga_exec(struct qga *q, const char *path, char *const argv[], char *const env[],
             const void *input, size_t inlen, int64_t *pid, char *err, size_t errlen)
{
        json_t *args = json_pack("{s:s, s:o, s:b}", "path", path, "arg", strings(argv),
                                 "capture-output", 1),
               *cmd, *ret;
        char *b64 = NULL;
        int rc;

        if (args && env && json_object_set_new(args, "env", strings(env)) < 0)
                goto fail;
        if (args && input) {
                if (!(b64 = malloc(B64_ENCODED_LEN(inlen) + 1)))
                        goto fail;
                b64_encode(input, inlen, b64);
                rc = json_object_set_new(args, "input-data", json_string(b64));
                memset(b64, 0, B64_ENCODED_LEN(inlen)); /* it may be a password */
                free(b64);
                if (rc < 0)
                        goto fail;
        }
        if (!args || !(cmd = command("guest-exec", args)))
                return oom(q, err, errlen);
        rc = call(q, cmd, QGA_TIMEOUT_MS, &ret, err, errlen);
        if (rc < 0)
                return rc;
        if (!json_is_integer(json_object_get(ret, "pid"))) {
                snprintf(err, errlen, "%s: guest agent guest-exec: no pid in its reply", q->where);
                rc = -EPROTO;
        } else {
                *pid = (int64_t)json_integer_value(json_object_get(ret, "pid"));
        }
        json_decref(ret);
        return rc;
fail:
        json_decref(args);
        return oom(q, err, errlen);
}

/* One captured stream, base64 in ret[key], decoded into *out (NUL-terminated). */
static int take_output(json_t *ret, const char *key, char **out, size_t *len)
{
        const char *s = json_string_value(json_object_get(ret, key));
        size_t n = s ? strlen(s) : 0;

        *len = 0;
        if (!(*out = malloc(n / 4 * 3 + 4)))
                return -ENOMEM;
        if (s && b64_decode(s, n, *out, len) < 0)
                return -EPROTO;
        (*out)[*len] = '\0';
        return 0;
}

int qga_exec_status(struct qga *q, int64_t pid, struct qga_status *st, char *err, size_t errlen)
{
        json_t *cmd = command("guest-exec-status", json_pack("{s:I}", "pid", (json_int_t)pid)),
               *ret, *v;
        int rc;

        memset(st, 0, sizeof(*st));
        if (!cmd)
                return oom(q, err, errlen);
        rc = call(q, cmd, QGA_TIMEOUT_MS, &ret, err, errlen);
        if (rc < 0)
                return rc;
        if (!json_is_object(ret)) { /* else it would read as "running" for ever */
                snprintf(err, errlen, "%s: guest agent guest-exec-status: not an object", q->where);
                json_decref(ret);
                return -EPROTO;
        }
        st->exited = json_is_true(json_object_get(ret, "exited"));
        if (st->exited) {
                v = json_object_get(ret, "exitcode");
                st->exitcode = json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
                v = json_object_get(ret, "signal");
                st->signal = json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
                st->truncated = json_is_true(json_object_get(ret, "out-truncated")) ||
                                json_is_true(json_object_get(ret, "err-truncated"));
                rc = take_output(ret, "out-data", &st->out, &st->outlen);
                if (!rc)
                        rc = take_output(ret, "err-data", &st->errs, &st->errslen);
                if (rc < 0) {
                        snprintf(err, errlen, "%s: guest agent guest-exec-status: %s", q->where,
                                 rc == -ENOMEM ? "out of memory" : "output not in base64");
                        qga_status_free(st);
                }
        }
        json_decref(ret);
        return rc;
}

void qga_status_free(struct qga_status *st)
{
        free(st->out);
        free(st->errs);
        memset(st, 0, sizeof(*st));
}

int qga_run(struct qga *q, const char *path, char *const argv[], int timeout_ms,
            struct qga_status *st, char *err, size_t errlen)
{
        uint64_t deadline = clk_now_ns() + (uint64_t)timeout_ms * 1000000ULL;
        int64_t pid;
        int rc = qga_exec(q, path, argv, NULL, NULL, 0, &pid, err, errlen);

        while (!rc) {
                rc = qga_exec_status(q, pid, st, err, errlen);
                if (rc < 0 || st->exited)
                        break;
                if (clk_now_ns() >= deadline) {
                        snprintf(err, errlen, "%s: %s did not exit within %d s", q->where, path,
                                 timeout_ms / 1000);
                        return -ETIMEDOUT;
                }
                clk_sleep_ns(SLICE_MS * 1000000ULL);
        }
        return rc;
}

/* Run cmd (name, for errors), whose return is an integer (what it is: for errors), into *out. */
static int call_int(struct qga *q, json_t *cmd, const char *name, const char *what, int64_t *out,
                    char *err, size_t errlen)
{
        json_t *ret;
        int rc;

        if (!cmd)
                return oom(q, err, errlen);
        rc = call(q, cmd, QGA_TIMEOUT_MS, &ret, err, errlen);
        if (rc < 0)
                return rc;
        if (!json_is_integer(ret)) {
                snprintf(err, errlen, "%s: guest agent %s: %s", q->where, name, what);
                rc = -EPROTO;
        } else {
                *out = (int64_t)json_integer_value(ret);
        }
        json_decref(ret);
        return rc;
}

/* guest-file-open path in mode: its handle in *h. */
static int file_open(struct qga *q, const char *path, const char *mode, int64_t *h, char *err,
                     size_t errlen)
{
        return call_int(
            q, command("guest-file-open", json_pack("{s:s, s:s}", "path", path, "mode", mode)),
            "guest-file-open", "no handle", h, err, errlen);
}

static int file_close(struct qga *q, int64_t h, char *err, size_t errlen)
{
        json_t *cmd = command("guest-file-close", json_pack("{s:I}", "handle", (json_int_t)h)),
               *ret;
        int rc;

        if (!cmd)
                return oom(q, err, errlen);
        rc = call(q, cmd, QGA_TIMEOUT_MS, &ret, err, errlen);
        json_decref(ret);
        return rc;
}

int qga_file_exists(struct qga *q, const char *path, char *err, size_t errlen)
{
        int64_t h;
        int rc = file_open(q, path, "r", &h, err, errlen);

        if (rc == -EREMOTEIO)
                return 0;
        if (rc < 0)
                return rc;
        rc = file_close(q, h, err, errlen);
        return rc < 0 ? rc : 1;
}

int qga_file_create(struct qga *q, const char *path, char *err, size_t errlen)
{
        int64_t h;
        int rc = file_open(q, path, "w", &h, err, errlen);

        return rc < 0 ? rc : file_close(q, h, err, errlen);
}

/* guest-file-seek h to offset, then one guest-file-read of up to cap bytes into buf. */
static int seek_read(struct qga *q, int64_t h, uint64_t offset, char *buf, size_t cap, size_t *n,
                     char *err, size_t errlen)
{
        json_t *ret = NULL;
        const char *b64;
        int rc = call(
            q,
            command("guest-file-seek", json_pack("{s:I, s:I, s:s}", "handle", (json_int_t)h,
                                                 "offset", (json_int_t)offset, "whence", "set")),
            QGA_TIMEOUT_MS, &ret, err, errlen);

        json_decref(ret);
        ret = NULL;
        if (rc == 0)
                rc =
                    call(q,
                         command("guest-file-read", json_pack("{s:I, s:I}", "handle", (json_int_t)h,
                                                              "count", (json_int_t)cap)),
                         QGA_TIMEOUT_MS, &ret, err, errlen);
        if (rc < 0)
                return rc;
        b64 = json_string_value(json_object_get(ret, "buf-b64"));
        if (!b64 || strlen(b64) / 4 * 3 > cap + 2 || b64_decode(b64, strlen(b64), buf, n) < 0 ||
            *n > cap) {
                snprintf(err, errlen, "%s: guest agent guest-file-read: not base64 of %zu bytes",
                         q->where, cap);
                rc = -EPROTO;
        }
        json_decref(ret);
        return rc;
}

int qga_file_read(struct qga *q, const char *path, uint64_t offset, char *buf, size_t cap,
                  size_t *n, char *err, size_t errlen)
{
        char tmp[QGA_READ_MAX + 4], why[256];
        int64_t h;
        int rc;

        *n = 0;
        if (cap > QGA_READ_MAX)
                cap = QGA_READ_MAX;
        rc = file_open(q, path, "r", &h, err, errlen);
        if (rc == -EREMOTEIO)
                return 0;
        if (rc < 0)
                return rc;
        rc = seek_read(q, h, offset, tmp, cap, n, err, errlen);
        if (rc == 0)
                memcpy(buf, tmp, *n);
        else
                *n = 0;
        file_close(q, h, why, sizeof(why)); /* what was read stands; a handle left is the agent's */
        return rc;
}

int qga_file_open(struct qga *q, const char *path, const char *mode, int64_t *h, char *err,
                  size_t errlen)
{
        return file_open(q, path, mode, h, err, errlen);
}

int qga_file_write(struct qga *q, int64_t h, const void *buf, size_t n, char *err, size_t errlen)
{
        char *b64 = n <= QGA_WRITE_MAX ? malloc(B64_ENCODED_LEN(n) + 1) : NULL;
        json_t *ret = NULL, *cmd;
        int64_t wrote = 0;
        int rc;

        if (n > QGA_WRITE_MAX) {
                snprintf(err, errlen, "%s: guest agent guest-file-write: %zu bytes, over %d",
                         q->where, n, QGA_WRITE_MAX);
                return -EMSGSIZE;
        }
        if (!b64)
                return oom(q, err, errlen);
        b64[b64_encode(buf, n, b64)] = '\0';
        cmd = command("guest-file-write",
                      json_pack("{s:I, s:s}", "handle", (json_int_t)h, "buf-b64", b64));
        free(b64);
        if (!cmd)
                return oom(q, err, errlen);
        rc = call(q, cmd, QGA_TIMEOUT_MS, &ret, err, errlen);
        if (rc == 0 && json_is_integer(json_object_get(ret, "count")))
                wrote = (int64_t)json_integer_value(json_object_get(ret, "count"));
        json_decref(ret);
        if (rc == 0 && wrote != (int64_t)n) {
                snprintf(err, errlen, "%s: guest agent guest-file-write: %lld of %zu bytes written",
                         q->where, (long long)wrote, n);
                return -EIO;
        }
        if (rc == 0) { /* the reader sees it now, not at the agent's next flush */
                rc = call(q,
                          command("guest-file-flush", json_pack("{s:I}", "handle", (json_int_t)h)),
                          QGA_TIMEOUT_MS, &ret, err, errlen);
                json_decref(ret);
        }
        return rc;
}

int qga_file_close(struct qga *q, int64_t h, char *err, size_t errlen)
{
        return file_close(q, h, err, errlen);
}

int qga_get_time(struct qga *q, int64_t *ns, char *err, size_t errlen)
{
        return call_int(q, command("guest-get-time", NULL), "guest-get-time", "not a time", ns, err,
                        errlen);
}
