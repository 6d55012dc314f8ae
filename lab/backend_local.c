/*
 * backend_local.c - the `local` backend: each "VM" is a mariadbd of its own
 * on this host (address ADDR_BASE.N, cgroups for its CPU quota and memory
 * limit), and the storage service is one tgtd on 127.0.0.1:TARGET_PORT
 * serving LUN N (file LAB/vmN/lun.img) for VM N. VM N's datadir lives on
 * that LUN (vmdisk.h: LAB/vmN/disk/data, its initiator in the VM's
 * cgroups), or with --datadir-on host on this host's disk (LAB/vmN/data).
 * In the two-layer topology tgtd gets the last CPU and the VMs the others.
 *
 * Everything started is written to LAB/state right away, and every op
 * holds the lab's lock (labdir.h); tgtd is target.h's. Datadirs are installed
 * once and prepared (database, password) on their first start; the marker
 * files "installed" and "prepared" next to the datadir say how far a VM
 * got, so a crash half-way is redone rather than trusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "core/clock.h"
#include "lab/backend.h"
#include "lab/cgroup.h"
#include "lab/labdir.h"
#include "lab/labhost.h"
#include "lab/labstate.h"
#include "lab/proc.h"
#include "lab/sql.h"
#include "lab/target.h"
#include "lab/vmdisk.h"

#define MIN_POOL          (32ULL << 20)
#define DEFAULT_POOL      (128ULL << 20)
#define SERVER_READY_MS   30000U
#define SERVER_STOP_MS    60000
#define SOCKET_PATH_LIMIT 107
#define BROKEN_STOP_MS    3000U

struct lab_backend {
        struct lab_host h; /* first: labhost.h */
};

static int local_open(const struct lab_spec *spec, struct lab_backend **out, char *err,
                      size_t errlen)
{
        return lab_host_open(sizeof(struct lab_backend), spec, "local", out, err, errlen);
}

/* Two-layer: tgtd gets the last CPU this process may use, the VMs the rest. */
static int split_cpus(struct lab_backend *b, char *err, size_t errlen)
{
        struct lab_state *st = &b->h.lab.st;
        int cpus[CPU_SETSIZE], n = 0;
        size_t len = 0;
        cpu_set_t set;

        st->vm_cpuset[0] = st->tgt.cpuset[0] = '\0';
        if (b->h.spec->topology != LAB_TWO_LAYER)
                return 0;
        if (sched_getaffinity(0, sizeof(set), &set) < 0)
                return -errno;
        for (int c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, &set))
                        cpus[n++] = c;
        if (n < 2) {
                snprintf(err, errlen,
                         "option --topology: two-layer needs at least 2 CPUs, this process may "
                         "use %d",
                         n);
                return -EINVAL;
        }
        snprintf(st->tgt.cpuset, sizeof(st->tgt.cpuset), "%d", cpus[n - 1]);
        for (int i = 0; i < n - 1 && len < sizeof(st->vm_cpuset) - 8; i++)
                len += (size_t)snprintf(st->vm_cpuset + len, sizeof(st->vm_cpuset) - len, "%s%d",
                                        i ? "," : "", cpus[i]);
        return 0;
}

/* ---- VMs: provisioning ------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
        (void)sb;
        (void)flag;
        (void)ftw;
        return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

static int rm_tree(const char *path)
{
        if (access(path, F_OK) < 0)
                return 0;
        /* FTW_MOUNT: never into a filesystem still mounted below the lab */
        return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0 ? -errno : 0;
}

static unsigned long long pool_for(uint64_t memory)
{
        unsigned long long pool = memory ? (memory / 2) & ~((1ULL << 20) - 1) : DEFAULT_POOL;

        return pool < MIN_POOL ? MIN_POOL : pool;
}

static void vm_limits(const struct lab_backend *b, struct cg_limits *lim)
{
        *lim = (struct cg_limits){b->h.spec->vm_cpus, b->h.spec->vm_memory,
                                  b->h.lab.st.vm_cpuset[0] ? b->h.lab.st.vm_cpuset : NULL};
}

static int touch(const char *path)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

        if (fd < 0)
                return -errno;
        close(fd);
        return 0;
}

