#!/usr/bin/env bash
# block --clients with --output-format fio-json writes fio's client-mode
# layout. Real `fio --server` instances on two loopback addresses and one
# `fio --client` run over them give the reference; hcisweep's client_stats
# must have its structure: one entry per client and point naming its
# hostname and port, then an "All clients" entry per point (fio has one for
# the whole run), every key of an entry and of its read/write among fio's,
# and the "All clients" IOPS the clients' sum.
. "$TESTLIB"
command -v fio >/dev/null || fail "fio is not installed (scripts/install-deps.sh)"
cd "$T"
P=$(test_port 0)
for i in 1 2; do
        fio --server="ip:$(test_addr "$i"),$P" >"$T/server$i.log" 2>&1 &
        on_exit "kill $!"
done
for i in 1 2; do wait_port "$(test_addr "$i")" "$P"; done
printf '[j]\nfilename=%s/fj\nsize=8m\nrw=randread\nbs=4k\nioengine=psync\nruntime=1\ntime_based\n' "$T" >"$T/job.fio"
timeout 120 fio --output-format=json --client="ip:$(test_addr 1),$P" "$T/job.fio" \
        --client="ip:$(test_addr 2),$P" "$T/job.fio" >"$T/fio.out" 2>"$T/fio.err" ||
        fail "fio --client: $(tail -3 "$T/fio.err")"
# fio prints its clients' text first ("<host> ..."), then the JSON document
sed -n '/^{/,$p' "$T/fio.out" >"$T/fio.json"
jq -e '(.client_stats | length) == 3 and .client_stats[2].jobname == "All clients"' "$T/fio.json" >/dev/null ||
        fail "fio's own layout is not as expected: $(head -c 300 "$T/fio.json")"

expect_rc 0 "$HCISWEEP" block --clients local:2 --filename "$T/f1,$T/f2" --engine psync --size 8m \
        --iodepth 1,2 --runtime 1 --output-format fio-json --json "$T/h.json"
jq -e '(.client_stats | length) == 6
        and ([.client_stats[].jobname] | map(. == "All clients")) == [false, false, true, false, false, true]
        and all(.client_stats[]; (.hostname | type) == "string" and (.port | type) == "number")
        and (.client_stats[0].hostname == "localhost")' "$T/h.json" >/dev/null ||
        fail "client_stats: $(jq -c '[.client_stats[] | {jobname, hostname, port}]' "$T/h.json")"
# every key hcisweep writes is one fio writes, in the entries and in read/write
for path in '.client_stats[0]' '.client_stats[2]' '.client_stats[0].read' '.client_stats[2].write' '.'; do
        extra=$(jq -n --slurpfile f "$T/fio.json" --slurpfile h "$T/h.json" \
                "(\$h[0] | $path | keys) - (\$f[0] | $path | keys) - [\"elapsed\", \"eta\", \"client\", \"timestamp_ms\"]")
        [ "$extra" = "[]" ] || fail "keys at $path that fio does not write: $extra"
done
jq -e '((.client_stats[0].read.iops + .client_stats[1].read.iops - .client_stats[2].read.iops) | fabs) < 1e-3 * .client_stats[2].read.iops' \
        "$T/h.json" >/dev/null || fail "All clients is not the sum"
pass "fio-json with clients: client_stats as fio --client writes it (hostname, port, All clients per point)"
