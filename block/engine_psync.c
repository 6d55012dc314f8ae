/*
 * engine_psync.c - synchronous pread/pwrite on a file or block device.
 *
 * The baseline every other local engine is compared with: each I/O is one
 * system call (more only when the kernel returns a short transfer), done
 * inline in queue(), so the worker's depth is always one in practice.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block/engine.h"
#include "block/file_common.h"

struct psync_inst {
        int fd;
        char err[256];
};

static int psync_open(const struct blk_open_args *a, void **inst, struct blk_geom *geom, char *err,
                      size_t errlen)
{
        struct psync_inst *p = calloc(1, sizeof(*p));
        int fd;

        if (!p) {
                snprintf(err, errlen, "out of memory");
                return -ENOMEM;
        }
        fd = blk_file_open(a, geom, err, errlen);
        if (fd < 0) {
                free(p);
                return fd;
        }
        p->fd = fd;
        *inst = p;
        return 0;
}

/* Loops over short transfers; end of file before len is an I/O error. */
static int psync_transfer(int fd, struct blk_io *io)
{
        char *buf = io->buf;
        uint32_t done = 0;
        ssize_t n;

        while (done < io->len) {
                off_t off = (off_t)(io->offset + done);

                if (io->ddir == BLK_WRITE)
                        n = pwrite(fd, buf + done, io->len - done, off);
                else
                        n = pread(fd, buf + done, io->len - done, off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -EIO;
                done += (uint32_t)n;
        }
        return 0;
}

static enum blk_qres psync_queue(void *inst, struct blk_io *io)
{
        struct psync_inst *p = inst;

        io->error = psync_transfer(p->fd, io);
        io->sense_key = BLK_SENSE_NONE;
        io->ascq = 0;
        if (io->error)
                snprintf(p->err, sizeof(p->err), "%s at offset %llu: %s",
                         io->ddir == BLK_WRITE ? "write" : "read", (unsigned long long)io->offset,
                         strerror(-io->error));
        return BLK_Q_COMPLETED;
}

static const char *psync_last_error(void *inst)
{
        struct psync_inst *p = inst;

        return p->err;
}

static void psync_close(void *inst)
{
        struct psync_inst *p = inst;

        if (!p)
                return;
        close(p->fd);
        free(p);
}

const struct blk_engine_ops blk_engine_psync = {
    .name = "psync",
    .help = "pread/pwrite, one synchronous call per I/O (files and block devices)",
    .caps = BLK_CAP_NEEDS_SIZE,
    .open = psync_open,
    .queue = psync_queue,
    .reap = blk_reap_none,
    .last_error = psync_last_error,
    .close = psync_close,
};
