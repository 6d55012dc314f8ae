# tests/lib.sh - shared helpers for shell tests. Source it first:
#   . "$TESTLIB"
# Gives: $HCISWEEP (the binary), $SRC (repo root), $T (a private temp dir,
# removed at exit), fail/pass, expect_rc, on_exit (cleanup stack run at
# exit, last registered first), test_addr/test_port for a loopback
# address and port of this test's own, and kill_listed [LABDIR] (default
# $LAB): the last resort if `lab down` fails, kill -9 every process the
# lab's state lists.
# Waiting (never a bare sleep: each returns as soon as the event is there,
# and fails the test, saying what it waited for, when it is not in time):
#   wait_until TIMEOUT CMD...    CMD (run in this shell) succeeds
#   wait_port ADDR PORT [TIMEOUT]  a TCP connect to ADDR:PORT is accepted
#   wait_file FILE [TIMEOUT]       FILE exists
#   wait_gone PID [TIMEOUT]        process PID has exited
#   wait_output PID FILE REGEX [TIMEOUT]  a line of FILE, the output of the
#                                  running process PID, matches REGEX (grep -E);
#                                  fails at once if PID ends first
# TIMEOUT is in seconds (fractions allowed; default 30).
# MariaDB servers of the test's own: db_start, db_stop, db_restart, db_pid
# (tests/mariadb.sh).
set -u
: "${HCISWEEP:?run through ctest, or set HCISWEEP to the binary}"
: "${SRC:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
TEST_NAME=$(basename "$0" .sh)
T=$(mktemp -d "/tmp/hcisweep-${TEST_NAME}.XXXXXX")
_CLEANUPS=()
# Results register in a run index: keep the tests' runs out of the user's.
export HCISWEEP_INDEX=$T/index.sqlite
# No test dials off the machine: metrics URLs must be loopback IP literals
# (core/hostsrc.h), refused before any connection otherwise.
export HCISWEEP_LOOPBACK_ONLY=1

