# test_scale_faults_slow.sh - `hcisweep scale` when things go wrong, on real
# servers: a bad plan or inventory is refused with exit 2 naming the option
# or line; a VM killed mid-step gives a degraded step naming it while the
# run completes (the next step starts the VM again); SIGINT writes what was
# measured, marked partial, and tears the lab down; the static backend runs
# against servers of another lab listed in an inventory and leaves them up.
. "$TESTLIB"

ADDR=$(test_addr 0)
BASE=${ADDR%.*}
LAB=$T/lab
SLAB=$T/servers
export HCISWEEP_INDEX=$T/index.sqlite
common=(--lab-dir "$LAB" --addr-base "$BASE" --base-port "$(test_port 0)"
        --target-port "$(test_port 1)" --vm-memory 256M --lun-size 16M --datadir-on host)
scommon=(--lab-dir "$SLAB" --addr-base "${BASE%.*}.$((${BASE##*.} + 1))"
        --base-port "$(test_port 2)" --target-port "$(test_port 3)" --datadir-on host)
small=(--tables 1 --table-size 300 --threads 2 --warmup-time 0.5 --output-dir "$T/runs")
on_exit kill_listed "$LAB"
on_exit kill_listed "$SLAB"
on_exit "$HCISWEEP" lab down "${common[@]}"
on_exit "$HCISWEEP" lab down "${scommon[@]}"
lab_procs() { pgrep -f -- "$LAB/" || true; }
threads_on() { # threads_on VM: client connections on that VM of $LAB
        MYSQL_PWD=$(cat "$LAB/password" 2>/dev/null) mariadb --no-defaults -h "$BASE.$1" \
                -P "$(test_port 0)" -u root -N -B -e "show status like 'Threads_connected'" \
                2>/dev/null | cut -f2
}
busy() { [ "$(threads_on "$1")" -ge 3 ] 2>/dev/null; } # the workload's connections are on VM
wait_busy() { wait_until 60 busy "$1"; }

# --- bad plans and inventories: exit 2 naming the option or line --------------
expect_rc 2 "$HCISWEEP" scale --vms 3,2 "${common[@]}"
grep -q -- "--vms" <<<"$OUT" || fail "descending plan not named: $OUT"
expect_rc 2 "$HCISWEEP" scale --vms 0 "${common[@]}"
grep -q -- "--vms" <<<"$OUT" || fail "--vms 0 not named: $OUT"
expect_rc 2 "$HCISWEEP" scale --vms 1,2 --topology ring "${common[@]}"
expect_rc 2 "$HCISWEEP" scale --vms 1 --thread 2 "${common[@]}"
grep -q -- "--threads" <<<"$OUT" || fail "no did-you-mean: $OUT"
printf '[a]\nhost = 127.0.0.1\nprot = 1\n' >"$T/bad.ini"
expect_rc 2 "$HCISWEEP" scale --backend static --inventory "$T/bad.ini" --vms 1
grep -q "bad.ini:3" <<<"$OUT" || fail "bad inventory line not named: $OUT"
[ -z "$(lab_procs)" ] || fail "a refused plan started something"
expect_rc 0 "$HCISWEEP" scale --help
grep -q -- "--latency-slo" <<<"$OUT" && grep -q -- "--table-size" <<<"$OUT" ||
        fail "--help lacks scale or oltp options"
pass "bad plans and inventories: exit 2 naming the option or line"

# --- a VM killed mid-step: degraded step, the run goes on ----------------------
"$HCISWEEP" scale --vms 1,2,3 "${common[@]}" "${small[@]}" --time 6 --lost-vm-timeout 1 \
        >"$T/kill.out" 2>&1 &
SCALE=$!
on_exit kill -9 "$SCALE"
wait_output "$SCALE" "$T/kill.out" "^ *1 " 60
wait_busy 2
sleep 1 # the step's load runs a second (past its 0.5 s warm-up) before the fault: its own length
P2=$(sed -n '/^\[vm2\]/,/^\[/s/^pid = //p' "$LAB/state")
kill -9 "$P2"
rc=0
wait "$SCALE" || rc=$?
[ "$rc" -eq 0 ] || { cat "$T/kill.out" >&2; fail "scale with a killed VM exited $rc"; }
RES=$(sed -n 's/^result: //p' "$T/kill.out")
jq -e '.status == "complete" and ([.steps[].state] == ["ok","degraded","ok"])' "$RES" >/dev/null ||
        fail "states: $(jq -c '{status, s: [.steps[].state]}' "$RES")"
