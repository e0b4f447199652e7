"""Fixtures: the smartstack binary, a LocalCluster of 2 single-threaded worker processes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

# The package root (bindings/dask), importable without installing the package.
PACKAGE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PACKAGE))


def _repository() -> Path:
    """The SmartStack checkout: $SMARTSTACK_ROOT, else the nearest directory above the package
    that holds Package.swift."""
    if os.environ.get("SMARTSTACK_ROOT"):
        return Path(os.environ["SMARTSTACK_ROOT"]).resolve()
    found = next((p for p in PACKAGE.parents if (p / "Package.swift").is_file()), None)
    if found is None:
        pytest.exit("no SmartStack checkout above bindings/dask: set SMARTSTACK_ROOT (and SMARTSTACK_BINARY)", 2)
    return found


REPOSITORY = _repository()
# The bundled datasets the tests evaluate: $SMARTSTACK_DATASETS, else the checkout's Datasets.
DATASETS = Path(os.environ.get("SMARTSTACK_DATASETS") or REPOSITORY / "Datasets").resolve()


def find_binary() -> str:
    """$SMARTSTACK_BINARY, else the release build of this checkout (built if missing)."""
    given = os.environ.get("SMARTSTACK_BINARY")
    if given:
        return str(Path(given).resolve())
    candidate = REPOSITORY / ".build" / "release" / "smartstack"
    if not candidate.exists():
        subprocess.run(["swift", "build", "-c", "release", "--product", "smartstack"], cwd=REPOSITORY, check=True)
    return str(candidate)


@pytest.fixture(scope="session")
def binary() -> str:
    path = find_binary()
    assert os.access(path, os.X_OK), f"no smartstack binary at {path}"
    return path


@pytest.fixture(scope="session")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as local:
        yield local


@pytest.fixture
def client(cluster):
    from distributed import Client

    with Client(cluster) as c:
        c.wait_for_workers(2)
        yield c


@pytest.fixture
def workdir(tmp_path) -> Path:
    return tmp_path


def evaluate_single(binary: str, inputs: list[str], report: Path, options: list[str]) -> None:
    """The reference: one `smartstack evaluate` over everything."""
    subprocess.run([binary, "evaluate", *inputs, *options, "--quiet", "--report", str(report)],
                   check=True, capture_output=True)


def report_json(text: bytes) -> bytes:
    """report.json without the command and time of its provenance."""
    report = json.loads(text)
    for fact in ("command", "generated"):
        report.get("provenance", {}).pop(fact, None)
    return json.dumps(report, sort_keys=True).encode()


def report_files(directory: Path) -> dict[str, bytes]:
    """The three reports, without the two provenance facts that name how each was made (the
    command, `smartstack evaluate …` or `smartstack merge …`, and the time): everything else must
    be byte-identical (Datasets/PARTIAL-FORMAT.md)."""
    files = {name: (directory / name).read_bytes() for name in ("report.json", "report.md", "report.html")}
    files["report.json"] = report_json(files["report.json"])
    files["report.md"] = re.sub(rb"\n- (Command|Generated): [^\n]*", b"", files["report.md"])
    files["report.html"] = re.sub(rb"<dt>(Command|Generated)</dt><dd>[^\n]*</dd>\n", b"", files["report.html"])
    return files


def make_wrapper(directory: Path, binary: str, body: str) -> str:
    """A stand-in for the binary: a shell script running `body` (with $REAL the real binary)."""
    path = directory / "smartstack-wrapper"
    path.write_text(f"#!/bin/sh\nREAL='{binary}'\n{body}\n")
    path.chmod(0o755)
    return str(path)

