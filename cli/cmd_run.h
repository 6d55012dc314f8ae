/*
 * cmd_run.h - `hcisweep run JOBFILE`.
 */
#ifndef HCI_CMD_RUN_H
#define HCI_CMD_RUN_H

/* argv[0] is "run", argv[1] the job file. Returns the worst exit code of its jobs. */
int cmd_run(int argc, char **argv);

#endif
