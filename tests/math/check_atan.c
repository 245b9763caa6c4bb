/*
 * check_atan.c: runtime/cairn_math_atan.h against MPFR (tests/math/mathcheck.h).
 *
 *   check_atan                     the suite's test: Annex F's special cases, exact
 *                                  and near-exact cases (tiny quotients on a midpoint),
 *                                  y/x near 1 and near the table's centres, tiny and huge
 *                                  ratios, subnormals, seeded random inputs and pairs of
 *                                  atan and atan2, f32 and f64 (seconds); prints "N passed,
 *                                  N failed, N skipped", exits 1 on a failure
 *   check_atan --exhaustive atan [THREADS] [LO HI]
 *                                  every f32 bit pattern in [LO, HI) (default all 2^32)
 *   check_atan --exhaustive atan2 [THREADS] [SEED] [SCALE]
 *                                  2^64 pairs cannot be enumerated: a structured and
 *                                  random sample instead, SCALE * 2^26 pairs (default
 *                                  SCALE 16): y swept over every f32 bit pattern with
 *                                  a stride against a set of x's, pairs with close
 *                                  exponents, y/x near the table's centres, tiny and
 *                                  underflowing quotients, random bits
 *   check_atan --f64-long atan|atan2 [COUNT]
 *                                  COUNT (20 million) random and adversarial f64 inputs;
 *                                  prints the worst error in ulps
 *   check_atan --paths atan [LO HI]
 *                                  every f32 input through the header's own paths, no
 *                                  MPFR (a minute): how many leave the fast path, and
 *                                  how many of those the accurate path leaves undecided
 *   check_atan --paths atan2 [COUNT]
 *                                  the same for COUNT (2^30) pairs of the kinds the
 *                                  sample uses
 */
#include "cairn_math_atan.h"
#include "mathcheck.h"

static const double F64_BOUND = 0.501; /* the header's claim for both f64 functions */

static float atan32(float x) { return cn_math_atan_f32(x); }
static double atan64(double x) { return cn_math_atan_f64(x); }
static float atan2_32(float y, float x) { return cn_math_atan2_f32(y, x); }
static double atan2_64(double y, double x) { return cn_math_atan2_f64(y, x); }

static void one32(CmTally *t, float x)
{
    t->checks++;
    cm_check32(t, "atan", atan32, mpfr_atan, x);
}

static void pair32(CmTally *t, float y, float x)
{
    t->checks++;
    cm_check32_2(t, "atan2", atan2_32, mpfr_atan2, y, x);
}

static float pow2f(int e) { return e < -126 ? cm_f32(1u << (e + 149)) : cm_f32((uint32_t)(e + 127) << 23); }
static double pow2d(int e) { return e < -1022 ? cm_f64(1ULL << (e + 1074)) : cm_f64((uint64_t)(e + 1023) << 52); }

/* ------------------------------------------------------------ inputs */

/* Values whose pairs cover Annex F's table: zeros, infinities, NaNs, and
 * finite values of both signs from the subnormals to the top. */
static const uint32_t SPECIAL32[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x3f800000,
    0xbf800000, 0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f7fffff,
    0x3f800001, 0x40000000, 0xc0000000, 0x3f000000, 0x39800000, 0x39800001, 0x397fffff, 0x2e800000,
    0x4b800000, 0x5f800000, 0x3fc90fdb, 0x3e800000, 0xbe800000, 0x00000003, 0x0d000000, 0x72000000,
};
enum { NSPECIAL32 = sizeof SPECIAL32 / sizeof SPECIAL32[0] };

/* Every positive f32 input whose atan leaves the fast path (check_atan
 * --paths atan: 134 of 2^31; the negatives are their mirror). */
