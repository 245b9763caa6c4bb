/*
 * cairn_float.h: the storage floats (f16, bf16, f8e4m3, f8e5m2), and
 * quantize into them and into i8, u8, i16 and u16.
 *
 * Header-only, in the common subset of C17 and C++17, like cairn_rt.h (which
 * it includes, for the guards). Every function is `static inline`; under
 * nvcc each is also `__host__ __device__`, so a device lane runs the very
 * code the host runs.
 *
 * Design. A storage float holds a value and never computes. Every rounding
 * in this file -- T(x) from f32 or f64, quantize, quantize_stochastic -- is
 * one routine, cn_float_round, written with integer operations only: no
 * float arithmetic touches the rounding, so the host, a device lane and the
 * emulator give the same bits whatever the FPU, flush-to-zero mode or
 * compiler flags. It takes:
 *   - a format descriptor (cn_float_fmt): fraction bits, exponent bits,
 *     bias, the largest finite magnitudes, the infinity and NaN encodings
 *     (none for E4M3's infinity and for the integers), and what a conversion
 *     does past the range (infinity, or trap for E4M3);
 *   - an exact magnitude as an integer significand, a binary exponent and a
 *     sticky bit (cn_float_num). An f32 or f64 is exact as it stands; a
 *     quotient x / scale of two f32 is its first 64 bits by long division
 *     plus whether the remainder is non-zero, which is all that rounding to
 *     at most 24 bits, and comparing a 32-bit fraction, need;
 *   - the rounding: nearest with ties to even, or stochastic with a u32
 *     noise; and what to do past the range (infinity, trap, saturate).
 * An integer target is the same routine with a format whose exponent never
 * leaves the subnormal range and whose quantum is 1 (see cn_fmt_i8).
 *
 * NaN. Narrowing a NaN (from f32, f64, or as quantize's x into a storage
 * float) gives the format's canonical quiet NaN with the input's sign kept
 * and its payload dropped:
 *     f16     S.11111.1000000000     0x7e00 | sign (0xfe00 negative)
 *     bf16    S.11111111.1000000     0x7fc0 | sign (0xffc0)
 *     f8e5m2  S.11111.10             0x7e | sign   (0xfe)
 *     f8e4m3  S.1111.111             0x7f | sign   (0xff; its only NaN)
 * Widening a NaN gives a quiet f32 NaN with the same sign and the format's
 * fraction bits at the top of f32's fraction, the quiet bit set (as F16C's
 * vcvtph2ps does); so bf16 widens as bits << 16 except a signalling NaN,
 * which comes back quiet. quantize into an integer type traps on a NaN x
 * (no integer means "not a number"); into a storage float it gives the NaN
 * above: a missing value stays visible in what was stored.
 *
 * Past the range. f16, bf16 and f8e5m2 narrow to infinity; f8e4m3, which
 * has none, traps ("V is past the range of f8e4m3", the text cairn_rt.h
 * uses). "Past the range" is IEEE's overflow: the value rounded to the
 * format's precision with an unbounded exponent exceeds the largest finite
 * value, so f16 overflows from 65520 up, f8e4m3 from just above 464 (464
 * itself is the tie between 448 and 480, and goes to 448, the even one).
 * quantize clamps instead: the rounded value past the range (or an infinite
 * x) becomes the largest finite value of its sign, -128 for i8, 0 for a
 * negative x into u8 or u16.
 *
 * quantize[T](x, scale) is the exact quotient x / scale rounded once to T
 * (never (float)(x / scale) rounded again): a scale that is not positive and
 * finite (0, -0, negative, inf, NaN) traps. quantize_stochastic rounds the
 * magnitude away from zero when the dropped fraction f in [0, 1), as a
 * fraction of the quantum there, satisfies f * 2^32 > noise (exactly: the
 * comparison uses all of f's bits), so over a uniform u32 noise it rounds up
 * with probability ceil(f * 2^32) / 2^32 and its mean is the exact quotient
 * within 2^-32 of a quantum; an exact quotient never moves.
 *
 * Names: cn_OP_T with T the CAIRN type (as in cairn_rt.h, whose
 * cn_f16_to_f32 / cn_f16_from_f64 this file's cn_widen_f16 / cn_narrow_f16
 * replace once the compiler calls these):
 *   float   cn_widen_T(cn_T h)                                    f32(h)
 *   cn_T    cn_narrow_T(float x, file, line, col)                 T(x)
 *   cn_T    cn_narrow_T_f64(double x, file, line, col)            T(x), x: f64
 *   R       cn_quantize_T(float x, float scale, file, line, col)
 *   R       cn_quantize_stochastic_T(float x, float scale, uint32_t noise, file, line, col)
 *   U       cn_bits_T(cn_T h) / cn_T cn_from_bits_T(U u)          to_bits, from_bits[T]
 * with R = cn_T, or int8_t, uint8_t, int16_t, uint16_t for the integers.
 */
