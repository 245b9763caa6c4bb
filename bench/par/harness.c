/*
 * harness.c: CAIRN-compiled parallel kernels (bench/par/kernels.cairn) against a plain serial
 * loop and OpenMP, in one process.
 *
 *   bash bench/par/run.sh          builds kernels.cairn with `bin/cairn build`, compiles this file
 *                                  around the emitted C (with the flags `cairn build` uses, plus
 *                                  -fopenmp), and runs it with CAIRN_THREADS=1 and 2.
 *   build/bench-par/harness [ROUNDS] [LOG2_SUM] [LOG2_SAXPY]     (defaults 5, 26, 24)
 *
 * The emitted C is included whole (its `main` renamed), so the functions timed are exactly what
 * `cairn build` produces: fn_saxpy, fn_empty, fn_exact64/32 (`reduce + parallel`, the exact sum)
 * and fn_ordered64/32 (`reduce + for`, the ordered loop), each with the views the program gets.
 *
 * What is timed, per CAIRN_THREADS (OpenMP is given the same number of threads):
 *   saxpy  out[i] = a*x[i] + y[i], 2^24 f32: CAIRN `parallel`, `#pragma omp parallel for`, and a
 *          plain serial C loop.
 *   empty  a region of W indices doing nothing: CAIRN `parallel i in n { }` and an empty
 *          `#pragma omp parallel for` (time per region).
 *   sums   2^26 terms, f64 and f32, narrow ([1,2)) and wide (2^-60..2^60, random signs):
 *          CAIRN `reduce + parallel` (exact), CAIRN `reduce + for`, a plain ordered C loop
 *          (`s += x[i]`, one core), OpenMP `reduction(+:s)`, and, as a diagnostic, the runtime's
 *          own array path (cn_sumT_add_array per pool block, what the emitted code could call).
 *          Also a read-bandwidth probe (xor of the bits, W threads): the memory floor. The sums
 *          run again over the first 2^16 terms (512 KB of f64: resident in L2 once warm, 101
 *          calls a block) to show the compute cost apart from memory bandwidth.
 *
 * Discipline: all data are generated (and paged in) before any timing; CLOCK_MONOTONIC around
 * each call only; each variant runs in blocks (one warm-up call, then REPS timed calls), the
 * blocks of all variants interleaved in ROUNDS rounds, with a 50 ms pause before each block so
 * the other side's threads have stopped spinning (libgomp and the lane pool both spin after a
 * region; on a 2-CPU machine a spinning thread steals the CPU the other side needs). Figures are
 * medians over all timed calls. Results are checked: saxpy against the serial loop, the exact
 * sums against cn_sum_f64/f32 of the whole array on one thread (bit for bit).
 *
 * Output: "R key value" lines (machine-readable, parsed by run.sh) and a readable table.
 */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <time.h>

#define main cairn_kernels_main
#include "kernels.c"
#undef main

/* ------------------------------------------------------------ timing */

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

/* ------------------------------------------------------------ data */

static uint64_t rng_state = 12345;

static uint64_t rng(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double narrow_term(void) { return 1.0 + (double)(rng() >> 11) * 0x1p-53; }

static double wide_term(void)
{
    double m = 1.0 + (double)(rng() >> 11) * 0x1p-53;
    double x = ldexp(m, (int)(rng() % 121) - 60);
    return (rng() & 1) ? -x : x;
}

/* ------------------------------------------------------- baselines */

static volatile double sink;

__attribute__((noinline)) static void saxpy_serial(size_t n, float *out, const float *x, const float *y, float a)
{
    for (size_t i = 0; i < n; i++)
        out[i] = a * x[i] + y[i];
}

__attribute__((noinline)) static void saxpy_omp(size_t n, float *out, const float *x, const float *y, float a)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        out[i] = a * x[i] + y[i];
}

__attribute__((noinline)) static void empty_omp(size_t n)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
    }
}

