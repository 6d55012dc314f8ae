#!/bin/bash
# test_oltp_interrupt.sh - an interrupted `oltp run` keeps what it measured:
# SIGINT and SIGTERM end it with exit 130 and a result marked partial
# ("interrupted"); SIGKILL leaves the last periodic save, marked partial.
. "$TESTLIB"
db_start 1 int-pw-3
C=(--mysql-host "$DB_HOSTS" --mysql-user root --tables 1 --table-size 1000)
expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"

for sig in INT TERM; do
        "$HCISWEEP" oltp run "${C[@]}" --threads 2 --time 300 --report-interval 1 \
                --output-dir "$T/$sig" >"$T/$sig.out" 2>&1 &
        run=$!
        on_exit "kill -9 $run"
        wait_output $run "$T/$sig.out" '^\[ 1s \]' 60
        kill -$sig $run
        rc=0
        wait $run || rc=$?
        [ $rc -eq 130 ] || fail "SIG$sig: exit $rc, want 130: $(tail -5 "$T/$sig.out")"
        r=$(echo "$T/$sig"/oltp-*/result.json)
        jq -e '.partial == true and .partial_reason == "interrupted" and
               .totals.transactions > 0 and .seconds > 0' "$r" >/dev/null ||
                fail "SIG$sig: result not partial: $(jq -c '{partial,partial_reason,seconds}' "$r")"
        grep -q '(partial)' "$T/$sig.out" || fail "SIG$sig: the screen does not say partial"
done

# SIGKILL: nothing runs at the end, so what is on disk is the last periodic save.
"$HCISWEEP" oltp run "${C[@]}" --threads 2 --time 300 --report-interval 1 --output-dir "$T/KILL" >"$T/KILL.out" 2>&1 &
run=$!
on_exit "kill -9 $run"
saved() {
        kill -0 $run 2>/dev/null || fail "the run ended before a periodic save: $(cat "$T/KILL.out")"
        compgen -G "$T/KILL/oltp-*/result.json" >/dev/null
}
wait_until 60 saved
kill -KILL $run
wait $run 2>/dev/null
r=$(echo "$T/KILL"/oltp-*/result.json)
jq -e '.partial == true and (.partial_reason | test("running")) and .kind == "oltp" and
       .totals.transactions > 0 and (.hosts | length) == 1' "$r" >/dev/null ||
        fail "SIGKILL: the saved result is not a partial oltp result"
expect_rc 0 "$HCISWEEP" report "$(dirname "$r")"
pass "SIGINT/SIGTERM -> 130 + partial; SIGKILL keeps the last save"
