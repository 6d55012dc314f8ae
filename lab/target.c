/*
 * target.c - tgtd for the lab, started and configured through tgtadm. A
 * target is ready when tgtadm gets an answer on the control port and the
 * portal accepts connections; both are polled, since tgtd gives no other
 * sign that it is up.
 */
#include "lab/target.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "core/clock.h"
#include "lab/cgroup.h"
#include "lab/proc.h"

#define IQN_PREFIX      "iqn.2026-11.io.hcisweep:"
#define TARGET_READY_MS 10000U
#define TARGET_STOP_MS  10000U

/* tgtd's control number (-C) stops at 32767; ports above fold down. */
static unsigned target_control(unsigned port)
{
        return port <= 32767 ? port : port - 32767;
}

static void log_path(const struct labdir *l, lab_path_t out)
{
        snprintf(out, sizeof(lab_path_t), "%s/tgtd.log", l->dir);
}

static int tgtadm(const struct labdir *l, const char *const *args, char *err, size_t errlen)
{
        char ctl[16], *argv[24], why[600];
        lab_path_t log;
        int n = 0, rc;

        snprintf(ctl, sizeof(ctl), "%u", l->st.tgt.control);
        log_path(l, log);
        argv[n++] = "tgtadm";
        argv[n++] = "-C";
        argv[n++] = ctl;
        while (*args && n < 23)
                argv[n++] = (char *)*args++;
        argv[n] = NULL;
        rc = proc_run_quiet(argv, log, why, sizeof(why));
        if (rc < 0) /* name the operation: the log's tail says why */
                snprintf(err, errlen, "tgtadm %s %s %s %s: %s", argv[3], argv[4],
                         argv[5] ? argv[5] : "", argv[5] && argv[6] ? argv[6] : "", why);
        return rc;
}

static int port_answers(const char *addr, unsigned port)
{
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        int fd, ok;

        if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
                return 0;
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return 0;
        ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
        close(fd);
        return ok;
}

static int wait_ready(const struct labdir *l, char *err, size_t errlen)
{
        static const char *const show[] = {"--op", "show", "--mode", "sys", NULL};
        lab_path_t log;
        char tail[512];

        log_path(l, log);
        for (unsigned waited = 0; waited < TARGET_READY_MS; waited += 100) {
                if (!proc_alive(l->st.tgt.pid, "tgtd")) {
                        proc_log_tail(log, 5, tail, sizeof(tail));
                        snprintf(err, errlen, "tgtd exited during start-up: %s", tail);
                        return -EIO;
                }
                if (tgtadm(l, show, err, errlen) == 0 &&
                    port_answers(target_addr(&l->st.tgt), l->st.tgt.port))
                        return 0;
                clk_sleep_ns(100 * 1000000ULL);
        }
        snprintf(err, errlen, "tgtd did not answer on control %u and %s:%u within %u s",
                 l->st.tgt.control, target_addr(&l->st.tgt), l->st.tgt.port,
                 TARGET_READY_MS / 1000);
        return -ETIMEDOUT;
}

/* Target tid (1: the VMs' disks, 2: the block-load LUNs) named iqn, open to all. */
static int make_target(const struct labdir *l, const char *tid, const char *iqn, char *err,
                       size_t errlen)
{
        const char *new_target[] = {"--lld", "iscsi", "--op",         "new", "--mode", "target",
                                    "--tid", tid,     "--targetname", iqn,   NULL};
        const char *bind[] = {"--lld", "iscsi",  "--op",
                              "bind",  "--mode", "target",
                              "--tid", tid,      "--initiator-address",
                              "ALL",   NULL};
        int rc = tgtadm(l, new_target, err, errlen);

        return rc ? rc : tgtadm(l, bind, err, errlen);
}

static int configure(const struct labdir *l, char *err, size_t errlen)
{
        char load[sizeof(l->st.tgt.iqn) + 8];
        int rc = make_target(l, "1", l->st.tgt.iqn, err, errlen);

        target_load_iqn(&l->st.tgt, load, sizeof(load));
        return rc ? rc : make_target(l, "2", load, err, errlen);
}

/* tgtd in the lab's "target" cgroup; CPU affinity stands in for a missing
 * cpuset controller. */
static int spawn_in_cgroup(struct labdir *l, char *const argv[], const char *log, char *err,
                           size_t errlen)
{
        struct lab_target *t = &l->st.tgt;
        struct cg_limits lim = {.cpuset = t->cpuset[0] ? t->cpuset : NULL};
        char bufs[CG_NCTRL][LAB_PATH_MAX + 16];
        const char *procs[CG_NCTRL + 1];
        cpu_set_t set;
        int rc = cg_create(l->st.name, "target", &lim, &t->cg, err, errlen);

        if (rc < 0)
                return rc;
        cg_procs_files(&t->cg, bufs, procs);
        return proc_spawn(
            &(struct proc_spawn){argv, log, procs, cg_affinity(&t->cg, t->cpuset, &set)}, &t->pid,
            err, errlen);
}

