/*
 * test_pool.c: the host lane pool (runtime/cairn_pool.h).
 *
 * What it shows:
 *   - every index of [0, n) runs exactly once, for n = 0, 1, W-1, W, W+1,
 *     primes and 10^6, and the blocks are cn_pool_block's, the same on every
 *     call, with worker w >= 1 always the same thread;
 *   - a float reduction gives the same bits 1000 times, and the bits of the
 *     serial fold of the same blocks;
 *   - thousands of back-to-back regions, and regions from two application
 *     threads at once (they are serialised: each sees the whole pool);
 *   - a region inside a lane runs serially, same blocks, same bits;
 *   - a guard failing in a worker's lane aborts the process with its message;
 *     a bad $CAIRN_THREADS or $CAIRN_SPIN_US aborts with a message; a forked
 *     child runs regions serially;
 *   - all of the above again in child processes with CAIRN_THREADS = 1, 3, 7
 *     (7 oversubscribes this machine: no spinning, every wake-up sleeps) and
 *     with CAIRN_SPIN_US=0 (every wait takes the sleeping path).
 *
 * Prints FAIL lines and a last line `N passed, N failed, N skipped`; exits
 * non-zero on failure. `test_pool --child` runs the in-process part only
 * (that is what the child processes run); tests/unit/pool_tsan.sh runs that
 * under ThreadSanitizer.
 */
#include "cairn_pool.h"
#include "cairn_rt.h"

#include <stdatomic.h>
#include <sys/wait.h>

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
#define SCALE 10
#else
#define SCALE 1
#endif

/* ------------------------------------------------------ coverage */

struct cover {
    _Atomic unsigned char *hits; /* per index */
    size_t *block_end;           /* block_end[lo] = hi for every block called */
    _Atomic unsigned calls;
    _Atomic int in_lane_ok;
};

static void cover_body(void *c, size_t lo, size_t hi)
{
    struct cover *v = (struct cover *)c;
    atomic_fetch_add_explicit(&v->calls, 1, memory_order_relaxed);
    if (!cn_pool_in_lane())
        atomic_store(&v->in_lane_ok, 0);
    v->block_end[lo] = hi;
    for (size_t i = lo; i < hi; i++)
        atomic_fetch_add_explicit(&v->hits[i], 1, memory_order_relaxed);
}

/* One n: three calls, each must hit every index once with the expected blocks. */
static void test_cover_n(size_t n)
{
    unsigned W = cn_pool_workers();
    struct cover v;
    v.hits = (_Atomic unsigned char *)calloc(n + 1, 1);
    v.block_end = (size_t *)calloc(n + 1, sizeof(size_t));
    for (int rep = 0; rep < 3; rep++) {
        memset((void *)v.hits, 0, n + 1);
        for (size_t i = 0; i <= n; i++)
            v.block_end[i] = (size_t)-1;
        atomic_store(&v.calls, 0);
        atomic_store(&v.in_lane_ok, 1);
        cn_pool_for(n, cover_body, &v);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += atomic_load(&v.hits[i]) != 1;
        check(bad == 0, "cover: every index exactly once", (long long)n);
        unsigned want_calls = 0;
        bool blocks_ok = true;
        for (unsigned w = 0; w < W; w++) {
            size_t lo, hi;
            cn_pool_block(n, w, W, &lo, &hi);
            if (lo == hi)
                continue;
            want_calls++;
            blocks_ok &= v.block_end[lo] == hi;
        }
        check(blocks_ok && atomic_load(&v.calls) == want_calls, "cover: blocks are cn_pool_block's",
              (long long)n);
        check(atomic_load(&v.in_lane_ok), "cover: cn_pool_in_lane() inside a body", (long long)n);
    }
    check(!cn_pool_in_lane(), "cover: not in a lane after the region", (long long)n);
    free((void *)v.hits);
    free(v.block_end);
}

