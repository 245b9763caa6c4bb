/*
 * cairn_math_trig.h: sin and cos, the same bits on the host and the GPU.
 *
 * sin f32: correctly rounded
 * cos f32: correctly rounded
 * sin f64: <= 0.51 ulp
 * cos f64: <= 0.51 ulp
 *
 * Method. Every finite x is written x = q * pi/2 + r with |r| <= pi/4 (a
 * hair more where the nearest q is misjudged by one), and sin or cos of x is
 * +-sin r or +-cos r by q mod 4. The reduction is where the accuracy goes:
 *   - |x| < 2^20: Cody-Waite. pi/2 = P1 + P2 + P3 + P4, the first three of
 *     33 bits, so k * Pi is exact for the k that occur (< 2^20), x - k * P1
 *     is exact (Sterbenz) and the rest is summed in double-double: about 150
 *     bits of pi/2, an absolute error near 2^-130 in r;
 *   - larger x (to 2^1024): Payne-Hanek. x = m * 2^e with m a 53-bit
 *     integer; the bits of 2/pi whose product with x is a multiple of 4 are
 *     skipped, and m is multiplied exactly, in 32-bit limbs, by the next
 *     7 words (224 bits) of 2/pi. The product's two bits above the binary
 *     point are q mod 4, the bits below are the fraction f (at least 191
 *     of them, truncation error under 2^-138); f >= 1/2 takes q + 1 and
 *     f - 1 (negated in two's complement, so nothing cancels), and
 *     r = f * pi/2 in double-double. The doubles closest to a multiple of
 *     pi/2 have |r| near 2^-61 (6381956970095103 * 2^797 is the worst), so
 *     r keeps a relative error under 2^-70 for every double.
 * The table of 2/pi and every coefficient come from tools/gen_math_trig.c
 * (MPFR); the test checks that the header holds exactly what it prints.
 *
 * f64: sin r = r + r^3 P(r^2) and cos r = 1 + r^2 Q(r^2), the Taylor series
 * cut after r^17 and r^18 (alternating and decreasing on |r| <= pi/4, so the
 * cut costs less than the first term left out: 2^-62 and 2^-68 relative).
 * The terms that carry weight (r, r^3/6, r^2/2, r^4/24, r^2 and r^3
 * themselves) are double-double, the rest double; the sum is rounded once at
 * the end, so the error is the final rounding's half ulp plus about 2^-60
 * relative (0.004 ulp at worst): the claim of 0.51 ulp has margin.
 *
 * f32: x in double, reduced (in double by Cody-Waite below 2^20: absolute
 * error under 2^-77 plus 2^-52 |r|; by Payne-Hanek above), the same series
 * evaluated in double (relative error under 2^-50), and the result rounded
 * to f32 when every real within 2^-48 |y| (+ 2^-76 after a reduction) of it
 * rounds to one float (cn_mb_rounds_same). Otherwise (about one input in
 * 2^22) the accurate path: the double-double reduction and the series to
 * r^23 / r^24 wholly in double-double (relative error near 2^-82), rounded
 * to f32 with the double-double's low part deciding a tie of its high part.
 * Nonzero sin x and cos x are never a float or a midpoint (Lindemann), and
 * every f32 input is within reach of that precision: checked on all 2^32
 * inputs (check_trig --exhaustive). Under CN_MB_FIRST_FMA (cairn_math_base.h)
 * the first try is cn_mt_first32's instead: Cody-Waite in three
 * multiply-adds, one seven-term series (sin's or cos's, picked by the
 * quadrant, not both) in Estrin form, and cn_mb_decided_normal's test at
 * 2^-46 (its error: 2^-50.7 for sin, 2^-48.89 for cos).
 *
 * Special values: sin(+-0) = +-0, cos(+-0) = 1, sin and cos of +-inf or
 * NaN are NaN. Small arguments return x (sin) or 1 (cos) directly, which is
 * the correctly rounded value there (|x| < 2^-12 in f32, 2^-27 in f64).
 */
#ifndef CAIRN_MATH_TRIG_H
#define CAIRN_MATH_TRIG_H

#include "cairn_math_base.h"

/* ------------------------------------------------------------ constants (tools/gen_math_trig.c) */

