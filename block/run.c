/*
 * run.c - the block core loop.
 *
 * Workers keep their engine instance's queue at the point's depth; this file
 * does all timing and accounting around the engines, so every engine is
 * measured the same way. The hot path (worker_loop) allocates nothing and
 * takes no lock: each worker owns its histograms and counters, and the
 * controlling thread only reads relaxed atomics while a point runs and
 * merges the rest after joining the workers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "block/run.h"
#include "core/clock.h"
#include "core/counters.h"

const char *const blk_rw_names[] = {"randread", "randwrite", "randrw", "read", "write", NULL};

enum { C_RIOS, C_RBYTES, C_WIOS, C_WBYTES, C_RECONN, C_DONE /* every I/O of a point, ramp too */ };

#define STAMP_EVERY        512           /* bytes between two stamps of a plain write */
#define DRAIN_GRACE_NS     5000000000ull /* past --io-timeout before in-flight I/Os count as lost */
#define INTERRUPT_GRACE_NS 500000000ull  /* how long an interrupt still waits for in-flight I/Os */
#define HUGE_PAGE          (2u << 20)    /* a transparent huge page with 4 KiB base pages */

/* What a worker is doing: a measured point, or unmeasured housekeeping. */
enum wmode { WM_POINT, WM_FILL, WM_RANDFILL, WM_READBACK };

struct worker {
        struct blk_run *run;
        unsigned target;
        const struct blk_engine_ops *ops;
        void *inst;
        struct blk_geom geom;
        uint64_t reg_off, reg_len; /* this worker's part of the region */

        /* I/O slots: preallocated, recycled through a stack of free ones */
        struct blk_io *ios;
        unsigned nios;
        void *bufmem; /* one buffer per slot, for its reads and its writes alike */
        void **slotbuf;
        uint32_t *fresh; /* per slot: bytes at its buffer's start that hold random data */
        void *wsrc;      /* incompressible bytes that refill a stale slot's buffer */
        struct blk_io **freel;
        unsigned nfree;
        struct blk_io **done;
        struct iovec *iov; /* every slot buffer (registrable) */

        /* per phase */
        enum wmode mode;
        const struct blk_point_spec *p;
        uint32_t bs;
        unsigned depth;
        unsigned batch_submit, batch_min, batch_max; /* fio's iodepth_batch_* */
        uint64_t cursor, seq, rng, generation;
        /* Read by the controlling thread while the worker runs (run_phase). */
        _Atomic int exhausted;   /* the one-pass slice is done */
        _Atomic uint64_t issued; /* seq, published for the progress line */
        uint64_t qd_t;           /* clock reading of the last change of the in-flight count */
        uint64_t qd_area;        /* in-flight I/Os x ns inside the measured window */

        /* accounting, owned by the worker while it runs */
        struct ctr_block ctr;
        struct hist *hist[2];
        uint64_t errors[2], sense[2][16];
        uint64_t timeouts[2]; /* of errors: I/Os the target never answered (--io-timeout) */
        uint64_t vfy_checked, vfy_mismatches;
        unsigned nbad;
        struct vfy_bad bad[BLK_MAX_BAD];
        uint64_t *written; /* bitmap of written verify units of the slice */
        uint64_t reconn_base;

        _Atomic int failed; /* -errno; also read by the controlling thread while running */
        unsigned abandoned; /* I/Os still in flight when an interrupt cut the drain short */
        char error[256];
        pthread_t th;
};

struct blk_run {
        unsigned ntargets, nworkers;
        struct worker *w;
        struct blk_geom *geom;
        uint64_t *reg_off, *reg_len;
        struct blk_run_opts o;
        _Atomic int stop;
        _Atomic int interrupted;
        _Atomic int measure_told; /* blk_run_measure(): the ramp_until_told ramp ends */
        _Atomic int end_told;     /* blk_run_end(): the measured window closes */
        _Atomic int failures;
        _Atomic uint64_t measure_from, measure_until;
};

/* xorshift64*: fast, good enough for offsets, one state per worker. */
static inline uint64_t rng_next(uint64_t *s)
{
        uint64_t x = *s;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        *s = x;
        return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, n) without a division (Lemire's multiply-high). */
static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
        return (uint64_t)(((unsigned __int128)rng_next(s) * n) >> 64);
}

static void bitmap_mark(struct worker *w, uint64_t off, uint32_t len)
{
        uint64_t unit = w->geom.block_size;
        uint64_t first = (off - w->reg_off) / unit, n = len / unit;

        for (uint64_t i = first; i < first + n; i++)
                w->written[i / 64] |= 1ull << (i % 64);
}

static int bitmap_test(const struct worker *w, uint64_t off)
{
        uint64_t i = (off - w->reg_off) / w->geom.block_size;
        return (w->written[i / 64] >> (i % 64)) & 1;
}

/*
 * A plain write sends its slot's own buffer, as fio does: in-flight writes
 * come from as many distinct buffers as a real writer's would, not from one
 * hot pattern the CPU caches keep for the target to copy. The bytes are
 * random (copied in before a writing phase, and again when a read of a mixed
 * point overwrote them, so a read never turns the next write into zeros),
 * and every 512 bytes start with the sector's offset and the I/O's sequence
 * number, so no two blocks ever written are alike and a deduplicating target
 * stores each of them.
 */
static void plain_write_buf(struct worker *w, struct blk_io *io)
{
        char *b = io->buf;

        if (w->fresh[io->slot] < io->len) {
                memcpy(b, w->wsrc, io->len);
                w->fresh[io->slot] = io->len;
        }
        for (uint32_t o = 0; o + 16 <= io->len; o += STAMP_EVERY) {
                uint64_t stamp[2] = {io->offset + o, w->seq};
                memcpy(b + o, stamp, sizeof(stamp));
        }
}

