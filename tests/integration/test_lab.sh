# test_lab.sh - `hcisweep lab up|down|status` with the local backend and
# --datadir-on host (datadirs on this host's disk; test_lab_lun.sh has the
# default, datadirs on the LUNs): two real mariadbd "VMs" in cgroups plus a
# tgtd, on this test's own addresses and ports. Checks logins, the cgroup limits as the kernel sees them,
# idempotent up, reuse of prepared datadirs, two-layer CPU split, and that
# down leaves no process and no cgroup behind, even after a kill -9.
. "$TESTLIB"

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
cg_dir() { sed -n "s/^[0-9]*:$2:\(.*\)/\/sys\/fs\/cgroup\/$2\1/p" "/proc/$1/cgroup"; }

# --- usage errors -----------------------------------------------------------
expect_rc 2 "$HCISWEEP" lab sideways --lab-dir "$LAB"
expect_rc 2 "$HCISWEEP" lab up --topology ring --lab-dir "$LAB"
expect_rc 2 "$HCISWEEP" lab up --addr-base 10.0.0 --lab-dir "$LAB"
grep -q -- "--addr-base" <<<"$OUT" || fail "bad --addr-base not named: $OUT"
expect_rc 0 "$HCISWEEP" lab --help
grep -q -- "--vm-cpus" <<<"$OUT" || fail "--help does not list --vm-cpus"
expect_rc 3 lab status

# --- up: two VMs with limits -------------------------------------------------
expect_rc 0 lab up --vms 2 --vm-cpus 0.5 --vm-memory 256M --lun-size 16M
UP=$OUT
P1=$(field vm1 pid "$UP")
P2=$(field vm2 pid "$UP")
[ -n "$P1" ] && [ -n "$P2" ] || fail "no PIDs in: $UP"
grep -q "^vm1 addr=$BASE.1:$PORT pid=$P1 state=started" <<<"$UP" || fail "vm1 line: $UP"
[ "$(stat -c %a "$LAB/password")" = 600 ] || fail "password file is not 0600"
for i in 1 2; do
        [ "$(sql $i 'select 1')" = 1 ] || fail "vm$i does not answer select 1"
done
for pid in "$P1" "$P2"; do
        cpu=$(cg_dir "$pid" cpu)
        mem=$(cg_dir "$pid" memory)
        case $cpu in */hcisweep/*/vm[12]) ;; *) fail "pid $pid is in cpu cgroup '$cpu'" ;; esac
        quota=$(cat "$cpu/cpu.cfs_quota_us")
        period=$(cat "$cpu/cpu.cfs_period_us")
        [ $((quota * 2)) -eq "$period" ] || fail "cpu quota $quota / $period is not 0.5 CPU"
        [ "$(cat "$mem/memory.limit_in_bytes")" = 268435456 ] || fail "memory limit of $pid"
done
CG1_CPU=$(cg_dir "$P1" cpu)
CG1_MEM=$(cg_dir "$P1" memory)
pass "up: 2 VMs answer, 0.5 CPU and 256M applied (quota $quota of $period)"

expect_rc 0 lab status
ST=$OUT
grep -q "^vm1 addr=$BASE.1:$PORT pid=$P1 state=alive cpus=0.50 memory=268435456" <<<"$ST" ||
        fail "status vm1: $ST"
grep -q "^vm2 addr=$BASE.2:$PORT pid=$P2 state=alive" <<<"$ST" || fail "status vm2: $ST"
TGT=$(field target pid "$ST")
grep -q "^target portal=127.0.0.1:$TPORT pid=$TGT state=alive .* luns=2" <<<"$ST" ||
        fail "status target: $ST"
if command -v iscsi-readcapacity16 >/dev/null; then
        url=$(field vm2 lun "$ST")
        iscsi-readcapacity16 "$url" | grep -q "16777216" || fail "LUN $url is not 16M"
fi
pass "status shows both VMs with limits and the target"

# --- up again: idempotent ----------------------------------------------------
sql 1 "create table sbtest.keepme (id int primary key); insert into sbtest.keepme values (42)"
expect_rc 0 lab up --vms 2 --vm-cpus 0.5 --vm-memory 256M --lun-size 16M
grep -q "^vm1 .*pid=$P1 state=kept" <<<"$OUT" || fail "vm1 not kept: $OUT"
grep -q "^vm2 .*pid=$P2 state=kept" <<<"$OUT" || fail "vm2 not kept: $OUT"
pass "up again keeps the running VMs"

# --- down: nothing left --------------------------------------------------------
expect_rc 0 lab down
for pid in "$P1" "$P2"; do gone "$pid" mariadbd || fail "mariadbd $pid still runs"; done
gone "$TGT" tgtd || fail "tgtd $TGT still runs"
[ ! -d "$CG1_CPU" ] && [ ! -d "$CG1_MEM" ] || fail "cgroups left: $CG1_CPU $CG1_MEM"
expect_rc 3 lab status
pass "down stopped 2 mariadbd and tgtd, removed the cgroups"

# --- up after down: datadirs reused (two-layer when there are 2 CPUs) ---------
TOPO=hci
[ "$(nproc)" -ge 2 ] && TOPO=two-layer
expect_rc 0 lab up --vms 2 --vm-cpus 0.5 --vm-memory 256M --lun-size 16M --topology $TOPO
P1=$(field vm1 pid "$OUT")
[ "$(sql 1 'select id from sbtest.keepme')" = 42 ] || fail "table lost across down/up"
if [ $TOPO = two-layer ]; then
        expect_rc 0 lab status
        TGT=$(field target pid "$OUT")
        tcpus=$(cat "$(cg_dir "$TGT" cpuset)/cpuset.cpus")
        vcpus=$(cat "$(cg_dir "$P1" cpuset)/cpuset.cpus")
        last=$(($(nproc) - 1))
        [ "$tcpus" = "$last" ] || fail "tgtd cpuset '$tcpus', want $last"
        [ "$vcpus" != "$tcpus" ] && [ -n "$vcpus" ] || fail "VM cpuset '$vcpus'"
fi
pass "up after down reuses the datadir ($TOPO)"

# --- kill -9 of a VM, then down still cleans up --------------------------------
P2=$(field vm2 pid "$OUT")
CG2=$(cg_dir "$P2" memory)
kill -9 "$P1"
expect_rc 0 lab down
gone "$P2" mariadbd || fail "mariadbd $P2 still runs"
gone "$TGT" tgtd || fail "tgtd $TGT still runs"
[ ! -d "$CG2" ] || fail "cgroup $CG2 left"
pass "down after kill -9 of vm1 leaves nothing running"

expect_rc 0 lab down --purge
[ ! -d "$LAB/vm1" ] || fail "--purge kept $LAB/vm1"
pass "down --purge removes the datadirs"
