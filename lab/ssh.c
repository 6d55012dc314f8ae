/*
 * ssh.c - destinations, the OpenSSH client's command line and the version
 * check of a remote hcisweep (ssh.h). A driver that came from another
 * build would speak another protocol or measure another way, and a host
 * that refuses our key would only show up as a dead driver in the middle
 * of a step: both are asked once, before any step.
 */
#include "lab/ssh.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "lab/proc.h"

#define CONNECT_TIMEOUT "ConnectTimeout=10" /* seconds; lab_ssh_check_version waits longer */
#define OUTPUT_MAX      8192                /* what a version check keeps of ssh's output */

/* A user name: 1..32 of letters, digits, '.', '_', '-', not starting with '-'. */
static int user_ok(const char *u, size_t n)
{
        if (n == 0 || n >= LAB_SSH_USER_MAX || u[0] == '-')
                return 0;
        for (size_t i = 0; i < n; i++)
                if (!isalnum((unsigned char)u[i]) && !strchr("._-", u[i]))
                        return 0;
        return 1;
}

int lab_ssh_parse(const char *s, struct lab_ssh *d, char *err, size_t errlen)
{
        const char *at = strchr(s, '@'), *hp = at ? at + 1 : s;
        char why[300];
        int rc;

        if (at && !user_ok(s, (size_t)(at - s)))
                return errf(err, errlen, -EINVAL,
                            "ssh '%s': the user before '@' is not 1..%d of letters, digits, '.', "
                            "'_', '-'",
                            s, LAB_SSH_USER_MAX - 1);
        rc = hostport_parse(hp, 0, d->host, sizeof(d->host), &d->port, why, sizeof(why));
        if (rc < 0)
                return errf(err, errlen, rc, "ssh %s (want [user@]host[:port])", why);
        if (!hostport_dial_ok(d->host))
                return errf(err, errlen, -EINVAL,
                            "ssh '%s': a test reaches loopback IP literals only (127.0.0.0/8, "
                            "[::1])",
                            s);
        snprintf(d->user, sizeof(d->user), "%.*s", at ? (int)(at - s) : 0, s);
        return 0;
}

void lab_ssh_name(const struct lab_ssh *d, char *out, size_t outlen)
{
        int v6 = strchr(d->host, ':') != NULL;
        char port[16] = "";

        if (d->port)
                snprintf(port, sizeof(port), ":%u", d->port);
        snprintf(out, outlen, "%s%s%s%s%s%s", d->user, d->user[0] ? "@" : "",
                 v6 && d->port ? "[" : "", d->host, v6 && d->port ? "]" : "", port);
}

int lab_ssh_same(const struct lab_ssh *a, const struct lab_ssh *b)
{
        return a->port == b->port && !strcmp(a->user, b->user) && !strcmp(a->host, b->host) &&
               !strcmp(a->config, b->config) && !strcmp(a->hcisweep, b->hcisweep);
}

void lab_ssh_quote(struct sbuf *out, const char *word)
{
        sb_printf(out, "'");
        for (const char *p = word; *p; p++) {
                size_t n = strcspn(p, "'");

                sb_printf(out, "%.*s", (int)n, p);
                p += n;
                if (!*p)
                        break;
                sb_printf(out, "'\\''");
        }
        sb_printf(out, "'");
}

