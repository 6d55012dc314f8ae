#!/usr/bin/env bash
# Quality gates that need no build: clang-format (the repo's .clang-format),
# cppcheck over every C file, and the include layers and circles
# (scripts/layers.sh). Exits non-zero on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build*')
[ ${#files[@]} -gt 0 ] || exit 0
if command -v clang-format >/dev/null; then
  clang-format --dry-run -Werror "${files[@]}"
else
  echo "lint: clang-format not installed, skipped" >&2
fi
cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
  --inline-suppr --std=c11 -D__GNUC__ -DHAVE_LIBISCSI=1 -DHAVE_IO_URING=1 -I . \
  --include=/usr/include/jansson.h \
  --suppress=missingIncludeSystem "${files[@]}"
bash scripts/layers.sh
echo "lint: clang-format and cppcheck clean (${#files[@]} files)"
