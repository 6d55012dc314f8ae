#!/usr/bin/env bash
# test_lab_pinned_mount.sh - a process that holds a private mount namespace
# made while the lab's filesystems were mounted (unshare -m, as systemd's
# PrivateTmp services and containers do) keeps a copy of each VM's ext4 mount,
# so its loop device cannot detach when the lab unmounts it. `scale` and
# `lab down` still end 0, with a warning naming the holder; a later `lab up`
# on the same LUN file works beside the pinned loop; once the holders exit,
# no mount and no loop device of the lab is left anywhere.
. "$TESTLIB"

ADDR=$(test_addr 0)
BASE=${ADDR%.*}
PORT=$(test_port 0)
TPORT=$(test_port 1)
LAB=$T/lab
common=(--lab-dir "$LAB" --addr-base "$BASE" --base-port "$PORT" --target-port "$TPORT")
vm=(--vm-memory 256M --lun-size 256M)
lab() { "$HCISWEEP" lab "$@" "${common[@]}"; }
PINS=()
unpin() { [ ${#PINS[@]} -eq 0 ] || kill "${PINS[@]}" 2>/dev/null; }
on_exit kill_listed
on_exit lab down
on_exit unpin

# pin: a process in a private copy of the current mounts, until killed
own_ns() { [ "$(readlink "/proc/$1/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ]; }
pin() {
        unshare -m --propagation private sleep 600 &
        PINS+=($!)
        wait_until 10 own_ns $!
}
# the loop devices a warning named: they go once their holder does
PINNED=()
pinned() { PINNED+=($(sed -n 's/.*\(loop[0-9]*\) stays on .*/\1/p' <<<"$1")); }
unbound() { [ ! -e "/sys/block/$1/loop/backing_file" ]; }
no_loops() {
        local l
        losetup -n -O BACK-FILE | grep -q "^$LAB/" && return 1
        for l in "${PINNED[@]}"; do unbound "$l" || return 1; done
}
lab_mounts() { grep -c " $LAB/" /proc/self/mountinfo || true; }

# --- scale over a lab whose vm1 is pinned ------------------------------------
expect_rc 0 lab up --vms 1 "${vm[@]}"
pin
expect_rc 0 "$HCISWEEP" scale --vms 1,2 "${vm[@]}" "${common[@]}" --tables 1 --table-size 200 \
        --threads 1 --warmup-time 1 --time 2 --output-dir "$T/runs"
grep -q "loop[0-9]* stays on $LAB/vm1/lun.fuse while the mount namespace of PID ${PINS[0]} holds" \
        <<<"$OUT" || fail "no warning naming the holder: $OUT"
pinned "$OUT"
[ "$(lab_mounts)" = 0 ] || fail "scale left mounts here: $(grep " $LAB/" /proc/self/mountinfo)"
pass "scale ended 0 with vm1's disk pinned, and warned"

# --- up beside the pinned loop, pinned again, down ----------------------------
expect_rc 0 lab up --vms 1 "${vm[@]}"
grep -q "^vm1 .* disk=loop[0-9]* " <<<"$OUT" || fail "up beside the pinned loop: $OUT"
pin
expect_rc 0 lab down
grep -q "while the mount namespace of PID ${PINS[1]} holds" <<<"$OUT" || fail "down: $OUT"
pinned "$OUT"
[ ${#PINNED[@]} = 2 ] || fail "expected two pinned loops: ${PINNED[*]}"
for l in "${PINNED[@]}"; do unbound "$l" && fail "$l unbound while pinned"; done
[ "$(lab_mounts)" = 0 ] || fail "down left mounts here: $(grep " $LAB/" /proc/self/mountinfo)"
[ ! -e "$LAB/state" ] || fail "down left its state"
pass "lab down ended 0 with ${PINNED[*]} pinned: $(grep -m1 "stays on" <<<"$OUT")"

# --- the holders go: everything goes -------------------------------------------
unpin
for p in "${PINS[@]}"; do wait_gone "$p"; done
PINS=()
wait_until 30 no_loops
! grep -q "$LAB/" /proc/*/mountinfo 2>/dev/null || fail "mounts of the lab left in some namespace"
pass "once the holders exited no loop device or mount of the lab is left"
