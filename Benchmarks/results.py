"""The README's results table, regenerated: every policy on the five bundled personas and the
real StudentLife recordings, one figure per cell, the best policy but the oracle in bold.

    swift build -c release --product smartstack
    python3 Benchmarks/results.py                       # each report's headline: the table the README shows
    python3 Benchmarks/results.py --metric hit_at_1     # any metric key of report.json
    python3 Benchmarks/results.py --check README.md     # fails when the README shows another table
    python3 Benchmarks/results.py --detail docs/results.md   # rewrites its per-dataset detail

Each dataset is evaluated once with `smartstack evaluate <dataset> --policies all --reference
contextual --report <out>/<dataset>` (defaults otherwise: 10-minute window, 7-day warm-up,
1000 bootstrap resamples, seed 0); the reports stay in --out for their intervals and paired
differences. StudentLife is imported from ../shared/datasets (not in this repository); without
it its row is left out with a note, unless --require-studentlife or under CI (CI set). Python 3
standard library only.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PERSONAS = ["commuter", "student", "shiftworker", "traveler", "drift"]
POLICIES = ["static", "round-robin", "mru", "mfu", "frecency", "time-of-day", "contextual", "bandit", "oracle"]
STUDENTLIFE = ["foreground_snapshots_u00_u01_u02.csv", "gps_u00_u01_u02.csv"]


def run(command):
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"error: {' '.join(map(str, command))} failed ({done.returncode}):\n{done.stderr}")


def datasets(args):
    """(name, JSONL path) of every dataset the table has a row for."""
    rows = [(p, ROOT / "Datasets" / f"{p}.jsonl") for p in PERSONAS]
    shared = Path(args.shared_datasets) / "studentlife_small"
    if all((shared / f).is_file() for f in STUDENTLIFE):
        out = Path(args.out) / "studentlife.jsonl"
        run([args.smartstack, "import", "studentlife", *[shared / f for f in STUDENTLIFE], "--out", out])
        rows.append(("studentlife", out))
    elif args.require_studentlife or os.environ.get("CI"):
        sys.exit(f"error: StudentLife not found in {shared} (give --shared-datasets; CI must have it)")
    else:
        print(f"note: StudentLife not found in {shared}: its row is left out", file=sys.stderr)
    return rows


# What the `headline` metric reads in a report of each measure.
HEADLINE = {"counterfactual": ("counterfactual_engagement", "cf."), "logged": ("hit_at_1", "hit@1"),
            "off-policy": ("hit_at_1", "hit@1")}


def table(reports, metric, digits):
    # The header without padding keeps every line of the table within 100 columns.
    head = "|dataset|" + ("measure|" if metric == "headline" else "") + "|".join(POLICIES) + "|\n|---|" \
        + ("---|" if metric == "headline" else "") + "---:|" * len(POLICIES) + "\n"
    lines = []
    for name, report in reports:
        key, label = HEADLINE[report.get("measure", "logged")] if metric == "headline" else (metric, None)
        values = {p["name"]: p["metrics"].get(key) for p in report["policies"]}
        candidates = [v for p, v in values.items() if p != "oracle" and v is not None]
        best = round(max(candidates), digits) if candidates else None
        cells = []
        for policy in POLICIES:
            value = values.get(policy)
            text = "—" if value is None else f"{value:.{digits}f}"
            cells.append(f"**{text}**" if policy != "oracle" and value is not None and round(value, digits) == best else text)
        lines.append(f"| {name} | " + (f"{label} | " if label else "") + " | ".join(cells) + " |")
    return head + "\n".join(lines) + "\n"


BASELINES = ["mfu", "mru", "frecency", "time-of-day"]
DETAIL_BEGIN, DETAIL_END = "<!-- results.py --detail: begin -->", "<!-- results.py --detail: end -->"


def interval(report, policy, key, digits=3):
    value, ci = policy["metrics"].get(key), policy.get("ci", {}).get(key)
    if value is None:
        return "—"
    return f"{value:.{digits}f}" + (f" [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if ci else "")


def signed(value, ci, digits=3):
    return f"{value:+.{digits}f} [{ci[0]:+.{digits}f}, {ci[1]:+.{digits}f}]".replace("-", "−")


def detail(reports):
    """The per-dataset detail: every policy's headline, ceiling ratio, logged hit@1 and rotations with
    their intervals, and the default's paired difference to the best counting baseline."""
    out = []
    for name, report in reports:
        key, label = HEADLINE[report.get("measure", "logged")]
        policies = {p["name"]: p for p in report["policies"]}
        d = report["dataset"]
        out.append(f"**{name}** ({d['events']:,} events, {d['users']} people, {d['user_days']} user-days, "
                   f"{d['decision_points']:,} decision points; headline: {report.get('measure', 'logged')})\n\n")
        counterfactual = key == "counterfactual_engagement"
        head = ["policy", "counterfactual engagement", "÷ ceiling"] if counterfactual else ["policy"]
        head += ["logged hit@1", "rotations / active hour"]
        out.append("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n")
        for policy in POLICIES:
            p = policies.get(policy)
            if p is None:
                continue
            cells = [f"**{policy}**" if policy == "contextual" else policy]
            if counterfactual:
                cells += [interval(report, p, "counterfactual_engagement", 4), interval(report, p, "ceiling_ratio")]
            cells += [interval(report, p, "hit_at_1"), interval(report, p, "rotations_per_active_hour", 2)]
            out.append("| " + " | ".join(cells) + " |\n")
        default = policies.get("contextual")
        best = max((b for b in BASELINES if b in policies), key=lambda b: policies[b]["metrics"].get(key) or 0, default=None)
        if default and best and policies[best].get("paired"):
            paired = policies[best]["paired"]
            diff, ci = -paired["difference"][key], [-paired["ci"][key][1], -paired["ci"][key][0]]
            beyond = "beyond chance" if ci[0] > 0 or ci[1] < 0 else "within chance"
            measure = "counterfactual engagement" if counterfactual else "logged hit@1"
            out.append(f"\n`contextual` − `{best}` (the best counting baseline) in {measure}: "
                       f"{signed(diff, ci, 4 if counterfactual else 3)}, paired over user-days ({beyond}).\n")
        out.append("\n")
    return "".join(out)


