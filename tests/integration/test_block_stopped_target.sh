#!/usr/bin/env bash
# A target that stops answering (tgtd frozen with SIGSTOP): the I/Os in flight
# fail after --io-timeout, count as errors and timeouts, the result is written
# marked partial and the exit code is 3. SIGTERM while I/Os hang still ends the
# run with 130 at once. Shapes that cannot run are refused with exit 2.
. "$TESTLIB"
. "$SRC/tests/integration/tgt.sh"
tgt_start --luns 1 --size 16M
url=${TGT_URLS[0]}
pid=$(cat "$TGT_DIR/tgtd.pid")
# Registered after tgt_start, so it runs before the stop: a frozen tgtd cannot be stopped.
on_exit "kill -CONT $pid"

# Shapes: more buffers than a job may hold; more I/Os in flight than the LUN has blocks.
expect_rc 2 "$HCISWEEP" block --target "$url" --bs 64m --iodepth 64 --runtime 1 --json "$T/x.json"
grep -q -- "--iodepth" <<<"$OUT" || fail "buffer limit not explained: $OUT"
expect_rc 2 "$HCISWEEP" block --target "$url" --bs 8m --iodepth 4 --runtime 1 --json "$T/x.json"
grep -q "do not fit" <<<"$OUT" || fail "region shape not explained: $OUT"
[ ! -e "$T/x.json" ] || fail "a refused shape wrote a result"

# The block run $run has begun its first point: it holds a session to the
# portal and has saved its config (block writes the result once before the
# first point).
measuring() {
        kill -0 "$run" 2>/dev/null || fail "block ended before measuring: $(cat "$T/$name.out")"
        ss -Htn state established dst "$TGT_PORTAL" | grep -q . && [ -s "$T/$name.json" ]
}

# run_frozen NAME ARGS...: block in the background ($run), tgtd frozen once it is logged in.
run_frozen() {
        local name=$1
        shift
        "$HCISWEEP" block --target "$url" --iodepth 16 --runtime 120 "$@" \
                --json "$T/$name.json" >"$T/$name.out" 2>&1 &
        run=$!
        on_exit "kill -9 $run"
        wait_until 30 measuring
        kill -STOP "$pid"
}

run_frozen stopped --io-timeout 2
rc=0
wait $run || rc=$?
kill -CONT "$pid"
[ $rc -eq 3 ] || fail "a stopped target: exit $rc, want 3: $(cat "$T/stopped.out")"
grep -q "io-timeout" "$T/stopped.out" || fail "the timeout is not named: $(cat "$T/stopped.out")"
jq -e '.partial == true and (.partial_reason | test("io-timeout"))' "$T/stopped.json" >/dev/null ||
        fail "result not marked partial with the reason: $(jq -c '{partial,partial_reason}' "$T/stopped.json")"
jq -e '.points[0].errors > 0 and .points[0].read.timeouts > 0 and
       .points[0].read.timeouts <= .points[0].read.errors and (.points[0].failed | length) > 0' \
        "$T/stopped.json" >/dev/null ||
        fail "timed-out I/Os not counted: $(jq -c '.points[0] | {errors, t: .read.timeouts, failed}' "$T/stopped.json")"

# The target answers again: a run works, then SIGTERM while the target hangs is honoured.
expect_rc 0 "$HCISWEEP" block --target "$url" --iodepth 4 --runtime 1 --json "$T/again.json"
run_frozen term --io-timeout 600
sleep 0.5 # the hang's own length before the signal, not a wait for anything
kill -TERM $run
rc=0
wait $run || rc=$?
kill -CONT "$pid"
[ $rc -eq 130 ] || fail "SIGTERM while I/Os hang: exit $rc, want 130: $(cat "$T/term.out")"
jq -e '.partial == true and .partial_reason == "interrupted"' "$T/term.json" >/dev/null ||
        fail "interrupted result not partial"
pass "stopped target: timeouts counted, exit 3, partial; SIGTERM honoured; shapes refused"
