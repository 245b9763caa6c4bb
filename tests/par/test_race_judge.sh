#!/usr/bin/env bash
# The lane race rule against an independent oracle (tests/par/race_judge.py): random regions, each
# judged by running every pair of lanes for n in 1..7 and cols in 1..4. Every program the checker
# accepts must be free of races; the precision (race-free programs accepted) is printed, by shape.
#
# Before that, the judge itself is tried: on lanes written by hand with known verdicts
# (race_judge.py --self-test), and against three fake checkers, so that it is known to fail:
# one that accepts everything (it must report unsound verdicts), one that refuses everything with
# E-PARALLEL-RACE (no failure: a refusal is never unsound) and one that refuses with another code
# (it must blame the generator).
#
# JUDGE_SEEDS (1, a list 1,2 or a range 1-20) and JUDGE_COUNT (programs per seed, 4000) widen the
# run; `make soak` runs many seeds. Prints `N passed, N failed, 0 skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
case "$CAIRN" in /*) ;; *) CAIRN=$PWD/$CAIRN ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
JUDGE="python3 tests/par/race_judge.py"

ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL race judge: $1"; fi
}

# --- the judge alone, on lanes written by hand with their verdicts
$JUDGE --self-test >"$T/log" 2>&1
grep '^FAIL' "$T/log"
ok "the judge's own cases ($(tail -1 "$T/log"))" $(grep -q '^[1-9][0-9]* passed, 0 failed' "$T/log"; echo $?)

# --- the judge against fake checkers
mkdir -p "$T/w"
printf '#!/bin/sh\nexit 0\n' >"$T/accept_all"
printf '#!/bin/sh\necho "$2:1:1: error[E-PARALLEL-RACE]: refused" >&2\nexit 1\n' >"$T/refuse_all"
printf '#!/bin/sh\necho "$2:1:1: error[E-TYPE-MISMATCH]: refused" >&2\nexit 1\n' >"$T/refuse_type"
chmod +x "$T/accept_all" "$T/refuse_all" "$T/refuse_type"

$JUDGE "$T/accept_all" 3 200 "$T/w" >"$T/log" 2>&1
rc=$?
n=$(grep -c '^FAIL seed=3 prog=[0-9]*: accepted, but ' "$T/log")
ok "a checker that accepts everything is caught (exit $rc, $n unsound verdicts of 200)" \
   $([ "$rc" = 1 ] && [ "$n" -ge 50 ] && grep -q '^[0-9]* passed, [1-9][0-9]* failed' "$T/log"; echo $?)
ok "an unsound verdict names the lanes and the element" \
   $(grep -q '^FAIL seed=3 prog=[0-9]*: accepted, but n=[0-9]* cols=[0-9]*: lanes* i=[0-9]* .* [yz]\[[0-9]*\]' "$T/log"; echo $?)

$JUDGE "$T/refuse_all" 3 200 "$T/w" >"$T/log" 2>&1
rc=$?
ok "a checker that refuses everything is sound, with precision 0 (exit $rc)" \
   $([ "$rc" = 0 ] && grep -q '^precision: 0/[1-9][0-9]* race-free programs accepted (0.0%)' "$T/log" &&
     grep -q '^200 passed, 0 failed' "$T/log"; echo $?)

$JUDGE "$T/refuse_type" 3 20 "$T/w" >"$T/log" 2>&1
rc=$?
ok "a refusal with another code blames the generator (exit $rc)" \
   $([ "$rc" = 1 ] && [ "$(grep -c '^FAIL generator: seed=3 prog=' "$T/log")" -ge 15 ]; echo $?)

# --- the checker
start=$(date +%s)
$JUDGE "$CAIRN" "${JUDGE_SEEDS:-1}" "${JUDGE_COUNT:-4000}" "$T/w" >"$T/log" 2>&1
rc=$?
grep -v '^[0-9]* passed' "$T/log"
p=$(sed -n 's/^\([0-9]*\) passed, .*/\1/p' "$T/log"); f=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p' "$T/log")
if [ -z "$p" ] || [ -z "$f" ]; then
    fail=$((fail + 1)); echo "FAIL race judge: exit $rc and no summary line"
else
    pass=$((pass + p)); fail=$((fail + f))
    [ "$rc" = 0 ] || [ "$f" -gt 0 ] || { fail=$((fail + 1)); echo "FAIL race judge: exit $rc"; }
fi
echo "race judge: $(( $(date +%s) - start )) s"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
