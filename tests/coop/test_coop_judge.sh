#!/usr/bin/env bash
# Cooperative regions against an independent judge (tests/coop/coop_judge.py): random regions at
# small shapes, each judged by running every thread of every block, phase by phase, for g in 1..4.
# Every program the checker accepts must break none of the page's rules (soundness: zero
# exceptions); the precision (clean programs accepted) is printed, and refusals that name none of
# the codes the judge finds are counted as info (diagnostic precision), not failures.
#
# Before that, the judge itself is tried: on 31 regions modelled by hand with their verdicts (the
# spec's d09 to d16 among them), and against fake checkers: one that accepts everything (the judge
# must report unsound verdicts with their witnesses), one that refuses everything with
# E-COOP-UNDECIDED (sound, precision 0) and one that refuses with a type error (the generator is
# blamed).
#
# COOP_SEEDS (1, a list 1,2 or a range 1-20) and COOP_COUNT (programs per seed, 500) widen the run;
# `make soak` runs many seeds. Prints `N passed, N failed, 0 skipped`.
cd "$(dirname "$0")/../.."
. tests/judge_lib.sh
judge_setup "coop judge" tests/coop/coop_judge.py

# --- the judge alone, on regions modelled by hand with their verdicts
judge_self_test

# --- the judge against fake checkers
judge_fakes E-COOP-UNDECIDED
$JUDGE "$T/accept_all" 3 100 "$T/w" >"$T/log" 2>&1
rc=$?
n=$(grep -c '^FAIL seed=3 prog=[0-9]*: accepted, but ' "$T/log")
ok "a checker that accepts everything is caught (exit $rc, $n unsound verdicts of 100)" \
   $([ "$rc" = 1 ] && [ "$n" -ge 30 ] && grep -q '^[0-9]* passed, [1-9][0-9]* failed' "$T/log"; echo $?)
ok "an unsound verdict names the threads, the block, the element and the phase" \
   $(grep -q '^FAIL seed=3 prog=[0-9]*: accepted, but .*E-COOP-[A-Z]*: g=[1-4] block .*: threads* .* [sw][0-9]*\[[0-9]*\] .*phase [0-9]' "$T/log"; echo $?)
for code in E-COOP-CONFLICT E-COOP-UNORDERED E-COOP-REUSE E-COOP-BARRIER E-COOP-WARP E-COOP-UNWRITTEN E-COOP-GLOBAL; do
    ok "the generator makes programs that break $code" \
       $(grep -q "^FAIL seed=3 prog=[0-9]*: accepted, but .*$code: " "$T/log"; echo $?)
done

judge_refuse_all 100 clean
judge_refuse_type 20 20

# --- the generator writes valid CAIRN: every program parses, and its sequential stand-in (the region
# as loops, shared arrays as buffers, no barriers or warp operations) types, which the checker does
# not yet show for a cooperative body itself
$JUDGE --typecheck "$CAIRN" 1 100 "$T/w" >"$T/log" 2>&1
rc=$?
grep '^FAIL' "$T/log" | head -5
ok "100 generated programs parse and their stand-ins type ($(tail -1 "$T/log"))" \
   $([ "$rc" = 0 ] && grep -q '^200 passed, 0 failed' "$T/log"; echo $?)
$JUDGE --typecheck "$T/refuse_type" 1 5 "$T/w" >"$T/log" 2>&1
ok "a stand-in refused fails the type check (exit $?)" $(grep -q '^0 passed, 10 failed' "$T/log"; echo $?)

# --- the checker
judge_checker "${COOP_SEEDS:-1}" "${COOP_COUNT:-500}"