static void test_partition_shape(void)
{
    /* Contiguous, in order, covering, sizes within one, the longer first. */
    static const size_t ns[] = {0, 1, 2, 5, 7, 100, 1000003};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (unsigned nw = 1; nw <= 9; nw++) {
            size_t next = 0, lo, hi, first = 0;
            bool ok = true;
            for (unsigned w = 0; w < nw; w++) {
                cn_pool_block(ns[k], w, nw, &lo, &hi);
                if (w == 0)
                    first = hi - lo;
                ok &= lo == next && hi >= lo && hi - lo <= first && first - (hi - lo) <= 1;
                next = hi;
            }
            check(ok && next == ns[k], "partition: contiguous and balanced", (long long)ns[k]);
        }
    size_t lo, hi;
    cn_pool_block(SIZE_MAX, 1, 2, &lo, &hi);
    check(hi == SIZE_MAX && lo == SIZE_MAX / 2 + 1, "partition: no overflow at SIZE_MAX", 0);
}

static void test_cover(void)
{
    unsigned W = cn_pool_workers();
    size_t ns[] = {0, 1, 2, W - 1, W, W + 1, 2 * W - 1, 2 * W + 1, 13, 97, 1009, 65537, 1000000};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
        test_cover_n(ns[k]);
}

/* -------------------------------------------- which thread runs a block */

struct who {
    pthread_t *thread; /* per worker */
    size_t n;
    _Atomic int bad;
};

static void who_block(void *c, unsigned w, size_t lo, size_t hi)
{
    struct who *v = (struct who *)c;
    size_t want_lo, want_hi;
    cn_pool_block(v->n, w, cn_pool_workers(), &want_lo, &want_hi);
    if (lo != want_lo || hi != want_hi)
        atomic_fetch_add(&v->bad, 1);
    v->thread[w] = pthread_self();
}

static void test_same_threads(void)
{
    unsigned W = cn_pool_workers();
    pthread_t *first = (pthread_t *)calloc(W, sizeof *first);
    struct who v = {(pthread_t *)calloc(W, sizeof(pthread_t)), 0, 0};
    bool same = true, called = true;
    for (int rep = 0; rep < 50; rep++) {
        v.n = (size_t)rep * 7;
        for (unsigned w = 0; w < W; w++)
            memset(&v.thread[w], 0, sizeof(pthread_t));
        cn_pool_reduce(v.n, who_block, &v);
        for (unsigned w = 0; w < W; w++) {
            pthread_t zero;
            memset(&zero, 0, sizeof zero);
            called &= memcmp(&v.thread[w], &zero, sizeof zero) != 0;
            if (rep == 0)
                first[w] = v.thread[w];
            else if (w > 0)
                same &= pthread_equal(first[w], v.thread[w]) != 0;
        }
        same &= pthread_equal(v.thread[0], pthread_self()) != 0;
    }
    check(called, "reduce: every block called, empty ones too", 0);
    check(atomic_load(&v.bad) == 0, "reduce: block bounds are cn_pool_block's", 0);
    check(same, "reduce: worker w is always the same thread, worker 0 the caller", 0);
    free(first);
    free(v.thread);
}

/* -------------------------------------------------------- reductions */

struct fsum {
    const double *x;
    double *part;
};

static void fsum_block(void *c, unsigned w, size_t lo, size_t hi)
{
    struct fsum *r = (struct fsum *)c;
    double s = 0.0;
    for (size_t i = lo; i < hi; i++)
        s += r->x[i];
    r->part[w] = s;
}

static double fsum_pooled(const double *x, size_t n, double *part)
{
    struct fsum r = {x, part};
    cn_pool_reduce(n, fsum_block, &r);
    double s = part[0];
    for (unsigned w = 1; w < cn_pool_workers(); w++)
        s += part[w];
    return s;
}

/* The same blocks folded on this thread, outside the pool. */
static double fsum_serial(const double *x, size_t n)
{
    unsigned W = cn_pool_workers();
    double total = 0.0;
    for (unsigned w = 0; w < W; w++) {
        size_t lo, hi;
        cn_pool_block(n, w, W, &lo, &hi);
        double s = 0.0;
        for (size_t i = lo; i < hi; i++)
            s += x[i];
        total = w == 0 ? s : total + s;
    }
    return total;
}

