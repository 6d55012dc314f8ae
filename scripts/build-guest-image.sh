#!/usr/bin/env bash
# build-guest-image.sh - build the Debian 12 guest the `qemu` backend boots:
# a raw ext4 root image (debootstrap --variant=minbase bookworm, MariaDB,
# systemd, a static address for QEMU user-mode networking, a serial console
# on ttyS0, the QEMU guest agent), the guest's kernel and an initrd that
# loads virtio_blk, virtio_net, virtio_pci and ext4. Nothing is mounted: the image is made by
# `mkfs.ext4 -d`. Nothing prebuilt is downloaded: every byte comes from
# Debian packages through debootstrap and apt.
#
# Usage: build-guest-image.sh OUTDIR
#   Builds OUTDIR/guest-HASH/{image.raw,vmlinuz,initrd.img,packages} and
#   points the symlink OUTDIR/current at it, then prints the directory.
#   HASH is a hash of this script (which holds the package list), so a
#   rebuild is skipped when an image of this very recipe exists; editing the
#   recipe builds a new one next to the old. The backend reads
#   $HCISWEEP_GUEST_DIR/current (default /var/tmp/hcisweep-guest/current).
#   Env: MIRROR (default http://deb.debian.org/debian), IMAGE_SIZE (1G).
#
# The kernel: these hosts run a kernel without /boot files, so the guest
# carries Debian's linux-image-cloud-amd64 and its initramfs-tools initrd
# (MODULES=most, checked below with lsinitramfs); both are copied out of the
# root tree for QEMU's -kernel/-initrd.
#
# What the backend expects inside the guest: the database disk is /dev/vdb,
# an ext4 filesystem the host formats with `mkfs.ext4 -d` holding
# init.sql (users and password), my.cnf (buffer pool), bin/hcisweep and,
# after the first boot, mysql/ (the datadir). It is mounted on /srv/hcisweep;
# hcisweep-datadir.service seeds mysql/ from the image's installed datadir
# before mariadb.service starts, and MariaDB listens on 0.0.0.0:3306.
#
# bin/hcisweep is the host's own binary, copied in per lab: it runs the VM's
# load driver under `scale --driver-placement vm`, started by the QEMU guest
# agent (qemu-guest-agent on the virtio-serial port org.qemu.guest_agent.0;
# Debian's udev rule starts it when the port appears). It is not in the
# image, so a rebuilt hcisweep needs no new image; the shared libraries it
# links are (GUEST_PKGS).
#
# Percona Server instead of MariaDB: add Percona's apt repository inside the
# chroot (their percona-release package, from repo.percona.com) before the
# apt-get step, replace mariadb-server with percona-server-server in
# GUEST_PKGS, and point the drop-in below at /etc/mysql/mysql.conf.d/ with
# `mysqld --initialize-insecure` instead of copying /var/lib/mysql; the
# backend only needs a MySQL-protocol server on port 3306 reading
# /srv/hcisweep/init.sql as init_file. Run as root.
set -euo pipefail

# Packages of the guest, beyond minbase. Part of the hash (this file is).
# The second line: the guest agent, and the libraries of the hcisweep each lab copies in
# (`ldd hcisweep`, libvirt's included), with the sanitizer runtimes of a -DWITH_SANITIZERS build.
# The third: tgt, so the local lab (its tgtd) runs inside the guest on a real cgroup v2
# kernel (tests/integration/test_lab_cgroup2_slow.sh).
GUEST_PKGS=(systemd-sysv udev iproute2 mariadb-server mariadb-client
        linux-image-cloud-amd64 initramfs-tools kmod procps
        qemu-guest-agent libjansson4 libinih1 libmariadb3 libsqlite3-0 libmicrohttpd12 libcurl4
        libiscsi7 liburing2 libvirt0 libasan8 libubsan1
        tgt)
