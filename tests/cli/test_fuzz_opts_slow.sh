#!/usr/bin/env bash
# A libFuzzer run of the options table and job-file reader
# (tests/fuzz/fuzz_opts.c): built with clang into $T, started from the seed
# corpus in tests/fuzz/corpus, FUZZ_RUNS (150000) inputs from FUZZ_SEED (1):
# the same inputs every run, so the suite cannot fail by chance; explore with
# another FUZZ_SEED (or FUZZ_RUNS=-1 and -max_total_time). Any crash, leak,
# undefined behaviour, timeout or config whose INI echo does not read back
# fails the test; the input that did it is kept in $T.
. "$TESTLIB"
command -v clang >/dev/null || fail "clang is not installed (scripts/install-deps.sh)"
cmake -S "$SRC" -B "$T/build" -DCMAKE_C_COMPILER=clang -DWITH_FUZZ=ON \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$T/cmake.log" 2>&1 || fail "cmake: $(tail -5 "$T/cmake.log")"
make -C "$T/build" -j2 fuzz_opts >"$T/make.log" 2>&1 || fail "build: $(tail -5 "$T/make.log")"
mkdir "$T/corpus"
cp "$SRC"/tests/fuzz/corpus/* "$T/corpus/"
rc=0
(cd "$T" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 ./build/tests/fuzz/fuzz_opts \
        -seed="${FUZZ_SEED:-1}" -runs="${FUZZ_RUNS:-150000}" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$T/" corpus >fuzz.log 2>&1) || rc=$?
if [ "$rc" -ne 0 ]; then
        grep -a -m1 -B20 -E "ERROR|SUMMARY" "$T/fuzz.log" | grep -av '^#' | tail -25 >&2
        fail "the fuzzer found an input (exit $rc): $(ls "$T" | grep -E '^(crash|leak|timeout|oom)-')"
fi
runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$T/fuzz.log")
[ -n "$runs" ] && [ "$runs" -gt 0 ] || fail "the fuzzer ran nothing: $(tail -3 "$T/fuzz.log")"
pass "$runs inputs from seed ${FUZZ_SEED:-1}, no finding"
