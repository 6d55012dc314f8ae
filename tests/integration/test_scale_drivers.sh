#!/bin/bash
# test_scale_drivers.sh - `scale --driver-placement vm` on the local lab (real
# mariadbd "VMs" and tgtd): a driver per VM, each inside its VM's cgroups
# (its /proc/PID/cgroup is its VM's mariadbd's, read while it runs), the
# step's TPS the sum of the drivers' own and, VM by VM, within what each
# server's own Com_commit counter (SHOW GLOBAL STATUS before and after) allows,
# the load's CPU booked to the VMs
# (cpu_by_owner.driver near zero where the controller run of the same step,
# run first, had several percent; the VMs' share only sanity-checked, see
# below), the password on no driver's command line (it comes on stdin),
# one driver SIGKILLed mid-step makes
# the step degraded naming its VM with the other's figures kept, --target-ci
# decided by the controller on the drivers' merged series (one window for
# all), and no driver is left running after any run.
. "$TESTLIB"

ADDR=$(test_addr 0)
BASE=${ADDR%.*}
LAB=$T/lab
common=(--lab-dir "$LAB" --addr-base "$BASE" --base-port "$(test_port 0)"
        --target-port "$(test_port 1)")
on_exit kill_listed
on_exit "$HCISWEEP" lab down "${common[@]}"
# A driver's memory counts in its VM's memory limit: under ASan (a quarantine of 256 MiB of
# freed memory) a 256M VM's cgroup OOM-kills it, so the VMs get room and the quarantine less.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
S=(scale --vms 2 --vm-memory 512M --lun-size 256M "${common[@]}" --tables 2 --table-size 500
        --threads 4 --warmup-time 0.5 --keep-lab)
# the drivers of this lab: `oltp run --start-on-go` processes naming its VMs' addresses
drivers() { pgrep -f -- "--mysql-host=${BASE//./\\.}\.[0-9]+:.*--start-on-go" || true; }
no_drivers() { [ -z "$(drivers)" ] || fail "drivers left running: $(drivers | tr '\n' ' ')"; }
result_of() { sed -n 's/^result: \([^ ]*\).*/\1/p' "$1"; }

# 1. controller placement, the figures to compare with
expect_rc 0 "$HCISWEEP" "${S[@]}" --time 3 --output-dir "$T/ctl"
CTL=$(sed -n 's/^result: //p' <<<"$OUT")
[ -f "$CTL" ] || fail "no controller result: $OUT"
jq -e '.steps[0].drivers == null' "$CTL" >/dev/null || fail "controller placement has drivers[]"

# 2. vm placement: the drivers' cgroups read while they run, and every server's own count
#    of commits (SHOW GLOBAL STATUS Com_commit; the workload commits each transaction)
#    around the run, to check the merged figures against (the lab is kept up from 1.)
commits() { # commits VM: the server's Com_commit
        MYSQL_PWD=$(cat "$LAB/password") mariadb --no-defaults -h "$BASE.$1" -P "$(test_port 0)" \
                -u root -N -B -e "show global status like 'Com_commit'" | cut -f2
}
C1=$(commits 1) C2=$(commits 2)
[ -n "$C1" ] && [ -n "$C2" ] || fail "Com_commit of the kept lab's servers: '$C1' '$C2'"
"$HCISWEEP" "${S[@]}" --time 4 --driver-placement vm --output-dir "$T/vm" >"$T/vm.out" 2>&1 &
SP=$!
on_exit "kill $SP"
has_two() { [ "$(drivers | wc -l)" -eq 2 ]; }
wait_until 120 has_two
seen=""
for pid in $(drivers); do
        vm=$(tr '\0' ' ' <"/proc/$pid/cmdline" | sed -n "s/.*--mysql-host=$BASE\.\([0-9]*\):.*/\1/p")
        [ -n "$vm" ] || fail "driver $pid: no VM in its command line"
        db=$(cat "$LAB/vm$vm/mariadbd.pid")
        [ "$(cat "/proc/$pid/cgroup")" = "$(cat "/proc/$db/cgroup")" ] ||
                fail "driver $pid of vm$vm: cgroups $(tr '\n' ' ' <"/proc/$pid/cgroup") are not its VM's: $(tr '\n' ' ' <"/proc/$db/cgroup")"
        ! grep -qF -- "$(cat "$LAB/password")" "/proc/$pid/cmdline" ||
                fail "driver $pid has the password on its command line"
        seen+=" $pid"
