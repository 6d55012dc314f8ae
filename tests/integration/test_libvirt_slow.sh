# test_libvirt_slow.sh - the libvirt backend on a real guest, through a
# libvirtd of the test's own: its configuration, socket, state and logs live
# in $T (a private mount namespace puts $T's directories over /etc/libvirt,
# /run/libvirt, /var/lib/libvirt, /var/log/libvirt and /var/cache/libvirt
# for that daemon alone, so nothing on the host is touched). Brings up one
# VM, checks that the domain exists, that its data disk is the lab's iSCSI
# LUN and that MariaDB in the guest answers through the forwarded port with
# its datadir on that disk; `lab down` leaves no domain and no QEMU. A URI
# that is not one exits 2. The guest image is the cached one of
# scripts/build-guest-image.sh (built if missing). Under TCG the boot takes
# a minute or two.
. "$TESTLIB"

command -v libvirtd >/dev/null && command -v virsh >/dev/null ||
        fail "libvirtd/virsh missing: run scripts/install-deps.sh"
"$HCISWEEP" lab up --help 2>&1 | grep -q "qemu, libvirt" ||
        fail "built without libvirt (WITH_LIBVIRT, libvirt-dev)"

ADDR=$(test_addr 0)
BASE=${ADDR%.*}
PORT=$(test_port 0)
TPORT=$(($(test_port 1) % 10000 + 10000)) # tgtd takes control ports below 32768
LAB=$T/lab
CACHE=${HCISWEEP_GUEST_DIR:-/var/tmp/hcisweep-guest}
export HCISWEEP_GUEST_DIR=$CACHE
URI="qemu:///system?socket=$T/lv/run/libvirt-sock"
common=(--backend libvirt --libvirt-uri "$URI" --lab-dir "$LAB" --addr-base "$BASE"
        --base-port "$PORT" --target-port "$TPORT")
sql() { MYSQL_PWD=$(cat "$LAB/password") mariadb --no-defaults -h "$BASE.1" -P "$PORT" -u root \
        -N -B -e "$1"; }
lab_qemus() { pgrep -f -- "qemu-system-x86_64 .*guest=hcisweep-lab-[0-9a-f]*-vm" || true; }

# --- a URI that is none is bad input ------------------------------------------
expect_rc 2 "$HCISWEEP" lab up --vms 1 --backend libvirt --libvirt-uri "no-uri" --lab-dir "$LAB"
grep -q -- "--libvirt-uri" <<<"$OUT" || fail "bad URI not named: $OUT"
[ ! -e "$LAB/state" ] || fail "a bad URI left a lab behind"
pass "bad --libvirt-uri exits 2"

# --- the guest image (cached) ----------------------------------------------------
"$SRC/scripts/build-guest-image.sh" "$CACHE" >/dev/null 2>"$T/build.err" ||
        { tail -5 "$T/build.err" >&2; fail "image build failed"; }

# --- our own libvirtd ----------------------------------------------------------------
id libvirt-qemu >/dev/null 2>&1 || useradd --system --no-create-home libvirt-qemu ||
        fail "cannot create user libvirt-qemu"
mkdir -p "$T/lv"/{etc,run,lib,log,cache}
cat >"$T/lv/etc/qemu.conf" <<EOF
user = "root"
group = "root"
stdio_handler = "file"
security_driver = "none"
namespaces = [ ]
cgroup_controllers = [ ]
EOF
cat >"$T/lv/etc/libvirtd.conf" <<EOF
unix_sock_dir = "$T/lv/run"
auth_unix_rw = "none"
log_outputs = "3:file:$T/lv/libvirtd.log"
EOF
mounts=""
for d in run:/run/libvirt lib:/var/lib/libvirt log:/var/log/libvirt cache:/var/cache/libvirt; do
        mkdir -p "${d#*:}"
        mounts+="mount --bind '$T/lv/${d%%:*}' '${d#*:}' && "
