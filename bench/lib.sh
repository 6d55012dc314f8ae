# shellcheck shell=bash
# bench/lib.sh - what the peer benchmarks share: finding the hcisweep binary,
# a private work directory, a cleanup stack run on exit, the client CPU time of
# one command from the kernel's accounting, medians, and the machine line.
# Source it from a bench script after setting PROG.
set -u

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
_BENCH_CLEANUPS=()

bench_die() {
        echo "$PROG: $*" >&2
        exit 1
}
bench_log() { echo "# $*" >&2; }

# Cleanups run at exit, last registered first, whatever the exit path.
bench_on_exit() { _BENCH_CLEANUPS+=("$*"); }
_bench_cleanup() {
        local rc=$? i
        for ((i = ${#_BENCH_CLEANUPS[@]} - 1; i >= 0; i--)); do
                eval "${_BENCH_CLEANUPS[$i]}" >/dev/null 2>&1 || true
        done
        exit "$rc"
}
trap _bench_cleanup EXIT
trap 'exit 130' INT TERM HUP

# The binary: --hcisweep, else $HCISWEEP, else build/hcisweep in the tree.
bench_find_hcisweep() {
        local b=${1:-${HCISWEEP:-$BENCH_ROOT/build/hcisweep}}
        [ -x "$b" ] || bench_die "no hcisweep binary at '$b' (build it, or pass --hcisweep PATH)"
        # A sanitizer build runs several times slower: figures from it say nothing.
        if grep -q __asan_init "$b" 2>/dev/null; then
                bench_log "warning: $b is a sanitizer build; its figures are not representative"
        fi
        HCISWEEP=$b
}

# The binary as the output names it: relative to the checkout when inside it,
# so saved results name no path of the machine they ran on.
bench_binary_name() {
        case $HCISWEEP in
        "$BENCH_ROOT"/*) echo "${HCISWEEP#"$BENCH_ROOT"/}" ;;
        *) echo "$HCISWEEP" ;;
        esac
}

bench_workdir() {
        BENCH_DIR=$(mktemp -d "/tmp/hcisweep-$PROG.XXXXXX") || bench_die "mktemp failed"
        bench_on_exit "rm -rf '$BENCH_DIR'"
}

# bench_cpu_run OUT CPUFILE CMD...: run CMD with stdout+stderr in OUT and write
# the user and system seconds of CMD (and the children it waited for) to CPUFILE, from
# the kernel's rusage accounting as bash's `times` reports it.
bench_cpu_run() {
        local out=$1 cpuf=$2
        shift 2
        CPUF=$cpuf OUTF=$out bash -c '"$@" >"$OUTF" 2>&1; rc=$?; times >"$CPUF"; exit $rc' \
                bench "$@"
}

# Seconds of user+system CPU in a CPUFILE written by bench_cpu_run.
bench_cpu_seconds() {
        awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] }
               printf "%.3f\n", s }' "$1"
}

# bench_rusage_run OUT RUFILE CMD...: run CMD with stdout+stderr in OUT and write
# one line to RUFILE: "USER SYS VCSW IVCSW WALL TIMES_CPU". The first five come
# from the rusage of CMD that wait4 returns, as /usr/bin/time -f prints it (the
# whole process from exec to exit: connect, prepare, run, teardown, every thread
# and every child it waited for); TIMES_CPU is the same process measured by the
# shell's `times` (children user+system), kept as a cross-check of the two ways.
bench_rusage_run() {
        local out=$1 ruf=$2 rc=0
        shift 2
        [ -x /usr/bin/time ] || bench_die "/usr/bin/time is not installed (apt-get install time)"
        RUF=$ruf OUTF=$out bash -c '/usr/bin/time -o "$RUF.time" -f "%U %S %w %c %e" "$@" >"$OUTF" 2>&1
                rc=$?; times >"$RUF.times"; exit $rc' bench "$@" || rc=$?
        echo "$(tail -n 1 "$ruf.time") $(bench_cpu_seconds "$ruf.times")" >"$ruf"
        return "$rc"
}

# Median of the numbers on stdin (one per line); "nan" when there are none.
bench_median() {
        sort -g | awk '$1 ~ /^[0-9.eE+-]+$/ { v[++n] = $1 } END {
                if (n == 0) { print "nan"; exit }
                printf "%.3f\n", (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
}

# a / b with 3 decimals, "nan" when b is zero or either is not a number.
bench_div() {
        awk -v a="$1" -v b="$2" 'BEGIN {
                if (a !~ /^[0-9.eE+-]+$/ || b !~ /^[0-9.eE+-]+$/ || b + 0 == 0) print "nan";
                else printf "%.3f\n", a / b }'
}

bench_machine() {
        local model
        model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
        echo "$(date -u +%FT%TZ) $(hostname) nproc=$(nproc) cpu=\"${model:-unknown}\" load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
}

# The figures of one client run's output: "TX TPS P95 P99" (nan where missing).
# sysbench prints one percentile; both come from its latency histogram instead.
sysbench_figures() {
        awk '
        /^Latency histogram/ { inh = 1; next }
        inh && /^ *[0-9.]+ \|/ { n++; val[n] = $1; cnt[n] = $NF; tot += $NF; next }
        inh && !/^ *value/ { inh = 0 }
        /^ *transactions:/ { tx = $2; tps = $3; gsub(/[(]/, "", tps) }
        END {
                c = 0; p95 = p99 = "nan"
                for (i = 1; i <= n; i++) {
                        c += cnt[i]
                        if (p95 == "nan" && c >= 0.95 * tot) p95 = val[i]
                        if (p99 == "nan" && c >= 0.99 * tot) p99 = val[i]
                }
                print (tx == "" ? "nan" : tx), (tps == "" ? "nan" : tps), p95, p99
        }' "$1"
}

hcisweep_figures() {
        awk '
        /^ *transactions:/ { tx = $2; tps = $3; gsub(/[(]/, "", tps) }
        /95th percentile:/ { p95 = $3 }
        /99th percentile:/ { p99 = $3 }
        END { print (tx == "" ? "nan" : tx), (tps == "" ? "nan" : tps),
                    (p95 == "" ? "nan" : p95), (p99 == "" ? "nan" : p99) }' "$1"
}
