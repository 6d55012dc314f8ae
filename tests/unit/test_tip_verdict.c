/*
 * test_tip_verdict.c - the verdict (results/tip_verdict.h) built from scale
 * steps as `scale` records them: at most four lines, the figures that
 * decided in them with their values at both steps, the headroom, the
 * untrusted run said on the first line, and the evidence table and JSON
 * holding every figure with the rule it met.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/tip_json.h"
#include "results/tip_verdict.h"

/* A step as a scale result.json holds it: TPS with a +-2% CI, host CPU,
 * the storage service's share, the VM disks' latency and utilisation. */
static void step(char *buf, size_t len, int vms, double tps, double busy, double stor_cpu,
                 double lat, double util)
{
        snprintf(buf, len,
                 "{\"vms\":%d,\"state\":\"ok\",\"totals\":{\"tps\":%g,\"seconds\":20},"
                 "\"steady\":{\"ci_pct\":2,\"met\":true,\"settled\":true},"
                 "\"host_cpu\":{\"busy\":%g,\"steal\":0.5},\"cpu_by_owner\":{\"storage\":%g},"
                 "\"storage\":{\"vm_disks\":[{\"util_pct\":%g,\"iops\":800,\"lat_ms\":%g}]}}",
                 vms, tps, busy, stor_cpu, util, lat);
}

/* The result of five steps (tps[], the third and fourth steps' figures as
 * the run had them), with the monitor's verdict on steal. */
static json_t *result(const double tps[5], int untrusted)
{
        static const double busy[5] = {35, 62, 91, 95, 97}, scpu[5] = {2, 3, 4.0, 4.1, 4.1};
        static const double lat[5] = {0.9, 1.0, 1.22, 3.13, 4.0}, util[5] = {20, 40, 55, 60, 62};
        char steps[5][512], text[4096];
        json_error_t e;
        json_t *r;

        for (int i = 0; i < 5; i++)
                step(steps[i], sizeof(steps[i]), i + 1, tps[i], busy[i], scpu[i], lat[i], util[i]);
        snprintf(
            text, sizeof(text),
            "{\"kind\":\"scale\",\"config\":{\"topology\":\"hci\"},"
            "\"monitor\":{\"summary\":{\"untrusted\":%s,\"reason\":\"%s\",\"steal_max\":34.6}},"
            "\"steps\":[%s,%s,%s,%s,%s]}",
            untrusted ? "true" : "false", untrusted ? "CPU steal reached 34.6% > 20%" : "",
            steps[0], steps[1], steps[2], steps[3], steps[4]);
        r = json_loads(text, 0, &e);
        if (!r)
                fail_msg("bad JSON (%s): %s", e.text, text);
        return r;
}

/* A two-layer cluster's step: compute hosts h1 and h2 at busy1 and busy2 (h1's
 * steal as given), storage host s1 at 30% with its disk at util, TPS with a
 * +-2% CI; no controller figures at all. */
static void cluster_step(char *buf, size_t len, int vms, double tps, double busy1, double busy2,
                         double steal1, double util)
{
        snprintf(buf, len,
                 "{\"vms\":%d,\"state\":\"ok\",\"totals\":{\"tps\":%g,\"seconds\":20},"
                 "\"steady\":{\"ci_pct\":2,\"met\":true,\"settled\":true},"
                 "\"cluster\":{\"hosts\":["
                 "{\"name\":\"h1\",\"role\":\"compute\",\"controller\":false,"
                 "\"cpu\":{\"busy\":%g,\"steal\":%g},\"disks\":[]},"
                 "{\"name\":\"h2\",\"role\":\"compute\",\"controller\":false,"
                 "\"cpu\":{\"busy\":%g,\"steal\":0},\"disks\":[]},"
                 "{\"name\":\"s1\",\"role\":\"storage\",\"controller\":false,"
                 "\"cpu\":{\"busy\":30,\"steal\":0},\"disks\":[{\"name\":\"sdb\","
                 "\"util_pct\":%g,\"iops\":900,\"lat_ms\":1.5}]}]}}",
                 vms, tps, busy1, steal1, busy2, util);
}

static json_t *cluster_result(int swap, double steal1)
{
        static const double tps[3] = {100, 198, 200}, hot[3] = {50, 93, 97}, cold[3] = {30, 50, 52};
        char st[3][1024], text[4096];
        json_error_t e;
        json_t *r;

        for (int i = 0; i < 3; i++)
                cluster_step(st[i], sizeof(st[i]), 1 << i, tps[i], swap ? cold[i] : hot[i],
                             swap ? hot[i] : cold[i], steal1, 40 + i);
        snprintf(text, sizeof(text),
                 "{\"kind\":\"scale\",\"config\":{\"topology\":\"two-layer\"},"
                 "\"monitor\":{\"summary\":{\"untrusted\":false,\"reason\":\"\"}},"
                 "\"steps\":[%s,%s,%s]}",
                 st[0], st[1], st[2]);
        r = json_loads(text, 0, &e);
        if (!r)
                fail_msg("bad JSON (%s): %s", e.text, text);
        return r;
}

