/*
 * oltpopts.c - the oltp options (sysbench's names, so a sysbench command
 * line mostly works as is) and what they turn into: the hosts, the
 * password, the ignored errors, the id distribution, the workload, and the
 * engine and prepare configs. `hcisweep oltp` (cmd_oltp.c) and the commands
 * that drive OLTP themselves (scale) share it.
 *
 * The password never comes from this table's echo: it is read from
 * MYSQL_PWD, --mysql-password-file, an option file, or the secret
 * --mysql-password.
 */
#include "oltp/oltpopts.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/hostport.h"
#include "core/secret.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/parse.h"
#include "core/resfile.h"
#include "oltp/driver.h"
#include "oltp/engine.h"
#include "oltp/prepare.h"

#define MAX_HOSTS  256
#define MAX_IGNORE 64

#define O(f)  offsetof(struct oltp_opts, f)
#define NOLIM 0, 0

const struct opt_def oltp_opt_defs[] = {
    {"workload", OPT_ENUM, O(workload), "oltp_read_write", NOLIM, "sysbench workload",
     oltp_wl_names, 0},
    {"mysql-host", OPT_STR, O(mysql_host), "localhost", NOLIM,
     "server(s): H[,H...], each HOST[:PORT] or [IPV6]:PORT", NULL, OPT_F_LIST},
    {"mysql-port", OPT_INT, O(mysql_port), "3306", 1, 65535, "port for hosts without one", NULL, 0},
    {"mysql-user", OPT_STR, O(mysql_user), "sbtest", NOLIM, "user name", NULL, 0},
    {"mysql-db", OPT_STR, O(mysql_db), "sbtest", NOLIM, "database", NULL, 0},
    {"mysql-password", OPT_STR, O(mysql_password), NULL, NOLIM,
     "password (visible to other users: prefer MYSQL_PWD or --mysql-password-file)", NULL,
     OPT_F_SECRET},
    {"mysql-password-file", OPT_STR, O(mysql_password_file), NULL, NOLIM,
     "read the password from the first line of this file", NULL, OPT_F_PATH},
    {"mysql-defaults-file", OPT_STR, O(mysql_defaults_file), NULL, NOLIM,
     "MySQL option file whose [client] password is used (default: ~/.my.cnf if present)", NULL,
     OPT_F_PATH},
    {"mysql-ignore-errors", OPT_STR, O(mysql_ignore_errors), "1213,1020,1205", NOLIM,
     "error numbers that roll back and retry a transaction; 'all' or 'none'", NULL, OPT_F_LIST},
    {"tables", OPT_INT, O(tables), "1", 1, 100000, "number of tables", NULL, 0},
    {"table-size", OPT_INT, O(table_size), "10000", 0, 2000000000, "rows per table", NULL, 0},
    {"threads", OPT_INT, O(threads), "1", 1, 100000,
     "connections in total, round-robin over the hosts", NULL, 0},
    {"event-threads", OPT_INT, O(event_threads), "0", 0, 1024,
     "threads running the connections (0: one per core, one per 8 connections at most)", NULL, 0},
    {"time", OPT_DOUBLE, O(time), "10", 0, 1e7, "measured seconds (0: until --events)", NULL, 0},
    {"events", OPT_INT, O(events), "0", 0, 1e15, "stop after this many transactions", NULL, 0},
    {"warmup-time", OPT_DOUBLE, O(warmup_time), "0", 0, 1e6,
     "seconds run before measuring (not counted)", NULL, 0},
    {"target-ci", OPT_DOUBLE, O(target_ci), "0", 0, 100,
     "end the warm-up once throughput is steady and the run once its mean's 95% CI is within "
     "PCT percent (--time and --warmup-time are then the longest; 0: fixed lengths)",
     NULL, 0},
    {"report-interval", OPT_DOUBLE, O(report_interval), "0", 0, 1e6,
     "print figures every SEC seconds (0: off)", NULL, 0},
    {"percentile", OPT_DLIST, O(percentile), "95", 0.001, 100, "latency percentile(s)", NULL, 0},
    {"rate", OPT_DOUBLE, O(rate), "0", 0, 1e9,
     "open loop: Poisson arrivals at TPS in total (0: closed loop)", NULL, 0},
    {"rand-type", OPT_ENUM, O(rand_type), "special", NOLIM, "id distribution", oltp_dist_names, 0},
    {"rand-spec-iter", OPT_INT, O(rand_spec_iter), "12", 1, 1000,
     "iterations of the gaussian/special bell", NULL, 0},
    {"rand-spec-pct", OPT_INT, O(rand_spec_pct), "1", 0, 100,
     "special: hot spot size, % of the range", NULL, 0},
    {"rand-spec-res", OPT_INT, O(rand_spec_res), "75", 0, 99,
     "special: % of draws that fall in the hot spot", NULL, 0},
    {"rand-pareto-h", OPT_DOUBLE, O(rand_pareto_h), "0.2", 0.000001, 0.999999, "pareto shape h",
     NULL, 0},
    {"rand-zipfian-exp", OPT_DOUBLE, O(rand_zipfian_exp), "0.8", 0, 100, "zipfian exponent", NULL,
     0},
    {"rand-seed", OPT_INT, O(rand_seed), "0", 0, 1e18, "seed (0: from the clock)", NULL, 0},
    {"range_size", OPT_INT, O(range_size), "100", 1, 1000000, "rows per range SELECT", NULL, 0},
    {"point_selects", OPT_INT, O(point_selects), "10", 0, 10000, "point SELECTs per transaction",
     NULL, 0},
    {"simple_ranges", OPT_INT, O(simple_ranges), "1", 0, 10000,
     "simple range SELECTs per transaction", NULL, 0},
    {"sum_ranges", OPT_INT, O(sum_ranges), "1", 0, 10000, "SUM() ranges per transaction", NULL, 0},
    {"order_ranges", OPT_INT, O(order_ranges), "1", 0, 10000, "ORDER BY ranges per transaction",
     NULL, 0},
    {"distinct_ranges", OPT_INT, O(distinct_ranges), "1", 0, 10000,
     "DISTINCT ranges per transaction", NULL, 0},
    {"range_selects", OPT_BOOL, O(range_selects), "1", NOLIM, "run the range SELECTs", NULL, 0},
    {"index_updates", OPT_INT, O(index_updates), "1", 0, 10000,
     "UPDATEs of the indexed column per transaction", NULL, 0},
    {"non_index_updates", OPT_INT, O(non_index_updates), "1", 0, 10000,
     "UPDATEs of a non-indexed column per transaction", NULL, 0},
    {"delete_inserts", OPT_INT, O(delete_inserts), "1", 0, 10000,
     "DELETE+INSERT pairs per transaction", NULL, 0},
    {"skip_trx", OPT_BOOL, O(skip_trx), "0", NOLIM, "autocommit: no BEGIN/COMMIT", NULL, 0},
    {"reconnect-timeout", OPT_DOUBLE, O(reconnect_timeout), "30", 0.1, 86400,
     "end the run when a server stays unreachable this long", NULL, 0},
    {"connect-timeout", OPT_INT, O(connect_timeout), "10", 1, 3600,
     "seconds for one connection attempt", NULL, 0},
    {"json", OPT_STR, O(json), NULL, NOLIM,
     "write the result JSON here (instead of a run directory)", NULL, OPT_F_PATH},
    {"output-dir", OPT_STR, O(output_dir), "runs", NOLIM,
     "runs directory (result in DIR/oltp-TIME-PID/)", NULL, OPT_F_PATH},
    METRICS_LISTEN_OPT(O(metrics_listen)),
    {"driver", OPT_ENUM, O(driver), "mariadb", NOLIM, "client library", oltp_driver_names,
     OPT_F_HIDDEN},
    /* levers of the driver's socket I/O, for bench/oltp_vs_sysbench --hc-opts */
    {"io-wait-read", OPT_BOOL, O(io_wait_read), "1", NOLIM,
     "the first read after a request waits for readiness (no recv that fails)", NULL, OPT_F_HIDDEN},
    {"busy-poll", OPT_INT, O(busy_poll), "0", 0, 100000,
     "SO_BUSY_POLL microseconds on each socket (0: off; loopback has no NAPI to poll)", NULL,
     OPT_F_HIDDEN},
    {"spin-us", OPT_INT, O(spin_us), "0", 0, 100000,
     "event threads poll epoll without sleeping this long before they sleep (0: off)", NULL,
     OPT_F_HIDDEN},
    {"conns-per-thread", OPT_INT, O(conns_per_thread), "8", 1, 100000,
     "without --event-threads: at most one event thread per this many connections", NULL,
     OPT_F_HIDDEN},
    {"pin-threads", OPT_BOOL, O(pin_threads), "0", NOLIM,
     "pin event thread i to the i-th CPU the process may run on", NULL, OPT_F_HIDDEN},
    {"io-report", OPT_BOOL, O(io_report), "0", NOLIM,
     "print the driver's socket I/O counters on stderr at the end", NULL, OPT_F_HIDDEN},
    {NULL, 0, 0, NULL, NOLIM, NULL, NULL, 0},
};

