#!/usr/bin/env bash
# test_scale_prom_stall.sh - a Prometheus that stalls on one instance, at
# scale level: a static inventory of one real mariadbd on
# compute host h1, a second compute host h2 and a storage host s1, read
# through --metrics-source prometheus from the fake Prometheus
# (fake_exporter.py, BASE /prom/stallon-INSTANCE), which answers h1's and
# s1's queries (a host 40% busy) and holds h2's for 30 s, past the source's
# HTTP time-out. Host reading runs off the load threads, so each 6 s step
# keeps its planned length (measured against planned with a tolerance of
# 3 s, which even one 5 s time-out inside the load would break), no 4 s of
# its intervals go without a transaction, h2's figures are null and marked (missed
# windows, the step degraded naming it) and h1's and s1's are there.
. "$TESTLIB"
PIDS=()
on_exit 'for p in "${PIDS[@]}"; do kill "$p"; done'
db_start 1 stall-pw-39
printf '%s\n' "$DB_PW" >"$T/db.pw"
DB=$DB_HOSTS
A=$(test_addr 5) P=$(test_port 5)
python3 "$SRC/tests/integration/fake_exporter.py" "$A" "$P" "$T/prom.log" 2>"$T/prom.err" &
PIDS+=($!)
wait_port "$A" "$P"
I1=$(test_addr 6):9100 I2=$(test_addr 7):9100 I3=$(test_addr 8):9100
cat >"$T/inv.ini" <<INI
[host h1]
role = compute
metrics = http://$I1/metrics

[host h2]
role = compute
metrics = http://$I2/metrics

[host s1]
role = storage
metrics = http://$I3/metrics

[db1]
host = ${DB%:*}
port = ${DB##*:}
password_file = $T/db.pw
hypervisor = h1
INI
STEP=6
expect_rc 0 timeout -k 5 300 "$HCISWEEP" scale --backend static --inventory "$T/inv.ini" --vms 1 \
        --metrics-source prometheus --prometheus "http://$A:$P/prom/stallon-$I2" \
        --workload oltp_point_select --tables 1 --table-size 1000 --threads 2 --time $STEP \
        --report-interval 1 --output-dir "$T/runs"
grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' <<<"$OUT" && fail "sanitizer: $OUT"
grep -q "instance=\"$I2\"" "$T/prom.log" 2>/dev/null ||
        python3 -c 'import sys, urllib.parse; sys.exit(not any(sys.argv[2] in urllib.parse.unquote(l) for l in open(sys.argv[1])))' \
                "$T/prom.log" "instance=\"$I2\"" || fail "h2's instance was never queried: $(head -3 "$T/prom.log")"
RES=$(sed -n 's/^result: //p' <<<"$OUT")
[ -f "$RES" ] || fail "no result with a stalled instance: $OUT"
jq -e '.steps[0].state == "degraded" and (.steps[0].error | contains("h2 (prometheus)"))
        and (.steps[0].cluster.hosts[] | select(.name == "h2") | .windows_missed >= 1 and .cpu == null)
        and (.steps[0].cluster.hosts[] | select(.name == "h1") | .cpu.busy > 39.5 and .cpu.busy < 40.5)
        and (.steps[0].cluster.hosts[] | select(.name == "s1") | .cpu.busy > 39.5 and .cpu.busy < 40.5)' \
        "$RES" >/dev/null || fail "the stalled instance's step: $(jq -c '[.steps[] | {state, error, cluster}]' "$RES")"
# planned against measured length: 3 s of slack on a 6 s step (a loaded 2-CPU machine),
# where one stall of 5 s inside the load, let alone one per window end, would not fit
jq -e --argjson s $STEP 'all(.steps[].repeats[]; (.seconds - $s | fabs) < 3)' "$RES" >/dev/null ||
        fail "a step left its planned $STEP s: $(jq -c '[.steps[].repeats[].seconds]' "$RES")"
series_inline "$RES" >"$T/inline.json" || fail "series files of $RES"
# no stretch of 4 s without a transaction (a 5 s time-out inside the load would leave one;
# a loaded machine leaves short ones)
python3 - "$T/inline.json" $STEP <<'PY' || fail "the stall held up the load: $(jq -c '.steps[0].intervals' "$T/inline.json")"
import json, sys
iv = json.load(open(sys.argv[1]))["steps"][0]["intervals"]
assert iv and iv[-1]["t"] >= int(sys.argv[2]) - 1, "the intervals do not cover the step"
idle, prev = 0.0, 0.0
for r in iv:
    idle = idle + (r["t"] - prev) if r["tps"] == 0 else 0.0
    prev = r["t"]
    assert idle < 4, "%.1f s without a transaction at t=%g" % (idle, r["t"])
PY
pass "a Prometheus stalled on h2's instance: steps of $(jq -c '[.steps[].repeats[].seconds]' "$RES") s for $STEP planned," \
        "h2 null and missed, h1 and s1 at $(jq -r '[.steps[0].cluster.hosts[] | select(.name != "h2") | .cpu.busy | floor] | join("/")' "$RES")% busy"
