/*
 * secret.h - keeping credentials out of what hcisweep prints and writes.
 *
 * iSCSI URLs may carry CHAP secrets: iscsi://USER%SECRET@host/... or
 * iscsi://USER:SECRET@host/... (libiscsi takes both) and
 * ?target_password=SECRET for mutual CHAP. Every message on stderr
 * (core/log.c) and every config echoed into a result (res_new, so also
 * job.ini and the reports) goes through secret_redact(), whatever the
 * scheme's spelling (a mistyped "iscs://" or "ISCSI://" carries the same
 * secret). The user name stays: it says which account, and a job.ini
 * without the secret still logs in when the secret comes from
 * --chap-secret-file or LIBISCSI_CHAP_PASSWORD.
 */
#ifndef HCI_SECRET_H
#define HCI_SECRET_H

#include <stddef.h>

/*
 * Copy in to out (len bytes, always terminated) without secrets: the
 * ":SECRET" or "%SECRET" of every "scheme://user...@" and every
 * "target_password=SECRET" parameter are dropped. Returns 1 if anything
 * was dropped, else 0. Any thread; in and out must not overlap.
 */
int secret_redact(const char *in, char *out, size_t len);

/*
 * The first line of path (its "\n" or "\r\n" removed) into out: 0, or
 * -errno / -EINVAL with why starting "PATH: ". A line of len characters or
 * more, a NUL byte (/dev/zero) or a control character other than a tab is
 * refused, never cut or sent on; out is wiped then. May be empty.
 */
int secret_read_line(const char *path, char *out, size_t len, char *why, size_t whylen);

/*
 * Read a secret from the first line of path (line end removed) into out.
 * 0, or -errno with err naming the option opt and the file; an empty first
 * line is -EINVAL, as is all secret_read_line() refuses.
 */
int secret_read_file(const char *opt, const char *path, char *out, size_t len, char *err,
                     size_t errlen);

#endif
