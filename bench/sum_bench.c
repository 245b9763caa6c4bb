/*
 * sum_bench.c: the exact sum (runtime/cairn_sum.h) against a plain ordered loop.
 *
 *   bench/sum_bench [log2_terms]      (default 26: 2^26 terms; or: bash bench/sum_bench.sh)
 *
 * For f64 and f32, on narrow data (uniform in [1,2)) and wide data (magnitudes spread over
 * 2^-60..2^60, random signs): ns per term of `s += x[i]` in index order and of cn_sum_f64 /
 * cn_sum_f32 on one core, and of both on two threads (each sums half, then the states merge /
 * the two partial sums add). The data are made before any timing; CLOCK_MONOTONIC is read around
 * the sum only; each figure is the median of 5 runs, plain and exact runs interleaved so drift
 * on a busy machine hits both alike. The two-thread exact sum must give the same bits as the
 * one-thread one (it exits 1 otherwise).
 */
#define _POSIX_C_SOURCE 200809L
#include "cairn_sum.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { RUNS = 5 };

static uint64_t rng_state = 12345;

static uint64_t rng(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v)
{
    qsort(v, RUNS, sizeof *v, cmp_double);
    return v[RUNS / 2];
}

static double wide_term(void)
{
    double m = 1.0 + (double)(rng() >> 11) * 0x1p-53;
    double x = ldexp(m, (int)(rng() % 121) - 60);
    return (rng() & 1) ? -x : x;
}

/* The sums under test: noinline, so each is timed as the call a program makes. */
__attribute__((noinline)) static double plain_f64(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

__attribute__((noinline)) static float plain_f32(const float *x, size_t n)
{
    float s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* SUM_KIND=0|1|2 caps the vector kind a state picks (cairn_sum.h: 0 is the
 * build's own, 1 AVX2, 2 AVX-512 where the CPU has them). */
static uint32_t kind(void)
{
    uint32_t k = cn_sum_cpu_wide();
    const char *e = getenv("SUM_KIND");
    if (e && (uint32_t)atoi(e) < k)
        k = (uint32_t)atoi(e);
    return k;
}

__attribute__((noinline)) static double exact_f64(const double *x, size_t n)
{
    cn_sum64 s;
    cn_sum64_init(&s);
    s.wide = kind();
    cn_sum64_add_array(&s, x, n);
    return cn_sum64_round(&s);
}

__attribute__((noinline)) static float exact_f32(const float *x, size_t n)
{
    cn_sum32 s;
    cn_sum32_init(&s);
    s.wide = kind();
    cn_sum32_add_array(&s, x, n);
    return cn_sum32_round(&s);
}

/* Two threads: the second half on a new thread, the first on this one. */
typedef struct {
    const double *x;
    size_t n;
    int exact;
    cn_sum64 s;
    double plain;
} Half;

static void *half_run(void *arg)
{
    Half *h = arg;
    if (h->exact) {
        cn_sum64_init(&h->s);
        h->s.wide = kind();
        cn_sum64_add_array(&h->s, h->x, h->n);
    } else {
        h->plain = plain_f64(h->x, h->n);
    }
    return NULL;
}

static double two_threads(const double *x, size_t n, int exact)
{
    static Half h[2];
    h[0].x = x;
    h[0].n = n / 2;
    h[1].x = x + n / 2;
    h[1].n = n - n / 2;
    h[0].exact = h[1].exact = exact;
    pthread_t th;
    pthread_create(&th, NULL, half_run, &h[1]);
    half_run(&h[0]);
    pthread_join(th, NULL);
    if (!exact)
        return h[0].plain + h[1].plain;
    cn_sum64_merge(&h[0].s, &h[1].s);
    return cn_sum64_round(&h[0].s);
}

static volatile double sink;

static void bench_f64(const char *name, const double *x, size_t n, int *bad)
{
    double tp[RUNS], te[RUNS], tp2[RUNS], te2[RUNS];
    double one = 0, two = 0;
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ns();
        sink = plain_f64(x, n);
        double t1 = now_ns();
        one = exact_f64(x, n);
        double t2 = now_ns();
        sink = two_threads(x, n, 0);
        double t3 = now_ns();
        two = two_threads(x, n, 1);
        double t4 = now_ns();
        tp[r] = (t1 - t0) / (double)n;
        te[r] = (t2 - t1) / (double)n;
        tp2[r] = (t3 - t2) / (double)n;
        te2[r] = (t4 - t3) / (double)n;
        if (memcmp(&one, &two, sizeof one) != 0)
            *bad = 1;
    }
    double p = median(tp), e = median(te);
    printf("f64 %-6s 1 core : plain %6.3f  exact %6.3f ns/term  ratio %.2f\n", name, p, e, e / p);
    p = median(tp2), e = median(te2);
    printf("f64 %-6s 2 cores: plain %6.3f  exact %6.3f ns/term  ratio %.2f%s\n", name, p, e,
           e / p, *bad ? "  (2-thread bits DIFFER)" : "");
}

static void bench_f32(const char *name, const float *x, size_t n)
{
    double tp[RUNS], te[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ns();
        sink = plain_f32(x, n);
        double t1 = now_ns();
        sink = exact_f32(x, n);
        double t2 = now_ns();
        tp[r] = (t1 - t0) / (double)n;
        te[r] = (t2 - t1) / (double)n;
    }
    double p = median(tp), e = median(te);
    printf("f32 %-6s 1 core : plain %6.3f  exact %6.3f ns/term  ratio %.2f\n", name, p, e, e / p);
}

int main(int argc, char **argv)
{
    int lg = argc > 1 ? atoi(argv[1]) : 26;
    size_t n = (size_t)1 << lg;
    double *x = malloc(n * sizeof *x);
    float *f = malloc(n * sizeof *f);
    if (!x || !f) {
        fprintf(stderr, "sum_bench: out of memory\n");
        return 2;
    }
    int bad = 0;
    printf("2^%d terms, median of %d runs, vector kind %u\n", lg, RUNS, (unsigned)kind());
    for (size_t i = 0; i < n; i++)
        x[i] = 1.0 + (double)(rng() >> 11) * 0x1p-53;
    bench_f64("narrow", x, n, &bad);
    for (size_t i = 0; i < n; i++)
        x[i] = wide_term();
    bench_f64("wide", x, n, &bad);
    free(x);
    for (size_t i = 0; i < n; i++)
        f[i] = 1.0f + (float)(rng() >> 41) * 0x1p-23f;
    bench_f32("narrow", f, n);
    for (size_t i = 0; i < n; i++)
        f[i] = (float)wide_term();
    bench_f32("wide", f, n);
    free(f);
    return bad;
}
