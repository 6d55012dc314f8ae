/*
 * proc.c - fork/exec of the lab's servers and tools, and stopping them by
 * PID. The child reports a failure to join a cgroup or to exec through a
 * close-on-exec pipe, so the parent learns of it synchronously instead of
 * finding a dead PID later. Between fork and exec the child only calls
 * async-signal-safe functions.
 */
#include "lab/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/procfs.h"

/* What the child sends back through the pipe when it gives up. */
struct child_fail {
        int stage; /* 0 log file, 1 cgroup, 2 affinity, 3 exec */
        int err;
        int index; /* which cgroup */
};

static void child_report(int fd, int stage, int index)
{
        struct child_fail f = {stage, errno, index};
        ssize_t n = write(fd, &f, sizeof(f));

        (void)n;
        _exit(127);
}

static int child_join_cgroup(const char *procs)
{
        char buf[24];
        int fd, len = 0, ok;
        pid_t pid = getpid();

        /* A hand-made itoa: snprintf is not async-signal-safe. */
        do {
                buf[sizeof(buf) - 1 - (size_t)len++] = (char)('0' + pid % 10);
                pid /= 10;
        } while (pid);
        fd = open(procs, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        ok = write(fd, buf + sizeof(buf) - len, (size_t)len) == len;
        close(fd);
        return ok ? 0 : -1;
}

/* stdio given: those pipes for stdin (or /dev/null) and stdout, stderr to the log or stdout. */
static void child_pipe_io(const struct proc_spawn *s, const int *stdio, int flags, int fd_report)
{
        int in = stdio[0] >= 0 ? stdio[0] : open("/dev/null", O_RDONLY | O_CLOEXEC);
        int err = (flags & PROC_STDERR_TO_STDOUT) || !s->log_path
                      ? -2
                      : open(s->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

        if (in < 0 || err == -1 || dup2(in, STDIN_FILENO) < 0 ||
            dup2(stdio[1], STDOUT_FILENO) < 0 || (err >= 0 && dup2(err, STDERR_FILENO) < 0) ||
            ((flags & PROC_STDERR_TO_STDOUT) && dup2(STDOUT_FILENO, STDERR_FILENO) < 0))
                child_report(fd_report, 0, 0);
}

static void child_setup_io(const char *log_path, int fd_report)
{
        int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
        int out = log_path ? open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)
                           : STDOUT_FILENO;

        if (in < 0 || out < 0)
                child_report(fd_report, 0, 0);
        dup2(in, STDIN_FILENO);
        if (in > STDERR_FILENO)
                close(in);
        if (!log_path)
                return;
        dup2(out, STDOUT_FILENO);
        dup2(out, STDERR_FILENO);
        if (out > STDERR_FILENO)
                close(out);
}

/* Every signal back to its default: a parent's SIG_IGN (scale ignores SIGPIPE) would
 * otherwise pass through exec to a driver, which then writes on into a closed pipe. */
static void child_reset_signals(void)
{
        struct sigaction dfl;

        memset(&dfl, 0, sizeof(dfl));
        dfl.sa_handler = SIG_DFL;
        for (int sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        sigaction(sig, &dfl, NULL);
}

/* Every fd but stdio closed at exec: whatever the parent opened without O_CLOEXEC (a
 * library's socket, another child's pipe end) must not keep a peer waiting on us. */
static void child_cloexec_all(void)
{
        if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
                return;
        for (int fd = 3; fd < 1024; fd++)
                fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static void child_main(const struct proc_spawn *s, const int *stdio, int flags, pid_t parent,
                       int fd_report)
{
        sigset_t none;

        setsid();
        child_reset_signals();
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int i = 0; s->cgroup_procs && s->cgroup_procs[i]; i++)
                if (child_join_cgroup(s->cgroup_procs[i]) < 0)
                        child_report(fd_report, 1, i);
        if (s->cpus && sched_setaffinity(0, sizeof(*s->cpus), s->cpus) < 0)
                child_report(fd_report, 2, 0);
        /* The parent may have died before the prctl: then no signal would ever come. */
        if (parent && prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
                child_report(fd_report, 3, 0);
        if (parent && getppid() != parent) {
                errno = ESRCH;
                child_report(fd_report, 3, 0);
        }
        if (stdio)
                child_pipe_io(s, stdio, flags, fd_report);
        else
                child_setup_io(s->log_path, fd_report);
        child_cloexec_all();
        execvp(s->argv[0], s->argv);
        child_report(fd_report, 3, 0);
}

static int describe_failure(const struct proc_spawn *s, const struct child_fail *f, char *err,
                            size_t errlen)
{
        static const char *const what[] = {"open its log", "join cgroup", "set CPU affinity",
                                           "run"};
        const char *detail = f->stage == 0   ? (s->log_path ? s->log_path : "its input")
                             : f->stage == 1 ? s->cgroup_procs[f->index]
                                             : s->argv[0];

        snprintf(err, errlen, "%s: could not %s %s: %s", s->argv[0], what[f->stage & 3], detail,
                 strerror(f->err));
        return f->err ? -f->err : -EIO;
}

int proc_spawn(const struct proc_spawn *s, pid_t *pid, char *err, size_t errlen)
{
        return proc_spawn_io(s, NULL, 0, pid, err, errlen);
}

int proc_spawn_io(const struct proc_spawn *s, const int *stdio, int flags, pid_t *pid, char *err,
                  size_t errlen)
{
        struct child_fail f;
        int fds[2], rc = 0, status;
        pid_t parent = (flags & PROC_DIE_WITH_PARENT) ? getpid() : 0;
        ssize_t n;

        if (pipe2(fds, O_CLOEXEC) < 0) {
                rc = -errno;
                snprintf(err, errlen, "pipe: %s", strerror(errno));
                return rc;
        }
        *pid = fork();
        if (*pid < 0) {
                rc = -errno;
                snprintf(err, errlen, "fork: %s", strerror(errno));
                goto out;
        }
        if (*pid == 0) {
                close(fds[0]);
                child_main(s, stdio, flags, parent, fds[1]);
        }
        close(fds[1]);
        fds[1] = -1;
        do
                n = read(fds[0], &f, sizeof(f));
        while (n < 0 && errno == EINTR);
        if (n == (ssize_t)sizeof(f)) {
                rc = describe_failure(s, &f, err, errlen);
                waitpid(*pid, &status, 0);
                *pid = -1;
        }
out:
        close(fds[0]);
        if (fds[1] >= 0)
                close(fds[1]);
        return rc;
}

int proc_run(const struct proc_spawn *s, int *status, char *err, size_t errlen)
{
        pid_t pid;
        int rc = proc_spawn(s, &pid, err, errlen);

        if (rc < 0)
                return rc;
        while (waitpid(pid, status, 0) < 0) {
                if (errno != EINTR) {
                        rc = -errno;
                        snprintf(err, errlen, "waitpid %s: %s", s->argv[0], strerror(errno));
                        return rc;
                }
        }
        return 0;
}

int proc_run_quiet(char *const argv[], const char *log, char *err, size_t errlen)
{
        char tail[400];
        int status,
            rc = proc_run(&(struct proc_spawn){argv, log, NULL, NULL}, &status, err, errlen);

        if (!rc && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
                proc_log_tail(log, 3, tail, sizeof(tail));
                snprintf(err, errlen, "%s failed (%s): %s", argv[0], log, tail);
                rc = -EIO;
        }
        return rc;
}

int proc_alive(pid_t pid, const char *comm)
{
        struct procfs_stat st;

        if (procfs_pid_stat((int)pid, &st) < 0)
                return 0;
        if (st.state == 'Z' || st.state == 'X')
                return 0;
        /* comm is cut to 15 characters by the kernel. */
        return !comm || !strncmp(st.comm, comm, 15);
}

static void sleep_ms(unsigned ms)
{
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

int proc_wait_gone(pid_t pid, unsigned timeout_ms)
{
        for (unsigned waited = 0;; waited += 20) {
                waitpid(pid, NULL, WNOHANG); /* our own child: reap it; others: ECHILD */
                if (!proc_alive(pid, NULL))
                        return 1;
                if (waited >= timeout_ms)
                        return 0;
                sleep_ms(20);
        }
}

int proc_stop(pid_t pid, const char *comm, int sig, unsigned timeout_ms, char *err, size_t errlen)
{
        if (!proc_alive(pid, comm))
                return 0;
        if (kill(pid, sig) < 0 && errno != ESRCH) {
                snprintf(err, errlen, "kill %d: %s", (int)pid, strerror(errno));
                return -errno;
        }
        if (proc_wait_gone(pid, timeout_ms))
                return 0;
        kill(pid, SIGKILL);
        if (proc_wait_gone(pid, 5000))
                return 0;
        snprintf(err, errlen, "%s (pid %d) is still running after SIGKILL", comm ? comm : "process",
                 (int)pid);
        return -EBUSY;
}

int64_t proc_cpu_ns(pid_t pid)
{
        struct procfs_stat st;

        if (procfs_pid_stat((int)pid, &st) < 0)
                return -1;
        return (int64_t)((st.utime + st.stime) * procfs_tick_ns());
}

int64_t proc_rss(pid_t pid)
{
        char path[64];
        long long pages;
        FILE *f;
        int ok;

        snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        ok = fscanf(f, "%*s %lld", &pages) == 1;
        fclose(f);
        return ok ? pages * sysconf(_SC_PAGESIZE) : -1;
}

static size_t drop_cr(char *buf, size_t n)
{
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                if (buf[i] != '\r')
                        buf[k++] = buf[i];
        return k;
}

void proc_log_tail(const char *path, unsigned lines, char *out, size_t outlen)
{
        char buf[4096], *p, *start;
        unsigned seen = 0;
        ssize_t n;
        off_t size;
        int fd;

        out[0] = '\0';
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return;
        size = lseek(fd, 0, SEEK_END);
        if (size > (off_t)sizeof(buf) - 1)
                lseek(fd, size - (off_t)sizeof(buf) + 1, SEEK_SET);
        else
                lseek(fd, 0, SEEK_SET);
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return;
        /* Serial consoles end lines in "\r\n": keep the newlines only. */
        n = (ssize_t)drop_cr(buf, (size_t)n);
        buf[n] = '\0';
        while (n > 0 && buf[n - 1] == '\n')
                buf[--n] = '\0';
        start = buf;
        for (p = buf + n; p > buf; p--) {
                if (p[-1] == '\n' && ++seen == lines) {
                        start = p;
                        break;
                }
        }
        for (p = start; *p; p++)
                if (*p == '\n')
                        *p = '|';
        snprintf(out, outlen, "%s", start);
}
