/*
 * cairn_mma_tma.h: mma_unordered on Hopper with the Tensor Memory
 * Accelerator (TMA) feeding the warpgroup multiply (wgmma), for sm_90a and
 * 16-bit operands whose rows start on 16 bytes: mma_unordered's default
 * there (CN_MMA_WGMMA=2), since it has run on a GPU within the contract at
 * 90-95% of cuBLAS (evidence/2026-12-06-h100-tma.md). Included by
 * cairn_mma.h in a CUDA build, after cairn_mma_wgmma.h (whose descriptors
 * it uses; where the TMA cannot describe the operands, the wide mma.sync
 * tiling takes them).
 *
 * The contract, not the page's bits, as in cairn_mma_wgmma.h: each output
 * is its old value plus k products added 16 at a time in an order the
 * hardware picks, its steps in increasing k; one fixed tiling, so the same
 * bits on every run. tests/unit/test_mma.c holds it to the bound and to a
 * second run's bits.
 *
 * The tiling: a block of 384 threads makes 128 x 256 tiles of c, one after
 * another (a block per SM walks the tiles, taking them as the wide
 * tiling's blocks do). Warpgroup 0 is the producer: one of its threads
 * asks the TMA for each step of 64 of k (A's 128 x 64 and B's 64 x 256,
 * 48 KiB) into a ring of four stages, and the rest of the group gives its
 * registers back (setmaxnreg). Warpgroups 1 and 2 are the consumers, rows
 * 0 .. 64 and 64 .. 128 of the tile, 128 accumulators a thread in wgmma's
 * layout; each step is four wgmma m64n256k16 straight from the stage.
 * Two barriers a stage order them (mbarrier, in shared memory): "full",
 * which the TMA completes with the stage's bytes, and "empty", at which each
 * consumer warp arrives once its wgmma have read the stage; the producer
 * refills a stage only after all eight have. The ring runs on across tiles,
 * so the next tile's loads overlap this one's stores of c.
 *
 * The stages' layout is the TMA's 128-byte swizzle, the same as
 * cairn_mma_wgmma.h's: A row r at 128 r, its 16-byte run q at
 * (q ^ r % 8) 16; B in four blocks of 64 columns 8192 bytes apart, k row p
 * of a block at 128 p. The TMA fills what lies outside a or b with zeros;
 * on the last step of a k that is not a multiple of 64 the consumers then
 * write -0 over A's columns past k (the wide tiling's pad: each pad product
 * is -0 and adds nothing, cairn_mma.h says why) and fence them into the
 * async proxy before their wgmma read them.
 *
 * The tensor maps are made on the host at each launch, with the driver's
 * cuTensorMapEncodeTiled reached through the runtime (no -lcuda); a shape
 * the TMA cannot describe (an extent of 2^31 or more) takes the cp.async
 * or the wide tiling.
 */
#ifndef CAIRN_MMA_TMA_H
#define CAIRN_MMA_TMA_H

#include <cuda.h> /* CUtensorMap and the encoder's argument types */

enum {
    CN_WGT_TM = 128, CN_WGT_TN = 256, CN_WGT_TK = 64, CN_WGT_THREADS = 384, CN_WGT_STAGES = 4,
    CN_WGT_A_BYTES = CN_WGT_TM * CN_WGT_TK * 2,         /* 16 KiB */
    CN_WGT_STAGE = CN_WGT_A_BYTES + CN_WGT_TK * CN_WGT_TN * 2, /* 48 KiB */
    CN_WGT_BARS = CN_WGT_STAGES * CN_WGT_STAGE,         /* the barriers, after the stages */
    CN_WGT_SHARED = CN_WGT_BARS + 128 + 1024,           /* slack to align the stages on 1024 */
    CN_WGT_PRODUCER_REGS = 40, CN_WGT_CONSUMER_REGS = 232 /* a thread's registers after setmaxnreg */
};

/* 1: each consumer leaves one step's wgmma in flight across the wait for the
 * next stage (a tuning knob, off until measured on a GPU; the bits do not
 * move, since each output's steps still go in order). */
#ifndef CN_WGT_INFLIGHT
#define CN_WGT_INFLIGHT 0
#endif

/* 0: every access of c is a single float (to measure what pairs give:
 * the pairs took mma_unordered from 77-78% of cuBLAS to 89-95% on an H100,
 * evidence/2026-12-06-h100-tma.md). */
