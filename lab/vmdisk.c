/*
 * vmdisk.c - building and taking apart a local VM's data disk chain (see
 * vmdisk.h). Mounts and loop devices are looked up in the kernel
 * (core/bdev.h), never only in the state, because a kill -9 can come
 * between a step and its record. Programs that may block on I/O of a
 * broken chain (sync, umount) run as children with a deadline, after
 * which the initiator is killed: that aborts its FUSE connection and
 * turns the wait into an I/O error.
 */
#include "lab/vmdisk.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/bdev.h"
#include "core/clock.h"
#include "core/log.h"
#include "lab/cgroup.h"
#include "lab/proc.h"
#include "lab/target.h"

#define INITIATOR_COMM    "qemu-storage-daemon"
#define EXPORT_READY_MS   20000U
#define INITIATOR_STOP    10000U
#define SYNC_MS           60000U
#define UMOUNT_TRIES      25U /* 25 x 200 ms: a busy mount has 5 s to let go */
#define UMOUNT_RETRY_NS   (200 * 1000000ULL)
#define LOOP_GONE_MS      10000U
#define LOOP_ELSEWHERE_NS (300 * 1000000ULL) /* then look for a mount elsewhere */
#define VERIFY_MAX        (16ULL << 20)
#define EXT4_MAGIC_OFF    1080

/* ---- what is there ------------------------------------------------------ */

static void paths(const struct labdir *l, unsigned i, lab_path_t fuse, lab_path_t disk)
{
        labdir_vm_path(l, i, "lun.fuse", fuse);
        labdir_vm_path(l, i, "disk", disk);
}

int vmdisk_healthy(const struct labdir *l, unsigned i)
{
        const struct lab_vm *v = &l->st.vm[i];
        lab_path_t fuse, disk;
        char type[64];

        paths(l, i, fuse, disk);
        return proc_alive(v->initiator, INITIATOR_COMM) && bdev_mounted(fuse, type, sizeof(type)) &&
               !strncmp(type, "fuse", 4) && bdev_loop_of(fuse) >= 0 &&
               bdev_mounted(disk, type, sizeof(type)) && !strcmp(type, "ext4");
}

void vmdisk_loop_name(const struct labdir *l, unsigned i, char *out, size_t outlen)
{
        lab_path_t fuse, disk;
        int n;

        paths(l, i, fuse, disk);
        n = bdev_loop_of(fuse);
        if (n >= 0)
                snprintf(out, outlen, "loop%d", n);
        else if (outlen)
                out[0] = '\0';
}

/* ---- prerequisites ------------------------------------------------------ */

static int in_path(const char *prog)
{
        const char *path = getenv("PATH");
        char dir[LAB_PATH_MAX], full[LAB_PATH_MAX + 64];

        for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
                size_t n = strcspn(p, ":");

                snprintf(dir, sizeof(dir), "%.*s", (int)n, p);
                snprintf(full, sizeof(full), "%s/%s", dir[0] ? dir : ".", prog);
                if (access(full, X_OK) == 0)
                        return 1;
                p += n + (p[n] == ':');
        }
        return 0;
}

static void missing(char *err, size_t errlen, size_t *len, const char *what)
{
        if (*len < errlen)
                *len += (size_t)snprintf(err + *len, errlen - *len, "%s%s", *len ? ", " : "", what);
}

int vmdisk_check(char *err, size_t errlen)
{
        static const char *const progs[][2] = {
            {INITIATOR_COMM, "qemu-storage-daemon (Debian qemu-system-common)"},
            {"mkfs.ext4", "mkfs.ext4 (e2fsprogs)"},
            {"e2fsck", "e2fsck (e2fsprogs)"},
            {"umount", "umount (mount)"},
        };
        char what[768] = "";
        size_t len = 0;
        int fd;

        if (geteuid() != 0)
                missing(what, sizeof(what), &len, "root (loop devices and mounts)");
        fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
        if (fd < 0)
                missing(what, sizeof(what), &len, "/dev/fuse");
        else
                close(fd);
        fd = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
        if (fd < 0)
                missing(what, sizeof(what), &len, "loop devices (/dev/loop-control)");
        else
                close(fd);
        for (size_t p = 0; p < sizeof(progs) / sizeof(progs[0]); p++)
                if (!in_path(progs[p][0]))
                        missing(what, sizeof(what), &len, progs[p][1]);
        if (!len)
                return 0;
        snprintf(err, errlen,
                 "--datadir-on lun (the default) puts each datadir on its iSCSI LUN and needs "
                 "what this host lacks: %s; provide it, or run with --datadir-on host (datadirs "
                 "on this host's disk: the storage service is then not in the data path)",
                 what);
        return -ENODEV;
}