static const uint32_t SLOW32[] = {
    0x39b89ba2, 0x39b89ba3, 0x3a27ba3b, 0x3a46dce7, 0x3aac434b, 0x3ab4add2, 0x3ad637fa, 0x3b06f308,
    0x3b67fc17, 0x3b7c1bc9, 0x3be8237b, 0x3c53ecc9, 0x3cc0e476, 0x3d373b3a, 0x3d68a4ed, 0x3d71ae3f,
    0x3d816cbd, 0x3d8d6b23, 0x3db4dd62, 0x3dbb6ac7, 0x3e0d2649, 0x3e136af2, 0x3e242361, 0x3ee06db1,
    0x3f89058c, 0x3fa8fad8, 0x3fb393dd, 0x3fbb0cea, 0x3fec5266, 0x4025939d, 0x40357f1d, 0x40af6e71,
    0x40bf14c5, 0x40f91ad2, 0x40fad4e3, 0x4102ec62, 0x4159cb56, 0x41877348, 0x41c28b74, 0x41ec669e,
    0x421ae6b6, 0x421ded96, 0x4241b6f5, 0x424dd4a2, 0x4252099d, 0x4266c19c, 0x426bef73, 0x4297eb88,
    0x4309084e, 0x4333fad3, 0x436bf521, 0x43d8ed1a, 0x44099db7, 0x4435be13, 0x447413fc, 0x447e226b,
    0x44caee8d, 0x44f43022, 0x45cb08b6, 0x4629c0c9, 0x4630da7d, 0x46338495, 0x467d7575, 0x468716b1,
    0x46a8d965, 0x46b205c0, 0x46bd5663, 0x46c99109, 0x47038729, 0x47921c9e, 0x47b1d44a, 0x47b3c7d3,
    0x47ff77c3, 0x48b90f72, 0x48e1e1eb, 0x48ef10f9, 0x494a1b01, 0x497bcdba, 0x498f8d37, 0x49a6f4f2,
    0x49c77b1f, 0x49f7be1b, 0x4a2367a3, 0x4a700051, 0x4a700052, 0x4ae1e270, 0x4ae1e271, 0x4ae1e272,
    0x4ae1e273, 0x4ae1e274, 0x4c700502, 0x4c700503, 0x4c700504, 0x4c700505, 0x4c700506, 0x4c700507,
    0x4c700508, 0x4c700509, 0x4c70050a, 0x4c70050b, 0x4c70050c, 0x4c70050d, 0x4c70050e, 0x4c70050f,
    0x4c700510, 0x4c700511, 0x4c700512, 0x4c700513, 0x4c700514, 0x4c700515, 0x4c700516, 0x4c700517,
    0x4c700518, 0x4c700519, 0x4c70051a, 0x4c70051b, 0x4c70051c, 0x4c70051d, 0x4c70051e, 0x4c70051f,
    0x4c700520, 0x4c700521, 0x4c700522, 0x4c700523, 0x4c700524, 0x4c700525, 0x4c700526, 0x4c700527,
    0x4c700528, 0x4c700529, 0x4c70052a, 0x4c70052b, 0x4c70052c, 0x4c70052d,
};
enum { NSLOW32 = sizeof SLOW32 / sizeof SLOW32[0] };

/* A float with a random mantissa and exponent e (clamped into the range), either sign when sg. */
static float rand_f32_exp(uint64_t *s, int e, int sg)
{
    uint64_t u = cm_next(s);
    if (e < -149)
        e = -149;
    if (e > 127)
        e = 127;
    float v = e < -126 ? cm_f32((uint32_t)(u & ((1u << (e + 149)) - 1)) | (1u << (e + 149)))
                       : cm_f32(((uint32_t)(e + 127) << 23) | (uint32_t)(u & 0x7fffff));
    return (sg && (u >> 63)) ? -v : v;
}

/* A pair of kind k (0..7): close exponents; y/x near a table centre i/64;
 * tiny quotients with short mantissas (near midpoints, subnormal results);
 * huge quotients (x tiny or subnormal); y = x * (1 + tiny); any bits;
 * near-equal magnitudes with either sign; y/x near 2^-12 and 2^-40. */
