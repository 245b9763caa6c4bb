/*
 * test_storage_floats.c: runtime/cairn_float.h against independent oracles.
 *
 * The oracles:
 *   - MPFR, with each format's precision and exponent range (mpfr_set_emin /
 *     mpfr_set_emax, then mpfr_subnormalize for IEEE subnormals), for every
 *     rounding into a storage float: mpfr_set_flt / mpfr_set_d round an f32
 *     or f64 once, mpfr_div rounds the exact quotient of quantize once. A
 *     thin layer adds what MPFR does not model: E4M3's range ending at 448
 *     below its binade's top, saturation, and the canonical NaNs;
 *   - GMP rationals for quantize into the integers, and for the stochastic
 *     rounding's dropped fraction (exact comparison with the noise);
 *   - the formats' definitions: each bit pattern decoded by the formula
 *     (-1)^s * 2^(e - bias) * 1.m (or 2^(1 - bias) * 0.m), with ldexp, for
 *     widening; and gcc's _Float16, a separate implementation, for f16.
 * The formats' parameters below are written from their definitions, not
 * taken from the header's descriptors.
 *
 * What is checked, per format (each line one property, one pass or fail):
 *   widening of every bit pattern; narrowing at every representable value,
 *   every midpoint between neighbours and one f32 ulp either side, the
 *   overflow thresholds, signed zeros, infinities and NaNs, a seeded random
 *   sample of f32 inputs (some million) and of f64 inputs; quantize at every
 *   tie with power-of-two and other scales, both clamps, random inputs and
 *   scales, the scale and NaN guards; quantize_stochastic against the exact
 *   fraction, its mean over uniform noise, and its determinism.
 *
 * `--exhaustive` instead runs every one of the 2^32 f32 inputs through each
 * format's narrowing against MPFR, on two threads, and prints the time.
 *
 * Prints `N passed, N failed, 0 skipped` (N counting properties, not
 * inputs); each failure prints the input bits, what came back and what was
 * expected. Exits 1 on a failure.
 */
#include "child_guard.h"
#include "cairn_float.h"

#include <fcntl.h>
#include <gmp.h>
#include <mpfr.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wclobbered"
#endif

/* -------------------------------------------------------------- tally */

/* A property is a label ("f16 narrow: midpoints"); it passes when every input
 * checked under it passed. */
enum { MAX_PROPS = 512 };
typedef struct {
    long failed, checks;
    int nprops;
    char names[MAX_PROPS][96];
    bool bad[MAX_PROPS];
} Tally;

static Tally tally;

static int prop_index(const char *what)
{
    for (int i = tally.nprops - 1; i >= 0; i--)
        if (!strcmp(tally.names[i], what))
            return i;
    if (tally.nprops == MAX_PROPS)
        return MAX_PROPS - 1;
    snprintf(tally.names[tally.nprops], sizeof tally.names[0], "%s", what);
    return tally.nprops++;
}

