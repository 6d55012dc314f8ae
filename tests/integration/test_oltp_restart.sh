#!/bin/bash
# test_oltp_restart.sh - faults during a run: the server restarts mid-run,
# the connections reconnect (reconnects > 0), transactions continue after
# the restart and the run completes with exit 0; a server that stays down
# longer than --reconnect-timeout ends the run with exit 3 and the partial
# results still written.
. "$TESTLIB"
ADDR=$(test_addr 0) PORT=$(test_port 0) PW=rs-pw-1
db_start 1 "$PW"
C=(--mysql-host "$ADDR" --mysql-port "$PORT" --mysql-user root --tables 2 --table-size 1000)
expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"

"$HCISWEEP" oltp run "${C[@]}" --threads 4 --time 12 --report-interval 1 --json "$T/r.json" \
        >"$T/run.out" 2>&1 &
pid=$!
on_exit "kill $pid"
wait_output $pid "$T/run.out" '^\[ 1s \]' 60
db_stop 0
# The outage's own length, not a wait: down for longer than two intervals, so at
# least one whole interval sees no transaction however the restart falls against
# the interval boundaries.
sleep 2.5 # the outage itself (see above), not a wait
db_restart 0
wait $pid || { cat "$T/run.out" >&2; fail "run across a restart exited $?"; }
python3 - "$T/r.json" <<'PY' || { cat "$T/run.out" >&2; fail "figures across a restart"; }
import json, sys
j = json.load(open(sys.argv[1]))
t, iv = j["totals"], j["intervals"]
assert t["reconnects"] > 0, t
assert len(iv) == 12, len(iv)
# the outage shows as a gap; after it, transactions flow again
gap = [i for i, x in enumerate(iv) if x["tps"] == 0]
assert gap, "no outage seen"
assert any(x["tps"] > 0 for x in iv[gap[-1] + 1:]), iv
assert any(x["reconnects_s"] > 0 for x in iv), iv
PY

# down for good: exit 3 after the retry budget, with what was measured so far
"$HCISWEEP" oltp run "${C[@]}" --threads 2 --time 30 --reconnect-timeout 2 --report-interval 1 \
        --json "$T/down.json" >"$T/down.out" 2>&1 &
pid=$!
on_exit "kill $pid"
wait_output $pid "$T/down.out" '^\[ 1s \]' 60
db_stop 0
rc=0
wait $pid || rc=$?
[ "$rc" = 3 ] || { cat "$T/down.out" >&2; fail "server down for good: exit $rc, want 3"; }
grep -q "unreachable" "$T/down.out" || fail "no message naming the unreachable server"
python3 - "$T/down.json" <<'PY' || fail "partial results"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["totals"]["transactions"] > 0 and "unreachable" in j["error"], j.get("error")
assert j["seconds"] < 20, j["seconds"]
PY
pass "restart survived, lasting outage ends with exit 3 and partial results"
