/*
 * test_resfile.c - result files: round trip, failures that leave nothing
 * behind, and a writer killed with SIGKILL in mid-write.
 *
 * Each test works in its own mkdtemp() directory and removes it at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/resfile.h"

#define BIG_PAD    (4u << 20) /* bytes of padding in the big result */
#define GEN_OFFSET 8          /* where the nine digits of "gen" start */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)flag;
        (void)ftw;
        return remove(path);
}

static int setup_dir(void **state)
{
        char *dir = strdup("/tmp/hcisweep-test_resfile.XXXXXX");

        if (!dir || !mkdtemp(dir)) {
                free(dir);
                return -1;
        }
        *state = dir;
        return 0;
}

static int teardown_dir(void **state)
{
        int ret = nftw(*state, rm_entry, 16, FTW_DEPTH | FTW_PHYS);

        free(*state);
        return ret;
}

static char *path_in(const char *dir, const char *name)
{
        char *p = NULL;

        assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
        return p;
}

static int count_entries(const char *dir)
{
        struct dirent *e;
        DIR *d = opendir(dir);
        int n = 0;

        assert_non_null(d);
        while ((e = readdir(d)))
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                        n++;
        closedir(d);
        return n;
}

static json_t *load(const char *path)
{
        json_error_t jerr;
        json_t *j = json_load_file(path, 0, &jerr);

        if (!j)
                print_error("%s:%d: %s\n", path, jerr.line, jerr.text);
        return j;
}

static void test_round_trip(void **state)
{
        char err[256] = "";
        char *path = path_in(*state, "r.json");
        json_t *j = json_pack("{s:i,s:f,s:s,s:[i,i,i],s:{s:b}}", "zeta", 1, "pi", 3.14159265,
                              "name", "héllo \"q\"", "list", 1, 2, 3, "obj", "ok", 1);
        json_t *back;
        char text[4096];
        FILE *f;
        size_t n;

        assert_non_null(j);
        assert_int_equal(res_write_json(path, j, err, sizeof(err)), 0);
        back = load(path);
        assert_non_null(back);
        assert_true(json_equal(j, back));

        /* two-space indent, insertion order kept, ends with a newline */
        f = fopen(path, "r");
        assert_non_null(f);
        n = fread(text, 1, sizeof(text) - 1, f);
        fclose(f);
        text[n] = '\0';
        assert_non_null(strstr(text, "\n  \"zeta\": 1,\n"));
        assert_true(strstr(text, "\"zeta\"") < strstr(text, "\"pi\""));
        assert_int_equal(text[n - 1], '\n');
        assert_int_equal(count_entries(*state), 1);
        json_decref(back);
        json_decref(j);
        free(path);
}

static void test_overwrite(void **state)
{
        char err[256] = "", buf[64];
        char *path = path_in(*state, "o.json"), *tpath = path_in(*state, "o.csv");
        json_t *a = json_pack("{s:s,s:[i,i,i,i,i,i]}", "v", "first", "pad", 1, 2, 3, 4, 5, 6);
        json_t *b = json_pack("{s:s}", "v", "second");
        json_t *back;
        FILE *f;
        size_t n;

        assert_int_equal(res_write_json(path, a, err, sizeof(err)), 0);
        assert_int_equal(res_write_json(path, b, err, sizeof(err)), 0);
        back = load(path);
        assert_non_null(back);
        assert_true(json_equal(b, back));
        assert_false(json_equal(a, back));

        assert_int_equal(res_write_text(tpath, "a,b\n1,2\n", 8, err, sizeof(err)), 0);
        assert_int_equal(res_write_text(tpath, "x\n", 2, err, sizeof(err)), 0);
        f = fopen(tpath, "r");
        assert_non_null(f);
        n = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        assert_int_equal(n, 2);
        assert_memory_equal(buf, "x\n", 2);
        assert_int_equal(count_entries(*state), 2);
        json_decref(back);
        json_decref(a);
        json_decref(b);
        free(path);
        free(tpath);
}

