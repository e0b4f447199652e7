#!/usr/bin/env bash
# Smoke run of the rotation-quality harness (Benchmarks/quality) so it cannot rot: generates a
# few small variants with a custom seed under two loggers, evaluates every policy and the oracle
# at both warm-ups, checks the tables are written. Figures from a debug build and a 9-day, one-person
# run mean nothing; the protocol's run is in Benchmarks/quality/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/quality-smoke
rm -rf "$out"
swift build --product smartstack
bin="$(swift build --product smartstack --show-bin-path)/smartstack"
python3 Benchmarks/quality/run.py --smartstack "$bin" --seeds 11 --personas sequence,structureless,cohort \
    --variants default,change-only,no-screen-on,stack-3,one-day --users 1 --days 9 --bootstrap 50 \
    --no-bundled --loggers time-of-day,uniform --out "$out" > /dev/null
# Bad options stop before any work, naming what is wrong.
for bad in "--personas sequence,bogus" "--seeds 11,x" "--variants default,bogus" "--loggers bogus" "--default-rotation dwell=bogus" "--seeds report --default-rotation dwell=5m" "--bootstrap 0"; do
    if msg=$(python3 Benchmarks/quality/run.py --smartstack "$bin" $bad --out "$out/bad" 2>&1); then
        echo "quality smoke: run.py $bad should have failed" >&2; exit 1
    fi
    grep -q "bogus\|'11,x'\|tuning seeds only\|at least 1 resample" <<<"$msg" || { echo "quality smoke: run.py $bad: unclear error: $msg" >&2; exit 1; }
done
test ! -e "$out/bad/quality.json"
python3 - "$out/quality.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
names = {r["dataset"] for r in report["rows"]}
# One row per dataset and warm-up: the cohort is added once.
keys = [(r["dataset"], r["warmup_days"]) for r in report["rows"]]
assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
expected = {"sequence", "sequence+change-only", "sequence+no-screen-on", "sequence+stack-3", "sequence+one-day",
            "structureless", "structureless+one-day", "cohort+one-day", "studentlife",
            "sequence@uniform", "structureless+stack-3@uniform", "cohort+one-day@uniform"}
assert expected <= names, sorted(expected - names)
assert all("oracle_ratio" in r["logged_targets"] for r in report["rows"] if r["simulated"])
# Counterfactual engagement, from `smartstack evaluate --truth`: on every simulated row (rows
# without screen_on read the truth's launch lines), never on the real recording; a probability
# per policy, the ceiling above the default, and the targets read on it.
by = {(r["dataset"], r["warmup_days"]): r for r in report["rows"]}
for (name, w), r in by.items():
    has = "counterfactual" in r
    assert has == r["simulated"], (name, w, has)
    if has:
        c = r["counterfactual"]
        assert c["decisions"] > 0 and c["left_out"] == 0, (name, c["decisions"], c["left_out"])
        assert all(0 <= v <= 1 for v in c["engagement"].values()), (name, c)
        assert c["engagement"]["contextual"] <= c["ceiling"] + 1e-12, (name, c)
        assert {"at_least_best_baseline", "no_baseline_ahead_beyond_chance", "rotation_cost"} <= set(r["targets"]), r["targets"]
    else:
        assert "oracle_ratio" not in r["targets"] and "at_least_best_baseline" in r["targets"], r["targets"]
md = open(sys.argv[1][:-len("quality.json")] + "quality.md").read()
assert "## Every dataset with a truth file: counterfactual engagement" in md and "Pooled counterfactual engagement" in md
print("quality smoke: OK (%d rows)" % len(report["rows"]))
PY

# The learning curve (learning_curve.py, from evaluate --by-day): stretches covering the 9 days score
# what warm-up 0 scores.
python3 Benchmarks/quality/learning_curve.py --smartstack "$bin" --data "$out/data" --personas sequence,structureless \
    --days 1,2-3,4-9 --out "$out/curve.json" > /dev/null
python3 - "$out/curve.json" "$out/quality.json" <<'PY'
import json, sys
curve, report = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for persona in ("sequence", "structureless"):
    cells = curve[persona]
    assert list(cells) == ["day 1", "days 2–3", "days 4–9"], list(cells)
    assert all(0 < c["oracle_ratio"] <= 1.5 and c["decisions_with_target"] > 0 for c in cells.values()), cells
    whole = next(r for r in report["rows"] if r["dataset"] == persona and r["warmup_days"] == 0)["decisions_with_target"]
    # A stretch's cut can only lose targets engaged after its last midnight.
    parts = sum(c["decisions_with_target"] for c in cells.values())
    assert 0.95 * whole <= parts <= whole, (persona, parts, whole)
    assert set(curve["reaches_day"][persona]) == {"contextual", "mfu", "mru", "frecency", "time-of-day", "oracle"}, curve["reaches_day"]
