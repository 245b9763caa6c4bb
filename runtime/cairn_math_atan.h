/*
 * cairn_math_atan.h: portable atan and atan2, f32 and f64.
 *
 * atan f32: correctly rounded
 * atan2 f32: correctly rounded
 * atan f64: <= 0.501 ulp
 * atan2 f64: <= 0.501 ulp
 *
 * Method. atan2(y, x) for finite nonzero x, y is atan(t) with t = n/d, n and
 * d the smaller and larger of |y| and |x| (so t is in (0, 1]), then pi/2 -
 * atan(t) when |y| > |x| ("swapped"), pi minus that when x < 0, and y's sign.
 * Every one of those combinations is at least as large as atan(t) itself
 * (pi/2 - a >= pi/4 >= a, pi - b >= pi/2 >= b), so nothing cancels: the
 * relative error of atan(t) is the result's. atan(x) is atan2(|x|, 1) with
 * x's sign.
 *
 * atan(t), t in [0, 1]: i = round(64 t), c = i/64, and
 * atan(t) = atan(c) + atan(u), u = (t - c) / (1 + t c), |u| <= 2^-7, with
 * atan(c) from a 65-row table of double-doubles (tools/gen_math_atan.c, MPFR)
 * and atan(u) its Taylor series (-1)^k u^(2k+1)/(2k+1), falling by 2^-14 a
 * term. t - c is exact (c is a multiple of t's ulp, |t - c| <= t). For i >= 1,
 * |atan(u)| < 1.1 A and atan(c) < 2 A where A = atan(c) + atan(u): the sum
 * loses at most a factor 2 of relative accuracy. Three evaluations:
 *  - fast (f32): all in double. t = n/d only picks i; u is computed as
 *    (n - c d) / (d + c n), whose numerator and denominator are exact for
 *    f32 n and d, so u is rounded once (2^-53); the series to u^7
 *    (truncation 2^-59 |u|). Relative error below 2^-50 after the
 *    quadrant (u and the series 2 * 1.1 * 2^-53, atan(c) 2 * 2^-53, the sum
 *    and two pi steps 3 * 2^-53); 2^-46 is the bound used;
 *  - mid (f64): t = n/d as a double-double (q = n/d, n - q d exact through
 *    cn_mb_two_prod, lo = (n - q d)/d: 2^-105), u a double-double quotient
 *    (2^-103), u in double-double and u^3 (C3 + ... + C9 u^6) in double
 *    (below 2^-66.5 |u|), all sums double-double: 2^-65 relative, so the f64
 *    result, hi + lo rounded once, is within 0.5 + 2^-12 ulp;
 *  - accurate (f32's second try): the series to u^17 in double-double Horner
 *    form (terms past u^9 in double): about 2^-100 relative.
 * An f32 result is (float)v when every real within 2^-46 |v| of the fast
 * value v rounds to one float (cn_mb_rounds_same); else the accurate value
 * decides against the nearest midpoint (cn_mat_dd_to_f32, margin 2^-90).
 *
 * Exact and near-exact cases. atan(t) for rational t != 0 is transcendental
 * (Lindemann), so a finite nonzero result is never a float or a midpoint;
 * but for tiny t it is within t^3/3 of t, which may be one. Such results are
 * recognised, not computed:
 *  - f32, t < 2^-40, not swapped, x > 0 (result ~ t): a quotient y/x of two
 *    floats is either a midpoint M 2^e (M < 2^25 odd) or at least 2^-51
 *    relative away from every one, and q = y/x rounded to double is within
 *    2^-53: q is a midpoint exactly when t is. atan(t) lies in
 *    (t - t^3/3, t), t^2/3 < 2^-80, so the answer is t rounded with ties
 *    going toward 0: (float) of the double just below q. Underflowing
 *    results (down to 2^-149 and to 0) round correctly there too, since the
 *    double q is normal (t >= 2^-277);
 *  - f32 atan of tiny x: the fast path itself gives x (atan(x) is within
 *    x^3/3 of the float x, far from any midpoint);
 *  - f64, q = n/d < 2^-35: atan(t) = q to 2^-70 relative, so q (the IEEE
 *    quotient, correctly rounded into the subnormals) is within 0.5 + 2^-17
 *    ulp; swapped or x < 0 it enters pi/2 or pi as a double-double.
 * Otherwise f64 scales n and d by 2^-+700 when d is past 2^+-600, so the
 * quotient's error terms neither overflow (Dekker's split) nor underflow;
 * n stays normal since n >= 2^-35 d there.
 * For f32 that no input of atan needs more than the accurate path is what
 * the exhaustive run shows (tests/math/check_atan.c --exhaustive atan); for
 * atan2's 2^64 pairs it is argued as for pow, not shown: about 2^62 pairs
 * with a finite nonzero result, each with a chance of 2^-65 of lying within
 * 2^-90 of a midpoint (an expected 1/8 pair, which the accurate path would
 * round to its nearest guess), and sampled (--exhaustive atan2).
 *
 * Special cases, C Annex F (F.10.1.4), each rounded once for its type:
 * atan2(+-0, -0) = +-pi, atan2(+-0, +0) = +-0, atan2(+-0, x<0) = +-pi,
 * atan2(+-0, x>0) = +-0, atan2(y, +-0) = +-pi/2 (y != 0, its sign),
 * atan2(+-y, -inf) = +-pi and atan2(+-y, +inf) = +-0 (y finite > 0),
 * atan2(+-inf, x) = +-pi/2 (x finite), atan2(+-inf, -inf) = +-3pi/4,
 * atan2(+-inf, +inf) = +-pi/4, NaN in gives NaN. atan(+-0) = +-0,
 * atan(+-inf) = +-pi/2, atan(NaN) = NaN.
 */
