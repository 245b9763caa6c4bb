/*
 * cairn_sum.h: the exact float sum behind `reduce + parallel` over f32 and f64.
 *
 * Header-only, in the common subset of C17 and C++17, like cairn_rt.h; every
 * function is `static inline` (and __host__ __device__ under nvcc). Nothing is
 * allocated and there is no global state: a sum lives in a caller's struct.
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

/* ------------------------------------- the device's exact sum's steps */

/* What the device's exact sum (cairn_devsum.h) does to each term and to a
 * thread's state, here so that the host can test it against cn_sum_f32
 * and cn_sum_f64 (tests/unit/test_devsum.c). */

enum {
    CN_DSUM32_BINS = 16,
    CN_DSUM32_LIMBS = 17,       /* a limb a bin, and one the top bin's limb carries into */
    CN_DSUM32_FLUSH = 1 << 14,  /* terms a thread adds before it moves its bins to the limbs */
    CN_DSUM32_LIMB_P = 924,     /* limb 0's weight, 2^-150, in units of 2^-1074 */
    CN_DSUM64_THREADS = 64,     /* a block of the f64 sum: 68 digits x 64 threads, 34 KB */
    CN_DSUM64_PART_MAX = 1 << 24, /* terms of an f64 part at most: its threads' digits need no carry */
    CN_DSUM32_THREADS = 256
};

/* An f32 term's bin: the top four bits of its exponent field. */
CN_SUM_FN unsigned cn_dsum32_bin(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (u >> 27) & 15;
}

/* One f32 term into its bin (bins a stride apart). */
CN_SUM_FN void cn_dsum32_put(double *bins, size_t stride, float x) { bins[cn_dsum32_bin(x) * stride] += (double)x; }

/* u <= 16 terms (a thread's batch) into their bins. Where they all share
 * one bin, their sum goes in with one add: the bin's terms span 16
 * binades of 24-bit significands, so 16 of them add up exactly in a
 * double (24 + 15 + 4 bits), in any order, and adding that sum is adding
 * them one by one; the signed zeros and the infinities come out as they
 * would (-0 only from -0 terms, inf - inf a NaN either way). On the device
 * each term into a shared-memory bin is a load, an add and a store that
 * waits for the last term's (31% of the fold's stalls on an H100,
 * evidence/2026-12-07-h100-fills.md); moderate data puts nearly every
 * term of a batch in one bin. Opt-in (cairn_devsum.h, CN_DSUM32_SAME). */
CN_SUM_FN void cn_dsum32_batch(double *bins, size_t stride, const float *y, unsigned u)
{
    const unsigned b = cn_dsum32_bin(y[0]);
    int same = 1;   /* (no stdbool here: the header serves C11 without it) */
    for (unsigned i = 1; i < u; i++)
        same &= cn_dsum32_bin(y[i]) == b;
    if (!same) {
        for (unsigned i = 0; i < u; i++)
            cn_dsum32_put(bins, stride, y[i]);
        return;
    }
    double s0 = -0.0, s1 = -0.0;   /* two chains, so the adds overlap */
    for (unsigned i = 0; i + 1 < u; i += 2)
        s0 += (double)y[i], s1 += (double)y[i + 1];
    if (u & 1)
        s0 += (double)y[u - 1];
    bins[b * stride] += s0 + s1;
}

/* Empties bin b (back to -0.0) and returns its value as a whole number
 * of its units, 2^(16b-150), below 2^53 in magnitude; notes the flags: a
 * bin that is not -0.0 saw a term other than -0.0, a non-finite one an
 * infinity or a NaN (which contributes 0). */
CN_SUM_FN int64_t cn_dsum32_take(double *bins, size_t stride, int b, uint32_t *flags)
{
    double v = bins[b * stride];
    uint64_t u = cn_sum_bits64(v);
    bins[b * stride] = -0.0;
    if (u == (uint64_t)1 << 63)
        return 0;
    *flags |= CN_SUM_SAW_NOT_NEGZERO;
    if (((u >> 52) & 0x7ff) == 0x7ff) {
        *flags |= (u & (((uint64_t)1 << 52) - 1)) ? CN_SUM_SAW_NAN : (u >> 63) ? CN_SUM_SAW_NINF : CN_SUM_SAW_PINF;
        return 0;
    }
    /* v * 2^(150 - 16b): a power of two, so exact */
    return (int64_t)(v * cn_sum_from_bits64((uint64_t)(1023 + 150 - 16 * b) << 52));
}

