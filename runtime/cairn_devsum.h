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
 * defines NAME_parts(n), the parts to fill cn_P with, and NAME_run(x,
 * args), which queues the sum. ARGS has cn_n, cn_P and cn_part
 * (cn_dev_xsum_bytes of scratch).
 *
 * On the CUDA machine, in one launch: the terms are P contiguous parts,
 * which a full wave of blocks claim in turn from a counter (a block that
 * finds its memory slower takes fewer). Each thread keeps its state across
 * the parts its block takes:
 *
 *   f32: each thread keeps 16 doubles in shared memory, one for each
 *   sixteen binades of f32's exponent (the top four bits of the exponent
 *   field pick it). Every f32 in bin b is a whole multiple of 2^(16b-150)
 *   below 2^(16b-111), so a double adds up to 2^14 of them exactly (their
 *   sum stays below 2^53 units); every 2^14 terms the thread moves each bin
 *   into a 64-bit integer limb of weight 2^(16b) units of 2^-150, and the
 *   block's limbs are carried into 17 at the end. Per term: the bin's
 *   index, a conversion, and an add. The bins start at -0.0, so a bin that
 *   is still -0.0 saw only -0.0 terms; an infinity or a NaN makes the top
 *   bin's double non-finite.
 *
 *   f64: each thread sums the terms near the largest of its first 16 in
 *   two doubles, as the host's levels do (cairn_sum.h, cn_dsum64_win: one
 *   test and four additions a term), and adds any other term into its own
 *   exact total, 68 digits of 32 bits in a column of shared memory (three
 *   integer adds).
 *
 * The block adds its threads' limbs or digits as integers, then adds them
 * into one total in the scratch with 64-bit atomics; the last block to
 * finish rounds it with cairn_sum.h's cn_sum_acc_round. Integer addition
 * in any order gives the same total, so the result depends neither on the
 * grid nor on which block took which part.
 *
 * Emulated, the passes use the host's own exact sum (cn_sum32, cn_sum64),
 * part by part, merged in order.
 */
#ifndef CAIRN_DEVSUM_H
#define CAIRN_DEVSUM_H

#include "cairn_sum.h"

/* The total on the CUDA machine, in the scratch, zeroed before the launch:
 * the blocks claim parts with `claim`, add their limbs (f32: digit[0..16]
 * hold the 17 limbs) or digits into it with 64-bit atomics, OR their
 * flags, and count themselves in `done`; the last block rounds it. */
struct cn_dsum_total {
    int64_t digit[CN_SUM_DIGITS];
    unsigned long long claim;
    uint32_t flags;
    uint32_t done;
};

/* Its scratch: the total (CUDA) or the P parts, the host's own sums
 * (emulated), then 16 bytes for the emitted code. */
static inline size_t cn_dev_xsum_bytes(size_t P, int wide)
{
#if CN_DEV_CUDA
    (void)P, (void)wide;
    return cn_dev_round16(sizeof(struct cn_dsum_total));
#else
    return cn_dev_round16(P * (wide ? sizeof(cn_sum64) : sizeof(cn_sum32)));
#endif
}

#if CN_DEV_CUDA

/* Settings, overridable for bench/dev/scan_variants.sh: terms a thread
 * loads at once, the blocks of a multiprocessor asked of the compiler
 * (f32: five, 48 registers; unasked it took 56, and four fit), and the
 * parts a block of a full wave takes on average. */
#ifndef CN_DSUM32_U
#define CN_DSUM32_U 8
#endif
#ifndef CN_DSUM64_U
#define CN_DSUM64_U 16
#endif
#ifndef CN_DSUM32_MIN_BLOCKS
#define CN_DSUM32_MIN_BLOCKS 5
#endif
#ifndef CN_DSUM_PARTS_BLOCK
#define CN_DSUM_PARTS_BLOCK 8
#endif

/* A block takes at most this many terms: an f32 block's shared limbs
 * then stay below 2^62 (each term adds less than 2^39 units to one), and
 * an f64 thread's digits (fewer than 2^17 terms) need no carry until the
 * end. */
enum { CN_DSUM_BLOCK_MAX = 1 << 23, CN_DSUM_DEVICES = 16 };

/* The blocks of kernel one device holds at once, asked once per device
 * (cache: its kernel's words, zero until asked). */
