/*
 * test_opts.c - one options table driving argv parsing, opt_set (the INI
 * path), validation messages, --help, the JSON echo and INI round trips.
 * The table mixes every option type over two groups, the way a command
 * combines its own options with a shared module's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/opts.h"

struct blk_cfg {
        struct u64_list iodepth, bs, rw, percentile;
        long long numjobs, rwmixread, ramp_time;
        uint64_t size;
        int engine, force, precondition, debug_slow;
        double rate;
        char *json;
};

struct conn_cfg {
        char *user, *password, *output_dir;
        long long numjobs; /* also in blk: the first group owns the name */
};

static const char *const engines[] = {"libiscsi", "io_uring", "psync", "null", NULL};
static const char *const rws[] = {"randread", "randwrite", "randrw", "read", "write", NULL};

#define B(f) offsetof(struct blk_cfg, f)
static const struct opt_def blk_defs[] = {
    {"iodepth", OPT_LIST, B(iodepth), "1", 1, 1024, "queue depths", NULL, 0},
    {"numjobs", OPT_INT, B(numjobs), "1", 1, 256, "threads", NULL, 0},
    {"bs", OPT_SIZELIST, B(bs), "4k", 512, 16 << 20, "block sizes", NULL, 0},
    {"size", OPT_SIZE, B(size), "1g", 0, 0, "bytes per job", NULL, 0},
    {"rw", OPT_ENUMLIST, B(rw), "randread", 0, 0, "patterns", rws, 0},
    {"engine", OPT_ENUM, B(engine), "null", 0, 0, "I/O engine", engines, 0},
    {"force", OPT_BOOL, B(force), NULL, 0, 0, "overwrite", NULL, 0},
    {"precondition", OPT_BOOL, B(precondition), "1", 0, 0, "fill first", NULL, 0},
    {"rwmixread", OPT_INT, B(rwmixread), "70", 0, 100, "read percentage", NULL, 0},
    {"ramp-time", OPT_INT, B(ramp_time), "0", 0, 0, "seconds not counted", NULL, 0},
    {"percentile", OPT_DLIST, B(percentile), "50,99,99.9", 0, 100, "percentiles", NULL, 0},
    {"rate", OPT_DOUBLE, B(rate), "0", 0, 0, "IOPS cap", NULL, 0},
    {"json", OPT_STR, B(json), NULL, 0, 0, "result file", NULL, 0},
    {"debug-slow", OPT_BOOL, B(debug_slow), NULL, 0, 0, "slow path", NULL, OPT_F_HIDDEN},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};

#define C(f) offsetof(struct conn_cfg, f)
static const struct opt_def conn_defs[] = {
    {"mysql-user", OPT_STR, C(user), "root", 0, 0, "user name", NULL, 0},
    {"mysql-password", OPT_STR, C(password), NULL, 0, 0, "password", NULL, OPT_F_SECRET},
    {"output-dir", OPT_STR, C(output_dir), "results", 0, 0, "where runs go", NULL, 0},
    {"numjobs", OPT_INT, C(numjobs), "9", 0, 0, "shadowed", NULL, 0},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};

struct fixture {
        struct blk_cfg blk;
        struct conn_cfg conn;
        struct opt_group g[3];
        char err[256];
};

static int setup(void **state)
{
        struct fixture *f = calloc(1, sizeof(*f));

        assert_non_null(f);
        f->g[0] = (struct opt_group){blk_defs, &f->blk, "block options"};
        f->g[1] = (struct opt_group){conn_defs, &f->conn, "connection"};
        assert_int_equal(opt_defaults(f->g, f->err, sizeof(f->err)), 0);
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *f = *state;

        opt_free(f->g);
        free(f);
        return 0;
}

static int set(struct fixture *f, const char *name, const char *val)
{
        f->err[0] = '\0';
        return opt_set(f->g, name, val, f->err, sizeof(f->err));
}

static void test_defaults(void **state)
{
        struct fixture *f = *state;

        assert_int_equal(f->blk.iodepth.n, 1);
        assert_int_equal(f->blk.iodepth.v[0], 1);
        assert_int_equal(f->blk.bs.v[0], 4096);
        assert_int_equal(f->blk.size, UINT64_C(1) << 30);
        assert_int_equal(f->blk.engine, 3);
        assert_int_equal(f->blk.rw.n, 1);
        assert_int_equal(f->blk.rw.v[0], 0);
        assert_int_equal(f->blk.force, 0);
        assert_int_equal(f->blk.precondition, 1);
        assert_int_equal(f->blk.percentile.n, 3);
        assert_true(opt_dlist_get(&f->blk.percentile, 2) == 99.9);
        assert_null(f->blk.json);
        assert_string_equal(f->conn.user, "root");
        assert_null(f->conn.password);
        assert_int_equal(f->conn.numjobs, 9); /* each field gets its own module's default */
}

