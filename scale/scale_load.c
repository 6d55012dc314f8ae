/*
 * scale_load.c - the block load of `hcisweep scale --block-load`: one block point
 * on every VM's LUN, in a thread of its own, over the same warm-up and
 * measured seconds as the OLTP run, so the storage serves databases and
 * block I/O at once, as it does in a hyperconverged cluster.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block/clients.h"
#include "block/engine.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/parse.h"
#include "core/resfile.h"
#include "lab/backend.h"
#include "scale/scale_load.h"

/* Stopping a point that has less than this left would only cut its last interval. */
#define LOAD_GRACE_NS 250000000ull
/* A told window's bounds in the VMs, past the OLTP run's longest warm-up: its drivers may
 * take this long to be ready (scale_drivers.c, 120 s) and their own slack after the go. */
#define TOLD_SLACK_S 130
/* Told to stop, the VMs' clients give their results within this; past it they are stopped
 * as on Ctrl-C (what they measured still counts). */
#define STOP_GRACE_S 30

struct scale_load {
        struct scale_load_spec sp;
        struct blk_target_spec *t;
        char **urls;
        unsigned n;
        struct blk_run *run;
        int reopen; /* a failed point, or an interrupt that abandoned I/Os, ends the run */
        pthread_t th;
        int running;
        uint64_t end_ns;               /* when the point in flight ends by itself */
        int told;                      /* its window is told: scale_load_measure, scale_load_stop */
        _Atomic int measured, stopped; /* ... and was (each once a point) */
        _Atomic int done;              /* the point in flight returned */
        int64_t measure_ms, stop_ms;   /* when (clk_real_ms; 0: not yet) */
        struct blk_point_spec p;
        struct blk_point_result res;
        int rc;
        /* --driver-placement vm: a block client in each VM (block/clients.h), not blk_run */
        const struct lab_backend_ops *ops; /* NULL: the load runs here */
        struct lab_backend *b;
        unsigned nvms;
        long long ramp_s, run_s; /* the clients' whole seconds */
        int orders[2];           /* told: the pipe the VMs' clients are steered by; -1 */
        volatile sig_atomic_t vstop;
        json_t *agg; /* the point's aggregate, once the clients gave it */
        char verr[512];
};

const char *scale_load_rw_name(enum blk_rw rw)
{
        return blk_rw_names[rw];
}

static int load_num(const char *key, const char *val, int size, uint64_t min, uint64_t max,
                    uint64_t *out, char *err, size_t errlen)
{
        char why[200];
        int rc =
            size ? parse_size(val, out, why, sizeof(why)) : parse_u64(val, out, why, sizeof(why));

        if (rc < 0) {
                snprintf(err, errlen, "option --block-load: %s: %s", key, why);
                return -EINVAL;
        }
        if (*out < min || *out > max) {
                snprintf(err, errlen, "option --block-load: %s: %s is out of range %llu..%llu", key,
                         val, (unsigned long long)min, (unsigned long long)max);
                return -EINVAL;
        }
        return 0;
}

static int load_rw(const char *val, struct scale_load_spec *sp, char *err, size_t errlen)
{
        for (unsigned i = 0; blk_rw_names[i]; i++)
                if (!strcmp(val, blk_rw_names[i])) {
                        sp->rw = (enum blk_rw)i;
                        return 0;
                }
        snprintf(err, errlen,
                 "option --block-load: rw: '%s' is not randread, randwrite, randrw, read or write",
                 val);
        return -EINVAL;
}

