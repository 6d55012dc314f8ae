#!/usr/bin/env bash
# A target lost mid-run: when it comes back, the session is re-established,
# the interval is marked and the run completes (exit 0); when it stays
# gone, the partial result is written and the exit code is 3.
. "$TESTLIB"
. "$SRC/tests/integration/tgt.sh"
tgt_start --luns 1 --size 16M
url=${TGT_URLS[0]}
restart() { bash "$SRC/scripts/iscsi-target.sh" start --dir "$TGT_DIR" --portal "$TGT_PORTAL" \
        --luns 1 --size 16M >/dev/null; }
# measuring PID JSON: the block run PID has begun its first point (a session to
# the portal, and the result it saves once before the first point).
measuring() {
        kill -0 "$1" 2>/dev/null || fail "block ended before measuring"
        ss -Htn state established dst "$TGT_PORTAL" | grep -q . && [ -s "$2" ]
}

"$HCISWEEP" block --target "$url" --rw randread --iodepth 8 --runtime 14 \
        --json "$T/r.json" >"$T/r.out" 2>&1 &
pid=$!
on_exit "kill $pid"
wait_until 30 measuring $pid "$T/r.json"
kill -9 "$(cat "$TGT_DIR/tgtd.pid")"
sleep 2 # the outage's own length, not a wait
restart || fail "could not restart tgtd"
wait $pid || fail "run across a target restart failed: $(tail -5 "$T/r.out")"
jq -e '.points[0].reconnects >= 1 and .points[0].read.ios > 0
        and ([.points[0].intervals[] | select(.reconnects > 0)] | length) >= 1
        and ([.points[0].intervals[-3:][] | .read_iops > 0] | all)' "$T/r.json" >/dev/null ||
        fail "reconnect not counted/marked, or no I/O after it: $(jq -c '.points[0] | {reconnects, iv: [.intervals[] | [.read_iops, .reconnects]]}' "$T/r.json")"

"$HCISWEEP" block --target "$url" --rw randread --iodepth 8 --runtime 120 \
        --json "$T/p.json" >"$T/p.out" 2>&1 &
pid=$!
on_exit "kill $pid"
wait_until 30 measuring $pid "$T/p.json"
kill -9 "$(cat "$TGT_DIR/tgtd.pid")"
rc=0
wait $pid || rc=$?
[ "$rc" -eq 3 ] || fail "lost target: expected exit 3, got $rc: $(tail -5 "$T/p.out")"
jq -e '.partial == true and .points[0].read.ios > 0 and (.points[0].failed | length) > 0' \
        "$T/p.json" >/dev/null || fail "no partial result after losing the target"
pass "reconnect marked; lost target gives a partial result and exit 3"
