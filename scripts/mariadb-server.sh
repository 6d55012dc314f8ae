#!/bin/bash
# scripts/mariadb-server.sh - start and stop one private MariaDB server.
#
# Tests and the local lab run many mariadbd instances side by side, each with
# its own datadir, loopback address and port, and never the system service.
#   start --dir D --addr 127.0.x.y --port P [--user root --password PW]
#         [--db sbtest] [--buffer-pool 128M] [--cpus LIST] [--max-connections 2000]
#   stop --dir D
# start initialises the datadir once, starts mariadbd in the background,
# waits (bounded) until it answers, then sets the password and creates the
# database; running it again on a live server only re-applies those.
# stop sends SIGTERM to the recorded PID, waits (bounded), SIGKILL last.
set -eu

die() { echo "mariadb-server.sh: $*" >&2; exit 1; }

cmd=${1:-}
[ -n "$cmd" ] || die "usage: $0 start|stop --dir D [options]"
shift
dir="" addr=127.0.0.1 port=3306 user=root password="" db=sbtest pool=128M cpus="" maxconn=2000
while [ $# -gt 0 ]; do
        case "$1" in
        --dir) dir=$2 ;;
        --addr) addr=$2 ;;
        --port) port=$2 ;;
        --user) user=$2 ;;
        --password) password=$2 ;;
        --db) db=$2 ;;
        --buffer-pool) pool=$2 ;;
        --cpus) cpus=$2 ;;
        --max-connections) maxconn=$2 ;;
        *) die "unknown option $1" ;;
        esac
        shift 2 || die "option $1 needs a value"
done
[ -n "$dir" ] || die "--dir is required"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
pidfile=$dir/mariadbd.pid
sock=$dir/mariadbd.sock

alive() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

# Ask the server whether it answers; with or without the password, since a
# fresh datadir has none yet.
ping() {
        MYSQL_PWD="$password" mariadb-admin --no-defaults --socket="$sock" -u"$user" \
                --connect-timeout=1 ping >/dev/null 2>&1 ||
                env -u MYSQL_PWD mariadb-admin --no-defaults --socket="$sock" -u"$user" \
                        --connect-timeout=1 ping >/dev/null 2>&1
}

sql() {
        if MYSQL_PWD="$password" mariadb --no-defaults --socket="$sock" -u"$user" -e "SELECT 1" \
                >/dev/null 2>&1; then
                MYSQL_PWD="$password" mariadb --no-defaults --socket="$sock" -u"$user" -e "$1"
        else
                env -u MYSQL_PWD mariadb --no-defaults --socket="$sock" -u"$user" -e "$1"
        fi
}

start() {
        # A private tmpdir: bootstrap names its temporary tables after a
        # small id, and two installs sharing /tmp can collide.
        mkdir -p "$dir/tmp"
        if [ ! -d "$dir/data/mysql" ]; then
                mariadb-install-db --no-defaults --datadir="$dir/data" --user=root \
                        --auth-root-authentication-method=normal --skip-test-db \
                        --tmpdir="$dir/tmp" >"$dir/install.log" 2>&1 ||
                        { cat "$dir/install.log" >&2; rm -rf "$dir/data"; die "install-db failed"; }
        fi
        if ! alive; then
                local pin=()
                [ -n "$cpus" ] && pin=(taskset -c "$cpus")
                # setsid: the server must not share the caller's process group,
                # so a Ctrl-C in a test does not take it down half-way.
                # sysbench and hcisweep prepare ~20 statements per connection
                # (oltp_read_write over 4 tables): the server's default cap of
                # 16,382 stops them short of 1,000 connections.
                local stmts=$((maxconn * 64))
                [ "$stmts" -ge 16382 ] || stmts=16382
                setsid "${pin[@]}" mariadbd --no-defaults --datadir="$dir/data" --socket="$sock" \
                        --port="$port" --bind-address="$addr" --user=root \
                        --innodb-buffer-pool-size="$pool" --skip-name-resolve --tmpdir="$dir/tmp" \
                        --innodb-flush-log-at-trx-commit=2 --max-connections="$maxconn" \
                        --max-prepared-stmt-count="$stmts" \
                        --pid-file="$dir/server.pid" --log-error="$dir/error.log" \
                        </dev/null >/dev/null 2>&1 &
                echo $! >"$pidfile"
        fi
        local i
        for ((i = 0; i < 300; i++)); do
                ping && break
                alive || { tail -20 "$dir/error.log" >&2; die "mariadbd exited"; }
                sleep 0.1
        done
        ping || die "mariadbd did not answer within 30 s"
        local q="CREATE DATABASE IF NOT EXISTS \`$db\`;"
        q="$q CREATE USER IF NOT EXISTS '$user'@'%';"
        q="$q GRANT ALL ON *.* TO '$user'@'%' WITH GRANT OPTION;"
        sql "$q" || die "could not create the database and user"
        # Every host entry of the user gets the password, so a more specific
        # entry (root@127.0.0.1 from install-db) cannot let an empty one in.
        # (IF EXISTS: name-based hosts are not loaded under --skip-name-resolve.)
        local h
        while read -r h; do
                q="$q ALTER USER IF EXISTS '$user'@'$h' IDENTIFIED BY '$password';"
        done < <(sql "SELECT Host FROM mysql.user WHERE User='$user'" | tail -n +2)
        sql "$q" || die "could not set up user and database"
}

stop() {
        alive || { rm -f "$pidfile"; return 0; }
        local pid i
        pid=$(cat "$pidfile")
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < 300; i++)); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
                kill -KILL "$pid" 2>/dev/null || true
                sleep 0.2
        fi
        rm -f "$pidfile"
}

case "$cmd" in
start) start ;;
stop) stop ;;
*) die "unknown command $cmd (start|stop)" ;;
esac
