#!/usr/bin/env bash
# libFuzzer runs, built with clang into $T, each from its seed corpus and
# FUZZ_RUNS (150000) inputs from FUZZ_SEED (1): the same inputs every run, so
# the suite cannot fail by chance; explore with another FUZZ_SEED (or
# FUZZ_RUNS=-1 and -max_total_time). The targets:
#   fuzz_opts (tests/fuzz/corpus): the options table and job-file reader; a
#     config whose INI echo does not read back is a finding too;
#   fuzz_expo (tests/fuzz/corpus_expo): the Prometheus exposition-text parser
#     and the node_exporter source's reading of a body, and the prometheus
#     source's reading of an API reply (a recorded one in the corpus).
# Any crash, leak, undefined behaviour or timeout fails the test; the input
# that did it is kept in $T.
. "$TESTLIB"
command -v clang >/dev/null || fail "clang is not installed (scripts/install-deps.sh)"
cmake -S "$SRC" -B "$T/build" -DCMAKE_C_COMPILER=clang -DWITH_FUZZ=ON \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$T/cmake.log" 2>&1 || fail "cmake: $(tail -5 "$T/cmake.log")"
make -C "$T/build" -j2 fuzz_opts fuzz_expo >"$T/make.log" 2>&1 || fail "build: $(tail -5 "$T/make.log")"
summary=""
for pair in fuzz_opts:corpus:4096 fuzz_expo:corpus_expo:65536; do
        IFS=: read -r target corpus max_len <<<"$pair"
        mkdir "$T/$corpus"
        cp "$SRC/tests/fuzz/$corpus"/* "$T/$corpus/"
        rc=0
        (cd "$T" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 "./build/tests/fuzz/$target" \
                -seed="${FUZZ_SEED:-1}" -runs="${FUZZ_RUNS:-150000}" -max_len="$max_len" -timeout=10 \
                -rss_limit_mb=2048 -artifact_prefix="$T/$target-" "$corpus" >"$target.log" 2>&1) || rc=$?
        if [ "$rc" -ne 0 ]; then
                grep -a -m1 -B20 -E "ERROR|SUMMARY" "$T/$target.log" | grep -av '^#' | tail -25 >&2
                fail "$target found an input (exit $rc): $(ls "$T" | grep -E "^$target-(crash|leak|timeout|oom)-")"
        fi
        runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$T/$target.log")
        [ -n "$runs" ] && [ "$runs" -gt 0 ] || fail "$target ran nothing: $(tail -3 "$T/$target.log")"
        summary="$summary $target: $runs inputs;"
done
pass "seed ${FUZZ_SEED:-1}:$summary no finding"
