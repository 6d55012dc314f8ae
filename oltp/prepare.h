/*
 * prepare.h - creating and dropping sysbench's tables.
 *
 * oltp_prepare() creates sbtest1..N on every host with sysbench's schema
 * and data format, loading tables in parallel (one connection per table,
 * multi-row INSERTs, the secondary index k_N built after the load), and
 * prints sysbench-like progress lines and the load rate to out.
 * oltp_cleanup() drops them. Both block; call from one thread.
 * Return 0, or -errno with err set ("host:port: message").
 */
#ifndef HCI_OLTP_PREPARE_H
#define HCI_OLTP_PREPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "oltp/driver.h"
#include "oltp/rand.h"

struct oltp_prep_cfg {
        const struct oltp_driver_ops *ops;
        const struct oltp_dsn *hosts;
        unsigned nhosts;
        unsigned tables;
        uint64_t table_size;
        unsigned parallel;            /* loader threads (connections); 0: one per table and host */
        const struct oltp_dist *dist; /* for k, as sysbench draws it */
        uint64_t seed;
        FILE *out;
};

int oltp_prepare(const struct oltp_prep_cfg *cfg, char *err, size_t errlen);
int oltp_cleanup(const struct oltp_prep_cfg *cfg, char *err, size_t errlen);

#endif
