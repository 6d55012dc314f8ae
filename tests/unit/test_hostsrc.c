/*
 * test_hostsrc.c - the exposition-text parser on node_exporter 1.5's own
 * text (HELP/TYPE, escapes, timestamps, NaN and ±Inf) and on every kind of
 * bad line; the node_exporter body read into counters; the procfs source
 * over a hand-written procfs-shaped directory; rates between two reads,
 * with a counter that went backwards discarding the window; the URL check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/expo.h"
#include "core/hostsrc.h"
#include "core/hostsrc_http.h" /* the bodies' parsers, no network */

/* Lines as node_exporter 1.5.0 serves them. */
static const char node_text[] =
    "# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.\n"
    "# TYPE node_cpu_seconds_total counter\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 9000.5\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"iowait\"} 10\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"irq\"} 0\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"nice\"} 1\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"softirq\"} 2\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"steal\"} 3\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"system\"} 40\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 100\n"
    "node_cpu_seconds_total{cpu=\"1\",mode=\"idle\"} 8000\n"
    "node_cpu_seconds_total{cpu=\"1\",mode=\"user\"} 200\n"
    "# HELP node_memory_MemAvailable_bytes Memory information field MemAvailable_bytes.\n"
    "# TYPE node_memory_MemAvailable_bytes gauge\n"
    "node_memory_MemAvailable_bytes 2.5e+09\n"
    "node_memory_MemTotal_bytes 1e+10\n"
    "node_vmstat_pswpin 7\n"
    "node_vmstat_pswpout 8\n"
    "node_disk_reads_completed_total{device=\"vda\"} 1000\n"
    "node_disk_writes_completed_total{device=\"vda\"} 500\n"
    "node_disk_read_time_seconds_total{device=\"vda\"} 1.5\n"
    "node_disk_write_time_seconds_total{device=\"vda\"} 0.75\n"
    "node_disk_io_time_seconds_total{device=\"vda\"} 2\n"
    "node_disk_read_bytes_total{device=\"vda\"} 4.096e+06\n"
    "node_disk_written_bytes_total{device=\"vda\"} 2.048e+06\n"
    "node_disk_reads_completed_total{device=\"vda1\"} 999\n"
    "node_network_receive_bytes_total{device=\"eth0\"} 1234\n"
    "node_network_receive_bytes_total{device=\"lo\"} 99999\n"
    "node_network_transmit_bytes_total{device=\"eth0\"} 4321\n"
    "node_pressure_cpu_waiting_seconds_total 1.25\n"
    "node_pressure_io_waiting_seconds_total 2.5\n"
    "node_pressure_memory_waiting_seconds_total 0\n"
    "# HELP node_uname_info Labeled system information as provided by the uname system call.\n"
    "# TYPE node_uname_info gauge\n"
    "node_uname_info{domainname=\"(none)\",machine=\"x86_64\",nodename=\"h1\",release=\"6.1.0\","
    "sysname=\"Linux\",version=\"#1 SMP PREEMPT_DYNAMIC Debian 6.1.0\"} 1\n"
    "# HELP go_gc_duration_seconds A summary of the pause duration of garbage collection cycles.\n"
    "# TYPE go_gc_duration_seconds summary\n"
    "go_gc_duration_seconds{quantile=\"0\"} 2.3e-05\n"
    "go_gc_duration_seconds_sum 0.001\n"
    "go_gc_duration_seconds_count 10\n"
    "node_scrape_collector_success{collector=\"arp\"} 1\n";

struct seen {
        int n;
        char last_name[128];
        char vals[8][128];
        size_t nlabels;
        double value;
        int has_ts;
        int64_t ts;
};

static int keep(void *user, const struct expo_sample *s)
{
        struct seen *z = user;

        z->n++;
        snprintf(z->last_name, sizeof(z->last_name), "%s", s->name);
        z->nlabels = s->nlabels;
        for (size_t i = 0; i < s->nlabels && i < 8; i++)
                snprintf(z->vals[i], sizeof(z->vals[i]), "%s=%s", s->labels[i].name,
                         s->labels[i].value);
        z->value = s->value;
        z->has_ts = s->has_ts;
        z->ts = s->ts_ms;
        return 0;
}

static int parse1(const char *text, struct seen *z, char *err)
{
        memset(z, 0, sizeof(*z));
        return expo_parse(text, strlen(text), keep, z, err, 200);
}

