#!/usr/bin/env bash
# Renders every sample chart to PNG with rsvg-convert, as a browser would draw it, and checks
# that each PNG is a real, non-trivial image of the size the SVG declares. Skips (exit 77, which
# ctest reports as skipped) when rsvg-convert is not installed.
#
# Usage: render_check.sh KSPEED_CHART_SAMPLES OUTPUT_DIR
set -euo pipefail
samples=$1
out=$2
if ! command -v rsvg-convert >/dev/null 2>&1; then
  echo "chart_render: SKIPPED: rsvg-convert not found (Debian/Ubuntu: apt-get install librsvg2-bin)"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
"$samples" "$out" >/dev/null

# The big-endian 32-bit number at byte offset $2 of file $1.
be32() { od -An -tu1 -j"$2" -N4 "$1" | awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }'; }

failed=0
count=0
for svg in "$out"/*.svg; do
  count=$((count + 1))
  name=$(basename "$svg" .svg)
  png="$out/$name.png"
  if ! rsvg-convert -o "$png" "$svg" 2>"$out/$name.err"; then
    echo "chart_render: $name: rsvg-convert failed: $(cat "$out/$name.err")"
    failed=1
    continue
  fi
  # The size the SVG declares on its root element.
  want_w=$(grep -o '<svg [^>]*' "$svg" | grep -o ' width="[0-9.]*"' | grep -o '[0-9.]*' | cut -d. -f1)
  want_h=$(grep -o '<svg [^>]*' "$svg" | grep -o ' height="[0-9.]*"' | grep -o '[0-9.]*' | cut -d. -f1)
  # A PNG starts with its 8-byte signature, then the IHDR chunk: width at byte 16, height at 20.
  signature=$(od -An -tx1 -N8 "$png" | tr -d ' \n')
  got_w=$(be32 "$png" 16)
  got_h=$(be32 "$png" 20)
  bytes=$(wc -c <"$png")
  if [ "$signature" != "89504e470d0a1a0a" ]; then
    echo "chart_render: $name: not a PNG (signature $signature)"
    failed=1
  elif [ "$got_w" != "$want_w" ] || [ "$got_h" != "$want_h" ]; then
    echo "chart_render: $name: PNG is ${got_w}x${got_h}, the SVG declares ${want_w}x${want_h}"
    failed=1
  elif [ "$bytes" -lt 10000 ]; then
    # A blank 800x480 PNG compresses to well under 10 kB; a drawn chart with text is larger.
    echo "chart_render: $name: PNG has only $bytes bytes: nothing drawn?"
    failed=1
  else
    echo "chart_render: $name: ${got_w}x${got_h} PNG, $bytes bytes"
  fi
done
[ "$count" -gt 0 ] || { echo "chart_render: no SVG written to $out"; exit 1; }
exit $failed
