/*
 * cairn_devsum.h: `reduce + parallel` over f32 and f64 on the device, exact:
 * the exact sum of the terms rounded once to nearest-even, the same bits as
 * the host's (cairn_sum.h), on every machine, for every input (numerics.md
 * in our docs, "The exact sum on the device"). Included by cairn_exec.h.
 *
 * The emitted program writes two functions of its context struct ARGS:
 *
 *   TERM(ARGS *c, j, T *r)     r = the term at index j
 *   STORE(ARGS *c, T v)        store the rounded total
 *
 * and CN_DEV_EXACT_SUM32 / CN_DEV_EXACT_SUM64(NAME, ARGS, TERM, STORE)
 * defines NAME_run(x, args), which queues the sum. ARGS has cn_n, cn_P
 * (cn_dev_xsum_parts) and cn_part (cn_dev_xsum_bytes of scratch).
 *
 * On the CUDA machine, in two passes over P contiguous parts:
 *
 *   f32: each thread keeps 16 doubles in shared memory, one for each
 *   sixteen binades of f32's exponent (the top four bits of the exponent
 *   field pick it). Every f32 in bin b is a whole multiple of 2^(16b-150)
 *   below 2^(16b-111), so a double adds up to 2^14 of them exactly (their
 *   sum stays below 2^53 units); every 2^14 terms the thread moves each bin
 *   into a 64-bit integer limb of weight 2^(16b) units of 2^-150 and
 *   carries the limbs. Per term: the bin's index, a conversion, and an add.
 *   The bins start at -0.0, so a bin that is still -0.0 saw only -0.0
 *   terms; an infinity or a NaN makes the top bin's double non-finite.
 *
 *   f64: each thread keeps the exact total itself, 68 digits of 32 bits in
 *   a column of shared memory (cairn_sum.h's cn_sum_acc, strided): each
 *   term is three integer adds. The cost does not depend on the terms.
 *
 * The block adds its threads' limbs or digits as integers, the second pass
 * adds the parts' and rounds with cairn_sum.h's cn_sum_acc_round: integer
 * addition in any order, so the result does not depend on the grid.
 *
 * Emulated, the passes use the host's own exact sum (cn_sum32, cn_sum64),
 * part by part, merged in order.
 */
#ifndef CAIRN_DEVSUM_H
#define CAIRN_DEVSUM_H

#include "cairn_sum.h"

/* The part of an f32 sum on the CUDA machine: the block's limbs. */
struct cn_dsum32_part {
    int64_t limb[CN_DSUM32_BINS];
    uint32_t flags;
};

#if CN_DEV_CUDA
#define CN_DSUM32_PART struct cn_dsum32_part
#define CN_DSUM64_PART cn_sum_acc
#define CN_DSUM32_PARTS_MAX ((size_t)512)
#define CN_DSUM64_PARTS_MAX ((size_t)1024)
#else
#define CN_DSUM32_PART cn_sum32
#define CN_DSUM64_PART cn_sum64
#define CN_DSUM32_PARTS_MAX CN_DEV_PARTS_MAX
#define CN_DSUM64_PARTS_MAX CN_DEV_PARTS_MAX
#endif

/* P, the parts of an exact sum of n terms (wide: f64). */
static inline size_t cn_dev_xsum_parts(size_t n, int wide)
{
    size_t per = CN_DEV_CUDA ? (wide ? CN_DSUM64_THREADS : CN_DSUM32_THREADS) : 1;
    size_t max = wide ? CN_DSUM64_PARTS_MAX : CN_DSUM32_PARTS_MAX;
    size_t p = n / per + (n % per != 0);
    if (p > max)
        p = max;
    /* a device f32 part holds at most 2^23 terms (its limbs' bound) */
    size_t least = CN_DEV_CUDA && !wide ? (n >> 23) + ((n & ((1u << 23) - 1)) != 0) : 0;
    return p > least ? p : least;
}

/* Its scratch: the P parts, then 16 bytes for the emitted code. */
static inline size_t cn_dev_xsum_bytes(size_t P, int wide)
{
    return cn_dev_round16(P * (wide ? sizeof(CN_DSUM64_PART) : sizeof(CN_DSUM32_PART)));
}

#if CN_DEV_CUDA

/* Pass 1, f32: block p folds part p into its threads' bins; every 2^14
 * terms, and at the end, a thread adds its bins into the block's limbs
 * (shared 64-bit atomics: a part has at most 2^23 terms, each adding less
 * than 2^39 units to a limb, so no limb passes 2^62); thread 0 carries the
 * limbs into the part. */
