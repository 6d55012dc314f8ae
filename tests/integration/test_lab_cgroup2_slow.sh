# test_lab_cgroup2_slow.sh - the local lab on a real cgroup v2 kernel. Where this
# machine mounts cgroup2 with the cpu controller (at /sys/fs/cgroup, or
# elsewhere beside v1, given to hcisweep as HCISWEEP_CGROUP_ROOT), the lab runs
# here: one VM with --datadir-on host, its mariadbd in the lab's v2 group with
# cpu.max, memory.max and memory.swap.max as asked, its parents enabling the
# controllers, `lab status` reading them back, `lab down` removing the group.
# Otherwise (a v1 host, as the CI machines are) it boots the qemu backend's
# Debian 12 guest under TCG (systemd mounts the unified hierarchy there) and
# runs the lab inside it with this build's binary (the backend copies it in):
# `lab up --datadir-on host --vms 2 --vm-cpus 0.5`; each VM's cpu.max is
# "50000 100000"; an `oltp run` against each VM throttles its group (cpu.stat);
# a `scale` step with the drivers in the VMs' groups saturates them, and its
# vm_quota (cpu_source "cgroup", nr_throttled) and cpu_by_owner come from the
# v2 files; `lab down` removes every group. Skipped (exit 77) only where no
# guest can be built or booted (no QEMU, socat or debootstrap, not root). Slow
# tier (tests/CMakeLists.txt): the guest boot and two MariaDB installs under TCG
# take a few minutes, the first image build several more.
. "$TESTLIB"

ROOT=/sys/fs/cgroup
[ -e $ROOT/cgroup.controllers ] || ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
. "$SRC/tests/qemu.sh"

# --- on this host, where it has cgroup v2 with cpu ------------------------------------
host_v2() {
        [ "$ROOT" = /sys/fs/cgroup ] || export HCISWEEP_CGROUP_ROOT=$ROOT
        lab() { "$HCISWEEP" lab "$@" --lab-dir "$LAB" --addr-base "$BASE" --base-port "$PORT" \
                --target-port "$TPORT" --datadir-on host; }
        . "$SRC/tests/integration/lab.sh"
        on_exit kill_listed
        on_exit lab down
        v2_dir() { echo "$ROOT$(sed -n 's/^0::\(.*\)/\1/p' "/proc/$1/cgroup")"; }

        expect_rc 0 lab up --vms 1 --vm-cpus 0.5 --vm-memory 256M --lun-size 16M
        P1=$(field vm1 pid "$OUT")
        [ -n "$P1" ] || fail "no PID in: $OUT"
        [ "$(sql 1 'select 1')" = 1 ] || fail "vm1 does not answer select 1"
        CG=$(v2_dir "$P1")
        case $CG in */hcisweep/*/vm1) ;; *) fail "mariadbd $P1 is in cgroup '$CG'" ;; esac
        read -r quota period <"$CG/cpu.max"
        [ $((quota * 2)) -eq "$period" ] || fail "cpu.max '$quota $period' is not 0.5 CPU"
        [ "$(cat "$CG/memory.max")" = 268435456 ] || fail "memory.max $(cat "$CG/memory.max")"
        if [ -e "$CG/memory.swap.max" ]; then
                [ "$(cat "$CG/memory.swap.max")" = 0 ] || fail "memory.swap.max $(cat "$CG/memory.swap.max")"
        fi
        for parent in "${CG%/*}" "${CG%/*/*}"; do
                grep -qw cpu "$parent/cgroup.subtree_control" || fail "$parent does not enable cpu"
                [ -z "$(cat "$parent/cgroup.procs")" ] || fail "$parent holds processes"
        done
        grep -q "usage_usec" "$CG/cpu.stat" || fail "no usage_usec in $CG/cpu.stat"
        pass "up: vm1 in $CG, cpu.max $quota $period, memory.max 256M"

        expect_rc 0 lab status
        grep -q "^vm1 .*pid=$P1 state=alive cpus=0.50 memory=268435456" <<<"$OUT" || fail "status: $OUT"
        pass "status reads the v2 limits back"

        expect_rc 0 lab down
        gone "$P1" mariadbd || fail "mariadbd $P1 still runs"
        [ ! -d "$CG" ] || fail "cgroup $CG left"
        pass "down removed the v2 group"
}