/* ---- children with a deadline ------------------------------------------ */

/* Run argv (output to log) for at most ms; on time-out kill the VM's
 * initiator (a blocked FUSE request then fails) and wait on. */
static int run_deadline(struct labdir *l, unsigned i, char *const argv[], const char *log,
                        unsigned ms, int *status, char *err, size_t errlen)
{
        pid_t pid;
        int rc = proc_spawn(&(struct proc_spawn){argv, log, NULL, NULL}, &pid, err, errlen);

        if (rc < 0)
                return rc;
        for (unsigned waited = 0;; waited += 50) {
                pid_t r = waitpid(pid, status, WNOHANG);

                if (r == pid)
                        return 0;
                if (r < 0 && errno != EINTR) {
                        snprintf(err, errlen, "waitpid %s: %s", argv[0], strerror(errno));
                        return -errno;
                }
                if (waited == ms && l->st.vm[i].initiator > 0)
                        kill(l->st.vm[i].initiator, SIGKILL);
                clk_sleep_ns(50 * 1000000ULL);
        }
}

static int run_ok(struct labdir *l, unsigned i, char *const argv[], const char *log, unsigned ms,
                  char *err, size_t errlen)
{
        char tail[400];
        int status = 0, rc = run_deadline(l, i, argv, log, ms, &status, err, errlen);

        if (!rc && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
                proc_log_tail(log, 3, tail, sizeof(tail));
                snprintf(err, errlen, "vm%u: %s failed (%s): %s", i, argv[0], log, tail);
                rc = -EIO;
        }
        return rc;
}

/* ---- the initiator and its export --------------------------------------- */

/* qemu's option syntax doubles a comma inside a value. */
static void qemu_escape(const char *s, char *out, size_t outlen)
{
        size_t n = 0;

        for (; *s && n + 2 < outlen; s++) {
                if (*s == ',')
                        out[n++] = ',';
                out[n++] = *s;
        }
        out[n] = '\0';
}

static int touch_file(const char *path, char *err, size_t errlen)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

        if (fd < 0) {
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                return -errno;
        }
        close(fd);
        return 0;
}

static int initiator_spawn(struct labdir *l, unsigned i, const char *fuse, char *err, size_t errlen)
{
        const struct lab_target *t = &l->st.tgt;
        struct lab_vm *v = &l->st.vm[i];
        char blockdev[1024], export[LAB_PATH_MAX * 2 + 128], esc[LAB_PATH_MAX * 2];
        char bufs[CG_NCTRL][LAB_PATH_MAX + 16];
        const char *procs[CG_NCTRL + 1];
        char *argv[] = {INITIATOR_COMM, "--blockdev", blockdev, "--export", export, NULL};
        lab_path_t log;
        cpu_set_t set;
        int rc = touch_file(fuse, err, errlen); /* a FUSE export mounts over a file */

        if (rc < 0)
                return rc;
        snprintf(blockdev, sizeof(blockdev),
                 "driver=iscsi,node-name=lun,transport=tcp,portal=%s:%u,target=%s,lun=%u,"
                 "initiator-name=%s.vm%u",
                 target_addr(t), t->port, t->iqn, i, t->iqn, i);
        qemu_escape(fuse, esc, sizeof(esc));
        snprintf(export, sizeof(export),
                 "type=fuse,id=disk,node-name=lun,mountpoint=%s,writable=on", esc);
        labdir_vm_path(l, i, "initiator.log", log);
        cg_procs_files(&v->cg, bufs, procs);
        rc = proc_spawn(
            &(struct proc_spawn){argv, log, procs, cg_affinity(&v->cg, l->st.vm_cpuset, &set)},
            &v->initiator, err, errlen);
        return rc ? rc : labdir_save(l, err, errlen);
}

static int export_wait(struct labdir *l, unsigned i, const char *fuse, char *err, size_t errlen)
{
        char type[64], tail[512];
        lab_path_t log;

        labdir_vm_path(l, i, "initiator.log", log);
        for (unsigned waited = 0; waited < EXPORT_READY_MS; waited += 50) {
                if (bdev_mounted(fuse, type, sizeof(type)) && !strncmp(type, "fuse", 4))
                        return 0;
                if (!proc_alive(l->st.vm[i].initiator, INITIATOR_COMM)) {
                        proc_log_tail(log, 3, tail, sizeof(tail));
                        snprintf(err, errlen, "vm%u: %s exited before exporting LUN %u: %s", i,
                                 INITIATOR_COMM, i, tail);
                        return -EIO;
                }
                clk_sleep_ns(50 * 1000000ULL);
        }
        snprintf(err, errlen, "vm%u: no FUSE export on %s within %u s (%s)", i, fuse,
                 EXPORT_READY_MS / 1000, log);
        return -ETIMEDOUT;
}

