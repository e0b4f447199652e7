#!/usr/bin/env bash
# Smoke run of the peers harness (Benchmarks/peers) on a tiny simulated dataset, so the harness
# cannot rot: pinned pip install into .build/peers-venv, export-decisions, every peer, the
# SmartStack run and the tables. Speeds from a debug build mean nothing; the full run is in
# Benchmarks/peers/README.md. Fails on any error (including export/evaluate disagreeing).
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/peers-smoke
rm -rf "$out"
mkdir -p "$out"
swift build --product smartstack
bin="$(swift build --product smartstack --show-bin-path)/smartstack"
python3 -m venv .build/peers-venv
.build/peers-venv/bin/pip install -q --disable-pip-version-check -r Benchmarks/peers/requirements.txt
"$bin" generate --persona commuter --days 10 --users 1 --seed 1 --out "$out/tiny.jsonl" --truth "$out/tiny.truth.jsonl"
.build/peers-venv/bin/python Benchmarks/peers/run.py --smartstack "$bin" --out "$out" "$out/tiny.jsonl"
test -s "$out/tiny.md"
test -s "$out/summary.json"
# With a truth file every method is also read counterfactually, SmartStack's figure the evaluator's.
grep -q "Read as the person would have lived it" "$out/tiny.md"
python3 - "$out/tiny.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
assert t["smartstack_export_matches_evaluate"], t
byk = {r["kind"]: r for r in t["results"]}
for k in ("smartstack", "smartstack-scorer", "vw", "river", "linucb", "ts", "oracle"):
    assert 0 <= byk[k]["counterfactual"] <= 1, (k, byk[k].get("counterfactual"))
for k in ("vw", "river", "linucb", "ts"):
    assert byk[k]["cf_paired_vs_smartstack"]["ci95"][0] <= byk[k]["cf_paired_vs_smartstack"]["difference"], k
PY
# A one-day group scored from its first decision (--warmup-days, as for the cohort).
"$bin" generate --persona cohort --days 1 --users 2 --seed 1 --out "$out/day.jsonl" --truth "$out/day.truth.jsonl"
.build/peers-venv/bin/python Benchmarks/peers/run.py --smartstack "$bin" --out "$out/day" --warmup-days 0 "$out/day.jsonl"
grep -q "warm-up 0 days" "$out/day/day.md"
# Decisions per second side by side (speed.py), on the same tiny stream.
.build/peers-venv/bin/python Benchmarks/peers/speed.py --smartstack "$bin" --out "$out/speed" --repeat 1 "$out/tiny.jsonl"
grep -q "all, pooled" "$out/speed/speed.md"
echo "peers smoke: OK"
