#!/usr/bin/env python3
"""One quantity, one name: the same column in every command that reports it (issue 21).

Runs estimate, sweep and roofline on one deployment with the same levers (and mix and diff on
the repository's fixtures), reads each command's CSV header and first data row (mix and diff:
their JSON, flattened with '_'), then checks a table of quantity -> column:

- every command the table lists for a quantity has that column (a renamed column fails here);
- the commands agree on its value (a column that kept its name but changed meaning fails here);
- no command uses a retired name for it (schema_version 3's `batch`, `gpu_name`, ...).

Exit 0: one name per quantity; 1: a mismatch (each is printed); 2: usage or a command failed.

Usage: check_column_names.py KSPEED_BINARY SOURCE_DIR
"""
import csv
import io
import json
import math
import os
import subprocess
import sys

MODEL_GPU = ["--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--batch", "8", "--ctx", "4k"]
LEVERS = ["--compute-speedup", "2", "--bytes-reduction", "1.5"]
# A given TTFT overhead gives TTFT a fixed term, so estimate and sweep both report ttft_*.
REQUEST = ["--phase", "both", "--ttft-overhead", "20"]

# quantity -> (column, the commands that report it). Each command's row is read as below.
QUANTITIES = {
    "model": ("platform_model", ["estimate", "roofline"]),
    "GPU": ("platform_gpu", ["estimate", "roofline"]),
    "sequences per decode step": ("platform_batch", ["estimate", "sweep", "roofline"]),
    "its provenance": ("platform_batch_provenance", ["estimate", "roofline"]),
    "tensor parallelism": ("platform_tp", ["estimate", "roofline"]),
    "KV cache type": ("platform_kv_dtype", ["estimate", "roofline"]),
    "compute precision": ("platform_precision", ["estimate", "roofline"]),
    "dense peak": ("platform_peak_tflops", ["estimate", "roofline"]),
    "HBM bandwidth": ("platform_bandwidth_tbs", ["estimate", "roofline"]),
    "compute lever": ("levers_compute_speedup", ["estimate", "sweep", "roofline"]),
    "bytes lever": ("levers_bytes_reduction", ["estimate", "sweep", "roofline"]),
    "efficiency before": ("levers_bandwidth_efficiency_before", ["estimate", "roofline"]),
    "efficiency after": ("levers_bandwidth_efficiency_after", ["estimate", "roofline"]),
    "compute efficiency": ("levers_compute_efficiency", ["estimate", "roofline"]),
    "prefill attention share": ("prefill_attention_share", ["estimate", "sweep"]),
    "prefill attention speedup": ("prefill_attention_speedup", ["estimate", "sweep"]),
    "TTFT fixed term": ("ttft_fixed_ms", ["estimate", "sweep"]),
    "TTFT speedup": ("ttft_speedup", ["estimate", "sweep"]),
    "TTFT after": ("request_ttft_after_ms", ["estimate", "sweep"]),
    "request speedup": ("request_speedup", ["estimate", "sweep"]),
    "request time before": ("request_e2e_before_ms", ["estimate", "sweep"]),
}

# Names schema_version 3 or earlier used for a quantity above; no command may print them.
RETIRED = {
    "batch", "compute_speedup", "bytes_reduction", "model", "tp", "kv_dtype",
    "gpu_name", "gpu_precision", "gpu_peak_tflops", "gpu_bandwidth_tbs", "gpu_memory_gb",
    "lever_compute_speedup", "lever_bytes_reduction", "lever_bandwidth_efficiency_before",
    "lever_bandwidth_efficiency_after", "lever_compute_efficiency", "share_before",
    "prefill_share", "decode_share", "replay_attention_speedup_prefill",
}