print("learning curve smoke: OK")
PY
# A week of app launches before the stacks (run.py's backfill-7 variant, generated here as run.py
# names it): the same days with stacks (the same decisions), read from the stacks' configuration
# on, and the history changes what day 1 knows.
back="$out/backfill"
mkdir -p "$back"
for days in 0 7; do
    suffix=$([ "$days" = 0 ] && echo "" || echo "+backfill-7")
    "$bin" generate --persona sequence --days 9 --seed 11 --backfill-days "$days" --out "$back/sequence$suffix.jsonl" 2> /dev/null
done
for variant in default backfill-7; do
    python3 Benchmarks/quality/learning_curve.py --smartstack "$bin" --data "$back" --personas sequence \
        --days 1,2-3,4-9 --variant "$variant" --measure counterfactual --out "$out/curve-$variant.json" > /dev/null
done
python3 - "$out/curve-default.json" "$out/curve-backfill-7.json" <<'PY'
import json, sys
plain, back = (json.load(open(p))["sequence"] for p in sys.argv[1:])
assert list(back) == list(plain), (list(back), list(plain))
for k in plain:
    for n in ("decisions_with_target", "decisions_with_truth"):
        assert back[k][n] == plain[k][n] > 0, (k, n, back[k][n], plain[k][n])
    assert 0 < back[k]["ceiling_ratio"] <= 1 + 1e-9, back[k]
assert back["day 1"]["counterfactual_engagement"]["contextual"] != plain["day 1"]["counterfactual_engagement"]["contextual"], "the history made no difference"
print("learning curve with backfill smoke: OK")
PY
# What of the history is replayed changes what is learnt, never what is scored; day 1 has none.
for h in launches launches-configured-late none; do
    python3 Benchmarks/quality/learning_curve.py --smartstack "$bin" --data "$out/data" --personas sequence \
        --days 1,4-9 --history "$h" --out "$out/curve-$h.json" > /dev/null
done
python3 - "$out" <<'PY'
import json, sys
full = json.load(open(sys.argv[1] + "/curve.json"))["sequence"]
for h in ("launches", "launches-configured-late", "none"):
    c = json.load(open("%s/curve-%s.json" % (sys.argv[1], h)))["sequence"]
    assert c["day 1"]["hit_at_1"] == full["day 1"]["hit_at_1"], (h, c["day 1"], full["day 1"])
    assert c["days 4–9"]["decisions_with_target"] == full["days 4–9"]["decisions_with_target"], h
    if h == "none":
        assert c["days 4–9"]["hit_at_1"] != full["days 4–9"]["hit_at_1"], "the history made no difference"
print("learning curve histories smoke: OK")
PY
# A candidate read in place of the default: its own curve, the default's absent.
python3 Benchmarks/quality/learning_curve.py --smartstack "$bin" --data "$out/data" --personas sequence \
    --days 1,2-3,4-9 --policy contextual:learning_rate=0 --out "$out/curve-fixed.json" > /dev/null
python3 - "$out/curve.json" "$out/curve-fixed.json" <<'PY'
import json, sys
default, fixed = (json.load(open(p)) for p in sys.argv[1:])
assert set(fixed["reaches_day"]["sequence"]) == {"contextual:learning_rate=0", "mfu", "mru", "frecency", "time-of-day", "oracle"}, fixed["reaches_day"]
d, f = default["sequence"]["days 4–9"], fixed["sequence"]["days 4–9"]
assert f["decisions_with_target"] == d["decisions_with_target"], (f, d)
assert f["hit_at_1"]["contextual:learning_rate=0"] != d["hit_at_1"]["contextual"], "the candidate read the default's figures"
assert f["hit_at_1"]["mfu"] == d["hit_at_1"]["mfu"], "a baseline moved with the candidate"
print("learning curve of a candidate smoke: OK")
PY
for bad in "--days 0" "--days 3-2" "--days 1-20" "--variant one-day" "--personas bogus" "--policy bogus"; do
    if msg=$(python3 Benchmarks/quality/learning_curve.py --smartstack "$bin" --data "$out/data" --personas sequence $bad 2>&1); then
        echo "quality smoke: learning_curve.py $bad should have failed" >&2; exit 1
    fi
    grep -q "days count from 1\|goes past day\|expected one of\|bogus" <<<"$msg" || { echo "quality smoke: learning_curve.py $bad: unclear error: $msg" >&2; exit 1; }
done

# The population-prior experiment (donor_prior.py): needs two seeds' people; with one it says so.
if msg=$(python3 Benchmarks/quality/donor_prior.py --smartstack "$bin" --data "$out/data" --personas sequence --rounds 1 2>&1); then
    echo "quality smoke: donor_prior.py on one seed should have failed" >&2; exit 1
fi
grep -q "at least two seeds" <<<"$msg" || { echo "quality smoke: donor_prior.py: unclear error: $msg" >&2; exit 1; }
two=.build/quality-smoke-donor
rm -rf "$two"
python3 Benchmarks/quality/run.py --smartstack "$bin" --seeds 11,12 --personas sequence,structureless --variants default,one-day \
    --users 1 --days 9 --bootstrap 10 --no-cohort --no-studentlife --no-bundled --out "$two" > /dev/null
