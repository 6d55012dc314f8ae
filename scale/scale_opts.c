/*
 * scale_opts.c - the options and the plan of `hcisweep scale`: the options
 * tables and --help, parsing and checking argv (the plan of --vms, the
 * block load), the plan against the opened backend, the plan printed up
 * front, and the steps it allocates.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"
#include "core/progress.h"
#include "scale/cmd_scale.h"
#include "lab/cluster.h"
#include "scale/scale_run.h"

static const char *const placements[] = {"controller", "vm", NULL};

#define O(f) offsetof(struct scale_cfg, f)
static const struct opt_def scale_opts[] = {
    {"vms", OPT_STR, O(vms_spec), "1,2,4", 0, 0,
     "VM counts of the plan, ascending: 1,2,4 or 4-32:4; or auto[:MAX], a searching plan that "
     "doubles the count until the gain collapses, then bisects (MAX: 64)",
     NULL, 0},
    {"resolution", OPT_INT, O(resolution), "1", 1, LAB_MAX_VMS,
     "--vms auto: bisect until the tipping step's neighbours are this many VMs away", NULL, 0},
    {"repeat", OPT_INT, O(repeat), "1", 1, SCALE_MAX_REPEAT, "measured runs per step", NULL, 0},
    {"latency-slo", OPT_DOUBLE, O(latency_slo), "0", 0, 1e7,
     "stop when a step's p99 exceeds MS milliseconds (0: no limit)", NULL, 0},
    {"lost-vm-timeout", OPT_DOUBLE, O(lost_timeout), "3", 0.1, 3600,
     "a VM unreachable this many seconds ends the step as degraded", NULL, 0},
    {"output-dir", OPT_STR, O(output_dir), "runs", 0, 0,
     "results go to DIR/scale-TIME/result.json (unless --json)", NULL, OPT_F_PATH},
    {"keep-lab", OPT_BOOL, O(keep_lab), "0", 0, 0, "leave the VMs running at the end", NULL, 0},
    {"dry-run", OPT_BOOL, O(dry_run), "0", 0, 0,
     "print the plan and its worst-case duration, start nothing", NULL, 0},
    {"metrics-optional", OPT_BOOL, O(metrics_optional), "0", 0, 0,
     "a lab host whose metrics do not answer when the run starts is recorded as missing "
     "instead of stopping the run",
     NULL, 0},
    {"explain", OPT_BOOL, O(explain), "0", 0, 0,
     "print the evidence behind the verdict: each figure at the tipping step and the step "
     "after it, and the rule it met",
     NULL, 0},
    {"block-load", OPT_STR, O(block_load), NULL, 0, 0,
     "block I/O on every VM's LUN during each measured run: rw=randrw,bs=4k,iodepth=4,"
     "rwmixread=70,numjobs=1 (any of the keys; these are the defaults)",
     NULL, OPT_F_LIST},
    {"driver-placement", OPT_ENUM, O(driver_placement), "controller", 0, 0,
     "where the load runs: controller (one process here drives every VM) or vm (one "
     "`oltp run` per VM: local lab, in the VM's cgroups; qemu and libvirt, in the guest through "
     "its agent; static, over ssh on the host its inventory names)",
     placements, 0},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};
#undef O

/* The options as documentation (cfg NULL): the man page and completion read them. */
const struct opt_group cmd_scale_options[] = {{scale_opts, NULL, "scale options"},
                                              {lab_opts, NULL, "lab options"},
                                              {oltp_opt_defs, NULL, "oltp options"},
                                              {NULL, NULL, NULL}};

static const char usage_text[] =
    "hcisweep scale [options]\n"
    "  Step the number of database VMs through --vms, run the OLTP workload on all of\n"
    "  them at once at every step (--threads connections PER VM), and report TPS, merged\n"
    "  latency, host CPU and storage per step, and the tipping point with the resource\n"
    "  that limited it. Degraded steps still exit 0; a bad plan or inventory exits 2, VMs\n"
    "  that could not be started or prepared exit 3.";

/* ---- options ---------------------------------------------------------- */

