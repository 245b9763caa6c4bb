/*
 * bench_trig.c: ns per call of sin and cos (runtime/cairn_math_trig.h) and
 * of glibc's, on the same 2^24 seeded random inputs, uniform in [-10, 10]
 * and in [-1e5, 1e5]; the median of 5 runs. Not part of the suite.
 *
 *   cc -std=c17 -O2 -ffp-contract=off -fno-fast-math -Wall -Wextra -Werror -Iruntime -Itests/math \
 *      tests/math/bench_trig.c -o build/math/bench_trig -lmpfr -lgmp -lm -lpthread && build/math/bench_trig
 */
#define _POSIX_C_SOURCE 199309L
#include "cairn_math_trig.h"
#include "mathcheck.h"
#include <time.h>

enum { N = 1 << 24, RUNS = 5 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t)
{
    qsort(t, RUNS, sizeof *t, cmp);
    return t[RUNS / 2];
}

/* Each bench sums the results so the calls cannot be dropped. */
#define BENCH32(NAME, CALL)                                                                                  \
    static double NAME(const float *in, volatile float *sink)                                            \
    {                                                                                                    \
        double t[RUNS];                                                                                  \
        for (int r = 0; r < RUNS; r++) {                                                                 \
            float acc = 0.0f;                                                                            \
            double t0 = now();                                                                           \
            for (int i = 0; i < N; i++)                                                                  \
                acc += CALL(in[i]);                                                                      \
            t[r] = (now() - t0) * 1e9 / N;                                                               \
            *sink = acc;                                                                                 \
        }                                                                                                \
        return median(t);                                                                                \
    }
#define BENCH64(NAME, CALL)                                                                                  \
    static double NAME(const double *in, volatile double *sink)                                          \
    {                                                                                                    \
        double t[RUNS];                                                                                  \
        for (int r = 0; r < RUNS; r++) {                                                                 \
            double acc = 0.0;                                                                            \
            double t0 = now();                                                                           \
            for (int i = 0; i < N; i++)                                                                  \
                acc += CALL(in[i]);                                                                      \
            t[r] = (now() - t0) * 1e9 / N;                                                               \
            *sink = acc;                                                                                 \
        }                                                                                                \
        return median(t);                                                                                \
    }

BENCH32(b_sinf_ours, cn_math_sin_f32)
BENCH32(b_sinf_glibc, sinf)
BENCH32(b_cosf_ours, cn_math_cos_f32)
BENCH32(b_cosf_glibc, cosf)
BENCH64(b_sin_ours, cn_math_sin_f64)
BENCH64(b_sin_glibc, sin)
BENCH64(b_cos_ours, cn_math_cos_f64)
BENCH64(b_cos_glibc, cos)

static void bench_range(double lo, double hi)
{
    float *f = malloc(N * sizeof *f);
    double *d = malloc(N * sizeof *d);
    uint64_t s = 42;
    for (int i = 0; i < N; i++) {
        d[i] = cm_in64(&s, lo, hi);
        f[i] = (float)cm_in64(&s, lo, hi);
    }
    volatile float sf;
    volatile double sd;
    printf("inputs uniform in [%g, %g], ns per call (median of %d runs of 2^24 calls)\n", lo, hi, RUNS);
    double a = b_sinf_ours(f, &sf), b = b_sinf_glibc(f, &sf);
    printf("  sinf: ours %6.2f  glibc %6.2f  ratio %.2f\n", a, b, a / b);
    a = b_cosf_ours(f, &sf), b = b_cosf_glibc(f, &sf);
    printf("  cosf: ours %6.2f  glibc %6.2f  ratio %.2f\n", a, b, a / b);
    a = b_sin_ours(d, &sd), b = b_sin_glibc(d, &sd);
    printf("  sin:  ours %6.2f  glibc %6.2f  ratio %.2f\n", a, b, a / b);
    a = b_cos_ours(d, &sd), b = b_cos_glibc(d, &sd);
    printf("  cos:  ours %6.2f  glibc %6.2f  ratio %.2f\n", a, b, a / b);
    free(f);
    free(d);
}

int main(void)
{
    bench_range(-10.0, 10.0);
    bench_range(-1e5, 1e5);
    return 0;
}
