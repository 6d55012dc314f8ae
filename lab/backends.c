/*
 * backends.c - the table of backends `--backend` chooses from. A new
 * backend (qemu, libvirt) is one file defining its ops plus one line here.
 */
#include <string.h>

#include "lab/backend.h"

extern const struct lab_backend_ops lab_backend_local;
extern const struct lab_backend_ops lab_backend_static;
extern const struct lab_backend_ops lab_backend_qemu;
#ifdef HAVE_LIBVIRT
extern const struct lab_backend_ops lab_backend_libvirt;
#endif

const struct lab_backend_ops *const lab_backends[] = {
    &lab_backend_local,
    &lab_backend_static,
    &lab_backend_qemu,
#ifdef HAVE_LIBVIRT
    &lab_backend_libvirt,
#endif
    NULL,
};

const struct lab_backend_ops *lab_backend_find(const char *name)
{
        for (unsigned i = 0; lab_backends[i]; i++)
                if (!strcmp(lab_backends[i]->name, name))
                        return lab_backends[i];
        return NULL;
}
