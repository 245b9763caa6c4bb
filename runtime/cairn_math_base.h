/*
 * cairn_math_base.h: what every portable math function stands on.
 *
 * The portable functions (cairn_math.h) are plain IEEE arithmetic: each
 * + - * / rounds once, to nearest, in the type it is written in. The host
 * compiles them with -ffp-contract=off -fno-fast-math and nvcc with
 * --fmad=false, so no product is fused behind our back and the same source
 * gives the same bits on the host, the pool, --emulate and the GPU. Where an
 * algorithm wants an exact product it asks for one (cn_mb_two_prod): on the
 * device that is one fma, on the host Dekker's split; both give the exact
 * error term, so both give the same bits.
 *
 * Nothing here reads the rounding mode, errno or the FPU's flags: the
 * functions are pure.
 */
#ifndef CAIRN_MATH_BASE_H
#define CAIRN_MATH_BASE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef CN_HD
#ifdef __CUDACC__
#define CN_HD __host__ __device__
#else
#define CN_HD
#endif
#endif

/* An accurate path (an f32 function's second try, for about one input in a
 * million): out of line, so that its code and registers stay out of the
 * first try's. On the GPU a lane's registers decide how many of its blocks a
 * multiprocessor holds, and a memory-bound map wants them all; on the host
 * gcc then keeps the first try small (bench/math/run.sh: exp from 1.7x
 * glibc's time to 1.0x, log 1.55x to 1.0x, exp2 2.3x to 1.4x; evidence/
 * 2026-12-02-math-tanh.md). CN_MB_COLD_GPU is out of line on the GPU only:
 * atan2's second try, which on the host measured 2.2x glibc's time out of
 * line and 0.93x inline. */
#ifdef __CUDA_ARCH__
#define CN_MB_COLD __noinline__ CN_HD
#define CN_MB_COLD_GPU __noinline__ CN_HD
#elif defined(__GNUC__)
#define CN_MB_COLD __attribute__((noinline, cold)) CN_HD
#define CN_MB_COLD_GPU inline CN_HD
#else
#define CN_MB_COLD inline CN_HD
#define CN_MB_COLD_GPU inline CN_HD
#endif

/* A table whose rows are read with one 16-byte load on the GPU. */
#ifdef __cplusplus
#define CN_MB_ALIGN16 alignas(16)
#else
#define CN_MB_ALIGN16 _Alignas(16)
#endif

/* ------------------------------------------------------------ bits */

static inline CN_HD uint32_t cn_mb_bits32(float f)
{
#ifdef __CUDA_ARCH__
    return (uint32_t)__float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
#endif
}

static inline CN_HD float cn_mb_f32(uint32_t u)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
#endif
}

static inline CN_HD uint64_t cn_mb_bits64(double d)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(d);
#else
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
#endif
}

static inline CN_HD double cn_mb_f64(uint64_t u)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
#endif
}

/* 2^k as a double, for k in [-1022, 1023]. */
static inline CN_HD double cn_mb_pow2(int k) { return cn_mb_f64((uint64_t)(k + 1023) << 52); }

/* ------------------------------------------------------------ double-double */

/* A value hi + lo with |lo| <= ulp(hi) / 2: about 106 bits. */
typedef struct {
    double hi, lo;
} cn_dd;

/* a + b = s + e exactly (Knuth), any order of magnitude. */
static inline CN_HD cn_dd cn_mb_two_sum(double a, double b)
{
    double s = a + b, bb = s - a;
    double e = (a - (s - bb)) + (b - bb);
    return (cn_dd){s, e};
}

/* a + b = s + e exactly when |a| >= |b| (or a is 0) (Dekker). */
static inline CN_HD cn_dd cn_mb_fast_two_sum(double a, double b)
{
    double s = a + b;
    return (cn_dd){s, b - (s - a)};
}

/* a * b = p + e exactly, unless the product overflows or its error term
 * falls below the subnormals. */
static inline CN_HD cn_dd cn_mb_two_prod(double a, double b)
{
    double p = a * b;
#ifdef __CUDA_ARCH__
    return (cn_dd){p, __fma_rn(a, b, -p)};
#else
    /* Dekker: split each factor into 26-bit halves whose products are exact */
    const double c = 134217729.0; /* 2^27 + 1 */
    double ta = c * a, ah = ta - (ta - a), al = a - ah;
    double tb = c * b, bh = tb - (tb - b), bl = b - bh;
    double e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return (cn_dd){p, e};
#endif
}

/* ------------------------------------------------------------ first tries */

