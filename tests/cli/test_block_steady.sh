#!/usr/bin/env bash
# block --target-ci on the null engine (the harness alone): each point's
# ramp ends when MSER-5 finds IOPS settled and the point once the 95% CI
# of its mean is within the target, before --runtime; the point records
# steady{} and prints a steady line; a point without --target-ci keeps its
# fixed length and has no steady object.
# The null engine's IOPS is the CPU's: on a host shared with other work it
# can drift for the whole warm-up, and then MSER-5 honestly finds no end (a
# trend beyond the noise). The rule's answer then is a warm-up of exactly
# its limit (half of --runtime) marked "not settled", and the point still
# ends on its CI: that is checked instead of the settled case.
. "$TESTLIB"

expect_rc 0 "$HCISWEEP" block --engine null --iodepth 1 --runtime 60 --target-ci 50 \
        --json "$T/b.json"
settled=$(jq -r '.points[0].steady.settled' "$T/b.json")
suffix=""
[ "$settled" = true ] || suffix=", not settled"
grep -q "^steady: warm-up [0-9.]* s, measured [0-9.]* s, CI +-[0-9.]*% (target 50%)$suffix$" <<<"$OUT" ||
        fail "no steady line: $OUT"
python3 - "$T/b.json" <<'PY' || fail "steady point: $(jq -c '.points[0] | {runtime_s, steady}' "$T/b.json")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
st = p["steady"]
assert st["met"] is True and 0 < st["ci_pct"] <= 50 and st["target_ci_pct"] == 50, st
assert st["warmup_s"] >= 4 * 5 * 0.5, st          # MSER-5 looks at 4 batches first
if not st["settled"]:                             # no end found: the warm-up ran to its limit
    assert abs(st["warmup_s"] - 60 / 2) < 1e-6, st
assert 20 * 0.5 <= st["measured_s"] and p["runtime_s"] < 60, (p["runtime_s"], st)
assert abs(p["runtime_s"] - st["measured_s"]) <= 2, (p["runtime_s"], st)
assert p["read"]["ios"] > 0
PY
pass "null engine, CI 50%, settled $settled: $(jq -c '.points[0] | {runtime_s, steady}' "$T/b.json")"

expect_rc 0 "$HCISWEEP" block --engine null --iodepth 1 --runtime 1 --json "$T/f.json"
jq -e '.points[0] | has("steady") | not' "$T/f.json" >/dev/null || fail "a fixed point has steady"
! grep -q "^steady:" <<<"$OUT" || fail "a fixed point prints a steady line"
pass "a fixed point is unchanged"
