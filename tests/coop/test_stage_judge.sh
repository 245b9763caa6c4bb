#!/usr/bin/env bash
# The stage rule (src/check_stage.c) against an independent judge (tests/coop/stage_judge.py): random
# regions with one pipeline, run concretely on an explicit ring of stages for every trip count up to 6
# and both truths of their conditions. Every program a run breaks must be refused (soundness: zero
# exceptions); a clean program may be refused only with E-STAGE-LOOP (a loop of unknown trip count
# that does not give back its state), and the precision is printed.
#
# First the judge itself: its hand cases (d17, d18 among them), then fake checkers: one that accepts
# everything must be caught, one that refuses everything with E-STAGE-BUSY must fail on the clean
# programs, one that refuses with a type error blames the generator.
#
# STAGE_SEEDS (1-3) and STAGE_COUNT (300 a seed) widen the run. Prints `N passed, N failed, 0 skipped`.
cd "$(dirname "$0")/../.."
. tests/judge_lib.sh
judge_setup "stage judge" tests/coop/stage_judge.py

judge_self_test
judge_fakes E-STAGE-BUSY
$JUDGE "$T/accept_all" 3 100 "$T/w" >"$T/log" 2>&1
rc=$?
n=$(grep -c '^FAIL seed=3 prog=[0-9]*: accepted, but the run with ' "$T/log")
ok "a checker that accepts everything is caught (exit $rc, $n unsound verdicts of 100)" \
   $([ "$rc" = 1 ] && [ "$n" -ge 30 ]; echo $?)
$JUDGE "$T/refuse_all" 3 100 "$T/w" >"$T/log" 2>&1
rc=$?
n=$(grep -c '^FAIL seed=3 prog=[0-9]*: every run is clean, but refused with E-STAGE-BUSY' "$T/log")
ok "a checker that refuses everything fails on the clean programs (exit $rc, $n of 100)" \
   $([ "$rc" = 1 ] && [ "$n" -ge 10 ] && grep -q '^precision: 0/' "$T/log"; echo $?)
$JUDGE "$T/refuse_type" 3 20 "$T/w" >"$T/log" 2>&1
ok "a refusal with another code blames the generator (exit $?)" \
   $([ "$(grep -c '^FAIL generator: seed=3 prog=' "$T/log")" = 20 ]; echo $?)

judge_checker "${STAGE_SEEDS:-1-3}" "${STAGE_COUNT:-300}"
