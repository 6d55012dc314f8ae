/*
 * test_engines_local.c - the null, psync and io_uring engines driven
 * through their ops the way the core loop drives them: open on a real
 * file, a full queue of writes at scattered offsets, reap, read back and
 * compare (also against plain pread, so an engine cannot agree with
 * itself by accident), BUSY at full depth, short reads as errors, and the
 * open errors users see. Files live under /var/tmp, not tmpfs, so O_DIRECT
 * is exercised for real.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block/engine.h"

#define DEPTH     8
#define IO_LEN    4096u
#define FILE_SIZE (4u << 20)

static char test_dir[] = "/var/tmp/hcisweep-engines.XXXXXX";
static char err[512];

struct io_set {
        struct blk_io io[DEPTH];
        int done[DEPTH];
};

static int setup_dir(void **state)
{
        (void)state;
        return mkdtemp(test_dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
        char cmd[600];

        (void)state;
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", test_dir);
        return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *buf, size_t len, const char *name)
{
        snprintf(buf, len, "%s/%s", test_dir, name);
}

static const struct blk_engine_ops *engine(const char *name)
{
        const struct blk_engine_ops *ops = blk_engine_find(name);

        assert_non_null(ops);
        assert_string_equal(ops->name, name);
        assert_non_null(ops->open);
        assert_non_null(ops->queue);
        assert_non_null(ops->reap);
        assert_non_null(ops->close);
        return ops;
}

static void *open_ok(const struct blk_engine_ops *ops, const struct blk_open_args *a,
                     struct blk_geom *g)
{
        void *inst = NULL;
        int rc = ops->open(a, &inst, g, err, sizeof(err));

        if (rc != 0)
                fail_msg("%s open: %d %s", ops->name, rc, err);
        assert_non_null(inst);
        return inst;
}

static void set_init(struct io_set *s, enum blk_ddir ddir, uint64_t stride)
{
        memset(s->done, 0, sizeof(s->done));
        for (int i = 0; i < DEPTH; i++) {
                struct blk_io *io = &s->io[i];

                if (!io->buf)
                        assert_int_equal(posix_memalign(&io->buf, 4096, IO_LEN), 0);
                io->offset = (uint64_t)(DEPTH - 1 - i) * stride + (uint64_t)i * 512;
                io->len = IO_LEN;
                io->ddir = (uint8_t)ddir;
                io->error = -12345;
                io->slot = (uint32_t)i;
        }
}

static void set_free(struct io_set *s)
{
        for (int i = 0; i < DEPTH; i++)
                free(s->io[i].buf);
}

static void fill_pattern(struct io_set *s, uint8_t salt)
{
        for (int i = 0; i < DEPTH; i++) {
                uint8_t *b = s->io[i].buf;

                for (uint32_t k = 0; k < IO_LEN; k++)
                        b[k] = (uint8_t)(k * 31 + i * 7 + salt + (k >> 8));
        }
}

static void mark_done(struct io_set *s, struct blk_io *io)
{
        assert_true(io >= s->io && io < s->io + DEPTH);
        assert_int_equal(s->done[io->slot], 0);
        s->done[io->slot] = 1;
}

/* Queues the whole set, then reaps until every I/O came back exactly once. */
static void run_set(const struct blk_engine_ops *ops, void *inst, struct io_set *s, int async)
{
        struct blk_io *out[DEPTH];
        int ndone = 0;

        for (int i = 0; i < DEPTH; i++) {
                enum blk_qres q = ops->queue(inst, &s->io[i]);

                assert_int_equal(q, async ? BLK_Q_QUEUED : BLK_Q_COMPLETED);
                if (q == BLK_Q_COMPLETED) {
                        mark_done(s, &s->io[i]);
                        ndone++;
                }
        }
        if (async) {
                struct blk_io extra = s->io[0];

                assert_int_equal(ops->queue(inst, &extra), BLK_Q_BUSY);
        }
        if (ops->commit)
                assert_int_equal(ops->commit(inst), 0);
        for (int tries = 0; ndone < DEPTH && tries < 100; tries++) {
                int n = ops->reap(inst, 1, DEPTH, out, 5000);

                assert_true(n >= 0);
                for (int k = 0; k < n; k++)
                        mark_done(s, out[k]);
                ndone += n;
        }
        assert_int_equal(ndone, DEPTH);
        assert_int_equal(ops->reap(inst, 0, DEPTH, out, 0), 0);
        for (int i = 0; i < DEPTH; i++)
                assert_int_equal(s->io[i].error, 0);
}

