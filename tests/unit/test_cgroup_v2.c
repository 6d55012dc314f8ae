/*
 * test_cgroup_v2.c - the cgroup v2 implementation (lab/cgroup_v2.c) against
 * a temporary directory laid out as the kernel's cgroup2 files are
 * (Documentation/admin-guide/cgroup-v2.rst: "max" for no limit, cpu.max
 * "$MAX $PERIOD", flat-keyed cpu.stat, memory.events, memory.stat). A
 * real cgroupfs makes a child's files on mkdir; here the tree the lab asks
 * for exists beforehand with the files the kernel would show. Checked:
 * the version picked from the root, the CPU-controller check, what is
 * written (subtree_control of the parents only, cpu.max, memory.max,
 * memory.swap.max, cpuset), what is read back, and removal.
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

#include "lab/cgroup.h"

static char root[64];

static void put(const char *dir, const char *name, const char *text)
{
        char path[CG_PATH_MAX + 64];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void get(const char *dir, const char *name, char *out, size_t len)
{
        char path[CG_PATH_MAX + 64];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "r");
        assert_non_null(f);
        if (!fgets(out, (int)len, f))
                out[0] = '\0';
        fclose(f);
        out[strcspn(out, "\n")] = '\0';
}

static void assert_file(const char *dir, const char *name, const char *want)
{
        char got[256];

        get(dir, name, got, sizeof(got));
        if (strcmp(got, want))
                fail_msg("%s/%s: \"%s\", want \"%s\"", dir, name, got, want);
}

static const char *const group_files[] = {"cgroup.controllers",
                                          "cgroup.subtree_control",
                                          "cgroup.procs",
                                          "cgroup.kill",
                                          "cpu.max",
                                          "cpu.stat",
                                          "memory.max",
                                          "memory.swap.max",
                                          "memory.current",
                                          "memory.events",
                                          "memory.stat",
                                          "cpuset.cpus",
                                          "cpuset.mems",
                                          "cpuset.mems.effective",
                                          NULL};

/* A non-root group as the kernel shows it with cpu, memory and cpuset on. */
static void make_group(const char *dir)
{
        assert_int_equal(mkdir(dir, 0755), 0);
        put(dir, "cgroup.controllers", "cpuset cpu memory\n");
        put(dir, "cgroup.subtree_control", "\n");
        put(dir, "cgroup.procs", "");
        put(dir, "cgroup.kill", "");
        put(dir, "cpu.max", "max 100000\n");
        put(dir, "cpu.stat",
            "usage_usec 0\nuser_usec 0\nsystem_usec 0\nnr_periods 0\n"
            "nr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n");
        put(dir, "memory.max", "max\n");
        put(dir, "memory.swap.max", "max\n");
        put(dir, "memory.current", "0\n");
        put(dir, "memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n");
        put(dir, "memory.stat", "anon 0\nfile 0\n");
        put(dir, "cpuset.cpus", "\n");
        put(dir, "cpuset.mems", "\n");
        put(dir, "cpuset.mems.effective", "0\n");
}

static void rm_group(const char *dir)
{
        char path[CG_PATH_MAX + 64];

        for (int i = 0; group_files[i]; i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, group_files[i]);
                unlink(path);
        }
        rmdir(dir);
}

static char dirs[3][CG_PATH_MAX + 16]; /* hcisweep, hcisweep/lab, hcisweep/lab/vm1 */

