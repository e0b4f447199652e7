#!/usr/bin/env bash
# Benchmark of the Dask driver against one `smartstack evaluate` on the same data (not a test:
# it prints figures). Needs a release build and the venv of bindings/dask/requirements.txt:
#
#   swift build -c release --product smartstack
#   python3 -m venv .build/dask-venv && .build/dask-venv/bin/pip install -r bindings/dask/requirements.txt
#   bash bindings/dask/benchmark.sh [OUT_DIR]        (default .build/dask-bench)
#
# USERS (20000), DAYS (14), SHARDS (8), POLICIES (contextual), REPEAT (1: pairs of single and
# Dask runs, alternating, for a loaded machine) and SMARTSTACK (the binary, default the release
# build) can be set in the environment.
# Steps, each timed with /usr/bin/time: generate the dataset; `smartstack shard` it (done once
# when data lands, reported apart); `smartstack evaluate shards/* --threads 2`; the driver on the
# same shards with a LocalCluster of 2 single-threaded workers (`--sharded`); `smartstack merge`
# of the kept partials alone (its memory); with UNSHARDED=1, also the driver from the unsharded
# file (`--shards`: sharding on the workers included). The load average is noted before each
# step. To spare the disk (20,000 users are 11.7 GB of JSONL and 8 GB of ground truth), the
# ground truth is deleted unless POLICIES asks for the oracle, and the unsharded file once it is
# sharded unless UNSHARDED=1 or KEEP_DATA=1.
# Reports must be identical; the figures land in OUT_DIR/summary.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=${1:-.build/dask-bench}
users=${USERS:-20000}
days=${DAYS:-14}
shards=${SHARDS:-8}
policies=${POLICIES:-contextual}
repeat=${REPEAT:-1}
bin=${SMARTSTACK:-$root/.build/release/smartstack}
py=$root/.build/dask-venv/bin/python
mkdir -p "$out"
cd "$out"
timed() {   # timed NAME command...: wall, CPU and peak memory of the command into NAME.time
    local name=$1; shift
    cut -d' ' -f1-3 /proc/loadavg > "$name.load"
    /usr/bin/time -f "%e %U %S %M" -o "$name.time" "$@"
}
if [ ! -s data.jsonl ] && [ ! -d shards ]; then
    timed generate "$bin" generate --persona commuter --days "$days" --users "$users" --seed 7 --out data.jsonl
    case "$policies" in *all*|*oracle*) ;; *) rm -f data.truth.jsonl ;; esac
