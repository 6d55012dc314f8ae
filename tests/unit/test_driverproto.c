/*
 * test_driverproto.c - the driver protocol's lines both ways, the bounded
 * reader (a line over the bound is an error naming the driver, never cut
 * and parsed), numbers from the other end that would overflow, and the
 * clock offset taken from the shortest round trip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/driverproto.h"
#include "core/hist.h"

static void roundtrip(const struct dp_msg *in)
{
        char line[DP_LINE_MAX + 2];
        struct dp_msg out;
        int n = dp_encode(in, line, sizeof(line));

        assert_true(n > 0);
        assert_int_equal(line[n - 1], '\n');
        assert_int_equal(dp_decode(line, (size_t)n - 1, &out), 0);
        assert_int_equal(out.kind, in->kind);
        assert_int_equal(out.point, in->point);
        assert_int_equal(out.ns, in->ns);
        assert_int_equal(out.done, in->done);
        assert_true(out.t_s > in->t_s - 1e-6 && out.t_s < in->t_s + 1e-6);
        if (in->kind == DP_RESULT)
                assert_true(out.cpu_s > in->cpu_s - 1e-6 && out.cpu_s < in->cpu_s + 1e-6);
}

static void test_every_line(void **state)
{
        const struct dp_msg m[] = {
            {.kind = DP_READY},
            {.kind = DP_READY, .point = 32},
            {.kind = DP_STARTED, .ns = 1765000000123456789LL},
            {.kind = DP_STARTED, .ns = INT64_MIN, .point = 4},
            {.kind = DP_SAMPLE, .t_s = 2.5, .done = UINT64_MAX},
            {.kind = DP_SAMPLE, .t_s = 0.5, .done = 7, .point = 1},
            {.kind = DP_CLOCK, .ns = INT64_MAX},
            {.kind = DP_RESULT, .cpu_s = -1},
            {.kind = DP_RESULT, .cpu_s = 1.25, .point = 8},
            {.kind = DP_ASK},
            {.kind = DP_GO},
            {.kind = DP_GO, .point = 2, .ns = 1765000000000000000LL},
            {.kind = DP_MEASURE},
            {.kind = DP_STOP, .point = 3},
        };

        (void)state;
        for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
                roundtrip(&m[i]);
}

static void test_bad_lines(void **state)
{
        static const char *const bad[] = {
            "hcisweep-driver started",
            "hcisweep-driver started 12x",
            "hcisweep-driver started  12",
            "hcisweep-driver sample nan 5",
            "hcisweep-driver ready 1 2",
            "hcisweep-driver whatever",
            "go 1 2 3",
            "clock now",
        };
        static const char *const range[] = {
            "hcisweep-driver started 9223372036854775808",
            "hcisweep-driver started -9223372036854775809",
            "hcisweep-driver sample 1 18446744073709551616",
            "hcisweep-driver ready 4294967296",
            "hcisweep-driver result cpu=1e300",
            "go 1 -5",
            "hcisweep-driver sample -1 5",
            "hcisweep-driver sample 1 -5",
        };
        struct dp_msg m;

        (void)state;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                assert_int_equal(dp_decode(bad[i], strlen(bad[i]), &m), -EPROTO);
        for (size_t i = 0; i < sizeof(range) / sizeof(range[0]); i++)
                assert_int_equal(dp_decode(range[i], strlen(range[i]), &m), -ERANGE);
        /* the driver's report is not a protocol line: skipped */
        assert_int_equal(dp_decode("tps: 100", 8, &m), 0);
        assert_int_equal(m.kind, DP_OTHER);
        assert_int_equal(dp_decode("gopher", 6, &m), 0);
        assert_int_equal(m.kind, DP_OTHER);
}

