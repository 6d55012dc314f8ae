#!/usr/bin/env bash
# --output-format fio-json / fio-json+: fio's own fio_jsonplus_clat2csv turns
# the json+ of a real null-engine sweep and of a real iSCSI sweep (tgtd) into
# CSV rows whose counts add up to the I/Os hcisweep counted in its own
# result; `hcisweep analyze` reads the fio-json back to the same IOPS.
. "$TESTLIB"
. "$SRC/tests/integration/tgt.sh"
command -v fio_jsonplus_clat2csv >/dev/null || fail "fio_jsonplus_clat2csv missing (Debian fio)"

# check NAME ARGS...: one sweep into a run dir (result.json + fio.json), then the checks.
check() {
        local name=$1 run fio csvsum ios n
        shift
        expect_rc 0 "$HCISWEEP" block "$@" --iodepth 1,4 --runtime 1 --output-format fio-json+ \
                --output-dir "$T/$name" --quiet
        run=$(dirname "$OUT")
        fio=$run/fio.json
        [ -s "$fio" ] || fail "$name: no fio.json in $run"
        jq -e '(."fio version" | startswith("hcisweep-")) and (.jobs | length) == 2
               and ([.jobs[] | ."job options" | .iodepth] == ["1", "4"])
               and ([.jobs[] | .read.clat_ns.percentile["99.000000"] > 0] | all)
               and ([.jobs[] | has("usr_cpu") and has("sys_cpu") and .read.lat_ns.N > 0] | all)' \
                "$fio" >/dev/null || fail "$name: fio.json shape: $(jq -c '.jobs[0] | del(.read, .write, .trim)' "$fio")"
        (cd "$T" && fio_jsonplus_clat2csv "$fio" "$name.csv" && fio_jsonplus_clat2csv "$fio" "$name.csv" --validate) \
                >"$T/$name.conv" 2>&1 || fail "$name: fio_jsonplus_clat2csv: $(cat "$T/$name.conv")"
        for j in 0 1; do
                # column 5 is read_clat_ns_count; blank where a row has no read bin
                csvsum=$(awk -F', ' 'NR > 1 && $5 != "" { s += $5 } END { print s + 0 }' "$T/${name}_job$j.csv")
                ios=$(jq ".points[$j].read.ios" "$run/result.json")
                n=$(($(wc -l <"$T/${name}_job$j.csv") - 1))
                [ "$ios" -gt 0 ] && [ "$csvsum" -eq "$ios" ] ||
                        fail "$name job $j: CSV counts add up to $csvsum, hcisweep counted $ios"
                echo "# $name qd$( ((j)) && echo 4 || echo 1): $n CSV rows, counts $csvsum = $ios I/Os"
        done
        # analyze on the fio layout: the same IOPS per iodepth as the result's own.
        expect_rc 0 "$HCISWEEP" analyze "$fio" --json "$T/$name.an.json"
        jq -e --slurpfile r "$run/result.json" '
                [.points[] | .throughput] as $got | [$r[0].points[] | .read.iops] as $want
                | ($got | length) == 2
                and ([range(2) | ($got[.] - $want[.]) | fabs <= 0.01 * $want[.]] | all)' \
                "$T/$name.an.json" >/dev/null ||
                fail "$name: analyze read $(jq -c '[.points[].throughput]' "$T/$name.an.json"), result has $(jq -c '[.points[].read.iops]' "$run/result.json")"
}

check null --engine null --rw randread --bs 4k
pass "null engine: fio_jsonplus_clat2csv counts = hcisweep's I/Os; analyze IOPS match"

tgt_start --size 64M
check iscsi --target "${TGT_URLS[0]}" --rw randread --bs 4k
pass "iSCSI: fio_jsonplus_clat2csv counts = hcisweep's I/Os; analyze IOPS match"

# A sweep over two patterns: analyze makes one ramp per rw and bs, each point's
# IOPS the result's own (hcisweep's fio jobs ran one after another, never summed).
expect_rc 0 "$HCISWEEP" block --engine null --rw randread,randwrite --iodepth 1,2 --runtime 1 \
        --output-format fio-json --output-dir "$T/two" --quiet
run=$(dirname "$OUT")
expect_rc 0 "$HCISWEEP" analyze "$run/fio.json" --json "$T/two.an.json"
jq -e --slurpfile r "$run/result.json" '
        [$r[0].points[] | {k: "\(.rw) 4k", qd: .iodepth, iops: (.read.iops + .write.iops)}] as $want
        | [.ramps[] | .name as $n | .points[] | {k: $n, qd: .load, iops: .throughput}] as $got
        | ($got | length) == 4 and ([.ramps[].name] == ["randread 4k", "randwrite 4k"])
        and ([range(4) | $got[.].k == $want[.].k and $got[.].qd == $want[.].qd
              and (($got[.].iops - $want[.].iops) | fabs) <= 0.01 * $want[.].iops] | all)' \
        "$T/two.an.json" >/dev/null ||
        fail "analyze of a two-pattern sweep: $(jq -c '[.ramps[] | {name, points}]' "$T/two.an.json")"
pass "analyze: one ramp per rw and bs from hcisweep's fio layout, IOPS as in the result"

# --json FILE with fio-json holds the fio layout alone (no bins), the default stays hcisweep's.
expect_rc 0 "$HCISWEEP" block --engine null --runtime 1 --output-format fio-json --json "$T/f.json"
jq -e '.jobs[0].read | has("clat_ns") and (.clat_ns | has("bins") | not) and .total_ios > 0' \
        "$T/f.json" >/dev/null || fail "fio-json: $(head -c 300 "$T/f.json")"
expect_rc 0 "$HCISWEEP" block --engine null --runtime 1 --json "$T/h.json"
jq -e '.kind == "block" and (.points[0].read.hist.count > 0)' "$T/h.json" >/dev/null ||
        fail "default JSON changed"
expect_rc 2 "$HCISWEEP" block --engine null --runtime 1 --output-format fio
grep -q -- "--output-format" <<<"$OUT" || fail "bad --output-format: $OUT"
pass "fio-json without bins; default JSON unchanged; bad format exits 2"
