/*
 * cairn_math_exp.h: portable exp, exp2, expm1 and tanh, f32 and f64.
 *
 * exp f32: correctly rounded
 * exp2 f32: correctly rounded
 * expm1 f32: correctly rounded
 * tanh f32: correctly rounded
 * exp f64: <= 0.501 ulp
 * exp2 f64: <= 0.501 ulp
 * expm1 f64: <= 0.501 ulp
 * tanh f64: <= 0.501 ulp
 *
 * Method. Everything stands on cairn_math_log.h's exp kernel (the one pow
 * uses): x = k*log(2)/128 + r with |r| < 2^-8.5 (log(2)/128 in three parts,
 * so r is exact to about 2^-105), the table 2^(j/128) (j = k mod 128) as
 * double-doubles, and exp(x) = 2^e * 2^(j/128) * exp(r), e = (k - j)/128.
 * exp2 reduces x = k/128 + r0 instead (r0 exact) and takes r = r0*log(2).
 *
 * Three evaluations:
 *  - fast (f32 only), in double: exp and exp2 a degree-4 series and the
 *    table's high part, relative error below 2^-49; expm1 (degree 5) as
 *    (2^e T - 1) + 2^e (T p + Tlo), the first difference exact (Sterbenz)
 *    where it matters, so that the error stays below 2^-50 relative to
 *    expm1 (for k = 0 it is the series p itself); tanh(a) = m/(m + 2) with
 *    m = expm1(2a) from that path (2^-49.7). The bound used is 2^-46;
 *    cn_me_decided says whether it decides (integer bits in f32's normal
 *    range, cn_mb_rounds_same below it).
 *  - mid (f64): r as a double-double, exp(r) - 1 = r + r^2/2 (to 2^-80)
 *    + r^3 (1/6 + ... + r^4/7!) in double, the table's product exact
 *    (cn_mb_two_prod), every sum error-free: about 2^-78 relative to exp(x);
 *    expm1 subtracts 1 from the double-double exactly (two_sum), so its error
 *    relative to expm1 is below 2^-78 * exp(x)/|expm1(x)| <= 2^-69.5 (k != 0
 *    means |x| > 2^-8.6; for k = 0 nothing is subtracted and the error is
 *    2^-70 relative to r). tanh = m/(m + 2) with m that expm1 and a
 *    double-double division (2^-100): relative error is not amplified (the
 *    factor is 2/(m + 2) <= 1). The f64 result, hi + lo rounded once (on the
 *    subnormals' grid for exp and exp2, cn_ml_scale), is within 0.5 + 2^-16
 *    ulp; 0.501 is the claim.
 *  - accurate (f32's second try): cn_ml_exp_acc (2^-100); expm1 for
 *    |x| < 2^-5 its own series to x^15 in double-double Horner form (2^-105),
 *    above that exp_acc - 1 (2^-95 after the cancellation); tanh the
 *    division. Decided against the nearest midpoint with a bound of 2^-88
 *    (cn_ml_dd_to_f32).
 * Exact cases: exp(0) = 1, expm1(+-0) = +-0, tanh(+-0) = +-0 and exp2(k) =
 * 2^k for integer k (f32: seen in the reduction, r0 = 0 and j = 0; f64:
 * cn_me_exp2_int; 2^-150 and 2^-1075 are midpoints and round to +0) are
 * the only exact results (Lindemann-Weierstrass); no other f32 input
 * sits on a midpoint, and that none needs more than the accurate path is what
 * the exhaustive run (tests/math/check_exp.c --exhaustive) shows.
 * Tiny arguments need nothing special: the series is relative (r = x when
 * k = 0), and tanh(x) for |x| < 2^-13 (f32) or 2^-28 (f64) is x outright
 * (x^3/3 is below a quarter ulp). Past the ranges: exp and exp2 overflow to
 * +inf and underflow to +0, expm1(x) = -1 once e^x is below half the
 * spacing of the numbers just above -1 (x < -18 f32, -38 f64), tanh(x) =
 * +-1 once 1 - tanh is below half the spacing just below 1 (|x| > 9.1, 20).
 * Constants beyond log.h's: tools/gen_math_exp.c.
 */
#ifndef CAIRN_MATH_EXP_H
#define CAIRN_MATH_EXP_H

#include "cairn_math_base.h"
#include "cairn_math_log.h"

