/*
 * resfile.h - writing results so that they are never lost or half-written.
 *
 * Every result goes through res_write_json(): a temporary file in the same
 * directory, fsync, rename over the target, fsync of the directory. A crash
 * leaves either the old file or the new one, never a torn one.
 */
#ifndef HCI_RESFILE_H
#define HCI_RESFILE_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#define RES_SCHEMA_VERSION 1
/* Significant digits of every real a result file holds. */
#define RES_REAL_DIGITS 10

/*
 * The common top level of the README's JSON: schema_version, hcisweep_version, kind,
 * started_at (ISO-8601 UTC), config (a reference is taken; its strings lose
 * any CHAP secret in place, core/secret.h), host.
 * New reference, or NULL on ENOMEM.
 */
json_t *res_new(const char *kind, json_t *config);

/*
 * A wall-clock window {"start","end"} (ISO-8601 UTC with ms) from clk_real_ms() values: what a
 * step, a repeat, a block point and their warm-ups record. null when start_ms <= 0 or end_ms <
 * start_ms (no such window). New reference, NULL on ENOMEM.
 */
json_t *res_window_json(int64_t start_ms, int64_t end_ms);

/*
 * j as a reader of its file will see it: dumped with RES_REAL_DIGITS and
 * loaded again (new reference, NULL on ENOMEM). Figures computed from this
 * copy match what any later reader computes from the file, digit for digit.
 */
json_t *res_as_written(const json_t *j);

/*
 * Write j to path atomically (indent 2, keys in insertion order). 0 or
 * -errno with err set; a full filesystem (-ENOSPC, -EDQUOT) says "no space
 * left on DIR". What was there before stays. Commands exit HCI_EXIT_OUTPUT
 * when their result could not be written.
 */
int res_write_json(const char *path, const json_t *j, char *err, size_t errlen);

/*
 * j on f (stdout: a driver's result to its controller) with flags, its row sources (below)
 * written in place. 0 or -errno (-ENOMEM, or f's write error).
 */
int res_dump_file(const json_t *j, FILE *f, size_t flags);

/*
 * A series too long to hold as a tree (a merge's 100k interval rows, a long run's): its rows
 * are made one at a time while the result is written, so a result of any length costs one
 * row of memory, not a tree of 2 KB per row. res_rows_ref(src) is the value that stands for
 * the rows in the result tree (as "intervals"); every writer of this file writes it as the
 * array of src's rows, formatted as an inline array would be, byte for byte: res_write_json,
 * res_dump_file, res_series_split (the rows go to their series file) and res_rundir_write's
 * CSV (results/rundir.c reads rows through res_rows_size / res_rows_get). res_as_written
 * does not take one. src must stay valid while a tree naming it is written.
 */
struct res_rows {
        size_t n;
        /* Row i < n, in any order: a borrowed reference, valid until the next call (a source
         * may fill one row object again and again); NULL on ENOMEM. */
        const json_t *(*row)(void *user, size_t i);
        void *user;
};
/* The value standing for src's rows (new reference; NULL on ENOMEM). Input read by jansson
 * never looks like one (it is a string holding NUL, which json_loads refuses). */
json_t *res_rows_ref(const struct res_rows *src);
/* Rows of v: an array's elements or a row source's rows (0 for anything else); row i of v,
 * borrowed as struct res_rows says (NULL past the end or on ENOMEM). */
size_t res_rows_size(const json_t *v);
const json_t *res_rows_get(const json_t *v, size_t i);

/* Write text atomically (CSV, Markdown…). 0 or -errno with err set. */
int res_write_text(const char *path, const char *text, unsigned long len, char *err, size_t errlen);

/*
 * The one limit on what a reader of results takes in: report, compare,
 * results add and analyze (a result, or any load ramp) all read their
 * files through res_read_file, so memory stays bounded whatever the file
 * is (a JSON tree takes about 15 times its text; /dev/zero never ends).
 */
#define RES_FILE_MAX (64 << 20)

/*
 * Read path whole into *buf (heap, NUL-terminated; *len bytes without the
 * NUL). 0, or -errno with err = "PATH: why": -EFBIG "PATH: larger than
 * 64 MiB, the limit for a result or load ramp", -EISDIR "PATH: is a
 * directory", -ENOENT... from fopen. *buf is NULL on error.
 */
int res_read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen);

