#!/usr/bin/env bash
# test_merge_limits.sh - `oltp run --merge` holds its limits against hostile
# inputs: each refusal exits 2 naming the file, the sums
# never wrap, and the merge is linear in rows and bounded per host.
. "$TESTLIB"
cd "$T"

# gen NAME [key=value...]: an oltp result with the fields the cases change (merge_input.py)
gen() { python3 "$SRC/tests/cli/merge_input.py" "$@"; }
N=0
BAD=0
# bad WANT FRAGMENT ARGS...: hcisweep ARGS exits WANT, prints FRAGMENT, no sanitizer report.
bad() {
        local want=$1 frag=$2 rc=0 out
        shift 2
        N=$((N + 1))
        out=$(timeout 60 "$HCISWEEP" "$@" 2>&1 </dev/null) || rc=$?
        if [ "$rc" -ne "$want" ] || ! grep -qF -- "$frag" <<<"$out" ||
                grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' <<<"$out"; then
                echo "case $N: want exit $want and '$frag', got exit $rc: hcisweep $*" >&2
                tail -5 <<<"$out" | sed 's/^/    /' >&2
                BAD=$((BAD + 1))
        fi
}
MG=(oltp run --merge --json "$T/merged.json")

gen ok.json
gen ok2.json
mkfifo fifo.json
bad 2 "fifo.json: not a regular file" "${MG[@]}" ok.json fifo.json
bad 2 "ok.json: the same file as an earlier input" "${MG[@]}" ok.json ok.json
ln ok.json hard.json
bad 2 "hard.json: the same file as an earlier input" "${MG[@]}" ok.json hard.json
gen dup_t.json ts='[1, 2, 1]'
bad 2 "dup_t.json: two intervals[] rows at t=1" "${MG[@]}" ok.json dup_t.json
gen max1.json tx=9223372036854775807
gen max2.json tx=9223372036854775807
bad 2 "max2.json: the merged counts would exceed what a result holds" "${MG[@]}" max1.json max2.json
gen big1.json tps=1.7e308
gen big2.json tps=1.7e308
bad 2 "big2.json: the merged rates would exceed what a result holds" "${MG[@]}" big1.json big2.json
gen negtps.json tps=-5
bad 2 "negtps.json: not an oltp result: a negative tps" "${MG[@]}" ok.json negtps.json
gen qwneg.json qw=-5
bad 2 "qwneg.json: not an oltp result: a negative min" "${MG[@]}" ok.json qwneg.json
gen qwbig.json qw=1e30
bad 2 "qwbig.json: not an oltp result: an out-of-range min" "${MG[@]}" ok.json qwbig.json
gen wrap.json buckets=1
bad 2 "wrap.json: not an oltp result: the hist: histogram: bucket counts overflow" "${MG[@]}" ok.json wrap.json
gen port.json hosts=1 port=65536
bad 2 "port.json: not an oltp result: an out-of-range port" "${MG[@]}" ok.json port.json
gen thr.json threads=4294967297
bad 2 "thr.json: not an oltp result: an out-of-range threads" "${MG[@]}" ok.json thr.json
printf '{"kind": "oltp", "kind": "oltp"}' >twice.json
bad 2 "twice.json:1: not an oltp result: JSON: the key kind twice in the top object" "${MG[@]}" ok.json twice.json
printf '{"kind": "oltp"} x' >tail.json
bad 2 "tail.json:1: not an oltp result: JSON: end of file expected" "${MG[@]}" ok.json tail.json
for i in $(seq 0 256); do cp ok.json "f$i.json"; done
bad 2 "option --merge: at most 256 result files" "${MG[@]}" f[0-9]*.json
[ -e "$T/merged.json" ] && fail "a refused --merge wrote its result"
[ "$BAD" -eq 0 ] || fail "$BAD of $N cases failed"

# Host names are compared in full: two that differ only after character 255 stay two.
L=$(printf 'h%.0s' $(seq 300))
gen ha.json hosts=1 hostname="${L}a"
gen hb.json hosts=1 hostname="${L}b"
expect_rc 0 "$HCISWEEP" "${MG[@]}" ha.json hb.json
python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["hosts"]; assert len(h) == 2 and len(h[0]["host"]) == 301, len(h)' \
        merged.json || fail "long host names merged into one"
# A merge of 256 files is taken (the limit is 256, not 255).
rm -f f256.json
expect_rc 0 "$HCISWEEP" "${MG[@]}" f[0-9]*.json

# intervals[] before lat_ns (read from the tree, not row by row as hcisweep's order allows): the same merge
gen o1.json rows=3 tx=5
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); iv=r.pop("intervals"); json.dump(dict(intervals=iv, **r), open(sys.argv[2], "w"))' \
        o1.json o1r.json
