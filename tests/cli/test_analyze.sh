#!/bin/bash
# test_analyze.sh - `hcisweep analyze` on CSV ramps with known answers, on
# real fio and sysbench output produced here, and on an hcisweep block
# result; bad input exits 2 naming the line.
. "$TESTLIB"
cd "$T" || exit 1

# jq -e on the analysis JSON, failing with the expression.
jcheck() {
        jq -e "$2" "$1" >/dev/null || fail "$1: $2 (got: $(jq -c '{peak,knee,latency_knee,slo}' "$1"))"
}

# 1. A plateau with a latency cliff, columns reordered, extra column ignored.
cat >plateau.csv <<'EOF'
latency_ms,host,throughput,load
1.8,a,810,16
1.0,a,100,1
1.1,a,200,2
1.2,a,400,4
1.4,a,800,8
10.0,a,820,32
EOF
expect_rc 0 "$HCISWEEP" analyze plateau.csv --latency-slo 2 --json plateau.json
echo "$OUT" | grep -q '^peak: load 32 ' || fail "plateau peak: $OUT"
echo "$OUT" | grep -q '^knee: load 8$' || fail "plateau knee: $OUT"
echo "$OUT" | grep -q '^latency knee: load 16$' || fail "plateau latency knee: $OUT"
echo "$OUT" | grep -q '^slo 2 ms: met up to load 16$' || fail "plateau slo: $OUT"
jcheck plateau.json '.kind == "analyze" and .source.format == "csv"'
jcheck plateau.json '.peak.load == 32 and .peak.throughput == 820'
jcheck plateau.json '.knee.load == 8 and .latency_knee.load == 16'
jcheck plateau.json '.slo.latency_ms == 2 and .slo.load == 16 and (.points | length) == 6'
pass "csv plateau: peak 32, knee 8, latency knee 16, slo 16"

# 2. Plateau then dip: the peak is before the dip; a straight line has no knee.
printf 'load,throughput\n1,100\n2,200\n4,400\n8,800\n16,820\n32,700\n' >dip.csv
expect_rc 0 "$HCISWEEP" analyze dip.csv --json dip.json
jcheck dip.json '.peak.load == 16 and .knee.load == 8 and .latency_knee.load == null'
jcheck dip.json 'has("slo") | not'
printf 'load,throughput\n1,10\n2,20\n3,30\n4,40\n5,50\n' >line.csv
expect_rc 0 "$HCISWEEP" analyze line.csv --json line.json
jcheck line.json '.peak.load == 5 and .knee.load == null'
echo "$OUT" | grep -q '^knee: none$' || fail "linear: $OUT"
pass "dip: peak 16 knee 8; linear: knee none"

# 3. Bad input: exit 2 and the line is named.
printf 'load,throughput\n1,100\n\n2,lots\n' >bad.csv
expect_rc 2 "$HCISWEEP" analyze bad.csv
echo "$OUT" | grep -q 'bad.csv: line 4: column throughput' || fail "bad csv message: $OUT"
printf 'load,throughput\n1,100\n' >one.csv
expect_rc 2 "$HCISWEEP" analyze one.csv
echo "$OUT" | grep -q 'has 1 point: a ramp needs at least 2' || fail "one point: $OUT"
printf '{"fio version": "fio-3.33",\n "jobs": [\n  {"read": }\n' >bad.json
expect_rc 2 "$HCISWEEP" analyze bad.json
echo "$OUT" | grep -q 'bad.json: line 3: JSON' || fail "bad json message: $OUT"
expect_rc 2 "$HCISWEEP" analyze missing.csv
expect_rc 2 "$HCISWEEP" analyze plateau.csv --latency-slo=-1
expect_rc 2 "$HCISWEEP" analyze
pass "malformed input exits 2 naming the line"

