/*
 * check_log.c: runtime/cairn_math_log.h against MPFR (tests/math/mathcheck.h).
 *
 *   check_log                      the suite's test: special values, exact cases,
 *                                  boundaries and a seeded random sample of every
 *                                  function (seconds); prints "N passed, N failed,
 *                                  N skipped", exits 1 on a failure
 *   check_log --exhaustive NAME [THREADS [LO HI]]
 *                                  every 2^32 input of NAME's f32 version (or
 *                                  the bit patterns LO to HI - 1)
 *   check_log --f64-long NAME [COUNT]
 *                                  COUNT (20 million) random and adversarial f64
 *                                  inputs of NAME; prints the worst error in ulps
 *   check_log --paths NAME         every 2^32 f32 input through the header's own
 *                                  paths, no MPFR (a minute): how many leave the
 *                                  fast path, whether the fast path's decision ever
 *                                  differs from the accurate path's, and how many
 *                                  the accurate path leaves undecided
 * NAME is log, log2, log1p or pow. pow has two arguments, so 2^64 f32 pairs:
 * its --exhaustive runs a large structured and random sample instead (every
 * thread's share of 2^26 pairs per structured exponent and 2^30 random pairs
 * by default; a third argument scales it), and says so.
 */
#include "cairn_math_log.h"
#include "mathcheck.h"

static const double F64_BOUND = 0.501; /* the header's claim for every f64 function */

typedef struct {
    const char *name;
    float (*f32)(float);
    double (*f64)(double);
    cm_mpfr1 ref;
} Func;

static float log_f32(float x) { return cn_math_log_f32(x); }
static float log2_f32(float x) { return cn_math_log2_f32(x); }
static float log1p_f32(float x) { return cn_math_log1p_f32(x); }
static double log_f64(double x) { return cn_math_log_f64(x); }
static double log2_f64(double x) { return cn_math_log2_f64(x); }
static double log1p_f64(double x) { return cn_math_log1p_f64(x); }

static const Func FUNCS[] = {
    {"log", log_f32, log_f64, mpfr_log},
    {"log2", log2_f32, log2_f64, mpfr_log2},
    {"log1p", log1p_f32, log1p_f64, mpfr_log1p},
};
enum { NFUNCS = sizeof FUNCS / sizeof FUNCS[0] };

static const Func *find(const char *name)
{
    for (int i = 0; i < NFUNCS; i++)
        if (strcmp(FUNCS[i].name, name) == 0)
            return &FUNCS[i];
    fprintf(stderr, "check_log: no function %s (log, log2, log1p)\n", name);
    exit(2);
}

/* One f32 check, counted (cm_check32 leaves the count to its caller). */
static void one32(CmTally *t, const Func *f, float x)
{
    t->checks++;
    cm_check32(t, f->name, f->f32, f->ref, x);
}

/* ------------------------------------------------------------ inputs */

/* Special and boundary f32 inputs every function must get right. */
static const uint32_t SPECIAL32[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x3f800000,
    0xbf800000, 0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f7fffff,
    0x3f800001, 0x40000000, 0x3f000000, 0xbf7fffff, 0xbf000000, 0x3c000000, 0xbc000000, 0x3bffffff,
    0xbbffffff, 0x3c000001, 0xbc000001, 0x33800000, 0xb3800000, 0x4b800000, 0x5f800000, 0x3fc00000,
    0x3fbfffff, 0x3f400000, 0x3f3fffff, 0x3fffffff, 0xc0000000,
};

