#!/usr/bin/env bash
# test_driver_hostile.sh - hostile lines from a remote driver:
# a fake `ssh` early on PATH (fake_ssh_driver.py) stands for the driver's host.
# It runs the real driver here against a real MariaDB and relays its lines with
# one hostile turn per case: a started time of INT64_MIN or INT64_MAX, a line
# over DP_LINE_MAX, garbage, a result whose counts wrap, a cpu= negative or
# huge, an ssh that exits 255 or dies of a signal, output cut mid-line, and a
# driver that goes silent (the controller's hang time-out ends it). The
# controller (ASan + UBSan build) survives each with the documented exit code,
# 0 (a run whose steps are degraded ends 0): the driver's figures kept and its start
# left unmeasured, or its part of the step degraded, named; never a sanitizer report
# or a hang, and no driver left running.
. "$TESTLIB"
db_start 1 hostile-drv-39
unset MYSQL_PWD # the driver's password comes from the inventory's file alone
printf '%s\n' "$DB_PW" >"$T/db.pw"
mkdir -p "$T/bin"
ln -s "$SRC/tests/integration/fake_ssh_driver.py" "$T/bin/ssh"
export PATH=$T/bin:$PATH
cat >"$T/inv.ini" <<EOF
[host h1]
role = both
ssh = root@$(test_addr 2):22
hcisweep = $HCISWEEP

[db1]
host = $(test_addr 0)
port = $(test_port 0)
user = root
password_file = db.pw
hypervisor = h1
EOF
S=(scale --backend static --inventory "$T/inv.ini" --driver-placement vm --vms 1 --tables 1
        --table-size 500 --threads 2 --time 2 --warmup-time 0.5)
PAT="--mysql-host=$(test_addr 0):.*--start-on-go"
drivers() { pgrep -f -- "$PAT" || true; }
N=0 BAD=0
# hostile CASE STATE FRAGMENT: scale with the fake's CASE exits 0 (a run whose steps are
# degraded ends 0), its step STATE, saying FRAGMENT; no sanitizer report, no raw ESC
# from the other end, no hang (the time-out) and no driver left
hostile() {
        local c=$1 state=$2 frag=$3 rc=0 out res
        N=$((N + 1))
        out=$(HOSTILE_DRIVER_CASE=$c timeout -k 5 200 "$HCISWEEP" "${S[@]}" --output-dir "$T/r-$c" 2>&1 </dev/null) || rc=$?
        echo "$out" >"$T/$c.out"
        res=$(sed -n 's/^result: //p' <<<"$out")
        if [ "$rc" -ne 0 ] || ! grep -qaF -- "$frag" <<<"$out" || grep -qa $'\x1b' <<<"$out" ||
                grep -qaE 'AddressSanitizer|LeakSanitizer|runtime error:' <<<"$out" ||
                ! jq -e --arg s "$state" '.steps[0].state == $s' "$res" >/dev/null 2>&1; then
                echo "case $c: want exit 0, step $state and '$frag', got exit $rc" >&2
                tail -6 <<<"$out" | cat -v | sed 's/^/    /' >&2
                BAD=$((BAD + 1))
        fi
        if [ -n "$(drivers)" ]; then
                echo "case $c: drivers left: $(drivers)" >&2
                drivers | xargs -r kill
                BAD=$((BAD + 1))
        fi
}
hostile none ok "result: "
jq -e '.steps[0].drivers[0] | .tps > 0 and .start_skew_ms != null and .cpu_s > 0' "$T"/r-none/*/result.json >/dev/null ||
        fail "the relayed driver: $(jq -c '.steps[0].drivers' "$T"/r-none/*/result.json)"
# a started time no clock holds: the driver's figures kept, its start left unmeasured
hostile started_min ok "vm1's driver: started -9223372036854775808 ns from its go: not a start, left unmeasured"
hostile started_max ok "ns from its go: not a start, left unmeasured"
for c in started_min started_max; do
        jq -e '.steps[0].drivers[0].start_skew_ms == null' "$T/r-$c"/*/result.json >/dev/null ||
                fail "$c: a start recorded: $(jq -c '.steps[0].drivers' "$T/r-$c"/*/result.json)"
done
hostile long degraded "vm1's driver broke the protocol: a line over 1024 bytes"
hostile garbage degraded "vm1's driver broke the protocol: a malformed line 'hcisweep-driver ready \x1b[31m"
hostile wrap degraded "not an oltp result: JSON: too big integer"
hostile cpu_neg degraded "vm1's driver broke the protocol: a number out of range in 'hcisweep-driver result cpu=-5'"
hostile cpu_huge degraded "a number out of range in 'hcisweep-driver result cpu=1e308'"
hostile exit_255 degraded "vm1's driver exited 255"
hostile exit_signal degraded "vm1's driver killed by signal 11"
hostile midline degraded "vm1's driver gave no result"
hostile silent degraded "vm1's driver hung past its window"
[ "$BAD" -eq 0 ] || fail "$BAD of $N cases failed"
pass "a hostile remote driver through a fake ssh: $N cases survived with exit 0, each named, the step degraded"
