/*
 * cairn_devcoll.h: the passes of a device collector (reduce, scan,
 * compact), for the CUDA machine and the emulated one. Included by
 * cairn_dev.h, after the seam it launches through.
 */
#ifndef CAIRN_DEVCOLL_H
#define CAIRN_DEVCOLL_H

/* ======================================= the passes of a device collector */

/* A device reduce, scan or compact is written by the emitted program as a
 * few functions of its context struct ARGS and an accumulator ACC, which
 * the machine's passes are built around:
 *
 *   IDENT(ACC *r)                        the operator's identity
 *   MERGE(ACC *a, const ACC *b)          a = a OP b (b's indices after a's)
 *   FOLD(ARGS *c, lo, hi, step, ACC *r)  r = the terms at lo, lo + step, ... < hi
 *   TERM(ARGS *c, j, ACC *r)             r = the term at j
 *   PUT(ARGS *c, j, const ACC *before, const ACC *after)
 *                                        store what index j yields, given the
 *                                        merge of the terms before it, and
 *                                        of those and its own
 *   FINISH(ARGS *c, ACC *total)          store the total (and check it)
 *
 * ARGS has the fields cn_n (the extent), cn_P (the parts) and cn_part (a
 * void * to the scratch: P + 1 ACCs first). A reduction runs in two passes
 * over P contiguous parts of [0, n) (part p is [cn_part_lo, cn_part_hi)):
 *
 *   CN_DEV_FOLD_PASS      part p's terms into cn_part[p]
 *   CN_DEV_TOTAL_PASS     the partials merged in order, to FINISH
 *
 * A scan or a compaction is CN_DEV_SCAN: NAME_run(x, args) queues it, as
 * one pass with decoupled look-back on the CUDA machine (below) and as
 * three passes over parts emulated.
 *
 * The emulated machine runs a pass's parts as lanes, each folding its part
 * in index order, and one lane merges the partials in order: an emulated
 * reduction folds in index order (numerics.md). On the CUDA machine a
 * reduction's part is a block of CN_DEV_FOLD_THREADS threads: its threads
 * fold the part's indices in a stride of the block (neighbouring threads
 * read neighbouring elements) and the block combines its threads' partials
 * in a fixed tree in shared memory; a one-block pass does the same over the
 * partials. The grid depends only on n, so a float reduction gives the
 * same bits on every run and every device, in an order that is not the
 * index order. */
#define CN_DEV_FOLD_THREADS 256
#if CN_DEV_CUDA
/* Blocks of a pass. 512 summed 2^28 f32 at CUB's speed on the H200, where
 * 1024 (one full wave) and 2048 were 3-6% slower
 * (evidence/2026-11-30-device-speed.md). */
#define CN_DEV_PARTS_MAX ((size_t)512)
#else
#define CN_DEV_PARTS_MAX ((size_t)64)
#endif

/* P, the parts of an extent n: on the CUDA machine at least a block's
 * worth of indices each. */
static inline size_t cn_dev_parts(size_t n)
{
    size_t per = CN_DEV_CUDA ? CN_DEV_FOLD_THREADS : 1;
    size_t p = (n + per - 1) / per;
    return p < CN_DEV_PARTS_MAX ? p : CN_DEV_PARTS_MAX;
}

/* The lanes a pass over P parts is launched with. */
static inline size_t cn_dev_part_lanes(size_t P) { return CN_DEV_CUDA ? P * CN_DEV_FOLD_THREADS : P; }

/* Part p of [0, n) in P contiguous parts: [lo, hi). */
CN_DEV_BOTH size_t cn_part_lo(size_t n, size_t P, size_t p)
{
    size_t q = n / P, r = n % P;
    return p * q + (p < r ? p : r);
}

CN_DEV_BOTH size_t cn_part_hi(size_t n, size_t P, size_t p)
{
    return cn_part_lo(n, P, p) + n / P + (p < n % P ? 1 : 0);
}

/* A scan's or a compaction's parts: on the CUDA machine its tiles (below),
 * emulated the parts of a reduction. Its scratch: the P + 1 ACCs of
 * cn_part, and on the CUDA machine the P inclusive prefixes, status words
 * and tile counter of the look-back; whole 16-byte words, so what the
 * emitted code puts after it is aligned. */
#ifndef CN_DEV_SCAN_THREADS
#define CN_DEV_SCAN_THREADS 128
#endif
/* Blocks of a scan a multiprocessor holds: the tiles in flight are what a
 * look-back's latency is spread over. Twelve (40 registers a thread) for
 * partials of up to 8 bytes, eight (64) for wider ones: on the H200, twelve
 * took the scan of i32 from 1.28x CUB's time to 1.12x and the compaction
 * from 1.51x to 1.33x, eight and ten were slower, and fewer items a thread
 * (23 for 4 bytes) slower still (evidence/2026-12-04-scan-tiles.md). */
#ifndef CN_DEV_SCAN_BLOCKS_SM
#define CN_DEV_SCAN_BLOCKS_SM(size) ((size) <= 8 ? 12 : 8)
#endif
/* K, odd; 128 x K ACCs take 16 KB of shared memory for 4-byte partials
 * (twelve blocks fit), 21 KB for 8-byte ones (ten fit). */
#ifndef CN_DEV_SCAN_K4
#define CN_DEV_SCAN_K4 31
#endif
#ifndef CN_DEV_SCAN_K8
#define CN_DEV_SCAN_K8 21
#endif
#define CN_DEV_SCAN_ITEMS(size) ((size) <= 4 ? CN_DEV_SCAN_K4 : (size) <= 8 ? CN_DEV_SCAN_K8 : (size) <= 16 ? 11 : (size) <= 32 ? 5 : 1)

