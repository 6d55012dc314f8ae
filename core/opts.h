/*
 * opts.h - the options table.
 *
 * Each module describes its options once, in a table of struct opt_def
 * (name, type, offset into the module's config struct, default, bounds,
 * help). That one table drives:
 *   - command-line parsing (--name value, --name=value, bare --flag),
 *   - validation with a "did you mean --x?" for unknown names,
 *   - --help output,
 *   - INI job files (a key is an option name),
 *   - the echo of the effective config into every result JSON.
 *
 * A command may combine several tables (scale = scale + oltp options): every
 * function takes a NULL-terminated array of struct opt_group.
 *
 * Empty values: an empty (or blank) value of an option that has a
 * default is refused ("option --mysql-host: empty value ..."); for an
 * option without a default it means "not set", as it does when the INI
 * echo of a run leaves an unset option out.
 *
 * Errors: 0, or -EINVAL with one line in err naming the option, e.g.
 *   "option --iodepth: 0 is below the minimum 1"
 *   "unknown option --iodpth (did you mean --iodepth?)"
 */
#ifndef HCI_OPTS_H
#define HCI_OPTS_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "core/sbuf.h"

#include "core/parse.h"

enum opt_type {
        OPT_BOOL,     /* int: 0/1; "--x" alone means 1; values 0/1/true/false/yes/no */
        OPT_INT,      /* long long */
        OPT_SIZE,     /* uint64_t bytes, "4k" */
        OPT_DOUBLE,   /* double */
        OPT_STR,      /* char * (heap, owned by the config; freed by opt_free) */
        OPT_ENUM,     /* int: index into choices[] */
        OPT_LIST,     /* struct u64_list: "1,4,16", "1-128", "4-32:4" */
        OPT_SIZELIST, /* struct u64_list of sizes: "4k,64k" */
        OPT_ENUMLIST, /* struct u64_list of indexes into choices[]: "randread,randwrite" */
        OPT_DLIST,    /* struct u64_list holding doubles bit-cast: use opt_dlist_get() */
};

enum opt_flags {
        OPT_F_SECRET = 1 << 0, /* never echoed into JSON, INI or logs */
        OPT_F_HIDDEN = 1 << 1, /* not listed in --help */
        OPT_F_LIST = 1 << 2,   /* OPT_STR holding a comma list: no item may be empty */
        /* OPT_STR naming a file or directory (with OPT_F_LIST: a comma list of
         * them). The echo writes it absolute, so a job file made from it names
         * the same file wherever it is run from; a job file's relative one is
         * relative to the job file (opt_path_resolve). */
        OPT_F_PATH = 1 << 3,
};

struct opt_def {
        const char *name; /* without the leading "--" */
        enum opt_type type;
        size_t off;       /* offsetof(config struct, field) */
        const char *def;  /* default, written as a user would; NULL = zero/empty */
        double min, max;  /* inclusive bounds for numbers and list items; min==max: none */
        const char *help; /* one line */
        const char *const *choices; /* OPT_ENUM / OPT_ENUMLIST: NULL-terminated */
        unsigned flags;
};

struct opt_group {
        const struct opt_def *defs; /* terminated by an entry with name == NULL */
        void *cfg;
        const char *title; /* heading in --help, may be NULL */
};

/* Apply every default. */
int opt_defaults(const struct opt_group *g, char *err, size_t errlen);

/* Set one option from text (name without "--"). */
int opt_set(const struct opt_group *g, const char *name, const char *val, char *err, size_t errlen);

/*
 * Parse argv[0..argc): options are applied; other words are positional and
 * returned in pos[0..*npos) (at most maxpos; more is an error). "--" ends
 * options. "--help"/"-h" sets *help = 1 and stops.
 */
int opt_parse_argv(const struct opt_group *g, int argc, char **argv, char **pos, int maxpos,
                   int *npos, int *help, char *err, size_t errlen);

/*
 * The start every command shares: defaults, then argv[1..argc) (argv[0] is
 * the command's name), then --help. Returns 0 to go on, 1 when --help was
 * printed to stdout (exit 0), or -EINVAL after logging "NAME: why" (exit 2).
 * Positionals as for opt_parse_argv.
 */
int opt_command_start(const struct opt_group *g, const char *usage, int argc, char **argv,
                      char **pos, int maxpos, int *npos);

/* --help text: usage line, then every non-hidden option with type, default and help. */
void opt_help(FILE *f, const struct opt_group *g, const char *usage);

/*
 * For docs made from the tables (man page, shell completion): the metavar
 * --help prints for d ("N", "SIZE", "NAME"..., "" for a flag), and whether
 * d of group in is listed (not hidden, not shadowed by an earlier group of g).
 * g may have NULL cfg pointers: neither reads the config.
 */
const char *opt_metavar(const struct opt_def *d);
int opt_listed(const struct opt_group *g, const struct opt_group *in, const struct opt_def *d);

/* The definition of the option called name in g (first group first), or NULL. */
const struct opt_def *opt_def_find(const struct opt_group *g, const char *name);

/*
 * val, a value of d, with every relative path in it (val itself, or each
 * item of a comma list when d has OPT_F_LIST) taken relative to the
 * directory base (NULL: the current one) and made absolute, lexically
 * ("./" dropped, ".." and symbolic links kept: the file the user named).
 * val unchanged when d has no OPT_F_PATH or val is blank. Heap string,
 * NULL on ENOMEM or when the current directory cannot be had.
 */
char *opt_path_resolve(const struct opt_def *d, const char *val, const char *base);

/* The effective config as a JSON object {name: value}; secrets left out;
 * paths (OPT_F_PATH) absolute. New reference. */
json_t *opt_to_json(const struct opt_group *g);

/*
 * The job-file form of an option's JSON echo (a value of opt_to_json, or of
 * a result's "config"): appends "name = value\n" to b, with booleans as 1/0,
 * numbers as the shortest text that reads back exactly and lists joined by
 * ','. Appends nothing and returns 0 for a value a job file cannot hold
 * (null: not set; an object; an empty list; text with a line break), so the
 * option keeps its default when the file is read; 1 when a line was added.
 * The one writer of job files: opt_to_ini and every run's job.ini use it.
 */
int opt_ini_line(struct sbuf *b, const char *name, const json_t *v);

/* The effective config as an INI section body (name = value lines, opt_ini_line);
 * secrets left out. 0, -ENOMEM, or -EIO when f refuses the text. */
int opt_to_ini(FILE *f, const struct opt_group *g);

/* Free the OPT_STR fields. */
void opt_free(const struct opt_group *g);

/* The i-th double of an OPT_DLIST field. */
double opt_dlist_get(const struct u64_list *l, unsigned i);

/*
 * Read an INI job file. For each key the callback gets (section, key,
 * value, line number); a non-zero return stops the read and is returned.
 * Syntax errors: -EINVAL, err = "FILE:LINE: ...". So are a section named
 * twice, a NUL byte, a line longer than OPT_INI_LINE_MAX and more than
 * OPT_INI_SECTIONS_MAX sections; a file larger than OPT_INI_FILE_MAX is
 * -EFBIG, err = "FILE: ...". Memory stays bounded whatever the file holds
 * (a job file may be /dev/zero by mistake).
 */
#define OPT_INI_LINE_MAX     (1 << 20)
#define OPT_INI_FILE_MAX     (16 << 20)
#define OPT_INI_SECTIONS_MAX 4096
typedef int (*opt_ini_cb)(void *user, const char *section, const char *key, const char *val,
                          int line);
int opt_read_ini(const char *path, opt_ini_cb cb, void *user, char *err, size_t errlen);

#endif
