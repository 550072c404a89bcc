#!/usr/bin/env python3
"""An independent check of kspeed's per-replica prefix caches (issue 26), in plain Python.

Usage: check_hit_rate.py LOG.jsonl CACHE_TOKENS REPLICAS ROUTING REPORT.json PER_REQUEST.jsonl

Each replica keeps its own LRU of CACHE_TOKENS // 512 blocks over the log's hash_ids; a request
placed on a replica finds there the leading run of its blocks (c = min(hits * 512, prompt - 1)),
then inserts or refreshes all its blocks, first to last, evicting the least recently used. The
requests are placed in arrival order (the log's timestamps, ties in log order).

round-robin: request i (in arrival order) to replica i mod REPLICAS; the hit rate is computed
here from the log alone. prefix-aware: the replica each request ran on (the after side) comes
from kspeed's --per-request output; the hit rate is recomputed from those placements, and each
placement is counted as by cache (a replica holding the most of its blocks, at least 30% of them)
or by load (the best match below 30%, or the loads imbalanced, which this cannot see). Either way
the hit rate must equal the report's after-side prefix_cache_hit_rate.
"""
import json
import sys
from collections import OrderedDict

BLOCK = 512


class Lru:
    def __init__(self, capacity_tokens):
        self.capacity = max(1, capacity_tokens // BLOCK)
        self.blocks = OrderedDict()  # last: most recently used

    def hits(self, ids):
        n = 0
        while n < len(ids) and ids[n] in self.blocks:
            n += 1
        return n

    def admit(self, ids, prompt):
        cached = min(self.hits(ids) * BLOCK, prompt - 1)
        for block in ids:
            if block in self.blocks:
                self.blocks.move_to_end(block)
            else:
                self.blocks[block] = True
                if len(self.blocks) > self.capacity:
                    self.blocks.popitem(last=False)
        return cached


def main():
    log_path, capacity, replicas, routing, report_path, per_request_path = sys.argv[1:7]
    capacity, replicas = int(capacity), int(replicas)
    log = [json.loads(line) for line in open(log_path) if line.strip()]
    order = sorted(range(len(log)), key=lambda i: log[i]["timestamp"])  # stable: ties in log order
    if routing == "round-robin":
        placed = {i: k % replicas for k, i in enumerate(order)}
    else:
        lines = [json.loads(line) for line in open(per_request_path) if line.strip()]
        placed = {i: lines[i]["replica"] for i in range(len(log))}
    caches = [Lru(capacity) for _ in range(replicas)]
    cached_sum = prompt_sum = 0
    by_cache = by_load = 0
    for i in order:
        ids, prompt = log[i]["hash_ids"], log[i]["input_length"]
        r = placed[i]
        if routing == "prefix-aware":
            best = max(cache.hits(ids) for cache in caches)
            if best >= 0.3 * len(ids) and caches[r].hits(ids) == best:
                by_cache += 1
            else:
                by_load += 1
        cached_sum += caches[r].admit(ids, prompt)
        prompt_sum += prompt
    rate = cached_sum / prompt_sum
    report = json.load(open(report_path))
    reported = report["replay"]["after"]["prefix_cache_hit_rate"]
    verdict = "agree" if abs(rate - reported) < 1e-12 else "DISAGREE"
    placed_by = f" ({by_cache} placed by cache, {by_load} by load)" if routing == "prefix-aware" else ""
    print(f"{routing}: {cached_sum} of {prompt_sum} prompt tokens cached, hit rate "
          f"{100 * rate:.2f}% (python) vs {100 * reported:.2f}% (kspeed): {verdict}{placed_by}")
    sys.exit(0 if verdict == "agree" else 1)


main()
