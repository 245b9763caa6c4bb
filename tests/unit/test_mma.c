/*
 * test_mma.c: mma_unordered's runtime (runtime/cairn_mma.h) against its
 * contract (numerics.md, "The tensor-core multiply"), with exact rationals
 * (GMP) as the oracle.
 *
 * For every operand format (f16, bf16, f8e4m3, f8e5m2), on shapes with
 * partial tiles in every direction (m, n and k each below, at and past a
 * multiple of 64, 64 and 32, both load paths: rows on 16 bytes or not) and
 * value families that go after the contract's edges:
 *
 *   moderate   magnitudes 2^-4 .. 2^4, both signs
 *   cancel     a's columns in pairs of opposite signs over b's equal rows:
 *              products that cancel exactly, under a large or tiny c
 *   wide       the format's whole range (bf16: up to 2^63, so products
 *              reach near f32's top and sums may overflow), subnormals
 *   zeros      -0 and +0 operands over c = -0: the pads must not change
 *              the sign of a zero
 *   specials   NaN and infinities among the operands (bits only)
 *
 * it holds:
 *   1. the host's multiply (cn_mma_host_T, blocked for the cache) to a
 *      plain triple loop in increasing p, bit for bit (a NaN to a NaN:
 *      which one an add of two gives is the C compiler's choice);
 *   2. the device tiling on this machine (emulated: teams of host threads,
 *      host fragments; the CUDA machine when built by nvcc, see
 *      tests/device/) bit for bit to the host's when emulated, and else to
 *      the bound alone;
 *   3. every finite output within (k + 1) * 2^-22 * (|c| + sum |a b|) of
 *      the exact c + sum a b, computed in GMP rationals;
 *   4. the extents, checked at the call: each guard's message.
 *
 * Prints FAIL lines and `N passed, N failed, 0 skipped`.
 */
#ifndef __CUDACC__
#define CAIRN_EMULATE 1
#endif
#define CN_FILE "test_mma.c"
#include "cairn_rt.h"
#include "cairn_exec.h"
#include "cairn_mma.h"

#include "child_guard.h"
#include "expect.h"

#include <gmp.h>
#include <math.h>

/* ------------------------------------------------------------ inputs */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static unsigned below(unsigned n) { return (unsigned)(next() % n); }

static const char *fmt_name[] = {"f16", "bf16", "f8e4m3", "f8e5m2"};
static size_t fmt_bytes(int f) { return f <= CN_MMA_BF16 ? 2 : 1; }

static float widen(int f, uint16_t bits)
{
    switch (f) {
    case CN_MMA_F16: return cn_widen_f16(bits);
    case CN_MMA_BF16: return cn_widen_bf16(bits);
    case CN_MMA_F8E4M3: return cn_widen_f8e4m3((uint8_t)bits);
    default: return cn_widen_f8e5m2((uint8_t)bits);
    }
}

/* Fields of each format: mantissa bits, exponent bits. */
static const int mbits[] = {10, 7, 3, 2}, ebits[] = {5, 8, 4, 5};

/* A finite value's bits with a biased exponent in [elo, ehi] (0:
 * subnormal), a random mantissa and sign. */
static uint16_t pick(int f, int elo, int ehi)
{
    for (;;) {
        unsigned e = (unsigned)(elo + (int)below((unsigned)(ehi - elo + 1)));
        uint16_t b = (uint16_t)((next() & 1) << (mbits[f] + ebits[f]) | e << mbits[f] |
                                (next() & ((1u << mbits[f]) - 1)));
        if (isfinite(widen(f, b)))
            return b;
    }
}

static int bias(int f) { return (1 << (ebits[f] - 1)) - 1; }
static int emax_field(int f) { return f == CN_MMA_F8E4M3 ? 15 : (1 << ebits[f]) - 2; }

enum { MODERATE, CANCEL, WIDE, ZEROS, SPECIALS, FAMILIES };
static const char *family_name[] = {"moderate", "cancel", "wide", "zeros", "specials"};

static uint16_t pick_family(int f, int fam)
{
    int b = bias(f);
    switch (fam) {
    case MODERATE: return pick(f, b - 4, b + 4);
    case WIDE:
        /* bf16: up to 2^63, so a product stays inside f32 and near its top */
        return f == CN_MMA_BF16 ? pick(f, b - 60, b + 63) : pick(f, 0, emax_field(f));
    case ZEROS: return (uint16_t)((next() & 1) << (mbits[f] + ebits[f]));
    case SPECIALS: {
        unsigned r = below(8);
        uint16_t s = (uint16_t)((next() & 1) << (mbits[f] + ebits[f]));
        if (r == 0)   /* NaN: e4m3's is all ones; the others' a full exponent, nonzero mantissa */
            return (uint16_t)(s | (f == CN_MMA_F8E4M3 ? 0x7f : (((1u << ebits[f]) - 1) << mbits[f]) | 1));
        if (r == 1 && f != CN_MMA_F8E4M3)   /* infinity (e4m3 has none) */
            return (uint16_t)(s | ((1u << ebits[f]) - 1) << mbits[f]);
        return pick(f, b - 3, b + 3);
    }
    default: return pick(f, b - 2, b + 2);
    }
}

