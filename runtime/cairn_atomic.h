/*
 * cairn_atomic.h: the atomic updates (concurrency.md, "Atomics";
 * numerics.md, "Atomic float addition"), included by cairn_par.h.
 *
 * Header-only, C17 and C++17, every function static inline, no global
 * state. Each update returns the element's old value; T is the element's
 * type suffix (i8 .. u64, usize, bool for cas, f32 and f64 for add_unordered):
 *
 *   cn_atomic_OP_T(p, v)            in a lane, on the host or a device, and in
 *                                   a region on host threads: seq_cst
 *   cn_atomic_cas_T(p, e, d)        ... the compare-and-swap
 *   cn_atomic_shared_OP_T(p, v)     in a region on the device, on a shared
 *                                   array: a shared-memory atomic (atom.shared)
 *   cn_atomic_relaxed_OP_T(p, v)    ... on an outside array: relaxed, at device
 *                                   scope
 *
 * OP is add_wrap, min, max, and, or, xor or add_unordered. Outside nvcc's
 * device pass the shared and relaxed forms are the lane's (an emulated
 * region runs on host threads).
 */
#ifndef CAIRN_ATOMIC_H
#define CAIRN_ATOMIC_H

#include "cairn_rt.h"

/* -------------------------------------------------------- in lanes */

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

/* ------------------------------------------------- in a device region */

/* A cooperative region on the device (src/emit_coop.c) updates a shared
 * array with shared-memory atomics and an outside array with relaxed ones.
 *
 * Relaxed order is enough in a region, where a lane needs seq_cst: the
 * phase rule lets no thread read, in the phase of a write, an element
 * another thread writes (E-COOP-UNORDERED), and an array updated atomically
 * is touched no other way in its phase (a shared one) or its region (an
 * outside one: E-ATOMIC-MIXED). So an atomic update hands nothing over to
 * another thread; what the barrier (bar.sync orders the block's memory) and
 * the finish's fence order is all that is ever read. A seq_cst update would
 * add a fence.sc.gpu before each atomic.
 *
 * A shared array's update is inline PTX on its 32-bit address in the shared
 * window (__cvta_generic_to_shared), so it is atom.shared whatever the
 * compiler infers about the pointer:
 *   - 32- and 64-bit integers: one atom.shared.add/min/max/and/or/xor/cas;
 *   - 8- and 16-bit integers and bool: a compare-and-swap loop on the
 *     aligned 32-bit word that holds the element. The other bytes of the word
 *     are elements of the same array (updated only atomically in this phase)
 *     or the padding before the next 128-byte boundary, and the loop writes
 *     them back as it found them;
 *   - f64: atom.shared.add.f64, which keeps subnormals;
 *   - f32: a compare-and-swap loop around add.rn.ftz.f32. PTX says
 *     atom.add.f32 flushes subnormal operands and results, but shared memory
 *     has no float adder: ptxas writes a loop around an FADD of its choosing,
 *     and shared f32 atomics have been reported to keep subnormals where
 *     global ones (RED.ADD.F32.FTZ) flush them. With the loop written here
 *     the flush is the language's (numerics.md: "on the device an f32 add
 *     also flushes a subnormal operand or result to zero"), in shared memory
 *     as in global memory, whatever ptxas picks. */

/* The update of an 8- or 16-bit element inside its aligned 32-bit word,
 * which a device compare-and-swap loop applies (below): the word after the
 * update of the `bits`-wide field at bit `sh` of w by op with the new
 * bits v (and, for a cas, the expected bits e), and the field's old bits in
 * *old. Plain integer code, so the suite checks it on the host for every
 * pair of 8-bit values at every position (tests/coop/test_coop_atomics.sh). */
enum { CN_SUB_ADD, CN_SUB_MIN, CN_SUB_MAX, CN_SUB_AND, CN_SUB_OR, CN_SUB_XOR, CN_SUB_CAS };

static CN_HD inline int64_t cn_subword_num(uint32_t f, unsigned bits, bool sgn)
{
    return sgn ? (int64_t)((int32_t)(f << (32 - bits)) >> (32 - bits)) : (int64_t)f;
}

static CN_HD inline uint32_t cn_subword_update(uint32_t w, unsigned sh, unsigned bits, bool sgn, int op, uint32_t v,
                                               uint32_t e, uint32_t *old)
{
    uint32_t low = (1u << bits) - 1, m = low << sh, f = (w & m) >> sh, r;
    v &= low;
    e &= low;
    switch (op) {
    case CN_SUB_ADD: r = f + v; break;
    case CN_SUB_MIN: r = cn_subword_num(v, bits, sgn) < cn_subword_num(f, bits, sgn) ? v : f; break;
    case CN_SUB_MAX: r = cn_subword_num(v, bits, sgn) > cn_subword_num(f, bits, sgn) ? v : f; break;
    case CN_SUB_AND: r = f & v; break;
    case CN_SUB_OR: r = f | v; break;
    case CN_SUB_XOR: r = f ^ v; break;
    default: r = f == e ? v : f; break;
    }
    *old = f;
    return (w & ~m) | ((r << sh) & m);
}

