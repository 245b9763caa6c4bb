/*
 * cairn_mma.h: mma_unordered(m, n, k, c, a, b), the tensor-core multiply
 * (numerics.md, "The tensor-core multiply"; docs/numerics.md here). It adds
 * the product of the row-major m x k matrix a and the row-major k x n matrix
 * b into the row-major m x n f32 matrix c; a and b hold one storage float.
 *
 * The contract, and nothing stronger: each product is exact in f32; each
 * output is its old value plus its k products, each partial sum rounded to
 * f32, in an order the machine picks; so every finite output lies within
 * (k + 1) * 2^-22 * (|c| + sum |a b|) of the exact sum.
 *
 *   cn_mma_extents        the extents, checked once, at the call: m * n <= |c|,
 *                         m * k <= |a|, k * n <= |b|, no product overflowing
 *   cn_mma_host_T         the host's multiply: the reference loop, each output
 *                         c[i][j] + a[i][0] b[0][j] + a[i][1] b[1][j] + ...,
 *                         in increasing p, rounded to f32 after each add
 *   cn_exec_mma           device views (cairn_exec.h): the tiling below, on
 *                         the context's run, as one launch
 *
 * The device's tiling ("tile64", the one the page fixes)
 * -----------------------------------------------------
 * A block of 128 threads (four warps) makes one 64 x 64 tile of c. Warp w
 * owns rows 32 (w / 2) .. +32 and columns 32 (w % 2) .. +32: 2 x 2
 * accumulator fragments of 16 x 16 (WMMA). k goes in steps of 32 through two
 * stages in shared memory, padded (a row of A 40 elements apart, of B 72) so
 * the fragment loads of a warp do not meet on one bank: while the warps
 * multiply out of one stage, each thread holds its share of the next step in
 * registers and stores it into the other stage, and one barrier a step
 * separates the two. The tile of c goes through shared memory too (68
 * floats a row), in and out, so partial tiles need no bounds in the
 * fragment loads; it lies over the stages, which it is never live with.
 *
 * Partial tiles: an element past m or k of A is -0 and one past k or n of B
 * is +0. A product of two pads is -0, and x + -0 is x for every x (-0 and
 * NaN included), so the pads beyond k add nothing, not even a sign to a zero;
 * the rows and columns past m and n are computed and dropped.
 *
 * The same tile function runs on every machine (cairn_mma_tile.h, written
 * once and included for each operand kind):
 *
 *   CUDA        nvcuda::wmma fragments (f16, or bf16 for bf16 operands: the
 *               8-bit formats are staged as f16, which holds each of their
 *               values exactly), __syncthreads, 16-byte loads where every row
 *               of a and b starts on 16 bytes (k and n multiples of 8 and
 *               both views aligned), element loads otherwise
 *   emulated    the region runtime's teams of host threads (cairn_coop.h),
 *               its barrier, and host fragments: each thread holds each
 *               fragment whole, as f32, and a fragment multiply adds each
 *               output's 16 products in increasing k, for the outputs the
 *               thread stores (a lane stores elements lane, lane + 32, ...:
 *               the tiling reads no other back). The steps come in
 *               increasing k too, so an emulated multiply gives the
 *               reference loop's bits (tests/unit/test_mma.c)
 *
 * Included by the emitted program after cairn_rt.h (and cairn_exec.h when it
 * has device work); the device half needs cairn_exec.h.
 */
#ifndef CAIRN_MMA_H
#define CAIRN_MMA_H

#include "cairn_float.h"

/* The operand formats, in CN_STORAGE_FLOATS' order. */
enum cn_mma_fmt { CN_MMA_F16, CN_MMA_BF16, CN_MMA_F8E4M3, CN_MMA_F8E5M2 };

/* ------------------------------------------------------------ extents */

static inline void cn_mma_extent(const char *what, size_t have, const char *rows, size_t r, const char *cols,
                                 size_t cl, const char *f, int l, int col)
{
    size_t need;
    if (__builtin_mul_overflow(r, cl, &need) || need > have)
        cn_guard_fail(f, l, col, "mma_unordered: %s holds %zu elements, and %s x %s is %zu x %zu", what, have, rows,
                      cols, r, cl);
}