static void test_argv(void **state)
{
        struct fixture *f = *state;
        char *argv[] = {"--iodepth", "1-8",  "--bs=4k,64k", "target1", "--force",
                        "--rate",    "-2.5", "--",          "--notopt"};
        char *pos[4];
        int npos = -1, help = -1;

        assert_int_equal(
            opt_parse_argv(f->g, 9, argv, pos, 4, &npos, &help, f->err, sizeof(f->err)), 0);
        assert_int_equal(help, 0);
        assert_int_equal(npos, 2);
        assert_string_equal(pos[0], "target1");
        assert_string_equal(pos[1], "--notopt");
        assert_int_equal(f->blk.iodepth.n, 4);
        assert_int_equal(f->blk.iodepth.v[3], 8);
        assert_int_equal(f->blk.bs.n, 2);
        assert_int_equal(f->blk.bs.v[1], 65536);
        assert_int_equal(f->blk.force, 1);
        assert_true(f->blk.rate == -2.5);
}

static void test_argv_bools(void **state)
{
        struct fixture *f = *state;
        char *argv[] = {"--no-precondition", "--force=no", "--debug-slow", "--mysql-user=bob"};
        char *bad[] = {"--force=maybe"};
        int npos, help;

        f->blk.force = 1;
        assert_int_equal(
            opt_parse_argv(f->g, 4, argv, NULL, 0, &npos, &help, f->err, sizeof(f->err)), 0);
        assert_int_equal(f->blk.precondition, 0);
        assert_int_equal(f->blk.force, 0);
        assert_int_equal(f->blk.debug_slow, 1);
        assert_string_equal(f->conn.user, "bob");
        assert_int_equal(
            opt_parse_argv(f->g, 1, bad, NULL, 0, &npos, &help, f->err, sizeof(f->err)), -EINVAL);
        assert_string_equal(f->err, "option --force: 'maybe' is not a boolean (use 1/0, "
                                    "true/false, yes/no)");

        /* fio's "--direct 1": a bool word after a flag is its value, anything else is not. */
        char *spaced[] = {"--force", "1", "--precondition", "no", "--debug-slow", "file"};
        char *pos[2];
        f->blk.precondition = 1;
        assert_int_equal(
            opt_parse_argv(f->g, 6, spaced, pos, 2, &npos, &help, f->err, sizeof(f->err)), 0);
        assert_int_equal(f->blk.force, 1);
        assert_int_equal(f->blk.precondition, 0);
        assert_int_equal(f->blk.debug_slow, 1);
        assert_int_equal(npos, 1);
        assert_string_equal(pos[0], "file");
}

static void expect_argv_err(struct fixture *f, int argc, char **argv, const char *msg)
{
        char *pos[1];
        int npos, help;

        assert_int_equal(
            opt_parse_argv(f->g, argc, argv, pos, 1, &npos, &help, f->err, sizeof(f->err)),
            -EINVAL);
        assert_string_equal(f->err, msg);
}

static void test_argv_errors(void **state)
{
        struct fixture *f = *state;
        char *missing[] = {"--numjobs"};
        char *eaten[] = {"--json", "--force"};
        char *extra[] = {"a", "b"};
        char *typo[] = {"--iodpth", "4"};
        char *single[] = {"-x"};
        char *help_argv[] = {"--numjobs", "3", "-h", "--bogus"};
        char *pos[1];
        int npos, help;

        expect_argv_err(f, 1, missing, "option --numjobs needs a value");
        expect_argv_err(f, 2, eaten, "option --json needs a value");
        expect_argv_err(f, 2, extra, "unexpected argument 'b': at most 1 allowed");
        expect_argv_err(f, 2, typo, "unknown option --iodpth (did you mean --iodepth?)");
        expect_argv_err(f, 1, single, "unknown option -x");

        /* -h stops at once: later words are not looked at. */
        assert_int_equal(
            opt_parse_argv(f->g, 4, help_argv, pos, 1, &npos, &help, f->err, sizeof(f->err)), 0);
        assert_int_equal(help, 1);
        assert_int_equal(f->blk.numjobs, 3);
}

