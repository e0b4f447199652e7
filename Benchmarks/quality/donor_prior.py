#!/usr/bin/env python3
"""What a population prior could give on the first day (issue 14's design question).

The engine learns each person from that person's events alone, so a one-day set is scored while
every person's model is a few hours old. A population prior (what other people's data says,
given to a new person's engine before their first event) is the usual answer; this script
measures an upper bound of what it could give, with the engine as it is: before each one-day
person's day it replays the four weeks of **another person of the same persona** (a donor, from
the other seed of the run, so never the same simulated person), shifted 35 days back (five whole
weeks: weekdays stay weekdays) and renamed to the target person, and scores only the target's own
day (`--warmup-days 35`). The donor's counts, signal weights, mixture weights and rotation record
all carry over, and so do its places, which are the donor's, not the target's.

It is an upper bound in one way (the donor lives the target's persona: a real population mixes
many kinds of people) and not in another (one donor, not a population's average:
`--donors K --donor-days D` replays the first D days of K donors one after another, each in its
own slot of whole weeks, a flatter prior). The `structureless` persona (fixed popularities that
differ per person) shows the risk: a prior that is wrong for this person costs more than none.

`--scramble` renames the donors' widgets, apps, places and context values (and moves their
locations), so only name-free state carries over (signal weights, the mixture, the rotation
record); `--mixed` draws the donors from every persona's people, not the target's persona only.

Input: the `data/` folder of a `run.py` run over at least two seeds (the datasets `P.jsonl`,
`P+one-day.jsonl` and `P+one-day.truth.jsonl` of each persona). Python 3 standard library only.

    python3 Benchmarks/quality/run.py --out .build/quality        # tuning seeds 1, 2
    python3 Benchmarks/quality/donor_prior.py --data .build/quality/data
"""
import argparse
import collections
import datetime
import json
import os
import sys

# The harness's own definitions: its personas, baselines, undamped rotation and command runner.
from run import BASELINES, PERSONAS, REPO, UNDAMPED, run


