/*
 * clients_scan.c - a client-count scan's efficiency and verdict (see
 * clients_scan.h).
 */
#include <stdio.h>

#include "block/clients_scan.h"

double blk_scan_efficiency(const struct blk_scan_step *s, unsigned i)
{
        if (s[0].iops <= 0 || s[0].clients == 0 || s[i].clients == 0)
                return 0;
        return s[i].iops / ((double)s[i].clients / s[0].clients * s[0].iops);
}

/* Latency at step i against step 0, in percent. */
static double lat_change(const struct blk_scan_step *s, unsigned i)
{
        return s[0].mean_us > 0 ? 100.0 * (s[i].mean_us / s[0].mean_us - 1) : 0;
}

unsigned blk_scan_verdict(const struct blk_scan_step *s, unsigned n, char *out, size_t outlen)
{
        unsigned last = 0;

        if (n < 2) {
                snprintf(out, outlen, "one client count: no scaling to read");
                return n ? s[0].clients : 0;
        }
        while (last + 1 < n && blk_scan_efficiency(s, last + 1) >= BLK_SCAN_LINEAR)
                last++;
        double x = s[0].iops > 0 ? s[last].iops / s[0].iops : 0;
        if (last + 1 == n) {
                snprintf(out, outlen, "linear to %u clients (%.1fx, latency %+.0f%%)",
                         s[last].clients, x, lat_change(s, last));
                return s[last].clients;
        }
        unsigned k = last + 1;
        snprintf(out, outlen,
                 "saturates at %u client%s (%.1fx, latency %+.0f%%); %u clients: efficiency "
                 "%.2f, latency %+.0f%%",
                 s[last].clients, s[last].clients == 1 ? "" : "s", x, lat_change(s, last),
                 s[k].clients, blk_scan_efficiency(s, k), lat_change(s, k));
        return s[last].clients;
}
