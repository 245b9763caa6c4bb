# judge_lib.sh: what the scripts that run a brute-force judge share (tests/par/test_race_judge.sh,
# tests/coop/test_coop_judge.sh). Sourced after `cd` to the repository root; WHAT names the judge in
# messages ("race judge"), JUDGE is its command line.
#
#   judge_setup WHAT SCRIPT.py     CAIRN made absolute, a temporary folder $T, counters, ok()
#   judge_self_test                the judge on its hand-made cases
#   judge_fakes CODE               three fake checkers in $T: accept_all, refuse_all (with CODE),
#                                  refuse_type (E-TYPE-MISMATCH: the generator is to blame)
#   judge_refuse_all COUNT WORD    refuse_all is sound with precision 0 (WORD: "race-free", "clean")
#   judge_refuse_type COUNT MIN    refuse_type blames the generator at least MIN times of COUNT
#   judge_checker SEEDS COUNT      the judge against $CAIRN; adds its counts; prints the summary line
set -u

judge_setup() {
    WHAT=$1
    JUDGE="python3 $2"
    CAIRN=${CAIRN:-bin/cairn}
    case "$CAIRN" in /*) ;; *) CAIRN=$PWD/$CAIRN ;; esac
    T=$(mktemp -d)
    trap 'rm -rf "$T"' EXIT
    mkdir -p "$T/w"
    pass=0; fail=0
}

ok() {   # ok NAME CONDITION-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $WHAT: $1"; fi
}

judge_self_test() {
    $JUDGE --self-test >"$T/log" 2>&1
    grep '^FAIL' "$T/log"
    ok "the judge's own cases ($(tail -1 "$T/log"))" $(grep -q '^[1-9][0-9]* passed, 0 failed' "$T/log"; echo $?)
}

judge_fakes() {
    printf '#!/bin/sh\nexit 0\n' >"$T/accept_all"
    printf '#!/bin/sh\necho "$2:1:1: error[%s]: refused" >&2\nexit 1\n' "$1" >"$T/refuse_all"
    printf '#!/bin/sh\necho "$2:1:1: error[E-TYPE-MISMATCH]: refused" >&2\nexit 1\n' >"$T/refuse_type"
    chmod +x "$T/accept_all" "$T/refuse_all" "$T/refuse_type"
}

judge_refuse_all() {
    $JUDGE "$T/refuse_all" 3 "$1" "$T/w" >"$T/log" 2>&1
    local rc=$?
    ok "a checker that refuses everything is sound, with precision 0 (exit $rc)" \
       $([ "$rc" = 0 ] && grep -q "^precision: 0/[1-9][0-9]* $2 programs accepted (0.0%)" "$T/log" &&
         grep -q "^$1 passed, 0 failed" "$T/log"; echo $?)
}

judge_refuse_type() {
    $JUDGE "$T/refuse_type" 3 "$1" "$T/w" >"$T/log" 2>&1
    local rc=$?
    ok "a refusal with another code blames the generator (exit $rc)" \
       $([ "$rc" = 1 ] && [ "$(grep -c '^FAIL generator: seed=3 prog=' "$T/log")" -ge "$2" ]; echo $?)
}

judge_checker() {
    local start rc p f
    start=$(date +%s)
    $JUDGE "$CAIRN" "$1" "$2" "$T/w" >"$T/log" 2>&1
    rc=$?
    grep -v '^[0-9]* passed' "$T/log"
    p=$(sed -n 's/^\([0-9]*\) passed, .*/\1/p' "$T/log"); f=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p' "$T/log")
    if [ -z "$p" ] || [ -z "$f" ]; then
        fail=$((fail + 1)); echo "FAIL $WHAT: exit $rc and no summary line"
    else
        pass=$((pass + p)); fail=$((fail + f))
        [ "$rc" = 0 ] || [ "$f" -gt 0 ] || { fail=$((fail + 1)); echo "FAIL $WHAT: exit $rc"; }
    fi
    echo "$WHAT: $(( $(date +%s) - start )) s"
    echo "$pass passed, $fail failed, 0 skipped"
    [ "$fail" -eq 0 ]
}
