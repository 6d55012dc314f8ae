#!/bin/bash
# test_scale_ssh.sh - `scale --backend static --driver-placement vm`: every
# VM's driver runs over OpenSSH on the host its inventory names. The test
# runs its own sshd (its own loopback address, port, host key and
# authorized keys, no password, no PAM) and two MariaDB servers; the
# inventory's [host h1] has `ssh = root@ADDR:PORT` and an ssh_config giving
# the client the test's key and known_hosts (root's ~/.ssh is never read).
# Checks: a 1,2 plan where each driver is a child of that sshd, its password
# on no command line, drivers[] {where: ssh, host}, each driver's TPS > 0,
# the step's TPS their sum, the histogram their transactions; a key the
# server does not know, and a remote hcisweep of another version, stop the
# run before any step (exit 3 naming the host); an ssh client killed mid-step
# degrades its VM and its remote driver still ends (its input ended); SIGINT
# stops every driver with what each measured (exit 130); a remote clock shifted by 7 s
# (libfaketime) is measured and the skew stays under 1% of the run; cpu_s is the driver's
# own, from its result line. After every run no driver is left, here or "there".
. "$TESTLIB"

SSHD=/usr/sbin/sshd
[ -x "$SSHD" ] && command -v ssh >/dev/null && command -v ssh-keygen >/dev/null ||
        fail "openssh-server and openssh-client are not installed (scripts/install-deps.sh)"
# sshd's privilege-separation directory lives on a tmpfs: gone after a reboot
mkdir -p /run/sshd
# ssh finds ~ in the passwd entry, not $HOME: the test's config keeps it out of there
HOME_SSH=$(getent passwd "$(id -u)" | cut -d: -f6)/.ssh
ssh_home() { ls -la --time-style=full-iso "$HOME_SSH" 2>&1; }
SSH_HOME_BEFORE=$(ssh_home)

db_start 2 "ssh-test-pw-$$"
unset MYSQL_PWD # the drivers' password comes from the inventory's file alone
printf '%s\n' "$DB_PW" >"$T/db.pw"
DB0=$(test_addr 0) DB1=$(test_addr 1)

# --- the test's own sshd ----------------------------------------------------
SSH_ADDR=$(test_addr 2)
SSH_PORT=$(test_port 2)
for k in host_key client_key other_key; do
        ssh-keygen -q -t ed25519 -N '' -C "$TEST_NAME" -f "$T/$k" || fail "ssh-keygen $k"
done
cp "$T/client_key.pub" "$T/authorized_keys"
echo "[$SSH_ADDR]:$SSH_PORT $(cut -d' ' -f1,2 "$T/host_key.pub")" >"$T/known_hosts"
cat >"$T/sshd_config" <<EOF
ListenAddress $SSH_ADDR
Port $SSH_PORT
HostKey $T/host_key
AuthorizedKeysFile $T/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PidFile $T/sshd.pid
AcceptEnv ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
EOF
"$SSHD" -D -e -f "$T/sshd_config" 2>"$T/sshd.log" &
SSHD_PID=$!
on_exit "kill $SSHD_PID"
wait_port "$SSH_ADDR" "$SSH_PORT"

# The client's config: the test's key and known_hosts only. The remote driver
# runs under the sanitizer options of this run, as a local one would.
client_config() { # client_config FILE KEY
        local env="" v
        for v in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS; do
                [ -n "${!v:-}" ] && env+=" $v=${!v}"
        done
        cat >"$1" <<EOF
IdentityFile $2
IdentitiesOnly yes
IdentityAgent none
UserKnownHostsFile $T/known_hosts
GlobalKnownHostsFile /dev/null
StrictHostKeyChecking yes
EOF
        [ -z "$env" ] || echo "SetEnv$env" >>"$1"
}
client_config "$T/ssh_config" "$T/client_key"
client_config "$T/wrong_config" "$T/other_key"