/* ---- the loop device ---------------------------------------------------- */

static int open_loop(int n, char *dev, size_t devlen)
{
        int fd;

        snprintf(dev, devlen, "/dev/loop%d", n);
        fd = open(dev, O_RDWR | O_CLOEXEC);
        /* a /dev without udev may lack the node of a new loop device */
        if (fd < 0 && errno == ENOENT && mknod(dev, S_IFBLK | 0660, makedev(7, (unsigned)n)) == 0)
                fd = open(dev, O_RDWR | O_CLOEXEC);
        return fd;
}

/* A buffered loop device on file (see vmdisk.h): direct I/O is switched
 * off explicitly, whatever a kernel's default. */
static int loop_attach(const char *file, char *dev, size_t devlen, char *err, size_t errlen)
{
        int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
        int ffd = open(file, O_RDWR | O_CLOEXEC), rc = -EBUSY;

        if (ctl < 0 || ffd < 0)
                rc = -errno;
        /* another process may take the same free device first: EBUSY, try the next */
        for (int tries = 0; rc == -EBUSY && tries < 50; tries++) {
                struct loop_config cfg = {.fd = (unsigned)ffd};
                int n = ioctl(ctl, LOOP_CTL_GET_FREE), lfd;

                lfd = n < 0 ? -1 : open_loop(n, dev, devlen);
                if (lfd < 0) {
                        rc = -errno;
                        break;
                }
                rc = ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0 ? 0 : -errno;
                if (!rc && ioctl(lfd, LOOP_SET_DIRECT_IO, 0UL) < 0) {
                        rc = -errno;
                        ioctl(lfd, LOOP_CLR_FD);
                }
                close(lfd);
        }
        if (rc < 0)
                snprintf(err, errlen, "buffered loop device on %s: %s", file, strerror(-rc));
        if (ctl >= 0)
                close(ctl);
        if (ffd >= 0)
                close(ffd);
        return rc;
}

/*
 * ENXIO means the device is no longer bound: an earlier LOOP_CLR_FD made
 * while something still held it open (the umount finishing, a udev probe)
 * only marked it to detach at its last close, and that is under way.
 */
static int loop_detach(int n)
{
        char dev[32];
        int fd = open_loop(n, dev, sizeof(dev)), rc;

        if (fd < 0)
                return errno == ENXIO ? 0 : -errno;
        rc = ioctl(fd, LOOP_CLR_FD) == 0 || errno == ENXIO ? 0 : -errno;
        close(fd);
        return rc;
}

/*
 * Detach every loop device on fuse, and wait (bounded) until the kernel has let them go.
 * A loop whose filesystem is still mounted in another mount namespace cannot go: a
 * process that unshared its mounts while the lab was up (unshare -m, a container, a
 * service with PrivateTmp) holds a copy of the ext4 mount, whatever is unmounted here.
 * LOOP_CLR_FD has marked such a loop to detach itself at its last close, when that
 * namespace ends; it is left to do so, with a warning, rather than failing the lab.
 */
static int loops_detach(unsigned i, const char *fuse, char *err, size_t errlen)
{
        uint64_t start = clk_now_ns(), deadline = start + LOOP_GONE_MS * 1000000ULL;
        int n, rc, after = -1, pid;

        while ((n = bdev_loop_next(fuse, after)) >= 0) {
                if ((rc = loop_detach(n)) < 0) {
                        snprintf(err, errlen, "vm%u: detaching loop%d: %s", i, n, strerror(-rc));
                        return rc;
                }
                if (bdev_loop_next(fuse, after) != n)
                        continue;
                /* the usual holder (the umount finishing, a udev probe) lets go within ms */
                if (clk_now_ns() - start > LOOP_ELSEWHERE_NS &&
                    (pid = bdev_loop_mounted_elsewhere(n))) {
                        log_warn("vm%u: loop%d stays on %s while the mount namespace of PID %d "
                                 "holds its filesystem; it detaches itself once that lets go",
                                 i, n, fuse, pid);
                        after = n;
                        continue;
                }
                if (clk_now_ns() > deadline) {
                        snprintf(err, errlen, "vm%u: loop%d still on %s %u s after detaching it", i,
                                 n, fuse, LOOP_GONE_MS / 1000);
                        return -EBUSY;
                }
                clk_sleep_ns(10 * 1000000ULL);
        }
        return 0;
}

