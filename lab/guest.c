/*
 * guest.c - the guest image and a VM's disks, shared by the VM backends:
 * where the image is, the qcow2 overlay that is a VM's root disk, the LUN
 * file pre-formatted with the database's first contents, the wait for
 * MariaDB in a booting guest, and the files a purge removes. What differs
 * between the backends (how a VM is started, how to tell it still runs)
 * stays with them; see guest.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "lab/guest.h"
#include "lab/guest_driver.h"
#include "lab/proc.h"
#include "lab/sql.h"
#include "lab/target.h"

#define GUEST_DIR      "/var/tmp/hcisweep-guest"
#define DEFAULT_MEMORY (512ULL << 20)
#define MIN_MEMORY     (256ULL << 20)
#define MIN_POOL       (32ULL << 20)

void guest_dir(guest_dir_t out)
{
        const char *g = getenv("HCISWEEP_GUEST_DIR");

        snprintf(out, sizeof(guest_dir_t), "%s/current", g && g[0] ? g : GUEST_DIR);
}

void guest_path(const char *guest, const char *name, lab_path_t out)
{
        snprintf(out, sizeof(lab_path_t), "%s/%s", guest, name);
}

uint64_t guest_vm_memory(const struct lab_spec *spec)
{
        uint64_t m = spec->vm_memory ? spec->vm_memory : DEFAULT_MEMORY;

        return m < MIN_MEMORY ? MIN_MEMORY : m;
}

int guest_check(const char *guest, const char *backend, char *err, size_t errlen)
{
        static const char *const files[] = {"image.raw", "vmlinuz", "initrd.img"};
        lab_path_t p;

        for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
                guest_path(guest, files[k], p);
                if (access(p, R_OK) < 0) {
                        snprintf(err, errlen,
                                 "%s backend: guest %s missing; build it with "
                                 "scripts/build-guest-image.sh %.*s (or set HCISWEEP_GUEST_DIR)",
                                 backend, p, (int)(strlen(guest) - strlen("/current")), guest);
                        return -ENOENT;
                }
        }
        return 0;
}

int guest_check_plan(const struct lab_spec *spec, unsigned n, const char *backend, char *err,
                     size_t errlen)
{
        if (n < 1 || n > LAB_MAX_VMS) {
                snprintf(err, errlen, "option --vms: %u is not in 1..%d", n, LAB_MAX_VMS);
                return -EINVAL;
        }
        if (spec->topology == LAB_TWO_LAYER) {
                snprintf(err, errlen, "option --topology: the %s backend runs hci only", backend);
                return -EINVAL;
        }
        return 0;
}

/* ---- provisioning -------------------------------------------------------- */

static int write_file(const char *path, const char *text, char *err, size_t errlen)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ssize_t len = (ssize_t)strlen(text);
        int rc = 0;

        if (fd < 0 || write(fd, text, (size_t)len) != len) {
                rc = -errno;
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
        }
        if (fd >= 0)
                close(fd);
        return rc;
}

/* The database disk's first contents, read by the guest at every MariaDB
 * start: the users with the lab's password (init_file), and the buffer
 * pool size. */
static int write_seed(const char *pwfile, uint64_t memory, const char *seed, char *err,
                      size_t errlen)
{
        char pw[256], sql[1024], cnf[256], p[sizeof(lab_path_t) + 16];
        unsigned long long pool = (memory / 4) & ~((1ULL << 20) - 1);
        int rc = lab_read_password(pwfile, pw, sizeof(pw), err, errlen);

        if (rc < 0)
                return rc;
        snprintf(sql, sizeof(sql),
                 "CREATE DATABASE IF NOT EXISTS sbtest;\n"
                 "CREATE USER IF NOT EXISTS 'root'@'%%' IDENTIFIED BY '%s';\n"
                 "ALTER USER 'root'@'%%' IDENTIFIED BY '%s';\n"
                 "GRANT ALL PRIVILEGES ON *.* TO 'root'@'%%' WITH GRANT OPTION;\n",
                 pw, pw);
        memset(pw, 0, sizeof(pw));
        snprintf(cnf, sizeof(cnf),
                 "[mysqld]\ninnodb_buffer_pool_size = %llu\nmax_connections = 1000\n",
                 pool < MIN_POOL ? MIN_POOL : pool);
        if (mkdir(seed, 0700) < 0 && errno != EEXIST) {
                rc = -errno;
                snprintf(err, errlen, "mkdir %s: %s", seed, strerror(errno));
        }
        snprintf(p, sizeof(p), "%s/init.sql", seed);
        if (!rc)
                rc = write_file(p, sql, err, errlen);
        memset(sql, 0, sizeof(sql));
        snprintf(p, sizeof(p), "%s/my.cnf", seed);
        return rc ? rc : write_file(p, cnf, err, errlen);
}

/*
 * This binary, for the load drivers that run in the guest (guest_driver.h):
 * on the database disk of each lab rather than in the image, so a rebuilt
 * hcisweep reaches guests without a new image (the image's hash is its
 * recipe's).
 */
