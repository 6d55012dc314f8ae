/*
 * exitcode.h - the exit codes the README lists, shared by every command;
 * HCI_EXIT_HELP is their one text, printed by every --help.
 */
#ifndef HCI_EXITCODE_H
#define HCI_EXITCODE_H

enum hci_exit {
        HCI_EXIT_OK = 0,     /* done */
        HCI_EXIT_CHECK = 1,  /* run completed, but what it checked failed */
        HCI_EXIT_USAGE = 2,  /* bad usage or input */
        HCI_EXIT_TARGET = 3, /* a target could not be reached, logged in to or prepared */
        HCI_EXIT_OUTPUT = 4, /* the result could not be written (no space, I/O error); what was
                                saved before stays, marked partial */
        HCI_EXIT_INTERRUPTED = 130, /* SIGINT/SIGTERM: what was measured is written, partial */
};

/* The exit codes as every command's --help ends with them (opt_help). */
#define HCI_EXIT_HELP                                                                              \
        "exit codes (every command): 0 done; 1 the run completed but what it checked failed\n"     \
        "  (verify mismatches, SQL errors); 2 bad usage or input; 3 a target or server could\n"    \
        "  not be reached, started, logged in to or prepared, or was lost; 4 the result could\n"   \
        "  not be written (e.g. no space left: what was saved before stays, marked partial);\n"    \
        "  130 interrupted (what was measured is written, marked partial).\n"

#endif
