#!/usr/bin/env bash
# hcisweep block --clients local:N: a lockstep sweep on N client processes.
# Every point lists every client, its aggregate is the per-client sum (IOPS,
# I/Os, the merged histogram's count), each client's start skew is recorded
# and flagged late exactly when over 1% of the runtime (none a tenth of it); --per-client prints their rows; a client that
# cannot start is exit 3 before the first point, naming it; a client killed
# mid-point leaves that point degraded, named, the other counted; SIGINT is
# exit 130 with every client's partial point kept. With --target-ci the
# controller's rule on the merged IOPS series sets one window for every
# client, also when one of them is lost mid-point. No client is left running
# after any of these.
. "$TESTLIB"
cd "$T"
F="$T/f1,$T/f2,$T/f3"
common=(--engine psync --size 8m --bs 4k)
left() { pgrep -f -- "=$T/.*--start-on-go" >/dev/null; }
no_driver_left() { ! left || fail "a client is still running after $1: $(pgrep -af -- "$T/")"; }

# --- the sweep: 2 rw x 2 qd, 3 clients, per-client rows
expect_rc 0 "$HCISWEEP" block --clients local:3 --filename "$F" "${common[@]}" \
        --rw randread,randwrite --iodepth 1,4 --runtime 3 --per-client --json "$T/r.json"
no_driver_left "the sweep"
[ "$(echo "$OUT" | grep -c 'all 3 clients')" -eq 4 ] || fail "4 aggregate rows: $OUT"
[ "$(echo "$OUT" | grep -cE '^rand(read|write) .* c[123] ')" -eq 12 ] || fail "12 client rows: $OUT"
jq -e '(.points | length) == 4 and all(.points[];
          .n_clients == 3 and (.clients | length) == 3 and .stonewall.mode == "first"
          and ([.clients[].name] | sort) == ["c1", "c2", "c3"]
          and ([.clients[].targets[]] | length) == 3
          and all(.clients[]; .error == null and .cpu_s > 0
                  and .late == (.start_skew_ms | fabs > 30) and (.start_skew_ms | fabs) < 300)
          and (.slowest | type) == "string")' "$T/r.json" >/dev/null ||
        fail "the points: $(jq -c '[.points[] | {n_clients, slowest, c: [.clients[] | {name, start_skew_ms, late, error, targets}]}]' "$T/r.json")"
# the aggregate is the per-client sum, within the JSON's float printing
jq -r '.points[] | [(.read.iops + .write.iops), ([.clients[].iops] | add),
        (.read.ios + .write.ios), ([.clients[] | .read.ios + .write.ios] | add),
        ([.read.hist, .write.hist | .. | numbers] | length)] | @tsv' "$T/r.json" |
        while read -r agg sum ios ios_sum _; do
                near "$agg" "$sum" "$(awk -v a="$agg" 'BEGIN { print a * 1e-9 + 1e-6 }')" ||
                        fail "aggregate IOPS $agg, per-client sum $sum"
                [ "$ios" = "$ios_sum" ] || fail "aggregate I/Os $ios, per-client sum $ios_sum"
        done
jq -e 'all(.points[]; .read.lat_ns.percentile != null)' "$T/r.json" >/dev/null || fail "no percentiles"
# every point read this host as scale does (cluster.hosts[]), sampled every 2 s over its
# 3 s window: a 2 s sample and the rest, each host's CPU split, disks and network
jq -e 'all(.points[]; .cluster.interval_s == 2
          and ([.cluster.hosts[] | select(.name == "local" and .role == "client"
                and .source == "procfs")] | length) == 1
          and all(.cluster.hosts[]; .cpu.busy >= 0 and .cpu.user >= 0 and .cpu.system >= 0
                  and .cpu.iowait >= 0 and (.cpu | has("steal")) and (.disks | type) == "array"
                  and (.net | has("rx_bytes_s") and has("tx_bytes_s")))
          and (.cluster.series | length) == 2 and .cluster.series[0].t_s == 0
          and all(.cluster.series[]; (.hosts | length) == 1 and .seconds > 0))' "$T/r.json" >/dev/null ||
        fail "the hosts: $(jq -c '[.points[].cluster | {interval_s, hosts, s: [.series[] | {t_s, seconds}]}]' "$T/r.json")"

