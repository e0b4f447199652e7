#!/usr/bin/env python3
"""A host-supplied population prior, validated leave-people-out (issue 34, part 3).

The prior is learnt by `smartstack prior learn` from some people and handed to the engine of
others, never the same people (`smartstack evaluate --prior`). Each row evaluates people's FIRST
DAY (warm-up 0, the data cut to the day: one-day simulations, or each real person's first 24
hours) with the default policy taking the prior (`contextual`) against the same policy ignoring
it (`contextual:population=0`), with the evaluator's paired bootstrap interval over user-days:

- `lpo`: simulated people of one persona, their prior learnt on the people of every OTHER
  persona (`smartstack generate`, the same seeds): a population that does not contain their
  kind of person;
- `seed`: simulated people of one persona, their prior learnt on people of the same persona
  from the OTHER seed (different simulated people);
- `studentlife`: the real StudentLife recording, three people: each in turn is evaluated on
  their first day with a prior learnt on the other two (so `--min-people 2`: with three people a
  prior of five cannot exist; a real host keeps the default of 5 or more). Each person's stack
  is the importer's (their six most launched apps of their first week), configured at their first
  event so that the first day is a cold start; the stack's composition is the only thing taken
  from later than day 1. No ground truth: hit@1 against the person's own launches (nothing was
  displayed, so no logging policy favours either side). The recording is sparse (2 to 18 launches
  on a person's first day), so the first week (days 1-7, warm-up 0) is evaluated too.

Simulated rows report counterfactual engagement (the truth's probability that the policy's own
top is what the person came for) and its ratio to the ceiling. The targets checked (issue 34):
the prior never costs a row beyond chance (its paired interval's upper end below zero), and it
lifts the mean of the day-1 figure over the leave-people-out rows.

Python 3 standard library only.

    swift build -c release --product smartstack
    python3 Benchmarks/quality/prior_lpo.py --out .build/prior-lpo            # seeds 1, 2
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import subprocess
import sys

from run import PERSONAS, REPO, STUDENTLIFE, log, run

WITH, WITHOUT = "contextual", "contextual:population=0"


def generate(binary, persona, days, users, seed, path):
    if not os.path.exists(path):
        run([binary, "generate", "--persona", persona, "--days", str(days), "--users", str(users), "--seed", str(seed),
             "--out", path])
    return path


def learn(binary, logs, path, min_people):
    """Learns a prior from `logs`; returns its path and the learner's summary (its first line on
    stderr: people read, widgets, apps and cells kept)."""
    cmd = [binary, "prior", "learn"] + logs + ["-o", path, "--min-people", str(min_people)]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise RuntimeError("failed (%d): %s\n%s" % (proc.returncode, " ".join(cmd), proc.stderr.strip()))
    return path, (proc.stderr.strip().splitlines() or [""])[0]


def evaluate(binary, data, truth, prior, bootstrap):
    """The paired comparison of the policy with and without the prior on all of `data` (warm-up
    0); `None` when the data holds no decision point."""
    cmd = [binary, "evaluate", data, "--prior", prior, "--policies", WITH + "," + WITHOUT, "--reference", WITHOUT,
           "--warmup-days", "0", "--bootstrap", str(bootstrap), "--json", "--quiet"]
    cmd += ["--truth", truth] if truth else []
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0 and "has no decision points" in proc.stderr:
        return None
    if proc.returncode != 0:
        raise RuntimeError("failed (%d): %s\n%s" % (proc.returncode, " ".join(cmd), proc.stderr.strip()))
    report = json.loads(proc.stdout)
    policies = {p["name"]: p for p in report["policies"]}
    measure = "counterfactual_engagement" if truth else "hit_at_1"
    with_, without = policies[WITH], policies[WITHOUT]
    row = {
        "measure": measure,
        "users": report["dataset"]["users_evaluated"],
        "decisions": with_["metrics"]["decisions_with_truth" if truth else "decisions_with_target"],
        "with": with_["metrics"][measure],
        "without": without["metrics"][measure],
        "difference": with_["paired"]["difference"][measure],
        "ci": with_["paired"]["ci"][measure],
    }
    if truth:
        row["ceiling"] = with_["metrics"]["ceiling"]
        row["with_ratio"] = with_["metrics"]["ceiling_ratio"]
        row["without_ratio"] = without["metrics"]["ceiling_ratio"]
    return row


def simulated_rows(args, out, jobs):
    """Generates the people, learns the priors, evaluates every simulated row."""
    data = os.path.join(out, "data")
    os.makedirs(data, exist_ok=True)
    personas = args.personas
    L = args.learn_users
    files = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = {}
        for seed in args.seeds:
            for p in personas + [q for q in PERSONAS if q not in personas and args.lpo_population == "all"]:
                futures[pool.submit(generate, args.smartstack, p, args.learn_days, L, seed,
                                    os.path.join(data, "%s-s%d-learn.jsonl" % (p, seed)))] = ("learn", p, seed)
            for p in personas:
                # Users 0..L-1 of each seed are learners: the tested people are L.. (never the same index).
                futures[pool.submit(generate, args.smartstack, p, 1, L + args.test_users, seed,
                                    os.path.join(data, "%s-s%d-day1.jsonl" % (p, seed)))] = ("test", p, seed)
        for f in concurrent.futures.as_completed(futures):
            files[futures[f]] = People(f.result(), futures[f][2], first_index=L if futures[f][0] == "test" else 0)
    population = sorted({p for kind, p, _ in files if kind == "learn"})
    # The priors: one per persona left out (every seed's people of the other personas), one per
    # persona and seed (that persona's people of the other seed).
    jobs_list = []
    for p in personas:
        jobs_list.append(("lpo", p, None, [files[("learn", q, s)] for q in population if q != p for s in args.seeds]))
        for s in args.seeds:
            others = [t for t in args.seeds if t != s]
            if others:
                jobs_list.append(("seed", p, s, [files[("learn", p, t)] for t in others]))

    def one(job):
        kind, p, s, learners = job
        name = "%s-%s%s" % (kind, p, "" if s is None else "-s%d" % s)
        # Different seeds can simulate the same person under another index: people are told apart by
        # their first day (its ground truth), and nobody is learnt from twice or tested as learnt.
        population_path = os.path.join(out, "priors", name + "-people.jsonl")
        learnt = write_people(learners, population_path, seen=set())
        prior, summary = learn(args.smartstack, [population_path], os.path.join(out, "priors", name + ".jsonl"),
                               args.min_people)
        tested_files = [files[("test", p, t)] for t in (args.seeds if s is None else [s])]
        path = os.path.join(data, name + ".jsonl")
        seen = set(learnt["fingerprints"])
        tested = write_people(tested_files, path, seen=seen, truth=path[:-len(".jsonl")] + ".truth.jsonl")
        row = evaluate(args.smartstack, path, path[:-len(".jsonl")] + ".truth.jsonl", prior, args.bootstrap)
        learnt_from = ("every persona but %s" % p) if kind == "lpo" else ("%s, seed %s" % (p, ",".join(
            str(t) for t in args.seeds if t != s)))
        row.update(set=kind, persona=p, tested_seeds=[s] if s is not None else list(args.seeds), learnt_from=learnt_from,
                   prior_summary=summary, people_learnt=learnt["kept"], learners_dropped_as_repeats=learnt["dropped"],
                   people_tested=tested["kept"], tested_dropped_as_repeats=tested["dropped"],
                   people_fingerprint=hash(tuple(sorted(tested["fingerprints"] + learnt["fingerprints"]))))
        log("  %-26s %s %.4f -> %.4f  (%+.4f [%+.4f, %+.4f]); %d people tested, prior of %d" % (
            name, row["measure"], row["without"], row["with"], row["difference"], row["ci"][0], row["ci"][1],
            tested["kept"], learnt["kept"]))
        return row

    os.makedirs(os.path.join(out, "priors"), exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        rows = list(pool.map(one, jobs_list))
    # Where two seeds simulate the same people of a persona (the same learners and the same tested
    # people under other names), their rows are one: the repeat is left out and said.
    kept, seen = [], {}
    for r in rows:
        key = (r["set"], r["persona"], r.pop("people_fingerprint"))
        if r["set"] == "seed" and key in seen:
            seen[key]["tested_seeds"] += r["tested_seeds"]
            seen[key]["learnt_from"] = "%s, the other seed (seeds %s simulate the same people)" % (
                r["persona"], ",".join(map(str, seen[key]["tested_seeds"])))
            continue
        seen[key] = r
        kept.append(r)
    return kept


class People:
    """The people of one generated file (events and truth), from user index `first_index` on,
    each with the fingerprint of their first local day: the ground truth's lines of that day
    (instants, stacks, intents), which a person's seed and index decide and `--days` does not."""

    def __init__(self, path, seed, first_index):
        self.path, self.truth, self.seed = path, path[:-len(".jsonl")] + ".truth.jsonl", seed
        lines, first_date = {}, {}
        with open(self.truth) as f:
            for line in f:
                t = json.loads(line)
                date = first_date.setdefault(t["user"], t["time"][:10])
                if t["time"][:10] == date:
                    lines.setdefault(t["user"], []).append(
                        (t["time"], t["stack"], tuple(sorted(t.get("intent", t.get("distribution", {})).items()))))
        self.fingerprints = {u: hash(tuple(v)) for u, v in lines.items() if int(u.rsplit("-", 1)[1]) >= first_index}