#ifndef CAIRN_FLOAT_H
#define CAIRN_FLOAT_H

#include "cairn_rt.h"

#ifdef __CUDACC__
#define CN_HD __host__ __device__
#else
#define CN_HD
#endif

/* A storage float is its bits, as cairn_rt.h's views store it. */
typedef uint16_t cn_f16;
typedef uint16_t cn_bf16;
typedef uint8_t cn_f8e4m3;
typedef uint8_t cn_f8e5m2;

/* --------------------------------------------------------- descriptors */

/* What a rounding does when the rounded value is past the largest finite
 * one (or the input is infinite). */
typedef enum {
    CN_PAST_INF,        /* the infinity of the input's sign (f16, bf16, f8e5m2) */
    CN_PAST_TRAP,       /* a guard fails (f8e4m3 conversions) */
    CN_PAST_SATURATE    /* the largest finite value of that sign (quantize) */
} cn_past_policy;

/* A format. Magnitudes are the encoding without its sign bit; for an
 * integer format, the integer's absolute value. */
typedef struct {
    const char *name;
    int mbits;            /* fraction bits (the significand has mbits + 1) */
    int ebits;            /* exponent bits; 0 for an integer */
    int bias;             /* the smallest normal is 2^(1 - bias) */
    int emax;             /* floor(log2) of the largest finite magnitude */
    uint32_t max_pos;     /* largest finite magnitude, positive ... */
    uint32_t max_neg;     /* ... and negative (differs only for integers) */
    uint32_t inf;         /* the magnitude of infinity; 0: none */
    uint32_t nan;         /* the canonical quiet NaN's magnitude; 0: none */
    int sign_shift;       /* the sign bit's position (unused for integers) */
    cn_past_policy past;  /* what T(x) does past the range */
} cn_float_fmt;

static inline CN_HD cn_float_fmt cn_float_fmt_make(const char *name, int mbits, int ebits,
                                                   int bias, int emax, uint32_t max_pos,
                                                   uint32_t max_neg, uint32_t inf, uint32_t nan,
                                                   int sign_shift, cn_past_policy past)
{
    cn_float_fmt f;
    f.name = name, f.mbits = mbits, f.ebits = ebits, f.bias = bias, f.emax = emax;
    f.max_pos = max_pos, f.max_neg = max_neg, f.inf = inf, f.nan = nan;
    f.sign_shift = sign_shift, f.past = past;
    return f;
}

/* Functions rather than constants: a namespace-scope constant is not
 * visible to device code, and each call folds away. */
