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
 * the exporter has them. A body without node_cpu_seconds_total is not an
 * exporter's; a counter that is negative, NaN or infinite is garbage. Bodies
 * are bounded (HOSTSRC_HTTP_MAX_BODY) while they arrive, and only http and
 * https are spoken, redirects not followed.
 */
#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expo.h"
#include "core/hostsrc.h"

struct node {
        CURL *curl;
        struct curl_slist *headers;
        char *url;
        char *body;
        size_t len, cap;
        int too_big;
};

/* What the parse callback fills, and the first bad value it met. */
struct fill {
        struct hostsrc_counters *out;
        int have_cpu;
        unsigned psi; /* bit per pressure file seen */
        char bad[160];
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init(void)
{
        curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t on_body(char *data, size_t size, size_t n, void *user)
{
        struct node *nd = user;
        size_t len = size * n;

        if (nd->len + len > HOSTSRC_HTTP_MAX_BODY) {
                nd->too_big = 1;
                return 0; /* libcurl stops the transfer */
        }
        if (nd->len + len + 1 > nd->cap) {
                size_t cap = nd->cap ? nd->cap : 65536;
                char *p;

                while (cap < nd->len + len + 1)
                        cap *= 2;
                p = realloc(nd->body, cap);
                if (!p)
                        return 0;
                nd->body = p;
                nd->cap = cap;
        }
        memcpy(nd->body + nd->len, data, len);
        nd->len += len;
        return len;
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

static void on_cpu(struct fill *f, const struct expo_sample *s)
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

static void on_disk(struct fill *f, const struct expo_sample *s, const char *what)
{
        static const char *const names[] = {"reads_completed_total",   "writes_completed_total",
                                            "read_time_seconds_total", "write_time_seconds_total",
                                            "io_time_seconds_total",   "read_bytes_total",
                                            "written_bytes_total"};
        struct hostsrc_disk *d = NULL;

        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
                if (strcmp(what, names[i]))
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

static void on_net(struct fill *f, const struct expo_sample *s, double *sum)
{
        const char *dev = expo_label(s, "device");

        if (dev && strcmp(dev, "lo"))
                *sum += s->value;
        (void)f;
}

static void on_psi(struct fill *f, const char *what, double v)
{
        static const char *const names[] = {"cpu_waiting_seconds_total", "io_waiting_seconds_total",
                                            "memory_waiting_seconds_total"};
        double *fields[] = {&f->out->psi_cpu_s, &f->out->psi_io_s, &f->out->psi_mem_s};

        for (unsigned i = 0; i < 3; i++)
                if (!strcmp(what, names[i])) {
                        *fields[i] = v;
                        f->psi |= 1u << i;
                }
}

static int on_sample(void *user, const struct expo_sample *s)
{
        struct fill *f = user;
        struct hostsrc_counters *out = f->out;
        const char *n = s->name;

        if (strncmp(n, "node_", 5))
                return 0;
        n += 5;
        if (strncmp(n, "cpu_seconds_total", 17) && strncmp(n, "memory_", 7) &&
            strncmp(n, "vmstat_pswp", 11) && strncmp(n, "disk_", 5) && strncmp(n, "network_", 8) &&
            strncmp(n, "pressure_", 9))
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
                on_net(f, s, &out->rx_bytes);
        else if (!strcmp(n, "network_transmit_bytes_total"))
                on_net(f, s, &out->tx_bytes);
        else if (!strncmp(n, "pressure_", 9))
                on_psi(f, n + 9, s->value);
        return 0;
}

int hostsrc_node_parse(const char *body, size_t len, struct hostsrc_counters *out, char *err,
                       size_t errlen)
{
        struct fill f = {.out = out};
        char why[200];
        int ret = expo_parse(body, len, on_sample, &f, why, sizeof(why));

        if (ret < 0) {
                snprintf(err, errlen, "not exposition text: %s", why);
                return ret;
        }
        if (f.bad[0]) {
                snprintf(err, errlen, "%s", f.bad);
                return -EINVAL;
        }
        if (!f.have_cpu) {
                snprintf(err, errlen, "no node_cpu_seconds_total in %zu bytes: not node_exporter",
                         len);
                return -EINVAL;
        }
        out->have_pressure = f.psi == 7;
        return 0;
}

static int node_open(struct hostsrc *s, const char *where, char *err, size_t errlen)
{
        struct node *nd;
        char auth[4200];
        int ret = hostsrc_url_check(where, 0, err, errlen);

        if (ret < 0)
                return ret;
        pthread_once(&curl_once, curl_init);
        nd = calloc(1, sizeof(*nd));
        if (!nd || !(nd->url = strdup(where)) || !(nd->curl = curl_easy_init())) {
                if (nd)
                        free(nd->url);
                free(nd);
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        s->priv = nd;
        if (s->token) {
                snprintf(auth, sizeof(auth), "Authorization: Bearer %s", s->token);
                nd->headers = curl_slist_append(NULL, auth);
                explicit_bzero(auth, sizeof(auth));
        }
        curl_easy_setopt(nd->curl, CURLOPT_URL, nd->url);
        curl_easy_setopt(nd->curl, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(nd->curl, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(nd->curl, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(nd->curl, CURLOPT_TIMEOUT_MS, (long)HOSTSRC_HTTP_TIMEOUT_MS);
        curl_easy_setopt(nd->curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)HOSTSRC_HTTP_MAX_BODY);
        curl_easy_setopt(nd->curl, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(nd->curl, CURLOPT_WRITEDATA, nd);
        if (nd->headers)
                curl_easy_setopt(nd->curl, CURLOPT_HTTPHEADER, nd->headers);
        return 0;
}

static int node_read(struct hostsrc *s, struct hostsrc_counters *out, char *err, size_t errlen)
{
        struct node *nd = s->priv;
        long status = 0;
        CURLcode rc;

        nd->len = 0;
        nd->too_big = 0;
        rc = curl_easy_perform(nd->curl);
        if (nd->too_big || rc == CURLE_FILESIZE_EXCEEDED) {
                snprintf(err, errlen, "%s: body over %u bytes", nd->url, HOSTSRC_HTTP_MAX_BODY);
                return -E2BIG;
        }
        if (rc != CURLE_OK) {
                snprintf(err, errlen, "%s: %s", nd->url, curl_easy_strerror(rc));
                return -EIO;
        }
        curl_easy_getinfo(nd->curl, CURLINFO_RESPONSE_CODE, &status);
        if (status != 200) {
                snprintf(err, errlen, "%s: HTTP status %ld", nd->url, status);
                return -EIO;
        }
        return hostsrc_node_parse(nd->body ? nd->body : "", nd->len, out, err, errlen);
}

static void node_close(struct hostsrc *s)
{
        struct node *nd = s->priv;

        if (!nd)
                return;
        curl_easy_cleanup(nd->curl);
        curl_slist_free_all(nd->headers);
        free(nd->url);
        free(nd->body);
        free(nd);
}

const struct hostsrc_ops hostsrc_node_ops = {
    .name = "node_exporter", .open = node_open, .read = node_read, .close = node_close};
