#!/usr/bin/env python3
"""Set kspeed's disaggregated replay against a measured `vllm bench serve` result.

Usage: kspeed mix ... --replay --disagg xPyD --format json | disagg_vs_bench.py RESULT.json

Reads the replay's JSON (stdin) and the benchmark's aggregate result (mean/median/p90/p99 of
ttft_ms, tpot_ms, e2el_ms, as vLLM's benchmarks/serve.py writes them) and prints a Markdown
table: measured, the disaggregated replay's prediction and its error, and the colocated
replay's on the same requests and its error. Error = (predicted - measured) / measured.
Only arithmetic here: every predicted figure is the binary's (docs/validation.md, section 9).
"""
import json
import sys

# (the benchmark's name of the statistic, kspeed's)
POINTS = [("mean", "mean"), ("median", "p50"), ("p90", "p90"), ("p99", "p99")]
METRICS = [("TTFT", "ttft"), ("TPOT", "tpot"), ("E2E", "e2el")]


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    replay = json.load(sys.stdin)
    with open(sys.argv[1], encoding="utf-8") as f:
        measured = json.load(f)
    disagg = replay["disagg"]["before"]
    colocated = replay["replay"]["before"]
    name = replay["disagg"]["shape"]
    print(f"| ms | measured | {name} predicted | error | colocated predicted | error |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, key in METRICS:
        ours = "e2e_ms" if key == "e2el" else f"{key}_ms"
        for point, our_point in POINTS:
            m = measured[f"{point}_{key}_ms"]
            d = disagg[ours][our_point]
            c = colocated[ours][our_point]
            print(f"| {label} {point} | {m:,.2f} | {d:,.2f} | {(d - m) / m:+.0%} | {c:,.2f} | "
                  f"{(c - m) / m:+.0%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
