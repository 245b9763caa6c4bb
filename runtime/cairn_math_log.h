/*
 * cairn_math_log.h: portable log, log2, log1p and pow, f32 and f64.
 *
 * log f32: correctly rounded
 * log2 f32: correctly rounded
 * log1p f32: correctly rounded
 * log f64: <= 0.501 ulp
 * log2 f64: <= 0.501 ulp
 * log1p f64: <= 0.501 ulp
 * pow f32: correctly rounded
 * pow f64: <= 0.501 ulp
 *
 * Method. x = 2^k * m with m in [1, 2); the top 7 bits of m's fraction pick a
 * row i of a 128-row table (tools/gen_math_log.c) holding invc, 1/c rounded to
 * 24 bits for c the middle of m's interval, and T = -log(invc) as a
 * double-double. Then r = m*invc - 1 is small (|r| < 2^-7) and
 * log(x) = k*log(2) + T + log1p(r). Rows from m = 1.5 up take m/2 with k one
 * higher (the table's T has log(2) taken off), and the first and last rows
 * use c = 1 and c = 2, so x near 1 is reduced by nothing: there log(x) is
 * log1p(r) alone and keeps its relative accuracy (no cancellation between
 * k*log(2), T and log1p(r) anywhere: |log1p(r)| < 2^-7 while |T| > 2^-6.4
 * or T = 0). log1p(r) is its Taylor series: on |r| < 2^-7 eleven terms give
 * 2^-73, sixteen give 2^-105.
 *
 * Three evaluations of the same reduction:
 *  - fast (f32 only): in double, r exact (24-bit m times 24-bit invc), a
 *    degree-7 series, relative error below 2^-49 (2^-45 is the bound used);
 *    f32 log1p's first try is the same at u = 1 + x (cn_ml_log1p_first);
 *    under CN_MB_FIRST_FMA log2's (cn_ml_log2_first32) takes the series in
 *    Estrin form and 1/log(2) in two multiply-adds: 2^-50.03, tested at 2^-46;
 *  - mid (f64): r exact as a double-double (the
 *    exact product cn_mb_two_prod), r and r^2/2 as double-doubles, the rest of
 *    the series in double, all sums error-free: relative error below 2^-66,
 *    so the f64 result (hi + lo rounded once) is within 0.5 + 2^-13 ulp;
 *  - accurate (f32's second try): the series in double-double Horner form
 *    (terms up to r^7 in double-double): relative error about 2^-100.
 * An f32 result is (float)y when every real within the error bound of y
 * rounds to the same float (cn_mb_rounds_same); otherwise the accurate path
 * decides against the nearest midpoint (cn_ml_dd_to_f32). log and log2 are
 * exact only at x = 1 and at powers of two, which no path can misround (the
 * reduction gives r = 0, T = 0 there); log1p is exact only at 0. That no
 * other f32 input needs more than the accurate path is what the exhaustive
 * run (tests/math/check_log.c --exhaustive) shows.
 * log2 = k + (T + log1p(r)) / log(2), so powers of two come out exact.
 * log1p(x): |x| < 2^-7 is the series at r = x; else 1 + x as an exact
 * double-double (uh, ul) and log1p(x) = log(uh) + ul/uh (for an f32 x,
 * 1 + x is a double below 2^53 and ul = 0).
 *
 * pow(x, y) = exp(y log|x|), after C Annex F's special cases
 * (cn_ml_pow_special; the sign is negative for x < 0 and an odd integer y).
 * log|x| comes from the accurate path above (2^-100), t = y log|x| is a
 * double-double (exact product of the high parts), and exp(t) is
 * 2^(k/128) * exp(r) with t = k log(2)/128 + r, |r| < 2^-8.5, the table
 * 2^(j/128) as double-doubles and exp(r) a Taylor series in double-double
 * Horner form: about 2^-100 relative in all, so the f64 result, rounded once
 * (on the subnormals' grid below 2^-1022, cn_ml_scale), is within
 * 0.5 + 2^-40 ulp. f32 pow tries a fast path first (log and exp in double:
 * 2^-41.9, bound used 2^-40; under CN_MB_FIRST_FMA cn_ml_pow_first32, 2^t
 * with t = y log2(x): 2^-43.3, bound used 2^-42), then the accurate one
 * tested against the nearest midpoint (bound used 2^-90); what is still
 * undecided must be an exact midpoint, x^y = P 2^J with P < 2^25 (e.g.
 * (1 + 2^-12)^2, 14641^1.75 = 11^7), which cn_ml_pow_exact32 finds with integers and rounds ties to even.
 * A pair whose true value lies within 2^-90 of a midpoint without being one
 * would be left to the accurate path's nearest guess; 2^64 pairs cannot be
 * enumerated, so that none exists is argued (about 2^61 meaningful pairs times
 * 2^-65 chance each), not shown.
 */
#ifndef CAIRN_MATH_LOG_H
#define CAIRN_MATH_LOG_H

#include "cairn_math_base.h"

/* ------------------------------------------------------------ constants (tools/gen_math_log.c) */

#define CN_ML_LN2_A 0x1.62e42fefa38p-1
#define CN_ML_LN2_B 0x1.ef35793c768p-45
#define CN_ML_LN2_C -0x1.9ff0342542fc3p-90
#define CN_ML_LN2_LO 0x1.ef35793c7673p-45
#define CN_ML_LN2 0x1.62e42fefa39efp-1
#define CN_ML_INVLN2_HI 0x1.71547652b82fep+0
#define CN_ML_INVLN2_LO 0x1.777d0ffda0d24p-56
#define CN_ML_EXP_INVL 0x1.71547652b82fep+7
#define CN_ML_EXP_L1 0x1.62e42fefcp-8
#define CN_ML_EXP_L2 -0x1.c610ca86cp-44
#define CN_ML_EXP_L3 -0x1.c4c67fc0d0951p-83
/* log1p: (-1)^(n+1)/n */
#define CN_ML_LC1 0x1p+0
#define CN_ML_LC1_LO 0x0p+0
#define CN_ML_LC2 -0x1p-1
#define CN_ML_LC2_LO 0x0p+0
#define CN_ML_LC3 0x1.5555555555555p-2
#define CN_ML_LC3_LO 0x1.5555555555555p-56
#define CN_ML_LC4 -0x1p-2
#define CN_ML_LC4_LO 0x0p+0
#define CN_ML_LC5 0x1.999999999999ap-3
#define CN_ML_LC5_LO -0x1.999999999999ap-57
#define CN_ML_LC6 -0x1.5555555555555p-3
#define CN_ML_LC6_LO -0x1.5555555555555p-57
#define CN_ML_LC7 0x1.2492492492492p-3
#define CN_ML_LC7_LO 0x1.2492492492492p-57
#define CN_ML_LC8 -0x1p-3
#define CN_ML_LC8_LO 0x0p+0
#define CN_ML_LC9 0x1.c71c71c71c71cp-4
#define CN_ML_LC9_LO 0x1.c71c71c71c71cp-58
#define CN_ML_LC10 -0x1.999999999999ap-4
#define CN_ML_LC10_LO 0x1.999999999999ap-58
#define CN_ML_LC11 0x1.745d1745d1746p-4
#define CN_ML_LC11_LO -0x1.745d1745d1746p-59
#define CN_ML_LC12 -0x1.5555555555555p-4
#define CN_ML_LC12_LO -0x1.5555555555555p-58
#define CN_ML_LC13 0x1.3b13b13b13b14p-4
#define CN_ML_LC13_LO -0x1.3b13b13b13b14p-58
#define CN_ML_LC14 -0x1.2492492492492p-4
#define CN_ML_LC14_LO -0x1.2492492492492p-58
#define CN_ML_LC15 0x1.1111111111111p-4
#define CN_ML_LC15_LO 0x1.1111111111111p-60
#define CN_ML_LC16 -0x1p-4
#define CN_ML_LC16_LO 0x0p+0
/* 2^r = 1 + sum of (log(2) r)^n/n!: the FMA first try of f32 pow (n = 1 is CN_ML_LN2) */
#define CN_ML_X2C2 0x1.ebfbdff82c58fp-3
#define CN_ML_X2C3 0x1.c6b08d704a0cp-5
#define CN_ML_X2C4 0x1.3b2ab6fba4e77p-7
/* the GPU's first try of f32 log: coefficients it may take to 21 bits (immediates there) */
#define CN_ML_LC5_21 0x1.9999ap-3
#define CN_ML_LC6_21 -0x1.55555p-3
#define CN_ML_LC7_21 0x1.24925p-3
/* exp: 1/n! */
#define CN_ML_EC0 0x1p+0
#define CN_ML_EC0_LO 0x0p+0
#define CN_ML_EC1 0x1p+0
#define CN_ML_EC1_LO 0x0p+0
#define CN_ML_EC2 0x1p-1
#define CN_ML_EC2_LO 0x0p+0
#define CN_ML_EC3 0x1.5555555555555p-3
#define CN_ML_EC3_LO 0x1.5555555555555p-57
#define CN_ML_EC4 0x1.5555555555555p-5
#define CN_ML_EC4_LO 0x1.5555555555555p-59
#define CN_ML_EC5 0x1.1111111111111p-7
#define CN_ML_EC5_LO 0x1.1111111111111p-63
#define CN_ML_EC6 0x1.6c16c16c16c17p-10
#define CN_ML_EC6_LO -0x1.f49f49f49f49fp-65
#define CN_ML_EC7 0x1.a01a01a01a01ap-13
#define CN_ML_EC7_LO 0x1.a01a01a01a01ap-73
#define CN_ML_EC8 0x1.a01a01a01a01ap-16
#define CN_ML_EC8_LO 0x1.a01a01a01a01ap-76
#define CN_ML_EC9 0x1.71de3a556c734p-19
#define CN_ML_EC9_LO -0x1.c154f8ddc6cp-73
#define CN_ML_EC10 0x1.27e4fb7789f5cp-22
#define CN_ML_EC10_LO 0x1.cbbc05b4fa99ap-76

/* ------------------------------------------------------------ small helpers */

static inline CN_HD double cn_ml_abs(double a) { return a < 0 ? -a : a; }
static inline CN_HD float cn_ml_nan32(void) { return cn_mb_f32(0x7fc00000u); }
static inline CN_HD double cn_ml_nan64(void) { return cn_mb_f64(0x7ff8000000000000ULL); }
static inline CN_HD double cn_ml_inf64(void) { return cn_mb_f64(0x7ff0000000000000ULL); }

