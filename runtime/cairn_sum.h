/*
 * cairn_sum.h: the exact float sum behind `reduce + parallel` over f32 and f64.
 *
 * Header-only, in the common subset of C17 and C++17, like cairn_rt.h; every
 * function is `static inline` (and __host__ __device__ under nvcc). Nothing is
 * allocated and there is no global state: a sum lives in a caller's struct.
 * The device's passes over the same total are in cairn_devsum.h, their
 * steps on a term in cairn_dsumstep.h.
 *
 * What it computes: the exact sum of the terms, rounded once to nearest with
 * ties to even, with IEEE's answer for the special values:
 *
 *   any NaN, or both +inf and -inf     the quiet NaN with no payload
 *                                      (0x7ff8000000000000, 0x7fc00000)
 *   +inf or -inf, finite terms besides that infinity
 *   finite, |exact sum| >= MAX + ulp/2 the infinity of its sign
 *   no terms                           +0.0
 *   every term -0.0                    -0.0
 *   finite, exact sum zero otherwise   +0.0
 *
 * Because the sum is exact until the one rounding, the bits do not depend on
 * how the terms are split between states or in what order states are merged.
 *
 * API (T is 64 with double terms, 32 with float terms):
 *
 *   cn_sumT s;  cn_sumT_init(&s);            start an empty sum
 *   cn_sumT_add(&s, x);                      add one term (buffered: a store
 *                                            and a compare on the common path)
 *   cn_sumT_add_array(&s, x, n);             add n terms, the fast path
 *   cn_sumT_merge(&dst, &src);               dst += src, exactly; src unchanged
 *                                            (dst != src)
 *   cn_sumT_round(&s)                        the rounded sum (double / float);
 *                                            s stays usable
 *   cn_sum_f64(x, n), cn_sum_f32(x, n)       the whole thing for one array
 *
 * A pooled reduction gives each lane (or block) its own state (about 2.6 KB,
 * fine on a stack), adds its terms with add or add_array, merges the lanes'
 * states once their threads are joined, in any order, and rounds. A state is
 * plain data: it may be copied with = or memcpy.
 *
 * How it stays exact
 * ------------------
 * The exact total is an integer count of 2^-1074 (the least f64 subnormal;
 * every f32 and f64 is a whole multiple of it) held in 68 signed 64-bit
 * "digits" of 32 bits each, with lazy carries: a finite double adds less
 * than 2^32 to each of three digits, so 2^30 adds can pass before a carry
 * pass (2176 bits: room for 2^64 terms of magnitude up to 2^1024). Integer
 * addition is exact, commutative and associative, so merges in any order
 * give the same total.
 *
 * Adding each term to the digits costs a few nanoseconds, so add_array first
 * gathers terms in floating point, exactly, CN_SUM_CHUNK (256) at a time:
 *
 *  1. S = the sum of |x| over the chunk, in floating point: within a
 *     relative 2^-45 of the exact sum (255 roundings of positive terms),
 *     and S >= every |x| (rounding is monotonic). A NaN,
 *     an infinity or S >= 2^1021 sends the chunk term by term to the digits
 *     (that path also keeps the NaN and infinity flags).
 *  2. Level 1 has exponent E = e + 2, where S < 2^e; its accumulators start
 *     at B = 1.5 * 2^E, one per SIMD lane. Each term x is split by Dekker's
 *     FastTwoSum against its lane's accumulator s:
 *        t = s + x;  q = t - s;  r = x - q;  s = t;
 *     The deposits' magnitudes add up to at most
 *     S(1 + 2^-45) + 256 * g/2 <= 2^(E-2) * (1 + 2^-43), g = 2^(E-52), so
 *     every s (and every s + x) stays in [1.24 * 2^E, 1.76 * 2^E], a binade
 *     where the ulp is g. So t - s is a multiple of g below 2^E: exact.
 *     x - q = (s + x) - t is the rounding error of one addition: exact. The
 *     step is error-free, x = q + r, |r| <= g/2, and s - B is the exact sum
 *     of the lane's q. So is the sum over the lanes (a multiple of g whose
 *     partial sums stay below 2^(E-1)).
 *  3. The remainders r feed level 2, whose exponent is E - 43: 256 of them
 *     sum to at most 256 * 2^(E-53) = 2^(E2-2), the same condition as level
 *     1. Up to four levels run in one pass; no level goes below E = -1022
 *     (its ulp is then 2^-1074, so it leaves no remainder).
 *  4. At the end of the chunk each level adds (sum over lanes of s - B) to
 *     the digits: one exact integer add per level per chunk. Whatever the
 *     last level leaves (r != 0) is stored and run through another pass,
 *     whose levels start lower, until nothing is left.
 * Every step is an identity on exact values, so the digits hold the exact
 * sum. Only + and - appear, so contraction into FMA cannot happen; fast-math
 * or extended-precision evaluation would break the identities and are
 * refused below. The last (n mod 16) terms of an array go term by term.
 *
 * The number of levels a pass runs adapts to the data (2 for terms within a
 * few binades, 4 for terms spread over 2^120) and the vector kind (SSE2,
 * AVX2, AVX-512) is picked at run time; both change the speed, never the
 * result. An f32 term widens to double exactly, and the f32 result is
 * rounded from the exact integer total to 24 bits with f32's own subnormal
 * spacing and overflow threshold, never through a double.
 *
 * numerics.md sketches another way to the same result (eight TwoSum
 * expansions a block, 34 and 6 64-bit limbs). This one needs no branch per
 * term even when the terms span many binades (there the expansions'
 * leftovers stop being rare), and its digits need no carry chains. About 0.6
 * ns a term in narrow range and 0.9 ns in wide range with AVX2 on a 2.8 GHz
 * Xeon, against 1.15 ns for the plain ordered loop (bench/sum_bench.sh).
 */