#ifndef CAIRN_MATH_ATAN_H
#define CAIRN_MATH_ATAN_H

#include "cairn_math_base.h"

/* ------------------------------------------------------------ constants (tools/gen_math_atan.c) */

#define CN_MAT_PI_HI 0x1.921fb54442d18p+1
#define CN_MAT_PI_LO 0x1.1a62633145c07p-53
#define CN_MAT_PIO2_HI 0x1.921fb54442d18p+0
#define CN_MAT_PIO2_LO 0x1.1a62633145c07p-54
#define CN_MAT_3PIO4 0x1.2d97c7f3321d2p+1
#define CN_MAT_PI_F32 0x1.921fb6p+1
#define CN_MAT_PIO2_F32 0x1.921fb6p+0
#define CN_MAT_PIO4_F32 0x1.921fb6p-1
#define CN_MAT_3PIO4_F32 0x1.2d97c8p+1
/* atan: (-1)^k/(2k+1) */
#define CN_MAT_C3 -0x1.5555555555555p-2
#define CN_MAT_C3_LO -0x1.5555555555555p-56
#define CN_MAT_C5 0x1.999999999999ap-3
#define CN_MAT_C5_LO -0x1.999999999999ap-57
#define CN_MAT_C7 -0x1.2492492492492p-3
#define CN_MAT_C7_LO -0x1.2492492492492p-57
#define CN_MAT_C9 0x1.c71c71c71c71cp-4
#define CN_MAT_C9_LO 0x1.c71c71c71c71cp-58
#define CN_MAT_C11 -0x1.745d1745d1746p-4
#define CN_MAT_C11_LO 0x1.745d1745d1746p-59
#define CN_MAT_C13 0x1.3b13b13b13b14p-4
#define CN_MAT_C13_LO -0x1.3b13b13b13b14p-58
#define CN_MAT_C15 -0x1.1111111111111p-4
#define CN_MAT_C15_LO -0x1.1111111111111p-60
#define CN_MAT_C17 0x1.e1e1e1e1e1e1ep-5
#define CN_MAT_C17_LO 0x1.e1e1e1e1e1e1ep-61

/* ------------------------------------------------------------ helpers */

static inline CN_HD double cn_mat_abs(double a) { return cn_mb_f64(cn_mb_bits64(a) & 0x7fffffffffffffffULL); }
static inline CN_HD int cn_mat_signbit(double a) { return (int)(cn_mb_bits64(a) >> 63); }

/* c ? a : b through masks: compilers turn the ternary into a branch, which
 * inputs of random size mispredict half the time. */
static inline CN_HD double cn_mat_select(int c, double a, double b)
{
    uint64_t m = 0 - (uint64_t)c;
    return cn_mb_f64((cn_mb_bits64(a) & m) | (cn_mb_bits64(b) & ~m));
}

