#!/usr/bin/env python3
"""What exploring costs and what it buys: the default policy with `explore=E` (a share E of its
decisions shows, at random, another widget whose score is within `explore_margin` of the best,
with its propensity) against the same policy without exploration.

For each exploration setting:
  - the price: counterfactual engagement per decision lost against `explore=0`, on every persona's
    28-day set of the given seeds (warm-up 7 days, the time-of-day logger), with the paired 95%
    interval from `smartstack evaluate --reference`; the worst persona and the mean;
  - what it buys: a week of one person's log written by the engine itself exploring at that
    setting (`smartstack generate --logger engine --logger-policy ...`), and the off-policy
    estimates of other policies (the four counting baselines) from that log alone: the mean width
    of their doubly robust 95% intervals, and how many of those intervals hold the truth's value
    (counterfactual engagement plus the display lift), since a log that never shows a widget
    cannot say what showing it would have earned.

Standard library only; needs the release `smartstack`.

    python3 Benchmarks/quality/exploration.py --out .build/exploration
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PERSONAS = ("commuter", "student", "shiftworker", "traveler", "drift", "sequence", "structureless")
BASELINES = ("mfu", "mru", "frecency", "time-of-day")
SETTINGS = ((0.0, 1.0), (0.02, 1.0), (0.05, 1.0), (0.1, 1.0), (0.2, 1.0), (0.05, 3.0), (0.1, 3.0), (0.1, 20.0))
PRICE = 0.005


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise RuntimeError("failed (%d): %s\n%s" % (proc.returncode, " ".join(cmd), proc.stderr.strip()))
    return proc.stdout


def spec(explore, margin):
    return "contextual" if explore == 0 else "contextual:explore=%g,explore_margin=%g" % (explore, margin)


def price(bin_, data, persona, settings, bootstrap):
    """Every setting's counterfactual engagement minus explore=0's on one persona's set."""
    names = ["contextual"] + [spec(e, m) for e, m in settings]
    out = run([bin_, "evaluate", os.path.join(data, persona + ".jsonl"), "--policies", ",".join(names),
               "--reference", "contextual", "--warmup-days", "7", "--bootstrap", str(bootstrap), "--json", "--quiet",
               "--threads", "1"])
    report = json.loads(out)
    if report.get("measure") != "counterfactual":
        raise SystemExit("%s: no counterfactual measure (is its truth file beside it?)" % persona)
    result = {}
    for p in report["policies"]:
        if p["name"] == "contextual":
            continue
        d = p["paired"]
        result[p["name"]] = {"difference": d["difference"]["counterfactual_engagement"],
                             "ci": d["ci"]["counterfactual_engagement"]}
    return result


