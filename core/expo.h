/*
 * expo.h - a reader of the Prometheus text exposition format (version 0.0.4,
 * what node_exporter serves on /metrics).
 *
 * Every sample line `name{label="value",...} value [timestamp]` is handed to
 * a callback, in body order. What the format allows is accepted: `# HELP`
 * and `# TYPE` comments (checked for form, TYPE for a known type), other
 * comments and blank lines skipped, label values with the escapes \\ \" \n,
 * a trailing comma in the label set, NaN, +Inf and -Inf, an optional integer
 * timestamp in milliseconds. Anything else is an error naming the line:
 * a metric or label name that is not one, an unterminated label value, a
 * value that is not a number, a NUL byte, a line over EXPO_MAX_LINE bytes,
 * a body over EXPO_MAX_BODY bytes, a label set over EXPO_MAX_LABELS, or a
 * series (a name and a label set, in any order) given a second time, which
 * Prometheus too refuses in one scrape. A value that underflows to a
 * subnormal or zero (Go prints 1e-320) is a value; one that overflows is not.
 *
 * Pure code with no state: any thread may call it; it is in the fuzz harness
 * (tests/fuzz/fuzz_expo.c).
 */
#ifndef HCI_EXPO_H
#define HCI_EXPO_H

#include <stddef.h>
#include <stdint.h>

#define EXPO_MAX_BODY   (32u << 20) /* node_exporter serves ~100 KiB; a 32 MiB body is not one */
#define EXPO_MAX_LINE   65536
#define EXPO_MAX_LABELS 32

struct expo_label {
        const char *name;
        const char *value; /* unescaped, NUL-terminated */
};

/* One sample. Its strings live only for the callback. */
struct expo_sample {
        const char *name;
        size_t nlabels;
        struct expo_label labels[EXPO_MAX_LABELS];
        double value;
        int has_ts;
        int64_t ts_ms;
};

/* The sample's value of label name, NULL when it has no such label. */
const char *expo_label(const struct expo_sample *s, const char *name);

/*
 * Parse len bytes of body, calling fn for every sample. A nonzero return of
 * fn stops the parse and is returned. -EINVAL with err ("line N: why") when
 * the body is not exposition text, -E2BIG when it is over EXPO_MAX_BODY,
 * -ENOMEM; 0 when every line was read.
 */
int expo_parse(const char *body, size_t len, int (*fn)(void *user, const struct expo_sample *s),
               void *user, char *err, size_t errlen);

#endif
