#!/usr/bin/env bash
# The prometheus host-metrics source against Debian's real prometheus,
# scraping a real prometheus-node-exporter of this test every second, through
# tests/integration/hostsrc_probe (core/hostsrc.h read over a command's window):
#  1. over the same ~5 s window of a CPU burn (and a file written with fsync),
#     the prometheus source's busy, user, system and steal and each disk's
#     %util agree with the procfs source within 2 points (the probe keeps the
#     procfs reading nearest each scrape's time, --align: both windows are
#     the scrapes', to a poll of 10 ms, whatever the scrapes and queries take);
#  2. `lab status` over a static inventory with --metrics-source prometheus
#     lists the host through prometheus, answered, the bearer token of
#     --metrics-token-file sent (a recording endpoint checks it) and never
#     printed;
#  3. a Prometheus URL that is not http(s), an instance it does not scrape,
#     a reply of binary garbage or of 100 MiB and a server that is gone are
#     each an error naming the host (exit 3);
#     --prometheus that is not http(s) or without --metrics-source prometheus,
#     the other way round (in scale too), a token file missing or empty and a
#     host with no metrics URL to name its instance are refused before any
#     connection (exit 2).
. "$TESTLIB"
: "${HOSTSRC_PROBE:?run through ctest}"
NE=$(command -v prometheus-node-exporter) || fail "prometheus-node-exporter is not installed (scripts/install-deps.sh)"
command -v prometheus >/dev/null || fail "prometheus is not installed (scripts/install-deps.sh)"
PIDS=()
on_exit 'for p in "${PIDS[@]}"; do kill "$p"; done'

A0=$(test_addr 0) A1=$(test_addr 1) A2=$(test_addr 2)
P0=$(test_port 0) P1=$(test_port 1) P2=$(test_port 2)
API=http://$A0:$P0
INST=$A1:$P1

"$NE" --web.listen-address="$INST" --collector.disable-defaults --collector.cpu \
        --collector.meminfo --collector.diskstats --collector.vmstat --collector.netdev \
        >"$T/ne.log" 2>&1 &
PIDS+=($!)
cat >"$T/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["$INST"]
EOF
prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom" \
        --web.listen-address="$A0:$P0" --log.level=warn >"$T/prom.log" 2>&1 &
PROM=$!
PIDS+=($PROM)

