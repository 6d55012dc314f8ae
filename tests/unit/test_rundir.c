/*
 * test_rundir.c - a run directory from a result object: result.json that
 * res_load reads back (and a newer schema it refuses), intervals.csv rows
 * per point per interval, job.ini with [global], the command and one key
 * per set option (lists joined, unset and result-path options left out),
 * a partial run still written whole, and the one name every run directory
 * gets.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/rundir.h"

static char dir[] = "/tmp/test_rundir.XXXXXX";

static char *slurp(const char *name)
{
        char path[256], *buf = calloc(1, 65536);
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "r");
        assert_non_null(f);
        assert_non_null(buf);
        fread(buf, 1, 65535, f);
        fclose(f);
        return buf;
}

static json_t *block_result(void)
{
        json_t *r = json_pack(
            "{s:i,s:s,s:s,s:s,s:{s:s,s:[s,s],s:[i,i],s:i,s:n,s:b,s:s},s:[{s:s,s:i,s:i,s:{s:f,s:f},"
            "s:{s:f,s:f},s:[{s:f,s:f,s:f,s:i},{s:f,s:f,s:f,s:i}]}]}",
            "schema_version", 1, "hcisweep_version", "0.1.0", "kind", "block", "started_at",
            "2026-01-01T00:00:00Z", "config", "engine", "null", "rw", "randread", "randrw",
            "iodepth", 1, 4, "runtime", 1, "target", "force", 0, "json", "/tmp/r.json", "points",
            "rw", "randread", "bs", 4096, "iodepth", 1, "read", "iops", 1000.0, "ios", 1000.0,
            "write", "iops", 0.0, "ios", 0.0, "intervals", "t", 1.0, "read_iops", 900.0,
            "write_iops", 0.0, "reconnects", 0, "t", 2.0, "read_iops", 1100.0, "write_iops", 0.0,
            "reconnects", 0);

        assert_non_null(r);
        return r;
}

static void test_write_and_load(void **state)
{
        json_t *r = block_result(), *back = NULL;
        char path[256], err[256], *csv, *ini;

        (void)state;
        assert_int_equal(res_mark_partial(r, "interrupted by SIGINT"), 0);
        assert_int_equal(res_rundir_write(dir, r, err, sizeof(err)), 0);
        snprintf(path, sizeof(path), "%s/result.json", dir);
        assert_int_equal(res_load(path, &back, err, sizeof(err)), 0);
        assert_true(json_is_true(json_object_get(back, "partial")));
        csv = slurp("intervals.csv");
        assert_string_equal(csv, "rw,bs,iodepth,t_s,read_iops,write_iops,reconnects\n"
                                 "randread,4096,1,1,900,0,0\n"
                                 "randread,4096,1,2,1100,0,0\n");
        ini = slurp("job.ini");
        assert_non_null(strstr(ini, "\n[global]\ncommand = block\nengine = null\n"
                                    "rw = randread,randrw\niodepth = 1,4\nruntime = 1\n"
                                    "force = 0\n; json = /tmp/r.json"));
        assert_null(strstr(ini, "target"));
        assert_non_null(strstr(ini, "\n[rerun]\ncommand = block\n"));
        free(csv);
        free(ini);
        json_decref(back);
        json_decref(r);
}

static void test_load_refuses(void **state)
{
        json_t *r = block_result(), *back = NULL;
        char path[256], err[256];

        (void)state;
        json_object_set_new(r, "schema_version", json_integer(7));
        snprintf(path, sizeof(path), "%s/new.json", dir);
        assert_int_equal(json_dump_file(r, path, 0), 0);
        assert_int_equal(res_load(path, &back, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "schema_version 7 is newer than this hcisweep reads (1)"));
        assert_null(back);
        snprintf(path, sizeof(path), "%s/none.json", dir);
        assert_int_equal(res_load(path, &back, err, sizeof(err)), -ENOENT);
        json_decref(r);
}

/* Every kind of run is named the same way: KIND-YYYYmmdd-HHMMSS-PID below --output-dir. */
static void test_create(void **state)
{
        char out[256], runs[256], err[256], want[128];
        struct stat st;
        regex_t re;

        (void)state;
        snprintf(runs, sizeof(runs), "%s/runs/deeper", dir);
        assert_int_equal(res_rundir_create(runs, "scale", out, sizeof(out), err, sizeof(err)), 0);
        assert_int_equal(stat(out, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        snprintf(want, sizeof(want), "/runs/deeper/scale-[0-9]{8}-[0-9]{6}-%d$", (int)getpid());
        assert_int_equal(regcomp(&re, want, REG_EXTENDED | REG_NOSUB), 0);
        assert_int_equal(regexec(&re, out, 0, NULL, 0), 0);
        regfree(&re);
        snprintf(runs, sizeof(runs), "%s/result.json/x", dir);
        assert_int_equal(res_rundir_create(runs, "oltp", out, sizeof(out), err, sizeof(err)),
                         -ENOTDIR);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_write_and_load),
            cmocka_unit_test(test_load_refuses),
            cmocka_unit_test(test_create),
        };
        char cmd[128];
        int rc;

        if (!mkdtemp(dir))
                return 1;
        rc = cmocka_run_group_tests(tests, NULL, NULL);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        if (system(cmd) != 0)
                return 1;
        return rc;
}
