/*
 * oltp.h - the OLTP command: sysbench-style transactions against many servers.
 */
#ifndef HCI_OLTP_H
#define HCI_OLTP_H

/* `hcisweep oltp prepare|run|cleanup [options]`; argv[0] is "oltp". Returns an exit code. */
int cmd_oltp(int argc, char **argv);

#endif