/* Row i of the log table: invc = 1/c (24 bits) and T = -log(invc) - s*log(2)
 * (s = 1 for i >= 64) as a double-double. */
static inline CN_HD void cn_ml_log_row(int i, double *invc, cn_dd *t)
{
    static const double tab[128][3] = {
        {0x1p+0, 0x0p+0, 0x0p+0},
        {0x1.fa11cap-1, 0x1.7dc49e7810addp-7, 0x1.8494a240c11b8p-61},
        {0x1.f6310ap-1, 0x1.3cea5df46a5c8p-6, -0x1.765a22a70ef09p-61},
        {0x1.f25f64p-1, 0x1.b9fc0afaf91a1p-6, 0x1.ea334206f1a7fp-65},
        {0x1.ee9c8p-1, 0x1.1b0d90923d99p-5, -0x1.e9ae9df101997p-60},
        {0x1.eae808p-1, 0x1.58a5b57c8e4dcp-5, 0x1.c6a8e74f1fcffp-61},
        {0x1.e741aap-1, 0x1.95c836cc8e3f4p-5, 0x1.e683b0fa78541p-61},
        {0x1.e3a918p-1, 0x1.d276b22db0b5dp-5, -0x1.7870f0ef4ab4bp-59},
        {0x1.e01e02p-1, 0x1.075982498e472p-4, -0x1.fb25acff68f9dp-59},
        {0x1.dca01ep-1, 0x1.253f6120a1419p-4, -0x1.8a1259e302f7ap-58},
        {0x1.d92f22p-1, 0x1.42edcd9a646f2p-4, -0x1.5f1582feaf49bp-58},
        {0x1.d5cac8p-1, 0x1.60658ad3750c4p-4, -0x1.188458ebcc614p-58},
        {0x1.d272cap-1, 0x1.7da76907b12cfp-4, -0x1.73b7eff915a12p-60},
        {0x1.cf26e6p-1, 0x1.9ab42252033afp-4, -0x1.c99e337dce8bep-63},
        {0x1.cbe6dap-1, 0x1.b78c7d2b0edb1p-4, -0x1.fcf0f47751aabp-58},
        {0x1.c8b266p-1, 0x1.d4313a96cb361p-4, 0x1.4b0dd7773d0fep-58},
        {0x1.c5894ep-1, 0x1.f0a30391162cap-4, -0x1.80d0c48b83f68p-62},
        {0x1.c26b54p-1, 0x1.06714f3ca5972p-3, -0x1.4e7379db88c08p-59},
        {0x1.bf583ep-1, 0x1.14785c6e742bep-3, -0x1.4477d42daf5b9p-57},
        {0x1.bc4fd6p-1, 0x1.2266f328a5acep-3, 0x1.e47c0717be8bbp-61},
        {0x1.b951e2p-1, 0x1.303d74c647fddp-3, 0x1.6b5199274c898p-57},
        {0x1.b65e2ep-1, 0x1.3dfc2c26cc62bp-3, -0x1.93a8d9e3256b5p-62},
        {0x1.b37484p-1, 0x1.4ba37269a55fp-3, -0x1.f367d96839876p-57},
        {0x1.b094b4p-1, 0x1.5933896982097p-3, 0x1.7116d231c3f5dp-57},
        {0x1.adbe88p-1, 0x1.66acd4072ad51p-3, -0x1.d201c9c47fc0fp-59},
        {0x1.aaf1d2p-1, 0x1.740f93fc037bap-3, 0x1.dfce1e9130fd3p-57},
        {0x1.a82e66p-1, 0x1.815c059c357ffp-3, -0x1.89e4bbf1dee8p-58},
        {0x1.a5741p-1, 0x1.8e92902886d46p-3, -0x1.169d814e56763p-57},
        {0x1.a2c2a8p-1, 0x1.9bb36547dfb89p-3, -0x1.8a1c998d17394p-61},
        {0x1.a01a02p-1, 0x1.a8becdf082f1cp-3, 0x1.493c82b98db76p-58},
        {0x1.9d79f2p-1, 0x1.b5b51740fb5abp-3, 0x1.f327f7825570fp-57},
        {0x1.9ae24ep-1, 0x1.c2968890c18cbp-3, -0x1.6f6c364d84555p-64},
        {0x1.9852fp-1, 0x1.cf6359209c5eep-3, 0x1.639a216c061e3p-57},
        {0x1.95cbbp-1, 0x1.dc1bcdcabec8bp-3, 0x1.c34c632d8b75fp-57},
        {0x1.934c68p-1, 0x1.e8c0250aa5a6p-3, -0x1.2e03a39ca7345p-59},
        {0x1.90d4f2p-1, 0x1.f550a0ecb7b4bp-3, -0x1.5057e10ede54p-64},
        {0x1.8e6528p-1, 0x1.00e6c38ad501ep-2, 0x1.88d52b24cad58p-58},
        {0x1.8bfce8p-1, 0x1.071b860cd590dp-2, 0x1.f1707f98133d5p-58},
        {0x1.899c1p-1, 0x1.0d46b3d9ab75p-2, 0x1.a1f63b293b43ap-56},
        {0x1.87427cp-1, 0x1.13686fa13a8b1p-2, -0x1.0a675a9140c2cp-58},
        {0x1.84f00cp-1, 0x1.1980d3454237p-2, -0x1.10c2e4dad040fp-56},
        {0x1.82a4ap-1, 0x1.1f8ffa248a2f3p-2, -0x1.49fdf99b6f5b1p-56},
        {0x1.806018p-1, 0x1.2596011df763ap-2, -0x1.deed8ae041291p-59},
        {0x1.7e2256p-1, 0x1.2b93013789d31p-2, -0x1.64eb73873ef99p-56},
        {0x1.7beb3ap-1, 0x1.31871a414419p-2, -0x1.7135ba3e86ad9p-57},
        {0x1.79baa6p-1, 0x1.37726827fd863p-2, -0x1.6c589289f1453p-57},
        {0x1.779082p-1, 0x1.3d54f7e81f71cp-2, -0x1.bea6701908e51p-56},
        {0x1.756cacp-1, 0x1.432ef2f84e814p-2, -0x1.bc98b83e79d6fp-59},
        {0x1.734f0cp-1, 0x1.490068ec009d2p-2, 0x1.c201e6ee8196ap-56},
        {0x1.713786p-1, 0x1.4ec9758200275p-2, -0x1.7450d828f6d1ap-57},
        {0x1.6f2602p-1, 0x1.548a2aa6dd268p-2, -0x1.a89d025e1c2ffp-57},
        {0x1.6d1a62p-1, 0x1.5a42ac334cfe4p-2, 0x1.b38694373d63fp-57},
        {0x1.6b149p-1, 0x1.5ff308ea793dbp-2, -0x1.7c60de1bc6f0bp-57},
        {0x1.691474p-1, 0x1.659b56383e1f4p-2, 0x1.896c2aad6c368p-56},
        {0x1.6719f4p-1, 0x1.6b3bb05b59444p-2, -0x1.e215d15ac1e2bp-58},
        {0x1.6524f8p-1, 0x1.70d42f1789238p-2, -0x1.a1663f757c6a9p-56},
        {0x1.63356cp-1, 0x1.7664dfcb9dbd2p-2, 0x1.7695119c1e7e7p-56},
        {0x1.614b36p-1, 0x1.7bede21f7afc4p-2, 0x1.8fc38c45e0623p-60},
        {0x1.5f6644p-1, 0x1.816f3fb20d49fp-2, 0x1.1b8513aa2074bp-61},
        {0x1.5d867cp-1, 0x1.86e91a5b30ba1p-2, 0x1.27cd8d7a51445p-58},
        {0x1.5babccp-1, 0x1.8c5b7dad8b48dp-2, 0x1.a2a9646004a3ap-57},
        {0x1.59d62p-1, 0x1.91c67bf45a84dp-2, -0x1.60e0c9ddf57d7p-56},
        {0x1.58056p-1, 0x1.972a345135159p-2, -0x1.da3f62d5f39d1p-56},
        {0x1.56397cp-1, 0x1.9c86af25c0865p-2, -0x1.0f7eece03541cp-56},
        {0x1.54725ep-1, -0x1.23ec584deba46p-2, 0x1.69914b323a107p-57},
        {0x1.52aff6p-1, -0x1.1e9e183c899eep-2, -0x1.82b0fa819e349p-58},
        {0x1.50f22ep-1, -0x1.1956d385bc2fap-2, -0x1.271d68d22dc07p-56},
        {0x1.4f38f6p-1, -0x1.14167e6767782p-2, -0x1.a3024d732193fp-56},
        {0x1.4d843cp-1, -0x1.0edd064378081p-2, 0x1.2b5a4f75aeadap-56},
        {0x1.4bd3eep-1, -0x1.09aa57a26c6d4p-2, 0x1.029e8c9cfbeacp-56},
        {0x1.4a27fap-1, -0x1.047e5e31e83aap-2, -0x1.000d0a1e6cfcp-57},
        {0x1.488052p-1, -0x1.feb22276a07ccp-3, -0x1.a7de006adaa19p-57},
        {0x1.46dce4p-1, -0x1.f474b5c4df214p-3, -0x1.40e3058e4f93p-60},
        {0x1.453d9ep-1, -0x1.ea4448d84aaf3p-3, -0x1.63c6e5e4c4a36p-57},
        {0x1.43a274p-1, -0x1.e020d27235a9p-3, -0x1.fb529131e139ap-57},
        {0x1.420b52p-1, -0x1.d60a15710350ep-3, -0x1.3c40ecfb308e3p-58},
        {0x1.40782ep-1, -0x1.cc001295b3c2fp-3, 0x1.2d2e64f67d3d6p-57},
        {0x1.3ee8f4p-1, -0x1.c20289a17f9b3p-3, -0x1.6d1aa31edfb45p-57},
        {0x1.3d5d9ap-1, -0x1.b81178d3823b1p-3, 0x1.7ce1f12bb0ebcp-57},
        {0x1.3bd60ep-1, -0x1.ae2ca9be72bcdp-3, 0x1.45a34ee98423fp-57},
        {0x1.3a5244p-1, -0x1.a4540b3e6aafcp-3, 0x1.28df6f14320e7p-58},
        {0x1.38d22ep-1, -0x1.9a877e06baa1ep-3, 0x1.9207531a8a38bp-59},
        {0x1.3755bep-1, -0x1.90c6e177cbcb7p-3, -0x1.b112d8651d7f3p-59},
        {0x1.35dce6p-1, -0x1.8712139d0e994p-3, -0x1.bd85f35f3d7f5p-57},
        {0x1.34679ap-1, -0x1.7d68fe72f5ab3p-3, -0x1.5be80a20c7057p-57},
        {0x1.32f5cep-1, -0x1.73cb8adcfd12dp-3, -0x1.84e5c59ceb9cp-57},
        {0x1.318776p-1, -0x1.6a39a0a3bd37bp-3, 0x1.aacccb728d6b2p-57},
        {0x1.301c82p-1, -0x1.60b30b8309461p-3, -0x1.316ccf0cb73cdp-57},
        {0x1.2eb4eap-1, -0x1.5737cbb818cddp-3, 0x1.89b28f2355c72p-57},
        {0x1.2d50ap-1, -0x1.4dc7b817bc1c7p-3, -0x1.6d82b87518f61p-57},
        {0x1.2bef98p-1, -0x1.4462b3bc9b3b6p-3, -0x1.3eb19007120d3p-57},
        {0x1.2a91cap-1, -0x1.3b08bc0d7f28ap-3, 0x1.f5c9d7d45cf8dp-58},
        {0x1.293726p-1, -0x1.31b996aba4f81p-3, -0x1.84c74c26f6eebp-57},
        {0x1.27dfa4p-1, -0x1.28753ef11ab9ap-3, -0x1.f86b30d15ccbbp-57},
        {0x1.268b38p-1, -0x1.1f3b93bf25d3fp-3, -0x1.9164f985780d5p-58},
        {0x1.2539d8p-1, -0x1.160c80c4b27bp-3, -0x1.42a900b31295bp-57},
        {0x1.23eb7ap-1, -0x1.0ce7f0c4cc27dp-3, -0x1.8dd6138866b88p-57},
        {0x1.22a012p-1, -0x1.03cdbf7d1ec0cp-3, 0x1.f1d2c8b30d9b8p-61},
        {0x1.215798p-1, -0x1.f57bc799005dbp-4, 0x1.b361575007a38p-58},
        {0x1.201202p-1, -0x1.e3708b530482ep-4, 0x1.60c9cb56f4ba4p-60},
        {0x1.1ecf44p-1, -0x1.d1797ba21935fp-4, -0x1.46d7c186c013ap-58},
        {0x1.1d8f56p-1, -0x1.bf9680f9fc9fcp-4, -0x1.b8d7724de6eep-61},
        {0x1.1c523p-1, -0x1.adc78265aea86p-4, -0x1.6fb1ee5d321f4p-59},
        {0x1.1b17c6p-1, -0x1.9c0c2ba4d252ep-4, -0x1.ab85d2f52749dp-58},
        {0x1.19e012p-1, -0x1.8a647d391dc19p-4, -0x1.20be7db33464ep-58},
        {0x1.18ab08p-1, -0x1.78d01f23d82cep-4, -0x1.1794b0e70c647p-59},
        {0x1.1778a2p-1, -0x1.674f0ee365a66p-4, 0x1.4ccd763dd2594p-58},
        {0x1.1648d6p-1, -0x1.55e10e20e0324p-4, -0x1.2807057d9d5acp-58},
        {0x1.151b9ap-1, -0x1.4485dc8dbdfa6p-4, -0x1.e9a3457d2d1b8p-58},
        {0x1.13f0e8p-1, -0x1.333d734183fp-4, -0x1.892a635ea15dcp-58},
        {0x1.12c8b8p-1, -0x1.2207ac8785473p-4, 0x1.d81ffdaab4b92p-59},
        {0x1.11a302p-1, -0x1.10e4612cae81fp-4, 0x1.3508bb009e147p-61},
        {0x1.107fbcp-1, -0x1.ffa694dab92fdp-5, -0x1.13070c1be888fp-62},
        {0x1.0f5eep-1, -0x1.dda8b7c67ee35p-5, -0x1.4e6cad449a15cp-59},
        {0x1.0e4066p-1, -0x1.bbced3a68f3bdp-5, -0x1.eee84097532f6p-59},
        {0x1.0d2446p-1, -0x1.9a188df73de25p-5, 0x1.59d680ba78807p-61},
        {0x1.0c0a78p-1, -0x1.7885892357793p-5, -0x1.a5ef60dabcdbap-59},
        {0x1.0af2f8p-1, -0x1.5715df403ce3fp-5, -0x1.5103600213f73p-59},
        {0x1.09ddbap-1, -0x1.35c8b2ca13042p-5, 0x1.d9085d1ce7fbcp-59},
        {0x1.08cabcp-1, -0x1.149e5680059fap-5, 0x1.934388bf4acb8p-61},
        {0x1.07b9f2p-1, -0x1.e72bccc13cd9fp-6, -0x1.db665acb49c07p-61},
        {0x1.06ab5ap-1, -0x1.a55f624c5c427p-6, -0x1.f306a56bda5b1p-60},
        {0x1.059eeap-1, -0x1.63d615c690bd6p-6, 0x1.a0ed4d3ca1f1fp-60},
        {0x1.04949cp-1, -0x1.228f827ea2d0ep-6, 0x1.06bfe19fe49f7p-60},
        {0x1.038c6cp-1, -0x1.c3177b4c75deep-7, 0x1.7f38df42be44ep-62},
        {0x1.02865p-1, -0x1.4192bb96832bfp-7, 0x1.c55162cf66d18p-61},
        {0x1.018244p-1, -0x1.8121bb458686fp-8, 0x1.1f479ca8f73b5p-64},
        {0x1p-1, 0x0p+0, 0x0p+0},
    };
    *invc = tab[i][0];
    t->hi = tab[i][1];
    t->lo = tab[i][2];
}

