/*
 * hostsrc_prom.c - the prometheus source: a host's node_exporter figures
 * read from a Prometheus server that already scrapes it, so the controller
 * need reach no exporter.
 *
 * where is "BASE#INSTANCE" (hostsrc.h): each read is one instant query,
 * GET BASE/api/v1/query?query=..., of the families the node_exporter source
 * reads, restricted to {instance="INSTANCE"}, plus the time of the
 * instance's last scrape:
 *
 *   {__name__=~"node_(cpu_seconds_total|...)",instance="I"}
 *     or label_replace(max(timestamp(node_cpu_seconds_total{instance="I"})),
 *                      "__name__", "hcisweep_sample_time", "", "")
 *
 * One query, so the values and their time come from one evaluation (the
 * server's head isolation keeps a scrape whole). An instant query reports
 * its own evaluation time beside every value; the sample's own time is
 * timestamp()'s. The series are filled into counters by the node_exporter
 * source's own code (hostsrc_fill_*), so both sources of one host give the
 * same disks and network sums.
 */
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/expo.h"
#include "core/hostport.h"
#include "core/hostsrc.h"
#include "core/hostsrc_http.h"

#define TIME_NAME "hcisweep_sample_time"
#define FAMILIES                                                                                   \
        "node_(cpu_seconds_total|memory_Mem(Total|Available)_bytes|vmstat_pswp(in|out)|"           \
        "disk_(reads_completed|writes_completed|read_time_seconds|write_time_seconds|io_time_"     \
        "seconds|read_bytes|written_bytes)_total|network_(receive|transmit)_bytes_total|"          \
        "pressure_(cpu|io|memory)_waiting_seconds_total)"

struct prom {
        struct hostsrc_http http;
        char base[512]; /* the server's URL, as printed in errors */
        char instance[128];
        char *query_url;
};

/* An instance is host:port as Prometheus labels a target; it goes into a PromQL string. */
static int instance_ok(const char *s)
{
        if (!s[0])
                return 0;
        for (; *s; s++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:-_[]",
                            *s))
                        return 0;
        return 1;
}

int hostsrc_prom_where(const char *where, char *base, size_t baselen, char *instance,
                       size_t instlen, char *err, size_t errlen)
{
        const char *hash = strrchr(where, '#');
        size_t n;
        int ret;

        if (!hash || !instance_ok(hash + 1)) {
                snprintf(err, errlen,
                         "%s: not PROMETHEUS_URL#INSTANCE (the instance as Prometheus labels the "
                         "node_exporter target, host:port)",
                         where);
                return -EINVAL;
        }
        n = (size_t)(hash - where);
        while (n && where[n - 1] == '/')
                n--; /* BASE/ and BASE name one server */
        if (n >= baselen || strlen(hash + 1) >= instlen) {
                snprintf(err, errlen, "%s: too long", where);
                return -EINVAL;
        }
        snprintf(base, baselen, "%.*s", (int)n, where);
        snprintf(instance, instlen, "%s", hash + 1);
        ret = hostsrc_url_check(base, 0, err, errlen);
        if (!ret && strpbrk(base, "?#")) {
                snprintf(err, errlen, "Prometheus URL %s: a base URL, without ?query", base);
                ret = -EINVAL;
        }
        return ret;
}

static char *query_url(const char *base, const char *instance)
{
        char q[1024], *esc, *url = NULL;
        CURL *c = curl_easy_init();

        snprintf(q, sizeof(q),
                 "{__name__=~\"" FAMILIES "\",instance=\"%s\"} or label_replace(max(timestamp("
                 "node_cpu_seconds_total{instance=\"%s\"})), \"__name__\", \"" TIME_NAME
                 "\", \"\", \"\")",
                 instance, instance);
        esc = c ? curl_easy_escape(c, q, 0) : NULL;
        if (esc && asprintf(&url, "%s/api/v1/query?query=%s", base, esc) < 0)
                url = NULL;
        curl_free(esc);
        curl_easy_cleanup(c);
        return url;
}

