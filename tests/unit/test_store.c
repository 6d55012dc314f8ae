/*
 * test_store.c - the run index API: register a result written with
 * res_new()/res_write_json() into the index named by HCISWEEP_INDEX, list
 * and find it, keep its id when added again, refuse newer schema versions
 * and non-run kinds.
 *
 * Each test works in its own mkdtemp() directory and removes it at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/resfile.h"
#include "results/store.h"

struct fixture {
        char dir[64];
        char path[128];
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)flag;
        (void)ftw;
        return remove(path);
}

static int setup(void **state)
{
        struct fixture *f = calloc(1, sizeof(*f));

        if (!f)
                return -1;
        snprintf(f->dir, sizeof(f->dir), "/tmp/hcisweep-test_store.XXXXXX");
        if (!mkdtemp(f->dir)) {
                free(f);
                return -1;
        }
        snprintf(f->path, sizeof(f->path), "%s/sub/index.sqlite", f->dir);
        setenv("HCISWEEP_INDEX", f->path, 1);
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *f = *state;

        nftw(f->dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
        unsetenv("HCISWEEP_INDEX");
        free(f);
        return 0;
}

/* A block result with two points; the second is the peak. */
static void write_block(const char *path, int schema)
{
        json_t *r = res_new("block", NULL);
        json_t *pts = json_pack("[{s:s,s:i,s:i,s:{s:i,s:f,s:{s:{s:i}}},s:{s:i,s:f}},"
                                "{s:s,s:i,s:i,s:{s:i,s:f,s:{s:{s:i}}},s:{s:i,s:f}}]",
                                "rw", "randread", "bs", 4096, "iodepth", 1, "read", "ios", 100,
                                "iops", 1000.0, "lat_ns", "percentile", "99.0", 2000000, "write",
                                "ios", 0, "iops", 0.0, "rw", "randread", "bs", 4096, "iodepth", 16,
                                "read", "ios", 100, "iops", 12345.0, "lat_ns", "percentile", "99.0",
                                4500000, "write", "ios", 0, "iops", 0.0);
        char err[256];

        assert_non_null(r);
        assert_non_null(pts);
        json_object_set_new(r, "points", pts);
        json_object_set_new(r, "schema_version", json_integer(schema));
        assert_int_equal(res_write_json(path, r, err, sizeof(err)), 0);
        json_decref(r);
}

static void test_register_list_find(void **state)
{
        struct fixture *f = *state;
        struct res_index *ix;
        struct res_run *runs, one;
        unsigned n;
        char res[160], err[256] = "", idbuf[32];

        snprintf(res, sizeof(res), "%s/result.json", f->dir);
        write_block(res, RES_SCHEMA_VERSION);
        assert_int_equal(res_index_register(res, err, sizeof(err)), 0);
        assert_int_equal(res_index_register(res, err, sizeof(err)), 0); /* refresh, same row */
        assert_int_equal(res_index_open(NULL, &ix, err, sizeof(err)), 0);
        assert_int_equal(res_index_list(ix, "block", NULL, &runs, &n, err, sizeof(err)), 0);
        assert_int_equal(n, 1);
        assert_string_equal(runs[0].headline, "randread 4k: peak 12.3k IOPS @ QD 16");
        assert_true(fabs(runs[0].tps_or_iops - 12345) < 1e-9);
        assert_true(fabs(runs[0].p99_ms - 4.5) < 1e-9);
        assert_string_equal(runs[0].path, res);
        assert_string_equal(runs[0].topology, "");
        snprintf(idbuf, sizeof(idbuf), "%lld", runs[0].id);
        free(runs);
        assert_int_equal(res_index_list(ix, "oltp", NULL, &runs, &n, err, sizeof(err)), 0);
        assert_int_equal(n, 0);
        assert_null(runs);
        assert_int_equal(res_index_find(ix, idbuf, &one, err, sizeof(err)), 0);
        assert_string_equal(one.path, res);
        assert_int_equal(res_index_find(ix, res, &one, err, sizeof(err)), 0);
        assert_string_equal(one.kind, "block");
        assert_int_equal(res_index_find(ix, "4242", &one, err, sizeof(err)), -ENOENT);
        res_index_close(ix);
}

static void test_refusals(void **state)
{
        struct fixture *f = *state;
        char res[160], err[256] = "";
        FILE *fp;

        snprintf(res, sizeof(res), "%s/new.json", f->dir);
        write_block(res, RES_SCHEMA_VERSION + 1);
        assert_int_equal(res_index_register(res, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "is newer than this hcisweep reads"));
        snprintf(res, sizeof(res), "%s/analysis.json", f->dir);
        fp = fopen(res, "w");
        assert_non_null(fp);
        fprintf(fp, "{\"schema_version\": 1, \"kind\": \"analyze\"}\n");
        fclose(fp);
        assert_int_equal(res_index_register(res, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "kind 'analyze' is not a run"));
        snprintf(res, sizeof(res), "%s/none.json", f->dir);
        assert_int_equal(res_index_register(res, err, sizeof(err)), -ENOENT);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_register_list_find, setup, teardown),
            cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
