#!/bin/bash
# test_cluster_results.sh - a cluster's hosts read back by report, compare and
# analyze. The scale results are constructed (mkscale.py cluster: compute
# hosts h1 and h2, storage host s1, each step's cluster.hosts as scale writes
# them, h2 unread at 16 VMs; cluster-swap: h1's and h2's figures exchanged),
# the CSVs per-host rows. The host named must follow the figures, not a name;
# the local lab (the controller's own /proc as its one host) gets nothing new.
. "$TESTLIB"
cd "$T" || exit 1
MK="$SRC/tests/cli/mkscale.py"
mkdir c w l
python3 "$MK" cluster c/result.json && python3 "$MK" cluster-swap w/result.json &&
        python3 "$MK" hci hci.json || fail "mkscale"

# 1. report: the Hosts section, its two plots and one table row per step and host.
expect_rc 0 "$HCISWEEP" report c/result.json
grep -q '^## Hosts$' c/report.md || fail "no Hosts section in the markdown"
grep -q '<h2>Hosts</h2>' c/report.html || fail "no Hosts section in the html"
[ "$(grep -c '<svg' c/report.html)" -eq 7 ] || fail "cluster report: expected 5 + 2 svg plots"
for t in "Each host's CPU against VM count" "Each host's busiest disk against VM count"; do
        grep -q "$t" c/report.html || fail "no plot '$t'"
        grep -q "^\*Plot in report.html: $t\*$" c/report.md || fail "markdown does not point to '$t'"
done
for h in "h1 (compute)" "h2 (compute)" "s1 (storage)"; do
        grep -qF ">$h</text>" c/report.html || fail "legend lacks $h"
done
grep -q '^| VMs | host | role | CPU busy | steal | busiest disk (util) | net rx / tx MB/s |$' c/report.md ||
        fail "host table header: $(grep -A2 '^## Hosts' c/report.md)"
[ "$(sed -n '/^## Hosts$/,/^## /p' c/report.md | grep -c '^| [0-9]')" -eq 12 ] ||
        fail "expected 4 steps x 3 hosts rows"
grep -q '^| 12 | h1 | compute | 95.0% | 1.5% | sdb 12.0% | 12.50 / 2.50 |$' c/report.md ||
        fail "h1 at 12 VMs: $(grep '^| 12 | h1 ' c/report.md)"
grep -q '^| 16 | s1 | storage | 41.0% | 0.0% | sdb 65.0% | 12.50 / 2.50 |$' c/report.md ||
        fail "s1 at 16 VMs: $(grep '^| 16 | s1 ' c/report.md)"
grep -q '^| 16 | h2 | compute | — (http://127.0.0.3:9100/metrics: connection refused) | — | — | — |$' \
        c/report.md || fail "the unread host: $(grep '^| 16 | h2 ' c/report.md)"
grep -q '<td>— (http://127.0.0.3:9100/metrics: connection refused)</td>' c/report.html ||
        fail "the unread host in the html"
grep -q 'saturated on h1: 99% busy' c/report.md || fail "verdict does not name h1: $(sed -n 4p c/report.md)"
expect_rc 0 "$HCISWEEP" report w/result.json
grep -q '^| 12 | h2 | compute | 95.0% | 0.0% | sdb 7.0% | 12.50 / 2.50 |$' w/report.md ||
        fail "swapped: h2 at 12 VMs: $(grep '^| 12 | h2 ' w/report.md)"
pass "report: Hosts section, 2 plots, 12 rows, the unread host with its error"

# The local lab: one host, the controller's own /proc: the report is as it was.
mkdir n && cp hci.json n/result.json
jq '.steps[] |= (.cluster = {hosts: [{name: "local", role: "both", source: "procfs",
        controller: true, seconds: 60, cpu: {busy: .host_cpu.user, steal: 0}, disks: [],
        net: {rx_bytes_s: 0, tx_bytes_s: 0}}]})' hci.json >l/result.json
expect_rc 0 "$HCISWEEP" report n/result.json
mv n/report.md before.md && mv n/report.html before.html
cp l/result.json n/result.json
expect_rc 0 "$HCISWEEP" report n/result.json
grep -q 'Hosts' n/report.md && fail "the local lab got a Hosts section"
cmp -s before.md n/report.md || fail "the local lab's markdown changed: $(diff before.md n/report.md | head)"
cmp -s before.html n/report.html || fail "the local lab's html changed"
cp hci.json n/result.json
pass "local lab: no Hosts section, the same report"