# --- inside the guest: bash -c GUEST_BODY, run by the QEMU guest agent ------------------
# Self-contained (the guest has no jq and no tests/): it prints what it saw, one
# "FAIL: ..." line and exit 1 on the first thing wrong, and the scale result between
# markers for the host to read.
GUEST_BODY='
set -u
H=/srv/hcisweep/bin/hcisweep
L=/root/cg2lab
R=/sys/fs/cgroup
# the tgt package starts a tgtd of its own on 3260 in the guest: the lab takes another port
C=(--lab-dir $L --datadir-on host --vm-cpus 0.5 --vm-memory 384M --target-port 13260)
fail() { echo "FAIL: $*"; "$H" lab down --lab-dir $L >/dev/null 2>&1; exit 1; }
stat_of() { awk -v k="$2" "\$1 == k { print \$2 }" "$1/cpu.stat"; }
[ "$(stat -fc %T $R)" = cgroup2fs ] || fail "$R is $(stat -fc %T $R), not cgroup2fs"
echo "guest: kernel $(uname -r), $R cgroup2fs, controllers: $(cat $R/cgroup.controllers)"
echo "guest: root subtree_control before: $(cat $R/cgroup.subtree_control)"
# mariadb-install-db resolves the host name; the image has no /etc/hosts of its own
grep -qw localhost /etc/hosts 2>/dev/null || echo "127.0.0.1 localhost $(hostname)" >>/etc/hosts
t0=$(date +%s)
UP=$("$H" lab up --vms 2 "${C[@]}" 2>&1) || {
        for f in $L/vm*/install.log; do [ -e $f ] && echo "--- $f" && tail -n 25 $f; done
        dmesg | grep -i -m5 "oom\|killed process"
        fail "lab up: $UP"
}
echo "guest: lab up in $(($(date +%s) - t0)) s"
echo "$UP" | grep "^vm"
CGS=()
for i in 1 2; do
        pid=$(sed -n "s/^vm$i .* pid=\([0-9]*\).*/\1/p" <<<"$UP")
        addr=$(sed -n "s/^vm$i addr=\([^ ]*\).*/\1/p" <<<"$UP")
        [ -n "$pid" ] && [ -n "$addr" ] || fail "no pid or addr of vm$i in: $UP"
        cg=$R$(sed -n "s/^0::\(.*\)/\1/p" /proc/$pid/cgroup)
        case $cg in */hcisweep/*/vm$i) ;; *) fail "vm$i mariadbd $pid is in cgroup $cg" ;; esac
        CGS+=("$cg")
        echo "vm$i: cgroup ${cg#$R} cpu.max $(cat $cg/cpu.max) memory.max $(cat $cg/memory.max)"
        [ "$(cat $cg/cpu.max)" = "50000 100000" ] || fail "vm$i cpu.max $(cat $cg/cpu.max)"
        db=(--mysql-host ${addr%:*} --mysql-port ${addr##*:} --mysql-user root
                --mysql-password-file $L/password --mysql-db sbtest --tables 1 --table-size 1000)
        out=$("$H" oltp prepare "${db[@]}" 2>&1) || fail "vm$i oltp prepare: $out"
        p0=$(stat_of $cg nr_periods) n0=$(stat_of $cg nr_throttled) u0=$(stat_of $cg throttled_usec)
        out=$("$H" oltp run "${db[@]}" --workload oltp_read_only --threads 4 --time 5 \
                --output-dir /root/runs 2>&1) || fail "vm$i oltp run: $out"
        p1=$(stat_of $cg nr_periods) n1=$(stat_of $cg nr_throttled) u1=$(stat_of $cg throttled_usec)
        tps=$(sed -n "s/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p" <<<"$out" | head -1)
        echo "vm$i: oltp run ${tps:-?} tps; cpu.stat over it: nr_periods +$((p1 - p0)) nr_throttled +$((n1 - n0)) throttled_usec +$((u1 - u0))"
        [ $((n1 - n0)) -gt 0 ] || fail "vm$i was never throttled under 4 threads: $(cat $cg/cpu.stat)"
done
out=$("$H" lab status --lab-dir $L 2>&1) || fail "lab status: $out"
echo "$out" | grep "^vm"
grep -q "^vm2 .*state=alive cpus=0.50" <<<"$out" || fail "status does not read cpus=0.50 back: $out"
t0=$(date +%s)
out=$("$H" scale --vms 2 "${C[@]}" --tables 1 --table-size 1000 --threads 4 --warmup-time 1 \
        --time 5 --workload oltp_read_only --driver-placement vm --keep-lab \
        --output-dir /root/runs 2>&1) || fail "scale: $out"
echo "guest: scale step in $(($(date +%s) - t0)) s"
res=$(sed -n "s/^result: \([^ ]*\).*/\1/p" <<<"$out")
[ -f "$res" ] || fail "no scale result: $out"
echo "--- scale result ---"
cat "$res"
echo
echo "--- end ---"
out=$("$H" lab down --lab-dir $L 2>&1) || fail "lab down: $out"
for cg in "${CGS[@]}" "${CGS[0]%/*}"; do
        [ ! -d "$cg" ] || fail "lab down left $cg"
