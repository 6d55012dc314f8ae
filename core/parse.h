/*
 * parse.h - the value syntaxes users type: sizes, numbers and lists.
 *
 * Sizes follow fio: a number with an optional binary suffix k/m/g/t (also
 * KiB/MiB/…; upper or lower case), "4k" = 4096. Plain numbers are bytes.
 * A size is at most INT64_MAX (8 EiB less a byte): file offsets (off_t) and
 * JSON integers are signed, so a larger one could only turn negative later.
 * Lists: "1,4,16"; "1-128" is a doubling range (1,2,4,…,128); "4-32:4" is a
 * stepped range (4,8,…,32). Items of a list may themselves be sizes.
 *
 * All functions return 0, or -EINVAL / -ERANGE with a message (which does
 * not name the option: callers prefix it) in err.
 */
#ifndef HCI_PARSE_H
#define HCI_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define PARSE_LIST_MAX 64

struct u64_list {
        unsigned n;
        uint64_t v[PARSE_LIST_MAX];
};

int parse_u64(const char *s, uint64_t *out, char *err, size_t errlen);
int parse_i64(const char *s, int64_t *out, char *err, size_t errlen);
int parse_double(const char *s, double *out, char *err, size_t errlen);
int parse_size(const char *s, uint64_t *out, char *err, size_t errlen);
int parse_bool(const char *s, int *out, char *err, size_t errlen);

/* List of integers (is_size: items take size suffixes). Ranges as above. */
int parse_u64_list(const char *s, int is_size, struct u64_list *out, char *err, size_t errlen);

/* Format a byte count the way users write it back: 4096 -> "4k", 1048576 -> "1m", 1000 -> "1000".
 */
void fmt_size(uint64_t bytes, char *buf, size_t len);

#endif
