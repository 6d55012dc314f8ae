/*
 * backend_static.c - the `static` backend: database servers that already
 * exist, listed in an INI inventory, one section per VM in the order they
 * are used (step N of a scale run uses the first N):
 *
 *   [db1]
 *   host = 10.0.0.11
 *   port = 3306             (default 3306)
 *   user = sbtest           (default root)
 *   password_file = db.pw   (relative to the inventory; optional)
 *   database = sbtest       (default sbtest)
 *   hypervisor = h1         (a [host] section's name; optional)
 *
 * and, for the hosts the servers run on, sections named "host NAME":
 *
 *   [host h1]
 *   role = compute          (compute, storage, both or client; default both)
 *   metrics = http://10.0.0.1:9100/metrics   (node_exporter; optional)
 *   ssh = root@10.0.0.1:22  (where drivers of its VMs run; optional)
 *   ssh_config = h1.ssh     (ssh -F FILE, relative to the inventory; optional)
 *   hcisweep = /opt/hcisweep/bin/hcisweep   (the binary there; default
 *                           hcisweep on its PATH)
 *
 * A host with role = client is a block client (`hcisweep block --clients
 * inventory`, lab/inventory.h): it needs ssh = (its driver runs there) and
 * may give targets = URL|PATH[,...], the LUNs or files it works on there;
 * targets = belongs to client hosts only. Every host, clients and storage
 * hosts alike, is also read for telemetry (the host op).
 *
 * The three ssh keys may also stand in a VM's section, each then overriding
 * its hypervisor's for that VM (ssh into the guest itself, say). With
 * --driver-placement vm (spec->drivers_in_vms) every VM needs an ssh
 * destination, and spawn() runs its driver there through the OpenSSH
 * client (lab/ssh.h); driver_check() first asks each destination for its
 * hcisweep's version.
 *
 * A host is read through its metrics URL (node_exporter), or with
 * --metrics-source prometheus through --prometheus, as the instance of
 * that URL's host:port (lab_host_metrics, labopts.h); a host that cannot be
 * read as the options ask is refused at open, naming its section's line.
 *
 * Nothing is started or stopped: start() checks that the server answers,
 * stats() says whether it does. The whole inventory is checked when it is
 * opened, and a bad line is reported as FILE:LINE; so is a server listed
 * twice (the same host and port in two sections).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/driverproto.h"
#include "core/hostport.h"
#include "core/hostsrc.h"
#include "core/log.h"
#include "core/opts.h"
#include "lab/backend.h"
#include "lab/inventory.h"
#include "lab/labopts.h"
#include "lab/sql.h"
#include "lab/ssh.h"

#define PING_TIMEOUT_S 3
/* s for `ssh DEST hcisweep --version`; ssh's own connect timeout is 10 */
#define SSH_CHECK_TIMEOUT 30

/* Every key a section may hold, so one given twice is found (the last would silently win). */
static const char *const known_keys[] = {"host",     "port",       "user",    "password_file",
                                         "database", "hypervisor", "ssh",     "ssh_config",
                                         "hcisweep", "role",       "metrics", "targets"};
#define NKEYS (sizeof(known_keys) / sizeof(known_keys[0]))

/* The line each known key of one section was first given on (0: not yet). */
struct key_lines {
        int line[NKEYS];
};

/* The ssh keys of a section, each set or not, so a VM's override its host's one by one. */
struct ssh_keys {
        struct lab_ssh d;
        int has_dest, has_config, has_bin;
};

struct static_vm {
        char section[64];
        int line;    /* of its first key */
        int pw_line; /* of its password_file */
        char hypervisor[64];
        int hv_line;
        struct ssh_keys ssh;
        struct key_lines seen;
        struct lab_endpoint ep;
};

#define MAX_HOSTS 64

struct static_host {
        struct lab_hostinfo h;
        int line;
        int targets_line;
        char targets[LAB_INV_TARGETS_MAX]; /* role client: its comma list, "" none */
        struct ssh_keys ssh;
        struct key_lines seen;
};

struct lab_backend {
        const struct lab_spec *spec;
        unsigned n;
        struct static_vm vm[LAB_MAX_VMS + 1]; /* 1-based */
        unsigned nhosts;
        struct static_host host[MAX_HOSTS];
        int hosts_only; /* lab_inventory_clients: the [host] sections are what is asked */
        /* while reading */
        char *err;
        size_t errlen;
};

