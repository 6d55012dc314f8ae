/*
 * scale_vms.c - the VMs of a `hcisweep scale` step: start them, log in
 * (their DSNs), create the tables they lack, follow their processes and
 * disks, and keep a failed step's console tails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/progress.h"
#include "core/resfile.h"
#include "lab/sql.h"
#include "oltp/prepare.h"
#include "scale/scale_run.h"

/* ---- VMs and tables ----------------------------------------------------- */

static int fill_dsn(struct scale *s, unsigned i, char *err, size_t errlen)
{
        struct oltp_dsn *d = &s->lab.dsn[i - 1];
        const char *user, *db, *pw;
        struct lab_endpoint ep;
        int rc = s->lab.ops->endpoint(s->lab.b, i, &ep, err, errlen);

        if (rc < 0)
                return rc;
        oltp_cli_login(s->conf.oc, &user, &db, &pw);
        if (ep.password_file[0]) {
                rc = lab_read_password(ep.password_file, s->lab.pw[i - 1], sizeof(s->lab.pw[0]),
                                       err, errlen);
                if (rc < 0)
                        return rc;
                pw = s->lab.pw[i - 1];
        }
        /* The lab or inventory knows how its servers are logged in to; the
         * --mysql-* options fill what it leaves open. */
        free((char *)d->user);
        free((char *)d->db);
        memset(d, 0, sizeof(*d));
        snprintf(d->host, sizeof(d->host), "%s", ep.host);
        d->port = ep.port;
        d->user = ep.user[0] ? strdup(ep.user) : strdup(user);
        d->db = ep.database[0] ? strdup(ep.database) : strdup(db);
        d->password = pw;
        d->connect_timeout_s = 3;
        if (!d->user || !d->db) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        return 0;
}

void scale_free_dsns(struct scale *s)
{
        for (unsigned i = 0; i < LAB_MAX_VMS; i++) {
                free((char *)s->lab.dsn[i].user);
                free((char *)s->lab.dsn[i].db);
                s->lab.dsn[i].user = s->lab.dsn[i].db = NULL;
        }
        memset(s->lab.pw, 0, sizeof(s->lab.pw));
}

/* Tables sbtest1..N all there, and the last one as long as --table-size. */
static int tables_ready(struct scale *s, const struct oltp_dsn *d, const struct oltp_prep_cfg *pc)
{
        const struct oltp_driver_ops *ops = pc->ops;
        struct oltp_dconn *c = ops->conn_new(0);
        char sql[256];
        uint64_t n = 0, max_id = 0;
        int ok = 0;

        (void)s;
        if (!c)
                return 0;
        if (!ops->connect_sync(c, d)) {
                snprintf(sql, sizeof(sql),
                         "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = "
                         "DATABASE() AND table_name REGEXP '^sbtest[0-9]+$' AND "
                         "CAST(SUBSTR(table_name, 7) AS UNSIGNED) BETWEEN 1 AND %u",
                         pc->tables);
                if (!ops->query_u64_sync(c, sql, &n) && n == pc->tables) {
                        snprintf(sql, sizeof(sql), "SELECT COALESCE(MAX(id), 0) FROM sbtest%u",
                                 pc->tables);
                        ok = !ops->query_u64_sync(c, sql, &max_id) && max_id >= pc->table_size;
                }
        }
        ops->conn_free(c);
        return ok;
}

/* Prepare the VMs of 1..n that lack the tables, all at once. */
static int prepare_missing(struct scale *s, unsigned n, char *err, size_t errlen)
{
        struct oltp_dsn todo[LAB_MAX_VMS];
        struct oltp_engine_cfg ec;
        struct oltp_prep_cfg pc;
        unsigned m = 0;
        int rc;

        oltp_cli_cfg(s->conf.oc, s->lab.dsn, n, 1, &ec, &pc);
        for (unsigned i = 1; i <= n; i++) {
                if (!s->lab.has_tables[i])
                        s->lab.has_tables[i] = tables_ready(s, &s->lab.dsn[i - 1], &pc);
                if (!s->lab.has_tables[i])
                        todo[m++] = s->lab.dsn[i - 1];
        }
        if (!m)
                return 0;
        prog_clear(s->prog);
        printf("preparing %u table(s) of %llu rows on %u VM(s)\n", pc.tables,
               (unsigned long long)pc.table_size, m);
        pc.hosts = todo;
        pc.nhosts = m;
        pc.out = fopen("/dev/null", "w");
        if (!pc.out)
                pc.out = stderr;
        rc = oltp_cleanup(&pc, err, errlen);
        if (!rc)
                rc = oltp_prepare(&pc, err, errlen);
        if (pc.out != stderr)
                fclose(pc.out);
        if (rc < 0)
                return rc;
        for (unsigned i = 1; i <= n; i++)
                s->lab.has_tables[i] = 1;
        return 0;
}