#define CN_MT_PIO2_1 0x1.921fb544p+0
#define CN_MT_PIO2_2 0x1.0b4611a6p-34
#define CN_MT_PIO2_3 0x1.3198a2ep-69
#define CN_MT_PIO2_4 0x1.b839a252049c1p-104
#define CN_MT_PIO2_HI 0x1.921fb54442d18p+0
#define CN_MT_PIO2_LO 0x1.1a62633145c07p-54
#define CN_MT_INV_PIO2 0x1.45f306dc9c883p-1

/* Words of 2/pi the Payne-Hanek reduction multiplies x's mantissa by. */
#define CN_MT_WINDOW 7

/* A reduced argument: x = q * pi/2 + r (q mod 4), r a double-double. */
typedef struct {
    cn_dd r;
    int q;
} cn_mt_red;

static inline CN_HD double cn_mt_abs(double x) { return cn_mb_f64(cn_mb_bits64(x) & 0x7fffffffffffffffULL); }

/* (-1)^j / (2j+1)!, j = i + 1: the coefficients of sin past r. */
static inline CN_HD double cn_mt_sin_coef(int i)
{
    static const double c[8] = {
        /* sin: (-1)^j / (2j+1)! */
        -0x1.5555555555555p-3, /* -1/3! */
        0x1.1111111111111p-7, /* 1/5! */
        -0x1.a01a01a01a01ap-13, /* -1/7! */
        0x1.71de3a556c734p-19, /* 1/9! */
        -0x1.ae64567f544e4p-26, /* -1/11! */
        0x1.6124613a86d09p-33, /* 1/13! */
        -0x1.ae7f3e733b81fp-41, /* -1/15! */
        0x1.952c77030ad4ap-49, /* 1/17! */
    };
    return c[i];
}

/* (-1)^j / (2j)!, j = i + 1: the coefficients of cos past 1. */
static inline CN_HD double cn_mt_cos_coef(int i)
{
    static const double c[9] = {
        /* cos: (-1)^j / (2j)! */
        -0x1p-1, /* -1/2! */
        0x1.5555555555555p-5, /* 1/4! */
        -0x1.6c16c16c16c17p-10, /* -1/6! */
        0x1.a01a01a01a01ap-16, /* 1/8! */
        -0x1.27e4fb7789f5cp-22, /* -1/10! */
        0x1.1eed8eff8d898p-29, /* 1/12! */
        -0x1.93974a8c07c9dp-37, /* -1/14! */
        0x1.ae7f3e733b81fp-45, /* 1/16! */
        -0x1.6827863b97d97p-53, /* -1/18! */
    };
    return c[i];
}

/* The same as double-doubles, further: the accurate path's. */
static inline CN_HD cn_dd cn_mt_sin_coef_dd(int i)
{
    static const double c[11][2] = {
        /* sin, double-double: (-1)^j / (2j+1)! */
        {-0x1.5555555555555p-3, -0x1.5555555555555p-57}, /* -1/3! */
        {0x1.1111111111111p-7, 0x1.1111111111111p-63}, /* 1/5! */
        {-0x1.a01a01a01a01ap-13, -0x1.a01a01a01a01ap-73}, /* -1/7! */
        {0x1.71de3a556c734p-19, -0x1.c154f8ddc6cp-73}, /* 1/9! */
        {-0x1.ae64567f544e4p-26, 0x1.c062e06d1f209p-80}, /* -1/11! */
        {0x1.6124613a86d09p-33, 0x1.f28e0cc748ebep-87}, /* 1/13! */
        {-0x1.ae7f3e733b81fp-41, -0x1.1d8656b0ee8cbp-97}, /* -1/15! */
        {0x1.952c77030ad4ap-49, 0x1.ac981465ddc6cp-103}, /* 1/17! */
        {-0x1.2f49b46814157p-57, -0x1.2650f61dbdcb4p-112}, /* -1/19! */
        {0x1.71b8ef6dcf572p-66, -0x1.d043ae40c4647p-120}, /* 1/21! */
        {-0x1.761b41316381ap-75, 0x1.3423c7d91404fp-130}, /* -1/23! */
    };
    return (cn_dd){c[i][0], c[i][1]};
}

