#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine:
#   installs the packages (scripts/install-deps.sh), checks formatting and
#   cppcheck, builds three times (release, AddressSanitizer + UBSan, and
#   ThreadSanitizer, which cannot share a build with ASan), runs the unit
#   tests in the release build, every test (unit, cli, integration against
#   real tgtd and MariaDB servers the tests start themselves) in the ASan
#   build, and the unit tests plus the tests labelled tsan (threaded block
#   and OLTP runs) in the TSan build, which fails on any report.
# Usage: scripts/test.sh [--fast]     --fast skips tests labelled slow.
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
[ "${1:-}" = "--fast" ] && fast=1

bash scripts/install-deps.sh
bash scripts/lint.sh

bash scripts/build.sh build >/dev/null
bash scripts/build.sh build-asan -DWITH_SANITIZERS=ON >/dev/null
bash scripts/build.sh build-tsan -DWITH_TSAN=ON >/dev/null

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

echo "== unit tests and the release-bound tests (release build)"
(cd build && ctest --output-on-failure -L 'unit|release')

echo "== all tests (sanitizer build)"
labels=()
[ $fast -eq 1 ] && labels=(-LE slow)
(cd build-asan && ctest --output-on-failure --timeout 900 -j2 "${labels[@]}")

echo "== unit and threaded tests (ThreadSanitizer build)"
bash scripts/tsan.sh build-tsan -L 'unit|tsan'
