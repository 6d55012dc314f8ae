# test_scale.sh - `hcisweep scale` on the local lab: a three-step plan (1, 2,
# 3 real mariadbd "VMs" plus tgtd) with tiny tables and short steps. Checks
# one step per VM count, the merged histogram of each step (its count is the
# sum of the VMs' transactions), per-VM figures, host CPU, a tipping_point
# object, the table and the run index, and that nothing of the lab is left
# running afterwards, including a VM that was up before scale started. Then
# one step with --block-load: block I/O on the VM's LUN during the step, and
# the run directory's intervals.csv and job.ini.
. "$TESTLIB"

ADDR=$(test_addr 0)
BASE=${ADDR%.*}
LAB=$T/lab
export HCISWEEP_INDEX=$T/index.sqlite
common=(--lab-dir "$LAB" --addr-base "$BASE" --base-port "$(test_port 0)"
        --target-port "$(test_port 1)")
on_exit kill_listed
on_exit "$HCISWEEP" lab down "${common[@]}"
# Processes of this lab: every server started for it names the lab directory.
lab_procs() { pgrep -f -- "$LAB/" || true; }
# Gone: no such process, another program under a reused PID, or a zombie
# waiting for init to reap it (a server started by `lab up` is init's child).
gone() {
        local stat
        stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
        [[ $stat == *"($2) "[!ZX]* ]] && return 1
        return 0
}

# VM 1 is up before scale starts: scale must reuse it, and stop it at the end.
expect_rc 0 "$HCISWEEP" lab up --vms 1 --vm-memory 256M --lun-size 256M "${common[@]}"
P1=$(sed -n 's/^vm1 .*pid=\([0-9]*\).*/\1/p' <<<"$OUT")
[ -n "$P1" ] || fail "no PID for vm1: $OUT"

expect_rc 0 "$HCISWEEP" scale --vms 1-3:1 --vm-memory 256M --lun-size 256M "${common[@]}" \
        --tables 2 --table-size 500 --threads 2 --time 2 --warmup-time 0.5 \
        --percentile 50,99 --output-dir "$T/runs"
RUN=$OUT
RES=$(sed -n 's/^result: //p' <<<"$RUN")
[ -f "$RES" ] || fail "no result path printed: $RUN"
# the local lab is one host, this one, read from /proc as the controller
grep -qx "hosts: local (both, procfs /proc)" <<<"$RUN" || fail "hosts line: $RUN"
jq -e 'all(.steps[]; .cluster.hosts | length == 1 and .[0].controller == true
        and .[0].source == "procfs" and .[0].cpu.busy >= 0)' "$RES" >/dev/null ||
        fail "the local lab's cluster: $(jq -c '[.steps[].cluster]' "$RES")"
# one CPU window per step: this host's CPU in the step and in its cluster figures
# come from the same two reads (they were two windows, the monitor's and the cluster's)
jq -e 'all(.steps[]; ((100 - .host_cpu.idle - .host_cpu.iowait) - .cluster.hosts[0].cpu.busy
        | fabs) < 0.01 and ((.host_cpu.steal - .cluster.hosts[0].cpu.steal) | fabs) < 0.01)' \
        "$RES" >/dev/null ||
        fail "two CPU windows in a step: $(jq -c '[.steps[] | {h: .host_cpu, c: .cluster.hosts[0].cpu}]' "$RES")"
for n in 1 2 3; do
        grep -Eq "^ +$n +[0-9.]+ +[0-9.]+ .* ok" <<<"$RUN" || fail "no ok row for $n VMs: $RUN"
done
# the verdict: at most four lines, the first naming the topology
verdict() { awk '/^hci: /{on=1; print; next} on && /^  /{print; next} {on=0}' <<<"$1"; }
[ -n "$(verdict "$RUN")" ] && [ "$(verdict "$RUN" | wc -l)" -le 4 ] ||
        fail "no verdict of at most four lines: $RUN"
pass "three steps in the table, result at $RES"

# "stopped early" is a verdict on the TPS this busy host gave: both end the plan well.
jq -e '.kind == "scale" and (.status | IN("complete", "stopped early")) and .partial == false' \
        "$RES" >/dev/null ||
        fail "kind/status: $(jq -c '{kind,status,partial}' "$RES")"