/* x > 0 finite, subnormals too: x = 2^k * m with m in [1, 2); *i is the row
 * and the k returned already counts the row's s. */
static inline CN_HD int cn_ml_reduce(double x, int *i, double *m)
{
    uint64_t u = cn_mb_bits64(x);
    int k = 0;
    if (u < (1ULL << 52)) { /* subnormal: scale into the normals first */
        u = cn_mb_bits64(x * 0x1p54);
        k = -54;
    }
    k += (int)(u >> 52) - 1023;
    *i = (int)((u >> 45) & 127);
    *m = cn_mb_f64((u & 0xfffffffffffffULL) | 0x3ff0000000000000ULL);
    return k + (*i >> 6);
}

/* ------------------------------------------------------------ the fast path (f32 inputs) */

/* log1p(r) in double for |r| < 2^-7, the series to r^7 in Horner form (a
 * first try's: cn_mb_mad); its tail r^8/8 is below 2^-52 |r|. */
static inline CN_HD double cn_ml_log1p_fast(double r)
{
    double p = cn_mb_mad(r, cn_mb_mad(r, cn_mb_mad(r, cn_mb_mad(r, cn_mb_mad(r, CN_ML_LC7, CN_ML_LC6), CN_ML_LC5),
                                                     CN_ML_LC4), CN_ML_LC3), CN_ML_LC2);
    return cn_mb_mad(r * r, p, r);
}

/* log(x) - k*log(2) = T + log1p(r) in double, for an f32 x > 0 (as a double).
 * m has 24 bits and invc 24, so m*invc and r are exact; the series' tail
 * r^8/8 is below 2^-52 |r|. */
static inline CN_HD double cn_ml_rest_fast(double x, int *k)
{
    int i;
    double m, invc;
    cn_dd t;
    *k = cn_ml_reduce(x, &i, &m);
    cn_ml_log_row(i, &invc, &t);
    return t.hi + cn_ml_log1p_fast(cn_mb_mad(m, invc, -1.0));
}

/* The same for a normal positive f32 x given by its bits, without the
 * subnormal test: the same k, row and m, so the same result. */
static inline CN_HD double cn_ml_rest_fast32(uint32_t u, int *k)
{
    int i = (int)((u >> 16) & 127);
    double invc;
    cn_dd t;
    *k = (int)(u >> 23) - 127 + (i >> 6);
    cn_ml_log_row(i, &invc, &t);
    double m = cn_mb_f64((uint64_t)(u & 0x7fffffu) << 29 | 0x3ff0000000000000ULL);
    return t.hi + cn_ml_log1p_fast(cn_mb_mad(m, invc, -1.0));
}

#ifdef CN_MB_FIRST_FMA
/* log(x) rounded to f32 for a normal positive f32 x given by its bits, the
 * GPU's first try: cn_ml_rest_fast32's reduction (r exact) with the series'
 * coefficients from r^5 on to 21 bits (immediates there): their errors are
 * below r^4 2^-24 <= 2^-52 of r, and relative to log(x) no larger (no
 * cancellation anywhere, |log(x)| >= |log1p(r)|). With the truncation
 * (2^-52) and the roundings the result is within 2^-48.5 of log(x), which is
 * 0 (x = 1: r = 0, T = 0, k = 0, y = +0 exactly) or in f32's normal range
 * (|log(x)| >= log(1 + 2^-23) > 2^-24): the test is cn_mb_decided_normal's
 * at 2^-46, an integer test in place of two roundings. */
static inline CN_HD float cn_ml_log_first32(uint32_t u, int *ok)
{
    int i = (int)((u >> 16) & 127), k = (int)(u >> 23) - 127 + (i >> 6);
    double invc;
    cn_dd t;
    cn_ml_log_row(i, &invc, &t);
    double m = cn_mb_f64((uint64_t)(u & 0x7fffffu) << 29 | 0x3ff0000000000000ULL);
    double r = cn_mb_mad(m, invc, -1.0);
    double p = cn_mb_mad(r, cn_mb_mad(r, cn_mb_mad(r, cn_mb_mad(r, cn_mb_mad(r, CN_ML_LC7_21, CN_ML_LC6_21), CN_ML_LC5_21),
                                                     CN_ML_LC4), CN_ML_LC3), CN_ML_LC2);
    double y = cn_mb_mad((double)k, CN_ML_LN2, t.hi + cn_mb_mad(r * r, p, r));
    *ok = cn_mb_decided_normal(y);
    return (float)y;
}

/* The FMA first tries of log2 and pow: x a normal positive f32 given by its
 * bits, reduced as cn_ml_rest_fast32 does (the same k, row and r = m*invc - 1,
 * exact); *k gets k and *thi the row's T.hi. Their analyses write rest =
 * T + log1p(r) = log(x) - k log(2) for the exact values and use, from
 * tools/gen_math_first_fma.c (every row's interval of m at 400 bits): rows 0
 * and 127 have T = 0 and |r| < 2^-7; the others |r| <= 2^-8 and, relative to
 * |rest| (which keeps its sign on the row), |r| <= 0.502, |T| <= 1.502 and
 * |log1p(r)| <= 0.503 of it; |T.hi - T| <= 2^-53 |T| (a double-double row). */
