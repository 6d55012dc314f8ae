#!/usr/bin/env bash
# A full disk under --output-dir mid-run: the command says "no space left on
# DIR", exits 4, and what was saved before stays on disk (marked partial).
# The full disk is a 1 MiB tmpfs of this test's own, filled once the first
# save has landed.
. "$TESTLIB"
. "$SRC/tests/integration/mariadb.sh"
mkdir -p "$T/full"
mount -t tmpfs -o size=1M tmpfs "$T/full" || fail "cannot mount a tmpfs (run as root)"
on_exit "umount '$T/full'"

# fill_after GLOB: wait for GLOB to exist, then fill the filesystem.
fill_after() {
        for _ in $(seq 1 600); do
                compgen -G "$1" >/dev/null && break
                sleep 0.1
        done
        dd if=/dev/zero of="$T/full/fill" bs=64k 2>/dev/null || true
}

# run_full NAME GLOB CMD...: run CMD with the disk filling once GLOB is saved; want exit 4.
run_full() {
        local name=$1 glob=$2 rc=0
        shift 2
        "$@" >"$T/$name.out" 2>&1 &
        local run=$!
        on_exit "kill -9 $run"
        fill_after "$glob"
        wait $run || rc=$?
        [ $rc -eq 4 ] || fail "$name on a full disk: exit $rc, want 4: $(tail -5 "$T/$name.out")"
        grep -q "no space left on $T/full" "$T/$name.out" ||
                fail "$name does not say no space: $(tail -5 "$T/$name.out")"
        rm -f "$T/full/fill"
}

run_full block "$T/full/block-*/result.json" \
        "$HCISWEEP" block --engine null --iodepth 1,2,4 --runtime 1 --output-dir "$T/full"
r=$(echo "$T"/full/block-*/result.json)
jq -e '.partial == true and (.points | length) >= 1 and (.partial_reason | test("running"))' "$r" \
        >/dev/null || fail "block: the saved result is gone or not partial"

# oltp: the periodic save lands, then the disk fills; the final save fails.
db_start 1 full-pw-6
C=(--mysql-host "$DB_HOSTS" --mysql-user root --tables 1 --table-size 1000)
expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"
run_full oltp "$T/full/oltp-*/result.json" \
        "$HCISWEEP" oltp run "${C[@]}" --threads 2 --time 8 --report-interval 1 --output-dir "$T/full"
r=$(echo "$T"/full/oltp-*/result.json)
jq -e '.partial == true and .totals.transactions > 0 and (.partial_reason | test("running"))' "$r" \
        >/dev/null || fail "oltp: the saved result is gone or not partial"
pass "block and oltp: full disk -> exit 4, 'no space left on DIR', the last save kept"