#ifndef CN_WGT_PAIR
#define CN_WGT_PAIR 1
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CN_WGT_BUILT 1
#else
#define CN_WGT_BUILT 0
#endif

#if CN_WGT_BUILT
static __device__ __forceinline__ void cn_wgt_bar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

/* Wait until the barrier's phase of the given parity has completed (a
 * fresh barrier counts its phase before the first as completed, parity 1). */
static __device__ __forceinline__ void cn_wgt_bar_wait(unsigned bar, unsigned parity)
{
    unsigned done;
    do
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    while (!done);
}

static __device__ __forceinline__ void cn_wgt_bar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

static __device__ __forceinline__ void cn_wgt_bar_expect(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

/* One box of a 2-d tensor map (x the contiguous coordinate) into shared
 * memory at dst, completing bar's transaction bytes. */
static __device__ __forceinline__ void cn_wgt_load(unsigned dst, const CUtensorMap *map, int x, int y, unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(dst), "l"((uint64_t)map), "r"(x), "r"(y), "r"(bar)
                 : "memory");
}

/* d += a b over one step of 16: wgmma m64n256k16 with f32 accumulation,
 * A and B from shared memory (B N-major: imm-trans-b 1), scale-d 1. */
#define CN_WGT_MMA_ASM(T)                                                                                                           \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                                                      \
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32." T "." T " {"                                                        \
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                                           \
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                                 \
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                                 \
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "                                 \
                 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "                                 \
                 "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "                                 \
                 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "                     \
                 "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "                 \
                 "%128, %129, p, 1, 1, 0, 1;\n}\n"                                                                                  \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),                  \
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),            \
                   "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),          \
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),          \
                   "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),          \
                   "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),          \
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),          \
                   "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),          \
                   "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),          \
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),          \
                   "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),          \
                   "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),          \
                   "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),      \
                   "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),  \
                   "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),  \
                   "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])   \
                 : "l"(da), "l"(db), "r"(1))

template <bool BF16>
static __device__ __forceinline__ void cn_wgt_mma(float *d, uint64_t da, uint64_t db)
{
    if (BF16)
        CN_WGT_MMA_ASM("bf16");
    else
        CN_WGT_MMA_ASM("f16");
}
#undef CN_WGT_MMA_ASM

/* Where the ring stands: the stage next used and the parity of its phase. */
struct cn_wgt_ring {
    unsigned stage, parity;
};

static __device__ __forceinline__ void cn_wgt_next(struct cn_wgt_ring *r)
{
    if (++r->stage == CN_WGT_STAGES)
        r->stage = 0, r->parity ^= 1;
}

/* Tile p of the walk: its tile row ti and column tj, as the wide tiling
 * names them; false for a name past the last tile row. Producer and
 * consumers walk the same tiles in the same order. */
static __device__ __forceinline__ bool cn_wgt_tile(const struct cn_coop_launch *L, uint64_t p, size_t tiles_m,
                                                   size_t *ti, size_t *tj)
{
    size_t b0, b2;
    cn_coop_names(&L->grid, p, &b0, tj, &b2);
    *ti = b2 * CN_MMAW_GROUP + b0;
    return *ti < tiles_m;
}

/* The producer's thread: every step of every tile of this block, each
 * into the next stage once its consumers have released it. */
static __device__ void cn_wgt_produce(const struct cn_mma_args *A, const struct cn_coop_launch *L, size_t tiles_m,
                                      const CUtensorMap *ta, const CUtensorMap *tb, unsigned base)
{
    const unsigned bars = base + CN_WGT_BARS;
    const size_t steps = A->k / CN_WGT_TK + (A->k % CN_WGT_TK != 0);
    struct cn_wgt_ring r = {0, 0};
    for (uint64_t p = blockIdx.x; p < L->grid.total; p += gridDim.x) {
        size_t ti, b1;
        if (!cn_wgt_tile(L, p, tiles_m, &ti, &b1))
            continue;
        int i0 = (int)(ti * CN_WGT_TM), j0 = (int)(b1 * CN_WGT_TN), nq = 0;
        while (nq < CN_WGT_TN / 64 && (size_t)(j0 + 64 * nq) < A->n)
            nq++; /* B's boxes with a column of b: the rest would feed only columns past n, never stored */
        for (size_t s = 0; s < steps; s++, cn_wgt_next(&r)) {
            unsigned full = bars + 8 * r.stage, empty = bars + 64 + 8 * r.stage;
            unsigned sa = base + r.stage * CN_WGT_STAGE, sb = sa + CN_WGT_A_BYTES;
            int k0 = (int)(s * CN_WGT_TK);
            cn_wgt_bar_wait(empty, r.parity ^ 1);
            cn_wgt_bar_expect(full, CN_WGT_A_BYTES + 8192 * nq);
            cn_wgt_load(sa, ta, k0, i0, full);
            for (int q = 0; q < nq; q++)
                cn_wgt_load(sb + 8192 * q, tb, j0 + 64 * q, k0, full);
        }
    }
}