__attribute__((noinline)) static double plain64(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

__attribute__((noinline)) static float plain32(const float *x, size_t n)
{
    float s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

__attribute__((noinline)) static double omp64(const double *x, size_t n)
{
    double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

__attribute__((noinline)) static float omp32(const float *x, size_t n)
{
    float s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* The runtime's array path on the pool: what `reduce + parallel` costs when each block hands
 * its contiguous terms to cn_sumT_add_array instead of cn_sumT_add one by one. */
struct rt_sum {
    const void *x;
    cn_sum64 *p64;
    cn_sum32 *p32;
};

static void rt_block64(void *c, unsigned w, size_t lo, size_t hi)
{
    struct rt_sum *r = (struct rt_sum *)c;
    cn_sum64_init(&r->p64[w]);
    cn_sum64_add_array(&r->p64[w], (const double *)r->x + lo, hi - lo);
}

static void rt_block32(void *c, unsigned w, size_t lo, size_t hi)
{
    struct rt_sum *r = (struct rt_sum *)c;
    cn_sum32_init(&r->p32[w]);
    cn_sum32_add_array(&r->p32[w], (const float *)r->x + lo, hi - lo);
}

__attribute__((noinline)) static double rt64(const double *x, size_t n)
{
    unsigned W = cn_pool_workers();
    struct rt_sum r = {x, (cn_sum64 *)calloc(W, sizeof(cn_sum64)), NULL};
    cn_pool_reduce(n, rt_block64, &r);
    cn_sum64 t;
    cn_sum64_init(&t);
    for (unsigned w = 0; w < W; w++)
        cn_sum64_merge(&t, &r.p64[w]);
    free(r.p64);
    return cn_sum64_round(&t);
}

__attribute__((noinline)) static float rt32(const float *x, size_t n)
{
    unsigned W = cn_pool_workers();
    struct rt_sum r = {x, NULL, (cn_sum32 *)calloc(W, sizeof(cn_sum32))};
    cn_pool_reduce(n, rt_block32, &r);
    cn_sum32 t;
    cn_sum32_init(&t);
    for (unsigned w = 0; w < W; w++)
        cn_sum32_merge(&t, &r.p32[w]);
    free(r.p32);
    return cn_sum32_round(&t);
}

/* Memory floor: read every byte once (xor of the 64-bit words, 8 independent chains), on the
 * OpenMP threads. Not a sum; only its time matters. */
__attribute__((noinline)) static uint64_t readbw(const void *p, size_t bytes)
{
    const uint64_t *u = (const uint64_t *)p;
    size_t n = bytes / 8;
    uint64_t r = 0;
#pragma omp parallel for schedule(static) reduction(^ : r)
    for (size_t i = 0; i < n / 8; i++) {
        const uint64_t *q = u + 8 * i;
        r ^= q[0] ^ q[1] ^ q[2] ^ q[3] ^ q[4] ^ q[5] ^ q[6] ^ q[7];
    }
    return r;
}

/* ------------------------------------------------------- the driver */

enum { PAUSE_MS = 50, SUM_REPS = 3, SUM_REPS_SMALL = 101, SAXPY_REPS = 5, EMPTY_BATCH = 200, EMPTY_BATCHES = 25 };

static unsigned W;
static int rounds = 5;
static int bad = 0;

static void result(const char *key, double v) { printf("R %s %.6g\n", key, v); }

/* ---- saxpy */

enum { SX_CAIRN, SX_OMP, SX_SERIAL, SX_N };
static const char *const sx_name[SX_N] = {"cairn", "omp", "serial"};

static void run_saxpy(size_t n)
{
    float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
    float *out = (float *)malloc(n * sizeof(float)), *ref = (float *)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)narrow_term();
        y[i] = (float)wide_term();
        out[i] = 0.0f;
    }
    const float a = 2.5f;
    saxpy_serial(n, ref, x, y, a);
    cn_view_f32 vo = {out, n}, vx = {x, n}, vy = {y, n};
    size_t total = (size_t)rounds * SAXPY_REPS;
    double *t[SX_N];
    for (int v = 0; v < SX_N; v++)
        t[v] = (double *)malloc(total * sizeof(double));
    for (int r = 0; r < rounds; r++)
        for (int v = 0; v < SX_N; v++) {
            pause_ms(PAUSE_MS);
            memset(out, 0xff, n * sizeof(float)); /* poison: NaNs */
            for (int k = -1; k < SAXPY_REPS; k++) {
                double t0 = now_ns();
                if (v == SX_CAIRN)
                    fn_saxpy(n, vo, vx, vy, a);
                else if (v == SX_OMP)
                    saxpy_omp(n, out, x, y, a);
                else
                    saxpy_serial(n, out, x, y, a);
                double dt = now_ns() - t0;
                if (k >= 0)
                    t[v][(size_t)r * SAXPY_REPS + (size_t)k] = dt;
            }
            if (memcmp(out, ref, n * sizeof(float))) {
                printf("saxpy %s: WRONG result\n", sx_name[v]);
                bad = 1;
            }
        }
    char key[64];
    for (int v = 0; v < SX_N; v++) {
        snprintf(key, sizeof key, "saxpy.%s.ms", sx_name[v]);
        result(key, median(t[v], total) / 1e6);
        free(t[v]);
    }
    free(x);
    free(y);
    free(out);
    free(ref);
}

/* ---- empty region */

static void run_empty(void)
{
    size_t total = (size_t)rounds * EMPTY_BATCHES;
    double *t[2];
    for (int v = 0; v < 2; v++)
        t[v] = (double *)malloc(total * sizeof(double));
    for (int r = 0; r < rounds; r++)
        for (int v = 0; v < 2; v++) {
            pause_ms(PAUSE_MS);
            for (int b = -5; b < EMPTY_BATCHES; b++) {
                double t0 = now_ns();
                for (int k = 0; k < EMPTY_BATCH; k++) {
                    if (v == 0)
                        fn_empty(W);
                    else
                        empty_omp(W);
                }
                double dt = (now_ns() - t0) / EMPTY_BATCH;
                if (b >= 0)
                    t[v][(size_t)r * EMPTY_BATCHES + (size_t)b] = dt;
            }
        }
    result("empty.cairn.us", median(t[0], total) / 1e3);
    result("empty.omp.us", median(t[1], total) / 1e3);
    free(t[0]);
    free(t[1]);
}

/* ---- sums */

enum { SM_EXACT, SM_ORDERED, SM_PLAIN, SM_OMP, SM_RT, SM_BW, SM_N };
static const char *const sm_name[SM_N] = {"exact", "cairnfor", "plain", "omp", "rtarray", "readbw"};

static void run_sums(int f32, const char *kind, const void *data, size_t n)
{
    const double *x64 = (const double *)data;
    const float *x32 = (const float *)data;
    cn_view_f64 v64 = {(double *)x64, n};
    cn_view_f32 v32 = {(float *)x32, n};
    double want = f32 ? (double)cn_sum_f32(x32, n) : cn_sum_f64(x64, n);
    int reps = n >= ((size_t)1 << 22) ? SUM_REPS : SUM_REPS_SMALL;
    size_t total = (size_t)rounds * (size_t)reps;
    double *t[SM_N];
    for (int v = 0; v < SM_N; v++)
        t[v] = (double *)malloc(total * sizeof(double));
    for (int r = 0; r < rounds; r++)
        for (int v = 0; v < SM_N; v++) {
            pause_ms(PAUSE_MS);
            for (int k = -1; k < reps; k++) {
                double got = 0;
                double t0 = now_ns();
                switch (v) {
                case SM_EXACT: got = f32 ? (double)fn_exact32(n, v32) : fn_exact64(n, v64); break;
                case SM_ORDERED: got = f32 ? (double)fn_ordered32(n, v32) : fn_ordered64(n, v64); break;
                case SM_PLAIN: got = f32 ? (double)plain32(x32, n) : plain64(x64, n); break;
                case SM_OMP: got = f32 ? (double)omp32(x32, n) : omp64(x64, n); break;
                case SM_RT: got = f32 ? (double)rt32(x32, n) : rt64(x64, n); break;
                default: got = (double)readbw(data, n * (f32 ? 4 : 8)); break;
                }
                double dt = now_ns() - t0;
                sink = got;
                if (k >= 0)
                    t[v][(size_t)r * (size_t)reps + (size_t)k] = dt;
                if ((v == SM_EXACT || v == SM_RT) && memcmp(&got, &want, sizeof got)) {
                    printf("%s %s: %a, not the exact sum %a\n", kind, sm_name[v], got, want);
                    bad = 1;
                }
            }
        }
    printf("R %s.exact.bits %a\n", kind, want);
    char key[64];
    for (int v = 0; v < SM_N; v++) {
        snprintf(key, sizeof key, "%s.%s.ns", kind, sm_name[v]);
        result(key, median(t[v], total) / (double)n);
        free(t[v]);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rounds = atoi(argv[1]) > 0 ? atoi(argv[1]) : 1;
    int lsum = argc > 2 ? atoi(argv[2]) : 26, lsax = argc > 3 ? atoi(argv[3]) : 24;
    W = cn_pool_workers();
    omp_set_num_threads((int)W);
    printf("R workers %u\nR omp_threads %d\nR rounds %d\nR sum_wide_kind %u\n", W, omp_get_max_threads(),
           rounds, cn_sum_cpu_wide());

    run_saxpy((size_t)1 << lsax);
    run_empty();

    size_t n = (size_t)1 << lsum, nl2 = (size_t)1 << 16;
    double *d = (double *)malloc(n * sizeof(double));
    float *f = (float *)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        d[i] = narrow_term();
    for (size_t i = 0; i < n; i++)
        f[i] = (float)narrow_term();
    run_sums(0, "f64narrow", d, n);
    run_sums(1, "f32narrow", f, n);
    run_sums(0, "f64narrow-l2", d, nl2);
    run_sums(1, "f32narrow-l2", f, nl2);
    for (size_t i = 0; i < n; i++)
        d[i] = wide_term();
    for (size_t i = 0; i < n; i++)
        f[i] = (float)wide_term();
    run_sums(0, "f64wide", d, n);
    run_sums(1, "f32wide", f, n);
    run_sums(0, "f64wide-l2", d, nl2);
    run_sums(1, "f32wide-l2", f, nl2);
    free(d);
    free(f);
    printf("R checks %s\n", bad ? "FAILED" : "ok");
    return bad;
}