static inline void cn_mma_extents(size_t m, size_t n, size_t k, size_t cn, size_t an, size_t bn, const char *f,
                                  int l, int col)
{
    cn_mma_extent("c", cn, "m", m, "n", n, f, l, col);
    cn_mma_extent("a", an, "m", m, "k", k, f, l, col);
    cn_mma_extent("b", bn, "k", k, "n", n, f, l, col);
}

/* ------------------------------------------------------ the host's loop */

/*
 * The reference loop, blocked for the cache: for each block of 128 columns
 * and each block of 32 rows of b, b's block widened to f32 once, then every
 * row of a through it. Each output still takes its products one at a time
 * in increasing p (the blocks of p come in order for every column), so the
 * bits are the plain loop's; the loops only move where it waits.
 */
enum { CN_MMA_HOST_KB = 32, CN_MMA_HOST_NB = 128 }; /* b's block: 16 KB of the stack */

#define CN_MMA_HOST(T, C, U)                                                                        \
    static inline void cn_mma_host_##T(size_t m, size_t n, size_t k, float *c, size_t cn, const C *a, \
                                       size_t an, const C *b, size_t bn, const char *f, int l, int col) \
    {                                                                                               \
        cn_mma_extents(m, n, k, cn, an, bn, f, l, col);                                             \
        float bw[CN_MMA_HOST_KB * CN_MMA_HOST_NB];                                                  \
        for (size_t j0 = 0; j0 < n; j0 += CN_MMA_HOST_NB) {                                         \
            size_t nj = n - j0 < CN_MMA_HOST_NB ? n - j0 : CN_MMA_HOST_NB;                          \
            for (size_t p0 = 0; p0 < k; p0 += CN_MMA_HOST_KB) {                                     \
                size_t np = k - p0 < CN_MMA_HOST_KB ? k - p0 : CN_MMA_HOST_KB;                      \
                for (size_t p = 0; p < np; p++)                                                     \
                    for (size_t j = 0; j < nj; j++)                                                 \
                        bw[p * nj + j] = cn_widen_##T(b[(p0 + p) * n + j0 + j]);                    \
                for (size_t i = 0; i < m; i++) {                                                    \
                    float *ci = c + i * n + j0;                                                     \
                    for (size_t p = 0; p < np; p++) {                                               \
                        float av = cn_widen_##T(a[i * k + p0 + p]);                                 \
                        const float *bp = bw + p * nj;                                              \
                        for (size_t j = 0; j < nj; j++)                                             \
                            ci[j] = ci[j] + av * bp[j];                                             \
                    }                                                                               \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
    }
CN_STORAGE_FLOATS(CN_MMA_HOST)
#undef CN_MMA_HOST

/* ===================================================== the device's tiling */

#ifdef CAIRN_EXEC_H

enum {
    CN_MMA_TM = 64, CN_MMA_TN = 64, CN_MMA_TK = 32, CN_MMA_THREADS = 128,
    CN_MMA_LDA = CN_MMA_TK + 8,             /* a stage's row of A: 40 elements, 80 bytes */
    CN_MMA_LDB = CN_MMA_TN + 8,             /* of B: 72 elements, 144 bytes */
    CN_MMA_LDC = CN_MMA_TN + 4,             /* the tile of c: 68 floats a row */
    CN_MMA_A_STAGE = CN_MMA_TM * CN_MMA_LDA, /* elements */
    CN_MMA_B_STAGE = CN_MMA_TK * CN_MMA_LDB,
    CN_MMA_STAGES_BYTES = 2 * 2 * (CN_MMA_A_STAGE + CN_MMA_B_STAGE),
    CN_MMA_C_BYTES = 4 * CN_MMA_TM * CN_MMA_LDC,
    CN_MMA_SHARED = CN_MMA_STAGES_BYTES > CN_MMA_C_BYTES ? CN_MMA_STAGES_BYTES : CN_MMA_C_BYTES
};

/* A launch's arguments: fmt is the operands' enum cn_mma_fmt; vec, whether
 * every row of a and b starts on 16 bytes (16-bit formats only). */
struct cn_mma_args {
    size_t m, n, k;
    float *c;
    const void *a, *b;
    int fmt, vec;
};

/* An 8-bit operand as the f16 that holds its value exactly: an f8e5m2 is
 * the top byte of its f16; an f8e4m3 goes through its f32 (exact), whose
 * exponent, -9 .. 8, is an f16 normal's. */
CN_DEV_BOTH uint16_t cn_mma_f8_as_f16(uint8_t v, int fmt)
{
    if (fmt == CN_MMA_F8E5M2)
        return (uint16_t)(v << 8);
    uint32_t u = cn_float_widen_bits(cn_fmt_f8e4m3(), v);
    uint16_t s = (uint16_t)(u >> 16 & 0x8000u);
    uint32_t mag = u & 0x7fffffffu;
    if (mag > 0x7f800000u)
        return (uint16_t)(s | 0x7e00u);
    if (mag == 0)
        return s;
    int e = (int)(mag >> 23) - 127;
    return (uint16_t)(s | (uint16_t)((e + 15) << 10) | (uint16_t)((mag & 0x7fffffu) >> 13));
}

/* Element idx of operand p as the bits a stage holds: the f16 or bf16
 * itself, or an 8-bit format's f16. */
CN_DEV_BOTH uint16_t cn_mma_operand(const void *p, size_t idx, int fmt)
{
    if (fmt == CN_MMA_F16 || fmt == CN_MMA_BF16)
        return ((const uint16_t *)p)[idx];
    return cn_mma_f8_as_f16(((const uint8_t *)p)[idx], fmt);
}

/* 16 bytes: eight 16-bit operands, one load on the device. */
#if CN_DEV_CUDA
typedef uint4 cn_mma_v8;
#define CN_MMA_LOAD8(dst, src) ((dst) = *(const uint4 *)(src))
#define CN_MMA_STORE8(dst, v) (*(uint4 *)(dst) = (v))
#define CN_MMA_PAD8(v, h) ((v).x = (v).y = (v).z = (v).w = (uint32_t)(h) * 0x10001u)
#else
typedef struct {
    uint32_t w[4];
} cn_mma_v8;
#define CN_MMA_LOAD8(dst, src) memcpy(&(dst), (src), 16)
#define CN_MMA_STORE8(dst, v) memcpy((dst), &(v), 16)
#define CN_MMA_PAD8(v, h) ((v).w[0] = (v).w[1] = (v).w[2] = (v).w[3] = (uint32_t)(h) * 0x10001u)
#endif

/* ------------------------------------------- fragments, per machine */

#if CN_DEV_CUDA
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>

#define CN_MMA_TH int
#define CN_MMA_SYNC(th) __syncthreads()
#define CN_MMA_FN static __device__ __forceinline__
typedef nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> cn_mma_acc;
#define CN_MMA_ACC_LOAD(fr, p, ld, lane) nvcuda::wmma::load_matrix_sync(fr, p, ld, nvcuda::wmma::mem_row_major)
#define CN_MMA_ACC_STORE(p, fr, ld, lane) nvcuda::wmma::store_matrix_sync(p, fr, ld, nvcuda::wmma::mem_row_major)

#else /* emulated: each thread holds each fragment whole */
#define CN_MMA_TH struct cn_coop_thread *
#define CN_MMA_SYNC(th) cn_coop_barrier(th)
#define CN_MMA_FN static inline

typedef struct {
    float v[16 * 16];
} cn_mma_hfrag;
typedef cn_mma_hfrag cn_mma_acc;

/* A 16 x 16 operand (A: rows m, columns k; B: rows k, columns n) from a
 * stage's bits, each widened exactly. */
static inline void cn_mma_hload(cn_mma_hfrag *fr, const uint16_t *p, unsigned ld, bool bf16)
{
    for (unsigned r = 0; r < 16; r++)
        for (unsigned c = 0; c < 16; c++)
            fr->v[r * 16 + c] = bf16 ? cn_widen_bf16(p[r * ld + c]) : cn_widen_f16(p[r * ld + c]);
}

static inline void cn_mma_hacc_load(cn_mma_hfrag *fr, const float *p, unsigned ld)
{
    for (unsigned r = 0; r < 16; r++)
        for (unsigned c = 0; c < 16; c++)
            fr->v[r * 16 + c] = p[r * ld + c];
}

/* The lane's share of a store: element e goes to lane e % 32, so a warp's
 * threads write each element once, as the device's store does. */
static inline void cn_mma_hacc_store(float *p, const cn_mma_hfrag *fr, unsigned ld, unsigned lane)
{
    for (unsigned e = lane % 32; e < 256; e += 32)
        p[(e / 16) * ld + e % 16] = fr->v[e];
}

/* d = d + a b on the outputs this lane stores (e % 32 == lane: the tiling
 * reads no other element of an accumulator back), each output's products
 * in increasing k, one rounding each. */
static inline void cn_mma_hmma(cn_mma_hfrag *d, const cn_mma_hfrag *a, const cn_mma_hfrag *b, unsigned lane)
{
    for (unsigned e = lane % 32; e < 256; e += 32) {
        unsigned i = e / 16, j = e % 16;
        float s = d->v[e];
        for (unsigned p = 0; p < 16; p++)
            s = s + a->v[i * 16 + p] * b->v[p * 16 + j];
        d->v[e] = s;
    }
}

#define CN_MMA_ACC_LOAD(fr, p, ld, lane) cn_mma_hacc_load(&(fr), p, ld)
#define CN_MMA_ACC_STORE(p, fr, ld, lane) cn_mma_hacc_store(p, &(fr), ld, lane)
#endif

/* The tile function, once per operand kind. */
#define CN_MMA_KIND f16
#define CN_MMA_IS_BF16 0
#include "cairn_mma_tile.h"
#undef CN_MMA_KIND
#undef CN_MMA_IS_BF16
#define CN_MMA_KIND bf16
#define CN_MMA_IS_BF16 1
#include "cairn_mma_tile.h"
#undef CN_MMA_KIND
#undef CN_MMA_IS_BF16

/* ------------------------------------------------------- the launch */

#if CN_DEV_CUDA
#define CN_MMA_KERNEL(K)                                                                            \
    static __global__ void __launch_bounds__(CN_MMA_THREADS)                                        \
        cn_mma_##K##_kernel(struct cn_mma_args a, struct cn_coop_launch L)                          \
    {                                                                                               \
        __shared__ __align__(128) unsigned char sh[CN_MMA_SHARED];                                  \
        uint64_t total = L.grid.total, step = gridDim.x;                                            \
        for (uint64_t p = blockIdx.x; p < total; p += step) {                                       \
            size_t b0, b1, b2;                                                                      \
            cn_coop_names(&L.grid, p, &b0, &b1, &b2);                                               \
            cn_mma_tile_##K(&a, b0, b1, threadIdx.x, sh, 0);                                        \
            if (total - p <= step)                                                                  \
                break;                                                                              \
            __syncthreads();                                                                        \
        }                                                                                           \
    }                                                                                               \
    static void cn_mma_##K##_launch(cudaStream_t s, unsigned blocks, const void *args,              \
                                    const struct cn_coop_launch *L)                                 \
    {                                                                                               \
        cn_mma_##K##_kernel<<<blocks, CN_MMA_THREADS, 0, s>>>(*(const struct cn_mma_args *)args, *L); \
    }                                                                                               \
    static const struct cn_coop_kernel cn_mma_##K##_k = {"mma_unordered (" #K " operands)", CN_MMA_THREADS, \
                                                         false, cn_mma_##K##_launch};
#else
static const struct cn_coop_array cn_mma_arrays[] = {{0, CN_MMA_SHARED, 0}};
static const struct cn_coop_layout cn_mma_layout = {CN_MMA_SHARED, cn_mma_arrays, 1};
#define CN_MMA_KERNEL(K)                                                                            \
    static void cn_mma_##K##_body(void *e, size_t p, unsigned t, unsigned char *sh, struct cn_coop_thread *th) \
    {                                                                                               \
        size_t b0, b1, b2;                                                                          \
        cn_coop_emu_names(e, p, &b0, &b1, &b2);                                                     \
        cn_mma_tile_##K((const struct cn_mma_args *)cn_coop_emu_args(e), b0, b1, t, sh, th);        \
    }                                                                                               \
    static const struct cn_coop_kernel cn_mma_##K##_k = {"mma_unordered (" #K " operands)", CN_MMA_THREADS, \
                                                         false, &cn_mma_layout, NULL, cn_mma_##K##_body, NULL};
#endif
CN_MMA_KERNEL(f16)
CN_MMA_KERNEL(bf16)
#undef CN_MMA_KERNEL

/* The wgmma tilings (sm_90a): CN_MMA_WGMMA=2 (the default) the TMA one
 * (cairn_mma_tma.h), held to the contract on a GPU; 1 the cp.async one
 * (cairn_mma_wgmma.h) in its place, on request only (its full contract run
 * on a GPU never finished); 0 neither. Where the chosen one does not apply,
 * the wide mma.sync tiling. (The TMA tiling uses cairn_mma_wgmma.h's
 * descriptors, so both headers come in with 2.) */
#ifndef CN_MMA_WGMMA
#define CN_MMA_WGMMA 2
#endif

#if CN_DEV_CUDA
#include "cairn_mma_wide.h"
#if CN_MMA_WGMMA
#include "cairn_mma_wgmma.h"
#endif
#if CN_MMA_WGMMA >= 2
#include "cairn_mma_tma.h"
#endif
#endif

/* Which tiling a launch takes: CN_MMA_AUTO the fastest that applies (on a
 * CUDA device with 16-bit operands whose rows start on 16 bytes: wgmma on
 * sm_90a where built, else the wide mma.sync tiling from sm_80), else the
 * page's; CN_MMA_SYNC the wide mma.sync one where it applies; CN_MMA_PAGE
 * the page's always (tests/unit/test_mma.c holds the page's and the wide
 * one to the same bits). */
enum cn_mma_tiling { CN_MMA_AUTO, CN_MMA_PAGE, CN_MMA_SYNC };

/* mma_unordered over @device views: the extents, then one launch on the
 * context's run: the page's tiling a block per 64 x 64 tile of c (blocks
 * name tiles across, then down), or the wide one. Nothing to launch when c
 * is empty; an empty k still runs, and leaves c as it was. */
static inline void cn_exec_mma_tiled(struct cn_exec *x, enum cn_mma_tiling tiling, int fmt, size_t m, size_t n,
                                     size_t k, float *c, size_t cn, const void *a, size_t an, const void *b,
                                     size_t bn, const char *f, int l, int col)
{
    cn_mma_extents(m, n, k, cn, an, bn, f, l, col);
    struct cn_coop_grid g;
    if (!cn_coop_grid_make(&g, (n + CN_MMA_TN - 1) / CN_MMA_TN, (m + CN_MMA_TM - 1) / CN_MMA_TM, 1))
        cn_guard_fail(f, l, col, "mma_unordered: %zu x %zu tiles of c do not fit a grid", m, n);
    if (g.total == 0)
        return;
    bool wide16 = fmt == CN_MMA_F16 || fmt == CN_MMA_BF16;
    struct cn_mma_args A = {m, n, k, c, a, b, fmt,
                            wide16 && k % 8 == 0 && n % 8 == 0 && (uintptr_t)a % 16 == 0 && (uintptr_t)b % 16 == 0};
#if CN_DEV_CUDA
    if (tiling != CN_MMA_PAGE && A.vec) {
#if CN_MMA_WGMMA >= 2
        if (tiling == CN_MMA_AUTO && cn_wgt_built() && cn_wgt_launch(x, &A))
            return;
#endif
#if CN_MMA_WGMMA == 1
        if (tiling == CN_MMA_AUTO && cn_wg_built() && cn_wg_launch(x, &A))
            return;
#endif
        if (cn_mmaw_built() && cn_mmaw_launch(x, &A))
            return;
    }
#else
    (void)tiling;
#endif
    cn_exec_coop_launch(x, fmt == CN_MMA_BF16 ? &cn_mma_bf16_k : &cn_mma_f16_k, &g, &A);
}

static inline void cn_exec_mma(struct cn_exec *x, int fmt, size_t m, size_t n, size_t k, float *c, size_t cn,
                               const void *a, size_t an, const void *b, size_t bn, const char *f, int l, int col)
{
    cn_exec_mma_tiled(x, CN_MMA_AUTO, fmt, m, n, k, c, cn, a, an, b, bn, f, l, col);
}

#endif /* CAIRN_EXEC_H */

#endif /* CAIRN_MMA_H */