static inline CN_HD cn_dd cn_mt_cos_coef_dd(int i)
{
    static const double c[12][2] = {
        /* cos, double-double: (-1)^j / (2j)! */
        {-0x1p-1, 0x0p+0}, /* -1/2! */
        {0x1.5555555555555p-5, 0x1.5555555555555p-59}, /* 1/4! */
        {-0x1.6c16c16c16c17p-10, 0x1.f49f49f49f49fp-65}, /* -1/6! */
        {0x1.a01a01a01a01ap-16, 0x1.a01a01a01a01ap-76}, /* 1/8! */
        {-0x1.27e4fb7789f5cp-22, -0x1.cbbc05b4fa99ap-76}, /* -1/10! */
        {0x1.1eed8eff8d898p-29, -0x1.2aec959e14c06p-83}, /* 1/12! */
        {-0x1.93974a8c07c9dp-37, -0x1.05d6f8a2efd1fp-92}, /* -1/14! */
        {0x1.ae7f3e733b81fp-45, 0x1.1d8656b0ee8cbp-101}, /* 1/16! */
        {-0x1.6827863b97d97p-53, -0x1.eec01221a8b0bp-107}, /* -1/18! */
        {0x1.e542ba4020225p-62, 0x1.ea72b4afe3c2fp-120}, /* 1/20! */
        {-0x1.0ce396db7f853p-70, 0x1.aebcdbd20331cp-124}, /* -1/22! */
        {0x1.f2cf01972f578p-80, -0x1.9ada5fcc1ab14p-135}, /* 1/24! */
    };
    return (cn_dd){c[i][0], c[i][1]};
}

/* ------------------------------------------------------------ double-double helpers */

/* a + b for a double b: relative error near 2^-105 of the sum. */
static inline CN_HD cn_dd cn_mt_dd_add_d(cn_dd a, double b)
{
    cn_dd s = cn_mb_two_sum(a.hi, b);
    s.lo += a.lo;
    return cn_mb_fast_two_sum(s.hi, s.lo);
}

static inline CN_HD cn_dd cn_mt_dd_neg(cn_dd a) { return (cn_dd){-a.hi, -a.lo}; }

/* r^2, to about 2^-104. */
static inline CN_HD cn_dd cn_mt_square(cn_dd r)
{
    cn_dd z = cn_mb_two_prod(r.hi, r.hi);
    z.lo += 2.0 * r.hi * r.lo;
    return cn_mb_fast_two_sum(z.hi, z.lo);
}

/* ------------------------------------------------------------ reduction */

/* pi/4 < |x| < 2^20: Cody-Waite in double-double. k < 2^20, so k * P1,
 * k * P2, k * P3 are exact, x - k * P1 is exact and the sums that follow
 * lose at most 2^-53 of a term near 2^-66 (absolute error near 2^-119; the
 * pieces share a grid of 2^-101, so near a cancellation they are exact). */
static inline CN_HD cn_mt_red cn_mt_reduce_medium(double x)
{
    double k = (x * CN_MT_INV_PIO2 + 0x1.8p52) - 0x1.8p52; /* nearest integer, or one off at a tie */
    double t = x - k * CN_MT_PIO2_1;
    cn_dd r = cn_mb_two_sum(t, -k * CN_MT_PIO2_2);
    r = cn_mt_dd_add_d(r, -k * CN_MT_PIO2_3);
    r = cn_mt_dd_add_d(r, -k * CN_MT_PIO2_4);
    return (cn_mt_red){r, (int)((int64_t)k & 3)};
}

/* p[0..W+1] = m * (w[0..W-1] read as one big-endian integer), exactly. */
static inline CN_HD void cn_mt_mul_window(uint32_t *p, uint64_t m, const uint32_t *w)
{
    uint32_t ml = (uint32_t)m, mh = (uint32_t)(m >> 32);
    uint64_t c = 0;
    for (int j = 0; j < CN_MT_WINDOW; j++) {
        c += (uint64_t)w[CN_MT_WINDOW - 1 - j] * ml;
        p[j] = (uint32_t)c;
        c >>= 32;
    }
    p[CN_MT_WINDOW] = (uint32_t)c;
    c = 0;
    for (int j = 0; j < CN_MT_WINDOW; j++) {
        c += (uint64_t)w[CN_MT_WINDOW - 1 - j] * mh + p[j + 1];
        p[j + 1] = (uint32_t)c;
        c >>= 32;
    }
    p[CN_MT_WINDOW + 1] = (uint32_t)c;
}

static inline CN_HD int cn_mt_bit(const uint32_t *p, int i) { return (int)(p[i >> 5] >> (i & 31)) & 1; }

