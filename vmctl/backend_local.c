/*
 * backend_local.c - the `local` backend: each "VM" is a mariadbd of its own
 * on this host (datadir LAB/vmN/data, address ADDR_BASE.N, cgroups for its
 * CPU quota and memory limit), and the storage service is one tgtd on
 * 127.0.0.1:TARGET_PORT serving LUN N (file LAB/vmN/lun.img) for VM N. In
 * the two-layer topology tgtd gets the last CPU and the VMs the others.
 *
 * Everything started is written to LAB/state right away (see labstate.h),
 * and every op takes an exclusive lock on LAB/lock, so a second hcisweep
 * working on the same lab waits instead of racing. Datadirs are installed
 * once and prepared (database, password) on their first start; the marker
 * files LAB/vmN/installed and LAB/vmN/prepared say how far a VM got, so a
 * crash half-way is redone rather than trusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "vmctl/backend.h"
#include "vmctl/cgroup.h"
#include "vmctl/labstate.h"
#include "vmctl/proc.h"
#include "vmctl/sql.h"

#define IQN_PREFIX        "iqn.2026-11.io.hcisweep:"
#define MIN_POOL          (32ULL << 20)
#define DEFAULT_POOL      (128ULL << 20)
#define SERVER_READY_MS   30000U
#define SERVER_STOP_MS    60000
#define TARGET_READY_MS   10000U
#define TARGET_STOP_MS    10000
#define SOCKET_PATH_LIMIT 107

struct vmctl_backend {
        const struct vmctl_spec *spec;
        char dir[VMCTL_PATH_MAX - 128]; /* absolute lab directory */
        int lock_fd;
        struct lab_state st;
};

typedef char path_t[VMCTL_PATH_MAX + 64];

