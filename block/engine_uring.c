/* block/engine_uring.c: placeholder until the engine lands. */
#include "block/engine.h"
const struct blk_engine_ops blk_engine_io_uring = {.name = "io_uring"};
