#!/usr/bin/env bash
# Hostile answers from a Prometheus server (issue 39 classes 4 and 5) to the
# prometheus host-metrics source, from a fake on a loopback port (the fake
# exporter's server, fake_exporter.py, BASE /prom/CASE), through
# tests/integration/hostsrc_probe: every answer is read or refused naming the
# instance, exit 3, never summed, wrapped or echoed raw; no sanitizer report,
# no hang (a stalled server costs one HTTP time-out).
. "$TESTLIB"
: "${HOSTSRC_PROBE:?run through ctest}"
PIDS=()
on_exit 'for p in "${PIDS[@]}"; do kill "$p"; done'
A=$(test_addr 0) P=$(test_port 0)
python3 "$SRC/tests/integration/fake_exporter.py" "$A" "$P" "$T/prom.log" 2>"$T/prom.err" &
PIDS+=($!)
wait_port "$A" "$P"
U=http://$A:$P/prom

# probe WANT CASE [FRAGMENT]: the source reading the fake's CASE exits WANT and says FRAGMENT.
probe() {
        local want=$1 case=$2 frag=${3:-}
        expect_rc "$want" timeout -k 5 60 "$HOSTSRC_PROBE" "h=prometheus:$U/$case#$A:9100" -- true
        grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' <<<"$OUT" && fail "$case: $OUT"
        [ -z "$frag" ] || grep -qF -- "$frag" <<<"$OUT" || fail "$case: no '$frag' in: $OUT"
}

probe 0 ok "host h busy="
# a subnormal (1e-320, as Go prints one) is a value; so is a huge finite one
probe 0 sub "host h busy="
probe 0 huge "host h busy="
# one series twice: refused naming the instance, never summed
probe 3 dup "instance $A:9100: the same series twice in one answer"
# values that are no counter
probe 3 nan "node_cpu_seconds_total is nan, not a counter"
probe 3 inf "node_cpu_seconds_total is inf, not a counter"
probe 3 overflow "node_cpu_seconds_total is inf, not a counter"
probe 3 neg "node_cpu_seconds_total is -5, not a counter"
# sample times no clock holds: refused, never wrapped into a window
probe 3 time_huge "instance $A:9100: no sample time"
probe 3 time_big "instance $A:9100: no sample time"
probe 3 time_nan "instance $A:9100: no sample time"
# the wrong JSON types
probe 3 value_number "a result without metric and value"
probe 3 metric_string "a result without metric and value"
probe 3 result_object "data is not a vector result"
probe 3 matrix "data is not a vector result"
probe 3 status_number "not a Prometheus API reply"
probe 3 notjson "not JSON"
probe 3 deep "not JSON"
probe 0 labels_numbers "host h busy="
# the server's error text is shown, its escape characters not replayed
probe 3 error "the query failed: bad_data: \\x1b[31mred\\x1b[0m"
grep -q $'\x1b' <<<"$OUT" && fail "an ESC from the server reached the terminal: $OUT"
# a body over the reader's limit, and a server that stalls: refused, the host named
probe 3 oversized "body over 16777216 bytes"
probe 3 stall "h (prometheus)"
pass "hostile Prometheus answers: read or refused naming the instance, exit 3, no hang"