typedef struct {
    size_t m, n, k;
} Shape;

/* Partial tiles in every direction, both load paths (k and n multiples of
 * 8 or not), and empty extents. */
static const Shape shapes[] = {
    {1, 1, 1},    {16, 16, 16}, {64, 64, 32}, {65, 63, 33}, {63, 65, 31}, {17, 130, 70}, {130, 17, 95},
    {72, 72, 40}, {128, 64, 96}, {3, 200, 5}, {100, 1, 64}, {8, 8, 8},    {0, 5, 5},    {5, 0, 5},
    {5, 5, 0},    {40, 24, 64}, {96, 136, 8},
};

/* On a GPU, shapes of several 128 x 128 tiles for the wide tiling
 * (cairn_mma_wide.h): partial tiles, a k of a partial run of 32, and more
 * tile rows than a group of blocks walks down (8). Too slow to emulate. */
static const Shape wide_shapes[] = {{264, 392, 200}, {1040, 136, 48}, {128, 128, 32}, {129, 8, 8}};

typedef struct {
    int fmt, fam;
    Shape s;
    uint16_t *a, *b; /* element bits */
    float *c;
    void *ap, *bp;   /* packed in the format's width */
} Case;

static void *pack(int f, const uint16_t *v, size_t n)
{
    void *p = calloc(n ? n : 1, fmt_bytes(f));
    for (size_t i = 0; i < n; i++) {
        if (fmt_bytes(f) == 2)
            ((uint16_t *)p)[i] = v[i];
        else
            ((uint8_t *)p)[i] = (uint8_t)v[i];
    }
    return p;
}

static float pick_c(int fam)
{
    switch (fam) {
    case ZEROS: return -0.0f;
    case CANCEL: return (next() & 1) ? ldexpf((float)(next() % 1000) + 1, 40) : ldexpf(1.5f, -30);
    case WIDE: return ldexpf((float)((int)(next() % 2001) - 1000), (int)below(200) - 100);
    default: return (float)((int)(next() % 2001) - 1000) / 64.0f;
    }
}

static Case make_case(int fmt, int fam, Shape s)
{
    Case c = {fmt, fam, s, NULL, NULL, NULL, NULL, NULL};
    size_t na = s.m * s.k, nb = s.k * s.n, nc = s.m * s.n;
    c.a = (uint16_t *)calloc(na + 1, 2);
    c.b = (uint16_t *)calloc(nb + 1, 2);
    c.c = (float *)calloc(nc + 1, sizeof(float));
    for (size_t i = 0; i < na; i++)
        c.a[i] = pick_family(fmt, fam);
    for (size_t i = 0; i < nb; i++)
        c.b[i] = pick_family(fmt, fam);
    if (fam == CANCEL) {   /* a[i][2q+1] = -a[i][2q], b's rows 2q and 2q+1 equal */
        uint16_t sign = (uint16_t)(1u << (mbits[fmt] + ebits[fmt]));
        for (size_t i = 0; i < s.m; i++)
            for (size_t p = 0; p + 1 < s.k; p += 2)
                c.a[i * s.k + p + 1] = c.a[i * s.k + p] ^ sign;
        for (size_t p = 0; p + 1 < s.k; p += 2)
            for (size_t j = 0; j < s.n; j++)
                c.b[(p + 1) * s.n + j] = c.b[p * s.n + j];
    }
    for (size_t i = 0; i < nc; i++)
        c.c[i] = pick_c(fam);
    c.ap = pack(fmt, c.a, na);
    c.bp = pack(fmt, c.b, nb);
    return c;
}

static void free_case(Case *c)
{
    free(c->a), free(c->b), free(c->c), free(c->ap), free(c->bp);
}

/* ------------------------------------------------------------ runs */

/* The plain loop, written from the page's sentence: each output its old
 * value plus its k products, in increasing p. */
