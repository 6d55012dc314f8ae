/*
 * hostsrc.h - where a host's figures come from: one small ops struct per
 * source, each read the same way.
 *
 * A source is opened on one host (a procfs directory, an exporter's URL),
 * read any number of times — each read gives the host's cumulative counters
 * at that moment — and closed. Figures over a window are the rates between
 * two reads (hostsrc_rates), whatever the source: CPU split and the busiest
 * CPU, memory in use and swap-ins, per-disk %util, IOPS and latency, network
 * bytes. This is the one place counters become rates: the host monitor,
 * scale's hosts and its probe all call hostsrc_rates / hostsrc_disk_rate.
 *
 * Capabilities: each source says which figure families it gives
 * (hostsrc_ops.caps, HOSTSRC_CPU ...); a read may give fewer (a procfs
 * directory without net/dev), and a window's figures are those both reads
 * gave (hostsrc_rates.have). A figure a source does not give is unknown —
 * written as null — never a measured 0.
 *
 * A counter that went backwards (a restarted exporter, a reset device, an
 * interface re-created under the same name) voids its family for that
 * window only: the CPU, memory and swap, network or pressure figure, or the
 * one disk. The other families stand. CPUs are matched by CPU id, disks and
 * interfaces by name; one present at only one end has no rate and is left
 * out (a VM's tap device that went away costs nothing).
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
 *   libvirt        a hypervisor read through the connection a libvirt lab
 *                  holds, lent to open (hostsrc_open's lent); CPU and memory
 *                  only. It lives above core (lab/hostsrc_libvirt.h), so the
 *                  backend adds it with hostsrc_register when it opens.
 *
 * HTTP sources send the token, when one is given, as "Authorization: Bearer"
 * and nowhere else; they speak http and https only, follow no redirect and
 * refuse bodies over HOSTSRC_HTTP_MAX_BODY.
 *
 * Disks are whole devices as node_exporter's diskstats collector keeps them
 * by default: ram*, loop*, fd* and partitions are left out
 * (hostsrc_disk_wanted), so two sources of one host list the same disks.
 * Network bytes are those of the host's own links: lo and the virtual
 * devices whose traffic a link also carries (bridges, taps, veths: a VM's
 * bytes would count two or three times) are read but not summed
 * (hostsrc_net_wanted, hostsrc_net.link).
 */
#ifndef HCI_HOSTSRC_H
#define HCI_HOSTSRC_H

#include <stddef.h>
#include <stdint.h>

#define HOSTSRC_MAX_CPUS        1024
#define HOSTSRC_MAX_DISKS       128
#define HOSTSRC_MAX_NETS        64
#define HOSTSRC_HTTP_MAX_BODY   (16u << 20) /* bodies over it are refused, the host named */
#define HOSTSRC_HTTP_TIMEOUT_MS 5000

/* Figure families (hostsrc_ops.caps, hostsrc_counters.have, hostsrc_rates.have). */
#define HOSTSRC_CPU   0x01u /* busy, user, system, iowait, steal, busiest CPU */
#define HOSTSRC_MEM   0x02u /* memory in use */
#define HOSTSRC_SWAP  0x04u /* swap-ins and -outs */
#define HOSTSRC_DISKS 0x08u /* per-disk util, IOPS, latency, bytes */
#define HOSTSRC_NET   0x10u /* network bytes */
#define HOSTSRC_PSI   0x20u /* pressure stall time */
#define HOSTSRC_ALL   0x3fu

/* CPU time in seconds, by mode (the columns of /proc/stat); all 0: no such CPU. */
struct hostsrc_cpu {
        double user, nice, system, idle, iowait, irq, softirq, steal;
};

struct hostsrc_disk {
        char name[32];
        double reads, writes;         /* completed */
        double read_s, write_s, io_s; /* time reading, writing, with I/O in flight */
        double read_bytes, written_bytes;
        double queue_s; /* weighted time in flight (iostat's aqu-sz); 0 when not given */
};

struct hostsrc_net {
        char name[32];
        double rx_bytes, tx_bytes, rx_packets, tx_packets;
        int link; /* one of the host's own links (hostsrc_net_wanted): its bytes count */
};

