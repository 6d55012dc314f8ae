#!/usr/bin/env bash
# oltp run under a small open-file limit: each event thread needs an epoll
# fd before any connection is tried, so some limit leaves the engine with
# only part of its threads set up. Such a run must say which call failed
# (not "out of memory"), release only what was set up, and exit 3 like any
# run that cannot reach its servers; no sanitizer may report. Nothing
# listens on the address, so every other limit ends in "cannot connect".
. "$TESTLIB"
cd "$T"
ADDR=$(test_addr 0)
PORT=$(test_port 0)
# hcisweep inherits this shell's descriptors (ctest's pipes among them):
# the limits start just above them.
open=$(ls /proc/$$/fd | wc -l)
epoll=0
for n in $(seq $((open + 1)) $((open + 40))); do
        rc=0
        out=$(ulimit -n "$n" && timeout 60 "$HCISWEEP" oltp run --mysql-host "$ADDR:$PORT" \
                --mysql-password x --threads 8 --event-threads 8 --time 1 2>&1 </dev/null) || rc=$?
        if grep -qE 'Sanitizer|runtime error:' <<<"$out"; then
                echo "$out" | tail -30 >&2
                fail "ulimit -n $n: a sanitizer report"
        fi
        grep -q "out of memory" <<<"$out" && fail "ulimit -n $n: $out"
        [ "$rc" -eq 3 ] || fail "ulimit -n $n: exit $rc: $out"
        grep -q "cannot create an epoll instance: Too many open files" <<<"$out" && epoll=$((epoll + 1))
done
[ "$epoll" -gt 0 ] || fail "no limit from $((open + 1)) to $((open + 40)) stopped an event thread's epoll fd"
pass "$epoll open-file limits stop the engine's setup with the epoll error, exit 3"
