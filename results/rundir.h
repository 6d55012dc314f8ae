/*
 * rundir.h - a run on disk: its directory, its files, and the result a
 * RUN argument names.
 *
 * A run directory (res_rundir_create) holds:
 *   result.json    the result (README.md), written last-complete-wins;
 *   intervals.csv  one row per interval (block: per point per interval,
 *                  oltp: per interval, scale: per step);
 *   job.ini        the effective config as a job file for `hcisweep run`;
 *   report.html, report.md   written later by `hcisweep report`.
 * Every file is written atomically (core/resfile.h). A run that is
 * interrupted is written the same way with "partial": true, so what is on
 * disk is always a valid result.
 *
 * Errors: 0 or negative errno with a one-line message in err (-ENOENT no
 * such file or run, -EINVAL not a result or a newer schema_version).
 */
#ifndef HCI_RUNDIR_H
#define HCI_RUNDIR_H

#include <stddef.h>

#include <jansson.h>

#include "results/result.h" /* res_load, res_num, res_mark_partial */

/*
 * The result.json a RUN argument names: a run directory, a result.json
 * path, or an id of the run index (all digits, looked up in the default
 * index or $HCISWEEP_INDEX).
 */
int res_resolve_run(const char *run, char *path, size_t len, char *err, size_t errlen);

/*
 * Name a new run directory OUTPUT_DIR/KIND-YYYYmmdd-HHMMSS-PID (UTC, as in
 * runs/scale-20261130-041500-1234) into dir and create it with its parents.
 * One format for every command, so runs sort by time whatever their kind.
 */
int res_rundir_create(const char *output_dir, const char *kind, char *dir, size_t len, char *err,
                      size_t errlen);
/* The same name without creating it (res_rundir_write creates it later). */
void res_rundir_name(const char *output_dir, const char *kind, char *dir, size_t len);

/* Write intervals.csv, job.ini and, last, result.json into dir (created when missing). */
int res_rundir_write(const char *dir, const json_t *result, char *err, size_t errlen);

/* The CSV / INI text res_rundir_write writes (malloc'd, caller frees); NULL on ENOMEM. */
char *res_intervals_csv(const json_t *result);
char *res_job_ini(const json_t *result);

#endif
