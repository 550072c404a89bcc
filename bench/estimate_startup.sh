#!/usr/bin/env bash
# Whole-process timing of `kspeed estimate` against /bin/true in the same hyperfine run: one
# estimate should be dominated by process start (the goal, issue 20: median within 1.5x of
# /bin/true). Give a second binary (an older build) to time it in the same run, so the before and
# after share the machine's state.
# Usage: bench/estimate_startup.sh [path/to/kspeed] [path/to/baseline-kspeed]
#   (needs hyperfine: apt-get install hyperfine; RUNS and WARMUP override 1000 and 50)
set -euo pipefail
kspeed=${1:-build/kspeed}
baseline=${2:-}
out=$(mktemp -d)
commands=(--command-name "/bin/true" "/bin/true")
if [ -n "$baseline" ]; then
  commands+=(--command-name "baseline kspeed estimate" "$baseline estimate --color never")
fi
commands+=(
  --command-name "kspeed estimate" "$kspeed estimate --color never"
  --command-name "kspeed estimate --format json" "$kspeed estimate --format json"
  --command-name "kspeed estimate --ctx 128k --phase both --decode-share 0.2"
  "$kspeed estimate --ctx 128k --phase both --decode-share 0.2 --color never")
hyperfine -N --warmup "${WARMUP:-50}" --runs "${RUNS:-1000}" --export-json "$out/startup.json" \
  "${commands[@]}" >/dev/null
python3 - "$out/startup.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
base = results[0]["median"]
for r in results:
    print(f'{r["command"]:<60} median {r["median"]*1e3:7.3f} ms  {r["median"]/base:5.2f}x /bin/true')
PY
rm -rf "$out"
