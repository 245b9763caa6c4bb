/*
 * cairn_mma_wgmma.h: mma_unordered on Hopper's warpgroup multiply (wgmma),
 * for sm_90a, 16-bit operands whose rows start on 16 bytes, fed by
 * cp.async: launched only with CN_MMA_WGMMA=1 (its full contract run on a
 * GPU never finished); the default, 2, takes the TMA tiling
 * (cairn_mma_tma.h), which uses this file's descriptors, and elsewhere the
 * wide mma.sync tiling (cairn_mma_wide.h). Included by cairn_mma.h in a
 * CUDA build.
 *
 * The contract, not the page's bits: a wgmma m64n128k16 adds 16 products
 * of each output at once in an order the hardware picks, which the
 * contract allows; the result is the same on every run (one fixed
 * tiling, every output's steps in increasing k). tests/unit/test_mma.c
 * holds it to the bound and to its own bits on a second run.
 *
 * The tiling: a block of 256 threads (two warpgroups) makes a 128 x 128
 * tile of c, warpgroup g its rows 64 g .. +64, 64 accumulators a thread in
 * wgmma's layout (warp w of the group rows 16 w .. +16, as mma.sync's
 * m16n8 tiles side by side). k goes in steps of 64 through three stages of
 * 32 KiB, filled by cp.async two steps ahead, each stage read by four
 * wgmma (k 16 at a time) straight from shared memory through descriptors:
 *   A, 128 x 64, K-major: row r at 128 r, its 16-byte run q at
 *      (q ^ r % 8) 16 (the 128-byte swizzle); a descriptor per group
 *      and step of 16 starts 8192 g + 32 j in, rows of eight 1024 apart
 *   B, 64 x 128, MN-major (n contiguous, as b is): two blocks of 64
 *      columns 8192 apart, k row p of a block at 128 p, its run q at
 *      (q ^ p % 8) 16; a step of 16 starts 2048 j in
 * Before a wgmma reads a stage the threads that filled it fence their
 * writes into the async proxy (fence.proxy.async) and the block meets at
 * a barrier; each step waits for its wgmma before the next barrier, so a
 * stage is refilled only when no wgmma reads it. Pads as in the wide
 * tiling: A's past k -0, everything else zero-filled.
 */
#ifndef CAIRN_MMA_WGMMA_H
#define CAIRN_MMA_WGMMA_H

