#!/usr/bin/env bash
# The install and the .deb: `cmake --install` puts the binary, the man page
# and the bash completion in place; CPack builds a .deb whose Depends name
# the Debian package of every library the binary links (dpkg -S on its
# NEEDED entries) and whose Recommends name the servers; dpkg -x holds the
# three files and the binary runs; lintian reports no error.
. "$TESTLIB"
BUILD=$(dirname "$HCISWEEP")
[ -f "$BUILD/CPackConfig.cmake" ] || fail "no CPackConfig.cmake in $BUILD"
for t in cpack dpkg-deb lintian readelf; do command -v $t >/dev/null || fail "$t missing"; done

expect_rc 0 cmake --install "$BUILD" --prefix "$T/inst"
for f in bin/hcisweep share/man/man1/hcisweep.1.gz share/bash-completion/completions/hcisweep \
        share/doc/hcisweep/copyright share/doc/hcisweep/changelog.gz; do
        [ -s "$T/inst/$f" ] || fail "cmake --install: no $f"
done
pass "cmake --install: binary, man page, completion, copyright, changelog"

expect_rc 0 bash -c "cd '$BUILD' && cpack -G DEB -B '$T/pkg'"
deb=$(ls "$T"/pkg/hcisweep_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "cpack made no .deb: $OUT"
info=$(dpkg-deb -I "$deb") || fail "dpkg-deb -I $deb"
depends=$(sed -n 's/^ Depends: //p' <<<"$info")
recommends=$(sed -n 's/^ Recommends: //p' <<<"$info")
echo "# Depends: $depends"
echo "# Recommends: $recommends"
# every library the binary names, as its Debian package
needed=$(readelf -d "$HCISWEEP" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for lib in $needed; do
        path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
        [ -n "$path" ] || fail "$lib: not known to ldconfig"
        pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1)
        [ -n "$pkg" ] || pkg=$(dpkg -S "$path" | head -1 | cut -d: -f1)
        grep -Eq "(^|, )$pkg( |,|$)" <<<"$depends" || fail "$lib ($pkg) not in Depends: $depends"
done
for pkg in libmariadb3 libiscsi7 liburing2 libjansson4 libsqlite3-0 libinih1 libmicrohttpd12; do
        grep -Eq "(^|, )$pkg( |,|$)" <<<"$depends" || fail "$pkg not in Depends: $depends"
done
for pkg in tgt mariadb-server qemu-system-common; do
        grep -Eq "(^|, )$pkg( |,|$)" <<<"$recommends" || fail "$pkg not in Recommends: $recommends"
done
pass "dpkg-deb -I: Depends cover the $(wc -w <<<"$needed") linked libraries; Recommends tgt, mariadb-server, qemu-system-common"

dpkg -x "$deb" "$T/x" || fail "dpkg -x"
for f in usr/bin/hcisweep usr/share/man/man1/hcisweep.1.gz usr/share/bash-completion/completions/hcisweep; do
        [ -s "$T/x/$f" ] || fail "the .deb holds no $f"
done
"$T/x/usr/bin/hcisweep" --version | grep -q '^hcisweep ' || fail "the packaged binary does not run"
cmp -s <(zcat "$T/x/usr/share/man/man1/hcisweep.1.gz") <("$HCISWEEP" help --man) ||
        fail "the packaged man page is not what help --man prints"
cmp -s "$T/x/usr/share/bash-completion/completions/hcisweep" <("$HCISWEEP" completion bash) ||
        fail "the packaged completion is not what completion bash prints"
pass "dpkg -x: binary (runs), man page and completion as the binary makes them"

lintian "$deb" >"$T/lintian.out" 2>&1
lrc=$?
grep -v '^running with root privileges' "$T/lintian.out" | sed 's/^/# lintian: /'
grep -q '^E: ' "$T/lintian.out" && fail "lintian reports errors"
[ $lrc -eq 0 ] || fail "lintian exit $lrc"
pass "lintian: no error ($(grep -c '^W: ' "$T/lintian.out") warnings)"
