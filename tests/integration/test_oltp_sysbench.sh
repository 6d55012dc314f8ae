#!/bin/bash
# test_oltp_sysbench.sh - the tables are interchangeable with sysbench 1.0:
# sysbench runs oltp_read_write on tables hcisweep prepared, hcisweep runs on
# tables sysbench prepared, and each tool's cleanup removes the other's.
. "$TESTLIB"
command -v sysbench >/dev/null || fail "sysbench is not installed (scripts/install-deps.sh)"
ADDR=$(test_addr 0) PORT=$(test_port 0) PW=sb-pw-7
db_start 1 "$PW"
sql() { mariadb --no-defaults -h "$ADDR" -P "$PORT" -uroot -N -B sbtest -e "$1"; }
C=(--mysql-host "$ADDR" --mysql-port "$PORT" --mysql-user root --tables 2 --table-size 1000)
SB=(--mysql-host="$ADDR" --mysql-port="$PORT" --mysql-user=root --mysql-password="$PW"
        --tables=2 --table-size=1000)
num() { sed -n "s/^ *$1: *\([0-9][0-9]*\).*/\1/p" | head -1; }

# hcisweep prepares, sysbench runs (it checks the schema by using it)
expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"
expect_rc 0 sysbench oltp_read_write "${SB[@]}" --threads=2 --time=2 run
tx=$(echo "$OUT" | num transactions)
[ "${tx:-0}" -gt 0 ] || fail "sysbench ran no transaction on hcisweep's tables"
echo "$OUT" | grep -q "FATAL" && fail "sysbench reported a fatal error"
expect_rc 0 sysbench oltp_read_write "${SB[@]}" cleanup
[ "$(sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='sbtest'")" = 0 ] ||
        fail "sysbench cleanup left tables"

# sysbench prepares, hcisweep runs, checks its figures, and cleans up
expect_rc 0 sysbench oltp_read_write "${SB[@]}" prepare
expect_rc 0 "$HCISWEEP" oltp run "${C[@]}" --threads 2 --time 2 --json "$T/r.json"
python3 - "$T/r.json" <<'PY' || fail "hcisweep's run on sysbench's tables"
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
assert t["transactions"] > 0, t
assert t["queries"]["read"] >= 14 * t["transactions"], t
PY
echo "$OUT" | grep -q "^SQL statistics:" || fail "no sysbench-layout report"
expect_rc 0 "$HCISWEEP" oltp cleanup "${C[@]}"
[ "$(sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='sbtest'")" = 0 ] ||
        fail "hcisweep cleanup left sysbench's tables"
pass "tables interchangeable with sysbench"
