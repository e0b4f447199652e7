#!/usr/bin/env bash
# Every README command is a test: runs the shell blocks of README.md and of the bindings' READMEs
# that are marked runnable, in order, from the repository root, against the release build (the
# README's first command builds it), and fails naming the block's file and line.
#
# The marker is an HTML comment (invisible on GitHub) on the line just before the fence:
#   <!-- runnable -->            the block runs here, as a reader would paste it;
#   <!-- not run: <why> -->      it cannot (it needs your own file, a cluster, or CI runs it
#                                elsewhere), and says why.
# Every ```sh, ```bash, ```shell and ```console block of a checked file carries one of the two,
# or the run fails: a new command cannot slip into a README untested by accident.
#
# Each file's runnable blocks run one after another in one bash (set -euo pipefail), as in one
# terminal: what a block exports or builds, the next one sees. Output is the commands' own, with a
# header and the time taken per block.
#
#   .ci/readme.sh                              # every file CI checks (below)
#   .ci/readme.sh bindings/dask/README.md      # one file
#   .ci/readme.sh --list                       # the blocks and their markers, nothing run
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
files=(README.md bindings/c/README.md bindings/python/README.md bindings/java/README.md bindings/dask/README.md)
list=false
if [ "${1:-}" = "--list" ]; then list=true; shift; fi
if [ "$#" -gt 0 ]; then files=("$@"); fi
out=.build/readme
mkdir -p "$out"

# Writes one bash script per file ($out/<file with / as _>.sh) holding its runnable blocks, each
# preceded by the location it comes from; prints "<file> <runnable> <not run>" per file. Fails on
# an unmarked or unterminated shell block.
python3 - "$out" "$list" "${files[@]}" <<'PYTHON'
import re, sys
out, listing, files = sys.argv[1], sys.argv[2] == "true", sys.argv[3:]
SHELL = re.compile(r"^```(sh|bash|shell|console)\s*$")
RUNNABLE = re.compile(r"^<!-- runnable -->$")
NOT_RUN = re.compile(r"^<!-- not run: \S.*-->$")
errors = []
for name in files:
    lines = open(name, encoding="utf-8").read().split("\n")
    script = [f"# {name}: its runnable blocks, written by .ci/readme.sh"]
    runnable = skipped = 0
    i = 0
    while i < len(lines):
        fence = lines[i]
        if fence.startswith("```") and fence.strip() != "```" and not SHELL.match(fence):
            # another language's block: skip to its end, so a ```sh inside it is not taken
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                i += 1
            i += 1
            continue
        if not SHELL.match(fence):
            i += 1
            continue
        start = i + 1   # 1-based line of the fence
        marker = lines[i - 1].strip() if i > 0 else ""
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end == len(lines):
            errors.append(f"{name}:{start}: shell block never closed")
            break
        body = lines[i + 1:end]
        if RUNNABLE.match(marker):
            runnable += 1
            script += [f"__block {name} {start} {len(body)}"] + body + ['__done "$?"']
            if listing:
                print(f"  {name}:{start}: runnable ({len(body)} lines)")
        elif NOT_RUN.match(marker):
            skipped += 1
            if listing:
                print(f"  {name}:{start}: not run: {marker[len('<!-- not run: '):-4].strip()}")
        else:
            errors.append(f"{name}:{start}: shell block without a marker: put '<!-- runnable -->' or "
                          f"'<!-- not run: <why> -->' on the line before its fence")
        i = end + 1
    open(f"{out}/{name.replace('/', '_')}.sh", "w", encoding="utf-8").write("\n".join(script) + "\n")
    print(f"{name} {runnable} {skipped}")
if errors:
    print("\n".join("error: " + e for e in errors), file=sys.stderr)
    sys.exit(1)
PYTHON
[ "$list" = true ] && exit 0

# The prelude each file's blocks run under: where each block starts, its duration, and on failure
# the README line of the command that failed (LINENO counts lines of the sourced script; the
# block's first line maps it back). A block's last status is checked too: bash's errexit ignores
# a failure inside `a && b`, so a block may end with such a list, but should not have one earlier.
cat > "$out/prelude.sh" <<'BASH'
set -euo pipefail
__root=$1
__block() {
    __file=$1; __fence=$2; __first=$((BASH_LINENO[0] + 1)); __began=$(date +%s)
    printf '\n--- %s:%s (%s lines)\n' "$1" "$2" "$3"
    cd "$__root"
}
__done() {
    if [ "$1" -ne 0 ]; then
        printf 'error: %s:%s: the block ended with exit status %s\n' "$__file" "$__fence" "$1" >&2
        exit "$1"
    fi
    printf -- '--- %s:%s: ok, %ss\n' "$__file" "$__fence" $(( $(date +%s) - __began ))
}
trap 'status=$?; printf "error: %s:%s: a command of the block at line %s failed (exit %s)\n" \
    "$__file" $(( __fence + LINENO - __first + 1 )) "$__fence" "$status" >&2' ERR
source "$2"
BASH

started=$(date +%s)
for file in "${files[@]}"; do
    printf '\n==> %s: runnable blocks (%s)\n' "$file" "$(date +%H:%M:%S)"
    bash "$out/prelude.sh" "$root" "$out/${file//\//_}.sh"
done
printf '\n==> README blocks: all passed in %ss\n' $(( $(date +%s) - started ))
