/*
 * hostsrc_http.h - what the HTTP host-metrics sources (node_exporter,
 * prometheus) share, so neither copies the other: one libcurl GET with the
 * same limits, and the reading of node_exporter's families into counters.
 *
 * The GET speaks http and https only, follows no redirect, gives up after
 * HOSTSRC_HTTP_TIMEOUT_MS and refuses a body over HOSTSRC_HTTP_MAX_BODY
 * while it arrives. A bearer token, when given, goes in an Authorization
 * header and nowhere else (never in a URL or a message). Internal to
 * core/hostsrc_*.c (and their tests, which parse bodies with no network);
 * one thread per handle.
 */
#ifndef HCI_HOSTSRC_HTTP_H
#define HCI_HOSTSRC_HTTP_H

#include <stddef.h>

#include "core/expo.h"
#include "core/hostsrc.h"

struct hostsrc_http {
        void *curl;    /* CURL * */
        void *headers; /* struct curl_slist * */
        char *body;    /* the last reply's body, NUL-terminated; len bytes before the NUL */
        size_t len, cap;
        int too_big;
};

/* A handle for GETs, the token (or NULL) as a bearer header. 0 or -ENOMEM. */
int hostsrc_http_open(struct hostsrc_http *h, const char *token, char *err, size_t errlen);

/*
 * GET url into h->body. 0 with the reply's HTTP status in *status (any
 * status: the caller reads error bodies as it likes); -E2BIG for a body
 * over the limit, -EIO when there was no reply. Errors begin with shown
 * (the URL as it may be printed).
 */
int hostsrc_http_get(struct hostsrc_http *h, const char *url, const char *shown, long *status,
                     char *err, size_t errlen);

void hostsrc_http_close(struct hostsrc_http *h);

/* Reading node_exporter's families (hostsrc_node.c lists them) into counters. */
struct hostsrc_fill {
        struct hostsrc_counters *out;
        int have_cpu;
        unsigned psi;  /* bit per pressure file seen */
        char bad[160]; /* the first value that is no counter */
};

/* Start filling out (already zeroed). */
void hostsrc_fill_init(struct hostsrc_fill *f, struct hostsrc_counters *out);

/* One sample (an expo_parse callback: user is the fill); others' families are skipped. */
int hostsrc_fill_sample(void *user, const struct expo_sample *s);

/* After the last sample: -EINVAL with err for a bad value; 0 otherwise
 * (f->have_cpu tells whether node_cpu_seconds_total was there). */
int hostsrc_fill_done(struct hostsrc_fill *f, char *err, size_t errlen);

/* The parts of the HTTP sources' reads that need no network (tests and fuzzing). */

/*
 * A node_exporter body's counters into out: the part of the node_exporter
 * source's read that needs no network. -EINVAL with err for a body that is
 * not exposition text, holds no node_cpu_seconds_total or a counter that is
 * negative, NaN or infinite; -E2BIG over EXPO_MAX_BODY.
 */
int hostsrc_node_parse(const char *body, size_t len, struct hostsrc_counters *out, char *err,
                       size_t errlen);

/*
 * A prometheus source's where split into the server's base URL (trailing
 * '/' dropped; checked as hostsrc_url_check does) and the instance.
 * -EINVAL with err when it is not BASE#INSTANCE.
 */
int hostsrc_prom_where(const char *where, char *base, size_t baselen, char *instance,
                       size_t instlen, char *err, size_t errlen);

/*
 * An instant query's reply (/api/v1/query, hostsrc_prom.c's query) into
 * out: the part of the prometheus source's read that needs no network.
 * out->t_ns is the reply's scrape time (seconds of the wall clock) plus
 * mono_minus_wall (clk_now_ns() minus the wall clock in ns, at the read).
 * -EIO with the server's errorType and error for a reply of status error;
 * -ENOENT naming the instance when no node_cpu_seconds_total came back
 * (an empty result); -EINVAL for a body that is not such a reply, a value
 * that is negative, NaN or infinite, or two jobs' series of one instance.
 */
int hostsrc_prom_parse(const char *body, size_t len, const char *instance, int64_t mono_minus_wall,
                       struct hostsrc_counters *out, char *err, size_t errlen);

#endif
