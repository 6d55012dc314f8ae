#!/usr/bin/env bash
# The bad-input catalogue: every case is one line holding the exit code it
# must give and a fragment of the message that must name the option, the
# file or the file:line. A case also fails on any sanitizer report. Nothing
# here needs a server: every mistake is caught before a connection is tried
# (a case that would connect names an address on which nothing listens).
#
# CATALOGUE_LIST=FILE lists every case's exit code and first error line to
# FILE instead of checking them (to record what a build does).
. "$TESTLIB"
cd "$T"
# Listing, a failed extra check is one more line of the list.
[ -n "${CATALOGUE_LIST:-}" ] && fail() { printf 'check\t%s\n' "$*" >>"$CATALOGUE_LIST"; }

N=0
BAD=0
# bad WANT FRAGMENT ARGS...: hcisweep ARGS exits WANT and prints FRAGMENT.
bad() {
        local want=$1 frag=$2 rc=0 out
        shift 2
        N=$((N + 1))
        out=$(timeout 60 "$HCISWEEP" "$@" 2>&1 </dev/null) || rc=$?
        OUT=$out
        if [ -n "${CATALOGUE_LIST:-}" ]; then
                printf '%s\t%s\t%s\n' "$rc" "$*" \
                        "$(grep -m1 -iE 'error|fault|sanitizer' <<<"$out" | cut -c1-160)" >>"$CATALOGUE_LIST"
                return 0
        fi
        if [ "$rc" -ne "$want" ] || ! grep -qF -- "$frag" <<<"$out" ||
                grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' <<<"$out"; then
                echo "case $N: want exit $want and '$frag', got exit $rc: hcisweep $*" >&2
                tail -5 <<<"$out" | sed 's/^/    /' >&2
                BAD=$((BAD + 1))
        fi
}
# job NAME: the job file NAME.ini from stdin; prints its path.
job() { cat >"$T/$1.ini"; }

NUL=127.0.0.1 # nothing listens on port 1: a connection would fail with exit 3
# Every case of a command that could start something carries options that
# keep it small and on this test's own addresses, so a check that regressed
# runs a 1 s job in $T instead of a lab on the default addresses.
ADDR=$(test_addr 0)
LABO=(--lab-dir "$T/lab" --addr-base "${ADDR%.*}" --base-port "$(test_port 0)"
        --target-port "$(test_port 1)" --vm-memory 256M)
B=(block --engine null --runtime 1)
O=(oltp run --mysql-host "$NUL:1" --time 1 --connect-timeout 1)
OP=(oltp prepare --mysql-host "$NUL:1" --connect-timeout 1)
OC=(oltp cleanup --mysql-host "$NUL:1" --connect-timeout 1)
S=(scale --mysql-host "$NUL:1" --mysql-port 1 --time 1 --vms 1 "${LABO[@]}")
L=(lab up --vms 1 "${LABO[@]}")
LS=(lab status "${LABO[@]}")
mkdir -p "$T/dir" "$T/runs"
echo secret >"$T/pw"
truncate -s 8M "$T/ext4.img"
mkfs.ext4 -q -F "$T/ext4.img" || fail "mkfs.ext4"
truncate -s 1M "$T/plain.img"

# --- 1. Empty values: refused, naming the option (they crashed before) ---
bad 2 "option --mysql-host: empty value" "${O[@]}" --mysql-host ''
bad 2 "option --mysql-host: empty value" "${OP[@]}" --mysql-host ''
bad 2 "option --mysql-host: empty value" "${OC[@]}" --mysql-host ''
bad 2 "option --mysql-host: empty value" "${O[@]}" --mysql-host ' '
bad 2 "option --mysql-host: empty value" "${O[@]}" --mysql-host=
bad 2 "option --mysql-host: empty value" "${S[@]}" --mysql-host ''
bad 2 "option --lab-dir: empty value" "${LS[@]}" --lab-dir ''
bad 2 "option --lab-dir: empty value" "${L[@]}" --lab-dir ''
bad 2 "option --lab-dir: empty value" "${S[@]}" --lab-dir ''
bad 2 "option --addr-base: empty value" "${L[@]}" --addr-base ''
bad 2 "option --addr-base: empty value" "${S[@]}" --addr-base ''
bad 2 "option --target-addr: empty value" "${L[@]}" --target-addr ''
bad 2 "option --target-addr: empty value" "${S[@]}" --target-addr ''
bad 2 "option --backend: empty value" "${LS[@]}" --backend ''
bad 2 "option --backend: empty value" "${S[@]}" --backend ''
bad 2 "option --driver: empty value" "${O[@]}" --driver ''
bad 2 "option --output-dir: empty value" "${B[@]}" --output-dir ''
bad 2 "option --output-dir: empty value" "${O[@]}" --output-dir ''
bad 2 "option --output-dir: empty value" "${S[@]}" --output-dir ''
bad 2 "option --mysql-user: empty value" "${O[@]}" --mysql-user ''
bad 2 "option --mysql-user: empty value" "${S[@]}" --mysql-user ''
bad 2 "option --mysql-db: empty value" "${O[@]}" --mysql-db ''
bad 2 "option --mysql-ignore-errors: empty value" "${O[@]}" --mysql-ignore-errors ''
bad 2 "option --libvirt-uri: empty value" "${S[@]}" --libvirt-uri ''
bad 2 "option --engine: empty value" block --engine ''
bad 2 "option --workload: empty value" "${O[@]}" --workload ''
bad 2 "option --rand-type: empty value" "${O[@]}" --rand-type ''
bad 2 "option --topology: empty value" "${S[@]}" --topology ''
bad 2 "option --threads: empty value" "${O[@]}" --threads ''
bad 2 "option --runtime: empty value" block --runtime ''
bad 2 "option --vm-memory: empty value" "${S[@]}" --vm-memory ''
[ -e "$T/(null)" ] && fail "--output-dir '' made a directory named (null)"
# In a job file (and in the INI a run writes) an empty value of an option
# without a default means "not set": `json =` runs into a run directory.
job empty_host <<'EOF'
[a]
command = oltp run
mysql-host =
EOF
bad 2 "empty_host.ini:3: option --mysql-host: empty value" run empty_host.ini
job empty_host_scale <<'EOF'
[a]
command = scale
mysql-host =
EOF
bad 2 "empty_host_scale.ini:3: option --mysql-host: empty value" run empty_host_scale.ini
job empty_user <<'EOF'
[global]
mysql-user =
[a]
command = oltp run
EOF
bad 2 "empty_user.ini:2: option --mysql-user: empty value" run empty_user.ini
job empty_json <<'EOF'
[a]
engine = null
runtime = 1
json =
output-dir = runs
EOF
bad 0 "result: $T/runs/block-" run empty_json.ini

