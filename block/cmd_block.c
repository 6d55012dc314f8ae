/*
 * cmd_block.c - `hcisweep block`: one block run, or a sweep over lists of
 * --rw, --bs and --iodepth, against iSCSI LUNs, files or devices.
 *
 * This file is the command: options, target checks, the sweep order, the
 * human table and the result JSON. The measuring itself is block/run.c.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block/block.h"
#include "block/run.h"
#include "block/inuse.h"
#include "block/safety.h"
#include "block/url.h"
#include "core/clock.h"
#include "core/driverproto.h"
#include "core/exitcode.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/monitor.h"
#include "core/opts.h"
#include "core/progress.h"
#include "core/resfile.h"
#include "core/secret.h"
#include "block/fio_json.h"
#include "block/live.h"
#include "block/client_driver.h"
#include "block/clients.h"
#include "block/clients_scan.h"
#include "lab/labopts.h"
#include "results/rundir.h"
#include "results/save.h"

#define MAX_TARGETS            64
#define BLK_MAX_INFLIGHT_BYTES (1ull << 30) /* --bs x --iodepth of one job */

struct blk_cfg {
        char *target, *filename, *json, *output_dir, *initiator, *metrics_listen;
        char *chap_secret_file, *chap_target_secret_file, *clients, *inventory;
        int engine, start_on_go, steady_remote, stonewall, per_client, clients_optional;
        struct u64_list rw, bs, iodepth, percentile, client_counts;
        long long rwmixread, numjobs, sessions, runtime, ramp_time, precondition_time;
        long long log_interval_ms, monitor_interval, io_timeout, vms;
        long long batch_submit, batch_complete_min, batch_complete_max;
        int fixedbufs, hipri, sqthread_poll;
        uint64_t size, offset;
        int direct, verify, precondition, force, quiet, output_format, no_index;
        double target_ci;
};

/* --clients vms: the lab options find the clients */
static int uses_lab(const struct blk_cfg *c)
{
        return c->clients && !strcmp(c->clients, "vms");
}

static const char *const verify_names[] = {"none", "crc32c", NULL};
static const char *const stonewall_names[] = {"first", "last", NULL};

#define O(f) offsetof(struct blk_cfg, f)
static const struct opt_def block_opts[] = {
    {"target", OPT_STR, O(target), NULL, 0, 0,
     "iSCSI LUNs: iscsi://[user%pass@]host[:port]/IQN/LUN[,URL...]", NULL, OPT_F_LIST},
    {"chap-secret-file", OPT_STR, O(chap_secret_file), NULL, 0, 0,
     "CHAP secret of the URL's user (iscsi://USER@host/...): the first line of this file", NULL,
     OPT_F_PATH},
    {"chap-target-secret-file", OPT_STR, O(chap_target_secret_file), NULL, 0, 0,
     "mutual CHAP: the secret of ?target_user=U, the first line of this file", NULL, OPT_F_PATH},
    {"filename", OPT_STR, O(filename), NULL, 0, 0, "files or block devices: PATH[,PATH...]", NULL,
     OPT_F_LIST | OPT_F_PATH},
    {"engine", OPT_ENUM, O(engine), "auto", 0, 0,
     "I/O engine (auto: libiscsi for URLs, io_uring for paths)", blk_engine_choices, 0},
    {"rw", OPT_ENUMLIST, O(rw), "randread", 0, 0, "access pattern(s), a list sweeps", blk_rw_names,
     0},
    {"rwmixread", OPT_INT, O(rwmixread), "50", 0, 100, "percent of reads in randrw", NULL, 0},
    {"bs", OPT_SIZELIST, O(bs), "4k", 512, 64 << 20, "block size(s), a list sweeps", NULL, 0},
    {"iodepth", OPT_LIST, O(iodepth), "1", 1, 4096,
     "I/Os in flight per job: 1,4,16 or 1-128 (doubling) sweeps", NULL, 0},
    {"iodepth_batch_submit", OPT_INT, O(batch_submit), "1", 0, 4096,
     "push queued I/Os to the engine every N, as fio (0: once per refill, in the reap's system "
     "call)",
     NULL, 0},
    {"iodepth_batch_complete_min", OPT_INT, O(batch_complete_min), "1", 1, 4096,
     "wait for at least N completions before refilling", NULL, 0},
    {"iodepth_batch_complete_max", OPT_INT, O(batch_complete_max), "0", 0, 4096,
     "take at most N completions per reap (0: iodepth)", NULL, 0},
    {"fixedbufs", OPT_BOOL, O(fixedbufs), "0", 0, 0,
     "io_uring: register the I/O buffers with the kernel once", NULL, 0},
    {"hipri", OPT_BOOL, O(hipri), "0", 0, 0,
     "io_uring: polled completions (--direct; the device needs poll queues)", NULL, 0},
    {"sqthread_poll", OPT_BOOL, O(sqthread_poll), "0", 0, 0,
     "io_uring: a kernel thread polls for submissions (one CPU busy per job)", NULL, 0},
    {"numjobs", OPT_INT, O(numjobs), "1", 1, 256, "jobs (threads) per target", NULL, 0},
    {"sessions", OPT_INT, O(sessions), "1", 1, 64, "iSCSI sessions per LUN (per job)", NULL, 0},
    {"runtime", OPT_INT, O(runtime), "10", 1, 86400, "measured seconds per sweep point", NULL, 0},
    {"target-ci", OPT_DOUBLE, O(target_ci), "0", 0, 100,
     "end each point's ramp once IOPS is steady and the point once its mean's 95% CI is within "
     "PCT percent (--ramp-time and --runtime are then the longest; 0: fixed lengths)",
     NULL, 0},
    {"ramp-time", OPT_INT, O(ramp_time), "0", 0, 86400,
     "seconds run before measuring each point (never counted)", NULL, 0},
    {"size", OPT_SIZE, O(size), "0", 0, 0,
     "bytes of each target to use (0: all; files are created this big)", NULL, 0},
    {"offset", OPT_SIZE, O(offset), "0", 0, 0, "start of the region in each target", NULL, 0},
    {"direct", OPT_BOOL, O(direct), "0", 0, 0, "O_DIRECT for files and devices", NULL, 0},
    {"verify", OPT_ENUM, O(verify), "none", 0, 0, "stamp writes and check them back (crc32c)",
     verify_names, 0},
    {"precondition", OPT_BOOL, O(precondition), "0", 0, 0,
     "write the whole region sequentially before measuring", NULL, 0},
    {"precondition-time", OPT_INT, O(precondition_time), "0", 0, 86400,
     "then random-write this many seconds (with --precondition)", NULL, 0},
    {"percentile", OPT_DLIST, O(percentile), "50,90,95,99,99.9,99.99", 0.0001, 100,
     "latency percentiles in the JSON", NULL, 0},
    {"json", OPT_STR, O(json), NULL, 0, 0, "write the result JSON here", NULL, OPT_F_PATH},
    {"output-format", OPT_ENUM, O(output_format), "json", 0, 0,
     "json (hcisweep's), or fio-json / fio-json+ (fio's layout; in a run dir: fio.json too)",
     blk_fio_format_names, 0},
    {"output-dir", OPT_STR, O(output_dir), "runs", 0, 0,
     "runs directory (result in DIR/block-TIME/result.json)", NULL, OPT_F_PATH},
    {"force", OPT_BOOL, O(force), "0", 0, 0, "write even over a partition table or filesystem",
     NULL, 0},
    {"io-timeout", OPT_INT, O(io_timeout), "30", 1, 3600,
     "seconds an I/O may stay unanswered: then it fails as a timeout (an error) and the run "
     "ends, partial, exit 3",
     NULL, 0},
    {"initiator-name", OPT_STR, O(initiator), NULL, 0, 0, "iSCSI initiator IQN", NULL, 0},
    {"log-interval", OPT_INT, O(log_interval_ms), "1000", 100, 60000,
     "milliseconds per entry of the per-interval IOPS series", NULL, 0},
    {"monitor-interval", OPT_INT, O(monitor_interval), "2", 1, 600,
     "seconds between host monitor samples", NULL, 0},
    {"quiet", OPT_BOOL, O(quiet), "0", 0, 0, "print only the result path and errors", NULL, 0},
    {"no-index", OPT_BOOL, O(no_index), "0", 0, 0,
     "keep the result out of the run index (the lab's own checks of its data path)", NULL, 0},
    {"clients", OPT_STR, O(clients), NULL, 0, 0,
     "run the sweep on many clients at once, in lockstep: local:N (N processes here), vms (the "
     "lab's VMs, found with the lab options, each in its VM on its load LUN) or inventory "
     "(--inventory's [host NAME] sections with role = client, over ssh); targets not given per "
     "client are dealt round-robin",
     NULL, 0},
    {"inventory", OPT_STR, O(inventory), NULL, 0, 0,
     "with --clients inventory: the static inventory ([host NAME]: role = client, ssh = "
     "[user@]host[:port], targets = URL|PATH[,...]); with --clients vms --backend static: its "
     "servers",
     NULL, OPT_F_PATH},
    {"vms", OPT_INT, O(vms), "0", 0, LAB_MAX_VMS,
     "with --clients vms: the lab's first N VMs are the clients (0: every VM it has)", NULL, 0},
    {"stonewall", OPT_ENUM, O(stonewall), "first", 0, 0,
     "with --clients: the window of the headline figure: first (while every client ran) or "
     "last (until every client was done); both are recorded",
     stonewall_names, 0},
    {"client-counts", OPT_LIST, O(client_counts), NULL, 1, 256,
     "with --clients: a client-count scan, the sweep on the first N clients for each N "
     "(1,2,4,8), with the scaling efficiency X(N) / (N x X(1)) and a verdict",
     NULL, 0},
    {"per-client", OPT_BOOL, O(per_client), "0", 0, 0,
     "with --clients: a row per client under each point's aggregate row", NULL, 0},
    {"clients-optional", OPT_BOOL, O(clients_optional), "0", 0, 0,
     "with --clients: a client that cannot be reached before the first point is recorded as "
     "missing (clients_missing[] in the result, a warning here) and the others run, instead of "
     "exit 3",
     NULL, 0},
    {"start-on-go", OPT_BOOL, O(start_on_go), "0", 0, 0,
     "run as a client of --clients: the driver protocol on stdin and stdout (ready, go, "
     "result per point)",
     NULL, 0},
    {"steady-remote", OPT_BOOL, O(steady_remote), "0", 0, 0,
     "with --start-on-go: print an I/O count sample every 0.5 s, open each point's measured "
     "window on a \"" DRIVER_LINE_MEASURE "\" line and close it on a \"" DRIVER_LINE_STOP
     "\" line on stdin (the controller's --target-ci decides on its clients' merged series)",
     NULL, OPT_F_HIDDEN},
    METRICS_LISTEN_OPT(O(metrics_listen)),
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};
#undef O