static int copy_self(const char *seed, char *err, size_t errlen)
{
        char dir[sizeof(lab_path_t) + 16], dst[sizeof(lab_path_t) + 32], buf[65536];
        int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), out = -1, rc = 0;
        ssize_t n;

        snprintf(dir, sizeof(dir), "%s/bin", seed);
        snprintf(dst, sizeof(dst), "%s/hcisweep", dir);
        if (in < 0 || (mkdir(dir, 0755) < 0 && errno != EEXIST) ||
            (out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755)) < 0) {
                rc = -errno;
                goto out;
        }
        while ((n = read(in, buf, sizeof(buf))) > 0)
                if (write(out, buf, (size_t)n) != n) {
                        rc = errno ? -errno : -EIO;
                        goto out;
                }
        if (n < 0)
                rc = -errno;
out:
        if (rc < 0)
                snprintf(err, errlen, "copying this hcisweep into %s: %s", dst, strerror(-rc));
        if (in >= 0)
                close(in);
        if (out >= 0 && close(out) < 0 && !rc) {
                rc = -errno;
                snprintf(err, errlen, "copying this hcisweep into %s: %s", dst, strerror(errno));
        }
        return rc;
}

static void remove_seed(const char *seed)
{
        char p[sizeof(lab_path_t) + 32];

        snprintf(p, sizeof(p), "%s/init.sql", seed);
        unlink(p);
        snprintf(p, sizeof(p), "%s/my.cnf", seed);
        unlink(p);
        snprintf(p, sizeof(p), "%s/bin/hcisweep", seed);
        unlink(p);
        snprintf(p, sizeof(p), "%s/bin", seed);
        rmdir(p);
        rmdir(seed);
}

/* Formatted here, before the target serves it. */
static int make_lun(const struct labdir *lab, const struct lab_spec *spec, unsigned i, char *err,
                    size_t errlen)
{
        char size[32];
        lab_path_t lun, seed, log, pwfile;
        char *argv[] = {"mkfs.ext4", "-q", "-F", "-L", "hcisweep-db", "-d", seed, lun, size, NULL};
        int rc;

        labdir_vm_path(lab, i, "lun.img", lun);
        if (access(lun, F_OK) == 0)
                return 0;
        labdir_vm_path(lab, i, "seed", seed);
        labdir_vm_path(lab, i, "mkfs.log", log);
        snprintf(pwfile, sizeof(pwfile), "%s/password", lab->dir);
        snprintf(size, sizeof(size), "%lluk", (unsigned long long)(spec->lun_size >> 10));
        rc = write_seed(pwfile, guest_vm_memory(spec), seed, err, errlen);
        if (!rc)
                rc = copy_self(seed, err, errlen);
        if (!rc)
                rc = proc_run_quiet(argv, log, err, errlen);
        if (rc < 0)
                unlink(lun);
        remove_seed(seed);
        return rc;
}

static int make_root(const struct labdir *lab, const char *guest, unsigned i, char *err,
                     size_t errlen)
{
        lab_path_t disk, image, log;
        char backing[sizeof(lab_path_t) + 8];
        char *argv[] = {"qemu-img", "create", "-q",  "-f", "qcow2", "-b",
                        image,      "-F",     "raw", disk, NULL};

        labdir_vm_path(lab, i, "root.qcow2", disk);
        if (access(disk, F_OK) == 0)
                return 0;
        /* The overlay names the image by its resolved path, so a rebuilt
         * image (a new guest-HASH directory) never changes a disk under it. */
        guest_path(guest, "image.raw", backing);
        if (!realpath(backing, image)) {
                snprintf(err, errlen, "%s: %s", backing, strerror(errno));
                return -ENOENT;
        }
        labdir_vm_path(lab, i, "qemu-img.log", log);
        return proc_run_quiet(argv, log, err, errlen);
}

static int create_vm(struct labdir *lab, const char *guest, const struct lab_spec *spec, unsigned i,
                     char *err, size_t errlen)
{
        int rc;

        if (lab->st.vm[i].exists)
                return 0;
        rc = labdir_new_vm(lab, i, spec->addr_base, spec->base_port, err, errlen);
        if (!rc)
                rc = make_root(lab, guest, i, err, errlen);
        if (!rc)
                rc = make_lun(lab, spec, i, err, errlen);
        if (rc < 0)
                return rc;
        labdir_add_vm(lab, i);
        return labdir_save(lab, err, errlen);
}

int guest_create_vms(struct labdir *lab, const char *guest, const struct lab_spec *spec, unsigned n,
                     char *err, size_t errlen)
{
        int rc = labdir_create(lab, err, errlen);

        if (!rc)
                rc = labdir_ensure_password(lab, err, errlen);
        for (unsigned i = 1; !rc && i <= n; i++)
                rc = create_vm(lab, guest, spec, i, err, errlen);
        if (!rc)
                rc = target_start(lab, spec->target_addr, spec->target_port, 0, err, errlen);
        if (!rc)
                rc = target_add_luns(lab, n, err, errlen);
        if (!rc)
                rc = labdir_save(lab, err, errlen);
        return rc;
}

