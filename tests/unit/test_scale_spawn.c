/*
 * test_scale_spawn.c - scale_driver_spawn (scale/scale_drivers.h) leaves no
 * fd of ours open whichever step fails: the first pipe2, the second (it
 * used to leak the first pair), or the backend's spawn op.
 *
 * A pipe2 is made to fail by RLIMIT_NOFILE, which bounds the fd number the
 * kernel may hand out: the limit is set just past the lowest FREE free fd
 * numbers, so exactly FREE more fds can be opened (2: the first pipe2 is
 * refused; 3: the first succeeds and the second, which needs two, is not).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "scale/scale_drivers.h"

static int spawned; /* how often the fake spawn op ran */

/* The backend's spawn op: refuses, as one whose program cannot run does. */
static int fake_spawn(struct lab_backend *b, unsigned i, const struct proc_spawn *sp,
                      const int *stdio, pid_t *pid, char *err, size_t errlen)
{
        (void)b, (void)i, (void)sp, (void)pid;
        assert_true(fcntl(stdio[0], F_GETFD) >= 0 && fcntl(stdio[1], F_GETFD) >= 0);
        spawned++;
        snprintf(err, errlen, "cannot run it");
        return -ENOEXEC;
}

static const struct lab_backend_ops fake_ops = {.name = "fake", .spawn = fake_spawn};

/* Our open fds (the directory's own is there while it is read, every time alike). */
static int open_fds(void)
{
        DIR *d = opendir("/proc/self/fd");
        int n = 0;

        assert_non_null(d);
        while (readdir(d))
                n++;
        closedir(d);
        return n;
}

/* RLIMIT_NOFILE just past the lowest free fd numbers, so exactly free_fds more can open. */
static void leave_free(int free_fds, struct rlimit *old)
{
        struct rlimit lim;
        int fd = 0;

        assert_int_equal(getrlimit(RLIMIT_NOFILE, old), 0);
        for (int left = free_fds; left > 0; fd++)
                if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
                        left--;
        lim = (struct rlimit){.rlim_cur = (rlim_t)fd, .rlim_max = old->rlim_max};
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
}

/* One spawn with free_fds fds to spare: it fails with want, err saying why, nothing left
 * open. */
static void spawn_fails(int free_fds, int want, const char *why)
{
        char *argv[] = {"hcisweep", NULL};
        struct proc_spawn sp = {.argv = argv};
        struct rlimit old;
        char err[256] = "";
        int in_w = 7, out_r = 7, before, rc;
        pid_t pid = 0;

        spawned = 0;
        before = open_fds();
        if (free_fds > 0)
                leave_free(free_fds, &old);
        rc = scale_driver_spawn(&fake_ops, NULL, 1, &sp, &pid, &in_w, &out_r, err, sizeof(err));
        if (free_fds > 0)
                assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
        assert_int_equal(rc, want);
        assert_non_null(strstr(err, why));
        assert_int_equal(in_w, -1);
        assert_int_equal(out_r, -1);
        assert_int_equal(spawned, want == -ENOEXEC);
        assert_int_equal(open_fds(), before);
}

/* The second pipe2 fails: the first pair is closed (the leak this guards). */
static void test_second_pipe_fails(void **state)
{
        (void)state;
        spawn_fails(3, -EMFILE, "pipe: ");
}

static void test_first_pipe_fails(void **state)
{
        (void)state;
        spawn_fails(1, -EMFILE, "pipe: ");
}

/* Both pipes made, the spawn op refuses: all four ends closed. */
static void test_spawn_op_fails(void **state)
{
        (void)state;
        spawn_fails(0, -ENOEXEC, "cannot run it");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_second_pipe_fails),
            cmocka_unit_test(test_first_pipe_fails),
            cmocka_unit_test(test_spawn_op_fails),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
