#!/usr/bin/env bash
# The host-metrics sources against Debian's real prometheus-node-exporter,
# through tests/integration/hostsrc_probe (core/hostsrc.h read over a
# command's window):
#  1. two exporters over this host's /proc on two loopback addresses: over the
#     same 5 s CPU burn (and a file written with fsync), their CPU busy and
#     each disk's %util agree with the procfs source within 2 points;
#  2. an exporter with --path.procfs over a hand-written procfs-shaped
#     directory whose counters the window's command advances as a saturated
#     host's would (one CPU 100% busy with steal, 95% of memory used, swap-ins,
#     a disk busy the whole window at 2 ms a request): the exporter and the
#     procfs source over the same directory give the figures written (the
#     disk's %util, a share of the probe's window, only roughly);
#  3. a disk counter that goes backwards voids that disk only (the CPU and memory
#     figures stand, never a negative rate); a body of binary garbage, a 100 MiB body, an exporter
#     that is gone and a file:// URL are each an error naming the host (exit 3).
. "$TESTLIB"
: "${HOSTSRC_PROBE:?run through ctest}"
NE=$(command -v prometheus-node-exporter) || fail "prometheus-node-exporter is not installed (scripts/install-deps.sh)"
PIDS=()
on_exit 'for p in "${PIDS[@]}"; do kill "$p"; done'

# start_exporter ADDR PORT [ARGS...]: an exporter of this test's own, up when its /metrics answers.
_answers() { curl -sf -o /dev/null "$1" || { kill -0 "$2" 2>/dev/null || fail "$1: the server ended: $(tail -3 "$3")"; return 1; }; }
start_exporter() {
        local addr=$1 port=$2
        shift 2
        "$NE" --web.listen-address="$addr:$port" --collector.disable-defaults --collector.cpu \
                --collector.meminfo --collector.diskstats --collector.vmstat "$@" \
                >"$T/ne-$port.log" 2>&1 &
        PIDS+=($!)
        wait_until 30 _answers "http://$addr:$port/metrics" "${PIDS[-1]}" "$T/ne-$port.log"
}

# field OUT HOST KEY / dfield OUT HOST DISK KEY: one figure of the probe's output.
field() { echo "$1" | awk -v h="$2" -v k="$3" '$1 == "host" && $2 == h { for (i = 3; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }'; }
dfield() { echo "$1" | awk -v h="$2" -v d="$3" -v k="$4" '$1 == "disk" && $2 == h && $3 == d { for (i = 4; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }'; }
agree() { # OUT KEY A B TOL
        local a b
        a=$(field "$1" "$3" "$2")
        b=$(field "$1" "$4" "$2")
        [ -n "$a" ] && [ -n "$b" ] || fail "no $2 for $3 or $4: $1"
        near "$a" "$b" "$5" || fail "$2: $3 $a, $4 $b, more than $5 apart"
}

A1=$(test_addr 0) A2=$(test_addr 1) A3=$(test_addr 2) A4=$(test_addr 3)
P1=$(test_port 0) P2=$(test_port 1) P3=$(test_port 2) P4=$(test_port 3)

# 1. two exporters of this host against procfs, over a CPU burn.
start_exporter "$A1" "$P1" --collector.netdev
start_exporter "$A2" "$P2" --collector.netdev
cat >"$T/burn.sh" <<EOS
for i in 1 2; do timeout 5 sh -c 'while :; do :; done' & done
dd if=/dev/zero of="$T/written" bs=1M count=64 conv=fsync status=none
wait
EOS
OUT=$("$HOSTSRC_PROBE" p=procfs:/proc n1=node_exporter:"http://$A1:$P1/metrics" \
        n2=node_exporter:"http://$A2:$P2/metrics" -- bash "$T/burn.sh" 2>&1) || fail "probe: $OUT"
echo "$OUT" >"$T/real.out"
for k in busy user system iowait steal busiest; do
        agree "$OUT" "$k" p n1 2
        agree "$OUT" "$k" p n2 2
done
busy=$(field "$OUT" p busy)
near "$busy" 100 60 || fail "the burn left the host at $busy% busy"
ndisk=0
for d in $(echo "$OUT" | awk '$1 == "disk" && $2 == "p" { print $3 }'); do
        for n in n1 n2; do
                a=$(dfield "$OUT" p "$d" util) b=$(dfield "$OUT" "$n" "$d" util)
                [ -n "$b" ] || fail "disk $d: procfs has it, $n does not: $OUT"
                near "$a" "$b" 2 || fail "disk $d %util: procfs $a, $n $b"
        done
        ndisk=$((ndisk + 1))
done
real_busy=$busy