static double next_f64_input(uint64_t *s, int kind)
{
    uint64_t u = cm_next(s);
    double v = cm_f64(u & 0x7fffffffffffffffULL); /* any positive double, every binade */
    switch (kind) {
    case 0: /* near 1, within 2^-e for a random e */
        return 1.0 + (cm_in64(s, -1.0, 1.0)) * cm_f64((uint64_t)(1023 - (int)(u % 60) - 1) << 52);
    case 1: /* subnormal */
        return cm_f64(u & 0x000fffffffffffffULL);
    case 2: /* near the top of the range */
        return cm_f64(0x7fefffffffffffffULL - (u & 0xffffffffULL));
    case 3: /* near a power of two, either side */
        return cm_f64((((u >> 20) % 2046 + 1) << 52) + ((u & 1) ? (u >> 40) % 4096 : -(uint64_t)((u >> 40) % 4096)));
    case 4: /* near the table rows' edges (m = 1 + i/128) */
        return cm_f64((((u >> 20) % 2046 + 1) << 52) | (((u >> 10) & 127) << 45)) * (1.0 + cm_in64(s, -0x1p-40, 0x1p-40));
    case 5: /* log1p: near 0 and near -1 */
        return (u & 1) ? cm_in64(s, -1.0, 1.0) * cm_f64((uint64_t)(1023 - (int)(u % 80) - 1) << 52)
                       : -1.0 + cm_in64(s, 0.0, 1.0) * cm_f64((uint64_t)(1023 - (int)(u % 60) - 1) << 52);
    case 6: /* log1p: around the switch at |x| = 2^-7 */
        return ((u & 1) ? 1.0 : -1.0) * 0x1p-7 * (1.0 + cm_in64(s, -0x1p-20, 0x1p-20));
    default:
        return v;
    }
}

/* ------------------------------------------------------------ pow's inputs */

static float pow32(float x, float y) { return cn_math_pow_f32(x, y); }
static double pow64(double x, double y) { return cn_math_pow_f64(x, y); }

static const float SPECIAL_POW32[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f, -3.0f, 2.5f, -2.5f, 0.75f, 1.5f, 7.0f, -7.0f,
    0.25f, 1e10f, -1e10f, 1e-10f, -1e-10f, 0x1p-126f, 0x1p-149f, -0x1p-149f, 0x1.fffffep127f, -0x1.fffffep127f,
    0x1.000002p0f, 0x1.fffffep-1f, -0x1.000002p0f, 0x1p24f, 0x1.000002p24f, -0x1p24f, 127.0f, 128.0f, -149.0f,
    -150.0f, 0x1p-1f, 0x1p31f, -0x1p31f, 0x1.8p1f,
};

/* A y for x that keeps |y log2 x| below about 160 (the interesting part). */
static float pow_y_for(uint64_t *s, float x)
{
    double l = fabs(log2((double)x));
    if (l < 0x1p-30)
        l = 0x1p-30;
    return (float)(cm_in64(s, -1.0, 1.0) * 160.0 / l);
}

/* Pairs whose result is exactly a float or a midpoint: integer powers,
 * w^2^k to n/2^k, powers of two; each also with x scaled by 4^j. */
static void pow_exact_cases(CmTally *t)
{
    for (int w = 2; w < 400; w++)
        for (int j = -3; j <= 3; j++) {
            float x2 = (float)(w * w) * ldexpf(1.0f, 2 * j);
            t->checks += 3;
            cm_check32_2(t, "pow", pow32, mpfr_pow, x2, 1.5f);
            cm_check32_2(t, "pow", pow32, mpfr_pow, x2, 2.5f);
            cm_check32_2(t, "pow", pow32, mpfr_pow, x2, 0.5f);
            for (int n = 1; n <= 26; n++) {
                t->checks += 2;
                cm_check32_2(t, "pow", pow32, mpfr_pow, (float)w * ldexpf(1.0f, j), (float)n);
                cm_check32_2(t, "pow", pow32, mpfr_pow, -(float)w * ldexpf(1.0f, j), (float)n);
            }
        }
    static const float xs[] = {14641.0f, 14641.0f * 16.0f, 0x1.002p0f, 0x1.001p0f, 0x1.000002p0f, 6561.0f, 83521.0f};
    static const float ys[] = {1.75f, 1.25f, 2.0f, 3.0f, 0.25f, 0.75f, 1.5f, 2.25f};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        for (size_t k = 0; k < sizeof ys / sizeof ys[0]; k++) {
            t->checks++;
            cm_check32_2(t, "pow", pow32, mpfr_pow, xs[i], ys[k]);
        }
    for (int e = -160; e <= 160; e++) /* powers of two, with results near 2^-150 and 2^128 */
        for (int k = -4; k <= 4; k++) {
            t->checks += 2;
            cm_check32_2(t, "pow", pow32, mpfr_pow, 0.5f, (float)e + k * 0.25f);
            cm_check32_2(t, "pow", pow32, mpfr_pow, 0x1p-75f, (float)e * 0.0625f);
        }
}

