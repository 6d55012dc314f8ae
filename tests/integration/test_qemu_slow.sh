# test_qemu_slow.sh - the qemu backend on a real guest: builds (or reuses)
# the Debian guest image under a fixed cache directory, brings up one VM,
# checks from QEMU's command line that its database disk is the lab's iSCSI
# LUN and from inside the guest that MariaDB's datadir is on that disk, runs
# OLTP prepare and run against it, runs `hcisweep scale` on the running VM
# (scale reuses it and tears the lab down), and finds the tables in the
# LUN's backing file afterwards; the guest is shut down in order and boots
# again on the same data disk. No QEMU or tgtd may be left running. Also:
# a missing image exits 3 naming the build script. Under TCG the boot takes
# a minute or two; the first image build several minutes (timings printed).
. "$TESTLIB"

. "$SRC/tests/qemu.sh"
export HCISWEEP_GUEST_DIR=$CACHE
common=("${QEMU_LAB[@]}")
db=(--mysql-host "$BASE.1" --mysql-port "$PORT" --mysql-user root --mysql-db sbtest
        --mysql-password-file "$LAB/password" --tables 1 --table-size 1000)
on_exit kill_listed
on_exit "$HCISWEEP" lab down "${common[@]}"
sql() { MYSQL_PWD=$(cat "$LAB/password") mariadb --no-defaults -h "$BASE.1" -P "$PORT" -u root \
        -N -B -e "$1"; }
gone() {
        local stat
        stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
        [[ $stat == *"($2) "[!ZX]* ]] && return 1
        return 0
}

# --- prerequisites are named --------------------------------------------------
expect_rc 3 env HCISWEEP_GUEST_DIR="$T/no-image" "$HCISWEEP" lab up --vms 1 "${common[@]}"
grep -q "build-guest-image.sh" <<<"$OUT" || fail "missing image does not name the build: $OUT"
expect_rc 2 "$HCISWEEP" lab up --vms 1 --topology two-layer "${common[@]}"
pass "missing image exits 3, two-layer refused"

# --- image: built once, then reused -------------------------------------------
guest_image
for f in image.raw vmlinuz initrd.img; do [ -s "$GUEST/$f" ] || fail "no $f in $GUEST"; done
[ "$(readlink -f "$CACHE/current")" = "$GUEST" ] || fail "current does not point at $GUEST"
AGAIN=$("$SRC/scripts/build-guest-image.sh" "$CACHE" 2>&1 >/dev/null)
grep -q "cached $GUEST" <<<"$AGAIN" || fail "second build was not a cache hit: $AGAIN"
pass "guest image $GUEST"

