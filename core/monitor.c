/* core/monitor.c: not written yet */
