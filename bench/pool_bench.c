/*
 * pool_bench.c: the host lane pool (runtime/cairn_pool.h) against OpenMP, in one process.
 *
 * Two loops, each written once per side with the same body:
 *   saxpy   out[i] = a*x[i] + y[i] over 2^24 floats (a region as a program writes it)
 *   empty   a region of W indices whose body does nothing (what a region costs by itself)
 * The pool runs them with cn_pool_for, OpenMP with `#pragma omp parallel for` (static schedule:
 * the same contiguous blocks). Each region is timed alone with CLOCK_MONOTONIC, after warm-up;
 * the figure is the median. The sides alternate in rounds, with a pause between phases so the
 * other side's threads have stopped spinning (libgomp spins for a while after a region, and on a
 * small machine a spinning thread of one side steals the CPU the other side needs).
 *
 *   build/bench/pool_bench [ROUNDS]      (bench/pool_bench.sh builds and runs it)
 *
 * Prints one line per figure and the ratios pool/OpenMP (below 1: the pool is faster).
 */
#include "cairn_pool.h"

#include <omp.h>
#include <time.h>

#define SAXPY_N (1u << 24)
#define SAXPY_WARM 2
#define SAXPY_REPS 5
#define EMPTY_WARM 1000
#define EMPTY_REPS 5000

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* After median(), which sorts. */
static double percentile(const double *sorted, size_t n, double p) { return sorted[(size_t)(p * (double)(n - 1))]; }

/* ----------------------------------------------------------- the loops */

struct saxpy {
    float a;
    const float *x, *y;
    float *out;
};

static void saxpy_body(void *c, size_t lo, size_t hi)
{
    const struct saxpy *s = (const struct saxpy *)c;
    for (size_t i = lo; i < hi; i++)
        s->out[i] = s->a * s->x[i] + s->y[i];
}

static void saxpy_omp(const struct saxpy *s, size_t n)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        s->out[i] = s->a * s->x[i] + s->y[i];
}

static void empty_body(void *c, size_t lo, size_t hi)
{
    (void)c;
    for (size_t i = lo; i < hi; i++)
        __asm__ __volatile__("" ::"r"(i));
}

static void empty_omp(size_t n)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        __asm__ __volatile__("" ::"r"(i));
}

/* ---------------------------------------------------------- the phases */

enum { POOL, OMP };

static void time_saxpy(int side, struct saxpy *s, double *samples)
{
    for (int r = -SAXPY_WARM; r < SAXPY_REPS; r++) {
        double t0 = now_ns();
        if (side == POOL)
            cn_pool_for(SAXPY_N, saxpy_body, s);
        else
            saxpy_omp(s, SAXPY_N);
        double t = now_ns() - t0;
        if (r >= 0)
            samples[r] = t;
    }
}

static void time_empty(int side, size_t n, double *samples)
{
    for (int r = -EMPTY_WARM; r < EMPTY_REPS; r++) {
        double t0 = now_ns();
        if (side == POOL)
            cn_pool_for(n, empty_body, NULL);
        else
            empty_omp(n);
        double t = now_ns() - t0;
        if (r >= 0)
            samples[r] = t;
    }
}

static bool saxpy_correct(const struct saxpy *s)
{
    for (size_t i = 0; i < SAXPY_N; i += 4099)
        if (s->out[i] != s->a * s->x[i] + s->y[i])
            return false;
    return true;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    if (rounds < 1)
        rounds = 1;
    unsigned W = cn_pool_workers();
    int T = omp_get_max_threads();
    struct saxpy s = {2.5f, NULL, NULL, NULL};
    float *x = (float *)malloc(SAXPY_N * sizeof(float));
    float *y = (float *)malloc(SAXPY_N * sizeof(float));
    s.out = (float *)malloc(SAXPY_N * sizeof(float));
    for (size_t i = 0; i < SAXPY_N; i++) {
        x[i] = (float)(i % 1000) * 0.5f;
        y[i] = (float)(i % 77);
        s.out[i] = 0.0f;
    }
    s.x = x;
    s.y = y;

    size_t nsax = (size_t)rounds * SAXPY_REPS, nemp = (size_t)rounds * EMPTY_REPS;
    double *sax[2], *emp[2];
    for (int side = 0; side < 2; side++) {
        sax[side] = (double *)malloc(nsax * sizeof(double));
        emp[side] = (double *)malloc(nemp * sizeof(double));
    }
    bool ok = true;
    for (int r = 0; r < rounds; r++)
        for (int side = 0; side < 2; side++) {
            pause_ms(200);
            memset(s.out, 0, SAXPY_N * sizeof(float));
            time_saxpy(side, &s, sax[side] + (size_t)r * SAXPY_REPS);
            ok &= saxpy_correct(&s);
            time_empty(side, W, emp[side] + (size_t)r * EMPTY_REPS);
        }
    double ms[2], es[2];
    for (int side = 0; side < 2; side++) {
        ms[side] = median(sax[side], nsax);
        es[side] = median(emp[side], nemp);
    }
    printf("pool workers %u, OpenMP threads %d, %d rounds\n", W, T, rounds);
    printf("saxpy 2^24 f32   pool %9.3f ms   OpenMP %9.3f ms   ratio %.3f (median of %zu)\n",
           ms[POOL] / 1e6, ms[OMP] / 1e6, ms[POOL] / ms[OMP], nsax);
    printf("empty region     pool %9.3f us   OpenMP %9.3f us   ratio %.3f (median of %zu)\n",
           es[POOL] / 1e3, es[OMP] / 1e3, es[POOL] / es[OMP], nemp);
    printf("empty region p90 / p99: pool %.3f / %.3f us, OpenMP %.3f / %.3f us\n",
           percentile(emp[POOL], nemp, 0.9) / 1e3, percentile(emp[POOL], nemp, 0.99) / 1e3,
           percentile(emp[OMP], nemp, 0.9) / 1e3, percentile(emp[OMP], nemp, 0.99) / 1e3);
    printf("saxpy fastest: pool %.3f ms, OpenMP %.3f ms\n", sax[POOL][0] / 1e6, sax[OMP][0] / 1e6);
    printf("saxpy results %s\n", ok ? "correct" : "WRONG");
    return ok ? 0 : 1;
}
