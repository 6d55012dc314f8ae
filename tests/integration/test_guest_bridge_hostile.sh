#!/usr/bin/env bash
# Hostile answers from a guest agent to the guest bridge (`hcisweep lab
# guest-driver`, lab/guest_driver.h), from a fake agent on
# the chardev's unix socket (fake_qga.py): a guest time of INT64_MIN or 2^64,
# started lines of +-INT64, exit statuses with signal INT_MIN / INT_MAX / 19,
# exit codes 256 and 2^40, JSON that is malformed, of the wrong type or over
# the reader's limit. No sanitizer report, no hang, never a signal raised on
# the bridge itself, and an exit status out of range told as it came and
# counted lost (exit 3), never 0. Then a streaming driver (a block client,
# --start-on-go: stdin a FIFO written through the agent, stdout a file read
# from an offset): its lines relayed; a line without end refused at the
# bridge's 64 MiB bound; reads that are not base64 or hold more than was
# asked, and a handle that is no integer, exit 3 (once the driver exited, its
# output lost is an error, never a silent 0); a FIFO that cannot be written
# ends the driver's input while its lines are still relayed.
. "$TESTLIB"
PIDS=()
on_exit 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done'
FAKE=$SRC/tests/integration/fake_qga.py

# bridge CASE WANT [FRAGMENT]: the bridge against a fake of CASE exits WANT and says FRAGMENT.
# Its input: $IN (the controller's "clock" asks before the go, when set), then "go".
IN=
DRV=(hcisweep oltp run --time 1) # the driver: one ready and one go
bridge() {
        local case=$1 want=$2 frag=${3:-} sock=$T/$1.sock rc=0 fp
        rm -f "$sock" # a case run again: wait for its new fake, not the last one's socket
        python3 "$FAKE" "$sock" "$case" "$T/$case.log" 2>"$T/$case.err" &
        fp=$!
        PIDS+=("$fp")
        wait_file "$sock"
        OUT=$(timeout -k 5 120 "$HCISWEEP" lab guest-driver --vm 1 --agent "unix:$sock" -- \
                "${DRV[@]}" <<<"${IN}go" 2>&1) || rc=$?
        kill "$fp" 2>/dev/null
        grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' <<<"$OUT" &&
                fail "$case: a sanitizer report: $OUT"
        [ "$rc" -eq "$want" ] || fail "$case: want exit $want, got $rc: $OUT"
        [ -z "$frag" ] || grep -qF -- "$frag" <<<"$OUT" || fail "$case: no '$frag' in: $OUT"
}

bridge ok 0 "hcisweep-driver started "
# the controller's carrier (dp_carrier_guest) asks for the clock before the go: each ask is
# answered with the guest's clock (the fake's 1700000000000000000), and the start is relayed
# in the guest's clock as the driver said it (the carrier moves it into the controller's)
IN=$'clock\nclock\n'
bridge ok 0 "hcisweep-driver clock 1700000000000000000"
[ "$(grep -c '^hcisweep-driver clock 1700000000000000000$' <<<"$OUT")" -eq 2 ] ||
        fail "two asks, not two answers: $OUT"
grep -qx 'hcisweep-driver started 1000000000' <<<"$OUT" ||
        fail "the start not relayed as the guest said it: $OUT"
# the guest's clock: out of range, not an int64, not an integer: the offset is unknown
# (an ask the agent cannot answer is not answered), the run goes on
bridge time_min 0 "hcisweep-driver started "
bridge time_big 0 "the guest's clock:"
bridge time_float 0 "guest-get-time: not a time"
IN=
# a start out of range: dropped with a warning or saturated, never wrapped
bridge started_min 0
bridge started_max 0
# exit statuses no exit status holds: told as they came, the driver lost (3)
bridge sig_min 3 "ended by signal -2147483648, which is no signal"
bridge sig_max 3 "ended by signal 2147483647, which is no signal"
bridge code_256 3 "exited with status 256, which no exit status holds"
bridge code_2p40 3 "exited with status 1099511627776, which no exit status holds"
bridge code_str 3 "which no exit status holds"
# SIGSTOP in the guest is told as a shell tells it, never raised here (that hung the bridge)
bridge sig_stop 147 "killed by signal 19"
# replies that are not the protocol: the agent is lost (3), no hang
bridge bad_json 3 "guest-exec-status: not a reply"
bridge wrong_type 3 "guest-exec-status: not an object"
bridge oversized 3 "a reply longer than 64 MiB"
pass "hostile guest agent answers: no overflow, no signal raised, no hang"

# --- a streaming driver (a block client, --start-on-go): its stdin a FIFO the agent writes,
# its stdout a file read from an offset ---------------------------------------------------
DRV=(hcisweep block --start-on-go --quiet)
bridge s_ok 0 "hcisweep-driver line two"
grep -qx 'hcisweep-driver started 1000000000' <<<"$OUT" || fail "s_ok: the start not relayed: $OUT"
grep -qx 'hcisweep-driver ready' <<<"$OUT" || fail "s_ok: the ready not relayed: $OUT"
grep -q '^guest-file-write$' "$T/s_ok.log" || fail "s_ok: the go never written to the FIFO"
! grep -q 'warning' <<<"$OUT" || fail "s_ok: a warning: $OUT"
# a line without end: refused at the bridge's bound (64 MiB), the driver stopped, lost (3)
bridge s_long 3 "a line of the guest's driver over 67108865 bytes"
# reads that are not the protocol: once the driver has exited, its output lost is an error
bridge s_b64 3 "guest-file-read: not base64"
bridge s_count 3 "guest-file-read: not base64 of 16384 bytes"
bridge s_handle_str 3 "guest-file-open"
# the FIFO cannot be written: the driver's input ends, what it wrote is still relayed
bridge s_write_err 0 "hcisweep-driver line two"
pass "hostile guest agent answers to a streaming driver: bounded lines, refused reads, no hang"
