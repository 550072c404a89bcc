#!/usr/bin/env bash
# Whole-process timing of `kspeed estimate` against /bin/true in the same hyperfine run: one
# estimate should be dominated by process start (the bar: median within 3x of /bin/true).
# Usage: bench/estimate_startup.sh [path/to/kspeed]   (needs hyperfine: apt-get install hyperfine)
set -euo pipefail
kspeed=${1:-build/kspeed}
out=$(mktemp -d)
hyperfine --warmup 20 --runs 300 -N --export-json "$out/startup.json" \
  --command-name "/bin/true" "/bin/true" \
  --command-name "kspeed estimate" "$kspeed estimate --color never" \
  --command-name "kspeed estimate --format json" "$kspeed estimate --format json" \
  --command-name "kspeed estimate --ctx 128k --phase both --decode-share 0.2" \
  "$kspeed estimate --ctx 128k --phase both --decode-share 0.2 --color never"
python3 - "$out/startup.json" <<'PY' 2>/dev/null || true
import json, sys
results = json.load(open(sys.argv[1]))["results"]
base = results[0]["median"]
for r in results:
    print(f'{r["command"]:<60} median {r["median"]*1e3:7.3f} ms  {r["median"]/base:5.2f}x /bin/true')
PY