static void test_reader(void **state)
{
        static const char in[] = "report line\nhcisweep-driver ready\nhcisweep-driver started "
                                 "-9223372036854775808\nhcisweep-driver result cpu=0.5\n{\"a\":1}\n"
                                 "cut";
        struct dp_reader *r = dp_reader_new("vm1's driver");
        struct dp_msg m;
        char err[256];

        (void)state;
        assert_non_null(r);
        /* byte by byte: no line is taken before its newline */
        for (size_t i = 0; i < sizeof(in) - 1; i++)
                assert_int_equal(dp_reader_push(r, in + i, 1), 0);
        assert_int_equal(dp_reader_next(r, &m, err, sizeof(err)), 1);
        assert_int_equal(m.kind, DP_READY);
        assert_int_equal(dp_reader_next(r, &m, err, sizeof(err)), 1);
        assert_int_equal(m.kind, DP_STARTED);
        assert_int_equal(m.ns, INT64_MIN);
        assert_int_equal(dp_reader_next(r, &m, err, sizeof(err)), 1);
        assert_int_equal(m.kind, DP_RESULT);
        assert_true(m.cpu_s > 0.49 && m.cpu_s < 0.51);
        assert_int_equal(m.doclen, 7);
        assert_memory_equal(m.doc, "{\"a\":1}", 7);
        assert_int_equal(dp_reader_next(r, &m, err, sizeof(err)), 0);
        dp_reader_free(r);
}

static void test_reader_bound(void **state)
{
        struct dp_reader *r = dp_reader_new("vm2's driver");
        char *big = malloc(DP_LINE_MAX + 2);
        struct dp_msg m;
        char err[256];

        (void)state;
        assert_non_null(r);
        memset(big, 'x', DP_LINE_MAX + 1);
        memcpy(big, "hcisweep-driver ready", 21);
        /* exactly the bound is a line; one over is an error, before its newline came */
        assert_int_equal(dp_reader_push(r, big, DP_LINE_MAX), 0);
        assert_int_equal(dp_reader_next(r, &m, err, sizeof(err)), 0);
        assert_int_equal(dp_reader_push(r, "y", 1), 0);
        assert_int_equal(dp_reader_next(r, &m, err, sizeof(err)), -EMSGSIZE);
        assert_non_null(strstr(err, "vm2's driver"));
        assert_non_null(strstr(err, "1024"));
        /* spent: the same error again, nothing parsed */
        assert_int_equal(dp_reader_push(r, "\nhcisweep-driver ready\n", 23), 0);
        assert_int_equal(dp_reader_next(r, &m, err, sizeof(err)), -EMSGSIZE);
        dp_reader_free(r);
        free(big);

        r = dp_reader_new("vm3's driver");
        assert_int_equal(dp_reader_push(r, "hcisweep-driver started 99999999999999999999\n", 45),
                         0);
        assert_int_equal(dp_reader_next(r, &m, err, sizeof(err)), -ERANGE);
        assert_non_null(strstr(err, "vm3's driver"));
        dp_reader_free(r);
}

static void test_clock(void **state)
{
        struct dp_clock c = {0};

        (void)state;
        assert_int_equal(dp_clock_to_local(&c, 77), 77);
        dp_clock_add(&c, 1000, 5000600, 2000); /* rtt 1000: offset 5000600 - 1500 */
        assert_true(c.known);
        assert_int_equal(c.offset_ns, 4999100);
        assert_int_equal(c.err_ns, 500);
        dp_clock_add(&c, 3000, 5003300, 3200); /* shorter: kept */
        assert_int_equal(c.offset_ns, 5000200);
        assert_int_equal(c.err_ns, 100);
        dp_clock_add(&c, 4000, 1, 9000);           /* longer: ignored */
        dp_clock_add(&c, 9000, 1, 8000);           /* backwards: ignored */
        dp_clock_add(&c, 0, INT64_MIN, 10);        /* overflows: ignored */
        dp_clock_add(&c, INT64_MIN, 0, INT64_MAX); /* overflows: ignored */
        assert_int_equal(c.offset_ns, 5000200);
        assert_int_equal(dp_clock_to_local(&c, 6000200), 1000000);
        assert_int_equal(dp_clock_to_remote(&c, 1000000), 6000200);
        /* saturating, never wrapping */
        assert_int_equal(dp_clock_to_local(&c, INT64_MIN), INT64_MIN);
        assert_int_equal(dp_clock_to_remote(&c, INT64_MAX), INT64_MAX);
        assert_int_equal(dp_sub_sat(INT64_MIN, 1), INT64_MIN);
        assert_int_equal(dp_sub_sat(INT64_MAX, -1), INT64_MAX);
        assert_int_equal(dp_sub_sat(5, 7), -2);
}

