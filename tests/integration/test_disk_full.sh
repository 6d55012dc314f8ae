#!/usr/bin/env bash
# A full disk under every command that writes: block, oltp and scale fill
# it mid-run (once the first save has landed) and say "no space left on
# DIR", exit 4, and keep what was saved before (marked partial); compare
# --json/--html, analyze --json and report --output-dir meet it full and
# exit 4 too. The full disk is a 1 MiB tmpfs of this test's own.
. "$TESTLIB"
mkdir -p "$T/full"
mount -t tmpfs -o size=1M tmpfs "$T/full" || fail "cannot mount a tmpfs (run as root)"
on_exit "umount '$T/full'"

# saved GLOB [JQ]: a file matching GLOB exists (and JQ holds of it).
saved() {
        local f
        f=$(compgen -G "$1" | head -1)
        [ -n "$f" ] && { [ -z "${2:-}" ] || jq -e "$2" "$f" >/dev/null 2>&1; }
}

# fill_after GLOB [JQ]: wait until GLOB is saved (and JQ holds of it), then fill the filesystem.
fill_after() {
        wait_until 60 saved "$@"
        dd if=/dev/zero of="$T/full/fill" bs=64k 2>/dev/null || true
}

# run_full NAME GLOB JQ CMD...: run CMD with the disk filling once GLOB is saved (and JQ
# holds of it); want exit 4.
run_full() {
        local name=$1 glob=$2 cond=$3 rc=0
        shift 3
        "$@" >"$T/$name.out" 2>&1 &
        local run=$!
        on_exit "kill -9 $run"
        fill_after "$glob" "$cond"
        wait $run || rc=$?
        [ $rc -eq 4 ] || fail "$name on a full disk: exit $rc, want 4: $(tail -5 "$T/$name.out")"
        grep -q "no space left on $T/full" "$T/$name.out" ||
                fail "$name does not say no space: $(tail -5 "$T/$name.out")"
        rm -f "$T/full/fill"
}

run_full block "$T/full/block-*/result.json" '(.points | length) >= 1' \
        "$HCISWEEP" block --engine null --iodepth 1,2,4 --runtime 1 --output-dir "$T/full"
r=$(echo "$T"/full/block-*/result.json)
jq -e '.partial == true and (.points | length) >= 1 and (.partial_reason | test("running"))' "$r" \
        >/dev/null || fail "block: the saved result is gone or not partial"

# oltp: the periodic save lands, then the disk fills; the final save fails.
db_start 2 full-pw-6
C=(--mysql-host "$DB_HOSTS" --mysql-user root --tables 1 --table-size 1000)
expect_rc 0 "$HCISWEEP" oltp prepare "${C[@]}"
run_full oltp "$T/full/oltp-*/result.json" '' \
        "$HCISWEEP" oltp run "${C[@]}" --threads 2 --time 8 --report-interval 1 --output-dir "$T/full"
r=$(echo "$T"/full/oltp-*/result.json)
jq -e '.partial == true and .totals.transactions > 0 and (.partial_reason | test("running"))' "$r" \
        >/dev/null || fail "oltp: the saved result is gone or not partial"
pass "block and oltp: full disk -> exit 4, 'no space left on DIR', the last save kept"

# scale on a static inventory of the two servers: step 1 is saved, the disk
# fills during step 2, the final save fails.
printf '%s' "$MYSQL_PWD" >"$T/db.pw"
for i in 0 1; do
        printf '[db%d]\nhost = %s\nport = %s\nuser = root\npassword_file = %s\n\n' \
                "$i" "$(test_addr $i)" "$(test_port $i)" "$T/db.pw"
done >"$T/inventory.ini"
run_full scale "$T/full/scale-*/result.json" '' \
        "$HCISWEEP" scale --backend static --inventory "$T/inventory.ini" --vms 1,2 \
        --tables 1 --table-size 1000 --threads 1 --time 3 --warmup-time 0 --output-dir "$T/full"
r=$(echo "$T"/full/scale-*/result.json)
jq -e '.partial == true and (.steps | length) == 1' "$r" >/dev/null ||
        fail "scale: the saved result is gone or not partial: $(jq -c '{partial, n: (.steps | length)}' "$r")"
pass "scale: full disk -> exit 4, step 1 kept, marked partial"

# The readers' outputs: results on a disk with room, outputs on the full one.
expect_rc 0 "$HCISWEEP" block --engine null --iodepth 1,2,4 --runtime 1 --json "$T/b1.json"
expect_rc 0 "$HCISWEEP" block --engine null --iodepth 1,2,4 --runtime 1 --json "$T/b2.json"
dd if=/dev/zero of="$T/full/fill" bs=64k 2>/dev/null || true
for c in "compare --json:compare $T/b1.json $T/b2.json --output-dir $T --json $T/full/c.json" \
        "compare --html:compare $T/b1.json $T/b2.json --html $T/full/c.html" \
        "analyze --json:analyze $T/b1.json --json $T/full/a.json" \
        "report --output-dir:report $T/b1.json --output-dir $T/full/rep"; do
        # shellcheck disable=SC2086 # the command line is split on purpose
        expect_rc 4 "$HCISWEEP" ${c#*:}
        grep -q "no space left on $T/full" <<<"$OUT" || fail "${c%%:*} does not say no space: $OUT"
done
rm -f "$T/full/fill"
pass "compare --json/--html, analyze --json, report --output-dir: full disk -> exit 4"
