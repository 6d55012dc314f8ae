/*
 * labopts.c - the lab's option table and its checks. Where the commands
 * once had texts of their own, the help here is the fuller of the two.
 */
#include "lab/labopts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>

static const char *const topology_names[] = {"hci", "two-layer", NULL};
static const char *const datadir_names[] = {"lun", "host", NULL};

#define O(f) offsetof(struct lab_cfg, f)
const struct opt_def lab_opts[] = {
    {"backend", OPT_ENUM, O(backend), "local", 0, 0, "where the VMs come from", lab_backend_names,
     0},
    {"inventory", OPT_STR, O(inventory), NULL, 0, 0,
     "static: INI file, one [section] per server (host, port, user, password_file, database)", NULL,
     OPT_F_PATH},
    {"vm-cpus", OPT_DOUBLE, O(vm_cpus), "1", 0, 1024,
     "CPU limit per VM in CPUs (cgroup v2 cpu.max or v1 CFS quota; 0.5 allowed; 0: none, "
     "and the only way to run where the host has no cgroup CPU controller)",
     NULL, 0},
    {"vm-memory", OPT_SIZE, O(vm_memory), "512M", 0, 0,
     "memory limit per VM (buffer pool: half of it, at least 32M; 0: none)", NULL, 0},
    {"topology", OPT_ENUM, O(topology), "hci", 0, 0,
     "hci: VMs and storage share the CPUs; two-layer: storage gets a CPU of its own",
     topology_names, 0},
    {"datadir-on", OPT_ENUM, O(datadir_on), "lun", 0, 0,
     "local: each VM's datadir on its iSCSI LUN (through qemu-storage-daemon, a loop device and "
     "ext4: the storage service in the data path) or on this host's disk",
     datadir_names, 0},
    {"lab-dir", OPT_STR, O(lab_dir), "runs/lab", 0, 0,
     "local: state directory (datadirs, LUN files, logs, state)", NULL, OPT_F_PATH},
    {"addr-base", OPT_STR, O(addr_base), "127.0.1", 0, 0,
     "local: VM N listens on ADDR-BASE.N (ADDR-BASE is 127.A.B, so in 127.0.0.0/8)", NULL, 0},
    {"base-port", OPT_INT, O(base_port), "13306", 1, 65535, "local: port of every VM's server",
     NULL, 0},
    {"target-addr", OPT_STR, O(target_addr), "127.0.0.1", 0, 0,
     "IPv4 address the storage service's iSCSI portal listens on; VMs on other hypervisor "
     "hosts (--libvirt-uri) need one they can reach",
     NULL, 0},
    {"target-port", OPT_INT, O(target_port), "3260", 1, 65535,
     "iSCSI portal port of the storage service", NULL, 0},
    {"lun-size", OPT_SIZE, O(lun_size), "1G", 0, 0, "local: size of each VM's LUN file", NULL, 0},
    {"libvirt-uri", OPT_STR, O(libvirt_uri), "qemu:///system", 0, 0,
     "libvirt: connection URIs, comma-separated (qemu+ssh://HOST/system); VMs go round-robin", NULL,
     OPT_F_LIST},
    {"boot-timeout", OPT_INT, O(boot_timeout), "240", 5, 3600,
     "qemu, libvirt: seconds for a VM to boot and its database to answer", NULL, 0},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};
#undef O

/* ADDR-BASE is three dotted numbers 127.A.B, so ADDR-BASE.N is loopback. */
static int check_addr_base(const char *s, char *err, size_t errlen)
{
        unsigned a, b;
        char tail;

        if (sscanf(s, "127.%u.%u%c", &a, &b, &tail) != 2 || a > 255 || b > 255) {
                snprintf(err, errlen, "option --addr-base: '%s' is not 127.A.B", s);
                return -EINVAL;
        }
        return 0;
}

int lab_spec(const struct lab_cfg *c, struct lab_spec *spec, const struct lab_backend_ops **ops,
             char *err, size_t errlen)
{
        struct in_addr in;
        int rc;

        *ops = lab_backends[c->backend];
        rc = check_addr_base(c->addr_base, err, errlen);
        if (rc < 0)
                return rc;
        if (inet_pton(AF_INET, c->target_addr, &in) != 1 || in.s_addr == htonl(INADDR_ANY)) {
                snprintf(err, errlen,
                         "option --target-addr: '%s' is not an IPv4 address VMs can connect to",
                         c->target_addr);
                return -EINVAL;
        }
        /* the kernel's smallest CFS quota is 1 ms of each 100 ms period */
        if (c->vm_cpus > 0 && c->vm_cpus < 0.01) {
                snprintf(err, errlen,
                         "option --vm-cpus: %g is below the smallest CPU quota 0.01 "
                         "(0: no limit)",
                         c->vm_cpus);
                return -EINVAL;
        }
        if (c->lun_size < (1 << 20)) {
                snprintf(err, errlen, "option --lun-size: at least 1M");
                return -EINVAL;
        }
        *spec = (struct lab_spec){
            .lab_dir = c->lab_dir,
            .inventory = c->inventory,
            .addr_base = c->addr_base,
            .base_port = (unsigned)c->base_port,
            .target_addr = c->target_addr,
            .target_port = (unsigned)c->target_port,
            .vm_cpus = c->vm_cpus,
            .vm_memory = c->vm_memory,
            .lun_size = c->lun_size,
            .topology = c->topology ? LAB_TWO_LAYER : LAB_HCI,
            .datadir_on = c->datadir_on ? LAB_DATADIR_HOST : LAB_DATADIR_LUN,
            .libvirt_uri = c->libvirt_uri,
            .boot_timeout_s = (int)c->boot_timeout,
        };
        return 0;
}