def write_detail(path, reports):
    text = open(path, encoding="utf-8").read()
    if DETAIL_BEGIN not in text or DETAIL_END not in text:
        sys.exit(f"error: {path} has no '{DETAIL_BEGIN}' ... '{DETAIL_END}' region to rewrite")
    start, end = text.index(DETAIL_BEGIN) + len(DETAIL_BEGIN), text.index(DETAIL_END)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:start] + "\n" + detail(reports) + text[end:])
    print(f"{path}: detail rewritten", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smartstack", default=str(ROOT / ".build" / "release" / "smartstack"))
    parser.add_argument("--metric", default="headline",
                        help="a metric key of report.json, or headline (default): counterfactual engagement where the "
                             "dataset has a truth file, logged hit@1 where it has none")
    parser.add_argument("--digits", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / ".build" / "results"), help="where the reports go")
    parser.add_argument("--shared-datasets", default=str(ROOT.parent / "shared" / "datasets"))
    parser.add_argument("--require-studentlife", action="store_true")
    parser.add_argument("--check", metavar="FILE", help="fail when FILE (e.g. README.md) shows another table")
    parser.add_argument("--detail", metavar="FILE", help="rewrite the per-dataset detail between FILE's markers "
                        "(docs/results.md)")
    args = parser.parse_args()
    if not os.access(args.smartstack, os.X_OK):
        sys.exit(f"error: no smartstack binary at {args.smartstack} (swift build -c release --product smartstack)")
    os.makedirs(args.out, exist_ok=True)
    reports = []
    for name, path in datasets(args):
        directory = Path(args.out) / name
        run([args.smartstack, "evaluate", path, "--policies", "all", "--reference", "contextual", "--quiet",
             "--report", directory])
        report = json.loads((directory / "report.json").read_text())
        if args.metric != "headline" and not any(args.metric in p["metrics"] for p in report["policies"]):
            sys.exit(f"error: report.json has no metric '{args.metric}' (keys: {sorted(report['policies'][0]['metrics'])})")
        reports.append((name, report))
    text = table(reports, args.metric, args.digits)
    sys.stdout.write(text)
    if args.detail:
        write_detail(args.detail, reports)
    if args.check:
        shown = open(args.check, encoding="utf-8").read()
        if text not in shown:
            sys.exit(f"error: {args.check} does not show this table: paste the one above in its place")
        print(f"{args.check} shows this table", file=sys.stderr)


if __name__ == "__main__":
    main()
