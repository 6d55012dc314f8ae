/*
 * qga.h - a client of the QEMU guest agent (qemu-ga, Debian's
 * qemu-guest-agent), the program in a guest that runs commands and reads
 * and writes files for the host. The VM backends use it to run a VM's
 * load driver inside the guest (lab/guest_driver.h).
 *
 * The protocol is JSON, one command and one reply at a time:
 *
 *   -> {"execute":"guest-exec","arguments":{"path":"/bin/true"}}
 *   <- {"return":{"pid":812}}
 *   <- {"error":{"class":"GenericError","desc":"..."}}   (a refusal)
 *
 * Commands reach the agent over a channel:
 *   unix     the socket of QEMU's chardev on the guest's virtio-serial port
 *            org.qemu.guest_agent.0 (qemu backend: -chardev socket,...,
 *            server=on). The agent cannot tell one client from the next, so
 *            a reply the last client did not wait for may still be on the
 *            way: qga_open_unix() first sends 0xFF (which resets the agent's
 *            parser) and guest-sync-delimited with a random id, and drops
 *            everything before the reply carrying that id; so does the
 *            next command after one that ended before its reply (a
 *            time-out, a cancel).
 *   libvirt  virDomainQemuAgentCommand on a domain with the same channel
 *            (libvirt backend; libvirt does the sync itself), in a build
 *            with libvirt.
 * One client at a time per guest: QEMU's chardev serves one connection,
 * others wait until it closes.
 *
 * The commands used:
 *   guest-exec         path, arg[], env[], input-data (base64; the program's
 *                      stdin, then end of input), capture-output: its pid.
 *   guest-exec-status  polled; once "exited" it holds exitcode or signal and
 *                      the captured out-data and err-data (base64), and the
 *                      agent forgets the process. Output is not streamed:
 *                      it comes whole at the end.
 *   guest-file-open/close/write   a file in the guest.
 *   guest-get-time     the guest's CLOCK_REALTIME in ns.
 *
 * Every wait is bounded by its timeout and, when the handle has a cancel
 * flag, gives up with -EINTR within about 100 ms of the flag becoming
 * nonzero (a unix channel; a libvirt call ends on its own timeout).
 *
 * Errors: 0 or a negative errno with one line in err (the caller's buffer):
 * -ETIMEDOUT no reply in time, -EREMOTEIO the agent refused the command
 * (its desc in err), -EPROTO a reply that is not the protocol, -EINTR
 * cancelled, other values the channel's (-ECONNREFUSED: no QEMU behind the
 * socket). A handle is used by one thread at a time.
 */
#ifndef HCI_LAB_QGA_H
#define HCI_LAB_QGA_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct qga; /* one connection to one guest's agent, opaque */

/* How a channel carries one command: the command as compact JSON text,
 * the reply object's text into *reply (malloc'd, the caller frees it). */
struct qga_chan_ops {
        const char *name; /* "unix", "libvirt" */
        int (*call)(void *ctx, const char *cmd, int timeout_ms, char **reply, char *err,
                    size_t errlen);
        void (*close)(void *ctx); /* frees ctx */
};

/* For channel implementations: a handle over ops and ctx (owned by the
 * handle from now on, closed by qga_close, and on failure here). where
 * names the guest in messages ("vm1"). The channel waits, so it is the one
 * that holds a cancel flag. -ENOMEM. */
int qga_new(const struct qga_chan_ops *ops, void *ctx, const char *where, struct qga **out,
            char *err, size_t errlen);

/* Connect to the agent behind the chardev socket path and sync (above),
 * waiting up to timeout_ms for the agent. cancel may be NULL. */
int qga_open_unix(const char *path, const char *where, int timeout_ms,
                  const volatile sig_atomic_t *cancel, struct qga **out, char *err, size_t errlen);

/* Connect to domain's agent through libvirt at uri (a build with libvirt;
 * else -ENOTSUP), checking it answers guest-ping within timeout_ms. */