# --- --stonewall last is recorded, both windows are
expect_rc 0 "$HCISWEEP" block --clients local:2 --filename "$F" "${common[@]}" --runtime 1 \
        --stonewall last --json "$T/l.json"
jq -e '.points[0].stonewall | .mode == "last" and .first.seconds > 0 and .last.seconds > 0
        and .last.seconds >= .first.seconds' "$T/l.json" >/dev/null ||
        fail "stonewall: $(jq -c '.points[0].stonewall' "$T/l.json")"
no_driver_left "--stonewall last"

# --- --target-ci: the controller's rule on the merged IOPS series decides one window for all
# (ramp 2 s at most, then 20 samples of 0.5 s give a CI; 50% is met at the first look)
expect_rc 0 "$HCISWEEP" block --clients local:2 --filename "$F" "${common[@]}" --ramp-time 2 \
        --runtime 12 --target-ci 50 --json "$T/ci.json"
no_driver_left "--target-ci"
echo "$OUT" | grep -q "^steady: warm-up .* (the merged IOPS of 2 clients, window 2\.[0-9]*-12\.[0-9]* s after the go: stonewall first)" ||
        fail "no steady line: $OUT"
# the rule's verdict as a one-process point records it, and its window (the controller's
# measure and stop orders, seconds after the go); every client measured over that window
# (within 0.3 s: the orders cross a pipe, a point ends within 50 ms of its stop)
jq -e '.points[0] | .steady as $s | $s.target_ci_pct == 50 and $s.met == true
        and $s.settled == false and $s.warmup_s == 2 and $s.measured_s == 10
        and $s.ci_pct <= 50 and ($s.window_s.start - 2 | fabs) < 0.3
        and $s.clients == 2 and $s.stonewall == "first"
        and ($s.window_s.end - $s.window_s.start - $s.measured_s | fabs) < 0.3
        and (.clients | length) == 2
        and all(.clients[]; .error == null and .iops > 0
                and (.window_s.start - $s.window_s.start | fabs) < 0.3
                and (.window_s.end - $s.window_s.end | fabs) < 0.3
                and (.runtime_s - $s.measured_s | fabs) < 0.3)
        and (.stonewall.first.seconds - $s.measured_s | fabs) < 0.3' "$T/ci.json" >/dev/null ||
        fail "--target-ci: $(jq -c '.points[0] | {steady, c: [.clients[] | {name, window_s, runtime_s, error}], stonewall}' "$T/ci.json")"
jq -r '.points[0] | "target-ci: \(.steady | {warmup_s, measured_s, ci_pct, met, window_s, clients, stonewall}) clients: \([.clients[].window_s])"' "$T/ci.json"
# each client's own figures come from the window the controller chose, not from a rule of its own
jq -e 'all(.points[0].clients[]; has("steady") | not)' "$T/ci.json" >/dev/null ||
        fail "a client ran a rule of its own"

# --- a client-count scan 1,2: the efficiency per count, and a verdict
expect_rc 0 "$HCISWEEP" block --clients local:2 --client-counts 1,2 --filename "$F" "${common[@]}" \
        --runtime 1 --json "$T/s.json"
echo "$OUT" | grep -E '^scan: randread 4k qd 1: (linear to|saturates at) ' || fail "no verdict: $OUT"
jq -e '[.points[].n_clients] == [1, 2] and .points[0].scaling_efficiency == 1
        and (.points[1].scaling_efficiency - (.points[1].read.iops / (2 * .points[0].read.iops)) | fabs) < 1e-6
        and (.scan | length) == 1 and (.scan[0].verdict | test("^(linear to|saturates at) "))
        and (.tipping_point.verdict | test("randread 4k qd 1: "))' "$T/s.json" >/dev/null ||
        fail "the scan: $(jq -c '{p: [.points[] | {n_clients, scaling_efficiency}], scan, tipping_point}' "$T/s.json")"
jq -r '.points[] | "\(.n_clients) clients: \(.read.iops) IOPS, efficiency \(.scaling_efficiency)"' "$T/s.json"
jq -e '.tipping_point.limited_by | IN("none", "cpu", "storage", "vm-cpu", "memory")' "$T/s.json" \
        >/dev/null || fail "scan limited_by: $(jq -c .tipping_point "$T/s.json")"
