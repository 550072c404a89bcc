#!/usr/bin/env bash
# Golden CLI tests: each folder under CASES holds
#   cmd     a bash snippet that runs "$KSPEED" (the binary under test); it runs in a scratch
#           copy of the case folder, so fixtures beside it resolve and -o files are thrown away
#   stdout  the expected standard output
#   stderr  the expected standard error
#   exit    the expected exit code
# The environment is pinned (no colour, C.UTF-8, fixed width) so the output is reproducible.
#
# Usage: run.sh KSPEED_BINARY CASES_DIR [--regen] [CASE...]
#   ctest runs one case an entry (golden/NAME), so ctest -j runs them in parallel; run.sh with no
#   CASE runs them all, one after another.
#   --regen (or KSPEED_REGEN=1) rewrites stdout/stderr/exit from the current binary.
set -u
kspeed=$(realpath "$1")
cases_dir=$(realpath "$2")
shift 2
regen=${KSPEED_REGEN:-0}
selected=()
for arg in "$@"; do
  if [ "$arg" = "--regen" ]; then regen=1; else selected+=("$arg"); fi
done
[ ${#selected[@]} -gt 0 ] || mapfile -t selected < <(ls "$cases_dir")

# Cases that read the shared real data (a file named needs-shared-data in the case) find it at
# $KSPEED_SHARED_DATA: the repository's ../shared/data, never copied into the repository. They
# are skipped, with a warning, when it is absent.
shared_data=$(realpath -m "$cases_dir/../../../../shared/data")
# The source tree, for cases that run a script of the repository (the build tree may be anywhere).
source_dir=$(realpath -m "$cases_dir/../../..")
# Cases whose point is a Release binary's memory or time (a file named release-only in the case,
# saying why) are skipped in a sanitizer tree (KSPEED_TEST_SANITIZER=1, set by tests/CMakeLists.txt):
# AddressSanitizer's shadow memory and quarantine make the bound meaningless there, and the GCC
# tree runs them.
sanitizer=${KSPEED_TEST_SANITIZER:-0}
skipped=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
passed=0
failed=0
for name in "${selected[@]}"; do
  case_dir="$cases_dir/$name"
  [ -f "$case_dir/cmd" ] || { echo "golden: $name: no cmd file"; failed=$((failed + 1)); continue; }
  if [ -f "$case_dir/needs-shared-data" ] && [ ! -d "$shared_data" ]; then
    echo "golden: WARN $name skipped: $shared_data is absent"
    skipped=$((skipped + 1))
    continue
  fi
  if [ -f "$case_dir/release-only" ] && [ "$sanitizer" = 1 ]; then
    echo "golden: SKIP $name under the sanitizers: $(head -n 1 "$case_dir/release-only")"
    skipped=$((skipped + 1))
    continue
  fi
  work="$scratch/$name"
  cp -r "$case_dir" "$work"
  (
    cd "$work" || exit 99
    env -i PATH="$PATH" HOME="$scratch" LC_ALL=C.UTF-8 TERM=dumb NO_COLOR=1 COLUMNS=100 \
      KSPEED="$kspeed" KSPEED_SOURCE_DIR="$source_dir" KSPEED_SHARED_DATA="$shared_data" KSPEED_TEST_VMEM_KB="${KSPEED_TEST_VMEM_KB:-2000000}" bash -c "$(cat cmd)" >"$scratch/$name.out" 2>"$scratch/$name.err" </dev/null
    echo $? >"$scratch/$name.exit"
  )
  if [ "$regen" = 1 ]; then
    cp "$scratch/$name.out" "$case_dir/stdout"
    cp "$scratch/$name.err" "$case_dir/stderr"
    cp "$scratch/$name.exit" "$case_dir/exit"
    echo "golden: $name: regenerated"
    passed=$((passed + 1))
    continue
  fi
  ok=1
  for stream in stdout:out stderr:err exit:exit; do
    expected="$case_dir/${stream%%:*}"
    actual="$scratch/$name.${stream##*:}"
    if ! diff -u --label "expected $name/${stream%%:*}" --label "actual" "$expected" "$actual"; then
      ok=0
    fi
  done
  if [ $ok = 1 ]; then
    passed=$((passed + 1))
  else
    echo "golden: FAILED $name (cmd: $(cat "$case_dir/cmd"))"
    failed=$((failed + 1))
  fi
done
echo "golden: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] || exit 1
# Every case selected was skipped: 77, which ctest reports as skipped (SKIP_RETURN_CODE).
[ "$passed" = 0 ] && [ "$skipped" -gt 0 ] && exit 77
exit 0
