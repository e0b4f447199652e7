#!/usr/bin/env bash
# Executes every notebook in Notebooks/ headlessly on freshly produced data, and checks that the
# committed notebooks carry no outputs and no execution counts. Any failing cell fails the script.
#
#   .ci/notebooks.sh            (from anywhere; works in the repository root)
#
# Environment: SMARTSTACK_OBD_DATA (default ../shared/datasets/obd) for the Open Bandit check;
# when CI is set, missing Open Bandit data is an error, otherwise that check is skipped.
# NB_OUT (default .build/notebooks) receives the fresh data and the executed notebooks.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
step() { printf '\n==> notebooks: %s (%s)\n' "$1" "$(date +%H:%M:%S)"; }
fail() { printf 'error: notebooks: %s\n' "$1" >&2; exit 1; }

step "build the CLI (debug)"
swift build --product smartstack 2>&1 | tail -n 3
bin="$(swift build --show-bin-path)/smartstack"
[ -x "$bin" ] || fail "no smartstack binary at $bin after the build"

out="${NB_OUT:-$root/.build/notebooks}"
case "$out" in /*) ;; *) out="$root/$out" ;; esac
rm -rf "$out"
mkdir -p "$out"
dataset=commuter

step "fresh data: ingest + evaluate Datasets/$dataset.jsonl into $out"
"$bin" ingest "Datasets/$dataset.jsonl" --db "$out/$dataset.db"
"$bin" evaluate --db "$out/$dataset.db" --truth "Datasets/$dataset.truth.jsonl" --policies all \
    --bootstrap 200 --quiet --report "$out/$dataset" >/dev/null \
    || fail "smartstack evaluate failed on Datasets/$dataset.jsonl"
[ -s "$out/$dataset/report.json" ] || fail "evaluate wrote no $out/$dataset/report.json"

# The trade-off curve of 02-evaluation: the rotation policy's hysteresis margin, one report each.
step "margin sweep (contextual, --rotation margin=...)"
for margin in 0 0.05 0.1 0.2 0.35 0.5 0.75 1; do
    "$bin" evaluate --db "$out/$dataset.db" --policies contextual --rotation "margin=$margin" --bootstrap 200 \
        --quiet --report "$out/$dataset-margin/margin-$margin" >/dev/null || fail "the sweep at margin $margin failed"
done

step "Open Bandit check"
obd_data="${SMARTSTACK_OBD_DATA:-$root/../shared/datasets/obd}"
obd_json="$out/obd-check.json"
if [ -f "$obd_data/random_all.csv.gz" ] && [ -f "$obd_data/bts_all.csv.gz" ]; then
    "$bin" ope-check obd --data "$obd_data" --json >"$obd_json" || fail "smartstack ope-check obd failed"
elif [ -n "${CI:-}" ]; then
    fail "Open Bandit data missing at $obd_data (CI is set: it must be there; see ../shared/datasets/PROVENANCE.md)"
else
    echo "skipped: no Open Bandit data at $obd_data (03-off-policy will say so)"
    obd_data="$out/no-obd-data"
fi

step "Python venv (Notebooks/requirements.txt)"
venv="$root/.build/nb-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || fail "cannot create a venv (install python3-venv)"
"$venv/bin/pip" install -q --disable-pip-version-check -r Notebooks/requirements.txt \
    || fail "pip install -r Notebooks/requirements.txt failed"

step "committed notebooks are clean"
"$venv/bin/python" Notebooks/run_notebooks.py --check-clean || fail "a notebook carries outputs or execution counts"

step "execute every notebook"
before="$(cat Notebooks/*.ipynb | cksum)"
export SMARTSTACK="$bin"
export SMARTSTACK_DB="$out/$dataset.db"
export SMARTSTACK_REPORTS="$out/$dataset/report.json"
export SMARTSTACK_REPORT="$out/$dataset/report.json"
export SMARTSTACK_SWEEP_DIR="$out/$dataset-margin"
export SMARTSTACK_TRUTH="$root/Datasets/$dataset.truth.jsonl"
export SMARTSTACK_OBD_JSON="$obd_json"
export SMARTSTACK_OBD_DATA="$obd_data"
export SMARTSTACK_CURVE_DIR="$out/learning-curve"   # 05-learning-curve makes its two sets there
"$venv/bin/python" Notebooks/run_notebooks.py --out "$out/executed" --timeout 300 \
    || fail "a notebook failed (executed copies in $out/executed)"
[ "$(cat Notebooks/*.ipynb | cksum)" = "$before" ] || fail "running the notebooks changed files under Notebooks/"
step "ok (executed notebooks in $out/executed)"