# the same scan as a CSV (one row per host and count, as the points recorded them): analyze
# gives the verdict block gave
jq -r '"clients,throughput,latency_ms,storage_lat_ms,host,role,cpu_busy_pct,steal_pct,disk_util_pct",
  (.points[] | . as $p | ([.read, .write] | map(.ios) | add) as $ios
   | (if $ios > 0 then (.read.ios * .read.lat_ns.mean + .write.ios * .write.lat_ns.mean) / $ios / 1e6
      else "" end) as $lat
   | ([.cluster.hosts[] | select(.cpu != null) | .disks // [] | .[]
       | select(.iops != null and .lat_ms != null)]) as $d
   | (if ($d | map(.iops) | add // 0) > 0 then ($d | map(.iops * .lat_ms) | add) / ($d | map(.iops) | add)
      else "" end) as $slat
   | .cluster.hosts[] | select(.cpu != null and .cpu.busy != null)
   | [$p.n_clients, ($p.read.iops + $p.write.iops), $lat, $slat, .name, .role, .cpu.busy,
      (.cpu.steal // ""), ([.disks // [] | .[] | .util_pct | select(. != null)] | max // "")]
   | @csv)' "$T/s.json" | tr -d '"' >"$T/s.csv"
expect_rc 0 "$HCISWEEP" analyze "$T/s.csv" --json "$T/sa.json"
jq -e --slurpfile b "$T/s.json" '.scan.verdict == $b[0].scan[0].verdict' "$T/sa.json" >/dev/null ||
        fail "analyze of the scan's CSV: $(jq -c .scan "$T/sa.json") against block's $(jq -c '.scan[0]' "$T/s.json")"
# ... and of its result.json: one ramp per point over the client count, the same verdict
expect_rc 0 "$HCISWEEP" analyze "$T/s.json" --json "$T/sj.json"
jq -e --slurpfile b "$T/s.json" '.ramps[0].name == "randread 4k qd 1" and .ramps[0].load_name == "clients"
        and .scan.verdict == $b[0].scan[0].verdict' "$T/sj.json" >/dev/null ||
        fail "analyze of the scan's result: $(jq -c '{r: [.ramps[] | {name, load_name}], scan}' "$T/sj.json")"
no_driver_left "a scan"

# --- bad input: exit 2 naming the option, before any client starts
expect_rc 2 "$HCISWEEP" block --clients local:0 --filename "$F" "${common[@]}" --json "$T/b.json"
echo "$OUT" | grep -q -- '--clients' || fail "local:0: $OUT"
expect_rc 2 "$HCISWEEP" block --clients local:2 --client-counts 1,3 --filename "$F" "${common[@]}" \
        --json "$T/b.json"
echo "$OUT" | grep -q -- '--client-counts: 3 clients, but 2' || fail "counts over the clients: $OUT"
printf '[host a]\nrole = client\ntargets = %s/f1\n' "$T" >"$T/nossh.ini"
expect_rc 2 "$HCISWEEP" block --clients inventory --inventory "$T/nossh.ini" "${common[@]}" \
        --json "$T/b.json"
echo "$OUT" | grep -q "nossh.ini:[0-9]*: \[host a\] has role = client but no ssh" || fail "no ssh: $OUT"
# the one inventory reader (lab/backend_static.c): targets = is a client's only
printf '[host a]\nrole = client\nssh = 127.0.0.1\n[host s]\nrole = storage\ntargets = %s/f1\n' \
        "$T" >"$T/stgt.ini"
expect_rc 2 "$HCISWEEP" block --clients inventory --inventory "$T/stgt.ini" "${common[@]}" \
        --json "$T/b.json"
echo "$OUT" | grep -q "stgt.ini:6: \[host s\]: targets = is for role = client hosts" ||
        fail "targets on a storage host: $OUT"
[ ! -e "$T/b.json" ] || fail "a result was written for bad input: $(cat "$T/b.json")"
no_driver_left "bad input"

# --- a client that cannot start: exit 3 before the first point, naming it
expect_rc 3 "$HCISWEEP" block --clients local:2 --filename "$T/f1,$T/no/such/dir/f" \
        "${common[@]}" --runtime 1 --json "$T/u.json"
echo "$OUT" | grep -q 'client c2' || fail "the unreachable client is not named: $OUT"
jq -e '.partial == true and (.points | length) == 0' "$T/u.json" >/dev/null ||
        fail "points before the failed start: $(jq -c . "$T/u.json")"
no_driver_left "a client that could not start"

# --- a client killed mid-point: that point degraded, named; exit 3
two() { [ "$(pgrep -fc -- "=$T/.*--start-on-go")" -eq 2 ]; }
# kill_c2 NAME OPTS...: a local:2 run of OPTS (result $T/NAME.json) whose client c2 is killed
# 2 s into its first point; the run must exit 3 (a client lost).
kill_c2() {
        local name=$1 ctl rc=0
        shift
        "$HCISWEEP" block --clients local:2 --filename "$T/f1,$T/f2" "${common[@]}" "$@" \
                --json "$T/$name.json" >"$T/$name.out" 2>&1 &
        ctl=$!
        on_exit "kill -9 $ctl 2>/dev/null; pkill -9 -f -- '=$T/.*--start-on-go' 2>/dev/null"
        wait_until 30 two
        sleep 2 # within the point (and past a 1 s ramp)
        pkill -9 -f -- "filename=$T/f2 .*--start-on-go"
        wait "$ctl" || rc=$?
        [ "$rc" -eq 3 ] || fail "$name: a lost client: exit $rc: $(cat "$T/$name.out")"
}
kill_c2 k --runtime 8
jq -e '(.points | length) == 1 and .points[0].degraded == ["c2"]
        and (.points[0].clients[1].error | test("lost"))
        and .points[0].clients[0].iops > 0 and .points[0].read.iops == .points[0].clients[0].iops' \
        "$T/k.json" >/dev/null || fail "the degraded point: $(jq -c '.points' "$T/k.json" | head -c 600)"
no_driver_left "a lost client"

# --- --target-ci with a client killed mid-point: the rule goes on without it, the point is
# degraded and names it, the other client is told measure and stop; with --stonewall last the
# result says the rule's window was the survivors' (stonewall last)
kill_c2 kc --ramp-time 1 --runtime 6 --target-ci 1 --stonewall last
jq -e '.points[0] | .degraded == ["c2"] and (.clients[1].error | test("lost"))
        and .steady.met == false and .steady.measured_s > 4 and .steady.window_s.end != null
        and .steady.clients == 1 and .steady.stonewall == "last" and .stonewall.mode == "last"
        and (.clients[0].window_s.end - .steady.window_s.end | fabs) < 0.3
        and .clients[0].iops > 0' "$T/kc.json" >/dev/null ||
        fail "--target-ci, the degraded point: $(jq -c '.points[0] | {degraded, steady, c: [.clients[] | {error, window_s}]}' "$T/kc.json" | head -c 600)"
no_driver_left "--target-ci with a lost client"

# --- SIGINT: 130, every client's partial point kept
"$HCISWEEP" block --clients local:2 --filename "$T/f1,$T/f2" "${common[@]}" --runtime 30 \
        --iodepth 1,2 --json "$T/i.json" >"$T/i.out" 2>&1 &
ctl=$!
on_exit "kill -9 $ctl 2>/dev/null"
wait_until 30 two
sleep 2
kill -INT "$ctl"
rc=0
wait "$ctl" || rc=$?
[ "$rc" -eq 130 ] || fail "SIGINT: exit $rc: $(cat "$T/i.out")"
jq -e '.partial == true and (.points | length) == 1 and .points[0].n_clients == 2
        and all(.points[0].clients[]; .error == null and .iops > 0)' "$T/i.json" >/dev/null ||
        fail "after SIGINT: $(jq -c '{partial, p: [.points[] | {n_clients, c: [.clients[] | {iops, error}]}]}' "$T/i.json")"
no_driver_left "SIGINT"
pass "local:3 lockstep sweep (aggregate = per-client sum, skew recorded), stonewall last, --target-ci on the merged series (one window, a lost client does not hang it), unreachable exit 3, lost client degraded, SIGINT 130 partial, no client left"