/* Keeps the bits of p below bit `point` (p has W + 2 limbs). */
static inline CN_HD void cn_mt_keep_below(uint32_t *p, int point)
{
    p[point >> 5] &= ((uint32_t)1 << (point & 31)) - 1;
    for (int j = (point >> 5) + 1; j < CN_MT_WINDOW + 2; j++)
        p[j] = 0;
}

/* p = -p in two's complement over all its limbs. */
static inline CN_HD void cn_mt_negate(uint32_t *p)
{
    uint64_t c = 1;
    for (int j = 0; j < CN_MT_WINDOW + 2; j++) {
        c += (uint32_t)~p[j];
        p[j] = (uint32_t)c;
        c >>= 32;
    }
}

/* p * 2^-point as a double-double: limbs summed from the top, each exact. */
static inline CN_HD cn_dd cn_mt_limbs_to_dd(const uint32_t *p, int point)
{
    cn_dd a = {0.0, 0.0};
    for (int j = CN_MT_WINDOW + 1; j >= 0; j--)
        if (p[j])
            a = cn_mt_dd_add_d(a, (double)p[j] * cn_mb_pow2(32 * j - point));
    return a;
}

/* |x| >= 2^20, finite: Payne-Hanek (see the top of the file). */
static inline CN_HD cn_mt_red cn_mt_reduce_big(double x)
{
    static const uint32_t w[38] = {
        /* 2/pi, 32 bits a word */
        0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041,
        0xfe5163ab, 0xdebbc561, 0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c,
        0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41,
        0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
        0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d,
        0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08,
        0x56033046, 0xfc7b6bab,
    };
    uint64_t b = cn_mb_bits64(x);
    int e = (int)((b >> 52) & 0x7ff) - 1075; /* |x| = m * 2^e, e >= -33 */
    uint64_t m = (b & 0xfffffffffffffULL) | (1ULL << 52);
    /* word i contributes m * w[i] * 2^(e - 32 (i + 1)): a multiple of 4 while
     * 32 (i + 1) <= e - 2, so the first i0 words are skipped */
    int i0 = e >= 34 ? (e - 2) / 32 : 0;
    int point = 32 * CN_MT_WINDOW - (e - 32 * i0); /* in [191, 257] */
    uint32_t p[CN_MT_WINDOW + 2];
    cn_mt_mul_window(p, m, w + i0);
    int q = cn_mt_bit(p, point) + 2 * cn_mt_bit(p, point + 1);
    cn_mt_keep_below(p, point);
    int past_half = cn_mt_bit(p, point - 1);
    if (past_half) { /* f - 1 = -(2^point - p) * 2^-point */
        q++;
        cn_mt_negate(p);
        cn_mt_keep_below(p, point);
    }
    cn_dd r = cn_mb_dd_mul(cn_mt_limbs_to_dd(p, point), (cn_dd){CN_MT_PIO2_HI, CN_MT_PIO2_LO});
    if (past_half)
        r = cn_mt_dd_neg(r);
    if (x < 0.0)
        return (cn_mt_red){cn_mt_dd_neg(r), -q & 3};
    return (cn_mt_red){r, q & 3};
}

/* Any finite x. */
static inline CN_HD cn_mt_red cn_mt_reduce(double x)
{
    double ax = cn_mt_abs(x);
    if (ax <= 0x1.921fb54442d18p-1) /* pi/4 */
        return (cn_mt_red){{x, 0.0}, 0};
    if (ax < 0x1p20)
        return cn_mt_reduce_medium(x);
    return cn_mt_reduce_big(x);
}

/* ------------------------------------------------------------ f64 kernels (|r| <= pi/4 + 2^-40) */

/* sin r = r + r^3 (-1/6 + r^2 T(r^2)): -1/6, r^2, r^3 and the sum in
 * double-double, T (at most 0.03 of the bracket) in double. */
static inline CN_HD double cn_mt_sin_kernel(cn_dd r)
{
    cn_dd z = cn_mt_square(r);
    double zh = z.hi, t = cn_mt_sin_coef(7);
    for (int i = 6; i >= 1; i--)
        t = cn_mt_sin_coef(i) + zh * t;
    cn_dd c3 = cn_mt_sin_coef_dd(0);
    cn_dd p = cn_mb_two_sum(c3.hi, zh * t);
    p.lo += c3.lo;
    cn_dd u = cn_mb_dd_mul(cn_mb_dd_mul(r, z), p); /* |u| <= 0.11 |r| */
    cn_dd y = cn_mb_fast_two_sum(r.hi, u.hi);
    return y.hi + (y.lo + (r.lo + u.lo));
}

