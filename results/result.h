/*
 * result.h - a result in memory, the base the rest of results/ reads it
 * through: loaded and checked (res_load), a figure read (res_num), marked
 * partial. Below the run directory (rundir.h), the index (store.h) and the
 * views (report_view.h), so they all include it and it includes none.
 */
#ifndef HCI_RESULTS_RESULT_H
#define HCI_RESULTS_RESULT_H

#include <stddef.h>

#include <jansson.h>

/* Load a result: a JSON object of kind block|oltp|scale and a schema_version this build reads.
 * 0, or -errno / -EINVAL (not a result, a newer schema_version) with err. */
int res_load(const char *path, json_t **out, char *err, size_t errlen);

/* The number at key in an object of a result: NaN when o has no such key or its value is not a
 * number (a figure the result does not hold is never 0). */
double res_num(const json_t *o, const char *key);

/* As res_num for a share of a whole in percent (busy, steal, util): NaN too when it is outside
 * 0..100 (and what rounding adds), which no measurement gives (a result edited or damaged). */
double res_share(const json_t *o, const char *key);

/* Mark a result partial (an interrupted run), with the reason. 0 or -ENOMEM. */
int res_mark_partial(json_t *result, const char *why);

#endif