static int prom_open(struct hostsrc *s, const char *where, char *err, size_t errlen)
{
        struct prom *p = calloc(1, sizeof(*p));
        int ret;

        if (!p) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        ret = hostsrc_prom_where(where, p->base, sizeof(p->base), p->instance, sizeof(p->instance),
                                 err, errlen);
        if (!ret && !(p->query_url = query_url(p->base, p->instance))) {
                snprintf(err, errlen, "out of memory");
                ret = -ENOMEM;
        }
        if (!ret)
                ret = hostsrc_http_open(&p->http, s->token, err, errlen);
        if (ret < 0) {
                free(p->query_url);
                free(p);
                return ret;
        }
        s->priv = p;
        return 0;
}

/* A value as the API writes it: a string, "NaN" and "+Inf" included. */
static int sample_value(json_t *pair, double *v)
{
        const char *str = json_string_value(json_array_get(pair, 1));
        char *end;

        if (!json_is_array(pair) || json_array_size(pair) != 2 || !str || !str[0])
                return -1;
        *v = strtod(str, &end);
        return *end ? -1 : 0;
}

/* One series of the result into f, or the scrape time into *t. */
static int take_series(struct hostsrc_fill *f, json_t *item, double *t, const char **job,
                       const char *instance, char *err, size_t errlen)
{
        json_t *metric = json_object_get(item, "metric"), *val;
        struct expo_sample smp = {.name = NULL};
        const char *key, *j;

        if (!json_is_object(metric) || sample_value(json_object_get(item, "value"), &smp.value)) {
                snprintf(err, errlen, "a result without metric and value: not a Prometheus reply");
                return -EINVAL;
        }
        smp.name = json_string_value(json_object_get(metric, "__name__"));
        if (!smp.name)
                return 0;
        if (!strcmp(smp.name, TIME_NAME)) {
                *t = smp.value;
                return 0;
        }
        /* two jobs scraping one instance would count each CPU twice */
        j = json_string_value(json_object_get(metric, "job"));
        if (j && *job && strcmp(j, *job)) {
                snprintf(err, errlen,
                         "instance %s is scraped by more than one job (%s, %s): its figures "
                         "would count twice",
                         instance, *job, j);
                return -EINVAL;
        }
        if (j)
                *job = j;
        json_object_foreach(metric, key, val)
        {
                if (smp.nlabels < EXPO_MAX_LABELS && json_is_string(val) && strcmp(key, "__name__"))
                        smp.labels[smp.nlabels++] =
                            (struct expo_label){.name = key, .value = json_string_value(val)};
        }
        return hostsrc_fill_sample(f, &smp);
}

/* The reply's status, its error when it is one. */
static int reply_status(json_t *root, char *err, size_t errlen)
{
        const char *status = json_string_value(json_object_get(root, "status"));
        const char *type = json_string_value(json_object_get(root, "errorType"));
        const char *why = json_string_value(json_object_get(root, "error"));

        if (status && !strcmp(status, "success"))
                return 0;
        if (status && !strcmp(status, "error")) {
                char t[4 * 40 + 4], w[4 * 200 + 4]; /* the server's words, never replayed raw */

                hostport_printable(type ? type : "error", 40, t, sizeof(t));
                hostport_printable(why ? why : "(no reason given)", 200, w, sizeof(w));
                snprintf(err, errlen, "the query failed: %s: %s", t, w);
                return -EIO;
        }
        snprintf(err, errlen, "no \"status\" of success or error: not a Prometheus API reply");
        return -EINVAL;
}

/* Each series once: Prometheus itself never answers one twice, and a sum of the two would
 * count its CPU twice (as an exposition body's duplicate is refused, expo.h). */
static int once(json_t *seen, json_t *metric, const char *instance, char *err, size_t errlen)
{
        char *key = json_dumps(metric, JSON_COMPACT | JSON_SORT_KEYS);
        int ret = 0;

        if (!key) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        if (json_object_get(seen, key)) {
                snprintf(err, errlen, "instance %s: the same series twice in one answer (%.200s)",
                         instance, key);
                ret = -EINVAL;
        } else if (json_object_set_new(seen, key, json_true()) < 0) {
                snprintf(err, errlen, "out of memory");
                ret = -ENOMEM;
        }
        free(key);
        return ret;
}

