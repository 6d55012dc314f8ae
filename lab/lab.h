/*
 * lab.h - the `hcisweep lab` command: bring the database VMs and the storage
 * service up, take them down, show them. The lab itself (backends, state,
 * target, cgroups) is in the other headers of lab/; the experiment that uses
 * it is scale/.
 */
#ifndef HCI_LAB_LAB_H
#define HCI_LAB_LAB_H

#include "core/opts.h"

/* `hcisweep lab up|down|status [options]`; argv[0] is "lab". Returns an
 * exit code of core/exitcode.h. */
int cmd_lab(int argc, char **argv);

/* Its options tables, for generated docs (opt_group array, NULL-terminated; cfg NULL). */
extern const struct opt_group cmd_lab_options[];

#endif
