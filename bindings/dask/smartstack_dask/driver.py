"""The driver: shard the inputs, evaluate every shard as a Dask task, gather and merge.

```python
from distributed import Client, LocalCluster
from smartstack_dask import evaluate

with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
    result = evaluate(["Datasets/commuter.jsonl"], report_dir="out/commuter", client=client,
                      evaluate_args=["--policies", "all"])
```

The report is byte-identical to `smartstack evaluate` over the same inputs, whatever the number
of shards and whichever workers ran them: the partial format (`Datasets/PARTIAL-FORMAT.md`)
carries every user's sufficient statistics and `smartstack merge` recombines them in user order.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

import cloudpickle
import fsspec
from distributed import Client, as_completed
from distributed.client import FutureCancelledError

from . import tasks
from .inputs import DriverError, expand_inputs, find_local_binary
from .tasks import SmartStackTaskError

# Workers need dask, distributed and fsspec, not this package: the task functions travel by value.
cloudpickle.register_pickle_by_value(tasks)


@dataclass
class EvaluationResult:
    """What a driver run produced."""

    report_dir: str | None
    report_json: str | None
    shards: list[dict] = field(default_factory=list)
    """Per evaluated shard: its files, users, events, seconds, the child's peak memory, partial size."""
    skipped_empty_shards: int = 0