static void test_did_you_mean(void **state)
{
        struct fixture *f = *state;

        assert_int_equal(set(f, "iodpth", "4"), -EINVAL);
        assert_string_equal(f->err, "unknown option --iodpth (did you mean --iodepth?)");
        /* Suggestions come from every group. */
        assert_int_equal(set(f, "mysql-usr", "x"), -EINVAL);
        assert_string_equal(f->err, "unknown option --mysql-usr (did you mean --mysql-user?)");
        assert_int_equal(set(f, "output_dri", "x"), -EINVAL);
        assert_string_equal(f->err, "unknown option --output_dri (did you mean --output-dir?)");
        assert_int_equal(set(f, "zzzzzz", "1"), -EINVAL);
        assert_string_equal(f->err, "unknown option --zzzzzz");
}

static void test_underscore_names(void **state)
{
        struct fixture *f = *state;

        assert_int_equal(set(f, "ramp_time", "5"), 0);
        assert_int_equal(f->blk.ramp_time, 5);
        assert_int_equal(set(f, "mysql_user", "ann"), 0);
        assert_string_equal(f->conn.user, "ann");
        assert_int_equal(set(f, "--ramp-time", "6"), 0);
        assert_int_equal(f->blk.ramp_time, 6);
        /* A name in two groups sets both; a value one of them rejects sets neither. */
        assert_int_equal(set(f, "numjobs", "7"), 0);
        assert_int_equal(f->blk.numjobs, 7);
        assert_int_equal(f->conn.numjobs, 7);
        assert_int_equal(set(f, "numjobs", "300"), -EINVAL);
        assert_string_equal(f->err, "option --numjobs: 300 is above the maximum 256");
        assert_int_equal(f->conn.numjobs, 7);
}

static void expect_set_err(struct fixture *f, const char *name, const char *val, const char *msg)
{
        assert_int_not_equal(set(f, name, val), 0);
        assert_string_equal(f->err, msg);
}

static void test_bounds(void **state)
{
        struct fixture *f = *state;

        expect_set_err(f, "iodepth", "0", "option --iodepth: 0 is below the minimum 1");
        expect_set_err(f, "iodepth", "1,2,2000",
                       "option --iodepth: 2000 is above the maximum 1024");
        expect_set_err(f, "iodepth", "1-2048", "option --iodepth: 2048 is above the maximum 1024");
        expect_set_err(f, "numjobs", "0", "option --numjobs: 0 is below the minimum 1");
        expect_set_err(f, "numjobs", "257", "option --numjobs: 257 is above the maximum 256");
        expect_set_err(f, "rwmixread", "-1", "option --rwmixread: -1 is below the minimum 0");
        expect_set_err(f, "bs", "256", "option --bs: 256 is below the minimum 512");
        expect_set_err(f, "bs", "4k,32m", "option --bs: 32m is above the maximum 16m");
        expect_set_err(f, "percentile", "50,100.5",
                       "option --percentile: 100.5 is above the maximum 100");
        expect_set_err(f, "size", "4x", "option --size: '4x' is not a size");
        expect_set_err(f, "numjobs", "two", "option --numjobs: 'two' is not a number");
        expect_set_err(f, "iodepth", "1-100000:1", "option --iodepth: list has more than 64 items");
        expect_set_err(f, "numjobs", NULL, "option --numjobs needs a value");
        /* Rejected values leave the config as it was. */
        assert_int_equal(f->blk.iodepth.n, 1);
        assert_int_equal(f->blk.iodepth.v[0], 1);
        assert_int_equal(f->blk.numjobs, 1);
        assert_int_equal(f->blk.bs.n, 1);
        assert_int_equal(f->blk.percentile.n, 3);
        /* Edges are inclusive; no bounds when min == max. */
        assert_int_equal(set(f, "numjobs", "256"), 0);
        assert_int_equal(set(f, "iodepth", "1,1024"), 0);
        assert_int_equal(set(f, "bs", "512,16m"), 0);
        assert_int_equal(set(f, "ramp-time", "-100"), 0);
        assert_int_equal(set(f, "size", "8388607t"), 0);
        /* Overflow is a bad value like any other: -EINVAL, as opts.h promises. */
        assert_int_equal(set(f, "size", "8388608t"), -EINVAL);
        assert_string_equal(f->err, "option --size: '8388608t' is too large");
}