/* One input of a property: `in` its bits, got and want the results' bits. */
static void check(bool ok, const char *what, const char *fmt_name, uint64_t in, uint64_t got,
                  uint64_t want)
{
    char name[96];
    snprintf(name, sizeof name, "%s %s", fmt_name, what);
    tally.checks++;
    int p = prop_index(name);
    if (ok)
        return;
    tally.bad[p] = true;
    if (tally.failed++ < 40)
        printf("FAIL %s: input 0x%llx got 0x%llx expected 0x%llx\n", name,
               (unsigned long long)in, (unsigned long long)got, (unsigned long long)want);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd64(uint64_t *s)   /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint64_t rnd(void) { return rnd64(&rng_state); }

static float f32_of(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static uint32_t bits_of(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static uint64_t bits_of_d(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }

/* ------------------------------------------------------------ formats */

/* A format from its definition. mp_emin / mp_emax are MPFR's exponent
 * range (significands in [1/2, 1)): the smallest subnormal is 2^(mp_emin-1),
 * and mp_emax admits the format's top binade. */
typedef struct {
    const char *name;
    int width, ebits, mbits, bias;
    bool has_inf;
    uint32_t nan;          /* canonical NaN, positive */
    double max;            /* largest finite value */
    int mp_emin, mp_emax;
    cn_float_fmt impl;     /* the header's descriptor, for calling its core */
} Format;

static Format formats[4];

static void formats_init(void)
{
    Format f16 = {"f16", 16, 5, 10, 15, true, 0x7e00, 65504.0, -23, 16, cn_fmt_f16()};
    Format bf16 = {"bf16", 16, 8, 7, 127, true, 0x7fc0, 0x1.fep127, -132, 128, cn_fmt_bf16()};
    Format e4m3 = {"f8e4m3", 8, 4, 3, 7, false, 0x7f, 448.0, -8, 9, cn_fmt_f8e4m3()};
    Format e5m2 = {"f8e5m2", 8, 5, 2, 15, true, 0x7e, 57344.0, -15, 16, cn_fmt_f8e5m2()};
    formats[0] = f16, formats[1] = bf16, formats[2] = e4m3, formats[3] = e5m2;
}

static uint32_t sign_bit(const Format *F) { return 1u << (F->width - 1); }

/* The definition: the value of a bit pattern; *nan for NaN patterns. */
static double decode_formula(const Format *F, uint32_t b, bool *nan)
{
    uint32_t emask = (1u << F->ebits) - 1, mmask = (1u << F->mbits) - 1;
    uint32_t s = (b >> (F->width - 1)) & 1, e = (b >> F->mbits) & emask, m = b & mmask;
    double v;
    *nan = false;
    if (F->has_inf && e == emask) {
        *nan = m != 0;
        v = m ? NAN : INFINITY;
    } else if (!F->has_inf && e == emask && m == mmask) {
        *nan = true;
        v = NAN;
    } else if (e == 0) {
        v = ldexp((double)m, 1 - F->bias - F->mbits);
    } else {
        v = ldexp(1.0 + (double)m / (double)(1u << F->mbits), (int)e - F->bias);
    }
    return s ? -v : v;
}

/* Every pattern's value, by the formula, for O(1) comparisons. */
static double *value_table[4];

static void tables_init(void)
{
    for (int i = 0; i < 4; i++) {
        Format *F = &formats[i];
        value_table[i] = malloc(sizeof(double) << F->width);
        for (uint32_t b = 0; b < (1u << F->width); b++) {
            bool nan;
            value_table[i][b] = decode_formula(F, b, &nan);
        }
    }
}

static int format_index(const Format *F) { return (int)(F - formats); }

/* The pattern holding v (finite, |v| <= max), by binary search over the
 * positive patterns, whose values increase with their bits. */
static uint32_t encode_value(const Format *F, double v)
{
    const double *t = value_table[format_index(F)];
    double a = fabs(v);
    uint32_t lo = 0, hi = sign_bit(F) - 1;
    while (lo < hi) {   /* first pattern with value >= a, ignoring NaNs (at the top) */
        uint32_t mid = lo + (hi - lo) / 2;
        double m = t[mid];
        if (m != m || m >= a)
            hi = mid;
        else
            lo = mid + 1;
    }
    return (signbit(v) ? sign_bit(F) : 0) | lo;
}

static uint32_t max_bits(const Format *F) { return encode_value(F, F->max); }
static uint32_t inf_bits(const Format *F) { return max_bits(F) + 1; }   /* has_inf only */

/* ------------------------------------------------------------- oracle */

typedef enum { POLICY_CONVERT, POLICY_SATURATE } Policy;

/* An expected result: bits, or a trap (E4M3 past its range). */
typedef struct {
    uint32_t bits;
    bool trap;
} Expect;

static void mp_range(const Format *F) { mpfr_set_emin(F->mp_emin), mpfr_set_emax(F->mp_emax); }
static void mp_range_default(void) { mpfr_set_emin(mpfr_get_emin_min()), mpfr_set_emax(mpfr_get_emax_max()); }

/* The thin layer over an MPFR result y (already rounded to the format's
 * precision and range, with subnormals): infinity or a value past `max` is
 * past the range (E4M3's 480 is representable to MPFR). */
static Expect oracle_finish(const Format *F, mpfr_t y, Policy policy)
{
    Expect x = {0, false};
    uint32_t sign = mpfr_signbit(y) ? sign_bit(F) : 0;
    bool past = mpfr_inf_p(y) || fabs(mpfr_get_d(y, MPFR_RNDN)) > F->max;
    if (!past)
        x.bits = encode_value(F, mpfr_get_d(y, MPFR_RNDN));
    else if (policy == POLICY_SATURATE)
        x.bits = sign | max_bits(F);
    else if (F->has_inf)
        x.bits = sign | inf_bits(F);
    else
        x.trap = true;
    return x;
}

/* T(x) for an f32 x, by MPFR. The caller has set the exponent range. */
static Expect oracle_f32(const Format *F, mpfr_t y, uint32_t u)
{
    float x = f32_of(u);
    if (x != x) {
        Expect e = {(u >> 31 ? sign_bit(F) : 0) | F->nan, false};
        return e;
    }
    int t = mpfr_set_flt(y, x, MPFR_RNDN);
    mpfr_subnormalize(y, t, MPFR_RNDN);
    return oracle_finish(F, y, POLICY_CONVERT);
}

static Expect oracle_f64(const Format *F, mpfr_t y, double x)
{
    if (x != x) {
        Expect e = {(signbit(x) ? sign_bit(F) : 0) | F->nan, false};
        return e;
    }
    int t = mpfr_set_d(y, x, MPFR_RNDN);
    mpfr_subnormalize(y, t, MPFR_RNDN);
    return oracle_finish(F, y, POLICY_CONVERT);
}

/* The implementation's T(x), through the core (so a trap is a status). */
static Expect impl_narrow(const Format *F, uint32_t u)
{
    cn_float_rounded r = cn_float_round(F->impl, cn_float_num_f32(u), F->impl.past, false, 0);
    Expect e = {cn_float_encode(F->impl, r), r.status != CN_ROUNDED_OK};
    if (e.trap)
        e.bits = 0;
    return e;
}

static Expect impl_narrow_f64(const Format *F, double x)
{
    cn_float_rounded r = cn_float_round(F->impl, cn_float_num_f64(bits_of_d(x)), F->impl.past, false, 0);
    Expect e = {cn_float_encode(F->impl, r), r.status != CN_ROUNDED_OK};
    if (e.trap)
        e.bits = 0;
    return e;
}

static bool same(Expect a, Expect b) { return a.trap == b.trap && (a.trap || a.bits == b.bits); }
static uint64_t show(Expect e) { return e.trap ? 0xdead0000ull : e.bits; }

/* One f32 input against MPFR: the property's check. */
static void check_narrow(const Format *F, mpfr_t y, uint32_t u, const char *what)
{
    Expect want = oracle_f32(F, y, u), got = impl_narrow(F, u);
    check(same(got, want), what, F->name, u, show(got), show(want));
}

/* ------------------------------------------------------------ widening */

static float impl_widen(const Format *F, uint32_t b)
{
    return f32_of(cn_float_widen_bits(F->impl, b));
}

/* Every pattern: the formula's value and sign; a NaN widens to a quiet NaN
 * with its sign and fraction (the fraction at the top of f32's). */
static void test_widen(const Format *F)
{
    for (uint32_t b = 0; b < (1u << F->width); b++) {
        bool nan;
        double want = decode_formula(F, b, &nan);
        float got = impl_widen(F, b);
        uint32_t gb = bits_of(got);
        bool ok;
        if (nan) {
            uint32_t frac = b & ((1u << F->mbits) - 1);
            uint32_t wb = ((b >> (F->width - 1)) << 31) | 0x7fc00000u | (frac << (23 - F->mbits));
            ok = gb == wb;
        } else {
            ok = (double)got == want && !!signbit(got) == !!signbit(want);
        }
        check(ok, "widen: every pattern vs the formula", F->name, b, gb, bits_of((float)want));
    }
}

/* The public wrappers and the second implementations at hand: gcc's
 * _Float16 for f16, and the bf16 definition (the upper half of an f32). */
static void test_widen_wrappers(void)
{
    for (uint32_t b = 0; b < 65536; b++) {
        check(bits_of(cn_widen_f16((cn_f16)b)) == cn_float_widen_bits(cn_fmt_f16(), b),
              "widen: cn_widen_f16 is the core", "f16", b, 0, 0);
        float w = cn_widen_bf16((cn_bf16)b);
        bool nan = ((b >> 7) & 0xff) == 0xff && (b & 0x7f);
        check(nan ? bits_of(w) == ((b << 16) | 0x400000u) : bits_of(w) == b << 16,
              "widen: the upper half of an f32", "bf16", b, bits_of(w), b << 16);
#ifdef __FLT16_MAX__
        _Float16 h;
        uint16_t hb = (uint16_t)b;
        memcpy(&h, &hb, 2);
        float g = (float)h;
        check(g != g ? cn_widen_f16(hb) != cn_widen_f16(hb) : bits_of(g) == bits_of(cn_widen_f16(hb)),
              "widen: agrees with gcc's _Float16", "f16", b, bits_of(cn_widen_f16(hb)), bits_of(g));
#endif
    }
    for (uint32_t b = 0; b < 256; b++) {
        check(bits_of(cn_widen_f8e4m3((cn_f8e4m3)b)) == cn_float_widen_bits(cn_fmt_f8e4m3(), b) &&
                  bits_of(cn_widen_f8e5m2((cn_f8e5m2)b)) == cn_float_widen_bits(cn_fmt_f8e5m2(), b),
              "widen: cn_widen_T is the core", "f8", b, 0, 0);
    }
}

/* ----------------------------------------------------------- narrowing */

/* Every representable value narrows to itself (NaNs to the canonical NaN),
 * through the public wrapper too. */
static void test_representable(const Format *F, mpfr_t y)
{
    for (uint32_t b = 0; b < (1u << F->width); b++) {
        uint32_t u = bits_of(impl_widen(F, b));
        bool nan;
        (void)decode_formula(F, b, &nan);
        uint32_t want = nan ? (b & sign_bit(F)) | F->nan : b;
        Expect got = impl_narrow(F, u);
        check(!got.trap && got.bits == want, "narrow: every value to itself", F->name, u,
              show(got), want);
        check_narrow(F, y, u, "narrow: every value vs MPFR");
    }
}

/* Between every two neighbours a < c (and between the largest finite value
 * and the next step past it): the midpoint goes to the even one, and one
 * f32 ulp below or above it to a or c. Both signs. Expectations from the
 * construction and from MPFR. */
static void test_midpoints(const Format *F, mpfr_t y)
{
    uint32_t top = max_bits(F);
    for (uint32_t b = 0; b <= top; b++) {
        double a = value_table[format_index(F)][b];
        double c = b < top ? value_table[format_index(F)][b + 1]
                           : F->max + ldexp(1.0, (int)floor(log2(F->max)) - F->mbits);
        float m = (float)((a + c) / 2);
        if ((double)m != (a + c) / 2) {
            check(false, "narrow: midpoint is an f32", F->name, b, 0, 0);
            continue;
        }
        float below = nextafterf(m, 0.0f), above = nextafterf(m, INFINITY);
        for (int s = 0; s < 2; s++) {
            uint32_t sg = s ? sign_bit(F) : 0, fs = s ? 0x80000000u : 0;
            Expect past = {sg | (F->has_inf ? inf_bits(F) : 0), !F->has_inf};
            Expect ea = {sg | b, false}, ec = {sg | (b + 1), false};
            if (b == top)
                ec = past;
            Expect tie = (b & 1) ? ec : ea;
            uint32_t um = bits_of(m) | fs, ub = bits_of(below) | fs, ua = bits_of(above) | fs;
            Expect g;
            g = impl_narrow(F, um);
            check(same(g, tie), "narrow: midpoints tie to even", F->name, um, show(g), show(tie));
            g = impl_narrow(F, ub);
            check(same(g, ea), "narrow: one ulp below a midpoint", F->name, ub, show(g), show(ea));
            g = impl_narrow(F, ua);
            check(same(g, ec), "narrow: one ulp above a midpoint", F->name, ua, show(g), show(ec));
            check_narrow(F, y, um, "narrow: midpoints vs MPFR");
            check_narrow(F, y, ub, "narrow: midpoints vs MPFR");
            check_narrow(F, y, ua, "narrow: midpoints vs MPFR");
        }
    }
}

/* The overflow thresholds, zeros, infinities, NaNs and f32 subnormals, with
 * expectations written out. */
static void test_specials(const Format *F, mpfr_t y)
{
    uint32_t S = sign_bit(F), top = max_bits(F);
    double step = ldexp(1.0, (int)floor(log2(F->max)) - F->mbits);
    float thr = (float)(F->max + step / 2);   /* the first value past the range (or the tie) */
    bool tie_up = top & 1;
    Expect past = {F->has_inf ? inf_bits(F) : 0, !F->has_inf}, mx = {top, false};
    struct { float x; Expect want; } cases[] = {
        {(float)F->max, mx},
        {nextafterf(thr, 0), mx},
        {thr, tie_up ? past : mx},
        {nextafterf(thr, INFINITY), past},
        {FLT_MAX, past},
        {INFINITY, past},
        {0.0f, {0, false}},
        {f32_of(1), {0, false}},               /* the smallest f32 subnormal */
        {f32_of(0x7fffff), {0, false}},        /* the largest f32 subnormal */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int s = 0; s < 2; s++) {
            uint32_t u = bits_of(cases[i].x) | (s ? 0x80000000u : 0);
            Expect want = cases[i].want;
            if (s && !want.trap)
                want.bits |= S;
            if (strcmp(F->name, "bf16") == 0 && i >= 7)   /* bf16 reaches f32's subnormals */
                want = oracle_f32(F, y, u);
            Expect got = impl_narrow(F, u);
            check(same(got, want), "narrow: overflow thresholds, zeros, infinities", F->name, u,
                  show(got), show(want));
            check_narrow(F, y, u, "narrow: specials vs MPFR");
        }
    /* Every NaN, whatever its payload or quietness, gives the canonical
     * NaN with its sign. */
    uint32_t nans[] = {0x7fc00000u, 0x7f800001u, 0x7fbfffffu, 0x7fffffffu, 0x7fa00000u, 0x7f802000u};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++)
        for (int s = 0; s < 2; s++) {
            uint32_t u = nans[i] | (s ? 0x80000000u : 0);
            Expect got = impl_narrow(F, u), want = {(s ? S : 0) | F->nan, false};
            check(same(got, want), "narrow: NaN to the canonical NaN, sign kept", F->name, u,
                  show(got), show(want));
        }
}

/* A random f32: uniform bits, or (three times in four) a value around the
 * format's range. */
static uint32_t random_input(const Format *F)
{
    uint64_t r = rnd();
    uint32_t u = (uint32_t)r;
    if ((r >> 32) % 4 == 0)
        return u;
    int lo = 1 - F->bias - F->mbits - 3, hi = (int)floor(log2(F->max)) + 2;
    int e = lo + (int)((r >> 40) % (uint64_t)(hi - lo + 1));
    if (e < -149)
        e = -149;
    float x = ldexpf(1.0f + (float)(u & 0x7fffff) / 8388608.0f, e);
    if ((r >> 34) & 1)
        x = (float)(r >> 36 & 0x3f) * ldexpf(1.0f, e);   /* few bits: ties and exact values */
    return bits_of(x) | (u & 0x80000000u);
}

static void test_random(const Format *F, mpfr_t y, long n)
{
    for (long i = 0; i < n; i++)
        check_narrow(F, y, random_input(F), "narrow: random f32 vs MPFR");
}

/* f64 inputs: random ones around the range, and each f32 midpoint moved by
 * one f64 ulp (a double rounding through f32 would get these wrong). */
static void test_f64(const Format *F, mpfr_t y, long n)
{
    for (long i = 0; i < n; i++) {
        uint64_t r = rnd();
        double x = ldexp(1.0 + (double)(r & 0xfffffffffffffull) / 0x1p52,
                         (int)((r >> 52) % 64) - 40 + (F->bias > 100 ? (int)(rnd() % 260) - 130 : 0));
        if (r >> 63)
            x = -x;
        if ((rnd() & 7) == 0)
            memcpy(&x, &r, 8);
        Expect got = impl_narrow_f64(F, x), want = oracle_f64(F, y, x);
        check(same(got, want), "narrow f64: random vs MPFR", F->name, bits_of_d(x), show(got), show(want));
    }
    uint32_t top = max_bits(F);
    for (uint32_t b = 0; b < top; b++) {
        double m = (value_table[format_index(F)][b] + value_table[format_index(F)][b + 1]) / 2;
        double xs[2] = {nextafter(m, 0), nextafter(m, INFINITY)};
        for (int k = 0; k < 2; k++) {
            Expect got = impl_narrow_f64(F, xs[k]), want = oracle_f64(F, y, xs[k]);
            Expect side = {k ? b + 1 : b, false};
            check(same(got, want) && same(got, side), "narrow f64: one f64 ulp from a midpoint",
                  F->name, bits_of_d(xs[k]), show(got), show(want));
        }
    }
}

/* The wrappers, including f16 against gcc's _Float16 on random inputs. */
static void test_narrow_wrappers(void)
{
    for (int i = 0; i < 1000000; i++) {
        uint32_t u = random_input(&formats[0]);
        cn_f16 h = cn_narrow_f16(f32_of(u), "t", 1, 1);
        check(h == impl_narrow(&formats[0], u).bits, "narrow: cn_narrow_f16 is the core", "f16", u, h, 0);
        cn_bf16 g = cn_narrow_bf16(f32_of(u), "t", 1, 1);
        check(g == impl_narrow(&formats[1], u).bits, "narrow: cn_narrow_bf16 is the core", "bf16", u, g, 0);
        cn_f8e5m2 e = cn_narrow_f8e5m2(f32_of(u), "t", 1, 1);
        check(e == impl_narrow(&formats[3], u).bits, "narrow: cn_narrow_f8e5m2 is the core", "f8e5m2", u, e, 0);
        Expect e4 = impl_narrow(&formats[2], u);
        if (!e4.trap)
            check(cn_narrow_f8e4m3(f32_of(u), "t", 1, 1) == e4.bits, "narrow: cn_narrow_f8e4m3 is the core",
                  "f8e4m3", u, 0, e4.bits);
#ifdef __FLT16_MAX__
        float x = f32_of(u);
        if (x == x) {
            _Float16 r = (_Float16)x;
            uint16_t rb;
            memcpy(&rb, &r, 2);
            check(rb == h, "narrow: agrees with gcc's _Float16", "f16", u, h, rb);
        }
#endif
    }
    /* The spec's examples. */
    check(cn_bits_f16(cn_narrow_f16(1.0f / 3.0f, "t", 1, 1)) == 0x3555, "to_bits(f16(1.0 / 3.0)) == 0x3555",
          "spec", 0, 0, 0);
    float mean = (cn_widen_bf16(cn_narrow_bf16(1.0f, "t", 1, 1)) + cn_widen_bf16(cn_narrow_bf16(0.5f, "t", 1, 1))) / 2;
    check(cn_widen_bf16(cn_narrow_bf16(mean, "t", 1, 1)) == 0.75f, "mean(bf16(1.0), bf16(0.5)) == 0.75", "spec", 0, 0, 0);
    for (uint32_t u = 0; u < 65536; u++)
        check(cn_bits_f16(cn_from_bits_f16((uint16_t)u)) == u && cn_bits_bf16(cn_from_bits_bf16((uint16_t)u)) == u &&
                  (u > 255 || (cn_bits_f8e4m3(cn_from_bits_f8e4m3((uint8_t)u)) == u &&
                               cn_bits_f8e5m2(cn_from_bits_f8e5m2((uint8_t)u)) == u)),
              "to_bits(from_bits(u)) == u", "all", u, 0, 0);
}

/* ------------------------------------------------------------ quantize */

/* A quantize target: a storage float (F) or an integer range. */
typedef struct {
    const char *name;
    const Format *F;      /* NULL for an integer */
    long lo, hi;          /* an integer's range */
} Target;

static Target targets[8];

static void targets_init(void)
{
    Target t[8] = {{"f16", &formats[0], 0, 0}, {"bf16", &formats[1], 0, 0},
                   {"f8e4m3", &formats[2], 0, 0}, {"f8e5m2", &formats[3], 0, 0},
                   {"i8", NULL, -128, 127}, {"u8", NULL, 0, 255},
                   {"i16", NULL, -32768, 32767}, {"u16", NULL, 0, 65535}};
    memcpy(targets, t, sizeof t);
}

/* The implementation: bits of the float, or the integer as a uint64. */
static uint64_t impl_quantize(const Target *T, float x, float s, bool stochastic, uint32_t noise)
{
    const char *n = T->name;
#define Q(TY) (stochastic ? cn_quantize_stochastic_##TY(x, s, noise, "t", 1, 1) : cn_quantize_##TY(x, s, "t", 1, 1))
    if (!strcmp(n, "f16")) return Q(f16);
    if (!strcmp(n, "bf16")) return Q(bf16);
    if (!strcmp(n, "f8e4m3")) return Q(f8e4m3);
    if (!strcmp(n, "f8e5m2")) return Q(f8e5m2);
    if (!strcmp(n, "i8")) return (uint64_t)(int64_t)Q(i8);
    if (!strcmp(n, "u8")) return Q(u8);
    if (!strcmp(n, "i16")) return (uint64_t)(int64_t)Q(i16);
    return Q(u16);
#undef Q
}

static void mpq_set_f32(mpq_t q, float x) { mpq_set_d(q, (double)x); }

/* The integer oracle: round the rational v to nearest even (or by the
 * noise), clamp. */
static uint64_t oracle_int(const Target *T, const mpq_t v, bool stochastic, uint32_t noise)
{
    mpz_t n, r, t;
    mpz_inits(n, r, t, NULL);
    mpz_abs(t, mpq_numref(v));
    mpz_fdiv_qr(n, r, t, mpq_denref(v));   /* |v| = n + r / den */
    bool up;
    if (stochastic) {
        mpz_mul_2exp(t, r, 32);               /* r * 2^32 > noise * den */
        mpz_t nd;
        mpz_init(nd);
        mpz_mul_ui(nd, mpq_denref(v), noise);
        up = mpz_cmp(t, nd) > 0;
        mpz_clear(nd);
    } else {
        mpz_mul_2exp(t, r, 1);
        int c = mpz_cmp(t, mpq_denref(v));
        up = c > 0 || (c == 0 && mpz_odd_p(n));
    }
    if (up)
        mpz_add_ui(n, n, 1);
    if (mpq_sgn(v) < 0)
        mpz_neg(n, n);
    long res;
    if (mpz_cmp_si(n, T->hi) > 0)
        res = T->hi;
    else if (mpz_cmp_si(n, T->lo) < 0)
        res = T->lo;
    else
        res = mpz_get_si(n);
    mpz_clears(n, r, t, NULL);
    return (uint64_t)(int64_t)res;
}

/* X / S rounded once into y in F's precision and range, subnormals
 * emulated; leaves F's exponent range set. X and S (f32 values, which may
 * lie outside F's range, where MPFR takes no input) are divided in the
 * full range, then mpfr_check_range and mpfr_subnormalize bring the
 * correctly rounded quotient into F's, using its ternary value so that
 * nothing rounds twice. Returns the ternary value. */
static int mp_div_in_range(const Format *F, mpfr_t y, mpfr_t X, mpfr_t S, mpfr_rnd_t rnd)
{
    mp_range_default();
    int t = mpfr_div(y, X, S, rnd);
    mp_range(F);
    t = mpfr_check_range(y, t, rnd);
    return mpfr_subnormalize(y, t, rnd);
}

/* The float oracle, nearest even: mpfr_div rounds the exact quotient once
 * to the format's precision and range; saturated past the range. */
static uint64_t oracle_float_q(const Format *F, mpfr_t y, float x, float s)
{
    if (x != x)
        return (signbit(x) ? sign_bit(F) : 0) | F->nan;
    mpfr_t X, S;
    mpfr_inits2(24, X, S, (mpfr_ptr)0);
    mpfr_set_flt(X, x, MPFR_RNDN), mpfr_set_flt(S, s, MPFR_RNDN);   /* exact */
    int t = mp_div_in_range(F, y, X, S, MPFR_RNDN);
    (void)t;
    Expect e = oracle_finish(F, y, POLICY_SATURATE);
    mp_range_default();
    mpfr_clears(X, S, (mpfr_ptr)0);
    return e.bits;
}

/* The float oracle, stochastic: the neighbours lo (toward zero) and hi
 * (away) by MPFR; up when (|v| - lo) * 2^32 > noise * (hi - lo), exactly. */
static uint64_t oracle_float_stochastic(const Format *F, mpfr_t y, float x, float s, uint32_t noise)
{
    if (x != x)
        return (signbit(x) ? sign_bit(F) : 0) | F->nan;
    if (isinf(x))
        return (signbit(x) ? sign_bit(F) : 0) | max_bits(F);
    mpfr_t X, S;
    mpfr_inits2(24, X, S, (mpfr_ptr)0);
    mpfr_set_flt(X, fabsf(x), MPFR_RNDN), mpfr_set_flt(S, s, MPFR_RNDN);
    int t = mp_div_in_range(F, y, X, S, MPFR_RNDZ);
    double lo = mpfr_inf_p(y) ? INFINITY : mpfr_get_d(y, MPFR_RNDN);
    double res = lo;
    if (t != 0 && !isinf(lo)) {
        mp_div_in_range(F, y, X, S, MPFR_RNDA);
        double hi = mpfr_inf_p(y) ? lo + ldexp(1.0, (int)floor(log2(F->max)) - F->mbits)
                                  : mpfr_get_d(y, MPFR_RNDN);
        mpq_t v, a, b, w;
        mpq_inits(v, a, b, w, NULL);
        mpq_set_f32(a, fabsf(x)), mpq_set_f32(b, s);
        mpq_div(v, a, b);                       /* |v| */
        mpq_set_d(a, lo), mpq_sub(v, v, a);     /* |v| - lo */
        mpq_set_d(b, hi), mpq_sub(b, b, a);     /* hi - lo */
        mpz_mul_2exp(mpq_numref(v), mpq_numref(v), 32), mpq_canonicalize(v);
        mpq_set_ui(w, noise, 1), mpq_mul(w, w, b);
        if (mpq_cmp(v, w) > 0)
            res = hi;
        mpq_clears(v, a, b, w, NULL);
    }
    mp_range_default();
    mpfr_clears(X, S, (mpfr_ptr)0);
    uint32_t sign = signbit(x) ? sign_bit(F) : 0;
    if (isinf(res) || res > F->max)
        return sign | max_bits(F);
    return sign | encode_value(F, res);
}

/* floor(f * 2^32) for the dropped fraction f of |x| / s in T (0 when x is
 * not finite): a noise at it, just below and just above it is where the
 * stochastic rounding turns, and where all of f's bits matter. */
static uint32_t oracle_frac32(const Target *T, mpfr_t y, float x, float s)
{
    if (!isfinite(x))
        return 0;
    mpq_t v, a, b;
    mpq_inits(v, a, b, NULL);
    mpq_set_f32(a, fabsf(x)), mpq_set_f32(b, s), mpq_div(v, a, b);   /* |v| */
    if (T->F) {
        mpfr_t X, S;
        mpfr_inits2(24, X, S, (mpfr_ptr)0);
        mpfr_set_flt(X, fabsf(x), MPFR_RNDN), mpfr_set_flt(S, s, MPFR_RNDN);
        int t = mp_div_in_range(T->F, y, X, S, MPFR_RNDZ);
        double lo = mpfr_get_d(y, MPFR_RNDN), hi = lo;
        if (t != 0 && !mpfr_inf_p(y)) {
            mp_div_in_range(T->F, y, X, S, MPFR_RNDA);
            hi = mpfr_inf_p(y) ? lo + ldexp(1.0, (int)floor(log2(T->F->max)) - T->F->mbits)
                               : mpfr_get_d(y, MPFR_RNDN);
        }
        mp_range_default();
        mpfr_clears(X, S, (mpfr_ptr)0);
        if (hi == lo || isinf(lo)) {
            mpq_clears(v, a, b, NULL);
            return 0;
        }
        mpq_set_d(a, lo), mpq_sub(v, v, a);
        mpq_set_d(b, hi - lo), mpq_div(v, v, b);   /* f (hi - lo is a power of two: exact) */
    } else {
        mpz_fdiv_r(mpq_numref(a), mpq_numref(v), mpq_denref(v));
        mpz_set(mpq_denref(a), mpq_denref(v));
        mpq_canonicalize(a);
        mpq_set(v, a);                             /* f = the fractional part */
    }
    mpz_t n;
    mpz_init(n);
    mpz_mul_2exp(n, mpq_numref(v), 32);
    mpz_fdiv_q(n, n, mpq_denref(v));
    uint32_t r = (uint32_t)mpz_get_ui(n);
    mpz_clear(n);
    mpq_clears(v, a, b, NULL);
    return r;
}

static uint64_t oracle_quantize(const Target *T, mpfr_t y, float x, float s, bool stochastic,
                                uint32_t noise)
{
    if (T->F)
        return stochastic ? oracle_float_stochastic(T->F, y, x, s, noise) : oracle_float_q(T->F, y, x, s);
    if (isinf(x))
        return (uint64_t)(int64_t)(x > 0 ? T->hi : T->lo);
    mpq_t v, a, b;
    mpq_inits(v, a, b, NULL);
    mpq_set_f32(a, x), mpq_set_f32(b, s), mpq_div(v, a, b);
    uint64_t r = oracle_int(T, v, stochastic, noise);
    mpq_clears(v, a, b, NULL);
    return r;
}

static void check_quantize(const Target *T, mpfr_t y, float x, float s, const char *what)
{
    uint64_t got = impl_quantize(T, x, s, false, 0), want = oracle_quantize(T, y, x, s, false, 0);
    check(got == want, what, T->name, ((uint64_t)bits_of(x) << 32) | bits_of(s), got, want);
}

/* The positive values of a target in increasing order: its patterns up to
 * the largest finite, or its integers. */
static long target_count(const Target *T) { return T->F ? (long)max_bits(T->F) + 1 : T->hi + 1; }
static double target_value(const Target *T, long i)
{
    return T->F ? value_table[format_index(T->F)][i] : (double)i;
}
static uint64_t target_bits(const Target *T, long i, bool neg)
{
    if (T->F)
        return (neg ? sign_bit(T->F) : 0) | (uint32_t)i;
    return (uint64_t)(int64_t)(neg ? -i : i);
}

/* Every tie: the midpoint m between neighbours, as x / s with s a power of
 * two (1, 2^-3, 2^5) and not (3, 5, 0.75, 1.25 * 2^-6): x = m * s is an f32
 * exactly for each. The tie goes to the even neighbour (at the top of a
 * float format's range, to the largest finite: saturation); x one ulp
 * either side goes by MPFR/GMP. Negative ties too, where the target has
 * negative values. */
static void test_quantize_ties(const Target *T, mpfr_t y)
{
    const float scales[] = {1.0f, 0.125f, 32.0f, 3.0f, 5.0f, 0.75f, 1.25f / 64.0f};
    long n = target_count(T);
    for (long i = 0; i + 1 < n; i++) {
        double m = (target_value(T, i) + target_value(T, i + 1)) / 2;
        for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
            double xd = m * (double)scales[k];
            float x = (float)xd;
            if ((double)x != xd || (x == 0 && m != 0))
                continue;   /* not exact in f32 (bf16's far ties with large scales) */
            for (int neg = 0; neg < 2; neg++) {
                if (neg && T->lo == 0 && !T->F)
                    continue;
                float xs = neg ? -x : x;
                long even = (i & 1) ? i + 1 : i;
                uint64_t want = target_bits(T, even, neg);
                uint64_t got = impl_quantize(T, xs, scales[k], false, 0);
                bool pow2 = k < 3;
                check(got == want, pow2 ? "quantize: every tie, power-of-two scales"
                                        : "quantize: every tie, other scales",
                      T->name, ((uint64_t)bits_of(xs) << 32) | bits_of(scales[k]), got, want);
                if ((i & 1023) == 0 || T->F) {
                    check_quantize(T, y, nextafterf(xs, 0), scales[k], "quantize: one ulp from a tie vs oracle");
                    check_quantize(T, y, nextafterf(xs, neg ? -INFINITY : INFINITY), scales[k],
                                   "quantize: one ulp from a tie vs oracle");
                }
            }
        }
    }
    /* Ties at the ends: i8 -128.5 -> -128 (even), 127.5 -> 128, clamped;
     * u8 -0.5 -> -0 = 0. */
    if (!T->F) {
        float xs[] = {(float)T->hi + 0.5f, (float)T->lo - 0.5f, -0.5f, 0.5f, 1.5f, -1.5f, 2.5f, -2.5f};
        for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++)
            check_quantize(T, y, xs[k], 1.0f, "quantize: ties at the ends vs oracle");
    }
}

