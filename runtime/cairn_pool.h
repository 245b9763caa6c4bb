/*
 * cairn_pool.h: the host lane pool behind `parallel i in n { body }` and
 * `reduce OP parallel i in n yield e`.
 *
 * Header-only, in the common subset of C17 and C++17 like cairn_rt.h; every
 * function is `static inline` but the cold failure path. It compiles under
 * plain `-std=c17` (cairn_proc.h, included first, asks for POSIX when the
 * includer asked for nothing) and as C++17, where a small shim maps the C11
 * atomics onto std::atomic.
 *
 * API
 * ---
 *   cn_pool_for(n, body, ctx)       run body(ctx, lo, hi) over [0, n), split
 *                                   into one contiguous block per worker; returns
 *                                   when every index has run. Blocks of n == 0
 *                                   indices are not called.
 *   cn_pool_reduce(n, block, ctx)   run block(ctx, w, lo, hi) for every worker
 *                                   w in [0, cn_pool_workers()), EMPTY BLOCKS
 *                                   INCLUDED, so a block can always store its
 *                                   partial at index w. The caller combines the
 *                                   partials in order 0, 1, ..., W-1.
 *   cn_pool_workers()               W, the number of workers (the calling thread
 *                                   included); fixed for the life of the process.
 *   cn_pool_block(n, w, W, &lo, &hi)  worker w's block: the partition itself.
 *   cn_pool_in_lane()               true inside a body run by the pool.
 *
 * A region lowers to (the compiler's side):
 *
 *   struct r1 { float a; const float *x, *y; float *out; };
 *   static void r1_body(void *c, size_t lo, size_t hi) {
 *       struct r1 *r = (struct r1 *)c;
 *       for (size_t i = lo; i < hi; i++) r->out[i] = r->a * r->x[i] + r->y[i];
 *   }
 *   ... struct r1 c = {a, x, y, out}; cn_pool_for(n, r1_body, &c);
 *
 * and a collector to:
 *
 *   struct r2 { const double *x; double *part; };
 *   static void r2_block(void *c, unsigned w, size_t lo, size_t hi) {
 *       struct r2 *r = (struct r2 *)c;
 *       double s = 0.0;                       // the operator's identity
 *       for (size_t i = lo; i < hi; i++) s += r->x[i];
 *       r->part[w] = s;
 *   }
 *   ... unsigned W = cn_pool_workers();
 *       double *part = (double *)malloc(W * sizeof *part);  // or a stack array
 *       struct r2 c = {x, part};                            //  of CN_POOL_MAX_WORKERS
 *       cn_pool_reduce(n, r2_block, &c);
 *       double s = part[0]; for (unsigned w = 1; w < W; w++) s += part[w];
 *
 * Design
 * ------
 * Partition. Block w of n over W workers is [w*q + min(w, r), (w+1)*q +
 * min(w+1, r)) with q = n / W, r = n % W: contiguous, sizes differ by at most
 * one, the first r blocks are the longer ones, and it depends on nothing but
 * (n, w, W). W is fixed for the process, so a reduction's partials, and the
 * order they are combined in, are the same on every run with the same W
 * ($CAIRN_THREADS pins W; a float reduction may differ between two W).
 *
 * The pool. One per process, made on the first call by pthread_once: W =
 * $CAIRN_THREADS, else the number of online CPUs (sysconf), at most
 * CN_POOL_MAX_WORKERS. W - 1 threads are started once and live until exit;
 * the thread that calls cn_pool_for is worker 0 and runs block 0 itself. The
 * pool's state is one weak global, so every translation unit of a program
 * (C or C++) shares the same pool. It is the only mutable global state of the
 * runtime.
 *
 * Wake-up. A region writes its job (body, ctx, n), sets `pending` to W - 1 and
 * bumps the generation counter `gen` (release). Idle workers spin on `gen`
 * for up to $CAIRN_SPIN_US microseconds (default CN_POOL_SPIN_US), with the
 * CPU's pause instruction, then count themselves in `sleepers` and block on a
 * condition variable; a region broadcasts only when `sleepers` is non-zero,
 * so while workers are warm a region costs no system call at all. Each worker
 * runs its block and decrements `pending` (acq_rel); the caller, having run
 * block 0, spins on `pending` the same way and then sleeps on a second
 * condition variable, which the worker that brings `pending` to 0 signals if
 * the caller has said it sleeps. Both sleep paths are Dekker pairs in
 * seq_cst (announce, then re-check), so no wake-up is lost. When W exceeds
 * the online CPUs the spin budget is 0: spinning would only steal the CPU a
 * working lane needs.
 *
 * Nesting. A cn_pool_for or cn_pool_reduce called from inside a lane (the
 * compiler refuses nesting, but a C caller may do it) does not deadlock: it
 * runs on the calling lane, serially, block 0 to W-1 in order, with the same
 * partition, so a nested reduction gives the same bits as a top-level one.
 *
 * Several application threads. Regions are serialised by a mutex: a second
 * thread's region waits until the first has finished, then has the whole
 * pool. Each region's partition and results are as if it ran alone.
 *
 * Guards. A guard that fails in a lane calls abort(), which ends the whole
 * process from any thread; nothing here catches it.
 *
 * Stacks. A worker finds its stack's floor when it starts (cairn_proc.h)
 * and has an alternate signal stack of its own, so a stack overflow in a lane is
 * reported like one on the main thread. Workers inherit the signals the
 * program blocked for its interrupt watcher, which therefore never run on
 * a worker.
 *
 * fork(). In a child forked from a process whose pool exists, the workers do
 * not exist, so every region runs serially (blocks in order, same results).
 */
