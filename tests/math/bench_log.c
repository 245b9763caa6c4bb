/*
 * bench_log.c: ns per call of the log family against glibc's, on the same
 * 2^24 seeded inputs (not run by the suite).
 *   cc -std=c17 -O2 -ffp-contract=off -fno-fast-math -Wall -Wextra -Werror -Iruntime -Itests/math \
 *      tests/math/bench_log.c -o build/math/bench_log -lmpfr -lgmp -lm -lpthread && build/math/bench_log
 * Inputs: log and log2 take positive numbers spread over every binade (random
 * bits, sign cleared, no NaN or inf); log1p takes x in (-1, 2^20) the same way,
 * half of them in (-1, 1); pow takes x spread over every binade and y with
 * |y log2 x| < 100 (so the result is finite and nonzero in f32). Each figure
 * is the median of 5 timed passes.
 */
#define _POSIX_C_SOURCE 199309L
#include "cairn_math_log.h"
#include "mathcheck.h"
#include "benchtime.h"

static void fill_pow(float *fx, float *fy, double *dx, double *dy)
{
    uint64_t s = 0x90eULL;
    for (int i = 0; i < N; i++) {
        uint64_t u = cm_next(&s);
        fx[i] = cm_f32((uint32_t)(u % 0x7f000000u) + 0x00800000u);
        double l = fabs(log2((double)fx[i]));
        fy[i] = (float)(cm_in64(&s, -1.0, 1.0) * 100.0 / (l < 1e-3 ? 1e-3 : l));
        dx[i] = fx[i];
        dy[i] = fy[i];
    }
}

static void fill(float *f, double *d, int log1p_range)
{
    uint64_t s = 0xbe4c4ULL + (uint64_t)log1p_range;
    for (int i = 0; i < N; i++) {
        uint64_t u = cm_next(&s);
        if (!log1p_range) {
            f[i] = cm_f32((uint32_t)(u % 0x7f800000u) + 1);
            d[i] = cm_f64((u >> 1) % 0x7ff0000000000000ULL + 1);
        } else if (u & 1) {
            f[i] = (float)cm_in64(&s, -1.0, 1.0);
            d[i] = cm_in64(&s, -1.0, 1.0);
        } else {
            f[i] = cm_f32(0x3f800000u + (uint32_t)((u >> 8) % (20u << 23))) - 1.0f;
            d[i] = cm_f64(0x3ff0000000000000ULL + (u >> 8) % (20ULL << 52)) - 1.0;
        }
        if (!(f[i] > -1.0f))
            f[i] = 0.5f;
        if (!(d[i] > -1.0))
            d[i] = 0.5;
    }
}

int main(void)
{
    float *f = malloc(sizeof(float) * N);
    double *d = malloc(sizeof(double) * N);
    double a, b;
    fill(f, d, 0);
    TIME_LOOP(a, f, cn_math_log_f32); TIME_LOOP(b, f, logf);
    printf("log f32:   %6.2f ns  glibc logf   %6.2f ns  ratio %.2f\n", a, b, a / b);
    TIME_LOOP(a, f, cn_math_log2_f32); TIME_LOOP(b, f, log2f);
    printf("log2 f32:  %6.2f ns  glibc log2f  %6.2f ns  ratio %.2f\n", a, b, a / b);
    TIME_LOOP(a, d, cn_math_log_f64); TIME_LOOP(b, d, log);
    printf("log f64:   %6.2f ns  glibc log    %6.2f ns  ratio %.2f\n", a, b, a / b);
    TIME_LOOP(a, d, cn_math_log2_f64); TIME_LOOP(b, d, log2);
    printf("log2 f64:  %6.2f ns  glibc log2   %6.2f ns  ratio %.2f\n", a, b, a / b);
    fill(f, d, 1);
    TIME_LOOP(a, f, cn_math_log1p_f32); TIME_LOOP(b, f, log1pf);
    printf("log1p f32: %6.2f ns  glibc log1pf %6.2f ns  ratio %.2f\n", a, b, a / b);
    TIME_LOOP(a, d, cn_math_log1p_f64); TIME_LOOP(b, d, log1p);
    printf("log1p f64: %6.2f ns  glibc log1p  %6.2f ns  ratio %.2f\n", a, b, a / b);
    float *fy = malloc(sizeof(float) * N);
    double *dy = malloc(sizeof(double) * N);
    fill_pow(f, fy, d, dy);
    TIME_LOOP2(a, f, fy, cn_math_pow_f32); TIME_LOOP2(b, f, fy, powf);
    printf("pow f32:   %6.2f ns  glibc powf   %6.2f ns  ratio %.2f\n", a, b, a / b);
    TIME_LOOP2(a, d, dy, cn_math_pow_f64); TIME_LOOP2(b, d, dy, pow);
    printf("pow f64:   %6.2f ns  glibc pow    %6.2f ns  ratio %.2f\n", a, b, a / b);
    free(f);
    free(d);
    free(fy);
    free(dy);
    return 0;
}
