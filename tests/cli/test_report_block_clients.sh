#!/usr/bin/env bash
# test_report_block_clients.sh - `hcisweep report` of a real block client run
# (local:2, a 2-point QD sweep): the markdown and HTML carry the Clients
# section (the per-point spread with min/max client IOPS and the slowest
# client named, one row per client and point, as the result recorded them)
# and the Hosts section with the per-host plots against the sweep; then
# `hcisweep compare` of two such runs side by side, with each run's client
# spread per point. Last, the report of a client-count scan (local:4,
# --client-counts 1,2,4, QD 1 and 2): its IOPS and efficiency plots against
# the client count hold one line per queue depth whose points, read back off
# the SVG through its axis labels, are the result's aggregates and
# scaling_efficiency; its table holds them as printed, and each verdict.
. "$TESTLIB"
cd "$T"
F="$T/f1,$T/f2"
expect_rc 0 "$HCISWEEP" block --clients local:2 --filename "$F" --engine psync --size 8m --bs 4k \
        --rw randread --iodepth 1,2 --runtime 1 --json "$T/r.json"
expect_rc 0 "$HCISWEEP" report "$T/r.json" --output-dir "$T/rep"
md="$T/rep/report.md" html="$T/rep/report.html"
grep -q '^## Clients$' "$md" || fail "no Clients section: $(grep '^## ' "$md")"
grep -q '^## Hosts$' "$md" || fail "no Hosts section: $(grep '^## ' "$md")"
grep -q '| point | IOPS (all clients) | client IOPS min | client IOPS max | max / min | slowest client |' \
        "$md" || fail "no spread table"
