/*
 * man.c - hcisweep(1), written from the command table and the options
 * tables (see docs.h). The prose around them (description, job files,
 * exit status, environment) is the one part kept by hand here.
 */
#include <string.h>

#include "cli/commands.h"
#include "cli/docs.h"
#include "core/opts.h"

const char *hci_usage_split(const char *usage, char *syn, size_t synlen)
{
        const char *gap = strstr(usage, "  ");
        size_t n = gap ? (size_t)(gap - usage) : strlen(usage);

        snprintf(syn, synlen, "%.*s", (int)n, usage);
        if (!gap)
                return "";
        while (*gap == ' ')
                gap++;
        return gap;
}

/* Text for roff: backslashes and hyphens escaped, no line starting with a control character. */
static void roff(FILE *f, const char *s)
{
        if (*s == '.' || *s == '\'')
                fputs("\\&", f);
        for (; *s; s++) {
                if (*s == '\\')
                        fputs("\\e", f);
                else if (*s == '-')
                        fputs("\\-", f);
                else
                        fputc(*s, f);
        }
}

static void option(FILE *f, const struct opt_def *d)
{
        const char *mv = opt_metavar(d);

        fputs(".TP\n\\fB\\-\\-", f);
        roff(f, d->name);
        fputs("\\fR", f);
        if (*mv)
                fprintf(f, " \\fI%s\\fR", mv);
        fputs("\n", f);
        roff(f, d->help ? d->help : "");
        if (d->help && *d->help && d->help[strlen(d->help) - 1] != '.')
                fputs(".", f);
        if (d->choices) {
                fputs(" Choices: ", f);
                for (unsigned i = 0; d->choices[i]; i++) {
                        fputs(i ? ", " : "", f);
                        roff(f, d->choices[i]);
                }
                fputs(".", f);
        }
        if (d->def && d->def[0] && !(d->flags & OPT_F_SECRET) && d->type != OPT_BOOL) {
                fputs(" Default: ", f);
                roff(f, d->def);
                fputs(".", f);
        }
        if (d->type == OPT_BOOL && d->def && !strcmp(d->def, "1"))
                fputs(" On by default (\\-\\-", f), roff(f, d->name), fputs("=0 turns it off).", f);
        fputs("\n", f);
}

static void command_options(FILE *f, const struct hci_command *c)
{
        char syn[128];
        const char *summary = hci_usage_split(c->usage, syn, sizeof(syn));

        fputs(".SS \"hcisweep ", f);
        roff(f, syn);
        fputs("\"\n", f);
        roff(f, summary);
        fputs(".\n", f);
        for (const struct opt_group *gi = c->options; gi && gi->defs; gi++) {
                if (gi != c->options) {
                        fputs(".PP\n\\fI", f);
                        roff(f, gi->title ? gi->title : "options");
                        fputs(":\\fR\n", f);
                }
                for (const struct opt_def *d = gi->defs; d->name; d++)
                        if (opt_listed(c->options, gi, d))
                                option(f, d);
        }
}

static const char head[] =
    ".TH HCISWEEP 1 \"\" \"hcisweep %s\" \"User Commands\"\n"
    ".SH NAME\n"
    "hcisweep \\- benchmark suite for hyperconverged and two\\-layer storage\n"
    ".SH SYNOPSIS\n"
    ".B hcisweep\n"
    ".I COMMAND\n"
    ".RI [ options ]\n"
    ".br\n"
    ".B hcisweep run\n"
    ".I JOBFILE\n"
    ".br\n"
    ".B hcisweep help\n"
    ".RB [ \\-\\-man ]\n"
    ".SH DESCRIPTION\n"
    "hcisweep measures block storage (iSCSI LUNs through libiscsi, files and devices\n"
    "through io_uring), runs sysbench\\-style OLTP against many MySQL/MariaDB servers at\n"
    "once, and steps the number of database VMs up until compute starts limiting\n"
    "storage (the tipping point), for hyperconverged and two\\-layer designs alike.\n"
    "Every measuring command writes a versioned result JSON with merged latency\n"
    "histograms; reports, comparisons and knee analysis read them back.\n"
    ".PP\n"
    "Options are written \\fB\\-\\-name value\\fR or \\fB\\-\\-name=value\\fR; a flag alone\n"
    "turns it on. Sizes take k, m, g suffixes (4k); lists are comma\\-separated or\n"
    "ranges (1\\-128 doubles, 4\\-32:4 steps by 4). Every command takes \\fB\\-\\-help\\fR.\n"
    ".SH COMMANDS\n";