/* Row i of the table: atan(i/64) as a double-double. */
static inline CN_HD cn_dd cn_mat_row(int i)
{
    static const double tab[65][2] = {
        {0x0p+0, 0x0p+0},
        {0x1.fff555bbb729bp-7, -0x1.220c39d4dff5p-61},
        {0x1.ffd55bba97625p-6, -0x1.5ec431444912cp-60},
        {0x1.7fb818430da2ap-5, -0x1.86ef8f794f105p-63},
        {0x1.ff55bb72cfdeap-5, -0x1.c934d86d23f1dp-60},
        {0x1.3f59f0e7c559dp-4, 0x1.ac4ce285df847p-58},
        {0x1.7ee182602f10fp-4, -0x1.cfb654c0c3d98p-58},
        {0x1.be39ebe6f07c3p-4, 0x1.f7b8f29a05987p-58},
        {0x1.fd5ba9aac2f6ep-4, -0x1.cd37686760c17p-59},
        {0x1.1e1fafb043727p-3, -0x1.b485914dacf8cp-59},
        {0x1.3d6eee8c6626cp-3, 0x1.61a3b0ce9281bp-57},
        {0x1.5c9811e3ec26ap-3, -0x1.054ab2c010f3dp-58},
        {0x1.7b97b4bce5b02p-3, 0x1.347b0b4f881cap-58},
        {0x1.9a6a8e96c8626p-3, 0x1.cf601e7b4348ep-59},
        {0x1.b90d7529260a2p-3, 0x1.17b10d2e0e5abp-61},
        {0x1.d77d5df205736p-3, 0x1.c648d1534597ep-57},
        {0x1.f5b75f92c80ddp-3, 0x1.8ab6e3cf7afbdp-57},
        {0x1.09dc597d86362p-2, 0x1.62e47390cb865p-56},
        {0x1.18bf5a30bf178p-2, 0x1.30ca4748b1bf9p-57},
        {0x1.278372057ef46p-2, -0x1.077cdd36dfc81p-56},
        {0x1.362773707ebccp-2, -0x1.963a544b672d8p-57},
        {0x1.44aa436c2af0ap-2, -0x1.5d5e43c55b3bap-56},
        {0x1.530ad9951cd4ap-2, -0x1.2566480884082p-57},
        {0x1.614840309cfe2p-2, -0x1.a725715711fp-56},
        {0x1.6f61941e4def1p-2, -0x1.c63aae6f6e918p-56},
        {0x1.7d5604b63b3f7p-2, 0x1.69c885c2b249ap-56},
        {0x1.8b24d394a1b25p-2, 0x1.b6d0ba3748fa8p-56},
        {0x1.98cd5454d6b18p-2, 0x1.9e6c988fd0a77p-56},
        {0x1.a64eec3cc23fdp-2, -0x1.24dec1b50b7ffp-56},
        {0x1.b3a911da65c6cp-2, 0x1.ae187b1ca504p-56},
        {0x1.c0db4c94ec9fp-2, -0x1.cc1ce70934c34p-56},
        {0x1.cde53432c1351p-2, -0x1.a2cfa4418f1adp-56},
        {0x1.dac670561bb4fp-2, 0x1.a2b7f222f65e2p-56},
        {0x1.e77eb7f175a34p-2, 0x1.0e53dc1bf3435p-56},
        {0x1.f40dd0b541418p-2, -0x1.a3992dc382a23p-57},
        {0x1.0039c73c1a40cp-1, -0x1.b32c949c9d593p-55},
        {0x1.0657e94db30dp-1, -0x1.d5b495f6349e6p-56},
        {0x1.0c6145b5b43dap-1, 0x1.974fa13b5404fp-58},
        {0x1.1255d9bfbd2a9p-1, -0x1.2bdaee1c0ee35p-58},
        {0x1.1835a88be7c13p-1, 0x1.c621cec00c301p-55},
        {0x1.1e00babdefeb4p-1, -0x1.928df287a668fp-58},
        {0x1.23b71e2cc9e6ap-1, 0x1.c421c9f38224ep-57},
        {0x1.2958e59308e31p-1, -0x1.09e73b0c6c087p-56},
        {0x1.2ee628406cbcap-1, 0x1.c5d5e9ff0cf8dp-55},
        {0x1.345f01cce37bbp-1, 0x1.1021137c71102p-55},
        {0x1.39c391cd4171ap-1, -0x1.2304331d8bf46p-55},
        {0x1.3f13fb89e96f4p-1, 0x1.ecf8b492644fp-56},
        {0x1.445065b795b56p-1, -0x1.f76d0163f79c8p-56},
        {0x1.4978fa3269ee1p-1, 0x1.2419a87f2a458p-56},
        {0x1.4e8de5bb6ec04p-1, 0x1.4a33dbeb3796cp-55},
        {0x1.538f57b89061fp-1, -0x1.1bb74abda520cp-55},
        {0x1.587d81f732fbbp-1, -0x1.5e5c9d8c5a95p-56},
        {0x1.5d58987169b18p-1, 0x1.0028e4bc5e7cap-57},
        {0x1.6220d115d7b8ep-1, -0x1.2b785350ee8c1p-57},
        {0x1.66d663923e087p-1, -0x1.6ea6febe8bbbap-56},
        {0x1.6b798920b3d99p-1, -0x1.a80386188c50ep-55},
        {0x1.700a7c5784634p-1, -0x1.8c34d25aadef6p-56},
        {0x1.748978fba8e0fp-1, 0x1.7b2a6165884a1p-59},
        {0x1.78f6bbd5d315ep-1, 0x1.406a08980374p-55},
        {0x1.7d528289fa093p-1, 0x1.560821e2f3aa9p-55},
        {0x1.819d0b7158a4dp-1, -0x1.bf76229d3b917p-56},
        {0x1.85d69576cc2c5p-1, 0x1.6b66e7fc8b8c3p-57},
        {0x1.89ff5ff57f1f8p-1, -0x1.55b9a5e177a1bp-55},
        {0x1.8e17aa99cc05ep-1, -0x1.ec182ab042f61p-56},
        {0x1.921fb54442d18p-1, 0x1.1a62633145c07p-55},
    };
    return (cn_dd){tab[i][0], tab[i][1]};
}

