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
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/bdev.h"
#include "core/procfs.h"

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
        const char *p = url + 8, *at = strchr(p, '@'), *slash = strchr(p, '/'), *colon, *last;

        if (at && slash && at < slash)
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

/*
 * The programs that open an iSCSI LUN as an initiator and name it on their
 * command line: another hcisweep, fio's libiscsi engine, qemu and
 * qemu-storage-daemon (the lab's exports), libiscsi's tools (iscsi-dd,
 * iscsi-perf...). Matched on the process name the kernel keeps (cut at 15
 * characters: "qemu-storage-da"), so a shell, `timeout`, an editor or a
 * grep whose arguments happen to hold the URL is never taken for one.
 */
static const struct {
        const char *name;
        int prefix;
} initiators[] = {{"hcisweep", 0}, {"fio", 0}, {"qemu", 1}, {"iscsi-", 1}};

static int is_initiator(const char *comm)
{
        for (size_t i = 0; i < sizeof(initiators) / sizeof(initiators[0]); i++) {
                size_t n = strlen(initiators[i].name);

                if (initiators[i].prefix ? !strncmp(comm, initiators[i].name, n)
                                         : !strcmp(comm, initiators[i].name))
                        return 1;
        }
        return 0;
}

#define MAX_ANCESTORS 64

/* This process and its ancestors (timeout, sudo, a shell, `hcisweep run`): they name the
 * URL because they started this run, not because they use the LUN. */
static unsigned own_line(int *pids, unsigned max)
{
        struct procfs_stat st;
        unsigned n = 0;

        for (int pid = (int)getpid(); pid > 0 && n < max; pid = st.ppid) {
                pids[n++] = pid;
                if (procfs_pid_stat(pid, &st) < 0)
                        break;
        }
        return n;
}

/* Whether the command line cmd (blanks around every word and list item) names the LUN
 * host:port/iqn/lun in an iscsi:// URL of any form: with or without credentials or a
 * query, after "--target=" or "file=", with fio's "\\:" escapes. */
static int names_lun(const char *cmd, const char *host, unsigned port, const char *iqn,
                     unsigned lun)
{
        char word[2048], h[256], q[256];
        unsigned pt, l;

        for (const char *p = cmd; (p = strstr(p, "iscsi://")); p += 8) {
                size_t n = 0;

                for (const char *c = p; *c && *c != ' ' && n < sizeof(word) - 1; c++)
                        if (*c != '\\')
                                word[n++] = *c;
                word[n] = '\0';
                if (!url_parts(word, h, sizeof(h), &pt, q, sizeof(q), &l) && !strcasecmp(h, host) &&
                    pt == port && !strcmp(q, iqn) && l == lun)
                        return 1;
        }
        return 0;
}

static int is_own(const int *own, unsigned n, int pid)
{
        for (unsigned i = 0; i < n; i++)
                if (own[i] == pid)
                        return 1;
        return 0;
}

static int url_in_use(const char *url, char *what, size_t whatlen)
{
        char host[256], iqn[256], want[3][600], cmd[8192];
        int own[MAX_ANCESTORS], found = 0, pid;
        unsigned port, lun, nown;
        struct procfs_stat st;
        struct dirent *e;
        DIR *d;

        if (url_parts(url, host, sizeof(host), &port, iqn, sizeof(iqn), &lun) < 0 ||
            !(d = opendir("/proc")))
                return 0;
        nown = own_line(own, MAX_ANCESTORS);
        snprintf(want[0], sizeof(want[0]), " portal=%s:%u ", host, port);
        snprintf(want[1], sizeof(want[1]), " target=%s ", iqn);
        snprintf(want[2], sizeof(want[2]), " lun=%u ", lun);
        while (!found && (e = readdir(d))) {
                if (e->d_name[0] < '0' || e->d_name[0] > '9')
                        continue;
                pid = atoi(e->d_name);
                if (is_own(own, nown, pid) || procfs_pid_stat(pid, &st) < 0 ||
                    !is_initiator(st.comm) || !read_cmdline(e->d_name, cmd, sizeof(cmd)))
                        continue;
                found = strstr(cmd, " driver=iscsi ") && strstr(cmd, want[0]) &&
                        strstr(cmd, want[1]) && strstr(cmd, want[2]);
                found = found || names_lun(cmd, host, port, iqn, lun);
                if (found)
                        snprintf(what, whatlen, "used by the initiator %s, process %d", st.comm,
                                 pid);
        }
        closedir(d);
        return found;
}

int blk_target_in_use(const char *target, int is_url, char *what, size_t whatlen)
{
        return is_url ? url_in_use(target, what, whatlen) : file_in_use(target, what, whatlen);
}