static void test_password(void **state)
{
        int fd[2];
        char pw[8], err[128];

        (void)state;
        assert_int_equal(pipe(fd), 0);
        assert_int_equal(dp_send_password(fd[1], "secret7", err, sizeof(err)), 0);
        assert_int_equal(write(fd[1], "go\n", 3), 3);
        assert_int_equal(dp_read_password(fd[0], pw, sizeof(pw), err, sizeof(err)), 0);
        assert_string_equal(pw, "secret7");
        /* what follows the password stays in the pipe */
        assert_int_equal(read(fd[0], pw, 3), 3);
        assert_memory_equal(pw, "go\n", 3);
        assert_int_equal(dp_send_password(fd[1], "a\nb", err, sizeof(err)), -EINVAL);
        assert_int_equal(write(fd[1], "12345678\n", 9), 9);
        assert_int_equal(dp_read_password(fd[0], pw, sizeof(pw), err, sizeof(err)), -EINVAL);
        close(fd[1]);
        close(fd[0]);
}

/* A driver over a pipe: ready, the clock asked DP_CLOCK_TRIES times, the go, a result; ops
 * the carrier that asks (ssh, or a guest's bridge answering with the guest's clock). */
static void carrier_line_clock(const struct dp_carrier_ops *ops)
{
        int to[2], from[2];
        char err[256];
        struct dp_carrier *c;
        struct dp_msg m;
        pid_t pid;

        assert_int_equal(pipe(to), 0);
        assert_int_equal(pipe(from), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) { /* the driver: its clock 7 s ahead */
                char e[128];
                struct dp_msg go;
                int rc;

                close(to[1]);
                close(from[0]);
                for (;;) {
                        char line[64];
                        size_t n = 0;

                        while (n < sizeof(line) - 1 && read(to[0], line + n, 1) == 1 &&
                               line[n] != '\n')
                                n++;
                        if (dp_decode(line, n, &go) < 0)
                                _exit(2);
                        if (go.kind == DP_ASK) {
                                struct dp_msg k = {.kind = DP_CLOCK,
                                                   .ns = dp_real_ns() + 7000000000LL};

                                dp_send(from[1], &k, e, sizeof(e));
                                continue;
                        }
                        break;
                }
                rc = go.kind == DP_GO ? 0 : 3;
                {
                        struct dp_msg s = {.kind = DP_STARTED, .ns = go.ns};
                        struct dp_msg r = {
                            .kind = DP_RESULT, .cpu_s = 0.25, .doc = "{}", .doclen = 2};

                        dp_send(from[1], &s, e, sizeof(e));
                        dp_send(from[1], &r, e, sizeof(e));
                }
                _exit(rc);
        }
        close(to[0]);
        close(from[1]);
        c = dp_carrier_new(ops, NULL, to[1], from[0], "h1's driver");
        assert_non_null(c);
        assert_string_equal(dp_carrier_name(c), ops->name);
        assert_int_equal(dp_carrier_measure(c, 5000, err, sizeof(err)), 0);
        assert_true(dp_carrier_clock(c)->known);
        assert_true(dp_carrier_clock(c)->err_ns >= 0);
        /* within a second of 7 s: a figure from the round trip, not from a timing */
        assert_true(dp_carrier_clock(c)->offset_ns > 6000000000LL);
        assert_true(dp_carrier_clock(c)->offset_ns < 8000000000LL);
        m = (struct dp_msg){.kind = DP_GO, .point = 0, .ns = 1000000000000000000LL};
        assert_int_equal(dp_carrier_send(c, &m, err, sizeof(err)), 0);
        for (int got = 0; got < 2;) {
                int rc = dp_carrier_next(c, &m, err, sizeof(err));

                assert_true(rc >= 0);
                if (rc == 0) {
                        assert_true(dp_carrier_out_fd(c) >= 0);
                        usleep(1000);
                        dp_carrier_fill(c);
                        continue;
                }
                if (m.kind == DP_STARTED) {
                        /* the go went out in the driver's clock and came back in ours */
                        assert_true(m.ns != 1000000000000000000LL);
                        assert_int_equal(m.local_ns, 1000000000000000000LL);
                } else {
                        assert_int_equal(m.kind, DP_RESULT);
                        assert_true(m.cpu_s > 0.24 && m.cpu_s < 0.26);
                }
                got++;
        }
        dp_carrier_free(c);
        {
                int st;

                assert_int_equal(waitpid(pid, &st, 0), pid);
                assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
}

static void test_carrier_line_clock(void **state)
{
        (void)state;
        carrier_line_clock(&dp_carrier_ssh);
        assert_string_equal(dp_carrier_ssh.name, "ssh");
}

/* A guest's carrier reads the guest's clock as ssh reads a remote one: one offset path. */
static void test_carrier_guest_clock(void **state)
{
        (void)state;
        carrier_line_clock(&dp_carrier_guest);
        assert_string_equal(dp_carrier_guest.name, "guest");
}

/* A report interval's sample: its buckets survive the line (pooled when they would not fit),
 * an old driver's sample still decodes, and bad bucket text is refused. */
static void test_interval_sample(void **state)
{
        struct hist *h = hist_new(), *back = hist_new(), *wide = hist_new();
        char lat[DP_LINE_MAX - 160], line[DP_LINE_MAX + 2];
        struct dp_msg m = {.kind = DP_SAMPLE, .t_s = 2, .done = 40, .iv_s = 1, .errors = 3}, out;
        int n;

        (void)state;
        for (uint64_t v = 1000000; v < 1010000; v += 500)
                hist_record(h, v);
        n = dp_lat_format(h, lat, sizeof(lat));
        assert_true(n > 0);
        m.lat = lat;
        m.latlen = (size_t)n;
        n = dp_encode(&m, line, sizeof(line));
        assert_true(n > 0);
        assert_int_equal(dp_decode(line, (size_t)n - 1, &out), 0);
        assert_int_equal(out.kind, DP_SAMPLE);
        assert_int_equal(out.done, 40);
        assert_int_equal(out.errors, 3);
        assert_true(out.iv_s == 1);
        assert_int_equal(dp_lat_add(out.lat, out.latlen, back), 0);
        assert_int_equal(hist_count(back), hist_count(h));
        assert_int_equal(hist_bucket_of(hist_percentile(back, 50)),
                         hist_bucket_of(hist_percentile(h, 50)));
        /* thousands of buckets: pooled into the line, the count kept, within 1/64 */
        for (uint64_t v = 300; v < 50000000; v = v * 101 / 100 + 1)
                hist_record(wide, v);
        n = dp_lat_format(wide, lat, sizeof(lat));
        assert_true(n > 0 && (size_t)n < sizeof(lat));
        hist_reset(back);
        assert_int_equal(dp_lat_add(lat, (size_t)n, back), 0);
        assert_int_equal(hist_count(back), hist_count(wide));
        /* an old driver's sample, and bad ones */
        assert_int_equal(dp_decode("hcisweep-driver sample 0.5 7", 28, &out), 0);
        assert_true(out.iv_s == 0 && out.lat == NULL);
        assert_int_equal(dp_lat_add("1:2,", 4, NULL), -EPROTO);
        assert_int_equal(dp_lat_add("1:2:3", 5, NULL), -EPROTO);
        assert_int_equal(dp_lat_add("999999:1", 8, NULL), -ERANGE);
        snprintf(line, sizeof(line), "hcisweep-driver sample 1 2 iv=1 lat=1:1");
        assert_int_equal(dp_decode(line, strlen(line), &out), -EPROTO); /* no err= */
        snprintf(line, sizeof(line), "hcisweep-driver sample 1 2 iv=0 err=0 lat=");
        assert_int_equal(dp_decode(line, strlen(line), &out), -ERANGE);
        hist_free(h);
        hist_free(back);
        hist_free(wide);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_every_line),
            cmocka_unit_test(test_bad_lines),
            cmocka_unit_test(test_reader),
            cmocka_unit_test(test_reader_bound),
            cmocka_unit_test(test_clock),
            cmocka_unit_test(test_password),
            cmocka_unit_test(test_carrier_line_clock),
            cmocka_unit_test(test_carrier_guest_clock),
            cmocka_unit_test(test_interval_sample),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
