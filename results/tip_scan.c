/*
 * tip_scan.c - a client-count scan's efficiency and verdict (tip_scan.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/tip_json.h"
#include "results/tip_scan.h"

void res_scan_step_init(struct res_scan_step *s, unsigned clients, double iops, double mean_us)
{
        res_tip_step_init(&s->st, clients, iops);
        s->mean_us = mean_us;
}

int res_scan_step_of_point(const json_t *p, struct res_scan_step *s)
{
        const json_t *n = json_object_get(p, "n_clients");
        double iops = 0, ios = 0, sum = 0;

        if (!json_is_integer(n) || json_integer_value(n) < 1)
                return -EINVAL;
        for (unsigned d = 0; d < 2; d++) {
                const json_t *x = json_object_get(p, d ? "write" : "read");
                double k = json_number_value(json_object_get(x, "ios"));

                iops += json_number_value(json_object_get(x, "iops"));
                ios += k;
                sum += k * json_number_value(json_object_get(json_object_get(x, "lat_ns"), "mean"));
        }
        res_scan_step_init(s, (unsigned)json_integer_value(n), iops, ios > 0 ? sum / ios / 1e3 : 0);
        res_tip_block_hosts_read(p, &s->st.r, &s->st.hosts);
        return 0;
}

double res_scan_efficiency(const struct res_scan_step *s, unsigned i)
{
        if (s[0].st.tput <= 0 || s[0].st.load <= 0 || s[i].st.load <= 0)
                return 0;
        return s[i].st.tput / (s[i].st.load / s[0].st.load * s[0].st.tput);
}

/* Latency at step i against step 0, in percent. */
static double lat_change(const struct res_scan_step *s, unsigned i)
{
        return s[0].mean_us > 0 ? 100.0 * (s[i].mean_us / s[0].mean_us - 1) : 0;
}

/* The rule that names the limit from step last to the first step k that names one. */
static void attribute(const struct res_scan_step *s, unsigned n, unsigned last,
                      struct res_scan *out)
{
        out->rule = RES_RULE_NONE;
        out->cited = -1;
        for (unsigned k = last + 1; k < n; k++) {
                enum res_tip_rule r = res_tip_classify(&s[last].st.r, &s[k].st.r);

                if (r != RES_RULE_NONE) {
                        out->rule = r;
                        out->cited = (int)k;
                        break;
                }
        }
        out->limited_by = res_tip_rule_limit(out->rule);
}

void res_scan_verdict(const struct res_scan_step *s, unsigned n, struct res_scan *out)
{
        unsigned last = 0;
        char lim[300] = "";

        memset(out, 0, sizeof(*out));
        out->cited = -1;
        if (n < 2) {
                snprintf(out->verdict, sizeof(out->verdict),
                         "one client count: no scaling to read");
                out->at = n ? (unsigned)s[0].st.load : 0;
                return;
        }
        while (last + 1 < n && res_scan_efficiency(s, last + 1) >= RES_SCAN_LINEAR)
                last++;
        double x = s[0].st.tput > 0 ? s[last].st.tput / s[0].st.tput : 0;
        unsigned at = (unsigned)s[last].st.load;

        out->at = at;
        if (last + 1 == n) {
                snprintf(out->verdict, sizeof(out->verdict),
                         "linear to %u clients (%.1fx, latency %+.0f%%)", at, x,
                         lat_change(s, last));
                return;
        }
        out->saturated = 1;
        attribute(s, n, last, out);
        if (out->cited >= 0) {
                char what[260];

                res_tip_limit_owner(&s[last].st, &s[out->cited].st, out->rule, what, sizeof(what));
                snprintf(lim, sizeof(lim), ": %s", what);
        } else {
                for (unsigned k = last; k < n; k++)
                        if (s[k].st.hosts.n)
                                snprintf(lim, sizeof(lim), ": no resource at its limit");
        }
        unsigned k = last + 1;
        snprintf(out->verdict, sizeof(out->verdict),
                 "saturates at %u client%s%s (%.1fx, latency %+.0f%%); %u clients: efficiency "
                 "%.2f, latency %+.0f%%",
                 at, at == 1 ? "" : "s", lim, x, lat_change(s, last), (unsigned)s[k].st.load,
                 res_scan_efficiency(s, k), lat_change(s, k));
}
