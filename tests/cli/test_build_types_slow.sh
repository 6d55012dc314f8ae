#!/usr/bin/env bash
# Every build type CMake offers builds with -Werror: Debug (-O0) and
# MinSizeRel (-Os) see warnings the default RelWithDebInfo does not
# (format-truncation, restrict), and each failed once. The sanitizer
# build is built by scripts/test.sh itself.
. "$TESTLIB"
for type in Debug MinSizeRel Release; do
        cmake -S "$SRC" -B "$T/$type" -DCMAKE_BUILD_TYPE=$type >"$T/$type.cmake.log" 2>&1 ||
                fail "$type: cmake: $(tail -5 "$T/$type.cmake.log")"
        make -C "$T/$type" -j2 hcisweep >"$T/$type.log" 2>&1 ||
                fail "$type does not build: $(grep -m3 'error' "$T/$type.log")"
        rm -rf "${T:?}/$type"
done
pass "Debug, MinSizeRel and Release build with -Werror"
