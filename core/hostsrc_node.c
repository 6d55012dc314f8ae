/*
 * hostsrc_node.c - the node_exporter source: GET http(s)://HOST:PORT/metrics
 * through libcurl and read the exposition text (core/expo.c).
 *
 * Taken from the body: node_cpu_seconds_total{cpu,mode},
 * node_memory_MemTotal_bytes and _MemAvailable_bytes, node_vmstat_pswpin
 * and _pswpout, node_disk_{reads,writes}_completed_total,
 * node_disk_{read,write}_time_seconds_total, node_disk_io_time_seconds_total,
 * node_disk_{read,written}_bytes_total, node_network_{receive,transmit}_
 * bytes_total and node_pressure_{cpu,io,memory}_waiting_seconds_total where
 * the exporter has them; every other family is skipped unread. A body
 * without node_cpu_seconds_total is not an exporter's; a value of these
 * families that is negative, NaN or infinite is garbage. Bodies
 * are bounded (HOSTSRC_HTTP_MAX_BODY) while they arrive, and only http and
 * https are spoken, redirects not followed (the GET of core/hostsrc_http.c).
 * The reading of these families into counters is shared with the
 * prometheus source (hostsrc_fill_*), so both fill them alike.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expo.h"
#include "core/hostsrc.h"
#include "core/hostsrc_http.h"

struct node {
        struct hostsrc_http http;
        char *url;
};

#define NAMES(a) (sizeof(a) / sizeof((a)[0]))

/* The families read, past "node_": every other one is skipped, its values unchecked. */
static const char *const plain_names[] = {"cpu_seconds_total",
                                          "memory_MemTotal_bytes",
                                          "memory_MemAvailable_bytes",
                                          "vmstat_pswpin",
                                          "vmstat_pswpout",
                                          "network_receive_bytes_total",
                                          "network_transmit_bytes_total"};
static const char *const disk_names[] = {/* past "node_disk_" */
                                         "reads_completed_total",   "writes_completed_total",
                                         "read_time_seconds_total", "write_time_seconds_total",
                                         "io_time_seconds_total",   "read_bytes_total",
                                         "written_bytes_total"};
static const char *const psi_names[] = {/* past "node_pressure_" */
                                        "cpu_waiting_seconds_total", "io_waiting_seconds_total",
                                        "memory_waiting_seconds_total"};

static int listed(const char *n, const char *const *names, size_t count)
{
        for (size_t i = 0; i < count; i++)
                if (!strcmp(n, names[i]))
                        return 1;
        return 0;
}

/* Whether family n (past "node_") is one the counters are filled from. */
static int family_read(const char *n)
{
        if (!strncmp(n, "disk_", 5))
                return listed(n + 5, disk_names, NAMES(disk_names));
        if (!strncmp(n, "pressure_", 9))
                return listed(n + 9, psi_names, NAMES(psi_names));
        return listed(n, plain_names, NAMES(plain_names));
}

static double *cpu_mode(struct hostsrc_cpu *c, const char *mode)
{
        static const char *const modes[] = {"user",   "nice", "system",  "idle",
                                            "iowait", "irq",  "softirq", "steal"};
        double *fields[] = {&c->user,   &c->nice, &c->system,  &c->idle,
                            &c->iowait, &c->irq,  &c->softirq, &c->steal};

        for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
                if (!strcmp(mode, modes[i]))
                        return fields[i];
        return NULL;
}

static void on_cpu(struct hostsrc_fill *f, const struct expo_sample *s)
{
        const char *cpu = expo_label(s, "cpu"), *mode = expo_label(s, "mode");
        char *end;
        long id;
        double *v;

        if (!cpu || !mode)
                return;
        id = strtol(cpu, &end, 10);
        if (*end || id < 0 || id >= HOSTSRC_MAX_CPUS)
                return;
        v = cpu_mode(&f->out->cpu[id], mode);
        if (!v)
                return;
        *v = s->value;
        *cpu_mode(&f->out->total, mode) += s->value;
        if ((unsigned)id + 1 > f->out->ncpus)
                f->out->ncpus = (unsigned)id + 1;
        f->have_cpu = 1;
}

static struct hostsrc_disk *disk_of(struct hostsrc_counters *out, const char *name)
{
        struct hostsrc_disk *d;

        if (!name || !hostsrc_disk_wanted(name) || strlen(name) >= sizeof(d->name))
                return NULL;
        for (unsigned i = 0; i < out->ndisks; i++)
                if (!strcmp(out->disk[i].name, name))
                        return &out->disk[i];
        if (out->ndisks == HOSTSRC_MAX_DISKS)
                return NULL;
        d = &out->disk[out->ndisks++];
        snprintf(d->name, sizeof(d->name), "%s", name);
        return d;
}

static void on_disk(struct hostsrc_fill *f, const struct expo_sample *s, const char *what)
{
        struct hostsrc_disk *d = NULL;

        for (size_t i = 0; i < NAMES(disk_names); i++) {
                if (strcmp(what, disk_names[i]))
                        continue;
                d = disk_of(f->out, expo_label(s, "device"));
                if (!d)
                        return;
                double *fields[] = {&d->reads, &d->writes,     &d->read_s,       &d->write_s,
                                    &d->io_s,  &d->read_bytes, &d->written_bytes};
                *fields[i] = s->value;
                return;
        }
}