#define CN_DSUM32_FOLD_KERNEL(NAME, ARGS, TERM)                                                \
    static __global__ void __launch_bounds__(CN_DSUM32_THREADS) NAME##_fold_kernel(ARGS a, size_t n) \
    {                                                                                        \
        enum { T = CN_DSUM32_THREADS, U = 8 };                                               \
        __shared__ double cn_bins[CN_DSUM32_BINS * T];                                       \
        __shared__ int64_t cn_limb[CN_DSUM32_BINS];                                          \
        __shared__ uint32_t cn_fl;                                                           \
        const unsigned t = threadIdx.x;                                                      \
        const size_t lo = cn_part_lo(a.cn_n, a.cn_P, blockIdx.x), hi = cn_part_hi(a.cn_n, a.cn_P, blockIdx.x); \
        (void)n;                                                                             \
        for (unsigned b = 0; b < CN_DSUM32_BINS; b++)                                        \
            cn_bins[b * T + t] = -0.0;                                                       \
        if (t < CN_DSUM32_BINS)                                                              \
            cn_limb[t] = 0;                                                                  \
        if (t == 0)                                                                          \
            cn_fl = 0;                                                                       \
        __syncthreads();                                                                     \
        uint32_t flags = lo + t < hi ? CN_SUM_SAW_TERM : 0;                                  \
        unsigned cnt = 0;                                                                    \
        size_t j = lo + t;                                                                   \
        for (; j < hi && hi - j > (size_t)(U - 1) * T; j += (size_t)U * T) {                 \
            float y[U];                                                                      \
            _Pragma("unroll") for (unsigned u = 0; u < U; u++) TERM(&a, j + u * T, &y[u]);   \
            _Pragma("unroll") for (unsigned u = 0; u < U; u++) cn_dsum32_put(cn_bins + t, T, y[u]); \
            if ((cnt += U) > CN_DSUM32_FLUSH - 2 * U) {                                      \
                CN_DSUM32_SPILL(t);                                                          \
                cnt = 0;                                                                     \
            }                                                                                \
        }                                                                                    \
        for (; j < hi; j += T) {                                                             \
            float y;                                                                         \
            TERM(&a, j, &y);                                                                 \
            cn_dsum32_put(cn_bins + t, T, y);                                                \
        }                                                                                    \
        CN_DSUM32_SPILL(t);                                                                  \
        if (flags)                                                                           \
            atomicOr(&cn_fl, flags);                                                         \
        __syncthreads();                                                                     \
        if (t == 0) {                                                                        \
            struct cn_dsum32_part *out = &((struct cn_dsum32_part *)a.cn_part)[blockIdx.x];  \
            int64_t L[CN_DSUM32_BINS];                                                       \
            for (unsigned b = 0; b < CN_DSUM32_BINS; b++)                                    \
                L[b] = cn_limb[b];                                                           \
            cn_dsum32_carry(L);                                                              \
            for (unsigned b = 0; b < CN_DSUM32_BINS; b++)                                    \
                out->limb[b] = L[b];                                                         \
            out->flags = cn_fl;                                                              \
        }                                                                                    \
    }

/* A thread's bins into the block's limbs. */
#define CN_DSUM32_SPILL(t)                                                                     \
    for (int cn_b = 0; cn_b < CN_DSUM32_BINS; cn_b++) {                                      \
        int64_t cn_v = cn_dsum32_take(cn_bins + (t), T, cn_b, &flags);                       \
        if (cn_v)                                                                            \
            atomicAdd((unsigned long long *)&cn_limb[cn_b], (unsigned long long)cn_v);       \
    }