static void test_expo_node_text(void **state)
{
        struct seen z;
        char err[200];

        (void)state;
        assert_int_equal(parse1(node_text, &z, err), 0);
        assert_int_equal(z.n, 33);
        assert_string_equal(z.last_name, "node_scrape_collector_success");
        assert_string_equal(z.vals[0], "collector=arp");
}

static void test_expo_forms(void **state)
{
        struct seen z;
        char err[200];

        (void)state;
        assert_int_equal(
            parse1("a{x=\"q\\\"uo\\\\te\\nnl\",y=\"\",} -Inf 1700000000000\n", &z, err), 0);
        assert_int_equal(z.nlabels, 2);
        assert_string_equal(z.vals[0], "x=q\"uo\\te\nnl");
        assert_string_equal(z.vals[1], "y=");
        assert_true(isinf(z.value) && z.value < 0);
        assert_true(z.has_ts);
        assert_true(z.ts == 1700000000000LL);
        assert_int_equal(parse1("b +Inf", &z, err), 0); /* no final newline */
        assert_true(isinf(z.value) && z.value > 0);
        assert_int_equal(parse1("c NaN -5\n", &z, err), 0);
        assert_true(isnan(z.value));
        assert_true(z.ts == -5);
        assert_int_equal(parse1("  \n# a free comment\n#\nd:e_f 1.5e-3\n", &z, err), 0);
        assert_int_equal(z.n, 1);
        assert_true(fabs(z.value - 0.0015) < 1e-12);
        assert_int_equal(parse1("g { a = \"1\" } 2\n", &z, err), 0);
        assert_string_equal(z.vals[0], "a=1");
        /* Go prints subnormals; an underflow is a value */
        assert_int_equal(parse1("s 1e-320\n", &z, err), 0);
        assert_true(z.value > 0 && z.value < 1e-300);
        /* series that differ in a label value, or by a label, are distinct */
        assert_int_equal(parse1("m{a=\"1\"} 1\nm{a=\"2\"} 1\nm 3\nm{a=\"1\",b=\"\"} 1\n", &z, err),
                         0);
        assert_int_equal(z.n, 4);
}

static void bad1(const char *text, const char *want)
{
        struct seen z;
        char err[200] = "";

        assert_int_equal(parse1(text, &z, err), -EINVAL);
        if (!strstr(err, want))
                fail_msg("'%s': error '%s' lacks '%s'", text, err, want);
}

static void test_expo_bad(void **state)
{
        char *big;
        struct seen z;
        char err[200];

        (void)state;
        bad1("9metric 1\n", "line 1: bad metric name");
        bad1("ok 1\nm{x=1} 1\n", "line 2: label x: value not quoted");
        bad1("m{x=\"1} 1\n", "not terminated");
        bad1("m{x=\"\\t\"} 1\n", "unknown escape");
        bad1("m{x=\"1\" y=\"2\"} 1\n", "expected ','");
        bad1("m{1x=\"1\"} 1\n", "bad label name");
        bad1("m 0x10\n", "not a number");
        bad1("m nan(1)\n", "not a number");
        bad1("m\n", "not a number");
        bad1("m 1 2.5\n", "timestamp");
        bad1("m 1 2 3\n", "after the timestamp");
        bad1("# TYPE m counterx\n", "unknown type");
        bad1("# TYPE 3m counter\n", "bad metric name");
        bad1("m-x 1\n", "bad metric name");
        bad1("m 1e400\n", "not a number");
        /* one series twice: Prometheus refuses the scrape; summing made 13% busy 39% */
        bad1("m{a=\"1\",b=\"2\"} 1\nx 1\nm{b=\"2\",a=\"1\"} 2\n",
             "line 3: m: the same series again (first on line 1)");
        bad1("m 1\nm 1\n", "line 2: m: the same series again");
        assert_int_equal(expo_parse("m 1\0\n", 5, keep, &z, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "NUL"));
        big = malloc(EXPO_MAX_LINE + 16);
        memset(big, 'a', EXPO_MAX_LINE + 8);
        memcpy(big + EXPO_MAX_LINE + 8, " 1\n", 4);
        bad1(big, "longer than");
        free(big);
        assert_int_equal(expo_parse("", EXPO_MAX_BODY + 1ul, keep, &z, err, sizeof(err)), -E2BIG);
}

