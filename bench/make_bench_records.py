#!/usr/bin/env python3
"""Inputs for the memory measurements of `kspeed audit` and `kspeed diff` (docs/performance.md).

    make_bench_records.py sglang N OUT RUN.jsonl    N copies of RUN.jsonl's first line (one run)
    make_bench_records.py aiperf N OUT [SCALE]      N AIPerf per-request records, latencies x SCALE

The AIPerf records are synthetic (seeded): TTFT uniform in 20-60 ms, ITL in 3-6 ms, 50-400
output tokens, request latency TTFT + ITL x (tokens - 1), all times SCALE.
"""
import random
import sys


def main():
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rng = random.Random(19)
    with open(out, "w") as f:
        if kind == "sglang":
            with open(sys.argv[4]) as source:
                line = source.readline().rstrip("\n")
            for _ in range(n):
                f.write(line + "\n")
            return
        scale = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
        for i in range(n):
            ttft = rng.uniform(20, 60) * scale
            itl = rng.uniform(3, 6) * scale
            tokens = rng.randint(50, 400)
            f.write(
                '{"metadata": {"timestamp_ns": %d, "credit_phase": "profiling"}, "metrics": '
                '{"input_sequence_length": {"value": %d, "unit": "tokens"}, '
                '"output_sequence_length": {"value": %d, "unit": "tokens"}, '
                '"ttft": {"value": %.3f, "unit": "ms"}, '
                '"inter_token_latency": {"value": %.3f, "unit": "ms"}, '
                '"request_latency": {"value": %.3f, "unit": "ms"}}, "error": null}\n'
                % (1759522419154829652 + i * 1000000, rng.randint(100, 2000), tokens, ttft, itl,
                   ttft + itl * (tokens - 1)))


if __name__ == "__main__":
    main()