static void test_missing_dir_fails_clean(void **state)
{
        char err[256] = "";
        char *path = path_in(*state, "no/such/dir/r.json");
        json_t *j = json_pack("{s:i}", "a", 1);
        int ret;

        ret = res_write_json(path, j, err, sizeof(err));
        assert_int_equal(ret, -ENOENT);
        assert_non_null(strstr(err, path));
        assert_non_null(strstr(err, strerror(ENOENT)));
        assert_int_equal(count_entries(*state), 0);
        json_decref(j);
        free(path);
}

/* The temp file is written, then the rename fails: the temp file must go. */
static void test_failed_rename_removes_temp(void **state)
{
        char err[256] = "";
        char *path = path_in(*state, "isdir");
        int ret;

        assert_int_equal(mkdir(path, 0755), 0);
        ret = res_write_text(path, "data\n", 5, err, sizeof(err));
        assert_true(ret < 0);
        assert_non_null(strstr(err, path));
        assert_int_equal(count_entries(*state), 1);
        free(path);
}

/*
 * The big result: {"gen": G, "pad": "xx…x"} with a nine-digit G, rendered
 * once so that each loop of the writer is almost all write(): a kill then
 * lands inside a write, which is what must never show in the target.
 */
static char *big_text(size_t *len)
{
        static const char head[] = "{\"gen\": 100000000, \"pad\": \"";
        static const char tail[] = "\"}\n";
        size_t n = sizeof(head) - 1 + BIG_PAD + sizeof(tail) - 1;
        char *t = malloc(n + 1);

        assert_non_null(t);
        memcpy(t, head, sizeof(head) - 1);
        memset(t + sizeof(head) - 1, 'x', BIG_PAD);
        memcpy(t + n - (sizeof(tail) - 1), tail, sizeof(tail));
        *len = n;
        return t;
}

static void set_gen(char *text, long gen)
{
        char digits[24];

        snprintf(digits, sizeof(digits), "%09ld", 100000000 + gen);
        memcpy(text + GEN_OFFSET, digits, 9);
}

/* A complete document of any generation; returns the generation. */
static long check_whole(const char *path)
{
        json_t *j = load(path);
        const char *pad;
        long gen;
        size_t i;

        assert_non_null(j);
        gen = (long)json_integer_value(json_object_get(j, "gen")) - 100000000;
        pad = json_string_value(json_object_get(j, "pad"));
        assert_non_null(pad);
        assert_int_equal(json_string_length(json_object_get(j, "pad")), BIG_PAD);
        for (i = 0; i < BIG_PAD; i++)
                if (pad[i] != 'x')
                        fail_msg("pad byte %zu is %d", i, pad[i]);
        json_decref(j);
        return gen;
}

static void child_writer(const char *path, int ready_fd)
{
        char err[256];
        size_t len;
        char *text = big_text(&len);

        for (long gen = 1;; gen++) {
                set_gen(text, gen);
                if (res_write_text(path, text, len, err, sizeof(err)) < 0)
                        _exit(2);
                if (gen == 1 && write(ready_fd, "x", 1) != 1)
                        _exit(3);
        }
}

