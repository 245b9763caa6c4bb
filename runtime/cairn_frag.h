/*
 * cairn_frag.h: tensor-core fragments in cooperative regions (numerics.md,
 * "Tensor-core fragments"; docs/numerics.md here). What the emitter writes
 * for WmmaA/B/Acc and MmaA/B/Acc and their operations (emit_coop.c, "fragments"):
 *
 *   the host form      a host region's threads, and an emulated device
 *                      region's: every thread of a warp holds each fragment
 *                      whole, as f32 (cn_hfrag), and a multiply adds each
 *                      output's K products in increasing k after its old
 *                      value; a store writes only the elements the thread's
 *                      lane stores on the device (an mma.sync accumulator's
 *                      share, the PTX ISA's; a WMMA one's, which no one
 *                      states: element e to lane e % 32), so a warp's threads
 *                      write each element once
 *   the device form    nvcuda::wmma for Wmma*: one pointer and a row stride
 *                      for a whole fragment, 32-byte aligned (checked where it
 *                      runs, on the emulated machine too)
 *
 * A layout reaches here as a function (size_t row, size_t col) -> offset
 * the emitter writes once per layout (CN_LAYOUT_FN). Each operation's
 * guards come first: the tile must hold every offset its layout places,
 * and the fragment must lie inside the layout's tile.
 */
#ifndef CAIRN_RT_FRAG_H
#define CAIRN_RT_FRAG_H

#include "cairn_rt.h"
#include "cairn_float.h"

#define CN_LAYOUT_FN static inline CN_HD size_t

/* swizzle(L, B, M, S)'s step on L's offset o: the B bits from M + S XORed
 * into the B bits from M (mask: those B bits at M). */
static inline CN_HD size_t cn_frag_swizzle(size_t o, unsigned s, size_t mask)
{
    return o ^ ((o >> s) & mask);
}

/* The guards of a load or store of fragment (i, j): a tile of n elements
 * whose layout places offsets below cosize, ni x nj fragments in it. */
static inline CN_HD void cn_frag_where(const char *op, const char *tile, size_t n, size_t cosize, size_t i, size_t ni,
                                       size_t j, size_t nj, const char *f, int l, int c)
{
    if (CN_UNLIKELY(n < cosize))
        CN_GUARD(f, l, c, "%s: %s holds %llu elements, and its layout places offsets up to %llu", op, tile,
                 (unsigned long long)n, (unsigned long long)(cosize - 1));
    if (CN_UNLIKELY(i >= ni || j >= nj))
        CN_GUARD(f, l, c, "%s: fragment (%llu, %llu) is outside %s's tile, which holds %llu x %llu fragments", op,
                 (unsigned long long)i, (unsigned long long)j, tile, (unsigned long long)ni, (unsigned long long)nj);
}

/* WMMA reads and writes a fragment through a pointer that must lie on 32
 * bytes (nvcuda::wmma's load_matrix_sync and store_matrix_sync). */
static inline CN_HD void cn_frag_aligned(const char *op, const char *tile, const void *p, const char *f, int l, int c)
{
    if (CN_UNLIKELY((uintptr_t)p % 32))
        CN_GUARD(f, l, c, "%s: the fragment's first element in %s lies %llu bytes past a 32-byte boundary, and WMMA "
                 "needs one", op, tile, (unsigned long long)((uintptr_t)p % 32));
}

/* ---------------------------------------------------------- the host form */

/* A fragment as each thread of the host form holds it: rows x cols f32
 * values, row-major (A: M x K, B: K x N, an accumulator M x N; 32 x 16 at
 * most). */
typedef struct {
    float v[512];
} cn_hfrag;

typedef size_t (*cn_layout_fn)(size_t, size_t);

static inline cn_hfrag cn_hfrag_fill(int n, float x)
{
    cn_hfrag f;
    for (int e = 0; e < n; e++)
        f.v[e] = x;
    return f;
}

/* Fragment rows x cols from (r0, c0) of a tile of T, each element widened
 * exactly. */
#define CN_HFRAG_LOAD(T, C, WIDEN)                                                                      \
    static inline cn_hfrag cn_hfrag_load_##T(const C *p, cn_layout_fn off, size_t r0, size_t c0, int rows, int cols) \
    {                                                                                                   \
        cn_hfrag f;                                                                                     \
        for (int r = 0; r < rows; r++)                                                                  \
            for (int c = 0; c < cols; c++)                                                              \
                f.v[r * cols + c] = WIDEN(p[off(r0 + (size_t)r, c0 + (size_t)c)]);                       \
        return f;                                                                                       \
    }
#define CN_HFRAG_SAME(x) (x)
CN_HFRAG_LOAD(f16, cn_f16, cn_widen_f16)
CN_HFRAG_LOAD(bf16, cn_bf16, cn_widen_bf16)
CN_HFRAG_LOAD(f32, float, CN_HFRAG_SAME)
#undef CN_HFRAG_LOAD
#undef CN_HFRAG_SAME