static void pow_random32(CmTally *t, uint64_t *s, long count)
{
    for (long i = 0; i < count; i++) {
        uint64_t u = cm_next(s);
        float x = cm_f32((uint32_t)(u % 0x7f800000u) + 1), y;
        if (i % 4 == 1)
            x = (float)(1.0 + cm_in64(s, -1.0, 1.0) * ldexp(1.0, -(int)(u >> 40) % 24));
        y = pow_y_for(s, x);
        if (i % 4 == 2)
            y = (float)(int)y, x = -x; /* negative x, integer y */
        t->checks++;
        cm_check32_2(t, "pow", pow32, mpfr_pow, x, y);
    }
}

/* Random and adversarial f64 pairs: every kind of x, y keeping |y log2 x|
 * below 1100; x near 1 with a large y; results near overflow and in the
 * subnormals; negative x with integer y. */
static void pow_next64(uint64_t *s, int kind, double *x, double *y)
{
    uint64_t u = cm_next(s);
    *x = cm_f64((u >> 1) % 0x7ff0000000000000ULL + 1);
    if (kind == 1)
        *x = 1.0 + cm_in64(s, -1.0, 1.0) * ldexp(1.0, -(int)((u >> 40) % 52));
    double l = fabs(log2(*x));
    if (l < 0x1p-60)
        l = 0x1p-60;
    *y = cm_in64(s, -1.0, 1.0) * 1100.0 / l;
    if (kind == 2) /* near the top: x^y just under or over 2^1024 */
        *y = (1024.0 + cm_in64(s, -0.01, 0.01)) / log2(*x);
    if (kind == 3) /* the subnormal results and the underflow to 0 */
        *y = (-1074.0 + cm_in64(s, -60.0, 60.0)) / log2(*x);
    if (kind == 4) {
        *x = -*x;
        *y = (double)(long long)(*y / 4);
    }
}

/* ------------------------------------------------------------ the suite's test */

static void suite_f32(CmTally *t, const Func *f)
{
    for (size_t i = 0; i < sizeof SPECIAL32 / sizeof SPECIAL32[0]; i++)
        one32(t, f, cm_f32(SPECIAL32[i]));
    for (int e = -149; e < 128; e++) /* powers of two and their neighbours */
        for (int d = -2; d <= 2; d++) {
            float p = e < -126 ? cm_f32(1u << (e + 149)) : cm_f32((uint32_t)(e + 127) << 23);
            one32(t, f, cm_f32(cm_bits32(p) + d));
        }
    for (uint32_t u = 0x3f7f0000; u < 0x3f810000; u++) /* every input within 2^-8 of 1 */
        one32(t, f, cm_f32(u));
    /* log1p inputs its first try once rounded wrongly (it rounded the
     * double-double to a double before deciding) */
    static const float once_wrong[] = {0x1.fb035ap-2f, 0x1.0f1fd6p+3f, 0x1.b121a6p+76f, 0x1.6351d8p+95f};
    for (size_t i = 0; i < sizeof once_wrong / sizeof once_wrong[0]; i++)
        one32(t, f, once_wrong[i]);
    for (uint32_t u = 0x3bf00000; u < 0x3c100000; u += 3) /* log1p's switch at 2^-7 */
        one32(t, f, cm_f32(u)), one32(t, f, cm_f32(u | 0x80000000u));
    uint64_t s = 0x6c6f67f32ULL + (uint64_t)f->name[3];
    for (int i = 0; i < 300000; i++) /* any bits */
        one32(t, f, cm_f32((uint32_t)cm_next(&s)));
}

