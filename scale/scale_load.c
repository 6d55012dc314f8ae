/*
 * scale_load.c - the block load of `hcisweep scale --block-load`: one block point
 * on every VM's LUN, in a thread of its own, over the same warm-up and
 * measured seconds as the OLTP run, so the storage serves databases and
 * block I/O at once, as it does in a hyperconverged cluster.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block/clients.h"
#include "block/engine.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/parse.h"
#include "lab/backend.h"
#include "scale/scale_load.h"

/* Stopping a point that has less than this left would only cut its last interval. */
#define LOAD_GRACE_NS 250000000ull

struct scale_load {
        struct scale_load_spec sp;
        struct blk_target_spec *t;
        char **urls;
        unsigned n;
        struct blk_run *run;
        int reopen; /* a failed point, or an interrupt that abandoned I/Os, ends the run */
        pthread_t th;
        int running;
        uint64_t end_ns; /* when the point in flight ends by itself */
        struct blk_point_spec p;
        struct blk_point_result res;
        int rc;
        /* --driver-placement vm: a block client in each VM (block/clients.h), not blk_run */
        const struct lab_backend_ops *ops; /* NULL: the load runs here */
        struct lab_backend *b;
        unsigned nvms;
        long long ramp_s, run_s; /* the clients' whole seconds */
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
                        int fixed_window, char *err, size_t errlen)
{
        struct scale_load *l;

        *out = NULL;
        if (!fixed_window)
                return errf(err, errlen, -EINVAL,
                            "option --block-load: with --driver-placement vm not with --target-ci "
                            "(the block clients in the VMs need their window at the start)");
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
        };
        l->verr[0] = '\0';
        l->rc = blk_clients_run(&p, on_vms_point, l, &degraded, l->verr, sizeof(l->verr));
        if (l->rc == -EINTR && l->vstop)
                l->rc = 0; /* stopped by us, with the OLTP run: what they measured counts */
        if (!l->rc && degraded)
                snprintf(l->verr, sizeof(l->verr), "a VM's block client was lost (clients[])");
}

static void *load_thread(void *arg)
{
        struct scale_load *l = arg;

        if (l->ops)
                run_vms(l);
        else
                l->rc = blk_run_point(l->run, &l->p, &l->res, NULL, NULL);
        return NULL;
}

int scale_load_start(struct scale_load *l, double ramp_s, double run_s, char *err, size_t errlen)
{
        sigset_t all, old;
        int rc;

        if (l->ops) { /* whole seconds, as block takes them */
                l->ramp_s = ramp_s > 0 ? llround(ramp_s) : 0;
                l->run_s = run_s >= 1 ? llround(run_s) : 1;
                l->vstop = 0;
        } else if (l->reopen) {
                blk_run_close(l->run);
                l->run = NULL;
                if ((rc = load_open_run(l, err, errlen)) < 0)
                        return rc;
        }
        l->p = (struct blk_point_spec){
            .rw = l->sp.rw,
            .bs = l->sp.bs,
            .iodepth = l->sp.iodepth,
            .rwmixread = l->sp.rwmixread,
            .ramp_ns = ramp_s > 0 ? (uint64_t)(ramp_s * 1e9) : 0,
            .ramp_until_told =
                ramp_s<0, .run_ns = run_s> 0 ? (uint64_t)(run_s * 1e9) : 86400ull * 1000000000ull,
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
                snprintf(err, errlen, "block load: cannot start a thread: %s", strerror(rc));
                return -rc;
        }
        l->running = 1;
        return 0;
}

void scale_load_measure(struct scale_load *l)
{
        if (l && l->running && !l->ops) /* the VMs' clients keep their own fixed window */
                blk_run_measure(l->run);
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
}

/* The VMs' aggregate point (block/clients_agg.h) into acc: 0, or -EINVAL (its histogram). */
static int vms_add(struct scale_load_res *acc, const json_t *agg, double *iops, char *err,
                   size_t errlen)
{
        static const char *const dirs[2] = {"read", "write"}; /* BLK_READ, BLK_WRITE */
        double secs = json_number_value(json_object_get(agg, "runtime_s"));
        uint64_t all = 0;

        acc->ran = 1;
        acc->seconds += secs;
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

        if (clk_now_ns() + LOAD_GRACE_NS < l->end_ns)
                l->vstop = 1;
        pthread_join(l->th, NULL);
        l->running = 0;
        if (l->agg && vms_add(acc, l->agg, iops, why, sizeof(why)) < 0 && !acc->error[0])
                snprintf(acc->error, sizeof(acc->error), "block load in the VMs: %.200s", why);
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
        if (clk_now_ns() + LOAD_GRACE_NS < l->end_ns)
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