# The target is up once the server says so (its first scrapes come a few seconds after start).
q() { curl -sf -G "$API/api/v1/query" --data-urlencode "query=$1"; }
up() {
        kill -0 $PROM 2>/dev/null || fail "prometheus exited: $(tail -5 "$T/prom.log")"
        [ "$(q "up{instance=\"$INST\"}" | jq -r '.data.result[0].value[1]' 2>/dev/null)" = 1 ]
}
wait_until 60 up

field() { echo "$1" | awk -v h="$2" -v k="$3" '$1 == "host" && $2 == h { for (i = 3; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }'; }
dfield() { echo "$1" | awk -v h="$2" -v d="$3" -v k="$4" '$1 == "disk" && $2 == h && $3 == d { for (i = 4; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }'; }

# 1. prometheus against procfs over a CPU burn. The burn spans the whole probe, both ends of
# both windows included (node_exporter reads /proc somewhere in a scrape that is timed at its
# start: on a loaded host hundreds of ms later), and the fsync'd file is written inside.
BURN=()
for i in 1 2; do
        timeout 60 sh -c 'while :; do :; done' &
        BURN+=($!)
done
PIDS+=("${BURN[@]}")
cat >"$T/window.sh" <<EOS
dd if=/dev/zero of="$T/written" bs=1M count=64 conv=fsync status=none
sleep 4 # the window's own length
EOS
OUT=$("$HOSTSRC_PROBE" --align pr p=procfs:/proc pr=prometheus:"$API#$INST" -- bash "$T/window.sh" 2>&1) ||
        fail "probe: $OUT"
kill "${BURN[@]}"
echo "$OUT" >"$T/burn.out"
diffs=""
for k in busy user system steal; do
        a=$(field "$OUT" p $k) b=$(field "$OUT" pr $k)
        [ -n "$a" ] && [ -n "$b" ] || fail "no $k: $OUT"
        near "$a" "$b" 2 || fail "$k: procfs $a, prometheus $b, more than 2 points apart: $OUT"
        diffs+=" $k $a/$b"
done
busy=$(field "$OUT" p busy)
near "$busy" 100 60 || fail "the burn left the host at $busy% busy"
ndisk=0
for d in $(echo "$OUT" | awk '$1 == "disk" && $2 == "p" { print $3 }'); do
        a=$(dfield "$OUT" p "$d" util) b=$(dfield "$OUT" pr "$d" util)
        [ -n "$b" ] || fail "disk $d: procfs has it, prometheus does not: $OUT"
        near "$a" "$b" 2 || fail "disk $d %util: procfs $a, prometheus $b: $OUT"
        diffs+=" $d $a/$b"
        ndisk=$((ndisk + 1))
done
[ "$ndisk" -gt 0 ] || fail "no disk read: $OUT"
echo "# procfs/prometheus:$diffs; $(grep "^align" <<<"$OUT")"

# 2. lab status: the host through prometheus, with a bearer token.
printf 'pw\n' >"$T/db.pw"
printf 'sekret-token-31\n' >"$T/token"
cat >"$T/inv.ini" <<INI
[db1]
host = $A2
port = $P2
password_file = db.pw
hypervisor = h1

[host h1]
role = compute
metrics = http://$INST/metrics
INI
PROMOPTS=(--backend static --inventory "$T/inv.ini" --metrics-source prometheus --prometheus "$API"
        --metrics-token-file "$T/token")
# (the database is not there: exit 3 for it, the host line is what is read)
expect_rc 3 "$HCISWEEP" lab status "${PROMOPTS[@]}"
grep -q "^host h1 role=compute source=prometheus where=$API#$INST state=answered$" <<<"$OUT" ||
        fail "h1 through prometheus: $OUT"
grep -q sekret <<<"$OUT" && fail "the token was printed: $OUT"

# The token reaches the server as a bearer header, through a recording endpoint.
cat >"$T/rec.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        open(sys.argv[3], "a").write(self.headers.get("Authorization", "-") + "\n")
        body = b'{"status":"error","errorType":"unavailable","error":"recorded"}'
        self.send_response(503)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.HTTPServer((sys.argv[1], int(sys.argv[2])), H).serve_forever()
PY
REC_PORT=$(test_port 3)
python3 "$T/rec.py" "$A2" "$REC_PORT" "$T/auth.log" >"$T/rec.log" 2>&1 &
PIDS+=($!)
wait_port "$A2" "$REC_PORT"
expect_rc 3 "$HCISWEEP" lab status --backend static --inventory "$T/inv.ini" \
        --metrics-source prometheus --prometheus "http://$A2:$REC_PORT" --metrics-token-file "$T/token"
grep -q "^host h1 .* state=down h1 (prometheus): http://$A2:$REC_PORT: HTTP status 503: the query failed: unavailable: recorded$" <<<"$OUT" ||
        fail "a 503 reply's reason: $OUT"
grep -qx "Bearer sekret-token-31" "$T/auth.log" || fail "no bearer token sent: $(cat "$T/auth.log")"

# 3. errors naming the host.
expect_rc 3 "$HOSTSRC_PROBE" pr=prometheus:"ftp://$A0:$P0#$INST" -- true
grep -q "pr (prometheus): metrics URL ftp://$A0:$P0: only http" <<<"$OUT" || fail "ftp: $OUT"
expect_rc 3 "$HOSTSRC_PROBE" h9=prometheus:"$API#$A2:9" -- true
grep -q "h9 (prometheus): $API: no node_cpu_seconds_total for instance $A2:9 " <<<"$OUT" ||
        fail "unknown instance: $OUT"
expect_rc 2 "$HCISWEEP" lab status --backend static --inventory "$T/inv.ini" \
        --metrics-source prometheus --prometheus "ftp://$A0:$P0"
grep -q "option --prometheus: metrics URL ftp://$A0:$P0: only http" <<<"$OUT" || fail "--prometheus ftp: $OUT"
expect_rc 2 "$HCISWEEP" lab status --backend static --inventory "$T/inv.ini" --metrics-source prometheus
grep -q "option --metrics-source prometheus: needs --prometheus" <<<"$OUT" || fail "no --prometheus: $OUT"
expect_rc 2 "$HCISWEEP" lab status --backend static --inventory "$T/inv.ini" --prometheus "$API"
grep -q "option --prometheus: read only with --metrics-source prometheus" <<<"$OUT" || fail "--prometheus alone: $OUT"
expect_rc 2 "$HCISWEEP" lab status "${PROMOPTS[@]:0:8}" --metrics-token-file "$T/none"
grep -q "option --metrics-token-file: $T/none: No such file" <<<"$OUT" || fail "no token file: $OUT"
: >"$T/empty"
expect_rc 2 "$HCISWEEP" lab status "${PROMOPTS[@]:0:8}" --metrics-token-file "$T/empty"
grep -q "option --metrics-token-file: $T/empty: the first line holds no secret" <<<"$OUT" || fail "empty token file: $OUT"
# scale takes the same options, checked before anything starts
expect_rc 2 "$HCISWEEP" scale --dry-run --backend static --inventory "$T/inv.ini" --metrics-source prometheus
grep -q "option --metrics-source prometheus: needs --prometheus" <<<"$OUT" || fail "scale without --prometheus: $OUT"
# a host with no metrics URL has no instance to be read by
printf '[host h2]\nrole = storage\n' >>"$T/inv.ini"
expect_rc 2 "$HCISWEEP" lab status "${PROMOPTS[@]}"
grep -q "inv.ini:11: host h2: --metrics-source prometheus names a host by the host:port of its metrics URL" <<<"$OUT" ||
        fail "a host without metrics: $OUT"
# garbage and a 100 MiB body where the API's reply should be
W=$T/www
mkdir -p "$W/garbage/api/v1" "$W/big/api/v1"
head -c 65536 /dev/urandom >"$W/garbage/api/v1/query"
head -c $((100 << 20)) /dev/zero | tr '\0' 'a' >"$W/big/api/v1/query"
WPORT=$(test_port 4)
python3 -m http.server "$WPORT" --bind "$A2" --directory "$W" >"$T/http.log" 2>&1 &
PIDS+=($!)
wait_port "$A2" "$WPORT"
expect_rc 3 "$HOSTSRC_PROBE" g1=prometheus:"http://$A2:$WPORT/garbage#$INST" -- true
grep -q "g1 (prometheus): http://$A2:$WPORT/garbage: not JSON" <<<"$OUT" || fail "garbage: $OUT"
expect_rc 3 "$HOSTSRC_PROBE" g2=prometheus:"http://$A2:$WPORT/big#$INST" -- true
grep -q "g2 (prometheus): http://$A2:$WPORT/big: body over" <<<"$OUT" || fail "100 MiB: $OUT"
kill $PROM
wait_gone $PROM
expect_rc 3 "$HOSTSRC_PROBE" pr=prometheus:"$API#$INST" -- true
grep -q "pr (prometheus): $API: " <<<"$OUT" || fail "gone: $OUT"
pass "prometheus and procfs agree within 2 points over a burn at $busy% busy, $ndisk disk(s):$diffs;" \
        "lab status through prometheus with a bearer token; ftp://, an unknown instance, garbage, 100 MiB and a gone server refused naming the host"
