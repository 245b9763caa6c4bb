#!/usr/bin/env bash
# The portable std.math functions at length (make test-exhaustive): every one of the 2^32 f32 inputs of
# each one-argument function against MPFR (correctly rounded, no exception), a large structured and
# random sample of the two-argument ones, and 20 million random and adversarial inputs of each f64
# function against its stated bound. Each family's checker is tests/math/check_FAMILY.c.
#
#   bash tests/math/exhaustive_math.sh [FUNCTION ...]     (default: all; THREADS=N, default the cores)
#
# Hours of CPU for all of them (MPFR takes 0.1 to 0.6 us a call at f32's precision): run it on a
# machine with many cores. Prints a line per function with its time, then
#   N passed, N failed, 0 skipped
# and exits 1 when any input is wrong.
set -u
cd "$(dirname "$0")/../.."
# CHECK_BIN=DIR: take the checkers already built there (static ones carried to a machine without
# MPFR) instead of building them; MATH_OUT=DIR: where the logs go.
OUT=${MATH_OUT:-build/math}
BIN=${CHECK_BIN:-$OUT}
mkdir -p "$OUT"
THREADS=${THREADS:-$(nproc 2>/dev/null || echo 2)}
F64_COUNT=${F64_COUNT:-20000000}
MODES=${MODES:-exhaustive f64-long forms}   # any of them; forms: the host's plain and FMA forms of
                                           # each f32 function agree on all 2^32 inputs (forms_agree.c)
declare -A FAMILY=([exp]=exp [exp2]=exp [expm1]=exp [tanh]=exp [log]=log [log2]=log [log1p]=log [pow]=log
                   [sin]=trig [cos]=trig [erf]=erf [atan]=atan [atan2]=atan)
ORDER="exp exp2 expm1 tanh log log2 log1p pow sin cos erf atan atan2"
want=${*:-$ORDER}
pass=0; fail=0
# only the families asked for are built
for fam in $(for f in $want; do echo "${FAMILY[$f]:-}"; done | sort -u); do
    [ -z "${CHECK_BIN:-}" ] || break
    cc -std=c17 -O2 -ffp-contract=off -fno-fast-math -Wall -Wextra -Werror -Iruntime -Itests/math \
        -o "$OUT/check_$fam" "tests/math/check_$fam.c" -lmpfr -lgmp -lm -lpthread || { echo "FAIL: check_$fam does not build"; exit 2; }
done
for f in $want; do
    fam=${FAMILY[$f]:-}
    [ -n "$fam" ] || { echo "unknown function $f (one of: $ORDER)"; exit 2; }
    for mode in "--exhaustive $f $THREADS" "--f64-long $f $F64_COUNT"; do
        m=${mode%% *}
        case " $MODES " in *" ${m#--} "*) ;; *) continue ;; esac
        start=$(date +%s)
        if "$BIN/check_$fam" $mode >"$OUT/$f.${mode%% *}.log" 2>&1; then r=PASS; pass=$((pass + 1)); else r=FAIL; fail=$((fail + 1)); fi
        echo "$r $f ${mode%% *} ($(( $(date +%s) - start )) s): $(tail -1 "$OUT/$f.${mode%% *}.log")"
        [ $r = PASS ] || head -8 "$OUT/$f.${mode%% *}.log" | sed 's/^/    /'
    done
done
# The FMA forms (cairn build's -mfma) against the plain ones the checkers above prove, on every input.
case " $MODES " in *" forms "*)
    F="-std=c17 -O2 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -Wall -Wextra -Werror -Iruntime"
    if cc $F -o "$OUT/forms_plain" tests/math/forms_agree.c -lm -lpthread &&
        cc $F -mfma -o "$OUT/forms_fma" tests/math/forms_agree.c -lm -lpthread 2>/dev/null; then
        for f in $want; do
            start=$(date +%s)
            "$OUT/forms_plain" "$f" "$THREADS" >"$OUT/$f.forms.plain" 2>&1
            "$OUT/forms_fma" "$f" "$THREADS" >"$OUT/$f.forms.fma" 2>&1
            if [ "$(wc -l <"$OUT/$f.forms.plain")" = 256 ] && cmp -s "$OUT/$f.forms.plain" "$OUT/$f.forms.fma"; then
                r=PASS; pass=$((pass + 1)); else r=FAIL; fail=$((fail + 1)); fi
            echo "$r $f forms ($(( $(date +%s) - start )) s): plain and FMA forms hash all 2^32 inputs alike"
            [ $r = PASS ] || diff "$OUT/$f.forms.plain" "$OUT/$f.forms.fma" | head -8 | sed 's/^/    /'
        done
    else
        echo "SKIP forms: this compiler does not take -mfma"
    fi ;;
esac
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
