/*
 * oltp.h - the OLTP command: sysbench-style transactions against many servers.
 */
#ifndef HCI_OLTP_H
#define HCI_OLTP_H

/* `hcisweep oltp prepare|run|cleanup [options]`; argv[0] is "oltp". Returns an exit code. */
int cmd_oltp(int argc, char **argv);

/*
 * The oltp options for commands that drive OLTP themselves (`hcisweep
 * scale`): the same table, parsed together with the command's own options.
 *
 *   oltp_cli_new(&g)     allocates the option storage and fills g with the
 *                        oltp group {table, storage, "oltp options"}; apply
 *                        defaults and parse with it (opt_free on the groups
 *                        frees the option strings, oltp_cli_free the rest);
 *   oltp_cli_setup()     after parsing: driver, password (MYSQL_PWD,
 *                        --mysql-password-file), ignore list, distribution,
 *                        seed and the workload; -EINVAL names the option;
 *   oltp_cli_cfg()       engine and prepare configs for a set of hosts, with
 *                        conns_per_host connections on each; callbacks are
 *                        left NULL for the caller to set. ec->wl, ec->dist
 *                        and ec->ops point into c, valid until oltp_cli_free.
 * One thread. --mysql-host/--mysql-port are parsed but unused by callers that
 * bring their own hosts.
 */
#include <stddef.h>

struct opt_group;
struct oltp_dsn;
struct oltp_engine_cfg;
struct oltp_prep_cfg;
struct oltp_cli;

struct oltp_cli *oltp_cli_new(struct opt_group *g); /* NULL on ENOMEM */
int oltp_cli_setup(struct oltp_cli *c, char *err, size_t errlen);
void oltp_cli_cfg(struct oltp_cli *c, const struct oltp_dsn *hosts, unsigned nhosts,
                  unsigned conns_per_host, struct oltp_engine_cfg *ec, struct oltp_prep_cfg *pc);
/* Login defaults from the options (user, database, password or NULL); owned by c. */
void oltp_cli_login(const struct oltp_cli *c, const char **user, const char **db,
                    const char **password);
/* The --percentile list into out (at most max); returns how many. */
unsigned oltp_cli_percentiles(const struct oltp_cli *c, double *out, unsigned max);
/* --threads, as given. */
unsigned oltp_cli_threads(const struct oltp_cli *c);
/* --json, as given: the result file instead of a run directory; NULL when not given. */
const char *oltp_cli_json(const struct oltp_cli *c);
void oltp_cli_free(struct oltp_cli *c);

#endif
