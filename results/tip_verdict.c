/*
 * tip_verdict.c - the verdict and its evidence (tip_verdict.h).
 *
 * Which figures decided is read off the rule that named the resource
 * (tipping.h's attribution order): each rule has the two or three figures
 * it tested, and the headroom it implies is the other side's (a CPU-bound
 * step's storage, a storage-bound step's CPU). Every figure both steps
 * have goes into the evidence, with the threshold it met, so the table is
 * the whole reasoning and the verdict its summary.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/rundir.h"
#include "results/tip_json.h"
#include "results/tip_verdict.h"

/* How a figure is judged. */
enum judge {
        J_CONTEXT,  /* no rule: given for context */
        J_SAT,      /* >= RES_TIP_SAT_PCT: saturated */
        J_STEAL,    /* another tenant's CPU */
        J_STOR_CPU, /* the storage service's share: flat or rising */
        J_LAT,      /* against the tipping step's latency */
        J_THR_PER,  /* throttled in this share of periods */
        J_THR_TIME, /* throttled this share of the time */
        J_MAJFLT,   /* major faults per second */
        J_COUNT     /* any at all (swap, OOM kills) */
};

struct fig {
        const char *name; /* the evidence's figure */
        const char *unit;
        const char *say; /* the verdict's words, two %s: the values at k and j */
        size_t off;      /* in struct res_tip_res */
        int dec;
        enum judge judge;
};

#define OFF(f) offsetof(struct res_tip_res, f)
enum {
        F_COMPUTE,
        F_CPU,
        F_STEAL,
        F_STOR_CPU,
        F_STOR_USER,
        F_STOR_SYS,
        F_LAT,
        F_UTIL,
        F_IOPS,
        F_QUOTA,
        F_THR_PER,
        F_THR_TIME,
        F_DRIVER,
        F_MAJFLT,
        F_SWAP,
        F_OOM,
        NFIG
};
static const struct fig figs[NFIG] = {
    [F_COMPUTE] = {"compute CPUs busy (the VMs' own)", "%", "compute CPUs %s → %s busy",
                   OFF(compute_cpu_pct), 0, J_SAT},
    [F_CPU] = {"host CPU busy", "%", "host CPU %s → %s busy", OFF(cpu_busy_pct), 0, J_SAT},
    [F_STEAL] = {"CPU steal", "%", "CPU steal %s → %s", OFF(steal_pct), 1, J_STEAL},
    [F_STOR_CPU] = {"storage service CPU", "% of the host", "storage service CPU %s → %s",
                    OFF(storage_cpu_pct), 1, J_STOR_CPU},
    [F_STOR_USER] = {"storage service user CPU", "% of one CPU", "its user CPU %s → %s",
                     OFF(storage_cpu_user_pct), 1, J_CONTEXT},
    [F_STOR_SYS] = {"storage service system CPU", "% of one CPU", "its system CPU %s → %s",
                    OFF(storage_cpu_sys_pct), 1, J_CONTEXT},
    [F_LAT] = {"storage latency", "ms", "storage latency %s → %s", OFF(storage_lat_ms), 2, J_LAT},
    [F_UTIL] = {"storage utilisation", "%", "storage %s → %s utilised", OFF(storage_util_pct), 0,
                J_SAT},
    [F_IOPS] = {"storage IOPS", "IOPS", "storage IOPS %s → %s", OFF(storage_iops), 0, J_CONTEXT},
    [F_QUOTA] = {"VM quota used", "%", "VM quotas %s → %s used", OFF(vm_cpu_pct), 0, J_SAT},
    [F_THR_PER] = {"VMs throttled, share of periods", "%", "VMs throttled in %s → %s of periods",
                   OFF(vm_throttled_pct), 0, J_THR_PER},
    [F_THR_TIME] = {"VMs throttled, share of time", "%", "VMs throttled %s → %s of the time",
                    OFF(vm_throttled_time_pct), 0, J_THR_TIME},
    [F_DRIVER] = {"load generator CPU", "% of the host", "load generator CPU %s → %s",
                  OFF(driver_cpu_pct), 1, J_CONTEXT},
    [F_MAJFLT] = {"major faults", "/s", "major faults %s → %s /s", OFF(majflt_per_s), 1, J_MAJFLT},
    [F_SWAP] = {"pages swapped", "pages", "pages swapped %s → %s", OFF(swap_pages), 0, J_COUNT},
    [F_OOM] = {"OOM kills", "", "OOM kills %s → %s", OFF(oom_kills), 0, J_COUNT},
};
#undef OFF

