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
 * and CN_DEV_EXACT_SUM32 / CN_DEV_EXACT_SUM64(NAME, ARGS, TERM, STORE) (the ..V forms
 * add BASE, for a term that reads a view as it is)
 * defines NAME_parts(n), the parts to fill cn_P with, and NAME_run(x,
 * args), which queues the sum. ARGS has cn_n, cn_P and cn_part
 * (cn_dev_xsum_bytes of scratch).
 *
 * On the CUDA machine, in two passes over P contiguous parts:
 *
 *   f32: each thread adds every term into one of its 16 bins of doubles in
 *   shared memory (one a sixteen binades: a load, an add and a store a
 *   term), moved into the block's 17 integer limbs every 2^14 terms, before
 *   a bin could round.
 *   CN_DSUM32_WINDOW=1 builds session 23's alternative: the terms near the
 *   largest of a thread's first U summed in one double in registers
 *   (cairn_dsumstep.h, cn_dsum32_win: a term whose exponent field is within 18
 *   of the window's is a multiple of the accumulator's ulp, and 2^10 of
 *   them keep it in its binade), any other term into the limbs (limb b of
 *   weight 2^(16b) units of 2^-150), the window moved into them every 2^10
 *   terms. Exact too, but slower on an H100 at every size (1.53x CUB at
 *   2^28 on moderate data against the bins' 1.34x, 3.6x on data over the
 *   whole range: evidence/2026-12-06-h100-tma.md), so off.
 *
 *   CN_DSUM32_WINDOW=2 (session 27's, not yet timed): the bins, with each
 *   thread's terms near the largest of its first U summed in front of them
 *   in two f32s in registers (cairn_dsumstep.h, cn_dsum32_pair), where Nsight
 *   Compute found the bins' load-add-store chain a third of a warp's time.
 *
 *   f64: each thread sums the terms near the largest of its first 16 in
 *   two doubles, as the host's levels do (cairn_dsumstep.h, cn_dsum64_win: one
 *   test and four additions a term), and adds any other term into its own
 *   exact total, 68 digits of 32 bits in a column of shared memory (two
 *   integer adds, carried with every window flush; CN_DSUM64_PIECES=3 the
 *   host's three, which need no carry within a part).
 *
 * The block adds its threads' limbs or digits as integers, then adds them
 * into one total in the scratch with 64-bit atomics; the last block to
 * finish rounds it with cairn_sum.h's cn_sum_acc_round. Integer addition
 * in any order gives the same total, so the result does not depend on the
 * grid, which is one full wave of blocks.
 *
 * Emulated, the passes use the host's own exact sum (cn_sum32, cn_sum64),
 * part by part, merged in order.
 */
#ifndef CAIRN_DEVSUM_H
#define CAIRN_DEVSUM_H

#include "cairn_dsumstep.h"

/* The total on the CUDA machine, in the scratch, zeroed before the launch:
 * the blocks add their limbs (f32: digit[0..16] hold the 17 limbs) or
 * digits into it with 64-bit atomics, OR their flags, and count
 * themselves; the last block to finish rounds it. */
struct cn_dsum_total {
    int64_t digit[CN_SUM_DIGITS];
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

/* Terms a thread loads at once (overridable for bench/dev/scan_variants.sh).
 * f32: 16 (four 16-byte loads a batch) with the hot bin (cairn_dsumstep.h,
 * CN_DSUM32_HOT): on an H100 the two took the f32 sum from 1.163x CUB's
 * time to 1.075x at 2^28 and from 1.233x to 1.164x at 2^26; 16 terms
 * alone 1.103x and 1.217x, the hot bin alone 1.155x and 1.246x
 * (evidence/2026-12-08-h100-call39.md). */
#ifndef CN_DSUM32_U
#define CN_DSUM32_U 16
#endif
#if CN_DSUM32_U > 32 /* cn_dsum32_win_batch copies a batch into CN_DSUM32_BATCH_MAX (cairn_dsumstep.h) */
#error "CN_DSUM32_U: a batch holds at most 32 terms"
#endif
/* f64: 16. 32 took the f64 sum from 1.127x CUB's time to 1.047x at 2^28
 * and from 1.208x to 1.143x at 2^26 on an H100, over the whole range from
 * 1.210x to 1.109x and 1.328x to 1.244x (226 registers, four blocks an SM;
 * evidence/2026-12-08-h100-call39.md), with the host's bits there; it
 * becomes the default once the device programs that sum floats have run
 * with it under the sanitizers (bench/dev/call41.sh). */
#ifndef CN_DSUM64_U
#define CN_DSUM64_U 16
#endif
/* The f32 sum's bins of doubles in shared memory (0, the default), the
 * window in registers (1, measured slower), or the bins with a pair of
 * f32s in front (2, not yet timed); the f64 sum's digits added in
 * two pieces a term (2) or three (3). */
#ifndef CN_DSUM32_WINDOW
#define CN_DSUM32_WINDOW 0
#endif
/* Blocks of the windowed f32 fold a multiprocessor should hold: its limbs
 * (35 KB a block) allow six, which its registers must then fit. */
#ifndef CN_DSUM32_MIN_BLOCKS
#define CN_DSUM32_MIN_BLOCKS 6
#endif
#ifndef CN_DSUM64_PIECES
#define CN_DSUM64_PIECES 2
#endif

/* The parts of an exact sum on the CUDA machine: one full wave of the
 * fold kernel (every multiprocessor holding as many blocks as fit), fewer
 * for a small n; more past 2^23 terms an f32 part (the bound of its shared
 * limbs). The grid does not change the bits: the total is exact. */
enum { CN_DSUM_DEVICES = 16 };

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

static inline size_t cn_dsum_parts(size_t n, const void *kernel, unsigned threads, int wide, int *cache)
{
    size_t p = n / threads + (n % threads != 0), wave = cn_dsum_wave(kernel, threads, cache);
    if (p > wave)
        p = wave;
    /* an f32 part's shared limbs take 2^23 terms, an f64 part's warp digits CN_DSUM64_PART_MAX */
    size_t least = wide ? n / CN_DSUM64_PART_MAX + (n % CN_DSUM64_PART_MAX != 0) : (n >> 23) + ((n & ((1u << 23) - 1)) != 0);
    return p > least ? p : least > 0 ? least : 1;
}

/* The last block rounds the total with its first warp: lane l holds
 * digits l, l + 32 and l + 64 (x[0..2]; those past the top are 0), where
 * one thread carried and rounded the 68 digits alone, a serial tail of
 * every sum. On the H200 a launch of one block that rounds this way takes
 * 8.8 us for f32 and 6.5 us for f64, an empty launch 5.5 and 5.2
 * (tests/device/dsum_finish.cu --time, evidence/2026-12-05-exact-sum.md). */
enum { CN_DSUM_LANE_DIGITS = 3 };

/* The digit i of the warp's total, to every lane (i the same in all). */
static __device__ inline int64_t cn_dsum_digit(const int64_t *x, int i)
{
    int k = i >> 5;
    int64_t v = k == 0 ? x[0] : k == 1 ? x[1] : k == 2 ? x[2] : 0;
    return __shfl_sync(0xffffffffu, v, i & 31);
}

/* Carries the warp's digits until each but the top is in [0, 2^32), the
 * top signed, the total unchanged. A pass moves every digit's carry one
 * digit up at once, so a carry rippling through a run of full (or empty)
 * digits takes a pass a digit; the passes stop when no digit has one. */
static __device__ void cn_dsum_warp_carry(int64_t *x)
{
    const unsigned l = threadIdx.x & 31;
    for (;;) {
        int64_t hi[CN_DSUM_LANE_DIGITS];
        bool any = false;
        for (int k = 0; k < CN_DSUM_LANE_DIGITS; k++) {
            int64_t lo = (int64_t)((uint64_t)x[k] & 0xffffffffu);
            hi[k] = 0;
            if (l + 32 * k < CN_SUM_DIGITS - 1) {
                hi[k] = (x[k] - lo) / ((int64_t)1 << 32); /* exact */
                x[k] = lo;
            }
            any |= hi[k] != 0;
        }
        if (!__any_sync(0xffffffffu, any))
            return;
        for (int k = 0; k < CN_DSUM_LANE_DIGITS; k++) {
            int64_t below = __shfl_up_sync(0xffffffffu, hi[k], 1);
            int64_t wrap = __shfl_sync(0xffffffffu, k > 0 ? hi[k - 1] : 0, 31);
            x[k] += l > 0 ? below : wrap;
        }
    }
}

/* Warp 0 of the last block: the total's digits or limbs as they stand
 * once every block has added, rounded to prec bits (cairn_sum.h's
 * cn_sum_round_bits, as the host rounds); every lane returns it. */
static __device__ __noinline__ double cn_dsum_finish(struct cn_dsum_total *tot, int wide, int prec, int min_ulp_exp,
                                                      int max_exp)
{
    __shared__ int64_t cn_d[32 * CN_DSUM_LANE_DIGITS];
    const unsigned l = threadIdx.x & 31;
    volatile struct cn_dsum_total *v = tot;
    for (unsigned i = l; i < 32 * CN_DSUM_LANE_DIGITS; i += 32)
        cn_d[i] = wide && i < CN_SUM_DIGITS ? v->digit[i] : 0;
    __syncwarp();
    if (!wide && l < CN_DSUM32_LIMBS) { /* limb l: 2^(16 l) units of 2^-150 */
        int64_t limb = v->digit[l];
        uint64_t m = limb < 0 ? (uint64_t)0 - (uint64_t)limb : (uint64_t)limb;
        int p = CN_DSUM32_LIMB_P + 16 * (int)l;
        int64_t c[3];
        cn_sum_pieces(m, p, c);
        for (int k = 0; k < 3 && m; k++)
            atomicAdd((unsigned long long *)&cn_d[(p >> 5) + k], (unsigned long long)(limb < 0 ? -c[k] : c[k]));
    }
    __syncwarp();
    int64_t x[CN_DSUM_LANE_DIGITS];
    for (int k = 0; k < CN_DSUM_LANE_DIGITS; k++)
        x[k] = cn_d[l + 32 * k];
    unsigned flags = v->flags;
    double r;
    if (cn_sum_flags_special(flags, &r))
        return r;
    cn_dsum_warp_carry(x);
    int neg = cn_dsum_digit(x, CN_SUM_DIGITS - 1) < 0;
    if (neg) {
        for (int k = 0; k < CN_DSUM_LANE_DIGITS; k++)
            x[k] = -x[k];
        cn_dsum_warp_carry(x);
    }
    int top = -1; /* the magnitude's top nonzero digit */
    for (int k = CN_DSUM_LANE_DIGITS - 1; k >= 0 && top < 0; k--) {
        unsigned b = __ballot_sync(0xffffffffu, x[k] != 0);
        if (b)
            top = 32 * k + 31 - __clz((int)b);
    }
    if (top < 0)
        return cn_sum_flags_zero(flags);
    int len = 32 * top + 64 - __clzll((long long)cn_dsum_digit(x, top));
    int shift = cn_sum_round_shift(len, prec, min_ulp_exp), lo = shift > 0 ? shift : 0;
    uint64_t word = cn_sum_word3((uint64_t)cn_dsum_digit(x, lo >> 5), (uint64_t)cn_dsum_digit(x, (lo >> 5) + 1),
                                 (uint64_t)cn_dsum_digit(x, (lo >> 5) + 2), lo & 31);
    unsigned half = 0;
    int sticky = 0;
    if (shift > 0) {
        int b = shift - 1, bi = b >> 5;
        half = (unsigned)(((uint64_t)cn_dsum_digit(x, bi) >> (b & 31)) & 1);
        bool below = false; /* any bit under b in this lane's digits */
        for (int k = 0; k < CN_DSUM_LANE_DIGITS; k++) {
            int i = (int)l + 32 * k;
            uint64_t mask = i < bi ? ~(uint64_t)0 : i == bi ? (((uint64_t)1 << (b & 31)) - 1) : 0;
            below |= ((uint64_t)x[k] & mask) != 0;
        }
        sticky = __any_sync(0xffffffffu, below);
    }
    r = cn_sum_round_bits(len, shift, word, half, sticky, max_exp);
    return neg ? -r : r;
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

/* After a block's share is in (cn_last set by thread 0): the last block's
 * first warp rounds the total and its thread 0 stores it. */
#define CN_DSUM_STORE(T_, WIDE, STORE)                                                         \
    do {                                                                                     \
        __syncthreads();                                                                     \
        if (cn_last && threadIdx.x < 32) {                                                   \
            __threadfence();                                                                 \
            double cn_r = WIDE ? cn_dsum_finish((struct cn_dsum_total *)a.cn_part, 1, 53, -1074, 1024) \
                               : cn_dsum_finish((struct cn_dsum_total *)a.cn_part, 0, 24, -149, 128); \
            T_ cn_v = (WIDE || cn_r == cn_r) ? (T_)cn_r : (T_)cn_sum_f32_qnan();             \
            if (threadIdx.x == 0)                                                            \
                STORE(&a, cn_v);                                                             \
        }                                                                                    \
    } while (0)

/* A fold block's thread t and its part [lo, hi). */
#define CN_DSUM_PART                                                                           \
    const unsigned t = threadIdx.x;                                                          \
    const size_t lo = cn_part_lo(a.cn_n, a.cn_P, blockIdx.x), hi = cn_part_hi(a.cn_n, a.cn_P, blockIdx.x); \
    (void)n

/* A thread's terms lo + t, lo + t + T, ... < hi, U at a time, the next U
 * loaded before this U are added (BATCH(y), y[0..U)), EVERY after each U;
 * then the last few one by one (PUT(v)). FIRST(y) sees the first U before
 * any is added. (cairn_dsumstep.h, CN_DSUM_STREAM_UNITS, with units of one
 * term.) */
#define CN_DSUM_TERM_UNIT(F, j, y) F(&a, (j), (y))
#define CN_DSUM_STREAM(T_, TERM, BATCH, PUT, EVERY, FIRST)                                     \
    CN_DSUM_STREAM_UNITS(T_, 1, lo, hi, CN_DSUM_TERM_UNIT, TERM, BATCH, PUT, EVERY, FIRST)

/* 1 (the default): a sum whose term is a plain read of a view (the
 * emitter names its data with a BASE function: CN_DEV_EXACT_SUM32V,
 * CN_DEV_EXACT_SUM64V) reads it 16 bytes at a time (cairn_dsumstep.h,
 * CN_DSUM_STREAM_VEC), as CUB's reductions do. On an H100 it took the f32
 * sum from 1.34x CUB's time to 1.17x at 2^28 and the f64 from 1.18x to
 * 1.12x (evidence/2026-12-07-h100-call37.md). 0: term by term. */
#ifndef CN_DSUM_VEC
#define CN_DSUM_VEC 1
#endif
#define CN_DSUM_VLOAD32(Q_, Y_)                                                                \
    do {                                                                                     \
        float4 cn_f = *(Q_);                                                                 \
        (Y_)[0] = cn_f.x, (Y_)[1] = cn_f.y, (Y_)[2] = cn_f.z, (Y_)[3] = cn_f.w;              \
    } while (0)
#define CN_DSUM_VLOAD64(Q_, Y_)                                                                \
    do {                                                                                     \
        double2 cn_f = *(Q_);                                                                \
        (Y_)[0] = cn_f.x, (Y_)[1] = cn_f.y;                                                  \
    } while (0)
/* The BASE of a sum whose term is not a plain read (never called). */
template <class A, class T_> static __device__ inline void cn_dsum_no_base(const A *, const T_ **p) { *p = nullptr; }
/* A fold's stream: 16 bytes at a time where VEC (the term is a plain read)
 * and CN_DSUM_VEC, else term by term. */
#define CN_DSUM_STREAMS(T_, VT_, W, VLOAD, VEC, BASE, TERM, BATCH, PUT, EVERY, FIRST)            \
    if (CN_DSUM_VEC && (VEC)) {                                                              \
        CN_DSUM_STREAM_VEC(T_, VT_, W, BASE, VLOAD, TERM, BATCH, PUT, EVERY, FIRST)          \
    } else {                                                                                 \
        CN_DSUM_STREAM(T_, TERM, BATCH, PUT, EVERY, FIRST)                                   \
    }

#define CN_DSUM32_PUT(v) cn_dsum32_put(cn_bins + t, T, (v))
/* 1 (the default): a batch whose terms share a bin goes into it with one
 * add (cairn_dsumstep.h, cn_dsum32_batch). Alone it changed little on an
 * H100 (1.36x CUB at 2^28 where the bins take 1.34x); with 16-byte loads
 * 1.16x where they alone take 1.17x (evidence/2026-12-07-h100-call37.md).
 * 0: a term at a time. */
#ifndef CN_DSUM32_SAME
#define CN_DSUM32_SAME 1
#endif
#if CN_DSUM32_SAME
#define CN_DSUM32_BATCH(y) cn_dsum32_batch(cn_bins + t, T, (y), U, &cn_hot)
#else
#define CN_DSUM32_BATCH(y) _Pragma("unroll") for (unsigned u = 0; u < U; u++) CN_DSUM32_PUT((y)[u])
#endif
/* 1: a batch the window takes whole is added with no branch between its
 * terms (cairn_dsumstep.h, cn_dsum64_win_all); 2 (the default): so is any
 * other batch with no infinity or NaN, its terms to the window or the
 * digits (cn_dsum64_win_mixed); 0: term by term. On an H100 (evidence/
 * 2026-12-07-h100-call37.md), at 2^28: 1 took 1.18x CUB's time on moderate
 * data where 0 took 1.21x; 2 took 1.31x on data over the whole range where
 * 1 took 1.58x and 0 1.53x, and the same as 1 on moderate data. */
#ifndef CN_DSUM64_WHOLE
#define CN_DSUM64_WHOLE 2
#endif
#if CN_DSUM64_WHOLE == 2
#if CN_DSUM64_PIECES != 2
#error "CN_DSUM64_WHOLE=2 adds to the digits in two pieces (CN_DSUM64_PIECES=2)"
#endif
#define CN_DSUM64_BATCH(y)                                                                     \
    if (cn_dsum64_win_all(&win, (y), U))                                                     \
        cn_dsum64_win_adds(&win, (y), U);                                                    \
    else if (cn_dsum64_win_finite(&win, (y), U))                                             \
        cn_dsum64_win_mixed(&win, (y), U, cn_dg + t, T);                                     \
    else                                                                                     \
        _Pragma("unroll") for (unsigned u = 0; u < U; u++) CN_DSUM64_PUT((y)[u])
#elif CN_DSUM64_WHOLE
#define CN_DSUM64_BATCH(y)                                                                     \
    if (cn_dsum64_win_all(&win, (y), U))                                                     \
        cn_dsum64_win_adds(&win, (y), U);                                                    \
    else                                                                                     \
        _Pragma("unroll") for (unsigned u = 0; u < U; u++) CN_DSUM64_PUT((y)[u])
#else
#define CN_DSUM64_BATCH(y) _Pragma("unroll") for (unsigned u = 0; u < U; u++) CN_DSUM64_PUT((y)[u])
#endif
/* f32 places nothing from its first terms. (Keeping the bin of the largest
 * of them in registers, shared memory for the others, was slower on the
 * H200: 1.25x CUB at 2^28 where the shared bins alone take 1.16x,
 * evidence/2026-12-04-scan-tiles.md.) */
#define CN_DSUM_NO_FIRST(y) ((void)0)
#define CN_DSUM32_EVERY                                                                        \
    if ((cnt += U) > CN_DSUM32_FLUSH - 2 * U) {                                              \
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
            CN_DSUM64_DIGITS_ADD(cn_dg + t, T, cn_m, cn_p, (int)(cn_b >> 63));               \
        }                                                                                    \
    } while (0)
#if CN_DSUM64_PIECES == 2
/* two pieces a term (cairn_dsumstep.h, cn_dsum64_digits_add2): the digits are
 * carried with every window flush, at most 2^10 terms apart */
#define CN_DSUM64_DIGITS_ADD cn_dsum64_digits_add2
#define CN_DSUM64_EVERY                                                                        \
    if ((cnt += U) > CN_DSUM64_WIN_TERMS - U) {                                              \
        cn_dsum64_win_flush(&win, cn_dg + t, T);                                             \
        cn_dsum64_carry(cn_dg + t, T);                                                       \
        cnt = 0;                                                                             \
    }
#else
#define CN_DSUM64_DIGITS_ADD cn_sum_digits_add
#define CN_DSUM64_EVERY                                                                        \
    if ((cnt += U) > CN_DSUM64_WIN_TERMS - U) {                                              \
        cn_dsum64_win_flush(&win, cn_dg + t, T);                                             \
        cnt = 0;                                                                             \
    }
#endif

/* What each thread puts in front of its bins: nothing (the default), or
 * with CN_DSUM32_WINDOW=2 the pair (cairn_dsumstep.h, cn_dsum32_pair), its
 * batches going through it first, its d going to the bins before they go
 * to the limbs (every 2^14 terms, two terms more at most) and at the end. */
#if CN_DSUM32_WINDOW == 2
#define CN_DSUM32_FRONT                                                                        \
    static_assert(U <= CN_DSUM32_PAIR_TERMS, "a batch the pair takes at once");              \
    cn_dsum32_pair win;                                                                      \
    cn_dsum32_pair_init(&win)
#define CN_DSUM32_FBATCH(y) cn_dsum32_pair_batch(&win, (y), U, cn_bins + t, T)
#define CN_DSUM32_FPUT(v)                                                                      \
    do {                                                                                     \
        float cn_p1 = (v);                                                                   \
        cn_dsum32_pair_batch(&win, &cn_p1, 1, cn_bins + t, T);                               \
    } while (0)
#define CN_DSUM32_FFIRST(y) cn_dsum32_pair_place(&win, (y), U, &flags)
#define CN_DSUM32_FEND cn_dsum32_pair_spill(&win, cn_bins + t, T)
#define CN_DSUM32_FEVERY                                                                       \
    if ((cnt += U) > CN_DSUM32_FLUSH - 2 * U - 2) {                                          \
        CN_DSUM32_FEND;                                                                      \
        CN_DSUM32_SPILL(t);                                                                  \
        cnt = 0;                                                                             \
    }
#else
#define CN_DSUM32_FRONT ((void)0)
#define CN_DSUM32_FBATCH CN_DSUM32_BATCH
#define CN_DSUM32_FPUT CN_DSUM32_PUT
#define CN_DSUM32_FFIRST CN_DSUM_NO_FIRST
#define CN_DSUM32_FEND ((void)0)
#define CN_DSUM32_FEVERY CN_DSUM32_EVERY
#endif

/* f32: block p folds part p into its threads' bins; every 2^14 terms, and
 * at the end, a thread adds its bins into the block's limbs (shared 64-bit
 * atomics: a part has at most 2^23 terms, each adding less than 2^39 units
 * to a limb, so no limb passes 2^62); thread 0 carries the limbs and adds
 * them into the total. */
#define CN_DSUM32_FOLD_KERNEL(NAME, ARGS, TERM, STORE, BASE, VEC)                              \
    static __global__ void __launch_bounds__(CN_DSUM32_THREADS) NAME##_fold_kernel(ARGS a, size_t n) \
    {                                                                                        \
        enum { T = CN_DSUM32_THREADS, U = CN_DSUM32_U };                                     \
        __shared__ double cn_bins[CN_DSUM32_BINS * T];                                       \
        __shared__ int64_t cn_limb[CN_DSUM32_BINS];                                          \
        __shared__ uint32_t cn_fl;                                                           \
        CN_DSUM_PART;                                                                        \
        for (unsigned b = 0; b < CN_DSUM32_BINS; b++)                                        \
            cn_bins[b * T + t] = -0.0;                                                       \
        if (t < CN_DSUM32_BINS)                                                              \
            cn_limb[t] = 0;                                                                  \
        if (t == 0)                                                                          \
            cn_fl = 0;                                                                       \
        __syncthreads();                                                                     \
        uint32_t flags = lo + t < hi ? CN_SUM_SAW_TERM : 0;                                  \
        unsigned cnt = 0;                                                                    \
        cn_dsum32_hot cn_hot; /* (CN_DSUM32_HOT; else unused) */                             \
        cn_dsum32_hot_init(&cn_hot);                                                         \
        CN_DSUM32_FRONT;                                                                     \
        CN_DSUM_STREAMS(float, float4, 4, CN_DSUM_VLOAD32, VEC, BASE, TERM, CN_DSUM32_FBATCH, CN_DSUM32_FPUT, \
                        CN_DSUM32_FEVERY, CN_DSUM32_FFIRST);                                  \
        CN_DSUM32_FEND;                                                                      \
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
            cn_last = cn_dsum_add((struct cn_dsum_total *)a.cn_part, L, CN_DSUM32_LIMBS, cn_fl); \
        }                                                                                    \
        CN_DSUM_STORE(float, 0, STORE);                                                      \
    }

#if CN_DSUM32_WINDOW == 1
/* f32 with the window (cairn_dsumstep.h, cn_dsum32_win): block p folds part p;
 * each thread sums the terms its window takes in a double in registers and
 * puts any other into its own 17 limbs, a column of shared memory, which
 * need no carry within a part (a thread meets at most 2^23 / T terms, each
 * below 2^39 units of its limb, so a limb stays below 2^54); the window
 * moves into the limbs every 2^10 terms and at the end. Then the warps add
 * their threads' limbs with shuffles (below 2^59) into the block's with
 * one shared atomic a limb a warp (below 2^62), and thread 0 carries them
 * and adds them into the total. */
#undef CN_DSUM32_FOLD_KERNEL
#define CN_DSUM32_WPUT(v)                                                                      \
    do {                                                                                     \
        float cn_w1 = (v);                                                                   \
        cn_dsum32_win_batch(&win, &cn_w1, 1, &flags, cn_lb + t, T);                          \
    } while (0)
#define CN_DSUM32_WBATCH(y) cn_dsum32_win_batch(&win, (y), U, &flags, cn_lb + t, T)
#define CN_DSUM32_WFIRST(y) cn_dsum32_win_place(&win, (y), U, &flags)
#define CN_DSUM32_WEVERY                                                                       \
    if ((cnt += U) > CN_DSUM32_WIN_TERMS - U) {                                              \
        cn_dsum32_win_flush(&win, cn_lb + t, T);                                             \
        cnt = 0;                                                                             \
    }
#define CN_DSUM32_FOLD_KERNEL(NAME, ARGS, TERM, STORE, BASE, VEC)                              \
    static __global__ void __launch_bounds__(CN_DSUM32_THREADS, CN_DSUM32_MIN_BLOCKS) NAME##_fold_kernel(ARGS a, size_t n) \
    {                                                                                        \
        enum { T = CN_DSUM32_THREADS, U = CN_DSUM32_U };                                     \
        __shared__ int64_t cn_lb[CN_DSUM32_LIMBS * T];                                       \
        __shared__ int64_t cn_limb[CN_DSUM32_LIMBS];                                         \
        __shared__ uint32_t cn_fl;                                                           \
        CN_DSUM_PART;                                                                        \
        for (unsigned b = 0; b < CN_DSUM32_LIMBS; b++)                                       \
            cn_lb[b * T + t] = 0;                                                            \
        if (t < CN_DSUM32_LIMBS)                                                             \
            cn_limb[t] = 0;                                                                  \
        if (t == 0)                                                                          \
            cn_fl = 0;                                                                       \
        __syncthreads();                                                                     \
        uint32_t flags = lo + t < hi ? CN_SUM_SAW_TERM : 0;                                  \
        unsigned cnt = 0;                                                                    \
        cn_dsum32_win win;                                                                   \
        cn_dsum32_win_init(&win);                                                            \
        CN_DSUM_STREAMS(float, float4, 4, CN_DSUM_VLOAD32, VEC, BASE, TERM, CN_DSUM32_WBATCH, CN_DSUM32_WPUT, \
                        CN_DSUM32_WEVERY, CN_DSUM32_WFIRST);                                  \
        cn_dsum32_win_flush(&win, cn_lb + t, T);                                             \
        for (int cn_b = 0; cn_b < CN_DSUM32_LIMBS; cn_b++) {                                 \
            long long cn_v = (long long)cn_lb[cn_b * T + t];                                 \
            for (int cn_d = 16; cn_d > 0; cn_d >>= 1)                                        \
                cn_v += __shfl_down_sync(0xffffffffu, cn_v, cn_d);                           \
            if ((t & 31) == 0 && cn_v)                                                       \
                atomicAdd((unsigned long long *)&cn_limb[cn_b], (unsigned long long)cn_v);   \
        }                                                                                    \
        if (flags)                                                                           \
            atomicOr(&cn_fl, flags);                                                         \
        __syncthreads();                                                                     \
        __shared__ int cn_last;                                                              \
        if (t == 0) {                                                                        \
            int64_t L[CN_DSUM32_LIMBS];                                                      \
            for (unsigned b = 0; b < CN_DSUM32_LIMBS; b++)                                   \
                L[b] = cn_limb[b];                                                           \
            cn_dsum32_carry(L);                                                              \
            cn_last = cn_dsum_add((struct cn_dsum_total *)a.cn_part, L, CN_DSUM32_LIMBS, cn_fl); \
        }                                                                                    \
        CN_DSUM_STORE(float, 0, STORE);                                                      \
    }
#endif

/* A thread's bins into the block's limbs (every 2^14 terms, when the
 * threads are at different places). */
#define CN_DSUM32_SPILL(t)                                                                     \
    if (CN_DSUM32_HOT)                                                                       \
        cn_dsum32_hot_spill(&cn_hot, cn_bins + (t), T);                                      \
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
    if (CN_DSUM32_HOT)                                                                       \
        cn_dsum32_hot_spill(&cn_hot, cn_bins + (t), T);                                      \
    for (int cn_b = 0; cn_b < CN_DSUM32_BINS; cn_b++) {                                      \
        long long cn_v = (long long)cn_dsum32_take(cn_bins + (t), T, cn_b, &flags);          \
        for (int cn_d = 16; cn_d > 0; cn_d >>= 1)                                            \
            cn_v += __shfl_down_sync(0xffffffffu, cn_v, cn_d);                               \
        if (((t) & 31) == 0 && cn_v)                                                         \
            atomicAdd((unsigned long long *)&cn_limb[cn_b], (unsigned long long)cn_v);       \
    }

/* f64: block p folds part p. Each thread sums the terms its window takes
 * (cairn_dsumstep.h, cn_dsum64_win) in registers, and adds any other into its
 * own 68 digits, a column of shared memory; the window moves into the
 * digits every 2^10 terms and at the end. A term goes into two digits
 * (CN_DSUM64_PIECES 2: pieces below 2^32 and 2^52), so a digit could
 * outgrow 63 bits in a long part: the columns are carried at every window
 * flush (every 2^10 terms) and at the end, then added, and the block's
 * digits added into the total. (PIECES 3, the pieces below 2^32, needs
 * only the carry at the end: a part's 2^18 adds a digit stay below 2^50.) (One
 * column a warp, added with shared atomics, held five times the threads
 * but took 22 times CUB's time on terms of every exponent, where most
 * terms go to the digits: evidence/2026-12-04-scan-tiles.md.) */
#define CN_DSUM64_FOLD_KERNEL(NAME, ARGS, TERM, STORE, BASE, VEC)                              \
    static __global__ void __launch_bounds__(CN_DSUM64_THREADS) NAME##_fold_kernel(ARGS a, size_t n) \
    {                                                                                        \
        enum { T = CN_DSUM64_THREADS, U = CN_DSUM64_U };                                     \
        __shared__ int64_t cn_dg[CN_SUM_DIGITS * T];                                         \
        __shared__ int64_t cn_sum[CN_SUM_DIGITS];                                            \
        __shared__ uint32_t cn_fl;                                                           \
        CN_DSUM_PART;                                                                        \
        for (unsigned i = 0; i < CN_SUM_DIGITS; i++)                                         \
            cn_dg[i * T + t] = 0;                                                            \
        if (t == 0)                                                                          \
            cn_fl = 0;                                                                       \
        __syncthreads(); /* the zero before any thread's flags */                            \
        uint32_t flags = lo + t < hi ? CN_SUM_SAW_TERM : 0;                                  \
        unsigned cnt = 0;                                                                    \
        cn_dsum64_win win;                                                                   \
        cn_dsum64_win_init(&win);                                                            \
        CN_DSUM_STREAMS(double, double2, 2, CN_DSUM_VLOAD64, VEC, BASE, TERM, CN_DSUM64_BATCH, CN_DSUM64_PUT, \
                        CN_DSUM64_EVERY, CN_DSUM64_FIRST);                                    \
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
            cn_last = cn_dsum_add((struct cn_dsum_total *)a.cn_part, cn_sum, CN_SUM_DIGITS, cn_fl); \
        CN_DSUM_STORE(double, 1, STORE);                                                     \
    }

/* The total zeroed, one launch of a full wave of blocks; with no terms the
 * one block that runs finds nothing and rounds +0.0. */
#define CN_DSUM_RUN(NAME, ARGS, THREADS, WIDE)                                                 \
    static void NAME##_fold_launch(cudaStream_t s, unsigned blocks, unsigned threads, const void *args, size_t n) \
    {                                                                                        \
        NAME##_fold_kernel<<<blocks, threads, 0, s>>>(*(const ARGS *)args, n);               \
    }                                                                                        \
    static const struct cn_dev_kernel NAME##_fold = {NAME##_what, THREADS, true, NAME##_fold_launch, NULL}; \
    static int NAME##_wave[CN_DSUM_DEVICES];                                                 \
    static size_t NAME##_parts(size_t n)                                                     \
    {                                                                                        \
        return cn_dsum_parts(n, (const void *)NAME##_fold_kernel, THREADS, WIDE, NAME##_wave); \
    }                                                                                        \
    static void NAME##_run(struct cn_exec *x, const ARGS *a)                                 \
    {                                                                                        \
        cn_exec_memset(x, a->cn_part, 0, sizeof(struct cn_dsum_total));                      \
        cn_exec_launch(x, &NAME##_fold, a->cn_P * (THREADS), a);                             \
    }

#define CN_DEV_EXACT_SUM32(NAME, ARGS, TERM, STORE)                                          \
    CN_DSUM32_FOLD_KERNEL(NAME, ARGS, TERM, STORE, cn_dsum_no_base, 0)                       \
    CN_DSUM_RUN(NAME, ARGS, CN_DSUM32_THREADS, 0)

#define CN_DEV_EXACT_SUM64(NAME, ARGS, TERM, STORE)                                          \
    CN_DSUM64_FOLD_KERNEL(NAME, ARGS, TERM, STORE, cn_dsum_no_base, 0)                       \
    CN_DSUM_RUN(NAME, ARGS, CN_DSUM64_THREADS, 1)

/* The same, for a term that reads view data at BASE as it is. */
#define CN_DEV_EXACT_SUM32V(NAME, ARGS, TERM, STORE, BASE)                                    \
    CN_DSUM32_FOLD_KERNEL(NAME, ARGS, TERM, STORE, BASE, 1)                                  \
    CN_DSUM_RUN(NAME, ARGS, CN_DSUM32_THREADS, 0)

#define CN_DEV_EXACT_SUM64V(NAME, ARGS, TERM, STORE, BASE)                                    \
    CN_DSUM64_FOLD_KERNEL(NAME, ARGS, TERM, STORE, BASE, 1)                                  \
    CN_DSUM_RUN(NAME, ARGS, CN_DSUM64_THREADS, 1)

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
/* (the host's own sum reads a plain view as any other) */
#define CN_DEV_EXACT_SUM32V(NAME, ARGS, TERM, STORE, BASE) CN_DEV_EXACT_SUM32(NAME, ARGS, TERM, STORE)
#define CN_DEV_EXACT_SUM64V(NAME, ARGS, TERM, STORE, BASE) CN_DEV_EXACT_SUM64(NAME, ARGS, TERM, STORE)

#endif

#endif /* CAIRN_DEVSUM_H */