static inline size_t cn_dsum_wave(const void *kernel, unsigned threads, int *cache)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0) {
        (void)cudaGetLastError();
        dev = CN_DSUM_DEVICES;
    }
    int *c = dev < CN_DSUM_DEVICES ? &cache[dev] : NULL;
    if (c && __atomic_load_n(c, __ATOMIC_RELAXED) > 0)
        return (size_t)__atomic_load_n(c, __ATOMIC_RELAXED);
    int sms = 0, per = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, (int)threads, 0) != cudaSuccess || per < 1) {
        (void)cudaGetLastError();
        sms = 1;
        per = 1;
    }
    if (c)
        __atomic_store_n(c, sms * per, __ATOMIC_RELAXED);
    return (size_t)sms * (size_t)per;
}

/* Parts of at most half a block's bound. */
static inline size_t cn_dsum_least_parts(size_t n)
{
    size_t half = CN_DSUM_BLOCK_MAX / 2;
    return n / half + (n % half != 0);
}

/* P, the parts of n terms: CN_DSUM_PARTS_BLOCK for each block of a full
 * wave, so that a block which finds its memory slower takes fewer of them
 * and no multiprocessor waits long idle at the end (one part a block, the
 * slowest block set the time: 18% of the multiprocessors' cycles idle at
 * 2^26 f32 terms, evidence/2026-12-05-exact-sum.md); fewer for a small n, a
 * part being at least two rounds of U terms a thread. The grid does not
 * change the bits: the total is exact. */
static inline size_t cn_dsum_parts(size_t n, const void *kernel, unsigned threads, unsigned u, int *cache)
{
    size_t least = (size_t)threads * u * 2;
    size_t p = n / least + (n % least != 0), most = cn_dsum_wave(kernel, threads, cache) * CN_DSUM_PARTS_BLOCK;
    if (p > most)
        p = most;
    size_t floor_p = cn_dsum_least_parts(n);
    p = p > floor_p ? p : floor_p;
    return p > 0 ? p : 1;
}

/* The blocks over P parts: a full wave, fewer when there are fewer parts,
 * more when n needs them. A block stops claiming before it passes
 * CN_DSUM_BLOCK_MAX, so one that stops took more than half of it (a part
 * is at most half); all stopping with parts left would have taken more
 * than n. */
static inline size_t cn_dsum_blocks(size_t n, size_t P, const void *kernel, unsigned threads, int *cache)
{
    size_t g = cn_dsum_wave(kernel, threads, cache), need = cn_dsum_least_parts(n);
    g = g < P ? g : P;
    return g > need ? g : need;
}

/* Thread 0: the next part of its block, or P when none is left or one
 * more would take the block (taken terms so far) past its bound. */
static __device__ inline size_t cn_dsum_claim(struct cn_dsum_total *tot, size_t n, size_t P, size_t taken)
{
    size_t most = n / P + (n % P != 0);
    if (taken + most > CN_DSUM_BLOCK_MAX)
        return P;
    unsigned long long p = atomicAdd(&tot->claim, 1ull);
    return p < P ? (size_t)p : P;
}

/* The last block: the total's digits or limbs as they stand once every
 * block has added, read by the block's threads at once, then carried and
 * rounded by thread 0 (its return value; the others' is 0). */
static __device__ __noinline__ double cn_dsum_finish(struct cn_dsum_total *tot, int wide)
{
    __shared__ cn_sum_acc cn_a;
    __shared__ int64_t cn_limb[CN_DSUM32_LIMBS];
    volatile struct cn_dsum_total *v = tot;
    for (unsigned i = threadIdx.x; i < CN_SUM_DIGITS; i += blockDim.x) {
        cn_a.digit[i] = wide ? v->digit[i] : 0;
        if (!wide && i < CN_DSUM32_LIMBS)
            cn_limb[i] = v->digit[i];
    }
    __syncthreads();
    if (threadIdx.x != 0)
        return 0;
    cn_a.pending = 0;
    if (!wide)
        cn_dsum32_to_acc(&cn_a, cn_limb);
    cn_a.flags = v->flags;
    cn_sum_acc_carry(&cn_a);
    if (wide)
        return cn_sum_acc_round_inplace(&cn_a, 53, -1074, 1024);
    return cn_sum_acc_round_inplace(&cn_a, 24, -149, 128);
}

/* A block's share added into the total (thread 0, after the block's
 * barrier); returns whether this block was the last. */