/* --vms: a list of counts, or auto[:MAX]. */
static int parse_plan(const char *spec, unsigned resolution, struct scale_plan *p, char *err,
                      size_t errlen)
{
        const struct u64_list *v = &p->vms;
        char why[256];
        uint64_t max = LAB_MAX_VMS;

        memset(p, 0, sizeof(*p));
        if (!strncmp(spec, "auto", 4) && (!spec[4] || spec[4] == ':')) {
                if (spec[4] && (parse_u64(spec + 5, &max, why, sizeof(why)) < 0 || max < 1 ||
                                max > LAB_MAX_VMS)) {
                        snprintf(err, errlen, "option --vms: auto:MAX wants MAX in 1..%d, not '%s'",
                                 LAB_MAX_VMS, spec + 5);
                        return -EINVAL;
                }
                p->search = 1;
                p->cfg = (struct search_cfg){.max = (unsigned)max, .resolution = resolution};
                p->nslots = search_max_steps(&p->cfg);
                p->max = p->cfg.max;
                return 0;
        }
        if (parse_u64_list(spec, 0, &p->vms, why, sizeof(why)) < 0) {
                snprintf(err, errlen, "option --vms: %s", why);
                return -EINVAL;
        }
        for (unsigned i = 0; i < v->n; i++)
                if (v->v[i] < 1 || v->v[i] > LAB_MAX_VMS || (i && v->v[i] <= v->v[i - 1])) {
                        snprintf(err, errlen,
                                 i && v->v[i] <= v->v[i - 1]
                                     ? "option --vms: the plan must ascend (%llu after %llu)"
                                 : v->v[i] < 1 ? "option --vms: %llu is below the minimum 1"
                                               : "option --vms: %llu is above the maximum 64",
                                 (unsigned long long)v->v[i],
                                 (unsigned long long)(i ? v->v[i - 1] : 0));
                        return -EINVAL;
                }
        if (!v->n) {
                snprintf(err, errlen, "option --vms: empty plan");
                return -EINVAL;
        }
        p->nslots = v->n;
        p->max = (unsigned)v->v[v->n - 1];
        return 0;
}

static int check_plan(struct scale *s, char *err, size_t errlen)
{
        return parse_plan(s->conf.cfg.vms_spec, (unsigned)s->conf.cfg.resolution, &s->conf.plan,
                          err, errlen);
}

/* --driver-placement vm: a backend that can start a driver in its VMs, a run of fixed
 * length (or --target-ci); the live endpoint is fed by the drivers (live.h). */
static int check_placement(struct scale *s, char *err, size_t errlen)
{
        const struct oltp_opts *o = oltp_cli_opts(s->conf.oc);

        if (!s->conf.cfg.driver_placement)
                return 0;
        if (!s->lab.ops->spawn) {
                snprintf(err, errlen, "--driver-placement vm: not supported by the %s backend yet",
                         s->lab.ops->name);
                return -EINVAL;
        }
        if (o->time <= 0) {
                snprintf(err, errlen, "--driver-placement vm: --time 0 not supported with it yet");
                return -EINVAL;
        }
        return 0;
}

/* The lab's LUNs take the block load; a backend without storage has none. */
static int check_load(struct scale *s, char *err, size_t errlen)
{
        if (!s->conf.cfg.block_load)
                return 0;
        if (!s->lab.ops->has_storage) {
                snprintf(err, errlen, "option --block-load: the %s backend has no LUNs to load",
                         s->lab.ops->name);
                return -EINVAL;
        }
        return scale_load_parse(s->conf.cfg.block_load, &s->conf.load, err, errlen);
}

