/* core/log.c: not written yet */
