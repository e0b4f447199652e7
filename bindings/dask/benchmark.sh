#!/usr/bin/env bash
# Benchmark of the Dask driver against one `smartstack evaluate` on the same data (not a test:
# it prints figures). Needs a release build and the venv of bindings/dask/requirements.txt:
#
#   swift build -c release --product smartstack
#   python3 -m venv .build/dask-venv && .build/dask-venv/bin/pip install -r bindings/dask/requirements.txt
#   bash bindings/dask/benchmark.sh [OUT_DIR]        (default .build/dask-bench)
#
# USERS (20000), DAYS (14), SHARDS (8) and POLICIES (contextual) can be set in the environment.
# Steps, each timed with /usr/bin/time: generate the dataset; `smartstack shard` it (done once
# when data lands, reported apart); `smartstack evaluate shards/* --threads 2`; the driver on the
# same shards with a LocalCluster of 2 single-threaded workers (`--sharded`); `smartstack merge`
# of the kept partials alone (its memory); with UNSHARDED=1, also the driver from the unsharded
# file (`--shards`: sharding on the workers included).
# Reports must be identical; the figures land in OUT_DIR/summary.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=${1:-.build/dask-bench}
users=${USERS:-20000}
days=${DAYS:-14}
shards=${SHARDS:-8}
policies=${POLICIES:-contextual}
bin=$root/.build/release/smartstack
py=$root/.build/dask-venv/bin/python
mkdir -p "$out"
cd "$out"
timed() {   # timed NAME command...: wall, CPU and peak memory of the command into NAME.time
    local name=$1; shift
    /usr/bin/time -f "%e %U %S %M" -o "$name.time" "$@"
}
[ -s data.jsonl ] || timed generate "$bin" generate --persona commuter --days "$days" --users "$users" --seed 7 --out data.jsonl
rm -rf shards single dask dask-unsharded partials merged ./*.time
timed shard "$bin" shard data.jsonl --shards "$shards" --out shards >/dev/null
timed single "$bin" evaluate shards/*.jsonl --policies "$policies" --threads 2 --quiet --report single >/dev/null
PYTHONPATH=$root/bindings/dask timed dask "$py" -m smartstack_dask evaluate shards/*.jsonl --sharded --scheduler local \
    --workers 2 --threads-per-worker 1 --binary "$bin" --policies "$policies" --no-progress --report dask \
    --keep-partials partials --stats dask-stats.json 2>/dev/null
timed merge "$bin" merge partials/*.partial --threads 2 --report merged >/dev/null
if [ -n "${UNSHARDED:-}" ]; then
    PYTHONPATH=$root/bindings/dask timed dask-unsharded "$py" -m smartstack_dask evaluate data.jsonl --shards "$shards" \
        --scheduler local --workers 2 --threads-per-worker 1 --binary "$bin" --policies "$policies" --no-progress \
        --report dask-unsharded 2>/dev/null
fi
"$py" - "$users" "$shards" <<'PY'
import json, os, sys
users, shards = int(sys.argv[1]), int(sys.argv[2])
def t(name):
    wall, user, sys_, rss = open(f"{name}.time").read().split()[-4:]
    return float(wall), float(user) + float(sys_), int(rss)
def same(a, b):
    ja, jb = json.load(open(f"{a}/report.json")), json.load(open(f"{b}/report.json"))
    for j in (ja, jb):
        j["dataset"]["sources"] = []
        j["dataset"]["name"] = ""
    return ja == jb
events = sum(1 for _ in open("data.jsonl", "rb"))
stats = json.load(open("dask-stats.json"))["shards"]
partial = sum(s["partial_bytes"] for s in stats)
single, dask, merge, shard = t("single"), t("dask"), t("merge"), t("shard")
unsharded = t("dask-unsharded") if os.path.exists("dask-unsharded.time") else None
lines = [
    f"dataset: {users} users, {events} events, {os.path.getsize('data.jsonl') / 1e9:.2f} GB of JSONL; {shards} shards",
    f"smartstack shard:               {shard[0]:8.1f} s wall, {shard[1]:8.1f} s CPU, {shard[2] / 1024:7.0f} MiB peak",
    f"smartstack evaluate --threads 2: {single[0]:7.1f} s wall, {single[1]:8.1f} s CPU, {single[2] / 1024:7.0f} MiB peak",
    f"dask, 2 workers x 1 thread:      {dask[0]:7.1f} s wall (overhead {100 * (dask[0] / single[0] - 1):+.1f}%)",
    f"  per shard: {min(s['seconds'] for s in stats):.1f}-{max(s['seconds'] for s in stats):.1f} s, "
    f"smartstack peak {max(s['max_rss_kib'] for s in stats) / 1024:.0f} MiB (largest shard), "
    f"partials {partial / 1e6:.1f} MB in all ({partial / users / 1e3:.1f} kB per user)",
    f"smartstack merge alone:          {merge[0]:7.1f} s wall, {merge[1]:8.1f} s CPU, {merge[2] / 1024:7.0f} MiB peak",
    f"per user: {single[1] / users * 1e3:.1f} ms CPU (evaluate), {events / users:.0f} events",
    f"reports identical to the single run: {same('single', 'dask') and same('single', 'merged')}",
]
if unsharded:
    lines.append(f"dask from the unsharded file:    {unsharded[0]:7.1f} s wall (overhead {100 * (unsharded[0] / single[0] - 1):+.1f}% incl. sharding), "
                 f"identical: {same('single', 'dask-unsharded')}")
open("summary.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