/* ------------------------------------------------------------ constants (tools/gen_math_exp.c) */

#define CN_ME_LN2_HI 0x1.62e42fefa39efp-1
#define CN_ME_LN2_LO 0x1.abc9e3b39803fp-56
#define CN_ME_EC11 0x1.ae64567f544e4p-26
#define CN_ME_EC12 0x1.1eed8eff8d898p-29
#define CN_ME_EC13 0x1.6124613a86d09p-33
#define CN_ME_EC14 0x1.93974a8c07c9dp-37
#define CN_ME_EC15 0x1.ae7f3e733b81fp-41
#define CN_ME_INVL21 0x1.71547p+7
#define CN_ME_L1_21 0x1.62e43p-8
#define CN_ME_L2_21 -0x1.05c610ca86c39p-36
#define CN_ME_C3_21 0x1.55555p-3
#define CN_ME_C4_21 0x1.55555p-5
#define CN_ME_C5_21 0x1.11111p-7

/* ------------------------------------------------------------ small helpers */

static inline CN_HD float cn_me_inf32(void) { return cn_mb_f32(0x7f800000u); }

/* x rounded to an integer (ties either way: only |r| matters), |x| < 2^51. */
static inline CN_HD double cn_me_round(double x) { return x + 0x1.8p52 - 0x1.8p52; }

/* x*c rounded to an integer the same way, the product rounded or not (a first
 * try's reduction: any integer within one of x*c keeps |r| in its bound). */
static inline CN_HD double cn_me_round_mad(double x, double c) { return cn_mb_mad(x, c, 0x1.8p52) - 0x1.8p52; }

/* The row j = k mod 128 and the exponent e = (k - j)/128 of an integer kd. */
static inline CN_HD int cn_me_split(double kd, int *e)
{
    int k = (int)kd, j = k & 127;
    *e = (k - j) / 128;
    return j;
}

/* ------------------------------------------------------------ the fast path (f32 inputs, in double) */

/* Whether every real within 2^-46 |v| of v rounds to the same float as v,
 * for the fast paths: cn_mb_decided_normal where |v| is in f32's normal
 * range; below 2^-126 (f32 subnormals) the grid differs: cn_mb_rounds_same. */
static inline CN_HD int cn_me_decided(double v)
{
    uint64_t u = cn_mb_bits64(v);
    if ((u & 0x7fffffffffffffffULL) < 0x3810000000000000ULL)
        return cn_mb_rounds_same(v, cn_ml_abs(v) * 0x1p-46);
    return cn_mb_decided_normal(v);
}

#ifdef CN_MB_FIRST_FMA
/* The GPU's first tries' reduction, for |x| < 88.5 an f32 value or twice one:
 * x = k log(2)/128 + r, k = round(x * 128/log(2)) with the 21-bit constant
 * taken from the low word of 1.5*2^52 + x*INVL21 (no conversion
 * instruction), returned in *k. |k| < 2^14, so kd*L1 is exact (L1 has 21
 * bits) and so is x - kd*L1 (for k != 0, |x| > 2^-9, so both are multiples
 * of 2^-32 below 2^7); r is within 2^-61 of its value and,
 * since the 21-bit 128/log(2) moves x*128/log(2) by at most 2^-8 (2^-10 for
 * |x| < 18.2), |r| < 0.504 log(2)/128 = 2^-8.52. For k = 0, r = x exactly. */
static inline CN_HD double cn_me_reduce_first(double x, int *k)
{
    double t = cn_mb_mad(x, CN_ME_INVL21, 0x1.8p52); /* 1.5*2^52 + k: k is the low word */
    *k = (int)(uint32_t)cn_mb_bits64(t);
    double kd = t - 0x1.8p52;
    return cn_mb_mad(-kd, CN_ME_L2_21, cn_mb_mad(-kd, CN_ME_L1_21, x));
}

/* v * 2^e by adding e to the exponent field, for a normal v whose product
 * stays normal (a first try's scaling: one integer add, no multiply). */
static inline CN_HD double cn_me_scale_first(double v, int e)
{
#ifdef __CUDA_ARCH__
    return __hiloint2double(__double2hiint(v) + e * (1 << 20), __double2loint(v)); /* the high word alone */
#else
    return cn_mb_f64(cn_mb_bits64(v) + ((uint64_t)(int64_t)e << 52));
#endif
}