gen o2.json rows=3 ts="[4]"
expect_rc 0 "$HCISWEEP" "${MG[@]}" o1.json o2.json
jq -S 'del(.started_at, .ended_at, .merge.inputs[].file)' merged.json >in_order.json
expect_rc 0 "$HCISWEEP" "${MG[@]}" o1r.json o2.json
jq -S 'del(.started_at, .ended_at, .merge.inputs[].file)' merged.json >reordered.json
cmp -s in_order.json reordered.json || fail "intervals before lat_ns merge otherwise: $(diff in_order.json reordered.json | head -5)"
jq -e '.intervals | length == 4' merged.json >/dev/null || fail "rows 1-3 and 1-4 are not 4: $(jq -c .intervals merged.json)"

# Rows are read without jansson where they are plain (oltp/merge.c): the same figures as
# jansson's tree gives (the reordered input), for number forms the quick reader takes and rows
# it leaves to jansson (a key twice: the last counts; a string; an escaped key).
python3 - o1.json q1.json q1r.json <<'EOF2'
import json, sys
r = json.load(open(sys.argv[1]))
iv = r.pop("intervals")
rows = [json.dumps(x) for x in iv]
rows[0] = rows[0].replace('"tps": 1.0', '"tps": 0.1E1').replace('"qps": 0', '"qps": 25e-1') \
    .replace('"95.0": 5', '"95.0": 5.5e0')
rows[1] = rows[1].replace('"tps": 1.0', '"tps": 7, "tps": 3').replace('"errors_s": 0', '"note": "x", "errors_s": 0')
rows[2] = rows[2].replace('"t": 3.0', '"t": 0.3e+1').replace('"95.0": 5', '"95.0": 9, "9\\u0035": 7')
head = json.dumps(r)[:-1]
open(sys.argv[2], "w").write(head + ', "intervals": [' + ", ".join(rows) + "]}")
open(sys.argv[3], "w").write('{"intervals": [' + ", ".join(rows) + "], " + json.dumps(r)[1:])
EOF2
expect_rc 0 "$HCISWEEP" "${MG[@]}" q1.json o2.json
jq -S 'del(.started_at, .ended_at, .merge.inputs[].file)' merged.json >quick.json
expect_rc 0 "$HCISWEEP" "${MG[@]}" q1r.json o2.json
jq -S 'del(.started_at, .ended_at, .merge.inputs[].file)' merged.json >tree.json
cmp -s quick.json tree.json || fail "rows read quick and by jansson differ: $(diff quick.json tree.json | head -5)"
jq -e '[.intervals[0].tps, .intervals[0].qps, .intervals[0].lat_ns.percentile["95.0"], .intervals[1].tps,
        .intervals[2].t, .intervals[2].lat_ns.percentile["95.0"]] == [2, 2.5, 5, 4, 3, 7]' \
        merged.json >/dev/null || fail "rows' figures: $(jq -c '.intervals[0:3]' merged.json)"

# Linear in rows: two inputs of 100k intervals each, 200k in all, align into 100k rows
# (the time and memory are printed: no timing assert on a shared machine).
gen r1.json rows=100000
gen r2.json rows=100000
/usr/bin/time -f '%e s %M KB' -o r.time "$HCISWEEP" "${MG[@]}" r1.json r2.json >/dev/null ||
        fail "200k-row merge failed"
echo "merge of 200k intervals: $(cat r.time)"
python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["intervals"]; assert len(r) == 100000 and all(x["inputs"] == 2 for x in r)' merged.json ||
        fail "200k rows not aligned"
# Bounded memory per host: 20k hosts in one input and 20k (the same names) in another.
gen h1.json hosts=20000
gen h2.json hosts=20000
/usr/bin/time -f '%e s %M KB' -o h.time "$HCISWEEP" "${MG[@]}" h1.json h2.json >/dev/null ||
        fail "20k-host merge failed"
echo "merge of 2 x 20k hosts: $(cat h.time)"
python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["hosts"]
assert len(h) == 20000 and all(x["hist"]["count"] == 2 and x["totals"]["transactions"] == 2 for x in h)' \
        merged.json || fail "20k hosts not merged host by host"
# memory: under 200 MB where no sanitizer shadow memory is counted
if ! "$HCISWEEP" --version 2>&1 | grep -qi sanit && ! nm -an "$HCISWEEP" 2>/dev/null | grep -q __asan_init; then
        kb=$(awk '{print $3}' h.time)
        [ "$kb" -lt 204800 ] || fail "20k hosts took $kb KB (over 200 MB)"
fi
pass
