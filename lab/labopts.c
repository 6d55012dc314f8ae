/*
 * labopts.c - the lab's option table and its checks. Where the commands
 * once had texts of their own, the help here is the fuller of the two.
 */
#include "lab/labopts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/hostport.h"
#include "core/hostsrc.h"
#include "core/secret.h"

static const char *const topology_names[] = {"hci", "two-layer", NULL};
static const char *const datadir_names[] = {"lun", "host", NULL};
const char *const lab_metrics_names[] = {"auto", "procfs", "node_exporter", "prometheus", NULL};

#define O(f) offsetof(struct lab_cfg, f)
const struct opt_def lab_opts[] = {
    {"backend", OPT_ENUM, O(backend), "local", 0, 0, "where the VMs come from", lab_backend_names,
     0},
    {"inventory", OPT_STR, O(inventory), NULL, 0, 0,
     "static: INI file, one [section] per server (host, port, user, password_file, database)", NULL,
     OPT_F_PATH},
    {"vm-cpus", OPT_DOUBLE, O(vm_cpus), "1", 0, 1024,
     "CPU limit per VM in CPUs (cgroup v2 cpu.max or v1 CFS quota; 0.5 allowed; 0: none, "
     "and the only way to run where the host has no cgroup CPU controller)",
     NULL, 0},
    {"vm-memory", OPT_SIZE, O(vm_memory), "512M", 0, 0,
     "memory limit per VM (buffer pool: half of it, at least 32M; 0: none)", NULL, 0},
    {"topology", OPT_ENUM, O(topology), "hci", 0, 0,
     "hci: VMs and storage share the CPUs; two-layer: storage gets a CPU of its own",
     topology_names, 0},
    {"datadir-on", OPT_ENUM, O(datadir_on), "lun", 0, 0,
     "local: each VM's datadir on its iSCSI LUN (through qemu-storage-daemon, a loop device and "
     "ext4: the storage service in the data path) or on this host's disk",
     datadir_names, 0},
    {"lab-dir", OPT_STR, O(lab_dir), "runs/lab", 0, 0,
     "local: state directory (datadirs, LUN files, logs, state)", NULL, OPT_F_PATH},
    {"addr-base", OPT_STR, O(addr_base), "127.0.1", 0, 0,
     "local: VM N listens on ADDR-BASE.N (ADDR-BASE is 127.A.B, so in 127.0.0.0/8)", NULL, 0},
    {"base-port", OPT_INT, O(base_port), "13306", 1, 65535, "local: port of every VM's server",
     NULL, 0},
    {"target-addr", OPT_STR, O(target_addr), "127.0.0.1", 0, 0,
     "IPv4 address the storage service's iSCSI portal listens on; VMs on other hypervisor "
     "hosts (--libvirt-uri) need one they can reach",
     NULL, 0},
    {"target-port", OPT_INT, O(target_port), "3260", 1, 65535,
     "iSCSI portal port of the storage service", NULL, 0},
    {"lun-size", OPT_SIZE, O(lun_size), "1G", 0, 0, "local: size of each VM's LUN file", NULL, 0},
    {"libvirt-uri", OPT_STR, O(libvirt_uri), "qemu:///system", 0, 0,
     "libvirt: connection URIs, comma-separated (qemu+ssh://HOST/system); VMs go round-robin", NULL,
     OPT_F_LIST},
    {"boot-timeout", OPT_INT, O(boot_timeout), "240", 5, 3600,
     "qemu, libvirt: seconds for a VM to boot and its database to answer", NULL, 0},
    {"storage-hosts", OPT_STR, O(storage_hosts), NULL, 0, 0,
     "libvirt, two-layer: the hosts of --libvirt-uri (as named in its URIs; localhost for "
     "qemu:///system) that are storage hosts, comma-separated; the others are compute hosts",
     NULL, OPT_F_LIST},
    {"metrics-source", OPT_ENUM, O(metrics_source), "auto", 0, 0,
     "where each host's figures are read: auto (a host's metrics URL through node_exporter, "
     "this host through procfs), procfs (this host's /proc; no other host), node_exporter "
     "(every host's metrics URL), prometheus (every host through --prometheus)",
     lab_metrics_names, 0},
    {"prometheus", OPT_STR, O(prometheus), NULL, 0, 0,
     "with --metrics-source prometheus: the base URL of a Prometheus server (http or https) "
     "that scrapes every host's node_exporter; a host is its instance there, the host:port of "
     "its metrics URL",
     NULL, 0},
    {"metrics-token-file", OPT_STR, O(metrics_token_file), NULL, 0, 0,
     "file whose first line is a bearer token sent to the HTTP metrics sources (node_exporter, "
     "prometheus); only the file's path is recorded",
     NULL, OPT_F_PATH},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};
