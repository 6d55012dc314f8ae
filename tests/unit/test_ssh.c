/*
 * test_ssh.c - ssh destinations as an inventory gives them, checked before
 * any connection, and the OpenSSH client's command line: fixed batch-mode
 * options, the destination never taken for an option, every remote word
 * single-quoted so the shell there sees it as one word.
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

#include "lab/ssh.h"

static void parses(const char *s, const char *user, const char *host, unsigned port,
                   const char *name)
{
        struct lab_ssh d = {0};
        char err[300], out[300];

        assert_int_equal(lab_ssh_parse(s, &d, err, sizeof(err)), 0);
        assert_string_equal(d.user, user);
        assert_string_equal(d.host, host);
        assert_int_equal(d.port, port);
        lab_ssh_name(&d, out, sizeof(out));
        assert_string_equal(out, name);
}

static void refused(const char *s, const char *frag)
{
        struct lab_ssh d = {0};
        char err[300];

        assert_int_equal(lab_ssh_parse(s, &d, err, sizeof(err)), -EINVAL);
        if (!strstr(err, frag))
                fail_msg("'%s': '%s' lacks '%s'", s, err, frag);
}

static void test_parse(void **state)
{
        (void)state;
        unsetenv("HCISWEEP_LOOPBACK_ONLY");
        parses("root@10.0.0.1:2222", "root", "10.0.0.1", 2222, "root@10.0.0.1:2222");
        parses("h1", "", "h1", 0, "h1");
        parses("bench.user@h1.example", "bench.user", "h1.example", 0, "bench.user@h1.example");
        parses("[fd00::1]:22", "", "fd00::1", 22, "[fd00::1]:22");
        parses("u@::1", "u", "::1", 0, "u@::1");
        refused("root@", "an empty host");
        refused("", "an empty host");
        refused("-oProxyCommand=x", "not a host name");
        refused("-l@h1", "the user before '@'");
        refused("a b@h1", "the user before '@'");
        refused("@h1", "the user before '@'");
        refused("root@h1:0", "1..65535");
        refused("root@h1:22:22", "more than one ':'");
        refused("root@x@h1", "does not belong in a host");
        refused("ssh://h1", "a URL is not a host");
        refused("root@h1;reboot", "not a host name");
        setenv("HCISWEEP_LOOPBACK_ONLY", "1", 1);
        parses("root@127.0.3.4:10022", "root", "127.0.3.4", 10022, "root@127.0.3.4:10022");
        parses("[::1]:22", "", "::1", 22, "[::1]:22");
        refused("root@192.0.2.7", "loopback IP literals only");
        refused("localhost", "loopback IP literals only");
        unsetenv("HCISWEEP_LOOPBACK_ONLY");
}

static void quotes(const char *word, const char *want)
{
        struct sbuf b = {0};

        lab_ssh_quote(&b, word);
        assert_false(b.oom);
        assert_string_equal(b.s, want);
        sb_free(&b);
}

static void test_quote(void **state)
{
        (void)state;
        quotes("", "''");
        quotes("plain", "'plain'");
        quotes("it's", "'it'\\''s'");
        quotes("'", "''\\'''");
        quotes("$(reboot) `x` \"a\" \\ *", "'$(reboot) `x` \"a\" \\ *'");
        quotes("a\nb", "'a\nb'");
}

static void test_cmd(void **state)
{
        const char *const words[] = {"/local/hcisweep", "oltp", "run", "--mysql-db=it's", NULL};
        struct lab_ssh d = {.user = "root",
                            .host = "127.0.0.5",
                            .port = 2222,
                            .config = "/t/ssh config",
                            .hcisweep = "/opt/h c/hcisweep"};
        struct lab_ssh_cmd c;
        char line[1024] = "";
        unsigned n = 0;

        (void)state;
        assert_int_equal(lab_ssh_cmd_build(&c, &d, words), 0);
        for (; c.argv[n]; n++) {
                strcat(line, n ? "|" : "");
                strcat(line, c.argv[n]);
        }
        assert_string_equal(line,
                            "ssh|-T|-a|-x|-e|none|-o|BatchMode=yes|-o|ConnectTimeout=10|-o|"
                            "ServerAliveInterval=10|-o|ServerAliveCountMax=3|-F|/t/ssh config|"
                            "-p|2222|-l|root|127.0.0.5|--|'/opt/h c/hcisweep' 'oltp' 'run' "
                            "'--mysql-db=it'\\''s'");
        lab_ssh_cmd_free(&c);

        /* nothing of ssh's own left unset in the inventory is forced: its config decides */
        memset(&d, 0, sizeof(d));
        snprintf(d.host, sizeof(d.host), "h1");
        assert_int_equal(lab_ssh_cmd_build(&c, &d, words), 0);
        for (n = 0; c.argv[n]; n++) {
                assert_string_not_equal(c.argv[n], "-p");
                assert_string_not_equal(c.argv[n], "-l");
                assert_string_not_equal(c.argv[n], "-F");
        }
        assert_string_equal(c.argv[n - 3], "h1");
        assert_string_equal(c.argv[n - 1], "'hcisweep' 'oltp' 'run' '--mysql-db=it'\\''s'");
        lab_ssh_cmd_free(&c);
}

static void test_same(void **state)
{
        struct lab_ssh a = {.user = "root", .host = "10.0.0.1", .port = 22};
        struct lab_ssh b = a;

        (void)state;
        assert_true(lab_ssh_same(&a, &b));
        snprintf(b.hcisweep, sizeof(b.hcisweep), "/opt/hcisweep");
        assert_false(lab_ssh_same(&a, &b)); /* another binary there: checked apart */
        b = a;
        b.port = 2222;
        assert_false(lab_ssh_same(&a, &b));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_parse),
            cmocka_unit_test(test_quote),
            cmocka_unit_test(test_cmd),
            cmocka_unit_test(test_same),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
