/*
 * engine_null.c - the engine that does no I/O at all.
 *
 * Every I/O completes inline with no error, so a run against it measures
 * the harness itself: the core loop, the clock reads and the accounting.
 * It must stay the cheapest possible engine; it keeps no state, and every
 * instance shares one dummy handle.
 */
#include <stddef.h>
#include "block/engine.h"

#define NULL_DEFAULT_SIZE (1ull << 40) /* 1 TiB */
#define NULL_BLOCK_SIZE   512u

static char null_handle;

static int null_open(const struct blk_open_args *a, void **inst, struct blk_geom *geom, char *err,
                     size_t errlen)
{
        (void)err;
        (void)errlen;
        geom->size = a->create_size ? a->create_size : NULL_DEFAULT_SIZE;
        geom->size -= geom->size % NULL_BLOCK_SIZE;
        if (geom->size == 0)
                geom->size = NULL_BLOCK_SIZE;
        geom->block_size = NULL_BLOCK_SIZE;
        *inst = &null_handle;
        return 0;
}

static enum blk_qres null_queue(void *inst, struct blk_io *io)
{
        (void)inst;
        io->error = 0;
        io->sense_key = BLK_SENSE_NONE;
        io->ascq = 0;
        return BLK_Q_COMPLETED;
}

static void null_close(void *inst)
{
        (void)inst;
}

const struct blk_engine_ops blk_engine_null = {
    .name = "null",
    .help = "no I/O at all: measures the harness itself",
    .open = null_open,
    .queue = null_queue,
    .reap = blk_reap_none,
    .close = null_close,
};