static __device__ inline bool cn_dsum_add(struct cn_dsum_total *tot, const int64_t *digits, int count, uint32_t flags)
{
#pragma unroll 1
    for (int i = 0; i < count; i++)
        if (digits[i])
            atomicAdd((unsigned long long *)&tot->digit[i], (unsigned long long)digits[i]);
    if (flags)
        atomicOr(&tot->flags, flags);
    __threadfence();
    return atomicAdd(&tot->done, 1u) == gridDim.x - 1;
}

/* After a block's share is in (cn_last set by thread 0): the last block
 * rounds the total and its thread 0 stores it. */
#define CN_DSUM_STORE(T_, WIDE, STORE)                                                         \
    do {                                                                                     \
        __syncthreads();                                                                     \
        if (cn_last) {                                                                       \
            __threadfence();                                                                 \
            double cn_r = cn_dsum_finish(cn_tot, WIDE);                                      \
            T_ cn_v = (WIDE || cn_r == cn_r) ? (T_)cn_r : (T_)cn_sum_f32_qnan();             \
            if (threadIdx.x == 0)                                                            \
                STORE(&a, cn_v);                                                             \
        }                                                                                    \
    } while (0)

/* A fold block's thread t and its claims: thread 0 claims the block's
 * first part with the block's setup (before its barrier), and the next
 * while the block adds a part, so the claim's round trip overlaps the
 * loads; the part is handed over in cn_claim, two slots used in turn. */
#define CN_DSUM_PARTS_SETUP                                                                    \
    const unsigned t = threadIdx.x;                                                          \
    struct cn_dsum_total *cn_tot = (struct cn_dsum_total *)a.cn_part;                        \
    __shared__ size_t cn_claim[2];                                                           \
    if (t == 0)                                                                              \
        cn_claim[0] = cn_dsum_claim(cn_tot, a.cn_n, a.cn_P, 0);                              \
    size_t cn_taken = 0;                                                                     \
    (void)n

/* The loop over the block's parts, each [lo, hi) (after the setup's barrier). */
#define CN_DSUM_PARTS_BEGIN                                                                    \
    for (unsigned cn_k = 0;; cn_k ^= 1) {                                                    \
        const size_t cn_p = cn_claim[cn_k];                                                  \
        if (cn_p >= a.cn_P)                                                                  \
            break;                                                                           \
        const size_t lo = cn_part_lo(a.cn_n, a.cn_P, cn_p), hi = cn_part_hi(a.cn_n, a.cn_P, cn_p); \
        cn_taken += hi - lo;                                                                 \
        size_t cn_claimed = 0;                                                               \
        if (t == 0)                                                                          \
            cn_claimed = cn_dsum_claim(cn_tot, a.cn_n, a.cn_P, cn_taken);                    \
        if (lo + t < hi)                                                                     \
            flags |= CN_SUM_SAW_TERM;

#define CN_DSUM_PARTS_END                                                                      \
        if (t == 0)                                                                          \
            cn_claim[cn_k ^ 1] = cn_claimed;                                                 \
        __syncthreads();                                                                     \
    }

/* A thread's terms of a part lo + t, lo + t + T, ... < hi, U at a time,
 * the next U loaded before this U are added (PUT(v)), EVERY(k) after
 * each k terms; then the last few one by one, and EVERY(their count): a
 * thread's count runs across the parts of its block. FIRST(y) sees the
 * first U (y[0..U)) before any is added. */
#define CN_DSUM_STREAM(T_, TERM, PUT, EVERY, FIRST)                                            \
    size_t j = lo + t;                                                                       \
    bool cn_have = j < hi && hi - j > (size_t)(U - 1) * T;                                   \
    T_ cn_y[U];                                                                              \
    if (cn_have) {                                                                           \
        _Pragma("unroll") for (unsigned u = 0; u < U; u++) TERM(&a, j + u * T, &cn_y[u]);    \
        FIRST(cn_y);                                                                         \
    }                                                                                        \
    while (cn_have) {                                                                        \
        size_t cn_jn = j + (size_t)U * T;                                                    \
        bool cn_next = cn_jn < hi && hi - cn_jn > (size_t)(U - 1) * T;                       \
        T_ cn_z[U];                                                                          \
        if (cn_next)                                                                         \
            _Pragma("unroll") for (unsigned u = 0; u < U; u++) TERM(&a, cn_jn + u * T, &cn_z[u]); \
        _Pragma("unroll") for (unsigned u = 0; u < U; u++) PUT(cn_y[u]);                     \
        EVERY(U);                                                                            \
        _Pragma("unroll") for (unsigned u = 0; u < U; u++) cn_y[u] = cn_z[u];                \
        j = cn_jn;                                                                           \
        cn_have = cn_next;                                                                   \
    }                                                                                        \
    unsigned cn_tail = 0;                                                                    \
    for (; j < hi; j += T, cn_tail++) {                                                      \
        T_ cn_v;                                                                             \
        TERM(&a, j, &cn_v);                                                                  \
        PUT(cn_v);                                                                           \
    }                                                                                        \
    EVERY(cn_tail)

