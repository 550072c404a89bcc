#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the installed completions and man page work:
# bash completes `kspeed est<TAB>` to estimate and `kspeed estimate --kern<TAB>` to the flag,
# the man page renders (man -l, or groff), and the zsh and fish scripts parse when those shells
# exist (skipped otherwise, saying so).
# Usage: check_install.sh BUILD_DIR
set -u
build=$(realpath "$1")
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
for file in bin/kspeed share/bash-completion/completions/kspeed share/zsh/site-functions/_kspeed \
            share/fish/vendor_completions.d/kspeed.fish share/man/man1/kspeed.1; do
  [ -s "$prefix/$file" ] || fail "$file is not installed"
done

# COMP_WORDS/COMP_CWORD as bash sets them for the line typed so far; prints COMPREPLY.
complete_line() {
  bash --norc --noprofile -c '
    source "$1/share/bash-completion/completions/kspeed"
    shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _kspeed
    printf "%s\n" "${COMPREPLY[@]}"' _ "$prefix" "$@"
}
replies=$(complete_line kspeed est)
[ "$replies" = estimate ] && echo "ok   kspeed est<TAB> -> estimate" ||
  fail "kspeed est<TAB> gave '$replies', expected estimate"
replies=$(complete_line kspeed estimate --kern)
grep -qx -- --kernel-speedup <<<"$replies" && echo "ok   kspeed estimate --kern<TAB> -> $(echo $replies)" ||
  fail "kspeed estimate --kern<TAB> gave '$replies', expected --kernel-speedup"
replies=$(complete_line kspeed sweep --ctx 4k --poi)
[ "$replies" = --points ] && echo "ok   kspeed sweep --ctx 4k --poi<TAB> -> --points" ||
  fail "kspeed sweep --ctx 4k --poi<TAB> gave '$replies', expected --points"
replies=$(complete_line kspeed workloads s)
[ "$replies" = show ] && echo "ok   kspeed workloads s<TAB> -> show" ||
  fail "kspeed workloads s<TAB> gave '$replies', expected show"
replies=$(complete_line kspeed "")
grep -qx completions <<<"$replies" && fail "the hidden completions command is offered"

page="$prefix/share/man/man1/kspeed.1"
if command -v man >/dev/null; then
  rendered=$(MANWIDTH=100 man -l "$page" 2>&1) || fail "man -l kspeed.1: $rendered"
else
  rendered=$(groff -man -Tutf8 "$page" 2>&1) || fail "groff kspeed.1: $rendered"
fi
for expected in "kspeed - what is this kernel speedup worth" "kspeed estimate" "--kernel-speedup" \
                "EXIT STATUS"; do
  grep -qF -- "$expected" <<<"$(sed 's/\x08.//g; s/\x1b\[[0-9;]*m//g' <<<"$rendered")" ||
    fail "the rendered man page lacks '$expected'"
done
[ $failures = 0 ] && echo "ok   man page renders ($(wc -l <<<"$rendered") lines)"

if command -v zsh >/dev/null; then
  zsh -n "$prefix/share/zsh/site-functions/_kspeed" && echo "ok   zsh parses _kspeed" ||
    fail "zsh cannot parse _kspeed"
  # compinit finds the function on fpath and binds it to the command.
  bound=$(zsh -fc "fpath=('$prefix/share/zsh/site-functions' \$fpath); autoload -U compinit;
    compinit -u -d '$prefix/zcompdump'; print -r -- \${_comps[kspeed]}" 2>&1)
  [ "$bound" = _kspeed ] && echo "ok   zsh binds _kspeed to kspeed" ||
    fail "zsh compinit did not bind _kspeed to kspeed (got '$bound')"
else
  echo "skip zsh is not installed: _kspeed not parsed"
fi
if command -v fish >/dev/null; then
  fish -n "$prefix/share/fish/vendor_completions.d/kspeed.fish" && echo "ok   fish parses kspeed.fish" ||
    fail "fish cannot parse kspeed.fish"
  # complete -C asks fish what it would offer at the end of the line.
  offered=$(fish --no-config -c "source '$prefix/share/fish/vendor_completions.d/kspeed.fish';
    complete -C 'kspeed est'; complete -C 'kspeed estimate --kern'" 2>&1 | cut -f1)
  grep -qx estimate <<<"$offered" && grep -qx -- --kernel-speedup <<<"$offered" &&
    echo "ok   fish completes kspeed est<TAB> and estimate --kern<TAB>" ||
    fail "fish did not offer estimate / --kernel-speedup (got: $(tr '\n' ' ' <<<"$offered"))"
else
  echo "skip fish is not installed: kspeed.fish not parsed"
fi
echo "install: $([ $failures = 0 ] && echo "all good" || echo "$failures failures")"
[ $failures = 0 ]
