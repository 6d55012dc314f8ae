/*
 * backend_libvirt.c - the `libvirt` backend: every VM is a transient libvirt
 * domain, placed round-robin over the connection URIs of --libvirt-uri
 * (VM N on URI (N-1) mod count), so one lab can span hypervisor hosts. The
 * guest is the one of the qemu backend: the image of
 * scripts/build-guest-image.sh booted directly from its kernel and initrd,
 * root disk a qcow2 overlay LAB/vmN/root.qcow2, database disk LUN N of the
 * lab's tgtd as a libvirt iSCSI network disk (LUN file pre-formatted from
 * the host with init.sql and my.cnf), load LUN N (tid 2) as a third one, the
 * guest's GUEST_LOAD_DISK for block clients in the guest (`block --clients
 * vms`, started by the guest agent's streaming bridge, guest_driver.h, as the
 * qemu backend's are), and MariaDB's port 3306 forwarded to
 * ADDR_BASE.N:BASE_PORT by QEMU's user-mode network, passed to QEMU through
 * libvirt's qemu:commandline (libvirt 9.0 forwards ports of a user
 * interface only with passt). Domains are named hcisweep-LAB-vmN, so a later
 * process finds them by name; the rest of the state (addresses, the target)
 * lives in LAB/state under the lab's lock (labdir.h, target.h).
 *
 * A URI naming a host (qemu+ssh://host2/system) puts VMs on another
 * hypervisor. Their MariaDB port is forwarded on every address of that host,
 * one port per VM (BASE_PORT + N), and reached at HOST:BASE_PORT+N; the
 * portal must be an address of this host that the hypervisor reaches
 * (--target-addr; a loopback portal is refused for a host that is not
 * loopback itself); and the domain names this host's paths (the guest
 * directory and the lab directory), so they must be shared at the same
 * paths there (NFS).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <linux/input-event-codes.h>

#include "core/driverproto.h"
#include "core/log.h"
#include "lab/backend.h"
#include "lab/guest.h"
#include "lab/guest_driver.h"
#include "lab/hostsrc_libvirt.h"
#include "lab/labdir.h"
#include "lab/labhost.h"
#include "lab/labopts.h"
#include "lab/labstate.h"
#include "lab/proc.h"
#include "lab/target.h"

#define QEMU_COMM   "qemu-system-x86"
#define DEFAULT_URI "qemu:///system"
#define MAX_URIS    16
#define XML_MAX     8192

struct lab_backend {
        struct lab_host h; /* first: labhost.h */
        guest_dir_t guest;
        char *uris;                                 /* copy of --libvirt-uri, cut at the commas */
        const char *uri[MAX_URIS];                  /* pointers into uris */
        virConnectPtr conn[MAX_URIS];               /* opened on first use */
        struct hostsrc_libvirt_conn lend[MAX_URIS]; /* lent to URI k's host source */
        unsigned nuris;
        int agent_checked[LAB_MAX_VMS + 1]; /* the guest's hcisweep is this one */
};

static void lv_quiet(void *opaque, virErrorPtr e)
{
        (void)opaque;
        (void)e; /* errors are reported through err, not libvirt's stderr line */
}

static const char *lv_last_error(void)
{
        const char *m = virGetLastErrorMessage();

        return m ? m : "unknown libvirt error";
}

/* ---- connections --------------------------------------------------------- */

static int split_uris(struct lab_backend *b, const char *list, char *err, size_t errlen)
{
        char *save = NULL;

        b->uris = strdup(list && list[0] ? list : DEFAULT_URI);
        if (!b->uris) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        for (char *u = strtok_r(b->uris, ",", &save); u; u = strtok_r(NULL, ",", &save)) {
                if (b->nuris == MAX_URIS || !strstr(u, "://") || strstr(u, "://") == u) {
                        snprintf(err, errlen,
                                 "option --libvirt-uri: '%s' is not a libvirt URI "
                                 "(DRIVER://[HOST]/PATH), or more than %d of them",
                                 u, MAX_URIS);
                        return -EINVAL;
                }
                b->uri[b->nuris++] = u;
        }
        if (!b->nuris) {
                snprintf(err, errlen, "option --libvirt-uri: no URI in '%s'", list);
                return -EINVAL;
        }
        return 0;
}