#ifndef CAIRN_SUM_H
#define CAIRN_SUM_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__FAST_MATH__)
#error "cairn_sum.h needs strict IEEE arithmetic: build without -ffast-math"
#endif
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD > 0
#error "cairn_sum.h needs double arithmetic evaluated in double (FLT_EVAL_METHOD 0)"
#endif

#ifdef __CUDACC__
#define CN_SUM_HD __host__ __device__
#else
#define CN_SUM_HD
#endif
#define CN_SUM_FN static inline CN_SUM_HD

#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
#define CN_SUM_HOT __attribute__((always_inline))
#else
#define CN_SUM_HOT
#endif

/* A rare path kept out of line, so that its registers do not count
 * against the loop around it on the device. */
#if defined(__CUDACC__)
#define CN_SUM_COLD_FN static CN_SUM_HD __noinline__
#elif defined(__GNUC__)
#define CN_SUM_COLD_FN static __attribute__((noinline))
#else
#define CN_SUM_COLD_FN static
#endif

enum {
    CN_SUM_CHUNK = 256,        /* terms a pass gathers; the level gap assumes <= 256 */
    CN_SUM_LEVEL_GAP = 43,     /* 51 - log2(CN_SUM_CHUNK): see step 3 */
    CN_SUM_MAX_LEVELS = 4,
    CN_SUM_DIGITS = 68,        /* 32-bit digits of 2^-1074: 2176 bits */
    CN_SUM_CARRY_EVERY = 1 << 30 /* adds between carry passes (|digit| < 2^63) */
};

/* Flags: what the exact integer total cannot say. */
enum {
    CN_SUM_SAW_NAN = 1,
    CN_SUM_SAW_PINF = 2,
    CN_SUM_SAW_NINF = 4,
    CN_SUM_SAW_TERM = 8,      /* at least one term */
    CN_SUM_SAW_NOT_NEGZERO = 16 /* a term other than -0.0 */
};

/* The exact total: sum of digit[i] * 2^(32 i) units of 2^-1074. */
typedef struct cn_sum_acc {
    int64_t digit[CN_SUM_DIGITS];
    uint32_t pending; /* adds since the last carry pass */
    uint32_t flags;
} cn_sum_acc;

typedef struct cn_sum64 {
    cn_sum_acc acc;
    uint32_t levels; /* levels the next pass runs: a speed hint only */
    uint32_t wide;   /* the vector kind (cn_sum_cpu_wide): a speed choice only */
    uint32_t nbuf;
    double buf[CN_SUM_CHUNK];
} cn_sum64;

typedef struct cn_sum32 {
    cn_sum_acc acc;
    uint32_t levels;
    uint32_t wide;
    uint32_t nbuf;
    float buf[CN_SUM_CHUNK];
} cn_sum32;

/* ------------------------------------------------------ the integer total */