int lab_ssh_cmd_build(struct lab_ssh_cmd *c, const struct lab_ssh *d, const char *const *words)
{
        /* -T: no terminal (a terminal would echo the input and turn "\n" into "\r\n");
         * -e none: a line of input that starts with '~' is no escape; -a -x: nothing of
         * this machine is forwarded to the driver's */
        static const char *const fixed[] = {"ssh", "-T",
                                            "-a",  "-x",
                                            "-e",  "none",
                                            "-o",  "BatchMode=yes",
                                            "-o",  CONNECT_TIMEOUT,
                                            "-o",  "ServerAliveInterval=10",
                                            "-o",  "ServerAliveCountMax=3",
                                            NULL};
        unsigned n = 0;

        memset(c, 0, sizeof(*c));
        for (unsigned i = 0; fixed[i]; i++)
                c->argv[n++] = (char *)fixed[i];
        if (d->config[0]) {
                c->argv[n++] = "-F";
                c->argv[n++] = (char *)d->config;
        }
        if (d->port) {
                snprintf(c->port, sizeof(c->port), "%u", d->port);
                c->argv[n++] = "-p";
                c->argv[n++] = c->port;
        }
        if (d->user[0]) {
                c->argv[n++] = "-l";
                c->argv[n++] = (char *)d->user;
        }
        c->argv[n++] = (char *)d->host;
        c->argv[n++] = "--";
        lab_ssh_quote(&c->remote, d->hcisweep[0] ? d->hcisweep : "hcisweep");
        for (unsigned i = 1; words[0] && words[i]; i++) {
                sb_printf(&c->remote, " ");
                lab_ssh_quote(&c->remote, words[i]);
        }
        if (c->remote.oom)
                return -ENOMEM;
        c->argv[n++] = c->remote.s;
        c->argv[n] = NULL;
        return 0;
}

void lab_ssh_cmd_free(struct lab_ssh_cmd *c)
{
        sb_free(&c->remote);
}

/* The client with stdin from /dev/null and stdout and stderr on out_w, started as
 * every child is (lab/proc.h): its own session (a Ctrl-C on the terminal is the
 * caller's to handle), signals at their defaults, no fd of ours but out_w, and
 * gone when the thread that asked dies. */
static int spawn_client(const struct lab_ssh_cmd *c, int out_w, pid_t *pid, char *err,
                        size_t errlen)
{
        const int stdio[2] = {-1, out_w};

        return proc_spawn_io(&(struct proc_spawn){.argv = c->argv}, stdio,
                             PROC_DIE_WITH_PARENT | PROC_STDERR_TO_STDOUT, pid, err, errlen);
}

/* Read the client's output on fd until it ends, the deadline or *cancel:
 * 0, -ETIMEDOUT or -EINTR. buf keeps the newest cap-1 bytes (the error is at
 * the end), NUL-terminated. */
static int collect(int fd, uint64_t deadline, const volatile sig_atomic_t *cancel, char *buf,
                   size_t cap)
{
        struct pollfd p = {.fd = fd, .events = POLLIN};
        char tmp[1024];
        size_t len = 0;

        for (;;) {
                uint64_t now = clk_now_ns();
                ssize_t n;

                if (cancel && *cancel)
                        return -EINTR;
                if (now >= deadline)
                        return -ETIMEDOUT;
                if (poll(&p, 1, 100) <= 0)
                        continue;
                n = read(fd, tmp, sizeof(tmp));
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (n <= 0)
                        return 0;
                if (len + (size_t)n > cap - 1) {
                        size_t drop = len + (size_t)n - (cap - 1);

                        memmove(buf, buf + drop, len - drop);
                        len -= drop;
                }
                memcpy(buf + len, tmp, (size_t)n);
                len += (size_t)n;
                buf[len] = '\0';
        }
}

/* Reap pid by the deadline, killing it then: its status. */
static int reap_by(pid_t pid, uint64_t deadline)
{
        int status = 0;
        pid_t p;

        while ((p = waitpid(pid, &status, WNOHANG)) == 0 && clk_now_ns() < deadline)
                clk_sleep_ns(10000000);
        if (p == 0)
                kill(pid, SIGKILL);
        while (p == 0 || (p < 0 && errno == EINTR))
                p = waitpid(pid, &status, 0);
        return status;
}

/* The last line of out that is not blank, into line ("(no output)" if none). */
static void last_line(char *out, char *line, size_t linelen)
{
        size_t n = strlen(out);

        while (n && isspace((unsigned char)out[n - 1]))
                out[--n] = '\0';
        for (char *p = out; *p; p++)
                if (*p == '\r')
                        *p = ' ';
        snprintf(line, linelen, "%.200s",
                 n ? (strrchr(out, '\n') ? strrchr(out, '\n') + 1 : out) : "(no output)");
}

