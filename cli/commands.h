/*
 * commands.h - the one table of hcisweep's commands (README.md), used by main
 * to dispatch and by `hcisweep run JOBFILE` to check and run its jobs.
 */
#ifndef HCI_CLI_COMMANDS_H
#define HCI_CLI_COMMANDS_H

#include "cli/command.h"

/* Every command, in `hcisweep --help` order, terminated by a NULL name. */
extern const struct hci_command hci_commands[];

/* The command called name, or NULL. */
const struct hci_command *hci_command_find(const char *name);

#endif
