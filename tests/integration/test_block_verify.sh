#!/usr/bin/env bash
# --verify crc32c against a real tgtd LUN: a clean write+read-back, a
# clean read of stamped blocks, then bytes changed in the LUN's backing
# file are caught (mismatch counted with its offset, exit 1).
. "$TESTLIB"
. "$SRC/tests/integration/tgt.sh"
tgt_start --luns 1 --size 16M
url=${TGT_URLS[0]}

expect_rc 0 "$HCISWEEP" block --target "$url" --rw write,randwrite --bs 64k,4k --iodepth 4 \
        --size 8m --runtime 1 --precondition --verify crc32c --json "$T/w.json"
jq -e '[.points[] | .verify.checked > 0 and .verify.mismatches == 0] | all' "$T/w.json" \
        >/dev/null || fail "verify-write did not check clean"

expect_rc 0 "$HCISWEEP" block --target "$url" --rw read,randread --bs 64k --iodepth 4 \
        --size 8m --runtime 1 --verify crc32c --json "$T/r.json"
jq -e '[.points[] | .verify.checked > 0 and .verify.mismatches == 0] | all' "$T/r.json" \
        >/dev/null || fail "read of stamped blocks did not check clean"

# Change 16 bytes inside the block at 1 MiB (tgtd's rdwr store goes
# through the page cache, so the target serves the changed bytes).
printf '\xff%.0s' $(seq 16) | dd of="$TGT_DIR/lun1.img" bs=1 seek=$((1048576 + 100)) \
        conv=notrunc status=none
expect_rc 1 "$HCISWEEP" block --target "$url" --rw read --bs 64k --iodepth 4 --size 8m \
        --runtime 1 --verify crc32c --json "$T/c.json"
grep -q "mismatch" <<<"$OUT" || fail "mismatch not reported: $OUT"
jq -e '.points[0].verify.mismatches >= 1 and .points[0].verify.bad[0].offset == 1048576
        and .points[0].verify.bad[0].kind == "crc mismatch"' "$T/c.json" >/dev/null ||
        fail "corruption not counted at offset 1048576: $(jq -c .points[0].verify "$T/c.json")"
pass "verify clean, corruption caught"
