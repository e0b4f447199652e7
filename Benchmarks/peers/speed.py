#!/usr/bin/env python3
"""Decisions per second of SmartStack, River and Vowpal Wabbit in one run, on the same stream.

For each dataset, `smartstack export-decisions` writes the evaluator's decision stream; River
(online logistic regression, one-vs-rest) and Vowpal Wabbit (`cb_explore_adf`) predict and learn
it in order, exactly as in `run.py` (the same code), timed on that loop over rows already in
memory. SmartStack is timed two ways on the same decisions:

- replay: its default policy's replay of the dataset's parsed events, one thread (every event
  recorded, every decision decided: `export-decisions --time-replay`), the counterpart of the
  peers' loop;
- end to end: the whole `smartstack evaluate <dataset> --policies contextual --threads 1
  --bootstrap 0` process, from the JSONL file to the report: process start, JSONL parsing,
  replay, metrics and off-policy estimates (the peers' JSON reading is not timed: this side of
  the comparison carries more than the other).

SmartStack's runs take hundredths of a second, so each is repeated (`--repeat`, best run kept);
the peers take seconds and run once. Writes <out>/speed.md and speed.json with a pooled row
(all decisions over all time) and the issue's targets: >= 50x River and >= 100x VW.

Usage: python speed.py --smartstack .build/release/smartstack [--out .build/peers] [--repeat 5] [datasets...]
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as peers  # noqa: E402  (the harness: the stream and the peers, shared)

TARGETS = {"river": 50, "vw": 100}


def smartstack_rates(bin_, dataset, export, repeat):
    """Best-of-`repeat` seconds of SmartStack's replay of parsed events and of the end-to-end
    `evaluate` process."""
    replay, e2e = [], []
    for _ in range(repeat):
        proc = peers.run([bin_, "export-decisions", dataset, "--out", export, "--time-replay"],
                         stderr=subprocess.PIPE, text=True)
        line = [l for l in proc.stderr.splitlines() if l.startswith("replay of ")][-1]
        replay.append(float(line.split(" in ")[-1].split(" ")[0]))
        start = time.perf_counter()
        peers.run([bin_, "evaluate", dataset, "--policies", "contextual", "--json", "--bootstrap", "0", "--threads", "1",
                   "--quiet"], stdout=subprocess.DEVNULL)
        e2e.append(time.perf_counter() - start)
    return min(replay), min(e2e)


def bench(bin_, dataset, out_dir, repeat):
    name = os.path.basename(dataset)[:-6] if dataset.endswith(".jsonl") else os.path.basename(dataset)
    export = os.path.join(out_dir, name + ".speed.decisions.jsonl")
    replay_s, e2e_s = smartstack_rates(bin_, dataset, export, repeat)
    rows = peers.load_stream(export)
    peers.log("%s: River ..." % name)
    _, river_s = peers.river_peer(rows)
    peers.log("%s: Vowpal Wabbit ..." % name)
    _, vw_s = peers.vw_peer(rows)
    return {"dataset": name, "decisions": len(rows), "seconds": {"smartstack_replay": replay_s, "smartstack_end_to_end": e2e_s,
                                                                 "river": river_s, "vw": vw_s}}


def rates(entry):
    return {k: entry["decisions"] / s for k, s in entry["seconds"].items()}


def markdown(entries, load):
    pooled = {"dataset": "**all, pooled**", "decisions": sum(e["decisions"] for e in entries),
              "seconds": {k: sum(e["seconds"][k] for e in entries) for k in entries[0]["seconds"]}}
    lines = ["Decisions per second on the same stream (SmartStack best of its runs; load average %s)" % load, "",
             "| dataset | decisions | SmartStack replay | SmartStack end to end (JSONL) | River | VW "
             "| ÷ River: replay / end to end | ÷ VW: replay / end to end |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for e in entries + [pooled]:
        r = rates(e)
        def ratio(peer):
            return "%.0f× / %.0f×" % (r["smartstack_replay"] / r[peer], r["smartstack_end_to_end"] / r[peer])
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
            e["dataset"], e["decisions"], *("{:,.0f}".format(r[k]) for k in ("smartstack_replay", "smartstack_end_to_end", "river", "vw")),
            ratio("river"), ratio("vw")))
    verdicts = []
    for peer, need in TARGETS.items():
        for mode in ("smartstack_replay", "smartstack_end_to_end"):
            worst = min(rates(e)[mode] / rates(e)[peer] for e in entries)
            verdicts.append("- %s ≥ %d× %s on every dataset (%s): **%s** (lowest %.0f×)" % (
                "SmartStack", need, {"river": "River", "vw": "Vowpal Wabbit"}[peer],
                "replay" if mode == "smartstack_replay" else "end to end, with JSONL parsing",
                "yes" if worst >= need else "NO", worst))
    return "\n".join(lines + [""] + verdicts) + "\n", pooled


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smartstack", default=os.path.join(peers.REPO, ".build", "release", "smartstack"))
    ap.add_argument("--out", default=os.path.join(peers.REPO, ".build", "peers"))
    ap.add_argument("--repeat", type=int, default=5, help="SmartStack runs per dataset, best kept (default 5)")
    ap.add_argument("datasets", nargs="*", help="JSONL datasets (default: the bundled personas %s)" % ", ".join(peers.DEFAULT_PERSONAS))
    a = ap.parse_args()
    if a.repeat < 1:
        raise SystemExit("--repeat must be at least 1")
    bin_ = os.path.abspath(a.smartstack)
    if not os.access(bin_, os.X_OK):
        raise SystemExit("smartstack binary not found at %s: run 'swift build -c release --product smartstack'" % bin_)
    datasets = [os.path.abspath(p) for p in a.datasets] or [os.path.join(peers.REPO, "Datasets", n + ".jsonl") for n in peers.DEFAULT_PERSONAS]
    for p in datasets:
        if not os.path.exists(p):
            raise SystemExit("dataset not found: %s" % p)
    os.makedirs(a.out, exist_ok=True)
    load = " ".join(open("/proc/loadavg").read().split()[:3]) if os.path.exists("/proc/loadavg") else "?"
    entries = [bench(bin_, p, a.out, a.repeat) for p in datasets]
    md, pooled = markdown(entries, load)
    with open(os.path.join(a.out, "speed.md"), "w") as f:
        f.write(md)
    with open(os.path.join(a.out, "speed.json"), "w") as f:
        json.dump({"load_average": load, "repeat": a.repeat, "datasets": entries, "pooled": pooled,
                   "rates": {e["dataset"]: rates(e) for e in entries + [pooled]}}, f, indent=2)
    print(md, flush=True)


if __name__ == "__main__":
    main()
