/*
 * sql.c - the controller's own short SQL sessions, blocking and with a
 * connect timeout, through MariaDB Connector/C: "does it answer" for status
 * and readiness, and the one-time preparation of a freshly installed
 * datadir (the workload later logs in over TCP from any loopback address,
 * so root gets a password and a '%' account).
 */
#include "lab/sql.h"

#include "core/log.h"
#include "core/secret.h"

#include <errno.h>
#include <mysql.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <string.h>

int lab_read_password(const char *path, char *out, size_t outlen, char *err, size_t errlen)
{
        char why[LAB_PATH_MAX + 128];
        int rc = secret_read_line(path, out, outlen, why, sizeof(why));

        return rc < 0 ? errf(err, errlen, rc, "password file %s", why) : 0;
}

static int sql_error(MYSQL *m, const char *what, char *err, size_t errlen)
{
        unsigned code = mysql_errno(m);

        snprintf(err, errlen, "%s: %s (%u)", what, mysql_error(m), code);
        if (code == ER_ACCESS_DENIED_ERROR || code == ER_DBACCESS_DENIED_ERROR)
                return -EACCES;
        return code >= 2000 && code < 3000 ? -EHOSTUNREACH : -EIO;
}

static int sql_connect(MYSQL *m, const struct lab_endpoint *ep, int via_socket,
                       const char *password, unsigned timeout_s, char *err, size_t errlen)
{
        unsigned proto = via_socket ? MYSQL_PROTOCOL_SOCKET : MYSQL_PROTOCOL_TCP;
        char where[LAB_PATH_MAX + 96];

        mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout_s);
        mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &timeout_s);
        mysql_options(m, MYSQL_OPT_PROTOCOL, &proto);
        if (mysql_real_connect(m, via_socket ? "localhost" : ep->host, ep->user, password, NULL,
                               ep->port, via_socket ? ep->socket : NULL, 0))
                return 0;
        if (via_socket)
                snprintf(where, sizeof(where), "%s@%s", ep->user, ep->socket);
        else
                snprintf(where, sizeof(where), "%s@%s:%u", ep->user, ep->host, ep->port);
        return sql_error(m, where, err, errlen);
}

int lab_sql_ping(const struct lab_endpoint *ep, int via_socket, const char *password,
                 unsigned timeout_s, char *err, size_t errlen)
{
        char pw[256] = "";
        MYSQL *m;
        int rc = 0;

        if (!password && ep->password_file[0]) {
                rc = lab_read_password(ep->password_file, pw, sizeof(pw), err, errlen);
                if (rc < 0)
                        return rc;
        }
        m = mysql_init(NULL);
        if (!m) {
                snprintf(err, errlen, "mysql_init: out of memory");
                return -ENOMEM;
        }
        rc = sql_connect(m, ep, via_socket, password ? password : pw, timeout_s, err, errlen);
        if (!rc && mysql_query(m, "SELECT 1"))
                rc = sql_error(m, "SELECT 1", err, errlen);
        if (!rc)
                mysql_free_result(mysql_store_result(m));
        mysql_close(m);
        memset(pw, 0, sizeof(pw));
        return rc;
}

static int run(MYSQL *m, const char *q, char *err, size_t errlen)
{
        if (mysql_query(m, q))
                return sql_error(m, q, err, errlen);
        mysql_free_result(mysql_store_result(m));
        return 0;
}

/* Every existing root account gets the password. */
static int set_root_passwords(MYSQL *m, const char *esc_pw, char *err, size_t errlen)
{
        char q[2200], hosts[16][64];
        unsigned n = 0;
        MYSQL_RES *res;
        MYSQL_ROW row;
        int rc = 0;

        if (mysql_query(m, "SELECT Host FROM mysql.user WHERE User = 'root'"))
                return sql_error(m, "listing root accounts", err, errlen);
        res = mysql_store_result(m);
        if (!res)
                return sql_error(m, "listing root accounts", err, errlen);
        while ((row = mysql_fetch_row(res)) && n < 16)
                if (row[0] && strlen(row[0]) < sizeof(hosts[0]) && !strchr(row[0], '\''))
                        strcpy(hosts[n++], row[0]);
        mysql_free_result(res);
        for (unsigned i = 0; i < n && !rc; i++) {
                snprintf(q, sizeof(q), "ALTER USER IF EXISTS 'root'@'%s' IDENTIFIED BY '%s'",
                         hosts[i], esc_pw);
                rc = run(m, q, err, errlen);
        }
        return rc;
}

int lab_sql_prepare(const struct lab_endpoint *ep, const char *password, char *err, size_t errlen)
{
        char esc[520], q[1024];
        MYSQL *m = mysql_init(NULL);
        int rc;

        if (!m) {
                snprintf(err, errlen, "mysql_init: out of memory");
                return -ENOMEM;
        }
        rc = sql_connect(m, ep, 1, "", 10, err, errlen);
        if (rc < 0)
                goto out;
        mysql_real_escape_string(m, esc, password, (unsigned long)strnlen(password, 255));
        snprintf(q, sizeof(q), "CREATE DATABASE IF NOT EXISTS `%s`", ep->database);
        rc = run(m, q, err, errlen);
        if (!rc) {
                snprintf(q, sizeof(q), "CREATE USER IF NOT EXISTS 'root'@'%%' IDENTIFIED BY '%s'",
                         esc);
                rc = run(m, q, err, errlen);
        }
        if (!rc)
                rc = run(m, "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION", err, errlen);
        if (!rc)
                rc = set_root_passwords(m, esc, err, errlen);
        if (!rc)
                rc = run(m, "FLUSH PRIVILEGES", err, errlen);
out:
        mysql_close(m);
        memset(esc, 0, sizeof(esc));
        memset(q, 0, sizeof(q));
        return rc;
}
