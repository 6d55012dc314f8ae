/*
 * results.h - the commands of the results module.
 *
 * argv[0] is the command name ("analyze", "results"); the return value is
 * the process exit code of core/exitcode.h.
 */
#ifndef HCI_RESULTS_H
#define HCI_RESULTS_H

#include "core/opts.h"

/* hcisweep analyze FILE [--latency-slo MS] [--json OUT] */
int cmd_analyze(int argc, char **argv);

/* hcisweep results list|show|add ... [--index FILE] */
int cmd_results(int argc, char **argv);

/* hcisweep report RUN [--output-dir DIR]: report.html + report.md next to the result */
int cmd_report(int argc, char **argv);

/* hcisweep compare A B [C...] [--html FILE] [--output-dir DIR] */
int cmd_compare(int argc, char **argv);

/* The commands' options tables, for generated docs (NULL-terminated; cfg NULL). */
extern const struct opt_group cmd_analyze_options[], cmd_results_options[], cmd_report_options[],
    cmd_compare_options[];

#endif
