#!/usr/bin/env bash
# The lane race rule against an independent oracle (tests/par/race_judge.py): random regions, each
# judged by running every pair of lanes for n in 1..7 and cols in 0..4. Every program the checker
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
cd "$(dirname "$0")/../.."
. tests/judge_lib.sh
judge_setup "race judge" tests/par/race_judge.py

# --- the judge alone, on lanes written by hand with their verdicts
judge_self_test

# --- the judge against fake checkers
judge_fakes E-PARALLEL-RACE
$JUDGE "$T/accept_all" 3 200 "$T/w" >"$T/log" 2>&1
rc=$?
n=$(grep -c '^FAIL seed=3 prog=[0-9]*: accepted, but ' "$T/log")
ok "a checker that accepts everything is caught (exit $rc, $n unsound verdicts of 200)" \
   $([ "$rc" = 1 ] && [ "$n" -ge 50 ] && grep -q '^[0-9]* passed, [1-9][0-9]* failed' "$T/log"; echo $?)
ok "an unsound verdict names the lanes and the element" \
   $(grep -q '^FAIL seed=3 prog=[0-9]*: accepted, but n=[0-9]* cols=[0-9]*: lanes* i=[0-9]* .* [yz]\[[0-9]*\]' "$T/log"; echo $?)

judge_refuse_all 200 race-free
judge_refuse_type 20 15

# --- the checker
judge_checker "${JUDGE_SEEDS:-1}" "${JUDGE_COUNT:-4000}"
