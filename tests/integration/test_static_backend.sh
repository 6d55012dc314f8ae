# test_static_backend.sh - `hcisweep lab ... --backend static`: an INI
# inventory of existing servers (one real mariadbd, started here through the
# local lab, and one address where nothing listens). Checks reachability per
# server, that up uses the first N, that scale refuses a block load (no
# LUNs) and a plan past the inventory, and that a bad inventory is refused
# with exit 2 naming its line. Host sections: status lists every host with its
# role and source, one answering through a real node_exporter, one whose
# exporter is not there (exit 3); a bad role, a metrics URL that is not
# http(s) and a hypervisor with no host section are refused naming the line.
. "$TESTLIB"

# The server is one VM of a local lab of this test's own: a real mariadbd
# with a password file, which the inventory then lists as if it were remote.
ADDR=$(test_addr 0)
PORT=$(test_port 0)
DEAD_PORT=$(test_port 1)
LAB=$T/lab
lab() { "$HCISWEEP" lab "$@" --lab-dir "$LAB" --addr-base "${ADDR%.*}" --base-port "$PORT" \
        --target-port "$(test_port 2)" --datadir-on host; }
on_exit kill_listed
on_exit lab down
expect_rc 0 lab up --vms 1 --vm-memory 128M --lun-size 1M
cp "$LAB/password" "$T/db.pw"

INV=$T/inventory.ini
cat >"$INV" <<INI
; two servers: the first answers, nothing listens behind the second
[db1]
host = $ADDR
port = $PORT
user = root
password_file = db.pw
database = sbtest

[db2]
host = $ADDR
port = $DEAD_PORT
password_file = db.pw
INI
st() { "$HCISWEEP" lab "$@" --backend static --inventory "$INV"; }

expect_rc 3 st status
grep -q "^vm1 addr=$ADDR:$PORT state=alive" <<<"$OUT" || fail "db1 not alive: $OUT"
grep -q "^vm2 addr=$ADDR:$DEAD_PORT state=down" <<<"$OUT" || fail "db2 not down: $OUT"
grep -q "inventory.ini:3 \[db1\]" <<<"$OUT" || fail "status does not name the section: $OUT"
pass "status: db1 reachable, db2 not (exit 3)"

expect_rc 0 st up --vms 1
grep -q "^vm1 addr=$ADDR:$PORT state=kept" <<<"$OUT" || fail "up --vms 1: $OUT"
grep -q "password_file=$T/db.pw" <<<"$OUT" || fail "password file not resolved: $OUT"
expect_rc 3 st up --vms 2
grep -q "$ADDR:$DEAD_PORT" <<<"$OUT" || fail "unreachable server not named: $OUT"
expect_rc 2 st up --vms 3
grep -q "lists 2" <<<"$OUT" || fail "--vms 3 of 2: $OUT"
expect_rc 0 st down
pass "up uses the first N; too many is exit 2, unreachable exit 3"

# What the backend cannot do is refused before anything runs: it has no LUNs
# for a block load, and a plan past the inventory is bad input.
expect_rc 2 "$HCISWEEP" scale --backend static --inventory "$INV" --vms 1 --block-load rw=randread
grep -q -- "--block-load: the static backend has no LUNs" <<<"$OUT" || fail "block load: $OUT"
expect_rc 2 "$HCISWEEP" scale --backend static --inventory "$INV" --vms 1,3
grep -q -- "--vms: the plan goes to 3 VMs, the inventory lists 2" <<<"$OUT" || fail "plan: $OUT"
pass "scale on static: no block load, no plan past the inventory (exit 2)"

# A wrong password is a server that cannot be logged in to: exit 3.
echo wrong >"$T/bad.pw"
sed 's/db.pw/bad.pw/' "$INV" >"$T/badpw.ini"
expect_rc 3 "$HCISWEEP" lab up --vms 1 --backend static --inventory "$T/badpw.ini"
grep -qi "denied" <<<"$OUT" || fail "wrong password: $OUT"