static int on_lun(const struct lab_backend *b)
{
        return !strcmp(b->h.lab.st.datadir_on, "lun");
}

/* NAME next to VM i's datadir: on its disk (LAB/vmI/disk/NAME) or LAB/vmI/NAME. */
static void data_path(const struct lab_backend *b, unsigned i, const char *name, lab_path_t out)
{
        lab_path_t base;

        labdir_vm_path(&b->h.lab, i, on_lun(b) ? "disk" : "", base);
        snprintf(out, sizeof(lab_path_t), "%.*s/%s", LAB_PATH_MAX, base, name);
}

static int vm_install(struct lab_backend *b, unsigned i, char *err, size_t errlen)
{
        struct lab_vm *v = &b->h.lab.st.vm[i];
        lab_path_t data, marker, log;
        char datadir_opt[sizeof(lab_path_t) + 16], tmpdir_opt[sizeof(lab_path_t) + 16];
        char bufs[CG_NCTRL][LAB_PATH_MAX + 16], tail[512];
        const char *procs[CG_NCTRL + 1];
        char *argv[] = {"mariadb-install-db",
                        "--no-defaults",
                        datadir_opt,
                        "--user=root",
                        "--auth-root-authentication-method=normal",
                        "--skip-test-db",
                        tmpdir_opt,
                        NULL};
        int rc, status;

        data_path(b, i, "installed", marker);
        if (access(marker, F_OK) == 0)
                return 0;
        data_path(b, i, "data", data);
        labdir_vm_path(&b->h.lab, i, "install.log", log);
        rm_tree(data); /* a half-installed datadir from an interrupted run */
        snprintf(datadir_opt, sizeof(datadir_opt), "--datadir=%s", data);
        labdir_vm_path(&b->h.lab, i, "tmp", data);
        snprintf(tmpdir_opt, sizeof(tmpdir_opt), "--tmpdir=%s", data);
        cg_procs_files(&v->cg, bufs, procs);
        rc = proc_run(&(struct proc_spawn){argv, log, procs, NULL}, &status, err, errlen);
        if (rc < 0)
                return rc;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                proc_log_tail(log, 5, tail, sizeof(tail));
                snprintf(err, errlen, "vm%u: mariadb-install-db failed (%s): %s", i, log, tail);
                return -EIO;
        }
        return touch(marker);
}

static int vm_make_lun(struct lab_backend *b, unsigned i, char *err, size_t errlen)
{
        lab_path_t lun;
        int fd;
        struct stat sb;

        labdir_vm_path(&b->h.lab, i, "lun.img", lun);
        if (stat(lun, &sb) == 0 && (uint64_t)sb.st_size >= b->h.spec->lun_size)
                return 0;
        fd = open(lun, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0 || ftruncate(fd, (off_t)b->h.spec->lun_size) < 0) {
                snprintf(err, errlen, "%s: %s", lun, strerror(errno));
                if (fd >= 0)
                        close(fd);
                return -errno;
        }
        close(fd);
        return 0;
}

static int vm_create(struct lab_backend *b, unsigned i, char *err, size_t errlen)
{
        struct lab_vm *v = &b->h.lab.st.vm[i];
        struct cg_limits lim;
        char name[16];
        lab_path_t dir;
        int rc;

        vm_limits(b, &lim);
        if (v->exists)
                return cg_apply(&v->cg, &lim, err, errlen);
        rc = labdir_new_vm(&b->h.lab, i, b->h.spec->addr_base, b->h.spec->base_port, err, errlen);
        if (rc < 0)
                return rc;
        /* A private tmpdir: bootstrap names its temporary files after a small
         * id, and servers sharing /tmp can collide. */
        labdir_vm_path(&b->h.lab, i, "tmp", dir);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
                snprintf(err, errlen, "mkdir %s: %s", dir, strerror(errno));
                return -errno;
        }
        snprintf(name, sizeof(name), "vm%u", i);
        rc = cg_create(b->h.lab.st.name, name, &lim, &v->cg, err, errlen);
        if (rc < 0)
                return rc;
        labdir_add_vm(&b->h.lab, i);
        rc = labdir_save(&b->h.lab, err, errlen); /* the cgroups are now on record for `lab down` */
        return rc ? rc : vm_make_lun(b, i, err, errlen);
}

