#!/usr/bin/env bash
# A job file names the files of its own run, wherever it is run from: a run's
# job.ini records every path absolute (--filename, --output-dir, a password
# file), so `hcisweep run A/runs/RUN/job.ini` from directory B writes A's
# victim.img and A's runs/, never B's files of the same names (it overwrote
# B's victim.img before); an oltp run with a relative --mysql-password-file
# logs in again from elsewhere (it exited 2); and a hand-written job file's
# relative paths are read relative to the job file, not the current directory.
. "$TESTLIB"
A=$T/A B=$T/B
mkdir -p "$A" "$B"
sum() { md5sum <"$1" | cut -d' ' -f1; }
# only_in DIR NAME...: DIR holds exactly the entries NAME... (sorted).
only_in() {
        local dir=$1 got
        shift
        got=$(cd "$dir" && ls -A | sort | tr '\n' ' ')
        [ "$got" = "$* " ] || fail "$dir holds '$got', want '$* '"
}

# --- a block run's job.ini, rerun from another directory ---
(cd "$A" && "$HCISWEEP" block --engine psync --filename victim.img --rw randwrite --size 1M \
        --runtime 1 >"$T/a.out" 2>&1) || fail "block in A: $(cat "$T/a.out")"
job=$(ls "$A"/runs/block-*/job.ini) || fail "no job.ini in $A/runs"
grep -qx "filename = $A/victim.img" "$job" || fail "filename not absolute in job.ini: $(cat "$job")"
grep -qx "output-dir = $A/runs" "$job" || fail "output-dir not absolute in job.ini"
dd if=/dev/zero of="$A/victim.img" bs=1M count=1 conv=notrunc status=none
head -c 1M /dev/urandom >"$B/victim.img"
a0=$(sum "$A/victim.img") b0=$(sum "$B/victim.img")
rel=$(realpath --relative-to="$B" "$job")
(cd "$B" && "$HCISWEEP" run "$rel" >"$T/rerun.out" 2>&1) || fail "rerun from B: $(cat "$T/rerun.out")"
[ "$(sum "$B/victim.img")" = "$b0" ] || fail "the rerun from B wrote B's victim.img"
[ "$(sum "$A/victim.img")" != "$a0" ] || fail "the rerun from B did not write A's victim.img"
[ "$(ls -d "$A"/runs/block-* | wc -l)" -eq 2 ] || fail "the rerun's result is not in $A/runs"
only_in "$B" victim.img
pass "block job.ini rerun from elsewhere writes the original run's file and runs dir only"

# --- a hand-written job file with relative paths, run from another directory ---
mkdir -p "$T/jobs/data"
cat >"$T/jobs/rel.ini" <<'EOF'
[global]
engine = psync
rw = randwrite
size = 1M
runtime = 1

[to-json]
filename = data/x.img
json = res.json

[to-dir]
filename = ./data/y.img,data/z.img
output-dir = out
EOF
(cd "$B" && "$HCISWEEP" run ../jobs/rel.ini >"$T/rel.out" 2>&1) || fail "rel.ini: $(cat "$T/rel.out")"
for f in data/x.img data/y.img data/z.img res.json; do
        [ -s "$T/jobs/$f" ] || fail "$T/jobs/$f not written: $(cat "$T/rel.out")"
done
jq -e --arg d "$T/jobs/data" '.config.filename == ($d + "/x.img")' "$T/jobs/res.json" >/dev/null ||
        fail "the result does not name the file it wrote: $(jq -c .config.filename "$T/jobs/res.json")"
ls "$T"/jobs/out/block-*/result.json >/dev/null 2>&1 || fail "no run dir in $T/jobs/out"
only_in "$B" victim.img
# Two jobs naming one --json by different relative spellings are the same file.
printf '[a]\nengine = null\nruntime = 1\njson = r.json\n[b]\nengine = null\nruntime = 1\njson = ./r.json\n' \
        >"$T/jobs/same.ini"
cd "$B"
expect_rc 2 "$HCISWEEP" run ../jobs/same.ini
cd "$T"
grep -q "same.ini:8: jobs \[a\] and \[b\] both write --json ./r.json" <<<"$OUT" ||
        fail "one --json by two spellings not refused: $OUT"
pass "a job file's relative paths are relative to the job file"

# --- an oltp run with a relative --mysql-password-file, rerun from elsewhere ---
db_start 1 elsewhere-pw-5
printf '%s\n' "$MYSQL_PWD" >"$A/pw"
chmod 600 "$A/pw"
unset MYSQL_PWD # the password comes from the file, or nowhere
C=(--mysql-host "$DB_HOSTS" --mysql-user root --mysql-password-file pw --tables 1 --table-size 100)
(cd "$A" && "$HCISWEEP" oltp prepare "${C[@]}" >"$T/op.out" 2>&1) || fail "prepare: $(cat "$T/op.out")"
(cd "$A" && "$HCISWEEP" oltp run "${C[@]}" --time 1 >"$T/or.out" 2>&1) || fail "run: $(cat "$T/or.out")"
job=$(ls "$A"/runs/oltp-*/job.ini) || fail "no oltp job.ini in $A/runs"
grep -qx "mysql-password-file = $A/pw" "$job" || fail "password file not absolute: $(cat "$job")"
grep -q "elsewhere-pw-5" "$job" && fail "job.ini holds the password"
(cd "$B" && "$HCISWEEP" run "$job" >"$T/orr.out" 2>&1) || fail "oltp rerun from B: $(cat "$T/orr.out")"
[ "$(ls -d "$A"/runs/oltp-* | wc -l)" -eq 2 ] || fail "the oltp rerun's result is not in $A/runs"
for r in "$A"/runs/oltp-*/result.json; do
        jq -e '.totals.transactions > 0 and .partial != true' "$r" >/dev/null ||
                fail "$r: no transaction, or partial: $(cat "$T/orr.out")"
done
only_in "$B" victim.img
pass "oltp job.ini with a relative password file reruns from elsewhere"
