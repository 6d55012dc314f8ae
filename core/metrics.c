/*
 * metrics.c - the OpenMetrics endpoint (see metrics.h): a small sample
 * store under a mutex, rendered as text for each scrape by libmicrohttpd's
 * own thread. The listening socket is made here, so a bad address or a port
 * in use is reported with errno before the daemon starts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "core/log.h"
#include "core/metrics.h"
#include "core/procfs.h"
#include "core/sbuf.h"

#define PREFIX "hcisweep_"

enum fam_type { FAM_GAUGE, FAM_COUNTER, FAM_SUMMARY };
static const char *const fam_type_names[] = {"gauge", "counter", "summary"};

struct sample {
        char suffix[8];   /* "", "_total", "_count", "_sum" */
        char labels[160]; /* as given by the caller */
        char quantile[24];
        double v;
};

struct family {
        char name[64];
        char help[160];
        enum fam_type type;
        struct sample *s;
        unsigned n, cap;
};

struct metrics {
        pthread_mutex_t lock;
        struct family *f;
        unsigned nf, capf;
        struct MHD_Daemon *d;
        int fd;
        unsigned port;
        char addr[INET6_ADDRSTRLEN + 8]; /* as bound: "ADDR:PORT" or "[ADDR6]:PORT" */
};

/* ---- the listen address --------------------------------------------------- */

struct listen_addr {
        struct sockaddr_storage sa;
        socklen_t len;
        int loopback, wildcard;
};

static int bad_spec(char *err, size_t errlen, const char *spec, const char *why)
{
        snprintf(err, errlen, "option --metrics-listen: '%s': %s", spec, why);
        return -EINVAL;
}

static int parse_port(const char *p, unsigned *port)
{
        char *end;
        long v;

        errno = 0;
        v = strtol(p, &end, 10);
        if (!*p || *end || errno || v < 0 || v > 65535)
                return -1;
        *port = (unsigned)v;
        return 0;
}

static int parse_listen(const char *spec, struct listen_addr *a, char *err, size_t errlen)
{
        char host[64] = "127.0.0.1";
        const char *colon = strrchr(spec, ':'), *port_s = spec;
        unsigned port;

        memset(a, 0, sizeof(*a));
        if (colon) {
                size_t n = (size_t)(colon - spec);
                const char *h = spec;
                if (n >= 2 && spec[0] == '[' && spec[n - 1] == ']')
                        h++, n -= 2;
                if (n == 0 || n >= sizeof(host))
                        return bad_spec(err, errlen, spec,
                                        "expected ADDR:PORT, [ADDR6]:PORT or PORT");
                memcpy(host, h, n);
                host[n] = '\0';
                port_s = colon + 1;
        }
        if (parse_port(port_s, &port) < 0)
                return bad_spec(err, errlen, spec, "the port must be a number 0..65535");
        if (!strcmp(host, "localhost"))
                snprintf(host, sizeof(host), "127.0.0.1");
        struct sockaddr_in *v4 = (struct sockaddr_in *)&a->sa;
        struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&a->sa;
        if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
                uint32_t ip = ntohl(v4->sin_addr.s_addr);
                v4->sin_family = AF_INET;
                v4->sin_port = htons((uint16_t)port);
                a->len = sizeof(*v4);
                a->loopback = (ip >> 24) == 127;
                a->wildcard = ip == 0;
        } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
                v6->sin6_family = AF_INET6;
                v6->sin6_port = htons((uint16_t)port);
                a->len = sizeof(*v6);
                a->loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
                a->wildcard = IN6_IS_ADDR_UNSPECIFIED(&v6->sin6_addr);
        } else {
                return bad_spec(err, errlen, spec,
                                "not an IP address (names other than localhost are not resolved)");
        }
        if (a->wildcard)
                return bad_spec(err, errlen, spec,
                                "listening on every address is refused: name the address to use");
        return 0;
}

int metrics_check_listen(const char *spec, int *loopback, char *err, size_t errlen)
{
        struct listen_addr a;
        int rc = parse_listen(spec ? spec : "", &a, err, errlen);

        if (!rc && loopback)
                *loopback = a.loopback;
        return rc;
}

