/*
 * cairn_coop.h: the host runtime of cooperative regions,
 * `blocks b in G threads t in T { body } then threads t in T { fin }`.
 *
 * Header-only, in the common subset of C17 and C++17 like cairn_pool.h (whose
 * atomics shim it uses); every function is `static inline` but the cold
 * failure path. It keeps no global state: a region's state lives in the
 * caller's frame and in one allocation freed when the region returns.
 *
 * API
 * ---
 *   cn_coop_run(G, T, &body_layout, body, &finish_layout, finish, ctx)
 *       runs G blocks (any size_t, 0 included) of T threads each (32..1024, a
 *       multiple of 32), then the finish once (also when G == 0; finish may be
 *       NULL for a region without one). Returns true, or false when a thread
 *       trapped through cn_coop_trap (the emulated machine's path, below).
 *   body(ctx, block, thread, shared, th)
 *       one call per thread per block: `block` in [0, G), `thread` in [0, T),
 *       `shared` the block's shared memory (128-byte aligned), `th` the calling
 *       thread's handle, which every operation below takes. The finish is a
 *       function of the same type, called with block 0.
 *   struct cn_coop_layout { size_t bytes; const struct cn_coop_array *arrays;
 *                           unsigned narrays; }
 *       a block's shared memory: `bytes` in all, and each array's (offset,
 *       bytes, zeroed). The compiler places the arrays (each offset a multiple
 *       of 128); the runtime prepares them where each block starts (below).
 *   cn_coop_barrier(th)                 `barrier;`
 *   cn_coop_shfl_u32/_u64(th, v, lane)  shuffle(v, lane): lane & 31's v
 *   cn_coop_shfl_xor_u32/_u64(th, v, m) shuffle_xor: lane l ^ m's v (own v past 31)
 *   cn_coop_shfl_down_u32/_u64(th, v, d) lane l + d's v, own v past lane 31
 *   cn_coop_shfl_up_u32/_u64(th, v, d)  lane l - d's v, own v below lane 0
 *   cn_coop_ballot(th, c), cn_coop_any(th, c), cn_coop_all(th, c)
 *   cn_coop_match_u32/_u64(th, v)       lanes whose v has this lane's bits
 *   cn_coop_reduce_u32/_u64(th, v, op)  `reduce OP warp yield v`, op(lo, hi)
 *   cn_coop_trap_exit(th), cn_coop_trap(th)   a thread's way out (below)
 *   cn_coop_run_hooked(..., ctx, &hooks)
 *       cn_coop_run with two hooks for the emulated machine (below, "Hooks"):
 *       hooks.enter(arg, th) in each thread before it serves a block, and
 *       hooks.stop(arg), asked where each block starts: true ends the region
 *       as a trap does.
 * Floats travel by their bits (memcpy to a u32 or u64 and back).
 *
 * A region lowers to (the compiler's side):
 *
 *   struct r3 { const uint64_t *x; size_t n; uint64_t *out; };
 *   static void r3_body(void *c, size_t b, unsigned t, unsigned char *sh,
 *                       struct cn_coop_thread *th) {
 *       struct r3 *r = (struct r3 *)c;
 *       uint64_t *partial = (uint64_t *)(sh + 0);    // offset from the layout
 *       ...  partial[t] = ...;
 *       cn_coop_barrier(th);
 *       ...  uint64_t total = cn_coop_reduce_u64(th, partial[t], r3_add);
 *   }
 *   static const struct cn_coop_array r3_arrays[] = {{0, 2048, 1}};
 *   static const struct cn_coop_layout r3_layout = {2048, r3_arrays, 1};
 *   ... struct r3 c = {x, n, out};
 *       cn_coop_run(g, 256, &r3_layout, r3_body, NULL, NULL, &c);
 *
 * Design
 * ------
 * Teams. A region runs S = min(G, CN_COOP_SLOTS) slots (one when G == 0, for
 * the finish), each a team of T real threads, so the thread sanitizer sees
 * every barrier and every shared access of a real run. A team runs block after
 * block: its threads meet at the team's barrier where each block ends, and the
 * last to arrive claims the next block from the region's counter (any order:
 * blocks are independent) and prepares the shared memory before it lets the
 * others go. So a region starts S * T threads, whatever G, and joins them all
 * before it returns: at most 2 * T threads alive (the page's figure), none left
 * behind. Threads are not kept between regions: this lowering is for checking
 * a program on real threads, not a fast way to run one (the page says so).
 *
 * Shared memory. One allocation per slot of max(body, finish) bytes, 128-byte
 * aligned. Where each block starts, every byte is filled with CN_COOP_PATTERN
 * (0xA5) and then each array marked zeroed is zeroed: an array without an
 * initializer starts with the pattern, so a read the checker wrongly let
 * through shows (0xA5A5A5A5 as a u32, -2.87e-16 as an f32, -2.50e-127 as
 * an f64). The runtime does it, from the layout, before any thread of
 * the block runs: no barrier in the body is needed for it.
 *
 * The barrier. A counting barrier on C11 atomics: each thread reads the
 * generation, then counts itself in (acq_rel, so the last arriver has seen
 * every other's writes), and the last one runs the completion (if any), resets
 * the count and bumps the generation (release), which the others wait for
 * (acquire). So the sanitizer sees each thread's phase happen before every
 * thread's next phase. A waiter spins (with the CPU's pause) only while the
 * region's threads fit the online CPUs (with S * T threads on a few CPUs,
 * spinning would only steal the CPU the thread everyone waits for needs),
 * yields CN_COOP_YIELDS times, then sleeps on a futex on gen (Linux; the
 * last arriver always wakes) or on a condition variable elsewhere (counted
 * among the sleepers, a Dekker pair in seq_cst as in cairn_pool.h). The
 * generation grows by 2; its bit 0 is set when the region is cancelled, which
 * wakes every waiter (see "Traps"). A warp-operation divergence (a lane that
 * skips one) is not detected: the warp's barrier would wait for it.
 *
 * A mismatch is a compiler bug, not a hang: the barrier where a block ends
 * counts its arrivals apart from the body's `barrier;`, and when one round
 * mixes the two (a thread left its body while another waits at a barrier of
 * the body) the process dies with a message.
 *
 * Warps. Lanes 32w .. 32w+31 of a block are warp w. Each warp has a barrier of
 * 32 and two exchange rows of 32 64-bit words. A warp operation writes this
 * lane's value into the row, meets the warp at its barrier, and reads what it
 * needs. Operations alternate rows (every lane runs the same sequence of warp
 * operations, so they agree on the row): the next operation writes the other
 * row, and the one after that writes this row again only after a barrier that
 * every lane reaches after its reads here. One rendezvous per operation.
 *
 * The butterfly. `reduce OP warp` combines in steps m = 16, 8, 4, 2, 1: lane l
 * combines its value with lane l ^ m's, always as op(lower lane's, higher
 * lane's), so both partners compute the same bits and after the last step
 * every lane holds the same value:
 *     after step m, lane l holds op(v[l & ~m], v[l | m]) of the step before.
 * The device must do exactly this (a shfl_xor per step, operands ordered by
 * lane) to give the same bits. Here one rendezvous gives each lane all 32
 * values and each lane evaluates the same tree itself: the same combinations,
 * in the same order, without five more rendezvous.
 *
 * Traps. A failed guard on the host aborts the process (cairn_rt.h) from any
 * thread: the threads waiting at a barrier die with it, nothing hangs. Under
 * the emulated machine a trapped lane longjmps out instead, and so may a
 * trapped thread here: cn_coop_trap_exit(th) is a jmp_buf the emitted code may
 * hand to the emulator as the lane's trap exit (cn_emu_lane_now.trap_exit).
 * A longjmp to it (or cn_coop_trap(th)) cancels the region: every thread
 * leaves at its next barrier or warp operation (a thread asleep in one is
 * woken), no block starts, the finish does not run, and cn_coop_run returns
 * false. The longjmp crosses only the body's own frames, which the emitted
 * code keeps free of C++ destructors.
 *
 * Hooks. The emulated machine (cairn_coopdev.h) runs a device region's
 * blocks on these teams, and a guard that fails in one of its threads must
 * trap as an emulated lane does: its `enter` hook points the thread's
 * emulated lane (cn_emu_lane_now) at the launch and at cn_coop_trap_exit(th),
 * so the guard longjmps here and cancels the region. Its `stop` hook says
 * whether the machine is poisoned (a lane of other work trapped): then no
 * further block starts, as no further index of a lane does, the finish does
 * not run, and cn_coop_run_hooked returns false. This header stays free of
 * the device seam: the hooks are plain function pointers.
 *
 * Threads' stacks are CN_COOP_STACK bytes; each thread finds its floor for the
 * stack check and has an alternate signal stack, freed when it ends. A region
 * run from a lane of the pool, or a pool region run from a thread here, does
 * not deadlock: the threads count as lanes (cn_pool_lane_depth), so a nested
 * pool region runs serially.
 */