static void check_with_pread(const char *path, struct io_set *w)
{
        int fd = open(path, O_RDONLY);
        uint8_t *b = malloc(IO_LEN);

        assert_true(fd >= 0);
        assert_non_null(b);
        for (int i = 0; i < DEPTH; i++) {
                assert_int_equal(pread(fd, b, IO_LEN, (off_t)w->io[i].offset), IO_LEN);
                assert_memory_equal(b, w->io[i].buf, IO_LEN);
        }
        free(b);
        close(fd);
}

/* Write DEPTH scattered blocks, read them back through the engine, compare. */
static void round_trip(const char *name, const char *file, int direct)
{
        const struct blk_engine_ops *ops = engine(name);
        int async = ops->commit != NULL;
        char path[300];
        struct blk_open_args a = {.depth = DEPTH,
                                  .direct = direct,
                                  .writable = 1,
                                  .create_size_ok = 1,
                                  .create_size = FILE_SIZE};
        struct io_set w = {0}, r = {0};
        struct blk_geom g;
        void *inst;

        path_of(path, sizeof(path), file);
        a.path = path;
        inst = open_ok(ops, &a, &g);
        assert_int_equal(g.size, FILE_SIZE);
        assert_true(g.block_size >= 512 && IO_LEN % g.block_size == 0);
        set_init(&w, BLK_WRITE, FILE_SIZE / DEPTH);
        fill_pattern(&w, 0x5a);
        run_set(ops, inst, &w, async);
        set_init(&r, BLK_READ, FILE_SIZE / DEPTH);
        for (int i = 0; i < DEPTH; i++)
                memset(r.io[i].buf, 0, IO_LEN);
        run_set(ops, inst, &r, async);
        for (int i = 0; i < DEPTH; i++)
                assert_memory_equal(r.io[i].buf, w.io[i].buf, IO_LEN);
        ops->close(inst);
        check_with_pread(path, &w);
        set_free(&w);
        set_free(&r);
}

static void test_null_engine(void **state)
{
        const struct blk_engine_ops *ops = engine("null");
        struct blk_open_args a = {.path = "ignored", .depth = DEPTH};
        struct blk_io io[DEPTH + 1], *out[DEPTH];
        struct blk_geom g;
        void *inst;

        (void)state;
        inst = open_ok(ops, &a, &g);
        assert_int_equal(g.size, 1ull << 40);
        assert_int_equal(g.block_size, 512);
        /* like an asynchronous device: depth I/Os queue, the next one is BUSY */
        for (int i = 0; i <= DEPTH; i++)
                io[i] = (struct blk_io){.len = 4096, .error = -5, .sense_key = 3};
        for (int i = 0; i < DEPTH; i++)
                assert_int_equal(ops->queue(inst, &io[i]), BLK_Q_QUEUED);
        assert_int_equal(ops->queue(inst, &io[DEPTH]), BLK_Q_BUSY);
        /* reap hands them back oldest first, at most max at a time, without error */
        assert_int_equal(ops->reap(inst, 1, 1, out, 0), 1);
        assert_ptr_equal(out[0], &io[0]);
        assert_int_equal(ops->reap(inst, 1, DEPTH, out, 0), DEPTH - 1);
        for (int i = 0; i < DEPTH - 1; i++) {
                assert_ptr_equal(out[i], &io[i + 1]);
                assert_int_equal(out[i]->error, 0);
                assert_int_equal(out[i]->sense_key, 0);
        }
        assert_int_equal(ops->reap(inst, 1, DEPTH, out, 0), 0);
        ops->close(inst);
        a.create_size = 64ull << 20;
        inst = open_ok(ops, &a, &g);
        assert_int_equal(g.size, 64ull << 20);
        ops->close(inst);
}

static void test_psync_round_trip(void **state)
{
        (void)state;
        round_trip("psync", "psync.dat", 0);
}

static void test_uring_round_trip(void **state)
{
        (void)state;
        round_trip("io_uring", "uring.dat", 0);
}

/* O_DIRECT needs a file system that supports it; /var/tmp is not tmpfs here. */
static void direct_or_clear_error(const char *name, const char *file)
{
        const struct blk_engine_ops *ops = engine(name);
        char path[300];
        struct blk_open_args a = {.path = path,
                                  .depth = 1,
                                  .direct = 1,
                                  .writable = 1,
                                  .create_size_ok = 1,
                                  .create_size = FILE_SIZE};
        struct blk_geom g;
        void *inst = NULL;
        int rc;

        path_of(path, sizeof(path), file);
        rc = ops->open(&a, &inst, &g, err, sizeof(err));
        if (rc == -EINVAL) {
                assert_non_null(strstr(err, "O_DIRECT"));
                assert_non_null(strstr(err, path));
                skip();
        }
        assert_int_equal(rc, 0);
        ops->close(inst);
        round_trip(name, file, 1);
}

