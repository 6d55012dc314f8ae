#!/usr/bin/env bash
# iscsi-target.sh - start, stop and inspect a local user-space iSCSI target
# (tgtd) serving file-backed LUNs, for the tests, the benchmarks and the local
# lab. Everything a running target needs lives in one directory: backing files
# lun1.img.., tgtd.pid, tgtd.log, state (shell-readable key=value) and urls
# (one iscsi:// URL per LUN, also printed by start). Several targets can run at
# once as long as each has its own directory, portal and control number.
# tgtd ignores SIGTERM, so stop takes it down through tgtadm and only kills it
# if that does not work. Run as root.
set -euo pipefail

PROG=iscsi-target
DEFAULT_IQN=iqn.2026-11.io.hcisweep:lab
READY_TRIES=100 # x 0.1 s for the control socket to answer
STOP_TRIES=100  # x 0.1 s for tgtd to exit after "delete system"
CONTROL_MAX=32767

usage() {
        cat <<'EOF'
Usage:
  iscsi-target.sh start --dir DIR [--portal HOST:PORT] [--control N] [--luns N]
                        [--size SIZE] [--bstype rdwr|aio|null] [--chap USER:PASS]
                        [--mutual USER:PASS] [--iqn IQN] [--cpus LIST]
  iscsi-target.sh stop --dir DIR [--purge]
  iscsi-target.sh status --dir DIR

start   creates sparse backing files DIR/lun1.img.. (--size, default 1G; none for
        --bstype null, a 1 TiB LUN that stores nothing), starts tgtd on the portal
        (default 127.0.0.1:3260; pinned to --cpus with taskset), configures target
        tid 1 (--iqn, default iqn.2026-11.io.hcisweep:lab) with --luns LUNs
        (default 1), optional CHAP (--chap) and mutual CHAP (--mutual, needs
        --chap), open to every initiator address, and prints one URL per LUN:
        iscsi://[USER%PASS@]HOST:PORT/IQN/LUN[?target_user=U&target_password=P]
        Running it again on a running DIR with the same portal prints the URLs.
stop    takes the target offline, deletes it and the daemon, waits for the
        process to exit (SIGKILL as a last resort) and removes the pid file.
        Backing files stay unless --purge.
status  prints the state and URLs; exit 0 if running, 3 if not.

--control N is tgtd's management socket number (-C); each concurrent daemon
needs its own (0..32767). Default: the port for 127.0.0.1 (if <= 32767),
otherwise a number hashed from HOST:PORT; a default one already in use moves
to the next free number.
USER and PASS: letters, digits, '.', '_', '~', '-'.
Exit codes: 0 done, 1 failed, 2 bad usage, 3 (status) not running.
EOF
}

die() {
        echo "$PROG: $*" >&2
        exit 1
}
usage_err() {
        echo "$PROG: $*" >&2
        echo "try: $0 --help" >&2
        exit 2
}

# --- options -----------------------------------------------------------------

CMD=""
DIR=""
PORTAL=127.0.0.1:3260
CONTROL=""
LUNS=1
SIZE=1G
BSTYPE=rdwr
CHAP=""
MUTUAL=""
IQN=$DEFAULT_IQN
CPUS=""
PURGE=0

