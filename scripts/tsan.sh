#!/usr/bin/env bash
# Run ctest in a ThreadSanitizer build and fail on any report.
# Usage: scripts/tsan.sh [DIR] [ctest args...]    DIR defaults to build-tsan, made by
#   scripts/build.sh build-tsan -DWITH_TSAN=ON
# e.g. scripts/tsan.sh build-tsan -L 'unit|tsan' (what scripts/test.sh runs).
#
# Reports go to DIR/tsan-reports/, one file per process, printed at the end: a
# shell test that checks a command's output would otherwise swallow them. A
# process that reported exits 66 at once (halt_on_error), so its test fails too.
#
# TSan puts its shadow memory at fixed addresses. Where the kernel randomises
# mmap over more bits than the runtime expects (vm.mmap_rnd_bits = 32 on some
# recent x86-64 kernels), every instrumented binary dies at start with
# "unexpected memory mapping"; the tests then run under `setarch -R` (address
# randomisation off for them alone). If that is refused too (a container's
# seccomp may forbid the personality call), the script says what to set.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-tsan}
shift || true
reports=$(pwd)/$dir/tsan-reports
probe=$dir/tests/test_clock
[ -x "$probe" ] || { echo "tsan: no $probe: build $dir with -DWITH_TSAN=ON first" >&2; exit 1; }

run=()
if ! "$probe" >/dev/null 2>&1; then
  if setarch "$(uname -m)" -R "$probe" >/dev/null 2>&1; then
    echo "tsan: instrumented binaries need address randomisation off here: tests run under setarch -R"
    run=(setarch "$(uname -m)" -R)
  else
    "$probe" 2>&1 | tail -5 >&2 || true
    echo "tsan: ThreadSanitizer binaries do not start (vm.mmap_rnd_bits=$(sysctl -n vm.mmap_rnd_bits 2>/dev/null || echo '?')); try: sysctl vm.mmap_rnd_bits=28" >&2
    exit 1
  fi
fi

rm -rf "$reports"
mkdir -p "$reports"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:log_path=$reports/report"
rc=0
(cd "$dir" && "${run[@]}" ctest --output-on-failure --timeout 900 -j2 "$@") || rc=$?
shopt -s nullglob
found=("$reports"/report*)
for f in "${found[@]}"; do
  echo "== ThreadSanitizer: $f" >&2
  cat "$f" >&2
done
if [ ${#found[@]} -gt 0 ]; then
  echo "tsan: ${#found[@]} process(es) reported, see above" >&2
  exit 1
fi
exit "$rc"
