/*
 * cairn_mma_tile.h: one 64 x 64 tile of mma_unordered on the device, the
 * tiling cairn_mma.h describes. Included by cairn_mma.h once per operand
 * kind, with CN_MMA_KIND (f16 or bf16) and CN_MMA_IS_BF16 (0 or 1) defined:
 * the function is cn_mma_tile_f16 or cn_mma_tile_bf16. Not a header to
 * include elsewhere.
 *
 * Every thread of the block calls it with its number t; th is the emulated
 * machine's thread (its barrier), unused on the device.
 */
#ifndef CN_MMA_KIND
#error "cairn_mma_tile.h is included by cairn_mma.h"
#endif

#define CN_MMA_CAT2(a, b) a##b
#define CN_MMA_CAT(a, b) CN_MMA_CAT2(a, b)
#define CN_MMA_NAME(x) CN_MMA_CAT(x, CN_MMA_KIND)

/* The operand fragments of this kind, and their loads and multiply. */
#if CN_DEV_CUDA
#if CN_MMA_IS_BF16
typedef __nv_bfloat16 CN_MMA_NAME(cn_mma_elem_);
#else
typedef __half CN_MMA_NAME(cn_mma_elem_);
#endif
typedef nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, CN_MMA_NAME(cn_mma_elem_), nvcuda::wmma::row_major>
    CN_MMA_NAME(cn_mma_fa_);
typedef nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, CN_MMA_NAME(cn_mma_elem_), nvcuda::wmma::row_major>
    CN_MMA_NAME(cn_mma_fb_);
#define CN_MMA_OP_LOAD(fr, p, ld) \
    nvcuda::wmma::load_matrix_sync(fr, (const CN_MMA_NAME(cn_mma_elem_) *)(p), ld)
#define CN_MMA_MMA(d, a, b, lane) nvcuda::wmma::mma_sync(d, a, b, d)
#else
typedef cn_mma_hfrag CN_MMA_NAME(cn_mma_fa_);
typedef cn_mma_hfrag CN_MMA_NAME(cn_mma_fb_);
#define CN_MMA_OP_LOAD(fr, p, ld) cn_mma_hload(&(fr), p, ld, CN_MMA_IS_BF16)
#define CN_MMA_MMA(d, a, b, lane) cn_mma_hmma(&(d), &(a), &(b), lane)
#endif

/* A step's share of one thread, between its loads and its stores into the
 * next stage: 16 + 16 elements, or 2 + 2 runs of eight where vec. */
struct CN_MMA_NAME(cn_mma_share_) {
    uint16_t a[16], b[16];
    cn_mma_v8 va[2], vb[2];
};

/* Step k0's elements of this thread: A's 64 x 32 and B's 32 x 64, each a
 * pad past the matrix (A -0, B +0: cairn_mma.h says why). Element e of A
 * is row e / 32, column e % 32, so a warp reads 32 neighbours of a row. */
CN_MMA_FN void CN_MMA_NAME(cn_mma_fetch_)(const struct cn_mma_args *A, size_t i0, size_t j0, size_t k0, unsigned t,
                                          struct CN_MMA_NAME(cn_mma_share_) *r)
{
    const size_t m = A->m, n = A->n, k = A->k;
    if (A->vec) {
        for (unsigned q = 0; q < 2; q++) {
            unsigned v = t + CN_MMA_THREADS * q;
            size_t i = i0 + v / 4, p = k0 + (v % 4) * 8;
            if (i < m && p < k) /* k % 8 == 0: the run is all inside */
                CN_MMA_LOAD8(r->va[q], (const uint16_t *)A->a + i * k + p);
            else
                CN_MMA_PAD8(r->va[q], 0x8000u);
            size_t pb = k0 + v / 8, j = j0 + (v % 8) * 8;
            if (pb < k && j < n)
                CN_MMA_LOAD8(r->vb[q], (const uint16_t *)A->b + pb * n + j);
            else
                CN_MMA_PAD8(r->vb[q], 0u);
        }
        return;
    }
    for (unsigned q = 0; q < 16; q++) {
        unsigned e = t + CN_MMA_THREADS * q;
        size_t i = i0 + e / 32, p = k0 + e % 32;
        r->a[q] = i < m && p < k ? cn_mma_operand(A->a, i * k + p, A->fmt) : (uint16_t)0x8000u;
        size_t pb = k0 + e / 64, j = j0 + e % 64;
        r->b[q] = pb < k && j < n ? cn_mma_operand(A->b, pb * n + j, A->fmt) : (uint16_t)0;
    }
}

/* The share into a stage (sa: A's 64 rows of LDA, sb: B's 32 rows of LDB). */
CN_MMA_FN void CN_MMA_NAME(cn_mma_put_)(const struct cn_mma_args *A, unsigned t,
                                        const struct CN_MMA_NAME(cn_mma_share_) *r, uint16_t *sa, uint16_t *sb)
{
    if (A->vec) {
        for (unsigned q = 0; q < 2; q++) {
            unsigned v = t + CN_MMA_THREADS * q;
            CN_MMA_STORE8(sa + (v / 4) * CN_MMA_LDA + (v % 4) * 8, r->va[q]);
            CN_MMA_STORE8(sb + (v / 8) * CN_MMA_LDB + (v % 8) * 8, r->vb[q]);
        }
        return;
    }
    for (unsigned q = 0; q < 16; q++) {
        unsigned e = t + CN_MMA_THREADS * q;
        sa[(e / 32) * CN_MMA_LDA + e % 32] = r->a[q];
        sb[(e / 64) * CN_MMA_LDB + e % 64] = r->b[q];
    }
}

