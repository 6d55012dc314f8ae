/*
 * cmd_scale.h - the `hcisweep scale` command: VM-count scaling and the
 * tipping point, on any lab backend (lab/).
 */
#ifndef HCI_SCALE_CMD_SCALE_H
#define HCI_SCALE_CMD_SCALE_H

#include "core/opts.h"

/* `hcisweep scale [options]` (cmd_scale.c). argv[0] is "scale". Returns an exit
 * code of core/exitcode.h (HCI_EXIT_INTERRUPTED, 130, when interrupted). */
int cmd_scale(int argc, char **argv);

/* Its options tables, for generated docs (opt_group array, NULL-terminated; cfg NULL). */
extern const struct opt_group cmd_scale_options[];

/* Check one scale (or oltp) option of a job file without running anything:
 * 0, or -EINVAL with err naming the option. */
int cmd_scale_check_option(const char *name, const char *val, char *err, size_t errlen);

#endif
