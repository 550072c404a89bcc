# kspeed mix --replay --format json: `summary` is the headline's (replayed) result and the no-queue
# result is `no_queue_summary`; the text headline quotes the same p99s.
import json
import re
import subprocess
import sys

kspeed, args = sys.argv[1], sys.argv[2:]
document = json.loads(subprocess.run([kspeed, *args, "--format", "json"], check=True,
                                     capture_output=True, text=True).stdout)
text = subprocess.run([kspeed, *args], check=True, capture_output=True, text=True).stdout
summary, replay, alone = document["summary"], document["replay"], document["no_queue_summary"]
print("summary basis:", summary["basis"], "· no_queue_summary basis:", alone["basis"])
for metric in ("ttft_ms", "tpot_ms", "e2e_ms"):
    for side in ("before", "after"):
        assert summary[metric][side] == replay[side][metric], (metric, side)
print("summary ttft/tpot/e2e == replay before/after: yes")
print("no_queue_summary p99 TTFT before, after (ms):",
      [round(alone["ttft_ms"][side]["p99"], 1) for side in ("before", "after")])
p99 = [summary["ttft_ms"][side]["p99"] for side in ("before", "after")]
print("summary p99 TTFT before, after (ms):", [round(v, 1) for v in p99])
headline = text.split("\n\n")[1].replace("\n", " ")
quoted = re.search(r"p99 TTFT ([\d,.]+) → ([\d,.]+) ms", headline)
print("headline quotes:", quoted.group(0))
for value, shown in zip(p99, quoted.groups()):
    assert abs(value - float(shown.replace(",", ""))) <= 0.0051 * max(abs(value), 1), (value, shown)
print("headline p99 TTFT == summary p99 TTFT (to the digits shown): yes")