static double *random_terms(size_t n, uint64_t seed)
{
    double *x = (double *)malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        double m = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
        x[i] = ldexp(m, (int)(seed >> 3 & 63) - 32); /* mixed magnitudes: order matters */
    }
    return x;
}

static void test_reduce_bits(void)
{
    size_t n = 20011;
    double *x = random_terms(n, 42);
    double *part = (double *)malloc(cn_pool_workers() * sizeof *part);
    double want = fsum_serial(x, n);
    int reps = 1000 / SCALE, same = 0;
    for (int rep = 0; rep < reps; rep++) {
        double got = fsum_pooled(x, n, part);
        same += memcmp(&got, &want, sizeof got) == 0;
    }
    check(same == reps, "reduce: identical bits on every repetition, and the serial fold's", same);
    free(part);
    free(x);
}

/* ------------------------------------------------ back to back regions */

struct count {
    _Atomic long long total;
};

static void count_body(void *c, size_t lo, size_t hi)
{
    struct count *v = (struct count *)c;
    atomic_fetch_add_explicit(&v->total, (long long)(hi - lo), memory_order_relaxed);
}

static void test_back_to_back(void)
{
    struct count v;
    atomic_store(&v.total, 0);
    long long want = 0;
    int regions = 20000 / SCALE;
    for (int k = 0; k < regions; k++) {
        size_t n = (size_t)(k % 17);
        cn_pool_for(n, count_body, &v);
        want += (long long)n;
    }
    check(atomic_load(&v.total) == want, "back to back: every index of every region", regions);
}

/* ------------------------------------------- two application threads */

struct app {
    double *out;
    size_t n;
    int regions;
    bool ok;
};

static void app_body(void *c, size_t lo, size_t hi)
{
    struct app *a = (struct app *)c;
    for (size_t i = lo; i < hi; i++)
        a->out[i] += (double)i;
}

static void *app_main(void *arg)
{
    struct app *a = (struct app *)arg;
    a->out = (double *)calloc(a->n, sizeof(double));
    for (int k = 0; k < a->regions; k++)
        cn_pool_for(a->n, app_body, a);
    a->ok = true;
    for (size_t i = 0; i < a->n; i++)
        a->ok &= a->out[i] == (double)i * a->regions;
    free(a->out);
    return NULL;
}

static void test_two_app_threads(void)
{
    struct app a[3] = {{NULL, 1000, 2000 / SCALE, false},
                       {NULL, 37, 3000 / SCALE, false},
                       {NULL, 1, 2000 / SCALE, false}};
    pthread_t t[3];
    for (int k = 0; k < 3; k++)
        pthread_create(&t[k], NULL, app_main, &a[k]);
    for (int k = 0; k < 3; k++)
        pthread_join(t[k], NULL);
    check(a[0].ok && a[1].ok && a[2].ok, "concurrent: regions from three application threads", 0);
}

/* --------------------------------------------------------- nesting */

struct nest {
    const double *x;
    size_t n;
    double *inner_sum; /* per outer index */
    _Atomic long long inner_total;
};

static void nest_inner(void *c, size_t lo, size_t hi)
{
    struct nest *v = (struct nest *)c;
    atomic_fetch_add_explicit(&v->inner_total, (long long)(hi - lo), memory_order_relaxed);
}

static void nest_outer(void *c, size_t lo, size_t hi)
{
    struct nest *v = (struct nest *)c;
    for (size_t i = lo; i < hi; i++) {
        cn_pool_for(100, nest_inner, v);
        double *part = (double *)malloc(cn_pool_workers() * sizeof(double));
        v->inner_sum[i] = fsum_pooled(v->x, v->n, part);
        free(part);
    }
}

static void test_nesting(void)
{
    size_t n = 5003, outer = 2 * cn_pool_workers() + 1;
    double *x = random_terms(n, 7);
    struct nest v = {x, n, (double *)calloc(outer, sizeof(double)), 0};
    cn_pool_for(outer, nest_outer, &v);
    double want = fsum_serial(x, n);
    bool same = true;
    for (size_t i = 0; i < outer; i++)
        same &= memcmp(&v.inner_sum[i], &want, sizeof want) == 0;
    check(atomic_load(&v.inner_total) == (long long)(100 * outer), "nesting: inner region ran serially",
          atomic_load(&v.inner_total));
    check(same, "nesting: a nested reduction gives the top-level bits", 0);
    free(v.inner_sum);
    free(x);
}