#undef O

/* ADDR-BASE is three dotted numbers 127.A.B, so ADDR-BASE.N is loopback. */
static int check_addr_base(const char *s, char *err, size_t errlen)
{
        unsigned a, b;
        char tail;

        if (sscanf(s, "127.%u.%u%c", &a, &b, &tail) != 2 || a > 255 || b > 255) {
                snprintf(err, errlen, "option --addr-base: '%s' is not 127.A.B", s);
                return -EINVAL;
        }
        return 0;
}

void lab_uri_host(const char *uri, char *out, size_t outlen)
{
        const char *h = strstr(uri, "://"), *end, *at;
        size_t n;

        out[0] = '\0';
        if (!h)
                return;
        h += 3;
        end = h + strcspn(h, "/?");
        at = memchr(h, '@', (size_t)(end - h));
        if (at)
                h = at + 1;
        if (*h == '[' && memchr(h, ']', (size_t)(end - h))) { /* [IPv6]: the address */
                h++;
                n = (size_t)((const char *)memchr(h, ']', (size_t)(end - h)) - h);
        } else {
                n = strcspn(h, ":/?");
        }
        if (h + n > end)
                n = (size_t)(end - h);
        if (n < outlen)
                snprintf(out, outlen, "%.*s", (int)n, h);
}

void lab_uri_host_name(const char *uri, char *out, size_t outlen)
{
        lab_uri_host(uri, out, outlen);
        if (!out[0])
                snprintf(out, outlen, "localhost");
}

/* Whether name is the host of one of the comma-separated uris. */
static int uri_names(const char *uris, const char *name)
{
        char host[64], uri[512];

        for (const char *u = uris; *u; u += strcspn(u, ","), u += *u == ',') {
                snprintf(uri, sizeof(uri), "%.*s", (int)strcspn(u, ","), u);
                lab_uri_host_name(uri, host, sizeof(host));
                if (!strcmp(host, name))
                        return 1;
        }
        return 0;
}

/* Each URI of --libvirt-uri names its host as hostport.h holds one, and under the loopback
 * guard a loopback literal: checked before any connection (libvirt would resolve and dial). */
static int check_libvirt_uris(const char *uris, char *err, size_t errlen)
{
        char uri[512], host[HOSTPORT_HOST_MAX], why[400];

        for (const char *u = uris; *u; u += strcspn(u, ","), u += *u == ',') {
                snprintf(uri, sizeof(uri), "%.*s", (int)strcspn(u, ","), u);
                if (hostport_uri_host(uri, host, sizeof(host), why, sizeof(why)) < 0) {
                        snprintf(err, errlen, "option --libvirt-uri: %s", why);
                        return -EINVAL;
                }
                if (host[0] && strcmp(host, "localhost") && !hostport_dial_ok(host)) {
                        hostport_printable(host, 64, why, sizeof(why));
                        snprintf(err, errlen,
                                 "option --libvirt-uri: '%s': a test reaches loopback IP literals "
                                 "only (127.0.0.0/8)",
                                 why);
                        return -EINVAL;
                }
        }
        return 0;
}

/* Every name of --storage-hosts is a host of --libvirt-uri, and only in
 * two-layer (in hci every host is both): checked before any connection. */
