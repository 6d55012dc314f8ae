/*
 * backend_qemu.c - the `qemu` backend: every VM is a real guest, one QEMU
 * process each, booting the Debian image of scripts/build-guest-image.sh
 * ($HCISWEEP_GUEST_DIR/current, default /var/tmp/hcisweep-guest/current)
 * from a qcow2 overlay LAB/vmN/root.qcow2. Its database disk is LUN N of
 * the lab's tgtd (127.0.0.1:TARGET_PORT), opened by QEMU's own iSCSI
 * driver, so every database write goes guest -> QEMU -> iSCSI -> target:
 * the hyperconverged path; its load LUN (tid 2) is the guest's third disk,
 * GUEST_LOAD_DISK, for block clients in the guest. The LUN's file is formatted from the host with
 * mkfs.ext4 -d before the target serves it, carrying init.sql (database,
 * root@'%' with the lab password) and my.cnf; the guest keeps its datadir
 * on it. MariaDB's port 3306 is forwarded by user-mode networking to
 * ADDR_BASE.N:BASE_PORT on the host. KVM is used when a probe boot shows it
 * works, TCG (emulation, much slower) otherwise.
 *
 * State (PIDs, addresses, the target) goes to LAB/state and every op
 * holds the lab's lock (labdir.h), as in the local backend, so `lab down`
 * from another process finds every QEMU and the tgtd (target.h).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/driverproto.h"
#include "core/log.h"
#include "lab/backend.h"
#include "lab/guest.h"
#include "lab/guest_driver.h"
#include "lab/labdir.h"
#include "lab/labhost.h"
#include "lab/labstate.h"
#include "lab/proc.h"
#include "lab/qmp.h"
#include "lab/target.h"

#define QEMU      "qemu-system-x86_64"
#define QEMU_COMM "qemu-system-x86" /* /proc/PID/comm keeps 15 characters */
/* TCG's translation cache defaults to 1 GiB per VM; a small guest needs far less. */
#define TCG_ACCEL  "tcg,tb-size=256"
#define PROBE_MS   6000U
#define VM_STOP_MS 15000U

enum accel { ACCEL_UNKNOWN, ACCEL_KVM, ACCEL_TCG };

struct lab_backend {
        struct lab_host h; /* first: labhost.h */
        guest_dir_t guest;
        enum accel accel;
        int agent_checked[LAB_MAX_VMS + 1]; /* the guest's hcisweep is this one */
};

static int qemu_open(const struct lab_spec *spec, struct lab_backend **out, char *err,
                     size_t errlen)
{
        int rc = lab_host_open(sizeof(struct lab_backend), spec, "qemu", out, err, errlen);

        if (!rc)
                guest_dir((*out)->guest);
        return rc;
}

/* ---- prerequisites, password ------------------------------------------- */

static int in_path(const char *prog)
{
        const char *path = getenv("PATH");
        char buf[PATH_MAX];

        for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
                size_t n = strcspn(p, ":");

                snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, prog);
                if (access(buf, X_OK) == 0)
                        return 1;
                p += n + (p[n] == ':');
        }
        return 0;
}

static int check_tools(struct lab_backend *b, char *err, size_t errlen)
{
        static const char *const progs[] = {QEMU, "qemu-img", "tgtd", "tgtadm", "mkfs.ext4"};
        for (size_t k = 0; k < sizeof(progs) / sizeof(progs[0]); k++)
                if (!in_path(progs[k])) {
                        snprintf(err, errlen,
                                 "qemu backend: %s not found; install qemu-system-x86, "
                                 "qemu-utils, qemu-block-extra, tgt and e2fsprogs "
                                 "(scripts/install-deps.sh)",
                                 progs[k]);
                        return -ENOENT;
                }
        return guest_check(b->guest, "qemu", err, errlen);
}

/* ---- VMs: provisioning --------------------------------------------------- */

static int qemu_create(struct lab_backend *b, unsigned n, char *err, size_t errlen)
{
        int rc = guest_check_plan(b->h.spec, n, "qemu", err, errlen);

        if (!rc)
                rc = check_tools(b, err, errlen);
        if (rc < 0)
                return rc;
        return guest_create_vms(&b->h.lab, b->guest, b->h.spec, n, err, errlen);
}

/* ---- VMs: running -------------------------------------------------------- */