jq -e '[.steps[].vms] == [1,2,3]' "$RES" >/dev/null || fail "steps: $(jq -c '[.steps[].vms]' "$RES")"
jq -e 'all(.steps[]; .hist.count == ([.hosts[].totals.transactions] | add)
        and .hist.count == .totals.transactions and .hist.count > 0
        and (.hosts | length) == .vms and .lat_ns.percentile["99.0"] >= .lat_ns.percentile["50.0"]
        and (.repeats | length) == 1 and .host_cpu.busy > 0 and .host_cpu.busy <= 100.5)' "$RES" >/dev/null ||
        fail "step figures: $(jq -c '.steps[] | {vms, c: .hist.count, t: .totals.transactions,
                v: [.hosts[].totals.transactions], cpu: .host_cpu.busy}' "$RES")"
jq -e 'all(.steps[]; all(.hosts[]; .alive and .cpu_pct > 0))' "$RES" >/dev/null ||
        fail "per-VM CPU: $(jq -c '[.steps[].hosts[] | {vm, cpu_pct, alive}]' "$RES")"
jq -e '.tipping_point | has("vms") and (.limited_by | IN("cpu","storage","vm-cpu","memory","none"))
        and (.reason | length > 20) and (.usl | has("lambda") and has("sigma") and has("kappa")
        and has("peak_load") and has("rmse")) and (.verdict | split("\n") | length) <= 4
        and (.evidence | length > 0 and all(.[]; has("figure") and has("at") and has("value")
        and has("unit") and has("rule")))' "$RES" >/dev/null ||
        fail "tipping_point: $(jq -c .tipping_point "$RES")"
jq -e 'all(.steps[]; (.cpu_by_owner | .vms > 0 and .driver > 0 and .storage >= 0
        and .other >= 0 and (.vms + .storage + .driver) <= 100.5) and .vm_quota.cpus == 1
        and .vm_quota.used_pct > 0)' "$RES" >/dev/null ||
        fail "cpu_by_owner: $(jq -c '[.steps[] | {vms, cpu_by_owner, vm_quota}]' "$RES")"
# The VMs' CPU from their own cgroups (server and initiator both in it) and the quota's throttling
jq -e 'all(.steps[]; .vm_quota | .cpu_source == "cgroup" and .nr_periods >= 0
        and .nr_throttled >= 0 and .nr_throttled <= .nr_periods and .throttled_usec >= 0
        and .throttled_pct >= 0 and .throttled_pct <= 100
        and .throttled_time_pct >= 0 and .throttled_time_pct <= 100)
        and all(.steps[].hosts[]; .cpu_source == "cgroup" and .nr_periods >= 0
        and .throttled_usec >= 0)' "$RES" >/dev/null ||
        fail "vm_quota from cgroups: $(jq -c '[.steps[] | {vms, vm_quota,
                h: [.hosts[] | {cpu_source, cpu_pct, nr_periods, nr_throttled, throttled_usec}]}]' "$RES")"
grep -q "VM thr%" <<<"$RUN" || fail "no throttling column: $RUN"
# ... and the report shows them where it shows cpu_by_owner, one figure per step
expect_rc 0 "$HCISWEEP" report "$(dirname "$RES")"
MD=$(sed -n 's/^markdown: //p' <<<"$OUT")
grep -q "VM quota used % | VMs throttled % of time" "$MD" ||
        fail "no quota columns in the report: $(grep -A5 'Where the CPU went' "$MD")"
for n in 1 2 3; do
        grep -Eq "^\| $n \|( [0-9.]+ \|){7}\$" "$MD" ||
                fail "CPU row for $n VMs: $(grep -A6 'Where the CPU went' "$MD")"
done
# Every step has a noise band without --repeat: its intervals' batch means
series_inline "$RES" >"$T/inline.json" || fail "series files of $RES"
jq -e 'all(.steps[]; (.intervals | length) >= 2 and all(.intervals[]; .tps >= 0 and .t > 0)
        and (.tps_band | .source | IN("intervals", "none"))
        and .tps_band.lo <= .totals.tps and .tps_band.hi >= .totals.tps)' "$T/inline.json" >/dev/null ||
        fail "noise band: $(jq -c '[.steps[] | {vms, tps: .totals.tps, tps_band,
                n: (.intervals | length)}]' "$T/inline.json")"