/* "ADDR:PORT" (or "[ADDR6]:PORT") of a and the port bound. */
static void format_address(const struct listen_addr *a, unsigned port, char *buf, size_t len)
{
        char ip[INET6_ADDRSTRLEN] = "?";
        int v6 = a->sa.ss_family == AF_INET6;
        const void *src = v6 ? (const void *)&((const struct sockaddr_in6 *)&a->sa)->sin6_addr
                             : (const void *)&((const struct sockaddr_in *)&a->sa)->sin_addr;

        inet_ntop(a->sa.ss_family, src, ip, sizeof(ip));
        snprintf(buf, len, v6 ? "[%s]:%u" : "%s:%u", ip, port);
}

static int open_socket(const struct listen_addr *a, const char *spec, unsigned *port, char *err,
                       size_t errlen)
{
        int fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, e;
        struct sockaddr_storage got;
        socklen_t glen = sizeof(got);

        if (fd < 0)
                goto fail;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, (const struct sockaddr *)&a->sa, a->len) < 0 || listen(fd, SOMAXCONN) < 0 ||
            getsockname(fd, (struct sockaddr *)&got, &glen) < 0)
                goto fail;
        *port = ntohs(got.ss_family == AF_INET ? ((struct sockaddr_in *)&got)->sin_port
                                               : ((struct sockaddr_in6 *)&got)->sin6_port);
        return fd;
fail:
        e = errno;
        if (fd >= 0)
                close(fd);
        snprintf(err, errlen, "option --metrics-listen: cannot listen on %s: %s", spec,
                 strerror(e));
        return -e;
}

/* ---- the sample store ----------------------------------------------------- */

static struct family *family(struct metrics *m, const char *name, const char *help,
                             enum fam_type type)
{
        for (unsigned i = 0; i < m->nf; i++)
                if (!strcmp(m->f[i].name, name))
                        return &m->f[i];
        if (m->nf == m->capf) {
                unsigned cap = m->capf ? 2 * m->capf : 32;
                struct family *f = realloc(m->f, cap * sizeof(*f));
                if (!f)
                        return NULL;
                m->f = f;
                m->capf = cap;
        }
        struct family *f = &m->f[m->nf++];
        memset(f, 0, sizeof(*f));
        snprintf(f->name, sizeof(f->name), "%s", name);
        snprintf(f->help, sizeof(f->help), "%s", help ? help : "");
        f->type = type;
        return f;
}

/* The sample of f with these labels and suffix/quantile, made when absent. */
static struct sample *sample(struct family *f, const char *labels, const char *suffix,
                             const char *quantile)
{
        labels = labels ? labels : "";
        for (unsigned i = 0; i < f->n; i++) {
                struct sample *s = &f->s[i];
                if (!strcmp(s->labels, labels) && !strcmp(s->suffix, suffix) &&
                    !strcmp(s->quantile, quantile))
                        return s;
        }
        if (f->n == f->cap) {
                unsigned cap = f->cap ? 2 * f->cap : 8;
                struct sample *s = realloc(f->s, cap * sizeof(*s));
                if (!s)
                        return NULL;
                f->s = s;
                f->cap = cap;
        }
        struct sample *s = &f->s[f->n++];
        memset(s, 0, sizeof(*s));
        snprintf(s->labels, sizeof(s->labels), "%s", labels);
        snprintf(s->suffix, sizeof(s->suffix), "%s", suffix);
        snprintf(s->quantile, sizeof(s->quantile), "%s", quantile);
        return s;
}

static void put(struct metrics *m, enum fam_type type, const char *name, const char *labels,
                const char *help, const char *suffix, const char *quantile, double v)
{
        struct family *f = family(m, name, help, type);
        struct sample *s = f ? sample(f, labels, suffix, quantile) : NULL;

        if (s)
                s->v = v;
}