static double fig_of(const struct res_tip_step *s, int f)
{
        double v;

        memcpy(&v, (const char *)&s->r + figs[f].off, sizeof(v));
        return v;
}

static int known(double v)
{
        return !isnan(v);
}

/* "91%", "1.22", "4.0%": a value as the verdict's words print it. */
static void val(int f, double v, char *buf, size_t len)
{
        snprintf(buf, len, "%.*f%s", figs[f].dec, v, figs[f].unit[0] == '%' ? "%" : "");
}

/* "91%", "1.22 ms", "4.0% of the host": a value with its unit, for the table. */
static void val_unit(const char *unit, int dec, double v, char *buf, size_t len)
{
        if (isnan(v))
                snprintf(buf, len, "-");
        else if (unit[0] == '%')
                snprintf(buf, len, "%.*f%s", dec, v, unit);
        else
                snprintf(buf, len, "%.*f%s%s", dec, v, unit[0] ? " " : "", unit);
}

/* "3 VMs", "iodepth 8" */
static void load_words(const char *unit, double v, char *buf, size_t len)
{
        if (!strcmp(unit, "VMs"))
                snprintf(buf, len, "%g VMs", v);
        else
                snprintf(buf, len, "%s %g", unit, v);
}

static double pct(double e)
{
        return isinf(e) ? (e < 0 ? -100 : 100) : 100 * e;
}

/* ---- the rules each value met ---------------------------------------------------- */

/* The rule value b (at j) met; a is the same figure at the tipping step k. */
static void rule_of(int f, double a, double b, int at_j, char *buf, size_t len)
{
        buf[0] = '\0';
        switch (figs[f].judge) {
        case J_SAT:
                snprintf(buf, len, b >= RES_TIP_SAT_PCT ? "≥ %.0f%%: saturated" : "< %.0f%%: room",
                         RES_TIP_SAT_PCT);
                break;
        case J_STEAL:
                if (b >= 5)
                        snprintf(buf, len, "≥ 5%%: another tenant took CPU time");
                break;
        case J_STOR_CPU:
                if (!at_j || !known(a))
                        break;
                if (a < RES_TIP_STORAGE_CPU_MIN)
                        snprintf(buf, len, "< %.0f%% of the host: not in the I/O path",
                                 RES_TIP_STORAGE_CPU_MIN);
                else if (b <= a * RES_TIP_FLAT + 0.5)
                        snprintf(buf, len, "≤ %.1f× + 0.5: flat or fell, no more CPU for storage",
                                 RES_TIP_FLAT);
                else
                        snprintf(buf, len, "> %.1f× + 0.5: rose", RES_TIP_FLAT);
                break;
        case J_LAT:
                if (!at_j || !known(a) || !(a > 0))
                        break;
                if (b > a * RES_TIP_LAT_FACTOR)
                        snprintf(buf, len, "> %.0f× the earlier step's: more than doubled",
                                 RES_TIP_LAT_FACTOR);
                else if (b >= a * RES_TIP_LAT_RISE)
                        snprintf(buf, len, "≥ %.1f× the earlier step's: rose", RES_TIP_LAT_RISE);
                else
                        snprintf(buf, len, "< %.1f× the earlier step's: flat", RES_TIP_LAT_RISE);
                break;
        case J_THR_PER:
                snprintf(buf, len,
                         b >= RES_TIP_THROTTLE_PCT ? "≥ %.0f%% of periods: throttled"
                                                   : "< %.0f%% of periods",
                         RES_TIP_THROTTLE_PCT);
                break;
        case J_THR_TIME:
                snprintf(buf, len,
                         b >= RES_TIP_THROTTLE_TIME_PCT ? "≥ %.0f%% of the time: throttled"
                                                        : "< %.0f%% of the time",
                         RES_TIP_THROTTLE_TIME_PCT);
                break;
        case J_MAJFLT:
                if (b > RES_TIP_MAJFLT_PER_S)
                        snprintf(buf, len, "> %.0f/s: memory pressure", RES_TIP_MAJFLT_PER_S);
                break;
        case J_COUNT:
                if (b > 0)
                        snprintf(buf, len, "> 0: memory pressure");
                break;
        case J_CONTEXT:
        default:
                break;
        }
}