# 4. Real fio output: one run per iodepth, concatenated.
if fio --enghelp 2>/dev/null | grep -qw io_uring; then eng=io_uring; else eng=libaio; fi
: >fio.json
for qd in 1 2 4; do
        fio --name=t --filename="$T/f" --size=16m --rw=randread --ioengine=$eng --iodepth=$qd \
                --runtime=1 --time_based --output-format=json >fio$qd.json 2>fio.err ||
                fail "fio iodepth $qd: $(cat fio.err)"
        cat fio$qd.json >>fio.json
done
expect_rc 0 "$HCISWEEP" analyze fio.json --json fio-a.json
echo "$OUT"
jcheck fio-a.json '.source.format == "fio" and ([.points[].load] == [1, 2, 4])'
for qd in 1 2 4; do
        want=$(jq '.jobs[0].read.iops + .jobs[0].write.iops' fio$qd.json)
        lat=$(jq '.jobs[0].read.lat_ns.mean / 1e6' fio$qd.json)
        jcheck fio-a.json "(.points[] | select(.load == $qd) | .throughput - $want | fabs) < 0.01"
        jcheck fio-a.json "(.points[] | select(.load == $qd) | .latency_ms - $lat | fabs) < 1e-6"
done
jcheck fio-a.json '.peak.throughput == ([.points[].throughput] | max)'
pass "fio ($eng) iodepth 1,2,4: $(jq -c '[.points[] | [.load, (.throughput | floor)]]' fio-a.json)"

# fio prints "note: ..." on stdout before the JSON when psync gets iodepth > 1.
: >psync.json
for qd in 2 4; do
        fio --name=t --filename="$T/f" --size=16m --rw=randread --ioengine=psync --iodepth=$qd \
                --runtime=1 --time_based --output-format=json >>psync.json 2>fio.err ||
                fail "fio psync iodepth $qd: $(cat fio.err)"
done
expect_rc 0 "$HCISWEEP" analyze psync.json --json psync-a.json
jcheck psync-a.json '.source.format == "fio" and ([.points[].load] == [2, 4])'
pass "fio psync output with its notes: $(grep -c '^note:' psync.json) note line(s) skipped"

# 5. Real sysbench output: two runs concatenated, load = threads.
: >sb.txt
for th in 1 2; do
        sysbench cpu --threads=$th --time=1 run >>sb.txt 2>&1 || fail "sysbench: $(tail -3 sb.txt)"
done
expect_rc 0 "$HCISWEEP" analyze sb.txt --json sb.json
echo "$OUT"
jcheck sb.json '.source.format == "sysbench" and ([.points[].load] == [1, 2])'
i=0
for eps in $(awk '/events per second:/ {print $4}' sb.txt); do
        avg=$(awk '/avg:/ {n++; if (n == '$((i + 1))') print $2}' sb.txt)
        jcheck sb.json "(.points[$i].throughput - $eps | fabs) <= 1e-9 * $eps and
                (.points[$i].latency_ms - $avg | fabs) <= 1e-9 * $avg"
        i=$((i + 1))
done
[ "$i" -eq 2 ] || fail "sysbench printed $i 'events per second' lines"
pass "sysbench cpu threads 1,2: $(jq -c '[.points[] | [.load, .throughput]]' sb.json)"

# 6. An hcisweep block result (null engine): one ramp per rw/bs group.
expect_rc 0 "$HCISWEEP" block --engine null --rw randread,randwrite --iodepth 1-8 --runtime 1 \
        --size 1m --quiet --json blk.json
expect_rc 0 "$HCISWEEP" analyze blk.json --json blk-a.json
echo "$OUT" | grep -q '== randread 4k ==' || fail "block groups: $OUT"
echo "$OUT" | grep -q '== randwrite 4k ==' || fail "block groups: $OUT"
jcheck blk-a.json '.source.format == "hcisweep-block" and (.ramps | length) == 2'
jcheck blk-a.json '[.ramps[0].points[].load] == [1, 2, 4, 8]'
want=$(jq '[.points[] | select(.rw == "randread") | .read.iops] | max' blk.json)
qd=$(jq '[.points[] | select(.rw == "randread")] | max_by(.read.iops) | .iodepth' blk.json)
jcheck blk-a.json ".peak.load == $qd and (.peak.throughput - $want | fabs) < 0.01"
pass "block null result: randread peak at iodepth $qd ($want IOPS)"