need_arg() { if [ $# -lt 2 ] || [ -z "$2" ]; then usage_err "$1 needs a value"; fi; }

parse_args() {
        [ $# -ge 1 ] || usage_err "missing command (start|stop|status)"
        case $1 in
        -h | --help)
                usage
                exit 0
                ;;
        start | stop | status) CMD=$1 ;;
        *) usage_err "unknown command '$1' (start|stop|status)" ;;
        esac
        shift
        while [ $# -gt 0 ]; do
                case $1 in
                --dir) need_arg "$@"; DIR=$2; shift 2 ;;
                --portal) need_arg "$@"; PORTAL=$2; shift 2 ;;
                --control) need_arg "$@"; CONTROL=$2; shift 2 ;;
                --luns) need_arg "$@"; LUNS=$2; shift 2 ;;
                --size) need_arg "$@"; SIZE=$2; shift 2 ;;
                --bstype) need_arg "$@"; BSTYPE=$2; shift 2 ;;
                --chap) need_arg "$@"; CHAP=$2; shift 2 ;;
                --mutual) need_arg "$@"; MUTUAL=$2; shift 2 ;;
                --iqn) need_arg "$@"; IQN=$2; shift 2 ;;
                --cpus) need_arg "$@"; CPUS=$2; shift 2 ;;
                --purge) PURGE=1; shift ;;
                -h | --help)
                        usage
                        exit 0
                        ;;
                *) usage_err "unknown option '$1'" ;;
                esac
        done
        [ -n "$DIR" ] || usage_err "--dir DIR is required"
}

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }
in_range() { is_uint "$1" && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

validate_start() {
        HOST=${PORTAL%:*}
        PORT=${PORTAL##*:}
        if [ "$HOST" = "$PORTAL" ] || [ -z "$HOST" ]; then
                usage_err "--portal must be HOST:PORT, got '$PORTAL'"
        fi
        in_range "$PORT" 1 65535 || usage_err "--portal port must be 1..65535, got '$PORT'"
        in_range "$LUNS" 1 255 || usage_err "--luns must be 1..255, got '$LUNS'"
        [[ $SIZE =~ ^[0-9]+[KMGT]?$ ]] || usage_err "--size must be a number with K/M/G/T, got '$SIZE'"
        case $BSTYPE in rdwr | aio | null) ;; *) usage_err "--bstype must be rdwr, aio or null, got '$BSTYPE'" ;; esac
        [[ $IQN =~ ^(iqn|eui|naa)\.[A-Za-z0-9.:-]+$ ]] || usage_err "--iqn '$IQN' is not an iSCSI name"
        check_cred --chap "$CHAP"
        check_cred --mutual "$MUTUAL"
        [ -z "$MUTUAL" ] || [ -n "$CHAP" ] || usage_err "--mutual needs --chap (mutual CHAP is on top of CHAP)"
        [ -z "$MUTUAL" ] || [ "${MUTUAL%%:*}" != "${CHAP%%:*}" ] ||
                usage_err "--mutual USER must differ from the --chap USER"
        if [ -n "$CPUS" ]; then
                taskset --cpu-list "$CPUS" true 2>/dev/null || usage_err "--cpus '$CPUS' is not a usable CPU list"
        fi
        CONTROL_AUTO=0
        if [ -z "$CONTROL" ]; then
                CONTROL=$(derive_control "$HOST" "$PORT")
                CONTROL_AUTO=1
        fi
        in_range "$CONTROL" 0 "$CONTROL_MAX" || usage_err "--control must be 0..$CONTROL_MAX, got '$CONTROL'"
}

check_cred() {
        [ -z "$2" ] && return 0
        [[ $2 =~ ^[A-Za-z0-9._~-]+:[A-Za-z0-9._~-]+$ ]] ||
                usage_err "$1 must be USER:PASS (letters, digits, . _ ~ -)"
}

# tgtd takes -C 0..32767. The port itself when that fits and the host is
# 127.0.0.1; otherwise a number hashed from HOST:PORT.
derive_control() {
        local host=$1 port=$2 h
        if [ "$host" = 127.0.0.1 ] && [ "$port" -le "$CONTROL_MAX" ]; then
                echo "$port"
                return
        fi
        h=$(printf '%s:%s' "$host" "$port" | cksum | cut -d' ' -f1)
        echo $((1 + h % CONTROL_MAX))
}

next_control() { echo $((CONTROL % CONTROL_MAX + 1)); }

# A derived control number another daemon already uses moves to the next free one.
pick_free_control() {
        local i
        for ((i = 0; i < 100; i++)); do
                adm --op show --mode sys >/dev/null 2>&1 || return 0
                [ "$CONTROL_AUTO" -eq 1 ] || die "another tgtd already answers on control $CONTROL"
                CONTROL=$(next_control)
        done
        die "no free tgtd control number near $CONTROL"
}

# --- helpers -----------------------------------------------------------------

# The pid in DIR/tgtd.pid if that process is alive and is tgtd (pids get reused).
running_pid() {
        local pid comm
        [ -f "$DIR/tgtd.pid" ] || return 1
        pid=$(cat "$DIR/tgtd.pid" 2>/dev/null) || return 1
        is_uint "$pid" || return 1
        comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
        [ "$comm" = tgtd ] || return 1
        echo "$pid"
}

state_get() { sed -n "s/^$1=//p" "$DIR/state" 2>/dev/null | head -n1; }

adm() { tgtadm -C "$CONTROL" "$@"; }