/* d = c + a b (M x N, K): each output's old value, then its K products in
 * increasing k, each sum rounded to f32 (every product of two f16 or bf16
 * values is exact in f32, bar a bf16 product past its range). */
static inline cn_hfrag cn_hfrag_mma(const cn_hfrag *c, const cn_hfrag *a, const cn_hfrag *b, int m, int n, int k)
{
    cn_hfrag d;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float s = c->v[i * n + j];
            for (int p = 0; p < k; p++)
                s = s + a->v[i * k + p] * b->v[p * n + j];
            d.v[i * n + j] = s;
        }
    return d;
}

/* A WMMA accumulator's store: this lane's elements, e = lane, lane + 32, ... */
static inline void cn_hfrag_store_wmma(float *p, cn_layout_fn off, size_t r0, size_t c0, int rows, int cols,
                                       const cn_hfrag *f, unsigned lane)
{
    for (int e = (int)(lane % 32); e < rows * cols; e += 32)
        p[off(r0 + (size_t)(e / cols), c0 + (size_t)(e % cols))] = f->v[e];
}

/* An mma.sync accumulator (16 x 8): lane l's value v is element
 * (l / 4 + 8 (v / 2), 2 (l % 4) + v % 2), the PTX ISA's share. */
static inline CN_HD int cn_mma_acc_row(unsigned lane, size_t v) { return (int)(lane % 32 / 4 + 8 * (v / 2)); }
static inline CN_HD int cn_mma_acc_col(unsigned lane, size_t v) { return (int)(2 * (lane % 4) + v % 2); }

static inline CN_HD void cn_frag_value(size_t v, const char *op, const char *f, int l, int c)
{
    if (CN_UNLIKELY(v >= 4))
        CN_GUARD(f, l, c, "%s: a lane holds values 0 .. 3 of an MmaAcc[f32, 16, 8, 16], and %llu is not one", op,
                 (unsigned long long)v);
}

static inline void cn_hfrag_store_mma(float *p, cn_layout_fn off, size_t r0, size_t c0, const cn_hfrag *f,
                                      unsigned lane)
{
    for (size_t v = 0; v < 4; v++) {
        int r = cn_mma_acc_row(lane, v), c = cn_mma_acc_col(lane, v);
        p[off(r0 + (size_t)r, c0 + (size_t)c)] = f->v[r * 8 + c];
    }
}

static inline float cn_hfrag_get(const cn_hfrag *f, unsigned lane, size_t v, const char *fl, int l, int c)
{
    cn_frag_value(v, "mma_get", fl, l, c);
    return f->v[cn_mma_acc_row(lane, v) * 8 + cn_mma_acc_col(lane, v)];
}

static inline cn_hfrag cn_hfrag_set(cn_hfrag f, unsigned lane, size_t v, float x, const char *fl, int l, int c)
{
    cn_frag_value(v, "mma_set", fl, l, c);
    f.v[cn_mma_acc_row(lane, v) * 8 + cn_mma_acc_col(lane, v)] = x;
    return f;
}

/* -------------------------------------------------------- the device form */

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#define CN_WMMA_A(M, N, K, E) nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, M, N, K, E, nvcuda::wmma::row_major>
#define CN_WMMA_B(M, N, K, E) nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, M, N, K, E, nvcuda::wmma::row_major>
#define CN_WMMA_ACC(M, N, K) nvcuda::wmma::fragment<nvcuda::wmma::accumulator, M, N, K, float>

template <typename F> static __device__ __forceinline__ F cn_wmma_fill(float x)
{
    F f;
    nvcuda::wmma::fill_fragment(f, x);
    return f;
}

template <typename F, typename E> static __device__ __forceinline__ F cn_wmma_load(const void *p, unsigned ldm)
{
    F f;
    nvcuda::wmma::load_matrix_sync(f, (const E *)p, ldm);
    return f;
}

template <typename F> static __device__ __forceinline__ F cn_wmma_load_acc(const float *p, unsigned ldm)
{
    F f;
    nvcuda::wmma::load_matrix_sync(f, p, ldm, nvcuda::wmma::mem_row_major);
    return f;
}

template <typename F> static __device__ __forceinline__ void cn_wmma_store(float *p, const F &f, unsigned ldm)
{
    nvcuda::wmma::store_matrix_sync(p, f, ldm, nvcuda::wmma::mem_row_major);
}

template <typename C, typename A, typename B>
static __device__ __forceinline__ C cn_wmma_mma(const C &c, const A &a, const B &b)
{
    C d;
    nvcuda::wmma::mma_sync(d, a, b, c);
    return d;
}

/*
 * mma.sync m16n8k16 (the PTX ISA, "Matrix Fragments for mma.m16n8k16"):
 * lane l, group g = l / 4, t = l % 4, holds of A (16 x 16) the pairs at
 * rows g and g + 8, columns 2t and 2t + 8 (a0 .. a3: row g, g + 8, then the
 * same 8 columns on); of B (16 x 8) the pairs at rows 2t and 2t + 8, column
 * g (b0, b1); of the accumulator (16 x 8) values v at (g + 8 (v / 2),
 * 2t + v % 2). A pair is two 16-bit values in one register, the lower
 * index in the lower half. From shared memory A comes through ldmatrix.x4
 * (lane l names row l % 16 of the 16 x 16, from column 8 (l / 16)) and B
 * through ldmatrix.x2.trans (lane l names row l % 16); from a view, each
 * lane loads its own pairs.
 */