static void has_line(const struct res_verdict *v, unsigned i, const char *want)
{
        if (i >= v->nlines || !strstr(v->line[i], want))
                fail_msg("line %u lacks '%s': '%s'", i, want, i < v->nlines ? v->line[i] : "");
}

/* The verdict and its table on the test's output, for the reader of a failure. */
static void show(const struct res_verdict *v)
{
        for (unsigned i = 0; i < v->nlines; i++)
                print_message("%s\n", v->line[i]);
        res_verdict_print_table(v, stdout, 2);
}

static void short_enough(const struct res_verdict *v)
{
        assert_true(v->nlines >= 1);
        assert_true(v->nlines <= 4);
        for (unsigned i = 0; i < v->nlines; i++)
                assert_true(strlen(v->line[i]) < 200);
}

/* 3 -> 4 VMs gains 2% beyond the noise: tips at 3, host CPU saturated, storage starved */
static const double tipped[5] = {100, 195, 280, 285, 286};

/* Compute hosts and storage hosts read apart: the busiest compute host is named,
 * whichever it is, the storage host beside it; a host's steal makes the run untrusted. */
static void test_cluster(void **state)
{
        static const char *const want[2] = {"on h1: 97% busy (h2 52%); storage hosts s1 30% busy",
                                            "on h2: 97% busy (h1 52%); storage hosts s1 30% busy"};
        struct res_verdict v;
        struct res_tip t;
        json_t *r;

        (void)state;
        for (int swap = 0; swap < 2; swap++) {
                r = cluster_result(swap, 0);
                assert_int_equal(res_verdict_of_result(r, &t, &v), 0);
                show(&v);
                assert_true(t.found);
                assert_true(t.load == 2);
                assert_int_equal(t.limited_by, RES_LIM_CPU);
                assert_non_null(strstr(v.line[0], "tips at 2 VMs — limited by cpu"));
                assert_non_null(strstr(v.line[0], want[swap]));
                assert_non_null(strstr(v.line[0], "busiest disk s1/sdb 42%"));
                assert_non_null(strstr(t.reason, want[swap]));
                short_enough(&v);
                json_decref(r);
        }
        r = cluster_result(0, 12);
        assert_int_equal(res_verdict_of_result(r, &t, &v), 0);
        has_line(&v, 0,
                 "two-layer: UNTRUSTED run — the host monitor saw CPU steal 12.0% on h1 at "
                 "1 VMs > 5%");
        json_decref(r);
}

static void test_found(void **state)
{
        json_t *r = result(tipped, 0);
        struct res_verdict v;
        struct res_tip t;

        (void)state;
        assert_int_equal(res_verdict_of_result(r, &t, &v), 0);
        assert_true(t.found);
        assert_true(t.load == 3);
        short_enough(&v);
        show(&v);
        assert_int_equal(
            strncmp(v.line[0], "hci: tips at 3 VMs — ", strlen("hci: tips at 3 VMs — ")), 0);
        has_line(&v, 0, "limited by cpu: compute limiting storage");
        has_line(&v, 1, "host CPU 91% → 95% busy");
        has_line(&v, 1, "storage service CPU 4.0% → 4.1%");
        has_line(&v, 1, "storage latency 1.22 → 3.13 ms");
        has_line(&v, 1, "(3 → 4 VMs)");
        has_line(&v, 2, "TPS 280.0 → 285.0");
        has_line(&v, 2, "below 20% beyond the noise");
        has_line(&v, 2, "at 3 VMs: storage 55% utilised (headroom)");
        json_decref(r);
}

