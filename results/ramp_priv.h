/*
 * ramp_priv.h - helpers shared by the ramp parsers (results/ramp*.c only).
 */
#ifndef HCI_RAMP_PRIV_H
#define HCI_RAMP_PRIV_H

#include <stddef.h>

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

#endif
