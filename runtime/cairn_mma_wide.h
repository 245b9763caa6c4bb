/*
 * cairn_mma_wide.h: mma_unordered's wide tiling on CUDA devices from sm_80,
 * for 16-bit operands whose rows start on 16 bytes (f16 or bf16, k and n
 * multiples of 8, both operands aligned: cn_mma_args.vec). Included by
 * cairn_mma.h in a CUDA build; the other cases keep the page's tiling
 * (cairn_mma_tile.h).
 *
 * The same bits as the page's tiling. An output's value depends only on
 * the order its products are added in, and both tilings add them the same
 * way: the old value first, then k in steps of 16, each step one
 * HMMA.16816 with f32 accumulation (a 16 x 16 x 16 WMMA multiply is two of
 * them on sm_80 and later, one per eight columns), the steps in increasing
 * k. How the tile of c is cut among warps and blocks moves no bit;
 * tests/unit/test_mma.c compares the two tilings bit for bit on the device.
 *
 * The tiling: a block of 256 threads (eight warps, 2 x 4) makes a 128 x TN
 * tile of c (TN 128 by default); warp w owns rows 64 (w / 4) .. +64 and
 * columns TN/4 (w % 4) .. +TN/4, 4 x TN/32 accumulators of 16 x 8 in
 * registers (mma.sync m16n8k16). k goes in steps of 32 through STAGES
 * stages in shared memory (3 by default), filled by cp.async STAGES - 1
 * steps ahead of the one multiplied. The stages are swizzled
 * (a 16-byte run's place in its row XORed with bits of the row) so the
 * eight rows an ldmatrix reads at once fall on distinct banks: A's rows are
 * 64 bytes (run ^ (row / 2) % 4), B's 2 TN (run ^ row % 8, within each eight). B is k x n with
 * n contiguous: ldmatrix.trans hands each lane its pairs along k.
 *
 * Pads, as the page's tiling has them: a run of A past k holds -0, one of B
 * past k +0, so each pad product is -0 and adds nothing (cairn_mma.h says
 * why); runs past m or n are zero-filled by cp.async (their outputs are
 * computed and dropped). Blocks take tiles down groups of eight tile rows
 * before across, so the blocks in flight share rows of a and columns of b
 * in L2.
 */
#ifndef CAIRN_MMA_WIDE_H
#define CAIRN_MMA_WIDE_H

/* The tile's columns (128 or 256: a warp's 32 or 64) and the stages: tuning
 * knobs a benchmark can set (bench/dev/next_call.sh); the bits do not move. */