static int take_result(json_t *result, const char *instance, struct hostsrc_counters *out,
                       double *t, char *err, size_t errlen)
{
        struct hostsrc_fill f;
        const char *job = NULL;
        size_t i;
        json_t *item;
        int ret = 0;

        json_t *seen = json_object();

        if (!seen) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        hostsrc_fill_init(&f, out);
        json_array_foreach(result, i, item)
        {
                ret = take_series(&f, item, t, &job, instance, err, errlen);
                if (!ret)
                        ret = once(seen, json_object_get(item, "metric"), instance, err, errlen);
                if (ret < 0)
                        break;
        }
        json_decref(seen);
        if (ret < 0)
                return ret;
        ret = hostsrc_fill_done(&f, err, errlen);
        if (ret < 0)
                return ret;
        if (!f.have_cpu) {
                snprintf(err, errlen,
                         "no node_cpu_seconds_total for instance %s (%zu series): not a target of "
                         "this Prometheus, or its last scrape failed",
                         instance, json_array_size(result));
                return -ENOENT;
        }
        return 0;
}

int hostsrc_prom_parse(const char *body, size_t len, const char *instance, int64_t mono_minus_wall,
                       struct hostsrc_counters *out, char *err, size_t errlen)
{
        json_error_t jerr;
        json_t *root = json_loadb(body, len, 0, &jerr), *data, *result;
        const char *type;
        double t = NAN;
        int ret;

        if (!root) {
                snprintf(err, errlen, "not JSON (%s, at byte %d): not a Prometheus API reply",
                         jerr.text, jerr.position);
                return -EINVAL;
        }
        ret = reply_status(root, err, errlen);
        data = json_object_get(root, "data");
        type = json_string_value(json_object_get(data, "resultType"));
        result = json_object_get(data, "result");
        if (!ret && (!type || strcmp(type, "vector") || !json_is_array(result))) {
                snprintf(err, errlen, "data is not a vector result: not an instant query's reply");
                ret = -EINVAL;
        }
        if (!ret)
                ret = take_result(result, instance, out, &t, err, errlen);
        json_decref(root);
        if (ret < 0)
                return ret;
        /* a time llround and uint64 hold (year 2262 at most), not one that wraps */
        if (!isfinite(t) || t <= 0 || t * 1e9 + (double)mono_minus_wall <= 0 ||
            t * 1e9 + (double)mono_minus_wall >= 9e18) {
                snprintf(err, errlen, "instance %s: no sample time (%g)", instance, t);
                return -EINVAL;
        }
        out->t_ns = (uint64_t)llround(t * 1e9 + (double)mono_minus_wall);
        return 0;
}

/* clk_now_ns() minus the wall clock, both now: maps a wall-clock sample time onto clk_now_ns. */
static int64_t mono_minus_wall(void)
{
        struct timespec w;
        uint64_t m = clk_now_ns();

        clock_gettime(CLOCK_REALTIME, &w);
        return (int64_t)m - ((int64_t)w.tv_sec * 1000000000 + w.tv_nsec);
}

static int prom_read(struct hostsrc *s, struct hostsrc_counters *out, char *err, size_t errlen)
{
        struct prom *p = s->priv;
        long status;
        int ret = hostsrc_http_get(&p->http, p->query_url, p->base, &status, err, errlen);
        char why[400];

        if (ret < 0)
                return ret;
        ret = hostsrc_prom_parse(p->http.body, p->http.len, p->instance, mono_minus_wall(), out,
                                 why, sizeof(why));
        if (status != 200) {
                /* an error reply's own reason when it has one (400 bad_data, 503 unavailable) */
                if (ret == -EIO)
                        snprintf(err, errlen, "%s: HTTP status %ld: %s", p->base, status, why);
                else
                        snprintf(err, errlen, "%s: HTTP status %ld", p->base, status);
                return -EIO;
        }
        if (ret < 0)
                snprintf(err, errlen, "%s: %s", p->base, why);
        return ret;
}

static void prom_close(struct hostsrc *s)
{
        struct prom *p = s->priv;

        if (!p)
                return;
        hostsrc_http_close(&p->http);
        free(p->query_url);
        free(p);
}

const struct hostsrc_ops hostsrc_prom_ops = {.name = "prometheus",
                                             .caps = HOSTSRC_ALL,
                                             .where = HOSTSRC_AT_SERVER | HOSTSRC_TOKEN,
                                             .open = prom_open,
                                             .read = prom_read,
                                             .close = prom_close};
