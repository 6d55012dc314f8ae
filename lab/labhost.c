/*
 * labhost.c - the ops every backend on a lab directory of this host has in
 * common, written once instead of once per backend.
 */
#include "lab/labhost.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lab/labstate.h"

struct lab_backend *lab_host_alloc(size_t size, const struct lab_spec *spec, const char *backend,
                                   char *err, size_t errlen)
{
        struct lab_backend *b = calloc(1, size);

        if (!b) {
                snprintf(err, errlen, "out of memory");
                return NULL;
        }
        lab_host_of(b)->spec = spec;
        lab_host_of(b)->backend = backend;
        return b;
}

int lab_host_attach(struct lab_backend *b, char *err, size_t errlen)
{
        struct lab_host *h = lab_host_of(b);

        return labdir_open(&h->lab, h->spec->lab_dir, h->backend, err, errlen);
}

int lab_host_open(size_t size, const struct lab_spec *spec, const char *backend,
                  struct lab_backend **out, char *err, size_t errlen)
{
        struct lab_backend *b = lab_host_alloc(size, spec, backend, err, errlen);
        int rc;

        if (!b)
                return -ENOMEM;
        rc = lab_host_attach(b, err, errlen);
        if (rc < 0) {
                free(b);
                return rc;
        }
        *out = b;
        return 0;
}

unsigned lab_host_count(struct lab_backend *b)
{
        return labdir_count(&lab_host_of(b)->lab);
}

int lab_host_endpoint(struct lab_backend *b, unsigned i, struct lab_endpoint *ep, char *err,
                      size_t errlen)
{
        return labdir_endpoint(&lab_host_of(b)->lab, i, ep, err, errlen);
}

int lab_host_storage(struct lab_backend *b, struct lab_storage *st, char *err, size_t errlen)
{
        (void)err;
        (void)errlen;
        target_storage(&lab_host_of(b)->lab.st.tgt, st);
        return 0;
}

int lab_host_no_exec(struct lab_backend *b, unsigned i, char *const argv[], int *status, char *err,
                     size_t errlen)
{
        (void)argv;
        (void)status;
        snprintf(err, errlen, "vm%u: the %s backend cannot run commands inside a guest", i,
                 lab_host_of(b)->backend);
        return -ENOTSUP;
}

void lab_host_close(struct lab_backend *b)
{
        if (!b)
                return;
        labdir_close(&lab_host_of(b)->lab);
        free(b);
}
