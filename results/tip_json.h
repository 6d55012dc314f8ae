/*
 * tip_json.h - the tipping point (tipping.h) of a scale result's steps[]
 * and its JSON, shared by `scale`, `analyze` and `compare` so that all
 * three read a run the same way.
 *
 * A step is read by the names of the README: vms, totals{tps,seconds},
 * tps_spread{min,median,max} and repeats[].tps (the band with --repeat),
 * steady.ci_pct (--target-ci) or intervals[].tps (the band without),
 * host_cpu{busy,steal,idle,iowait}, cpu_by_owner{vms,storage,driver,other},
 * storage{util_pct|disk_util_pct, lat_ms|disk_lat_ms, iops|disk_iops,
 * vm_disks[]{util_pct,iops,lat_ms} (where the summary lacks them),
 * target_host_share_pct, target_cpu_user_pct, target_cpu_system_pct},
 * vm_quota{used_pct, throttled_pct, throttled_time_pct}, memory{swap_pages,major_faults,oom_kills}.
 * A step whose state is not "ok" (degraded, partial, failed) is left out. No global state; any
 * thread.
 */
#ifndef HCI_RES_TIP_JSON_H
#define HCI_RES_TIP_JSON_H

#include <jansson.h>

#include "results/tipping.h"

/*
 * A step's cluster.hosts[]{name, role, controller, cpu{busy, steal},
 * disks[]{name, util_pct, iops, lat_ms}} into r and h (tipping.h, struct
 * res_tip_hosts): nothing when every host read is the controller itself.
 */
void res_tip_hosts_read(const json_t *step, struct res_tip_res *r, struct res_tip_hosts *h);

/*
 * The same of a block point (`hcisweep block --clients`, cluster.hosts[]
 * of role client, storage, controller): the controller's own /proc is read
 * too (a block point has no figures of its own: with local:N it is the
 * clients' host), the compute side is the hosts of role client when there
 * are some, and a storage host whose CPU is busier than every storage
 * disk gives the storage side's utilisation (h->stor_cpu_util): its
 * service saturated before its disks.
 */
void res_tip_block_hosts_read(const json_t *point, struct res_tip_res *r, struct res_tip_hosts *h);

/* One step: 1 when it counts, 0 when it is left out, -EINVAL without vms or totals.tps. */
int res_tip_step_from_json(const json_t *step, struct res_tip_step *s);

/*
 * The tipping point of steps[] into out. With sv, the steps that counted
 * (malloc'd, the caller frees) and their number. 0 or -ENOMEM.
 */
int res_tip_of_steps(const json_t *steps, struct res_tip_step **sv, unsigned *nv,
                     struct res_tip *out);

/*
 * {LOAD_KEY: N or null, limited_by, reason, undecided, peak{LOAD_KEY, throughput}, usl{...}}
 * with s the steps t was found on; NULL on ENOMEM. load_key: "vms" (scale), "load" (analyze).
 */
json_t *res_tip_json(const struct res_tip *t, const struct res_tip_step *s, const char *load_key);

/* usl{lambda, sigma, kappa, peak_load, rmse}; a figure the fit lacks is null. */
json_t *res_usl_json(const struct res_usl *u);

#endif