/* A host's cumulative counters at one moment. */
struct hostsrc_counters {
        uint64_t t_ns; /* clk_now_ns() of the read, or of the sample read (prometheus) */
        unsigned have; /* HOSTSRC_* families this read gave */
        struct hostsrc_cpu total;
        unsigned ncpus;                              /* highest CPU id + 1 */
        struct hostsrc_cpu cpu[HOSTSRC_MAX_CPUS];    /* by CPU id; an offline CPU's all 0 */
        double mem_total_bytes, mem_available_bytes; /* gauges; 0 when unknown */
        double pswpin, pswpout;                      /* pages swapped in / out */
        unsigned ndisks;
        struct hostsrc_disk disk[HOSTSRC_MAX_DISKS];
        unsigned nnets;
        struct hostsrc_net net[HOSTSRC_MAX_NETS]; /* every interface; .link says which count */
        int have_pressure;                        /* /proc/pressure (PSI) was there */
        double psi_cpu_s, psi_io_s, psi_mem_s;    /* "some" stall time, seconds */
};

struct hostsrc_disk_rate {
        char name[32];
        double util_pct, iops, lat_ms; /* lat: mean time per completed request */
        double read_iops, write_iops;
        double read_bytes_s, write_bytes_s;
        double aqu_sz;  /* mean requests in flight; 0 when the source gives no queue time */
        double ios;     /* requests completed in the window: weighs lat_ms in a mean */
        double busy_s;  /* time with I/O in flight */
        double seconds; /* the window */
};