static void sleep_ms(unsigned ms)
{
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static void vm_path(const struct vmctl_backend *b, unsigned i, const char *name, path_t out)
{
        snprintf(out, sizeof(path_t), "%s/vm%u%s%s", b->dir, i, name[0] ? "/" : "", name);
}

static int save(struct vmctl_backend *b, char *err, size_t errlen)
{
        return labstate_write(b->dir, &b->st, err, errlen);
}

/* A name for cgroups and the IQN: the lab directory's base name plus a hash
 * of its absolute path, so two labs called "lab" in different places differ. */
static void lab_name(const char *dir, char *out, size_t outlen)
{
        const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
        unsigned h = 2166136261u;
        char clean[32];
        size_t n = 0;

        for (const char *p = dir; *p; p++)
                h = (h ^ (unsigned char)*p) * 16777619u;
        for (const char *p = base; *p && n < sizeof(clean) - 1; p++) {
                char c = *p;

                if (c >= 'A' && c <= 'Z')
                        c = (char)(c - 'A' + 'a');
                clean[n++] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ? c : '-';
        }
        clean[n] = '\0';
        snprintf(out, outlen, "%s-%08x", n ? clean : "lab", h);
}

static int absolute_dir(const char *dir, char *out, size_t outlen, char *err, size_t errlen)
{
        char cwd[PATH_MAX];
        int n;

        if (dir[0] == '/') {
                n = snprintf(out, outlen, "%s", dir);
        } else {
                if (!getcwd(cwd, sizeof(cwd))) {
                        snprintf(err, errlen, "getcwd: %s", strerror(errno));
                        return -errno;
                }
                n = snprintf(out, outlen, "%s/%s", cwd, dir);
        }
        if (n < 0 || (size_t)n >= outlen - 64) {
                snprintf(err, errlen, "option --lab-dir: path too long");
                return -EINVAL;
        }
        while (n > 1 && out[n - 1] == '/')
                out[--n] = '\0';
        return 0;
}

static int take_lock(struct vmctl_backend *b, char *err, size_t errlen)
{
        path_t path;

        if (b->lock_fd >= 0)
                return 0;
        snprintf(path, sizeof(path), "%s/lock", b->dir);
        b->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (b->lock_fd < 0 || flock(b->lock_fd, LOCK_EX) < 0) {
                snprintf(err, errlen, "locking %s: %s", path, strerror(errno));
                return -errno;
        }
        return 0;
}

static int local_open(const struct vmctl_spec *spec, struct vmctl_backend **out, char *err,
                      size_t errlen)
{
        struct vmctl_backend *b = calloc(1, sizeof(*b));
        int rc;

        if (!b) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        b->spec = spec;
        b->lock_fd = -1;
        rc = absolute_dir(spec->lab_dir, b->dir, sizeof(b->dir), err, errlen);
        if (!rc && access(b->dir, F_OK) == 0)
                rc = take_lock(b, err, errlen);
        if (!rc) {
                rc = labstate_read(b->dir, &b->st, err, errlen);
                if (rc == -ENOENT) {
                        memset(&b->st, 0, sizeof(b->st));
                        rc = 0;
                }
        }
        if (!b->st.name[0])
                lab_name(b->dir, b->st.name, sizeof(b->st.name));
        if (rc < 0) {
                if (b->lock_fd >= 0)
                        close(b->lock_fd);
                free(b);
                return rc;
        }
        *out = b;
        return 0;
}

static unsigned local_count(struct vmctl_backend *b)
{
        unsigned n = 0;

        for (unsigned i = 1; i <= b->st.nvms; i++)
                n += b->st.vm[i].exists ? 1 : 0;
        return n;
}

/* ---- password, CPU split ---------------------------------------------- */

static int ensure_password(struct vmctl_backend *b, char *err, size_t errlen)
{
        static const char alnum[] = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        unsigned char raw[20];
        char pw[sizeof(raw) + 2];
        path_t path;
        int fd, rc = 0;
        FILE *f;

        snprintf(path, sizeof(path), "%s/password", b->dir);
        if (access(path, F_OK) == 0)
                return 0;
        f = fopen("/dev/urandom", "r");
        if (!f || fread(raw, 1, sizeof(raw), f) != sizeof(raw)) {
                rc = -EIO;
                snprintf(err, errlen, "reading /dev/urandom failed");
                goto out;
        }
        for (size_t i = 0; i < sizeof(raw); i++)
                pw[i] = alnum[raw[i] % (sizeof(alnum) - 1)];
        pw[sizeof(raw)] = '\n';
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || write(fd, pw, sizeof(raw) + 1) != (ssize_t)sizeof(raw) + 1) {
                rc = -errno;
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
        }
        if (fd >= 0)
                close(fd);
out:
        if (f)
                fclose(f);
        memset(pw, 0, sizeof(pw));
        return rc;
}

