/*
 * hostport.c - the server address check of hostport.h. It only accepts
 * what a client library would connect to without surprise: IP literals,
 * plain host names, and a port of digits.
 */
#include "core/hostport.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

#define NAME_MAX_LEN  253
#define LABEL_MAX_LEN 63

void hostport_printable(const char *s, size_t max, char *out, size_t outlen)
{
        static const char hex[] = "0123456789abcdef";
        size_t o = 0, i;

        if (!outlen)
                return;
        for (i = 0; i < max && s[i]; i++) {
                unsigned char c = (unsigned char)s[i];
                int plain = c >= 0x20 && c != 0x7f && c != '\\';

                if (o + (plain ? 1 : 4) >= outlen)
                        break;
                if (plain) {
                        out[o++] = (char)c;
                        continue;
                }
                out[o++] = '\\';
                out[o++] = 'x';
                out[o++] = hex[c >> 4];
                out[o++] = hex[c & 15];
        }
        if (s[i] && o + 3 < outlen) { /* i <= strlen(s) */
                memcpy(out + o, "...", 3);
                o += 3;
        }
        out[o] = '\0';
}

/* The item as a message may show it: from its last '@' on (a password may stand before). */
static const char *shown(const char *s)
{
        const char *at = strrchr(s, '@');

        return at ? at : s;
}

static int hp_fail(const char *s, char *err, size_t errlen, const char *why)
{
        const char *p = shown(s);
        char show[64 * 4 + 4];

        hostport_printable(p, 64, show, sizeof(show));
        return errf(err, errlen, -EINVAL, "'%s%s': %s", p == s ? "" : "...", show, why);
}

/* A host name of RFC 1123 (underscores allowed, as resolvers do): 1 if it is one. */
static int is_host_name(const char *h, size_t n)
{
        size_t label = 0;

        if (n == 0 || n > NAME_MAX_LEN)
                return 0;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)h[i];

                if (c == '.') {
                        if (label == 0)
                                return 0;
                        label = 0;
                        continue;
                }
                if (!isalnum(c) && c != '-' && c != '_')
                        return 0;
                if ((c == '-' && label == 0) || ++label > LABEL_MAX_LEN)
                        return 0;
        }
        return 1;
}

/*
 * 1 when a name is one the resolver or libcurl would read as an IPv4 number
 * rather than look up: a last label of digits only (no top-level domain is
 * numeric), or anything inet_aton() takes (hex labels such as 0x7f.1 too).
 * Only called for what inet_pton(AF_INET) refused.
 */
static int numeric_lookalike(const char *h, size_t n)
{
        const char *end = h + n, *last = h, *p;
        struct in_addr a4;
        char buf[NAME_MAX_LEN + 1];

        if (n && h[n - 1] == '.')
                end--; /* a fully qualified "name." ends in its root label */
        for (p = h; p < end; p++)
                if (*p == '.')
                        last = p + 1;
        for (p = last; p < end && isdigit((unsigned char)*p); p++)
                ;
        if (p == end)
                return 1;
        memcpy(buf, h, n);
        buf[n] = '\0';
        return inet_aton(buf, &a4) != 0;
}

/* PORT of digits only, 1..65535: 0, or -1. */
static int port_of(const char *p, unsigned *port)
{
        unsigned long v = 0;

        if (!*p)
                return -1;
        for (; *p; p++) {
                if (!isdigit((unsigned char)*p))
                        return -1;
                v = v * 10 + (unsigned long)(*p - '0');
                if (v > 65535)
                        return -1;
        }
        if (v == 0)
                return -1;
        *port = (unsigned)v;
        return 0;
}

static int is_ipv4(const char *h, size_t n)
{
        struct in_addr a4;
        char buf[INET_ADDRSTRLEN + 1];

        if (n >= sizeof(buf))
                return 0;
        memcpy(buf, h, n);
        buf[n] = '\0';
        return inet_pton(AF_INET, buf, &a4) == 1;
}

static int copy_host(const char *h, size_t n, char *host, size_t hostlen)
{
        if (n >= hostlen)
                return -1;
        memcpy(host, h, n);
        host[n] = '\0';
        return 0;
}

