#!/usr/bin/env bash
# The Dask driver (bindings/dask), as its README says to install, run and test it, against the
# release build: a venv under .build with the pinned requirements, an evaluation on a LocalCluster,
# and pytest with a LocalCluster of 2 worker processes (merged reports byte-identical to single
# runs on five personas with --policies all, 1/2/3/7 shards; a worker killed mid-run; the
# refusals; the package's pins). CI runs these blocks through .ci/readme.sh with the other
# READMEs'; this runs them alone (about 1 minute once the release build exists).
set -euo pipefail
cd "$(dirname "$0")/.."
exec bash .ci/readme.sh bindings/dask/README.md