static inline CN_HD double cn_ml_reduce_first32(uint32_t u, int *k, double *thi)
{
    int i = (int)((u >> 16) & 127);
    double invc;
    cn_dd t;
    *k = (int)(u >> 23) - 127 + (i >> 6);
    cn_ml_log_row(i, &invc, &t);
    *thi = t.hi;
    double m = cn_mb_f64((uint64_t)(u & 0x7fffffu) << 29 | 0x3ff0000000000000ULL);
    return cn_mb_mad(m, invc, -1.0);
}

/* log1p(r) for |r| < 2^-7, the series to r^7 in Estrin form (three levels of
 * multiply-adds where Horner takes six), r^5 to r^7's coefficients to 21 bits
 * (immediates on the GPU). Its error E_s, relative to |r| (tools/
 * gen_math_first_fma.c for the first two): the series' remainder
 * |r|^7/(8 (1 - |r|)), 2^-51.98 (2^-58.98 for |r| <= 2^-8); the coefficients'
 * errors, 2^-52.3 (2^-56.3); the roundings: a, b, c, the two inner
 * multiply-adds (all below 0.51 in magnitude) and r^2 leave the bracket within
 * 2^-53 * 1.01 of its value, which r^2 <= 2^-14 |r| makes 2^-59.4 |r|, and the
 * last multiply-add 2^-53 |r| (1 + 2^-8). E_s <= 2^-50.77 for |r| < 2^-7 and
 * 2^-52.82 for |r| <= 2^-8. */
static inline CN_HD double cn_ml_log1p_estrin(double r)
{
    double r2 = r * r;
    double a = cn_mb_mad(r, CN_ML_LC3, CN_ML_LC2), b = cn_mb_mad(r, CN_ML_LC5_21, CN_ML_LC4);
    double c = cn_mb_mad(r, CN_ML_LC7_21, CN_ML_LC6_21);
    return cn_mb_mad(r2, cn_mb_mad(r2, cn_mb_mad(r2, c, b), a), r);
}

/* log2(x) rounded to f32 for a normal positive f32 x given by its bits, the
 * FMA first try: y = (k + T.hi/log(2)) + log1p(r)/log(2), two multiply-adds
 * after the series s (cn_ml_log1p_estrin), A = T.hi L + k and y = s L + A,
 * L = CN_ML_INVLN2_HI = (1 + d)/log(2), |d| <= 2^-55.9. Against log2(x) = k +
 * rest/log(2), before y's own rounding: s L + A - log2(x) = L (s - log1p(r))
 * + L (T.hi - T) + d (T + log1p(r))/log(2) + A's rounding. Rows 0 and 127
 * (T = 0, so A = k exactly): |r| <= |log1p(r)| (1 + 2^-7.9), so the error is
 * (E_s (1 + 2^-7.9) + 2^-55.9) |rest/log(2)| <= 2^-50.73 |rest/log(2)|. The
 * other rows: (E_s 0.502 + 2^-53 1.502 + 2^-55.9) |rest/log(2)| <= 2^-51.86
 * |rest/log(2)|, plus 2^-53 |A| with |A| <= |log2(x)| + 0.503 |rest/log(2)|.
 * And |rest/log(2)| <= M |log2(x)|, M = 1 for k = 0 and 1.4095 otherwise
 * (k = -1, m -> 1.5: log2(1.5) / (1 - log2(1.5)); tools/
 * gen_math_first_fma.c). With y's rounding, y is within 2^-50.03 |log2(x)|
 * of log2(x) on rows 0 and 127 and within 2^-50.46 on the others: below
 * 2^-46, cn_mb_decided_normal's bound, with log2(x) 0 (x = 1: r = 0, T = 0,
 * k = 0, y = +0 exactly; x = 2^k: y = k) or in f32's normal range (|log2(x)|
 * >= log2(1 + 2^-23) > 2^-24). */
static inline CN_HD float cn_ml_log2_first32(uint32_t u, int *ok)
{
    int k;
    double thi, r = cn_ml_reduce_first32(u, &k, &thi);
    double y = cn_mb_mad(cn_ml_log1p_estrin(r), CN_ML_INVLN2_HI, cn_mb_mad(thi, CN_ML_INVLN2_HI, (double)k));
    *ok = cn_mb_decided_normal(y);
    return (float)y;
}
#endif

/* ------------------------------------------------------------ the mid path (about 2^-66) */

/* a*a = hi + lo to about 2^-80 relative without a full exact product: a's top
 * 26 bits squared are exact, the rest is small. */
static inline CN_HD cn_dd cn_ml_square(double a)
{
    double ah = cn_mb_f64(cn_mb_bits64(a) & ~((1ULL << 27) - 1)), al = a - ah;
    return (cn_dd){ah * ah, al * (ah + a)};
}

/* log1p(r) for |r| < 2^-7 (r a double-double), relative error below 2^-67:
 * r - r^2/2 error-free, r^3 (1/3 - r/4 + ... - r^7/10) in double. */
static inline CN_HD cn_dd cn_ml_log1p_mid(cn_dd r)
{
    double rh = r.hi;
    cn_dd sq = cn_ml_square(rh);
    sq.lo += 2.0 * rh * r.lo;
    double q = CN_ML_LC3 + rh * (CN_ML_LC4 + rh * (CN_ML_LC5 + rh * (CN_ML_LC6 + rh * (CN_ML_LC7 + rh * (CN_ML_LC8 + rh * (CN_ML_LC9 + rh * CN_ML_LC10))))));
    double tail = (sq.hi + sq.lo) * rh * q; /* sq.hi alone is r^2 to 2^-25 only */
    cn_dd s = cn_mb_two_sum(rh, -0.5 * sq.hi);
    s.lo += r.lo - 0.5 * sq.lo + tail;
    return cn_mb_fast_two_sum(s.hi, s.lo);
}

/* r = m*invc - 1 exactly as a double-double, with no exact-product routine:
 * m = mh + ml with mh its top 29 bits, so mh*invc (29 + 24 bits) and ml*invc
 * (24 + 24) are exact, and mh*invc - 1 is exact (it is within 2^-6 of 1). */
static inline CN_HD cn_dd cn_ml_reduced(double m, double invc)
{
    double mh = cn_mb_f64(cn_mb_bits64(m) & ~((1ULL << 24) - 1)), ml = m - mh;
    return cn_mb_two_sum(mh * invc - 1.0, ml * invc);
}

/* log(x) - k*log(2) = T + log1p(r) for x > 0 finite, about 2^-67 relative. */
static inline CN_HD cn_dd cn_ml_rest_mid(double x, int *k)
{
    int i;
    double m, invc;
    cn_dd t;
    *k = cn_ml_reduce(x, &i, &m);
    cn_ml_log_row(i, &invc, &t);
    cn_dd l = cn_ml_log1p_mid(cn_ml_reduced(m, invc));
    cn_dd s = cn_mb_two_sum(t.hi, l.hi); /* no cancellation: |l| < 2^-7 < |T| or T = 0 */
    s.lo += t.lo + l.lo;
    return s;
}

/* k*log(2) as a double-double: k*A is exact (A has 42 bits, |k| < 2^11). */
static inline CN_HD cn_dd cn_ml_kln2(int k)
{
    return cn_mb_fast_two_sum(k * CN_ML_LN2_A, k * CN_ML_LN2_LO);
}

/* log(x) for x > 0 finite, as a double-double, about 2^-66 relative. */
static inline CN_HD cn_dd cn_ml_log_mid(double x)
{
    int k;
    cn_dd rest = cn_ml_rest_mid(x, &k);
    cn_dd s = cn_mb_two_sum(k * CN_ML_LN2_A, rest.hi);
    s.lo += rest.lo + k * CN_ML_LN2_LO;
    return cn_mb_fast_two_sum(s.hi, s.lo);
}

/* log2(x) = k + rest/log(2). */
static inline CN_HD cn_dd cn_ml_log2_of(int k, cn_dd rest)
{
    cn_dd p = cn_mb_dd_mul(rest, (cn_dd){CN_ML_INVLN2_HI, CN_ML_INVLN2_LO});
    return cn_mb_dd_add((cn_dd){(double)k, 0.0}, p);
}

/* log1p(x) for x > -1 finite, as a double-double, about 2^-66 relative. */
static inline CN_HD cn_dd cn_ml_log1p_mid_of(double x)
{
    if (cn_ml_abs(x) < 0x1p-7)
        return cn_ml_log1p_mid((cn_dd){x, 0.0});
    cn_dd u = cn_mb_two_sum(1.0, x);
    cn_dd l = cn_ml_log_mid(u.hi);
    return cn_mb_dd_add(l, (cn_dd){u.lo / u.hi, 0.0});
}

/* ------------------------------------------------------------ the accurate path (about 2^-100) */

/* d + r*s for double-doubles r, s and a double-double coefficient d. */
static inline CN_HD cn_dd cn_ml_horner_step(cn_dd r, cn_dd s, double dhi, double dlo)
{
    return cn_mb_dd_add((cn_dd){dhi, dlo}, cn_mb_dd_mul(r, s));
}

/* log1p(r) for |r| < 2^-7: the series to r^15 (truncation below 2^-102 |r|),
 * terms from r^8 in double (their rounding is below 2^-105 |r|). */
static inline CN_HD cn_dd cn_ml_log1p_acc(cn_dd r)
{
    double rh = r.hi;
    double q = CN_ML_LC8 + rh * (CN_ML_LC9 + rh * (CN_ML_LC10 + rh * (CN_ML_LC11 + rh * (CN_ML_LC12 + rh * (CN_ML_LC13 + rh * (CN_ML_LC14 + rh * CN_ML_LC15))))));
    cn_dd s = cn_mb_dd_add((cn_dd){CN_ML_LC7, CN_ML_LC7_LO}, cn_mb_dd_mul_d(r, q));
    s = cn_ml_horner_step(r, s, CN_ML_LC6, CN_ML_LC6_LO);
    s = cn_ml_horner_step(r, s, CN_ML_LC5, CN_ML_LC5_LO);
    s = cn_ml_horner_step(r, s, CN_ML_LC4, CN_ML_LC4_LO);
    s = cn_ml_horner_step(r, s, CN_ML_LC3, CN_ML_LC3_LO);
    s = cn_ml_horner_step(r, s, CN_ML_LC2, CN_ML_LC2_LO);
    s = cn_ml_horner_step(r, s, CN_ML_LC1, CN_ML_LC1_LO);
    return cn_mb_dd_mul(r, s);
}