#ifndef CAIRN_COOP_H
#define CAIRN_COOP_H

#include "cairn_pool.h" /* the atomics shim, relax, the lane depth; cairn_proc.h first */

#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
/* Linux: waiters sleep on a futex (see cn_coop_sleep for why). */
#if defined(__linux__) && !defined(CN_COOP_NO_FUTEX)
#include <linux/futex.h>
#include <sys/syscall.h>
#define CN_COOP_FUTEX 1
/* glibc declares it only under _DEFAULT_SOURCE; C allows declaring it again. */
#if !defined(__USE_MISC) && !defined(__cplusplus)
extern long syscall(long number, ...);
#endif
#else
#define CN_COOP_FUTEX 0
#endif

/* ------------------------------------------------------------ limits */

/* Blocks run at once: the page's "two at a time", so 2 * T threads. */
#define CN_COOP_SLOTS 2
/* What an array without initializer starts each block filled with. */
#define CN_COOP_PATTERN 0xA5
/* Shared memory's alignment: a tensor core fragment may load from an array. */
#define CN_COOP_ALIGN 128
/* A thread's stack: 2 * 1024 threads of 1 MiB is 2 GiB of address space, and
 * the stack check (cairn_proc.h) stops a body that needs more with a guard. */
#define CN_COOP_STACK ((size_t)1 << 20)
/* glibc carves a thread's static TLS from the top of the stack it is given,
 * and the thread sanitizer keeps its per-thread state there: measured, about
 * 790 KiB of a 1 MiB stack, which left a body's first call below the stack
 * check's floor (a false "stack overflow"). Under TSan each thread gets this
 * much more. */