/* Two-layer: tgtd gets the last CPU this process may use, the VMs the rest. */
static int split_cpus(struct vmctl_backend *b, char *err, size_t errlen)
{
        struct lab_state *st = &b->st;
        int cpus[CPU_SETSIZE], n = 0;
        size_t len = 0;
        cpu_set_t set;

        st->vm_cpuset[0] = st->tgt.cpuset[0] = '\0';
        if (b->spec->topology != VMCTL_TWO_LAYER)
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

/* Affinity stands in for a cpuset group when the cpuset controller is missing. */
static const cpu_set_t *affinity_for(const struct cg_group *g, const char *list, cpu_set_t *set)
{
        const char *p = list;

        if (!list[0] || g->path[CG_CPUSET][0])
                return NULL;
        CPU_ZERO(set);
        while (*p) {
                CPU_SET(atoi(p), set);
                p += strcspn(p, ",");
                p += *p == ',';
        }
        return set;
}

/* ---- tgtd ------------------------------------------------------------- */

static int tgtadm(struct vmctl_backend *b, const char *const *args, char *err, size_t errlen)
{
        char ctl[16], *argv[24];
        path_t log;
        int n = 0, status, rc;

        snprintf(ctl, sizeof(ctl), "%u", b->st.tgt.control);
        snprintf(log, sizeof(log), "%s/tgtd.log", b->dir);
        argv[n++] = "tgtadm";
        argv[n++] = "-C";
        argv[n++] = ctl;
        while (*args && n < 23)
                argv[n++] = (char *)*args++;
        argv[n] = NULL;
        rc = proc_run(&(struct proc_spawn){.argv = argv, .log_path = log}, &status, err, errlen);
        if (!rc && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
                snprintf(err, errlen, "tgtadm %s %s %s %s failed (see %s)", argv[3], argv[4],
                         argv[5] ? argv[5] : "", argv[5] && argv[6] ? argv[6] : "", log);
                rc = -EIO;
        }
        return rc;
}

static int port_answers(unsigned port)
{
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

        if (fd < 0)
                return 0;
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
        close(fd);
        return ok;
}

static int target_wait_ready(struct vmctl_backend *b, char *err, size_t errlen)
{
        static const char *const show[] = {"--op", "show", "--mode", "sys", NULL};
        path_t log;
        char tail[512];

        snprintf(log, sizeof(log), "%s/tgtd.log", b->dir);
        for (unsigned waited = 0; waited < TARGET_READY_MS; waited += 100) {
                if (!proc_alive(b->st.tgt.pid, "tgtd")) {
                        proc_log_tail(log, 5, tail, sizeof(tail));
                        snprintf(err, errlen, "tgtd exited during start-up: %s", tail);
                        return -EIO;
                }
                if (tgtadm(b, show, err, errlen) == 0 && port_answers(b->st.tgt.port))
                        return 0;
                sleep_ms(100);
        }
        snprintf(err, errlen, "tgtd did not answer on control %u and 127.0.0.1:%u within %u s",
                 b->st.tgt.control, b->st.tgt.port, TARGET_READY_MS / 1000);
        return -ETIMEDOUT;
}

static int target_configure(struct vmctl_backend *b, char *err, size_t errlen)
{
        const char *new_target[] = {"--lld",        "iscsi",       "--op",  "new",
                                    "--mode",       "target",      "--tid", "1",
                                    "--targetname", b->st.tgt.iqn, NULL};
        static const char *const bind[] = {"--lld", "iscsi",  "--op",
                                           "bind",  "--mode", "target",
                                           "--tid", "1",      "--initiator-address",
                                           "ALL",   NULL};
        int rc = tgtadm(b, new_target, err, errlen);

        return rc ? rc : tgtadm(b, bind, err, errlen);
}

static int target_start(struct vmctl_backend *b, char *err, size_t errlen)
{
        struct lab_target *t = &b->st.tgt;
        char portal[64], ctl[16], bufs[CG_NCTRL][VMCTL_PATH_MAX + 16];
        const char *procs[CG_NCTRL + 1];
        char *argv[] = {"tgtd", "-f", "--iscsi", portal, "-C", ctl, NULL};
        struct cg_limits lim = {.cpuset = t->cpuset[0] ? t->cpuset : NULL};
        cpu_set_t set;
        path_t log;
        int rc;

        if (proc_alive(t->pid, "tgtd"))
                return 0;
        t->port = b->spec->target_port;
        t->control = b->spec->target_port; /* one tgtd per portal port: a unique number */
        t->luns = 0;
        snprintf(t->iqn, sizeof(t->iqn), "%s%s", IQN_PREFIX, b->st.name);
        if (port_answers(t->port)) {
                snprintf(err, errlen, "option --target-port: 127.0.0.1:%u is already in use",
                         t->port);
                return -EADDRINUSE;
        }
        snprintf(portal, sizeof(portal), "portal=127.0.0.1:%u", t->port);
        snprintf(ctl, sizeof(ctl), "%u", t->control);
        snprintf(log, sizeof(log), "%s/tgtd.log", b->dir);
        rc = cg_create(b->st.name, "target", &lim, &t->cg, err, errlen);
        if (rc < 0)
                return rc;
        cg_procs_files(&t->cg, bufs, procs);
        rc = proc_spawn(
            &(struct proc_spawn){argv, log, procs, affinity_for(&t->cg, t->cpuset, &set)}, &t->pid,
            err, errlen);
        if (rc < 0)
                return rc;
        rc = save(b, err, errlen);
        if (!rc)
                rc = target_wait_ready(b, err, errlen);
        if (!rc)
                rc = target_configure(b, err, errlen);
        return rc;
}

static int target_add_luns(struct vmctl_backend *b, unsigned n, char *err, size_t errlen)
{
        char lun[16];
        path_t store;
        const char *args[] = {"--lld",           "iscsi", "--op", "new",   "--mode",
                              "logicalunit",     "--tid", "1",    "--lun", lun,
                              "--backing-store", store,   NULL};
        int rc = 0;

        while (!rc && b->st.tgt.luns < n) {
                snprintf(lun, sizeof(lun), "%u", b->st.tgt.luns + 1);
                vm_path(b, b->st.tgt.luns + 1, "lun.img", store);
                rc = tgtadm(b, args, err, errlen);
                if (!rc)
                        b->st.tgt.luns++;
        }
        return rc;
}

/* tgtd ignores SIGTERM: offline, delete the target, delete the system. */
static int target_stop(struct vmctl_backend *b, char *err, size_t errlen)
{
        static const char *const offline[] = {"--op",  "update", "--mode",  "sys", "--name",
                                              "State", "-v",     "offline", NULL};
        static const char *const del[] = {"--lld",  "iscsi",  "--op",  "delete", "--force",
                                          "--mode", "target", "--tid", "1",      NULL};
        static const char *const del_sys[] = {"--op", "delete", "--mode", "system", NULL};
        struct lab_target *t = &b->st.tgt;
        char ignored[256];

        if (proc_alive(t->pid, "tgtd")) {
                tgtadm(b, offline, ignored, sizeof(ignored));
                tgtadm(b, del, ignored, sizeof(ignored));
                tgtadm(b, del_sys, ignored, sizeof(ignored));
                if (proc_stop(t->pid, "tgtd", 0, TARGET_STOP_MS, err, errlen) < 0)
                        return -EBUSY;
        }
        t->pid = 0;
        t->luns = 0;
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
        return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 ? -errno : 0;
}

static unsigned long long pool_for(uint64_t memory)
{
        unsigned long long pool = memory ? (memory / 2) & ~((1ULL << 20) - 1) : DEFAULT_POOL;

        return pool < MIN_POOL ? MIN_POOL : pool;
}

static void vm_limits(const struct vmctl_backend *b, struct cg_limits *lim)
{
        *lim = (struct cg_limits){b->spec->vm_cpus, b->spec->vm_memory,
                                  b->st.vm_cpuset[0] ? b->st.vm_cpuset : NULL};
}

static int touch(const char *path)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

        if (fd < 0)
                return -errno;
        close(fd);
        return 0;
}

