/*
 * engine_null.c - the engine that does no I/O at all.
 *
 * It behaves like an asynchronous device with no latency, as fio's null
 * engine does: queue() takes up to depth I/Os and reap() hands them all
 * back, without error. A run against it measures the harness itself - the
 * core loop with its batching, the clock reads and the accounting - at the
 * asked queue depth, so the time-weighted depth the loop records there must
 * equal --iodepth. It stays the cheapest possible engine: per instance, one
 * array of depth pointers and nothing per I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block/engine.h"

#define NULL_DEFAULT_SIZE (1ull << 40) /* 1 TiB */
#define NULL_BLOCK_SIZE   512u

struct null_inst {
        unsigned depth, n;
        struct blk_io *q[]; /* queued, oldest first */
};

static int null_open(const struct blk_open_args *a, void **inst, struct blk_geom *geom, char *err,
                     size_t errlen)
{
        unsigned depth = a->depth ? a->depth : 1;
        struct null_inst *u = calloc(1, sizeof(*u) + depth * sizeof(u->q[0]));

        if (!u) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        u->depth = depth;
        geom->size = a->create_size ? a->create_size : NULL_DEFAULT_SIZE;
        geom->size -= geom->size % NULL_BLOCK_SIZE;
        if (geom->size == 0)
                geom->size = NULL_BLOCK_SIZE;
        geom->block_size = NULL_BLOCK_SIZE;
        *inst = u;
        return 0;
}

static enum blk_qres null_queue(void *inst, struct blk_io *io)
{
        struct null_inst *u = inst;

        if (u->n == u->depth)
                return BLK_Q_BUSY;
        io->error = 0;
        io->sense_key = BLK_SENSE_NONE;
        io->ascq = 0;
        u->q[u->n++] = io;
        return BLK_Q_QUEUED;
}

/* Everything queued is done: hand back up to max, oldest first. */
static int null_reap(void *inst, unsigned min, unsigned max, struct blk_io **out, int timeout_ms)
{
        struct null_inst *u = inst;
        unsigned k = u->n < max ? u->n : max;

        (void)min;
        (void)timeout_ms;
        memcpy(out, u->q, k * sizeof(*out));
        u->n -= k;
        if (u->n)
                memmove(u->q, u->q + k, u->n * sizeof(u->q[0]));
        return (int)k;
}

static void null_close(void *inst)
{
        free(inst);
}

const struct blk_engine_ops blk_engine_null = {
    .name = "null",
    .help = "no I/O at all, every I/O done at the next reap: measures the harness itself",
    .caps = BLK_CAP_NO_DATA,
    .open = null_open,
    .queue = null_queue,
    .reap = null_reap,
    .close = null_close,
};