static inline CN_HD cn_float_fmt cn_fmt_f16(void)      /* 65504 = 0x7bff */
{
    return cn_float_fmt_make("f16", 10, 5, 15, 15, 0x7bff, 0x7bff, 0x7c00, 0x7e00, 15, CN_PAST_INF);
}
static inline CN_HD cn_float_fmt cn_fmt_bf16(void)     /* 3.39e38 = 0x7f7f */
{
    return cn_float_fmt_make("bf16", 7, 8, 127, 127, 0x7f7f, 0x7f7f, 0x7f80, 0x7fc0, 15, CN_PAST_INF);
}
static inline CN_HD cn_float_fmt cn_fmt_f8e5m2(void)   /* 57344 = 0x7b */
{
    return cn_float_fmt_make("f8e5m2", 2, 5, 15, 15, 0x7b, 0x7b, 0x7c, 0x7e, 7, CN_PAST_INF);
}
static inline CN_HD cn_float_fmt cn_fmt_f8e4m3(void)   /* 448 = 0x7e; 0x7f is NaN */
{
    return cn_float_fmt_make("f8e4m3", 3, 4, 7, 8, 0x7e, 0x7e, 0, 0x7f, 7, CN_PAST_TRAP);
}
/* An integer is a float with 16 fraction bits and bias -15: its smallest
 * normal is 2^16, so every value an i16 or u16 can hold is "subnormal" and
 * rounds at a quantum of 2^(16 - 16) = 1. */
static inline CN_HD cn_float_fmt cn_fmt_int(const char *name, int emax, uint32_t max_pos,
                                            uint32_t max_neg)
{
    return cn_float_fmt_make(name, 16, 0, -15, emax, max_pos, max_neg, 0, 0, 0, CN_PAST_SATURATE);
}
static inline CN_HD cn_float_fmt cn_fmt_i8(void) { return cn_fmt_int("i8", 7, 127, 128); }
static inline CN_HD cn_float_fmt cn_fmt_u8(void) { return cn_fmt_int("u8", 7, 255, 0); }
static inline CN_HD cn_float_fmt cn_fmt_i16(void) { return cn_fmt_int("i16", 15, 32767, 32768); }
static inline CN_HD cn_float_fmt cn_fmt_u16(void) { return cn_fmt_int("u16", 15, 65535, 0); }

/* ------------------------------------------------------ exact numbers */

typedef enum { CN_NUM_ZERO, CN_NUM_FINITE, CN_NUM_INF, CN_NUM_NAN } cn_num_kind;

/* An exact value: (sig + d) * 2^exp with d = 0 when !sticky and 0 < d < 1
 * when sticky. For CN_NUM_FINITE, sig != 0. */
typedef struct {
    cn_num_kind kind;
    bool neg;
    bool sticky;
    uint64_t sig;
    int exp;
} cn_float_num;

static inline CN_HD int cn_float_clz64(uint64_t x)   /* requires x != 0 */
{
#ifdef __CUDA_ARCH__
    return __clzll((long long)x);
#else
    return __builtin_clzll(x);
#endif
}

static inline CN_HD cn_float_num cn_float_num_make(cn_num_kind kind, bool neg, uint64_t sig,
                                                   int exp, bool sticky)
{
    cn_float_num n;
    n.kind = kind, n.neg = neg, n.sticky = sticky, n.sig = sig, n.exp = exp;
    return n;
}

static inline CN_HD cn_float_num cn_float_num_f32(uint32_t u)
{
    bool neg = (u >> 31) != 0;
    uint32_t e = (u >> 23) & 0xff, m = u & 0x7fffff;
    if (e == 0xff)
        return cn_float_num_make(m ? CN_NUM_NAN : CN_NUM_INF, neg, 0, 0, false);
    if (e == 0)
        return cn_float_num_make(m ? CN_NUM_FINITE : CN_NUM_ZERO, neg, m, -149, false);
    return cn_float_num_make(CN_NUM_FINITE, neg, m | 0x800000u, (int)e - 150, false);
}

static inline CN_HD cn_float_num cn_float_num_f64(uint64_t u)
{
    bool neg = (u >> 63) != 0;
    uint32_t e = (uint32_t)(u >> 52) & 0x7ff;
    uint64_t m = u & 0xfffffffffffffull;
    if (e == 0x7ff)
        return cn_float_num_make(m ? CN_NUM_NAN : CN_NUM_INF, neg, 0, 0, false);
    if (e == 0)
        return cn_float_num_make(m ? CN_NUM_FINITE : CN_NUM_ZERO, neg, m, -1074, false);
    return cn_float_num_make(CN_NUM_FINITE, neg, m | (1ull << 52), (int)e - 1075, false);
}

