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
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
case "$CAIRN" in /*) ;; *) CAIRN=$PWD/$CAIRN ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
JUDGE="python3 tests/coop/coop_judge.py"

ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL coop judge: $1"; fi
}

# --- the judge alone, on regions modelled by hand with their verdicts
$JUDGE --self-test >"$T/log" 2>&1
grep '^FAIL' "$T/log"
ok "the judge's own cases ($(tail -1 "$T/log"))" $(grep -q '^[1-9][0-9]* passed, 0 failed' "$T/log"; echo $?)

# --- the judge against fake checkers
mkdir -p "$T/w"
printf '#!/bin/sh\nexit 0\n' >"$T/accept_all"
printf '#!/bin/sh\necho "$2:2:3: error[E-COOP-UNDECIDED]: refused" >&2\nexit 1\n' >"$T/refuse_all"
printf '#!/bin/sh\necho "$2:2:3: error[E-TYPE-MISMATCH]: refused" >&2\nexit 1\n' >"$T/refuse_type"
chmod +x "$T/accept_all" "$T/refuse_all" "$T/refuse_type"

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

$JUDGE "$T/refuse_all" 3 100 "$T/w" >"$T/log" 2>&1
rc=$?
ok "a checker that refuses everything is sound, with precision 0 (exit $rc)" \
   $([ "$rc" = 0 ] && grep -q '^precision: 0/[1-9][0-9]* clean programs accepted (0.0%)' "$T/log" &&
     grep -q '^100 passed, 0 failed' "$T/log"; echo $?)

$JUDGE "$T/refuse_type" 3 20 "$T/w" >"$T/log" 2>&1
rc=$?
ok "a refusal with a type error blames the generator (exit $rc)" \
   $([ "$rc" = 1 ] && [ "$(grep -c '^FAIL generator: seed=3 prog=' "$T/log")" = 20 ]; echo $?)

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
start=$(date +%s)
$JUDGE "$CAIRN" "${COOP_SEEDS:-1}" "${COOP_COUNT:-500}" "$T/w" >"$T/log" 2>&1
rc=$?
grep -v '^[0-9]* passed' "$T/log"
p=$(sed -n 's/^\([0-9]*\) passed, .*/\1/p' "$T/log"); f=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p' "$T/log")
if [ -z "$p" ] || [ -z "$f" ]; then
    fail=$((fail + 1)); echo "FAIL coop judge: exit $rc and no summary line"
else
    pass=$((pass + p)); fail=$((fail + f))
    [ "$rc" = 0 ] || [ "$f" -gt 0 ] || { fail=$((fail + 1)); echo "FAIL coop judge: exit $rc"; }
fi
echo "coop judge: $(( $(date +%s) - start )) s"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
