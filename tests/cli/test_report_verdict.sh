#!/bin/bash
# test_report_verdict.sh - the verdict is the first thing a report shows: in
# the HTML it comes before any plot or table, and in Chromium's layout at
# 1280x800 (headless, offline) it ends within the first 800 px, also when the
# run is untrusted and every step carries a steady-state warning. Without
# Chromium the layout part is skipped (77) once the HTML order has passed.
. "$TESTLIB"
cd "$T" || exit 1
MK="$SRC/tests/cli/mkscale.py"

# A constructed scale result, and the worst case for the first screen: untrusted, partial,
# every step short of its CI and unsettled (warnings above the fold if anything is).
mkdir s w
python3 "$MK" hci s/result.json || fail "mkscale"
jq '.partial = true | .partial_reason = "interrupted by SIGINT" |
    .monitor.summary.untrusted = true | .monitor.summary.reason = "CPU steal reached 34.6% > 20%" |
    .monitor.summary.steal_max = 34.6 |
    .steps |= map(.steady = {warmup_s: 2, measured_s: 24, ci_pct: 4.2, target_ci_pct: 3,
                             met: false, settled: false})' s/result.json >w/result.json
for d in s w; do
        expect_rc 0 "$HCISWEEP" report "$d"
        html=$d/report.html
        # the verdict's box comes before the first figure, table and warning of the page
        v=$(grep -bo '<div class="verdict">' "$html" | head -1 | cut -d: -f1)
        [ -n "$v" ] || fail "$d: no verdict in the page"
        for tag in '<figure' '<svg' '<table' 'class="warn"'; do
                at=$(grep -bo "$tag" "$html" | head -1 | cut -d: -f1)
                [ -z "$at" ] || [ "$v" -lt "$at" ] || fail "$d: $tag at byte $at before the verdict at $v"
        done
done
grep -q '<div class="v1">hci: UNTRUSTED run — the host monitor saw CPU steal reached 34.6%' \
        w/report.html || fail "untrusted not the verdict's first line"
[ "$(grep -c 'class="warn">Warning: [0-9]* step(s)' w/report.html)" -eq 1 ] ||
        fail "the steps' steady-state warning is not said once: $(grep -c 'class="warn"' w/report.html)"
pass "the verdict precedes every plot, table and warning; the steps' warning said once"

command -v chromium >/dev/null || { echo "skip: $TEST_NAME: no chromium for the layout check"; exit 77; }
CHR=(chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
        --disable-background-networking --disable-component-update --disable-sync
        --hide-scrollbars --user-data-dir="$T/chr" --window-size=1280,800)
for d in s w; do
        # a copy of the page that writes where the verdict's box ends into the DOM it dumps
        sed 's|</body>|<script>var b = document.querySelector(".verdict").getBoundingClientRect();document.body.setAttribute("data-verdict-bottom", Math.ceil(b.bottom + window.scrollY));document.body.setAttribute("data-verdict-top", Math.floor(b.top + window.scrollY));</script></body>|' \
                "$d/report.html" >"$d/probe.html"
        timeout 120 "${CHR[@]}" --dump-dom "file://$T/$d/probe.html" >"$d/dom.html" 2>chr.err ||
                fail "chromium --dump-dom failed: $(tail -3 chr.err)"
        bottom=$(sed -n 's/.*data-verdict-bottom="\([0-9]*\)".*/\1/p' "$d/dom.html" | head -1)
        top=$(sed -n 's/.*data-verdict-top="\([0-9]*\)".*/\1/p' "$d/dom.html" | head -1)
        [ -n "$bottom" ] || fail "$d: no layout figure in the rendered DOM"
        [ "$bottom" -gt "$top" ] && [ "$bottom" -le 800 ] ||
                fail "$d: the verdict spans $top..$bottom px, not within the first 800"
        timeout 120 "${CHR[@]}" --screenshot="$T/$d.png" "file://$T/$d/report.html" >/dev/null \
                2>chr.err || fail "screenshot failed: $(tail -3 chr.err)"
        [ "$(stat -c %s "$d.png")" -gt 10000 ] || fail "$d: screenshot is only $(stat -c %s "$d.png") bytes"
        pass "$d: at 1280x800 the verdict spans $top..$bottom px"
done