/* ---- evidence -------------------------------------------------------------------- */

static void add_ev(struct res_verdict *v, const char *figure, double at, double value,
                   const char *unit, const char *rule, int decides)
{
        struct res_evidence *e;

        if (isnan(value) || isnan(at) || v->nev == RES_VERDICT_EV)
                return;
        e = &v->ev[v->nev++];
        snprintf(e->figure, sizeof(e->figure), "%s", figure);
        e->at = at;
        e->value = isinf(value) ? (value < 0 ? -1e300 : 1e300) : value;
        snprintf(e->unit, sizeof(e->unit), "%s", unit);
        snprintf(e->rule, sizeof(e->rule), "%s", rule ? rule : "");
        e->decides = decides;
}

/* Every figure both steps k and j have (one of them for a lone step), k first. */
static void resource_evidence(struct res_verdict *v, const struct res_tip_step *k,
                              const struct res_tip_step *j, const int *decides)
{
        char rule[128];

        for (int f = 0; f < NFIG; f++) {
                double a = fig_of(k, f), b = j ? fig_of(j, f) : NAN;

                if (j && (isnan(a) || isnan(b)))
                        continue;
                /* in two-layer the compute CPUs are the CPU the rules read */
                if (f == F_CPU && known(fig_of(k, F_COMPUTE)))
                        snprintf(rule, sizeof(rule), "context: the compute CPUs decide");
                else
                        rule_of(f, a, a, 0, rule, sizeof(rule));
                add_ev(v, figs[f].name, k->load, a, figs[f].unit, rule, decides[f]);
                if (!j)
                        continue;
                if (!(f == F_CPU && known(fig_of(k, F_COMPUTE))))
                        rule_of(f, a, b, 1, rule, sizeof(rule));
                add_ev(v, figs[f].name, j->load, b, figs[f].unit, rule, decides[f]);
        }
}

static void tput_evidence(struct res_verdict *v, const struct res_tip_step *k,
                          const struct res_tip_step *j)
{
        add_ev(v, "throughput", k->load, k->tput, v->tput, "", 0);
        if (j && j != k)
                add_ev(v, "throughput", j->load, j->tput, v->tput, "", 0);
}

/* ---- which figures decided ------------------------------------------------------- */

/* The figures rule tested, in the order the verdict cites them (-1 ends). */
static void deciding(enum res_tip_rule rule, const struct res_tip_step *k,
                     const struct res_tip_step *j, int out[4])
{
        int cpu = known(fig_of(k, F_COMPUTE)) ? F_COMPUTE : F_CPU, n = 0;

        switch (rule) {
        case RES_RULE_MEMORY: {
                static const int mem[] = {F_OOM, F_SWAP, F_MAJFLT};

                for (unsigned i = 0; i < 3 && n < 2; i++)
                        if (fig_of(j, mem[i]) > 0 || fig_of(k, mem[i]) > 0)
                                out[n++] = mem[i];
                out[n++] = cpu;
                break;
        }
        case RES_RULE_CPU_STARVES:
                out[n++] = cpu;
                out[n++] = F_STOR_CPU;
                out[n++] = F_LAT;
                break;
        case RES_RULE_VM_QUOTA: {
                double t = fig_of(j, F_THR_TIME), p = fig_of(j, F_THR_PER);

                out[n++] = known(t) && t >= RES_TIP_THROTTLE_TIME_PCT ? F_THR_TIME
                           : known(p) && p >= RES_TIP_THROTTLE_PCT    ? F_THR_PER
                                                                      : F_QUOTA;
                out[n++] = cpu;
                break;
        }
        case RES_RULE_STORAGE_UTIL:
                out[n++] = F_UTIL;
                out[n++] = F_LAT;
                out[n++] = cpu;
                break;
        case RES_RULE_STORAGE_LAT:
                out[n++] = F_LAT;
                out[n++] = F_UTIL;
                out[n++] = cpu;
                break;
        case RES_RULE_CPU:
                out[n++] = cpu;
                out[n++] = F_LAT;
                out[n++] = F_UTIL;
                break;
        case RES_RULE_NONE:
        default:
                out[n++] = cpu;
                out[n++] = F_UTIL;
                out[n++] = F_LAT;
                break;
        }
        out[n] = -1;
}

