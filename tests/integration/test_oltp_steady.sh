#!/bin/bash
# test_oltp_steady.sh - `oltp run --target-ci` against a real MariaDB: a
# loose target ends the run as soon as the rule may (warm-up cut by MSER-5,
# the CI met at its first look), well before --time; a target no run can
# meet measures to --time and is flagged as not met; --target-ci without
# --time is refused; a run without it keeps its fixed length and has no
# steady object.
. "$TESTLIB"
ADDR=$(test_addr 0) PORT=$(test_port 0) PW=st-pw-3
db_start 1 "$PW"
C=(--mysql-host "$ADDR" --mysql-port "$PORT" --mysql-user root --tables 2 --table-size 1000)
expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"

# A CI of 50% is met at the rule's first look: 20 samples after a warm-up
# of at least 4 batches of 5 samples (0.5 s each), far from --time 60.
expect_rc 0 "$HCISWEEP" oltp run "${C[@]}" --threads 2 --time 60 --target-ci 50 --json "$T/loose.json"
grep -q "^Steady state: warm-up [0-9.]* s, measured [0-9.]* s, CI +-[0-9.]*% (target 50%)$" \
        <<<"$OUT" || fail "no steady-state line: $OUT"
python3 - "$T/loose.json" <<'PY' || fail "loose target"
import json, sys
j = json.load(open(sys.argv[1]))
st = j["steady"]
assert st["met"] is True and st["settled"] is True, st
assert st["target_ci_pct"] == 50 and 0 < st["ci_pct"] <= 50, st
assert st["warmup_s"] >= 4 * 5 * 0.5, st
assert 20 * 0.5 <= st["measured_s"] < 60, st
assert abs(j["seconds"] - st["measured_s"]) <= 1.0, (j["seconds"], st)
assert j["hist"]["count"] == j["totals"]["transactions"] > 0
PY
pass "CI 50%: $(jq -c .steady "$T/loose.json")"

# No run meets 0.01% in 6 s: measured to --time, flagged, the run still succeeds.
expect_rc 0 "$HCISWEEP" oltp run "${C[@]}" --threads 2 --time 6 --warmup-time 11 \
        --target-ci 0.01 --json "$T/strict.json"
grep -q "^Steady state: .*(target 0.01%), not met" <<<"$OUT" || fail "not flagged: $OUT"
python3 - "$T/strict.json" <<'PY' || fail "strict target"
import json, sys
j = json.load(open(sys.argv[1]))
st = j["steady"]
assert st["met"] is False and st["ci_pct"] > 0.01, st
assert st["warmup_s"] <= 11, st
assert abs(st["measured_s"] - 6) <= 0.5 and abs(j["seconds"] - 6) <= 0.5, (j["seconds"], st)
PY
pass "CI 0.01%: $(jq -c .steady "$T/strict.json")"

expect_rc 2 "$HCISWEEP" oltp run "${C[@]}" --time 0 --events 100 --target-ci 5
grep -q -- "--target-ci" <<<"$OUT" || fail "--target-ci not named: $OUT"
expect_rc 0 "$HCISWEEP" oltp run "${C[@]}" --threads 2 --time 2 --json "$T/fixed.json"
jq -e 'has("steady") | not' "$T/fixed.json" >/dev/null || fail "a fixed run has a steady object"
! grep -q "^Steady state" <<<"$OUT" || fail "a fixed run prints a steady state"
pass "--target-ci needs --time; fixed runs unchanged"