/* What `hcisweep --version` said, into ver; 0 or -1 when no line was one. */
static int version_of(const char *out, char *ver, size_t verlen)
{
        const char *p = out;

        while (p) {
                if (!strncmp(p, "hcisweep ", 9)) {
                        snprintf(ver, verlen, "%.*s", (int)strcspn(p + 9, " \r\n"), p + 9);
                        return 0;
                }
                p = strchr(p, '\n');
                if (p)
                        p++;
        }
        return -1;
}

/* What ssh's end says about the destination: 0 when ver is the version wanted. */
static int judge(const char *name, const struct lab_ssh *d, int status, char *out,
                 const char *version, char *err, size_t errlen)
{
        const char *bin = d->hcisweep[0] ? d->hcisweep : "hcisweep";
        char line[256], ver[64];

        if (WIFEXITED(status) && !WEXITSTATUS(status) && !version_of(out, ver, sizeof(ver)))
                return strcmp(ver, version)
                           ? errf(err, errlen, -EPROTO,
                                  "ssh %s: %s there is version %s, this one is %s (drivers and "
                                  "controller must be one version)",
                                  name, bin, ver, version)
                           : 0;
        last_line(out, line, sizeof(line));
        if (WIFSIGNALED(status))
                return errf(err, errlen, -EIO, "ssh %s: the client was killed by signal %d: %s",
                            name, WTERMSIG(status), line);
        if (WEXITSTATUS(status) == 255)
                return errf(err, errlen, -EHOSTUNREACH,
                            "ssh %s: could not connect or log in (keys only, BatchMode): %s", name,
                            line);
        if (WEXITSTATUS(status))
                return errf(err, errlen, -ENOENT, "ssh %s: '%s --version' there exited %d: %s",
                            name, bin, WEXITSTATUS(status), line);
        return errf(err, errlen, -EPROTO, "ssh %s: '%s --version' there gave no version: %s", name,
                    bin, line);
}

int lab_ssh_check_version(const struct lab_ssh *d, const char *version, unsigned timeout_s,
                          const volatile sig_atomic_t *cancel, char *err, size_t errlen)
{
        const char *const words[] = {"hcisweep", "--version", NULL};
        struct lab_ssh_cmd c;
        char name[HOSTPORT_HOST_MAX + LAB_SSH_USER_MAX + 16], *out = NULL;
        int fds[2] = {-1, -1}, status, rc;
        uint64_t deadline;
        pid_t pid = -1;

        lab_ssh_name(d, name, sizeof(name));
        if ((rc = lab_ssh_cmd_build(&c, d, words)) < 0 || !(out = malloc(OUTPUT_MAX))) {
                rc = errf(err, errlen, -ENOMEM, "ssh %s: out of memory", name);
                goto out;
        }
        out[0] = '\0';
        if (pipe2(fds, O_CLOEXEC) < 0) {
                rc = errf(err, errlen, -errno, "ssh %s: pipe: %s", name, strerror(errno));
                goto out;
        }
        if ((rc = spawn_client(&c, fds[1], &pid, err, errlen)) < 0)
                goto out;
        close(fds[1]);
        fds[1] = -1;
        deadline = clk_now_ns() + (uint64_t)timeout_s * 1000000000ull;
        rc = collect(fds[0], deadline, cancel, out, OUTPUT_MAX);
        if (rc < 0)
                kill(pid, SIGKILL); /* its output is still open: it has not ended */
        status = reap_by(pid, rc < 0 ? 0 : deadline);
        if (rc == -ETIMEDOUT)
                errf(err, errlen, rc, "ssh %s: no answer within %u s", name, timeout_s);
        else if (rc == -EINTR)
                errf(err, errlen, rc, "ssh %s: interrupted", name);
        else
                rc = judge(name, d, status, out, version, err, errlen);
out:
        if (fds[0] >= 0)
                close(fds[0]);
        if (fds[1] >= 0)
                close(fds[1]);
        free(out);
        lab_ssh_cmd_free(&c);
        return rc;
}