/* exp(x) rounded to f32 for an f32 x in (-87, 88.5), the GPU's first try
 * (cairn_math_base.h): the fast path with no instruction it can spare in a
 * memory-bound map. Its constants have 21 bits (immediates there), except
 * L2 (cn_me_reduce_first). The series' truncation (2^-49.5),
 * 1/6 to 21 bits (2^-24 r^3 <= 2^-49.6), the table's high part and the two
 * last roundings (2^-52) stay below 2^-48.4 of y = T exp(r) in [1, 2.01) when
 * e = -126 (k >= -16067 then gives j >= 61) and in [0.997, 2.01) otherwise;
 * the test is cn_me_decided's at 2^-46. y rounds to 24 bits as exp(x) does,
 * and 2^e (e in [-126, 127]) keeps it normal: adding e to the exponent field
 * is the exact product. */
static inline CN_HD float cn_me_exp_first32(double x, int *ok)
{
    int k;
    double r = cn_me_reduce_first(x, &k);
    int j = k & 127, e = (k - j) / 128;
    double r2 = r * r;
    double p = cn_mb_mad(r2, cn_mb_mad(r2, CN_ME_C4_21, cn_mb_mad(r, CN_ME_C3_21, 0.5)), r);
    double tj = cn_ml_exp_row(j).hi;
    double y = cn_mb_mad(tj, p, tj);
    *ok = cn_mb_decided_normal(y);
    return cn_mb_f32(cn_mb_bits32((float)y) + ((uint32_t)e << 23));
}

/* tanh(a) rounded to f32 for a = |x|, x an f32 with 2^-13 <= a < 9.1, the
 * GPU's first try: m = expm1(2a) = (S - 1) + 2^e (T p + Tlo), S = 2^e T,
 * T + Tlo = 2^(j/128) (k = 128e + j >= 0, from cn_me_reduce_first), p =
 * expm1(r) to degree 5, then tanh = m/(m + 2) by cn_mb_div_short. For k = 0
 * m is p itself (S = 1, Tlo = 0), so p must be good relative to r: 1/6 is a
 * full double (to 21 bits its error would be r^2 2^-24 of p), 1/24 and 1/120
 * have 21 bits (2^-51.6 and 2^-62 of p), the truncation is 2^-52.1 and the
 * roundings leave p within 2^-50.5 of expm1(r). For k >= 1 (m >= 2^-8.53):
 * the errors of p (2^-59 absolute, S = 1), of r (2^-61), the dropped Tlo*p
 * (2^-61.7) and of T p + Tlo (2^-61.5) are 2^-58.3 S, below 2^-49.8 of m
 * (S/m < 2^8.5), S - 1 is exact while S <= 2 (Sterbenz) and relative to 2^-53
 * above; m + 2 and the division add 2^-53 and 2^-52. The quotient is within
 * 2^-49.1 of tanh(a) with cn_mb_div_first; the shorter cn_mb_div_short it
 * takes adds 2^-50.42 where that adds 2^-52, so 2^-48.62, and tanh(a) is in
 * [2^-13, 1), f32's normal range: the test is
 * cn_mb_decided_normal's at 2^-46. T p + Tlo is normal (r is not 0 and is on
 * no grid T p could cancel), and so is its scaling. It takes a's f32 bits ua
 * and widens 2a and narrows the quotient with integer operations
 * (cn_mb_widen_normal, cn_mb_narrow_decided: a is normal here, and the
 * narrowing is right where the test says the rounding is decided). */
static inline CN_HD float cn_me_tanh_first32(uint32_t ua, int *ok)
{
    int k;
    double r = cn_me_reduce_first(cn_mb_widen_normal(ua, 1), &k); /* 2a, exactly */
    int j = k & 127, e = (int)((uint32_t)k >> 7);
    double r2 = r * r;
    double p = cn_mb_mad(r2, cn_mb_mad(r2, cn_mb_mad(r, CN_ME_C5_21, CN_ME_C4_21), cn_mb_mad(r, CN_ML_EC3, 0.5)), r);
    cn_dd t = cn_ml_exp_row(j);
    double m = (cn_me_scale_first(t.hi, e) - 1.0) + cn_me_scale_first(cn_mb_mad(t.hi, p, t.lo), e);
    double q = cn_mb_div_short(m, m + 2.0);
    *ok = cn_mb_decided_normal(q);
    return cn_mb_narrow_decided(q);
}
#endif