#define CN_DSUM32_PUT(v) cn_dsum32_put(cn_bins + t, T, (v))
/* f32 places nothing from its first terms. (Keeping the bin of the largest
 * of them in registers, shared memory for the others, was slower on the
 * H200: 1.25x CUB at 2^28 where the shared bins alone take 1.16x,
 * evidence/2026-12-04-scan-tiles.md.) */
#define CN_DSUM_NO_FIRST(y) ((void)0)
/* Before the k terms cnt <= FLUSH - 2U, so a bin's double has taken at
 * most FLUSH - U terms when it moves. */
#define CN_DSUM32_EVERY(k)                                                                     \
    if ((cnt += (k)) > CN_DSUM32_FLUSH - 2 * U) {                                            \
        CN_DSUM32_SPILL(t);                                                                  \
        cnt = 0;                                                                             \
    }
#define CN_DSUM64_FIRST(y) cn_dsum64_win_place(&win, (y), U, &flags)
#define CN_DSUM64_PUT(v)                                                                       \
    do {                                                                                     \
        uint64_t cn_b = cn_sum_bits64(v);                                                    \
        if (!cn_dsum64_win_take(&win, cn_b) && !cn_dsum64_win_miss(&win, cn_b, &flags)) {     \
            int cn_p;                                                                        \
            uint64_t cn_m = cn_sum_split64(cn_b, &cn_p);                                     \
            cn_sum_digits_add(cn_dg + t, T, cn_m, cn_p, (int)(cn_b >> 63));                  \
        }                                                                                    \
    } while (0)
/* Before the k terms cnt <= WIN_TERMS - U, so the window takes at most
 * WIN_TERMS terms between moves. */
#define CN_DSUM64_EVERY(k)                                                                     \
    if ((cnt += (k)) > CN_DSUM64_WIN_TERMS - U) {                                            \
        cn_dsum64_win_flush(&win, cn_dg + t, T);                                             \
        cnt = 0;                                                                             \
    }

/* f32: each block folds the parts it claims into its threads' bins; every
 * 2^14 terms, and at the end, a thread adds its bins into the block's limbs
 * (shared 64-bit atomics: a block takes at most 2^23 terms, each adding
 * less than 2^39 units to a limb, so no limb passes 2^62); thread 0
 * carries the limbs into 17 and adds them into the total. */
#define CN_DSUM32_FOLD_KERNEL(NAME, ARGS, TERM, STORE)                                         \
    static __global__ void __launch_bounds__(CN_DSUM32_THREADS, CN_DSUM32_MIN_BLOCKS)        \
        NAME##_fold_kernel(ARGS a, size_t n)                                                 \
    {                                                                                        \
        enum { T = CN_DSUM32_THREADS, U = CN_DSUM32_U };                                     \
        __shared__ double cn_bins[CN_DSUM32_BINS * T];                                       \
        __shared__ int64_t cn_limb[CN_DSUM32_BINS];                                          \
        __shared__ uint32_t cn_fl;                                                           \
        CN_DSUM_PARTS_SETUP;                                                                 \
        for (unsigned b = 0; b < CN_DSUM32_BINS; b++)                                        \
            cn_bins[b * T + t] = -0.0;                                                       \
        if (t < CN_DSUM32_BINS)                                                              \
            cn_limb[t] = 0;                                                                  \
        if (t == 0)                                                                          \
            cn_fl = 0;                                                                       \
        __syncthreads();                                                                     \
        uint32_t flags = 0;                                                                  \
        unsigned cnt = 0;                                                                    \
        CN_DSUM_PARTS_BEGIN                                                                  \
        {                                                                                    \
            CN_DSUM_STREAM(float, TERM, CN_DSUM32_PUT, CN_DSUM32_EVERY, CN_DSUM_NO_FIRST);   \
        }                                                                                    \
        CN_DSUM_PARTS_END                                                                    \
        CN_DSUM32_SPILL_WARP(t);                                                             \
        if (flags)                                                                           \
            atomicOr(&cn_fl, flags);                                                         \
        __syncthreads();                                                                     \
        __shared__ int cn_last;                                                              \
        if (t == 0) {                                                                        \
            int64_t L[CN_DSUM32_LIMBS];                                                      \
            for (unsigned b = 0; b < CN_DSUM32_LIMBS; b++)                                   \
                L[b] = b < CN_DSUM32_BINS ? cn_limb[b] : 0;                                  \
            cn_dsum32_carry(L);                                                              \
            cn_last = cn_dsum_add(cn_tot, L, CN_DSUM32_LIMBS, cn_fl);                        \
        }                                                                                    \
        CN_DSUM_STORE(float, 0, STORE);                                                      \
    }

