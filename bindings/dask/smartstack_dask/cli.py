"""`python -m smartstack_dask evaluate <inputs> --scheduler ADDRESS|local --policies all --report DIR`."""

from __future__ import annotations

import argparse
import json
import sys

from .inputs import DriverError

# Below this many GB of input, `--scheduler local` runs one `smartstack evaluate` on the same cores:
# the report is the same, and a LocalCluster's start-up, the per-shard processes and the merge cost
# more than 15% of the evaluation (bindings/dask/benchmark.sh: +80-106% at 200 users, 0.12 GB;
# within 15% at 20,000 users, 11.7 GB).
LOCAL_BELOW_GB = 4.0

# Options passed through to every shard's `smartstack evaluate`, with whether they take a value.
EVALUATE_OPTIONS = {
    "--policies": True, "--reference": True, "--truth": True, "--window": True, "--rotation": True,
    "--warmup-days": True, "--seed": True, "--bootstrap": True, "--threads": True,
    "--merge-repeats": False, "--no-merge-repeats": False,
}


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="python -m smartstack_dask",
                                   description="Evaluate SmartStack policies on a Dask cluster.")
    commands = root.add_subparsers(dest="command", required=True)
    ev = commands.add_parser(
        "evaluate", help="shard, evaluate every shard on the workers, merge into one report",
        description="The report is byte-identical to `smartstack evaluate` over the same inputs.")
    ev.add_argument("inputs", nargs="+", help="JSONL or JSONL.gz files: local paths, globs or fsspec URLs")
    ev.add_argument("--scheduler", default="local",
                    help="a Dask scheduler address (tcp://host:8786), or 'local' for a LocalCluster (default)")
    ev.add_argument("--workers", type=int, default=2, help="LocalCluster workers (default 2)")
    ev.add_argument("--threads-per-worker", type=int, default=1, help="LocalCluster threads per worker (default 1)")
    ev.add_argument("--worker-processes", action="store_true",
                    help="LocalCluster workers as processes (default: threads of this process; each task runs "
                         "smartstack in a child process either way, so processes only add their start-up)")
    ev.add_argument("--local-below", type=float, default=LOCAL_BELOW_GB, metavar="GB",
                    help=f"with --scheduler local, inputs smaller than this many GB in all are evaluated by one "
                         f"`smartstack evaluate --threads` instead (default {LOCAL_BELOW_GB:g}: below it a cluster's "
                         "start-up, sharding and merge cost more than 15%% of the work); 0 always starts the cluster")
    ev.add_argument("--shards", type=int, help="split the inputs into N shards by user (default: 2 x worker threads)")
    ev.add_argument("--sharded", action="store_true",
                    help="each input is already one shard holding whole users (from `smartstack shard`)")
    ev.add_argument("--work-dir", help="where shards and partials are written: a path or URL every worker and "
                                       "this machine can read (default: a temporary local directory, fine for a "
                                       "LocalCluster; without it, a remote cluster returns partials through Dask)")
    ev.add_argument("--binary", help="the smartstack executable on the workers (default: shipped, else PATH)")
    ev.add_argument("--ship-binary", metavar="PATH", help="send this local binary to every worker and use it")
    ev.add_argument("--local-binary", help="the smartstack executable here, for `merge` (default: --binary or PATH)")
    ev.add_argument("--report", help="write report.json, report.md and report.html into DIR")
    ev.add_argument("--json", action="store_true", help="print report.json to stdout")
    ev.add_argument("--name", help="the report's dataset name (default: as smartstack evaluate names the inputs)")
    ev.add_argument("--keep-partials", metavar="DIR", help="keep the shards' partial files in DIR")
    ev.add_argument("--stats", metavar="FILE", help="write per-shard timings, peak memory and partial sizes as JSON")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar or dashboard link")
    return root


def split_arguments(argv: list[str]) -> tuple[list[str], list[str]]:
    """Separates the `smartstack evaluate` options (passed to every shard) from the driver's."""
    own, passed = [], []
    i = 0
    while i < len(argv):
        name = argv[i].split("=", 1)[0]
        if name in EVALUATE_OPTIONS:
            if "=" in argv[i]:
                passed += argv[i].split("=", 1)
            elif EVALUATE_OPTIONS[name]:
                if i + 1 >= len(argv):
                    raise DriverError(f"{name} needs a value")
                passed += [argv[i], argv[i + 1]]
                i += 1
            else:
                passed.append(argv[i])
        else:
            own.append(argv[i])
        i += 1
    return own, passed