static void kill_one_writer(const char *dir, const char *path, int round)
{
        struct timespec pause = {.tv_sec = 0, .tv_nsec = (long)(round * 3 + 1) * 1000000};
        char c, leftover[512];
        int fds[2], status;
        pid_t pid;

        assert_int_equal(pipe(fds), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(fds[0]);
                child_writer(path, fds[1]);
        }
        close(fds[1]);
        /* wait for one complete write, then cut a later one short */
        assert_int_equal(read(fds[0], &c, 1), 1);
        close(fds[0]);
        nanosleep(&pause, NULL);
        assert_int_equal(kill(pid, SIGKILL), 0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

        assert_true(check_whole(path) >= 1);
        /* only the target and, at most, the killed writer's own temp file */
        snprintf(leftover, sizeof(leftover), "%s.tmp.%d", path, (int)pid);
        unlink(leftover);
        assert_int_equal(count_entries(dir), 1);
}

/* tmpfs when there is one, so no disk flush hides the write in the loop */
static int setup_shm_dir(void **state)
{
        char *dir = strdup("/dev/shm/hcisweep-test_resfile.XXXXXX");

        if (dir && mkdtemp(dir)) {
                *state = dir;
                return 0;
        }
        free(dir);
        return setup_dir(state);
}

static void test_sigkill_never_tears(void **state)
{
        char err[256];
        char *path = path_in(*state, "big.json");
        size_t len;
        char *text = big_text(&len);

        set_gen(text, 0);
        assert_int_equal(res_write_text(path, text, len, err, sizeof(err)), 0);
        free(text);
        assert_int_equal(check_whole(path), 0);
        for (int round = 0; round < 8; round++)
                kill_one_writer(*state, path, round);
        free(path);
}

static void test_mkdirs(void **state)
{
        char err[256] = "";
        char *deep = path_in(*state, "a/b//c/d/");
        char *file = path_in(*state, "f");
        char *through = path_in(*state, "f/x/y");
        struct stat st;

        assert_int_equal(res_mkdirs(deep, err, sizeof(err)), 0);
        assert_int_equal(stat(deep, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(res_mkdirs(deep, err, sizeof(err)), 0); /* already there */

        assert_int_equal(res_write_text(file, "", 0, err, sizeof(err)), 0);
        assert_int_equal(res_mkdirs(through, err, sizeof(err)), -ENOTDIR);
        assert_non_null(strstr(err, through));
        assert_int_equal(res_mkdirs(file, err, sizeof(err)), -ENOTDIR);
        assert_int_equal(res_mkdirs("", err, sizeof(err)), -EINVAL);
        free(deep);
        free(file);
        free(through);
}

/* A row source as oltp's is: one row object, filled again for each row. */
struct src {
        json_t *row;
};

static const json_t *src_row(void *user, size_t i)
{
        struct src *s = user;

        json_object_set_new(s->row, "t", json_real((double)i + 0.5));
        json_object_set_new(s->row, "v", json_pack("[i,f]", (int)i, 1.0 / 3 * (double)i));
        json_object_set_new(s->row, "o", json_pack("{s:s}", "x", i % 2 ? "odd" : "é\"ven"));
        return s->row;
}

/* {"a", "points": [{"intervals": rows}], "intervals": rows, "empty": rows0, "z"}, the rows
 * given as row sources (src, src0) or inline arrays (NULL). */
static json_t *rows_tree(const struct res_rows *src, const struct res_rows *src0)
{
        struct src s = {json_object()};
        json_t *a = json_array(), *a2, *t;

        for (size_t i = 0; i < 3; i++)
                json_array_append_new(a, json_deep_copy(src_row(&s, i)));
        json_decref(s.row);
        a2 = json_deep_copy(a);
        t = json_pack("{s:i, s:[{s:o}], s:o, s:o, s:s}", "a", 1, "points", "intervals",
                      src ? res_rows_ref(src) : a, "intervals", src ? res_rows_ref(src) : a2,
                      "empty", src0 ? res_rows_ref(src0) : json_array(), "z", "end");
        if (src) {
                json_decref(a);
                json_decref(a2);
        }
        return t;
}

static char *slurp(const char *path)
{
        char *buf = NULL, err[256];
        size_t len;

        assert_int_equal(res_read_file(path, &buf, &len, err, sizeof(err)), 0);
        return buf;
}

/* A row source is written as the inline array would be, byte for byte, by every writer. */
static void test_row_source_writes_as_array(void **state)
{
        struct src s = {json_object()};
        const struct res_rows src = {3, src_row, &s}, src0 = {0, src_row, &s};
        json_t *inl = rows_tree(NULL, NULL), *lazy = rows_tree(&src, &src0), *slim = NULL;
        char *pa = path_in(*state, "a.json"), *pb = path_in(*state, "b.json"), err[256];
        char *ta, *tb, *ca = json_dumps(inl, JSON_COMPACT), cb[4096];
        FILE *f = tmpfile();
        size_t n;

        assert_non_null(inl);
        assert_non_null(lazy);
        assert_int_equal(res_rows_size(json_object_get(lazy, "intervals")), 3);
        assert_true(json_equal(res_rows_get(json_object_get(lazy, "intervals"), 2),
                               json_array_get(json_object_get(inl, "intervals"), 2)));
        assert_int_equal(res_write_json(pa, inl, err, sizeof(err)), 0);
        assert_int_equal(res_write_json(pb, lazy, err, sizeof(err)), 0);
        ta = slurp(pa);
        tb = slurp(pb);
        assert_string_equal(ta, tb);
        /* compact, to a FILE (a driver's result on stdout) */
        assert_non_null(f);
        assert_int_equal(res_dump_file(lazy, f, JSON_COMPACT), 0);
        rewind(f);
        n = fread(cb, 1, sizeof(cb) - 1, f);
        cb[n] = '\0';
        fclose(f);
        assert_string_equal(ca, cb);
        /* a run directory: the rows to their series file, a reference in their place */
        assert_int_equal(res_series_split(*state, lazy, &slim, err, sizeof(err)), 0);
        assert_int_equal(
            json_integer_value(json_object_get(json_object_get(slim, "intervals"), "rows")), 3);
        free(ta);
        free(pa);
        pa = path_in(*state, "intervals.ndjson");
        ta = slurp(pa);
        assert_non_null(strstr(ta, "\"t\":2.5,\"v\":[2,0.6666666667]"));
        free(ta);
        free(tb);
        free(ca);
        free(pa);
        free(pb);
        json_decref(slim);
        json_decref(inl);
        json_decref(lazy);
        json_decref(s.row);
}

static void test_new_has_common_top_level(void **state)
{
        json_t *config = json_pack("{s:i}", "iodepth", 16);
        json_t *r = res_new("block", config);
        const char *at;

        (void)state;
        assert_non_null(r);
        assert_int_equal(json_integer_value(json_object_get(r, "schema_version")),
                         RES_SCHEMA_VERSION);
        assert_string_equal(json_string_value(json_object_get(r, "hcisweep_version")),
                            HCISWEEP_VERSION);
        assert_string_equal(json_string_value(json_object_get(r, "kind")), "block");
        at = json_string_value(json_object_get(r, "started_at"));
        assert_non_null(at);
        assert_int_equal(strlen(at), 20);
        assert_int_equal(at[19], 'Z');
        assert_ptr_equal(json_object_get(r, "config"), config);
        assert_int_equal(config->refcount, 2);
        assert_true(json_integer_value(json_object_get(json_object_get(r, "host"), "cpus")) >= 1);
        json_decref(r);
        assert_int_equal(config->refcount, 1);
        json_decref(config);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_round_trip, setup_dir, teardown_dir),
            cmocka_unit_test_setup_teardown(test_overwrite, setup_dir, teardown_dir),
            cmocka_unit_test_setup_teardown(test_missing_dir_fails_clean, setup_dir, teardown_dir),
            cmocka_unit_test_setup_teardown(test_failed_rename_removes_temp, setup_dir,
                                            teardown_dir),
            cmocka_unit_test_setup_teardown(test_sigkill_never_tears, setup_shm_dir, teardown_dir),
            cmocka_unit_test_setup_teardown(test_mkdirs, setup_dir, teardown_dir),
            cmocka_unit_test(test_new_has_common_top_level),
            cmocka_unit_test_setup_teardown(test_row_source_writes_as_array, setup_dir,
                                            teardown_dir),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