/* VM i's datadir is there and installed: on its LUN, the chain built first. */
static int vm_disk_ready(struct lab_backend *b, unsigned i, char *err, size_t errlen)
{
        int rc = on_lun(b) ? vmdisk_up(&b->h.lab, i, err, errlen) : 0;

        return rc ? rc : vm_install(b, i, err, errlen);
}

/* The datadir stays where the lab first put it: moving it is a new lab. */
static int check_datadir_on(struct lab_backend *b, char *err, size_t errlen)
{
        struct lab_state *st = &b->h.lab.st;
        const char *want = lab_datadir_name(b->h.spec->datadir_on);
        int rc;

        if (labdir_count(&b->h.lab) && strcmp(st->datadir_on[0] ? st->datadir_on : "host", want)) {
                snprintf(err, errlen,
                         "option --datadir-on: the lab in %s has its datadirs on %s; use "
                         "--datadir-on %s, or `hcisweep lab down --purge --lab-dir %s` first",
                         b->h.lab.dir, st->datadir_on[0] ? st->datadir_on : "host",
                         st->datadir_on[0] ? st->datadir_on : "host", b->h.lab.dir);
                return -EINVAL;
        }
        if (b->h.spec->datadir_on != LAB_DATADIR_LUN)
                return 0;
        if (b->h.spec->lun_size < VMDISK_MIN_LUN) {
                snprintf(err, errlen, "option --lun-size: at least %lluM with --datadir-on lun",
                         VMDISK_MIN_LUN >> 20);
                return -EINVAL;
        }
        rc = vmdisk_check(err, errlen);
        return rc;
}

/* A CPU quota asked for needs a CPU controller: refused before anything starts. */
static int local_check(struct lab_backend *b, char *err, size_t errlen)
{
        struct cg_limits lim;

        vm_limits(b, &lim);
        return cg_check(&lim, err, errlen);
}

static int local_create(struct lab_backend *b, unsigned n, char *err, size_t errlen)
{
        int rc;

        if (n < 1 || n > LAB_MAX_VMS) {
                snprintf(err, errlen, "option --vms: %u is not in 1..%d", n, LAB_MAX_VMS);
                return -EINVAL;
        }
        rc = check_datadir_on(b, err, errlen);
        if (!rc)
                rc = labdir_create(&b->h.lab, err, errlen);
        if (!rc)
                snprintf(b->h.lab.st.datadir_on, sizeof(b->h.lab.st.datadir_on), "%s",
                         lab_datadir_name(b->h.spec->datadir_on));
        if (!rc && !proc_alive(b->h.lab.st.tgt.pid, "tgtd")) {
                b->h.lab.st.topology = (int)b->h.spec->topology;
                rc = split_cpus(b, err, errlen);
        }
        if (!rc)
                rc = labdir_ensure_password(&b->h.lab, err, errlen);
        if (!rc)
                rc = target_start(&b->h.lab, b->h.spec->target_addr, b->h.spec->target_port, 1, err,
                                  errlen);
        for (unsigned i = 1; !rc && i <= n; i++)
                rc = vm_create(b, i, err, errlen);
        if (!rc)
                rc = target_add_luns(&b->h.lab, n, err, errlen);
        if (!rc)
                rc = labdir_save(&b->h.lab, err, errlen);
        for (unsigned i = 1; !rc && i <= n; i++)
                rc = vm_disk_ready(b, i, err, errlen);
        return rc;
}

/* ---- VMs: running ------------------------------------------------------ */

static int local_endpoint(struct lab_backend *b, unsigned i, struct lab_endpoint *ep, char *err,
                          size_t errlen)
{
        int rc = labdir_endpoint(&b->h.lab, i, ep, err, errlen);

        if (!rc)
                snprintf(ep->socket, sizeof(ep->socket), "%s/vm%u/mariadbd.sock", b->h.lab.dir, i);
        return rc;
}

