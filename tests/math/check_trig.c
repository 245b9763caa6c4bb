/*
 * check_trig.c: sin and cos (runtime/cairn_math_trig.h) against MPFR.
 *
 *   check_trig                         the suite's checks (seconds)
 *   check_trig --exhaustive NAME [T [LO HI]]  every f32 input of NAME (sinf, cosf) against MPFR, on T
 *                                      threads (only the bit patterns in [LO, HI) when given)
 *   check_trig --f64-long NAME [N]     N (default 20 million) random and adversarial inputs of NAME
 *                                      (sin, cos) against MPFR: the worst error in ulps and its input
 *   check_trig --paths NAME [T]        every f32 input: the function against its accurate path alone
 *                                      (double-double throughout); each disagreement is judged by MPFR
 *                                      (a fast development check of the fast path's error bound)
 *
 * Adversarial f64 inputs: the doubles nearest k * pi/2 for k of every size
 * up to 2^1023 (rounded by MPFR at 1300 bits) and their neighbours, whose
 * reduced argument is tiny; the published worst case of the reduction,
 * 6381956970095103 * 2^797; the edges of the paths (pi/4, 2^20, 2^-27).
 * Prints `N passed, N failed, N skipped` (checks) and exits 1 on a failure.
 */
#include "cairn_math_trig.h"
#include "mathcheck.h"

enum { F64_BOUND_MILLI = 510 };
#define F64_BOUND (F64_BOUND_MILLI / 1000.0)

typedef struct {
    const char *name;
    float (*f32)(float);
    double (*f64)(double);
    cm_mpfr1 ref;
    int shift; /* 0 sin, 1 cos */
} TrigFn;

static float sin32(float x) { return cn_math_sin_f32(x); }
static float cos32(float x) { return cn_math_cos_f32(x); }
static double sin64(double x) { return cn_math_sin_f64(x); }
static double cos64(double x) { return cn_math_cos_f64(x); }

static const TrigFn FNS[2] = {
    {"sin", sin32, sin64, mpfr_sin, 0},
    {"cos", cos32, cos64, mpfr_cos, 1},
};

static const TrigFn *find_fn(const char *name)
{
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(FNS[i].name);
        if (!strncmp(name, FNS[i].name, n) && (!name[n] || !strcmp(name + n, "f")))
            return &FNS[i];
    }
    fprintf(stderr, "check_trig: unknown function %s (sin, sinf, cos, cosf)\n", name);
    exit(2);
}

/* ------------------------------------------------------------ adversarial inputs */

/* The double nearest k * pi/2 for k = kh * 2^ke (kh < 2^53), moved by `nudge` ulps. */
static double near_multiple(uint64_t kh, int ke, int nudge)
{
    mpfr_t v;
    mpfr_init2(v, 1300);
    mpfr_const_pi(v, MPFR_RNDN);
    mpfr_mul_ui(v, v, (unsigned long)(kh >> 11), MPFR_RNDN); /* kh >> 11: fits an unsigned long anywhere */
    mpfr_mul_2si(v, v, ke + 11 - 1, MPFR_RNDN);
    double d = mpfr_get_d(v, MPFR_RNDN);
    mpfr_clear(v);
    if (d != d || d == INFINITY || d == 0.0)
        return 1.0;
    return cm_f64(cm_bits64(d) + (uint64_t)(int64_t)nudge);
}

/* For x = m * 2^e with m in [2^52, 2^53): the m whose x is nearest a
 * multiple of pi/2, as far as the continued fraction of a = 2^e * 2/pi mod 1
 * finds: each convergent's denominator q (q < 2^53) scaled by the least j
 * with j q >= 2^52 (|j q a - round| <= j |q a - round|). Writes at most
 * `max` of them to out; returns how many. These are the doubles whose reduced
 * argument is tiniest, the cases Payne-Hanek must survive. */