/* Before a phase of plain writes: random bytes in every slot whose buffer does not hold them,
 * so the phase's first writes pay for no copy. Read-only phases leave buffers untouched. */
static void refill_stale(struct worker *w, enum wmode mode, const struct blk_point_spec *p)
{
        int writes = mode == WM_FILL || mode == WM_RANDFILL ||
                     (mode == WM_POINT && p->rw != BLK_RW_READ && p->rw != BLK_RW_RANDREAD);

        if (!writes || w->generation)
                return;
        for (unsigned i = 0; i < w->nios; i++) {
                if (w->fresh[i] < w->bs) {
                        memcpy(w->slotbuf[i], w->wsrc, w->bs);
                        w->fresh[i] = w->bs;
                }
        }
}

/* Pick the next I/O of the current phase; 0 when a one-pass phase is done. */
static int next_io(struct worker *w, struct blk_io *io)
{
        const struct blk_point_spec *p = w->p;
        uint64_t nblk = w->reg_len / w->bs;
        int random = 0, write = 0;

        switch (w->mode) {
        case WM_POINT:
                random =
                    p->rw == BLK_RW_RANDREAD || p->rw == BLK_RW_RANDWRITE || p->rw == BLK_RW_RANDRW;
                write = p->rw == BLK_RW_RANDWRITE || p->rw == BLK_RW_WRITE;
                if (p->rw == BLK_RW_RANDRW)
                        write = rng_below(&w->rng, 100) >= p->rwmixread;
                break;
        case WM_RANDFILL:
                random = write = 1;
                break;
        case WM_FILL:
                write = 1;
                break;
        case WM_READBACK:
                break;
        }
        if (random) {
                io->offset = w->reg_off + rng_below(&w->rng, nblk) * w->bs;
        } else {
                if (w->cursor + w->bs > w->reg_len) {
                        if (w->mode != WM_POINT)
                                return 0;
                        w->cursor = 0;
                }
                io->offset = w->reg_off + w->cursor;
                w->cursor += w->bs;
        }
        io->len = w->bs;
        io->ddir = write ? BLK_WRITE : BLK_READ;
        io->error = 0;
        io->sense_key = 0;
        io->buf = w->slotbuf[io->slot];
        io->buf_index = io->slot;
        if (write && w->generation) {
                vfy_fill(io->buf, io->len, w->geom.block_size, io->offset, w->generation, w->seq);
                w->fresh[io->slot] = 0;
        } else if (write) {
                plain_write_buf(w, io);
        } else {
                w->fresh[io->slot] = 0; /* a read lands here */
        }
        w->seq++;
        atomic_store_explicit(&w->issued, w->seq, memory_order_relaxed);
        return 1;
}

static void note_bad(struct worker *w, const struct vfy_bad *bad, unsigned n)
{
        for (unsigned i = 0; i < n && w->nbad < BLK_MAX_BAD; i++)
                w->bad[w->nbad++] = bad[i];
}

/* Check a read against the stamps: all units (pure read point), or only the units we wrote. */
static void check_read(struct worker *w, struct blk_io *io)
{
        uint32_t unit = w->geom.block_size;
        struct vfy_bad bad[BLK_MAX_BAD];
        unsigned n;

        if (w->mode == WM_POINT) {
                n = vfy_check(io->buf, io->len, unit, io->offset, 0, bad, BLK_MAX_BAD);
                w->vfy_checked += io->len / unit;
                w->vfy_mismatches += n;
                note_bad(w, bad, n < BLK_MAX_BAD ? n : BLK_MAX_BAD);
                return;
        }
        for (uint32_t o = 0; o < io->len; o += unit) {
                if (!bitmap_test(w, io->offset + o))
                        continue;
                w->vfy_checked++;
                n = vfy_check((char *)io->buf + o, unit, unit, io->offset + o, w->generation, bad,
                              1);
                if (n) {
                        w->vfy_mismatches++;
                        note_bad(w, bad, 1);
                }
        }
}

static void complete(struct worker *w, struct blk_io *io, uint64_t now, uint64_t from,
                     uint64_t until)
{
        unsigned d = io->ddir;

        /*
         * A failed I/O counts whenever it comes back after the ramp, also
         * during the drain: a command that timed out fails only after the
         * point's window has closed, and it is exactly the error to report.
         */
        if (io->error) {
                if (w->mode != WM_POINT || now >= from) {
                        w->errors[d]++;
                        w->sense[d][io->sense_key & 15]++;
                        w->timeouts[d] += io->error == -ETIMEDOUT;
                }
                return;
        }
        if (w->written && d == BLK_WRITE)
                bitmap_mark(w, io->offset, io->len);
        if (w->mode == WM_READBACK ||
            (w->mode == WM_POINT && w->p->verify &&
             (w->p->rw == BLK_RW_READ || w->p->rw == BLK_RW_RANDREAD) && d == BLK_READ))
                check_read(w, io);
        if (w->mode == WM_POINT)
                ctr_add(&w->ctr, C_DONE, 1);
        if (w->mode != WM_POINT || now < from || now > until)
                return;
        hist_record(w->hist[d], now - io->t_start);
        ctr_add(&w->ctr, d == BLK_READ ? C_RIOS : C_WIOS, 1);
        ctr_add(&w->ctr, d == BLK_READ ? C_RBYTES : C_WBYTES, io->len);
}

static void worker_fail(struct worker *w, int rc)
{
        const char *why = w->ops->last_error ? w->ops->last_error(w->inst) : NULL;
        uint64_t tmo = w->timeouts[0] + w->timeouts[1];

        if (rc == -ETIMEDOUT && tmo)
                snprintf(w->error, sizeof(w->error),
                         "%llu I/O(s) not answered within %llu s (--io-timeout)",
                         (unsigned long long)tmo,
                         (unsigned long long)(w->run->o.io_timeout_ns / 1000000000ull));
        else
                snprintf(w->error, sizeof(w->error), "%s", why && *why ? why : strerror(-rc));
        w->failed = rc;
        atomic_fetch_add(&w->run->failures, 1);
}