/* A compaction's tile holds its kept values in shared memory: K a thread
 * for values of up to 4 bytes (16 KB, so twelve blocks of 128 fit on a
 * multiprocessor, as for a scan), fewer for wider ones. */
#define CN_DEV_COMPACT_ITEMS(vsize) ((vsize) <= 4 ? CN_DEV_SCAN_K4 : \
    16384 / (CN_DEV_SCAN_THREADS * (vsize)) > 1 ? 16384 / (CN_DEV_SCAN_THREADS * (vsize)) : 1)

/* Kept values a lane computes before it stores them (compactions). */
#ifndef CN_COMPACT_GROUP
#define CN_COMPACT_GROUP 8
#endif

/* The one-read compaction (CN_DEV_COMPACT_KERNEL) is the default: on an
 * H100 it took 1.04-1.10x cub::DeviceSelect::If at 2^24-2^28 where the
 * compaction that scans an array of counts (CN_DEV_COMPACT_ONE_READ=0)
 * took 1.22-1.35x (evidence/2026-12-05-h100-tensor.md, call 4). */
#ifndef CN_DEV_COMPACT_ONE_READ
#define CN_DEV_COMPACT_ONE_READ 1
#endif

/* A compaction counts in 32 bits up to this extent, in 64 past it (a test
 * sets it lower to run the 64-bit counts on small extents). */
#ifndef CN_DEV_COUNT32_MAX
#define CN_DEV_COUNT32_MAX ((size_t)UINT32_MAX)
#endif

CN_DEV_BOTH size_t cn_dev_round16(size_t bytes) { return (bytes + 15) / 16 * 16; }

/* The look-back's record of a tile, on the CUDA machine. Partials of at
 * most 8 bytes share one 16-byte slot with the tile's status, written and
 * read as one 128-bit access (so one load gives a status and its value);
 * wider ones keep the aggregate, the inclusive prefix and a status word
 * apart, the value read after the status. The slot holds the status twice,
 * once in each 8-byte half beside 4 bytes of the value: PTX promises
 * single-copy atomicity up to 64 bits, and on the H200 a u8 scan max once in
 * ten runs took tile 1's prefix from a slot whose status had arrived and
 * whose value had not (evidence/2026-12-04-wide-lanes.md). A reader takes
 * a slot only when both halves carry the same status: each status is
 * published once a slot, so both halves are then from one store. */
CN_DEV_BOTH int cn_dev_scan_packed(size_t size) { return size <= 8; }

/* The status words of P tiles, an even count (the counter after them is 8-byte aligned). */
CN_DEV_BOTH size_t cn_dev_scan_words(size_t P) { return (P + 1) / 2 * 2; }

/* Where the part zeroed before the launch begins: the slots, or the status
 * words after P + 1 aggregates and P inclusive prefixes. */
CN_DEV_BOTH size_t cn_dev_scan_zero_at(size_t P, size_t size)
{
    return cn_dev_scan_packed(size) ? 0 : cn_dev_round16((2 * P + 1) * size);
}

/* Where the tile counter is. */
CN_DEV_BOTH size_t cn_dev_scan_counter_at(size_t P, size_t size)
{
    return cn_dev_scan_packed(size) ? 16 * P : cn_dev_scan_zero_at(P, size) + cn_dev_scan_words(P) * 4;
}

static inline size_t cn_dev_scan_parts(size_t n, size_t size)
{
#if CN_DEV_CUDA
    size_t tile = (size_t)CN_DEV_SCAN_THREADS * CN_DEV_SCAN_ITEMS(size);
    return n / tile + (n % tile != 0);
#else
    (void)size;
    return cn_dev_parts(n);
#endif
}

/* A compaction's tiles, for values of vsize bytes and counts of csize. */
static inline size_t cn_dev_compact_parts(size_t n, size_t vsize, size_t csize)
{
#if CN_DEV_CUDA
    size_t items = CN_DEV_COMPACT_ONE_READ ? CN_DEV_COMPACT_ITEMS(vsize) : CN_DEV_SCAN_ITEMS(csize);
    size_t tile = (size_t)CN_DEV_SCAN_THREADS * items;
    return n / tile + (n % tile != 0);
#else
    (void)vsize, (void)csize;
    return cn_dev_parts(n);
#endif
}

static inline size_t cn_dev_scan_bytes(size_t P, size_t size)
{
#if CN_DEV_CUDA
    return cn_dev_round16(cn_dev_scan_counter_at(P, size) + 8);
#else
    return cn_dev_round16((P + 1) * size);
#endif
}

#if CN_DEV_CUDA