static void plain(const Case *c, float *out)
{
    const Shape s = c->s;
    for (size_t i = 0; i < s.m; i++)
        for (size_t j = 0; j < s.n; j++) {
            float acc = c->c[i * s.n + j];
            for (size_t p = 0; p < s.k; p++)
                acc = acc + widen(c->fmt, c->a[i * s.k + p]) * widen(c->fmt, c->b[p * s.n + j]);
            out[i * s.n + j] = acc;
        }
}

static void host(const Case *c, float *out)
{
    const Shape s = c->s;
    size_t na = s.m * s.k, nb = s.k * s.n, nc = s.m * s.n;
    memcpy(out, c->c, nc * sizeof(float));
    switch (c->fmt) {
    case CN_MMA_F16: cn_mma_host_f16(s.m, s.n, s.k, out, nc, (const cn_f16 *)c->ap, na, (const cn_f16 *)c->bp, nb, CN_FILE, 1, 1); break;
    case CN_MMA_BF16: cn_mma_host_bf16(s.m, s.n, s.k, out, nc, (const cn_bf16 *)c->ap, na, (const cn_bf16 *)c->bp, nb, CN_FILE, 1, 1); break;
    case CN_MMA_F8E4M3: cn_mma_host_f8e4m3(s.m, s.n, s.k, out, nc, (const cn_f8e4m3 *)c->ap, na, (const cn_f8e4m3 *)c->bp, nb, CN_FILE, 1, 1); break;
    default: cn_mma_host_f8e5m2(s.m, s.n, s.k, out, nc, (const cn_f8e5m2 *)c->ap, na, (const cn_f8e5m2 *)c->bp, nb, CN_FILE, 1, 1); break;
    }
}

/* The device's tiling: the operands in device memory (offset by `skew`
 * bytes, so the 16-byte path is left where it must be; c by `cskew`
 * floats, so its pairs of columns leave 8 bytes), one launch, back. */
static void device_at(const Case *c, float *out, size_t skew, size_t cskew, enum cn_mma_tiling tiling)
{
    const Shape s = c->s;
    size_t eb = fmt_bytes(c->fmt), na = s.m * s.k, nb = s.k * s.n, nc = s.m * s.n;
    struct cn_exec *x = cn_exec_get();
    unsigned char *da = (unsigned char *)cn_dev_malloc(na * eb + 16), *db = (unsigned char *)cn_dev_malloc(nb * eb + 16);
    float *dc0 = (float *)cn_dev_malloc(nc * sizeof(float) + 4), *dc = dc0 + cskew;
    cn_dev_copy(x->run, CN_DEV_H2D, da + skew, c->ap, na * eb);
    cn_dev_copy(x->run, CN_DEV_H2D, db + skew, c->bp, nb * eb);
    cn_dev_copy(x->run, CN_DEV_H2D, dc, c->c, nc * sizeof(float));
    cn_exec_mma_tiled(x, tiling, c->fmt, s.m, s.n, s.k, dc, nc, da + skew, na, db + skew, nb, CN_FILE, 2, 2);
    cn_dev_copy(x->run, CN_DEV_D2H, out, dc, nc * sizeof(float));
    cn_dev_stream_synchronize(x->run);
    x->open_run = false;
    cn_dev_free(da), cn_dev_free(db), cn_dev_free(dc0);
}

static void device(const Case *c, float *out, size_t skew, enum cn_mma_tiling tiling)
{
    device_at(c, out, skew, 0, tiling);
}

/* ------------------------------------------------------------ checks */

/* The same bits, or both NaN: which NaN an operation with NaN operands
 * gives (sign, payload) is the compiler's choice, not the language's (a
 * compiler may swap the operands of an add). */
static bool same_bits(float x, float y) { return memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y)); }

static size_t first_differing(const float *x, const float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!same_bits(x[i], y[i]))
            return i;
    return n;
}

/* How many finite outputs lie outside the contract's bound (and the first
 * one's index in *bad); non-finite outputs with finite operands counted in
 * *inf. */