/* n/d as a double-double for 0 < n <= d, both in [2^-700, 2^700] or so:
 * q rounded, n - q d exact (Sterbenz, q d an exact product), to 2^-105. */
static inline CN_HD cn_dd cn_mat_div(double n, double d)
{
    double q = n / d;
    cn_dd p = cn_mb_two_prod(q, d);
    double r = (n - p.hi) - p.lo;
    return cn_mb_fast_two_sum(q, r / d);
}

/* a / b for double-doubles (b near 1 here): one correction step, 2^-103. */
static inline CN_HD cn_dd cn_mat_dd_div(cn_dd a, cn_dd b)
{
    double q1 = a.hi / b.hi;
    cn_dd p = cn_mb_two_prod(q1, b.hi);
    double r = (((a.hi - p.hi) - p.lo) + a.lo) - q1 * b.lo;
    return cn_mb_fast_two_sum(q1, r / b.hi);
}

/* The table's index for t in [0, 1]: |t - i/64| <= 2^-7 (a hair more when
 * t*64 + 0.5 rounds up, which the series' margin covers). */
static inline CN_HD int cn_mat_index(double t) { return (int)(t * 64.0 + 0.5); }

/* u = (t - c) / (1 + t c), c = i/64, i >= 1, as a double-double: t.hi - c is
 * exact and at least |t.lo| unless 0, 1 + t c to 2^-106. */
static inline CN_HD cn_dd cn_mat_reduce(cn_dd t, int i)
{
    double c = i * 0x1p-6;
    cn_dd num = cn_mb_fast_two_sum(t.hi - c, t.lo);
    cn_dd tc = cn_mb_two_prod(t.hi, c);
    cn_dd den = cn_mb_fast_two_sum(1.0, tc.hi);
    den.lo += tc.lo + t.lo * c;
    return cn_mat_dd_div(num, cn_mb_fast_two_sum(den.hi, den.lo));
}

/* ------------------------------------------------------------ the three evaluations */

/* atan(n/d) for f32 values 0 < n <= d (as doubles), in double, t = n/d
 * their rounded quotient: i from t, then u = (n - c d) / (d + c n), whose
 * numerator and denominator are exact (c d and c n have at most 31 bits, and
 * n >= d/129 when i >= 1: each fits in 53 bits), so u is rounded once. Row 0
 * is atan(0) = 0 and c = 0 gives u = n/d: no branch. Relative error below
 * 2^-50.5 (see the opening comment). */
