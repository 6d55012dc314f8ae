/* block/cmd_block.c: placeholder */
#include <stdio.h>
#include "core/exitcode.h"
#include "block/block.h"

int cmd_block(int argc, char **argv)
{
        (void)argc;
        (void)argv;
        fprintf(stderr, "hcisweep: block: not implemented yet\n");
        return HCI_EXIT_USAGE;
}
