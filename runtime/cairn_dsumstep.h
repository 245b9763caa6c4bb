/*
 * cairn_dsumstep.h: the steps of the device's exact sum (cairn_devsum.h)
 * on one term and on one thread's state, written once for the device and
 * the host, so that tests/unit/test_sum.c can model the device's passes on
 * the host and hold them to MPFR: the f32 bins and their window and pair,
 * the f64 window and digits. Built on cairn_sum.h's exact total (its
 * digits, CN_SUM_FN, the bit casts); header-only, the common subset of C17
 * and C++17, host and device.
 */
#ifndef CAIRN_DSUMSTEP_H
#define CAIRN_DSUMSTEP_H

#include "cairn_sum.h"

#include <assert.h> /* static_assert, in C and C++ alike */

enum {
    CN_DSUM32_BINS = 16,
    CN_DSUM32_LIMBS = 17,       /* a limb a bin, and one the top bin's limb carries into */
    CN_DSUM32_FLUSH = 1 << 14,  /* terms a thread adds before it moves its bins to the limbs */
    CN_DSUM32_LIMB_P = 924,     /* limb 0's weight, 2^-150, in units of 2^-1074 */
    CN_DSUM64_THREADS = 64,     /* a block of the f64 sum: 68 digits x 64 threads, 34 KB */
    CN_DSUM64_PART_MAX = 1 << 24, /* terms of an f64 part at most: its threads' digits need no carry */
    CN_DSUM32_THREADS = 256
};