fi
rm -rf single* dask* driver* partials merged ./*.time ./*.load ./*.stderr
if [ -s data.jsonl ]; then
    rm -rf shards
    timed shard "$bin" shard data.jsonl --shards "$shards" --out shards >/dev/null
    [ -n "${UNSHARDED:-}${KEEP_DATA:-}" ] || rm -f data.jsonl
fi
for i in $(seq 1 "$repeat"); do
    timed "single$i" "$bin" evaluate shards/*.jsonl --policies "$policies" --threads 2 --quiet --report "single$i" >/dev/null
    rm -rf partials
    # The cluster path, always (--local-below 0): shards as Dask tasks, partials, merge.
    PYTHONPATH=$root/bindings/dask timed "dask$i" "$py" -m smartstack_dask evaluate shards/*.jsonl --sharded \
        --scheduler local --workers 2 --threads-per-worker 1 --binary "$bin" --policies "$policies" --no-progress \
        --local-below 0 --report "dask$i" --keep-partials partials --stats dask-stats.json 2>"dask$i.stderr"
    # The driver as a user runs it: below --local-below (default 4 GB) it evaluates in one process.
    PYTHONPATH=$root/bindings/dask timed "driver$i" "$py" -m smartstack_dask evaluate shards/*.jsonl --sharded \
        --scheduler local --workers 2 --threads-per-worker 1 --binary "$bin" --policies "$policies" --no-progress \
        --report "driver$i" 2>"driver$i.stderr"
done
timed merge "$bin" merge partials/*.partial --threads 2 --report merged >/dev/null
if [ -n "${UNSHARDED:-}" ]; then
    PYTHONPATH=$root/bindings/dask timed dask-unsharded "$py" -m smartstack_dask evaluate data.jsonl --shards "$shards" \
        --scheduler local --workers 2 --threads-per-worker 1 --binary "$bin" --policies "$policies" --no-progress \
        --report dask-unsharded 2>/dev/null
fi
"$py" - "$users" "$shards" "$repeat" <<'PY'
import json, os, sys
users, shards, repeat = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
def t(name):
    wall, user, sys_, rss = open(f"{name}.time").read().split()[-4:]
    return float(wall), float(user) + float(sys_), int(rss)
def load(name):
    return open(f"{name}.load").read().strip() if os.path.exists(f"{name}.load") else "?"

def same(a, b):
    ja, jb = json.load(open(f"{a}/report.json")), json.load(open(f"{b}/report.json"))
    for j in (ja, jb):
        j["dataset"]["sources"] = []
        j["dataset"]["name"] = ""
        j.pop("provenance", None)   # the command and time that made each report
        # merge says when its partials had no truth file (this benchmark deletes it to spare the disk)
        j["warnings"] = [w for w in j.get("warnings", []) if "carry no ground truth" not in w]
    return ja == jb
files = sorted(os.path.join("shards", f) for f in os.listdir("shards"))
events = sum(sum(1 for _ in open(f, "rb")) for f in files)
size = sum(os.path.getsize(f) for f in files)
stats = json.load(open("dask-stats.json"))["shards"]
partial = sum(s["partial_bytes"] for s in stats)
single, merge = t("single1"), t("merge")
shard = t("shard") if os.path.exists("shard.time") else None
unsharded = t("dask-unsharded") if os.path.exists("dask-unsharded.time") else None
lines = [
    f"dataset: {users} users, {events} events, {size / 1e9:.2f} GB of JSONL; {shards} shards",
]
if shard:
    lines.append(f"smartstack shard:               {shard[0]:8.1f} s wall, {shard[1]:8.1f} s CPU, {shard[2] / 1024:7.0f} MiB peak (load {load('shard')})")
for i in range(1, repeat + 1):
    s, d = t(f"single{i}"), t(f"dask{i}")
    lines += [
        f"run {i}: smartstack evaluate --threads 2: {s[0]:7.1f} s wall, {s[1]:8.1f} s CPU, {s[2] / 1024:7.0f} MiB peak (load {load(f'single{i}')})",
        f"run {i}: dask, 2 workers x 1 thread:      {d[0]:7.1f} s wall, {d[1]:8.1f} s CPU of the whole process tree (load {load(f'dask{i}')})",
        f"run {i}:   dask overhead: {100 * (d[0] / s[0] - 1):+.1f}% wall, {100 * (d[1] / s[1] - 1):+.1f}% CPU",
        f"run {i}: the driver with its defaults:  {t(f'driver{i}')[0]:7.1f} s wall ({'one process, below --local-below' if 'without a cluster' in open(f'driver{i}.stderr').read() else 'a LocalCluster'}): "
        f"overhead {100 * (t(f'driver{i}')[0] / s[0] - 1):+.1f}% wall",
    ]
lines += [
    f"  per shard: {min(s['seconds'] for s in stats):.1f}-{max(s['seconds'] for s in stats):.1f} s, "
    f"smartstack peak {max(s['max_rss_kib'] for s in stats) / 1024:.0f} MiB (largest shard), "
    f"partials {partial / 1e6:.1f} MB in all ({partial / users / 1e3:.1f} kB per user)",
    f"smartstack merge alone:          {merge[0]:7.1f} s wall, {merge[1]:8.1f} s CPU, {merge[2] / 1024:7.0f} MiB peak (load {load('merge')})",
    f"  merge of the {len(stats)} partials / evaluate: {100 * merge[0] / single[0]:.1f}% wall, {100 * merge[1] / single[1]:.1f}% CPU "
    f"(the shards' own evaluate --partial: {sum(s['seconds'] for s in stats):.1f} s in all)",
    f"worker shutdown tracebacks on the driver's stderr: "
    f"{sum(open(f'dask{i}.stderr').read().count('Traceback') for i in range(1, repeat + 1))}",
    f"per user: {single[1] / users * 1e3:.1f} ms CPU (evaluate), {events / users:.0f} events",
    f"reports identical to the single run: {all(same('single1', f'{k}{i}') for k in ('single', 'dask', 'driver') for i in range(1, repeat + 1)) and same('single1', 'merged')}",
]
if unsharded:
    lines.append(f"dask from the unsharded file:    {unsharded[0]:7.1f} s wall (overhead {100 * (unsharded[0] / single[0] - 1):+.1f}% incl. sharding), "
                 f"identical: {same('single1', 'dask-unsharded')}")
open("summary.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
