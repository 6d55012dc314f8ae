#!/usr/bin/env bash
# hcisweep block --clients vms: the local lab's 4 VMs as block clients, as
# the HCIBench worker VMs are. The lab is brought up first (4 mariadbd
# "VMs" in cgroups, a tgtd with a load LUN per VM); a QD sweep 1, 4 of 4k
# randread on the VMs' own load LUNs: every point lists vm1..vm4, each on
# its VM's load LUN, where "cgroup"; the aggregate is the per-client sum;
# and each client, read in /proc/PID/cgroup while it runs, is in its VM's
# cgroups (those of the VM's mariadbd). Bad input is refused naming its
# option; no client is left running afterwards.
. "$TESTLIB"

local_lab
# a client's memory counts in its VM's limit: ASan's quarantine less, the VMs room
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
expect_rc 0 "$HCISWEEP" lab up --vms 4 --vm-memory 256M --datadir-on host --lun-size 64M "${common[@]}"
BASE=${ADDR%.*}
# this lab's block clients: `block --start-on-go` on its load target
PAT="target=iscsi://127.0.0.1:$(test_port 1)/.*\.load/.*--start-on-go"
clients() { pgrep -f -- "$PAT" || true; }
no_clients() { [ -z "$(clients)" ] || fail "clients left after $1: $(clients | xargs -r ps -o pid=,args= -p)"; }

# --- refused before anything starts, naming the option
expect_rc 2 "$HCISWEEP" block --clients vms --vms 5 "${common[@]}" --runtime 1 --json "$T/x.json"
grep -q -- "--vms: 5 VMs asked, the lab has 4" <<<"$OUT" || fail "--vms 5 not named: $OUT"
expect_rc 2 "$HCISWEEP" block --clients vms --target iscsi://127.0.0.1:1/iqn.x/1 "${common[@]}" \
        --runtime 1 --json "$T/x.json"
grep -q -- "option --target: not with --clients vms" <<<"$OUT" || fail "--target not refused: $OUT"
expect_rc 2 "$HCISWEEP" block --clients local:2 --vms 2 --filename "$T/f" --json "$T/x.json"
grep -q -- "option --vms: only with --clients vms" <<<"$OUT" || fail "--vms alone: $OUT"
no_clients "a refusal"

# --- the sweep; each client's cgroups read while it runs
"$HCISWEEP" block --clients vms "${common[@]}" --rw randread --bs 4k --iodepth 1,4 --runtime 3 \
        --per-client --json "$T/r.json" >"$T/r.out" 2>&1 &
BP=$!
on_exit "kill $BP"
# (a client may end between the listing and the look at it: it is looked at again, until
# every VM's client was seen live once)
seen=""
check_clients() {
        local pid cmd vm db cg
        while read -r pid cmd; do
                cg=$(cat "/proc/$pid/cgroup" 2>/dev/null) || continue
                vm=$(sed -n 's/.*\.load\/\([0-9]*\) .*/\1/p' <<<"$cmd")
                [ -n "$vm" ] || fail "client $pid: no load LUN in $cmd"
                db=$(cat "$LAB/vm$vm/mariadbd.pid")
                [ "$cg" = "$(cat "/proc/$db/cgroup")" ] ||
                        fail "client $pid of vm$vm: cgroups $(tr '\n' ' ' <<<"$cg") are not its VM's: $(tr '\n' ' ' <"/proc/$db/cgroup")"
                grep -q "/vm$vm\$" <<<"$cg" || fail "client $pid: not in a vm$vm cgroup: $cg"
                grep -qw "vm$vm" <<<"$seen" || seen+=" vm$vm"
        done < <(ps -eo pid=,args= | grep -E -- "$PAT" | grep -v grep)
        [ "$(wc -w <<<"$seen")" -eq 4 ]
}
wait_until 60 check_clients
echo "clients seen in their VMs' cgroups:$seen"
wait "$BP" || fail "the sweep: exit $?: $(tail -5 "$T/r.out")"
no_clients "the sweep"
grep -q 'all 4 clients' "$T/r.out" || fail "no aggregate rows: $(cat "$T/r.out")"
jq -e '(.points | length) == 2 and .config.backend == "local" and all(.points[];
          .n_clients == 4 and [.clients[].name] == ["vm1", "vm2", "vm3", "vm4"]
          and all(.clients[]; .where == "cgroup" and .host == "localhost" and .error == null
                  and .iops > 0 and (.targets | length) == 1))' \
        "$T/r.json" >/dev/null ||
        fail "the points: $(jq -c '[.points[] | {iodepth, n_clients, c: [.clients[] | {name, host, where, targets, error}]}]' "$T/r.json" | head -c 1500)"
for k in 0 1; do
        for v in 1 2 3 4; do
                jq -e --argjson k "$k" --argjson v "$v" '.points[$k].clients[$v - 1] |
                        .targets[0] | endswith(".load/\($v)")' "$T/r.json" >/dev/null ||
                        fail "point $k: vm$v's target: $(jq -c --argjson k "$k" '.points[$k].clients[].targets' "$T/r.json")"
        done
done
clients_sum_is_agg "$T/r.json"
pass "4 VMs as clients, QD 1,4: 4 clients a point, each in its VM's cgroups on its load LUN, aggregate = sum"
