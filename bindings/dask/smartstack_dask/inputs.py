"""What the driver checks before any cluster: its error, the inputs, the local binary. Imports
nothing beyond the standard library (fsspec only for URLs), so that an input small enough to be
evaluated by one `smartstack evaluate` does not pay for importing Dask."""

from __future__ import annotations

import glob
import os
import shutil

from . import tasks


class DriverError(RuntimeError):
    """The evaluation could not be completed; the message says which input, shard or partial."""


def expand_inputs(inputs: list[str]) -> list[tuple[str, str]]:
    """Each input as (as the user wrote it, what a worker opens): globs expanded (sorted, as a
    shell does), local paths made absolute for the workers, URLs kept; every one checked."""
    expanded: list[tuple[str, str]] = []
    for item in inputs:
        if tasks.is_local(item):
            path = tasks.local_path(item)
            matches = sorted(glob.glob(path)) if any(c in path for c in "*?[") else [path]
            if not matches or not all(os.path.isfile(m) for m in matches):
                raise DriverError(f"input not found: {item}")
            expanded += [(m, os.path.abspath(m)) for m in matches]
            continue
        import fsspec   # only for URLs: the local path stays free of it

        fs, path = fsspec.core.url_to_fs(item)
        matches = sorted(fs.glob(path)) if any(c in path for c in "*?[") else [path]
        if not matches or not all(fs.isfile(m) for m in matches):
            raise DriverError(f"input not found: {item}")
        expanded += [(fs.unstrip_protocol(m),) * 2 for m in matches]
    return expanded


def find_local_binary(local_binary: str | None, binary: str | None) -> str:
    for candidate in (local_binary, binary):
        if candidate is None:
            continue
        if os.path.sep in candidate and os.access(candidate, os.X_OK):
            return candidate
        if os.path.sep not in candidate and shutil.which(candidate):
            return shutil.which(candidate)
        if candidate is local_binary:
            raise DriverError(f"smartstack binary for merging not found on this machine: {candidate}")
    found = shutil.which("smartstack")
    if found is None:
        raise DriverError("no smartstack binary on this machine to merge the partials: give --local-binary PATH")
    return found
