#!/bin/bash
# test_oltp_lost_host.sh - one of two servers is SIGKILLed mid-run and never
# comes back, within --reconnect-timeout: the run must not look clean. The
# host is flagged in hosts[] (degraded, down_at_end, down_s, failed_connects)
# and on screen, the result is partial and the exit code is 3; the other
# host stays clean.
. "$TESTLIB"
db_start 2 lost-pw-4
C=(--mysql-host "$DB_HOSTS" --mysql-user root --tables 1 --table-size 1000)
expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"

"$HCISWEEP" oltp run "${C[@]}" --threads 4 --time 6 --report-interval 1 --reconnect-timeout 600 \
        --json "$T/r.json" >"$T/run.out" 2>&1 &
run=$!
on_exit "kill -9 $run"
wait_output $run "$T/run.out" '^\[ 1s \]' 60
kill -KILL "$(db_pid 1)"
rc=0
wait $run || rc=$?
[ $rc -eq 3 ] || fail "a host lost for good: exit $rc, want 3: $(tail -5 "$T/run.out")"
grep -q "host $(test_addr 1):$(test_port 1) degraded" "$T/run.out" ||
        fail "the lost host is not named on screen: $(tail -5 "$T/run.out")"
grep -q "host $(test_addr 0):$(test_port 0) degraded" "$T/run.out" && fail "the live host is flagged"
jq -e --arg h "$(test_addr 1)" '.partial == true and (.partial_reason | test($h)) and
       (.hosts[1] | .host == $h and .degraded and .down_at_end and .down_s > 0 and
                    .down_s <= 6 and .totals.failed_connects > 0) and
       (.hosts[0] | (.degraded | not) and .down_s == 0 and .totals.failed_connects == 0) and
       .totals.failed_connects == .hosts[1].totals.failed_connects' "$T/r.json" >/dev/null ||
        fail "hosts[] does not flag the lost host: $(jq -c '[.hosts[] | del(.hist, .lat_ns)]' "$T/r.json")"
pass "a host lost mid-run is flagged, partial, exit 3"