/* exp(r) 2^(j/128) 2^e in double from r (|r| < 2^-8.4) for an f32 result's
 * first try: a degree-4 series in Estrin form (truncation 2^-49.5), the
 * table's high part alone (2^-53) already scaled by 2^e: below 2^-49. */
static inline CN_HD double cn_me_exp_fast_r(double r, int j, int e)
{
    double r2 = r * r;
    double p = cn_mb_mad(r2, cn_mb_mad(r2, CN_ML_EC4, cn_mb_mad(r, CN_ML_EC3, CN_ML_EC2)), r);
    double s = cn_ml_exp_row(j).hi * cn_mb_pow2(e);
    return cn_mb_mad(s, p, s);
}

/* exp(x) in double for an f32 x, -104 < x < 89: x - kd*L1 is exact (see
 * cn_me_expm1_fast), kd*L2 has 35 bits so r is within 2^-62 of its value. */
static inline CN_HD double cn_me_exp_fast(double x)
{
    int e;
    double kd = cn_me_round_mad(x, CN_ML_EXP_INVL);
    int j = cn_me_split(kd, &e);
    return cn_me_exp_fast_r(cn_mb_mad(-kd, CN_ML_EXP_L2, cn_mb_mad(-kd, CN_ML_EXP_L1, x)), j, e);
}

/* 2^x for an f32 x, -150 < x < 128, rounded to f32: x = kd/128 + r0 with r0
 * exact (x has 24 bits, kd/128 is a multiple of 2^-7 within 2^-8 of it).
 * An integer x (r0 = 0, j = 0) gives 2^e exactly, which (float) rounds right
 * (2^-150 is a midpoint: +0, to even); else r = r0 log(2) (2^-53 relative)
 * and the fast path, *ok saying whether it decided. */
static inline CN_HD float cn_me_exp2_fast32(double x, int *ok)
{
    int e;
    double kd = cn_me_round(x * 128.0), r0 = x - kd * 0x1p-7;
    int j = cn_me_split(kd, &e);
    *ok = 1;
    if (r0 == 0 && j == 0)
        return (float)cn_mb_pow2(e);
    double v = cn_me_exp_fast_r(r0 * CN_ME_LN2_HI, j, e);
    *ok = cn_me_decided(v);
    return (float)v;
}

#ifdef CN_MB_FIRST_FMA
/* 2^x rounded to f32 for an f32 x in [-126, 128), the FMA first try (the
 * second half of f32 pow's, cn_ml_pow_first32, which has the details): x =
 * kk/128 + r0 with kk = round(128 x) the low word of 1.5*2^52 + 128 x (128 x
 * exact) and r0 = x - kk/128 exact (|r0| <= 2^-8: x itself for kk = 0, else a
 * multiple of 2^-31), 2^x = 2^e 2^(j/128) 2^r0 with 2^r0 - 1 the degree-4
 * series p in r0 (CN_ML_X2C*, the first term r0 log(2) off the critical path).
 * The remainder (2^-49.5), the coefficients (2^-63.2), p's roundings
 * (2^-60.4), the table's high part and v's rounding (2^-53 each) leave v
 * within 2^-49.29 of 2^(j/128) 2^r0: below 2^-46, cn_mb_decided_normal's
 * bound. An integer x gives r0 = 0, j = 0, p = 0, v = 1 and 2^x exactly. The
 * result is (float)v with e = (kk - j)/128 added to its exponent field: on
 * [-126, 128) that is the product, a normal float, as in pow (e = -126 with
 * j = 0 only at kk = -16128, where r0 = x + 126 >= 0 and v >= 1; e = 128
 * only at kk = 16384, where r0 <= -2^-17 and (float)v < 1). */
static inline CN_HD float cn_me_exp2_first32(double x, int *ok)
{
    double t = cn_mb_mad(x, 128.0, 0x1.8p52);
    uint32_t kk = (uint32_t)cn_mb_bits64(t);
    double r0 = cn_mb_mad(t - 0x1.8p52, -0x1p-7, x), r2 = r0 * r0;
    double p = cn_mb_mad(r2, cn_mb_mad(r2, CN_ML_X2C4, cn_mb_mad(r0, CN_ML_X2C3, CN_ML_X2C2)), r0 * CN_ML_LN2);
    double tj = cn_ml_exp_row((int)(kk & 127)).hi;
    double y = cn_mb_mad(tj, p, tj);
    *ok = cn_mb_decided_normal(y);
    return cn_mb_f32(cn_mb_bits32((float)y) + ((kk & ~127u) << 16)); /* times 2^e, e = (kk - j)/128 */
}
#endif