CN_SUM_FN uint32_t cn_sum_bits32(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* An f32 term's bin: the top four bits of its exponent field. */
CN_SUM_FN unsigned cn_dsum32_bin(float x) { return (cn_sum_bits32(x) >> 27) & 15; }

/* One f32 term into its bin (bins a stride apart). */
CN_SUM_FN void cn_dsum32_put(double *bins, size_t stride, float x) { bins[cn_dsum32_bin(x) * stride] += (double)x; }

/* 1: a one-bin batch of normal terms adds in an integer (below). Timed on
 * an H100 and set aside: no faster (1.162x CUB's time at 2^28 where the
 * default takes 1.157x), its stalls moved to memory and the integer pipes
 * (evidence/2026-12-07-h100-call37.md, call38). */
#ifndef CN_DSUM32_SAME_INT
#define CN_DSUM32_SAME_INT 0
#endif

/* 1: a thread keeps the bin of its last one-bin batch in a register, its
 * hot bin, and adds a one-bin batch for that bin there; a batch for
 * another bin moves the hot one into its shared bin and takes its place.
 * Moderate data puts nearly every batch in one bin, so the shared bins go
 * almost untouched, where each batch's add into one was a load, an add
 * and a store (the 16-byte f32 fold waited on shared memory for 62% of its
 * stalls on an H100, evidence/2026-12-07-h100-call37.md). The hot value
 * and its shared bin are two parts of one bin's terms since its last move,
 * each a sum of at most CN_DSUM32_FLUSH of them, so each is exact and so
 * is their sum; the hot bin is moved in before the bins move
 * (cn_dsum32_hot_spill). 1 is the default, with batches of 16
 * (cairn_devsum.h, CN_DSUM32_U: the figures there); 0: every one-bin
 * batch into its shared bin. */
#ifndef CN_DSUM32_HOT
#define CN_DSUM32_HOT 1
#endif
typedef struct {
    unsigned b;   /* the hot bin */
    double v;     /* its terms since the hot bin last moved: -0.0 for none */
} cn_dsum32_hot;

CN_SUM_FN void cn_dsum32_hot_init(cn_dsum32_hot *h) { h->b = 0, h->v = -0.0; }

/* The hot bin into its shared bin (a no-op for -0.0, which changes no sum). */
CN_SUM_FN void cn_dsum32_hot_spill(cn_dsum32_hot *h, double *bins, size_t stride)
{
    bins[h->b * stride] += h->v;
    h->v = -0.0;
}

/* A one-bin batch's exact sum s into bin b: the hot bin (CN_DSUM32_HOT) or
 * the shared one. */
CN_SUM_FN void cn_dsum32_bin_add(double *bins, size_t stride, unsigned b, double s, cn_dsum32_hot *h)
{
    if (!CN_DSUM32_HOT) {
        bins[b * stride] += s;
    } else if (h->b == b) {
        h->v += s;
    } else {
        bins[h->b * stride] += h->v;
        h->b = b, h->v = s;   /* -0.0 + s is s, -0.0 too */
    }
}

/* u <= 32 terms (a thread's batch) into their bins. Where they all share
 * one bin, their sum goes in with one add: the bin's terms span 16
 * binades of 24-bit significands, so 32 of them add up exactly in a
 * double (24 + 15 + 5 bits), in any order, and adding that sum is adding
 * them one by one; the signed zeros and the infinities come out as they
 * would (-0 only from -0 terms, inf - inf a NaN either way). On the device
 * each term into a shared-memory bin is a load, an add and a store that
 * waits for the last term's (31% of the fold's stalls on an H100,
 * evidence/2026-12-07-h100-fills.md); moderate data puts nearly every
 * term of a batch in one bin. The default (cairn_devsum.h, CN_DSUM32_SAME).
 * A one-bin batch's sum goes in by cn_dsum32_bin_add (h: the thread's hot
 * bin, used with CN_DSUM32_HOT). */
CN_SUM_FN void cn_dsum32_batch(double *bins, size_t stride, const float *y, unsigned u, cn_dsum32_hot *h)
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
    if (CN_DSUM32_SAME_INT && b - 1 < 14) {
        /* bins 1 to 14 hold normal terms only: each is its 24-bit
         * significand m times 2^(field - 150), (m << field % 16) units of
         * 2^(16b - 150), below 2^39; 32 of them add up below 2^44 in an
         * integer, which converts exactly, and times a power of two that
         * neither underflows nor overflows is their exact sum, the value
         * the chains below give (+0.0 where they cancel, as there). No
         * conversion a term, where on the device each f32-to-f64 one is a
         * variable-latency instruction. */
        int64_t m = 0;
        for (unsigned i = 0; i < u; i++) {
            const uint32_t w = cn_sum_bits32(y[i]);
            const int64_t v = (int64_t)((w & 0x7fffffu) | 0x800000u) << ((w >> 23) & 15);
            m += (w >> 31) ? -v : v;
        }
        cn_dsum32_bin_add(bins, stride, b, (double)m * cn_sum_from_bits64((uint64_t)(1023 + 16 * b - 150) << 52), h);
        return;
    }
    double s0 = -0.0, s1 = -0.0;   /* two chains, so the adds overlap */
    for (unsigned i = 0; i + 1 < u; i += 2)
        s0 += (double)y[i], s1 += (double)y[i + 1];
    if (u & 1)
        s0 += (double)y[u - 1];
    cn_dsum32_bin_add(bins, stride, b, s0 + s1, h);
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

/* ------------------------------------------------ 16-byte loads (the default) */

/* Where a part [lo, hi) of a view whose data starts at address p (terms of
 * `size` bytes, W to 16 bytes) can be read 16 bytes at a time: from a0,
 * the first index at or past lo whose address is a multiple of 16, nv
 * whole vectors. The W - 1 terms at most before a0, and after
 * a0 + nv * W, are read one by one. (p is a multiple of size: a view's
 * data is aligned to its element.) */
CN_SUM_FN void cn_dsum_vec_plan(uintptr_t p, size_t size, size_t W, size_t lo, size_t hi, size_t *a0, size_t *nv)
{
    size_t skip = ((16 - (size_t)((p + lo * size) & 15)) & 15) / size;
    size_t a = hi - lo > skip ? lo + skip : hi;
    *a0 = a;
    *nv = (hi - a) / W;
}

/* A fold's stream of a thread's work (cairn_devsum.h): units K0 + t,
 * K0 + t + T, ... < KEND, each of W terms (LOAD(F, k, y) puts unit k's in y[0..W), with F
 * the term function or the vector load), U / W units
 * at a time, the next loaded before these are added (BATCH(y) with
 * y[0..U), EVERY after each); then the last few units one by one
 * (PUT(v) a term). FIRST(y) sees a thread's first U before any is added.
 * After the last EVERY a thread puts at most U - W terms. */
#define CN_DSUM_STREAM_UNITS(T_, W, K0, KEND, LOAD, F, BATCH, PUT, EVERY, FIRST)               \
    static_assert(U % (W) == 0, "whole units a batch");                                      \
    enum { UV = U / (W) };                                                                   \
    const size_t cn_kend = (KEND);                                                           \
    size_t k = (K0) + t;                                                                     \
    bool cn_have = k < cn_kend && cn_kend - k > (size_t)(UV - 1) * T;                        \
    T_ cn_y[U];                                                                              \
    if (cn_have) {                                                                           \
        _Pragma("unroll") for (unsigned v = 0; v < UV; v++) LOAD(F, k + v * T, cn_y + v * (W)); \
        FIRST(cn_y);                                                                         \
    }                                                                                        \
    while (cn_have) {                                                                        \
        size_t cn_kn = k + (size_t)UV * T;                                                   \
        bool cn_next = cn_kn < cn_kend && cn_kend - cn_kn > (size_t)(UV - 1) * T;            \
        T_ cn_z[U];                                                                          \
        if (cn_next)                                                                         \
            _Pragma("unroll") for (unsigned v = 0; v < UV; v++) LOAD(F, cn_kn + v * T, cn_z + v * (W)); \
        BATCH(cn_y);                                                                         \
        EVERY;                                                                               \
        _Pragma("unroll") for (unsigned u = 0; u < U; u++) cn_y[u] = cn_z[u];                \
        k = cn_kn;                                                                           \
        cn_have = cn_next;                                                                   \
    }                                                                                        \
    for (; k < cn_kend; k += T) {                                                            \
        T_ cn_w[W];                                                                          \
        LOAD(F, k, cn_w);                                                                    \
        _Pragma("unroll") for (unsigned w = 0; w < (W); w++) PUT(cn_w[w]);                   \
    }

/* The stream reading a plain view 16 bytes at a time (CN_DSUM_VEC=1):
 * BASE(&a, &p) gives the view's data, VLOAD(q, y) puts the W terms of the
 * vector at q in y[0..W). The units are the vectors of the part's aligned
 * middle; then come the terms of its ragged ends (PUT(v); fewer than W
 * each, so with T >= W threads at most one each a thread), last, so that
 * FIRST still sees a thread's first U. After the last EVERY a thread puts
 * at most U - W + 2 <= U terms (T >= W), as many as the term-by-term
 * stream's U - 1 and its margin allow. The sum is exact, so which thread
 * adds a term does not change its bits; tests/unit/test_sum.c runs this
 * macro on the host and checks that every index of a part is read exactly
 * once, for every alignment. */
#define CN_DSUM_VEC_UNIT(F, k, y) F(cn_q + (k), (y))
#define CN_DSUM_STREAM_VEC(T_, VT_, W, BASE, VLOAD, TERM, BATCH, PUT, EVERY, FIRST)            \
    static_assert(U >= 2 * (W), "two vectors a batch at least");                             \
    const T_ *cn_p;                                                                          \
    BASE(&a, &cn_p);                                                                         \
    size_t cn_a0, cn_nvec;                                                                   \
    cn_dsum_vec_plan((uintptr_t)cn_p, sizeof(T_), (W), lo, hi, &cn_a0, &cn_nvec);            \
    const VT_ *cn_q = (const VT_ *)(const void *)(cn_p + cn_a0);                             \
    CN_DSUM_STREAM_UNITS(T_, W, 0, cn_nvec, CN_DSUM_VEC_UNIT, VLOAD, BATCH, PUT, EVERY, FIRST) \
    for (size_t cn_e = lo + t; cn_e < cn_a0; cn_e += T) {                                    \
        T_ cn_v;                                                                             \
        TERM(&a, cn_e, &cn_v);                                                               \
        PUT(cn_v);                                                                           \
    }                                                                                        \
    for (size_t cn_e = cn_a0 + cn_nvec * (W) + t; cn_e < hi; cn_e += T) {                    \
        T_ cn_v;                                                                             \
        TERM(&a, cn_e, &cn_v);                                                               \
        PUT(cn_v);                                                                           \
    }

#endif /* CAIRN_DSUMSTEP_H */
