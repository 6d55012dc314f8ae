#!/usr/bin/env bash
# test_lab_lun.sh - the local lab with every datadir on its iSCSI LUN (the
# default): tgtd LUN <- qemu-storage-daemon (FUSE export, in the VM's
# cgroups) <- buffered loop device <- ext4 <- datadir. Checks the chain as
# the kernel shows it, that the rows are in the LUN's backing file, the
# chain's crc32c check, data kept over down+up and over a crash of the VM
# (SIGKILL of mariadbd and its initiator), that down leaves nothing even
# after kill -9 of tgtd, one backend per lab directory, and exit 3 where
# the chain cannot be built.
. "$TESTLIB"

ADDR=$(test_addr 0)
BASE=${ADDR%.*}
PORT=$(test_port 0)
TPORT=$(test_port 1)
LAB=$T/lab
LUN=256M

lab() { "$HCISWEEP" lab "$@" --lab-dir "$LAB" --addr-base "$BASE" --base-port "$PORT" \
        --target-port "$TPORT"; }
. "$SRC/tests/integration/lab.sh"
# Last resort if down itself fails: what the lab mounted and attached.
unmount_all() {
        local m l
        for m in $(findmnt -rn -o TARGET | grep "^$LAB/" | sort -r); do umount -l "$m"; done
        for l in $(losetup -n -O NAME,BACK-FILE | awk -v d="$LAB/" 'index($2, d) == 1 {print $1}'); do
                losetup -d "$l"
        done
}
on_exit unmount_all
on_exit kill_listed
on_exit lab down

cg_of() { sed -n "s/^[0-9]*:$2:\(.*\)/\1/p" "/proc/$1/cgroup"; }
# Nothing of the lab is left: no mount, loop device, process or cgroup.
nothing_left() {
        local what=$1 pid
        ! findmnt -rn -o TARGET | grep -q "^$LAB/" || fail "$what: mounts left: $(findmnt -rn | grep "$LAB/")"
        ! losetup -n -O BACK-FILE | grep -q "^$LAB/" || fail "$what: loop devices left: $(losetup -l)"
        for pid in $PIDS; do
                gone "$pid" mariadbd && gone "$pid" qemu-storage-da && gone "$pid" tgtd ||
                        fail "$what: process $pid still runs"
        done
        [ ! -e "$LAB/state" ] || fail "$what: state file left"
        ! ls -d /sys/fs/cgroup/*/hcisweep/"$LABNAME" /sys/fs/cgroup/*/*/*/hcisweep/"$LABNAME" \
                2>/dev/null | grep -q . || fail "$what: cgroups of $LABNAME left"
}

# --- up: the chain per VM ------------------------------------------------------
expect_rc 0 lab up --vms 2 --vm-memory 256M --lun-size $LUN
UP=$OUT
LABNAME=$(sed -n 's/^name = //p' "$LAB/state")
TGT=$(field target pid "$UP")
PIDS=$TGT
for i in 1 2; do
        grep -q "^vm$i .* datadir_on=lun disk=loop[0-9]* initiator=[0-9]* mount=$LAB/vm$i/disk" \
                <<<"$UP" || fail "vm$i line: $UP"
        pid=$(field vm$i pid "$UP")
        ini=$(field vm$i initiator "$UP")
        PIDS="$PIDS $pid $ini"
        read -r src fstype < <(findmnt -n -o SOURCE,FSTYPE --mountpoint "$LAB/vm$i/disk")
        [ "$fstype" = ext4 ] && [[ $src == /dev/loop* ]] || fail "vm$i disk is '$src $fstype'"
        read -r back dio < <(losetup -n -O BACK-FILE,DIO "$src")
        [ "$back" = "$LAB/vm$i/lun.fuse" ] || fail "$src is backed by '$back'"
        [ "$dio" = 0 ] || fail "$src uses direct I/O"
        [ "$(findmnt -n -o FSTYPE --mountpoint "$LAB/vm$i/lun.fuse")" = fuse ] ||
                fail "$LAB/vm$i/lun.fuse is not a FUSE export"
        [ "$(cat /proc/"$ini"/comm)" = qemu-storage-da ] || fail "initiator $ini is not qsd"
        tr '\0' ' ' <"/proc/$ini/cmdline" | grep -q "driver=iscsi.*lun=$i,.*mountpoint=$LAB/vm$i/lun.fuse" ||
                fail "initiator $ini does not export LUN $i: $(tr '\0' ' ' <"/proc/$ini/cmdline")"
        for c in cpu memory; do
                [ -n "$(cg_of "$ini" $c)" ] && [ "$(cg_of "$ini" $c)" = "$(cg_of "$pid" $c)" ] &&
                        [[ $(cg_of "$ini" $c) == */hcisweep/$LABNAME/vm$i ]] ||
                        fail "initiator $ini in $c cgroup '$(cg_of "$ini" $c)', mariadbd in '$(cg_of "$pid" $c)'"
        done
        [ "$(sql $i 'select @@datadir')" = "$LAB/vm$i/disk/data/" ] || fail "vm$i datadir"
        for j in loop lun; do
                jq -e '.points | length > 0 and all(.verify.checked > 0 and .verify.mismatches == 0)' \
                        "$LAB/vm$i/chain-verify-$j.json" >/dev/null || fail "vm$i chain check ($j)"
        done
done
pass "up: each datadir on ext4 on a buffered loop of its VM's FUSE export, initiator in the VM's cgroups, chain checked"

