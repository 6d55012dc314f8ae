/*
 * scale_run.h - the state of one `hcisweep scale` run, shared by the files
 * that run it: cmd_scale.c (the step loop), scale_opts.c (options and the
 * plan), scale_vms.c (VMs and their tables), scale_json.c (the result).
 * Internal to scale/; one controlling thread.
 */
#ifndef HCI_SCALE_SCALE_RUN_H
#define HCI_SCALE_SCALE_RUN_H

#include <signal.h>
#include <stddef.h>
#include <jansson.h>

#include "core/parse.h"
#include "core/opts.h"
#include "core/monitor.h"
#include "oltp/engine.h"
#include "oltp/oltpopts.h"
#include "oltp/live.h"
#include "lab/labopts.h"
#include "results/save.h"
#include "results/tip_json.h"
#include "results/tip_verdict.h"
#include "scale/scale.h"
#include "lab/cluster.h"
#include "scale/search.h"

#define MAX_PCT 16 /* --percentiles kept */

/* The options of scale alone; the lab is described by labopts.h. */
struct scale_cfg {
        char *output_dir, *block_load, *vms_spec;
        long long repeat, resolution;
        double latency_slo, lost_timeout;
        int keep_lab, dry_run, explain, metrics_optional;
        int driver_placement; /* 0 controller, 1 vm (scale_drivers.h) */
};

/* The plan of --vms: a list of counts, or a search (search.h). */
struct scale_plan {
        struct u64_list vms; /* a list's counts */
        int search;          /* auto[:MAX] */
        struct search_cfg cfg;
        unsigned nslots;                /* the most steps it may take */
        unsigned max;                   /* the most VMs it may ask for */
        unsigned order[PARSE_LIST_MAX]; /* a search's counts, in the order measured */
        unsigned norder;
};

/* What the user asked for: the options as parsed and checked. */
struct scale_conf {
        struct scale_cfg cfg;
        struct lab_cfg lab;
        struct opt_group g[4]; /* scale, lab, oltp */
        struct oltp_cli *oc;
        struct lab_spec spec;
        struct scale_load_spec load; /* --block-load */
        double pcts[MAX_PCT];
        unsigned npct;
        double plan_s; /* seconds of measured and warm-up runs in the plan */
        /* each run's longest warm-up and measurement, and --target-ci (0: none) */
        double warmup_max_s, time_s, target_ci_pct;
        struct scale_plan plan;
};

/* The lab as the run uses it: the backend and what is known of each VM. */
struct scale_lab {
        const struct lab_backend_ops *ops;
        struct lab_backend *b;
        struct oltp_dsn dsn[LAB_MAX_VMS];
        char pw[LAB_MAX_VMS][256];
        int has_tables[LAB_MAX_VMS + 1];
        int watched[LAB_MAX_VMS + 1]; /* PIDs the monitor follows; [0]: the target */
        /* VM i's data disk as last seen: for the result's lab object */
        struct lab_vm_stats disk[LAB_MAX_VMS + 1];
        char lun[LAB_MAX_VMS + 1][LAB_PATH_MAX];
        unsigned ndisk;
};

/* What watches the runs: the counters, the host monitor, the block load. */
struct scale_watch {
        struct scale_probe *probe;
        struct lab_cluster *cluster; /* every host of the lab (lab/cluster.h) */
        struct scale_load *ld;       /* the step's LUNs, open */
        struct mon *mon;             /* the whole run */
        int mon_stopped;
        struct metrics *metrics; /* --metrics-listen, or NULL */
        struct oltp_live *live;
        struct scale_live_vms *vlive; /* --metrics-listen with drivers in the VMs (live.h) */
};

/* The measured run in flight, as the engine's tick sees it. */
struct scale_flight {
        struct scale_step *step;
        unsigned rep;
        double warmup_s;
        int window_open;
        struct scale_snap snap0;
        uint64_t t0;
        double done_s; /* of this run, warm-up included */
        char ci[32];   /* ", CI 2.1%" once the steady-state rule has one */
};

struct scale {
        struct scale_conf conf;
        struct scale_lab lab;
        struct scale_watch watch;
        struct scale_flight run;
        struct scale_step *steps;
        unsigned nsteps;
        struct progress *prog;
        double done_s;     /* seconds of runs done (warm-up included) */
        unsigned runs;     /* runs done */
        unsigned max_runs; /* runs the plan may take */
        double run_max_s;  /* the longest one run may take */
        char stop_reason[256];
        struct res_save save; /* where the result goes (results/save.h) */
        int save_failed;      /* the final result could not be written: exit 4 */
};

/* ---- scale_opts.c: options and the plan ---- */

/* Parse and check argv into s->conf (s->lab.ops too): 0, 1 after --help,
 * -EINVAL / -ENOMEM with err. */
int scale_parse(struct scale *s, int argc, char **argv, char *err, size_t errlen);
/* The plan against the opened backend: it can give what the spec asks
 * (-ENOTSUP, exit 3: e.g. no CPU controller for --vm-cpus), and a static
 * inventory lists as many VMs as the plan asks (plain auto shrinks to what
 * it has). */
int scale_check_backend(struct scale *s, char *err, size_t errlen);
/* What the run would refuse, refused up front for the run and --dry-run
 * alike (0, or -EINVAL and others with err). */
int scale_check_run(struct scale *s, char *err, size_t errlen);
/* What the plan will do and how long it may take at worst (--dry-run, and before step one). */
void scale_print_plan(const struct scale *s, const struct oltp_engine_cfg *ec);
/* A step of vms VMs, its histograms allocated. */
int scale_step_init(struct scale *s, struct scale_step *st, unsigned vms);
/* Room for every step the plan may take; a list's steps are set up now, a search's as it goes. */
int scale_alloc_steps(struct scale *s);
void scale_free_steps(struct scale *s);

/* ---- scale_vms.c: the VMs ---- */

/* Bring VMs 1..n up (keeping running ones) and ready for the workload. */
int scale_step_up(struct scale *s, unsigned n, char *err, size_t errlen);
void scale_free_dsns(struct scale *s);
/* A failed step keeps each VM's console tail in the run directory. */
void scale_save_consoles(struct scale *s, struct scale_step *st);

/* ---- scale_json.c: the result ---- */

/* The steps as JSON (NULL on ENOMEM). */
json_t *scale_steps_json(struct scale *s);
/* The tipping point and its verdict as the result file will hold them; *steps, *tj
 * owned by the caller. */
void scale_tipping(struct scale *s, struct res_tip *t, struct res_verdict *v, json_t **steps,
                   json_t **tj);
/* The steps so far, marked partial, so a killed run keeps them. */
void scale_save_progress(struct scale *s);
/* The final result, marked partial unless complete; added to the index. */
int scale_write_result(struct scale *s, json_t *steps, json_t *tj, const char *status);

#endif
