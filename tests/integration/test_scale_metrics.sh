#!/usr/bin/env bash
# scale --metrics-listen on the local lab (real mariadbd "VMs" and tgtd): while
# the plan 1,2 runs, the endpoint shows the VM count of the step in flight,
# live TPS and latency from the OLTP intervals, and once step 1 is done its
# summary with host CPU split by owner (VMs' cgroups, the storage service).
. "$TESTLIB"
ADDR=$(test_addr 0)
BASE=${ADDR%.*}
LAB=$T/lab
MADDR=$(test_addr 9):$(test_port 9)
common=(--lab-dir "$LAB" --addr-base "$BASE" --base-port "$(test_port 0)"
        --target-port "$(test_port 1)")
on_exit kill_listed
on_exit "$HCISWEEP" lab down "${common[@]}"

"$HCISWEEP" scale --vms 1,2 --vm-memory 256M --lun-size 256M "${common[@]}" --tables 1 \
        --table-size 500 --threads 2 --time 3 --output-dir "$T/runs" \
        --metrics-listen "$MADDR" >"$T/scale.out" 2>&1 &
SPID=$!
on_exit "kill $SPID"
# scrape until scale ends (bounded: the plan takes well under a minute here)
for i in $(seq 600); do
        kill -0 $SPID 2>/dev/null || break
        curl -sf "http://$MADDR/metrics" >"$T/s.$i" 2>/dev/null || rm -f "$T/s.$i"
        sleep 0.2 # the scrape interval: samples the endpoint while scale runs, waits for nothing
done
wait $SPID || fail "scale with --metrics-listen failed: $(tail -5 "$T/scale.out")"
cat "$T"/s.* >"$T/all" 2>/dev/null || fail "no scrape answered"
n=$(ls "$T"/s.* | wc -l)
grep -q '^hcisweep_vms 1$' "$T/all" || fail "never saw hcisweep_vms 1"
grep -q '^hcisweep_vms 2$' "$T/all" || fail "never saw hcisweep_vms 2"
awk '$1 == "hcisweep_tps" && $2 > 0 { ok = 1 } END { exit !ok }' "$T/all" || fail "no TPS > 0"
grep -q '^hcisweep_latency_seconds{quantile="0.99"} [0-9]' "$T/all" || fail "no latency quantile"
grep -q '^hcisweep_steps_done_total 1$' "$T/all" || fail "step 1 never reported done"
grep -q '^hcisweep_step_cpu_percent{owner="vms"} [0-9]' "$T/all" || fail "no VM CPU share"
grep -q '^hcisweep_step_cpu_percent{owner="storage"} [0-9]' "$T/all" || fail "no storage CPU share"
grep -q '^hcisweep_step_cpu_percent{owner="host"} [0-9]' "$T/all" || fail "no host CPU"
echo "# $n scrapes; step 1: $(grep -h '^hcisweep_step_cpu_percent' "$T/all" | sort -u | tail -3 | tr '\n' ' ')"
pass "scale endpoint: VM count 1 then 2, TPS, latency, step CPU by owner"