# --- 2. Empty lists and empty list items ---
bad 2 "option --rw: empty value" "${B[@]}" --rw ''
bad 2 "option --bs: empty value" "${B[@]}" --bs ''
bad 2 "option --iodepth: empty value" "${B[@]}" --iodepth ''
bad 2 "option --percentile: empty value" "${B[@]}" --percentile ''
bad 2 "option --percentile: empty value" "${O[@]}" --percentile ''
bad 2 "option --vms: empty value" "${S[@]}" --vms ''
bad 2 "option --target: item 2 of the list is empty" block --target "iscsi://$NUL:1/iqn.x/1,"
bad 2 "option --target: item 2 of the list is empty" block --target "iscsi://$NUL:1/iqn.x/1,,iscsi://$NUL:1/iqn.x/2"
bad 2 "option --target: item 1 of the list is empty" block --target ",iscsi://$NUL:1/iqn.x/1"
bad 2 "option --filename: item 2 of the list is empty" block --filename "plain.img,,plain.img"
bad 2 "option --filename: item 2 of the list is empty" block --filename "plain.img, "
bad 2 "option --mysql-host: item 2 of the list is empty" "${O[@]}" --mysql-host a,,b
bad 2 "option --mysql-host: item 2 of the list is empty" "${O[@]}" --mysql-host a,
bad 2 "option --mysql-host: item 2 of the list is empty" "${S[@]}" --mysql-host a,,b
bad 2 "option --mysql-ignore-errors: item 2 of the list is empty" "${O[@]}" --mysql-ignore-errors 1213,,1205
bad 2 "option --libvirt-uri: item 2 of the list is empty" "${S[@]}" --libvirt-uri 'qemu:///system,'
bad 2 "option --block-load: item 2 of the list is empty" "${S[@]}" --block-load 'rw=randrw,,bs=4k'
bad 2 "option --rw: bad item" "${B[@]}" --rw randread,,write
bad 2 "option --bs" "${B[@]}" --bs 4k,
bad 2 "option --iodepth" "${B[@]}" --iodepth 1,,4
bad 2 "option --percentile: bad item" "${B[@]}" --percentile 50,
bad 2 "option --vms" "${S[@]}" --vms 1,,2
# The secret of a CHAP URL is not echoed by the list check.
bad 2 "option --target: item 2" block --target "iscsi://u%SECRETPW@$NUL:1/iqn.x/1,"
grep -q SECRETPW <<<"$OUT$(timeout 10 "$HCISWEEP" block --target "iscsi://u%SECRETPW@$NUL:1/iqn.x/1," 2>&1)" &&
        fail "the empty-item message echoes the CHAP secret"

# --- 3. iSCSI URLs: a bad port or path is bad input, not another portal ---
bad 2 "a port above 65535" block --target "iscsi://$NUL:69796/iqn.x/1"
bad 2 "a port that is not a number" block --target "iscsi://$NUL:4260abc/iqn.x/1"
bad 2 "a port that is not a number" block --target "iscsi://$NUL:-1/iqn.x/1"
bad 2 "an empty port" block --target "iscsi://$NUL:/iqn.x/1"
bad 2 "port 0" block --target "iscsi://$NUL:0/iqn.x/1"
bad 2 "a port above 65535" block --target "iscsi://$NUL:99999999999999999999/iqn.x/1"
bad 2 "no host" block --target "iscsi:///iqn.x/1"
bad 2 "no host" block --target "iscsi://u%pw@:3260/iqn.x/1"
bad 2 "no /IQN/LUN" block --target "iscsi://$NUL:1"
bad 2 "no /IQN/LUN" block --target "iscsi://$NUL:1/iqn.x"
bad 2 "no LUN after the IQN" block --target "iscsi://$NUL:1/iqn.x/"
bad 2 "a LUN that is not a number" block --target "iscsi://$NUL:1/iqn.x/1x"
bad 2 "a LUN above 16383" block --target "iscsi://$NUL:1/iqn.x/70000"
bad 2 "a bad [IPv6] host" block --target "iscsi://[::1/iqn.x/1"
bad 2 "a port above 65535" block --target "iscsi://u%SECRETPW@$NUL:70000/iqn.x/1"
grep -q SECRETPW <<<"$OUT" && fail "the URL check echoes the CHAP secret"
bad 2 "not an iscsi:// URL" block --target plain.img
bad 2 "a URL (use --target)" block --filename "iscsi://$NUL/iqn.x/1"
bad 2 "the port must be a number 1..65535" "${O[@]}" --mysql-host "$NUL:99999"
bad 2 "the port must be a number 1..65535" "${O[@]}" --mysql-host "$NUL:33x"

# --- 4. Output paths, checked before anything runs ---
bad 2 "option --json: $T/dir: is a directory" "${B[@]}" --json "$T/dir"
bad 2 "option --json: /nonexistent/x.json: directory /nonexistent" "${B[@]}" --json /nonexistent/x.json
mkfifo "$T/fifo"
bad 2 "option --json: $T/fifo: is not a regular file" "${B[@]}" --json "$T/fifo"
bad 2 "option --output-dir: pw/x: pw is not a directory" "${B[@]}" --output-dir pw/x
bad 2 "option --output-dir: pw: pw is not a directory" "${B[@]}" --output-dir pw
bad 2 "option --output-dir: $T/fifo: $T/fifo is not a directory" "${B[@]}" --output-dir "$T/fifo"
bad 2 "option --json: pw/r.json: pw is not a directory" "${B[@]}" --json pw/r.json
bad 2 "option --json: $T/dir: is a directory" "${O[@]}" --json "$T/dir"
bad 2 "option --json: /nonexistent/x.json" "${O[@]}" --json /nonexistent/x.json
bad 2 "option --output-dir: pw/runs" "${O[@]}" --output-dir pw/runs
bad 2 "option --json: $T/dir: is a directory" "${S[@]}" --json "$T/dir"
bad 2 "option --output-dir: pw/runs" "${S[@]}" --output-dir pw/runs
echo "load,throughput" >"$T/ramp.csv"
for i in 1 2 3 4 5 6; do echo "$i,$((i * 100))" >>"$T/ramp.csv"; done
bad 2 "option --json: $T/dir: is a directory" analyze ramp.csv --json "$T/dir"
bad 2 "option --json: /nonexistent/a.json" analyze ramp.csv --json /nonexistent/a.json
bad 2 "option --html: $T/dir: is a directory" compare runs runs --html "$T/dir"
bad 2 "option --output-dir: pw/cmp" compare runs runs --output-dir pw/cmp
job same_json <<EOF
[global]
engine = null
runtime = 1
[a]
json = $T/same.json
[b]
json = $T/same.json
EOF
bad 2 "same_json.ini:7: jobs [a] and [b] both write --json $T/same.json" run same_json.ini
[ -e "$T/same.json" ] && fail "a job ran although two jobs write one --json"
job same_json_global <<EOF
[global]
engine = null
json = $T/g.json
[a]
runtime = 1
[b]
runtime = 1
EOF
bad 2 "same_json_global.ini:3: jobs [a] and [b] both write --json" run same_json_global.ini
job bad_json_job <<EOF
[a]
engine = null
runtime = 1
json = $T/dir
EOF
bad 2 "option --json: $T/dir: is a directory" run bad_json_job.ini

# --- 5. Passwords and inventories: bad input, named, before any login ---
bad 2 "option --mysql-password-file: dir: Is a directory" "${O[@]}" --mysql-password-file dir
bad 2 "option --mysql-password-file: nope: No such file" "${O[@]}" --mysql-password-file nope
bad 2 "option --mysql-defaults-file: dir: Is a directory" "${O[@]}" --mysql-defaults-file dir
bad 2 "option --mysql-defaults-file: nope" "${O[@]}" --mysql-defaults-file nope
bad 2 "option --mysql-defaults-file: /dev/zero: too long" "${O[@]}" --mysql-defaults-file /dev/zero
bad 2 "/dev/zero:1: NUL byte" "${S[@]}" --backend static --inventory /dev/zero
bad 2 "option --mysql-password-file: dir" "${S[@]}" --mysql-password-file dir
bad 2 "$T/dir: is a directory" "${S[@]}" --backend static --inventory "$T/dir"
bad 2 "nope.ini: No such file" "${S[@]}" --backend static --inventory nope.ini
bad 2 "option --inventory: the static backend needs an inventory" "${S[@]}" --backend static
cat >"$T/inv_nopw.ini" <<EOF
[db1]
host = $NUL
port = 1
EOF
bad 2 "inv_nopw.ini:2: [db1] has no password_file" "${S[@]}" --backend static --inventory inv_nopw.ini
cat >"$T/inv_pwdir.ini" <<EOF
[db1]
host = $NUL
password_file = dir
EOF
bad 2 "inv_pwdir.ini:3: password file $T/dir: Is a directory" "${S[@]}" --backend static --inventory "$T/inv_pwdir.ini"
cat >"$T/inv_pwnone.ini" <<EOF
[db1]
host = $NUL
password_file = nope
EOF
bad 2 "inv_pwnone.ini:3: password file $T/nope: No such file" "${S[@]}" --backend static --inventory "$T/inv_pwnone.ini"
printf '[db1]\nhost = %s\npassword_file = pw\n[db1]\nhost = %s\n' $NUL $NUL >"$T/inv_dup.ini"
bad 2 "inv_dup.ini:4: section named twice" "${S[@]}" --backend static --inventory inv_dup.ini
printf '[db1]\nhost = %s\npassword_file = pw\nport = 70000\n' $NUL >"$T/inv_port.ini"
bad 2 "inv_port.ini:4: port '70000' is not in 1..65535" "${S[@]}" --backend static --inventory inv_port.ini
printf '[db1]\nport = 1\npassword_file = pw\n' >"$T/inv_nohost.ini"
bad 2 "inv_nohost.ini:2: [db1] has no host" "${S[@]}" --backend static --inventory inv_nohost.ini
printf '[db1]\nhost = %s\npasswd = pw\n' $NUL >"$T/inv_key.ini"
bad 2 "inv_key.ini:3: unknown key 'passwd'" "${S[@]}" --backend static --inventory inv_key.ini
printf '[db1]\nhost = %s\x00x\n' $NUL >"$T/inv_nul.ini"
bad 2 "inv_nul.ini:2: NUL byte" "${S[@]}" --backend static --inventory inv_nul.ini
: >"$T/inv_empty.ini"
bad 2 "inv_empty.ini: no servers" "${S[@]}" --backend static --inventory inv_empty.ini

