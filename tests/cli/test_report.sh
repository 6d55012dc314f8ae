#!/bin/bash
# test_report.sh - `hcisweep report` on a real block result (null engine) and
# on constructed scale results: plots and tables in the HTML, the load-point
# table in the Markdown, the SPEC SFS overall response time against a value
# computed by hand, warnings, bad input exits 2, and the page rendered by
# headless Chromium (offline, no scripts).
. "$TESTLIB"
cd "$T" || exit 1
MK="$SRC/tests/cli/mkscale.py"

# 1. A real block sweep.
mkdir b
expect_rc 0 "$HCISWEEP" block --engine null --iodepth 1-4 --bs 4k --rw randread,randwrite \
        --runtime 1 --json b/result.json
expect_rc 0 "$HCISWEEP" report b
grep -q "^html: b/report.html$" <<<"$OUT" || fail "report did not print its html path: $OUT"
grep -q "^markdown: b/report.md$" <<<"$OUT" || fail "no markdown path: $OUT"
# 2 against queue depth, 2 over time: IOPS over each point's window and host CPU, wall-clock
[ "$(grep -c '<svg' b/report.html)" -eq 4 ] || fail "block report: expected 4 svg plots"
grep -q 'IOPS over time' b/report.html || fail "no IOPS-over-time plot"
python3 - b/result.json b/report.html <<'PY' || fail "the time axis is not the run's UTC time"
import json, re, sys
r, html = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
svg = html[html.index("IOPS over time"):]
svg = svg[:svg.index("</svg>")]
day = lambda s: sum(int(v) * m for v, m in zip(s.split(":"), (3600, 60, 1)))
t0, t1 = day(r["started_at"][11:19]), day(r["ended_at"][11:19])
ticks = [day(t) for t in re.findall(r">(\d\d:\d\d(?::\d\d)?)</text>", svg)]
assert len(ticks) >= 2, ticks
assert all(-60 <= (t - t0) % 86400 <= (t1 - t0) % 86400 + 60 for t in ticks), (t0, t1, ticks)
PY
grep -q '<polyline' b/report.html || fail "block plots have no lines"
grep -q 'IOPS against queue depth' b/report.html || fail "no IOPS plot title"
grep -q '<table>' b/report.html || fail "no table in html"
grep -qiE '<script|src=|href=|@import|url\(' b/report.html && fail "the page loads a script or something remote"
grep -q '^| load (queue depth) | throughput (IOPS) | mean latency (ms) | p99 latency (ms) | ops/s | MB/s |' \
        b/report.md || fail "no SPEC SFS-style load-point table in the markdown"
grep -q '^### randwrite 4k$' b/report.md || fail "no randwrite 4k group"
peak=$(jq '[.points[] | select(.rw == "randread") | .read.iops] | max' b/result.json)
shown=$(sed -n 's/^Peak: \([0-9.]*\) IOPS at queue depth.*/\1/p' b/report.md | head -1)
# The report prints one decimal: within half of it (plus a rounding ulp) of the JSON value.
[ -n "$shown" ] && near "$shown" "$peak" 0.0501 ||
        fail "randread peak $peak not in the markdown (it says '$shown')"
pass "block: 2 plots, load-point tables, peak $peak"

# 2. A constructed scale result: 5 plots with the tipping point marked and explained.
mkdir s && python3 "$MK" hci s/result.json || fail "mkscale"
expect_rc 0 "$HCISWEEP" report s/result.json
[ "$(grep -c '<svg' s/report.html)" -eq 5 ] || fail "scale report: expected 5 svg plots"
[ "$(grep -c 'class="marker"' s/report.html)" -eq 5 ] || fail "tipping point not marked on every plot"
# the verdict heads the page, read off the steps as scale reads them; the evidence as a table
[ "$(sed -n 4p s/report.md)" = 'hci: tips at 20 VMs — limited by cpu: the host CPU saturated' ] ||
        fail "verdict not at the top: $(sed -n 1,8p s/report.md)"
grep -q '^  host CPU 96% → 99% busy (20 → 24 VMs)$' s/report.md || fail "verdict figures missing"
grep -q '^| host CPU busy \* | 96% | 99% | ≥ 90%: saturated |$' s/report.md ||
        fail "evidence table: $(grep -A8 'the evidence' s/report.md)"