/* The exact quotient x / s of two finite non-zero numbers with significands
 * below 2^24: both significands are normalised to [2^23, 2^24), then
 * q = floor(mx * 2^63 / ms), in (2^62, 2^64), comes from two 64-bit
 * divisions (mx * 2^40 fits 64 bits; the remainder, below 2^24, times 2^23
 * too), and the final remainder is the sticky bit. Integer operations only. */
static inline CN_HD cn_float_num cn_float_num_quotient(cn_float_num x, cn_float_num s)
{
    int lx = cn_float_clz64(x.sig) - 40, ls = cn_float_clz64(s.sig) - 40;
    uint64_t mx = x.sig << lx, ms = s.sig << ls;
    int exp = (x.exp - lx) - (s.exp - ls) - 63;
    bool neg = x.neg != s.neg;
    if (ms == 0x800000u)   /* a power of two: the quotient is exact */
        return cn_float_num_make(CN_NUM_FINITE, neg, mx << 40, exp, false);
    uint64_t q1 = (mx << 40) / ms, r1 = (mx << 40) % ms;
    uint64_t q2 = (r1 << 23) / ms, r2 = (r1 << 23) % ms;
    return cn_float_num_make(CN_NUM_FINITE, neg, (q1 << 23) | q2, exp, r2 != 0);
}

/* ------------------------------------------------------- the rounding */

typedef enum {
    CN_ROUNDED_OK,
    CN_ROUNDED_PAST_RANGE,   /* past the range under CN_PAST_TRAP */
    CN_ROUNDED_NAN_INVALID   /* a NaN into a format without one */
} cn_rounded_status;

/* A rounded value: its magnitude (encoded; or the integer's absolute value)
 * and its sign. */
typedef struct {
    uint32_t mag;
    bool neg;
    cn_rounded_status status;
} cn_float_rounded;

static inline CN_HD cn_float_rounded cn_float_past(cn_float_fmt fmt, cn_float_rounded r,
                                                   cn_past_policy past)
{
    if (past == CN_PAST_INF && fmt.inf)
        r.mag = fmt.inf;
    else if (past == CN_PAST_SATURATE)
        r.mag = r.neg ? fmt.max_neg : fmt.max_pos;
    else
        r.status = CN_ROUNDED_PAST_RANGE, r.mag = fmt.nan;
    return r;
}

/* Splits sig * 2^exp at bit `shift` of sig: the kept part, and the dropped
 * part as a 64-bit binary fraction (of the quantum 2^(exp + shift)), whose
 * lost low bits join *sticky. Shifts of 64 or more are spelled out, since
 * C leaves them undefined. */
static inline CN_HD uint64_t cn_float_split(uint64_t sig, int shift, uint64_t *frac, bool *sticky)
{
    if (shift <= 0) {
        *frac = 0;
        return sig << -shift;   /* requires: the result fits (see the caller) */
    }
    if (shift < 64) {
        *frac = sig << (64 - shift);
        return sig >> shift;
    }
    if (shift == 64) {
        *frac = sig;
    } else if (shift < 128) {
        *frac = sig >> (shift - 64);
        *sticky = *sticky || (sig << (128 - shift)) != 0;
    } else {
        *frac = 0;
        *sticky = *sticky || sig != 0;
    }
    return 0;
}

/* Rounds x to fmt: nearest with ties to even, or (stochastic) away from zero
 * when the dropped fraction f has f * 2^32 > noise. Past the range, `past`
 * decides.
 *
 * The quantum for a value in [2^e, 2^(e+1)) is 2^(max(e, emin) - mbits),
 * emin = 1 - bias being the smallest normal's exponent. The encoded
 * magnitude is ((max(e, emin) - emin) << mbits) + kept: for a normal kept
 * carries the implicit bit, which adds the 1 the exponent field needs, and
 * for a subnormal the first term is 0. A round up that carries out of the
 * significand lands on the next binade's encoding by the same sum, and past
 * the largest exponent it exceeds max_pos, which is how overflow is seen.
 *
 * Requires: x.sticky only when x.sig has more bits than the quantum keeps
 * (true of the quotient, whose sig has 63 or 64 bits). */
