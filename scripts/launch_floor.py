#!/usr/bin/env python3
"""The per-layer launch floor's constants, measured from two public Kineto traces.

An engine step runs, per transformer layer, a handful of kernels whose work is tiny at small
batches (norms, RoPE, the activation, the KV-cache write, MoE routing and quantisation) and which
kspeed's roofline does not price: the GEMMs (weights, FLOPs), the attention kernels (KV bytes,
causal pairs) and the collectives are priced, these are not. Each still costs a whole kernel.
This script counts them per layer and finds the shortest kernel that runs once per layer, from
the two public traces of AMD-AGI/TraceLens @ 171dd747 (MIT), `tests/traces/`:

  inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz  SGLang, Qwen3-8B (36 dense layers),
      MI300X, one decode step at batch 32 in HIP-graph replay
  b200/eager_trace.json.gz  vLLM V1, gpt-oss (36 MoE layers), B200, TP 8 rank 0, one prefill
      step of 888 tokens, eager

Usage: scripts/launch_floor.py DECODE_TRACE MOE_TRACE
Prints, per trace, the unpriced kernels of one layer with their median and shortest duration,
their count per layer and the shortest duration of any kernel that runs once per layer.
"""
import collections
import gzip
import json
import re
import sys

# Kernels kspeed prices (step_model.hpp): GEMMs (dense and expert), core attention and its
# split-KV combine, and collectives. Everything else in a layer is unpriced: norms, RoPE, the
# activation, the KV-cache write (reshape_and_cache, store_kvcache: not core attention),
# quantisation, MoE routing and finalize. Matched on the kernel's own name, before its argument
# list: a bare "flash" there names FlashInfer's layout types, not attention.
PRICED = re.compile(
    r"Cijk_|nvjet|gemm|bmm_|paged_attention|fmha|flash_fwd|FlashAttn|all_reduce|allreduce|nccl",
    re.I)


def own_name(name):
    return name.split("(", 1)[0]


def kernels(path):
    with gzip.open(path) as handle:
        data = json.load(handle)
    events = data["traceEvents"] if isinstance(data, dict) else data
    return [e for e in events if str(e.get("cat", "")).lower() == "kernel"]


def per_layer(path, layers):
    by_name = collections.defaultdict(list)
    for event in kernels(path):
        by_name[event["name"]].append(float(event["dur"]))
    # A layer's kernels run `layers` times (or a multiple) in one step.
    layer_kernels = {n: d for n, d in by_name.items() if len(d) % layers == 0}
    unpriced = {n: d for n, d in layer_kernels.items() if not PRICED.search(own_name(n))}
    print(path)
    for name, durs in sorted(unpriced.items(), key=lambda item: -len(item[1])):
        durs.sort()
        print(f"  {len(durs) // layers} per layer  median {durs[len(durs) // 2]:7.2f} us"
              f"  min {durs[0]:6.2f} us  {name[:70]}")
    count = sum(len(d) for d in unpriced.values()) / layers
    shortest = min(min(d) for d in layer_kernels.values())
    per_layer_us = sum(sum(d) for d in unpriced.values()) / layers
    print(f"  unpriced kernels per layer: {count:g}; their time per layer {per_layer_us:.1f} us")
    print(f"  shortest kernel that runs once per layer: {shortest:.2f} us")
    return count, shortest


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    per_layer(sys.argv[1], 36)
    per_layer(sys.argv[2], 36)
