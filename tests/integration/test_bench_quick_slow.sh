#!/usr/bin/env bash
# The peer benchmarks run end to end in their quick form: each starts its own
# servers, measures hcisweep and its peers, prints its tables and a summary
# line with numeric ratios, and leaves no server behind. No figure is
# asserted: these machines are shared and the ratios are for people to read.
# shellcheck source=tests/lib.sh
. "$TESTLIB"
for t in sysbench fio iscsi-perf tgtd mariadbd jq; do
        command -v "$t" >/dev/null || fail "$t is not installed (scripts/install-deps.sh)"
done
NUM='[0-9]+(\.[0-9]+)?'

# The servers a benchmark started are gone once it exits.
no_leftovers() {
        ! pgrep -f "$1" >/dev/null || fail "$2 left a server running: $(pgrep -af "$1")"
}

expect_rc 0 "$SRC/bench/block_vs_peers" --quick --hcisweep "$HCISWEEP" --addr "$(test_addr 0)" \
        --port "$(test_port 0)"
grep -Eq "^summary: iops_ratio_min=$NUM cpu_per_io_ratio=$NUM\$" <<<"$OUT" ||
        fail "block_vs_peers printed no numeric summary: $(tail -5 <<<"$OUT")"
grep -q '^| iscsi-null | 16 | iscsi-perf |' <<<"$OUT" || fail "no iscsi-perf row for the null LUN"
grep -q '^| null | 1 | fio |' <<<"$OUT" || fail "no fio null row"
grep -Eq "^summary_direct: iops_ratio_min=$NUM iops_ratio_median=$NUM cpu_per_io_ratio_median=$NUM\$" \
        <<<"$OUT" || fail "block_vs_peers printed no direct-I/O summary: $(tail -5 <<<"$OUT")"
grep -Eq "^# direct points below 0.97: [0-9]+ of [0-9]+; of those, [0-9]+ had a pair with hcisweep ahead, [0-9]+ lie below 0.97 with their whole interval\$" <<<"$OUT" ||
        fail "block_vs_peers printed no count of the direct points below 0.97"
grep -Eq "^# equal tools would give these pairs iops_ratio_min=$NUM \(the median of 2000 draws," <<<"$OUT" ||
        fail "block_vs_peers printed no minimum for equal tools"
grep -Eq "^\| file \| 4k-randread \| 8 \| 1 \| $NUM \| $NUM\.\.$NUM \[0%\] \| $NUM\.\.$NUM \(1\) \| $NUM \|\$" <<<"$OUT" ||
        fail "no direct ratio row with the median's interval and the pairs' spread"
grep -q '^## page-cache suite' <<<"$OUT" || fail "the page-cache suite is not labelled"
for row in '| file | 4k-randread | 8 | 1 | fio |' '| file | 1m-write | 1 | 1 | hcisweep |' \
        '| files3 | 4k-randrw70 | 8 | 1 | hcisweep |' '| luns2 | 4k-randread | 8 | 1 | iscsi-perf |'; do
        grep -qF "$row" <<<"$OUT" || fail "no direct row '$row'"
done
no_leftovers "portal=$(test_addr 0):" block_vs_peers

expect_rc 1 "$SRC/bench/block_vs_peers" --suite direct --hcisweep "$HCISWEEP" --direct-pairs 0
grep -q "direct-pairs" <<<"$OUT" || fail "--direct-pairs 0 was not refused by name: $OUT"
expect_rc 1 "$SRC/bench/block_vs_peers" --suite direct --hcisweep "$HCISWEEP" --multi-files 3,0
grep -q "multi-files" <<<"$OUT" || fail "--multi-files 3,0 was not refused by name: $OUT"
expect_rc 1 "$SRC/bench/block_vs_peers" --suite direct --hcisweep "$HCISWEEP" --direct-shapes 4k-randread,2m-read
grep -q "no shape '2m-read'" <<<"$OUT" || fail "--direct-shapes 2m-read was not refused by name: $OUT"
# One shape alone: its rows only, and the summary says it covers a subset.
expect_rc 0 "$SRC/bench/block_vs_peers" --quick --suite direct --hcisweep "$HCISWEEP" \
        --direct-shapes 1m-write --direct-iodepth 1
grep -qF '| file | 1m-write | 1 | 1 | hcisweep |' <<<"$OUT" || fail "--direct-shapes 1m-write: no 1m-write row"
! grep -Eq '^\| (file \| 4k-randread|multi) \|' <<<"$OUT" || fail "--direct-shapes 1m-write ran other shapes: $OUT"
grep -q '^# direct shapes: only 1m-write ' <<<"$OUT" || fail "the summary does not say it covers a subset"
# The noise floor: fio against fio, under its own summary name, no hcisweep run.
expect_rc 0 "$SRC/bench/block_vs_peers" --quick --suite direct --hcisweep "$HCISWEEP" \
        --direct-shapes 1m-write --direct-iodepth 1 --direct-aa
