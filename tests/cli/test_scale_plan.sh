#!/usr/bin/env bash
# The scale plan up front: --dry-run prints the plan and its worst case
# (runs x the longest run) and starts nothing, for a list, for a list with
# --target-ci (whose runs may take --warmup-time or half of --time to warm
# up, then --time) and for a search (--vms auto:MAX, at most as many steps
# as it says); bad --vms and --target-ci without --time exit 2 naming the
# option; a --metrics-source the local host cannot give exits 2 as `lab status` does.
. "$TESTLIB"
LAB=$T/lab
common=(--lab-dir "$LAB" --output-dir "$T/runs")

# 4 steps (1-8 doubles), 10 s warm-up + 60 s measured each: 4:40 at worst.
expect_rc 0 "$HCISWEEP" scale --vms 1-8 --warmup-time 10 --time 60 --dry-run "${common[@]}"
grep -q "^plan: 1, 2, 4, 8 VMs, 1 run(s) per step$" <<<"$OUT" || fail "plan: $OUT"
grep -q "^each run: warm-up 10 s, measured 60 s$" <<<"$OUT" || fail "run: $OUT"
grep -q "^worst case: 4 run(s) of at most 1:10 = 4:40," <<<"$OUT" || fail "worst case: $OUT"

# --target-ci without --warmup-time: the warm-up may take half of --time.
expect_rc 0 "$HCISWEEP" scale --vms 1,2 --repeat 2 --time 60 --target-ci 5 --dry-run "${common[@]}"
grep -q "at most 30 s), measured until the 95% CI of its mean is within 5% (at most 60 s)" \
        <<<"$OUT" || fail "CI run: $OUT"
grep -q "^worst case: 4 run(s) of at most 1:30 = 6:00," <<<"$OUT" || fail "worst case: $OUT"

expect_rc 0 "$HCISWEEP" scale --vms auto:8 --time 20 --warmup-time 10 --target-ci 5 --dry-run \
        "${common[@]}"
grep -q "^plan: search up to 8 VMs: .* neighbours are 1 VM(s) away; at most [0-9]* steps" \
        <<<"$OUT" || fail "search plan: $OUT"
steps=$(sed -n 's/.*at most \([0-9]*\) steps.*/\1/p' <<<"$OUT")
[ "$steps" -lt 8 ] || fail "a search of 8 VMs in $steps steps is no search"
grep -q "^worst case: $steps run(s) of at most 0:30 = " <<<"$OUT" || fail "worst case: $OUT"
expect_rc 0 "$HCISWEEP" scale --vms auto:8 --resolution 4 --dry-run "${common[@]}"
coarse=$(sed -n 's/.*at most \([0-9]*\) steps.*/\1/p' <<<"$OUT")
[ "$coarse" -lt "$steps" ] || fail "--resolution 4 takes $coarse steps, 1 takes $steps"
[ ! -e "$LAB" ] && [ ! -e "$T/runs" ] || fail "--dry-run started something: $(ls -R "$T")"
pass "dry runs: list, CI, search in $steps steps ($coarse at resolution 4), nothing started"

for bad in auto:0 auto:x auto8 2,1 0,1 1,65; do
        expect_rc 2 "$HCISWEEP" scale --vms "$bad" --dry-run "${common[@]}"
        grep -q -- "--vms" <<<"$OUT" || fail "--vms $bad: option not named: $OUT"
done
expect_rc 2 "$HCISWEEP" scale --vms 1 --time 0 --events 10 --target-ci 5 --dry-run "${common[@]}"
grep -q -- "--target-ci" <<<"$OUT" || fail "--target-ci without --time: $OUT"
pass "bad plans refused"

# A metrics source that cannot read the local backend's one host (this one,
# read from /proc) is refused by --dry-run as by the run and `lab status`: exit 2, the host named.
for src in node_exporter "prometheus --prometheus http://127.0.0.1:9090"; do
        # shellcheck disable=SC2086 # the source's words
        expect_rc 2 "$HCISWEEP" scale --vms 1 --dry-run --metrics-source $src "${common[@]}"
        grep -q "host local: --metrics-source ${src%% *}" <<<"$OUT" || fail "--metrics-source $src: $OUT"
done
pass "--dry-run refuses a metrics source the host cannot give"
