#!/bin/bash
# test_oltp_frozen.sh - a server that stops answering without closing
# anything (mariadbd under SIGSTOP) must not look like a clean run: frozen
# to the end of the run, the host is degraded and still down at the end,
# the result is partial and the run exits 3; frozen past
# --reconnect-timeout, the run ends as for a server that stays down. Down
# time never exceeds the measured window. Also here, as they need a live
# server: an unreachable --rate is marked overloaded and ends on time, and
# a default run (no --report-interval) can be reported.
. "$TESTLIB"
db_start 1 fz-pw-3
SPID=$(db_pid 0)
# SIGCONT before the stop at exit (registered later, so run first): a stopped
# mariadbd would not act on the stop's SIGTERM
on_exit "kill -CONT $SPID"
C=(--mysql-host "$DB_HOSTS" --mysql-user root --tables 1 --table-size 1000)
expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"

# frozen from the first report to the end of the run (budget longer than the run)
"$HCISWEEP" oltp run "${C[@]}" --threads 2 --time 4 --report-interval 0.5 \
        --reconnect-timeout 30 --json "$T/f.json" >"$T/f.out" 2>&1 &
pid=$!
on_exit "kill $pid"
wait_output $pid "$T/f.out" '^\[ *0\.5s \].* tps: [1-9]'
kill -STOP "$SPID"
rc=0
wait_gone $pid 60
wait $pid || rc=$?
kill -CONT "$SPID"
[ "$rc" = 3 ] || { cat "$T/f.out" >&2; fail "frozen to the end: exit $rc, want 3"; }
grep -q "degraded" "$T/f.out" || fail "no degraded warning: $(cat "$T/f.out")"
python3 - "$T/f.json" <<'PY' || { cat "$T/f.out" >&2; fail "frozen to the end: result"; }
import json, sys
j = json.load(open(sys.argv[1]))
h = j["hosts"][0]
assert j.get("partial"), "not partial: %r" % {k: j.get(k) for k in ("partial", "error")}
assert h["degraded"] and h["down_at_end"], h
assert 0 < h["down_s"] <= 4.0 + 0.05, h["down_s"]  # never more than the 4 s measured
assert j["totals"]["transactions"] > 0, j["totals"]
PY

# frozen past --reconnect-timeout in a long run: ends early with exit 3
"$HCISWEEP" oltp run "${C[@]}" --threads 2 --time 60 --report-interval 0.5 \
        --reconnect-timeout 1 --json "$T/s.json" >"$T/s.out" 2>&1 &
pid=$!
on_exit "kill $pid"
wait_output $pid "$T/s.out" '^\[ *0\.5s \].* tps: [1-9]'
kill -STOP "$SPID"
rc=0
wait_gone $pid 50
wait $pid || rc=$?
kill -CONT "$SPID"
[ "$rc" = 3 ] || { cat "$T/s.out" >&2; fail "frozen past the budget: exit $rc, want 3"; }
grep -q "unreachable" "$T/s.out" || fail "no message naming the silent server: $(cat "$T/s.out")"
python3 - "$T/s.json" <<'PY' || { cat "$T/s.out" >&2; fail "frozen past the budget: result"; }
import json, sys
j = json.load(open(sys.argv[1]))
h = j["hosts"][0]
assert "unreachable" in j["error"] and h["degraded"], (j.get("error"), h)
assert j["seconds"] < 30, j["seconds"]
PY

# a rate one connection cannot serve: marked overloaded, with the rate reached
expect_rc 0 "$HCISWEEP" oltp run "${C[@]}" --threads 1 --rate 500000 --time 1 --json "$T/o.json"
grep -q "overloaded: reached" <<<"$OUT" || fail "no overloaded warning: $OUT"
python3 - "$T/o.json" <<'PY' || fail "overloaded run"
import json, sys
j = json.load(open(sys.argv[1]))
r = j["rate"]
assert r["overloaded"] is True and r["queue_overflows"] > 0, r
assert r["achieved_tps"] < r["target_tps"], r
PY
# a default run (no --report-interval) keeps intervals: report, compare and analyze draw it
expect_rc 0 "$HCISWEEP" oltp run "${C[@]}" --threads 1 --time 2 --json "$T/d.json"
grep -q '^\[ ' <<<"$OUT" && fail "interval lines printed without --report-interval"
expect_rc 0 "$HCISWEEP" report "$T/d.json" --output-dir "$T/rep"
expect_rc 0 "$HCISWEEP" compare "$T/d.json" "$T/d.json" --html "$T/c.html"
expect_rc 0 "$HCISWEEP" analyze "$T/d.json"
pass "a frozen server degrades its host and makes the result partial; an unreachable rate is marked"
