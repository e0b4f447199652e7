"""Cuts one chart out of a SmartStack HTML report into a standalone SVG for the README.

    python3 docs/figure.py out/commuter/report.html docs/images/accuracy-and-calm.svg

The report draws its charts as inline SVG styled by the page's CSS; the standalone file carries
the chart rules of that CSS and a white background, so it looks the same in any viewer.
Python 3 standard library only.
"""
import re
import sys

CHART = "chart-tradeoff"   # hit@1 against rotations per active hour, one point per policy


def main(report, out):
    html = open(report, encoding="utf-8").read()
    css = re.search(r"<style>\n(.*?)</style>", html, re.S)
    start = html.find(f'aria-labelledby="{CHART}-title')
    if css is None or start < 0:
        sys.exit(f"error: {report} has no <style> or no chart '{CHART}' (is it a SmartStack report.html?)")
    begin = html.rindex("<svg", 0, start)
    end = html.index("</svg>", start) + len("</svg>")
    svg = html[begin:end]
    rules = "\n".join(line for line in css.group(1).splitlines() if line.startswith("svg.chart"))
    opening = svg[:svg.index(">") + 1]
    width, height = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', opening).groups()
    background = f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>'
    svg = opening + f"\n<style>\n{rules}\n</style>\n" + background + svg[len(opening):]
    with open(out, "w", encoding="utf-8") as f:
        f.write(svg + "\n")
    print(f"{out}: {len(svg):,} bytes")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python3 docs/figure.py <report.html> <out.svg>")
    main(sys.argv[1], sys.argv[2])
