/*
 * backends.c - the backends of this build, in one list (LAB_BACKENDS): it
 * gives the ops table and the names --backend offers, so the two cannot
 * drift apart. A new backend is one file defining its ops plus one entry
 * here.
 */
#include "lab/backend.h"

#ifdef HAVE_LIBVIRT
#define LIBVIRT(X) X(libvirt)
#else
#define LIBVIRT(X)
#endif

/* X(n): the backend called "n" whose ops are lab_backend_n, in --help order. */
#define LAB_BACKENDS(X) X(local) X(static) X(qemu) LIBVIRT(X)

#define DECLARE(n) extern const struct lab_backend_ops lab_backend_##n;
#define OPS(n)     &lab_backend_##n,
#define NAME(n)    #n,

LAB_BACKENDS(DECLARE)

const struct lab_backend_ops *const lab_backends[] = {LAB_BACKENDS(OPS) NULL};

const char *const lab_backend_names[] = {LAB_BACKENDS(NAME) NULL};
