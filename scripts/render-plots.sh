#!/usr/bin/env bash
# Renders the README's example plots: each command writes its SVG with --plot, rsvg-convert
# (Debian: librsvg2-bin) turns it into the PNG docs/img/ holds and the README shows.
# Usage: scripts/render-plots.sh [path/to/kspeed]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kspeed=${1:-$root/build/kspeed}
out=$root/docs/img
mkdir -p "$out"
command -v rsvg-convert >/dev/null || { echo "render-plots: rsvg-convert is missing (apt-get install librsvg2-bin)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$kspeed" sweep --ctx 1k..1m --points 24 --kernel-speedup 2 --plot "$tmp/sweep.svg" >/dev/null
"$kspeed" sweep --ctx 1k..1m --points 24 --kernel-speedup 1.25,1.5,2,4 --plot "$tmp/sweep-kernels.svg" >/dev/null
"$kspeed" estimate --ctx 128k --kernel-speedup 2 --plot "$tmp/estimate.svg" >/dev/null 2>&1
"$kspeed" roofline --model llama-3.1-70b --gpu h100-sxm --batch 32 --ctx 8k --bytes-reduction 2 \
  --plot "$tmp/roofline.svg" >/dev/null
# From the repository root, so the plot's subtitle names the log as the README does.
# The same run as the README's mix example (its regen command), so the plot shows what it prints.
(cd "$root" && "$(realpath "$kspeed")" mix tests/fixtures/mix/azure-sample.csv --replay \
  --step-model fixed_ms=2,weights_ms=4.8,ms_per_token=0.023,ms_per_prefill_pair=7.5e-7,ms_per_kv_token=3.9e-5 \
  --slo-ttft 1s --slo-tpot 30ms --plot "$tmp/mix.svg" >/dev/null 2>&1)
for name in sweep sweep-kernels estimate roofline mix; do
  cp "$tmp/$name.svg" "$out/$name.svg"
  rsvg-convert -o "$out/$name.png" "$tmp/$name.svg"
done
echo "render-plots: wrote docs/img/{sweep,sweep-kernels,estimate,roofline,mix}.{svg,png}"
