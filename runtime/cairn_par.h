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
 *   cn_atomic_OP_T(p, v)             atomics on an element: seq_cst, old value
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

/* --------------------------------------------------------------- atomics */

/* Every update is sequentially consistent: an atomic counter handed out in
 * a region (a histogram bin, a slot index) must not be reordered with the
 * plain accesses around it, and relaxed order would allow that. Each
 * returns the element's old value. Signed integers wrap (the __atomic
 * builtins are two's complement, and so are the device's).
 *
 * In a device lane (nvcc's device pass, __CUDA_ARCH__) the same update goes
 * through libcu++'s cuda::atomic_ref at device scope, seq_cst: atom.add and
 * its kin, or a compare-and-swap loop where PTX has no instruction for the
 * width. A float add there is atom.add.f32/.f64, which flushes an f32
 * subnormal (numerics.md). */
#if defined(__CUDACC__)
#include <cuda/atomic>
#define CN_DEV_ATOMIC_REF(C, p) cuda::atomic_ref<C, cuda::thread_scope_device>(*(p))
#define CN_DEV_SEQ cuda::std::memory_order_seq_cst
#endif
#if defined(__CUDA_ARCH__)
#define CN_PAR_ATOMIC_RMW(C, p, v, dev, host) return CN_DEV_ATOMIC_REF(C, p).dev(v, CN_DEV_SEQ)
#else
#define CN_PAR_ATOMIC_RMW(C, p, v, dev, host) return host(p, v, __ATOMIC_SEQ_CST)
#endif

#if defined(__CUDA_ARCH__)
#define CN_PAR_ATOMIC_CAS(C, p, expected, desired)                            \
    CN_DEV_ATOMIC_REF(C, p).compare_exchange_strong(expected, desired, CN_DEV_SEQ); \
    return expected
#define CN_PAR_ATOMIC_MINMAX(C, p, v, dev, cmp) return CN_DEV_ATOMIC_REF(C, p).dev(v, CN_DEV_SEQ)
#else
#define CN_PAR_ATOMIC_CAS(C, p, expected, desired)                            \
    __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    return expected
#define CN_PAR_ATOMIC_MINMAX(C, p, v, dev, cmp)                               \
    C old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                             \
    while (v cmp old && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) \
        ;                                                                     \
    return old
#endif

#define CN_PAR_ATOMIC_INT(T, C)                                               \
    static CN_HD inline C cn_atomic_add_wrap_##T(C *p, C v) { CN_PAR_ATOMIC_RMW(C, p, v, fetch_add, __atomic_fetch_add); } \
    static CN_HD inline C cn_atomic_and_##T(C *p, C v) { CN_PAR_ATOMIC_RMW(C, p, v, fetch_and, __atomic_fetch_and); } \
    static CN_HD inline C cn_atomic_or_##T(C *p, C v) { CN_PAR_ATOMIC_RMW(C, p, v, fetch_or, __atomic_fetch_or); } \
    static CN_HD inline C cn_atomic_xor_##T(C *p, C v) { CN_PAR_ATOMIC_RMW(C, p, v, fetch_xor, __atomic_fetch_xor); } \
    static CN_HD inline C cn_atomic_cas_##T(C *p, C expected, C desired) { CN_PAR_ATOMIC_CAS(C, p, expected, desired); } \
    static CN_HD inline C cn_atomic_min_##T(C *p, C v) { CN_PAR_ATOMIC_MINMAX(C, p, v, fetch_min, <); } \
    static CN_HD inline C cn_atomic_max_##T(C *p, C v) { CN_PAR_ATOMIC_MINMAX(C, p, v, fetch_max, >); }
CN_PAR_ATOMIC_INT(i8, int8_t)
CN_PAR_ATOMIC_INT(i16, int16_t)
CN_PAR_ATOMIC_INT(i32, int32_t)
CN_PAR_ATOMIC_INT(i64, int64_t)
CN_PAR_ATOMIC_INT(u8, uint8_t)
CN_PAR_ATOMIC_INT(u16, uint16_t)
CN_PAR_ATOMIC_INT(u32, uint32_t)
CN_PAR_ATOMIC_INT(u64, uint64_t)
CN_PAR_ATOMIC_INT(usize, size_t)
#undef CN_PAR_ATOMIC_INT

static CN_HD inline bool cn_atomic_cas_bool(bool *p, bool expected, bool desired)
{
    CN_PAR_ATOMIC_CAS(bool, p, expected, desired);
}
#undef CN_PAR_ATOMIC_RMW
#undef CN_PAR_ATOMIC_CAS
#undef CN_PAR_ATOMIC_MINMAX

/* A float add in whatever order the lanes arrive: on the host a
 * compare-and-swap loop on the bits, each add rounded once; in a device
 * lane the device's atomic add. */
#if defined(__CUDA_ARCH__)
#define CN_PAR_ATOMIC_FLOAT(T, C, B)                                          \
    static CN_HD inline C cn_atomic_add_unordered_##T(C *p, C v)              \
    {                                                                         \
        return CN_DEV_ATOMIC_REF(C, p).fetch_add(v, CN_DEV_SEQ);              \
    }
#else
#define CN_PAR_ATOMIC_FLOAT(T, C, B)                                          \
    static CN_HD inline C cn_atomic_add_unordered_##T(C *p, C v)              \
    {                                                                         \
        B *q = (B *)(void *)p;                                                \
        B old = __atomic_load_n(q, __ATOMIC_SEQ_CST), nw;                     \
        C o, s;                                                               \
        do {                                                                  \
            memcpy(&o, &old, sizeof o);                                       \
            s = o + v;                                                        \
            memcpy(&nw, &s, sizeof nw);                                       \
        } while (!__atomic_compare_exchange_n(q, &old, nw, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)); \
        return o;                                                             \
    }
#endif
CN_PAR_ATOMIC_FLOAT(f32, float, uint32_t)
CN_PAR_ATOMIC_FLOAT(f64, double, uint64_t)
#undef CN_PAR_ATOMIC_FLOAT

#endif