/* Both clamps, and the values around them. */
static void test_quantize_clamps(const Target *T, mpfr_t y)
{
    double hi = T->F ? T->F->max : (double)T->hi, lo = T->F ? -T->F->max : (double)T->lo;
    double step = T->F ? ldexp(1.0, (int)floor(log2(T->F->max)) - T->F->mbits) : 1.0;
    const float scales[] = {1.0f, 3.0f, 0.0625f};
    for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
        float s = scales[k];
        double xs[] = {hi, hi + step / 2, hi + step, hi * 4, lo, lo - step / 2, lo - step, lo * 4 - 1,
                       1e38, -1e38, INFINITY, -INFINITY};
        for (size_t j = 0; j < sizeof xs / sizeof xs[0]; j++) {
            float x = (float)(xs[j] * s);
            for (int d = -1; d <= 1; d++) {
                float xd = d < 0 ? nextafterf(x, 0) : d > 0 ? nextafterf(x, x > 0 ? INFINITY : -INFINITY) : x;
                check_quantize(T, y, xd, s, "quantize: both clamps vs oracle");
            }
        }
    }
    /* Written out: past the top gives the top, past the bottom the bottom. */
    uint64_t top = T->F ? max_bits(T->F) : (uint64_t)T->hi;
    uint64_t bottom = T->F ? sign_bit(T->F) | max_bits(T->F) : (uint64_t)(int64_t)T->lo;
    check(impl_quantize(T, FLT_MAX, 0.5f, false, 0) == top && impl_quantize(T, INFINITY, 7.0f, false, 0) == top &&
              impl_quantize(T, -FLT_MAX, 0.5f, false, 0) == bottom && impl_quantize(T, -INFINITY, 0.5f, false, 0) == bottom &&
              impl_quantize(T, FLT_MAX, 0.25f, true, 0) == top && impl_quantize(T, -FLT_MAX, 0.125f, true, ~0u) == bottom,
          "quantize: saturates at both ends", T->name, 0, 0, 0);
}

