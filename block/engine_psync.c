/* block/engine_psync.c: placeholder until the engine lands. */
#include "block/engine.h"
const struct blk_engine_ops blk_engine_psync = {.name = "psync"};
