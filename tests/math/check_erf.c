/*
 * check_erf.c: runtime/cairn_math_erf.h against MPFR (tests/math/mathcheck.h).
 *
 *   check_erf                          the suite's test: special values, tiny and
 *                                      subnormal inputs, every row boundary, the
 *                                      saturation points and a seeded random sample
 *                                      (seconds); prints "N passed, N failed, N skipped"
 *   check_erf --exhaustive erf [THREADS] [LO HI]
 *                                      every f32 bit pattern in [LO, HI) (hex or
 *                                      decimal; default all 2^32)
 *   check_erf --f64-long erf [COUNT]   COUNT (20 million) random and adversarial f64
 *                                      inputs; prints the worst error in ulps
 */
#include "cairn_math_erf.h"
#include "mathcheck.h"

static const double F64_BOUND = 0.501; /* the header's claim */

static float erf32(float x) { return cn_math_erf_f32(x); }
static double erf64(double x) { return cn_math_erf_f64(x); }

static void one32(CmTally *t, float x)
{
    t->checks++;
    cm_check32(t, "erf", erf32, mpfr_erf, x);
}

/* Adversarial and random f64 inputs by kind. */
static double next_f64_input(uint64_t *s, int kind)
{
    uint64_t u = cm_next(s);
    double sg = (u & 1) ? -1.0 : 1.0;
    switch (kind) {
    case 0: /* around a row boundary (i + 1/2)/16, or a centre i/16 */
        return sg * ((double)((u >> 8) % 192) / 32.0 + cm_in64(s, -0x1p-20, 0x1p-20) * ldexp(1.0, -(int)((u >> 20) % 30)));
    case 1: /* subnormal */
        return sg * cm_f64(u & 0x000fffffffffffffULL);
    case 2: /* tiny: every binade below 2^-20 */
        return sg * cm_in64(s, 1.0, 2.0) * ldexp(1.0, -20 - (int)((u >> 8) % 1003));
    case 3: /* near the saturation and the table's end */
        return sg * cm_in64(s, 5.8, 6.0);
    case 4: /* around the switches at 2^-31 and 1/32 */
        return sg * ((u & 2) ? 0x1p-31 : 0x1p-5) * (1.0 + cm_in64(s, -0x1p-10, 0x1p-10));
    case 5: /* any bits */
        return cm_any64(s);
    default: /* the interesting range */
        return cm_in64(s, -6.0, 6.0);
    }
}

static void suite_f32(CmTally *t)
{
    static const uint32_t special[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
                                       0x7f800001, 0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x7f7fffff,
                                       0x3f800000, 0xbf800000, 0x40400000, 0x40800000};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        one32(t, cm_f32(special[i]));
    for (uint32_t u = 0; u < 0x00100000; u += 7) /* subnormals */
        one32(t, cm_f32(u)), one32(t, cm_f32(u | 0x80000000u));
    for (int e = -149; e < 3; e++) /* powers of two and neighbours */
        for (int d = -3; d <= 3; d++) {
            float p = e < -126 ? cm_f32(1u << (e + 149)) : cm_f32((uint32_t)(e + 127) << 23);
            one32(t, cm_f32(cm_bits32(p) + d)), one32(t, -cm_f32(cm_bits32(p) + d));
        }
    for (int i = 0; i <= 192; i++) /* every row boundary and centre, 200 floats each side */
        for (int d = -200; d <= 200; d++) {
            float b = cm_f32(cm_bits32((float)(i / 32.0)) + d);
            one32(t, b), one32(t, -b);
        }
    for (uint32_t u = 0x407a0000; u < 0x407b8000; u++) /* the saturation at 0x1.f5a88ap+1 */
        one32(t, cm_f32(u));
    uint64_t s = 0x657266f32ULL;
    for (int i = 0; i < 400000; i++) {
        uint64_t u = cm_next(&s);
        one32(t, (i & 1) ? (float)cm_in64(&s, -4.0, 4.0) : cm_f32((uint32_t)u));
    }
}

static void suite_f64(CmTally *t)
{
    double inf = cm_f64(0x7ff0000000000000ULL);
    double special[] = {0.0, -0.0, inf, -inf, cm_f64(0x7ff8000000000000ULL), 0x1p-1074, -0x1p-1074, 0x1p-1022,
                        0x1.fffffffffffffp-1023, 0x1p-31, 0x1p-5, 5.96875, 0x1.7afb48dc96627p+2,
                        0x1.7afb48dc96626p+2, 1.0, -1.0, 0x1.fffffffffffffp1023};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        cm_check64(t, "erf", erf64, mpfr_erf, special[i], F64_BOUND);
    for (int i = 0; i <= 192; i++)
        for (int d = -20; d <= 20; d++) {
            double b = cm_f64(cm_bits64(i / 32.0) + d);
            cm_check64(t, "erf", erf64, mpfr_erf, b, F64_BOUND);
        }
    uint64_t s = 0x657266f64ULL;
    for (int i = 0; i < 200000; i++)
        cm_check64(t, "erf", erf64, mpfr_erf, next_f64_input(&s, i % 7), F64_BOUND);
}

static int suite(void)
{
    CmTally t32 = CM_TALLY_INIT, t64 = CM_TALLY_INIT;
    suite_f32(&t32);
    suite_f64(&t64);
    printf("erf f32: %ld checks, %ld failed (correct rounding)\n", t32.checks, t32.failed);
    printf("erf f64: %ld checks, %ld failed, worst %.4f ulp at %a\n", t64.checks, t64.failed, t64.worst_ulp,
           cm_f64(t64.worst_in));
    long passed = t32.checks - t32.failed + t64.checks - t64.failed, failed = t32.failed + t64.failed;
    printf("%ld passed, %ld failed, 0 skipped\n", passed, failed);
    return failed ? 1 : 0;
}

static int f64_long(long count)
{
    CmTally t = CM_TALLY_INIT;
    uint64_t s = 0x10ca11ULL;
    for (long i = 0; i < count; i++)
        cm_check64(&t, "erf", erf64, mpfr_erf, next_f64_input(&s, (int)(i % 7)), F64_BOUND);
    printf("erf f64: %ld inputs, %ld over %.3f ulp, worst %.6f ulp at %a\n", t.checks, t.failed, F64_BOUND,
           t.worst_ulp, cm_f64(t.worst_in));
    return t.failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[2], "erf") != 0) {
        fprintf(stderr, "check_erf: no function %s (erf)\n", argv[2]);
        return 2;
    }
    if (argc >= 3 && strcmp(argv[1], "--exhaustive") == 0)
        return cm_exhaustive32("erf", erf32, mpfr_erf, argc, argv);
    if (argc >= 3 && strcmp(argv[1], "--f64-long") == 0)
        return f64_long(argc >= 4 ? atol(argv[3]) : 20000000L);
    if (argc != 1) {
        fprintf(stderr, "usage: check_erf [--exhaustive erf [THREADS] [LO HI] | --f64-long erf [COUNT]]\n");
        return 2;
    }
    return suite();
}
