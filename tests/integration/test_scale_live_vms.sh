#!/usr/bin/env bash
# scale --metrics-listen with --driver-placement vm on the local lab (real
# mariadbd "VMs" and tgtd; a driver in each VM's cgroups, its report
# intervals streamed to the controller as sample lines): two scrapes of the
# 2-VM step show each VM's hcisweep_transactions_total{vm="N"} grown between
# them (values compared as numbers) and the unlabelled aggregate at least
# their sum's share; a real Prometheus (its own data dir, loopback, 1 s
# scrape) scraping the same step returns a series per VM whose largest value
# is above 0 and at most what that VM's driver counted in its result.
. "$TESTLIB"
command -v prometheus >/dev/null || fail "prometheus missing (Debian prometheus)"
ADDR=$(test_addr 0)
BASE=${ADDR%.*}
LAB=$T/lab
MADDR=$(test_addr 9):$(test_port 8)
PADDR=$(test_addr 9):$(test_port 9)
common=(--lab-dir "$LAB" --addr-base "$BASE" --base-port "$(test_port 0)"
        --target-port "$(test_port 1)")
on_exit kill_listed
on_exit "$HCISWEEP" lab down "${common[@]}"
# a driver's memory counts in its VM's limit: under ASan the VMs get room, the quarantine less
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"

start_prometheus "$MADDR" "$PADDR"
API=http://$PADDR
ready() {
        kill -0 $PROM_PID 2>/dev/null || fail "prometheus exited: $(tail -5 "$T/prom.log")"
        curl -sf --noproxy '*' "$API/-/ready" >/dev/null
}
wait_until 20 ready
q() { curl -sf --noproxy '*' -G "$API/api/v1/query" --data-urlencode "query=$1" --data-urlencode "time=$(date +%s)"; }
scraped() { [ "$(q up | jq '.data.result | length')" = 1 ]; }
wait_until 20 scraped

"$HCISWEEP" scale --vms 2 --vm-memory 512M --lun-size 256M "${common[@]}" --tables 1 \
        --table-size 500 --threads 2 --warmup-time 0.5 --time 5 --driver-placement vm \
        --output-dir "$T/runs" --metrics-listen "$MADDR" >"$T/scale.out" 2>&1 &
SPID=$!
on_exit "kill $SPID"
# VM v's counter in scrape file f; empty when it has none yet
txn() { sed -n "s/^hcisweep_transactions_total{vm=\"$2\"} \([0-9.e+]*\)$/\1/p" "$1"; }
both() { [ -n "$(txn "$1" 1)" ] && [ -n "$(txn "$1" 2)" ]; }
first="" last=""
for i in $(seq 600); do # bounded: the step takes well under a minute here
        kill -0 $SPID 2>/dev/null || break
        if curl -sf --noproxy '*' "http://$MADDR/metrics" >"$T/s.$i" 2>/dev/null && both "$T/s.$i"; then
                [ -n "$first" ] || first=$T/s.$i
                last=$T/s.$i
        fi
        sleep 0.2 # the scrape interval: samples the endpoint while scale runs, waits for nothing
done
wait $SPID || fail "scale failed: $(tail -5 "$T/scale.out")"
[ -n "$first" ] || fail "no scrape had both VMs' counters: $(grep -h transactions "$T"/s.* | sort -u | head -5)"
for v in 1 2; do
        a=$(txn "$first" $v) b=$(txn "$last" $v)
        awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > a) }' || fail "vm$v's transactions did not grow: $a then $b"
        echo "# vm$v: transactions_total $a then $b"
done
agg=$(sed -n 's/^hcisweep_transactions_total \([0-9.e+]*\)$/\1/p' "$last")
sum=$(awk -v a="$(txn "$last" 1)" -v b="$(txn "$last" 2)" 'BEGIN { print a + b }')
awk -v g="$agg" -v s="$sum" 'BEGIN { exit !(g == s) }' || fail "aggregate $agg, VMs' sum $sum"
grep -q '^hcisweep_latency_seconds{vm="2",quantile="0.99"} [0-9]' "$last" || fail "no vm2 latency quantile"
grep -q '^hcisweep_latency_seconds{quantile="0.99"} [0-9]' "$last" || fail "no aggregate latency quantile"
pass "live endpoint with drivers in the VMs: both VMs' counters grew, the aggregate is their sum"

# Prometheus: the last samples are in once a scrape has found the endpoint gone
down() { [ "$(q up | jq -r '.data.result[0].value[1]')" = 0 ]; }
wait_until 20 down
R=$(sed -n 's/^result: \([^ ]*\).*/\1/p' "$T/scale.out")
[ -f "$R" ] || fail "no result: $(tail -5 "$T/scale.out")"
for v in 1 2; do
        q "max_over_time(hcisweep_transactions_total{vm=\"$v\"}[2m])" >"$T/p$v.json" || fail "query failed"
        seen=$(jq -r '.data.result[0].value[1] // empty' "$T/p$v.json")
        total=$(jq '.totals.transactions' "$(jq -r ".steps[0].drivers[$((v - 1))].result" "$R")")
        awk -v s="$seen" -v t="$total" 'BEGIN { exit !(s > 0 && s <= t) }' ||
                fail "prometheus saw vm$v at '$seen', its driver counted $total"
        echo "# prometheus: vm$v transactions $seen of $total"
done
q 'count(count by (vm) (max_over_time(hcisweep_transactions_total[2m])))' >"$T/n.json" || fail "query failed"
jq -e '.data.result[0].value[1] == "3"' "$T/n.json" >/dev/null || fail "series by vm: $(cat "$T/n.json")"
pass "prometheus scraped the step: a series per VM and the aggregate, each within its driver's count"