static inline CN_HD double cn_mat_fast(double n, double d, double t)
{
    int i = cn_mat_index(t);
    double c = i * 0x1p-6;
    double u = (n - c * d) / (d + c * n);
    double w = u * u;
    return cn_mat_row(i).hi + (u + u * w * (CN_MAT_C3 + w * (CN_MAT_C5 + w * CN_MAT_C7)));
}

/* atan(t) for a double-double t in (2^-36, 1]: 2^-65 relative. The series
 * past u in double, to u^9 (truncation below 2^-73 |u|). */
static inline CN_HD cn_dd cn_mat_mid(cn_dd t)
{
    int i = cn_mat_index(t.hi);
    cn_dd u = i > 0 ? cn_mat_reduce(t, i) : t;
    double w = u.hi * u.hi;
    double corr = u.hi * w * (CN_MAT_C3 + w * (CN_MAT_C5 + w * (CN_MAT_C7 + w * CN_MAT_C9)));
    cn_dd a = cn_mb_dd_add(u, (cn_dd){corr, 0.0});
    return i > 0 ? cn_mb_dd_add(cn_mat_row(i), a) : a;
}

/* d + r*s for double-doubles r, s and a double-double coefficient d. */
static inline CN_HD cn_dd cn_mat_horner_step(cn_dd r, cn_dd s, double dhi, double dlo)
{
    return cn_mb_dd_add((cn_dd){dhi, dlo}, cn_mb_dd_mul(r, s));
}

/* atan(t) for a double-double t in [0, 1]: the series to u^17 (truncation
 * below 2^-128 |u|), in w = u^2; the terms from u^11 in double (their
 * rounding is below 2^-120 |u|). About 2^-100 relative. */
static inline CN_HD cn_dd cn_mat_acc(cn_dd t)
{
    int i = cn_mat_index(t.hi);
    cn_dd u = i > 0 ? cn_mat_reduce(t, i) : t;
    cn_dd w = cn_mb_dd_mul(u, u);
    double wh = w.hi;
    double q = CN_MAT_C11 + wh * (CN_MAT_C13 + wh * (CN_MAT_C15 + wh * CN_MAT_C17));
    cn_dd s = cn_mb_dd_add((cn_dd){CN_MAT_C9, CN_MAT_C9_LO}, cn_mb_dd_mul_d(w, q));
    s = cn_mat_horner_step(w, s, CN_MAT_C7, CN_MAT_C7_LO);
    s = cn_mat_horner_step(w, s, CN_MAT_C5, CN_MAT_C5_LO);
    s = cn_mat_horner_step(w, s, CN_MAT_C3, CN_MAT_C3_LO);
    cn_dd a = cn_mb_dd_add(u, cn_mb_dd_mul(u, cn_mb_dd_mul(w, s)));
    return i > 0 ? cn_mb_dd_add(cn_mat_row(i), a) : a;
}

/* ------------------------------------------------------------ the quadrant */

/* a = atan(t) turned into atan2's magnitude: pi/2 - a when swapped, and
 * pi - that when x < 0, as B + S a with B in {0, pi/2, pi} and S = +-1
 * chosen without branches (the quadrant of random inputs is unpredictable).
 * In double (the fast path: each step 2^-53 of a result at least as large
 * as a). */
static inline CN_HD double cn_mat_quadrant(double a, int swapped, int xneg)
{
    uint64_t ms = 0 - (uint64_t)swapped, mx = 0 - (uint64_t)xneg; /* all ones or zero */
    uint64_t bh = (cn_mb_bits64(CN_MAT_PIO2_HI) & ms & ~mx) | (cn_mb_bits64(CN_MAT_PI_HI) & ~ms & mx) |
                  (cn_mb_bits64(CN_MAT_PIO2_HI) & ms & mx);
    uint64_t bl = (cn_mb_bits64(CN_MAT_PIO2_LO) & ms) | (cn_mb_bits64(CN_MAT_PI_LO) & ~ms & mx);
    double sa = cn_mb_f64(cn_mb_bits64(a) ^ ((uint64_t)(swapped ^ xneg) << 63));
    return (cn_mb_f64(bh) + sa) + cn_mb_f64(bl);
}