/* A value around an integer target's range, in steps of 1/64. */
static double int_value(const Target *T)
{
    double span = (double)(T->hi - T->lo) * 1.2 + 4;
    return (double)T->lo - span / 12 + (double)(rnd() % (uint64_t)(span * 64)) / 64.0;
}

/* Random x and scale: powers of two, and anything positive finite
 * (subnormal scales included). */
static void test_quantize_random(const Target *T, mpfr_t y, long n)
{
    const Format *F = T->F ? T->F : &formats[0];
    for (long i = 0; i < n; i++) {
        uint64_t r = rnd();
        float s;
        bool pow2 = r & 1;
        int se = (int)((r >> 8) % 60) - 30;
        if ((r >> 20) % 16 == 0)
            se = (int)((r >> 24) % 270) - 149;   /* the whole range of f32, subnormals too */
        if (pow2)
            s = ldexpf(1.0f, se < -149 ? -149 : se);
        else
            s = f32_of((bits_of(ldexpf(1.0f, se < -126 ? -126 : se)) & 0xff800000u) | (uint32_t)(r >> 40 & 0x7fffff) | 1u);
        if (!(s > 0) || isinf(s))
            s = 1.0f;
        float x;
        if ((r >> 2) % 8 == 0) {
            x = f32_of(random_input(F));
        } else {
            float v = T->F ? f32_of(random_input(F)) : (float)int_value(T);
            x = v * s;   /* around the target's range after the division */
            if (isinf(x) || x != x)
                x = v;
        }
        if (x != x && !T->F)
            x = 0.0f;   /* a NaN into an integer traps: see test_guards */
        uint64_t got = impl_quantize(T, x, s, false, 0), want = oracle_quantize(T, y, x, s, false, 0);
        check(got == want, pow2 ? "quantize: random, power-of-two scales vs oracle"
                                : "quantize: random, other scales vs oracle",
              T->name, ((uint64_t)bits_of(x) << 32) | bits_of(s), got, want);
    }
}

