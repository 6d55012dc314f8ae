/*
 * drivers.c - the client libraries of this build, in one list
 * (OLTP_DRIVERS): it gives the ops table and the names --driver offers, so
 * the two cannot drift apart. A new driver is one file defining its ops
 * plus one entry here.
 */
#include "oltp/driver.h"

/* X(n): the driver called "n" whose ops are oltp_driver_n. */
#define OLTP_DRIVERS(X) X(mariadb)

#define DECLARE(n) extern const struct oltp_driver_ops oltp_driver_##n;
#define OPS(n)     &oltp_driver_##n,
#define NAME(n)    #n,

OLTP_DRIVERS(DECLARE)

const struct oltp_driver_ops *const oltp_drivers[] = {OLTP_DRIVERS(OPS) NULL};

const char *const oltp_driver_names[] = {OLTP_DRIVERS(NAME) NULL};
