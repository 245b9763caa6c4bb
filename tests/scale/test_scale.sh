#!/usr/bin/env bash
# Generated code at scale (docs/internals.md, "Limits"): long operator chains and else-if chains
# are checked, emitted and run without recursion, in linear time; programs nested to the parser's
# limit emit C that clang and gcc accept; one level more is refused with E-PARSE at its line.
# Every program is generated here by tests/scale/gen_scale.c (nothing large is checked in).
# Prints one line per failed check and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CAIRN=${CAIRN:-bin/cairn}
CAIRN=$(cd "$(dirname "$CAIRN")" && pwd)/$(basename "$CAIRN")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
skip=0

ok() {   # ok NAME STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL scale: $1"; fi
}
skipped() { skip=$((skip + 1)); echo "SKIP scale: $1"; }

cc -std=c17 -O2 -Wall -Wextra -Werror -o "$T/gen" tests/scale/gen_scale.c || { echo "FAIL scale: gen_scale does not build"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
gen() {   # gen SHAPE N NAME: NAME.cairn and NAME.want (what it must print)
    "$T/gen" "$1" "$2" >"$T/$3.cairn" 2>"$T/$3.want"
}
# CPU seconds of a command (user + sys), from bash's time.
cpu() {
    local TIMEFORMAT='%U %S'
    { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }'
}
have() { command -v "$1" >/dev/null 2>&1; }

# ---- long chains: checked without a crash --------------------------------------------------------
gen sum 40000 sum40k
gen and 100000 and100k
gen lits 40000 lits40k
for p in sum40k and100k lits40k; do
    "$CAIRN" check "$T/$p.cairn" >"$T/out" 2>"$T/err"
    ok "check $p exits 0" "$([ $? = 0 ] && grep -q accepted "$T/out"; echo $?)"
done

# a type error at the end of a 40,000-term chain: refused at the chain's place, and the message
# quotes the chain's first 200 characters, not all of it
gen mismatch 40000 mismatch
"$CAIRN" check "$T/mismatch.cairn" >/dev/null 2>"$T/mismatch.err"
ok "mismatch at the end of a long chain: E-TYPE-MISMATCH at 5:17" "$([ $? = 1 ] &&
    grep -q 'mismatch.cairn:5:17: error\[E-TYPE-MISMATCH\]' "$T/mismatch.err"; echo $?)"
ok "... its message quotes 200 characters of the chain and '...'" "$(grep 'error\[E-TYPE-MISMATCH\]' "$T/mismatch.err" |
    awk '{ exit !(length($0) < 400 && index($0, "...")) }'; echo $?)"

# ---- a long chain runs, in order, with every term --------------------------------------------------
# 30,000 terms of + and - over locals, literals and printing calls: a lost term, a wrong grouping
# or calls out of order change the output. clang: gcc -O2 takes minutes on 30,000 inlined guards.
gen sum 30000 sum30k
if have clang; then
    (cd "$T" && CC=clang "$CAIRN" run sum30k.cairn >sum30k.out 2>sum30k.err)
    ok "run of a 30,000-term chain prints its terms in order and the sum" "$(cmp -s "$T/sum30k.out" "$T/sum30k.want"; echo $?)"
else
    skipped "no clang: the 30,000-term run"
fi
gen lits 2000 lits2k
(cd "$T" && "$CAIRN" run lits2k.cairn >lits2k.out 2>&1)
ok "run of a 2,000-literal chain" "$(cmp -s "$T/lits2k.out" "$T/lits2k.want"; echo $?)"
gen andshort 5000 andshort
(cd "$T" && "$CAIRN" run andshort.cairn >andshort.out 2>&1)
ok "&& chain of 5,000 stops at its first false term" "$(cmp -s "$T/andshort.out" "$T/andshort.want"; echo $?)"

# an overflowing chain fails its guard, at the chain's place (line 4, column 16, where it starts)
gen overflow 300 overflow
(cd "$T" && "$CAIRN" run overflow.cairn >overflow.out 2>overflow.err)
ok "overflowing chain: guard, exit 134, at 4:16" "$([ $? = 134 ] &&
    grep -q 'overflow.cairn:4:16: guard failed: integer overflow: 255 + 1 does not fit in u8' "$T/overflow.err"; echo $?)"

# ---- linear time -----------------------------------------------------------------------------------
# A quadratic stage takes 100 times as long for 10 times the terms; linear, 10 times. The bound
# (30 times the small size's time, plus a second) holds on a loaded machine and fails quadratic.
gen sum 100000 sum100k
gen sum 1000000 sum1m
"$CAIRN" check "$T/sum100k.cairn" >/dev/null 2>&1 && "$CAIRN" check "$T/sum1m.cairn" >/dev/null 2>&1
ok "check of a 10^6-term chain accepts it" "$?"
t_small=$(cpu "$CAIRN" check "$T/sum100k.cairn")
t_big=$(cpu "$CAIRN" check "$T/sum1m.cairn")
ok "check of 10^6 terms is linear (${t_big}s vs ${t_small}s for 10^5)" "$(awk -v b="$t_big" -v s="$t_small" 'BEGIN { exit !(b < 30 * s + 1) }'; echo $?)"

