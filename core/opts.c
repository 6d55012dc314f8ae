/* core/opts.c: not written yet */
