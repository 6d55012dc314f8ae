/*
 * lab.c - `hcisweep lab up|down|status`: the lab's options (labopts.h) plus
 * --vms and --purge, and the three verbs written against the backend ops
 * only, so they work the same for the local lab, a static inventory and
 * QEMU guests. Output lines on stdout are "NAME key=value ..." so scripts
 * can read them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exitcode.h"
#include "core/hostsrc.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/resfile.h"
#include "lab/backend.h"
#include "lab/guest_driver.h"
#include "lab/hosts.h"
#include "lab/labopts.h"
#include "lab/lab.h"

#define DEFAULT_LOCAL_VMS 2

/* The options of lab alone; the lab itself is described by labopts.h. */
struct lab_cmd_cfg {
        long long vms;
        int purge;
};

#define O(f) offsetof(struct lab_cmd_cfg, f)
static const struct opt_def lab_cmd_opts[] = {
    {"vms", OPT_INT, O(vms), "0", 0, LAB_MAX_VMS,
     "VMs to bring up (0: 2 for local, every server of a static inventory)", NULL, 0},
    {"purge", OPT_BOOL, O(purge), "0", 0, 0,
     "down: also delete datadirs, LUN files and the password", NULL, 0},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};
#undef O

/* The options as documentation (cfg NULL): the man page and completion read them. */
const struct opt_group cmd_lab_options[] = {
    {lab_opts, NULL, "lab options"}, {lab_cmd_opts, NULL, "up and down"}, {NULL, NULL, NULL}};

static const char usage_text[] =
    "hcisweep lab up|down|status [options]\n"
    "  up      create and start --vms database VMs and the storage service; VMs already\n"
    "          running are kept, prepared datadirs are reused\n"
    "  down    stop everything of the lab and remove its cgroups (data kept unless --purge)\n"
    "  status  each VM (address:port, PID, alive, limits), the storage target and each\n"
    "          host (role, the metrics source --metrics-source picks for it, whether it\n"
    "          answered);\n"
    "          exit 3 if something is not running";

struct lab {
        struct lab_cfg lab;
        struct lab_cmd_cfg cfg;
        struct opt_group groups[3];
        struct lab_spec spec;
        const struct lab_backend_ops *ops;
        struct lab_backend *b;
        char err[1024];
};

static int exit_code(int rc)
{
        return rc == -EINVAL ? HCI_EXIT_USAGE : HCI_EXIT_TARGET;
}

static void print_limits(const struct lab_vm_stats *st)
{
        if (st->cpu_limit > 0)
                printf(" cpus=%.2f", st->cpu_limit);
        else
                printf(" cpus=unlimited");
        if (st->mem_limit >= 0)
                printf(" memory=%lld", (long long)st->mem_limit);
        else
                printf(" memory=unlimited");
        if (st->mem_usage >= 0)
                printf(" memory_used=%lld", (long long)st->mem_usage);
        if (st->cpu_usage_ns >= 0)
                printf(" cpu_time=%.2fs", (double)st->cpu_usage_ns / 1e9);
        printf(" cpuset=%s", st->cpuset[0] ? st->cpuset : "all");
}

static int print_vm(struct lab *l, unsigned i, const char *what)
{
        struct lab_endpoint ep;
        struct lab_vm_stats st;
        int rc = l->ops->endpoint(l->b, i, &ep, l->err, sizeof(l->err));

        if (!rc)
                rc = l->ops->stats(l->b, i, &st, l->err, sizeof(l->err));
        if (rc < 0)
                return rc;
        printf("vm%u addr=%s:%u", i, ep.host, ep.port);
        if (st.pid > 0)
                printf(" pid=%d", (int)st.pid);
        printf(" state=%s", what ? what : st.alive ? "alive" : "down");
        print_limits(&st);
        if (ep.lun_url[0])
                printf(" lun=%s", ep.lun_url);
        if (ep.load_lun_url[0])
                printf(" load_lun=%s", ep.load_lun_url);
        printf(" datadir_on=%s", lab_datadir_name(st.datadir_on));
        if (st.disk[0])
                printf(" disk=%s", st.disk);
        if (st.initiator_pid > 0)
                printf(" initiator=%d", (int)st.initiator_pid);
        if (st.mount[0])
                printf(" mount=%s", st.mount);
        if (st.where[0])
                printf(" where=%s", st.where);
        printf("\n");
        return st.alive || what ? 0 : -EHOSTDOWN;
}

