/*
 * check_exp.c: runtime/cairn_math_exp.h against MPFR (tests/math/mathcheck.h).
 *
 *   check_exp                      the suite's test: special values, exact cases,
 *                                  the overflow, underflow and subnormal edges,
 *                                  tiny arguments and a seeded random sample of
 *                                  every function (seconds); prints "N passed,
 *                                  N failed, N skipped", exits 1 on a failure
 *   check_exp --exhaustive NAME [THREADS [LO HI]]
 *                                  every f32 bit pattern in [LO, HI) (default all
 *                                  2^32) of NAME's f32 version
 *   check_exp --f64-long NAME [COUNT]
 *                                  COUNT (20 million) random and adversarial f64
 *                                  inputs of NAME; prints the worst error in ulps
 * NAME is exp, exp2, expm1 or tanh.
 */
#include "cairn_math_exp.h"
#include "mathcheck.h"

static const double F64_BOUND = 0.501; /* the header's claim for every f64 function */

typedef struct {
    const char *name;
    float (*f32)(float);
    double (*f64)(double);
    cm_mpfr1 ref;
    double lo, hi;      /* f64: where the result is finite and not saturated */
    const float *edges; /* f32: thresholds whose neighbours are checked */
} Func;

static float exp_f32(float x) { return cn_math_exp_f32(x); }
static float exp2_f32(float x) { return cn_math_exp2_f32(x); }
static float expm1_f32(float x) { return cn_math_expm1_f32(x); }
static float tanh_f32(float x) { return cn_math_tanh_f32(x); }
static double exp_f64(double x) { return cn_math_exp_f64(x); }
static double exp2_f64(double x) { return cn_math_exp2_f64(x); }
static double expm1_f64(double x) { return cn_math_expm1_f64(x); }
static double tanh_f64(double x) { return cn_math_tanh_f64(x); }

/* overflow, the normal/subnormal edge, the underflow to 0, the header's cut-offs */
static const float EXP_EDGES[] = {0x1.62e43p+6f, -0x1.5d589ep+6f, -0x1.9fe368p+6f, 88.75f, -104.0f, 0x1.62e42ep-8f, 0};
static const float EXP2_EDGES[] = {128.0f, -126.0f, -149.0f, -150.0f, 0x1p-7f, 0x1p-8f, 1.0f, 0};
static const float EXPM1_EDGES[] = {0x1.62e43p+6f, -18.0f, -0x1.154246p+4f, 0x1.62e42ep-8f, -0x1.62e42ep-8f, 0x1p-5f, -0x1p-5f, 0};
static const float TANH_EDGES[] = {9.1f, 0x1.205966p+3f, 0x1p-13f, -0x1p-13f, 0x1.62e42ep-9f, 0x1p-6f, 0.55f, 0};

static const Func FUNCS[] = {
    {"exp", exp_f32, exp_f64, mpfr_exp, -746.0, 710.0, EXP_EDGES},
    {"exp2", exp2_f32, exp2_f64, mpfr_exp2, -1076.0, 1024.5, EXP2_EDGES},
    {"expm1", expm1_f32, expm1_f64, mpfr_expm1, -40.0, 710.0, EXPM1_EDGES},
    {"tanh", tanh_f32, tanh_f64, mpfr_tanh, -21.0, 21.0, TANH_EDGES},
};
enum { NFUNCS = sizeof FUNCS / sizeof FUNCS[0] };

static const Func *find(const char *name)
{
    for (int i = 0; i < NFUNCS; i++)
        if (strcmp(FUNCS[i].name, name) == 0)
            return &FUNCS[i];
    fprintf(stderr, "check_exp: no function %s (exp, exp2, expm1, tanh)\n", name);
    exit(2);
}

/* One f32 check, counted (cm_check32 leaves the count to its caller). */
static void one32(CmTally *t, const Func *f, float x)
{
    t->checks++;
    cm_check32(t, f->name, f->f32, f->ref, x);
}

/* ------------------------------------------------------------ inputs */

static const uint32_t SPECIAL32[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x3f800000,
    0xbf800000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff,
    0x3f7fffff, 0x3f800001, 0x40000000, 0x3f000000, 0xbf000000, 0x33800000, 0xb3800000, 0x32800000,
    0xb2800000, 0x42b17218, 0x42b17217, 0xc2aeac50, 0xc2cff1b5, 0x42fe0000, 0xc3150000, 0x41100000,
};

/* An f64 input of kind `kind` for f. */
static double next_f64_input(uint64_t *s, int kind, const Func *f)
{
    uint64_t u = cm_next(s);
    double sign = (u & 1) ? -1.0 : 1.0;
    switch (kind) {
    case 0: /* uniform over the interesting range */
        return cm_in64(s, f->lo, f->hi);
    case 1: /* near 0, every scale */
        return sign * cm_in64(s, 1.0, 2.0) * cm_f64((uint64_t)(1023 - (int)(u % 70) - 1) << 52);
    case 2: /* near the ends of the range (overflow, subnormal results, saturation) */
        return ((u & 2) ? f->lo : f->hi) + cm_in64(s, -4.0, 4.0);
    case 3: /* near a multiple of log(2)/128 (or of 1/128 for exp2): the table's edges */
    {
        double step = strcmp(f->name, "exp2") == 0 ? 0x1p-7 : CN_ML_LN2 / 128;
        double k = (double)(long long)cm_in64(s, f->lo / step, f->hi / step);
        return (k + 0.5 * (double)((u >> 8) % 3) - 0.5) * step * (1.0 + cm_in64(s, -0x1p-40, 0x1p-40));
    }
    case 4: /* small and moderate, |x| < 1 */
        return cm_in64(s, -1.0, 1.0);
    case 5: /* any bits */
        return cm_any64(s);
    case 6: /* exp and exp2 just below the underflow: subnormal results */
        return strcmp(f->name, "exp2") == 0 ? cm_in64(s, -1075.0, -1020.0) : cm_in64(s, -745.2, -707.0);
    default: /* an integer or half-integer plus a little */
        return (double)(long long)cm_in64(s, f->lo, f->hi) * 0.5 + ((u & 2) ? 0.0 : cm_in64(s, -0x1p-30, 0x1p-30));
    }
}