static unsigned vm_uri(const struct lab_backend *b, unsigned i)
{
        return (i - 1) % b->nuris;
}

static int is_loopback(const char *host)
{
        return !strncmp(host, "127.", 4) || !strcmp(host, "localhost");
}

/* A remote VM: its port is forwarded on every address of its host. */
static void place_vm(struct lab_backend *b, unsigned i)
{
        char host[64];

        lab_uri_host(b->uri[vm_uri(b, i)], host, sizeof(host));
        if (!host[0])
                return;
        snprintf(b->h.lab.st.vm[i].addr, sizeof(b->h.lab.st.vm[i].addr), "%s", host);
        b->h.lab.st.vm[i].port = b->h.spec->base_port + i;
}

/* A hypervisor that is not this host cannot reach a loopback portal. */
static int check_portal(const struct lab_backend *b, char *err, size_t errlen)
{
        const char *portal = b->h.spec->target_addr ? b->h.spec->target_addr : "127.0.0.1";
        char host[64];

        for (unsigned k = 0; k < b->nuris; k++) {
                lab_uri_host(b->uri[k], host, sizeof(host));
                if (host[0] && !is_loopback(host) && is_loopback(portal)) {
                        snprintf(err, errlen,
                                 "option --target-addr: VMs on %s cannot reach the iSCSI portal "
                                 "on %s; give an address of this host that %s reaches",
                                 host, portal, host);
                        return -EINVAL;
                }
        }
        return 0;
}

/* The connection to URI k (0-based), opened on first use. */
static int lv_connect_uri(struct lab_backend *b, unsigned k, virConnectPtr *out, char *err,
                          size_t errlen)
{
        virErrorPtr e;

        if (!b->conn[k]) {
                b->conn[k] = virConnectOpen(b->uri[k]);
                if (!b->conn[k]) {
                        e = virGetLastError();
                        snprintf(err, errlen, "libvirt %s: %s", b->uri[k], lv_last_error());
                        /* No driver for the scheme or a malformed URI: bad input. */
                        if (e && (e->code == VIR_ERR_NO_CONNECT || e->code == VIR_ERR_INVALID_ARG ||
                                  e->code == VIR_ERR_PARSE_FAILED))
                                return -EINVAL;
                        return -ECONNREFUSED;
                }
        }
        *out = b->conn[k];
        return 0;
}

/* The connection of VM i's URI. */
static int lv_connect(struct lab_backend *b, unsigned i, virConnectPtr *out, char *err,
                      size_t errlen)
{
        return lv_connect_uri(b, vm_uri(b, i), out, err, errlen);
}

static void domain_name(const struct lab_backend *b, unsigned i, char *out, size_t outlen)
{
        snprintf(out, outlen, "hcisweep-%s-vm%u", b->h.lab.st.name, i);
}

/* VM i's domain, *dom NULL if there is none. */
static int lv_lookup(struct lab_backend *b, unsigned i, virDomainPtr *dom, char *err, size_t errlen)
{
        char name[96];
        virConnectPtr c;
        virErrorPtr e;
        int rc = lv_connect(b, i, &c, err, errlen);

        *dom = NULL;
        if (rc < 0)
                return rc;
        domain_name(b, i, name, sizeof(name));
        *dom = virDomainLookupByName(c, name);
        if (*dom)
                return 0;
        e = virGetLastError();
        if (e && e->code == VIR_ERR_NO_DOMAIN)
                return 0;
        snprintf(err, errlen, "libvirt %s: %s", b->uri[vm_uri(b, i)], lv_last_error());
        return -EIO;
}

