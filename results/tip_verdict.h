/*
 * tip_verdict.h - the tipping point (tipping.h) as a reader wants it: a
 * verdict of at most four lines, and the evidence behind it as a table.
 * `scale`, `report`, `compare` and `analyze` all build it here, from the
 * same struct res_tip, so the terminal, the report, compare.html and the
 * JSON say the same thing.
 *
 * The verdict, found:
 *
 *     hci: tips at 3 VMs (3–4) — limited by cpu: compute limiting storage
 *       host CPU 91% → 95% busy; storage service CPU 4.0% → 4.1% of the host; ...
 *       TPS 310.2 → 322.5 (efficiency 14%, below 20% beyond the noise); headroom at 3 VMs: ...
 *
 * line 1 where it tips (the range when the step after it was within the
 * noise) and the resource; line 2 the two or three figures that decided
 * it, at the tipping step and at the step the attribution read; line 3 the
 * throughput and the headroom left at the tipping step. When the host
 * monitor marked the run untrusted (CPU steal: another tenant's CPU), a
 * line saying so comes first and the rest is indented under it. Not found:
 * "undecided" with what to do, "no tipping point up to N VMs" with the
 * headroom at the last step, or why no answer can be read.
 *
 * The evidence is one entry per figure and step, {figure, at (the step's
 * load), value, unit, rule}, rule being the rule of tipping.h the value met
 * ("≥ 90%: saturated", "> 2× the tipping step's: more than doubled") or ""
 * for a figure given as context; `decides` marks the figures of line 2.
 * Pure: no I/O but the FILE the table is printed to; any thread.
 */
#ifndef HCI_RES_TIP_VERDICT_H
#define HCI_RES_TIP_VERDICT_H

#include <stdio.h>
#include <jansson.h>

#include "core/monitor.h"
#include "results/tipping.h"

#define RES_VERDICT_LINES 4
#define RES_VERDICT_LINE  480
#define RES_VERDICT_EV    48

/* What the host monitor said of the run (result.monitor.summary). */
struct res_trust {
        int untrusted;
        char why[200]; /* its reason: "CPU steal reached 34.6% > 20%" */
};

struct res_evidence {
        char figure[48]; /* "host CPU busy" */
        double at;       /* the step's load */
        double value;
        char unit[16]; /* "%", "ms", "TPS", ... */
        char rule[128];
        int decides; /* a figure of the verdict's second line */
};

struct res_verdict {
        unsigned nlines;
        char line[RES_VERDICT_LINES][RES_VERDICT_LINE];
        double at[2];  /* the two steps of the table (k, j); NAN when there is none */
        char unit[24]; /* the load's name: "VMs" */
        char tput[16]; /* the throughput's: "TPS" */
        unsigned nev;
        struct res_evidence ev[RES_VERDICT_EV];
};

/* What the verdict is built for. */
struct res_verdict_in {
        const char *label;             /* "hci" (the topology, the ramp); NULL: "tipping point" */
        const char *unit;              /* the load's name; NULL: "VMs" */
        const struct res_trust *trust; /* NULL: no monitor */
        double search_max;             /* > 0: a searching plan up to this load */
        const char *tput;              /* the throughput's name; NULL: "TPS" */
};

/* The monitor's trust from a result's "monitor" object (NULL or none: trusted). */
void res_trust_of_monitor(const json_t *monitor, struct res_trust *t);
/*
 * What the cluster's hosts said (steps[].cluster.hosts[] other than the
 * controller): a host whose CPU steal over a step's windows averaged more
 * than RES_TRUST_STEAL_MEAN % makes the run untrusted too, the host named
 * ("CPU steal 12.3% on h2 at 4 VMs > 5%"). Leaves t as it is otherwise.
 */
#define RES_TRUST_STEAL_MEAN MON_STEAL_MEAN_MAX /* the host monitor's mean-steal rule */
void res_trust_of_cluster(const json_t *steps, struct res_trust *t);

/* The verdict of t, found on the n steps s (those res_tip_find was given). */
void res_verdict_build(const struct res_verdict_in *in, const struct res_tip *t,
                       const struct res_tip_step *s, unsigned n, struct res_verdict *v);

/*
 * The verdict of a scale result: its steps read as tip_json.h reads them,
 * labelled by its config.topology, with its monitor's trust and its
 * search.max. *tip gets the tipping point when not NULL. 0 or -ENOMEM.
 */
int res_verdict_of_result(const json_t *result, struct res_tip *tip, struct res_verdict *v);

/* The lines joined by '\n' (no trailing one) into buf; the length written. */
size_t res_verdict_text(const struct res_verdict *v, char *buf, size_t len);

/* evidence[] as JSON; NULL on ENOMEM. */
json_t *res_verdict_evidence_json(const struct res_verdict *v);

/* tip (a tipping_point object) gets verdict and evidence[]. 0 or -ENOMEM. */
int res_verdict_attach(json_t *tip, const struct res_verdict *v);

/* One row of the evidence table: figure | at step k | at step j | rule it met. */
struct res_ev_row {
        const char *figure;
        char k[40], j[40];
        char rule[256];
        int decides;
};

/* The table's rows (at most max) and its two step headings ("at 3 VMs"). */
unsigned res_verdict_rows(const struct res_verdict *v, struct res_ev_row *rows, unsigned max,
                          char head_k[48], char head_j[48]);

/* The table on f (--explain), each line indented by indent spaces. */
void res_verdict_print_table(const struct res_verdict *v, FILE *f, int indent);

#endif
