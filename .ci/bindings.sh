#!/usr/bin/env bash
# The C API and its bindings (include/smartstack.h, issue 15), beyond what `swift test` runs:
# installs the JDK the Java binding tests need (before `swift test`, which runs them too), then
#   - the C tests, strict (cc -Wall -Wextra -Werror -pedantic), against libSmartStackC.so;
#   - the README's C example linked against the static variant, libSmartStackCStatic.a;
#   - the C tests and the conformance scenarios (Conformance/c/run_scenarios.c over
#     Conformance/scenarios.jsonl, docs/contract.md) under AddressSanitizer and LeakSanitizer: the
#     library's modules are compiled straight with swiftc (as .ci/fuzz.sh does) with
#     -sanitize=fuzzer,address, so the same objects also serve the libFuzzer targets:
#     Fuzz/Targets/CAPISequenceFuzz.c drives sequences of calls (open, configure, record, decide,
#     rank, flush, erase, close, calls on closed handles) checking the contract after each, for
#     FUZZ_SECONDS (default 45) over Fuzz/Corpus/capi-sequence; Fuzz/Targets/CAPIRecordDecideFuzz.c
#     (one record and a few decisions per input) replays its corpus Fuzz/Corpus/capi (new inputs
#     in .build/bindings/corpus*, crashes saved as .build/bindings/crash-*);
#   - pytest on the Python package installed with pip from the checkout: its tests, the
#     conformance scenarios (Conformance/python) and the property test of call sequences through
#     ctypes (hypothesis, bindings/python/tests/test_properties.py, HYPOTHESIS_EXAMPLES, default 400);
#   - the Java launcher-host program and the conformance scenarios through the JNI library.
#
#   .ci/bindings.sh                     # what CI runs (a few minutes)
#   FUZZ_SECONDS=3600 HYPOTHESIS_EXAMPLES=100000 .ci/bindings.sh   # a long fuzzing run
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-45}"
out=.build/bindings
mkdir -p "$out/corpus"
step() { printf '\n==> bindings: %s (%s)\n' "$1" "$(date +%H:%M:%S)"; }
strict=(-std=c11 -Wall -Wextra -Werror -pedantic)

step "tools"
missing=()
command -v javac >/dev/null || missing+=(default-jdk-headless)
command -v cc >/dev/null || missing+=(gcc)
command -v nm >/dev/null || missing+=(binutils)
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
if [ "${#missing[@]}" -gt 0 ]; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

step "C tests against libSmartStackC.so"
swift build --product SmartStackC 2>&1 | tail -n 1
swift build --product SmartStackCStatic 2>&1 | tail -n 1
bin="$(swift build --show-bin-path)"
cc "${strict[@]}" -pthread -I include bindings/c/test_smartstack.c -L "$bin" -lSmartStackC -Wl,-rpath,"$bin" \
    -o "$out/test_smartstack" 2>&1 || { echo "error: bindings/c/test_smartstack.c does not compile against include/smartstack.h" >&2; exit 1; }
"$out/test_smartstack"

step "the README's C example, linked against libSmartStackCStatic.a"
python3 - "$out/readme-example.c" <<'PYTHON'
import sys
text = open("README.md", encoding="utf-8").read()
section = text[text.index("\n## Embedding it\n"):]
start = section.index("\n```c\n") + 6
open(sys.argv[1], "w", encoding="utf-8").write(section[start:section.index("\n```\n", start)] + "\n")
PYTHON
cc "${strict[@]}" -I include -c "$out/readme-example.c" -o "$out/readme-example.o"
# swiftc as the linker driver adds the Swift runtime the static library needs.
swiftc "$out/readme-example.o" "$bin/libSmartStackCStatic.a" -lsqlite3 -o "$out/readme-example-static"
(cd "$out" && rm -f smartstack.sqlite* && ./readme-example-static | grep -q '"top":"calendar"') \
    || { echo "error: the statically linked README example did not decide calendar" >&2; exit 1; }

step "sanitized modules (swiftc -sanitize=fuzzer,address)"
flags=(-sanitize=fuzzer,address -parse-as-library -swift-version 6 -package-name smartstack -O -g -wmo
       -I "$out" -I Sources/CSQLite -I include)