void metrics_gauge(struct metrics *m, const char *name, const char *labels, const char *help,
                   double v)
{
        if (!m)
                return;
        pthread_mutex_lock(&m->lock);
        put(m, FAM_GAUGE, name, labels, help, "", "", v);
        pthread_mutex_unlock(&m->lock);
}

void metrics_counter(struct metrics *m, const char *name, const char *labels, const char *help,
                     double total)
{
        if (!m)
                return;
        pthread_mutex_lock(&m->lock);
        put(m, FAM_COUNTER, name, labels, help, "_total", "", total);
        pthread_mutex_unlock(&m->lock);
}

void metrics_summary(struct metrics *m, const char *name, const char *labels, const char *help,
                     const struct hist *h, const double *q, unsigned nq)
{
        char qs[24];

        if (!m || !h)
                return;
        pthread_mutex_lock(&m->lock);
        for (unsigned i = 0; i < nq; i++) {
                snprintf(qs, sizeof(qs), "%g", q[i]);
                put(m, FAM_SUMMARY, name, labels, help, "", qs,
                    hist_count(h) ? hist_percentile(h, 100 * q[i]) / 1e9 : NAN);
        }
        put(m, FAM_SUMMARY, name, labels, help, "_count", "", (double)hist_count(h));
        put(m, FAM_SUMMARY, name, labels, help, "_sum", "", hist_mean(h) * hist_count(h) / 1e9);
        pthread_mutex_unlock(&m->lock);
}

void metrics_drop(struct metrics *m, const char *name)
{
        if (!m)
                return;
        pthread_mutex_lock(&m->lock);
        for (unsigned i = 0; i < m->nf; i++)
                if (!strcmp(m->f[i].name, name))
                        m->f[i].n = 0;
        pthread_mutex_unlock(&m->lock);
}

/* ---- rendering ------------------------------------------------------------ */

static void value(struct sbuf *b, double v)
{
        if (isnan(v))
                sb_printf(b, "NaN\n");
        else if (isinf(v))
                sb_printf(b, v > 0 ? "+Inf\n" : "-Inf\n");
        else
                sb_printf(b, "%.15g\n", v);
}

static void render_family(struct sbuf *b, const struct family *f)
{
        if (!f->n)
                return;
        sb_printf(b, "# TYPE " PREFIX "%s %s\n", f->name, fam_type_names[f->type]);
        if (f->help[0])
                sb_printf(b, "# HELP " PREFIX "%s %s\n", f->name, f->help);
        for (unsigned i = 0; i < f->n; i++) {
                const struct sample *s = &f->s[i];
                int any = s->labels[0] || s->quantile[0];
                sb_printf(b, PREFIX "%s%s%s%s%s", f->name, s->suffix, any ? "{" : "", s->labels,
                          s->labels[0] && s->quantile[0] ? "," : "");
                if (s->quantile[0])
                        sb_printf(b, "quantile=\"%s\"", s->quantile);
                sb_printf(b, "%s ", any ? "}" : "");
                value(b, s->v);
        }
}

/* The total cpu line of /proc/stat (procfs.c's parser): stop there. */
static int on_total(void *user, const struct procfs_cpu *c)
{
        if (c->id >= 0)
                return 0;
        *(struct procfs_cpu *)user = *c;
        return 1;
}

/* Host CPU from /proc/stat's first line, in seconds per mode since boot. */
static void render_host_cpu(struct sbuf *b)
{
        static const char *const modes[] = {"user",   "nice", "system",  "idle",
                                            "iowait", "irq",  "softirq", "steal"};
        struct procfs_cpu c = {.id = 0};
        double hz = (double)sysconf(_SC_CLK_TCK);
        unsigned long long t[8];

        if (procfs_stat_at("/proc/stat", on_total, &c) != 1 || hz <= 0)
                return;
        t[0] = c.user, t[1] = c.nice, t[2] = c.system, t[3] = c.idle;
        t[4] = c.iowait, t[5] = c.irq, t[6] = c.softirq, t[7] = c.steal;
        sb_printf(b, "# TYPE " PREFIX "host_cpu_seconds counter\n");
        sb_printf(b, "# HELP " PREFIX "host_cpu_seconds host CPU time by mode, all CPUs "
                     "(/proc/stat)\n");
        for (unsigned i = 0; i < 8; i++) {
                sb_printf(b, PREFIX "host_cpu_seconds_total{mode=\"%s\"} ", modes[i]);
                value(b, (double)t[i] / hz);
        }
        sb_printf(b, "# TYPE " PREFIX "host_cpus gauge\n" PREFIX "host_cpus %ld\n",
                  sysconf(_SC_NPROCESSORS_ONLN));
}