def run(kspeed, cwd, args):
    done = subprocess.run([kspeed] + args, cwd=cwd, capture_output=True,
                          env=dict(os.environ, NO_COLOR="1"), check=False)
    if done.returncode != 0:
        sys.exit(f"kspeed {' '.join(args)}: exit {done.returncode}: "
                 f"{done.stderr.decode(errors='replace')}")
    return done.stdout.decode("utf-8")


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def flattened(value, prefix=""):
    """A JSON document's scalars as {a_b_c: value} (arrays: their first element)."""
    out = {}
    if isinstance(value, list):
        return flattened(value[0], prefix) if value else out
    if not isinstance(value, dict):
        return {prefix: value}
    for key, inner in value.items():
        out.update(flattened(inner, f"{prefix}_{key}" if prefix else key))
    return out


def same(a, b):
    """Two cells (CSV text) hold the same value: equal text, or numbers within 1e-12."""
    if a == b:
        return True
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-12)
    except ValueError:
        return False


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    kspeed, source_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    fixtures = os.path.join(source_dir, "tests", "fixtures")
    csv_args = ["--format", "csv"]
    rows = {
        "estimate": csv_rows(run(kspeed, fixtures,
                                 ["estimate"] + MODEL_GPU + LEVERS + REQUEST + csv_args))[0],
        "sweep": csv_rows(run(kspeed, fixtures,
                              ["sweep"] + MODEL_GPU + LEVERS + REQUEST + csv_args))[0],
        # The row of all the levers together: the levers as given, as estimate's.
        "roofline": [r for r in csv_rows(run(kspeed, fixtures,
                                             ["roofline"] + MODEL_GPU + LEVERS + csv_args))
                     if r["lever"] == "combined"][0],
    }
    names = {command: set(row) for command, row in rows.items()}
    mix = json.loads(run(kspeed, fixtures, ["mix", "mix/azure-sample.csv", "--replay"] +
                         MODEL_GPU[:4] + ["--format", "json"]))
    names["mix"] = set(flattened(mix))
    diff = json.loads(run(kspeed, fixtures, ["diff", "diff/before.trace.json",
                                             "diff/attention-halved.trace.json",
                                             "--format", "json"]))
    names["diff"] = set(flattened(diff))

    failures = []
    for quantity, (column, commands) in QUANTITIES.items():
        values = {}
        for command in commands:
            if column not in rows[command]:
                failures.append(f"{quantity}: {command} has no column {column}")
            else:
                values[command] = rows[command][column]
        first = next(iter(values.items()), None)
        for command, value in values.items():
            if first and not same(value, first[1]):
                failures.append(f"{quantity}: {column} is {value} in {command} "
                                f"but {first[1]} in {first[0]}")
    # Keyed by phase in roofline (one row per lever effect), by prefix in estimate.
    phase = rows["roofline"]["phase"]
    if not same(rows["roofline"]["lever_speedup"], rows["estimate"][f"{phase}_roofline_lever_speedup"]):
        failures.append(f"levers' {phase} attention speedup: roofline lever_speedup "
                        f"{rows['roofline']['lever_speedup']} but estimate "
                        f"{phase}_roofline_lever_speedup "
                        f"{rows['estimate'][f'{phase}_roofline_lever_speedup']}")
    # mix names the replay's per-phase kernel speedup as estimate and sweep name it.
    for column in ("replay_prefill_attention_speedup", "replay_decode_attention_speedup"):
        if column not in names["mix"]:
            failures.append(f"mix json has no {column.replace('_', '.', 1)}")
    if "phases_attention_share_before" not in names["diff"]:
        failures.append("diff json phases[] has no attention_share_before")
    for command, columns in sorted(names.items()):
        for retired in sorted(columns & RETIRED):
            failures.append(f"{command} prints the retired name {retired}")

    for failure in failures:
        print("FAIL:", failure)
    checked = sum(len(commands) for _, commands in QUANTITIES.values())
    print(f"{len(QUANTITIES)} quantities, {checked} command columns, "
          f"{len(RETIRED)} retired names over {len(names)} commands: "
          f"{len(failures)} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