/* "host CPU 91% → 95% busy; storage latency 1.22 → 3.13 ms" from the figures both steps have. */
static size_t say_figures(const int *fs, const struct res_tip_step *k, const struct res_tip_step *j,
                          char *buf, size_t len)
{
        size_t at = 0;

        buf[0] = '\0';
        for (unsigned i = 0; fs[i] >= 0 && at < len; i++) {
                int f = fs[i];
                double a = fig_of(k, f), b = fig_of(j, f);
                char va[32], vb[32], one[160];

                if (isnan(a) || isnan(b))
                        continue;
                val(f, a, va, sizeof(va));
                val(f, b, vb, sizeof(vb));
                /* say holds two %s: the values at k and at j */
                // cppcheck-suppress wrongPrintfScanfArgNum
                snprintf(one, sizeof(one), figs[f].say, va, vb);
                if (f == F_LAT)
                        snprintf(one + strlen(one), sizeof(one) - strlen(one), " ms");
                at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "; " : "", one);
        }
        return at;
}

/* What was left at step k: the other side of the rule's resource. */
static void say_headroom(enum res_tip_rule rule, const struct res_tip_step *k,
                         const struct res_tip_step *j, char *buf, size_t len)
{
        double cpu = known(fig_of(k, F_COMPUTE)) ? fig_of(k, F_COMPUTE) : fig_of(k, F_CPU);
        const char *who = known(fig_of(k, F_COMPUTE)) ? "compute CPUs" : "host CPU";
        double util = fig_of(k, F_UTIL), lk = fig_of(k, F_LAT), lj = j ? fig_of(j, F_LAT) : NAN;
        size_t at = 0;
        int cpu_side = rule == RES_RULE_CPU_STARVES || rule == RES_RULE_CPU;

        buf[0] = '\0';
        if (known(util) && (cpu_side || rule == RES_RULE_NONE || rule == RES_RULE_MEMORY))
                at += (size_t)snprintf(buf + at, len - at, "storage %.0f%% utilised%s", util,
                                       util < RES_TIP_SAT_PCT ? " (headroom)" : "");
        if (cpu_side && known(lk) && known(lj) && lk > 0 && lj < lk * RES_TIP_LAT_RISE && at < len)
                at += (size_t)snprintf(buf + at, len - at, "%slatency flat", at ? ", " : "");
        if (!cpu_side && known(cpu) && at < len)
                at += (size_t)snprintf(buf + at, len - at, "%s%s %.0f%% idle", at ? ", " : "", who,
                                       100 - cpu);
        if (!at && known(fig_of(k, F_STOR_CPU)))
                snprintf(buf, len, "storage service CPU %.1f%% of the host", fig_of(k, F_STOR_CPU));
}

/* ---- the lines ------------------------------------------------------------------- */

