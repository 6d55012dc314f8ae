/*
 * procfs.c - /proc/PID/stat and /proc/diskstats, parsed in one place so
 * the monitor, the lab and scale's probes read the same fields the same way.
 */
#include "core/procfs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int procfs_pid_stat(int pid, struct procfs_stat *st)
{
        char path[64], buf[1024], *open_paren, *close_paren;
        unsigned long long maj, ut, stime;
        size_t len;
        FILE *f;

        memset(st, 0, sizeof(*st));
        if (pid <= 0)
                return -ENOENT;
        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        f = fopen(path, "re");
        if (!f)
                return -errno;
        len = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[len] = '\0';
        /* comm may hold spaces and ')': the fields start after the last ')' */
        open_paren = strchr(buf, '(');
        close_paren = strrchr(buf, ')');
        if (!open_paren || !close_paren || close_paren < open_paren || !close_paren[1] ||
            sscanf(close_paren + 2, "%c %d %*d %*d %*d %*d %*u %*u %*u %llu %*u %llu %llu",
                   &st->state, &st->ppid, &maj, &ut, &stime) != 5)
                return -EINVAL;
        len = (size_t)(close_paren - open_paren - 1);
        if (len >= sizeof(st->comm))
                len = sizeof(st->comm) - 1;
        memcpy(st->comm, open_paren + 1, len);
        st->majflt = maj;
        st->utime = ut;
        st->stime = stime;
        return 0;
}

uint64_t procfs_tick_ns(void)
{
        long hz = sysconf(_SC_CLK_TCK);

        return 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
}

/* Fields after the name: reads, merged, sectors, ms; writes, merged,
 * sectors, ms; in flight, io ms, weighted ms; then discards and flushes,
 * which nobody here reads. The weighted time is taken when present. */
static int parse_disk(const char *line, struct procfs_disk *d)
{
        unsigned long long v[8];
        int n;

        memset(d, 0, sizeof(*d));
        n = sscanf(line, "%*u %*u %63s %llu %*u %llu %llu %llu %*u %llu %llu %*u %llu %llu",
                   d->name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
        if (n < 8)
                return -EINVAL;
        d->rd_ios = v[0];
        d->rd_sectors = v[1];
        d->rd_ms = v[2];
        d->wr_ios = v[3];
        d->wr_sectors = v[4];
        d->wr_ms = v[5];
        d->io_ms = v[6];
        d->in_queue_ms = n > 8 ? v[7] : 0;
        return 0;
}

int procfs_diskstats(int (*fn)(void *user, const struct procfs_disk *d), void *user)
{
        return procfs_diskstats_at("/proc/diskstats", fn, user);
}

int procfs_diskstats_at(const char *path, int (*fn)(void *user, const struct procfs_disk *d),
                        void *user)
{
        FILE *f = fopen(path, "re");
        struct procfs_disk d;
        char line[512];
        int rc = 0;

        if (!f)
                return -errno;
        while (!rc && fgets(line, sizeof(line), f))
                if (parse_disk(line, &d) == 0)
                        rc = fn(user, &d);
        fclose(f);
        return rc;
}
