/*
 * cairn_wide.h: wide loads and stores, load_wide[K](x, i[, hint]) and
 * store_wide(x, i, v[, hint]) (docs/devices.md, "Wide loads and stores").
 * A program that makes one includes this after cairn_rt.h.
 *
 * Every access first checks two guards, on every machine, in this order:
 *   - bounds: x[i .. i + K] lies inside x (i <= n and K <= n - i, so nothing
 *     overflows);
 *   - alignment: the address of x[i] is a multiple of K * sizeof(T) bytes.
 *     PTX leaves a misaligned vector access undefined, and a view may start
 *     anywhere its element's alignment allows (an offset part x[1..]), so
 *     the host checks it too: a host or emulated run traps where the device
 *     would. Every allocation a view can come from starts on at least 16
 *     bytes (malloc, cudaMalloc, a block's 128-byte-aligned shared arrays),
 *     so a guard fails on every machine for the same program.
 * A failed guard prints `FILE:LINE:COL: guard failed: ...` as every guard
 * does (cairn_rt.h), and traps the kernel on the device.
 *
 * Then the access:
 *   - on the device, a view of global memory (@device, @unified): one vector
 *     access of K * sizeof(T) bytes (16: v4.u32, 8: v2.u32, 4, 2, 1) with the
 *     hint's cache operator, through CUDA's cache-hinted loads and stores,
 *     which are exactly those instructions: __ldcg (.cg), __ldcs (.cs),
 *     __ldlu (.lu), __ldg (.nc), __stcg, __stcs. Cache.all is a plain access
 *     of the vector type (ld.global.v4.u32, PTX's default operator): the
 *     explicit __ldca / __stwb compile to LDG.E.STRONG.SM on sm_90a, an access
 *     ordered more strongly than the default LDG.E.128. The bytes move
 *     through a vector register value and memcpy, which nvcc keeps in
 *     registers;
 *   - on the device, a block's shared array: one plain vector access (there
 *     are no caches to hint);
 *   - on the host, on the pool and emulated: K ordinary loads or stores of
 *     T, the hint ignored.
 * `hint` and `global` are constants at every call the compiler writes, so
 * after inlining only one instruction is left.
 */
#ifndef CAIRN_WIDE_H
#define CAIRN_WIDE_H

#include "cairn_rt.h"

/* The hints, as src/wide.h numbers them (WIDE_HINTS). */
enum { CN_CACHE_ALL, CN_CACHE_L2, CN_CACHE_STREAMING, CN_CACHE_LAST_USE, CN_CACHE_READ_ONLY };

#ifdef __CUDACC__
#define CN_WIDE_INLINE static __forceinline__ CN_HD
#else
#define CN_WIDE_INLINE static inline
#endif

/* ------------------------------------------------------------ the guards */

CN_COLD static CN_HD void cn_fail_wide_bounds(const char *file, int line, int col, bool store,
                                              unsigned long long i, unsigned long long k, const char *name,
                                              unsigned long long n)
{
    CN_GUARD(file, line, col, "wide %s of %llu elements at index %llu out of bounds for %s of length %llu",
             store ? "store" : "load", k, i, name, n);
}

CN_COLD static CN_HD void cn_fail_wide_align(const char *file, int line, int col, bool store,
                                             unsigned long long i, unsigned long long k, const char *name,
                                             unsigned off, unsigned bytes)
{
    CN_GUARD(file, line, col,
             "wide %s of %llu elements at index %llu of %s not aligned to %u bytes (%s[%llu] lies %u bytes past a "
             "multiple of %u)",
             store ? "store" : "load", k, i, name, bytes, name, i, off, bytes);
}

/* x[i .. i + k] inside x's n elements, and x[i] on a multiple of k * size
 * bytes (k * size a power of two). */
CN_WIDE_INLINE void cn_wide_guard(const void *p, size_t n, size_t i, size_t k, size_t size, bool store,
                                  const char *name, const char *f, int l, int c)
{
    if (CN_UNLIKELY(i > n || k > n - i))
        cn_fail_wide_bounds(f, l, c, store, i, k, name, n);
    size_t bytes = k * size;
    uintptr_t off = ((uintptr_t)p + i * size) & (uintptr_t)(bytes - 1);
    if (CN_UNLIKELY(off != 0))
        cn_fail_wide_align(f, l, c, store, i, k, name, (unsigned)off, (unsigned)bytes);
}

/* --------------------------------------------------- the device's access */

