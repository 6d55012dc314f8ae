# tests/integration/mariadb.sh - MariaDB servers of this test's own. Source after lib.sh:
#   db_start N PASSWORD   -> N servers on test_addr 0..N-1 / test_port 0..N-1,
#                            MYSQL_PWD exported, $DB_HOSTS = "ADDR:PORT,ADDR:PORT..."
# Server I lives in $T/dbI (its pid in $T/dbI/mariadbd.pid); all are stopped at exit.
db_start() {
        local n=$1 i
        export MYSQL_PWD=$2
        DB_HOSTS=""
        for ((i = 0; i < n; i++)); do
                on_exit "bash '$SRC/scripts/mariadb-server.sh' stop --dir '$T/db$i'"
                bash "$SRC/scripts/mariadb-server.sh" start --dir "$T/db$i" --addr "$(test_addr $i)" \
                        --port "$(test_port $i)" --password "$2" >/dev/null ||
                        fail "mariadbd $i did not start"
                DB_HOSTS+="${DB_HOSTS:+,}$(test_addr $i):$(test_port $i)"
        done
}
