/*
 * test_coop.c: the host runtime of cooperative regions (runtime/cairn_coop.h).
 *
 * What it shows:
 *   - block sums through a barrier tree in shared memory (a few blocks of
 *     every T from 32 to 1024), and through warp reductions and one barrier
 *     (1000 blocks of T = 32 .. 256, 300 of 512, 100 of 1024), each block's
 *     sum checked against a plain loop, every (block, thread) run once;
 *   - the finish runs exactly once, after every block (it sums what they
 *     wrote), also for G = 0; no finish and G = 0 runs nothing;
 *   - shared memory: 128-byte aligned; `= zeroed` arrays start each block at
 *     zero and the others filled with 0xA5, block after block, although each
 *     block scribbles over all of it; the finish's own layout likewise;
 *   - every warp operation against a plain loop model over random values and
 *     lanes, edge lanes and out-of-range lanes included, in 32 and 64 bits;
 *     ballot, any, all and match on random predicates and values;
 *   - the butterfly: every lane gets the same bits, equal to a lane-by-lane C
 *     model of the butterfly, for f32 and f64 sums with cancellation and for
 *     an operator whose result depends on its operands' order;
 *   - many regions in a row leave no thread behind, and no region has more
 *     than 2 * T threads of its own alive (counted in /proc/self/task);
 *   - a trapped thread (cn_coop_trap) ends the region without a hang: no
 *     finish, cn_coop_run returns false; a failed guard in a thread aborts the
 *     process with its message while the others wait at a barrier; a bad
 *     layout, a bad T and threads that meet at different barriers die with a
 *     message (children, with an alarm, so a hang fails).
 *
 * `test_coop --racy` runs one deliberately racy region (two threads write one
 * shared element without a barrier): tests/unit/coop_tsan.sh expects the
 * thread sanitizer to report it. `test_coop --bench` prints the figures of
 * docs/concurrency.md. Prints FAIL lines and `N passed, N failed, N skipped`.
 */
#include "cairn_coop.h"
#include "cairn_rt.h"
#include "child_guard.h"

#include <dirent.h>
#include <math.h>
#include <stdatomic.h>

static int passed, failed;

static void check(bool ok, const char *what, long long detail)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL %s (%lld)\n", what, detail);
    }
}

/* Iterations are scaled down under ThreadSanitizer, which is ~10x slower. */
#if defined(__SANITIZE_THREAD__)
#define TSAN 1
#else
#define TSAN 0
#endif

/* A fixed pseudo-random word from a seed (splitmix64). */
static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The threads of this process, from /proc/self/task. */
static int count_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* ------------------------------------------------------ block sums */

struct sums {
    size_t G;
    unsigned T;
    const uint64_t *x;
    uint64_t *out;           /* out[b]: block b's sum */
    _Atomic unsigned *hits;  /* hits[b * T + t]: calls of (b, t) */
    int by_warps;            /* sum by warp reductions, one barrier, not the tree */
    uint64_t total;          /* the finish's sum of out */
    _Atomic unsigned finish_calls;
    _Atomic int max_threads;
    int base_threads;
};

static uint64_t add_u64(uint64_t a, uint64_t b) { return a + b; }

/* The block's sum through a barrier tree: partial[t] += partial[t + k], k = T/2 .. 1. */
static uint64_t tree_sum(struct sums *s, size_t b, unsigned t, uint64_t *partial, struct cn_coop_thread *th)
{
    partial[t] = s->x[b * s->T + t];
    cn_coop_barrier(th);
    for (unsigned k = s->T / 2; k >= 1; k /= 2) {
        if (t < k)
            partial[t] += partial[t + k];
        cn_coop_barrier(th);
    }
    return partial[0];
}

/* The block's sum as the page's block_max does it: one warp reduction each,
 * the warps' sums in an unzeroed array, one barrier, thread 0 adds them. */
static uint64_t warp_sum(struct sums *s, size_t b, unsigned t, uint64_t *warps, struct cn_coop_thread *th)
{
    uint64_t w = cn_coop_reduce_u64(th, s->x[b * s->T + t], add_u64);
    if (t % 32 == 0)
        warps[t / 32] = w;
    cn_coop_barrier(th);
    uint64_t sum = 0;
    if (t == 0)
        for (unsigned k = 0; k < s->T / 32; k++)
            sum += warps[k];
    return sum;
}

