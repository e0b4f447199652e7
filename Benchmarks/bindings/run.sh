#!/usr/bin/env bash
# Decision latency of the engine through each host route, in one run (issue 15): the Swift API and
# the C API, JSON and packed (`smartstack-bench bindings`, in turn in one process, which also measures recording a
# 10,000-event JSONL batch), then Python (ctypes) and Java (JNI) on the same history and instants,
# then the Swift and C figures once more, so the Swift median brackets the other two. Release builds.
#
#   Benchmarks/bindings/run.sh [DECISIONS]     # default 20000 timed decisions per route
set -euo pipefail
cd "$(dirname "$0")/../.."
decisions="${1:-20000}"
out=.build/bindings-bench
mkdir -p "$out"
swift build -c release --product smartstack-bench 2>&1 | tail -n 1
swift build -c release --product SmartStackC 2>&1 | tail -n 1
bin="$(swift build -c release --show-bin-path)"
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$2" | tail -n 1; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

"$bin/smartstack-bench" bindings --decisions "$decisions" --out "$out" | tee "$out/swift-1.txt"
args=(--history "$out/history.jsonl" --first-ns "$(field first_ns "$out/swift-1.txt")" --step-ns "$(field step_ns "$out/swift-1.txt")"
      --offset "$(field offset "$out/swift-1.txt")" --warmup "$(field warmup "$out/swift-1.txt")" --decisions "$decisions")

venv=.build/bindings-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
SMARTSTACK_LIBRARY="$bin/libSmartStackC.so" "$venv/bin/python" Benchmarks/bindings/decide_benchmark.py "${args[@]}" | tee "$out/python.txt"

java_home="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
cc -O2 -fPIC -shared -I include -I "$java_home/include" -I "$java_home/include/linux" bindings/java/jni/smartstack_jni.c \
    -L "$bin" -lSmartStackC -Wl,-rpath,"$bin" -o "$out/libsmartstack_jni.so"
rm -rf "$out/java-classes"
javac -d "$out/java-classes" bindings/java/src/org/smartstack/*.java Benchmarks/bindings/DecideBenchmark.java
java -Dsmartstack.jni="$PWD/$out/libsmartstack_jni.so" -cp "$out/java-classes" DecideBenchmark "$out/history.jsonl" \
    "${args[3]}" "${args[5]}" "${args[7]}" "${args[9]}" "$decisions" | tee "$out/java.txt"

"$bin/smartstack-bench" bindings --decisions "$decisions" --out "$out" | tee "$out/swift-2.txt"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$out" <<'PYTHON'
import re, sys
out = sys.argv[1]
def fields(name):
    text = open(f"{out}/{name}.txt").read()
    return {k: float(v) for k, v in re.findall(r"(\w+)=([-\d.]+)", text.split("RESULT")[-1])}
s1, s2, py, java = fields("swift-1"), fields("swift-2"), fields("python"), fields("java")
def verdict(ok): return "met" if ok else "MISSED"
for reasons, suffix in (("with reasons", ""), ("without reasons", "_bare")):
    swift = sorted([s1["swift_decide%s_median_us" % suffix], s2["swift_decide%s_median_us" % suffix]])
    print("\n**%s** (Swift `Engine.decide(explained: %s)` medians of this run: %.2f, %.2f µs)\n"
          % (reasons.capitalize(), "true" if not suffix else "false", *swift))
    print("| route | decide, median | target | verdict |")
    print("|---|---:|---|---|")
    for label, key in (("C `smartstack_decide` (JSON)", "c_decide%s_median_us"),
                       ("C `smartstack_decide_packed`", "c_decide_packed%s_median_us")):
        c = [s1[key % suffix], s2[key % suffix]]
        gaps = [v - s for v, s in zip(c, [s1["swift_decide%s_median_us" % suffix], s2["swift_decide%s_median_us" % suffix]])]
        print("| %s | %.2f / %.2f µs | ≤ Swift + 2 µs | +%.2f / +%.2f µs: %s |" % (label, *c, *gaps, verdict(max(gaps) <= 2)))
    limits = [2 * v + 20 for v in swift]
    rows = (("Python `Engine.decide` (packed; ranking read on first access)", "python_decide%s_median_us"),
            ("Python `Engine.decide` (packed), then its ranking read", "python_decide%s_read_median_us"))
    if not suffix:
        rows += (("Python `decide_json`, parsed and read into the same objects", "python_decide_json_read_median_us"),)
    for label, key in rows:
        value = py[key.replace("%s", suffix)]
        print("| %s | %.2f µs | ≤ 2 × Swift + 20 µs | limits %.1f–%.1f µs: %s |" % (label, value, *limits, verdict(value <= limits[0])))
    value = java["java_decide%s_median_us" % suffix]
    print("| Java `decideJson` (JNI, the JSON as a String) | %.2f µs | ≤ Swift + 5 µs | +%.2f / +%.2f µs: %s |"
          % (value, value - swift[1], value - swift[0], verdict(value - swift[0] <= 5)))
print("| Java `decide` (JNI, read into a Decision), with reasons | %.2f µs | — | — |" % java["java_decide_parsed_median_us"])
print()
for s in (s1, s2):
    print("| record a 10,000-event JSONL batch: C %.0fk/s vs `Engine.record` %.0fk/s (medians of the rounds) | %.3f× (median of the rounds' ratios) | ≥ 0.80× | %s |"
          % (s["c_record_rate"] / 1000, s["swift_record_rate"] / 1000, s["record_ratio"], verdict(s["record_ratio"] >= 0.8)))
PYTHON
