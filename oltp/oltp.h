/*
 * oltp.h - the OLTP command: sysbench-style transactions against many servers.
 * The options as an API for other commands: oltpopts.h.
 */
#ifndef HCI_OLTP_H
#define HCI_OLTP_H

#include <stddef.h>

/* `hcisweep oltp prepare|run|cleanup [options]`; argv[0] is "oltp". Returns an exit code. */
int cmd_oltp(int argc, char **argv);

/* Check one oltp option of a job file without running anything: 0, or
 * -EINVAL with err naming the option. */
int cmd_oltp_check_option(const char *name, const char *val, char *err, size_t errlen);

#endif
