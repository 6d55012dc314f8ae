/*
 * scale_out.c - what `hcisweep scale` shows: one table row per step on
 * stdout as the step ends, and each step's object of the result JSON
 * (README: vms, the oltp totals, the merged lat_ns and hist, host CPU,
 * storage-side rates), with every repeat kept so the spread is visible.
 * With --block-load a step also carries block_load, named as a block
 * point is (read/write ios, iops, bw_bytes, lat_ns), and its IOPS count in
 * the storage side's iops: the storage served them next to the databases.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/resfile.h"
#include "oltp/report.h"
#include "results/tipping.h"
#include "scale/scale.h"
#include "lab/cluster.h"

const char *scale_state_name(int state)
{
        static const char *const names[] = {"ok", "degraded", "partial", "failed"};

        return state >= 0 && state <= SCALE_FAILED ? names[state] : "?";
}

/* Every non-idle state, steal included; iowait is idle time waiting on I/O. */
double scale_cpu_busy(const struct mon_cpu *c)
{
        return c->user + c->nice + c->system + c->irq + c->softirq + c->steal;
}

void scale_cpu_owners(const struct scale_step *s, double own[4], double *quota_pct)
{
        double ncpu = (double)sysconf(_SC_NPROCESSORS_ONLN), vms = 0,
               busy = scale_cpu_busy(&s->cpu);
        unsigned known = 0;

        if (ncpu < 1)
                ncpu = 1;
        for (unsigned i = 1; i <= s->vms; i++)
                if (s->rates.vm_cpu_pct[i] >= 0)
                        vms += s->rates.vm_cpu_pct[i], known++;
        own[0] = known ? vms / ncpu : -1;
        own[1] = s->rates.tgt_cpu_pct >= 0 ? s->rates.tgt_cpu_pct / ncpu : -1;
        own[2] = s->rates.self_cpu_pct >= 0 ? s->rates.self_cpu_pct / ncpu : -1;
        own[3] = busy;
        for (unsigned k = 0; k < 3; k++)
                own[3] -= own[k] > 0 ? own[k] : 0;
        if (own[3] < 0)
                own[3] = 0;
        *quota_pct = known && s->vm_cpus > 0 ? vms / known / s->vm_cpus : -1;
}

void scale_vm_quota(const struct scale_step *s, struct scale_quota *q)
{
        const struct scale_rates *r = &s->rates;
        unsigned known = 0;

        *q = (struct scale_quota){0, s->vms, -1, -1, -1, -1, -1};
        for (unsigned i = 1; i <= s->vms && i <= LAB_MAX_VMS; i++) {
                q->cg_vms += r->vm_cpu_cg[i] ? 1 : 0;
                if (r->vm_periods[i] < 0 || r->vm_throttled[i] < 0 || r->vm_throttled_s[i] < 0)
                        continue;
                if (!known++)
                        q->periods = q->throttled = q->throttled_s = 0;
                q->periods += r->vm_periods[i];
                q->throttled += r->vm_throttled[i];
                q->throttled_s += r->vm_throttled_s[i];
        }
        if (!known)
                return;
        q->throttled_pct = q->periods > 0 ? 100 * q->throttled / q->periods : 0;
        if (r->seconds > 0)
                q->throttled_time_pct = 100 * q->throttled_s / (r->seconds * known);
}

/* The storage side's MB/s: with the VMs' disks on its LUNs everything goes
 * through the storage service (what it served); else the datadirs' disk
 * plus what the storage service served besides. */
static double storage_mb_s(const struct scale_rates *r)
{
        double b = r->disk_bytes_s > 0 ? r->disk_bytes_s : 0;
        double t = r->tgt_io_bytes_s > 0 ? r->tgt_io_bytes_s : 0;

        if (r->vdisks)
                return (t > 0 ? t : b) / 1e6;
        return (b + t) / 1e6;
}