#if defined(__SANITIZE_THREAD__)
#define CN_COOP_STACK_TLS ((size_t)2 << 20)
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CN_COOP_STACK_TLS ((size_t)2 << 20)
#endif
#endif
#ifndef CN_COOP_STACK_TLS
#define CN_COOP_STACK_TLS ((size_t)0)
#endif
#define CN_COOP_WARP 32
/* How often a waiter yields its CPU before it sleeps. With many more threads
 * than CPUs, the thread everyone waits for is usually runnable: a few yields
 * let it run without the cost of a sleep and a wake-up (measured: 4 halves a
 * 32-thread barrier on 2 CPUs; many more spend longer in the scheduler). */
#ifndef CN_COOP_YIELDS
#define CN_COOP_YIELDS 4
#endif

#ifdef __cplusplus
typedef std::atomic<size_t> cn_atomic_size;
#define cn_atomic_cas(p, e, v) std::atomic_compare_exchange_weak_explicit((p), (e), (v), CN_MO(relaxed), CN_MO(relaxed))
#define cn_atomic_fetch_or(p, v, m) std::atomic_fetch_or_explicit((p), (v), CN_MO(m))
#else
typedef _Atomic size_t cn_atomic_size;
#define cn_atomic_cas(p, e, v) atomic_compare_exchange_weak_explicit((p), (e), (v), CN_MO(relaxed), CN_MO(relaxed))
#define cn_atomic_fetch_or(p, v, m) atomic_fetch_or_explicit((p), (v), CN_MO(m))
#endif

struct cn_coop_thread;
typedef void (*cn_coop_body_fn)(void *ctx, size_t block, unsigned thread, unsigned char *shared,
                                struct cn_coop_thread *th);
typedef uint32_t (*cn_coop_op32_fn)(uint32_t lo, uint32_t hi);
typedef uint64_t (*cn_coop_op64_fn)(uint64_t lo, uint64_t hi);

/* One shared array: where it starts in the block's memory, its bytes, and
 * whether it is declared `= zeroed`. */
struct cn_coop_array {
    size_t offset;
    size_t bytes;
    int zeroed;
};

/* A block's (or the finish's) shared memory. */
struct cn_coop_layout {
    size_t bytes;
    const struct cn_coop_array *arrays;
    unsigned narrays;
};

/* --------------------------------------------------------- the state */

/* A reusable barrier of `parties` threads (see "The barrier" above). */
struct cn_coop_barrier {
    CN_POOL_LINE cn_atomic_u32 arrived;
    cn_atomic_u32 ends; /* arrivals this round at the barrier where a block ends */
    /* Bumped by 2 each round; bit 0 says the region is cancelled. */
    CN_POOL_LINE cn_atomic_u32 gen;
    cn_atomic_u32 sleepers;
    unsigned parties;
    pthread_mutex_t lock; /* guards nothing but the sleep */
    pthread_cond_t cond;
};

/* What a thread does after the barrier where a block ends. */
enum cn_coop_next { CN_COOP_BLOCK, CN_COOP_FINISH, CN_COOP_DONE };

struct cn_coop_region;

/* One team: T threads running block after block. */
struct cn_coop_slot {
    struct cn_coop_region *r;
    struct cn_coop_barrier bar;
    struct cn_coop_barrier *warp_bar;   /* T / 32 */
    uint64_t (*xchg)[2][CN_COOP_WARP];  /* T / 32 pairs of rows */
    unsigned char *shared;
    /* Written by the completion, read after the barrier that publishes it. */
    size_t block;
    enum cn_coop_next next;
};

/* The handle the body gets: its team, its index, its own warp-row parity and
 * its way out. */
struct cn_coop_thread {
    struct cn_coop_slot *slot;
    unsigned index;
    unsigned row;
    pthread_t tid;
    jmp_buf exit;
};

/* The emulated machine's hooks (see "Hooks"); either may be NULL. */
struct cn_coop_hooks {
    void (*enter)(void *arg, struct cn_coop_thread *th);
    bool (*stop)(void *arg);
    void *arg;
};

struct cn_coop_region {
    const struct cn_coop_hooks *hooks; /* NULL on the host */
    size_t G;
    unsigned T;
    const struct cn_coop_layout *body_layout, *finish_layout;
    cn_coop_body_fn body, finish;
    void *ctx;
    uint64_t spin_ns;
    unsigned nslots;
    struct cn_coop_slot *slots;
    struct cn_coop_thread *threads; /* nslots * T */
    CN_POOL_LINE cn_atomic_size next_block;
    cn_atomic_u32 slots_left;
    cn_atomic_u32 cancelled;
};