inventory() { # inventory FILE SSH_CONFIG HCISWEEP
        cat >"$1" <<EOF
[host h1]
role = both
ssh = root@$SSH_ADDR:$SSH_PORT
ssh_config = $2
hcisweep = $3

[db1]
host = $DB0
port = $(test_port 0)
user = root
password_file = db.pw
hypervisor = h1

[db2]
host = $DB1
port = $(test_port 1)
user = root
password_file = db.pw
hypervisor = h1
EOF
}
INV=$T/inventory.ini
inventory "$INV" ssh_config "$HCISWEEP"

S=(scale --backend static --inventory "$INV" --driver-placement vm --tables 2 --table-size 500
        --threads 2 --warmup-time 0.5)
# Every driver of this test, here (an ssh client, whose remote command holds the words
# quoted) or there (`hcisweep oltp run` under the sshd): both name a database of this test.
PAT="--mysql-host=($DB0|$DB1):.*--start-on-go"
drivers() { pgrep -f -- "$PAT" || true; }
remote_drivers() { pgrep -f -- "oltp run .*$PAT" || true; }
no_drivers() { [ -z "$(drivers)" ] || fail "drivers left running: $(drivers | xargs -r ps -o pid=,args= -p)"; }
result_of() { sed -n 's/^result: \([^ ]*\).*/\1/p' "$1"; }
measuring() { grep -qs "s measured, [0-9]* transaction" "$1"/scale-*/driver-*-vm"$2".log; }
has_remote() { [ "$(remote_drivers | wc -l)" -eq "$1" ]; }

# 1. a 1,2 plan over ssh, checked while it runs and after
"$HCISWEEP" "${S[@]}" --vms 1,2 --time 4 --output-dir "$T/ok" >"$T/ok.out" 2>&1 &
SP=$!
on_exit "kill $SP"
# each remote driver seen alive with its parent: run by sshd, no password on either
# command line; a driver that ended between the listing and the look is not counted,
# and the look is taken again until it has seen one
checked=0
check_remote_drivers() {
        local pid parent comm
        for pid in $(remote_drivers); do
                parent=$(ps -o ppid= -p "$pid" | tr -d ' ')
                comm=$([ -z "$parent" ] || ps -o comm= -p "$parent")
                [ -n "$comm" ] && kill -0 "$pid" 2>/dev/null || continue
                [ "$comm" = sshd ] || fail "driver $pid is not run by sshd (parent $parent: $comm)"
                ! grep -qF -- "$DB_PW" "/proc/$pid/cmdline" 2>/dev/null ||
                        fail "the password is on driver $pid's command line"
                ! grep -qF -- "$DB_PW" "/proc/$parent/cmdline" 2>/dev/null ||
                        fail "the password is on sshd's command line"
                checked=$((checked + 1))
        done
        [ "$checked" -gt 0 ]
}
wait_until 120 has_remote 2
wait_until 120 check_remote_drivers
for pid in $(drivers); do
        ! grep -qF -- "$DB_PW" "/proc/$pid/cmdline" 2>/dev/null || fail "the password is on $pid's command line"
done
wait "$SP" || fail "ssh placement: exit $?: $(tail -5 "$T/ok.out")"
no_drivers
R=$(result_of "$T/ok.out")
[ -f "$R" ] || fail "no result: $(cat "$T/ok.out")"
jq -e --arg h "$SSH_ADDR" '(.steps | length == 2) and all(.steps[];
        .state == "ok" and (.drivers | length) == .vms
        and all(.drivers[]; .where == "ssh" and .host == $h and .exit == 0
                and (.start_skew_ms | fabs) < 40 and .tps > 0 and .pid > 0)
        and (.totals.tps - ([.drivers[].tps] | add) | fabs) <= 1e-6 * .totals.tps
        and .hist.count == .totals.transactions
        and ([.hosts[].totals.transactions] | add) == .totals.transactions)' "$R" >/dev/null ||
        fail "drivers over ssh: $(jq -c '[.steps[] | {vms, state, t: .totals.tps, hist: .hist.count,
                txns: .totals.transactions, drivers}]' "$R")"
