#!/usr/bin/env bash
# The main job on the local lab: install what is needed, build, start a
# user-space iSCSI target (tgtd) with a file-backed LUN on 127.0.0.1, run a
# queue-depth sweep against it (4k random read and write, QD 1..32, after a
# sequential precondition), print the table and where the JSON went, and
# stop the target. Everything stays on this machine.
# Usage: scripts/main-job.sh [extra hcisweep block options...]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
state=${HCISWEEP_LAB_DIR:-$root/runs/lab}
portal=${HCISWEEP_PORTAL:-127.0.0.1:3260}

bash scripts/install-deps.sh
bin=$(bash scripts/build.sh build)

mkdir -p "$state"
bash scripts/iscsi-target.sh stop --dir "$state" >/dev/null 2>&1 || true
url=$(bash scripts/iscsi-target.sh start --dir "$state" --portal "$portal" --luns 1 --size 1G \
        --bstype rdwr | head -1)
trap 'bash scripts/iscsi-target.sh stop --dir "$state" >/dev/null' EXIT
echo "target: $url"

"$bin" block --target "$url" --rw randread,randwrite --bs 4k --iodepth 1-32 \
        --runtime 5 --ramp-time 1 --size 256m --precondition --output-dir "$root/runs" "$@"