int qga_open_libvirt(const char *uri, const char *domain, const char *where, int timeout_ms,
                     const volatile sig_atomic_t *cancel, struct qga **out, char *err,
                     size_t errlen);

/* Close the connection and free q. NULL is fine. */
void qga_close(struct qga *q);

/* The default time one command may take: the agent of a guest under TCG
 * emulation on a busy host answers in tens of milliseconds, a fork and
 * exec in it may take seconds. */
#define QGA_TIMEOUT_MS 20000

/* Start path in the guest with argv (the arguments after the program's
 * own name, NULL-terminated; may be NULL), env ("NAME=VALUE",
 * NULL-terminated; NULL: the agent's environment), input[0..inlen) as its
 * stdin (NULL: none) and its stdout and stderr captured. *pid is its pid
 * in the guest. */
int qga_exec(struct qga *q, const char *path, char *const argv[], char *const env[],
             const void *input, size_t inlen, int64_t *pid, char *err, size_t errlen);

/* A guest process as guest-exec-status tells it. */
struct qga_status {
        int exited;       /* 0: still running; the rest is unset */
        int64_t exitcode; /* when it exited, -1 when killed; as the guest said it */
        int64_t signal;   /* the signal that killed it, 0 if none; as the guest said it */
        char *out, *errs; /* its captured stdout and stderr, NUL-terminated (may hold NULs) */
        size_t outlen, errslen;
        int truncated; /* the agent kept only the first part of the output */
};

/* Ask about pid. Once st->exited, st->out and st->errs are malloc'd:
 * qga_status_free. */
int qga_exec_status(struct qga *q, int64_t pid, struct qga_status *st, char *err, size_t errlen);

/* Free what qga_exec_status() allocated in st and zero it. */
void qga_status_free(struct qga_status *st);

/* Run path with argv (as qga_exec, no input) and wait up to timeout_ms for
 * it to exit, polling every 100 ms; st as from qga_exec_status. On time-out
 * (-ETIMEDOUT) the process is left running. */
int qga_run(struct qga *q, const char *path, char *const argv[], int timeout_ms,
            struct qga_status *st, char *err, size_t errlen);

/* 1 if path can be opened for reading in the guest, 0 if the agent says
 * it cannot (it does not exist), else a negative errno. */
int qga_file_exists(struct qga *q, const char *path, char *err, size_t errlen);

/* Create path in the guest (empty; truncated if it exists). */
int qga_file_create(struct qga *q, const char *path, char *err, size_t errlen);

/* The most one qga_file_read() reads. */
#define QGA_READ_MAX 16384

/* Up to cap (at most QGA_READ_MAX) bytes of path in the guest from offset
 * into buf, *n how many: 0 at its end, and 0 with 0 returned when the
 * agent cannot open it (it does not exist yet). */
int qga_file_read(struct qga *q, const char *path, uint64_t offset, char *buf, size_t cap,
                  size_t *n, char *err, size_t errlen);

/* The most one qga_file_write() writes. */
#define QGA_WRITE_MAX 4096

/* A handle on path in the guest (guest-file-open; mode as fopen's: "r+" opens a FIFO
 * without waiting for its other end), closed by qga_file_close: the agent keeps it until
 * then, across connections. */
int qga_file_open(struct qga *q, const char *path, const char *mode, int64_t *h, char *err,
                  size_t errlen);

/* buf[0..n) (n at most QGA_WRITE_MAX) written whole to handle h and flushed, so a reader in
 * the guest has it when this returns; -EIO when the agent wrote less. */
int qga_file_write(struct qga *q, int64_t h, const void *buf, size_t n, char *err, size_t errlen);

int qga_file_close(struct qga *q, int64_t h, char *err, size_t errlen);

/* The guest's CLOCK_REALTIME in ns. */
int qga_get_time(struct qga *q, int64_t *ns, char *err, size_t errlen);

#endif