jq -r '.steps[] | "\(.vms) VMs: TPS \(.totals.tps) = drivers \([.drivers[].tps] | join(" + "))"' "$R"
grep -q "hcisweep-driver result" "$T"/ok/scale-*/driver-2vm-r1-vm2.log &&
        fail "the protocol leaked into the driver's log"
pass "1,2 VMs over ssh: each driver under sshd, no password on a command line, TPS summed"

# 2. a key the server does not know: exit 3 naming the host, before any step
inventory "$T/wrong.ini" wrong_config "$HCISWEEP"
expect_rc 3 "$HCISWEEP" "${S[@]}" --inventory "$T/wrong.ini" --vms 1,2 --time 4 --output-dir "$T/wrong"
grep -q "root@$SSH_ADDR:$SSH_PORT: could not connect or log in.*Permission denied" <<<"$OUT" ||
        fail "wrong key: $OUT"
[ -z "$(ls "$T/wrong" 2>/dev/null)" ] || fail "a step ran with a wrong key: $(ls -R "$T/wrong")"
# ... and a remote hcisweep of another version, named with this one
printf '#!/bin/sh\necho "hcisweep 0.0.0-other"\n' >"$T/other-hcisweep"
chmod +x "$T/other-hcisweep"
inventory "$T/other.ini" ssh_config "$T/other-hcisweep"
expect_rc 3 "$HCISWEEP" "${S[@]}" --inventory "$T/other.ini" --vms 1 --time 4 --output-dir "$T/other"
mine=$("$HCISWEEP" --version | cut -d' ' -f2)
grep -qF "root@$SSH_ADDR:$SSH_PORT: $T/other-hcisweep there is version 0.0.0-other, this one is $mine" <<<"$OUT" ||
        fail "other version: $OUT"
[ -z "$(ls "$T/other" 2>/dev/null)" ] || fail "a step ran against another version"
# ... and shell metacharacters in a remote word (the hcisweep path) reach the real remote
# shell as one word: the program at that path answers, and nothing they spell is run
ODD="$T/b in;touch \$HOME_SSH_X;'q\"\$(touch $T/pwned)\`touch $T/pwned2\`&|<>*"
mkdir -p "$ODD"
cp "$T/other-hcisweep" "$ODD/hcisweep"
inventory "$T/odd.ini" ssh_config "$ODD/hcisweep"
expect_rc 3 "$HCISWEEP" "${S[@]}" --inventory "$T/odd.ini" --vms 1 --time 4 --output-dir "$T/odd"
grep -qF "root@$SSH_ADDR:$SSH_PORT: $ODD/hcisweep there is version 0.0.0-other" <<<"$OUT" ||
        fail "metacharacters in a remote word: $OUT"
ls "$T" | grep -q pwned && fail "a remote word's metacharacters ran a command"
no_drivers
pass "a refused key and another version: exit 3 naming the host, no step run"

# ... and a hostile remote driver: the right version, then started lines whose numbers
# overflow the controller's arithmetic (INT64_MIN, then past int64). The controller must
# neither overflow (UBSan halts on it here) nor take them for a start: the step degraded
# (the run ends 0, as a run whose every step is degraded does), each line named, no skew.
cat >"$T/hostile-hcisweep" <<EOF
#!/bin/sh
[ "\$1" = --version ] && exec "$HCISWEEP" --version
echo "hcisweep-driver ready"
while read -r l; do case "\$l" in go*) break ;; esac; done
echo "hcisweep-driver started -9223372036854775808"
echo "hcisweep-driver started 99999999999999999999"
exit 7
EOF
chmod +x "$T/hostile-hcisweep"
inventory "$T/hostile.ini" ssh_config "$T/hostile-hcisweep"
expect_rc 0 "$HCISWEEP" "${S[@]}" --inventory "$T/hostile.ini" --vms 1 --time 2 --output-dir "$T/hostile"
grep -q "runtime error" <<<"$OUT" && fail "a remote number overflowed: $OUT"
grep -q "vm1's driver: started .* not a start" <<<"$OUT" || fail "INT64_MIN taken as a start: $OUT"
grep -q "vm1's driver: a number out of range in 'hcisweep-driver started 9999" <<<"$OUT" ||
        fail "a start past int64 not refused: $OUT"
