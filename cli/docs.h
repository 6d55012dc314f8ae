/*
 * docs.h - the man page and the bash completion, made from the command
 * table (commands.h) and each command's options tables (core/opts.h), the
 * same tables that parse the command line, print --help and read job
 * files: an option added to a table is documented and completed at once.
 */
#ifndef HCI_CLI_DOCS_H
#define HCI_CLI_DOCS_H

#include <stdio.h>

/* hcisweep(1) in man(7) roff, to f (`hcisweep help --man`). */
void hci_man_page(FILE *f);

/* `hcisweep completion bash`: the bash completion script on stdout. Returns an exit code. */
int cmd_completion(int argc, char **argv);

/*
 * The command's line of `hcisweep --help` split at its first run of two
 * spaces: the synopsis ("oltp prepare|run|cleanup") into syn, the rest
 * (the summary) returned, pointing into usage.
 */
const char *hci_usage_split(const char *usage, char *syn, size_t synlen);

#endif