static void test_enums(void **state)
{
        struct fixture *f = *state;

        assert_int_equal(set(f, "engine", "psync"), 0);
        assert_int_equal(f->blk.engine, 2);
        expect_set_err(f, "engine", "foo",
                       "option --engine: 'foo' is not one of: libiscsi, io_uring, psync, null");
        assert_int_equal(f->blk.engine, 2);
        assert_int_equal(set(f, "rw", "randwrite, read"), 0);
        assert_int_equal(f->blk.rw.n, 2);
        assert_int_equal(f->blk.rw.v[0], 1);
        assert_int_equal(f->blk.rw.v[1], 3);
        expect_set_err(f, "rw", "randread,bogus",
                       "option --rw: 'bogus' is not one of: randread, randwrite, randrw, read, "
                       "write");
        expect_set_err(f, "rw", "randread,,read", "option --rw: bad item in list 'randread,,read'");
        assert_int_equal(f->blk.rw.n, 2);
}

static void test_strings(void **state)
{
        struct fixture *f = *state;

        /* Setting twice frees the first copy (the leak checker sees it otherwise). */
        assert_int_equal(set(f, "json", "a.json"), 0);
        assert_int_equal(set(f, "json", "b.json"), 0);
        assert_string_equal(f->blk.json, "b.json");
        assert_int_equal(set(f, "json", ""), 0);
        assert_null(f->blk.json);
        assert_int_equal(set(f, "mysql-password", "s3cret"), 0);
        assert_string_equal(f->conn.password, "s3cret");
}

/* An empty value never replaces a default: refused, naming the option; without a default it
 * unsets. */
static void test_empty_values(void **state)
{
        struct fixture *f = *state;

        assert_int_equal(set(f, "mysql-user", ""), -EINVAL);
        assert_string_equal(f->err,
                            "option --mysql-user: empty value (leave the option out for its "
                            "default, root)");
        assert_string_equal(f->conn.user, "root");
        assert_int_equal(set(f, "output-dir", " \t"), -EINVAL);
        assert_string_equal(f->conn.output_dir, "results");
        assert_int_equal(set(f, "percentile", ""), -EINVAL);
        assert_int_equal(f->blk.percentile.n, 3);
        assert_int_equal(set(f, "percentile", "\n\v\f "), -EINVAL); /* blank, not an empty list */
        assert_int_equal(f->blk.percentile.n, 3);
        assert_int_equal(set(f, "iodepth", " "), -EINVAL);
        assert_int_equal(set(f, "rw", ""), -EINVAL);
        assert_int_equal(set(f, "bs", ""), -EINVAL);
        assert_int_equal(set(f, "engine", ""), -EINVAL);
        assert_int_equal(set(f, "numjobs", ""), -EINVAL);
        assert_int_equal(set(f, "rate", ""), -EINVAL);
        assert_int_equal(set(f, "json", ""), 0);
        assert_null(f->blk.json);
        assert_int_equal(set(f, "mysql-password", ""), 0);
        assert_null(f->conn.password);
        /* A flag without a default still wants a boolean. */
        assert_int_equal(set(f, "force", ""), -EINVAL);
}

