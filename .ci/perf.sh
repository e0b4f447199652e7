#!/usr/bin/env bash
# The performance record (Benchmarks/perf): instructions per replayed event, per recorded event and
# per ranking (with and without reasons), counted by callgrind in the release build, against the
# checked-in baseline. Fails when a workload grows by more than 10% without the baseline being
# updated in the same commit. Then checks the check: a deliberate 20% slowdown
# (SMARTSTACK_BENCH_EXTRA_WORK=20, more of the measured work) must fail it, and 5% must not.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v valgrind >/dev/null; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends valgrind
fi
swift build -c release --product smartstack-bench
bench="$(swift build -c release --product smartstack-bench --show-bin-path)/smartstack-bench"
python3 Benchmarks/perf/record.py --bench "$bench"

# The record's own test: the same workloads doing 20% more of their measured work are caught...
set +e
SMARTSTACK_BENCH_EXTRA_WORK=20 python3 Benchmarks/perf/record.py --bench "$bench" --out .build/perf/slowdown.json \
    > .build/perf/slowdown.txt 2>&1
status=$?
set -e
cat .build/perf/slowdown.txt
if [ "$status" -ne 1 ] || [ "$(grep -c 'SLOWER by more than 10%' .build/perf/slowdown.txt)" -ne 4 ]; then
    echo "perf record test: a 20% slowdown of every workload should fail the record (status 1, four SLOWER lines); status $status" >&2
    exit 1
fi
# ...and 5% more is within the tolerance.
SMARTSTACK_BENCH_EXTRA_WORK=5 python3 Benchmarks/perf/record.py --bench "$bench" --only rank-bare --out .build/perf/small.json
echo "perf record test: a 20% slowdown is caught, 5% is not: OK"
