/*
 * exitcode.h - the exit codes the README lists, shared by every command.
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

#endif
