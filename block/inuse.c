/*
 * inuse.c - who else uses a target (see inuse.h). Only what this host can
 * see is found: an initiator on another host is not.
 */
#include "block/inuse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/bdev.h"

static int dev_held(const char *path)
{
        int fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);

        if (fd >= 0) {
                close(fd);
                return 0;
        }
        return errno == EBUSY;
}

/* A tgtd process with real open: a LUN's backing file. Its PID, or 0. */
static long served_by_tgtd(const char *real)
{
        char path[600], link[4096], comm[32];
        struct dirent *e, *fe;
        DIR *d = opendir("/proc"), *fd;
        long found = 0;

        while (d && !found && (e = readdir(d))) {
                FILE *f;

                if (e->d_name[0] < '0' || e->d_name[0] > '9')
                        continue;
                snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
                if (!(f = fopen(path, "re")))
                        continue;
                comm[0] = '\0';
                if (!fgets(comm, sizeof(comm), f))
                        comm[0] = '\0';
                fclose(f);
                if (strcmp(comm, "tgtd\n"))
                        continue;
                snprintf(path, sizeof(path), "/proc/%s/fd", e->d_name);
                for (fd = opendir(path); fd && !found && (fe = readdir(fd));) {
                        ssize_t n;

                        snprintf(path, sizeof(path), "/proc/%s/fd/%s", e->d_name, fe->d_name);
                        n = readlink(path, link, sizeof(link) - 1);
                        if (n > 0 && (link[n] = '\0', !strcmp(link, real)))
                                found = atol(e->d_name);
                }
                if (fd)
                        closedir(fd);
        }
        if (d)
                closedir(d);
        return found;
}

static int file_in_use(const char *target, char *what, size_t whatlen)
{
        char real[4096];
        struct stat sb;
        long tgtd;
        int loop;

        if (stat(target, &sb) < 0)
                return 0;
        if (S_ISBLK(sb.st_mode)) {
                if (!dev_held(target))
                        return 0;
                snprintf(what, whatlen, "mounted or held by another device");
                return 1;
        }
        if (!realpath(target, real))
                return 0;
        if ((loop = bdev_loop_of(real)) >= 0) {
                snprintf(what, whatlen, "the backing file of loop%d", loop);
                return 1;
        }
        if (bdev_mounted(real, NULL, 0)) {
                snprintf(what, whatlen, "a mount point (an export)");
                return 1;
        }
        if ((tgtd = served_by_tgtd(real)) > 0) {
                snprintf(what, whatlen, "a LUN's backing file, open in tgtd (pid %ld)", tgtd);
                return 1;
        }
        return 0;
}

/* iscsi://[cred@]host[:port]/IQN/LUN into its parts; port 3260 by default. */
static int url_parts(const char *url, char *host, size_t hlen, unsigned *port, char *iqn,
                     size_t ilen, unsigned *lun)
{
        const char *p = url + 8, *at = strchr(p, '@'), *slash, *colon, *last;

        if (at && at < strchr(p, '/'))
                p = at + 1;
        slash = strchr(p, '/');
        last = slash ? strrchr(slash + 1, '/') : NULL;
        if (!slash || !last || sscanf(last + 1, "%u", lun) != 1)
                return -EINVAL;
        colon = memchr(p, ':', (size_t)(slash - p));
        *port = colon ? (unsigned)atoi(colon + 1) : 3260;
        snprintf(host, hlen, "%.*s", (int)((colon ? colon : slash) - p), p);
        snprintf(iqn, ilen, "%.*s", (int)(last - slash - 1), slash + 1);
        return 0;
}

/* The whole command line of pid with NULs turned into blanks and a blank at both ends. */
static size_t read_cmdline(const char *pid, char *buf, size_t len)
{
        char path[300];
        size_t n;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
        if (!(f = fopen(path, "re")))
                return 0;
        buf[0] = ' ';
        n = fread(buf + 1, 1, len - 3, f);
        fclose(f);
        for (size_t i = 1; i <= n; i++)
                if (buf[i] == '\0' || buf[i] == ',')
                        buf[i] = ' ';
        buf[n + 1] = ' ';
        buf[n + 2] = '\0';
        return n;
}

static int url_in_use(const char *url, char *what, size_t whatlen)
{
        char host[256], iqn[256], want[3][600], cmd[8192];
        unsigned port, lun;
        struct dirent *e;
        DIR *d;
        int found = 0;

        if (url_parts(url, host, sizeof(host), &port, iqn, sizeof(iqn), &lun) < 0 ||
            !(d = opendir("/proc")))
                return 0;
        snprintf(want[0], sizeof(want[0]), " portal=%s:%u ", host, port);
        snprintf(want[1], sizeof(want[1]), " target=%s ", iqn);
        snprintf(want[2], sizeof(want[2]), " lun=%u ", lun);
        while (!found && (e = readdir(d))) {
                if (e->d_name[0] < '0' || e->d_name[0] > '9' ||
                    (pid_t)atoi(e->d_name) == getpid() ||
                    !read_cmdline(e->d_name, cmd, sizeof(cmd)))
                        continue;
                found = strstr(cmd, " driver=iscsi ") && strstr(cmd, want[0]) &&
                        strstr(cmd, want[1]) && strstr(cmd, want[2]);
                found = found || strstr(cmd, url); /* qemu -drive file=iscsi://... */
                if (found)
                        snprintf(what, whatlen, "used by the initiator of process %s", e->d_name);
        }
        closedir(d);
        return found;
}

int blk_target_in_use(const char *target, int is_url, char *what, size_t whatlen)
{
        return is_url ? url_in_use(target, what, whatlen) : file_in_use(target, what, whatlen);
}