static void pair_of_kind(uint64_t *s, int k, float *y, float *x)
{
    uint64_t u = cm_next(s);
    int e = (int)(u % 254) - 126, de = (int)((u >> 8) % 9) - 4;
    switch (k) {
    case 0:
        *x = rand_f32_exp(s, e, 1), *y = rand_f32_exp(s, e + de, 1);
        break;
    case 1: {
        double c = (double)((u >> 16) % 65) / 64.0 * (1.0 + cm_in64(s, -0x1p-20, 0x1p-20));
        *x = rand_f32_exp(s, e / 2, 1);
        *y = (float)(c * *x);
        if (u & 2)
            { float w = *x; *x = *y; *y = w; }
        break;
    }
    case 2: /* short odd mantissas, exponents far apart: y/x exactly a float or a midpoint */
        *y = (float)((u >> 20) % 64 * 2 + 1) * pow2f(-149 + (int)((u >> 30) % 60));
        *x = (float)(1u << ((u >> 40) % 8)) * pow2f((int)((u >> 50) % 100) - 20);
        break;
    case 3:
        *x = rand_f32_exp(s, -149 + (int)((u >> 20) % 40), 1), *y = rand_f32_exp(s, e, 1);
        break;
    case 4:
        *x = rand_f32_exp(s, e, 1);
        *y = (float)(*x * (1.0 + cm_in64(s, -1.0, 1.0) * ldexp(1.0, -(int)((u >> 20) % 24))));
        break;
    case 5:
        *x = cm_f32((uint32_t)u), *y = cm_f32((uint32_t)(u >> 32));
        break;
    case 6:
        *x = rand_f32_exp(s, e, 1), *y = (u & 4 ? -1 : 1) * fabsf(*x) * (float)(1.0 + cm_in64(s, -0x1p-10, 0x1p-10));
        break;
    default:
        *x = rand_f32_exp(s, e, 1), *y = rand_f32_exp(s, e - 12 - (int)((u >> 20) % 30), 1);
        break;
    }
}

/* f64 inputs of atan: every kind of magnitude, near the table centres, near
 * 1, tiny (around the 2^-35 switch), huge, subnormal. */
static double next_atan64(uint64_t *s, int kind)
{
    uint64_t u = cm_next(s);
    double sg = (u >> 63) ? -1.0 : 1.0;
    switch (kind) {
    case 0:
        return cm_f64(u);
    case 1:
        return sg * (double)((u >> 16) % 65) / 64.0 * (1.0 + cm_in64(s, -0x1p-30, 0x1p-30));
    case 2:
        return sg * (1.0 + cm_in64(s, -1.0, 1.0) * ldexp(1.0, -(int)((u >> 8) % 53)));
    case 3:
        return sg * cm_in64(s, 0.5, 1.0) * ldexp(1.0, -30 - (int)((u >> 8) % 10));
    case 4:
        return sg * cm_f64(u & 0x000fffffffffffffULL);
    case 5:
        return 1.0 / next_atan64(s, 1 + (int)((u >> 8) % 3));
    default:
        return sg * cm_in64(s, 0.0, 1.0) * ldexp(1.0, (int)((u >> 8) % 80) - 40);
    }
}

/* f64 pairs of atan2: any bits; close exponents; y/x near the table's
 * centres; tiny quotients down to the subnormals and 0; huge quotients with
 * x subnormal; both near the top of the range; near-equal magnitudes. */
static void next_atan2_64(uint64_t *s, int kind, double *y, double *x)
{
    uint64_t u = cm_next(s);
    double sy = (u >> 63) ? -1.0 : 1.0, sx = ((u >> 62) & 1) ? -1.0 : 1.0;
    int e = (int)((u >> 8) % 2040) - 1020;
    switch (kind) {
    case 0:
        *y = cm_f64(u), *x = cm_f64(cm_next(s));
        break;
    case 1:
        *x = sx * cm_in64(s, 1.0, 2.0) * ldexp(1.0, e);
        *y = sy * cm_in64(s, 1.0, 2.0) * ldexp(1.0, e + (int)((u >> 24) % 9) - 4);
        break;
    case 2:
        *x = sx * cm_in64(s, 1.0, 2.0) * ldexp(1.0, e / 2);
        *y = sy * fabs(*x) * (double)((u >> 24) % 65) / 64.0 * (1.0 + cm_in64(s, -0x1p-30, 0x1p-30));
        if (u & 1)
            { double w = *x; *x = *y; *y = w; }
        break;
    case 3:
        *x = sx * cm_in64(s, 1.0, 2.0) * ldexp(1.0, (int)((u >> 24) % 200));
        *y = sy * cm_in64(s, 1.0, 2.0) * ldexp(1.0, (int)((u >> 24) % 200) - 1030 - (int)((u >> 40) % 100));
        break;
    case 4:
        *x = sx * cm_f64((u >> 12) & 0x000fffffffffffffULL);
        *y = sy * cm_in64(s, 1.0, 2.0) * ldexp(1.0, e);
        break;
    case 5:
        *x = sx * cm_f64(0x7fefffffffffffffULL - (u & 0xffffffffffULL));
        *y = sy * cm_f64(0x7fefffffffffffffULL - (cm_next(s) & 0xfffffffffffffULL));
        break;
    case 6:
        *x = sx * cm_in64(s, 1.0, 2.0) * ldexp(1.0, e);
        *y = sy * fabs(*x) * (1.0 + cm_in64(s, -1.0, 1.0) * ldexp(1.0, -(int)((u >> 24) % 53)));
        break;
    default:
        *x = sx * cm_in64(s, 1.0, 2.0) * ldexp(1.0, e);
        *y = sy * fabs(*x) * cm_in64(s, 0.5, 1.0) * ldexp(1.0, -30 - (int)((u >> 24) % 10));
        break;
    }
}