static int vm_install(struct vmctl_backend *b, unsigned i, char *err, size_t errlen)
{
        struct lab_vm *v = &b->st.vm[i];
        path_t data, marker, log;
        char datadir_opt[sizeof(path_t) + 16], tmpdir_opt[sizeof(path_t) + 16];
        char bufs[CG_NCTRL][VMCTL_PATH_MAX + 16], tail[512];
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

        vm_path(b, i, "installed", marker);
        if (access(marker, F_OK) == 0)
                return 0;
        vm_path(b, i, "data", data);
        vm_path(b, i, "install.log", log);
        rm_tree(data); /* a half-installed datadir from an interrupted run */
        snprintf(datadir_opt, sizeof(datadir_opt), "--datadir=%s", data);
        vm_path(b, i, "tmp", data);
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

static int vm_make_lun(struct vmctl_backend *b, unsigned i, char *err, size_t errlen)
{
        path_t lun;
        int fd;
        struct stat sb;

        vm_path(b, i, "lun.img", lun);
        if (stat(lun, &sb) == 0 && (uint64_t)sb.st_size >= b->spec->lun_size)
                return 0;
        fd = open(lun, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0 || ftruncate(fd, (off_t)b->spec->lun_size) < 0) {
                snprintf(err, errlen, "%s: %s", lun, strerror(errno));
                if (fd >= 0)
                        close(fd);
                return -errno;
        }
        close(fd);
        return 0;
}

static int vm_create(struct vmctl_backend *b, unsigned i, char *err, size_t errlen)
{
        struct lab_vm *v = &b->st.vm[i];
        struct cg_limits lim;
        char name[16];
        path_t dir;
        int rc;

        vm_limits(b, &lim);
        if (v->exists)
                return cg_apply(&v->cg, &lim, err, errlen);
        vm_path(b, i, "", dir);
        /* A private tmpdir: bootstrap names its temporary files after a small
         * id, and servers sharing /tmp can collide. */
        for (int k = 0; k < 2; k++) {
                if (k)
                        vm_path(b, i, "tmp", dir);
                if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
                        snprintf(err, errlen, "mkdir %s: %s", dir, strerror(errno));
                        return -errno;
                }
        }
        snprintf(v->addr, sizeof(v->addr), "%s.%u", b->spec->addr_base, i);
        v->port = b->spec->base_port;
        snprintf(name, sizeof(name), "vm%u", i);
        rc = cg_create(b->st.name, name, &lim, &v->cg, err, errlen);
        if (rc < 0)
                return rc;
        v->exists = 1;
        if (i > b->st.nvms)
                b->st.nvms = i;
        rc = save(b, err, errlen); /* the cgroups are now on record for `lab down` */
        if (!rc)
                rc = vm_install(b, i, err, errlen);
        if (!rc)
                rc = vm_make_lun(b, i, err, errlen);
        return rc;
}