/* A pass whose grid is exactly its parts (no grid-stride loop, no cap). */
#define CN_DEV_PASS_KERNEL(NAME, ARGS)                                                        \
    static void NAME##_launch(cudaStream_t s, unsigned blocks, unsigned threads,             \
                              const void *args, size_t n)                                    \
    {                                                                                        \
        NAME##_kernel<<<blocks, threads, 0, s>>>(*(const ARGS *)args, n);                    \
    }                                                                                        \
    static const struct cn_dev_kernel NAME = {NAME##_what, CN_DEV_FOLD_THREADS, true, NAME##_launch, NULL};

/* sh[0] = sh[0] OP sh[1] OP ... OP sh[T - 1], in a fixed tree: after it,
 * every thread of the block may read sh[0]. */
#define CN_DEV_BLOCK_TREE(sh, MERGE)                                                         \
    do {                                                                                     \
        __syncthreads();                                                                     \
        for (unsigned cn_w = CN_DEV_FOLD_THREADS / 2; cn_w > 0; cn_w >>= 1) {                \
            if (threadIdx.x < cn_w)                                                          \
                MERGE(&sh[threadIdx.x], &sh[threadIdx.x + cn_w]);                            \
            __syncthreads();                                                                 \
        }                                                                                    \
    } while (0)

#define CN_DEV_FOLD_PASS(NAME, ARGS, ACC, FOLD, MERGE)                                       \
    static __global__ void __launch_bounds__(CN_DEV_FOLD_THREADS) NAME##_kernel(ARGS a, size_t n) \
    {                                                                                        \
        __shared__ ACC cn_sh[CN_DEV_FOLD_THREADS];                                           \
        size_t lo = cn_part_lo(a.cn_n, a.cn_P, blockIdx.x), hi = cn_part_hi(a.cn_n, a.cn_P, blockIdx.x); \
        FOLD(&a, lo + threadIdx.x, hi, CN_DEV_FOLD_THREADS, &cn_sh[threadIdx.x]);            \
        CN_DEV_BLOCK_TREE(cn_sh, MERGE);                                                     \
        if (threadIdx.x == 0)                                                                \
            ((ACC *)a.cn_part)[blockIdx.x] = cn_sh[0];                                                \
        (void)n;                                                                             \
    }                                                                                        \
    CN_DEV_PASS_KERNEL(NAME, ARGS)

#define CN_DEV_TOTAL_PASS(NAME, ARGS, ACC, IDENT, MERGE, FINISH)                             \
    static __global__ void __launch_bounds__(CN_DEV_FOLD_THREADS) NAME##_kernel(ARGS a, size_t n) \
    {                                                                                        \
        __shared__ ACC cn_sh[CN_DEV_FOLD_THREADS];                                           \
        IDENT(&cn_sh[threadIdx.x]);                                                          \
        for (size_t q = threadIdx.x; q < a.cn_P; q += CN_DEV_FOLD_THREADS)                   \
            MERGE(&cn_sh[threadIdx.x], &((const ACC *)a.cn_part)[q]);                                       \
        CN_DEV_BLOCK_TREE(cn_sh, MERGE);                                                     \
        if (threadIdx.x == 0)                                                                \
            FINISH(&a, &cn_sh[0]);                                                           \
        (void)n;                                                                             \
    }                                                                                        \
    CN_DEV_PASS_KERNEL(NAME, ARGS)

/* ------------------------------------------ the single-pass scan (CUDA) */

/* A scan or a compaction on the CUDA machine is one pass over tiles of
 * CN_DEV_SCAN_THREADS x K indices, with decoupled look-back (Merrill and
 * Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
 * NVIDIA 2016): it reads the terms once and stores each index once, where
 * the passes of a reduction read them twice.
 *
 * A block takes the next tile from a counter when it is free (so every
 * tile before it belongs to a block already running: a wait on one always
 * ends), and:
 *
 *   1. each warp computes its segment of 32 x K terms, neighbouring lanes
 *      at neighbouring indices, into shared memory (the segment is the
 *      warp's own, so a __syncwarp orders it);
 *   2. lane l folds the segment's K terms l*K .. l*K+K-1 (K is odd, so
 *      those reads meet no bank twice), and the warp scans its lanes'
 *      totals with shuffles;
 *   3. after a block barrier, warp 0 combines the warps' totals, publishes
 *      the tile's aggregate, looks back over the tiles before it
 *      (CN_SCAN_LOOKBACK) until it meets one that has published its
 *      inclusive prefix, merges what it met in index order, and publishes
 *      its own inclusive prefix;
 *   4. after a second barrier, each lane replaces its K terms by their
 *      inclusive prefixes, and the warp STORES its segment with
 *      neighbouring lanes at neighbouring indices, each index given the
 *      prefixes before and after it (before the segment's first, the
 *      warp's exclusive prefix, cn_wex).
 *
 * (Each warp a tile of its own, with no block barrier, was slower on the
 * H200: every warp then paid a look-back, evidence/2026-12-04-scan-tiles.md.)
 *
 * Which tiles a look-back meets depends on timing, so the merges happen in
 * an order no run fixes: the operator must be exactly associative, as
 * every integer operator a device scan allows is (a float scan is
 * E-SCAN-ORDER). Every index still gets exactly its prefix, so the result
 * is the same bits on every run. The scratch: the tiles' records (slots,
 * or aggregates, prefixes and status words: cn_dev_scan_packed) and the
 * tile counter, zeroed before the launch. */
/* A tile's status word: nothing yet, its aggregate, its inclusive prefix. */
enum { CN_SCAN_NONE = 0, CN_SCAN_AGGREGATE = 1, CN_SCAN_PREFIX = 2 };

/* A value another block published: strong loads at device scope, never a
 * line this multiprocessor's L1 kept from before it was written. */
static __device__ inline void cn_scan_value_load(void *dst, const void *src, size_t size)
{
    if (size % 4 == 0) {
        for (size_t w = 0; w < size / 4; w++) {
            unsigned v;
            asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"((const unsigned *)src + w) : "memory");
            ((unsigned *)dst)[w] = v;
        }
    } else {
        for (size_t b = 0; b < size; b++)
            ((unsigned char *)dst)[b] = ((const volatile unsigned char *)src)[b];
    }
}

/* Publishes tile j's value with its status (AGGREGATE or PREFIX). */
static __device__ inline void cn_scan_publish(void *part, size_t P, size_t j, const void *val, size_t size,
                                              unsigned st)
{
    if (cn_dev_scan_packed(size)) {
        unsigned v[2] = {0, 0};
        memcpy(v, val, size);
        unsigned long long lo = v[0] | (unsigned long long)st << 32, hi = v[1] | (unsigned long long)st << 32;
        asm volatile("{ .reg .b128 t; mov.b128 t, {%0, %1}; st.relaxed.gpu.global.b128 [%2], t; }" ::"l"(lo),
                     "l"(hi), "l"((char *)part + 16 * j)
                     : "memory");
        return;
    }
    char *v = (char *)part + (st == CN_SCAN_PREFIX ? P + 1 + j : j) * size;
    memcpy(v, val, size);
    unsigned *status = (unsigned *)((char *)part + cn_dev_scan_zero_at(P, size));
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(status + j), "r"(st) : "memory");
}