static int vm_spawn(struct lab_backend *b, unsigned i, const struct lab_endpoint *ep, char *err,
                    size_t errlen)
{
        struct lab_vm *v = &b->h.lab.st.vm[i];
        char o_port[32], o_bind[96], o_pool[64], bufs[CG_NCTRL][LAB_PATH_MAX + 16];
        char o_data[sizeof(lab_path_t) + 16];
        lab_path_t o_sock, o_pid, o_tmp, log;
        const char *procs[CG_NCTRL + 1];
        char *argv[] = {"mariadbd",
                        "--no-defaults",
                        o_data,
                        o_sock,
                        o_port,
                        o_bind,
                        "--user=root",
                        o_pool,
                        "--skip-name-resolve",
                        o_pid,
                        "--max-connections=1000",
                        o_tmp,
                        NULL};
        cpu_set_t set;

        if (strlen(ep->socket) > SOCKET_PATH_LIMIT) {
                snprintf(err, errlen, "option --lab-dir: socket path %s is too long", ep->socket);
                return -EINVAL;
        }
        v->pool = pool_for(b->h.spec->vm_memory);
        data_path(b, i, "data", log);
        snprintf(o_data, sizeof(o_data), "--datadir=%s", log);
        snprintf(o_sock, sizeof(o_sock), "--socket=%s", ep->socket);
        snprintf(o_port, sizeof(o_port), "--port=%u", v->port);
        snprintf(o_bind, sizeof(o_bind), "--bind-address=%s", v->addr);
        snprintf(o_pool, sizeof(o_pool), "--innodb-buffer-pool-size=%llu", v->pool);
        snprintf(o_pid, sizeof(o_pid), "--pid-file=%s/vm%u/mariadbd.pid", b->h.lab.dir, i);
        snprintf(o_tmp, sizeof(o_tmp), "--tmpdir=%s/vm%u/tmp", b->h.lab.dir, i);
        labdir_vm_path(&b->h.lab, i, "error.log", log);
        cg_procs_files(&v->cg, bufs, procs);
        return proc_spawn(&(struct proc_spawn){argv, log, procs,
                                               cg_affinity(&v->cg, b->h.lab.st.vm_cpuset, &set)},
                          &v->pid, err, errlen);
}

/* Until the server answers on its socket, with the lab password or (fresh
 * datadir) none. *fresh tells which worked. */
static int vm_wait_ready(struct lab_backend *b, unsigned i, const struct lab_endpoint *ep,
                         int *fresh, char *err, size_t errlen)
{
        char pw[256], tail[600], why[256] = "";
        lab_path_t log;
        int rc = lab_read_password(ep->password_file, pw, sizeof(pw), err, errlen);

        labdir_vm_path(&b->h.lab, i, "error.log", log);
        for (unsigned waited = 0; !rc && waited < SERVER_READY_MS; waited += 100) {
                if (!proc_alive(b->h.lab.st.vm[i].pid, "mariadbd")) {
                        proc_log_tail(log, 5, tail, sizeof(tail));
                        snprintf(err, errlen, "vm%u: mariadbd exited during start-up: %s", i, tail);
                        rc = -EIO;
                        break;
                }
                *fresh = 0;
                if (lab_sql_ping(ep, 1, pw, 2, why, sizeof(why)) == 0)
                        goto out;
                *fresh = 1;
                if (lab_sql_ping(ep, 1, "", 2, why, sizeof(why)) == 0)
                        goto out;
                clk_sleep_ns(100 * 1000000ULL);
        }
        if (!rc) {
                proc_log_tail(log, 3, tail, sizeof(tail));
                snprintf(err, errlen, "vm%u: mariadbd did not answer within %u s (%s): %s", i,
                         SERVER_READY_MS / 1000, why, tail);
                rc = -ETIMEDOUT;
        }
out:
        memset(pw, 0, sizeof(pw));
        return rc;
}

static int vm_prepare(struct lab_backend *b, unsigned i, const struct lab_endpoint *ep, char *err,
                      size_t errlen)
{
        char pw[256];
        lab_path_t marker;
        int rc = lab_read_password(ep->password_file, pw, sizeof(pw), err, errlen);

        if (!rc)
                rc = lab_sql_prepare(ep, pw, err, errlen);
        memset(pw, 0, sizeof(pw));
        if (rc < 0)
                return rc;
        data_path(b, i, "prepared", marker);
        return touch(marker);
}