static void test_node_parse(void **state)
{
        struct hostsrc_counters *c = calloc(1, sizeof(*c));
        char err[200];

        (void)state;
        assert_int_equal(hostsrc_node_parse(node_text, strlen(node_text), c, err, sizeof(err)), 0);
        assert_int_equal(c->ncpus, 2);
        assert_true(fabs(c->total.user - 300) < 1e-9);
        assert_true(fabs(c->total.idle - 17000.5) < 1e-9);
        assert_true(fabs(c->cpu[0].steal - 3) < 1e-9);
        assert_true(fabs(c->mem_total_bytes - 1e10) < 1);
        assert_true(fabs(c->pswpin - 7) < 1e-9);
        assert_int_equal(c->ndisks, 1); /* vda1 is a partition */
        assert_string_equal(c->disk[0].name, "vda");
        assert_true(fabs(c->disk[0].write_s - 0.75) < 1e-9);
        assert_non_null(hostsrc_net_find(c, "eth0"));
        assert_true(hostsrc_net_find(c, "eth0")->link);
        assert_true(fabs(hostsrc_net_find(c, "eth0")->rx_bytes - 1234) < 1e-9);
        assert_true(!hostsrc_net_find(c, "lo") ||
                    !hostsrc_net_find(c, "lo")->link); /* not summed */
        assert_true(c->have_pressure);
        memset(c, 0, sizeof(*c));
        assert_int_equal(hostsrc_node_parse("go_goroutines 8\n", 16, c, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "not node_exporter"));
        assert_int_equal(hostsrc_node_parse("node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} NaN\n",
                                            48, c, err, sizeof(err)),
                         -EINVAL);
        assert_non_null(strstr(err, "not a counter"));
        /* a family not read may hold what no counter does: netclass's speed of an unknown link */
        {
                static const char other[] = "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 5\n"
                                            "node_network_speed_bytes{device=\"eth0\"} -125000\n"
                                            "node_disk_info{device=\"vda\"} NaN\n";

                memset(c, 0, sizeof(*c));
                assert_int_equal(hostsrc_node_parse(other, strlen(other), c, err, sizeof(err)), 0);
                assert_true(fabs(c->total.user - 5) < 1e-9);
        }
        assert_int_equal(hostsrc_node_parse("\x01\x02garbage\xff", 11, c, err, sizeof(err)),
                         -EINVAL);
        assert_non_null(strstr(err, "not exposition text"));
        free(c);
}

static void put(const char *dir, const char *file, const char *text)
{
        char path[512];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, file);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* A procfs-shaped directory at two moments: 1 s apart, CPU 1 saturated. */
static void fake_proc(const char *dir, int later)
{
        char stat[512], disk[512];

        snprintf(stat, sizeof(stat),
                 "cpu  %d 0 %d %d 0 0 0 %d\ncpu0 %d 0 %d %d 0 0 0 0\ncpu1 %d 0 %d %d 0 0 0 %d\n"
                 "intr 1 2 3\n",
                 1000 + later * 120, 500 + later * 20, 10000 + later * 50, later * 10,
                 500 + later * 30, 250 + later * 10, 5000 + later * 50, 500 + later * 90,
                 250 + later * 10, 5000, later * 10);
        put(dir, "stat", stat);
        put(dir, "meminfo", "MemTotal:       1000 kB\nMemFree:  100 kB\nMemAvailable:    250 kB\n");
        put(dir, "vmstat", later ? "pswpin 40\npswpout 1\n" : "pswpin 0\npswpout 1\n");
        snprintf(disk, sizeof(disk),
                 "   8       0 sda %d 0 %d %d %d 0 %d %d 0 %d %d\n"
                 "   8       1 sda1 5 0 5 5 5 0 5 5 0 5 5\n"
                 "   7       0 loop0 5 0 5 5 5 0 5 5 0 5 5\n",
                 100 + later * 300, 800 + later * 2400, 50 + later * 600, 10 + later * 100, 80,
                 20 + later * 400, 60 + later * 500, 60 + later * 1000);
        put(dir, "diskstats", disk);
        put(dir, "net/dev",
            later ? "Inter-|\n face |\n    lo: 900 1 0 0 0 0 0 0 900 1 0 0 0 0 0 0\n"
                    "  eth0: 3000 1 0 0 0 0 0 0 5000 1 0 0 0 0 0 0\n"
                  : "Inter-|\n face |\n    lo: 0 1 0 0 0 0 0 0 0 1 0 0 0 0 0 0\n"
                    "  eth0: 1000 1 0 0 0 0 0 0 1000 1 0 0 0 0 0 0\n");
}

