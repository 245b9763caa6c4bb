#!/usr/bin/env bash
# The lane race rule against a brute-force judge (tests/par/race_judge.py): every program the checker
# accepts is run lane pair by lane pair, and none may race. JUDGE_SEEDS and JUDGE_COUNT widen the run
# (make test: 2 seeds of 150 programs).
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
case "$CAIRN" in /*) ;; *) CAIRN=$PWD/$CAIRN ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
for seed in ${JUDGE_SEEDS:-1 2}; do
    python3 tests/par/race_judge.py "$CAIRN" "$seed" "${JUDGE_COUNT:-150}" "$T" >"$T/log" 2>&1
    grep -v '^[0-9]* passed' "$T/log"
    p=$(sed -n 's/^\([0-9]*\) passed.*/\1/p' "$T/log"); f=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' "$T/log")
    pass=$((pass + ${p:-0})); fail=$((fail + ${f:-1}))
done
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
