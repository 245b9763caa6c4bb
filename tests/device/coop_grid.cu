/*
 * coop_grid.cu: cooperative regions' grids on the device (runtime/cairn_coopdev.h),
 * as the compiler lowers a region: a block function of the region's names, launched by
 * cn_coop_launch over up to CN_DEV_MAX_BLOCKS device blocks that stride over the region's blocks.
 *
 * Each region block of 64 threads sums a value of its names and its threads
 * (base(b) * 64 + sum of t * t, base(b) = b0 + 2^20 b1 + 2^40 b2) through a warp shuffle
 * and a shared array, so a block that ran with wrong names, or ran twice, or whose shared
 * array the next block overwrote early, shows.
 *
 *   out grids     3-D grids around and past 65535 blocks in each of x, y, z (and one past
 *                 2^17 in x alone): every block writes its sum at its flat number, and the
 *                 host checks every element against names it finds by plain division
 *   a 2^31 grid   2 x 65537 x 16385 = 2147647490 blocks (past 2^31): every block checks its
 *                 own sum on the device (a mismatch is counted) and sets its bit in a
 *                 bitmap of the grid (a bit already set is counted); the host checks both
 *                 counts are 0 and every bit is set
 *   empty grids   an extent 0 launches nothing
 *
 * Prints one line per grid and `coop_grid: N passed, N failed`; exits 1 on a failure.
 */
#include "cairn_dev.h"

#include <vector>

enum { T = 64 };

struct gs {
    uint64_t g0, g1;
    uint64_t *out;                 /* out grids: one sum per block, or NULL */
    unsigned *bits;                /* the 2^31 grid: one bit per block, or NULL */
    unsigned long long *bad, *dup; /* its mismatches and blocks seen twice */
    bool cn_fast;          /* the launch runs the fast version (both are the same here) */
};

CN_DEV_BOTH uint64_t gs_want(uint64_t b0, uint64_t b1, uint64_t b2)
{
    uint64_t base = b0 + (b1 << 20) + (b2 << 40);
    return base * T + (uint64_t)(T - 1) * T * (2 * T - 1) / 6;
}

CN_COOP_FAST_TEMPLATE CN_DEV_LANE void gs_block(const struct gs *a, size_t b0, size_t b1, size_t b2)
{
    __shared__ uint64_t warps[T / 32];
    uint64_t t = threadIdx.x;
    uint64_t v = b0 + ((uint64_t)b1 << 20) + ((uint64_t)b2 << 40) + t * t;
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, d);
    if (t % 32 == 0)
        warps[t / 32] = v;
    __syncthreads();
    if (t != 0)
        return;
    uint64_t sum = 0;
    for (int w = 0; w < T / 32; w++)
        sum += warps[w];
    uint64_t p = b0 + a->g0 * (b1 + a->g1 * b2);
    if (a->out)
        a->out[p] = sum;
    if (a->bits) {
        if (sum != gs_want(b0, b1, b2))
            atomicAdd(a->bad, 1ull);
        unsigned bit = 1u << (p & 31);
        if (atomicOr(&a->bits[p >> 5], bit) & bit)
            atomicAdd(a->dup, 1ull);
    }
}

static const char gs_k_what[] = "region gs (coop_grid.cu)";
CN_COOP_KERNEL(gs_k, struct gs, gs_block, T)

static int passed, failed;

static void report(bool ok, const char *what)
{
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    if (ok)
        passed++;
    else
        failed++;
}

