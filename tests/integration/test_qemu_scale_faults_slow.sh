# test_qemu_scale_faults_slow.sh - `hcisweep scale --backend qemu` when a
# VM does not come up, and when the user interrupts a boot:
#   - a guest whose root disk holds no filesystem: its initramfs gives up
#     and QEMU exits; the step is marked failed, exit 3, the console's last
#     lines (with the initramfs's complaint) are kept in the run directory
#     and named in result.json, and no QEMU is left;
#   - a good guest with --boot-timeout 5: MariaDB cannot answer that soon
#     under TCG; the step fails naming the timeout, exit 3, no QEMU left;
#   - SIGINT while the guest boots: exit 130 within seconds (not after the
#     boot timeout), a partial result marked interrupted, no QEMU left.
# Uses the cached guest image of scripts/build-guest-image.sh (built if
# missing) and runs one VM at a time.
. "$TESTLIB"

. "$SRC/tests/qemu.sh"
common=("${QEMU_LAB[@]}" --vm-cpus 1 --vm-memory 512M --lun-size 128M)
run=(--vms 1 --time 2 --warmup-time 0 --tables 1 --table-size 100 --output-dir "$T/runs")
kill_qemus() { lab_qemus | xargs -r kill -9; }
on_exit kill_qemus
on_exit "$HCISWEEP" lab down "${common[@]}"
no_qemu() { [ -z "$(lab_qemus)" ]; }
a_qemu() { [ -n "$(lab_qemus)" ]; }
no_qemu_left() { # no_qemu_left WHAT: QEMU of the lab gone after WHAT
        echo "# $1: waiting for the lab's QEMU to go"
        wait_until 10 no_qemu
}
only_run() { # the one run directory under $T/runs, then removes it from there
        local d
        d=$(find "$T/runs" -mindepth 1 -maxdepth 1 -type d -name 'scale-*')
        [ "$(wc -l <<<"$d")" -eq 1 ] && [ -n "$d" ] || fail "$1: run directories: '$d'"
        mv "$d" "$T/run-$1" && echo "$T/run-$1"
}

guest_image

# --- a guest that cannot mount its root: QEMU exits, the step fails ---------------
mkdir -p "$T/bad/current"
ln -s "$GUEST/vmlinuz" "$GUEST/initrd.img" "$T/bad/current/"
truncate -s 64M "$T/bad/current/image.raw" # all zeros: no filesystem
t0=$(date +%s)
expect_rc 3 env HCISWEEP_GUEST_DIR="$T/bad" "$HCISWEEP" scale "${common[@]}" "${run[@]}"
echo "# unbootable guest failed after $(($(date +%s) - t0)) s"
grep -q "vm1: QEMU exited during boot" <<<"$OUT" || fail "no boot failure named: $OUT"
no_qemu_left "unbootable guest"
D=$(only_run bad)
R=$D/result.json
[ "$(jq -r '.steps[0].state' "$R")" = failed ] || fail "step state: $(jq -c '.steps[0]' "$R")"
jq -e '.partial == true' "$R" >/dev/null || fail "a failed run is not marked partial"
[ "$(jq -r '.steps[0].console_logs[0]' "$R")" = console-1vms-vm1.log ] ||
        fail "console_logs: $(jq -c '.steps[0].console_logs' "$R")"
C=$D/console-1vms-vm1.log
[ -s "$C" ] || fail "no console log kept in $D: $(ls "$D")"
grep -qi "root" "$C" || fail "the console tail does not say why: $(tail -5 "$C")"
jq -r '.steps[0].error' "$R" | grep -q "console (.*): .*[a-z]" || fail "error without console tail"
jq -r '.steps[0].error' "$R" | grep -q $'\r' && fail "carriage returns in the error"
pass "unbootable guest: step failed, exit 3, console tail kept ($(wc -l <"$C") lines), no QEMU"

# --- MariaDB does not answer within --boot-timeout -----------------------------
export HCISWEEP_GUEST_DIR=$CACHE
expect_rc 3 "$HCISWEEP" scale "${common[@]}" "${run[@]}" --boot-timeout 5
grep -q "MariaDB did not answer within 5 s" <<<"$OUT" || fail "no timeout named: $OUT"
no_qemu_left "boot timeout"
D=$(only_run timeout)
[ "$(jq -r '.steps[0].state' "$D/result.json")" = failed ] || fail "timeout step not failed"
jq -r '.steps[0].error' "$D/result.json" | grep -q "within 5 s" || fail "timeout not in result"
pass "--boot-timeout 5: step failed, exit 3, no QEMU"

# --- SIGINT during the boot ------------------------------------------------------
"$HCISWEEP" scale "${common[@]}" "${run[@]}" >"$T/int.out" 2>&1 &
SP=$!
on_exit kill -9 "$SP"
wait_until 30 a_qemu
sleep 2 # the signal lands 2 s into the boot: the boot's own length so far, not a wait
t0=$(date +%s)
kill -INT "$SP"
rc=0
wait "$SP" || rc=$?
waited=$(($(date +%s) - t0))
[ "$rc" -eq 130 ] || fail "SIGINT during boot: exit $rc: $(cat "$T/int.out")"
[ "$waited" -lt 120 ] || fail "SIGINT acted on after $waited s (the boot timeout is 240 s)"
no_qemu_left "SIGINT"
D=$(only_run int)
jq -e '.partial == true and .status == "interrupted"' "$D/result.json" >/dev/null ||
        fail "interrupted result: $(jq -c '{partial, status}' "$D/result.json")"
grep -q "boot interrupted" "$D/result.json" || fail "the step does not say it was interrupted"
pass "SIGINT during the boot: exit 130 after ${waited} s, partial result, no QEMU"