/* expm1(x) in double for an f32-sized x (2x of an f32 too), -18 < x < 89:
 * (2^e T - 1) + 2^e (T p + Tlo). x - kd*L1 is exact (both are multiples of
 * 2^-42 once kd != 0), the first difference is exact when it cancels
 * (2^e T in [0.5, 2]), so the error is below 2^-50 relative to expm1; for
 * kd = 0 the result is p = x (1 + x/2 + ...) itself. */
static inline CN_HD double cn_me_expm1_fast(double x)
{
    int e;
    double kd = cn_me_round_mad(x, CN_ML_EXP_INVL);
    int j = cn_me_split(kd, &e);
    double r = cn_mb_mad(-kd, CN_ML_EXP_L2, cn_mb_mad(-kd, CN_ML_EXP_L1, x));
    double r2 = r * r; /* Estrin: r + r^2 ((1/2 + r/6) + r^2 (1/24 + r/120)) */
    double p = cn_mb_mad(r2, cn_mb_mad(r2, cn_mb_mad(r, CN_ML_EC5, CN_ML_EC4), cn_mb_mad(r, CN_ML_EC3, CN_ML_EC2)), r);
    cn_dd tj = cn_ml_exp_row(j);
    double sc = cn_mb_pow2(e), s = tj.hi * sc;
    return (s - 1.0) + cn_mb_mad(s, p, tj.lo * sc);
}

/* ------------------------------------------------------------ the mid path (f64, about 2^-78) */

/* r = x - k*log(2)/128 as a double-double, as cn_ml_exp_acc reduces (|x| < 750). */
static inline CN_HD cn_dd cn_me_reduce(double x, double *kd)
{
    *kd = cn_me_round(x * CN_ML_EXP_INVL);
    cn_dd r = cn_mb_two_sum(x - *kd * CN_ML_EXP_L1, -*kd * CN_ML_EXP_L2);
    r.lo -= *kd * CN_ML_EXP_L3;
    return cn_mb_fast_two_sum(r.hi, r.lo);
}

/* r = (x - k/128) log(2) as a double-double (|x| < 1100): x - k/128 exact. */
static inline CN_HD cn_dd cn_me_reduce2(double x, double *kd)
{
    *kd = cn_me_round(x * 128.0);
    double r0 = x - *kd * 0x1p-7;
    cn_dd r = cn_mb_two_prod(r0, CN_ME_LN2_HI);
    r.lo += r0 * CN_ME_LN2_LO;
    return cn_mb_fast_two_sum(r.hi, r.lo);
}

/* exp(r) - 1 for |r| < 2^-8.4 as an unnormalised double-double, absolute
 * error about 2^-79 and 2^-70 relative to r: r + r^2/2 to 2^-80 relative
 * (cn_ml_square: no full exact product needed), the rest (r^3/6 .. r^7/7!,
 * truncation 2^-83) in double. */
static inline CN_HD cn_dd cn_me_expm1_r(cn_dd r)
{
    double rh = r.hi;
    cn_dd sq = cn_ml_square(rh); /* sq.hi alone is r^2 to 2^-25 only */
    double tail = (sq.hi + sq.lo) * rh * (CN_ML_EC3 + rh * (CN_ML_EC4 + rh * (CN_ML_EC5 + rh * (CN_ML_EC6 + rh * CN_ML_EC7))));
    cn_dd s = cn_mb_fast_two_sum(rh, 0.5 * sq.hi);
    s.lo += r.lo + (0.5 * sq.lo + tail + rh * r.lo);
    return s;
}

/* 2^(j/128) exp(r) in [0.99, 2) as a double-double, about 2^-78 relative. */
static inline CN_HD cn_dd cn_me_exp_mid(cn_dd r, int j)
{
    cn_dd t = cn_ml_exp_row(j), p = cn_me_expm1_r(r);
    cn_dd a = cn_mb_two_prod(t.hi, p.hi);
    cn_dd h = cn_mb_fast_two_sum(t.hi, a.hi);
    h.lo += a.lo + t.hi * p.lo + t.lo + t.lo * p.hi;
    return cn_mb_fast_two_sum(h.hi, h.lo);
}