/* ------------------------------------------ abort in a lane, fork */

static void abort_body(void *c, size_t lo, size_t hi)
{
    (void)c;
    (void)lo;
    if (hi == 1000) /* the last block: a worker thread's when W > 1 */
        cn_assert(false, "lane 999 fails", "pool.cairn", 3, 5);
}

static void test_fork_serial(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        struct count v;
        atomic_store(&v.total, 0);
        for (int k = 0; k < 100; k++)
            cn_pool_for(1000, count_body, &v);
        _exit(atomic_load(&v.total) == 100000 ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "fork: a child runs regions serially", status);
}

/* ------------------------------------------------------ child runs */

static void run_in_process(void)
{
    test_partition_shape();
    test_cover();
    test_same_threads();
    test_reduce_bits();
    test_back_to_back();
    test_two_app_threads();
    test_nesting();
    test_fork_serial();
}

/* Run `env self MODE`. --child: add its counts, echo its FAIL lines. Other modes must abort
 * (SIGABRT) with `want` on stderr. */
static void run_child(const char *self, const char *env, const char *mode, const char *want)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s '%s' %s 2>&1", env, self, mode);
    FILE *f = popen(cmd, "r");
    char line[512];
    int p = -1, fl = -1, saw_want = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "FAIL", 4))
            printf("%s [%s]\n", strtok(line, "\n"), env);
        else if (strstr(line, "ThreadSanitizer") || (!want && !strstr(line, " passed, ")))
            fputs(line, stdout); /* a sanitizer's report, whole */
        if (want && strstr(line, want))
            saw_want = 1;
        sscanf(line, "%d passed, %d failed", &p, &fl);
    }
    int status = f ? pclose(f) : -1;
    if (want) {
        /* sh reports a child killed by SIGABRT as exit status 128 + 6 */
        bool aborted = WIFEXITED(status) && WEXITSTATUS(status) == 134;
        check(aborted && saw_want, want, status);
        return;
    }
    if (p < 0) {
        check(false, "child run printed no summary", status);
        printf("    in: %s\n", cmd);
        return;
    }
    passed += p;
    failed += fl;
    check(WIFEXITED(status) && WEXITSTATUS(status) == (fl ? 1 : 0), "child run's exit status", status);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--abort")) {
        cn_pool_for(1000, abort_body, NULL);
        return 0; /* not reached */
    }
    if (argc > 1 && !strcmp(argv[1], "--workers")) {
        printf("%u\n", cn_pool_workers());
        return 0; /* not reached with a bad $CAIRN_THREADS */
    }
    run_in_process();
    if (argc == 1) {
        static const char guard[] = "pool.cairn:3:5: guard failed: assertion failed: lane 999 fails";
        run_child(argv[0], "CAIRN_THREADS=1", "--child", NULL);
        run_child(argv[0], "CAIRN_THREADS=3", "--child", NULL);
        run_child(argv[0], "CAIRN_THREADS=7", "--child", NULL);
        run_child(argv[0], "CAIRN_SPIN_US=0", "--child", NULL);
        run_child(argv[0], "CAIRN_THREADS=2", "--abort", guard);
        run_child(argv[0], "CAIRN_THREADS=5", "--abort", guard);
        run_child(argv[0], "CAIRN_THREADS=0", "--workers",
                  "cairn: lane pool: CAIRN_THREADS=0 is not a whole number in 1..1024");
        run_child(argv[0], "CAIRN_THREADS=4x", "--workers",
                  "cairn: lane pool: CAIRN_THREADS=4x is not a whole number in 1..1024");
        run_child(argv[0], "CAIRN_SPIN_US=-1", "--workers",
                  "cairn: lane pool: CAIRN_SPIN_US=-1 is not a whole number in 0..1000000");
    }
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