static void sums_body(void *c, size_t b, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    struct sums *s = (struct sums *)c;
    atomic_fetch_add_explicit(&s->hits[b * s->T + t], 1, memory_order_relaxed);
    uint64_t sum = s->by_warps ? warp_sum(s, b, t, (uint64_t *)sh, th) : tree_sum(s, b, t, (uint64_t *)sh, th);
    if (t == 0)
        s->out[b] = sum;
    if (t == 1 && b % 64 == 0) {
        int n = count_threads();
        int m = atomic_load(&s->max_threads);
        while (n > m && !atomic_compare_exchange_weak(&s->max_threads, &m, n))
            ;
    }
}

/* The finish: thread 0 adds what every block wrote. */
static void sums_finish(void *c, size_t b, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    struct sums *s = (struct sums *)c;
    (void)b, (void)sh;
    atomic_fetch_add(&s->finish_calls, 1);
    cn_coop_barrier(th);
    if (t == 0) {
        uint64_t sum = 0;
        for (size_t k = 0; k < s->G; k++)
            sum += s->out[k];
        s->total = sum;
    }
}

static void test_sums(size_t G, unsigned T, int by_warps)
{
    struct sums s;
    memset(&s, 0, sizeof s);
    s.by_warps = by_warps;
    s.G = G;
    s.T = T;
    uint64_t *x = (uint64_t *)malloc((G * T + 1) * sizeof *x);
    s.out = (uint64_t *)calloc(G + 1, sizeof *s.out);
    s.hits = (_Atomic unsigned *)calloc(G * T + 1, sizeof *s.hits);
    for (size_t i = 0; i < G * T; i++)
        x[i] = mix(i + 1000 * T) >> 8; /* no two blocks alike: a wrong index shows */
    s.x = x;
    s.total = 12345;
    s.base_threads = count_threads();
    atomic_store(&s.max_threads, 0);
    struct cn_coop_array arr = {0, (size_t)T * 8, !by_warps};
    struct cn_coop_layout L = {(size_t)T * 8, &arr, 1};
    bool ok = cn_coop_run(G, T, &L, sums_body, NULL, sums_finish, &s);
    check(ok, "block sums: the region completes", (long long)G);
    size_t bad = 0, badhits = 0;
    uint64_t total = 0;
    for (size_t b = 0; b < G; b++) {
        uint64_t want = 0;
        for (unsigned t = 0; t < T; t++) {
            want += x[b * T + t];
            badhits += atomic_load(&s.hits[b * T + t]) != 1;
        }
        bad += s.out[b] != want;
        total += want;
    }
    char what[96];
    snprintf(what, sizeof what, "block sums (%s) G=%zu T=%u: every block's sum", by_warps ? "warps" : "tree", G, T);
    check(bad == 0, what, (long long)bad);
    snprintf(what, sizeof what, "block sums G=%zu T=%u: each (block, thread) runs once", G, T);
    check(badhits == 0, what, (long long)badhits);
    snprintf(what, sizeof what, "block sums G=%zu T=%u: the finish runs once, after every block", G, T);
    check(atomic_load(&s.finish_calls) == T && s.total == total, what, (long long)atomic_load(&s.finish_calls));
    if (G >= 64) {
        snprintf(what, sizeof what, "block sums G=%zu T=%u: at most 2 * T threads of the region alive", G, T);
        int extra = atomic_load(&s.max_threads) - s.base_threads;
        check(extra > 0 && extra <= 2 * (int)T, what, extra);
    }
    check(count_threads() == s.base_threads, "block sums: every thread joined", count_threads());
    free(x);
    free(s.out);
    free((void *)s.hits);
}

/* G == 0 runs the finish only; G == 0 without a finish runs nothing. */
static void test_empty_grid(void)
{
    struct sums s;
    memset(&s, 0, sizeof s);
    s.T = 64;
    s.total = 99;
    struct cn_coop_layout L = {0, NULL, 0};
    check(cn_coop_run(0, 64, &L, sums_body, NULL, sums_finish, &s), "G = 0: completes", 0);
    check(atomic_load(&s.finish_calls) == 64 && s.total == 0, "G = 0: the finish runs once and sums nothing",
          atomic_load(&s.finish_calls));
    atomic_store(&s.finish_calls, 0);
    check(cn_coop_run(0, 64, &L, sums_body, NULL, NULL, &s) && atomic_load(&s.finish_calls) == 0,
          "G = 0 without a finish: nothing runs", 0);
}