/* ---------------------------------------------------------- helpers */

__attribute__((cold, noinline, noreturn)) static void cn_coop_die(const char *what, const char *detail)
{
    fflush(stdout);
    fprintf(stderr, "cairn: cooperative region: %s%s\n", what, detail ? detail : "");
    fflush(stderr);
    abort();
}

static inline void cn_coop_barrier_init(struct cn_coop_barrier *b, unsigned parties)
{
    cn_atomic_store(&b->arrived, 0, relaxed);
    cn_atomic_store(&b->ends, 0, relaxed);
    cn_atomic_store(&b->gen, 0, relaxed);
    cn_atomic_store(&b->sleepers, 0, relaxed);
    b->parties = parties;
    if (pthread_mutex_init(&b->lock, NULL) || pthread_cond_init(&b->cond, NULL))
        cn_coop_die("cannot initialise a barrier's lock", NULL);
}

static inline void cn_coop_barrier_destroy(struct cn_coop_barrier *b)
{
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->cond);
}

/* Sleep until the generation is not g. On Linux a futex on gen: the kernel
 * checks the word and sleeps in one step, and the sanitizer sees no lock. A
 * mutex here would be a happens-before edge the phase rule does not give: a
 * thread still waking from the last barrier would acquire the lock after a
 * faster thread released it past its next phase's writes, and TSan would miss
 * a race between the two (it did, under load, before this). Elsewhere a
 * condition variable, checked under its lock, with that blind spot. */
static inline void cn_coop_sleep(struct cn_coop_barrier *b, uint32_t g)
{
#if CN_COOP_FUTEX
    while (cn_atomic_load(&b->gen, relaxed) == g)
        syscall(SYS_futex, (uint32_t *)&b->gen, FUTEX_WAIT_PRIVATE, g, NULL, NULL, 0);
#else
    pthread_mutex_lock(&b->lock);
    while (cn_atomic_load(&b->gen, seq_cst) == g)
        pthread_cond_wait(&b->cond, &b->lock);
    pthread_mutex_unlock(&b->lock);
#endif
}

