/*
 * engine_uring.c - asynchronous I/O on a file or block device via io_uring.
 *
 * One ring per instance, sized to the instance's depth, so a free slot in
 * the core loop always finds a free submission entry. queue() only fills
 * an entry; commit() pushes what is queued, which the core loop does after
 * every I/O by default (--iodepth_batch_submit 1, as fio) but the one that
 * fills the queue; reap() submits whatever is left and waits for
 * completions in one system call (io_uring_enter with both counts), so at
 * --iodepth 1 each I/O costs one system call, not two. The struct
 * blk_io travels as the entry's user data, so nothing is allocated per I/O.
 * The file is registered with the ring when the kernel allows it, which
 * saves a file reference per I/O; --fixedbufs registers the buffers too.
 *
 * The ring is set up as fio sets up its own: a single issuer whose
 * completions wait until it asks for them (DEFER_TASKRUN), so a completion
 * interrupts nobody and is handled in the next wait, in a batch. A
 * single-issuer ring belongs to the thread that set it up, and the core
 * loop runs every sweep point in new threads: the ring is set up again by
 * the first queue() of a new thread, when nothing is in flight. Kernels
 * without those flags get a plain ring.
 */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "block/engine.h"
#include "block/file_common.h"

#define TASKRUN_FLAGS                                                                              \
        (IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_COOP_TASKRUN)

struct uring_inst {
        struct io_uring ring;
        int have_ring;  /* ring is set up */
        pid_t owner;    /* the thread that set it up (single issuer): its kernel id,
                           since a new thread may reuse an old pthread_t */
        unsigned setup; /* IORING_SETUP_* flags the ring was made with */
        unsigned flags; /* BLK_OPEN_* */
        int fd;
        int fixed;          /* the file is registered: index 0 */
        unsigned depth;     /* at most this many I/Os queued or in flight */
        unsigned inflight;  /* queued (submitted or not) and not yet reaped */
        struct iovec *bufs; /* registered with --fixedbufs */
        unsigned nbufs;
        char err[256];
};

static int uring_fail(struct uring_inst *u, int rc, const char *what)
{
        snprintf(u->err, sizeof(u->err), "io_uring %s: %s", what, strerror(-rc));
        return rc;
}

static unsigned wanted_setup(unsigned flags)
{
        if (flags & BLK_OPEN_SQPOLL) /* the kernel thread is the issuer: no task-run deferral */
                return IORING_SETUP_SQPOLL | ((flags & BLK_OPEN_HIPRI) ? IORING_SETUP_IOPOLL : 0);
        return TASKRUN_FLAGS | ((flags & BLK_OPEN_HIPRI) ? IORING_SETUP_IOPOLL : 0);
}

static int ring_create(struct uring_inst *u)
{
        struct io_uring_params p;
        int rc;

        for (;;) {
                memset(&p, 0, sizeof(p));
                p.flags = IORING_SETUP_CLAMP | u->setup;
                p.sq_thread_idle = 1000; /* ms the SQPOLL thread spins before sleeping */
                rc = io_uring_queue_init_params(u->depth, &u->ring, &p);
                if (rc != -EINVAL || !(u->setup & TASKRUN_FLAGS))
                        break;
                u->setup &= ~TASKRUN_FLAGS; /* an older kernel: a plain ring */
        }
        return rc;
}

/* The calling thread's kernel id, asked of the kernel once per thread: ring_own runs
 * before every I/O that finds the ring idle (each one at QD1), and gettid() is a
 * system call each time. A thread's id cannot change while it lives (nothing here
 * forks without exec). */
static pid_t self_tid(void)
{
        static _Thread_local pid_t tid;

        if (!tid)
                tid = gettid();
        return tid;
}

