/*
 * test_qga.c - the guest agent client (lab/qga.h) against a fake agent on a
 * unix socket, as QEMU's chardev would serve it: a stale reply left by an
 * earlier client is dropped by the sync, guest-exec's stdin goes out in
 * base64 and the captured output comes back decoded, a refusal is
 * -EREMOTEIO (a missing file is "not there"), the guest's clock is read,
 * and a call cut short by the cancel flag is -EINTR, after which the next
 * call syncs again and gets its own reply.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lab/qga.h"

struct fake {
        int listen_fd;
        char path[108];
        char input[256]; /* guest-exec's input-data as it came */
        int status_calls;
        long seek; /* guest-file-seek's offset as it came */
};

static void reply(int fd, const char *s)
{
        ssize_t n = write(fd, s, strlen(s));

        (void)n;
}

/* One command line (0xFF bytes dropped); 0 at the end of the connection. */
static int read_line(int fd, char *buf, size_t len)
{
        size_t n = 0;
        char c;

        while (read(fd, &c, 1) == 1) {
                if ((unsigned char)c == 0xff)
                        continue;
                if (c == '\n') {
                        buf[n] = '\0';
                        return 1;
                }
                if (n < len - 1)
                        buf[n++] = c;
        }
        return 0;
}

static void answer(struct fake *f, int fd, const char *cmd)
{
        const char *p;
        char out[160];

        if ((p = strstr(cmd, "guest-sync-delimited"))) {
                p = strstr(p, "\"id\":");
                snprintf(out, sizeof(out), "\xff{\"return\": %ld}\n", strtol(p + 5, NULL, 10));
                reply(fd, out);
        } else if (strstr(cmd, "\"guest-exec\"")) {
                p = strstr(cmd, "\"input-data\":\"");
                if (p)
                        snprintf(f->input, sizeof(f->input), "%.*s", (int)strcspn(p + 14, "\""),
                                 p + 14);
                reply(fd, "{\"return\": {\"pid\": 42}}\n");
        } else if (strstr(cmd, "guest-exec-status")) {
                /* "hello\n" and "oops" in base64 */
                reply(fd, f->status_calls++ ? "{\"return\": {\"exited\": true, \"exitcode\": 3, "
                                              "\"out-data\": \"aGVsbG8K\", \"err-data\": "
                                              "\"b29wcw==\"}}\n"
                                            : "{\"return\": {\"exited\": false}}\n");
        } else if (strstr(cmd, "guest-file-open") && strstr(cmd, "/run/samples")) {
                reply(fd, "{\"return\": 7}\n");
        } else if (strstr(cmd, "guest-file-open")) {
                reply(fd, "{\"error\": {\"class\": \"GenericError\", \"desc\": \"failed to open "
                          "file: No such file or directory\"}}\n");
        } else if ((p = strstr(cmd, "guest-file-seek"))) {
                p = strstr(p, "\"offset\":");
                f->seek = p ? strtol(p + 9, NULL, 10) : -1;
                reply(fd, "{\"return\": {\"position\": 12, \"eof\": false}}\n");
        } else if (strstr(cmd, "guest-file-read")) {
                reply(fd,
                      "{\"return\": {\"count\": 6, \"buf-b64\": \"aGVsbG8K\", \"eof\": true}}\n");
        } else if (strstr(cmd, "guest-file-close")) {
                reply(fd, "{\"return\": {}}\n");
        } else if (strstr(cmd, "guest-get-time")) {
                reply(fd, "{\"return\": 1700000000123456000}\n");
        }
}

static void *agent(void *arg)
{
        struct fake *f = arg;
        char cmd[1024];
        int fd = accept(f->listen_fd, NULL, NULL);

        if (fd < 0)
                return NULL;
        /* what the last client did not wait for, still on its way */
        reply(fd, "{\"return\": {\"pid\": 99}}\n");
        while (read_line(fd, cmd, sizeof(cmd)))
                answer(f, fd, cmd);
        close(fd);
        return NULL;
}

static int setup(void **state)
{
        struct fake *f = calloc(1, sizeof(*f));
        struct sockaddr_un sa = {.sun_family = AF_UNIX};

        assert_non_null(f);
        snprintf(f->path, sizeof(f->path), "/tmp/test_qga.%d.sock", (int)getpid());
        unlink(f->path);
        memcpy(sa.sun_path, f->path, strlen(f->path) + 1);
        f->listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
        assert_true(f->listen_fd >= 0);
        assert_int_equal(bind(f->listen_fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
        assert_int_equal(listen(f->listen_fd, 1), 0);
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        struct fake *f = *state;

        close(f->listen_fd);
        unlink(f->path);
        free(f);
        return 0;
}

static void test_agent(void **state)
{
        struct fake *f = *state;
        static volatile sig_atomic_t cancel;
        char *argv[] = {"--version", NULL}, err[512];
        struct qga_status st;
        struct qga *q = NULL;
        pthread_t t;
        int64_t pid = 0, ns = 0;
        char buf[64];
        size_t n = 0;

        assert_int_equal(pthread_create(&t, NULL, agent, f), 0);
        assert_int_equal(qga_open_unix(f->path, "vm1", 5000, &cancel, &q, err, sizeof(err)), 0);

        /* the stale {"pid": 99} was dropped by the sync: this reply is ours */
        assert_int_equal(qga_exec(q, "/bin/x", argv, NULL, "pw\n", 3, &pid, err, sizeof(err)), 0);
        assert_int_equal(pid, 42);
        assert_string_equal(f->input, "cHcK");

        assert_int_equal(qga_exec_status(q, pid, &st, err, sizeof(err)), 0);
        assert_false(st.exited);
        assert_int_equal(qga_exec_status(q, pid, &st, err, sizeof(err)), 0);
        assert_true(st.exited);
        assert_int_equal(st.exitcode, 3);
        assert_int_equal(st.outlen, 6);
        assert_string_equal(st.out, "hello\n");
        assert_string_equal(st.errs, "oops");
        qga_status_free(&st);

        assert_int_equal(qga_file_exists(q, "/run/none", err, sizeof(err)), 0);
        assert_int_equal(qga_file_create(q, "/run/none", err, sizeof(err)), -EREMOTEIO);
        assert_non_null(strstr(err, "vm1: guest agent guest-file-open: refused: failed to open"));

        assert_int_equal(qga_get_time(q, &ns, err, sizeof(err)), 0);
        assert_int_equal(ns, 1700000000123456000LL);

        /* a file read from an offset: open, seek there, read, close */
        assert_int_equal(
            qga_file_read(q, "/run/samples", 12, buf, sizeof(buf), &n, err, sizeof(err)), 0);
        assert_int_equal(f->seek, 12);
        assert_int_equal(n, 6);
        assert_memory_equal(buf, "hello\n", 6);
        /* ... and one that is not there yet: nothing read, no error */
        n = 99;
        assert_int_equal(qga_file_read(q, "/run/none", 0, buf, sizeof(buf), &n, err, sizeof(err)),
                         0);
        assert_int_equal(n, 0);

        cancel = 1;
        assert_int_equal(qga_get_time(q, &ns, err, sizeof(err)), -EINTR);
        cancel = 0;
        ns = 0;
        assert_int_equal(qga_get_time(q, &ns, err, sizeof(err)), 0);
        assert_int_equal(ns, 1700000000123456000LL);

        qga_close(q);
        pthread_join(t, NULL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_agent, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
