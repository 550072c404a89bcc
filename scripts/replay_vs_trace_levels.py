#!/usr/bin/env python3
"""Measured against replayed, level by level, for per-request trace-replay CSVs.

Reads `kspeed mix LOG --replay --format json` documents (concatenated on stdin, one per level,
in the order of the CSV paths given as arguments) and each level's InferenceX trace-replay CSV
(detailed_results.csv: `ttft`, `itl` in seconds, `success`), and prints a Markdown table: the
measured mean ITL a request (the mean of the `itl` column over successful requests) and median
TTFT against the replay's TPOT mean and TTFT p50, with error = (replayed - measured) / measured.
Arithmetic only: every replayed figure is the binary's.

Usage: for f in A.csv B.csv; do kspeed mix "$f" --replay ... --format json; done |
       python3 scripts/replay_vs_trace_levels.py A.csv B.csv
"""
import csv
import json
import statistics
import sys


def documents(text):
    decoder = json.JSONDecoder()
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return
        doc, at = decoder.raw_decode(text, at)
        yield doc


def measured(path):
    csv.field_size_limit(1 << 30)
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("success", "True") == "True"]
    itl = statistics.mean(float(r["itl"]) * 1000 for r in rows)
    ttft = statistics.median(float(r["ttft"]) * 1000 for r in rows)
    return len(rows), itl, ttft


def error(predicted, actual):
    return f"{100 * (predicted - actual) / actual:+.1f}%"


def main():
    paths = sys.argv[1:]
    docs = list(documents(sys.stdin.read()))
    if len(docs) != len(paths):
        sys.exit(f"{len(docs)} kspeed mix documents on stdin for {len(paths)} CSV files")
    print("| log | requests | ITL mean measured | TPOT mean replayed | error "
          "| TTFT p50 measured | TTFT p50 replayed | error |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path, doc in zip(paths, docs):
        count, itl, ttft = measured(path)
        before = doc["replay"]["before"]
        tpot = before["tpot_ms"]["mean"]
        ttft_replayed = before["ttft_ms"]["p50"]
        name = path.rsplit("/", 1)[-1]
        print(f"| {name} | {count} | {itl:.2f} ms | {tpot:.2f} ms | {error(tpot, itl)} "
              f"| {ttft:,.0f} ms | {ttft_replayed:,.0f} ms | {error(ttft_replayed, ttft)} |")


if __name__ == "__main__":
    main()