/* log(x) - k*log(2) for x > 0 finite, about 2^-100 relative. */
static inline CN_HD cn_dd cn_ml_rest_acc(double x, int *k)
{
    int i;
    double m, invc;
    cn_dd t;
    *k = cn_ml_reduce(x, &i, &m);
    cn_ml_log_row(i, &invc, &t);
    return cn_mb_dd_add(t, cn_ml_log1p_acc(cn_ml_reduced(m, invc)));
}

/* k*log(2) to about 2^-120 relative: log(2) = A + B + C, k*A and k*B exact. */
static inline CN_HD cn_dd cn_ml_kln2_acc(int k)
{
    cn_dd s = cn_mb_fast_two_sum(k * CN_ML_LN2_A, k * CN_ML_LN2_B);
    s.lo += k * CN_ML_LN2_C;
    return cn_mb_fast_two_sum(s.hi, s.lo);
}

static inline CN_HD cn_dd cn_ml_log_acc(double x)
{
    int k;
    cn_dd rest = cn_ml_rest_acc(x, &k);
    return cn_mb_dd_add(cn_ml_kln2_acc(k), rest);
}

static inline CN_HD cn_dd cn_ml_log1p_acc_of(double x)
{
    if (cn_ml_abs(x) < 0x1p-7)
        return cn_ml_log1p_acc((cn_dd){x, 0.0});
    cn_dd u = cn_mb_two_sum(1.0, x);
    cn_dd l = cn_ml_log_acc(u.hi);
    cn_dd c = cn_mb_two_prod(u.lo, 1.0 / u.hi); /* ul/uh: its own error is far below 2^-100 of l */
    return cn_mb_dd_add(l, c);
}

/* ------------------------------------------------------------ rounding to f32 */

/* The float nearest to hi + lo when every real within err of it rounds to
 * that float (*ok = 1); else *ok = 0 and the float nearest to hi. The test is
 * against the midpoint M next to hi: d = (hi - M) + lo, hi - M exact. */
static inline CN_HD float cn_ml_dd_to_f32(double hi, double lo, double err, int *ok)
{
    int neg = hi < 0;
    if (neg) {
        hi = -hi;
        lo = -lo;
    }
    float f = (float)hi, out = f;
    double fd = cn_mb_bits32(f) == 0x7f800000u ? 0x1p128 : (double)f;
    *ok = 1;
    if (fd != hi) {
        uint32_t b = cn_mb_bits32(f);
        float g = cn_mb_f32(hi > fd ? b + 1 : b - 1);
        double gd = cn_mb_bits32(g) == 0x7f800000u ? 0x1p128 : (double)g;
        double mid = 0.5 * (fd + gd);
        double d = (hi - mid) + lo;
        if (d > err || d < -err)
            out = (d > 0) == (gd > fd) ? g : f;
        else
            *ok = 0;
    }
    return neg ? -out : out;
}

/* ------------------------------------------------------------ log */

/* NaN, zeros, negatives and +inf of log and log2: whether x is one (*out set). */
static inline CN_HD int cn_ml_log_special(double x, double *out)
{
    if (x > 0 && x < cn_ml_inf64())
        return 0;
    if (x != x)
        *out = x + x;
    else if (x == 0)
        *out = -cn_ml_inf64();
    else if (x < 0)
        *out = cn_ml_nan64();
    else
        *out = x;
    return 1;
}

static CN_MB_COLD float cn_ml_log_slow_f32(double x)
{
    cn_dd l = cn_ml_log_acc(x);
    int ok;
    return cn_ml_dd_to_f32(l.hi, l.lo, cn_ml_abs(l.hi) * 0x1p-92, &ok);
}

static inline CN_HD float cn_mr_log_f32(float x)
{
    double xd = x, s, rest;
    uint32_t u = cn_mb_bits32(x);
    int k;
    if (u - 0x00800000u < 0x7f000000u) { /* positive and normal: the common case */
#ifdef CN_MB_FIRST_FMA
        int ok;
        float f = cn_ml_log_first32(u, &ok);
        return ok ? f : cn_ml_log_slow_f32(xd);
#else
        rest = cn_ml_rest_fast32(u, &k);
#endif
    } else {
        if (cn_ml_log_special(xd, &s)) /* the only NaNs: the one quiet NaN (see the end) */
            return cn_mb_canon32((float)s);
        rest = cn_ml_rest_fast(xd, &k);
    }
    double y = cn_mb_mad((double)k, CN_ML_LN2, rest);
    if (cn_mb_rounds_same(y, cn_ml_abs(y) * 0x1p-45))
        return (float)y;
    return cn_ml_log_slow_f32(xd);
}

static inline CN_HD double cn_mr_log_f64(double x)
{
    double s;
    if (cn_ml_log_special(x, &s))
        return s;
    cn_dd l = cn_ml_log_mid(x);
    return l.hi + l.lo;
}

/* ------------------------------------------------------------ log2 */

static CN_MB_COLD float cn_ml_log2_slow_f32(double x)
{
    int k, ok;
    cn_dd rest = cn_ml_rest_acc(x, &k);
    cn_dd l = cn_ml_log2_of(k, rest);
    return cn_ml_dd_to_f32(l.hi, l.lo, cn_ml_abs(l.hi) * 0x1p-92, &ok);
}

static inline CN_HD float cn_mr_log2_f32(float x)
{
    double xd = x, s, rest;
    uint32_t u = cn_mb_bits32(x);
    int k;
    if (u - 0x00800000u < 0x7f000000u) {
#ifdef CN_MB_FIRST_FMA
        int ok;
        float f = cn_ml_log2_first32(u, &ok);
        return ok ? f : cn_ml_log2_slow_f32(xd);
#else
        rest = cn_ml_rest_fast32(u, &k);
#endif
    } else {
#ifdef CN_MB_FIRST_FMA
        if (cn_ml_log_special(xd, &s)) /* the only NaNs: the one quiet NaN (see the end) */
            return cn_mb_canon32((float)s);
#else
        if (cn_ml_log_special(xd, &s))
            return (float)s;
#endif
        rest = cn_ml_rest_fast(xd, &k);
    }
    double y = k + rest * CN_ML_INVLN2_HI;
    if (cn_mb_rounds_same(y, cn_ml_abs(y) * 0x1p-45))
        return (float)y;
    return cn_ml_log2_slow_f32(xd);
}

static inline CN_HD double cn_mr_log2_f64(double x)
{
    double s;
    if (cn_ml_log_special(x, &s))
        return s;
    int k;
    cn_dd rest = cn_ml_rest_mid(x, &k);
    cn_dd l = cn_ml_log2_of(k, rest);
    return l.hi + l.lo;
}

/* ------------------------------------------------------------ log1p */

/* NaN, zeros, x <= -1 and +inf of log1p: whether x is one (*out set). */
static inline CN_HD int cn_ml_log1p_special(double x, double *out)
{
    if (x > -1 && x < cn_ml_inf64() && x != 0)
        return 0;
    if (x != x)
        *out = x + x;
    else if (x == 0)
        *out = x; /* log1p(+-0) = +-0 */
    else if (x == -1)
        *out = -cn_ml_inf64();
    else if (x < -1)
        *out = cn_ml_nan64();
    else
        *out = x;
    return 1;
}

/* log1p(x) in double for an f32 x > -1 with |x| >= 2^-7: log's first try at
 * u = 1 + x. The sum is exact below 2^53 (x's bits reach no lower than
 * 2^-31, u's no higher than 2^53); above, u = x and log(x) is within
 * 2^-58 of log(1 + x) relative. m then has up to 31 bits, so m*invc is
 * taken exactly (cn_mb_two_prod) and r = (p - 1) + e rounds once (p - 1 is
 * exact: p is within 2^-8 of 1): 2^-53 |r|, |r| < 2^-8. With the series'
 * tail (2^-52 |r|), T's high part (2^-55), k*log(2) (2^-53 |k log 2|) and
 * the sums' roundings, the error stays below 2^-49 |log1p(x)|
 * (|log1p(x)| >= 2^-7.01 and no term exceeds 1.5 |log1p(x)| when k = 0). */
static inline CN_HD double cn_ml_log1p_first(double x)
{
    int i;
    double m, invc;
    cn_dd t;
    int k = cn_ml_reduce(1.0 + x, &i, &m);
    cn_ml_log_row(i, &invc, &t);
    cn_dd pr = cn_mb_two_prod(m, invc);
    return cn_mb_mad((double)k, CN_ML_LN2, t.hi + cn_ml_log1p_fast((pr.hi - 1.0) + pr.lo));
}

static inline CN_HD float cn_mr_log1p_f32(float x)
{
    double xd = x, s;
    if (cn_ml_log1p_special(xd, &s))
        return (float)s;
    /* below 2^-7 the series at x itself (its error is below 2^-50 |y|) */
    double y = cn_ml_abs(xd) < 0x1p-7 ? cn_ml_log1p_fast(xd) : cn_ml_log1p_first(xd);
    if (cn_mb_rounds_same(y, cn_ml_abs(y) * 0x1p-45))
        return (float)y;
    cn_dd l = cn_ml_log1p_acc_of(xd);
    int ok;
    return cn_ml_dd_to_f32(l.hi, l.lo, cn_ml_abs(l.hi) * 0x1p-92, &ok);
}

static inline CN_HD double cn_mr_log1p_f64(double x)
{
    double s;
    if (cn_ml_log1p_special(x, &s))
        return s;
    cn_dd l = cn_ml_log1p_mid_of(x);
    return l.hi + l.lo;
}

/* ------------------------------------------------------------ exp of a double-double (for pow) */

