/*
 * test_proc.c - what a child of proc_spawn gets: every signal at its default
 * (the parent here ignores SIGPIPE, as scale does), no fd but its stdio (the
 * parent holds one open without O_CLOEXEC, and the log file is opened in the
 * child), and with die_with_parent a child that runs as usual.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab/proc.h"

/* The whole of file path into buf. */
static void slurp(const char *path, char *buf, size_t len)
{
        FILE *f = fopen(path, "r");
        size_t n;

        assert_non_null(f);
        n = fread(buf, 1, len - 1, f);
        buf[n] = 0;
        fclose(f);
}

static void test_child_gets_defaults_and_stdio_only(void **state)
{
        char log[] = "/tmp/hcisweep-test_proc.XXXXXX", out[4096], why[256];
        char *argv[] = {"sh", "-c", "grep '^SigIgn' /proc/$$/status; ls /proc/$$/fd | tr '\\n' ' '",
                        NULL};
        int fd = mkstemp(log), status, stray;
        unsigned long long ign = ~0ULL;
        char *fds;

        (void)state;
        assert_true(fd >= 0);
        close(fd);
        signal(SIGPIPE, SIG_IGN);
        stray = dup2(STDERR_FILENO, 77); /* without O_CLOEXEC, as a library might leave one */
        assert_int_equal(stray, 77);
        assert_int_equal(
            proc_run(&(struct proc_spawn){argv, log, NULL, NULL}, &status, why, sizeof(why)), 0);
        close(stray);
        signal(SIGPIPE, SIG_DFL);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        slurp(log, out, sizeof(out));
        unlink(log);
        assert_int_equal(sscanf(out, "SigIgn: %llx", &ign), 1);
        assert_int_equal(ign & (1ULL << (SIGPIPE - 1)), 0); /* SIGPIPE not ignored */
        fds = strchr(out, '\n');
        assert_non_null(fds);
        assert_string_equal(fds + 1, "0 1 2 "); /* neither fd 77 nor the log's own fd */
}

static void test_die_with_parent_runs(void **state)
{
        int in[2], outp[2], stdio[2];
        char *argv[] = {"sh", "-c", "read l; echo \"got $l\"", NULL}, buf[64] = "", why[256];
        pid_t pid;
        ssize_t n;
        int status;

        (void)state;
        assert_int_equal(pipe2(in, O_CLOEXEC), 0);
        assert_int_equal(pipe2(outp, O_CLOEXEC), 0);
        stdio[0] = in[0];
        stdio[1] = outp[1];
        assert_int_equal(proc_spawn_io(&(struct proc_spawn){argv, NULL, NULL, NULL}, stdio, 1, &pid,
                                       why, sizeof(why)),
                         0);
        close(in[0]);
        close(outp[1]);
        assert_int_equal(write(in[1], "go\n", 3), 3);
        close(in[1]);
        n = read(outp[0], buf, sizeof(buf) - 1);
        close(outp[0]);
        assert_true(n > 0);
        assert_string_equal(buf, "got go\n");
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_child_gets_defaults_and_stdio_only),
            cmocka_unit_test(test_die_with_parent_runs),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
