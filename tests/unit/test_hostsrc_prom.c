/*
 * test_hostsrc_prom.c - the prometheus source's reading of an instant
 * query's reply into counters, on bodies shaped as Prometheus 2.42 answers
 * hostsrc_prom.c's query: the families filled as the node_exporter source
 * fills them (partitions and lo left out), the scrape time mapped onto
 * clk_now_ns; an empty result, an error status, NaN and Inf values, two
 * jobs of one instance, a matrix, no sample time and a body that is not
 * JSON each a clear error. And the BASE#INSTANCE form of where.
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

#include "core/hostsrc.h"
#include "core/hostsrc_http.h" /* the bodies' parsers, no network */

#define INST "127.0.0.2:9100"
#define M(name, labels)                                                                            \
        "{\"metric\":{\"__name__\":\"" name "\"," labels "\"instance\":\"" INST                    \
        "\",\"job\":\"node\"},"
#define V(v)          "\"value\":[1796352998.952,\"" v "\"]}"
#define CPU(c, m, v)  M("node_cpu_seconds_total", "\"cpu\":\"" c "\",\"mode\":\"" m "\",") V(v)
#define DISK(f, d, v) M("node_disk_" f, "\"device\":\"" d "\",") V(v)
#define NET(f, d, v)  M("node_network_" f "_bytes_total", "\"device\":\"" d "\",") V(v)
#define TIME(v)       "{\"metric\":{\"__name__\":\"hcisweep_sample_time\"}," V(v)
#define REPLY(items)                                                                               \
        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[" items "]}}"

/* The series as Prometheus 2.42 answered the query over a node_exporter 1.5 target (trimmed). */
static const char *const items[] = {
    CPU("0", "idle", "9000.5"),
    CPU("0", "iowait", "10"),
    CPU("0", "nice", "1"),
    CPU("0", "steal", "3"),
    CPU("0", "system", "40"),
    CPU("0", "user", "100"),
    CPU("1", "idle", "8000"),
    CPU("1", "user", "200"),
    M("node_memory_MemTotal_bytes", "") V("1e+10"),
    M("node_memory_MemAvailable_bytes", "") V("2.5e+09"),
    M("node_vmstat_pswpin", "") V("7"),
    DISK("reads_completed_total", "vda", "1000"),
    DISK("write_time_seconds_total", "vda", "0.75"),
    DISK("io_time_seconds_total", "vda", "2"),
    DISK("reads_completed_total", "vda1", "999"),
    NET("receive", "eth0", "1234"),
    NET("receive", "lo", "99999"),
    NET("transmit", "eth0", "4321"),
    TIME("1796352997.979"),
};

/* The reply holding every item, as the server writes it. */
static char *reply_of(void)
{
        static char body[16384];
        size_t n = 0;

        n += (size_t)snprintf(body, sizeof(body), "%s", REPLY(""));
        n -= 3; /* back over "]}}" */
        for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++)
                n += (size_t)snprintf(body + n, sizeof(body) - n, "%s%s", i ? "," : "", items[i]);
        snprintf(body + n, sizeof(body) - n, "]}}");
        return body;
}

static int parse(const char *body, struct hostsrc_counters *c, char *err, size_t errlen)
{
        memset(c, 0, sizeof(*c));
        return hostsrc_prom_parse(body, strlen(body), INST, -1796352000000000000ll, c, err, errlen);
}

static void test_reply(void **state)
{
        struct hostsrc_counters *c = calloc(1, sizeof(*c));
        char err[300];

        (void)state;
        assert_int_equal(parse(reply_of(), c, err, sizeof(err)), 0);
        assert_int_equal(c->ncpus, 2);
        assert_true(fabs(c->total.user - 300) < 1e-9);
        assert_true(fabs(c->total.idle - 17000.5) < 1e-9);
        assert_true(fabs(c->cpu[0].steal - 3) < 1e-9);
        assert_true(fabs(c->mem_total_bytes - 1e10) < 1);
        assert_true(fabs(c->mem_available_bytes - 2.5e9) < 1);
        assert_true(fabs(c->pswpin - 7) < 1e-9);
        assert_int_equal(c->ndisks, 1); /* vda1 is a partition */
        assert_string_equal(c->disk[0].name, "vda");
        assert_true(fabs(c->disk[0].write_s - 0.75) < 1e-9);
        assert_true(fabs(c->disk[0].io_s - 2) < 1e-9);
        assert_non_null(hostsrc_net_find(c, "eth0"));
        assert_true(fabs(hostsrc_net_find(c, "eth0")->rx_bytes - 1234) < 1e-9);
        assert_true(fabs(hostsrc_net_find(c, "eth0")->tx_bytes - 4321) < 1e-9);
        assert_true(!hostsrc_net_find(c, "lo") ||
                    !hostsrc_net_find(c, "lo")->link); /* not summed */
        assert_false(c->have_pressure);
        /* the scrape's time (…997.979 s), not the evaluation's (…998.952 s), plus the offset */
        assert_true(llabs((long long)c->t_ns - 997979000000ll) < 1000);
        free(c);
}

