#!/usr/bin/env bash
# The man page and the bash completion come from the options tables: every
# option each command's --help lists is in `hcisweep help --man` (rendered
# by man -l without a warning) and completes; choices complete, subcommands
# complete, and the script loads with complete -p; every --help begins with
# one "usage: hcisweep COMMAND" line.
. "$TESTLIB"
"$HCISWEEP" help --man >"$T/hcisweep.1" || fail "help --man"
MANWIDTH=120 LC_ALL=C.UTF-8 man --warnings -l "$T/hcisweep.1" >"$T/man.txt" 2>"$T/man.err" ||
        fail "man -l failed: $(cat "$T/man.err")"
[ ! -s "$T/man.err" ] || fail "man -l warnings: $(head -5 "$T/man.err")"
for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "JOB FILES" "EXIT STATUS" ENVIRONMENT; do
        grep -q "^$s" "$T/man.txt" || fail "man page has no $s section"
done

out=$(bash -c "source <('$HCISWEEP' completion bash) && complete -p hcisweep") ||
        fail "completion script does not load"
[ "$out" = "complete -o default -F _hcisweep hcisweep" ] || fail "complete -p: $out"
cat >"$T/comp.sh" <<'SH'
source <("$HCISWEEP" completion bash)
c() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _hcisweep; echo "${COMPREPLY[*]}"; }
SH
comp() { bash -c ". '$T/comp.sh'; c $*"; }

n=0
for cmd in block "oltp run" lab scale report compare analyze results; do
        opts=$("$HCISWEEP" $cmd --help | grep -o '^  --[a-z_0-9-]*' | sed 's/^  //')
        [ -n "$opts" ] || fail "$cmd --help lists no option"
        words=$(comp hcisweep $cmd --)
        for o in $opts; do
                grep -q -- "^       $o\b" "$T/man.txt" || fail "man page lacks $cmd $o"
                grep -qw -- "$o" <<<"$words" || fail "completion lacks $cmd $o"
                n=$((n + 1))
        done
done
pass "man -l renders; all $n options of --help are in the man page and complete"

for cmd in block oltp "oltp run" lab "lab up" scale report compare analyze results run completion; do
        first=$("$HCISWEEP" $cmd --help 2>&1 | head -1)
        [[ $first == "usage: hcisweep ${cmd%% *} "* && $first != *"usage: usage"* ]] ||
                fail "$cmd --help begins '$first'"
done
pass "every command's --help begins 'usage: hcisweep COMMAND'"

[ "$(comp hcisweep bl)" = block ] || fail "command: $(comp hcisweep bl)"
[ "$(comp hcisweep oltp '""')" = "prepare run cleanup" ] || fail "oltp subcommands: $(comp hcisweep oltp '""')"
[ "$(comp hcisweep block --output-format fio)" = "fio-json fio-json+" ] ||
        fail "enum: $(comp hcisweep block --output-format fio)"
[ "$(comp hcisweep block --rw randread,randw)" = "randread,randwrite" ] ||
        fail "enum list: $(comp hcisweep block --rw randread,randw)"
[ -z "$(comp hcisweep block --iodepth '""')" ] || fail "a number completed: $(comp hcisweep block --iodepth '""')"
expect_rc 2 "$HCISWEEP" completion zsh
pass "commands, subcommands, choices and lists complete; numbers do not; zsh refused"
