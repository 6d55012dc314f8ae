#!/bin/bash
# test_results_index.sh - the run index: results add/list/show on a private
# index, filters, stable ids on re-add, refusal of newer schema versions,
# and the default index path from HCISWEEP_INDEX / XDG_DATA_HOME.
. "$TESTLIB"
cd "$T" || exit 1
IX=$T/ix/index.sqlite

# Two real block results (null engine) and two hand-made ones of other kinds.
expect_rc 0 "$HCISWEEP" block --engine null --iodepth 1,4 --runtime 1 --size 1m --quiet \
        --json "$T/blk1.json"
expect_rc 0 "$HCISWEEP" block --engine null --rw randwrite --bs 8k --iodepth 2 --runtime 1 \
        --size 1m --quiet --json "$T/blk2.json"
cat >oltp.json <<'EOF'
{"schema_version": 1, "hcisweep_version": "0.1.0", "kind": "oltp",
 "started_at": "2026-01-02T03:04:05Z", "config": {"threads": 8}, "threads": 8,
 "totals": {"transactions": 12345, "tps": 1234.5, "qps": 24690},
 "lat_ns": {"mean": 6000000, "percentile": {"95.0": 9000000, "99.0": 12500000}}}
EOF
cat >scale.json <<'EOF'
{"schema_version": 1, "kind": "scale", "started_at": "2025-06-01T00:00:00Z",
 "config": {"topology": "hci"},
 "steps": [{"vms": 4, "totals": {"tps": 4000}, "lat_ns": {"percentile": {"99.0": 20000000}}},
           {"vms": 8, "totals": {"tps": 7000}, "lat_ns": {"percentile": {"99.0": 30000000}}},
           {"vms": 12, "totals": {"tps": 6500}, "lat_ns": {"percentile": {"99.0": 90000000}}}],
 "tipping_point": {"vms": 8, "limited_by": "cpu", "reason": "host CPU 95%"}}
EOF

expect_rc 0 "$HCISWEEP" results add blk1.json blk2.json oltp.json scale.json --index "$IX"
echo "$OUT"
[ "$(echo "$OUT" | grep -c '^added ')" -eq 4 ] || fail "add: $OUT"
[ -f "$IX" ] || fail "index file not created under a new directory"
iops=$(jq '[.points[].read.iops] | max' blk1.json)
qd=$(jq '[.points[]] | max_by(.read.iops) | .iodepth' blk1.json)
echo "$OUT" | grep -q "randread 4k: peak .* IOPS @ QD $qd" || fail "block headline: $OUT"
echo "$OUT" | grep -q "randwrite 8k: peak .* IOPS @ QD 2" || fail "block headline 2: $OUT"
echo "$OUT" | grep -q '1234.5 TPS, p99 12.50 ms, 8 threads' || fail "oltp headline: $OUT"
echo "$OUT" | grep -q 'peak 7000.0 TPS @ 8 VMs, tipping point 8 VMs (cpu)' || fail "scale: $OUT"
pass "add: 4 results, headlines derived from the JSON"

# The table itself, as other tools would read it.
[ "$(sqlite3 "$IX" 'SELECT count(*) FROM runs')" -eq 4 ] || fail "row count"
got=$(sqlite3 "$IX" "SELECT tps_or_iops FROM runs WHERE path = '$T/blk1.json'")
awk -v a="$got" -v b="$iops" 'BEGIN { exit !(a - b < 0.01 && b - a < 0.01) }' ||
        fail "stored iops $got, result says $iops"
[ "$(sqlite3 "$IX" "SELECT p99_ms FROM runs WHERE kind = 'oltp'")" = "12.5" ] || fail "oltp p99"
[ "$(sqlite3 "$IX" "SELECT p99_ms FROM runs WHERE kind = 'scale'")" = "30.0" ] || fail "scale p99"
pass "rows hold peak IOPS $iops and p99s"