/* Does a kernel get anywhere under KVM within a few seconds? /dev/kvm can
 * exist and still not boot a guest (nested virtualisation), hence a boot. */
static int kvm_boots(struct lab_backend *b)
{
        lab_path_t kernel, log;
        char serial[sizeof(lab_path_t) + 8], buf[4096];
        char *argv[] = {QEMU,         "-accel",  "kvm",     "-nodefaults",
                        "-display",   "none",    "-m",      "128",
                        "-kernel",    kernel,    "-append", "console=ttyS0 panic=-1",
                        "-no-reboot", "-serial", serial,    NULL};
        int ok = 0;
        pid_t pid;

        if (access("/dev/kvm", R_OK | W_OK) < 0)
                return 0;
        guest_path(b->guest, "vmlinuz", kernel);
        snprintf(log, sizeof(log), "%s/kvm-probe.log", b->h.lab.dir);
        snprintf(serial, sizeof(serial), "file:%s", log);
        unlink(log);
        if (proc_spawn(&(struct proc_spawn){argv, "/dev/null", NULL, NULL}, &pid, buf,
                       sizeof(buf)) < 0)
                return 0;
        for (unsigned waited = 0; !ok && waited < PROBE_MS; waited += 200) {
                FILE *f = fopen(log, "re");
                size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

                if (f)
                        fclose(f);
                buf[n] = '\0';
                ok = strstr(buf, "Linux version") != NULL;
                if (!ok && !proc_alive(pid, QEMU_COMM))
                        break;
                if (!ok)
                        clk_sleep_ns(200 * 1000000ULL);
        }
        proc_stop(pid, QEMU_COMM, SIGKILL, 2000, buf, sizeof(buf));
        unlink(log);
        return ok;
}

static void choose_accel(struct lab_backend *b)
{
        if (b->accel != ACCEL_UNKNOWN)
                return;
        b->accel = kvm_boots(b) ? ACCEL_KVM : ACCEL_TCG;
        if (b->accel == ACCEL_TCG)
                log_warn("qemu: KVM cannot boot a guest here, using TCG: VMs are emulated, "
                         "so their figures measure emulation, not a hypervisor");
}

static int vm_spawn(struct lab_backend *b, unsigned i, const struct lab_endpoint *ep, char *err,
                    size_t errlen)
{
        struct lab_vm *v = &b->h.lab.st.vm[i];
        char name[96], smp[16], mem[32], net[128];
        lab_path_t kernel, initrd, log;
        char root[sizeof(lab_path_t) + 48], data[LAB_PATH_MAX + 48], serial[sizeof(lab_path_t) + 8],
            qmp[sizeof(lab_path_t) + 32], qga[sizeof(lab_path_t) + 48], load[LAB_PATH_MAX + 48];
        int kvm = b->accel == ACCEL_KVM;
        char *argv[] = {QEMU,
                        "-name",
                        name,
                        "-accel",
                        kvm ? "kvm" : TCG_ACCEL,
                        "-cpu",
                        kvm ? "host" : "max",
                        "-smp",
                        smp,
                        "-m",
                        mem,
                        "-nodefaults",
                        "-display",
                        "none",
                        "-no-reboot",
                        "-qmp",
                        qmp,
                        "-serial",
                        serial,
                        "-kernel",
                        kernel,
                        "-initrd",
                        initrd,
                        "-append",
                        "root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=-1 quiet",
                        "-drive",
                        root,
                        "-drive",
                        data,
                        "-netdev",
                        net,
                        "-device",
                        "virtio-net-pci,netdev=n0",
                        "-device",
                        "virtio-serial",
                        "-chardev",
                        qga,
                        "-device",
                        "virtserialport,chardev=qga0,name=org.qemu.guest_agent.0",
                        "-drive",
                        load,
                        NULL};
        const size_t load_at = sizeof(argv) / sizeof(argv[0]) - 3;

        /* Then the guest agent's port (guest_driver.h) and the load LUN.
         * libiscsi's initiator name comes from -name: one per VM, so tgtd
         * never takes two VMs' logins for one initiator reconnecting. */
        snprintf(name, sizeof(name), "hcisweep-%s-vm%u", b->h.lab.st.name, i);
        snprintf(smp, sizeof(smp), "%u", (unsigned)fmax(1, ceil(b->h.spec->vm_cpus)));
        snprintf(mem, sizeof(mem), "%lluM", (unsigned long long)(guest_vm_memory(b->h.spec) >> 20));
        snprintf(net, sizeof(net), "user,id=n0,hostfwd=tcp:%s:%u-:3306", ep->host, ep->port);
        guest_path(b->guest, "vmlinuz", kernel);
        guest_path(b->guest, "initrd.img", initrd);
        labdir_vm_path(&b->h.lab, i, "console.log", log);
        snprintf(serial, sizeof(serial), "file:%s", log);
        labdir_vm_path(&b->h.lab, i, "qmp.sock", log);
        snprintf(qmp, sizeof(qmp), "unix:%s,server=on,wait=off", log);
        labdir_vm_path(&b->h.lab, i, "qga.sock", log);
        snprintf(qga, sizeof(qga), "socket,path=%s,server=on,wait=off,id=qga0", log);
        labdir_vm_path(&b->h.lab, i, "root.qcow2", log);
        snprintf(root, sizeof(root), "file=%s,format=qcow2,if=virtio", log);
        snprintf(data, sizeof(data), "file=%s,format=raw,if=virtio", ep->lun_url);
        /* its load LUN, the third virtio disk: the guest's GUEST_LOAD_DISK (guest.h); a lab
         * made before load LUNs has none, and its block clients are refused (no target) */
        if (ep->load_lun_url[0])
                snprintf(load, sizeof(load), "file=%s,format=raw,if=virtio", ep->load_lun_url);
        else
                argv[load_at] = NULL;
        labdir_vm_path(&b->h.lab, i, "qemu.log", log);
        return proc_spawn(&(struct proc_spawn){argv, log, NULL, NULL}, &v->pid, err, errlen);
}

