/*
 * labopts.h - the options that describe a lab, one table shared by every
 * command that brings VMs up (`hcisweep lab`, `hcisweep scale`), so their
 * names, defaults and help cannot drift apart:
 *   --backend --inventory --vm-cpus --vm-memory --topology --datadir-on --lab-dir
 *   --addr-base --base-port --target-addr --target-port --lun-size --libvirt-uri
 *   --boot-timeout --storage-hosts --metrics-source --prometheus --metrics-token-file
 * A command lists lab_opts as one group (core/opts.h) over a struct
 * lab_cfg of its own, then turns the parsed values into the
 * backend's spec with lab_spec().
 */
#ifndef HCI_LAB_LABOPTS_H
#define HCI_LAB_LABOPTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/opts.h"
#include "lab/backend.h"

/* The parsed lab options; the strings belong to the group (opt_free). */
struct lab_cfg {
        int backend; /* index into lab_backends[] */
        char *inventory, *lab_dir, *addr_base, *libvirt_uri, *target_addr, *storage_hosts;
        long long base_port, target_port, boot_timeout;
        double vm_cpus;
        uint64_t vm_memory, lun_size;
        int topology;       /* index into "hci", "two-layer" */
        int datadir_on;     /* index into "lun", "host" */
        int metrics_source; /* index into lab_metrics_names */
        char *prometheus, *metrics_token_file;
        char metrics_token[4096]; /* read from metrics_token_file by lab_spec */
};

/* --metrics-source's choices, in enum lab_metrics order. */
extern const char *const lab_metrics_names[];

/* The option table over struct lab_cfg, NULL-terminated. */
extern const struct opt_def lab_opts[];

/* Check what the table cannot (--addr-base is 127.A.B,
 * --lun-size is at least 1M, --storage-hosts names hosts of --libvirt-uri
 * in two-layer, --prometheus is an http(s) URL given with --metrics-source
 * prometheus, and so the other way) and fill *spec, which points into c (c
 * must outlive it), and *ops. The token of --metrics-token-file is read
 * here, into c, before any connection. -EINVAL with err naming the option. */
int lab_spec(struct lab_cfg *c, struct lab_spec *spec, const struct lab_backend_ops **ops,
             char *err, size_t errlen);

/*
 * The host a libvirt URI names, DRIVER[+TRANSPORT]://[USER@]HOST[:PORT]/PATH:
 * HOST ([IPv6] without its brackets), or "" for a URI of this host
 * (qemu:///system). out gets "" too when the host part does not fit.
 */
void lab_uri_host(const char *uri, char *out, size_t outlen);

/* The name of a libvirt lab's host on uri: lab_uri_host(), "localhost" for "". */
void lab_uri_host_name(const char *uri, char *out, size_t outlen);

/*
 * Host h as its backend describes it (a [host] section's metrics URL as
 * node_exporter, this host as procfs /proc, or no source), with the source
 * spec's --metrics-source picks for it: h->source and h->where rewritten,
 * h->token set for an HTTP source. auto keeps what the backend says;
 * procfs is this host's /proc and refuses any other host; node_exporter
 * needs the host's metrics URL; prometheus reads every host through
 * --prometheus, the instance being its metrics URL's host:port (port 80 or
 * 443 when the URL has none). -EINVAL with err naming the host and the
 * option when the host cannot be read so.
 */
int lab_host_metrics(const struct lab_spec *spec, struct lab_hostinfo *h, char *err, size_t errlen);

#endif
