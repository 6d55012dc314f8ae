/*
 * rundir.c - writing a run directory and finding the result a RUN names.
 *
 * The three files of a run are derived from the one result object, so a
 * command only builds the result and calls res_rundir_write(); the CSV is
 * for spreadsheets and the job file for rerunning the same thing. Each file
 * goes through res_write_text/res_write_json, so an interruption at any
 * moment leaves complete files. The job file leaves out the result path
 * (a rerun must not overwrite the run it came from) and unset options.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/opts.h"
#include "core/resfile.h"
#include "core/sbuf.h"
#include "results/report_view.h"
#include "results/rundir.h"
#include "results/store.h"

static int from_index(const char *id, char *path, size_t len, char *err, size_t errlen)
{
        struct res_index *ix = NULL;
        struct res_run r;
        int rc = res_index_open(NULL, &ix, err, errlen);

        if (rc)
                return rc;
        rc = res_index_find(ix, id, &r, err, errlen);
        res_index_close(ix);
        if (!rc)
                snprintf(path, len, "%s", r.path);
        return rc;
}

int res_resolve_run(const char *run, char *path, size_t len, char *err, size_t errlen)
{
        struct stat st;

        if (!stat(run, &st) && S_ISDIR(st.st_mode)) {
                snprintf(path, len, "%s/result.json", run);
                if (stat(path, &st)) {
                        snprintf(err, errlen, "%s: no result.json in this directory", run);
                        return -ENOENT;
                }
                return 0;
        }
        if (!stat(run, &st)) {
                snprintf(path, len, "%s", run);
                return 0;
        }
        if (res_index_is_id(run))
                return from_index(run, path, len, err, errlen);
        snprintf(err, errlen, "%s: no such run directory, result file or run id", run);
        return -ENOENT;
}

/* ---- intervals.csv -------------------------------------------------------- */

/* A CSV number: empty when unknown. */
static void csv_num(struct sbuf *b, double v, const char *sep)
{
        if (isfinite(v))
                sb_printf(b, "%.10g%s", v, sep);
        else
                sb_printf(b, "%s", sep);
}

static void block_csv(const json_t *r, struct sbuf *b)
{
        const json_t *p, *x;
        size_t i, k;

        sb_printf(b, "rw,bs,iodepth,t_s,read_iops,write_iops,reconnects\n");
        json_array_foreach(json_object_get(r, "points"), i, p)
        {
                json_array_foreach(json_object_get(p, "intervals"), k, x)
                {
                        const char *rw = json_string_value(json_object_get(p, "rw"));

                        sb_printf(b, "%s,", rw ? rw : "");
                        csv_num(b, res_num(p, "bs"), ",");
                        csv_num(b, res_num(p, "iodepth"), ",");
                        csv_num(b, res_num(x, "t"), ",");
                        csv_num(b, res_num(x, "read_iops"), ",");
                        csv_num(b, res_num(x, "write_iops"), ",");
                        csv_num(b, res_num(x, "reconnects"), "\n");
                }
        }
}

static void oltp_csv(const json_t *r, struct sbuf *b)
{
        const json_t *iv = json_object_get(r, "intervals"), *x, *v;
        /* the keys of the first row's, copied: a row source may fill one row object again */
        json_t *pct0 = json_copy(
            json_object_get(json_object_get(res_rows_get(iv, 0), "lat_ns"), "percentile"));
        const char *key;
        size_t i;

        sb_printf(b, "t_s,tps,qps,read_s,write_s,other_s,errors_s,reconnects_s");
        json_object_foreach((json_t *)pct0, key, v) sb_printf(b, ",p%s_ms", key);
        sb_printf(b, "\n");
        for (i = 0; i < res_rows_size(iv) && (x = res_rows_get(iv, i)); i++) {
                const json_t *q = json_object_get(x, "queries_s");
                const json_t *pct = json_object_get(json_object_get(x, "lat_ns"), "percentile");

                csv_num(b, res_num(x, "t"), ",");
                csv_num(b, res_num(x, "tps"), ",");
                csv_num(b, res_num(x, "qps"), ",");
                csv_num(b, res_num(q, "read"), ",");
                csv_num(b, res_num(q, "write"), ",");
                csv_num(b, res_num(q, "other"), ",");
                csv_num(b, res_num(x, "errors_s"), ",");
                csv_num(b, res_num(x, "reconnects_s"), "");
                json_object_foreach((json_t *)pct0, key, v)
                {
                        sb_printf(b, ",");
                        csv_num(b, res_num(pct, key) / 1e6, "");
                }
                sb_printf(b, "\n");
        }
        json_decref(pct0);
}

