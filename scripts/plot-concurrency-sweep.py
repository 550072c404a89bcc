#!/usr/bin/env python3
"""Draws docs/img/concurrency-sweep.svg: TTFT and TPOT p50 against closed-loop concurrency,
before and after, from `kspeed mix ... --replay --concurrency N --format json` outputs.

Usage: plot-concurrency-sweep.py OUT.svg N1=result1.json N2=result2.json ...
"""
import json
import math
import sys


def main():
    out = sys.argv[1]
    points = []
    for arg in sys.argv[2:]:
        n, path = arg.split("=", 1)
        replay = json.load(open(path))["replay"]
        points.append((int(n), replay))
    points.sort()
    panels = [("TTFT p50 (ms)", "ttft_ms"), ("TPOT p50 (ms)", "tpot_ms")]
    width, height, pad = 360, 260, 50
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * width}" height="{height}" '
           'font-family="sans-serif" font-size="11">']
    xs = [math.log2(n) for n, _ in points]
    for p, (title, metric) in enumerate(panels):
        x0 = p * width + pad
        ys = [r[s][metric]["p50"] for _, r in points for s in ("before", "after")]
        top = max(ys) * 1.1
        def px(x):
            return x0 + (x - xs[0]) / (xs[-1] - xs[0]) * (width - 2 * pad)
        def py(y):
            return height - pad + 10 - y / top * (height - 2 * pad)
        svg.append(f'<text x="{x0}" y="20" font-weight="bold">{title}</text>')
        svg.append(f'<line x1="{x0}" y1="{py(0)}" x2="{x0 + width - 2 * pad}" y2="{py(0)}" '
                   'stroke="black"/>')
        svg.append(f'<line x1="{x0}" y1="{py(0)}" x2="{x0}" y2="{py(top)}" stroke="black"/>')
        for tick in range(5):
            y = top * tick / 4
            svg.append(f'<text x="{x0 - 6}" y="{py(y) + 4}" text-anchor="end">{y:.0f}</text>')
        for (n, _), x in zip(points, xs):
            svg.append(f'<text x="{px(x)}" y="{py(0) + 16}" text-anchor="middle">{n}</text>')
        svg.append(f'<text x="{x0 + (width - 2 * pad) / 2}" y="{height - 8}" '
                   'text-anchor="middle">concurrency (clients)</text>')
        for side, colour in (("before", "#888888"), ("after", "#d62728")):
            line = " ".join(f"{px(x):.1f},{py(r[side][metric]['p50']):.1f}"
                            for (_, r), x in zip(points, xs))
            svg.append(f'<polyline points="{line}" fill="none" stroke="{colour}" '
                       'stroke-width="2"/>')
            for (_, r), x in zip(points, xs):
                svg.append(f'<circle cx="{px(x):.1f}" cy="{py(r[side][metric]["p50"]):.1f}" '
                           f'r="3" fill="{colour}"/>')
        svg.append(f'<text x="{x0 + 10}" y="40" fill="#888888">before</text>')
        svg.append(f'<text x="{x0 + 60}" y="40" fill="#d62728">after (2× attention)</text>')
    svg.append("</svg>")
    open(out, "w").write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