static inline void cn_coop_wake_all(struct cn_coop_barrier *b)
{
#if CN_COOP_FUTEX
    syscall(SYS_futex, (uint32_t *)&b->gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
    pthread_mutex_lock(&b->lock);
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
#endif
}

/* Leave the body: the region is cancelled (see "Traps"). */
__attribute__((noreturn)) static inline void cn_coop_leave(struct cn_coop_thread *th)
{
    longjmp(th->exit, 1);
}

/* Wait until the generation moves past `g`: spin while the region's threads
 * fit the CPUs, yield a few times, then sleep. Leave if the region is cancelled. */
static inline void cn_coop_barrier_wait(struct cn_coop_barrier *b, uint32_t g, struct cn_coop_thread *th)
{
    uint64_t spin_ns = th->slot->r->spin_ns, start = 0;
    uint32_t cur = g;
    for (uint32_t i = 0; spin_ns && cur == g; i++) {
        cur = cn_atomic_load(&b->gen, acquire);
        cn_pool_relax();
        if ((i & 63) == 63) {
            uint64_t now = cn_pool_now_ns();
            if (!start)
                start = now;
            else if (now < start || now - start >= spin_ns)
                break;
        }
    }
    for (int k = 0; k < CN_COOP_YIELDS && cur == g; k++) {
        sched_yield();
        cur = cn_atomic_load(&b->gen, acquire);
    }
    if (cur == g) {
        /* Announce, then sleep while gen is g: the last arriver bumps gen and
         * then reads sleepers, both seq_cst, so one of the two sees the other. */
#if CN_COOP_FUTEX
        /* No count of sleepers: its seq_cst increment would let a late waiter
         * acquire a faster thread's next phase (see cn_coop_sleep); the last
         * arriver always wakes, and the futex loses no wake-up. */
        cn_coop_sleep(b, g);
#else
        cn_atomic_fetch_add(&b->sleepers, 1, seq_cst);
        cn_coop_sleep(b, g);
        cn_atomic_fetch_sub(&b->sleepers, 1, relaxed);
#endif
        cur = cn_atomic_load(&b->gen, acquire);
    }
    if (cur & 1)
        cn_coop_leave(th); /* the region was cancelled, not released */
}

/* The last arriver lets the others go. */
static inline void cn_coop_barrier_release(struct cn_coop_barrier *b)
{
    cn_atomic_store(&b->arrived, 0, relaxed);
    cn_atomic_store(&b->ends, 0, relaxed);
    cn_atomic_fetch_add(&b->gen, 2, seq_cst); /* release: the round's writes, the completion's */
    if (CN_COOP_FUTEX || cn_atomic_load(&b->sleepers, seq_cst))
        cn_coop_wake_all(b);
}

/* Arrive and wait. `is_end` marks the barrier where a block ends; its last
 * arriver runs `complete(slot)` before anyone goes on. */
static inline void cn_coop_arrive(struct cn_coop_barrier *b, struct cn_coop_thread *th, bool is_end,
                                  void (*complete)(struct cn_coop_slot *))
{
    uint32_t g = cn_atomic_load(&b->gen, acquire);
    if (g & 1)
        cn_coop_leave(th);
    if (is_end)
        cn_atomic_fetch_add(&b->ends, 1, relaxed);
    if (cn_atomic_fetch_add(&b->arrived, 1, acq_rel) + 1 != b->parties) {
        cn_coop_barrier_wait(b, g, th);
        return;
    }
    unsigned ends = cn_atomic_load(&b->ends, relaxed);
    if (ends != 0 && ends != b->parties)
        cn_coop_die("threads of one block met at different barriers: ",
                    "some left the body while others wait at a barrier (a compiler bug)");
    if (complete)
        complete(th->slot);
    cn_coop_barrier_release(b);
}

/* Wake every thread of the region wherever it waits; they leave (see "Traps"). */
static inline void cn_coop_cancel(struct cn_coop_region *r)
{
    cn_atomic_store(&r->cancelled, 1, seq_cst);
    for (unsigned s = 0; s < r->nslots; s++) {
        struct cn_coop_slot *sl = &r->slots[s];
        for (unsigned w = 0; w <= r->T / CN_COOP_WARP; w++) {
            struct cn_coop_barrier *b = w < r->T / CN_COOP_WARP ? &sl->warp_bar[w] : &sl->bar;
            cn_atomic_fetch_or(&b->gen, 1, seq_cst);
            cn_coop_wake_all(b);
        }
    }
}

/* ------------------------------------------------------ shared memory */

/* Where a block (or the finish) starts: the pattern, then the zeroed arrays. */
static inline void cn_coop_prepare(unsigned char *shared, const struct cn_coop_layout *L)
{
    if (!L || !L->bytes)
        return;
    memset(shared, CN_COOP_PATTERN, L->bytes);
    for (unsigned i = 0; i < L->narrays; i++)
        if (L->arrays[i].zeroed)
            memset(shared + L->arrays[i].offset, 0, L->arrays[i].bytes);
}

/* A layout the compiler made wrong is a compiler bug: said before any thread starts. */
static inline void cn_coop_check_layout(const struct cn_coop_layout *L)
{
    if (!L)
        return;
    for (unsigned i = 0; i < L->narrays; i++) {
        const struct cn_coop_array *a = &L->arrays[i];
        if (a->offset % CN_COOP_ALIGN || a->offset > L->bytes || a->bytes > L->bytes - a->offset)
            cn_coop_die("a shared array lies outside its block's memory or off a 128-byte boundary",
                        " (a compiler bug)");
    }
}

/* ------------------------------------------------------ a team's loop */

/* The completion where a block ends: claim the next block, or finish, or stop. */
static inline void cn_coop_next_block(struct cn_coop_slot *s)
{
    struct cn_coop_region *r = s->r;
    /* A compare-and-swap that never moves past G: with G near SIZE_MAX a
     * fetch_add by each finishing team would wrap to block 0 again. */
    size_t b = cn_atomic_load(&r->next_block, relaxed);
    while (b < r->G && !cn_atomic_cas(&r->next_block, &b, b + 1))
        ;
    if (r->hooks && r->hooks->stop && r->hooks->stop(r->hooks->arg)) {
        /* the machine is poisoned: no block starts, no finish runs */
        cn_atomic_store(&r->cancelled, 1, seq_cst);
        cn_atomic_fetch_sub(&r->slots_left, 1, acq_rel);
        s->next = CN_COOP_DONE;
        return;
    }
    if (b < r->G) {
        s->block = b;
        s->next = CN_COOP_BLOCK;
        cn_coop_prepare(s->shared, r->body_layout);
        return;
    }
    /* This team is done. The last team done has seen every block's writes
     * (acq_rel on slots_left after each team's own barrier) and runs the finish. */
    if (cn_atomic_fetch_sub(&r->slots_left, 1, acq_rel) == 1 && r->finish) {
        s->next = CN_COOP_FINISH;
        cn_coop_prepare(s->shared, r->finish_layout);
    } else {
        s->next = CN_COOP_DONE;
    }
}

/* Block after block, then perhaps the finish. */
static inline void cn_coop_serve(struct cn_coop_thread *th)
{
    struct cn_coop_slot *s = th->slot;
    struct cn_coop_region *r = s->r;
    if (setjmp(th->exit)) {
        cn_coop_cancel(r);
        return;
    }
    for (;;) {
        cn_coop_arrive(&s->bar, th, true, cn_coop_next_block);
        if (s->next == CN_COOP_DONE)
            return;
        th->row = 0;
        if (s->next == CN_COOP_FINISH) {
            r->finish(r->ctx, 0, th->index, s->shared, th);
            return;
        }
        r->body(r->ctx, s->block, th->index, s->shared, th);
    }
}

static inline void *cn_coop_thread_main(void *arg)
{
    struct cn_coop_thread *th = (struct cn_coop_thread *)arg;
    cn_pool_lane_depth = 1;
    cn_stack_find();
    const struct cn_coop_hooks *h = th->slot->r->hooks;
    if (h && h->enter)
        h->enter(h->arg, th);
#if CN_PROC_POSIX
    void *alt = malloc(CN_ALTSTACK_SIZE);
    cn_stack_altstack(alt, CN_ALTSTACK_SIZE);
#endif
    cn_coop_serve(th);
#if CN_PROC_POSIX
    if (alt) {
        stack_t off;
        memset(&off, 0, sizeof off);
        off.ss_flags = SS_DISABLE;
        sigaltstack(&off, NULL);
        free(alt);
    }
#endif
    return NULL;
}

/* --------------------------------------------------------- the region */

/* One allocation for the slots, their warps, their shared memory and the threads. */
static inline void cn_coop_alloc(struct cn_coop_region *r, size_t shared_bytes)
{
    unsigned S = r->nslots, W = r->T / CN_COOP_WARP;
    size_t sh = (shared_bytes + CN_COOP_ALIGN - 1) / CN_COOP_ALIGN * CN_COOP_ALIGN;
    r->slots = (struct cn_coop_slot *)calloc(S, sizeof *r->slots);
    r->threads = (struct cn_coop_thread *)calloc((size_t)S * r->T, sizeof *r->threads);
    if (!r->slots || !r->threads)
        cn_coop_die("out of memory for its threads", NULL);
    for (unsigned s = 0; s < S; s++) {
        struct cn_coop_slot *sl = &r->slots[s];
        sl->r = r;
        sl->warp_bar = (struct cn_coop_barrier *)calloc(W, sizeof *sl->warp_bar);
        sl->xchg = (uint64_t(*)[2][CN_COOP_WARP])calloc(W, sizeof *sl->xchg);
        sl->shared = sh ? (unsigned char *)aligned_alloc(CN_COOP_ALIGN, sh) : NULL;
        if (!sl->warp_bar || !sl->xchg || (sh && !sl->shared))
            cn_coop_die("out of memory for a block's shared memory", NULL);
        cn_coop_barrier_init(&sl->bar, r->T);
        for (unsigned w = 0; w < W; w++)
            cn_coop_barrier_init(&sl->warp_bar[w], CN_COOP_WARP);
    }
}

static inline void cn_coop_free(struct cn_coop_region *r)
{
    for (unsigned s = 0; s < r->nslots; s++) {
        struct cn_coop_slot *sl = &r->slots[s];
        cn_coop_barrier_destroy(&sl->bar);
        for (unsigned w = 0; w < r->T / CN_COOP_WARP; w++)
            cn_coop_barrier_destroy(&sl->warp_bar[w]);
        free(sl->warp_bar);
        free(sl->xchg);
        free(sl->shared);
    }
    free(r->slots);
    free(r->threads);
}

/* Start every team's threads, then join them all. */
static inline void cn_coop_start_and_join(struct cn_coop_region *r)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, CN_COOP_STACK + CN_COOP_STACK_TLS);
    size_t n = (size_t)r->nslots * r->T;
    for (size_t i = 0; i < n; i++) {
        struct cn_coop_thread *th = &r->threads[i];
        th->slot = &r->slots[i / r->T];
        th->index = (unsigned)(i % r->T);
        int err = pthread_create(&th->tid, &attr, cn_coop_thread_main, th);
        if (err)
            cn_coop_die("cannot start a thread: ", strerror(err));
    }
    pthread_attr_destroy(&attr);
    for (size_t i = 0; i < n; i++)
        pthread_join(r->threads[i].tid, NULL);
}

