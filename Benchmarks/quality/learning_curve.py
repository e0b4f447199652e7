#!/usr/bin/env python3
"""How fast the default policy learns a person: its hit@1 ÷ the oracle's on a stretch of days,
after the days before it of that person's own data (issue 14's first-day and warm-up-0 misses).

For each persona and each stretch of `--days` (day numbers from 1, e.g. `1,2-3,4-7`), every person
of the persona's 28-day set is cut to the stretch's last day, `--warmup-days` ends where the
stretch begins, and the default, the four counting baselines and the oracle are evaluated on it.
A cell is the ratio of the default's hit@1 to the oracle's over the stretch, pooled over the set's
people; `*` marks a cell where a baseline's hit@1 is higher. `--variant` reads another of the
persona's sets (`no-screen-on`, `stack-12`, ...); `--history` replays only part of the days before
each stretch (`HISTORY` below: what a host can backfill from the system's app-usage history) or
none of them, to measure what that history is worth.

Input: the `data/` folder of a `run.py` run (the datasets `P.jsonl` and `P.truth.jsonl` of each
persona). Python 3 standard library only.

    python3 Benchmarks/quality/run.py --out .build/quality        # tuning seeds 1, 2
    python3 Benchmarks/quality/learning_curve.py --data .build/quality/data
"""
import argparse
import datetime
import json
import os
import sys
import tempfile

# The harness's own definitions (personas, baselines, variants) and the donor experiment's reader
# and evaluation.
from donor_prior import evaluate, read_users
from run import BASELINES, PERSONAS, REPO, VARIANTS


# What of the days before a stretch each `--history` keeps: everything, the stack configurations
# and app launches only (what a host can backfill from the system's usage history), the same with
# the stacks configured only as the stretch begins (`launches-configured-late`: until then each
# stack holds one placeholder widget without an app), or the stack configurations only (the
# stretch scored as the person's first days).
HISTORY = {"full": None, "launches": ("stack_config", "app_launch"), "launches-configured-late": ("stack_config", "app_launch"),
           "none": ("stack_config",)}


