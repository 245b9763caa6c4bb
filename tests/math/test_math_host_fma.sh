#!/usr/bin/env bash
# The host's two forms of the portable math (runtime/cairn_math_base.h, first tries): where cairn
# builds with -mfma (an x86-64 CPU with FMA, src/cli/build.c host_fma) the first tries take their
# one-rounding forms, with CAIRN_HOST_FMA=0 the plain ones. The answers must not change: one
# program hashes the f32 results of each one-argument function over 2^22 inputs spread over every
# bit pattern (and a few thousand of pow and atan2) in a host region, built both ways, and the two
# outputs must be equal line for line; the receipts must say which flags were used.
# Prints `FAIL ...` lines and `N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/../.."
CAIRN=${CAIRN:-bin/cairn}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0; skip=0
bad() { fail=$((fail + 1)); echo "FAIL host fma: $1"; }
{
    echo "fn h(n:usize, f:usize, out:rw<u64>[n]) {"
    echo "  parallel i in n {"
    echo "    let x = from_bits[f32](u32(i * 1021 % 4194304) * 1024 + u32(i % 1024));"
    echo "    let mut y:f32 = 0.0;"
    k=0
    for fn in exp exp2 expm1 log log2 log1p sin cos tanh erf atan; do
        echo "    if f == $k { y = std.math.$fn(x); }"; k=$((k + 1))
    done
    echo "    if f == $k { y = std.math.pow(x, 1.75); }"; k=$((k + 1))
    echo "    if f == $k { y = std.math.atan2(x, 3.5); }"
    echo "    out[i] = u64(to_bits(y));"
    echo "  }"
    echo "}"
    echo "fn main() -> i32 {"
    echo "  let n:usize = 4194304;"
    echo "  buffer out:u64[n] = zeroed;"
    echo "  for f in 0..13 {"
    echo "    h(n, f, out);"
    echo "    let s = reduce add_wrap for i in n yield out[i] * u64(i * 2 + 1);"
    echo "    println(f, s);"
    echo "  }"
    echo "  return 0;"
    echo "}"
} >"$T/h.cairn"
if ! "$CAIRN" build "$T/h.cairn" --out "$T/fma" >"$T/fma.log" 2>&1 ||
    ! CAIRN_HOST_FMA=0 "$CAIRN" build "$T/h.cairn" --out "$T/plain" >"$T/plain.log" 2>&1; then
    bad "the hashing program does not build"; cat "$T/fma.log" "$T/plain.log" | head -20
else
    grep -q '"-mfma"' "$T/plain/h.receipt.json" && bad "CAIRN_HOST_FMA=0 still passed -mfma" || pass=$((pass + 1))
    "$T/fma/h" >"$T/fma.out" 2>&1 && "$T/plain/h" >"$T/plain.out" 2>&1 || bad "the hashing program does not run"
    [ "$(wc -l <"$T/plain.out")" = 13 ] && pass=$((pass + 1)) || bad "expected 13 hashes, got $(wc -l <"$T/plain.out")"
    if grep -q '"-mfma"' "$T/fma/h.receipt.json"; then
        if cmp -s "$T/fma.out" "$T/plain.out"; then pass=$((pass + 1)); else
            bad "the FMA forms' answers differ from the plain forms'"; diff "$T/plain.out" "$T/fma.out" | head; fi
    else
        skip=$((skip + 1)); echo "SKIP host fma: this machine builds without -mfma (no FMA, or another compiler)"
    fi
fi
# The same two forms compiled directly, on every 16th chunk of 2^24 inputs (2^28 of each function;
# make test-exhaustive takes all 2^32: tests/math/forms_agree.c).
F="-std=c17 -O2 -ffp-contract=off -fno-fast-math -fno-strict-aliasing -Wall -Wextra -Werror -Iruntime"
if ! cc $F -o "$T/forms_plain" tests/math/forms_agree.c -lm -lpthread; then
    bad "forms_agree.c does not build"
elif cc $F -mfma -o "$T/forms_fma" tests/math/forms_agree.c -lm -lpthread 2>/dev/null; then
    for f in exp exp2 expm1 tanh log log2 log1p sin cos erf atan pow atan2; do
        "$T/forms_plain" $f 2 16 >"$T/$f.plain" && "$T/forms_fma" $f 2 16 >"$T/$f.fma" &&
            [ "$(wc -l <"$T/$f.plain")" = 16 ] && cmp -s "$T/$f.plain" "$T/$f.fma" && pass=$((pass + 1)) ||
            { bad "$f: the FMA form differs from the plain one on 2^28 inputs"; diff "$T/$f.plain" "$T/$f.fma" | head -4; }
    done
else
    skip=$((skip + 1)); echo "SKIP host fma forms: cc does not take -mfma"
fi
# The bounds the FMA first tries' analyses use, recomputed with MPFR (exit 1 on a FAIL).
if cc -std=c17 -O2 -Wall -Wextra -Werror tools/gen_math_first_fma.c -o "$T/gen_first_fma" -lmpfr -lgmp -lm; then
    "$T/gen_first_fma" >"$T/gen.out" 2>&1 && ! grep -q FAIL "$T/gen.out" && pass=$((pass + 1)) ||
        { bad "tools/gen_math_first_fma: a bound the analyses assume does not hold"; grep FAIL "$T/gen.out" | head; }
else
    bad "tools/gen_math_first_fma.c does not build"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