# --- 6. Writes that would destroy data, checks that cannot check ---
bad 2 "ext4.img holds an ext2/3/4 filesystem: refusing to write" block --filename ext4.img --rw write --runtime 1
bad 2 "ext4.img holds an ext2/3/4 filesystem" block --filename ext4.img --rw randrw --runtime 1
bad 2 "ext4.img holds an ext2/3/4 filesystem" block --filename ext4.img --precondition --runtime 1
bad 2 "ext4.img holds an ext2/3/4 filesystem" block --filename plain.img,ext4.img --rw randwrite --runtime 1
bad 0 "result:" block --filename ext4.img --rw randread --runtime 1 --output-dir runs
bad 2 "option --verify: the null engine stores nothing to verify" "${B[@]}" --verify crc32c
bad 2 "option --verify: the null engine stores nothing to verify" "${B[@]}" --verify crc32c --rw write

# --- 7. Job files: every mistake has its file:line ---
job dup_section <<'EOF'
[a]
engine = null
[b]
engine = null
[a]
runtime = 1
EOF
bad 2 "dup_section.ini:5: section named twice" run dup_section.ini
job dup_adjacent <<'EOF'
[a]
engine = null
[a]
runtime = 1
EOF
bad 2 "dup_adjacent.ini:3: section named twice" run dup_adjacent.ini
job dup_global <<'EOF'
[global]
engine = null
[a]
runtime = 1
[global]
runtime = 2
EOF
bad 2 "dup_global.ini:5: section named twice" run dup_global.ini
printf '[a]\nengine = null\nruntime = 1\x00 ; the rest\n' >"$T/nul.ini"
bad 2 "nul.ini:3: NUL byte in the line" run nul.ini
printf '[a]\n\x00\n' >"$T/nul2.ini"
bad 2 "nul2.ini:2: NUL byte" run nul2.ini
job dashes <<'EOF'
[a]
----engine = null
EOF
bad 2 "dashes.ini:2: unknown option ----engine" run dashes.ini
job dashes_oltp <<'EOF'
[a]
command = oltp run
----mysql-host = x
EOF
bad 2 "dashes_oltp.ini:3: unknown option ----mysql-host" run dashes_oltp.ini
job oltp_typo <<'EOF'
[a]
command = oltp run
mysql-hots = x
EOF
bad 2 "oltp_typo.ini:3: unknown option --mysql-hots (did you mean --mysql-host?)" run oltp_typo.ini
job oltp_range <<'EOF'
[a]
command = oltp prepare
tables = 0
EOF
bad 2 "oltp_range.ini:3: option --tables: 0 is below the minimum 1" run oltp_range.ini
job dashes_scale <<'EOF'
[a]
command = scale
----vms = 1
EOF
bad 2 "dashes_scale.ini:3: unknown option ----vms" run dashes_scale.ini
job outside <<'EOF'
engine = null
[a]
runtime = 1
EOF
bad 2 "outside.ini:1: 'engine' is outside any [section]" run outside.ini
job syntax <<'EOF'
[a]
engine null
EOF
bad 2 "syntax.ini:2: syntax error" run syntax.ini
job unclosed <<'EOF'
[a
engine = null
EOF
bad 2 "unclosed.ini:1: syntax error" run unclosed.ini
job unknown_cmd <<'EOF'
[a]
command = blok
engine = null
EOF
bad 2 "unknown_cmd.ini:3: unknown command 'blok'" run unknown_cmd.ini
job range <<'EOF'
[a]
engine = null
iodepth = 0
EOF
bad 2 "range.ini:3: option --iodepth: 0 is below the minimum 1" run range.ini
job global_only <<'EOF'
[global]
engine = null
EOF
bad 2 "global_only.ini: no job sections" run global_only.ini
job bad_url <<EOF
[a]
target = iscsi://$NUL:69796/iqn.x/1
EOF
bad 2 "a port above 65535" run bad_url.ini
{
        printf '[a]\nengine = '
        head -c 10000000 /dev/zero | tr '\0' 'x'
        printf '\n'
} >"$T/long.ini"
bad 2 "long.ini:2: line longer than 1 MiB" run long.ini
rm -f "$T/long.ini"
# A long line within the bound is read whole, quickly (it took minutes: ~200 B per realloc).
{
        printf '[a]\ncommand = oltp prepare\nmysql-host = %s:1\nmysql-ignore-errors = ' $NUL
        for i in $(seq 1 100000); do printf '%s' '1213,'; done
        printf '1205\n'
} >"$T/long_ok.ini"
bad 2 "option --mysql-ignore-errors: more than 64 error numbers" run long_ok.ini
{
        printf '[a]\nengine = null\n'
        for i in $(seq 1 3000); do printf '; %0500d\n' "$i"; done
} >"$T/many_comments.ini"
printf 'runtime = 1\noutput-dir = runs\n' >>"$T/many_comments.ini"
bad 0 "result: $T/runs/block-" run many_comments.ini
bad 2 "/dev/zero:1: NUL byte in the line" run /dev/zero
bad 2 "dir: is a directory, not a file" run dir
bad 2 "nope.ini: No such file" run nope.ini
bad 2 "usage: hcisweep run JOBFILE" run a.ini b.ini
bad 2 "usage: hcisweep run JOBFILE" run

# --- 8. Unbounded input ---
bad 2 "/dev/zero: larger than 64 MiB" analyze /dev/zero
bad 2 "dir: is a directory" analyze dir
bad 2 "analyze: nope.csv" analyze nope.csv
bad 2 "expected one FILE" analyze
# per-host CSV rows (columns host and role): the line is named
printf 'load,throughput,host,role,cpu_busy_pct\n1,100,h1,compute,50\n2,200,h1,hypervisor,60\n' >"$T/role.csv"
bad 2 "role.csv: line 3: column role: 'hypervisor' is not compute, storage, both or client" analyze role.csv
printf 'load,throughput,host,role\n1,100,h1,\n' >"$T/norole.csv"
bad 2 "norole.csv: line 2: column role: '' is not compute, storage, both or client" analyze norole.csv
printf 'load,throughput,host,role\n1,100,,compute\n' >"$T/nohost.csv"
bad 2 "nohost.csv: line 2: column host is empty" analyze nohost.csv
printf 'load,throughput,host,role\n1,100,h1,compute\n1,100,h1,storage\n' >"$T/twice.csv"
bad 2 "twice.csv: line 3: host h1 is listed twice at load 1" analyze twice.csv
printf 'load,throughput,host,role\n1,100,h%070d,compute\n' 1 >"$T/longhost.csv"
bad 2 "longhost.csv: line 2: column host: longer than 63 characters" analyze longhost.csv
printf 'load,throughput,host,role,disk_util_pct\n1,100,h1,compute,busy\n' >"$T/disk.csv"
bad 2 "disk.csv: line 2: column disk_util_pct: 'busy' is not a number" analyze disk.csv

# --- 9. Argument counts, names, values and ranges ---
bad 2 "unexpected argument 'r9': at most 8 allowed" compare r1 r2 r3 r4 r5 r6 r7 r8 r9
bad 2 "expected two to 8 runs" compare r1
bad 2 "unknown option --iodpth (did you mean --iodepth?)" block --iodpth 4
bad 2 "unknown option -x" block -x
bad 2 "unexpected argument 'extra'" "${B[@]}" extra
bad 2 "option --iodepth: 0 is below the minimum 1" "${B[@]}" --iodepth 0
bad 2 "option --iodepth: 8192 is above the maximum 4096" "${B[@]}" --iodepth 8192
bad 2 "option --bs" "${B[@]}" --bs 100
bad 2 "option --bs" "${B[@]}" --bs 128m
bad 2 "option --bs" "${B[@]}" --bs 4x
bad 2 "option --rwmixread: 101 is above the maximum 100" "${B[@]}" --rwmixread 101
bad 2 "option --runtime: 0 is below the minimum 1" block --engine null --runtime 0
bad 2 "option --numjobs: 0 is below the minimum 1" "${B[@]}" --numjobs 0
bad 2 "option --rw: 'randomread' is not one of" "${B[@]}" --rw randomread
bad 2 "option --engine: 'aio' is not one of" block --engine aio
bad 2 "option --verify: 'md5' is not one of" "${B[@]}" --verify md5
bad 2 "option --size" "${B[@]}" --size 1q
bad 2 "option --percentile: 0 is below the minimum" "${B[@]}" --percentile 0
bad 2 "option --percentile: 101 is above the maximum 100" "${B[@]}" --percentile 101
bad 2 "option --iodepth needs a value" block --iodepth
bad 2 "option --direct" "${B[@]}" --direct=maybe
bad 2 "no target: give --target URL or --filename PATH" block
bad 2 "want one of prepare, run, cleanup" oltp
bad 2 "want one of prepare, run, cleanup" oltp start
bad 2 "option --threads: 0 is below the minimum 1" "${O[@]}" --threads 0
bad 2 "option --mysql-port: 70000 is above the maximum 65535" "${O[@]}" --mysql-port 70000
bad 2 "option --rand-type: 'normal' is not one of" "${O[@]}" --rand-type normal
bad 2 "option --time" "${O[@]}" --time -1
bad 2 "--time and --events are both 0" "${O[@]}" --time 0
bad 2 "option --workload: 'oltp_rw' is not one of" "${O[@]}" --workload oltp_rw
bad 2 "option --mysql-ignore-errors: '12x' is not an error number" "${O[@]}" --mysql-ignore-errors 12x
bad 2 "option --vms: 0 is below the minimum 1" "${S[@]}" --vms 0
bad 2 "option --repeat: 0 is below the minimum 1" "${S[@]}" --repeat 0
bad 2 "option --topology: 'hyper' is not one of" "${S[@]}" --topology hyper
bad 2 "option --vm-cpus: -1 is below the minimum 0" "${S[@]}" --vm-cpus -1
bad 2 "scale: unexpected argument 'now'" "${S[@]}" now
bad 2 "option --addr-base" "${S[@]}" --addr-base 10.0.1
bad 2 "unknown command 'blok'" blok
bad 2 "usage: hcisweep COMMAND" 

# --- 10. Results that cannot be saved: refused before measuring ---
# (access() says yes to root on /proc: the check creates a file)
bad 2 "option --json: /proc/version: cannot create a file in /proc" "${B[@]}" --json /proc/version
bad 2 "option --json: /proc/version: cannot create a file in /proc" "${O[@]}" --json /proc/version
bad 2 "option --json: /proc/version: cannot create a file in /proc" "${S[@]}" --json /proc/version
bad 2 "option --json: /sys/r.json: cannot create a file in /sys" "${B[@]}" --json /sys/r.json
bad 2 "option --json: /sys/r.json: cannot create a file in /sys" "${O[@]}" --json /sys/r.json
bad 2 "option --json: /sys/r.json: cannot create a file in /sys" "${S[@]}" --json /sys/r.json
bad 2 "option --json: $T/none/r.json: directory $T/none" "${B[@]}" --json "$T/none/r.json"
bad 2 "option --json: $T/none/r.json: directory $T/none" "${O[@]}" --json "$T/none/r.json"
bad 2 "option --json: $T/none/r.json: directory $T/none" "${S[@]}" --json "$T/none/r.json"
bad 2 "option --output-dir: /proc/runs: cannot create a file in /proc" "${B[@]}" --output-dir /proc/runs
bad 2 "option --output-dir: /proc/runs: cannot create a file in /proc" "${O[@]}" --output-dir /proc/runs
bad 2 "option --output-dir: /proc/runs: cannot create a file in /proc" "${S[@]}" --output-dir /proc/runs
bad 2 "option --json: /proc/version: cannot create a file in /proc" compare a b --json /proc/version
# (scale --dry-run refuses what the run would refuse)
bad 2 "option --vm-cpus: 1e-07 is below the smallest CPU quota 0.01" "${S[@]}" --dry-run --vm-cpus 1e-7
bad 2 "option --vm-cpus: 0.005 is below the smallest CPU quota 0.01" "${S[@]}" --dry-run --vm-cpus 0.005
bad 2 "option --vm-cpus: 1e-07 is below the smallest CPU quota 0.01" "${L[@]}" --vm-cpus 1e-7
bad 2 "'0.0.0.0:9464': listening on every address is refused" "${S[@]}" --dry-run --metrics-listen 0.0.0.0:9464
bad 2 "'[::]:9464': listening on every address is refused" "${S[@]}" --dry-run --metrics-listen '[::]:9464'
bad 2 "'127.0.0.1:99999': the port must be a number" "${S[@]}" --dry-run --metrics-listen 127.0.0.1:99999
printf '[db1]\nhost = %s\nport = 1\npassword_file = %s\n' "$NUL" "$T/pw" >"$T/one_server.ini"
bad 2 "option --vms: the plan goes to 2 VMs, the inventory lists 1" "${S[@]}" --dry-run \
        --backend static --inventory "$T/one_server.ini" --vms 2
bad 2 "option --vms: the plan goes to 3 VMs, the inventory lists 1" "${S[@]}" --dry-run \
        --backend static --inventory "$T/one_server.ini" --vms 1-3:1
bad 0 "plan: 1 VMs" "${S[@]}" --dry-run --backend static --inventory "$T/one_server.ini" --vms 1

# --- 11. Host strings, iSCSI URLs, rates, error lists, the null engine ---
# Each is refused before any name lookup or connection (exit 2, not 3), and a
# password typed into a host or URL never appears in the message.
LONG=$(printf 'a%.0s' $(seq 5000))
bad 2 "option --mysql-host: '[::1]:P': the port must be" "${O[@]}" --mysql-host '[::1]:P'
bad 2 "option --mysql-host: '[::1]:0': the port must be" "${O[@]}" --mysql-host '[::1]:0'
bad 2 "option --mysql-host: '[127.0.0.1]:1': not an [IPv6] address" "${O[@]}" --mysql-host '[127.0.0.1]:1'
bad 2 "option --mysql-host: '[::1': not an [IPv6] address" "${O[@]}" --mysql-host '[::1'
bad 2 "option --mysql-host: 'h:p:q': more than one ':'" "${O[@]}" --mysql-host 'h:p:q'
bad 2 "option --mysql-host: '127.0.0.1:1:2': more than one ':'" "${O[@]}" --mysql-host '127.0.0.1:1:2'
bad 2 "a user or password does not belong in a host" "${O[@]}" --mysql-host 'user:s3cretpw@127.0.0.1:1'
! grep -q s3cretpw <<<"$OUT" || fail "the password of user:pass@host was echoed: $OUT"
bad 2 "a user or password does not belong in a host" "${O[@]}" --mysql-host 'mysql://u:s3cretpw@127.0.0.1:1/db'
! grep -q s3cretpw <<<"$OUT" || fail "the password of mysql://u:pass@host was echoed: $OUT"
bad 2 "a URL is not a host" "${O[@]}" --mysql-host 'mysql://127.0.0.1:1'
bad 2 "a host name of over 253 characters" "${O[@]}" --mysql-host "$LONG"
bad 2 "a host name of over 253 characters" "${O[@]}" --mysql-host "127.0.0.1:1,$LONG:1"
bad 2 "not a host name or IP address" "${O[@]}" --mysql-host 'local host'
bad 2 "not a host name or IP address" "${O[@]}" --mysql-host '-x'
bad 2 "not a host name or IP address" "${O[@]}" --mysql-host 'a..b'
bad 2 "not a host name or IP address" "${O[@]}" --mysql-host '127.0.0.1/24'
bad 2 "option --mysql-host: '127.0.0.1:65536': the port must be" "${O[@]}" --mysql-host '127.0.0.1:65536'
bad 2 "option --mysql-host: '127.0.0.1:': the port must be" "${O[@]}" --mysql-host '127.0.0.1:'
bad 2 "option --mysql-host: '127.0.0.1:+1': the port must be" "${O[@]}" --mysql-host '127.0.0.1:+1'
bad 2 "a user or password does not belong in a host" "${OP[@]}" --mysql-host 'u:s3cretpw@localhost'
bad 2 "a user or password does not belong in a host" "${OC[@]}" --mysql-host 'u@localhost'
URLS=(block --target-ci 0 --runtime 1)
bad 2 "an empty CHAP user before '@'" "${URLS[@]}" --target 'iscsi://%@127.0.0.1:1/iqn.2000-01.x:t/0'
bad 2 "an empty CHAP user before '@'" "${URLS[@]}" --target 'iscsi://@127.0.0.1:1/iqn.2000-01.x:t/0'
bad 2 "an empty CHAP secret before '@'" "${URLS[@]}" --target 'iscsi://u%@127.0.0.1:1/iqn.2000-01.x:t/0'
bad 2 "an empty CHAP secret before '@'" "${URLS[@]}" --target 'iscsi://u:@127.0.0.1:1/iqn.2000-01.x:t/0'
bad 2 "more than one '@'" "${URLS[@]}" --target 'iscsi://u@v@127.0.0.1:1/iqn.2000-01.x:t/0'
bad 2 "more than one '@'" "${URLS[@]}" --target 'iscsi://u%s3cretpw@@127.0.0.1:1/iqn.2000-01.x:t/0'
! grep -q s3cretpw <<<"$OUT" || fail "the CHAP secret of a URL was echoed: $OUT"
bad 2 "an empty query value" "${URLS[@]}" --target 'iscsi://127.0.0.1:1/iqn.2000-01.x:t/0?target_user='
bad 2 "an empty query value" "${URLS[@]}" --target 'iscsi://127.0.0.1:1/iqn.2000-01.x:t/0?header_digest'
bad 2 "an empty query after '?'" "${URLS[@]}" --target 'iscsi://127.0.0.1:1/iqn.2000-01.x:t/0?'
bad 2 "an unknown query key" "${URLS[@]}" --target 'iscsi://127.0.0.1:1/iqn.2000-01.x:t/0?foo=1'
bad 2 "an unknown query key" "${URLS[@]}" --target 'iscsi://127.0.0.1:1/iqn.2000-01.x:t/0?target_user=t&'
bad 2 "a query key given twice" "${URLS[@]}" --target 'iscsi://u@127.0.0.1:1/iqn.2000-01.x:t/0?target_password=s3cretpw&target_password=s3cretpw'
! grep -q s3cretpw <<<"$OUT" || fail "a target_password was echoed: $OUT"
bad 2 "127.0.0.1:1/iqn.2000-01.x:t/0 is given twice" "${URLS[@]}" --target 'iscsi://127.0.0.1:1/iqn.2000-01.x:t/0,iscsi://127.0.0.1:1/iqn.2000-01.x:t/0'
bad 2 "is given twice" "${URLS[@]}" --target 'iscsi://127.0.0.1:1/iqn.2000-01.x:t/3,iscsi://u@127.0.0.1:1/iqn.2000-01.x:t/3'
bad 2 "option --engine: null does no I/O and takes no --target" "${B[@]}" --target 'iscsi://127.0.0.1:1/iqn.2000-01.x:t/0'
bad 2 "option --engine: null does no I/O and takes no --filename" "${B[@]}" --filename "$T/plain.img"
bad 2 "option --mysql-ignore-errors: '-1' is not an error number" "${O[@]}" --mysql-ignore-errors -1
bad 2 "'99999999999999999999' is not an error number" "${O[@]}" --mysql-ignore-errors 99999999999999999999
bad 2 "'4294967297' is not an error number" "${O[@]}" --mysql-ignore-errors 1213,4294967297
bad 2 "'0' is not an error number" "${O[@]}" --mysql-ignore-errors 0
bad 2 "'+-5' is not an error number" "${O[@]}" --mysql-ignore-errors +-5
bad 2 "'all' is not an error number" "${O[@]}" --mysql-ignore-errors 1213,all
bad 2 "option --rate: 1e-300 is below the lowest rate" "${O[@]}" --rate 1e-300
bad 2 "option --rate: 1e-05 is below the lowest rate" "${O[@]}" --rate 0.00001
bad 2 "option --rate: '1e-400' is too small" "${O[@]}" --rate 1e-400
bad 2 "option --rate: '4e-320' is too small" "${O[@]}" --rate 4e-320
bad 2 "cannot be reached by 1 connection(s)" "${O[@]}" --rate 1000000000
bad 2 "cannot be reached by 10 connection(s)" "${O[@]}" --rate 2e7 --threads 10
bad 2 "option --time: '1e-400' is too small" "${O[@]}" --time 1e-400
bad 2 "option --time: 1e-07 s is below the shortest" "${O[@]}" --time 1e-7
bad 2 "option --warmup-time: 1e-05 s is below the shortest" "${O[@]}" --warmup-time 0.00001
bad 2 "option --report-interval: 1e-07 s is below the shortest" "${O[@]}" --report-interval 1e-7
bad 2 "option --report-interval: '1e-310' is too small" "${O[@]}" --report-interval 1e-310

# --- 12. A job file's own paths, a false "in use", one size limit, a server twice ---
# A job file's relative paths are relative to the job file, never to the current
# directory: $T (the current one) holds pw and plain.img, $T/jobdir does not.
mkdir -p "$T/jobdir"
job jobdir/pwrel <<EOF
[a]
command = oltp run
mysql-host = $NUL:1
connect-timeout = 1
time = 1
mysql-password-file = pw
EOF
bad 2 "option --mysql-password-file: $T/jobdir/pw: No such file" run jobdir/pwrel.ini
job jobdir/defrel <<EOF
[a]
command = oltp prepare
mysql-host = $NUL:1
connect-timeout = 1
mysql-password-file = ../pw
mysql-defaults-file = my.cnf
EOF
bad 2 "option --mysql-defaults-file: $T/jobdir/my.cnf: No such file" run jobdir/defrel.ini
job jobdir/chaprel <<EOF
[a]
target = iscsi://u@$NUL:1/iqn.x/1
chap-secret-file = s
runtime = 1
EOF
bad 2 "option --chap-secret-file: $T/jobdir/s: No such file" run jobdir/chaprel.ini
job jobdir/filerel <<'EOF'
[a]
engine = psync
filename = plain.img
runtime = 1
EOF
bad 3 "$T/jobdir/plain.img: No such file" run jobdir/filerel.ini
job jobdir/invrel <<EOF
[s]
command = scale
backend = static
inventory = inv.ini
vms = 1
time = 1
lab-dir = $T/lab
EOF
bad 2 "error: $T/jobdir/inv.ini: No such file" run jobdir/invrel.ini
job jobdir/jsonrel <<'EOF'
[a]
engine = null
runtime = 1
json = r.json
[b]
engine = null
runtime = 1
json = ./r.json
EOF
bad 2 "jsonrel.ini:8: jobs [a] and [b] both write --json ./r.json" run jobdir/jsonrel.ini
job jobdir/out <<'EOF'
[a]
engine = null
runtime = 1
json = out.json
EOF
bad 0 "result: $T/jobdir/out.json" run jobdir/out.ini
[ -e "$T/out.json" ] && fail "a job file's json = out.json was written in the current directory"
# Under `timeout` (every case here runs under it) a write to an iSCSI URL is not refused
# as "in use" by its own parent: it goes on to the portal, where nothing listens.
bad 3 "cannot connect to iSCSI portal $NUL:1" block --target "iscsi://$NUL:1/iqn.x/1" --rw randwrite --runtime 1
bad 3 "cannot connect to iSCSI portal $NUL:1" block --target "iscsi://$NUL:1/iqn.x/2,iscsi://$NUL:1/iqn.x/1" --rw randrw --runtime 1 --force
# One size limit for every reader of a result or a load ramp, naming the file.
truncate -s $(((64 << 20) + 1)) "$T/big.json"
mkdir -p "$T/bigrun"
truncate -s 1G "$T/bigrun/result.json"
LIM="larger than 64 MiB, the limit for a result or load ramp"
bad 2 "report: big.json: $LIM" report big.json
bad 2 "compare: big.json: $LIM" compare big.json big.json
bad 2 "analyze: big.json: $LIM" analyze big.json
bad 2 "big.json: $LIM" results add big.json
bad 2 "bigrun/result.json: $LIM" report bigrun
bad 2 "bigrun/result.json: $LIM" compare bigrun bigrun
bad 2 "bigrun/result.json: $LIM" analyze bigrun/result.json
bad 2 "/dev/zero: $LIM" report /dev/zero
bad 2 "/dev/zero: $LIM" results add /dev/zero
# A static inventory that lists one server twice (host and port as written), naming the line.
printf '[db1]\nhost = %s\nport = 1\npassword_file = pw\n\n[db2]\nhost = %s\nport = 1\npassword_file = pw\n' \
        $NUL $NUL >"$T/inv_twice.ini"
bad 2 "inv_twice.ini:7: [db2] lists the same server as [db1] (line 2): $NUL:1" "${S[@]}" --backend static --inventory inv_twice.ini
bad 2 "inv_twice.ini:7: [db2] lists the same server as [db1] (line 2)" "${LS[@]}" --backend static --inventory inv_twice.ini
printf '[a]\nhost = LOCALHOST\npassword_file = pw\n[b]\nhost = localhost\npassword_file = pw\n' >"$T/inv_case.ini"
bad 2 "inv_case.ini:5: [b] lists the same server as [a] (line 2): localhost:3306" "${LS[@]}" --backend static --inventory inv_case.ini
printf '[a]\nhost = %s\nport = 1\n[b]\nhost = %s\nport = 2\n[c]\nport = 1\nhost = %s\npassword_file = pw\n' \
        $NUL $NUL $NUL >"$T/inv_third.ini"
MYSQL_PWD=x bad 2 "inv_third.ini:8: [c] lists the same server as [a] (line 2): $NUL:1" "${LS[@]}" --backend static --inventory inv_third.ini
# A --mysql-defaults-file that cannot be read is refused even when the password comes from elsewhere.
bad 2 "option --mysql-defaults-file: /nonexistent: No such file" "${O[@]}" --mysql-password-file pw --mysql-defaults-file /nonexistent
bad 2 "option --mysql-defaults-file: /nonexistent: No such file" "${OP[@]}" --mysql-password-file pw --mysql-defaults-file /nonexistent
bad 2 "option --mysql-defaults-file: /nonexistent: No such file" "${S[@]}" --mysql-password-file pw --mysql-defaults-file /nonexistent
MYSQL_PWD=x bad 2 "option --mysql-defaults-file: /nonexistent/my.cnf: No such file" "${OC[@]}" --mysql-defaults-file /nonexistent/my.cnf
bad 2 "option --mysql-defaults-file: dir: Is a directory" "${O[@]}" --mysql-password secretpw --mysql-defaults-file dir
bad 2 "option --mysql-defaults-file: /dev/zero: too long" "${O[@]}" --mysql-password-file pw --mysql-defaults-file /dev/zero

# --- 13. --storage-hosts names hosts of --libvirt-uri, before any connection ---
LV=(--backend libvirt --topology two-layer --libvirt-uri "qemu+ssh://root@$NUL/system,qemu:///system")
bad 2 "option --storage-hosts: 'nosuch' is not a host of --libvirt-uri" "${L[@]}" "${LV[@]}" --storage-hosts nosuch
bad 2 "option --storage-hosts: '127.0.0': not a dotted-quad" "${LS[@]}" "${LV[@]}" --storage-hosts localhost,127.0.0
bad 2 "option --storage-hosts: '127.0.0.2' is not a host of --libvirt-uri" "${LS[@]}" "${LV[@]}" --storage-hosts localhost,127.0.0.2
bad 2 "option --storage-hosts: 'root' is not a host" "${S[@]}" "${LV[@]}" --storage-hosts root
bad 2 "option --storage-hosts: only with --topology two-layer" "${L[@]}" --backend libvirt --storage-hosts localhost
bad 2 "option --storage-hosts: item 2 of the list is empty" "${L[@]}" "${LV[@]}" --storage-hosts localhost,,x

# --- 14. Driver placement: oltp run --merge refuses what it cannot merge, naming the file ---
okres() { # okres FILE WORKLOAD: the least oltp result --merge takes
        printf '{"schema_version":1,"kind":"oltp","config":{"workload":"%s"},"seconds":1,"threads":1,
"totals":{"transactions":0,"tps":0,"queries":{"read":0,"write":0,"other":0},"qps":0,"errors":0,
"reconnects":0,"failed_connects":0},"lat_ns":{"percentile":{"95.0":0}},
"hist":{"layout":"loglin-8","count":0,"min":0,"max":0,"sum":0,"sumsq":0,"buckets":[]},
"hosts":[],"intervals":[]%s}\n' "$2" "${3:-}" >"$T/$1"
}
okres m_rw.json oltp_read_write
okres m_ps.json oltp_point_select
okres m_hosts.json oltp_read_write ',"extra":1' && sed -i 's/"hosts":\[\]/"hosts":{}/' "$T/m_hosts.json"
printf '{"schema_version":1,"kind":"block","jobs":[]}\n' >"$T/m_block.json"
head -c 120 "$T/m_rw.json" >"$T/m_trunc.json"
MG=(oltp run --merge --json "$T/merged.json")
bad 2 "m_ps.json: workload oltp_point_select differs from the first input's oltp_read_write" "${MG[@]}" m_rw.json m_ps.json
bad 2 "m_block.json: not an oltp result (kind 'block')" "${MG[@]}" m_rw.json m_block.json
bad 2 "m_trunc.json:2: not an oltp result: JSON: premature end of input" "${MG[@]}" m_rw.json m_trunc.json
bad 2 "big.json: $LIM" "${MG[@]}" m_rw.json big.json
bad 2 "/dev/zero: not a regular file" "${MG[@]}" m_rw.json /dev/zero
bad 2 "m_hosts.json: not an oltp result: no array hosts" "${MG[@]}" m_rw.json m_hosts.json
bad 2 "nosuch.json: No such file" "${MG[@]}" m_rw.json nosuch.json
bad 2 "option --merge: give two result files or more" "${MG[@]}" m_rw.json
bad 2 "option --merge: only with oltp run" oltp prepare --merge m_rw.json m_rw.json
bad 2 "unexpected argument 'extra'" "${O[@]}" extra
[ -e "$T/merged.json" ] && fail "a refused --merge wrote its result"
# scale --driver-placement vm: every backend (local: cgroups; qemu and libvirt: the guest
# agent; static: ssh), a run of fixed length (--metrics-listen is taken: the drivers feed it)
bad 2 "--driver-placement vm: --time 0 not supported with it yet" "${S[@]}" --driver-placement vm --time 0
bad 2 "option --driver-placement: 'guest' is not one of" "${S[@]}" --driver-placement guest
# ... and in a job file
printf '[a]\ncommand = scale\nbackend = qemu\ndriver-placement = vm\nmetrics-listen = %s:1\nvms = 1\ntime = 0\nlab-dir = %s\n' \
        "$ADDR" "$T/lab" >"$T/place_job.ini"
