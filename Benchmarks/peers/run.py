#!/usr/bin/env python3
"""SmartStack side by side with its peers on the same decision stream.

For each dataset: `smartstack export-decisions` writes the evaluator's decision stream (one line
per decision point and stack, SmartStack's features from the past only, the engaged target);
this script feeds that stream online and in order (predict, then learn) to Vowpal Wabbit
`cb_explore_adf`, River (online logistic regression, one-vs-rest over candidates), mabwiser
(LinUCB and Thompson sampling), and trains scikit-learn logistic regression offline on the first
half as a ceiling. SmartStack's default policy runs in the same run (`smartstack evaluate`),
and the oracle on simulated sets. Writes <out>/<dataset>.md/.json and <out>/summary.md/.json.

Usage: python run.py --smartstack .build/release/smartstack [--out .build/peers] [--new-personas]
                     [--warmup-days N] [datasets...]
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import time

import numpy as np

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
STUDENTLIFE = [
    os.path.join(REPO, "..", "shared", "datasets", "studentlife_small", "foreground_snapshots_u00_u01_u02.csv"),
    os.path.join(REPO, "..", "shared", "datasets", "studentlife_small", "gps_u00_u01_u02.csv"),
]
SEED = 0
# The datasets of a run without arguments: the five personas the peers were first compared on.
DEFAULT_PERSONAS = ("commuter", "drift", "shiftworker", "student", "traveler")
# The personas added for issue 14 (`--new-personas`), with the warm-up each is scored after:
# the cohort is one day of six people, scored from its first decision.
NEW_PERSONAS = (("sequence", None), ("structureless", None), ("shiftworker-change-only", None), ("cohort", 0))
EPSILON = 0.05          # VW exploration, a common default; not tuned
HIT_TARGET_NOTE = "hit@1 >= SmartStack"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, **kw):
    log("$ " + " ".join(cmd))
    return subprocess.run(cmd, check=True, **kw)


# ----------------------------------------------------------------------------- the stream

def load_stream(path):
    rows = []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            t = r["time"]
            hh, mm = int(t[11:13]), int(t[14:16])
            angle = 2 * math.pi * (hh * 60 + mm) / 1440
            # Day of week from the local date (Zeller-free: numpy datetime64 is UTC-agnostic on dates).
            dow = (np.datetime64(t[:10]).astype("datetime64[D]").astype(int) + 3) % 7  # 0 = Monday
            r["shared"] = {"hour_sin": math.sin(angle), "hour_cos": math.cos(angle), "weekend": 1.0 if dow >= 5 else 0.0}
            feats = r["features"]
            r["features"] = [[0.0 if v is None else float(v) for v in fv] for fv in feats]
            el = [i for i, e in enumerate(r["eligible"]) if e]
            r["pool"] = el if el else list(range(len(r["candidates"])))
            r["tset"] = set(r["target"]) if r["target"] else None
            rows.append(r)
    return rows


def candidate_dict(r, i):
    """The features every peer sees for candidate i: SmartStack's features, the widget's id, and
    the widget's id crossed with the shared time context (so a linear model can learn per-widget
    time-of-day preferences on its own)."""
    w = r["candidates"][i]
    d = {"f%d" % k: v for k, v in enumerate(r["features"][i])}
    d["w=" + w] = 1.0
    for k, v in r["shared"].items():
        d["w=%s*%s" % (w, k)] = v
        d[k] = v
    return d


def ranking_from_scores(r, scores):
    """Pool candidates by score (ties: configured order), then the ineligible ones."""
    pool = r["pool"]
    order = sorted(pool, key=lambda i: (-scores[i], i))
    rest = [i for i in range(len(r["candidates"])) if i not in pool]
    return order + rest


def tally(rows, rankings):
    n = hits = 0
    rr = 0.0
    for r, order in zip(rows, rankings):
        if not r["scored"] or r["tset"] is None:
            continue
        n += 1
        names = [r["candidates"][i] for i in order]
        rank = next((k + 1 for k, w in enumerate(names) if w in r["tset"]), None)
        if rank == 1:
            hits += 1
        if rank:
            rr += 1.0 / rank
    return {"n": n, "hit_at_1": hits / n if n else None, "mrr": rr / n if n else None}


def load_truth(path):
    """The truth file's value of each widget per decision, (user, time, stack) -> {widget: p}:
    its `intent` (what the person came for), or `distribution` on lines without one."""
    values = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                r = json.loads(line)
            except ValueError as e:
                raise SystemExit("%s:%d: not a JSON object (%s)" % (path, number, e))
            values[(r["user"], r["time"], r["stack"])] = r.get("intent") or r["distribution"]
    return values


def counterfactual(rows, rankings, truth):
    """Counterfactual engagement of `rankings`' tops: the mean over scored decisions with a truth
    line of the truth's value of the top (what `smartstack evaluate --truth` reports)."""
    n, total = 0, 0.0
    for r, order in zip(rows, rankings):
        line = truth.get((r["user"], r["time"], r["stack"])) if r["scored"] else None
        if line is None:
            continue
        n += 1
        total += line.get(r["candidates"][order[0]], 0.0) if order else 0.0
    return total / n if n else None


