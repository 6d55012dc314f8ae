#!/usr/bin/env bash
# The main job on the local lab: install what is needed, build, bring the
# lab up (HCI: database "VMs" = mariadbd in cgroups, storage = a tgtd with one
# file-backed LUN per VM holding its datadir, all on 127.0.0.0/8), run a
# queue-depth sweep on VM 1's block-load LUN, which no filesystem is on
# (4k random read and write, QD 1,4,16, after a sequential precondition),
# then a VM-count scale (1..6 VMs of half a CPU, sysbench oltp_read_write)
# in the HCI topology and the same in two-layer, each with its tipping point
# and the resource that limited it, then compare the two: compare prints each
# verdict once (at most four lines); the job ends with the crossover and the
# report paths, not the verdicts a second time.
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
"$bin" block --target "$url" --rw randread,randwrite --bs 4k --iodepth 1,4,16 \
        --runtime 2 --ramp-time 1 --size 64m --precondition --output-dir "$root/runs"
"$bin" lab down "${lab[@]}" >/dev/null

# One scale per topology. VMs of half a CPU each make the curve visible on a
# 2-core host: it rises while the CPUs have room, tapers and flattens once
# the VMs, the storage service and the load generator share them all.
# Each step warms up until TPS is steady (the warm-up rule needs at least 10 s
# of samples to say so: up to 15 s here), then is measured until its TPS is
# within +-3% (at most 20 s): a noise band narrow enough for the tipping-point
# rule to decide rather than ask for repeats. At most 12 x 35 s of runs.
ramp=(--vms 1,2,3,4,5,6 --vm-cpus 0.5 --vm-memory 512M --lun-size 256M
      --workload oltp_read_write --tables 2 --table-size 5000 --threads 4
      --warmup-time 15 --time 20 --target-ci 3 --percentile 95,99 --output-dir "$root/runs")
declare -A res
for topo in hci two-layer; do
        echo "== VM-count scale, $topo, 1..6 VMs of 0.5 CPU"
        out=$(mktemp)
        "$bin" scale "${ramp[@]}" --topology "$topo" "${lab[@]}" "$@" | tee "$out"
        res[$topo]=$(sed -n 's/^result: \([^ ]*\).*/\1/p' "$out" | tail -1)
        rm -f "$out"
        [ -n "${res[$topo]}" ] || { echo "main-job: no $topo result" >&2; exit 1; }
        "$bin" report "${res[$topo]}"
done

# compare prints each verdict once, under "the answer:". The closing lines add
# only what it does not: where the reports are. Its crossover line is the last
# one it prints before its own paths, so it is repeated here next to them.
echo "== HCI versus two-layer"
cmp_dir="$root/runs/compare-$(date -u +%Y%m%dT%H%M%SZ)"
"$bin" compare "${res[hci]}" "${res[two-layer]}" --output-dir "$cmp_dir" \
        --json "$cmp_dir/compare.json" | tee "$cmp_dir.txt"

echo "== where to read it"
cross=$(sed -n 's/^crossover: //p' "$cmp_dir.txt" | tail -1)
rm -f "$cmp_dir.txt"
echo "crossover: ${cross:-none found}"
echo "reports: $(dirname "${res[hci]}")/report.html $(dirname "${res[two-layer]}")/report.html"
echo "comparison: $cmp_dir/compare.html $cmp_dir/compare.json"

echo "== results"
"$bin" results list | sed -n 1,8p # sed reads on: no SIGPIPE for a long index