bad 2 "--driver-placement vm: --time 0 not supported with it yet" run place_job.ini
# static: the inventory's ssh keys, checked at open (FILE:LINE) before any connection or
# name lookup; 192.0.2.7 is TEST-NET-1, and a name would go to DNS
SV=("${S[@]}" --backend static --driver-placement vm)
sshinv() { # sshinv NAME HOST-SECTION-LINES: an inventory of one VM on host h1
        printf '[host h1]\n%b\n[db1]\nhost = %s\nport = 1\npassword_file = pw\nhypervisor = h1\n' \
                "$2" $NUL >"$T/$1.ini"
}
sshinv inv_sshport 'ssh = root@127.0.0.1:99999'
bad 2 "inv_sshport.ini:2: ssh '127.0.0.1:99999': the port must be a number 1..65535" "${SV[@]}" --inventory inv_sshport.ini
sshinv inv_sshuser 'ssh = -oProxyCommand=x@127.0.0.1'
bad 2 "inv_sshuser.ini:2: ssh '-oProxyCommand=x@127.0.0.1': the user before '@' is not" "${SV[@]}" --inventory inv_sshuser.ini
sshinv inv_sshopt 'ssh = -oProxyCommand=x'
bad 2 "inv_sshopt.ini:2: ssh '-oProxyCommand=x': not a host name or IP address" "${SV[@]}" --inventory inv_sshopt.ini
sshinv inv_sshempty 'ssh = root@'
bad 2 "inv_sshempty.ini:2: ssh an empty host" "${SV[@]}" --inventory inv_sshempty.ini
sshinv inv_sshfar 'ssh = root@192.0.2.7'
bad 2 "inv_sshfar.ini:2: ssh 'root@192.0.2.7': a test reaches loopback IP literals only" "${SV[@]}" --inventory inv_sshfar.ini
sshinv inv_sshname 'ssh = root@build-host.example:22'
bad 2 "inv_sshname.ini:2: ssh 'root@build-host.example:22': a test reaches loopback IP literals only" "${LS[@]}" --backend static --inventory inv_sshname.ini
sshinv inv_sshcfg 'ssh = 127.0.0.1\nssh_config = nope.conf'
bad 2 "inv_sshcfg.ini:3: ssh_config $T/nope.conf: No such file" "${SV[@]}" --inventory "$T/inv_sshcfg.ini"
sshinv inv_sshkey 'role = compute\nssh_user = root'
bad 2 "inv_sshkey.ini:3: unknown key 'ssh_user' in [host h1]" "${SV[@]}" --inventory inv_sshkey.ini
# a VM with no ssh of its own nor its hypervisor's cannot take a driver
sshinv inv_nossh 'role = compute'
bad 2 "inv_nossh.ini:4: [db1]: --driver-placement vm runs its driver over ssh, and neither [db1] nor [host h1] has ssh" "${SV[@]}" --inventory inv_nossh.ini
bad 2 "inv_nopw.ini:2: [db1]: --driver-placement vm runs its driver over ssh, and [db1] has no ssh" "${SV[@]}" --mysql-password-file pw --inventory inv_nopw.ini
bad 2 "inv_nossh.ini:4: [db1]: --driver-placement vm runs its driver over ssh" "${SV[@]}" --inventory inv_nossh.ini --dry-run


