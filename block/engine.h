/*
 * engine.h - block I/O engines.
 *
 * An engine moves bytes and nothing else: it never reads a clock, bumps a
 * counter or touches a histogram. The core loop (block/run.c) owns every
 * struct blk_io and its buffer, times each I/O, and does all accounting.
 *
 * One worker thread drives one engine instance (one open file, device or
 * iSCSI session) and keeps its queue full:
 *
 *     inst = ops->open(args)                 per worker
 *     loop:
 *         while slots free: ops->queue(inst, io)
 *              COMPLETED -> the I/O finished inline (sync engines); io->error set
 *              QUEUED    -> it will come back from reap()
 *              BUSY      -> no room now: reap first, then queue it again
 *         ops->commit(inst)                  if non-NULL, every --iodepth_batch_submit
 *                                            I/Os: push what queue() batched (not after
 *                                            the I/O that fills the queue: reap pushes it)
 *         n = ops->reap(inst, min, max, out, timeout_ms)
 *                                            also pushes what is still batched, in
 *                                            the same system call where it can
 *     ops->close(inst)
 *
 * Engines are listed in block/engines.c; one file per engine.
 */
#ifndef HCI_BLK_ENGINE_H
#define HCI_BLK_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

enum blk_ddir { BLK_READ = 0, BLK_WRITE = 1 };

enum blk_qres { BLK_Q_COMPLETED, BLK_Q_QUEUED, BLK_Q_BUSY };

/* SCSI sense keys are 0..15; engines report them so errors are counted by key. */
#define BLK_SENSE_NONE 0

struct blk_io {
        /* set by the core loop before queue() */
        uint64_t offset;    /* bytes from the start of the file/LUN, multiple of geom.block_size */
        uint32_t len;       /* bytes, multiple of geom.block_size */
        uint8_t ddir;       /* enum blk_ddir */
        void *buf;          /* len bytes, 4096-aligned, owned by the core loop */
        uint32_t buf_index; /* which of blk_open_args.bufs holds buf */

        /* set by the engine at completion */
        int error;         /* 0, or -errno (-EIO for a SCSI CHECK CONDITION) */
        uint8_t sense_key; /* SCSI sense key when error came with sense data, else 0 */
        uint16_t ascq;     /* SCSI ASC<<8 | ASCQ, else 0 */

        /* core-loop private */
        uint64_t t_start;
        uint32_t slot;
        uint32_t flags;

        /* engine private: anything the engine wants to keep per I/O */
        void *eng_data;
};

struct blk_geom {
        uint64_t size;       /* bytes */
        uint32_t block_size; /* logical block size in bytes (512 for files unless direct) */
};

/* Engine tuning, under fio's option names (only io_uring acts on them). */
#define BLK_OPEN_FIXEDBUFS 1u /* register bufs with the kernel once (fio fixedbufs) */
#define BLK_OPEN_HIPRI     2u /* polled completions, no interrupts (fio hipri) */
#define BLK_OPEN_SQPOLL    4u /* a kernel thread submits, no system call (fio sqthread_poll) */

struct blk_open_args {
        const char *path;   /* file path, device path or iscsi:// URL */
        unsigned depth;     /* at most this many I/Os in flight on this instance */
        int direct;         /* O_DIRECT (files/devices) */
        int writable;       /* opened for writing */
        int create_size_ok; /* file engines: create/extend a regular file to create_size */
        uint64_t create_size;
        const char *initiator;  /* iSCSI initiator IQN (NULL = engine default) */
        unsigned session;       /* index of this session/job on the target (for naming) */
        unsigned io_timeout_ms; /* engines with their own command timeout use it; 0: default */
        /* iSCSI: CHAP secrets of the URL's user and of its ?target_user= (NULL: from the URL) */
        const char *chap_secret, *chap_target_secret;
        unsigned flags; /* BLK_OPEN_* */
        /*
         * Every buffer an I/O of this instance will point into, owned by the
         * core loop and valid until close(): an engine may register them.
         */
        const struct iovec *bufs;
        unsigned nbufs;
};

struct blk_eng_stats {
        uint64_t reconnects; /* sessions re-established after a loss */
};

/*
 * What an engine can do, in blk_engine_ops.caps: the command asks these,
 * never the engine's name.
 */
/* Moves no data: the target names nothing (any path or URL, or none at all),
 * so there is nothing to create, check for a filesystem or verify. */
#define BLK_CAP_NO_DATA 1u
/* A missing path becomes a regular file of --size bytes (file engines). */
#define BLK_CAP_NEEDS_SIZE 2u

struct blk_engine_ops {
        const char *name;
        const char *help; /* one line for --help */
        int takes_url;    /* 1: path is an iscsi:// URL; 0: a file/device path */
        unsigned caps;    /* BLK_CAP_* */

        /* Once per process before any open (may be NULL). 0 or -errno. */
        int (*setup)(char *err, size_t errlen);

        /*
         * Open one instance. On success *inst is the engine's state and geom is
         * filled. Errors: -EINVAL bad path/URL syntax (usage, exit 2),
         * -ECONNREFUSED/-EHOSTUNREACH/-ETIMEDOUT unreachable, -EACCES login
         * refused, -ENOENT missing file/LUN (all exit 3); err names the cause,
         * including the library's own message.
         */
        int (*open)(const struct blk_open_args *a, void **inst, struct blk_geom *geom, char *err,
                    size_t errlen);

        /* Submit one I/O. Never blocks for long on async engines. */
        enum blk_qres (*queue)(void *inst, struct blk_io *io);

        /*
         * Push I/Os queued since the last commit (may be NULL). 0 or -errno.
         * reap() pushes them too, so a loop that reaps next needs no commit.
         */
        int (*commit)(void *inst);

        /*
         * Push what queue() batched, wait up to timeout_ms for at least min
         * completions (min may be 0: just collect what is done), store up to
         * max of them in out[] and
         * return how many. A negative return is fatal for this instance (the
         * session is lost and cannot be re-established): -errno, and err is
         * filled by last_error().
         */
        int (*reap)(void *inst, unsigned min, unsigned max, struct blk_io **out, int timeout_ms);

        /* Engine statistics so far (may be NULL). */
        void (*stats)(void *inst, struct blk_eng_stats *st);

        /* The last error as text (may be NULL). */
        const char *(*last_error)(void *inst);

        /* Close the instance; I/Os still in flight are cancelled or waited for. */
        void (*close)(void *inst);

        /* Once per process after all close (may be NULL). */
        void (*cleanup)(void);
};

/* reap() of a synchronous engine, whose queue() always completes inline: nothing to collect. */
int blk_reap_none(void *inst, unsigned min, unsigned max, struct blk_io **out, int timeout_ms);

/* The engines of this build (engines.c), by name; NULL if unknown or not built in. */
const struct blk_engine_ops *blk_engine_find(const char *name);

/* --engine's choices, NULL-terminated: "auto", then every engine of this
 * build by name, in the order of engines.c. */
extern const char *const blk_engine_choices[];

#endif
