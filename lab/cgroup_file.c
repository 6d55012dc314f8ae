/*
 * cgroup_file.c - reading and writing the small files of a cgroup
 * directory, for both versions (cgroup_file.h).
 */
#include "lab/cgroup_file.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CGF_PATH_MAX 600 /* a group's directory (CG_PATH_MAX) and a file name */

int cg_write(const char *dir, const char *name, const char *val, char *err, size_t errlen)
{
        char path[CGF_PATH_MAX + 64];
        FILE *f;
        int rc = 0;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "we");
        if (!f) {
                rc = -errno;
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                return rc;
        }
        if (fputs(val, f) == EOF)
                rc = -errno;
        if (fclose(f) == EOF && !rc)
                rc = -errno;
        if (rc)
                snprintf(err, errlen, "writing %s to %s: %s", val, path, strerror(-rc));
        return rc;
}

void cg_text(const char *dir, const char *name, char *buf, size_t len)
{
        char path[CGF_PATH_MAX + 64];
        FILE *f;
        size_t n = 0;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if ((f = fopen(path, "re"))) {
                n = fread(buf, 1, len - 1, f);
                fclose(f);
        }
        buf[n] = '\0';
}

void cg_line(const char *dir, const char *name, char *out, size_t outlen)
{
        cg_text(dir, name, out, outlen);
        out[strcspn(out, "\n")] = '\0';
}

int64_t cg_key(const char *dir, const char *name, const char *key)
{
        char text[8192], k[64];
        const char *p = text;
        long long v, found = -1;
        int used;

        cg_text(dir, name, text, sizeof(text));
        while (sscanf(p, "%63s %lld%n", k, &v, &used) == 2) {
                if (!strcmp(k, key))
                        found = v;
                p += used;
        }
        return found;
}

int cg_has(const char *dir, const char *name)
{
        char path[CGF_PATH_MAX + 64];

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        return access(path, F_OK) == 0;
}

int cg_kill_listed(const char *dir, pid_t keep, pid_t *killed, int max)
{
        char path[CGF_PATH_MAX + 16];
        int n = 0, pid;
        FILE *f;

        snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
        if (!(f = fopen(path, "re")))
                return 0;
        while (fscanf(f, "%d", &pid) == 1)
                if (pid > 0 && pid != keep && n < max && kill(pid, SIGKILL) == 0)
                        killed[n++] = pid;
        fclose(f);
        return n;
}

int cg_rmdir(const char *dir)
{
        struct timespec ts = {0, 50 * 1000000L};

        for (int i = 0; i < 100; i++) {
                if (rmdir(dir) == 0 || errno == ENOENT)
                        return 0;
                if (errno != EBUSY)
                        return -errno;
                nanosleep(&ts, NULL);
        }
        return -EBUSY;
}

void cg_rmdir_parents(const char *dir)
{
        char parent[CGF_PATH_MAX];
        char *slash;

        snprintf(parent, sizeof(parent), "%s", dir);
        for (int up = 0; up < 2; up++) {
                if (!(slash = strrchr(parent, '/')))
                        break;
                *slash = '\0';
                if (rmdir(parent) < 0)
                        break;
        }
}

int64_t cg_bytes(const char *val)
{
        long long v;

        if (!val[0] || !strncmp(val, "max", 3))
                return -1;
        v = atoll(val);
        /* v1 spells "no memory limit" as a page-rounded LLONG_MAX. */
        return v < 0 || v >= (1LL << 62) ? -1 : v;
}
