#!/usr/bin/env python3
"""An independent hand computation over a Kineto trace, for docs/profile.md: what
`kspeed profile --emit-workload` then `kspeed estimate --workload` should print, computed from
the trace's events with nothing of kspeed's code.

Each kernel goes to the engine step whose `execute_...` CPU annotation encloses its launching
runtime call (same correlation id). Per step: the sum of kernel durations (kernel time), core
attention kernel time (by name), the union of kernel intervals (busy), first start to last end
(wall) and the largest idle stretch (a profiler gap when it alone exceeds the busy time). A
prefill request's TTFT is its share of its step by tokens; TPOT is the decode step. With several
steps, the headline's interval is a percentile bootstrap over steps (1,000 resamples, seed
20260430, std::mt19937_64 written out below, indices from its top 53 bits).

Usage: trace_hand_check.py TRACE [--response N] [--speedup S]
"""
import gzip
import json
import re
import sys

CORE = re.compile(r"fmhaSm100[af]Kernel_.*Context|paged_attention_ll4mi_(QKV_mfma16|reduce)_kernel")
TRACELENS = re.compile(r"^execute_\d+_context_(\d+)\(sq(\d+)sk\d+[^)]*\)_generation_(\d+)\(sq\d+sk(\d+)")
VLLM = re.compile(r"^execute_context_(\d+)\((\d+)[^)]*\)_generation_(\d+)\((\d+)")