MIRROR=${MIRROR:-http://deb.debian.org/debian}
IMAGE_SIZE=${IMAGE_SIZE:-1G}
NEED_MODULES=(virtio_blk virtio_net virtio_pci ext4)

die() { echo "build-guest-image: $*" >&2; exit 3; }

[ $# -eq 1 ] || { echo "usage: build-guest-image.sh OUTDIR" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap and chroot need it)"
for t in debootstrap mkfs.ext4 sha256sum chroot; do
        command -v "$t" >/dev/null || die "$t is missing: scripts/install-deps.sh installs it"
done

OUT=$1
HASH=$(sha256sum "$0" | cut -c1-16)
DEST=$OUT/guest-$HASH
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
DEST=$OUT/guest-$HASH

# Tests that need the image may run at the same time: one builds, the
# others wait here and then find it cached.
exec 9>"$OUT/.lock"
flock 9

if [ -s "$DEST/image.raw" ] && [ -s "$DEST/vmlinuz" ] && [ -s "$DEST/initrd.img" ]; then
        ln -sfn "guest-$HASH" "$OUT/current"
        echo "build-guest-image: cached $DEST" >&2
        echo "$DEST"
        exit 0
fi

WORK=$(mktemp -d "$OUT/.build-$HASH.XXXXXX")
ROOT=$WORK/root
cleanup() {
        mountpoint -q "$ROOT/proc" 2>/dev/null && umount "$ROOT/proc"
        rm -rf "$WORK"
}
trap cleanup EXIT
start=$(date +%s)

echo "build-guest-image: debootstrap minbase bookworm into $ROOT" >&2
debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
        { tail -20 "$WORK/debootstrap.log" >&2; die "debootstrap failed"; }

# Services must not start inside the chroot; the guest starts its own.
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
chmod +x "$ROOT/usr/sbin/policy-rc.d"
echo "deb $MIRROR bookworm main" >"$ROOT/etc/apt/sources.list"
mount -t proc proc "$ROOT/proc"
echo "build-guest-image: apt-get install ${GUEST_PKGS[*]}" >&2
chroot "$ROOT" /bin/sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends ${GUEST_PKGS[*]}" >"$WORK/apt.log" 2>&1 ||
        { tail -20 "$WORK/apt.log" >&2; die "apt-get install in the guest failed"; }
umount "$ROOT/proc"

# --- configuration -------------------------------------------------------
echo hcisweep-guest >"$ROOT/etc/hostname"
passwd -R "$ROOT" -d root >/dev/null # console login without a password (a lab guest)
cat >"$ROOT/etc/fstab" <<'EOF'
/dev/vda  /              ext4  rw,errors=remount-ro  0 1
/dev/vdb  /srv/hcisweep  ext4  rw,nofail,x-systemd.device-timeout=30s  0 2
EOF
mkdir -p "$ROOT/srv/hcisweep"
mkdir -p "$ROOT/etc/systemd/network"
cat >"$ROOT/etc/systemd/network/10-user.network" <<'EOF'
# QEMU user-mode networking: fixed address, no DHCP server needed.
[Match]
Name=en* eth*

[Network]
Address=10.0.2.15/24
Gateway=10.0.2.2
DNS=10.0.2.3
EOF
cat >"$ROOT/etc/mysql/mariadb.conf.d/99-hcisweep.cnf" <<'EOF'
[mysqld]
bind-address = 0.0.0.0
port = 3306
datadir = /srv/hcisweep/mysql
init_file = /srv/hcisweep/init.sql
skip-name-resolve
!include /srv/hcisweep/my.cnf
EOF
cat >"$ROOT/usr/local/sbin/hcisweep-datadir" <<'EOF'
#!/bin/sh
# Seed the datadir on the database disk from the image's installed one.
set -e
D=/srv/hcisweep
mountpoint -q $D || { echo "hcisweep-datadir: $D is not mounted (no /dev/vdb?)" >&2; exit 1; }
touch $D/my.cnf
chown mysql:mysql $D/init.sql $D/my.cnf 2>/dev/null || true
if [ ! -d $D/mysql/mysql ]; then
        rm -rf $D/mysql.new
        cp -a /var/lib/mysql $D/mysql.new
        mv $D/mysql.new $D/mysql
fi
chown -R mysql:mysql $D/mysql
EOF
chmod +x "$ROOT/usr/local/sbin/hcisweep-datadir"
cat >"$ROOT/etc/systemd/system/hcisweep-datadir.service" <<'EOF'
[Unit]
Description=hcisweep: MariaDB datadir on the iSCSI data disk
RequiresMountsFor=/srv/hcisweep
Before=mariadb.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/hcisweep-datadir
RemainAfterExit=yes

[Install]
RequiredBy=mariadb.service
EOF
chroot "$ROOT" systemctl enable systemd-networkd hcisweep-datadir mariadb serial-getty@ttyS0 \
        >/dev/null 2>&1 || die "systemctl enable in the guest failed"
# Nothing in the guest waits for the network to be "online".
chroot "$ROOT" systemctl mask systemd-networkd-wait-online apt-daily.timer \
        apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap fstrim.timer >/dev/null 2>&1 || true
[ -d "$ROOT/var/lib/mysql/mysql" ] || die "mariadb-server left no datadir in /var/lib/mysql"

# --- kernel and initrd ---------------------------------------------------
KERNEL=$(ls "$ROOT"/boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
INITRD=$(ls "$ROOT"/boot/initrd.img-* 2>/dev/null | sort -V | tail -1)
[ -n "$KERNEL" ] && [ -n "$INITRD" ] || die "no kernel or initrd in the guest's /boot"
LIST=$(chroot "$ROOT" lsinitramfs "/boot/$(basename "$INITRD")")
BUILTIN=$(cat "$ROOT/lib/modules/${KERNEL##*vmlinuz-}/modules.builtin")
for m in "${NEED_MODULES[@]}"; do
        grep -q "/$m\.ko" <<<"$LIST$BUILTIN" || die "initrd has no $m"
done
# The agent's port needs virtio_console, loaded by udev from the root filesystem.
find "$ROOT/lib/modules/${KERNEL##*vmlinuz-}" -name 'virtio_console.ko*' | grep -q . ||
        grep -q "/virtio_console\.ko" <<<"$BUILTIN" || die "the guest kernel has no virtio_console"
[ -f "$ROOT/lib/udev/rules.d/60-qemu-guest-agent.rules" ] ||
        die "qemu-guest-agent left no udev rule to start it"

rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/* "$ROOT/usr/sbin/policy-rc.d"
mkdir -p "$WORK/out"
chroot "$ROOT" dpkg-query -W -f='${Package} ${Version}\n' >"$WORK/out/packages"
cp "$KERNEL" "$WORK/out/vmlinuz"
cp "$INITRD" "$WORK/out/initrd.img"
rm -f "$ROOT"/boot/vmlinuz-* "$ROOT"/boot/initrd.img-*
mkfs.ext4 -q -F -L hcisweep-root -d "$ROOT" "$WORK/out/image.raw" "$IMAGE_SIZE" >&2 ||
        die "mkfs.ext4 -d failed (image too small? IMAGE_SIZE=$IMAGE_SIZE)"
rm -rf "$DEST"
mv "$WORK/out" "$DEST"
ln -sfn "guest-$HASH" "$OUT/current"
echo "build-guest-image: built $DEST in $(($(date +%s) - start)) s" >&2
echo "$DEST"
