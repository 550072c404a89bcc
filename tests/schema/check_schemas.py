#!/usr/bin/env python3
"""Validates kspeed's JSON and NDJSON output against the schemas in docs/schema/.

Runs each command below on the repository's fixtures and built-in data, validates every JSON
document and every NDJSON line against its schema (JSON Schema draft 2020-12, with Debian's
python3-jsonschema), then proves the check can fail: a field renamed in a real output must be
rejected. Exit 0: all valid; 1: a document does not match (or a renamed field was accepted);
77: python3-jsonschema is missing (ctest reports the test as skipped).

Usage: check_schemas.py KSPEED_BINARY SOURCE_DIR
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("SKIP: the Python module jsonschema is not installed "
          "(Debian: apt-get install python3-jsonschema; pip: pip install jsonschema)")
    sys.exit(77)

GOLDEN = "tests/golden/cases"
# A Llama-3.1-8B-on-H100-like step model for the replay runs (docs/mix.md).
STEP_MODEL = "fixed_ms=2,weights_ms=4.8,ms_per_token=0.023,ms_per_prefill_pair=7.5e-7,ms_per_kv_token=3.9e-5"
FIXTURES = "tests/fixtures"

# (schema, json or jsonl, fixtures to copy into the scratch folder, arguments). Exit codes 0
# and 1 (a gate not met) both produce a document.
CASES = [
    ("estimate", "json", [], ["estimate", "--ctx", "4k"]),
    ("estimate", "json", [], ["estimate", "--ctx", "128k", "--phase", "both", "--decode-share",
                              "0.2", "--min-request-speedup", "1.5"]),
    ("estimate", "json", [], ["estimate", "--ctx", "2m"]),
    ("estimate", "json", [], ["estimate", "--decode-share", "0.196", "--model", "llama-3.1-70b",
                              "--gpu", "h100-sxm", "--tp", "8", "--bytes-reduction", "2",
                              "--phase", "decode"]),
    ("estimate", "json", [], ["estimate", "--model", "llama-3.1-70b", "--gpu", "h100-sxm",
                              "--tp", "8", "--compute-speedup", "2", "--phase", "both",
                              "--batch", "512"]),
    ("estimate", "json", [f"{FIXTURES}/ncu/details-flash-fwd.csv"],
     ["estimate", "--ncu", "details-flash-fwd.csv", "--gpu", "h100-sxm", "--bytes-reduction",
      "2", "--ctx", "8k"]),
    # a workload kspeed profile emitted from a multi-step trace: the headline has an interval
    ("estimate", "json", [f"{FIXTURES}/profile/batched-workload.json"],
     ["estimate", "--workload", "batched-workload.json", "--phase", "both"]),
    ("estimate", "json", [f"{GOLDEN}/estimate-workload-platform/w.json"],
     ["estimate", "--workload", "w.json", "--kernel-speedup", "1.5", "--phase", "both"]),
    # MoE (expert union), speculative decoding, a Hugging Face config.json model, the fitted
    # TTFT level, a given TTFT overhead
    ("estimate", "json", [], ["estimate", "--model", "gpt-oss-120b", "--gpu", "b200", "--batch",
                              "64", "--ctx", "8k", "--phase", "both"]),
    ("estimate", "json", [], ["estimate", "--model", "gpt-oss-120b", "--gpu", "b200", "--batch",
                              "64", "--ctx", "8k", "--phase", "both", "--spec-tokens", "2",
                              "--spec-accept", "1.7"]),
    ("estimate", "json", [f"{GOLDEN}/estimate-hf-config/Qwen3-8B/"],
     ["estimate", "--model", "Qwen3-8B/config.json", "--gpu", "h100-sxm", "--batch", "8",
      "--phase", "both"]),
    ("estimate", "json", [], ["estimate", "--ctx", "128k"]),
    ("estimate", "json", [], ["estimate", "--ttft", "18.6s", "--ttft-overhead", "3.38s",
                              "--share", "0.85", "--kernel-speedup", "1.35"]),
    ("estimate-record", "jsonl", [], ["estimate", "--ctx", "4k"]),
    ("estimate-record", "jsonl", [], ["estimate", "--ctx", "128k"]),
    ("estimate-record", "jsonl", [f"{FIXTURES}/profile/batched-workload.json"],
     ["estimate", "--workload", "batched-workload.json", "--phase", "both"]),
    ("estimate-record", "jsonl", [], ["estimate", "--ttft", "18.6s", "--ttft-overhead", "3.38s",
                                      "--share", "0.85", "--kernel-speedup", "1.35"]),
    ("estimate-record", "jsonl", [], ["estimate", "--model", "gpt-oss-120b", "--gpu", "b200",
                                      "--batch", "64", "--ctx", "8k", "--phase", "both",
                                      "--spec-tokens", "2", "--spec-accept", "1.7"]),
    ("estimate-record", "jsonl", [f"{GOLDEN}/estimate-hf-config/Qwen3-8B/"],
     ["estimate", "--model", "Qwen3-8B/config.json", "--gpu", "h100-sxm", "--batch", "8",
      "--phase", "both"]),
    ("estimate-record", "jsonl", [f"{FIXTURES}/ncu/details-flash-fwd.csv"],
     ["estimate", "--ncu", "details-flash-fwd.csv", "--gpu", "h100-sxm", "--bytes-reduction",
      "2", "--ctx", "8k"]),
    ("estimate-record", "jsonl", [], ["estimate", "--decode-share", "0.196", "--model",
                                      "llama-3.1-70b", "--gpu", "h100-sxm", "--tp", "8",
                                      "--bytes-reduction", "2", "--phase", "both"]),
    ("roofline", "json", [], ["roofline", "--model", "llama-3.1-70b", "--gpu", "h100-sxm",
                              "--tp", "8"]),
    ("roofline", "json", [], ["roofline", "--model", "deepseek-r1", "--gpu", "h200-sxm",
                              "--kv-dtype", "fp8", "--compute-speedup", "2",
                              "--bytes-reduction", "2"]),
    ("roofline", "json", [], ["roofline", "--model", "qwen3-8b", "--gpu", "b200", "--phase",
                              "prefill", "--ctx", "32k", "--compute-speedup", "2"]),
    ("roofline", "json", [], ["roofline", "--ai", "8", "--peak-tflops", "989.4",
                              "--bandwidth-tbs", "3.35", "--bytes-reduction", "2"]),
    ("roofline-record", "jsonl", [], ["roofline", "--model", "llama-3.1-70b", "--gpu",
                                      "h100-sxm", "--compute-speedup", "2",
                                      "--bytes-reduction", "2"]),
    ("roofline-record", "jsonl", [], ["roofline", "--ai", "8", "--peak-tflops", "989.4",
                                      "--bandwidth-tbs", "3.35"]),
    ("roofline-ncu", "json", [f"{FIXTURES}/ncu/details-flash-fwd.csv"],
     ["roofline", "--ncu", "details-flash-fwd.csv", "--gpu", "h100-sxm", "--model",
      "llama-3.1-8b", "--ctx", "8k", "--bytes-reduction", "2"]),
    ("roofline-ncu", "json", [f"{FIXTURES}/ncu/raw-paged-attention.csv"],
     ["roofline", "--ncu", "raw-paged-attention.csv", "--gpu", "h100-sxm"]),
    # A launch without DRAM bytes beside the model: model_comparison's measured fields are null
    # (issue 20: the schema required numbers there)
    ("roofline-ncu", "json", [f"{FIXTURES}/ncu/details-flash-fwd.csv"],
     ["roofline", "--ncu", "details-flash-fwd.csv", "--gpu", "h100-sxm", "--kernel",
      "flash_fwd|reshape", "--launch", "1", "--model", "llama-3.1-8b"]),
    # A raw export naming its GPU (no --gpu), the tensor work converted
    ("roofline-ncu", "json", [f"{FIXTURES}/ncu/raw-b200-flashinfer.csv"],
     ["roofline", "--ncu", "raw-b200-flashinfer.csv", "--mma-shape", "16x8x16",
      "--bandwidth-efficiency", "0.5:0.55", "--model", "llama-3.1-8b"]),
    ("roofline-ncu", "json", [f"{FIXTURES}/ncu/details-flash-fwd.csv"],
     ["roofline", "--ncu", "details-flash-fwd.csv", "--gpu", "b200", "--kernel", "flash_fwd|reshape"]),
    ("roofline-ncu-record", "jsonl", [f"{FIXTURES}/ncu/details-flash-fwd.csv"],
     ["roofline", "--ncu", "details-flash-fwd.csv", "--gpu", "h100-sxm", "--kernel",
      "flash_fwd|reshape", "--launch", "1"]),
    ("roofline-ncu-record", "jsonl", [f"{FIXTURES}/ncu/raw-paged-attention.csv"],
     ["roofline", "--ncu", "raw-paged-attention.csv", "--gpu", "h100-sxm"]),
    ("profile", "json", [f"{FIXTURES}/profile/sglang-graph.trace.json.gz"],
     ["profile", "sglang-graph.trace.json.gz"]),
    ("profile", "json", [f"{FIXTURES}/profile/rank0.trace.json",
                         f"{FIXTURES}/profile/rank1.trace.json"],
     ["profile", "rank0.trace.json", "rank1.trace.json"]),
    ("profile", "json", [f"{GOLDEN}/profile-different-setups-merge/decode.trace.json",
                         f"{GOLDEN}/profile-different-setups-merge/prefill.trace.json"],
     ["profile", "decode.trace.json", "prefill.trace.json", "--merge"]),
    ("profile", "json", [f"{FIXTURES}/profile/nsys-kern-sum.csv"],
     ["profile", "nsys-kern-sum.csv"]),
    ("profile", "json", [f"{FIXTURES}/profile/trtllm-nvtx.sqlite"],
     ["profile", "trtllm-nvtx.sqlite"]),
    ("profile", "json", [f"{FIXTURES}/profile/rocm-legacy.trace.json"],
     ["profile", "rocm-legacy.trace.json", "--denominator", "busy-time"]),
    ("profile", "json", [f"{FIXTURES}/profile/vllm-eager.trace.json"],
     ["profile", "vllm-eager.trace.json", "--denominator", "wall-time"]),
    ("profile-record", "jsonl", [f"{FIXTURES}/profile/rank0.trace.json",
                                 f"{FIXTURES}/profile/rank1.trace.json"],
     ["profile", "rank0.trace.json", "rank1.trace.json"]),
    ("profile-record", "jsonl", [f"{FIXTURES}/profile/vllm-eager.trace.json"],
     ["profile", "vllm-eager.trace.json"]),
    ("mix", "json", [f"{FIXTURES}/mix/azure-sample.csv"], ["mix", "azure-sample.csv"]),
    ("mix", "json", [f"{GOLDEN}/mix-azure-json/azure.csv"],
     ["mix", "azure.csv", "--replay", "--step-model", STEP_MODEL, "--replicas", "2", "--slo-ttft", "3s"]),
    ("mix", "json", [f"{GOLDEN}/mix-azure-replay-goodput/azure.csv"],
     ["mix", "azure.csv", "--replay", "--step-model", STEP_MODEL, "--replicas", "4", "--slo-ttft", "8s", "--slo-tpot",
      "60ms"]),
    ("mix", "json", [f"{GOLDEN}/mix-azure-unstable/azure.csv"],
     ["mix", "azure.csv", "--replay", "--step-model", STEP_MODEL, "--concurrency", "8"]),
    ("mix", "json", [f"{GOLDEN}/mix-burstgpt-by-model/burstgpt.csv"],
     ["mix", "burstgpt.csv", "--by", "model", "--phase", "both", "--decode-share", "20%"]),
    ("mix", "json", [f"{FIXTURES}/mix/mooncake-sample.jsonl"],
     ["mix", "mooncake-sample.jsonl", "--prefix-cache", "2k"]),
    ("mix", "json", [f"{GOLDEN}/mix-aiperf-measured/aiperf.jsonl"], ["mix", "aiperf.jsonl"]),
    ("mix", "json", [f"{GOLDEN}/mix-truncated-jsonl/cut.jsonl"], ["mix", "cut.jsonl"]),
    ("mix", "json", [f"{FIXTURES}/mix/azure-sample.csv"],
     ["mix", "azure-sample.csv", "--percentiles", "50,99.9"]),
    # The deployment prices every request (no --workload): tpot_ms null, step_model_provenance set.
    ("mix", "json", [f"{FIXTURES}/mix/azure-sample.csv"],
     ["mix", "azure-sample.csv", "--model", "llama-3.1-8b", "--gpu", "h100-sxm"]),
    # Modelled TTFTs below --ttft-overhead: the requests_ttft_below_overhead warning.
    ("mix", "json", [f"{FIXTURES}/mix/azure-sample.csv"],
     ["mix", "azure-sample.csv", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--ttft-overhead", "60ms"]),
    # Each request's own kernel speedup in the replay: attention_speedup.prefill null.
    ("mix", "json", [f"{GOLDEN}/mix-replay-speedup-table/azure.csv",
                     f"{GOLDEN}/mix-replay-speedup-table/speedups.csv"],
     ["mix", "azure.csv", "--replay", "--step-model", STEP_MODEL, "--kernel-speedup-table", "speedups.csv"]),
    ("mix-record", "jsonl", [f"{FIXTURES}/mix/azure-sample.csv"],
     ["mix", "azure-sample.csv", "--percentiles", "50,99.9"]),
    ("mix-record", "jsonl", [f"{GOLDEN}/mix-azure-json/azure.csv"],
     ["mix", "azure.csv", "--replay", "--step-model", STEP_MODEL, "--replicas", "2", "--slo-ttft", "3s"]),
    ("mix-per-request", "per-request", [f"{GOLDEN}/mix-per-request/azure.csv"],
     ["mix", "azure.csv", "--ttft", "400ms", "--ctx", "2k", "--tpot", "40ms"]),
    ("mix-per-request", "per-request", [f"{GOLDEN}/mix-per-request/azure.csv"],
     ["mix", "azure.csv", "--replay", "--step-model", STEP_MODEL, "--kv-blocks", "3000"]),
    ("mix-per-request", "per-request", [f"{FIXTURES}/mix/mooncake-sample.jsonl"],
     ["mix", "mooncake-sample.jsonl", "--prefix-cache", "2k"]),
    ("sweep", "json", [], ["sweep", "--ctx", "4k..128k", "--points", "6", "--kernel-speedup",
                           "2"]),
    ("sweep", "json", [], ["sweep", "--ctx", "1k,2m", "--kernel-speedup", "1.5,2",
                           "--phase", "both", "--decode-share", "0.2"]),
    ("sweep", "json", [], ["sweep", "--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--tp",
                           "8", "--ctx", "8k", "--batch", "1,64,512", "--bytes-reduction",
                           "1.5,2", "--phase", "both"]),
    ("sweep", "json", [], ["sweep", "--ctx", "4k..128k", "--points", "6"]),
    ("sweep-record", "jsonl", [], ["sweep", "--ctx", "4k..128k", "--points", "3"]),
    ("sweep-record", "jsonl", [], ["sweep", "--ctx", "4k..128k", "--points", "6"]),
    ("sweep-record", "jsonl", [], ["sweep", "--model", "llama-3.1-70b", "--gpu", "h100-sxm",
                                   "--tp", "8", "--ctx", "8k,1m", "--compute-speedup", "1,2",
                                   "--phase", "both"]),
    ("sweep-record", "jsonl", [], ["sweep", "--share", "10%..90%", "--points", "3",
                                   "--response-tokens", "1,1k"]),
    ("sweep-record", "jsonl", [f"{GOLDEN}/sweep-speedup-table-json/t.json"],
     ["sweep", "--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--tp", "8", "--ctx", "8k",
      "--ttft", "900", "--tpot", "25", "--phase", "both", "--decode-share", "0.3", "--batch",
      "1,8,64,256", "--kernel-speedup-table", "t.json"]),
    # kspeed diff: two traces (the first diff output is the traces one, renamed below), two
    # benchmark results with per-request values (an interval) and aggregate-only ones
    ("diff", "json", [f"{FIXTURES}/diff/before.trace.json",
                      f"{FIXTURES}/diff/attention-halved.trace.json"],
     ["diff", "before.trace.json", "attention-halved.trace.json"]),
    ("diff", "json", [f"{FIXTURES}/diff/before.trace.json",
                      f"{FIXTURES}/diff/gemm-changed.trace.json"],
     ["diff", "before.trace.json", "gemm-changed.trace.json", "--denominator", "wall-time"]),
    ("diff", "json", [f"{FIXTURES}/diff/vllm-detailed-before.json",
                      f"{FIXTURES}/diff/vllm-detailed-ttft-0.8.json"],
     ["diff", "vllm-detailed-before.json", "vllm-detailed-ttft-0.8.json", "--bootstrap", "200"]),
    ("diff", "json", [f"{FIXTURES}/diff/vllm-aggregate-conc4.json",
                      f"{FIXTURES}/diff/vllm-aggregate-conc64.json"],
     ["diff", "vllm-aggregate-conc4.json", "vllm-aggregate-conc64.json"]),
    ("diff-record", "jsonl", [f"{FIXTURES}/diff/before.trace.json",
                              f"{FIXTURES}/diff/gemm-changed.trace.json"],
     ["diff", "before.trace.json", "gemm-changed.trace.json"]),
    ("diff-record", "jsonl", [f"{FIXTURES}/diff/vllm-detailed-before.json",
                              f"{FIXTURES}/diff/vllm-detailed-ttft-0.8.json"],
     ["diff", "vllm-detailed-before.json", "vllm-detailed-ttft-0.8.json", "--bootstrap", "200"]),
    ("diff-record", "jsonl", [f"{FIXTURES}/diff/vllm-aggregate-conc4.json",
                              f"{FIXTURES}/diff/vllm-aggregate-conc64.json"],
     ["diff", "vllm-aggregate-conc4.json", "vllm-aggregate-conc64.json", "--bootstrap", "0"]),
    # AIPerf artifact directories (schema 1.3 aggregates) and kspeed plan
    ("diff", "json", [f"{FIXTURES}/aiperf/run-a/", f"{FIXTURES}/aiperf/run-b/"],
     ["diff", "run-a", "run-b"]),
    ("audit", "json", [f"{FIXTURES}/aiperf/run-a/"], ["audit", "run-a"]),
    # GuideLLM and llm-d reports; two traces with no phase in common (common_phase false)
    ("diff", "json", [f"{FIXTURES}/guidellm/before.json", f"{FIXTURES}/guidellm/after.json"],
     ["diff", "before.json", "after.json"]),
    ("audit", "json", [f"{FIXTURES}/llm-d/report-v0.1.json", f"{FIXTURES}/llm-d/report-v0.2.json"],
     ["audit", "report-v0.1.json", "report-v0.2.json"]),
    ("diff-record", "jsonl", [f"{GOLDEN}/diff-traces-no-common-phase/prefill.trace.json",
                              f"{GOLDEN}/diff-traces-no-common-phase/decode.trace.json"],
     ["diff", "prefill.trace.json", "decode.trace.json"]),
    ("plan", "json", [f"{FIXTURES}/diff/vllm-detailed-before.json"],
     ["plan", "vllm-detailed-before.json", "--effect", "1%"]),
    ("plan-record", "jsonl", [f"{FIXTURES}/diff/vllm-detailed-before.json"],
     ["plan", "vllm-detailed-before.json", "--effect", "1%"]),
    # kspeed audit: one result (comparable null), two that differ, two aggregate results
    ("audit", "json", [f"{FIXTURES}/audit/cache-on.json", f"{FIXTURES}/audit/cache-off.json"],
     ["audit", "cache-on.json", "cache-off.json"]),
    ("audit", "json", [f"{FIXTURES}/audit/cache-on.json"], ["audit", "cache-on.json"]),
    ("audit", "json", [f"{FIXTURES}/diff/vllm-aggregate-conc4.json",
                       f"{FIXTURES}/diff/vllm-aggregate-conc64.json"],
     ["audit", "vllm-aggregate-conc4.json", "vllm-aggregate-conc64.json"]),
    ("audit-record", "jsonl", [f"{FIXTURES}/audit/cache-on.json",
                               f"{FIXTURES}/audit/cache-off.json"],
     ["audit", "cache-on.json", "cache-off.json"]),
    ("audit-record", "jsonl", [f"{FIXTURES}/diff/vllm-aggregate-conc4.json"],
     ["audit", "vllm-aggregate-conc4.json"]),
    # kspeed calibrate prints the deployment file itself (no --format: "raw")
    ("deployment", "raw", [f"{FIXTURES}/calibrate/vllm-detailed-llama8b.json"],
     ["calibrate", "vllm-detailed-llama8b.json", "--model", "llama-3.1-8b", "--gpu", "h100-sxm",
      "--calibrate-concurrency", "1"]),
    # ... and fitted through the replay on an inference-perf run's two lightest stages
    ("deployment", "raw", [f"{FIXTURES}/calibrate/inference-perf-h100-3-stages/"],
     ["calibrate", "inference-perf-h100-3-stages", "--model", "llama-3.1-8b", "--gpu",
      "h100-sxm"]),
]


def load_schema(source_dir, name):
    with open(os.path.join(source_dir, "docs", "schema", name + ".schema.json"),
              encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def run(kspeed, source_dir, kind, fixtures, args):
    """The documents one command prints: [the JSON document] or [each NDJSON line]."""
    with tempfile.TemporaryDirectory() as scratch:
        for fixture in fixtures:
            if fixture.endswith("/"):  # a folder (a model's config.json): copied under its name
                shutil.copytree(os.path.join(source_dir, fixture),
                                os.path.join(scratch, os.path.basename(fixture.rstrip("/"))))
            else:
                shutil.copy(os.path.join(source_dir, fixture), scratch)
        extra = {"json": ["--format", "json"], "jsonl": ["--format", "jsonl"], "raw": [],
                 "per-request": ["--format", "json", "-o", "/dev/null", "--per-request",
                                 "out.ndjson"]}[kind]
        done = subprocess.run([kspeed] + args + extra, cwd=scratch, capture_output=True,
                              env=dict(os.environ, NO_COLOR="1"), check=False)
        if done.returncode not in (0, 1):
            raise RuntimeError(f"exit {done.returncode}: {done.stderr.decode(errors='replace')}")
        if kind == "per-request":
            with open(os.path.join(scratch, "out.ndjson"), "rb") as f:
                text = f.read().decode("utf-8")
        else:
            text = done.stdout.decode("utf-8")
    if kind in ("json", "raw"):
        return [json.loads(text)]
    return [json.loads(line) for line in text.splitlines()]


def first_error(validator, document):
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(top)"
    return f"at {where}: {error.message[:300]}"


def renamed(document, path, new_name):
    """A copy of `document` with the key at `path` (a list of keys/indexes) renamed."""
    copied = copy.deepcopy(document)
    parent = copied
    for step in path[:-1]:
        parent = parent[step]
    parent[new_name] = parent.pop(path[-1])
    return copied


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    kspeed, source_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    validators = {}
    failures = 0
    checked = 0
    outputs = {}
    for schema, kind, fixtures, args in CASES:
        validator = validators.setdefault(schema, load_schema(source_dir, schema))
        label = f"kspeed {' '.join(args)} ({kind})"
        try:
            documents = run(kspeed, source_dir, kind, fixtures, args)
        except (RuntimeError, ValueError) as problem:
            print(f"FAIL {label}: {problem}")
            failures += 1
            continue
        if not documents:
            print(f"FAIL {label}: no output")
            failures += 1
        outputs.setdefault(schema, documents[0] if documents else None)
        for number, document in enumerate(documents, 1):
            checked += 1
            error = first_error(validator, document)
            if error:
                line = f" line {number}" if kind not in ("json", "raw") else ""
                print(f"FAIL {label}{line} does not match {schema}.schema.json {error}")
                failures += 1
    print(f"schemas: {checked} documents or lines from {len(CASES)} runs validated "
          f"against {len(validators)} schemas")

    # The check must be able to fail: a renamed field (nested and top-level, in JSON and in an
    # NDJSON line) and a value of the wrong type are each rejected.
    mutations = [
        ("estimate", ["request", "speedup"], "speed_up"),
        ("estimate", ["schema_version"], "schemaVersion"),
        ("estimate", ["ttft", "fixed_ms"], "t0_ms"),
        ("estimate", ["notes", 0, "values"], "numbers"),
        ("estimate-record", ["ttft_fixed_ms"], "ttft_t0_ms"),
        ("sweep-record", ["ttft_speedup"], "ttft_speed_up"),
        ("sweep", ["rows", 0, "request_speedup"], "request_speed_up"),
        ("sweep-record", ["request_ttft_after_ms"], "ttft_ms_after"),
        ("roofline", ["position", "bound"], "bounds"),
        ("profile", ["files", 0, "phases", 0, "kernel_time_ns"], "kernel_ns"),
        ("mix", ["summary", "e2e_ms"], "e2e"),
        ("mix-per-request", ["e2e_speedup"], "speedup"),
        ("diff", ["phases", 0, "measured_speedup"], "measured_speed_up"),
        ("diff", ["kind"], "type"),
        ("diff-record", ["prediction_error"], "predicted_error"),
        ("audit", ["files", 0, "conditions", 0, "status"], "state"),
        ("audit-record", ["condition"], "key"),
        ("deployment", ["step_model", "coefficients", "weights_ms"], "weight_ms"),
    ]
    for schema, path, new_name in mutations:
        document = outputs.get(schema)
        if document is None:
            print(f"FAIL no {schema} output to rename {path[-1]} in")
            failures += 1
            continue
        error = first_error(validators[schema], renamed(document, path, new_name))
        if error is None:
            print(f"FAIL {schema}: renaming {'.'.join(map(str, path))} to {new_name} "
                  "still validates: the schema is not strict enough")
            failures += 1
        else:
            print(f"ok   {schema}: {'.'.join(map(str, path))} renamed to {new_name} is "
                  f"rejected ({error[:100]})")
    wrong_type = copy.deepcopy(outputs["sweep-record"])
    wrong_type["request_speedup"] = str(wrong_type["request_speedup"])
    if first_error(validators["sweep-record"], wrong_type) is None:
        print("FAIL sweep-record: request_speedup as a string still validates")
        failures += 1
    print("schemas: " + ("all valid" if failures == 0 else f"{failures} failures"))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
