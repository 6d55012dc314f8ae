/*
 * cmd_run.h - `hcisweep run JOBFILE`.
 */
#ifndef HCI_CMD_RUN_H
#define HCI_CMD_RUN_H

#include "cli/command.h"

/*
 * argv[0] is "run", argv[1] the job file; a job may name any command of
 * table (NULL-name terminated: commands.c's hci_commands) that has a
 * check_option. Returns the worst exit code of its jobs.
 */
int cmd_run(const struct hci_command *table, int argc, char **argv);

#endif