# The emitter alone (cairn build would time cc too), through bench/emit_speed.c and the library.
lib=$(ls build/obj-cc/libcairn.a 2>/dev/null || ls build/obj-*/libcairn.a 2>/dev/null | head -1)
if [ -n "$lib" ] && cc -std=c17 -O2 -Isrc -o "$T/emit_speed" bench/emit_speed.c "$lib" -lm 2>"$T/es.err"; then
    "$T/emit_speed" "$T/sum1m.cairn" >/dev/null 2>&1
    ok "the 10^6-term chain is emitted" "$?"
    e_small=$(cpu "$T/emit_speed" "$T/sum100k.cairn")
    e_big=$(cpu "$T/emit_speed" "$T/sum1m.cairn")
    ok "emit of 10^6 terms is linear (${e_big}s vs ${e_small}s for 10^5)" "$(awk -v b="$e_big" -v s="$e_small" 'BEGIN { exit !(b < 30 * s + 1) }'; echo $?)"
else
    skipped "no libcairn.a to time the emitter with"
fi

# ---- chains of consts and of calls ----------------------------------------------------------------
gen consts 200000 consts200k
"$CAIRN" check "$T/consts200k.cairn" >/dev/null 2>&1
ok "200,000 consts declared last first, each naming the next, check" "$?"
gen consts 300 consts300
(cd "$T" && "$CAIRN" run consts300.cairn >consts300.out 2>&1)
ok "... and their value is right" "$(cmp -s "$T/consts300.out" "$T/consts300.want"; echo $?)"
# a device lane reaching a chain of 40 calls: every function of it is device code (CN_DEV_BOTH),
# not only the first 32; emulated, it runs
gen devcalls 40 devcalls
(cd "$T" && "$CAIRN" build --emulate --device-target sm_90a --out b_devcalls devcalls.cairn >/dev/null 2>&1)
ok "a device lane's 40-deep call chain is device code to its end" "$([ $? = 0 ] &&
    [ "$(grep -c '^CN_DEV_BOTH float fn_h[0-9]*(float' "$T/b_devcalls/devcalls.c")" = 80 ] &&
    ! grep -q '^static float fn_h' "$T/b_devcalls/devcalls.c"; echo $?)"
(cd "$T" && "$CAIRN" run --emulate --device-target sm_90a devcalls.cairn >devcalls.out 2>/dev/null)
ok "... and runs emulated" "$(cmp -s "$T/devcalls.out" "$T/devcalls.want"; echo $?)"

# ---- else-if chains ------------------------------------------------------------------------------
gen elif 100000 elif100k
"$CAIRN" check "$T/elif100k.cairn" >/dev/null 2>&1
ok "check of a 100,000-branch else-if chain" "$?"

# ---- emitted C within every compiler's limits ------------------------------------------------------
# The 300-term flat sum (clang once refused its 300 nested brackets), an else-if chain of 500
# whose conditions need statements (each once nested in the else before it), and each shape nested
# to the deepest the parser accepts: built and run with clang and with gcc; clang -fsyntax-only.
gen flat 300 sum300
gen elif 500 elif500
gen parens 62 parens
gen loops 62 loops
gen whiles 61 whiles
gen logic 60 logic
gen index 31 index
for p in sum300 elif500 parens loops whiles logic index; do
    for c in clang gcc; do
        if ! have $c; then
            skipped "no $c: $p"
            continue
        fi
        (cd "$T" && CC=$c "$CAIRN" run "$p.cairn" >"$p.$c.out" 2>"$p.$c.err")
        ok "$p built by $c runs and prints what it must" "$(cmp -s "$T/$p.$c.out" "$T/$p.want"; echo $?)"
    done
    if have clang; then
        (cd "$T" && "$CAIRN" build --out "b_$p" "$p.cairn" >/dev/null 2>&1)
        clang -std=c17 -fsyntax-only -I"$ROOT/runtime" "$T/b_$p/$p.c" 2>"$T/$p.syntax"
        ok "clang -fsyntax-only accepts the C of $p" "$?"
    fi
done

# one level deeper than the limit: E-PARSE at the line, never a crash
for s in "parens 63 4" "loops 63 4" "whiles 62 4" "logic 61 4" "index 32 8"; do
    set -- $s
    gen "$1" "$2" deep
    "$CAIRN" check "$T/deep.cairn" >/dev/null 2>"$T/deep.err"
    ok "$1 nested $2 deep: E-PARSE at line $3" "$([ $? = 1 ] &&
        grep -q "deep.cairn:$3:[0-9]*: error\[E-PARSE\]: nesting deeper than 64 levels" "$T/deep.err"; echo $?)"
done

# ---- expand: a long chain round-trips ------------------------------------------------------------
"$CAIRN" expand "$T/sum40k.cairn" >"$T/x1.cairn" 2>/dev/null
ok "expand of a 40,000-term chain" "$?"
"$CAIRN" expand "$T/x1.cairn" >"$T/x2.cairn" 2>/dev/null
ok "expand of its expansion gives the same text" "$(cmp -s "$T/x1.cairn" "$T/x2.cairn"; echo $?)"
"$CAIRN" check "$T/x1.cairn" >/dev/null 2>&1
ok "the expansion is accepted" "$?"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
