/*
 * search.c - doubling, then bisection, between what the tipping-point rule
 * says (see search.h). The worst case is found by running the search
 * against synthetic plans, so it stays true whatever the rule becomes.
 */
#include "scale/search.h"

#include <stdlib.h>
#include <string.h>

#define VMS(s) ((unsigned)((s).load + 0.5))

unsigned search_tipping(const struct res_tip_step *s, unsigned n)
{
        struct res_tip t;

        res_tip_find(s, n, "VMs", &t);
        return t.found ? (unsigned)(t.load + 0.5) : 0;
}

static int by_vms(const void *a, const void *b)
{
        double x = ((const struct res_tip_step *)a)->load,
               y = ((const struct res_tip_step *)b)->load;

        return x < y ? -1 : x > y;
}

/* The measured neighbours of the tipping step tip among v[0..n): *below and *above (0: none). */
static void neighbours(const struct res_tip_step *v, unsigned n, unsigned tip, unsigned *below,
                       unsigned *above)
{
        *below = *above = 0;
        for (unsigned i = 0; i < n; i++) {
                if (VMS(v[i]) < tip)
                        *below = VMS(v[i]);
                else if (VMS(v[i]) > tip && !*above)
                        *above = VMS(v[i]);
        }
}

static const struct res_tip_step *at(const struct res_tip_step *v, unsigned n, unsigned vms)
{
        for (unsigned i = 0; i < n; i++)
                if (VMS(v[i]) == vms)
                        return &v[i];
        return NULL;
}

/* The step a..b (measured, a < b) lost less than half a VM's worth of TPS
 * against linear scaling at the first step's per-VM TPS: no collapse of one
 * VM's gain can hide in it. */
static int scaled(const struct res_tip_step *v, unsigned n, unsigned a, unsigned b)
{
        const struct res_tip_step *x = at(v, n, a), *y = at(v, n, b);
        double per_vm = VMS(v[0]) ? v[0].tput / VMS(v[0]) : 0;

        return x && y && y->tput - x->tput >= ((double)(b - a) - 0.5) * per_vm;
}

/*
 * MAX reached and no tipping point: a wide step that did not scale may
 * still hide a collapse that the rule sees only on a finer grid (a full
 * plan of every count). The highest such step is bisected; 0 when none.
 */
static unsigned sublinear(const struct search_cfg *c, const struct res_tip_step *v, unsigned n)
{
        for (unsigned i = n - 1; i > 0; i--) {
                unsigned gap = VMS(v[i]) - VMS(v[i - 1]);

                if (gap > c->resolution && !scaled(v, n, VMS(v[i - 1]), VMS(v[i])))
                        return VMS(v[i - 1]) + gap / 2;
        }
        return 0;
}

unsigned search_next(const struct search_cfg *c, const struct res_tip_step *s, unsigned n)
{
        struct res_tip_step v[SEARCH_MAX_STEPS];
        unsigned tip, last, below, above;

        if (!n)
                return 1;
        if (n > SEARCH_MAX_STEPS)
                return 0;
        memcpy(v, s, n * sizeof(*v));
        qsort(v, n, sizeof(v[0]), by_vms);
        last = VMS(v[n - 1]);
        tip = search_tipping(v, n);
        neighbours(v, n, tip, &below, &above);
        if (!tip || !above) { /* still scaling (or the peak is the last step): double */
                if (last < c->max)
                        return 2 * last < c->max ? 2 * last : c->max;
                return sublinear(c, v, n);
        }
        /* Below first: a wide step up to the tipping step averages its gain
         * over many VMs and can hide where the collapse began, unless it
         * scaled (nearly) as well as the first VM. */
        if (below && tip - below > c->resolution && !scaled(v, n, below, tip))
                return below + (tip - below) / 2;
        if (above - tip > c->resolution)
                return tip + (above - tip) / 2;
        return 0;
}

/* TPS that grows by 100 per VM up to stop VMs, then stays flat. */
static unsigned steps_against(const struct search_cfg *c, unsigned stop)
{
        struct res_tip_step s[SEARCH_MAX_STEPS] = {{0}};
        unsigned n = 0, vms;

        while (n < SEARCH_MAX_STEPS && (vms = search_next(c, s, n)) != 0) {
                res_tip_step_init(&s[n], vms, 100.0 * (vms < stop ? vms : stop));
                n++;
        }
        return n;
}

unsigned search_max_steps(const struct search_cfg *c)
{
        unsigned most = 0;

        for (unsigned stop = 1; stop <= c->max + 1; stop++) {
                unsigned k = steps_against(c, stop);

                if (k > most)
                        most = k;
        }
        return most;
}
