/*
 * backends.c - the table of backends `--backend` chooses from. A new
 * backend (qemu, libvirt) is one file defining its ops plus one line here.
 */
#include <string.h>

#include "vmctl/backend.h"

extern const struct vmctl_backend_ops vmctl_backend_local;
extern const struct vmctl_backend_ops vmctl_backend_static;
extern const struct vmctl_backend_ops vmctl_backend_qemu;
#ifdef HAVE_LIBVIRT
extern const struct vmctl_backend_ops vmctl_backend_libvirt;
#endif

const struct vmctl_backend_ops *const vmctl_backends[] = {
    &vmctl_backend_local,
    &vmctl_backend_static,
    &vmctl_backend_qemu,
#ifdef HAVE_LIBVIRT
    &vmctl_backend_libvirt,
#endif
    NULL,
};

const struct vmctl_backend_ops *vmctl_backend_find(const char *name)
{
        for (unsigned i = 0; vmctl_backends[i]; i++)
                if (!strcmp(vmctl_backends[i]->name, name))
                        return vmctl_backends[i];
        return NULL;
}