static int cf_hard_cases(int e, double *out, int max)
{
    mpfr_t a, t;
    mpfr_inits2(1400, a, t, (mpfr_ptr)0);
    mpfr_const_pi(a, MPFR_RNDN);
    mpfr_ui_div(a, 2, a, MPFR_RNDN);
    mpfr_mul_2si(a, a, e, MPFR_RNDN);
    mpfr_frac(a, a, MPFR_RNDN);
    uint64_t q0 = 0, q1 = 1; /* denominators of the convergents: q_{n-1}, q_n */
    int n = 0;
    for (int step = 0; step < 200 && n < max && !mpfr_zero_p(a); step++) {
        mpfr_ui_div(a, 1, a, MPFR_RNDN);
        mpfr_floor(t, a);
        uint64_t c = mpfr_get_ui(t, MPFR_RNDZ);
        mpfr_sub(a, a, t, MPFR_RNDN);
        if (c > (1ULL << 53) || q1 * c + q0 >= (1ULL << 53))
            break;
        uint64_t q = q1 * c + q0;
        q0 = q1;
        q1 = q;
        uint64_t j = ((1ULL << 52) + q - 1) / q;
        if (j * q < (1ULL << 53) && j < 64)
            out[n++] = ldexp((double)(j * q), e);
    }
    mpfr_clears(a, t, (mpfr_ptr)0);
    return n;
}

/* One adversarial input from seed state s: mostly near multiples of pi/2. */
static double adversarial64(uint64_t *s)
{
    uint64_t u = cm_next(s);
    switch (u % 8) {
    case 0: /* the published worst case of the reduction, and its neighbours */
        return cm_f64(cm_bits64(ldexp(6381956970095103.0, 797)) + (cm_next(s) % 5) - 2);
    case 1: /* the edges of the paths */ {
        static const double edge[] = {0x1.921fb54442d18p-1, 0x1p20, 0x1p-27, 0x1.921fb54442d18p+0,
                                      0x1.921fb54442d18p+1, 0x1.fffffffffffffp+1023};
        double e = edge[cm_next(s) % 6];
        return cm_f64(cm_bits64(e) + (cm_next(s) % 65) - 32);
    }
    case 2: /* small multiples */
        if (cm_next(s) % 2) {
            double hard[8];
            int n = cf_hard_cases((int)(cm_next(s) % 1054) - 82, hard, 8);
            if (n > 0)
                return hard[cm_next(s) % (uint64_t)n] * ((cm_next(s) & 1) ? 1.0 : -1.0);
        }
        return near_multiple(((cm_next(s) % 100000) + 1) << 11, -11, (int)(cm_next(s) % 5) - 2);
    default: { /* multiples of every size */
        int ke = (int)(cm_next(s) % 1024) - 53;
        return near_multiple(cm_next(s) >> 11 | 1ULL << 52, ke, (int)(cm_next(s) % 3) - 1);
    }
    }
}

/* ------------------------------------------------------------ the suite */

typedef struct {
    long passed, failed;
} Count;

static void expect(Count *c, bool ok, const char *what)
{
    if (ok) {
        c->passed++;
        return;
    }
    c->failed++;
    printf("FAIL %s\n", what);
}