/* OPT_F_LIST strings: an empty item is a typing mistake, reported by position. */
static void test_list_items(void **state)
{
        struct list_cfg {
                char *hosts;
        } c = {0};
        static const struct opt_def defs[] = {
            {"hosts", OPT_STR, 0, "a", 0, 0, "servers", NULL, OPT_F_LIST},
            {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
        };
        struct opt_group g[2] = {{defs, &c, NULL}, {NULL, NULL, NULL}};
        char err[200];

        (void)state;
        assert_int_equal(opt_defaults(g, err, sizeof(err)), 0);
        assert_int_equal(opt_set(g, "hosts", "x,y, z", err, sizeof(err)), 0);
        assert_string_equal(c.hosts, "x,y, z");
        assert_int_equal(opt_set(g, "hosts", "x,,y", err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "option --hosts: item 2 of the list is empty");
        assert_int_equal(opt_set(g, "hosts", "x,", err, sizeof(err)), -EINVAL);
        assert_int_equal(opt_set(g, "hosts", ",x", err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "option --hosts: item 1 of the list is empty");
        assert_int_equal(opt_set(g, "hosts", "x, ,y", err, sizeof(err)), -EINVAL);
        assert_string_equal(c.hosts, "x,y, z");
        opt_free(g);
}

static void test_json(void **state)
{
        struct fixture *f = *state;
        json_t *o, *v;

        assert_int_equal(set(f, "mysql-password", "s3cret"), 0);
        assert_int_equal(set(f, "iodepth", "1-4"), 0);
        assert_int_equal(set(f, "rw", "randread,write"), 0);
        o = opt_to_json(f->g);
        assert_non_null(o);

        assert_true(json_is_integer(json_object_get(o, "numjobs")));
        assert_int_equal(json_integer_value(json_object_get(o, "numjobs")), 1);
        assert_true(json_is_integer(json_object_get(o, "size")));
        assert_int_equal(json_integer_value(json_object_get(o, "size")), 1 << 30);
        assert_true(json_is_false(json_object_get(o, "force")));
        assert_true(json_is_true(json_object_get(o, "precondition")));
        assert_true(json_is_real(json_object_get(o, "rate")));
        assert_true(json_is_null(json_object_get(o, "json")));
        assert_string_equal(json_string_value(json_object_get(o, "engine")), "null");
        assert_string_equal(json_string_value(json_object_get(o, "mysql-user")), "root");

        v = json_object_get(o, "iodepth");
        assert_true(json_is_array(v));
        assert_int_equal(json_array_size(v), 3);
        assert_int_equal(json_integer_value(json_array_get(v, 2)), 4);
        v = json_object_get(o, "bs");
        assert_int_equal(json_integer_value(json_array_get(v, 0)), 4096);
        v = json_object_get(o, "rw");
        assert_string_equal(json_string_value(json_array_get(v, 1)), "write");
        v = json_object_get(o, "percentile");
        assert_true(json_is_real(json_array_get(v, 2)));
        assert_true(json_real_value(json_array_get(v, 2)) == 99.9);

        /* Secrets never leave; hidden options are still part of the config. */
        assert_null(json_object_get(o, "mysql-password"));
        assert_true(json_is_false(json_object_get(o, "debug-slow")));
        assert_int_equal(json_object_size(o), 14 + 2);
        json_decref(o);
}

static char *ini_text(struct fixture *f)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);

        assert_non_null(m);
        assert_int_equal(opt_to_ini(m, f->g), 0);
        assert_int_equal(fclose(m), 0);
        return buf;
}

/* Apply "name = value" lines through opt_set, the way a job file's keys arrive. */
static void apply_ini_lines(struct fixture *f, char *text)
{
        char *line, *save = NULL, *eq;

        for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                eq = strstr(line, " = ");
                assert_non_null(eq);
                *eq = '\0';
                assert_int_equal(set(f, line, eq + 3), 0);
        }
}

static void test_ini_round_trip(void **state)
{
        struct fixture *f = *state;
        struct fixture *g;
        json_t *a, *b;
        char *text;

        assert_int_equal(set(f, "iodepth", "1-64"), 0);
        assert_int_equal(set(f, "bs", "512,4k,1536,1m"), 0);
        assert_int_equal(set(f, "rw", "randrw,write"), 0);
        assert_int_equal(set(f, "engine", "io_uring"), 0);
        assert_int_equal(set(f, "force", "1"), 0);
        assert_int_equal(set(f, "precondition", "0"), 0);
        assert_int_equal(set(f, "percentile", "0.1,99.99,100"), 0);
        assert_int_equal(set(f, "rate", "0.1"), 0);
        assert_int_equal(set(f, "size", "3000"), 0);
        assert_int_equal(set(f, "ramp-time", "-3"), 0);
        assert_int_equal(set(f, "json", "out dir/r.json"), 0);
        assert_int_equal(set(f, "mysql-user", "u"), 0);
        assert_int_equal(set(f, "mysql-password", "s3cret"), 0);

        text = ini_text(f);
        assert_null(strstr(text, "s3cret"));
        assert_null(strstr(text, "mysql-password"));
        assert_non_null(strstr(text, "bs = 512,4096,1536,1048576\n"));
        assert_non_null(strstr(text, "force = 1\n"));
        assert_non_null(strstr(text, "precondition = 0\n"));
        assert_non_null(strstr(text, "rate = 0.1\n"));

        assert_int_equal(setup((void **)&g), 0);
        apply_ini_lines(g, text);
        a = opt_to_json(f->g);
        b = opt_to_json(g->g);
        assert_true(json_equal(a, b));
        assert_true(opt_dlist_get(&g->blk.percentile, 1) == 99.99);
        json_decref(a);
        json_decref(b);
        free(text);
        teardown((void **)&g);
}

struct ini_seen {
        struct fixture *f;
        int n, stop_at;
        char keys[16][64];
        int lines[16];
};