static size_t outside_bound(const Case *c, const float *out, size_t *bad, size_t *inf)
{
    const Shape s = c->s;
    mpq_t exact, mag, t, u, err;
    mpq_inits(exact, mag, t, u, err, NULL);
    size_t outside = 0;
    *inf = 0;
    /* past 20,000 outputs (the GPU's shapes of several 128 x 128 tiles) the exact sums take minutes:
     * every output within 8 of an edge of c or of a 128 x 128 tile, where partial tiles and pads
     * are, and every 7th of the rest */
    bool sample = s.m * s.n > 20000;
    for (size_t i = 0; i < s.m; i++)
        for (size_t j = 0; j < s.n; j++) {
            if (sample && !(i % 128 < 8 || i % 128 >= 120 || j % 128 < 8 || j % 128 >= 120 || i + 8 >= s.m ||
                            j + 8 >= s.n || (i * s.n + j) % 7 == 0))
                continue;
            float o = out[i * s.n + j];
            if (!isfinite(o)) {
                (*inf)++;
                continue;
            }
            mpq_set_d(exact, c->c[i * s.n + j]);
            mpq_abs(mag, exact);
            for (size_t p = 0; p < s.k; p++) {
                mpq_set_d(t, widen(c->fmt, c->a[i * s.k + p]));
                mpq_set_d(u, widen(c->fmt, c->b[p * s.n + j]));
                mpq_mul(t, t, u);
                mpq_add(exact, exact, t);
                mpq_abs(t, t);
                mpq_add(mag, mag, t);
            }
            /* bound = (k + 1) 2^-22 mag */
            mpq_set_ui(t, (unsigned long)s.k + 1, 1);
            mpq_mul(mag, mag, t);
            mpq_div_2exp(mag, mag, 22);
            mpq_set_d(err, o);
            mpq_sub(err, err, exact);
            mpq_abs(err, err);
            if (mpq_cmp(err, mag) > 0 && outside++ == 0)
                *bad = i * s.n + j;
        }
    mpq_clears(exact, mag, t, u, err, NULL);
    return outside;
}

static bool all_finite_inputs(const Case *c)
{
    for (size_t i = 0; i < c->s.m * c->s.k; i++)
        if (!isfinite(widen(c->fmt, c->a[i])))
            return false;
    for (size_t i = 0; i < c->s.k * c->s.n; i++)
        if (!isfinite(widen(c->fmt, c->b[i])))
            return false;
    return true;
}

static void check_case(int fmt, int fam, Shape s)
{
    Case c = make_case(fmt, fam, s);
    size_t nc = s.m * s.n;
    float *p = (float *)calloc(nc + 1, sizeof(float)), *h = (float *)calloc(nc + 1, sizeof(float)),
          *d = (float *)calloc(nc + 1, sizeof(float));
    const char *what = family_name[fam];
    plain(&c, p);
    host(&c, h);
    size_t at = first_differing(p, h, nc);
    EXPECT(at == nc, "%s %s %zux%zux%zu: host multiply differs from the plain loop at %zu: %a vs %a", fmt_name[fmt],
           what, s.m, s.n, s.k, at, at < nc ? h[at] : 0.0, at < nc ? p[at] : 0.0);
    /* skew 2: rows off 16 bytes, the element path, where skew 0 took the 16-byte one */
    bool vec = fmt_bytes(fmt) == 2 && s.k % 8 == 0 && s.n % 8 == 0;
    for (size_t skew = 0; skew <= (vec ? 2u : 0u); skew += 2) {
        device(&c, d, skew * fmt_bytes(fmt) / 2, CN_MMA_AUTO);
#if CN_DEV_EMULATED
        at = first_differing(p, d, nc);
        EXPECT(at == nc, "%s %s %zux%zux%zu skew %zu: emulated tiling differs from the loop at %zu: %a vs %a",
               fmt_name[fmt], what, s.m, s.n, s.k, skew, at, at < nc ? d[at] : 0.0, at < nc ? p[at] : 0.0);
#else
        if (vec && skew == 0) {
            /* the wide mma.sync tiling gives the page's tiling's bits; whichever tiling AUTO took
             * (wgmma where built) gives its own bits again on a second run */
            float *q = (float *)calloc(nc + 1, sizeof(float)), *r = (float *)calloc(nc + 1, sizeof(float));
            device(&c, q, 0, CN_MMA_PAGE);
            device(&c, r, 0, CN_MMA_SYNC);
            at = first_differing(q, r, nc);
            EXPECT(at == nc, "%s %s %zux%zux%zu: the wide tiling differs from the page's at %zu: %a vs %a",
                   fmt_name[fmt], what, s.m, s.n, s.k, at, at < nc ? r[at] : 0.0, at < nc ? q[at] : 0.0);
            device(&c, r, 0, CN_MMA_AUTO);
            at = first_differing(d, r, nc);
            EXPECT(at == nc, "%s %s %zux%zux%zu: a second run differs at %zu: %a vs %a", fmt_name[fmt], what, s.m,
                   s.n, s.k, at, at < nc ? r[at] : 0.0, at < nc ? d[at] : 0.0);
            device_at(&c, r, 0, 1, CN_MMA_AUTO); /* c one float off 8 bytes: single accesses, same bits */
            at = first_differing(d, r, nc);
            EXPECT(at == nc, "%s %s %zux%zux%zu: c off 8 bytes differs at %zu: %a vs %a", fmt_name[fmt], what, s.m,
                   s.n, s.k, at, at < nc ? r[at] : 0.0, at < nc ? d[at] : 0.0);
            free(q), free(r);
        }
#endif
        if (fam == SPECIALS)
            continue;
        size_t bad = 0, inf = 0, out = outside_bound(&c, d, &bad, &inf);
        EXPECT(out == 0, "%s %s %zux%zux%zu skew %zu: %zu outputs outside the bound, first %zu (%a)", fmt_name[fmt],
               what, s.m, s.n, s.k, skew, out, bad, out ? d[bad] : 0.0);
        if (fam != WIDE)
            EXPECT(inf == 0 && all_finite_inputs(&c), "%s %s: %zu outputs not finite", fmt_name[fmt], what, inf);
    }
    free(p), free(h), free(d);
    free_case(&c);
}