/* quantize into an integer type never rounds twice: an x whose quotient is
 * just past a tie, though (float)(x / s) is the tie itself. */
static void test_quantize_once(mpfr_t y)
{
    /* x = (k + 0.5) * s rounded to f32, where that lands above the exact
     * product, so x / s is just above the tie k + 0.5 though (float)(x / s)
     * is the tie itself (found by search): rounding that again would give
     * the even neighbour. */
    long cases = 0;
    for (int i = 0; i < 200000 && cases < 2000; i++) {
        float s = 1.0f + (float)(rnd() % 8388607 + 1) / 8388608.0f;
        int k = (int)(rnd() % 127);
        double tie = k + 0.5;
        float x = (float)(tie * s);
        if ((double)x <= tie * (double)s || (float)(x / s) != (float)tie)
            continue;
        cases++;
        int want = k + 1, got = cn_quantize_i8(x, s, "t", 1, 1);
        check(got == want, "quantize: the exact quotient, not the rounded one", "i8",
              ((uint64_t)bits_of(x) << 32) | bits_of(s), (uint64_t)got, (uint64_t)want);
    }
    check(cases > 100, "quantize: cases where (float)(x / s) is a tie", "i8", (uint64_t)cases, 0, 0);
    /* The same for f16: a quotient within half an f32 ulp above an f16 tie. */
    long found = 0, bad = 0;
    for (long i = 0; i < 200000 && found < 2000; i++) {
        float s = 1.0f + (float)(rnd() % 8388607 + 1) / 8388608.0f;
        uint16_t b = (uint16_t)(rnd() % 0x7bff);
        double m = (value_table[0][b] + value_table[0][b + 1]) / 2;
        float xq = (float)(m * s);
        if ((float)(xq / s) != (float)m || (double)xq / (double)s == m)
            continue;
        found++;
        uint64_t got = cn_quantize_f16(xq, s, "t", 1, 1), want = oracle_quantize(&targets[0], y, xq, s, false, 0);
        if (got != want)
            bad++;
        check(got == want, "quantize: near ties where (float)(x / s) is a tie", "f16",
              ((uint64_t)bits_of(xq) << 32) | bits_of(s), got, want);
    }
    check(found > 100, "quantize: near-tie cases found", "f16", (uint64_t)found, 0, 0);
    (void)bad;
    /* The spec's examples. */
    check(cn_quantize_i8(-2.5f, 1.0f, "t", 1, 1) == -2 && cn_quantize_i8(500.0f, 2.0f, "t", 1, 1) == 127,
          "quantize[i8](-2.5, 1.0) == -2, quantize[i8](500.0, 2.0) == 127", "spec", 0, 0, 0);
    check(cn_widen_f8e4m3(cn_quantize_f8e4m3(1e6f, 0.5f, "t", 1, 1)) == 448.0f, "quantize saturates at 448",
          "f8e4m3", 0, 0, 0);
    /* NaN x into a storage float: the canonical NaN, sign kept; -0 stays -0. */
    check(cn_quantize_f16(NAN, 2.0f, "t", 1, 1) == 0x7e00 && cn_quantize_f16(-NAN, 2.0f, "t", 1, 1) == 0xfe00 &&
              cn_quantize_bf16(NAN, 2.0f, "t", 1, 1) == 0x7fc0 && cn_quantize_f8e4m3(-NAN, 2.0f, "t", 1, 1) == 0xff &&
              cn_quantize_f8e5m2(NAN, 0.5f, "t", 1, 1) == 0x7e && cn_quantize_f16(-0.0f, 3.0f, "t", 1, 1) == 0x8000 &&
              cn_quantize_stochastic_f16(NAN, 2.0f, 5, "t", 1, 1) == 0x7e00,
          "quantize: NaN x gives the canonical NaN", "floats", 0, 0, 0);
}

