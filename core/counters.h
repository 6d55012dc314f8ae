/*
 * counters.h - per-thread event counters without locks.
 *
 * Each worker owns one struct ctr_block (cache-line aligned, so two workers
 * never share a line). The owner adds with ctr_add(); a reporter thread
 * reads any block at any time with ctr_get(). Both are relaxed atomics:
 * a plain add on x86-64, and a reader never sees a torn value.
 */
#ifndef HCI_COUNTERS_H
#define HCI_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

#define CTR_MAX 16

struct ctr_block {
        _Alignas(64) _Atomic uint64_t v[CTR_MAX];
};

/* Owner thread only. */
static inline void ctr_add(struct ctr_block *c, unsigned i, uint64_t n)
{
        atomic_store_explicit(&c->v[i], atomic_load_explicit(&c->v[i], memory_order_relaxed) + n,
                              memory_order_relaxed);
}

/* Any thread. */
static inline uint64_t ctr_get(const struct ctr_block *c, unsigned i)
{
        return atomic_load_explicit(&c->v[i], memory_order_relaxed);
}

#endif
