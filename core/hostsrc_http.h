/*
 * hostsrc_http.h - what the HTTP host-metrics sources (node_exporter,
 * prometheus) share, so neither copies the other: one libcurl GET with the
 * same limits, and the reading of node_exporter's families into counters.
 *
 * The GET speaks http and https only, follows no redirect, gives up after
 * HOSTSRC_HTTP_TIMEOUT_MS and refuses a body over HOSTSRC_HTTP_MAX_BODY
 * while it arrives. A bearer token, when given, goes in an Authorization
 * header and nowhere else (never in a URL or a message). Internal to
 * core/hostsrc_*.c; one thread per handle.
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

#endif
