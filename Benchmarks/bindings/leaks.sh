#!/usr/bin/env bash
# Memory over 10^6 calls from Python (ctypes) and from Java (JNI), in one run: does the RSS of a
# host process stay flat? Each prints its RSS every 100,000 calls against its own baseline (the
# RSS after the first 100,000) and a verdict (growth <= 2 MiB). Release build of the library.
#
#   Benchmarks/bindings/leaks.sh [CALLS]     # default 1000000 per binding
set -euo pipefail
cd "$(dirname "$0")/../.."
calls="${1:-1000000}"
out=.build/bindings-leaks
mkdir -p "$out"
swift build -c release --product SmartStackC 2>&1 | tail -n 1
bin="$(swift build -c release --show-bin-path)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

venv=.build/bindings-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check ./bindings/python
status=0
SMARTSTACK_LIBRARY="$bin/libSmartStackC.so" "$venv/bin/python" Benchmarks/bindings/leak_check.py "$calls" | tee "$out/python.txt" || status=1

java_home="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
cc -O2 -fPIC -shared -I include -I "$java_home/include" -I "$java_home/include/linux" bindings/java/jni/smartstack_jni.c \
    -L "$bin" -lSmartStackC -Wl,-rpath,"$bin" -o "$out/libsmartstack_jni.so"
rm -rf "$out/java-classes"
javac -d "$out/java-classes" bindings/java/src/org/smartstack/*.java Benchmarks/bindings/LeakCheck.java
# A fixed heap, touched at start, so the RSS measures the library and the binding, not heap sizing.
java -Xms64m -Xmx64m -XX:+AlwaysPreTouch -Dsmartstack.jni="$PWD/$out/libsmartstack_jni.so" -cp "$out/java-classes" \
    LeakCheck "$calls" | tee "$out/java.txt" || status=1
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