def paired_counterfactual(rows, rankings, base_rankings, truth, resamples=1000, seed=SEED):
    """Counterfactual engagement of `rankings` minus `base_rankings` on the same decisions, with a
    95% interval from a seeded bootstrap over user-days."""
    groups = {}
    for r, a, b in zip(rows, rankings, base_rankings):
        line = truth.get((r["user"], r["time"], r["stack"])) if r["scored"] else None
        if line is None:
            continue
        g = groups.setdefault((r["user"], r["time"][:10]), [0.0, 0.0, 0])
        g[0] += line.get(r["candidates"][a[0]], 0.0)
        g[1] += line.get(r["candidates"][b[0]], 0.0)
        g[2] += 1
    if not groups:
        return None
    m = np.array(list(groups.values()), dtype=float)
    diff = (m[:, 0].sum() - m[:, 1].sum()) / m[:, 2].sum()
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(m), size=(resamples, len(m)))
    sample = (m[idx, 0].sum(1) - m[idx, 1].sum(1)) / m[idx, 2].sum(1)
    lo, hi = np.percentile(sample, [2.5, 97.5])
    return {"difference": float(diff), "ci95": [float(lo), float(hi)]}


def paired_difference(rows, rankings, base_rankings, resamples=1000, seed=SEED):
    """hit@1 of `rankings` minus hit@1 of `base_rankings` on the same decisions, with a 95%
    percentile interval from a seeded bootstrap over user-days (decisions of one person on one
    local day move together, as in `smartstack evaluate`)."""
    groups = {}
    for r, a, b in zip(rows, rankings, base_rankings):
        if not r["scored"] or r["tset"] is None:
            continue
        g = groups.setdefault((r["user"], r["time"][:10]), [0, 0, 0])
        g[0] += r["candidates"][a[0]] in r["tset"]
        g[1] += r["candidates"][b[0]] in r["tset"]
        g[2] += 1
    if not groups:
        return None
    m = np.array(list(groups.values()), dtype=float)
    diff = (m[:, 0].sum() - m[:, 1].sum()) / m[:, 2].sum()
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(m), size=(resamples, len(m)))
    sample = (m[idx, 0].sum(1) - m[idx, 1].sum(1)) / m[idx, 2].sum(1)
    lo, hi = np.percentile(sample, [2.5, 97.5])
    return {"difference": float(diff), "ci95": [float(lo), float(hi)]}


def smartstack_from_export(rows, key="order"):
    """SmartStack's tally from the export: `order` is the default policy's display order (its
    scorer's ranking after the rotation policy: dwell, hysteresis, swipe hold...), `ranking` the
    scorer's own ranking at the decision, as the peers' rankings are."""
    rankings = []
    for r in rows:
        idx = {w: i for i, w in enumerate(r["candidates"])}
        rankings.append([idx[w] for w in r[key]])
    return tally(rows, rankings), rankings


# ----------------------------------------------------------------------------- peers

def safe(s):
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in s)


