/*
 * tip_json.c - the tipping point read off a scale result's steps[], and
 * written back as JSON.
 *
 * `scale` builds its steps' JSON first and computes its tipping point from
 * that JSON through these functions, and `analyze` and `compare` read the
 * same JSON the same way: so the three cannot disagree about a run. Names
 * are those of the README; a figure a result does not hold stays NAN (not
 * measured), never 0.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/result.h"
#include "results/tip_json.h"

static double first_known(double a, double b)
{
        return isnan(a) ? b : a;
}

/* The step's band: the repeats' spread, else --target-ci's CI, else the
 * batch-means CI of its per-interval TPS (intervals[].tps) around its TPS. */
static void band(const json_t *st, struct res_tip_step *s)
{
        const json_t *reps = json_object_get(st, "repeats"), *iv = json_object_get(st, "intervals");
        const json_t *sp = json_object_get(st, "tps_spread"), *x;
        double r[64], *v, mid, lo, hi;
        size_t i, n = 0;

        if (json_array_size(reps) >= 2) {
                json_array_foreach(reps, i, x) if (n < 64 && !isnan(res_num(x, "tps"))) r[n++] =
                    res_num(x, "tps");
                res_tip_band(r, (unsigned)n, 1, &mid, &lo, &hi);
                s->lo = first_known(res_num(sp, "min"), lo);
                s->hi = first_known(res_num(sp, "max"), hi);
                return;
        }
        if (res_num(json_object_get(st, "steady"), "ci_pct") >= 0) { /* --target-ci's 95% CI */
                double h = s->tput * res_num(json_object_get(st, "steady"), "ci_pct") / 100;

                s->lo = fmax(s->tput - h, 0);
                s->hi = s->tput + h;
                return;
        }
        n = json_array_size(iv);
        if (n < 2 || !(v = malloc(n * sizeof(*v))))
                return;
        n = 0;
        json_array_foreach(iv, i, x) if (!isnan(res_num(x, "tps"))) v[n++] = res_num(x, "tps");
        res_tip_band_of_intervals(s->tput, v, (unsigned)n, &s->lo, &s->hi);
        free(v);
}

/* The VMs' disks (storage.vm_disks[]) where the step has no summary:
 * the busiest one's utilisation, the IOPS summed, the latency over all
 * their I/Os. */
static void vm_disks(const json_t *disks, struct res_tip_res *r)
{
        double util = NAN, iops = 0, lat_ios = 0;
        const json_t *d;
        size_t i;

        if (!json_array_size(disks))
                return;
        json_array_foreach(disks, i, d)
        {
                double u = res_num(d, "util_pct"), n = res_num(d, "iops"), l = res_num(d, "lat_ms");

                if (!isnan(u) && !(u <= util))
                        util = u;
                if (!isnan(n) && !isnan(l)) {
                        iops += n;
                        lat_ios += n * l;
                }
        }
        r->storage_util_pct = first_known(r->storage_util_pct, util);
        if (iops > 0) {
                r->storage_iops = first_known(r->storage_iops, iops);
                r->storage_lat_ms = first_known(r->storage_lat_ms, lat_ios / iops);
        }
}