const char *scale_step_band(const struct scale_step *s, double *lo, double *hi)
{
        *lo = *hi = s->tps;
        if (s->nrep >= 2) {
                *lo = s->tps_min;
                *hi = s->tps_max;
                return "repeats";
        }
        if (s->have_steady && s->steady.ci_pct >= 0) {
                double h = s->tps * s->steady.ci_pct / 100;

                *lo = s->tps - h > 0 ? s->tps - h : 0;
                *hi = s->tps + h;
                return "target_ci";
        }
        if (s->nrep == 1)
                res_tip_band_of_intervals(s->tps, s->rep[0].iv_tps, s->rep[0].niv, lo, hi);
        return *hi > *lo ? "intervals" : "none";
}

void scale_print_header(unsigned repeat, int load)
{
        printf("%5s %10s %9s %8s %8s %9s %7s %10s %22s %7s", "vms", "TPS", "TPS/VM", "mean ms",
               "p99 ms", "host CPU%", "steal%", "stor MB/s", "CPU% vms/stor/drv/oth", "VM thr%");
        if (load)
                printf(" %10s", "blk IOPS");
        printf("  %s%s\n", "state", repeat > 1 ? "  TPS min..max" : "  TPS +-95%");
        fflush(stdout);
}

void scale_print_step(const struct scale_step *s, unsigned repeat,
                      const struct scale_load_spec *load)
{
        printf("%5u %10.1f %9.1f %8.2f %8.2f %9.1f %7.1f %10.2f", s->vms, s->tps,
               s->vms ? s->tps / s->vms : 0, hist_mean(s->lat) / 1e6,
               (double)hist_percentile(s->lat, 99) / 1e6, scale_cpu_busy(&s->cpu), s->cpu.steal,
               storage_mb_s(&s->rates));
        {
                double own[4], q;
                struct scale_quota vq;
                char b[64], t[16] = "-";

                scale_cpu_owners(s, own, &q);
                scale_vm_quota(s, &vq);
                snprintf(b, sizeof(b), "%.0f/%.0f/%.0f/%.0f", own[0], own[1], own[2], own[3]);
                if (vq.throttled_time_pct >= 0)
                        snprintf(t, sizeof(t), "%.0f", vq.throttled_time_pct);
                printf(" %22s %7s", b, t);
        }
        if (load->on)
                printf(" %10.1f", scale_load_iops(&s->load));
        printf("  %-8s", scale_state_name(s->state));
        if (repeat > 1) {
                printf("  %.1f..%.1f", s->tps_min, s->tps_max);
        } else {
                double lo, hi;

                if (strcmp(scale_step_band(s, &lo, &hi), "none"))
                        printf("  +-%.1f%%", s->tps > 0 ? 100 * (hi - lo) / 2 / s->tps : 0);
                else
                        printf("  -");
        }
        if (s->error[0])
                printf("  %s", s->error);
        printf("\n");
        if (s->compute_cpus[0])
                printf("%5s compute CPUs %s (the VMs' own): %.1f%% busy\n", "", s->compute_cpus,
                       scale_cpu_busy(&s->compute_cpu));
        if (s->have_steady) {
                char st[256];

                /* what "not met" and "not settled" mean is said once, after the verdict */
                steady_describe(&s->steady, st, sizeof(st));
                printf("%5s steady: %s\n", "", st);
        }
        fflush(stdout);
}

double scale_min_warmup_s(void)
{
        return STEADY_MIN_BATCHES * STEADY_MSER_BATCH * STEADY_SAMPLE_S;
}

/* "1, 2, 5" of the steps whose steady state lacks what want says. */
static unsigned steps_where(const struct scale_step *st, unsigned n, int settled, char *buf,
                            size_t len)
{
        unsigned k = 0;
        size_t at = 0;

        buf[0] = '\0';
        for (unsigned i = 0; i < n; i++) {
                if (!st[i].have_steady || (settled ? st[i].steady.settled : st[i].steady.met))
                        continue;
                if (at < len)
                        at +=
                            (size_t)snprintf(buf + at, len - at, "%s%u", k ? ", " : "", st[i].vms);
                k++;
        }
        return k;
}