static void test_procfs_rates(void **state)
{
        char dir[] = "/tmp/test_hostsrc.XXXXXX", sub[64], err[200];
        struct hostsrc_counters *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
        struct hostsrc_rates *r = calloc(1, sizeof(*r));
        struct hostsrc s;

        (void)state;
        assert_non_null(mkdtemp(dir));
        snprintf(sub, sizeof(sub), "%s/net", dir);
        assert_int_equal(mkdir(sub, 0700), 0);
        assert_int_equal(hostsrc_open(&s, hostsrc_find("procfs"), "h2", dir, NULL, NULL, err, 200),
                         0);
        fake_proc(dir, 0);
        assert_int_equal(hostsrc_read(&s, a, err, sizeof(err)), 0);
        fake_proc(dir, 1);
        assert_int_equal(hostsrc_read(&s, b, err, sizeof(err)), 0);
        assert_int_equal(a->ncpus, 2);
        assert_int_equal(a->ndisks, 1);    /* sda1 and loop0 left out */
        b->t_ns = a->t_ns + 1000000000ull; /* exactly 1 s, as the counters were advanced */
        assert_int_equal(hostsrc_rates(a, b, r), 0);
        /* 2 CPUs x 100 ticks = 200 ticks: user 120, system 20, idle 50, steal 10 */
        assert_true(fabs(r->busy - 75) < 1e-6);
        assert_true(fabs(r->user - 60) < 1e-6);
        assert_true(fabs(r->steal - 5) < 1e-6);
        assert_true(fabs(r->busiest_cpu - 100) < 1e-6);
        assert_true(fabs(r->mem_used_pct - 75) < 1e-6);
        assert_true(fabs(r->swap_in_s - 40) < 1e-6);
        assert_int_equal(r->ndisks, 1);
        assert_true(fabs(r->disk[0].iops - 400) < 1e-6);
        assert_true(fabs(r->disk[0].util_pct - 50) < 1e-6);
        assert_true(fabs(r->disk[0].lat_ms - 2.5) < 1e-6);
        assert_true(fabs(r->disk[0].read_bytes_s - 2400 * 512) < 1e-6);
        assert_true(fabs(r->rx_bytes_s - 2000) < 1e-6 && fabs(r->tx_bytes_s - 4000) < 1e-6);
        /* the earlier read taken later: every counter went backwards, each family
         * voided on its own; memory in use is a gauge and stands */
        a->t_ns = b->t_ns + 1000000000ull;
        assert_int_equal(hostsrc_rates(b, a, r), 0);
        assert_int_equal(r->have, HOSTSRC_MEM);
        assert_int_equal(r->back, HOSTSRC_CPU | HOSTSRC_SWAP | HOSTSRC_DISKS | HOSTSRC_NET);
        assert_true(r->busy == 0);
        a->have &= ~HOSTSRC_MEM; /* with no gauge left, nothing was measured */
        assert_int_equal(hostsrc_rates(b, a, r), -ERANGE);
        assert_int_equal(hostsrc_rates(b, b, r), -EINVAL);
        hostsrc_close(&s);
        assert_int_equal(hostsrc_open(&s, hostsrc_find("procfs"), "h9", "/nonexistent", NULL, NULL,
                                      err, sizeof(err)),
                         0);
        assert_int_equal(hostsrc_read(&s, a, err, sizeof(err)), -ENOENT);
        assert_non_null(strstr(err, "h9 (procfs): /nonexistent/stat"));
        hostsrc_close(&s);
        free(a);
        free(b);
        free(r);
        snprintf(sub, sizeof(sub), "rm -rf %s", dir);
        assert_int_equal(system(sub), 0);
}

static void test_one_counter_back(void **state)
{
        struct hostsrc_counters *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
        struct hostsrc_rates *r = calloc(1, sizeof(*r));
        char err[200];

        (void)state;
        assert_int_equal(hostsrc_node_parse(node_text, strlen(node_text), a, err, 200), 0);
        *b = *a;
        b->t_ns = a->t_ns + 2000000000ull;
        b->total.idle += 10;
        assert_int_equal(hostsrc_rates(a, b, r), 0);
        b->disk[0].written_bytes -= 1; /* one disk counter of a reset device */
        assert_int_equal(hostsrc_rates(a, b, r), 0);
        assert_int_equal(r->ndisks, 0);     /* that disk is left out */
        assert_true(r->have & HOSTSRC_CPU); /* the CPU figure stands */
        assert_true(r->back & HOSTSRC_DISKS);
        hostsrc_rates_why(0, r, err, sizeof(err));
        assert_string_equal(err, "disk counters went backwards: that figure left out");
        free(a);
        free(b);
        free(r);
}