grep -qF '| file | 1m-write | 1 | 1 | fio-again |' <<<"$OUT" || fail "--direct-aa: no fio-again row"
! grep -q '| hcisweep |' <<<"$OUT" || fail "--direct-aa ran hcisweep"
grep -Eq "^summary_direct_aa: iops_ratio_min=$NUM iops_ratio_median=$NUM cpu_per_io_ratio_median=$NUM\$" \
        <<<"$OUT" || fail "--direct-aa printed no summary_direct_aa: $(tail -3 <<<"$OUT")"
! grep -q '^summary_direct:' <<<"$OUT" || fail "--direct-aa printed its floor as summary_direct"
# The median's interval: order statistics 6 and 15 of 20 cover it 95.9% of the time.
median_ci() { bash -c '. "$1" && seq 1 "$2" | direct_median_ci' _ "$SRC/bench/block_direct.sh" "$1"; }
[ "$(median_ci 20)" = "1.000 20.000 20 6.000 15.000 0.959" ] || fail "median interval of 1..20: $(median_ci 20)"
[ "$(median_ci 5)" = "1.000 5.000 5 1.000 5.000 0.938" ] || fail "median interval of 1..5: $(median_ci 5)"
# Equal tools' minimum: ratios of 1 stay 1 however they are inverted; a point at
# 0.5 becomes 2 in half the draws, so the minimum is 0.5 in at least one in 20.
null_min() { bash -c '. "$1" && direct_null_min "$2" 200' _ "$SRC/bench/block_direct.sh" "$1"; }
printf 'file a 1 1 1 1\nfile a 1 1 1 1\nfile a 1 1 1 1\n' >"$T/ones"
[ "$(null_min "$T/ones")" = "1.000 1.000" ] || fail "equal tools' minimum of ratios 1: $(null_min "$T/ones")"
printf 'file b 8 1 0.5 1\nfile b 8 1 0.5 1\nfile b 8 1 0.5 1\n' >>"$T/ones"
[ "$(null_min "$T/ones" | cut -d' ' -f2)" = 0.500 ] || fail "equal tools' minimum with a point at 0.5: $(null_min "$T/ones")"

# A block device that holds a filesystem is refused before anything is written.
img=$T/fs.img
truncate -s 16M "$img"
mkfs.ext4 -q "$img" || fail "mkfs.ext4 failed"
loop=$(losetup -f --show "$img") || fail "losetup failed"
on_exit "losetup -d '$loop'"
expect_rc 1 "$SRC/bench/block_vs_peers" --quick --suite direct --hcisweep "$HCISWEEP" --device "$loop"
grep -q "holds a signature" <<<"$OUT" || fail "a device with ext4 was not refused: $(tail -3 <<<"$OUT")"
blkid -p "$loop" | grep -q ext4 || fail "the refused device was written to"

expect_rc 0 "$SRC/bench/oltp_vs_sysbench" --quick --hcisweep "$HCISWEEP" --addr "$(test_addr 1)" \
        --port "$(test_port 1)"
grep -Eq "^summary: cpu_per_txn_ratio=$NUM tps_ratio=$NUM\$" <<<"$OUT" ||
        fail "oltp_vs_sysbench printed no numeric summary: $(tail -5 <<<"$OUT")"
[ "$(grep -c '^| float | oltp_[a-z_]* | 8 | 1 | \(sysbench\|hcisweep\) |' <<<"$OUT")" -eq 4 ] ||
        fail "expected 4 float runs (2 workloads x 2 clients)"
no_leftovers "bind-address=$(test_addr 1) " oltp_vs_sysbench
ADDR3=$(test_addr 2)
expect_rc 0 "$SRC/bench/scale_time_to_answer" --quick --hcisweep "$HCISWEEP" \
        --addr-base "${ADDR3%.*}" --base-port "$(test_port 2)" --target-port "$(test_port 5)"
grep -Eq "^summary: time_ratio=$NUM same_answer=$NUM\$" <<<"$OUT" ||
        fail "scale_time_to_answer printed no numeric summary: $(tail -5 <<<"$OUT")"
grep -Eq '^\| 1 \| (fixed|search) \| [0-9.]+ \| [0-9]+ \| ' <<<"$OUT" || fail "no run rows: $OUT"
no_leftovers "hcisweep-scale_time_to_answer" scale_time_to_answer
ADDR4=$(test_addr 3)
# (a driver in its VM counts in the VM's memory limit: ASan's quarantine kept small)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16" expect_rc 0 \
        "$SRC/bench/placement" --quick --hcisweep "$HCISWEEP" \
        --addr-base "${ADDR4%.*}" --base-port "$(test_port 6)" --target-port "$(test_port 7)"
grep -Eq "^summary: same_tip=$NUM driver_share_ctl=$NUM driver_share_vm=$NUM\$" <<<"$OUT" ||
        fail "placement printed no numeric summary: $(tail -5 <<<"$OUT")"
grep -Eq '^\| 1 \| controller \| [0-9.]+ \| ' <<<"$OUT" && grep -Eq '^\| 1 \| vm \| [0-9.]+ \| ' <<<"$OUT" ||
        fail "no run rows for both placements: $OUT"
grep -Eq '^\| 2 \| [0-9.]+ \| [0-9.]+ \| ' <<<"$OUT" || fail "no step rows: $OUT"
no_leftovers "hcisweep-placement" placement
pass "quick peer benchmarks print their summaries and stop their servers"