# each point's spread row: its min, max and slowest as the result recorded them (as printed: %.1f)
for k in 0 1; do
        row=$(jq -r --argjson k $k '.points[$k] | "| \($k + 1): randread 4k qd \(.iodepth), 2 clients | "
                + "\(.read.iops + .write.iops | . * 10 | round / 10 | tostring) | "' "$T/r.json")
        min=$(jq -r --argjson k $k '.points[$k].client_iops.min' "$T/r.json")
        slow=$(jq -r --argjson k $k '.points[$k].slowest' "$T/r.json")
        line=$(grep -F "| $((k + 1)): randread 4k qd " "$md" | grep -F "| $slow |" | head -1)
        [ -n "$line" ] || fail "point $((k + 1)): no spread row naming the slowest $slow"
        printf -v want '%.1f' "$min"
        echo "$line" | grep -qF "| $want |" || fail "point $((k + 1)): min $want not in: $line (want like $row)"
done
# one row per client and point: 2 points x 2 clients, each with its host
n=$(grep -cE '^\| [12]: randread 4k qd [12], 2 clients \| c[12] \| localhost \|' "$md")
[ "$n" -eq 4 ] || fail "per-client rows: $n, want 4: $(grep -E '\| c[12] \|' "$md")"
grep -qF "Each host&#39;s CPU against the sweep (point)" "$html" ||
        grep -qF "Each host's CPU against the sweep (point)" "$html" || fail "no host CPU plot in the HTML"
grep -qE '^\| 1: randread 4k qd 1, 2 clients \| local \| client \|' "$md" ||
        fail "no host row for the local clients' host: $(sed -n '/^## Hosts/,$p' "$md" | head -12)"

# --- compare: a second run of the same shape, side by side
expect_rc 0 "$HCISWEEP" block --clients local:2 --filename "$F" --engine psync --size 8m --bs 4k \
        --rw randread --iodepth 1,2 --runtime 1 --json "$T/r2.json"
expect_rc 0 "$HCISWEEP" compare "$T/r.json" "$T/r2.json" --output-dir "$T/cmp" --json "$T/cmp.json"
echo "$OUT" | grep -q '^== randread 4k ==$' || fail "compare: no randread 4k group: $OUT"
echo "$OUT" | grep -q 'client IOPS min-max' || fail "compare: no client spread column: $OUT"
for qd in 1 2; do
        for f in r r2; do
                lo=$(jq -r --argjson q $qd '.points[] | select(.iodepth == $q) | .client_iops.min | round' "$T/$f.json")
                slow=$(jq -r --argjson q $qd '.points[] | select(.iodepth == $q) | .slowest' "$T/$f.json")
                # the row of qd, holding this run's spread as it rounds it ("%.0f": within 1 of jq's round)
                echo "$OUT" | grep -E "^ +$qd " | grep -qE "($lo|$((lo - 1))|$((lo + 1)))-[0-9]+, slowest $slow" ||
                        fail "compare: qd $qd: no spread $lo.., slowest $slow of $f: $OUT"
        done
done
grep -q 'client IOPS min-max' "$T/cmp/compare.html" || fail "compare.html: no client spread"

# --- a client-count scan: IOPS and efficiency against N, one line per queue depth
expect_rc 0 "$HCISWEEP" block --clients local:4 --client-counts 1,2,4 --filename "$F" --engine psync \
        --size 8m --bs 4k --rw randread --iodepth 1,2 --runtime 1 --json "$T/scan.json"
expect_rc 0 "$HCISWEEP" report "$T/scan.json" --output-dir "$T/srep"
grep -q '^### Client-count scan$' "$T/srep/report.md" || fail "no scan part: $(grep '^##' "$T/srep/report.md")"
# the table, as printed (%.1f IOPS, %.2f efficiency)
jq -r '.points[] | "| \(.rw) 4k qd \(.iodepth) | \(.n_clients) | \(.read.iops + .write.iops) | \(.scaling_efficiency) |"' \
        "$T/scan.json" | while IFS='|' read -r _ name n iops eff _; do
        printf -v want '|%s|%s| %.1f | %.1f | %.2f |' "$name" "$n" "$iops" "$(awk -v a="$iops" -v n="$n" 'BEGIN { print a / n }')" "$eff"
        grep -qF -- "$want" "$T/srep/report.md" || fail "no scan row $want: $(grep -F "$name" "$T/srep/report.md")"
done
jq -r '.scan[].verdict' "$T/scan.json" | while read -r v; do
        grep -qF -- "$v" "$T/srep/report.md" || fail "verdict '$v' not in the report"
done
# the plots: each line's points, read back through the axis' labelled ticks
python3 - "$T/srep/report.html" "$T/scan.json" <<'PY' || fail "the scan plots do not hold the result's figures"
import html, json, re, sys
page, res = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
def num(t):
    t = html.unescape(t)
    return float(t[:-1]) * {"k": 1e3, "M": 1e6}[t[-1]] if t[-1] in "kM" else float(t)
def plot(title):
    f = [f for f in re.findall(r"<figure>.*?</figure>", page, re.S) if ">%s<" % title in f]
    assert len(f) == 1, "%d plots titled %s" % (len(f), title)
    f = f[0]
    ys = [(float(y), num(t)) for y, t in re.findall(r'class="grid"[^>]*y1="([\d.]+)"[^>]*/><text[^>]*>([^<]+)</text>', f)]
    xs = [(float(x), num(t)) for x, t in re.findall(r'<line x1="([\d.]+)" x2="[\d.]+" y1="[\d.]+" y2="[\d.]+" stroke="#888"/><text[^>]*>([^<]+)</text>', f)]
    assert len(ys) >= 2 and len(xs) >= 2, (ys, xs)
    ax = lambda ticks, v: ticks[0][1] + (v - ticks[0][0]) * (ticks[-1][1] - ticks[0][1]) / (ticks[-1][0] - ticks[0][0])
    px = abs((ys[-1][1] - ys[0][1]) / (ys[-1][0] - ys[0][0]))  # one pixel in y units
    names = re.findall(r'<g class="legend">.*?<text[^>]*>([^<]+)</text>', f)
    lines = [[(ax(xs, float(a)), ax(ys, float(b))) for a, b in (p.split(",") for p in pts.split())]
             for pts in re.findall(r'<polyline[^>]*points="([^"]+)"', f)]
    return dict(zip(names, lines)), px
for title, val in (("Aggregate IOPS against client count", lambda p: p["read"]["iops"] + p["write"]["iops"]),
                   ("Scaling efficiency against client count", lambda p: p["scaling_efficiency"])):
    lines, px = plot(title)
    want = {}
    for p in res["points"]:
        want.setdefault("%s 4k qd %d" % (p["rw"], p["iodepth"]), []).append((p["n_clients"], val(p)))
    assert sorted(lines) == sorted(want), (title, sorted(lines), sorted(want))
    for k, pts in want.items():
        got = lines[k]
        assert len(got) == len(pts), (title, k, got, pts)
        for (gx, gy), (wx, wy) in zip(got, pts):
            # coordinates are printed to 0.1 px: within 0.1 px on each axis
            assert abs(gx - wx) < 0.05 and abs(gy - wy) <= 0.1 * px + 1e-9, (title, k, gx, gy, wx, wy, px)
PY

pass "report of a local:2 block run: spread, per-client rows, hosts against the sweep; compare of two;" \
        "a 1,2,4 scan's IOPS and efficiency plots and table hold the result's figures"
