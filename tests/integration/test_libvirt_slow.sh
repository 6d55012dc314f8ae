# test_libvirt_slow.sh - the libvirt backend on real guests, through two
# libvirtds of the test's own (two "hypervisors", the second reached over
# TCP as qemu+tcp://127.0.0.1:PORT/system, as a remote host would be, so its
# VM's port is forwarded per VM on every address): each one's configuration,
# socket, state and logs live under $T (a private mount namespace puts them
# over /etc/libvirt, /run/libvirt, /var/lib/libvirt, /var/log/libvirt and
# /var/cache/libvirt for that daemon alone, so nothing on the host is
# touched). Brings up one VM, checks that the domain exists, that its data
# disk is the lab's iSCSI LUN and that MariaDB in the guest answers through
# the forwarded port with its datadir on that disk; `scale --driver-placement
# vm` runs the VM's driver in the guest through libvirt's agent channel
# (drivers[0].where "guest", nothing left running); `block --clients vms`
# runs a 2-point QD sweep in the guest on its third disk, vdc, the lab's load
# LUN 1 (every point lists vm1 with where and carrier "guest" and a finite
# start skew, the aggregate is the per-client sum, the lab's host read through
# libvirt in every point, nothing left running), the
# streaming bridge relaying every point's lines; the libvirt host source
# on that libvirtd agrees with procfs within 2 points over a CPU burn and
# reads the guest's domain stats (non-zero), and `lab status` lists the host
# as answered (a URI nothing answers on as down, with why); `lab down` leaves
# no domain and no QEMU. Then `scale --vms 1,2` over both URIs: two ok steps
# with a tipping point, vm1 placed on the first libvirtd and vm2 on the
# second, reached at 127.0.0.1:PORT+2, `lab status` listing both hosts as
# answered with the roles --storage-hosts gives in two-layer. A URI that is not one exits 2, and
# so does a hypervisor on another host with a loopback portal. The guest
# image is the cached one of scripts/build-guest-image.sh (built if
# missing). Under TCG each boot takes a minute or two.
. "$TESTLIB"

command -v libvirtd >/dev/null && command -v virsh >/dev/null ||
        fail "libvirtd/virsh missing: run scripts/install-deps.sh"
"$HCISWEEP" lab up --help 2>&1 | grep -q "qemu, libvirt" ||
        fail "built without libvirt (WITH_LIBVIRT, libvirt-dev)"

. "$SRC/tests/qemu.sh"
export HCISWEEP_GUEST_DIR=$CACHE
URI="qemu:///system?socket=$T/lv/run/libvirt-sock"
common=(--backend libvirt --libvirt-uri "$URI" --lab-dir "$LAB" --addr-base "$BASE"
        --base-port "$PORT" --target-port "$TPORT")
sql() { MYSQL_PWD=$(cat "$LAB/password") mariadb --no-defaults -h "$BASE.1" -P "$PORT" -u root \
        -N -B -e "$1"; }
# This lab's QEMUs (in place of tests/qemu.sh's): by its own domain prefix once known
# (another lab's guests, a libvirt test of another checkout, may run on this machine at
# the same time).
lab_qemus() { pgrep -f -- "qemu-system-x86_64 .*guest=${LABQ:-hcisweep-lab-[0-9a-f]*}-vm" || true; }
no_qemu() { [ -z "$(lab_qemus)" ]; } # no QEMU of this lab runs

# --- a URI that is none is bad input ------------------------------------------
expect_rc 2 "$HCISWEEP" lab up --vms 1 --backend libvirt --libvirt-uri "no-uri" --lab-dir "$LAB"
grep -q -- "--libvirt-uri" <<<"$OUT" || fail "bad URI not named: $OUT"
[ ! -e "$LAB/state" ] || fail "a bad URI left a lab behind"
pass "bad --libvirt-uri exits 2"

# --- a hypervisor on another host: refused under the loopback guard before any dial --
# (outside the guard such a host meets the portal check: VMs there cannot reach a
# loopback portal; a test cannot name such a host, so only the guard is checked here)
expect_rc 2 "$HCISWEEP" lab up --vms 1 --backend libvirt --lab-dir "$LAB" \
        --libvirt-uri "qemu:///system,qemu+ssh://root@192.0.2.7/system"
grep -q -- "--libvirt-uri: .*loopback" <<<"$OUT" || fail "remote hypervisor under the guard: $OUT"
[ ! -e "$LAB/state" ] || fail "a refused hypervisor left a lab behind"
expect_rc 2 "$HCISWEEP" lab up --vms 1 --backend libvirt --lab-dir "$LAB" --target-addr 0.0.0.0
pass "remote hypervisor with a loopback portal, --target-addr 0.0.0.0: exit 2"