static int ini_apply(void *user, const char *section, const char *key, const char *val, int line)
{
        struct ini_seen *s = user;

        assert_true(s->n < 16);
        snprintf(s->keys[s->n], sizeof(s->keys[0]), "%s/%s", section, key);
        s->lines[s->n++] = line;
        if (s->n == s->stop_at)
                return -E2BIG;
        return set(s->f, key, val);
}

static char *write_temp(const char *text)
{
        char *path = strdup("/tmp/test_opts.XXXXXX");
        int fd;

        assert_non_null(path);
        fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
        return path;
}

static void test_read_ini(void **state)
{
        struct fixture *f = *state;
        struct ini_seen s = {.f = f};
        char *path = write_temp("; job file\n"
                                "[global]\n"
                                "iodepth = 1-4\n"
                                "ramp_time=3 ; inline comment\n"
                                "\n"
                                "[job1]\n"
                                "bs = 4k,8k\n");

        assert_int_equal(opt_read_ini(path, ini_apply, &s, f->err, sizeof(f->err)), 0);
        assert_int_equal(s.n, 3);
        assert_string_equal(s.keys[0], "global/iodepth");
        assert_int_equal(s.lines[0], 3);
        assert_string_equal(s.keys[1], "global/ramp_time");
        assert_int_equal(s.lines[1], 4);
        assert_string_equal(s.keys[2], "job1/bs");
        assert_int_equal(s.lines[2], 7);
        assert_int_equal(f->blk.iodepth.n, 3);
        assert_int_equal(f->blk.ramp_time, 3);
        assert_int_equal(f->blk.bs.v[1], 8192);
        unlink(path);
        free(path);
}

/* A continuation line's inline comment is cut as a key line's is (inih 55
 * keeps it), so the value's INI echo reads back the same. */
static void test_read_ini_continuation(void **state)
{
        struct fixture *f = *state;
        struct ini_seen s = {.f = f};
        char *path = write_temp("[job]\n"
                                "json = a.json\n"
                                "   b.json   ;\x1d comment\n"
                                "numjobs = 2\n"
                                "  ; a comment line, not a continuation\n");

        assert_int_equal(opt_read_ini(path, ini_apply, &s, f->err, sizeof(f->err)), 0);
        assert_int_equal(s.n, 3);
        assert_string_equal(s.keys[1], "job/json");
        assert_int_equal(s.lines[1], 3);
        assert_string_equal(f->blk.json, "b.json");
        assert_int_equal(f->blk.numjobs, 2);
        unlink(path);
        free(path);
}

static void test_read_ini_errors(void **state)
{
        struct fixture *f = *state;
        struct ini_seen s = {.f = f};
        char want[300];
        char *path = write_temp("[global]\n"
                                "numjobs = 2\n"
                                "\n"
                                "this line has no equals sign\n"
                                "rwmixread = 10\n");

        assert_int_equal(opt_read_ini(path, ini_apply, &s, f->err, sizeof(f->err)), -EINVAL);
        snprintf(want, sizeof(want), "%s:4: syntax error (expected [section] or key = value)",
                 path);
        assert_string_equal(f->err, want);

        /* A callback error stops the read and comes back as it is. */
        memset(&s, 0, sizeof(s));
        s.f = f;
        s.stop_at = 1;
        unlink(path);
        free(path);
        path = write_temp("a = 1\nb = 2\n");
        assert_int_equal(opt_read_ini(path, ini_apply, &s, f->err, sizeof(f->err)), -E2BIG);
        assert_int_equal(s.n, 1);
        unlink(path);

        /* What inih would silently merge or cut: a section named twice, a NUL byte. */
        unlink(path);
        free(path);
        memset(&s, 0, sizeof(s));
        s.f = f;
        path = write_temp("[a]\nnumjobs = 2\n[b]\nnumjobs = 3\n[a]\nnumjobs = 4\n");
        assert_int_equal(opt_read_ini(path, ini_apply, &s, f->err, sizeof(f->err)), -EINVAL);
        snprintf(want, sizeof(want), "%s:5: section named twice", path);
        assert_string_equal(f->err, want);
        unlink(path);
        free(path);
        path = write_temp("[a]\nnumjobs = 2\n");
        {
                FILE *fp = fopen(path, "a");
                assert_non_null(fp);
                assert_int_equal(fwrite("x = 1\0;\n", 1, 9, fp), 9);
                fclose(fp);
        }
        assert_int_equal(opt_read_ini(path, ini_apply, &s, f->err, sizeof(f->err)), -EINVAL);
        snprintf(want, sizeof(want), "%s:3: NUL byte in the line", path);
        assert_string_equal(f->err, want);
        unlink(path);
        free(path);

        /* A long value with no two adjacent non-blanks to split it at: refused, never changed. */
        {
                char text[700] = "[a]\nmysql-user = x";

                for (int i = 0; i < 120; i++)
                        strcat(text, "  y");
                strcat(text, "\n");
                memset(&s, 0, sizeof(s));
                s.f = f;
                path = write_temp(text);
        }
        assert_int_equal(opt_read_ini(path, ini_apply, &s, f->err, sizeof(f->err)), -EINVAL);
        snprintf(want, sizeof(want),
                 "%s:2: a long value whose blanks cannot be kept: no two adjacent non-blank "
                 "characters in 190 characters",
                 path);
        assert_string_equal(f->err, want);
        assert_int_equal(s.n, 0);
        unlink(path);

        /* The file is gone now. */
        assert_int_equal(opt_read_ini(path, ini_apply, &s, f->err, sizeof(f->err)), -ENOENT);
        snprintf(want, sizeof(want), "%s: No such file or directory", path);
        assert_string_equal(f->err, want);
        free(path);
}