# --- 15. Addresses that are not what they look like: one validator (core/hostport.h) ---
# inet_aton's other forms (octal 0127.0.0.1 dials 87.0.0.1, hex, integer, short, overflowing)
# are refused for every host string, naming the option or FILE:LINE, before any lookup.
DQ="not a dotted-quad IPv4 address"
for h in 0127.0.0.1 127.0.0.4294967297 4294967423.0.0.1 2130706433 127.1 0x7f.0.0.1 127.0.0.01; do
        bad 2 "option --mysql-host: '$h': $DQ" "${O[@]}" --mysql-host "$h"
        bad 2 "option --prometheus: metrics URL http://$h:9090/: '$h:9090': $DQ" "${LS[@]}" \
                --metrics-source prometheus --prometheus "http://$h:9090/"
        bad 2 "option --target-addr: '$h' is not an IPv4 address" "${LS[@]}" --target-addr "$h"
        printf '[host h1]\nmetrics = http://%s:1/metrics\nssh = root@%s\n[db1]\nhost = %s\npassword_file = pw\n' \
                "$h" "$h" "$h" >"$T/inv_aton.ini"
        bad 2 "inv_aton.ini:2: metrics URL http://$h:1/metrics: '$h:1': $DQ" "${LS[@]}" --backend static --inventory inv_aton.ini
        printf '[db1]\nhost = %s\npassword_file = pw\n' "$h" >"$T/inv_aton.ini"
        bad 2 "inv_aton.ini:2: host '$h': $DQ" "${LS[@]}" --backend static --inventory inv_aton.ini
        printf '[host h1]\nssh = root@%s\n[db1]\nhost = %s\npassword_file = pw\nhypervisor = h1\n' "$h" $NUL >"$T/inv_aton.ini"
        bad 2 "inv_aton.ini:2: ssh '$h': $DQ" "${SV[@]}" --inventory inv_aton.ini
