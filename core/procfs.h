/*
 * procfs.h - the /proc files hcisweep reads, each parsed here once.
 *
 * /proc/PID/stat says what state a process is in, its name, its major page
 * faults and the CPU time it used (the host monitor's watched PIDs, the lab's
 * liveness checks, scale's probes). stat's cpu lines, diskstats, net/dev,
 * meminfo and vmstat are a host's counters: the procfs host source
 * (core/hostsrc_procfs.c) and the host monitor read them through the
 * functions below, the way proc(5) and the kernel's
 * Documentation/admin-guide/iostats.rst lay them out. The *_at forms read a
 * file of a directory laid out as /proc (a recorded or made-up host).
 *
 * Plain reads with no state kept: any thread may call them. Errors are
 * -errno when the file cannot be opened (-ENOENT: no such process) and
 * -EINVAL when it does not parse.
 */
#ifndef HCI_PROCFS_H
#define HCI_PROCFS_H

#include <stdint.h>

/* What /proc/PID/stat says of one process. */
struct procfs_stat {
        char state;      /* R, S, D, Z, X, ... */
        int ppid;        /* the parent's PID (0 for init and kernel threads' root) */
        char comm[64];   /* the name in parentheses (the kernel cuts it at 15) */
        uint64_t majflt; /* major page faults so far */
        uint64_t utime;  /* user CPU time, in clock ticks */
        uint64_t stime;  /* system CPU time, in clock ticks */
};

/* Read /proc/PID/stat into st. 0, -ENOENT for pid <= 0 or a process that
 * is gone, -EINVAL when the line does not parse. */
int procfs_pid_stat(int pid, struct procfs_stat *st);

/* Nanoseconds per clock tick (sysconf(_SC_CLK_TCK), 100 Hz when unknown),
 * to turn utime and stime into time. */
uint64_t procfs_tick_ns(void);

/* One line of /proc/diskstats: sectors are 512 bytes, times are ms. */
struct procfs_disk {
        char name[64];        /* "sda", "loop3", "nvme0n1p1" */
        uint64_t rd_ios;      /* reads completed */
        uint64_t rd_sectors;  /* sectors read */
        uint64_t rd_ms;       /* time spent reading */
        uint64_t wr_ios;      /* writes completed */
        uint64_t wr_sectors;  /* sectors written */
        uint64_t wr_ms;       /* time spent writing */
        uint64_t io_ms;       /* time with at least one I/O in flight (%util) */
        uint64_t in_queue_ms; /* weighted time in flight (aqu-sz); 0 when absent */
};

/*
 * Call fn for every device of /proc/diskstats, in file order; lines that do
 * not parse are skipped. A nonzero return of fn stops the read and is
 * returned; 0 when every line was read, -errno when the file cannot be opened.
 */
int procfs_diskstats(int (*fn)(void *user, const struct procfs_disk *d), void *user);

/* The same of a file laid out as /proc/diskstats (a procfs-shaped directory's). */
int procfs_diskstats_at(const char *path, int (*fn)(void *user, const struct procfs_disk *d),
                        void *user);

/* One cpu line of /proc/stat: times in clock ticks (procfs_tick_ns). */
struct procfs_cpu {
        int id; /* N of "cpuN"; -1 for the "cpu" line, every CPU together */
        uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/*
 * Call fn for every cpu line of the stat file at path, in file order (the
 * total first, then each online CPU by its id: an offline CPU has no line,
 * so ids may skip). Lines that do not parse are skipped. A nonzero return
 * of fn stops the read and is returned; -EINVAL when no total line was
 * there; -errno when the file cannot be opened.
 */
int procfs_stat_at(const char *path, int (*fn)(void *user, const struct procfs_cpu *c), void *user);

/* One interface of /proc/net/dev. */
struct procfs_net {
        char name[64];
        uint64_t rx_bytes, rx_packets, tx_bytes, tx_packets;
};

/* Every interface of the net/dev file at path, as procfs_stat_at (no total needed). */
int procfs_netdev_at(const char *path, int (*fn)(void *user, const struct procfs_net *n),
                     void *user);

/*
 * Every "Key: number" line (meminfo: values as written, kB) or "key number"
 * line (vmstat) of the file at path, as procfs_stat_at. Keys longer than
 * 63 characters are skipped.
 */
int procfs_keyed_at(const char *path, int (*fn)(void *user, const char *key, uint64_t v),
                    void *user);

#endif
