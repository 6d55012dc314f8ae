/*
 * hostsrc_http.c - the one libcurl GET of the HTTP host-metrics sources
 * (hostsrc_http.h).
 */
#include "core/hostsrc_http.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init(void)
{
        curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t on_body(char *data, size_t size, size_t n, void *user)
{
        struct hostsrc_http *h = user;
        size_t len = size * n;

        if (h->len + len > HOSTSRC_HTTP_MAX_BODY) {
                h->too_big = 1;
                return 0; /* libcurl stops the transfer */
        }
        if (h->len + len + 1 > h->cap) {
                size_t cap = h->cap ? h->cap : 65536;
                char *p;

                while (cap < h->len + len + 1)
                        cap *= 2;
                p = realloc(h->body, cap);
                if (!p)
                        return 0;
                h->body = p;
                h->cap = cap;
        }
        memcpy(h->body + h->len, data, len);
        h->len += len;
        return len;
}

/*
 * The fixed options of every GET, each checked: only http and https, no redirect, and no
 * proxy, not even one named by http_proxy or all_proxy in the environment: none was named on
 * the command line, and the token and the loopback guard must reach the server itself.
 */
static CURLcode setopts(CURL *c, struct hostsrc_http *h)
{
        CURLcode rc = CURLE_OK;

        if (h->headers)
                rc = curl_easy_setopt(c, CURLOPT_HTTPHEADER, h->headers);
        if (!rc)
                rc = curl_easy_setopt(c, CURLOPT_PROXY, "");
        if (!rc)
                rc = curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        if (!rc)
                rc = curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
        if (!rc)
                rc = curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        if (!rc)
                rc = curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)HOSTSRC_HTTP_TIMEOUT_MS);
        if (!rc)
                rc = curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE,
                                      (curl_off_t)HOSTSRC_HTTP_MAX_BODY);
        if (!rc)
                rc = curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        if (!rc)
                rc = curl_easy_setopt(c, CURLOPT_WRITEDATA, h);
        return rc;
}

int hostsrc_http_open(struct hostsrc_http *h, const char *token, char *err, size_t errlen)
{
        char auth[4200];
        CURLcode rc;
        CURL *c;

        memset(h, 0, sizeof(*h));
        pthread_once(&curl_once, curl_init);
        c = curl_easy_init();
        if (!c) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        h->curl = c;
        if (token) {
                snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
                h->headers = curl_slist_append(NULL, auth);
                explicit_bzero(auth, sizeof(auth));
                if (!h->headers) {
                        hostsrc_http_close(h);
                        snprintf(err, errlen, "out of memory");
                        return -ENOMEM;
                }
        }
        rc = setopts(c, h);
        if (rc != CURLE_OK) {
                hostsrc_http_close(h);
                snprintf(err, errlen, "libcurl: %s", curl_easy_strerror(rc));
                return -EINVAL;
        }
        return 0;
}

int hostsrc_http_get(struct hostsrc_http *h, const char *url, const char *shown, long *status,
                     char *err, size_t errlen)
{
        CURLcode rc;

        h->len = 0;
        h->too_big = 0;
        *status = 0;
        rc = curl_easy_setopt(h->curl, CURLOPT_URL, url);
        if (rc == CURLE_OK)
                rc = curl_easy_perform(h->curl);
        if (h->too_big || rc == CURLE_FILESIZE_EXCEEDED) {
                snprintf(err, errlen, "%s: body over %u bytes", shown, HOSTSRC_HTTP_MAX_BODY);
                return -E2BIG;
        }
        if (rc != CURLE_OK) {
                snprintf(err, errlen, "%s: %s", shown, curl_easy_strerror(rc));
                return -EIO;
        }
        if (!h->body) {
                h->body = malloc(1);
                if (!h->body) {
                        snprintf(err, errlen, "out of memory");
                        return -ENOMEM;
                }
                h->cap = 1;
        }
        h->body[h->len] = '\0';
        curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, status);
        return 0;
}

void hostsrc_http_close(struct hostsrc_http *h)
{
        if (h->curl)
                curl_easy_cleanup(h->curl);
        curl_slist_free_all(h->headers);
        free(h->body);
        memset(h, 0, sizeof(*h));
}
