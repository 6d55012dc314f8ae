/*
 * file_common.h - opening a file or block device for the local engines.
 *
 * psync and io_uring open their target the same way: O_DIRECT on request,
 * a regular file created or extended to the requested size, and the geometry
 * read from the file size or the device's ioctls. Internal to block/.
 */
#ifndef HCI_BLK_FILE_COMMON_H
#define HCI_BLK_FILE_COMMON_H

#include "block/engine.h"

/*
 * Open a->path and fill geom (size rounded down to whole blocks). Returns
 * the descriptor (>= 0) or -errno with err set to "PATH: reason". Errors:
 * -ENOENT missing path, -EINVAL not a file or device, or an empty file
 * with nothing to create, -EACCES, and whatever open/ftruncate report.
 * Any thread; the caller owns and closes the descriptor.
 */
int blk_file_open(const struct blk_open_args *a, struct blk_geom *geom, char *err, size_t errlen);

#endif
