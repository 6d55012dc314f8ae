#!/bin/bash
# test_compare.sh - `hcisweep compare` finds the crossover on constructed
# scale runs (HCI ahead up to 20 VMs, two-layer from 24) and on two real
# null-engine block runs (one reshaped so the leader changes at a known
# queue depth); runs of different kinds, missing files and newer schemas
# exit 2.
. "$TESTLIB"
cd "$T" || exit 1
MK="$SRC/tests/cli/mkscale.py"

# 1. Scale: hci versus two-layer.
mkdir hci two
python3 "$MK" hci hci/result.json && python3 "$MK" two-layer two/result.json || fail "mkscale"
expect_rc 0 "$HCISWEEP" compare hci two --output-dir out
echo "$OUT"
grep -q '^crossover: hci ahead up to 20 VMs, two-layer ahead from 24 VMs$' <<<"$OUT" ||
        fail "scale crossover"
grep -Eq '^ +24 +4700\.0 +4800\.0 +1\.02 ' <<<"$OUT" || fail "row 24 VMs with ratio 1.02"
grep -q '^html: out/compare.html$' <<<"$OUT" || fail "html path"
[ "$(grep -c '<svg' out/compare.html)" -eq 2 ] || fail "expected 2 overlay plots"
grep -q 'class="marker"' out/compare.html || fail "crossover not marked"
grep -q 'Crossover: hci ahead up to 20 VMs, two-layer ahead from 24 VMs.' out/compare.html ||
        fail "crossover sentence not in the page"
# --json: the crossover, each run's tipping point (read off its steps as scale reads them:
# hci's efficiency 20->24 VMs is ln(4700/4600)/ln(1.2) = 12% at 96% -> 99% host CPU)
expect_rc 0 "$HCISWEEP" compare hci two --output-dir out --json out/cmp.json
# the answer at the end: each run's verdict (at most four lines) and one crossover line
ans=$(sed -n '/^the answer:$/,/^html: /p' <<<"$OUT")
grep -q '^hci: tips at 20 VMs — limited by cpu: the host CPU saturated$' <<<"$ans" ||
        fail "hci verdict: $OUT"
grep -q '^  host CPU 96% → 99% busy (20 → 24 VMs)$' <<<"$ans" || fail "hci figures: $ans"
grep -q '^two-layer: no tipping point up to 32 VMs — still scaling' <<<"$ans" || fail "2l: $ans"
[ "$(grep -c '^crossover: hci ahead up to 20 VMs, two-layer ahead from 24 VMs$' <<<"$ans")" -eq 1 ] ||
        fail "no crossover line in the answer: $ans"
[ "$(grep -vc '^\(the answer:\|crossover: \|html: \)' <<<"$ans")" -le 8 ] ||
        fail "more than four lines per run: $ans"
# the page opens with the verdicts, before the plots and tables
v=$(grep -bo '<div class="verdict">' out/compare.html | head -1 | cut -d: -f1)
f=$(grep -bo '<figure' out/compare.html | head -1 | cut -d: -f1)
[ -n "$v" ] && [ "$v" -lt "$f" ] || fail "compare.html: the verdict is not before the plots"
grep -q '<th>figure</th><th>at 20 VMs</th><th>at 24 VMs</th><th>rule it met</th>' out/compare.html ||
        fail "compare.html: no evidence table"
jq -e '.runs[0].tipping_point.verdict | startswith("hci: tips at 20 VMs")' out/cmp.json >/dev/null ||
        fail "compare json verdict: $(jq -c .runs[0].tipping_point.verdict out/cmp.json)"
# --explain prints each run's evidence
expect_rc 0 "$HCISWEEP" compare hci two --output-dir out --explain
grep -Eq '^  host CPU busy +96% +99% +\* ≥ 90%: saturated$' <<<"$OUT" || fail "explain: $OUT"
# no crossover, said in the host's terms: two-layer's VMs on 1 of the 2 CPUs, HCI's on both
jq '.steps |= map(.totals.tps *= 2 | .cpu_by_owner = {storage: 12})' hci/result.json >fast.json
jq '.steps |= map(.compute_cpu = {cpus: "0", busy: 90})' two/result.json >two-cpu.json
expect_rc 0 "$HCISWEEP" compare fast.json two-cpu.json --html none.html
grep -q "^crossover: hci ahead at every common step decided beyond the noise, no crossover: two-layer gives the VMs 1 of this host's 2 CPUs, HCI gives them all 2 and its storage service needed at most 12%$" <<<"$OUT" ||
        fail "why no crossover: $OUT"
