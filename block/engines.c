/*
 * engines.c - the block engines of this build, in one list (BLK_ENGINES):
 * it gives the ops table blk_engine_find() searches and the names --engine
 * offers, so the two cannot drift apart.
 *
 * Explicit on purpose: the list of engines a build has is read here, not
 * assembled by constructors at load time.
 */
#include <string.h>

#include "block/engine.h"

#ifdef HAVE_LIBISCSI
#define LIBISCSI(X) X(libiscsi)
#else
#define LIBISCSI(X)
#endif
#ifdef HAVE_IO_URING
#define IO_URING(X) X(io_uring)
#else
#define IO_URING(X)
#endif

/* X(n): the engine called "n" whose ops are blk_engine_n, in --help order. */
#define BLK_ENGINES(X) LIBISCSI(X) IO_URING(X) X(psync) X(null)

#define DECLARE(n) extern const struct blk_engine_ops blk_engine_##n;
#define OPS(n)     &blk_engine_##n,
#define NAME(n)    #n,

BLK_ENGINES(DECLARE)

static const struct blk_engine_ops *const engines[] = {BLK_ENGINES(OPS) NULL};

const char *const blk_engine_choices[] = {"auto", BLK_ENGINES(NAME) NULL};

int blk_reap_none(void *inst, unsigned min, unsigned max, struct blk_io **out, int timeout_ms)
{
        (void)inst;
        (void)min;
        (void)max;
        (void)out;
        (void)timeout_ms;
        return 0;
}

const struct blk_engine_ops *blk_engine_find(const char *name)
{
        for (unsigned i = 0; engines[i]; i++)
                if (strcmp(engines[i]->name, name) == 0)
                        return engines[i];
        return NULL;
}