# Something listens on HOST:PORT (or on the wildcard address at PORT).
listening() {
        ss -Hltn "sport = :$2" 2>/dev/null |
                awk -v h="$1" -v p="$2" '$4 == h ":" p || $4 == "0.0.0.0:" p || $4 == "*:" p || $4 == "[::]:" p { f = 1 } END { exit !f }'
}

make_url() {
        local lun=$1 auth="" query=""
        [ -z "$CHAP" ] || auth="${CHAP%%:*}%${CHAP#*:}@"
        [ -z "$MUTUAL" ] || query="?target_user=${MUTUAL%%:*}&target_password=${MUTUAL#*:}"
        echo "iscsi://${auth}${HOST}:${PORT}/${IQN}/${lun}${query}"
}

# --- start -------------------------------------------------------------------

start_target() {
        local pid
        validate_start
        mkdir -p "$DIR"
        DIR=$(cd "$DIR" && pwd)

        if pid=$(running_pid); then
                if [ "$(state_get portal)" = "$HOST:$PORT" ] && [ -f "$DIR/urls" ]; then
                        echo "$PROG: already running in $DIR (pid $pid); URLs unchanged" >&2
                        cat "$DIR/urls"
                        return 0
                fi
                die "tgtd already runs in $DIR (pid $pid, portal $(state_get portal)); stop it first"
        fi
        rm -f "$DIR/tgtd.pid"
        listening "$HOST" "$PORT" && die "$HOST:$PORT is already in use (ss -ltn 'sport = :$PORT')"
        pick_free_control
        command -v tgtd >/dev/null || die "tgtd not found (Debian package tgt; scripts/install-deps.sh)"
        [ "$(id -u)" -eq 0 ] || die "tgtd needs root"

        make_backing_files
        # Two starts may derive the same control number at once: the loser retries.
        local tries=0
        while ! launch_tgtd; do
                tries=$((tries + 1))
                if [ "$CONTROL_AUTO" -eq 0 ] || [ "$tries" -ge 5 ] ||
                        ! tail -n 3 "$DIR/tgtd.log" | grep -q "another tgtd is using"; then
                        die "tgtd exited during start-up (control $CONTROL, portal $HOST:$PORT)"
                fi
                CONTROL=$(next_control)
                pick_free_control
        done
        configure_target || {
                local msg="configuring the target failed (see $DIR/tgtd.log)"
                stop_daemon "$(cat "$DIR/tgtd.pid")" >/dev/null 2>&1 || true
                rm -f "$DIR/tgtd.pid"
                die "$msg"
        }
        write_state
        cat "$DIR/urls"
}

make_backing_files() {
        local i
        [ "$BSTYPE" = null ] && return 0
        for ((i = 1; i <= LUNS; i++)); do
                truncate -s "$SIZE" "$DIR/lun$i.img" || die "cannot create $DIR/lun$i.img"
        done
}

launch_tgtd() {
        local cmd=(tgtd -f --iscsi "portal=$HOST:$PORT" -C "$CONTROL") pid i from
        [ -z "$CPUS" ] || cmd=(taskset --cpu-list "$CPUS" "${cmd[@]}")
        echo "# $(date -u +%FT%TZ) ${cmd[*]}" >>"$DIR/tgtd.log"
        from=$(wc -l <"$DIR/tgtd.log") # this launch's lines start here
        "${cmd[@]}" </dev/null >>"$DIR/tgtd.log" 2>&1 &
        pid=$!
        echo "$pid" >"$DIR/tgtd.pid"
        for ((i = 0; i < READY_TRIES; i++)); do
                if ! kill -0 "$pid" 2>/dev/null; then
                        rm -f "$DIR/tgtd.pid"
                        tail -n 5 "$DIR/tgtd.log" >&2
                        return 1
                fi
                adm --op show --mode sys >/dev/null 2>&1 && break
                sleep 0.1
        done
        if [ "$i" -eq "$READY_TRIES" ]; then
                stop_daemon "$pid" >/dev/null 2>&1 || true
                rm -f "$DIR/tgtd.pid"
                die "tgtd control socket $CONTROL did not answer within $((READY_TRIES / 10)) s"
        fi
        # A portal that cannot be bound is only logged: tgtd keeps running without it.
        if ! kill -0 "$pid" 2>/dev/null || ! listening "$HOST" "$PORT" ||
                tail -n "+$from" "$DIR/tgtd.log" | grep -q "failed to create/bind to portal"; then
                stop_daemon "$pid" >/dev/null 2>&1 || true
                rm -f "$DIR/tgtd.pid"
                die "tgtd could not listen on $HOST:$PORT (see $DIR/tgtd.log)"
        fi
}