jq -e '.steps[1].error | test("vm2 .*is down")' "$RES" >/dev/null ||
        fail "degraded step does not name vm2: $(jq -c .steps[1].error "$RES")"
jq -e '.steps[1].hist.count == ([.steps[1].hosts[].totals.transactions] | add) and
        .steps[1].hist.count > 0 and (.steps[1].hosts[1].alive | not)' "$RES" >/dev/null ||
        fail "degraded step figures: $(jq -c '.steps[1] | {c: .hist.count, h: .hosts}' "$RES")"
grep -q "degraded" "$T/kill.out" || fail "table does not show the degraded step"
[ -z "$(lab_procs)" ] || fail "left running after the killed-VM run"
pass "vm2 killed mid-step: step 2 degraded ($(jq -r .steps[1].error "$RES" | cut -c1-80)), step 3 ok"

# --- SIGINT: partial result, lab torn down -------------------------------------
"$HCISWEEP" scale --vms 1,2,3 "${common[@]}" "${small[@]}" --time 60 >"$T/int.out" 2>&1 &
SCALE=$!
on_exit kill -9 "$SCALE"
wait_busy 1
sleep 1 # the step's load runs a second (past its 0.5 s warm-up) before the signal: its own length
kill -INT "$SCALE"
rc=0
wait "$SCALE" || rc=$?
[ "$rc" -eq 130 ] || { cat "$T/int.out" >&2; fail "SIGINT: exit $rc, want 130"; }
RES=$(sed -n 's/^result: \([^ ]*\).*/\1/p' "$T/int.out") # "result: PATH (partial)"
[ -f "$RES" ] || fail "no partial result written: $(cat "$T/int.out")"
jq -e '.partial == true and .status == "interrupted" and (.steps | length) == 1 and
        .steps[0].state == "partial" and .steps[0].totals.transactions > 0' "$RES" >/dev/null ||
        fail "partial result: $(jq -c '{partial, status, s: [.steps[] | {state, t: .totals.transactions}]}' "$RES")"
[ -z "$(lab_procs)" ] || fail "left running after SIGINT: $(lab_procs)"
[ ! -f "$LAB/state" ] || fail "lab not torn down after SIGINT"
pass "SIGINT: partial result with $(jq .steps[0].totals.transactions "$RES") transactions, lab down"

# --- static backend: servers of another lab, listed in an inventory ------------
expect_rc 0 "$HCISWEEP" lab up --vms 2 --vm-memory 256M --lun-size 1M "${scommon[@]}"
SP=$(sed -n 's/^vm[12] .*pid=\([0-9]*\).*/\1/p' <<<"$OUT")
SBASE=${BASE%.*}.$((${BASE##*.} + 1))
{
        for i in 1 2; do
                printf '[db%s]\nhost = %s.%s\nport = %s\nuser = root\n' "$i" "$SBASE" "$i" \
                        "$(test_port 2)"
                printf 'password_file = %s/password\ndatabase = sbtest\n\n' "$SLAB"
        done
} >"$T/inv.ini"
expect_rc 2 "$HCISWEEP" scale --backend static --inventory "$T/inv.ini" --vms 1,3 "${small[@]}"
grep -q -- "--vms" <<<"$OUT" || fail "plan beyond the inventory not named: $OUT"
expect_rc 0 "$HCISWEEP" scale --backend static --inventory "$T/inv.ini" --vms 1,2 "${small[@]}" \
        --time 2
RES=$(sed -n 's/^result: //p' <<<"$OUT")
jq -e '[.steps[] | .state] == ["ok","ok"] and .steps[1].hist.count ==
        ([.steps[1].hosts[].totals.transactions] | add) and .config.backend == "static"' "$RES" \
        >/dev/null || fail "static result: $(jq -c '[.steps[] | {vms, state}]' "$RES")"
for p in $SP; do kill -0 "$p" || fail "static scale stopped server $p"; done
pass "static backend: 2 steps on inventory servers, servers left running"