def write_people(groups, path, seen, truth=None):
    """Writes the people of `groups` (users renamed `s<seed>/<user>`) to `path` (and their truth to
    `truth`), leaving out anyone whose fingerprint is in `seen` or already written; adds theirs."""
    kept, dropped, fingerprints = set(), 0, []
    for g in groups:
        for user, fingerprint in sorted(g.fingerprints.items()):
            if fingerprint in seen:
                dropped += 1
                continue
            seen.add(fingerprint)
            fingerprints.append(fingerprint)
            kept.add((g.seed, user))
    targets = [(path, "path")] + ([(truth, "truth")] if truth else [])
    for target, source in targets:
        with open(target, "w") as out:
            for g in groups:
                with open(getattr(g, source)) as f:
                    for line in f:
                        record = json.loads(line)
                        if (g.seed, record["user"]) in kept:
                            record["user"] = "s%d/%s" % (g.seed, record["user"])
                            out.write(json.dumps(record, separators=(",", ":")) + "\n")
    return {"kept": len(kept), "dropped": dropped, "fingerprints": fingerprints}


# ----------------------------------------------------------------------------- StudentLife

def studentlife_rows(args, out):
    """Each of the three people in turn, their first day with a prior learnt on the other two."""
    missing = [p for p in STUDENTLIFE if not os.path.exists(p)]
    if missing:
        if os.environ.get("CI"):
            raise SystemExit("StudentLife is missing (%s): CI needs ../shared/datasets" % ", ".join(missing))
        log("StudentLife not found (%s): its rows are skipped" % ", ".join(missing))
        return []
    data = os.path.join(out, "studentlife")
    os.makedirs(data, exist_ok=True)
    imported = os.path.join(data, "studentlife.jsonl")
    if not os.path.exists(imported):
        run([args.smartstack, "import", "studentlife"] + STUDENTLIFE + ["--out", imported])
    users = {}
    with open(imported) as f:
        for line in f:
            e = json.loads(line)
            users.setdefault(e["user"], []).append(e)
    rows = []
    for held, days in [(u, d) for u in sorted(users) for d in args.studentlife_days]:
        others = os.path.join(data, "others-of-%s.jsonl" % held)
        with open(others, "w") as f:
            for user in sorted(users):
                if user != held:
                    for e in users[user]:
                        f.write(json.dumps(e, separators=(",", ":")) + "\n")
        prior, summary = learn(args.smartstack, [others], os.path.join(data, "prior-without-%s.jsonl" % held),
                               args.studentlife_min_people)
        window = os.path.join(data, "%s-days1-%d.jsonl" % (held, days))
        write_first_days(users[held], days, window)
        row = evaluate(args.smartstack, window, None, prior, args.bootstrap)
        name = "studentlife-%s-%s" % (held, "day1" if days == 1 else "days1-%d" % days)
        if row is None:
            log("  %-26s no decision point" % name)
            row = {"measure": "hit_at_1", "decisions": 0, "users": 1}
        else:
            log("  %-26s %s %.4f -> %.4f  (%+.4f [%+.4f, %+.4f])" % (name, row["measure"], row["without"], row["with"],
                                                                  row["difference"], row["ci"][0], row["ci"][1]))
        row.update(set="studentlife", persona=held, days=days, tested_seeds=[], learnt_from="the other two people",
                   prior_summary=summary)
        rows.append(row)
    return rows


