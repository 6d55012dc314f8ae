# tests/mariadb.sh - MariaDB servers of this test's own, the one way every test
# starts them (through scripts/mariadb-server.sh, which waits until a server
# answers). Sourced by lib.sh.
#   db_start N PASSWORD   N servers, 0..N-1; MYSQL_PWD exported, $DB_HOSTS =
#                         "ADDR:PORT,ADDR:PORT..." for --mysql-host
#   db_restart I          start server I again after db_stop (same datadir)
#   db_stop I             stop server I (SIGTERM, waited for, SIGKILL last)
#   db_pid I              the PID of server I's mariadbd
# Server I lives in $T/dbI on test_addr I / test_port I; all are stopped at exit.
db_start() {
        local n=$1 i
        DB_PW=$2
        export MYSQL_PWD=$2
        DB_HOSTS=""
        for ((i = 0; i < n; i++)); do
                on_exit "bash '$SRC/scripts/mariadb-server.sh' stop --dir '$T/db$i'"
                db_restart "$i"
                DB_HOSTS+="${DB_HOSTS:+,}$(test_addr "$i"):$(test_port "$i")"
        done
}

db_restart() {
        bash "$SRC/scripts/mariadb-server.sh" start --dir "$T/db$1" --addr "$(test_addr "$1")" \
                --port "$(test_port "$1")" --password "$DB_PW" >/dev/null ||
                fail "mariadbd $1 did not start: $(tail -5 "$T/db$1/error.log" 2>/dev/null)"
}

db_stop() { bash "$SRC/scripts/mariadb-server.sh" stop --dir "$T/db$1"; }

db_pid() { cat "$T/db$1/mariadbd.pid"; }