/* A thread's bins into the block's limbs (every 2^14 terms, when the
 * threads are at different places). */
#define CN_DSUM32_SPILL(t)                                                                     \
    for (int cn_b = 0; cn_b < CN_DSUM32_BINS; cn_b++) {                                      \
        int64_t cn_v = cn_dsum32_take(cn_bins + (t), T, cn_b, &flags);                       \
        if (cn_v)                                                                            \
            atomicAdd((unsigned long long *)&cn_limb[cn_b], (unsigned long long)cn_v);       \
    }

/* At the end, every thread at once: the warp adds its threads' values of
 * each bin with shuffles (less than 2^53 each, so the warp's below 2^58),
 * and one lane adds them into the block's limbs: one shared atomic a limb
 * a warp, where 32 on one address would wait on each other. */
#define CN_DSUM32_SPILL_WARP(t)                                                                \
    for (int cn_b = 0; cn_b < CN_DSUM32_BINS; cn_b++) {                                      \
        long long cn_v = (long long)cn_dsum32_take(cn_bins + (t), T, cn_b, &flags);          \
        for (int cn_d = 16; cn_d > 0; cn_d >>= 1)                                            \
            cn_v += __shfl_down_sync(0xffffffffu, cn_v, cn_d);                               \
        if (((t) & 31) == 0 && cn_v)                                                         \
            atomicAdd((unsigned long long *)&cn_limb[cn_b], (unsigned long long)cn_v);       \
    }

/* f64: each block folds the parts it claims. Each thread sums the terms
 * its window takes (cairn_sum.h, cn_dsum64_win) in registers, and adds any
 * other into its own 68 digits, a column of shared memory; the window
 * moves into the digits every 2^10 terms and at the end. A block takes at
 * most 2^23 terms, so a thread's digit takes fewer than 2^18 adds, each
 * below 2^32 in magnitude: the columns are carried once, at the end, then
 * added (below 2^38), and the block's digits added into the total. (One
 * column a warp, added with shared atomics, held five times the threads
 * but took 22 times CUB's time on terms of every exponent, where most
 * terms go to the digits: evidence/2026-12-04-scan-tiles.md.) */