char *metrics_render(struct metrics *m)
{
        struct sbuf b = {0};

        if (m) {
                pthread_mutex_lock(&m->lock);
                for (unsigned i = 0; i < m->nf; i++)
                        render_family(&b, &m->f[i]);
                pthread_mutex_unlock(&m->lock);
        }
        render_host_cpu(&b);
        sb_printf(&b, "# EOF\n");
        if (b.oom) {
                sb_free(&b);
                return NULL;
        }
        return b.s;
}

/* ---- the HTTP side -------------------------------------------------------- */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **state)
{
        struct metrics *m = cls;
        struct MHD_Response *r;
        enum MHD_Result ret;
        char *text;

        (void)url, (void)version, (void)upload, (void)upload_len, (void)state;
        if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
                static const char msg[] = "only GET\n";
                r = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg,
                                                    MHD_RESPMEM_PERSISTENT);
                ret = r ? MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, r) : MHD_NO;
        } else {
                if (!(text = metrics_render(m)))
                        return MHD_NO;
                r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
                if (!r) {
                        free(text);
                        return MHD_NO;
                }
                MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                                        "application/openmetrics-text; version=1.0.0; "
                                        "charset=utf-8");
                ret = MHD_queue_response(c, MHD_HTTP_OK, r);
        }
        if (r)
                MHD_destroy_response(r);
        return ret;
}

int metrics_start(struct metrics **out, const char *spec, char *err, size_t errlen)
{
        struct listen_addr a;
        struct metrics *m;
        int rc;

        *out = NULL;
        if (!spec || !*spec)
                return 0;
        if ((rc = parse_listen(spec, &a, err, errlen)) < 0)
                return rc;
        if (!(m = calloc(1, sizeof(*m)))) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        pthread_mutex_init(&m->lock, NULL);
        if ((m->fd = open_socket(&a, spec, &m->port, err, errlen)) < 0) {
                rc = m->fd;
                m->fd = -1;
                metrics_stop(m);
                return rc;
        }
        /* epoll: MHD then accepts every pending connection per wake-up, not one; with the
         * SOMAXCONN backlog a burst of scrapes is queued and answered, not reset. */
        m->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
                                    MHD_USE_EPOLL | (a.sa.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
                                0, NULL, NULL, on_request, m, MHD_OPTION_LISTEN_SOCKET, m->fd,
                                MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
        if (!m->d) {
                snprintf(err, errlen,
                         "option --metrics-listen: the HTTP server did not start on %s", spec);
                metrics_stop(m);
                return -EIO;
        }
        m->fd = -1; /* the daemon closes it when stopped */
        format_address(&a, m->port, m->addr, sizeof(m->addr));
        /* Port 0 binds any free port: say which, so a scraper can be pointed at it. */
        log_info("metrics: serving http://%s/metrics", m->addr);
        if (!a.loopback)
                log_warn("metrics: %s is not a loopback address: other hosts can read the figures",
                         spec);
        *out = m;
        return 0;
}

const char *metrics_address(const struct metrics *m)
{
        return m ? m->addr : NULL;
}

unsigned metrics_port(const struct metrics *m)
{
        return m ? m->port : 0;
}

void metrics_stop(struct metrics *m)
{
        if (!m)
                return;
        if (m->d)
                MHD_stop_daemon(m->d);
        if (m->fd >= 0)
                close(m->fd);
        for (unsigned i = 0; i < m->nf; i++)
                free(m->f[i].s);
        free(m->f);
        pthread_mutex_destroy(&m->lock);
        free(m);
}
