# test_qemu_drivers_slow.sh - `scale --driver-placement vm` on the qemu
# backend: each VM's driver runs inside its guest, started by the QEMU guest
# agent through a bridge process on this host (lab/guest_driver.h). One TCG
# guest; a run whose drivers[0] says where "guest", whose TPS is the
# driver's own, whose hosts[] names the VM as the controller knows it and
# whose driver log gives the guest clock's offset; a --target-ci run whose
# window the controller's rule decided on the samples the bridge relays; then a run interrupted
# with SIGINT mid-measurement, whose driver stops in the guest and still
# hands back what it measured (exit 130, partial). After each run no bridge
# is left on this host and no driver or file of its in the guest (asked
# through the agent's socket with socat). The image build is cached by its
# recipe's hash (a changed recipe rebuilds it: minutes; the ctest timeout
# allows it); the boot under TCG takes a minute or two.
. "$TESTLIB"

. "$SRC/tests/qemu.sh"
need_socat
common=("${QEMU_LAB[@]}")
S=(scale --vms 1 --vm-cpus 1 --vm-memory 512M --lun-size 256M "${common[@]}" --tables 1
        --table-size 1000 --threads 2 --warmup-time 1 --driver-placement vm --keep-lab)
on_exit kill_listed
on_exit "$HCISWEEP" lab down "${common[@]}"
result_of() { sed -n 's/^result: \([^ ]*\).*/\1/p' "$1"; }
bridges() { pgrep -f -- "lab guest-driver .*$LAB/" || true; }
sql() { MYSQL_PWD=$(cat "$LAB/password") mariadb --no-defaults -h "$BASE.1" -P "$PORT" -u root \
        -N -B -e "$1"; }