static int load_key(char *item, struct scale_load_spec *sp, char *err, size_t errlen)
{
        char *val = strchr(item, '=');
        uint64_t v;
        int rc;

        if (!val) {
                snprintf(err, errlen, "option --block-load: '%s' is not KEY=VALUE", item);
                return -EINVAL;
        }
        *val++ = '\0';
        if (!strcmp(item, "rw"))
                return load_rw(val, sp, err, errlen);
        if (!strcmp(item, "bs")) {
                rc = load_num(item, val, 1, 512, 64 << 20, &v, err, errlen);
                if (!rc && v % 512) {
                        snprintf(err, errlen,
                                 "option --block-load: bs: %s is not a multiple of 512", val);
                        rc = -EINVAL;
                }
                sp->bs = (uint32_t)v;
        } else if (!strcmp(item, "iodepth")) {
                rc = load_num(item, val, 0, 1, 4096, &v, err, errlen);
                sp->iodepth = (unsigned)v;
        } else if (!strcmp(item, "rwmixread")) {
                rc = load_num(item, val, 0, 0, 100, &v, err, errlen);
                sp->rwmixread = (unsigned)v;
        } else if (!strcmp(item, "numjobs")) {
                rc = load_num(item, val, 0, 1, 256, &v, err, errlen);
                sp->numjobs = (unsigned)v;
        } else {
                snprintf(err, errlen,
                         "option --block-load: unknown key '%s' (rw, bs, iodepth, rwmixread, "
                         "numjobs)",
                         item);
                rc = -EINVAL;
        }
        return rc;
}

int scale_load_parse(const char *text, struct scale_load_spec *sp, char *err, size_t errlen)
{
        char *copy = strdup(text), *save = NULL;
        int rc = 0;

        *sp = (struct scale_load_spec){1, BLK_RW_RANDRW, 4096, 4, 70, 1};
        if (!copy) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        if (!*copy) {
                snprintf(err, errlen, "option --block-load: empty (e.g. rw=randrw,bs=4k)");
                rc = -EINVAL;
        }
        for (char *it = strtok_r(copy, ",", &save); !rc && it; it = strtok_r(NULL, ",", &save))
                rc = load_key(it, sp, err, errlen);
        free(copy);
        return rc;
}

static int load_open_run(struct scale_load *l, char *err, size_t errlen)
{
        const struct scale_load_spec *sp = &l->sp;
        struct blk_run_opts o = {
            .workers_per_target = sp->numjobs,
            .max_depth = sp->iodepth,
            .max_bs = sp->bs,
            .writable = sp->rw != BLK_RW_RANDREAD && sp->rw != BLK_RW_READ,
            .split_region = sp->rw == BLK_RW_READ || sp->rw == BLK_RW_WRITE,
        };
        struct blk_geom *geom = calloc(l->n, sizeof(*geom));
        int rc = -ENOMEM;

        if (!geom) {
                snprintf(err, errlen, "out of memory");
                goto out;
        }
        rc = blk_run_open(&l->run, l->t, l->n, &o, geom, err, errlen);
        for (unsigned i = 0; !rc && i < l->n; i++)
                if (sp->bs % geom[i].block_size) {
                        snprintf(err, errlen,
                                 "option --block-load: bs %u is not a multiple of %s's block "
                                 "size %u",
                                 sp->bs, l->t[i].label, geom[i].block_size);
                        rc = -EINVAL;
                }
        if (rc < 0 && l->run) {
                blk_run_close(l->run);
                l->run = NULL;
        }
        l->reopen = 0;
out:
        free(geom);
        return rc;
}

int scale_load_open(struct scale_load **out, const struct scale_load_spec *sp,
                    const char *const *urls, unsigned n, char *err, size_t errlen)
{
        const struct blk_engine_ops *ops = blk_engine_find("libiscsi");
        struct scale_load *l = calloc(1, sizeof(*l));
        int rc = -ENOMEM;

        *out = NULL;
        if (!ops) {
                snprintf(err, errlen, "option --block-load: libiscsi is not built into hcisweep");
                free(l);
                return -ENOTSUP;
        }
        if (!l || !(l->t = calloc(n, sizeof(*l->t))) || !(l->urls = calloc(n, sizeof(char *))))
                goto fail;
        l->sp = *sp;
        l->n = n;
        for (unsigned i = 0; i < n; i++) {
                if (!(l->urls[i] = strdup(urls[i])))
                        goto fail;
                /* the lab's LUN URLs carry no credentials: the URL is its own label */
                l->t[i] = (struct blk_target_spec){l->urls[i], l->urls[i], ops};
        }
        rc = load_open_run(l, err, errlen);
        if (rc < 0)
                goto fail;
        *out = l;
        return 0;
fail:
        if (rc == -ENOMEM)
                snprintf(err, errlen, "out of memory");
        scale_load_close(l);
        return rc;
}

