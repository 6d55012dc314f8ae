#!/usr/bin/env bash
# The block command's usage contract: --help, exit code 2 with a message
# naming the option for bad input, "did you mean", and a null-engine run
# whose JSON has the fields the README lists.
. "$TESTLIB"

expect_rc 0 "$HCISWEEP" block --help
grep -q -- "--iodepth" <<<"$OUT" || fail "--help does not list --iodepth"
grep -q -- "--verify" <<<"$OUT" || fail "--help does not list --verify"

expect_rc 2 "$HCISWEEP" block --engine null --iodpth 4
grep -q "did you mean --iodepth" <<<"$OUT" || fail "no did-you-mean: $OUT"

expect_rc 2 "$HCISWEEP" block --engine null --iodepth 0
grep -q -- "--iodepth" <<<"$OUT" || fail "message does not name --iodepth: $OUT"

expect_rc 2 "$HCISWEEP" block --engine null --bs 4x
grep -q -- "--bs" <<<"$OUT" || fail "message does not name --bs: $OUT"

expect_rc 2 "$HCISWEEP" block --engine null --rw randomread
grep -q -- "--rw" <<<"$OUT" || fail "message does not name --rw: $OUT"

expect_rc 2 "$HCISWEEP" block
grep -q "no target" <<<"$OUT" || fail "missing target not explained: $OUT"

expect_rc 2 "$HCISWEEP" block --target /tmp/not-a-url
grep -q -- "--target" <<<"$OUT" || fail "path given to --target not explained: $OUT"

expect_rc 2 "$HCISWEEP" block --filename "$T/f" --engine libiscsi
grep -q -- "--engine" <<<"$OUT" || fail "engine/target mismatch not explained: $OUT"

expect_rc 2 "$HCISWEEP" nosuchcommand
expect_rc 0 "$HCISWEEP" --help

# A short null-engine sweep: two points, JSON as the README gives it.
expect_rc 0 "$HCISWEEP" block --engine null --iodepth 1,8 --runtime 1 --json "$T/r.json"
grep -q "result: $T/r.json" <<<"$OUT" || fail "result path not printed: $OUT"
jq -e '.schema_version == 1 and .kind == "block" and (.points | length) == 2' "$T/r.json" >/dev/null ||
        fail "top level of the result is wrong"
jq -e '.points[0] | .rw == "randread" and .bs == 4096 and .iodepth == 1 and .read.ios > 0
        and .read.lat_ns.percentile["99.0"] > 0 and .read.hist.count == .read.ios
        and .write.ios == 0 and (.intervals | length) >= 1' "$T/r.json" >/dev/null ||
        fail "point 0 lacks the fields the README lists"
jq -e '.config.iodepth == [1,8] and .host.cpus >= 1 and (.monitor.samples | length) >= 1' \
        "$T/r.json" >/dev/null || fail "config echo, host or monitor missing"
# Without --json: a run directory with the result, the interval CSV and a
# job file that runs the same thing again.
expect_rc 0 "$HCISWEEP" block --engine null --iodepth 2 --bs 8k --runtime 1 --output-dir "$T/runs"
d=$(echo "$T"/runs/block-*)
[ -f "$d/result.json" ] && [ -f "$d/intervals.csv" ] && [ -f "$d/job.ini" ] ||
        fail "run directory incomplete: $(ls "$d")"
jq -e '.partial == false and (has("partial_reason") | not)' "$d/result.json" >/dev/null || fail "final result still marked partial"
head -1 "$d/intervals.csv" | grep -q "iodepth" || fail "intervals.csv has no header"
expect_rc 0 "$HCISWEEP" run "$d/job.ini"
[ "$(ls -d "$T"/runs/block-* | wc -l)" -eq 2 ] || fail "job.ini did not make a second run"
d2=$(ls -d "$T"/runs/block-* | grep -v "^$d\$")
jq -e --slurpfile a "$d/result.json" '.config == $a[0].config' "$d2/result.json" >/dev/null ||
        fail "the rerun's config differs from the original's"
pass "usage errors and null-engine JSON"
