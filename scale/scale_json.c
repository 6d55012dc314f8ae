/*
 * scale_json.c - the result of `hcisweep scale`: the steps, the lab and the
 * tipping point as JSON (the step objects themselves: scale_out.c), and
 * the result saved after every step and at the end (results/save.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/metrics.h"
#include "core/resfile.h"
#include "results/save.h"
#include "scale/scale_run.h"

/* ---- the result ------------------------------------------------------------- */

/*
 * The tipping point is read off the steps' JSON as the result file will hold
 * it, as `analyze` and `compare` read it from that file, so the three always
 * agree to the digit; *steps keeps that JSON for the result (NULL on ENOMEM,
 * when the reason says so). The verdict is built on the same steps, with the
 * monitor's trust once it has stopped, and goes into *tj with its evidence.
 */
void scale_tipping(struct scale *s, struct res_tip *t, struct res_verdict *v, json_t **steps,
                   json_t **tj)
{
        static const char *const topo[] = {"hci", "two-layer"};
        struct res_tip_step *sv = NULL;
        json_t *raw = scale_steps_json(s), *mon = NULL;
        struct res_trust trust = {0};
        struct res_verdict_in in = {
            s->conf.lab.topology >= 0 && s->conf.lab.topology < 2 ? topo[s->conf.lab.topology]
                                                                  : NULL,
            "VMs", &trust, s->conf.plan.search ? s->conf.plan.max : 0, "TPS"};
        unsigned n = 0;

        *steps = raw ? res_as_written(raw) : NULL;
        json_decref(raw);
        *tj = NULL;
        memset(t, 0, sizeof(*t));
        memset(v, 0, sizeof(*v));
        if (!*steps || res_tip_of_steps(*steps, &sv, &n, t) < 0) {
                snprintf(t->reason, sizeof(t->reason), "out of memory");
                snprintf(v->line[0], sizeof(v->line[0]), "out of memory: no verdict");
                v->nlines = 1;
                return;
        }
        if (s->watch.mon && s->watch.mon_stopped && (mon = mon_to_json(s->watch.mon)))
                res_trust_of_monitor(mon, &trust);
        json_decref(mon);
        res_trust_of_cluster(*steps, &trust);
        res_verdict_build(&in, t, sv, n, v);
        *tj = res_tip_json(t, sv, "vms");
        if (*tj && res_verdict_attach(*tj, v) < 0) {
                json_decref(*tj);
                *tj = NULL;
        }
        free(sv);
}

/* Steps whose TPS did not reach --target-ci: named under the answer, never passed over. */
static json_t *search_json(const struct scale_plan *p)
{
        json_t *order = json_array();

        for (unsigned i = 0; order && i < p->norder; i++)
                json_array_append_new(order, json_integer(p->order[i]));
        return json_pack("{s:i,s:i,s:i,s:o}", "max", (int)p->max, "resolution",
                         (int)p->cfg.resolution, "max_steps", (int)p->nslots, "order",
                         order ? order : json_null());
}

static json_t *not_met_json(const struct scale *s)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < s->nsteps; i++)
                if (s->steps[i].have_steady && !s->steps[i].steady.met)
                        json_array_append_new(a, json_integer(s->steps[i].vms));
        return a;
}

json_t *scale_steps_json(struct scale *s)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < s->nsteps; i++)
                if (json_array_append_new(a, scale_step_json(&s->steps[i], s->conf.pcts,
                                                             s->conf.npct, &s->conf.load))) {
                        json_decref(a);
                        return NULL;
                }
        return a;
}

/* Where each VM's datadir lives and how its I/O reaches the storage. */
static json_t *lab_json(const struct scale *s)
{
        json_t *vms = json_array(), *o;
        const char *on = "unknown";

        for (unsigned i = 1; vms && i <= s->lab.ndisk; i++) {
                const struct lab_vm_stats *d = &s->lab.disk[i];

                on = lab_datadir_name(d->datadir_on);
                o = json_pack("{s:I,s:s,s:s?,s:s?,s:o,s:s?,s:s?}", "vm", (json_int_t)i,
                              "datadir_on", on, "lun", s->lab.lun[i][0] ? s->lab.lun[i] : NULL,
                              "initiator", d->initiator[0] ? d->initiator : NULL, "initiator_pid",
                              d->initiator_pid > 0 ? json_integer(d->initiator_pid) : json_null(),
                              "mount", d->mount[0] ? d->mount : NULL, "disk",
                              d->disk[0] ? d->disk : NULL);
                if (o)
                        json_array_append_new(vms, o);
        }
        return json_pack("{s:s,s:s,s:o}", "backend", s->lab.ops->name, "datadir_on", on, "vms",
                         vms ? vms : json_null());
}

static json_t *build_result(struct scale *s, json_t *steps, json_t *tip, const char *status)
{
        json_t *cfg = opt_to_json(s->conf.g), *top = cfg ? res_new("scale", cfg) : NULL;
        int bad;

        json_decref(cfg);
        if (!top)
                return NULL;
        bad = json_object_set_new(top, "status", json_string(status));
        bad |= json_object_set_new(
            top, "partial",
            json_boolean(strcmp(status, "complete") && strcmp(status, "stopped early")));
        if (s->stop_reason[0])
                bad |= json_object_set_new(top, "stop_reason", json_string(s->stop_reason));
        bad |=
            json_object_set_new(top, "storage_disk", json_string(scale_probe_disk(s->watch.probe)));
        bad |= json_object_set_new(top, "lab", lab_json(s));
        if (s->watch.mon && s->watch.mon_stopped)
                bad |= json_object_set_new(top, "monitor", mon_to_json(s->watch.mon));
        if (s->watch.metrics)
                bad |= json_object_set_new(top, "metrics_address",
                                           json_string(metrics_address(s->watch.metrics)));
        bad |= json_object_set(top, "steps", steps);
        bad |= json_object_set(top, "tipping_point", tip);
        if (s->nsteps && s->steps[0].have_steady)
                bad |= json_object_set_new(top, "ci_not_met", not_met_json(s));
        if (s->conf.plan.search)
                bad |= json_object_set_new(top, "search", search_json(&s->conf.plan));
        if (bad) {
                json_decref(top);
                return NULL;
        }
        return top;
}

/* The steps so far, marked partial, so a killed run keeps them. */
void scale_save_progress(struct scale *s)
{
        struct res_verdict v;
        struct res_tip t;
        json_t *top, *steps, *tj;

        scale_tipping(s, &t, &v, &steps, &tj);
        top = build_result(s, steps, tj, "running");
        json_decref(steps);
        json_decref(tj);
        if (!top)
                log_warn("scale: out of memory saving the steps so far");
        else
                res_save_progress(&s->save, top, "running");
        json_decref(top);
}

int scale_write_result(struct scale *s, json_t *steps, json_t *tj, const char *status)
{
        json_t *top = build_result(s, steps, tj, status);
        int rc;

        if (!top) {
                log_error("scale: out of memory building the result");
                return -ENOMEM;
        }
        rc = res_save_final(&s->save, top,
                            json_is_true(json_object_get(top, "partial")) ? status : NULL, 0);
        json_decref(top);
        return rc;
}