static void test_psync_direct(void **state)
{
        (void)state;
        direct_or_clear_error("psync", "psync-direct.dat");
}

static void test_uring_direct(void **state)
{
        (void)state;
        direct_or_clear_error("io_uring", "uring-direct.dat");
}

static void missing_file(const char *name)
{
        const struct blk_engine_ops *ops = engine(name);
        char path[300], want[400];
        struct blk_open_args a = {.path = path, .depth = 4, .writable = 1};
        struct blk_geom g;
        void *inst = NULL;

        path_of(path, sizeof(path), "no-such-file");
        assert_int_equal(ops->open(&a, &inst, &g, err, sizeof(err)), -ENOENT);
        snprintf(want, sizeof(want), "%s: No such file or directory", path);
        assert_string_equal(err, want);
        assert_int_equal(access(path, F_OK), -1);
}

static void test_missing_file(void **state)
{
        (void)state;
        missing_file("psync");
        missing_file("io_uring");
}

/* A file larger than the requested size keeps its size and its data. */
static void test_no_truncate(void **state)
{
        const struct blk_engine_ops *ops = engine("psync");
        char path[300];
        struct blk_open_args a = {
            .path = path, .depth = 1, .writable = 1, .create_size_ok = 1, .create_size = 1 << 20};
        struct blk_geom g;
        struct stat st;
        void *inst;
        int fd;

        (void)state;
        path_of(path, sizeof(path), "big.dat");
        fd = open(path, O_CREAT | O_RDWR, 0644);
        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, 3 << 20), 0);
        close(fd);
        inst = open_ok(ops, &a, &g);
        assert_int_equal(g.size, 3 << 20);
        ops->close(inst);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_size, 3 << 20);
        /* growing, and a size that is not whole blocks rounds down */
        a.create_size = (5 << 20) + 100;
        inst = open_ok(ops, &a, &g);
        assert_int_equal(g.size, 5 << 20);
        ops->close(inst);
}

/* A read that runs past the end of the file is an I/O error, not a success. */
static void short_read(const char *name)
{
        const struct blk_engine_ops *ops = engine(name);
        char path[300];
        struct blk_open_args a = {
            .path = path, .depth = 2, .create_size_ok = 1, .create_size = 1 << 20};
        struct blk_io io = {.offset = (1 << 20) - 512, .len = IO_LEN, .ddir = BLK_READ};
        struct blk_io *out[2];
        struct blk_geom g;
        void *inst;
        int n = 0;

        path_of(path, sizeof(path), "short.dat");
        assert_int_equal(posix_memalign(&io.buf, 4096, IO_LEN), 0);
        inst = open_ok(ops, &a, &g);
        if (ops->queue(inst, &io) == BLK_Q_QUEUED) {
                if (ops->commit)
                        assert_int_equal(ops->commit(inst), 0);
                n = ops->reap(inst, 1, 2, out, 5000);
                assert_int_equal(n, 1);
                assert_ptr_equal(out[0], &io);
        }
        assert_int_equal(io.error, -EIO);
        assert_non_null(ops->last_error);
        ops->close(inst);
        free(io.buf);
}

static void test_short_read(void **state)
{
        (void)state;
        short_read("psync");
        short_read("io_uring");
}

/* reap() with nothing out returns at once; close() waits for I/Os still out. */
static void test_uring_idle_and_close_busy(void **state)
{
        const struct blk_engine_ops *ops = engine("io_uring");
        char path[300];
        struct blk_open_args a = {.path = path,
                                  .depth = DEPTH,
                                  .writable = 1,
                                  .create_size_ok = 1,
                                  .create_size = FILE_SIZE};
        struct io_set w = {0};
        struct blk_io *out[DEPTH];
        struct blk_geom g;
        void *inst;

        (void)state;
        path_of(path, sizeof(path), "close.dat");
        inst = open_ok(ops, &a, &g);
        assert_int_equal(ops->reap(inst, 4, DEPTH, out, -1), 0);
        set_init(&w, BLK_WRITE, FILE_SIZE / DEPTH);
        fill_pattern(&w, 0x33);
        for (int i = 0; i < DEPTH; i++)
                assert_int_equal(ops->queue(inst, &w.io[i]), BLK_Q_QUEUED);
        ops->close(inst);
        check_with_pread(path, &w);
        set_free(&w);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_null_engine),
            cmocka_unit_test(test_psync_round_trip),
            cmocka_unit_test(test_uring_round_trip),
            cmocka_unit_test(test_psync_direct),
            cmocka_unit_test(test_uring_direct),
            cmocka_unit_test(test_missing_file),
            cmocka_unit_test(test_no_truncate),
            cmocka_unit_test(test_short_read),
            cmocka_unit_test(test_uring_idle_and_close_busy),
        };

        return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}
