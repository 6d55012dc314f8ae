/*
 * hosts.c - a lab's hosts and their sources (hosts.h).
 */
#include <errno.h>
#include <stdio.h>

#include "lab/hosts.h"
#include "lab/labopts.h"

int lab_host_get(const struct lab_backend_ops *ops, struct lab_backend *b,
                 const struct lab_spec *spec, unsigned i, struct lab_hostinfo *h, char *err,
                 size_t errlen)
{
        int rc = 0;

        if (ops->host)
                rc = ops->host(b, i, h);
        else if (i)
                rc = -ENOENT;
        else
                *h = (struct lab_hostinfo){
                    .name = "local", .role = "both", .source = "procfs", .where = "/proc"};
        return rc < 0 ? rc : lab_host_metrics(spec, h, err, errlen);
}

int lab_host_src_open(const struct lab_hostinfo *h, struct hostsrc *s, char *err, size_t errlen)
{
        const struct hostsrc_ops *src = hostsrc_find(h->source);

        if (!src) {
                snprintf(err, errlen, "%s: no source %s in this build", h->name, h->source);
                return -ENOENT;
        }
        return hostsrc_open(s, src, h->name, h->where, h->token, h->lent, err, errlen);
}

int lab_host_is_controller(const struct lab_backend_ops *ops)
{
        return !ops->host;
}