static int print_storage(struct lab *l)
{
        struct lab_storage st;
        int rc;

        if (!l->ops->storage)
                return 0;
        rc = l->ops->storage(l->b, &st, l->err, sizeof(l->err));
        if (rc < 0 || !st.exists)
                return rc;
        printf("target portal=%s pid=%d state=%s iqn=%s luns=%u cpuset=%s\n", st.portal,
               (int)st.pid, st.alive ? "alive" : "down", st.iqn, st.luns,
               st.cpuset[0] ? st.cpuset : "all");
        return st.alive ? 0 : -EHOSTDOWN;
}

static int lab_up(struct lab *l)
{
        unsigned n = (unsigned)l->cfg.vms;
        struct lab_endpoint ep;
        int rc, started;

        if (!n)
                n = l->ops->can_start ? DEFAULT_LOCAL_VMS : l->ops->count(l->b);
        /* --lab-dir may name a directory whose parents do not exist yet */
        rc = l->ops->check ? l->ops->check(l->b, l->err, sizeof(l->err)) : 0;
        if (!rc && l->ops->can_start)
                rc = res_mkdirs(l->spec.lab_dir, l->err, sizeof(l->err));
        if (!rc)
                rc = l->ops->create(l->b, n, l->err, sizeof(l->err));
        for (unsigned i = 1; !rc && i <= n; i++) {
                rc = l->ops->start(l->b, i, &started, l->err, sizeof(l->err));
                if (!rc)
                        rc = print_vm(l, i, started ? "started" : "kept");
        }
        if (!rc)
                rc = print_storage(l);
        if (!rc && l->ops->endpoint(l->b, 1, &ep, l->err, sizeof(l->err)) == 0 &&
            ep.password_file[0])
                printf("login user=%s database=%s password_file=%s\n", ep.user, ep.database,
                       ep.password_file);
        return rc;
}

/* Whether h's source answers with counters now; why not in why. */
static int host_answers(const struct lab_hostinfo *h, char *why, size_t whylen)
{
        struct hostsrc_counters *c = malloc(sizeof(*c));
        struct hostsrc s;
        int rc;

        if (!c)
                return -ENOMEM;
        rc = lab_host_src_open(h, &s, why, whylen);
        if (!rc) {
                rc = hostsrc_read(&s, c, why, whylen);
                hostsrc_close(&s);
        }
        free(c);
        return rc;
}

/* Host i of the lab, read through the source --metrics-source picks for it
 * (lab_host_metrics); -ENOENT past the last, -EINVAL when it cannot be read so. */
static int get_host(struct lab *l, unsigned i, struct lab_hostinfo *h)
{
        return lab_host_get(l->ops, l->b, &l->spec, i, h, l->err, sizeof(l->err));
}

/* Every host can be read as asked: bad input, said before anything is started or read. */
static int check_hosts(struct lab *l)
{
        struct lab_hostinfo h;
        int rc;

        for (unsigned i = 0;; i++) {
                rc = get_host(l, i, &h);
                if (rc < 0)
                        return rc == -ENOENT ? 0 : rc;
        }
}

/* One line per host of the lab: its role, the source used and whether it answered. */
static int print_hosts(struct lab *l)
{
        struct lab_hostinfo h;
        char why[512];
        int rc = 0;

        for (unsigned i = 0; get_host(l, i, &h) == 0; i++) {
                if (!h.source[0]) {
                        printf("host %s role=%s source=none state=unmeasured\n", h.name, h.role);
                } else if (host_answers(&h, why, sizeof(why)) == 0) {
                        printf("host %s role=%s source=%s where=%s state=answered\n", h.name,
                               h.role, h.source, h.where);
                } else {
                        printf("host %s role=%s source=%s where=%s state=down %s\n", h.name, h.role,
                               h.source, h.where, why);
                        rc = -EHOSTDOWN;
                }
        }
        return rc;
}