static const char tail[] =
    ".SH \"JOB FILES\"\n"
    "\\fBhcisweep run\\fR \\fIJOBFILE\\fR reads an INI file in the style of fio: a\n"
    "[global] section holds options for every job, each other section is a job run\n"
    "in file order. \\fBcommand =\\fR picks the command (block, the default, \\(dqoltp\n"
    "prepare|run|cleanup\\(dq or scale); every other key is an option of that command\n"
    "written without the leading \\-\\-, e.g. \\fBiodepth = 1\\-64\\fR. All keys are\n"
    "checked before the first job runs. A relative path in a job file is relative\n"
    "to the job file's directory. Every run directory holds a job.ini with the\n"
    "effective options (every path absolute), which runs the same thing again.\n"
    ".SH \"EXIT STATUS\"\n"
    ".TP\n.B 0\ndone\n"
    ".TP\n.B 1\nthe run completed but what it checked failed (verify mismatches, errors)\n"
    ".TP\n.B 2\nbad usage or input (the message names the option or the job file line)\n"
    ".TP\n.B 3\na target could not be reached, logged in to or prepared\n"
    ".TP\n.B 4\nthe result could not be written (no space)\n"
    ".TP\n.B 130\ninterrupted\n"
    ".SH ENVIRONMENT\n"
    ".TP\n.B MYSQL_PWD\nthe MySQL/MariaDB password when no password file or option file gives one\n"
    ".TP\n.B HCISWEEP_INDEX\nthe run index (SQLite) instead of\n"
    ".IR $XDG_DATA_HOME/hcisweep/index.sqlite\n"
    ".SH EXAMPLES\n"
    ".nf\n"
    "hcisweep block \\-\\-target iscsi://127.0.0.1:3260/iqn.2026\\-11.io.hcisweep:lab/1 \\e\n"
    "    \\-\\-rw randread,randwrite \\-\\-bs 4k \\-\\-iodepth 1\\-64 \\-\\-runtime 10\n"
    "hcisweep block \\-\\-filename /dev/nvme0n1 \\-\\-output\\-format fio\\-json+ \\-\\-json "
    "out.json\n"
    "hcisweep oltp run \\-\\-mysql\\-host 127.0.0.1 \\-\\-threads 16 \\-\\-time 60 \\e\n"
    "    \\-\\-metrics\\-listen 127.0.0.1:9464\n"
    "hcisweep scale \\-\\-vms 1\\-8 \\-\\-topology hci\n"
    "source <(hcisweep completion bash)\n"
    ".fi\n"
    ".SH \"SEE ALSO\"\n"
    ".BR fio (1),\n"
    ".BR sysbench (1),\n"
    ".BR tgtd (8),\n"
    ".BR prometheus (1)\n";

void hci_man_page(FILE *f)
{
        char syn[128];

        fprintf(f, head, HCISWEEP_VERSION);
        for (const struct hci_command *c = hci_commands; c->name; c++) {
                const char *summary = hci_usage_split(c->usage, syn, sizeof(syn));
                fputs(".TP\n.B ", f);
                roff(f, syn);
                fputs("\n", f);
                roff(f, summary);
                fputs("\n", f);
        }
        fputs(".SH OPTIONS\n", f);
        for (const struct hci_command *c = hci_commands; c->name; c++)
                if (c->options)
                        command_options(f, c);
        fputs(tail, f);
}