/* Run G blocks of T threads, then the finish once; false when a thread
 * trapped (or hooks->stop ended the region). hooks: NULL on the host. */
static inline bool cn_coop_run_hooked(size_t G, unsigned T, const struct cn_coop_layout *body_layout,
                                      cn_coop_body_fn body, const struct cn_coop_layout *finish_layout,
                                      cn_coop_body_fn finish, void *ctx, const struct cn_coop_hooks *hooks)
{
    if (T < CN_COOP_WARP || T > 1024 || T % CN_COOP_WARP)
        cn_coop_die("a block's threads must be a whole number of warps from 32 to 1024", " (a compiler bug)");
    cn_coop_check_layout(body_layout);
    cn_coop_check_layout(finish_layout);
    if (G == 0 && !finish)
        return true;
    /* On the heap: zeroed without memset on its atomics (C++ warns of that). */
    struct cn_coop_region *r = (struct cn_coop_region *)calloc(1, sizeof *r);
    if (!r)
        cn_coop_die("out of memory for its threads", NULL);
    r->hooks = hooks;
    r->G = G;
    r->T = T;
    r->body_layout = body_layout;
    r->finish_layout = finish_layout;
    r->body = body;
    r->finish = finish;
    r->ctx = ctx;
    r->nslots = G < CN_COOP_SLOTS ? (G ? (unsigned)G : 1) : CN_COOP_SLOTS;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    r->spin_ns = cpus > 0 && (unsigned long)r->nslots * T <= (unsigned long)cpus ? (uint64_t)CN_POOL_SPIN_US * 1000u : 0;
    cn_atomic_store(&r->next_block, 0, relaxed);
    cn_atomic_store(&r->slots_left, r->nslots, relaxed);
    cn_atomic_store(&r->cancelled, 0, relaxed);
    size_t bytes = body_layout ? body_layout->bytes : 0;
    if (finish_layout && finish_layout->bytes > bytes)
        bytes = finish_layout->bytes;
    cn_coop_alloc(r, bytes);
    cn_coop_start_and_join(r);
    bool ok = !cn_atomic_load(&r->cancelled, acquire);
    cn_coop_free(r);
    free(r);
    return ok;
}

