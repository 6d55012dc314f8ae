/*
 * clients.c - the lockstep sweep over many block clients (see clients.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/driverproto.h"
#include "core/log.h"
#include "core/parse.h"
#include "lab/proc.h"
#include "block/clients.h"
#include "block/clients_agg.h"

#define MAX_CLIENTS  256
#define GO_AHEAD_MS  200   /* the go instant: this far ahead, so every client gets it in time */
#define STOP_WAIT_MS 15000 /* after an interrupt: how long to wait for the partial results */

/* Options the controller keeps to itself: a client gets the rest of the user's argv. */
static const char *const controller_only[] = {
    "clients", "client-counts", "stonewall", "per-client",  "clients-optional",
    "json",    "output-dir",    "target",    "filename",    "metrics-listen",
    "quiet",   "output-format", "no-index",  "start-on-go", NULL};
/* ... and of those, the ones that take no value (the others may take the next word) */
static const char *const controller_bools[] = {"per-client", "clients-optional", "quiet",
                                               "no-index",   "start-on-go",      NULL};

struct client {
        char name[32];
        char targets[4096]; /* its comma list */
        json_t *tj;         /* its targets as an array */
        pid_t pid;
        struct dp_carrier *car;
        int ready, started, lost;
        int64_t started_ns; /* controller's clock */
        json_t *point;      /* its result of the current point */
        char error[320];
};

static int in_list(const char *const *l, const char *s, size_t n)
{
        for (; *l; l++)
                if (strlen(*l) == n && !strncmp(*l, s, n))
                        return 1;
        return 0;
}

int blk_clients_count(const char *spec, char *err, size_t errlen)
{
        char why[128];
        uint64_t n;

        if (!spec || strncmp(spec, "local:", 6) != 0) {
                snprintf(err, errlen, "option --clients: '%s' is not local:N", spec ? spec : "");
                return -EINVAL;
        }
        if (parse_u64(spec + 6, &n, why, sizeof(why)) < 0 || n < 1 || n > MAX_CLIENTS) {
                snprintf(err, errlen, "option --clients: '%s': N must be 1 to %d", spec,
                         MAX_CLIENTS);
                return -EINVAL;
        }
        return (int)n;
}

/* Client i's share of the comma list: items i, i+n, ... or item i mod count. */
static int deal(const char *list, unsigned i, unsigned n, char *out, size_t len, json_t *arr)
{
        char *copy = strdup(list), *save = NULL, *item[1024];
        unsigned cnt = 0;
        size_t used = 0;

        if (!copy)
                return -ENOMEM;
        for (char *t = strtok_r(copy, ",", &save); t && cnt < 1024; t = strtok_r(NULL, ",", &save))
                item[cnt++] = t;
        out[0] = 0;
        for (unsigned j = 0; j < cnt; j++) {
                if (cnt >= n ? j % n != i : j != i % cnt)
                        continue;
                int w = snprintf(out + used, len - used, "%s%s", used ? "," : "", item[j]);
                if (w < 0 || (size_t)w >= len - used) {
                        free(copy);
                        return -ENAMETOOLONG;
                }
                used += (size_t)w;
                json_array_append_new(arr, json_string(item[j]));
        }
        free(copy);
        return 0;
}

/* The argv of client c: this binary, block, the user's options, its targets, --start-on-go. */
static char **client_argv(const struct blk_clients_plan *p, const struct client *c, char *self,
                          char *tgt_opt)
{
        char **a = calloc((size_t)p->argc + 8, sizeof(*a));
        int n = 0;

        if (!a)
                return NULL;
        a[n++] = self;
        a[n++] = "block";
        for (int i = 1; i < p->argc; i++) {
                const char *w = p->argv[i];
                if (strncmp(w, "--", 2) != 0) {
                        a[n++] = (char *)w;
                        continue;
                }
                const char *eq = strchr(w + 2, '=');
                size_t len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
                if (!in_list(controller_only, w + 2, len)) {
                        a[n++] = (char *)w;
                        continue;
                }
                if (!eq && !in_list(controller_bools, w + 2, len) && i + 1 < p->argc)
                        i++; /* its value */
        }
        snprintf(tgt_opt, 4200, "--%s=%s", p->target_list ? "target" : "filename", c->targets);
        a[n++] = tgt_opt;
        a[n++] = "--start-on-go";
        a[n++] = "--quiet";
        a[n] = NULL;
        return a;
}