/* expm1(x) for -38 <= x <= 700 as a double-double: 2^e T - 1 exactly
 * (two_sum), plus 2^e T p with its exact product. */
static inline CN_HD cn_dd cn_me_expm1_mid(double x)
{
    double kd;
    int e;
    cn_dd r = cn_me_reduce(x, &kd);
    int j = cn_me_split(kd, &e);
    cn_dd t = cn_ml_exp_row(j), p = cn_me_expm1_r(r);
    double sc = cn_mb_pow2(e);
    cn_dd a = cn_mb_two_prod(t.hi, p.hi);
    cn_dd u = cn_mb_two_sum(t.hi * sc, -1.0);
    cn_dd h = cn_mb_two_sum(u.hi, a.hi * sc);
    h.lo += u.lo + sc * (a.lo + t.hi * p.lo + t.lo + t.lo * p.hi);
    return cn_mb_fast_two_sum(h.hi, h.lo);
}

/* ------------------------------------------------------------ the accurate path (f32's second try) */

/* expm1(x) for |x| < 2^-5: x (1 + x/2! + ... + x^14/15!), terms from x^7 in
 * double, the rest in double-double Horner form: about 2^-105 relative. */
static inline CN_HD cn_dd cn_me_expm1_series_acc(double x)
{
    cn_dd r = {x, 0.0};
    double q = CN_ML_EC8 + x * (CN_ML_EC9 + x * (CN_ML_EC10 + x * (CN_ME_EC11 + x * (CN_ME_EC12 + x * (CN_ME_EC13 + x * (CN_ME_EC14 + x * CN_ME_EC15))))));
    cn_dd s = cn_mb_dd_add((cn_dd){CN_ML_EC7, CN_ML_EC7_LO}, cn_mb_two_prod(x, q));
    s = cn_ml_horner_step(r, s, CN_ML_EC6, CN_ML_EC6_LO);
    s = cn_ml_horner_step(r, s, CN_ML_EC5, CN_ML_EC5_LO);
    s = cn_ml_horner_step(r, s, CN_ML_EC4, CN_ML_EC4_LO);
    s = cn_ml_horner_step(r, s, CN_ML_EC3, CN_ML_EC3_LO);
    s = cn_ml_horner_step(r, s, CN_ML_EC2, CN_ML_EC2_LO);
    s = cn_ml_horner_step(r, s, CN_ML_EC1, CN_ML_EC1_LO);
    return cn_mb_dd_mul_d(s, x);
}

/* expm1(x) for -18 < x < 89 as a double-double, about 2^-95 relative: the
 * series near 0, else cn_ml_exp_acc minus 1 (cancellation at most 2^5). */
static inline CN_HD cn_dd cn_me_expm1_acc(double x)
{
    if (cn_ml_abs(x) < 0x1p-5)
        return cn_me_expm1_series_acc(x);
    int e;
    cn_dd w = cn_ml_exp_acc((cn_dd){x, 0.0}, &e);
    double sc = cn_mb_pow2(e);
    return cn_mb_dd_add((cn_dd){w.hi * sc, w.lo * sc}, (cn_dd){-1.0, 0.0});
}

/* n / (n + 2) for a double-double n >= 0, about 2^-100 relative. */
static inline CN_HD cn_dd cn_me_over_plus2(cn_dd n)
{
    cn_dd d = cn_mb_dd_add(n, (cn_dd){2.0, 0.0});
    double q1 = n.hi / d.hi;
    cn_dd p = cn_mb_two_prod(q1, d.hi);
    double rem = ((n.hi - p.hi) - p.lo + n.lo) - q1 * d.lo;
    return cn_mb_fast_two_sum(q1, rem / d.hi);
}

/* A double-double with a relative error bound, rounded to f32. */
static inline CN_HD float cn_me_to_f32(cn_dd v, double rel)
{
    int ok;
    return cn_ml_dd_to_f32(v.hi, v.lo, cn_ml_abs(v.hi) * rel, &ok);
}

/* ------------------------------------------------------------ exp */

static CN_MB_COLD float cn_me_exp_slow_f32(double x)
{
    int e;
    cn_dd w = cn_ml_exp_acc((cn_dd){x, 0.0}, &e);
    double sc = cn_mb_pow2(e); /* e in [-151, 128]: the products are exact */
    return cn_me_to_f32((cn_dd){w.hi * sc, w.lo * sc}, 0x1p-88);
}

