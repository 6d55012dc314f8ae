#!/bin/bash
# test_series_read.sh - a result's series are read from the files beside it in bounded
# memory (issue 42): a 200 MB series written by the series writer itself (series_gen) is
# reported with a max RSS under 100 MB; a result written before series files (series
# inline: old_result_inline.json) still reports, the same as once its series are moved out
# into files; a reference to a file outside the run directory, or a row that is not JSON,
# is refused (exit 2).
. "$TESTLIB"
cd "$T" || exit 1
FIX="$SRC/tests/cli/old_result_inline.json"

# 1. 200 MB of series, reported in bounded memory.
expect_rc 0 "$SERIES_GEN" big 200
echo "$OUT"
du -sm big
# Under ASan: no quarantine of freed memory (256 MB by default) and no stack kept per
# allocation, so the RSS measured is the tool's rather than the sanitizer's bookkeeping
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:malloc_context_size=0"
expect_rc 0 /usr/bin/time -f 'maxrss_kb=%M elapsed_s=%e' "$HCISWEEP" report big --output-dir rep
rss=$(sed -n 's/^maxrss_kb=\([0-9]*\) .*/\1/p' <<<"$OUT")
echo "report of 200 MB of series: $(grep maxrss_kb <<<"$OUT")"
[ -n "$rss" ] && [ "$rss" -lt 102400 ] || fail "report took ${rss:-?} KB (want < 100 MB): $OUT"
grep -q 'TPS over time' rep/report.html || fail "no TPS plot from the long series"
rm -rf big rep

# 2. An old-style result (series inline) reports; moved into files it reports the same.
mkdir old new
cp "$FIX" old/result.json
expect_rc 0 "$HCISWEEP" report old
python3 - "$FIX" new <<'PY' || fail "splitting the fixture"
import json, os, sys
r, d = json.load(open(sys.argv[1])), sys.argv[2]
def walk(o, path):
    items = o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else []
    for k, v in list(items):
        p = f"{path}.{k}" if path else str(k)
        if k in ("samples", "intervals", "series") and isinstance(v, list) and v:
            with open(os.path.join(d, p + ".ndjson"), "w") as f:
                f.writelines(json.dumps(x) + "\n" for x in v)
            o[k] = {"file": p + ".ndjson", "format": "ndjson", "rows": len(v)}
        else:
            walk(v, p)
walk(r, "")
json.dump(r, open(os.path.join(d, "result.json"), "w"))
PY
ls new/*.ndjson >/dev/null || fail "the fixture holds no series"
expect_rc 0 "$HCISWEEP" report new
diff <(sed 1,8d old/report.md) <(sed 1,8d new/report.md) || fail "inline and file series report differently"

# 3. What a reader refuses: a file outside the run directory, a torn row.
f=$(ls new/*.ndjson | head -1)
sed -i "s#\"file\": \"$(basename "$f")\"#\"file\": \"../$(basename "$f")\"#" new/result.json
expect_rc 2 "$HCISWEEP" report new
grep -q 'series reference' <<<"$OUT" || fail "a path outside the run was not named: $OUT"
sed -i 's#"file": "\.\./#"file": "#' new/result.json
sed -i '1s/.*/{"t": 1, "cpu": {/' "$f"
expect_rc 2 "$HCISWEEP" report new
grep -q "$(basename "$f"):1: JSON" <<<"$OUT" || fail "a row that is not JSON was not named: $OUT"
pass "200 MB of series reported in ${rss} KB"