/* ---- the filesystem ----------------------------------------------------- */

static int has_ext4(const char *dev, char *err, size_t errlen)
{
        unsigned char magic[2];
        int fd = open(dev, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : pread(fd, magic, sizeof(magic), EXT4_MAGIC_OFF);

        if (n != (ssize_t)sizeof(magic)) {
                snprintf(err, errlen, "reading %s: %s", dev, n < 0 ? strerror(errno) : "short");
                if (fd >= 0)
                        close(fd);
                return -EIO;
        }
        close(fd);
        return magic[0] == 0x53 && magic[1] == 0xef;
}

/* The chain check before trusting a new LUN: hcisweep's own crc32c
 * write/read-back through the loop device, then the same blocks read
 * straight from the target, so what the loop device wrote is known to be
 * what the LUN holds. */
static int chain_verify(struct labdir *l, unsigned i, const char *dev, char *err, size_t errlen)
{
        char size[32], url[LAB_PATH_MAX];
        lab_path_t log, json_loop, json_lun;
        struct stat sb;
        char *wr[] = {"/proc/self/exe",
                      "block",
                      "--filename",
                      (char *)dev,
                      "--direct",
                      "--rw",
                      "randwrite",
                      "--bs",
                      "16k",
                      "--iodepth",
                      "8",
                      "--size",
                      size,
                      "--runtime",
                      "1",
                      "--precondition",
                      "--verify",
                      "crc32c",
                      "--force",
                      "--quiet",
                      "--no-index",
                      "--json",
                      json_loop,
                      NULL};
        char *rd[] = {"/proc/self/exe", "block",  "--target", url,      "--rw",
                      "read",           "--bs",   "64k",      "--size", size,
                      "--runtime",      "1",      "--verify", "crc32c", "--quiet",
                      "--no-index",     "--json", json_lun,   NULL};
        int rc;

        if (stat(dev, &sb) < 0)
                return -errno;
        snprintf(size, sizeof(size), "%llu", VERIFY_MAX);
        labdir_vm_path(l, i, "chain-verify.log", log);
        labdir_vm_path(l, i, "chain-verify-loop.json", json_loop);
        labdir_vm_path(l, i, "chain-verify-lun.json", json_lun);
        target_lun_url(&l->st.tgt, i, url, sizeof(url));
        rc = run_ok(l, i, wr, log, SYNC_MS, err, errlen);
        if (!rc)
                rc = run_ok(l, i, rd, log, SYNC_MS, err, errlen);
        if (rc < 0)
                snprintf(err, errlen,
                         "vm%u: the data path (LUN %s <- %s <- %s) failed its crc32c check (%s): "
                         "it cannot be trusted; --datadir-on host keeps datadirs off it",
                         i, url, INITIATOR_COMM, dev, log);
        return rc;
}

static int fs_prepare(struct labdir *l, unsigned i, const char *dev, char *err, size_t errlen)
{
        char label[32];
        lab_path_t log;
        char *mkfs[] = {"mkfs.ext4",
                        "-q",
                        "-F",
                        "-L",
                        label,
                        "-E",
                        "nodiscard,lazy_itable_init=0,lazy_journal_init=0",
                        (char *)dev,
                        NULL};
        char *fsck[] = {"e2fsck", "-p", (char *)dev, NULL};
        int rc = has_ext4(dev, err, errlen), status = 0;

        labdir_vm_path(l, i, "disk.log", log);
        snprintf(label, sizeof(label), "hcisweep-vm%u", i);
        if (rc < 0)
                return rc;
        if (rc == 0) {
                rc = chain_verify(l, i, dev, err, errlen);
                return rc ? rc : run_ok(l, i, mkfs, log, SYNC_MS, err, errlen);
        }
        /* after a crash: e2fsck replays the journal; 1 means it fixed something */
        rc = run_deadline(l, i, fsck, log, SYNC_MS, &status, err, errlen);
        if (!rc && !(WIFEXITED(status) && WEXITSTATUS(status) <= 1)) {
                snprintf(err, errlen, "vm%u: e2fsck -p %s found errors it could not fix (%s)", i,
                         dev, log);
                rc = -EIO;
        }
        return rc;
}

static int fs_mount(const char *dev, const char *disk, char *err, size_t errlen)
{
        if (mkdir(disk, 0755) < 0 && errno != EEXIST) {
                snprintf(err, errlen, "mkdir %s: %s", disk, strerror(errno));
                return -errno;
        }
        if (mount(dev, disk, "ext4", MS_NOATIME, "") < 0) {
                snprintf(err, errlen, "mount %s on %s: %s", dev, disk, strerror(errno));
                return -errno;
        }
        return 0;
}

int vmdisk_up(struct labdir *l, unsigned i, char *err, size_t errlen)
{
        struct lab_vm *v = &l->st.vm[i];
        lab_path_t fuse, disk;
        char dev[32];
        int rc, n;

        if (vmdisk_healthy(l, i))
                return 0;
        rc = vmdisk_down(l, i, err, errlen); /* a part that is left: start afresh */
        if (!rc)
                rc = initiator_spawn(l, i, (paths(l, i, fuse, disk), fuse), err, errlen);
        if (!rc)
                rc = export_wait(l, i, fuse, err, errlen);
        if (!rc)
                rc = loop_attach(fuse, dev, sizeof(dev), err, errlen);
        if (rc < 0)
                return rc;
        /* from the device attached, not the file: an old loop may still be on it (loops_detach) */
        if (sscanf(dev, "/dev/loop%d", &n) != 1)
                n = bdev_loop_of(fuse);
        snprintf(v->loop, sizeof(v->loop), "loop%d", n);
        rc = labdir_save(l, err, errlen);
        if (!rc)
                rc = fs_prepare(l, i, dev, err, errlen);
        return rc ? rc : fs_mount(dev, disk, err, errlen);
}

/* ---- teardown ----------------------------------------------------------- */

static int chain_broken(const struct labdir *l, unsigned i)
{
        return !proc_alive(l->st.vm[i].initiator, INITIATOR_COMM) ||
               !proc_alive(l->st.tgt.pid, "tgtd");
}

int vmdisk_abort(const struct labdir *l, unsigned i)
{
        if (!chain_broken(l, i))
                return 0;
        if (l->st.vm[i].initiator > 0 && proc_alive(l->st.vm[i].initiator, INITIATOR_COMM))
                kill(l->st.vm[i].initiator, SIGKILL);
        return 1;
}

static int fs_unmount(struct labdir *l, unsigned i, const char *disk, char *err, size_t errlen)
{
        char *sync_fs[] = {"sync", "-f", (char *)disk, NULL};
        char *umount[] = {"umount", (char *)disk, NULL};
        lab_path_t log;

        if (!bdev_mounted(disk, NULL, 0))
                return 0;
        labdir_vm_path(l, i, "disk.log", log);
        if (!chain_broken(l, i))
                run_ok(l, i, sync_fs, log, SYNC_MS, err, errlen);
        /* "target is busy" right after mariadbd exits: the kernel drops a
         * dead process's open files and cwd a moment after it is reaped, so
         * a busy mount gets a few more tries before it counts as a failure. */
        for (unsigned t = 0;; t++) {
                int rc = run_ok(l, i, umount, log, SYNC_MS, err, errlen);

                if (!rc || !bdev_mounted(disk, NULL, 0))
                        return 0;
                if (t + 1 >= UMOUNT_TRIES || chain_broken(l, i))
                        return rc;
                clk_sleep_ns(UMOUNT_RETRY_NS);
        }
}

int vmdisk_down(struct labdir *l, unsigned i, char *err, size_t errlen)
{
        struct lab_vm *v = &l->st.vm[i];
        lab_path_t fuse, disk;
        int rc;

        paths(l, i, fuse, disk);
        vmdisk_abort(l, i); /* a broken chain: its I/O fails now instead of hanging */
        rc = fs_unmount(l, i, disk, err, errlen);
        if (!rc)
                rc = loops_detach(i, fuse, err, errlen);
        if (!rc)
                rc = proc_stop(v->initiator, INITIATOR_COMM, SIGTERM, INITIATOR_STOP, err, errlen);
        /* an initiator killed with -9 leaves its FUSE mount behind, disconnected */
        if (!rc && bdev_mounted(fuse, NULL, 0) && umount2(fuse, MNT_DETACH) < 0) {
                snprintf(err, errlen, "vm%u: umount %s: %s", i, fuse, strerror(errno));
                rc = -errno;
        }
        if (!rc) {
                v->initiator = 0;
                v->loop[0] = '\0';
                rc = labdir_save(l, err, errlen);
        }
        return rc;
}