/* The options as documentation (cfg NULL): the man page and completion read them. */
const struct opt_group cmd_block_options[] = {
    {block_opts, NULL, "block options"},
    {lab_opts, NULL, "lab and host-reading options (--clients)"},
    {NULL, NULL, NULL}};

static const char usage_text[] =
    "hcisweep block [options]\n"
    "  e.g. hcisweep block --target iscsi://127.0.0.1:3260/iqn.2026-11.io.hcisweep:lab/1 \\\n"
    "         --rw randread,randwrite --bs 4k --iodepth 1-64 --runtime 10\n"
    "  A lost target (exit 3) is a session that never came back or I/Os unanswered past\n"
    "  --io-timeout; exit 1 means verify mismatches. A run that ends early writes what it\n"
    "  measured, marked \"partial\": true.";

struct target {
        struct blk_target_spec spec;
        char label[128]; /* printable name: no credentials */
        int is_url, is_dev, created;
};

struct block_cmd {
        struct blk_cfg cfg;
        struct opt_group groups[3]; /* block, lab (--clients vms) */
        struct lab_cfg lab;
        struct lab_spec spec;
        const struct lab_backend_ops *lab_ops;
        struct target t[MAX_TARGETS];
        unsigned nt;
        char *lists[2];
        struct blk_geom geom[MAX_TARGETS];
        struct blk_run *run;
        unsigned per; /* workers per target */
        int split;    /* each worker has its own slice of the region */
        struct mon *mon;
        struct progress *prog;
        struct metrics *metrics; /* --metrics-listen, or NULL */
        struct blk_live *live;
        json_t *result, *points;
        double plan_s, done_s;
        char chap[2][256];    /* CHAP secrets read from files: initiator, target (mutual) */
        char why[512];        /* the first target failure, for partial_reason */
        struct res_save save; /* where the result goes (results/save.h) */
        struct blk_drv *drv;  /* --start-on-go: the driver protocol on stdio */
        int drv_ended;        /* --start-on-go: the input ended or stop came before a go */
        int degraded;         /* --clients: a point lacked a client */
};

static struct blk_run *volatile running;
static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
        (void)sig;
        stopping = 1;
        if (running)
                blk_run_interrupt(running);
}

/* "iscsi://user%pass@host/iqn/1?target_password=x" -> "host/iqn/1". */
static void url_label(const char *url, char *out, size_t len)
{
        const char *p = strstr(url, "://") ? strstr(url, "://") + 3 : url;
        const char *at = strchr(p, '@'), *slash = strchr(p, '/');

        if (at && (!slash || at < slash))
                p = at + 1;
        snprintf(out, len, "%s", p);
        out[strcspn(out, "?")] = '\0';
}

static int add_target(struct block_cmd *b, const char *item, const struct blk_engine_ops *ops,
                      char *err, size_t errlen)
{
        struct target *t = &b->t[b->nt];
        struct stat st;

        if (b->nt == MAX_TARGETS) {
                snprintf(err, errlen, "more than %d targets", MAX_TARGETS);
                return -EINVAL;
        }
        if (!strncmp(item, "iscsi://", 8)) {
                char label[sizeof(t->label)];

                /* The same LUN twice would be measured as two targets: twice the figures. */
                url_label(item, label, sizeof(label));
                for (unsigned i = 0; i < b->nt; i++)
                        if (b->t[i].is_url && !strcmp(b->t[i].label, label)) {
                                snprintf(err, errlen, "option --target: %s is given twice", label);
                                return -EINVAL;
                        }
        }
        t->spec.path = item;
        t->spec.label = t->label;
        t->spec.ops = ops;
        t->is_url = strncmp(item, "iscsi://", 8) == 0;
        if (t->is_url)
                url_label(item, t->label, sizeof(t->label));
        else
                snprintf(t->label, sizeof(t->label), "%s", item);
        if (!t->is_url && stat(item, &st) == 0)
                t->is_dev = S_ISBLK(st.st_mode);
        else if (!t->is_url && (ops->caps & BLK_CAP_NEEDS_SIZE))
                t->created = 1;
        b->nt++;
        return 0;
}

/* The engine for a target: what --engine says, or what fits the target. */
static const struct blk_engine_ops *pick_engine(int engine, int is_url, char *err, size_t errlen)
{
        const char *name = blk_engine_choices[engine];
        const struct blk_engine_ops *ops;

        if (engine == 0)
                name = is_url ? "libiscsi" : "io_uring";
        ops = blk_engine_find(name);
        if (!ops && engine == 0 && !is_url)
                ops = blk_engine_find("psync");
        if (!ops) {
                snprintf(err, errlen, "option --engine: %s is not built into this hcisweep", name);
                return NULL;
        }
        if (ops->caps & BLK_CAP_NO_DATA) {
                /* It does no I/O: figures "of" a target would be the engine's own. */
                snprintf(err, errlen,
                         "option --engine: %s does no I/O and takes no %s (drop the %s, or "
                         "pick another --engine)",
                         ops->name, is_url ? "--target" : "--filename", is_url ? "URL" : "path");
                return NULL;
        }
        if (ops->takes_url != is_url) {
                snprintf(err, errlen, "option --engine: %s takes %s, not %s", ops->name,
                         ops->takes_url ? "--target URLs" : "--filename paths",
                         is_url ? "an iscsi:// URL" : "a path");
                return NULL;
        }
        return ops;
}

