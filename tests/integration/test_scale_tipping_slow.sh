#!/bin/bash
# test_scale_tipping_slow.sh - a real `hcisweep scale` on the local lab whose
# plan runs past the host's CPU: VMs of half a CPU each, 1, 2 and 8 of them
# on this 2-core host (quotas of 0.5, 1 and 4 CPUs, plus the storage service
# and the load generator). TPS doubles from 1 to 2 VMs, where each VM's quota
# is the limit and the host still has room, and stays flat from 2 to 8 once
# the host is full, so the tipping point must not be the first step and must
# name a resource; `analyze` on the result agrees with it, and the steps
# carry cpu_by_owner and the VMs' throttling from their cgroups' cpu.stat.
# The plan's steps are far apart on purpose: the rule's efficiency is a
# log-log slope, so the noise band of 2 -> 8 VMs is divided by ln 4 and
# stays clear of the 20% threshold even on a busy host (with 4 -> 6 VMs of
# a quarter CPU, ln 1.5, a CI run with 3% steal came out undecided).
. "$TESTLIB"

local_lab

expect_rc 0 "$HCISWEEP" scale --vms 1,2,8 --vm-cpus 0.5 --vm-memory 256M --lun-size 256M \
        "${common[@]}" --tables 1 --table-size 2000 --threads 4 --time 10 --warmup-time 1 \
        --output-dir "$T/runs"
echo "$OUT"
RES=$(sed -n 's/^result: //p' <<<"$OUT")
[ -f "$RES" ] || fail "no result: $OUT"
# On a shared host the answer can honestly differ: when the monitor marked
# the run untrusted (CPU steal over 20%: another tenant took the CPU), or when
# processes outside the lab took over a quarter of the host at some step
# (cpu_by_owner.other: another job on the same machine), the noise bands
# widen until the rule answers "undecided", or the host is full of others'
# work from the first step on and the curve tips there. Either answer must
# then say why (an undecided one names the noise band; a tipping point names
# a resource), and an untrusted run's verdict must say so on its first line.
# The same holds when the host was already full at 2 VMs (85% busy or more):
# the load generator's CPU grows with TPS, and under a sanitizer build it took
# 30% of the host there (CI: 58% busy at 1 VM, 90% at 2), so TPS cannot
# double and the curve honestly tips at 1 or 2 VMs. And so it does when the run's own
# measurement is that noisy: a step whose TPS band (its 95% interval over the intervals) is
# wider than +-10% leaves the 2 -> 8 efficiency's band wider than the room below the 20%
# threshold (CI: +-17.6% at 2 VMs and +-19.3% at 8, 84% busy at 2, no steal: "undecided").
noisy=0
if jq -e '.monitor.summary.untrusted == true or ([.steps[].cpu_by_owner.other] | max) > 25
          or .steps[1].host_cpu.busy >= 85
          or any(.steps[]; (.tps_band.hi // 0) - (.tps_band.lo // 0) > 0.2 * .totals.tps)' "$RES" >/dev/null; then
        jq -e '(if .tipping_point.vms == null
                then .tipping_point.reason | startswith("undecided") and contains("noise band")
                else .tipping_point.limited_by != "none" end)
                and (.monitor.summary.untrusted != true
                     or (.tipping_point.verdict | startswith("hci: UNTRUSTED run")))' "$RES" >/dev/null ||
                fail "on a shared host, an answer that does not say why: $(jq -c .tipping_point "$RES")"
        noisy=1
fi
# Whatever the branch, the answer rests on this run: the steps ran in the plan's
# order, and the reason's "throughput went A ... -> B" are the TPS measured at two
# of them (as printed, to 0.1), the earlier one first.
cites='def near($x): [.steps | to_entries[] | select((.value.totals.tps - $x
                | if . < 0 then -. else . end) <= 0.051) | .key];
        ([.steps[].vms] | . == sort and . == unique and .[0] == 1 and all(. == 1 or . == 2 or . == 8))
        and ((.tipping_point.reason | capture("throughput went (?<a>[0-9.]+)( \\[[0-9.]+\\.\\.[0-9.]+\\])? -> (?<b>[0-9.]+)")) as $m
             | near($m.a | tonumber) as $ia | near($m.b | tonumber) as $ib
             | ($ia | length) > 0 and ($ib | length) > 0 and ($ia | min) < ($ib | max))'
jq -e "$cites" "$RES" >/dev/null ||
        fail "steps or reason not this run's: $(jq -c '{vms: [.steps[].vms], tps: [.steps[].totals.tps], reason: .tipping_point.reason}' "$RES")"
[ $noisy = 1 ] || jq -e '.tipping_point.vms != null and .tipping_point.vms > .steps[0].vms
        and .tipping_point.limited_by != "none"' "$RES" >/dev/null ||
        fail "tipping point: $(jq -c '.tipping_point | {vms, limited_by, reason}' "$RES")"
jq -e 'all(.steps[]; .cpu_by_owner.vms > 0 and .vm_quota.cpus == 0.5)' "$RES" >/dev/null ||
        fail "cpu_by_owner: $(jq -c '[.steps[] | .cpu_by_owner]' "$RES")"
# A half-CPU quota under four busy connections is throttled: cpu.stat says so.
# On a host others fill (CI: 93% theirs) the VM never reaches its quota, so
# there it is only read from the cgroup, period by period.
[ $noisy = 1 ] && quota='.cpu_source == "cgroup" and .nr_periods > 0' ||
        quota='.cpu_source == "cgroup" and .nr_throttled > 0 and .throttled_time_pct > 0'
jq -e ".steps[0].vm_quota | $quota" "$RES" >/dev/null ||
        fail "VM quota throttling: $(jq -c '[.steps[] | .vm_quota]' "$RES")"
expect_rc 0 "$HCISWEEP" analyze "$RES" --json "$T/an.json"
jq -e --slurpfile r "$RES" '.tipping_point.load == $r[0].tipping_point.vms and
        .tipping_point.reason == $r[0].tipping_point.reason and
        .tipping_point.usl == $r[0].tipping_point.usl' "$T/an.json" >/dev/null ||
        fail "analyze disagrees: $(jq -c .tipping_point "$T/an.json")"
jq -e '.tipping_point.vms != null' "$RES" >/dev/null || noisy=2 # undecided: no tips line
[ $noisy = 2 ] ||
        grep -Eq "^(hci: |  )tips at .* limited by $(jq -r .tipping_point.limited_by "$T/an.json")" \
                <<<"$OUT" || fail "analyze's verdict: $OUT"
[ $noisy = 0 ] || {
        pass "on a shared or full host (busy $(jq -c '[.steps[].host_cpu.busy | floor]' "$RES")%, CPU steal up to $(jq .monitor.summary.steal_max "$RES")%, other processes up to $(jq '[.steps[].cpu_by_owner.other] | max' "$RES")%, TPS bands +-$(jq -c '[.steps[] | ((.tps_band.hi // 0) - (.tps_band.lo // 0)) / 2 / .totals.tps * 100 | floor]' "$RES")%), saying why: $(jq -r .tipping_point.reason "$RES" | cut -c1-300)"
        exit 0
}
pass "tipped at $(jq .tipping_point.vms "$RES") VMs, limited by $(jq -r .tipping_point.limited_by "$RES"): $(jq -c '[.steps[] | [.vms, (.totals.tps|floor), (.host_cpu.busy|floor)]]' "$RES")"