/* Set the ring up in the calling thread: file and buffers registered. 0 or -errno, u->err set. */
static int ring_setup(struct uring_inst *u)
{
        int rc = ring_create(u);

        if (rc < 0)
                return uring_fail(u, rc, "setup");
        u->have_ring = 1;
        u->owner = self_tid();
        u->fixed = io_uring_register_files(&u->ring, &u->fd, 1) == 0;
        if (u->flags & BLK_OPEN_FIXEDBUFS) {
                rc = io_uring_register_buffers(&u->ring, u->bufs, u->nbufs);
                if (rc < 0)
                        return uring_fail(u, rc,
                                          "registering buffers (fixedbufs; RLIMIT_MEMLOCK?)");
        }
        return 0;
}

static void ring_teardown(struct uring_inst *u)
{
        if (u->have_ring)
                io_uring_queue_exit(&u->ring);
        u->have_ring = 0;
}

/* A single-issuer ring made by another thread is made again here (nothing is in flight). */
static int ring_own(struct uring_inst *u)
{
        if (u->have_ring && (!(u->setup & IORING_SETUP_SINGLE_ISSUER) || u->owner == self_tid()))
                return 0;
        ring_teardown(u);
        return ring_setup(u);
}

static int copy_bufs(struct uring_inst *u, const struct blk_open_args *a, char *err, size_t errlen)
{
        if (!(a->flags & BLK_OPEN_FIXEDBUFS))
                return 0;
        if (!a->bufs || !a->nbufs) {
                snprintf(err, errlen, "fixedbufs: the core loop gave no buffers");
                return -EINVAL;
        }
        u->bufs = calloc(a->nbufs, sizeof(*u->bufs));
        if (!u->bufs) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        memcpy(u->bufs, a->bufs, a->nbufs * sizeof(*u->bufs));
        u->nbufs = a->nbufs;
        return 0;
}

/* The block device under fd says whether it polls: 1, 0, or -1 when sysfs does not say. */
static int device_polls(int fd)
{
        struct stat st;
        char path[128], v[8] = "";
        FILE *f;
        dev_t d;

        if (fstat(fd, &st) < 0)
                return -1;
        d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/io_poll", major(d), minor(d));
        if (!(f = fopen(path, "re"))) { /* a partition: its disk's queue */
                snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/io_poll", major(d),
                         minor(d));
                f = fopen(path, "re");
        }
        if (!f)
                return -1;
        if (!fgets(v, sizeof(v), f))
                v[0] = '\0';
        fclose(f);
        return v[0] == '1' ? 1 : v[0] == '0' ? 0 : -1;
}

/*
 * Polled I/O fails requests on a device without poll queues: ask sysfs, or
 * else try one read of the first block, so the run stops with a reason.
 */
static int probe_hipri(struct uring_inst *u, const struct blk_open_args *a, uint32_t bsz, char *err,
                       size_t errlen)
{
        struct io_uring_sqe *sqe;
        struct io_uring_cqe *cqe;
        int rc, res = device_polls(u->fd);

        if (res == 0) {
                snprintf(err, errlen,
                         "hipri: polled I/O is not supported here (the device's queue/io_poll "
                         "is 0); it needs a device with poll queues, e.g. NVMe with "
                         "nvme.poll_queues=N");
                return -EOPNOTSUPP;
        }
        if (res == 1 || !(sqe = io_uring_get_sqe(&u->ring)) || !a->bufs || !a->nbufs ||
            a->bufs[0].iov_len < bsz)
                return 0;
        io_uring_prep_read(sqe, u->fixed ? 0 : u->fd, a->bufs[0].iov_base, bsz, 0);
        if (u->fixed)
                sqe->flags |= IOSQE_FIXED_FILE;
        rc = io_uring_submit_and_wait(&u->ring, 1);
        if (rc < 0 || (rc = io_uring_wait_cqe(&u->ring, &cqe)) < 0) {
                snprintf(err, errlen, "hipri: polled read: %s", strerror(-rc));
                return rc;
        }
        res = cqe->res;
        io_uring_cqe_seen(&u->ring, cqe);
        if (res == -EOPNOTSUPP || res == -EINVAL) {
                snprintf(err, errlen,
                         "hipri: polled I/O is not supported here (%s); it needs a device "
                         "with poll queues, e.g. NVMe with nvme.poll_queues=N",
                         strerror(-res));
                return -EOPNOTSUPP;
        }
        return 0;
}

