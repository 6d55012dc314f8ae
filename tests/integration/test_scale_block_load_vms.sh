#!/usr/bin/env bash
# scale --block-load with --driver-placement vm: the block load runs inside
# each VM (a `block` client per VM on its load LUN, started by the backend's
# spawn op as the OLTP driver is), not in the controller. Two local VMs: each
# block client, read in /proc/PID/cgroup while it runs, is in its VM's
# cgroups (its mariadbd's); the step's result still carries the block
# figures (block_load read I/Os, IOPS, latency; storage.block_load_iops);
# with --target-ci the block clients measure over the OLTP step's window; a
# block client killed mid-step degrades the block load, not the step;
# nothing is left running.
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

# --target-ci: the rule that steers the OLTP drivers tells the block clients "measure" and
# "stop" at the same instants, so the block load's window is the step's: its window (the
# instants the orders went out) is the step's within 0.5 s, each client's own window (its
# start and ramp in its clock, moved into ours) is that window within 0.5 s, and the rule,
# not --time, ends it. Nothing is left running: no block client, no OLTP driver.
drivers() { pgrep -f -- "--mysql-host=${ADDR%.*}\.[0-9]+:.*--start-on-go" || true; }
expect_rc 0 "$HCISWEEP" "${S[@]}" --time 12 --target-ci 50 --output-dir "$T/ci"
CR=$(sed -n 's/^result: //p' <<<"$OUT")
[ -f "$CR" ] || fail "no --target-ci result: $OUT"
[ -z "$(loads)" ] || fail "block clients left: $(loads)"
[ -z "$(drivers)" ] || fail "OLTP drivers left: $(drivers | tr '\n' ' ')"
jq -e 'def ms: (.[0:19] + "Z" | fromdateiso8601) * 1000 + (.[20:23] | tonumber);
        def near($a; $b; $tol): ($a - $b) | (if . < 0 then -. else . end) <= $tol;
        [.steps[] | select(.state == "ok")] | length > 0 and all(.[];
        .steady.target_ci_pct == 50 and (.drivers | length) == 2
        and (.block_load | .iops > 0 and .read.ios > 0 and .n_clients == 2
             and .degraded == [] and (has("error") | not))
        and near(.block_load.window.start | ms; .window.start | ms; 500)
        and near(.block_load.window.end | ms; .window.end | ms; 500)
        and (.block_load.window_s as $w | all(.block_load.clients[];
                near(.window_s.start; $w.start; 0.5) and near(.window_s.end; $w.end; 0.5))))' \
        "$CR" >/dev/null ||
        fail "the --target-ci steps: $(jq -c '[.steps[] | {state, window, steady,
                b: (.block_load | {iops, window, window_s, n_clients, degraded, error,
                c: [.clients[]? | {name, window_s, error}]})}]' "$CR")"
pass "--block-load in the VMs with --target-ci: one window, $(jq -c '.steps[0] | {window,
        measured_s: .steady.measured_s, blk_iops: (.block_load.iops | floor),
        blk_window_s: .block_load.window_s}' "$CR")"

# A VM's block client killed mid-step (a --target-ci never met: the window runs its whole
# --time): the step's block load is degraded naming vm2, vm1's block figures are kept, the
# OLTP step goes on (ok), and nothing is left running.
"$HCISWEEP" "${S[@]}" --time 10 --target-ci 0.01 --output-dir "$T/kill" >"$T/k.out" 2>&1 &
KP=$!
on_exit "kill $KP"
victim() { # vm2's block client, once it has run for 4 s (its go is long past, its window open)
        local pid
        pid=$(loads | awk '/\.load\/2 /{print $1; exit}')
        [ -n "$pid" ] && [ "$(ps -o etimes= -p "$pid" 2>/dev/null || echo 0)" -ge 4 ] &&
                echo "$pid"
}
wait_until 150 victim >/dev/null
VP=$(victim)
kill -9 "$VP"
echo "killed vm2's block client $VP"
wait "$KP" || fail "scale with a lost block client: exit $?: $(tail -5 "$T/k.out")"
[ -z "$(loads)" ] || fail "block clients left: $(loads)"
[ -z "$(drivers)" ] || fail "OLTP drivers left: $(drivers | tr '\n' ' ')"
KR=$(sed -n 's/^result: //p' "$T/k.out")
jq -e '.steps[0] | .state == "ok" and .totals.tps > 0
        and (.block_load | .degraded == ["vm2"] and (.error | test("vm2"))
             and .iops > 0 and .read.ios > 0 and .n_clients == 2
             and ([.clients[] | select(.name == "vm1") | .error] == [null]))' "$KR" >/dev/null ||
        fail "a lost block client: $(jq -c '.steps[0] | {state, b: (.block_load | {iops, error,
                degraded, c: [.clients[]? | {name, error, iops}]})}' "$KR")"
pass "a VM's block client lost mid-step: $(jq -c '.steps[0] | {state,
        error: .block_load.error, blk_iops: (.block_load.iops | floor)}' "$KR")"