/* ------------------------------------------------------- stochastic */

/* Against the exact fraction, with noise at random and at the edges (0, the
 * largest, and the dropped fraction's own 32 bits and its neighbours). */
static void test_stochastic_oracle(const Target *T, mpfr_t y, long n)
{
    const Format *F = T->F ? T->F : &formats[0];
    for (long i = 0; i < n; i++) {
        uint64_t r = rnd();
        float s = (r & 1) ? ldexpf(1.0f, (int)((r >> 4) % 20) - 10)
                          : 1.0f + (float)((r >> 8) & 0x7fffff) / 8388608.0f;
        float v = T->F ? f32_of(random_input(F)) : (float)int_value(T);
        float x = v * s;
        if (isinf(x) || x != x)
            x = v;
        if (x != x && !T->F)
            x = 1.0f;   /* a NaN into an integer traps: see test_guards */
        uint32_t f32 = oracle_frac32(T, y, x, s);
        uint32_t noises[] = {(uint32_t)rnd(), 0, ~0u, 0x80000000u, f32 - 1, f32, f32 + 1};
        for (size_t k = 0; k < sizeof noises / sizeof noises[0]; k++) {
            uint64_t got = impl_quantize(T, x, s, true, noises[k]);
            uint64_t want = oracle_quantize(T, y, x, s, true, noises[k]);
            check(got == want, "stochastic: vs the exact fraction", T->name,
                  ((uint64_t)bits_of(x) << 32) | bits_of(s), got, want);
            check(got == impl_quantize(T, x, s, true, noises[k]), "stochastic: same noise, same result",
                  T->name, bits_of(x), got, 0);
        }
    }
    /* A fraction of exactly k / 2^32: noise k - 1 rounds up, noise k does
     * not (the fraction must exceed it). For i16: x = 5 + 2^-2 (k = 2^30). */
    if (!T->F) {
        float x = 5.25f;
        check(impl_quantize(T, x, 1.0f, true, 0x3fffffffu) == 6 && impl_quantize(T, x, 1.0f, true, 0x40000000u) == 5 &&
                  impl_quantize(T, 5.0f, 1.0f, true, 0) == 5,
              "stochastic: up exactly when the fraction exceeds the noise", T->name, bits_of(x), 0, 0);
    }
}

