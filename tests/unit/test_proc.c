/*
 * test_proc.c - what a child of proc_spawn gets: every signal at its default
 * (the parent here ignores SIGPIPE, as scale does), no fd but its stdio (the
 * parent holds one open without O_CLOEXEC, and the log file is opened in the
 * child), and with die_with_parent a child that runs as usual.
 *
 * The ssh client is started the same way (lab_ssh_check_version): a program
 * named ssh, first on PATH, reports what it was given (the real client sets
 * its own signals, so it could not show ours), and one whose parent is killed
 * goes away with it instead of waiting out the remote command.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab/proc.h"
#include "lab/ssh.h"

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

/* A directory with an executable "ssh" whose body is script, put first on PATH. */
static void fake_ssh(char *dir, const char *script)
{
        char path[256], *old = getenv("PATH"), *newpath;
        FILE *f;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/ssh", dir);
        f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "#!/bin/sh\n%s\n", script);
        fclose(f);
        assert_int_equal(chmod(path, 0755), 0);
        newpath = malloc(strlen(dir) + strlen(old ? old : "") + 2);
        assert_non_null(newpath);
        sprintf(newpath, "%s:%s", dir, old ? old : "");
        setenv("PATH", newpath, 1);
        free(newpath);
}

static void unfake_ssh(const char *dir, const char *old_path)
{
        char cmd[300];

        setenv("PATH", old_path, 1);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

/* Its "version" says which signals it found ignored and whether our fd 77 reached it;
 * the parent ignores SIGPIPE (as scale does) and SIGHUP (as under nohup). */
static void test_ssh_child_gets_defaults_and_stdio_only(void **state)
{
        char dir[] = "/tmp/hcisweep-test_proc.XXXXXX", why[512], *old = strdup(getenv("PATH"));
        struct lab_ssh d = {.host = "127.0.0.1"};
        int stray, rc;

        (void)state;
        assert_non_null(old);
        fake_ssh(dir, "ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status)\n"
                      "if [ -e /proc/$$/fd/77 ]; then fd=open; else fd=closed; fi\n"
                      "echo \"hcisweep ign=$ign,fd77=$fd\"");
        signal(SIGPIPE, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        stray = dup2(STDERR_FILENO, 77);
        assert_int_equal(stray, 77);
        rc = lab_ssh_check_version(&d, "ign=0000000000000000,fd77=closed", 60, NULL, why,
                                   sizeof(why));
        close(stray);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        unfake_ssh(dir, old);
        free(old);
        if (rc)
                fail_msg("%s", why);
}

/* Read a PID the fake ssh wrote to path, waiting for it up to 60 s (a hang guard). */
static pid_t pid_from(const char *path)
{
        for (int i = 0; i < 6000; i++) {
                FILE *f = fopen(path, "r");
                int pid = 0;

                if (f) {
                        int ok = fscanf(f, "%d", &pid) == 1;

                        fclose(f);
                        if (ok && pid > 0)
                                return pid;
                }
                usleep(10000);
        }
        fail_msg("the fake ssh never wrote %s", path);
        return -1;
}

/* A version check whose remote never answers, asked by a process that is then
 * killed: its ssh client goes with it (before, it waited out the remote). */
static void test_ssh_child_dies_with_parent(void **state)
{
        char dir[] = "/tmp/hcisweep-test_proc.XXXXXX", pidfile[300];
        char *old = strdup(getenv("PATH"));
        pid_t asker, client;
        int status, gone;

        (void)state;
        assert_non_null(old);
        /* the script finds its directory by $0: mkdtemp names it in fake_ssh */
        fake_ssh(dir, "echo $$ >\"$(dirname \"$0\")/pid\"\nexec sleep 600");
        snprintf(pidfile, sizeof(pidfile), "%s/pid", dir);
        asker = fork();
        assert_true(asker >= 0);
        if (asker == 0) {
                struct lab_ssh d = {.host = "127.0.0.1"};
                char why[512];

                lab_ssh_check_version(&d, "1", 600, NULL, why, sizeof(why));
                _exit(0);
        }
        client = pid_from(pidfile);
        kill(asker, SIGKILL);
        assert_int_equal(waitpid(asker, &status, 0), asker);
        gone = proc_wait_gone(client, 60000);
        if (!gone)
                kill(client, SIGKILL);
        unfake_ssh(dir, old);
        free(old);
        assert_true(gone);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_child_gets_defaults_and_stdio_only),
            cmocka_unit_test(test_die_with_parent_runs),
            cmocka_unit_test(test_ssh_child_gets_defaults_and_stdio_only),
            cmocka_unit_test(test_ssh_child_dies_with_parent),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
