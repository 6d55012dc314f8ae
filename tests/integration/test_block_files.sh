#!/usr/bin/env bash
# Local files through io_uring and psync: the file is created at --size,
# reads and writes are counted, direct I/O works, verify round-trips.
. "$TESTLIB"
# O_DIRECT needs a real filesystem, not tmpfs: use the build tree's disk.
D=$(mktemp -d "${TMPDIR_DISK:-/var/tmp}/hcisweep-files.XXXXXX")
on_exit "rm -rf '$D'"

for eng in io_uring psync; do
        f=$D/$eng.dat
        expect_rc 0 "$HCISWEEP" block --engine $eng --filename "$f" --size 16m \
                --rw randwrite,randread,randrw --rwmixread 70 --bs 4k --iodepth 1,8 --runtime 1 \
                --json "$T/$eng.json"
        [ "$(stat -c %s "$f")" -eq $((16 << 20)) ] || fail "$eng: file not created at 16 MiB"
        jq -e '(.points | length) == 6 and
               ([.points[] | select(.rw == "randwrite") | .write.ios > 0] | all) and
               ([.points[] | select(.rw == "randread") | .read.ios > 0] | all)' \
                "$T/$eng.json" >/dev/null || fail "$eng: points wrong"
        # randrw at 70% reads: the read share is near 70% (thousands of I/Os).
        jq -e '[.points[] | select(.rw == "randrw") | (.read.ios / (.read.ios + .write.ios))
                | . > 0.6 and . < 0.8] | all' "$T/$eng.json" >/dev/null ||
                fail "$eng: randrw mix is not near 70% reads"
done

expect_rc 0 "$HCISWEEP" block --engine io_uring --filename "$D/io_uring.dat" --direct 1 \
        --rw randread --bs 4k --iodepth 16 --runtime 1 --json "$T/direct.json"
jq -e '.points[0].read.ios > 0 and .config.direct == true' "$T/direct.json" >/dev/null ||
        fail "direct I/O run did no I/O"

expect_rc 0 "$HCISWEEP" block --filename "$D/v.dat" --size 8m --rw write --bs 128k --iodepth 4 \
        --runtime 1 --verify crc32c --precondition --json "$T/vw.json"
expect_rc 0 "$HCISWEEP" block --filename "$D/v.dat" --rw randread --bs 4k --iodepth 4 \
        --runtime 1 --verify crc32c --json "$T/vr.json"
jq -e '.points[0].verify.checked > 0 and .points[0].verify.mismatches == 0' "$T/vr.json" \
        >/dev/null || fail "verify over a file failed"

expect_rc 2 "$HCISWEEP" block --filename "$D/v.dat" --offset 16m --runtime 1
grep -q -- "--size\|--offset" <<<"$OUT" || fail "region past the end not explained: $OUT"
expect_rc 3 "$HCISWEEP" block --filename "$D/missing.dat" --runtime 1
grep -q "missing.dat" <<<"$OUT" || fail "missing file not named: $OUT"
pass "io_uring and psync on files"
