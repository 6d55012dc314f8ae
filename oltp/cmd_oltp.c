/* oltp/cmd_oltp.c: placeholder until the OLTP module lands. */
#include <stdio.h>
#include "core/exitcode.h"
#include "oltp/oltp.h"

int cmd_oltp(int argc, char **argv)
{
        (void)argc;
        (void)argv;
        fprintf(stderr, "hcisweep: oltp: not implemented yet\n");
        return HCI_EXIT_USAGE;
}