/* The CN_DSUM32_LIMBS limbs of weight 2^(16b) units of 2^-150 carried into
 * 16 bits each, the top one signed. The top bin's terms add up to 2^38 each
 * to limb 15, so a total of 2^25 terms near f32's largest would pass a
 * 64-bit limb 15; limb 16 (2^106) takes the carries, and holds the totals
 * of fewer than 2^41 terms. */
CN_SUM_FN void cn_dsum32_carry(int64_t *limb)
{
    for (int b = 0; b < CN_DSUM32_LIMBS - 1; b++) {
        int64_t lo = (int64_t)((uint64_t)limb[b] & 0xffffu);
        limb[b + 1] += (limb[b] - lo) / 65536;
        limb[b] = lo;
    }
}

/* The limbs into an exact total. */
CN_SUM_FN void cn_dsum32_to_acc(cn_sum_acc *a, const int64_t *limb)
{
    for (int b = 0; b < CN_DSUM32_LIMBS; b++)
        cn_sum_acc_add_scaled(a, limb[b], CN_DSUM32_LIMB_P + 16 * b);
}

/* The f32 device sum's window (cairn_devsum.h): a thread's terms near the
 * largest of its first ones, summed exactly in one double in registers;
 * every other term goes to the thread's own limbs, a column of 17 64-bit
 * integers in shared memory (cn_dsum32_limb_put). The window takes a term
 * whose exponent field is in [lo, lo + 17] (2^(E-29) <= |x| < 2^(E-11),
 * E = lo - 98): its ulp, 2^(E-52) at least, is the accumulator's, which
 * starts at B = 1.5 * 2^E and stays in (2^E, 2^(E+1)) while it takes at
 * most 2^10 such terms (their sum is below 2^(E-1)), so every add is
 * exact. A term costs one test of its exponent field, a conversion and an
 * add, where the bins of doubles in shared memory cost a load, an add and
 * a store a term and held a block to five on a multiprocessor.
 *
 * lo is kept in [1, 220]: zeros, subnormals (field 0), infinities and NaNs
 * (field 255) are never taken, and the window's value stays below 2^121,
 * 2^271 units of 2^-150, so its flush touches limbs 16 and under. */
typedef struct {
    double s, b;
    unsigned lo; /* the lowest field taken, or CN_DSUM32_NO_WIN before a nonzero normal term */
} cn_dsum32_win;

enum {
    CN_DSUM32_WIN_TERMS = 1 << 10,
    CN_DSUM32_WIN_FIELDS = 17,
    CN_DSUM32_WIN_BELOW = 15,
    CN_DSUM32_WIN_LO_MAX = 220,
    CN_DSUM32_BATCH_MAX = 32 /* terms of a batch at most */
};
#define CN_DSUM32_NO_WIN (1u << 20)

CN_SUM_FN void cn_dsum32_win_init(cn_dsum32_win *w)
{
    w->s = w->b = 0;
    w->lo = CN_DSUM32_NO_WIN;
}

