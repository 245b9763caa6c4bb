/*
 * bench_exp.c: ns per call of the exp family against glibc's, on the same
 * 2^24 seeded inputs (not run by the suite).
 *   cc -std=c17 -O2 -ffp-contract=off -fno-fast-math -Wall -Wextra -Werror -Iruntime -Itests/math \
 *      tests/math/bench_exp.c -o build/math/bench_exp -lmpfr -lgmp -lm -lpthread && build/math/bench_exp
 * Inputs: uniform where the result is neither saturated nor overflowing:
 * exp and expm1 in (-20, 20) for f32 and (-40, 40) for f64 (half of them
 * also in (-1, 1)), exp2 in (-30, 30) and (-60, 60), tanh in (-5, 5). Each
 * figure is the median of 5 timed passes.
 */
#define _POSIX_C_SOURCE 199309L
#include "cairn_math_exp.h"
#include "mathcheck.h"
#include "benchtime.h"

/* f32 inputs in (-w, w), doubles in (-2w, 2w); every other one in (-1, 1). */
static void fill(float *f, double *d, double w)
{
    uint64_t s = 0xe4b0ULL + (uint64_t)w;
    for (int i = 0; i < N; i++) {
        double a = (i & 1) ? 1.0 : w;
        f[i] = (float)cm_in64(&s, -a, a);
        d[i] = cm_in64(&s, -2 * a, 2 * a);
    }
}

#define ROW(NAME, OURS32, LIBM32, OURS64, LIBM64)                                                              \
    do {                                                                                                       \
        double a, b;                                                                                           \
        TIME_LOOP(a, f, OURS32); TIME_LOOP(b, f, LIBM32);                                                      \
        printf("%-5s f32: %6.2f ns  glibc %-7s %6.2f ns  ratio %.2f\n", NAME, a, #LIBM32, b, a / b);           \
        TIME_LOOP(a, d, OURS64); TIME_LOOP(b, d, LIBM64);                                                      \
        printf("%-5s f64: %6.2f ns  glibc %-7s %6.2f ns  ratio %.2f\n", NAME, a, #LIBM64, b, a / b);           \
    } while (0)

int main(void)
{
    float *f = malloc(sizeof(float) * N);
    double *d = malloc(sizeof(double) * N);
    fill(f, d, 20.0);
    ROW("exp", cn_math_exp_f32, expf, cn_math_exp_f64, exp);
    ROW("expm1", cn_math_expm1_f32, expm1f, cn_math_expm1_f64, expm1);
    fill(f, d, 30.0);
    ROW("exp2", cn_math_exp2_f32, exp2f, cn_math_exp2_f64, exp2);
    fill(f, d, 5.0);
    ROW("tanh", cn_math_tanh_f32, tanhf, cn_math_tanh_f64, tanh);
    free(f);
    free(d);
    return 0;
}
