/*
 * save.h - saving a result: the one routine every command that writes one
 * goes through (block, oltp, scale; compare, analyze and report for the
 * files they write).
 *
 * A run's result goes to --json FILE alone, or to a new run directory
 * OUTPUT_DIR/KIND-TIME-PID (results/rundir.h: intervals.csv and job.ini,
 * then result.json last). Before anything is measured res_save_open()
 * checks that the place can be written (exit 2 at once, one line). While
 * the run goes on, res_save_progress() saves what it has, marked partial,
 * so a killed run keeps it; res_save_final() writes the last version,
 * adds it to the run index and says where it is. A final save that fails
 * leaves the last progress save on disk (marked partial, named in the
 * message) and makes the command exit HCI_EXIT_OUTPUT (4).
 */
#ifndef HCI_RESULTS_SAVE_H
#define HCI_RESULTS_SAVE_H

#include <stddef.h>

#include <jansson.h>

struct res_save;

/* A writer replacing the default one (block's fio formats): write result
 * for sv (sv->dir "" means the file sv->path alone). 0 or -errno with err. */
typedef int (*res_save_write_fn)(void *user, const struct res_save *sv, const json_t *result,
                                 char *err, size_t errlen);

struct res_save {
        char who[16];       /* the command, for messages: "block" */
        char dir[1024];     /* the run directory; "" with --json FILE */
        char path[1100];    /* the result file */
        unsigned saved;     /* progress saves that landed */
        int no_index;       /* keep the result out of the run index */
        const char *marker; /* res_save_open_stdout: the line before the result */
        int to_stdout;      /* res_save_open_stdout: no file at all */
        res_save_write_fn write;
        void *user;
        char started_at[32]; /* UTC, when the save was opened: the run's start */
};

/*
 * Where the result of command who (kind: "block", "oltp", "scale") goes:
 * json when set, else a new run directory under output_dir (named now,
 * created by the first save, or by mkdir). The place is checked: 0, or
 * -EINVAL with err = "option --json: ..." / "option --output-dir: ...".
 */
int res_save_open(struct res_save *sv, const char *who, const char *kind, const char *json,
                  const char *output_dir, char *err, size_t errlen);

/*
 * The result to standard output only (a driver whose controller collects
 * it: scale/scale_drivers.h): progress saves are skipped, the final one
 * prints the line marker (when not NULL, it must outlive sv) and then the
 * result as one line of compact JSON; nothing is written to disk or indexed.
 */
void res_save_open_stdout(struct res_save *sv, const char *who, const char *marker);

/* Create the run directory now (files of the run are written into it before the result). */
int res_save_mkdir(struct res_save *sv, char *err, size_t errlen);

/* A save while running, marked partial with why (set in result): a failure
 * is a warning, the run goes on. 0 or -errno. */
int res_save_progress(struct res_save *sv, json_t *result, const char *why);

/*
 * The final save: result's partial marks replaced by why (NULL:
 * "partial": false), written, added to the run index, "result: PATH" printed
 * (PATH alone when quiet). 0, or -errno with the failure logged and what
 * the last progress save kept named.
 */
int res_save_final(struct res_save *sv, json_t *result, const char *why, int quiet);
/* Every save sets the result's "started_at" to when res_save_open* was called (the run's
 * start, which is also the run directory's name) and "ended_at" to now (UTC, ISO 8601). */

/* A command's other output files (compare --json/--html, analyze --json,
 * report --output-dir): written atomically, "LABEL: PATH" printed; on
 * failure "WHO: why" logged. 0 or -errno. */
int res_save_json_file(const char *who, const char *label, const char *path, const json_t *j);
int res_save_text_file(const char *who, const char *label, const char *path, const char *text,
                       size_t len);

/* The exit code of a save's rc: HCI_EXIT_OK for 0, else HCI_EXIT_OUTPUT. */
int res_save_exit(int rc);

#endif
