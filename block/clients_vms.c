/*
 * clients_vms.c - the lab's VMs as block clients (clients_vms.h): the lab
 * opened through its backend's ops, each VM's load LUN its target, each
 * client started by the backend's spawn op.
 */
#include "block/clients_vms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "lab/guest.h"

struct blk_vms {
        const struct lab_backend_ops *ops;
        struct lab_backend *b;
        int own; /* opened here: closed here */
};

/* VM i's client: its name, where and on which host it runs, its load LUN. */
static int describe(struct blk_vms *v, unsigned i, struct blk_vm_client *c, char *err,
                    size_t errlen)
{
        struct lab_endpoint ep;
        char why[512];
        int rc = v->ops->endpoint(v->b, i, &ep, why, sizeof(why));

        if (rc < 0)
                return errf(err, errlen, rc, "option --clients vms: vm%u: %s", i, why);
        if (!ep.load_lun_url[0])
                return errf(err, errlen, -EINVAL,
                            "option --clients vms: vm%u has no load LUN (the %s backend gives "
                            "none)",
                            i, v->ops->name);
        memset(c, 0, sizeof(*c));
        c->vm = i;
        snprintf(c->name, sizeof(c->name), "vm%u", i);
        snprintf(c->where, sizeof(c->where), "%s", v->ops->driver_where);
        snprintf(c->host, sizeof(c->host), "%s", ep.driver_host[0] ? ep.driver_host : "localhost");
        c->remote = ep.driver_host[0] != '\0';
        c->carrier = v->ops->driver_carrier;
        /* in a guest, the LUN is a disk of its own (its iSCSI portal is this host's loopback) */
        snprintf(c->target, sizeof(c->target), "%s",
                 c->carrier == &dp_carrier_guest ? GUEST_LOAD_DISK : ep.load_lun_url);
        return 0;
}

int blk_vms_open(const struct lab_spec *spec, const struct lab_backend_ops *ops,
                 struct lab_backend *opened, unsigned n, struct blk_vms **out,
                 struct blk_vm_client *cl, unsigned max, char *err, size_t errlen)
{
        struct blk_vms *v = calloc(1, sizeof(*v));
        char why[512];
        unsigned have;
        int rc;

        *out = v;
        if (!v)
                return -ENOMEM;
        v->ops = ops;
        if (!ops->spawn || !ops->driver_where)
                return errf(err, errlen, -EINVAL,
                            "option --clients vms: the %s backend cannot run a client in its VMs",
                            ops->name);
        if (!ops->spawn_streams)
                return errf(err, errlen, -EINVAL,
                            "option --clients vms: the %s backend's VMs (where %s) cannot run a "
                            "block client: its spawn carries one go per driver (a block client "
                            "needs one per point)",
                            ops->name, ops->driver_where);
        v->b = opened;
        if (!opened && (rc = ops->open(spec, &v->b, why, sizeof(why))) < 0)
                return errf(err, errlen, rc, "option --clients vms: %s", why);
        v->own = !opened;
        have = ops->count(v->b);
        if (!have || n > have)
                return errf(err, errlen, -EINVAL,
                            "option --vms: %u VMs asked, the lab has %u (hcisweep lab up --vms N "
                            "with the same lab options first)",
                            n ? n : 1, have);
        n = n ? n : have;
        if (n > max)
                return errf(err, errlen, -EINVAL, "option --vms: at most %u clients", max);
        for (unsigned i = 1; i <= n; i++)
                if ((rc = describe(v, i, &cl[i - 1], err, errlen)) < 0)
                        return rc;
        /* where the clients will run answers, with this build (static: over ssh) */
        if (ops->driver_check && (rc = ops->driver_check(v->b, n, why, sizeof(why))) < 0)
                return errf(err, errlen, rc == -EINTR ? rc : -EHOSTUNREACH, "%s", why);
        return (int)n;
}

int blk_vms_spawn(struct blk_vms *v, const struct blk_vm_client *c, char *const *argv,
                  const int *stdio, pid_t *pid, char *err, size_t errlen)
{
        char why[512];
        int rc = v->ops->spawn(v->b, c->vm, &(struct proc_spawn){argv, NULL, NULL, NULL}, stdio,
                               pid, why, sizeof(why));

        if (rc < 0)
                return errf(err, errlen, rc, "client %s: %s", c->name, why);
        return 0;
}

struct lab_backend *blk_vms_lab(const struct blk_vms *v)
{
        return v ? v->b : NULL;
}

void blk_vms_close(struct blk_vms *v)
{
        if (!v)
                return;
        if (v->own && v->b && v->ops->close)
                v->ops->close(v->b);
        free(v);
}