commits() { sql "select variable_value from information_schema.global_status
                 where variable_name = 'COM_COMMIT'"; }
# connections made inside the guest (the driver's); this host's come through QEMU's 10.0.2.2
guest_conns() { sql "select count(*) from information_schema.processlist
                     where host like '127.0.0.1:%'"; }

# (guest_sh: tests/qemu.sh, once the bridge let go of the agent's socket)
nothing_left() {
        [ -z "$(bridges)" ] || fail "$1: bridges left running: $(bridges | tr '\n' ' ')"
        local left
        # (the pattern does not match the shell that runs it)
        left=$(guest_sh "pgrep -af -- --start-on-g[o]; ls /run/hcisweep-driver-* 2>/dev/null; true")
        [ -z "$left" ] || fail "$1: left in the guest: $left"
}

# --- the image (cached), pinned for this test ------------------------------------------
guest_image
guest_pin

# --- 1. a run with the driver in the guest ----------------------------------------------
t0=$(date +%s)
expect_rc 0 "$HCISWEEP" "${S[@]}" --time 5 --output-dir "$T/runs"
echo "# boot and run: $(($(date +%s) - t0)) s"
R=$(result_of <(echo "$OUT"))
[ -f "$R" ] || fail "no result: $OUT"
jq -e '.steps[0] | .state == "ok" and (.drivers | length == 1)
        and (.drivers[0] | .vm == 1 and .where == "guest" and .exit == 0 and .tps > 0
             and (.start_skew_ms | type == "number"))' "$R" >/dev/null ||
        fail "drivers[]: $(jq -c '.steps[0] | {state, error, drivers}' "$R")"
jq -e '.steps[0] | (.totals.tps - .drivers[0].tps | fabs) <= 1e-6 * .totals.tps
        and .totals.transactions > 0 and .hist.count == .totals.transactions
        and .hosts[0].totals.transactions == .totals.transactions' "$R" >/dev/null ||
        fail "step figures: $(jq -c '.steps[0] | {totals, c: .hist.count, d: .drivers[0].tps}' "$R")"
DJ=$(jq -r '.steps[0].drivers[0].result' "$R")
# the driver reached its server at the guest's own address, names it as the controller does,
# and had the password on its stdin
jq -e --arg h "$BASE.1" --argjson p "$PORT" '.config["mysql-host"] == "127.0.0.1:3306"
        and (.config["mysql-password-file"] // "") == ""
        and .hosts[0].host == $h and .hosts[0].port == $p' "$DJ" >/dev/null ||
        fail "the driver's result: $(jq -c '{h: .config["mysql-host"], hosts: [.hosts[] | {host, port}]}' "$DJ")"
# the guest's clock, measured by its carrier through the bridge, reaches drivers[]: the
# start skew is taken in one clock
jq -e '.steps[0].drivers[0] | .carrier == "guest"
        and (.clock_offset_ms | type == "number") and (.clock_offset_ms | isinfinite | not)
        and (.clock_err_ms | type == "number") and (.clock_err_ms | isinfinite | not)
        and .clock_err_ms >= 0' \
        "$R" >/dev/null ||
        fail "the guest's clock in drivers[]: $(jq -c '.steps[0].drivers[0] | {carrier, clock_offset_ms, clock_err_ms}' "$R")"
OFFSET=$(jq -r '.steps[0].drivers[0] | "offset \(.clock_offset_ms) ms (+-\(.clock_err_ms))"' "$R")
echo "# tps $(jq '.steps[0].totals.tps' "$R"), start skew $(jq '.steps[0].drivers[0].start_skew_ms' "$R") ms, $OFFSET"
nothing_left "after a run"
pass "driver in the guest: where guest, step TPS its TPS, hosts[] as the controller names them"

# --- 2. --target-ci: the controller's rule on the driver's samples (relayed by the bridge from
#     a file in the guest) ends its warm-up and its run ("measure" and "stop", files the driver
#     polls): it measured the rule's time, give or take a sample and the agent's round trips,
#     well before its own limit (--time + 5 s)
expect_rc 0 "$HCISWEEP" "${S[@]}" --time 20 --warmup-time 10 --target-ci 50 --output-dir "$T/ci"
CR=$(result_of <(echo "$OUT"))
[ -f "$CR" ] || fail "no --target-ci result: $OUT"
jq -e '.steps[0] | .state == "ok" and .steady.target_ci_pct == 50 and .steady.measured_s > 0
        and .drivers[0].where == "guest" and .drivers[0].exit == 0 and .drivers[0].tps > 0' \
        "$CR" >/dev/null || fail "--target-ci step: $(jq -c '.steps[0] | {state, steady, drivers}' "$CR")"
M=$(jq '.steps[0].steady.measured_s' "$CR")
CJ=$(jq -r '.steps[0].drivers[0].result' "$CR")
jq -e --argjson m "$M" '(.seconds - $m | fabs) <= 3 and .seconds < 24' "$CJ" >/dev/null ||
        fail "the guest's driver measured $(jq .seconds "$CJ") s, the rule $M s"
echo "# --target-ci: rule $(jq -c '.steps[0].steady | {warmup_s, measured_s, ci_pct, met}' "$CR"), driver measured $(jq .seconds "$CJ") s"
nothing_left "after a --target-ci run"
pass "--target-ci: the controller's rule ended the guest driver's warm-up and run"

# --- 3. Ctrl-C: the driver stops in the guest and its partial result comes back --------------
"$HCISWEEP" "${S[@]}" --time 60 --output-dir "$T/int" >"$T/int.out" 2>&1 &
SP=$!
on_exit "kill $SP"
connected() { [ "$(guest_conns)" -gt 0 ]; }
wait_until 120 connected
c0=$(commits)
running() { [ "$(commits)" -gt $((c0 + 20)) ]; } # the driver's transactions reach the server
wait_until 60 running
kill -INT "$SP"
rc=0
wait "$SP" || rc=$?
[ "$rc" -eq 130 ] || fail "SIGINT: exit $rc, want 130: $(tail -5 "$T/int.out")"
IR=$(result_of "$T/int.out")
jq -e '.steps[0] | .state == "partial" and .drivers[0].where == "guest"
        and .drivers[0].exit == 130 and .drivers[0].tps > 0 and .totals.transactions > 0' \
        "$IR" >/dev/null || fail "interrupted: $(jq -c '.steps[0] | {state, error, drivers}' "$IR")"
echo "# interrupted: $(jq '.steps[0].totals.transactions' "$IR") transactions, tps $(jq '.steps[0].drivers[0].tps' "$IR")"
nothing_left "after Ctrl-C"
pass "Ctrl-C: the driver in the guest stopped, its partial result kept (exit 130)"

expect_rc 0 "$HCISWEEP" lab down "${common[@]}"
[ -z "$(lab_qemus)" ] || fail "QEMU left after lab down"
pass "lab down: nothing left running"
