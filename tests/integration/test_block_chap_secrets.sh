#!/usr/bin/env bash
# CHAP secrets never leave in clear: given in the URL (user%pass and
# user:pass, ?target_password= for mutual CHAP), in a mistyped URL, or from
# --chap-secret-file / --chap-target-secret-file, no file of the run
# directory (result.json, intervals.csv, job.ini, report.html, report.md)
# and nothing on stdout or stderr holds them. A job.ini of a run whose
# secrets came from files logs in again through `hcisweep run`, from any
# directory; one whose secret was in the URL does not hold it (login refused,
# unless libiscsi's LIBISCSI_CHAP_PASSWORD gives it).
. "$TESTLIB"
. "$SRC/tests/integration/tgt.sh"
S1=chapSecretOne1 S2=chapSecretTwo2
tgt_start --luns 1 --size 16M --chap "hciu:$S1" --mutual "tgtu:$S2"
url=${TGT_URLS[0]}               # iscsi://hciu%S1@HOST:PORT/IQN/1?target_user=tgtu&target_password=S2
bare=${url/hciu%$S1@/hciu@}      # the user without the secret
bare=${bare%%&target_password=*} # and target_user without its secret
grep -q "$S1" <<<"$url" && grep -q "$S2" <<<"$url" || fail "tgt URL lacks the secrets: $url"
printf '%s\n' "$S1" >"$T/s1"
printf '%s\n' "$S2" >"$T/s2"
chmod 600 "$T/s1" "$T/s2"
runs=$T/runs
R=(--runtime 1 --output-dir "$runs")

# no_secret WHAT TEXT-OR-FILES...: fail if any holds either secret.
no_secret() {
        local what=$1
        shift
        if grep -l -e "$S1" -e "$S2" "$@" 2>/dev/null; then fail "$what holds a CHAP secret"; fi
        return 0
}

expect_rc 0 "$HCISWEEP" block --target "$url" "${R[@]}"
no_secret "output (secret in the URL, %)" <<<"$OUT"
grep -q "chap-secret-file" <<<"$OUT" || fail "no warning about a secret on the command line"
expect_rc 0 "$HCISWEEP" block --target "${url/hciu%/hciu:}" "${R[@]}"
no_secret "output (secret in the URL, :)" <<<"$OUT"
expect_rc 0 "$HCISWEEP" block --target "$bare" --chap-secret-file "$T/s1" \
        --chap-target-secret-file "$T/s2" "${R[@]}"
no_secret "output (secret files)" <<<"$OUT"
from_files=$(dirname "$(grep -o "$runs/[^ ]*result.json" <<<"$OUT")")

# Mistyped schemes and a URL given as a path: refused, and the secret is not echoed.
for bad in "--target ${url/iscsi:/iscs:}" "--target ${url/iscsi:/ISCSI:}" \
        "--filename ${url/hciu%/hciu:}"; do
        rc=0
        OUT=$("$HCISWEEP" block $bad "${R[@]}" 2>&1) || rc=$?
        [ $rc -ne 0 ] || fail "accepted: $bad"
        no_secret "the error for '${bad%% *}'" <<<"$OUT"
done

# Wrong secret from a file: login refused (exit 3).
echo wrongSecret99 >"$T/bad"
expect_rc 3 "$HCISWEEP" block --target "$bare" --chap-secret-file "$T/bad" "${R[@]}"

for d in "$runs"/block-*; do
        expect_rc 0 "$HCISWEEP" report "$d"
done
[ "$(ls "$runs"/block-*/report.html | wc -l)" -eq 3 ] || fail "want 3 reports"
no_secret "a run file" "$runs"/block-*/*
no_secret "the run index" "$HCISWEEP_INDEX"

# Rerun the job of the secret-file run from another directory: it logs in.
cp "$from_files/job.ini" "$T/job.ini"
rm -rf "$runs"
OUT=$(cd / && "$HCISWEEP" run "$T/job.ini" 2>&1) || fail "rerun of job.ini failed: $OUT"
no_secret "the rerun's output" <<<"$OUT"
no_secret "the rerun's files" "$runs"/block-*/*
jq -e '.points[0].read.ios > 0' "$runs"/block-*/result.json >/dev/null || fail "the rerun did no I/O"
pass "CHAP secrets kept out of every file and message; job.ini of a secret-file run reruns"