/* Pass 1, f64: block p adds part p's terms into its threads' digits. */
#define CN_DSUM64_FOLD_KERNEL(NAME, ARGS, TERM)                                                \
    static __global__ void __launch_bounds__(CN_DSUM64_THREADS) NAME##_fold_kernel(ARGS a, size_t n) \
    {                                                                                        \
        enum { T = CN_DSUM64_THREADS, U = 8 };                                               \
        __shared__ int64_t cn_dg[CN_SUM_DIGITS * T];                                         \
        __shared__ uint32_t cn_fl;                                                           \
        const unsigned t = threadIdx.x;                                                      \
        const size_t lo = cn_part_lo(a.cn_n, a.cn_P, blockIdx.x), hi = cn_part_hi(a.cn_n, a.cn_P, blockIdx.x); \
        (void)n;                                                                             \
        for (unsigned i = 0; i < CN_SUM_DIGITS; i++)                                         \
            cn_dg[i * T + t] = 0;                                                            \
        if (t == 0)                                                                          \
            cn_fl = 0;                                                                       \
        uint32_t flags = lo + t < hi ? CN_SUM_SAW_TERM : 0;                                  \
        unsigned long cnt = 0;                                                               \
        size_t j = lo + t;                                                                   \
        for (; hi - j > (size_t)(U - 1) * T && j < hi; j += (size_t)U * T) {                 \
            double y[U];                                                                     \
            _Pragma("unroll") for (unsigned u = 0; u < U; u++) TERM(&a, j + u * T, &y[u]);   \
            _Pragma("unroll") for (unsigned u = 0; u < U; u++) cn_dsum64_put(cn_dg + t, T, y[u], &flags); \
            if ((cnt += U) >= CN_SUM_CARRY_EVERY - 2 * U) {                                  \
                cn_dsum64_carry(cn_dg + t, T);                                               \
                cnt = 0;                                                                     \
            }                                                                                \
        }                                                                                    \
        for (; j < hi; j += T) {                                                             \
            double y;                                                                        \
            TERM(&a, j, &y);                                                                 \
            cn_dsum64_put(cn_dg + t, T, y, &flags);                                          \
        }                                                                                    \
        cn_dsum64_carry(cn_dg + t, T);                                                       \
        if (flags)                                                                           \
            atomicOr(&cn_fl, flags);                                                         \
        __syncthreads();                                                                     \
        cn_sum_acc *out = &((cn_sum_acc *)a.cn_part)[blockIdx.x];                            \
        for (unsigned i = t; i < CN_SUM_DIGITS; i += T) {                                    \
            int64_t s = 0;                                                                   \
            for (unsigned w = 0; w < T; w++)                                                 \
                s += cn_dg[i * T + w];                                                       \
            out->digit[i] = s;                                                               \
        }                                                                                    \
        if (t == 0) {                                                                        \
            out->pending = 0;                                                                \
            out->flags = cn_fl;                                                              \
        }                                                                                    \
    }

/* Pass 2: one block adds the parts and rounds. f32 parts hold limbs (a
 * thread a limb), f64 parts digits (a thread a digit); thread 0 carries the
 * total and rounds it. */
#define CN_DSUM_TOTAL_KERNEL(NAME, ARGS, T_, WIDE, STORE)                                      \
    static __global__ void __launch_bounds__(128) NAME##_total_kernel(ARGS a, size_t n)      \
    {                                                                                        \
        __shared__ cn_sum_acc cn_tot;                                                        \
        __shared__ uint32_t cn_fl;                                                           \
        const unsigned t = threadIdx.x;                                                      \
        (void)n;                                                                             \
        if (t == 0)                                                                          \
            cn_fl = 0;                                                                       \
        for (unsigned i = t; i < CN_SUM_DIGITS; i += 128)                                    \
            cn_tot.digit[i] = 0;                                                             \
        __syncthreads();                                                                     \
        if (WIDE) {                                                                          \
            const cn_sum_acc *part = (const cn_sum_acc *)a.cn_part;                          \
            for (unsigned i = t; i < CN_SUM_DIGITS; i += 128) {                              \
                int64_t s = 0;                                                               \
                for (size_t q = 0; q < a.cn_P; q++)                                          \
                    s += part[q].digit[i];                                                   \
                cn_tot.digit[i] = s;                                                         \
            }                                                                                \
            for (size_t q = t; q < a.cn_P; q += 128)                                         \
                atomicOr(&cn_fl, part[q].flags);                                             \
        } else {                                                                             \
            const struct cn_dsum32_part *part = (const struct cn_dsum32_part *)a.cn_part;    \
            __shared__ int64_t cn_limb[CN_DSUM32_BINS];                                      \
            if (t < CN_DSUM32_BINS) {                                                        \
                int64_t s = 0;                                                               \
                for (size_t q = 0; q < a.cn_P; q++)                                          \
                    s += part[q].limb[t];                                                    \
                cn_limb[t] = s;                                                              \
            }                                                                                \
            for (size_t q = t; q < a.cn_P; q += 128)                                         \
                atomicOr(&cn_fl, part[q].flags);                                             \
            __syncthreads();                                                                 \
            if (t == 0)                                                                      \
                cn_dsum32_to_acc(&cn_tot, cn_limb);                                          \
        }                                                                                    \
        __syncthreads();                                                                     \
        if (t == 0) {                                                                        \
            cn_tot.pending = 0;                                                              \
            cn_tot.flags = cn_fl;                                                            \
            cn_sum_acc_carry(&cn_tot);                                                       \
            T_ v;                                                                            \
            if (WIDE) {                                                                      \
                v = (T_)cn_sum_acc_round(&cn_tot, 53, -1074, 1024);                          \
            } else {                                                                         \
                double r = cn_sum_acc_round(&cn_tot, 24, -149, 128);                         \
                v = r != r ? cn_sum_f32_qnan() : (T_)r;                                      \
            }                                                                                \
            STORE(&a, v);                                                                    \
        }                                                                                    \
    }