static inline CN_HD cn_float_rounded cn_float_round(cn_float_fmt fmt, cn_float_num x,
                                                    cn_past_policy past, bool stochastic,
                                                    uint32_t noise)
{
    cn_float_rounded r;
    r.mag = 0, r.neg = x.neg, r.status = CN_ROUNDED_OK;
    if (x.kind == CN_NUM_ZERO)
        return r;
    if (x.kind == CN_NUM_NAN) {
        if (fmt.nan)
            r.mag = fmt.nan;
        else
            r.status = CN_ROUNDED_NAN_INVALID;
        return r;
    }
    if (x.kind == CN_NUM_INF)
        return cn_float_past(fmt, r, past);
    int e = 63 - cn_float_clz64(x.sig) + x.exp;   /* floor(log2 |x|) */
    if (e > fmt.emax)
        return cn_float_past(fmt, r, past);
    int emin = 1 - fmt.bias, binade = e > emin ? e : emin;
    bool sticky = x.sticky;
    uint64_t frac;
    /* kept < 2^(mbits + 2) here, since e <= emax. */
    uint64_t kept = cn_float_split(x.sig, binade - fmt.mbits - x.exp, &frac, &sticky);
    bool up;
    if (stochastic) {
        uint32_t hi = (uint32_t)(frac >> 32), lo = (uint32_t)frac;
        up = hi > noise || (hi == noise && (lo != 0 || sticky));
    } else {
        const uint64_t half = 1ull << 63;
        up = frac > half || (frac == half && (sticky || (kept & 1)));
    }
    uint64_t mag = ((uint64_t)(binade - emin) << fmt.mbits) + kept + (up ? 1 : 0);
    if (mag > (x.neg ? fmt.max_neg : fmt.max_pos))
        return cn_float_past(fmt, r, past);
    r.mag = (uint32_t)mag;
    return r;
}

/* The encoding of a rounded storage float: its sign bit, then the magnitude. */
static inline CN_HD uint32_t cn_float_encode(cn_float_fmt fmt, cn_float_rounded r)
{
    return (r.neg ? 1u << fmt.sign_shift : 0u) | r.mag;
}

/* f32(h), exact: the f32 bits of a storage float's value (every value of
 * every format is an f32). A NaN widens to a quiet NaN, sign and fraction
 * kept (see the top of the file). */
static inline CN_HD uint32_t cn_float_widen_bits(cn_float_fmt fmt, uint32_t bits)
{
    uint32_t s32 = ((bits >> fmt.sign_shift) & 1u) << 31;
    uint32_t mag = bits & ((1u << fmt.sign_shift) - 1);
    uint32_t frac = mag & ((1u << fmt.mbits) - 1), efield = mag >> fmt.mbits;
    bool nan = fmt.inf ? efield == (fmt.inf >> fmt.mbits) && frac != 0 : mag == fmt.nan;
    if (nan)
        return s32 | 0x7fc00000u | (frac << (23 - fmt.mbits));
    if (fmt.inf && mag == fmt.inf)
        return s32 | 0x7f800000u;
    if (mag == 0)
        return s32;
    /* The value is sig * 2^p; f32 holds it as a normal when its exponent
     * reaches -126, else as a subnormal (a multiple of 2^-149). */
    uint32_t sig = efield ? frac | (1u << fmt.mbits) : frac;
    int p = (efield ? (int)efield - 1 : 0) + (1 - fmt.bias) - fmt.mbits;
    int top = 63 - cn_float_clz64(sig);
    int e = top + p;
    if (e >= -126)
        return s32 | ((uint32_t)(e + 127) << 23) | ((sig << (23 - top)) & 0x7fffffu);
    return s32 | (sig << (p + 149));
}