def evaluate_small_input_locally(options, passed: list[str]) -> int | None:
    """With `--scheduler local`, local inputs smaller than `--local-below` GB in all are evaluated
    by one `smartstack evaluate --threads (workers x threads)`: the same report, without a cluster.
    Returns the exit status, or None when the inputs are not that (too big, remote, or a glob
    matching nothing: the cluster path reports those)."""
    import os
    import subprocess

    from .inputs import expand_inputs, find_local_binary
    from .tasks import is_local

    if not all(is_local(item) for item in options.inputs) or options.stats or options.keep_partials or options.name:
        return None
    try:
        written = expand_inputs(options.inputs)
    except DriverError:
        return None
    size = sum(os.path.getsize(opened) for _, opened in written)
    if size >= options.local_below * 1e9:
        return None
    binary = find_local_binary(options.local_binary, options.binary)
    threads = options.workers * options.threads_per_worker
    arguments = [binary, "evaluate", *[w for w, _ in written], *passed]
    if "--threads" not in passed:
        arguments += ["--threads", str(threads)]
    if options.report:
        arguments += ["--report", options.report]
    if options.json:
        arguments.append("--json")
    print(f"{size / 1e6:.0f} MB of input: evaluated by one `smartstack evaluate --threads {threads}`, the same report "
          f"without a cluster (below --local-below {options.local_below:g} GB its start-up costs more than it saves)",
          file=sys.stderr)
    process = subprocess.run(arguments, stdout=sys.stdout if options.json else subprocess.DEVNULL)
    return process.returncode if process.returncode in (0, 1, 64) else 1


def close_local_cluster(cluster, timeout: float = 30.0) -> None:
    """Closes a LocalCluster workers first: each worker process leaves while the scheduler is
    still there to hear it, then the scheduler goes. Closing the scheduler first (or both at
    once) leaves a worker's heartbeat in flight to a closed connection, which the worker reports
    with a traceback ("Failed to communicate with scheduler during heartbeat")."""
    import time

    try:
        cluster.scale(0)
        deadline = time.monotonic() + timeout
        while cluster.scheduler_info.get("workers") and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        cluster.close(timeout=timeout)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        own, passed = split_arguments(argv)
    except DriverError as error:
        print(f"error: {error}", file=sys.stderr)
        return 64
    options = parser().parse_args(own)
    if options.report is None and not options.json:
        print("error: give --report DIR or --json", file=sys.stderr)
        return 64
    if options.scheduler == "local" and options.local_below > 0:
        small = evaluate_small_input_locally(options, passed)
        if small is not None:
            return small
    from distributed import Client, LocalCluster

    from .driver import evaluate, ship_binary

    cluster = None
    try:
        if options.scheduler == "local":
            cluster = LocalCluster(n_workers=options.workers, threads_per_worker=options.threads_per_worker,
                                   processes=options.worker_processes, dashboard_address=":0")
            client = Client(cluster)
        else:
            client = Client(options.scheduler)
        with client:
            if options.ship_binary:
                ship_binary(client, options.ship_binary)
            result = evaluate(options.inputs, options.report, client=client, binary=options.binary,
                              local_binary=options.local_binary or (options.ship_binary if options.binary is None else None),
                              shards=options.shards, sharded=options.sharded, work_dir=options.work_dir,
                              evaluate_args=passed, name=options.name, json_output=options.json,
                              progress=not options.no_progress and sys.stderr.isatty(),
                              keep_partials=options.keep_partials)
    except DriverError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        if cluster is not None:
            close_local_cluster(cluster)
    if options.json and result.report_json is not None:
        sys.stdout.write(result.report_json)
    if options.stats:
        with open(options.stats, "w") as handle:
            json.dump({"shards": result.shards, "skipped_empty_shards": result.skipped_empty_shards}, handle, indent=2)
    if options.report:
        print(f"Report written to {options.report}/report.json, report.md and report.html", file=sys.stderr)
    return 0
