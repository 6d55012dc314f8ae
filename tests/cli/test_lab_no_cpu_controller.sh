#!/usr/bin/env bash
# A CPU limit the host cannot give is refused before anything starts: with
# a cgroup root that is neither cgroup v2 with the cpu controller nor v1
# with a cpu mount (HCISWEEP_CGROUP_ROOT, for tests only), `lab up` and
# `scale` with --vm-cpus exit 3 with one line saying so and naming
# --vm-cpus 0, and leave no lab directory, state or run behind.
. "$TESTLIB"
LAB=$T/lab
mkdir "$T/nocg"
export HCISWEEP_CGROUP_ROOT=$T/nocg

# refused WHAT CMD...: CMD exits 3 with one line on stderr that says why and what to do.
refused() {
        local what=$1 lines rc=0
        shift
        "$@" >/dev/null 2>"$T/err" || rc=$?
        OUT=$(cat "$T/err")
        [ "$rc" -eq 3 ] || fail "$what: exit $rc, want 3: $OUT"
        grep -q "no cgroup CPU controller" <<<"$OUT" || fail "$what: no reason: $OUT"
        grep -q -- "--vm-cpus 0 to run the VMs without a CPU limit" <<<"$OUT" ||
                fail "$what: does not say what to do: $OUT"
        lines=$(grep -c . <<<"$OUT")
        [ "$lines" -eq 1 ] || fail "$what: $lines lines, want one: $OUT"
        [ ! -e "$LAB" ] || fail "$what: made $LAB"
}

refused "lab up" "$HCISWEEP" lab up --vms 1 --vm-cpus 0.5 --lab-dir "$LAB"
pass "lab up --vm-cpus 0.5 without a CPU controller: exit 3, one line, nothing made"

refused "lab up (default --vm-cpus)" "$HCISWEEP" lab up --vms 1 --lab-dir "$LAB"
pass "the default --vm-cpus 1 is a limit too"

refused "scale" "$HCISWEEP" scale --vms 1,2 --vm-cpus 0.5 --time 1 --lab-dir "$LAB" \
        --output-dir "$T/runs"
[ ! -e "$T/runs" ] || fail "scale: wrote $T/runs"
pass "scale --vm-cpus 0.5 without a CPU controller: exit 3, one line, nothing made"