/* The same in double-double (to 2^-104). */
static inline CN_HD cn_dd cn_mat_quadrant_dd(cn_dd a, int swapped, int xneg)
{
    if (!swapped && !xneg)
        return a;
    cn_dd m = {-a.hi, -a.lo};
    if (!xneg)
        return cn_mb_dd_add((cn_dd){CN_MAT_PIO2_HI, CN_MAT_PIO2_LO}, m);
    if (swapped)
        return cn_mb_dd_add((cn_dd){CN_MAT_PIO2_HI, CN_MAT_PIO2_LO}, a);
    return cn_mb_dd_add((cn_dd){CN_MAT_PI_HI, CN_MAT_PI_LO}, m);
}

/* ------------------------------------------------------------ special cases */

/* C Annex F's special cases of atan2 (F.10.1.4): whether (y, x) is one,
 * *out set to the result rounded for the type (pio2, pio4, pi, tpio4 are
 * pi/2, pi/4, pi, 3pi/4 rounded to it). Else y and x are finite, nonzero. */
static inline CN_HD int cn_mat_special(double y, double x, double pio2, double pio4, double pi, double tpio4,
                                       double *out)
{
    double inf = cn_mb_f64(0x7ff0000000000000ULL);
    int yneg = cn_mat_signbit(y), xneg = cn_mat_signbit(x);
    double r;
    if (x != x || y != y)
        r = x + y;
    else if (y == 0)
        r = xneg ? (yneg ? -pi : pi) : y; /* x < 0 or -0: +-pi; else +-0 */
    else if (y == inf || y == -inf)
        r = x == inf ? pio4 : x == -inf ? tpio4 : pio2;
    else if (x == 0)
        r = pio2;
    else if (x == inf)
        r = 0.0;
    else if (x == -inf)
        r = pi;
    else
        return 0;
    if (y == y && y != 0 && yneg && x == x)
        r = -r;
    *out = r;
    return 1;
}

/* ------------------------------------------------------------ f64 */

/* atan2(ay, ax) for finite positive ay, ax, with x's sign xneg: the tiny
 * quotient directly, else the scaled double-double quotient and the mid
 * evaluation, rounded once. */
static inline CN_HD double cn_mat_core64(double ay, double ax, int xneg)
{
    int swapped = ay > ax;
    double n = swapped ? ax : ay, d = swapped ? ay : ax;
    double q0 = n / d; /* <= 1: no overflow; IEEE rounds it correctly into the subnormals */
    cn_dd a = {q0, 0.0};
    if (q0 < 0x1p-35) {
        if (!swapped && !xneg)
            return q0;
    } else {
        if (d > 0x1p600) {
            n *= 0x1p-700;
            d *= 0x1p-700;
        } else if (d < 0x1p-600) {
            n *= 0x1p700;
            d *= 0x1p700;
        }
        a = cn_mat_mid(cn_mat_div(n, d));
    }
    cn_dd r = cn_mat_quadrant_dd(a, swapped, xneg);
    return r.hi + r.lo;
}

static inline CN_HD double cn_mr_atan2_f64(double y, double x)
{
    double s;
    if (cn_mat_special(y, x, CN_MAT_PIO2_HI, 0.5 * CN_MAT_PIO2_HI, CN_MAT_PI_HI, CN_MAT_3PIO4, &s))
        return s;
    double r = cn_mat_core64(cn_mat_abs(y), cn_mat_abs(x), x < 0);
    return y < 0 ? -r : r;
}

static inline CN_HD double cn_mr_atan_f64(double x)
{
    double ax = cn_mat_abs(x);
    if (x != x || x == 0)
        return x + x;
    double r = ax == cn_mb_f64(0x7ff0000000000000ULL) ? CN_MAT_PIO2_HI : cn_mat_core64(ax, 1.0, 0);
    return x < 0 ? -r : r;
}

/* ------------------------------------------------------------ f32 */

/* The float nearest to hi + lo when every real within err of it rounds to
 * that float (*ok = 1); else *ok = 0 and the float nearest to hi. The test is
 * against the midpoint M next to hi: d = (hi - M) + lo, hi - M exact. hi is
 * below 4 here (no overflow). */
