/* core/parse.c: not written yet */
