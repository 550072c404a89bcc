#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time over its seed corpus; exits non-zero on the
# first finding (a crash, a sanitizer report, an uncaught exception, a timeout or out-of-memory).
# Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS_PER_TARGET] [extra libFuzzer flags...]
# New inputs that reach new code go to a scratch copy of the corpus, not the repository.
# KSPEED_FUZZ_TARGET=NAME runs that one target only (ctest runs each as its own entry).
set -euo pipefail
build=$1
seconds=${2:-20}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
corpora=("$here"/corpus/*/)
if [ -n "${KSPEED_FUZZ_TARGET:-}" ]; then
  corpora=("$here/corpus/$KSPEED_FUZZ_TARGET/")
  [ -d "${corpora[0]}" ] || { echo "fuzz: no corpus tests/fuzz/corpus/$KSPEED_FUZZ_TARGET"; exit 1; }
fi
for corpus in "${corpora[@]}"; do
  name=$(basename "$corpus")
  binary="$build/tests/fuzz/fuzz_$name"
  [ -x "$binary" ] || { echo "fuzz: $binary is missing (build with -DKSPEED_FUZZ=ON)"; exit 1; }
  cp -r "$corpus" "$scratch/$name"
  echo "== fuzz_$name for ${seconds}s"
  # -rss_limit_mb bounds memory, -timeout one input's time; artifacts (crash-*) go to the
  # current folder so CI can keep them.
  "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 "$@" "$scratch/$name" 2>"$scratch/$name.log" ||
    { tail -n 60 "$scratch/$name.log"; echo "fuzz: fuzz_$name found a problem"; exit 1; }
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$scratch/$name.log" | sed "s/^/  /"
done
