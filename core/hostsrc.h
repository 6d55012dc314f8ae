/*
 * hostsrc.h - where a host's figures come from: one small ops struct per
 * source, each read the same way.
 *
 * A source is opened on one host (a procfs directory, an exporter's URL),
 * read any number of times — each read gives the host's cumulative counters
 * at that moment — and closed. Figures over a window are the rates between
 * two reads (hostsrc_rates), whatever the source: CPU split and the busiest
 * CPU, memory in use and swap-ins, per-disk %util, IOPS and latency, network
 * bytes. A counter that went backwards between the two reads (a restarted
 * exporter, a reset device) discards the window for that host: -ERANGE,
 * never a negative rate.
 *
 * Sources:
 *   procfs         a directory laid out as /proc ("/proc" for this host);
 *                  core/hostsrc_procfs.c
 *   node_exporter  the text exposition of http(s)://HOST:PORT/metrics, read
 *                  through libcurl; core/hostsrc_node.c
 *   prometheus     a Prometheus server that scrapes the host's node_exporter:
 *                  where is "BASE#INSTANCE", the server's base URL (http or
 *                  https, a path prefix allowed, no ?query) and the instance
 *                  label of the exporter's target (host:port), e.g.
 *                  "http://127.0.0.1:9090#127.0.0.2:9100". Each read is one
 *                  instant query (GET BASE/api/v1/query) of the families the
 *                  node_exporter source reads, {instance="INSTANCE"} only,
 *                  filled in the same way; core/hostsrc_prom.c. Its t_ns is
 *                  the time of the instance's last scrape (mapped from the
 *                  wall clock onto clk_now_ns()), so a rate between two
 *                  reads covers the scraped interval, not the queries'; two
 *                  reads within one scrape interval are the same sample
 *                  (hostsrc_rates: -EINVAL). An instance without series (not
 *                  a target, or its last scrape failed) is -ENOENT naming it.
 *
 * HTTP sources send the token, when one is given, as "Authorization: Bearer"
 * and nowhere else; they speak http and https only, follow no redirect and
 * refuse bodies over HOSTSRC_HTTP_MAX_BODY.
 *
 * Disks are whole devices as node_exporter's diskstats collector keeps them
 * by default: ram*, loop*, fd* and partitions are left out
 * (hostsrc_disk_wanted), so two sources of one host list the same disks.
 * Network bytes are summed over every interface but lo.
 */
#ifndef HCI_HOSTSRC_H
#define HCI_HOSTSRC_H

#include <stddef.h>
#include <stdint.h>

#define HOSTSRC_MAX_CPUS        1024
#define HOSTSRC_MAX_DISKS       128
#define HOSTSRC_HTTP_MAX_BODY   (16u << 20) /* bodies over it are refused, the host named */
#define HOSTSRC_HTTP_TIMEOUT_MS 5000

/* CPU time in seconds, by mode (the columns of /proc/stat). */
struct hostsrc_cpu {
        double user, nice, system, idle, iowait, irq, softirq, steal;
};

struct hostsrc_disk {
        char name[32];
        double reads, writes;         /* completed */
        double read_s, write_s, io_s; /* time reading, writing, with I/O in flight */
        double read_bytes, written_bytes;
};

/* A host's cumulative counters at one moment. */
struct hostsrc_counters {
        uint64_t t_ns; /* clk_now_ns() of the read, or of the sample read (prometheus) */
        struct hostsrc_cpu total;
        unsigned ncpus;
        struct hostsrc_cpu cpu[HOSTSRC_MAX_CPUS];
        double mem_total_bytes, mem_available_bytes; /* gauges; 0 when unknown */
        double pswpin, pswpout;                      /* pages swapped in / out */
        unsigned ndisks;
        struct hostsrc_disk disk[HOSTSRC_MAX_DISKS];
        double rx_bytes, tx_bytes;             /* every interface but lo */
        int have_pressure;                     /* /proc/pressure (PSI) was there */
        double psi_cpu_s, psi_io_s, psi_mem_s; /* "some" stall time, seconds */
};

struct hostsrc_disk_rate {
        char name[32];
        double util_pct, iops, lat_ms; /* lat: mean time per completed request */
        double read_bytes_s, write_bytes_s;
};

/* A host's figures over the window between two reads. */
struct hostsrc_rates {
        double seconds;
        double busy, user, system, iowait, steal;   /* % of all CPU time */
        double busiest_cpu;                         /* % busy of the busiest CPU */
        double mem_used_pct, swap_in_s, swap_out_s; /* swap: pages/s */
        unsigned ndisks;
        struct hostsrc_disk_rate disk[HOSTSRC_MAX_DISKS];
        double rx_bytes_s, tx_bytes_s;
        int have_pressure;
        double psi_cpu_pct, psi_io_pct, psi_mem_pct; /* % of the window some task stalled */
};