static void line(struct res_verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(struct res_verdict *v, const char *fmt, ...)
{
        va_list ap;

        if (v->nlines == RES_VERDICT_LINES)
                return;
        va_start(ap, fmt);
        vsnprintf(v->line[v->nlines++], RES_VERDICT_LINE, fmt, ap);
        va_end(ap);
}

/* "3 → 4 VMs", "iodepth 8 → 16" */
static void span_words(const char *unit, double a, double b, char *buf, size_t len)
{
        if (!strcmp(unit, "VMs"))
                snprintf(buf, len, "%g → %g VMs", a, b);
        else
                snprintf(buf, len, "%s %g → %g", unit, a, b);
}

static const char *limit_words(enum res_tip_rule rule, const struct res_tip_step *j)
{
        int two = known(fig_of(j, F_COMPUTE));

        switch (rule) {
        case RES_RULE_MEMORY:
                return "memory: the VMs swapped, faulted or were OOM-killed";
        case RES_RULE_CPU_STARVES:
                return "cpu: compute limiting storage";
        case RES_RULE_VM_QUOTA:
                return "vm-cpu: the VMs' own CPU quotas (add VMs or vCPUs, not storage)";
        case RES_RULE_STORAGE_UTIL:
                return "storage: saturated with CPU to spare";
        case RES_RULE_STORAGE_LAT:
                return "storage: its latency more than doubled with CPU to spare";
        case RES_RULE_CPU:
                return two ? "cpu: the compute CPUs (the VMs' own) saturated"
                           : "cpu: the host CPU saturated";
        case RES_RULE_NONE:
        default:
                return "none: no resource at its limit";
        }
}

/* The key figures a none-verdict lacked, for its words. */
static void missing(const struct res_tip_step *k, const struct res_tip_step *j, char *buf,
                    size_t len)
{
        static const int key[] = {F_CPU, F_UTIL, F_LAT, F_STOR_CPU, F_QUOTA, F_THR_TIME};
        size_t at = 0;

        buf[0] = '\0';
        for (unsigned i = 0; i < sizeof(key) / sizeof(key[0]) && at < len; i++) {
                int f = key[i] == F_CPU && known(fig_of(k, F_COMPUTE)) ? F_COMPUTE : key[i];

                if (isnan(fig_of(k, f)) || isnan(fig_of(j, f)))
                        at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
                                               figs[f].name);
        }
}

static void found(struct res_verdict *v, const char *ind, const struct res_tip *t,
                  const struct res_tip_step *s)
{
        const struct res_tip_step *k = &s[t->from], *j = &s[t->cited >= 0 ? t->cited : t->to];
        char where[160], hi[48], figures[RES_VERDICT_LINE], room[200], tail[RES_VERDICT_LINE];
        char nk[80], nt[80], on[300];
        int fs[5], dec[NFIG] = {0};

        load_words(v->unit, k->load, where, sizeof(where));
        if (isfinite(t->load_hi)) {
                snprintf(hi, sizeof(hi), " (%g–%g)", k->load, t->load_hi);
                snprintf(where + strlen(where), sizeof(where) - strlen(where), "%s", hi);
        }
        res_tip_host_words(j, t->rule, on, sizeof(on));
        line(v, "%stips at %s — limited by %s%s", ind, where, limit_words(t->rule, j), on);
        deciding(t->rule, k, j, fs);
        for (unsigned i = 0; fs[i] >= 0; i++)
                dec[fs[i]] = 1;
        if (say_figures(fs, k, j, figures, sizeof(figures))) {
                span_words(v->unit, k->load, j->load, nt, sizeof(nt));
                line(v, "%s  %s (%s)", ind, figures, nt);
        }
        load_words(v->unit, k->load, nk, sizeof(nk));
        span_words(v->unit, k->load, s[t->to].load, nt, sizeof(nt));
        snprintf(tail, sizeof(tail),
                 "%s %.1f → %.1f (%s): efficiency %.0f%%, below %.0f%% beyond the noise", v->tput,
                 k->tput, s[t->to].tput, nt, pct(t->eff), 100 * RES_TIP_SHARE);
        say_headroom(t->rule, k, j, room, sizeof(room));
        if (t->rule == RES_RULE_NONE)
                missing(k, j, room, sizeof(room));
        if (room[0])
                snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), "; %s %s: %s",
                         t->rule == RES_RULE_NONE ? "not measured at" : "at", nk, room);
        line(v, "%s  %s", ind, tail);
        v->at[0] = k->load;
        v->at[1] = j->load;
        tput_evidence(v, k, j);
        if (isfinite(t->eff)) {
                char r[128];

                char band[48] = "no noise band";

                if (t->eff_hi > t->eff_lo)
                        snprintf(band, sizeof(band), "band %.0f..%.0f%%", pct(t->eff_lo),
                                 pct(t->eff_hi));
                snprintf(r, sizeof(r), "< %.0f%% beyond the noise (%s): tipped",
                         100 * RES_TIP_SHARE, band);
                add_ev(v, "scaling efficiency", s[t->to].load, pct(t->eff), "%", r, 1);
        }
        resource_evidence(v, k, j, dec);
}