/* --------------------------------------------------- shared memory */

/* Three body arrays: zeroed at 0 (100 bytes), unzeroed at 128 (200), zeroed
 * at 384 (64), in 512 bytes; the finish has one unzeroed array of 256. */
static const struct cn_coop_array mem_arrays[] = {{0, 100, 1}, {128, 200, 0}, {384, 64, 1}};
static const struct cn_coop_layout mem_layout = {512, mem_arrays, 3};
static const struct cn_coop_array fin_arrays[] = {{0, 128, 1}, {128, 256, 0}};
static const struct cn_coop_layout fin_layout = {384, fin_arrays, 2};

struct mem {
    _Atomic unsigned wrong; /* bytes seen with the wrong start value */
    _Atomic unsigned misaligned;
};

/* Each thread checks its stripe of the layout, then scribbles over it. */
static void mem_check(struct mem *m, unsigned t, unsigned T, unsigned char *sh, const struct cn_coop_layout *L,
                      struct cn_coop_thread *th)
{
    if ((uintptr_t)sh % 128)
        atomic_fetch_add(&m->misaligned, 1);
    for (size_t i = t; i < L->bytes; i += T) {
        unsigned char want = CN_COOP_PATTERN;
        for (unsigned a = 0; a < L->narrays; a++)
            if (L->arrays[a].zeroed && i >= L->arrays[a].offset && i < L->arrays[a].offset + L->arrays[a].bytes)
                want = 0;
        if (sh[i] != want)
            atomic_fetch_add(&m->wrong, 1);
    }
    cn_coop_barrier(th);
    for (size_t i = t; i < L->bytes; i += T)
        sh[i] = (unsigned char)(0x11 + t);
}

static void mem_body(void *c, size_t b, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    (void)b;
    mem_check((struct mem *)c, t, 64, sh, &mem_layout, th);
}

static void mem_finish(void *c, size_t b, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    (void)b;
    mem_check((struct mem *)c, t, 64, sh, &fin_layout, th);
}

static void test_shared_memory(void)
{
    struct mem m;
    atomic_store(&m.wrong, 0);
    atomic_store(&m.misaligned, 0);
    check(cn_coop_run(40, 64, &mem_layout, mem_body, &fin_layout, mem_finish, &m), "shared memory: completes", 0);
    check(atomic_load(&m.wrong) == 0, "shared memory: zeroed arrays 0, the rest 0xA5, where each block starts",
          atomic_load(&m.wrong));
    check(atomic_load(&m.misaligned) == 0, "shared memory: 128-byte aligned", atomic_load(&m.misaligned));
}

/* ---------------------------------------------------- warp operations */

enum { WOPS = 14 };
struct warp {
    unsigned T;
    uint64_t *res; /* res[(b * T + t) * WOPS + op] */
};

/* The inputs of thread (b, t): values, lanes, deltas, predicates. */
static uint64_t val64(size_t b, unsigned t) { return mix(b * 4096 + t); }
static uint32_t val32(size_t b, unsigned t) { return (uint32_t)mix(b * 4096 + t + 77777); }
static uint32_t any_lane(size_t b, unsigned t) { return (uint32_t)(mix(b * 31 + t + 5) % 40); } /* past 31 too */
/* Warp-uniform deltas and masks: 0..35 by (block, warp). */
static uint32_t wdelta(size_t b, unsigned t, unsigned k) { return (uint32_t)((b * 7 + t / 32 * 5 + k * 11) % 36); }
/* Predicates of every density: none, all, sparse, half, by (block, warp). */
static bool pred(size_t b, unsigned t)
{
    uint64_t r = mix(b * 8191 + t + 3);
    switch ((b + t / 32) % 4) {
    case 0: return false;
    case 1: return true;
    case 2: return r % 17 == 0;
    default: return r & 1;
    }
}
/* Values for match: few distinct, some differing only in the high half. */
static uint64_t mval(size_t b, unsigned t)
{
    uint64_t k = mix(b * 555 + t) % 4;
    return (k & 1) | ((k >> 1) << 40);
}