# --- the guest image (cached) ----------------------------------------------------
guest_image

# --- two libvirtds of our own: two "hypervisors" for round-robin placement ------------
id libvirt-qemu >/dev/null 2>&1 || useradd --system --no-create-home libvirt-qemu ||
        fail "cannot create user libvirt-qemu"
for d in /run/libvirt /var/lib/libvirt /var/log/libvirt /var/cache/libvirt; do mkdir -p "$d"; done
start_libvirtd() { # DIR [TCP_PORT]: configuration, socket, state and logs under DIR
        local L=$1 tcp=${2:-} mounts="" listen=""
        mkdir -p "$L"/{etc,run,lib,log,cache}
        printf '%s\n' 'user = "root"' 'group = "root"' 'stdio_handler = "file"' \
                'security_driver = "none"' 'namespaces = [ ]' 'cgroup_controllers = [ ]' \
                >"$L/etc/qemu.conf"
        printf '%s\n' "unix_sock_dir = \"$L/run\"" 'auth_unix_rw = "none"' \
                "log_outputs = \"3:file:$L/libvirtd.log\"" >"$L/etc/libvirtd.conf"
        if [ -n "$tcp" ]; then # reached as a remote host would be: qemu+tcp://127.0.0.1:TCP/system
                printf '%s\n' 'listen_tls = 0' 'listen_tcp = 1' "tcp_port = \"$tcp\"" \
                        'listen_addr = "127.0.0.1"' 'auth_tcp = "none"' >>"$L/etc/libvirtd.conf"
                listen=--listen
        fi
        for d in run:/run/libvirt lib:/var/lib/libvirt log:/var/log/libvirt cache:/var/cache/libvirt; do
                mounts+="mount --bind '$L/${d%%:*}' '${d#*:}' && "
        done
        # The new mount namespace copies every mount there is: another test's lab
        # datadirs and exports would stay busy in it, so that test's loop device
        # could not be detached until this libvirtd exits. Ours drops them.
        local drop="findmnt -rn -o TARGET | grep '^/tmp/hcisweep-' | grep -v '^$T/' | sort -r |
                xargs -r -n1 umount -l;"
        unshare -m --propagation private sh -c "$drop mount --bind '$L/etc' /etc/libvirt && $mounts \
                exec libvirtd --daemon $listen --config '$L/etc/libvirtd.conf' --pid-file '$L/libvirtd.pid'" ||
                fail "libvirtd in $L did not start"
        on_exit stop_libvirtd "$L"
        wait_until 10 test -S "$L/run/libvirt-sock"
        virsh -q -c "qemu:///system?socket=$L/run/libvirt-sock" list --all >/dev/null 2>&1 ||
                fail "libvirtd in $L does not answer"
}
stop_libvirtd() {
        local pid
        pid=$(cat "$1/libvirtd.pid" 2>/dev/null) || return 0
        # (in a subshell: a cleanup that times out must not end the others)
        kill "$pid" && (wait_gone "$pid" 5) || true
}
kill_domains() { virsh -q -c "$1" list --name | xargs -r -n1 virsh -q -c "$1" destroy; }
LVTCP=$(test_port 5)
URI2="qemu+tcp://127.0.0.1:$LVTCP/system"
start_libvirtd "$T/lv"
start_libvirtd "$T/lv2" "$LVTCP"
virsh -q -c "$URI2" list --all >/dev/null 2>&1 || fail "libvirtd does not answer on $URI2"
on_exit "kill_domains '$URI'"
on_exit "kill_domains '$URI2'"
on_exit "$HCISWEEP" lab down "${common[@]}"
pass "libvirtd $(cat "$T/lv/libvirtd.pid") on $URI, $(cat "$T/lv2/libvirtd.pid") on $URI2"

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
LABQ=${DOM%-vm1}
DISKS=$(virsh -q -c "$URI" domblklist "$DOM")
IQN=${LUN#iscsi://127.0.0.1:"$TPORT"/}
grep -q "^ *vdb *$IQN\$" <<<"$DISKS" || fail "vdb is not $IQN: $DISKS"
LOADIQN=${IQN%/1}.load/1 # the load target's LUN 1 (lab/labstate.h)
grep -q "^ *vdc *$LOADIQN\$" <<<"$DISKS" || fail "vdc is not $LOADIQN: $DISKS"
PID=$(sed -n 's/^vm1 .*pid=\([0-9]*\).*/\1/p' <<<"$UP")
[ "$(lab_qemus)" = "$PID" ] || fail "pid $PID is not the domain's QEMU ($(lab_qemus))"
pass "domain $DOM (QEMU $PID) with vdb on $IQN, vdc on $LOADIQN"

# --- inside the guest: the datadir is on the LUN ------------------------------------
[ "$(sql 'select @@datadir')" = /srv/hcisweep/mysql/ ] || fail "datadir: $(sql 'select @@datadir')"
sql "install soname 'disks'" 2>/dev/null || true
DISK=$(sql "select disk, total from information_schema.disks where path = '/srv/hcisweep'")
[ "$(cut -f1 <<<"$DISK")" = /dev/vdb ] || fail "/srv/hcisweep is not /dev/vdb: $DISK"
KB=$(cut -f2 <<<"$DISK")
[ "$KB" -gt $((200 * 1024)) ] && [ "$KB" -le $((256 * 1024)) ] ||
        fail "/srv/hcisweep has $KB KiB, not the 256M LUN"
pass "MariaDB answers on $BASE.1:$PORT, datadir on /dev/vdb ($KB KiB)"

# --- the driver in the guest, started through libvirt's agent channel -------------------
guest_sh() { # CMD's stdout in the guest, run through the agent by virsh
        local pid st
        pid=$(virsh -q -c "$URI" qemu-agent-command "$DOM" "{\"execute\":\"guest-exec\",
                \"arguments\":{\"path\":\"/bin/sh\",\"arg\":[\"-c\",\"$1\"],
                \"capture-output\":true}}" | jq .return.pid) || fail "guest-exec: $1"
        exited() {
                st=$(virsh -q -c "$URI" qemu-agent-command "$DOM" \
                        "{\"execute\":\"guest-exec-status\",\"arguments\":{\"pid\":$pid}}")
                [ "$(jq .return.exited <<<"$st")" = true ]
        }
        wait_until 30 exited
        jq -r '.return["out-data"] // ""' <<<"$st" | base64 -d
}
expect_rc 0 "$HCISWEEP" scale --vms 1 --vm-cpus 1 --vm-memory 512M --lun-size 256M "${common[@]}" \
        --tables 1 --table-size 1000 --threads 2 --time 3 --warmup-time 1 --driver-placement vm \
        --keep-lab --output-dir "$T/drv"
DR=$(sed -n 's/^result: \([^ ]*\).*/\1/p' <<<"$OUT")
jq -e '.steps[0] | .state == "ok" and .drivers[0].where == "guest" and .drivers[0].exit == 0
        and .drivers[0].tps > 0 and (.totals.tps - .drivers[0].tps | fabs) <= 1e-6 * .totals.tps
        and .hist.count == .totals.transactions' "$DR" >/dev/null ||
        fail "driver in the guest: $(jq -c '.steps[0] | {state, error, drivers}' "$DR")"
[ -z "$(pgrep -f -- "lab guest-driver .*libvirt:$DOM" || true)" ] || fail "a bridge is left running"
LEFT=$(guest_sh "pgrep -af -- --start-on-g[o]; ls /run/hcisweep-driver-* 2>/dev/null; true")
[ -z "$LEFT" ] || fail "left in the guest: $LEFT"
pass "driver in the guest through libvirt: tps $(jq '.steps[0].drivers[0].tps' "$DR")," \
        "start skew $(jq '.steps[0].drivers[0].start_skew_ms' "$DR") ms, nothing left"

# --- the guest as a block client: a 2-point sweep on its disk of its load LUN -------------
t0=$(date +%s)
expect_rc 0 "$HCISWEEP" block --clients vms "${common[@]}" --rw randread --bs 4k --direct 1 \
        --iodepth 1,4 --runtime 2 --per-client --json "$T/blk.json"
echo "# block sweep of 2 points in the guest: $(($(date +%s) - t0)) s"
jq -e '(.points | length) == 2 and .config.backend == "libvirt" and ([.points[].iodepth] == [1, 4])
        and all(.points[]; .n_clients == 1 and [.clients[].name] == ["vm1"]
          and all(.clients[]; .where == "guest" and .carrier == "guest" and .error == null
                  and .host == "localhost" and .iops > 0 and .targets == ["/dev/vdc"]
                  and (.start_skew_ms | type == "number") and (.start_skew_ms | isinfinite | not)))' \
        "$T/blk.json" >/dev/null ||
        fail "the points: $(jq -c '[.points[] | {iodepth, n_clients, c: [.clients[] | {name, host, where, carrier, targets, iops, start_skew_ms, error}]}]' "$T/blk.json" | head -c 1500)"
clients_sum_is_agg "$T/blk.json"
# the lab's host is read through libvirt during every point, as `lab status` reads it
jq -e 'all(.points[]; any(.cluster.hosts[]?; .source == "libvirt"))' "$T/blk.json" >/dev/null ||
        fail "no host read through libvirt: $(jq -c '[.points[].cluster.hosts[]? | {name, source, role, error}]' "$T/blk.json" | head -c 800)"
# the guest's /dev/vdc is the domain's vdc, the load LUN: QEMU counted every read measured
# there (and more: the ramp's), not on another disk
IOS=$(jq '[.points[].read.ios] | add' "$T/blk.json")
RDREQ=$(virsh -q -c "$URI" domblkstat "$DOM" vdc | awk '$2 == "rd_req" { print $3 }')
[ "${RDREQ:-0}" -ge "$IOS" ] || fail "the domain's vdc had ${RDREQ:-no} reads, the sweep measured $IOS"
[ -z "$(pgrep -f -- "lab guest-driver .*libvirt:$DOM" || true)" ] || fail "a block bridge is left running"
LEFT=$(guest_sh "pgrep -af -- --start-on-g[o]; ls /run/hcisweep-driver-* 2>/dev/null; true")
[ -z "$LEFT" ] || fail "left in the guest after the block sweep: $LEFT"
pass "libvirt guest as a block client: 2 points, where/carrier guest, aggregate = sum," \
        "the domain's vdc read $RDREQ times for $IOS I/Os measured, nothing left"

# --- the host through libvirt: node stats as procfs's, the guest's domain stats ----------
# field OUT HOST KEY: one figure of a hostsrc_probe line ("host H ..." or "vm H DOMAIN ...").
field() { awk -v h="$2" -v k="$3" '($1 == "host" || $1 == "vm") && $2 == h {
        for (i = 3; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }' <<<"$1"; }
cat >"$T/burn.sh" <<'EOS'
timeout 5 sh -c 'while :; do :; done' # one CPU: a busy % that is not pinned at 100
wait
EOS
OUT=$("$HOSTSRC_PROBE" p=procfs:/proc l=libvirt:"$URI" -- bash "$T/burn.sh" 2>&1) ||
        fail "probe: $OUT"
echo "$OUT" | sed 's/^/# /'
for k in busy user system iowait busiest; do
        a=$(field "$OUT" p "$k") b=$(field "$OUT" l "$k")
        [ -n "$a" ] && [ -n "$b" ] || fail "no $k: $OUT"
        near "$a" "$b" 2 || fail "$k: procfs $a, libvirt $b, more than 2 points apart"
done
near "$(field "$OUT" p busy)" 100 60 || fail "the burn left the host at $(field "$OUT" p busy)% busy"
[ "$(grep -c "^vm l $DOM " <<<"$OUT")" = 1 ] || fail "no domain stats of $DOM: $OUT"
for k in cpu_s vcpu_s rd_reqs wr_reqs rd_bytes wr_bytes; do
        awk -v v="$(field "$OUT" l "$k")" 'BEGIN { exit !(v > 0) }' || fail "$DOM $k is not > 0: $OUT"
done
pass "libvirt node stats agree with procfs within 2 points over a CPU burn" \
        "(busy $(field "$OUT" p busy) / $(field "$OUT" l busy)); $DOM: cpu $(field "$OUT" l cpu_s) s," \
        "$(field "$OUT" l rd_reqs) reads, $(field "$OUT" l wr_reqs) writes"

# --- lab status lists the hypervisor: answered, or down with why -------------------------
expect_rc 0 "$HCISWEEP" lab status "${common[@]}"
grep -q "^host localhost role=both source=libvirt where=$URI state=answered\$" <<<"$OUT" ||
        fail "host line: $OUT"
DEAD="qemu+tcp://127.0.0.1:1/system" # nothing listens on port 1
expect_rc 3 "$HCISWEEP" lab status "${common[@]}" --libvirt-uri "$URI,$DEAD"
grep -q "^host localhost .*state=answered\$" <<<"$OUT" || fail "host localhost: $OUT"
grep -q "^host 127.0.0.1 role=both source=libvirt where=$DEAD state=down 127.0.0.1 (libvirt): " \
        <<<"$OUT" || fail "host 127.0.0.1: $OUT"
pass "lab status: localhost answered through libvirt, a URI nothing answers on is down with why"

# --- down: no domain, no QEMU ---------------------------------------------------------
expect_rc 0 "$HCISWEEP" lab down "${common[@]}"
[ -z "$(virsh -q -c "$URI" list --all --name)" ] || fail "domains left: $(virsh -c "$URI" list)"
wait_until 5 no_qemu
pass "lab down left no domain and no QEMU"

# --- scale over both libvirtds: VMs round-robin, the same steps as local ---------------
PORTAL=$BASE.250 # not 127.0.0.1: the portal address reaches tgtd and both domains
two=(--backend libvirt --libvirt-uri "$URI,$URI2" --lab-dir "$LAB" --addr-base "$BASE"
        --base-port "$PORT" --target-addr "$PORTAL" --target-port "$TPORT" --vm-cpus 1
        --vm-memory 512M --lun-size 256M)
on_exit "$HCISWEEP" lab down "${two[@]}"
t0=$(date +%s)
expect_rc 0 "$HCISWEEP" scale "${two[@]}" --vms 1,2 --time 3 --warmup-time 1 --tables 1 \
        --table-size 1000 --output-dir "$T/runs" --keep-lab
echo "# scale 1,2 VMs over two libvirtds: $(($(date +%s) - t0)) s"
R=$(find "$T/runs" -name result.json -path '*scale-*')
[ -f "$R" ] || fail "no scale result under $T/runs"
[ "$(jq -r '[.steps[].state] | join(",")' "$R")" = ok,ok ] ||
        fail "steps: $(jq -c '[.steps[] | {vms, state, error}]' "$R")"
for k in 0 1; do
        [ "$(jq ".steps[$k].totals.transactions" "$R")" -gt 0 ] || fail "step $k ran no transaction"
        [ "$(jq ".steps[$k].hosts | length" "$R")" -eq $((k + 1)) ] ||
                fail "step $k: $(jq -c ".steps[$k] | keys" "$R")"
done
jq -e '.tipping_point | has("limited_by")' "$R" >/dev/null || fail "no tipping_point in $R"
[ "$(virsh -q -c "$URI" list --name)" = "hcisweep-$(sed -n 's/^name = //p' "$LAB/state")-vm1" ] ||
        fail "$URI runs: $(virsh -q -c "$URI" list --name)"
[ "$(virsh -q -c "$URI2" list --name)" = "hcisweep-$(sed -n 's/^name = //p' "$LAB/state")-vm2" ] ||
        fail "$URI2 runs: $(virsh -q -c "$URI2" list --name)"
STATUS=$("$HCISWEEP" lab status "${two[@]}")
grep -q "^vm1 addr=$BASE.1:$PORT " <<<"$STATUS" || fail "vm1 (local URI): $STATUS"
grep -q "^vm2 addr=127.0.0.1:$((PORT + 2)) " <<<"$STATUS" || fail "vm2 (host URI): $STATUS"
grep -q "portal=$PORTAL:$TPORT" <<<"$STATUS" || fail "portal is not $PORTAL:$TPORT: $STATUS"
for u in "$URI" "$URI2"; do
        d=$(virsh -q -c "$u" list --name)
        virsh -q -c "$u" dumpxml "$d" | grep -q "<host name='$PORTAL' port='$TPORT'/>" ||
                fail "$d does not use the portal $PORTAL:$TPORT"
done
# two hypervisors, one of them reached over TCP as a remote host is: a host each, roles from
# --storage-hosts in two-layer
STATUS=$("$HCISWEEP" lab status "${two[@]}" --topology two-layer --storage-hosts 127.0.0.1)
grep -q "^host localhost role=compute source=libvirt where=$URI state=answered\$" <<<"$STATUS" ||
        fail "host localhost (compute): $STATUS"
grep -q "^host 127.0.0.1 role=storage source=libvirt where=$URI2 state=answered\$" <<<"$STATUS" ||
        fail "host 127.0.0.1 (storage): $STATUS"
pass "scale 1,2 VMs: ok,ok; vm1 on the local libvirtd at $BASE.1:$PORT, vm2 on the tcp one at 127.0.0.1:$((PORT + 2)), both on the portal $PORTAL:$TPORT"

expect_rc 0 "$HCISWEEP" lab down "${two[@]}"
[ -z "$(virsh -q -c "$URI" list --all --name)$(virsh -q -c "$URI2" list --all --name)" ] ||
        fail "domains left after lab down"
wait_until 5 no_qemu
pass "lab down: no domain on either libvirtd, no QEMU"
