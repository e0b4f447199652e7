#!/usr/bin/env bash
# The Dask driver's tests (bindings/dask): a venv under .build with the pinned requirements, the
# debug smartstack binary (already built by `swift test`: a release build would cost more than it
# saves), and pytest with a LocalCluster of 2 worker processes: merged reports byte-identical to
# single runs (five personas, --policies all with off-policy estimates, 1/2/3/7 shards), a worker
# killed mid-run, and the refusals. About 1.5 minutes on 2 shared cores (91 s at load 8, against
# 6-10 minutes before the bootstrap stopped sorting every resample's dwells).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product smartstack 2>&1 | tail -n 1
bin="$(swift build --product smartstack --show-bin-path)/smartstack"
venv=.build/dask-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r bindings/dask/requirements.txt
SMARTSTACK_BINARY="$bin" PYTHONPATH=bindings/dask "$venv/bin/python" -m pytest -q -p no:cacheprovider bindings/dask/tests
