#!/bin/bash
# test_block_windows.sh - every block point records its measured window and its warm-up
# window in UTC with ms (issue 42): the warm-up ends where the window starts, both inside the
# run's [started_at, ended_at], points one after another without overlap, the window as long
# as the point's runtime_s (not the warm-up with it); `results show --windows`
# prints them. The points' intervals are in the series files result.json names.
. "$TESTLIB"
cd "$T" || exit 1
export HCISWEEP_INDEX=$T/index.sqlite
expect_rc 0 "$HCISWEEP" block --engine null --iodepth 1,2 --bs 4k --rw randread --runtime 1 \
        --ramp-time 1 --output-dir runs
RES=$(sed -n 's/^result: //p' <<<"$OUT")
[ -f "$RES" ] || fail "no result path printed: $OUT"
python3 - "$RES" <<'PY' || fail "point windows"
import datetime as d, json, os, sys
r = json.load(open(sys.argv[1]))
utc = lambda s, f: d.datetime.strptime(s, f).replace(tzinfo=d.timezone.utc).timestamp()
sec = lambda s: utc(s, "%Y-%m-%dT%H:%M:%SZ")
ms = lambda s: utc(s, "%Y-%m-%dT%H:%M:%S.%fZ")
start, end, prev = sec(r["started_at"]), sec(r["ended_at"]), None
assert len(r["points"]) == 2
for p in r["points"]:
    a, b = ms(p["window"]["start"]), ms(p["window"]["end"])
    wa, wb = ms(p["warmup"]["start"]), ms(p["warmup"]["end"])
    assert start <= wa < wb == a < b <= end + 1, (r["started_at"], p["warmup"], p["window"])
    # the measured part, not the 1 s warm-up: two clocks read apart, so a loose tolerance
    assert abs((b - a) - p["runtime_s"]) < 0.5, (p["window"], p["runtime_s"])
    assert prev is None or prev <= wa, "points overlap"
    prev = b
    ref = p["intervals"]
    assert ref["rows"] >= 1 and os.path.isfile(os.path.join(os.path.dirname(sys.argv[1]), ref["file"])), ref
PY
expect_rc 0 "$HCISWEEP" results show "$RES" --windows
n=$(grep -cE '^point [12] .* [0-9]{4}-[0-9-]+T[0-9:]+\.[0-9]{3}Z [0-9]{4}-[0-9-]+T[0-9:]+\.[0-9]{3}Z$' <<<"$OUT")
[ "$n" -eq 4 ] || fail "want 4 point windows (2 x window, warm-up), got $n: $OUT"
pass