#ifdef __CUDA_ARCH__
/* One load or store of a vector type V with the hint's operator. */
#define CN_WIDE_DEV(V)                                                                      \
    static __device__ __forceinline__ V cn_wide_ld_##V(const V *p, int hint, bool global)   \
    {                                                                                       \
        if (!global)                                                                        \
            return *p;                                                                      \
        switch (hint) {                                                                     \
        case CN_CACHE_L2: return __ldcg(p);                                                 \
        case CN_CACHE_STREAMING: return __ldcs(p);                                          \
        case CN_CACHE_LAST_USE: return __ldlu(p);                                           \
        case CN_CACHE_READ_ONLY: return __ldg(p);                                           \
        default: return *p;                                                                 \
        }                                                                                   \
    }                                                                                       \
    static __device__ __forceinline__ void cn_wide_st_##V(V *p, V v, int hint, bool global) \
    {                                                                                       \
        if (!global) {                                                                      \
            *p = v;                                                                         \
            return;                                                                         \
        }                                                                                   \
        switch (hint) {                                                                     \
        case CN_CACHE_L2: __stcg(p, v); return;                                             \
        case CN_CACHE_STREAMING: __stcs(p, v); return;                                      \
        default: *p = v; return;                                                            \
        }                                                                                   \
    }
typedef unsigned char cn_wide_u8;
typedef unsigned short cn_wide_u16;
typedef unsigned int cn_wide_u32;
CN_WIDE_DEV(uint4)
CN_WIDE_DEV(uint2)
CN_WIDE_DEV(cn_wide_u32)
CN_WIDE_DEV(cn_wide_u16)
CN_WIDE_DEV(cn_wide_u8)
#undef CN_WIDE_DEV

/* `bytes` (1 to 16, a power of two) from src to dst in one access of src. */
static __device__ __forceinline__ void cn_wide_ld_dev(void *dst, const void *src, size_t bytes, int hint, bool global)
{
#define CN_WIDE_CASE(N, V)                                                \
    case N: {                                                             \
        V r = cn_wide_ld_##V((const V *)src, hint, global);               \
        memcpy(dst, &r, N);                                               \
        return;                                                           \
    }
    switch (bytes) {
    CN_WIDE_CASE(16, uint4)
    CN_WIDE_CASE(8, uint2)
    CN_WIDE_CASE(4, cn_wide_u32)
    CN_WIDE_CASE(2, cn_wide_u16)
    default: CN_WIDE_CASE(1, cn_wide_u8)
    }
#undef CN_WIDE_CASE
}

/* ... and to dst in one access of dst. */
static __device__ __forceinline__ void cn_wide_st_dev(void *dst, const void *src, size_t bytes, int hint, bool global)
{
#define CN_WIDE_CASE(N, V)                                                \
    case N: {                                                             \
        V r;                                                              \
        memcpy(&r, src, N);                                               \
        cn_wide_st_##V((V *)dst, r, hint, global);                        \
        return;                                                           \
    }
    switch (bytes) {
    CN_WIDE_CASE(16, uint4)
    CN_WIDE_CASE(8, uint2)
    CN_WIDE_CASE(4, cn_wide_u32)
    CN_WIDE_CASE(2, cn_wide_u16)
    default: CN_WIDE_CASE(1, cn_wide_u8)
    }
#undef CN_WIDE_CASE
}
#endif

/* ------------------------------------------------- one function per type */

/* cn_wide_load_T(v, i, k, dst, hint, global, name, at): dst[0 .. k) = v[i ..
 * i + k); cn_wide_store_T(v, i, k, src, ...): the other way. */
#ifdef __CUDA_ARCH__
#define CN_WIDE_MOVE_LD(C) cn_wide_ld_dev(dst, v.p + i, k * sizeof(C), hint, global)
#define CN_WIDE_MOVE_ST(C) cn_wide_st_dev(v.p + i, src, k * sizeof(C), hint, global)
#else
#define CN_WIDE_MOVE_LD(C)                                                \
    do {                                                                  \
        (void)hint;                                                       \
        (void)global;                                                     \
        for (size_t j = 0; j < k; j++)                                    \
            dst[j] = v.p[i + j];                                          \
    } while (0)
#define CN_WIDE_MOVE_ST(C)                                                \
    do {                                                                  \
        (void)hint;                                                       \
        (void)global;                                                     \
        for (size_t j = 0; j < k; j++)                                    \
            v.p[i + j] = src[j];                                          \
    } while (0)
#endif

#define CN_DEF_WIDE(T, C)                                                                      \
    CN_WIDE_INLINE void cn_wide_load_##T(cn_view_##T v, size_t i, size_t k, C *dst, int hint,  \
                                         bool global, const char *name, const char *f, int l,  \
                                         int c)                                                \
    {                                                                                          \
        cn_wide_guard(v.p, v.n, i, k, sizeof(C), false, name, f, l, c);                        \
        CN_WIDE_MOVE_LD(C);                                                                    \
    }                                                                                          \
    CN_WIDE_INLINE void cn_wide_store_##T(cn_view_##T v, size_t i, size_t k, const C *src,     \
                                          int hint, bool global, const char *name,             \
                                          const char *f, int l, int c)                         \
    {                                                                                          \
        cn_wide_guard(v.p, v.n, i, k, sizeof(C), true, name, f, l, c);                         \
        CN_WIDE_MOVE_ST(C);                                                                    \
    }
CN_ELEM_TYPES(CN_DEF_WIDE)
#undef CN_DEF_WIDE
#undef CN_WIDE_MOVE_LD
#undef CN_WIDE_MOVE_ST

#endif
