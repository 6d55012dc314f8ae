/*
 * fuzz_opts.c - libFuzzer target for the options table (core/opts.c), the
 * value syntaxes under it (core/parse.c), the job-file reader, the iSCSI
 * URL check (block/url.c) and the host check (core/hostport.c): the code
 * every command line and job file goes through before anything runs.
 *
 * The first byte of an input picks what the rest is:
 *   even: command-line words separated by NUL bytes, parsed like argv;
 *   odd:  an INI job file, whose keys are set like a job's.
 * Either way the effective config is echoed as JSON and as INI, and the INI
 * echo, read back into fresh storage, must give the same config: the
 * round trip `hcisweep run job.ini` relies on. Any crash, leak, undefined
 * behaviour or a config that does not come back is a finding.
 *
 * Build: cmake -DCMAKE_C_COMPILER=clang -DWITH_FUZZ=ON; make fuzz_opts.
 * Run: fuzz_opts -max_total_time=60 tests/fuzz/corpus (tests/cli/test_fuzz_slow.sh).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block/url.h"
#include "core/hostport.h"
#include "core/opts.h"

#define MAX_WORDS 64

/* The fuzzer's assertion: a broken property is a finding, so say which and
 * abort (libFuzzer saves the input that did it). */
#define FUZZ_ASSERT(cond, ...)                                                                     \
        do {                                                                                       \
                if (!(cond)) {                                                                     \
                        fprintf(stderr, "fuzz_opts: " __VA_ARGS__);                                \
                        abort();                                                                   \
                }                                                                                  \
        } while (0)

struct cfg {
        char *str, *json, *target, *password;
        int force, engine;
        long long numjobs;
        uint64_t size;
        double rate;
        struct u64_list iodepth, bs, rw, percentile;
};

static const char *const choices[] = {"randread", "randwrite", "randrw", "read", "write", NULL};

/* One option of every type and flag, with the bounds and defaults real tables use. */
#define O(f) offsetof(struct cfg, f)
static const struct opt_def defs[] = {
    {"mysql-host", OPT_STR, O(str), "localhost", 0, 0, "with a default", NULL, 0},
    {"json", OPT_STR, O(json), NULL, 0, 0, "without a default", NULL, 0},
    {"target", OPT_STR, O(target), NULL, 0, 0, "a comma list", NULL, OPT_F_LIST},
    {"mysql-password", OPT_STR, O(password), NULL, 0, 0, "a secret", NULL, OPT_F_SECRET},
    {"force", OPT_BOOL, O(force), "0", 0, 0, "a flag", NULL, 0},
    {"engine", OPT_ENUM, O(engine), "randread", 0, 0, "a choice", choices, 0},
    {"numjobs", OPT_INT, O(numjobs), "1", 1, 256, "a bounded number", NULL, 0},
    {"size", OPT_SIZE, O(size), "4k", 0, 0, "a size", NULL, 0},
    {"rate", OPT_DOUBLE, O(rate), "0", 0, 1e9, "a real number", NULL, 0},
    {"iodepth", OPT_LIST, O(iodepth), "1", 1, 4096, "a list or range", NULL, 0},
    {"bs", OPT_SIZELIST, O(bs), "4k", 512, 64 << 20, "sizes", NULL, 0},
    {"rw", OPT_ENUMLIST, O(rw), "randread", 0, 0, "choices", choices, 0},
    {"percentile", OPT_DLIST, O(percentile), "50,99", 0.0001, 100, "real numbers", NULL, 0},
    {NULL, 0, 0, NULL, 0, 0, NULL, NULL, 0},
};
#undef O

static char ini_path[64], echo_path[64];

static void check_urls(const char *list)
{
        char err[256], *copy, *save = NULL;

        if (!list || !(copy = strdup(list)))
                return;
        for (char *u = strtok_r(copy, ",", &save); u; u = strtok_r(NULL, ",", &save))
                blk_url_check(u, err, sizeof(err));
        free(copy);
}