/* A's columns past k in this consumer's 64 rows of the stage at sp: -0,
 * whole 16-byte runs (k is a multiple of 8 here: cn_mma_args.vec). */
static __device__ __forceinline__ void cn_wgt_pad(unsigned char *sp, unsigned g, unsigned t, unsigned kk)
{
    for (unsigned e = t; e < 64 * 8; e += 128) {
        unsigned r = 64 * g + e / 8, q = e % 8;
        if (8 * q >= kk)
            *(uint4 *)(sp + r * 128 + ((q ^ r) & 7) * 16) =
                make_uint4(0x80008000u, 0x80008000u, 0x80008000u, 0x80008000u);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (g) /* the group's own barrier (ids 1 and 2; 0 is __syncthreads) */
        asm volatile("bar.sync 2, 128;" ::: "memory");
    else
        asm volatile("bar.sync 1, 128;" ::: "memory");
}

/* A thread's accumulators d in wgmma's layout, row i0 (+8) and columns j0
 * + 8 j (+1): read from c (zero past m or n), or written back. Where the
 * pairs of columns lie on 8 bytes (pair) each is written with one access:
 * a warp then writes whole 32-byte sectors, not halves. (Reads stay single:
 * 8-byte reads into the accumulators make ptxas serialize the wgmma of
 * CN_WGT_INFLIGHT=1, warning C7515.) */
static __device__ __forceinline__ void cn_wgt_c(const struct cn_mma_args *A, float *d, size_t i0, size_t j0, bool pair,
                                                bool store)
{
    const size_t m = A->m, n = A->n;
#pragma unroll /* wholly: d stays in registers */
    for (unsigned j = 0; j < 32; j++)
#pragma unroll
        for (unsigned h = 0; h < 4; h += 2) {
            size_t i = i0 + 8 * (h / 2), c = j0 + 8 * j;
            float *q = A->c + i * n + c, *v = d + 4 * j + h;
            if (store && pair && i < m && c < n) { /* n even, c even: c + 1 < n too */
                *(float2 *)q = make_float2(v[0], v[1]);
                continue;
            }
#pragma unroll
            for (unsigned e = 0; e < 2; e++) {
                bool in = i < m && c + e < n;
                if (store && in)
                    q[e] = v[e];
                else if (!store)
                    v[e] = in ? q[e] : 0.0f;
            }
        }
}

/* Consumer g (0 or 1), thread t of its 128: rows 64 g .. +64 of each tile. */
template <bool BF16>
static __device__ void cn_wgt_consume(const struct cn_mma_args *A, const struct cn_coop_launch *L, size_t tiles_m,
                                      unsigned g, unsigned t, unsigned base, unsigned char *sh)
{
    const size_t k = A->k, steps = k / CN_WGT_TK + (k % CN_WGT_TK != 0);
    const unsigned w = t / 32, lane = t % 32, bars = base + CN_WGT_BARS;
    const bool pair = CN_WGT_PAIR && A->n % 2 == 0 && (uintptr_t)A->c % 8 == 0;
    struct cn_wgt_ring r = {0, 0};
    float d[128];
    for (uint64_t p = blockIdx.x; p < L->grid.total; p += gridDim.x) {
        size_t ti, b1;
        if (!cn_wgt_tile(L, p, tiles_m, &ti, &b1))
            continue;
        const size_t i0 = ti * CN_WGT_TM + 64 * g + 16 * w + lane / 4, j0 = b1 * CN_WGT_TN + 2 * (lane % 4);
        cn_wgt_c(A, d, i0, j0, pair, false);
        for (size_t s = 0; s < steps; s++, cn_wgt_next(&r)) {
            const unsigned sa = base + r.stage * CN_WGT_STAGE, sb = sa + CN_WGT_A_BYTES;
            cn_wgt_bar_wait(bars + 8 * r.stage, r.parity);
            if (s + 1 == steps && k % CN_WGT_TK)
                cn_wgt_pad(sh + r.stage * CN_WGT_STAGE, g, t, (unsigned)(k % CN_WGT_TK));
            asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
            for (unsigned j = 0; j < CN_WGT_TK / 16; j++)
                cn_wgt_mma<BF16>(d, cn_wg_desc(sa + 8192 * g + 32 * j, 16, 1024),
                                 cn_wg_desc(sb + 2048 * j, 8192, 1024));
            asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#if CN_WGT_INFLIGHT
            /* this step's products stay in flight while the next step's stage is awaited: the
             * step before is done, and its stage is given back */
            asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
            if (s > 0 && lane == 0)
                cn_wgt_bar_arrive(bars + 64 + 8 * (r.stage == 0 ? CN_WGT_STAGES - 1 : r.stage - 1));
#else
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
            if (lane == 0)
                cn_wgt_bar_arrive(bars + 64 + 8 * r.stage);
#endif
        }
#if CN_WGT_INFLIGHT
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        if (steps > 0 && lane == 0) /* the tile's last stage */
            cn_wgt_bar_arrive(bars + 64 + 8 * (r.stage == 0 ? CN_WGT_STAGES - 1 : r.stage - 1));
#endif
        cn_wgt_c(A, d, i0, j0, pair, true);
    }
}
#endif /* CN_WGT_BUILT */

/* The maps ride as kernel parameters (__grid_constant__: the TMA reads
 * them where they lie). A build without the TMA tiling leaves the body
 * empty and no static shared memory, which is how the launch tells. */
template <bool BF16>
static __global__ void __launch_bounds__(CN_WGT_THREADS, 1)
    cn_wgt_kernel(struct cn_mma_args a, struct cn_coop_launch L, size_t tiles_m, const __grid_constant__ CUtensorMap ta,
                  const __grid_constant__ CUtensorMap tb)
{
#if CN_WGT_BUILT
    extern __shared__ unsigned char cn_wgt_dyn[];
    __shared__ volatile uint32_t cn_wgt_built_mark[4];
    if (threadIdx.x == 0)
        cn_wgt_built_mark[0] = 1;
    unsigned raw = (unsigned)__cvta_generic_to_shared(cn_wgt_dyn);
    unsigned char *sh = cn_wgt_dyn + ((1024 - raw % 1024) % 1024);
    const unsigned base = (unsigned)__cvta_generic_to_shared(sh), bars = base + CN_WGT_BARS;
    if (threadIdx.x < CN_WGT_STAGES) {
        cn_wgt_bar_init(bars + 8 * threadIdx.x, 1);       /* full: the producer's arrival and the bytes */
        cn_wgt_bar_init(bars + 64 + 8 * threadIdx.x, 8);  /* empty: each consumer warp */
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncthreads();
    const unsigned group = threadIdx.x / 128;
    if (group == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"((int)CN_WGT_PRODUCER_REGS) : "memory");
        if (threadIdx.x == 0)
            cn_wgt_produce(&a, &L, tiles_m, &ta, &tb, base);
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"((int)CN_WGT_CONSUMER_REGS) : "memory");
        cn_wgt_consume<BF16>(&a, &L, tiles_m, group - 1, threadIdx.x % 128, base, sh);
    }
#else
    (void)a, (void)L, (void)tiles_m, (void)ta, (void)tb;
#endif
}

/* ------------------------------------------------------------- host */

struct cn_wgt_args {
    struct cn_mma_args a;
    size_t tiles_m;
    CUtensorMap ta, tb;
};

#define CN_WGT_LAUNCH(K, BF)                                                                             \
    static void cn_wgt_##K##_launch(cudaStream_t s, unsigned blocks, const void *args,                  \
                                    const struct cn_coop_launch *L)                                     \
    {                                                                                                    \
        const struct cn_wgt_args *w = (const struct cn_wgt_args *)args;                                  \
        int dev = 0, sms = 0;                                                                            \
        if (cudaGetDevice(&dev) == cudaSuccess &&                                                        \
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess && sms > 0 && \
            blocks > (unsigned)sms)                                                                      \
            blocks = (unsigned)sms; /* a block an SM, each walking its tiles */                          \
        cn_wgt_kernel<BF><<<blocks, CN_WGT_THREADS, CN_WGT_SHARED, s>>>(w->a, *L, w->tiles_m, w->ta, w->tb); \
    }                                                                                                    \
    static const struct cn_coop_kernel cn_wgt_##K##_k = {"mma_unordered (" #K " operands, TMA and wgmma)",   \
                                                         CN_WGT_THREADS, false, cn_wgt_##K##_launch};
CN_WGT_LAUNCH(f16, false)
CN_WGT_LAUNCH(bf16, true)
#undef CN_WGT_LAUNCH

typedef CUresult (*cn_wgt_encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                     const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                     CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* The driver's encoder, through the runtime (NULL where the driver lacks
 * it), asked once a process: the driver's entry points do not move. */
static inline cn_wgt_encode_fn cn_wgt_encoder(void)
{
    static void *cached;
    void *fn = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (fn)
        return (cn_wgt_encode_fn)fn;
    enum cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess || fn == NULL) {
        (void)cudaGetLastError();
        return NULL;
    }
    __atomic_store_n(&cached, fn, __ATOMIC_RELAXED);
    return (cn_wgt_encode_fn)fn;
}

