/*
 * labdir.c - opening, locking and recording a lab directory, shared by the
 * backends that run servers on this host. The lab's name (cgroup directory
 * and IQN suffix) is derived from the absolute path, so two labs called
 * "lab" in different places never share a cgroup or a target name.
 */
#include "lab/labdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/resfile.h"
#include "lab/proc.h"

/* The directory's base name, cleaned, plus an FNV-1a hash of its path. */
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

/* 64 bytes are left for the names below the directory. */
static int absolute_dir(const char *dir, char *out, size_t outlen, char *err, size_t errlen)
{
        char cwd[PATH_MAX];
        int n;

        if (dir[0] == '/') {
                n = snprintf(out, outlen, "%s", dir);
        } else if (getcwd(cwd, sizeof(cwd))) {
                n = snprintf(out, outlen, "%s/%s", cwd, dir);
        } else {
                snprintf(err, errlen, "getcwd: %s", strerror(errno));
                return -errno;
        }
        if (n < 0 || (size_t)n >= outlen - 64) {
                snprintf(err, errlen, "option --lab-dir: path too long");
                return -EINVAL;
        }
        while (n > 1 && out[n - 1] == '/')
                out[--n] = '\0';
        return 0;
}

static int take_lock(struct labdir *l, char *err, size_t errlen)
{
        lab_path_t path;

        if (l->lock_fd >= 0)
                return 0;
        snprintf(path, sizeof(path), "%s/lock", l->dir);
        l->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (l->lock_fd < 0 || flock(l->lock_fd, LOCK_EX) < 0) {
                snprintf(err, errlen, "locking %s: %s", path, strerror(errno));
                return -errno;
        }
        return 0;
}

/* One lab directory, one backend: the state names the one that made it.
 * Read before the lock (the state is replaced whole by rename), so a second
 * backend is turned away at once even while the owner works on the lab. */
static int check_owner(const struct labdir *l, const char *backend, char *err, size_t errlen)
{
        struct lab_state *st = malloc(sizeof(*st));
        char ignored[256];
        int rc = 0;

        if (!st) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        if (labstate_read(l->dir, st, ignored, sizeof(ignored)) == 0 && st->backend[0] &&
            strcmp(st->backend, backend)) {
                snprintf(
                    err, errlen,
                    "option --backend: %s belongs to the %s backend (its VMs are in %s/state), "
                    "not %s: take it down first (hcisweep lab down --backend %s --lab-dir %s "
                    "--purge) or use another --lab-dir",
                    l->dir, st->backend, l->dir, backend, st->backend, l->dir);
                rc = -EINVAL;
        }
        free(st);
        return rc;
}

int labdir_open(struct labdir *l, const char *lab_dir, const char *backend, char *err,
                size_t errlen)
{
        int rc;

        memset(l, 0, sizeof(*l));
        l->lock_fd = -1;
        rc = absolute_dir(lab_dir, l->dir, sizeof(l->dir), err, errlen);
        if (!rc)
                rc = check_owner(l, backend, err, errlen);
        if (!rc && access(l->dir, F_OK) == 0)
                rc = take_lock(l, err, errlen);
        if (!rc) {
                rc = labstate_read(l->dir, &l->st, err, errlen);
                if (rc == -ENOENT) {
                        memset(&l->st, 0, sizeof(l->st));
                        rc = 0;
                }
        }
        if (!l->st.name[0])
                lab_name(l->dir, l->st.name, sizeof(l->st.name));
        if (!rc && !l->st.backend[0] && !l->st.nvms)
                snprintf(l->st.backend, sizeof(l->st.backend), "%s", backend);
        if (rc < 0)
                labdir_close(l);
        return rc;
}

int labdir_create(struct labdir *l, char *err, size_t errlen)
{
        /* with its parents: scale --output-dir elsewhere has no runs/ for runs/lab */
        int rc = res_mkdirs(l->dir, err, errlen);

        return rc ? rc : take_lock(l, err, errlen);
}

int labdir_save(struct labdir *l, char *err, size_t errlen)
{
        return labstate_write(l->dir, &l->st, err, errlen);
}

void labdir_close(struct labdir *l)
{
        if (l->lock_fd >= 0)
                close(l->lock_fd);
        l->lock_fd = -1;
}