# 7. Real sysbench OLTP (transactions per second) and an hcisweep oltp result
# (intervals over time), on a private MariaDB.
ADDR=$(test_addr 0) PORT=$(test_port 0) PW=an-pw-3
db_start 1 "$PW"
SB=(--mysql-host="$ADDR" --mysql-port="$PORT" --mysql-user=root --mysql-password="$PW"
        --tables=1 --table-size=1000)
expect_rc 0 sysbench oltp_read_only "${SB[@]}" prepare
: >oltp.txt
for th in 1 2 4; do
        sysbench oltp_read_only "${SB[@]}" --threads=$th --time=1 run >>oltp.txt 2>&1 ||
                fail "sysbench oltp: $(tail -3 oltp.txt)"
done
expect_rc 0 "$HCISWEEP" analyze oltp.txt --latency-slo 1000 --json oltp-a.json
echo "$OUT"
jcheck oltp-a.json '.source.format == "sysbench" and ([.points[].load] == [1, 2, 4])'
i=0
for tps in $(sed -n 's/^ *transactions: *[0-9]* *(\([0-9.]*\) per sec.)/\1/p' oltp.txt); do
        avg=$(awk '/avg:/ {n++; if (n == '$((i + 1))') print $2}' oltp.txt)
        jcheck oltp-a.json "(.points[$i].throughput - $tps | fabs) <= 1e-9 * $tps and
                (.points[$i].latency_ms - $avg | fabs) <= 1e-9 * $avg"
        i=$((i + 1))
done
[ "$i" -eq 3 ] || fail "sysbench printed $i transactions lines"
jcheck oltp-a.json '.slo.load == 4'
pass "sysbench oltp_read_only threads 1,2,4: $(jq -c '[.points[] | [.load, .throughput]]' oltp-a.json)"

expect_rc 0 env MYSQL_PWD="$PW" "$HCISWEEP" oltp run --workload oltp_read_only \
        --mysql-host "$ADDR" --mysql-port "$PORT" --mysql-user root --tables 1 --table-size 1000 \
        --threads 2 --time 3 --report-interval 1 --json oltp-r.json
