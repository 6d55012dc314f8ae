/*
 * test_log.c - what log.c puts on stderr: one newline-terminated line per
 * call with the right prefix, nothing for info when quiet, long messages
 * cut rather than overflowing, and errno left as the caller had it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"

/* Point stderr at a temporary file and return what it captured. */
static int saved_fd = -1;
static FILE *capture;

static void capture_start(void)
{
        capture = tmpfile();
        assert_non_null(capture);
        saved_fd = dup(STDERR_FILENO);
        assert_true(saved_fd >= 0);
        assert_true(dup2(fileno(capture), STDERR_FILENO) >= 0);
}

static char *capture_end(void)
{
        int fd = fileno(capture);
        off_t len;
        char *out;

        assert_true(dup2(saved_fd, STDERR_FILENO) >= 0);
        close(saved_fd);
        len = lseek(fd, 0, SEEK_END);
        assert_true(len >= 0);
        out = calloc(1, (size_t)len + 1);
        assert_non_null(out);
        assert_int_equal(pread(fd, out, (size_t)len, 0), len);
        fclose(capture);
        return out;
}

static void test_prefixes(void **state)
{
        char *out;

        (void)state;
        log_set_quiet(0);
        capture_start();
        log_error("cannot open %s: %s", "/dev/x", "No such file");
        log_warn("steal %d%%", 12);
        log_info("ready");
        out = capture_end();
        assert_string_equal(out, "hcisweep: error: cannot open /dev/x: No such file\n"
                                 "hcisweep: warning: steal 12%\n"
                                 "hcisweep: ready\n");
        free(out);
}

static void test_quiet(void **state)
{
        char *out;

        (void)state;
        log_set_quiet(1);
        capture_start();
        log_info("hidden");
        log_warn("shown");
        log_error("shown too");
        out = capture_end();
        log_set_quiet(0);
        assert_string_equal(out, "hcisweep: warning: shown\nhcisweep: error: shown too\n");
        free(out);
}

static void test_long_line_cut(void **state)
{
        char *big = malloc(10000), *out;
        size_t len;

        (void)state;
        assert_non_null(big);
        memset(big, 'a', 9999);
        big[9999] = '\0';
        capture_start();
        log_error("%s", big);
        out = capture_end();
        len = strlen(out);
        assert_true(len > 1000 && len < 9999);
        assert_int_equal(strncmp(out, "hcisweep: error: aaa", 20), 0);
        assert_string_equal(out + len - 4, "...\n");
        assert_ptr_equal(strchr(out, '\n'), out + len - 1);
        free(out);
        free(big);
}

static void test_errno_kept(void **state)
{
        char *out;

        (void)state;
        capture_start();
        errno = ENOSPC;
        log_error("disk full");
        assert_int_equal(errno, ENOSPC);
        out = capture_end();
        free(out);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_prefixes),
            cmocka_unit_test(test_quiet),
            cmocka_unit_test(test_long_line_cut),
            cmocka_unit_test(test_errno_kept),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