R=$(result_of <(echo "$OUT"))
jq -e '.steps[0].state == "degraded" and .steps[0].drivers[0].start_skew_ms == null
        and .steps[0].drivers[0].exit == 7' "$R" >/dev/null ||
        fail "a hostile start recorded: $(jq -c '.steps[0] | {state, drivers}' "$R")"
no_drivers
pass "a hostile remote driver: its overflowing numbers refused, the step degraded"

# 3. vm2's ssh client SIGKILLed mid-step (a lost connection): its remote driver ends by
#    itself, its input having ended, while vm1's still runs (both were told to go at once
#    with the same --time, so vm2's did not just reach its end); then SIGINT: vm1's figures
#    kept, vm2 degraded
"$HCISWEEP" "${S[@]}" --vms 2 --time 60 --output-dir "$T/kill" >"$T/kill.out" 2>&1 &
SP=$!
on_exit "kill $SP"
wait_until 120 has_remote 2
wait_until 60 measuring "$T/kill" 2
C2=$(pgrep -f -- "^ssh .*--mysql-host=$DB1:") || fail "no ssh client of vm2: $(drivers | xargs -r ps -o args= -p)"
kill -9 "$C2"
remote_of() { remote_drivers | xargs -r ps -o args= -p | grep -q -- "--mysql-host=$1:"; }
r2_gone() { ! remote_of "$DB1"; }
wait_until 30 r2_gone
remote_of "$DB0" || fail "vm1's driver ended too: vm2's may have reached its --time"
kill -INT "$SP"
rc=0
wait "$SP" || rc=$?
[ "$rc" -eq 130 ] || fail "SIGINT after a lost client: exit $rc, want 130: $(tail -5 "$T/kill.out")"
no_drivers
KR=$(result_of "$T/kill.out")
jq -e '.steps[0] | (.error | test("vm2: driver killed by signal 9"))
        and .drivers[0].exit == 130 and .drivers[0].tps > 0 and .drivers[1].tps == null
        and .hosts[0].totals.transactions > 0 and .hosts[1].totals.transactions == 0' "$KR" >/dev/null ||
        fail "killed client: $(jq -c '.steps[0] | {state, error, drivers}' "$KR")"
grep -q "vm2's driver killed by signal 9" "$T/kill.out" || fail "no warning: $(cat "$T/kill.out")"
pass "a killed ssh client: its remote driver ended with its input, vm2 degraded, vm1 kept"

# 4. SIGINT to scale: every remote driver stops and sends back what it measured
"$HCISWEEP" "${S[@]}" --vms 2 --time 30 --output-dir "$T/int" >"$T/int.out" 2>&1 &
SP=$!
on_exit "kill $SP"
wait_until 120 has_remote 2
wait_until 60 measuring "$T/int" 1
wait_until 60 measuring "$T/int" 2
kill -INT "$SP"
rc=0
wait "$SP" || rc=$?
[ "$rc" -eq 130 ] || fail "SIGINT: exit $rc, want 130: $(tail -5 "$T/int.out")"
no_drivers
IR=$(result_of "$T/int.out")
[ -f "$IR" ] || fail "no partial result: $(cat "$T/int.out")"
jq -e '.partial == true and .steps[0].state == "partial"
        and all(.steps[0].drivers[]; .where == "ssh" and .exit == 130 and .tps > 0)
        and .steps[0].totals.transactions > 0' "$IR" >/dev/null ||
        fail "interrupted: $(jq -c '{partial, s: .steps[0] | {state, drivers, totals}}' "$IR")"