int scale_load_open_vms(struct scale_load **out, const struct scale_load_spec *sp,
                        const struct lab_backend_ops *ops, struct lab_backend *b, unsigned n,
                        char *err, size_t errlen)
{
        struct scale_load *l;

        *out = NULL;
        if (!ops->spawn_streams) /* block/clients_vms.h */
                return errf(err, errlen, -EINVAL,
                            "option --block-load: with --driver-placement vm the %s backend's "
                            "VMs cannot run a block client yet (their spawn carries one go per "
                            "driver)",
                            ops->name);
        if (!(l = calloc(1, sizeof(*l))))
                return errf(err, errlen, -ENOMEM, "out of memory");
        l->sp = *sp;
        l->ops = ops;
        l->b = b;
        l->nvms = n;
        l->orders[0] = l->orders[1] = -1;
        *out = l;
        return 0;
}

static void on_vms_point(void *user, unsigned k, json_t *agg)
{
        struct scale_load *l = user;

        (void)k;
        json_decref(l->agg);
        l->agg = json_incref(agg);
}

/* "block client lost: vm2 (why); ..." for the clients agg names degraded[]. */
static void lost_names(const json_t *agg, char *out, size_t len)
{
        const json_t *d, *c;
        size_t i, j, used;

        used = (size_t)snprintf(out, len, "block client lost:");
        json_array_foreach(json_object_get(agg, "degraded"), i, d)
        {
                const char *name = json_string_value(d), *why = NULL;

                json_array_foreach(json_object_get(agg, "clients"), j, c)
                {
                        const char *cn = json_string_value(json_object_get(c, "name"));
                        if (name && cn && !strcmp(name, cn))
                                why = json_string_value(json_object_get(c, "error"));
                }
                if (used < len)
                        used += (size_t)snprintf(out + used, len - used, "%s %s%s%s%s",
                                                 i ? ";" : "", name ? name : "?", why ? " (" : "",
                                                 why ? why : "", why ? ")" : "");
        }
}

/* The point on the VMs' clients, as `block --clients vms` runs a one-point sweep. */
static void run_vms(struct scale_load *l)
{
        static const double pcts[] = {50, 99};
        char a[7][48], *argv[9];
        int n = 0, degraded = 0;

        argv[n++] = "block";
        snprintf(a[0], sizeof(a[0]), "--rw=%s", blk_rw_names[l->sp.rw]);
        snprintf(a[1], sizeof(a[1]), "--bs=%u", l->sp.bs);
        snprintf(a[2], sizeof(a[2]), "--iodepth=%u", l->sp.iodepth);
        snprintf(a[3], sizeof(a[3]), "--rwmixread=%u", l->sp.rwmixread);
        snprintf(a[4], sizeof(a[4]), "--numjobs=%u", l->sp.numjobs);
        snprintf(a[5], sizeof(a[5]), "--ramp-time=%lld", l->ramp_s);
        snprintf(a[6], sizeof(a[6]), "--runtime=%lld", l->run_s);
        for (unsigned i = 0; i < 7; i++)
                argv[n++] = a[i];
        argv[n] = NULL;
        struct blk_clients_plan p = {
            .spec = "vms",
            .lab_ops = l->ops,
            .lab_b = l->b,
            .vms = l->nvms,
            .argv = argv,
            .argc = n,
            .npoints = 1,
            .ramp_s = (double)l->ramp_s,
            .runtime_s = (double)l->run_s,
            .io_timeout_s = 30,
            .pcts = pcts,
            .npct = 2,
            .stop = &l->vstop,
            .no_hosts = 1, /* scale reads the hosts itself */
            .steered = l->told,
            .steer_fd = l->orders[0],
        };
        l->verr[0] = '\0';
        l->rc = blk_clients_run(&p, on_vms_point, l, &degraded, l->verr, sizeof(l->verr));
        if (l->rc == -EINTR && l->vstop)
                l->rc = 0; /* stopped by us, with the OLTP run: what they measured counts */
        if (!l->rc && degraded)
                lost_names(l->agg, l->verr, sizeof(l->verr));
}