def dataset_name(inputs: list[str]) -> str:
    """The name `smartstack evaluate` gives the same inputs: the first file's, less `.gz`, `.jsonl`."""
    base = os.path.basename(inputs[0].rstrip("/")) if inputs else "events"
    for ext in (".gz", ".jsonl"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return base


def default_truth(inputs: list[str], evaluate_args: list[str]) -> str | None:
    """The truth file `smartstack evaluate` would find next to the first input (for `oracle`).

    Shards live elsewhere, so the driver looks where the single-process run would and passes it.
    """
    if "--truth" in evaluate_args or not inputs:
        return None
    first = inputs[0]
    candidates = [first + ".truth.jsonl"]
    if first.endswith(".jsonl"):
        candidates.append(first[: -len(".jsonl")] + ".truth.jsonl")
    for candidate in candidates:
        fs, path = fsspec.core.url_to_fs(candidate)
        if fs.isfile(path):
            return candidate
    return None


def split_truth(evaluate_args: list[str]) -> tuple[list[str], str | None]:
    """Takes `--truth FILE` out of the arguments: each worker fetches the file itself."""
    args = list(evaluate_args)
    if "--truth" in args:
        i = args.index("--truth")
        if i + 1 >= len(args):
            raise DriverError("--truth needs a file")
        truth = args[i + 1]
        del args[i : i + 2]
        return args, truth
    return args, None


def show_progress(futures: list, enabled: bool) -> None:
    if enabled and futures:
        from distributed import progress

        progress(futures, notebook=False)
        print(file=sys.stderr)


def gather_all(client: Client, futures: dict, describe) -> dict:
    """Waits for every future; a failed one becomes a `DriverError` naming what it was for."""
    results = {}
    for future in as_completed(list(futures)):
        what = futures[future]
        try:
            results[what] = future.result()
        except FutureCancelledError as error:
            raise DriverError(f"{describe(what)}: cancelled ({error})") from None
        except Exception as error:
            # A task's own failure already says where and why; the class travels by value, so
            # it is matched by name. Anything else (KilledWorker, ...) gets the shard named.
            if type(error).__name__ == SmartStackTaskError.__name__:
                raise DriverError(str(error)) from None
            raise DriverError(f"{describe(what)}: {type(error).__name__}: {error}") from None
    return results


def evaluate(inputs: list[str], report_dir: str | None = None, *, client: Client, binary: str | None = None,
             local_binary: str | None = None, shards: int | None = None, sharded: bool = False,
             work_dir: str | None = None, evaluate_args: list[str] | None = None, name: str | None = None,
             sources: list[str] | None = None, json_output: bool = False, progress: bool = False,
             keep_partials: str | None = None, shared_storage: bool | None = None) -> EvaluationResult:
    """Evaluates `inputs` on the cluster behind `client` and writes the merged report.

    - `binary`: the smartstack executable on the workers (default: shipped, else on PATH);
      `local_binary`: the one on this machine for `merge` (default: `binary` if it exists here,
      else `smartstack` on PATH).
    - `sharded`: each input is already one shard (whole users, e.g. from `smartstack shard`);
      otherwise every input is split into `shards` files by a stable hash of the user (on the
      workers, into `work_dir`, which must be readable by every worker: a shared path or a URL).
    - `evaluate_args`: options of `smartstack evaluate` (`--policies all`, `--seed 3`, ...).
    - `name`, `sources`: the report's `dataset.name` and `dataset.sources` (default: what
      `smartstack evaluate` prints for `inputs` written the same way, so the reports are identical).
    - `shared_storage`: whether workers write their partials where this machine reads them
      (`keep_partials` or `work_dir`) instead of returning them through Dask. Default: on a
      `LocalCluster`, or when `work_dir` is given (it is shared storage, as sharding needs).
    """
    args, truth = split_truth(list(evaluate_args or []))
    written = expand_inputs(inputs)
    if not written:
        raise DriverError("no input")
    inputs = [opened for _, opened in written]
    if truth is None:
        truth = default_truth(inputs, args)
    if truth is not None and tasks.is_local(truth):
        if not os.path.isfile(tasks.local_path(truth)):
            raise DriverError(f"truth file not found: {truth}")
        truth = os.path.abspath(tasks.local_path(truth))
    if "--threads" not in args:
        args += ["--threads", "1"]
    if keep_partials is not None:
        keep_partials = os.path.abspath(keep_partials)   # the workers of a LocalCluster write there
    merge_binary = find_local_binary(local_binary, binary)
    if progress:
        print(f"dashboard: {client.dashboard_link}", file=sys.stderr)

    owned_work_dir = None
    if work_dir is None:
        owned_work_dir = tempfile.mkdtemp(prefix="smartstack-dask-")
        work_dir = owned_work_dir
    try:
        plan, skipped = plan_shards(client, inputs, binary, shards, sharded, work_dir, progress)
        with tempfile.TemporaryDirectory(prefix="smartstack-partials-") as scratch:
            # Workers write partials where this machine reads them, when there is such a place:
            # the kept-partials directory or the work directory on a LocalCluster, the work
            # directory the caller gave (shared storage); else they travel back through Dask.
            local_cluster = is_local_cluster(client)
            if shared_storage is None:
                shared_storage = local_cluster or owned_work_dir is None
            if not shared_storage:
                partial_dir = None
            elif local_cluster and keep_partials:
                partial_dir = keep_partials
            else:
                partial_dir = f"{work_dir.rstrip('/')}/partials"
            futures = {}
            for index, (shard, files) in enumerate(plan):
                partial_url = None if partial_dir is None else f"{partial_dir.rstrip('/')}/shard-{shard:05d}.partial"
                future = client.submit(tasks.evaluate_shard, binary, shard, files, args, truth, partial_url,
                                       key=f"smartstack-evaluate-{shard:05d}-{tasks.uuid.uuid4().hex[:8]}", pure=False)
                futures[future] = index
            show_progress(list(futures), progress)
            outcomes = gather_all(client, futures,
                                  lambda i: f"shard {plan[i][0]} ({', '.join(plan[i][1])})")
            kept = keep_partials or scratch
            os.makedirs(kept, exist_ok=True)
            paths = []
            stats = []
            for index, (shard, files) in enumerate(plan):
                data, info = outcomes[index]
                path = os.path.join(kept, f"shard-{shard:05d}.partial")
                if isinstance(data, bytes):
                    with open(path, "wb") as handle:
                        handle.write(data)
                elif tasks.is_local(data) and not keep_partials:
                    path = tasks.local_path(data)   # read where the worker wrote it
                elif tasks.local_path(data) != path:
                    try:
                        with fsspec.open(data, "rb") as src, open(path, "wb") as dst:
                            shutil.copyfileobj(src, dst, 1 << 20)
                    except Exception as error:  # any fsspec back end: say which partial
                        raise DriverError(f"cannot read the partial of shard {shard} at {data}: {error}") from error
                paths.append(path)
                info["files"] = files
                info["partial_through"] = "dask" if isinstance(data, bytes) else "storage"
                stats.append(info)
            report_json = merge(merge_binary, paths, plan, report_dir,
                                name if name is not None else dataset_name([w for w, _ in written]),
                                sources if sources is not None else [w for w, _ in written], json_output)
        return EvaluationResult(report_dir=report_dir, report_json=report_json, shards=stats,
                                skipped_empty_shards=skipped)
    finally:
        if owned_work_dir is not None:
            shutil.rmtree(owned_work_dir, ignore_errors=True)


def plan_shards(client: Client, inputs: list[str], binary: str | None, shards: int | None, sharded: bool,
                work_dir: str, progress: bool) -> tuple[list[tuple[int, list[str]]], int]:
    """The shards to evaluate, as (shard number, files); and how many were empty and skipped."""
    if sharded:
        return [(i, [url]) for i, url in enumerate(inputs)], 0
    if shards is None:
        threads = sum(client.nthreads().values()) or 1
        shards = 2 * threads
    if shards < 1:
        raise DriverError("--shards must be at least 1")
    out = f"{work_dir.rstrip('/')}/shards"
    futures = {}
    for index, url in enumerate(inputs):
        future = client.submit(tasks.shard_input, binary, url, index, shards, out,
                               key=f"smartstack-shard-{index:05d}-{tasks.uuid.uuid4().hex[:8]}", pure=False)
        futures[future] = index
    show_progress(list(futures), progress)
    results = gather_all(client, futures, lambda i: f"sharding input {inputs[i]}")
    by_shard: dict[int, list[str]] = {}
    for index in range(len(inputs)):
        for entry in results[index]:
            if entry["events"] > 0:
                by_shard.setdefault(entry["shard"], []).append(entry["url"])
    plan = sorted(by_shard.items())
    return plan, shards - len(plan)


def is_local_cluster(client: Client) -> bool:
    """Whether the workers run on this machine (a `LocalCluster`): they see its files."""
    from distributed import LocalCluster

    return isinstance(getattr(client, "cluster", None), LocalCluster)


def merge(binary: str, paths: list[str], plan: list[tuple[int, list[str]]], report_dir: str | None,
          name: str, sources: list[str], json_output: bool) -> str | None:
    """`smartstack merge`; an error naming a partial also names the shard it came from."""
    arguments = [binary, "merge", *paths, "--name", name]
    for source in sources:
        arguments += ["--source", source]
    if report_dir is not None:
        arguments += ["--report", report_dir]
    if json_output or report_dir is None:
        arguments.append("--json")
    process = subprocess.run(arguments, capture_output=True)
    if process.returncode != 0:
        message = process.stderr.decode("utf-8", "replace").strip()
        for path, (shard, files) in zip(paths, plan):
            if path in message:
                message += f"\n({os.path.basename(path)} is the partial of shard {shard}: {', '.join(files)})"
        raise DriverError(f"smartstack merge failed: {message}")
    return process.stdout.decode("utf-8") if (json_output or report_dir is None) else None


def ship_binary(client: Client, path: str) -> None:
    """Sends the binary at `path` to every worker, present and future (a Dask worker plugin).

    It must run on the workers: build it on the same OS and architecture, with the Swift
    runtime linked in (`swift build -c release --product smartstack --static-swift-stdlib`);
    the workers still need libsqlite3 and zlib, as any Debian or Ubuntu image has.
    """
    if not os.path.isfile(path):
        raise DriverError(f"binary to ship not found: {path}")
    from distributed.diagnostics.plugin import WorkerPlugin

    class _Plugin(tasks.ShipBinary, WorkerPlugin):
        pass

    with open(path, "rb") as handle:
        client.register_plugin(_Plugin(handle.read()), name=tasks.ShipBinary.name)