def slot_days(donor_days):
    """Days each donor's stretch occupies before the target's day: whole weeks (weekdays stay
    weekdays) with a spare week, so 28 days of a donor are shifted 35 days back."""
    return 7 * (-(-donor_days // 7)) + 7


def read_users(path):
    """Events per user, in file order; stops with file:line on a line that is not an event."""
    users = collections.OrderedDict()
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
                user, _ = event["user"], event["time"]
            except (ValueError, KeyError, TypeError) as e:
                raise SystemExit("%s:%d: not an event with `user` and `time` (%s)" % (path, n, e))
            users.setdefault(user, []).append(event)
    return users


def seed_of(user):
    if "/" not in user:
        raise SystemExit("user %r has no seed prefix (s<seed>/...): use the data folder of a run.py run" % user)
    return user.split("/", 1)[0]


def stacks_of(events):
    """The stacks a person configures, in order of their first configuration."""
    return list(dict.fromkeys(e["stack"] for e in events if e.get("type") == "stack_config"))


def scrambled(event, tag):
    """The event with every identity a person's counts are kept under renamed (widgets, apps,
    places, context values; locations moved 20 degrees of latitude away), so only what holds
    whatever the names are carries over: signal and mixture weights, the rotation record."""
    e = dict(event)
    for key in ("widget", "app", "place", "from", "to", "value"):
        if isinstance(e.get(key), str):
            e[key] = "%s:%s" % (tag, e[key])
    if isinstance(e.get("widgets"), list):
        e["widgets"] = [dict(w, **{k: "%s:%s" % (tag, w[k]) for k in ("id", "app") if k in w}) for w in e["widgets"]]
    if isinstance(e.get("lat"), (int, float)):
        e["lat"] = e["lat"] - 20 if e["lat"] > 0 else e["lat"] + 20
    return e


def build(persona, donors, targets, out_dir, round_, donors_per_target=1, donor_days=28, scramble=False, mixed=False):
    """Writes `<persona>+donor<round>.jsonl`: every one-day person of `targets` preceded by the
    first `donor_days` of `donors_per_target` people of `donors` (events per user, as
    `read_users` gives them), one after another, each shifted back by whole slots
    (`slot_days`); round `r` gives the `k`-th target the `(k + r)`-th donor of the other seeds
    onwards. Returns the path, the donors per target and the warm-up that ends at the target's
    day."""
    path = os.path.join(out_dir, "%s+donor%d.jsonl" % (persona, round_))
    slot = slot_days(donor_days)
    pairs = []
    with open(path, "w") as out:
        for k, (user, events) in enumerate(targets.items()):
            others = [u for u in donors if seed_of(u) != seed_of(user)]
            others = others if mixed else sorted(others)
            if not others:
                raise SystemExit("%s: no donor from another seed for %s: run run.py over at least two seeds" % (persona, user))
            if donors_per_target > len(others):
                raise SystemExit("%s: %d donors per person asked, %d people in the other seeds" % (persona, donors_per_target, len(others)))
            chosen = [others[(k + round_ + j) % len(others)] for j in range(donors_per_target)]
            pairs.append((user, ",".join(chosen)))
            last = None
            first = datetime.datetime.fromisoformat(events[0]["time"])
            written = []
            if mixed:
                # Donors of other time zones may start later in the day than the target: a
                # screen-on with no stack yet marks where the warm-up's days are counted from.
                marker = first - datetime.timedelta(days=slot * donors_per_target)
                written.append((marker, {"time": marker.isoformat(), "type": "screen_on", "user": user, "id": "donor-start"}))
            target_stacks = stacks_of(events)
            for j, donor in enumerate(chosen):
                # A donor's stacks take the target's names, in order of configuration, so none of
                # them lingers into the target's day beside the target's own.
                donor_stacks = stacks_of(donors[donor])
                if len(donor_stacks) != len(target_stacks):
                    raise SystemExit("%s: donor %s has %d stacks, %s has %d" % (persona, donor, len(donor_stacks), user, len(target_stacks)))
                names = dict(zip(donor_stacks, target_stacks))
                shift = datetime.timedelta(days=slot * (donors_per_target - j))
                start = min(datetime.datetime.fromisoformat(e["time"]) for e in donors[donor])
                end = start + datetime.timedelta(days=donor_days)
                for e in donors[donor]:
                    t = datetime.datetime.fromisoformat(e["time"])
                    if t >= end:
                        continue
                    e = scrambled(e, "donor%d" % j) if scramble else dict(e)
                    if "stack" in e:
                        e["stack"] = names[e["stack"]]
                    e["time"], e["user"], e["id"] = (t - shift).isoformat(), user, "donor%d-%s" % (j, e.get("id", ""))
                    last = t - shift
                    written.append((last, e))
            if mixed:
                written.sort(key=lambda pair: pair[0])
            for _, e in written:
                out.write(json.dumps(e) + "\n")
            if last is not None and last >= first:
                raise SystemExit("%s: the donor's shifted weeks of %s overlap the target's day" % (persona, user))
            for e in events:
                out.write(json.dumps(e) + "\n")
    return path, pairs, slot * donors_per_target


def evaluate(bin_, dataset, truth, warmup, rotation=None, threads=1):
    """The metrics per policy of the default, the baselines (not under a `rotation`) and the
    oracle; `threads` None for smartstack's default."""
    policies = ["contextual"] + ([] if rotation else list(BASELINES)) + ["oracle"]
    cmd = [bin_, "evaluate", dataset, "--truth", truth, "--policies", ",".join(policies), "--warmup-days", str(warmup),
           "--bootstrap", "0", "--json", "--quiet"] + (["--threads", str(threads)] if threads else []) \
        + (["--rotation", rotation] if rotation else [])
    try:
        out = run(cmd)
    except RuntimeError as e:
        raise SystemExit(str(e))
    return {p["name"]: p["metrics"] for p in json.loads(out)["policies"]}


def row(bin_, dataset, truth, warmup):
    d = evaluate(bin_, dataset, truth, warmup)
    u = evaluate(bin_, dataset, truth, warmup, UNDAMPED)
    hit = {k: v["hit_at_1"] for k, v in d.items()}
    best = max(BASELINES, key=lambda k: hit[k])
    return {"decisions_with_target": d["contextual"]["decisions_with_target"], "default": hit["contextual"],
            "oracle": hit["oracle"], "oracle_ratio": hit["contextual"] / hit["oracle"] if hit["oracle"] else None,
            "best_baseline": best, "best_baseline_hit_at_1": hit[best],
            "rotation_cost": u["contextual"]["hit_at_1"] - hit["contextual"],
            "flicker_rate": d["contextual"]["flicker_rate"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="the data/ folder of a run.py run over at least two seeds")
    ap.add_argument("--smartstack", default=os.path.join(REPO, ".build", "release", "smartstack"))
    ap.add_argument("--personas", default=",".join(PERSONAS))
    ap.add_argument("--donors", type=int, default=1, help="donors replayed one after another before each person's day")
    ap.add_argument("--donor-days", type=int, default=28, help="the first days of each donor's data that are replayed")
    ap.add_argument("--scramble", action="store_true",
                    help="rename the donors' widgets, apps, places and context values, so only name-free state carries over")
    ap.add_argument("--mixed", action="store_true",
                    help="draw the donors from every persona's people (a mixed population), not the target's persona only")
    ap.add_argument("--rounds", type=int, default=4, help="donor assignments per persona (each target gets a different donor in each)")
    ap.add_argument("--out", default=None, help="where the donor datasets and donor.json go (default: <data>/../donor)")
    a = ap.parse_args()
    if not os.access(a.smartstack, os.X_OK):
        raise SystemExit("smartstack binary not found at %s: run 'swift build -c release --product smartstack'" % a.smartstack)
    if a.rounds < 1 or a.donors < 1 or a.donor_days < 1:
        raise SystemExit("--rounds, --donors and --donor-days must be at least 1")
    out_dir = a.out or os.path.join(os.path.dirname(os.path.abspath(a.data)), "donor")
    os.makedirs(out_dir, exist_ok=True)
    population = collections.OrderedDict()
    if a.mixed:
        # Every persona's people, interleaved, so that consecutive donors are of different personas.
        per = [list(read_users(os.path.join(a.data, p + ".jsonl")).items())
               for p in PERSONAS if os.path.exists(os.path.join(a.data, p + ".jsonl"))]
        if not per:
            raise SystemExit("--mixed: no persona's 28-day set (P.jsonl) in %s" % a.data)
        for k in range(max(len(users) for users in per)):
            for users in per:
                if k < len(users):
                    population[users[k][0]] = users[k][1]
    results = {}
    lines = ["| persona, one day | decisions | default ÷ oracle: alone → after %d donor(s)' first %d days (mean, range over %d rounds) "
             "| default − best baseline | rotation cost | flicker |" % (a.donors, a.donor_days, a.rounds), "|---|---:|---|---|---|---|"]
    for persona in [p for p in a.personas.split(",") if p]:
        names = [os.path.join(a.data, persona + s) for s in (".jsonl", "+one-day.jsonl", "+one-day.truth.jsonl")]
        missing = [n for n in names if not os.path.exists(n)]
        if missing:
            raise SystemExit("missing %s (run run.py with the default and one-day variants of %s)" % (", ".join(missing), persona))
        alone = row(a.smartstack, names[1], names[2], 0)
        donors, targets = (population if a.mixed else read_users(names[0])), read_users(names[1])
        rounds = []
        for r in range(a.rounds):
            dataset, pairs, warmup = build(persona, donors, targets, out_dir, r, a.donors, a.donor_days, a.scramble, a.mixed)
            donor = row(a.smartstack, dataset, names[2], warmup)
            if donor["decisions_with_target"] != alone["decisions_with_target"]:
                raise SystemExit("%s: the donor run scored %d decisions, the day alone %d: the warm-up did not end at the target's day"
                                 % (persona, donor["decisions_with_target"], alone["decisions_with_target"]))
            donor["donors"] = dict(pairs)
            rounds.append(donor)
            os.remove(dataset)
        results[persona] = {"alone": alone, "rounds": rounds}
        mean = lambda k: sum(r[k] for r in rounds) / len(rounds)
        lo = lambda k: min(r[k] for r in rounds)
        hi = lambda k: max(r[k] for r in rounds)
        lead = [r["default"] - r["best_baseline_hit_at_1"] for r in rounds]
        lines.append("| %s | %d | %.2f → %.2f [%.2f, %.2f] (hit@1 %.3f → %.3f, oracle %.3f) | %+.3f → %+.3f [%+.3f, %+.3f] "
                     "| %+.3f → %+.3f [%+.3f, %+.3f] | %.3f → %.3f |" % (
            persona, alone["decisions_with_target"], alone["oracle_ratio"], mean("oracle_ratio"), lo("oracle_ratio"),
            hi("oracle_ratio"), alone["default"], mean("default"), alone["oracle"],
            alone["default"] - alone["best_baseline_hit_at_1"], sum(lead) / len(lead), min(lead), max(lead),
            alone["rotation_cost"], mean("rotation_cost"), lo("rotation_cost"), hi("rotation_cost"),
            alone["flicker_rate"] or 0, sum(r["flicker_rate"] or 0 for r in rounds) / len(rounds)))
        print(lines[-1], flush=True)
    with open(os.path.join(out_dir, "donor.json"), "w") as f:
        json.dump(results, f, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
