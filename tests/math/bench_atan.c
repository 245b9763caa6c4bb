/*
 * bench_atan.c: ns per call of atan and atan2 against glibc's, on the same
 * 2^24 seeded inputs (not run by the suite).
 *   cc -std=c17 -O2 -ffp-contract=off -fno-fast-math -Wall -Wextra -Werror -Iruntime -Itests/math \
 *      tests/math/bench_atan.c -o build/math/bench_atan -lmpfr -lgmp -lm -lpthread && build/math/bench_atan
 * Inputs: atan takes x of either sign spread over every binade (random bits,
 * no NaN or inf); atan2 takes y and x the same way with exponents at most 8
 * apart (so the quotient is rarely tiny or huge, the common case). Each
 * figure is the median of 5 timed passes.
 */
#define _POSIX_C_SOURCE 199309L
#include "cairn_math_atan.h"
#include "mathcheck.h"
#include "benchtime.h"

/* A finite value of either sign, every binade. */
static void fill(float *f, double *d, uint64_t seed)
{
    uint64_t s = seed;
    for (int i = 0; i < N; i++) {
        uint64_t u = cm_next(&s);
        f[i] = cm_f32((uint32_t)(u % 0x7f800000u) | (uint32_t)(u >> 63 << 31));
        d[i] = cm_f64(((u >> 1) % 0x7ff0000000000000ULL) | (u & 0x8000000000000000ULL));
    }
}

/* Like fill, but the exponent within 8 of the partner's. */
static void fill_near(float *f, double *d, const float *pf, const double *pd)
{
    uint64_t s = 0xa7a42b;
    for (int i = 0; i < N; i++) {
        uint64_t u = cm_next(&s);
        int de = (int)(u % 17) - 8;
        f[i] = (float)ldexp(pf[i] * cm_in64(&s, 0.5, 2.0), de);
        d[i] = ldexp(pd[i] * cm_in64(&s, 0.5, 2.0), de);
        if (u & 0x100)
            f[i] = -f[i], d[i] = -d[i];
    }
}

int main(void)
{
    float *f = malloc(sizeof(float) * N), *fx = malloc(sizeof(float) * N);
    double *d = malloc(sizeof(double) * N), *dx = malloc(sizeof(double) * N);
    double a, b;
    fill(f, d, 0xa7a4);
    TIME_LOOP(a, f, cn_math_atan_f32); TIME_LOOP(b, f, atanf);
    printf("atan f32:  %6.2f ns  glibc atanf  %6.2f ns  ratio %.2f\n", a, b, a / b);
    TIME_LOOP(a, d, cn_math_atan_f64); TIME_LOOP(b, d, atan);
    printf("atan f64:  %6.2f ns  glibc atan   %6.2f ns  ratio %.2f\n", a, b, a / b);
    fill(fx, dx, 0xa7a5);
    for (int i = 0; i < N; i++) /* keep the magnitudes moderate: no inf in the near-partner */
        fx[i] = (float)ldexp(fx[i], -ilogbf(fx[i]) + ilogbf(fx[i]) / 2), dx[i] = ldexp(dx[i], -ilogb(dx[i]) + ilogb(dx[i]) / 2);
    fill_near(f, d, fx, dx);
    TIME_LOOP2(a, f, fx, cn_math_atan2_f32); TIME_LOOP2(b, f, fx, atan2f);
    printf("atan2 f32: %6.2f ns  glibc atan2f %6.2f ns  ratio %.2f\n", a, b, a / b);
    TIME_LOOP2(a, d, dx, cn_math_atan2_f64); TIME_LOOP2(b, d, dx, atan2);
    printf("atan2 f64: %6.2f ns  glibc atan2  %6.2f ns  ratio %.2f\n", a, b, a / b);
    free(f);
    free(fx);
    free(d);
    free(dx);
    return 0;
}