/* ------------------------------------------------------------ the suite's test */

static void suite_atan32(CmTally *t)
{
    for (int i = 0; i < NSPECIAL32; i++)
        one32(t, cm_f32(SPECIAL32[i]));
    for (int i = 0; i < NSLOW32; i++)
        one32(t, cm_f32(SLOW32[i])), one32(t, -cm_f32(SLOW32[i]));
    for (int e = -149; e < 128; e++) /* powers of two and their neighbours, both signs */
        for (int d = -2; d <= 2; d++) {
            one32(t, cm_f32(cm_bits32(pow2f(e)) + d));
            one32(t, -cm_f32(cm_bits32(pow2f(e)) + d));
        }
    for (uint32_t u = 0x3f7f0000; u < 0x3f810000; u++) /* every input within 2^-8 of 1 */
        one32(t, cm_f32(u));
    for (uint32_t u = 0x397f0000; u < 0x39810000; u += 3) /* the switch at 2^-12 */
        one32(t, cm_f32(u)), one32(t, -cm_f32(u));
    for (int i = 0; i < 128; i++) /* the table's interval edges (i + 1/2)/64, and 64/(i + 1/2) */
        for (int d = -300; d <= 300; d += 7) {
            float m = (float)((i + 0.5) / 64.0), r = (float)(64.0 / (i + 0.5));
            one32(t, cm_f32(cm_bits32(m) + d));
            one32(t, cm_f32(cm_bits32(r) + d));
        }
    uint64_t s = 0xa7a4f32ULL;
    for (int i = 0; i < 600000; i++)
        one32(t, cm_f32((uint32_t)cm_next(&s)));
}

static void suite_atan64(CmTally *t)
{
    static const double special[] = {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp1023,
                                     0x1p-35, 0x1.fffffffffffffp-36, 0x1p-27, 0x1p27, 0x1p35, 0x1p100, 0x1p-100,
                                     0x1.0000000000001p0, 0x1.fffffffffffffp-1, 3.0, 1.0 / 128, 1.0 / 64 + 1.0 / 128};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
        cm_check64(t, "atan", atan64, mpfr_atan, special[i], F64_BOUND);
        cm_check64(t, "atan", atan64, mpfr_atan, -special[i], F64_BOUND);
    }
    double nonfinite[] = {cm_f64(0x7ff0000000000000ULL), -cm_f64(0x7ff0000000000000ULL), cm_f64(0x7ff8000000000000ULL)};
    for (int i = 0; i < 3; i++)
        cm_check64(t, "atan", atan64, mpfr_atan, nonfinite[i], F64_BOUND);
    for (int e = -1074; e < 1024; e++)
        cm_check64(t, "atan", atan64, mpfr_atan, pow2d(e), F64_BOUND);
    uint64_t s = 0xa7a4f64ULL;
    for (int i = 0; i < 80000; i++)
        cm_check64(t, "atan", atan64, mpfr_atan, next_atan64(&s, i % 7), F64_BOUND);
}

