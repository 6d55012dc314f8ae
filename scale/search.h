/*
 * search.h - the searching plan of `scale --vms auto[:MAX]`: which VM count
 * to measure next, so the tipping point is found in few steps.
 *
 * The search doubles the VM count (1, 2, 4, ... and MAX last) until the
 * tipping-point rule finds a tipping step T whose next measured count N
 * shows the gain collapse, then bisects on either side of T, asking the
 * rule again with every step so far after each step: first between T and
 * its measured neighbour below P, then between T and N, until both are at
 * most the resolution away. A wide step averages its gain over many VMs
 * and can hide a collapse that a full plan of every count would see, so
 * P..T is skipped only when it "scaled": it lost less than half a VM's
 * worth of TPS against linear scaling at the first step's per-VM TPS. For
 * the same reason, when MAX is reached with no tipping point, the highest
 * step that did not scale is bisected. The search ends without a tipping
 * point when no such step is left ("none within MAX VMs"). Every VM count
 * is measured once; the steps are then listed in VM order like any plan's.
 *
 * The rule is asked through search_tipping() alone, so a new definition of
 * the tipping point changes one function. Pure: no servers, no clock. Any
 * thread; nothing is kept between calls.
 */
#ifndef HCI_SCALE_SEARCH_H
#define HCI_SCALE_SEARCH_H

#include "results/tipping.h"

#define SEARCH_MAX_STEPS 128

struct search_cfg {
        unsigned max;        /* the largest VM count to try (>= 1) */
        unsigned resolution; /* stop when the tipping step and the next are this close (>= 1) */
};

/*
 * The tipping step's VM count as the search sees it, over n steps sorted by
 * VM count; 0 when the rule finds none or cannot decide within the noise
 * (res_tip_find of results/tipping.h).
 */
unsigned search_tipping(const struct res_tip_step *s, unsigned n);

/*
 * The next VM count to measure given the n valid steps measured so far
 * (load = VM count, tput = TPS), in any order (1 when n is 0), or 0 when
 * the search is over. At most
 * SEARCH_MAX_STEPS steps are looked at.
 */
unsigned search_next(const struct search_cfg *c, const struct res_tip_step *s, unsigned n);

/*
 * The most steps the search can take for c: the search run against every
 * possible answer (TPS that stops growing at 1, 2, ... MAX VMs, or never).
 */
unsigned search_max_steps(const struct search_cfg *c);

#endif