modules=(SmartStackSQLite SmartStack SmartStackC)
if [ ! -f "$out/SmartStackC.o" ] || [ -n "$(find "${modules[@]/#/Sources/}" include -newer "$out/SmartStackC.o" | head -n 1)" ]; then
    for module in "${modules[@]}"; do
        echo "compiling $module"
        # shellcheck disable=SC2046
        swiftc "${flags[@]}" -module-name "$module" -emit-module -emit-module-path "$out/$module.swiftmodule" \
            -c $(find "Sources/$module" -name '*.swift' | sort) -o "$out/$module.o"
    done
fi
objects=("$out/SmartStackSQLite.o" "$out/SmartStack.o" "$out/SmartStackC.o")
# Linking with AddressSanitizer warns about its local symbols ("Cannot export local symbol"): harmless, filtered.
link() {   # link <output> <swiftc sanitizer> <objects...>
    local output="$1" sanitizer="$2"
    shift 2
    if ! swiftc "-sanitize=$sanitizer" "$@" -lsqlite3 -o "$output" 2>"$output.log"; then cat "$output.log"; exit 1; fi
    grep -v "Cannot export local symbol" "$output.log" || true
}

step "C tests under AddressSanitizer and LeakSanitizer"
clang "${strict[@]}" -g -fsanitize=address -I include -c bindings/c/test_smartstack.c -o "$out/test_smartstack-asan.o"
link "$out/test_smartstack-asan" address "$out/test_smartstack-asan.o" "${objects[@]}"
ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1 "$out/test_smartstack-asan"

step "conformance scenarios through the C API, under AddressSanitizer and LeakSanitizer"
clang "${strict[@]}" -g -fsanitize=address -pthread -I include -c Conformance/c/run_scenarios.c -o "$out/run_scenarios-asan.o"
link "$out/run_scenarios-asan" address "$out/run_scenarios-asan.o" "${objects[@]}"
ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1 "$out/run_scenarios-asan" Conformance/scenarios.jsonl \
    >"$out/conformance-c.log" 2>&1 || { cat "$out/conformance-c.log"; exit 1; }
tail -n 1 "$out/conformance-c.log"

fuzz() {   # fuzz <target> <corpus> <seconds, 0: replay the corpus only>
    local target="$1" corpus="$2" time="$3"
    mkdir -p "$out/corpus-$target"
    clang "${strict[@]}" -g -fsanitize=fuzzer,address -I include -c "Fuzz/Targets/$target.c" -o "$out/fuzz-$target.o"
    link "$out/fuzz-$target" fuzzer,address "$out/fuzz-$target.o" "${objects[@]}"
    local budget=(-max_total_time="$time")
    [ "$time" -gt 0 ] || budget=(-runs=0)
    if ! "$out/fuzz-$target" -max_len=65536 -timeout=10 -rss_limit_mb=2048 "${budget[@]}" -print_final_stats=1 \
        -artifact_prefix="$out/crash-$target-" "$out/corpus-$target" "$corpus" >"$out/fuzz-$target.log" 2>&1; then
        echo "FAILED: fuzzing $target (see $out/fuzz-$target.log)"
        grep -E 'ERROR|fuzz check failed|SUMMARY|Test unit written' "$out/fuzz-$target.log" | head -20 || true
        exit 1
    fi
    grep -E '^stat::number_of_executed_units|^stat::new_units_added|^stat::peak_rss_mb' "$out/fuzz-$target.log" \
        | sed "s/^/$target: /" || true
}

step "fuzz sequences of C API calls for ${seconds}s, replay the single-call corpus"
fuzz CAPISequenceFuzz Fuzz/Corpus/capi-sequence "$seconds"
fuzz CAPIRecordDecideFuzz Fuzz/Corpus/capi 0

step "Python: pip install from the checkout, pytest"
venv=.build/bindings-venv
[ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r bindings/python/requirements-test.txt ./bindings/python
SMARTSTACK_LIBRARY="$bin/libSmartStackC.so" HYPOTHESIS_EXAMPLES="${HYPOTHESIS_EXAMPLES:-400}" \
    "$venv/bin/pytest" -q -p no:cacheprovider bindings/python/tests Conformance/python

step "Java: JNI library, classes, the launcher-host program"
java_home="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
cc "${strict[@]}" -fPIC -shared -I include -I "$java_home/include" -I "$java_home/include/linux" bindings/java/jni/smartstack_jni.c \
    -L "$bin" -lSmartStackC -Wl,-rpath,"$bin" -o "$out/libsmartstack_jni.so"
rm -rf "$out/java-classes"
javac -Werror -Xlint:all -d "$out/java-classes" bindings/java/src/org/smartstack/*.java bindings/java/test/LauncherHostTest.java \
    Conformance/java/org/smartstack/ConformanceRunner.java
java -Dsmartstack.jni="$PWD/$out/libsmartstack_jni.so" -cp "$out/java-classes" LauncherHostTest include/smartstack.h
java -Dsmartstack.jni="$PWD/$out/libsmartstack_jni.so" -cp "$out/java-classes" org.smartstack.ConformanceRunner \
    Conformance/scenarios.jsonl >"$out/conformance-java.log" 2>&1 || { cat "$out/conformance-java.log"; exit 1; }
tail -n 1 "$out/conformance-java.log"
step "ok"
