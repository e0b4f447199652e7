#!/usr/bin/env bash
# The Dask driver's tests (bindings/dask): a venv under .build with the pinned requirements, the
# debug smartstack binary, and pytest with a LocalCluster of 2 worker processes: merged reports
# byte-identical to single runs (five personas, 1/2/3/7 shards), a worker killed mid-run, and the
# errors. A few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product smartstack 2>&1 | tail -n 1
bin="$(swift build --product smartstack --show-bin-path)/smartstack"
venv=.build/dask-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r bindings/dask/requirements.txt
SMARTSTACK_BINARY="$bin" PYTHONPATH=bindings/dask "$venv/bin/python" -m pytest -q -p no:cacheprovider bindings/dask/tests