CN_SUM_FN uint64_t cn_sum_bits64(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

CN_SUM_FN double cn_sum_from_bits64(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

CN_SUM_FN void cn_sum_acc_init(cn_sum_acc *a)
{
    memset(a, 0, sizeof *a);
}

/* Carry pass: digits 0..66 into [0, 2^32), the top digit signed. The division
 * is exact (d - lo is a multiple of 2^32) and, unlike >>, defined for
 * negative values in C17. */
CN_SUM_FN void cn_sum_acc_carry(cn_sum_acc *a)
{
    for (int i = 0; i < CN_SUM_DIGITS - 1; i++) {
        int64_t d = a->digit[i];
        int64_t lo = (int64_t)((uint64_t)d & 0xffffffffu);
        a->digit[i] = lo;
        a->digit[i + 1] += (d - lo) / ((int64_t)1 << 32);
    }
    a->pending = 0;
}

/* m << (p mod 32), m < 2^64, as three 32-bit pieces for digits p / 32,
 * p / 32 + 1 and p / 32 + 2. */
CN_SUM_FN void cn_sum_pieces(uint64_t m, int p, int64_t c[3])
{
    int sh = p & 31;
    uint64_t t = m >> (32 - sh); /* shift 1..32 */
    c[0] = (int64_t)((m << sh) & 0xffffffffu);
    c[1] = (int64_t)(t & 0xffffffffu);
    c[2] = (int64_t)(t >> 32);
}

/* Adds (or, with neg, subtracts) m * 2^p units of 2^-1074, m < 2^64, to
 * the digits d[0], d[stride], ...: three pieces, each less than 2^32. The
 * device's exact sum keeps digits a column of shared memory apart
 * (cairn_devsum.h). */
CN_SUM_FN void cn_sum_digits_add(int64_t *d, size_t stride, uint64_t m, int p, int neg)
{
    size_t i = (size_t)(p >> 5) * stride;
    int64_t c[3];
    cn_sum_pieces(m, p, c);
    for (int k = 0; k < 3; k++)
        d[i + k * stride] += neg ? -c[k] : c[k];
}

/* The magnitude of a finite double as m * 2^p units of 2^-1074. */
CN_SUM_FN uint64_t cn_sum_split64(uint64_t b, int *p)
{
    int ef = (int)((b >> 52) & 0x7ff);
    uint64_t m = b & (((uint64_t)1 << 52) - 1);
    if (ef != 0)
        m |= (uint64_t)1 << 52;
    else
        ef = 1;
    *p = ef - 1;
    return m;
}

/* Adds a finite double exactly. */
CN_SUM_FN void cn_sum_acc_add(cn_sum_acc *a, double x)
{
    uint64_t b = cn_sum_bits64(x);
    int p;
    uint64_t m = cn_sum_split64(b, &p);
    if (m == 0)
        return;
    cn_sum_digits_add(a->digit, 1, m, p, (int)(b >> 63));
    if (++a->pending >= CN_SUM_CARRY_EVERY)
        cn_sum_acc_carry(a);
}

/* Adds v * 2^p units of 2^-1074 exactly (p + 96 <= 32 * CN_SUM_DIGITS). */
CN_SUM_FN void cn_sum_acc_add_scaled(cn_sum_acc *a, int64_t v, int p)
{
    if (v == 0)
        return;
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    cn_sum_digits_add(a->digit, 1, m, p, v < 0);
    if (++a->pending >= CN_SUM_CARRY_EVERY)
        cn_sum_acc_carry(a);
}

/* dst += src; src may be unnormalised (each |digit| < 2^62 + 2^33). */
CN_SUM_FN void cn_sum_acc_merge(cn_sum_acc *dst, const cn_sum_acc *src)
{
    cn_sum_acc_carry(dst);
    for (int i = 0; i < CN_SUM_DIGITS; i++)
        dst->digit[i] += src->digit[i];
    dst->flags |= src->flags;
    cn_sum_acc_carry(dst);
}

/* A term the fast path does not take (NaN, infinity, huge, or a tail):
 * flags, then the digits. */
CN_SUM_FN void cn_sum_acc_term(cn_sum_acc *a, double x)
{
    uint64_t b = cn_sum_bits64(x);
    a->flags |= CN_SUM_SAW_TERM;
    if (((b >> 52) & 0x7ff) == 0x7ff) {
        if (b & (((uint64_t)1 << 52) - 1))
            a->flags |= CN_SUM_SAW_NAN;
        else
            a->flags |= (b >> 63) ? CN_SUM_SAW_NINF : CN_SUM_SAW_PINF;
        return;
    }
    if (b != (uint64_t)1 << 63)
        a->flags |= CN_SUM_SAW_NOT_NEGZERO;
    cn_sum_acc_add(a, x);
}

/* Bit k of a non-negative total with normalised digits. */
CN_SUM_FN unsigned cn_sum_digits_bit(const int64_t *d, int k)
{
    return (unsigned)(((uint64_t)d[k >> 5] >> (k & 31)) & 1);
}

/* Any bit below k set? */
CN_SUM_FN int cn_sum_digits_any_below(const int64_t *d, int k)
{
    for (int i = 0; i < (k >> 5); i++)
        if (d[i] != 0)
            return 1;
    return (k & 31) && ((uint64_t)d[k >> 5] & (((uint64_t)1 << (k & 31)) - 1)) != 0;
}

/* The special values' answer from the flags f, or 0 when the digits
 * decide. Sets *out to the quiet NaN or the infinity. */
CN_SUM_FN int cn_sum_flags_special(unsigned f, double *out)
{
    if ((f & CN_SUM_SAW_NAN) || ((f & CN_SUM_SAW_PINF) && (f & CN_SUM_SAW_NINF)))
        *out = cn_sum_from_bits64(0x7ff8000000000000u);
    else if (f & CN_SUM_SAW_PINF)
        *out = HUGE_VAL;
    else if (f & CN_SUM_SAW_NINF)
        *out = -HUGE_VAL;
    else
        return 0;
    return 1;
}

CN_SUM_FN int cn_sum_acc_special(const cn_sum_acc *a, double *out) { return cn_sum_flags_special(a->flags, out); }

/* A total of zero: -0.0 only when every term was -0.0 (and there was one). */
CN_SUM_FN double cn_sum_flags_zero(unsigned f)
{
    return (f & CN_SUM_SAW_TERM) && !(f & CN_SUM_SAW_NOT_NEGZERO) ? -0.0 : 0.0;
}

/* Carries m and makes it its magnitude; returns whether it was negative. */
CN_SUM_FN int cn_sum_acc_abs(cn_sum_acc *m)
{
    cn_sum_acc_carry(m);
    if (m->digit[CN_SUM_DIGITS - 1] >= 0)
        return 0;
    for (int i = 0; i < CN_SUM_DIGITS; i++)
        m->digit[i] = -m->digit[i];
    cn_sum_acc_carry(m);
    return 1;
}

/* Bit length of a nonzero magnitude (normalised digits). */
CN_SUM_FN int cn_sum_digits_len(const int64_t *d)
{
    int top = CN_SUM_DIGITS - 1;
    while (d[top] == 0)
        top--;
    int len = 32 * top;
    for (uint64_t v = (uint64_t)d[top]; v != 0; v >>= 1)
        len++;
    return len;
}

/* Bits [sh, sh + 64) of the three 32-bit digits w0, w1, w2 (sh < 32). */
CN_SUM_FN uint64_t cn_sum_word3(uint64_t w0, uint64_t w1, uint64_t w2, int sh)
{
    uint64_t v = (w0 | w1 << 32) >> sh;
    if (sh)
        v |= w2 << (64 - sh);
    return v;
}

/* Bits [lo, lo + 64) of a magnitude with normalised digits, lo >= 0. */
CN_SUM_FN uint64_t cn_sum_digits_word(const int64_t *d, int lo)
{
    int i = lo >> 5;
    uint64_t w0 = i < CN_SUM_DIGITS ? (uint64_t)d[i] : 0;
    uint64_t w1 = i + 1 < CN_SUM_DIGITS ? (uint64_t)d[i + 1] : 0;
    uint64_t w2 = i + 2 < CN_SUM_DIGITS ? (uint64_t)d[i + 2] : 0;
    return cn_sum_word3(w0, w1, w2, lo & 31);
}

/* Where a nonzero magnitude of bit length len is rounded to prec bits
 * (prec <= 53) with least ulp 2^min_ulp_exp: the bits below the returned
 * shift are dropped (none when it is 0 or less). */
CN_SUM_FN int cn_sum_round_shift(int len, int prec, int min_ulp_exp)
{
    int shift = len - prec;
    return shift < min_ulp_exp + 1074 ? min_ulp_exp + 1074 : shift;
}

/* The rounding itself, from what it needs of the magnitude's bits: its
 * length len, shift (cn_sum_round_shift), word (bits [shift, shift + 64),
 * or [0, 64) when shift <= 0), half (bit shift - 1) and sticky (any bit
 * below it); +inf once the rounded value reaches 2^max_exp. The host
 * reads these from its digits one by one (cn_sum_round_magnitude), the
 * device's last block with a warp at once (cairn_devsum.h). */
CN_SUM_FN double cn_sum_round_bits(int len, int shift, uint64_t word, unsigned half, int sticky, int max_exp)
{
    uint64_t mant;
    if (shift <= 0) {
        mant = word & ((len >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << len) - 1));
        shift = 0;
    } else {
        int keep = len - shift; /* <= prec bits, maybe none */
        mant = keep > 0 ? word & (((uint64_t)1 << keep) - 1) : 0;
        if (half && (sticky || (mant & 1)))
            mant++;
    }
    int mlen = 0;
    for (uint64_t v = mant; v != 0; v >>= 1)
        mlen++;
    if (mant != 0 && mlen + shift - 1074 > max_exp)
        return HUGE_VAL;
    return ldexp((double)mant, shift - 1074);
}

/* A nonzero magnitude N (units of 2^-1074, normalised digits) rounded to
 * nearest-even at prec bits with least ulp 2^min_ulp_exp; +inf once the
 * rounded value reaches 2^max_exp. The result is exact in the target
 * format. The kept bits are taken a word at a time, not one by one. */
CN_SUM_FN double cn_sum_round_magnitude(const int64_t *d, int prec, int min_ulp_exp, int max_exp)
{
    int len = cn_sum_digits_len(d);
    int shift = cn_sum_round_shift(len, prec, min_ulp_exp);
    if (shift <= 0)
        return cn_sum_round_bits(len, shift, cn_sum_digits_word(d, 0), 0, 0, max_exp);
    return cn_sum_round_bits(len, shift, cn_sum_digits_word(d, shift), cn_sum_digits_bit(d, shift - 1),
                             cn_sum_digits_any_below(d, shift - 1), max_exp);
}

/* Rounds the exact total once, to nearest-even, to prec bits with least ulp
 * 2^min_ulp_exp and overflow at 2^max_exp, after the special values and the
 * signed zeros; the result is exact in the target format (so the f32
 * caller's conversion to float is exact). a is carried and made its
 * magnitude in place (the device's last block rounds its total this way,
 * with no copy of it). */
CN_SUM_FN double cn_sum_acc_round_inplace(cn_sum_acc *a, int prec, int min_ulp_exp, int max_exp)
{
    double special;
    if (cn_sum_acc_special(a, &special))
        return special;
    int neg = cn_sum_acc_abs(a);
    int zero = 1;
    for (int i = 0; i < CN_SUM_DIGITS && zero; i++)
        zero = a->digit[i] == 0;
    if (zero)
        return cn_sum_flags_zero(a->flags);
    double r = cn_sum_round_magnitude(a->digit, prec, min_ulp_exp, max_exp);
    return neg ? -r : r;
}

CN_SUM_FN double cn_sum_acc_round(const cn_sum_acc *a, int prec, int min_ulp_exp, int max_exp)
{
    cn_sum_acc m = *a;
    return cn_sum_acc_round_inplace(&m, prec, min_ulp_exp, max_exp);
}

/* ------------------------------------------------- the floating-point pass */

/* The lanes. A "kind" names one vector width: s (scalar: device code, and
 * compilers without GCC's vector extensions), x (two doubles: SSE2, the
 * x86-64 baseline), y (four: AVX2), z (eight: AVX-512). Each is one native
 * register, because GCC keeps a vector wider than the registers in memory.
 * The build's own kind is the widest its flags allow; on x86-64 the wider
 * ones are also built (target attributes) and a state starts on the widest
 * the CPU runs. Lane operations are macros, not functions, so no vector is
 * ever passed by value (GCC warns that would change the ABI when AVX is off).
 * Each loop step takes two vectors. -DCN_SUM_SCALAR forces the scalar kind
 * (tests); -DCN_SUM_NO_DISPATCH keeps a baseline x86-64 build on SSE2. */
#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && !defined(CN_SUM_SCALAR)
typedef double cn_sum_vd_x __attribute__((vector_size(16)));
typedef uint64_t cn_sum_vu_x __attribute__((vector_size(16)));
typedef float cn_sum_vf_x __attribute__((vector_size(8)));
#define CN_SUM_VL_x 2
#define CN_SUM_INIT_x(v) {(v), (v)}
#define CN_SUM_ANY_x(u) (((u)[0] | (u)[1]) != 0)
#define CN_SUM_HSUM_x(v) ((v)[0] + (v)[1])
typedef double cn_sum_vd_y __attribute__((vector_size(32)));
typedef uint64_t cn_sum_vu_y __attribute__((vector_size(32)));
typedef float cn_sum_vf_y __attribute__((vector_size(16)));
#define CN_SUM_VL_y 4
#define CN_SUM_INIT_y(v) {(v), (v), (v), (v)}
#define CN_SUM_ANY_y(u) (((u)[0] | (u)[1] | (u)[2] | (u)[3]) != 0)
/* Summing the lanes is exact where it is used (step 2 above). */
#define CN_SUM_HSUM_y(v) (((v)[0] + (v)[1]) + ((v)[2] + (v)[3]))
typedef double cn_sum_vd_z __attribute__((vector_size(64)));
typedef uint64_t cn_sum_vu_z __attribute__((vector_size(64)));
typedef float cn_sum_vf_z __attribute__((vector_size(32)));
#define CN_SUM_VL_z 8
#define CN_SUM_INIT_z(v) {(v), (v), (v), (v), (v), (v), (v), (v)}
#define CN_SUM_ANY_z(u) (((u)[0] | (u)[1] | (u)[2] | (u)[3] | (u)[4] | (u)[5] | (u)[6] | (u)[7]) != 0)
#define CN_SUM_HSUM_z(v) ((((v)[0] + (v)[1]) + ((v)[2] + (v)[3])) + (((v)[4] + (v)[5]) + ((v)[6] + (v)[7])))
#define CN_SUM_BITS_V(K, v) ((cn_sum_vu_##K)(v))
#define CN_SUM_FROMBITS_V(K, u) ((cn_sum_vd_##K)(u))
#define CN_SUM_LOAD_f64(K, v, p) memcpy(&(v), (p), sizeof(v))
#define CN_SUM_LOAD_f32(K, v, p)                                              \
    do {                                                                      \
        cn_sum_vf_##K f_;                                                     \
        memcpy(&f_, (p), sizeof f_);                                          \
        (v) = __builtin_convertvector(f_, cn_sum_vd_##K);                     \
    } while (0)
#if defined(__AVX512F__)
#define CN_SUM_KIND z
#elif defined(__AVX2__)
#define CN_SUM_KIND y
#if defined(__x86_64__) && !defined(CN_SUM_NO_DISPATCH)
#define CN_SUM_DISPATCH_Z 1 /* also an AVX-512 kind, chosen at run time */
#endif
#else
#define CN_SUM_KIND x
#if defined(__x86_64__) && !defined(CN_SUM_NO_DISPATCH)
#define CN_SUM_DISPATCH_Y 1 /* also AVX2 and AVX-512 kinds, chosen at run time */
#define CN_SUM_DISPATCH_Z 1
#endif
#endif
#else
#define CN_SUM_KIND s
#define CN_SUM_BITS_V(K, v) cn_sum_bits64(v)
#define CN_SUM_FROMBITS_V(K, u) cn_sum_from_bits64(u)
#define CN_SUM_LOAD_f64(K, v, p) ((v) = *(p))
#define CN_SUM_LOAD_f32(K, v, p) ((v) = (double)*(p))
#endif
typedef double cn_sum_vd_s;
typedef uint64_t cn_sum_vu_s;
#define CN_SUM_VL_s 1
#define CN_SUM_INIT_s(v) {(v)}
#define CN_SUM_ANY_s(u) ((u) != 0)
#define CN_SUM_HSUM_s(v) (v)
#define CN_SUM_STORE_V(p, v) memcpy((p), &(v), sizeof(v))
/* Terms a fast pass takes at a time must be a multiple of this (two vectors
 * of the widest kind); the rest of an array goes term by term. */
#define CN_SUM_W 16

/* 1.5 * 2^E, E clamped to -1022 (its ulp is then 2^-1074), built from bits. */
CN_SUM_FN double cn_sum_level_base(int E)
{
    if (E < -1022)
        E = -1022;
    return cn_sum_from_bits64(((uint64_t)(E + 1023) << 52) | ((uint64_t)1 << 51));
}

/* What a pass found. */
enum { CN_SUM_PASS_DONE, CN_SUM_PASS_LEFT, CN_SUM_PASS_ZERO, CN_SUM_PASS_SLOW };

/* One level's FastTwoSum step: s + v = (new s) + (new v), exactly. */
#define CN_SUM_STEP(K, s, v)                                                  \
    do {                                                                      \
        cn_sum_vd_##K t_ = (s) + (v);                                         \
        cn_sum_vd_##K q_ = t_ - (s);                                          \
        (v) = (v) - q_;                                                       \
        (s) = t_;                                                             \
    } while (0)

/* Which level's lanes gathered anything. */
#define CN_SUM_USED(K, sa, sb, b) ((CN_SUM_BITS_V(K, (sa) - (b)) | CN_SUM_BITS_V(K, (sb) - (b))) & mag)

/* The level loop of kind K for a compile-time level count L (1..4), kept in
 * registers, two vectors a step (s*, z*). Terms come from x; remainders go
 * to rem. Adds each level's gathered value to the digits. Returns whether
 * any remainder is nonzero; *last_used says whether level L gathered
 * anything. */
#define CN_SUM_DEFINE_LEVELS(F, T, K, ATTR)                                   \
    ATTR CN_SUM_FN CN_SUM_HOT int cn_sum_levels_##F##_##K(                    \
        cn_sum_acc *a, const T *x, size_t n, double *rem, const double *base, int L, \
        int *last_used)                                                       \
    {                                                                         \
        typedef cn_sum_vd_##K vd;                                             \
        typedef cn_sum_vu_##K vu;                                             \
        const vd b0 = CN_SUM_INIT_##K(base[0]), b1 = CN_SUM_INIT_##K(base[1]); \
        const vd b2 = CN_SUM_INIT_##K(base[2]), b3 = CN_SUM_INIT_##K(base[3]); \
        const vu mag = CN_SUM_INIT_##K(~((uint64_t)1 << 63));                 \
        vd s0 = b0, s1 = b1, s2 = b2, s3 = b3;                                \
        vd z0 = b0, z1 = b1, z2 = b2, z3 = b3;                                \
        vu left = CN_SUM_INIT_##K(0);                                         \
        for (size_t i = 0; i < n; i += 2 * CN_SUM_VL_##K) {                   \
            vd v, w;                                                          \
            CN_SUM_LOAD_##F(K, v, x + i);                                     \
            CN_SUM_LOAD_##F(K, w, x + i + CN_SUM_VL_##K);                     \
            CN_SUM_STEP(K, s0, v);                                            \
            CN_SUM_STEP(K, z0, w);                                            \
            if (L > 1) {                                                      \
                CN_SUM_STEP(K, s1, v);                                        \
                CN_SUM_STEP(K, z1, w);                                        \
            }                                                                 \
            if (L > 2) {                                                      \
                CN_SUM_STEP(K, s2, v);                                        \
                CN_SUM_STEP(K, z2, w);                                        \
            }                                                                 \
            if (L > 3) {                                                      \
                CN_SUM_STEP(K, s3, v);                                        \
                CN_SUM_STEP(K, z3, w);                                        \
            }                                                                 \
            CN_SUM_STORE_V(rem + i, v);                                       \
            CN_SUM_STORE_V(rem + i + CN_SUM_VL_##K, w);                       \
            left |= (CN_SUM_BITS_V(K, v) | CN_SUM_BITS_V(K, w)) & mag;        \
        }                                                                     \
        /* each lane's gathered value is exact, and so is their sum */        \
        vd off[4] = {(s0 - b0) + (z0 - b0), (s1 - b1) + (z1 - b1),            \
                     (s2 - b2) + (z2 - b2), (s3 - b3) + (z3 - b3)};           \
        for (int j = 0; j < L; j++)                                           \
            cn_sum_acc_add(a, CN_SUM_HSUM_##K(off[j]));                       \
        vu used = L == 1   ? CN_SUM_USED(K, s0, z0, b0)                       \
                  : L == 2 ? CN_SUM_USED(K, s1, z1, b1)                       \
                  : L == 3 ? CN_SUM_USED(K, s2, z2, b2)                       \
                           : CN_SUM_USED(K, s3, z3, b3);                      \
        *last_used = CN_SUM_ANY_##K(used);                                    \
        return CN_SUM_ANY_##K(left);                                          \
    }

/* Pass of kind K over n terms (n a multiple of CN_SUM_W, n <= CN_SUM_CHUNK)
 * with L levels: steps 1 to 4 of the header comment. */
#define CN_SUM_DEFINE_PASS(F, T, K, ATTR)                                     \
    CN_SUM_DEFINE_LEVELS(F, T, K, ATTR)                                       \
    ATTR CN_SUM_FN int cn_sum_pass_##F##_##K(cn_sum_acc *a, const T *x, size_t n, double *rem, \
                                             int L, int *last_used)           \
    {                                                                         \
        typedef cn_sum_vd_##K vd;                                             \
        const cn_sum_vu_##K mag = CN_SUM_INIT_##K(~((uint64_t)1 << 63));      \
        vd total = CN_SUM_INIT_##K(0.0), total2 = CN_SUM_INIT_##K(0.0);       \
        for (size_t i = 0; i < n; i += 2 * CN_SUM_VL_##K) {                   \
            vd v, w;                                                          \
            CN_SUM_LOAD_##F(K, v, x + i);                                     \
            CN_SUM_LOAD_##F(K, w, x + i + CN_SUM_VL_##K);                     \
            total += CN_SUM_FROMBITS_V(K, CN_SUM_BITS_V(K, v) & mag);         \
            total2 += CN_SUM_FROMBITS_V(K, CN_SUM_BITS_V(K, w) & mag);        \
        }                                                                     \
        total += total2;                                                      \
        double S = CN_SUM_HSUM_##K(total);                                    \
        if (!(S <= DBL_MAX))                                                  \
            return CN_SUM_PASS_SLOW;                                          \
        if (S == 0)                                                           \
            return CN_SUM_PASS_ZERO;                                          \
        int ef = (int)((cn_sum_bits64(S) >> 52) & 0x7ff);                     \
        int E = (ef == 0 ? -1022 : ef - 1022) + 2; /* S < 2^(E-2) */          \
        if (E > 1023)                                                         \
            return CN_SUM_PASS_SLOW;                                          \
        double base[4];                                                       \
        for (int j = 0; j < 4; j++)                                           \
            base[j] = cn_sum_level_base(E - CN_SUM_LEVEL_GAP * j);            \
        int left;                                                             \
        switch (L) {                                                          \
        case 1: left = cn_sum_levels_##F##_##K(a, x, n, rem, base, 1, last_used); break; \
        case 2: left = cn_sum_levels_##F##_##K(a, x, n, rem, base, 2, last_used); break; \
        case 3: left = cn_sum_levels_##F##_##K(a, x, n, rem, base, 3, last_used); break; \
        default: left = cn_sum_levels_##F##_##K(a, x, n, rem, base, 4, last_used); break; \
        }                                                                     \
        return left ? CN_SUM_PASS_LEFT : CN_SUM_PASS_DONE;                    \
    }

#define CN_SUM_DEFINE_PASSES(K, ATTR)                                         \
    CN_SUM_DEFINE_PASS(f64, double, K, ATTR)                                  \
    CN_SUM_DEFINE_PASS(f32, float, K, ATTR)
#define CN_SUM_DEFINE_PASSES_OF(K, ATTR) CN_SUM_DEFINE_PASSES(K, ATTR)

CN_SUM_DEFINE_PASSES_OF(CN_SUM_KIND, )
#ifdef CN_SUM_DISPATCH_Y
CN_SUM_DEFINE_PASSES(y, __attribute__((target("avx2"))))
#endif
#ifdef CN_SUM_DISPATCH_Z
CN_SUM_DEFINE_PASSES(z, __attribute__((target("avx512f"))))
#endif

/* The widest kind this machine runs, beyond the build's own: 0 (the build's
 * kind), 1 (AVX2), 2 (AVX-512). A state starts with it; it is a field, not a
 * global, so a test can run every kind. It changes the speed, never the sum. */
CN_SUM_FN uint32_t cn_sum_cpu_wide(void)
{
#if defined(CN_SUM_DISPATCH_Y) || defined(CN_SUM_DISPATCH_Z)
    __builtin_cpu_init(); /* idempotent; needed if called before constructors run */
#endif
#ifdef CN_SUM_DISPATCH_Z
    if (__builtin_cpu_supports("avx512f"))
        return 2;
#endif
#ifdef CN_SUM_DISPATCH_Y
    if (__builtin_cpu_supports("avx2"))
        return 1;
#endif
    return 0;
}

#define CN_SUM_PASS_OF(F, K) cn_sum_pass_##F##_##K
#define CN_SUM_PASS(F, K) CN_SUM_PASS_OF(F, K)
#ifdef CN_SUM_DISPATCH_Z
#define CN_SUM_TRY_Z(F)                                                       \
    if (wide >= 2)                                                            \
        return cn_sum_pass_##F##_z(a, x, n, rem, L, last_used);
#else
#define CN_SUM_TRY_Z(F)
#endif
#ifdef CN_SUM_DISPATCH_Y
#define CN_SUM_TRY_Y(F)                                                       \
    if (wide >= 1)                                                            \
        return cn_sum_pass_##F##_y(a, x, n, rem, L, last_used);
#else
#define CN_SUM_TRY_Y(F)
#endif
#define CN_SUM_DEFINE_DISPATCH(F, T)                                          \
    CN_SUM_FN int cn_sum_pass_##F(cn_sum_acc *a, const T *x, size_t n, double *rem, int L, \
                                  int *last_used, uint32_t wide)              \
    {                                                                         \
        (void)wide;                                                           \
        CN_SUM_TRY_Z(F)                                                       \
        CN_SUM_TRY_Y(F)                                                       \
        return CN_SUM_PASS(F, CN_SUM_KIND)(a, x, n, rem, L, last_used);       \
    }
CN_SUM_DEFINE_DISPATCH(f64, double)
CN_SUM_DEFINE_DISPATCH(f32, float)

/* After the first pass of a chunk (which found a nonzero finite term):
 * whatever the levels left over, through further passes. Adapts *levels,
 * the first pass's level count for the next chunk. */
CN_SUM_FN void cn_sum_finish_chunk(cn_sum_acc *a, int status, double *rem, size_t n,
                                   uint32_t *levels, int last_used, uint32_t wide)
{
    int L = (int)*levels;
    if (status == CN_SUM_PASS_DONE && !last_used && L > 1)
        *levels = (uint32_t)(L - 1);
    if (status == CN_SUM_PASS_LEFT && L < CN_SUM_MAX_LEVELS)
        *levels = (uint32_t)(L + 1);
    while (status == CN_SUM_PASS_LEFT)
        status = cn_sum_pass_f64(a, rem, n, rem, CN_SUM_MAX_LEVELS, &last_used, wide);
    if (status == CN_SUM_PASS_SLOW) /* cannot happen for remainders; exact anyway */
        for (size_t i = 0; i < n; i++)
            cn_sum_acc_add(a, rem[i]);
}

/* --------------------------------------------------------------- f64 API */

CN_SUM_FN void cn_sum64_init(cn_sum64 *s)
{
    cn_sum_acc_init(&s->acc);
    s->levels = 2;
    s->wide = cn_sum_cpu_wide();
    s->nbuf = 0;
}

/* One chunk (n a multiple of CN_SUM_W, n <= CN_SUM_CHUNK): the fast pass,
 * or term by term when it declines; the zero and -0.0 flags. */
CN_SUM_FN void cn_sum64_chunk(cn_sum64 *s, const double *x, size_t n)
{
    double rem[CN_SUM_CHUNK];
    int last_used = 0;
    int status = cn_sum_pass_f64(&s->acc, x, n, rem, (int)s->levels, &last_used, s->wide);
    if (status == CN_SUM_PASS_SLOW) {
        for (size_t i = 0; i < n; i++)
            cn_sum_acc_term(&s->acc, x[i]);
        return;
    }
    s->acc.flags |= CN_SUM_SAW_TERM;
    if (status == CN_SUM_PASS_ZERO) {
        for (size_t i = 0; i < n; i++)
            if (cn_sum_bits64(x[i]) != (uint64_t)1 << 63)
                s->acc.flags |= CN_SUM_SAW_NOT_NEGZERO;
        return;
    }
    s->acc.flags |= CN_SUM_SAW_NOT_NEGZERO;
    cn_sum_finish_chunk(&s->acc, status, rem, n, &s->levels, last_used, s->wide);
}

CN_SUM_FN void cn_sum64_add_array(cn_sum64 *s, const double *x, size_t n)
{
    size_t whole = n - n % CN_SUM_W;
    for (size_t i = 0; i < whole; i += CN_SUM_CHUNK)
        cn_sum64_chunk(s, x + i, whole - i < (size_t)CN_SUM_CHUNK ? whole - i : (size_t)CN_SUM_CHUNK);
    for (size_t i = whole; i < n; i++)
        cn_sum_acc_term(&s->acc, x[i]);
}

CN_SUM_FN void cn_sum64_add(cn_sum64 *s, double x)
{
    s->buf[s->nbuf++] = x;
    if (s->nbuf == CN_SUM_CHUNK) {
        cn_sum64_chunk(s, s->buf, CN_SUM_CHUNK);
        s->nbuf = 0;
    }
}

CN_SUM_FN void cn_sum64_flush(cn_sum64 *s)
{
    uint32_t n = s->nbuf;
    s->nbuf = 0;
    if (n != 0)
        cn_sum64_add_array(s, s->buf, n);
}

/* dst += src, exactly (dst != src); src is left as it was. */
CN_SUM_FN void cn_sum64_merge(cn_sum64 *dst, const cn_sum64 *src)
{
    if (src->nbuf != 0)
        cn_sum64_add_array(dst, src->buf, src->nbuf);
    cn_sum_acc_merge(&dst->acc, &src->acc);
}

CN_SUM_FN double cn_sum64_round(cn_sum64 *s)
{
    cn_sum64_flush(s);
    return cn_sum_acc_round(&s->acc, 53, -1074, 1024);
}

CN_SUM_FN double cn_sum_f64(const double *x, size_t n)
{
    cn_sum64 s;
    cn_sum64_init(&s);
    cn_sum64_add_array(&s, x, n);
    return cn_sum64_round(&s);
}

/* --------------------------------------------------------------- f32 API */

CN_SUM_FN void cn_sum32_init(cn_sum32 *s)
{
    cn_sum_acc_init(&s->acc);
    s->levels = 1;
    s->wide = cn_sum_cpu_wide();
    s->nbuf = 0;
}

/* One chunk (n a multiple of CN_SUM_W, n <= CN_SUM_CHUNK): the fast pass,
 * or term by term when it declines; the zero and -0.0 flags. */
CN_SUM_FN void cn_sum32_chunk(cn_sum32 *s, const float *x, size_t n)
{
    double rem[CN_SUM_CHUNK];
    int last_used = 0;
    int status = cn_sum_pass_f32(&s->acc, x, n, rem, (int)s->levels, &last_used, s->wide);
    if (status == CN_SUM_PASS_SLOW) {
        for (size_t i = 0; i < n; i++)
            cn_sum_acc_term(&s->acc, (double)x[i]);
        return;
    }
    s->acc.flags |= CN_SUM_SAW_TERM;
    if (status == CN_SUM_PASS_ZERO) {
        for (size_t i = 0; i < n; i++)
            if (cn_sum_bits64((double)x[i]) != (uint64_t)1 << 63)
                s->acc.flags |= CN_SUM_SAW_NOT_NEGZERO;
        return;
    }
    s->acc.flags |= CN_SUM_SAW_NOT_NEGZERO;
    cn_sum_finish_chunk(&s->acc, status, rem, n, &s->levels, last_used, s->wide);
}

CN_SUM_FN void cn_sum32_add_array(cn_sum32 *s, const float *x, size_t n)
{
    size_t whole = n - n % CN_SUM_W;
    for (size_t i = 0; i < whole; i += CN_SUM_CHUNK)
        cn_sum32_chunk(s, x + i, whole - i < (size_t)CN_SUM_CHUNK ? whole - i : (size_t)CN_SUM_CHUNK);
    for (size_t i = whole; i < n; i++)
        cn_sum_acc_term(&s->acc, (double)x[i]);
}

CN_SUM_FN void cn_sum32_add(cn_sum32 *s, float x)
{
    s->buf[s->nbuf++] = x;
    if (s->nbuf == CN_SUM_CHUNK) {
        cn_sum32_chunk(s, s->buf, CN_SUM_CHUNK);
        s->nbuf = 0;
    }
}

CN_SUM_FN void cn_sum32_flush(cn_sum32 *s)
{
    uint32_t n = s->nbuf;
    s->nbuf = 0;
    if (n != 0)
        cn_sum32_add_array(s, s->buf, n);
}

/* dst += src, exactly (dst != src); src is left as it was. */
CN_SUM_FN void cn_sum32_merge(cn_sum32 *dst, const cn_sum32 *src)
{
    if (src->nbuf != 0)
        cn_sum32_add_array(dst, src->buf, src->nbuf);
    cn_sum_acc_merge(&dst->acc, &src->acc);
}

CN_SUM_FN float cn_sum_f32_qnan(void)
{
    uint32_t b = 0x7fc00000u;
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* Rounded from the exact total to f32's 24 bits, least ulp 2^-149 and
 * overflow at 2^128, so the conversion to float below is exact. */
CN_SUM_FN float cn_sum32_round(cn_sum32 *s)
{
    cn_sum32_flush(s);
    double r = cn_sum_acc_round(&s->acc, 24, -149, 128);
    if (r != r)
        return cn_sum_f32_qnan();
    return (float)r;
}

CN_SUM_FN float cn_sum_f32(const float *x, size_t n)
{
    cn_sum32 s;
    cn_sum32_init(&s);
    cn_sum32_add_array(&s, x, n);
    return cn_sum32_round(&s);
}

#endif /* CAIRN_SUM_H */