/* "[v6]" or "[v6]:PORT". */
static int parse_bracketed(const char *s, char *host, size_t hostlen, unsigned *port, char *err,
                           size_t errlen)
{
        const char *close = strchr(s, ']');
        struct in6_addr a6;
        char v6[INET6_ADDRSTRLEN + 1];

        if (!close || copy_host(s + 1, (size_t)(close - s - 1), v6, sizeof(v6)) ||
            inet_pton(AF_INET6, v6, &a6) != 1)
                return hp_fail(s, err, errlen, "not an [IPv6] address");
        if (close[1] && (close[1] != ':' || port_of(close + 2, port) < 0))
                return hp_fail(s, err, errlen, "the port must be a number 1..65535");
        if (copy_host(v6, strlen(v6), host, hostlen))
                return hp_fail(s, err, errlen, "too long");
        return 0;
}

int hostport_parse(const char *s, unsigned defport, char *host, size_t hostlen, unsigned *port,
                   char *err, size_t errlen)
{
        const char *colon;
        struct in6_addr a6;
        size_t n;

        *port = defport;
        if (!*s)
                return errf(err, errlen, -EINVAL, "an empty host");
        if (strchr(s, '@'))
                return hp_fail(s, err, errlen,
                               "a user or password does not belong in a host (use the user and "
                               "password options)");
        if (strstr(s, "://"))
                return hp_fail(s, err, errlen, "a URL is not a host (give HOST[:PORT])");
        if (*s == '[')
                return parse_bracketed(s, host, hostlen, port, err, errlen);
        colon = strchr(s, ':');
        if (colon && strchr(colon + 1, ':')) {
                /* Two colons or more: only a bare IPv6 literal, which then has no port. */
                if (inet_pton(AF_INET6, s, &a6) != 1)
                        return hp_fail(s, err, errlen,
                                       "more than one ':' (write an IPv6 address as [ADDR]:PORT)");
                if (copy_host(s, strlen(s), host, hostlen))
                        return hp_fail(s, err, errlen, "too long");
                return 0;
        }
        n = colon ? (size_t)(colon - s) : strlen(s);
        if (colon && port_of(colon + 1, port) < 0)
                return hp_fail(s, err, errlen, "the port must be a number 1..65535");
        if (n > NAME_MAX_LEN)
                return hp_fail(s, err, errlen, "a host name of over 253 characters");
        if (!is_host_name(s, n))
                return hp_fail(s, err, errlen,
                               "not a host name or IP address (letters, digits, '-', '.')");
        if (!is_ipv4(s, n) && numeric_lookalike(s, n))
                return hp_fail(s, err, errlen,
                               "not a dotted-quad IPv4 address (four numbers 0..255 without "
                               "leading zeros; octal, hex, short and integer forms are refused)");
        if (copy_host(s, n, host, hostlen))
                return hp_fail(s, err, errlen, "too long");
        return 0;
}

int hostport_uri_host(const char *uri, char *host, size_t hostlen, char *err, size_t errlen)
{
        const char *h = strstr(uri, "://"), *at;
        char auth[HOSTPORT_HOST_MAX + 8];
        unsigned port;
        size_t n;

        host[0] = '\0';
        if (!h || h == uri)
                return hp_fail(
                    uri, err, errlen,
                    "not a connection URI (DRIVER[+TRANSPORT]://[USER@]HOST[:PORT]/PATH)");
        h += 3;
        n = strcspn(h, "/?#");
        at = memrchr(h, '@', n);
        if (at) {
                n -= (size_t)(at + 1 - h);
                h = at + 1;
        }
        if (!n)
                return 0;
        if (n >= sizeof(auth))
                return hp_fail(uri, err, errlen, "a host name of over 253 characters");
        memcpy(auth, h, n);
        auth[n] = '\0';
        return hostport_parse(auth, 0, host, hostlen, &port, err, errlen);
}

int hostport_is_loopback(const char *host)
{
        struct in6_addr a6;
        struct in_addr a4;

        if (inet_pton(AF_INET, host, &a4) == 1)
                return (ntohl(a4.s_addr) >> 24) == 127;
        if (inet_pton(AF_INET6, host, &a6) != 1)
                return 0;
        return IN6_IS_ADDR_LOOPBACK(&a6) || (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
}

int hostport_loopback_only(void)
{
        const char *env = getenv("HCISWEEP_LOOPBACK_ONLY");

        return env && !strcmp(env, "1");
}

int hostport_dial_ok(const char *host)
{
        return !hostport_loopback_only() || hostport_is_loopback(host);
}
