/*
 * secret.c - drop CHAP secrets from URLs wherever they appear in a string
 * (a --target list, a message quoting one), and read secret files.
 */
#include "core/secret.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <string.h>

#define TARGET_PW "target_password="

/*
 * Length of the "user[:%]secret" part after "://" when an '@' ends it
 * within the same word (libiscsi cuts at the '@', so a secret may hold '/').
 */
static size_t userinfo_len(const char *p)
{
        size_t n = strcspn(p, "@ \t\n,;'\"");

        return p[n] == '@' ? n : 0;
}

/* Copy in to out, dropping secrets; returns how many were dropped. */
static int redact_into(const char *in, char *out, size_t len)
{
        size_t o = 0;
        int dropped = 0;

        for (const char *p = in; *p;) {
                size_t keep = 1, skip = 0;

                if (!strncmp(p, "://", 3)) {
                        size_t ui = userinfo_len(p + 3), user = strcspn(p + 3, ":%");

                        keep = 3 + (ui && user < ui ? user : ui);
                        skip = ui && user < ui ? ui - user : 0;
                } else if (!strncmp(p, TARGET_PW, strlen(TARGET_PW))) {
                        skip = strlen(TARGET_PW) + strcspn(p + strlen(TARGET_PW), "&#, \t\n;'\"");
                        keep = 0;
                        /* "?target_password=x&a=b" -> "?a=b"; "&target_password=x" -> "" */
                        if (p[skip] == '&' && o && out[o - 1] == '?')
                                skip++;
                        else if (o && (out[o - 1] == '&' || out[o - 1] == '?'))
                                o--;
                }
                for (size_t i = 0; i < keep && o + 1 < len; i++)
                        out[o++] = p[i];
                p += keep + skip;
                dropped += skip > 0;
        }
        if (len)
                out[o < len ? o : len - 1] = '\0';
        return dropped;
}

int secret_redact(const char *in, char *out, size_t len)
{
        if (!len)
                return 0;
        if (!in) {
                out[0] = '\0';
                return 0;
        }
        return redact_into(in, out, len) > 0;
}

/* log.h's errf, which this file cannot include (log.c redacts through it). */
static int fail(char *why, size_t whylen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *why, size_t whylen, int rc, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
        return rc;
}

int secret_read_line(const char *path, char *out, size_t len, char *why, size_t whylen)
{
        FILE *f = fopen(path, "r");
        size_t n = 0;
        int c, rc = 0, cr = 0;

        if (!f)
                return fail(why, whylen, -errno, "%s: %s", path, strerror(errno));
        /* A directory opens for reading: only the read tells it apart. */
        while ((c = getc(f)) != EOF && c != '\n') {
                if (cr || c == 0 || (c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
                        rc = fail(why, whylen, -EINVAL,
                                  "%s: a %s on the first line (a secret is printable text)", path,
                                  c ? "control character" : "NUL byte");
                        break;
                }
                if (c == '\r') { /* CRLF: only just before the line end */
                        cr = 1;
                        continue;
                }
                if (n + 1 >= len) {
                        rc = fail(why, whylen, -EINVAL, "%s: the first line is over %zu characters",
                                  path, len - 1);
                        break;
                }
                out[n++] = (char)c;
        }
        if (!rc && ferror(f))
                rc = fail(why, whylen, -errno, "%s: %s", path, strerror(errno));
        fclose(f);
        if (len)
                out[rc < 0 ? 0 : n] = '\0';
        if (rc < 0)
                explicit_bzero(out, len);
        return rc;
}

int secret_read_file(const char *opt, const char *path, char *out, size_t len, char *err,
                     size_t errlen)
{
        char why[PATH_MAX + 128];
        int rc = secret_read_line(path, out, len, why, sizeof(why));

        if (rc < 0)
                return fail(err, errlen, rc, "option --%s: %s", opt, why);
        if (!out[0])
                return fail(err, errlen, -EINVAL, "option --%s: %s: the first line holds no secret",
                            opt, path);
        return 0;
}
