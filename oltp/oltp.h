/*
 * oltp.h - the OLTP command: sysbench-style transactions against many servers.
 * The options as an API for other commands: oltpopts.h.
 */
#ifndef HCI_OLTP_H
#define HCI_OLTP_H

#include "core/driverproto.h"
#include "core/opts.h"

#include <stddef.h>

/*
 * The lines a driver prints for its controller (core/driverproto.h).
 *
 * What it reads on stdin: with --mysql-password-stdin first the password,
 * one line; then "go" (unless --go-file). The end of stdin before "go"
 * ends it with no run; after "go" it stops the run as SIGINT does, the
 * partial result still printed (exit 130): the controller stops its
 * drivers that way, and a driver over ssh sees it when the connection or
 * its controller is gone.
 */
#define OLTP_DRIVER_READY   DRIVER_LINE_READY
#define OLTP_DRIVER_STARTED DRIVER_LINE_STARTED
#define OLTP_DRIVER_RESULT  DRIVER_LINE_RESULT

/* `hcisweep oltp prepare|run|cleanup [options]`; argv[0] is "oltp". Returns an exit code. */
int cmd_oltp(int argc, char **argv);

/* Its options tables, for generated docs (opt_group array, NULL-terminated; cfg NULL). */
extern const struct opt_group cmd_oltp_options[];

/* Check one oltp option of a job file without running anything: 0, or
 * -EINVAL with err naming the option. */
int cmd_oltp_check_option(const char *name, const char *val, char *err, size_t errlen);

#endif