static int split_targets(struct block_cmd *b, char *list, int want_url, char *err, size_t errlen)
{
        char *save = NULL;

        for (char *it = strtok_r(list, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
                int is_url = strncmp(it, "iscsi://", 8) == 0;
                const struct blk_engine_ops *ops;

                if (is_url != want_url) {
                        snprintf(err, errlen, "option --%s: '%s' is %s",
                                 want_url ? "target" : "filename", it,
                                 want_url ? "not an iscsi:// URL (use --filename for paths)"
                                          : "a URL (use --target)");
                        return -EINVAL;
                }
                if (is_url && blk_url_check(it, err, errlen) < 0)
                        return -EINVAL;
                if (!(ops = pick_engine(b->cfg.engine, is_url, err, errlen)))
                        return -EINVAL;
                if (add_target(b, it, ops, err, errlen) < 0)
                        return -EINVAL;
        }
        return 0;
}

static int build_targets(struct block_cmd *b, char *err, size_t errlen)
{
        const struct blk_engine_ops *ops =
            b->cfg.engine ? blk_engine_find(blk_engine_choices[b->cfg.engine]) : NULL;
        int rc = 0;

        if (b->cfg.target && (b->lists[0] = strdup(b->cfg.target)))
                rc = split_targets(b, b->lists[0], 1, err, errlen);
        if (rc == 0 && b->cfg.filename && (b->lists[1] = strdup(b->cfg.filename)))
                rc = split_targets(b, b->lists[1], 0, err, errlen);
        if (rc < 0)
                return rc;
        /* An engine that moves no data needs no target: it gets one named after itself. */
        if (b->nt == 0 && ops && (ops->caps & BLK_CAP_NO_DATA))
                return add_target(b, ops->name, ops, err, errlen);
        if (b->nt == 0 && b->cfg.clients &&
            (!strcmp(b->cfg.clients, "inventory") || uses_lab(&b->cfg)))
                return 0; /* each client's section or VM names its own */
        if (b->nt == 0) {
                snprintf(err, errlen,
                         "no target: give --target URL or --filename PATH (or --engine null)");
                return -EINVAL;
        }
        return 0;
}

static int any_writes(const struct blk_cfg *c)
{
        for (unsigned i = 0; i < c->rw.n; i++)
                if (c->rw.v[i] != BLK_RW_RANDREAD && c->rw.v[i] != BLK_RW_READ)
                        return 1;
        return c->precondition;
}

static int any_sequential(const struct blk_cfg *c)
{
        for (unsigned i = 0; i < c->rw.n; i++)
                if (c->rw.v[i] == BLK_RW_READ || c->rw.v[i] == BLK_RW_WRITE)
                        return 1;
        return 0;
}

static uint64_t list_max(const struct u64_list *l)
{
        uint64_t m = 0;
        for (unsigned i = 0; i < l->n; i++)
                m = l->v[i] > m ? l->v[i] : m;
        return m;
}

/*
 * Shapes that cannot run, refused before anything is opened: every job holds
 * --iodepth buffers of the largest --bs in memory.
 */
static int check_shape(const struct blk_cfg *c, char *err, size_t errlen)
{
        uint64_t bs = list_max(&c->bs), qd = list_max(&c->iodepth);
        char bss[16], lim[16], need[16];

        if (bs * qd <= BLK_MAX_INFLIGHT_BYTES)
                return 0;
        fmt_size(bs, bss, sizeof(bss));
        fmt_size(bs * qd, need, sizeof(need));
        fmt_size(BLK_MAX_INFLIGHT_BYTES, lim, sizeof(lim));
        snprintf(
            err, errlen,
            "option --iodepth: %llu I/Os of --bs %s in flight need %s of buffers per job, more "
            "than %s: lower --iodepth or --bs",
            (unsigned long long)qd, bss, need, lim);
        return -EINVAL;
}

/* After opening: a job's region must hold at least --iodepth blocks of every --bs. */
static int check_region_shape(struct block_cmd *b, char *err, size_t errlen)
{
        uint64_t qd = list_max(&b->cfg.iodepth), off, len;
        char bss[16], lens[16];

        for (unsigned i = 0; i < b->nt; i++) {
                blk_run_region(b->run, i, &off, &len);
                if (b->split)
                        len /= b->per;
                for (unsigned j = 0; j < b->cfg.bs.n; j++) {
                        if (len / b->cfg.bs.v[j] >= qd)
                                continue;
                        fmt_size(b->cfg.bs.v[j], bss, sizeof(bss));
                        fmt_size(len, lens, sizeof(lens));
                        snprintf(err, errlen,
                                 "option --iodepth: %llu I/Os of --bs %s in flight do not fit in "
                                 "the %s each job of %s covers: lower --iodepth or --bs",
                                 (unsigned long long)qd, bss, lens, b->t[i].label);
                        return -EINVAL;
                }
        }
        return 0;
}

static int open_run(struct block_cmd *b, char *err, size_t errlen)
{
        const struct blk_cfg *c = &b->cfg;
        int url = 0;

        for (unsigned i = 0; i < b->nt; i++)
                url |= b->t[i].is_url;
        struct blk_run_opts o = {
            .workers_per_target = (unsigned)(c->numjobs * (url ? c->sessions : 1)),
            .max_depth = (unsigned)list_max(&c->iodepth),
            .max_bs = (uint32_t)list_max(&c->bs),
            .offset = c->offset,
            .size = c->size,
            .direct = c->direct,
            .writable = any_writes(c),
            .create_size = c->size ? c->offset + c->size : 0,
            .initiator = c->initiator,
            .split_region = c->verify || any_sequential(c) || c->precondition,
            .io_timeout_ns = (uint64_t)c->io_timeout * 1000000000ull,
            .chap_secret = b->chap[0][0] ? b->chap[0] : NULL,
            .chap_target_secret = b->chap[1][0] ? b->chap[1] : NULL,
            .engine_flags = (c->fixedbufs ? BLK_OPEN_FIXEDBUFS : 0u) |
                            (c->hipri ? BLK_OPEN_HIPRI : 0u) |
                            (c->sqthread_poll ? BLK_OPEN_SQPOLL : 0u),
        };
        struct blk_target_spec specs[MAX_TARGETS];

        b->per = o.workers_per_target;
        b->split = o.split_region;
        for (unsigned i = 0; i < b->nt; i++)
                specs[i] = b->t[i].spec;
        return blk_run_open(&b->run, specs, b->nt, &o, b->geom, err, errlen);
}

/* Every block size must be a whole number of each target's blocks. */
static int check_geometry(struct block_cmd *b, char *err, size_t errlen)
{
        for (unsigned i = 0; i < b->nt; i++)
                for (unsigned j = 0; j < b->cfg.bs.n; j++)
                        if (b->cfg.bs.v[j] % b->geom[i].block_size) {
                                snprintf(
                                    err, errlen,
                                    "option --bs: %llu is not a multiple of %s's block size %u",
                                    (unsigned long long)b->cfg.bs.v[j], b->t[i].label,
                                    b->geom[i].block_size);
                                return -EINVAL;
                        }
        return 0;
}

/* Refuse to write to a target in use on this host, --force or not. */
static int check_in_use(const struct block_cmd *b, char *err, size_t errlen)
{
        char what[128];

        for (unsigned i = 0; i < b->nt; i++)
                if (blk_target_in_use(b->t[i].spec.path, b->t[i].is_url, what, sizeof(what))) {
                        snprintf(err, errlen,
                                 "%s is in use (%s): refusing to write to it, even with --force",
                                 b->t[i].label, what);
                        return -EEXIST;
                }
        return 0;
}

/* Refuse to overwrite a LUN or device that is in use, or (unless --force)
 * holds a partition table or filesystem. */
static int check_safety(struct block_cmd *b, char *err, size_t errlen)
{
        unsigned char *buf = NULL;
        char what[64];
        int rc = any_writes(&b->cfg) ? check_in_use(b, err, errlen) : 0;

        if (rc < 0 || !any_writes(&b->cfg) || b->cfg.force)
                return rc;
        if (posix_memalign((void **)&buf, 4096, BLK_SAFETY_HEAD))
                return -ENOMEM;
        /* A regular file may be a filesystem image: only one made by this run is known empty. */
        for (unsigned i = 0; i < b->nt && rc == 0; i++) {
                if (b->t[i].created || (b->t[i].spec.ops->caps & BLK_CAP_NO_DATA))
                        continue;
                memset(buf, 0, BLK_SAFETY_HEAD);
                int n = blk_run_read_head(b->run, i, buf, BLK_SAFETY_HEAD, err, errlen);
                if (n < 0) {
                        rc = -EIO;
                        break;
                }
                if (blk_find_signature(buf, (size_t)n, b->geom[i].block_size, what, sizeof(what))) {
                        snprintf(
                            err, errlen,
                            "%s holds %s: refusing to write over it (add --force to write anyway)",
                            b->t[i].label, what);
                        rc = -EEXIST;
                }
        }
        free(buf);
        return rc;
}

static void on_progress(void *user, double done_s, uint64_t ios)
{
        struct block_cmd *b = user;

        blk_live_progress(b->live, done_s, ios);
        prog_update(b->prog, b->done_s + done_s, "%u target(s)", b->nt);
}

static void print_header(const struct block_cmd *b)
{
        if (b->cfg.quiet)
                return;
        printf("%-9s %6s %5s %7s %-18s %11s %9s %9s %9s %9s %9s %7s %6s\n", "rw", "bs", "qd",
               "qd_mean", "target", "IOPS", "MB/s", "mean_us", "p50_us", "p99_us", "p99.9_us",
               "errors", "cpu%");
}

static void print_row(const struct block_cmd *b, const struct blk_point_spec *p, const char *label,
                      const struct blk_target_result *t, double secs, double cpu_pct)
{
        struct hist *h = hist_new();
        char bs[16];

        if (!h || b->cfg.quiet) {
                hist_free(h);
                return;
        }
        hist_merge(h, t->dir[0].hist);
        hist_merge(h, t->dir[1].hist);
        fmt_size(p->bs, bs, sizeof(bs));
        uint64_t ios = t->dir[0].ios + t->dir[1].ios, bytes = t->dir[0].bytes + t->dir[1].bytes;
        printf("%-9s %6s %5u %7.2f %-18.18s %11.1f %9.1f %9.1f %9.1f %9.1f %9.1f %7llu ",
               blk_rw_names[p->rw], bs, p->iodepth,
               secs > 0 && t->njobs ? t->inflight_ns / 1e9 / secs / t->njobs : 0, label,
               secs > 0 ? ios / secs : 0, secs > 0 ? bytes / secs / 1e6 : 0, hist_mean(h) / 1e3,
               hist_percentile(h, 50) / 1e3, hist_percentile(h, 99) / 1e3,
               hist_percentile(h, 99.9) / 1e3,
               (unsigned long long)(t->dir[0].errors + t->dir[1].errors));
        if (cpu_pct >= 0)
                printf("%6.1f\n", cpu_pct);
        else
                printf("%6s\n", "");
        fflush(stdout); /* rows appear as points finish, also through a pipe */
        hist_free(h);
}

static const char *const sense_names[16] = {
    "NO_SENSE",       "RECOVERED_ERROR", "NOT_READY",      "MEDIUM_ERROR",
    "HARDWARE_ERROR", "ILLEGAL_REQUEST", "UNIT_ATTENTION", "DATA_PROTECT",
    "BLANK_CHECK",    "VENDOR_SPECIFIC", "COPY_ABORTED",   "ABORTED_COMMAND",
    "0x0c",           "VOLUME_OVERFLOW", "MISCOMPARE",     "0x0f",
};

static json_t *dir_json(const struct blk_cfg *c, const struct blk_dir_result *d, double secs)
{
        double pcts[PARSE_LIST_MAX];
        json_t *j = json_object(), *sense = json_object();

        for (unsigned i = 0; i < c->percentile.n; i++)
                pcts[i] = opt_dlist_get(&c->percentile, i);
        json_object_set_new(j, "ios", json_integer((json_int_t)d->ios));
        json_object_set_new(j, "iops", json_real(secs > 0 ? d->ios / secs : 0));
        json_object_set_new(j, "bw_bytes", json_real(secs > 0 ? d->bytes / secs : 0));
        json_object_set_new(j, "bytes", json_integer((json_int_t)d->bytes));
        json_object_set_new(j, "lat_ns", hist_lat_json(d->hist, pcts, c->percentile.n));
        json_object_set_new(j, "hist", hist_to_json(d->hist));
        json_object_set_new(j, "errors", json_integer((json_int_t)d->errors));
        json_object_set_new(j, "timeouts", json_integer((json_int_t)d->timeouts));
        for (unsigned k = 0; k < 16; k++)
                if (d->sense[k])
                        json_object_set_new(sense, k ? sense_names[k] : "no_sense_data",
                                            json_integer((json_int_t)d->sense[k]));
        json_object_set_new(j, "errors_by_sense", sense);
        return j;
}

static json_t *target_json(const struct blk_cfg *c, const struct blk_target_result *t, double secs,
                           int verify)
{
        json_t *j = json_object();

        json_object_set_new(j, "read", dir_json(c, &t->dir[0], secs));
        json_object_set_new(j, "write", dir_json(c, &t->dir[1], secs));
        json_object_set_new(j, "errors",
                            json_integer((json_int_t)(t->dir[0].errors + t->dir[1].errors)));
        json_object_set_new(j, "reconnects", json_integer((json_int_t)t->reconnects));
        /* time-weighted I/Os in flight: per job (against iodepth) and in all (iostat's aqu-sz) */
        json_object_set_new(
            j, "iodepth_mean",
            json_real(secs > 0 && t->njobs ? t->inflight_ns / 1e9 / secs / t->njobs : 0));
        json_object_set_new(j, "inflight_mean",
                            json_real(secs > 0 ? t->inflight_ns / 1e9 / secs : 0));
        if (verify) {
                json_t *v = json_object(), *bad = json_array();
                json_object_set_new(v, "checked", json_integer((json_int_t)t->vfy_checked));
                json_object_set_new(v, "mismatches", json_integer((json_int_t)t->vfy_mismatches));
                for (unsigned i = 0; i < t->nbad; i++)
                        json_array_append_new(bad, json_pack("{s:I,s:s}", "offset",
                                                             (json_int_t)t->bad[i].offset, "kind",
                                                             vfy_status_name(t->bad[i].status)));
                json_object_set_new(v, "bad", bad);
                json_object_set_new(j, "verify", v);
        }
        if (t->failed)
                json_object_set_new(j, "failed", json_string(t->error));
        return j;
}

static json_t *point_json(struct block_cmd *b, const struct blk_point_spec *p,
                          const struct blk_point_result *r)
{
        json_t *j = target_json(&b->cfg, &r->all, r->runtime_s, p->verify);
        json_t *targets = json_array(), *iv = json_array();
        struct mon_cpu cpu;

        json_object_set_new(j, "rw", json_string(blk_rw_names[p->rw]));
        json_object_set_new(j, "bs", json_integer(p->bs));
        json_object_set_new(j, "iodepth", json_integer(p->iodepth));
        if (p->rw == BLK_RW_RANDRW)
                json_object_set_new(j, "rwmixread", json_integer(p->rwmixread));
        json_object_set_new(j, "runtime_s", json_real(r->runtime_s));
        /* the ramp it had: a client's measured window in its controller's clock starts there */
        json_object_set_new(j, "ramp_s", json_real((double)(r->win_start_ms - r->warm_ms) / 1e3));
        json_object_set_new(j, "window", res_window_json(r->win_start_ms, r->win_end_ms));
        json_object_set_new(j, "warmup", res_window_json(r->warm_ms, r->win_start_ms));
        if (r->have_steady)
                json_object_set_new(j, "steady", steady_to_json(&r->steady));
        for (unsigned i = 0; i < r->ntargets && r->ntargets > 1; i++) {
                json_t *t = target_json(&b->cfg, &r->t[i], r->runtime_s, p->verify);
                json_object_set_new(t, "target", json_string(b->t[i].label));
                json_array_append_new(targets, t);
        }
        json_object_set_new(j, "targets", targets);
        double prev = 0;
        for (unsigned i = 0; i < r->nintervals; i++) {
                const struct blk_interval *x = &r->iv[i];
                double dt = x->t - prev;
                prev = x->t;
                json_array_append_new(iv, json_pack("{s:f,s:f,s:f,s:I}", "t", x->t, "read_iops",
                                                    dt > 0 ? x->ios[0] / dt : 0.0, "write_iops",
                                                    dt > 0 ? x->ios[1] / dt : 0.0, "reconnects",
                                                    (json_int_t)x->reconnects));
        }
        json_object_set_new(j, "intervals", iv);
        json_object_set_new(j, "cpu",
                            json_pack("{s:f,s:f}", "process_user_s", r->cpu_user_s,
                                      "process_system_s", r->cpu_sys_s));
        if (b->mon) {
                mon_cpu_between(b->mon, r->t_start_ns, r->t_end_ns, &cpu);
                json_object_set_new(j, "host_cpu",
                                    json_pack("{s:f,s:f,s:f,s:f,s:f}", "user", cpu.user, "system",
                                              cpu.system, "iowait", cpu.iowait, "steal", cpu.steal,
                                              "idle", cpu.idle));
        }
        if (r->interrupted)
                json_object_set_new(j, "interrupted", json_true());
        return j;
}

/*
 * The knee of each queue-depth sweep (same rw and bs): the deepest queue
 * whose IOPS still rose by >= 10% over the previous depth.
 */
static json_t *knees(struct block_cmd *b, int print)
{
        json_t *out = json_array();
        size_t n = json_array_size(b->points);

        for (size_t i = 0; i < n; i++) {
                json_t *p = json_array_get(b->points, i),
                       *prev = i ? json_array_get(b->points, i - 1) : NULL;
                const char *rw = json_string_value(json_object_get(p, "rw"));
                json_int_t bs = json_integer_value(json_object_get(p, "bs"));
                if (prev && !strcmp(rw, json_string_value(json_object_get(prev, "rw"))) &&
                    bs == json_integer_value(json_object_get(prev, "bs")))
                        continue; /* not the first point of a group */
                json_int_t knee = json_integer_value(json_object_get(p, "iodepth"));
                double last = 0;
                size_t k, count = 0;
                for (k = i; k < n; k++, count++) {
                        json_t *q = json_array_get(b->points, k);
                        if (strcmp(rw, json_string_value(json_object_get(q, "rw"))) ||
                            bs != json_integer_value(json_object_get(q, "bs")))
                                break;
                        double iops =
                            json_real_value(json_object_get(json_object_get(q, "read"), "iops")) +
                            json_real_value(json_object_get(json_object_get(q, "write"), "iops"));
                        if (k > i && iops >= 1.10 * last)
                                knee = json_integer_value(json_object_get(q, "iodepth"));
                        last = iops;
                }
                if (count < 2)
                        continue;
                json_array_append_new(
                    out, json_pack("{s:s,s:I,s:I}", "rw", rw, "bs", bs, "iodepth", knee));
                if (print) {
                        char bss[16];
                        fmt_size((uint64_t)bs, bss, sizeof(bss));
                        printf("knee: %s %s: IOPS still rise >=10%% up to iodepth %lld\n", rw, bss,
                               (long long)knee);
                }
        }
        return out;
}

/* The result's files: fio's format to --json FILE or beside result.json (fio.json). */
static int write_files(void *user, const struct res_save *sv, const json_t *result, char *err,
                       size_t errlen)
{
        const struct block_cmd *b = user;
        int fmt = b->cfg.output_format, rc;
        char fio[sizeof(sv->dir) + 16];

        if (!sv->dir[0])
                return fmt ? blk_fio_write(sv->path, result, fmt, err, errlen)
                           : res_write_json(sv->path, result, err, errlen);
        rc = res_rundir_write(sv->dir, result, err, errlen);
        snprintf(fio, sizeof(fio), "%s/fio.json", sv->dir);
        return rc || !fmt ? rc : blk_fio_write(fio, result, fmt, err, errlen);
}

/*
 * Before the first point and after every point the result so far is
 * saved, marked partial, so even a killed run keeps its config and what it
 * measured; the last save is the final one.
 */
static void save_progress(struct block_cmd *b)
{
        char why[96];

        if (b->cfg.start_on_go)
                return; /* a client: its controller keeps the result */
        json_object_set_new(b->result, "knee", knees(b, 0));
        /* stays on disk as is if the run dies or a later save fails: say so */
        if (json_array_size(b->points))
                snprintf(why, sizeof(why), "running: saved after point %zu, the run had not ended",
                         json_array_size(b->points));
        else
                snprintf(why, sizeof(why), "running: saved before the first point");
        res_save_progress(&b->save, b->result, why);
}

static int write_result(struct block_cmd *b, int partial, const char *why)
{
        if (!b->result || b->cfg.start_on_go)
                return 0;
        if (b->mon) {
                mon_stop(b->mon);
                json_object_set_new(b->result, "monitor", mon_to_json(b->mon));
        }
        json_object_set_new(b->result, "knee", knees(b, !b->cfg.quiet));
        if (b->metrics)
                json_object_set_new(b->result, "metrics_address",
                                    json_string(metrics_address(b->metrics)));
        return res_save_final(&b->save, b->result, partial ? why : NULL, b->cfg.quiet);
}

static int run_precondition(struct block_cmd *b, uint64_t generation, char *err, size_t errlen)
{
        uint64_t bs = list_max(&b->cfg.bs);

        if (!b->cfg.precondition)
                return 0;
        if (!b->cfg.quiet)
                log_info("preconditioning: sequential fill%s",
                         b->cfg.precondition_time ? " + random writes" : "");
        return blk_run_precondition(b->run, bs < 131072 ? (uint32_t)bs : 131072,
                                    (unsigned)list_max(&b->cfg.iodepth),
                                    (uint64_t)b->cfg.precondition_time * 1000000000ull, generation,
                                    on_progress, b, err, errlen);
}

static void drv_interrupt(void *arg)
{
        struct block_cmd *b = arg;

        blk_run_interrupt(b->run);
}

/* --steady-remote: what the controller's rule is fed, and its two orders */
static uint64_t drv_done(void *arg)
{
        return blk_run_done_ios(((struct block_cmd *)arg)->run);
}

static void drv_measure(void *arg)
{
        blk_run_measure(((struct block_cmd *)arg)->run);
}

static void drv_end(void *arg)
{
        blk_run_end(((struct block_cmd *)arg)->run);
}

/* One point: run, verify, print, add to the JSON. Returns 0, or -errno when a session was lost. */
static int run_point(struct block_cmd *b, struct blk_point_spec *p)
{
        struct blk_point_result r;
        unsigned k = (unsigned)json_array_size(b->points);
        int rc;

        if (b->drv && (rc = blk_drv_wait_go(b->drv, k, &stopping)) <= 0) {
                b->drv_ended = 1;
                return rc;
        }
        struct blk_drv_hooks hooks = {.interrupt = drv_interrupt};
        if (b->cfg.steady_remote)
                hooks = (struct blk_drv_hooks){drv_interrupt, drv_done, drv_measure, drv_end};
        if (b->drv && blk_drv_watch(b->drv, &hooks, b) < 0)
                log_warn("driver: no input watcher: the end of input stops it after the point");
        blk_live_point(b->live, k, blk_rw_names[p->rw], p);
        rc = blk_run_point(b->run, p, &r, on_progress, b);
        if (b->drv)
                blk_drv_unwatch(b->drv);
        int writes = p->rw != BLK_RW_READ && p->rw != BLK_RW_RANDREAD;

        if (rc == 0 && p->verify && writes && !r.interrupted)
                rc = blk_run_verify_readback(b->run, p, &r);
        prog_clear(b->prog);
        if (r.t) {
                double cpu =
                    r.runtime_s > 0 ? 100.0 * (r.cpu_user_s + r.cpu_sys_s) / r.runtime_s : 0;
                print_row(b, p, "all", &r.all, r.runtime_s, cpu);
                for (unsigned i = 0; i < r.ntargets && r.ntargets > 1; i++)
                        print_row(b, p, b->t[i].label, &r.t[i], r.runtime_s, -1);
                if (r.have_steady && !b->cfg.quiet) {
                        char st[256];

                        steady_describe(&r.steady, st, sizeof(st));
                        printf("steady: %s\n", st);
                }
                if (p->verify && !b->cfg.quiet)
                        printf("verify: %llu blocks checked, %llu mismatches\n",
                               (unsigned long long)r.all.vfy_checked,
                               (unsigned long long)r.all.vfy_mismatches);
                for (unsigned i = 0; i < r.all.nbad; i++)
                        log_error("verify: %s at byte offset %llu",
                                  vfy_status_name(r.all.bad[i].status),
                                  (unsigned long long)r.all.bad[i].offset);
                blk_live_point_done(b->live, &r);
                json_array_append_new(b->points, point_json(b, p, &r));
                if (b->drv && blk_drv_result(b->drv, k, json_array_get(b->points, k)) < 0)
                        b->drv_ended = 1;
                save_progress(b);
                for (unsigned i = 0; i < r.ntargets && r.all.failed; i++)
                        if (r.t[i].failed && !b->why[0])
                                snprintf(b->why, sizeof(b->why), "%s: %s", b->t[i].label,
                                         r.t[i].error);
                if (r.all.failed)
                        log_error("%s", b->why[0] ? b->why : r.all.error);
        }
        b->done_s += r.have_steady ? r.steady.warmup_s + r.runtime_s
                                   : (double)(p->ramp_ns + p->run_ns) / 1e9;
        blk_point_result_free(&r);
        return rc;
}

/*
 * --steady-remote: the controller's rule opens and closes the window. The
 * ramp lasts until its "measure"; the point's own limit is only a backstop
 * past the rule's longest warm-up and measurement (the rule's own bounds),
 * should its "stop" never come while stdin stays open.
 */
static void remote_window(const struct blk_cfg *c, struct blk_point_spec *p)
{
        double warm = c->ramp_time > 0 ? (double)c->ramp_time : (double)c->runtime / 2;

        p->target_ci_pct = 0;
        p->ramp_until_told = 1;
        p->ramp_ns = 0;
        p->run_ns = (uint64_t)((warm + (double)c->runtime + 60) * 1e9);
}

static int sweep(struct block_cmd *b, int *mismatch, int *interrupted)
{
        const struct blk_cfg *c = &b->cfg;
        uint64_t gen = (clk_now_ns() ^ ((uint64_t)getpid() << 32)) | 1;
        char err[512];
        int rc;

        if ((rc = run_precondition(b, c->verify ? gen : 0, err, sizeof(err))) < 0) {
                log_error("%s", err);
                return rc;
        }
        print_header(b);
        for (unsigned i = 0; i < c->rw.n; i++)
                for (unsigned j = 0; j < c->bs.n; j++)
                        for (unsigned k = 0; k < c->iodepth.n; k++) {
                                struct blk_point_spec p = {
                                    .rw = (enum blk_rw)c->rw.v[i],
                                    .bs = (uint32_t)c->bs.v[j],
                                    .iodepth = (unsigned)c->iodepth.v[k],
                                    .rwmixread = (unsigned)c->rwmixread,
                                    .ramp_ns = (uint64_t)c->ramp_time * 1000000000ull,
                                    .run_ns = (uint64_t)c->runtime * 1000000000ull,
                                    .verify = c->verify,
                                    .generation = gen,
                                    .interval_ms = (unsigned)c->log_interval_ms,
                                    .batch_submit = (unsigned)c->batch_submit,
                                    .batch_complete_min = (unsigned)c->batch_complete_min,
                                    .batch_complete_max = (unsigned)c->batch_complete_max,
                                    .target_ci_pct = c->target_ci,
                                };
                                if (c->steady_remote)
                                        remote_window(c, &p);
                                if ((rc = run_point(b, &p)) < 0)
                                        return rc;
                                if (b->drv_ended) {
                                        *interrupted = 1;
                                        return 0;
                                }
                                json_t *last =
                                    json_array_get(b->points, json_array_size(b->points) - 1);
                                json_t *v = json_object_get(last, "verify");
                                if (v && json_integer_value(json_object_get(v, "mismatches")) > 0)
                                        *mismatch = 1;
                                if (json_object_get(last, "interrupted")) {
                                        *interrupted = 1;
                                        return 0;
                                }
                        }
        return 0;
}

/* A table row from a point's JSON (o: the aggregate, or one of its clients[]). */
static void print_json_row(const struct block_cmd *b, const json_t *shape, const char *label,
                           const json_t *o)
{
        static const char *const dirs[] = {"read", "write"};
        struct hist *h = hist_new();
        double iops = 0, bw = 0, errors = 0;
        char bs[16], why[128];

        if (!h || b->cfg.quiet) {
                hist_free(h);
                return;
        }
        for (unsigned d = 0; d < 2; d++) {
                const json_t *x = json_object_get(o, dirs[d]), *hj = json_object_get(x, "hist");
                if (hj && hist_add_json(h, hj, why, sizeof(why)) < 0)
                        log_warn("%s: %s", label, why);
                iops += json_number_value(json_object_get(x, "iops"));
                bw += json_number_value(json_object_get(x, "bw_bytes"));
                errors += json_number_value(json_object_get(x, "errors"));
        }
        const char *rw = json_string_value(json_object_get(shape, "rw"));
        fmt_size((uint64_t)json_integer_value(json_object_get(shape, "bs")), bs, sizeof(bs));
        printf("%-9s %6s %5lld %7s %-18.18s %11.1f %9.1f %9.1f %9.1f %9.1f %9.1f %7.0f %6s\n",
               rw ? rw : "?", bs, (long long)json_integer_value(json_object_get(shape, "iodepth")),
               "", label, iops, bw / 1e6, hist_mean(h) / 1e3, hist_percentile(h, 50) / 1e3,
               hist_percentile(h, 99) / 1e3, hist_percentile(h, 99.9) / 1e3, errors, "");
        hist_free(h);
}

/* --clients --target-ci: the "steady:" line of a one-process point, for the merged rule, and
 * the window it used */
static void print_merged_steady(const struct block_cmd *b, const json_t *st)
{
        const json_t *w = json_object_get(st, "window_s");
        struct steady_res r;
        char line[256];

        if (!st || b->cfg.quiet || steady_from_json(st, &r) < 0)
                return;
        steady_describe(&r, line, sizeof(line));
        printf("steady: %s (the merged IOPS of %lld clients, window %.2f-%.2f s after the go: "
               "stonewall %s)\n",
               line, (long long)json_integer_value(json_object_get(st, "clients")),
               json_number_value(json_object_get(w, "start")),
               json_number_value(json_object_get(w, "end")),
               json_string_value(json_object_get(st, "stonewall")));
}

/* --clients: each point's aggregate as it comes, printed and saved. */
static void on_client_point(void *user, unsigned k, json_t *agg)
{
        struct block_cmd *b = user;
        const json_t *cl = json_object_get(agg, "clients"), *c, *sw;
        char label[64];
        size_t i;

        (void)k;
        if (b->cfg.client_counts.n)
                json_object_set_new(agg, "scaling_efficiency",
                                    json_real(blk_scan_point_efficiency(b->points, agg)));
        snprintf(label, sizeof(label), "all %lld clients",
                 (long long)json_integer_value(json_object_get(agg, "n_clients")));
        print_json_row(b, agg, label, agg);
        json_array_foreach(cl, i, c)
        {
                const char *err = json_string_value(json_object_get(c, "error"));
                if (b->cfg.per_client)
                        print_json_row(b, agg, json_string_value(json_object_get(c, "name")), c);
                if (err)
                        log_warn("client %s: %s", json_string_value(json_object_get(c, "name")),
                                 err);
                if (json_is_true(json_object_get(c, "late")))
                        log_warn("client %s started %.1f ms after the go (over 1%% of the runtime)",
                                 json_string_value(json_object_get(c, "name")),
                                 json_number_value(json_object_get(c, "start_skew_ms")));
        }
        print_merged_steady(b, json_object_get(agg, "steady"));
        sw = json_object_get(agg, "stonewall");
        if (!b->cfg.quiet)
                printf("stonewall: first %.1f IOPS over %.2f s, last %.1f IOPS over %.2f s; "
                       "slowest %s\n",
                       json_number_value(json_object_get(json_object_get(sw, "first"), "iops")),
                       json_number_value(json_object_get(json_object_get(sw, "first"), "seconds")),
                       json_number_value(json_object_get(json_object_get(sw, "last"), "iops")),
                       json_number_value(json_object_get(json_object_get(sw, "last"), "seconds")),
                       json_string_value(json_object_get(agg, "slowest")));
        fflush(stdout);
        json_array_append(b->points, agg);
        save_progress(b);
}

static int start_result(struct block_cmd *b);

/* --clients: the sweep run by the clients; this process only steers and aggregates. */
static int run_clients(struct block_cmd *b, int argc, char **argv)
{
        const struct blk_cfg *c = &b->cfg;
        double pcts[32];
        char err[1024] = "";
        unsigned np = c->percentile.n < 32 ? c->percentile.n : 32;

        for (unsigned i = 0; i < np; i++)
                pcts[i] = opt_dlist_get(&c->percentile, i);
        struct blk_clients_plan plan = {
            .spec = c->clients,
            .inventory = c->inventory,
            .lab_spec = &b->spec, /* its lab (vms) and how its hosts are read */
            .lab_ops = b->lab_ops,
            .vms = (unsigned)c->vms,
            .argv = argv,
            .argc = argc,
            .target_list = c->target,
            .file_list = c->filename,
            .npoints = c->rw.n * c->bs.n * c->iodepth.n,
            .ramp_s = (double)c->ramp_time,
            .runtime_s = (double)c->runtime,
            .io_timeout_s = (double)c->io_timeout,
            .pcts = pcts,
            .npct = np,
            .stonewall_last = c->stonewall == 1,
            .target_ci_pct = c->target_ci,
            .optional = c->clients_optional,
            .missing = json_array(),
            .stop = &stopping,
        };
        unsigned counts[PARSE_LIST_MAX];
        for (unsigned i = 0; i < c->client_counts.n && i < PARSE_LIST_MAX; i++)
                counts[i] = (unsigned)c->client_counts.v[i];
        plan.counts = counts;
        plan.ncounts = c->client_counts.n < PARSE_LIST_MAX ? c->client_counts.n : PARSE_LIST_MAX;
        if (blk_clients_check(&plan, err, sizeof(err)) < 0) {
                log_error("%s", err);
                json_decref(plan.missing);
                return HCI_EXIT_USAGE;
        }
        int rc = start_result(b);
        if (rc != 0) {
                json_decref(plan.missing);
                return rc;
        }
        print_header(b);
        fflush(stdout);
        rc = blk_clients_run(&plan, on_client_point, b, &b->degraded, err, sizeof(err));
        if (plan.missing && json_array_size(plan.missing))
                json_object_set(b->result, "clients_missing", plan.missing);
        json_decref(plan.missing);
        if (rc < 0 && rc != -EINTR)
                log_error("%s", err);
        int exit = rc == -EINTR    ? HCI_EXIT_INTERRUPTED
                   : rc == -EINVAL ? HCI_EXIT_USAGE
                   : rc < 0        ? HCI_EXIT_TARGET
                   : b->degraded   ? HCI_EXIT_TARGET
                                   : HCI_EXIT_OK;
        if (rc < 0)
                snprintf(b->why, sizeof(b->why), "%.500s", rc == -EINTR ? "interrupted" : err);
        if (c->client_counts.n && json_array_size(b->points))
                blk_scan_verdicts(b->points, b->result, b->cfg.quiet ? NULL : stdout);
        rc = write_result(b, rc < 0, b->why);
        return rc < 0 ? res_save_exit(rc) : exit;
}

static int open_and_check(struct block_cmd *b)
{
        char err[1024] = "";
        int rc;

        if (check_shape(&b->cfg, err, sizeof(err)) < 0) {
                log_error("%s", err);
                return HCI_EXIT_USAGE;
        }
        if ((rc = open_run(b, err, sizeof(err))) < 0) {
                log_error("%s", err);
                return rc == -EINVAL ? HCI_EXIT_USAGE : HCI_EXIT_TARGET;
        }
        if (check_geometry(b, err, sizeof(err)) < 0 ||
            check_region_shape(b, err, sizeof(err)) < 0) {
                log_error("%s", err);
                return HCI_EXIT_USAGE;
        }
        if ((rc = check_safety(b, err, sizeof(err))) < 0) {
                log_error("%s", err);
                return rc == -EEXIST ? HCI_EXIT_USAGE : HCI_EXIT_TARGET;
        }
        return 0;
}

static int start_result(struct block_cmd *b)
{
        char err[512];

        if (b->cfg.start_on_go) {
                b->result = json_object();
                b->points = json_array();
                b->drv = blk_drv_new();
                return b->result && b->points && b->drv ? 0 : HCI_EXIT_USAGE;
        }
        if (res_save_open(&b->save, "block", "block", b->cfg.json, b->cfg.output_dir, err,
                          sizeof(err)) < 0) {
                log_error("%s", err);
                return HCI_EXIT_USAGE;
        }
        /* A lone fio-format file is not an hcisweep result: it stays out of the index; so
         * does a run with --no-index (the lab's checks of its own data path). */
        b->save.no_index = b->cfg.no_index || (!b->save.dir[0] && b->cfg.output_format);
        b->save.write = write_files;
        b->save.user = b;
        /* the lab's options are the run's only when its clients are the lab's VMs */
        struct opt_group echo[3] = {b->groups[0], {NULL, NULL, NULL}, {NULL, NULL, NULL}};
        if (uses_lab(&b->cfg))
                echo[1] = b->groups[1];
        json_t *config = opt_to_json(echo);

        b->result = res_new("block", config);
        json_decref(config);
        b->points = json_array();
        if (!b->result || !b->points)
                return HCI_EXIT_USAGE;
        json_object_set(b->result, "points", b->points);
        if (metrics_start(&b->metrics, b->cfg.metrics_listen, err, sizeof(err)) < 0) {
                log_error("%s", err);
                return HCI_EXIT_USAGE;
        }
        if (b->metrics && !(b->live = blk_live_new(b->metrics)))
                return HCI_EXIT_USAGE;
        b->mon = mon_start((unsigned)b->cfg.monitor_interval * 1000, err, sizeof(err));
        if (!b->mon)
                log_warn("host monitor off: %s", err);
        save_progress(b); /* the config on disk before the first point */
        return 0;
}

/* Mistakes found before anything is opened: each names its option. */
static int check_usage(struct block_cmd *b, char *err, size_t errlen)
{
        const struct blk_cfg *c = &b->cfg;
        char why[400];

        for (unsigned i = 0; c->verify && i < b->nt; i++)
                if (b->t[i].spec.ops->caps & BLK_CAP_NO_DATA) {
                        snprintf(err, errlen,
                                 "option --verify: the %s engine stores nothing to verify",
                                 b->t[i].spec.ops->name);
                        return -EINVAL;
                }
        if (c->clients && (blk_clients_count(c->clients, err, errlen) < 0))
                return -EINVAL;
        if (c->steady_remote && !c->start_on_go)
                return errf(err, errlen, -EINVAL,
                            "option --steady-remote: only with --start-on-go");
        if (c->clients && c->start_on_go) {
                snprintf(err, errlen, "option --clients: not with --start-on-go (a client)");
                return -EINVAL;
        }
        if (uses_lab(c) && (c->target || c->filename))
                return errf(err, errlen, -EINVAL,
                            "option --%s: not with --clients vms (each VM's client works on its "
                            "own load LUN)",
                            c->target ? "target" : "filename");
        if (c->vms && !uses_lab(c))
                return errf(err, errlen, -EINVAL, "option --vms: only with --clients vms");
        /* every client run reads its hosts with --metrics-source, --prometheus...
         * (clients_hosts.h); --inventory is stored in both groups, so the lab's is it */
        if (c->clients && lab_spec(&b->lab, &b->spec, &b->lab_ops, err, errlen) < 0)
                return -EINVAL;
        if (c->json && res_check_file(c->json, why, sizeof(why)) < 0) {
                snprintf(err, errlen, "option --json: %s", why);
                return -EINVAL;
        }
        if (!c->json && res_check_dir(c->output_dir, why, sizeof(why)) < 0) {
                snprintf(err, errlen, "option --output-dir: %s", why);
                return -EINVAL;
        }
        return 0;
}

/*
 * The CHAP secrets come from files (never the command line, where every
 * user can read them); a secret given in a URL still works, with a warning.
 */
static int read_secrets(struct block_cmd *b, char *err, size_t errlen)
{
        char **files[2] = {&b->cfg.chap_secret_file, &b->cfg.chap_target_secret_file};
        const char *names[2] = {"chap-secret-file", "chap-target-secret-file"};
        char clean[8192];
        int rc;

        for (unsigned i = 0; i < 2; i++) {
                if (!*files[i])
                        continue;
                if (!b->cfg.target) {
                        snprintf(err, errlen, "option --%s: needs --target URLs", names[i]);
                        return -EINVAL;
                }
                rc = secret_read_file(names[i], *files[i], b->chap[i], sizeof(b->chap[i]), err,
                                      errlen);
                if (rc < 0)
                        return rc;
        }
        if (b->cfg.target && secret_redact(b->cfg.target, clean, sizeof(clean)))
                log_warn("--target: a CHAP secret in the URL can be read by every user of this "
                         "host, and is not written into job.ini; give it with "
                         "--chap-secret-file F (mutual: --chap-target-secret-file F)");
        return 0;
}

static int parse(struct block_cmd *b, int argc, char **argv)
{
        char err[512] = "", *pos[4];
        int npos = 0, st;

        b->groups[0] = (struct opt_group){block_opts, &b->cfg, "block options"};
        b->groups[1] =
            (struct opt_group){lab_opts, &b->lab, "lab and host-reading options (--clients)"};
        if ((st = opt_command_start(b->groups, usage_text, argc, argv, pos, 4, &npos)) != 0)
                return st > 0 ? -1 : HCI_EXIT_USAGE;
        if (npos) {
                log_error("block: unexpected argument '%s'", pos[0]);
                return HCI_EXIT_USAGE;
        }
        if ((b->cfg.metrics_listen &&
             metrics_check_listen(b->cfg.metrics_listen, NULL, err, sizeof(err)) < 0) ||
            build_targets(b, err, sizeof(err)) < 0 || check_usage(b, err, sizeof(err)) < 0 ||
            read_secrets(b, err, sizeof(err)) < 0) {
                log_error("%s", err);
                return HCI_EXIT_USAGE;
        }
        log_set_quiet(b->cfg.quiet);
        return 0;
}

static void cleanup(struct block_cmd *b)
{
        memset(b->chap, 0, sizeof(b->chap));
        running = NULL;
        blk_run_close(b->run);
        prog_end(b->prog);
        blk_live_free(b->live);
        blk_drv_free(b->drv);
        metrics_stop(b->metrics);
        mon_free(b->mon);
        json_decref(b->points);
        json_decref(b->result);
        free(b->lists[0]);
        free(b->lists[1]);
        opt_free(b->groups);
}

int cmd_block_check_option(const char *name, const char *val, char *err, size_t errlen)
{
        struct blk_cfg *cfg = calloc(1, sizeof(*cfg));
        struct lab_cfg *lab = calloc(1, sizeof(*lab));
        /* the groups the command line takes: a job file's keys are its options */
        struct opt_group g[3] = {
            {block_opts, cfg, NULL}, {lab_opts, lab, NULL}, {NULL, NULL, NULL}};
        int rc = -ENOMEM;

        if (cfg && lab && (rc = opt_defaults(g, err, errlen)) == 0)
                rc = opt_set(g, name, val, err, errlen);
        if (cfg && lab)
                opt_free(g);
        free(cfg);
        free(lab);
        return rc;
}

int cmd_block(int argc, char **argv)
{
        static struct block_cmd b; /* large; one per process */
        int rc, mismatch = 0, interrupted = 0;
        struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;

        memset(&b, 0, sizeof(b));
        if ((rc = parse(&b, argc, argv)) != 0) {
                rc = rc < 0 ? HCI_EXIT_OK : rc;
                goto out;
        }
        if (b.cfg.clients) {
                struct sigaction osi, ost;
                sigaction(SIGINT, &sa, &osi);
                sigaction(SIGTERM, &sa, &ost);
                rc = run_clients(&b, argc, argv);
                sigaction(SIGINT, &osi, NULL);
                sigaction(SIGTERM, &ost, NULL);
                goto out;
        }
        if ((rc = open_and_check(&b)) != 0 || (rc = start_result(&b)) != 0)
                goto out;
        b.plan_s =
            (double)b.cfg.rw.n * b.cfg.bs.n * b.cfg.iodepth.n * (b.cfg.runtime + b.cfg.ramp_time);
        b.prog = prog_start(b.plan_s);
        running = b.run;
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        int srv = sweep(&b, &mismatch, &interrupted);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        prog_clear(b.prog);
        if (srv < 0)
                rc = write_result(&b, 1, b.why[0] ? b.why : "a target was lost");
        else if (interrupted)
                rc = write_result(&b, 1, "interrupted");
        else
                rc = write_result(&b, 0, NULL);
        rc = rc < 0        ? res_save_exit(rc)
             : srv < 0     ? HCI_EXIT_TARGET
             : interrupted ? HCI_EXIT_INTERRUPTED
             : mismatch    ? HCI_EXIT_CHECK
                           : HCI_EXIT_OK;
out:
        cleanup(&b);
        return rc;
}