/* 2^(j/128) as a double-double, j in [0, 128). */
static inline CN_HD cn_dd cn_ml_exp_row(int j)
{
    CN_MB_ALIGN16 static const double tab[128][2] = {
        {0x1p+0, 0x0p+0},
        {0x1.0163da9fb3335p+0, 0x1.b61299ab8cdb7p-54},
        {0x1.02c9a3e778061p+0, -0x1.19083535b085dp-56},
        {0x1.04315e86e7f85p+0, -0x1.0a31c1977c96ep-54},
        {0x1.059b0d3158574p+0, 0x1.d73e2a475b465p-55},
        {0x1.0706b29ddf6dep+0, -0x1.c91dfe2b13c27p-55},
        {0x1.0874518759bc8p+0, 0x1.186be4bb284ffp-57},
        {0x1.09e3ecac6f383p+0, 0x1.1487818316136p-54},
        {0x1.0b5586cf9890fp+0, 0x1.8a62e4adc610bp-54},
        {0x1.0cc922b7247f7p+0, 0x1.01edc16e24f71p-54},
        {0x1.0e3ec32d3d1a2p+0, 0x1.03a1727c57b53p-59},
        {0x1.0fb66affed31bp+0, -0x1.b9bedc44ebd7bp-57},
        {0x1.11301d0125b51p+0, -0x1.6c51039449b3ap-54},
        {0x1.12abdc06c31ccp+0, -0x1.1b514b36ca5c7p-58},
        {0x1.1429aaea92dep+0, -0x1.32fbf9af1369ep-54},
        {0x1.15a98c8a58e51p+0, 0x1.2406ab9eeab0ap-55},
        {0x1.172b83c7d517bp+0, -0x1.19041b9d78a76p-55},
        {0x1.18af9388c8deap+0, -0x1.11023d1970f6cp-54},
        {0x1.1a35beb6fcb75p+0, 0x1.e5b4c7b4968e4p-55},
        {0x1.1bbe084045cd4p+0, -0x1.95386352ef607p-54},
        {0x1.1d4873168b9aap+0, 0x1.e016e00a2643cp-54},
        {0x1.1ed5022fcd91dp+0, -0x1.1df98027bb78cp-54},
        {0x1.2063b88628cd6p+0, 0x1.dc775814a8495p-55},
        {0x1.21f49917ddc96p+0, 0x1.2a97e9494a5eep-55},
        {0x1.2387a6e756238p+0, 0x1.9b07eb6c70573p-54},
        {0x1.251ce4fb2a63fp+0, 0x1.ac155bef4f4a4p-55},
        {0x1.26b4565e27cddp+0, 0x1.2bd339940e9d9p-55},
        {0x1.284dfe1f56381p+0, -0x1.a4c3a8c3f0d7ep-54},
        {0x1.29e9df51fdee1p+0, 0x1.612e8afad1255p-55},
        {0x1.2b87fd0dad99p+0, -0x1.10adcd6381aa4p-59},
        {0x1.2d285a6e4030bp+0, 0x1.0024754db41d5p-54},
        {0x1.2ecafa93e2f56p+0, 0x1.1ca0f45d52383p-56},
        {0x1.306fe0a31b715p+0, 0x1.6f46ad23182e4p-55},
        {0x1.32170fc4cd831p+0, 0x1.a9ce78e18047cp-55},
        {0x1.33c08b26416ffp+0, 0x1.32721843659a6p-54},
        {0x1.356c55f929ff1p+0, -0x1.b5cee5c4e4628p-55},
        {0x1.371a7373aa9cbp+0, -0x1.63aeabf42eae2p-54},
        {0x1.38cae6d05d866p+0, -0x1.e958d3c9904bdp-54},
        {0x1.3a7db34e59ff7p+0, -0x1.5e436d661f5e3p-56},
        {0x1.3c32dc313a8e5p+0, -0x1.efff8375d29c3p-54},
        {0x1.3dea64c123422p+0, 0x1.ada0911f09ebcp-55},
        {0x1.3fa4504ac801cp+0, -0x1.7d023f956f9f3p-54},
        {0x1.4160a21f72e2ap+0, -0x1.ef3691c309278p-58},
        {0x1.431f5d950a897p+0, -0x1.1c7dde35f7999p-55},
        {0x1.44e086061892dp+0, 0x1.89b7a04ef80dp-59},
        {0x1.46a41ed1d0057p+0, 0x1.c944bd1648a76p-54},
        {0x1.486a2b5c13cdp+0, 0x1.3c1a3b69062fp-56},
        {0x1.4a32af0d7d3dep+0, 0x1.9cb62f3d1be56p-54},
        {0x1.4bfdad5362a27p+0, 0x1.d4397afec42e2p-56},
        {0x1.4dcb299fddd0dp+0, 0x1.8ecdbbc6a7833p-54},
        {0x1.4f9b2769d2ca7p+0, -0x1.4b309d25957e3p-54},
        {0x1.516daa2cf6642p+0, -0x1.f768569bd93efp-55},
        {0x1.5342b569d4f82p+0, -0x1.07abe1db13cadp-55},
        {0x1.551a4ca5d920fp+0, -0x1.d689cefede59bp-55},
        {0x1.56f4736b527dap+0, 0x1.9bb2c011d93adp-54},
        {0x1.58d12d497c7fdp+0, 0x1.295e15b9a1de8p-55},
        {0x1.5ab07dd485429p+0, 0x1.6324c054647adp-54},
        {0x1.5c9268a5946b7p+0, 0x1.c4b1b816986a2p-60},
        {0x1.5e76f15ad2148p+0, 0x1.ba6f93080e65ep-54},
        {0x1.605e1b976dc09p+0, -0x1.3e2429b56de47p-54},
        {0x1.6247eb03a5585p+0, -0x1.383c17e40b497p-54},
        {0x1.6434634ccc32p+0, -0x1.c483c759d8933p-55},
        {0x1.6623882552225p+0, -0x1.bb60987591c34p-54},
        {0x1.68155d44ca973p+0, 0x1.038ae44f73e65p-57},
        {0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54},
        {0x1.6c012750bdabfp+0, -0x1.2895667ff0b0dp-56},
        {0x1.6dfb23c651a2fp+0, -0x1.bbe3a683c88abp-57},
        {0x1.6ff7df9519484p+0, -0x1.83c0f25860ef6p-55},
        {0x1.71f75e8ec5f74p+0, -0x1.16e4786887a99p-55},
        {0x1.73f9a48a58174p+0, -0x1.0a8d96c65d53cp-54},
        {0x1.75feb564267c9p+0, -0x1.0245957316dd3p-54},
        {0x1.780694fde5d3fp+0, 0x1.866b80a02162dp-54},
        {0x1.7a11473eb0187p+0, -0x1.41577ee04992fp-55},
        {0x1.7c1ed0130c132p+0, 0x1.f124cd1164dd6p-54},
        {0x1.7e2f336cf4e62p+0, 0x1.05d02ba15797ep-56},
        {0x1.80427543e1a12p+0, -0x1.27c86626d972bp-54},
        {0x1.82589994cce13p+0, -0x1.d4c1dd41532d8p-54},
        {0x1.8471a4623c7adp+0, -0x1.8d684a341cdfbp-55},
        {0x1.868d99b4492edp+0, -0x1.fc6f89bd4f6bap-54},
        {0x1.88ac7d98a6699p+0, 0x1.994c2f37cb53ap-54},
        {0x1.8ace5422aa0dbp+0, 0x1.6e9f156864b27p-54},
        {0x1.8cf3216b5448cp+0, -0x1.0d55e32e9e3aap-56},
        {0x1.8f1ae99157736p+0, 0x1.5cc13a2e3976cp-55},
        {0x1.9145b0b91ffc6p+0, -0x1.dd6792e582524p-54},
        {0x1.93737b0cdc5e5p+0, -0x1.75fc781b57ebcp-57},
        {0x1.95a44cbc8520fp+0, -0x1.64b7c96a5f039p-56},
        {0x1.97d829fde4e5p+0, -0x1.d185b7c1b85d1p-54},
        {0x1.9a0f170ca07bap+0, -0x1.173bd91cee632p-54},
        {0x1.9c49182a3f09p+0, 0x1.c7c46b071f2bep-56},
        {0x1.9e86319e32323p+0, 0x1.824ca78e64c6ep-56},
        {0x1.a0c667b5de565p+0, -0x1.359495d1cd533p-54},
        {0x1.a309bec4a2d33p+0, 0x1.6305c7ddc36abp-54},
        {0x1.a5503b23e255dp+0, -0x1.d2f6edb8d41e1p-54},
        {0x1.a799e1330b358p+0, 0x1.bcb7ecac563c7p-54},
        {0x1.a9e6b5579fdbfp+0, 0x1.0fac90ef7fd31p-54},
        {0x1.ac36bbfd3f37ap+0, -0x1.f9234cae76cdp-55},
        {0x1.ae89f995ad3adp+0, 0x1.7a1cd345dcc81p-54},
        {0x1.b0e07298db666p+0, -0x1.bdef54c80e425p-54},
        {0x1.b33a2b84f15fbp+0, -0x1.2805e3084d708p-57},
        {0x1.b59728de5593ap+0, -0x1.c71dfbbba6de3p-54},
        {0x1.b7f76f2fb5e47p+0, -0x1.5584f7e54ac3bp-56},
        {0x1.ba5b030a1064ap+0, -0x1.efcd30e54292ep-54},
        {0x1.bcc1e904bc1d2p+0, 0x1.23dd07a2d9e84p-55},
        {0x1.bf2c25bd71e09p+0, -0x1.efdca3f6b9c73p-54},
        {0x1.c199bdd85529cp+0, 0x1.11065895048ddp-55},
        {0x1.c40ab5fffd07ap+0, 0x1.b4537e083c60ap-54},
        {0x1.c67f12e57d14bp+0, 0x1.2884dff483cadp-54},
        {0x1.c8f6d9406e7b5p+0, 0x1.1acbc48805c44p-56},
        {0x1.cb720dcef9069p+0, 0x1.503cbd1e949dbp-56},
        {0x1.cdf0b555dc3fap+0, -0x1.dd83b53829d72p-55},
        {0x1.d072d4a07897cp+0, -0x1.cbc3743797a9cp-54},
        {0x1.d2f87080d89f2p+0, -0x1.d487b719d8578p-54},
        {0x1.d5818dcfba487p+0, 0x1.2ed02d75b3707p-55},
        {0x1.d80e316c98398p+0, -0x1.11ec18beddfe8p-54},
        {0x1.da9e603db3285p+0, 0x1.c2300696db532p-54},
        {0x1.dd321f301b46p+0, 0x1.2da5778f018c3p-54},
        {0x1.dfc97337b9b5fp+0, -0x1.1a5cd4f184b5cp-54},
        {0x1.e264614f5a129p+0, -0x1.7b627817a1496p-54},
        {0x1.e502ee78b3ff6p+0, 0x1.39e8980a9cc8fp-55},
        {0x1.e7a51fbc74c83p+0, 0x1.2d522ca0c8de2p-54},
        {0x1.ea4afa2a490dap+0, -0x1.e9c23179c2893p-54},
        {0x1.ecf482d8e67f1p+0, -0x1.c93f3b411ad8cp-54},
        {0x1.efa1bee615a27p+0, 0x1.dc7f486a4b6bp-54},
        {0x1.f252b376bba97p+0, 0x1.3a1a5bf0d8e43p-54},
        {0x1.f50765b6e454p+0, 0x1.9d3e12dd8a18bp-54},
        {0x1.f7bfdad9cbe14p+0, -0x1.dbb12d006350ap-54},
        {0x1.fa7c1819e90d8p+0, 0x1.74853f3a5931ep-55},
        {0x1.fd3c22b8f71f1p+0, 0x1.2eb74966579e7p-57},
    };
#ifdef __CUDA_ARCH__
    /* One 16-byte load for the row where there were two 8-byte ones: a
     * warp's rows fall on up to 16 of the table's 128-byte lines, each line
     * a pass of the L1 cache per load instruction (tanh's map: 1.21x to
     * 1.20x CUDA's time, evidence/2026-12-02-math-tanh.md). */
    double2 v = __ldg((const double2 *)tab[j]);
    return (cn_dd){v.x, v.y};
#else
    return (cn_dd){tab[j][0], tab[j][1]};
#endif
}