static int bad(struct lab_backend *b, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(struct lab_backend *b, int line, const char *fmt, ...)
{
        char msg[256];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        snprintf(b->err, b->errlen, "%s:%d: %s", b->spec->inventory, line, msg);
        return -EINVAL;
}

/* A key given a second time in its section: -EINVAL naming both lines; unknown keys pass
 * (their own message names them). */
static int once(struct lab_backend *b, struct key_lines *k, const char *section, const char *key,
                int line)
{
        for (size_t i = 0; i < NKEYS; i++) {
                if (strcmp(known_keys[i], key))
                        continue;
                if (k->line[i])
                        return bad(b, line, "%s is given twice in [%s] (first on line %d)", key,
                                   section, k->line[i]);
                k->line[i] = line;
        }
        return 0;
}

/* The host key of a server: an address as --mysql-host takes it, without a port. */
static int set_host(struct lab_backend *b, struct lab_endpoint *ep, const char *val, int line)
{
        char why[300];
        unsigned port;

        if (hostport_parse(val, 0, ep->host, sizeof(ep->host), &port, why, sizeof(why)) < 0)
                return bad(b, line, "host %s", why);
        if (port)
                return bad(b, line, "host '%s': give the port as port = %u", ep->host, port);
        return 0;
}

/* file relative to the inventory's directory into out: 0, or -ENAMETOOLONG. */
static int resolve(const char *inventory, const char *file, char *out, size_t outlen)
{
        const char *slash = strrchr(inventory, '/');
        int n;

        if (file[0] == '/' || !slash)
                n = snprintf(out, outlen, "%s", file);
        else
                n = snprintf(out, outlen, "%.*s/%s", (int)(slash - inventory), inventory, file);
        return n < 0 || (size_t)n >= outlen ? -ENAMETOOLONG : 0;
}

/* A value that is a path: no control characters (it goes on a command line). */
static int path_ok(const char *val, size_t max)
{
        if (strlen(val) >= max)
                return 0;
        for (const char *p = val; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        return 0;
        return 1;
}

/* ssh, ssh_config or hcisweep of any section: 1 taken, 0 not one of them, -EINVAL. */
static int ssh_key(struct lab_backend *b, struct ssh_keys *k, const char *key, const char *val,
                   int line)
{
        char why[400];
        struct stat stbuf;

        if (!strcmp(key, "ssh")) {
                if (lab_ssh_parse(val, &k->d, why, sizeof(why)) < 0)
                        return bad(b, line, "%s", why);
                k->has_dest = 1;
                return 1;
        }
        if (!strcmp(key, "ssh_config")) {
                if (!path_ok(val, sizeof(k->d.config)))
                        return bad(b, line, "ssh_config: not a file name");
                if (resolve(b->spec->inventory, val, k->d.config, sizeof(k->d.config)) < 0)
                        return bad(b, line, "ssh_config: the path is too long");
                if (stat(k->d.config, &stbuf) < 0)
                        return bad(b, line, "ssh_config %s: %s", k->d.config, strerror(errno));
                if (!S_ISREG(stbuf.st_mode))
                        return bad(b, line, "ssh_config %s: not a file", k->d.config);
                k->has_config = 1;
                return 1;
        }
        if (!strcmp(key, "hcisweep")) {
                if (!path_ok(val, sizeof(k->d.hcisweep)))
                        return bad(b, line, "hcisweep: not a program name or path");
                snprintf(k->d.hcisweep, sizeof(k->d.hcisweep), "%s", val);
                k->has_bin = 1;
                return 1;
        }
        return 0;
}

static int set_key(struct lab_backend *b, struct static_vm *v, const char *key, const char *val,
                   int line)
{
        struct lab_endpoint *ep = &v->ep;
        char *end;
        long port;
        int rc;

        if (!val[0])
                return bad(b, line, "%s has no value", key);
        if (once(b, &v->seen, v->section, key, line) < 0)
                return -EINVAL;
        if ((rc = ssh_key(b, &v->ssh, key, val, line)) != 0)
                return rc < 0 ? rc : 0;
        if (!strcmp(key, "port")) {
                port = strtol(val, &end, 10);
                if (*end || port < 1 || port > 65535)
                        return bad(b, line, "port '%s' is not in 1..65535", val);
                ep->port = (unsigned)port;
                return 0;
        }
        if (!strcmp(key, "host"))
                return set_host(b, ep, val, line);
        if (!strcmp(key, "user") && strlen(val) < sizeof(ep->user))
                snprintf(ep->user, sizeof(ep->user), "%s", val);
        else if (!strcmp(key, "database") && strlen(val) < sizeof(ep->database))
                snprintf(ep->database, sizeof(ep->database), "%s", val);
        else if (!strcmp(key, "hypervisor") && strlen(val) < sizeof(v->hypervisor)) {
                snprintf(v->hypervisor, sizeof(v->hypervisor), "%s", val);
                v->hv_line = line;
        } else if (!strcmp(key, "password_file")) {
                if (resolve(b->spec->inventory, val, ep->password_file, sizeof(ep->password_file)) <
                    0)
                        return bad(b, line, "password_file: the path is too long");
                v->pw_line = line;
        } else if (strcmp(key, "user") && strcmp(key, "database") && strcmp(key, "hypervisor"))
                return bad(b, line,
                           "unknown key '%s' in [%s] (host, port, user, password_file, database, "
                           "hypervisor, ssh, ssh_config, hcisweep)",
                           key, v->section);
        else
                return bad(b, line, "%s is too long", key);
        return 0;
}

/* A key of a [host NAME] section. */
static int host_key(struct lab_backend *b, const char *name, const char *key, const char *val,
                    int line)
{
        struct static_host *h = b->nhosts ? &b->host[b->nhosts - 1] : NULL;
        char why[256];
        int rc;

        if (!h || strcmp(h->h.name, name)) {
                for (unsigned i = 0; i < b->nhosts; i++)
                        if (!strcmp(b->host[i].h.name, name))
                                return bad(b, line, "section [host %s] appears twice", name);
                if (!name[0] || strlen(name) >= sizeof(h->h.name) || strpbrk(name, " \t"))
                        return bad(b, line, "[host %s]: a host name is one word", name);
                if (b->nhosts == MAX_HOSTS)
                        return bad(b, line, "more than %d hosts", MAX_HOSTS);
                h = &b->host[b->nhosts++];
                snprintf(h->h.name, sizeof(h->h.name), "%s", name);
                snprintf(h->h.role, sizeof(h->h.role), "both");
                h->line = line;
        }
        if (!val[0])
                return bad(b, line, "%s has no value", key);
        snprintf(why, sizeof(why), "host %s", h->h.name);
        if (once(b, &h->seen, why, key, line) < 0)
                return -EINVAL;
        if (!strcmp(key, "role")) {
                if (strcmp(val, "compute") && strcmp(val, "storage") && strcmp(val, "both") &&
                    strcmp(val, "client"))
                        return bad(b, line, "role '%s' is not compute, storage, both or client",
                                   val);
                snprintf(h->h.role, sizeof(h->h.role), "%s", val);
                return 0;
        }
        if (!strcmp(key, "metrics")) {
                if (strlen(val) >= sizeof(h->h.where))
                        return bad(b, line, "metrics is too long");
                if (hostsrc_url_check(val, 0, why, sizeof(why)) < 0)
                        return bad(b, line, "%s", why);
                snprintf(h->h.source, sizeof(h->h.source), "node_exporter");
                snprintf(h->h.where, sizeof(h->h.where), "%s", val);
                return 0;
        }
        if (!strcmp(key, "targets")) {
                if (!path_ok(val, sizeof(h->targets)))
                        return bad(b, line, "targets: not a list of URLs or paths (or too long)");
                snprintf(h->targets, sizeof(h->targets), "%s", val);
                h->targets_line = line;
                return 0;
        }
        if ((rc = ssh_key(b, &h->ssh, key, val, line)) != 0)
                return rc < 0 ? rc : 0;
        return bad(b, line,
                   "unknown key '%s' in [host %s] (role, metrics, ssh, ssh_config, hcisweep, "
                   "targets)",
                   key, name);
}

static int on_key(void *user, const char *section, const char *key, const char *val, int line)
{
        struct lab_backend *b = user;
        struct static_vm *v = &b->vm[b->n];

        if (!section[0])
                return bad(b, line, "'%s' is outside any [section]", key);
        if (!strncmp(section, "host ", 5))
                return host_key(b, section + 5, key, val, line);
        if (!b->n || strcmp(v->section, section)) {
                for (unsigned i = 1; i <= b->n; i++)
                        if (!strcmp(b->vm[i].section, section))
                                return bad(b, line, "section [%s] appears twice", section);
                if (b->n == LAB_MAX_VMS)
                        return bad(b, line, "more than %d servers", LAB_MAX_VMS);
                v = &b->vm[++b->n];
                snprintf(v->section, sizeof(v->section), "%s", section);
                v->line = line;
                v->ep.port = 3306;
                snprintf(v->ep.user, sizeof(v->ep.user), "root");
                snprintf(v->ep.database, sizeof(v->ep.database), "sbtest");
        }
        return set_key(b, v, key, val, line);
}

/* A password that cannot be had is bad input, found before any login is tried. */
static int check_password(struct lab_backend *b, const struct static_vm *v)
{
        char pw[256], why[300];
        int rc;

        if (!v->ep.password_file[0] && !b->spec->have_password)
                return bad(b, v->line,
                           "[%s] has no password_file, and no password was given (MYSQL_PWD, "
                           "--mysql-password-file, an option file)",
                           v->section);
        if (!v->ep.password_file[0])
                return 0;
        rc = lab_read_password(v->ep.password_file, pw, sizeof(pw), why, sizeof(why));
        if (!rc && !pw[0])
                rc =
                    errf(why, sizeof(why), -EINVAL,
                         "password file %s: the first line holds no password", v->ep.password_file);
        memset(pw, 0, sizeof(pw));
        return rc < 0 ? bad(b, v->pw_line, "%s", why) : 0;
}

static const struct static_host *hypervisor_of(const struct lab_backend *b,
                                               const struct static_vm *v)
{
        for (unsigned i = 0; v->hypervisor[0] && i < b->nhosts; i++)
                if (!strcmp(b->host[i].h.name, v->hypervisor))
                        return &b->host[i];
        return NULL;
}

static int check_hypervisor(struct lab_backend *b, const struct static_vm *v)
{
        if (!v->hypervisor[0] || hypervisor_of(b, v))
                return 0;
        return bad(b, v->hv_line, "[%s]: hypervisor %s has no [host %s] section", v->section,
                   v->hypervisor, v->hypervisor);
}

/* Where VM i's driver runs: its own ssh keys over its hypervisor's, key by key.
 * 1 with *d filled, 0 when it has no destination. */
static int vm_ssh(const struct lab_backend *b, unsigned i, struct lab_ssh *d)
{
        const struct static_vm *v = &b->vm[i];
        const struct static_host *h = hypervisor_of(b, v);
        const struct ssh_keys none = {0}, *hk = h ? &h->ssh : &none, *vk = &v->ssh;

        memset(d, 0, sizeof(*d));
        if (!vk->has_dest && !hk->has_dest)
                return 0;
        *d = vk->has_dest ? vk->d : hk->d; /* user, host, port */
        snprintf(d->config, sizeof(d->config), "%s",
                 vk->has_config   ? vk->d.config
                 : hk->has_config ? hk->d.config
                                  : "");
        snprintf(d->hcisweep, sizeof(d->hcisweep), "%s",
                 vk->has_bin   ? vk->d.hcisweep
                 : hk->has_bin ? hk->d.hcisweep
                               : "");
        return 1;
}

/* --driver-placement vm: a VM with nowhere to run its driver is bad input, found now. */
static int check_driver_place(struct lab_backend *b, unsigned i)
{
        const struct static_vm *v = &b->vm[i];
        struct lab_ssh d;

        if (!b->spec->drivers_in_vms || vm_ssh(b, i, &d))
                return 0;
        if (v->hypervisor[0])
                return bad(b, v->line,
                           "[%s]: --driver-placement vm runs its driver over ssh, and neither "
                           "[%s] nor [host %s] has ssh = [user@]host[:port]",
                           v->section, v->section, v->hypervisor);
        return bad(b, v->line,
                   "[%s]: --driver-placement vm runs its driver over ssh, and [%s] has no ssh = "
                   "[user@]host[:port] (nor a hypervisor = NAME whose [host NAME] has one)",
                   v->section, v->section);
}

/* Two sections naming one server (host and port as written; no name is looked up) would make
 * one server two "VMs" of a scale step, each measured as if it were alone. */
static int same_server(const struct lab_endpoint *a, const struct lab_endpoint *b)
{
        return a->port == b->port && !strcasecmp(a->host, b->host);
}

/* Every host can be read as --metrics-source asks: refused now, naming its line. */
static int check_hosts(struct lab_backend *b)
{
        struct lab_hostinfo h;
        char why[400];

        for (unsigned i = 0; i < b->nhosts; i++) {
                h = b->host[i].h;
                if (lab_host_metrics(b->spec, &h, why, sizeof(why)) < 0)
                        return bad(b, b->host[i].line, "%s", why);
        }
        return 0;
}

/* A client host runs its driver over ssh; targets = is a client's only. */
static int check_clients(struct lab_backend *b)
{
        for (unsigned i = 0; i < b->nhosts; i++) {
                const struct static_host *h = &b->host[i];
                int client = !strcmp(h->h.role, "client");
                if (client && !h->ssh.has_dest)
                        return bad(b, h->line,
                                   "[host %s] has role = client but no ssh = [user@]host[:port]",
                                   h->h.name);
                if (!client && h->targets[0])
                        return bad(b, h->targets_line,
                                   "[host %s]: targets = is for role = client hosts (its role is "
                                   "%s)",
                                   h->h.name, h->h.role);
        }
        return 0;
}

static int check_inventory(struct lab_backend *b)
{
        if (check_clients(b) < 0)
                return -EINVAL;
        if (b->hosts_only)
                return check_hosts(b);
        if (!b->n) {
                snprintf(b->err, b->errlen, "%s: no servers (one [section] with host = ... each)",
                         b->spec->inventory);
                return -EINVAL;
        }
        for (unsigned i = 1; i <= b->n; i++)
                if (!b->vm[i].ep.host[0])
                        return bad(b, b->vm[i].line, "[%s] has no host", b->vm[i].section);
        for (unsigned i = 2; i <= b->n; i++)
                for (unsigned k = 1; k < i; k++)
                        if (same_server(&b->vm[k].ep, &b->vm[i].ep))
                                return bad(b, b->vm[i].line,
                                           "[%s] lists the same server as [%s] (line %d): %s:%u",
                                           b->vm[i].section, b->vm[k].section, b->vm[k].line,
                                           b->vm[i].ep.host, b->vm[i].ep.port);
        for (unsigned i = 1; i <= b->n; i++)
                if (check_password(b, &b->vm[i]) < 0 || check_hypervisor(b, &b->vm[i]) < 0 ||
                    check_driver_place(b, i) < 0)
                        return -EINVAL;
        if (check_hosts(b) < 0)
                return -EINVAL;
        /* last, so each mistake above is named as without the guard; still before any dial */
        for (unsigned i = 1; i <= b->n; i++)
                /* "localhost" is Connector/C's Unix socket, not an address it dials */
                if (strcmp(b->vm[i].ep.host, "localhost") && !hostport_dial_ok(b->vm[i].ep.host))
                        return bad(b, b->vm[i].line,
                                   "[%s]: host '%s': a test reaches loopback IP literals only "
                                   "(127.0.0.0/8, [::1])",
                                   b->vm[i].section, b->vm[i].ep.host);
        return 0;
}

/* The inventory of spec read and checked into a new *out (hosts_only: its hosts). */
static int read_inventory(const struct lab_spec *spec, int hosts_only, struct lab_backend **out,
                          char *err, size_t errlen)
{
        struct lab_backend *b;
        int rc;

        if (!spec->inventory || !spec->inventory[0]) {
                snprintf(err, errlen, "option --inventory: the static backend needs an inventory");
                return -EINVAL;
        }
        b = calloc(1, sizeof(*b));
        if (!b) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        b->spec = spec;
        b->hosts_only = hosts_only;
        b->err = err;
        b->errlen = errlen;
        rc = opt_read_ini(spec->inventory, on_key, b, err, errlen);
        if (rc == -ENOENT || rc == -EACCES || rc == -EISDIR || rc == -EFBIG)
                rc = -EINVAL; /* an inventory that cannot be read is bad input */
        if (!rc)
                rc = check_inventory(b);
        if (rc < 0) {
                free(b);
                return rc;
        }
        *out = b;
        return 0;
}

static int static_open(const struct lab_spec *spec, struct lab_backend **out, char *err,
                       size_t errlen)
{
        return read_inventory(spec, 0, out, err, errlen);
}

/* take(b, host, ctx) for each [host] section of the inventory at path, until one fails. */
static int each_host(const char *path,
                     int (*take)(struct lab_backend *, const struct static_host *, void *),
                     void *ctx, char *err, size_t errlen)
{
        const struct lab_spec spec = {.inventory = path};
        struct lab_backend *b;
        int rc = read_inventory(&spec, 1, &b, err, errlen);

        if (rc < 0)
                return rc;
        for (unsigned i = 0; rc == 0 && i < b->nhosts; i++)
                rc = take(b, &b->host[i], ctx);
        free(b);
        return rc;
}

struct taken {
        void *out;
        unsigned max, n;
};

static int take_client(struct lab_backend *b, const struct static_host *h, void *ctx)
{
        struct taken *t = ctx;
        struct lab_inv_client *c = (struct lab_inv_client *)t->out + t->n;

        if (strcmp(h->h.role, "client"))
                return 0;
        if (t->n == t->max)
                return bad(b, h->line, "over %u client hosts", t->max);
        *c = (struct lab_inv_client){.line = h->line, .ssh = h->ssh.d};
        snprintf(c->name, sizeof(c->name), "%s", h->h.name);
        snprintf(c->targets, sizeof(c->targets), "%s", h->targets);
        t->n++;
        return 0;
}

int lab_inventory_clients(const char *path, struct lab_inv_client *out, unsigned max, char *err,
                          size_t errlen)
{
        struct taken t = {.out = out, .max = max};
        int rc = each_host(path, take_client, &t, err, errlen);

        if (rc == 0 && !t.n)
                rc = errf(err, errlen, -EINVAL, "%s: no [host NAME] section with role = client",
                          path);
        return rc < 0 ? rc : (int)t.n;
}

static int take_host(struct lab_backend *b, const struct static_host *h, void *ctx)
{
        struct taken *t = ctx;

        if (strcmp(h->h.role, "client") && strcmp(h->h.role, "storage"))
                return 0;
        if (t->n == t->max)
                return bad(b, h->line, "over %u storage and client hosts", t->max);
        ((struct lab_hostinfo *)t->out)[t->n++] = h->h;
        return 0;
}

int lab_inventory_hosts(const char *path, struct lab_hostinfo *out, unsigned max, char *err,
                        size_t errlen)
{
        struct taken t = {.out = out, .max = max};
        int rc = each_host(path, take_host, &t, err, errlen);

        return rc < 0 ? rc : (int)t.n;
}

static unsigned static_count(struct lab_backend *b)
{
        return b->n;
}

static int static_create(struct lab_backend *b, unsigned n, char *err, size_t errlen)
{
        if (n < 1 || n > b->n) {
                snprintf(err, errlen, "option --vms: %u asked, the inventory %s lists %u", n,
                         b->spec->inventory, b->n);
                return -EINVAL;
        }
        return 0;
}

static int check_index(struct lab_backend *b, unsigned i, char *err, size_t errlen)
{
        if (i >= 1 && i <= b->n)
                return 0;
        snprintf(err, errlen, "server %u is not in the inventory %s (%u listed)", i,
                 b->spec->inventory, b->n);
        return -ENOENT;
}

static int static_start(struct lab_backend *b, unsigned i, int *started, char *err, size_t errlen)
{
        int rc = check_index(b, i, err, errlen);

        *started = 0;
        return rc ? rc : lab_sql_ping(&b->vm[i].ep, 0, NULL, PING_TIMEOUT_S, err, errlen);
}

static int static_stop(struct lab_backend *b, unsigned i, char *err, size_t errlen)
{
        return check_index(b, i, err, errlen);
}

static int static_destroy(struct lab_backend *b, int purge, char *err, size_t errlen)
{
        (void)b;
        (void)purge;
        (void)err;
        (void)errlen;
        return 0;
}

static int static_endpoint(struct lab_backend *b, unsigned i, struct lab_endpoint *ep, char *err,
                           size_t errlen)
{
        int rc = check_index(b, i, err, errlen);
        struct lab_ssh d;

        if (rc < 0)
                return rc;
        *ep = b->vm[i].ep;
        if (vm_ssh(b, i, &d))
                snprintf(ep->driver_host, sizeof(ep->driver_host), "%s", d.host);
        return 0;
}

static int static_exec(struct lab_backend *b, unsigned i, char *const argv[], int *status,
                       char *err, size_t errlen)
{
        (void)b;
        (void)argv;
        (void)status;
        snprintf(err, errlen, "the static backend cannot run commands on server %u", i);
        return -ENOTSUP;
}

static int static_spawn(struct lab_backend *b, unsigned i, const struct proc_spawn *sp,
                        const int *stdio, pid_t *pid, char *err, size_t errlen)
{
        struct lab_ssh_cmd c;
        struct lab_ssh d;
        int rc = check_index(b, i, err, errlen);

        if (rc < 0)
                return rc;
        if (!vm_ssh(b, i, &d)) {
                snprintf(err, errlen, "[%s] has no ssh destination for its driver",
                         b->vm[i].section);
                return -ENOTSUP;
        }
        rc = lab_ssh_cmd_build(&c, &d, (const char *const *)sp->argv);
        if (rc < 0)
                snprintf(err, errlen, "out of memory");
        else /* the client dies with the controller, and the driver with its input */
                rc = proc_spawn_io(&(struct proc_spawn){c.argv, sp->log_path, NULL, NULL}, stdio, 1,
                                   pid, err, errlen);
        lab_ssh_cmd_free(&c);
        return rc;
}

/* Every distinct destination of VMs 1..n asked once, in inventory order. */
static int static_driver_check(struct lab_backend *b, unsigned n, char *err, size_t errlen)
{
        struct lab_ssh d, seen;
        char why[700];
        int rc;

        if (n > b->n)
                n = b->n;
        for (unsigned i = 1; i <= n; i++) {
                int asked = 0;

                if (!vm_ssh(b, i, &d)) {
                        snprintf(err, errlen, "[%s] has no ssh destination for its driver",
                                 b->vm[i].section);
                        return -ENOTSUP;
                }
                for (unsigned k = 1; k < i && !asked; k++)
                        asked = vm_ssh(b, k, &seen) && lab_ssh_same(&seen, &d);
                if (asked)
                        continue;
                rc = lab_ssh_check_version(&d, HCISWEEP_VERSION, SSH_CHECK_TIMEOUT, b->spec->cancel,
                                           why, sizeof(why));
                if (rc < 0) {
                        snprintf(err, errlen, "[%s]'s driver: %s", b->vm[i].section, why);
                        return rc;
                }
        }
        return 0;
}

static int static_stats(struct lab_backend *b, unsigned i, struct lab_vm_stats *st, char *err,
                        size_t errlen)
{
        char why[256];
        int rc = check_index(b, i, err, errlen);

        if (rc < 0)
                return rc;
        memset(st, 0, sizeof(*st));
        st->pid = -1;
        st->cpu_limit = -1;
        st->mem_limit = st->mem_usage = st->cpu_usage_ns = -1;
        st->datadir_on = LAB_DATADIR_UNKNOWN;
        st->initiator_pid = -1;
        st->alive = lab_sql_ping(&b->vm[i].ep, 0, NULL, PING_TIMEOUT_S, why, sizeof(why)) == 0;
        snprintf(st->where, sizeof(st->where), "%s:%d [%s]%s%s%s%s", b->spec->inventory,
                 b->vm[i].line, b->vm[i].section, b->vm[i].hypervisor[0] ? " on " : "",
                 b->vm[i].hypervisor, st->alive ? "" : " ", st->alive ? "" : why);
        return 0;
}

static int static_host(struct lab_backend *b, unsigned i, struct lab_hostinfo *h)
{
        if (i >= b->nhosts)
                return -ENOENT;
        *h = b->host[i].h;
        return 0;
}

static void static_close(struct lab_backend *b)
{
        free(b);
}

const struct lab_backend_ops lab_backend_static = {
    .name = "static",
    .help = "existing servers listed in an INI --inventory (nothing started)",
    .can_start = 0,
    .has_storage = 0,
    .driver_where = "ssh",
    .spawn_streams = 1,
    .driver_carrier = &dp_carrier_ssh,
    .open = static_open,
    .count = static_count,
    .create = static_create,
    .start = static_start,
    .stop = static_stop,
    .destroy = static_destroy,
    .endpoint = static_endpoint,
    .exec = static_exec,
    .spawn = static_spawn,
    .driver_check = static_driver_check,
    .stats = static_stats,
    .host = static_host,
    .storage = NULL,
    .close = static_close,
};