CN_SUM_FN uint32_t cn_sum_bits32(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Adds the term with bits u when the window takes it: returns 1, else 0. */
CN_SUM_FN int cn_dsum32_win_take(cn_dsum32_win *w, uint32_t u)
{
    unsigned ef = (u >> 23) & 0xffu;
    if (ef - w->lo > (unsigned)CN_DSUM32_WIN_FIELDS)
        return 0;
    float x;
    memcpy(&x, &u, sizeof x);
    w->s += (double)x;
    return 1;
}

/* Places the window so that a term of field ef (normal) is taken with two
 * binades above it to spare. */
CN_SUM_FN void cn_dsum32_win_at(cn_dsum32_win *w, int ef)
{
    int lo = ef - CN_DSUM32_WIN_BELOW;
    lo = lo < 1 ? 1 : lo > CN_DSUM32_WIN_LO_MAX ? CN_DSUM32_WIN_LO_MAX : lo;
    w->lo = (unsigned)lo;
    w->b = w->s = 1.5 * cn_sum_from_bits64((uint64_t)(lo - 98 + 1023) << 52);
}

/* Places the window from the largest of a thread's first terms (y[0..count),
 * before any is added), when one is a nonzero normal. */
/* The largest finite exponent field of y[0..count): 0 when none is a
 * nonzero normal. */
CN_SUM_FN unsigned cn_dsum32_top_field(const float *y, int count)
{
    unsigned top = 0;
    for (int i = 0; i < count; i++) {
        unsigned ef = (cn_sum_bits32(y[i]) >> 23) & 0xffu;
        if (ef != 0xffu && ef > top)
            top = ef;
    }
    return top;
}

CN_SUM_FN void cn_dsum32_win_place(cn_dsum32_win *w, const float *y, int count, uint32_t *flags)
{
    unsigned top = cn_dsum32_top_field(y, count);
    if (top == 0 || w->lo != CN_DSUM32_NO_WIN)
        return;
    *flags |= CN_SUM_SAW_NOT_NEGZERO; /* that term is summed: the window takes it or the limbs do */
    cn_dsum32_win_at(w, (int)top);
}

/* A finite term into a thread's limbs (a stride apart): its magnitude is
 * mant * 2^eff units of 2^-150 (eff = max(field, 1)), so it adds mant
 * shifted by eff mod 16, below 2^39, to limb eff / 16. */
CN_SUM_FN void cn_dsum32_limb_put(int64_t *limbs, size_t stride, uint32_t u)
{
    unsigned ef = (u >> 23) & 0xffu, eff = ef ? ef : 1;
    int64_t v = (int64_t)((u & 0x7fffffu) | (ef ? 0x800000u : 0)) << (eff & 15);
    limbs[(eff >> 4) * stride] += (u >> 31) ? -v : v;
}

/* A term the window did not take: notes its flags; places the window at
 * it when nothing has (taking it, unless the window's top is clamped below
 * it); a finite nonzero term not taken goes to the limbs. */
CN_SUM_FN void cn_dsum32_win_miss(cn_dsum32_win *w, uint32_t u, uint32_t *flags, int64_t *limbs, size_t stride)
{
    unsigned ef = (u >> 23) & 0xffu;
    if (ef == 0xffu) {
        *flags |= (u & 0x7fffffu) ? CN_SUM_SAW_NAN : (u >> 31) ? CN_SUM_SAW_NINF : CN_SUM_SAW_PINF;
        return;
    }
    if (u != 0x80000000u)
        *flags |= CN_SUM_SAW_NOT_NEGZERO;
    if ((u << 1) == 0)
        return;
    if (ef != 0 && w->lo == CN_DSUM32_NO_WIN) {
        cn_dsum32_win_at(w, (int)ef);
        if (cn_dsum32_win_take(w, u)) /* not when lo is clamped below ef - 15 */
            return;
    }
    cn_dsum32_limb_put(limbs, stride, u);
}

/* The terms of a batch y[0..k) that a window at lo did not take. */
CN_SUM_COLD_FN void cn_dsum32_win_misses(cn_dsum32_win *w, const float *y, int k, unsigned lo, uint32_t *flags,
                                         int64_t *limbs, size_t stride)
{
    for (int i = 0; i < k; i++) {
        uint32_t u = cn_sum_bits32(y[i]);
        if (((u >> 23) & 0xffu) - lo > (unsigned)CN_DSUM32_WIN_FIELDS)
            cn_dsum32_win_miss(w, u, flags, limbs, stride);
    }
}

/* A batch of a thread's terms y[0..k): those the window takes, added with
 * no branch (a term it does not take adds +0.0, which leaves the
 * accumulator, a normal number, as it is); then, if any was not taken, each
 * such term to cn_dsum32_win_miss. One branch a batch, where a branch a
 * term split the warp's path at every term. */
CN_SUM_FN CN_SUM_HOT void cn_dsum32_win_batch(cn_dsum32_win *w, const float *y, int k, uint32_t *flags, int64_t *limbs,
                                              size_t stride)
{
    const unsigned lo = w->lo;
    int missed = 0;
    for (int i = 0; i < k; i++) {
        int in = ((cn_sum_bits32(y[i]) >> 23) & 0xffu) - lo <= (unsigned)CN_DSUM32_WIN_FIELDS;
        w->s += in ? (double)y[i] : 0.0;
        missed |= !in;
    }
    if (missed) {
        /* copies, so that only they have their address taken (on the
         * device, the window and the batch stay in registers) */
        cn_dsum32_win c = *w;
        uint32_t f = *flags;
        float z[CN_DSUM32_BATCH_MAX];
        for (int i = 0; i < k; i++)
            z[i] = y[i];
        cn_dsum32_win_misses(&c, z, k, lo, &f, limbs, stride);
        *w = c;
        *flags = f;
    }
}

/* The window into the limbs, emptied (E stays). s - B is exact, a
 * multiple of 2^-149 below 2^121: m * 2^sh units of 2^-150 with m < 2^53,
 * added as pieces below 2^32 to limbs sh / 16, + 2 and + 4 (a piece past
 * limb 16 would weigh 2^272 units: it is zero). */
CN_SUM_FN void cn_dsum32_win_flush(cn_dsum32_win *w, int64_t *limbs, size_t stride)
{
    double v = w->s - w->b;
    w->s = w->b;
    uint64_t bits = cn_sum_bits64(v);
    int p;
    uint64_t m = cn_sum_split64(bits, &p);
    if (m == 0)
        return;
    int sh = p - CN_DSUM32_LIMB_P;
    if (sh < 0) { /* v is a multiple of 2^-150: the low bits of m are zero */
        m >>= -sh;
        sh = 0;
    }
    int r = sh & 15;
    unsigned b = (unsigned)sh >> 4;
    uint64_t lo = m << r, hi = r ? m >> (64 - r) : 0;
    int64_t c[3] = {(int64_t)(lo & 0xffffffffu), (int64_t)(lo >> 32), (int64_t)hi};
    for (unsigned k = 0; k < 3; k++)
        if (c[k] && b + 2 * k < CN_DSUM32_LIMBS)
            limbs[(b + 2 * k) * stride] += (bits >> 63) ? -c[k] : c[k];
}

/* The f32 device sum's pair (cairn_devsum.h, CN_DSUM32_WINDOW=2, opt-in
 * until timed on a GPU): the bins of doubles in shared memory, with the
 * terms near the largest of a thread's first ones summed in registers in
 * front of them, in f32, with no conversion. Nsight Compute on the bins
 * alone (evidence/2026-12-07-h100-fills.md): a third of a warp's time
 * waits on shared memory, each term's load, add and store of its bin
 * behind the last term's store.
 *
 * Window: exponent fields [lo, lo + 11]. With E = lo - 109 (fields
 * lo .. lo + 11 are exponents E - 18 .. E - 7), a term x taken has
 * 2^(E-18) <= |x| < 2^(E-6), and
 *
 *   t = s1 + x;  q = t - s1;  s2 += x - q;  s1 = t;
 *
 * is exact for 16 terms (Dekker's FastTwoSum): s1 starts at 1.5 * 2^E and
 * moves by less than 16 * 2^(E-6) + 16 * 2^(E-24), so stays in its binade;
 * t - s1 is exact there, and x - q, the error of t, is a multiple of x's
 * ulp, 2^(E-41) at least, no larger than 2^(E-24): an f32. s2 starts at
 * 1.5 * 2^(E-18), whose ulp, 2^(E-41), divides every error, and moves by
 * at most 16 * 2^(E-24) = 2^(E-20), so s2 += r is exact too.
 *
 * After each batch (at most 16 terms) v1 = s1 - B1 and v2 = s2 - B2, exact
 * f32s and multiples of 2^(lo-150), go into d, a double from
 * 1.5 * 2^(lo-98) whose ulp is 2^(lo-150): each term taken moves it by
 * less than 2^(lo-115) (and its error, by 2^(lo-133) at most), and a
 * thread's d goes to its bins (cn_dsum32_pair_spill) before its bins go to
 * the limbs, every 2^14 terms (a few more at most), so d - B stays below
 * 2^(lo-101), d in its binade. lo is kept in [1, 227]:
 * then the two pieces d is split into are finite f32s, and zeros, subnormals,
 * infinities and NaNs (fields 0 and 255) are never taken; they, and every
 * term outside the window, go to the bins as before. */
typedef struct {
    float s1, s2, b1, b2;
    double d, bd;
    unsigned lo; /* the lowest field taken, or CN_DSUM32_NO_WIN before a nonzero normal term */
} cn_dsum32_pair;

enum { CN_DSUM32_PAIR_FIELDS = 11, CN_DSUM32_PAIR_TERMS = 16, CN_DSUM32_PAIR_LO_MAX = 227 };

CN_SUM_FN float cn_sum_from_bits32(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

CN_SUM_FN void cn_dsum32_pair_init(cn_dsum32_pair *w)
{
    w->s1 = w->s2 = w->b1 = w->b2 = 0;
    w->d = w->bd = 0;
    w->lo = CN_DSUM32_NO_WIN;
}

/* Places the window so that its top field is ef (a normal term's), lo kept
 * in [1, CN_DSUM32_PAIR_LO_MAX]. */
CN_SUM_FN void cn_dsum32_pair_at(cn_dsum32_pair *w, int ef)
{
    int lo = ef - CN_DSUM32_PAIR_FIELDS;
    lo = lo < 1 ? 1 : lo > CN_DSUM32_PAIR_LO_MAX ? CN_DSUM32_PAIR_LO_MAX : lo;
    w->lo = (unsigned)lo;
    w->b1 = w->s1 = cn_sum_from_bits32((uint32_t)(lo + 18) << 23 | 0x400000u); /* 1.5 * 2^(lo-109) */
    w->b2 = w->s2 = cn_sum_from_bits32((uint32_t)lo << 23 | 0x400000u);        /* 1.5 * 2^(lo-127) */
    w->bd = w->d = 1.5 * cn_sum_from_bits64((uint64_t)(lo - 98 + 1023) << 52);
}

/* Places the window from the largest of a thread's first terms (y[0..count),
 * before any is added), when one is a nonzero normal. */
CN_SUM_FN void cn_dsum32_pair_place(cn_dsum32_pair *w, const float *y, int count, uint32_t *flags)
{
    unsigned top = cn_dsum32_top_field(y, count);
    if (top == 0 || w->lo != CN_DSUM32_NO_WIN)
        return;
    *flags |= CN_SUM_SAW_NOT_NEGZERO; /* that term is summed: the window takes it or the bins do */
    cn_dsum32_pair_at(w, (int)top);
}

/* The terms of a batch the window at lo did not take, into the bins (a
 * stride apart); the first nonzero normal one places a window not yet
 * placed, for the batches after. */
CN_SUM_COLD_FN void cn_dsum32_pair_misses(cn_dsum32_pair *w, const float *y, int k, unsigned lo, double *bins,
                                          size_t stride)
{
    for (int i = 0; i < k; i++) {
        unsigned ef = (cn_sum_bits32(y[i]) >> 23) & 0xffu;
        if (ef - lo <= (unsigned)CN_DSUM32_PAIR_FIELDS)
            continue;
        cn_dsum32_put(bins, stride, y[i]);
        if (w->lo == CN_DSUM32_NO_WIN && ef != 0 && ef != 0xffu)
            cn_dsum32_pair_at(w, (int)ef); /* its flag: the bin's, when it is taken from */
    }
}

/* A batch of a thread's terms y[0..k), k <= CN_DSUM32_PAIR_TERMS: those
 * the window takes added with no branch (a term it does not take adds
 * +0.0, which leaves s1 and s2, normal numbers, as they are); any other to
 * the bins; then the pair into d. */
CN_SUM_FN CN_SUM_HOT void cn_dsum32_pair_batch(cn_dsum32_pair *w, const float *y, int k, double *bins, size_t stride)
{
    const unsigned lo = w->lo;
    float s1 = w->s1, s2 = w->s2;
    int missed = 0;
    for (int i = 0; i < k; i++) {
        int in = ((cn_sum_bits32(y[i]) >> 23) & 0xffu) - lo <= (unsigned)CN_DSUM32_PAIR_FIELDS;
        float x = in ? y[i] : 0.0f;
        float t = s1 + x;
        float q = t - s1;
        s2 += x - q;
        s1 = t;
        missed |= !in;
    }
    w->d += (double)(s1 - w->b1);
    w->d += (double)(s2 - w->b2);
    w->s1 = w->b1;
    w->s2 = w->b2;
    if (missed)
        cn_dsum32_pair_misses(w, y, k, lo, bins, stride);
}

/* d into the bins, emptied: v = d - B, exact, a multiple of 2^(lo-150)
 * below 2^(lo-101) (so below 2^126), as two f32s, the zeros left out: the
 * nearest f32 to v, and v less it, which is at most half that f32's ulp,
 * 2^(lo-126), so 2^24 units of 2^(lo-150) at most: an f32 too. At most
 * two terms more for the bins. */
CN_SUM_FN void cn_dsum32_pair_spill(cn_dsum32_pair *w, double *bins, size_t stride)
{
    double v = w->d - w->bd;
    w->d = w->bd;
    float p1 = (float)v;
    float p2 = (float)(v - (double)p1);
    if (p1 != 0)
        cn_dsum32_put(bins, stride, p1);
    if (p2 != 0)
        cn_dsum32_put(bins, stride, p2);
}

/* m * 2^p units of 2^-1074 (m < 2^53) into a thread's digits (a stride
 * apart) in two pieces, where cn_sum_digits_add makes three: m << (p mod
 * 32) split at bit 32, the low piece (below 2^32) to digit p / 32 and the
 * rest (below 2^52) to the next. A digit so takes less than 2^52 + 2^32 a
 * term, and the device's f64 sum carries a thread's digits every
 * CN_DSUM64_WIN_TERMS (2^10) terms, which keeps each below 2^63. One
 * load and store fewer a term on data of every exponent, where most terms
 * go to the digits. */
CN_SUM_FN void cn_dsum64_digits_add2(int64_t *d, size_t stride, uint64_t m, int p, int neg)
{
    size_t i = (size_t)(p >> 5) * stride;
    int sh = p & 31;
    int64_t c0 = (int64_t)((m << sh) & 0xffffffffu), c1 = (int64_t)(m >> (32 - sh));
    d[i] += neg ? -c0 : c0;
    d[i + stride] += neg ? -c1 : c1;
}

/* One f64 term into a thread's digits (a stride apart), with its flags. */
CN_SUM_FN void cn_dsum64_put(int64_t *digits, size_t stride, double x, uint32_t *flags)
{
    uint64_t b = cn_sum_bits64(x);
    if (((b >> 52) & 0x7ff) == 0x7ff) {
        *flags |= (b & (((uint64_t)1 << 52) - 1)) ? CN_SUM_SAW_NAN : (b >> 63) ? CN_SUM_SAW_NINF : CN_SUM_SAW_PINF;
        return;
    }
    if (b != (uint64_t)1 << 63)
        *flags |= CN_SUM_SAW_NOT_NEGZERO;
    int p;
    uint64_t m = cn_sum_split64(b, &p);
    cn_dsum64_digits_add2(digits, stride, m, p, (int)(b >> 63));
}

/* A thread's digits (a stride apart) carried: each in [0, 2^32), the top
 * one signed. */
CN_SUM_FN void cn_dsum64_carry(int64_t *d, size_t stride)
{
    for (int i = 0; i < CN_SUM_DIGITS - 1; i++) {
        int64_t v = d[i * stride];
        int64_t lo = (int64_t)((uint64_t)v & 0xffffffffu);
        d[i * stride] = lo;
        d[(i + 1) * stride] += (v - lo) / ((int64_t)1 << 32);
    }
}

/* The f64 device sum's window (cairn_devsum.h): a thread's terms near the
 * first nonzero one it met, summed exactly in two doubles, as the host's
 * levels sum them (Dekker's FastTwoSum against accumulators that start at
 * 1.5 * 2^E and 1.5 * 2^(E-41)). E is set from that first term, 20
 * binades above it; a term x with 2^(E-41) <= |x| < 2^(E-12) is taken:
 *
 *   t = s1 + x;  q = t - s1;  r = x - q;  s1 = t;  s2 += r;
 *
 * s1 deposits multiples of its ulp 2^(E-52), at most 2^(E-12) each, and
 * stays in [2^E, 2^(E+1)) for 2^10 terms, so t - s1 is exact and r = x - q
 * is the exact error; r is a multiple of x's ulp, at least 2^(E-93), which
 * is s2's ulp, and at most 2^(E-53), so s2 += r is exact for as many.
 * After at most 2^10 terms, and at the end, s1 - B1 and s2 - B2 (exact) go
 * to the digits.
 *
 * A term costs one test of its exponent field and four additions
 * (cn_dsum64_win_take): zeros, subnormals, infinities and NaNs have fields
 * (0 and 0x7ff) no window holds, and before the first nonzero term the
 * window holds none (lo is past every field), so every such term falls to
 * cn_dsum64_win_miss, which notes the flags, places the window if nothing
 * has (cn_dsum64_win_place places it from a thread's first terms), and
 * tells the caller whether the term is still its own (for the digits).
 * The window takes only terms other than -0.0, so whatever places it notes
 * that the sum saw one. */
typedef struct {
    double s1, s2, b1, b2;
    unsigned lo; /* the exponent field of 2^(E-41), or CN_DSUM64_NO_WIN before the first nonzero term */
} cn_dsum64_win;

enum { CN_DSUM64_WIN_TERMS = 1 << 10, CN_DSUM64_WIN_ABOVE = 20, CN_DSUM64_WIN_FIELDS = 28 };
#define CN_DSUM64_NO_WIN (1u << 20)

CN_SUM_FN void cn_dsum64_win_init(cn_dsum64_win *w)
{
    w->s1 = w->s2 = w->b1 = w->b2 = 0;
    w->lo = CN_DSUM64_NO_WIN;
}

/* 2^k for -1022 <= k <= 1023. */
CN_SUM_FN double cn_sum_pow2(int k) { return cn_sum_from_bits64((uint64_t)(k + 1023) << 52); }

/* Adds the term with bits b when the window takes it: returns 1, else 0
 * and nothing is added or noted. */
CN_SUM_FN int cn_dsum64_win_take(cn_dsum64_win *w, uint64_t b)
{
    unsigned ef = (unsigned)(b >> 52) & 0x7ffu;
    if (ef - w->lo > (unsigned)CN_DSUM64_WIN_FIELDS)
        return 0;
    double x = cn_sum_from_bits64(b);
    double t = w->s1 + x;
    double q = t - w->s1;
    w->s2 += x - q;
    w->s1 = t;
    return 1;
}

/* Whether the window takes every one of y[0..u) (a thread's batch): then
 * cn_dsum64_win_adds adds them as u calls of cn_dsum64_win_take would, in
 * the same order, to the same bits, but with no branch between terms, so
 * the device overlaps their tests and adds. One by one, each term was a
 * test, a branch and four dependent adds that nothing overlapped: 21
 * instructions a term, 12.5 cycles between a warp's instructions at the
 * fold's 18.75% occupancy (Nsight Compute, evidence/2026-12-07-h100-fills.md). */
CN_SUM_FN int cn_dsum64_win_all(const cn_dsum64_win *w, const double *y, unsigned u)
{
    unsigned far = 0;
    for (unsigned i = 0; i < u; i++)
        far |= (((unsigned)(cn_sum_bits64(y[i]) >> 52) & 0x7ffu) - w->lo) > (unsigned)CN_DSUM64_WIN_FIELDS;
    return !far;
}

CN_SUM_FN void cn_dsum64_win_adds(cn_dsum64_win *w, const double *y, unsigned u)
{
    double s1 = w->s1, s2 = w->s2;
    for (unsigned i = 0; i < u; i++) {
        double t = s1 + y[i];
        double q = t - s1;
        s2 += y[i] - q;
        s1 = t;
    }
    w->s1 = s1;
    w->s2 = s2;
}

/* Whether a batch can go through cn_dsum64_win_mixed: the window is
 * placed (so the sum has already noted a term other than -0.0) and no
 * term is an infinity or a NaN (whose flags only term by term notes). */
CN_SUM_FN int cn_dsum64_win_finite(const cn_dsum64_win *w, const double *y, unsigned u)
{
    unsigned odd = w->lo == CN_DSUM64_NO_WIN;
    for (unsigned i = 0; i < u; i++)
        odd |= ((unsigned)(cn_sum_bits64(y[i]) >> 52) & 0x7ffu) == 0x7ffu;
    return !odd;
}

/* Each term of such a batch to the window when it takes it, else to the
 * digits (two pieces, cn_dsum64_digits_add2), as term by term, but with
 * no branch: a term the window does not take adds +0.0 to it, which
 * changes neither accumulator (neither is ever zero: s1 stays in
 * [2^E, 2^(E+1)) and s2 within 2^(E-43) of 1.5 * 2^(E-41)), and a term it
 * takes, or a zero, adds pieces of 0 to the digits. Data over the whole
 * range sends nearly every term to the digits, where one by one each was
 * a chain of tests and branches before its shared-memory adds. */
CN_SUM_FN void cn_dsum64_win_mixed(cn_dsum64_win *w, const double *y, unsigned u, int64_t *digits, size_t stride)
{
    double s1 = w->s1, s2 = w->s2;
    for (unsigned i = 0; i < u; i++) {
        uint64_t b = cn_sum_bits64(y[i]);
        int take = (((unsigned)(b >> 52) & 0x7ffu) - w->lo) <= (unsigned)CN_DSUM64_WIN_FIELDS;
        double x = take ? y[i] : 0.0;
        double t = s1 + x;
        double q = t - s1;
        s2 += x - q;
        s1 = t;
        int p;
        uint64_t m = cn_sum_split64(b, &p);
        cn_dsum64_digits_add2(digits, stride, take ? 0 : m, p, (int)(b >> 63));
    }
    w->s1 = s1;
    w->s2 = s2;
}

/* Places the window at E 20 binades above a term of exponent field ef
 * (normal), E kept inside what a double's accumulators can hold. */
CN_SUM_FN void cn_dsum64_win_at(cn_dsum64_win *w, int ef)
{
    int e = ef - 1023 + CN_DSUM64_WIN_ABOVE;
    e = e < -1022 + 41 ? -1022 + 41 : e > 1022 ? 1022 : e;
    w->lo = (unsigned)(e - 41 + 1023);
    w->b1 = w->s1 = 1.5 * cn_sum_pow2(e);
    w->b2 = w->s2 = 1.5 * cn_sum_pow2(e - 41);
}

/* Places the window from the largest of a thread's first terms (y[0..count),
 * before any is added), when one is a nonzero normal. From the first term
 * alone, one thread in a hundred on data uniform in [-1, 1) placed it where
 * three quarters of its terms fell above it, to the slow digits, and every
 * block waited on such a thread (evidence/2026-12-04-scan-tiles.md). */
CN_SUM_FN void cn_dsum64_win_place(cn_dsum64_win *w, const double *y, int count, uint32_t *flags)
{
    unsigned top = 0;
    for (int i = 0; i < count; i++) {
        unsigned ef = (unsigned)(cn_sum_bits64(y[i]) >> 52) & 0x7ffu;
        if (ef != 0x7ffu && ef > top)
            top = ef;
    }
    if (top == 0 || w->lo != CN_DSUM64_NO_WIN)
        return;
    *flags |= CN_SUM_SAW_NOT_NEGZERO; /* that term is summed: the window takes it or the digits do */
    cn_dsum64_win_at(w, (int)top);
}

/* A term the window did not take: notes its flags, and places the window
 * at the first nonzero normal term when nothing placed it (taking it).
 * Returns 1 when nothing is left to do (a zero, an infinity, a NaN, or
 * taken now), 0 when the term is the caller's, for the digits. */
CN_SUM_FN int cn_dsum64_win_miss(cn_dsum64_win *w, uint64_t b, uint32_t *flags)
{
    int ef = (int)((b >> 52) & 0x7ff);
    if (ef == 0x7ff) {
        *flags |= (b & (((uint64_t)1 << 52) - 1)) ? CN_SUM_SAW_NAN : (b >> 63) ? CN_SUM_SAW_NINF : CN_SUM_SAW_PINF;
        return 1;
    }
    if (b != (uint64_t)1 << 63)
        *flags |= CN_SUM_SAW_NOT_NEGZERO;
    if ((b << 1) == 0)
        return 1; /* +-0.0 adds nothing */
    if (ef == 0 || w->lo != CN_DSUM64_NO_WIN)
        return 0; /* a subnormal, or outside the window: the digits' */
    cn_dsum64_win_at(w, ef);
    return cn_dsum64_win_take(w, b);
}

/* The window into the digits (a stride apart), emptied; E stays. */
CN_SUM_FN void cn_dsum64_win_flush(cn_dsum64_win *w, int64_t *digits, size_t stride)
{
    double v[2] = {w->s1 - w->b1, w->s2 - w->b2};
    for (int k = 0; k < 2; k++) {
        uint64_t b = cn_sum_bits64(v[k]);
        int p;
        uint64_t m = cn_sum_split64(b, &p);
        if (m)
            cn_sum_digits_add(digits, stride, m, p, (int)(b >> 63));
    }
    w->s1 = w->b1;
    w->s2 = w->b2;
}

#endif /* CAIRN_SUM_H */
