#!/usr/bin/env bash
# hcisweep block --clients inventory: six clients over OpenSSH, as an HCI
# vendor's iSCSI procedure runs them. One tgtd with 6 LUNs; the test's own
# sshd on 6 loopback addresses; the inventory's six [host cN] sections with
# role = client, ssh = root@ADDR_N:PORT, targets = LUN N (and a storage host,
# read by nobody here). A QD sweep 1, 4, 16 of 4k randread and randwrite:
# every point lists the 6 clients, named with their hosts, each client's
# start skew recorded (in the controller's clock, through the ssh carrier's
# clock offset) and flagged late exactly when over 1% of the runtime, none
# a tenth of the runtime late (the skews themselves are printed: on a
# loaded machine a few exceed 1%, which the flag then says), and the
# aggregate is the per-client sum. A client whose sshd does not answer stops the run before its first
# point (exit 3, naming it); --target-ci decides one window for all six
# on their merged series; with --clients-optional it is named missing
# (on screen and in clients_missing[]) and the other five run. No client is
# left running, here or there.
. "$TESTLIB"
. "$SRC/tests/integration/tgt.sh"

SSHD=/usr/sbin/sshd
[ -x "$SSHD" ] && command -v ssh >/dev/null && command -v ssh-keygen >/dev/null ||
        fail "openssh-server and openssh-client are not installed (scripts/install-deps.sh)"
