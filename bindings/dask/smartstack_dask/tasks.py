"""What runs on the Dask workers: `smartstack shard` on one input, `smartstack evaluate --partial`
on one shard. Plain functions of plain arguments, so any engine could call them the same way.

The driver pickles this module by value (cloudpickle), so workers need dask, distributed and
fsspec but not this package. Every function is idempotent: a task re-run after a worker died
writes the same files (under temporary names, renamed when complete) and returns the same bytes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import uuid


class SmartStackTaskError(RuntimeError):
    """A task failed for a reason re-running will not fix: what failed, where, and why."""


SHIPPED_BINARY_NAME = "smartstack-shipped"


def worker_address() -> str:
    """The address of the Dask worker running the caller, or `local` outside a worker."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return "local"


def resolve_binary(binary: str | None) -> str:
    """The `smartstack` executable to run on this worker.

    `None` means: the binary shipped by the driver (`--ship-binary`) when there is one in the
    worker's local directory, else `smartstack` on the worker's PATH.
    """
    if binary is None:
        try:
            from distributed import get_worker

            shipped = os.path.join(get_worker().local_directory, SHIPPED_BINARY_NAME)
            if os.access(shipped, os.X_OK):
                return shipped
        except (ImportError, ValueError):
            pass
        found = shutil.which("smartstack")
        if found is None:
            raise SmartStackTaskError(
                f"worker {worker_address()}: no smartstack binary: none was shipped (--ship-binary) and "
                "'smartstack' is not on the worker's PATH (install it there, or give --binary PATH)")
        return found
    if os.path.sep not in binary:
        found = shutil.which(binary)
        if found is None:
            raise SmartStackTaskError(
                f"worker {worker_address()}: smartstack binary '{binary}' is not on the worker's PATH")
        return found
    if not os.path.isfile(binary):
        raise SmartStackTaskError(
            f"worker {worker_address()}: smartstack binary not found at {binary} "
            "(install it at that path on every worker, or ship it with --ship-binary)")
    if not os.access(binary, os.X_OK):
        raise SmartStackTaskError(f"worker {worker_address()}: smartstack binary {binary} is not executable")
    return binary


def is_local(url: str) -> bool:
    """Whether `url` is a path of the local file system (no protocol, or `file://`)."""
    return "://" not in url or url.startswith("file://")


def local_path(url: str) -> str:
    return url[len("file://"):] if url.startswith("file://") else url


