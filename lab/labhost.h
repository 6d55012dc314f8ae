/*
 * labhost.h - what the backends that keep their lab directory on this host
 * (local, qemu, libvirt) share.
 *
 * Such a backend's handle (its struct lab_backend) begins with a struct
 * lab_host: the spec it was opened with, its name and the open lab
 * directory (labdir.h). The ops that only read the lab directory are the
 * functions below, put as they are into the backend's ops table; a backend
 * with more to free calls lab_host_close from its own close.
 *
 * Errors: 0 or a negative errno, one line in err. One thread at a time, as
 * for every backend handle.
 */
#ifndef HCI_LAB_LABHOST_H
#define HCI_LAB_LABHOST_H

#include <stddef.h>

#include "lab/backend.h"
#include "lab/labdir.h"

/* The first member of such a backend's struct lab_backend. */
struct lab_host {
        const struct lab_spec *spec;
        const char *backend; /* the ops' name, for messages and the lab's owner */
        struct labdir lab;
};

/* The lab_host a handle begins with. */
static inline struct lab_host *lab_host_of(struct lab_backend *b)
{
        return (struct lab_host *)(void *)b;
}

/* A zeroed handle of size bytes (>= sizeof(struct lab_host)) for backend,
 * spec set, nothing opened; NULL with "out of memory" in err. Free it with
 * lab_host_close. */
struct lab_backend *lab_host_alloc(size_t size, const struct lab_spec *spec, const char *backend,
                                   char *err, size_t errlen);

/* Open spec->lab_dir into the handle (labdir_open under the backend's name). */
int lab_host_attach(struct lab_backend *b, char *err, size_t errlen);

/* lab_host_alloc and lab_host_attach; the handle is freed again when
 * attaching fails. The open op of a backend with nothing else to set up. */
int lab_host_open(size_t size, const struct lab_spec *spec, const char *backend,
                  struct lab_backend **out, char *err, size_t errlen);

/* The ops: count (labdir_count), endpoint (labdir_endpoint), storage (the
 * lab's tgtd, target_storage), exec for a backend that cannot run commands
 * in a guest (-ENOTSUP), and close (unlock, free the handle; NULL is fine). */
unsigned lab_host_count(struct lab_backend *b);
int lab_host_endpoint(struct lab_backend *b, unsigned i, struct lab_endpoint *ep, char *err,
                      size_t errlen);
int lab_host_storage(struct lab_backend *b, struct lab_storage *st, char *err, size_t errlen);
int lab_host_no_exec(struct lab_backend *b, unsigned i, char *const argv[], int *status, char *err,
                     size_t errlen);
void lab_host_close(struct lab_backend *b);

#endif