/* Tile (ti, tj) of c: rows 64 ti .., columns 64 tj .. */
CN_MMA_FN void CN_MMA_NAME(cn_mma_tile_)(const struct cn_mma_args *A, size_t tj, size_t ti, unsigned t,
                                         unsigned char *sh, CN_MMA_TH th)
{
    uint16_t *as = (uint16_t *)sh, *bs = as + 2 * CN_MMA_A_STAGE;
    float *cs = (float *)sh;
    const size_t m = A->m, n = A->n, k = A->k, i0 = ti * CN_MMA_TM, j0 = tj * CN_MMA_TN;
    const unsigned lane = t % 32, w = t / 32, wr = (w / 2) * 32, wc = (w % 2) * 32;
    (void)lane;
    (void)th;

    for (unsigned e = t; e < CN_MMA_TM * CN_MMA_TN; e += CN_MMA_THREADS) {
        size_t i = i0 + e / CN_MMA_TN, j = j0 + e % CN_MMA_TN;
        cs[(e / CN_MMA_TN) * CN_MMA_LDC + e % CN_MMA_TN] = i < m && j < n ? A->c[i * n + j] : 0.0f;
    }
    CN_MMA_SYNC(th);
    cn_mma_acc acc[2][2];
    for (unsigned x = 0; x < 2; x++)
        for (unsigned y = 0; y < 2; y++)
            CN_MMA_ACC_LOAD(acc[x][y], cs + (wr + 16 * x) * CN_MMA_LDC + wc + 16 * y, CN_MMA_LDC, lane);
    CN_MMA_SYNC(th); /* the stages lie over the tile of c */

    struct CN_MMA_NAME(cn_mma_share_) r;
    size_t steps = k / CN_MMA_TK + (k % CN_MMA_TK != 0);
    if (steps) {
        CN_MMA_NAME(cn_mma_fetch_)(A, i0, j0, 0, t, &r);
        CN_MMA_NAME(cn_mma_put_)(A, t, &r, as, bs);
        CN_MMA_SYNC(th);
    }
    for (size_t s = 0; s < steps; s++) {
        bool more = s + 1 < steps;
        if (more) /* the next step's loads, in flight while this one multiplies */
            CN_MMA_NAME(cn_mma_fetch_)(A, i0, j0, (s + 1) * CN_MMA_TK, t, &r);
        const uint16_t *sa = as + (s & 1) * CN_MMA_A_STAGE, *sb = bs + (s & 1) * CN_MMA_B_STAGE;
        for (unsigned kk = 0; kk < CN_MMA_TK; kk += 16) {
            CN_MMA_NAME(cn_mma_fa_) fa[2];
            CN_MMA_NAME(cn_mma_fb_) fb[2];
            for (unsigned x = 0; x < 2; x++)
                CN_MMA_OP_LOAD(fa[x], sa + (wr + 16 * x) * CN_MMA_LDA + kk, CN_MMA_LDA);
            for (unsigned y = 0; y < 2; y++)
                CN_MMA_OP_LOAD(fb[y], sb + kk * CN_MMA_LDB + wc + 16 * y, CN_MMA_LDB);
            for (unsigned x = 0; x < 2; x++)
                for (unsigned y = 0; y < 2; y++)
                    CN_MMA_MMA(acc[x][y], fa[x], fb[y], lane);
        }
        if (more) /* the other stage: its last readers passed the barrier before this step */
            CN_MMA_NAME(cn_mma_put_)(A, t, &r, as + ((s + 1) & 1) * CN_MMA_A_STAGE,
                                     bs + ((s + 1) & 1) * CN_MMA_B_STAGE);
        CN_MMA_SYNC(th);
    }

    for (unsigned x = 0; x < 2; x++)
        for (unsigned y = 0; y < 2; y++)
            CN_MMA_ACC_STORE(cs + (wr + 16 * x) * CN_MMA_LDC + wc + 16 * y, acc[x][y], CN_MMA_LDC, lane);
    CN_MMA_SYNC(th);
    for (unsigned e = t; e < CN_MMA_TM * CN_MMA_TN; e += CN_MMA_THREADS) {
        size_t i = i0 + e / CN_MMA_TN, j = j0 + e % CN_MMA_TN;
        if (i < m && j < n)
            A->c[i * n + j] = cs[(e / CN_MMA_TN) * CN_MMA_LDC + e % CN_MMA_TN];
    }
}

#undef CN_MMA_OP_LOAD
#undef CN_MMA_MMA
#undef CN_MMA_NAME
#undef CN_MMA_CAT
#undef CN_MMA_CAT2
