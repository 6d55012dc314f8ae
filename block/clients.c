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
#include "core/steady_merge.h"
#include "lab/inventory.h"
#include "lab/labopts.h"
#include "lab/proc.h"
#include "lab/ssh.h"
#include "block/clients.h"
#include "block/clients_agg.h"
#include "block/clients_hosts.h"
#include "block/clients_vms.h"

#define MAX_CLIENTS  256
#define GO_AHEAD_MS  200   /* the go instant: this far ahead, so every client gets it in time */
#define STOP_WAIT_MS 15000 /* after an interrupt: how long to wait for the partial results */

/* Options the controller keeps to itself: a client gets the rest of the user's argv. */
static const char *const controller_only[] = {
    "clients",       "client-counts", "stonewall", "per-client",  "clients-optional",
    "json",          "output-dir",    "target",    "filename",    "metrics-listen",
    "quiet",         "output-format", "no-index",  "start-on-go", "vms",
    "steady-remote", "target-ci",     NULL}; /* and every lab option (labopts.h): --clients vms
                                                finds its lab with them */
/* ... and of those, the ones that take no value (the others may take the next word) */
static const char *const controller_bools[] = {
    "per-client", "clients-optional", "quiet", "no-index", "start-on-go", "steady-remote", NULL};

struct client {
        char name[64];
        char host[HOSTPORT_HOST_MAX]; /* where it runs: "localhost", or its ssh host */
        int remote;                   /* over ssh (d) */
        struct lab_ssh d;
        const char *where;       /* clients[].where: "local", "ssh", or a VM's */
        struct blk_vm_client vc; /* --clients vms: the VM (vc.vm > 0) */
        struct blk_vms *lab;     /* ... and the lab that spawns it */
        char targets[4096];      /* its comma list */
        json_t *tj;              /* its targets as an array */
        pid_t pid;
        struct dp_carrier *car;
        int ready, started, lost;
        int missing; /* --clients-optional: unreachable before the first point, not started */
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

/* One of the controller's own options (the n bytes at s): 1, and *bool when it takes no value. */
static int controller_opt(const char *s, size_t n, int *bool_opt)
{
        *bool_opt = in_list(controller_bools, s, n);
        if (in_list(controller_only, s, n))
                return 1;
        for (const struct opt_def *d = lab_opts; d->name; d++)
                if (strlen(d->name) == n && !strncmp(d->name, s, n)) {
                        *bool_opt = d->type == OPT_BOOL;
                        return 1;
                }
        return 0;
}

int blk_clients_count(const char *spec, char *err, size_t errlen)
{
        char why[128];
        uint64_t n;

        if (spec && (!strcmp(spec, "inventory") || !strcmp(spec, "vms")))
                return 0;
        if (!spec || strncmp(spec, "local:", 6) != 0) {
                snprintf(err, errlen, "option --clients: '%s' is not local:N, vms or inventory",
                         spec ? spec : "");
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

/* c's targets as --target=URLS and/or --filename=PATHS into t (two words of 4200). */
static int target_words(const struct client *c, char t[2][4200], char **a, int n)
{
        size_t used[2] = {0, 0};
        size_t i;
        json_t *v;

        t[0][0] = t[1][0] = 0;
        json_array_foreach(c->tj, i, v)
        {
                const char *w = json_string_value(v);
                int k = strncmp(w, "iscsi://", 8) != 0;
                int m = snprintf(t[k] + used[k], 4200 - used[k], "%s%s",
                                 used[k] ? "," : (k ? "--filename=" : "--target="), w);
                if (m < 0 || (size_t)m >= 4200 - used[k])
                        return -ENAMETOOLONG;
                used[k] += (size_t)m;
        }
        for (int k = 0; k < 2; k++)
                if (used[k])
                        a[n++] = t[k];
        return n;
}

/* The argv of client c: this binary, block, the user's options, its targets, --start-on-go. */
static char **client_argv(const struct blk_clients_plan *p, const struct client *c, char *self,
                          char tgt[2][4200])
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
                int is_bool;
                if (!controller_opt(w + 2, len, &is_bool)) {
                        a[n++] = (char *)w;
                        continue;
                }
                if (!eq && !is_bool && i + 1 < p->argc)
                        i++; /* its value */
        }
        if ((n = target_words(c, tgt, a, n)) < 0) {
                free(a);
                return NULL;
        }
        a[n++] = "--start-on-go";
        if (p->target_ci_pct > 0 || p->steered) /* the window is told (point_ci below) */
                a[n++] = "--steady-remote";
        a[n++] = "--quiet";
        a[n] = NULL;
        return a;
}

static int start_client(const struct blk_clients_plan *p, struct client *c, char *err,
                        size_t errlen)
{
        char self[4096], tgt[2][4200];
        int in[2], out[2], rc;
        char **argv = client_argv(p, c, self, tgt);
        struct lab_ssh_cmd sc = {0};

        dp_self_exe(self, sizeof(self));
        if (!argv)
                return -ENOMEM;
        if (c->remote) { /* ssh ... -- 'hcisweep' 'block' ...: the same words, there */
                rc = lab_ssh_cmd_build(&sc, &c->d, (const char *const *)argv);
                free(argv);
                if (rc < 0) {
                        lab_ssh_cmd_free(&sc);
                        return rc;
                }
                argv = NULL;
        }
        if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) {
                rc = -errno;
                snprintf(err, errlen, "%s: pipe: %s", c->name, strerror(errno));
                free(argv);
                return rc;
        }
        int stdio[2] = {in[0], out[1]};
        if (c->vc.vm) /* in its VM, as scale's drivers are (the backend's spawn op) */
                rc = blk_vms_spawn(c->lab, &c->vc, argv, stdio, &c->pid, err, errlen);
        else
                rc = proc_spawn_io(&(struct proc_spawn){argv ? argv : sc.argv, NULL, NULL, NULL},
                                   stdio, 1, &c->pid, err, errlen);
        free(argv);
        lab_ssh_cmd_free(&sc);
        close(in[0]);
        close(out[1]);
        if (rc < 0) {
                close(in[1]);
                close(out[0]);
                c->pid = -1;
                return rc;
        }
        char who[96];
        snprintf(who, sizeof(who), "client %s", c->name);
        /* one on another host or in a guest is asked for its clock; one here shares ours */
        c->car = dp_carrier_new(c->vc.carrier               ? c->vc.carrier
                                : c->remote || c->vc.remote ? &dp_carrier_ssh
                                                            : &dp_carrier_pipe,
                                NULL, in[1], out[0], who);
        return c->car ? 0 : -ENOMEM;
}