void scale_print_unsettled(const struct scale_step *st, unsigned n, double warmup_max_s,
                           double time_s, double target_ci_pct)
{
        char unsettled[256], unmet[256];
        unsigned nu = steps_where(st, n, 1, unsettled, sizeof(unsettled));
        unsigned nm = steps_where(st, n, 0, unmet, sizeof(unmet));

        if (!nu && !nm)
                return;
        printf("steady state: ");
        if (nu)
                printf("%u step(s) (%s VMs) did not settle: their TPS still drifted when the "
                       "longest warm-up (%g s) ran out, so measuring began anyway%s",
                       nu, unsettled, warmup_max_s, warmup_max_s < scale_min_warmup_s() ? "" : ".");
        if (nu && warmup_max_s < scale_min_warmup_s())
                printf(", and could not have: the warm-up rule needs at least %g s to see TPS "
                       "settle.",
                       scale_min_warmup_s());
        if (nm)
                printf("%s%u step(s) (%s VMs) did not meet --target-ci: the 95%% CI of their "
                       "mean TPS stayed wider than +-%g%% within --time %g s.",
                       nu ? " " : "", nm, unmet, target_ci_pct, time_s);
        printf("\n  What it means: those figures are measured, only less certain than asked; "
               "the tipping point reads each step's wider band, so it answers \"between\" or "
               "\"undecided\" rather than a wrong step.\n"
               "  What to do: a longer --warmup-time (at least %g s) and --time, or --repeat 3 "
               "(the band then comes from the repeats); a busy or shared host settles worse.\n",
               scale_min_warmup_s() > warmup_max_s ? scale_min_warmup_s() + 5
                                                   : scale_min_warmup_s());
}

static json_t *num_or_null(double v)
{
        return v < 0 ? json_null() : json_real(v);
}

static json_t *cpu_json(const struct mon_cpu *c)
{
        return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f}", "user", c->user, "system", c->system,
                         "iowait", c->iowait, "steal", c->steal, "idle", c->idle, "busy",
                         scale_cpu_busy(c));
}

static json_t *drate_json(const struct scale_drate *d)
{
        return json_pack("{s:o,s:o,s:o,s:o}", "iops", num_or_null(d->iops), "bytes_s",
                         num_or_null(d->bytes_s), "lat_ms", num_or_null(d->lat_ms), "util_pct",
                         num_or_null(d->util_pct));
}

/* Each VM's disk as the storage path sees it (its loop device). */
static json_t *vm_disks_json(const struct scale_rates *r, unsigned vms)
{
        json_t *a = json_array(), *o;

        for (unsigned i = 1; a && i <= vms; i++) {
                if (!r->vd_dev[i][0] || !(o = drate_json(&r->vd[i])))
                        continue;
                json_object_set_new(o, "vm", json_integer(i));
                json_object_set_new(o, "device", json_string(r->vd_dev[i]));
                json_array_append_new(a, o);
        }
        return a;
}

/*
 * iops and bytes_s are the storage side as a whole, as the table's stor
 * MB/s: the storage path's disks plus what the storage service served
 * besides (the block load's IOPS, when there is one); null when neither is
 * known. disk_* (and util_pct, lat_ms) are the VMs' disks when the backend
 * names them (source "vm_disks"), else the host disk holding the lab
 * ("host_disk"); the host disk is also kept as host_disk. target_* are
 * tgtd's: CPU in % of one CPU (split user/system) and its share of the
 * whole host in %.
 */
