#!/usr/bin/env bash
# `hcisweep run JOBFILE`: [global] applies to every job, jobs run in order,
# and a bad key is reported with its file and line before anything runs
# (block, scale and oltp jobs).
. "$TESTLIB"

cat >"$T/good.ini" <<INI
[global]
engine = null
runtime = 1

; a queue-depth sweep
[qd]
iodepth = 1,4
json = $T/qd.json

[bs]
bs = 4k,8k
json = $T/bs.json
INI
expect_rc 0 "$HCISWEEP" run "$T/good.ini"
jq -e '(.points | length) == 2 and .config.engine == "null" and .config.iodepth == [1,4]' \
        "$T/qd.json" >/dev/null || fail "job [qd] did not run with global + own options"
jq -e '[.points[].bs] == [4096, 8192] and .config.runtime == 1' "$T/bs.json" >/dev/null ||
        fail "job [bs] did not run with global + own options"

printf '[global]\nengine = null\n\n[a]\nruntime = 1\niodpth = 4\n' >"$T/typo.ini"
expect_rc 2 "$HCISWEEP" run "$T/typo.ini"
grep -q "typo.ini:6: unknown option --iodpth (did you mean --iodepth?)" <<<"$OUT" ||
        fail "bad key not reported with its line: $OUT"

printf '[a]\nengine = null\nruntime = 1\n[b]\niodepth = 0\n' >"$T/range.ini"
expect_rc 2 "$HCISWEEP" run "$T/range.ini"
grep -q "range.ini:5: option --iodepth" <<<"$OUT" || fail "bad value not reported: $OUT"
grep -q "^randread" <<<"$OUT" && fail "job [a] ran although the file was invalid"

printf '[a]\nengine = null\nthis is not ini\n' >"$T/syntax.ini"
expect_rc 2 "$HCISWEEP" run "$T/syntax.ini"
grep -q "syntax.ini:3" <<<"$OUT" || fail "syntax error without its line: $OUT"

# scale jobs are checked against scale's and oltp's options; nothing runs (no lab needed).
printf '[global]\ncommand = scale\nvms = 1,2\nthreads = 2\nblock-load = rw=randrw,bs=4k\n\n[s]\nvm-memroy = 256M\n' \
        >"$T/scale.ini"
expect_rc 2 "$HCISWEEP" run "$T/scale.ini"
grep -q "scale.ini:8: unknown option --vm-memroy (did you mean --vm-memory?)" <<<"$OUT" ||
        fail "bad scale key not reported with its line: $OUT"
printf '[s]\ncommand = scale\nblock-load = rw=randrw,iodpth=4\n' >"$T/load.ini"
expect_rc 2 "$HCISWEEP" run "$T/load.ini"
grep -q "load.ini:3: .*iodpth" <<<"$OUT" || fail "bad --block-load key not reported: $OUT"
grep -q "job \[s\]" <<<"$OUT" && fail "scale job ran although the file was invalid"

# oltp jobs are checked the same way, before the block job ahead of them runs.
printf '[a]\nengine = null\nruntime = 1\n\n[o]\ncommand = oltp run\ntabels = 2\n' >"$T/oltp.ini"
expect_rc 2 "$HCISWEEP" run "$T/oltp.ini"
grep -q "oltp.ini:7: unknown option --tabels (did you mean --tables?)" <<<"$OUT" ||
        fail "bad oltp key not reported with its line: $OUT"
grep -q "^randread" <<<"$OUT" && fail "job [a] ran although the oltp job was invalid"
printf '[o]\ncommand = oltp bench\ntables = 2\n' >"$T/sub.ini"
expect_rc 2 "$HCISWEEP" run "$T/sub.ini"
grep -q "sub.ini:3: unknown command 'oltp bench' (block, oltp prepare|run|cleanup, scale)" \
        <<<"$OUT" || fail "bad oltp subcommand not reported: $OUT"

expect_rc 2 "$HCISWEEP" run "$T/missing.ini"
grep -q "missing.ini" <<<"$OUT" || fail "missing file not named: $OUT"
expect_rc 0 "$HCISWEEP" run --help

# A block job takes the lab options too (--clients vms), and the examples/ job
# files hold only options block knows: against a lab that is not up, each is
# refused for its VM count, not for a key.
for ex in "$SRC"/examples/*.ini; do
        sed "s|^command = block|command = block\nlab-dir = $T/nolab|" "$ex" >"$T/example.ini"
        expect_rc 2 "$HCISWEEP" run "$T/example.ini"
        grep -q "option --vms: [0-9]* VMs asked, the lab has 0" <<<"$OUT" ||
                fail "$(basename "$ex"): not refused for its VM count: $OUT"
done
pass "job files"