static void undecided(struct res_verdict *v, const char *ind, const struct res_tip *t,
                      const struct res_tip_step *s)
{
        const struct res_tip_step *k = &s[t->from], *j = &s[t->to];
        char a[48], b[48], e[200], r[128];
        int dec[NFIG] = {0};

        load_words(v->unit, k->load, a, sizeof(a));
        load_words(v->unit, j->load, b, sizeof(b));
        snprintf(e, sizeof(e),
                 "efficiency %.0f%%, its noise band %.0f..%.0f%% across the %.0f%% "
                 "threshold",
                 pct(t->eff), pct(t->eff_lo), pct(t->eff_hi), 100 * RES_TIP_SHARE);
        line(v, "%sundecided — from %s to %s: %s", ind, a, b, e);
        line(v, "%s  more repeats needed: --repeat 3, or longer steps (--time), narrow the bands",
             ind);
        v->at[0] = k->load;
        v->at[1] = j->load;
        tput_evidence(v, k, j);
        snprintf(r, sizeof(r), "band %.0f..%.0f%% straddles %.0f%%: undecided", pct(t->eff_lo),
                 pct(t->eff_hi), 100 * RES_TIP_SHARE);
        add_ev(v, "scaling efficiency", j->load, pct(t->eff), "%", r, 1);
        resource_evidence(v, k, j, dec);
}

static void still_scaling(struct res_verdict *v, const char *ind, const struct res_tip *t,
                          const struct res_tip_step *s, unsigned n, double search_max)
{
        const struct res_tip_step *k = &s[0], *j = &s[n - 1];
        char last[48], room[200], r[128], figures[RES_VERDICT_LINE];
        int dec[NFIG] = {0},
            fs[4] = {known(fig_of(j, F_COMPUTE)) ? F_COMPUTE : F_CPU, F_UTIL, F_LAT, -1};

        load_words(v->unit, search_max > 0 ? search_max : j->load, last, sizeof(last));
        if (n == 1) {
                line(v, "%sone step (%s): no tipping point can be read off it", ind, last);
        } else {
                char low[96];

                snprintf(low, sizeof(low), "every step kept ≥ %.0f%% efficiency (lowest %.0f%%)",
                         100 * RES_TIP_SHARE, pct(t->lowest));
                line(v, "%sno tipping point %s %s — still scaling: %s", ind,
                     search_max > 0 ? "within" : "up to", last, low);
        }
        load_words(v->unit, j->load, last, sizeof(last));
        say_headroom(RES_RULE_NONE, j, NULL, room, sizeof(room));
        if (n > 1 && say_figures(fs, k, j, figures, sizeof(figures)))
                line(v, "%s  %s (the first step to the last)", ind, figures);
        if (room[0])
                line(v, "%s  left at %s: %s", ind, last, room);
        v->at[0] = k->load;
        v->at[1] = n > 1 ? j->load : NAN;
        tput_evidence(v, k, n > 1 ? j : NULL);
        if (n > 1 && isfinite(t->lowest)) {
                snprintf(r, sizeof(r), "≥ %.0f%% at every step: still scaling",
                         100 * RES_TIP_SHARE);
                add_ev(v, "lowest scaling efficiency", j->load, pct(t->lowest), "%", r, 1);
        }
        resource_evidence(v, k, n > 1 ? j : NULL, dec);
}

