# tests/integration/lab.sh - helpers for tests of a local lab of their own.
# Source after lib.sh, with LAB, BASE (127.A.B) and PORT set:
#   sql I QUERY          run QUERY on VM I as root, print the rows
#   field NAME KEY TEXT  the value of KEY=... on the line of TEXT starting with NAME
#   gone PID COMM        true if PID is no longer COMM (gone, reused, or a zombie
#                        waiting for init to reap it)
sql() { MYSQL_PWD=$(cat "$LAB/password") mariadb --no-defaults -h "$BASE.$1" -P "$PORT" -u root \
        -N -B -e "$2"; }
field() { sed -n "s/^$1 .* $2=\([^ ]*\).*/\1/p" <<<"$3"; }
gone() {
        local stat
        stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
        [[ $stat == *"($2) "[!ZX]* ]] && return 1
        return 0
}