/* Every item of a --mysql-host list through the host check: refusing is fine, crashing not. */
static void check_hosts(const char *list)
{
        char err[256], host[HOSTPORT_HOST_MAX], *copy, *save = NULL;
        unsigned port;

        if (!list || !(copy = strdup(list)))
                return;
        for (char *h = strtok_r(copy, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
                if (hostport_parse(h, 3306, host, sizeof(host), &port, err, sizeof(err)) == 0)
                        FUZZ_ASSERT(port >= 1 && port <= 65535 && host[0] && !strchr(host, '@'),
                                    "host '%s' accepted as '%s' port %u\n", h, host, port);
                else if (strrchr(h, '@') && strrchr(h, '@') != h)
                        /* Shown from its last '@' on, behind an ellipsis: a test for h
                         * itself in err would match a secret of dots ("." + "...@"). */
                        FUZZ_ASSERT(strncmp(err, "'...@", 5) == 0,
                                    "host '%s': the message quotes what stands before '@': %s\n", h,
                                    err);
        }
        free(copy);
}

static int apply_key(void *user, const char *section, const char *key, const char *val, int line)
{
        char err[512];

        (void)section;
        (void)line;
        /* Bad values are expected: only running out of memory stops the read. */
        return opt_set(user, key, val, err, sizeof(err)) == -ENOMEM ? -ENOMEM : 0;
}

static int write_file(const char *path, const uint8_t *data, size_t n)
{
        FILE *f = fopen(path, "wb");
        int ok = f && fwrite(data, 1, n, f) == n;

        if (f && fclose(f))
                ok = 0;
        return ok ? 0 : -1;
}

/* The INI echo of g read back into fresh storage must be the same config. */
static void round_trip(const struct opt_group *g)
{
        struct cfg back;
        struct opt_group g2[2] = {{defs, &back, NULL}, {NULL, NULL, NULL}};
        char err[512], *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        json_t *a, *b;

        if (!m)
                return;
        fputs("[job]\n", m);
        opt_to_ini(m, g);
        fclose(m);
        memset(&back, 0, sizeof(back));
        FUZZ_ASSERT(!opt_defaults(g2, err, sizeof(err)), "no defaults: %s\n", err);
        FUZZ_ASSERT(!write_file(echo_path, (uint8_t *)text, len), "cannot write %s\n", echo_path);
        FUZZ_ASSERT(!opt_read_ini(echo_path, apply_key, g2, err, sizeof(err)),
                    "the INI echo does not read back: %s\n%s", err, text);
        a = opt_to_json(g);
        b = opt_to_json(g2);
        FUZZ_ASSERT(a && b, "no JSON echo of the config:\n%s", text);
        FUZZ_ASSERT(json_equal(a, b), "the INI echo reads back as another config:\n%s", text);
        json_decref(a);
        json_decref(b);
        opt_free(g2);
        free(text);
}

/* A long value splits only between two adjacent non-blanks (core/opts.c, inih's
 * line limit): one without such a place every 150 characters cannot be read back. */
static int ini_splittable(const char *s, size_t n)
{
        size_t last = 0;

        for (size_t i = 1; i < n; i++) {
                if (s[i - 1] != ' ' && s[i - 1] != '\t' && s[i] != ' ' && s[i] != '\t' &&
                    s[i] != '#')
                        last = i;
                else if (i - last > 150)
                        return 0;
        }
        return 1;
}

/* A string INI can hold as it is: one line, no blanks at its ends, no comment. */
static int ini_safe(const char *s)
{
        size_t n = s ? strlen(s) : 0;

        if (!n)
                return 1;
        if (n > 150 && !ini_splittable(s, n))
                return 0;
        if (strpbrk(s, "\n\r;") || s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' ||
            s[n - 1] == '\t' || strspn(s, " \t\v\f") == n)
                return 0;
        return !strpbrk(s, "\v\f");
}

static void echo(const struct opt_group *g)
{
        json_t *j = opt_to_json(g);
        char *text = j ? json_dumps(j, 0) : NULL;

        FUZZ_ASSERT(text, "no JSON echo: a result would hold no config\n");
        free(text);
        json_decref(j);
        check_urls(((struct cfg *)g->cfg)->target);
        check_hosts(((struct cfg *)g->cfg)->str);
}

static void run_argv(const struct opt_group *g, const uint8_t *data, size_t n)
{
        char *words[MAX_WORDS], *pos[4], err[512];
        int argc = 0, npos = 0, help = 0;
        size_t i = 0;

        while (i < n && argc < MAX_WORDS) {
                const uint8_t *end = memchr(data + i, 0, n - i);
                size_t len = end ? (size_t)(end - (data + i)) : n - i;

                /* Each word its own allocation, so reading past one is caught. */
                if (!(words[argc] = malloc(len + 1)))
                        break;
                memcpy(words[argc], data + i, len);
                words[argc++][len] = '\0';
                i += len + 1;
        }
        if (opt_parse_argv(g, argc, words, pos, 4, &npos, &help, err, sizeof(err)) == 0) {
                const struct cfg *c = g->cfg;

                echo(g);
                /* A value from argv may hold what one INI line cannot: no round trip then. */
                if (ini_safe(c->str) && ini_safe(c->json) && ini_safe(c->target))
                        round_trip(g);
        }
        for (int k = 0; k < argc; k++)
                free(words[k]);
}

static void run_ini(const struct opt_group *g, const uint8_t *data, size_t n)
{
        char err[512];

        FUZZ_ASSERT(!write_file(ini_path, data, n), "cannot write %s\n", ini_path);
        if (opt_read_ini(ini_path, apply_key, (void *)g, err, sizeof(err)) == 0) {
                echo(g);
                round_trip(g);
        }
}

/* libFuzzer's entry points: it declares them in no header of its own. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        snprintf(ini_path, sizeof(ini_path), "/tmp/fuzz_opts.%d.ini", (int)getpid());
        snprintf(echo_path, sizeof(echo_path), "/tmp/fuzz_opts.%d.echo", (int)getpid());
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
        struct cfg c;
        struct opt_group g[2] = {{defs, &c, NULL}, {NULL, NULL, NULL}};
        char err[512];

        if (n == 0)
                return 0;
        memset(&c, 0, sizeof(c));
        FUZZ_ASSERT(!opt_defaults(g, err, sizeof(err)), "no defaults: %s\n", err);
        if (data[0] & 1)
                run_ini(g, data + 1, n - 1);
        else
                run_argv(g, data + 1, n - 1);
        opt_free(g);
        unlink(ini_path);
        unlink(echo_path);
        return 0;
}