python3 Benchmarks/quality/donor_prior.py --smartstack "$bin" --data "$two/data" --personas sequence --rounds 2 > /dev/null
python3 - "$two/donor/donor.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["sequence"]
assert len(r["rounds"]) == 2, r
for x in r["rounds"]:
    # Only the target's own day is scored, and every target got a donor from the other seed.
    assert x["decisions_with_target"] == r["alone"]["decisions_with_target"] > 0, (x, r["alone"])
    assert all(t.split("/")[0] != d.split("/")[0] for t, ds in x["donors"].items() for d in ds.split(",")), x["donors"]
    assert 0 <= x["default"] <= 1 and x["oracle"] > 0
print("donor prior smoke: OK")
PY
# A mixed population with renamed identities: donors of every persona, the target's day alone scored.
python3 Benchmarks/quality/donor_prior.py --smartstack "$bin" --data "$two/data" --personas sequence --rounds 1 \
    --mixed --scramble --donors 2 --donor-days 2 --out "$two/mixed" > /dev/null
python3 - "$two/mixed/donor.json" <<'PY'
import json, sys
sys.path.insert(0, "Benchmarks/quality")
from donor_prior import scrambled
r = json.load(open(sys.argv[1]))["sequence"]
x = r["rounds"][0]
assert x["decisions_with_target"] == r["alone"]["decisions_with_target"] > 0, (x, r["alone"])
donors = [d for ds in x["donors"].values() for d in ds.split(",")]
assert any("/structureless-" in d for d in donors) and any("/sequence-" in d for d in donors), donors
e = scrambled({"type": "stack_config", "stack": "s", "widgets": [{"id": "w", "app": "a"}]}, "donor0")
assert e["widgets"] == [{"id": "donor0:w", "app": "donor0:a"}] and e["stack"] == "s", e
e = scrambled({"type": "location", "lat": 42.0, "lon": -71.0, "app": "a", "place": "home"}, "donor1")
assert (e["lat"], e["lon"], e["app"], e["place"]) == (22.0, -71.0, "donor1:a", "donor1:home"), e
print("donor prior smoke (mixed, scrambled): OK")
PY

# The host-supplied population prior, leave-people-out (prior_lpo.py): priors learnt on other
# personas and on the other seed's people, StudentLife person by person; rows with paired intervals.
lpo=.build/quality-smoke-prior
rm -rf "$lpo"
python3 Benchmarks/quality/prior_lpo.py --smartstack "$bin" --seeds 11,12 --personas sequence,structureless \
    --lpo-population tested --learn-users 5 --learn-days 2 --test-users 2 --bootstrap 20 --studentlife-days 1,7 \
    --out "$lpo" > /dev/null
python3 - "$lpo" <<'PY'
import glob, json, sys
out = sys.argv[1]
report = json.load(open(out + "/prior-lpo.json"))
rows = report["rows"]
sets = {(r["set"], r["persona"]) for r in rows}
assert {("lpo", "sequence"), ("lpo", "structureless"), ("seed", "sequence"), ("seed", "structureless")} <= sets, sets
assert {r["persona"] for r in rows if r["set"] == "studentlife"} == {"u00", "u01", "u02"}, rows
for r in rows:
    if r["set"] == "studentlife" and r["decisions"] == 0:
        continue
    assert r["decisions"] > 0 and 0 <= r["with"] <= 1 and 0 <= r["without"] <= 1, r
    assert r["ci"][0] - 1e-12 <= r["difference"] <= r["ci"][1] + 1e-12, r
    assert abs(r["with"] - r["without"] - r["difference"]) < 1e-9, r
    if r["set"] != "studentlife":
        assert r["measure"] == "counterfactual_engagement" and r["people_tested"] > 0, r
# The priors hold aggregates only: no user id, no coordinates.
for path in glob.glob(out + "/priors/*.jsonl") + glob.glob(out + "/studentlife/prior-*.jsonl"):
    if path.endswith("-people.jsonl"):
        continue
    text = open(path).read()
    assert text.startswith('{"format":"smartstack-prior","version":1,'), path
    assert "sequence-0" not in text and "structureless-0" not in text and '"lat"' not in text and "u00" not in text, path
assert "Targets:" in open(out + "/prior-lpo.md").read()
print("prior leave-people-out smoke: OK (%d rows)" % len(rows))
PY
if msg=$(python3 Benchmarks/quality/prior_lpo.py --smartstack "$bin" --personas sequence,bogus --out "$lpo/bad" 2>&1); then
    echo "quality smoke: prior_lpo.py --personas bogus should have failed" >&2; exit 1
fi
grep -q "unknown persona bogus" <<<"$msg" || { echo "quality smoke: prior_lpo.py: unclear error: $msg" >&2; exit 1; }
