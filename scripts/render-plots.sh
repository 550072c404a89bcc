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
# A batch question's chart: the request's speedup against the batch (x = batch), one colour per
# kernel speedup; and the same sweep over context with one line pair per batch.
"$kspeed" sweep --model llama-3.1-70b --gpu h100-sxm --batch 1,2,4,8,16,32,64,128,256 --ctx 32k \
  --kernel-speedup 1.5,2,4 --plot "$tmp/sweep-batch.svg" >/dev/null 2>&1
"$kspeed" sweep --model llama-3.1-70b --gpu h100-sxm --batch 1,16,256 --ctx 1k..1m --points 12 \
  --kernel-speedup 2 --plot "$tmp/sweep-batch-context.svg" >/dev/null 2>&1
"$kspeed" estimate --ctx 128k --kernel-speedup 2 --plot "$tmp/estimate.svg" >/dev/null 2>&1
"$kspeed" roofline --model llama-3.1-70b --gpu h100-sxm --batch 32 --ctx 8k --bytes-reduction 2 \
  --plot "$tmp/roofline.svg" >/dev/null
# DeepSeek-R1's MLA decode, the illustrative levers: the compute lever rises past the peak
"$kspeed" roofline --model deepseek-r1 --gpu h200-sxm --batch 64 --ctx 32k \
  --plot "$tmp/roofline-mla.svg" >/dev/null
# From the repository root, so the plot's subtitle names the log as the README does.
# The same run as the README's mix example (its regen command), so the plot shows what it prints.
(cd "$root" && "$(realpath "$kspeed")" mix tests/fixtures/mix/azure-sample.csv --replay \
  --step-model fixed_ms=2,weights_ms=4.8,ms_per_token=0.023,ms_per_prefill_pair=7.5e-7,ms_per_kv_token=3.9e-5 \
  --slo-ttft 1s --slo-tpot 30ms --plot "$tmp/mix.svg" >/dev/null 2>&1)
names="sweep sweep-kernels sweep-batch sweep-batch-context estimate roofline roofline-mla mix"
for name in $names; do
  cp "$tmp/$name.svg" "$out/$name.svg"
  rsvg-convert -o "$out/$name.png" "$tmp/$name.svg"
done
echo "render-plots: wrote docs/img/{${names// /,}}.{svg,png}"
