#!/usr/bin/env bash
# kspeed profile against the physical limits, measured in the same run (issue 4):
#   gzip:          kspeed profile FILE.gz   vs  zcat FILE.gz > /dev/null      (goal: within 2x)
#   uncompressed:  kspeed profile FILE      vs  python3 json.load(open(FILE)) (goal: >= 10x faster)
# The trace (>= 1 GB uncompressed) is built under /tmp by replicating a real trace's events,
# shifted in time and with fresh correlation ids per copy; it is never committed.
#
# Usage: bench/profile_vs_limits.sh KSPEED_BINARY [SOURCE_TRACE.json.gz] [TARGET_MB]
set -euo pipefail
kspeed=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
source_trace=${2:-$here/../../shared/data/traces/vllm-b200-gptoss-prefill.trace.json.gz}
target_mb=${3:-1100}
work=${KSPEED_BENCH_DIR:-/tmp/kspeed-bench}
mkdir -p "$work"
big="$work/replicated-${target_mb}mb.trace.json"

if [ ! -f "$big.gz" ]; then
  echo "building $big (~${target_mb} MB) from $(basename "$source_trace")" >&2
  python3 - "$source_trace" "$big" "$target_mb" <<'PY'
import gzip, json, sys
source, out_path, target_mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
doc = json.load(gzip.open(source) if source.endswith(".gz") else open(source))
events = doc["traceEvents"]
meta = {k: v for k, v in doc.items() if k != "traceEvents"}
stamps = [e["ts"] + e.get("dur", 0) for e in events if "ts" in e]
span = (max(stamps) - min(e["ts"] for e in events if "ts" in e)) + 1000.0
ids = [e.get("args", {}).get("correlation", 0) for e in events] + [e.get("id", 0) for e in events if isinstance(e.get("id"), int)]
id_step = max(ids) + 1
with open(out_path, "w") as out:
    head = json.dumps(meta, indent=1)
    out.write(head[:-2] + ',\n "traceEvents": [\n')
    written, copy, first = 0, 0, True
    while written < target_mb * 1_000_000:
        parts = []
        for e in events:
            e = dict(e)
            if "ts" in e:
                e["ts"] = round(e["ts"] + copy * span, 3)
            if isinstance(e.get("id"), int):
                e["id"] += copy * id_step
            if "args" in e and "correlation" in e["args"]:
                e["args"] = dict(e["args"], correlation=e["args"]["correlation"] + copy * id_step)
            parts.append(json.dumps(e))
        text = ("" if first else ",\n") + ",\n".join(parts)
        first = False
        out.write(text)
        written += len(text)
        copy += 1
    out.write("\n]}\n")
print(f"{copy} copies of {len(events)} events", file=sys.stderr)
PY
  gzip -k -6 "$big"
fi

ls -l "$big" "$big.gz" >&2
echo "--- gzip: kspeed profile vs zcat" >&2
hyperfine --warmup 1 --runs ${RUNS:-5} --export-json "$work/gzip.json" \
  "zcat '$big.gz' > /dev/null" \
  "'$kspeed' profile '$big.gz' > /dev/null"
echo "--- uncompressed: kspeed profile vs python3 json.load" >&2
hyperfine --warmup 1 --runs ${RUNS:-3} --export-json "$work/plain.json" \
  "python3 -c \"import json; json.load(open('$big'))\"" \
  "'$kspeed' profile '$big' > /dev/null"
echo "--- peak memory (max RSS, kB)" >&2
for f in "$big.gz" "$big"; do
  /usr/bin/time -f "%M kB max RSS: kspeed profile $(basename "$f")" "$kspeed" profile "$f" > /dev/null
done
python3 - "$work" "$big" <<'PY'
import json, os, sys
work, big = sys.argv[1], sys.argv[2]
size_mb = os.path.getsize(big) / 1e6
def means(name):
    return [r["mean"] for r in json.load(open(os.path.join(work, name)))["results"]]
zcat, kz = means("gzip.json")
python, kp = means("plain.json")
print(f"uncompressed size: {size_mb:.0f} MB; gzip size: {os.path.getsize(big + '.gz') / 1e6:.0f} MB")
print(f"gzip:  kspeed {kz:.2f} s ({size_mb / kz:.0f} MB/s), zcat {zcat:.2f} s -> kspeed/zcat = {kz / zcat:.2f}x (goal <= 2)")
print(f"plain: kspeed {kp:.2f} s ({size_mb / kp:.0f} MB/s), python json.load {python:.2f} s -> python/kspeed = {python / kp:.1f}x (goal >= 10)")
PY
