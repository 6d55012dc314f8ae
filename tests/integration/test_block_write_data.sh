#!/usr/bin/env bash
# What plain writes put on the target: random bytes (a compressing target
# gains nothing), no two 4 KiB blocks alike (a deduplicating one stores
# every block), and never what a read brought in (a slot whose buffer a read
# of zeros overwrote is refilled before it writes).
# shellcheck source=tests/lib.sh
. "$TESTLIB"

# Lines of "zero-byte count" per 4 KiB block of FILE.
zeros_per_block() { od -An -v -tu1 -w4096 "$1" | awk '{ z = 0; for (i = 1; i <= NF; i++) z += ($i == 0); print z }'; }

# Sequential writes wrap around the file many times in 1 s: the last pass is on it.
f=$T/seq.dat
expect_rc 0 "$HCISWEEP" block --engine psync --filename "$f" --size 4m --rw write --bs 64k \
        --iodepth 4 --runtime 1 --quiet
dups=$(split -b 4096 --filter=md5sum "$f" | sort | uniq -d | wc -l)
[ "$dups" -eq 0 ] || fail "sequential writes left $dups 4 KiB blocks that occur more than once"
# The stamps (offset and sequence number, 16 bytes in 512) are all that compresses.
gz=$(gzip -c "$f" | wc -c)
[ "$gz" -gt $(((4 << 20) * 95 / 100)) ] || fail "sequential writes compress: 4 MiB gzip to $gz bytes"

# Reads of a file of zeros between the writes: every block a write reached is
# random (about 16 zero bytes in 4 KiB), none carries the zeros a read brought in.
f=$T/rw.dat
truncate -s 4m "$f"
expect_rc 0 "$HCISWEEP" block --engine psync --filename "$f" --size 4m --rw randrw \
        --rwmixread 50 --bs 4k --iodepth 4 --runtime 1 --quiet
zeros_per_block "$f" >"$T/zeros"
written=$(awk '$1 < 4096' "$T/zeros" | wc -l)
[ "$written" -gt 100 ] || fail "randrw reached only $written of 1024 blocks"
bad=$(awk '$1 < 4096 && $1 > 200' "$T/zeros" | wc -l)
[ "$bad" -eq 0 ] || fail "$bad of $written written blocks hold mostly zeros (a read's data sent as a write)"
pass "random, unique blocks; no read data written"