done
# the loopback guard covers every address a run dials, the inventory's database host too
printf '[db1]\nhost = 192.0.2.10\npassword_file = pw\n' >"$T/inv_far.ini"
bad 2 "inv_far.ini:2: [db1]: host '192.0.2.10': a test reaches loopback IP literals only" "${LS[@]}" --backend static --inventory inv_far.ini
bad 2 "inv_far.ini:2: [db1]: host '192.0.2.10': a test reaches loopback" "${S[@]}" --backend static --inventory inv_far.ini --dry-run
bad 2 "option --mysql-host: 'db.example': a test reaches loopback IP literals only" "${O[@]}" --mysql-host db.example
bad 2 "option --mysql-host: '192.0.2.10': a test reaches loopback IP literals only" "${O[@]}" --mysql-host 192.0.2.10:1
bad 2 "option --target-addr: '192.0.2.10': a test uses loopback IP literals only" "${LS[@]}" --target-addr 192.0.2.10
# --libvirt-uri's hosts (and so --storage-hosts') go through the same validator and guard,
# refused before libvirt is asked: a fake ssh first on PATH shows nothing was dialled
mkdir -p "$T/fakebin"
printf '#!/bin/sh\ntouch "%s/dialled"\nexit 255\n' "$T" >"$T/fakebin/ssh"
chmod +x "$T/fakebin/ssh"
for h in 0127.0.0.1 127.0.0.4294967297 2130706433 127.1 0x7f.0.0.1; do
        PATH="$T/fakebin:$PATH" bad 2 "option --libvirt-uri: '$h': $DQ" "${LS[@]}" --backend libvirt \
                --libvirt-uri "qemu+ssh://root@$h/system"
        PATH="$T/fakebin:$PATH" bad 2 "option --libvirt-uri: '$h:16509': $DQ" "${L[@]}" --backend libvirt \
                --topology two-layer --libvirt-uri "qemu:///system,qemu+tcp://$h:16509/system" --storage-hosts localhost