/* On a broken disk chain the server cannot shut down cleanly: killed. */
static int local_stop(struct lab_backend *b, unsigned i, char *err, size_t errlen)
{
        unsigned ms = SERVER_STOP_MS;

        if (i >= 1 && i <= b->h.lab.st.nvms && on_lun(b) &&
            proc_alive(b->h.lab.st.vm[i].pid, NULL) && vmdisk_abort(&b->h.lab, i))
                ms = BROKEN_STOP_MS;
        return labdir_stop_vm(&b->h.lab, i, "mariadbd", ms, err, errlen);
}

static int local_start(struct lab_backend *b, unsigned i, int *started, char *err, size_t errlen)
{
        struct lab_endpoint ep;
        int rc = local_endpoint(b, i, &ep, err, errlen), fresh = 0;

        *started = 0;
        if (rc < 0)
                return rc;
        /* a VM whose disk chain broke (a part killed) is restarted on a new one */
        if (on_lun(b) && !vmdisk_healthy(&b->h.lab, i))
                rc = local_stop(b, i, err, errlen);
        if (!rc && !proc_alive(b->h.lab.st.vm[i].pid, "mariadbd"))
                rc = vm_disk_ready(b, i, err, errlen);
        if (!rc && !proc_alive(b->h.lab.st.vm[i].pid, "mariadbd")) {
                rc = vm_spawn(b, i, &ep, err, errlen);
                if (rc < 0)
                        return rc;
                *started = 1;
                rc = labdir_save(&b->h.lab, err, errlen);
        }
        if (!rc)
                rc = vm_wait_ready(b, i, &ep, &fresh, err, errlen);
        if (!rc && fresh)
                rc = vm_prepare(b, i, &ep, err, errlen);
        return rc;
}

/* ---- teardown ---------------------------------------------------------- */

static int purge_files(struct lab_backend *b, char *err, size_t errlen)
{
        DIR *d = opendir(b->h.lab.dir);
        struct dirent *e;
        char path[sizeof(b->h.lab.dir) + sizeof(e->d_name) + 2];
        unsigned i;
        char c;
        int rc = 0;

        if (!d)
                return 0;
        while ((e = readdir(d))) {
                if (sscanf(e->d_name, "vm%u%c", &i, &c) != 1)
                        continue;
                snprintf(path, sizeof(path), "%s/%s", b->h.lab.dir, e->d_name);
                if (rm_tree(path) < 0 && !rc) {
                        rc = -errno;
                        snprintf(err, errlen, "removing %s: %s", path, strerror(errno));
                }
        }
        closedir(d);
        snprintf(path, sizeof(path), "%s/password", b->h.lab.dir);
        unlink(path);
        snprintf(path, sizeof(path), "%s/tgtd.log", b->h.lab.dir);
        unlink(path);
        return rc;
}

/* Stop VM i, kill anything left in its cgroups, remove them. */
static int vm_teardown(struct lab_backend *b, unsigned i, char *err, size_t errlen)
{
        struct lab_vm *v = &b->h.lab.st.vm[i];
        int rc = local_stop(b, i, err, errlen);

        /* what else runs in the VM (an install cut short) would keep its disk busy; its
         * initiator goes last, with the disk (a host lab too: an older run may have left one) */
        cg_kill_others(&v->cg, v->initiator);
        if (!rc)
                rc = vmdisk_down(&b->h.lab, i, err, errlen);
        cg_kill_all(&v->cg);
        if (!rc)
                rc = cg_remove(&v->cg, err, errlen);
        return rc;
}

static int local_destroy(struct lab_backend *b, int purge, char *err, size_t errlen)
{
        int rc = 0, r;

        for (unsigned i = 1; i <= b->h.lab.st.nvms; i++) {
                if (!b->h.lab.st.vm[i].exists)
                        continue;
                r = vm_teardown(b, i, err, errlen);
                rc = rc ? rc : r;
        }
        r = target_stop(&b->h.lab, err, errlen);
        cg_kill_all(&b->h.lab.st.tgt.cg);
        if (!r)
                r = cg_remove(&b->h.lab.st.tgt.cg, err, errlen);
        rc = labdir_forget(&b->h.lab, rc ? rc : r, err, errlen);
        if (!rc && purge)
                rc = purge_files(b, err, errlen);
        return rc;
}