int scale_parse(struct scale *s, int argc, char **argv, char *err, size_t errlen)
{
        char *pos[1];
        int npos = 0, help = 0;

        s->conf.oc = oltp_cli_new(&s->conf.g[2]);
        if (!s->conf.oc) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        s->conf.g[0] = (struct opt_group){scale_opts, &s->conf.cfg, "scale options"};
        s->conf.g[1] = (struct opt_group){lab_opts, &s->conf.lab, "lab options"};
        if (opt_defaults(s->conf.g, err, errlen) < 0 ||
            opt_parse_argv(s->conf.g, argc - 1, argv + 1, pos, 1, &npos, &help, err, errlen) < 0)
                return -EINVAL;
        if (help) {
                opt_help(stdout, s->conf.g, usage_text);
                return 1;
        }
        if (npos) {
                snprintf(err, errlen, "scale: unexpected argument '%s'", pos[0]);
                return -EINVAL;
        }
        if (lab_spec(&s->conf.lab, &s->conf.spec, &s->lab.ops, err, errlen) < 0 ||
            check_plan(s, err, errlen) < 0 || check_load(s, err, errlen) < 0 ||
            oltp_cli_setup(s->conf.oc, err, errlen) < 0 ||
            oltp_cli_check_outputs(s->conf.oc, err, errlen) < 0 ||
            oltp_cli_workload(s->conf.oc, err, errlen) < 0 ||
            res_save_open(&s->save, "scale", "scale", oltp_cli_json(s->conf.oc),
                          s->conf.cfg.output_dir, err, errlen) < 0)
                return -EINVAL;
        if (check_placement(s, err, errlen) < 0)
                return -EINVAL;
        s->conf.spec.drivers_in_vms = s->conf.cfg.driver_placement != 0;
        const char *user, *db, *pw;
        oltp_cli_login(s->conf.oc, &user, &db, &pw);
        s->conf.spec.have_password = pw != NULL;
        s->conf.npct = oltp_cli_percentiles(s->conf.oc, s->conf.pcts, MAX_PCT);
        return 0;
}

/* ---- the steps it allocates ------------------------------------------------ */

/* A step of vms VMs, its histograms allocated. */
int scale_step_init(struct scale *s, struct scale_step *st, unsigned vms)
{
        st->vms = vms;
        st->vm_cpus = s->conf.spec.vm_cpus;
        if (!(st->lat = hist_new()))
                return -ENOMEM;
        for (unsigned v = 1; v <= st->vms; v++)
                if (!(st->vm[v].lat = hist_new()))
                        return -ENOMEM;
        for (unsigned d = 0; s->conf.load.on && d < 2; d++)
                if (!(st->load.lat[d] = hist_new()))
                        return -ENOMEM;
        return 0;
}

/* Room for every step the plan may take; a list's steps are set up now, a search's as it goes. */
int scale_alloc_steps(struct scale *s)
{
        const struct scale_plan *p = &s->conf.plan;

        s->steps = calloc(p->nslots, sizeof(*s->steps));
        if (!s->steps)
                return -ENOMEM;
        for (unsigned i = 0; !p->search && i < p->vms.n; i++)
                if (scale_step_init(s, &s->steps[i], (unsigned)p->vms.v[i]) < 0)
                        return -ENOMEM;
        return 0;
}

void scale_free_steps(struct scale *s)
{
        for (unsigned i = 0; s->steps && i < s->conf.plan.nslots; i++) {
                hist_free(s->steps[i].lat);
                for (unsigned v = 1; v <= LAB_MAX_VMS; v++)
                        hist_free(s->steps[i].vm[v].lat);
                scale_load_res_free(&s->steps[i].load);
                json_decref(s->steps[i].monitor);
                json_decref(s->steps[i].drivers);
                lab_hosts_free(s->steps[i].hosts);
                for (unsigned r = 0; r < SCALE_MAX_REPEAT; r++) {
                        free(s->steps[i].rep[r].iv_tps);
                        free(s->steps[i].rep[r].iv_t);
                }
        }
        free(s->steps);
}

int scale_check_backend(struct scale *s, char *err, size_t errlen)
{
        struct scale_plan *p = &s->conf.plan;
        unsigned have;

        if (s->lab.ops->check && s->lab.ops->check(s->lab.b, err, errlen) < 0)
                return -ENOTSUP;   /* e.g. no CPU controller for --vm-cpus: exit 3 */
        if (s->lab.ops->can_start) /* it makes as many VMs as the plan asks */
                return 0;
        have = s->lab.ops->count(s->lab.b);
        if (p->search && !strcmp(s->conf.cfg.vms_spec, "auto") && have < p->max) {
                /* plain auto searches what the inventory has */
                p->cfg.max = p->max = have ? have : 1;
                p->nslots = search_max_steps(&p->cfg);
                s->max_runs = p->nslots * (unsigned)s->conf.cfg.repeat;
        }
        if (have < p->max) {
                snprintf(err, errlen,
                         "option --vms: the plan goes to %u VMs, the inventory lists %u", p->max,
                         have);
                return -EINVAL;
        }
        return 0;
}

/* ---- the plan, up front ---------------------------------------------------------- */

