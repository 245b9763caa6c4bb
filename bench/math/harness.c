/*
 * harness.c: the portable f32 math functions on the host (issue 14), against glibc's.
 *
 *   bash bench/math/run.sh [ROUNDS]     builds bench/math/kernels.cairn with `bin/cairn build`,
 *                                       compiles this file around the emitted C with the flags
 *                                       `cairn build` uses, and runs it (CAIRN_THREADS=1, then 2)
 *
 * Per function, over 2^22 f32 inputs spread over its useful range (seeded):
 *   glibc    a plain C loop of glibc's function (expf, logf, ...)  y[i] = expf(x[i])
 *   cairn    a plain C loop of the portable function               y[i] = cn_math_exp_f32(x[i])
 *   region   the CAIRN region `parallel i in n { y[i] = std.math.exp(x[i]); }` on the pool
 * ns per element (medians over ROUNDS rounds, the variants interleaved, one warm-up call each) and
 * the ratios cairn / glibc (the aim: 1.5 at most) and region / cairn (the pool's gain over one
 * loop). The results of `cairn` and `region` must be the same bits; glibc's may differ by its own
 * error (not correctly rounded), counted and printed.
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#define main cairn_kernels_main
#include "kernels.c"
#undef main

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static float pow137(float x) { return powf(x, 1.37f); }
static float atan2_075(float x) { return atan2f(x, 0.75f); }
static float c_pow137(float x) { return cn_math_pow_f32(x, 1.37f); }
static float c_atan2_075(float x) { return cn_math_atan2_f32(x, 0.75f); }

typedef struct {
    const char *name;
    float (*libc)(float);
    float (*ours)(float);
    void (*region)(size_t, cn_view_f32, cn_view_f32);
    float lo, hi;
} Fn;

#define VIEW(p, n) ((cn_view_f32){(p), (n)})

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    enum { N = 1 << 22 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *z = malloc(N * sizeof *z);
    Fn fns[] = {
        {"exp", expf, cn_math_exp_f32, NULL, -87.0f, 88.0f},
        {"exp2", exp2f, cn_math_exp2_f32, NULL, -125.0f, 127.0f},
        {"expm1", expm1f, cn_math_expm1_f32, NULL, -10.0f, 10.0f},
        {"log", logf, cn_math_log_f32, NULL, 1e-30f, 1e30f},
        {"log2", log2f, cn_math_log2_f32, NULL, 1e-30f, 1e30f},
        {"log1p", log1pf, cn_math_log1p_f32, NULL, -0.9f, 100.0f},
        {"sin", sinf, cn_math_sin_f32, NULL, -100.0f, 100.0f},
        {"cos", cosf, cn_math_cos_f32, NULL, -100.0f, 100.0f},
        {"tanh", tanhf, cn_math_tanh_f32, NULL, -9.0f, 9.0f},
        {"erf", erff, cn_math_erf_f32, NULL, -4.0f, 4.0f},
        {"pow(x,1.37)", pow137, c_pow137, NULL, 1e-10f, 1e10f},
        {"atan2(x,0.75)", atan2_075, c_atan2_075, NULL, -100.0f, 100.0f},
    };
    void (*regions[])(size_t, cn_view_f32, cn_view_f32) = {fn_rexp, fn_rexp2, fn_rexpm1, fn_rlog, fn_rlog2,
                                                           fn_rlog1p, fn_rsin, fn_rcos, fn_rtanh, fn_rerf,
                                                           fn_rpow, fn_ratan2};
    int nf = (int)(sizeof fns / sizeof *fns);
    int bad = 0;
    printf("%-14s %9s %9s %9s %12s %13s %s\n", "function", "glibc ns", "cairn ns", "region ns", "cairn/glibc",
           "region/cairn", "glibc differs");
    for (int f = 0; f < nf; f++) {
        fns[f].region = regions[f];
        uint64_t s = 0x1234567 + f;
        for (int i = 0; i < N; i++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            float u = (float)(s >> 40) * (1.0f / 16777216.0f);
            x[i] = fns[f].lo + (fns[f].hi - fns[f].lo) * u;
        }
        double t[3][64];
        int R = rounds < 64 ? rounds : 64;
        for (int r = -1; r < R; r++) {
            double a = now_ns();
            for (int i = 0; i < N; i++)
                y[i] = fns[f].libc(x[i]);
            double b = now_ns();
            for (int i = 0; i < N; i++)
                z[i] = fns[f].ours(x[i]);
            double c = now_ns();
            fns[f].region(N, VIEW(x, N), VIEW(y, N));
            double d = now_ns();
            if (r >= 0) {
                t[0][r] = (b - a) / N;
                t[1][r] = (c - b) / N;
                t[2][r] = (d - c) / N;
            }
        }
        long differ = 0, mismatch = 0;
        for (int i = 0; i < N; i++) {
            if (memcmp(&y[i], &z[i], 4))
                mismatch++;
            if (fns[f].libc(x[i]) != z[i])
                differ++;
        }
        bad += mismatch != 0;
        for (int k = 0; k < 3; k++)
            qsort(t[k], (size_t)R, sizeof(double), cmp_d);
        double g = t[0][R / 2], o = t[1][R / 2], p = t[2][R / 2];
        printf("%-14s %9.2f %9.2f %9.2f %12.2f %13.2f %ld of %d%s\n", fns[f].name, g, o, p, o / g, p / o, differ, N,
               mismatch ? "  FAIL: region and loop differ" : "");
    }
    free(x);
    free(y);
    free(z);
    return bad != 0;
}