def write_first_days(events, days, path):
    """The person's first `days` × 24 hours, their stack configured at their first event."""
    first = next(e for e in events if e["type"] != "stack_config")["time"]
    start = seconds(first)
    config = [dict(e, time=first) for e in events if e["type"] == "stack_config"]
    kept = [e for e in events if e["type"] != "stack_config" and seconds(e["time"]) < start + days * 86_400]
    with open(path, "w") as f:
        for e in config + kept:
            f.write(json.dumps(e, separators=(",", ":")) + "\n")


def seconds(rfc3339):
    """Seconds since the epoch of an RFC 3339 time with a numeric offset or Z."""
    return datetime.datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).timestamp()


# ----------------------------------------------------------------------------- the table

def summarise(rows):
    rows = [r for r in rows if r["decisions"] > 0]
    simulated = [r for r in rows if r["set"] in ("lpo", "seed")]
    costs = [r for r in rows if r["ci"][1] < 0]
    lpo = [r for r in rows if r["set"] == "lpo"]
    mean = lambda xs: sum(xs) / len(xs) if xs else None
    return {
        "rows": len(rows),
        "rows_costing_beyond_chance": ["%s %s" % (r["set"], r["persona"]) for r in costs],
        "never_costs_beyond_chance": not costs,
        "lpo_mean_without": mean([r["without"] for r in lpo]),
        "lpo_mean_with": mean([r["with"] for r in lpo]),
        "lifts_lpo_mean": bool(lpo) and mean([r["with"] for r in lpo]) > mean([r["without"] for r in lpo]),
        "seed_mean_without": mean([r["without"] for r in simulated if r["set"] == "seed"]),
        "seed_mean_with": mean([r["with"] for r in simulated if r["set"] == "seed"]),
        "lifts_seed_mean": any(r["set"] == "seed" for r in simulated) and mean(
            [r["with"] for r in simulated if r["set"] == "seed"]) > mean([r["without"] for r in simulated if r["set"] == "seed"]),
        "rows_ahead_beyond_chance": sum(1 for r in rows if r["ci"][0] > 0),
    }