/*
 * What the run would refuse before it starts anything, checked for the run
 * and --dry-run alike: the --metrics-listen address, and the plan against
 * a backend that cannot start VMs (its inventory is read, nothing opened).
 */
int scale_check_run(struct scale *s, char *err, size_t errlen)
{
        const char *listen = oltp_cli_opts(s->conf.oc)->metrics_listen;
        struct lab_backend *b = NULL;
        int rc;

        if (listen && listen[0] && metrics_check_listen(listen, NULL, err, errlen) < 0)
                return -EINVAL;
        if (s->lab.ops->can_start) /* a backend without hosts is this one: its source checked */
                return s->lab.ops->host
                           ? 0
                           : lab_cluster_check(s->lab.ops, NULL, &s->conf.spec, err, errlen);
        rc = s->lab.ops->open(&s->conf.spec, &b, err, errlen);
        if (rc < 0)
                return rc;
        s->lab.b = b;
        rc = scale_check_backend(s, err, errlen);
        s->lab.ops->close(b);
        s->lab.b = NULL;
        return rc;
}

/* What the plan will do and how long it may take at worst (--dry-run, and before step one). */
void scale_print_plan(const struct scale *s, const struct oltp_engine_cfg *ec)
{
        const struct scale_plan *p = &s->conf.plan;
        char one[32], all[32];

        printf("plan:");
        for (unsigned i = 0; i < p->vms.n; i++)
                printf("%s%llu", i ? ", " : " ", (unsigned long long)p->vms.v[i]);
        if (p->search)
                printf(
                    " search up to %u VMs: doubling 1, 2, 4... until the tipping-point rule sees "
                    "the gain collapse, then bisecting until the tipping step's neighbours are "
                    "%u VM(s) away; at most %u steps,",
                    p->max, p->cfg.resolution, p->nslots);
        else
                printf(" VMs,");
        printf(" %lld run(s) per step\n", s->conf.cfg.repeat);
        if (ec->target_ci_pct > 0)
                printf(
                    "each run: warm-up until throughput is steady (at most %g s), measured until "
                    "the 95%% CI of its mean is within %g%% (at most %g s)\n",
                    oltp_engine_warmup_max(ec), ec->target_ci_pct, ec->time_s);
        else
                printf("each run: warm-up %g s, measured %g s\n", ec->warmup_s, ec->time_s);
        if (ec->target_ci_pct > 0 && oltp_engine_warmup_max(ec) < scale_min_warmup_s())
                printf("note: a warm-up of at most %g s is shorter than the %g s the steady-state "
                       "rule needs to see TPS settle: no step can settle (--warmup-time %g or "
                       "more)\n",
                       oltp_engine_warmup_max(ec), scale_min_warmup_s(), scale_min_warmup_s() + 5);
        prog_fmt_duration(one, sizeof(one), s->run_max_s);
        prog_fmt_duration(all, sizeof(all), s->conf.plan_s);
        printf("worst case: %u run(s) of at most %s = %s, plus starting VMs and preparing "
               "tables\n",
               s->max_runs, one, all);
        fflush(stdout);
}

int cmd_scale_check_option(const char *name, const char *val, char *err, size_t errlen)
{
        struct scale_cfg *cfg = calloc(1, sizeof(*cfg));
        struct lab_cfg *lab = calloc(1, sizeof(*lab));
        struct opt_group g[4] = {{scale_opts, cfg, NULL}, {lab_opts, lab, NULL}, {0}, {0}};
        struct oltp_cli *oc = cfg && lab ? oltp_cli_new(&g[2]) : NULL;
        struct scale_load_spec sp;
        int rc = -ENOMEM;

        if (!oc) {
                snprintf(err, errlen, "out of memory");
                goto out;
        }
        rc = opt_defaults(g, err, errlen);
        if (!rc)
                rc = opt_set(g, name, val, err, errlen);
        if (!rc && !strcmp(name, "vms")) {
                struct scale_plan p;

                rc = parse_plan(cfg->vms_spec, 1, &p, err, errlen);
        }
        if (!rc && cfg->block_load)
                rc = scale_load_parse(cfg->block_load, &sp, err, errlen);
        opt_free(g);
out:
        oltp_cli_free(oc);
        free(lab);
        free(cfg);
        return rc;
}
