# tests/qemu.sh - what the tests of a real guest (the qemu and libvirt backends) set up
# alike. Source it after lib.sh: . "$SRC/tests/qemu.sh". It sets
#   ADDR BASE PORT TPORT  this test's first loopback address and its prefix (VM N is at
#                         BASE.N), the VMs' MariaDB base port and the target's port
#   LAB                   the lab's directory, $T/lab
#   CACHE                 the guest image cache: $HCISWEEP_GUEST_DIR as the test found it,
#                         default /var/tmp/hcisweep-guest
#   QEMU_LAB              the qemu backend's lab options on those (a test's common[])
# and gives
#   need_socat            skip the test (exit 77) when socat, its way to the agent, is missing
#   guest_image [skip]    GUEST: the image of scripts/build-guest-image.sh in CACHE, built
#                         there unless its recipe's hash is cached (the time it took
#                         printed); a failed build fails the test, or with "skip" skips it
#   guest_pin             HCISWEEP_GUEST_DIR=$T/guest, whose current is GUEST: another
#                         checkout's test, building another recipe, may move CACHE/current
#                         at any time
#   lab_qemus             the PIDs of the QEMUs whose command line names $LAB
# and QEMU's guest agent of vm1 (the qemu backend's socket LAB/vm1/qga.sock, through
# socat; QEMU's chardev serves one client, so only while no bridge holds it):
#   guest_exec ARGS WAIT  guest-exec with ARGS (the JSON of its arguments), waited for up
#                         to WAIT s; the agent's last reply, the status, in REPLY_LINE
#   guest_sh CMD          CMD's stdout, run by /bin/sh in the guest (30 s at most)
#   AGENT_WAIT            the seconds one reply of the agent may take (default 30)
ADDR=$(test_addr 0)
BASE=${ADDR%.*}
PORT=$(test_port 0)
TPORT=$(test_port 1)
LAB=$T/lab
CACHE=${HCISWEEP_GUEST_DIR:-/var/tmp/hcisweep-guest}
QEMU_LAB=(--backend qemu --lab-dir "$LAB" --addr-base "$BASE" --base-port "$PORT"
        --target-port "$TPORT")
AGENT_WAIT=${AGENT_WAIT:-30}

need_socat() {
        command -v socat >/dev/null ||
                { echo "skip: socat not installed (scripts/install-deps.sh)"; exit 77; }
}

guest_image() {
        local t0
        t0=$(date +%s)
        GUEST=$("$SRC/scripts/build-guest-image.sh" "$CACHE" 2>"$T/build.err") || {
                tail -5 "$T/build.err" >&2
                [ "${1:-}" = skip ] && { echo "skipped: no guest image could be built"; exit 77; }
                fail "image build failed"
        }
        echo "# image build (or cache check): $(($(date +%s) - t0)) s"
}

guest_pin() {
        mkdir "$T/guest"
        ln -s "$GUEST" "$T/guest/current"
        export HCISWEEP_GUEST_DIR=$T/guest
}

lab_qemus() { pgrep -f -- "qemu-system-x86_64 .*$LAB/" || true; }

# --- the guest agent, spoken to from here ---------------------------------------------
agent_open() {
        coproc QGA { socat - "UNIX-CONNECT:$LAB/vm1/qga.sock"; }
        printf '\xff{"execute":"guest-sync-delimited","arguments":{"id":4711}}\n' >&"${QGA[1]}"
        agent_reply '4711'
}
agent_reply() { # the next reply line holding $1 (others dropped), in REPLY_LINE
        local line
        while IFS= read -r -t "$AGENT_WAIT" line <&"${QGA[0]}"; do
                [[ $line == *"$1"* ]] && { REPLY_LINE=$line; return 0; }
        done
        fail "no reply from the guest agent holding $1"
}
agent_close() { exec {QGA[1]}>&-; wait "$QGA_PID" 2>/dev/null || true; }
exec_done() {
        printf '{"execute":"guest-exec-status","arguments":{"pid":%s}}\n' "$1" >&"${QGA[1]}"
        agent_reply '"return"'
        [[ $REPLY_LINE == *'"exited": true'* || $REPLY_LINE == *'"exited":true'* ]]
}
guest_exec() {
        local pid
        agent_open
        printf '{"execute":"guest-exec","arguments":%s}\n' "$1" >&"${QGA[1]}"
        agent_reply '"pid"'
        pid=$(sed 's/.*"pid": *\([0-9]*\).*/\1/' <<<"$REPLY_LINE")
        wait_until "$2" exec_done "$pid"
        agent_close
}
guest_sh() {
        guest_exec "$(jq -cn --arg c "$1" '{path: "/bin/sh", arg: ["-c", $c], "capture-output": true}')" 30
        jq -r '.return["out-data"] // ""' <<<"$REPLY_LINE" | base64 -d
}
