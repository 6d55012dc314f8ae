/*
 * save.c - the one way a command saves its result (see save.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/exitcode.h"
#include "core/log.h"
#include "core/resfile.h"
#include "results/rundir.h"
#include "results/save.h"
#include "results/store.h"

int res_save_open(struct res_save *sv, const char *who, const char *kind, const char *json,
                  const char *output_dir, char *err, size_t errlen)
{
        char why[1200];

        memset(sv, 0, sizeof(*sv));
        snprintf(sv->who, sizeof(sv->who), "%s", who);
        clk_iso8601_now(sv->started_at, sizeof(sv->started_at));
        if (json) {
                snprintf(sv->path, sizeof(sv->path), "%s", json);
                if (res_check_file(json, why, sizeof(why)) < 0) {
                        snprintf(err, errlen, "option --json: %s", why);
                        return -EINVAL;
                }
                return 0;
        }
        if (!output_dir)
                output_dir = "runs";
        if (res_check_dir(output_dir, why, sizeof(why)) < 0) {
                snprintf(err, errlen, "option --output-dir: %s", why);
                return -EINVAL;
        }
        res_rundir_name(output_dir, kind, sv->dir, sizeof(sv->dir));
        snprintf(sv->path, sizeof(sv->path), "%s/result.json", sv->dir);
        return 0;
}

void res_save_open_stdout(struct res_save *sv, const char *who, const char *marker)
{
        memset(sv, 0, sizeof(*sv));
        snprintf(sv->who, sizeof(sv->who), "%s", who);
        clk_iso8601_now(sv->started_at, sizeof(sv->started_at));
        snprintf(sv->path, sizeof(sv->path), "-");
        sv->marker = marker;
        sv->to_stdout = 1;
        sv->no_index = 1;
}

int res_save_mkdir(struct res_save *sv, char *err, size_t errlen)
{
        char why[1200];

        if (!sv->dir[0] || res_mkdirs(sv->dir, why, sizeof(why)) == 0)
                return 0;
        snprintf(err, errlen, "option --output-dir: %s", why);
        return -EINVAL;
}

/* The final result as one line on stdout, after the marker. */
static int print_result(const struct res_save *sv, const json_t *result, char *err, size_t errlen)
{
        errno = 0;
        if (sv->marker)
                printf("%s\n", sv->marker);
        if (res_dump_file(result, stdout, JSON_COMPACT) < 0 || printf("\n") < 0 || fflush(stdout)) {
                snprintf(err, errlen, "standard output: %s", strerror(errno ? errno : EIO));
                return -EIO;
        }
        return 0;
}

/* started_at: the run's start (res_new stamps when the result was built: the end of a run). */
static int stamp(const struct res_save *sv, json_t *result)
{
        char now[32];

        clk_iso8601_now(now, sizeof(now));
        if (sv->started_at[0] &&
            json_object_set_new(result, "started_at", json_string(sv->started_at)))
                return -ENOMEM;
        return json_object_set_new(result, "ended_at", json_string(now)) ? -ENOMEM : 0;
}

static int write_once(const struct res_save *sv, json_t *result, char *err, size_t errlen)
{
        if (stamp(sv, result)) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        if (sv->write)
                return sv->write(sv->user, sv, result, err, errlen);
        if (sv->dir[0])
                return res_rundir_write(sv->dir, result, err, errlen);
        return res_write_json(sv->path, result, err, errlen);
}

int res_save_progress(struct res_save *sv, json_t *result, const char *why)
{
        char err[1200];
        int rc;

        if (sv->to_stdout)
                return 0;
        if ((rc = res_mark_partial(result, why)) < 0) {
                log_warn("%s: saving the result so far: out of memory", sv->who);
                return rc;
        }
        rc = write_once(sv, result, err, sizeof(err));
        if (rc < 0)
                log_warn("%s: saving the result so far: %s", sv->who, err);
        else
                sv->saved++;
        return rc;
}

int res_save_final(struct res_save *sv, json_t *result, const char *why, int quiet)
{
        char err[1200];
        int rc;

        json_object_del(result, "partial");
        json_object_del(result, "partial_reason");
        if (why ? res_mark_partial(result, why) < 0
                : json_object_set_new(result, "partial", json_false()) < 0) {
                log_error("%s: out of memory writing the result", sv->who);
                return -ENOMEM;
        }
        if (sv->to_stdout && stamp(sv, result)) {
                log_error("%s: out of memory writing the result", sv->who);
                return -ENOMEM;
        }
        rc = sv->to_stdout ? print_result(sv, result, err, sizeof(err))
                           : write_once(sv, result, err, sizeof(err));
        if (rc < 0) {
                log_error("%s: writing the result: %s", sv->who, err);
                if (sv->saved)
                        log_error("%s: %s keeps the last save, marked partial", sv->who, sv->path);
                return rc;
        }
        if (sv->to_stdout)
                return 0;
        if (!sv->no_index && res_index_register_doc(sv->path, result, err, sizeof(err)) < 0)
                log_warn("%s: not added to the run index: %s", sv->who, err);
        if (quiet)
                printf("%s\n", sv->path);
        else
                printf("result: %s%s\n", sv->path, why ? " (partial)" : "");
        return 0;
}

int res_save_text_file(const char *who, const char *label, const char *path, const char *text,
                       size_t len)
{
        char err[1200];
        int rc = res_write_text(path, text, len, err, sizeof(err));

        if (rc < 0)
                log_error("%s: %s", who, err);
        else
                printf("%s: %s\n", label, path);
        return rc;
}

int res_save_json_file(const char *who, const char *label, const char *path, const json_t *j)
{
        char err[1200];
        int rc = res_write_json(path, j, err, sizeof(err));

        if (rc < 0)
                log_error("%s: %s", who, err);
        else
                printf("%s: %s\n", label, path);
        return rc;
}

int res_save_exit(int rc)
{
        return rc < 0 ? HCI_EXIT_OUTPUT : HCI_EXIT_OK;
}