int labdir_forget(struct labdir *l, int rc, char *err, size_t errlen)
{
        char ignored[256];

        if (rc < 0) {
                labdir_save(l, ignored, sizeof(ignored));
                return rc;
        }
        rc = labstate_remove(l->dir, err, errlen);
        memset(&l->st.vm, 0, sizeof(l->st.vm));
        l->st.nvms = 0;
        return rc;
}

unsigned labdir_count(const struct labdir *l)
{
        unsigned n = 0;

        for (unsigned i = 1; i <= l->st.nvms; i++)
                n += l->st.vm[i].exists ? 1 : 0;
        return n;
}

int labdir_ensure_password(const struct labdir *l, char *err, size_t errlen)
{
        static const char alnum[] = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        unsigned char raw[20];
        char pw[sizeof(raw) + 1];
        lab_path_t path;
        int fd = -1, rc = 0;
        FILE *f;

        snprintf(path, sizeof(path), "%s/password", l->dir);
        if (access(path, F_OK) == 0)
                return 0;
        f = fopen("/dev/urandom", "re");
        if (!f || fread(raw, 1, sizeof(raw), f) != sizeof(raw)) {
                snprintf(err, errlen, "reading /dev/urandom failed");
                rc = -EIO;
                goto out;
        }
        for (size_t i = 0; i < sizeof(raw); i++)
                pw[i] = alnum[raw[i] % (sizeof(alnum) - 1)];
        pw[sizeof(raw)] = '\n';
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || write(fd, pw, sizeof(pw)) != (ssize_t)sizeof(pw)) {
                rc = -errno;
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
        }
out:
        if (fd >= 0)
                close(fd);
        if (f)
                fclose(f);
        memset(pw, 0, sizeof(pw));
        return rc;
}

void labdir_vm_path(const struct labdir *l, unsigned i, const char *name, lab_path_t out)
{
        snprintf(out, sizeof(lab_path_t), "%s/vm%u%s%s", l->dir, i, name[0] ? "/" : "", name);
}

int labdir_new_vm(struct labdir *l, unsigned i, const char *addr_base, unsigned port, char *err,
                  size_t errlen)
{
        struct lab_vm *v = &l->st.vm[i];
        lab_path_t dir;

        labdir_vm_path(l, i, "", dir);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
                snprintf(err, errlen, "mkdir %s: %s", dir, strerror(errno));
                return -errno;
        }
        snprintf(v->addr, sizeof(v->addr), "%s.%u", addr_base, i);
        v->port = port;
        return 0;
}

void labdir_add_vm(struct labdir *l, unsigned i)
{
        l->st.vm[i].exists = 1;
        if (i > l->st.nvms)
                l->st.nvms = i;
}

int labdir_stop_vm(struct labdir *l, unsigned i, const char *comm, unsigned timeout_ms, char *err,
                   size_t errlen)
{
        struct lab_vm *v = &l->st.vm[i];
        int rc;

        if (i < 1 || i > l->st.nvms || !v->exists)
                return 0;
        rc = proc_stop(v->pid, comm, SIGTERM, timeout_ms, err, errlen);
        if (!rc) {
                v->pid = 0;
                rc = labdir_save(l, err, errlen);
        }
        return rc;
}

int labdir_check_vm(const struct labdir *l, unsigned i, char *err, size_t errlen)
{
        if (i < 1 || i > l->st.nvms || !l->st.vm[i].exists) {
                snprintf(err, errlen, "vm%u does not exist in %s", i, l->dir);
                return -ENOENT;
        }
        return 0;
}

int labdir_endpoint(const struct labdir *l, unsigned i, struct lab_endpoint *ep, char *err,
                    size_t errlen)
{
        int rc = labdir_check_vm(l, i, err, errlen);

        if (rc < 0)
                return rc;
        memset(ep, 0, sizeof(*ep));
        snprintf(ep->host, sizeof(ep->host), "%s", l->st.vm[i].addr);
        ep->port = l->st.vm[i].port;
        snprintf(ep->user, sizeof(ep->user), "root");
        snprintf(ep->database, sizeof(ep->database), "sbtest");
        snprintf(ep->password_file, sizeof(ep->password_file), "%s/password", l->dir);
        target_lun_url(&l->st.tgt, i, ep->lun_url, sizeof(ep->lun_url));
        target_load_url(&l->st.tgt, i, ep->load_lun_url, sizeof(ep->load_lun_url));
        return 0;
}