static int lab_status(struct lab *l)
{
        unsigned n = l->ops->count(l->b);
        int rc = 0, r;

        if (!n) {
                printf("no lab in %s\n", l->spec.lab_dir);
                l->err[0] = '\0'; /* said: not an error to print again */
                return -ENOENT;
        }
        for (unsigned i = 1; i <= n; i++) {
                r = print_vm(l, i, NULL);
                if (r < 0 && r != -EHOSTDOWN)
                        return r;
                rc = rc ? rc : r;
        }
        r = print_storage(l);
        rc = rc ? rc : r;
        r = print_hosts(l);
        return rc ? rc : r;
}

static int run_verb(struct lab *l, const char *verb)
{
        int rc = l->ops->open(&l->spec, &l->b, l->err, sizeof(l->err));

        if (rc < 0)
                return rc;
        /* down takes the lab down whatever the metrics options say */
        if (strcmp(verb, "down"))
                rc = check_hosts(l);
        if (rc < 0) {
                /* said in l->err */
        } else if (!strcmp(verb, "up")) {
                rc = lab_up(l);
        } else if (!strcmp(verb, "down")) {
                rc = l->ops->destroy(l->b, l->cfg.purge, l->err, sizeof(l->err));
                if (!rc)
                        printf("down %s%s\n", l->spec.lab_dir, l->cfg.purge ? " (purged)" : "");
        } else {
                rc = lab_status(l);
        }
        l->ops->close(l->b);
        return rc;
}

static int parse(struct lab *l, int argc, char **argv, const char **verb)
{
        char *pos[2];
        int npos = 0, help = 0;

        l->groups[0] = (struct opt_group){lab_opts, &l->lab, "lab options"};
        l->groups[1] = (struct opt_group){lab_cmd_opts, &l->cfg, "up and down"};
        if (opt_defaults(l->groups, l->err, sizeof(l->err)) < 0 ||
            opt_parse_argv(l->groups, argc - 1, argv + 1, pos, 2, &npos, &help, l->err,
                           sizeof(l->err)) < 0)
                return -EINVAL;
        if (help) {
                opt_help(stdout, l->groups, usage_text);
                return 1;
        }
        if (npos != 1 ||
            (strcmp(pos[0], "up") && strcmp(pos[0], "down") && strcmp(pos[0], "status"))) {
                snprintf(l->err, sizeof(l->err), "lab: expected up, down or status%s%s",
                         npos ? ", got " : "", npos ? pos[0] : "");
                return -EINVAL;
        }
        *verb = pos[0];
        return lab_spec(&l->lab, &l->spec, &l->ops, l->err, sizeof(l->err));
}

int cmd_lab(int argc, char **argv)
{
        struct lab *l = calloc(1, sizeof(*l));
        const char *verb = NULL;
        int rc;

        if (!l) {
                log_error("lab: out of memory");
                return HCI_EXIT_TARGET;
        }
        /* not a verb for people: the bridge the VM backends start (guest_driver.h) */
        if (argc > 1 && !strcmp(argv[1], "guest-driver")) {
                free(l);
                return guest_driver_main(argc - 1, argv + 1);
        }
        rc = parse(l, argc, argv, &verb);
        if (rc == 0)
                rc = run_verb(l, verb);
        /* status has already said "no lab" (-ENOENT) or which server is down */
        if (rc < 0 && rc != -EHOSTDOWN && (rc != -ENOENT || l->err[0]))
                log_error("%s", l->err);
        rc = rc == 1 ? HCI_EXIT_OK : rc < 0 ? exit_code(rc) : HCI_EXIT_OK;
        opt_free(l->groups);
        free(l);
        return rc;
}