jq -e '.kind == "compare" and .crossover.vms == 24 and (.runs | length) == 2 and
        .runs[0].tipping_point.vms == 20 and .runs[0].tipping_point.limited_by == "cpu" and
        .runs[1].tipping_point.vms == null and (.runs[0].tipping_point.usl | has("kappa")) and
        (.groups[0].steps[] | select(.load == 24) | .ratio_to_a[1] * 100 | round) == 102' \
        out/cmp.json >/dev/null || fail "compare json: $(jq -c '{crossover, runs}' out/cmp.json)"
grep -q 'hci tips at 20 VMs (cpu)' out/compare.html || fail "tipping point not marked"
# the same two runs the other way round with no crossover: crossover null
python3 - hci/result.json >same.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["steps"]:
    s["totals"]["tps"] *= 2
json.dump(d, sys.stdout)
PY
expect_rc 0 "$HCISWEEP" compare hci same.json --html same.html --json same-cmp.json
jq -e '.crossover == null' same-cmp.json >/dev/null || fail "no crossover: $(jq -c .crossover same-cmp.json)"
# the other way round, and a third run: ratios to A, the first
expect_rc 0 "$HCISWEEP" compare two hci hci/result.json --html three.html
grep -q '^crossover: two-layer ahead from 24 VMs' <<<"$OUT" && fail "order not respected"
# the same run twice: labels made unique with their letter
grep -q '^crossover: B:hci ahead up to 20 VMs, two-layer ahead from 24 VMs$' <<<"$OUT" ||
        fail "reversed crossover: $OUT"
grep -q '^crossover: C:hci ahead up to 20 VMs' <<<"$OUT" || fail "third run: $OUT"
[ -s three.html ] || fail "--html FILE not written"
pass "scale: hci ahead up to 20 VMs, two-layer ahead from 24"

# 2. Two real block runs; B reshaped: half the IOPS up to QD 2, double from QD 4.
mkdir a b c
for r in a b; do
        expect_rc 0 "$HCISWEEP" block --engine null --iodepth 1-8 --bs 4k --rw randread \
                --runtime 1 --json $r/result.json
done
expect_rc 0 "$HCISWEEP" compare a b --html ab.html
grep -q '^== randread 4k ==$' <<<"$OUT" || fail "no randread 4k group: $OUT"
grep -q '^crossover: ' <<<"$OUT" || fail "no crossover line"
jq '.points |= map(.read.iops = (if .iodepth <= 2 then .read.iops / 2 else .read.iops * 2 end))' \
        a/result.json >c/result.json
expect_rc 0 "$HCISWEEP" compare a c --html ac.html
grep -q '^crossover: a ahead up to QD 2, c ahead from QD 4$' <<<"$OUT" || fail "block: $OUT"
grep -Eq '^ +4 +[0-9.]+ +[0-9.]+ +2\.00 ' <<<"$OUT" || fail "QD 4 ratio 2.00: $OUT"
pass "block: a ahead up to QD 2, c ahead from QD 4"

# 3. Bad input exits 2.
expect_rc 2 "$HCISWEEP" compare hci a
grep -q 'compare runs of one kind' <<<"$OUT" || fail "kinds: $OUT"
expect_rc 2 "$HCISWEEP" compare hci missing/result.json
jq '.schema_version = 2' two/result.json >new.json
expect_rc 2 "$HCISWEEP" compare hci new.json
grep -q 'newer than this hcisweep reads' <<<"$OUT" || fail "newer: $OUT"
expect_rc 2 "$HCISWEEP" compare hci
pass "different kinds, missing file, newer schema, one run: exit 2"