/* The directory holding path into dir ("." when path has no slash, "/" for "/x"): where a
 * result's series files are. */
void res_dirname(const char *path, char *dir, size_t len);

/* mkdir -p. 0 or -errno with err set. */
int res_mkdirs(const char *path, char *err, size_t errlen);

/*
 * Checks made before a run, so a mistyped output path fails at once
 * rather than after the whole run has been measured and lost.
 *   res_check_file: path is not a directory or a device, and its directory
 *                   exists and is writable (a result file may go there);
 *   res_check_dir:  the nearest existing part of path is a writable
 *                   directory (res_mkdirs can make the rest).
 * 0, or -errno with err = "PATH: why".
 */
int res_check_file(const char *path, char *err, size_t errlen);
int res_check_dir(const char *path, char *err, size_t errlen);

/*
 * Series files. A run's time series (the monitor's samples, each step's and
 * point's intervals, any per-host "series") are the part of a result that
 * grows with the length of the run, so in a run directory they live in
 * files of their own, one JSON row per line (NDJSON), appended as the run
 * is saved; result.json names each by a reference in place of the array:
 *   "samples": {"file": "monitor.samples.ndjson", "format": "ndjson", "rows": 80}
 * A series is an array under the key "samples", "intervals" or "series".
 * The file name is the series' path in the result ("steps.0.intervals"):
 * every save of a run appends only the rows its file does not hold yet, and
 * "rows" says how many of its lines this result.json covers, so a reader
 * never sees rows of a later save, nor a torn last line.
 */
#define RES_SERIES_EXT ".ndjson"
/* A row longer than this is refused by a reader (a file that is not ours). */
#define RES_SERIES_LINE_MAX (1 << 20)
/* What a reader keeps of all a result's series together, in bytes of their rows' text: a longer
 * series is read as evenly spaced rows (every k-th), each series keeping at least
 * RES_SERIES_KEEP_MIN (a row in memory takes about 15 times its text). */
#define RES_SERIES_KEEP_BUDGET (512 << 10)
#define RES_SERIES_KEEP_MIN    (32 << 10)

struct res_series;

/*
 * Open (create) dir/name for appending rows. A torn last line (a save cut
 * short) is cut off; *rows (may be NULL) gets the complete rows it holds.
 * 0 or -errno with err set. Caller closes.
 */
int res_series_open(struct res_series **out, const char *dir, const char *name, size_t *rows,
                    char *err, size_t errlen);
/* Append one row (compact JSON, one line). 0 or -errno with err set. */
int res_series_add(struct res_series *s, const json_t *row, char *err, size_t errlen);
/* fsync and close; NULL is fine. 0 or -errno with err set (a delayed write error). */
int res_series_close(struct res_series *s, char *err, size_t errlen);

/*
 * result as result.json in dir holds it (new reference in *out): each
 * series of at least one row appended to its file in dir and replaced by
 * its reference; what is not a series is shared with result, not copied.
 * 0 or -errno with err set (the files hold whole rows whatever happens).
 */
int res_series_split(const char *dir, const json_t *result, json_t **out, char *err, size_t errlen);

/*
 * Call row(user, row, i) for the rows of the series ref names (a file in
 * dir: a name, never a path) whose index i is a multiple of every; row
 * takes no reference, returns 0 to go on. The file is read line by line,
 * rows skipped are not parsed. 0, the callback's non-zero value, or
 * -errno / -EINVAL (a bad reference, a row that is not JSON) with err =
 * "FILE:LINE: why".
 */
int res_series_foreach(const char *dir, const json_t *ref, size_t every,
                       int (*row)(void *user, json_t *row, size_t i), void *user, char *err,
                       size_t errlen);

/*
 * Every series reference in doc (read from a file in dir) replaced by its
 * rows, in bounded memory (RES_SERIES_KEEP_BUDGET for all together); a
 * series thinned so gets "KEY_every": k ("samples_every") beside it.
 * Inline series (results written before series files) stay as they are.
 * 0 or -errno with err set.
 */
int res_series_resolve(json_t *doc, const char *dir, char *err, size_t errlen);

/*
 * The same with every row, for a reader whose figures must be exact (a merge of results
 * adds interval to interval): -EFBIG when the files are larger than RES_FILE_MAX together,
 * the limit of every reader of results. 0 or -errno with err set.
 */
int res_series_resolve_exact(json_t *doc, const char *dir, char *err, size_t errlen);

#endif