static void url_ok(const char *url, int loop)
{
        char err[200];

        if (hostsrc_url_check(url, loop, err, sizeof(err)) != 0)
                fail_msg("%s refused: %s", url, err);
}

static void url_bad(const char *url, int loop, const char *want)
{
        char err[200] = "";

        assert_int_equal(hostsrc_url_check(url, loop, err, sizeof(err)), -EINVAL);
        if (!strstr(err, want))
                fail_msg("%s: '%s' lacks '%s'", url, err, want);
}

/* One window of two hand-made reads: a has stat_a / net_a, b 1 s later. */
static int window_of(const char *stat_a, const char *stat_b, const char *net_a, const char *net_b,
                     const char *mem_b, struct hostsrc_rates *r)
{
        char dir[] = "/tmp/test_hostsrc.XXXXXX", sub[64], err[200];
        struct hostsrc_counters *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
        struct hostsrc s;
        int rc;

        assert_non_null(mkdtemp(dir));
        snprintf(sub, sizeof(sub), "%s/net", dir);
        assert_int_equal(mkdir(sub, 0700), 0);
        assert_int_equal(hostsrc_open(&s, hostsrc_find("procfs"), "h3", dir, NULL, NULL, err, 200),
                         0);
        put(dir, "stat", stat_a);
        put(dir, "net/dev", net_a);
        put(dir, "meminfo", "MemTotal: 1000 kB\nMemAvailable: 500 kB\n");
        assert_int_equal(hostsrc_read(&s, a, err, sizeof(err)), 0);
        put(dir, "stat", stat_b);
        put(dir, "net/dev", net_b);
        put(dir, "meminfo", mem_b);
        assert_int_equal(hostsrc_read(&s, b, err, sizeof(err)), 0);
        b->t_ns = a->t_ns + 1000000000ull;
        rc = hostsrc_rates(a, b, r);
        hostsrc_close(&s);
        free(a);
        free(b);
        snprintf(sub, sizeof(sub), "rm -rf %s", dir);
        assert_int_equal(system(sub), 0);
        return rc;
}

#define NET_HEAD          "Inter-|\n face |\n"
#define STAT3(t, a, b, c) "cpu  " t "\ncpu0 " a "\ncpu1 " b "\ncpu2 " c "\n"

/* CPU 1 goes offline: CPU 2 must be paired with CPU 2, not with CPU 1. */
static void test_offline_cpu_by_id(void **state)
{
        struct hostsrc_rates *r = calloc(1, sizeof(*r));
        const char *net = NET_HEAD "  eth0: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

        (void)state;
        /* cpu1 busy at a (9000 user ticks), cpu2 idle; at b cpu2 spent 25 of 100 ticks busy */
        assert_int_equal(window_of(STAT3("9000 0 0 300 0 0 0 0", "0 0 0 100 0 0 0 0",
                                         "9000 0 0 100 0 0 0 0", "0 0 0 100 0 0 0 0"),
                                   "cpu  9025 0 0 575 0 0 0 0\ncpu0 0 0 0 200 0 0 0 0\n"
                                   "cpu2 25 0 0 175 0 0 0 0\n",
                                   net, net, "MemTotal: 1000 kB\nMemAvailable: 500 kB\n", r),
                         0);
        assert_true(r->have & HOSTSRC_CPU);
        assert_true(fabs(r->busiest_cpu - 25) < 1e-6);
        free(r);
}

/* A VM's tap device goes away: network still measured (eth0), CPU never lost;
 * MemAvailable above MemTotal voids memory only. */