static void suite_f64(CmTally *t, const Func *f)
{
    static const double special[] = {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp1023,
                                     0x1p-7, -0x1p-7, 0x1.0000000000001p0, 0x1.fffffffffffffp-1, -0x1.fffffffffffffp-1,
                                     0x1p-60, -0x1p-60, 0x1p1023, 3.0};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        cm_check64(t, f->name, f->f64, f->ref, special[i], F64_BOUND);
    double nonfinite[] = {cm_f64(0x7ff0000000000000ULL), -cm_f64(0x7ff0000000000000ULL),
                          cm_f64(0x7ff8000000000000ULL), -2.0};
    for (int i = 0; i < 4; i++)
        cm_check64(t, f->name, f->f64, f->ref, nonfinite[i], F64_BOUND);
    for (int e = -1074; e < 1024; e += 1) /* powers of two: log2 exact */
        cm_check64(t, f->name, f->f64, f->ref, e < -1022 ? cm_f64(1ULL << (e + 1074)) : cm_f64((uint64_t)(e + 1023) << 52),
                   F64_BOUND);
    uint64_t s = 0x6c6f67f64ULL + (uint64_t)f->name[3];
    for (int i = 0; i < 80000; i++)
        cm_check64(t, f->name, f->f64, f->ref, next_f64_input(&s, i % 8), F64_BOUND);
}

static void suite_pow(long *passed, long *failed)
{
    CmTally t32 = CM_TALLY_INIT, t64 = CM_TALLY_INIT;
    int n = sizeof SPECIAL_POW32 / sizeof SPECIAL_POW32[0];
    float nan32 = cm_f32(0x7fc00000u), inf32 = cm_f32(0x7f800000u);
    for (int i = -4; i < n; i++)
        for (int k = -4; k < n; k++) {
            float x = i == -4 ? nan32 : i == -3 ? inf32 : i == -2 ? -inf32 : i == -1 ? -nan32 : SPECIAL_POW32[i];
            float y = k == -4 ? nan32 : k == -3 ? inf32 : k == -2 ? -inf32 : k == -1 ? -nan32 : SPECIAL_POW32[k];
            t32.checks++;
            cm_check32_2(&t32, "pow", pow32, mpfr_pow, x, y);
            cm_check64_2(&t64, "pow", pow64, mpfr_pow, x, y, F64_BOUND);
        }
    pow_exact_cases(&t32);
    uint64_t s = 0x706f77ULL;
    pow_random32(&t32, &s, 300000);
    for (int i = 0; i < 40000; i++) {
        double x, y;
        pow_next64(&s, i % 6, &x, &y);
        cm_check64_2(&t64, "pow", pow64, mpfr_pow, x, y, F64_BOUND);
    }
    printf("pow f32: %ld checks, %ld failed (correct rounding)\n", t32.checks, t32.failed);
    printf("pow f64: %ld checks, %ld failed, worst %.4f ulp at x = %a\n", t64.checks, t64.failed, t64.worst_ulp,
           cm_f64(t64.worst_in));
    *passed += t32.checks - t32.failed + t64.checks - t64.failed;
    *failed += t32.failed + t64.failed;
}

static int suite(void)
{
    long passed = 0, failed = 0;
    suite_pow(&passed, &failed);
    for (int i = 0; i < NFUNCS; i++) {
        CmTally t32 = CM_TALLY_INIT, t64 = CM_TALLY_INIT;
        suite_f32(&t32, &FUNCS[i]);
        suite_f64(&t64, &FUNCS[i]);
        printf("%s f32: %ld checks, %ld failed (correct rounding)\n", FUNCS[i].name, t32.checks, t32.failed);
        printf("%s f64: %ld checks, %ld failed, worst %.4f ulp at %a\n", FUNCS[i].name, t64.checks, t64.failed,
               t64.worst_ulp, cm_f64(t64.worst_in));
        passed += t32.checks - t32.failed + t64.checks - t64.failed;
        failed += t32.failed + t64.failed;
    }
    printf("%ld passed, %ld failed, 0 skipped\n", passed, failed);
    return failed ? 1 : 0;
}

