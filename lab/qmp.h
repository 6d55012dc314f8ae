/*
 * qmp.h - the one QEMU Machine Protocol request the qemu backend makes:
 * pressing Ctrl-Alt-Del in a guest, over the QMP socket QEMU was started
 * with (-qmp unix:PATH,server=on,wait=off).
 *
 * Why Ctrl-Alt-Del: the guest's systemd answers it with an orderly
 * shutdown (MariaDB stopped, file systems synced and unmounted) without
 * the ACPI stack, D-Bus or logind a minimal guest lacks, and QEMU started
 * with -no-reboot exits at the final reboot. Pulling the plug instead can
 * lose what the guest had not yet written back: an empty aria_log_control
 * on the data disk kept MariaDB from starting on the next boot.
 */
#ifndef HCI_LAB_QMP_H
#define HCI_LAB_QMP_H

#include <stddef.h>

/* Connect to the QMP socket at path, negotiate capabilities and send the
 * keys ctrl-alt-delete. 0 once QEMU acknowledged them, else a negative
 * errno with one line in err. Waits at most about 5 s for QEMU. */
int qmp_ctrl_alt_del(const char *path, char *err, size_t errlen);

#endif