#ifndef CAIRN_POOL_H
#define CAIRN_POOL_H

#include "cairn_proc.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/* ------------------------------------------------------- atomics shim */

/* C11 atomics in C, std::atomic in C++: the same operations, spelled once. */
#ifdef __cplusplus
#include <atomic>
typedef std::atomic<uint32_t> cn_atomic_u32;
#define CN_MO(m) std::memory_order_##m
#define cn_atomic_load(p, m) std::atomic_load_explicit((p), CN_MO(m))
#define cn_atomic_store(p, v, m) std::atomic_store_explicit((p), (v), CN_MO(m))
#define cn_atomic_fetch_add(p, v, m) std::atomic_fetch_add_explicit((p), (v), CN_MO(m))
#define cn_atomic_fetch_sub(p, v, m) std::atomic_fetch_sub_explicit((p), (v), CN_MO(m))
#define CN_THREAD_LOCAL thread_local
#else
#include <stdatomic.h>
typedef _Atomic uint32_t cn_atomic_u32;
#define CN_MO(m) memory_order_##m
#define cn_atomic_load(p, m) atomic_load_explicit((p), CN_MO(m))
#define cn_atomic_store(p, v, m) atomic_store_explicit((p), (v), CN_MO(m))
#define cn_atomic_fetch_add(p, v, m) atomic_fetch_add_explicit((p), (v), CN_MO(m))
#define cn_atomic_fetch_sub(p, v, m) atomic_fetch_sub_explicit((p), (v), CN_MO(m))
#define CN_THREAD_LOCAL _Thread_local
#endif

/* The CPU's spin-wait hint: lets the sibling hyperthread run and saves power. */
#if defined(__x86_64__) || defined(__i386__)
#define cn_pool_relax() __builtin_ia32_pause()
#elif defined(__aarch64__) || defined(__arm__)
#define cn_pool_relax() __asm__ __volatile__("yield" ::: "memory")
#else
#define cn_pool_relax() ((void)0)
#endif

/* ------------------------------------------------------------ limits */

/* More workers than this is not a machine we run on; it also bounds a stack
 * array of partials. */
#define CN_POOL_MAX_WORKERS 1024
/* How long an idle worker (and a waiting caller) spins before it sleeps. It
 * must be longer than a wake-up takes on a loaded machine (hundreds of
 * microseconds): with 100 us, a preempted worker would put its partner to
 * sleep, whose wake-up outlasted the next spin, and the pair kept missing each
 * other (1% of empty regions took 200 us on the shared 2-CPU test machine).
 * libgomp's default spin (300,000 pause loops) is longer still. Short enough that a program's serial phase
 * gets its CPUs back soon. */
