/*
 * vmctl.h - the controller's commands: `hcisweep lab` (bring the database
 * VMs up, take them down, show them). `hcisweep scale` comes here too.
 */
#ifndef HCI_VMCTL_H
#define HCI_VMCTL_H

/* `hcisweep lab up|down|status [options]`; argv[0] is "lab". Returns an
 * exit code of core/exitcode.h. */
int cmd_lab(int argc, char **argv);

/* `hcisweep scale [options]`: VM-count scaling and the tipping point (scale.c).
 * argv[0] is "scale". Returns an exit code of core/exitcode.h, or 130 when
 * interrupted. */
int cmd_scale(int argc, char **argv);

/* Check one scale (or oltp) option of a job file without running anything:
 * 0, or -EINVAL with err naming the option. */
int cmd_scale_check_option(const char *name, const char *val, char *err, unsigned errlen);

#endif