on_exit() { _CLEANUPS+=("$*"); }
_run_cleanups() {
        local rc=$? i
        for ((i = ${#_CLEANUPS[@]} - 1; i >= 0; i--)); do eval "${_CLEANUPS[$i]}" >/dev/null 2>&1 || true; done
        if [ "$rc" -eq 0 ]; then rm -rf "$T"; else echo "# kept $T for inspection" >&2; fi
        exit "$rc"
}
trap _run_cleanups EXIT
trap 'exit 130' INT TERM

fail() { echo "FAIL: $TEST_NAME: $*" >&2; exit 1; }
pass() { echo "ok: $TEST_NAME: $*"; }

# expect_rc WANT CMD...: run CMD, capture output in $OUT, fail unless exit code is WANT.
expect_rc() {
        local want=$1 rc=0
        shift
        OUT=$("$@" 2>&1) || rc=$?
        if [ "$rc" -ne "$want" ]; then
                echo "$OUT" | tail -20 >&2
                fail "expected exit $want, got $rc: $*"
        fi
}

# near A B TOL: true when the numbers A and B differ by at most TOL. Printed
# floats are compared this way (or rounded by awk, whose doubles round as the
# tool's C does), never as text formatted by bash's printf, whose long double
# rounds some values the other way (14032115.85 -> 14032115.9 against 14032115.8).
# series_inline RESULT: the result on stdout with its series read back in from the files
# beside it (core/resfile.h: "samples": {"file": F, "rows": N} becomes F's first N rows), as
# results written before series files held them; for tests that read series with jq.
series_inline() {
        python3 - "$1" <<'PY'
import json, os, sys
d = os.path.dirname(sys.argv[1])
def walk(o):
    for k, v in (o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else []):
        if k in ("samples", "intervals", "series") and isinstance(v, dict) and "file" in v:
            with open(os.path.join(d, v["file"])) as f:
                o[k] = [json.loads(next(f)) for _ in range(v["rows"])]
        else:
            walk(v)
r = json.load(open(sys.argv[1]))
walk(r)
json.dump(r, sys.stdout)
PY
}

near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

# A block --clients result's every point: its aggregate IOPS the per-client sum (to a
# rounding) and its I/Os exactly theirs; one line per point, with its largest start skew.
# (The loop reads a process substitution, not a pipe: its fail ends the test, not a subshell.)
clients_sum_is_agg() {
        local rw qd agg sum ios ios_sum skew n=0
        while read -r rw qd agg sum ios ios_sum skew; do
                echo "$rw qd $qd: aggregate $agg IOPS = per-client sum $sum ($ios I/Os); largest skew $skew ms"
                near "$agg" "$sum" "$(awk -v a="$agg" 'BEGIN { print a * 1e-9 + 1e-6 }')" ||
                        fail "aggregate IOPS $agg, per-client sum $sum"
                [ "$ios" = "$ios_sum" ] || fail "aggregate I/Os $ios, per-client sum $ios_sum"
                n=$((n + 1))
        done < <(jq -r '.points[] | [.rw, .iodepth, (.read.iops + .write.iops),
                ([.clients[].iops] | add), (.read.ios + .write.ios),
                ([.clients[] | .read.ios + .write.ios] | add),
                ([.clients[].start_skew_ms] | max)] | @tsv' "$1")
        [ "$n" -gt 0 ] || fail "$1: no point to check"
}

# A loopback address and ports private to this test: the address derived from
# the test name, the ports from the slot ctest gives each test (the name's
# hash when run by hand), so tests running in parallel do not collide.
# HCISWEEP_TEST_SALT (a number) moves every test elsewhere, so two checkouts
# can run the suite at once. Ports stay in 10000..32767, below the kernel's
# ephemeral range (ip_local_port_range 32768..60999): a port there can be
# taken at any moment as the local end of some outgoing connection, and a
# server or QEMU host forward binding it then fails.
_h=$(( $(printf '%s' "$TEST_NAME" | cksum | cut -d' ' -f1) + ${HCISWEEP_TEST_SALT:-0} * 7919 ))
_slot=$(( (${HCISWEEP_TEST_SLOT:-$((_h % 100))} + ${HCISWEEP_TEST_SALT:-0} * 100) % 2270 ))
test_addr() { echo "127.0.$((2 + _h % 200)).$((1 + ${1:-0}))"; }
test_port() { echo $((10000 + _slot * 10 + ${1:-0})); }

# A local lab of this test's own: ADDR (its first address), LAB (its directory), the
# options every lab and scale command of the test takes in common[], its own run index,
# and the lab brought down and every listed server killed when the test ends.
local_lab() {
        ADDR=$(test_addr 0)
        LAB=$T/lab
        export HCISWEEP_INDEX=$T/index.sqlite
        common=(--lab-dir "$LAB" --addr-base "${ADDR%.*}" --base-port "$(test_port 0)"
                --target-port "$(test_port 1)")
        on_exit kill_listed
        on_exit "$HCISWEEP" lab down "${common[@]}"
}

# A real Prometheus scraping TARGET (host:port) every second, listening on LISTEN
# (host:port), its data in $T/prom: PROM_PID, stopped when the test ends.
start_prometheus() {
        cat >"$T/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: hcisweep
    static_configs:
      - targets: ["$1"]
EOF
        prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom" \
                --web.listen-address="$2" --log.level=warn >"$T/prom.log" 2>&1 &
        PROM_PID=$!
        on_exit "kill $PROM_PID; wait $PROM_PID"
}

# A stopped service reads `pid = 0` in a kept state, and kill -9 0 would be
# this test's own process group (ctest's too): positive PIDs only.
kill_listed() {
        sed -n 's/^\(pid\|initiator\) = \([1-9][0-9]*\)$/\2/p' "${1:-$LAB}/state" 2>/dev/null |
                xargs -r kill -9
}

_now_us() { echo "${EPOCHREALTIME//[!0-9]/}"; }

wait_until() {
        local timeout=$1 end
        shift
        end=$(($(_now_us) + $(awk -v t="$timeout" 'BEGIN { printf "%d", t * 1000000 }')))
        until "$@"; do
                [ "$(_now_us)" -lt "$end" ] || fail "not within $timeout s: $*"
                sleep 0.1 # the poll interval
        done
}

_port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
wait_port() { wait_until "${3:-30}" _port_open "$1" "$2"; }

wait_file() { wait_until "${2:-30}" test -e "$1"; }

_gone() { ! kill -0 "$1" 2>/dev/null; }
wait_gone() { wait_until "${2:-30}" _gone "$1"; }

_has_output() {
        grep -qE -- "$3" "$2" 2>/dev/null && return 0
        # (looked at again once it has gone: it may have printed the line and ended)
        kill -0 "$1" 2>/dev/null || grep -qE -- "$3" "$2" 2>/dev/null || fail "process $1 ended before printing /$3/: $(tail -5 "$2" 2>/dev/null)"
        return 1
}
wait_output() { wait_until "${4:-30}" _has_output "$1" "$2" "$3"; }

. "$SRC/tests/mariadb.sh"