static void test_vanished_interface(void **state)
{
        struct hostsrc_rates *r = calloc(1, sizeof(*r));
        const char *st_a = STAT3("100 0 0 200 0 0 0 0", "50 0 0 100 0 0 0 0", "50 0 0 100 0 0 0 0",
                                 "0 0 0 0 0 0 0 0"),
                   *st_b = STAT3("200 0 0 300 0 0 0 0", "100 0 0 150 0 0 0 0",
                                 "100 0 0 150 0 0 0 0", "0 0 0 0 0 0 0 0");
        char why[200];

        (void)state;
        assert_int_equal(window_of(st_a, st_b,
                                   NET_HEAD "  eth0: 1000 1 0 0 0 0 0 0 500 1 0 0 0 0 0 0\n"
                                            "  ens4: 9000000 1 0 0 0 0 0 0 9000000 1 0 0 0 0 0 0\n",
                                   NET_HEAD "  eth0: 3000 1 0 0 0 0 0 0 1500 1 0 0 0 0 0 0\n",
                                   "MemTotal: 1000 kB\nMemAvailable: 2124 kB\n", r),
                         0);
        assert_true(r->have & HOSTSRC_CPU);
        assert_true(fabs(r->busy - 50) < 1e-6);
        assert_true(r->have & HOSTSRC_NET);
        assert_true(fabs(r->rx_bytes_s - 2000) < 1e-6 && fabs(r->tx_bytes_s - 1000) < 1e-6);
        assert_false(r->have & HOSTSRC_MEM); /* not -112.4%: unknown */
        assert_true(r->mem_used_pct == 0);
        /* a tap's bytes are a link's too: never counted */
        assert_false(hostsrc_net_wanted("tap0") || hostsrc_net_wanted("vnet3") ||
                     hostsrc_net_wanted("virbr0") || hostsrc_net_wanted("lo"));
        assert_true(hostsrc_net_wanted("eth0") && hostsrc_net_wanted("ens4"));
        /* an interface re-created under its name: network voided, CPU kept */
        assert_int_equal(window_of(st_a, st_b,
                                   NET_HEAD "  eth0: 5000 1 0 0 0 0 0 0 500 1 0 0 0 0 0 0\n",
                                   NET_HEAD "  eth0: 30 1 0 0 0 0 0 0 15 1 0 0 0 0 0 0\n",
                                   "MemTotal: 1000 kB\nMemAvailable: 250 kB\n", r),
                         0);
        assert_true(r->have & HOSTSRC_CPU && r->have & HOSTSRC_MEM);
        assert_false(r->have & HOSTSRC_NET);
        hostsrc_rates_why(0, r, why, sizeof(why));
        assert_string_equal(why, "network counters went backwards: that figure left out");
        free(r);
}

/* Each failure says what it was: not every one is "a counter went backwards". */
static void test_rates_why(void **state)
{
        char why[200];

        (void)state;
        hostsrc_rates_why(-EINVAL, NULL, why, sizeof(why));
        assert_non_null(strstr(why, "not later than the first"));
        assert_null(strstr(why, "backwards"));
        hostsrc_rates_why(-ERANGE, NULL, why, sizeof(why));
        assert_non_null(strstr(why, "went backwards"));
}

/* The one CPU split (monitor and scale's window) and the one interface rate. */
static void test_cpu_split_net_rate(void **state)
{
        struct hostsrc_cpu a = {.user = 10, .idle = 10}, b = {.user = 15, .system = 5, .idle = 20},
                           off = {0}, pct;
        struct hostsrc_net x = {"tap0", 100, 50, 1, 1, 0}, y = {"tap0", 300, 150, 3, 2, 0}, per_s;

        (void)state;
        assert_int_equal(hostsrc_cpu_split(&a, &b, &pct), 0);
        assert_true(fabs(pct.user - 25) < 1e-9 && fabs(pct.system - 25) < 1e-9 &&
                    fabs(pct.idle - 50) < 1e-9);
        assert_int_equal(hostsrc_cpu_split(&b, &a, &pct), -ERANGE);
        assert_true(pct.user == 0);
        assert_int_equal(hostsrc_cpu_split(&off, &b, &pct), -ENOENT); /* offline at one end */
        assert_int_equal(hostsrc_cpu_split(&a, &a, &pct), -EAGAIN);
        assert_int_equal(hostsrc_net_rate(&x, &y, 2, &per_s), 0);
        assert_true(fabs(per_s.rx_bytes - 100) < 1e-9 && fabs(per_s.tx_bytes - 50) < 1e-9);
        assert_string_equal(per_s.name, "tap0");
        assert_false(per_s.link);
        assert_int_equal(hostsrc_net_rate(&y, &x, 2, &per_s), -ERANGE);
}

