/*
 * commands.h - the one table of hcisweep's commands (README.md), used by main
 * to dispatch and by `hcisweep run JOBFILE` to check and run its jobs.
 */
#ifndef HCI_CLI_COMMANDS_H
#define HCI_CLI_COMMANDS_H

#include <stddef.h>

struct hci_command {
        const char *name;
        int (*run)(int argc, char **argv); /* argv[0] is the name; returns an exit code */
        /* A job file may run the command when it can check one of its
         * options without running anything: 0, or -EINVAL with err naming
         * the option. NULL: not a job command. */
        int (*check_option)(const char *name, const char *val, char *err, size_t errlen);
        /* The subcommands a job must name ("oltp run"), NULL-terminated;
         * NULL: the command takes none. */
        const char *const *subs;
        const char *usage; /* its line in `hcisweep --help` */
        /* Its options tables (cfg NULL), NULL-terminated; NULL: none. The
         * man page and the shell completion are made from them (docs.h). */
        const struct opt_group *options;
};

/* Every command, in `hcisweep --help` order, terminated by a NULL name. */
extern const struct hci_command hci_commands[];

/* The command called name, or NULL. */
const struct hci_command *hci_command_find(const char *name);

#endif
