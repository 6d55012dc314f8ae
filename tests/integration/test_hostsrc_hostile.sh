#!/usr/bin/env bash
# Hostile answers from a metrics host (issue 39 class 5, issue 37's proxy and
# redirect defects), against a real local HTTP server (fake_exporter.py) on a
# loopback address, through tests/integration/hostsrc_probe:
#  1. a valid body is read; one with a subnormal (1e-320, as Go prints it) too;
#  2. a body that gives one series twice is refused naming the host and both
#     lines (exit 3), never summed;
#  3. a redirect is not followed (the target is never asked);
#  4. http_proxy / all_proxy in the environment are not used: the URL's own
#     server is asked, and the "proxy" (a second fake) sees no request;
#  5. a scheme other than http(s) is refused before any connection.
. "$TESTLIB"
: "${HOSTSRC_PROBE:?run through ctest}"
PIDS=()
on_exit 'for p in "${PIDS[@]}"; do kill "$p"; done'
A=$(test_addr 0) P=$(test_port 0) PA=$(test_addr 1) PP=$(test_port 1)
FAKE=$SRC/tests/integration/fake_exporter.py
_answers() { curl -s --noproxy '*' -o /dev/null "$1" || { kill -0 "$2" 2>/dev/null || fail "$1: the server ended"; return 1; }; }
python3 "$FAKE" "$A" "$P" "$T/ex.log" 2>"$T/ex.err" &
PIDS+=($!)
python3 "$FAKE" "$PA" "$PP" "$T/proxy.log" 2>"$T/proxy.err" &
PIDS+=($!)
wait_until 30 _answers "http://$A:$P/ok/metrics" "${PIDS[0]}"
wait_until 30 _answers "http://$PA:$PP/ok/metrics" "${PIDS[1]}"
: >"$T/proxy.log"
U=http://$A:$P

# 1. valid, and a subnormal value is a value
expect_rc 0 "$HOSTSRC_PROBE" ok=node_exporter:"$U/ok/metrics" -- true
expect_rc 0 "$HOSTSRC_PROBE" sub=node_exporter:"$U/sub/metrics" -- true
# 2. one series twice (its labels in another order): refused, naming host and lines
expect_rc 3 "$HOSTSRC_PROBE" dup=node_exporter:"$U/dup/metrics" -- true
grep -q "dup (node_exporter): not exposition text: line 6: node_cpu_seconds_total: the same series again (first on line 2)" <<<"$OUT" ||
        fail "duplicate series: $OUT"
# 3. a redirect is an answer of its own, not followed
: >"$T/ex.log"
expect_rc 3 "$HOSTSRC_PROBE" red=node_exporter:"$U/redirect" -- true
grep -q "red (node_exporter): $U/redirect: HTTP status 302" <<<"$OUT" || fail "redirect: $OUT"
grep -q "^/ok/metrics" "$T/ex.log" && fail "the redirect was followed: $(cat "$T/ex.log")"
# 4. an environment proxy nobody named is not used
: >"$T/ex.log"
unset no_proxy NO_PROXY
http_proxy=http://$PA:$PP HTTP_PROXY=http://$PA:$PP all_proxy=http://$PA:$PP ALL_PROXY=http://$PA:$PP \
        expect_rc 0 "$HOSTSRC_PROBE" px=node_exporter:"$U/ok/metrics" -- true
[ -s "$T/proxy.log" ] && fail "the environment's proxy was used: $(cat "$T/proxy.log")"
grep -q "^/ok/metrics $A:$P" "$T/ex.log" || fail "the exporter was not asked directly: $(cat "$T/ex.log")"
# 5. other schemes, refused before any connection
for url in "gopher://$A:$P/" "ftp://$A:$P/metrics" "file:///etc/passwd" "dict://$A:$P/"; do
        expect_rc 3 "$HOSTSRC_PROBE" s=node_exporter:"$url" -- true
        grep -q "only http:// and https:// are read" <<<"$OUT" || fail "$url: $OUT"
done
[ -s "$T/proxy.log" ] && fail "the proxy was asked: $(cat "$T/proxy.log")"
pass "valid and subnormal bodies read; a duplicate series refused naming the lines;" \
        "no redirect followed, no environment proxy used, 4 other schemes refused"
