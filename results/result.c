/*
 * result.c - a result in memory: loaded and checked, its figures read,
 * marked partial (see result.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/resfile.h"
#include "results/result.h"

double res_num(const json_t *o, const char *key)
{
        const json_t *v = json_object_get(o, key);

        return json_is_number(v) ? json_number_value(v) : NAN;
}

double res_share(const json_t *o, const char *key)
{
        double v = res_num(o, key);

        return v >= 0 && v <= 100.5 ? v : NAN;
}

/* The series a result names (files beside it, core/resfile.h) read in, thinned to a bound. */
static int resolve_series(json_t *doc, const char *path, char *err, size_t errlen)
{
        char dir[4200];

        res_dirname(path, dir, sizeof(dir));
        return res_series_resolve(doc, dir, err, errlen);
}

int res_load(const char *path, json_t **out, char *err, size_t errlen)
{
        json_error_t e;
        const json_t *ver;
        const char *kind;
        json_t *doc;
        size_t len;
        char *text;
        int rc = res_read_file(path, &text, &len, err, errlen);

        *out = NULL;
        if (rc)
                return rc;
        doc = json_loadb(text, len, 0, &e);
        free(text);
        if (!doc) {
                snprintf(err, errlen, "%s:%d: JSON: %s", path, e.line, e.text);
                return -EINVAL;
        }
        ver = json_object_get(doc, "schema_version");
        kind = json_string_value(json_object_get(doc, "kind"));
        if (!json_is_object(doc) || !json_is_number(ver)) {
                snprintf(err, errlen, "%s: not an hcisweep result (no schema_version)", path);
        } else if (json_number_value(ver) > RES_SCHEMA_VERSION) {
                snprintf(err, errlen,
                         "%s: schema_version %g is newer than this hcisweep reads (%d): "
                         "upgrade hcisweep",
                         path, json_number_value(ver), RES_SCHEMA_VERSION);
        } else if (!kind ||
                   (strcmp(kind, "block") && strcmp(kind, "oltp") && strcmp(kind, "scale"))) {
                snprintf(err, errlen, "%s: kind '%s' is not a run (block, oltp or scale)", path,
                         kind ? kind : "(none)");
        } else if (!(rc = resolve_series(doc, path, err, errlen))) {
                *out = doc;
                return 0;
        }
        json_decref(doc);
        return rc ? rc : -EINVAL;
}

int res_mark_partial(json_t *result, const char *why)
{
        if (json_object_set_new(result, "partial", json_true()) ||
            json_object_set_new(result, "partial_reason", json_string(why ? why : "interrupted")))
                return -ENOMEM;
        return 0;
}
