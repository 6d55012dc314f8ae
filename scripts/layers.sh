#!/usr/bin/env bash
# scripts/layers.sh - the include rules of the source tree, checked.
#
# 1. Layers: a directory includes only itself and the layers below it,
#        core  <-  results, lab  <-  block, oltp  <-  scale  <-  cli
#    (the README's Layout). Directories of one layer do not include each
#    other. results/ is the one place where a run's result is saved and
#    indexed (block and oltp save theirs through it), so it sits below them
#    and includes nothing of theirs. tests/ and bench/ may include anything
#    and are not checked.
# 2. No circle: with one node per file stem (dir/name.c and dir/name.h are
#    one node) and an edge for every project include ("dir/file.h"), no
#    node reaches itself again. Lawful includes between directories only go
#    down, so a circle left is one inside a directory.
# Every violation is printed as FILE: includes "HEADER": WHY, and the exit
# code is 1 when there is one (0 when the tree is clean).
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null ||
        find . -name '*.[ch]' -not -path './build*' | sed 's|^\./||')

# One "FILE HEADER" line per project include of a checked directory.
for f in "${files[@]}"; do
        case "$f" in core/* | block/* | oltp/* | lab/* | results/* | scale/* | cli/*) ;; *) continue ;; esac
        sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*|\1|p' "$f" |
                while read -r inc; do echo "$f $inc"; done
done | awk '
function rank(d) {
        if (d == "core") return 0
        if (d == "results" || d == "lab") return 1
        if (d == "block" || d == "oltp") return 2
        if (d == "scale") return 3
        if (d == "cli") return 4
        return -1
}
function stem(p) { sub(/\.[ch]$/, "", p); return p }
function dir(p) { sub(/\/.*/, "", p); return p }
{
        file = $1; inc = $2; from = stem(file); to = stem(inc)
        fd = dir(file); td = dir(inc)
        if (inc !~ /\//) {
                printf "%s: includes \"%s\": not a \"dir/file.h\" include\n", file, inc
                bad = 1
                next
        }
        if (rank(td) < 0) {
                printf "%s: includes \"%s\": %s/ is not a layer of the tree\n", file, inc, td
                bad = 1
                next
        } else if (td != fd && rank(td) >= rank(fd)) {
                printf "%s: includes \"%s\": %s/ is not below %s/ (core <- results, lab <- block, oltp <- scale <- cli)\n", file, inc, td, fd
                bad = 1
                next
        }
        # Circles are looked for among the lawful includes only: one through
        # an include that breaks a layer is already reported as that include.
        if (from == to) next
        key = from SUBSEP to
        if (!(key in carrier)) {
                carrier[key] = file " " inc
                succ[from] = succ[from] " " to
                nodes[from]; nodes[to]
        }
}
# The shortest way from start back to itself, as "a -> b -> ... -> a", or "".
function circle(start,    q, head, tail, prev, seen, n, i, k, s, nb, path) {
        head = tail = 0
        n = split(succ[start], nb, " ")
        for (i = 1; i <= n; i++) if (!(nb[i] in seen)) { seen[nb[i]]; prev[nb[i]] = start; q[tail++] = nb[i] }
        while (head < tail) {
                s = q[head++]
                if (s == start) break
                n = split(succ[s], nb, " ")
                for (i = 1; i <= n; i++) if (!(nb[i] in seen)) { seen[nb[i]]; prev[nb[i]] = s; q[tail++] = nb[i] }
        }
        if (!(start in seen)) return ""
        path = start; k = start
        do { k = prev[k]; path = k " -> " path } while (k != start)
        return path
}
END {
        # Each distinct circle once, whichever of its nodes found it.
        for (s in nodes) {
                c = circle(s)
                if (c == "") continue
                n = split(c, hop, " -> ")
                id = ""
                for (i = 1; i < n; i++) members[i] = hop[i]
                m = asort(members)
                for (i = 1; i <= m; i++) id = id " " members[i]
                delete members
                if (id in reported) continue
                reported[id]
                for (i = 1; i < n; i++) {
                        split(carrier[hop[i] SUBSEP hop[i + 1]], fi, " ")
                        printf "%s: includes \"%s\": include circle %s\n", fi[1], fi[2], c
                }
                bad = 1
        }
        exit bad
}' && echo "layers: no layer violation, no include circle (${#files[@]} files)"