#define CN_DSUM_LAUNCHERS(NAME, ARGS, THREADS)                                                \
    static void NAME##_fold_launch(cudaStream_t s, unsigned blocks, unsigned threads, const void *args, size_t n) \
    {                                                                                        \
        NAME##_fold_kernel<<<blocks, threads, 0, s>>>(*(const ARGS *)args, n);               \
    }                                                                                        \
    static void NAME##_total_launch(cudaStream_t s, unsigned blocks, unsigned threads, const void *args, size_t n) \
    {                                                                                        \
        NAME##_total_kernel<<<blocks, threads, 0, s>>>(*(const ARGS *)args, n);              \
    }                                                                                        \
    static const struct cn_dev_kernel NAME##_fold = {NAME##_what, THREADS, true, NAME##_fold_launch, NULL}; \
    static const struct cn_dev_kernel NAME##_total = {NAME##_what, 128, true, NAME##_total_launch, NULL}; \
    static void NAME##_run(struct cn_exec *x, const ARGS *a)                                 \
    {                                                                                        \
        cn_exec_launch(x, &NAME##_fold, a->cn_P * (THREADS), a);                             \
        cn_exec_launch(x, &NAME##_total, 128, a);                                            \
    }

#define CN_DEV_EXACT_SUM32(NAME, ARGS, TERM, STORE)                                          \
    CN_DSUM32_FOLD_KERNEL(NAME, ARGS, TERM)                                                  \
    CN_DSUM_TOTAL_KERNEL(NAME, ARGS, float, 0, STORE)                                        \
    CN_DSUM_LAUNCHERS(NAME, ARGS, CN_DSUM32_THREADS)

#define CN_DEV_EXACT_SUM64(NAME, ARGS, TERM, STORE)                                          \
    CN_DSUM64_FOLD_KERNEL(NAME, ARGS, TERM)                                                  \
    CN_DSUM_TOTAL_KERNEL(NAME, ARGS, double, 1, STORE)                                       \
    CN_DSUM_LAUNCHERS(NAME, ARGS, CN_DSUM64_THREADS)

#else /* emulated: the host's exact sum, part by part */

#define CN_DEV_EXACT_SUM_EMU(NAME, ARGS, T_, ACC, TERM, STORE)                                \
    static void NAME##_fold_lanes(void *args, size_t lo, size_t hi)                          \
    {                                                                                        \
        const ARGS *a = (const ARGS *)args;                                                  \
        for (size_t p = lo; p < hi && !cn_emu_poisoned(); p++) {                             \
            ACC *s = &((ACC *)a->cn_part)[p];                                                \
            ACC##_init(s);                                                                   \
            for (size_t j = cn_part_lo(a->cn_n, a->cn_P, p); j < cn_part_hi(a->cn_n, a->cn_P, p); j++) { \
                T_ y;                                                                        \
                TERM(a, j, &y);                                                              \
                ACC##_add(s, y);                                                             \
            }                                                                                \
        }                                                                                    \
    }                                                                                        \
    static void NAME##_total_lanes(void *args, size_t lo, size_t hi)                         \
    {                                                                                        \
        const ARGS *a = (const ARGS *)args;                                                  \
        ACC s;                                                                               \
        ACC##_init(&s);                                                                      \
        for (size_t q = 0; q < a->cn_P; q++)                                                 \
            ACC##_merge(&s, &((const ACC *)a->cn_part)[q]);                                  \
        STORE(a, ACC##_round(&s));                                                           \
        (void)lo, (void)hi;                                                                  \
    }                                                                                        \
    static const struct cn_dev_kernel NAME##_fold = {NAME##_what, CN_DEV_FOLD_THREADS, true, NAME##_fold_lanes}; \
    static const struct cn_dev_kernel NAME##_total = {NAME##_what, CN_DEV_FOLD_THREADS, true, NAME##_total_lanes}; \
    static void NAME##_run(struct cn_exec *x, const ARGS *a)                                 \
    {                                                                                        \
        cn_exec_launch(x, &NAME##_fold, a->cn_P, a);                                         \
        cn_exec_launch(x, &NAME##_total, 1, a);                                              \
    }

#define CN_DEV_EXACT_SUM32(NAME, ARGS, TERM, STORE) CN_DEV_EXACT_SUM_EMU(NAME, ARGS, float, cn_sum32, TERM, STORE)
#define CN_DEV_EXACT_SUM64(NAME, ARGS, TERM, STORE) CN_DEV_EXACT_SUM_EMU(NAME, ARGS, double, cn_sum64, TERM, STORE)

#endif

#endif /* CAIRN_DEVSUM_H */