def fetch(url: str, directory: str, what: str) -> str:
    """A local path holding the bytes of `url`: the path itself when local, else a download."""
    if is_local(url):
        path = local_path(url)
        if not os.path.isfile(path):
            raise SmartStackTaskError(f"worker {worker_address()}: cannot read {what} {url}: no such file on this worker")
        return path
    import fsspec   # only for remote files: the driver's local path does without it

    target = os.path.join(directory, f"{uuid.uuid4().hex}-{os.path.basename(url.rstrip('/'))}")
    try:
        with fsspec.open(url, "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    except Exception as error:  # any fsspec back end: report which file and why
        raise SmartStackTaskError(f"worker {worker_address()}: cannot read {what} {url}: {error}") from error
    return target


def put(local: str, url: str) -> None:
    """Copies a local file to `url` atomically where the store allows (local: rename)."""
    if is_local(url):
        path = local_path(url)
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        temporary = f"{path}.{uuid.uuid4().hex}.tmp"
        shutil.copyfile(local, temporary)
        os.replace(temporary, path)
        return
    import fsspec

    with open(local, "rb") as src, fsspec.open(url, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)


def child_environment() -> dict[str, str]:
    """The worker's environment without the malloc tuning a Dask nanny sets for its own Python
    process (`MALLOC_TRIM_THRESHOLD_=65536`): inherited, it makes smartstack return memory to the
    system after nearly every free (measured: three times the system time of a shard)."""
    return {name: value for name, value in os.environ.items() if name != "MALLOC_TRIM_THRESHOLD_"}


def run(binary: str, arguments: list[str], what: str) -> tuple[str, dict]:
    """Runs `binary arguments`, returning stdout and the child's resource use.

    Raises `SmartStackTaskError` with the command's own error message when it fails.
    """
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            process = subprocess.Popen([binary, *arguments], stdout=out, stderr=err, env=child_environment())
        except OSError as error:
            raise SmartStackTaskError(f"worker {worker_address()}: cannot run {binary}: {error}") from error
        # wait4, not wait: this child's own peak memory, whatever the worker ran before.
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if process.returncode != 0:
        message = stderr.decode("utf-8", "replace").strip() or f"exit status {process.returncode}"
        raise SmartStackTaskError(f"worker {worker_address()}: {what} failed: {message}")
    return stdout.decode("utf-8", "replace"), {
        "seconds": time.monotonic() - started,
        "max_rss_kib": usage.ru_maxrss,
        "worker": worker_address(),
    }


def shard_input(binary: str | None, url: str, index: int, shards: int, out_url: str) -> list[dict]:
    """`smartstack shard` one input into `shards` files under `out_url/input-<index>/`.

    Returns, per shard, its URL and how many users and events it holds.
    """
    executable = resolve_binary(binary)
    with tempfile.TemporaryDirectory(prefix="smartstack-shard-") as scratch:
        source = fetch(url, scratch, "input")
        target = os.path.join(local_path(out_url), f"input-{index:05d}") if is_local(out_url) else os.path.join(scratch, "out")
        stdout, _ = run(executable, ["shard", source, "--shards", str(shards), "--out", target, "--json"],
                        f"smartstack shard of {url}")
        summary = json.loads(stdout)
        result = []
        for entry in summary["shards"]:
            name = os.path.basename(entry["path"])
            shard_url = entry["path"] if is_local(out_url) else f"{out_url.rstrip('/')}/input-{index:05d}/{name}"
            if not is_local(out_url):
                put(entry["path"], shard_url)
            result.append({"shard": entry["shard"], "url": shard_url, "users": entry["users"], "events": entry["events"]})
        return result


def evaluate_shard(binary: str | None, shard: int, urls: list[str], arguments: list[str],
                   truth_url: str | None, partial_url: str | None = None) -> tuple[bytes | str, dict]:
    """`smartstack evaluate --partial` over one shard's files.

    `arguments` are the evaluate options (policies, window, seed, ...) shared by every shard.
    With `partial_url` (storage the client reads too: a shared path or a URL) the partial is
    written there and its URL returned, so tens of megabytes do not travel through Dask;
    without, the task returns the partial's bytes.
    """
    executable = resolve_binary(binary)
    with tempfile.TemporaryDirectory(prefix="smartstack-evaluate-") as scratch:
        files = [fetch(url, scratch, f"shard {shard} file") for url in urls]
        extra = []
        if truth_url is not None:
            extra = ["--truth", fetch(truth_url, scratch, "truth file")]
        partial = os.path.join(scratch, f"shard-{shard:05d}.partial")
        if partial_url is not None and is_local(partial_url):
            # Written in place under a temporary name, renamed when complete: a re-run task
            # (its worker died) replaces it whole.
            target = local_path(partial_url)
            try:
                os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
            except OSError as error:
                raise SmartStackTaskError(f"worker {worker_address()}: cannot write the partial of shard {shard} "
                                          f"to {partial_url}: {error}") from error
            partial = f"{target}.{uuid.uuid4().hex}.tmp"
        try:
            _, stats = run(executable, ["evaluate", *files, *arguments, *extra, "--quiet", "--partial", partial],
                           f"smartstack evaluate of shard {shard} ({', '.join(urls)})")
        except SmartStackTaskError:
            if os.path.exists(partial):
                os.remove(partial)
            raise
        stats["shard"] = shard
        stats["partial_bytes"] = os.path.getsize(partial)
        if partial_url is None:
            with open(partial, "rb") as handle:
                return handle.read(), stats
        if is_local(partial_url):
            os.replace(partial, local_path(partial_url))
        else:
            put(partial, partial_url)
        return partial_url, stats


class ShipBinary:
    """A Dask worker plugin that writes the driver's smartstack binary into each worker's local
    directory (also on workers that join or restart later), where `resolve_binary(None)` finds it."""

    name = "smartstack-binary"

    def __init__(self, data: bytes):
        self.data = data

    def setup(self, worker) -> None:
        path = os.path.join(worker.local_directory, SHIPPED_BINARY_NAME)
        temporary = f"{path}.{uuid.uuid4().hex}.tmp"
        with open(temporary, "wb") as handle:
            handle.write(self.data)
        os.chmod(temporary, 0o755)
        os.replace(temporary, path)
