/*
 * proc.h - starting children, and stopping the lab's server processes.
 *
 * The one way this program starts a child (servers, tools, drivers, the ssh
 * client): fork/exec (never through a shell), every signal at its default
 * and none blocked, every fd but stdio closed at exec, in a session of
 * their own (a Ctrl-C in the terminal does not reach them), with their
 * output appended to a log file, and placed in their cgroups by the child
 * itself before exec, so no instruction of theirs runs outside the limits.
 * A process is later recognised by PID *and* name (/proc/PID/comm), since a
 * PID saved in a state file may have been reused by the time it is read.
 *
 * Errors: 0 or a negative errno, with one line in err (the caller's buffer).
 * Any thread may call these; they keep no state.
 */
#ifndef HCI_LAB_PROC_H
#define HCI_LAB_PROC_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_spawn {
        char *const *argv;    /* argv[0] is looked up in PATH */
        const char *log_path; /* stdout+stderr appended here; NULL: inherited */
        const char *const
            *cgroup_procs;     /* cgroup.procs files to join, NULL-terminated; may be NULL */
        const cpu_set_t *cpus; /* CPU affinity; NULL: inherit */
};

/* Start s->argv in the background; *pid is its PID. Fails (and leaves no
 * process) if the program cannot be run or a cgroup cannot be joined. */
int proc_spawn(const struct proc_spawn *s, pid_t *pid, char *err, size_t errlen);

/* proc_spawn_io's flags. */
#define PROC_DIE_WITH_PARENT  1 /* SIGTERM when the spawning thread dies (PR_SET_PDEATHSIG) */
#define PROC_STDERR_TO_STDOUT 2 /* stderr onto stdio[1] too, not s->log_path */

/*
 * proc_spawn for a program spoken to over pipes (scale's drivers, the ssh
 * client): stdio[0] becomes the child's stdin (negative: /dev/null) and
 * stdio[1] its stdout; stderr goes to s->log_path, or is inherited, or with
 * PROC_STDERR_TO_STDOUT joins stdout (stdio NULL: as proc_spawn). With
 * PROC_DIE_WITH_PARENT the child gets SIGTERM when the thread that spawned
 * it dies, and is refused if that thread is already gone, so a killed
 * controller leaves no child behind. flags is 0 or an OR of PROC_*; 1 is
 * PROC_DIE_WITH_PARENT.
 */
int proc_spawn_io(const struct proc_spawn *s, const int *stdio, int flags, pid_t *pid, char *err,
                  size_t errlen);

/* Start s->argv and wait for it; *status as from waitpid(). */
int proc_run(const struct proc_spawn *s, int *status, char *err, size_t errlen);

/* Run argv (no cgroup, no affinity) with its output appended to log and
 * wait; a non-zero exit is -EIO with "ARGV0 failed (LOG): last lines". */
int proc_run_quiet(char *const argv[], const char *log, char *err, size_t errlen);

/* 1 if pid runs (is not a zombie) and, when comm is not NULL, is called comm. */
int proc_alive(pid_t pid, const char *comm);

/* Wait up to timeout_ms for pid to be gone; 1 gone, 0 still there. Reaps it
 * if it is our own child. */
int proc_wait_gone(pid_t pid, unsigned timeout_ms);

/* Send sig to pid (if it is still comm), wait up to timeout_ms, then SIGKILL
 * and wait a little more. 0 once it is gone (or was never there). */
int proc_stop(pid_t pid, const char *comm, int sig, unsigned timeout_ms, char *err, size_t errlen);

/* CPU time (user + system) pid has used, in ns; -1 if unknown. */
int64_t proc_cpu_ns(pid_t pid);

/* Resident memory of pid in bytes; -1 if unknown. */
int64_t proc_rss(pid_t pid);

/* The last lines of a log file, newlines turned into "|", into out ("" if none). */
void proc_log_tail(const char *path, unsigned lines, char *out, size_t outlen);

#endif