/* cos r = 1 + r^2 (-1/2 + r^2/24 + r^4 T(r^2)): r^2, r^2/24 and the sums in
 * double-double, r^4 T (at most 0.0011 of the bracket) in double. */
static inline CN_HD double cn_mt_cos_kernel(cn_dd r)
{
    cn_dd z = cn_mt_square(r);
    double zh = z.hi, t = cn_mt_cos_coef(8);
    for (int i = 7; i >= 2; i--)
        t = cn_mt_cos_coef(i) + zh * t;
    cn_dd a = cn_mb_dd_mul(z, cn_mt_cos_coef_dd(1));
    cn_dd q = cn_mb_two_sum(-0.5, a.hi);
    q.lo += a.lo + (zh * zh) * t;
    cn_dd u = cn_mb_dd_mul(z, q); /* -0.31 <= u <= 0 */
    cn_dd y = cn_mb_fast_two_sum(1.0, u.hi);
    return y.hi + (y.lo + u.lo);
}

/* ------------------------------------------------------------ f32 kernels: double, relative error < 2^-50 */

static inline CN_HD double cn_mt_sin_fast(double r)
{
    double z = r * r, t = cn_mt_sin_coef(7);
    for (int i = 6; i >= 0; i--)
        t = cn_mt_sin_coef(i) + z * t;
    return r + (r * z) * t;
}

static inline CN_HD double cn_mt_cos_fast(double r)
{
    double z = r * r, t = cn_mt_cos_coef(7);
    for (int i = 6; i >= 0; i--)
        t = cn_mt_cos_coef(i) + z * t;
    return 1.0 + z * t;
}

/* ------------------------------------------------------------ accurate path: double-double throughout */

static inline CN_HD cn_dd cn_mt_sin_dd(cn_dd r)
{
    cn_dd z = cn_mt_square(r), t = cn_mt_sin_coef_dd(10);
    for (int i = 9; i >= 0; i--)
        t = cn_mb_dd_add(cn_mt_sin_coef_dd(i), cn_mb_dd_mul(z, t));
    return cn_mb_dd_add(r, cn_mb_dd_mul(cn_mb_dd_mul(r, z), t));
}

static inline CN_HD cn_dd cn_mt_cos_dd(cn_dd r)
{
    cn_dd z = cn_mt_square(r), t = cn_mt_cos_coef_dd(11);
    for (int i = 10; i >= 0; i--)
        t = cn_mb_dd_add(cn_mt_cos_coef_dd(i), cn_mb_dd_mul(z, t));
    return cn_mb_dd_add((cn_dd){1.0, 0.0}, cn_mb_dd_mul(z, t));
}

/* Whether the double d lies exactly halfway between two floats. */
static inline CN_HD int cn_mt_f32_midpoint(double d)
{
    double a = cn_mt_abs(d);
    if (a >= 0x1p-126) /* normal floats: the 29 bits a float drops are 100...0 */
        return (cn_mb_bits64(d) & 0x1fffffffULL) == 0x10000000ULL;
    double t = a * 0x1p149, t2 = 2.0 * t; /* exact; a float is an integer here */
    return (double)(int64_t)t != t && (double)(int64_t)t2 == t2;
}

/* A double-double (|lo| well above its own error) rounded once to f32: the
 * high part decides, unless it is a tie, which the low part breaks. */
static inline CN_HD float cn_mt_dd_to_f32(cn_dd y)
{
    if (y.lo == 0.0 || !cn_mt_f32_midpoint(y.hi))
        return (float)y.hi;
    uint64_t b = cn_mb_bits64(y.hi);
    b += ((y.lo > 0.0) == (y.hi > 0.0)) ? 1 : (uint64_t)-1; /* one double toward the low part */
    return (float)cn_mb_f64(b);
}

/* sin (shift 0) or cos (shift 1) of the reduced argument, as a double-double. */
static inline CN_HD cn_dd cn_mt_eval_dd(cn_mt_red red, int shift)
{
    int q = (red.q + shift) & 3;
    cn_dd y = (q & 1) ? cn_mt_cos_dd(red.r) : cn_mt_sin_dd(red.r);
    return (q & 2) ? cn_mt_dd_neg(y) : y;
}

/* ------------------------------------------------------------ the functions */