static void warp_body(void *c, size_t b, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    struct warp *w = (struct warp *)c;
    uint64_t *r = &w->res[(b * w->T + t) * WOPS];
    (void)sh;
    r[0] = cn_coop_shfl_u64(th, val64(b, t), any_lane(b, t));
    r[1] = cn_coop_shfl_xor_u64(th, val64(b, t), wdelta(b, t, 0));
    r[2] = cn_coop_shfl_down_u64(th, val64(b, t), wdelta(b, t, 1));
    r[3] = cn_coop_shfl_up_u64(th, val64(b, t), wdelta(b, t, 2));
    r[4] = cn_coop_shfl_u32(th, val32(b, t), any_lane(b, t));
    r[5] = cn_coop_shfl_xor_u32(th, val32(b, t), wdelta(b, t, 3));
    r[6] = cn_coop_shfl_down_u32(th, val32(b, t), wdelta(b, t, 4));
    r[7] = cn_coop_shfl_up_u32(th, val32(b, t), wdelta(b, t, 5));
    r[8] = cn_coop_ballot(th, pred(b, t));
    r[9] = cn_coop_any(th, pred(b, t));
    r[10] = cn_coop_all(th, pred(b, t));
    r[11] = cn_coop_match_u64(th, mval(b, t));
    r[12] = cn_coop_match_u32(th, (uint32_t)mval(b, t));
    r[13] = cn_coop_shfl_down_u32(th, val32(b, t), 1); /* the common case: delta 1 */
}

/* The plain loop model of thread (b, t)'s results. */
static void warp_model(size_t b, unsigned t, uint64_t *m)
{
    unsigned l = t % 32, base = t - l;
    uint32_t j;
#define SRC(j, own, f) ((j) < 32 ? f(b, base + (j)) : (own))
    m[0] = val64(b, base + any_lane(b, t) % 32);
    j = l ^ wdelta(b, t, 0);
    m[1] = SRC(j, val64(b, t), val64);
    j = l + wdelta(b, t, 1);
    m[2] = SRC(j, val64(b, t), val64);
    m[3] = wdelta(b, t, 2) <= l ? val64(b, t - wdelta(b, t, 2)) : val64(b, t);
    m[4] = val32(b, base + any_lane(b, t) % 32);
    j = l ^ wdelta(b, t, 3);
    m[5] = SRC(j, val32(b, t), val32);
    j = l + wdelta(b, t, 4);
    m[6] = SRC(j, val32(b, t), val32);
    m[7] = wdelta(b, t, 5) <= l ? val32(b, t - wdelta(b, t, 5)) : val32(b, t);
#undef SRC
    uint32_t ballot = 0, match64 = 0, match32 = 0;
    for (unsigned k = 0; k < 32; k++) {
        ballot |= (uint32_t)pred(b, base + k) << k;
        match64 |= (uint32_t)(mval(b, base + k) == mval(b, t)) << k;
        match32 |= (uint32_t)((uint32_t)mval(b, base + k) == (uint32_t)mval(b, t)) << k;
    }
    m[8] = ballot;
    m[9] = ballot != 0;
    m[10] = ballot == 0xFFFFFFFFu;
    m[11] = match64;
    m[12] = match32;
    m[13] = l < 31 ? val32(b, t + 1) : val32(b, t);
}

static void test_warp_ops(size_t G, unsigned T)
{
    struct warp w = {T, (uint64_t *)calloc(G * T * WOPS, sizeof(uint64_t))};
    check(cn_coop_run(G, T, NULL, warp_body, NULL, NULL, &w), "warp operations: complete", 0);
    static const char *names[WOPS] = {"shfl_u64", "shfl_xor_u64", "shfl_down_u64", "shfl_up_u64",
                                      "shfl_u32", "shfl_xor_u32", "shfl_down_u32", "shfl_up_u32",
                                      "ballot", "any", "all", "match_u64", "match_u32", "shfl_down_u32 1"};
    unsigned bad[WOPS] = {0};
    for (size_t b = 0; b < G; b++)
        for (unsigned t = 0; t < T; t++) {
            uint64_t m[WOPS];
            warp_model(b, t, m);
            for (unsigned op = 0; op < WOPS; op++)
                bad[op] += w.res[(b * T + t) * WOPS + op] != m[op];
        }
    for (unsigned op = 0; op < WOPS; op++) {
        char what[96];
        snprintf(what, sizeof what, "warp %s (T=%u) equals its loop model", names[op], T);
        check(bad[op] == 0, what, bad[op]);
    }
    free(w.res);
}