class MT19937_64:
    """std::mt19937_64 (its output sequence is fixed by the C++ standard)."""
    def __init__(self, seed):
        self.mt = [0] * 312
        self.mt[0] = seed
        for i in range(1, 312):
            prev = self.mt[i - 1]
            self.mt[i] = (6364136223846793005 * (prev ^ (prev >> 62)) + i) & (2**64 - 1)
        self.index = 312

    def __call__(self):
        if self.index >= 312:
            for i in range(312):
                x = (self.mt[i] & 0xFFFFFFFF80000000) | (self.mt[(i + 1) % 312] & 0x7FFFFFFF)
                xa = x >> 1
                if x & 1:
                    xa ^= 0xB5026F5AA96619E9
                self.mt[i] = self.mt[(i + 156) % 312] ^ xa
            self.index = 0
        y = self.mt[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def steps_of(events):
    steps = []
    for e in events:
        if e.get("cat", "").lower() != "user_annotation" or e.get("ph") != "X":
            continue
        m = TRACELENS.match(e["name"]) or VLLM.match(e["name"])
        if not m:
            continue
        if TRACELENS.match(e["name"]):
            c_req, c_tok, g_req, g_kv = map(int, m.groups())
        else:
            c_req, c_tok, g_req, _ = map(int, m.groups())
            g_kv = 0
        steps.append({"name": e["name"], "tid": (e["pid"], e["tid"]), "ts": float(e["ts"]),
                      "end": float(e["ts"]) + float(e["dur"]), "prefill_requests": c_req,
                      "prefill_tokens": c_tok, "decode_requests": g_req, "decode_kv": g_kv,
                      "kernels": []})
    launches = {}
    for e in events:
        if e.get("cat", "").lower() in ("cuda_runtime", "runtime", "cuda_driver") and "args" in e:
            launches.setdefault(e["args"].get("correlation"), e)
    for e in events:
        if e.get("cat", "").lower() != "kernel" or e.get("ph") != "X":
            continue
        launch = launches.get(e.get("args", {}).get("correlation"))
        if launch is None:
            continue
        t, where = float(launch["ts"]), (launch["pid"], launch["tid"])
        inside = [s for s in steps if s["tid"] == where and s["ts"] <= t <= s["end"]]
        if inside:
            min(inside, key=lambda s: s["end"] - s["ts"])["kernels"].append(e)
    return [s for s in steps if s["kernels"]]


def times(step):
    ks = step["kernels"]
    kernel = sum(float(k["dur"]) for k in ks) / 1000
    core = sum(float(k["dur"]) for k in ks if CORE.search(k["name"])) / 1000
    spans = sorted((float(k["ts"]), float(k["ts"]) + float(k["dur"])) for k in ks)
    busy, gap, end = 0.0, 0.0, None
    for s, e in spans:
        if end is None or s > end:
            if end is not None:
                gap = max(gap, s - end)
            busy += e - s
            end = e
        elif e > end:
            busy += e - end
            end = e
    wall = (end - spans[0][0]) / 1000
    busy, gap = busy / 1000, gap / 1000
    return kernel, core, busy, wall, gap if gap > busy else 0.0


def main():
    path = sys.argv[1]
    response = int(sys.argv[sys.argv.index("--response") + 1]) if "--response" in sys.argv else None
    speedup = float(sys.argv[sys.argv.index("--speedup") + 1]) if "--speedup" in sys.argv else 2.0
    prefill, decode = [], []
    print("step                                                         kernel ms  core ms"
          "   busy ms    wall ms  profiler gap  per-request ms")
    for step in steps_of(load(path)):
        kernel, core, busy, wall, gap = times(step)
        p_req, p_tok, d_req = step["prefill_requests"], step["prefill_tokens"], step["decode_requests"]
        if p_tok > 0 and d_req == 0:
            latency = kernel * (p_tok / p_req) / (p_tok + d_req)
            prefill.append((core, kernel, latency, p_tok // p_req))
        elif d_req > 0 and p_tok == 0:
            latency = kernel
            decode.append((core, kernel, latency, round(step["decode_kv"] / d_req)))
        else:
            latency = float("nan")  # a mixed step: recorded, measures neither here
        print(f"{step['name'][:60]:60} {kernel:9.6f} {core:8.6f} {busy:9.6f} {wall:10.6f}"
              f" {gap:13.6f} {latency:15.9f}")
    chain = {}
    for name, group in (("prefill", prefill), ("decode", decode)):
        if group:
            share = sum(g[0] for g in group) / sum(g[1] for g in group)
            latency = sum(g[2] for g in group) / len(group)
            print(f"{name}: {len(group)} steps at {group[0][3]} tokens, core share of kernel time "
                  f"{share:.6%}, {'TTFT' if name == 'prefill' else 'TPOT'} {latency:.9f} ms")
            chain[name] = (share, latency)
    if not (prefill and decode and response):
        return
    def speedup_of(ps, ttft, ds, tpot):
        before = ttft + (response - 1) * tpot
        after = ttft * (1 - ps + ps / speedup) + (response - 1) * tpot * (1 - ds + ds / speedup)
        return before / after
    point = speedup_of(chain["prefill"][0], chain["prefill"][1], chain["decode"][0], chain["decode"][1])
    g = MT19937_64(20260430)
    pick = lambda n: min(n - 1, int((g() >> 11) / 9007199254740992.0 * n))
    resampled = []
    for _ in range(1000):
        stats = []
        for group, (share, latency) in ((prefill, chain["prefill"]), (decode, chain["decode"])):
            picks = [group[pick(len(group))] for _ in group]
            s = sum(p[0] for p in picks) / sum(p[1] for p in picks)
            lat = sum(p[2] for p in picks) / len(picks)
            stats.append((s, lat))
        resampled.append(speedup_of(*stats[0], *stats[1]))
    resampled.sort()
    def percentile(q):
        h = (len(resampled) - 1) * q
        lo = int(h)
        return resampled[lo] + (h - lo) * (resampled[min(lo + 1, len(resampled) - 1)] - resampled[lo])
    print(f"request speedup with a {speedup:g}x kernel on both phases, response {response}: "
          f"{point:.6f}x, 95% interval {percentile(0.025):.6f}x - {percentile(0.975):.6f}x")


if __name__ == "__main__":
    main()