/* ------------------------------------------------------------ the long runs */

static int f64_long(const Func *f, long count)
{
    CmTally t = CM_TALLY_INIT;
    uint64_t s = 0x10ca11ULL;
    for (long i = 0; i < count; i++)
        cm_check64(&t, f->name, f->f64, f->ref, next_f64_input(&s, (int)(i % 8)), F64_BOUND);
    printf("%s f64: %ld inputs, %ld over %.3f ulp, worst %.6f ulp at %a\n", f->name, t.checks, t.failed, F64_BOUND,
           t.worst_ulp, cm_f64(t.worst_in));
    return t.failed ? 1 : 0;
}

typedef struct {
    CmTally *t;
    long count;
    int k;
} PowJob;

static const float POW_YS[] = {2.0f, 3.0f, 0.5f, 1.5f, 2.5f, -1.0f, -2.0f, -0.5f, 1.75f, 0.25f, 1.0f / 3.0f, 10.0f, -10.0f, 100.0f};
enum { NPOW_YS = sizeof POW_YS / sizeof POW_YS[0] };

/* Thread k: every 2^24/threads-th x with each structured y, then random pairs. */
static void *pow_worker(void *p)
{
    PowJob *j = p;
    uint64_t s = 0xe4a0ULL + (uint64_t)j->k * 0x9e37ULL;
    for (int yi = 0; yi < NPOW_YS; yi++)
        for (long i = 0; i < j->count / 16; i++) {
            float x = cm_f32((uint32_t)(cm_next(&s) % 0x7f800000u) + 1);
            cm_check32_2(j->t, "pow", pow32, mpfr_pow, x, POW_YS[yi]);
            pthread_mutex_lock(&j->t->lock);
            j->t->checks++;
            pthread_mutex_unlock(&j->t->lock);
        }
    CmTally mine = CM_TALLY_INIT;
    pow_random32(&mine, &s, j->count);
    pthread_mutex_lock(&j->t->lock);
    j->t->checks += mine.checks;
    j->t->failed += mine.failed;
    pthread_mutex_unlock(&j->t->lock);
    return NULL;
}

static int pow_exhaustive(int threads, long scale)
{
    CmTally t = CM_TALLY_INIT;
    pthread_t tid[256];
    PowJob job[256];
    if (threads < 1 || threads > 256)
        threads = 1;
    printf("pow f32: 2^64 pairs cannot be enumerated; a structured and random sample instead\n");
    pow_exact_cases(&t);
    for (int k = 0; k < threads; k++) {
        job[k] = (PowJob){&t, (scale << 30) / threads, k};
        pthread_create(&tid[k], NULL, pow_worker, &job[k]);
    }
    for (int k = 0; k < threads; k++)
        pthread_join(tid[k], NULL);
    printf("pow f32 sample: %ld pairs, %ld not correctly rounded\n", t.checks, t.failed);
    return t.failed ? 1 : 0;
}

static int pow_long64(long count)
{
    CmTally t = CM_TALLY_INIT;
    uint64_t s = 0x10ca11ULL;
    for (long i = 0; i < count; i++) {
        double x, y;
        pow_next64(&s, (int)(i % 6), &x, &y);
        cm_check64_2(&t, "pow", pow64, mpfr_pow, x, y, F64_BOUND);
    }
    printf("pow f64: %ld pairs, %ld over %.3f ulp, worst %.6f ulp at x = %a\n", t.checks, t.failed, F64_BOUND,
           t.worst_ulp, cm_f64(t.worst_in));
    return t.failed ? 1 : 0;
}

