/*
 * main.c - the hcisweep command: dispatch to the subcommands of CLI.md.
 */
#include <stdio.h>
#include <string.h>

#include "core/exitcode.h"
#include "block/block.h"
#include "cli/cmd_run.h"
#include "oltp/oltp.h"
#include "lab/lab.h"
#include "scale/cmd_scale.h"
#include "results/results.h"

struct command {
        const char *name;
        int (*run)(int argc, char **argv); /* NULL: not implemented yet */
        const char *usage;
};

static const struct command commands[] = {
    {"block", cmd_block,
     "block [options]           one block run, or a sweep over --iodepth/--bs/--rw lists"},
    {"oltp", cmd_oltp, "oltp prepare|run|cleanup  sysbench-style OLTP against one or many servers"},
    {"lab", cmd_lab,
     "lab up|down|status        the local lab: N database \"VMs\" + an iSCSI target"},
    {"scale", cmd_scale,
     "scale [options]           VM-count scaling: step N up, find the tipping point"},
    {"report", cmd_report,
     "report RUN_DIR            render a run's report (HTML + Markdown, plots)"},
    {"compare", cmd_compare, "compare RUN_A RUN_B       side by side, e.g. HCI versus two-layer"},
    {"analyze", cmd_analyze,
     "analyze FILE              peak / knee / latency knee of any load ramp"},
    {"results", cmd_results, "results list|show RUN     the run index"},
    {"run", cmd_run, "run JOBFILE               run the jobs of an INI job file"},
};

static void usage(FILE *f)
{
        fprintf(f,
                "usage: hcisweep COMMAND [options]    (hcisweep COMMAND --help for its options)\n\n"
                "commands:\n");
        for (unsigned i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                fprintf(f, "  %s\n", commands[i].usage);
        fprintf(
            f,
            "\nexit codes: 0 done; 1 checks failed; 2 bad usage or input; 3 target unreachable;\n"
            "4 result not written (no space); 130 interrupted\n");
}

int main(int argc, char **argv)
{
        if (argc < 2) {
                usage(stderr);
                return HCI_EXIT_USAGE;
        }
        if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
                usage(stdout);
                return HCI_EXIT_OK;
        }
        if (!strcmp(argv[1], "--version")) {
                printf("hcisweep %s\n", HCISWEEP_VERSION);
                return HCI_EXIT_OK;
        }
        for (unsigned i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
                if (strcmp(argv[1], commands[i].name) != 0)
                        continue;
                if (!commands[i].run) {
                        fprintf(stderr, "hcisweep: %s: not implemented yet\n", argv[1]);
                        return HCI_EXIT_USAGE;
                }
                return commands[i].run(argc - 1, argv + 1);
        }
        fprintf(stderr, "hcisweep: unknown command '%s' (try hcisweep --help)\n", argv[1]);
        return HCI_EXIT_USAGE;
}