/* A row-major rows x cols matrix of 16-bit elements at p, boxes of
 * box_rows x 64 with the 128-byte swizzle, zeros outside. */
static inline bool cn_wgt_map(CUtensorMap *map, int fmt, const void *p, size_t rows, size_t cols, unsigned box_rows)
{
    cn_wgt_encode_fn enc = cn_wgt_encoder();
    cuuint64_t dim[2] = {cols, rows}, stride[1] = {cols * 2};
    cuuint32_t box[2] = {64, box_rows}, one[2] = {1, 1};
    return enc && enc(map, fmt == CN_MMA_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
                      (void *)p, dim, stride, box, one, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

static inline bool cn_wgt_ask(void)
{
    struct cudaFuncAttributes fa, plain; /* plain: a kernel with no static shared memory of its own */
    /* fa.numRegs: the registers a thread starts with, which setmaxnreg moves
     * from the producer to the consumers; short of their sum it would wait
     * for ever (a build with a register cap) */
    if (cn_wgt_encoder() == NULL || cudaFuncGetAttributes(&fa, cn_wgt_kernel<false>) != cudaSuccess ||
        cudaFuncGetAttributes(&plain, cn_mmaw_kernel<false>) != cudaSuccess || fa.binaryVersion != 90 ||
        fa.numRegs * CN_WGT_THREADS < 128 * CN_WGT_PRODUCER_REGS + 256 * CN_WGT_CONSUMER_REGS ||
        fa.sharedSizeBytes <= plain.sharedSizeBytes ||
        !cn_mma_take_shared(cn_wgt_kernel<false>, cn_wgt_kernel<true>, CN_WGT_SHARED)) {
        (void)cudaGetLastError();
        return false;
    }
    return true;
}

static inline bool cn_wgt_built(void)
{
    static int cache[CN_MMA_DEVICES];
    return cn_mma_asked(cache, cn_wgt_ask);
}

/* False (and nothing launched) where the TMA cannot describe the operands:
 * an extent past its 32-bit coordinates, or none (k = 0: c stays as it is,
 * which the other tilings do). */
static inline bool cn_wgt_launch(struct cn_exec *x, const struct cn_mma_args *A)
{
    const size_t lim = (size_t)1 << 31;
    struct cn_wgt_args w;
    struct cn_coop_grid g;
    if (A->k == 0 || A->m >= lim || A->n >= lim || A->k >= lim ||
        !cn_mma_tiles_grid(A, CN_WGT_TM, CN_WGT_TN, &g, &w.tiles_m))
        return false;
    if (g.total == 0)
        return true; /* c is empty: nothing to do */
    w.a = *A;
    if (!cn_wgt_map(&w.ta, A->fmt, A->a, A->m, A->k, CN_WGT_TM) || !cn_wgt_map(&w.tb, A->fmt, A->b, A->k, A->n, 64))
        return false;
    cn_exec_coop_launch(x, A->fmt == CN_MMA_BF16 ? &cn_wgt_bf16_k : &cn_wgt_f16_k, &g, &w);
    return true;
}

#endif /* CAIRN_MMA_TMA_H */
