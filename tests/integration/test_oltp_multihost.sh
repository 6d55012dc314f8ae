#!/bin/bash
# test_oltp_multihost.sh - one run drives two servers on different loopback
# addresses: connections go round-robin over the hosts, every server runs
# transactions (the servers' own execute counters agree), and the per-host
# figures in the JSON add up to the totals; the warm-up is left out.
. "$TESTLIB"
PW=mh-pw-5
db_start 2 "$PW"
H=$DB_HOSTS
execs() { mariadb --no-defaults -h "$(test_addr $1)" -P "$(test_port $1)" -uroot -N -B \
        -e "SHOW GLOBAL STATUS LIKE 'Com_stmt_execute'" | cut -f2; }
C=(--mysql-host "$H" --mysql-user root --tables 2 --table-size 1000)

expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"
e0=$(execs 0) e1=$(execs 1)
expect_rc 0 "$HCISWEEP" oltp run "${C[@]}" --threads 5 --time 2 --warmup-time 1 \
        --report-interval 1 --percentile 50,99 --json "$T/r.json"
d0=$(($(execs 0) - e0)) d1=$(($(execs 1) - e1))
python3 - "$T/r.json" "$d0" "$d1" "$(test_addr 0)" "$(test_addr 1)" <<'PY' || fail "per-host figures"
import json, sys
j = json.load(open(sys.argv[1]))
t, hosts = j["totals"], j["hosts"]
server_execs = [int(sys.argv[2]), int(sys.argv[3])]
assert [h["host"] for h in hosts] == sys.argv[4:6], hosts
for h, ex in zip(hosts, server_execs):
    ht = h["totals"]
    assert ht["transactions"] > 0, h
    q = ht["queries"]
    assert ex >= q["read"] + q["write"] + q["other"] > 0, (ex, q)
    assert h["hist"]["count"] == ht["transactions"], h["hist"]["count"]
for k in ("transactions", "errors", "reconnects"):
    assert sum(h["totals"][k] for h in hosts) == t[k], k
for k in ("read", "write", "other"):
    assert sum(h["totals"]["queries"][k] for h in hosts) == t["queries"][k], k
assert abs(sum(h["totals"]["tps"] for h in hosts) - t["tps"]) < 1e-6 * max(t["tps"], 1)
assert j["hist"]["count"] == t["transactions"]
# the warm-up second is neither an interval nor in the measured time
assert len(j["intervals"]) == 2 and j["intervals"][0]["t"] == 1, j["intervals"]
assert abs(j["seconds"] - 2) < 1e-6, j["seconds"]
assert set(j["lat_ns"]["percentile"]) == {"50.0", "99.0"}, j["lat_ns"]
assert set(j["intervals"][0]["lat_ns"]["percentile"]) == {"50.0", "99.0"}
PY
expect_rc 0 "$HCISWEEP" oltp cleanup "${C[@]}"
pass "two servers, per-host figures add up"
