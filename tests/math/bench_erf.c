/*
 * bench_erf.c: ns per call of cn_math_erf against glibc's erff and erf, on
 * the same 2^24 seeded inputs (not run by the suite).
 *   cc -std=c17 -O2 -ffp-contract=off -fno-fast-math -Wall -Wextra -Werror -Iruntime -Itests/math \
 *      tests/math/bench_erf.c -o build/math/bench_erf -lmpfr -lgmp -lm -lpthread && build/math/bench_erf
 * Inputs: uniform in (-4, 4) (f32) and (-6, 6) (f64), where erf is not yet
 * 1. Each figure is the median of 5 timed passes.
 */
#define _POSIX_C_SOURCE 199309L
#include "cairn_math_erf.h"
#include "mathcheck.h"
#include "benchtime.h"

int main(void)
{
    float *f = malloc(sizeof(float) * N);
    double *d = malloc(sizeof(double) * N);
    uint64_t s = 0xe4fULL;
    for (int i = 0; i < N; i++) {
        f[i] = (float)cm_in64(&s, -4.0, 4.0);
        d[i] = cm_in64(&s, -6.0, 6.0);
    }
    double a, b;
    TIME_LOOP(a, f, cn_math_erf_f32); TIME_LOOP(b, f, erff);
    printf("erf f32: %6.2f ns  glibc erff %6.2f ns  ratio %.2f\n", a, b, a / b);
    TIME_LOOP(a, d, cn_math_erf_f64); TIME_LOOP(b, d, erf);
    printf("erf f64: %6.2f ns  glibc erf  %6.2f ns  ratio %.2f\n", a, b, a / b);
    free(f);
    free(d);
    return 0;
}
