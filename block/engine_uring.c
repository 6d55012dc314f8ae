/*
 * engine_uring.c - asynchronous I/O on a file or block device via io_uring.
 *
 * One ring per instance, sized to the instance's depth, so a free slot in
 * the core loop always finds a free submission entry. queue() only fills
 * an entry; commit() submits the batch with one system call, and reap()
 * submits anything left over and waits for completions in that same call.
 * The struct blk_io travels as the entry's user data, so nothing is
 * allocated per I/O. The file is registered with the ring when the kernel
 * allows it, which saves a file reference per I/O.
 */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block/engine.h"
#include "block/file_common.h"

struct uring_inst {
        struct io_uring ring;
        int fd;
        int fixed;         /* the file is registered: index 0 */
        unsigned depth;    /* at most this many I/Os queued or in flight */
        unsigned inflight; /* queued (submitted or not) and not yet reaped */
        char err[256];
};

static int uring_fail(struct uring_inst *u, int rc, const char *what)
{
        snprintf(u->err, sizeof(u->err), "io_uring %s: %s", what, strerror(-rc));
        return rc;
}

static int uring_init(struct uring_inst *u, const char *path, char *err, size_t errlen)
{
        int rc = io_uring_queue_init(u->depth, &u->ring, IORING_SETUP_CLAMP);

        if (rc < 0) {
                snprintf(err, errlen, "%s: io_uring setup: %s", path, strerror(-rc));
                return rc;
        }
        u->fixed = io_uring_register_files(&u->ring, &u->fd, 1) == 0;
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
        u->fd = blk_file_open(a, geom, err, errlen);
        if (u->fd < 0) {
                rc = u->fd;
                goto out;
        }
        rc = uring_init(u, a->path, err, errlen);
out:
        if (rc < 0) {
                if (u->fd >= 0)
                        close(u->fd);
                free(u);
                return rc;
        }
        *inst = u;
        return 0;
}

static enum blk_qres uring_queue(void *inst, struct blk_io *io)
{
        struct uring_inst *u = inst;
        struct io_uring_sqe *sqe;
        int fd = u->fixed ? 0 : u->fd;

        if (u->inflight >= u->depth)
                return BLK_Q_BUSY;
        sqe = io_uring_get_sqe(&u->ring);
        if (!sqe)
                return BLK_Q_BUSY;
        if (io->ddir == BLK_WRITE)
                io_uring_prep_write(sqe, fd, io->buf, io->len, io->offset);
        else
                io_uring_prep_read(sqe, fd, io->buf, io->len, io->offset);
        if (u->fixed)
                sqe->flags |= IOSQE_FIXED_FILE;
        io_uring_sqe_set_data(sqe, io);
        u->inflight++;
        return BLK_Q_QUEUED;
}

static int uring_commit(void *inst)
{
        struct uring_inst *u = inst;
        int rc;

        if (io_uring_sq_ready(&u->ring) == 0)
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

/* Submits what queue() left behind and waits for nr completions, or times out. */
static int uring_wait(struct uring_inst *u, unsigned nr, int timeout_ms)
{
        struct __kernel_timespec ts = {
            .tv_sec = timeout_ms / 1000,
            .tv_nsec = (long long)(timeout_ms % 1000) * 1000000,
        };
        struct io_uring_cqe *cqe;
        int rc;

        rc = uring_commit(u);
        if (rc < 0)
                return rc;
        do
                rc = io_uring_wait_cqes(&u->ring, &cqe, nr, timeout_ms < 0 ? NULL : &ts, NULL);
        while (rc == -EINTR);
        if (rc == -ETIME)
                return 0;
        return rc < 0 ? uring_fail(u, rc, "wait") : 0;
}

static int uring_reap(void *inst, unsigned min, unsigned max, struct blk_io **out, int timeout_ms)
{
        struct uring_inst *u = inst;
        unsigned got = uring_harvest(u, out, max);
        int rc;

        if (min > u->inflight + got)
                min = u->inflight + got;
        if (min > max)
                min = max;
        if (got >= min || timeout_ms == 0)
                return (int)got;
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

/* The core loop frees the buffers after close: wait for every I/O still out. */
static void uring_drain(struct uring_inst *u)
{
        struct io_uring_cqe *cqe;

        if (u->inflight && uring_commit(u) < 0)
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
        io_uring_queue_exit(&u->ring);
        close(u->fd);
        free(u);
}

const struct blk_engine_ops blk_engine_io_uring = {
    .name = "io_uring",
    .help = "asynchronous I/O through io_uring (files and block devices)",
    .open = uring_open,
    .queue = uring_queue,
    .commit = uring_commit,
    .reap = uring_reap,
    .last_error = uring_last_error,
    .close = uring_close,
};
