/*
 * commands.c - the command table.
 */
#include <string.h>

#include "block/block.h"
#include "cli/cmd_run.h"
#include "cli/commands.h"
#include "cli/docs.h"
#include "lab/lab.h"
#include "oltp/oltp.h"
#include "results/results.h"
#include "scale/cmd_scale.h"

static const char *const oltp_subs[] = {"prepare", "run", "cleanup", NULL};

/* `hcisweep run`: its jobs may name any command of this table. */
static int run_jobs(int argc, char **argv)
{
        return cmd_run(hci_commands, argc, argv);
}

const struct hci_command hci_commands[] = {
    {"block", cmd_block, cmd_block_check_option, NULL,
     "block [options]           one block run, or a sweep over --iodepth/--bs/--rw lists",
     cmd_block_options},
    {"oltp", cmd_oltp, cmd_oltp_check_option, oltp_subs,
     "oltp prepare|run|cleanup  sysbench-style OLTP against one or many servers", cmd_oltp_options},
    {"lab", cmd_lab, NULL, NULL,
     "lab up|down|status        the local lab: N database \"VMs\" + an iSCSI target",
     cmd_lab_options},
    {"scale", cmd_scale, cmd_scale_check_option, NULL,
     "scale [options]           VM-count scaling: step N up, find the tipping point",
     cmd_scale_options},
    {"report", cmd_report, NULL, NULL,
     "report RUN_DIR            render a run's report (HTML + Markdown, plots)",
     cmd_report_options},
    {"compare", cmd_compare, NULL, NULL,
     "compare RUN_A RUN_B       side by side, e.g. HCI versus two-layer", cmd_compare_options},
    {"analyze", cmd_analyze, NULL, NULL,
     "analyze FILE              peak / knee / latency knee of any load ramp", cmd_analyze_options},
    {"results", cmd_results, NULL, NULL, "results list|show RUN     the run index",
     cmd_results_options},
    {"run", run_jobs, NULL, NULL, "run JOBFILE               run the jobs of an INI job file",
     NULL},
    {"completion", cmd_completion, NULL, NULL,
     "completion bash           the bash completion script (source it)", NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

const struct hci_command *hci_command_find(const char *name)
{
        for (const struct hci_command *c = hci_commands; c->name; c++)
                if (!strcmp(c->name, name))
                        return c;
        return NULL;
}