/* The root of a cgroup2 mount: cgroup.controllers lists ctrls; no cpu.max at the root. */
static int setup(void **state)
{
        (void)state;
        snprintf(root, sizeof(root), "/tmp/test_cgroup_v2.XXXXXX");
        assert_non_null(mkdtemp(root));
        put(root, "cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
        put(root, "cgroup.subtree_control", "\n");
        put(root, "cgroup.procs", "1\n");
        put(root, "cpu.stat", "usage_usec 99\n");
        put(root, "cpuset.mems.effective", "0\n");
        snprintf(dirs[0], sizeof(dirs[0]), "%s/hcisweep", root);
        snprintf(dirs[1], sizeof(dirs[1]), "%s/hcisweep/lab", root);
        snprintf(dirs[2], sizeof(dirs[2]), "%s/hcisweep/lab/vm1", root);
        for (int i = 0; i < 3; i++)
                make_group(dirs[i]);
        cg_use_root(root, "/");
        return 0;
}

static int teardown(void **state)
{
        char path[CG_PATH_MAX + 64];
        static const char *const root_files[] = {"cgroup.controllers",    "cgroup.subtree_control",
                                                 "cgroup.procs",          "cpu.stat",
                                                 "cpuset.mems.effective", NULL};

        (void)state;
        for (int i = 2; i >= 0; i--)
                rm_group(dirs[i]);
        for (int i = 0; root_files[i]; i++) {
                snprintf(path, sizeof(path), "%s/%s", root, root_files[i]);
                unlink(path);
        }
        rmdir(root);
        cg_use_root(NULL, NULL);
        return 0;
}

static void test_picks_v2(void **state)
{
        (void)state;
        assert_int_equal(cg_ops_now()->version, 2);
        assert_string_equal(cg_root(), root);
}

/* No cpu among the root's controllers: a CPU limit is refused, none is fine. */
static void test_check(void **state)
{
        char err[512] = "";

        (void)state;
        assert_int_equal(cg_check(&(struct cg_limits){0.5, 0, NULL}, err, sizeof(err)), 0);
        put(root, "cgroup.controllers", "cpuset io memory pids\n");
        cg_use_root(root, "/");
        assert_int_equal(cg_check(&(struct cg_limits){0.5, 0, NULL}, err, sizeof(err)), -ENOTSUP);
        assert_non_null(strstr(err, "no cgroup CPU controller"));
        assert_non_null(strstr(err, "--vm-cpus 0 "));
        assert_int_equal(cg_check(&(struct cg_limits){0, 0, NULL}, err, sizeof(err)), 0);
}

/* Neither version: a directory with no cgroup.controllers and no v1 cpu mount. */
static void test_check_neither(void **state)
{
        char err[512] = "";

        (void)state;
        cg_use_root("/nonexistent-cgroup-root", "/");
        assert_int_equal(cg_ops_now()->version, 1);
        assert_int_equal(cg_check(&(struct cg_limits){1, 0, NULL}, err, sizeof(err)), -ENOTSUP);
        assert_non_null(strstr(err, "neither cgroup v2 nor"));
        cg_use_root(root, "/");
}

static void test_create_and_read(void **state)
{
        struct cg_limits lim = {0.5, 256ULL << 20, "1"};
        char err[512] = "", bufs[CG_NCTRL][CG_PATH_MAX + 16];
        const char *files[CG_NCTRL + 1];
        struct cg_group g;
        struct cg_stats st;

        (void)state;
        assert_int_equal(cg_create("lab", "vm1", &lim, &g, err, sizeof(err)), 0);
        assert_int_equal(g.version, 2);
        for (int c = 0; c < CG_NCTRL; c++)
                assert_string_equal(g.path[c], dirs[2]);
        /* the parents give the controllers to their children; the leaf holds the tasks */
        assert_file(root, "cgroup.subtree_control", "+cpu +memory +cpuset");
        assert_file(dirs[0], "cgroup.subtree_control", "+cpu +memory +cpuset");
        assert_file(dirs[1], "cgroup.subtree_control", "+cpu +memory +cpuset");
        assert_file(dirs[2], "cgroup.subtree_control", "");
        assert_file(dirs[2], "cpu.max", "50000 100000");
        assert_file(dirs[2], "memory.max", "268435456");
        assert_file(dirs[2], "memory.swap.max", "0");
        assert_file(dirs[2], "cpuset.cpus", "1");
        assert_file(dirs[2], "cpuset.mems", "0");

        cg_procs_files(&g, bufs, files);
        assert_non_null(files[0]);
        assert_null(files[1]); /* one directory, joined once */
        assert_non_null(strstr(files[0], "/hcisweep/lab/vm1/cgroup.procs"));

        /* what the kernel would count after a while */
        put(dirs[2], "cpu.stat",
            "usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\n"
            "core_sched.force_idle_usec 0\nnr_periods 10\nnr_throttled 4\n"
            "throttled_usec 300000\nnr_bursts 0\nburst_usec 0\n");
        put(dirs[2], "memory.current", "1048576\n");
        put(dirs[2], "memory.events",
            "low 0\nhigh 0\nmax 7\noom 2\noom_kill 1\noom_group_kill 0\n");
        put(dirs[2], "memory.stat", "anon 524288\nfile 524288\npgfault 900\npgmajfault 42\n");
        cg_read(&g, &st);
        assert_true(fabs(st.cpus - 0.5) < 1e-9);
        assert_int_equal(st.mem_limit, 256LL << 20);
        assert_int_equal(st.mem_usage, 1048576);
        assert_string_equal(st.cpuset, "1");
        assert_int_equal(st.usage_ns, 1234567000LL);
        assert_int_equal(st.periods, 10);
        assert_int_equal(st.throttled, 4);
        assert_int_equal(st.throttled_ns, 300000000LL);
        assert_int_equal(st.failcnt, 7);
        assert_int_equal(st.oom_kills, 1);
        assert_int_equal(st.majflt, 42);

        /* no limits: "max" everywhere, read back as unlimited */
        assert_int_equal(cg_apply(&g, &(struct cg_limits){0, 0, NULL}, err, sizeof(err)), 0);
        assert_file(dirs[2], "cpu.max", "max 100000");
        assert_file(dirs[2], "memory.max", "max");
        assert_file(dirs[2], "memory.swap.max", "max");
        cg_read(&g, &st);
        assert_true(st.cpus < 0);
        assert_int_equal(st.mem_limit, -1);

        /* a period of its own is kept */
        put(dirs[2], "cpu.max", "max 50000\n");
        assert_int_equal(cg_apply(&g, &(struct cg_limits){2, 0, NULL}, err, sizeof(err)), 0);
        assert_file(dirs[2], "cpu.max", "100000 50000");
        cg_read(&g, &st);
        assert_true(fabs(st.cpus - 2) < 1e-9);

        /* an empty group: nothing to kill */
        assert_int_equal(cg_kill_all(&g), 0);
}

/* A group whose memory controller the kernel did not give: no memory path, no limit written. */
static void test_missing_controller(void **state)
{
        char err[512] = "";
        struct cg_group g;

        (void)state;
        put(dirs[2], "cgroup.controllers", "cpu\n");
        assert_int_equal(
            cg_create("lab", "vm1", &(struct cg_limits){1, 1 << 20, NULL}, &g, err, sizeof(err)),
            0);
        assert_string_equal(g.path[CG_CPU], dirs[2]);
        assert_string_equal(g.path[CG_MEMORY], "");
        assert_string_equal(g.path[CG_CPUSET], "");
        assert_string_equal(g.path[CG_CPUACCT], dirs[2]); /* cpu.stat is always there */
        assert_file(dirs[2], "cpu.max", "100000 100000");
        assert_file(dirs[2], "memory.max", "max");
        put(dirs[2], "cgroup.controllers", "cpuset cpu memory\n");
}

/* Removal takes the leaf; the parents stay while they hold anything. */
static void test_remove(void **state)
{
        char err[512] = "";
        struct cg_group g;

        (void)state;
        assert_int_equal(
            cg_create("lab", "vm1", &(struct cg_limits){1, 0, NULL}, &g, err, sizeof(err)), 0);
        rm_group(dirs[2]); /* a real cgroupfs rmdir needs no emptying: */
        assert_int_equal(mkdir(dirs[2], 0755), 0);
        assert_int_equal(cg_remove(&g, err, sizeof(err)), 0);
        assert_int_equal(access(dirs[2], F_OK), -1);
        assert_int_equal(access(dirs[1], F_OK), 0);
        for (int c = 0; c < CG_NCTRL; c++)
                assert_string_equal(g.path[c], "");
        make_group(dirs[2]);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_picks_v2, setup, teardown),
            cmocka_unit_test_setup_teardown(test_check, setup, teardown),
            cmocka_unit_test_setup_teardown(test_check_neither, setup, teardown),
            cmocka_unit_test_setup_teardown(test_create_and_read, setup, teardown),
            cmocka_unit_test_setup_teardown(test_missing_controller, setup, teardown),
            cmocka_unit_test_setup_teardown(test_remove, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
