/*
 * commands.c - the command table.
 */
#include <string.h>

#include "block/block.h"
#include "cli/cmd_run.h"
#include "cli/commands.h"
#include "lab/lab.h"
#include "oltp/oltp.h"
#include "results/results.h"
#include "scale/cmd_scale.h"

static const char *const oltp_subs[] = {"prepare", "run", "cleanup", NULL};

const struct hci_command hci_commands[] = {
    {"block", cmd_block, cmd_block_check_option, NULL,
     "block [options]           one block run, or a sweep over --iodepth/--bs/--rw lists"},
    {"oltp", cmd_oltp, cmd_oltp_check_option, oltp_subs,
     "oltp prepare|run|cleanup  sysbench-style OLTP against one or many servers"},
    {"lab", cmd_lab, NULL, NULL,
     "lab up|down|status        the local lab: N database \"VMs\" + an iSCSI target"},
    {"scale", cmd_scale, cmd_scale_check_option, NULL,
     "scale [options]           VM-count scaling: step N up, find the tipping point"},
    {"report", cmd_report, NULL, NULL,
     "report RUN_DIR            render a run's report (HTML + Markdown, plots)"},
    {"compare", cmd_compare, NULL, NULL,
     "compare RUN_A RUN_B       side by side, e.g. HCI versus two-layer"},
    {"analyze", cmd_analyze, NULL, NULL,
     "analyze FILE              peak / knee / latency knee of any load ramp"},
    {"results", cmd_results, NULL, NULL, "results list|show RUN     the run index"},
    {"run", cmd_run, NULL, NULL, "run JOBFILE               run the jobs of an INI job file"},
    {NULL, NULL, NULL, NULL, NULL},
};

const struct hci_command *hci_command_find(const char *name)
{
        for (const struct hci_command *c = hci_commands; c->name; c++)
                if (!strcmp(c->name, name))
                        return c;
        return NULL;
}