done
PATH="$T/fakebin:$PATH" bad 2 "option --libvirt-uri: '192.0.2.7': a test reaches loopback IP literals only" \
        "${LS[@]}" --backend libvirt --libvirt-uri "qemu+ssh://root@192.0.2.7/system"
PATH="$T/fakebin:$PATH" bad 2 "option --libvirt-uri: 'hv.example': a test reaches loopback IP literals only" \
        "${S[@]}" --backend libvirt --libvirt-uri "qemu:///system,qemu+ssh://hv.example/system" --dry-run
PATH="$T/fakebin:$PATH" bad 2 "option --libvirt-uri: '127.0.0.1:99999': the port must be a number" \
        "${LS[@]}" --backend libvirt --libvirt-uri "qemu+tcp://127.0.0.1:99999/system"
bad 2 "option --libvirt-uri: 'system': not a connection URI" "${LS[@]}" --backend libvirt --libvirt-uri system
bad 2 "option --libvirt-uri: '-oProxyCommand=x': not a host name" "${LS[@]}" --backend libvirt \
        --libvirt-uri "qemu+ssh://-oProxyCommand=x/system"
bad 2 "option --storage-hosts: '0127.0.0.1': $DQ" "${L[@]}" --backend libvirt --topology two-layer \
        --libvirt-uri "qemu+ssh://root@$NUL/system" --storage-hosts 0127.0.0.1