typedef struct {
    uint32_t r[4];
} cn_dmma_a;
typedef struct {
    uint32_t r[2];
} cn_dmma_b;
typedef struct {
    float r[4];
} cn_dmma_acc;

static __device__ __forceinline__ uint32_t cn_dmma_pair(uint16_t lo, uint16_t hi)
{
    return (uint32_t)lo | (uint32_t)hi << 16;
}

static __device__ __forceinline__ cn_dmma_a cn_dmma_load_a(const uint16_t *p, cn_layout_fn off, size_t r0, size_t c0,
                                                           bool shared)
{
    cn_dmma_a f;
    unsigned l = threadIdx.x % 32, g = l / 4, t = l % 4;
    if (shared) {
        unsigned a = (unsigned)__cvta_generic_to_shared(p + off(r0 + l % 16, c0 + (l / 16) * 8));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(f.r[0]), "=r"(f.r[1]), "=r"(f.r[2]), "=r"(f.r[3])
                     : "r"(a));
        return f;
    }
    for (unsigned q = 0; q < 4; q++) {
        size_t row = r0 + g + 8 * (q & 1), col = c0 + 2 * t + 8 * (q >> 1);
        f.r[q] = cn_dmma_pair(p[off(row, col)], p[off(row, col + 1)]);
    }
    return f;
}

static __device__ __forceinline__ cn_dmma_b cn_dmma_load_b(const uint16_t *p, cn_layout_fn off, size_t r0, size_t c0,
                                                           bool shared)
{
    cn_dmma_b f;
    unsigned l = threadIdx.x % 32, g = l / 4, t = l % 4;
    if (shared) {
        unsigned a = (unsigned)__cvta_generic_to_shared(p + off(r0 + l % 16, c0));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                     : "=r"(f.r[0]), "=r"(f.r[1])
                     : "r"(a));
        return f;
    }
    for (unsigned q = 0; q < 2; q++) {
        size_t row = r0 + 2 * t + 8 * q, col = c0 + g;
        f.r[q] = cn_dmma_pair(p[off(row, col)], p[off(row + 1, col)]);
    }
    return f;
}

static __device__ __forceinline__ cn_dmma_acc cn_dmma_fill(float x)
{
    cn_dmma_acc f = {{x, x, x, x}};
    return f;
}

static __device__ __forceinline__ cn_dmma_acc cn_dmma_load_acc(const float *p, cn_layout_fn off, size_t r0,
                                                               size_t c0)
{
    cn_dmma_acc f;
    unsigned l = threadIdx.x % 32;
    for (unsigned v = 0; v < 4; v++)
        f.r[v] = p[off(r0 + cn_mma_acc_row(l, v), c0 + cn_mma_acc_col(l, v))];
    return f;
}

static __device__ __forceinline__ void cn_dmma_store(float *p, cn_layout_fn off, size_t r0, size_t c0,
                                                     const cn_dmma_acc &f)
{
    unsigned l = threadIdx.x % 32;
    for (unsigned v = 0; v < 4; v++)
        p[off(r0 + cn_mma_acc_row(l, v), c0 + cn_mma_acc_col(l, v))] = f.r[v];
}

#define CN_DMMA_SYNC(NAME, TYPE)                                                                        \
    static __device__ __forceinline__ cn_dmma_acc NAME(const cn_dmma_acc &c, const cn_dmma_a &a, const cn_dmma_b &b) \
    {                                                                                                   \
        cn_dmma_acc d;                                                                                  \
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TYPE "." TYPE ".f32 {%0, %1, %2, %3}, "    \
                     "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"                                \
                     : "=f"(d.r[0]), "=f"(d.r[1]), "=f"(d.r[2]), "=f"(d.r[3])                            \
                     : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[0]), "r"(b.r[1]),     \
                       "f"(c.r[0]), "f"(c.r[1]), "f"(c.r[2]), "f"(c.r[3]));                              \
        return d;                                                                                       \
    }
CN_DMMA_SYNC(cn_dmma_f16, "f16")
CN_DMMA_SYNC(cn_dmma_bf16, "bf16")
#undef CN_DMMA_SYNC

static __device__ __forceinline__ float cn_dmma_get(const cn_dmma_acc &f, size_t v, const char *fl, int l, int c)
{
    cn_frag_value(v, "mma_get", fl, l, c);
    return f.r[v];
}

static __device__ __forceinline__ cn_dmma_acc cn_dmma_set(cn_dmma_acc f, size_t v, float x, const char *fl, int l,
                                                          int c)
{
    cn_frag_value(v, "mma_set", fl, l, c);
    f.r[v] = x;
    return f;
}
#endif

#endif /* CAIRN_RT_FRAG_H */