#ifndef CN_MMAW_TN
#define CN_MMAW_TN 128
#endif
#ifndef CN_MMAW_STAGES
#define CN_MMAW_STAGES 3
#endif
enum {
    CN_MMAW_TM = 128, CN_MMAW_TK = 32, CN_MMAW_THREADS = 256,
    CN_MMAW_GROUP = 8,                                  /* tile rows a group of blocks walks down */
    CN_MMAW_YT = CN_MMAW_TN / 32,                       /* a warp's 16 x 8 tiles across */
    CN_MMAW_B_RUNS = CN_MMAW_TN / 8,                    /* 16-byte runs in a row of B's stage */
    CN_MMAW_A_STAGE = CN_MMAW_TM * CN_MMAW_TK,          /* elements */
    CN_MMAW_B_STAGE = CN_MMAW_TK * CN_MMAW_TN,
    CN_MMAW_SHARED = 2 * CN_MMAW_STAGES * (CN_MMAW_A_STAGE + CN_MMAW_B_STAGE) /* bytes: 48 KiB for 128, 3 */
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define CN_MMAW_BUILT 1
#else
#define CN_MMAW_BUILT 0
#endif

/* Byte offsets of a 16-byte run in a stage, swizzled. */
static __device__ __forceinline__ unsigned cn_mmaw_a_off(unsigned row, unsigned run)
{
    return row * 64 + ((run ^ (row >> 1)) & 3) * 16;
}
static __device__ __forceinline__ unsigned cn_mmaw_b_off(unsigned row, unsigned run)
{
    return row * (2 * CN_MMAW_TN) + ((run ^ row) & 7) * 16 + (run & ~7u) * 16;
}

#if CN_MMAW_BUILT
/* 16 bytes from global into shared; src_bytes 0 fills the run with +0. */
static __device__ __forceinline__ void cn_mmaw_cp16(unsigned dst, const void *src, unsigned src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

/* Step k0's runs into stage (sa, sb: shared addresses): A's 128 x 32, two
 * runs a thread, and B's 32 x TN, TN / 64 runs a thread. */
static __device__ __forceinline__ void cn_mmaw_fill(const struct cn_mma_args *A, size_t i0, size_t j0, size_t k0,
                                                    unsigned t, unsigned sa, unsigned sb, unsigned char *sa_p)
{
    const size_t m = A->m, n = A->n, k = A->k;
    const uint16_t *a = (const uint16_t *)A->a, *b = (const uint16_t *)A->b;
    for (unsigned q = 0; q < 2; q++) {
        unsigned v = t + CN_MMAW_THREADS * q, row = v / 4, run = v % 4;
        size_t i = i0 + row, p = k0 + run * 8;
        unsigned off = cn_mmaw_a_off(row, run);
        if (p >= k) /* past k: -0 (a plain store, published by the barrier before its step) */
            *(uint4 *)(sa_p + off) = make_uint4(0x80008000u, 0x80008000u, 0x80008000u, 0x80008000u);
        else
            cn_mmaw_cp16(sa + off, i < m ? (const void *)(a + i * k + p) : (const void *)a, i < m ? 16 : 0);
    }
    for (unsigned q = 0; q < CN_MMAW_TN / 64; q++) {
        unsigned v = t + CN_MMAW_THREADS * q, brow = v / CN_MMAW_B_RUNS, brun = v % CN_MMAW_B_RUNS;
        size_t pb = k0 + brow, j = j0 + brun * 8;
        bool in = pb < k && j < n;
        cn_mmaw_cp16(sb + cn_mmaw_b_off(brow, brun), in ? (const void *)(b + pb * n + j) : (const void *)b, in ? 16 : 0);
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
}

static __device__ __forceinline__ void cn_mmaw_ldsm4(uint32_t *r, unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
static __device__ __forceinline__ void cn_mmaw_ldsm4_t(uint32_t *r, unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

template <bool BF16>
static __device__ __forceinline__ void cn_mmaw_mma(float *d, const uint32_t *a, const uint32_t *b)
{
    if (BF16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Tile (ti, tj) of c: rows 128 ti .., columns 128 tj .. */
template <bool BF16>
static __device__ __forceinline__ void cn_mmaw_tile(const struct cn_mma_args *A, size_t ti, size_t tj,
                                                    unsigned char *sh)
{
    const size_t m = A->m, n = A->n, k = A->k, i0 = ti * CN_MMAW_TM, j0 = tj * CN_MMAW_TN;
    const unsigned t = threadIdx.x, lane = t % 32, w = t / 32, wr = (w / 4) * 64, wc = (w % 4) * (CN_MMAW_TN / 4);
    const unsigned base = (unsigned)__cvta_generic_to_shared(sh);
    const unsigned a_bytes = 2 * CN_MMAW_A_STAGE, stage_bytes = 2 * (CN_MMAW_A_STAGE + CN_MMAW_B_STAGE);

    /* The accumulators start as c: element (r, c) of 16 x 8 tile (x, y) is
     * d[0..1] at row lane / 4, columns 2 (lane % 4) + 0, 1; d[2..3] 8 rows down. */
    float acc[4][CN_MMAW_YT][4];
    for (unsigned x = 0; x < 4; x++)
        for (unsigned y = 0; y < CN_MMAW_YT; y++)
            for (unsigned h = 0; h < 4; h++) {
                size_t i = i0 + wr + 16 * x + lane / 4 + 8 * (h / 2), j = j0 + wc + 8 * y + 2 * (lane % 4) + h % 2;
                acc[x][y][h] = i < m && j < n ? A->c[i * n + j] : 0.0f;
            }

    size_t steps = k / CN_MMAW_TK + (k % CN_MMAW_TK != 0);
    for (unsigned s = 0; s + 1 < CN_MMAW_STAGES; s++) { /* the first steps in flight; an empty group past the last */
        if (s < steps)
            cn_mmaw_fill(A, i0, j0, (size_t)s * CN_MMAW_TK, t, base + s * stage_bytes, base + s * stage_bytes + a_bytes,
                         sh + s * stage_bytes);
        else
            asm volatile("cp.async.commit_group;" ::: "memory");
    }
    unsigned cur = 0; /* the stage of step s */
    for (size_t s = 0; s < steps; s++) {
        /* step s's group landed (one younger may still fly); the barrier also
         * says every warp is done with the stage the next fill overwrites */
        asm volatile("cp.async.wait_group %0;" ::"n"(CN_MMAW_STAGES - 2) : "memory");
        __syncthreads();
        unsigned next = cur == 0 ? CN_MMAW_STAGES - 1 : cur - 1; /* (s + STAGES - 1) % STAGES */
        if (s + CN_MMAW_STAGES - 1 < steps)
            cn_mmaw_fill(A, i0, j0, (s + CN_MMAW_STAGES - 1) * CN_MMAW_TK, t, base + next * stage_bytes,
                         base + next * stage_bytes + a_bytes, sh + next * stage_bytes);
        else
            asm volatile("cp.async.commit_group;" ::: "memory");
        const unsigned sa = base + cur * stage_bytes, sb = sa + a_bytes;
        for (unsigned kk = 0; kk < CN_MMAW_TK; kk += 16) {
            uint32_t fa[4][4], fb[CN_MMAW_YT][2];
            for (unsigned x = 0; x < 4; x++) /* rows wr + 16x + lane % 16, run kk/8 + lane/16 */
                cn_mmaw_ldsm4(fa[x], sa + cn_mmaw_a_off(wr + 16 * x + lane % 16, kk / 8 + lane / 16));
            for (unsigned y = 0; y < CN_MMAW_YT / 2; y++) { /* k rows kk + lane % 8 + 8 (lane / 8 % 2), run (wc + 16y)/8 + lane/16 */
                uint32_t r[4];
                cn_mmaw_ldsm4_t(r, sb + cn_mmaw_b_off(kk + lane % 8 + 8 * (lane / 8 % 2), (wc + 16 * y) / 8 + lane / 16));
                fb[2 * y][0] = r[0], fb[2 * y][1] = r[1], fb[2 * y + 1][0] = r[2], fb[2 * y + 1][1] = r[3];
            }
            for (unsigned x = 0; x < 4; x++)
                for (unsigned y = 0; y < CN_MMAW_YT; y++)
                    cn_mmaw_mma<BF16>(acc[x][y], fa[x], fb[y]);
        }
        cur = cur + 1 == CN_MMAW_STAGES ? 0 : cur + 1;
    }
    asm volatile("cp.async.wait_group 0;" ::: "memory");

    for (unsigned x = 0; x < 4; x++)
        for (unsigned y = 0; y < CN_MMAW_YT; y++)
            for (unsigned h = 0; h < 4; h++) {
                size_t i = i0 + wr + 16 * x + lane / 4 + 8 * (h / 2), j = j0 + wc + 8 * y + 2 * (lane % 4) + h % 2;
                if (i < m && j < n)
                    A->c[i * n + j] = acc[x][y][h];
            }
}
#endif /* CN_MMAW_BUILT */

/* Blocks p = blockIdx.x, + gridDim.x, ... of the grid (GROUP rows of a
 * group, tile columns, groups): tile row b2 GROUP + b0, column b1. */
template <bool BF16>
static __global__ void __launch_bounds__(CN_MMAW_THREADS, CN_MMAW_TN == 128 ? 2 : 1)
    cn_mmaw_kernel(struct cn_mma_args a, struct cn_coop_launch L, size_t tiles_m)
{
#if CN_MMAW_BUILT
    extern __shared__ __align__(128) unsigned char sh[]; /* CN_MMAW_SHARED bytes */
    uint64_t total = L.grid.total, step = gridDim.x;
    for (uint64_t p = blockIdx.x; p < total; p += step) {
        size_t b0, b1, b2;
        cn_coop_names(&L.grid, p, &b0, &b1, &b2);
        size_t ti = b2 * CN_MMAW_GROUP + b0;
        if (ti < tiles_m) /* the last group may have fewer rows: the whole block skips alike */
            cn_mmaw_tile<BF16>(&a, ti, b1, sh);
        if (total - p <= step)
            break;
        __syncthreads(); /* the stages of one tile are not refilled while a slow warp reads them */
    }
#else
    (void)a, (void)L, (void)tiles_m;
#endif
}

/* What the launch needs beyond the arguments: the tile rows. */
struct cn_mmaw_args {
    struct cn_mma_args a;
    size_t tiles_m;
};

#define CN_MMAW_LAUNCH(K, BF)                                                                            \
    static void cn_mmaw_##K##_launch(cudaStream_t s, unsigned blocks, const void *args,                 \
                                     const struct cn_coop_launch *L)                                    \
    {                                                                                                    \
        const struct cn_mmaw_args *w = (const struct cn_mmaw_args *)args;                                \
        cn_mmaw_kernel<BF><<<blocks, CN_MMAW_THREADS, CN_MMAW_SHARED, s>>>(w->a, *L, w->tiles_m);        \
    }                                                                                                    \
    static const struct cn_coop_kernel cn_mmaw_##K##_k = {"mma_unordered (" #K " operands, 128 x 128 tiles)", \
                                                          CN_MMAW_THREADS, false, cn_mmaw_##K##_launch};
CN_MMAW_LAUNCH(f16, false)
CN_MMAW_LAUNCH(bf16, true)
#undef CN_MMAW_LAUNCH

/* A fact about this binary's kernels on the current device, asked once a
 * device (cache: a word a device, 0 until asked, then 1 or -1): setting a
 * kernel's shared memory and reading its attributes cost a few
 * microseconds a launch, which a small multiply notices. A device past the
 * cache's end asks every time. */
enum { CN_MMA_DEVICES = 16 };

static inline bool cn_mma_asked(int *cache, bool (*ask)(void))
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= CN_MMA_DEVICES) {
        (void)cudaGetLastError();
        return ask();
    }
    int v = __atomic_load_n(&cache[dev], __ATOMIC_RELAXED);
    if (v == 0) {
        v = ask() ? 1 : -1;
        __atomic_store_n(&cache[dev], v, __ATOMIC_RELAXED);
    }
    return v > 0;
}

/* Whether this binary's device code has the wide tiling: it is built for
 * sm_80 and later (cp.async, ldmatrix, m16n8k16), which the device's
 * binary version says; and the kernels may take their shared memory (past
 * 48 KiB a kernel must ask, on each device: cn_mma_take_shared, for both
 * formats' kernels of a tiling). */
template <typename F> static inline bool cn_mma_take_shared(F *f16, F *bf16, int bytes)
{
    return cudaFuncSetAttribute(f16, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) == cudaSuccess &&
           cudaFuncSetAttribute(bf16, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) == cudaSuccess;
}

static inline bool cn_mmaw_ask(void)
{
    struct cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, cn_mmaw_kernel<false>) != cudaSuccess || fa.binaryVersion < 80 ||
        !cn_mma_take_shared(cn_mmaw_kernel<false>, cn_mmaw_kernel<true>, CN_MMAW_SHARED)) {
        (void)cudaGetLastError();
        return false;
    }
    return true;
}

static inline bool cn_mmaw_built(void)
{
    static int cache[CN_MMA_DEVICES];
    return cn_mma_asked(cache, cn_mmaw_ask);
}

/* The grid of tm x tn tiles of c, grouped (blocks walk down GROUP tile
 * rows, then across), and the tile rows; false when it overflows. */
static inline bool cn_mma_tiles_grid(const struct cn_mma_args *A, size_t tm, size_t tn, struct cn_coop_grid *g,
                                     size_t *tiles_m)
{
    size_t tiles_n = (A->n + tn - 1) / tn;
    *tiles_m = (A->m + tm - 1) / tm;
    size_t rows = *tiles_m < CN_MMAW_GROUP ? *tiles_m : CN_MMAW_GROUP;
    if (rows == 0) { /* c is empty */
        g->total = 0;
        return true;
    }
    return cn_coop_grid_make(g, rows, tiles_n, (*tiles_m + rows - 1) / rows);
}

/* A launch of kernel f16 or bf16 (by A's format) over tm x tn tiles of c;
 * false when the grid overflows. The wgmma tiling launches through it too. */
static inline bool cn_mma_tiles_launch(struct cn_exec *x, const struct cn_mma_args *A, size_t tm, size_t tn,
                                       const struct cn_coop_kernel *f16, const struct cn_coop_kernel *bf16)
{
    struct cn_mmaw_args w;
    struct cn_coop_grid g;
    if (!cn_mma_tiles_grid(A, tm, tn, &g, &w.tiles_m))
        return false;
    if (g.total == 0)
        return true; /* c is empty: nothing to do */
    w.a = *A;
    cn_exec_coop_launch(x, A->fmt == CN_MMA_BF16 ? bf16 : f16, &g, &w);
    return true;
}

static inline bool cn_mmaw_launch(struct cn_exec *x, const struct cn_mma_args *A)
{
    return cn_mma_tiles_launch(x, A, CN_MMAW_TM, CN_MMAW_TN, &cn_mmaw_f16_k, &cn_mmaw_bf16_k);
}

#endif /* CAIRN_MMA_WIDE_H */