static json_t *storage_json(const struct scale_rates *r, double load_iops, unsigned vms)
{
        json_t *o = json_object();
        double iops = (r->disk_iops > 0 ? r->disk_iops : 0) + (load_iops > 0 ? load_iops : 0);

        if (!o)
                return NULL;
        json_object_set_new(o, "source", json_string(r->vdisks ? "vm_disks" : "host_disk"));
        json_object_set_new(o, "iops",
                            r->disk_iops < 0 && load_iops < 0 ? json_null() : json_real(iops));
        json_object_set_new(o, "bytes_s",
                            r->disk_bytes_s < 0 && r->tgt_io_bytes_s < 0
                                ? json_null()
                                : json_real(storage_mb_s(r) * 1e6));
        if (load_iops >= 0)
                json_object_set_new(o, "block_load_iops", json_real(load_iops));
        json_object_set_new(o, "util_pct", num_or_null(r->disk_util_pct));
        json_object_set_new(o, "lat_ms", num_or_null(r->disk_lat_ms));
        json_object_set_new(o, "disk_util_pct", num_or_null(r->disk_util_pct));
        json_object_set_new(o, "disk_bytes_s", num_or_null(r->disk_bytes_s));
        json_object_set_new(o, "disk_iops", num_or_null(r->disk_iops));
        json_object_set_new(o, "disk_lat_ms", num_or_null(r->disk_lat_ms));
        json_object_set_new(o, "vm_disks", vm_disks_json(r, vms));
        json_object_set_new(o, "host_disk", drate_json(&r->host));
        json_object_set_new(o, "target_cpu_pct", num_or_null(r->tgt_cpu_pct));
        json_object_set_new(o, "target_cpu_user_pct", num_or_null(r->tgt_user_pct));
        json_object_set_new(o, "target_cpu_system_pct", num_or_null(r->tgt_sys_pct));
        json_object_set_new(o, "target_host_share_pct", num_or_null(r->tgt_host_pct));
        json_object_set_new(o, "target_io_bytes_s", num_or_null(r->tgt_io_bytes_s));
        json_object_set_new(o, "target_disk_bytes_s", num_or_null(r->tgt_disk_bytes_s));
        return o;
}

/* The memory counts; null when nothing was measured (a step with no repeat), never 0. */
static json_t *memory_json(const struct scale_rates *r, int measured)
{
        if (!measured)
                return json_null();
        return json_pack("{s:I,s:I,s:I,s:I}", "swap_pages", (json_int_t)r->swap_pages,
                         "major_faults", (json_int_t)r->majflt, "failcnt", (json_int_t)r->failcnt,
                         "oom_kills", (json_int_t)r->oom_kills);
}

/* A step's or a VM's totals, by the one writer of them (oltp/report.h). */
static json_t *step_totals(const struct oltp_counts *c, double seconds, double tps)
{
        double q = (double)(c->reads + c->writes + c->other);

        return oltp_totals_json(c, tps, seconds > 0 ? q / seconds : 0.0, seconds);
}

/* {start, end}: a wall-clock window in UTC with ms, as a dashboard's time range takes it; null
 * when it was not reached. */
/* A repeat's (or a step's, first to last repeat) measured and warm-up windows into o. */
static void add_windows(json_t *o, const struct scale_rep *first, const struct scale_rep *last)
{
        json_object_set_new(o, "window", res_window_json(first->win_start_ms, last->win_end_ms));
        json_object_set_new(o, "warmup", res_window_json(first->warm_ms, first->win_start_ms));
}

static json_t *rep_json(const struct scale_rep *r, unsigned vms)
{
        json_t *o =
            json_pack("{s:f,s:f,s:I,s:o,s:o,s:o,s:b,s:b}", "seconds", r->seconds, "tps", r->tps,
                      "transactions", (json_int_t)r->total.txns, "host_cpu", cpu_json(&r->cpu),
                      "storage", storage_json(&r->rates, r->load_iops, vms), "memory",
                      memory_json(&r->rates, 1), "vm_lost", r->lost, "interrupted", r->interrupted);

        if (o)
                add_windows(o, r, r);
        if (o && r->error[0])
                json_object_set_new(o, "error", json_string(r->error));
        if (o && r->have_steady)
                json_object_set_new(o, "steady", steady_to_json(&r->steady));
        return o;
}

static json_t *vm_json(const struct scale_step *s, unsigned i, const double *pcts, unsigned npct)
{
        const struct scale_vm *v = &s->vm[i];
        const struct scale_rates *r = &s->rates;

        /* cpu_pct is the whole VM: its cgroup's usage, else its server plus its initiator */
        return json_pack(
            "{s:i,s:s,s:i,s:o,s:o,s:o,s:o,s:s,s:o,s:o,s:o,s:b}", "vm", (int)i, "host", v->host,
            "port", (int)v->port, "totals",
            step_totals(&v->c, v->seconds, v->seconds > 0 ? (double)v->c.txns / v->seconds : 0),
            "lat_ns", hist_lat_json(v->lat, pcts, npct), "cpu_pct", num_or_null(r->vm_cpu_pct[i]),
            "initiator_cpu_pct", num_or_null(r->ini_cpu_pct[i]), "cpu_source",
            r->vm_cpu_cg[i] ? "cgroup" : "processes", "nr_periods", num_or_null(r->vm_periods[i]),
            "nr_throttled", num_or_null(r->vm_throttled[i]), "throttled_usec",
            num_or_null(r->vm_throttled_s[i] < 0 ? -1 : r->vm_throttled_s[i] * 1e6), "alive",
            v->alive);
}

