#!/bin/bash
# test_result_times.sh - a result's started_at is the run's start (the run
# directory's name, within 2 s) and ended_at its end: a 4 s run against a
# real MariaDB ends at least 4 s after it started (issue 42). Before, started_at
# was stamped when the result was built, at the end.
. "$TESTLIB"
db_start 1 times-pw-42
C=(--mysql-host "$DB_HOSTS" --mysql-user root --tables 1 --table-size 100)
expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"
expect_rc 0 "$HCISWEEP" oltp run "${C[@]}" --time 4 --threads 1 --output-dir "$T/runs"
M=$(sed -n 's/^result: //p' <<<"$OUT")
[ -f "$M" ] || fail "no result file: $OUT"
python3 - "$M" <<'PY' || fail "started_at / ended_at"
import datetime as d, json, os, re, sys
r = json.load(open(sys.argv[1]))
name = os.path.basename(os.path.dirname(sys.argv[1]))
stamp = re.search(r"-(\d{8}-\d{6})-", name).group(1)
dir_t = d.datetime.strptime(stamp, "%Y%m%d-%H%M%S")
iso = lambda s: d.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")
start, end = iso(r["started_at"]), iso(r["ended_at"])
assert abs((start - dir_t).total_seconds()) <= 2, (name, r["started_at"])
assert (end - start).total_seconds() >= 4 - 1, (r["started_at"], r["ended_at"])  # whole seconds
PY
pass
