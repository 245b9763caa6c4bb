#!/usr/bin/env bash
# The same bits for every number of workers: builds each program once and runs it under
# CAIRN_THREADS=1, 2, 3 and 7; every run must exit 0 and print what the first printed.
# Prints one line per failed check and `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
for prog in tests/par/run_exact_sum.cairn tests/par/run_reduce_int.cairn tests/par/run_scan_compact.cairn \
            tests/par/run_plans.cairn tests/par/run_regions.cairn tests/par/run_atomics.cairn \
            tests/spec/n05-exact-sum.cairn; do
    name=$(basename "$prog" .cairn)
    if ! "$CAIRN" build --out "$T/$name" "$prog" >/dev/null 2>"$T/$name.err"; then
        echo "FAIL threads: $prog does not build: $(head -3 "$T/$name.err" | tr '\n' ' ')"
        fail=$((fail + 1))
        continue
    fi
    first=""
    for w in 1 2 3 7; do
        CAIRN_THREADS=$w "$T/$name/$name" >"$T/$name.$w.out" 2>&1
        rc=$?
        if [ $rc -ne 0 ]; then
            echo "FAIL threads: $prog exits $rc with CAIRN_THREADS=$w"
            fail=$((fail + 1))
        elif [ -z "$first" ]; then
            first=$w
            pass=$((pass + 1))
        elif cmp -s "$T/$name.$first.out" "$T/$name.$w.out"; then
            pass=$((pass + 1))
        else
            echo "FAIL threads: $prog prints otherwise with CAIRN_THREADS=$w than with $first:" \
                 "$(diff "$T/$name.$first.out" "$T/$name.$w.out" | head -3 | tr '\n' ' ')"
            fail=$((fail + 1))
        fi
    done
done
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
