/*
 * cairn_par.h: what the lowering of regions, pooled collectors and atomics
 * (src/emit_par.c) calls, on top of the lane pool (cairn_pool.h) and the
 * exact sum (cairn_sum.h).
 *
 * Header-only, C17 and C++17, every function static inline, no global
 * state. Included by an emitted program only when it has a region, a pooled
 * collector or an atomic.
 *
 *   cn_par_alloc(n, size, at)        scratch for partials; a failure is a guard
 *   cn_i128                          a checked integer sum's block total: exact
 *   cn_par_fit_T(total, at)          the total as T, or a guard when it does not fit
 *   cn_pmul                          a checked integer product: zero, sign and
 *                                    magnitude (saturated past 2^64), exact enough
 *                                    to say whether the product fits
 *   cn_atomic_OP_T(p, v)             atomics on an element (cairn_atomic.h)
 */
#ifndef CAIRN_PAR_H
#define CAIRN_PAR_H

#include "cairn_rt.h"
#include "cairn_pool.h"
#include "cairn_sum.h"

/* ----------------------------------------------------------- scratch */

static inline void *cn_par_alloc(size_t n, size_t size, const char *f, int l, int c)
{
    void *p = calloc(n ? n : 1, size);
    if (CN_UNLIKELY(!p))
        cn_guard_fail(f, l, c, "out of memory: %zu partials of %zu bytes for a pooled collector", n, size);
    return p;
}

/* ------------------------------------------------- checked integer sums */

/* A block of at most 2^62 terms, each below 2^64 in magnitude, sums below
 * 2^126: the 128-bit total is exact, so blocks combine in any order and the
 * guard fires exactly when the whole total does not fit. */
typedef __int128 cn_i128;

CN_COLD static CN_HD void cn_fail_total(const char *f, int l, int c, const char *what, const char *ty)
{
    CN_GUARD(f, l, c, "integer overflow: %s does not fit in %s", what, ty);
}

#define CN_PAR_FIT_S(T, C, U, BITS, MIN, MAX)                                 \
    static inline CN_HD C cn_par_fit_##T(cn_i128 v, const char *what, const char *f, int l, int c) \
    {                                                                         \
        if (CN_UNLIKELY(v < (cn_i128)(MIN) || v > (cn_i128)(MAX)))            \
            cn_fail_total(f, l, c, what, #T);                                 \
        return (C)v;                                                          \
    }
#define CN_PAR_FIT_U(T, C, BITS, MAX)                                         \
    static inline CN_HD C cn_par_fit_##T(cn_i128 v, const char *what, const char *f, int l, int c) \
    {                                                                         \
        if (CN_UNLIKELY(v < 0 || v > (cn_i128)(MAX)))                         \
            cn_fail_total(f, l, c, what, #T);                                 \
        return (C)v;                                                          \
    }
CN_SIGNED_TYPES(CN_PAR_FIT_S)
CN_UNSIGNED_TYPES(CN_PAR_FIT_U)
#undef CN_PAR_FIT_S
#undef CN_PAR_FIT_U

/* A device scan's checked + keeps wrapped prefixes (the emitter's
 * ACC_WRAP): cn_par_step_T(before, after, ...) is the prefix `after`,
 * guarded when the step from `before` overflowed. The step's term is
 * after - before, exactly (a term is a T); when `before` is exact, as every
 * prefix before the first that does not fit is, the step overflows exactly
 * when that prefix does not fit. So the first such prefix traps, and none
 * does when every prefix fits. */
#define CN_PAR_STEP_S(T, C, U, BITS, MIN, MAX)                                \
    static inline CN_HD bool cn_par_step_over_##T(C b, C a)                   \
    {                                                                         \
        C y = (C)(U)((U)a - (U)b);                                            \
        return ((b ^ a) & (y ^ a)) < 0;                                       \
    }                                                                         \
    static inline CN_HD C cn_par_step_##T(C b, C a, const char *what, const char *f, int l, int c) \
    {                                                                         \
        if (CN_UNLIKELY(cn_par_step_over_##T(b, a)))                          \
            cn_fail_total(f, l, c, what, #T);                                 \
        return a;                                                             \
    }
#define CN_PAR_STEP_U(T, C, BITS, MAX)                                        \
    static inline CN_HD bool cn_par_step_over_##T(C b, C a) { return a < b; } \
    static inline CN_HD C cn_par_step_##T(C b, C a, const char *what, const char *f, int l, int c) \
    {                                                                         \
        if (CN_UNLIKELY(cn_par_step_over_##T(b, a)))                          \
            cn_fail_total(f, l, c, what, #T);                                 \
        return a;                                                             \
    }
CN_SIGNED_TYPES(CN_PAR_STEP_S)
CN_UNSIGNED_TYPES(CN_PAR_STEP_U)
#undef CN_PAR_STEP_S
#undef CN_PAR_STEP_U

/* ---------------------------------------------- checked integer products */

/* The exact product's zero-ness, sign, and magnitude up to 2^64 + 1 (any
 * larger magnitude is held as CN_PMUL_BIG, which fits no 64-bit type). */
typedef struct {
    int zero, neg;
    unsigned __int128 mag;
} cn_pmul;

#define CN_PMUL_BIG (((unsigned __int128)1 << 64) + 1)

static inline CN_HD cn_pmul cn_pmul_one(void)
{
    cn_pmul p;
    p.zero = 0;
    p.neg = 0;
    p.mag = 1;
    return p;
}

static inline CN_HD void cn_pmul_mag(cn_pmul *p, unsigned __int128 m)
{
    if (p->mag >= CN_PMUL_BIG || m >= CN_PMUL_BIG) {
        p->mag = CN_PMUL_BIG;
        return;
    }
    /* both at most 2^64 + 1: compare before multiplying */
    if (m != 0 && p->mag > CN_PMUL_BIG / m)
        p->mag = CN_PMUL_BIG;
    else
        p->mag *= m;
    if (p->mag > CN_PMUL_BIG)
        p->mag = CN_PMUL_BIG;
}

static inline CN_HD void cn_pmul_add_s(cn_pmul *p, long long v)
{
    if (v == 0) {
        p->zero = 1;
        return;
    }
    if (v < 0)
        p->neg ^= 1;
    cn_pmul_mag(p, v < 0 ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v);
}

static inline CN_HD void cn_pmul_add_u(cn_pmul *p, unsigned long long v)
{
    if (v == 0) {
        p->zero = 1;
        return;
    }
    cn_pmul_mag(p, (unsigned __int128)v);
}

static inline CN_HD void cn_pmul_merge(cn_pmul *p, cn_pmul q)
{
    p->zero |= q.zero;
    p->neg ^= q.neg;
    cn_pmul_mag(p, q.mag);
}

static inline CN_HD cn_i128 cn_pmul_value(cn_pmul p)
{
    if (p.zero)
        return 0;
    if (p.mag > ((unsigned __int128)1 << 64))
        return p.neg ? -((cn_i128)1 << 100) : ((cn_i128)1 << 100);   /* fits nothing */
    return p.neg ? -(cn_i128)p.mag : (cn_i128)p.mag;
}

#include "cairn_atomic.h" /* cn_atomic_OP_T: the atomics, in lanes and regions */

#endif
