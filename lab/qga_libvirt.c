/*
 * qga_libvirt.c - the libvirt channel of the guest agent client (qga.h):
 * virDomainQemuAgentCommand on a domain whose XML has the agent's channel
 * (<channel type='unix'><target type='virtio'
 * name='org.qemu.guest_agent.0'/></channel>). libvirt owns the socket and
 * syncs with the agent itself; a call waits at most its timeout, in whole
 * seconds, and is not cut short by a cancel flag.
 */
#include "lab/qga.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/libvirt-qemu.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

struct lv_chan {
        virConnectPtr conn;
        virDomainPtr dom;
};

static const char *last_error(void)
{
        const char *m = virGetLastErrorMessage();

        return m ? m : "unknown libvirt error";
}

static void lv_chan_close(void *ctx)
{
        struct lv_chan *c = ctx;

        if (!c)
                return;
        if (c->dom)
                virDomainFree(c->dom);
        if (c->conn)
                virConnectClose(c->conn);
        free(c);
}

static int lv_chan_call(void *ctx, const char *cmd, int timeout_ms, char **reply, char *err,
                        size_t errlen)
{
        struct lv_chan *c = ctx;
        char *r = virDomainQemuAgentCommand(c->dom, cmd, (timeout_ms + 999) / 1000, 0);
        virErrorPtr e;

        if (r) {
                *reply = r;
                return 0;
        }
        e = virGetLastError();
        snprintf(err, errlen, "%s", last_error());
        if (e && e->code == VIR_ERR_AGENT_UNRESPONSIVE)
                return -ETIMEDOUT;
        /* libvirt turns the agent's {"error": ...} into an internal error
         * ("unable to execute QEMU agent command 'X': DESC"): a refusal */
        return e && e->code == VIR_ERR_INTERNAL_ERROR ? -EREMOTEIO : -EIO;
}

static const struct qga_chan_ops lv_chan_ops = {"libvirt", lv_chan_call, lv_chan_close};

static void quiet(void *opaque, virErrorPtr e)
{
        (void)opaque;
        (void)e; /* errors are reported through err, not libvirt's stderr line */
}

int qga_open_libvirt(const char *uri, const char *domain, const char *where, int timeout_ms,
                     const volatile sig_atomic_t *cancel, struct qga **out, char *err,
                     size_t errlen)
{
        struct lv_chan *c = calloc(1, sizeof(*c));
        char *reply = NULL, why[512];
        int rc;

        (void)cancel;
        if (!c) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        virSetErrorFunc(NULL, quiet);
        if (!(c->conn = virConnectOpen(uri)) ||
            !(c->dom = virDomainLookupByName(c->conn, domain))) {
                snprintf(err, errlen, "%s: guest agent of %s (libvirt %s): %s", where, domain, uri,
                         last_error());
                lv_chan_close(c);
                return -ECONNREFUSED;
        }
        rc = lv_chan_call(c, "{\"execute\":\"guest-ping\"}", timeout_ms, &reply, why, sizeof(why));
        free(reply);
        if (rc < 0) {
                snprintf(err, errlen, "%s: guest agent of %s (libvirt %s): %s", where, domain, uri,
                         why);
                lv_chan_close(c);
                return rc;
        }
        return qga_new(&lv_chan_ops, c, where, out, err, errlen);
}
