#!/usr/bin/env python3
"""docs/ci.md's GitHub Actions example, run as a script: the workflow parses as YAML, and its gate
step's shell, run with the built kspeed on PATH, passes (exit 0, the JSON written) for a kernel
that meets the gate and fails (exit 1, stderr naming the gate) for one that does not; with the
step's --strict taken away the same illustrative request would pass, so the test also checks that
--strict refuses an illustrative deployment (exit 2).

Usage: check_ci_example.py KSPEED_BINARY SOURCE_DIR
Skipped (77) without PyYAML (Debian: python3-yaml).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    print("SKIP: PyYAML is not installed (Debian: python3-yaml)")
    sys.exit(77)

GATE_STEP = "Gate the change on the request"


def workflow(source_dir):
    """The one ```yaml block in docs/ci.md that is a workflow (has jobs)."""
    text = open(os.path.join(source_dir, "docs", "ci.md"), encoding="utf-8").read()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    flows = [yaml.safe_load(block) for block in blocks]
    flows = [flow for flow in flows if isinstance(flow, dict) and "jobs" in flow]
    if len(flows) != 1:
        sys.exit(f"FAIL: docs/ci.md has {len(flows)} workflow blocks, expected 1")
    return flows[0]


def run_step(script, kspeed_dir, work, speedup):
    with open(os.path.join(work, "kernel-speedup.txt"), "w", encoding="utf-8") as out:
        out.write(f"{speedup}\n")
    env = {"PATH": f"{kspeed_dir}:{os.environ['PATH']}", "LC_ALL": "C.UTF-8",
           "NO_COLOR": "1", "HOME": work}
    # GitHub Actions runs a `run:` step with bash -e (its default shell on Linux).
    return subprocess.run(["bash", "-e", "-c", script], cwd=work, env=env, capture_output=True,
                          text=True, timeout=120)


def main():
    kspeed, source_dir = os.path.realpath(sys.argv[1]), sys.argv[2]
    flow = workflow(source_dir)
    # PyYAML reads the key `on` as the boolean True (YAML 1.1).
    if "on" not in flow and True not in flow:
        sys.exit("FAIL: the workflow has no `on:` trigger")
    steps = [step for job in flow["jobs"].values() for step in job["steps"]]
    gate = [step for step in steps if step.get("name") == GATE_STEP]
    if len(gate) != 1 or "run" not in gate[0]:
        sys.exit(f"FAIL: no step named '{GATE_STEP}' with a run: script")
    script = gate[0]["run"]
    for needed in ("kspeed estimate", "--strict", "--min-request-speedup", "kernel-speedup.txt"):
        if needed not in script:
            sys.exit(f"FAIL: the gate step does not contain '{needed}'")
    failures = 0
    kspeed_dir = os.path.dirname(kspeed)
    with tempfile.TemporaryDirectory() as work:
        threshold = float(re.search(r"--min-request-speedup\s+([0-9.]+)", script).group(1))
        # A kernel this fast meets the gate; no speedup at all cannot.
        passing = run_step(script, kspeed_dir, work, 2.0)
        if passing.returncode != 0:
            print(f"FAIL: a 2x kernel: exit {passing.returncode}\n{passing.stderr}")
            failures += 1
        else:
            out = json.load(open(os.path.join(work, "kspeed.json"), encoding="utf-8"))
            speedup = out["request"]["speedup"]
            if not speedup >= threshold:
                print(f"FAIL: exit 0 but the request speedup {speedup} < {threshold}")
                failures += 1
            else:
                print(f"ok   a 2x kernel passes the gate: request {speedup:.4f}x >= {threshold}")
        failing = run_step(script, kspeed_dir, work, 1.0)
        if failing.returncode != 1 or "gate failed: --min-request-speedup" not in failing.stderr:
            print(f"FAIL: a 1x kernel: exit {failing.returncode}, expected 1 and a gate message"
                  f"\n{failing.stderr}")
            failures += 1
        else:
            print(f"ok   a 1x kernel fails the gate: {failing.stderr.strip().splitlines()[-1]}")
        # --strict is what keeps the gate on the user's numbers: the same gate on the built-in
        # illustrative request is refused with exit 2.
        bare = re.sub(r"\\\n", " ", script)
        bare = re.sub(r"--(share|ttft|tpot|ctx|response-tokens)\s+\S+", "", bare)
        strict = run_step(bare, kspeed_dir, work, 2.0)
        if strict.returncode != 2:
            print(f"FAIL: without the measured inputs --strict gave exit {strict.returncode},"
                  f" expected 2\n{strict.stderr}")
            failures += 1
        else:
            print("ok   --strict refuses the gate on the illustrative request (exit 2)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