bad() { # bad LINE TEXT: the inventory TEXT must be refused naming line LINE
        printf '%b' "$2" >"$T/bad.ini"
        expect_rc 2 "$HCISWEEP" lab status --backend static --inventory "$T/bad.ini"
        grep -q "bad.ini:$1:" <<<"$OUT" || fail "want line $1 named for '$2', got: $OUT"
}
bad 3 '[a]\nhost = h\nprot = 3306\n'
bad 4 '[a]\nhost = h\n[b]\nport = 99999\n'
bad 1 'host = h\n[a]\nhost = h\n'
bad 4 '[a]\nhost = h\n[b]\nport = 3306\n'
bad 2 '[a]\nhost h\n'
# No password to log in with is bad input, not a login failure.
bad 2 '[a]\nhost = h\n'
bad 3 '[a]\nhost = h\npassword_file = /nonexistent/pw\n'
bad 4 '[a]\nhost = h\npassword_file = db.pw\n[a]\nhost = h\n'
bad 2 '[host h1]\nrole = hypervisor\n[a]\nhost = h\npassword_file = db.pw\n'
bad 2 '[host h1]\nmetrics = file:///etc/passwd\n'
# in the test suite (HCISWEEP_LOOPBACK_ONLY=1, tests/lib.sh) a metrics host
# that is not a loopback IP literal is refused before any connection
bad 2 '[host h1]\nmetrics = http://192.0.2.7:9100/metrics\n'
grep -q "a test reads loopback IP literals only" <<<"$OUT" || fail "remote metrics host: $OUT"
bad 2 '[host h1]\nmetrics = http://exporter.example:9100/metrics\n'
bad 3 '[host h1]\nrole = compute\nfoo = 1\n'
bad 3 '[host h1]\nrole = compute\n[host h1]\nrole = storage\n'
bad 4 '[a]\nhost = h\npassword_file = db.pw\nhypervisor = h9\n[host h1]\nrole = compute\n'
expect_rc 2 "$HCISWEEP" lab status --backend static --inventory "$T/none.ini"
grep -q "none.ini" <<<"$OUT" || fail "missing inventory not named: $OUT"
expect_rc 2 "$HCISWEEP" lab status --backend static
grep -q -- "--inventory" <<<"$OUT" || fail "missing --inventory not named: $OUT"
pass "bad inventories: exit 2 with FILE:LINE"

# Hosts of the inventory: h1 through a real node_exporter, h2's exporter not there.
NE=$(command -v prometheus-node-exporter) || fail "prometheus-node-exporter is not installed (scripts/install-deps.sh)"
NE_ADDR=$(test_addr 1) NE_PORT=$(test_port 3) DEAD_NE=$(test_port 4)
"$NE" --web.listen-address="$NE_ADDR:$NE_PORT" --collector.disable-defaults --collector.cpu \
        --collector.meminfo >"$T/ne.log" 2>&1 &
NE_PID=$!
on_exit "kill $NE_PID"
wait_port "$NE_ADDR" "$NE_PORT"
HINV=$T/hosts.ini
cat >"$HINV" <<INI
[db1]
host = $ADDR
port = $PORT
password_file = db.pw
hypervisor = h1

[host h1]
role = compute
metrics = http://$NE_ADDR:$NE_PORT/metrics

[host h2]
role = storage
metrics = http://$NE_ADDR:$DEAD_NE/metrics

[host h3]
role = both
INI
expect_rc 3 "$HCISWEEP" lab status --backend static --inventory "$HINV"
grep -q "^vm1 addr=$ADDR:$PORT state=alive .*\[db1\] on h1" <<<"$OUT" || fail "db1 on h1: $OUT"
grep -q "^host h1 role=compute source=node_exporter where=http://$NE_ADDR:$NE_PORT/metrics state=answered$" <<<"$OUT" ||
        fail "h1 did not answer: $OUT"
grep -q "^host h2 role=storage source=node_exporter .* state=down h2 (node_exporter): http://$NE_ADDR:$DEAD_NE/metrics: " <<<"$OUT" ||
        fail "h2 not down: $OUT"
grep -q "^host h3 role=both source=none state=unmeasured$" <<<"$OUT" || fail "h3: $OUT"
sed -i '/^\[host h2\]/,/^metrics/d' "$HINV"
expect_rc 0 "$HCISWEEP" lab status --backend static --inventory "$HINV"
pass "host sections: h1 answered through node_exporter, h2 down (exit 3), h3 unmeasured"