grep -q "TPS +-95%" <<<"$RUN" || fail "no band column: $RUN"
# analyze reads the run's steps as scale did: the same tipping point, word for word, on
# screen and in JSON (usl, peak, undecided, limited_by, reason)
expect_rc 0 "$HCISWEEP" analyze "$RES" --json "$T/an.json"
jq -e --slurpfile r "$RES" '.tipping_point.load == $r[0].tipping_point.vms and
        .tipping_point.limited_by == $r[0].tipping_point.limited_by and
        .tipping_point.reason == $r[0].tipping_point.reason and
        .tipping_point.verdict == $r[0].tipping_point.verdict and
        .tipping_point.evidence == $r[0].tipping_point.evidence and
        .tipping_point.undecided == $r[0].tipping_point.undecided and
        .tipping_point.usl == $r[0].tipping_point.usl and .usl == $r[0].tipping_point.usl and
        .tipping_point.peak.load == $r[0].tipping_point.peak.vms and
        .tipping_point.peak.throughput == $r[0].tipping_point.peak.throughput' "$T/an.json" >/dev/null ||
        fail "analyze disagrees: $(jq -c .tipping_point "$T/an.json") vs $(jq -c .tipping_point "$RES")"
said=$(verdict "$RUN")
read_back=$(verdict "$OUT")
[ -n "$said" ] && [ "$said" = "$read_back" ] ||
        fail "analyze prints another verdict: '$read_back' vs scale's '$said'"
[ "$said" = "$(jq -r .tipping_point.verdict "$RES")" ] ||
        fail "the result's verdict is not the one printed: $(jq -r .tipping_point.verdict "$RES")"
jq -e '.config.threads == 2 and .config.topology == "hci" and (.config | has("mysql-password") | not)' \
        "$RES" >/dev/null || fail "config echo: $(jq -c .config "$RES")"
pass "merged histograms: $(jq -c '[.steps[] | {vms, tps: (.totals.tps|floor), n: .hist.count}]' "$RES"); tipping $(jq -c .tipping_point.vms "$RES") ($(jq -r .tipping_point.limited_by "$RES"))"

# The storage path: every datadir on its LUN, the step's storage from the VMs' loop devices and tgtd.
jq -e '.lab.backend == "local" and .lab.datadir_on == "lun" and (.lab.vms | length) == 3 and
        all(.lab.vms[]; .datadir_on == "lun" and (.lun | test("^iscsi://"))
            and .initiator == "qemu-storage-daemon" and .initiator_pid > 0
            and (.disk | test("^loop[0-9]+$")) and (.vm as $i | .mount | endswith("/vm\($i)/disk")))' "$RES" >/dev/null ||
        fail "lab object: $(jq -c .lab "$RES")"
jq -e 'all(.steps[]; .vms as $n | .storage | .source == "vm_disks" and (.vm_disks | length) == $n
        and all(.vm_disks[]; (.device | test("^loop[0-9]+$")) and .iops > 0 and .bytes_s > 0
                and .util_pct > 0 and .lat_ms >= 0)
        and .disk_iops > 0 and .util_pct > 0 and .target_cpu_pct > 0
        and .target_cpu_user_pct + .target_cpu_system_pct > 0 and .target_host_share_pct > 0
        and .target_host_share_pct <= .target_cpu_pct)' "$RES" >/dev/null ||
        fail "storage figures: $(jq -c '[.steps[].storage]' "$RES")"
jq -e 'all(.steps[].hosts[]; .initiator_cpu_pct > 0 and .cpu_pct >= .initiator_cpu_pct)' "$RES" \
        >/dev/null || fail "initiator CPU: $(jq -c '[.steps[].hosts[] | {vm, cpu_pct, initiator_cpu_pct}]' "$RES")"
pass "storage per step from the VMs' loop devices and tgtd: $(jq -c '[.steps[] | {vms,
        iops: (.storage.disk_iops|floor), tgtd_cpu: .storage.target_cpu_pct}]' "$RES")"

expect_rc 0 "$HCISWEEP" results list
grep -q "$RES" <<<"$OUT" || fail "not in the run index: $OUT"
pass "registered in the run index"

