#!/usr/bin/env bash
# The device programs under compute-sanitizer, on a machine with a GPU, after tests/device/run.sh has
# built them into OUTDIR/dev (default build/gpu; `make gpu` runs both): memcheck (with leak check),
# racecheck and synccheck on every program of tests/dev, tests/spec (d*), tests/tensor and tests/grad
# whose expectation is `run exit 0` (SAN_RACE_ALL=0 keeps
# racecheck and synccheck to those with block passes in shared memory: collectors, cooperative
# regions, pipelines). Each run has a time limit (SAN_LIMIT seconds, default 60). Prints one line a
# run with the sanitizer's error summary, and a last line `N passed, N failed, N skipped`.
# SAN_ONLY (an extended regular expression) runs only the programs whose name matches it; SAN_SKIP
# leaves out those whose name matches it (a call can run the new programs first, then the rest).
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:-build/gpu}
LIMIT=${SAN_LIMIT:-60}
pass=0; fail=0; skip=0
command -v compute-sanitizer >/dev/null || { echo "SKIP: no compute-sanitizer"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
mkdir -p "$OUTDIR/san"
one() {   # one TOOL NAME EXE [extra flags]
    local tool=$1 name=$2 exe=$3; shift 3
    local log="$OUTDIR/san/$name.$tool.log"
    timeout "$LIMIT" compute-sanitizer --tool "$tool" "$@" --error-exitcode 99 "$exe" >"$log" 2>&1
    local rc=$?
    local summary
    summary=$(grep -E 'ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY' "$log" | tr '\n' ' ')
    if [ $rc = 124 ]; then echo "SKIP $tool $name: over ${LIMIT}s"; skip=$((skip + 1))
    elif [ $rc = 0 ]; then echo "PASS $tool $name: $summary"; pass=$((pass + 1))
    else echo "FAIL $tool $name: exit $rc: $summary"; grep -m3 -E '^=+ +(Invalid|Race|Barrier|Leaked|Error)' "$log" | sed 's/^/    /'; fail=$((fail + 1)); fi
}
for f in tests/dev/*.cairn tests/spec/d*.cairn tests/tensor/*.cairn tests/grad/*.cairn; do
    grep -q '^// expect: run exit 0' "$f" || continue
    grep -qE '@(device|unified)' "$f" || continue   # no device work: nothing for a sanitizer to see
    name=$(basename "$f" .cairn)
    [ -z "${SAN_ONLY:-}" ] || [[ $name =~ $SAN_ONLY ]] || continue
    [ -z "${SAN_SKIP:-}" ] || ! [[ $name =~ $SAN_SKIP ]] || continue
    exe="$OUTDIR/dev/$name/$name"
    [ -x "$exe" ] || { echo "SKIP $name: not built (run tests/device/run.sh first)"; skip=$((skip + 1)); continue; }
    one memcheck "$name" "$exe" --leak-check full
    if [ "${SAN_RACE_ALL:-1}" = 1 ] || grep -qE 'reduce|scan|compact|^ *blocks [a-z]' "$f"; then
        one racecheck "$name" "$exe"
        one synccheck "$name" "$exe"
    fi
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
