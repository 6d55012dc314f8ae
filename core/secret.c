/*
 * secret.c - drop CHAP secrets from URLs wherever they appear in a string
 * (a --target list, a message quoting one), and read secret files.
 */
#include "core/secret.h"

#include <errno.h>
#include <stdio.h>
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

int secret_read_file(const char *opt, const char *path, char *out, size_t len, char *err,
                     size_t errlen)
{
        FILE *f = fopen(path, "r");
        int rc = 0;

        if (!f) {
                rc = -errno;
                snprintf(err, errlen, "option --%s: %s: %s", opt, path, strerror(-rc));
                return rc;
        }
        if (!fgets(out, (int)len, f))
                out[0] = '\0';
        fclose(f);
        out[strcspn(out, "\r\n")] = '\0';
        if (!out[0]) {
                snprintf(err, errlen, "option --%s: %s: the first line holds no secret", opt, path);
                rc = -EINVAL;
        }
        return rc;
}
