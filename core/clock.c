/* core/clock.c: not written yet */