def support(bin_, work, setting, seeds, days, bootstrap):
    """What a week of one person's log, logged by the engine at `setting`, tells of the baselines."""
    explore, margin = setting
    widths, covered, total = [], 0, 0
    for persona in PERSONAS:
        for seed in seeds:
            path = os.path.join(work, "log-%s-%g-%g-%d.jsonl" % (persona, explore, margin, seed))
            run([bin_, "generate", "--persona", persona, "--days", str(days), "--users", "1", "--seed", str(seed),
                 "--logger", "engine", "--logger-policy", spec(explore, margin), "--out", path])
            report = json.loads(run([bin_, "evaluate", path, "--policies", ",".join(BASELINES), "--warmup-days", "0",
                                     "--bootstrap", str(bootstrap), "--json", "--quiet", "--threads", "1"]))
            lift = report["truth"]["display_lift"]
            for p in report["policies"]:
                dr = ((p.get("ope") or {}).get("estimates") or {}).get("dr")
                if not dr or not dr.get("ci"):
                    continue
                truth = p["metrics"]["counterfactual_engagement"] + lift
                widths.append(dr["ci"][1] - dr["ci"][0])
                covered += dr["ci"][0] <= truth <= dr["ci"][1]
                total += 1
    return {"mean_width": sum(widths) / len(widths) if widths else None, "covered": covered, "pairs": total}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smartstack", default=os.path.join(REPO, ".build", "release", "smartstack"))
    ap.add_argument("--seeds", default="1,2", help="seeds of the sets (tuning seeds by default)")
    ap.add_argument("--users", type=int, default=4)
    ap.add_argument("--days", type=int, default=28)
    ap.add_argument("--log-days", type=int, default=7, help="days of the one-person logs (default a week)")
    ap.add_argument("--bootstrap", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", default=os.path.join(REPO, ".build", "exploration"))
    a = ap.parse_args()
    bin_ = os.path.abspath(a.smartstack)
    if not os.access(bin_, os.X_OK):
        raise SystemExit("smartstack binary not found at %s: run 'swift build -c release --product smartstack'" % bin_)
    seeds = [int(s) for s in a.seeds.split(",")]
    work = os.path.join(a.out, "data")
    os.makedirs(work, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        # One set per persona: its seeds' people together.
        def make(persona):
            path = os.path.join(work, persona + ".jsonl")
            parts = []
            for seed in seeds:
                part = os.path.join(work, "%s.s%d.jsonl" % (persona, seed))
                run([bin_, "generate", "--persona", persona, "--days", str(a.days), "--users", str(a.users), "--seed", str(seed),
                     "--out", part])
                parts.append(part)
            for kind in ("", ".truth"):
                with open(path[:-6] + kind + ".jsonl", "w") as out:
                    for seed, part in zip(seeds, parts):
                        with open(part[:-6] + kind + ".jsonl") as f:
                            for line in f:
                                out.write(line.replace('"user":"', '"user":"s%d/' % seed, 1))
        list(pool.map(make, PERSONAS))
        prices = dict(zip(PERSONAS, pool.map(lambda p: price(bin_, work, p, SETTINGS[1:], a.bootstrap), PERSONAS)))
        supports = dict(zip(SETTINGS, pool.map(lambda s: support(bin_, work, s, seeds, a.log_days, a.bootstrap), SETTINGS)))
    lines = ["# Exploration: its price and what it buys", "",
             "Seeds %s; price on %d-day sets of %d people per seed (warm-up 7, time-of-day logger); support on %d-day logs "
             "of one person per persona and seed, logged by the engine itself." % (a.seeds, a.days, a.users, a.log_days), "",
             "| explore | margin | mean price | worst price [95%% CI] (persona) | price <= %.3f everywhere | DR interval width | DR covers the truth |"
             % PRICE, "|---:|---:|---:|---:|---|---:|---:|"]
    rows = []
    for setting in SETTINGS:
        name = spec(*setting)
        s = supports[setting]
        if setting[0] == 0:
            mean = worst = 0.0
            worst_ci, worst_persona, ok = [0.0, 0.0], "—", True
        else:
            diffs = {p: -prices[p][name]["difference"] for p in PERSONAS}
            mean = sum(diffs.values()) / len(diffs)
            worst_persona = max(diffs, key=diffs.get)
            worst = diffs[worst_persona]
            ci = prices[worst_persona][name]["ci"]
            worst_ci = [-ci[1], -ci[0]]
            ok = all(d <= PRICE for d in diffs.values())
        rows.append({"explore": setting[0], "margin": setting[1], "mean_price": mean, "worst_price": worst,
                     "worst_persona": worst_persona, "worst_ci": worst_ci, "within_price": ok, **s})
        lines.append("| %g | %g | %+.4f | %+.4f [%+.4f, %+.4f] (%s) | %s | %s | %d of %d |" % (
            setting[0], setting[1], mean, worst, worst_ci[0], worst_ci[1], worst_persona, "yes" if ok else "**no**",
            "%.4f" % s["mean_width"] if s["mean_width"] is not None else "—", s["covered"], s["pairs"]))
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(a.out, "exploration.md"), "w") as f:
        f.write(text)
    with open(os.path.join(a.out, "exploration.json"), "w") as f:
        json.dump({"seeds": seeds, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