static int lv_open(const struct lab_spec *spec, struct lab_backend **out, char *err, size_t errlen)
{
        struct lab_backend *b = lab_host_alloc(sizeof(*b), spec, "libvirt", err, errlen);
        int rc;

        if (!b)
                return -ENOMEM;
        virSetErrorFunc(NULL, lv_quiet);
        guest_dir(b->guest);
        rc = hostsrc_register(&hostsrc_libvirt_ops); /* the hosts' source: libvirt */
        if (rc < 0)
                snprintf(err, errlen, "libvirt host source: %s", strerror(-rc));
        if (!rc)
                rc = split_uris(b, spec->libvirt_uri, err, errlen);
        if (!rc)
                rc = lab_host_attach(b, err, errlen);
        if (rc < 0) {
                free(b->uris);
                free(b);
                return rc;
        }
        *out = b;
        return 0;
}

/* ---- provisioning -------------------------------------------------------- */

static int lv_create(struct lab_backend *b, unsigned n, char *err, size_t errlen)
{
        virConnectPtr c;
        int rc = guest_check_plan(b->h.spec, n, "libvirt", err, errlen);

        if (!rc)
                rc = check_portal(b, err, errlen);
        if (rc < 0)
                return rc;
        /* Every URI first: a bad one is refused before anything is made. */
        for (unsigned k = 1; k <= b->nuris; k++) {
                rc = lv_connect(b, k, &c, err, errlen);
                if (rc < 0)
                        return rc;
        }
        rc = guest_check(b->guest, "libvirt", err, errlen);
        if (!rc)
                rc = guest_create_vms(&b->h.lab, b->guest, b->h.spec, n, err, errlen);
        if (rc < 0)
                return rc;
        for (unsigned i = 1; i <= n; i++)
                place_vm(b, i);
        return labdir_save(&b->h.lab, err, errlen);
}

/* ---- the domain ------------------------------------------------------------ */

/* Paths go into XML attributes and text: refuse what would need escaping. */
static int xml_safe(const char *s, char *err, size_t errlen)
{
        if (strpbrk(s, "<>&'\"")) {
                snprintf(err, errlen,
                         "libvirt backend: path '%s' has a character XML needs "
                         "escaped; use another --lab-dir",
                         s);
                return -EINVAL;
        }
        return 0;
}

/* LUN lun of the lab's target iqn as the guest's virtio disk dev, logged in to as VM
 * name's initiator: one initiator name per VM, so tgtd never takes two VMs' logins for
 * one initiator reconnecting (both of a VM's disks log in under its name, as QEMU's
 * -name gives libiscsi in the qemu backend). */
static void iscsi_disk(const struct lab_target *t, const char *iqn, unsigned lun, const char *name,
                       const char *dev, char *out, size_t outlen)
{
        snprintf(out, outlen,
                 "<disk type='network' device='disk'><driver name='qemu' type='raw'/>"
                 "<source protocol='iscsi' name='%s/%u'><host name='%s' port='%u'/>"
                 "<initiator><iqn name='iqn.2026-11.io.hcisweep:%s'/></initiator></source>"
                 "<target dev='%s' bus='virtio'/></disk>",
                 iqn, lun, target_addr(t), t->port, name, dev);
}