/*
 * The time-weighted queue depth: the in-flight count was `inflight` from the
 * last change until now; add the part of that inside the measured window.
 */
static void depth_advance(struct worker *w, unsigned inflight, uint64_t now)
{
        struct blk_run *r = w->run;
        uint64_t from = atomic_load_explicit(&r->measure_from, memory_order_relaxed);
        uint64_t until = atomic_load_explicit(&r->measure_until, memory_order_relaxed);
        uint64_t a = w->qd_t > from ? w->qd_t : from, b = now < until ? now : until;

        if (b > a)
                w->qd_area += (uint64_t)inflight * (b - a);
        w->qd_t = now;
}

/*
 * Fill the queue up to depth; returns the new in-flight count. now is the
 * clock reading that found the free slots (the reap's, right after one):
 * the new I/Os count from it, so a slot the loop refills at once never
 * shows as idle, and one it leaves empty does.
 */
static unsigned fill_queue(struct worker *w, unsigned inflight, uint64_t now, int *rc)
{
        struct blk_run *r = w->run;
        unsigned batched = 0;
        int sync = 0;

        /*
         * An asynchronous engine's refill is bounded by the depth, so it
         * completes even when the point is ending: the reap that follows
         * then closes the in-flight count at the end of the window. Only
         * synchronous engines, which never fill up, must check for the end.
         */
        depth_advance(w, inflight, now);
        while (inflight < w->depth && w->nfree &&
               !(sync && atomic_load_explicit(&r->stop, memory_order_relaxed))) {
                struct blk_io *io = w->freel[--w->nfree];
                enum blk_qres q;

                if (!next_io(w, io)) {
                        w->freel[w->nfree++] = io;
                        w->exhausted = 1;
                        break;
                }
                io->t_start = now;
                q = w->ops->queue(w->inst, io);
                if (q == BLK_Q_QUEUED) {
                        inflight++;
                        /*
                         * The I/O that fills the queue is not pushed on its
                         * own: the reap that follows pushes it in the call
                         * that waits, one system call fewer per refill.
                         */
                        if (w->batch_submit && ++batched >= w->batch_submit && w->ops->commit &&
                            inflight < w->depth && w->nfree) {
                                batched = 0;
                                if ((*rc = w->ops->commit(w->inst)) < 0)
                                        break;
                        }
                } else if (q == BLK_Q_COMPLETED) {
                        /* a synchronous I/O: in flight while queue() ran */
                        sync = 1;
                        now = clk_now_ns();
                        depth_advance(w, inflight + 1, now);
                        complete(w, io, now,
                                 atomic_load_explicit(&r->measure_from, memory_order_relaxed),
                                 atomic_load_explicit(&r->measure_until, memory_order_relaxed));
                        w->freel[w->nfree++] = io;
                } else {
                        w->freel[w->nfree++] = io;
                        w->seq--;
                        atomic_store_explicit(&w->issued, w->seq, memory_order_relaxed);
                        if (w->cursor >= w->bs && io->offset == w->reg_off + w->cursor - w->bs)
                                w->cursor -= w->bs; /* retry the same sequential block */
                        break;
                }
        }
        return inflight;
}

/* Reap completions (and push what is batched); *now is the clock reading after the reap. */
static int reap_some(struct worker *w, unsigned *inflight, int timeout_ms, uint64_t *now_out)
{
        struct blk_run *r = w->run;
        unsigned min = w->batch_min < *inflight ? w->batch_min : *inflight;
        int n = w->ops->reap(w->inst, min ? min : 1, w->batch_max, w->done, timeout_ms);
        uint64_t now = clk_now_ns();
        uint64_t from = atomic_load_explicit(&r->measure_from, memory_order_relaxed);
        uint64_t until = atomic_load_explicit(&r->measure_until, memory_order_relaxed);

        *now_out = now;
        if (n < 0)
                return n;
        depth_advance(w, *inflight, now);
        for (int i = 0; i < n; i++) {
                complete(w, w->done[i], now, from, until);
                w->freel[w->nfree++] = w->done[i];
        }
        *inflight -= (unsigned)n;
        if (w->ops->stats) {
                struct blk_eng_stats st = {0};
                w->ops->stats(w->inst, &st);
                if (st.reconnects > w->reconn_base + ctr_get(&w->ctr, C_RECONN))
                        ctr_add(&w->ctr, C_RECONN,
                                st.reconnects - w->reconn_base - ctr_get(&w->ctr, C_RECONN));
        }
        return 0;
}

/*
 * Every queued I/O comes back before the buffers are reused: wait up to the
 * I/O timeout and a grace (engines without their own timeout fail here),
 * but after an interrupt only briefly. What is still out then stays with
 * the engine (close() cancels it) and no phase runs on this worker again.
 */
static int drain(struct worker *w, unsigned *inflight, int rc)
{
        struct blk_run *r = w->run;
        uint64_t now = clk_now_ns(), deadline = now + r->o.io_timeout_ns + DRAIN_GRACE_NS;
        int cut = 0;

        while (rc >= 0 && *inflight > 0 && (now = clk_now_ns()) < deadline) {
                if (!cut && atomic_load(&r->interrupted)) {
                        cut = 1;
                        if (deadline > now + INTERRUPT_GRACE_NS)
                                deadline = now + INTERRUPT_GRACE_NS;
                }
                rc = reap_some(w, inflight, 50, &now);
        }
        if (rc >= 0 && *inflight > 0 && atomic_load(&r->interrupted)) {
                w->abandoned = *inflight;
                return rc;
        }
        if (rc >= 0 && *inflight > 0) {
                /* never answered within the timeout: timed-out errors of this point */
                w->errors[BLK_READ] += *inflight;
                w->timeouts[BLK_READ] += *inflight;
                rc = -ETIMEDOUT;
        }
        return rc;
}

