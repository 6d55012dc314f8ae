/*
 * hostport.h - the check of a server address as users type it, before any
 * name lookup: a name a typing mistake turned into something else would go
 * to the resolver (a DNS query off the machine) and fail late, as a
 * connection error, or reach another server.
 *
 * This is the one validator of addresses: --mysql-host, an inventory's host
 * and ssh, metrics URLs, --prometheus, --target and --target-addr all go
 * through it. hostport_parse() holds one item to
 *   HOST[:PORT]   HOST a dotted-quad IPv4 literal (inet_pton: four numbers
 *                 0..255, no leading zero) or a host name (RFC 1123: letters,
 *                 digits, '-', '_' and '.', labels of 1..63, at most 253)
 *   [IPV6][:PORT] or a bare IPv6 literal (then without a port)
 * with PORT 1..65535, digits only. What inet_aton() and so libc's resolver
 * and libcurl would also read as an IPv4 address is refused: octal
 * (0127.0.0.1, which dials 87.0.0.1), hex (0x7f.1), a bare integer
 * (2130706433), the short forms (127.1) and parts that overflow
 * (127.0.0.4294967297); so is a name whose last label is all digits, which
 * no resolver holds (RFC 3696 2) and which would go out as a DNS query.
 * A user or password ("user:pw@host") or a URL scheme ("mysql://") is
 * refused with its own message; the message never quotes what stands
 * before an '@', which may be a password. Pure, any thread.
 *
 * The loopback guard: with HCISWEEP_LOOPBACK_ONLY=1 in the environment (the
 * test suite sets it) every address a run dials must be an IP literal in
 * 127.0.0.0/8 or ::1; each entry point asks hostport_dial_ok() before any
 * connection is tried.
 */
#ifndef HCI_HOSTPORT_H
#define HCI_HOSTPORT_H

#include <stddef.h>

#define HOSTPORT_HOST_MAX 254 /* 253 characters and the NUL */

/*
 * 0 with the host (brackets removed) in host[hostlen] and the port in
 * *port (defport when none is given); -EINVAL with one line in err that
 * starts with "'ITEM': " (ITEM shown from its last '@' on).
 */
int hostport_parse(const char *s, unsigned defport, char *host, size_t hostlen, unsigned *port,
                   char *err, size_t errlen);

/*
 * A connection URI as libvirt takes it, DRIVER[+TRANSPORT]://[USER@]AUTHORITY[/PATH][?QUERY],
 * its AUTHORITY held to hostport_parse(): 0 with the host in host[hostlen] ("" when the
 * URI names none, as qemu:///system: this machine, no connection), -EINVAL with one line
 * in err. USER is never quoted (a password may stand there).
 */
int hostport_uri_host(const char *uri, char *host, size_t hostlen, char *err, size_t errlen);

/*
 * s as a message may quote it to a terminal: at most max characters of it
 * ("..." after when cut), each control character, DEL and '\\' written as
 * \xNN, so an ESC sequence in what a user or a file gave is never replayed.
 */
void hostport_printable(const char *s, size_t max, char *out, size_t outlen);

/* 1 when host (brackets removed) is an IP literal in 127.0.0.0/8, ::1 or ::ffff:127.x.y.z;
 * a name never is (it would be looked up). */
int hostport_is_loopback(const char *host);

/* 1 when the environment has HCISWEEP_LOOPBACK_ONLY=1. */
int hostport_loopback_only(void);

/* Whether a run may dial host (brackets removed): 1 unless the loopback guard is on and host
 * is not hostport_is_loopback(). */
int hostport_dial_ok(const char *host);

#endif
