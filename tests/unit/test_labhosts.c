/*
 * test_labhosts.c - a libvirt lab's host names from its URIs, and
 * --storage-hosts checked against them (in two-layer only) before any
 * connection.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "lab/labopts.h"

static void name_is(const char *uri, const char *want)
{
        char out[64];

        lab_uri_host_name(uri, out, sizeof(out));
        assert_string_equal(out, want);
}

static void test_names(void **state)
{
        char out[8];

        (void)state;
        name_is("qemu:///system", "localhost");
        name_is("qemu:///system?socket=/run/x/libvirt-sock", "localhost");
        name_is("qemu+ssh://h2/system", "h2");
        name_is("qemu+ssh://root@h2:2222/system", "h2");
        name_is("qemu+tcp://127.0.0.1:16509/system", "127.0.0.1");
        name_is("qemu+ssh://root@[fd00::7]:22/system", "fd00::7");
        name_is("qemu+ssh://h3?keyfile=/k", "h3");
        lab_uri_host("qemu:///system", out, sizeof(out));
        assert_string_equal(out, "");
        lab_uri_host("qemu+ssh://a-very-long-host/system", out, sizeof(out));
        assert_string_equal(out, ""); /* does not fit: none, never a cut name */
}

/* lab_spec over the defaults of lab_opts but topology, URIs and storage hosts. */
static int spec(int two_layer, const char *uris, const char *storage, char *err, size_t errlen)
{
        struct lab_cfg c = {
            .lab_dir = "runs/lab",
            .addr_base = "127.0.1",
            .target_addr = "127.0.0.1",
            .base_port = 13306,
            .target_port = 3260,
            .boot_timeout = 240,
            .vm_cpus = 1,
            .lun_size = 1 << 30,
            .topology = two_layer,
        };
        struct lab_spec s;
        const struct lab_backend_ops *ops;
        int rc;

        c.libvirt_uri = (char *)uris;
        c.storage_hosts = (char *)storage;
        err[0] = '\0';
        rc = lab_spec(&c, &s, &ops, err, errlen);
        if (!rc)
                assert_ptr_equal(s.storage_hosts, storage);
        return rc;
}

static void test_storage_hosts(void **state)
{
        const char *two = "qemu+ssh://root@s1/system,qemu+ssh://h1/system,qemu:///system";
        char err[512];

        (void)state;
        assert_int_equal(spec(1, two, "s1", err, sizeof(err)), 0);
        assert_int_equal(spec(1, two, "s1,localhost", err, sizeof(err)), 0);
        assert_int_equal(spec(1, two, NULL, err, sizeof(err)), 0);
        assert_int_equal(spec(0, two, NULL, err, sizeof(err)), 0);
        assert_int_equal(spec(1, two, "s1,s2", err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "option --storage-hosts: 's2' is not a host of --libvirt-uri"));
        assert_int_equal(spec(1, two, "root", err, sizeof(err)), -EINVAL); /* a user, not a host */
        assert_int_equal(spec(1, two, "s", err, sizeof(err)), -EINVAL);    /* no prefix match */
        assert_int_equal(spec(0, two, "s1", err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "only with --topology two-layer"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_names),
            cmocka_unit_test(test_storage_hosts),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
