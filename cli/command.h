/*
 * command.h - what one of hcisweep's commands is: its entry point, its
 * options and what a job file may do with it. The table of them is
 * commands.h's; `hcisweep run` (cmd_run.h) is handed that table, so it
 * needs only this type.
 */
#ifndef HCI_CLI_COMMAND_H
#define HCI_CLI_COMMAND_H

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

#endif