/* Mark c lost (once) with why, and end its input so it stops. */
static void lose(struct client *c, const char *why)
{
        if (c->lost)
                return;
        c->lost = 1;
        snprintf(c->error, sizeof(c->error), "lost: %.300s", why);
        log_error("client %s %s", c->name, c->error);
        dp_carrier_close_input(c->car);
        if (c->pid > 0)
                proc_stop(c->pid, NULL, SIGTERM, 2000, (char[128]){0}, 128);
        c->pid = -1;
}

/*
 * A point whose window is told: by --target-ci's rule on the merged IOPS
 * series of its clients (core/steady_merge.h), steered from the
 * controller (each client's samples go in), or by the caller's orders on
 * steer_fd (p->steered). Either way "measure" and "stop" go out to every
 * client still there, and the instants they were sent are the window.
 */
struct point_ci {
        struct steady_merge *sm; /* the rule; NULL when steered */
        int steer_fd;            /* the caller's orders (p->steered); -1 none, or at their end */
        enum steady_phase told;
        struct client *cl;
        unsigned n;
        int64_t go_ns;            /* the point's go, controller's clock */
        double measure_s, stop_s; /* when each order went out, seconds since the go; < 0 not yet */
};

/* One message from c (client i), handled for point k (ci: its rule, or NULL). */
static void on_msg(struct client *c, const struct dp_msg *m, unsigned k, struct point_ci *ci,
                   unsigned i)
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
        case DP_SAMPLE:
                if (ci && ci->sm)
                        steady_merge_sample(ci->sm, i, m->t_s, m->done);
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