static int domain_xml(struct lab_backend *b, unsigned i, const struct lab_endpoint *ep, char *xml,
                      char *err, size_t errlen)
{
        char name[96], data[768], load[768], load_iqn[sizeof(b->h.lab.st.tgt.iqn) + 8];
        lab_path_t kernel, initrd, root, console;
        const struct lab_target *t = &b->h.lab.st.tgt;
        char host[64]; /* a remote VM's port is forwarded on every address of its host */
        int n;

        lab_uri_host(b->uri[vm_uri(b, i)], host, sizeof(host));

        domain_name(b, i, name, sizeof(name));
        iscsi_disk(t, t->iqn, i, name, "vdb", data, sizeof(data));
        /* its load LUN, the third virtio disk: the guest's GUEST_LOAD_DISK (guest.h; libvirt
         * gives virtio disks their PCI slots in the order of their targets, so the guest
         * names them vda, vdb, vdc as here); a lab made before load LUNs has none, and its
         * block clients are refused (no target) */
        target_load_iqn(t, load_iqn, sizeof(load_iqn));
        load[0] = '\0';
        if (ep->load_lun_url[0])
                iscsi_disk(t, load_iqn, i, name, "vdc", load, sizeof(load));
        guest_path(b->guest, "vmlinuz", kernel);
        guest_path(b->guest, "initrd.img", initrd);
        labdir_vm_path(&b->h.lab, i, "root.qcow2", root);
        labdir_vm_path(&b->h.lab, i, "console.log", console);
        if (xml_safe(b->h.lab.dir, err, errlen) < 0 || xml_safe(b->guest, err, errlen) < 0)
                return -EINVAL;
        n = snprintf(
            xml, XML_MAX,
            "<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>"
            "<name>%s</name><memory unit='MiB'>%llu</memory><vcpu>%u</vcpu>"
            "<os><type arch='x86_64'>hvm</type><kernel>%s</kernel><initrd>%s</initrd>"
            "<cmdline>root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=-1 quiet</cmdline></os>"
            /* TCG's translation cache defaults to 1 GiB per VM; far more than needed. */
            "<features><tcg><tb-cache unit='MiB'>256</tb-cache></tcg></features>"
            "<on_poweroff>destroy</on_poweroff><on_reboot>destroy</on_reboot>"
            "<on_crash>destroy</on_crash><devices>"
            "<disk type='file' device='disk'><driver name='qemu' type='qcow2'/>"
            "<source file='%s'/><target dev='vda' bus='virtio'/></disk>%s%s"
            "<serial type='file'><source path='%s'/><target port='0'/></serial>"
            "<console type='file'><source path='%s'/><target type='serial' port='0'/></console>"
            /* the guest agent's port (guest_driver.h); libvirt picks the socket */
            "<channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0'/></channel>"
            "<video><model type='none'/></video><memballoon model='none'/></devices>"
            "<qemu:commandline><qemu:arg value='-netdev'/>"
            "<qemu:arg value='user,id=hcinet0,hostfwd=tcp:%s:%u-:3306'/>"
            "<qemu:arg value='-device'/><qemu:arg "
            "value='virtio-net-pci,netdev=hcinet0,bus=pci.0,addr=0x1f'/>"
            "</qemu:commandline></domain>",
            name, (unsigned long long)(guest_vm_memory(b->h.spec) >> 20),
            (unsigned)fmax(1, ceil(b->h.spec->vm_cpus)), kernel, initrd, root, data, load, console,
            console, host[0] ? "" : ep->host, ep->port);
        if (n < 0 || n >= XML_MAX) {
                snprintf(err, errlen, "vm%u: domain XML longer than %d bytes", i, XML_MAX);
                return -ENAMETOOLONG;
        }
        return 0;
}

/* The QEMU process of a domain on this host, found by its -name, or -1
 * (remote, or gone). libvirt's API has no call for it. */
static pid_t local_qemu_pid(const struct lab_backend *b, unsigned i)
{
        char name[112], path[64], cmd[4096];
        DIR *d = opendir("/proc");
        struct dirent *de;
        pid_t found = -1;

        if (!d)
                return -1;
        domain_name(b, i, name + 6, sizeof(name) - 6);
        memcpy(name, "guest=", 6);
        strcat(name, ",");
        while (found < 0 && (de = readdir(d))) {
                pid_t pid = (pid_t)atoi(de->d_name);
                FILE *f;
                size_t n;

                if (pid <= 0 || !proc_alive(pid, QEMU_COMM))
                        continue;
                snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
                f = fopen(path, "re");
                n = f ? fread(cmd, 1, sizeof(cmd) - 1, f) : 0;
                if (f)
                        fclose(f);
                for (size_t k = 0; k < n; k++)
                        cmd[k] = cmd[k] ? cmd[k] : ' ';
                cmd[n] = '\0';
                if (strstr(cmd, name))
                        found = pid;
        }
        closedir(d);
        return found;
}

