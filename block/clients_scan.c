/*
 * clients_scan.c - a client-count scan's points into its verdict
 * (clients_scan.h; the rules are results/tip_scan.c's).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "block/clients_scan.h"
#include "core/parse.h"
#include "results/tip_scan.h"

static int same_shape(const json_t *a, const json_t *b)
{
        return json_equal(json_object_get(a, "rw"), json_object_get(b, "rw")) &&
               json_equal(json_object_get(a, "bs"), json_object_get(b, "bs")) &&
               json_equal(json_object_get(a, "iodepth"), json_object_get(b, "iodepth"));
}

double blk_scan_point_efficiency(const json_t *points, const json_t *agg)
{
        struct res_scan_step s[2];
        const json_t *p;
        size_t i;

        json_array_foreach(points, i, p)
        {
                if (!same_shape(p, agg))
                        continue;
                if (res_scan_step_of_point(p, &s[0]) || res_scan_step_of_point(agg, &s[1]))
                        return 0;
                return res_scan_efficiency(s, 1);
        }
        return 1;
}

/* The verdict of the points of p's shape, from index i on (the first of that shape). */
static json_t *shape_verdict(const json_t *points, size_t i, const json_t *p, char *line,
                             size_t linelen)
{
        size_t n = 0, j, cap = json_array_size(points);
        struct res_scan_step *st = calloc(cap ? cap : 1, sizeof(*st));
        struct res_scan sc;
        const json_t *q;
        char bs[16];

        if (!st)
                return NULL;
        json_array_foreach(points, j, q) if (j >= i && same_shape(p, q) &&
                                             !res_scan_step_of_point(q, &st[n])) n++;
        res_scan_verdict(st, (unsigned)n, &sc);
        free(st);
        fmt_size((uint64_t)json_integer_value(json_object_get(p, "bs")), bs, sizeof(bs));
        snprintf(line, linelen, "%s %s qd %lld: %s", json_string_value(json_object_get(p, "rw")),
                 bs, (long long)json_integer_value(json_object_get(p, "iodepth")), sc.verdict);
        return json_pack("{s:O,s:O,s:O,s:i,s:b,s:s,s:s}", "rw", json_object_get(p, "rw"), "bs",
                         json_object_get(p, "bs"), "iodepth", json_object_get(p, "iodepth"),
                         "clients", sc.at, "saturated", sc.saturated, "limited_by",
                         res_tip_limit_name(sc.limited_by), "verdict", sc.verdict);
}

int blk_scan_verdicts(const json_t *points, json_t *result, FILE *out)
{
        json_t *scan = json_array(), *first = NULL, *e;
        const json_t *p, *q;
        size_t i, j;
        char line[700];

        if (!scan)
                return -ENOMEM;
        json_array_foreach(points, i, p)
        {
                int seen = 0;

                json_array_foreach(points, j, q) if (j < i && same_shape(p, q)) seen = 1;
                if (seen)
                        continue;
                if (!(e = shape_verdict(points, i, p, line, sizeof(line))))
                        goto nomem;
                if (out)
                        fprintf(out, "scan: %s\n", line);
                if (!first)
                        first = json_pack("{s:O,s:s,s:O}", "clients", json_object_get(e, "clients"),
                                          "verdict", line, "limited_by",
                                          json_object_get(e, "limited_by"));
                if (json_array_append_new(scan, e))
                        goto nomem;
        }
        json_object_set_new(result, "scan", scan);
        if (first)
                json_object_set_new(result, "tipping_point", first);
        return 0;
nomem:
        json_decref(scan);
        json_decref(first);
        return -ENOMEM;
}
