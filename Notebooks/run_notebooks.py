#!/usr/bin/env python3
"""Runs the SmartStack notebooks headlessly, or checks that they are committed clean.

    python Notebooks/run_notebooks.py [--out DIR] [--timeout S] [NOTEBOOK ...]
    python Notebooks/run_notebooks.py --check-clean [NOTEBOOK ...]

Each notebook runs with Notebooks/ as its working directory, so the defaults of its `parameters`
cell (paths relative to Notebooks/) work; point it elsewhere with the SMARTSTACK_* environment
variables that cell reads (the kernel inherits this process's environment). The source notebooks are
never modified: executed copies go to --out (default: none written). Exit status 1 names the first
failing notebook and cell; --check-clean exits 1 when a notebook carries outputs or execution counts.
"""
import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent


def notebooks(names):
    if names:
        return [Path(n).resolve() for n in names]
    return sorted(HERE.glob("[0-9][0-9]-*.ipynb"))


def check_clean(paths):
    dirty = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            if cell.get("outputs"):
                dirty.append(f"{path.name}: cell {index} has {len(cell.outputs)} output(s)")
            if cell.get("execution_count") is not None:
                dirty.append(f"{path.name}: cell {index} has execution count {cell.execution_count}")
        if not any(c.cell_type == "code" and "parameters" in c.metadata.get("tags", []) for c in nb.cells):
            dirty.append(f"{path.name}: no code cell tagged 'parameters'")
    for line in dirty:
        print(f"error: {line}", file=sys.stderr)
    if dirty:
        print("Clear outputs before committing: jupyter nbconvert --clear-output --inplace Notebooks/*.ipynb "
              "(or Kernel > Restart & Clear Output)", file=sys.stderr)
        return 1
    print(f"{len(paths)} notebook(s) clean: no outputs, no execution counts, a parameters cell each.")
    return 0


def run(paths, out_dir, timeout):
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    # Kernels inherit this environment: make figures land in the notebook whatever the caller set.
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"

    for path in paths:
        nb = nbformat.read(path, as_version=4)
        started = time.monotonic()
        # Local IPC sockets in a private temporary folder rather than TCP ports on localhost.
        sockets = tempfile.mkdtemp(prefix="smartstack-nb-")
        km = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "kernel"))
        client = NotebookClient(nb, km=km, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}})
        try:
            client.execute()
        except CellExecutionError as error:
            index = next((i for i, c in enumerate(nb.cells)
                          if c.cell_type == "code" and any(o.get("output_type") == "error" for o in c.get("outputs", []))), None)
            where = f"cell {index}" if index is not None else "a cell"
            plain = re.sub(r"\x1b\[[0-9;]*m", "", str(error))
            print(f"{plain}\nerror: {path.name}: {where} failed: {error.ename}: {error.evalue}", file=sys.stderr)
            if out_dir:
                save(nb, out_dir, path)
            return 1
        except Exception as error:  # kernel died, timeout...
            print(f"error: {path.name}: {type(error).__name__}: {error}", file=sys.stderr)
            return 1
        finally:
            if km.has_kernel:  # we own the kernel manager, so nbclient leaves the kernel running
                km.shutdown_kernel(now=False)
            shutil.rmtree(sockets, ignore_errors=True)
        figures = sum(1 for c in nb.cells if c.cell_type == "code"
                      for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
        if out_dir:
            save(nb, out_dir, path)
        if figures == 0:
            print(f"error: {path.name}: ran but drew no figure", file=sys.stderr)
            return 1
        print(f"ok {path.name}: {figures} figure(s) in {time.monotonic() - started:.1f}s")
    return 0


def save(nb, out_dir, path):
    out_dir.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out_dir / path.name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="notebooks to run (default: Notebooks/NN-*.ipynb)")
    parser.add_argument("--out", type=Path, help="write executed copies into this folder")
    parser.add_argument("--timeout", type=int, default=300, help="seconds allowed per cell (default: 300)")
    parser.add_argument("--check-clean", action="store_true", help="only check that no notebook carries outputs")
    args = parser.parse_args()
    paths = notebooks(args.notebooks)
    missing = [p for p in paths if not p.is_file()]
    if missing or not paths:
        print(f"error: no such notebook: {', '.join(map(str, missing)) or 'none found in ' + str(HERE)}", file=sys.stderr)
        return 64
    return check_clean(paths) if args.check_clean else run(paths, args.out, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
