#!/bin/bash
# test_scale_windows.sh - a scale result's wall-clock windows (issue 42): started_at is
# the run's start (within 2 s of the run directory's name), every step and repeat
# carries window{start,end} and warmup{start,end} in UTC with ms, each inside the run's
# [started_at, ended_at], the warm-up ends where the window starts, and consecutive
# windows do not overlap.
. "$TESTLIB"

local_lab
expect_rc 0 "$HCISWEEP" scale --vms 1-2:1 --repeat 2 --vm-memory 256M --lun-size 256M "${common[@]}" \
        --tables 1 --table-size 200 --threads 1 --time 1 --warmup-time 0.5 --output-dir "$T/runs"
RES=$(sed -n 's/^result: //p' <<<"$OUT")
[ -f "$RES" ] || fail "no result path printed: $OUT"
python3 - "$RES" <<'PY' || fail "windows"
import datetime as d, json, os, re, sys
r = json.load(open(sys.argv[1]))
stamp = re.search(r"-(\d{8}-\d{6})-", os.path.basename(os.path.dirname(sys.argv[1]))).group(1)
sec = lambda s: d.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=d.timezone.utc).timestamp()
ms = lambda s: d.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=d.timezone.utc).timestamp()
dir_t = d.datetime.strptime(stamp, "%Y%m%d-%H%M%S").replace(tzinfo=d.timezone.utc).timestamp()
start, end = sec(r["started_at"]), sec(r["ended_at"])
assert abs(start - dir_t) <= 2, (stamp, r["started_at"])
prev = None
assert len(r["steps"]) == 2
for st in r["steps"]:
    wins = [st] + st["repeats"]
    assert len(st["repeats"]) == 2, st["repeats"]
    for w in wins:
        a, b = ms(w["window"]["start"]), ms(w["window"]["end"])
        wa, wb = ms(w["warmup"]["start"]), ms(w["warmup"]["end"])
        assert start <= wa <= wb == a <= b <= end + 1, (r["started_at"], w["warmup"], w["window"], r["ended_at"])
        assert b > a, w["window"]
    for x in st["repeats"]:
        assert prev is None or prev <= ms(x["warmup"]["start"]), "repeats overlap"
        prev = ms(x["window"]["end"])
PY
# results show --windows: the run's, each step's, its warm-up's and each repeat's window
expect_rc 0 "$HCISWEEP" results show "$RES" --windows
n=$(grep -cE '^(run|step [0-9].*) +[0-9]{4}-[0-9-]+T[0-9:.]+Z [0-9]{4}-[0-9-]+T[0-9:.]+Z$' <<<"$OUT")
[ "$n" -eq 9 ] || fail "want 9 windows (run, 2 x (step, warm-up, 2 repeats)), got $n: $OUT"
pass