/* Annex F's grid (every pair of the special values), then the exact and
 * near-exact cases: tiny quotients that are a float or a midpoint, down to
 * 2^-150 and below; y = +-x; then the kinds of pairs, seeded. */
static void suite_atan2_32(CmTally *t)
{
    for (int i = 0; i < NSPECIAL32; i++)
        for (int k = 0; k < NSPECIAL32; k++)
            pair32(t, cm_f32(SPECIAL32[i]), cm_f32(SPECIAL32[k]));
    for (int m = 1; m < 64; m += 2)
        for (int e = -149; e < 128; e++)
            for (int k = -3; k <= 3; k++) {
                float y = (float)m * pow2f(e > 121 ? 121 : e), x = pow2f(k * 20);
                pair32(t, y, x), pair32(t, -y, x);
                pair32(t, y, -x), pair32(t, x, y);
                pair32(t, y, x * 3.0f);
            }
    for (int e = -149; e < 128; e++)
        for (int d = -1; d <= 1; d++) {
            float v = cm_f32(cm_bits32(pow2f(e)) + (e == -149 && d < 0 ? 0 : d));
            pair32(t, v, v), pair32(t, -v, v), pair32(t, v, -v), pair32(t, -v, -v);
        }
    uint64_t s = 0xa7a42ULL;
    for (int i = 0; i < 1000000; i++) {
        float y, x;
        pair_of_kind(&s, i % 8, &y, &x);
        pair32(t, y, x);
    }
}

static void suite_atan2_64(CmTally *t)
{
    static const double vals[] = {0.0, 1.0, 2.0, 0.5, 3.0, 0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp1023, 0x1p-35,
                                  0x1p600, 0x1p-600, 0x1.0000000000001p0, 1e300, 1e-300, 0x1.8p-1070};
    enum { NV = sizeof vals / sizeof vals[0] };
    double inf = cm_f64(0x7ff0000000000000ULL), nan = cm_f64(0x7ff8000000000000ULL);
    double all[2 * NV + 4];
    int n = 0;
    for (int i = 0; i < NV; i++)
        all[n++] = vals[i], all[n++] = -vals[i];
    all[n++] = inf, all[n++] = -inf, all[n++] = nan, all[n++] = -nan;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            cm_check64_2(t, "atan2", atan2_64, mpfr_atan2, all[i], all[k], F64_BOUND);
    uint64_t s = 0xa7a4264ULL;
    for (int i = 0; i < 80000; i++) {
        double y, x;
        next_atan2_64(&s, i % 8, &y, &x);
        cm_check64_2(t, "atan2", atan2_64, mpfr_atan2, y, x, F64_BOUND);
    }
}

static int suite(void)
{
    CmTally a32 = CM_TALLY_INIT, a64 = CM_TALLY_INIT, b32 = CM_TALLY_INIT, b64 = CM_TALLY_INIT;
    suite_atan32(&a32);
    suite_atan64(&a64);
    suite_atan2_32(&b32);
    suite_atan2_64(&b64);
    printf("atan f32: %ld checks, %ld failed (correct rounding)\n", a32.checks, a32.failed);
    printf("atan f64: %ld checks, %ld failed, worst %.4f ulp at %a\n", a64.checks, a64.failed, a64.worst_ulp,
           cm_f64(a64.worst_in));
    printf("atan2 f32: %ld checks, %ld failed (correct rounding)\n", b32.checks, b32.failed);
    printf("atan2 f64: %ld checks, %ld failed, worst %.4f ulp at y = %a\n", b64.checks, b64.failed, b64.worst_ulp,
           cm_f64(b64.worst_in));
    long passed = 0, failed = 0;
    CmTally *all[] = {&a32, &a64, &b32, &b64};
    for (int i = 0; i < 4; i++)
        passed += all[i]->checks - all[i]->failed, failed += all[i]->failed;
    printf("%ld passed, %ld failed, 0 skipped\n", passed, failed);
    return failed ? 1 : 0;
}

/* ------------------------------------------------------------ the long runs */

/* x's the y sweep runs against: 1 and small integers, powers of two far
 * apart, the subnormals, the top, negatives. */