static void *worker_loop(void *arg)
{
        struct worker *w = arg;
        struct blk_run *r = w->run;
        unsigned inflight = 0;
        uint64_t now = clk_now_ns();
        int rc = 0;

        w->qd_t = now;
        for (;;) {
                /* refill before looking at stop: the drain's reap then ends the window */
                inflight = fill_queue(w, inflight, now, &rc);
                if (rc < 0 || atomic_load_explicit(&r->stop, memory_order_relaxed))
                        break;
                if (inflight == 0) {
                        if (w->exhausted)
                                break;
                        now = clk_now_ns();
                        continue;
                }
                /* one system call pushes the refill and waits for completions */
                if ((rc = reap_some(w, &inflight, 100, &now)) < 0)
                        break;
                if (w->timeouts[0] + w->timeouts[1]) {
                        rc = -ETIMEDOUT;
                        break;
                }
        }
        rc = drain(w, &inflight, rc);
        if (rc >= 0 && w->timeouts[0] + w->timeouts[1])
                rc = -ETIMEDOUT;
        if (rc < 0)
                worker_fail(w, rc);
        return NULL;
}

static void worker_free(struct worker *w)
{
        if (w->inst)
                w->ops->close(w->inst);
        free(w->ios);
        free(w->bufmem);
        free(w->slotbuf);
        free(w->fresh);
        free(w->wsrc);
        free(w->freel);
        free(w->done);
        free(w->iov);
        free(w->written);
        hist_free(w->hist[0]);
        hist_free(w->hist[1]);
}

/* Fill write buffers with incompressible bytes once, so no I/O pays for it. */
static void fill_random(void *buf, size_t len, uint64_t seed)
{
        uint64_t *p = buf;
        for (size_t i = 0; i < len / 8; i++)
                p[i] = rng_next(&seed);
}

/*
 * The slot buffers, in transparent huge pages where the kernel gives them
 * (madvise mode included). A direct I/O is cut into one segment per
 * physically contiguous run of its buffer: with 4 KiB pages scattered over
 * memory a 1 MiB write has 256 segments, more than a virtio disk takes in
 * one request (max_segments 254 here), so the block layer splits it in two
 * and cannot merge it with its neighbours. fio's buffers, faulted in one
 * by one at its start in a process of their own, happen to lie mostly
 * contiguous; huge pages make it so rather than leave it to chance.
 */