/* +-sin r or +-cos r for quadrant q, without a branch: the quadrant of a
 * random argument is random, and a mispredicted branch costs more than
 * evaluating both series (which run side by side). */
static inline CN_HD double cn_mt_pick(double s, double c, int q)
{
    uint64_t take_c = (uint64_t)0 - (uint64_t)(q & 1);
    uint64_t b = (cn_mb_bits64(s) & ~take_c) | (cn_mb_bits64(c) & take_c);
    return cn_mb_f64(b ^ ((uint64_t)(q & 2) << 62));
}

/* sin x (shift 0) or cos x = sin(x + pi/2) (shift 1), x finite, |x| >= 2^-27. */
static inline CN_HD double cn_mt_trig_f64(double x, int shift)
{
    cn_mt_red red = cn_mt_reduce(x);
    int q = (red.q + shift) & 3;
    double y = (q & 1) ? cn_mt_cos_kernel(red.r) : cn_mt_sin_kernel(red.r);
    return (q & 2) ? -y : y;
}

/* pi/4 < |x| < 2^20 for f32: Cody-Waite in double, absolute error under
 * 2^-52 |r| + 2^-77 (k * P4 dropped: k < 2^20, P4 < 2^-99). */
static inline CN_HD double cn_mt_reduce_f32(double x, int *q)
{
    double k = (x * CN_MT_INV_PIO2 + 0x1.8p52) - 0x1.8p52;
    *q = (int)((int64_t)k & 3);
    return ((x - k * CN_MT_PIO2_1) - k * CN_MT_PIO2_2) - k * CN_MT_PIO2_3;
}

#ifdef CN_MB_FIRST_FMA
#ifdef __cplusplus
#define CN_MT_ALIGN128 alignas(128)
#else
#define CN_MT_ALIGN128 _Alignas(128)
#endif

/* The FMA first try's coefficients: row 0 sin's past r, (-1)^j / (2j+1)!,
 * j = 1 .. 7; row 1 cos's past 1, (-1)^j / (2j)!, j = 1 .. 7 (one 128-byte
 * line with the padding). */
static inline CN_HD const double *cn_mt_first_coefs(int odd)
{
    CN_MT_ALIGN128 static const double c[2][8] = {
        {
            -0x1.5555555555555p-3, /* -1/3! */
            0x1.1111111111111p-7, /* 1/5! */
            -0x1.a01a01a01a01ap-13, /* -1/7! */
            0x1.71de3a556c734p-19, /* 1/9! */
            -0x1.ae64567f544e4p-26, /* -1/11! */
            0x1.6124613a86d09p-33, /* 1/13! */
            -0x1.ae7f3e733b81fp-41, /* -1/15! */
            0.0,
        },
        {
            -0x1p-1, /* -1/2! */
            0x1.5555555555555p-5, /* 1/4! */
            -0x1.6c16c16c16c17p-10, /* -1/6! */
            0x1.a01a01a01a01ap-16, /* 1/8! */
            -0x1.27e4fb7789f5cp-22, /* -1/10! */
            0x1.1eed8eff8d898p-29, /* 1/12! */
            -0x1.93974a8c07c9dp-37, /* -1/14! */
            0.0,
        },
    };
    return c[odd];
}

/* +-sin r (q even) or +-cos r (q odd), the sign - for q & 2, rounded to f32,
 * the FMA first try: y = v + (v z) P(z), z = r^2, v = +-r or +-1 and P the row
 * of cn_mt_first_coefs that q picks, in Estrin form: one series evaluated,
 * picked by a load's index and a bit mask, not a branch (the quadrant of a
 * random argument is random). r is within 2^-51.65 |r| of the reduced
 * argument r* (cn_mt_first32), |r|, |r*| <= R = pi/4 + 2^-30. The numbers
 * below are tools/gen_math_first_fma.c's.
 *
 * sin (v = +-r): |sin r - sin r*| <= |r - r*|; v z = r^3 to 2^-52, times
 * |P| <= 1/6 and r^2 <= 0.617: 2^-53 0.206 |r|; P's roundings (the Estrin
 * brackets: the last two within 2^-53 of |P| <= 0.167 each, the rest far
 * smaller), z's through P (2^-60), and the coefficients' errors (2^-56.57)
 * times |r|^3: 2^-53 0.263 |r|; the series' first dropped term r^17/17! <=
 * 2^-53.76 |sin r|; y's rounding 2^-53. With |r| <= 1.1108 |sin r|, y is
 * within 2^-50.7 |sin r*| of sin r*.
 *
 * cos (v = +-1, v z = +-z exactly): |cos r - cos r*| <= sin(R) |r - r*| <=
 * 2^-53 1.11; z's rounding times |P| <= 1/2: 2^-53 0.31; P's roundings times
 * z (within 2^-53 of |P| twice): 2^-53 0.62; the coefficients' errors (2^-59.26)
 * and P's slope: 2^-53 0.03; the dropped r^16/16! <= 2^-49.82; y's rounding
 * 2^-53: 2^-53 12.2 in all, which cos r* >= cos R = 0.7071 makes 2^-48.89
 * relative.
 *
 * Both are below 2^-46, cn_mb_decided_normal's bound, and y is in f32's
 * normal range: |y| >= 0.9 |r| >= 2^-30.2 (the test |r| >= 2^-30, which also
 * makes the reduction's absolute 2^-83.86 relative) or |y| > 0.7. */
