/*
 * cmd_run.c - `hcisweep run JOBFILE`: the jobs of an INI job file.
 *
 * fio-style: [global] holds options for every job, then one section per
 * job, run in file order. A job's `command` key picks the command (block,
 * the default, "oltp prepare|run|cleanup" or scale: those of the command
 * table, commands.c, that can check an option); every other key is an
 * option of that command, checked against its options table first so a
 * mistake is reported with its file and line before anything runs. Each job
 * then runs exactly as `hcisweep COMMAND --key=value ...` would, through the
 * same table as main, which cmd_run() is handed (cmd_run.h). A relative path
 * (an option the table marks OPT_F_PATH: --filename, --json, password
 * files...) is relative to the job file's directory, never to the current
 * one: a run's job.ini rerun from elsewhere reads and writes the files of
 * that run and no other.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_run.h"
#include "core/exitcode.h"
#include "core/log.h"
#include "core/opts.h"

/* The command table cmd_run() was handed: the commands a job may run. */
static const struct hci_command *commands;

static const struct hci_command *command_find(const char *name)
{
        for (const struct hci_command *c = commands; c->name; c++)
                if (!strcmp(c->name, name))
                        return c;
        return NULL;
}

#define MAX_JOBS 64
#define MAX_KEYS 128

struct kv {
        char *key, *val;
        int line;
};

struct job {
        char *name;
        char *command; /* NULL: block */
        struct kv kv[MAX_KEYS];
        unsigned nkv;
};

struct jobfile {
        const char *path;
        char dir[PATH_MAX]; /* the job file's directory, absolute: its relative paths start here */
        struct job global;
        struct job jobs[MAX_JOBS];
        unsigned njobs;
        char err[512];
};

static struct job *job_for(struct jobfile *f, const char *section)
{
        if (!strcmp(section, "global"))
                return &f->global;
        if (f->njobs && !strcmp(f->jobs[f->njobs - 1].name, section))
                return &f->jobs[f->njobs - 1];
        if (f->njobs == MAX_JOBS)
                return NULL;
        f->jobs[f->njobs].name = strdup(section);
        return f->jobs[f->njobs].name ? &f->jobs[f->njobs++] : NULL;
}

static int on_key(void *user, const char *section, const char *key, const char *val, int line)
{
        struct jobfile *f = user;
        struct job *j;

        if (!*section) {
                snprintf(f->err, sizeof(f->err), "%s:%d: '%s' is outside any [section]", f->path,
                         line, key);
                return -EINVAL;
        }
        if (!(j = job_for(f, section)) || j->nkv == MAX_KEYS) {
                snprintf(f->err, sizeof(f->err), "%s:%d: too many jobs or keys", f->path, line);
                return -EINVAL;
        }
        if (!strcmp(key, "command")) {
                free(j->command);
                j->command = strdup(val);
                return j->command ? 0 : -ENOMEM;
        }
        j->kv[j->nkv] = (struct kv){strdup(key), strdup(val), line};
        if (!j->kv[j->nkv].key || !j->kv[j->nkv].val)
                return -ENOMEM;
        j->nkv++;
        return 0;
}

static const char *job_command(const struct jobfile *f, const struct job *j)
{
        return j->command ? j->command : f->global.command ? f->global.command : "block";
}

/* TEXT ("block", "scale", "oltp run") as a command of the table that jobs
 * can run, with *sub pointing into name at its subcommand (NULL: none). */
static const struct hci_command *job_target(const char *text, char *name, size_t len, char **sub)
{
        const struct hci_command *c;

        snprintf(name, len, "%s", text);
        *sub = strchr(name, ' ');
        if (*sub)
                *(*sub)++ = '\0';
        c = command_find(name);
        if (!c || !c->check_option)
                return NULL;
        if (!c->subs)
                return *sub ? NULL : c;
        for (unsigned i = 0; *sub && c->subs[i]; i++)
                if (!strcmp(*sub, c->subs[i]))
                        return c;
        return NULL;
}

