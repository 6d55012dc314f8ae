/*
 * procfs.c - /proc/PID/stat, stat's cpu lines, diskstats, net/dev, meminfo
 * and vmstat, parsed in one place so the monitor, the host sources, the lab
 * and scale's probes read the same fields the same way.
 */
#include "core/procfs.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
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

/* "cpu" or "cpuN" then at least user nice system idle; absent later columns are 0. */
static int parse_cpu(const char *line, struct procfs_cpu *c)
{
        const char *p = line + 3;
        unsigned long long v[8] = {0};
        char *end;
        long id = -1;

        memset(c, 0, sizeof(*c));
        if (strncmp(line, "cpu", 3))
                return -EINVAL;
        if (!isspace((unsigned char)*p)) {
                id = strtol(p, &end, 10);
                if (end == p || id < 0 || id > 1 << 20 || !isspace((unsigned char)*end))
                        return -EINVAL;
                p = end;
        }
        if (sscanf(p, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                   &v[5], &v[6], &v[7]) < 4)
                return -EINVAL;
        *c = (struct procfs_cpu){(int)id, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
        return 0;
}

int procfs_stat_at(const char *path, int (*fn)(void *user, const struct procfs_cpu *c), void *user)
{
        FILE *f = fopen(path, "re");
        struct procfs_cpu c;
        char line[1024];
        int rc = 0, total = 0;

        if (!f)
                return -errno;
        /* the cpu lines come first: stop before the long "intr" line */
        while (!rc && fgets(line, sizeof(line), f) && !strncmp(line, "cpu", 3)) {
                if (parse_cpu(line, &c) < 0)
                        continue;
                total |= c.id < 0;
                rc = fn(user, &c);
        }
        fclose(f);
        return rc ? rc : total ? 0 : -EINVAL;
}

/* "  name: rx_bytes rx_packets 6 more, tx_bytes tx_packets ..." */
static int parse_net(char *line, struct procfs_net *n)
{
        /* names may hold ':' (aliases), the counters never do */
        char *colon = strrchr(line, ':'), *name = line;
        unsigned long long rb, rp, tb, tp;
        size_t len;

        memset(n, 0, sizeof(*n));
        if (!colon)
                return -EINVAL;
        *colon = '\0';
        while (isspace((unsigned char)*name))
                name++;
        len = strlen(name);
        if (!len || len >= sizeof(n->name) ||
            sscanf(colon + 1, "%llu %llu %*u %*u %*u %*u %*u %*u %llu %llu", &rb, &rp, &tb, &tp) !=
                4)
                return -EINVAL;
        memcpy(n->name, name, len + 1);
        n->rx_bytes = rb;
        n->rx_packets = rp;
        n->tx_bytes = tb;
        n->tx_packets = tp;
        return 0;
}

int procfs_netdev_at(const char *path, int (*fn)(void *user, const struct procfs_net *n),
                     void *user)
{
        FILE *f = fopen(path, "re");
        struct procfs_net n;
        char line[512];
        int rc = 0;

        if (!f)
                return -errno;
        /* the two heading lines hold '|', never ':' */
        while (!rc && fgets(line, sizeof(line), f))
                if (parse_net(line, &n) == 0)
                        rc = fn(user, &n);
        fclose(f);
        return rc;
}

int procfs_keyed_at(const char *path, int (*fn)(void *user, const char *key, uint64_t v),
                    void *user)
{
        FILE *f = fopen(path, "re");
        unsigned long long v;
        char line[256], key[64];
        int rc = 0;

        if (!f)
                return -errno;
        while (!rc && fgets(line, sizeof(line), f))
                if (sscanf(line, "%63[^: \t]%*[: \t]%llu", key, &v) == 2)
                        rc = fn(user, key, v);
        fclose(f);
        return rc;
}