static int check_storage_hosts(const struct lab_cfg *c, char *err, size_t errlen)
{
        char name[64];

        if (!c->storage_hosts)
                return 0;
        if (!c->topology) {
                snprintf(err, errlen,
                         "option --storage-hosts: only with --topology two-layer (in hci "
                         "every host runs VMs and storage)");
                return -EINVAL;
        }
        for (const char *s = c->storage_hosts; *s; s += strcspn(s, ","), s += *s == ',') {
                char host[HOSTPORT_HOST_MAX], why[400];
                unsigned port;

                snprintf(name, sizeof(name), "%.*s", (int)strcspn(s, ","), s);
                if (hostport_parse(name, 0, host, sizeof(host), &port, why, sizeof(why)) < 0) {
                        snprintf(err, errlen, "option --storage-hosts: %s", why);
                        return -EINVAL;
                }
                if (!uri_names(c->libvirt_uri, name)) {
                        snprintf(err, errlen,
                                 "option --storage-hosts: '%s' is not a host of --libvirt-uri "
                                 "%s",
                                 name, c->libvirt_uri);
                        return -EINVAL;
                }
        }
        return 0;
}

/* --prometheus goes with --metrics-source prometheus, both ways, and is an http(s) URL;
 * --metrics-token-file's token is read now, so a bad file is found before any connection. */
static int check_metrics(struct lab_cfg *c, char *err, size_t errlen)
{
        char why[300];
        int rc;

        if (c->metrics_source == LAB_METRICS_PROM && !c->prometheus) {
                snprintf(err, errlen,
                         "option --metrics-source prometheus: needs --prometheus URL (the server "
                         "that scrapes the hosts)");
                return -EINVAL;
        }
        if (c->prometheus && c->metrics_source != LAB_METRICS_PROM) {
                snprintf(err, errlen,
                         "option --prometheus: read only with --metrics-source prometheus");
                return -EINVAL;
        }
        if (c->prometheus && hostsrc_url_check(c->prometheus, 0, why, sizeof(why)) < 0) {
                snprintf(err, errlen, "option --prometheus: %s", why);
                return -EINVAL;
        }
        if (c->prometheus && strpbrk(c->prometheus, "?#")) {
                snprintf(err, errlen, "option --prometheus: %s: a base URL, without ?query or #",
                         c->prometheus);
                return -EINVAL;
        }
        c->metrics_token[0] = '\0';
        if (!c->metrics_token_file)
                return 0;
        rc = secret_read_file("metrics-token-file", c->metrics_token_file, c->metrics_token,
                              sizeof(c->metrics_token), err, errlen);
        if (!rc && strpbrk(c->metrics_token, " \t")) {
                snprintf(err, errlen, "option --metrics-token-file: %s: a token is one word",
                         c->metrics_token_file);
                rc = -EINVAL;
        }
        if (rc < 0)
                explicit_bzero(c->metrics_token, sizeof(c->metrics_token));
        return rc < 0 ? -EINVAL : 0;
}

int lab_spec(struct lab_cfg *c, struct lab_spec *spec, const struct lab_backend_ops **ops,
             char *err, size_t errlen)
{
        struct in_addr in;
        int rc;

        *ops = lab_backends[c->backend];
        rc = check_addr_base(c->addr_base, err, errlen);
        if (!rc)
                rc = check_libvirt_uris(c->libvirt_uri, err, errlen);
        if (!rc)
                rc = check_storage_hosts(c, err, errlen);
        if (!rc)
                rc = check_metrics(c, err, errlen);
        if (rc < 0)
                return rc;
        if (inet_pton(AF_INET, c->target_addr, &in) != 1 || in.s_addr == htonl(INADDR_ANY)) {
                snprintf(err, errlen,
                         "option --target-addr: '%s' is not an IPv4 address VMs can connect to",
                         c->target_addr);
                return -EINVAL;
        }
        if (!hostport_dial_ok(c->target_addr)) {
                snprintf(err, errlen,
                         "option --target-addr: '%s': a test uses loopback IP literals only "
                         "(127.0.0.0/8)",
                         c->target_addr);
                return -EINVAL;
        }
        /* the kernel's smallest CFS quota is 1 ms of each 100 ms period */
        if (c->vm_cpus > 0 && c->vm_cpus < 0.01) {
                snprintf(err, errlen,
                         "option --vm-cpus: %g is below the smallest CPU quota 0.01 "
                         "(0: no limit)",
                         c->vm_cpus);
                return -EINVAL;
        }
        if (c->lun_size < (1 << 20)) {
                snprintf(err, errlen, "option --lun-size: at least 1M");
                return -EINVAL;
        }
        *spec = (struct lab_spec){
            .lab_dir = c->lab_dir,
            .inventory = c->inventory,
            .addr_base = c->addr_base,
            .base_port = (unsigned)c->base_port,
            .target_addr = c->target_addr,
            .target_port = (unsigned)c->target_port,
            .vm_cpus = c->vm_cpus,
            .vm_memory = c->vm_memory,
            .lun_size = c->lun_size,
            .topology = c->topology ? LAB_TWO_LAYER : LAB_HCI,
            .datadir_on = c->datadir_on ? LAB_DATADIR_HOST : LAB_DATADIR_LUN,
            .libvirt_uri = c->libvirt_uri,
            .storage_hosts = c->storage_hosts,
            .boot_timeout_s = (int)c->boot_timeout,
            .metrics_source = (enum lab_metrics)c->metrics_source,
            .prometheus = c->prometheus,
            .metrics_token = c->metrics_token[0] ? c->metrics_token : NULL,
            .metrics_token_file = c->metrics_token_file,
        };
        return 0;
}