/* The fast path's answer for x (as the f32 function computes it) and whether it decided. */
static int fast_path(const char *name, float x, float *out)
{
    double xd = x, y;
    int k;
    if (strcmp(name, "log1p") == 0) {
        if (cn_ml_abs(xd) < 0x1p-7) {
            double p = CN_ML_LC2 + xd * (CN_ML_LC3 + xd * (CN_ML_LC4 + xd * (CN_ML_LC5 + xd * (CN_ML_LC6 + xd * CN_ML_LC7))));
            y = xd + xd * xd * p;
            *out = (float)y;
            return cn_mb_rounds_same(y, cn_ml_abs(y) * 0x1p-45);
        }
        cn_dd l = cn_ml_log1p_mid_of(xd);
        int ok;
        *out = cn_ml_dd_to_f32(l.hi, l.lo, cn_ml_abs(l.hi) * 0x1p-60, &ok);
        return ok;
    }
    double rest = cn_ml_rest_fast(xd, &k);
    y = strcmp(name, "log") == 0 ? k * CN_ML_LN2 + rest : k + rest * CN_ML_INVLN2_HI;
    *out = (float)y;
    return cn_mb_rounds_same(y, cn_ml_abs(y) * 0x1p-45);
}

/* The accurate path's answer and whether it decided. */
static int acc_path(const char *name, float x, float *out)
{
    cn_dd l;
    int k, ok;
    if (strcmp(name, "log1p") == 0) {
        l = cn_ml_log1p_acc_of(x);
    } else {
        cn_dd rest = cn_ml_rest_acc(x, &k);
        l = strcmp(name, "log") == 0 ? cn_mb_dd_add(cn_ml_kln2_acc(k), rest) : cn_ml_log2_of(k, rest);
    }
    *out = cn_ml_dd_to_f32(l.hi, l.lo, cn_ml_abs(l.hi) * 0x1p-92, &ok);
    return ok;
}

static int paths(const Func *f)
{
    long slow = 0, disagree = 0, undecided = 0;
    double lo = strcmp(f->name, "log1p") == 0 ? -1.0 : 0.0;
    for (uint64_t u = 0; u < (1ULL << 32); u++) {
        float x = cm_f32((uint32_t)u), a, b;
        if (!(x > lo) || x == 0 || !((double)x < 0x1p128))
            continue;
        int fast_ok = fast_path(f->name, x, &a);
        if (!fast_ok)
            slow++;
        int acc_ok = acc_path(f->name, x, &b);
        if (!acc_ok) {
            undecided++;
            if (undecided <= 10)
                printf("undecided by the accurate path: %s(%a)\n", f->name, x);
        }
        if (fast_ok && acc_ok && cm_bits32(a) != cm_bits32(b) && disagree++ < 10)
            printf("fast path wrong: %s(%a) fast %a, accurate %a\n", f->name, x, a, b);
    }
    printf("%s f32 paths: %ld inputs to the slow path, %ld fast decisions wrong, %ld undecided\n", f->name, slow,
           disagree, undecided);
    return disagree || undecided;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--exhaustive") == 0 && strcmp(argv[2], "pow") == 0)
        return pow_exhaustive(argc >= 4 ? atoi(argv[3]) : 1, argc >= 5 ? atol(argv[4]) : 1);
    if (argc >= 3 && strcmp(argv[1], "--f64-long") == 0 && strcmp(argv[2], "pow") == 0)
        return pow_long64(argc >= 4 ? atol(argv[3]) : 20000000L);
    if (argc >= 3 && strcmp(argv[1], "--exhaustive") == 0)
    {
        const Func *f = find(argv[2]);
        return cm_exhaustive32(f->name, f->f32, f->ref, argc, argv);
    }
    if (argc >= 3 && strcmp(argv[1], "--f64-long") == 0)
        return f64_long(find(argv[2]), argc >= 4 ? atol(argv[3]) : 20000000L);
    if (argc >= 3 && strcmp(argv[1], "--paths") == 0)
        return paths(find(argv[2]));
    if (argc != 1) {
        fprintf(stderr, "usage: check_log [--exhaustive NAME [THREADS [LO HI]] | --f64-long NAME [COUNT] | --paths NAME]\n");
        return 2;
    }
    return suite();
}
