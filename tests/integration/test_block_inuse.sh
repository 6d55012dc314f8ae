#!/usr/bin/env bash
# "Target in use" is said of a LUN only when a known initiator (another
# hcisweep, qemu, fio, libiscsi's tools) names it, never because of this run's
# own ancestors: `timeout 60 hcisweep block --target URL --rw randwrite` and
# the same under a shell that stays its parent write (they were refused as
# "used by the initiator of process <timeout>"), a process of another kind
# whose command line holds the URL does not block a write, while a second
# hcisweep using the LUN does, whatever form of the URL it was given.
. "$TESTLIB"
. "$SRC/tests/integration/tgt.sh"
tgt_start --luns 2 --size 16M
url=${TGT_URLS[0]} url2=${TGT_URLS[1]}
W=(block --target "$url" --rw randwrite --size 1M --runtime 1)

_runs() { [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]; }
_names() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF -- "$2"; }

expect_rc 0 timeout 60 "$HCISWEEP" "${W[@]}" --json "$T/timeout.json"
jq -e '.points[0].write.ios > 0' "$T/timeout.json" >/dev/null || fail "no write under timeout"
expect_rc 0 bash -c '"$@"; exit $?' sh timeout 60 "$HCISWEEP" "${W[@]}" --json "$T/sh.json"
pass "under timeout and a shell: its own ancestors do not hold the LUN"

# A process that is no initiator, naming the URL (a sleep whose argv[0] is the URL).
bash -c 'exec -a "$0" sleep 60' "$url" >/dev/null 2>&1 &
other=$!
on_exit "kill $other"
wait_until 30 _names $other "$url"
expect_rc 0 "$HCISWEEP" "${W[@]}" --json "$T/bystander.json"
kill $other
pass "a bystander naming the URL does not hold it"

# A second hcisweep reading the LUN, given its URL after --target= as the second item of
# a list: the writer is refused.
"$HCISWEEP" block --target="$url2,$url" --runtime 60 --json "$T/reader.json" >"$T/reader.out" 2>&1 </dev/null &
reader=$!
on_exit "kill $reader"
wait_until 30 _runs $reader hcisweep
expect_rc 2 "$HCISWEEP" "${W[@]}" --json "$T/refused.json"
grep -q "is in use (used by the initiator hcisweep, process $reader)" <<<"$OUT" ||
        fail "writer not refused naming the reader: $OUT"
[ ! -e "$T/refused.json" ] || fail "a refused write left a result"
expect_rc 2 "$HCISWEEP" "${W[@]}" --force
grep -q "in use" <<<"$OUT" || fail "--force overrode an initiator in use: $OUT"
kill -INT $reader
wait $reader || true
pass "another hcisweep on the LUN: a write is refused, even with --force"