static int local_create(struct vmctl_backend *b, unsigned n, char *err, size_t errlen)
{
        int rc;

        if (n < 1 || n > VMCTL_MAX_VMS) {
                snprintf(err, errlen, "option --vms: %u is not in 1..%d", n, VMCTL_MAX_VMS);
                return -EINVAL;
        }
        if (mkdir(b->dir, 0755) < 0 && errno != EEXIST) {
                snprintf(err, errlen, "mkdir %s: %s", b->dir, strerror(errno));
                return -errno;
        }
        rc = take_lock(b, err, errlen);
        if (!rc && !proc_alive(b->st.tgt.pid, "tgtd")) {
                b->st.topology = (int)b->spec->topology;
                rc = split_cpus(b, err, errlen);
        }
        if (!rc)
                rc = ensure_password(b, err, errlen);
        if (!rc)
                rc = target_start(b, err, errlen);
        for (unsigned i = 1; !rc && i <= n; i++)
                rc = vm_create(b, i, err, errlen);
        if (!rc)
                rc = target_add_luns(b, n, err, errlen);
        if (!rc)
                rc = save(b, err, errlen);
        return rc;
}

/* ---- VMs: running ------------------------------------------------------ */

static int local_endpoint(struct vmctl_backend *b, unsigned i, struct vmctl_endpoint *ep, char *err,
                          size_t errlen)
{
        struct lab_vm *v = &b->st.vm[i];

        if (i < 1 || i > b->st.nvms || !v->exists) {
                snprintf(err, errlen, "vm%u does not exist in %s", i, b->dir);
                return -ENOENT;
        }
        memset(ep, 0, sizeof(*ep));
        snprintf(ep->host, sizeof(ep->host), "%s", v->addr);
        ep->port = v->port;
        snprintf(ep->user, sizeof(ep->user), "root");
        snprintf(ep->database, sizeof(ep->database), "sbtest");
        snprintf(ep->password_file, sizeof(ep->password_file), "%s/password", b->dir);
        snprintf(ep->socket, sizeof(ep->socket), "%s/vm%u/mariadbd.sock", b->dir, i);
        if (b->st.tgt.luns >= i)
                snprintf(ep->lun_url, sizeof(ep->lun_url), "iscsi://127.0.0.1:%u/%s/%u",
                         b->st.tgt.port, b->st.tgt.iqn, i);
        return 0;
}

