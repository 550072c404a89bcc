#!/usr/bin/env python3
"""Builds a dense Kineto trace for the memory benchmark (issue 9): the events of a real trace
replicated until the copy holds at least KERNELS kernel executions, each copy shifted in time
past the previous one and given fresh correlation and flow ids, so every copy is one more step
launched and attributed like the original. Writes OUT (plain JSON) and OUT.gz; never commit them.

Usage: bench/make_dense_trace.py SOURCE.trace.json[.gz] OUT.trace.json [KERNELS=1000000]
"""
import gzip
import json
import subprocess
import sys

source, out_path = sys.argv[1], sys.argv[2]
want_kernels = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
doc = json.load(gzip.open(source) if source.endswith(".gz") else open(source))
events = doc["traceEvents"]
meta = {k: v for k, v in doc.items() if k != "traceEvents"}
kernels_per_copy = sum(1 for e in events if str(e.get("cat", "")).lower() == "kernel")
copies = -(-want_kernels // kernels_per_copy)
stamps = [e["ts"] for e in events if "ts" in e]
ends = [e["ts"] + e.get("dur", 0) for e in events if "ts" in e]
span = max(ends) - min(stamps) + 1000.0  # a 1 ms idle gap between copies
ids = [e.get("args", {}).get("correlation", 0) for e in events]
ids += [e["id"] for e in events if isinstance(e.get("id"), int)]
id_step = max(ids) + 1
with open(out_path, "w") as out:
    head = json.dumps(meta, indent=1)
    out.write(head[:-2] + ',\n "traceEvents": [\n')
    for copy in range(copies):
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
        out.write(("" if copy == 0 else ",\n") + ",\n".join(parts))
    out.write("\n]}\n")
print(f"{copies} copies of {len(events)} events: {copies * kernels_per_copy} kernels",
      file=sys.stderr)
subprocess.run(["gzip", "-k", "-f", "-6", out_path], check=True)