#if defined(__CUDA_ARCH__)
#define CN_DEV_RLX cuda::std::memory_order_relaxed

static __device__ inline uint32_t cn_shs_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

static __device__ inline uint32_t cn_shs_load32(uint32_t a)
{
    uint32_t v;
    asm volatile("ld.relaxed.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
    return v;
}

static __device__ inline uint32_t cn_shs_cas32(uint32_t a, uint32_t expected, uint32_t desired)
{
    uint32_t old;
    asm volatile("atom.shared.cas.b32 %0, [%1], %2, %3;" : "=r"(old) : "r"(a), "r"(expected), "r"(desired) : "memory");
    return old;
}

/* One update of the `bits`-wide field at p (v and e its new bits), by a
 * compare-and-swap on its word. An update that leaves the word as the load
 * found it (a min that loses, a failed cas) writes nothing: the load is its
 * moment. Returns the field's old bits. */
static __device__ inline uint32_t cn_shs_sub(const void *p, unsigned bits, bool sgn, int op, uint32_t v, uint32_t e)
{
    uint32_t a = cn_shs_addr(p), w = a & ~3u, sh = (a & 3u) * 8;
    uint32_t cur = cn_shs_load32(w);
    for (;;) {
        uint32_t f, next = cn_subword_update(cur, sh, bits, sgn, op, v, e, &f);
        if (next == cur)
            return f;
        uint32_t seen = cn_shs_cas32(w, cur, next);
        if (seen == cur)
            return f;
        cur = seen;
    }
}

#define CN_SHS_SUB(T, C, BITS, SGN)                                           \
    static __device__ inline C cn_shs_add_wrap_##T(C *p, C v) { return (C)cn_shs_sub(p, BITS, SGN, CN_SUB_ADD, (uint32_t)v, 0); } \
    static __device__ inline C cn_shs_min_##T(C *p, C v) { return (C)cn_shs_sub(p, BITS, SGN, CN_SUB_MIN, (uint32_t)v, 0); } \
    static __device__ inline C cn_shs_max_##T(C *p, C v) { return (C)cn_shs_sub(p, BITS, SGN, CN_SUB_MAX, (uint32_t)v, 0); } \
    static __device__ inline C cn_shs_and_##T(C *p, C v) { return (C)cn_shs_sub(p, BITS, SGN, CN_SUB_AND, (uint32_t)v, 0); } \
    static __device__ inline C cn_shs_or_##T(C *p, C v) { return (C)cn_shs_sub(p, BITS, SGN, CN_SUB_OR, (uint32_t)v, 0); } \
    static __device__ inline C cn_shs_xor_##T(C *p, C v) { return (C)cn_shs_sub(p, BITS, SGN, CN_SUB_XOR, (uint32_t)v, 0); } \
    static __device__ inline C cn_shs_cas_##T(C *p, C e, C d) { return (C)cn_shs_sub(p, BITS, SGN, CN_SUB_CAS, (uint32_t)d, (uint32_t)e); }
CN_SHS_SUB(i8, int8_t, 8, true)
CN_SHS_SUB(u8, uint8_t, 8, false)
CN_SHS_SUB(i16, int16_t, 16, true)
CN_SHS_SUB(u16, uint16_t, 16, false)
#undef CN_SHS_SUB

static __device__ inline bool cn_shs_cas_bool(bool *p, bool e, bool d)
{
    return cn_shs_sub(p, 8, false, CN_SUB_CAS, d ? 1u : 0u, e ? 1u : 0u) != 0;
}

/* One instruction: atom.shared.OP.TY with the register kind R ("r": 32
 * bits, "l": 64, "d": f64), the operand as the unsigned U of its width. */
#define CN_SHS_ONE(NAME, T, C, U, R, OP, TY)                                  \
    static __device__ inline C cn_shs_##NAME##_##T(C *p, C v)                 \
    {                                                                         \
        U old;                                                                \
        asm volatile("atom.shared." OP "." TY " %0, [%1], %2;" : "=" R(old) : "r"(cn_shs_addr(p)), R((U)v) : "memory"); \
        return (C)old;                                                        \
    }
#define CN_SHS_INT(T, C, U, R, BITS, S)                                       \
    CN_SHS_ONE(add_wrap, T, C, U, R, "add", "u" BITS)                         \
    CN_SHS_ONE(min, T, C, U, R, "min", S BITS)                                \
    CN_SHS_ONE(max, T, C, U, R, "max", S BITS)                                \
    CN_SHS_ONE(and, T, C, U, R, "and", "b" BITS)                              \
    CN_SHS_ONE(or, T, C, U, R, "or", "b" BITS)                                \
    CN_SHS_ONE(xor, T, C, U, R, "xor", "b" BITS)                              \
    static __device__ inline C cn_shs_cas_##T(C *p, C e, C d)                 \
    {                                                                         \
        U old;                                                                \
        asm volatile("atom.shared.cas.b" BITS " %0, [%1], %2, %3;"            \
                     : "=" R(old) : "r"(cn_shs_addr(p)), R((U)e), R((U)d) : "memory"); \
        return (C)old;                                                        \
    }
CN_SHS_INT(i32, int32_t, uint32_t, "r", "32", "s")
CN_SHS_INT(u32, uint32_t, uint32_t, "r", "32", "u")
CN_SHS_INT(i64, int64_t, unsigned long long, "l", "64", "s")
CN_SHS_INT(u64, uint64_t, unsigned long long, "l", "64", "u")
CN_SHS_INT(usize, size_t, unsigned long long, "l", "64", "u")
#undef CN_SHS_INT

CN_SHS_ONE(add_unordered, f64, double, double, "d", "add", "f64")
#undef CN_SHS_ONE

static __device__ inline float cn_shs_add_unordered_f32(float *p, float v)
{
    uint32_t a = cn_shs_addr(p), cur = cn_shs_load32(a);
    for (;;) {
        float o = __uint_as_float(cur), s;
        asm("add.rn.ftz.f32 %0, %1, %2;" : "=f"(s) : "f"(o), "f"(v));
        uint32_t seen = cn_shs_cas32(a, cur, __float_as_uint(s));
        if (seen == cur)
            return o;
        cur = seen;
    }
}
#endif

/* The functions the emitted region calls: on the device the above, and
 * libcu++'s relaxed atomic_ref for an outside array (atom.OP.relaxed.gpu,
 * or its loop for 8 and 16 bits; an f32 add is the global float atomic,
 * which flushes as a lane's does); elsewhere the lane's update. */
#if defined(__CUDA_ARCH__)
#define CN_RGN_UPDATE(NAME, T, C, DEV)                                        \
    static CN_HD inline C cn_atomic_shared_##NAME##_##T(C *p, C v) { return cn_shs_##NAME##_##T(p, v); } \
    static CN_HD inline C cn_atomic_relaxed_##NAME##_##T(C *p, C v) { return CN_DEV_ATOMIC_REF(C, p).DEV(v, CN_DEV_RLX); }
#define CN_RGN_CAS(T, C)                                                      \
    static CN_HD inline C cn_atomic_shared_cas_##T(C *p, C e, C d) { return cn_shs_cas_##T(p, e, d); } \
    static CN_HD inline C cn_atomic_relaxed_cas_##T(C *p, C e, C d)           \
    {                                                                         \
        CN_DEV_ATOMIC_REF(C, p).compare_exchange_strong(e, d, CN_DEV_RLX);    \
        return e;                                                             \
    }
#else
#define CN_RGN_UPDATE(NAME, T, C, DEV)                                        \
    static CN_HD inline C cn_atomic_shared_##NAME##_##T(C *p, C v) { return cn_atomic_##NAME##_##T(p, v); } \
    static CN_HD inline C cn_atomic_relaxed_##NAME##_##T(C *p, C v) { return cn_atomic_##NAME##_##T(p, v); }
#define CN_RGN_CAS(T, C)                                                      \
    static CN_HD inline C cn_atomic_shared_cas_##T(C *p, C e, C d) { return cn_atomic_cas_##T(p, e, d); } \
    static CN_HD inline C cn_atomic_relaxed_cas_##T(C *p, C e, C d) { return cn_atomic_cas_##T(p, e, d); }
#endif
#define CN_RGN_INT(T, C)                                                      \
    CN_RGN_UPDATE(add_wrap, T, C, fetch_add)                                  \
    CN_RGN_UPDATE(min, T, C, fetch_min)                                       \
    CN_RGN_UPDATE(max, T, C, fetch_max)                                       \
    CN_RGN_UPDATE(and, T, C, fetch_and)                                       \
    CN_RGN_UPDATE(or, T, C, fetch_or)                                         \
    CN_RGN_UPDATE(xor, T, C, fetch_xor)                                       \
    CN_RGN_CAS(T, C)
CN_RGN_INT(i8, int8_t)
CN_RGN_INT(i16, int16_t)
CN_RGN_INT(i32, int32_t)
CN_RGN_INT(i64, int64_t)
CN_RGN_INT(u8, uint8_t)
CN_RGN_INT(u16, uint16_t)
CN_RGN_INT(u32, uint32_t)
CN_RGN_INT(u64, uint64_t)
CN_RGN_INT(usize, size_t)
CN_RGN_CAS(bool, bool)
CN_RGN_UPDATE(add_unordered, f32, float, fetch_add)
CN_RGN_UPDATE(add_unordered, f64, double, fetch_add)
#undef CN_RGN_INT
#undef CN_RGN_UPDATE
#undef CN_RGN_CAS

#endif
