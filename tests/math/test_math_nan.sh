#!/bin/bash
# test_math_nan.sh: every NaN result of the portable functions is the one quiet NaN (0x7fc00000,
# 0x7ff8000000000000), whatever NaN came in and however the NaN arose (sin(inf), log(-1),
# pow(-2.5, 0.5)): the host keeps an input's payload and makes 0xffc00000 itself, the GPU makes
# 0x7fffffff, and tests/device/math_agree.cu hashes results bit for bit.
set -u
cd "$(dirname "$0")/../.."
mkdir -p build/math
cat >build/math/nan_bits.c <<'C'
#include "cairn_math.h"
#include <stdio.h>
static int pass, fail;
static void one(const char *what, uint64_t got, uint64_t want)
{
    if (got == want) pass++;
    else { fail++; printf("FAIL math nan: %s gave %llx, not %llx\n", what, (unsigned long long)got, (unsigned long long)want); }
}
#define F1(F) for (int k = 0; k < 4; k++) { \
        one(#F " f32", cn_mb_bits32(cn_math_##F##_f32(cn_mb_f32(in32[k]))), 0x7fc00000u); \
        one(#F " f64", cn_mb_bits64(cn_math_##F##_f64(cn_mb_f64(in64[k]))), 0x7ff8000000000000ull); }
#define F2(F) for (int k = 0; k < 4; k++) { \
        one(#F " f32 (nan, 2)", cn_mb_bits32(cn_math_##F##_f32(cn_mb_f32(in32[k]), 2.0f)), 0x7fc00000u); \
        one(#F " f32 (2, nan)", cn_mb_bits32(cn_math_##F##_f32(2.0f, cn_mb_f32(in32[k]))), 0x7fc00000u); \
        one(#F " f64 (nan, 2)", cn_mb_bits64(cn_math_##F##_f64(cn_mb_f64(in64[k]), 2.0)), 0x7ff8000000000000ull); }
int main(void)
{
    const uint32_t in32[4] = {0x7f800001u, 0x7fc12345u, 0xffc00000u, 0xffffffffu};
    const uint64_t in64[4] = {0x7ff0000000000001ull, 0x7ff8000000012345ull, 0xfff8000000000000ull, 0xffffffffffffffffull};
    F1(exp) F1(exp2) F1(expm1) F1(log) F1(log2) F1(log1p) F1(sin) F1(cos) F1(tanh) F1(erf) F1(atan)
    F2(pow) F2(atan2)
    float inf = cn_mb_f32(0x7f800000u);
    one("sin f32 (inf)", cn_mb_bits32(cn_math_sin_f32(inf)), 0x7fc00000u);
    one("cos f32 (-inf)", cn_mb_bits32(cn_math_cos_f32(-inf)), 0x7fc00000u);
    one("log f32 (-1)", cn_mb_bits32(cn_math_log_f32(-1.0f)), 0x7fc00000u);
    one("log1p f64 (-2)", cn_mb_bits64(cn_math_log1p_f64(-2.0)), 0x7ff8000000000000ull);
    one("pow f32 (-2.5, 0.5)", cn_mb_bits32(cn_math_pow_f32(-2.5f, 0.5f)), 0x7fc00000u);
    one("sin f64 (inf)", cn_mb_bits64(cn_math_sin_f64((double)inf)), 0x7ff8000000000000ull);
    printf("%d passed, %d failed, 0 skipped\n", pass, fail);
    return fail != 0;
}
C
if ! cc -std=c17 -O2 -ffp-contract=off -fno-fast-math -Wall -Wextra -Werror -Iruntime -o build/math/nan_bits build/math/nan_bits.c -lm; then
    echo "0 passed, 1 failed, 0 skipped"; exit 1
fi
build/math/nan_bits
