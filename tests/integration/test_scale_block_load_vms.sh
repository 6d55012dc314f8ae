#!/usr/bin/env bash
# scale --block-load with --driver-placement vm: the block load runs inside
# each VM (a `block` client per VM on its load LUN, started by the backend's
# spawn op as the OLTP driver is), not in the controller. Two local VMs: each
# block client, read in /proc/PID/cgroup while it runs, is in its VM's
# cgroups (its mariadbd's); the step's result still carries the block
# figures (block_load read I/Os, IOPS, latency; storage.block_load_iops);
# --target-ci is refused naming the option; nothing is left running.
. "$TESTLIB"

local_lab
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
S=(scale --vms 2 --vm-memory 256M --datadir-on host --lun-size 64M "${common[@]}" --tables 1
        --table-size 200 --threads 2 --warmup-time 1 --driver-placement vm
        --block-load rw=randread,bs=4k,iodepth=2)
PAT="target=iscsi://127.0.0.1:$(test_port 1)/.*\.load/[0-9]+ .*--start-on-go"
loads() { ps -eo pid=,args= | grep -E -- "$PAT" | grep -v grep || true; }

"$HCISWEEP" "${S[@]}" --time 6 --output-dir "$T/runs" >"$T/s.out" 2>&1 &
SP=$!
on_exit "kill $SP"
seen=""
check_loads() { # each VM's block client in its VM's cgroups (looked at again until both were)
        local pid cmd vm cg
        while read -r pid cmd; do
                cg=$(cat "/proc/$pid/cgroup" 2>/dev/null) || continue
                vm=$(sed -En 's/.*\.load\/([0-9]+) .*/\1/p' <<<"$cmd")
                [ "$cg" = "$(cat "/proc/$(cat "$LAB/vm$vm/mariadbd.pid")/cgroup")" ] ||
                        fail "block load $pid of vm$vm: cgroups $(tr '\n' ' ' <<<"$cg") are not its VM's"
                grep -qw "vm$vm" <<<"$seen" || seen+=" vm$vm"
        done < <(loads)
        [ "$(wc -w <<<"$seen")" -eq 2 ]
}
wait_until 150 check_loads
echo "block load seen in the VMs' cgroups:$seen"
wait "$SP" || fail "scale: exit $?: $(tail -5 "$T/s.out")"
[ -z "$(loads)" ] || fail "block clients left: $(loads)"
RES=$(sed -n 's/^result: //p' "$T/s.out")
[ -f "$RES" ] || fail "no result: $(cat "$T/s.out")"
jq -e '.steps[0] | .state == "ok" and (.drivers | length) == 2
        and (.block_load | .rw == "randread" and .iodepth == 2 and .read.ios > 0
             and .errors == 0 and .read.lat_ns.mean > 0 and .seconds > 0 and (has("error") | not))
        and .storage.block_load_iops > 0' "$RES" >/dev/null ||
        fail "the step: $(jq -c '.steps[0] | {state, block_load: (.block_load | {iops, seconds, r: .read.ios, error}), storage}' "$RES")"
pass "block load in the VMs: $(jq -c '.steps[0] | {tps: (.totals.tps | floor),
        blk_iops: (.block_load.iops | floor), blk_s: .block_load.seconds}' "$RES")"

expect_rc 2 "$HCISWEEP" "${S[@]}" --time 2 --target-ci 10 --output-dir "$T/ci"
grep -q -- "option --block-load: with --driver-placement vm not with --target-ci" <<<"$OUT" ||
        fail "--target-ci not refused: $OUT"
[ -z "$(loads)" ] || fail "block clients left: $(loads)"
pass "--block-load in the VMs with --target-ci: refused naming the option"
