/*
 * sql.h - the few SQL round trips the controller itself makes: checking
 * that a database server answers, and preparing a fresh local server
 * (database and user). The workload's own connections are oltp/'s.
 *
 * Errors: 0 or a negative errno (-EACCES: the server refused the login,
 * -EHOSTUNREACH: it did not answer), with the client library's message in
 * err. Any thread (each call has its own connection).
 */
#ifndef HCI_LAB_SQL_H
#define HCI_LAB_SQL_H

#include <stddef.h>

#include "lab/backend.h"

/* Read the first line of a password file into out. */
int lab_read_password(const char *path, char *out, size_t outlen, char *err, size_t errlen);

/* Log in to ep (over ep->socket when via_socket, else TCP), with password
 * (NULL: read ep->password_file), and run "SELECT 1". */
int lab_sql_ping(const struct lab_endpoint *ep, int via_socket, const char *password,
                 unsigned timeout_s, char *err, size_t errlen);

/* Over ep->socket, logged in as root with no password (a fresh datadir):
 * create ep->database, give every root account the password, and let root
 * in from any address. */
int lab_sql_prepare(const struct lab_endpoint *ep, const char *password, char *err, size_t errlen);

#endif