/* "block, oltp prepare|run|cleanup, scale": what a job's command may be. */
static void job_commands(char *out, size_t len)
{
        size_t n = 0;

        out[0] = '\0';
        for (const struct hci_command *c = commands; c->name && n < len; c++) {
                if (!c->check_option)
                        continue;
                n += (size_t)snprintf(out + n, len - n, "%s%s%s", n ? ", " : "", c->name,
                                      c->subs ? " " : "");
                for (unsigned i = 0; c->subs && c->subs[i] && n < len; i++)
                        n += (size_t)snprintf(out + n, len - n, "%s%s", i ? "|" : "", c->subs[i]);
        }
}

static int check_key(const struct jobfile *f, const char *cmd, const struct kv *kv, char *err,
                     size_t errlen)
{
        const struct hci_command *c;
        char why[400], name[64], *sub;
        int rc;

        c = job_target(cmd, name, sizeof(name), &sub);
        if (!c) {
                job_commands(why, sizeof(why));
                snprintf(err, errlen, "%s:%d: unknown command '%s' (%s)", f->path, kv->line, cmd,
                         why);
                return -EINVAL;
        }
        rc = c->check_option(kv->key, kv->val, why, sizeof(why));
        if (rc < 0)
                snprintf(err, errlen, "%s:%d: %s", f->path, kv->line, why);
        return rc;
}

/* The --json a job writes, from its own keys or [global]'s; NULL for a run directory. */
static const struct kv *job_json(const struct jobfile *f, const struct job *j)
{
        const struct kv *found = NULL;
        const char *cmd = job_command(f, j);

        if (!strcmp(cmd, "oltp prepare") || !strcmp(cmd, "oltp cleanup"))
                return NULL; /* they write no result */
        for (unsigned k = 0; k < f->global.nkv; k++)
                if (!strcmp(f->global.kv[k].key, "json"))
                        found = &f->global.kv[k];
        for (unsigned k = 0; k < j->nkv; k++)
                if (!strcmp(j->kv[k].key, "json"))
                        found = &j->kv[k];
        return found && found->val[0] ? found : NULL;
}

/* kv's value as the job gives it to c: a relative path made relative to the job file. Heap. */
static char *job_value(const struct jobfile *f, const struct hci_command *c, const struct kv *kv)
{
        const struct opt_def *d = c && c->options ? opt_def_find(c->options, kv->key) : NULL;

        return d ? opt_path_resolve(d, kv->val, f->dir) : strdup(kv->val);
}

static const struct hci_command *job_cmd(const struct jobfile *f, const struct job *j)
{
        char name[64], *sub;

        return job_target(job_command(f, j), name, sizeof(name), &sub);
}

/* Two jobs writing one --json file: the second would silently replace the first's result. */
static int check_outputs(struct jobfile *f)
{
        for (unsigned i = 0; i < f->njobs; i++) {
                const struct kv *a = job_json(f, &f->jobs[i]);
                char *pa = a ? job_value(f, job_cmd(f, &f->jobs[i]), a) : NULL;

                for (unsigned k = i + 1; pa && k < f->njobs; k++) {
                        const struct kv *b = job_json(f, &f->jobs[k]);
                        char *pb = b ? job_value(f, job_cmd(f, &f->jobs[k]), b) : NULL;
                        int same = pb && !strcmp(pa, pb);

                        free(pb);
                        if (same) {
                                snprintf(f->err, sizeof(f->err),
                                         "%s:%d: jobs [%s] and [%s] both write --json %s", f->path,
                                         b->line, f->jobs[i].name, f->jobs[k].name, b->val);
                                free(pa);
                                return -EINVAL;
                        }
                }
                free(pa);
        }
        return 0;
}

/* Every key of every job is checked before the first job runs. */
static int check_all(struct jobfile *f)
{
        for (unsigned i = 0; i < f->njobs; i++) {
                const char *cmd = job_command(f, &f->jobs[i]);
                for (unsigned k = 0; k < f->global.nkv; k++)
                        if (check_key(f, cmd, &f->global.kv[k], f->err, sizeof(f->err)) < 0)
                                return -EINVAL;
                for (unsigned k = 0; k < f->jobs[i].nkv; k++)
                        if (check_key(f, cmd, &f->jobs[i].kv[k], f->err, sizeof(f->err)) < 0)
                                return -EINVAL;
        }
        return check_outputs(f);
}