static int scale_csv(const json_t *r, struct sbuf *b)
{
        struct run_view v;
        char err[256];
        int rc;

        sb_printf(b, "vms,tps,qps,mean_ms,p99_ms,host_cpu_busy_pct,host_steal_pct,storage_iops,"
                     "storage_mb_s,tps_lo,tps_hi\n");
        rc = run_view_build(r, "", &v, err, sizeof(err));
        if (rc)
                return rc == -ENOMEM ? rc : 0; /* no steps yet: the header alone */
        for (unsigned i = 0; v.nseries && i < v.s[0].n; i++) {
                const struct run_point *p = &v.s[0].p[i];

                csv_num(b, p->load, ",");
                csv_num(b, p->tput, ",");
                csv_num(b, p->ops_s, ",");
                csv_num(b, p->mean_ms, ",");
                csv_num(b, p->p99_ms, ",");
                csv_num(b, p->cpu_busy, ",");
                csv_num(b, p->cpu_steal, ",");
                csv_num(b, p->stor_iops, ",");
                csv_num(b, p->mb_s, ",");
                csv_num(b, p->lo, ",");
                csv_num(b, p->hi, "\n");
        }
        run_view_free(&v);
        return 0;
}

char *res_intervals_csv(const json_t *result)
{
        const char *kind = json_string_value(json_object_get(result, "kind"));
        struct sbuf b = {0};

        if (kind && !strcmp(kind, "block"))
                block_csv(result, &b);
        else if (kind && !strcmp(kind, "oltp"))
                oltp_csv(result, &b);
        else if (kind && !strcmp(kind, "scale") && scale_csv(result, &b))
                b.oom = 1;
        if (!b.oom && !b.s)
                sb_printf(&b, "%s", "");
        if (b.oom) {
                sb_free(&b);
                return NULL;
        }
        return b.s;
}

/* ---- job.ini -------------------------------------------------------------- */

/* The result path is left out: a rerun must not overwrite this run. */
static void ini_entry(struct sbuf *b, const char *key, const json_t *v)
{
        if (strcmp(key, "json"))
                opt_ini_line(b, key, v);
        else if (json_is_string(v))
                sb_printf(b, "; json = %s (left out: a rerun would overwrite this run)\n",
                          json_string_value(v));
}

char *res_job_ini(const json_t *result)
{
        const char *kind = json_string_value(json_object_get(result, "kind")), *key;
        const char *cmd = kind && !strcmp(kind, "oltp") ? "oltp run" : kind ? kind : "block";
        const json_t *v;
        struct sbuf b = {0};

        sb_printf(&b,
                  "; the effective options of this run: `hcisweep run job.ini` runs it again\n"
                  "[global]\ncommand = %s\n",
                  cmd);
        json_object_foreach(json_object_get(result, "config"), key, v) ini_entry(&b, key, v);
        sb_printf(&b, "\n[rerun]\ncommand = %s\n", cmd);
        if (b.oom) {
                sb_free(&b);
                return NULL;
        }
        return b.s;
}

static int write_text(const char *dir, const char *name, char *text, char *err, size_t errlen)
{
        char path[4200];
        int rc;

        if (!text) {
                snprintf(err, errlen, "%s: out of memory", name);
                return -ENOMEM;
        }
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        rc = res_write_text(path, text, strlen(text), err, errlen);
        free(text);
        return rc;
}

int res_rundir_write(const char *dir, const json_t *result, char *err, size_t errlen)
{
        json_t *slim = NULL;
        char path[4200];
        int rc = res_mkdirs(dir, err, errlen);

        if (rc)
                return rc;
        /* result.json last: a run directory with a result has its companions */
        rc = write_text(dir, "intervals.csv", res_intervals_csv(result), err, errlen);
        if (!rc)
                rc = write_text(dir, "job.ini", res_job_ini(result), err, errlen);
        snprintf(path, sizeof(path), "%s/result.json", dir);
        /* the series to their files first: result.json names only rows that are on disk */
        if (!rc)
                rc = res_series_split(dir, result, &slim, err, errlen);
        if (!rc)
                rc = res_write_json(path, slim, err, errlen);
        json_decref(slim);
        return rc;
}

void res_rundir_name(const char *output_dir, const char *kind, char *dir, size_t len)
{
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;

        gmtime_r(&now, &tm);
        strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
        snprintf(dir, len, "%s/%s-%s-%d", output_dir, kind, stamp, (int)getpid());
}

int res_rundir_create(const char *output_dir, const char *kind, char *dir, size_t len, char *err,
                      size_t errlen)
{
        res_rundir_name(output_dir, kind, dir, len);
        return res_mkdirs(dir, err, errlen);
}