/* ------------------------------------------------------------ guards */

static float gc[6];
static uint16_t ga[6], gb[6];

static void short_c(void) { cn_mma_host_f16(2, 3, 2, gc, 5, ga, 6, gb, 6, "f.cairn", 4, 3); }
static void short_a(void) { cn_mma_host_f16(3, 2, 2, gc, 6, ga, 5, gb, 6, "f.cairn", 4, 3); }
static void short_b(void) { cn_mma_host_bf16(1, 2, 3, gc, 6, ga, 6, gb, 5, "f.cairn", 4, 3); }
static void overflow_m(void) { cn_mma_host_f16((size_t)1 << 33, (size_t)1 << 32, 0, gc, 6, ga, 6, gb, 6, "f.cairn", 4, 3); }
static void short_device(void)
{
    cn_exec_mma(cn_exec_get(), CN_MMA_F16, 2, 2, 2, gc, 3, ga, 4, gb, 4, "f.cairn", 9, 5);
}

static void check_guards(void)
{
    EXPECT(child_guard(short_c, "f.cairn:4:3: guard failed: mma_unordered: c holds 5 elements, and m x n is 2 x 3"),
           "c too short");
    EXPECT(child_guard(short_a, "f.cairn:4:3: guard failed: mma_unordered: a holds 5 elements, and m x k is 3 x 2"),
           "a too short");
    EXPECT(child_guard(short_b, "f.cairn:4:3: guard failed: mma_unordered: b holds 5 elements, and k x n is 3 x 2"),
           "b too short");
    EXPECT(child_guard(overflow_m, "f.cairn:4:3: guard failed: mma_unordered: c holds 6 elements, and m x n is "
                                   "8589934592 x 4294967296"),
           "m * n overflows");
    EXPECT(child_guard(short_device, "f.cairn:9:5: guard failed: mma_unordered: c holds 3 elements, and m x n is 2 x 2"),
           "device extents");
}

/* Exhaustive: every 8-bit operand staged as f16 holds its value. */
static void check_f8_staging(void)
{
    int bad = 0;
    for (int f = CN_MMA_F8E4M3; f <= CN_MMA_F8E5M2; f++)
        for (unsigned v = 0; v < 256; v++) {
            float want = widen(f, (uint16_t)v), got = cn_widen_f16(cn_mma_f8_as_f16((uint8_t)v, f));
            if (!(same_bits(want, got) || (isnan(want) && isnan(got))))
                bad++;
        }
    EXPECT(bad == 0, "%d 8-bit values staged as the wrong f16", bad);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* each FAIL line as it happens, even when a time limit stops the run */
    check_f8_staging();
    check_guards();
    size_t nshapes = sizeof shapes / sizeof *shapes;
    for (int f = 0; f < 4; f++)
        for (int fam = 0; fam < FAMILIES; fam++)
            for (size_t i = 0; i < nshapes; i++) {
                /* f16 and bf16: every shape for moderate values and zeros, every other one
                 * for the rest; the 8-bit formats: a third of them (the emulated tiling
                 * runs each block on 128 threads, which take their time on two cores) */
                if (f >= CN_MMA_F8E4M3 ? i % 3 != (size_t)fam % 3
                                       : fam != MODERATE && fam != ZEROS && i % 2 != (size_t)fam % 2)
                    continue;
                check_case(f, fam, shapes[i]);
            }
#if !CN_DEV_EMULATED
    for (int f = CN_MMA_F16; f <= CN_MMA_BF16; f++)
        for (int fam = 0; fam < FAMILIES; fam++)
            for (size_t i = 0; i < sizeof wide_shapes / sizeof *wide_shapes; i++)
                check_case(f, fam, wide_shapes[i]);
#endif
    cn_exec_release_thread();
    return expect_summary();
}