configure_target() {
        local i store
        adm --lld iscsi --op new --mode target --tid 1 --targetname "$IQN" || return 1
        for ((i = 1; i <= LUNS; i++)); do
                store=$DIR/lun$i.img
                [ "$BSTYPE" != null ] || store=None
                adm --lld iscsi --op new --mode logicalunit --tid 1 --lun "$i" \
                        --bstype "$BSTYPE" --backing-store "$store" || return 1
        done
        if [ -n "$CHAP" ]; then
                adm --lld iscsi --op new --mode account --user "${CHAP%%:*}" --password "${CHAP#*:}" || return 1
                adm --lld iscsi --op bind --mode account --tid 1 --user "${CHAP%%:*}" || return 1
        fi
        if [ -n "$MUTUAL" ]; then
                adm --lld iscsi --op new --mode account --user "${MUTUAL%%:*}" --password "${MUTUAL#*:}" || return 1
                adm --lld iscsi --op bind --mode account --tid 1 --user "${MUTUAL%%:*}" --outgoing || return 1
        fi
        adm --lld iscsi --op bind --mode target --tid 1 --initiator-address ALL || return 1
}

write_state() {
        local i
        {
                echo "pid=$(cat "$DIR/tgtd.pid")"
                echo "portal=$HOST:$PORT"
                echo "host=$HOST"
                echo "port=$PORT"
                echo "control=$CONTROL"
                echo "iqn=$IQN"
                echo "luns=$LUNS"
                echo "size=$SIZE"
                echo "bstype=$BSTYPE"
                echo "cpus=$CPUS"
        } >"$DIR/state.tmp"
        mv "$DIR/state.tmp" "$DIR/state"
        # The URLs carry the CHAP secrets: readable by the owner only.
        (
                umask 077
                for ((i = 1; i <= LUNS; i++)); do make_url "$i"; done >"$DIR/urls.tmp"
        )
        mv "$DIR/urls.tmp" "$DIR/urls"
}

# --- stop --------------------------------------------------------------------

# Take tgtd down the way it accepts (SIGTERM is ignored): offline, delete every
# target even with sessions, delete the system; SIGKILL only if it lingers.
stop_daemon() {
        local pid=$1 tid i
        adm --op update --mode sys --name State -v offline || true
        for tid in $(adm --lld iscsi --op show --mode target 2>/dev/null | sed -n 's/^Target \([0-9]*\):.*/\1/p'); do
                adm --lld iscsi --op delete --force --mode target --tid "$tid" || true
        done
        adm --op delete --mode system || true
        for ((i = 0; i < STOP_TRIES; i++)); do
                kill -0 "$pid" 2>/dev/null || return 0
                sleep 0.1
        done
        echo "$PROG: tgtd (pid $pid) still running after $((STOP_TRIES / 10)) s: SIGKILL" >&2
        kill -KILL "$pid" 2>/dev/null || true
        for ((i = 0; i < 20; i++)); do
                kill -0 "$pid" 2>/dev/null || return 0
                sleep 0.1
        done
        return 1
}

stop_target() {
        local pid
        [ -d "$DIR" ] || die "no such directory: $DIR"
        if pid=$(running_pid); then
                CONTROL=${CONTROL:-$(state_get control)}
                [ -n "$CONTROL" ] || die "no control number in $DIR/state; pass --control N"
                stop_daemon "$pid" || die "tgtd (pid $pid) did not exit"
                echo "$PROG: stopped tgtd (pid $pid) in $DIR" >&2
        else
                echo "$PROG: not running in $DIR" >&2
        fi
        rm -f "$DIR/tgtd.pid"
        if [ "$PURGE" -eq 1 ]; then
                rm -f "$DIR"/lun*.img "$DIR/state" "$DIR/urls"
        fi
}

# --- status ------------------------------------------------------------------

status_target() {
        local pid
        if ! pid=$(running_pid); then
                echo "not running"
                exit 3
        fi
        echo "running pid=$pid"
        [ ! -f "$DIR/state" ] || grep -v '^pid=' "$DIR/state"
        [ ! -f "$DIR/urls" ] || cat "$DIR/urls"
}

parse_args "$@"
case $CMD in
start) start_target ;;
stop) stop_target ;;
status) status_target ;;
esac