/* The mean over noise: with the noise stratified (k * 2^20, k < 4096) the
 * mean is v + q * (ceil(4096 f) / 4096 - f), in [v, v + q / 4096); with
 * 20000 uniform random noises it is within 5 sigma of v (sigma <= q / 2 /
 * sqrt(20000)). q is the gap between the neighbours of v. Inputs inside
 * the range (saturation is not unbiased, and is not meant to be). */
static void test_stochastic_mean(const Target *T)
{
    const Format *F = T->F;
    for (int i = 0; i < 200; i++) {
        float s = (i & 1) ? 0.25f : 1.0f + (float)(rnd() & 0x7fffff) / 8388608.0f;
        double v;
        float x;
        if (F) {
            double top = F->max * 0.9;
            int e = (int)(rnd() % (uint64_t)(floor(log2(top)) - (1 - F->bias - F->mbits) + 4)) + (1 - F->bias - F->mbits) - 3;
            if (e > 120) e = 120;
            v = ldexp(1.0 + (double)(rnd() & 0xfffff) / 0x1p20, e);
            if (v > top) v = top;
        } else {
            v = (double)T->lo + 1 + (double)(rnd() % (uint64_t)(T->hi - T->lo - 2)) + (double)(rnd() & 0xffff) / 65536.0;
        }
        x = (float)(v * s);
        if (x == 0 || isinf(x))
            continue;
        /* v exactly, and the gap q between its neighbours: 1 for an
         * integer, 2^(max(e, emin) - mbits) for a float with |v| in
         * [2^e, 2^(e+1)). v is exact when v / q is an integer. */
        mpq_t qv, a, b;
        mpq_inits(qv, a, b, NULL);
        mpq_set_f32(a, x), mpq_set_f32(b, s), mpq_div(qv, a, b);
        v = mpq_get_d(qv);
        int qe = 0, e2;
        if (F) {
            frexp(v, &e2);
            qe = (e2 - 1 > 1 - F->bias ? e2 - 1 : 1 - F->bias) - F->mbits;
        }
        double q = ldexp(1.0, qe);
        if (qe >= 0)
            mpq_div_2exp(a, qv, (unsigned long)qe);
        else
            mpq_mul_2exp(a, qv, (unsigned long)-qe);
        bool exact = mpz_cmp_ui(mpq_denref(a), 1) == 0;
        mpq_clears(qv, a, b, NULL);
        double sum = 0, sum_r = 0;
        bool moved = false;
        for (uint32_t k = 0; k < 4096; k++) {
            uint64_t g = impl_quantize(T, x, s, true, k << 20);
            double w = F ? (double)impl_widen(F, (uint32_t)g) : (double)(int64_t)g;
            sum += w;
            moved = moved || w != v;
        }
        for (int k = 0; k < 20000; k++) {
            uint64_t g = impl_quantize(T, x, s, true, (uint32_t)rnd());
            sum_r += F ? (double)impl_widen(F, (uint32_t)g) : (double)(int64_t)g;
        }
        if (exact) {
            check(!moved && sum_r == 20000 * v, "stochastic: an exact quotient never moves", T->name,
                  bits_of(x), 0, 0);
            continue;
        }
        double mean = sum / 4096, mean_r = sum_r / 20000, slack = fabs(v) * 0x1p-50;
        check(fabs(mean) >= fabs(v) - slack && fabs(mean) < fabs(v) + q / 4096 + slack, "stochastic: stratified mean within q/4096",
              T->name, ((uint64_t)bits_of(x) << 32) | bits_of(s), bits_of((float)mean), bits_of((float)v));
        check(fabs(mean_r - v) <= 5 * q * 0.5 / sqrt(20000.0) + slack, "stochastic: random-noise mean within 5 sigma",
              T->name, ((uint64_t)bits_of(x) << 32) | bits_of(s), bits_of((float)mean_r), bits_of((float)v));
    }
    /* And an exact quotient written out: 6 / 3 = 2 and 2 / 0.25 = 8, whatever the noise. */
    for (uint32_t k = 0; k < 64; k++) {
        uint32_t noise = k * 0x4000000u + k;
        uint64_t a = impl_quantize(T, 6.0f, 3.0f, true, noise), b = impl_quantize(T, 2.0f, 0.25f, true, noise);
        double va = F ? (double)impl_widen(F, (uint32_t)a) : (double)(int64_t)a;
        double vb = F ? (double)impl_widen(F, (uint32_t)b) : (double)(int64_t)b;
        check(va == 2.0 && vb == 8.0, "stochastic: an exact quotient never moves", T->name, noise, a, b);
    }
}

/* -------------------------------------------------------------- guards */

/* child_guard(): tests/unit/child_guard.h */

static volatile float sink;
static void bad_e4m3(void) { sink = cn_narrow_f8e4m3(500.0f, "t.cairn", 3, 4); }
static void bad_e4m3_inf(void) { sink = cn_narrow_f8e4m3(-INFINITY, "t.cairn", 3, 4); }
static void bad_e4m3_tie(void) { sink = cn_narrow_f8e4m3(nextafterf(464.0f, 1e9f), "t.cairn", 3, 4); }
static void bad_e4m3_f64(void) { sink = cn_narrow_f8e4m3_f64(464.00000000000006, "t.cairn", 3, 4); }
static void bad_scale_zero(void) { sink = cn_quantize_i8(1.0f, 0.0f, "q.cairn", 7, 9); }
static void bad_scale_negzero(void) { sink = cn_quantize_f16(1.0f, -0.0f, "q.cairn", 7, 9); }
static void bad_scale_neg(void) { sink = cn_quantize_stochastic_u8(1.0f, -2.0f, 3, "q.cairn", 7, 9); }
static void bad_scale_inf(void) { sink = cn_quantize_f8e4m3(1.0f, INFINITY, "q.cairn", 7, 9); }
static void bad_scale_nan(void) { sink = cn_quantize_bf16(1.0f, NAN, "q.cairn", 7, 9); }
static void bad_nan_int(void) { sink = cn_quantize_i16(NAN, 1.0f, "q.cairn", 2, 5); }
static void bad_nan_int_st(void) { sink = cn_quantize_stochastic_u16(-NAN, 1.0f, 9, "q.cairn", 2, 5); }

