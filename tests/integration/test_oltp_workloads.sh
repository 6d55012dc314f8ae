#!/bin/bash
# test_oltp_workloads.sh - every workload runs, and the queries per
# transaction are sysbench's (oltp_read_write 14 reads, 4 writes, 2 other;
# point_select 1/0/0; ...), counted by hcisweep and confirmed by the
# server's own counters: the server saw exactly that many prepared-statement
# executes (Com_stmt_execute), so every statement is server-side prepared.
. "$TESTLIB"
ADDR=$(test_addr 0) PORT=$(test_port 0) PW=wl-pw-3
db_start 1 "$PW"
sql() { mariadb --no-defaults -h "$ADDR" -P "$PORT" -uroot -N -B sbtest -e "$1"; }
stat() { sql "SHOW GLOBAL STATUS LIKE '$1'" | cut -f2; }
C=(--mysql-host "$ADDR" --mysql-port "$PORT" --mysql-user root --tables 2 --table-size 1000)
expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"

# one connection: no deadlocks, so counts are exact
check() { # workload reads writes other [extra options]
        local wl=$1 r=$2 w=$3 o=$4 ex0 ex1
        shift 4
        ex0=$(stat Com_stmt_execute)
        expect_rc 0 "$HCISWEEP" oltp run "${C[@]}" --workload "$wl" --threads 1 --time 0 \
                --events 40 --json "$T/$wl.json" "$@"
        ex1=$(stat Com_stmt_execute)
        python3 - "$T/$wl.json" "$r" "$w" "$o" "$((ex1 - ex0))" <<'PY' || fail "$wl counts"
import json, sys
j = json.load(open(sys.argv[1]))
t = j["totals"]
r, w, o, executes = map(int, sys.argv[2:])
n = t["transactions"]
assert n == 40, t
q = t["queries"]
assert (q["read"], q["write"], q["other"]) == (r * n, w * n, o * n), (q, n)
assert executes == (r + w + o) * n, ("server executes", executes)
assert t["errors"] == 0 and t["reconnects"] == 0, t
assert j["kind"] == "oltp" and j["lat_ns"]["percentile"]["95.0"] > 0, j["lat_ns"]
PY
}
check oltp_read_write 14 4 2
check oltp_read_only 14 0 2
check oltp_write_only 0 4 2
check oltp_point_select 1 0 0

# The driver's socket hooks run, and the first read after each request waits for
# readiness instead of a recv that fails (--io-wait-read 0: the library's own speculative
# recv, nothing deferred); both give the exact counts above
io_check() { # --io-wait-read value, then the deferred-reads test
        check oltp_point_select 1 0 0 --io-report --io-wait-read "$1"
        local line
        line=$(grep '^mariadb io: ' <<<"$OUT") || fail "no driver I/O counters: $OUT"
        grep -q 'connections hooked 1, not hooked 0;' <<<"$line" || fail "hooks not installed: $line"
        awk -v want="$2" '{ for (i = 1; i < NF; i++) if ($i == "deferred") d = $(i + 1) + 0 }
                END { exit !(want == "none" ? d == 0 : d >= 40) }' <<<"$line" ||
                fail "--io-wait-read $1: deferred reads wrong: $line"
}
io_check 1 all
io_check 0 none
pass "the driver's socket hooks run: first reads deferred with --io-wait-read 1, none with 0"
check oltp_update_index 0 1 0
check oltp_update_non_index 0 1 0
check oltp_delete 0 1 0
check oltp_insert 0 1 0
rows=$(($(sql "SELECT COUNT(*) FROM sbtest1") + $(sql "SELECT COUNT(*) FROM sbtest2")))
[ "$rows" -ge 1960 ] || fail "oltp_insert: $rows rows after inserting 40"
check oltp_read_write 7 6 0 --point_selects 3 --skip_trx --delete_inserts 2
check oltp_read_only 10 0 2 --range_selects=0 --rand-type uniform
for d in gaussian pareto zipfian; do
        check oltp_read_write 14 4 2 --rand-type $d
done
pass "query counts per transaction for every workload"

# contention: deadlocks are rolled back (a plain-text ROLLBACK, as the server's
# Com_rollback shows) and retried; the prepared statements per connection are the
# workload's own (read_write, 2 tables: 9 kinds x 2 + BEGIN + COMMIT = 20), none for ROLLBACK
H=(--mysql-host "$ADDR" --mysql-port "$PORT" --mysql-user root --tables 2 --table-size 10)
sql "DROP TABLE IF EXISTS sbtest1, sbtest2"
expect_rc 0 "$HCISWEEP" oltp prepare "${H[@]}"
pr0=$(stat Com_stmt_prepare) rb0=$(stat Com_rollback)
expect_rc 0 "$HCISWEEP" oltp run "${H[@]}" --workload oltp_read_write --threads 8 --time 3 \
        --json "$T/contended.json"
pr=$(($(stat Com_stmt_prepare) - pr0)) rb=$(($(stat Com_rollback) - rb0))
errs=$(jq .totals.errors "$T/contended.json")
[ "$errs" -gt 0 ] || fail "no deadlock on 10 rows with 8 connections: $(jq -c .totals "$T/contended.json")"
[ "$rb" -ge "$errs" ] || fail "$errs errors but $rb ROLLBACKs on the server"
[ "$(jq .totals.transactions "$T/contended.json")" -gt 0 ] || fail "no transaction got through"
[ "$pr" -eq $((8 * 20)) ] || fail "$pr statements prepared by 8 connections, not $((8 * 20))"
pass "contention: $errs deadlocks, $rb ROLLBACKs, $pr statements prepared (8 x 20)"