/* The one run's intervals [{t, tps}] (a step with repeats has its band from them instead). */
static json_t *intervals_json(const struct scale_rep *r)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < r->niv; i++)
                json_array_append_new(a,
                                      json_pack("{s:f,s:f}", "t", r->iv_t[i], "tps", r->iv_tps[i]));
        return a;
}

/* tps_band{lo, hi, source}: scale_step_band's, what the table shows. */
static json_t *band_json(const struct scale_step *s)
{
        double lo, hi;
        const char *src = scale_step_band(s, &lo, &hi);

        return json_pack("{s:f,s:f,s:s}", "lo", lo, "hi", hi, "source", src);
}

static int add_repeats_and_vms(json_t *o, const struct scale_step *s, const double *pcts,
                               unsigned npct)
{
        json_t *reps = json_array(), *vms = json_array();
        int bad = !reps || !vms;

        for (unsigned r = 0; !bad && r < s->nrep; r++)
                bad |= json_array_append_new(reps, rep_json(&s->rep[r], s->vms));
        for (unsigned i = 1; !bad && i <= s->vms; i++)
                bad |= json_array_append_new(vms, vm_json(s, i, pcts, npct));
        bad |= json_object_set_new(o, "repeats", reps ? reps : json_null());
        bad |= json_object_set_new(o, "hosts", vms ? vms : json_null());
        return bad ? -1 : 0;
}

static json_t *load_dir_json(const struct scale_load_res *r, unsigned d, const double *pcts,
                             unsigned npct)
{
        double secs = r->seconds;

        return json_pack("{s:I,s:f,s:f,s:I,s:o,s:I}", "ios", (json_int_t)r->ios[d], "iops",
                         secs > 0 ? (double)r->ios[d] / secs : 0.0, "bw_bytes",
                         secs > 0 ? (double)r->bytes[d] / secs : 0.0, "bytes",
                         (json_int_t)r->bytes[d], "lat_ns", hist_lat_json(r->lat[d], pcts, npct),
                         "errors", (json_int_t)r->errors[d]);
}

static json_t *load_json(const struct scale_load_spec *sp, const struct scale_load_res *r,
                         const double *pcts, unsigned npct)
{
        json_t *o =
            json_pack("{s:s,s:i,s:i,s:i,s:i,s:f,s:f,s:o,s:o,s:I}", "rw", scale_load_rw_name(sp->rw),
                      "bs", (int)sp->bs, "iodepth", (int)sp->iodepth, "rwmixread",
                      (int)sp->rwmixread, "numjobs", (int)sp->numjobs, "seconds", r->seconds,
                      "iops", scale_load_iops(r), "read", load_dir_json(r, BLK_READ, pcts, npct),
                      "write", load_dir_json(r, BLK_WRITE, pcts, npct), "errors",
                      (json_int_t)(r->errors[0] + r->errors[1]));

        if (o && r->error[0])
                json_object_set_new(o, "error", json_string(r->error));
        if (o)
                scale_load_res_json(r, o);
        return o;
}

/*
 * The VMs' quota use: cpus and used_pct (their CPU in % of the quota), and
 * from their cgroups' cpu.stat, summed over the VMs: nr_periods,
 * nr_throttled, throttled_usec, with throttled_pct (of the periods) and
 * throttled_time_pct (of the step's time per VM); cpu_source says where
 * the VMs' CPU came from ("cgroup" when every VM's did, else "processes").
 */
