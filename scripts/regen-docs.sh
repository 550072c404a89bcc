#!/usr/bin/env bash
# Regenerates the example output in README.md and docs/*.md from the real binary, so the docs
# cannot go stale. A block looks like:
#
#   <!-- regen: kspeed estimate --ctx 128k -->
#   ```text
#   ...whatever the command prints...
#   ```
#   <!-- /regen -->
#
# The command runs from the repository root with `kspeed` meaning the binary under test, a pinned
# environment (no colour), and its stdout (and stderr, when it exits non-zero) becomes the block.
# The fence language follows --format (json, csv, markdown) and is text otherwise.
#
# A command over a real data file that is not in the repository (public traces, exports) reads
# it through $KSPEED_DATA: `<!-- regen: cd "$KSPEED_DATA/ncu" && kspeed roofline --ncu x.csv -->`.
# KSPEED_DATA defaults to the data directory beside the repository (../shared/data); without it
# such a block is left as it is and named, and --check does not count it stale.
#
# No output is hand-copied: --check also fails on an output fence (```text, json, csv or
# markdown) outside a regen block in README.md or docs/, except where the line before the fence
# is `<!-- not output: WHY -->` (a file format's sketch, an input file, a schema).
#
# Usage: scripts/regen-docs.sh [path/to/kspeed] [--check]
#   --check rewrites nothing and exits 1 when a block differs from what the binary prints now.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kspeed=$(realpath "${1:-$root/build/kspeed}")
check=0
[ "${2:-}" = "--check" ] && check=1
shopt -s nullglob
stale=0
data=${KSPEED_DATA:-$root/../shared/data}
[ -d "$data" ] && data=$(realpath "$data") || data=""

# stdin is /dev/null: a command must not read the Markdown file being regenerated (script(1)
# forwards its stdin to the command it runs)
run_pinned() {  # $1: the command line, with `kspeed` meaning the binary under test
  cd "$root" && env -i PATH="$(dirname "$kspeed"):$PATH" HOME=/tmp LC_ALL=C.UTF-8 \
    NO_COLOR=1 TERM=dumb KSPEED_DATA="$data" bash -c "${1//kspeed /\"$kspeed\" }" </dev/null
}

# Output fences outside regen blocks, as "file:line" (hand-copied output).
hand_copied() {  # $1: a Markdown file
  awk -v file="${1#"$root"/}" '
    /^<!-- regen: / { inside = 1 }
    /^<!-- \/regen -->/ { inside = 0 }
    /^```(text|json|csv|markdown)$/ && !inside && previous !~ /^<!-- not output: / {
      print file ":" NR
    }
    { if ($0 !~ /^[[:space:]]*$/) previous = $0 }
  ' "$1"
}

render_block() {  # $1: the command line after "regen:"
  local command=$1 fence=text output status
  case "$command" in
    *"--format json"*|*"-f json"*) fence=json ;;
    *"--format csv"*) fence=csv ;;
    *"--format markdown"*) fence=markdown ;;
  esac
  set +e
  # stdout only: warnings also go to stderr for json/csv/jsonl, which would interleave with it
  output=$(run_pinned "$command" 2>/dev/null)
  status=$?
  # a failing command's error message is the example
  [ $status -eq 0 ] || output=$(run_pinned "$command" 2>&1)
  set -e
  printf '```%s\n%s\n```\n' "$fence" "$output"
  [ $status -eq 0 ] || printf '(exit code %d)\n' "$status"
}

regen_file() {  # $1: a Markdown file; prints the regenerated text
  local line inside=0
  while IFS= read -r line || [ -n "$line" ]; do
    if [[ $inside = 1 ]]; then
      [[ $line == "<!-- /regen -->" ]] && { inside=0; printf '%s\n' "$line"; }
      continue
    fi
    printf '%s\n' "$line"
    if [[ $line =~ ^\<!--\ regen:\ (.*)\ --\>$ ]]; then
      if [[ ${BASH_REMATCH[1]} == *KSPEED_DATA* && -z $data ]]; then
        echo "skipped (no data directory; set KSPEED_DATA): ${BASH_REMATCH[1]}" >&2
        continue  # keep the block as it is: its lines are printed as they come
      fi
      render_block "${BASH_REMATCH[1]}"
      inside=1
    fi
  done <"$1"
}

for file in "$root"/README.md "$root"/docs/*.md; do
  copied=$(hand_copied "$file")
  if [ -n "$copied" ]; then
    echo "hand-copied output (make it a regen block, or mark it <!-- not output: why -->):"
    echo "$copied"
    stale=1
  fi
  grep -q '^<!-- regen: ' "$file" || continue
  fresh=$(mktemp)
  regen_file "$file" >"$fresh"
  if ! cmp -s "$fresh" "$file"; then
    if [ $check = 1 ]; then
      echo "stale example output in ${file#"$root"/} (run scripts/regen-docs.sh):"
      diff -u "$file" "$fresh" | head -40 || true
      stale=1
    else
      cp "$fresh" "$file"
      echo "regenerated ${file#"$root"/}"
    fi
  fi
  rm -f "$fresh"
done
[ $stale = 0 ] && [ $check = 1 ] && echo "docs: every example block matches the binary"
[ $check = 1 ] || stale=0  # regenerating succeeded; hand-copied blocks were named above
exit $stale