def markdown(rows, summary, args):
    lines = ["| set | people tested | prior learnt from | decisions | without prior | with prior | difference [95% paired] |",
             "|---|---|---|---:|---|---|---|"]
    for r in rows:
        who = r["persona"] + (" (seed %s)" % ",".join(map(str, r["tested_seeds"])) if r["tested_seeds"] else "")
        if r["set"] == "studentlife":
            who += ", day 1" if r["days"] == 1 else ", days 1–%d" % r["days"]
        if r["decisions"] == 0:
            lines.append("| %s | %s | %s | 0 | – | – | no decision point |" % (r["set"], who, r["learnt_from"]))
            continue
        if r["measure"] == "counterfactual_engagement":
            cells = ["%.4f (%.2f ×)" % (r["without"], r["without_ratio"]), "%.4f (%.2f ×)" % (r["with"], r["with_ratio"])]
        else:
            cells = ["%.3f hit@1" % r["without"], "%.3f hit@1" % r["with"]]
        lines.append("| %s | %s | %s | %d | %s | %s | %+.4f [%+.4f, %+.4f]%s |" % (
            r["set"], who, r["learnt_from"], r["decisions"], cells[0], cells[1], r["difference"], r["ci"][0], r["ci"][1],
            " **cost**" if r["ci"][1] < 0 else (" ahead" if r["ci"][0] > 0 else "")))
    lines.append("")
    lines.append("Targets: the prior never costs a row beyond chance: %s%s; it lifts the day-1 mean on the "
                 "leave-persona-out rows: %s (%.4f → %.4f) and on the other-seed rows: %s (%.4f → %.4f). "
                 "Rows ahead beyond chance: %d of %d with a decision." % (
                     "met" if summary["never_costs_beyond_chance"] else "MISSED",
                     "" if summary["never_costs_beyond_chance"] else " (" + ", ".join(summary["rows_costing_beyond_chance"]) + ")",
                     "met" if summary["lifts_lpo_mean"] else "MISSED", summary["lpo_mean_without"] or 0,
                     summary["lpo_mean_with"] or 0, "met" if summary["lifts_seed_mean"] else "MISSED",
                     summary["seed_mean_without"] or 0, summary["seed_mean_with"] or 0,
                     summary["rows_ahead_beyond_chance"], summary["rows"]))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--smartstack", default=os.path.join(REPO, ".build", "release", "smartstack"))
    ap.add_argument("--out", default=os.path.join(REPO, ".build", "prior-lpo"))
    ap.add_argument("--seeds", default="1,2", help="simulation seeds (default 1,2)")
    ap.add_argument("--personas", default=",".join(PERSONAS), help="personas tested (default: all seven)")
    ap.add_argument("--lpo-population", choices=("all", "tested"), default="all",
                    help="who the leave-persona-out priors learn from: every persona (default) or the tested ones only")
    ap.add_argument("--learn-users", type=int, default=8, help="people per persona and seed the priors learn from")
    ap.add_argument("--learn-days", type=int, default=14, help="days of each of them")
    ap.add_argument("--test-users", type=int, default=24, help="one-day people per persona and seed evaluated")
    ap.add_argument("--min-people", type=int, default=5, help="the simulated priors' --min-people (default 5)")
    ap.add_argument("--studentlife-min-people", type=int, default=2)
    ap.add_argument("--studentlife-days", default="1,7", help="first-days windows of StudentLife evaluated (default 1,7)")
    ap.add_argument("--no-studentlife", action="store_true")
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2)))
    args = ap.parse_args()
    try:
        args.seeds = [int(s) for s in args.seeds.split(",")]
    except ValueError:
        ap.error("--seeds takes integers, e.g. 1,2 (got %r)" % args.seeds)
    try:
        args.studentlife_days = [int(d) for d in args.studentlife_days.split(",")]
    except ValueError:
        ap.error("--studentlife-days takes integers, e.g. 1,7 (got %r)" % args.studentlife_days)
    args.personas = args.personas.split(",")
    unknown = [p for p in args.personas if p not in PERSONAS]
    if unknown:
        ap.error("unknown persona %s (expected one of: %s)" % (", ".join(unknown), ", ".join(PERSONAS)))
    if min(args.learn_users, args.test_users, args.learn_days, args.bootstrap) < 1:
        ap.error("--learn-users, --test-users, --learn-days and --bootstrap take positive integers")
    if not os.access(args.smartstack, os.X_OK):
        ap.error("no smartstack binary at %s (swift build -c release --product smartstack)" % args.smartstack)
    os.makedirs(args.out, exist_ok=True)
    log("prior_lpo: seeds %s, personas %s" % (args.seeds, ", ".join(args.personas)))
    rows = simulated_rows(args, args.out, args.jobs)
    if not args.no_studentlife:
        rows += studentlife_rows(args, args.out)
    summary = summarise(rows)
    report = {"seeds": args.seeds, "learn_users": args.learn_users, "learn_days": args.learn_days,
              "test_users": args.test_users, "min_people": args.min_people,
              "studentlife_min_people": args.studentlife_min_people, "rows": rows, "summary": summary}
    with open(os.path.join(args.out, "prior-lpo.json"), "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
    table = markdown(rows, summary, args)
    with open(os.path.join(args.out, "prior-lpo.md"), "w") as f:
        f.write(table)
    print(table)


if __name__ == "__main__":
    main()