def vw_peer(rows):
    import vowpalwabbit
    models = {}
    rng = random.Random(SEED)
    rankings = []
    start = time.perf_counter()
    for r in rows:
        user = r["user"]
        if user not in models:
            models[user] = vowpalwabbit.Workspace(
                "--cb_explore_adf --epsilon %g -q sa --random_seed %d --quiet" % (EPSILON, SEED))
        vw = models[user]
        pool = r["pool"]
        sh = r["shared"]
        shared = "shared |s hour_sin:%.6f hour_cos:%.6f weekend:%g stack_%s" % (sh["hour_sin"], sh["hour_cos"], sh["weekend"], safe(r["stack"]))
        lines = []
        for i in pool:
            fs = " ".join("f%d:%.6g" % (k, v) for k, v in enumerate(r["features"][i]))
            lines.append("|a w_%s %s" % (safe(r["candidates"][i]), fs))
        pmf = vw.predict([shared] + lines)
        scores = [0.0] * len(r["candidates"])
        for j, i in enumerate(pool):
            scores[i] = pmf[j]
        rankings.append(ranking_from_scores(r, scores))
        # Act by sampling the pmf, learn the engagement of the shown widget (cost -1 if engaged).
        u = rng.random()
        chosen = len(pool) - 1
        for j, p in enumerate(pmf):
            u -= p
            if u < 0:
                chosen = j
                break
        reward = 1.0 if r["tset"] and r["candidates"][pool[chosen]] in r["tset"] else 0.0
        labelled = list(lines)
        labelled[chosen] = "0:%g:%g %s" % (-reward, max(pmf[chosen], 1e-6), lines[chosen])
        vw.learn([shared] + labelled)
    elapsed = time.perf_counter() - start
    for vw in models.values():
        vw.finish()
    return rankings, elapsed


def river_peer(rows):
    from river import linear_model
    models = {}
    rankings = []
    start = time.perf_counter()
    for r in rows:
        m = models.get(r["user"])
        if m is None:
            m = models[r["user"]] = linear_model.LogisticRegression()
        dicts = {i: candidate_dict(r, i) for i in r["pool"]}
        scores = [0.0] * len(r["candidates"])
        for i, d in dicts.items():
            scores[i] = m.predict_proba_one(d).get(True, 0.0)
        rankings.append(ranking_from_scores(r, scores))
        if r["tset"] is not None:
            for i, d in dicts.items():
                m.learn_one(d, r["candidates"][i] in r["tset"])
    return rankings, time.perf_counter() - start


def mabwiser_peer(rows, kind):
    from mabwiser.mab import MAB, LearningPolicy
    models = {}
    rankings = []
    start = time.perf_counter()
    for r in rows:
        cands = r["candidates"]
        key = (r["user"], r["stack"], tuple(cands))
        entry = models.get(key)
        if entry is None:
            policy = LearningPolicy.LinUCB(alpha=1.0) if kind == "linucb" else LearningPolicy.ThompsonSampling()
            entry = models[key] = {"mab": MAB(arms=list(cands), learning_policy=policy, seed=SEED), "fitted": False}
        mab = entry["mab"]
        ctx = None
        if kind == "linucb":
            ctx = np.array([[v for fv in r["features"] for v in fv] + list(r["shared"].values())])
        scores = [0.0] * len(cands)
        if entry["fitted"]:
            exp = mab.predict_expectations(ctx) if ctx is not None else mab.predict_expectations()
            if isinstance(exp, list):
                exp = exp[0]
            for i in r["pool"]:
                scores[i] = exp[cands[i]]
        order = ranking_from_scores(r, scores)
        rankings.append(order)
        shown = cands[order[0]]
        reward = 1 if r["tset"] and shown in r["tset"] else 0
        if entry["fitted"]:
            mab.partial_fit([shown], [reward], ctx) if ctx is not None else mab.partial_fit([shown], [reward])
        else:
            mab.fit([shown], [reward], ctx) if ctx is not None else mab.fit([shown], [reward])
            entry["fitted"] = True
    return rankings, time.perf_counter() - start


