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
# Then regions with two pipelines (stage_judge.py --two): each wait's cp.async.wait_group count, read
# from the emitted C, against the fewest fills any run leaves after the one the wait needs; a fake
# compiler whose counts are one more must be caught.
#
# STAGE_SEEDS (1-3) and STAGE_COUNT (300 a seed) widen the run; STAGE_TWO_SEEDS (1-2) and
# STAGE_TWO_COUNT (60) the two-pipeline one. Prints `N passed, N failed, 0 skipped`.
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

# Two pipelines (--two): every accepted clean region's wait counts against the fewest fills any run
# leaves after the one a wait needs. A compiler whose emitted counts are one more than ours (a wait
# that lets the fill it needs stay pending) must be caught.
cat >"$T/plus_one" <<EOF
#!/usr/bin/env python3
import re, subprocess, sys
p = subprocess.run(["$CAIRN"] + sys.argv[1:], capture_output=True, text=True)
out = p.stdout
if sys.argv[1] == "build":
    out = re.sub(r"CN_COOPD_STAGE_WAIT(_ONLY)?\((\d+)\)", lambda m: "CN_COOPD_STAGE_WAIT%s(%d)" % (m.group(1) or "", int(m.group(2)) + 1), out)
sys.stdout.write(out)
sys.stderr.write(p.stderr)
sys.exit(p.returncode)
EOF
chmod +x "$T/plus_one"
$JUDGE --two "$T/plus_one" 2 20 "$T/w" >"$T/log" 2>&1
rc=$?
n=$(grep -c '^FAIL seed=2 prog=[0-9]*: the wait at line [0-9]* leaves' "$T/log")
ok "a compiler whose waits leave one more fill pending is caught (exit $rc, $n waits)" \
   $([ "$rc" = 1 ] && [ "$n" -ge 10 ]; echo $?)
$JUDGE --two "$CAIRN" "${STAGE_TWO_SEEDS:-1-2}" "${STAGE_TWO_COUNT:-60}" "$T/w" >"$T/log" 2>&1
rc=$?
grep '^FAIL' "$T/log" | head -5
ok "two pipelines, no wait leaves pending a fill it needs: $(tail -2 "$T/log" | head -1)" \
   $([ "$rc" = 0 ] && grep -q '^two pipelines: ' "$T/log"; echo $?)
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