/* A value far longer than inih's line buffer arrives whole and on its own line number. */
static void test_read_ini_long_line(void **state)
{
        struct fixture *f = *state;
        struct ini_seen s = {.f = f};
        char text[4096], val[1200], want[300];
        char *path;
        int i;

        for (i = 0; i < (int)sizeof(val) - 1; i++)
                val[i] = (char)(i % 50 == 49 ? ' ' : 'a' + i % 26);
        val[sizeof(val) - 1] = '\0';
        snprintf(text, sizeof(text), "[g]\njson = %s ; comment\nnumjobs = 5\n; %s\nbad\n", val,
                 val);
        path = write_temp(text);
        assert_int_equal(opt_read_ini(path, ini_apply, &s, f->err, sizeof(f->err)), -EINVAL);
        snprintf(want, sizeof(want), "%s:5: syntax error (expected [section] or key = value)",
                 path);
        assert_string_equal(f->err, want);
        assert_int_equal(s.n, 2);
        assert_int_equal(s.lines[0], 2);
        assert_int_equal(s.lines[1], 3);
        assert_string_equal(f->blk.json, val);
        assert_int_equal(f->blk.numjobs, 5);
        unlink(path);
        free(path);
}

static void test_ini_file_round_trip(void **state)
{
        struct fixture *f = *state;
        struct fixture *g;
        struct ini_seen s;
        json_t *a, *b;
        char *text, *path;

        assert_int_equal(set(f, "iodepth", "100-163:1"), 0); /* longer than inih holds */
        assert_int_equal(set(f, "percentile", "50,99.999"), 0);
        assert_int_equal(set(f, "json", "x.json"), 0);
        assert_int_equal(set(f, "mysql-user", ";u"), 0); /* not an inline comment */
        text = ini_text(f);
        path = write_temp(text);
        assert_int_equal(setup((void **)&g), 0);
        memset(&s, 0, sizeof(s));
        s.f = g;
        assert_int_equal(opt_read_ini(path, ini_apply, &s, g->err, sizeof(g->err)), 0);
        a = opt_to_json(f->g);
        b = opt_to_json(g->g);
        assert_true(json_equal(a, b));
        json_decref(a);
        json_decref(b);
        unlink(path);
        free(path);
        free(text);
        teardown((void **)&g);
}

static void test_help(void **state)
{
        struct fixture *f = *state;
        char *buf = NULL, *a, *b;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);

        assert_non_null(m);
        opt_help(m, f->g, "hcisweep block [options]");
        assert_int_equal(fclose(m), 0);

        assert_int_equal(strncmp(buf, "usage: hcisweep block [options]\n", 32), 0);
        assert_non_null(strstr(buf, "\nblock options:\n"));
        assert_non_null(strstr(buf, "\nconnection:\n"));
        assert_non_null(strstr(buf, "queue depths [default: 1]\n"));
        assert_non_null(strstr(buf, "I/O engine (choices: libiscsi, io_uring, psync, null) "
                                    "[default: null]\n"));
        assert_non_null(strstr(buf, "fill first [default: 1]\n"));
        assert_non_null(strstr(buf, "overwrite\n"));
        assert_null(strstr(buf, "debug-slow"));
        assert_non_null(strstr(buf, "  --mysql-password STR"));
        assert_null(strstr(buf, "s3cret"));
        assert_null(strstr(buf, "shadowed")); /* a shared name is listed once */

        /* Help texts line up in one column. */
        a = strstr(buf, "  --iodepth LIST");
        b = strstr(buf, "  --force");
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(strstr(a, "queue depths") - a, strstr(b, "overwrite") - b);
        free(buf);
}