static char *kv_arg(const struct jobfile *f, const struct hci_command *c, const struct kv *kv)
{
        char *val = job_value(f, c, kv), *a = NULL;
        size_t n;

        if (val && (a = malloc(n = strlen(kv->key) + strlen(val) + 4)))
                snprintf(a, n, "--%s=%s", kv->key, val);
        free(val);
        return a;
}

/* argv = COMMAND [SUB] --global... --job... */
static int run_job(const struct jobfile *f, const struct job *j)
{
        char *argv[2 + 2 * MAX_KEYS + 1] = {0}, cmd[64], *sub;
        const struct hci_command *c = job_target(job_command(f, j), cmd, sizeof(cmd), &sub);
        int argc = 0, rc = HCI_EXIT_USAGE;

        if (!c) {
                log_error("%s: job [%s]: unknown command '%s'", f->path, j->name,
                          job_command(f, j));
                return HCI_EXIT_USAGE;
        }
        argv[argc++] = cmd;
        if (sub)
                argv[argc++] = sub;
        for (unsigned k = 0; k < f->global.nkv; k++)
                if (!(argv[argc++] = kv_arg(f, c, &f->global.kv[k])))
                        goto out;
        for (unsigned k = 0; k < j->nkv; k++)
                if (!(argv[argc++] = kv_arg(f, c, &j->kv[k])))
                        goto out;
        fflush(stdout);
        log_info("job [%s]: %s%s%s", j->name, cmd, sub ? " " : "", sub ? sub : "");
        rc = c->run(argc, argv);
out:
        for (int i = sub ? 2 : 1; i < argc; i++)
                free(argv[i]);
        return rc;
}

/* The absolute directory of the job file (it was read, so it exists). */
static int job_dir(struct jobfile *f)
{
        char copy[PATH_MAX];

        snprintf(copy, sizeof(copy), "%s", f->path);
        if (!realpath(dirname(copy), f->dir)) {
                snprintf(f->err, sizeof(f->err), "%s: its directory: %s", f->path, strerror(errno));
                return -EINVAL;
        }
        return 0;
}

static void free_job(struct job *j)
{
        free(j->name);
        free(j->command);
        for (unsigned k = 0; k < j->nkv; k++) {
                free(j->kv[k].key);
                free(j->kv[k].val);
        }
}

int cmd_run(const struct hci_command *table, int argc, char **argv)
{
        static struct jobfile f;
        int rc = HCI_EXIT_OK;

        commands = table;
        if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
                printf(
                    "usage: hcisweep run JOBFILE\n\n"
                    "Runs the jobs of an INI job file in order: [global] options apply to every\n"
                    "job; each other [section] is a job; `command = block` (default),\n"
                    "`command = oltp prepare|run|cleanup` or `command = scale`; every other key\n"
                    "is an option of that command, written without the leading --. A relative\n"
                    "path (--filename, --json, a password file...) is relative to the job file's\n"
                    "directory.\n");
                return HCI_EXIT_OK;
        }
        if (argc != 2) {
                log_error("usage: hcisweep run JOBFILE");
                return HCI_EXIT_USAGE;
        }
        memset(&f, 0, sizeof(f));
        f.path = argv[1];
        if (opt_read_ini(f.path, on_key, &f, f.err, sizeof(f.err)) < 0 || job_dir(&f) < 0 ||
            check_all(&f) < 0) {
                log_error("%s", f.err);
                rc = HCI_EXIT_USAGE;
        } else if (f.njobs == 0) {
                log_error("%s: no job sections (only [global])", f.path);
                rc = HCI_EXIT_USAGE;
        }
        /* A job whose checks failed (1) does not stop the file; bad input or a lost target does. */
        for (unsigned i = 0; rc <= HCI_EXIT_CHECK && i < f.njobs; i++) {
                int jrc = run_job(&f, &f.jobs[i]);
                if (jrc > rc)
                        rc = jrc;
        }
        free_job(&f.global);
        for (unsigned i = 0; i < f.njobs; i++)
                free_job(&f.jobs[i]);
        return rc;
}