int target_start(struct labdir *l, const char *addr, unsigned port, int in_cgroup, char *err,
                 size_t errlen)
{
        struct lab_target *t = &l->st.tgt;
        char portal[96], ctl[16];
        char *argv[] = {"tgtd", "-f", "--iscsi", portal, "-C", ctl, NULL};
        lab_path_t log;
        int rc;

        if (proc_alive(t->pid, "tgtd"))
                return 0;
        snprintf(t->addr, sizeof(t->addr), "%s", addr && addr[0] ? addr : "127.0.0.1");
        t->port = port;
        t->control = target_control(port);
        t->luns = t->load_luns = 0;
        snprintf(t->iqn, sizeof(t->iqn), "%s%s", IQN_PREFIX, l->st.name);
        if (port_answers(t->addr, t->port)) {
                snprintf(err, errlen, "option --target-port: %s:%u is already in use", t->addr,
                         t->port);
                return -EADDRINUSE;
        }
        snprintf(portal, sizeof(portal), "portal=%s:%u", t->addr, t->port);
        snprintf(ctl, sizeof(ctl), "%u", t->control);
        log_path(l, log);
        if (in_cgroup)
                rc = spawn_in_cgroup(l, argv, log, err, errlen);
        else
                rc = proc_spawn(&(struct proc_spawn){argv, log, NULL, NULL}, &t->pid, err, errlen);
        if (!rc)
                rc = labdir_save(l, err, errlen);
        if (!rc)
                rc = wait_ready(l, err, errlen);
        return rc ? rc : configure(l, err, errlen);
}

/* A load LUN as big as the VM's disk LUN, sparse. */
static int make_load_file(const struct labdir *l, unsigned i, const char *path, char *err,
                          size_t errlen)
{
        lab_path_t disk;
        struct stat sb;
        int fd;

        labdir_vm_path(l, i, "lun.img", disk);
        if (stat(disk, &sb) < 0) {
                snprintf(err, errlen, "%s: %s", disk, strerror(errno));
                return -errno;
        }
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0 || ftruncate(fd, sb.st_size) < 0) {
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                if (fd >= 0)
                        close(fd);
                return -errno;
        }
        close(fd);
        return 0;
}

static int add_lun(const struct labdir *l, const char *tid, unsigned i, const char *file, char *err,
                   size_t errlen)
{
        char lun[16];
        lab_path_t store;
        const char *args[] = {"--lld",           "iscsi", "--op", "new",   "--mode",
                              "logicalunit",     "--tid", tid,    "--lun", lun,
                              "--backing-store", store,   NULL};

        snprintf(lun, sizeof(lun), "%u", i);
        labdir_vm_path(l, i, file, store);
        if (!strcmp(file, "load.img")) {
                int rc = make_load_file(l, i, store, err, errlen);

                if (rc < 0)
                        return rc;
        }
        return tgtadm(l, args, err, errlen);
}

int target_add_luns(struct labdir *l, unsigned n, char *err, size_t errlen)
{
        struct lab_target *t = &l->st.tgt;
        int rc = 0;

        while (!rc && t->luns < n) {
                rc = add_lun(l, "1", t->luns + 1, "lun.img", err, errlen);
                if (!rc)
                        t->luns++;
        }
        while (!rc && t->load_luns < n) {
                rc = add_lun(l, "2", t->load_luns + 1, "load.img", err, errlen);
                if (!rc)
                        t->load_luns++;
        }
        return rc;
}

int target_stop(struct labdir *l, char *err, size_t errlen)
{
        static const char *const offline[] = {"--op",  "update", "--mode",  "sys", "--name",
                                              "State", "-v",     "offline", NULL};
        static const char *const del[] = {"--lld",  "iscsi",  "--op",  "delete", "--force",
                                          "--mode", "target", "--tid", "1",      NULL};
        static const char *const del_load[] = {"--lld",  "iscsi",  "--op",  "delete", "--force",
                                               "--mode", "target", "--tid", "2",      NULL};
        static const char *const del_sys[] = {"--op", "delete", "--mode", "system", NULL};
        struct lab_target *t = &l->st.tgt;
        char ignored[256];

        if (proc_alive(t->pid, "tgtd")) {
                tgtadm(l, offline, ignored, sizeof(ignored));
                tgtadm(l, del, ignored, sizeof(ignored));
                tgtadm(l, del_load, ignored, sizeof(ignored));
                tgtadm(l, del_sys, ignored, sizeof(ignored));
                if (proc_stop(t->pid, "tgtd", 0, TARGET_STOP_MS, err, errlen) < 0)
                        return -EBUSY;
        }
        t->pid = 0;
        t->luns = t->load_luns = 0;
        return 0;
}
