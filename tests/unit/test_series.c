/*
 * test_series.c - the series files of a run directory (core/resfile.h): a save moves each
 * series into its NDJSON file and names it from the result; a later save appends only the
 * rows the file lacks (the first bytes stay as they were), a series whose rows changed is
 * written again, a torn last line is cut; a reader gets the rows back as they were, thinned
 * (every k-th, "KEY_every") past its bound; a reference outside the directory is refused.
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
#include <sys/stat.h>
#include <unistd.h>

#include "core/resfile.h"

static char dir[64];

static int setup(void **state)
{
        (void)state;
        snprintf(dir, sizeof(dir), "/tmp/test_series.XXXXXX");
        return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
        char cmd[128];

        (void)state;
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        return system(cmd);
}

/* {"kind":"block","points":[{"iodepth":1,"intervals":[{"t":1,"v":0.5}...n]}],"monitor":{}} */
static json_t *result(size_t n, double v)
{
        json_t *iv = json_array();

        for (size_t i = 0; i < n; i++)
                json_array_append_new(iv, json_pack("{s:I,s:f}", "t", (json_int_t)i + 1, "v", v));
        return json_pack("{s:s,s:[{s:i,s:o}],s:{s:[]}}", "kind", "block", "points", "iodepth", 1,
                         "intervals", iv, "monitor", "samples");
}

static long file_size(const char *name)
{
        char path[128];
        struct stat st;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        return stat(path, &st) ? -1 : (long)st.st_size;
}

static json_t *split(const json_t *r)
{
        char err[256];
        json_t *out = NULL;

        assert_int_equal(res_series_split(dir, r, &out, err, sizeof(err)), 0);
        return out;
}

static void test_split_and_append(void **state)
{
        json_t *r3 = result(3, 0.5), *r5 = result(5, 0.5), *s3, *s5, *ref, *back;
        char err[256];
        long size3;

        (void)state;
        s3 = split(r3);
        ref = json_object_get(json_array_get(json_object_get(s3, "points"), 0), "intervals");
        assert_string_equal(json_string_value(json_object_get(ref, "file")),
                            "points.0.intervals.ndjson");
        assert_int_equal(json_integer_value(json_object_get(ref, "rows")), 3);
        /* an empty series stays inline; what is not a series is shared, not copied */
        assert_true(json_is_array(json_object_get(json_object_get(s3, "monitor"), "samples")));
        assert_ptr_equal(json_object_get(s3, "kind"), json_object_get(r3, "kind"));
        size3 = file_size("points.0.intervals.ndjson");
        s5 = split(r5);
        assert_true(file_size("points.0.intervals.ndjson") > size3);
        /* the reader gets back exactly what was split, and only the rows its result names */
        back = json_deep_copy(s3);
        assert_int_equal(res_series_resolve(back, dir, err, sizeof(err)), 0);
        assert_true(json_equal(back, r3));
        json_decref(back);
        back = json_deep_copy(s5);
        assert_int_equal(res_series_resolve(back, dir, err, sizeof(err)), 0);
        assert_true(json_equal(back, r5));
        json_decref(back);
        json_decref(r3);
        json_decref(r5);
        json_decref(s3);
        json_decref(s5);
}

static void test_changed_rows_rewritten(void **state)
{
        json_t *a = result(4, 0.5), *b = result(4, 0.25), *sa, *sb;
        char err[256];

        (void)state;
        sa = split(a);
        sb = split(b); /* same length, other rows: written again, not appended */
        assert_int_equal(res_series_resolve(sb, dir, err, sizeof(err)), 0);
        assert_true(json_equal(sb, b));
        json_decref(a);
        json_decref(b);
        json_decref(sa);
        json_decref(sb);
}

static void test_torn_tail_cut(void **state)
{
        struct res_series *s;
        char path[128], err[256];
        size_t rows = 0;
        FILE *f;

        (void)state;
        snprintf(path, sizeof(path), "%s/torn.ndjson", dir);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs("{\"t\":1}\n{\"t\":2}\n{\"t\":", f);
        fclose(f);
        assert_int_equal(res_series_open(&s, dir, "torn.ndjson", &rows, err, sizeof(err)), 0);
        assert_int_equal(rows, 2);
        assert_int_equal(res_series_close(s, err, sizeof(err)), 0);
        assert_int_equal(file_size("torn.ndjson"), 16);
}

static void test_thinned_and_refused(void **state)
{
        struct res_series *s;
        char err[256];
        size_t rows, n = 0, i;
        json_t *row = json_pack("{s:s}", "pad", "0123456789012345678901234567890123456789"), *doc;

        (void)state;
        assert_int_equal(res_series_open(&s, dir, "big.ndjson", &rows, err, sizeof(err)), 0);
        for (i = 0; file_size("big.ndjson") < 3 * RES_SERIES_KEEP_BUDGET; i++, n++) {
                assert_int_equal(res_series_add(s, row, err, sizeof(err)), 0);
                if (i % 4096 == 0)
                        fflush(NULL);
        }
        assert_int_equal(res_series_close(s, err, sizeof(err)), 0);
        doc = json_pack("{s:{s:s,s:I}}", "samples", "file", "big.ndjson", "rows", (json_int_t)n);
        assert_int_equal(res_series_resolve(doc, dir, err, sizeof(err)), 0);
        assert_true(json_integer_value(json_object_get(doc, "samples_every")) >= 3);
        assert_true(json_array_size(json_object_get(doc, "samples")) <= n / 3 + 1);
        json_decref(doc);
        doc = json_pack("{s:{s:s,s:i}}", "samples", "file", "../big.ndjson", "rows", 1);
        assert_int_equal(res_series_resolve(doc, dir, err, sizeof(err)), -EINVAL);
        json_decref(doc);
        json_decref(row);
}

/* Arrays without objects are written on one line; strings with brackets and commas are kept. */
static void test_flat_arrays(void **state)
{
        json_t *doc = json_loads("{\"buckets\":[[1924,1],[1930,2]],\"s\":[\"a, [b]\",\"{\\\"q\"],"
                                 "\"o\":[{\"k\":[1,2]}],\"e\":[]}",
                                 0, NULL),
               *back;
        char path[128], err[256], line[256];
        int found = 0;
        FILE *f;

        (void)state;
        assert_non_null(doc);
        snprintf(path, sizeof(path), "%s/r.json", dir);
        assert_int_equal(res_write_json(path, doc, err, sizeof(err)), 0);
        back = json_load_file(path, 0, NULL);
        assert_true(json_equal(doc, back));
        f = fopen(path, "r");
        assert_non_null(f);
        while (fgets(line, sizeof(line), f))
                found |= !strcmp(line, "  \"buckets\": [[1924, 1], [1930, 2]],\n") << 0 |
                         !strcmp(line, "  \"s\": [\"a, [b]\", \"{\\\"q\"],\n") << 1 |
                         !strcmp(line, "      \"k\": [1, 2]\n") << 2;
        fclose(f);
        assert_int_equal(found, 7);
        json_decref(doc);
        json_decref(back);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_split_and_append, setup, teardown),
            cmocka_unit_test_setup_teardown(test_changed_rows_rewritten, setup, teardown),
            cmocka_unit_test_setup_teardown(test_torn_tail_cut, setup, teardown),
            cmocka_unit_test_setup_teardown(test_thinned_and_refused, setup, teardown),
            cmocka_unit_test_setup_teardown(test_flat_arrays, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
