/* core/progress.c: not written yet */
