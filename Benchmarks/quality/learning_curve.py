#!/usr/bin/env python3
"""How fast the default policy learns a person: its figures on a stretch of days, after the days
before it of that person's own data (issue 14's first-day and warm-up-0 misses; issue 34's
learning curve).

For each persona and each stretch of `--days` (day numbers from 1, e.g. `1,2-3,4-7`, counted from
each person's first `stack_config`: for a set with a history before the stacks, the first day with
stacks), the default, the four counting baselines and the oracle are read from
`smartstack evaluate --by-day --json`, which tallies every decision by day since the stacks were
configured; a stretch pools its days' sums over the set's people. A cell is the default's hit@1 ÷
the oracle's (`--measure hit`) or its counterfactual engagement ÷ the ceiling (`--measure
counterfactual`); `*` marks a cell where a baseline is higher. The JSON gives the cells per persona
and stretch, and under `reaches_day` the day each policy of each persona reaches 0.85 × the
ceiling and stays there (from the whole set's curve).

`--policy` reads another policy in place of the default (a candidate's parameters, e.g.
`contextual:learning_rate=0`; with `--smartstack`, another build).
`--variant` reads another of the persona's sets (`no-screen-on`, `stack-12`, `backfill-7`, ...);
`--history` replays only part of the days before each stretch (`HISTORY` below: what a host can
backfill from the system's app-usage history) or none of them, to measure what that history is
worth: one evaluation per stretch start, the events before it filtered, the days from it on read
by day.

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

# The harness's own definitions (personas, baselines, variants) and the donor experiment's reader.
from donor_prior import read_users
from run import BASELINES, DEFAULT_POLICY, PERSONAS, REPO, VARIANTS, run


# What of the days before a stretch each `--history` keeps: everything, the stack configurations
# and app launches only (what a host can backfill from the system's usage history), the same with
# the stacks configured only as the stretch begins (`launches-configured-late`: until then each
# stack holds one placeholder widget without an app), or the stack configurations only (the
# stretch scored as the person's first days).
HISTORY = {"full": None, "launches": ("stack_config", "app_launch"), "launches-configured-late": ("stack_config", "app_launch"),
           "none": ("stack_config",)}
def by_day(bin_, data, truth, policy):
    """`smartstack evaluate --by-day --json` of `data` for `policy`, the baselines and the oracle: its
    `by_day` curve."""
    policies = [policy, *(b for b in BASELINES if b != policy), "oracle"]
    cmd = [bin_, "evaluate", data, "--truth", truth, "--policies", ",".join(policies), "--warmup-days", "0",
           "--bootstrap", "0", "--by-day", "--json", "--quiet"]
    try:
        return json.loads(run(cmd))["by_day"]
    except RuntimeError as e:
        raise SystemExit(str(e))


def pooled(curve, first, last, policy):
    """Every policy's figures on days `first`...`last` of `curve`, pooled from the days' sums; the
    ratios are `policy`'s."""
    days = [d for d in curve["days"] if first <= d["day"] <= last]
    if not days:
        return None
    targets = sum(d["decisions_with_target"] for d in days)
    truths = sum(d["decisions_with_truth"] for d in days)
    ceiling = sum(d["ceiling_sum"] for d in days)
    hit, cf = {}, {}
    for p in curve["policies"]:
        points = [x for x in p["days"] if first <= x["day"] <= last]
        hit[p["name"]] = sum(x["hits_at_1"] for x in points) / targets if targets else None
        cf[p["name"]] = sum(x["counterfactual_sum"] for x in points) / truths if truths else None
    return {"decisions_with_target": targets, "decisions_with_truth": truths, "hit_at_1": hit,
            "counterfactual_engagement": cf, "ceiling": ceiling / truths if truths else None,
            "oracle_ratio": hit[policy] / hit["oracle"] if hit.get("oracle") else None,
            "ceiling_ratio": cf[policy] * truths / ceiling if ceiling and cf[policy] is not None else None}