/* Run G blocks of T threads, then the finish once; false when a thread trapped. */
static inline bool cn_coop_run(size_t G, unsigned T, const struct cn_coop_layout *body_layout,
                               cn_coop_body_fn body, const struct cn_coop_layout *finish_layout,
                               cn_coop_body_fn finish, void *ctx)
{
    return cn_coop_run_hooked(G, T, body_layout, body, finish_layout, finish, ctx, NULL);
}

/* ------------------------------------------------------------ barrier */

/* `barrier;`: every thread of the block waits for the others. */
static inline void cn_coop_barrier(struct cn_coop_thread *th)
{
    cn_coop_arrive(&th->slot->bar, th, false, NULL);
}

/* p.fill(x, start, count), this thread's share, after its guards
 * (cn_fill_check): stage elements index, index + T, ..., each
 * x[start + e] or 0 past count. The copy is made now;
 * p.wait() is a barrier (emit_coop.c), after which every thread sees every
 * share. A read the stage checker let through too early would race with a
 * share here, which the thread sanitizer reports. */
static inline void cn_coop_fill(struct cn_coop_thread *th, void *stage, const void *src, size_t start, size_t count,
                                size_t n, size_t esz)
{
    unsigned T = th->slot->r->T;
    for (size_t e = th->index; e < n; e += T) {
        if (e < count)
            memcpy((char *)stage + e * esz, (const char *)src + (start + e) * esz, esz);
        else
            memset((char *)stage + e * esz, 0, esz);
    }
}

/* p.fill_rows(x, start, stride, rows, cols, pitch, pad) on host threads,
 * after its guards (cn_fill_rows_check): stage element e = r * pitch + c
 * is x[start + r * stride + c] for r < rows and c < cols, else pad (esz
 * bytes at pad); this thread's share is e = index, index + T, ... */
/* A swizzle's offset (src/layout.c's, the layout Swizzle<B, M, S>): the B
 * bits from bit M + S XORed into the B bits from bit M, swz packing
 * B | M << 8 | S << 16 (0: none). With S >= B it is its own inverse.
 * cairn_coopdev.h's cn_coopd_swizzle is the device's. */
static inline size_t cn_coop_swizzle(size_t o, unsigned swz)
{
    size_t mask = (((size_t)1 << (swz & 255)) - 1) << (swz >> 8 & 255);
    return o ^ ((o >> (swz >> 16)) & mask);
}

static inline void cn_coop_fill_rows(struct cn_coop_thread *th, void *stage, const void *src, size_t start,
                                     size_t stride, size_t rows, size_t cols, size_t pitch, unsigned swz, size_t n,
                                     size_t esz, const void *pad)
{
    unsigned T = th->slot->r->T;
    for (size_t e = th->index; e < n; e += T) {
        size_t u = cn_coop_swizzle(e, swz); /* the element that lands at e: the swizzle is its own inverse */
        size_t r = pitch ? u / pitch : rows, c = pitch ? u % pitch : 0;
        if (r < rows && c < cols)
            memcpy((char *)stage + e * esz, (const char *)src + (start + r * stride + c) * esz, esz);
        else
            memcpy((char *)stage + e * esz, pad, esz);
    }
}

/* The jmp_buf a trapped thread may longjmp to (see "Traps"). */
static inline jmp_buf *cn_coop_trap_exit(struct cn_coop_thread *th) { return &th->exit; }

/* End the region from this thread: it and every other thread leave. */
__attribute__((noreturn)) static inline void cn_coop_trap(struct cn_coop_thread *th) { cn_coop_leave(th); }

/* ------------------------------------------------------------- warps */

static inline unsigned cn_coop_lane(const struct cn_coop_thread *th) { return th->index % CN_COOP_WARP; }

/* The warp's rendezvous: this lane's v in, the row of all 32 out. */
static inline const uint64_t *cn_coop_exchange(struct cn_coop_thread *th, uint64_t v)
{
    unsigned w = th->index / CN_COOP_WARP;
    uint64_t *row = th->slot->xchg[w][th->row];
    th->row ^= 1;
    row[cn_coop_lane(th)] = v;
    cn_coop_arrive(&th->slot->warp_bar[w], th, false, NULL);
    return row;
}

/* Lane j's value, or this lane's own when j is no lane (j >= 32). */
static inline uint64_t cn_coop_from(struct cn_coop_thread *th, uint64_t v, uint64_t j)
{
    const uint64_t *row = cn_coop_exchange(th, v);
    return j < CN_COOP_WARP ? row[j] : v;
}