/* Tile j's status, and its value into *val unless the status is NONE. */
static __device__ inline unsigned cn_scan_load(const void *part, size_t P, size_t j, void *val, size_t size)
{
    if (cn_dev_scan_packed(size)) {
        unsigned long long lo, hi;
        asm volatile("{ .reg .b128 t; ld.relaxed.gpu.global.b128 t, [%2]; mov.b128 {%0, %1}, t; }"
                     : "=l"(lo), "=l"(hi)
                     : "l"((const char *)part + 16 * j)
                     : "memory");
        unsigned st = (unsigned)(lo >> 32), v[2] = {(unsigned)lo, (unsigned)hi};
        if (st != (unsigned)(hi >> 32))
            return CN_SCAN_NONE;    /* the halves of two stores: read it again */
        if (st != CN_SCAN_NONE)
            memcpy(val, v, size);
        return st;
    }
    const unsigned *status = (const unsigned *)((const char *)part + cn_dev_scan_zero_at(P, size));
    unsigned st;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(st) : "l"(status + j) : "memory");
    if (st != CN_SCAN_NONE)
        cn_scan_value_load(val, (const char *)part + (st == CN_SCAN_PREFIX ? P + 1 + j : j) * size, size);
    return st;
}

/* dst = src of lane SHFL(...) for any ACC: one shuffle a 32-bit word. */
#define CN_SCAN_SHFL(SHFL, ACC, dst, src, arg)                                                 \
    do {                                                                                     \
        unsigned cn_sw[(sizeof(ACC) + 3) / 4] = {0};                                         \
        memcpy(cn_sw, &(src), sizeof(ACC));                                                  \
        for (unsigned cn_q = 0; cn_q < (sizeof(ACC) + 3) / 4; cn_q++)                        \
            cn_sw[cn_q] = SHFL(0xffffffffu, cn_sw[cn_q], arg);                               \
        memcpy(&(dst), cn_sw, sizeof(ACC));                                                  \
    } while (0)

/* Windows of 32 tiles a look-back step reads at once. One: on the H200 a
 * step of four windows (the nearest prefix is almost always within 32
 * tiles, and the far windows' merges were paid for nothing) left the scan
 * of i32 at 1.28x CUB's time, one window at 1.17x
 * (evidence/2026-12-04-scan-tiles.md). */
#ifndef CN_SCAN_WINDOWS
#define CN_SCAN_WINDOWS(size) 1
#endif

/* Warp 0's look-back for tile `tile` (>= 1): returns in *ex the merge of
 * every tile before it, in index order. A step reads R windows of 32 tiles
 * at once, lane k of window r tile base - 32r - k, each lane waiting until
 * its tile has published; the nearest window holding a tile with its
 * inclusive prefix ends the walk at that tile. Each window's values (from
 * that prefix, or all its aggregates) are merged in an ordered tree (the
 * lane with the higher number holds the earlier tile), the far windows'
 * before the near ones'. */
#define CN_SCAN_LOOKBACK(ACC, IDENT, MERGE, tile, part, P, ex)                                 \
    do {                                                                                     \
        enum { R = CN_SCAN_WINDOWS(sizeof(ACC)) };                                           \
        const unsigned cn_ln = threadIdx.x & 31;                                             \
        IDENT(ex);                                                                           \
        long long cn_base = (long long)(tile) - 1;                                           \
        for (;;) {                                                                           \
            unsigned cn_s[R];                                                                \
            ACC cn_v[R];                                                                     \
            _Pragma("unroll") for (unsigned r = 0; r < R; r++) {                             \
                long long cn_j = cn_base - 32 * (long long)r - (long long)cn_ln;             \
                cn_s[r] = CN_SCAN_PREFIX;                                                    \
                IDENT(&cn_v[r]);                                                             \
                if (cn_j >= 0)                                                               \
                    cn_s[r] = cn_scan_load(part, P, (size_t)cn_j, &cn_v[r], sizeof(ACC));    \
            }                                                                                \
            _Pragma("unroll") for (unsigned r = 0; r < R; r++) {                             \
                long long cn_j = cn_base - 32 * (long long)r - (long long)cn_ln;             \
                for (unsigned cn_spin = 0; cn_s[r] == CN_SCAN_NONE; cn_spin++) {             \
                    if (cn_spin >= 4)                                                        \
                        __nanosleep(32);                                                     \
                    cn_s[r] = cn_scan_load(part, P, (size_t)cn_j, &cn_v[r], sizeof(ACC));    \
                }                                                                            \
            }                                                                                \
            unsigned cn_stop = R, cn_last = 31;                                              \
            _Pragma("unroll") for (unsigned r = 0; r < R; r++) {                             \
                unsigned cn_pm = __ballot_sync(0xffffffffu, cn_s[r] == CN_SCAN_PREFIX);      \
                if (cn_stop == R && cn_pm) {                                                 \
                    cn_stop = r;                                                             \
                    cn_last = (unsigned)__ffs(cn_pm) - 1;                                    \
                }                                                                            \
            }                                                                                \
            ACC cn_w;                                                                        \
            IDENT(&cn_w);                                                                    \
            _Pragma("unroll") for (int r = R - 1; r >= 0; r--) {                             \
                if ((unsigned)r > cn_stop)                                                   \
                    continue;                                                                \
                ACC cn_x = cn_v[r];                                                          \
                if ((unsigned)r == cn_stop && cn_ln > cn_last)                               \
                    IDENT(&cn_x);                                                            \
                for (unsigned cn_d = 1; cn_d < 32; cn_d <<= 1) {                             \
                    ACC cn_o;                                                                \
                    CN_SCAN_SHFL(__shfl_down_sync, ACC, cn_o, cn_x, cn_d);                   \
                    if ((cn_ln & (2 * cn_d - 1)) == 0) {                                     \
                        MERGE(&cn_o, &cn_x);                                                 \
                        cn_x = cn_o;                                                         \
                    }                                                                        \
                }                                                                            \
                MERGE(&cn_w, &cn_x);                                                         \
            }                                                                                \
            CN_SCAN_SHFL(__shfl_sync, ACC, cn_w, cn_w, 0);                                   \
            MERGE(&cn_w, ex);                                                                \
            *(ex) = cn_w;                                                                    \
            if (cn_stop < R)                                                                 \
                break;                                                                       \
            cn_base -= 32 * R;                                                               \
        }                                                                                    \
    } while (0)

