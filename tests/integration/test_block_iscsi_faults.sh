#!/usr/bin/env bash
# Login and reachability: CHAP right and wrong, no target listening, a LUN
# that does not exist. Failures are exit 3 with libiscsi's reason.
. "$TESTLIB"
. "$SRC/tests/integration/tgt.sh"
tgt_start --luns 1 --size 16M --chap hciuser:hcisecret12
url=${TGT_URLS[0]}
grep -q "hciuser%hcisecret12@" <<<"$url" || fail "URL lacks the CHAP credentials: $url"

expect_rc 0 "$HCISWEEP" block --target "$url" --runtime 1 --json "$T/ok.json"
jq -e '.points[0].read.ios > 0' "$T/ok.json" >/dev/null || fail "CHAP login did no I/O"
jq -e '.config.target | test("hcisecret12") | not' "$T/ok.json" >/dev/null ||
        fail "the CHAP password was echoed into the result"
grep -q hcisecret12 <<<"$OUT" && fail "the CHAP password was printed"

expect_rc 3 "$HCISWEEP" block --target "${url/hcisecret12/wrongsecret1}" --runtime 1 \
        --json "$T/bad.json"
grep -qi "login\|auth" <<<"$OUT" || fail "wrong CHAP not explained: $OUT"
[ ! -e "$T/bad.json" ] || fail "a failed login wrote a result"

expect_rc 3 "$HCISWEEP" block --target "${url/hciuser%hcisecret12@/}" --runtime 1
expect_rc 3 "$HCISWEEP" block --target "${url%/1}/7" --runtime 1
grep -qi "lun\|7" <<<"$OUT" || fail "missing LUN not explained: $OUT"

# Nothing listens on this port.
expect_rc 3 "$HCISWEEP" block --target "iscsi://$(test_addr 0):$(test_port 5)/iqn.2026-11.io.hcisweep:none/1" \
        --runtime 1
pass "CHAP right/wrong, unreachable, missing LUN"