def cell(bin_, events, truth, first, last, work, history="full"):
    """Every policy's hit@1 on days `first`...`last` (from 1) of each person, after the days
    before as `history` keeps them."""
    k = first - 1
    keep = HISTORY[history]
    starts = {u: min(t for t, _ in v) for u, v in events.items()}
    day = datetime.timedelta(days=1)
    data, ground = os.path.join(work, "cut.jsonl"), os.path.join(work, "cut.truth.jsonl")
    with open(data, "w") as out:
        for u, v in events.items():
            late = []
            for t, e in v:
                if t >= starts[u] + last * day or (keep is not None and t < starts[u] + k * day and e.get("type") not in keep):
                    continue
                if history == "launches-configured-late" and t < starts[u] + k * day and e.get("type") == "stack_config":
                    late.append(dict(e, time=(starts[u] + k * day).isoformat()))
                    e = dict(e, widgets=[{"id": "placeholder-before-configuration"}])
                if late and t >= starts[u] + k * day:
                    out.writelines(json.dumps(x) + "\n" for x in late)
                    late = []
                out.write(json.dumps(e) + "\n")
            out.writelines(json.dumps(x) + "\n" for x in late)
    kept = 0
    with open(ground, "w") as out:
        for u, v in truth.items():
            if u not in starts:
                continue
            lines = [json.dumps(e) + "\n" for t, e in v if starts[u] + k * day <= t < starts[u] + last * day]
            kept += len(lines)
            out.writelines(lines)
    if not kept:
        return None
    metrics = evaluate(bin_, data, ground, k, threads=None)
    hit = {name: m["hit_at_1"] for name, m in metrics.items()}
    decisions = metrics["contextual"]["decisions_with_target"]
    return {"decisions_with_target": decisions, "hit_at_1": hit,
            "oracle_ratio": hit["contextual"] / hit["oracle"] if hit["oracle"] else None,
            "baseline_ahead": max(hit[b] for b in BASELINES) > hit["contextual"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="the data/ folder of a run.py run")
    ap.add_argument("--smartstack", default=os.path.join(REPO, ".build", "release", "smartstack"))
    ap.add_argument("--personas", default=",".join(PERSONAS))
    ap.add_argument("--days", default="1,2,3-4,5-7,8-14,15-28",
                    help="comma-separated stretches of days scored, from day 1 (`3` or `3-4`)")
    ap.add_argument("--variant", default="default", help="which of each persona's 28-day sets (%s)" % ", ".join(v for v in VARIANTS if v != "one-day"))
    ap.add_argument("--history", default="full", choices=sorted(HISTORY),
                    help="what of the days before each stretch is replayed: all of it, the app launches only (a host's "
                         "backfill of the system's usage history), the same with the stacks configured only as the "
                         "stretch begins, or nothing (each stretch scored as the first days)")
    ap.add_argument("--out", default=None, help="where the results go (default: <data>/../curve[+variant][-history].json)")
    a = ap.parse_args()
    if not os.access(a.smartstack, os.X_OK):
        raise SystemExit("smartstack binary not found at %s: run 'swift build -c release --product smartstack'" % a.smartstack)
    stretches = []
    for part in a.days.split(","):
        try:
            first, _, last = part.partition("-")
            first, last = int(first), int(last or first)
        except ValueError:
            raise SystemExit("--days %r: %r is not a day or a stretch of days like 3-4" % (a.days, part))
        if not 1 <= first <= last:
            raise SystemExit("--days %r: %r: days count from 1, a stretch's first day before its last" % (a.days, part))
        stretches.append((first, last))
    if a.variant not in VARIANTS or a.variant == "one-day":
        raise SystemExit("--variant %r: expected one of %s" % (a.variant, ", ".join(v for v in VARIANTS if v != "one-day")))
    suffix = "" if a.variant == "default" else "+" + a.variant
    personas = [p for p in a.personas.split(",") if p]
    unknown = [p for p in personas if p not in PERSONAS]
    if unknown:
        raise SystemExit("unknown persona(s) %s (valid: %s)" % (", ".join(unknown), ", ".join(PERSONAS)))
    out_path = a.out or os.path.join(os.path.dirname(os.path.abspath(a.data)), "curve%s%s.json" % (suffix, "" if a.history == "full" else "-" + a.history))
    results = {}
    label = lambda f, l: "day %d" % f if f == l else "days %d–%d" % (f, l)
    history = "" if a.history == "full" else ", history: " + a.history
    lines = ["| persona%s%s | " % (suffix, history) + " | ".join(label(f, l) for f, l in stretches) + " |", "|---|" + "---:|" * len(stretches)]
    with tempfile.TemporaryDirectory() as work:
        for persona in personas:
            names = [os.path.join(a.data, persona + suffix + s) for s in (".jsonl", ".truth.jsonl")]
            missing = [n for n in names if not os.path.exists(n)]
            if missing:
                raise SystemExit("missing %s (run run.py with the %s variant of %s)" % (", ".join(missing), a.variant, persona))
            # Per user, each record with its instant.
            events, truth = ({u: [(datetime.datetime.fromisoformat(e["time"]), e) for e in v] for u, v in read_users(n).items()}
                             for n in names)
            # Days of data per person: a stretch past anyone's last day would be scored short.
            days = min((max(x[0] for x in v) - min(x[0] for x in v)).days + 1 for v in events.values())
            if max(l for _, l in stretches) > days:
                raise SystemExit("%s: --days %r goes past day %d, the last day every person of %s has"
                                 % (persona, a.days, days, os.path.basename(names[0])))
            row = {}
            for f, l in stretches:
                c = cell(a.smartstack, events, truth, f, l, work, a.history)
                if c is None:
                    raise SystemExit("%s: no ground truth on %s: its people have fewer days" % (persona, label(f, l)))
                row[label(f, l)] = c
            results[persona] = row
            lines.append("| %s | " % persona + " | ".join(
                ("%.2f" % row[k]["oracle_ratio"] if row[k]["oracle_ratio"] is not None else "—")
                + ("*" if row[k]["baseline_ahead"] else "") for k in row) + " |")
            print(lines[-1], flush=True)
    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)
    print("\n".join(lines))
    print("wrote %s" % out_path)


if __name__ == "__main__":
    sys.exit(main())