expect_rc 0 "$HCISWEEP" analyze oltp-r.json --json oltp-ra.json
jcheck oltp-ra.json '.source.format == "hcisweep-oltp" and .ramps[0].load_name == "t_s"'
n=$(jq '.intervals | length' oltp-r.json)
[ "$n" -ge 2 ] || fail "oltp run wrote $n intervals"
# Both files hold 10 significant digits: equal within that, not bit for bit.
jq -e --slurpfile r oltp-r.json "(.points | length) == $n and
        ([.points, \$r[0].intervals] | transpose | all(
                ((.[0].throughput - .[1].tps) | fabs) <= 1e-8 * (.[1].tps | fabs) and
                ((.[0].latency_ms - .[1].lat_ns.percentile[\"95.0\"] / 1e6) | fabs) <=
                        1e-8 * (.[1].lat_ns.percentile[\"95.0\"] / 1e6)))" \
        oltp-ra.json >/dev/null || fail "oltp intervals: $(jq -c .points oltp-ra.json)"
pass "hcisweep oltp result: $n intervals analysed"

# 8. The tipping point and its attribution from CSV resource columns (tipping.h):
# efficiency 4->8 96%, 8->12 89%, 12->16 ln(2900/2800)/ln(16/12) = 12% < 20%: tipped at
# 12; from 12 to 16 the host CPU saturated while storage's share fell and its latency rose.
cat >res.csv <<'CSV'
load,throughput,cpu_busy_pct,storage_cpu_pct,storage_util_pct,storage_lat_ms,vm_cpu_pct
4,1000,30,5,20,0.40,50
8,1950,60,9,35,0.45,55
12,2800,86,12,40,0.40,60
16,2900,99,11,45,0.90,62
CSV
expect_rc 0 "$HCISWEEP" analyze res.csv --json res.json
echo "$OUT" | grep -q '^knee: load 12$' || fail "res knee: $OUT"
# the verdict: at most four lines, where it tips, the resource, the figures at both steps
echo "$OUT" | grep -q '^res.csv: tips at load 12 — limited by cpu: compute limiting storage$' ||
        fail "res tipping point: $OUT"
echo "$OUT" | grep -q '^  host CPU 86% → 99% busy; .*storage latency 0.40 → 0.90 ms (load 12 → 16)$' ||
        fail "res verdict figures: $OUT"
[ "$(sed -n '/^res.csv: tips/,/^latency knee/p' <<<"$OUT" | wc -l)" -le 5 ] ||
        fail "verdict over four lines: $OUT"
jcheck res.json '(.tipping_point.verdict | split("\n") | length) <= 4 and
        (.tipping_point.verdict | startswith("res.csv: tips at load 12"))'
jcheck res.json '[.tipping_point.evidence[] | select(.figure == "host CPU busy")] |
        map([.at, .value, .unit, .rule]) == [[12, 86, "%", "< 90%: room"],
                                             [16, 99, "%", "≥ 90%: saturated"]]'
# --explain: the table, the figures at both steps and the rule each met
expect_rc 0 "$HCISWEEP" analyze res.csv --explain
echo "$OUT" | grep -Eq '^  figure +at load 12 +at load 16 +rule it met$' || fail "explain head: $OUT"
echo "$OUT" | grep -Eq '^  host CPU busy +86% +99% +\* ≥ 90%: saturated$' || fail "explain: $OUT"
jcheck res.json '.tipping_point.load == 12 and .tipping_point.limited_by == "cpu"'
jcheck res.json '.knee.load == .tipping_point.load and .ramps[0].tipping_point.load == 12'
jcheck res.json '(.usl | has("lambda") and has("sigma") and has("kappa") and has("peak_load")
        and has("rmse")) and .usl.sigma >= 0 and .usl.kappa >= 0'
jcheck res.json '.tipping_point.reason | contains("host CPU 86% -> 99% busy")'
# the VMs' quotas saturated with host CPU left: vm-cpu
sed 's/^16,2900,99,11,45,0.90,62$/16,2900,70,13,45,0.42,97/' res.csv >vm.csv
expect_rc 0 "$HCISWEEP" analyze vm.csv --json vm.json
jcheck vm.json '.tipping_point.load == 12 and .tipping_point.limited_by == "vm-cpu"'
# quotas below 90% used but the VMs throttled most of the step (cgroup cpu.stat): vm-cpu too
{ echo "load,throughput,cpu_busy_pct,vm_cpu_pct,vm_throttled_time_pct"
  printf '%s\n' 4,1000,30,50,2 8,1950,60,55,5 12,2800,70,60,10 16,2900,72,80,40; } >thr.csv
expect_rc 0 "$HCISWEEP" analyze thr.csv --json thr.json
jcheck thr.json '.tipping_point.load == 12 and .tipping_point.limited_by == "vm-cpu"
        and (.tipping_point.reason | contains("VMs throttled 10% -> 40% of the time"))'
# a flat curve whose repeats spread +-10%: undecided, more repeats needed
printf 'load,throughput,throughput_min,throughput_max\n1,1000,900,1100\n2,1040,936,1144\n' >flat.csv
expect_rc 0 "$HCISWEEP" analyze flat.csv --json flat.json
echo "$OUT" | grep -q '^flat.csv: undecided — from load 1 to load 2' || fail "flat: $OUT"
echo "$OUT" | grep -q 'more repeats needed: --repeat' || fail "flat, what to do: $OUT"
jcheck flat.json '.tipping_point.load == null and .tipping_point.undecided == true'
pass "csv resource columns: tipped at 12 (cpu, compute limiting storage), vm-cpu, undecided"