# 2. compare: each run's busiest compute host per step, terminal, html and json.
expect_rc 0 "$HCISWEEP" compare c/result.json w/result.json --json cmp.json --html cmp.html
grep -qE '^ +12( +[0-9.]+){9} +h1 95% +h2 95%$' <<<"$OUT" ||
        fail "terminal table lacks the busiest hosts: $OUT"
grep -q 'busiest host' <<<"$OUT" || fail "no busiest host header: $OUT"
jq -e '[.groups[0].steps[] | .busiest_host | map(.name)] == [["h1","h2"],["h1","h2"],["h1","h2"],["h1","h2"]]
       and (.groups[0].steps[2].busiest_host | map(.cpu_busy_pct)) == [95, 95]' cmp.json >/dev/null ||
        fail "compare.json busiest_host: $(jq -c '[.groups[0].steps[].busiest_host]' cmp.json)"
grep -q '<th>A:two-layer busiest host</th>' cmp.html || fail "compare.html lacks the column"
grep -q '<td>h2 99%</td>' cmp.html || fail "compare.html lacks h2 99%"
expect_rc 0 "$HCISWEEP" compare hci.json c/result.json --json mix.json
jq -e '(.groups[0].steps[] | select(.load == 20) | .busiest_host) == [null, null] and
       (.groups[0].steps[] | select(.load == 12) | .busiest_host) == [null, {"name": "h1", "cpu_busy_pct": 95}]' \
        mix.json >/dev/null || fail "one cluster run: $(jq -c '[.groups[0].steps[].busiest_host]' mix.json)"
expect_rc 0 "$HCISWEEP" compare n/result.json l/result.json --json loc.json
grep -q 'busiest host' <<<"$OUT" && fail "local labs got a busiest host column: $OUT"
jq -e 'all(.groups[0].steps[]; has("busiest_host") | not)' loc.json >/dev/null || fail "local labs: busiest_host"
pass "compare: busiest host per step per run (h1 / h2), none for local labs"

# 3. analyze: per-host rows, one step per load; the busiest compute host is named
#    from the figures (swap them and the other host is named).
csv() { # HOT COLD: HOT saturates, COLD half idle, s1 the storage host
        printf 'load,throughput,host,role,cpu_busy_pct,steal_pct,disk_util_pct,latency_ms\n'
        printf '%s\n' "1,100,$1,compute,30,0,10,1" "1,100,$2,compute,20,0,10,1" "1,100,s1,storage,10,,20,1" \
                "2,200,$1,compute,60,1,12,1" "2,200,$2,compute,35,0,11,1" "2,200,s1,storage,20,,30,1" \
                "3,290,$2,compute,45,0,12,2" "3,290,s1,storage,25,,35,2" "3,290,$1,compute,92,2,13,2" \
                "4,300,$1,compute,99,2,14,3" "4,300,$2,compute,50,0,12,3" "4,300,s1,storage,28,,36,3"
}
for pair in "h1 h2" "h2 h1"; do
        set -- $pair
        csv "$1" "$2" >"hosts-$1.csv"
        expect_rc 0 "$HCISWEEP" analyze "hosts-$1.csv" --json "an-$1.json"
        grep -q "^hosts-$1.csv: tips at load 3 — limited by cpu.* on $1: 99% busy ($2 50%); storage hosts s1 28% busy; busiest disk s1/disk 36%$" <<<"$OUT" ||
                fail "analyze does not name $1: $OUT"
        jq -e --arg h "$1" '(.ramps[0].points | length) == 4 and all(.ramps[0].points[]; .busiest_host.name == $h)
               and ([.ramps[0].points[].busiest_host.cpu_busy_pct] == [30, 60, 92, 99])
               and ([.ramps[0].points[].latency_ms] == [1, 1, 2, 3])' "an-$1.json" >/dev/null ||
                fail "analysis json: $(jq -c '.ramps[0].points' "an-$1.json")"
done
pass "analyze: per-host CSV, 4 steps, names h1, then h2 when the figures swap"

# A host column alone (a server's name) keeps rows apart as before: repeats, no hosts.
printf 'load,throughput,host,cpu_busy_pct\n1,100,a,50\n1,110,a,50\n2,200,a,95\n2,205,a,96\n3,210,a,99\n' >srv.csv
expect_rc 0 "$HCISWEEP" analyze srv.csv --json srv.json
jq -e '(.ramps[0].points | length) == 3 and all(.ramps[0].points[]; has("busiest_host") | not)' srv.json \
        >/dev/null || fail "host without role: $(jq -c '.ramps[0].points' srv.json)"
grep -q ' on a' <<<"$OUT" && fail "a server column was read as a host: $OUT"
pass "a host column without role is not per-host"