static int qemu_alive(void *ctx, char *err, size_t errlen)
{
        const struct lab_vm *v = ctx;

        (void)err;
        (void)errlen;
        return proc_alive(v->pid, QEMU_COMM);
}

/* Until MariaDB in the guest answers through the forwarded port. */
static int vm_wait_ready(struct lab_backend *b, unsigned i, const struct lab_endpoint *ep,
                         char *err, size_t errlen)
{
        const struct guest_boot boot = {
            .lab = &b->h.lab,
            .vm = i,
            .ep = ep,
            .timeout_s = b->h.spec->boot_timeout_s,
            .cancel = b->h.spec->cancel,
            .stopped = "QEMU exited during boot",
            .hv_log = "qemu.log",
            .hv_label = "qemu",
            .alive = qemu_alive,
            .ctx = &b->h.lab.st.vm[i],
        };

        return guest_wait_ready(&boot, err, errlen);
}

/* Ask a running guest to shut down (qmp.h says why); 1 if it was asked. */
static int qemu_powerdown(struct lab_backend *b, unsigned i)
{
        lab_path_t sock;
        char why[256];

        if (i < 1 || i > b->h.lab.st.nvms || !b->h.lab.st.vm[i].exists ||
            !proc_alive(b->h.lab.st.vm[i].pid, QEMU_COMM))
                return 0;
        labdir_vm_path(&b->h.lab, i, "qmp.sock", sock);
        if (qmp_ctrl_alt_del(sock, why, sizeof(why)) < 0) {
                log_warn("vm%u: no orderly shutdown, switching it off: %s", i, why);
                return 0;
        }
        return 1;
}

static int vm_running(struct lab_backend *b, unsigned i, char *err, size_t errlen)
{
        return qemu_alive(&b->h.lab.st.vm[i], err, errlen);
}

/* After an orderly shutdown, or in its place: SIGTERM, then SIGKILL. */
static int qemu_off(struct lab_backend *b, unsigned i, int asked, char *err, size_t errlen)
{
        lab_path_t sock;
        int rc;

        if (asked && !guest_wait_off(b, i, vm_running, qemu_powerdown, GUEST_SHUTDOWN_MS))
                log_warn("vm%u: still running %u s after Ctrl-Alt-Del, switching it off", i,
                         GUEST_SHUTDOWN_MS / 1000);
        rc = labdir_stop_vm(&b->h.lab, i, QEMU_COMM, VM_STOP_MS, err, errlen);
        if (!rc && i >= 1 && i <= b->h.lab.st.nvms && i <= LAB_MAX_VMS) {
                labdir_vm_path(&b->h.lab, i, "qmp.sock", sock);
                unlink(sock);
                labdir_vm_path(&b->h.lab, i, "qga.sock", sock);
                unlink(sock);
                b->agent_checked[i] = 0;
        }
        return rc;
}

