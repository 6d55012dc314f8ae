#!/bin/bash
# test_metrics_burst.sh - the metrics endpoint under a burst: 500 scrapes
# connected at once are all answered (the listen backlog once was 16, and
# the rest were reset); --metrics-listen ADDR:0 says which port it bound,
# on the terminal and in the result.
. "$TESTLIB"
ADDR=$(test_addr 0)
"$HCISWEEP" block --engine null --runtime 30 --metrics-listen "$ADDR:0" --json "$T/b.json" \
        >"$T/b.out" 2>&1 &
pid=$!
on_exit "kill $pid"
wait_output $pid "$T/b.out" "metrics: serving http://$ADDR:[0-9]+/metrics"
BOUND=$(sed -n "s|.*metrics: serving http://\($ADDR:[0-9]*\)/metrics.*|\1|p" "$T/b.out")
[ "${BOUND##*:}" != 0 ] || fail "port 0 printed as bound: $BOUND"
python3 - "$BOUND" <<'PY' || fail "a burst of scrapes was not answered in full"
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
socks = []
for _ in range(500):
    s = socket.create_connection((host, int(port)), timeout=20)
    socks.append(s)
for s in socks:
    s.sendall(b"GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n")
ok = 0
for s in socks:
    try:
        ok += s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        pass
    s.close()
assert ok == 500, "%d of 500 answered" % ok
PY
kill -INT $pid
wait $pid || true
python3 - "$T/b.json" "$BOUND" <<'PY' || fail "the bound address is not in the result"
import json, sys
j = json.load(open(sys.argv[1]))
assert j.get("metrics_address") == sys.argv[2], (j.get("metrics_address"), sys.argv[2])
PY
pass "500 simultaneous scrapes answered; the port bound for :0 printed and recorded"