/* Warp 0 of a tile's block, after the barrier that follows the warps'
 * totals wt[0..W): the tile's total (their merge) published, the look-back
 * for the merge of every tile before it into pre (every thread reads it
 * after the next barrier), and the tile's inclusive prefix published; all,
 * that prefix too, when the tile is the last (a compaction's count). */
#define CN_SCAN_TILE_PREFIX(ACC, IDENT, MERGE, wt, W, tile, P, pre, all)                       \
    if (threadIdx.x < 32) {                                                                  \
        const unsigned cn_l0 = threadIdx.x;                                                  \
        ACC cn_tot, cn_ex;                                                                   \
        IDENT(&cn_tot);                                                                      \
        for (unsigned cn_w = 0; cn_w < (W); cn_w++)                                          \
            MERGE(&cn_tot, &(wt)[cn_w]);                                                     \
        IDENT(&cn_ex);                                                                       \
        if ((tile) == 0) {                                                                   \
            if (cn_l0 == 0)                                                                  \
                cn_scan_publish(a.cn_part, P, 0, &cn_tot, sizeof(ACC), CN_SCAN_PREFIX);      \
        } else {                                                                             \
            if (cn_l0 == 0)                                                                  \
                cn_scan_publish(a.cn_part, P, tile, &cn_tot, sizeof(ACC), CN_SCAN_AGGREGATE); \
            CN_SCAN_LOOKBACK(ACC, IDENT, MERGE, tile, a.cn_part, P, &cn_ex);                 \
        }                                                                                    \
        if (cn_l0 == 0) {                                                                    \
            ACC cn_i = cn_ex;                                                                \
            MERGE(&cn_i, &cn_tot);                                                           \
            if ((tile) != 0)                                                                 \
                cn_scan_publish(a.cn_part, P, tile, &cn_i, sizeof(ACC), CN_SCAN_PREFIX);     \
            pre = cn_ex;                                                                     \
            all = cn_i;                                                                      \
        }                                                                                    \
    }

/* The last step of a tile (inside CN_DEV_SCAN_KERNEL): each index of the
 * warp's segment, lane + 32k, given the prefixes before and after it.
 * A scan PUTs each index. */
#define CN_SCAN_PUTS(PUT, ACC)                                                               \
    _Pragma("unroll") for (unsigned k = 0; k < K; k++) {                                     \
        size_t j = lo + k * 32 + lane;                                                       \
        unsigned q = k * 32 + lane;                                                          \
        if (j < hi)                                                                          \
            PUT(&a, j, q ? &seg[q - 1] : &cn_wex[warp], &seg[q]);                            \
    }

/* A compaction computes the values of the kept indices of 8 of its lane's
 * indices (F_value, into registers), then stores them (F_store, at the
 * count kept before each): the loads of the 8 are in flight together,
 * where one PUT after another would wait for each load in turn, the
 * compiler keeping a load after the store before it. */
#define CN_COMPACT_PUTS(F, ACC)                                                              \
    _Pragma("unroll") for (unsigned k0 = 0; k0 < K; k0 += CN_COMPACT_GROUP) {                \
        F##_vt cn_v[CN_COMPACT_GROUP];                                                       \
        bool cn_keep[CN_COMPACT_GROUP];                                                      \
        _Pragma("unroll") for (unsigned g = 0; g < CN_COMPACT_GROUP; g++) {                  \
            unsigned q = (k0 + g) * 32 + lane;                                               \
            size_t j = lo + q;                                                               \
            cn_keep[g] = k0 + g < K && j < hi && seg[q] != (q ? seg[q - 1] : cn_wex[warp]);  \
            if (cn_keep[g])                                                                  \
                F##_value(&a, j, &cn_v[g]);                                                  \
        }                                                                                    \
        _Pragma("unroll") for (unsigned g = 0; g < CN_COMPACT_GROUP; g++) {                  \
            unsigned q = (k0 + g) * 32 + lane;                                               \
            if (cn_keep[g])                                                                  \
                F##_store(&a, q ? seg[q - 1] : cn_wex[warp], &cn_v[g]);                       \
        }                                                                                    \
    }