static inline uint64_t cn_coop_shfl_u64(struct cn_coop_thread *th, uint64_t v, uint32_t lane)
{
    return cn_coop_from(th, v, lane % CN_COOP_WARP);
}
static inline uint64_t cn_coop_shfl_xor_u64(struct cn_coop_thread *th, uint64_t v, uint32_t mask)
{
    return cn_coop_from(th, v, cn_coop_lane(th) ^ mask);
}
static inline uint64_t cn_coop_shfl_down_u64(struct cn_coop_thread *th, uint64_t v, uint32_t delta)
{
    return cn_coop_from(th, v, (uint64_t)cn_coop_lane(th) + delta);
}
static inline uint64_t cn_coop_shfl_up_u64(struct cn_coop_thread *th, uint64_t v, uint32_t delta)
{
    unsigned l = cn_coop_lane(th);
    return cn_coop_from(th, v, delta <= l ? l - delta : CN_COOP_WARP);
}
static inline uint32_t cn_coop_shfl_u32(struct cn_coop_thread *th, uint32_t v, uint32_t lane)
{
    return (uint32_t)cn_coop_shfl_u64(th, v, lane);
}
static inline uint32_t cn_coop_shfl_xor_u32(struct cn_coop_thread *th, uint32_t v, uint32_t mask)
{
    return (uint32_t)cn_coop_shfl_xor_u64(th, v, mask);
}
static inline uint32_t cn_coop_shfl_down_u32(struct cn_coop_thread *th, uint32_t v, uint32_t delta)
{
    return (uint32_t)cn_coop_shfl_down_u64(th, v, delta);
}
static inline uint32_t cn_coop_shfl_up_u32(struct cn_coop_thread *th, uint32_t v, uint32_t delta)
{
    return (uint32_t)cn_coop_shfl_up_u64(th, v, delta);
}

/* Bit l: lane l's c. The same in every lane. */
static inline uint32_t cn_coop_ballot(struct cn_coop_thread *th, bool c)
{
    const uint64_t *row = cn_coop_exchange(th, c ? 1 : 0);
    uint32_t bits = 0;
    for (unsigned l = 0; l < CN_COOP_WARP; l++)
        bits |= (uint32_t)(row[l] != 0) << l;
    return bits;
}
static inline bool cn_coop_any(struct cn_coop_thread *th, bool c) { return cn_coop_ballot(th, c) != 0; }
static inline bool cn_coop_all(struct cn_coop_thread *th, bool c) { return cn_coop_ballot(th, c) == 0xFFFFFFFFu; }

/* The lanes whose v has this lane's bits (this lane included). */
static inline uint32_t cn_coop_match_u64(struct cn_coop_thread *th, uint64_t v)
{
    const uint64_t *row = cn_coop_exchange(th, v);
    uint32_t bits = 0;
    for (unsigned l = 0; l < CN_COOP_WARP; l++)
        bits |= (uint32_t)(row[l] == v) << l;
    return bits;
}
static inline uint32_t cn_coop_match_u32(struct cn_coop_thread *th, uint32_t v)
{
    return cn_coop_match_u64(th, v);
}

/* `reduce OP warp yield v`: the butterfly's tree (see "The butterfly"). Step
 * m pairs lane l (bit m clear) with l | m; with the lanes' values kept in
 * place, the pair's result lands in the lower lane, and the next step reads it
 * there. After the last step lane 0 holds what every lane would. */
static inline uint64_t cn_coop_reduce_u64(struct cn_coop_thread *th, uint64_t v, cn_coop_op64_fn op)
{
    const uint64_t *row = cn_coop_exchange(th, v);
    uint64_t x[CN_COOP_WARP];
    memcpy(x, row, sizeof x);
    for (unsigned m = CN_COOP_WARP / 2; m >= 1; m /= 2)
        for (unsigned l = 0; l < m; l++)
            x[l] = op(x[l], x[l | m]);
    return x[0];
}
static inline uint32_t cn_coop_reduce_u32(struct cn_coop_thread *th, uint32_t v, cn_coop_op32_fn op)
{
    const uint64_t *row = cn_coop_exchange(th, v);
    uint32_t x[CN_COOP_WARP];
    for (unsigned l = 0; l < CN_COOP_WARP; l++)
        x[l] = (uint32_t)row[l];
    for (unsigned m = CN_COOP_WARP / 2; m >= 1; m /= 2)
        for (unsigned l = 0; l < m; l++)
            x[l] = op(x[l], x[l | m]);
    return x[0];
}

/* A float's bits and back, for the warp operations (the emitted code moves
 * floats through the u32 and u64 exchanges by their bits). */
static inline uint32_t cn_coop_bits_f32(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}
static inline uint64_t cn_coop_bits_f64(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}
static inline float cn_coop_from_bits_f32(uint32_t b)
{
    float v;
    memcpy(&v, &b, sizeof v);
    return v;
}
static inline double cn_coop_from_bits_f64(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

#endif /* CAIRN_COOP_H */