/* ci's order to every client still there */
static void tell_clients(void *arg, enum dp_kind kind)
{
        struct point_ci *ci = arg;
        struct dp_msg m = {.kind = kind};
        char why[256];
        double t = (double)(dp_real_ns() - ci->go_ns) / 1e9;

        *(kind == DP_MEASURE ? &ci->measure_s : &ci->stop_s) = t;
        for (unsigned i = 0; i < ci->n; i++)
                if (!ci->cl[i].lost && !ci->cl[i].point &&
                    dp_carrier_send(ci->cl[i].car, &m, why, sizeof(why)) < 0)
                        lose(&ci->cl[i], why);
}

/* ci's rule on what came in: a client lost or done is not waited for. */
static void steer(struct point_ci *ci)
{
        if (!ci->sm)
                return;
        for (unsigned i = 0; i < ci->n; i++)
                if (ci->cl[i].lost || ci->cl[i].point)
                        steady_merge_gone(ci->sm, i);
        steady_merge_steer(ci->sm, &ci->told, tell_clients, ci);
}

/* The caller's orders on ci->steer_fd: 'm' measure, 's' stop (so does the pipe's end);
 * each is passed on once, as it comes. */
static void read_orders(struct point_ci *ci)
{
        char b[16];
        ssize_t r = read(ci->steer_fd, b, sizeof(b));

        if (r < 0 && (errno == EINTR || errno == EAGAIN))
                return;
        if (r <= 0) { /* the caller is gone: the window closes */
                ci->steer_fd = -1;
                b[0] = 's';
                r = 1;
        }
        for (ssize_t i = 0; i < r; i++) {
                if (b[i] == 'm' && ci->measure_s < 0 && ci->stop_s < 0)
                        tell_clients(ci, DP_MEASURE);
                else if (b[i] == 's' && ci->stop_s < 0)
                        tell_clients(ci, DP_STOP);
        }
}

/* Poll every live client until done(c) holds for all, or the deadline (0: none), or stop;
 * ci, when not NULL, is steered on every round. */