static void resources(const json_t *st, struct res_tip_res *r)
{
        const json_t *cpu = json_object_get(st, "host_cpu"), *sto = json_object_get(st, "storage");
        const json_t *mem = json_object_get(st, "memory"),
                     *own = json_object_get(st, "cpu_by_owner");
        const json_t *vq = json_object_get(st, "vm_quota");
        double secs = res_num(json_object_get(st, "totals"), "seconds");

        r->cpu_busy_pct = first_known(res_share(st, "cpu_busy_pct"), res_share(cpu, "busy"));
        if (isnan(r->cpu_busy_pct) && json_is_object(cpu))
                r->cpu_busy_pct =
                    100 - res_num(cpu, "idle") - first_known(res_num(cpu, "iowait"), 0);
        r->steal_pct = res_share(cpu, "steal");
        r->storage_cpu_pct =
            first_known(res_num(own, "storage"), res_num(sto, "target_host_share_pct"));
        r->storage_cpu_user_pct = res_num(sto, "target_cpu_user_pct");
        r->storage_cpu_sys_pct = res_num(sto, "target_cpu_system_pct");
        r->storage_util_pct = first_known(res_num(sto, "util_pct"), res_num(sto, "disk_util_pct"));
        r->storage_lat_ms = first_known(res_num(sto, "lat_ms"), res_num(sto, "disk_lat_ms"));
        r->storage_iops = first_known(res_num(sto, "iops"), res_num(sto, "disk_iops"));
        vm_disks(json_object_get(sto, "vm_disks"), r);
        r->vm_cpu_pct = res_num(vq, "used_pct");
        r->vm_throttled_pct = res_num(vq, "throttled_pct");
        r->vm_throttled_time_pct = res_num(vq, "throttled_time_pct");
        r->driver_cpu_pct = res_num(own, "driver");
        r->compute_cpu_pct = first_known(res_num(st, "compute_cpu_pct"),
                                         res_num(json_object_get(st, "compute_cpu"), "busy"));
        r->swap_pages = res_num(mem, "swap_pages");
        r->oom_kills = res_num(mem, "oom_kills");
        if (secs > 0 && !isnan(res_num(mem, "major_faults")))
                r->majflt_per_s = res_num(mem, "major_faults") / secs;
}

int res_tip_step_from_json(const json_t *st, struct res_tip_step *s)
{
        const char *state = json_string_value(json_object_get(st, "state"));
        double vms = res_num(st, "vms"), tps = res_num(json_object_get(st, "totals"), "tps");

        if (isnan(vms) || isnan(tps))
                return -EINVAL;
        res_tip_step_init(s, vms,
                          first_known(res_num(json_object_get(st, "tps_spread"), "median"), tps));
        band(st, s);
        resources(st, &s->r);
        res_tip_hosts_read(st, &s->r, &s->hosts);
        return state && strcmp(state, "ok") ? 0 : 1;
}

int res_tip_of_steps(const json_t *steps, struct res_tip_step **sv, unsigned *nv,
                     struct res_tip *out)
{
        struct res_tip_step *s = calloc(json_array_size(steps) + 1, sizeof(*s));
        const json_t *x;
        unsigned n = 0;
        size_t i;

        if (!s)
                return -ENOMEM;
        json_array_foreach(steps, i, x)
        {
                if (res_tip_step_from_json(x, &s[n]) == 1)
                        n++;
        }
        res_tip_find(s, n, "VMs", out);
        if (sv) {
                *sv = s;
                *nv = n;
        } else {
                free(s);
        }
        return 0;
}

static json_t *num_or_null(double v)
{
        return isfinite(v) ? json_real(v) : json_null();
}

/* A whole load (a VM count) as an integer, as the steps write it. */
static json_t *load_json(double v)
{
        if (isfinite(v) && v == floor(v) && fabs(v) < 1e15)
                return json_integer((json_int_t)v);
        return num_or_null(v);
}

json_t *res_usl_json(const struct res_usl *u)
{
        return json_pack("{s:o,s:o,s:o,s:o,s:o}", "lambda", num_or_null(u->lambda), "sigma",
                         num_or_null(u->sigma), "kappa", num_or_null(u->kappa), "peak_load",
                         num_or_null(u->peak_load), "rmse", num_or_null(u->rmse));
}

json_t *res_tip_json(const struct res_tip *t, const struct res_tip_step *s, const char *load_key)
{
        json_t *o = json_object();
        int bad = !o;

        if (bad)
                return NULL;
        bad |= json_object_set_new(o, load_key, t->found ? load_json(t->load) : json_null());
        bad |= json_object_set_new(o, "limited_by", json_string(res_tip_limit_name(t->limited_by)));
        bad |= json_object_set_new(o, "reason", json_string(t->reason));
        bad |= json_object_set_new(o, "undecided", json_boolean(t->undecided));
        if (t->found && isfinite(t->load_hi))
                bad |= json_object_set_new(
                    o, "between", json_pack("[o,o]", load_json(t->load), load_json(t->load_hi)));
        if (t->peak >= 0)
                bad |=
                    json_object_set_new(o, "peak",
                                        json_pack("{s:o,s:f}", load_key, load_json(s[t->peak].load),
                                                  "throughput", s[t->peak].tput));
        bad |= json_object_set_new(o, "usl", res_usl_json(&t->usl));
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}