/* An f32 function's first try computes in double and asks whether its value
 * decides the rounding (its error bound against the nearest midpoint); what it
 * leaves undecided goes to the accurate path, which is the same everywhere. A
 * first try may therefore differ between machines in its last bits, never in
 * its answer: each machine's value lies within the bound its analysis states.
 * The GPU takes cheaper forms (one rounding per multiply-add where the host
 * has two, a refined float reciprocal for a division, and first tries of
 * their own for exp, tanh and log), because there each instruction of a first
 * try costs time in a memory-bound map (evidence/2026-12-02-math-device.md).
 * The analyses count two roundings per multiply-add, which bounds one too.
 * CN_MATH_FIRST_FMA compiles the GPU's forms on the host, so the MPFR checkers
 * test them there (tests/math/family.sh runs every sample both ways), and
 * tests/device/math_agree.cu shows the GPU's results equal the host's plain
 * forms' on all 2^32 inputs of each function.
 *
 * A host compiler that targets a fused multiply-add (__FMA__: x86-64 with
 * -mfma or -march=x86-64-v3; __ARM_FEATURE_FMA: AArch64) takes the GPU's
 * forms too, since there fma() is one instruction: on the development
 * machine's EPYC, f32 exp went from about 1.7x glibc's time to 0.9x-1.2x,
 * log from 2.2x to 0.7x-0.8x (evidence/2026-12-02-math-occupancy.md). They are the GPU's
 * first tries operation for operation (fma and __fma_rn round alike) except
 * the division's reciprocal, correctly rounded here and rcp.approx there.
 * Without such a target (cc's default on x86-64) the host keeps the plain
 * forms, whose results the exhaustive runs show. */
#if defined(__CUDA_ARCH__) || defined(CN_MATH_FIRST_FMA) || defined(__FMA__) || defined(__ARM_FEATURE_FMA)
#define CN_MB_FIRST_FMA 1
#endif

/* a*b + c with one rounding or two: within 2^-53 (|a b| + |a b + c|). */
static inline CN_HD double cn_mb_mad(double a, double b, double c)
{
#ifdef CN_MB_FIRST_FMA
#ifdef __CUDA_ARCH__
    return __fma_rn(a, b, c);
#else
    return fma(a, b, c);
#endif
#else
    return a * b + c;
#endif
}

/* a/b within 2^-52 |a/b|, for b in [1, 2^100] and |a| <= 2^100. On the
 * GPU the reciprocal's seed y0 is the hardware's double one (rcp.approx.f64:
 * one instruction on b's high word, and no conversions to and from float,
 * which on the H200 cost four times a double's multiply-add); within d =
 * 2^-14 of 1/b, which tests/device/math_agree.cu checks on every high word b
 * can have (2^-20 from the dropped low word and at most 2^-20 from the
 * approximation measured there). One Newton step in double (error d^2 +
 * 2^-53: 2^-27.9), the quotient q0 and one correction q0 + (a - q0 b) y, each
 * rounded once: the error squares again (2^-55.8), and 2^-52 is what the
 * roundings leave. CN_MATH_FIRST_FMA and an FMA host take the float
 * reciprocal, correctly rounded (2^-24), which the same bound covers. Without
 * a fused multiply-add, the division. */
static inline CN_HD double cn_mb_div_first(double a, double b)
{
#if defined(__CUDA_ARCH__)
    double y;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(b));
    y = __fma_rn(y, __fma_rn(-b, y, 1.0), y);
    double q = a * y;
    return __fma_rn(__fma_rn(-q, b, a), y, q);
#elif defined(CN_MB_FIRST_FMA)
    double y = (double)(1.0f / (float)b);
    y = fma(y, fma(-b, y, 1.0), y);
    double q = a * y;
    return fma(fma(-q, b, a), y, q);
#else
    return a / b;
#endif
}

/* a/b within 2^-50.42 |a/b|, for b in [1, 2^100] and |a| <= 2^100, in a
 * shorter chain than cn_mb_div_first's (two multiply-adds after the seed
 * where it takes five): tanh's first try, whose budget has room. With y0 the
 * seed (as there) and e0 = 1 - b y0 exactly, a/b = a y0 (1 + e0 + e0^2 +
 * e0^3/(1 - e0)): q0 = a y0 and e = fma(-b, y0, 1) in parallel, then q =
 * q0 + q0 (e + e^2). The dropped e0^3 is at most 2^-51 for |e0| <= 2^-17
 * (the bound tests/device/math_agree.cu holds the GPU's seed to; it measures
 * 2^-19.94 there, the float reciprocal of an FMA host is within 2^-22.9),
 * q0's and q's roundings 2^-53 each, e's and e + e^2's about 2^-69: in all
 * 2^-50.42 (2^-51.99 at the measured seed). Without a fused multiply-add,
 * the division (within 2^-53). */
static inline CN_HD double cn_mb_div_short(double a, double b)
{
#if defined(__CUDA_ARCH__)
    double y;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(b));
    double q0 = a * y, e = __fma_rn(-b, y, 1.0);
    return __fma_rn(q0, __fma_rn(e, e, e), q0);
#elif defined(CN_MB_FIRST_FMA)
    double y = (double)(1.0f / (float)b);
    double q0 = a * y, e = fma(-b, y, 1.0);
    return fma(q0, fma(e, e, e), q0);
#else
    return a / b;
#endif
}