static int vm_spawn(struct vmctl_backend *b, unsigned i, const struct vmctl_endpoint *ep, char *err,
                    size_t errlen)
{
        struct lab_vm *v = &b->st.vm[i];
        char o_port[32], o_bind[48], o_pool[64], bufs[CG_NCTRL][VMCTL_PATH_MAX + 16];
        path_t o_data, o_sock, o_pid, o_tmp, log;
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
        v->pool = pool_for(b->spec->vm_memory);
        snprintf(o_data, sizeof(o_data), "--datadir=%s/vm%u/data", b->dir, i);
        snprintf(o_sock, sizeof(o_sock), "--socket=%s", ep->socket);
        snprintf(o_port, sizeof(o_port), "--port=%u", v->port);
        snprintf(o_bind, sizeof(o_bind), "--bind-address=%s", v->addr);
        snprintf(o_pool, sizeof(o_pool), "--innodb-buffer-pool-size=%llu", v->pool);
        snprintf(o_pid, sizeof(o_pid), "--pid-file=%s/vm%u/mariadbd.pid", b->dir, i);
        snprintf(o_tmp, sizeof(o_tmp), "--tmpdir=%s/vm%u/tmp", b->dir, i);
        vm_path(b, i, "error.log", log);
        cg_procs_files(&v->cg, bufs, procs);
        return proc_spawn(
            &(struct proc_spawn){argv, log, procs, affinity_for(&v->cg, b->st.vm_cpuset, &set)},
            &v->pid, err, errlen);
}

/* Until the server answers on its socket, with the lab password or (fresh
 * datadir) none. *fresh tells which worked. */