#define CN_POOL_SPIN_US 2000

typedef void (*cn_pool_body_fn)(void *ctx, size_t lo, size_t hi);
typedef void (*cn_pool_block_fn)(void *ctx, unsigned w, size_t lo, size_t hi);

/* --------------------------------------------------------- the state */

#define CN_POOL_LINE __attribute__((aligned(64)))

struct cn_pool {
    /* Set once by the initialiser, read-only after (pthread_once orders it). */
    unsigned nworkers;
    uint64_t spin_ns;
    /* Set in a forked child, which is single-threaded then. */
    int forked;
    /* The job: written by the caller before it bumps `gen`, read by the workers
     * after they see the bump; rewritten only after `pending` reaches 0. */
    cn_pool_body_fn body;   /* cn_pool_for: run non-empty blocks */
    cn_pool_block_fn block; /* cn_pool_reduce: run every block, with its w */
    void *ctx;
    size_t n;
    /* Each counter on its own cache line: workers poll `gen`, write `pending`. */
    CN_POOL_LINE cn_atomic_u32 gen;
    cn_atomic_u32 sleepers;
    CN_POOL_LINE cn_atomic_u32 pending;
    cn_atomic_u32 caller_asleep;
    /* The locks, away from the lines the workers poll. */
    CN_POOL_LINE pthread_mutex_t region_lock; /* one region at a time, whatever the thread */
    pthread_mutex_t sleep_lock;               /* guards nothing but the two waits */
    pthread_cond_t gen_cond;                  /* workers sleep here for the next region */
    pthread_cond_t done_cond;                 /* the caller sleeps here for `pending` == 0 */
};

/* Weak, so that every translation unit that includes this header shares one
 * pool: the one piece of global state a process needs. */
__attribute__((weak)) struct cn_pool cn_pool_global;
__attribute__((weak)) pthread_once_t cn_pool_once = PTHREAD_ONCE_INIT;
/* Non-zero on a thread while it runs lanes: nesting is detected with it. */
__attribute__((weak)) CN_THREAD_LOCAL int cn_pool_lane_depth;

/* ------------------------------------------------------ the partition */

/* Worker w's block of [0, n) out of nw workers: see "Partition" above. */
static inline void cn_pool_block(size_t n, unsigned w, unsigned nw, size_t *lo, size_t *hi)
{
    size_t q = n / nw, r = n % nw;
    *lo = (size_t)w * q + (w < r ? w : r);
    *hi = *lo + q + (w < r);
}

/* ---------------------------------------------------------- helpers */

__attribute__((cold, noinline, noreturn)) static void cn_pool_die(const char *what, const char *detail)
{
    fflush(stdout);
    fprintf(stderr, "cairn: lane pool: %s%s\n", what, detail ? detail : "");
    fflush(stderr);
    abort();
}

/* Monotonic enough for a spin budget: a clock step backwards ends the spin. */
static inline uint64_t cn_pool_now_ns(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A positive decimal from the environment, or `fallback` when unset. */
static inline unsigned long cn_pool_env(const char *name, unsigned long fallback,
                                        unsigned long min, unsigned long max)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return fallback;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || s[0] == '-' || v < min || v > max) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s=%.40s is not a whole number in %lu..%lu", name, s, min, max);
        cn_pool_die(msg, NULL);
    }
    return v;
}

/* Run one worker's share of the current job. */
static inline void cn_pool_run_block(struct cn_pool *p, unsigned w)
{
    size_t lo, hi;
    cn_pool_block(p->n, w, p->nworkers, &lo, &hi);
    if (p->block)
        p->block(p->ctx, w, lo, hi);
    else if (lo < hi)
        p->body(p->ctx, lo, hi);
}

/* --------------------------------------------------------- the worker */