/* VM i's data disk and LUN, kept for the result's lab object. */
static void note_disk(struct scale *s, unsigned i, const struct lab_vm_stats *vs)
{
        struct lab_endpoint ep;
        char ignored[256];

        s->lab.disk[i] = *vs;
        if (s->lab.ops->endpoint(s->lab.b, i, &ep, ignored, sizeof(ignored)) == 0)
                snprintf(s->lab.lun[i], sizeof(s->lab.lun[i]), "%s", ep.lun_url);
        if (i > s->lab.ndisk)
                s->lab.ndisk = i;
}

static void follow_pids(struct scale *s, unsigned n)
{
        int *watched = s->lab.watched;
        struct lab_storage st = {0};
        struct lab_vm_stats vs;
        struct scale_follow vm[LAB_MAX_VMS + 1];
        char label[32], ignored[256]; /* a VM not reported is not followed */

        memset(vm, 0, sizeof(vm));
        if (s->lab.ops->storage)
                s->lab.ops->storage(s->lab.b, &st, ignored, sizeof(ignored));
        for (unsigned i = 1; i <= n; i++) {
                if (s->lab.ops->stats(s->lab.b, i, &vs, ignored, sizeof(ignored)) < 0)
                        continue;
                note_disk(s, i, &vs);
                if (vs.pid <= 0)
                        continue;
                vm[i].pid = (int)vs.pid;
                vm[i].initiator =
                    vs.initiator_pid > 0 && vs.initiator_pid != vs.pid ? (int)vs.initiator_pid : 0;
                snprintf(vm[i].disk, sizeof(vm[i].disk), "%s", vs.disk);
                vm[i].cg = vs.cg;
                if (s->watch.mon && watched[i] != vm[i].pid) {
                        snprintf(label, sizeof(label), "vm%u", i);
                        mon_watch_pid(s->watch.mon, vm[i].pid, label);
                        watched[i] = vm[i].pid;
                }
        }
        if (s->watch.mon && st.alive && watched[0] != (int)st.pid) {
                mon_watch_pid(s->watch.mon, (int)st.pid, "target");
                watched[0] = (int)st.pid;
        }
        scale_probe_set(s->watch.probe, st.alive ? (int)st.pid : 0, vm, n);
}

/* Bring VMs 1..n up (keeping running ones) and ready for the workload. */
int scale_step_up(struct scale *s, unsigned n, char *err, size_t errlen)
{
        int rc, started;

        rc = s->lab.ops->create(s->lab.b, n, err, errlen);
        for (unsigned i = 1; !rc && i <= n; i++) {
                rc = s->lab.ops->start(s->lab.b, i, &started, err, errlen);
                if (!rc)
                        rc = fill_dsn(s, i, err, errlen);
        }
        if (!rc)
                rc = prepare_missing(s, n, err, errlen);
        if (!rc)
                follow_pids(s, n);
        return rc;
}

/* The last CONSOLE_TAIL bytes of path (from a line start) into buf; length or 0. */
#define CONSOLE_TAIL (64 * 1024)
static size_t read_tail(const char *path, char *buf)
{
        FILE *f = fopen(path, "rb");
        size_t n = 0;
        long end;
        char *nl;

        if (!f)
                return 0;
        if (fseek(f, 0, SEEK_END) == 0 && (end = ftell(f)) > 0 &&
            fseek(f, end > CONSOLE_TAIL ? end - CONSOLE_TAIL : 0, SEEK_SET) == 0)
                n = fread(buf, 1, CONSOLE_TAIL, f);
        fclose(f);
        if (n == CONSOLE_TAIL && (nl = memchr(buf, '\n', n)) != NULL) {
                n -= (size_t)(nl + 1 - buf);
                memmove(buf, nl + 1, n);
        }
        return n;
}

/* A step that failed keeps each VM's console tail (qemu, libvirt: LAB/vmI/
 * console.log) in the run directory: why a guest did not boot must outlive
 * the lab, which is torn down next. */
void scale_save_consoles(struct scale *s, struct scale_step *st)
{
        char src[1100], dst[1200], name[64], err[256];
        char *buf = s->save.dir[0] ? malloc(CONSOLE_TAIL) : NULL;

        for (unsigned i = 1; buf && i <= st->vms && i <= 64; i++) {
                size_t n;

                snprintf(src, sizeof(src), "%s/vm%u/console.log", s->conf.lab.lab_dir, i);
                n = read_tail(src, buf);
                if (!n)
                        continue;
                scale_console_name(name, sizeof(name), st->vms, i);
                snprintf(dst, sizeof(dst), "%s/%s", s->save.dir, name);
                if (res_write_text(dst, buf, n, err, sizeof(err)) < 0) {
                        log_warn("scale: saving vm%u's console: %s", i, err);
                        continue;
                }
                st->consoles |= 1ULL << (i - 1);
                log_info("scale: vm%u's console log kept in %s", i, dst);
        }
        free(buf);
}