mkdir -p /run/sshd
tgt_start --luns 6 --size 16M
[ ${#TGT_URLS[@]} -eq 6 ] || fail "tgtd gave ${#TGT_URLS[@]} LUNs, not 6"

# --- the test's own sshd, on six loopback addresses ---------------------------
SSH_PORT=$(test_port 2)
for k in host_key client_key; do
        ssh-keygen -q -t ed25519 -N '' -C "$TEST_NAME" -f "$T/$k" || fail "ssh-keygen $k"
done
cp "$T/client_key.pub" "$T/authorized_keys"
: >"$T/known_hosts"
{
        for i in 1 2 3 4 5 6; do
                echo "ListenAddress $(test_addr "$i")"
                echo "[$(test_addr "$i")]:$SSH_PORT $(cut -d' ' -f1,2 "$T/host_key.pub")" >>"$T/known_hosts"
        done
        cat <<EOF2
Port $SSH_PORT
HostKey $T/host_key
AuthorizedKeysFile $T/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PidFile $T/sshd.pid
MaxStartups 32
AcceptEnv ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
EOF2
} >"$T/sshd_config"
"$SSHD" -D -e -f "$T/sshd_config" 2>"$T/sshd.log" &
SSHD_PID=$!
on_exit "kill $SSHD_PID"
for i in 1 2 3 4 5 6; do wait_port "$(test_addr "$i")" "$SSH_PORT"; done
env=""
for v in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS; do
        [ -n "${!v:-}" ] && env+=" $v=${!v}"
done
cat >"$T/ssh_config" <<EOF2
IdentityFile $T/client_key
IdentitiesOnly yes
IdentityAgent none
UserKnownHostsFile $T/known_hosts
GlobalKnownHostsFile /dev/null
StrictHostKeyChecking yes
EOF2
[ -z "$env" ] || echo "SetEnv$env" >>"$T/ssh_config"

inventory() { # inventory FILE PORT_OF_C6
        {
                for i in 1 2 3 4 5 6; do
                        port=$SSH_PORT
                        [ "$i" -eq 6 ] && port=$2
                        cat <<EOF2
[host c$i]
role = client
ssh = root@$(test_addr "$i"):$port
ssh_config = ssh_config
hcisweep = $HCISWEEP
targets = ${TGT_URLS[$((i - 1))]}

EOF2
                done
                printf '[host s1]\nrole = storage\nmetrics = http://%s:9100/metrics\n' "$(test_addr 0)"
        } >"$1"
}
inventory "$T/inv.ini" "$SSH_PORT"
PAT="target=iscsi://$TGT_PORTAL/.*--start-on-go"
left() { pgrep -f -- "$PAT" || true; }
no_driver_left() { [ -z "$(left)" ] || fail "clients left after $1: $(left | xargs -r ps -o pid=,args= -p)"; }

expect_rc 0 "$HCISWEEP" block --clients inventory --inventory "$T/inv.ini" --rw randread,randwrite \
        --bs 4k --iodepth 1,4,16 --runtime 3 --per-client --json "$T/r.json"
no_driver_left "the sweep"
echo "$OUT" | grep 'all 6 clients'
hosts=$(for i in 1 2 3 4 5 6; do test_addr "$i"; done | jq -R . | jq -sc .)
jq -e --argjson hosts "$hosts" '(.points | length) == 6 and all(.points[];
          .n_clients == 6 and [.clients[].name] == ["c1", "c2", "c3", "c4", "c5", "c6"]
          and [.clients[].host] == $hosts
          and all(.clients[]; .where == "ssh" and .error == null and .iops > 0
                  and (.targets | length) == 1
                  and .late == (.start_skew_ms | fabs > 30) and (.start_skew_ms | fabs) < 300))' \
        "$T/r.json" >/dev/null ||
        fail "the points: $(jq -c '[.points[] | {rw, iodepth, n_clients, c: [.clients[] | {name, host, where, start_skew_ms, late, error}]}]' "$T/r.json" | head -c 1500)"
clients_sum_is_agg "$T/r.json"
pass "six clients over ssh, QD 1,4,16 randread/randwrite: 6 clients a point, skew recorded and flagged, aggregate = sum"

# --- --target-ci over ssh: every client streams its I/O count through the ssh carrier, the
# controller's rule on the merged series tells all six measure and stop; each measured over
# that window (within 0.5 s: the orders cross ssh)
expect_rc 0 "$HCISWEEP" block --clients inventory --inventory "$T/inv.ini" --rw randread --bs 4k \
        --iodepth 4 --ramp-time 1 --runtime 6 --target-ci 1 --json "$T/ci.json"
no_driver_left "--target-ci"
jq -e '.points[0] | .steady as $s | $s.clients == 6 and $s.stonewall == "first"
        and $s.warmup_s == 1 and $s.measured_s == 6 and $s.window_s.end != null
        and .n_clients == 6 and all(.clients[]; .error == null and .iops > 0
                and (.window_s.start - $s.window_s.start | fabs) < 0.5
                and (.window_s.end - $s.window_s.end | fabs) < 0.5)' "$T/ci.json" >/dev/null ||
        fail "--target-ci over ssh: $(jq -c '.points[0] | {steady, c: [.clients[] | {name, window_s, error}]}' "$T/ci.json")"
pass "--target-ci over ssh: one window for six clients from the merged series"

# --- c6's sshd does not answer: exit 3 naming it, before the first point
inventory "$T/down.ini" "$(test_port 3)"
expect_rc 3 "$HCISWEEP" block --clients inventory --inventory "$T/down.ini" --runtime 1 --json "$T/d.json"
grep -q "client c6: .*$(test_addr 6):$(test_port 3)" <<<"$OUT" || fail "c6 is not named: $OUT"
jq -e '.partial == true and (.points | length) == 0' "$T/d.json" >/dev/null || fail "points ran: $(cat "$T/d.json")"
no_driver_left "an unreachable client"
pass "an unreachable client: exit 3 naming it before the first point, no client left"

# --- the same with --clients-optional: c6 is missing (named here and in the result), the
# other five run, exit 0
expect_rc 0 "$HCISWEEP" block --clients inventory --inventory "$T/down.ini" --clients-optional \
        --rw randread --bs 4k --iodepth 1 --runtime 1 --json "$T/o.json"
grep -q "client c6 ($(test_addr 6)) is missing: .*$(test_addr 6):$(test_port 3)" <<<"$OUT" ||
        fail "c6 is not named missing on screen: $OUT"
jq -e '(.clients_missing | length) == 1 and .clients_missing[0].name == "c6"
        and (.clients_missing[0].error | length) > 0 and (.points | length) == 1
        and all(.points[]; .n_clients == 5 and ([.clients[].name] | index("c6")) == null)' \
        "$T/o.json" >/dev/null || fail "--clients-optional: $(jq -c '{clients_missing, p: [.points[] | {n_clients, c: [.clients[].name]}]}' "$T/o.json")"
no_driver_left "a missing client"
pass "--clients-optional: an unreachable client is named missing, the others run, exit 0"
