/*
 * labstate.c - reading and writing LAB_DIR/state. Reading goes through the
 * project's INI reader (core/opts.h); an unknown key is skipped rather than
 * refused, so a newer hcisweep's state can still be taken down by an older
 * one.
 */
#include "lab/labstate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/opts.h"
#include "lab/proc.h"

static void copy(char *dst, size_t len, const char *src)
{
        snprintf(dst, len, "%s", src);
}

static int state_cg_key(struct cg_group *g, const char *key, const char *val)
{
        if (!strcmp(key, "cgroup_version")) {
                g->version = atoi(val);
                return 1;
        }
        for (int c = 0; c < CG_NCTRL; c++) {
                char name[32];

                snprintf(name, sizeof(name), "cgroup_%s", cg_ctrl_name(c));
                if (!strcmp(key, name)) {
                        copy(g->path[c], sizeof(g->path[c]), val);
                        return 1;
                }
        }
        return 0;
}

static void read_lab(struct lab_state *st, const char *key, const char *val)
{
        if (!strcmp(key, "name"))
                copy(st->name, sizeof(st->name), val);
        else if (!strcmp(key, "topology"))
                st->topology = atoi(val);
        else if (!strcmp(key, "backend"))
                copy(st->backend, sizeof(st->backend), val);
        else if (!strcmp(key, "datadir_on"))
                copy(st->datadir_on, sizeof(st->datadir_on), val);
        else if (!strcmp(key, "vm_cpuset"))
                copy(st->vm_cpuset, sizeof(st->vm_cpuset), val);
}

static void read_target(struct lab_target *t, const char *key, const char *val)
{
        if (!strcmp(key, "pid"))
                t->pid = atoi(val);
        else if (!strcmp(key, "addr"))
                copy(t->addr, sizeof(t->addr), val);
        else if (!strcmp(key, "port"))
                t->port = (unsigned)atoi(val);
        else if (!strcmp(key, "control"))
                t->control = (unsigned)atoi(val);
        else if (!strcmp(key, "luns"))
                t->luns = (unsigned)atoi(val);
        else if (!strcmp(key, "load_luns"))
                t->load_luns = (unsigned)atoi(val);
        else if (!strcmp(key, "iqn"))
                copy(t->iqn, sizeof(t->iqn), val);
        else if (!strcmp(key, "cpuset"))
                copy(t->cpuset, sizeof(t->cpuset), val);
        else
                state_cg_key(&t->cg, key, val);
}

static void read_vm(struct lab_vm *v, const char *key, const char *val)
{
        v->exists = 1;
        if (!strcmp(key, "pid"))
                v->pid = atoi(val);
        else if (!strcmp(key, "addr"))
                copy(v->addr, sizeof(v->addr), val);
        else if (!strcmp(key, "port"))
                v->port = (unsigned)atoi(val);
        else if (!strcmp(key, "pool"))
                v->pool = strtoull(val, NULL, 10);
        else if (!strcmp(key, "initiator"))
                v->initiator = atoi(val);
        else if (!strcmp(key, "loop"))
                copy(v->loop, sizeof(v->loop), val);
        else
                state_cg_key(&v->cg, key, val);
}

static int on_key(void *user, const char *section, const char *key, const char *val, int line)
{
        struct lab_state *st = user;
        unsigned i;

        (void)line;
        if (!strcmp(section, "lab"))
                read_lab(st, key, val);
        else if (!strcmp(section, "target"))
                read_target(&st->tgt, key, val);
        else if (sscanf(section, "vm%u", &i) == 1 && i >= 1 && i <= LAB_MAX_VMS) {
                read_vm(&st->vm[i], key, val);
                if (i > st->nvms)
                        st->nvms = i;
        }
        return 0;
}

int labstate_read(const char *dir, struct lab_state *st, char *err, size_t errlen)
{
        char path[LAB_PATH_MAX + 16];

        memset(st, 0, sizeof(*st));
        snprintf(path, sizeof(path), "%s/state", dir);
        if (access(path, F_OK) < 0) {
                snprintf(err, errlen, "no lab state in %s", dir);
                return -ENOENT;
        }
        return opt_read_ini(path, on_key, st, err, errlen);
}

static void write_cg(FILE *f, const struct cg_group *g)
{
        if (g->version)
                fprintf(f, "cgroup_version = %d\n", g->version);
        for (int c = 0; c < CG_NCTRL; c++)
                if (g->path[c][0])
                        fprintf(f, "cgroup_%s = %s\n", cg_ctrl_name(c), g->path[c]);
}

