#!/usr/bin/env bash
# test_report_block_clients.sh - `hcisweep report` of a real block client run
# (local:2, a 2-point QD sweep): the markdown and HTML carry the Clients
# section (the per-point spread with min/max client IOPS and the slowest
# client named, one row per client and point, as the result recorded them)
# and the Hosts section with the per-host plots against the sweep; then
# `hcisweep compare` of two such runs side by side, with each run's client
# spread per point.
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
pass "report of a local:2 block run: spread, per-client rows, hosts against the sweep; compare of two"
