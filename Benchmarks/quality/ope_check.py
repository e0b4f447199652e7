#!/usr/bin/env python3
"""Do the off-policy estimates find what the truth says? For every simulated dataset of a
`run.py` run and every stateless policy (the four counting baselines, and the default policy's
scorer undamped, i.e. with the rotation policy off), the off-policy estimate of its engagement
per decision from the logged impressions' propensities against the same quantity read from the
truth file: its counterfactual engagement plus the display lift (a policy that shows `w` sees
`intent[w] + lift`). The estimate's 95% interval should cover the truth's value for at least 90%
of the (policy, dataset) pairs. Reads the reports `run.py` dumped (`<out>/reports`); standard
library only.

    python3 Benchmarks/quality/run.py --seeds tuning --loggers all --out .build/quality
    python3 Benchmarks/quality/ope_check.py --reports .build/quality/reports
"""
import argparse
import collections
import glob
import json
import os
import sys

BASELINES = ("mfu", "mru", "frecency", "time-of-day")
ESTIMATORS = ("dr", "ips", "snips")
TARGET = 0.90


def pairs(reports_dir, warmups):
    """(dataset, warm-up, policy, truth value, {estimator: (value, [lo, hi])}) for every
    stateless policy of every simulated report with truth and logged propensities."""
    out = []
    for path in sorted(glob.glob(os.path.join(reports_dir, "*.json"))):
        name = os.path.basename(path)[:-5]
        dataset, w, kind = name.rsplit(".", 2)
        warmup = int(w[1:])
        if warmups is not None and warmup not in warmups:
            continue
        with open(path) as f:
            report = json.load(f)
        truth = report.get("truth")
        if report.get("measure") != "counterfactual" or truth is None or truth.get("display_lift") is None:
            continue
        names = BASELINES if kind == "default" else ("contextual",)
        for p in report["policies"]:
            if p["name"] not in names or not p.get("ope") or not p["ope"].get("estimates"):
                continue
            value = p["metrics"]["counterfactual_engagement"] + truth["display_lift"]
            est = {e: (p["ope"]["estimates"][e]["value"], p["ope"]["estimates"][e]["ci"])
                   for e in ESTIMATORS if e in p["ope"]["estimates"]}
            label = p["name"] if kind == "default" else "contextual undamped"
            out.append((dataset, warmup, label, value, est))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reports", required=True, help="the reports directory of a run.py run")
    ap.add_argument("--warmups", default=None, help="comma-separated warm-ups to read (default: all)")
    ap.add_argument("--out", default=None, help="write the table (Markdown) and the figures (JSON) beside it")
    a = ap.parse_args()
    if not os.path.isdir(a.reports):
        raise SystemExit("no reports directory at %s: run Benchmarks/quality/run.py first" % a.reports)
    warmups = None if a.warmups is None else {int(w) for w in a.warmups.split(",")}
    rows = pairs(a.reports, warmups)
    if not rows:
        raise SystemExit("no simulated report with a truth file and logged propensities in %s" % a.reports)
    lines = ["# Off-policy estimates against the truth", "",
             "Each stateless policy's engagement per decision estimated from the logged impressions, against the truth's "
             "value on the same data (counterfactual engagement plus the display lift). A pair is covered when the "
             "estimate's 95% interval holds the truth's value.", "",
             "| estimator | pairs | covered | share | mean estimate − truth | mean interval width |",
             "|---|---:|---:|---:|---:|---:|"]
    summary = {}
    for e in ESTIMATORS:
        got = [(v, est[e]) for _, _, _, v, est in rows if e in est and est[e][0] is not None and est[e][1]]
        covered = sum(1 for v, (x, ci) in got if ci[0] <= v <= ci[1])
        bias = sum(x - v for v, (x, _) in got) / len(got)
        width = sum(ci[1] - ci[0] for _, (_, ci) in got) / len(got)
        summary[e] = {"pairs": len(got), "covered": covered, "share": covered / len(got), "mean_error": bias, "mean_width": width}
        lines.append("| %s | %d | %d | %.3f | %+.4f | %.4f |" % (e, len(got), covered, covered / len(got), bias, width))
    # Where DR misses: by policy and by dataset family.
    misses = [(d, w, p, v, est["dr"]) for d, w, p, v, est in rows if "dr" in est and est["dr"][1]
              and not est["dr"][1][0] <= v <= est["dr"][1][1]]
    by_policy = collections.Counter(p for _, _, p, _, _ in misses)
    by_family = collections.Counter(d.split("+")[0].split("@")[0] for d, _, _, _, _ in misses)
    lines += ["", "DR misses (%d of %d): by policy %s; by persona %s." % (
        len(misses), summary["dr"]["pairs"], dict(by_policy.most_common()), dict(by_family.most_common())), "",
        "| dataset | warm-up | policy | truth | DR [95% CI] |", "|---|---:|---|---:|---:|"]
    for d, w, p, v, (x, ci) in misses[:40]:
        lines.append("| %s | %d | %s | %.4f | %.4f [%.4f, %.4f] |" % (d, w, p, v, x, ci[0], ci[1]))
    dr = summary["dr"]
    lines += ["", "Target: DR's interval covers the truth for at least %.0f%% of pairs: %s (%.1f%%)." % (
        TARGET * 100, "met" if dr["share"] >= TARGET else "**missed**", dr["share"] * 100)]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "ope_check.md"), "w") as f:
            f.write(text)
        with open(os.path.join(a.out, "ope_check.json"), "w") as f:
            json.dump({"summary": summary, "misses": [list(m[:4]) + [m[4][0], m[4][1]] for m in misses]}, f, indent=1)
    return 0 if dr["share"] >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