/* --------------------------------------------------------------- guards */

typedef enum {
    CN_FLOAT_FAIL_RANGE,       /* T(x), x an f32, past the range */
    CN_FLOAT_FAIL_RANGE_F64,   /* T(x), x an f64, past the range */
    CN_FLOAT_FAIL_SCALE,       /* quantize's scale not positive and finite */
    CN_FLOAT_FAIL_NAN          /* quantize of a NaN into an integer */
} cn_float_failure;

/* The failing path of every guard here, out of line: on the host through
 * cairn_rt.h's cn_guard_fail (and its cn_fail_storage for an f64, whose
 * message an f32 shares, printed as the shortest f32); in a device lane the
 * same text by printf (%.9g / %.17g for the value), then a trap. */
CN_COLD static CN_HD void cn_float_fail(cn_float_failure why, const char *ty, double v,
                                        const char *f, int l, int c)
{
#ifdef __CUDA_ARCH__
    if (why == CN_FLOAT_FAIL_RANGE || why == CN_FLOAT_FAIL_RANGE_F64)
        printf(why == CN_FLOAT_FAIL_RANGE ? "%s:%d:%d: guard failed: %.9g is past the range of %s\n"
                                          : "%s:%d:%d: guard failed: %.17g is past the range of %s\n",
               f, l, c, v, ty);
    else if (why == CN_FLOAT_FAIL_SCALE)
        printf("%s:%d:%d: guard failed: quantize[%s]: scale %.9g is not positive and finite\n",
               f, l, c, ty, v);
    else
        printf("%s:%d:%d: guard failed: quantize[%s]: x is nan, which %s cannot hold\n", f, l,
               c, ty, ty);
    __trap();
    __builtin_unreachable();
#else
    char buf[48];
    if (why == CN_FLOAT_FAIL_RANGE_F64)
        cn_fail_storage(f, l, c, v, ty);
    if (why == CN_FLOAT_FAIL_RANGE)
        cn_guard_fail(f, l, c, "%s is past the range of %s", cn_fmt_f32(buf, sizeof buf, (float)v),
                      ty);
    if (why == CN_FLOAT_FAIL_SCALE)
        cn_guard_fail(f, l, c, "quantize[%s]: scale %s is not positive and finite", ty,
                      cn_fmt_f32(buf, sizeof buf, (float)v));
    cn_guard_fail(f, l, c, "quantize[%s]: x is nan, which %s cannot hold", ty, ty);
#endif
}

/* ----------------------------------------------------------- operations */

static inline CN_HD uint32_t cn_float_f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline CN_HD float cn_float_f32_from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static inline CN_HD uint64_t cn_float_f64_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* T(x): the conversion's policy (infinity, or the E4M3 trap). */
static inline CN_HD uint32_t cn_float_narrow_num(cn_float_fmt fmt, cn_float_num n, double v,
                                                 bool from_f64, const char *f, int l, int c)
{
    cn_float_rounded r = cn_float_round(fmt, n, fmt.past, false, 0);
    if (CN_UNLIKELY(r.status != CN_ROUNDED_OK))
        cn_float_fail(from_f64 ? CN_FLOAT_FAIL_RANGE_F64 : CN_FLOAT_FAIL_RANGE, fmt.name, v, f, l, c);
    return cn_float_encode(fmt, r);
}

/* x / scale rounded once to fmt and clamped; the scale and NaN guards. */
static inline CN_HD cn_float_rounded cn_float_quantize(cn_float_fmt fmt, float x, float scale,
                                                       bool stochastic, uint32_t noise,
                                                       const char *f, int l, int c)
{
    cn_float_num s = cn_float_num_f32(cn_float_f32_bits(scale));
    if (CN_UNLIKELY(s.kind != CN_NUM_FINITE || s.neg))
        cn_float_fail(CN_FLOAT_FAIL_SCALE, fmt.name, (double)scale, f, l, c);
    cn_float_num n = cn_float_num_f32(cn_float_f32_bits(x));
    if (n.kind == CN_NUM_FINITE)
        n = cn_float_num_quotient(n, s);
    cn_float_rounded r = cn_float_round(fmt, n, CN_PAST_SATURATE, stochastic, noise);
    if (CN_UNLIKELY(r.status != CN_ROUNDED_OK))
        cn_float_fail(CN_FLOAT_FAIL_NAN, fmt.name, (double)x, f, l, c);
    return r;
}