void res_trust_of_monitor(const json_t *monitor, struct res_trust *t)
{
        const json_t *sum = json_object_get(monitor, "summary");
        const char *why = json_string_value(json_object_get(sum, "reason"));

        memset(t, 0, sizeof(*t));
        t->untrusted = json_is_true(json_object_get(sum, "untrusted"));
        snprintf(t->why, sizeof(t->why), "%s", why && why[0] ? why : "CPU steal");
}

void res_trust_of_cluster(const json_t *steps, struct res_trust *t)
{
        const json_t *st, *h;
        size_t i, j;

        json_array_foreach(steps, i, st)
        {
                json_array_foreach(json_object_get(json_object_get(st, "cluster"), "hosts"), j, h)
                {
                        double steal = res_num(json_object_get(h, "cpu"), "steal");
                        const char *name = json_string_value(json_object_get(h, "name"));

                        if (t->untrusted || json_is_true(json_object_get(h, "controller")) ||
                            !(steal > RES_TRUST_STEAL_MEAN))
                                continue;
                        t->untrusted = 1;
                        snprintf(t->why, sizeof(t->why), "CPU steal %.1f%% on %s at %g VMs > %g%%",
                                 steal, name ? name : "a host", res_num(st, "vms"),
                                 RES_TRUST_STEAL_MEAN);
                }
        }
}

void res_verdict_build(const struct res_verdict_in *in, const struct res_tip *t,
                       const struct res_tip_step *s, unsigned n, struct res_verdict *v)
{
        const char *label = in->label && in->label[0] ? in->label : "tipping point";
        char ind[4] = "";

        memset(v, 0, sizeof(*v));
        v->at[0] = v->at[1] = NAN;
        snprintf(v->unit, sizeof(v->unit), "%s", in->unit ? in->unit : "VMs");
        snprintf(v->tput, sizeof(v->tput), "%s", in->tput ? in->tput : "TPS");
        if (in->trust && in->trust->untrusted) {
                snprintf(v->line[v->nlines++], RES_VERDICT_LINE,
                         "%s: UNTRUSTED run — the host monitor saw %s (another tenant's CPU): "
                         "the figures may be low",
                         label, in->trust->why);
                snprintf(ind, sizeof(ind), "  ");
        }
        if (!n || (t->found && (t->from < 0 || t->to < 0)) ||
            (t->undecided && (t->from < 0 || t->to < 0))) {
                line(v, "%sno step completed: no tipping point", ind);
        } else if (t->found) {
                found(v, ind, t, s);
        } else if (t->undecided) {
                undecided(v, ind, t, s);
        } else {
                still_scaling(v, ind, t, s, n, in->search_max);
        }
        /* the answer's first line starts "LABEL: " unless the trust line took that place */
        if (!ind[0] && v->nlines) {
                char first[2 * RES_VERDICT_LINE];

                snprintf(first, sizeof(first), "%.200s: %s", label, v->line[0]);
                memcpy(v->line[0], first, RES_VERDICT_LINE - 1);
                v->line[0][RES_VERDICT_LINE - 1] = '\0';
        }
}

int res_verdict_of_result(const json_t *result, struct res_tip *tip, struct res_verdict *v)
{
        const json_t *cfg = json_object_get(result, "config");
        struct res_trust trust;
        struct res_tip_step *sv = NULL;
        struct res_tip t;
        unsigned n = 0;
        struct res_verdict_in in = {json_string_value(json_object_get(cfg, "topology")), "VMs",
                                    &trust, res_num(json_object_get(result, "search"), "max"),
                                    "TPS"};

        if (res_tip_of_steps(json_object_get(result, "steps"), &sv, &n, &t) < 0)
                return -ENOMEM;
        if (isnan(in.search_max))
                in.search_max = 0;
        res_trust_of_monitor(json_object_get(result, "monitor"), &trust);
        res_trust_of_cluster(json_object_get(result, "steps"), &trust);
        res_verdict_build(&in, &t, sv, n, v);
        if (tip)
                *tip = t;
        free(sv);
        return 0;
}

size_t res_verdict_text(const struct res_verdict *v, char *buf, size_t len)
{
        size_t at = 0;

        if (len)
                buf[0] = '\0';
        for (unsigned i = 0; i < v->nlines && at < len; i++) {
                int k = snprintf(buf + at, len - at, "%s%s", i ? "\n" : "", v->line[i]);

                at += k > 0 ? (size_t)k : 0;
        }
        return at < len ? at : len ? len - 1 : 0;
}