done
wait "$SP" || fail "vm placement: exit $?: $(tail -5 "$T/vm.out")"
no_drivers
VMR=$(result_of "$T/vm.out")
[ -f "$VMR" ] || fail "no vm-placement result: $(cat "$T/vm.out")"
for pid in $seen; do
        jq -e --argjson p "$pid" '[.steps[0].drivers[].pid] | index($p) != null' "$VMR" >/dev/null ||
                fail "driver $pid seen running is not in drivers[]"
done
jq -e '.steps[0] | .state == "ok" and (.drivers | length == 2)
        and all(.drivers[]; .where == "cgroup" and .exit == 0 and .cpu_s > 0
                and .start_skew_ms >= 0 and .tps > 0)' "$VMR" >/dev/null ||
        fail "drivers[]: $(jq -c '.steps[0] | {state, drivers}' "$VMR")"
# the step's TPS is the drivers' summed; its histogram their transactions
jq -e '.steps[0] | (.totals.tps - ([.drivers[].tps] | add) | fabs) <= 1e-6 * .totals.tps
        and .hist.count == .totals.transactions
        and ([.hosts[].totals.transactions] | add) == .totals.transactions' "$VMR" >/dev/null ||
        fail "merged TPS: $(jq -c '.steps[0] | {t: .totals, d: [.drivers[].tps]}' "$VMR")"
# ... and against the servers' own counts: each VM's server committed at least every
# transaction the merge gives that VM (the window is part of the run), and at most the
# step's TPS kept up over the whole run (warm-up 0.5 s, 4 s, and 1.5 s for the go, the
# stop and the tables' prepare: the merged TPS would be off by a factor, not by this)
for v in 1 2; do
        c=$(commits "$v") b=$([ "$v" = 1 ] && echo "$C1" || echo "$C2")
        jq -e --argjson d "$((c - b))" --argjson v "$((v - 1))" '.steps[0] |
                (.hosts[$v].totals.transactions) as $t | (.hosts[$v].totals.tps) as $tps
                | $t > 0 and $d >= $t and $d <= $tps * (0.5 + 4 + 1.5)' "$VMR" >/dev/null ||
                fail "vm$v: its server committed $((c - b)), the step says $(jq -c --argjson v "$((v - 1))" \
                        '.steps[0].hosts[$v].totals | {transactions, tps}' "$VMR")"
        echo "vm$v: Com_commit +$((c - b)), the step: $(jq -c --argjson v "$((v - 1))" \
                '.steps[0].hosts[$v].totals | {transactions, tps}' "$VMR")"
done
# the load's CPU moved from driver to the VMs
c_drv=$(jq '.steps[0].cpu_by_owner.driver' "$CTL") c_vms=$(jq '.steps[0].cpu_by_owner.vms' "$CTL")
v_drv=$(jq '.steps[0].cpu_by_owner.driver' "$VMR") v_vms=$(jq '.steps[0].cpu_by_owner.vms' "$VMR")
echo "cpu_by_owner: controller driver=$c_drv vms=$c_vms; vm driver=$v_drv vms=$v_vms"
awk -v d="$v_drv" 'BEGIN { exit !(d < 2) }' || fail "vm placement: driver $v_drv% of the host"
awk -v c="$c_drv" -v v="$v_drv" 'BEGIN { exit !(c > 2 * v + 0.5) }' ||
        fail "the driver's share did not fall: $c_drv% -> $v_drv%"
# The VMs' share is not compared strictly: on a shared 2-CPU host (other work took 57-64% of
# it in these runs) each run's TPS, and with it the VMs' share, moves by more than the
# driver's few percent (25.8% -> 23.3% and 23.9% -> 36.3% were both seen). Where the driver's
# CPU goes is proven above by its cgroups and by driver falling to about zero; here only that
# the VMs still did their work: their share at least half the controller run's.
c_tps=$(jq '.steps[0].totals.tps' "$CTL") v_tps=$(jq '.steps[0].totals.tps' "$VMR")
echo "tps: controller $c_tps, vm $v_tps"
awk -v c="$c_vms" -v v="$v_vms" 'BEGIN { exit !(v >= 0.5 * c) }' ||
        fail "the VMs' share fell: $c_vms% at $c_tps TPS -> $v_vms% at $v_tps TPS"
pass "vm placement: drivers in their VMs' cgroups, TPS summed, CPU booked to the VMs"