static void bad(const char *body, int want, const char *why)
{
        struct hostsrc_counters *c = calloc(1, sizeof(*c));
        char err[300] = "";

        assert_int_equal(parse(body, c, err, sizeof(err)), want);
        if (!strstr(err, why))
                fail_msg("error '%s' does not say '%s'", err, why);
        free(c);
}

static void test_bad_replies(void **state)
{
        (void)state;
        bad(REPLY(""), -ENOENT, "no node_cpu_seconds_total for instance " INST);
        bad(REPLY(TIME("1796352997.979")), -ENOENT, "instance " INST);
        bad("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter "
            "\\\"query\\\": 1:24: parse error\"}",
            -EIO, "the query failed: bad_data: invalid parameter \"query\": 1:24: parse error");
        bad(REPLY(CPU("0", "user", "NaN") "," TIME("1796352997.979")), -EINVAL,
            "node_cpu_seconds_total is nan, not a counter");
        bad(REPLY(CPU("0", "user", "1") "," DISK("io_time_seconds_total", "vda",
                                                 "+Inf") "," TIME("1796352997.979")),
            -EINVAL, "node_disk_io_time_seconds_total is inf, not a counter");
        bad(REPLY(CPU("0", "user", "1") "," TIME("NaN")), -EINVAL, "no sample time");
        bad(REPLY(CPU("0", "user", "1")), -EINVAL, "no sample time");
        bad(REPLY(CPU("0", "user", "1") ",{\"metric\":{\"__name__\":\"node_cpu_seconds_total\","
                                        "\"cpu\":\"0\",\"mode\":\"user\",\"instance\":\"" INST
                                        "\",\"job\":\"other\"}," V("1") "," TIME("1")),
            -EINVAL, "scraped by more than one job (node, other)");
        bad(REPLY(CPU("0", "user", "one")), -EINVAL, "without metric and value");
        bad("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}", -EINVAL,
            "not a vector result");
        bad("<html>502 Bad Gateway</html>", -EINVAL, "not JSON");
        bad("{\"data\":{}}", -EINVAL, "not a Prometheus API reply");
}

static void where_ok(const char *where, const char *base, const char *inst)
{
        char b[256], i[64], err[300] = "";

        if (hostsrc_prom_where(where, b, sizeof(b), i, sizeof(i), err, sizeof(err)) != 0)
                fail_msg("%s refused: %s", where, err);
        assert_string_equal(b, base);
        assert_string_equal(i, inst);
}

static void where_bad(const char *where, const char *why)
{
        char b[256], i[64], err[300] = "";

        assert_int_equal(hostsrc_prom_where(where, b, sizeof(b), i, sizeof(i), err, sizeof(err)),
                         -EINVAL);
        if (!strstr(err, why))
                fail_msg("%s: error '%s' does not say '%s'", where, err, why);
}

static void test_where(void **state)
{
        struct hostsrc s;
        char err[300];

        (void)state;
        where_ok("http://127.0.0.1:9090#127.0.0.2:9100", "http://127.0.0.1:9090", "127.0.0.2:9100");
        where_ok("https://prom.example/prometheus/#[::1]:9100", "https://prom.example/prometheus",
                 "[::1]:9100");
        where_bad("http://127.0.0.1:9090", "not PROMETHEUS_URL#INSTANCE");
        where_bad("http://127.0.0.1:9090#", "not PROMETHEUS_URL#INSTANCE");
        where_bad("http://127.0.0.1:9090#a\"}or{x", "not PROMETHEUS_URL#INSTANCE");
        where_bad("file:///etc/passwd#127.0.0.2:9100", "only http");
        where_bad("http://127.0.0.1:9090/?x=1#127.0.0.2:9100", "without ?query");
        assert_non_null(hostsrc_find("prometheus"));
        assert_int_equal(hostsrc_open(&s, hostsrc_find("prometheus"), "h2",
                                      "gopher://127.0.0.1:9090#127.0.0.2:9100", NULL, NULL, err,
                                      sizeof(err)),
                         -EINVAL);
        assert_non_null(strstr(err, "h2 (prometheus): metrics URL gopher://"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_reply),
            cmocka_unit_test(test_bad_replies),
            cmocka_unit_test(test_where),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
