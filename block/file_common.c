/*
 * file_common.c - the open() both local engines share (see file_common.h).
 *
 * A regular file is created or grown only when the caller allows it and it
 * is smaller than asked for; a larger file is never truncated, so a
 * prepared data set survives a run with a smaller --size. Block devices
 * report their own size and logical block size.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block/file_common.h"

#define FILE_BLOCK_SIZE 512u

static int file_fail(int rc, const char *path, const char *what, char *err, size_t errlen)
{
        if (what)
                snprintf(err, errlen, "%s: %s: %s", path, what, strerror(-rc));
        else
                snprintf(err, errlen, "%s: %s", path, strerror(-rc));
        return rc;
}

/* Whether open() must create or extend the file before using it. */
static int file_needs_growth(const struct blk_open_args *a)
{
        struct stat st;

        if (!a->create_size_ok || a->create_size == 0)
                return 0;
        if (stat(a->path, &st) != 0)
                return errno == ENOENT;
        return S_ISREG(st.st_mode) && (uint64_t)st.st_size < a->create_size;
}

static int file_flags(const struct blk_open_args *a, int grow)
{
        int flags = O_CLOEXEC;

        flags |= (a->writable || grow) ? O_RDWR : O_RDONLY;
        if (grow)
                flags |= O_CREAT;
        if (a->direct)
                flags |= O_DIRECT;
        return flags;
}

/* Direct I/O needs the file system's alignment; most want 512, some 4096. */
static uint32_t file_block_size(int fd, int direct)
{
        uint32_t bs = FILE_BLOCK_SIZE;
#ifdef STATX_DIOALIGN
        struct statx stx;

        if (direct && statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
            (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align > bs)
                bs = stx.stx_dio_offset_align;
#else
        (void)fd;
        (void)direct;
#endif
        return bs;
}

static int file_geometry(int fd, const struct blk_open_args *a, struct blk_geom *geom, char *err,
                         size_t errlen)
{
        struct stat st;
        uint64_t size;
        int lbs;

        if (fstat(fd, &st) != 0)
                return file_fail(-errno, a->path, "stat", err, errlen);
        if (S_ISREG(st.st_mode)) {
                geom->size = (uint64_t)st.st_size;
                geom->block_size = file_block_size(fd, a->direct);
        } else if (S_ISBLK(st.st_mode)) {
                if (ioctl(fd, BLKGETSIZE64, &size) != 0)
                        return file_fail(-errno, a->path, "BLKGETSIZE64", err, errlen);
                if (ioctl(fd, BLKSSZGET, &lbs) != 0)
                        return file_fail(-errno, a->path, "BLKSSZGET", err, errlen);
                geom->size = size;
                geom->block_size = lbs > 0 ? (uint32_t)lbs : FILE_BLOCK_SIZE;
        } else {
                snprintf(err, errlen, "%s: not a regular file or block device", a->path);
                return -EINVAL;
        }
        geom->size -= geom->size % geom->block_size;
        if (geom->size == 0) {
                snprintf(err, errlen, "%s: empty (give a size to create it)", a->path);
                return -EINVAL;
        }
        return 0;
}

/* Checked again on the open descriptor: another job may have grown it meanwhile. */
static int file_grow(int fd, const struct blk_open_args *a, char *err, size_t errlen)
{
        struct stat st;

        if (fstat(fd, &st) != 0)
                return file_fail(-errno, a->path, "stat", err, errlen);
        if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size >= a->create_size)
                return 0;
        if (ftruncate(fd, (off_t)a->create_size) != 0)
                return file_fail(-errno, a->path, "extend", err, errlen);
        return 0;
}

static int file_open_fd(const struct blk_open_args *a, int grow, char *err, size_t errlen)
{
        int fd = open(a->path, file_flags(a, grow), 0644);

        if (fd >= 0)
                return fd;
        if (errno == EINVAL && a->direct)
                return file_fail(-EINVAL, a->path, "O_DIRECT not supported here", err, errlen);
        return file_fail(-errno, a->path, NULL, err, errlen);
}

int blk_file_open(const struct blk_open_args *a, struct blk_geom *geom, char *err, size_t errlen)
{
        int grow = file_needs_growth(a);
        int fd, rc;

        if (!a->path || !*a->path) {
                snprintf(err, errlen, "no file or device path given");
                return -EINVAL;
        }
        fd = file_open_fd(a, grow, err, errlen);
        if (fd < 0)
                return fd;
        rc = grow ? file_grow(fd, a, err, errlen) : 0;
        if (rc < 0)
                goto out;
        rc = file_geometry(fd, a, geom, err, errlen);
out:
        if (rc < 0) {
                close(fd);
                return rc;
        }
        return fd;
}
