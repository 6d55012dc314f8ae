/* core/hist.c: not written yet */