static const float SWEEP_XS[] = {1.0f, -1.0f, 3.0f, 0x1p-149f, 0x1p-130f, 0x1.7p-100f, 0x1p-60f, 0.7f,
                                 -0x1.3p20f, 0x1p60f, 0x1.9p100f, 0x1p127f, -0x1.fffffep127f, 7.0f, -0.1f, 0x1p-12f};
enum { NSWEEP = sizeof SWEEP_XS / sizeof SWEEP_XS[0] };

typedef struct {
    CmTally *t;
    long count; /* this thread's pairs */
    uint64_t seed;
    int k, n;
} PairJob;

/* Thread k of n: a quarter of its share sweeps y over every f32 pattern with
 * a stride (offset by k) against each x of SWEEP_XS; the rest are the kinds
 * of pairs, seeded. */
static void *pair_worker(void *p)
{
    PairJob *j = p;
    CmTally mine = CM_TALLY_INIT;
    uint64_t per_x = (uint64_t)(j->count / 4) / NSWEEP + 1;
    uint64_t stride = ((1ULL << 32) / (per_x * (uint64_t)j->n)) | 1;
    for (int xi = 0; xi < NSWEEP; xi++)
        for (uint64_t u = (uint64_t)j->k * stride / (uint64_t)j->n + (uint64_t)xi; u < (1ULL << 32); u += stride)
            pair32(&mine, cm_f32((uint32_t)u), SWEEP_XS[xi]);
    uint64_t s = j->seed + (uint64_t)j->k * 0x9e3779b9ULL;
    for (long i = 0; i < j->count - j->count / 4; i++) {
        float y, x;
        pair_of_kind(&s, (int)(i % 8), &y, &x);
        pair32(&mine, y, x);
    }
    pthread_mutex_lock(&j->t->lock);
    j->t->checks += mine.checks;
    j->t->failed += mine.failed;
    pthread_mutex_unlock(&j->t->lock);
    return NULL;
}

static int exhaustive_atan2(int threads, uint64_t seed, long scale)
{
    CmTally t = CM_TALLY_INIT;
    pthread_t tid[256];
    PairJob job[256];
    if (threads < 1 || threads > 256)
        threads = 1;
    printf("atan2 f32: 2^64 pairs cannot be enumerated; a structured and random sample instead\n");
    for (int k = 0; k < threads; k++) {
        job[k] = (PairJob){&t, (scale << 26) / threads, seed, k, threads};
        pthread_create(&tid[k], NULL, pair_worker, &job[k]);
    }
    for (int k = 0; k < threads; k++)
        pthread_join(tid[k], NULL);
    printf("atan2 f32 sample: %ld pairs, %ld not correctly rounded\n", t.checks, t.failed);
    return t.failed ? 1 : 0;
}

static int f64_long(int two, long count)
{
    CmTally t = CM_TALLY_INIT;
    uint64_t s = 0x10ca11a7ULL;
    for (long i = 0; i < count; i++) {
        if (two) {
            double y, x;
            next_atan2_64(&s, (int)(i % 8), &y, &x);
            cm_check64_2(&t, "atan2", atan2_64, mpfr_atan2, y, x, F64_BOUND);
        } else {
            cm_check64(&t, "atan", atan64, mpfr_atan, next_atan64(&s, (int)(i % 7)), F64_BOUND);
        }
    }
    printf("%s f64: %ld inputs, %ld over %.3f ulp, worst %.6f ulp at %s%a\n", two ? "atan2" : "atan", t.checks,
           t.failed, F64_BOUND, t.worst_ulp, two ? "y = " : "", cm_f64(t.worst_in));
    return t.failed ? 1 : 0;
}

/* The f32 atan's paths for x (finite, as cn_math_atan_f32 takes them):
 * 0 when the fast path decides, 1 when the accurate path does, 2 when
 * neither does. */
static int atan_path(float x)
{
    double ax = fabs((double)x);
    int swapped = ax > 1.0;
    double n = swapped ? 1.0 : ax, d = swapped ? ax : 1.0;
    double v = cn_mat_quadrant(cn_mat_fast(n, d, n / d), swapped, 0);
    if (cn_mb_rounds_same(v, v * 0x1p-46))
        return 0;
    int ok;
    cn_dd r = cn_mat_quadrant_dd(cn_mat_acc(cn_mat_div(n, d)), swapped, 0);
    cn_mat_dd_to_f32(r.hi, r.lo, r.hi * 0x1p-90, &ok);
    return ok ? 1 : 2;
}

