#!/bin/bash
# test_oltp_prepare.sh - `oltp prepare` builds sysbench's tables exactly
# (schema, index k_N, row count, id range, k range, c/pad digit groups),
# refuses to overwrite them, `cleanup` drops them; wrong credentials and an
# unknown database exit 3, bad options exit 2, and the password is never
# printed.
. "$TESTLIB"
ADDR=$(test_addr 0) PORT=$(test_port 0) PW=prep-Secret-42
db_start 1 "$PW"
sql() { mariadb --no-defaults -h "$ADDR" -P "$PORT" -uroot -N -B sbtest -e "$1"; }
C=(--mysql-host "$ADDR:$PORT" --mysql-user root --tables 3 --table-size 1500)

expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"
echo "$OUT" | grep -q "rows/s" || fail "prepare did not report its rate"
for t in 1 2 3; do
        cols=$(sql "SELECT GROUP_CONCAT(CONCAT(COLUMN_NAME,':',COLUMN_TYPE,':',IS_NULLABLE,':',
                IFNULL(COLUMN_DEFAULT,'-'),':',EXTRA) ORDER BY ORDINAL_POSITION)
                FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='sbtest' AND TABLE_NAME='sbtest$t'")
        [ "$cols" = "id:int(11):NO:-:auto_increment,k:int(11):NO:0:,c:char(120):NO:'':,pad:char(60):NO:'':" ] ||
                fail "sbtest$t columns: $cols"
        idx=$(sql "SELECT GROUP_CONCAT(DISTINCT CONCAT(INDEX_NAME,'(',COLUMN_NAME,')') ORDER BY INDEX_NAME)
                FROM information_schema.STATISTICS WHERE TABLE_SCHEMA='sbtest' AND TABLE_NAME='sbtest$t'")
        [ "$idx" = "k_$t(k),PRIMARY(id)" ] || fail "sbtest$t indexes: $idx"
        eng=$(sql "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA='sbtest' AND TABLE_NAME='sbtest$t'")
        [ "$eng" = InnoDB ] || fail "sbtest$t engine $eng"
        got=$(sql "SELECT COUNT(*), MIN(id), MAX(id), MIN(k) >= 1 AND MAX(k) <= 1500,
                SUM(c REGEXP '^[0-9]{11}(-[0-9]{11}){9}\$'), SUM(pad REGEXP '^[0-9]{11}(-[0-9]{11}){4}\$')
                FROM sbtest$t")
        [ "$(echo $got)" = "1500 1 1500 1 1500 1500" ] || fail "sbtest$t rows: $got"
done

# a second prepare must not touch existing tables
expect_rc 3 "$HCISWEEP" oltp prepare "${C[@]}"
echo "$OUT" | grep -q "already exists" || fail "no server message: $OUT"

# errors at start: wrong password, unknown database, nobody listening
MYSQL_PWD=wrong expect_rc 3 "$HCISWEEP" oltp run "${C[@]}" --time 1
echo "$OUT" | grep -q "Access denied" || fail "no server message for a wrong password: $OUT"
expect_rc 3 "$HCISWEEP" oltp run "${C[@]}" --time 1 --mysql-db nosuchdb
echo "$OUT" | grep -q "Unknown database" || fail "no message for an unknown database"
expect_rc 3 "$HCISWEEP" oltp run --mysql-host "$ADDR:$((PORT + 9))" --mysql-user root --time 1
expect_rc 2 "$HCISWEEP" oltp run "${C[@]}" --threads -4
echo "$OUT" | grep -q -- "--threads" || fail "usage error does not name the option"
expect_rc 2 "$HCISWEEP" oltp run "${C[@]}" --rand-type nosuch
expect_rc 2 "$HCISWEEP" oltp frobnicate "${C[@]}"
expect_rc 0 "$HCISWEEP" oltp --help

# the password file works, and the password shows up nowhere
unset MYSQL_PWD
echo "$PW" >"$T/pw"
expect_rc 0 "$HCISWEEP" oltp run "${C[@]}" --mysql-password-file "$T/pw" --time 1 \
        --report-interval 0.5 --json "$T/r.json"
! grep -q "$PW" "$T/r.json" || fail "password in the JSON"
! echo "$OUT" | grep -q "$PW" || fail "password in the output"

# ...and so does a MySQL option file, named or as ~/.my.cnf
printf '[mysqld]\nport=1\n[client]\nuser = x\npassword = "%s"\n' "$PW" >"$T/my.cnf"
expect_rc 0 "$HCISWEEP" oltp run "${C[@]}" --mysql-defaults-file "$T/my.cnf" --time 1
mkdir -p "$T/home" && cp "$T/my.cnf" "$T/home/.my.cnf"
HOME=$T/home expect_rc 0 "$HCISWEEP" oltp run "${C[@]}" --time 1
expect_rc 2 "$HCISWEEP" oltp run "${C[@]}" --mysql-defaults-file "$T/none.cnf" --time 1
HOME=$T expect_rc 3 "$HCISWEEP" oltp run "${C[@]}" --time 1
export MYSQL_PWD=$PW

expect_rc 0 "$HCISWEEP" oltp cleanup "${C[@]}"
# running on missing tables fails at prepare time with the server's message
expect_rc 3 "$HCISWEEP" oltp run "${C[@]}" --time 1
echo "$OUT" | grep -q "doesn't exist" || fail "no message for missing tables: $OUT"
n=$(sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='sbtest'")
[ "$n" = 0 ] || fail "cleanup left $n tables"
pass "schema, data format, cleanup and error exits"
