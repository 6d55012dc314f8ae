/*
 * bdev.c - mountinfo and loop-device lookups (see bdev.h).
 */
#include "core/bdev.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* mountinfo escapes blanks and backslashes as \ooo. */
static void unescape(char *s)
{
        char *out = s;

        for (; *s; s++) {
                if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] && s[3]) {
                        *out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
                        s += 3;
                } else {
                        *out++ = *s;
                }
        }
        *out = '\0';
}

int bdev_mounted(const char *path, char *fstype, size_t len)
{
        char line[8192], mnt[4096], type[64];
        FILE *f = fopen("/proc/self/mountinfo", "re");
        int found = 0;

        if (!f)
                return 0;
        while (!found && fgets(line, sizeof(line), f)) {
                const char *dash = strstr(line, " - ");

                if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 || !dash ||
                    sscanf(dash, " - %63s", type) != 1)
                        continue;
                unescape(mnt);
                found = !strcmp(mnt, path);
        }
        fclose(f);
        if (found && fstype)
                snprintf(fstype, len, "%s", type);
        return found;
}

int bdev_loop_next(const char *file, int after)
{
        char p[300], back[4096];
        struct dirent *e;
        DIR *d = opendir("/sys/block");
        int n = -1, num;

        if (!d)
                return -1;
        while ((e = readdir(d))) {
                FILE *f;

                if (sscanf(e->d_name, "loop%d", &num) != 1 || num <= after || (n >= 0 && num > n))
                        continue;
                snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", e->d_name);
                if (!(f = fopen(p, "re")))
                        continue;
                if (fgets(back, sizeof(back), f)) {
                        back[strcspn(back, "\n")] = '\0';
                        if (!strcmp(back, file))
                                n = num;
                }
                fclose(f);
        }
        closedir(d);
        return n;
}

int bdev_loop_of(const char *file)
{
        return bdev_loop_next(file, -1);
}

/* 1 if the mountinfo at path has a mount of device devno ("MAJ:MIN", its third field). */
static int mountinfo_has_dev(const char *path, const char *devno)
{
        char line[8192], dev[32];
        FILE *f = fopen(path, "re");
        int found = 0;

        if (!f)
                return 0;
        while (!found && fgets(line, sizeof(line), f))
                found = sscanf(line, "%*s %*s %31s", dev) == 1 && !strcmp(dev, devno);
        fclose(f);
        return found;
}

int bdev_loop_mounted_elsewhere(int n)
{
        char p[300], devno[32] = "", mine[64], ns[64];
        struct dirent *e;
        FILE *f;
        DIR *d;
        int pid = 0;
        ssize_t len;

        snprintf(p, sizeof(p), "/sys/block/loop%d/dev", n);
        if (!(f = fopen(p, "re")))
                return 0;
        if (!fgets(devno, sizeof(devno), f))
                devno[0] = '\0';
        fclose(f);
        devno[strcspn(devno, "\n")] = '\0';
        len = readlink("/proc/self/ns/mnt", mine, sizeof(mine) - 1);
        if (!devno[0] || len <= 0 || !(d = opendir("/proc")))
                return 0;
        mine[len] = '\0';
        while (!pid && (e = readdir(d))) {
                int num;
                char end;

                if (sscanf(e->d_name, "%d%c", &num, &end) != 1 || num <= 0)
                        continue;
                snprintf(p, sizeof(p), "/proc/%d/ns/mnt", num);
                len = readlink(p, ns, sizeof(ns) - 1);
                if (len <= 0 || (ns[len] = '\0', !strcmp(ns, mine)))
                        continue;
                snprintf(p, sizeof(p), "/proc/%d/mountinfo", num);
                if (mountinfo_has_dev(p, devno))
                        pid = num;
        }
        closedir(d);
        return pid;
}
