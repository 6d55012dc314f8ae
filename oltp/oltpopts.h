/*
 * oltpopts.h - the oltp options as an API, for `hcisweep oltp` and for the
 * commands that drive OLTP themselves (`hcisweep scale`): one table, parsed
 * together with the command's own options.
 *
 *   oltp_cli_new(&g)     allocates the option storage and fills g with the
 *                        oltp group {table, storage, "oltp options"}; apply
 *                        defaults and parse with it (opt_free on the groups
 *                        frees the option strings, oltp_cli_free the rest);
 *   oltp_cli_give_password()
 *                        before setup, a password the caller read itself
 *                        (oltp run --mysql-password-stdin), which then wins;
 *   oltp_cli_setup()     after parsing: driver, hosts (--mysql-host),
 *                        password (given, --mysql-password,
 *                        --mysql-password-file, MYSQL_PWD, option file),
 *                        ignore list, distribution and seed; -EINVAL names
 *                        the option;
 *   oltp_cli_check_outputs()
 *                        before a run: --json (or --output-dir) can be
 *                        written; -EINVAL names the option;
 *   oltp_cli_workload()  the workload of --workload and its knobs;
 *   oltp_cli_engine_cfg(), oltp_cli_prep_cfg()
 *                        engine and prepare configs for the --mysql-host
 *                        hosts, --threads connections in total; callbacks
 *                        are left NULL for the caller to set;
 *   oltp_cli_cfg()       the same for hosts of the caller's, with
 *                        conns_per_host connections on each.
 * ec->wl, ec->dist and ec->ops point into c, valid until oltp_cli_free.
 * One thread.
 */
#ifndef HCI_OLTP_OLTPOPTS_H
#define HCI_OLTP_OLTPOPTS_H

#include <stddef.h>

#include "core/opts.h"

struct oltp_dsn;
struct oltp_engine_cfg;
struct oltp_prep_cfg;
struct oltp_cli;

/* The parsed options; the strings belong to the group (opt_free). */
struct oltp_opts {
        int workload, rand_type, range_selects, skip_trx, driver;
        int io_wait_read, io_report, pin_threads; /* hidden socket I/O levers */
        long long busy_poll, spin_us, conns_per_thread;
        char *mysql_host, *mysql_user, *mysql_db, *mysql_password, *mysql_password_file;
        char *mysql_defaults_file;
        char *mysql_ignore_errors, *json, *output_dir, *metrics_listen;
        long long mysql_port, tables, table_size, threads, events, event_threads;
        long long point_selects, simple_ranges, sum_ranges, order_ranges, distinct_ranges;
        long long index_updates, non_index_updates, delete_inserts, range_size;
        long long rand_spec_iter, rand_spec_pct, rand_spec_res, rand_seed, connect_timeout;
        double time, warmup_time, report_interval, rate, rand_pareto_h, rand_zipfian_exp;
        double reconnect_timeout, target_ci;
        struct u64_list percentile;
};

/* The option table over struct oltp_opts, NULL-terminated. */
extern const struct opt_def oltp_opt_defs[];

struct oltp_cli *oltp_cli_new(struct opt_group *g); /* NULL on ENOMEM */
/* The password every host gets, over every other source; c keeps a copy (wiped when
 * freed). Call before oltp_cli_setup. 0, or -ENOMEM. */
int oltp_cli_give_password(struct oltp_cli *c, const char *password);
int oltp_cli_setup(struct oltp_cli *c, char *err, size_t errlen);
int oltp_cli_check_outputs(const struct oltp_cli *c, char *err, size_t errlen);
int oltp_cli_workload(struct oltp_cli *c, char *err, size_t errlen);
void oltp_cli_engine_cfg(const struct oltp_cli *x, struct oltp_engine_cfg *ec);
void oltp_cli_prep_cfg(const struct oltp_cli *c, struct oltp_prep_cfg *pc);
void oltp_cli_cfg(const struct oltp_cli *c, const struct oltp_dsn *hosts, unsigned nhosts,
                  unsigned conns_per_host, struct oltp_engine_cfg *ec, struct oltp_prep_cfg *pc);
/* The options as parsed (and the seed as drawn by setup). */
const struct oltp_opts *oltp_cli_opts(const struct oltp_cli *c);
/* The --mysql-host hosts (after setup), *n of them. */
const struct oltp_dsn *oltp_cli_hosts(const struct oltp_cli *c, unsigned *n);
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