/* d + r*s for double-doubles r, s and a double-double coefficient d: see
 * cn_ml_horner_step above. exp(t) for |t.hi| < 750 as 2^*e * (hi + lo) with
 * hi + lo in [0.99, 2): t = k*log(2)/128 + r with |r| < 2^-8.5 (log(2)/128 in
 * three parts: k*L1 and k*L2 exact for |k| < 2^18, and t.hi - k*L1 exact by
 * Sterbenz), then 2^(k/128) from the table times exp(r), exp(r) the series to
 * r^10 (truncation below 2^-118), terms from r^6 in double. About 2^-100
 * relative. */
static inline CN_HD cn_dd cn_ml_exp_acc(cn_dd t, int *e)
{
    double kd = t.hi * CN_ML_EXP_INVL + 0x1.8p52 - 0x1.8p52; /* round to an integer */
    int k = (int)kd, j = k & 127;
    *e = (k - j) / 128;
    cn_dd r = cn_mb_two_sum(t.hi - kd * CN_ML_EXP_L1, -kd * CN_ML_EXP_L2);
    r.lo += t.lo - kd * CN_ML_EXP_L3;
    r = cn_mb_fast_two_sum(r.hi, r.lo);
    double rh = r.hi;
    double q = CN_ML_EC6 + rh * (CN_ML_EC7 + rh * (CN_ML_EC8 + rh * (CN_ML_EC9 + rh * CN_ML_EC10)));
    cn_dd s = cn_mb_dd_add((cn_dd){CN_ML_EC5, CN_ML_EC5_LO}, cn_mb_dd_mul_d(r, q));
    s = cn_ml_horner_step(r, s, CN_ML_EC4, CN_ML_EC4_LO);
    s = cn_ml_horner_step(r, s, CN_ML_EC3, CN_ML_EC3_LO);
    s = cn_ml_horner_step(r, s, CN_ML_EC2, CN_ML_EC2_LO);
    s = cn_ml_horner_step(r, s, CN_ML_EC1, CN_ML_EC1_LO);
    s = cn_ml_horner_step(r, s, CN_ML_EC0, CN_ML_EC0_LO);
    return cn_mb_dd_mul(cn_ml_exp_row(j), s);
}

/* exp(th + tl) in double for |th| < 105 (f32 pow's range: the result is a
 * normal double), relative error below 2^-50: the same reduction, a degree-5
 * series (truncation 2^-60), 2^(k/128) with its low part. */
static inline CN_HD double cn_ml_exp_fast(double th, double tl)
{
    double kd = th * CN_ML_EXP_INVL + 0x1.8p52 - 0x1.8p52;
    int k = (int)kd, j = k & 127;
    double r = (th - kd * CN_ML_EXP_L1) - kd * CN_ML_EXP_L2 + tl;
    double p1 = r * (1.0 + r * (CN_ML_EC2 + r * (CN_ML_EC3 + r * (CN_ML_EC4 + r * CN_ML_EC5))));
    cn_dd tj = cn_ml_exp_row(j);
    return (tj.hi + (tj.hi * p1 + tj.lo)) * cn_mb_pow2((k - j) / 128);
}

/* (hi + lo) * 2^e rounded once to double, hi + lo in [0.99, 2): below the
 * normals the sum is rounded on the subnormals' grid (2^-1074) by adding it,
 * scaled, to 1, where the grid of doubles is 2^-52. */
static inline CN_HD double cn_ml_scale(cn_dd v, int e)
{
    if (e >= -1020) {
        double d = v.hi + v.lo;
        if (e > 1000) /* 2^1024 is not a double: scale in two steps (the last may overflow, rightly) */
            return d * cn_mb_pow2(e - 1000) * 0x1p1000;
        return d * cn_mb_pow2(e);
    }
    double sc = cn_mb_pow2(e + 1022); /* e >= -1077 here, so sc >= 2^-55 */
    double sh = v.hi * sc, sl = v.lo * sc;
    if (sh >= 1.0)
        return (sh + sl) * 0x1p-1022;
    cn_dd a = cn_mb_fast_two_sum(1.0, sh);
    double w = a.hi + (a.lo + sl);
    return (w - 1.0) * 0x1p-1022;
}

/* ------------------------------------------------------------ pow */

/* 0: y is not an integer, 1: an odd integer, 2: an even integer (y finite). */
static inline CN_HD int cn_ml_int_class(double y)
{
    uint64_t u = cn_mb_bits64(y);
    int ex = (int)((u >> 52) & 0x7ff) - 1023;
    if (y == 0 || ex >= 53)
        return 2;
    if (ex < 0)
        return 0;
    uint64_t mant = (u & 0xfffffffffffffULL) | (1ULL << 52);
    int fb = 52 - ex;
    if (mant & ((1ULL << fb) - 1))
        return 0;
    return ((mant >> fb) & 1) ? 1 : 2;
}

/* C Annex F's special cases of pow: whether (x, y) is one (*out set). Else
 * x is finite, nonzero and not 1, y is finite and nonzero, x < 0 only with
 * an integer y, and *neg says whether the result is negative. */
static inline CN_HD int cn_ml_pow_special(double x, double y, double *out, int *neg)
{
    double inf = cn_ml_inf64(), ax = cn_ml_abs(x);
    int yc = (y == y && y != inf && y != -inf) ? cn_ml_int_class(y) : 2;
    *neg = x < 0 && yc == 1;
    if (y == 0 || x == 1)
        *out = 1.0; /* even for a NaN in the other argument */
    else if (x != x || y != y)
        *out = x + y;
    else if (y == inf || y == -inf)
        *out = ax == 1 ? 1.0 : ((ax < 1) == (y > 0) ? 0.0 : inf);
    else if (x == 0)
        *out = y < 0 ? (yc == 1 ? 1.0 / x : inf) : (yc == 1 ? x : 0.0);
    else if (x == inf)
        *out = y < 0 ? 0.0 : inf;
    else if (x == -inf)
        *out = yc == 1 ? (y < 0 ? -0.0 : -inf) : (y < 0 ? 0.0 : inf);
    else if (x < 0 && yc == 0)
        *out = cn_ml_nan64();
    else
        return 0;
    return 1;
}

/* |x|^y for the non-special cases: log(|x|) to 2^-100, t = y*log(|x|) as a
 * double-double, exp(t) to 2^-100, rounded once (subnormals too). Past the
 * range (|t| > 710 or t < -746) the result is inf or 0 outright. */
static inline CN_HD double cn_ml_pow_mag64(double ax, double y)
{
    cn_dd l = cn_ml_log_acc(ax);
    double th = l.hi * y;
    if (th > 710)
        return cn_ml_inf64();
    if (th < -746)
        return 0.0;
    int e;
    cn_dd v = cn_ml_exp_acc(cn_mb_dd_mul_d(l, y), &e);
    return cn_ml_scale(v, e);
}

static inline CN_HD double cn_mr_pow_f64(double x, double y)
{
    double s;
    int neg;
    if (cn_ml_pow_special(x, y, &s, &neg))
        return s;
    double r = cn_ml_pow_mag64(cn_ml_abs(x), y);
    return neg ? -r : r;
}

