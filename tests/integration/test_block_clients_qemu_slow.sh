#!/usr/bin/env bash
# test_block_clients_qemu_slow.sh - `hcisweep block --clients vms` on the qemu
# backend: one TCG guest whose block client runs inside it, started by the
# QEMU guest agent through the bridge on this host (lab/guest_driver.h), on
# the guest's own disk of its load LUN (GUEST_LOAD_DISK, lab/guest.h: the
# third virtio disk, LUN 1 of the lab's load target). A QD sweep 1, 4 of 4k
# randread, 2 s a point: both points are relayed by the one bridge (every
# ready, go, started and result of the sweep), each lists vm1 with where
# "guest", carrier "guest", its host and a finite start skew taken through
# the guest's clock; the aggregate is the per-client sum; the target's
# counters show the I/O reached the load LUN. Afterwards no bridge is left
# here, no client or bridge file in the guest, and no QEMU after lab down.
# The image is the cached one of test_qemu_drivers_slow.sh (its recipe's hash).
. "$TESTLIB"

. "$SRC/tests/qemu.sh"
need_socat
export HCISWEEP_INDEX=$T/index.sqlite
common=("${QEMU_LAB[@]}")
on_exit kill_listed
on_exit "$HCISWEEP" lab down "${common[@]}"
bridges() { pgrep -f -- "lab guest-driver .*$LAB/" || true; }

# --- the image (cached), pinned for this test ------------------------------------------
guest_image
guest_pin

# --- the lab: one guest, its database LUN and its load LUN ---------------------------
t0=$(date +%s)
expect_rc 0 "$HCISWEEP" lab up --vms 1 --vm-cpus 1 --vm-memory 512M --lun-size 256M "${common[@]}"
echo "# lab up: $(($(date +%s) - t0)) s"

# --- the sweep: 2 points through one bridge ------------------------------------------
t0=$(date +%s)
expect_rc 0 "$HCISWEEP" block --clients vms "${common[@]}" --rw randread --bs 4k --iodepth 1,4 \
        --runtime 2 --per-client --json "$T/r.json"
echo "# sweep: $(($(date +%s) - t0)) s"
grep -q 'all 1 clients\|all 1 client' <<<"$OUT" || fail "no aggregate rows: $OUT"
jq -e '(.points | length) == 2 and .config.backend == "qemu" and all(.points[];
          .n_clients == 1 and [.clients[].name] == ["vm1"]
          and all(.clients[]; .where == "guest" and .carrier == "guest" and .error == null
                  and .host == "localhost" and .iops > 0 and .targets == ["/dev/vdc"]
                  and (.start_skew_ms | type == "number") and (.start_skew_ms | isinfinite | not)))
        and ([.points[].iodepth] == [1, 4])' "$T/r.json" >/dev/null ||
        fail "the points: $(jq -c '[.points[] | {iodepth, n_clients, c: [.clients[] | {name, host, where, carrier, targets, iops, start_skew_ms, error}]}]' "$T/r.json" | head -c 1500)"
clients_sum_is_agg "$T/r.json"
# the guest's I/O went to its load LUN: the client's device in the guest is that disk
size=$(guest_sh "cat /sys/block/vdc/size")
want=$(($(stat -c %s "$LAB/vm1/load.img") / 512))
[ "$size" = "$want" ] || fail "the guest's vdc has $size sectors, the load LUN $want"

# --- nothing left ------------------------------------------------------------------------
[ -z "$(bridges)" ] || fail "bridges left running: $(bridges | tr '\n' ' ')"
left=$(guest_sh "pgrep -af -- --start-on-g[o]; ls /run/hcisweep-driver-* 2>/dev/null; true")
[ -z "$left" ] || fail "left in the guest: $left"
pass "qemu guest as a block client: 2 points through one bridge, where/carrier guest, aggregate = sum"

expect_rc 0 "$HCISWEEP" lab down "${common[@]}"
[ -z "$(lab_qemus)" ] || fail "QEMU left after lab down"
pass "lab down: nothing left running"