static inline CN_HD float cn_mr_exp_f32(float x)
{
    double xd = x;
#ifdef CN_MB_FIRST_FMA
    if (x > -87.0f && x < 88.5f) {
        int ok;
        float f = cn_me_exp_first32(xd, &ok);
        return ok ? f : cn_me_exp_slow_f32(xd);
    }
#endif
    if (!(xd < 88.75)) /* exp(88.75) > 2^128; and +inf, NaN (the one quiet NaN: see the end) */
        return x != x ? cn_ml_nan32() : cn_me_inf32();
    if (xd < -104.0) /* exp(-104) < 2^-150; and -inf */
        return 0.0f;
    double v = cn_me_exp_fast(xd);
    if (cn_me_decided(v))
        return (float)v;
    return cn_me_exp_slow_f32(xd);
}

static inline CN_HD double cn_mr_exp_f64(double x)
{
    if (!(x < 709.8)) /* exp(709.8) > 2^1024 */
        return x != x ? x + x : cn_ml_inf64();
    if (x < -745.2) /* exp(-745.2) < 2^-1075 */
        return 0.0;
    double kd;
    int e;
    cn_dd r = cn_me_reduce(x, &kd);
    int j = cn_me_split(kd, &e);
    return cn_ml_scale(cn_me_exp_mid(r, j), e);
}

/* ------------------------------------------------------------ exp2 */

/* 2^x for an integer x (f64), exactly; 2^-1075 is a
 * midpoint and rounds to even, +0, as everything below it does. */
static inline CN_HD double cn_me_exp2_int(double x)
{
    if (x >= 1024.0)
        return cn_ml_inf64();
    if (x < -1074.0)
        return 0.0;
    int k = (int)x;
    return k < -1022 ? cn_mb_f64(1ULL << (k + 1074)) : cn_mb_pow2(k);
}

static CN_MB_COLD float cn_me_exp2_slow_f32(double x)
{
    double kd;
    int e, e2;
    cn_dd r = cn_me_reduce2(x, &kd);
    int j = cn_me_split(kd, &e);
    cn_dd w = cn_mb_dd_mul(cn_ml_exp_row(j), cn_ml_exp_acc(r, &e2)); /* about 2^-99 */
    double sc = cn_mb_pow2(e + e2);
    return cn_me_to_f32((cn_dd){w.hi * sc, w.lo * sc}, 0x1p-88);
}

static inline CN_HD float cn_mr_exp2_f32(float x)
{
    double xd = x;
#ifdef CN_MB_FIRST_FMA
    if (x >= -126.0f && x < 128.0f) {
        int ok;
        float f = cn_me_exp2_first32(xd, &ok);
        return ok ? f : cn_me_exp2_slow_f32(xd);
    }
    if (x != x) /* the one quiet NaN (see the end) */
        return cn_ml_nan32();
#endif
    if (!(xd < 128.0))
        return x != x ? x + x : cn_me_inf32();
    if (xd <= -150.0)
        return 0.0f;
    int ok;
    float f = cn_me_exp2_fast32(xd, &ok);
    return ok ? f : cn_me_exp2_slow_f32(xd);
}

static inline CN_HD double cn_mr_exp2_f64(double x)
{
    if (!(x < 1024.0))
        return x != x ? x + x : cn_ml_inf64();
    if (x <= -1075.0)
        return 0.0;
    if (x == cn_me_round(x))
        return cn_me_exp2_int(x);
    double kd;
    int e;
    cn_dd r = cn_me_reduce2(x, &kd);
    int j = cn_me_split(kd, &e);
    return cn_ml_scale(cn_me_exp_mid(r, j), e);
}

/* ------------------------------------------------------------ expm1 */

static CN_MB_COLD float cn_me_expm1_slow_f32(double x) { return cn_me_to_f32(cn_me_expm1_acc(x), 0x1p-88); }

static inline CN_HD float cn_mr_expm1_f32(float x)
{
    double xd = x;
    if (!(xd < 88.75))
        return x != x ? x + x : cn_me_inf32();
    if (xd < -18.0) /* e^x < 2^-25.9 < 2^-25: -1 + e^x rounds to -1; and -inf */
        return -1.0f;
    if (xd == 0)
        return x; /* +-0 */
    double v = cn_me_expm1_fast(xd);
    if (cn_me_decided(v))
        return (float)v;
    return cn_me_expm1_slow_f32(xd);
}

