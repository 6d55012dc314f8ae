#!/bin/bash
# test_oltp_merge.sh - two `oltp run` processes drive one real MariaDB over
# the same window; `oltp run --merge` makes one result of theirs: TPS and
# events are the sums of the two, the histogram is theirs bucket by bucket,
# every merged percentile lies in the bucket the summed histogram puts it
# in, intervals are aligned by time, the host's figures are kept; the
# merged result is saved into a run directory and the run index. A partial
# input makes a partial merge naming it.
. "$TESTLIB"
db_start 1 merge-pw-71
C=(--mysql-host "$DB_HOSTS" --mysql-user root --tables 2 --table-size 1000)
R=(oltp run "${C[@]}" --time 3 --warmup-time 1 --report-interval 1 --percentile 50,95,99)

expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"
"$HCISWEEP" "${R[@]}" --threads 2 --rand-seed 1 --json "$T/a.json" >"$T/a.out" 2>&1 &
pa=$!
"$HCISWEEP" "${R[@]}" --threads 3 --rand-seed 2 --json "$T/b.json" >"$T/b.out" 2>&1 &
pb=$!
wait "$pa" || fail "run A: $(tail -3 "$T/a.out")"
wait "$pb" || fail "run B: $(tail -3 "$T/b.out")"

expect_rc 0 "$HCISWEEP" oltp run --merge "$T/a.json" "$T/b.json" --output-dir "$T/runs"
grep -q "^Merged TPS" <<<"$OUT" || fail "no merged TPS line: $OUT"
grep -q "total number of events:" <<<"$OUT" || fail "the merge is not printed like a run: $OUT"
M=$(sed -n 's/^result: //p' <<<"$OUT")
[ -f "$M" ] || fail "no merged result file: $OUT"
series_inline "$M" >"$T/m.json" || fail "series files of $M"
python3 - "$T/a.json" "$T/b.json" "$T/m.json" <<'PY' || fail "merged figures"
import json, math, sys
a, b, m = (json.load(open(p)) for p in sys.argv[1:4])
assert m["kind"] == "oltp" and m["partial"] is False, m.get("partial")
ta, tb, tm = a["totals"], b["totals"], m["totals"]
assert ta["transactions"] > 0 and tb["transactions"] > 0
assert abs(tm["tps"] - (ta["tps"] + tb["tps"])) <= 1e-6 * tm["tps"], (tm["tps"], ta["tps"], tb["tps"])
for k in ("transactions", "errors", "reconnects", "failed_connects"):
    assert tm[k] == ta[k] + tb[k], k
for k in ("read", "write", "other"):
    assert tm["queries"][k] == ta["queries"][k] + tb["queries"][k], k
assert m["threads"] == 5 and m["config"]["threads"] == 5, m["threads"]
# the histogram: the inputs' buckets summed, exactly
def buckets(h):
    return dict((i, n) for i, n in h["buckets"])
ba, bb, bm = buckets(a["hist"]), buckets(b["hist"]), buckets(m["hist"])
want = dict(ba)
for i, n in bb.items():
    want[i] = want.get(i, 0) + n
assert bm == want, "buckets differ"
assert m["hist"]["count"] == tm["transactions"] == sum(want.values())
assert m["hist"]["min"] == min(a["hist"]["min"], b["hist"]["min"])
assert m["hist"]["max"] == max(a["hist"]["max"], b["hist"]["max"])
# a merged percentile is the one of all samples, within one bucket (core/hist.c's layout)
def bucket_range(i):
    if i < 256:
        return i, i
    shift = i // 128 - 1
    v = i - shift * 128
    return v << shift, ((v + 1) << shift) - 1
n = sum(want.values())
for p in ("50.0", "95.0", "99.0"):
    rank = math.ceil(float(p) / 100 * n)
    acc = 0
    for i in sorted(want):
        acc += want[i]
        if acc >= rank:
            break
    lo, hi = bucket_range(i)
    lo, hi = max(lo, m["hist"]["min"]), min(hi, m["hist"]["max"])
    v = m["lat_ns"]["percentile"][p]
    assert lo <= v <= hi, (p, v, lo, hi)
# one host, driven by both: one entry, the two runs' figures summed
assert len(m["hosts"]) == 1, m["hosts"]
h = m["hosts"][0]
assert h["totals"]["transactions"] == tm["transactions"]
assert h["hist"]["count"] == tm["transactions"]
# intervals aligned by time, rates summed
ia = dict((r["t"], r) for r in a["intervals"])
ib = dict((r["t"], r) for r in b["intervals"])
assert len(m["intervals"]) == len(set(ia) | set(ib)) == 3, [r["t"] for r in m["intervals"]]
for r in m["intervals"]:
    parts = [x[r["t"]] for x in (ia, ib) if r["t"] in x]
    assert r["inputs"] == len(parts) == 2, r
    assert abs(r["tps"] - sum(x["tps"] for x in parts)) < 1e-6, r
    assert r["lat_ns"]["percentile"]["95.0"] == max(x["lat_ns"]["percentile"]["95.0"] for x in parts)
assert [i["file"] for i in m["merge"]["inputs"]] == sys.argv[1:3]
PY
expect_rc 0 "$HCISWEEP" results list --kind oltp
grep -qF "$(dirname "$M")" <<<"$OUT" || grep -qF "$(basename "$(dirname "$M")")" <<<"$OUT" ||
        fail "the merged result is not in the run index: $OUT"

# a partial input: the merge is partial and names it
python3 - "$T/b.json" "$T/bp.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["partial"], j["partial_reason"] = True, "interrupted"
json.dump(j, open(sys.argv[2], "w"))
PY
expect_rc 0 "$HCISWEEP" oltp run --merge "$T/a.json" "$T/bp.json" --json "$T/mp.json"
grep -q "(partial)" <<<"$OUT" || fail "a partial merge not said: $OUT"
python3 - "$T/mp.json" "$T/bp.json" <<'PY' || fail "partial marks"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["partial"] is True and m["partial_reason"] == sys.argv[2] + ": interrupted", m["partial_reason"]
assert [i["partial"] for i in m["merge"]["inputs"]] == [False, True]
PY
# a result of a run directory (its intervals in the files beside it) merges with every row
expect_rc 0 "$HCISWEEP" oltp run --merge "$M" "$T/b.json" --json "$T/mr.json"
python3 - "$T/m.json" "$T/mr.json" <<'PY' || fail "a run directory's result merged without its intervals"
import json, sys
m, mr = (json.load(open(p)) for p in sys.argv[1:3])
assert len(mr["intervals"]) == len(m["intervals"]) >= 1, (len(mr["intervals"]), len(m["intervals"]))
PY
expect_rc 0 "$HCISWEEP" oltp cleanup "${C[@]}"
pass "two concurrent runs merged: sums, buckets, percentiles, intervals, partial marks"