static int dom_running(virDomainPtr dom)
{
        int state = 0, reason = 0;

        return dom && virDomainGetState(dom, &state, &reason, 0) == 0 &&
               (state == VIR_DOMAIN_RUNNING || state == VIR_DOMAIN_BLOCKED ||
                state == VIR_DOMAIN_PAUSED);
}

struct lv_vm {
        struct lab_backend *b;
        unsigned i;
};

static int lv_alive(void *ctx, char *err, size_t errlen)
{
        const struct lv_vm *v = ctx;
        virDomainPtr dom;
        int rc = lv_lookup(v->b, v->i, &dom, err, errlen);

        if (rc < 0)
                return rc;
        rc = dom_running(dom);
        if (dom)
                virDomainFree(dom);
        return rc;
}

/* Until MariaDB in the guest answers through the forwarded port. */
static int vm_wait_ready(struct lab_backend *b, unsigned i, const struct lab_endpoint *ep,
                         char *err, size_t errlen)
{
        struct lv_vm vm = {b, i};
        const struct guest_boot boot = {
            .lab = &b->h.lab,
            .vm = i,
            .ep = ep,
            .timeout_s = b->h.spec->boot_timeout_s,
            .cancel = b->h.spec->cancel,
            .stopped = "the domain stopped during boot",
            .alive = lv_alive,
            .ctx = &vm,
        };

        return guest_wait_ready(&boot, err, errlen);
}

/* Ctrl-Alt-Del in a running guest, as the qemu backend does (qmp.h says
 * why: an orderly shutdown, and on_reboot destroy ends the domain); 1 if sent. */
static int lv_powerdown(struct lab_backend *b, unsigned i)
{
        unsigned int keys[] = {KEY_LEFTCTRL, KEY_LEFTALT, KEY_DELETE};
        virDomainPtr dom;
        char why[256];
        int sent = 0;

        if (i < 1 || i > LAB_MAX_VMS || !b->h.lab.st.vm[i].exists ||
            lv_lookup(b, i, &dom, why, sizeof(why)) < 0 || !dom)
                return 0;
        if (dom_running(dom)) {
                sent = virDomainSendKey(dom, VIR_KEYCODE_SET_LINUX, 0, keys, 3, 0) == 0;
                if (!sent)
                        log_warn("vm%u: no orderly shutdown, destroying it: %s", i,
                                 lv_last_error());
        }
        virDomainFree(dom);
        return sent;
}

/* 1 while VM i's domain exists. A transient domain is gone only once libvirt
 * has finished with it; "not running" comes earlier (state shutdown, QEMU
 * still up), so teardown waits for this. */
static int lv_exists(struct lab_backend *b, unsigned i, char *err, size_t errlen)
{
        virDomainPtr dom;
        int rc = lv_lookup(b, i, &dom, err, errlen);

        if (rc < 0)
                return rc;
        if (!dom)
                return 0;
        virDomainFree(dom);
        return 1;
}

/* After an orderly shutdown, or in its place: destroy (a transient domain is gone after it). */
static int lv_off(struct lab_backend *b, unsigned i, int asked, char *err, size_t errlen)
{
        virDomainPtr dom;
        int rc;

        if (i < 1 || i > LAB_MAX_VMS || !b->h.lab.st.vm[i].exists)
                return 0;
        if (asked && !guest_wait_off(b, i, lv_exists, lv_powerdown, GUEST_SHUTDOWN_MS))
                log_warn("vm%u: still running %u s after Ctrl-Alt-Del, destroying it", i,
                         GUEST_SHUTDOWN_MS / 1000);
        rc = lv_lookup(b, i, &dom, err, errlen);
        if (rc < 0)
                return rc;
        /* Active includes "being shut down": QEMU may still run. */
        if (dom && virDomainIsActive(dom) == 1 && virDomainDestroy(dom) < 0) {
                snprintf(err, errlen, "vm%u: destroy: %s", i, lv_last_error());
                rc = -EBUSY;
        }
        if (dom)
                virDomainFree(dom);
        if (rc < 0)
                return rc;
        b->h.lab.st.vm[i].pid = 0;
        return labdir_save(&b->h.lab, err, errlen);
}