def sklearn_ceiling(rows):
    """Offline ceiling: per user, the first half of the decisions (time order) trains one pooled
    logistic regression (user-specific widget features), the second half tests it."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    by_user = {}
    for k, r in enumerate(rows):
        by_user.setdefault(r["user"], []).append(k)
    train, test = [], []
    for ks in by_user.values():
        h = len(ks) // 2
        train += ks[:h]
        test += ks[h:]

    def dicts(k):
        r = rows[k]
        out = []
        for i in r["pool"]:
            d = candidate_dict(r, i)
            d = {("u=%s|%s" % (r["user"], n) if n.startswith("w=") else n): v for n, v in d.items()}
            out.append((i, d))
        return out

    X, y = [], []
    for k in train:
        r = rows[k]
        if r["tset"] is None:
            continue
        for i, d in dicts(k):
            X.append(d)
            y.append(1 if r["candidates"][i] in r["tset"] else 0)
    start = time.perf_counter()
    vec = DictVectorizer()
    Xm = vec.fit_transform(X)
    model = LogisticRegression(max_iter=2000)
    model.fit(Xm, y)
    test_rows, rankings = [], []
    for k in test:
        r = rows[k]
        ds = dicts(k)
        p = model.predict_proba(vec.transform([d for _, d in ds]))[:, 1]
        scores = [0.0] * len(r["candidates"])
        for (i, _), v in zip(ds, p):
            scores[i] = v
        test_rows.append(r)
        rankings.append(ranking_from_scores(r, scores))
    elapsed = time.perf_counter() - start
    return test_rows, rankings, elapsed


# ----------------------------------------------------------------------------- one dataset

def evaluate(bin_, dataset, policies, extra=(), warmup=None):
    cmd = [bin_, "evaluate", dataset, "--policies", policies, "--json", "--bootstrap", "0", "--threads", "1", "--quiet", *extra]
    if warmup is not None:
        cmd += ["--warmup-days", str(warmup)]
    start = time.perf_counter()
    out = run(cmd, stdout=subprocess.PIPE).stdout
    elapsed = time.perf_counter() - start
    report = json.loads(out)
    return {p["name"]: p["metrics"] for p in report["policies"]}, elapsed


def fmt(v, digits=3):
    return "—" if v is None else ("%.*f" % (digits, v))


def bench_dataset(bin_, name, dataset, truth, out_dir, warmup=None):
    """`warmup`: days not scored (None: the evaluator's default, 7)."""
    export = os.path.join(out_dir, name + ".decisions.jsonl")
    warm = [] if warmup is None else ["--warmup-days", str(warmup)]
    proc = run([bin_, "export-decisions", dataset, "--out", export, "--time-replay", *warm], stderr=subprocess.PIPE, text=True)
    sys.stderr.write(proc.stderr)
    replay_line = [l for l in proc.stderr.splitlines() if l.startswith("replay of ")][-1]
    replay_seconds = float(replay_line.split(" in ")[-1].split(" ")[0])
    rows = load_stream(export)
    values = load_truth(truth) if truth else {}
    ss, ss_rankings = smartstack_from_export(rows)
    # SmartStack's own run: the evaluator on the same data, default policy alone, one thread,
    # timed end to end (process start, JSONL parsing, replay of every event, metrics).
    metrics, ss_seconds = evaluate(bin_, dataset, "contextual", ["--truth", truth] if truth else [], warmup=warmup)
    m = metrics["contextual"]
    consistent = (m["decisions_with_target"] == ss["n"] and abs(m["hit_at_1"] - ss["hit_at_1"]) < 1e-12
                  and abs(m["mrr"] - ss["mrr"]) < 1e-9)
    if values:
        mine = counterfactual(rows, ss_rankings, values)
        consistent = consistent and m.get("counterfactual_engagement") is not None and abs(m["counterfactual_engagement"] - mine) < 1e-9
    if not consistent:
        raise SystemExit("%s: export disagrees with evaluate: evaluate %s, export %s" % (name, m, ss))
    # Decisions per second: the policy's own replay of the parsed events (every event recorded,
    # every decision decided), as the peers are timed on their predict + learn loop; the
    # end-to-end process rate (parse, replay, metrics, off-policy estimates) is shown beside it.
    ss_rate = len(rows) / replay_seconds
    e2e_rate = len(rows) / ss_seconds
    scorer, scorer_rankings = smartstack_from_export(rows, "ranking")
    results = [{"method": "SmartStack contextual (default; end to end incl. parsing: {:,.0f}/s)".format(e2e_rate), "kind": "smartstack",
                "hit_at_1": m["hit_at_1"], "mrr": m["mrr"], "decisions_per_second": ss_rate,
                "end_to_end_decisions_per_second": e2e_rate, "n": ss["n"]},
               {"method": "SmartStack contextual scorer alone (no rotation policy, like the peers)", "kind": "smartstack-scorer",
                "hit_at_1": scorer["hit_at_1"], "mrr": scorer["mrr"], "decisions_per_second": ss_rate, "n": scorer["n"],
                "paired_vs_smartstack": paired_difference(rows, scorer_rankings, ss_rankings)}]
    # Where the data has a truth file, every method is also read as the person would have lived
    # it: the counterfactual engagement of its own top, paired against SmartStack's.
    if values:
        results[0]["counterfactual"] = counterfactual(rows, ss_rankings, values)
        results[1]["counterfactual"] = counterfactual(rows, scorer_rankings, values)
        results[1]["cf_paired_vs_smartstack"] = paired_counterfactual(rows, scorer_rankings, ss_rankings, values)
    peers = [("Vowpal Wabbit cb_explore_adf", "vw", lambda: vw_peer(rows)),
             ("River logistic regression (one-vs-rest)", "river", lambda: river_peer(rows)),
             ("mabwiser LinUCB", "linucb", lambda: mabwiser_peer(rows, "linucb")),
             ("mabwiser Thompson sampling", "ts", lambda: mabwiser_peer(rows, "ts"))]
    for label, kind, fn in peers:
        log("%s: %s ..." % (name, label))
        rankings, seconds = fn()
        t = tally(rows, rankings)
        results.append({"method": label, "kind": kind, "hit_at_1": t["hit_at_1"], "mrr": t["mrr"],
                        "decisions_per_second": len(rows) / seconds, "n": t["n"],
                        "paired_vs_smartstack": paired_difference(rows, rankings, ss_rankings),
                        "paired_vs_scorer": paired_difference(rows, rankings, scorer_rankings)})
        if values:
            results[-1]["counterfactual"] = counterfactual(rows, rankings, values)
            results[-1]["cf_paired_vs_smartstack"] = paired_counterfactual(rows, rankings, ss_rankings, values)
    log("%s: scikit-learn ceiling ..." % name)
    test_rows, rankings, _ = sklearn_ceiling(rows)
    t = tally(test_rows, rankings)
    ss_half, _ = smartstack_from_export(test_rows)
    results.append({"method": "scikit-learn logistic regression (offline, 2nd half; SmartStack there: hit@1 %s, MRR %s)"
                    % (fmt(ss_half["hit_at_1"]), fmt(ss_half["mrr"])), "kind": "sklearn",
                    "hit_at_1": t["hit_at_1"], "mrr": t["mrr"], "decisions_per_second": None, "n": t["n"],
                    "smartstack_same_rows": ss_half})
    if truth:
        om, _ = evaluate(bin_, dataset, "oracle", ["--truth", truth], warmup=warmup)
        o = om["oracle"]
        results.append({"method": "oracle (ground truth, ceiling)", "kind": "oracle", "hit_at_1": o["hit_at_1"], "mrr": o["mrr"],
                        "decisions_per_second": None, "n": o["decisions_with_target"],
                        "counterfactual": o.get("counterfactual_engagement")})

    base = results[0]
    online = [r for r in results if r["kind"] in ("vw", "river", "linucb", "ts")]
    best = max(online, key=lambda r: r["hit_at_1"] or 0)
    for r in results:
        r["hit_ratio"] = r["hit_at_1"] / base["hit_at_1"] if r["hit_at_1"] is not None and base["hit_at_1"] else None
        r["mrr_ratio"] = r["mrr"] / base["mrr"] if r["mrr"] is not None and base["mrr"] else None
        r["speed_ratio"] = r["decisions_per_second"] / base["decisions_per_second"] if r["decisions_per_second"] else None
        notes = []
        if r["kind"] in ("smartstack", "smartstack-scorer"):
            ok = r["hit_at_1"] >= best["hit_at_1"]
            notes.append("%s: hit@1 >= best online peer (%s %.3f)%s" % ("yes" if ok else "NO", best["method"].split(" ")[0], best["hit_at_1"],
                                                                       "" if r["kind"] == "smartstack" else ", like for like"))
            r["target_met"] = ok
        elif r["kind"] in ("vw", "river"):
            need = 20 if r["kind"] == "vw" else 50
            speedup = base["decisions_per_second"] / r["decisions_per_second"]
            hit_ok = base["hit_at_1"] >= r["hit_at_1"]
            speed_ok = speedup >= need
            notes.append("%s: SmartStack %.1fx faster (need %dx)" % ("yes" if speed_ok else "NO", speedup, need))
            notes.append("%s: hit@1 not above SmartStack" % ("yes" if hit_ok else "NO"))
            r["target_met"] = hit_ok and speed_ok
        elif r["kind"] in ("linucb", "ts"):
            ok = base["hit_at_1"] >= r["hit_at_1"]
            notes.append("%s: hit@1 not above SmartStack" % ("yes" if ok else "NO"))
            r["target_met"] = ok
        else:
            notes.append("ceiling, no target")
            r["target_met"] = None
        r["target"] = "; ".join(notes)
    table = {"dataset": name, "source": os.path.relpath(dataset, REPO) if dataset.startswith(REPO) else dataset,
             **({} if warmup is None else {"warmup_days": warmup}),
             "decisions": len(rows), "scored_with_target": ss["n"], "users": len({r["user"] for r in rows}),
             "smartstack_export_matches_evaluate": consistent, "results": results}
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump(table, f, indent=2)
    md = markdown(table)
    with open(os.path.join(out_dir, name + ".md"), "w") as f:
        f.write(md)
    print(md, flush=True)
    return table


def markdown(table):
    warm = "" if "warmup_days" not in table else ", warm-up %d days" % table["warmup_days"]
    lines = ["### %s (%d decisions, %d scored with a target, %d users%s)" % (table["dataset"], table["decisions"], table["scored_with_target"], table["users"], warm), "",
             "| method | hit@1 | ×SmartStack | hit@1 − SmartStack [95% CI] | hit@1 − SmartStack scorer [95% CI] | MRR | ×SmartStack | decisions/s | ×SmartStack | target met |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    def paired(p, digits=3):
        return "%+.*f [%+.*f, %+.*f]" % (digits, p["difference"], digits, p["ci95"][0], digits, p["ci95"][1]) if p else "—"
    for r in table["results"]:
        rate = "—" if r["decisions_per_second"] is None else "{:,.0f}".format(r["decisions_per_second"])
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["method"], fmt(r["hit_at_1"]), fmt(r["hit_ratio"], 2), paired(r.get("paired_vs_smartstack")),
            paired(r.get("paired_vs_scorer")), fmt(r["mrr"]), fmt(r["mrr_ratio"], 2),
            rate, fmt(r["speed_ratio"], 4), r["target"]))
    if any(r.get("counterfactual") is not None for r in table["results"]):
        lines += ["", "Read as the person would have lived it (the truth file's intent of each method's own top; hit@1 "
                  "above credits whichever policy produced the log):", "",
                  "| method | counterfactual engagement | − SmartStack [95% CI] |", "|---|---:|---:|"]
        for r in table["results"]:
            if r.get("counterfactual") is not None:
                lines.append("| %s | %s | %s |" % (r["method"], fmt(r["counterfactual"], 4), paired(r.get("cf_paired_vs_smartstack"), 4)))
    return "\n".join(lines) + "\n"