/* ---- boot ---------------------------------------------------------------- */

/* The last lines of the logs say why a guest did not come up. */
static void boot_failure(const struct guest_boot *boot, const char *what, char *err, size_t errlen)
{
        char hv[480] = "", hv_tail[400], console_tail[600];
        lab_path_t log;

        if (boot->hv_log) {
                labdir_vm_path(boot->lab, boot->vm, boot->hv_log, log);
                proc_log_tail(log, 3, hv_tail, sizeof(hv_tail));
                snprintf(hv, sizeof(hv), "; %s: %s", boot->hv_label, hv_tail[0] ? hv_tail : "-");
        }
        labdir_vm_path(boot->lab, boot->vm, "console.log", log);
        proc_log_tail(log, 6, console_tail, sizeof(console_tail));
        snprintf(err, errlen, "vm%u: %s%s; console (%s): %s", boot->vm, what, hv, log,
                 console_tail[0] ? console_tail : "-");
}

int guest_wait_ready(const struct guest_boot *boot, char *err, size_t errlen)
{
        char pw[256], why[256] = "", what[320];
        time_t t0 = time(NULL);
        int limit = boot->timeout_s > 0 ? boot->timeout_s : 240;
        int rc = lab_read_password(boot->ep->password_file, pw, sizeof(pw), err, errlen);

        while (!rc) {
                if (boot->cancel && *boot->cancel) {
                        snprintf(err, errlen, "vm%u: boot interrupted", boot->vm);
                        rc = -EINTR;
                        break;
                }
                rc = boot->alive(boot->ctx, err, errlen);
                if (rc < 0)
                        break;
                if (!rc) {
                        boot_failure(boot, boot->stopped, err, errlen);
                        rc = -EIO;
                } else if (lab_sql_ping(boot->ep, 0, pw, 5, why, sizeof(why)) == 0) {
                        rc = 0;
                        break;
                } else if (time(NULL) - t0 >= limit) {
                        snprintf(what, sizeof(what), "MariaDB did not answer within %d s (%s)",
                                 limit, why);
                        boot_failure(boot, what, err, errlen);
                        rc = -ETIMEDOUT;
                } else {
                        rc = 0;
                        clk_sleep_ns(1000 * 1000000ULL);
                }
        }
        memset(pw, 0, sizeof(pw));
        return rc;
}

/* ---- teardown ------------------------------------------------------------ */

int guest_wait_off(struct lab_backend *b, unsigned i,
                   int (*alive)(struct lab_backend *b, unsigned i, char *err, size_t errlen),
                   int (*ask)(struct lab_backend *b, unsigned i), unsigned timeout_ms)
{
        char ignored[256];

        for (unsigned t = 0; t < timeout_ms; t += 100) {
                if (alive(b, i, ignored, sizeof(ignored)) <= 0)
                        return 1;
                if (ask && t && t % 10000 == 0)
                        ask(b, i);
                clk_sleep_ns(100 * 1000000ULL);
        }
        return alive(b, i, ignored, sizeof(ignored)) <= 0;
}

int guest_destroy(struct lab_backend *b, struct labdir *lab,
                  int (*ask)(struct lab_backend *b, unsigned i),
                  int (*off)(struct lab_backend *b, unsigned i, int asked, char *err,
                             size_t errlen),
                  int purge, const char *extra, char *err, size_t errlen)
{
        int rc = 0, r, asked[LAB_MAX_VMS + 1] = {0};

        for (unsigned i = 1; i <= lab->st.nvms; i++)
                asked[i] = ask(b, i);
        for (unsigned i = 1; i <= lab->st.nvms; i++) {
                r = off(b, i, asked[i], err, errlen);
                rc = rc ? rc : r;
        }
        r = target_stop(lab, err, errlen);
        rc = labdir_forget(lab, rc ? rc : r, err, errlen);
        if (!rc && purge)
                guest_purge(lab, extra);
        return rc;
}

void guest_purge(const struct labdir *lab, const char *extra)
{
        static const char *const names[] = {"root.qcow2", "lun.img", "console.log", "qemu-img.log",
                                            "mkfs.log"};
        lab_path_t p;

        for (unsigned i = 1; i <= LAB_MAX_VMS; i++) {
                for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
                        labdir_vm_path(lab, i, names[k], p);
                        unlink(p);
                }
                if (extra) {
                        labdir_vm_path(lab, i, extra, p);
                        unlink(p);
                }
                labdir_vm_path(lab, i, "", p);
                rmdir(p);
        }
        snprintf(p, sizeof(p), "%s/password", lab->dir);
        unlink(p);
        snprintf(p, sizeof(p), "%s/tgtd.log", lab->dir);
        unlink(p);
}