static void check_specials(Count *c)
{
    expect(c, cm_bits32(cn_math_sin_f32(-0.0f)) == 0x80000000u, "sinf(-0) = -0");
    expect(c, cm_bits32(cn_math_sin_f32(0.0f)) == 0u, "sinf(+0) = +0");
    expect(c, cn_math_cos_f32(-0.0f) == 1.0f && cn_math_cos_f32(0.0f) == 1.0f, "cosf(+-0) = 1");
    expect(c, cm_bits64(cn_math_sin_f64(-0.0)) == 0x8000000000000000ULL, "sin(-0) = -0");
    expect(c, cm_bits64(cn_math_sin_f64(0.0)) == 0u, "sin(+0) = +0");
    expect(c, cn_math_cos_f64(-0.0) == 1.0 && cn_math_cos_f64(0.0) == 1.0, "cos(+-0) = 1");
    float fs[3] = {INFINITY, -INFINITY, NAN};
    for (int i = 0; i < 3; i++) {
        expect(c, isnan(cn_math_sin_f32(fs[i])) && isnan(cn_math_cos_f32(fs[i])), "sinf/cosf(inf, nan) = nan");
        expect(c, isnan(cn_math_sin_f64(fs[i])) && isnan(cn_math_cos_f64(fs[i])), "sin/cos(inf, nan) = nan");
    }
    expect(c, cn_math_sin_f64(0x1p-1074) == 0x1p-1074 && cn_math_sin_f64(-0x1p-1074) == -0x1p-1074,
           "sin(subnormal) = itself");
    expect(c, cn_math_sin_f32(0x1p-149f) == 0x1p-149f, "sinf(subnormal) = itself");
}

/* sin(-x) = -sin(x), cos(-x) = cos(x), bit for bit, on a sample of every size. */
static void check_symmetry(Count *c)
{
    uint64_t s = 7;
    long bad = 0;
    for (int i = 0; i < 100000; i++) {
        double x = cm_any64(&s);
        float xf = cm_f32((uint32_t)cm_next(&s));
        bad += !cm_same64(cn_math_sin_f64(-x), -cn_math_sin_f64(x));
        bad += !cm_same64(cn_math_cos_f64(-x), cn_math_cos_f64(x));
        bad += !cm_same32(cn_math_sin_f32(-xf), -cn_math_sin_f32(xf));
        bad += !cm_same32(cn_math_cos_f32(-xf), cn_math_cos_f32(xf));
    }
    expect(c, bad == 0, "odd sin, even cos on 100000 inputs of each type");
}

/* f32 near multiples of pi/2 (the float on either side of k * pi/2). */
static float near_multiple32(uint64_t *s)
{
    int ke = (int)(cm_next(s) % 128) - 24;
    float f = (float)near_multiple(cm_next(s) >> 11 | 1ULL << 52, ke, 0);
    if (isinf(f))
        return 1.0f;
    return cm_f32(cm_bits32(f) + (uint32_t)(cm_next(s) % 3) - 1);
}

static void check_f32_sample(Count *c, const TrigFn *fn, long n)
{
    CmTally t = CM_TALLY_INIT;
    uint64_t s = 1234 + (uint64_t)fn->shift;
    for (long i = 0; i < n; i++) {
        cm_check32(&t, fn->name, fn->f32, fn->ref, cm_f32((uint32_t)cm_next(&s)));
        cm_check32(&t, fn->name, fn->f32, fn->ref, (float)cm_in64(&s, -10.0, 10.0));
        if (i % 8 == 0)
            cm_check32(&t, fn->name, fn->f32, fn->ref, near_multiple32(&s));
    }
    /* the edges: 2^-12, pi/4, 2^20, the largest float */
    static const float edge[] = {0x1p-12f, 0x1.921fb6p-1f, 0x1p20f, 0x1.fffffep127f, 0x1.921fb6p+0f};
    for (int e = 0; e < 5; e++)
        for (int d = -64; d <= 64; d++)
            cm_check32(&t, fn->name, fn->f32, fn->ref, cm_f32(cm_bits32(edge[e]) + (uint32_t)d));
    printf("%sf: %ld f32 inputs, %ld wrong\n", fn->name, n * 2 + n / 8 + 5 * 129, t.failed);
    expect(c, t.failed == 0, fn->name);
}

