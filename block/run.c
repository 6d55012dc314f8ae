/* block/run.c: not written yet */