pass "SIGINT: exit 130, every driver over ssh stopped with its figures, none left"
# 5. a driver whose host's clock is 7 s ahead (libfaketime on the remote hcisweep): the
#    controller measures the offset over the line (the shortest of several round trips)
#    and takes the driver's start in its own clock, so the recorded skew stays under 1% of
#    the run (the "late" rule) and the offset reported is about the shift. Before the
#    carrier the skew was the shift itself, late, and no offset was recorded.
command -v faketime >/dev/null || fail "faketime is not installed (scripts/install-deps.sh)"
cat >"$T/fake-hcisweep" <<EOF
#!/bin/sh
[ "\$1" = --version ] && exec "$HCISWEEP" --version
# libfaketime comes before the sanitizers' runtime in the link order: allowed here
export ASAN_OPTIONS="\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}verify_asan_link_order=0"
exec faketime -f +7s "$HCISWEEP" "\$@"
EOF
chmod +x "$T/fake-hcisweep"
inventory "$T/fake.ini" ssh_config "$T/fake-hcisweep"
expect_rc 0 "$HCISWEEP" "${S[@]}" --inventory "$T/fake.ini" --vms 1 --time 10 --output-dir "$T/fake"
R=$(result_of <(echo "$OUT"))
[ -f "$R" ] || fail "no result with a shifted remote clock: $OUT"
no_drivers
jq -e '.steps[0] | .state == "ok" and (.drivers[0] | .carrier == "ssh" and .late == false
        and (.start_skew_ms | fabs) < 0.01 * 10 * 1000
        and (.clock_offset_ms - 7000 | fabs) < 1000 and .clock_err_ms >= 0 and .cpu_s > 0)' \
        "$R" >/dev/null ||
        fail "a remote clock 7 s ahead: $(jq -c '.steps[0] | {state, drivers}' "$R")"
jq -r '.steps[0].drivers[0] | "remote clock +7 s: offset \(.clock_offset_ms) ms (+-\(.clock_err_ms)), skew \(.start_skew_ms) ms, cpu \(.cpu_s) s"' "$R"
grep -q "over 1% of the window" <<<"$OUT" && fail "a shifted clock reported late: $OUT"
pass "a remote clock 7 s ahead: the offset measured, the skew under 1% of the run"

# ... and drivers[].cpu_s is what the driver says on its result line (its own getrusage),
# not its ssh client's CPU: a driver that says cpu=123.5 is recorded so
cat >"$T/cpu-hcisweep" <<EOF
#!/bin/sh
[ "\$1" = --version ] && exec "$HCISWEEP" --version
echo "hcisweep-driver ready"
while read -r l; do
        case "\$l" in
        clock) echo "hcisweep-driver clock \$(date +%s%N)" ;;
        go*) break ;;
        esac
done
echo "hcisweep-driver started \$(date +%s%N)"
echo "hcisweep-driver result cpu=123.5"
echo '{"not": "an oltp result"}'
EOF
chmod +x "$T/cpu-hcisweep"
inventory "$T/cpu.ini" ssh_config "$T/cpu-hcisweep"
expect_rc 0 "$HCISWEEP" "${S[@]}" --inventory "$T/cpu.ini" --vms 1 --time 2 --output-dir "$T/cpu"
R=$(result_of <(echo "$OUT"))
jq -e '.steps[0].drivers[0] | .cpu_s == 123.5 and .carrier == "ssh" and .start_skew_ms != null
        and .clock_offset_ms != null' "$R" >/dev/null ||
        fail "the driver's own CPU: $(jq -c '.steps[0].drivers' "$R")"
no_drivers
pass "drivers[].cpu_s is the driver's own, from its result line"
[ "$(ssh_home)" = "$SSH_HOME_BEFORE" ] || fail "$HOME_SSH changed: $(ssh_home)"
pass "the user's own ~/.ssh untouched"
