/* block/verify.c: not written yet */