static inline CN_HD float cn_mt_first_eval(double r, uint32_t q, int *ok)
{
    const double *c = cn_mt_first_coefs((int)(q & 1));
    uint64_t odd = (uint64_t)0 - (uint64_t)(q & 1);
    double v = cn_mb_f64(((cn_mb_bits64(r) & ~odd) | (0x3ff0000000000000ULL & odd)) ^ ((uint64_t)(q & 2) << 62));
    double z = r * r, z2 = z * z;
    double e0 = cn_mb_mad(z, c[1], c[0]), e1 = cn_mb_mad(z, c[3], c[2]);
    double e2 = cn_mb_mad(z2, c[6], cn_mb_mad(z, c[5], c[4]));
    double y = cn_mb_mad(v * z, cn_mb_mad(z2, cn_mb_mad(z2, e2, e1), e0), v);
    *ok = cn_mb_decided_normal(y) & (cn_mt_abs(r) >= 0x1p-30);
    return (float)y;
}

/* sin (shift 0) or cos (shift 1) of a float x, |x| >= 2^-12 and finite,
 * the FMA first try: x = q pi/2 + r*, then cn_mt_first_eval. Below 2^20
 * Cody-Waite in three multiply-adds: 1.5*2^52 + x INV_PIO2, rounded once,
 * holds k = the integer nearest x INV_PIO2 (its low word gives q = k mod 4),
 * which moves x 2/pi by at most 2^-34.49, so |r*| <= pi/4 + 2^-33.8 < R; |k|
 * <= 2^19.35, so k P1, k P2 and k P3 are exact, x - k P1 is exact (multiples
 * of 2^-32 below 1; for k = 0 r = x), t2 = that - k P2 and r = t2 - k P3 are
 * rounded once each (2^-53 |t2| and 2^-53 |r|, |t2| <= |r| + 2^-49.39), and
 * k (pi/2 - P1 - P2 - P3) <= 2^-83.86 is left out: |r - r*| <= 2^-52 |r| +
 * 2^-83.86, within 2^-51.65 |r| for |r| >= 2^-30 (cn_mt_first_eval's test).
 * From 2^20, Payne-Hanek (cn_mt_reduce_big: 2^-70 relative) and its high
 * part: within 2^-52.9 |r|. tools/gen_math_first_fma.c derives the bounds. */
static inline CN_HD float cn_mt_first32(float x, int shift, int *ok)
{
    double xd = x, r;
    uint32_t q;
    if (cn_mt_abs(xd) < 0x1p20) {
        double kb = cn_mb_mad(xd, CN_MT_INV_PIO2, 0x1.8p52), k = kb - 0x1.8p52;
        q = (uint32_t)cn_mb_bits64(kb);
        r = cn_mb_mad(-k, CN_MT_PIO2_3, cn_mb_mad(-k, CN_MT_PIO2_2, cn_mb_mad(-k, CN_MT_PIO2_1, xd)));
    } else {
        cn_mt_red red = cn_mt_reduce_big(xd);
        r = red.r.hi;
        q = (uint32_t)red.q;
    }
    return cn_mt_first_eval(r, q + (uint32_t)shift, ok);
}

/* The second try: the double-double reduction and series. */
static CN_MB_COLD float cn_mt_trig_slow_f32(double xd, int shift)
{
    return cn_mt_dd_to_f32(cn_mt_eval_dd(cn_mt_reduce(xd), shift));
}
#endif

