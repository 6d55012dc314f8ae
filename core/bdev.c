/*
 * bdev.c - mountinfo and loop-device lookups (see bdev.h).
 */
#include "core/bdev.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

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

int bdev_loop_of(const char *file)
{
        char p[300], back[4096];
        struct dirent *e;
        DIR *d = opendir("/sys/block");
        int n = -1, num;

        if (!d)
                return -1;
        while (n < 0 && (e = readdir(d))) {
                FILE *f;

                if (sscanf(e->d_name, "loop%d", &num) != 1)
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