static int lv_stop(struct lab_backend *b, unsigned i, char *err, size_t errlen)
{
        if (i >= 1 && i <= LAB_MAX_VMS)
                b->agent_checked[i] = 0;
        return lv_off(b, i, lv_powerdown(b, i), err, errlen);
}

static int vm_boot(struct lab_backend *b, unsigned i, const struct lab_endpoint *ep, char *err,
                   size_t errlen)
{
        char *xml = malloc(XML_MAX);
        virConnectPtr c;
        virDomainPtr dom;
        lab_path_t console;
        int rc;

        if (!xml) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        rc = domain_xml(b, i, ep, xml, err, errlen);
        if (!rc)
                rc = lv_connect(b, i, &c, err, errlen);
        if (rc < 0)
                goto out;
        labdir_vm_path(&b->h.lab, i, "console.log", console);
        unlink(console);
        dom = virDomainCreateXML(c, xml, 0);
        if (!dom) {
                snprintf(err, errlen, "vm%u: libvirt %s: %s", i, b->uri[vm_uri(b, i)],
                         lv_last_error());
                rc = -EIO;
                goto out;
        }
        virDomainFree(dom);
        b->h.lab.st.vm[i].pid = local_qemu_pid(b, i);
        if (b->h.lab.st.vm[i].pid < 0)
                b->h.lab.st.vm[i].pid = 0;
        rc = labdir_save(&b->h.lab, err, errlen);
out:
        free(xml);
        return rc;
}

static int lv_start(struct lab_backend *b, unsigned i, int *started, char *err, size_t errlen)
{
        struct lab_endpoint ep;
        virDomainPtr dom = NULL;
        char ignored[256];
        int rc = lab_host_endpoint(b, i, &ep, err, errlen);

        *started = 0;
        if (!rc && !ep.lun_url[0]) {
                snprintf(err, errlen, "vm%u has no LUN on the target: run create first", i);
                rc = -ENOENT;
        }
        if (!rc)
                rc = lv_lookup(b, i, &dom, err, errlen);
        if (rc < 0)
                return rc;
        if (!dom_running(dom)) {
                rc = vm_boot(b, i, &ep, err, errlen);
                *started = rc == 0;
        }
        if (dom)
                virDomainFree(dom);
        if (!rc)
                rc = vm_wait_ready(b, i, &ep, err, errlen);
        if (rc < 0 && *started) /* a VM that did not come up is not left running */
                lv_stop(b, i, ignored, sizeof(ignored));
        return rc;
}

/* VM i's driver in its guest, through the agent channel of its domain. */
static int lv_spawn(struct lab_backend *b, unsigned i, const struct proc_spawn *sp,
                    const int *stdio, pid_t *pid, char *err, size_t errlen)
{
        char name[96];
        int rc = labdir_check_vm(&b->h.lab, i, err, errlen);

        if (rc < 0)
                return rc;
        domain_name(b, i, name, sizeof(name));
        return guest_driver_spawn(
            &(struct guest_agent){.uri = b->uri[vm_uri(b, i)], .domain = name}, i, sp, stdio,
            b->h.spec->cancel, &b->agent_checked[i], pid, err, errlen);
}

/* ---- teardown, reports ------------------------------------------------------ */

static int lv_destroy(struct lab_backend *b, int purge, char *err, size_t errlen)
{
        return guest_destroy(b, &b->h.lab, lv_powerdown, lv_off, purge, NULL, err, errlen);
}