/* Wait for `gen` to move past `seen`: spin, then sleep. Returns the new value. */
static inline uint32_t cn_pool_wait_gen(struct cn_pool *p, uint32_t seen)
{
    uint64_t start = 0;
    for (uint32_t i = 0;; i++) {
        uint32_t g = cn_atomic_load(&p->gen, acquire);
        if (g != seen)
            return g;
        cn_pool_relax();
        if ((i & 63) == 63) {
            uint64_t now = cn_pool_now_ns();
            if (!start)
                start = now;
            else if (now < start || now - start >= p->spin_ns)
                break;
        }
    }
    /* Announce, then re-check under the lock: the caller bumps gen, then reads
     * sleepers (both seq_cst), so one of the two sees the other. */
    cn_atomic_fetch_add(&p->sleepers, 1, seq_cst);
    pthread_mutex_lock(&p->sleep_lock);
    uint32_t g;
    while ((g = cn_atomic_load(&p->gen, seq_cst)) == seen)
        pthread_cond_wait(&p->gen_cond, &p->sleep_lock);
    pthread_mutex_unlock(&p->sleep_lock);
    cn_atomic_fetch_sub(&p->sleepers, 1, relaxed);
    return g;
}

/* The worker that brings `pending` to 0 wakes the caller, if it sleeps. */
static inline void cn_pool_finish_block(struct cn_pool *p)
{
    if (cn_atomic_fetch_sub(&p->pending, 1, seq_cst) == 1 &&
        cn_atomic_load(&p->caller_asleep, seq_cst)) {
        pthread_mutex_lock(&p->sleep_lock);
        pthread_cond_signal(&p->done_cond);
        pthread_mutex_unlock(&p->sleep_lock);
    }
}

static inline void *cn_pool_worker_main(void *arg)
{
    struct cn_pool *p = &cn_pool_global;
    unsigned w = (unsigned)(uintptr_t)arg;
    uint32_t seen = 0; /* gen is 0 until the first region, which waits for us */
    cn_pool_lane_depth = 1; /* everything this thread ever runs is a lane */
    cn_stack_thread_begin();
    for (;;) {
        seen = cn_pool_wait_gen(p, seen);
        cn_pool_run_block(p, w);
        cn_pool_finish_block(p);
    }
    return NULL;
}

/* ------------------------------------------------------ initialisation */

static inline void cn_pool_after_fork_child(void) { cn_pool_global.forked = 1; }

static inline void cn_pool_init(void)
{
    struct cn_pool *p = &cn_pool_global;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        cpus = 1;
    if (cpus > CN_POOL_MAX_WORKERS)
        cpus = CN_POOL_MAX_WORKERS;
    p->nworkers = (unsigned)cn_pool_env("CAIRN_THREADS", (unsigned long)cpus, 1, CN_POOL_MAX_WORKERS);
    unsigned long spin_us = cn_pool_env("CAIRN_SPIN_US", CN_POOL_SPIN_US, 0, 1000000);
    p->spin_ns = p->nworkers > (unsigned long)cpus ? 0 : (uint64_t)spin_us * 1000u;
    if (pthread_mutex_init(&p->region_lock, NULL) || pthread_mutex_init(&p->sleep_lock, NULL) ||
        pthread_cond_init(&p->gen_cond, NULL) || pthread_cond_init(&p->done_cond, NULL))
        cn_pool_die("cannot initialise its locks", NULL);
    cn_atomic_store(&p->gen, 0, relaxed);
    cn_atomic_store(&p->sleepers, 0, relaxed);
    cn_atomic_store(&p->pending, 0, relaxed);
    cn_atomic_store(&p->caller_asleep, 0, relaxed);
    pthread_atfork(NULL, NULL, cn_pool_after_fork_child);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (unsigned w = 1; w < p->nworkers; w++) {
        pthread_t t;
        int err = pthread_create(&t, &attr, cn_pool_worker_main, (void *)(uintptr_t)w);
        if (err)
            cn_pool_die("cannot start a worker thread: ", strerror(err));
    }
    pthread_attr_destroy(&attr);
}