enum {
    CN_WG_TM = 128, CN_WG_TN = 128, CN_WG_TK = 64, CN_WG_THREADS = 256, CN_WG_STAGES = 3,
    CN_WG_A_BYTES = CN_WG_TM * CN_WG_TK * 2, CN_WG_STAGE = 2 * CN_WG_A_BYTES,
    CN_WG_SHARED = CN_WG_STAGES * CN_WG_STAGE + 1024 /* slack to align the stages on 1024 */
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CN_WG_BUILT 1
#else
#define CN_WG_BUILT 0
#endif

#if CN_WG_BUILT
static __device__ __forceinline__ uint64_t cn_wg_desc(unsigned addr, unsigned lbo, unsigned sbo)
{
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 |
           (uint64_t)1 << 62; /* 128-byte swizzle */
}

/* Step k0 into the stage at shared address st (generic pointer sp): four
 * runs of A and four of B a thread. */
static __device__ __forceinline__ void cn_wg_fill(const struct cn_mma_args *A, size_t i0, size_t j0, size_t k0,
                                                  unsigned t, unsigned st, unsigned char *sp)
{
    const size_t m = A->m, n = A->n, k = A->k;
    const uint16_t *a = (const uint16_t *)A->a, *b = (const uint16_t *)A->b;
    for (unsigned q = 0; q < 4; q++) {
        unsigned v = t + CN_WG_THREADS * q, row = v / 8, run = v % 8;
        size_t i = i0 + row, p = k0 + run * 8;
        unsigned off = row * 128 + ((run ^ row) & 7) * 16;
        if (p >= k) /* past k: -0, a plain store the fence and barrier publish */
            *(uint4 *)(sp + off) = make_uint4(0x80008000u, 0x80008000u, 0x80008000u, 0x80008000u);
        else
            cn_mmaw_cp16(st + off, i < m ? (const void *)(a + i * k + p) : (const void *)a, i < m ? 16 : 0);
        unsigned kr = v / 16, brun = v % 16;
        size_t pb = k0 + kr, j = j0 + brun * 8;
        bool in = pb < k && j < n;
        cn_mmaw_cp16(st + CN_WG_A_BYTES + (brun / 8) * 8192 + kr * 128 + ((brun ^ kr) & 7) * 16,
                     in ? (const void *)(b + pb * n + j) : (const void *)b, in ? 16 : 0);
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* d += a b over one step of 16: wgmma m64n128k16 with f32 accumulation,
 * A and B from shared memory (B N-major: imm-trans-b 1), scale-d 1. */
#define CN_WG_MMA_ASM(T)                                                                                  \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                          \
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32." T "." T " "                               \
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, " \
                 "%64, %65, p, 1, 1, 0, 1;\n}\n"                                                           \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
                 : "l"(da), "l"(db), "r"(1))

template <bool BF16>
static __device__ __forceinline__ void cn_wg_mma(float *d, uint64_t da, uint64_t db)
{
    if (BF16)
        CN_WG_MMA_ASM("bf16");
    else
        CN_WG_MMA_ASM("f16");
}
#undef CN_WG_MMA_ASM

template <bool BF16>
static __device__ __forceinline__ void cn_wg_tile(const struct cn_mma_args *A, size_t ti, size_t tj, unsigned char *sh)
{
    const size_t m = A->m, n = A->n, k = A->k, i0 = ti * CN_WG_TM, j0 = tj * CN_WG_TN;
    const unsigned t = threadIdx.x, g = t / 128, w = t % 128 / 32, lane = t % 32;
    const unsigned base = (unsigned)__cvta_generic_to_shared(sh);
    float d[64];
    for (unsigned j = 0; j < 16; j++)
        for (unsigned h = 0; h < 4; h++) {
            size_t i = i0 + 64 * g + 16 * w + lane / 4 + 8 * (h / 2), c = j0 + 8 * j + 2 * (lane % 4) + h % 2;
            d[4 * j + h] = i < m && c < n ? A->c[i * n + c] : 0.0f;
        }
    size_t steps = k / CN_WG_TK + (k % CN_WG_TK != 0);
    for (unsigned s = 0; s + 1 < CN_WG_STAGES; s++) {
        if (s < steps)
            cn_wg_fill(A, i0, j0, (size_t)s * CN_WG_TK, t, base + s * CN_WG_STAGE, sh + s * CN_WG_STAGE);
        else
            asm volatile("cp.async.commit_group;" ::: "memory");
    }
    unsigned cur = 0;
    for (size_t s = 0; s < steps; s++) {
        asm volatile("cp.async.wait_group %0;" ::"n"(CN_WG_STAGES - 2) : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        unsigned next = cur == 0 ? CN_WG_STAGES - 1 : cur - 1;
        if (s + CN_WG_STAGES - 1 < steps)
            cn_wg_fill(A, i0, j0, (s + CN_WG_STAGES - 1) * CN_WG_TK, t, base + next * CN_WG_STAGE,
                       sh + next * CN_WG_STAGE);
        else
            asm volatile("cp.async.commit_group;" ::: "memory");
        const unsigned sa = base + cur * CN_WG_STAGE, sb = sa + CN_WG_A_BYTES;
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        for (unsigned j = 0; j < CN_WG_TK / 16; j++)
            cn_wg_mma<BF16>(d, cn_wg_desc(sa + 8192 * g + 32 * j, 16, 1024), cn_wg_desc(sb + 2048 * j, 8192, 1024));
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        cur = cur + 1 == CN_WG_STAGES ? 0 : cur + 1;
    }
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    for (unsigned j = 0; j < 16; j++)
        for (unsigned h = 0; h < 4; h++) {
            size_t i = i0 + 64 * g + 16 * w + lane / 4 + 8 * (h / 2), c = j0 + 8 * j + 2 * (lane % 4) + h % 2;
            if (i < m && c < n)
                A->c[i * n + c] = d[4 * j + h];
        }
}
#endif /* CN_WG_BUILT */

/* The blocks walk the tiles as the wide tiling's do (cn_mmaw_kernel). A
 * build without wgmma leaves the body empty and no static shared memory,
 * which is how the launch tells (cn_wg_built). */
template <bool BF16>
static __global__ void __launch_bounds__(CN_WG_THREADS, 1)
    cn_wg_kernel(struct cn_mma_args a, struct cn_coop_launch L, size_t tiles_m)
{
#if CN_WG_BUILT
    extern __shared__ unsigned char cn_wg_dyn[];
    __shared__ volatile uint32_t cn_wg_built_mark[4];
    if (threadIdx.x == 0)
        cn_wg_built_mark[0] = 1;
    unsigned raw = (unsigned)__cvta_generic_to_shared(cn_wg_dyn);
    unsigned char *sh = cn_wg_dyn + ((1024 - raw % 1024) % 1024);
    uint64_t total = L.grid.total, step = gridDim.x;
    for (uint64_t p = blockIdx.x; p < total; p += step) {
        size_t b0, b1, b2;
        cn_coop_names(&L.grid, p, &b0, &b1, &b2);
        size_t ti = b2 * CN_MMAW_GROUP + b0;
        if (ti < tiles_m)
            cn_wg_tile<BF16>(&a, ti, b1, sh);
        if (total - p <= step)
            break;
        __syncthreads();
    }
#else
    (void)a, (void)L, (void)tiles_m;
#endif
}

#define CN_WG_LAUNCH(K, BF)                                                                              \
    static void cn_wg_##K##_launch(cudaStream_t s, unsigned blocks, const void *args,                   \
                                   const struct cn_coop_launch *L)                                      \
    {                                                                                                    \
        const struct cn_mmaw_args *w = (const struct cn_mmaw_args *)args;                                \
        cn_wg_kernel<BF><<<blocks, CN_WG_THREADS, CN_WG_SHARED, s>>>(w->a, *L, w->tiles_m);              \
    }                                                                                                    \
    static const struct cn_coop_kernel cn_wg_##K##_k = {"mma_unordered (" #K " operands, wgmma)", CN_WG_THREADS, \
                                                        false, cn_wg_##K##_launch};
CN_WG_LAUNCH(f16, false)
CN_WG_LAUNCH(bf16, true)
#undef CN_WG_LAUNCH

/* Whether this binary's kernel holds the wgmma tiling (built for sm_90a:
 * its static shared mark makes it use more static shared memory than a
 * kernel with none), and may take its shared memory. */
static inline bool cn_wg_ask(void)
{
    struct cudaFuncAttributes fa, plain; /* plain: a kernel with no static shared memory of its own */
    if (cudaFuncGetAttributes(&fa, cn_wg_kernel<false>) != cudaSuccess ||
        cudaFuncGetAttributes(&plain, cn_mmaw_kernel<false>) != cudaSuccess || fa.binaryVersion != 90 ||
        fa.sharedSizeBytes <= plain.sharedSizeBytes ||
        !cn_mma_take_shared(cn_wg_kernel<false>, cn_wg_kernel<true>, CN_WG_SHARED)) {
        (void)cudaGetLastError();
        return false;
    }
    return true;
}

static inline bool cn_wg_built(void)
{
    static int cache[CN_MMA_DEVICES];
    return cn_mma_asked(cache, cn_wg_ask);
}

static inline bool cn_wg_launch(struct cn_exec *x, const struct cn_mma_args *A)
{
    return cn_mma_tiles_launch(x, A, CN_WG_TM, CN_WG_TN, &cn_wg_f16_k, &cn_wg_bf16_k);
}

#endif /* CAIRN_MMA_WGMMA_H */