static void test_url_check(void **state)
{
        struct hostsrc s;
        char err[200];

        (void)state;
        url_ok("http://127.0.0.2:9100/metrics", 1);
        url_ok("https://[::1]:9100/metrics", 1);
        url_ok("http://node7.example:9100/metrics", 0);
        url_bad("file:///etc/passwd", 0, "only http");
        url_bad("gopher://127.0.0.1/", 0, "only http");
        url_bad("http://:9100/", 0, "no host");
        url_bad("http://u@127.0.0.1/", 0, "user@");
        url_bad("http://10.0.0.5:9100/metrics", 1, "loopback");
        url_bad("http://localhost:9100/metrics", 1, "loopback");
        url_bad("http://127.0.0.1.evil:9100/", 1, "loopback");
        assert_int_equal(hostsrc_open(&s, hostsrc_find("node_exporter"), "h3", "ftp://127.0.0.1/",
                                      NULL, NULL, err, sizeof(err)),
                         -EINVAL);
        assert_non_null(strstr(err, "h3 (node_exporter): metrics URL ftp://"));
        assert_null(hostsrc_find("nope"));
        assert_true(hostsrc_disk_wanted("nvme0n1") && !hostsrc_disk_wanted("nvme0n1p2"));
        assert_true(hostsrc_disk_wanted("dm-0") && !hostsrc_disk_wanted("ram0"));
}

/* A source that reads through what its opener lends (as libvirt does): the counters it
 * gives are the lent ones. */
static int lent_open(struct hostsrc *s, const char *where, char *err, size_t errlen)
{
        (void)where;
        if (!s->lent) {
                snprintf(err, errlen, "nothing lent");
                return -ENOTCONN;
        }
        s->priv = s->lent;
        return 0;
}

static int lent_read(struct hostsrc *s, struct hostsrc_counters *out, char *err, size_t errlen)
{
        (void)err;
        (void)errlen;
        out->total = *(const struct hostsrc_cpu *)s->priv;
        return 0;
}

static const struct hostsrc_ops lent_ops = {.name = "lent",
                                            .caps = HOSTSRC_CPU,
                                            .where = HOSTSRC_AT_CONN,
                                            .open = lent_open,
                                            .read = lent_read};
static const struct hostsrc_ops procfs_again = {.name = "procfs", .open = lent_open};

/* A registered source is found and opened as core's own are, on what its opener lends. */
static void test_register(void **state)
{
        struct hostsrc_counters *c = calloc(1, sizeof(*c));
        struct hostsrc_cpu lent = {.user = 7};
        struct hostsrc s;
        char err[200];

        (void)state;
        assert_non_null(c);
        assert_null(hostsrc_find("lent"));
        assert_int_equal(hostsrc_register(&lent_ops), 0);
        assert_int_equal(hostsrc_register(&lent_ops), 0); /* again: the same ops, no-op */
        assert_int_equal(hostsrc_register(&procfs_again), -EEXIST);
        assert_ptr_equal(hostsrc_find("lent"), &lent_ops);
        assert_ptr_equal(hostsrc_find("procfs"), &hostsrc_procfs_ops);
        assert_int_equal(
            hostsrc_open(&s, hostsrc_find("lent"), "h4", "x", NULL, NULL, err, sizeof(err)),
            -ENOTCONN);
        assert_string_equal(err, "h4 (lent): nothing lent");
        assert_int_equal(
            hostsrc_open(&s, hostsrc_find("lent"), "h4", "x", NULL, &lent, err, sizeof(err)), 0);
        assert_int_equal(hostsrc_read(&s, c, err, sizeof(err)), 0);
        assert_true(c->total.user == 7);
        assert_int_equal(c->have, HOSTSRC_CPU); /* what it does not give is not claimed */
        hostsrc_close(&s);
        free(c);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_expo_node_text),    cmocka_unit_test(test_expo_forms),
            cmocka_unit_test(test_expo_bad),          cmocka_unit_test(test_node_parse),
            cmocka_unit_test(test_procfs_rates),      cmocka_unit_test(test_one_counter_back),
            cmocka_unit_test(test_offline_cpu_by_id), cmocka_unit_test(test_vanished_interface),
            cmocka_unit_test(test_rates_why),         cmocka_unit_test(test_cpu_split_net_rate),
            cmocka_unit_test(test_url_check),         cmocka_unit_test(test_register),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
