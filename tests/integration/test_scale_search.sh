# test_scale_search.sh - `scale --vms auto:4 --target-ci 5` on the local lab
# (real mariadbd "VMs" and tgtd): a searching plan that starts 1, 2, ends
# with a tipping point, "none within 4 VMs" or "undecided" (noise), measures each count once,
# no more steps than it announced, lists the steps in VM order, and records
# each step's steady state (the CI it reached, whether it met 5%); a step
# that missed it is flagged in the table and in ci_not_met. A search with a
# --latency-slo every step misses ends after its first step. Nothing of the
# lab is left running.
. "$TESTLIB"

ADDR=$(test_addr 0)
BASE=${ADDR%.*}
LAB=$T/lab
export HCISWEEP_INDEX=$T/index.sqlite
common=(--lab-dir "$LAB" --addr-base "$BASE" --base-port "$(test_port 0)"
        --target-port "$(test_port 1)")
on_exit kill_listed
on_exit "$HCISWEEP" lab down "${common[@]}"

expect_rc 0 "$HCISWEEP" scale --vms auto:4 --target-ci 5 --vm-memory 256M --lun-size 256M \
        "${common[@]}" --tables 2 --table-size 500 --threads 2 --warmup-time 10 --time 11 \
        --output-dir "$T/runs"
RUN=$OUT
RES=$(sed -n 's/^result: //p' <<<"$RUN")
[ -f "$RES" ] || fail "no result path printed: $RUN"
grep -Eq "^(hci: |  )(tips at [0-9]+ VMs|no tipping point within 4 VMs|undecided)" <<<"$RUN" ||
        fail "no verdict: $RUN"
steps=$(sed -n 's/.*at most \([0-9]*\) steps.*/\1/p' <<<"$RUN")
python3 - "$RES" "$steps" <<'PY' || fail "search result: $(jq -c '{search, vms: [.steps[].vms], tip: .tipping_point, ci_not_met}' "$RES")"
import json, sys
j = json.load(open(sys.argv[1]))
most = int(sys.argv[2])
order = j["search"]["order"]
vms = [s["vms"] for s in j["steps"]]
assert order[:2] == [1, 2], order
assert sorted(order) == vms and len(set(vms)) == len(vms), (order, vms)   # VM order, each once
assert len(vms) <= most == j["search"]["max_steps"] and max(vms) <= 4, (vms, most)
assert j["search"]["max"] == 4 and j["search"]["resolution"] == 1
tip = j["tipping_point"]["vms"]
assert tip is None or tip in vms, tip
missed = []
for s in j["steps"]:
    st = s["steady"]
    assert st["target_ci_pct"] == 5, st
    assert st["ci_pct"] is not None and st["ci_pct"] > 0, st
    assert st["met"] == (st["ci_pct"] <= 5), st
    assert 0 < st["measured_s"] <= 11.5 and 0 < st["warmup_s"] <= 10.5, st
    assert s["repeats"][0]["steady"] == st, s["repeats"]
    if not st["met"]:
        missed.append(s["vms"])
assert j["ci_not_met"] == missed, (j["ci_not_met"], missed)
PY
# a step that missed its CI is named once, after the verdict, with what it means and what to do
for n in $(jq -r '.ci_not_met[]' "$RES"); do
        grep -Eq "^steady state: .*did not meet --target-ci" <<<"$RUN" &&
                grep -q "^  What to do: .*--repeat" <<<"$RUN" ||
                fail "$n VMs missed its CI but is not said: $RUN"
done
[ "$(grep -c '^steady state: ' <<<"$RUN")" -le 1 ] || fail "said more than once: $RUN"
pass "$(jq -c '{order: .search.order, tip: .tipping_point.vms, ci: [.steps[] | {vms, ci: (.steady.ci_pct*10|round/10), met: .steady.met}]}' "$RES")"

# --latency-slo ends a search at the first step over it: 1 VM, no second count.
expect_rc 0 "$HCISWEEP" scale --vms auto:4 --latency-slo 0.001 --vm-memory 256M --lun-size 256M \
        "${common[@]}" --tables 1 --table-size 200 --threads 2 --warmup-time 1 --time 2 \
        --output-dir "$T/runs-slo"
RES=$(sed -n 's/^result: //p' <<<"$OUT")
jq -e '[.steps[].vms] == [1] and (.stop_reason | test("exceeds --latency-slo 0.00 ms"))' "$RES" \
        >/dev/null || fail "search past the SLO: $(jq -c '{vms: [.steps[].vms], stop_reason}' "$RES")"
grep -q "^stopped early: p99 .* at 1 VMs exceeds --latency-slo" <<<"$OUT" ||
        fail "no stop line: $OUT"
pass "--latency-slo ends a search: $(jq -r .stop_reason "$RES")"

[ -z "$(pgrep -f -- "$LAB/" || true)" ] || fail "left running: $(pgrep -af -- "$LAB/")"
pass "nothing of the lab left running"