def cut(events, truth, configured, k, history, work):
    """The data with the events before day `k + 1` (from each person's first stack_config) kept
    as `history` says, everything from it on kept whole; returns the events and truth paths."""
    keep = HISTORY[history]
    day = datetime.timedelta(days=1)
    data, ground = os.path.join(work, "cut%d.jsonl" % k), os.path.join(work, "cut%d.truth.jsonl" % k)
    with open(data, "w") as out:
        for u, v in events.items():
            start = configured[u] + k * day
            late = []
            for t, e in v:
                if t < start and e.get("type") not in keep:
                    continue
                if history == "launches-configured-late" and t < start and e.get("type") == "stack_config":
                    late.append(dict(e, time=start.isoformat()))
                    e = dict(e, widgets=[{"id": "placeholder-before-configuration"}])
                if late and t >= start:
                    out.writelines(json.dumps(x) + "\n" for x in late)
                    late = []
                out.write(json.dumps(e) + "\n")
            out.writelines(json.dumps(x) + "\n" for x in late)
    with open(ground, "w") as out:
        for u, v in truth.items():
            if u in events:
                out.writelines(json.dumps(e) + "\n" for _, e in v)
    return data, ground


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
    ap.add_argument("--policy", default=DEFAULT_POLICY,
                    help="the policy read in place of the default, e.g. contextual:learning_rate=0 (default: %(default)s)")
    ap.add_argument("--measure", default="hit", choices=("hit", "counterfactual"),
                    help="the table's cells: hit@1 ÷ the oracle's (default), or counterfactual engagement ÷ the ceiling")
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
    results, reaches_day = {}, {}
    label = lambda f, l: "day %d" % f if f == l else "days %d–%d" % (f, l)
    key = "oracle_ratio" if a.measure == "hit" else "ceiling_ratio"
    figure = (lambda c, p: c["hit_at_1"][p]) if a.measure == "hit" else (lambda c, p: c["counterfactual_engagement"][p])
    history = "" if a.history == "full" else ", history: " + a.history
    measure = "" if a.measure == "hit" else ", counterfactual ÷ ceiling"
    lines = ["| persona%s%s%s | " % (suffix, history, measure) + " | ".join(label(f, l) for f, l in stretches) + " | reaches 0.85 × ceiling |",
             "|---|" + "---:|" * (len(stretches) + 1)]
    with tempfile.TemporaryDirectory() as work:
        for persona in personas:
            names = [os.path.join(a.data, persona + suffix + s) for s in (".jsonl", ".truth.jsonl")]
            missing = [n for n in names if not os.path.exists(n)]
            if missing:
                raise SystemExit("missing %s (run run.py with the %s variant of %s)" % (", ".join(missing), a.variant, persona))
            # Per user, each record with its instant.
            events, truth = ({u: [(datetime.datetime.fromisoformat(e["time"]), e) for e in v] for u, v in read_users(n).items()}
                             for n in names)
            configured = {u: min(t for t, e in v if e.get("type") == "stack_config") for u, v in events.items()
                          if any(e.get("type") == "stack_config" for _, e in v)}
            events = {u: v for u, v in events.items() if u in configured}
            # Days with stacks per person: a stretch past anyone's last day would be scored short.
            days = min((max(t for t, _ in v) - configured[u]).days + 1 for u, v in events.items())
            if max(l for _, l in stretches) > days:
                raise SystemExit("%s: --days %r goes past day %d, the last day every person of %s has"
                                 % (persona, a.days, days, os.path.basename(names[0])))
            # One evaluation per stretch start whose history differs: the whole set for `full` (and day 1).
            curves = {}
            for f, _ in stretches:
                k = 0 if a.history == "full" else f - 1
                if k not in curves:
                    data, ground = names if k == 0 else cut(events, truth, configured, k, a.history, work)
                    curves[k] = by_day(a.smartstack, data, ground, a.policy)
            row = {}
            for f, l in stretches:
                c = pooled(curves[0 if a.history == "full" else f - 1], f, l, a.policy)
                if c is None or not c["decisions_with_target"]:
                    raise SystemExit("%s: no decision on %s: its people have fewer days" % (persona, label(f, l)))
                c["baseline_ahead"] = any((figure(c, b) or 0) > (figure(c, a.policy) or 0) for b in BASELINES)
                row[label(f, l)] = c
            reaches = {p["name"]: p["reaches_day"] for p in curves[0]["policies"]} if 0 in curves else None
            results[persona] = row
            if reaches is not None:
                reaches_day[persona] = reaches
            lines.append("| %s | " % persona + " | ".join(
                ("%.2f" % row[k][key] if row[k][key] is not None else "—") + ("*" if row[k]["baseline_ahead"] else "") for k in row)
                + " | %s |" % ("—" if reaches is None else (reaches.get(a.policy) or "never")))
            print(lines[-1], flush=True)
    with open(out_path, "w") as f:
        json.dump(dict(results, reaches_day=reaches_day), f, indent=1)
    print("\n".join(lines))
    print("wrote %s" % out_path)


if __name__ == "__main__":
    sys.exit(main())