static void write_all(FILE *f, const struct lab_state *st)
{
        const struct lab_target *t = &st->tgt;

        fprintf(f, "# hcisweep local lab: what `hcisweep lab down` stops and removes\n");
        fprintf(f, "[lab]\nname = %s\ntopology = %d\n", st->name, st->topology);
        if (st->backend[0])
                fprintf(f, "backend = %s\n", st->backend);
        if (st->datadir_on[0])
                fprintf(f, "datadir_on = %s\n", st->datadir_on);
        if (st->vm_cpuset[0])
                fprintf(f, "vm_cpuset = %s\n", st->vm_cpuset);
        fprintf(
            f,
            "\n[target]\npid = %d\naddr = %s\nport = %u\ncontrol = %u\nluns = %u\nload_luns = %u\n"
            "iqn = %s\n",
            (int)t->pid, target_addr(t), t->port, t->control, t->luns, t->load_luns, t->iqn);
        if (t->cpuset[0])
                fprintf(f, "cpuset = %s\n", t->cpuset);
        write_cg(f, &t->cg);
        for (unsigned i = 1; i <= st->nvms; i++) {
                const struct lab_vm *v = &st->vm[i];

                if (!v->exists)
                        continue;
                fprintf(f, "\n[vm%u]\npid = %d\naddr = %s\nport = %u\npool = %llu\n", i,
                        (int)v->pid, v->addr, v->port, v->pool);
                if (v->initiator > 0)
                        fprintf(f, "initiator = %d\n", (int)v->initiator);
                if (v->loop[0])
                        fprintf(f, "loop = %s\n", v->loop);
                write_cg(f, &v->cg);
        }
}

int labstate_write(const char *dir, const struct lab_state *st, char *err, size_t errlen)
{
        char tmp[LAB_PATH_MAX + 16], path[LAB_PATH_MAX + 16];
        FILE *f;
        int rc = 0;

        snprintf(tmp, sizeof(tmp), "%s/state.tmp", dir);
        snprintf(path, sizeof(path), "%s/state", dir);
        f = fopen(tmp, "w");
        if (!f) {
                rc = -errno;
                snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
                return rc;
        }
        write_all(f, st);
        if (fflush(f) == EOF || fsync(fileno(f)) < 0)
                rc = -errno;
        if (fclose(f) == EOF && !rc)
                rc = -errno;
        if (!rc && rename(tmp, path) < 0)
                rc = -errno;
        if (rc)
                snprintf(err, errlen, "writing %s: %s", path, strerror(-rc));
        return rc;
}

int labstate_remove(const char *dir, char *err, size_t errlen)
{
        char path[LAB_PATH_MAX + 16];

        snprintf(path, sizeof(path), "%s/state", dir);
        if (unlink(path) < 0 && errno != ENOENT) {
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                return -errno;
        }
        return 0;
}

/* ---- the target's state, as the endpoint and storage ops report it ---- */

void target_lun_url(const struct lab_target *t, unsigned i, char *out, size_t outlen)
{
        if (i >= 1 && t->luns >= i)
                snprintf(out, outlen, "iscsi://%s:%u/%s/%u", target_addr(t), t->port, t->iqn, i);
        else if (outlen)
                out[0] = '\0';
}

void target_load_iqn(const struct lab_target *t, char *out, size_t outlen)
{
        snprintf(out, outlen, "%s.load", t->iqn);
}

void target_load_url(const struct lab_target *t, unsigned i, char *out, size_t outlen)
{
        char iqn[sizeof(t->iqn) + 8];

        target_load_iqn(t, iqn, sizeof(iqn));
        if (i >= 1 && t->load_luns >= i)
                snprintf(out, outlen, "iscsi://%s:%u/%s/%u", target_addr(t), t->port, iqn, i);
        else if (outlen)
                out[0] = '\0';
}

void target_storage(const struct lab_target *t, struct lab_storage *st)
{
        memset(st, 0, sizeof(*st));
        st->exists = t->pid > 0;
        st->pid = t->pid;
        st->alive = proc_alive(t->pid, "tgtd");
        snprintf(st->portal, sizeof(st->portal), "%s:%u", target_addr(t), t->port);
        snprintf(st->iqn, sizeof(st->iqn), "%s", t->iqn);
        st->luns = t->luns;
        snprintf(st->cpuset, sizeof(st->cpuset), "%s", t->cpuset);
}