static int qemu_stop(struct lab_backend *b, unsigned i, char *err, size_t errlen)
{
        return qemu_off(b, i, qemu_powerdown(b, i), err, errlen);
}

static int qemu_start(struct lab_backend *b, unsigned i, int *started, char *err, size_t errlen)
{
        struct lab_endpoint ep;
        char ignored[256];
        int rc = lab_host_endpoint(b, i, &ep, err, errlen);

        *started = 0;
        if (rc < 0)
                return rc;
        if (!ep.lun_url[0]) {
                snprintf(err, errlen, "vm%u has no LUN on the target: run create first", i);
                return -ENOENT;
        }
        if (!proc_alive(b->h.lab.st.vm[i].pid, QEMU_COMM)) {
                choose_accel(b);
                rc = vm_spawn(b, i, &ep, err, errlen);
                if (rc < 0)
                        return rc;
                *started = 1;
                rc = labdir_save(&b->h.lab, err, errlen);
        }
        if (!rc)
                rc = vm_wait_ready(b, i, &ep, err, errlen);
        if (rc < 0 && *started) /* a VM that did not come up is not left running */
                qemu_stop(b, i, ignored, sizeof(ignored));
        return rc;
}

/* ---- teardown ------------------------------------------------------------ */

static int qemu_destroy(struct lab_backend *b, int purge, char *err, size_t errlen)
{
        return guest_destroy(b, &b->h.lab, qemu_powerdown, qemu_off, purge, "qemu.log", err,
                             errlen);
}

/* VM i's driver in its guest, through the agent on its chardev socket. */
static int qemu_spawn(struct lab_backend *b, unsigned i, const struct proc_spawn *sp,
                      const int *stdio, pid_t *pid, char *err, size_t errlen)
{
        lab_path_t sock;
        int rc = labdir_check_vm(&b->h.lab, i, err, errlen);

        if (rc < 0)
                return rc;
        labdir_vm_path(&b->h.lab, i, "qga.sock", sock);
        return guest_driver_spawn(&(struct guest_agent){.socket = sock}, i, sp, stdio,
                                  b->h.spec->cancel, &b->agent_checked[i], pid, err, errlen);
}

static int qemu_stats(struct lab_backend *b, unsigned i, struct lab_vm_stats *st, char *err,
                      size_t errlen)
{
        const struct lab_vm *v;
        int rc = labdir_check_vm(&b->h.lab, i, err, errlen);

        if (rc < 0)
                return rc;
        v = &b->h.lab.st.vm[i];
        memset(st, 0, sizeof(*st));
        st->pid = v->pid;
        st->alive = proc_alive(v->pid, QEMU_COMM);
        st->cpu_usage_ns = st->alive ? proc_cpu_ns(v->pid) : -1;
        st->mem_usage = st->alive ? proc_rss(v->pid) : -1;
        st->cpu_limit = fmax(1, ceil(b->h.spec->vm_cpus)); /* vCPUs */
        st->mem_limit = (int64_t)guest_vm_memory(b->h.spec);
        snprintf(st->where, sizeof(st->where), "%s/vm%u/console.log", b->h.lab.dir, i);
        st->datadir_on = LAB_DATADIR_LUN; /* the guest's vdb is its LUN */
        snprintf(st->initiator, sizeof(st->initiator), "qemu (its iscsi block driver)");
        st->initiator_pid = st->alive ? v->pid : -1;
        return 0;
}

const struct lab_backend_ops lab_backend_qemu = {
    .name = "qemu",
    .help = "a QEMU guest per VM (KVM if it boots, else TCG), database disk on the lab's tgtd",
    .can_start = 1,
    .has_storage = 1,
    .driver_where = "guest",
    .spawn_streams = 1, /* guest_driver.h: a --start-on-go driver's lines are streamed */
    .driver_carrier = &dp_carrier_guest,
    .open = qemu_open,
    .count = lab_host_count,
    .create = qemu_create,
    .start = qemu_start,
    .stop = qemu_stop,
    .destroy = qemu_destroy,
    .endpoint = lab_host_endpoint,
    .exec = lab_host_no_exec,
    .spawn = qemu_spawn,
    .stats = qemu_stats,
    .storage = lab_host_storage,
    .close = lab_host_close,
};