# --- the rows are on the LUN ---------------------------------------------------------
expect_rc 0 "$HCISWEEP" oltp prepare --mysql-host "$BASE.1,$BASE.2" --mysql-port "$PORT" \
        --mysql-user root --mysql-password-file "$LAB/password" --tables 1 --table-size 1000
for i in 1 2; do
        c=$(sql $i 'select c from sbtest.sbtest1 where id = 7')
        [ ${#c} -gt 100 ] || fail "vm$i row 7: '$c'"
        grep -a -F -q -- "$c" "$LAB/vm$i/lun.img" || fail "vm$i row 7 is not in its LUN file"
done
pass "sbtest rows found in each VM's LUN backing file"

# --- a block load never writes where a filesystem is ----------------------------------
url=$(field vm1 lun "$UP")
lurl=$(field vm1 load_lun "$UP")
[[ $lurl == *".load/1" ]] || fail "no block-load LUN for vm1: $UP"
for t in "--target $url" "--filename $(findmnt -n -o SOURCE --mountpoint "$LAB/vm1/disk")" \
        "--filename $LAB/vm1/lun.fuse" "--filename $LAB/vm1/lun.img"; do
        # shellcheck disable=SC2086
        expect_rc 2 "$HCISWEEP" block $t --rw randwrite --size 1m --runtime 1 --force --json "$T/b.json"
        grep -q "is in use (.*even with --force" <<<"$OUT" || fail "write to $t not refused: $OUT"
done
expect_rc 0 "$HCISWEEP" block --target "$lurl" --rw randwrite --size 1m --runtime 1 --json "$T/b.json"
[ "$(sql 1 'select count(*) from sbtest.sbtest1')" = 1000 ] || fail "vm1 rows after the block writes"
pass "writes to a VM's disk (LUN, loop, export, backing file) refused even with --force; its load LUN takes them"

# --- one lab directory, one backend ------------------------------------------------
# at once: it must not boot a guest on the local lab's LUN (a hang is cut by timeout)
expect_rc 2 timeout 10 "$HCISWEEP" lab up --backend qemu --lab-dir "$LAB" --vms 1
grep -q "belongs to the local backend" <<<"$OUT" && grep -q -- "lab down" <<<"$OUT" &&
        grep -q -- "another --lab-dir" <<<"$OUT" || fail "second backend message: $OUT"
expect_rc 2 lab up --vms 2 --datadir-on host
grep -q -- "--datadir-on" <<<"$OUT" || fail "datadir change not refused by name: $OUT"
pass "another backend, or the datadir moved, on the same lab dir: exit 2 naming the way out"

# --- down + up keeps the data ------------------------------------------------------------
expect_rc 0 lab down
nothing_left "down"
expect_rc 0 lab up --vms 2 --vm-memory 256M --lun-size $LUN
for i in 1 2; do
        [ "$(sql $i 'select count(*) from sbtest.sbtest1')" = 1000 ] || fail "vm$i rows after down+up"
done
pass "down left nothing; up again finds every row"

# --- crash of a VM: SIGKILL mariadbd and its initiator ----------------------------------
ST=$OUT
N=25
sql 1 'create table sbtest.crash (id int primary key auto_increment, v char(64)) engine=innodb'
for ((r = 0; r < N; r++)); do sql 1 "insert into sbtest.crash (v) values (repeat('r', 64))"; done
# a pid of 0 would be this test's own process group: check before killing
P1=$(field vm1 pid "$ST") P2=$(field vm1 initiator "$ST")
[[ $P1 =~ ^[1-9][0-9]*$ && $P2 =~ ^[1-9][0-9]*$ ]] || fail "vm1 pid '$P1' or initiator '$P2' not listed: $ST"
kill -9 "$P1" "$P2"
expect_rc 0 lab up --vms 2 --vm-memory 256M --lun-size $LUN
grep -q "^vm1 .*state=started" <<<"$OUT" || fail "vm1 not restarted: $OUT"
[ "$(sql 1 'select count(*) from sbtest.crash')" = $N ] || fail "committed rows lost in the crash"
pass "crash of vm1 (mariadbd + initiator killed): all $N committed rows there after up"

# --- kill -9 of the storage service, then down ------------------------------------------
for i in 1 2; do PIDS="$PIDS $(field vm$i pid "$OUT") $(field vm$i initiator "$OUT")"; done
TGT=$(sed -n '/^\[target\]/,/^\[/s/^pid = //p' "$LAB/state")
PIDS="$PIDS $TGT"
kill -9 "$TGT"
expect_rc 0 timeout 120 "$HCISWEEP" lab down --lab-dir "$LAB" --target-port "$TPORT"
nothing_left "down after kill -9 of tgtd"
pass "kill -9 tgtd: down still leaves no mount, loop, process, cgroup"

# --- where the chain cannot be built ---------------------------------------------------------
NB=$(mktemp -d /tmp/hcisweep-lun-nobody.XXXXXX)
on_exit rm -rf "$NB"
chmod 777 "$NB"
expect_rc 3 setpriv --reuid=65534 --regid=65534 --clear-groups "$HCISWEEP" lab up --lab-dir "$NB/lab" \
        --addr-base "$BASE" --base-port "$PORT" --target-port "$TPORT"
grep -q "root" <<<"$OUT" && grep -q -- "--datadir-on host" <<<"$OUT" ||
        fail "not-root refusal does not name what is missing and the way out: $OUT"
pass "not root: exit 3 naming root and --datadir-on host"