static inline struct cn_pool *cn_pool_get(void)
{
    pthread_once(&cn_pool_once, cn_pool_init);
    return &cn_pool_global;
}

static inline unsigned cn_pool_workers(void) { return cn_pool_get()->nworkers; }

static inline bool cn_pool_in_lane(void) { return cn_pool_lane_depth != 0; }

/* ------------------------------------------------------------ regions */

/* Every block, in order, on this thread: nesting, one worker, a forked child. */
static inline void cn_pool_run_serial(struct cn_pool *p, size_t n, cn_pool_body_fn body,
                                      cn_pool_block_fn block, void *ctx)
{
    cn_pool_lane_depth++;
    for (unsigned w = 0; w < p->nworkers; w++) {
        size_t lo, hi;
        cn_pool_block(n, w, p->nworkers, &lo, &hi);
        if (block)
            block(ctx, w, lo, hi);
        else if (lo < hi)
            body(ctx, lo, hi);
    }
    cn_pool_lane_depth--;
}

/* Wait for every worker's block: spin, then sleep until the last one signals. */
static inline void cn_pool_wait_done(struct cn_pool *p)
{
    uint64_t start = 0;
    for (uint32_t i = 0;; i++) {
        if (cn_atomic_load(&p->pending, acquire) == 0)
            return;
        cn_pool_relax();
        if ((i & 63) == 63) {
            uint64_t now = cn_pool_now_ns();
            if (!start)
                start = now;
            else if (now < start || now - start >= p->spin_ns)
                break;
        }
    }
    cn_atomic_store(&p->caller_asleep, 1, seq_cst);
    pthread_mutex_lock(&p->sleep_lock);
    while (cn_atomic_load(&p->pending, seq_cst) != 0)
        pthread_cond_wait(&p->done_cond, &p->sleep_lock);
    pthread_mutex_unlock(&p->sleep_lock);
    cn_atomic_store(&p->caller_asleep, 0, relaxed);
}

static inline void cn_pool_run(size_t n, cn_pool_body_fn body, cn_pool_block_fn block, void *ctx)
{
    struct cn_pool *p = cn_pool_get();
    if (cn_pool_lane_depth || p->nworkers == 1 || p->forked) {
        cn_pool_run_serial(p, n, body, block, ctx);
        return;
    }
    pthread_mutex_lock(&p->region_lock);
    p->body = body;
    p->block = block;
    p->ctx = ctx;
    p->n = n;
    cn_atomic_store(&p->pending, p->nworkers - 1, relaxed);
    cn_atomic_fetch_add(&p->gen, 1, seq_cst); /* publishes the job (release) */
    if (cn_atomic_load(&p->sleepers, seq_cst)) {
        pthread_mutex_lock(&p->sleep_lock);
        pthread_cond_broadcast(&p->gen_cond);
        pthread_mutex_unlock(&p->sleep_lock);
    }
    cn_pool_lane_depth = 1;
    cn_pool_run_block(p, 0);
    cn_pool_lane_depth = 0;
    cn_pool_wait_done(p);
    pthread_mutex_unlock(&p->region_lock);
}

/* `parallel i in n { body }`: body(ctx, lo, hi) over every non-empty block. */
static inline void cn_pool_for(size_t n, cn_pool_body_fn body, void *ctx)
{
    if (n == 0)
        return;
    if (n == 1 && !cn_pool_lane_depth) { /* block 0 is all of it: no one to wake */
        cn_pool_lane_depth = 1;
        body(ctx, 0, 1);
        cn_pool_lane_depth = 0;
        return;
    }
    cn_pool_run(n, body, NULL, ctx);
}

/* `reduce OP parallel i in n yield e`: block(ctx, w, lo, hi) for every w, empty
 * blocks included; the caller then combines partials 0 .. W-1 in order. */
static inline void cn_pool_reduce(size_t n, cn_pool_block_fn block, void *ctx)
{
    cn_pool_run(n, NULL, block, ctx);
}

#endif /* CAIRN_POOL_H */
