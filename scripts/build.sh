#!/usr/bin/env bash
# Configure and build hcisweep. Usage: scripts/build.sh [DIR] [cmake args...]
# DIR defaults to build/ (release with debug info). Prints the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
if ! make -C "$dir" -j"$(nproc)" --no-print-directory >"$dir/build.log" 2>&1; then
  tail -40 "$dir/build.log" >&2
  echo "build: failed, full log in $dir/build.log" >&2
  exit 1
fi
echo "$dir/hcisweep"