static void *load_thread(void *arg)
{
        struct scale_load *l = arg;

        if (l->ops)
                run_vms(l);
        else
                l->rc = blk_run_point(l->run, &l->p, &l->res, NULL, NULL);
        atomic_store(&l->done, 1);
        return NULL;
}

static void close_orders(struct scale_load *l)
{
        for (unsigned i = 0; l->ops && i < 2; i++) { /* (only the VMs' load has them) */
                if (l->orders[i] >= 0)
                        close(l->orders[i]);
                l->orders[i] = -1;
        }
}

/* One order ('m' or 's') to the VMs' clients (run_vms passes it on). */
static void send_order(struct scale_load *l, char c)
{
        if (l->orders[1] >= 0 && write(l->orders[1], &c, 1) != 1)
                log_warn("block load in the VMs: cannot pass an order on: %s", strerror(errno));
}

/* The VMs' point: whole seconds, as block takes them; told, the pipe it is steered by. */
static int start_vms(struct scale_load *l, double ramp_s, double run_s, char *err, size_t errlen)
{
        /* told, they are bounds: rounded up */
        double (*whole)(double) = l->told ? ceil : round;

        l->ramp_s = (ramp_s > 0 ? (long long)whole(ramp_s) : 0) + (l->told ? TOLD_SLACK_S : 0);
        l->run_s = run_s >= 1 ? (long long)whole(run_s) : 1;
        l->vstop = 0;
        close_orders(l);
        if (l->told && pipe2(l->orders, O_CLOEXEC) < 0)
                return errf(err, errlen, -errno, "block load: pipe: %s", strerror(errno));
        return 0;
}

int scale_load_start(struct scale_load *l, double ramp_s, double run_s, int told, char *err,
                     size_t errlen)
{
        sigset_t all, old;
        int rc;

        l->told = told;
        l->measured = l->stopped = l->done = 0;
        l->measure_ms = l->stop_ms = 0;
        if (l->ops && (rc = start_vms(l, ramp_s, run_s, err, errlen)) < 0)
                return rc;
        if (!l->ops && l->reopen) {
                blk_run_close(l->run);
                l->run = NULL;
                if ((rc = load_open_run(l, err, errlen)) < 0)
                        return rc;
        }
        /* told: the ramp until scale_load_measure, the run until scale_load_stop (a day is
         * only a bound) */
        l->p = (struct blk_point_spec){
            .rw = l->sp.rw,
            .bs = l->sp.bs,
            .iodepth = l->sp.iodepth,
            .rwmixread = l->sp.rwmixread,
            .ramp_ns = !told && ramp_s > 0 ? (uint64_t)(ramp_s * 1e9) : 0,
            .ramp_until_told = told,
            .run_ns = !told && run_s > 0 ? (uint64_t)(run_s * 1e9) : 86400ull * 1000000000ull,
            .interval_ms = 1000,
        };
        memset(&l->res, 0, sizeof(l->res));
        l->end_ns = clk_now_ns() + (l->ops ? (uint64_t)(l->ramp_s + l->run_s) * 1000000000ull
                                           : l->p.ramp_ns + l->p.run_ns);
        /* SIGINT belongs to the controlling thread: the load thread and its workers block it. */
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        rc = pthread_create(&l->th, NULL, load_thread, l);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (rc) {
                close_orders(l);
                snprintf(err, errlen, "block load: cannot start a thread: %s", strerror(rc));
                return -rc;
        }
        l->running = 1;
        return 0;
}

void scale_load_measure(struct scale_load *l)
{
        if (!l || !l->running || atomic_exchange(&l->measured, 1))
                return;
        l->measure_ms = clk_real_ms();
        if (!l->ops)
                blk_run_measure(l->run);
        else if (l->told) /* else the VMs' clients keep their own fixed window */
                send_order(l, 'm');
}

void scale_load_stop(struct scale_load *l)
{
        if (!l || !l->running || !l->told || atomic_exchange(&l->stopped, 1))
                return;
        l->stop_ms = clk_real_ms();
        if (!l->ops)
                blk_run_end(l->run);
        else
                send_order(l, 's');
}