json_t *res_verdict_evidence_json(const struct res_verdict *v)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < v->nev; i++) {
                const struct res_evidence *e = &v->ev[i];
                json_t *o = json_pack("{s:s,s:f,s:f,s:s,s:s,s:b}", "figure", e->figure, "at", e->at,
                                      "value", e->value, "unit", e->unit, "rule", e->rule,
                                      "decides", e->decides);

                if (!o || json_array_append_new(a, o)) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

int res_verdict_attach(json_t *tip, const struct res_verdict *v)
{
        char text[RES_VERDICT_LINES * (RES_VERDICT_LINE + 1)];
        json_t *ev = res_verdict_evidence_json(v);

        res_verdict_text(v, text, sizeof(text));
        if (!ev || json_object_set_new(tip, "verdict", json_string(text)) ||
            json_object_set_new(tip, "evidence", ev)) {
                json_decref(ev);
                return -ENOMEM;
        }
        return 0;
}

/* ---- the table ------------------------------------------------------------------- */

static int same(double a, double b)
{
        return fabs(a - b) <= 1e-9 * fmax(1, fabs(a));
}

/* The decimals a figure's value is shown with. */
static int dec_of(const char *figure)
{
        for (int f = 0; f < NFIG; f++)
                if (!strcmp(figs[f].name, figure))
                        return figs[f].dec;
        return 1;
}

unsigned res_verdict_rows(const struct res_verdict *v, struct res_ev_row *rows, unsigned max,
                          char head_k[48], char head_j[48])
{
        unsigned n = 0;

        memcpy(head_k, "at ", 4);
        memcpy(head_j, "at ", 4);
        if (isnan(v->at[0]))
                head_k[0] = '\0';
        else
                load_words(v->unit, v->at[0], head_k + 3, 45);
        if (isnan(v->at[1]))
                head_j[0] = '\0';
        else
                load_words(v->unit, v->at[1], head_j + 3, 45);
        for (unsigned i = 0; i < v->nev; i++) {
                const struct res_evidence *e = &v->ev[i];
                struct res_ev_row *r = NULL;
                char cell[40];

                for (unsigned k = 0; k < n; k++)
                        if (!strcmp(rows[k].figure, e->figure))
                                r = &rows[k];
                if (!r) {
                        if (n == max)
                                continue;
                        r = &rows[n++];
                        memset(r, 0, sizeof(*r));
                        r->figure = e->figure;
                        snprintf(r->k, sizeof(r->k), "-");
                        snprintf(r->j, sizeof(r->j), "-");
                }
                val_unit(e->unit, dec_of(e->figure), e->value, cell, sizeof(cell));
                if (same(e->at, v->at[0]) && !(same(e->at, v->at[1]) && r->k[0] != '-'))
                        memcpy(r->k, cell, sizeof(cell));
                else
                        memcpy(r->j, cell, sizeof(cell));
                if (e->rule[0])
                        snprintf(r->rule, sizeof(r->rule), "%s", e->rule);
                r->decides |= e->decides;
        }
        return n;
}

void res_verdict_print_table(const struct res_verdict *v, FILE *f, int indent)
{
        struct res_ev_row rows[RES_VERDICT_EV];
        char hk[48], hj[48];
        unsigned n = res_verdict_rows(v, rows, RES_VERDICT_EV, hk, hj);

        fprintf(f, "%*s%-34s %17s %17s  %s\n", indent, "", "figure", hk, hj, "rule it met");
        for (unsigned i = 0; i < n; i++)
                fprintf(f, "%*s%-34s %17s %17s  %s%s\n", indent, "", rows[i].figure, rows[i].k,
                        rows[i].j, rows[i].decides ? "* " : "", rows[i].rule);
        if (!n)
                fprintf(f, "%*s(no figures)\n", indent, "");
        else
                fprintf(f, "%*s(*) the figures the verdict cites\n", indent, "");
}