grep -q '^| 20 | 4600.0 | 4.24 | 16.0 | 92000.0 | 163.84 |' s/report.md ||
        fail "scale load point 20 (mean 4.24 = 1.06 x 4 ms, p99 16 ms from the histogram): $(grep '^| 20 ' s/report.md)"
grep -q 'storage not in the data path' s/report.md && fail "a lab on LUNs flagged as off the data path"
mkdir h && python3 - s/result.json h/result.json <<'PY' || fail "host-datadir variant"
import json, sys
j = json.load(open(sys.argv[1]))
j["lab"] = {"backend": "local", "datadir_on": "host"}
json.dump(j, open(sys.argv[2], "w"))
PY
expect_rc 0 "$HCISWEEP" report h/result.json
grep -q 'Warning: storage not in the data path' h/report.md || fail "--datadir-on host not flagged in the report"
pass "scale: 5 plots, tipping point, merged-histogram mean and p99, datadir on host flagged"

# 3. Overall response time on a ramp computed by hand (see mkscale.py): 3.75 ms;
#    throughput that varied between intervals is flagged.
mkdir r && python3 "$MK" ort r/result.json
expect_rc 0 "$HCISWEEP" report r
grep -q '^Overall response time: 3.75 ms' r/report.md || fail "ORT: $(grep -i overall r/report.md)"
grep -q '^> Warning: VMs 4: throughput varied between intervals (coefficient of variation 30.0%' \
        r/report.md || fail "no CV warning"
pass "overall response time 3.75 ms; CV warning"

# 4. Partial and untrusted runs are flagged; a run id of the index works.
jq '.partial = true | .partial_reason = "interrupted by SIGINT" |
    .monitor.summary.untrusted = true | .monitor.summary.reason = "mean steal 7.5%" |
    .monitor.summary.steal_max = 31' s/result.json >p.json
expect_rc 0 "$HCISWEEP" report p.json --output-dir pout
grep -q 'Warning: this run is partial (interrupted by SIGINT)' pout/report.md || fail "partial"
grep -q 'marks this run untrusted: mean steal 7.5% (steal up to 31.0%)' pout/report.md ||
        fail "untrusted warning"
[ "$(sed -n 4p pout/report.md)" = "hci: UNTRUSTED run — the host monitor saw mean steal 7.5% (another tenant's CPU): the figures may be low" ] ||
        fail "the verdict's first line does not say untrusted: $(sed -n 1,8p pout/report.md)"
export HCISWEEP_INDEX=$T/index.sqlite
expect_rc 0 "$HCISWEEP" results add s/result.json
id=$(sed -n 's/^added \([0-9]*\):.*/\1/p' <<<"$OUT")
rm s/report.html
expect_rc 0 "$HCISWEEP" report "$id"
[ -s s/report.html ] || fail "report by run id $id wrote no page"
pass "partial and steal warnings; report by run id $id"

# 5. Bad input exits 2.
expect_rc 2 "$HCISWEEP" report missing-dir
jq '.schema_version = 99' s/result.json >new.json
expect_rc 2 "$HCISWEEP" report new.json
grep -q 'schema_version 99 is newer than this hcisweep reads' <<<"$OUT" || fail "newer: $OUT"
echo '{"kind":"scale"}' >nover.json
expect_rc 2 "$HCISWEEP" report nover.json
expect_rc 2 "$HCISWEEP" report
pass "missing, newer schema, no schema, no argument: exit 2"

# 6. The page as a browser renders it: offline, no sandbox, own profile.
command -v chromium >/dev/null || fail "chromium is not installed (scripts/install-deps.sh)"
CHR=(chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
        --disable-background-networking --disable-component-update --disable-sync
        --user-data-dir="$T/chr")
timeout 120 "${CHR[@]}" --dump-dom "file://$T/s/report.html" >dom.html 2>chr.err ||
        fail "chromium --dump-dom failed: $(tail -3 chr.err)"
[ "$(grep -o '<svg' dom.html | wc -l)" -eq 5 ] || fail "rendered DOM lacks the 5 svg plots"
grep -q '<polyline' dom.html || fail "rendered DOM has no polyline"
timeout 120 "${CHR[@]}" --screenshot="$T/r.png" --window-size=1200,2000 \
        "file://$T/s/report.html" >/dev/null 2>chr.err || fail "screenshot failed: $(tail -3 chr.err)"
size=$(stat -c %s r.png)
[ "$size" -gt 30000 ] || fail "screenshot is only $size bytes"
pass "chromium: DOM with 5 svg, screenshot $size bytes"
