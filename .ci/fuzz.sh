#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/Targets and runs each one over its seed corpus.
#
#   .ci/fuzz.sh                    # CI: build, replay the seeds and crash regressions, fuzz 45 s per target
#   FUZZ_SECONDS=3600 .ci/fuzz.sh  # the long run: an hour per target
#   .ci/fuzz.sh jsonl lsapp        # only these targets
#   FUZZ_JOBS=2 ...                # parallel fuzzing processes per target (libFuzzer -fork; default 1)
#
# No Package.swift change: the library sources are compiled straight with swiftc
# (-sanitize=fuzzer,address), one module at a time, into .build/fuzz. New inputs that raise
# coverage are kept in .build/fuzz/corpus/<target> (copy good ones to Fuzz/Corpus/<target>); a
# crash stops the run, its input is saved as .build/fuzz/crash-<target>-*, and the script exits 1.
# Every crash found becomes a regression test: its input goes to Fuzz/Crashes/<target>/, which
# FuzzCrashRegressionTests (Tests/SmartStackCLITests/CrashSafety+FuzzCorpus.swift) runs through
# the built tool expecting a clean error; once fixed, the input also joins Fuzz/Corpus/<target>,
# which this script replays before fuzzing (and FuzzCorpusRegressionTests replays in-process).
# Leak reports inside Foundation's file reading are suppressed (.ci/lsan-suppressions.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-45}"
jobs="${FUZZ_JOBS:-1}"
out=.build/fuzz
mkdir -p "$out/corpus"
flags=(-sanitize=fuzzer,address -parse-as-library -swift-version 6 -package-name smartstack -O -g -wmo
       -I "$out" -I Sources/CSQLite -I Sources/CZlib)

step() { printf '\n==> %s (%s)\n' "$1" "$(date +%H:%M:%S)"; }

module() {   # module <name> <source directory>
    local name="$1" sources
    sources=$(find "$2" -name '*.swift' | sort)
    if [ -f "$out/$name.o" ] && [ -z "$(find "$2" -name '*.swift' -newer "$out/$name.o")" ]; then return; fi
    echo "compiling $name"
    # shellcheck disable=SC2086
    swiftc "${flags[@]}" -module-name "$name" -emit-module -emit-module-path "$out/$name.swiftmodule" \
        -c $sources -o "$out/$name.o"
}

declare -A targets=(
    [jsonl]=JSONLFuzz
    [studentlife]=StudentLifeImportFuzz
    [aware-screen]=AwareScreenImportFuzz
    [obd]=OBDImportFuzz
    [lsapp]=LSAppImportFuzz
    [csv]=CSVLogImportFuzz
)
selected=("$@")
[ "${#selected[@]}" -gt 0 ] || selected=(jsonl studentlife aware-screen obd lsapp csv)

step "build fuzz targets"
# .ci/bindings.sh, which CI runs first, compiles the same two modules with the same sanitizers and
# optimisation into .build/bindings: reuse them (the engine's whole-module build takes minutes).
# `module` still recompiles one whose sources are newer than the copied object.
for name in SmartStackSQLite SmartStack; do
    if [ ! -f "$out/$name.o" ] && [ -f ".build/bindings/$name.o" ] && [ -f ".build/bindings/$name.swiftmodule" ]; then
        echo "reusing .build/bindings/$name (sanitized by .ci/bindings.sh)"
        cp -p ".build/bindings/$name".{o,swiftmodule,swiftdoc,swiftsourceinfo} "$out/" 2>/dev/null \
            || cp -p ".build/bindings/$name.o" ".build/bindings/$name.swiftmodule" "$out/"
    fi
done
module SmartStackSQLite Sources/SmartStackSQLite
module SmartStack Sources/SmartStack
module SmartStackDatasets Sources/SmartStackDatasets
for target in "${selected[@]}"; do
    file="${targets[$target]:?unknown fuzz target $target (known: ${!targets[*]})}"
    # The linker warns about AddressSanitizer's local symbols ("Cannot export local symbol"):
    # harmless, filtered; any other message is shown.
    if ! swiftc "${flags[@]}" -module-name "${file}" Fuzz/Support/FuzzSupport.swift "Fuzz/Targets/$file.swift" \
        "$out/SmartStackSQLite.o" "$out/SmartStack.o" "$out/SmartStackDatasets.o" \
        -lsqlite3 -lz -o "$out/fuzz-$target" 2>"$out/link-$target.log"; then
        cat "$out/link-$target.log"
        exit 1
    fi
    grep -v "Cannot export local symbol" "$out/link-$target.log" || true
done

export LSAN_OPTIONS="suppressions=$PWD/.ci/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
status=0
for target in "${selected[@]}"; do
    step "fuzz $target for ${seconds}s"
    mkdir -p "$out/corpus/$target"
    log="$out/fuzz-$target.log"
    # Seeds and past crashes first (must all pass), then new inputs for the time given.
    parallel=()
    [ "$jobs" -le 1 ] || parallel=(-fork="$jobs")
    if ! "$out/fuzz-$target" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds" \
        "${parallel[@]}" -print_final_stats=1 -artifact_prefix="$out/crash-$target-" \
        "$out/corpus/$target" "Fuzz/Corpus/$target" >"$log" 2>&1; then
        status=1
        echo "FAILED: $target (see $log)"
        grep -E 'ERROR|Fatal error|SUMMARY|Test unit written' "$log" | head -20 || true
    fi
    grep -E '^stat::number_of_executed_units|^stat::new_units_added|^stat::peak_rss_mb' "$log" | sed "s/^/$target: /" || true
done
exit "$status"