/* The integer square root of w when w is a perfect square, else 0 (w < 2^25). */
static inline CN_HD uint64_t cn_ml_exact_sqrt(uint64_t w)
{
    uint64_t lo = 0, hi = 1ULL << 13;
    while (lo < hi) { /* the least s with s*s >= w */
        uint64_t mid = (lo + hi) / 2;
        if (mid * mid < w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo * lo == w ? lo : 0;
}

/* m^n for n >= 1, or 0 when it reaches 2^25 (no f32 result or midpoint then). */
static inline CN_HD uint64_t cn_ml_small_power(uint64_t m, uint64_t n)
{
    uint64_t p = 1;
    for (uint64_t i = 0; i < n; i++) {
        p *= m;
        if (p >= (1ULL << 25))
            return 0;
    }
    return p;
}

/* An odd integer *m and *ex with v = *m * 2^*ex (v a positive normal double). */
static inline CN_HD void cn_ml_odd_split(double v, uint64_t *m, int *ex)
{
    uint64_t u = cn_mb_bits64(v);
    *ex = (int)(u >> 52) - 1075;
    *m = (u & 0xfffffffffffffULL) | (1ULL << 52);
    while (!(*m & 1)) {
        *m >>= 1;
        (*ex)++;
    }
}

/* Whether ax^y (ax > 0, y finite, both f32 values) is exactly P * 2^J with
 * P < 2^25: the only way it can be a midpoint between two floats (or 2^-150),
 * which no approximation can round. If so *out is it rounded to f32 (the
 * conversion from the exact double rounds ties to even). With ax = m*2^ex and
 * y = n*2^ey (m, n odd): m = 1 gives 2^(ex*y), exact when ex*y is an integer;
 * else y > 0 is needed, and for ey < 0 m must be a 2^-ey-th power w^(2^-ey)
 * (then P = w^n) and ex a multiple of 2^-ey. */
static inline CN_HD int cn_ml_pow_exact32(double ax, double y, float *out)
{
    uint64_t m, n;
    int ex, ey;
    cn_ml_odd_split(ax, &m, &ex);
    cn_ml_odd_split(y < 0 ? -y : y, &n, &ey);
    long long p = 0, jn = 0; /* the result P * 2^(jn) */
    if (ey >= 0 && ey < 8 && n < 64) { /* y an integer, |y| < 2^13 */
        long long yi = (long long)n << ey;
        if (y < 0)
            yi = -yi;
        p = m == 1 ? 1 : (y > 0 ? (long long)cn_ml_small_power(m, (uint64_t)yi) : 0);
        jn = (long long)ex * yi;
    } else if (ey < 0 && ey > -8 && n < 64) {
        int k = -ey;
        if (ex & ((1 << k) - 1))
            return 0;
        uint64_t w = m;
        for (int i = 0; i < k && w; i++)
            w = w == 1 ? 1 : cn_ml_exact_sqrt(w);
        if (w == 0 || (y < 0 && w != 1))
            return 0;
        p = (long long)cn_ml_small_power(w, n);
        jn = (long long)(ex / (1 << k)) * (long long)n * (y < 0 ? -1 : 1);
    }
    if (p == 0 || jn < -1000 || jn > 1000)
        return 0;
    *out = (float)((double)p * cn_mb_pow2((int)jn));
    return 1;
}

/* |x|^y for f32 values, not special: the fast path (log in double to 2^-49
 * relative, so t = y log|x| (|t| < 105) to 2^-42 absolute, exp in double to
 * 2^-50: 2^-41.9 in all, 2^-40 is the bound used), then the accurate one
 * (2^-100; 2^-90 used) tested against the midpoint, then the exact cases. */
static inline CN_HD float cn_ml_pow_mag32(double ax, double y)
{
    int k;
    double rest = cn_ml_rest_fast(ax, &k);
    double th = (k * CN_ML_LN2 + rest) * y;
    if (th > 89.5) /* exp(89.5) > 2^128 */
        return cn_mb_f32(0x7f800000u);
    if (th < -104.5) /* exp(-104.5) < 2^-150 */
        return 0.0f;
    double v = cn_ml_exp_fast(th, 0.0);
    if (cn_mb_rounds_same(v, v * 0x1p-40))
        return (float)v;
    int e, ok;
    cn_dd l = cn_ml_log_acc(ax);
    cn_dd w = cn_ml_exp_acc(cn_mb_dd_mul_d(l, y), &e);
    double sc = cn_mb_pow2(e);
    float f = cn_ml_dd_to_f32(w.hi * sc, w.lo * sc, w.hi * sc * 0x1p-90, &ok), exact;
    if (!ok && cn_ml_pow_exact32(ax, y, &exact))
        return exact;
    return f;
}

#ifdef CN_MB_FIRST_FMA
/* |x|^y rounded to f32 for a normal positive f32 x given by its bits and a
 * finite f32 y, the FMA first try: t = y log2(x) = k y + (T.hi + log1p(r)) yl
 * with yl = y/log(2), then 2^t = 2^e 2^(j/128) 2^r0, t = kk/128 + r0; *ok = 0
 * where it does not decide, or where t is outside [-126, 128).
 *
 * t. yl = fl(y L) (L as in cn_ml_log2_first32: yl within 2^-52.81 of
 * y/log(2), relative), k y exact (|k| <= 128 and y has 24 bits), B = T.hi yl
 * + k y and t = s yl + B in two multiply-adds. Against t* = y log2(x), before t's own
 * rounding: yl (s - log1p(r)) + yl (T.hi - T) + (yl - y/log(2)) rest + B's
 * rounding. Rows 0 and 127 (T = 0: B = k y exactly): (E_s (1 + 2^-7.9) +
 * 2^-52.81) |y rest/log(2)| <= 2^-50.45 |y rest/log(2)|; the others: (E_s
 * 0.502 + 2^-53 1.502 + 2^-52.81) |y rest/log(2)| <= 2^-51.32 |y rest/log(2)|,
 * plus 2^-53 |B| with |B| <= |t*| + 0.503 |y rest/log(2)|. With |y
 * rest/log(2)| <= M |t*| (M = 1.4095, as in log2) and t's rounding: |t - t*|
 * <= 2^-49.79 |t*| on rows 0 and 127 and 2^-50.14 |t*| on the others. With
 * |t| < 128 (the test), |t*| < 128 (1 + 2^-49.7) and |t - t*| <= 2^-42.79,
 * so 2^t is within 2^-43.32 (log(2) 2^-42.79, to first order; the second is
 * far below) of 2^t* relative.
 *
 * 2^t. The low word of tk = 1.5*2^52 + 128 t (128 t exact, the sum rounded
 * to an integer) is kk = round(128 t), so |r0| <= 2^-8, and r0 = t - kk/128
 * is exact (for kk != 0, |t| > 2^-8: r0 is a multiple of 2^-61 below 2^-8).
 * p = r0 log(2) + r0^2 (X2C2 + r0 X2C3 + r0^2 X2C4) is 2^r0 - 1 to within
 * the series' remainder 2^-49.5 and the coefficients' 2^-63.2 (relative to
 * 2^r0; tools/gen_math_first_fma.c) and its roundings' 2^-60.4 (each below
 * 2^-53 of |p| <= 2^-8.52 or of a bracket below 0.25 times r0^2 <= 2^-16);
 * T.hi of the row (2^-53) and v's rounding (2^-53): v is within 2^-49.29 of
 * 2^(j/128) 2^r0 relative. In all |v 2^e - x^y| <= 2^-43.3 |x^y|, below
 * 2^-42: cn_mb_decided_normal_42's bound.
 *
 * The result. (float)v is in [0.997, 2] and e = (kk - j)/128 in [-126, 128]
 * is added to its exponent field (((kk & ~127) << 16) is e << 23 modulo
 * 2^32). That is the product with 2^e, rounded as v is, wherever it is a
 * normal float: e = -126 means kk >= -16128, with j = 0 only at kk = -16128,
 * where r0 = t + 126 >= 0 and v >= 1 (p >= 0), else T >= 2^(1/128) and v >
 * 1.002; e = 128 means kk = 16384, j = 0 and v < 1, so (float)v is below 1
 * (a finite result) or 1 (the bits of +inf: every real within the bound of
 * v rounds to 2^128 then, and so overflows). y = 0 gives t = 0 and v = 1,
 * x = 1 gives r = 0, T = 0, k = 0 and the same: 1 (C's pow(x, 0) and
 * pow(1, y)). An exact x^y that is a float is decided (its v is not near a
 * midpoint); one that is a midpoint is not, and goes to the second try
 * (cn_ml_pow_exact32). */
static inline CN_HD float cn_ml_pow_first32(uint32_t ux, double y, int *ok)
{
    int k;
    double thi, r = cn_ml_reduce_first32(ux, &k, &thi), yl = y * CN_ML_INVLN2_HI;
    double t = cn_mb_mad(cn_ml_log1p_estrin(r), yl, cn_mb_mad(thi, yl, k * y));
    double tk = cn_mb_mad(t, 128.0, 0x1.8p52); /* 1.5*2^52 + kk: kk is the low word */
    uint32_t kk = (uint32_t)cn_mb_bits64(tk);
    double r0 = cn_mb_mad(tk - 0x1.8p52, -0x1p-7, t), r2 = r0 * r0;
    double p = cn_mb_mad(r2, cn_mb_mad(r2, CN_ML_X2C4, cn_mb_mad(r0, CN_ML_X2C3, CN_ML_X2C2)), r0 * CN_ML_LN2);
    double tj = cn_ml_exp_row((int)(kk & 127)).hi;
    double v = cn_mb_mad(tj, p, tj);
    *ok = (t >= -126.0) & (t < 128.0) & cn_mb_decided_normal_42(v);
    return cn_mb_f32(cn_mb_bits32((float)v) + ((kk & ~127u) << 16)); /* times 2^e, e = (kk - j)/128 */
}

/* Everything the FMA first try leaves, as the plain form does it: the special
 * cases (NaN results the one quiet NaN: see the end), x < 0 or subnormal,
 * results outside f32's normal range, and the undecided. */
static CN_MB_COLD float cn_ml_pow_slow_f32(float x, float y)
{
    double s;
    int neg;
    if (cn_ml_pow_special(x, y, &s, &neg))
        return cn_mb_canon32((float)s);
    float r = cn_ml_pow_mag32(cn_ml_abs(x), y);
    return neg ? -r : r;
}
#endif

static inline CN_HD float cn_mr_pow_f32(float x, float y)
{
#ifdef CN_MB_FIRST_FMA
    uint32_t ux = cn_mb_bits32(x);
    if (ux - 0x00800000u < 0x7f000000u && (cn_mb_bits32(y) & 0x7fffffffu) < 0x7f800000u) {
        int ok;
        float f = cn_ml_pow_first32(ux, y, &ok);
        if (ok)
            return f;
    }
    return cn_ml_pow_slow_f32(x, y);
#else
    double s;
    int neg;
    if (cn_ml_pow_special(x, y, &s, &neg))
        return (float)s;
    float r = cn_ml_pow_mag32(cn_ml_abs(x), y);
    return neg ? -r : r;
#endif
}


/* The public names: every NaN result is the one quiet NaN (cn_mb_canon32/64), so that NaN bits
 * agree too (x86 keeps an input NaN's payload and makes 0xffc00000, the GPU makes 0x7fffffff). */
static inline CN_HD float cn_math_log_f32(float x) { return cn_mr_log_f32(x); }
static inline CN_HD double cn_math_log_f64(double x) { return cn_mb_canon64(cn_mr_log_f64(x)); }
#ifdef CN_MB_FIRST_FMA /* f32 log2 and pow with FMA first tries make their NaNs canonical where they arise */
static inline CN_HD float cn_math_log2_f32(float x) { return cn_mr_log2_f32(x); }
#else
static inline CN_HD float cn_math_log2_f32(float x) { return cn_mb_canon32(cn_mr_log2_f32(x)); }
#endif
static inline CN_HD double cn_math_log2_f64(double x) { return cn_mb_canon64(cn_mr_log2_f64(x)); }
static inline CN_HD float cn_math_log1p_f32(float x) { return cn_mb_canon32(cn_mr_log1p_f32(x)); }
static inline CN_HD double cn_math_log1p_f64(double x) { return cn_mb_canon64(cn_mr_log1p_f64(x)); }
static inline CN_HD double cn_math_pow_f64(double x, double y) { return cn_mb_canon64(cn_mr_pow_f64(x, y)); }
#ifdef CN_MB_FIRST_FMA
static inline CN_HD float cn_math_pow_f32(float x, float y) { return cn_mr_pow_f32(x, y); }
#else
static inline CN_HD float cn_math_pow_f32(float x, float y) { return cn_mb_canon32(cn_mr_pow_f32(x, y)); }
#endif

#endif