/* Paths: relative ones after the base (or the current directory), lexically; lists item by
 * item; other options and blank values as they are. */
static void test_paths(void **state)
{
        static const struct opt_def one = {"json", OPT_STR, 0, NULL, 0, 0, "", NULL, OPT_F_PATH};
        static const struct opt_def many = {
            "filename", OPT_STR, 0, NULL, 0, 0, "", NULL, OPT_F_LIST | OPT_F_PATH};
        static const struct opt_def text = {"host", OPT_STR, 0, NULL, 0, 0, "", NULL, OPT_F_LIST};
        static const struct {
                const struct opt_def *d;
                const char *val, *base, *want;
        } cases[] = {
            {&one, "r.json", "/j", "/j/r.json"},
            {&one, "./r.json", "/j/", "/j/r.json"},
            {&one, ".//a/./r.json", "/j", "/j/a/./r.json"},
            {&one, "../r.json", "/j", "/j/../r.json"},
            {&one, "/abs/r.json", "/j", "/abs/r.json"},
            {&one, ".", "/j", "/j"},
            {&one, "r.json", "/", "/r.json"},
            {&many, "a.img,/dev/sdz,./b.img", "/j", "/j/a.img,/dev/sdz,/j/b.img"},
            {&text, "a,b", "/j", "a,b"},
            {&one, "", "/j", ""},
        };
        struct opt_group g[] = {
            {blk_defs, NULL, NULL}, {conn_defs, NULL, NULL}, {NULL, NULL, NULL}};
        char cwd[4096], want[5000], *got;

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                got = opt_path_resolve(cases[i].d, cases[i].val, cases[i].base);
                assert_non_null(got);
                assert_string_equal(got, cases[i].want);
                free(got);
        }
        assert_non_null(getcwd(cwd, sizeof(cwd)));
        snprintf(want, sizeof(want), "%s/r.json", cwd);
        got = opt_path_resolve(&one, "r.json", NULL);
        assert_string_equal(got, want);
        free(got);
        snprintf(want, sizeof(want), "%s/sub/r.json", cwd);
        got = opt_path_resolve(&one, "r.json", "sub"); /* a relative base: from here */
        assert_string_equal(got, want);
        free(got);
        assert_ptr_equal(opt_def_find(g, "output_dir"), &conn_defs[2]);
        assert_ptr_equal(opt_def_find(g, "numjobs"), &blk_defs[1]); /* the first group's */
        assert_null(opt_def_find(g, "nope"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
            cmocka_unit_test_setup_teardown(test_argv, setup, teardown),
            cmocka_unit_test_setup_teardown(test_argv_bools, setup, teardown),
            cmocka_unit_test_setup_teardown(test_argv_errors, setup, teardown),
            cmocka_unit_test_setup_teardown(test_did_you_mean, setup, teardown),
            cmocka_unit_test_setup_teardown(test_underscore_names, setup, teardown),
            cmocka_unit_test_setup_teardown(test_bounds, setup, teardown),
            cmocka_unit_test_setup_teardown(test_enums, setup, teardown),
            cmocka_unit_test_setup_teardown(test_strings, setup, teardown),
            cmocka_unit_test_setup_teardown(test_empty_values, setup, teardown),
            cmocka_unit_test(test_list_items),
            cmocka_unit_test_setup_teardown(test_json, setup, teardown),
            cmocka_unit_test_setup_teardown(test_ini_round_trip, setup, teardown),
            cmocka_unit_test_setup_teardown(test_read_ini, setup, teardown),
            cmocka_unit_test_setup_teardown(test_read_ini_continuation, setup, teardown),
            cmocka_unit_test_setup_teardown(test_read_ini_errors, setup, teardown),
            cmocka_unit_test_setup_teardown(test_read_ini_long_line, setup, teardown),
            cmocka_unit_test_setup_teardown(test_ini_file_round_trip, setup, teardown),
            cmocka_unit_test_setup_teardown(test_help, setup, teardown),
            cmocka_unit_test(test_paths),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
