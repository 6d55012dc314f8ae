#!/usr/bin/env bash
# A full disk under --output-dir mid-run: the command says "no space left on
# DIR", exits 4, and what was saved before stays on disk (marked partial).
# The full disk is a 1 MiB tmpfs of this test's own, filled once the first
# save has landed.
. "$TESTLIB"
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

"$HCISWEEP" block --engine null --iodepth 1,2,4 --runtime 1 --output-dir "$T/full" \
        >"$T/block.out" 2>&1 &
run=$!
on_exit "kill -9 $run"
fill_after "$T/full/block-*/result.json"
rc=0
wait $run || rc=$?
[ $rc -eq 4 ] || fail "block on a full disk: exit $rc, want 4: $(cat "$T/block.out")"
grep -q "no space left on $T/full" "$T/block.out" || fail "block does not say no space: $(cat "$T/block.out")"
r=$(echo "$T"/full/block-*/result.json)
jq -e '.partial == true and (.points | length) >= 1 and (.partial_reason | test("running"))' "$r" \
        >/dev/null || fail "block: the saved result is gone or not partial"
pass "block: full disk -> exit 4, 'no space left', earlier points kept"
