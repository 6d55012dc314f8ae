/*
 * guest_driver.h - a VM's load driver run inside its guest through the
 * QEMU guest agent (qga.h): the spawn op of the VM backends (qemu,
 * libvirt) for scale's --driver-placement vm.
 *
 * The controller (scale/scale_drivers.h) speaks to a driver over its
 * stdin and stdout: "ready", "go", "started NS", the result. The guest
 * agent can neither stream a program's output nor feed it input after it
 * started, so spawn starts a bridge on this host instead: this very binary
 * (/proc/self/exe) as `hcisweep lab guest-driver`, a hidden verb, on the
 * controller's pipes, with die_with_parent. The bridge
 *
 *   1. starts the driver in the guest with guest-exec: the guest's own
 *      hcisweep (GUEST_DRIVER_BIN, put on the VM's database disk by
 *      guest.h when the lab is created) with the controller's arguments,
 *      but --mysql-host the guest's own server (127.0.0.1:3306, named in
 *      the result as the controller knows it: --result-hosts), the
 *      password as its stdin (input-data; never on a command line) and
 *      --ready-file/--go-file in the guest's /run;
 *   2. polls for the ready file (guest-file-open) while watching that the
 *      driver still runs (guest-exec-status), and says "ready"; until the
 *      go it answers the controller's "clock" with the guest's clock
 *      (guest-get-time) as "hcisweep-driver clock NS", so the controller's
 *      carrier (dp_carrier_guest, core/driverproto.h) measures the guest's
 *      offset as it measures a remote host's over ssh;
 *   3. on "go" creates the go file (guest-file-open "w"), which the driver
 *      polls every millisecond;
 *   4. with --steady-remote (scale's --target-ci), while the driver runs,
 *      relays the samples it appends to GO.samples (guest-file-read every
 *      250 ms) and turns the controller's "measure" and "stop" lines into
 *      GO.measure and GO.stop, which the driver polls;
 *   5. polls guest-exec-status until the driver exits, and then writes its
 *      captured stdout to its own, "started NS" in the guest's clock as
 *      the driver said it (the carrier moves it into the controller's); the
 *      driver's stderr goes to its own stderr (the driver's log). It exits
 *      as the driver did (its code, or killed by its signal).
 *
 * SIGINT to the bridge (Ctrl-C in the controller) is passed on to the
 * driver in the guest (guest-exec of kill -INT), which saves what it
 * measured; that partial result is relayed as any other. SIGTERM (the
 * controller died: PR_SET_PDEATHSIG) sends the driver SIGTERM and ends the
 * bridge. A bridge killed with SIGKILL leaves the driver to its own
 * deadlines: --time once started, 600 s for a go file that never comes.
 * End of input before "go" (the controller gave up on this driver) stops
 * the driver too.
 *
 * The guest's hcisweep must be this one: spawn runs `GUEST_DRIVER_BIN
 * --version` once per VM and handle, and refuses a guest whose answer
 * differs from this binary's (-EPROTO, naming both: a lab made by another
 * build; exit 3) or that cannot run it.
 */
#ifndef HCI_LAB_GUEST_DRIVER_H
#define HCI_LAB_GUEST_DRIVER_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "lab/proc.h"

/* Where a lab's guest keeps this binary: the database disk (guest.h). */
#define GUEST_DRIVER_BIN "/srv/hcisweep/bin/hcisweep"

/* How VM i's guest agent is reached: a chardev socket, or a libvirt domain. */
struct guest_agent {
        const char *socket;       /* unix: QEMU's chardev socket; NULL for libvirt */
        const char *uri, *domain; /* libvirt: connection URI and domain name */
};

/*
 * The spawn op (backend.h) for VM i whose agent is a: the version check
 * (once: *checked is set to 1 when it passed), then the bridge on stdio
 * (sp->argv is the driver's command line on this host, sp->log_path its
 * log), *pid the bridge's. cancel (may be NULL) cuts the version check
 * short with -EINTR.
 */
int guest_driver_spawn(const struct guest_agent *a, unsigned i, const struct proc_spawn *sp,
                       const int *stdio, const volatile sig_atomic_t *cancel, int *checked,
                       pid_t *pid, char *err, size_t errlen);

/* `hcisweep lab guest-driver --vm I --agent unix:PATH|libvirt:DOMAIN
 * [--libvirt-uri URI] [--password-file F] -- DRIVER ARGV...`: the bridge;
 * argv[0] is "guest-driver". Returns the exit code. */
int guest_driver_main(int argc, char **argv);

#endif
