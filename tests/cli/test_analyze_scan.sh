#!/bin/bash
# test_analyze_scan.sh - `hcisweep analyze` of a client-count scan's CSV
# (load column clients, one row per host and count, roles client and
# storage): the verdict `block --client-counts` gives, naming the host and
# resource that stopped the scaling by scale's attribution rules; a linear
# scan; a bad role exits 2 naming the line.
. "$TESTLIB"
cd "$T" || exit 1

# 1. The recorded scan of tests/unit/test_clients_scan.c (test_json_storage_disks): storage
#    host s1's disk fills at 8 clients while the clients' CPUs idle.
{
        echo "clients,throughput,latency_ms,host,role,cpu_busy_pct,disk_util_pct"
        while read -r n x lat c s u; do
                for h in c1 c2 c3 c4; do
                        b=$c; [ $h = c2 ] || b=$((c / 2))
                        echo "$n,$x,$lat,$h,client,$b,"
                done
                echo "$n,$x,$lat,s1,storage,$s,$u"
        done <<'ROWS'
1 10000 0.100 20 10 25
2 19800 0.101 30 15 50
4 38000 0.105 40 20 80
8 41000 0.195 45 22 98
ROWS
} >disks.csv
expect_rc 0 "$HCISWEEP" analyze disks.csv --json disks.json
want="saturates at 4 clients: storage host s1's disks 98% busy (3.8x, latency +5%); 8 clients: efficiency 0.51, latency +95%"
echo "$OUT" | grep -qxF "scan: $want" || fail "scan verdict: $OUT"
jq -e --arg v "$want" '.scan.verdict == $v and .scan.clients == 4 and .scan.saturated
        and .scan.limited_by == "storage" and .ramps[0].load_name == "clients"' disks.json >/dev/null ||
        fail "scan JSON: $(jq -c .scan disks.json)"

# 2. A storage host whose CPU saturates before its disks; the clients' CPU busiest on c2.
cat >cpu.csv <<'CSV'
clients,throughput,latency_ms,host,role,cpu_busy_pct,disk_util_pct
1,10000,0.100,c1,client,20,
1,10000,0.100,s1,storage,30,20
2,19500,0.102,c1,client,30,
2,19500,0.102,s1,storage,60,30
4,21000,0.190,c1,client,40,
4,21000,0.190,s1,storage,97,35
CSV
expect_rc 0 "$HCISWEEP" analyze cpu.csv
echo "$OUT" | grep -qF "scan: saturates at 2 clients: storage host s1's CPU 97% busy (" ||
        fail "storage CPU: $OUT"

# 3. Linear, no host rows at all (the plain CSV with a clients column).
printf 'clients,throughput,latency_ms\n1,1000,1.00\n2,1990,1.01\n4,3960,1.02\n8,7900,1.03\n' >lin.csv
expect_rc 0 "$HCISWEEP" analyze lin.csv
echo "$OUT" | grep -qxF "scan: linear to 8 clients (7.9x, latency +3%)" || fail "linear: $OUT"

# 4. Bad input: a role that is neither, exit 2 naming the line.
printf 'clients,throughput,host,role,cpu_busy_pct\n1,10,a,client,5\n2,20,a,server,5\n' >bad.csv
expect_rc 2 "$HCISWEEP" analyze bad.csv
echo "$OUT" | grep -q "line 3: column role: 'server'" || fail "bad role: $OUT"
pass "scan CSV: storage disks, storage CPU, linear, bad role"