static void test_guards(void)
{
    struct { void (*fn)(void); const char *want; } g[] = {
        {bad_e4m3, "t.cairn:3:4: guard failed: 500 is past the range of f8e4m3"},
        {bad_e4m3_inf, "t.cairn:3:4: guard failed: -inf is past the range of f8e4m3"},
        {bad_e4m3_tie, "t.cairn:3:4: guard failed: 464.00003 is past the range of f8e4m3"},
        {bad_e4m3_f64, "t.cairn:3:4: guard failed: 464.00000000000006 is past the range of f8e4m3"},
        {bad_scale_zero, "q.cairn:7:9: guard failed: quantize[i8]: scale 0 is not positive and finite"},
        {bad_scale_negzero, "q.cairn:7:9: guard failed: quantize[f16]: scale -0 is not positive and finite"},
        {bad_scale_neg, "q.cairn:7:9: guard failed: quantize[u8]: scale -2 is not positive and finite"},
        {bad_scale_inf, "q.cairn:7:9: guard failed: quantize[f8e4m3]: scale inf is not positive and finite"},
        {bad_scale_nan, "q.cairn:7:9: guard failed: quantize[bf16]: scale nan is not positive and finite"},
        {bad_nan_int, "q.cairn:2:5: guard failed: quantize[i16]: x is nan, which i16 cannot hold"},
        {bad_nan_int_st, "q.cairn:2:5: guard failed: quantize[u16]: x is nan, which u16 cannot hold"},
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
        check(child_guard(g[i].fn, g[i].want), g[i].want, "guard:", i, 0, 0);
    /* And what does not trap: E4M3 at 464 (the tie goes to 448), from NaN,
     * quantize[f8e4m3] of anything, the smallest positive scale. */
    check(cn_narrow_f8e4m3(464.0f, "t", 1, 1) == 0x7e && cn_narrow_f8e4m3(-464.0f, "t", 1, 1) == 0xfe &&
              cn_narrow_f8e4m3(NAN, "t", 1, 1) == 0x7f && cn_quantize_f8e4m3(INFINITY, 1.0f, "t", 1, 1) == 0x7e &&
              cn_quantize_i8(1.0f, f32_of(1), "t", 1, 1) == 127,
          "no guard where none is due", "f8e4m3", 0, 0, 0);
}

/* --------------------------------------------------------- exhaustive */

/* 32: every f32; less for a quick trial of the machinery (-DEXHAUSTIVE_BITS=24). */
#ifndef EXHAUSTIVE_BITS
#define EXHAUSTIVE_BITS 32
#endif

typedef struct {
    uint64_t lo, hi;     /* f32 inputs [lo, hi) */
    long checked, failed;
} Slice;

/* One input, compared on values: the MPFR result's value and sign against
 * the value the formula gives the implementation's pattern (each value has
 * one pattern, so this is a comparison of bits), without the search that
 * oracle_f32 does for the expected pattern (done only to print a failure). */
static bool exhaustive_one(const Format *F, const double *table, mpfr_t y, uint32_t u)
{
    Expect got = impl_narrow(F, u);
    float x = f32_of(u);
    if (x != x)
        return !got.trap && got.bits == ((u >> 31 ? sign_bit(F) : 0) | F->nan);
    int t = mpfr_set_flt(y, x, MPFR_RNDN);
    mpfr_subnormalize(y, t, MPFR_RNDN);
    double want = mpfr_inf_p(y) ? (mpfr_signbit(y) ? -INFINITY : INFINITY) : mpfr_get_d(y, MPFR_RNDN);
    if (fabs(want) > F->max)
        return F->has_inf ? !got.trap && table[got.bits] == (want > 0 ? INFINITY : -INFINITY) : got.trap;
    return !got.trap && table[got.bits] == want && !signbit(table[got.bits]) == !mpfr_signbit(y);
}

/* All f32 inputs of a slice through every format, against MPFR. */
static void *exhaustive_slice(void *arg)
{
    Slice *sl = arg;
    mpfr_t y[4];
    for (int i = 0; i < 4; i++)
        mpfr_init2(y[i], formats[i].mbits + 1);
    for (int i = 0; i < 4; i++) {
        const Format *F = &formats[i];
        const double *table = value_table[i];
        mp_range(F);
        for (uint64_t w = sl->lo; w < sl->hi; w++) {
            uint32_t u = (uint32_t)w;
            sl->checked++;
            if (exhaustive_one(F, table, y[i], u))
                continue;
            Expect want = oracle_f32(F, y[i], u), got = impl_narrow(F, u);
            if (sl->failed++ < 20)
                printf("FAIL %s exhaustive: input 0x%08x got 0x%llx expected 0x%llx\n", F->name, u,
                       (unsigned long long)show(got), (unsigned long long)show(want));
        }
    }
    for (int i = 0; i < 4; i++)
        mpfr_clear(y[i]);
    mpfr_free_cache();
    return NULL;
}

static int run_exhaustive(int threads)
{
    if (!mpfr_buildopt_tls_p())
        threads = 1;   /* the exponent range is global without TLS */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    Slice sl[16];
    pthread_t th[16];
    uint64_t total = 1ull << EXHAUSTIVE_BITS, per = total / (uint64_t)threads;
    for (int i = 0; i < threads; i++) {
        sl[i].lo = per * (uint64_t)i, sl[i].hi = i == threads - 1 ? total : per * (uint64_t)(i + 1);
        sl[i].checked = sl[i].failed = 0;
        pthread_create(&th[i], NULL, exhaustive_slice, &sl[i]);
    }
    long checked = 0, failed = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        checked += sl[i].checked, failed += sl[i].failed;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("exhaustive: %ld conversions (all 2^%d f32 inputs x 4 formats) on %d threads in %.1f s, %ld wrong\n",
           checked, EXHAUSTIVE_BITS, threads, secs, failed);
    printf("%d passed, %d failed, 0 skipped\n", failed ? 0 : 4, failed ? 4 : 0);
    return failed ? 1 : 0;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    formats_init();
    tables_init();
    targets_init();
    if (argc > 1 && !strcmp(argv[1], "--exhaustive")) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return run_exhaustive(argc > 2 ? atoi(argv[2]) : n < 2 ? 2 : n > 16 ? 16 : (int)n);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    test_guards();
    for (int i = 0; i < 4; i++) {
        const Format *F = &formats[i];
        mpfr_t y;
        mpfr_init2(y, F->mbits + 1);
        mp_range(F);
        test_widen(F);
        test_representable(F, y);
        test_midpoints(F, y);
        test_specials(F, y);
        test_random(F, y, 1000000);
        test_f64(F, y, 200000);
        mp_range_default();
        mpfr_clear(y);
    }
    test_widen_wrappers();
    test_narrow_wrappers();
    for (int i = 0; i < 8; i++) {
        const Target *T = &targets[i];
        mpfr_t y;
        mpfr_init2(y, T->F ? T->F->mbits + 1 : 24);
        test_quantize_ties(T, y);
        test_quantize_clamps(T, y);
        test_quantize_random(T, y, 150000);
        test_stochastic_oracle(T, y, 40000);
        test_stochastic_mean(T);
        mpfr_clear(y);
    }
    {
        mpfr_t y;
        mpfr_init2(y, 11);
        test_quantize_once(y);
        mpfr_clear(y);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long bad = 0;
    for (int i = 0; i < tally.nprops; i++)
        bad += tally.bad[i];
    printf("%ld inputs checked under %d properties in %.1f s\n", tally.checks, tally.nprops,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    printf("%ld passed, %ld failed, 0 skipped\n", tally.nprops - bad, bad);
    mpfr_free_cache();
    return bad ? 1 : 0;
}