static void load_add(struct scale_load_res *acc, const struct blk_point_result *r)
{
        acc->ran = 1;
        acc->seconds += r->runtime_s;
        for (unsigned d = 0; d < 2; d++) {
                acc->ios[d] += r->all.dir[d].ios;
                acc->bytes[d] += r->all.dir[d].bytes;
                acc->errors[d] += r->all.dir[d].errors;
                hist_merge(acc->lat[d], r->all.dir[d].hist);
        }
        if (!acc->win_start_ms)
                acc->win_start_ms = r->win_start_ms;
        acc->win_end_ms = r->win_end_ms;
        acc->have_window_s = 1;
        acc->window_s[0] = (double)(r->win_start_ms - r->warm_ms) / 1e3;
        acc->window_s[1] = (double)(r->win_end_ms - r->warm_ms) / 1e3;
}

/* The VMs' window in seconds after their go: the orders' (steered), else the span of the
 * clients' own windows. */
static void vms_window(struct scale_load_res *acc, const json_t *agg)
{
        const json_t *w = json_object_get(agg, "window_s"), *c;
        size_t i;

        acc->have_window_s = 1;
        if (w) {
                const json_t *a = json_object_get(w, "start"), *b = json_object_get(w, "end");
                acc->window_s[0] = json_is_number(a) ? json_number_value(a) : -1;
                acc->window_s[1] = json_is_number(b) ? json_number_value(b) : -1;
                return;
        }
        acc->window_s[0] = acc->window_s[1] = -1;
        json_array_foreach(json_object_get(agg, "clients"), i, c)
        {
                const json_t *cw = json_object_get(c, "window_s");
                if (!cw) /* it gave no point */
                        continue;
                double a = json_number_value(json_object_get(cw, "start"));
                double b = json_number_value(json_object_get(cw, "end"));
                if (acc->window_s[0] < 0 || a < acc->window_s[0])
                        acc->window_s[0] = a;
                if (b > acc->window_s[1])
                        acc->window_s[1] = b;
        }
}

/* The VMs' aggregate point (block/clients_agg.h) into acc: 0, or -EINVAL (its histogram). */
static int vms_add(struct scale_load_res *acc, const json_t *agg, double *iops, char *err,
                   size_t errlen)
{
        static const char *const dirs[2] = {"read", "write"}; /* BLK_READ, BLK_WRITE */
        double secs = json_number_value(json_object_get(agg, "runtime_s"));
        const json_t *v;
        uint64_t all = 0;
        size_t i;

        acc->ran = 1;
        acc->seconds += secs;
        vms_window(acc, agg);
        json_decref(acc->clients);
        acc->clients = json_incref(json_object_get(agg, "clients"));
        json_array_foreach(json_object_get(agg, "degraded"), i, v)
        {
                if (!acc->degraded)
                        acc->degraded = json_array();
                json_array_append(acc->degraded, (json_t *)v);
        }
        for (unsigned d = 0; d < 2; d++) {
                const json_t *o = json_object_get(agg, dirs[d]);
                const json_t *h = json_object_get(o, "hist");
                acc->ios[d] += (uint64_t)json_integer_value(json_object_get(o, "ios"));
                acc->bytes[d] += (uint64_t)json_integer_value(json_object_get(o, "bytes"));
                acc->errors[d] += (uint64_t)json_integer_value(json_object_get(o, "errors"));
                all += (uint64_t)json_integer_value(json_object_get(o, "ios"));
                if (h && hist_add_json(acc->lat[d], h, err, errlen) < 0)
                        return -EINVAL;
        }
        *iops = secs > 0 ? (double)all / secs : 0;
        return 0;
}