static int uring_open(const struct blk_open_args *a, void **inst, struct blk_geom *geom, char *err,
                      size_t errlen)
{
        struct uring_inst *u = calloc(1, sizeof(*u));
        int rc;

        if (!u) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        u->depth = a->depth ? a->depth : 1;
        u->flags = a->flags;
        u->setup = wanted_setup(a->flags);
        u->fd = -1;
        if ((a->flags & BLK_OPEN_HIPRI) && !a->direct) {
                snprintf(err, errlen, "hipri (polled I/O) needs --direct 1");
                rc = -EINVAL;
                goto out;
        }
        if ((rc = copy_bufs(u, a, err, errlen)) < 0)
                goto out;
        u->fd = blk_file_open(a, geom, err, errlen);
        if (u->fd < 0) {
                rc = u->fd;
                goto out;
        }
        /* set up now, so a flag this kernel refuses is an error at open */
        if ((rc = ring_setup(u)) < 0)
                snprintf(err, errlen, "%s", u->err);
        else if (a->flags & BLK_OPEN_HIPRI)
                rc = probe_hipri(u, a, geom->block_size > 4096 ? geom->block_size : 4096, err,
                                 errlen);
out:
        if (rc < 0) {
                ring_teardown(u);
                if (u->fd >= 0)
                        close(u->fd);
                free(u->bufs);
                free(u);
                return rc;
        }
        *inst = u;
        return 0;
}

static void prep(struct uring_inst *u, struct io_uring_sqe *sqe, struct blk_io *io)
{
        int fd = u->fixed ? 0 : u->fd;

        if ((u->flags & BLK_OPEN_FIXEDBUFS) && io->buf_index < u->nbufs) {
                if (io->ddir == BLK_WRITE)
                        io_uring_prep_write_fixed(sqe, fd, io->buf, io->len, io->offset,
                                                  (int)io->buf_index);
                else
                        io_uring_prep_read_fixed(sqe, fd, io->buf, io->len, io->offset,
                                                 (int)io->buf_index);
        } else if (io->ddir == BLK_WRITE) {
                io_uring_prep_write(sqe, fd, io->buf, io->len, io->offset);
        } else {
                io_uring_prep_read(sqe, fd, io->buf, io->len, io->offset);
        }
        if (u->fixed)
                sqe->flags |= IOSQE_FIXED_FILE;
        io_uring_sqe_set_data(sqe, io);
}

static enum blk_qres uring_queue(void *inst, struct blk_io *io)
{
        struct uring_inst *u = inst;
        struct io_uring_sqe *sqe;

        if (u->inflight >= u->depth)
                return BLK_Q_BUSY;
        if (u->inflight == 0 && ring_own(u) < 0) {
                io->error = -EIO;
                return BLK_Q_COMPLETED;
        }
        sqe = io_uring_get_sqe(&u->ring);
        if (!sqe)
                return BLK_Q_BUSY;
        prep(u, sqe, io);
        u->inflight++;
        return BLK_Q_QUEUED;
}

static int uring_commit(void *inst)
{
        struct uring_inst *u = inst;
        int rc;

        if (!u->have_ring || io_uring_sq_ready(&u->ring) == 0)
                return 0;
        rc = io_uring_submit(&u->ring);
        return rc < 0 ? uring_fail(u, rc, "submit") : 0;
}

/* A short transfer is an error: the core loop asked for all of len. */
static void uring_complete(struct io_uring_cqe *cqe)
{
        struct blk_io *io = io_uring_cqe_get_data(cqe);

        if (cqe->res < 0)
                io->error = cqe->res;
        else
                io->error = (uint32_t)cqe->res == io->len ? 0 : -EIO;
        io->sense_key = BLK_SENSE_NONE;
        io->ascq = 0;
}

