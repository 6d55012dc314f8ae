/*
 * block.h - the block command: one run or a sweep over iodepth/bs/rw lists.
 */
#ifndef HCI_BLOCK_H
#define HCI_BLOCK_H

/* `hcisweep block [options]`; argv[0] is "block". Returns an exit code (core/exitcode.h). */
int cmd_block(int argc, char **argv);

#endif