/* The positive normal f32 whose bits are u, times 2^s, as a double, with
 * integer operations: the f32's 23 fraction bits go to the top of the
 * double's 52 and its exponent field to the double's, rebased by 1023 - 127
 * = 896 (plus s). A GPU first try's widening: on the H200 a conversion to or
 * from double takes four times a double's multiply-add, an integer operation
 * a quarter of one. */
static inline CN_HD double cn_mb_widen_normal(uint32_t u, int s)
{
    return cn_mb_f64(((uint64_t)u << 29) + ((uint64_t)(896 + s) << 52));
}

/* v rounded to f32, for a positive v in f32's normal range whose rounding is
 * decided (cn_mb_decided_normal), with integer operations: the 29 bits below
 * f32's precision are then not the midpoint, so adding half a unit of f32's
 * last place and truncating rounds to nearest (a carry into the exponent
 * gives the next binade's first float, rightly), and the exponent is rebased
 * by 896. Modulo 2^32 the double's exponent field, shifted past bit 31, comes
 * out right after the subtraction. */
static inline CN_HD float cn_mb_narrow_decided(double v)
{
    return cn_mb_f32((uint32_t)((cn_mb_bits64(v) + 0x10000000u) >> 29) - (896u << 23));
}

/* (a.hi + a.lo) + (b.hi + b.lo), to about 2^-104 relative. */
static inline CN_HD cn_dd cn_mb_dd_add(cn_dd a, cn_dd b)
{
    cn_dd s = cn_mb_two_sum(a.hi, b.hi), t = cn_mb_two_sum(a.lo, b.lo);
    s.lo += t.hi;
    s = cn_mb_fast_two_sum(s.hi, s.lo);
    s.lo += t.lo;
    return cn_mb_fast_two_sum(s.hi, s.lo);
}

/* (a.hi + a.lo) * (b.hi + b.lo), to about 2^-102 relative. */
static inline CN_HD cn_dd cn_mb_dd_mul(cn_dd a, cn_dd b)
{
    cn_dd p = cn_mb_two_prod(a.hi, b.hi);
    p.lo += a.hi * b.lo + a.lo * b.hi;
    return cn_mb_fast_two_sum(p.hi, p.lo);
}

/* (a.hi + a.lo) * d. */
static inline CN_HD cn_dd cn_mb_dd_mul_d(cn_dd a, double d)
{
    cn_dd p = cn_mb_two_prod(a.hi, d);
    p.lo += a.lo * d;
    return cn_mb_fast_two_sum(p.hi, p.lo);
}

/* Whether every real within 2^-42 |v| of v rounds to the same float as v,
 * for a v in f32's normal range (or 0), with integers: cn_mb_decided_normal's
 * test with a window 2^4 times as wide. 2^-42 |v| is at most 2^11 units of
 * the last of the 29 bits below f32's precision, so v is decided unless those
 * bits are within 2^12 of the midpoint 2^28. The test of a first try whose
 * bound is looser than 2^-46 (pow's: log(x)'s error times y). */
#ifdef CN_MB_FIRST_FMA
static inline CN_HD int cn_mb_decided_normal_42(double v)
{
    return (uint32_t)(((uint32_t)cn_mb_bits64(v) & 0x1fffffffu) - 0x0ffff000u) > 0x2000u;
}
#endif

/* ------------------------------------------------------------ rounding to f32 */

/* Whether every real within err of y (err >= 0) rounds to the same float as
 * y does: then (float)y is f(x) correctly rounded whenever |y - f(x)| <= err.
 * The two ends are computed with a margin: y +- err rounds each way at most
 * half an ulp of y, which the caller's err must already cover (take err a
 * little above the true bound). */
static inline CN_HD int cn_mb_rounds_same(double y, double err)
{
    return (float)(y - err) == (float)(y + err);
}

/* Whether every real within 2^-46 |v| of v rounds to the same float as v,
 * for a v in f32's normal range (or 0), with integers: there v's rounding is
 * decided by the 29 bits below f32's precision, and 2^-46 |v| is at most 2^7
 * units of the last of them, so v is decided unless those bits are within
 * 2^8 of the midpoint 2^28. A first try's test, in place of two roundings. */
static inline CN_HD int cn_mb_decided_normal(double v)
{
    return (uint32_t)(((uint32_t)cn_mb_bits64(v) & 0x1fffffffu) - 0x0fffff00u) > 0x200u;
}

/* One quiet NaN for every NaN result of the portable functions: IEEE 754 leaves a NaN's sign and
 * payload open, and the host and the GPU fill them differently (tests/device/math_agree.cu found
 * every NaN input of exp, sin, erf, ... differing in its bits, nothing else). */
static inline CN_HD float cn_mb_canon32(float r) { return r != r ? cn_mb_f32(0x7fc00000u) : r; }
static inline CN_HD double cn_mb_canon64(double r) { return r != r ? cn_mb_f64(0x7ff8000000000000ULL) : r; }

#endif
