#!/usr/bin/env bash
# The queue depth a run really held: every point records the time-weighted
# mean of I/Os in flight (iodepth_mean per job, inflight_mean in all), the
# null engine holds exactly --iodepth, and fio's batching and io_uring knobs
# (iodepth_batch_*, fixedbufs, hipri, sqthread_poll) parse and reach the
# loop and the kernel - seen in the io_uring calls strace records.
. "$TESTLIB"
command -v strace >/dev/null || fail "strace is not installed (scripts/install-deps.sh)"
# O_DIRECT needs a real filesystem, not tmpfs: use the build tree's disk.
D=$(mktemp -d "${TMPDIR_DISK:-/var/tmp}/hcisweep-qdepth.XXXXXX")
on_exit "rm -rf '$D'"

# LeakSanitizer cannot run under ptrace: no leak check in the traced runs.
traced() { env ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace "$@"; }

# The harness alone keeps every slot in flight: the mean is iodepth within 1%.
expect_rc 0 "$HCISWEEP" block --engine null --iodepth 1,8,32,128 --ramp-time 1 --runtime 1 \
        --json "$T/null.json"
jq -e '(.points | length) == 4 and
       ([.points[] | ((.iodepth_mean - .iodepth) / .iodepth) | fabs < 0.01] | all) and
       ([.points[] | .inflight_mean == .iodepth_mean] | all)' "$T/null.json" >/dev/null ||
        fail "null engine: mean depth is not iodepth within 1%: $(jq -c '[.points[] | [.iodepth, .iodepth_mean]]' "$T/null.json")"
grep -Eq '^randread +4k +32 +3[12]\.[0-9]{2} +all' <<<"$OUT" ||
        fail "the table has no qd_mean column: $(head -3 <<<"$OUT")"

# Two jobs: the mean per job is iodepth, the total twice that.
expect_rc 0 "$HCISWEEP" block --engine null --iodepth 16 --numjobs 2 --ramp-time 1 --runtime 1 \
        --json "$T/jobs.json"
jq -e '.points[0] | ((.iodepth_mean - 16) | fabs) < 0.16 and ((.inflight_mean - 32) | fabs) < 0.32' \
        "$T/jobs.json" >/dev/null ||
        fail "numjobs 2: $(jq -c '.points[0] | [.iodepth_mean, .inflight_mean]' "$T/jobs.json")"

# A synchronous engine has one I/O in flight, whatever --iodepth says.
f=$D/q.dat
expect_rc 0 "$HCISWEEP" block --engine psync --filename "$f" --size 16m --iodepth 4 --ramp-time 1 \
        --runtime 1 --json "$T/psync.json"
jq -e '.points[0].iodepth_mean <= 1.0001 and .points[0].iodepth_mean > 0.5' "$T/psync.json" \
        >/dev/null || fail "psync: mean depth $(jq '.points[0].iodepth_mean' "$T/psync.json")"

# io_uring with direct I/O: the loop refills every completed slot at once, and the
# monitor records the disk's own aqu-sz next to it.
expect_rc 0 "$HCISWEEP" block --filename "$f" --direct 1 --iodepth 16 --ramp-time 1 --runtime 1 \
        --monitor-interval 1 --json "$T/uring.json"
jq -e '.points[0].read.ios > 0 and ((.points[0].iodepth_mean - 16) | fabs) < 0.16 and
       ([.monitor.samples[].disks[] | .aqu_sz | type == "number" and . >= 0] | all)' \
        "$T/uring.json" >/dev/null ||
        fail "io_uring: $(jq -c '[.points[0].iodepth_mean, .monitor.samples[-1].disks]' "$T/uring.json")"

# fio's batching knobs: echoed in the config; batch_submit 1 is one submission per I/O.
expect_rc 0 traced -f -c -e trace=io_uring_enter -o "$T/enter.txt" "$HCISWEEP" block \
        --filename "$f" --direct 1 --iodepth 8 --runtime 1 --iodepth_batch_submit 1 \
        --iodepth_batch_complete_min 2 --iodepth_batch_complete_max 4 --json "$T/batch.json"
jq -e '.config.iodepth_batch_submit == 1 and .config.iodepth_batch_complete_min == 2 and
       .config.iodepth_batch_complete_max == 4 and .points[0].read.ios > 0' "$T/batch.json" \
        >/dev/null || fail "batch options not echoed: $(jq -c .config "$T/batch.json")"
enters=$(awk '$NF == "io_uring_enter" { print $4 }' "$T/enter.txt")
ios=$(jq '.points[0].read.ios' "$T/batch.json")
[ "${enters:-0}" -ge "$ios" ] || fail "iodepth_batch_submit 1: $enters io_uring_enter for $ios I/Os"
expect_rc 2 "$HCISWEEP" block --engine null --iodepth_batch_complete_min 0
grep -q "iodepth_batch_complete_min" <<<"$OUT" || fail "bad batch minimum not named: $OUT"

# fixedbufs registers the buffers and reads with READ_FIXED; sqthread_poll makes an SQPOLL ring.
expect_rc 0 traced -f -e trace=io_uring_setup,io_uring_register -o "$T/reg.txt" "$HCISWEEP" block \
        --filename "$f" --direct 1 --iodepth 4 --runtime 1 --fixedbufs --json "$T/fixed.json"
grep -q IORING_REGISTER_BUFFERS "$T/reg.txt" || fail "fixedbufs registered no buffers"
jq -e '.points[0].read.ios > 0 and .points[0].read.errors == 0' "$T/fixed.json" >/dev/null ||
        fail "fixedbufs: $(jq -c '.points[0].read | [.ios, .errors]' "$T/fixed.json")"
expect_rc 0 traced -f -e trace=io_uring_setup -o "$T/sq.txt" "$HCISWEEP" block --filename "$f" \
        --direct 1 --rw randwrite --iodepth 4 --runtime 1 --sqthread_poll --json "$T/sq.json"
grep -q IORING_SETUP_SQPOLL "$T/sq.txt" || fail "sqthread_poll made no SQPOLL ring"
jq -e '.points[0].write.ios > 0 and .points[0].write.errors == 0' "$T/sq.json" >/dev/null ||
        fail "sqthread_poll: $(jq -c '.points[0].write | [.ios, .errors]' "$T/sq.json")"

# hipri: a polled ring; on a device without poll queues the run stops at open and says why.
"$HCISWEEP" block --filename "$f" --direct 1 --iodepth 4 --runtime 1 --hipri \
        --json "$T/hipri.json" >"$T/hipri.out" 2>&1 && rc=0 || rc=$?
case $rc in
0) jq -e '.points[0].read.errors == 0' "$T/hipri.json" >/dev/null || fail "hipri: errors" ;;
3) grep -q "hipri: polled I/O is not supported" "$T/hipri.out" ||
        fail "hipri refused without a reason: $(cat "$T/hipri.out")" ;;
*) fail "hipri: exit $rc: $(cat "$T/hipri.out")" ;;
esac
expect_rc 2 "$HCISWEEP" block --filename "$f" --iodepth 4 --runtime 1 --hipri
grep -q "hipri (polled I/O) needs --direct 1" <<<"$OUT" || fail "hipri without direct: $OUT"
pass "mean queue depth recorded and held; batching and io_uring knobs reach the engine"