# --- one VM -------------------------------------------------------------------
t0=$(date +%s)
expect_rc 0 "$HCISWEEP" lab up --vms 1 --vm-cpus 1 --vm-memory 512M --lun-size 256M "${common[@]}"
echo "# boot until MariaDB answered: $(($(date +%s) - t0)) s"
UP=$OUT
PID=$(sed -n 's/^vm1 .*pid=\([0-9]*\).*/\1/p' <<<"$UP")
LUN=$(sed -n 's/^vm1 .* lun=\([^ ]*\).*/\1/p' <<<"$UP")
[ -n "$PID" ] && [ -n "$LUN" ] || fail "no pid or lun in: $UP"
grep -q "^vm1 addr=$BASE.1:$PORT pid=$PID state=started" <<<"$UP" || fail "vm1 line: $UP"
[[ $LUN == iscsi://127.0.0.1:$TPORT/*/1 ]] || fail "LUN URL $LUN"
[ "$(cat "/proc/$PID/comm")" = qemu-system-x86 ] || fail "pid $PID is not QEMU"
CMD=$(tr '\0' '\n' <"/proc/$PID/cmdline")
grep -qx "file=$LUN,format=raw,if=virtio" <<<"$CMD" || fail "the data disk is not $LUN: $CMD"
grep -qx "tcp:$BASE.1:$PORT-:3306" <<<"$(grep -o 'tcp:[^,]*' <<<"$CMD")" ||
        fail "no port forward to $BASE.1:$PORT: $CMD"
grep -qx -- "-m" <<<"$CMD" && grep -qx "512M" <<<"$CMD" || fail "memory not 512M: $CMD"
pass "QEMU $PID with data disk $LUN"

# --- inside the guest: the datadir is on the LUN --------------------------------
[ "$(sql 'select @@datadir')" = /srv/hcisweep/mysql/ ] || fail "datadir: $(sql 'select @@datadir')"
sql "install soname 'disks'" 2>/dev/null || true
DISK=$(sql "select disk, total from information_schema.disks where path = '/srv/hcisweep'")
[ "$(cut -f1 <<<"$DISK")" = /dev/vdb ] || fail "/srv/hcisweep is not /dev/vdb: $DISK"
KB=$(cut -f2 <<<"$DISK")
[ "$KB" -gt $((200 * 1024)) ] && [ "$KB" -le $((256 * 1024)) ] ||
        fail "/srv/hcisweep has $KB KiB, not the 256M LUN"
[ "$(sql "select disk from information_schema.disks where path = '/'")" = /dev/vda ] ||
        fail "root is not /dev/vda"
pass "datadir /srv/hcisweep/mysql on /dev/vdb ($KB KiB)"

# --- OLTP against it ------------------------------------------------------------
expect_rc 0 "$HCISWEEP" oltp prepare "${db[@]}"
expect_rc 0 "$HCISWEEP" oltp run "${db[@]}" --threads 2 --time 5 --output-dir "$T/runs"
RES=$(sed -n 's/^result: //p' <<<"$OUT")
jq -e '.totals.transactions > 0 and .totals.errors < .totals.transactions' "$RES" >/dev/null ||
        fail "oltp totals: $(jq -c .totals "$RES")"
pass "oltp run: $(jq .totals.transactions "$RES") transactions"

# --- scale reuses the running VM and tears the lab down -------------------------
expect_rc 0 "$HCISWEEP" scale --vms 1 --vm-cpus 1 --vm-memory 512M --lun-size 256M "${common[@]}" \
        --tables 1 --table-size 1000 --threads 2 --time 3 --output-dir "$T/runs"
SRES=$(sed -n 's/^result: //p' <<<"$OUT")
jq -e '.steps[0].vms == 1 and .steps[0].totals.transactions > 0' "$SRES" >/dev/null ||
        fail "scale step: $(jq -c '.steps[0] | {vms, totals}' "$SRES")"
wait_until 5 gone "$PID" qemu-system-x86
[ -z "$(lab_qemus)" ] || fail "QEMU left after scale: $(lab_qemus)"
expect_rc 0 "$HCISWEEP" lab down "${common[@]}"
pass "scale ran on the VM, nothing left running"

# --- the guest was shut down in order, and boots on its data disk again ----------
# The kernel's last words come only from a shutdown systemd carried out (Ctrl-Alt-Del
# over QMP), not from QEMU being killed.
tail -n 3 "$LAB/vm1/console.log" | grep -q "reboot: Restarting system" ||
        fail "no orderly shutdown on the console: $(tail -n 3 "$LAB/vm1/console.log")"
expect_rc 0 "$HCISWEEP" lab up --vms 1 --vm-cpus 1 --vm-memory 512M --lun-size 256M "${common[@]}"
[ "$(sql 'select count(*) from sbtest.sbtest1')" = 1000 ] || fail "sbtest1 after a reboot"
expect_rc 0 "$HCISWEEP" lab down "${common[@]}"
[ -z "$(lab_qemus)" ] || fail "QEMU left after lab down: $(lab_qemus)"
pass "orderly shutdown; MariaDB starts again on the same LUN with its 1000 rows"

# --- the tables went through iSCSI into the LUN's file --------------------------
cp --sparse=always "$LAB/vm1/lun.img" "$T/lun-copy.img"
e2fsck -fy "$T/lun-copy.img" >/dev/null 2>&1 || [ $? -le 1 ] || fail "e2fsck of the LUN failed"
FILES=$(debugfs -R 'ls /mysql/sbtest' "$T/lun-copy.img" 2>/dev/null)
grep -q "sbtest1.ibd" <<<"$FILES" || fail "no sbtest1.ibd in the LUN's filesystem: $FILES"
pass "sbtest1.ibd is in the LUN's backing file"