static inline CN_HD float cn_mat_dd_to_f32(double hi, double lo, double err, int *ok)
{
    float f = (float)hi, out = f;
    double fd = (double)f;
    *ok = 1;
    if (fd != hi) {
        uint32_t b = cn_mb_bits32(f);
        double gd = (double)cn_mb_f32(hi > fd ? b + 1 : b - 1);
        double mid = 0.5 * (fd + gd);
        double dd = (hi - mid) + lo;
        if (dd > err || dd < -err)
            out = (dd > 0) == (gd > fd) ? (float)gd : f;
        else
            *ok = 0;
    }
    return out;
}

/* The accurate path of f32: atan2(n, d) (0 < n <= d) in double-double, the
 * quadrant, rounded to f32 against the nearest midpoint. */
static CN_MB_COLD_GPU float cn_mat_slow32(double n, double d, int swapped, int xneg)
{
    int ok;
    cn_dd r = cn_mat_quadrant_dd(cn_mat_acc(cn_mat_div(n, d)), swapped, xneg);
    return cn_mat_dd_to_f32(r.hi, r.lo, r.hi * 0x1p-90, &ok);
}

/* atan2(ay, ax) for positive finite f32 values (as doubles): the tiny case
 * (t rounded with ties toward 0, see the opening comment), the fast path,
 * then the accurate one. The quotient of two floats is a normal double. */
static inline CN_HD float cn_mat_core32(double ay, double ax, int xneg)
{
    int swapped = ay > ax;
    double n = cn_mat_select(swapped, ax, ay), d = cn_mat_select(swapped, ay, ax);
    double t = n / d;
    if (t < 0x1p-40 && !swapped && !xneg)
        return (float)cn_mb_f64(cn_mb_bits64(t) - 1); /* the double just below q */
    double v = cn_mat_quadrant(cn_mat_fast(n, d, t), swapped, xneg);
    if (cn_mb_rounds_same(v, v * 0x1p-46))
        return (float)v;
    return cn_mat_slow32(n, d, swapped, xneg);
}

static inline CN_HD float cn_mr_atan2_f32(float y, float x)
{
    double s;
    if (cn_mat_special(y, x, CN_MAT_PIO2_F32, CN_MAT_PIO4_F32, CN_MAT_PI_F32, CN_MAT_3PIO4_F32, &s))
        return (float)s;
    float r = cn_mat_core32(cn_mat_abs(y), cn_mat_abs(x), x < 0);
    return y < 0 ? -r : r;
}

/* atan(x) = atan2(|x|, 1) with x's sign, the fast path taken for every
 * finite x without a branch on its size (random sizes would mispredict
 * one): tiny x come out as x (v is within 2^-50 of atan(x), which is within
 * x^3/3 of the float x, far from a midpoint), and +-0 keeps its sign
 * through the sign bit. */
static inline CN_HD float cn_mr_atan_f32(float x)
{
    double ax = cn_mat_abs(x);
    if (!(ax < 0x1p128)) /* NaN or +-inf */
        return x != x ? x + x : (x < 0 ? -(float)CN_MAT_PIO2_F32 : (float)CN_MAT_PIO2_F32);
    int swapped = ax > 1.0;
    double n = cn_mat_select(swapped, 1.0, ax), d = cn_mat_select(swapped, ax, 1.0);
    double t = n / d;
    double v = cn_mat_quadrant(cn_mat_fast(n, d, t), swapped, 0);
    float r = (float)v;
    if (!cn_mb_rounds_same(v, v * 0x1p-46))
        r = cn_mat_slow32(n, d, swapped, 0);
    return cn_mb_f32(cn_mb_bits32(r) | (cn_mb_bits32(x) & 0x80000000u));
}


/* The public names: every NaN result is the one quiet NaN (cn_mb_canon32/64), so that NaN bits
 * agree too (x86 keeps an input NaN's payload and makes 0xffc00000, the GPU makes 0x7fffffff). */
static inline CN_HD double cn_math_atan2_f64(double y, double x) { return cn_mb_canon64(cn_mr_atan2_f64(y, x)); }
static inline CN_HD double cn_math_atan_f64(double x) { return cn_mb_canon64(cn_mr_atan_f64(x)); }
static inline CN_HD float cn_math_atan2_f32(float y, float x) { return cn_mb_canon32(cn_mr_atan2_f32(y, x)); }
static inline CN_HD float cn_math_atan_f32(float x) { return cn_mb_canon32(cn_mr_atan_f32(x)); }

#endif