static int slot_buffers_alloc(void **out, size_t len)
{
        if (len < HUGE_PAGE / 2)
                return posix_memalign(out, 4096, len) ? -ENOMEM : 0;
        /* whole huge pages, so that the last slots get one too */
        len = (len + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        if (posix_memalign(out, HUGE_PAGE, len))
                return -ENOMEM;
        (void)madvise(*out, len, MADV_HUGEPAGE); /* a hint: 4 KiB pages still work */
        return 0;
}

static int worker_alloc(struct worker *w, const struct blk_run_opts *o, char *err, size_t errlen)
{
        size_t bufsz = o->max_bs;

        w->nios = o->max_depth;
        w->ios = calloc(w->nios, sizeof(*w->ios));
        w->freel = calloc(w->nios, sizeof(*w->freel));
        w->done = calloc(w->nios, sizeof(*w->done));
        w->slotbuf = calloc(w->nios, sizeof(*w->slotbuf));
        w->iov = calloc(w->nios, sizeof(*w->iov));
        w->fresh = calloc(w->nios, sizeof(*w->fresh)); /* filled by the first phase that writes */
        w->hist[0] = hist_new();
        w->hist[1] = hist_new();
        if (!w->ios || !w->freel || !w->done || !w->slotbuf || !w->iov || !w->hist[0] ||
            !w->hist[1] || !w->fresh || slot_buffers_alloc(&w->bufmem, bufsz * w->nios) ||
            posix_memalign(&w->wsrc, 4096, bufsz)) {
                snprintf(err, errlen, "out of memory for %u I/O buffers of %zu bytes", w->nios,
                         bufsz);
                return -ENOMEM;
        }
        fill_random(w->wsrc, bufsz, (uint64_t)(uintptr_t)w | 1);
        for (unsigned i = 0; i < w->nios; i++) {
                w->slotbuf[i] = (char *)w->bufmem + i * bufsz;
                w->ios[i].buf = w->slotbuf[i];
                w->ios[i].slot = i;
                w->freel[i] = &w->ios[i];
                w->iov[i] = (struct iovec){w->slotbuf[i], bufsz};
        }
        w->nfree = w->nios;
        w->rng = clk_now_ns() ^ ((uint64_t)(uintptr_t)w << 17) ^ 0x9E3779B97F4A7C15ull;
        return 0;
}

/* Decide the region of target i from --offset/--size and check it fits. */
static int set_region(struct blk_run *r, unsigned i, const struct blk_target_spec *t, char *err,
                      size_t errlen)
{
        const struct blk_geom *g = &r->geom[i];
        uint64_t off = r->o.offset, len = r->o.size;

        if (off % g->block_size) {
                snprintf(err, errlen,
                         "option --offset: %llu is not a multiple of %s's block size %u",
                         (unsigned long long)off, t->label, g->block_size);
                return -EINVAL;
        }
        if (len == 0)
                len = off < g->size ? g->size - off : 0;
        if (off + len > g->size || len == 0) {
                snprintf(
                    err, errlen,
                    "option --size/--offset: region %llu+%llu is past the end of %s (%llu bytes)",
                    (unsigned long long)off, (unsigned long long)len, t->label,
                    (unsigned long long)g->size);
                return -EINVAL;
        }
        r->reg_off[i] = off;
        r->reg_len[i] = len - len % g->block_size;
        return 0;
}

static int open_worker(struct blk_run *r, struct worker *w, const struct blk_target_spec *t,
                       unsigned session, char *err, size_t errlen)
{
        struct blk_open_args a = {
            .path = t->path,
            .depth = r->o.max_depth,
            .direct = r->o.direct,
            .writable = r->o.writable,
            .create_size_ok = r->o.create_size > 0,
            .create_size = r->o.create_size,
            .initiator = r->o.initiator,
            .session = session,
            .io_timeout_ms = (unsigned)(r->o.io_timeout_ns / 1000000ull),
            .chap_secret = r->o.chap_secret,
            .chap_target_secret = r->o.chap_target_secret,
            .flags = r->o.engine_flags,
        };
        char eerr[512] = "";
        int rc;

        w->run = r;
        w->ops = t->ops;
        /* buffers first, so the engine may register them at open */
        if ((rc = worker_alloc(w, &r->o, err, errlen)) < 0)
                return rc;
        a.bufs = w->iov;
        a.nbufs = w->nios;
        rc = t->ops->open(&a, &w->inst, &w->geom, eerr, sizeof(eerr));
        if (rc < 0) {
                w->inst = NULL;
                snprintf(err, errlen, "%s: %s", t->label, eerr[0] ? eerr : strerror(-rc));
                return rc;
        }
        return 0;
}

int blk_run_open(struct blk_run **out, const struct blk_target_spec *t, unsigned ntargets,
                 const struct blk_run_opts *o, struct blk_geom *geoms, char *err, size_t errlen)
{
        struct blk_run *r = calloc(1, sizeof(*r));
        unsigned per = o->workers_per_target ? o->workers_per_target : 1;
        int rc = -ENOMEM;

        if (!r)
                goto nomem;
        r->o = *o;
        if (!r->o.io_timeout_ns)
                r->o.io_timeout_ns = BLK_IO_TIMEOUT_DEFAULT_NS;
        r->ntargets = ntargets;
        r->nworkers = ntargets * per;
        r->w = calloc(r->nworkers, sizeof(*r->w));
        r->geom = calloc(ntargets, sizeof(*r->geom));
        r->reg_off = calloc(ntargets, sizeof(uint64_t));
        r->reg_len = calloc(ntargets, sizeof(uint64_t));
        if (!r->w || !r->geom || !r->reg_off || !r->reg_len)
                goto nomem;
        for (unsigned i = 0; i < ntargets; i++) {
                for (unsigned s = 0; s < per; s++) {
                        struct worker *w = &r->w[i * per + s];
                        w->target = i;
                        rc = open_worker(r, w, &t[i], s, err, errlen);
                        if (rc < 0)
                                goto fail;
                }
                r->geom[i] = r->w[i * per].geom;
                geoms[i] = r->geom[i];
                if ((rc = set_region(r, i, &t[i], err, errlen)) < 0)
                        goto fail;
                for (unsigned s = 0; s < per; s++) {
                        struct worker *w = &r->w[i * per + s];
                        uint64_t slice = r->reg_len[i];
                        if (o->split_region)
                                slice = (slice / per) - (slice / per) % o->max_bs;
                        if (slice < o->max_bs) {
                                snprintf(err, errlen,
                                         "option --size: %s's region is too small for %u workers "
                                         "of %u-byte blocks",
                                         t[i].label, per, o->max_bs);
                                rc = -EINVAL;
                                goto fail;
                        }
                        w->reg_off = r->reg_off[i] + (o->split_region ? slice * s : 0);
                        w->reg_len = slice;
                }
        }
        *out = r;
        return 0;
nomem:
        snprintf(err, errlen, "out of memory");
fail:
        blk_run_close(r);
        return rc;
}

void blk_run_region(const struct blk_run *r, unsigned target, uint64_t *offset, uint64_t *len)
{
        *offset = r->reg_off[target];
        *len = r->reg_len[target];
}

/* One synchronous I/O through a worker's instance, outside any phase. */
static int sync_io(struct worker *w, int ddir, uint64_t off, uint32_t len)
{
        struct blk_io *io = &w->ios[0], *done[1];
        enum blk_qres q;

        io->buf = w->slotbuf[0];
        io->buf_index = 0;
        w->fresh[0] = 0;
        io->offset = off;
        io->len = len;
        io->ddir = (uint8_t)ddir;
        io->error = 0;
        q = w->ops->queue(w->inst, io);
        if (q == BLK_Q_BUSY)
                return -EBUSY;
        if (q == BLK_Q_QUEUED) {
                int n;
                if (w->ops->commit && (n = w->ops->commit(w->inst)) < 0)
                        return n;
                for (int tries = 0; tries < 300; tries++) {
                        n = w->ops->reap(w->inst, 1, 1, done, 100);
                        if (n < 0)
                                return n;
                        if (n == 1)
                                return io->error;
                }
                return -ETIMEDOUT;
        }
        return io->error;
}

int blk_run_read_head(struct blk_run *r, unsigned target, void *buf, uint32_t len, char *err,
                      size_t errlen)
{
        struct worker *w = &r->w[target * (r->nworkers / r->ntargets)];
        int rc;

        if (len > r->o.max_bs)
                len = r->o.max_bs;
        len -= len % w->geom.block_size;
        if ((uint64_t)len > w->geom.size)
                len = (uint32_t)(w->geom.size - w->geom.size % w->geom.block_size);
        if (len == 0)
                return 0;
        rc = sync_io(w, BLK_READ, 0, len);
        if (rc < 0) {
                snprintf(err, errlen, "reading the first %u bytes: %s", len, strerror(-rc));
                return rc;
        }
        memcpy(buf, w->slotbuf[0], len);
        return (int)len;
}

static void phase_reset(struct worker *w, enum wmode mode, const struct blk_point_spec *p,
                        uint32_t bs, unsigned depth, uint64_t generation)
{
        struct blk_eng_stats st = {0};

        w->mode = mode;
        w->p = p;
        w->bs = bs;
        w->depth = depth < w->nios ? depth : w->nios;
        w->batch_submit = mode == WM_POINT ? p->batch_submit : 0;
        w->batch_min = mode == WM_POINT && p->batch_complete_min ? p->batch_complete_min : 1;
        w->batch_max = mode == WM_POINT && p->batch_complete_max ? p->batch_complete_max : w->nios;
        if (w->batch_max > w->nios)
                w->batch_max = w->nios;
        w->qd_area = 0;
        w->cursor = 0;
        w->exhausted = 0;
        w->generation = generation;
        for (unsigned i = 0; i < CTR_MAX; i++)
                atomic_store_explicit(&w->ctr.v[i], 0, memory_order_relaxed);
        hist_reset(w->hist[0]);
        hist_reset(w->hist[1]);
        memset(w->errors, 0, sizeof(w->errors));
        memset(w->sense, 0, sizeof(w->sense));
        memset(w->timeouts, 0, sizeof(w->timeouts));
        w->vfy_checked = w->vfy_mismatches = 0;
        w->nbad = 0;
        refill_stale(w, mode, p);
        if (w->ops->stats)
                w->ops->stats(w->inst, &st);
        w->reconn_base = st.reconnects;
}

static int start_workers(struct blk_run *r)
{
        for (unsigned i = 0; i < r->nworkers; i++)
                if (r->w[i].abandoned)
                        return -EINTR; /* its engine still owns buffers of the last phase */
        atomic_store(&r->stop, 0);
        atomic_store(&r->failures, 0);
        for (unsigned i = 0; i < r->nworkers; i++) {
                int rc = pthread_create(&r->w[i].th, NULL, worker_loop, &r->w[i]);
                if (rc) {
                        atomic_store(&r->stop, 1);
                        for (unsigned j = 0; j < i; j++)
                                pthread_join(r->w[j].th, NULL);
                        return -rc;
                }
        }
        return 0;
}

static void join_workers(struct blk_run *r)
{
        atomic_store(&r->stop, 1);
        for (unsigned i = 0; i < r->nworkers; i++)
                pthread_join(r->w[i].th, NULL);
}

static uint64_t sum_ctr(const struct blk_run *r, unsigned c)
{
        uint64_t s = 0;
        for (unsigned i = 0; i < r->nworkers; i++)
                s += ctr_get(&r->w[i].ctr, c);
        return s;
}

static int should_end(struct blk_run *r)
{
        return atomic_load(&r->interrupted) || atomic_load(&r->failures) > 0;
}

/* The point's measured window is over early: interrupted, failed or told to end. */
static int window_over(struct blk_run *r)
{
        return should_end(r) || atomic_load(&r->end_told);
}

/* Sleep until t (ns) in short steps so an interrupt, a lost session or an end ends it early. */
static void wait_until(struct blk_run *r, uint64_t t)
{
        for (uint64_t now = clk_now_ns(); now < t && !window_over(r); now = clk_now_ns())
                clk_sleep_ns(t - now < 50000000ull ? t - now : 50000000ull);
}

static double cpu_seconds(int user)
{
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        const struct timeval *tv = user ? &ru.ru_utime : &ru.ru_stime;
        return tv->tv_sec + tv->tv_usec / 1e6;
}

static void take_interval(struct blk_run *r, struct blk_point_result *res, uint64_t *last,
                          uint64_t now)
{
        static const unsigned cs[] = {C_RIOS, C_WIOS, C_RBYTES, C_WBYTES, C_RECONN};
        uint64_t cur[5];
        struct blk_interval *iv;

        for (unsigned i = 0; i < 5; i++)
                cur[i] = sum_ctr(r, cs[i]);
        if (res->nintervals < BLK_MAX_INTERVALS) {
                iv = &res->iv[res->nintervals++];
                iv->t = (now - res->t_start_ns) / 1e9;
                iv->ios[0] = cur[0] - last[0];
                iv->ios[1] = cur[1] - last[1];
                iv->bytes[0] = cur[2] - last[2];
                iv->bytes[1] = cur[3] - last[3];
                iv->reconnects = cur[4] - last[4];
        }
        memcpy(last, cur, sizeof(cur));
}

static void merge_target(struct blk_target_result *dst, const struct worker *w)
{
        for (unsigned d = 0; d < 2; d++) {
                dst->dir[d].ios += ctr_get(&w->ctr, d ? C_WIOS : C_RIOS);
                dst->dir[d].bytes += ctr_get(&w->ctr, d ? C_WBYTES : C_RBYTES);
                dst->dir[d].errors += w->errors[d];
                dst->dir[d].timeouts += w->timeouts[d];
                for (unsigned k = 0; k < 16; k++)
                        dst->dir[d].sense[k] += w->sense[d][k];
                hist_merge(dst->dir[d].hist, w->hist[d]);
        }
        dst->reconnects += ctr_get(&w->ctr, C_RECONN);
        dst->inflight_ns += (double)w->qd_area;
        dst->njobs++;
        dst->vfy_checked += w->vfy_checked;
        dst->vfy_mismatches += w->vfy_mismatches;
        for (unsigned i = 0; i < w->nbad && dst->nbad < BLK_MAX_BAD; i++)
                dst->bad[dst->nbad++] = w->bad[i];
        if (w->failed && !dst->failed) {
                dst->failed = w->failed;
                snprintf(dst->error, sizeof(dst->error), "%s", w->error);
        }
}

static int target_result_init(struct blk_target_result *t)
{
        memset(t, 0, sizeof(*t));
        t->dir[0].hist = hist_new();
        t->dir[1].hist = hist_new();
        return t->dir[0].hist && t->dir[1].hist ? 0 : -ENOMEM;
}

static void target_result_fini(struct blk_target_result *t)
{
        hist_free(t->dir[0].hist);
        hist_free(t->dir[1].hist);
}

static int result_alloc(struct blk_run *r, struct blk_point_result *res)
{
        memset(res, 0, sizeof(*res));
        res->ntargets = r->ntargets;
        res->t = calloc(r->ntargets, sizeof(*res->t));
        res->iv = calloc(BLK_MAX_INTERVALS, sizeof(*res->iv));
        if (!res->t || !res->iv)
                return -ENOMEM;
        for (unsigned i = 0; i < r->ntargets; i++)
                if (target_result_init(&res->t[i]))
                        return -ENOMEM;
        return target_result_init(&res->all);
}

static int collect(struct blk_run *r, struct blk_point_result *res)
{
        unsigned per = r->nworkers / r->ntargets;
        int rc = 0;

        for (unsigned i = 0; i < r->nworkers; i++) {
                merge_target(&res->t[i / per], &r->w[i]);
                merge_target(&res->all, &r->w[i]);
                if (r->w[i].failed)
                        rc = r->w[i].failed;
        }
        return rc;
}

/* Bitmaps of written units exist only while verifying writes. */
static int ensure_bitmaps(struct blk_run *r)
{
        for (unsigned i = 0; i < r->nworkers; i++) {
                struct worker *w = &r->w[i];
                uint64_t units = w->reg_len / w->geom.block_size;
                if (w->written) {
                        memset(w->written, 0, (units + 63) / 64 * 8);
                        continue;
                }
                w->written = calloc((units + 63) / 64, 8);
                if (!w->written)
                        return -ENOMEM;
        }
        return 0;
}

/* --target-ci: the steady-state rule, fed one IOPS sample every STEADY_SAMPLE_S. */
struct point_steady {
        struct steady *st;
        uint64_t next, prev, done;
};

static int steady_open(struct point_steady *b, const struct blk_point_spec *p, uint64_t t0)
{
        double run = (double)p->run_ns / 1e9, ramp = (double)p->ramp_ns / 1e9;
        struct steady_cfg c = {.target_ci_pct = p->target_ci_pct,
                               .sample_s = STEADY_SAMPLE_S,
                               .warmup_max_s = ramp > 0 ? ramp : run / 2,
                               .measure_max_s = run};

        memset(b, 0, sizeof(*b));
        if (p->target_ci_pct <= 0)
                return 0;
        b->prev = t0;
        b->next = t0 + (uint64_t)(STEADY_SAMPLE_S * 1e9);
        return (b->st = steady_new(&c)) ? 0 : -ENOMEM;
}

/* Wait for the next sample (or the end of the point) and hand it to the rule. */
static enum steady_phase steady_sample(struct blk_run *r, struct point_steady *b)
{
        uint64_t now, done;

        wait_until(r, b->next);
        now = clk_now_ns();
        done = sum_ctr(r, C_DONE);
        steady_add(b->st, (double)(done - b->done) * 1e9 / (double)(now - b->prev));
        b->done = done;
        b->prev = now;
        b->next = now + (uint64_t)(STEADY_SAMPLE_S * 1e9);
        return steady_phase(b->st);
}

/* The ramp: fixed, or until the rule ends the warm-up. */
static void ramp(struct blk_run *r, const struct blk_point_spec *p, struct point_steady *b,
                 uint64_t t0)
{
        if (b->st) {
                while (!should_end(r) && steady_sample(r, b) == STEADY_WARMUP)
                        ;
                atomic_store(&r->measure_from, clk_now_ns());
        } else if (p->ramp_until_told) {
                while (!window_over(r) && !atomic_load(&r->measure_told) &&
                       (!p->ramp_ns || clk_now_ns() < t0 + p->ramp_ns))
                        clk_sleep_ns(5000000ull);
                atomic_store(&r->measure_from, clk_now_ns());
        } else if (p->ramp_ns) {
                wait_until(r, t0 + p->ramp_ns);
                atomic_store(&r->measure_from, clk_now_ns());
        }
}

void blk_run_measure(struct blk_run *r)
{
        atomic_store(&r->measure_told, 1);
}

void blk_run_end(struct blk_run *r)
{
        atomic_store(&r->end_told, 1);
}

uint64_t blk_run_done_ios(const struct blk_run *r)
{
        return sum_ctr(r, C_DONE);
}

/* Until t, taking the rule's samples on the way; the time the rule ended the point, or 0. */
static uint64_t steady_until(struct blk_run *r, struct point_steady *b, uint64_t t)
{
        while (b->st && b->next < t && !should_end(r))
                if (steady_sample(r, b) == STEADY_DONE)
                        return b->prev;
        return 0;
}

int blk_run_point(struct blk_run *r, const struct blk_point_spec *p, struct blk_point_result *res,
                  blk_progress_fn prog, void *user)
{
        struct point_steady sb;
        uint64_t last[5] = {0}, t0, next, end;
        double u0, s0;
        int rc, writes = p->rw != BLK_RW_READ && p->rw != BLK_RW_RANDREAD;

        if ((rc = result_alloc(r, res)) < 0)
                return rc;
        if (p->verify && writes && (rc = ensure_bitmaps(r)) < 0)
                return rc;
        for (unsigned i = 0; i < r->nworkers; i++) {
                phase_reset(&r->w[i], WM_POINT, p, p->bs, p->iodepth,
                            p->verify && writes ? p->generation : 0);
                if (!(p->verify && writes)) {
                        free(r->w[i].written);
                        r->w[i].written = NULL;
                }
        }
        t0 = clk_now_ns();
        res->warm_ms = clk_real_ms();
        if ((rc = steady_open(&sb, p, t0)) < 0)
                return rc;
        atomic_store(&r->measure_from, p->ramp_ns || p->ramp_until_told || sb.st ? UINT64_MAX : t0);
        atomic_store(&r->measure_until, UINT64_MAX);
        atomic_store(&r->end_told, 0); /* one told after the last point ended is not this one's */
        if ((rc = start_workers(r)) < 0) {
                steady_free(sb.st);
                return rc;
        }
        ramp(r, p, &sb, t0);
        res->t_start_ns = atomic_load(&r->measure_from);
        res->win_start_ms = clk_real_ms() - (int64_t)((clk_now_ns() - res->t_start_ns) / 1000000);
        u0 = cpu_seconds(1);
        s0 = cpu_seconds(0);
        end = res->t_start_ns + p->run_ns;
        for (next = res->t_start_ns; !window_over(r) && next < end;) {
                uint64_t met;

                next += (uint64_t)p->interval_ms * 1000000ull;
                if (next > end)
                        next = end;
                if ((met = steady_until(r, &sb, next)) != 0)
                        end = next = met; /* the last interval ends with the point */
                wait_until(r, next);
                take_interval(r, res, last, clk_now_ns());
                if (prog)
                        prog(user, (clk_now_ns() - t0) / 1e9, last[0] + last[1]);
        }
        res->t_end_ns = clk_now_ns();
        res->win_end_ms = clk_real_ms();
        atomic_store(&r->measure_until, res->t_end_ns);
        atomic_store(&r->measure_told, 0); /* told for this point only */
        atomic_store(&r->end_told, 0);
        /* CPU of the measured window only: the drain after it is not in runtime_s either. */
        res->cpu_user_s = cpu_seconds(1) - u0;
        res->cpu_sys_s = cpu_seconds(0) - s0;
        join_workers(r);
        res->runtime_s = (res->t_end_ns - res->t_start_ns) / 1e9;
        res->interrupted = atomic_load(&r->interrupted);
        if (sb.st) {
                steady_result(sb.st, &res->steady);
                res->have_steady = 1;
                steady_free(sb.st);
        }
        return collect(r, res);
}

static int run_phase(struct blk_run *r, uint64_t duration_ns, blk_progress_fn prog, void *user)
{
        uint64_t t0 = clk_now_ns();
        int rc = start_workers(r);

        if (rc < 0)
                return rc;
        if (duration_ns) {
                wait_until(r, t0 + duration_ns);
        } else {
                /* one-pass phase: wait for every worker to finish its slice */
                for (;;) {
                        unsigned busy = 0;
                        for (unsigned i = 0; i < r->nworkers; i++)
                                busy += !r->w[i].exhausted && !r->w[i].failed;
                        if (!busy || should_end(r))
                                break;
                        clk_sleep_ns(20000000ull);
                        if (prog)
                                prog(user, (clk_now_ns() - t0) / 1e9,
                                     atomic_load_explicit(&r->w[0].issued, memory_order_relaxed));
                }
        }
        join_workers(r);
        for (unsigned i = 0; i < r->nworkers; i++)
                if (r->w[i].failed)
                        return r->w[i].failed;
        return 0;
}

int blk_run_precondition(struct blk_run *r, uint32_t bs, unsigned depth, uint64_t random_ns,
                         uint64_t generation, blk_progress_fn prog, void *user, char *err,
                         size_t errlen)
{
        int rc;

        for (unsigned i = 0; i < r->nworkers; i++)
                phase_reset(&r->w[i], WM_FILL, NULL, bs, depth, generation);
        rc = run_phase(r, 0, prog, user);
        if (rc == 0 && random_ns) {
                for (unsigned i = 0; i < r->nworkers; i++)
                        phase_reset(&r->w[i], WM_RANDFILL, NULL, bs, depth, generation);
                rc = run_phase(r, random_ns, prog, user);
        }
        if (rc < 0)
                snprintf(err, errlen, "precondition: %s",
                         r->w[0].error[0] ? r->w[0].error : strerror(-rc));
        return rc;
}

int blk_run_verify_readback(struct blk_run *r, const struct blk_point_spec *p,
                            struct blk_point_result *res)
{
        uint32_t bs = r->o.max_bs;
        int rc;

        for (unsigned i = 0; i < r->nworkers; i++) {
                uint64_t *keep = r->w[i].written;
                phase_reset(&r->w[i], WM_READBACK, p, bs, r->o.max_depth, p->generation);
                r->w[i].written = keep;
        }
        rc = run_phase(r, 0, NULL, NULL);
        for (unsigned i = 0; i < r->nworkers; i++) {
                struct worker *w = &r->w[i];
                struct blk_target_result *t = &res->t[w->target];
                t->vfy_checked += w->vfy_checked;
                t->vfy_mismatches += w->vfy_mismatches;
                res->all.vfy_checked += w->vfy_checked;
                res->all.vfy_mismatches += w->vfy_mismatches;
                for (unsigned k = 0; k < w->nbad; k++) {
                        if (t->nbad < BLK_MAX_BAD)
                                t->bad[t->nbad++] = w->bad[k];
                        if (res->all.nbad < BLK_MAX_BAD)
                                res->all.bad[res->all.nbad++] = w->bad[k];
                }
        }
        return rc;
}

void blk_run_interrupt(struct blk_run *r)
{
        atomic_store(&r->interrupted, 1);
}

int blk_run_resume(struct blk_run *r)
{
        for (unsigned i = 0; i < r->nworkers; i++)
                if (r->w[i].abandoned)
                        return -EBUSY;
        atomic_store(&r->interrupted, 0);
        return 0;
}

void blk_point_result_free(struct blk_point_result *res)
{
        if (res->t)
                for (unsigned i = 0; i < res->ntargets; i++)
                        target_result_fini(&res->t[i]);
        target_result_fini(&res->all);
        free(res->t);
        free(res->iv);
        memset(res, 0, sizeof(*res));
}

void blk_run_close(struct blk_run *r)
{
        if (!r)
                return;
        for (unsigned i = 0; r->w && i < r->nworkers; i++)
                worker_free(&r->w[i]);
        free(r->w);
        free(r->geom);
        free(r->reg_off);
        free(r->reg_len);
        free(r);
}