static int wait_all(struct client *cl, unsigned n, unsigned k, int (*done)(const struct client *),
                    int64_t deadline_ns, const volatile sig_atomic_t *stop, struct point_ci *ci)
{
        for (;;) {
                struct pollfd pf[MAX_CLIENTS + 1]; /* and the orders, when steered */
                unsigned map[MAX_CLIENTS], np = 0;
                char err[512];

                for (unsigned i = 0; i < n; i++) {
                        struct dp_msg m;
                        int rc = 0;
                        /* not past done: the next point's ready stays queued for it */
                        while (!cl[i].lost && !done(&cl[i]) &&
                               (rc = dp_carrier_next(cl[i].car, &m, err, sizeof(err))) == 1)
                                on_msg(&cl[i], &m, k, ci, i);
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
                if (ci)
                        steer(ci);
                if (!np)
                        return 0;
                if (stop && *stop)
                        return -EINTR;
                if (deadline_ns && dp_real_ns() > deadline_ns) {
                        for (unsigned j = 0; j < np; j++)
                                lose(&cl[map[j]], "no answer in time");
                        return 0;
                }
                int steering = ci && ci->steer_fd >= 0;
                if (steering)
                        pf[np] = (struct pollfd){.fd = ci->steer_fd, .events = POLLIN};
                if (poll(pf, np + (unsigned)steering, 200) < 0 && errno != EINTR)
                        return -errno;
                for (unsigned j = 0; j < np; j++)
                        if (pf[j].revents)
                                dp_carrier_fill(cl[map[j]].car);
                if (steering && pf[np].revents)
                        read_orders(ci);
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
                json_t *rt = json_object_get(c->point, "runtime_s");
                json_t *ramp = json_object_get(c->point, "ramp_s"); /* the ramp it really had */
                double st = (double)(c->started ? c->started_ns : go_ns) / 1e9 +
                            (json_is_number(ramp) ? json_number_value(ramp) : p->ramp_s);
                cp[i] = (struct blk_client_point){
                    .name = c->name,
                    .where = c->where,
                    .carrier = c->car ? dp_carrier_name(c->car) : NULL,
                    .host = c->host,
                    .targets = c->tj,
                    .point = c->point,
                    .start_s = st,
                    .end_s = st + (json_is_number(rt) ? json_number_value(rt) : p->runtime_s),
                    .go_s = (double)go_ns / 1e9,
                    .skew_ms = c->started ? (double)(c->started_ns - go_ns) / 1e6 : 0,
                    .error = c->error[0] ? c->error : NULL,
                };
        }
        return blk_clients_aggregate(cp, n, p->runtime_s, p->pcts, p->npct, p->stonewall_last, err,
                                     errlen);
}

/* The told window: window_s{start, end}, seconds after the go in this clock when each order
 * went out (null: it never did). */
static json_t *window_json(const struct point_ci *ci)
{
        return json_pack("{s:o,s:o}", "start",
                         ci->measure_s >= 0 ? json_real(ci->measure_s) : json_null(), "end",
                         ci->stop_s >= 0 ? json_real(ci->stop_s) : json_null());
}

/* --target-ci: the longest warm-up, as a one-process point has it (block/run.c) */
static double ci_warmup_max(const struct blk_clients_plan *p)
{
        return p->ramp_s > 0 ? p->ramp_s : p->runtime_s / 2;
}

/*
 * The point's "steady", as a one-process point records it (steady_to_json),
 * plus the window the rule chose: window_s{start, end}, seconds after the
 * go in the controller's clock (null: that order never went out); clients,
 * how many fed the merged series up to its end; and stonewall, which of the
 * point's two windows the rule's is: "first" when every client ran
 * through it (all were told at once), "last" when one was lost on the way
 * and the series went on with the others.
 */
static json_t *ci_json(const struct point_ci *ci)
{
        struct steady_res r;
        unsigned fed = 0;
        json_t *j;

        for (unsigned i = 0; i < ci->n; i++)
                fed += ci->cl[i].point && !ci->cl[i].lost;
        steady_merge_result(ci->sm, &r, NULL);
        if (!(j = steady_to_json(&r)))
                return NULL;
        json_object_set_new(j, "window_s", window_json(ci));
        json_object_set_new(j, "clients", json_integer(fed));
        json_object_set_new(j, "stonewall", json_string(fed == ci->n ? "first" : "last"));
        return j;
}

/* One point: every client ready, one go, every result. */
static int run_point(const struct blk_clients_plan *p, struct client *cl, unsigned n, unsigned k,
                     struct blk_hosts *hosts, blk_clients_point_cb cb, void *user, int *degraded,
                     char *err, size_t errlen)
{
        char why[256];
        int rc = wait_all(cl, n, k, is_ready, 0, p->stop, NULL);
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
        struct point_ci ci = {.cl = cl,
                              .n = n,
                              .go_ns = go,
                              .measure_s = -1,
                              .stop_s = -1,
                              .steer_fd = p->steered ? p->steer_fd : -1};
        double warm = ci_warmup_max(p);
        int told = p->steered || p->target_ci_pct > 0;
        if (!p->steered && p->target_ci_pct > 0 &&
            !(ci.sm = steady_merge_new(n, p->target_ci_pct, warm, p->runtime_s)))
                return errf(err, errlen, -ENOMEM, "out of memory");
        for (unsigned i = 0; i < n; i++) {
                struct dp_msg m = {.kind = DP_GO, .point = k, .ns = go};
                if (!cl[i].lost && dp_carrier_send(cl[i].car, &m, why, sizeof(why)) < 0)
                        lose(&cl[i], why);
        }
        blk_hosts_begin(hosts, GO_AHEAD_MS / 1e3 + p->ramp_s,
                        p->runtime_s); /* the measured window */
        int64_t end =
            go + (int64_t)(((told ? warm : p->ramp_s) + p->runtime_s + p->io_timeout_s + 30) * 1e9);
        rc = wait_all(cl, n, k, has_result, end, p->stop, told ? &ci : NULL);
        if (rc == -EINTR) { /* every client stops as on SIGINT and gives what it measured */
                for (unsigned i = 0; i < n; i++)
                        dp_carrier_close_input(cl[i].car);
                wait_all(cl, n, k, has_result, dp_real_ns() + STOP_WAIT_MS * 1000000ll, NULL, NULL);
        }
        for (unsigned i = 0; i < n; i++)
                if (!cl[i].point) {
                        *degraded = 1;
                        if (!cl[i].error[0])
                                snprintf(cl[i].error, sizeof(cl[i].error), "gave no result");
                }
        json_t *agg = aggregate(p, cl, n, go, err, errlen), *cluster = blk_hosts_end(hosts);
        if (agg && cluster)
                json_object_set(agg, "cluster", cluster);
        json_decref(cluster);
        if (agg && ci.sm)
                json_object_set_new(agg, "steady", ci_json(&ci));
        else if (agg && p->steered)
                json_object_set_new(agg, "window_s", window_json(&ci));
        steady_merge_free(ci.sm);
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
                if (cl[i].car) /* NULL: never started */
                        dp_carrier_close_input(cl[i].car);
        for (unsigned i = 0; i < n; i++) {
                if (cl[i].pid > 0 && !proc_wait_gone(cl[i].pid, 5000))
                        proc_stop(cl[i].pid, NULL, SIGTERM, 2000, err, sizeof(err));
                dp_carrier_free(cl[i].car);
                json_decref(cl[i].point);
                /* ready to start again (the next client count) */
                cl[i].car = NULL;
                cl[i].point = NULL;
                cl[i].pid = -1;
                cl[i].lost = cl[i].ready = cl[i].started = 0;
                cl[i].error[0] = 0;
        }
}

/* ---- --clients inventory: the [host NAME] sections with role = client ---------- */

/* The inventory's clients (lab/inventory.h reads it) into cl (max of them): their count, or
 * -errno with err. */
static int read_inventory(const char *path, struct client *cl, unsigned max, char *err,
                          size_t errlen)
{
        struct lab_inv_client *ic = calloc(max, sizeof(*ic));
        int n = ic ? lab_inventory_clients(path, ic, max, err, errlen) : -ENOMEM;

        for (int i = 0; i < n; i++) {
                struct client *c = &cl[i];
                memset(c, 0, sizeof(*c));
                snprintf(c->name, sizeof(c->name), "%s", ic[i].name);
                c->d = ic[i].ssh;
                snprintf(c->host, sizeof(c->host), "%s", c->d.host);
                c->remote = 1;
                c->where = "ssh";
                c->pid = -1;
                if (!(c->tj = json_array()) ||
                    deal(ic[i].targets, 0, 1, c->targets, sizeof(c->targets), c->tj) < 0) {
                        for (int j = 0; j <= i; j++)
                                json_decref(cl[j].tj);
                        n = errf(err, errlen, -ENOMEM, "%s: [host %s]: out of memory", path,
                                 ic[i].name);
                }
        }
        free(ic);
        return n;
}

/* ---- --clients vms: the lab's VMs (clients_vms.h) ---------------------------- */

/* The lab's VMs as clients into cl (max of them), *lab kept open to spawn them: their
 * count, or -errno with err. */
static int read_vms(const struct blk_clients_plan *p, struct client *cl, unsigned max,
                    struct blk_vms **lab, char *err, size_t errlen)
{
        struct blk_vm_client *vc = calloc(max, sizeof(*vc));
        int n;

        if ((!p->lab_spec && !p->lab_b) || !p->lab_ops) {
                free(vc);
                return errf(err, errlen, -EINVAL, "option --clients vms: no lab given");
        }
        n = vc ? blk_vms_open(p->lab_spec, p->lab_ops, p->lab_b, p->vms, lab, vc, max, err, errlen)
               : -ENOMEM;
        for (int i = 0; i < n; i++) {
                struct client *c = &cl[i];
                memset(c, 0, sizeof(*c));
                c->vc = vc[i];
                c->lab = *lab;
                snprintf(c->name, sizeof(c->name), "%s", vc[i].name);
                /* a VM host name longer than a host name can be is cut, never overrun */
                snprintf(c->host, sizeof(c->host), "%.*s", (int)sizeof(c->host) - 1, vc[i].host);
                c->where = c->vc.where;
                c->pid = -1;
                if (!(c->tj = json_array()) ||
                    deal(vc[i].target, 0, 1, c->targets, sizeof(c->targets), c->tj) < 0) {
                        for (int j = 0; j <= i; j++)
                                json_decref(cl[j].tj);
                        n = errf(err, errlen, -ENOMEM, "client %s: out of memory", c->name);
                }
        }
        free(vc);
        return n;
}

/* c is missing (--clients-optional): warned about and recorded, never started. */
static void set_missing(const struct blk_clients_plan *p, struct client *c, const char *why)
{
        c->missing = 1;
        snprintf(c->error, sizeof(c->error), "missing: %.300s", why);
        log_warn("client %s (%s) is missing: %s", c->name, c->host, why);
        if (p->missing)
                json_array_append_new(p->missing, json_pack("{s:s,s:s,s:s}", "name", c->name,
                                                            "host", c->host, "error", why));
}

/* The clients left when the missing are taken out, in their order: their number. */
static unsigned drop_missing(struct client *cl, unsigned n)
{
        unsigned m = 0;

        for (unsigned i = 0; i < n; i++) {
                if (cl[i].missing) {
                        json_decref(cl[i].tj);
                        continue;
                }
                if (m != i)
                        cl[m] = cl[i];
                m++;
        }
        return m;
}

/* Every ssh destination answers with this version, before anything starts (with
 * p->optional one that does not is missing, and *n becomes the clients left): 0 or -errno. */
static int check_remote(const struct blk_clients_plan *p, struct client *cl, unsigned *n, char *err,
                        size_t errlen)
{
        char why[700];
        unsigned m, all = *n;

        for (unsigned i = 0; i < all; i++) {
                if (!cl[i].remote)
                        continue;
                int rc = lab_ssh_check_version(&cl[i].d, HCISWEEP_VERSION, 20, p->stop, why,
                                               sizeof(why));
                if (rc < 0 && (rc == -EINTR || !p->optional)) {
                        snprintf(err, errlen, "client %s: %s", cl[i].name, why);
                        return rc == -EINTR ? rc : -EHOSTUNREACH;
                }
                if (rc < 0)
                        set_missing(p, &cl[i], why);
        }
        *n = m = drop_missing(cl, all);
        if (!m)
                return errf(err, errlen, -EHOSTUNREACH, "every client is missing");
        for (unsigned j = 0; j < p->ncounts; j++)
                if (p->counts[j] > m)
                        return errf(err, errlen, -EHOSTUNREACH,
                                    "option --client-counts: %u clients, but %u of %u are "
                                    "reachable",
                                    p->counts[j], m, all);
        return 0;
}

static void free_clients(struct client *cl, int n)
{
        for (int i = 0; i < n; i++)
                json_decref(cl[i].tj);
        free(cl);
}

/* The clients of p, named, with their targets, and the counts checked: their number, or
 * -errno. With lab NULL (a check, nothing opened) the VMs of --clients vms are not read:
 * 0 of them. */
static int make_clients(const struct blk_clients_plan *p, struct client **out, struct blk_vms **lab,
                        char *err, size_t errlen)
{
        int n = blk_clients_count(p->spec, err, errlen), rc = 0;
        const char *list = p->target_list ? p->target_list : p->file_list;
        int vms = n == 0 && !strcmp(p->spec, "vms");
        struct client *cl;

        if (n < 0)
                return n;
        if (vms && !lab) {
                *out = NULL;
                return 0;
        }
        if (n == 0 && !vms && !p->inventory) {
                snprintf(err, errlen, "option --clients: inventory needs --inventory FILE");
                return -EINVAL;
        }
        if (!(cl = calloc(n ? (size_t)n : MAX_CLIENTS, sizeof(*cl))))
                return -ENOMEM;
        if (vms)
                n = read_vms(p, cl, MAX_CLIENTS, lab, err, errlen);
        else if (n == 0)
                n = read_inventory(p->inventory, cl, MAX_CLIENTS, err, errlen);
        if (n < 0) {
                free(cl);
                return n;
        }
        for (int i = 0; i < n && rc == 0; i++) {
                if (!cl[i].remote && !cl[i].vc.vm) {
                        snprintf(cl[i].name, sizeof(cl[i].name), "c%d", i + 1);
                        cl[i].where = "local";
                        snprintf(cl[i].host, sizeof(cl[i].host), "localhost");
                        cl[i].pid = -1;
                        if (!(cl[i].tj = json_array()))
                                rc = -ENOMEM;
                }
                if (rc == 0 && !json_array_size(cl[i].tj) && !list) {
                        snprintf(err, errlen,
                                 "client %s: no targets (targets = in its section, or "
                                 "--target/--filename to deal)",
                                 cl[i].name);
                        rc = -EINVAL;
                } else if (rc == 0 && !json_array_size(cl[i].tj) &&
                           (rc = deal(list, (unsigned)i, (unsigned)n, cl[i].targets,
                                      sizeof(cl[i].targets), cl[i].tj)) < 0)
                        snprintf(err, errlen, "option --clients: client %s's targets: %s",
                                 cl[i].name, strerror(-rc));
        }
        for (unsigned j = 0; rc == 0 && j < p->ncounts; j++)
                if (p->counts[j] < 1 || p->counts[j] > (unsigned)n) {
                        snprintf(err, errlen, "option --client-counts: %u clients, but %d %s",
                                 p->counts[j], n, n == 1 ? "is given" : "are given");
                        rc = -EINVAL;
                }
        if (rc < 0) {
                free_clients(cl, n);
                return rc;
        }
        *out = cl;
        return n;
}

int blk_clients_check(const struct blk_clients_plan *p, char *err, size_t errlen)
{
        struct client *cl = NULL;
        int n = make_clients(p, &cl, NULL, err, errlen);

        if (n < 0)
                return n;
        free_clients(cl, n);
        return 0;
}

int blk_clients_run(const struct blk_clients_plan *p, blk_clients_point_cb cb, void *user,
                    int *degraded, char *err, size_t errlen)
{
        struct client *cl = NULL;
        struct blk_hosts *hosts = NULL;
        struct blk_vms *lab = NULL;
        int n = make_clients(p, &cl, &lab, err, errlen), rc = 0;

        *degraded = 0;
        if (n < 0) {
                blk_vms_close(lab);
                return n;
        }
        unsigned left = (unsigned)n;
        rc = check_remote(p, cl, &left, err, errlen);
        n = (int)left; /* the missing ones are out (and freed) */
        if (rc == 0 && !p->no_hosts) {
                struct blk_hosts_cfg hc = {.inventory = p->inventory,
                                           .spec = p->lab_spec,
                                           .lab_ops = lab ? p->lab_ops : NULL,
                                           .lab_b = blk_vms_lab(lab),
                                           .local_clients = !cl[0].remote,
                                           .interval_s = p->host_interval_s};
                rc = blk_hosts_open(&hosts, &hc, err, errlen);
        }
        /* each count: its first N clients started, the sweep, every one of them stopped */
        for (unsigned j = 0; rc == 0 && j < (p->ncounts ? p->ncounts : 1); j++) {
                unsigned m = p->ncounts ? p->counts[j] : (unsigned)n;
                for (unsigned i = 0; i < m && rc == 0; i++)
                        rc = start_client(p, &cl[i], err, errlen);
                for (unsigned k = 0; rc == 0 && k < p->npoints; k++)
                        rc = run_point(p, cl, m, k, hosts, cb, user, degraded, err, errlen);
                stop_all(cl, m);
        }
        blk_hosts_close(hosts);
        free_clients(cl, n);
        blk_vms_close(lab);
        return rc;
}
