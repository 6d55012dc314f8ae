#!/usr/bin/env bash
# A LUN whose first sector holds an MBR partition table is not written to
# without --force (exit 2, saying what was found); reading it is fine.
. "$TESTLIB"
. "$SRC/tests/integration/tgt.sh"
tgt_start --luns 1 --size 16M
url=${TGT_URLS[0]}
img=$TGT_DIR/lun1.img

# Partition 1: not bootable, type 0x83 (Linux), from LBA 2048; then 0x55AA.
printf '\x00\x20\x21\x00\x83\x8a\x08\x82\x00\x08\x00\x00\x00\x78\x00\x00' |
        dd of="$img" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$img" bs=1 seek=510 conv=notrunc status=none

expect_rc 2 "$HCISWEEP" block --target "$url" --rw randwrite --runtime 1
grep -q "MBR partition table" <<<"$OUT" || fail "refusal does not say what it found: $OUT"
grep -q -- "--force" <<<"$OUT" || fail "refusal does not mention --force: $OUT"
[ "$(od -An -tx1 -j510 -N2 "$img" | tr -d ' ')" = "55aa" ] || fail "the MBR was touched"

expect_rc 0 "$HCISWEEP" block --target "$url" --rw randread --runtime 1 --json "$T/r.json"
expect_rc 0 "$HCISWEEP" block --target "$url" --rw write --size 1m --runtime 1 --force \
        --json "$T/w.json"
[ "$(od -An -tx1 -j510 -N2 "$img" | tr -d ' ')" != "55aa" ] || fail "--force did not write"
pass "partition table protected, --force overrides"
