"""Memory over 10**6 calls through the Python binding (not a test: it prints figures).

A launcher process lives for months: a leak of a few bytes per call shows after a million. One
engine over an in-memory log; the calls cycle through every kind (decisions packed and JSON,
rankings, recordings of events already stored, refusals with their messages, flushes) at
instants that move forward, so the log does not grow and the memory must not either. RSS
(VmRSS of /proc/self/status) is read every 100,000 calls; the baseline is the RSS after the
first 100,000 (caches warm), in the same run.

    SMARTSTACK_LIBRARY=.build/release/libSmartStackC.so .build/bindings-venv/bin/python Benchmarks/bindings/leak_check.py [CALLS]
"""
from __future__ import annotations

import gc
import sys
import time
from datetime import datetime, timedelta, timezone

from smartstack import Engine, SmartStackError

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
CHECKPOINT = 100_000
TARGET_KIB = 2048  # "flat": at most 2 MiB more than the baseline after every call


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def main() -> int:
    boston = timezone(timedelta(hours=-5))
    start = datetime(2026, 3, 2, 8, 0, tzinfo=boston)
    engine = Engine(":memory:")
    engine.configure("home", [("calendar", "com.apple.mobilecal"), ("weather", "com.apple.weather"), ("music", None)],
                     user="me", at=start)
    history = [{"time": start + timedelta(minutes=m), "type": "app_launch", "user": "me", "id": f"e{m}",
                "app": ("com.apple.mobilecal", "com.apple.weather")[m % 2]} for m in range(1, 100)]
    engine.record(history)
    later = start + timedelta(days=1)
    calls = 0
    rows = []
    started = time.monotonic()
    while calls < CALLS:
        k = calls // 8
        at = later + timedelta(seconds=k)          # forward in time: every answer is live
        engine.decide("home", user="me", at=at)                      # packed, with reasons
        engine.decide_json("home", user="me", at=at, explain=False)  # JSON, without
        engine.rank("home", user="me", at=at)
        engine.record(history[k % len(history)])                     # already stored: a duplicate
        try:
            engine.decide("gym", user="me", at=at)                   # a refusal and its message
        except SmartStackError:
            pass
        try:
            engine.rank("home", user="me", at=datetime(2300, 1, 1, tzinfo=timezone.utc))   # refused before ctypes
        except SmartStackError:
            pass
        try:
            engine.record_jsonl(b'{"time":"2026-03-02T08:00:00","type":"screen_on"}')    # an invalid line
        except SmartStackError:
            pass
        if k % 1000 == 0:
            engine.flush()
        else:
            engine.rank("home", user="me", at=at - timedelta(minutes=1))
        calls += 8
        if calls % CHECKPOINT == 0:
            gc.collect()
            rows.append((calls, rss_kib(), time.monotonic() - started))
    engine.close()
    baseline = rows[0][1]
    print(f"Python binding: {CALLS:,} calls (decide packed and JSON, rank, duplicate record, three refusals, flush), one engine")
    print("CALLS      RSS (KiB)   vs baseline   elapsed")
    for count, rss, elapsed in rows:
        print(f"{count:>9,}  {rss:>10,}   {rss - baseline:+8,} KiB   {elapsed:6.1f} s")
    growth = max(rss for _, rss, _ in rows) - baseline
    per_call = (rows[-1][1] - baseline) * 1024 / (rows[-1][0] - rows[0][0])
    verdict = "met" if growth <= TARGET_KIB else "MISSED"
    print(f"RESULT python_calls={CALLS} baseline_kib={baseline} final_kib={rows[-1][1]} growth_kib={growth} "
          f"bytes_per_call={per_call:.3f} ratio={rows[-1][1] / baseline:.4f}")
    print(f"RSS growth after the first {CHECKPOINT:,} calls: {growth:+,} KiB (target <= {TARGET_KIB} KiB: {verdict}); "
          f"{per_call:.3f} bytes per call from {rows[0][0]:,} to {rows[-1][0]:,}")
    return 0 if verdict == "met" else 1


if __name__ == "__main__":
    sys.exit(main())
