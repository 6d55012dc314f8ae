/*
 * block.h - the block command: one run or a sweep over iodepth/bs/rw lists.
 */
#ifndef HCI_BLOCK_H
#define HCI_BLOCK_H

#include "core/opts.h"

/* `hcisweep block [options]`; argv[0] is "block". Returns an exit code (core/exitcode.h). */
int cmd_block(int argc, char **argv);

/* Its options tables, for generated docs (opt_group array, NULL-terminated; cfg NULL). */
extern const struct opt_group cmd_block_options[];

/*
 * Check one option as a job file would set it (name without "--"). 0, or
 * -EINVAL with err naming the option. Any thread.
 */
int cmd_block_check_option(const char *name, const char *val, char *err, size_t errlen);

#endif