def summary(tables, out_dir):
    kinds = [("smartstack", "SmartStack contextual"), ("smartstack-scorer", "SmartStack contextual scorer alone (no rotation policy)"),
             ("vw", "Vowpal Wabbit"), ("river", "River"), ("linucb", "mabwiser LinUCB"), ("ts", "mabwiser TS")]
    avg = {}
    for k, _ in kinds:
        vals = [r["hit_at_1"] for t in tables for r in t["results"] if r["kind"] == k]
        avg[k] = sum(vals) / len(vals)
    best_kind = max((k for k, _ in kinds[2:]), key=lambda k: avg[k])
    every = all(r["target_met"] for t in tables for r in t["results"] if r["kind"] == "smartstack")
    beats = avg["smartstack"] > avg[best_kind]
    every_scorer = all(r["target_met"] for t in tables for r in t["results"] if r["kind"] == "smartstack-scorer")
    beats_scorer = avg["smartstack-scorer"] > avg[best_kind]
    speed = {k: all(r["target_met"] is not False and base_speed_ok(t, r) for t in tables for r in t["results"] if r["kind"] == k) for k in ("vw", "river")}
    lines = ["## Summary over %d datasets" % len(tables), "",
             "| method | mean hit@1 |", "|---|---:|"]
    for k, label in kinds:
        lines.append("| %s | %.3f |" % (label, avg[k]))
    lines += ["",
              "- SmartStack matches the best online peer's hit@1 on every dataset: **%s**" % ("yes" if every else "NO"),
              "- SmartStack beats the best online peer (%s) on average: **%s** (%.3f vs %.3f)" % (dict(kinds)[best_kind], "yes" if beats else "NO", avg["smartstack"], avg[best_kind]),
              "- like for like (SmartStack's scorer without its rotation policy, as the peers are scored): matches the best online peer on every dataset: **%s**; beats it on average: **%s** (%.3f vs %.3f)" % (
                  "yes" if every_scorer else "NO", "yes" if beats_scorer else "NO", avg["smartstack-scorer"], avg[best_kind]),
              "- online peers ahead of SmartStack's default policy by more than chance (paired 95%% interval of the hit@1 difference above zero, bootstrap over user-days): %s" % significant(tables),
              "- online peers ahead of SmartStack's scorer alone by more than chance: %s" % significant(tables, "paired_vs_scorer"),
              "- decisions/s >= 20x Vowpal Wabbit's on every dataset: **%s**" % ("yes" if speed["vw"] else "NO"),
              "- decisions/s >= 50x River's on every dataset: **%s**" % ("yes" if speed["river"] else "NO"), ""]
    md = "\n".join(lines)
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write(md + "\n" + "\n".join(markdown(t) for t in tables))
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump({"mean_hit_at_1": avg, "best_online_peer": best_kind, "every_dataset": every, "beats_on_average": beats,
                   "scorer_every_dataset": every_scorer, "scorer_beats_on_average": beats_scorer,
                   "speed_vw_20x": speed["vw"], "speed_river_50x": speed["river"], "datasets": tables}, f, indent=2)
    print(md, flush=True)