static void fill_cg_stats(const struct cg_group *g, struct lab_vm_stats *st)
{
        struct cg_stats cs;

        cg_read(g, &cs);
        st->cpu_limit = cs.cpus;
        st->mem_limit = cs.mem_limit;
        st->mem_usage = cs.mem_usage;
        snprintf(st->cpuset, sizeof(st->cpuset), "%s", cs.cpuset);
        for (int c = 0; c < CG_NCTRL && !st->where[0]; c++)
                snprintf(st->where, sizeof(st->where), "%s", g->path[c]);
        st->cg = *g;
}

static int local_stats(struct lab_backend *b, unsigned i, struct lab_vm_stats *st, char *err,
                       size_t errlen)
{
        const struct lab_vm *v;
        lab_path_t disk;
        int rc = labdir_check_vm(&b->h.lab, i, err, errlen);

        if (rc < 0)
                return rc;
        v = &b->h.lab.st.vm[i];
        memset(st, 0, sizeof(*st));
        st->pid = v->pid;
        st->alive = proc_alive(v->pid, "mariadbd");
        st->cpu_usage_ns = st->alive ? proc_cpu_ns(v->pid) : -1;
        fill_cg_stats(&v->cg, st);
        if (!st->cpuset[0]) /* pinned by affinity where there is no cpuset group */
                snprintf(st->cpuset, sizeof(st->cpuset), "%s", b->h.lab.st.vm_cpuset);
        st->datadir_on = on_lun(b) ? LAB_DATADIR_LUN : LAB_DATADIR_HOST;
        st->initiator_pid = -1;
        if (on_lun(b)) {
                vmdisk_loop_name(&b->h.lab, i, st->disk, sizeof(st->disk));
                snprintf(st->initiator, sizeof(st->initiator), "%s", VMDISK_INITIATOR);
                st->initiator_pid = v->initiator > 0 ? v->initiator : -1;
                labdir_vm_path(&b->h.lab, i, "disk", disk);
                snprintf(st->mount, sizeof(st->mount), "%.*s", LAB_PATH_MAX - 1, disk);
        }
        return 0;
}

/* sp, started in VM i's cgroups with its affinity. */
static int local_spawn(struct lab_backend *b, unsigned i, const struct proc_spawn *sp,
                       const int *stdio, pid_t *pid, char *err, size_t errlen)
{
        char bufs[CG_NCTRL][LAB_PATH_MAX + 16];
        const char *procs[CG_NCTRL + 1];
        struct proc_spawn in = *sp;
        const struct lab_vm *v;
        cpu_set_t set;
        int rc = labdir_check_vm(&b->h.lab, i, err, errlen);

        if (rc < 0)
                return rc;
        v = &b->h.lab.st.vm[i];
        cg_procs_files(&v->cg, bufs, procs);
        in.cgroup_procs = procs;
        in.cpus = cg_affinity(&v->cg, b->h.lab.st.vm_cpuset, &set);
        return proc_spawn_io(&in, stdio, stdio != NULL, pid, err, errlen);
}

static int local_exec(struct lab_backend *b, unsigned i, char *const argv[], int *status, char *err,
                      size_t errlen)
{
        pid_t pid;
        int rc = local_spawn(b, i, &(struct proc_spawn){argv, NULL, NULL, NULL}, NULL, &pid, err,
                             errlen);

        if (rc < 0)
                return rc;
        while (waitpid(pid, status, 0) < 0)
                if (errno != EINTR) {
                        rc = -errno;
                        snprintf(err, errlen, "waitpid %s: %s", argv[0], strerror(errno));
                        return rc;
                }
        return 0;
}

const struct lab_backend_ops lab_backend_local = {
    .name = "local",
    .help = "mariadbd per VM on this host, in cgroups, plus a tgtd (the default)",
    .can_start = 1,
    .has_storage = 1,
    .driver_where = "cgroup",
    .spawn_streams = 1,
    .open = local_open,
    .count = lab_host_count,
    .check = local_check,
    .create = local_create,
    .start = local_start,
    .stop = local_stop,
    .destroy = local_destroy,
    .endpoint = local_endpoint,
    .exec = local_exec,
    .spawn = local_spawn,
    .stats = local_stats,
    .storage = lab_host_storage,
    .close = lab_host_close,
};