# 2. an exporter over a hand-written procfs directory, a saturated host.
F=$T/fakeproc
mkdir -p "$F"
write_fake() { # CPU0_BUSY CPU1_IDLE SWAPIN RD_IOS RD_MS IO_MS, all cumulative
        local u0=$(($1 * 6 / 10)) s0=$(($1 * 2 / 10)) st0=$(($1 * 2 / 10)) u1=$(($2 / 2)) i1=$(($2 / 2))
        {
                printf 'cpu  %d 0 %d %d 0 0 0 %d 0 0\n' $((1000 + u0 + u1)) $((500 + s0)) $((20000 + i1)) $((st0))
                printf 'cpu0 %d 0 %d %d 0 0 0 %d 0 0\n' $((500 + u0)) $((250 + s0)) 10000 $((st0))
                printf 'cpu1 %d 0 %d %d 0 0 0 0 0 0\n' $((500 + u1)) 250 $((10000 + i1))
                printf 'intr 0\nctxt 100\nbtime 1700000000\nprocesses 10\nprocs_running 2\nprocs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n'
        } >"$F/stat.new"
        printf 'MemTotal:        8000000 kB\nMemFree:          300000 kB\nMemAvailable:     400000 kB\nSwapTotal:       1000000 kB\nSwapFree:         500000 kB\n' >"$F/meminfo.new"
        printf 'pswpin %d\npswpout 7\n' "$3" >"$F/vmstat.new"
        printf '   8       0 sda %d 0 %d %d 100 0 800 50 0 %d %d 0 0 0 0 0 0\n' "$4" $(($4 * 8)) "$5" "$6" $(($5 + 50)) >"$F/diskstats.new"
        for f in stat meminfo vmstat diskstats; do mv "$F/$f.new" "$F/$f"; done
}
write_fake 0 0 100 1000 1000 500
cat >"$T/saturate.sh" <<EOS
# advance the counters as a saturated host's would over this window
set -e
. /dev/stdin <<'FN'
$(declare -f write_fake)
FN
F=$F
t0=\$(date +%s%N)
sleep 1 # the window's own length
e_ms=\$(( (\$(date +%s%N) - t0) / 1000000 ))
k=\$(( e_ms / 100 * 10 ))   # ticks of 10 ms in the window, a multiple of 10
write_fake "\$k" "\$k" 600 \$((1000 + 1000)) \$((1000 + 2000)) \$((500 + e_ms))
EOS
start_exporter "$A3" "$P3" --path.procfs="$F"
OUT=$("$HOSTSRC_PROBE" d=procfs:"$F" n3=node_exporter:"http://$A3:$P3/metrics" -- bash "$T/saturate.sh" 2>&1) ||
        fail "probe over the fake procfs: $OUT"
echo "$OUT" >"$T/fake.out"
for h in d n3; do
        # cpu0 all busy (user 60, system 20, steal 20 of its ticks), cpu1 half: 75% busy, 10% steal
        near "$(field "$OUT" $h busy)" 75 0.5 || fail "$h busy: $OUT"
        near "$(field "$OUT" $h steal)" 10 0.5 || fail "$h steal: $OUT"
        near "$(field "$OUT" $h user)" 55 0.5 || fail "$h user: $OUT"
        near "$(field "$OUT" $h busiest)" 100 0.5 || fail "$h busiest cpu: $OUT"
        near "$(field "$OUT" $h mem)" 95 0.01 || fail "$h memory used: $OUT"
        near "$(dfield "$OUT" $h sda lat)" 2 0.001 || fail "$h sda latency: $OUT"
        # busy for the command's time, read over a window a little longer (the other source's read)
        util=$(dfield "$OUT" $h sda util)
        near "$util" 75 25 || fail "$h sda util $util, written busy the whole window: $OUT"
        swap=$(field "$OUT" $h swapin)
        awk -v s="$swap" 'BEGIN { exit !(s > 0) }' || fail "$h swap-ins: $OUT"
done

# 3. a disk counter that went backwards voids that disk only, through either source: the
#    CPU and memory figures of the window stand, no negative rate is printed.
printf '#!/bin/sh\nsed -i "s/^   8       0 sda [0-9]*/   8       0 sda 5/" %s/diskstats\n' "$F" >"$T/back.sh"
for src in d=procfs:"$F" n3=node_exporter:"http://$A3:$P3/metrics"; do
        h=${src%%=*}
        write_fake 0 0 100 1000 1000 500
        expect_rc 0 "$HOSTSRC_PROBE" "$src" -- sh "$T/back.sh"
        echo "$OUT" | grep -q "^lost $h: disk counters went backwards: that figure left out" || fail "backwards: $OUT"
        echo "$OUT" | grep -q "^disk $h sda " && fail "a rate of a disk that went back was printed: $OUT"
        near "$(field "$OUT" $h mem)" 95 0.01 || fail "$h memory of a window with a disk gone back: $OUT"
        echo "$OUT" | grep -q '=-' && fail "a negative rate: $OUT"
done

# garbage and oversized bodies, a gone exporter, a URL that is not http(s)
W=$T/www
mkdir -p "$W/big"
head -c 65536 /dev/urandom >"$W/metrics"
head -c $((100 << 20)) /dev/zero | tr '\0' 'a' >"$W/big/metrics"
python3 -m http.server "$P4" --bind "$A4" --directory "$W" >"$T/http.log" 2>&1 &
PIDS+=($!)
wait_until 30 _answers "http://$A4:$P4/metrics" "${PIDS[-1]}" "$T/http.log"
expect_rc 3 "$HOSTSRC_PROBE" g1=node_exporter:"http://$A4:$P4/metrics" -- true
echo "$OUT" | grep -q "g1 (node_exporter): not exposition text: line" || fail "garbage: $OUT"
expect_rc 3 "$HOSTSRC_PROBE" g2=node_exporter:"http://$A4:$P4/big/metrics" -- true
echo "$OUT" | grep -q "g2 (node_exporter): http://$A4:$P4/big/metrics: body over" || fail "100 MiB: $OUT"
kill "${PIDS[1]}"
wait_gone "${PIDS[1]}"
expect_rc 3 "$HOSTSRC_PROBE" n2=node_exporter:"http://$A2:$P2/metrics" -- true
echo "$OUT" | grep -q "n2 (node_exporter): http://$A2:$P2/metrics: " || fail "gone: $OUT"
expect_rc 3 "$HOSTSRC_PROBE" f1=node_exporter:file:///etc/passwd -- true
echo "$OUT" | grep -q "f1 (node_exporter): metrics URL file:///etc/passwd: only http" || fail "file URL: $OUT"
pass "real /proc: procfs and 2 exporters agree within 2 points at $real_busy% busy over $ndisk disks;" \
        "fake procfs: 75% busy, 10% steal, 95% memory, 2 ms disk through both; backwards, garbage, 100 MiB, gone, file:// refused"
