#!/usr/bin/env bash
# SIGKILL of `block` during its first point leaves no empty run directory:
# the run's config (job.ini) and a result marked partial are saved before
# the first point, as after every point.
. "$TESTLIB"
cd "$T"
"$HCISWEEP" block --engine null --iodepth 1 --runtime 30 --output-dir "$T/runs" >"$T/out" 2>&1 &
run=$!
on_exit "kill -9 $run 2>/dev/null"
r=""
first_save() { r=$(compgen -G "$T/runs/block-*/result.json" | head -1) && [ -n "$r" ]; }
wait_until 30 first_save # at most 30 s: the run's own length
kill -0 "$run" 2>/dev/null || fail "block ended before it was killed: $(cat "$T/out")"
kill -9 "$run"
wait "$run" 2>/dev/null || true
d=$(dirname "$r")
jq -e '.partial == true and (.points | length) == 0 and .config.runtime == 30 and
        (.partial_reason | test("before the first point"))' "$r" >/dev/null ||
        fail "the saved result: $(jq -c '{partial, partial_reason, n: (.points | length)}' "$r")"
grep -q '^runtime *= *30' "$d/job.ini" || fail "job.ini lacks the config: $(cat "$d/job.ini")"
for dir in "$T"/runs/*/; do
        [ -f "$dir/result.json" ] || fail "an empty run directory: $dir"
done
pass "SIGKILL during the first point: the run directory keeps job.ini and a partial result"