static unsigned uring_harvest(struct uring_inst *u, struct blk_io **out, unsigned max)
{
        struct io_uring_cqe *cqes[64];
        unsigned got = 0;

        while (got < max) {
                unsigned want = max - got < 64 ? max - got : 64;
                unsigned n = io_uring_peek_batch_cqe(&u->ring, cqes, want);

                for (unsigned i = 0; i < n; i++) {
                        uring_complete(cqes[i]);
                        out[got++] = io_uring_cqe_get_data(cqes[i]);
                }
                io_uring_cq_advance(&u->ring, n);
                if (n < want)
                        break;
        }
        u->inflight -= got;
        return got;
}

/* Submits what queue() left behind and waits for nr completions in one call, or times out. */
static int uring_wait(struct uring_inst *u, unsigned nr, int timeout_ms)
{
        struct __kernel_timespec ts = {
            .tv_sec = timeout_ms / 1000,
            .tv_nsec = (long long)(timeout_ms % 1000) * 1000000,
        };
        struct io_uring_cqe *cqe;
        int rc;

        rc =
            io_uring_submit_and_wait_timeout(&u->ring, &cqe, nr, timeout_ms < 0 ? NULL : &ts, NULL);
        if (rc == -ETIME || rc == -EINTR)
                return 0;
        return rc < 0 ? uring_fail(u, rc, "wait") : 0;
}

static int uring_reap(void *inst, unsigned min, unsigned max, struct blk_io **out, int timeout_ms)
{
        struct uring_inst *u = inst;
        unsigned got;
        int rc;

        if (!u->have_ring)
                return 0;
        got = uring_harvest(u, out, max);
        if (min > u->inflight + got)
                min = u->inflight + got;
        if (min > max)
                min = max;
        if (got >= min || timeout_ms == 0) {
                if ((rc = uring_commit(u)) < 0)
                        return rc;
                /* deferred completions are only handed over inside the kernel */
                if (got < max && u->inflight && (u->setup & IORING_SETUP_DEFER_TASKRUN) &&
                    io_uring_get_events(&u->ring) >= 0)
                        got += uring_harvest(u, out + got, max - got);
                return (int)got;
        }
        rc = uring_wait(u, min - got, timeout_ms);
        if (rc < 0)
                return rc;
        got += uring_harvest(u, out + got, max - got);
        return (int)got;
}

static const char *uring_last_error(void *inst)
{
        struct uring_inst *u = inst;

        return u->err;
}

/*
 * The core loop frees the buffers after close: wait for every I/O still out.
 * Only the ring's own thread may wait on a single-issuer ring; the core
 * loop drains in that thread, so this is the fallback of a lost device.
 */
static void uring_drain(struct uring_inst *u)
{
        struct io_uring_cqe *cqe;

        if (!u->have_ring || (u->inflight && uring_commit(u) < 0))
                return;
        while (u->inflight) {
                int rc = io_uring_wait_cqe(&u->ring, &cqe);

                if (rc == -EINTR)
                        continue;
                if (rc < 0)
                        return;
                io_uring_cqe_seen(&u->ring, cqe);
                u->inflight--;
        }
}

static void uring_close(void *inst)
{
        struct uring_inst *u = inst;

        if (!u)
                return;
        uring_drain(u);
        ring_teardown(u);
        close(u->fd);
        free(u->bufs);
        free(u);
}

const struct blk_engine_ops blk_engine_io_uring = {
    .name = "io_uring",
    .help = "asynchronous I/O through io_uring (files and block devices)",
    .caps = BLK_CAP_NEEDS_SIZE,
    .open = uring_open,
    .queue = uring_queue,
    .commit = uring_commit,
    .reap = uring_reap,
    .last_error = uring_last_error,
    .close = uring_close,
};