#define CN_DEV_SCAN_KERNEL(NAME, ARGS, ACC, IDENT, MERGE, TERM, FINISH, STORES, F)          \
    static __global__ void __launch_bounds__(CN_DEV_SCAN_THREADS, CN_DEV_SCAN_BLOCKS_SM(sizeof(ACC))) NAME##_kernel(ARGS a, size_t n) \
    {                                                                                        \
        enum { K = CN_DEV_SCAN_ITEMS(sizeof(ACC)), T = CN_DEV_SCAN_THREADS, TILE = T * K, W = T / 32, SEG = 32 * K }; \
        __shared__ ACC cn_x[TILE];                                                           \
        __shared__ ACC cn_wt[W];                                                             \
        __shared__ ACC cn_wex[W];                                                            \
        __shared__ ACC cn_pre, cn_all;                                                       \
        __shared__ unsigned long long cn_tile;                                               \
        const unsigned t = threadIdx.x, lane = t & 31, warp = t >> 5;                        \
        const size_t P = a.cn_P, N = a.cn_n;                                                 \
        unsigned long long *counter =                                                        \
            (unsigned long long *)((char *)a.cn_part + cn_dev_scan_counter_at(P, sizeof(ACC))); \
        ACC *const seg = &cn_x[warp * SEG];                                                  \
        (void)n;                                                                             \
        if (P == 0) {                                                                        \
            if (blockIdx.x == 0 && t == 0) {                                                 \
                ACC cn_z;                                                                    \
                IDENT(&cn_z);                                                                \
                FINISH(&a, &cn_z);                                                           \
            }                                                                                \
            return;                                                                          \
        }                                                                                    \
        for (;;) {                                                                           \
            if (t == 0)                                                                      \
                cn_tile = atomicAdd(counter, 1ull);                                          \
            __syncthreads();                                                                 \
            const size_t tile = (size_t)cn_tile;                                             \
            if (tile >= P)                                                                   \
                break;                                                                       \
            const size_t lo = tile * TILE + (size_t)warp * SEG;                              \
            const size_t hi = N - tile * TILE < (size_t)TILE ? N : tile * TILE + TILE;       \
            _Pragma("unroll") for (unsigned k = 0; k < K; k++) {                             \
                size_t j = lo + k * 32 + lane;                                               \
                if (j < hi)                                                                  \
                    TERM(&a, j, &seg[k * 32 + lane]);                                        \
                else                                                                         \
                    IDENT(&seg[k * 32 + lane]);                                              \
            }                                                                                \
            __syncwarp();                                                                    \
            ACC run = seg[lane * K];                                                         \
            for (unsigned k = 1; k < K; k++)                                                 \
                MERGE(&run, &seg[lane * K + k]);                                             \
            for (unsigned d = 1; d < 32; d <<= 1) {                                          \
                ACC o;                                                                       \
                CN_SCAN_SHFL(__shfl_up_sync, ACC, o, run, d);                                \
                if (lane >= d) {                                                             \
                    MERGE(&o, &run);                                                         \
                    run = o;                                                                 \
                }                                                                            \
            }                                                                                \
            ACC before;                                                                      \
            CN_SCAN_SHFL(__shfl_up_sync, ACC, before, run, 1);                               \
            if (lane == 0)                                                                   \
                IDENT(&before);                                                              \
            if (lane == 31)                                                                  \
                cn_wt[warp] = run;                                                           \
            __syncthreads();                                                                 \
            CN_SCAN_TILE_PREFIX(ACC, IDENT, MERGE, cn_wt, W, tile, P, cn_pre, cn_all);         \
            __syncthreads();                                                                 \
            ACC b = cn_pre;                                                                  \
            for (unsigned w = 0; w < warp; w++)                                              \
                MERGE(&b, &cn_wt[w]);                                                        \
            if (lane == 0)                                                                   \
                cn_wex[warp] = b;                                                            \
            MERGE(&b, &before);                                                              \
            for (unsigned k = 0; k < K; k++) {                                               \
                MERGE(&b, &seg[lane * K + k]);                                               \
                seg[lane * K + k] = b;                                                       \
            }                                                                                \
            __syncwarp();                                                                    \
            STORES(F, ACC);                                                                  \
            if (tile == P - 1 && lo < hi && hi - lo <= (size_t)SEG && (size_t)(hi - lo - 1) % 32 == lane) \
                FINISH(&a, &seg[hi - lo - 1]);                                               \
        }                                                                                    \
    }                                                                                        \
    static void NAME##_launch(cudaStream_t s, unsigned blocks, unsigned threads,             \
                              const void *args, size_t n)                                    \
    {                                                                                        \
        NAME##_kernel<<<blocks, threads, 0, s>>>(*(const ARGS *)args, n);                    \
    }                                                                                        \
    static const struct cn_dev_kernel NAME = {NAME##_what, CN_DEV_SCAN_THREADS, true, NAME##_launch, NULL};

/* The scan's one launch: the slots or status words and the counter
 * zeroed, then a block a tile (at most CN_DEV_MAX_BLOCKS: a block loops
 * over the tiles the counter gives it), and one block that only FINISHes
 * when there are no indices. */
#define CN_DEV_TILE_RUN(NAME, ARGS, ACC)                                                     \
    static void NAME##_run(struct cn_exec *x, const ARGS *a)                                 \
    {                                                                                        \
        size_t P = a->cn_P, at = cn_dev_scan_zero_at(P, sizeof(ACC));                       \
        cn_exec_memset(x, (char *)a->cn_part + at, 0, cn_dev_scan_bytes(P, sizeof(ACC)) - at); \
        size_t blocks = P == 0 ? 1 : P < CN_DEV_MAX_BLOCKS ? P : CN_DEV_MAX_BLOCKS;          \
        cn_exec_launch(x, &NAME, blocks * CN_DEV_SCAN_THREADS, a);                           \
    }

#define CN_DEV_SCAN(NAME, ARGS, ACC, IDENT, MERGE, FOLD, TERM, PUT, FINISH)                  \
    CN_DEV_SCAN_KERNEL(NAME, ARGS, ACC, IDENT, MERGE, TERM, FINISH, CN_SCAN_PUTS, PUT)       \
    CN_DEV_TILE_RUN(NAME, ARGS, ACC)

/* A compaction on the CUDA machine, one pass over tiles of
 * CN_DEV_SCAN_THREADS x K indices like a scan's, but with no array of
 * counts: each warp takes its segment 32 indices at a time (8 rows of 32
 * loaded at once), a ballot tells each lane how many of the row before it
 * keep, and each kept value goes straight to its place among the warp's
 * kept values in shared memory, so every index is read once (the term and
 * the value from one load). Then, as in a scan, warp 0 merges the warps'
 * counts and looks back for the tile's; each warp stores its kept values
 * at consecutive places, 32 at a time. (Computing keeps into an array of
 * counts, scanning it and loading each kept value again took 1.21x CUB's
 * DeviceSelect::If at 2^28 on the H200, evidence/2026-12-04-scan-tiles.md.)
 * F_vt is the value's type; F_term is what index j keeps (0 or 1);
 * F_value its value; F_store stores a value at a count. */
#define CN_DEV_COMPACT_KERNEL(NAME, ARGS, ACC, F)                                               \
    static __global__ void __launch_bounds__(CN_DEV_SCAN_THREADS, CN_DEV_SCAN_BLOCKS_SM(sizeof(ACC))) NAME##_kernel(ARGS a, size_t n) \
    {                                                                                        \
        enum { K = CN_DEV_COMPACT_ITEMS(sizeof(F##_vt)), T = CN_DEV_SCAN_THREADS, TILE = T * K, W = T / 32, SEG = 32 * K, G = CN_COMPACT_GROUP }; \
        __shared__ F##_vt cn_kept[TILE];                                                     \
        __shared__ ACC cn_wt[W];                                                             \
        __shared__ ACC cn_pre, cn_all;                                                       \
        __shared__ unsigned long long cn_tile;                                               \
        const unsigned t = threadIdx.x, lane = t & 31, warp = t >> 5;                        \
        const unsigned below = (1u << lane) - 1;                                             \
        const size_t P = a.cn_P, N = a.cn_n;                                                 \
        unsigned long long *counter =                                                        \
            (unsigned long long *)((char *)a.cn_part + cn_dev_scan_counter_at(P, sizeof(ACC))); \
        F##_vt *const kept = &cn_kept[warp * SEG];                                           \
        (void)n;                                                                             \
        if (P == 0) {                                                                        \
            if (blockIdx.x == 0 && t == 0) {                                                 \
                ACC cn_z;                                                                    \
                F##_ident(&cn_z);                                                            \
                F##_finish(&a, &cn_z);                                                       \
            }                                                                                \
            return;                                                                          \
        }                                                                                    \
        for (;;) {                                                                           \
            if (t == 0)                                                                      \
                cn_tile = atomicAdd(counter, 1ull);                                          \
            __syncthreads();                                                                 \
            const size_t tile = (size_t)cn_tile;                                             \
            if (tile >= P)                                                                   \
                break;                                                                       \
            const size_t lo = tile * TILE + (size_t)warp * SEG;                              \
            const size_t hi = N - tile * TILE < (size_t)TILE ? N : tile * TILE + TILE;       \
            unsigned cnt = 0; /* the warp's kept values so far (the same in every lane) */   \
            _Pragma("unroll") for (unsigned k0 = 0; k0 < K; k0 += G) {                       \
                F##_vt cn_v[G];                                                              \
                bool cn_k[G];                                                                \
                _Pragma("unroll") for (unsigned g = 0; g < G; g++) {                         \
                    size_t j = lo + (k0 + g) * 32 + lane;                                    \
                    cn_k[g] = false;                                                         \
                    if (k0 + g < K && j < hi) {                                              \
                        ACC cn_t;                                                            \
                        F##_term(&a, j, &cn_t);                                              \
                        cn_k[g] = cn_t != 0;                                                 \
                        if (cn_k[g])                                                         \
                            F##_value(&a, j, &cn_v[g]);                                      \
                    }                                                                        \
                }                                                                            \
                _Pragma("unroll") for (unsigned g = 0; g < G; g++) {                         \
                    if (k0 + g < K) {                                                        \
                        unsigned m = __ballot_sync(0xffffffffu, cn_k[g]);                    \
                        if (cn_k[g])                                                         \
                            kept[cnt + __popc(m & below)] = cn_v[g];                         \
                        cnt += (unsigned)__popc(m);                                          \
                    }                                                                        \
                }                                                                            \
            }                                                                                \
            if (lane == 0)                                                                   \
                cn_wt[warp] = (ACC)cnt;                                                      \
            __syncthreads();                                                                 \
            CN_SCAN_TILE_PREFIX(ACC, F##_ident, F##_merge, cn_wt, W, tile, P, cn_pre, cn_all); \
            __syncthreads();                                                                 \
            ACC b = cn_pre;                                                                  \
            for (unsigned w = 0; w < warp; w++)                                              \
                F##_merge(&b, &cn_wt[w]);                                                    \
            for (unsigned i = lane; i < cnt; i += 32)                                        \
                F##_store(&a, b + (ACC)i, &kept[i]);                                         \
            if (tile == P - 1 && t == 0)                                                     \
                F##_finish(&a, &cn_all);                                                     \
        }                                                                                    \
    }                                                                                        \
    static void NAME##_launch(cudaStream_t s, unsigned blocks, unsigned threads,             \
                              const void *args, size_t n)                                    \
    {                                                                                        \
        NAME##_kernel<<<blocks, threads, 0, s>>>(*(const ARGS *)args, n);                    \
    }                                                                                        \
    static const struct cn_dev_kernel NAME = {NAME##_what, CN_DEV_SCAN_THREADS, true, NAME##_launch, NULL};

#if CN_DEV_COMPACT_ONE_READ
#define CN_DEV_COMPACT(NAME, ARGS, ACC, F)                                                   \
    CN_DEV_COMPACT_KERNEL(NAME, ARGS, ACC, F)                                                \
    CN_DEV_TILE_RUN(NAME, ARGS, ACC)
#else
#define CN_DEV_COMPACT(NAME, ARGS, ACC, F)                                                   \
    CN_DEV_SCAN_KERNEL(NAME, ARGS, ACC, F##_ident, F##_merge, F##_term, F##_finish, CN_COMPACT_PUTS, F) \
    CN_DEV_TILE_RUN(NAME, ARGS, ACC)
#endif

#else /* the emulated machine: lanes over parts, and one lane in order */

#define CN_DEV_FOLD_PASS(NAME, ARGS, ACC, FOLD, MERGE)                                       \
    static void NAME##_lanes(void *args, size_t lo, size_t hi)                               \
    {                                                                                        \
        const ARGS *a = (const ARGS *)args;                                                  \
        for (size_t p = lo; p < hi && !cn_emu_poisoned(); p++)                               \
            FOLD(a, cn_part_lo(a->cn_n, a->cn_P, p), cn_part_hi(a->cn_n, a->cn_P, p), 1, &((ACC *)a->cn_part)[p]); \
    }                                                                                        \
    static const struct cn_dev_kernel NAME = {NAME##_what, CN_DEV_FOLD_THREADS, true, NAME##_lanes};

#define CN_DEV_TOTAL_PASS(NAME, ARGS, ACC, IDENT, MERGE, FINISH)                             \
    static void NAME##_lanes(void *args, size_t lo, size_t hi)                               \
    {                                                                                        \
        const ARGS *a = (const ARGS *)args;                                                  \
        ACC acc;                                                                             \
        IDENT(&acc);                                                                         \
        for (size_t q = 0; q < a->cn_P; q++)                                                 \
            MERGE(&acc, &((const ACC *)a->cn_part)[q]);                                                     \
        FINISH(a, &acc);                                                                     \
        (void)lo, (void)hi;                                                                  \
    }                                                                                        \
    static const struct cn_dev_kernel NAME = {NAME##_what, CN_DEV_FOLD_THREADS, true, NAME##_lanes};

/* The scan's three passes, emulated: part p's terms folded in index
 * order; one lane makes the partials exclusive prefixes and FINISHes the
 * total; part p again, each index PUT with the prefixes before and after
 * it. */
#define CN_DEV_SCAN(NAME, ARGS, ACC, IDENT, MERGE, FOLD, TERM, PUT, FINISH)                  \
    static void NAME##_fold_lanes(void *args, size_t lo, size_t hi)                          \
    {                                                                                        \
        const ARGS *a = (const ARGS *)args;                                                  \
        for (size_t p = lo; p < hi && !cn_emu_poisoned(); p++)                               \
            FOLD(a, cn_part_lo(a->cn_n, a->cn_P, p), cn_part_hi(a->cn_n, a->cn_P, p), 1, &((ACC *)a->cn_part)[p]); \
    }                                                                                        \
    static void NAME##_prefix_lanes(void *args, size_t lo, size_t hi)                        \
    {                                                                                        \
        const ARGS *a = (const ARGS *)args;                                                  \
        ACC *part = (ACC *)a->cn_part, run;                                                  \
        IDENT(&run);                                                                         \
        for (size_t q = 0; q < a->cn_P; q++) {                                               \
            ACC b = part[q];                                                                 \
            part[q] = run;                                                                   \
            MERGE(&run, &b);                                                                 \
        }                                                                                    \
        FINISH(a, &run);                                                                     \
        (void)lo, (void)hi;                                                                  \
    }                                                                                        \
    static void NAME##_put_lanes(void *args, size_t lo, size_t hi)                           \
    {                                                                                        \
        const ARGS *a = (const ARGS *)args;                                                  \
        for (size_t p = lo; p < hi && !cn_emu_poisoned(); p++) {                             \
            ACC run = ((ACC *)a->cn_part)[p];                                                \
            for (size_t j = cn_part_lo(a->cn_n, a->cn_P, p); j < cn_part_hi(a->cn_n, a->cn_P, p); j++) { \
                ACC t, after = run;                                                          \
                TERM(a, j, &t);                                                              \
                MERGE(&after, &t);                                                           \
                PUT(a, j, &run, &after);                                                     \
                run = after;                                                                 \
            }                                                                                \
        }                                                                                    \
    }                                                                                        \
    static const struct cn_dev_kernel NAME##_fold = {NAME##_what, CN_DEV_FOLD_THREADS, true, NAME##_fold_lanes}; \
    static const struct cn_dev_kernel NAME##_prefix = {NAME##_what, CN_DEV_FOLD_THREADS, true, NAME##_prefix_lanes}; \
    static const struct cn_dev_kernel NAME##_put = {NAME##_what, CN_DEV_FOLD_THREADS, true, NAME##_put_lanes}; \
    static void NAME##_run(struct cn_exec *x, const ARGS *a)                                 \
    {                                                                                        \
        cn_exec_launch(x, &NAME##_fold, a->cn_P, a);                                         \
        cn_exec_launch(x, &NAME##_prefix, 1, a);                                             \
        cn_exec_launch(x, &NAME##_put, a->cn_P, a);                                          \
    }

#endif

/* A compaction, emulated or under CUDA's own macro above: a scan of what
 * each index keeps; emulated its stores are F_put. */
#if !CN_DEV_CUDA
#define CN_DEV_COMPACT(NAME, ARGS, ACC, F)                                                   \
    CN_DEV_SCAN(NAME, ARGS, ACC, F##_ident, F##_merge, F##_fold, F##_term, F##_put, F##_finish)
#endif

#endif /* CAIRN_DEVCOLL_H */
