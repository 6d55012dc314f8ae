#!/usr/bin/env bash
# --metrics-listen: a real Prometheus (Debian prometheus, its own data dir,
# loopback, 1 s scrape interval) scrapes a short `oltp run` against a real
# MariaDB; its HTTP API returns the TPS series with more than one sample
# and a transaction count no higher than the run's own. A block sweep's
# endpoint answers with IOPS while it runs; wildcard and unresolvable
# addresses and a port in use are refused with exit 2.
. "$TESTLIB"
command -v prometheus >/dev/null || fail "prometheus missing (Debian prometheus)"
ADDR=$(test_addr 0) PORT=$(test_port 0) MPORT=$(test_port 1) PPORT=$(test_port 2) PW=mp-pw-3
db_start 1 "$PW"
C=(--mysql-host "$ADDR" --mysql-port "$PORT" --mysql-user root --tables 1 --table-size 1000)
expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"

start_prometheus "$ADDR:$MPORT" "$ADDR:$PPORT"
API=http://$ADDR:$PPORT
ready() {
        kill -0 $PROM_PID 2>/dev/null || fail "prometheus exited: $(tail -5 "$T/prom.log")"
        curl -sf "$API/-/ready" >/dev/null
}
wait_until 20 ready
q() { curl -sf -G "$API/api/v1/query" --data-urlencode "query=$1" --data-urlencode "time=$(date +%s)"; }
# Prometheus applies its targets a few seconds after start: wait for its first
# scrape of the (still absent) endpoint, so the run is watched from its start.
scraped() { [ "$(q up | jq '.data.result | length')" = 1 ]; }
wait_until 20 scraped

t0=$(date +%s)
expect_rc 0 "$HCISWEEP" oltp run "${C[@]}" --workload oltp_point_select --threads 2 --time 6 \
        --metrics-listen "$ADDR:$MPORT" --json "$T/r.json"
# The run's last samples are in once a scrape has found the endpoint gone (up 0).
down() { [ "$(q up | jq -r '.data.result[0].value[1]')" = 0 ]; }
wait_until 20 down
q "hcisweep_tps[2m]" >"$T/tps.json" || fail "query failed"
n=$(jq '[.data.result[0].values // [] | .[]] | length' "$T/tps.json")
[ "$n" -gt 1 ] || fail "TPS series has $n sample(s): $(head -c 400 "$T/tps.json"); $(tail -3 "$T/prom.log")"
jq -e '[.data.result[0].values[] | .[1] | tonumber] | max > 0' "$T/tps.json" >/dev/null ||
        fail "TPS samples all zero: $(jq -c '.data.result[0].values' "$T/tps.json")"
q "max_over_time(hcisweep_transactions_total[2m])" >"$T/txn.json" || fail "query failed"
seen=$(jq -r '.data.result[0].value[1]' "$T/txn.json")
total=$(jq '.totals.transactions' "$T/r.json")
awk -v s="$seen" -v t="$total" 'BEGIN { exit !(s > 0 && s <= t) }' ||
        fail "scraped transactions $seen, the run counted $total"
q 'count_over_time(hcisweep_latency_seconds{quantile="0.95"}[2m])' >"$T/lat.json" || fail "query failed"
jq -e '.data.result[0].value[1] | tonumber > 1' "$T/lat.json" >/dev/null ||
        fail "latency quantile series: $(cat "$T/lat.json")"
q 'count_over_time(hcisweep_host_cpu_seconds_total{mode="user"}[2m])' >"$T/cpu.json" || fail "query failed"
jq -e '.data.result[0].value[1] | tonumber > 1' "$T/cpu.json" >/dev/null || fail "host CPU series: $(cat "$T/cpu.json")"
echo "# prometheus: $n hcisweep_tps samples in $(($(date +%s) - t0)) s; transactions seen $seen of $total"
pass "prometheus scraped oltp run: $n TPS samples, transactions $seen <= $total"

# A block sweep serves its interval IOPS while it runs.
"$HCISWEEP" block --engine null --iodepth 1,2 --runtime 2 --json "$T/b.json" --quiet \
        --metrics-listen "$ADDR:$MPORT" >"$T/b.out" 2>&1 &
BPID=$!
on_exit "kill $BPID"
got=""
iops() { got=$(curl -sf "http://$ADDR:$MPORT/metrics" | grep '^hcisweep_iops ') || ! kill -0 $BPID 2>/dev/null; }
wait_until 20 iops
wait $BPID || fail "block with --metrics-listen failed: $(cat "$T/b.out")"
awk '{ exit !($2 > 0) }' <<<"$got" || fail "no hcisweep_iops while the block sweep ran: '$got'"
pass "block sweep endpoint: $got"

expect_rc 2 "$HCISWEEP" block --engine null --runtime 1 --metrics-listen 0.0.0.0:$MPORT
grep -q "every address is refused" <<<"$OUT" || fail "wildcard: $OUT"
expect_rc 2 "$HCISWEEP" oltp run "${C[@]}" --time 1 --metrics-listen "[::]:$MPORT"
grep -q "every address is refused" <<<"$OUT" || fail "v6 wildcard: $OUT"
expect_rc 2 "$HCISWEEP" block --engine null --runtime 1 --metrics-listen example.invalid:$MPORT
grep -q "not an IP address" <<<"$OUT" || fail "name: $OUT"
expect_rc 2 "$HCISWEEP" block --engine null --runtime 1 --metrics-listen "$ADDR:$PPORT"
grep -q "cannot listen on .*in use" <<<"$OUT" || fail "port in use: $OUT"
pass "wildcards, names and a port in use refused with exit 2"