/* sin or cos of a float x, |x| >= 2^-12 and finite, correctly rounded. */
static inline CN_HD float cn_mt_trig_f32(float x, int shift)
{
#ifdef CN_MB_FIRST_FMA
    int ok;
    float f = cn_mt_first32(x, shift, &ok);
    return ok ? f : cn_mt_trig_slow_f32(x, shift);
#else
    double xd = x, ax = cn_mt_abs(xd), r = xd, slack = 0.0;
    int q = 0;
    if (ax >= 0x1p20) {
        cn_mt_red red = cn_mt_reduce_big(xd);
        r = red.r.hi;
        q = red.q;
    } else if (ax > 0x1.921fb54442d18p-1) {
        r = cn_mt_reduce_f32(xd, &q);
        slack = 0x1p-76;
    }
    double y = cn_mt_pick(cn_mt_sin_fast(r), cn_mt_cos_fast(r), (q + shift) & 3);
    if (cn_mb_rounds_same(y, cn_mt_abs(y) * 0x1p-48 + slack))
        return (float)y;
    return cn_mt_dd_to_f32(cn_mt_eval_dd(cn_mt_reduce(xd), shift));
#endif
}

static inline CN_HD float cn_mr_sin_f32(float x)
{
    uint32_t a = cn_mb_bits32(x) & 0x7fffffffu;
#ifdef CN_MB_FIRST_FMA
    if (a >= 0x7f800000u) /* inf or NaN: the one quiet NaN (see the end) */
        return cn_mb_f32(0x7fc00000u);
#else
    if (a >= 0x7f800000u) /* inf or NaN: NaN */
        return x - x;
#endif
    if (a < 0x39800000u) /* |x| < 2^-12: x^3/6 is under a quarter ulp of x */
        return x;
    return cn_mt_trig_f32(x, 0);
}

static inline CN_HD float cn_mr_cos_f32(float x)
{
    uint32_t a = cn_mb_bits32(x) & 0x7fffffffu;
#ifdef CN_MB_FIRST_FMA
    if (a >= 0x7f800000u)
        return cn_mb_f32(0x7fc00000u);
#else
    if (a >= 0x7f800000u)
        return x - x;
#endif
    if (a < 0x39800000u) /* |x| < 2^-12: 1 - x^2/2 rounds to 1 */
        return 1.0f;
    return cn_mt_trig_f32(x, 1);
}

static inline CN_HD double cn_mr_sin_f64(double x)
{
    uint64_t a = cn_mb_bits64(x) & 0x7fffffffffffffffULL;
    if (a >= 0x7ff0000000000000ULL)
        return x - x;
    if (a < 0x3e40000000000000ULL) /* |x| < 2^-27: x^3/6 is under a third of an ulp of x */
        return x;
    return cn_mt_trig_f64(x, 0);
}

static inline CN_HD double cn_mr_cos_f64(double x)
{
    uint64_t a = cn_mb_bits64(x) & 0x7fffffffffffffffULL;
    if (a >= 0x7ff0000000000000ULL)
        return x - x;
    if (a < 0x3e40000000000000ULL) /* |x| < 2^-27: 1 - x^2/2 rounds to 1 */
        return 1.0;
    return cn_mt_trig_f64(x, 1);
}


/* The public names: every NaN result is the one quiet NaN (cn_mb_canon32/64), so that NaN bits
 * agree too (x86 keeps an input NaN's payload and makes 0xffc00000, the GPU makes 0x7fffffff). */
#ifdef CN_MB_FIRST_FMA
/* f32 sin and cos make a NaN only from inf or NaN, in their first test, and return the quiet NaN
 * there. */
static inline CN_HD float cn_math_sin_f32(float x) { return cn_mr_sin_f32(x); }
static inline CN_HD float cn_math_cos_f32(float x) { return cn_mr_cos_f32(x); }
#else
static inline CN_HD float cn_math_sin_f32(float x) { return cn_mb_canon32(cn_mr_sin_f32(x)); }
static inline CN_HD float cn_math_cos_f32(float x) { return cn_mb_canon32(cn_mr_cos_f32(x)); }
#endif
static inline CN_HD double cn_math_sin_f64(double x) { return cn_mb_canon64(cn_mr_sin_f64(x)); }
static inline CN_HD double cn_math_cos_f64(double x) { return cn_mb_canon64(cn_mr_cos_f64(x)); }

#endif
