# test_lab_cgroup2.sh - the real local lab on cgroup v2, where this machine
# mounts cgroup2 with the cpu controller (at /sys/fs/cgroup, or elsewhere
# beside v1, given to hcisweep as HCISWEEP_CGROUP_ROOT); skipped (exit 77)
# otherwise. One VM with --datadir-on host: its mariadbd in the lab's v2
# group with cpu.max, memory.max and memory.swap.max as asked, its parents
# enabling the controllers, `lab status` reading them back, and `lab down`
# removing the group.
ROOT=/sys/fs/cgroup
[ -e $ROOT/cgroup.controllers ] || ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$ROOT" ] || ! grep -qw cpu "$ROOT/cgroup.controllers" 2>/dev/null; then
        echo "skipped: no cgroup2 cpu controller"
        exit 77
fi
. "$TESTLIB"
[ "$ROOT" = /sys/fs/cgroup ] || export HCISWEEP_CGROUP_ROOT=$ROOT

ADDR=$(test_addr 0)
BASE=${ADDR%.*}
PORT=$(test_port 0)
TPORT=$(test_port 1)
LAB=$T/lab

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
