/*
 * engines.c - the registration table of block engines.
 *
 * Explicit on purpose: the list of engines a build has is read here, not
 * assembled by constructors at load time.
 */
#include <string.h>

#include "block/engine.h"

extern const struct blk_engine_ops blk_engine_null;
extern const struct blk_engine_ops blk_engine_psync;
#ifdef HAVE_IO_URING
extern const struct blk_engine_ops blk_engine_io_uring;
#endif
#ifdef HAVE_LIBISCSI
extern const struct blk_engine_ops blk_engine_libiscsi;
#endif

static const struct blk_engine_ops *const engines[] = {
#ifdef HAVE_LIBISCSI
    &blk_engine_libiscsi,
#endif
#ifdef HAVE_IO_URING
    &blk_engine_io_uring,
#endif
    &blk_engine_psync,
    &blk_engine_null,
};

const char *const blk_engine_names[] = {"libiscsi", "io_uring", "psync", "null", NULL};

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
        for (unsigned i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
                if (strcmp(engines[i]->name, name) == 0)
                        return engines[i];
        return NULL;
}