static void out_grid(struct cn_dev_stream *s, uint64_t g0, uint64_t g1, uint64_t g2)
{
    struct cn_coop_grid g;
    if (!cn_coop_grid_make(&g, g0, g1, g2))
        return report(false, "a grid that fits is made");
    std::vector<uint64_t> host(g.total);
    uint64_t *dout = (uint64_t *)cn_dev_malloc(g.total * 8);
    cn_dev_memset(s, dout, 0xff, g.total * 8);
    struct gs a = {g0, g1, dout, NULL, NULL, NULL, false};
    cn_coop_launch(s, &gs_k, &g, &a);
    cn_dev_copy(s, CN_DEV_D2H, host.data(), dout, g.total * 8);
    cn_dev_stream_synchronize(s);
    cn_dev_free(dout);
    uint64_t wrong = 0;
    for (uint64_t p = 0; p < g.total; p++) {
        uint64_t b0 = p % g0, b1 = p / g0 % g1, b2 = p / g0 / g1;
        wrong += host[p] != gs_want(b0, b1, b2);
    }
    char what[200];
    snprintf(what, sizeof what, "grid %llu x %llu x %llu (%llu blocks, %llu device blocks): every block's sum%s",
             (unsigned long long)g0, (unsigned long long)g1, (unsigned long long)g2, (unsigned long long)g.total,
             (unsigned long long)cn_coop_device_blocks(g.total, CN_DEV_MAX_BLOCKS, false),
             wrong ? " WRONG" : "");
    report(wrong == 0, what);
    if (wrong)
        printf("    %llu of %llu blocks wrong\n", (unsigned long long)wrong, (unsigned long long)g.total);
}

static void huge_grid(struct cn_dev_stream *s, uint64_t g0, uint64_t g1, uint64_t g2)
{
    struct cn_coop_grid g;
    if (!cn_coop_grid_make(&g, g0, g1, g2))
        return report(false, "a grid that fits is made");
    size_t words = (size_t)((g.total + 31) / 32);
    unsigned *bits = (unsigned *)cn_dev_malloc(words * 4);
    unsigned long long *cnt = (unsigned long long *)cn_dev_malloc(16), hc[2];
    cn_dev_memset(s, bits, 0, words * 4);
    cn_dev_memset(s, cnt, 0, 16);
    struct gs a = {g0, g1, NULL, bits, cnt, cnt + 1, false};
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    cudaEventRecord(e0, s->cu);
    cn_coop_launch(s, &gs_k, &g, &a);
    cudaEventRecord(e1, s->cu);
    std::vector<unsigned> host(words);
    cn_dev_copy(s, CN_DEV_D2H, host.data(), bits, words * 4);
    cn_dev_copy(s, CN_DEV_D2H, hc, cnt, 16);
    cn_dev_stream_synchronize(s);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cn_dev_free(bits), cn_dev_free(cnt);
    uint64_t missing = 0; /* bits past the grid in the last word are 0 by the memset */
    for (size_t w = 0; w < words; w++)
        missing += 32 - (uint64_t)__builtin_popcount(host[w]);
    missing -= words * 32 - g.total;
    char what[240];
    snprintf(what, sizeof what, "grid %llu x %llu x %llu (%llu blocks, past 2^31): %llu wrong sums, %llu blocks "
             "twice, %llu never run (%.0f ms)", (unsigned long long)g0, (unsigned long long)g1,
             (unsigned long long)g2, (unsigned long long)g.total, hc[0], hc[1], (unsigned long long)missing, ms);
    report(hc[0] == 0 && hc[1] == 0 && missing == 0 && g.total > (1ull << 31), what);
}

int main(void)
{
    struct cn_dev_stream s;
    cn_dev_stream_create(&s);
    static const uint64_t grids[][3] = {
        {1, 1, 1}, {70001, 3, 2}, {2, 65537, 3}, {3, 2, 65539}, {65535, 2, 1}, {1, 65535, 2},
        {2, 1, 65536}, {1, 1, 200000}, {131073, 1, 1}, {257, 255, 3},
    };
    for (unsigned i = 0; i < sizeof grids / sizeof grids[0]; i++)
        out_grid(&s, grids[i][0], grids[i][1], grids[i][2]);
    huge_grid(&s, 2, 65537, 16385);
    /* an extent 0: no launch, nothing written */
    struct cn_coop_grid g;
    cn_coop_grid_make(&g, 5, 0, 3);
    uint64_t *d = (uint64_t *)cn_dev_malloc(8), h = 0;
    cn_dev_memset(&s, d, 0x5a, 8);
    struct gs a = {5, 0, d, NULL, NULL, NULL, false};
    cn_coop_launch(&s, &gs_k, &g, &a);
    cn_dev_copy(&s, CN_DEV_D2H, &h, d, 8);
    cn_dev_stream_synchronize(&s);
    report(h == 0x5a5a5a5a5a5a5a5aull,
           "grid 5 x 0 x 3: no block runs");
    cn_dev_free(d);
    cn_dev_stream_destroy(&s);
    printf("coop_grid: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