static int lv_stats(struct lab_backend *b, unsigned i, struct lab_vm_stats *st, char *err,
                    size_t errlen)
{
        virDomainInfo info;
        virDomainPtr dom;
        int rc = labdir_check_vm(&b->h.lab, i, err, errlen);

        if (!rc)
                rc = lv_lookup(b, i, &dom, err, errlen);
        if (rc < 0)
                return rc;
        memset(st, 0, sizeof(*st));
        st->alive = dom_running(dom);
        st->pid = st->alive ? local_qemu_pid(b, i) : -1;
        st->cpu_usage_ns = -1;
        st->mem_usage = st->pid > 0 ? proc_rss(st->pid) : -1;
        if (st->alive && virDomainGetInfo(dom, &info) == 0)
                st->cpu_usage_ns = (int64_t)info.cpuTime;
        if (dom)
                virDomainFree(dom);
        st->cpu_limit = fmax(1, ceil(b->h.spec->vm_cpus)); /* vCPUs */
        st->mem_limit = (int64_t)guest_vm_memory(b->h.spec);
        snprintf(st->where, sizeof(st->where), "%s", b->uri[vm_uri(b, i)]);
        st->datadir_on = LAB_DATADIR_LUN; /* the domain's vdb is its LUN */
        snprintf(st->initiator, sizeof(st->initiator), "qemu (libvirt network disk)");
        st->initiator_pid = st->pid;
        return 0;
}

/* ---- hosts: one per URI ---------------------------------------------------- */

/* In two-layer the hosts --storage-hosts names are storage hosts, the others compute. */
static const char *host_role(const struct lab_backend *b, const char *name)
{
        const char *list = b->h.spec->storage_hosts;
        size_t n = strlen(name);

        if (b->h.spec->topology != LAB_TWO_LAYER)
                return "both";
        for (const char *s = list; s && *s; s += strcspn(s, ","), s += *s == ',')
                if (strcspn(s, ",") == n && !strncmp(s, name, n))
                        return "storage";
        return "compute";
}

static int lv_host(struct lab_backend *b, unsigned i, struct lab_hostinfo *h)
{
        char why[256];

        if (i >= b->nuris)
                return -ENOENT;
        memset(h, 0, sizeof(*h));
        lab_uri_host_name(b->uri[i], h->name, sizeof(h->name));
        snprintf(h->role, sizeof(h->role), "%s", host_role(b, h->name));
        snprintf(h->source, sizeof(h->source), "%s", hostsrc_libvirt_ops.name);
        snprintf(h->where, sizeof(h->where), "%s", b->uri[i]);
        /* its source reads on the connection the VMs of that URI use; one that cannot be
         * made is said when the source opens */
        b->lend[i].why[0] = '\0';
        if (lv_connect_uri(b, i, &b->lend[i].conn, why, sizeof(why)) < 0)
                snprintf(b->lend[i].why, sizeof(b->lend[i].why), "%s", why);
        h->lent = &b->lend[i];
        return 0;
}

static void lv_close(struct lab_backend *b)
{
        if (!b)
                return;
        for (unsigned k = 0; k < b->nuris; k++)
                if (b->conn[k])
                        virConnectClose(b->conn[k]);
        free(b->uris);
        lab_host_close(b);
}

const struct lab_backend_ops lab_backend_libvirt = {
    .name = "libvirt",
    .help = "a libvirt domain per VM, round-robin over --libvirt-uri, database disk on the "
            "lab's tgtd",
    .can_start = 1,
    .has_storage = 1,
    .driver_where = "guest",
    .spawn_streams = 1, /* guest_driver.h: a --start-on-go driver's lines are streamed */
    .driver_carrier = &dp_carrier_guest,
    .open = lv_open,
    .count = lab_host_count,
    .create = lv_create,
    .start = lv_start,
    .stop = lv_stop,
    .destroy = lv_destroy,
    .endpoint = lab_host_endpoint,
    .exec = lab_host_no_exec,
    .spawn = lv_spawn,
    .stats = lv_stats,
    .host = lv_host,
    .storage = lab_host_storage,
    .close = lv_close,
};