static int start_client(const struct blk_clients_plan *p, struct client *c, char *err,
                        size_t errlen)
{
        char self[4096], tgt[4200];
        int in[2], out[2], rc;
        char **argv = client_argv(p, c, self, tgt);

        dp_self_exe(self, sizeof(self));
        if (!argv)
                return -ENOMEM;
        if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) {
                rc = -errno;
                snprintf(err, errlen, "%s: pipe: %s", c->name, strerror(errno));
                free(argv);
                return rc;
        }
        int stdio[2] = {in[0], out[1]};
        rc = proc_spawn_io(&(struct proc_spawn){argv, NULL, NULL, NULL}, stdio, 1, &c->pid, err,
                           errlen);
        free(argv);
        close(in[0]);
        close(out[1]);
        if (rc < 0) {
                close(in[1]);
                close(out[0]);
                c->pid = -1;
                return rc;
        }
        char who[64];
        snprintf(who, sizeof(who), "client %s", c->name);
        c->car = dp_carrier_new(&dp_carrier_pipe, NULL, in[1], out[0], who);
        return c->car ? 0 : -ENOMEM;
}

/* Mark c lost (once) with why, and end its input so it stops. */
static void lose(struct client *c, const char *why)
{
        if (c->lost)
                return;
        c->lost = 1;
        snprintf(c->error, sizeof(c->error), "lost: %s", why);
        log_error("client %s %s", c->name, c->error);
        dp_carrier_close_input(c->car);
        if (c->pid > 0)
                proc_stop(c->pid, NULL, SIGTERM, 2000, (char[128]){0}, 128);
        c->pid = -1;
}

/* One message from c, handled for point k. */
static void on_msg(struct client *c, const struct dp_msg *m, unsigned k)
{
        char why[128];

        if (m->point != k && m->kind != DP_CLOCK) {
                snprintf(why, sizeof(why), "said point %u while point %u runs", m->point, k);
                lose(c, why);
                return;
        }
        switch (m->kind) {
        case DP_READY:
                c->ready = 1;
                break;
        case DP_STARTED:
                c->started = 1;
                c->started_ns = m->local_ns;
                break;
        case DP_RESULT: {
                json_error_t je;
                json_decref(c->point);
                c->point = json_loadb(m->doc, m->doclen, 0, &je);
                if (!c->point || !json_is_object(c->point)) {
                        json_decref(c->point);
                        c->point = NULL;
                        snprintf(why, sizeof(why), "its result is not JSON: %.80s", je.text);
                        lose(c, why);
                }
                break;
        }
        default:
                break;
        }
}

/* Poll every live client until done(c) holds for all, or the deadline (0: none), or stop. */
static int wait_all(struct client *cl, unsigned n, unsigned k, int (*done)(const struct client *),
                    int64_t deadline_ns, const volatile sig_atomic_t *stop)
{
        for (;;) {
                struct pollfd pf[MAX_CLIENTS];
                unsigned map[MAX_CLIENTS], np = 0;
                char err[512];

                for (unsigned i = 0; i < n; i++) {
                        struct dp_msg m;
                        int rc = 0;
                        /* not past done: the next point's ready stays queued for it */
                        while (!cl[i].lost && !done(&cl[i]) &&
                               (rc = dp_carrier_next(cl[i].car, &m, err, sizeof(err))) == 1)
                                on_msg(&cl[i], &m, k);
                        if (!cl[i].lost && rc < 0)
                                lose(&cl[i], err);
                        if (!cl[i].lost && !done(&cl[i]) && dp_carrier_out_fd(cl[i].car) < 0)
                                lose(&cl[i], "its output ended");
                        if (cl[i].lost || done(&cl[i]))
                                continue;
                        pf[np] =
                            (struct pollfd){.fd = dp_carrier_out_fd(cl[i].car), .events = POLLIN};
                        map[np++] = i;
                }
                if (!np)
                        return 0;
                if (stop && *stop)
                        return -EINTR;
                if (deadline_ns && dp_real_ns() > deadline_ns) {
                        for (unsigned j = 0; j < np; j++)
                                lose(&cl[map[j]], "no answer in time");
                        return 0;
                }
                if (poll(pf, np, 200) < 0 && errno != EINTR)
                        return -errno;
                for (unsigned j = 0; j < np; j++)
                        if (pf[j].revents)
                                dp_carrier_fill(cl[map[j]].car);
        }
}

static int is_ready(const struct client *c)
{
        return c->ready;
}

static int has_result(const struct client *c)
{
        return c->point != NULL;
}

/* The aggregate of point k from every client. */
static json_t *aggregate(const struct blk_clients_plan *p, struct client *cl, unsigned n,
                         int64_t go_ns, char *err, size_t errlen)
{
        struct blk_client_point cp[MAX_CLIENTS];

        for (unsigned i = 0; i < n; i++) {
                const struct client *c = &cl[i];
                double st = (double)(c->started ? c->started_ns : go_ns) / 1e9 + p->ramp_s;
                json_t *rt = json_object_get(c->point, "runtime_s");
                cp[i] = (struct blk_client_point){
                    .name = c->name,
                    .where = "local",
                    .host = "localhost",
                    .targets = c->tj,
                    .point = c->point,
                    .start_s = st,
                    .end_s = st + (json_is_number(rt) ? json_number_value(rt) : p->runtime_s),
                    .skew_ms = c->started ? (double)(c->started_ns - go_ns) / 1e6 : 0,
                    .error = c->error[0] ? c->error : NULL,
                };
        }
        return blk_clients_aggregate(cp, n, p->runtime_s, p->pcts, p->npct, p->stonewall_last, err,
                                     errlen);
}