/* A host's figures over the window between two reads. */
struct hostsrc_rates {
        double seconds;
        unsigned have; /* HOSTSRC_* families measured: both reads gave them, none went back */
        unsigned back; /* families voided because a counter went backwards (or did not add up) */
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

/* What a source's where is (hostsrc_ops.where): how a lab picks and checks one. */
#define HOSTSRC_AT_DIR    0x1u   /* a directory of this machine laid out as /proc */
#define HOSTSRC_AT_URL    0x2u   /* the host's own metrics URL */
#define HOSTSRC_AT_SERVER 0x4u   /* a server's URL and the host's instance there */
#define HOSTSRC_AT_CONN   0x8u   /* a connection the backend holds (libvirt) */
#define HOSTSRC_TOKEN     0x100u /* it sends the bearer token (HTTP) */

struct hostsrc_ops {
        const char *name; /* "procfs", "node_exporter", "prometheus", "libvirt" */
        unsigned caps;    /* HOSTSRC_* families it can give */
        unsigned where;   /* HOSTSRC_AT_* and HOSTSRC_TOKEN: what where is, what it takes */
        /* Ready s->priv for where (a directory, a URL). 0, or -errno with err. */
        int (*open)(struct hostsrc *s, const char *where, char *err, size_t errlen);
        /* The counters now. 0, or -errno with err (no reply, garbage, too big).
         * out->t_ns left 0 is the time of the read; a source that knows its
         * sample's time sets it. out->have comes in as caps: a read clears
         * the families it could not give this time. */
        int (*read)(struct hostsrc *s, struct hostsrc_counters *out, char *err, size_t errlen);
        void (*close)(struct hostsrc *s);
};

struct hostsrc {
        const struct hostsrc_ops *ops;
        char host[64];     /* the host's name, in every error */
        const char *token; /* bearer token for HTTP sources, or NULL; not owned */
        void *lent;        /* what the opener lends open (HOSTSRC_AT_CONN: the connection
                              the backend holds, lab/hostsrc_libvirt.h), or NULL; not owned */
        void *priv;
};

extern const struct hostsrc_ops hostsrc_procfs_ops;
extern const struct hostsrc_ops hostsrc_node_ops;
extern const struct hostsrc_ops hostsrc_prom_ops;

#define HOSTSRC_MAX_SOURCES 16 /* procfs, node_exporter, prometheus and the registered */

/*
 * Add ops to the sources hostsrc_find() knows: how a source of a layer above
 * core (lab/hostsrc_libvirt.c: libvirt) joins procfs, node_exporter and
 * prometheus, which are always there. Registering the same ops again is 0;
 * -EEXIST for other ops of a known name, -ENOSPC past HOSTSRC_MAX_SOURCES.
 */
int hostsrc_register(const struct hostsrc_ops *ops);

/* The source named name ("procfs", "node_exporter", "prometheus", a registered
 * one such as "libvirt"), NULL when unknown. */
const struct hostsrc_ops *hostsrc_find(const char *name);

/*
 * Open ops on host at where. Errors name the host: "h2: ...". The token, if
 * any, must outlive the source. lent is what a source that reads through
 * something the caller holds (HOSTSRC_AT_CONN) is opened on, NULL for the
 * others; how the source keeps it is the source's (libvirt takes a
 * reference of its own). 0 or -errno.
 */
int hostsrc_open(struct hostsrc *s, const struct hostsrc_ops *ops, const char *host,
                 const char *where, const char *token, void *lent, char *err, size_t errlen);
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

/* Whether a diskstats device counts as a disk (not ram*, loop*, fd*, a partition). */
int hostsrc_disk_wanted(const char *name);

/* Whether an interface's bytes count as the host's: not lo, bridges (br*, virbr*),
 * taps (tap*, vnet*), veths, docker*. */
int hostsrc_net_wanted(const char *name);

/* The net entry named name in c (made, zeroed, .link set, when new), or NULL
 * for a name that does not fit or no room: how a source's read fills c->net. */
struct hostsrc_net *hostsrc_net_of(struct hostsrc_counters *c, const char *name);

/* The net entry named name in c, or NULL. */
const struct hostsrc_net *hostsrc_net_find(const struct hostsrc_counters *c, const char *name);

/* One interface over dt seconds between a (earlier) and b, as per-second
 * figures in *per_s (name and link of b): the one interface rate routine.
 * -ERANGE when a counter went backwards (re-created under its name). */
int hostsrc_net_rate(const struct hostsrc_net *a, const struct hostsrc_net *b, double dt,
                     struct hostsrc_net *per_s);

struct procfs_disk;
/* A /proc/diskstats line (core/procfs.h) as a source's disk: ms to seconds,
 * sectors to bytes. -ENAMETOOLONG for a name that does not fit, else 0. */
int hostsrc_disk_of_procfs(const struct procfs_disk *d, struct hostsrc_disk *o);

/*
 * One disk over dt seconds between its counters a (earlier) and b: the one
 * disk rate routine (the host sources, the monitor, scale's probe). -ERANGE
 * when a counter went backwards (*r untouched), else 0.
 */
int hostsrc_disk_rate(const struct hostsrc_disk *a, const struct hostsrc_disk *b, double dt,
                      struct hostsrc_disk_rate *r);

/*
 * One CPU's (or the total's) time between a (earlier) and b as % of that
 * time, mode by mode (the fields of *pct sum to 100): the one CPU split (the
 * host monitor's samples, scale's window). -ERANGE when a mode went
 * backwards, -EAGAIN when no time was accounted; *pct all 0 then.
 */
int hostsrc_cpu_split(const struct hostsrc_cpu *a, const struct hostsrc_cpu *b,
                      struct hostsrc_cpu *pct);

/*
 * The figures between reads a (earlier) and b, family by family (see
 * above): out->have says which were measured, out->back which a counter
 * that went backwards voided. 0 when any family was measured; -ERANGE when
 * every family both reads gave went backwards; -EINVAL when b is not later
 * than a (one sample read twice).
 */
int hostsrc_rates(const struct hostsrc_counters *a, const struct hostsrc_counters *b,
                  struct hostsrc_rates *out);

/*
 * What a window lost, for a message after "HOST (SOURCE): ": rc of
 * hostsrc_rates and its out. "" when nothing was lost. Examples: "a counter
 * went backwards (the source restarted?): window left out", "network
 * counters went backwards: that figure left out", "the second reading is
 * not later than the first (one sample read twice?)".
 */
void hostsrc_rates_why(int rc, const struct hostsrc_rates *r, char *buf, size_t len);

#endif