[ -z "$(lab_procs)" ] || fail "left running: $(lab_procs | xargs -r ps -o pid,args -p)"
gone "$P1" mariadbd || fail "vm1 ($P1), up before scale, still runs"
[ ! -f "$LAB/state" ] || fail "lab state left: $(cat "$LAB/state")"
pass "nothing of the lab left running"

# The mixed workload: block I/O on the VM's LUN while the database runs.
expect_rc 2 "$HCISWEEP" scale --block-load rw=randrw,iodpth=4 "${common[@]}"
grep -q "iodpth" <<<"$OUT" || fail "bad --block-load key not named: $OUT"
expect_rc 0 "$HCISWEEP" scale --vms 1 --vm-memory 256M --lun-size 256M "${common[@]}" \
        --tables 2 --table-size 500 --threads 2 --time 2 --warmup-time 0.5 \
        --percentile 50,99 --output-dir "$T/runs" --block-load rw=randrw,bs=4k,iodepth=4
grep -q "blk IOPS" <<<"$OUT" || fail "no block load column: $OUT"
RES=$(sed -n 's/^result: //p' <<<"$OUT")
DIR=$(dirname "$RES")
jq -e '.partial == false and (has("partial_reason") | not) and (.steps | length) == 1 and
        (.steps[0].block_load | .rw == "randrw" and .bs == 4096 and .iodepth == 4
         and .read.ios > 0 and .write.ios > 0 and .errors == 0 and .read.lat_ns.mean > 0)
        and .steps[0].storage.block_load_iops > 0
        and .steps[0].storage.iops >= .steps[0].storage.block_load_iops' "$RES" >/dev/null ||
        fail "block_load: $(jq -c '{partial, s: [.steps[] | {block_load: (.block_load |
                {rw, bs, iodepth, r: .read.ios, w: .write.ios, errors}), storage}]}' "$RES")"
[ "$(wc -l <"$DIR/intervals.csv")" -eq 2 ] || fail "intervals.csv: $(cat "$DIR/intervals.csv")"
grep -q "^command = scale" "$DIR/job.ini" && grep -q "^block-load = rw=randrw,bs=4k,iodepth=4" \
        "$DIR/job.ini" || fail "job.ini: $(cat "$DIR/job.ini")"
pass "block load: $(jq -c '.steps[0] | {tps: (.totals.tps|floor),
        blk_iops: (.block_load.iops|floor)}' "$RES"); run directory with intervals.csv and job.ini"

# Under --target-ci the OLTP rule cuts its warm-up (here the whole 3 s, its
# most) and the block load measures the same window: it is told to measure
# and to stop when the rule opens and closes the OLTP window, so its seconds
# are the OLTP run's measured seconds, and its own window (as its point
# measured it) is the step's within 0.5 s at either end.
expect_rc 0 "$HCISWEEP" scale --vms 1 --vm-memory 256M --lun-size 256M "${common[@]}" \
        --tables 2 --table-size 500 --threads 2 --warmup-time 3 --time 12 --target-ci 50 \
        --output-dir "$T/runs" --block-load rw=randread,bs=4k,iodepth=2
RES=$(sed -n 's/^result: //p' <<<"$OUT")
jq -e 'def ms: (.[0:19] + "Z" | fromdateiso8601) * 1000 + (.[20:23] | tonumber);
        def near($a; $b; $tol): ($a - $b) | (if . < 0 then -. else . end) <= $tol;
        .steps[0] | .steady.warmup_s >= 2.5 and .block_load.read.ios > 0
        and near(.block_load.seconds; .steady.measured_s; 1.0)
        and near(.block_load.window.start | ms; .window.start | ms; 500)
        and near(.block_load.window.end | ms; .window.end | ms; 500)
        and near(.block_load.window_s.end - .block_load.window_s.start; .block_load.seconds;
                0.5)' "$RES" >/dev/null ||
        fail "block load window: $(jq -c '.steps[0] | {steady, window,
                b: (.block_load | {seconds, window, window_s})}' "$RES")"
pass "block load under --target-ci: $(jq -c '.steps[0] | {warmup_s: .steady.warmup_s,
        oltp_s: .steady.measured_s, block_s: .block_load.seconds, window,
        block_window: .block_load.window}' "$RES")"
[ -z "$(lab_procs)" ] || fail "left running: $(lab_procs | xargs -r ps -o pid,args -p)"
