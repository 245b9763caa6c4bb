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
#include <time.h>

enum { N = 1 << 24, RUNS = 5 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static volatile double sink;

#define TIME_LOOP(T, arr, call)                                                                                \
    do {                                                                                                       \
        double t[RUNS];                                                                                        \
        for (int r = 0; r < RUNS; r++) {                                                                       \
            double t0 = now(), acc = 0;                                                                        \
            for (int i = 0; i < N; i++)                                                                        \
                acc += (double)call(arr[i]);                                                                   \
            t[r] = (now() - t0) * 1e9 / N;                                                                     \
            sink = acc;                                                                                        \
        }                                                                                                      \
        qsort(t, RUNS, sizeof t[0], cmp);                                                                      \
        T = t[RUNS / 2];                                                                                       \
    } while (0)

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