done
left=$(ls $R/hcisweep 2>/dev/null)
[ -z "$left" ] || fail "lab down left groups under $R/hcisweep: $left"
echo "guest: lab down removed ${CGS[*]#$R} and their lab group"
echo "guest: done"
'

# guest_bash SCRIPT: run it through the guest agent's socket (tests/qemu.sh: nothing
# else of this test speaks to it meanwhile), its stdout+stderr in GUEST_OUT, its exit
# code in GUEST_RC.
AGENT_WAIT=60
guest_bash() {
        guest_exec "$(jq -cn --arg s "$1" '{path: "/bin/bash", arg: ["-c", "exec 2>&1; " + $s],
                "capture-output": true}')" 600
        GUEST_RC=$(jq -r '.return.exitcode // "none"' <<<"$REPLY_LINE")
        GUEST_OUT=$(jq -r '.return["out-data"] // ""' <<<"$REPLY_LINE" | base64 -d)
}

in_guest() {
        local t0 tool
        [ "$(id -u)" -eq 0 ] || { echo "skipped: no cgroup2 cpu here, and a guest needs root"; exit 77; }
        for tool in qemu-system-x86_64 socat debootstrap jq; do
                command -v $tool >/dev/null ||
                        { echo "skipped: no cgroup2 cpu here, and no $tool for a guest"; exit 77; }
        done
        guest_image skip
        guest_pin
        common=("${QEMU_LAB[@]}")
        on_exit kill_listed
        on_exit "$HCISWEEP" lab down "${common[@]}"

        t0=$(date +%s)
        expect_rc 0 "$HCISWEEP" lab up --vms 1 --vm-cpus 2 --vm-memory 2048M --lun-size 512M \
                "${common[@]}"
        echo "# guest boot until its MariaDB answered: $(($(date +%s) - t0)) s"
        t0=$(date +%s)
        guest_bash "$GUEST_BODY"
        echo "# inside the guest: $(($(date +%s) - t0)) s"
        sed '/^--- scale result ---$/,/^--- end ---$/d; s/^/# /' <<<"$GUEST_OUT"
        [ "$GUEST_RC" = 0 ] || fail "in the guest (exit $GUEST_RC): $(grep FAIL <<<"$GUEST_OUT")"
        grep -q "^guest: done" <<<"$GUEST_OUT" || fail "the guest script did not finish"
        [ "$(grep -c '^vm[12]: cgroup .* cpu.max 50000 100000 ' <<<"$GUEST_OUT")" = 2 ] ||
                fail "cpu.max is not 50000 100000 for both VMs"
        pass "guest: cpu.max 50000 100000 for vm1 and vm2; an oltp run throttled each (cpu.stat)"

        sed -n '/^--- scale result ---$/,/^--- end ---$/p' <<<"$GUEST_OUT" | sed '1d;$d' >"$T/scale.json"
        jq -e '.steps[0] | .vms == 2 and .state == "ok"' "$T/scale.json" >/dev/null ||
                fail "scale step: $(jq -c '.steps[0] | {vms, state, error}' "$T/scale.json")"
        jq -e '.steps[0].drivers | length == 2 and all(.[]; .where == "cgroup" and .exit == 0)' \
                "$T/scale.json" >/dev/null ||
                fail "drivers: $(jq -c '.steps[0].drivers' "$T/scale.json")"
        jq -e '.steps[0].vm_quota | .cpus == 0.5 and .cpu_source == "cgroup" and .nr_periods > 0
                and .nr_throttled > 0 and .throttled_usec > 0 and .used_pct > 0' \
                "$T/scale.json" >/dev/null ||
                fail "vm_quota: $(jq -c '.steps[0].vm_quota' "$T/scale.json")"
        jq -e '.steps[0].cpu_by_owner | .vms > 0 and .other >= 0' "$T/scale.json" >/dev/null ||
                fail "cpu_by_owner: $(jq -c '.steps[0].cpu_by_owner' "$T/scale.json")"
        echo "# scale step: tps $(jq '.steps[0].totals.tps' "$T/scale.json")," \
                "vm_quota $(jq -c '.steps[0].vm_quota' "$T/scale.json")," \
                "cpu_by_owner $(jq -c '.steps[0].cpu_by_owner' "$T/scale.json")"
        pass "guest: the step's vm_quota and cpu_by_owner read the v2 groups; lab down removed them"

        expect_rc 0 "$HCISWEEP" lab down "${common[@]}"
}

if [ -n "$ROOT" ] && grep -qw cpu "$ROOT/cgroup.controllers" 2>/dev/null; then
        host_v2
else
        in_guest
fi
