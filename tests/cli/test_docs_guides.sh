#!/usr/bin/env bash
# test_docs_guides.sh - the guides cover the reference: every command,
# subcommand and option the man page lists appears in README.md or docs/*.md,
# and every example command in them parses: `scale` with --dry-run, every
# other command with --help appended (which still refuses an unknown option
# or a bad value with exit 2; `run JOBFILE` only as `run --help`, the file being
# the example's own).
. "$TESTLIB"
DOCS=("$SRC/README.md" "$SRC"/docs/*.md)
[ ${#DOCS[@]} -ge 8 ] || fail "expected README.md and the guides in docs/: ${DOCS[*]}"
"$HCISWEEP" help --man >"$T/hcisweep.1" || fail "help --man"
MANWIDTH=200 LC_ALL=C.UTF-8 man -l "$T/hcisweep.1" >"$T/man.txt" 2>/dev/null || fail "man -l"
cat "${DOCS[@]}" >"$T/docs.txt"

# commands and subcommands: the COMMANDS section's entries ("lab up|down|status")
words=$(sed -n '/^COMMANDS/,/^OPTIONS/p' "$T/man.txt" | sed -n 's/^       \([a-z][a-z|]*\)\( \([a-z|]*\)\)\{0,1\}.*/\1 \3/p' |
        tr '|' ' ')
[ "$(wc -w <<<"$words")" -ge 15 ] || fail "too few commands read from the man page: $words"
missing=()
for w in $words; do grep -qw -- "$w" "$T/docs.txt" || missing+=("$w"); done
[ ${#missing[@]} -eq 0 ] || fail "commands the man page lists and no guide names: ${missing[*]}"
pass "$(wc -w <<<"$words") commands and subcommands of the man page are in the guides"

# options: every "--name" entry of the OPTIONS section
opts=$(sed -n '/^OPTIONS/,/^JOB FILES/p' "$T/man.txt" | sed -n 's/^       \(--[a-z0-9_-]*\).*/\1/p' | sort -u)
[ "$(wc -l <<<"$opts")" -ge 100 ] || fail "too few options read from the man page"
missing=()
for o in $opts; do grep -qE -- "$o([^a-z0-9_-]|$)" "$T/docs.txt" || missing+=("$o"); done
[ ${#missing[@]} -eq 0 ] || fail "options of the man page in no guide: ${missing[*]}"
pass "$(wc -l <<<"$opts") options of the man page are in the guides"

# example commands: lines of the guides' plain code blocks that start with
# "hcisweep " or "$ hcisweep ", continuation lines joined, "# ..." comments and
# "; next command" split off
python3 - "${DOCS[@]}" >"$T/examples" <<'PY' || fail "reading the examples"
import shlex, sys
for path in sys.argv[1:]:
    block, lang, cmd = False, "", ""
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        s = line.rstrip("\n")
        if s.startswith("```"):
            block, lang = (not block), s[3:].strip()
            continue
        if not block or lang:
            continue
        if cmd:
            cmd += " " + s.strip()
        elif s.startswith("hcisweep ") or s.startswith("$ hcisweep "):
            cmd = s[2:] if s.startswith("$ ") else s
        else:
            continue
        if cmd.endswith("\\"):
            cmd = cmd[:-1]
            continue
        for part in cmd.split(" ; "):
            words = shlex.split(part, comments=True)
            print(f"{path.rsplit('/', 1)[-1]}:{n}\t" + "\x1f".join(words))
        cmd = ""
PY
n=0 bad=0
while IFS=$'\t' read -r where line; do
        IFS=$'\x1f' read -r -a argv <<<"$line"
        [ "${argv[0]}" = hcisweep ] || fail "$where: not a hcisweep command: ${argv[*]}"
        case " ${argv[*]} " in
        *" --help "* | *" --dry-run "*) extra=() ;;
        " hcisweep scale "*) extra=(--dry-run) ;;
        " hcisweep run "*) argv=(hcisweep run --help) extra=() ;; # JOBFILE: a file of the example
        *) extra=(--help) ;;
        esac
        rc=0
        out=$(cd "$T" && "$HCISWEEP" "${argv[@]:1}" "${extra[@]}" 2>&1 >/dev/null) || rc=$?
        [ $rc -eq 0 ] || { echo "$where: exit $rc: ${argv[*]} ${extra[*]}: $out" >&2; bad=$((bad + 1)); }
        n=$((n + 1))
done <"$T/examples"
[ $bad -eq 0 ] || fail "$bad of $n example commands do not parse (above)"
[ $n -ge 20 ] || fail "only $n example commands found"
pass "all $n example commands of the guides parse"
