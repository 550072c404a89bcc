#!/usr/bin/env python3
"""An independent hand computation over LLMServingSim's per-request vLLM records, for
docs/validation.md section 3: the measured TTFT, TPOT and E2E statistics kspeed's reader
(src/io/serving/llmservingsim.cpp) and distribution_of give, computed with nothing of kspeed's
code, and the plain least-squares decode line (per-token decode time against the mean number of
requests decoding alongside, from the records' own first- and last-token times).

Server side, from the engine's timestamps: TTFT = first_token_ts - queued_ts, TPOT =
(last_token_ts - first_token_ts) / (output_toks - 1) over requests of 2+ tokens, E2E =
last_token_ts - queued_ts. Percentiles by linear interpolation (numpy's default), written out.

Usage: llmservingsim_hand_check.py RUN_FOLDER...   (folders holding requests.jsonl)
"""
import json
import sys


def percentile(values, q):
    x = sorted(values)
    h = (len(x) - 1) * q / 100
    lo = int(h)
    hi = min(lo + 1, len(x) - 1)
    return x[lo] + (h - lo) * (x[hi] - x[lo])


def alongside(intervals):
    """Time-averaged number of open intervals over each interval, itself included."""
    events = sorted({t for a, b in intervals for t in (a, b)})
    segments = []
    for k in range(len(events) - 1):
        t = events[k]
        segments.append((t, events[k + 1], sum(1 for a, b in intervals if a <= t < b)))
    out = []
    for a, b in intervals:
        total = sum(n * (min(e, b) - max(s, a)) for s, e, n in segments if min(e, b) > max(s, a))
        out.append(total / (b - a))
    return out


def main(folders):
    for folder in folders:
        with open(folder + "/requests.jsonl") as f:
            records = [json.loads(line) for line in f if line.strip()]
        ttft = [(r["first_token_ts"] - r["queued_ts"]) * 1e3 for r in records]
        e2e = [(r["last_token_ts"] - r["queued_ts"]) * 1e3 for r in records]
        decoding = [r for r in records if r["output_toks"] >= 2]
        tpot = [(r["last_token_ts"] - r["first_token_ts"]) * 1e3 / (r["output_toks"] - 1)
                for r in decoding]
        print(f"{folder}: {len(records)} requests")
        for name, values in (("ttft", ttft), ("tpot", tpot), ("e2e", e2e)):
            print(f"  {name:4} mean {sum(values) / len(values):11.2f}  p50 "
                  f"{percentile(values, 50):11.2f}  p90 {percentile(values, 90):11.2f}  p99 "
                  f"{percentile(values, 99):11.2f}")
        x = alongside([(r["first_token_ts"], r["last_token_ts"]) for r in decoding])
        mx, my = sum(x) / len(x), sum(tpot) / len(tpot)
        sxx = sum((a - mx) ** 2 for a in x)
        sxy = sum((a - mx) * (b - my) for a, b in zip(x, tpot))
        syy = sum((b - my) ** 2 for b in tpot)
        slope = sxy / sxx
        print(f"  decode line: {my - slope * mx:.2f} ms + {slope:.4f} ms per running sequence "
              f"(R^2 {sxy * sxy / sxx / syy:.2f}, {min(x):.1f} to {max(x):.1f} running)")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
