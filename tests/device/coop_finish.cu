/*
 * coop_finish.cu: a cooperative region's finish on the device (runtime/cairn_coopdev.h):
 * the page's one-pass total, each region block of 256 threads leaving its partial sum in
 * partial[p] and the finish adding the partials in a fixed order, in the same launch.
 *
 *   loop      1000 launches on stream A, each with new data (a salt) and the partials
 *             poisoned (0xff) before it, so a finish that ran before every block had
 *             counted would add poison: every total is checked, and the finish's run count
 *   graph     the same region captured in a CUDA graph on stream B (its own buffers, a
 *             memset of the partials, the launch, a copy of the total back), replayed 100
 *             times while the loop's launches run on stream A: both totals checked every
 *             time; the captured launch's word is kept, and differs from A's
 *   empty     a grid with an extent 0 runs the finish once: the total is 0 (the identity)
 *   words     after all that, every counter word on the device is back to 0
 *
 *   coop_finish trap      a foreign tag planted in stream A's word: the launch traps with
 *                         the counter's message, and the wait aborts (exit 134)
 *   coop_finish nowords   every word kept by (pretend) captures: the launch traps saying so
 *
 * Prints PASS/FAIL lines and `coop_finish: N passed, N failed`; exits 1 on a failure.
 */
#include "cairn_dev.h"

#include <vector>

enum { T = 256 };

struct fs {
    size_t n, g0;          /* n elements; the grid is g0 x g1 */
    const uint64_t *x;
    uint64_t salt;
    uint64_t *partial;     /* one per region block */
    uint64_t *out;         /* out[0]: the total; out[1]: the finish's runs */
    uint64_t nblocks;
    bool cn_fast;          /* the launch runs the fast version (both are the same here) */
};

CN_COOP_FAST_TEMPLATE CN_DEV_LANE void fs_block(const struct fs *a, size_t b0, size_t b1, size_t b2)
{
    __shared__ uint64_t warps[T / 32];
    size_t p = b0 + a->g0 * b1, i = p * T + threadIdx.x; /* b2 is 0: the grid is g0 x g1 */
    (void)b2;
    uint64_t v = i < a->n ? a->x[i] ^ a->salt : 0;
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, d);
    if (threadIdx.x % 32 == 0)
        warps[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        uint64_t s = 0;
        for (int w = 0; w < T / 32; w++)
            s += warps[w];
        a->partial[p] = s;
    }
}

/* The partials in a fixed order: thread t takes t, t + 256, ...; then a tree. */
CN_COOP_FAST_TEMPLATE CN_DEV_LANE void fs_finish(const struct fs *a)
{
    __shared__ uint64_t sh[T];
    uint64_t s = 0;
    for (uint64_t q = threadIdx.x; q < a->nblocks; q += T)
        s += a->partial[q];
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int w = T / 2; w > 0; w >>= 1) {
        if ((int)threadIdx.x < w)
            sh[threadIdx.x] += sh[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        a->out[0] = sh[0];
        a->out[1]++;
    }
}

static const char fs_k_what[] = "region fs (coop_finish.cu)";
CN_COOP_KERNEL_FINISH(fs_k, struct fs, fs_block, fs_finish, T, "coop_finish.cu", 1, 1)

static int passed, failed;

static void report(bool ok, const char *what)
{
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    if (ok)
        passed++;
    else
        failed++;
}

/* One region's buffers on the device. */
struct run {
    struct fs a;
    struct cn_coop_grid g;
    uint64_t *hout; /* pinned: out[0..1] copied back */
};

static void run_make(struct run *r, struct cn_dev_stream *s, const uint64_t *dx, size_t n, size_t g0)
{
    uint64_t blocks = (n + T - 1) / T, g1 = (blocks + g0 - 1) / g0;
    if (!cn_coop_grid_make(&r->g, g0, g1, 1))
        abort();
    r->a.n = n, r->a.g0 = g0, r->a.x = dx, r->a.salt = 0, r->a.nblocks = r->g.total;
    r->a.partial = (uint64_t *)cn_dev_malloc(r->g.total * 8 + 8);
    r->a.out = (uint64_t *)cn_dev_malloc(16);
    r->hout = (uint64_t *)cn_dev_malloc_mem(CN_DEV_MEM_PINNED, 16);
    cn_dev_memset(s, r->a.out, 0, 16);
}

/* Poison the partials, launch, copy the total and the run count back. */
static void run_queue(struct run *r, struct cn_dev_stream *s)
{
    cn_dev_memset(s, r->a.partial, 0xff, r->g.total * 8);
    cn_coop_launch(s, &fs_k, &r->g, &r->a);
    cn_dev_copy_behind(s, r->hout, r->a.out, 16);
}

static uint64_t total_of(const std::vector<uint64_t> &x, uint64_t salt)
{
    uint64_t s = 0;
    for (uint64_t v : x)
        s += v ^ salt;
    return s;
}

static int planted(const char *mode, struct cn_dev_stream *A, struct run *r)
{
    if (!strcmp(mode, "nowords")) {
        for (unsigned k = 0; k < CN_COOP_WORDS; k++)
            cn_coop_claim(&cn_coop_table_here, (const void *)(uintptr_t)(k + 1), true);
    } else { /* trap: stream A's first launch gets word 0; another launch's tag is there */
        unsigned long long foreign = (12345ull << 32) | 3;
        cudaMemcpyToSymbol(cn_coop_words, &foreign, 8);
    }
    run_queue(r, A);
    cn_dev_stream_synchronize(A); /* aborts: the launch trapped */
    printf("the launch did not trap\n");
    return 1;
}

