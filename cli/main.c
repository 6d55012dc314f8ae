/*
 * main.c - the hcisweep command: dispatch to the commands of the table in
 * commands.c (README.md).
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/docs.h"
#include "core/exitcode.h"

static void usage(FILE *f)
{
        fprintf(f,
                "usage: hcisweep COMMAND [options]    (hcisweep COMMAND --help for its options)\n\n"
                "commands:\n");
        for (const struct hci_command *c = hci_commands; c->name; c++)
                fprintf(f, "  %s\n", c->usage);
        fprintf(f, "\n%s", HCI_EXIT_HELP);
}

int main(int argc, char **argv)
{
        const struct hci_command *c;

        if (argc < 2) {
                usage(stderr);
                return HCI_EXIT_USAGE;
        }
        if (!strcmp(argv[1], "help") && argc == 3 && !strcmp(argv[2], "--man")) {
                hci_man_page(stdout);
                return HCI_EXIT_OK;
        }
        if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
                usage(stdout);
                return HCI_EXIT_OK;
        }
        if (!strcmp(argv[1], "--version")) {
                printf("hcisweep %s\n", HCISWEEP_VERSION);
                return HCI_EXIT_OK;
        }
        c = hci_command_find(argv[1]);
        if (c)
                return c->run(argc - 1, argv + 1);
        fprintf(stderr, "hcisweep: unknown command '%s' (try hcisweep --help)\n", argv[1]);
        return HCI_EXIT_USAGE;
}