def significant(tables, key="paired_vs_smartstack"):
    ahead = []
    for t in tables:
        for r in t["results"]:
            p = r.get(key)
            if r["kind"] in ("vw", "river", "linucb", "ts") and p and p["ci95"][0] > 0:
                ahead.append("%s on %s (%+.3f [%+.3f, %+.3f])" % (r["method"].split(" ")[0], t["dataset"], p["difference"], p["ci95"][0], p["ci95"][1]))
    return "; ".join(ahead) if ahead else "none"


def base_speed_ok(table, r):
    base = table["results"][0]["decisions_per_second"]
    need = 20 if r["kind"] == "vw" else 50
    return base / r["decisions_per_second"] >= need


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smartstack", default=os.path.join(REPO, ".build", "release", "smartstack"))
    ap.add_argument("--out", default=os.path.join(REPO, ".build", "peers"))
    ap.add_argument("--no-studentlife", action="store_true", help="skip the imported StudentLife users")
    ap.add_argument("--new-personas", action="store_true",
                    help="also the personas added for issue 14: %s (the cohort scored from its first day)" % ", ".join(n for n, _ in NEW_PERSONAS))
    ap.add_argument("--warmup-days", type=int, default=None,
                    help="days after each user's first event not scored (default: the evaluator's, 7)")
    ap.add_argument("datasets", nargs="*", help="JSONL datasets (default: the bundled personas %s and StudentLife)" % ", ".join(DEFAULT_PERSONAS))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    bin_ = os.path.abspath(a.smartstack)
    if not os.access(bin_, os.X_OK):
        raise SystemExit("smartstack binary not found at %s: run 'swift build -c release --product smartstack'" % bin_)
    bundled = lambda name: os.path.join(REPO, "Datasets", name + ".jsonl")
    datasets = [(p, a.warmup_days) for p in a.datasets] or [(bundled(n), a.warmup_days) for n in DEFAULT_PERSONAS]
    if a.new_personas:
        datasets += [(bundled(n), a.warmup_days if w is None else w) for n, w in NEW_PERSONAS]
    jobs = []
    for p, warmup in datasets:
        p = os.path.abspath(p)
        if not os.path.exists(p):
            raise SystemExit("dataset not found: %s" % p)
        truth = p[:-6] + ".truth.jsonl" if p.endswith(".jsonl") else None
        jobs.append((os.path.basename(p)[:-6] if p.endswith(".jsonl") else os.path.basename(p), p, truth if truth and os.path.exists(truth) else None, warmup))
    if not a.datasets and not a.no_studentlife:
        missing = [p for p in STUDENTLIFE if not os.path.exists(p)]
        if missing:
            raise SystemExit("StudentLife files missing: %s (pass --no-studentlife to skip)" % ", ".join(missing))
        sl = os.path.join(a.out, "studentlife.jsonl")
        run([bin_, "import", "studentlife", *STUDENTLIFE, "--out", sl])
        jobs.append(("studentlife", sl, None, a.warmup_days))
    tables = [bench_dataset(bin_, name, path, truth, a.out, warmup) for name, path, truth, warmup in jobs]
    summary(tables, a.out)


if __name__ == "__main__":
    main()