/* ------------------------------------------------------------ the suite's test */

static void suite_f32(CmTally *t, const Func *f)
{
    for (size_t i = 0; i < sizeof SPECIAL32 / sizeof SPECIAL32[0]; i++)
        one32(t, f, cm_f32(SPECIAL32[i]));
    for (int e = -149; e < 128; e++) /* powers of two, both signs, and their neighbours */
        for (int d = -2; d <= 2; d++) {
            float p = e < -126 ? cm_f32(1u << (e + 149)) : cm_f32((uint32_t)(e + 127) << 23);
            one32(t, f, cm_f32(cm_bits32(p) + d));
            one32(t, f, -cm_f32(cm_bits32(p) + d));
        }
    for (const float *e = f->edges; *e != 0; e++) /* 4096 patterns each side of every edge */
        for (int d = -4096; d <= 4096; d++)
            one32(t, f, cm_f32(cm_bits32(*e) + (uint32_t)d));
    for (int k = -320; k <= 320; k++) /* integers and half-integers (exp2 exact at the integers) */
        one32(t, f, (float)k * 0.5f);
    for (uint32_t u = 0x3a800000; u < 0x3d800000; u += 61) /* 2^-10 .. 2^-4, both signs */
        one32(t, f, cm_f32(u)), one32(t, f, cm_f32(u | 0x80000000u));
    uint64_t s = 0x657870f32ULL + (uint64_t)f->name[3];
    for (int i = 0; i < 200000; i++) { /* any bits, and the range where results are not saturated */
        one32(t, f, cm_f32((uint32_t)cm_next(&s)));
        one32(t, f, (float)cm_in64(&s, -110.0, 90.0));
    }
}

static void suite_f64(CmTally *t, const Func *f)
{
    static const double special[] = {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 0x1p-1074, -0x1p-1074, 0x1p-1022,
                                     0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023, 0x1p-60, -0x1p-60,
                                     709.782712893384, 709.7827128933841, -708.3964185322641, -745.1332191019411,
                                     -745.1332191019412, 1023.9999999999999, 1024.0, -1074.0, -1075.0, -1074.5,
                                     -1022.0, -1022.5, 0x1p-30, -0x1p-30, 0x1p-28, 19.5, -19.5, 20.0, -38.0,
                                     -37.5, 700.0, 700.5, 0x1.62e42fefa39efp-8, -0x1.62e42fefa39efp-8};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        cm_check64(t, f->name, f->f64, f->ref, special[i], F64_BOUND);
    double nonfinite[] = {cm_f64(0x7ff0000000000000ULL), -cm_f64(0x7ff0000000000000ULL),
                          cm_f64(0x7ff8000000000000ULL), -cm_f64(0x7ff8000000000000ULL)};
    for (int i = 0; i < 4; i++)
        cm_check64(t, f->name, f->f64, f->ref, nonfinite[i], F64_BOUND);
    for (int k = -2200; k <= 2100; k++) /* integers and half-integers: exp2 exact, subnormal 2^k */
        cm_check64(t, f->name, f->f64, f->ref, k * 0.5, F64_BOUND);
    uint64_t s = 0x657870f64ULL + (uint64_t)f->name[3];
    for (int i = 0; i < 60000; i++)
        cm_check64(t, f->name, f->f64, f->ref, next_f64_input(&s, i % 8, f), F64_BOUND);
}

static int suite(void)
{
    long passed = 0, failed = 0;
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
    uint64_t s = 0x10ca11ULL + (uint64_t)f->name[1];
    for (long i = 0; i < count; i++)
        cm_check64(&t, f->name, f->f64, f->ref, next_f64_input(&s, (int)(i % 8), f), F64_BOUND);
    printf("%s f64: %ld inputs, %ld over %.3f ulp, worst %.6f ulp at %a\n", f->name, t.checks, t.failed, F64_BOUND,
           t.worst_ulp, cm_f64(t.worst_in));
    return t.failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--exhaustive") == 0)
    {
        const Func *f = find(argv[2]);
        return cm_exhaustive32(f->name, f->f32, f->ref, argc, argv);
    }
    if (argc >= 3 && strcmp(argv[1], "--f64-long") == 0)
        return f64_long(find(argv[2]), argc >= 4 ? atol(argv[3]) : 20000000L);
    if (argc != 1) {
        fprintf(stderr, "usage: check_exp [--exhaustive NAME [THREADS [LO HI]] | --f64-long NAME [COUNT]]\n");
        return 2;
    }
    return suite();
}