/* Per interface; only the host's links are summed (hostsrc_net_wanted). */
static void on_net(struct hostsrc_fill *f, const struct expo_sample *s, int tx)
{
        struct hostsrc_net *n = hostsrc_net_of(f->out, expo_label(s, "device"));

        if (n)
                *(tx ? &n->tx_bytes : &n->rx_bytes) = s->value;
}

static void on_psi(struct hostsrc_fill *f, const char *what, double v)
{
        double *fields[] = {&f->out->psi_cpu_s, &f->out->psi_io_s, &f->out->psi_mem_s};

        for (unsigned i = 0; i < NAMES(psi_names); i++)
                if (!strcmp(what, psi_names[i])) {
                        *fields[i] = v;
                        f->psi |= 1u << i;
                }
}

void hostsrc_fill_init(struct hostsrc_fill *f, struct hostsrc_counters *out)
{
        memset(f, 0, sizeof(*f));
        f->out = out;
}

int hostsrc_fill_sample(void *user, const struct expo_sample *s)
{
        struct hostsrc_fill *f = user;
        struct hostsrc_counters *out = f->out;
        const char *n = s->name;

        if (strncmp(n, "node_", 5))
                return 0;
        n += 5;
        /* Only what is read is checked: an exporter's other gauges may well be negative
         * (netclass's node_network_speed_bytes is -125000 for a link of unknown speed). */
        if (!family_read(n))
                return 0;
        if (!isfinite(s->value) || s->value < 0) {
                if (!f->bad[0])
                        snprintf(f->bad, sizeof(f->bad), "%s is %g, not a counter", s->name,
                                 s->value);
                return 0;
        }
        if (!strcmp(n, "cpu_seconds_total"))
                on_cpu(f, s);
        else if (!strcmp(n, "memory_MemTotal_bytes"))
                out->mem_total_bytes = s->value;
        else if (!strcmp(n, "memory_MemAvailable_bytes"))
                out->mem_available_bytes = s->value;
        else if (!strcmp(n, "vmstat_pswpin"))
                out->pswpin = s->value;
        else if (!strcmp(n, "vmstat_pswpout"))
                out->pswpout = s->value;
        else if (!strncmp(n, "disk_", 5))
                on_disk(f, s, n + 5);
        else if (!strcmp(n, "network_receive_bytes_total"))
                on_net(f, s, 0);
        else if (!strcmp(n, "network_transmit_bytes_total"))
                on_net(f, s, 1);
        else if (!strncmp(n, "pressure_", 9))
                on_psi(f, n + 9, s->value);
        return 0;
}

int hostsrc_fill_done(struct hostsrc_fill *f, char *err, size_t errlen)
{
        if (f->bad[0]) {
                snprintf(err, errlen, "%s", f->bad);
                return -EINVAL;
        }
        f->out->have_pressure = f->psi == 7;
        f->out->have = HOSTSRC_ALL; /* an exporter gives every family */
        return 0;
}

int hostsrc_node_parse(const char *body, size_t len, struct hostsrc_counters *out, char *err,
                       size_t errlen)
{
        struct hostsrc_fill f;
        char why[200];
        int ret;

        hostsrc_fill_init(&f, out);
        ret = expo_parse(body, len, hostsrc_fill_sample, &f, why, sizeof(why));
        if (ret < 0) {
                snprintf(err, errlen, "not exposition text: %s", why);
                return ret;
        }
        ret = hostsrc_fill_done(&f, err, errlen);
        if (ret < 0)
                return ret;
        if (!f.have_cpu) {
                snprintf(err, errlen, "no node_cpu_seconds_total in %zu bytes: not node_exporter",
                         len);
                return -EINVAL;
        }
        return 0;
}

static int node_open(struct hostsrc *s, const char *where, char *err, size_t errlen)
{
        struct node *nd;
        int ret = hostsrc_url_check(where, 0, err, errlen);

        if (ret < 0)
                return ret;
        nd = calloc(1, sizeof(*nd));
        if (!nd || !(nd->url = strdup(where))) {
                free(nd);
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        ret = hostsrc_http_open(&nd->http, s->token, err, errlen);
        if (ret < 0) {
                free(nd->url);
                free(nd);
                return ret;
        }
        s->priv = nd;
        return 0;
}

static int node_read(struct hostsrc *s, struct hostsrc_counters *out, char *err, size_t errlen)
{
        struct node *nd = s->priv;
        long status;
        int ret = hostsrc_http_get(&nd->http, nd->url, nd->url, &status, err, errlen);

        if (ret < 0)
                return ret;
        if (status != 200) {
                snprintf(err, errlen, "%s: HTTP status %ld", nd->url, status);
                return -EIO;
        }
        return hostsrc_node_parse(nd->http.body, nd->http.len, out, err, errlen);
}

static void node_close(struct hostsrc *s)
{
        struct node *nd = s->priv;

        if (!nd)
                return;
        hostsrc_http_close(&nd->http);
        free(nd->url);
        free(nd);
}

const struct hostsrc_ops hostsrc_node_ops = {.name = "node_exporter",
                                             .caps = HOSTSRC_ALL,
                                             .where = HOSTSRC_AT_URL | HOSTSRC_TOKEN,
                                             .open = node_open,
                                             .read = node_read,
                                             .close = node_close};