# 3. one driver SIGKILLed mid-step (after its first 5 s of figures): that VM degraded, the other kept
"$HCISWEEP" "${S[@]}" --time 8 --driver-placement vm --output-dir "$T/kill" >"$T/kill.out" 2>&1 &
SP=$!
on_exit "kill $SP"
wait_until 120 has_two
D2=$(for pid in $(drivers); do
        tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--mysql-host=$BASE\.2:" && echo "$pid"
done)
[ -n "$D2" ] || fail "no driver of vm2"
# a driver's log (stderr) says what it measured every 5 s: the first such line
measuring() { grep -qs "s measured, [0-9]* transaction" "$1"/scale-*/driver-*-vm"$2".log; }
wait_until 60 measuring "$T/kill" 2
kill -9 "$D2"
wait "$SP" || fail "a killed driver ended the run: exit $?: $(tail -5 "$T/kill.out")"
no_drivers
KR=$(result_of "$T/kill.out")
jq -e '.steps[0] | .state == "degraded" and (.error | test("vm2: driver killed by signal 9"))
        and .drivers[0].tps > 0 and .drivers[1].tps == null
        and .hosts[0].totals.transactions > 0 and .hosts[1].totals.transactions == 0
        and .totals.transactions == .hosts[0].totals.transactions' "$KR" >/dev/null ||
        fail "killed driver: $(jq -c '.steps[0] | {state, error, drivers, t: [.hosts[].totals.transactions]}' "$KR")"
grep -q "vm2's driver killed by signal 9" "$T/kill.out" || fail "no warning: $(cat "$T/kill.out")"
pass "a SIGKILLed driver: the step degraded naming vm2, vm1's figures kept, no driver left"

# 4. SIGINT to scale: every driver stops and keeps what it measured, the result is partial
"$HCISWEEP" "${S[@]}" --time 8 --driver-placement vm --output-dir "$T/int" >"$T/int.out" 2>&1 &
SP=$!
on_exit "kill $SP"
wait_until 120 has_two
wait_until 60 measuring "$T/int" 1
wait_until 60 measuring "$T/int" 2
kill -INT "$SP"
rc=0
wait "$SP" || rc=$?
[ "$rc" -eq 130 ] || fail "SIGINT: exit $rc, want 130: $(tail -5 "$T/int.out")"
no_drivers
IR=$(result_of "$T/int.out")
[ -f "$IR" ] || fail "no partial result: $(cat "$T/int.out")"
jq -e '.partial == true and .steps[0].state == "partial"
        and all(.steps[0].drivers[]; .exit == 130 and .tps > 0)
        and .steps[0].totals.transactions > 0' "$IR" >/dev/null ||
        fail "interrupted: $(jq -c '{partial, s: .steps[0] | {state, drivers, totals}}' "$IR")"
pass "SIGINT: exit 130, every driver stopped, what each measured kept, partial"

# 5. --target-ci: the controller's rule on the merged series ends every driver's warm-up and
#    run ("measure", "stop"): each driver measured about the rule's measured time (give or
#    take a 0.5 s sample and the time a line takes), well before its own limit (--time + 5 s)
expect_rc 0 "$HCISWEEP" "${S[@]}" --time 20 --warmup-time 10 --target-ci 50 --driver-placement vm \
        --output-dir "$T/ci"
CR=$(sed -n 's/^result: \([^ ]*\).*/\1/p' <<<"$OUT")
[ -f "$CR" ] || fail "no --target-ci result: $OUT"
no_drivers
jq -e '.steps[0] | .state == "ok" and .steady.target_ci_pct == 50 and .steady.measured_s > 0
        and (.drivers | length) == 2
        and all(.drivers[]; .exit == 0 and .tps > 0)' "$CR" >/dev/null ||
        fail "--target-ci step: $(jq -c '.steps[0] | {state, steady, drivers}' "$CR")"
M=$(jq '.steps[0].steady.measured_s' "$CR")
for dj in $(jq -r '.steps[0].drivers[].result' "$CR"); do
        jq -e --argjson m "$M" '(.seconds - $m | fabs) <= 2 and .seconds < 24 and .steady == null' \
                "$dj" >/dev/null || fail "driver $dj measured $(jq .seconds "$dj") s, the rule $M s"
done
grep -q "steady:.*measured" <<<"$OUT" || fail "no steady line printed: $OUT"
echo "rule: $(jq -c '.steps[0].steady | {warmup_s, measured_s, ci_pct, met}' "$CR");" \
        "drivers measured: $(jq -r '.steps[0].drivers[].result' "$CR" | xargs jq -r .seconds | tr '\n' ' ')"
pass "--target-ci: the controller's rule on the merged series ended both drivers' windows"
