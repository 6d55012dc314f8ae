#!/usr/bin/env bash
# hcisweep block --clients local:2 reads its hosts through Prometheus, the
# path scale reads them on (--metrics-source prometheus --prometheus URL):
#  1. a real prometheus scraping a real prometheus-node-exporter of this test:
#     the point's cluster.hosts[] holds the inventory's storage host s1 read
#     through the prometheus source (named so), its CPU split there, and this
#     host from /proc as ever; a second storage host whose instance that
#     Prometheus does not scrape is missing, named, and the point still counts;
#  2. a Prometheus that stalls on one instance past the source's time-out
#     (fake_exporter.py's stallon): that host misses its samples (null CPU),
#     the other host reads 40% busy, every point keeps its measured window;
#  3. a Prometheus that is gone: both hosts missing, the points run all the same;
#  4. --prometheus without --metrics-source prometheus is refused (exit 2),
#     as scale refuses it.
# No client is left running after any of these.
. "$TESTLIB"
NE=$(command -v prometheus-node-exporter) || fail "prometheus-node-exporter is not installed (scripts/install-deps.sh)"
command -v prometheus >/dev/null || fail "prometheus is not installed (scripts/install-deps.sh)"
PIDS=()
on_exit 'for p in "${PIDS[@]}"; do kill "$p"; done'
cd "$T"
F="$T/f1,$T/f2"
common=(--clients local:2 --filename "$F" --engine psync --size 4m --bs 4k --rw randread)
left() { pgrep -f -- "=$T/.*--start-on-go" >/dev/null; }
no_driver_left() { ! left || fail "a client is still running after $1: $(pgrep -af -- "$T/")"; }

A0=$(test_addr 0) A1=$(test_addr 1) A2=$(test_addr 2)
P0=$(test_port 0) P1=$(test_port 1) P2=$(test_port 2)
INST=$A1:$P1
"$NE" --web.listen-address="$INST" --collector.disable-defaults --collector.cpu \
        --collector.meminfo --collector.diskstats --collector.netdev >"$T/ne.log" 2>&1 &
PIDS+=($!)
start_prometheus "$INST" "$A0:$P0"
q() { curl -sf -G "http://$A0:$P0/api/v1/query" --data-urlencode "query=$1"; }
# two scrapes in: the source's rates need both ends
scraped() {
        kill -0 "$PROM_PID" 2>/dev/null || fail "prometheus exited: $(tail -5 "$T/prom.log")"
        [ "$(q "count_over_time(up{instance=\"$INST\"}[1m])" | jq -r '.data.result[0].value[1]' 2>/dev/null)" -ge 2 ] 2>/dev/null
}
wait_until 60 scraped
cat >"$T/inv.ini" <<INI
[host s1]
role = storage
metrics = http://$INST/metrics

[host s2]
role = storage
metrics = http://$A2:$P2/metrics
INI

# --- 1. a real Prometheus over a real node_exporter
expect_rc 0 timeout -k 5 120 "$HCISWEEP" block "${common[@]}" --iodepth 1,2 --runtime 3 \
        --inventory "$T/inv.ini" --metrics-source prometheus --prometheus "http://$A0:$P0" \
        --json "$T/r.json"
no_driver_left "a Prometheus run"
grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' <<<"$OUT" && fail "sanitizer: $OUT"
jq -e '(.points | length) == 2 and all(.points[]; .n_clients == 2
          and (.cluster.hosts[] | select(.name == "s1") | .source == "prometheus" and .role == "storage"
               and .missing != true and .cpu.busy >= 0 and .cpu.busy <= 100 and .cpu.user >= 0
               and .cpu.system >= 0 and (.cpu | has("iowait")) and .seconds > 0)
          and (.cluster.hosts[] | select(.name == "local") | .source == "procfs" and .role == "client"
               and .cpu.busy >= 0)
          and (.cluster.hosts[] | select(.name == "s2") | .source == "prometheus" and .missing == true
               and (.error | contains("s2")) and .cpu == null)
          and .read.ios > 0
          and (.cluster.series | length) >= 1
          and all(.cluster.series[]; [.hosts[] | select(.name == "s1") | .cpu.busy >= 0] == [true]))' \
        "$T/r.json" >/dev/null ||
        fail "the hosts through Prometheus: $(jq -c '[.points[] | {ios: .read.ios, h: [.cluster.hosts[] | {name, source, missing, error, cpu}]}]' "$T/r.json")"
S1=$(jq -r '[.points[].cluster.hosts[] | select(.name == "s1") | .cpu.busy] | map(floor) | join("/")' "$T/r.json")

# --- 2. a Prometheus that stalls on s2's instance (after the first answer, that the run opens on)
kill "$PROM_PID"
FP=$(test_port 3)
python3 "$SRC/tests/integration/fake_exporter.py" "$A0" "$FP" "$T/fake.log" 2>"$T/fake.err" &
PIDS+=($!)
wait_port "$A0" "$FP"
RT=3
expect_rc 0 timeout -k 5 180 "$HCISWEEP" block "${common[@]}" --iodepth 1,2 --runtime $RT \
        --inventory "$T/inv.ini" --metrics-source prometheus \
        --prometheus "http://$A0:$FP/prom/stallon-$A2:$P2" --json "$T/s.json"
no_driver_left "a stalled Prometheus"
jq -e --argjson rt $RT '(.points | length) == 2 and all(.points[]; .n_clients == 2 and .read.ios > 0
          and (.stonewall.first.seconds - $rt | fabs) < 1
          and (.cluster.hosts[] | select(.name == "s2") | .cpu == null and .windows_missed >= 1)
          and (.cluster.hosts[] | select(.name == "s1") | .cpu.busy > 39.5 and .cpu.busy < 40.5))' \
        "$T/s.json" >/dev/null ||
        fail "a stalled instance: $(jq -c '[.points[] | {ios: .read.ios, sw: .stonewall, h: [.cluster.hosts[] | {name, missing, windows_missed, error, cpu}]}]' "$T/s.json")"

# --- 3. a Prometheus that is gone: the hosts are missing, the points are run
expect_rc 0 timeout -k 5 120 "$HCISWEEP" block "${common[@]}" --iodepth 1 --runtime 1 \
        --inventory "$T/inv.ini" --metrics-source prometheus --prometheus "http://$A0:$P0" \
        --json "$T/g.json"
no_driver_left "a Prometheus gone"
jq -e '.points[0].read.ios > 0 and all(.points[0].cluster.hosts[] | select(.name != "local");
        .missing == true and .source == "prometheus" and (.error | length) > 0)' "$T/g.json" >/dev/null ||
        fail "a Prometheus gone: $(jq -c '.points[0].cluster.hosts' "$T/g.json")"

# --- 4. refused before any connection
expect_rc 2 "$HCISWEEP" block "${common[@]}" --runtime 1 --inventory "$T/inv.ini" \
        --prometheus "http://$A0:$P0" --json "$T/x.json"
grep -q -- '--prometheus' <<<"$OUT" || fail "the refusal names --prometheus: $OUT"
[ ! -e "$T/x.json" ] || fail "a result of a refused run"
pass "block hosts through Prometheus: s1 ${S1}% busy per point (source prometheus), s2 missing;" \
        "stalled instance missed, s1 40% busy; gone: missing, points run; bad option: exit 2"