static int vm_wait_ready(struct vmctl_backend *b, unsigned i, const struct vmctl_endpoint *ep,
                         int *fresh, char *err, size_t errlen)
{
        char pw[256], tail[600], why[256] = "";
        path_t log;
        int rc = vmctl_read_password(ep->password_file, pw, sizeof(pw), err, errlen);

        vm_path(b, i, "error.log", log);
        for (unsigned waited = 0; !rc && waited < SERVER_READY_MS; waited += 100) {
                if (!proc_alive(b->st.vm[i].pid, "mariadbd")) {
                        proc_log_tail(log, 5, tail, sizeof(tail));
                        snprintf(err, errlen, "vm%u: mariadbd exited during start-up: %s", i, tail);
                        rc = -EIO;
                        break;
                }
                *fresh = 0;
                if (vmctl_sql_ping(ep, 1, pw, 2, why, sizeof(why)) == 0)
                        goto out;
                *fresh = 1;
                if (vmctl_sql_ping(ep, 1, "", 2, why, sizeof(why)) == 0)
                        goto out;
                sleep_ms(100);
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

static int vm_prepare(struct vmctl_backend *b, unsigned i, const struct vmctl_endpoint *ep,
                      char *err, size_t errlen)
{
        char pw[256];
        path_t marker;
        int rc = vmctl_read_password(ep->password_file, pw, sizeof(pw), err, errlen);

        if (!rc)
                rc = vmctl_sql_prepare(ep, pw, err, errlen);
        memset(pw, 0, sizeof(pw));
        if (rc < 0)
                return rc;
        vm_path(b, i, "prepared", marker);
        return touch(marker);
}

static int local_start(struct vmctl_backend *b, unsigned i, int *started, char *err, size_t errlen)
{
        struct vmctl_endpoint ep;
        int rc = local_endpoint(b, i, &ep, err, errlen), fresh = 0;

        *started = 0;
        if (rc < 0)
                return rc;
        if (!proc_alive(b->st.vm[i].pid, "mariadbd")) {
                rc = vm_spawn(b, i, &ep, err, errlen);
                if (rc < 0)
                        return rc;
                *started = 1;
                rc = save(b, err, errlen);
        }
        if (!rc)
                rc = vm_wait_ready(b, i, &ep, &fresh, err, errlen);
        if (!rc && fresh)
                rc = vm_prepare(b, i, &ep, err, errlen);
        return rc;
}

static int local_stop(struct vmctl_backend *b, unsigned i, char *err, size_t errlen)
{
        struct lab_vm *v = &b->st.vm[i];
        int rc;

        if (i < 1 || i > b->st.nvms || !v->exists)
                return 0;
        rc = proc_stop(v->pid, "mariadbd", SIGTERM, SERVER_STOP_MS, err, errlen);
        if (!rc) {
                v->pid = 0;
                rc = save(b, err, errlen);
        }
        return rc;
}

/* ---- teardown ---------------------------------------------------------- */

static int purge_files(struct vmctl_backend *b, char *err, size_t errlen)
{
        DIR *d = opendir(b->dir);
        struct dirent *e;
        char path[sizeof(b->dir) + sizeof(e->d_name) + 2];
        unsigned i;
        char c;
        int rc = 0;

        if (!d)
                return 0;
        while ((e = readdir(d))) {
                if (sscanf(e->d_name, "vm%u%c", &i, &c) != 1)
                        continue;
                snprintf(path, sizeof(path), "%s/%s", b->dir, e->d_name);
                if (rm_tree(path) < 0 && !rc) {
                        rc = -errno;
                        snprintf(err, errlen, "removing %s: %s", path, strerror(errno));
                }
        }
        closedir(d);
        snprintf(path, sizeof(path), "%s/password", b->dir);
        unlink(path);
        snprintf(path, sizeof(path), "%s/tgtd.log", b->dir);
        unlink(path);
        return rc;
}

/* Stop VM i, kill anything left in its cgroups, remove them. */
static int vm_teardown(struct vmctl_backend *b, unsigned i, char *err, size_t errlen)
{
        struct lab_vm *v = &b->st.vm[i];
        int rc = local_stop(b, i, err, errlen);

        if (cg_kill_all(&v->cg) > 0)
                sleep_ms(100);
        if (!rc)
                rc = cg_remove(&v->cg, err, errlen);
        return rc;
}

static int local_destroy(struct vmctl_backend *b, int purge, char *err, size_t errlen)
{
        int rc = 0, r;

        for (unsigned i = 1; i <= b->st.nvms; i++) {
                if (!b->st.vm[i].exists)
                        continue;
                r = vm_teardown(b, i, err, errlen);
                rc = rc ? rc : r;
        }
        r = target_stop(b, err, errlen);
        cg_kill_all(&b->st.tgt.cg);
        if (!r)
                r = cg_remove(&b->st.tgt.cg, err, errlen);
        rc = rc ? rc : r;
        if (rc < 0) {
                char ignored[256];

                save(b, ignored, sizeof(ignored)); /* keep what is left on record */
                return rc;
        }
        rc = labstate_remove(b->dir, err, errlen);
        memset(&b->st.vm, 0, sizeof(b->st.vm));
        b->st.nvms = 0;
        if (!rc && purge)
                rc = purge_files(b, err, errlen);
        return rc;
}

/* ---- inspection -------------------------------------------------------- */

static int64_t proc_cpu_ns(pid_t pid)
{
        unsigned long long ut, st;
        char path[64], buf[1024], *p;
        size_t n;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        f = fopen(path, "r");
        if (!f)
                return -1;
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        p = strrchr(buf, ')');
        /* After ") " come state and 10 more fields; utime and stime follow. */
        if (!p ||
            sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
                return -1;
        return (int64_t)((ut + st) * (1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK)));
}

static void fill_cg_stats(const struct cg_group *g, struct vmctl_vm_stats *st)
{
        int64_t quota = cg_read_i64(g, CG_CPU, "cpu.cfs_quota_us");
        int64_t period = cg_read_i64(g, CG_CPU, "cpu.cfs_period_us");

        st->cpu_limit = quota > 0 && period > 0 ? (double)quota / (double)period : -1;
        st->mem_limit = cg_read_i64(g, CG_MEMORY, "memory.limit_in_bytes");
        st->mem_usage = cg_read_i64(g, CG_MEMORY, "memory.usage_in_bytes");
        cg_read_str(g, CG_CPUSET, "cpuset.cpus", st->cpuset, sizeof(st->cpuset));
        for (int c = 0; c < CG_NCTRL && !st->where[0]; c++)
                snprintf(st->where, sizeof(st->where), "%s", g->path[c]);
}

static int local_stats(struct vmctl_backend *b, unsigned i, struct vmctl_vm_stats *st, char *err,
                       size_t errlen)
{
        struct lab_vm *v = &b->st.vm[i];

        if (i < 1 || i > b->st.nvms || !v->exists) {
                snprintf(err, errlen, "vm%u does not exist in %s", i, b->dir);
                return -ENOENT;
        }
        memset(st, 0, sizeof(*st));
        st->pid = v->pid;
        st->alive = proc_alive(v->pid, "mariadbd");
        st->cpu_usage_ns = st->alive ? proc_cpu_ns(v->pid) : -1;
        fill_cg_stats(&v->cg, st);
        return 0;
}

static int local_storage(struct vmctl_backend *b, struct vmctl_storage *st, char *err,
                         size_t errlen)
{
        const struct lab_target *t = &b->st.tgt;

        (void)err;
        (void)errlen;
        memset(st, 0, sizeof(*st));
        st->exists = t->pid > 0;
        st->pid = t->pid;
        st->alive = proc_alive(t->pid, "tgtd");
        snprintf(st->portal, sizeof(st->portal), "127.0.0.1:%u", t->port);
        snprintf(st->iqn, sizeof(st->iqn), "%s", t->iqn);
        st->luns = t->luns;
        snprintf(st->cpuset, sizeof(st->cpuset), "%s", t->cpuset);
        return 0;
}

static int local_exec(struct vmctl_backend *b, unsigned i, char *const argv[], int *status,
                      char *err, size_t errlen)
{
        char bufs[CG_NCTRL][VMCTL_PATH_MAX + 16];
        const char *procs[CG_NCTRL + 1];
        struct lab_vm *v = &b->st.vm[i];
        cpu_set_t set;

        if (i < 1 || i > b->st.nvms || !v->exists) {
                snprintf(err, errlen, "vm%u does not exist in %s", i, b->dir);
                return -ENOENT;
        }
        cg_procs_files(&v->cg, bufs, procs);
        return proc_run(
            &(struct proc_spawn){argv, NULL, procs, affinity_for(&v->cg, b->st.vm_cpuset, &set)},
            status, err, errlen);
}

static void local_close(struct vmctl_backend *b)
{
        if (!b)
                return;
        if (b->lock_fd >= 0)
                close(b->lock_fd);
        free(b);
}

const struct vmctl_backend_ops vmctl_backend_local = {
    .name = "local",
    .help = "mariadbd per VM on this host, in cgroups, plus a tgtd (the default)",
    .open = local_open,
    .count = local_count,
    .create = local_create,
    .start = local_start,
    .stop = local_stop,
    .destroy = local_destroy,
    .endpoint = local_endpoint,
    .exec = local_exec,
    .stats = local_stats,
    .storage = local_storage,
    .close = local_close,
};