[ ! -e "$T/dialled" ] || fail "a refused --libvirt-uri was dialled (the fake ssh ran)"

# --- 16. The inventory's host is checked as --mysql-host is (exit 2, FILE:LINE) ---
invh() { printf '[db1]\nhost = %s\npassword_file = pw\n' "$2" >"$T/$1.ini"; }
invh inv_hsemi '127.0.0.1;touch X'
bad 2 "inv_hsemi.ini:2: host '127.0.0.1;touch X': not a host name or IP address" "${LS[@]}" --backend static --inventory inv_hsemi.ini
[ -e "$T/X" ] && fail "a host string ran a shell command"
invh inv_hopt '-oProxyCommand=touch X'
bad 2 "inv_hopt.ini:2: host '-oProxyCommand=touch X': not a host name or IP address" "${LS[@]}" --backend static --inventory inv_hopt.ini
invh inv_hurl 'mysql://127.0.0.1'
bad 2 "inv_hurl.ini:2: host 'mysql://127.0.0.1': a URL is not a host" "${LS[@]}" --backend static --inventory inv_hurl.ini
invh inv_hevil 'evil://x'
bad 2 "inv_hevil.ini:2: host 'evil://x': a URL is not a host" "${S[@]}" --backend static --inventory inv_hevil.ini
invh inv_hport "$NUL:1"
bad 2 "inv_hport.ini:2: host '$NUL': give the port as port = 1" "${LS[@]}" --backend static --inventory inv_hport.ini
invh inv_hesc "$(printf '127.0.0.1\033[2J')"
bad 2 "inv_hesc.ini:2: host '127.0.0.1\\x1b[2J': not a host name" "${LS[@]}" --backend static --inventory inv_hesc.ini
grep -q $'\033' <<<"$OUT" && fail "an ESC of an inventory host reached the terminal raw"

# --- 17. Metrics URLs: ports out of range, escape characters shown, not echoed ---
PROM=("${LS[@]}" --metrics-source prometheus)
bad 2 "'$NUL:99999': the port must be a number 1..65535" "${PROM[@]}" --prometheus "http://$NUL:99999/"
bad 2 "'$NUL:-1': the port must be a number 1..65535" "${PROM[@]}" --prometheus "http://$NUL:-1/"
bad 2 "'$NUL:0': the port must be a number 1..65535" "${PROM[@]}" --prometheus "http://$NUL:0/"
bad 2 "metrics URL http://$NUL:9/\\x1b[31mred: blanks, control characters" "${PROM[@]}" --prometheus "$(printf 'http://%s:9/\033[31mred' $NUL)"
grep -q $'\033' <<<"$OUT" && fail "an ESC of a metrics URL reached the terminal raw"
printf '[host h1]\nmetrics = http://%s:99999/metrics\n[db1]\nhost = %s\npassword_file = pw\n' $NUL $NUL >"$T/inv_mport.ini"
bad 2 "inv_mport.ini:2: metrics URL http://$NUL:99999/metrics: '$NUL:99999': the port must be" "${LS[@]}" --backend static --inventory inv_mport.ini
bad 2 "only http:// and https:// are read" "${PROM[@]}" --prometheus "file:///etc/passwd"
bad 2 "only http:// and https:// are read" "${PROM[@]}" --prometheus "gopher://$NUL:70/"

# --- 18. Secret files: bounded, printable, not empty, named ---
head -c 5000 /dev/zero | tr '\0' a >"$T/tok_long"
printf 'ab\001cd\n' >"$T/tok_ctl"
printf 'ab\033[2Jcd\n' >"$T/tok_esc"
for f in tok_long tok_ctl tok_esc; do
        bad 2 "option --metrics-token-file: $f: " "${PROM[@]}" --prometheus "http://$NUL:9/" --metrics-token-file "$f"
done
bad 2 "tok_long: the first line is over 4095 characters" "${PROM[@]}" --prometheus "http://$NUL:9/" --metrics-token-file tok_long
bad 2 "tok_ctl: a control character on the first line" "${PROM[@]}" --prometheus "http://$NUL:9/" --metrics-token-file tok_ctl
bad 2 "option --metrics-token-file: /dev/zero: a NUL byte" "${PROM[@]}" --prometheus "http://$NUL:9/" --metrics-token-file /dev/zero
: >"$T/pw_empty"
printf '[db1]\nhost = %s\npassword_file = pw_empty\n' $NUL >"$T/inv_pwempty.ini"
bad 2 "inv_pwempty.ini:3: password file $T/pw_empty: the first line holds no password" "${LS[@]}" --backend static --inventory "$T/inv_pwempty.ini"
printf '[db1]\nhost = %s\npassword_file = /dev/zero\n' $NUL >"$T/inv_pwzero.ini"
bad 2 "inv_pwzero.ini:3: password file /dev/zero: a NUL byte" "${LS[@]}" --backend static --inventory inv_pwzero.ini
bad 2 "option --mysql-password-file: /dev/zero: a NUL byte" "${O[@]}" --mysql-password-file /dev/zero

# --- 19. A key given twice in an inventory section (the last would silently win) ---
printf '[db1]\nhost = %s\nport = 1\npassword_file = pw\nport = 2\n' $NUL >"$T/inv_twicekey.ini"
bad 2 "inv_twicekey.ini:5: port is given twice in [db1] (first on line 3)" "${LS[@]}" --backend static --inventory inv_twicekey.ini
printf '[host h1]\nrole = compute\nrole = storage\n[db1]\nhost = %s\npassword_file = pw\n' $NUL >"$T/inv_twicerole.ini"
bad 2 "inv_twicerole.ini:3: role is given twice in [host h1] (first on line 2)" "${LS[@]}" --backend static --inventory inv_twicerole.ini

# --- 20. Figures no measurement gives, and limits that are none ---
printf 'load,throughput,cpu_busy_pct\n1,100,10\n2,190,1e308\n' >"$T/busy.csv"
bad 2 "busy.csv: line 3: column cpu_busy_pct: 1e308 is over 100%" analyze busy.csv
printf 'load,throughput,host,role,disk_util_pct\n1,100,h1,storage,250\n' >"$T/util.csv"
bad 2 "util.csv: line 2: column disk_util_pct: 250 is over 100%" analyze util.csv
bad 2 "option --latency-slo: 'inf' is not a finite number" "${S[@]}" --latency-slo inf --dry-run
bad 2 "option --latency-slo: '-inf' is not a finite number" "${S[@]}" --latency-slo -inf --dry-run

if [ -n "${CATALOGUE_LIST:-}" ]; then
        echo "listed $N cases in $CATALOGUE_LIST"
        exit 0
fi
[ "$BAD" -eq 0 ] || fail "$BAD of $N bad-input cases answered wrongly"
pass "$N bad-input cases answered with their exit code and message"
