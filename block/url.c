/*
 * url.c - the iSCSI URL check of url.h. It only accepts or refuses: the
 * URL is still handed to libiscsi as the user typed it, so what is
 * accepted here means the same to both.
 */
#include "block/url.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define URL_LUN_MAX 16383

static int url_fail(char *err, size_t errlen, const char *why, const char *at, size_t n)
{
        snprintf(err, errlen, "option --target: %s in iSCSI URL '...%.*s'", why, (int)n, at);
        return -EINVAL;
}

/* HOST[:PORT] of length n at p. */
static int url_check_portal(const char *p, size_t n, char *err, size_t errlen)
{
        const char *colon = NULL, *end = p + n;
        unsigned long port = 0;

        if (n && *p == '[') {
                const char *close = memchr(p, ']', n);
                if (!close || close == p + 1)
                        return url_fail(err, errlen, "a bad [IPv6] host", p, n);
                if (close + 1 < end && close[1] != ':')
                        return url_fail(err, errlen, "text after the [IPv6] host", p, n);
                colon = close + 1 < end ? close + 1 : NULL;
        } else {
                colon = memchr(p, ':', n);
                if (colon == p || n == 0)
                        return url_fail(err, errlen, "no host", p, n);
        }
        if (!colon)
                return 0;
        if (colon + 1 == end)
                return url_fail(err, errlen, "an empty port", p, n);
        for (const char *d = colon + 1; d < end; d++) {
                if (!isdigit((unsigned char)*d))
                        return url_fail(err, errlen, "a port that is not a number", p, n);
                port = port * 10 + (unsigned long)(*d - '0');
                if (port > 65535)
                        return url_fail(err, errlen, "a port above 65535", p, n);
        }
        if (port == 0)
                return url_fail(err, errlen, "port 0", p, n);
        return 0;
}

/* IQN/LUN of length n at p. */
static int url_check_path(const char *p, size_t n, char *err, size_t errlen)
{
        const char *slash = memchr(p, '/', n), *end = p + n;
        unsigned long lun = 0;

        if (!slash || slash == p)
                return url_fail(err, errlen, "no /IQN/LUN", p, n);
        if (slash + 1 == end)
                return url_fail(err, errlen, "no LUN after the IQN", p, n);
        for (const char *d = slash + 1; d < end; d++) {
                if (!isdigit((unsigned char)*d))
                        return url_fail(err, errlen, "a LUN that is not a number", p, n);
                lun = lun * 10 + (unsigned long)(*d - '0');
                if (lun > URL_LUN_MAX)
                        return url_fail(err, errlen, "a LUN above 16383", p, n);
        }
        return 0;
}

/* USER[(%|:)SECRET] of length n at p, the part before '@': neither may be empty. */
static int url_check_auth(const char *p, size_t n, char *err, size_t errlen)
{
        size_t user = strcspn(p, "%:");

        if (memchr(p, '@', n))
                return url_fail(err, errlen, "more than one '@'", "", 0);
        if (user > n)
                user = n;
        if (user == 0)
                return url_fail(err, errlen, "an empty CHAP user before '@'", "", 0);
        if (user < n && user + 1 == n)
                return url_fail(err, errlen, "an empty CHAP secret before '@'", "", 0);
        return 0;
}

/* The query keys libiscsi reads; any other is a typing mistake it would ignore. */
static const char *const url_keys[] = {"target_user", "target_password", "header_digest", NULL};

/* ?KEY=VALUE[&KEY=VALUE...] at q (after the '?'): known keys, each once, values non-empty. */
static int url_check_query(const char *q, char *err, size_t errlen)
{
        unsigned seen = 0;

        if (!*q)
                return url_fail(err, errlen, "an empty query after '?'", "", 0);
        for (;;) {
                size_t n = strcspn(q, "&"), k = strcspn(q, "=&");
                unsigned i;

                for (i = 0; url_keys[i]; i++)
                        if (strlen(url_keys[i]) == k && !strncmp(q, url_keys[i], k))
                                break;
                /* The key is shown, never the value: it may be a password. */
                if (!url_keys[i])
                        return url_fail(err, errlen,
                                        "an unknown query key (known: target_user, "
                                        "target_password, header_digest)",
                                        q, k);
                if (seen & (1u << i))
                        return url_fail(err, errlen, "a query key given twice", q, k);
                seen |= 1u << i;
                if (k == n || k + 1 == n)
                        return url_fail(err, errlen, "an empty query value", q, k);
                if (!q[n])
                        return 0;
                q += n + 1;
        }
}

int blk_url_check(const char *url, char *err, size_t errlen)
{
        const char *p, *at, *slash, *q;
        size_t auth;
        int rc;

        if (strncmp(url, "iscsi://", 8))
                return url_fail(err, errlen, "no iscsi:// scheme", "", 0);
        p = url + 8;
        auth = strcspn(p, "/?");
        at = memchr(p, '@', auth);
        if (at) {
                if ((rc = url_check_auth(p, (size_t)(at - p), err, errlen)))
                        return rc;
                auth -= (size_t)(at + 1 - p);
                p = at + 1;
                if (memchr(p, '@', auth))
                        return url_fail(err, errlen, "more than one '@'", "", 0);
        }
        if ((rc = url_check_portal(p, auth, err, errlen)))
                return rc;
        slash = p + auth;
        if (*slash != '/')
                return url_fail(err, errlen, "no /IQN/LUN", p, auth);
        if ((rc = url_check_path(slash + 1, strcspn(slash + 1, "?"), err, errlen)))
                return rc;
        q = strchr(slash + 1, '?');
        return q ? url_check_query(q + 1, err, errlen) : 0;
}