/* One storage float: its CAIRN name, C type, bits type. */
#define CN_STORAGE_FLOATS(X)                                                  \
    X(f16, cn_f16, uint16_t)                                                  \
    X(bf16, cn_bf16, uint16_t)                                                \
    X(f8e4m3, cn_f8e4m3, uint8_t)                                             \
    X(f8e5m2, cn_f8e5m2, uint8_t)

#define CN_DEF_STORAGE_FLOAT(T, C, U)                                         \
    static inline CN_HD float cn_widen_##T(C h)                               \
    {                                                                         \
        return cn_float_f32_from_bits(cn_float_widen_bits(cn_fmt_##T(), h));  \
    }                                                                         \
    static inline CN_HD C cn_narrow_##T(float x, const char *f, int l, int c) \
    {                                                                         \
        return (C)cn_float_narrow_num(cn_fmt_##T(), cn_float_num_f32(cn_float_f32_bits(x)), \
                                      (double)x, false, f, l, c);             \
    }                                                                         \
    static inline CN_HD C cn_narrow_##T##_f64(double x, const char *f, int l, int c) \
    {                                                                         \
        return (C)cn_float_narrow_num(cn_fmt_##T(), cn_float_num_f64(cn_float_f64_bits(x)), \
                                      x, true, f, l, c);                      \
    }                                                                         \
    static inline CN_HD C cn_quantize_##T(float x, float scale, const char *f, int l, int c) \
    {                                                                         \
        return (C)cn_float_encode(cn_fmt_##T(),                               \
                                  cn_float_quantize(cn_fmt_##T(), x, scale, false, 0, f, l, c)); \
    }                                                                         \
    static inline CN_HD C cn_quantize_stochastic_##T(float x, float scale, uint32_t noise, \
                                                     const char *f, int l, int c) \
    {                                                                         \
        return (C)cn_float_encode(cn_fmt_##T(),                               \
                                  cn_float_quantize(cn_fmt_##T(), x, scale, true, noise, f, l, c)); \
    }                                                                         \
    static inline CN_HD U cn_bits_##T(C h) { return (U)h; }                   \
    static inline CN_HD C cn_from_bits_##T(U u) { return (C)u; }
CN_STORAGE_FLOATS(CN_DEF_STORAGE_FLOAT)
#undef CN_DEF_STORAGE_FLOAT

/* The integer targets of quantize: CAIRN name, C type. A magnitude and a
 * sign become the integer through int32_t, where -128 and -32768 fit. */
#define CN_QUANTIZE_INTS(X) X(i8, int8_t) X(u8, uint8_t) X(i16, int16_t) X(u16, uint16_t)

#define CN_DEF_QUANTIZE_INT(T, C)                                             \
    static inline CN_HD C cn_quantize_##T(float x, float scale, const char *f, int l, int c) \
    {                                                                         \
        cn_float_rounded r = cn_float_quantize(cn_fmt_##T(), x, scale, false, 0, f, l, c); \
        return (C)(r.neg ? -(int32_t)r.mag : (int32_t)r.mag);                 \
    }                                                                         \
    static inline CN_HD C cn_quantize_stochastic_##T(float x, float scale, uint32_t noise, \
                                                     const char *f, int l, int c) \
    {                                                                         \
        cn_float_rounded r = cn_float_quantize(cn_fmt_##T(), x, scale, true, noise, f, l, c); \
        return (C)(r.neg ? -(int32_t)r.mag : (int32_t)r.mag);                 \
    }
CN_QUANTIZE_INTS(CN_DEF_QUANTIZE_INT)
#undef CN_DEF_QUANTIZE_INT

#endif
