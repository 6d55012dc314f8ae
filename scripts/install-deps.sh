#!/usr/bin/env bash
# Install every Debian package hcisweep needs to build, test and benchmark.
# Idempotent: packages already present are skipped. Run as root (or via sudo).
set -euo pipefail

PKGS=(
  # build
  build-essential cmake pkg-config
  # libraries (through pkg-config)
  libiscsi-dev liburing-dev libjansson-dev libinih-dev
  libmariadb-dev libmariadb-dev-compat libsqlite3-dev libcmocka-dev libmicrohttpd-dev
  libcurl4-openssl-dev
  # real servers and tools the tests and the local lab drive
  tgt libiscsi-bin mariadb-server mariadb-client
  # peers for the benchmarks and compatibility tests
  sysbench fio
  # QEMU's iSCSI driver through qemu-img bench (bench/block_vs_peers)
  qemu-utils qemu-block-extra
  # headless browser: report pages are opened and screenshotted in tests
  chromium
  # misc tools the scripts use
  util-linux procps iproute2 xxd jq python3
  # tests see which io_uring calls a run makes
  strace
  # quality gates; clang and its libFuzzer runtime for tests/fuzz (test_fuzz_slow)
  clang-format cppcheck clang libclang-rt-14-dev
  # live metrics: a real Prometheus scrapes --metrics-listen (tests), curl reads it
  prometheus curl
  # host-metrics sources: a real node_exporter per test host (core/hostsrc_node.c)
  prometheus-node-exporter
  # the .deb: CPack's dependency list (dpkg-shlibdeps, file), lintian, man -l
  dpkg-dev file lintian man-db
  # local lab, datadirs on the LUNs: qemu-storage-daemon (libiscsi initiator, FUSE
  # export), loop devices (losetup), ext4 and findmnt/debugfs in the tests
  qemu-system-common mount e2fsprogs
  # qemu backend: guest image build (scripts/build-guest-image.sh) and VMs; socat: a test
  # asks the guest agent what runs in a guest (tests/integration/test_qemu_drivers_slow.sh)
  debootstrap qemu-system-x86 e2fsprogs socat
  # Vagrantfile check (tests/cli/test_vagrant.sh: vagrant validate, no VM made)
  vagrant
  # libvirt backend (lab/backend_libvirt.c) and its test's own libvirtd
  libvirt-dev libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients
  # scale --driver-placement vm on a static inventory: drivers over OpenSSH, and the
  # test's own sshd (tests/integration/test_scale_ssh.sh)
  openssh-client openssh-server
  # libfaketime: an ssh driver whose clock is shifted by seconds, so the controller's
  # clock offset is tested across "hosts" (tests/integration/test_scale_ssh.sh)
  faketime
  # GNU time's max RSS: a long series is reported in bounded memory (tests/cli/test_series_read.sh)
  time
)

# sshd wants its privilege-separation directory, which lives on a tmpfs and is
# gone after a reboot: made on every run, even when nothing is to be installed.
# No daemon is started here (see policy-rc.d below): the tests start their own.
mkdir_run_sshd() {
  local sudo=""
  [ -d /run/sshd ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: run as root (need /run/sshd)" >&2; exit 1; }
    sudo=sudo
  fi
  $sudo mkdir -p -m 0755 /run/sshd
}

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  mkdir_run_sshd
  echo "install-deps: all ${#PKGS[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root (need apt-get)" >&2; exit 1; }
  SUDO=sudo
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# mariadb-server's and openssh-server's postinsts try to start a system
# service; the project starts its own servers, so a policy-rc.d that forbids
# starts keeps the install from spawning a daemon nobody stops (removed again
# when this script made it).
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
mkdir_run_sshd
echo "install-deps: done"