struct oltp_cli {
        struct oltp_opts o;
        struct oltp_dsn *hosts;
        unsigned nhosts;
        char *password;
        char *given; /* oltp_cli_give_password's, until setup takes it */
        struct oltp_dist dist;
        unsigned ignore[MAX_IGNORE], nignore;
        int ignore_all;
        const struct oltp_driver_ops *ops;
        struct oltp_workload *wl; /* oltp_cli_workload() */
};

static int parse_hosts(struct oltp_cli *x, char *err, size_t errlen)
{
        char *list = strdup(x->o.mysql_host), *save = NULL, *tok;
        int rc = 0;

        x->hosts = calloc(MAX_HOSTS, sizeof(*x->hosts));
        if (!list || !x->hosts) {
                free(list);
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        for (tok = strtok_r(list, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
                struct oltp_dsn *d = &x->hosts[x->nhosts];
                char why[200];

                if (x->nhosts == MAX_HOSTS) {
                        snprintf(err, errlen, "option --mysql-host: more than %d hosts", MAX_HOSTS);
                        rc = -EINVAL;
                        break;
                }
                /* "a, b" carries blanks around items, as every list does */
                tok += strspn(tok, " \t");
                for (size_t n = strlen(tok); n && (tok[n - 1] == ' ' || tok[n - 1] == '\t');)
                        tok[--n] = '\0';
                if (hostport_parse(tok, (unsigned)x->o.mysql_port, d->host, sizeof(d->host),
                                   &d->port, why, sizeof(why)) < 0) {
                        snprintf(err, errlen, "option --mysql-host: %s", why);
                        rc = -EINVAL;
                        break;
                }
                /* "localhost" is Connector/C's Unix socket, not an address it dials */
                if (strcmp(d->host, "localhost") && !hostport_dial_ok(d->host)) {
                        snprintf(err, errlen,
                                 "option --mysql-host: '%s': a test reaches loopback IP literals "
                                 "only (127.0.0.0/8, [::1])",
                                 d->host);
                        rc = -EINVAL;
                        break;
                }
                x->nhosts++;
        }
        free(list);
        if (!rc && !x->nhosts) {
                snprintf(err, errlen, "option --mysql-host: no host given");
                rc = -EINVAL;
        }
        return rc;
}

/*
 * The password of a MySQL option file (my.cnf syntax): the last
 * "password = ..." of a [client] or [mysql] section, quotes removed. NULL
 * when the file has none. Caller frees.
 */
static char *option_file_password(FILE *f, int *too_big)
{
        char line[1024], *pw = NULL;
        unsigned reads = 0;
        int in_client = 0;

        /* At most 16 MiB: an option file of /dev/zero would be read for ever. */
        while ((*too_big = ++reads > 16384) == 0 && fgets(line, sizeof(line), f)) {
                char *p = line + strspn(line, " \t");
                p[strcspn(p, "\r\n")] = '\0';
                if (*p == '[') {
                        in_client = !strncmp(p, "[client]", 8) || !strncmp(p, "[mysql]", 7);
                        continue;
                }
                if (!in_client || strncmp(p, "password", 8))
                        continue;
                p += 8 + strspn(p + 8, " \t");
                if (*p++ != '=')
                        continue;
                p += strspn(p, " \t");
                size_t n = strlen(p);
                while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
                        n--;
                if (n >= 2 && (p[0] == '"' || p[0] == '\'') && p[n - 1] == p[0]) {
                        p++;
                        n -= 2;
                }
                free(pw);
                pw = strndup(p, n);
        }
        memset(line, 0, sizeof(line));
        return pw;
}

/* --mysql-defaults-file, else ~/.my.cnf when it exists: 0, or -EINVAL when a named file is
 * unreadable. */
static int read_option_file(struct oltp_cli *x, char *err, size_t errlen)
{
        const char *home = getenv("HOME");
        char path[4096];
        FILE *f;

        if (x->o.mysql_defaults_file)
                snprintf(path, sizeof(path), "%s", x->o.mysql_defaults_file);
        else if (home)
                snprintf(path, sizeof(path), "%s/.my.cnf", home);
        else
                return 0;
        f = fopen(path, "r");
        if (!f && x->o.mysql_defaults_file) {
                snprintf(err, errlen, "option --mysql-defaults-file: %s: %s", path,
                         strerror(errno));
                return -EINVAL;
        }
        if (f) {
                int too_big;

                x->password = option_file_password(f, &too_big);
                if (too_big) {
                        snprintf(err, errlen,
                                 "option --mysql-defaults-file: %s: too long (over 16384 lines)",
                                 path);
                        fclose(f);
                        return -EINVAL;
                }
                if (ferror(f)) {
                        snprintf(err, errlen, "option --mysql-defaults-file: %s: %s", path,
                                 strerror(errno));
                        fclose(f);
                        return -EINVAL;
                }
                fclose(f);
        }
        return 0;
}

static int read_password(struct oltp_cli *x, char *err, size_t errlen)
{
        const char *env = getenv("MYSQL_PWD");
        char line[1024];

        /* A named option file is read even when another source wins: a mistyped
         * --mysql-defaults-file is bad input, never silently passed over. */
        if (x->o.mysql_defaults_file &&
            (x->given || x->o.mysql_password || x->o.mysql_password_file || env)) {
                int rc = read_option_file(x, err, errlen);

                if (x->password) {
                        memset(x->password, 0, strlen(x->password));
                        free(x->password);
                        x->password = NULL;
                }
                if (rc)
                        return rc;
        }
        if (x->given) {
                x->password = x->given;
                x->given = NULL;
        } else if (x->o.mysql_password) {
                x->password = strdup(x->o.mysql_password);
        } else if (x->o.mysql_password_file) {
                char why[PATH_MAX + 128];

                if (secret_read_line(x->o.mysql_password_file, line, sizeof(line), why,
                                     sizeof(why)) < 0) {
                        snprintf(err, errlen, "option --mysql-password-file: %s", why);
                        return -EINVAL;
                }
                x->password = strdup(line);
                memset(line, 0, sizeof(line));
        } else if (env) {
                x->password = strdup(env);
        } else {
                return read_option_file(x, err, errlen);
        }
        if (!x->password) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        return 0;
}

/* The largest server error number: MariaDB's run to the 4000s, client errors to 2000s. */
#define IGNORE_ERR_MAX 65535

/* One error number of --mysql-ignore-errors: 1..65535, digits only (no sign, no overflow). */
static int ignore_item(const char *item, unsigned *out, char *err, size_t errlen)
{
        char why[160];
        uint64_t v;

        if (parse_u64(item, &v, why, sizeof(why)) < 0 || v == 0 || v > IGNORE_ERR_MAX)
                return errf(err, errlen, -EINVAL,
                            "option --mysql-ignore-errors: '%.40s' is not an error number "
                            "1..%d (or give 'all' or 'none')",
                            item, IGNORE_ERR_MAX);
        *out = (unsigned)v;
        return 0;
}

static int parse_ignore(struct oltp_cli *x, char *err, size_t errlen)
{
        const char *s = x->o.mysql_ignore_errors ? x->o.mysql_ignore_errors : "";
        char item[64];

        if (!strcmp(s, "all")) {
                x->ignore_all = 1;
                return 0;
        }
        if (!strcmp(s, "none") || !*s)
                return 0;
        for (;;) {
                size_t n = strcspn(s, ",");

                if (x->nignore == MAX_IGNORE)
                        return errf(err, errlen, -EINVAL,
                                    "option --mysql-ignore-errors: more than %d error numbers",
                                    MAX_IGNORE);
                snprintf(item, sizeof(item), "%.*s", (int)(n < sizeof(item) ? n : sizeof(item) - 1),
                         s);
                if (n >= sizeof(item))
                        item[sizeof(item) - 2] = 'x'; /* too long: never a number */
                if (ignore_item(item, &x->ignore[x->nignore], err, errlen) < 0)
                        return -EINVAL;
                x->nignore++;
                if (!s[n])
                        return 0;
                s += n + 1;
        }
}

/*
 * No connection finishes a transaction in under a microsecond: even a
 * loopback round trip takes longer, so a rate above this per connection
 * could only overflow its queue and measure nothing. Rates below it that
 * the server cannot keep up with run, and the result says "overloaded".
 */
#define OLTP_CONN_MAX_TPS 1e6
/* Below this rate the first arrival would come after a day: no run lasts to see it. */
#define OLTP_MIN_RATE 1e-4

/* The shortest duration a run acts on: below it a positive --time or interval would be
 * rounded away (or report thousands of empty intervals a second). */
#define OLTP_MIN_SECONDS 0.001

/* Seconds where 0 means "off": 0, or at least OLTP_MIN_SECONDS. */
static int check_seconds(const char *name, double v, char *err, size_t errlen)
{
        if (v > 0 && v < OLTP_MIN_SECONDS)
                return errf(err, errlen, -EINVAL,
                            "option --%s: %g s is below the shortest %g s (0: off)", name, v,
                            OLTP_MIN_SECONDS);
        return 0;
}

static int check_rate(const struct oltp_opts *o, char *err, size_t errlen)
{
        if (o->rate <= 0)
                return 0;
        if (o->rate < OLTP_MIN_RATE)
                return errf(err, errlen, -EINVAL,
                            "option --rate: %g is below the lowest rate %g (one transaction "
                            "in about 3 hours); 0 is the closed loop",
                            o->rate, OLTP_MIN_RATE);
        if (o->rate > OLTP_CONN_MAX_TPS * (double)o->threads)
                return errf(err, errlen, -EINVAL,
                            "option --rate: %g TPS cannot be reached by %lld connection(s) "
                            "(at most %.0f TPS each): raise --threads or lower --rate",
                            o->rate, o->threads, OLTP_CONN_MAX_TPS);
        return 0;
}

static void wipe(char **pw)
{
        if (*pw) {
                memset(*pw, 0, strlen(*pw));
                free(*pw);
                *pw = NULL;
        }
}

int oltp_cli_give_password(struct oltp_cli *x, const char *password)
{
        wipe(&x->given);
        x->given = strdup(password);
        return x->given ? 0 : -ENOMEM;
}

int oltp_cli_setup(struct oltp_cli *x, char *err, size_t errlen)
{
        int rc;

        if (x->o.target_ci > 0 && x->o.time <= 0) {
                snprintf(err, errlen, "option --target-ci: needs --time, the longest measurement");
                return -EINVAL;
        }
        x->ops = oltp_drivers[x->o.driver];
        if ((rc = check_seconds("time", x->o.time, err, errlen)) ||
            (rc = check_seconds("warmup-time", x->o.warmup_time, err, errlen)) ||
            (rc = check_seconds("report-interval", x->o.report_interval, err, errlen)) ||
            (rc = check_rate(&x->o, err, errlen)) || (rc = parse_hosts(x, err, errlen)) ||
            (rc = read_password(x, err, errlen)) || (rc = parse_ignore(x, err, errlen)))
                return rc;
        oltp_dist_defaults(&x->dist, (enum oltp_dist_type)x->o.rand_type);
        x->dist.spec_iter = (unsigned)x->o.rand_spec_iter;
        x->dist.spec_pct = (unsigned)x->o.rand_spec_pct;
        x->dist.spec_res = (unsigned)x->o.rand_spec_res;
        x->dist.pareto_h = x->o.rand_pareto_h;
        x->dist.zipf_exp = x->o.rand_zipfian_exp;
        if ((rc = oltp_dist_init(&x->dist, err, errlen)))
                return rc;
        for (unsigned i = 0; i < x->nhosts; i++) {
                x->hosts[i].user = x->o.mysql_user;
                x->hosts[i].password = x->password;
                x->hosts[i].db = x->o.mysql_db;
                x->hosts[i].connect_timeout_s = (unsigned)x->o.connect_timeout;
        }
        if (!x->o.rand_seed)
                x->o.rand_seed = (long long)(time(NULL) ^ ((long long)getpid() << 16));
        return 0;
}

int oltp_cli_check_outputs(const struct oltp_cli *x, char *err, size_t errlen)
{
        char why[400];

        if (x->o.json && res_check_file(x->o.json, why, sizeof(why)) < 0) {
                snprintf(err, errlen, "option --json: %s", why);
                return -EINVAL;
        }
        if (!x->o.json && res_check_dir(x->o.output_dir, why, sizeof(why)) < 0) {
                snprintf(err, errlen, "option --output-dir: %s", why);
                return -EINVAL;
        }
        return 0;
}

static void prep_cfg(const struct oltp_cli *x, struct oltp_prep_cfg *p)
{
        *p = (struct oltp_prep_cfg){
            .ops = x->ops,
            .hosts = x->hosts,
            .nhosts = x->nhosts,
            .tables = (unsigned)x->o.tables,
            .table_size = (uint64_t)x->o.table_size,
            .dist = &x->dist,
            .seed = (uint64_t)x->o.rand_seed,
            .out = stdout,
        };
}

static void knobs_of(const struct oltp_opts *o, struct oltp_knobs *k)
{
        *k = (struct oltp_knobs){
            .tables = o->tables,
            .table_size = o->table_size,
            .range_size = o->range_size,
            .point_selects = o->point_selects,
            .simple_ranges = o->simple_ranges,
            .sum_ranges = o->sum_ranges,
            .order_ranges = o->order_ranges,
            .distinct_ranges = o->distinct_ranges,
            .index_updates = o->index_updates,
            .non_index_updates = o->non_index_updates,
            .delete_inserts = o->delete_inserts,
            .range_selects = o->range_selects,
            .skip_trx = o->skip_trx,
        };
}

void oltp_cli_engine_cfg(const struct oltp_cli *x, struct oltp_engine_cfg *ec)
{
        *ec = (struct oltp_engine_cfg){
            .ops = x->ops,
            .wl = x->wl,
            .dist = &x->dist,
            .hosts = x->hosts,
            .nhosts = x->nhosts,
            .nconns = (unsigned)x->o.threads,
            .nthreads = (unsigned)x->o.event_threads,
            .time_s = x->o.time,
            .warmup_s = x->o.warmup_time,
            .report_s = x->o.report_interval,
            .rate = x->o.rate,
            .events = (uint64_t)x->o.events,
            .ignore = x->ignore,
            .nignore = x->nignore,
            .ignore_all = x->ignore_all,
            .retry_budget_s = x->o.reconnect_timeout,
            .seed = (uint64_t)x->o.rand_seed,
            .target_ci_pct = x->o.target_ci,
            .io = {.wait_first_read = x->o.io_wait_read,
                   .busy_poll_us = (unsigned)x->o.busy_poll,
                   .report = x->o.io_report},
            .pin_threads = x->o.pin_threads,
            .conns_per_thread = (unsigned)x->o.conns_per_thread,
            .spin_us = (unsigned)x->o.spin_us,
        };
}

struct oltp_cli *oltp_cli_new(struct opt_group *g)
{
        struct oltp_cli *c = calloc(1, sizeof(*c));

        if (c)
                *g = (struct opt_group){oltp_opt_defs, &c->o, "oltp options"};
        return c;
}

int oltp_cli_workload(struct oltp_cli *c, char *err, size_t errlen)
{
        struct oltp_knobs kn;

        if (c->wl)
                return 0;
        knobs_of(&c->o, &kn);
        c->wl = oltp_wl_new(c->o.workload, &kn, &c->dist, err, errlen);
        return c->wl ? 0 : -EINVAL;
}

void oltp_cli_prep_cfg(const struct oltp_cli *c, struct oltp_prep_cfg *p)
{
        prep_cfg(c, p);
}

void oltp_cli_cfg(const struct oltp_cli *c, const struct oltp_dsn *hosts, unsigned nhosts,
                  unsigned conns_per_host, struct oltp_engine_cfg *ec, struct oltp_prep_cfg *pc)
{
        oltp_cli_engine_cfg(c, ec);
        ec->hosts = hosts;
        ec->nhosts = nhosts;
        ec->nconns = conns_per_host * nhosts;
        prep_cfg(c, pc);
        pc->hosts = hosts;
        pc->nhosts = nhosts;
}

const struct oltp_opts *oltp_cli_opts(const struct oltp_cli *c)
{
        return &c->o;
}

const struct oltp_dsn *oltp_cli_hosts(const struct oltp_cli *c, unsigned *n)
{
        *n = c->nhosts;
        return c->hosts;
}

void oltp_cli_login(const struct oltp_cli *c, const char **user, const char **db,
                    const char **password)
{
        *user = c->o.mysql_user;
        *db = c->o.mysql_db;
        *password = c->password;
}

unsigned oltp_cli_percentiles(const struct oltp_cli *c, double *out, unsigned max)
{
        unsigned n = c->o.percentile.n < max ? c->o.percentile.n : max;

        for (unsigned i = 0; i < n; i++)
                out[i] = opt_dlist_get(&c->o.percentile, i);
        return n;
}

unsigned oltp_cli_threads(const struct oltp_cli *c)
{
        return (unsigned)c->o.threads;
}

const char *oltp_cli_json(const struct oltp_cli *c)
{
        return c->o.json;
}

void oltp_cli_free(struct oltp_cli *c)
{
        if (!c)
                return;
        oltp_wl_free(c->wl);
        wipe(&c->password);
        wipe(&c->given);
        free(c->hosts);
        free(c);
}