static void check_f64_sample(Count *c, const TrigFn *fn, long n, uint64_t seed)
{
    CmTally t = CM_TALLY_INIT;
    uint64_t s = seed + (uint64_t)fn->shift;
    for (long i = 0; i < n; i++) {
        double x;
        switch (i % 4) {
        case 0: x = cm_any64(&s); break;
        case 1: x = cm_in64(&s, -10.0, 10.0); break;
        case 2: x = cm_in64(&s, -1e6, 1e6); break;
        default: x = adversarial64(&s); break;
        }
        cm_check64(&t, fn->name, fn->f64, fn->ref, x, F64_BOUND);
    }
    printf("%s: %ld f64 inputs, %ld over %.2f ulp; worst %.4f ulp at %a (0x%016llx)\n", fn->name, t.checks, t.failed,
           F64_BOUND, t.worst_ulp, cm_f64(t.worst_in), (unsigned long long)t.worst_in);
    expect(c, t.failed == 0, fn->name);
}

static int run_suite(void)
{
    Count c = {0, 0};
    check_specials(&c);
    check_symmetry(&c);
    for (int i = 0; i < 2; i++) {
        check_f32_sample(&c, &FNS[i], 100000);
        check_f64_sample(&c, &FNS[i], 40000, 99);
    }
    printf("%ld passed, %ld failed, 0 skipped\n", c.passed, c.failed);
    return c.failed ? 1 : 0;
}

/* ------------------------------------------------------------ long modes */

static int run_f64_long(const TrigFn *fn, long n)
{
    Count c = {0, 0};
    check_f64_sample(&c, fn, n, 2026);
    printf("%ld passed, %ld failed, 0 skipped\n", c.passed, c.failed);
    return c.failed ? 1 : 0;
}

typedef struct {
    const TrigFn *fn;
    int k, n;
    long differ, wrong;
} PathJob;

static float accurate_only(float x, int shift)
{
    return cn_mt_dd_to_f32(cn_mt_eval_dd(cn_mt_reduce((double)x), shift));
}

static void *path_worker(void *p)
{
    PathJob *j = p;
    CmTally t = CM_TALLY_INIT;
    for (uint64_t u = (uint64_t)j->k; u < (1ULL << 32); u += (uint64_t)j->n) {
        float x = cm_f32((uint32_t)u);
        uint32_t a = (uint32_t)u & 0x7fffffffu;
        if (a >= 0x7f800000u || a < 0x39800000u)
            continue;
        if (cm_same32(j->fn->f32(x), accurate_only(x, j->fn->shift)))
            continue;
        j->differ++;
        if (!cm_check32(&t, j->fn->name, j->fn->f32, j->fn->ref, x))
            j->wrong++;
    }
    return NULL;
}

static int run_paths(const TrigFn *fn, int threads)
{
    pthread_t tid[64];
    PathJob job[64];
    threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    for (int k = 0; k < threads; k++) {
        job[k] = (PathJob){fn, k, threads, 0, 0};
        pthread_create(&tid[k], NULL, path_worker, &job[k]);
    }
    long differ = 0, wrong = 0;
    for (int k = 0; k < threads; k++) {
        pthread_join(tid[k], NULL);
        differ += job[k].differ;
        wrong += job[k].wrong;
    }
    printf("%sf: %ld inputs where the function and its accurate path differ, %ld of them wrong by MPFR\n",
           fn->name, differ, wrong);
    printf("%ld passed, %ld failed, 0 skipped\n", differ - wrong, wrong);
    return wrong ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 1)
        return run_suite();
    if (argc >= 3 && !strcmp(argv[1], "--exhaustive"))
    {
        const TrigFn *fn = find_fn(argv[2]);
        return cm_exhaustive32(fn->name, fn->f32, fn->ref, argc, argv);
    }
    if (argc >= 3 && !strcmp(argv[1], "--f64-long"))
        return run_f64_long(find_fn(argv[2]), argc > 3 ? atol(argv[3]) : 20000000L);
    if (argc >= 3 && !strcmp(argv[1], "--paths"))
        return run_paths(find_fn(argv[2]), argc > 3 ? atoi(argv[3]) : 1);
    fprintf(stderr, "usage: check_trig [--exhaustive NAME [THREADS [LO HI]] | --f64-long NAME [COUNT] | --paths NAME [T]]\n");
    return 2;
}