/* The host:port Prometheus labels the target of metrics URL url with (its default port added). */
static int instance_of(const char *url, char *out, size_t outlen)
{
        const char *h = strstr(url, "://"), *after;
        size_t n;
        int port;

        if (!h)
                return -EINVAL;
        h += 3;
        n = strcspn(h, "/?#"); /* no user@ in it: hostsrc_url_check refuses one */
        after = h[0] == '[' ? memchr(h, ']', n) : h; /* an IPv6 literal's colons are not a port */
        if (!n || n + 5 >= outlen || !after)
                return -EINVAL;
        port = memchr(after, ':', n - (size_t)(after - h)) != NULL;
        snprintf(out, outlen, "%.*s%s", (int)n, h,
                 port                         ? ""
                 : !strncmp(url, "https:", 6) ? ":443"
                                              : ":80");
        return 0;
}

int lab_host_metrics(const struct lab_spec *spec, struct lab_hostinfo *h, char *err, size_t errlen)
{
        const struct hostsrc_ops *src = hostsrc_find(h->source);
        unsigned at = src ? src->where : 0; /* the source by what it reads, never by its name */
        int local = !!(at & HOSTSRC_AT_DIR), url = !!(at & HOSTSRC_AT_URL);
        char inst[128];

        h->token = NULL;
        switch (spec->metrics_source) {
        case LAB_METRICS_AUTO:
                break;
        case LAB_METRICS_PROCFS:
                if (!local) {
                        snprintf(err, errlen,
                                 "host %s: --metrics-source procfs reads this host's /proc only, "
                                 "and %s is not this host",
                                 h->name, h->name);
                        return -EINVAL;
                }
                break;
        case LAB_METRICS_NODE:
                if (!url) {
                        snprintf(err, errlen,
                                 "host %s: --metrics-source node_exporter needs the host's "
                                 "metrics URL (an inventory's [host %s] metrics = URL)",
                                 h->name, h->name);
                        return -EINVAL;
                }
                break;
        case LAB_METRICS_PROM:
                if (!url || instance_of(h->where, inst, sizeof(inst)) < 0) {
                        snprintf(err, errlen,
                                 "host %s: --metrics-source prometheus names a host by the "
                                 "host:port of its metrics URL, and %s has none",
                                 h->name, h->name);
                        return -EINVAL;
                }
                if (strlen(spec->prometheus) + strlen(inst) + 2 > sizeof(h->where)) {
                        snprintf(err, errlen, "host %s: --prometheus is too long", h->name);
                        return -EINVAL;
                }
                src = &hostsrc_prom_ops;
                snprintf(h->source, sizeof(h->source), "%s", src->name);
                snprintf(h->where, sizeof(h->where), "%s#%s", spec->prometheus, inst);
                break;
        }
        if (src && (src->where & HOSTSRC_TOKEN))
                h->token = spec->metrics_token;
        return 0;
}