/* The evidence: every figure at both steps, the rule each met, the table's rows. */
static void test_evidence(void **state)
{
        json_t *r = result(tipped, 0), *ev, *x;
        struct res_ev_row rows[RES_VERDICT_EV];
        struct res_verdict v;
        char hk[48], hj[48], text[RES_VERDICT_LINES * (RES_VERDICT_LINE + 1)];
        unsigned n, cpu = 0;
        size_t i;
        int lat_rule = 0;

        (void)state;
        assert_int_equal(res_verdict_of_result(r, NULL, &v), 0);
        ev = res_verdict_evidence_json(&v);
        assert_non_null(ev);
        json_array_foreach(ev, i, x)
        {
                const char *fig = json_string_value(json_object_get(x, "figure"));
                const char *rule = json_string_value(json_object_get(x, "rule"));

                assert_non_null(fig);
                assert_non_null(rule);
                assert_true(json_is_number(json_object_get(x, "at")));
                assert_true(json_is_number(json_object_get(x, "value")));
                assert_non_null(json_string_value(json_object_get(x, "unit")));
                if (!strcmp(fig, "host CPU busy")) {
                        cpu++;
                        if (json_number_value(json_object_get(x, "at")) == 4) {
                                assert_true(json_number_value(json_object_get(x, "value")) == 95);
                                assert_string_equal(rule, "≥ 90%: saturated");
                        }
                }
                if (!strcmp(fig, "storage latency") && strstr(rule, "more than doubled"))
                        lat_rule = 1;
        }
        assert_int_equal(cpu, 2);
        assert_true(lat_rule);
        n = res_verdict_rows(&v, rows, RES_VERDICT_EV, hk, hj);
        assert_string_equal(hk, "at 3 VMs");
        assert_string_equal(hj, "at 4 VMs");
        assert_true(n >= 6);
        for (unsigned k = 0; k < n; k++)
                if (!strcmp(rows[k].figure, "storage utilisation")) {
                        assert_string_equal(rows[k].k, "55%");
                        assert_string_equal(rows[k].j, "60%");
                }
        /* the JSON's verdict is the text the terminal prints */
        x = json_object();
        assert_int_equal(res_verdict_attach(x, &v), 0);
        res_verdict_text(&v, text, sizeof(text));
        assert_string_equal(json_string_value(json_object_get(x, "verdict")), text);
        assert_int_equal(json_array_size(json_object_get(x, "evidence")), v.nev);
        assert_non_null(strchr(text, '\n'));
        json_decref(x);
        json_decref(ev);
        json_decref(r);
}

/* An untrusted run says so first, and the answer still fits in four lines. */
static void test_untrusted(void **state)
{
        json_t *r = result(tipped, 1);
        struct res_verdict v;

        (void)state;
        assert_int_equal(res_verdict_of_result(r, NULL, &v), 0);
        short_enough(&v);
        show(&v);
        assert_int_equal(strncmp(v.line[0], "hci: UNTRUSTED", 14), 0);
        has_line(&v, 0, "CPU steal reached 34.6%");
        has_line(&v, 1, "tips at 3 VMs");
        has_line(&v, 2, "host CPU 91% → 95% busy");
        json_decref(r);
}

/* Between: 3 -> 4 within the noise, 3 -> 5 below the threshold beyond it. */
static void test_between(void **state)
{
        static const double tps[5] = {100, 195, 280, 296, 298};
        json_t *r = result(tps, 0);
        struct res_verdict v;
        struct res_tip t;

        (void)state;
        assert_int_equal(res_verdict_of_result(r, &t, &v), 0);
        assert_true(t.found);
        show(&v);
        short_enough(&v);
        has_line(&v, 0, "hci: tips at 3 VMs (3–4) — limited by");
        json_decref(r);
}

/* Still scaling, and undecided: what it means and what to do, in as few lines. */
static void test_not_found(void **state)
{
        static const double up[5] = {100, 200, 300, 400, 500}, noisy[5] = {100, 200, 300, 340, 350};
        json_t *r = result(up, 0), *q;
        struct res_verdict v;
        struct res_tip t;

        (void)state;
        assert_int_equal(res_verdict_of_result(r, &t, &v), 0);
        assert_false(t.found);
        show(&v);
        short_enough(&v);
        has_line(&v, 0, "hci: no tipping point up to 5 VMs — still scaling");
        has_line(&v, v.nlines - 1, "left at 5 VMs: storage 62% utilised (headroom)");
        json_decref(r);
        /* +-10% bands: 3 -> 4 -> 5 never decided */
        r = result(noisy, 0);
        for (size_t i = 0; i < json_array_size(json_object_get(r, "steps")); i++) {
                q = json_object_get(json_array_get(json_object_get(r, "steps"), i), "steady");
                json_object_set_new(q, "ci_pct", json_real(10));
        }
        assert_int_equal(res_verdict_of_result(r, &t, &v), 0);
        assert_true(t.undecided);
        show(&v);
        short_enough(&v);
        has_line(&v, 0, "hci: undecided — from");
        has_line(&v, 1, "--repeat");
        json_decref(r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_found),     cmocka_unit_test(test_evidence),
            cmocka_unit_test(test_untrusted), cmocka_unit_test(test_between),
            cmocka_unit_test(test_not_found), cmocka_unit_test(test_cluster),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
