/* core/resfile.c: not written yet */