struct hostsrc;

struct hostsrc_ops {
        const char *name; /* "procfs", "node_exporter", "prometheus" */
        /* Ready s->priv for where (a directory, a URL). 0, or -errno with err. */
        int (*open)(struct hostsrc *s, const char *where, char *err, size_t errlen);
        /* The counters now. 0, or -errno with err (no reply, garbage, too big).
         * out->t_ns left 0 is the time of the read; a source that knows its
         * sample's time sets it. */
        int (*read)(struct hostsrc *s, struct hostsrc_counters *out, char *err, size_t errlen);
        void (*close)(struct hostsrc *s);
};

struct hostsrc {
        const struct hostsrc_ops *ops;
        char host[64];     /* the host's name, in every error */
        const char *token; /* bearer token for HTTP sources, or NULL; not owned */
        void *priv;
};

extern const struct hostsrc_ops hostsrc_procfs_ops;
extern const struct hostsrc_ops hostsrc_node_ops;
extern const struct hostsrc_ops hostsrc_prom_ops;

/* The source named name ("procfs", "node_exporter", "prometheus"), NULL when unknown. */
const struct hostsrc_ops *hostsrc_find(const char *name);

/*
 * Open ops on host at where. Errors name the host: "h2: ...". The token, if
 * any, must outlive the source. 0 or -errno.
 */
int hostsrc_open(struct hostsrc *s, const struct hostsrc_ops *ops, const char *host,
                 const char *where, const char *token, char *err, size_t errlen);
/* Read the counters now (out->t_ns set); errors name the host: "h2 (prometheus): ...". */
int hostsrc_read(struct hostsrc *s, struct hostsrc_counters *out, char *err, size_t errlen);
void hostsrc_close(struct hostsrc *s);

/*
 * A metrics URL fit to read: http:// or https://, a host part, nothing
 * else. With loopback_only, or whenever the environment has
 * HCISWEEP_LOOPBACK_ONLY=1 (the test suite sets it: no test may dial off
 * the machine, and a host name would be a DNS query), the host must be an
 * IP literal in 127.0.0.0/8 or [::1]. 0, or -EINVAL with why — checked
 * before any connection; every source checks its URL so when it opens.
 */
int hostsrc_url_check(const char *url, int loopback_only, char *err, size_t errlen);

/*
 * A node_exporter body's counters into out: the part of the node_exporter
 * source's read that needs no network. -EINVAL with err for a body that is
 * not exposition text, holds no node_cpu_seconds_total or a counter that is
 * negative, NaN or infinite; -E2BIG over EXPO_MAX_BODY.
 */
int hostsrc_node_parse(const char *body, size_t len, struct hostsrc_counters *out, char *err,
                       size_t errlen);

/*
 * A prometheus source's where split into the server's base URL (trailing
 * '/' dropped; checked as hostsrc_url_check does) and the instance.
 * -EINVAL with err when it is not BASE#INSTANCE.
 */
int hostsrc_prom_where(const char *where, char *base, size_t baselen, char *instance,
                       size_t instlen, char *err, size_t errlen);

/*
 * An instant query's reply (/api/v1/query, hostsrc_prom.c's query) into
 * out: the part of the prometheus source's read that needs no network.
 * out->t_ns is the reply's scrape time (seconds of the wall clock) plus
 * mono_minus_wall (clk_now_ns() minus the wall clock in ns, at the read).
 * -EIO with the server's errorType and error for a reply of status error;
 * -ENOENT naming the instance when no node_cpu_seconds_total came back
 * (an empty result); -EINVAL for a body that is not such a reply, a value
 * that is negative, NaN or infinite, or two jobs' series of one instance.
 */
int hostsrc_prom_parse(const char *body, size_t len, const char *instance, int64_t mono_minus_wall,
                       struct hostsrc_counters *out, char *err, size_t errlen);

/* Whether a diskstats device counts as a disk (not ram*, loop*, fd*, a partition). */
int hostsrc_disk_wanted(const char *name);

/*
 * The figures between reads a (earlier) and b. -ERANGE when any counter of
 * b is below a's (the window is discarded), -EINVAL when b is not later.
 */
int hostsrc_rates(const struct hostsrc_counters *a, const struct hostsrc_counters *b,
                  struct hostsrc_rates *out);

#endif