/* ------------------------------------------------------ the butterfly */

static uint32_t add_f32(uint32_t a, uint32_t b)
{
    float x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    x += y;
    memcpy(&a, &x, 4);
    return a;
}
static uint64_t add_f64(uint64_t a, uint64_t b)
{
    double x, y;
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    x += y;
    memcpy(&a, &x, 8);
    return a;
}
/* An operator whose result depends on which operand is the lower lane's. */
static uint32_t ordered32(uint32_t lo, uint32_t hi) { return lo * 3u + hi; }
static uint64_t ordered64(uint64_t lo, uint64_t hi) { return lo * 5u + (hi ^ (hi >> 7)); }

/* The butterfly lane by lane, as the device runs it: five shuffles, each lane
 * combining op(lower lane's, higher lane's). v is overwritten with every
 * lane's result. */
static void butterfly32(uint32_t v[32], cn_coop_op32_fn op)
{
    for (unsigned m = 16; m >= 1; m /= 2) {
        uint32_t n[32];
        for (unsigned l = 0; l < 32; l++)
            n[l] = (l & m) ? op(v[l ^ m], v[l]) : op(v[l], v[l ^ m]);
        memcpy(v, n, sizeof n);
    }
}
static void butterfly64(uint64_t v[32], cn_coop_op64_fn op)
{
    for (unsigned m = 16; m >= 1; m /= 2) {
        uint64_t n[32];
        for (unsigned l = 0; l < 32; l++)
            n[l] = (l & m) ? op(v[l ^ m], v[l]) : op(v[l], v[l ^ m]);
        memcpy(v, n, sizeof n);
    }
}