/* The same for atan2(y, x), y and x finite and nonzero, as cn_mat_core32
 * takes them (the tiny quotients count as the fast path). */
static int atan2_path(float y, float x)
{
    double ay = fabs((double)y), ax = fabs((double)x);
    int swapped = ay > ax, xneg = x < 0;
    double n = swapped ? ax : ay, d = swapped ? ay : ax, t = n / d;
    if (t < 0x1p-40 && !swapped && !xneg)
        return 0;
    double v = cn_mat_quadrant(cn_mat_fast(n, d, t), swapped, xneg);
    if (cn_mb_rounds_same(v, v * 0x1p-46))
        return 0;
    int ok;
    cn_dd r = cn_mat_quadrant_dd(cn_mat_acc(cn_mat_div(n, d)), swapped, xneg);
    cn_mat_dd_to_f32(r.hi, r.lo, r.hi * 0x1p-90, &ok);
    return ok ? 1 : 2;
}

static int paths2(long count)
{
    long slow = 0, undecided = 0, n = 0;
    uint64_t s = 0x9a7a5ULL;
    for (long i = 0; i < count; i++) {
        float y, x;
        pair_of_kind(&s, (int)(i % 8), &y, &x);
        if (!(fabsf(x) < INFINITY && fabsf(y) < INFINITY) || x == 0 || y == 0)
            continue;
        n++;
        int p = atan2_path(y, x);
        slow += p >= 1;
        if (p == 2 && undecided++ < 10)
            printf("undecided by the accurate path: atan2(%a, %a)\n", y, x);
    }
    printf("atan2 f32 paths: %ld pairs, %ld to the slow path, %ld undecided\n", n, slow, undecided);
    return undecided ? 1 : 0;
}

static int paths(uint64_t lo, uint64_t hi)
{
    long slow = 0, undecided = 0;
    for (uint64_t u = lo; u < hi; u++) {
        float x = cm_f32((uint32_t)u);
        if (!(fabsf(x) < INFINITY))
            continue;
        int p = atan_path(x);
        if (p >= 1 && slow++ < 24)
            printf("slow path: atan(%a) (0x%08x)\n", x, (unsigned)u);
        if (p == 2 && undecided++ < 10)
            printf("undecided by the accurate path: atan(%a)\n", x);
    }
    printf("atan f32 paths [0x%llx, 0x%llx): %ld inputs to the slow path, %ld undecided\n", (unsigned long long)lo,
           (unsigned long long)hi, slow, undecided);
    return undecided ? 1 : 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: check_atan [--exhaustive atan [THREADS] [LO HI] | --exhaustive atan2 [THREADS] [SEED] "
                    "[SCALE] | --f64-long atan|atan2 [COUNT] | --paths atan [LO HI] | --paths atan2 [COUNT]]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc == 1)
        return suite();
    if (argc < 3)
        return usage();
    int two = strcmp(argv[2], "atan2") == 0;
    if (!two && strcmp(argv[2], "atan") != 0)
        return usage();
    int threads = argc >= 4 ? atoi(argv[3]) : 1;
    if (strcmp(argv[1], "--exhaustive") == 0 && two)
        return exhaustive_atan2(threads, argc >= 5 ? strtoull(argv[4], NULL, 0) : 0x5eedULL,
                                argc >= 6 ? atol(argv[5]) : 16);
    if (strcmp(argv[1], "--exhaustive") == 0)
        return cm_exhaustive32("atan", atan32, mpfr_atan, argc, argv);
    if (strcmp(argv[1], "--paths") == 0 && two)
        return paths2(argc >= 4 ? atol(argv[3]) : 1L << 30);
    if (strcmp(argv[1], "--paths") == 0 && !two)
        return paths(argc >= 5 ? strtoull(argv[3], NULL, 0) : 0, argc >= 5 ? strtoull(argv[4], NULL, 0) : 1ULL << 32);
    if (strcmp(argv[1], "--f64-long") == 0)
        return f64_long(two, argc >= 4 ? atol(argv[3]) : 20000000L);
    return usage();
}