done
unshare -m --propagation private sh -c "mount --bind '$T/lv/etc' /etc/libvirt && $mounts \
        exec libvirtd --daemon --config '$T/lv/etc/libvirtd.conf' --pid-file '$T/lv/libvirtd.pid'" ||
        fail "libvirtd did not start"
stop_libvirtd() {
        local pid
        pid=$(cat "$T/lv/libvirtd.pid" 2>/dev/null) || return 0
        kill "$pid" && for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
}
on_exit stop_libvirtd
for _ in $(seq 100); do [ -S "$T/lv/run/libvirt-sock" ] && break; sleep 0.1; done
virsh -q -c "$URI" list --all >/dev/null 2>&1 || fail "libvirtd does not answer on $URI"
kill_domains() { virsh -q -c "$URI" list --name | xargs -r -n1 virsh -q -c "$URI" destroy; }
on_exit kill_domains
on_exit "$HCISWEEP" lab down "${common[@]}"
pass "libvirtd $(cat "$T/lv/libvirtd.pid") on $URI"

# --- one VM ------------------------------------------------------------------------
t0=$(date +%s)
expect_rc 0 "$HCISWEEP" lab up --vms 1 --vm-cpus 1 --vm-memory 512M --lun-size 256M "${common[@]}"
echo "# boot until MariaDB answered: $(($(date +%s) - t0)) s"
UP=$OUT
LUN=$(sed -n 's/^vm1 .* lun=\([^ ]*\).*/\1/p' <<<"$UP")
[[ $LUN == iscsi://127.0.0.1:$TPORT/*/1 ]] || fail "LUN URL '$LUN' in: $UP"
grep -q "^vm1 addr=$BASE.1:$PORT pid=[1-9][0-9]* state=started" <<<"$UP" || fail "vm1 line: $UP"
DOM=$(virsh -q -c "$URI" list --name)
[[ $DOM == hcisweep-lab-*-vm1 ]] || fail "domains: $(virsh -q -c "$URI" list --all)"
DISKS=$(virsh -q -c "$URI" domblklist "$DOM")
IQN=${LUN#iscsi://127.0.0.1:"$TPORT"/}
grep -q "^ *vdb *$IQN\$" <<<"$DISKS" || fail "vdb is not $IQN: $DISKS"
PID=$(sed -n 's/^vm1 .*pid=\([0-9]*\).*/\1/p' <<<"$UP")
[ "$(lab_qemus)" = "$PID" ] || fail "pid $PID is not the domain's QEMU ($(lab_qemus))"
pass "domain $DOM (QEMU $PID) with vdb on $IQN"

# --- inside the guest: the datadir is on the LUN ------------------------------------
[ "$(sql 'select @@datadir')" = /srv/hcisweep/mysql/ ] || fail "datadir: $(sql 'select @@datadir')"
sql "install soname 'disks'" 2>/dev/null || true
DISK=$(sql "select disk, total from information_schema.disks where path = '/srv/hcisweep'")
[ "$(cut -f1 <<<"$DISK")" = /dev/vdb ] || fail "/srv/hcisweep is not /dev/vdb: $DISK"
KB=$(cut -f2 <<<"$DISK")
[ "$KB" -gt $((200 * 1024)) ] && [ "$KB" -le $((256 * 1024)) ] ||
        fail "/srv/hcisweep has $KB KiB, not the 256M LUN"
pass "MariaDB answers on $BASE.1:$PORT, datadir on /dev/vdb ($KB KiB)"

# --- down: no domain, no QEMU ---------------------------------------------------------
expect_rc 0 "$HCISWEEP" lab down "${common[@]}"
[ -z "$(virsh -q -c "$URI" list --all --name)" ] || fail "domains left: $(virsh -c "$URI" list)"
for _ in $(seq 50); do [ -z "$(lab_qemus)" ] && break; sleep 0.1; done
[ -z "$(lab_qemus)" ] || fail "QEMU left after lab down: $(lab_qemus)"
pass "lab down left no domain and no QEMU"
