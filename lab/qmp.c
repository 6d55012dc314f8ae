/*
 * qmp.c - Ctrl-Alt-Del over QMP (qmp.h). QMP is JSON lines; a reply is the
 * first line holding "return" or "error", asynchronous events in between
 * are skipped.
 */
#include "lab/qmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#define QMP_TIMEOUT_S 5

/* Read until a line that is a reply; 0 for "return", -EIO for "error" or EOF. */
static int read_reply(int fd, const char *what, char *err, size_t errlen)
{
        char buf[4096] = {0};
        size_t len = 0;

        for (;;) {
                char *nl = memchr(buf, '\n', len);
                ssize_t n;

                if (nl) {
                        *nl = '\0';
                        if (strstr(buf, "\"return\"") || strstr(buf, "\"QMP\""))
                                return 0;
                        if (strstr(buf, "\"error\"")) {
                                snprintf(err, errlen, "QMP %s: %.200s", what, buf);
                                return -EIO;
                        }
                        len -= (size_t)(nl + 1 - buf);
                        memmove(buf, nl + 1, len);
                        continue;
                }
                if (len == sizeof(buf))
                        len = 0; /* an event longer than the buffer: drop it */
                n = read(fd, buf + len, sizeof(buf) - len);
                if (n <= 0) {
                        snprintf(err, errlen, "QMP %s: %s", what,
                                 n < 0 ? strerror(errno) : "connection closed");
                        return n < 0 ? -errno : -EIO;
                }
                len += (size_t)n;
        }
}

static int request(int fd, const char *json, const char *what, char *err, size_t errlen)
{
        size_t len = strlen(json);

        if (write(fd, json, len) != (ssize_t)len) {
                snprintf(err, errlen, "QMP %s: %s", what, strerror(errno));
                return -EIO;
        }
        return read_reply(fd, what, err, errlen);
}

int qmp_ctrl_alt_del(const char *path, char *err, size_t errlen)
{
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        struct timeval tv = {.tv_sec = QMP_TIMEOUT_S};
        int fd, rc;

        if (strlen(path) >= sizeof(sa.sun_path)) {
                snprintf(err, errlen, "QMP socket path too long: %s", path);
                return -ENAMETOOLONG;
        }
        memcpy(sa.sun_path, path, strlen(path) + 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
            connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                rc = -errno;
                snprintf(err, errlen, "QMP socket %s: %s", path, strerror(errno));
                if (fd >= 0)
                        close(fd);
                return rc;
        }
        rc = read_reply(fd, "greeting", err, errlen);
        if (!rc)
                rc = request(fd, "{\"execute\":\"qmp_capabilities\"}\n", "qmp_capabilities", err,
                             errlen);
        if (!rc)
                rc = request(fd,
                             "{\"execute\":\"send-key\",\"arguments\":{\"keys\":["
                             "{\"type\":\"qcode\",\"data\":\"ctrl\"},"
                             "{\"type\":\"qcode\",\"data\":\"alt\"},"
                             "{\"type\":\"qcode\",\"data\":\"delete\"}]}}\n",
                             "send-key", err, errlen);
        close(fd);
        return rc;
}
