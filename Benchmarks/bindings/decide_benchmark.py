"""Decision latency through the Python binding (ctypes), on the history `smartstack-bench bindings`
writes, at the same instants. Run by Benchmarks/bindings/run.sh; prints one RESULT line.

    python decide_benchmark.py --history H --first-ns N --step-ns S --offset O --warmup W --decisions D
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
import smartstack  # noqa: E402  (the checkout's package, on the library SMARTSTACK_LIBRARY names)
from smartstack import _engine  # noqa: E402  (the JSON reader `rank` uses, for the JSON route)


def main():
    parser = argparse.ArgumentParser()
    for name in ("history",):
        parser.add_argument(f"--{name}", required=True)
    for name in ("first-ns", "step-ns", "offset", "warmup", "decisions"):
        parser.add_argument(f"--{name}", type=int, required=True)
    args = parser.parse_args()
    zone = timezone(timedelta(seconds=args.offset))
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    instants = [(epoch + timedelta(microseconds=(args.first_ns + k * args.step_ns) // 1000)).astimezone(zone)
                for k in range(args.warmup + args.decisions)]
    with tempfile.TemporaryDirectory() as directory:
        with smartstack.Engine(os.path.join(directory, "bench.sqlite"), policy="contextual") as engine:
            engine.record_jsonl(Path(args.history).read_bytes())
            # Per decision: the call alone (top, rotated and propensity read; the ranking is read
            # on first access) and the call with every widget and reason read into objects;
            # Engine.decide reads the packed decision. For comparison, the JSON route with reasons:
            # decide_json, its text parsed and read into the same objects.
            samples = {"explained": [], "explained_read": [], "bare": [], "bare_read": [], "json_read": []}
            for k, at in enumerate(instants):
                t0 = time.perf_counter_ns()
                raw = _engine._parse(engine.decide_json("home", user="bench", at=at))
                ranking = _engine._widgets(raw["ranking"])
                t1 = time.perf_counter_ns()
                if k >= args.warmup:
                    samples["json_read"].append(t1 - t0)
                assert ranking and ranking[0].reasons
                for kind, explain in (("explained", True), ("bare", False)):
                    t0 = time.perf_counter_ns()
                    decision = engine.decide("home", user="bench", at=at, explain=explain)
                    t1 = time.perf_counter_ns()
                    ranking = decision.ranking
                    t2 = time.perf_counter_ns()
                    if k >= args.warmup:
                        samples[kind].append(t1 - t0)
                        samples[kind + "_read"].append(t2 - t0)
                    assert ranking and (not explain or ranking[0].reasons)
    result = {kind: (statistics.median(values) / 1000, sorted(values)[len(values) * 99 // 100] / 1000)
              for kind, values in samples.items()}
    print("Python decide (Engine.decide -> Decision): median %.2f µs, p99 %.2f µs; with the ranking read: median %.2f µs, "
          "p99 %.2f µs" % (*result["explained"], *result["explained_read"]))
    print("  without reasons: median %.2f µs, p99 %.2f µs; with the ranking read: median %.2f µs, p99 %.2f µs"
          % (*result["bare"], *result["bare_read"]))
    print("  JSON route with reasons (decide_json, parsed, read into the same objects): median %.2f µs, p99 %.2f µs"
          % result["json_read"])
    print("RESULT python_decide_median_us=%.3f python_decide_read_median_us=%.3f python_decide_bare_median_us=%.3f "
          "python_decide_bare_read_median_us=%.3f python_decide_json_read_median_us=%.3f"
          % (result["explained"][0], result["explained_read"][0], result["bare"][0], result["bare_read"][0],
             result["json_read"][0]))

if __name__ == "__main__":
    main()