static inline CN_HD double cn_mr_expm1_f64(double x)
{
    if (!(x < 709.8))
        return x != x ? x + x : cn_ml_inf64();
    if (x < -38.0) /* e^x < 2^-54.8: rounds to -1; and -inf */
        return -1.0;
    if (x == 0)
        return x;
    if (x > 700.0) /* the 1 is below 2^-960 of an ulp */
        return cn_mr_exp_f64(x);
    cn_dd m = cn_me_expm1_mid(x);
    return m.hi + m.lo;
}

/* ------------------------------------------------------------ tanh */

static CN_MB_COLD float cn_me_tanh_slow_f32(double a)
{
    return cn_me_to_f32(cn_me_over_plus2(cn_me_expm1_acc(2.0 * a)), 0x1p-87);
}

/* The range tests are on |x|'s bits, integers: 0x4111999a is the first
 * float above 9.1, 0x39000000 is 2^-13 (a NaN's bits are above inf's). */
static inline CN_HD float cn_mr_tanh_f32(float x)
{
    uint32_t ua = cn_mb_bits32(x) & 0x7fffffffu;
    if (!(ua < 0x4111999au)) /* 1 - tanh(9.1) < 2^-25.2: rounds to 1; and inf */
        return x != x ? cn_ml_nan32() : (x < 0 ? -1.0f : 1.0f);
    if (ua < 0x39000000u) /* tanh(x) = x - x^3/3, within a quarter ulp of x; and +-0 */
        return x;
    int ok;
    double a = cn_mb_f32(ua);
#ifdef CN_MB_FIRST_FMA
    float f = cn_me_tanh_first32(ua, &ok);
#else
    double m = cn_me_expm1_fast(2.0 * a), t = cn_mb_div_first(m, m + 2.0);
    float f = (float)t;
    ok = cn_me_decided(t);
#endif
    if (!ok)
        f = cn_me_tanh_slow_f32(a);
    return cn_mb_f32(cn_mb_bits32(f) | (cn_mb_bits32(x) & 0x80000000u)); /* f > 0: the sign of x */
}

static inline CN_HD double cn_mr_tanh_f64(double x)
{
    double a = cn_ml_abs(x);
    if (!(a < 20.0)) /* 1 - tanh(20) < 2^-56: rounds to 1; and inf */
        return x != x ? x + x : (x < 0 ? -1.0 : 1.0);
    if (a < 0x1p-28)
        return x;
    cn_dd t = cn_me_over_plus2(cn_me_expm1_mid(2.0 * a));
    double r = t.hi + t.lo;
    return x < 0 ? -r : r;
}


/* The public names: every NaN result is the one quiet NaN (cn_mb_canon32/64), so that NaN bits
 * agree too (x86 keeps an input NaN's payload and makes 0xffc00000, the GPU makes 0x7fffffff).
 * f32 exp and tanh make a NaN only from a NaN, in their first test, and return the quiet NaN there:
 * two instructions fewer in a device map (tests/math/test_math_nan.sh holds them to it). */
static inline CN_HD float cn_math_exp_f32(float x) { return cn_mr_exp_f32(x); }
static inline CN_HD double cn_math_exp_f64(double x) { return cn_mb_canon64(cn_mr_exp_f64(x)); }
#ifdef CN_MB_FIRST_FMA /* f32 exp2 with its FMA first try returns the quiet NaN in cn_mr_exp2_f32 */
static inline CN_HD float cn_math_exp2_f32(float x) { return cn_mr_exp2_f32(x); }
#else
static inline CN_HD float cn_math_exp2_f32(float x) { return cn_mb_canon32(cn_mr_exp2_f32(x)); }
#endif
static inline CN_HD double cn_math_exp2_f64(double x) { return cn_mb_canon64(cn_mr_exp2_f64(x)); }
static inline CN_HD float cn_math_expm1_f32(float x) { return cn_mb_canon32(cn_mr_expm1_f32(x)); }
static inline CN_HD double cn_math_expm1_f64(double x) { return cn_mb_canon64(cn_mr_expm1_f64(x)); }
static inline CN_HD float cn_math_tanh_f32(float x) { return cn_mr_tanh_f32(x); }
static inline CN_HD double cn_math_tanh_f64(double x) { return cn_mb_canon64(cn_mr_tanh_f64(x)); }

#endif
