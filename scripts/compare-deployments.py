#!/usr/bin/env python3
"""Two deployment files (kspeed calibrate's) side by side: every coefficient either fitted, its
value in each and the relative difference, then the largest |difference|. With --within F, exits
1 when that exceeds F (0.02: 2%). docs/calibrate.md and the golden calibrate-levels-typed-agree
use it to show that a calibration from a run's files and one from the same levels typed by hand
agree. Usage: compare-deployments.py A.json B.json [--within F]
"""
import json
import sys


def coefficients(path):
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    return document["step_model"]["coefficients"]


def main(argv):
    within = None
    if "--within" in argv:
        at = argv.index("--within")
        within = float(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    if len(argv) != 3:
        sys.exit(__doc__)
    a, b = coefficients(argv[1]), coefficients(argv[2])
    print("| coefficient | first | second | difference |")
    print("| --- | ---: | ---: | ---: |")
    worst = 0.0
    for name, first in a.items():
        second = b[name]
        if "fitted" not in (first["provenance"], second["provenance"]):
            continue
        x, y = first["value"], second["value"]
        difference = (y - x) / x if x else (0.0 if y == 0 else float("inf"))
        worst = max(worst, abs(difference))
        print(f"| {name} | {x:.5g} ({first['provenance']}) | {y:.5g} ({second['provenance']}) "
              f"| {100 * difference:+.2f}% |")
    print(f"\nlargest |difference| over the fitted coefficients: {100 * worst:.2f}%")
    if within is not None and worst > within:
        print(f"more than {100 * within:g}%", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