/* One point: every client ready, one go, every result. */
static int run_point(const struct blk_clients_plan *p, struct client *cl, unsigned n, unsigned k,
                     blk_clients_point_cb cb, void *user, int *degraded, char *err, size_t errlen)
{
        char why[256];
        int rc = wait_all(cl, n, k, is_ready, 0, p->stop);
        unsigned live = 0;

        for (unsigned i = 0; i < n; i++) {
                if (k == 0 && cl[i].lost) {
                        snprintf(err, errlen, "client %s could not start: %s", cl[i].name,
                                 cl[i].error);
                        return -EHOSTUNREACH;
                }
                if (!cl[i].lost && cl[i].ready &&
                    dp_carrier_measure(cl[i].car, 2000, why, sizeof(why)) < 0)
                        lose(&cl[i], why);
                live += !cl[i].lost;
        }
        if (rc < 0)
                return rc;
        if (!live) {
                snprintf(err, errlen, "every client was lost");
                return -EHOSTUNREACH;
        }
        int64_t go = dp_real_ns() + GO_AHEAD_MS * 1000000ll;
        for (unsigned i = 0; i < n; i++) {
                struct dp_msg m = {.kind = DP_GO, .point = k, .ns = go};
                if (!cl[i].lost && dp_carrier_send(cl[i].car, &m, why, sizeof(why)) < 0)
                        lose(&cl[i], why);
        }
        int64_t end = go + (int64_t)((p->ramp_s + p->runtime_s + p->io_timeout_s + 30) * 1e9);
        rc = wait_all(cl, n, k, has_result, end, p->stop);
        if (rc == -EINTR) { /* every client stops as on SIGINT and gives what it measured */
                for (unsigned i = 0; i < n; i++)
                        dp_carrier_close_input(cl[i].car);
                wait_all(cl, n, k, has_result, dp_real_ns() + STOP_WAIT_MS * 1000000ll, NULL);
        }
        for (unsigned i = 0; i < n; i++)
                if (!cl[i].point) {
                        *degraded = 1;
                        if (!cl[i].error[0])
                                snprintf(cl[i].error, sizeof(cl[i].error), "gave no result");
                }
        json_t *agg = aggregate(p, cl, n, go, err, errlen);
        if (agg) {
                cb(user, k, agg);
                json_decref(agg);
        }
        for (unsigned i = 0; i < n; i++) {
                json_decref(cl[i].point);
                cl[i].point = NULL;
                cl[i].ready = cl[i].started = 0;
        }
        if (rc == -EINTR)
                return rc;
        return agg ? 0 : -EHOSTUNREACH;
}

/* End every client's input and reap it; one still there after a while is killed. */
static void stop_all(struct client *cl, unsigned n)
{
        char err[256];

        for (unsigned i = 0; i < n; i++)
                dp_carrier_close_input(cl[i].car);
        for (unsigned i = 0; i < n; i++) {
                if (cl[i].pid > 0 && !proc_wait_gone(cl[i].pid, 5000))
                        proc_stop(cl[i].pid, NULL, SIGTERM, 2000, err, sizeof(err));
                dp_carrier_free(cl[i].car);
                json_decref(cl[i].tj);
                json_decref(cl[i].point);
        }
}

int blk_clients_run(const struct blk_clients_plan *p, blk_clients_point_cb cb, void *user,
                    int *degraded, char *err, size_t errlen)
{
        int n = blk_clients_count(p->spec, err, errlen), rc = 0;
        const char *list = p->target_list ? p->target_list : p->file_list;
        struct client *cl;

        *degraded = 0;
        if (n < 0)
                return n;
        if (!list) {
                snprintf(err, errlen, "option --clients: needs --target or --filename");
                return -EINVAL;
        }
        if (!(cl = calloc((size_t)n, sizeof(*cl))))
                return -ENOMEM;
        for (int i = 0; i < n && rc == 0; i++) {
                snprintf(cl[i].name, sizeof(cl[i].name), "c%d", i + 1);
                cl[i].pid = -1;
                if (!(cl[i].tj = json_array()))
                        rc = -ENOMEM;
                else if ((rc = deal(list, (unsigned)i, (unsigned)n, cl[i].targets,
                                    sizeof(cl[i].targets), cl[i].tj)) < 0)
                        snprintf(err, errlen, "option --clients: client %s's targets: %s",
                                 cl[i].name, strerror(-rc));
                else
                        rc = start_client(p, &cl[i], err, errlen);
        }
        for (unsigned k = 0; rc == 0 && k < p->npoints; k++)
                rc = run_point(p, cl, (unsigned)n, k, cb, user, degraded, err, errlen);
        stop_all(cl, (unsigned)n);
        free(cl);
        return rc;
}