/* f32 values with cancellation: big terms of both signs, small ones between. */
static uint32_t fly_f32(size_t b, unsigned t)
{
    uint64_t r = mix(b * 99991 + t);
    float f = (float)(r % 1000) * 0.001f + 1e-3f;
    if (r & 0x10000)
        f = (r & 0x20000 ? 1.0e8f : -1.0e8f) + (float)(r % 7);
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static uint64_t fly_f64(size_t b, unsigned t)
{
    uint64_t r = mix(b * 7 + t * 13 + 1);
    double f = (r & 1 ? 1e17 : -1e17) * (double)(r % 3) + (double)(r % 1001) * 0.1;
    uint64_t u;
    memcpy(&u, &f, 8);
    return u;
}

enum { FLY = 4 };
struct fly {
    unsigned T;
    uint64_t *res; /* res[(b * T + t) * FLY + k] */
};

static void fly_body(void *c, size_t b, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    struct fly *f = (struct fly *)c;
    uint64_t *r = &f->res[(b * f->T + t) * FLY];
    (void)sh;
    r[0] = cn_coop_reduce_u32(th, fly_f32(b, t), add_f32);
    r[1] = cn_coop_reduce_u64(th, fly_f64(b, t), add_f64);
    r[2] = cn_coop_reduce_u32(th, val32(b, t), ordered32);
    r[3] = cn_coop_reduce_u64(th, val64(b, t), ordered64);
}

static void test_butterfly(size_t G, unsigned T)
{
    struct fly f = {T, (uint64_t *)calloc(G * T * FLY, sizeof(uint64_t))};
    check(cn_coop_run(G, T, NULL, fly_body, NULL, NULL, &f), "butterfly: completes", 0);
    unsigned bad[FLY] = {0}, cancels = 0;
    for (size_t b = 0; b < G; b++)
        for (unsigned base = 0; base < T; base += 32) {
            uint32_t a[32], c[32];
            uint64_t d[32], e[32];
            double exact = 0;
            for (unsigned l = 0; l < 32; l++) {
                a[l] = fly_f32(b, base + l);
                c[l] = val32(b, base + l);
                d[l] = fly_f64(b, base + l);
                e[l] = val64(b, base + l);
                float x;
                memcpy(&x, &a[l], 4);
                exact += x;
            }
            butterfly32(a, add_f32);
            butterfly32(c, ordered32);
            butterfly64(d, add_f64);
            butterfly64(e, ordered64);
            float got0;
            memcpy(&got0, &a[0], 4);
            cancels += fabs((double)got0 - exact) > 1e-6 * fabs(exact); /* rounding order matters here */
            for (unsigned l = 0; l < 32; l++) {
                const uint64_t *r = &f.res[(b * T + base + l) * FLY];
                bad[0] += r[0] != a[l] || a[l] != a[0];
                bad[1] += r[1] != d[l] || d[l] != d[0];
                bad[2] += r[2] != c[l] || c[l] != c[0];
                bad[3] += r[3] != e[l] || e[l] != e[0];
            }
        }
    static const char *names[FLY] = {"f32 sum", "f64 sum", "ordered u32 op", "ordered u64 op"};
    for (unsigned k = 0; k < FLY; k++) {
        char what[96];
        snprintf(what, sizeof what, "butterfly %s: same bits in every lane, equal to the lane model", names[k]);
        check(bad[k] == 0, what, bad[k]);
    }
    /* The f32 values must really cancel, or the test shows nothing about order. */
    check(cancels > 0, "butterfly: some f32 sums differ from the exact sum (cancellation)", cancels);
}

/* ---------------------------------------------------- many regions */

static void noop_body(void *c, size_t b, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    (void)c, (void)b, (void)t, (void)sh;
    cn_coop_barrier(th);
}

static void test_many_regions(void)
{
    int base = count_threads();
    int n = TSAN ? 30 : 300;
    unsigned bad = 0;
    for (int i = 0; i < n; i++)
        bad += !cn_coop_run((size_t)(i % 5), 32 + 32 * (unsigned)(i % 3), NULL, noop_body, NULL, noop_body, NULL);
    check(bad == 0, "many regions: every one completes", bad);
    check(count_threads() == base, "many regions: no thread left behind", count_threads() - base);
}

/* ------------------------------------------------------------ traps */

struct trap {
    _Atomic unsigned blocks;
    _Atomic unsigned finishes;
};

/* Thread 37 of block 2 traps while the others wait at a barrier or a shuffle. */
static void trap_body(void *c, size_t b, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    struct trap *k = (struct trap *)c;
    (void)sh;
    atomic_fetch_add(&k->blocks, t == 0);
    if (b == 2 && t == 37)
        cn_coop_trap(th);
    cn_coop_barrier(th);
    (void)cn_coop_shfl_xor_u32(th, t, 1);
    cn_coop_barrier(th);
}

static void trap_finish(void *c, size_t b, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    (void)b, (void)t, (void)sh, (void)th;
    atomic_fetch_add(&((struct trap *)c)->finishes, 1);
}

static void test_trap(void)
{
    int base = count_threads();
    struct trap k;
    atomic_store(&k.blocks, 0);
    atomic_store(&k.finishes, 0);
    bool ok = cn_coop_run(1000, 64, NULL, trap_body, NULL, trap_finish, &k);
    check(!ok, "trap: cn_coop_run says the region trapped", ok);
    check(atomic_load(&k.finishes) == 0, "trap: the finish does not run", atomic_load(&k.finishes));
    check(atomic_load(&k.blocks) < 1000, "trap: no block starts after it", atomic_load(&k.blocks));
    check(count_threads() == base, "trap: every thread joined", count_threads() - base);
}

/* The children below die; an alarm turns a hang into a failure. */
static void guard_body(void *c, size_t b, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    (void)c, (void)sh;
    if (b == 5 && t == 37)
        cn_guard_fail("f.cairn", 3, 4, "index %d out of bounds for s of length %d", 300, 256);
    cn_coop_barrier(th);
}
static void guard_child(void)
{
    alarm(20);
    cn_coop_run(100, 256, NULL, guard_body, NULL, NULL, NULL);
}

static const struct cn_coop_array bad_arrays[] = {{64, 8, 1}};
static const struct cn_coop_layout bad_layout = {128, bad_arrays, 1};
static void bad_layout_child(void)
{
    alarm(20);
    cn_coop_run(1, 32, &bad_layout, noop_body, NULL, NULL, NULL);
}
static void bad_T_child(void)
{
    alarm(20);
    cn_coop_run(1, 48, NULL, noop_body, NULL, NULL, NULL);
}

/* Thread 0 leaves without the barrier the others wait at. */
static void diverge_body(void *c, size_t b, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    (void)c, (void)b, (void)sh;
    if (t != 0)
        cn_coop_barrier(th);
}
static void diverge_child(void)
{
    alarm(20);
    cn_coop_run(4, 64, NULL, diverge_body, NULL, NULL, NULL);
}

static void test_deaths(void)
{
    check(child_guard(guard_child, "f.cairn:3:4: guard failed: index 300 out of bounds for s of length 256"),
          "a failed guard in a thread aborts with its message, no hang", 0);
    check(child_guard(bad_layout_child, "cairn: cooperative region: a shared array lies outside its block's "
                                        "memory or off a 128-byte boundary (a compiler bug)"),
          "a misplaced shared array dies with a message", 0);
    check(child_guard(bad_T_child, "cairn: cooperative region: a block's threads must be a whole number of "
                                   "warps from 32 to 1024 (a compiler bug)"),
          "T = 48 dies with a message", 0);
    check(child_guard(diverge_child, "cairn: cooperative region: threads of one block met at different "
                                     "barriers: some left the body while others wait at a barrier (a compiler bug)"),
          "threads at different barriers die with a message, no hang", 0);
}

/* ------------------------------------------------------------ racy */

/* Threads 0 and 1 both write s[0], no barrier between: a race the sanitizer must see. */
static void racy_body(void *c, size_t b, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    (void)c, (void)b, (void)th;
    volatile uint32_t *s = (volatile uint32_t *)sh;
    if (t < 2)
        s[0] = t;
}

static int run_racy(void)
{
    struct cn_coop_array a = {0, 128, 1};
    struct cn_coop_layout L = {128, &a, 1};
    cn_coop_run(1, 32, &L, racy_body, NULL, NULL, NULL);
    return 0;
}

/* ------------------------------------------------------------ bench */

struct bench {
    unsigned barriers;
};

static void bench_body(void *c, size_t b, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    (void)b, (void)t, (void)sh;
    for (unsigned k = ((struct bench *)c)->barriers; k; k--)
        cn_coop_barrier(th);
}

static double bench_region(size_t G, unsigned T, unsigned barriers)
{
    struct bench bb = {barriers};
    uint64_t t0 = cn_pool_now_ns();
    cn_coop_run(G, T, NULL, bench_body, NULL, NULL, &bb);
    return (double)(cn_pool_now_ns() - t0);
}

static int run_bench(void)
{
    static const unsigned Ts[] = {32, 256, 1024};
    for (unsigned i = 0; i < 3; i++) {
        unsigned T = Ts[i];
        size_t G = T == 1024 ? 100 : 1000;
        double empty = bench_region(G, T, 0);
        double one = bench_region(G, T, 1);
        double eleven = bench_region(G, T, 11);
        printf("T=%4u G=%zu: region %.1f ms; per block: empty %.1f us, with one barrier %.1f us; "
               "per barrier %.1f us (%.0f ns per thread)\n",
               T, G, one / 1e6, empty / (double)G / 1e3, one / (double)G / 1e3,
               (eleven - one) / 10.0 / (double)G / 1e3, (eleven - one) / 10.0 / (double)G / T);
    }
    double zero = 0;
    for (int k = 0; k < 20; k++)
        zero += bench_region(0, 32, 0);
    printf("G=0 with no finish: %.0f ns\n", zero / 20);
    return 0;
}

/* ------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--racy"))
        return run_racy();
    if (argc > 1 && !strcmp(argv[1], "--bench"))
        return run_bench();
    /* A first region, so that threads a sanitizer starts on its own (TSan's
     * background thread) exist before any test counts threads. */
    cn_coop_run(1, 32, NULL, noop_body, NULL, NULL, NULL);
    /* Every T of the barrier tree at a few blocks, then many blocks summed by
     * warps: one barrier a block, as T threads on 2 CPUs cost ~3 us each a
     * barrier (1000 blocks of 1024 would take 15 s). */
    static const unsigned Ts[] = {32, 64, 128, 256, 512, 1024};
    static const size_t tree_G[] = {1, 2, 3, 7, 5, 3};
    static const size_t warp_G[] = {1000, 1000, 1000, 1000, 300, 100};
    for (unsigned i = 0; i < 6; i++)
        test_sums(tree_G[i], Ts[i], 0);
    for (unsigned i = 0; i < 6; i++)
        test_sums(TSAN ? warp_G[i] / 10 : warp_G[i], Ts[i], 1);
    test_empty_grid();
    test_shared_memory();
    test_warp_ops(5, 128);
    test_warp_ops(1, 32);
    test_butterfly(TSAN ? 4 : 20, 256);
    test_many_regions();
    test_trap();
    test_deaths();
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
