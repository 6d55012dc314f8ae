#!/usr/bin/env bash
# The main job on the local lab: install what is needed, build, bring the
# lab up (HCI: database "VMs" = mariadbd in cgroups, storage = a tgtd with one
# file-backed LUN per VM holding its datadir, all on 127.0.0.0/8), run a
# queue-depth sweep on VM 1's block-load LUN, which no filesystem is on
# (4k random read and write, QD 1..32, after a sequential
# precondition), then a VM-count scale (1..4 VMs, sysbench oltp_read_write)
# that finds the tipping point and the resource that limited it, print the
# tables and where the results went, and take the lab down.
# Usage: scripts/main-job.sh [extra hcisweep scale options...]
# Env: HCISWEEP_LAB_DIR (runs/lab), HCISWEEP_TARGET_PORT (3260),
#      HCISWEEP_BASE_PORT (13306), HCISWEEP_ADDR_BASE (127.0.1).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
lab=(--lab-dir "${HCISWEEP_LAB_DIR:-$root/runs/lab}"
     --target-port "${HCISWEEP_TARGET_PORT:-3260}"
     --base-port "${HCISWEEP_BASE_PORT:-13306}"
     --addr-base "${HCISWEEP_ADDR_BASE:-127.0.1}")
vm=(--topology hci --vm-cpus 1 --vm-memory 1G --lun-size 1G)

bash scripts/install-deps.sh
bin=$(bash scripts/build.sh build)

mkdir -p "$(dirname "${lab[1]}")"
"$bin" lab down "${lab[@]}" >/dev/null 2>&1 || true
trap '"$bin" lab down "${lab[@]}" >/dev/null 2>&1 || true' EXIT

echo "== lab up (HCI, 1 VM to start with)"
up=$("$bin" lab up --vms 1 "${vm[@]}" "${lab[@]}")
echo "$up"
url=$(sed -n 's/^vm1 .* load_lun=\([^ ]*\).*/\1/p' <<<"$up")
[ -n "$url" ] || { echo "main-job: the lab has no block-load LUN for vm1" >&2; exit 3; }

echo "== queue-depth sweep on $url"
"$bin" block --target "$url" --rw randread,randwrite --bs 4k --iodepth 1-32 \
        --runtime 4 --ramp-time 1 --size 256m --precondition --output-dir "$root/runs"

echo "== VM-count scale, 1..4 VMs"
out=$(mktemp)
"$bin" scale --vms 1,2,3,4 "${vm[@]}" "${lab[@]}" --workload oltp_read_write \
        --tables 4 --table-size 10000 --threads 8 --warmup-time 3 --time 10 \
        --percentile 95,99 --output-dir "$root/runs" "$@" | tee "$out"
result=$(sed -n 's/^result: \([^ ]*\).*/\1/p' "$out" | tail -1)
rm -f "$out"

echo "== report"
[ -n "$result" ] && "$bin" report "$result"

echo "== results"
"$bin" results list | sed -n 1,8p # sed reads on: no SIGPIPE for a long index
