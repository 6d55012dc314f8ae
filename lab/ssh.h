/*
 * ssh.h - a command on another machine through the OpenSSH client: where a
 * static inventory's drivers run (scale --driver-placement vm).
 *
 * The client is the user's own `ssh`, started as every child is
 * (lab/proc.h: signals at their defaults, no fd of ours left open, gone
 * when the thread that started it dies) and never through a local shell,
 * so the user's ssh config, keys and agent are honoured; it
 * always runs in batch mode (-o BatchMode=yes: keys only, never a password
 * or a host-key question on a terminal), without a terminal (-T, and no
 * escape character, so a line of input is passed on as it is), without
 * agent or X11 forwarding, with a connect timeout and keep-alives. The
 * remote command is one string that the login shell there splits again:
 * every word is single-quoted, so no word is ever read as shell syntax.
 *
 * Destinations are checked as users type them, before any connection or
 * name lookup: [USER@]HOST[:PORT], HOST as core/hostport.h takes it (an IP
 * literal, a host name, or [IPV6][:PORT]). With HCISWEEP_LOOPBACK_ONLY=1 in
 * the environment (the test suite sets it) HOST must be a loopback IP
 * literal, as for metrics URLs (core/hostsrc.h).
 *
 * Errors: 0 or a negative errno with one line in err (the caller's buffer).
 * Any thread; nothing here keeps state.
 */
#ifndef HCI_LAB_SSH_H
#define HCI_LAB_SSH_H

#include <signal.h>
#include <stddef.h>

#include "core/hostport.h"
#include "core/sbuf.h"
#include "lab/backend.h"

#define LAB_SSH_USER_MAX 33 /* 32 characters, as useradd allows, and the NUL */

/* Where and how a command runs over ssh. Plain buffers, nothing to free. */
struct lab_ssh {
        char user[LAB_SSH_USER_MAX];  /* -l USER; "": ssh's own (its config, or this user) */
        char host[HOSTPORT_HOST_MAX]; /* IP literal or host name, brackets removed */
        unsigned port;                /* -p PORT; 0: ssh's own (its config, or 22) */
        char config[LAB_PATH_MAX];    /* -F FILE instead of the user's config; "": none */
        char hcisweep[LAB_PATH_MAX];  /* the hcisweep binary there; "": hcisweep on its PATH */
};

/*
 * "[USER@]HOST[:PORT]" into d->user, d->host and d->port (the other fields
 * are left as they are). 0, or -EINVAL with why in err: a user that is not
 * 1..32 of letters, digits, '.', '_', '-' (not first), a host hostport.h
 * refuses, a host that is not loopback under HCISWEEP_LOOPBACK_ONLY=1.
 */
int lab_ssh_parse(const char *s, struct lab_ssh *d, char *err, size_t errlen);

/* d's destination as written back ("root@10.0.0.1:2222", "[fd00::1]:22", "h1"). */
void lab_ssh_name(const struct lab_ssh *d, char *out, size_t outlen);

/* 1 when a and b reach one destination with one config and run one binary there. */
int lab_ssh_same(const struct lab_ssh *a, const struct lab_ssh *b);

/* word, single-quoted for a POSIX shell ('it'\''s'), appended to out. */
void lab_ssh_quote(struct sbuf *out, const char *word);

/* The ssh client's command line for one remote command (lab_ssh_cmd_build). */
struct lab_ssh_cmd {
        char *argv[40];     /* NULL-terminated; points into this struct and into d */
        char port[12];      /* -p's value */
        struct sbuf remote; /* the remote command: every word quoted */
};

/*
 * Fill *c to run words there (words[0] is replaced by d->hcisweep, or
 * "hcisweep"; NULL-terminated): argv is `ssh OPTIONS [-F CONFIG] [-p PORT]
 * [-l USER] HOST -- 'HCISWEEP' 'WORD'...`. d must outlive c. 0, or
 * -ENOMEM. Free with lab_ssh_cmd_free() in either case.
 */
int lab_ssh_cmd_build(struct lab_ssh_cmd *c, const struct lab_ssh *d, const char *const *words);
void lab_ssh_cmd_free(struct lab_ssh_cmd *c);

/*
 * Run `HCISWEEP --version` at d and wait at most timeout_s (ssh's own
 * connect timeout is shorter): 0 when it printed "hcisweep VERSION". Else,
 * with err naming the destination: -EHOSTUNREACH ssh could not connect or
 * log in (ssh's last line of errors quoted), -ETIMEDOUT no answer in time
 * (the client is killed), -ENOENT the binary did not run there (its exit
 * code and last line), -EPROTO another version (both named) or no version
 * line, -EINTR *cancel became nonzero (may be NULL), -errno a local
 * failure (pipe, fork).
 */
int lab_ssh_check_version(const struct lab_ssh *d, const char *version, unsigned timeout_s,
                          const volatile sig_atomic_t *cancel, char *err, size_t errlen);

#endif
