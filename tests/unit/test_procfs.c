/*
 * test_procfs.c - /proc/PID/stat of a child whose name holds spaces and
 * parentheses (the name is cut at the last ')'), of a zombie and of a PID
 * that does not exist; /proc/diskstats read line by line, and stopped by
 * the callback's return.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/procfs.h"

/* A child named name that waits on a pipe until closed; returns its PID. */
static pid_t child(const char *name, int *wfd)
{
        int fds[2], ready[2];
        char c;
        pid_t pid;

        assert_int_equal(pipe(fds), 0);
        assert_int_equal(pipe(ready), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(fds[1]);
                close(ready[0]);
                prctl(PR_SET_NAME, name, 0, 0, 0);
                if (write(ready[1], "x", 1) != 1)
                        _exit(1);
                while (read(fds[0], &c, 1) > 0)
                        ;
                _exit(0);
        }
        close(fds[0]);
        close(ready[1]);
        assert_int_equal(read(ready[0], &c, 1), 1);
        close(ready[0]);
        *wfd = fds[1];
        return pid;
}

static void test_pid_stat(void **state)
{
        struct procfs_stat st;
        int wfd, status;
        pid_t pid;

        (void)state;
        pid = child("a) b (c", &wfd);
        assert_int_equal(procfs_pid_stat((int)pid, &st), 0);
        assert_string_equal(st.comm, "a) b (c");
        assert_true(st.state == 'S' || st.state == 'R');
        assert_int_equal(st.ppid, (int)getpid());
        close(wfd);
        /* exited but not reaped: still there, as a zombie */
        for (int i = 0; i < 500; i++) {
                assert_int_equal(procfs_pid_stat((int)pid, &st), 0);
                if (st.state == 'Z')
                        break;
                usleep(10000);
        }
        assert_int_equal(st.state, 'Z');
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_int_equal(procfs_pid_stat((int)pid, &st), -ENOENT);
        assert_int_equal(procfs_pid_stat(0, &st), -ENOENT);
}

/* CPU time only grows, and is counted in ticks that procfs_tick_ns converts. */
static void test_cpu_time(void **state)
{
        struct procfs_stat a, b;
        volatile unsigned long spin = 0;

        (void)state;
        assert_true(procfs_tick_ns() > 0 && 1000000000ull % procfs_tick_ns() == 0);
        assert_int_equal(procfs_pid_stat((int)getpid(), &a), 0);
        do {
                for (unsigned i = 0; i < 1000000; i++)
                        spin++;
                assert_int_equal(procfs_pid_stat((int)getpid(), &b), 0);
        } while (b.utime + b.stime == a.utime + a.stime);
        assert_true(b.utime + b.stime > a.utime + a.stime);
        assert_int_equal(b.state, 'R');
}

struct seen {
        unsigned n, stop_at;
        struct procfs_disk first;
};

static int on_disk(void *user, const struct procfs_disk *d)
{
        struct seen *s = user;

        if (!s->n++)
                s->first = *d;
        assert_true(d->name[0] != '\0');
        assert_true(d->rd_sectors >= d->rd_ios); /* a read moves one sector or more */
        return s->stop_at && s->n == s->stop_at ? 7 : 0;
}

/*
 * The file's first device (devices come and go while other programs run,
 * so the counts are not compared), whose counters only grow, and a stop
 * on the callback's return.
 */
static void test_diskstats(void **state)
{
        struct seen all = {0}, one = {.stop_at = 1};
        char line[512], name[64] = "";
        FILE *f = fopen("/proc/diskstats", "re");

        (void)state;
        if (!f)
                skip();
        if (!fgets(line, sizeof(line), f) || sscanf(line, "%*u %*u %63s", name) != 1)
                name[0] = '\0';
        fclose(f);
        assert_int_equal(procfs_diskstats(on_disk, &all), 0);
        if (!name[0]) {
                assert_int_equal(all.n, 0);
                return;
        }
        assert_true(all.n >= 1);
        assert_int_equal(procfs_diskstats(on_disk, &one), 7);
        assert_int_equal(one.n, 1);
        if (strcmp(one.first.name, all.first.name) || strcmp(name, all.first.name))
                return; /* the first device went away between the reads */
        assert_true(one.first.rd_ios >= all.first.rd_ios);
        assert_true(one.first.wr_sectors >= all.first.wr_sectors);
        assert_true(one.first.io_ms >= all.first.io_ms);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_pid_stat),
            cmocka_unit_test(test_cpu_time),
            cmocka_unit_test(test_diskstats),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