expect_rc 0 "$HCISWEEP" results list --index "$IX"
echo "$OUT"
echo "$OUT" | grep -q '^4 runs$' || fail "list count: $OUT"
# Newest first: the two block runs (today) before oltp (2026-01-02), scale (2025) last.
order=$(echo "$OUT" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /Z$/ {print $3}' | tr '\n' ' ')
[ "$order" = "block block oltp scale " ] || fail "order: $order"
expect_rc 0 "$HCISWEEP" results list --kind block --index "$IX"
echo "$OUT" | grep -q '^2 runs$' || fail "kind filter: $OUT"
expect_rc 0 "$HCISWEEP" results list --topology hci --index "$IX"
echo "$OUT" | grep -q '^1 run$' && echo "$OUT" | grep -q scale || fail "topology filter: $OUT"
expect_rc 0 "$HCISWEEP" results list --kind oltp --topology hci --index "$IX"
echo "$OUT" | grep -q '^0 runs$' || fail "two filters: $OUT"
pass "list: newest first, --kind and --topology filter"

id=$(sqlite3 "$IX" "SELECT id FROM runs WHERE kind = 'oltp'")
expect_rc 0 "$HCISWEEP" results show "$id" --index "$IX"
echo "$OUT"
echo "$OUT" | grep -q "^path: *$T/oltp.json$" || fail "show path: $OUT"
echo "$OUT" | grep -q '^tps: *1234.5$' || fail "show tps: $OUT"
expect_rc 0 "$HCISWEEP" results show blk2.json --index "$IX"
echo "$OUT" | grep -q '^kind: *block$' && echo "$OUT" | grep -q 'randwrite 8k' ||
        fail "show by path: $OUT"
expect_rc 2 "$HCISWEEP" results show 999 --index "$IX"
echo "$OUT" | grep -q 'no run 999' || fail "unknown run: $OUT"
pass "show by id and by path; unknown run exits 2"

# Re-adding keeps the id; a result from a newer hcisweep is refused.
before=$(sqlite3 "$IX" "SELECT id FROM runs WHERE path = '$T/blk1.json'")
expect_rc 0 "$HCISWEEP" results add "$T/../$(basename "$T")/blk1.json" --index "$IX"
[ "$(sqlite3 "$IX" "SELECT id FROM runs WHERE path = '$T/blk1.json'")" = "$before" ] ||
        fail "re-add changed the id"
[ "$(sqlite3 "$IX" 'SELECT count(*) FROM runs')" -eq 4 ] || fail "re-add added a row"
jq '.schema_version = 99' blk1.json >future.json
expect_rc 2 "$HCISWEEP" results add future.json --index "$IX"
echo "$OUT" | grep -q 'schema_version 99 is newer' || fail "newer schema: $OUT"
echo '{"kind": "block"' >broken.json
expect_rc 2 "$HCISWEEP" results add broken.json nosuch.json --index "$IX"
echo "$OUT" | grep -q 'broken.json:2: JSON' || fail "broken json: $OUT"
echo "$OUT" | grep -q 'nosuch.json: No such file' || fail "missing file: $OUT"
[ "$(sqlite3 "$IX" 'SELECT count(*) FROM runs')" -eq 4 ] || fail "a refused result was added"
expect_rc 2 "$HCISWEEP" results frob --index "$IX"
expect_rc 2 "$HCISWEEP" results show --index "$IX"
pass "re-add keeps id $before; newer schema, broken and missing files refused"

# Default index: HCISWEEP_INDEX, else XDG_DATA_HOME.
expect_rc 0 env HCISWEEP_INDEX="$T/env.sqlite" "$HCISWEEP" results add oltp.json
[ "$(sqlite3 "$T/env.sqlite" 'SELECT count(*) FROM runs')" -eq 1 ] || fail "HCISWEEP_INDEX"
expect_rc 0 env -u HCISWEEP_INDEX XDG_DATA_HOME="$T/xdg" "$HCISWEEP" results add scale.json
[ "$(sqlite3 "$T/xdg/hcisweep/index.sqlite" 'SELECT kind FROM runs')" = "scale" ] ||
        fail "XDG_DATA_HOME"
expect_rc 0 env -u HCISWEEP_INDEX XDG_DATA_HOME="$T/xdg" "$HCISWEEP" results list
echo "$OUT" | grep -q '^1 run$' || fail "list from the default index: $OUT"
pass "default index from HCISWEEP_INDEX and XDG_DATA_HOME"

# The index holds the user's runs: a block run with --no-index (as the lab's checks of a
# VM's data path run) writes its result but stays out of the list; one without is listed.
export HCISWEEP_INDEX=$T/user.sqlite
expect_rc 0 "$HCISWEEP" block --engine null --iodepth 1 --bs 4k --rw read --runtime 1 \
        --quiet --no-index --json "$T/chain-verify-lun.json"
[ -s "$T/chain-verify-lun.json" ] || fail "--no-index wrote no result"
expect_rc 0 "$HCISWEEP" block --engine null --iodepth 1 --bs 4k --rw read --runtime 1 \
        --quiet --json "$T/mine.json"
expect_rc 0 "$HCISWEEP" results list
echo "$OUT" | grep -q '^1 run$' && echo "$OUT" | grep -q "$T/mine.json" &&
        ! echo "$OUT" | grep -q chain-verify || fail "--no-index run listed: $OUT"
pass "block --no-index stays out of the run index"
