#!/usr/bin/env bash
# A queue-depth sweep against a real tgtd LUN through libiscsi: every point
# measured, histogram counts equal I/O counts, writes land on the LUN.
. "$TESTLIB"
. "$SRC/tests/integration/tgt.sh"
tgt_start --luns 2 --size 64M

expect_rc 0 "$HCISWEEP" block --target "${TGT_URLS[0]}" --rw randread,randwrite --bs 4k \
        --iodepth 1,8 --runtime 1 --json "$T/r.json"
grep -q "^randwrite" <<<"$OUT" || fail "no randwrite row in the table: $OUT"
jq -e '(.points | length) == 4' "$T/r.json" >/dev/null || fail "expected 4 points"
jq -e '[.points[] | select(.rw == "randread") | .read.ios > 0 and .write.ios == 0
        and .read.hist.count == .read.ios and .read.errors == 0] | all' "$T/r.json" >/dev/null ||
        fail "randread points wrong"
jq -e '[.points[] | select(.rw == "randwrite") | .write.ios > 0 and .read.ios == 0
        and .write.lat_ns.mean > 0 and .write.errors == 0] | all' "$T/r.json" >/dev/null ||
        fail "randwrite points wrong"
# The writes reached the backing file: it is no longer all zeros.
[ "$(head -c 64M "$TGT_DIR/lun1.img" | tr -d '\0' | head -c 1 | wc -c)" -eq 1 ] ||
        fail "backing file still all zeros after randwrite"
jq -e '.knee | length == 2' "$T/r.json" >/dev/null || fail "no knee per (rw, bs) group"

# Two LUNs at once: a row per target, and per-target counts add up to the aggregate.
expect_rc 0 "$HCISWEEP" block --target "${TGT_URLS[0]},${TGT_URLS[1]}" --rw randread \
        --iodepth 4 --runtime 1 --json "$T/r2.json"
[ "$(grep -c '^randread' <<<"$OUT")" -eq 3 ] || fail "expected rows all + 2 targets: $OUT"
jq -e '.points[0] | (.targets | length) == 2 and .targets[0].read.ios > 0
        and .targets[1].read.ios > 0
        and .targets[0].read.ios + .targets[1].read.ios == .read.ios
        and .targets[0].read.hist.count + .targets[1].read.hist.count == .read.hist.count' \
        "$T/r2.json" >/dev/null || fail "per-target figures do not add up to the aggregate"
# A block size the LUN cannot take, and a region past its end: exit 2 naming the option.
expect_rc 2 "$HCISWEEP" block --target "${TGT_URLS[0]}" --bs 1000 --runtime 1
grep -q -- "--bs: 1000 is not a multiple of .* block size 512" <<<"$OUT" || fail "bad --bs: $OUT"
expect_rc 2 "$HCISWEEP" block --target "${TGT_URLS[0]}" --offset 60m --size 8m --runtime 1
grep -q -- "--size/--offset" <<<"$OUT" || fail "region past the end: $OUT"
pass "sweep over a tgtd LUN"
