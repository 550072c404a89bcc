#!/usr/bin/env bash
# `kspeed sweep` at 100,000 points (1,000 contexts from 1K to 1M × 100 kernel speedups from
# 1.00 to 3.97, as bench_sweep.cpp) in each format for
# programs, whole command (process start, engine, output), with hyperfine. Pass a second binary
# to compare two builds in the same run (docs/performance.md, "sweep").
# Usage: bench/sweep_output.sh KSPEED [OTHER_KSPEED]
set -euo pipefail
binaries=("$@")
[ ${#binaries[@]} -ge 1 ] || { echo "usage: $0 KSPEED [OTHER_KSPEED]" >&2; exit 2; }
speedups=$(seq -s, 1 0.03 3.98)  # 100 values
commands=()
for format in json jsonl csv; do
  for kspeed in "${binaries[@]}"; do
    commands+=("$kspeed sweep --ctx 1k..1m --points 1000 --kernel-speedup $speedups --format $format -o /dev/null")
  done
done
hyperfine -N -w 2 -r 10 "${commands[@]}"
