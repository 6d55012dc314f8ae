/*
 * ramp_priv.h - helpers shared by the ramp parsers (results/ramp*.c only).
 */
#ifndef HCI_RAMP_PRIV_H
#define HCI_RAMP_PRIV_H

#include <stddef.h>

#include <jansson.h>

#include "core/log.h" /* errf */

struct ramp;
struct ramp_set; /* results/ramp.h */

/* Append an empty ramp to s with the given names; NULL on ENOMEM. */
struct ramp *ramp_set_push(struct ramp_set *s, const char *name, const char *load_name,
                           const char *tput_name, const char *lat_name);

/*
 * Skip blanks and fio's own message lines ("note: ...", "fio: ...", which
 * fio prints on stdout before its JSON) from off; *line counts newlines.
 * Returns the offset of the first other character.
 */
size_t ramp_skip_noise(const char *buf, size_t len, size_t off, unsigned *line);

/* Parse a whole number; 0 on success, -EINVAL when s is not entirely a finite number. */
int ramp_num(const char *s, double *out);

/* One per-host row of a CSV (ramp.h): figures NAN when the cell is empty. */
struct ramp_host_row {
        char name[64], role[16];
        double cpu_busy, steal, disk_util;
};

/*
 * Add the row's host to clusters (an object: load -> the hosts[] of that
 * step, as a scale step's cluster.hosts). -EINVAL naming the line for an
 * empty host, a role other than compute, storage or both, or a host listed
 * twice at one load; -ENOMEM.
 */
int ramp_hosts_add(json_t *clusters, double load, const struct ramp_host_row *h, unsigned line,
                   char *err, size_t errlen);

/* After ramp_normalise: each point's r and hosts read off its load's hosts as
 * res_tip_hosts_read reads a scale step. 0 or -ENOMEM. */
int ramp_hosts_apply(const json_t *clusters, struct ramp *r);

/* ramp_parse_json for a file in dir: a result's series are read from the files beside it
 * (core/resfile.h: res_series_resolve); dir NULL: series inline only. */
int ramp_parse_json_at(const char *buf, size_t len, const char *dir, struct ramp_set *out,
                       char *err, size_t errlen);

#endif
