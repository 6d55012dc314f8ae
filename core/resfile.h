/*
 * resfile.h - writing results so that they are never lost or half-written.
 *
 * Every result goes through res_write_json(): a temporary file in the same
 * directory, fsync, rename over the target, fsync of the directory. A crash
 * leaves either the old file or the new one, never a torn one.
 */
#ifndef HCI_RESFILE_H
#define HCI_RESFILE_H

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

#endif