#define CN_DSUM64_FOLD_KERNEL(NAME, ARGS, TERM, STORE)                                         \
    static __global__ void __launch_bounds__(CN_DSUM64_THREADS) NAME##_fold_kernel(ARGS a, size_t n) \
    {                                                                                        \
        enum { T = CN_DSUM64_THREADS, U = CN_DSUM64_U };                                     \
        __shared__ int64_t cn_dg[CN_SUM_DIGITS * T];                                         \
        __shared__ int64_t cn_sum[CN_SUM_DIGITS];                                            \
        __shared__ uint32_t cn_fl;                                                           \
        CN_DSUM_PARTS_SETUP;                                                                 \
        for (unsigned i = 0; i < CN_SUM_DIGITS; i++)                                         \
            cn_dg[i * T + t] = 0;                                                            \
        if (t == 0)                                                                          \
            cn_fl = 0;                                                                       \
        __syncthreads();                                                                     \
        uint32_t flags = 0;                                                                  \
        unsigned cnt = 0;                                                                    \
        cn_dsum64_win win;                                                                   \
        cn_dsum64_win_init(&win);                                                            \
        CN_DSUM_PARTS_BEGIN                                                                  \
        {                                                                                    \
            CN_DSUM_STREAM(double, TERM, CN_DSUM64_PUT, CN_DSUM64_EVERY, CN_DSUM64_FIRST);   \
        }                                                                                    \
        CN_DSUM_PARTS_END                                                                    \
        cn_dsum64_win_flush(&win, cn_dg + t, T);                                             \
        cn_dsum64_carry(cn_dg + t, T);                                                       \
        if (flags)                                                                           \
            atomicOr(&cn_fl, flags);                                                         \
        __syncthreads();                                                                     \
        for (unsigned i = t; i < CN_SUM_DIGITS; i += T) {                                    \
            int64_t s = 0;                                                                   \
            _Pragma("unroll 4") for (unsigned w = 0; w < T; w++) s += cn_dg[i * T + (w + i) % T]; \
            cn_sum[i] = s;                                                                   \
        }                                                                                    \
        __syncthreads();                                                                     \
        __shared__ int cn_last;                                                              \
        if (t == 0)                                                                          \
            cn_last = cn_dsum_add(cn_tot, cn_sum, CN_SUM_DIGITS, cn_fl);                     \
        CN_DSUM_STORE(double, 1, STORE);                                                     \
    }

/* The total zeroed, one launch of a full wave of blocks that claim the
 * parts; with no terms the one block that runs finds nothing and rounds
 * +0.0. */
#define CN_DSUM_RUN(NAME, ARGS, THREADS, U_)                                                   \
    static void NAME##_fold_launch(cudaStream_t s, unsigned blocks, unsigned threads, const void *args, size_t n) \
    {                                                                                        \
        NAME##_fold_kernel<<<blocks, threads, 0, s>>>(*(const ARGS *)args, n);               \
    }                                                                                        \
    static const struct cn_dev_kernel NAME##_fold = {NAME##_what, THREADS, true, NAME##_fold_launch, NULL}; \
    static int NAME##_wave[CN_DSUM_DEVICES];                                                 \
    static size_t NAME##_parts(size_t n)                                                     \
    {                                                                                        \
        return cn_dsum_parts(n, (const void *)NAME##_fold_kernel, THREADS, U_, NAME##_wave); \
    }                                                                                        \
    static void NAME##_run(struct cn_exec *x, const ARGS *a)                                 \
    {                                                                                        \
        size_t g = cn_dsum_blocks(a->cn_n, a->cn_P, (const void *)NAME##_fold_kernel, THREADS, NAME##_wave); \
        cn_exec_memset(x, a->cn_part, 0, sizeof(struct cn_dsum_total));                      \
        cn_exec_launch(x, &NAME##_fold, g * (THREADS), a);                                   \
    }

#define CN_DEV_EXACT_SUM32(NAME, ARGS, TERM, STORE)                                          \
    CN_DSUM32_FOLD_KERNEL(NAME, ARGS, TERM, STORE)                                           \
    CN_DSUM_RUN(NAME, ARGS, CN_DSUM32_THREADS, CN_DSUM32_U)

#define CN_DEV_EXACT_SUM64(NAME, ARGS, TERM, STORE)                                          \
    CN_DSUM64_FOLD_KERNEL(NAME, ARGS, TERM, STORE)                                           \
    CN_DSUM_RUN(NAME, ARGS, CN_DSUM64_THREADS, CN_DSUM64_U)

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
    static size_t NAME##_parts(size_t n) { return cn_dev_parts(n); }                         \
    static void NAME##_run(struct cn_exec *x, const ARGS *a)                                 \
    {                                                                                        \
        cn_exec_launch(x, &NAME##_fold, a->cn_P, a);                                         \
        cn_exec_launch(x, &NAME##_total, 1, a);                                              \
    }

#define CN_DEV_EXACT_SUM32(NAME, ARGS, TERM, STORE) CN_DEV_EXACT_SUM_EMU(NAME, ARGS, float, cn_sum32, TERM, STORE)
#define CN_DEV_EXACT_SUM64(NAME, ARGS, TERM, STORE) CN_DEV_EXACT_SUM_EMU(NAME, ARGS, double, cn_sum64, TERM, STORE)

#endif

#endif /* CAIRN_DEVSUM_H */