/* scale_load_finish for the VMs' clients. */
static int finish_vms(struct scale_load *l, struct scale_load_res *acc, double *iops)
{
        char why[256] = "";
        uint64_t give_up = clk_now_ns() + STOP_GRACE_S * 1000000000ull;

        if (l->told) /* at the latest now (the OLTP run ended before its rule said stop) */
                scale_load_stop(l);
        else if (clk_now_ns() + LOAD_GRACE_NS < l->end_ns)
                l->vstop = 1;
        /* told, clients that never got to the point (not ready yet) are not waited for */
        while (l->told && !atomic_load(&l->done) && clk_now_ns() < give_up)
                clk_sleep_ns(20000000ull);
        if (l->told && !atomic_load(&l->done))
                l->vstop = 1;
        pthread_join(l->th, NULL);
        l->running = 0;
        close_orders(l);
        if (l->agg && vms_add(acc, l->agg, iops, why, sizeof(why)) < 0 && !acc->error[0])
                snprintf(acc->error, sizeof(acc->error), "block load in the VMs: %.200s", why);
        if (l->agg && l->told && l->measure_ms) { /* the instants the orders went out */
                if (!acc->win_start_ms)
                        acc->win_start_ms = l->measure_ms;
                acc->win_end_ms = l->stop_ms;
        }
        json_decref(l->agg);
        l->agg = NULL;
        if (l->verr[0] && !acc->error[0])
                snprintf(acc->error, sizeof(acc->error), "block load in the VMs: %.220s", l->verr);
        return l->rc;
}

int scale_load_finish(struct scale_load *l, struct scale_load_res *acc, double *iops)
{
        const struct blk_point_result *r = &l->res;
        int rc;

        *iops = -1;
        if (!l->running)
                return 0;
        if (l->ops)
                return finish_vms(l, acc, iops);
        scale_load_stop(l); /* told: a normal end, at the latest now */
        /* (told again until it ends: one told before the point began is not its own) */
        while (l->told && !atomic_load(&l->done)) {
                blk_run_end(l->run);
                clk_sleep_ns(20000000ull);
        }
        if (!l->told && clk_now_ns() + LOAD_GRACE_NS < l->end_ns)
                blk_run_interrupt(l->run);
        pthread_join(l->th, NULL);
        l->running = 0;
        rc = l->rc;
        if (r->t) {
                load_add(acc, r);
                *iops = r->runtime_s > 0
                            ? (double)(r->all.dir[0].ios + r->all.dir[1].ios) / r->runtime_s
                            : 0;
                if (r->all.failed && !acc->error[0])
                        snprintf(acc->error, sizeof(acc->error), "%s", r->all.error);
        }
        if (rc < 0 && !acc->error[0])
                snprintf(acc->error, sizeof(acc->error), "block load: %s", strerror(-rc));
        /* an interrupt ends this point only: the next step keeps the sessions */
        l->reopen = rc < 0 || (r->interrupted && blk_run_resume(l->run) < 0);
        blk_point_result_free(&l->res);
        return rc;
}

void scale_load_close(struct scale_load *l)
{
        if (!l)
                return;
        if (l->running && l->ops) {
                l->vstop = 1;
                pthread_join(l->th, NULL);
        } else if (l->running) {
                blk_run_interrupt(l->run);
                pthread_join(l->th, NULL);
                blk_point_result_free(&l->res);
        }
        close_orders(l);
        json_decref(l->agg);
        blk_run_close(l->run);
        for (unsigned i = 0; l->urls && i < l->n; i++)
                free(l->urls[i]);
        free(l->urls);
        free(l->t);
        free(l);
}

double scale_load_iops(const struct scale_load_res *r)
{
        return r->seconds > 0 ? (double)(r->ios[0] + r->ios[1]) / r->seconds : 0;
}

static json_t *secs_or_null(double v)
{
        return v >= 0 ? json_real(v) : json_null();
}

void scale_load_res_json(const struct scale_load_res *r, json_t *o)
{
        json_object_set_new(o, "window", res_window_json(r->win_start_ms, r->win_end_ms));
        if (r->have_window_s)
                json_object_set_new(o, "window_s",
                                    json_pack("{s:o,s:o}", "start", secs_or_null(r->window_s[0]),
                                              "end", secs_or_null(r->window_s[1])));
        if (r->clients) {
                json_object_set_new(o, "n_clients",
                                    json_integer((json_int_t)json_array_size(r->clients)));
                json_object_set(o, "clients", r->clients);
                json_object_set_new(o, "degraded",
                                    r->degraded ? json_incref(r->degraded) : json_array());
        }
}

void scale_load_res_free(struct scale_load_res *r)
{
        hist_free(r->lat[0]);
        hist_free(r->lat[1]);
        json_decref(r->clients);
        json_decref(r->degraded);
        r->lat[0] = r->lat[1] = NULL;
        r->clients = r->degraded = NULL;
}