int main(int argc, char **argv)
{
    const size_t n = 300007;
    std::vector<uint64_t> x(n);
    for (size_t i = 0; i < n; i++)
        x[i] = i * 0x9E3779B97F4A7C15ull;
    struct cn_dev_stream A, B;
    cn_dev_stream_create(&A);
    cn_dev_stream_create(&B);
    uint64_t *dx = (uint64_t *)cn_dev_malloc(n * 8);
    cn_dev_copy(&A, CN_DEV_H2D, dx, x.data(), n * 8);
    cn_dev_stream_synchronize(&A);
    struct run ra, rb;
    run_make(&ra, &A, dx, n, 37); /* 37 x 32 blocks: the last 13 past n */
    run_make(&rb, &B, dx, n, 1);  /* 1 x 1172 */
    cn_dev_stream_synchronize(&A);
    cn_dev_stream_synchronize(&B);
    if (argc > 1)
        return planted(argv[1], &A, &ra);

    /* the graph on B: captured once, its word kept */
    rb.a.salt = 77;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cn_dev_cuda_check(cudaStreamBeginCapture(B.cu, cudaStreamCaptureModeThreadLocal), "capture", &B);
    run_queue(&rb, &B);
    cn_dev_cuda_check(cudaStreamEndCapture(B.cu, &graph), "end capture", &B);
    cn_dev_cuda_check(cudaGraphInstantiate(&exec, graph, 0), "instantiate", &B);
    B.unwaited = 0; /* captured, not queued */
    uint32_t kept = CN_COOP_NO_WORD;
    for (uint32_t w = 0; w < CN_COOP_WORDS; w++)
        if (cn_coop_table_here.owner[w].kind == CN_COOP_KEPT)
            kept = w;
    const uint64_t want_b = total_of(x, 77);

    unsigned bad_a = 0, bad_b = 0;
    for (int it = 0; it < 1000; it++) {
        ra.a.salt = (uint64_t)it * 1000003u;
        if (it < 100)
            cn_dev_cuda_check(cudaGraphLaunch(exec, B.cu), "graph launch", &B);
        run_queue(&ra, &A);
        cn_dev_stream_synchronize(&A);
        if (ra.hout[0] != total_of(x, ra.a.salt) || ra.hout[1] != (uint64_t)it + 1)
            if (bad_a++ < 3)
                printf("    launch %d on A: total %llu (want %llu), finish runs %llu\n", it,
                       (unsigned long long)ra.hout[0], (unsigned long long)total_of(x, ra.a.salt),
                       (unsigned long long)ra.hout[1]);
        if (it < 100) {
            cn_dev_stream_synchronize(&B);
            if (rb.hout[0] != want_b || rb.hout[1] != (uint64_t)it + 1)
                if (bad_b++ < 3)
                    printf("    replay %d on B: total %llu (want %llu), finish runs %llu\n", it,
                           (unsigned long long)rb.hout[0], (unsigned long long)want_b,
                           (unsigned long long)rb.hout[1]);
        }
    }
    report(bad_a == 0, "1000 launches on stream A: every total right, the finish once each");
    report(bad_b == 0, "a captured graph replayed 100 times on stream B beside them: every total right");
    struct cn_coop_claim ca = cn_coop_claim(&cn_coop_table_here, (const void *)A.cu, false);
    report(kept < CN_COOP_WORDS && ca.word != kept, "the captured launch kept a word of its own, not stream A's");

    /* empty grids: the finish once, the total 0 */
    static const uint64_t empty[][3] = {{0, 5, 1}, {7, 0, 1}, {3, 3, 0}, {0, 0, 0}};
    bool ok = true;
    for (unsigned k = 0; k < 4; k++) {
        struct run re = ra;
        cn_coop_grid_make(&re.g, empty[k][0], empty[k][1], empty[k][2]);
        re.a.nblocks = 0;
        uint64_t seed[2] = {12345, 40};
        cn_dev_copy(&A, CN_DEV_H2D, re.a.out, seed, 16);
        cn_dev_stream_synchronize(&A);
        run_queue(&re, &A);
        cn_dev_stream_synchronize(&A);
        ok = ok && re.hout[0] == 0 && re.hout[1] == 41;
    }
    report(ok, "grids with an extent 0: the finish runs once, the total is 0");

    std::vector<unsigned long long> words(CN_COOP_WORDS);
    cn_dev_cuda_check(cudaMemcpyFromSymbol(words.data(), cn_coop_words, CN_COOP_WORDS * 8), "copy words", NULL);
    unsigned busy = 0;
    for (unsigned long long w : words)
        busy += w != 0;
    report(busy == 0, "every counter word is back to 0");

    /* the time of one launch, for the record: 100 in a row on A */
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    cudaEventRecord(e0, A.cu);
    for (int it = 0; it < 100; it++)
        cn_coop_launch(&A, &fs_k, &ra.g, &ra.a);
    cudaEventRecord(e1, A.cu);
    cn_dev_stream_synchronize(&A);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    printf("    one launch (%llu blocks of %d, a finish over their partials): %.2f us\n",
           (unsigned long long)ra.g.total, T, ms * 10);
    printf("coop_finish: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
