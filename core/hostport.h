/*
 * hostport.h - the check of a server address as users type it, before any
 * name lookup: a name a typing mistake turned into something else would go
 * to the resolver (a DNS query off the machine) and fail late, as a
 * connection error, or reach another server.
 *
 * hostport_parse() holds one item to
 *   HOST[:PORT]   HOST an IPv4 literal or a host name (RFC 1123: letters,
 *                 digits, '-', '_' and '.', labels of 1..63, at most 253)
 *   [IPV6][:PORT] or a bare IPv6 literal (then without a port)
 * with PORT 1..65535, digits only. A user or password ("user:pw@host") or a
 * URL scheme ("mysql://") is refused with its own message; the message never
 * quotes what stands before an '@', which may be a password. Pure, any
 * thread.
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

#endif
