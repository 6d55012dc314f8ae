#!/bin/bash
# test_oltp_frozen.sh - a server that stops answering without closing
# anything (mariadbd under SIGSTOP) must not look like a clean run: frozen
# to the end of the run, the host is degraded and still down at the end,
# the result is partial and the run exits 3; frozen past
# --reconnect-timeout, the run ends as for a server that stays down. Down
# time never exceeds the measured window. Also here, as they need a live
# server: an unreachable --rate is marked overloaded and ends on time.
. "$TESTLIB"
ADDR=$(test_addr 0) PORT=$(test_port 0) PW=fz-pw-3
DB="$SRC/scripts/mariadb-server.sh"
# SIGCONT first: a stopped mariadbd would not act on the stop's SIGTERM
on_exit "$DB stop --dir $T/db"
on_exit 'kill -CONT $(cat '"$T"'/db/mariadbd.pid)'
"$DB" start --dir "$T/db" --addr "$ADDR" --port "$PORT" --password "$PW" >/dev/null ||
        fail "mariadbd did not start"
SPID=$(cat "$T/db/mariadbd.pid")
export MYSQL_PWD=$PW
C=(--mysql-host "$ADDR" --mysql-port "$PORT" --mysql-user root --tables 1 --table-size 1000)
expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"

# wait_line FILE REGEX: until a line of FILE matches (at most 60 s), polling.
wait_line() {
        local i
        for ((i = 0; i < 600; i++)); do
                grep -qE "$2" "$1" 2>/dev/null && return 0
                sleep 0.1
        done
        fail "no line matching '$2' in $1: $(tail -3 "$1")"
}

# frozen from the first report to the end of the run (budget longer than the run)
"$HCISWEEP" oltp run "${C[@]}" --threads 2 --time 4 --report-interval 0.5 \
        --reconnect-timeout 30 --json "$T/f.json" >"$T/f.out" 2>&1 &
pid=$!
on_exit "kill $pid"
wait_line "$T/f.out" '^\[ *0\.5s \].* tps: [1-9]'
kill -STOP "$SPID"
rc=0
timeout 60 tail --pid=$pid -f /dev/null || fail "the run against a frozen server did not end"
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
wait_line "$T/s.out" '^\[ *0\.5s \].* tps: [1-9]'
kill -STOP "$SPID"
rc=0
timeout 50 tail --pid=$pid -f /dev/null || fail "a run frozen past the budget did not end"
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
pass "a frozen server degrades its host and makes the result partial; an unreachable rate is marked"
