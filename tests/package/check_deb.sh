#!/usr/bin/env bash
# `cpack -G DEB` in a built tree makes a .deb, and the .deb holds what a user needs:
#   - the files: /usr/bin/kspeed, the man page, the bash, zsh and fish completions, the copyright;
#   - Depends that covers every shared library the binary loads (readelf's NEEDED entries, each
#     mapped to its Debian package with dpkg -S), and names nothing when the binary is static;
#   - a binary that runs: unpacked with dpkg-deb -x, `kspeed estimate` answers.
# Skipped (77), saying why, without cpack, dpkg-deb, dpkg-shlibdeps or readelf.
# Usage: check_deb.sh BUILD_DIR
set -u
build=$(realpath "$1")
for tool in cpack dpkg-deb dpkg-shlibdeps readelf; do
  command -v "$tool" >/dev/null ||
    { echo "SKIP: $tool is not installed (Debian: cmake, dpkg, dpkg-dev, binutils)"; exit 77; }
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$scratch/out" >"$scratch/cpack.log" 2>&1 ||
  { cat "$scratch/cpack.log"; echo "FAIL: cpack -G DEB"; exit 1; }
debs=("$scratch"/out/kspeed_*.deb)
[ -f "${debs[0]}" ] || { cat "$scratch/cpack.log"; echo "FAIL: no kspeed_*.deb written"; exit 1; }
deb=${debs[0]}
echo "ok   cpack wrote $(basename "$deb") ($(stat -c %s "$deb") bytes)"

contents=$(dpkg-deb -c "$deb") || { echo "FAIL: dpkg-deb -c"; exit 1; }
for file in ./usr/bin/kspeed ./usr/share/man/man1/kspeed.1 \
            ./usr/share/bash-completion/completions/kspeed ./usr/share/zsh/site-functions/_kspeed \
            ./usr/share/fish/vendor_completions.d/kspeed.fish ./usr/share/doc/kspeed/copyright; do
  # dpkg-deb -c lists like tar -tv: the path is the sixth field.
  awk -v f="$file" '$6 == f { found = 1 } END { exit !found }' <<<"$contents" &&
    echo "ok   $file" || fail "$file is not in the package"
done
awk '$1 ~ /^-/ && $6 !~ /^\.\/usr\// { print; bad = 1 } END { exit bad }' <<<"$contents" ||
  fail "files outside /usr (listed above)"

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = kspeed ] || fail "Package is '$(field Package)', expected kspeed"
echo "ok   Version $(field Version), Architecture $(field Architecture)"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] ||
  fail "Architecture $(field Architecture) is not this machine's $(dpkg --print-architecture)"

dpkg-deb -x "$deb" "$scratch/root"
binary="$scratch/root/usr/bin/kspeed"
depends=$(field Depends)
needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
if [ -z "$needed" ]; then
  # A static binary: nothing to depend on.
  [ -z "$depends" ] && echo "ok   static binary, no Depends" ||
    fail "the binary is static but Depends is '$depends'"
fi
for library in $needed; do
  # The package that ships the library this machine resolves it to (the one dpkg-shlibdeps saw).
  path=$(ldconfig -p | awk -v l="$library" '$1 == l && /x86-64|x32|64/ { print $NF; exit }')
  [ -n "$path" ] || path=$(ldconfig -p | awk -v l="$library" '$1 == l { print $NF; exit }')
  owner=$(dpkg -S "$(realpath "$path")" 2>/dev/null | head -n 1 | cut -d: -f1)
  [ -n "$owner" ] || owner=$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1)
  if [ -z "$owner" ]; then
    fail "NEEDED $library: no Debian package owns $path"
  elif tr ',' '\n' <<<"$depends" | awk -v o="$owner" '{ sub(/^ +/, ""); split($0, w, " ") }
       w[1] == o { found = 1 } END { exit !found }'; then  # a name like libstdc++6 is no regex
    echo "ok   NEEDED $library -> Depends $owner"
  else
    fail "NEEDED $library ($owner) is not in Depends '$depends'"
  fi
done

output=$("$binary" estimate 2>&1) || fail "the packaged kspeed estimate failed: $output"
grep -q "^request " <<<"$output" && echo "ok   the packaged binary runs kspeed estimate" ||
  fail "the packaged kspeed estimate printed no request row: $output"

[ $failures = 0 ] || { echo "$failures failures"; exit 1; }
