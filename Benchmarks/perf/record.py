#!/usr/bin/env python3
"""The performance record: instructions of the engine's per-event paths, against a baseline.

Runs each workload of `smartstack-bench workload` (replay, record, rank with and without
reasons) under callgrind, counting only the instructions inside the engine function each one
exercises (`--toggle-collect`), and prints them per unit with their ratio to the checked-in
baseline (`Benchmarks/perf/baseline.json`). Instruction counts of a fixed workload do not move
with the load of the machine, only with the code and the toolchain, so a small tolerance is
enough: a workload more than 10% above its baseline fails the run. A change that costs more on
purpose updates the baseline in the same commit (`--update`), where a reviewer sees it.

Exit status: 0 all within tolerance; 1 a workload above it (or without a baseline); 2 the
measurement itself failed.

Usage: python3 Benchmarks/perf/record.py [--bench .build/release/smartstack-bench]
           [--only replay,record] [--update] [--tolerance 0.10] [--out .build/perf/record.json]
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BASELINE = os.path.join(REPO, "Benchmarks", "perf", "baseline.json")


class Failure(Exception):
    pass


def first_line(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()[0].strip()
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown"


def workloads(bench):
    out = subprocess.run([bench, "workload", "--list"], capture_output=True, text=True)
    if out.returncode != 0:
        raise Failure("%s workload --list failed: %s" % (bench, out.stderr.strip()))
    rows = [line.split(" ") for line in out.stdout.splitlines() if line.strip()]
    return [{"name": r[0], "pattern": r[1], "unit": r[2]} for r in rows]


def symbol(bench, pattern):
    """The one symbol of `bench` matching `pattern` (`*` a wildcard): callgrind toggles on every
    match, so two nested matches would switch collection off inside."""
    out = subprocess.run(["nm", bench], capture_output=True, text=True)
    if out.returncode != 0:
        raise Failure("nm %s failed: %s" % (bench, out.stderr.strip()))
    regex = re.compile("^" + re.escape(pattern).replace(r"\*", ".*") + "$")
    found = sorted({line.split()[-1] for line in out.stdout.splitlines() if regex.match(line.split()[-1])})
    if len(found) != 1:
        raise Failure("%d symbols of %s match %s (expected exactly one; was the function renamed or inlined?): %s"
                      % (len(found), bench, pattern, ", ".join(found[:4]) or "none"))
    return found[0]


def measure(bench, workload, sym):
    """Instructions counted inside `sym` while `bench workload <name>` runs, and its units."""
    with tempfile.TemporaryDirectory() as tmp:
        out_file = os.path.join(tmp, "callgrind.out")
        env = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out_file, "--toggle-collect=" + sym,
               bench, "workload", workload["name"]]
        started = time.monotonic()
        run = subprocess.run(cmd, capture_output=True, text=True, env=env)
        seconds = time.monotonic() - started
        if run.returncode != 0:
            raise Failure("%s failed (status %d):\n%s" % (" ".join(cmd), run.returncode, run.stderr[-2000:]))
        units = [int(line[6:]) for line in run.stdout.splitlines() if line.startswith("units=")]
        totals = None
        with open(out_file) as f:
            for line in f:
                if line.startswith("totals:") or line.startswith("summary:"):
                    totals = int(line.split()[1])
        if not units or units[0] <= 0:
            raise Failure("%s printed no units=<n> line:\n%s" % (" ".join(cmd), run.stdout))
        if not totals:
            raise Failure("%s counted no instructions inside %s" % (" ".join(cmd), sym))
        return {"instructions": totals, "units": units[0], "seconds": seconds,
                "said": [line for line in run.stdout.splitlines() if not line.startswith("units=")]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join(REPO, ".build", "release", "smartstack-bench"))
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--only", help="comma-separated workloads (default: all)")
    ap.add_argument("--tolerance", type=float, default=0.10, help="allowed growth over the baseline (default 0.10)")
    ap.add_argument("--update", action="store_true", help="write the measured figures as the new baseline")
    ap.add_argument("--out", default=os.path.join(REPO, ".build", "perf", "record.json"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="workloads measured at once (default: cores)")
    a = ap.parse_args()
    bench = os.path.abspath(a.bench)
    try:
        if not os.access(bench, os.X_OK):
            raise Failure("no smartstack-bench at %s: run 'swift build -c release --product smartstack-bench'" % bench)
        if first_line(["valgrind", "--version"]) == "unknown":
            raise Failure("valgrind is not installed (apt-get install valgrind)")
        chosen = workloads(bench)
        if a.only:
            names = a.only.split(",")
            unknown = [n for n in names if n not in {w["name"] for w in chosen}]
            if unknown:
                raise Failure("unknown workload(s) %s (known: %s)" % (", ".join(unknown), ", ".join(w["name"] for w in chosen)))
            chosen = [w for w in chosen if w["name"] in names]
        symbols = {w["name"]: symbol(bench, w["pattern"]) for w in chosen}
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            futures = {w["name"]: pool.submit(measure, bench, w, symbols[w["name"]]) for w in chosen}
            results = {name: f.result() for name, f in futures.items()}
    except Failure as e:
        print("perf record: %s" % e, file=sys.stderr)
        return 2

    toolchain = {"swift": first_line(["swift", "--version"]), "valgrind": first_line(["valgrind", "--version"])}
    baseline = {}
    if os.path.exists(a.baseline):
        with open(a.baseline) as f:
            baseline = json.load(f)
    base = baseline.get("workloads", {})
    extra = os.environ.get("SMARTSTACK_BENCH_EXTRA_WORK")
    print("instructions per unit (callgrind, inside the engine function of each workload)%s"
          % ("; SMARTSTACK_BENCH_EXTRA_WORK=%s%% (the record's own test)" % extra if extra else ""))
    print("%-10s %16s %8s %14s %12s %7s  %s" % ("workload", "instructions", "unit", "per unit", "baseline", "ratio", "verdict"))
    failed = []
    for w in chosen:
        r = results[w["name"]]
        per = r["instructions"] / r["units"]
        b = base.get(w["name"])
        if b is None:
            ratio, verdict = None, "NO BASELINE"
            failed.append(w["name"])
        else:
            ratio = r["instructions"] / b["instructions"]
            if ratio > 1 + a.tolerance:
                verdict = "SLOWER by more than %d%%" % round(a.tolerance * 100)
                failed.append(w["name"])
            elif ratio < 1 - a.tolerance:
                verdict = "faster: update the baseline to keep it tight"
            else:
                verdict = "ok"
        print("%-10s %16s %8s %14s %12s %7s  %s" % (
            w["name"], "{:,}".format(r["instructions"]), w["unit"], "{:,.0f}".format(per),
            "—" if b is None else "{:,.0f}".format(b["instructions"] / b["units"]),
            "—" if ratio is None else "%.3f" % ratio, verdict))
        for line in r["said"]:
            print("           %s (%.0f s under callgrind)" % (line, r["seconds"]))
    if baseline and baseline.get("toolchain") != toolchain:
        print("note: baseline measured with %s, this run with %s: instruction counts also move with the toolchain"
              % (baseline.get("toolchain"), toolchain))
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    measured = {"toolchain": toolchain, "workloads": {
        w["name"]: {"instructions": results[w["name"]]["instructions"], "units": results[w["name"]]["units"],
                    "unit": w["unit"], "counted": symbols[w["name"]]} for w in chosen}}
    with open(a.out, "w") as f:
        json.dump(measured, f, indent=2)
    if a.update:
        if extra:
            print("perf record: not updating the baseline with SMARTSTACK_BENCH_EXTRA_WORK set", file=sys.stderr)
            return 2
        merged = dict(base)
        merged.update(measured["workloads"])
        with open(a.baseline, "w") as f:
            json.dump({"toolchain": toolchain, "workloads": merged}, f, indent=2)
            f.write("\n")
        print("baseline written: %s" % os.path.relpath(a.baseline, REPO))
        return 0
    if failed:
        print("perf record: FAILED: %s. If the extra cost is intended, run 'python3 Benchmarks/perf/record.py --update' "
              "and commit Benchmarks/perf/baseline.json with the change." % ", ".join(failed), file=sys.stderr)
        return 1
    print("perf record: every workload within %d%% of its baseline" % round(a.tolerance * 100))
    return 0


if __name__ == "__main__":
    sys.exit(main())