static json_t *quota_json(const struct scale_step *s, double used)
{
        struct scale_quota q;

        scale_vm_quota(s, &q);
        return json_pack(
            "{s:f,s:o,s:s,s:o,s:o,s:o,s:o,s:o}", "cpus", s->vm_cpus, "used_pct", num_or_null(used),
            "cpu_source", q.vms && q.cg_vms == q.vms ? "cgroup" : "processes", "nr_periods",
            num_or_null(q.periods), "nr_throttled", num_or_null(q.throttled), "throttled_usec",
            num_or_null(q.throttled_s < 0 ? -1 : q.throttled_s * 1e6), "throttled_pct",
            num_or_null(q.throttled_pct), "throttled_time_pct", num_or_null(q.throttled_time_pct));
}

void scale_console_name(char *out, size_t outlen, unsigned vms, unsigned vm)
{
        snprintf(out, outlen, "console-%uvms-vm%u.log", vms, vm);
}

static json_t *consoles_json(const struct scale_step *s)
{
        json_t *a = json_array();
        char name[64];

        for (unsigned i = 1; a && i <= s->vms && i <= 64; i++) {
                if (!(s->consoles & (1ULL << (i - 1))))
                        continue;
                scale_console_name(name, sizeof(name), s->vms, i);
                json_array_append_new(a, json_string(name));
        }
        return a;
}

json_t *scale_step_json(const struct scale_step *s, const double *pcts, unsigned npct,
                        const struct scale_load_spec *load)
{
        double load_iops = load->on && s->load.ran ? scale_load_iops(&s->load) : -1;
        json_t *o = json_pack(
            "{s:i,s:s,s:o,s:{s:f,s:f,s:f},s:f,s:o,s:o,s:o,s:o,s:o}", "vms", (int)s->vms, "state",
            scale_state_name(s->state), "totals", step_totals(&s->total, s->seconds, s->tps),
            "tps_spread", "min", s->tps_min, "median", s->tps, "max", s->tps_max, "tps_per_vm",
            s->vms ? s->tps / s->vms : 0.0, "lat_ns", hist_lat_json(s->lat, pcts, npct), "hist",
            hist_to_json(s->lat), "host_cpu", cpu_json(&s->cpu), "storage",
            storage_json(&s->rates, load_iops, s->vms), "memory",
            memory_json(&s->rates, s->nrep > 0));
        double own[4], quota;

        if (!o)
                return NULL;
        if (s->nrep)
                add_windows(o, &s->rep[0], &s->rep[s->nrep - 1]);
        scale_cpu_owners(s, own, &quota);
        json_object_set_new(o, "cpu_by_owner",
                            json_pack("{s:o,s:o,s:o,s:f}", "vms", num_or_null(own[0]), "storage",
                                      num_or_null(own[1]), "driver", num_or_null(own[2]), "other",
                                      own[3]));
        json_object_set_new(o, "vm_quota", quota_json(s, quota));
        if (s->compute_cpus[0]) {
                json_t *c = cpu_json(&s->compute_cpu);

                json_object_set_new(c, "cpus", json_string(s->compute_cpus));
                json_object_set_new(o, "compute_cpu", c);
        }
        if (s->hosts)
                json_object_set_new(o, "cluster", lab_hosts_json(s->hosts));
        if (s->error[0])
                json_object_set_new(o, "error", json_string(s->error));
        if (s->consoles)
                json_object_set_new(o, "console_logs", consoles_json(s));
        if (s->have_steady)
                json_object_set_new(o, "steady", steady_to_json(&s->steady));
        if (s->drivers)
                json_object_set_new(o, "drivers", json_incref(s->drivers));
        if (s->nrep == 1 && s->rep[0].niv)
                json_object_set_new(o, "intervals", intervals_json(&s->rep[0]));
        json_object_set_new(o, "tps_band", band_json(s));
        if (load->on && s->load.ran &&
            json_object_set_new(o, "block_load", load_json(load, &s->load, pcts, npct))) {
                json_decref(o);
                return NULL;
        }
        if (add_repeats_and_vms(o, s, pcts, npct) ||
            (s->monitor && json_object_set(o, "monitor", s->monitor))) {
                json_decref(o);
                return NULL;
        }
        return o;
}
