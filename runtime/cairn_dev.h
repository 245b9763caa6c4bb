/*
 * cairn_dev.h: the device seam. Everything the runtime asks of a GPU goes
 * through the few calls below, and three machines implement them:
 *
 *   the CUDA machine       the CUDA runtime (nvcc compiles the program);
 *   the emulated machine   CAIRN_EMULATE: device memory is host memory of
 *                          exactly the size asked for, lanes run on the host
 *                          lane pool (cairn_pool.h), and every queued
 *                          operation runs to completion when it is queued;
 *   the counting machine   CAIRN_COUNT: the emulated machine, counting every
 *                          call, tracking what each stream has queued that no
 *                          wait has covered, and refusing a copy to or from
 *                          host memory on a stream with such work (the bug the
 *                          one-wait rule must never make: "a copy inside an
 *                          open run").
 *
 * Header-only, the common subset of C17 and C++17 (nvcc compiles it as C++),
 * every function static inline but the cold failure paths.
 *
 * Choosing the machine
 * --------------------
 * At compile time, once per program, never at run time: an emitted program
 * is built for one machine and the seam's calls inline to that machine's
 * code, so the CUDA build carries no emulator and no indirect call.
 *
 *   -DCAIRN_COUNT            counting machine (implies CAIRN_EMULATE)
 *   -DCAIRN_EMULATE          emulated machine (any host compiler, or nvcc)
 *   neither, under nvcc      CUDA machine (__CUDACC__)
 *   neither, no nvcc         #error: device work needs one of the three
 *
 * The seam's calls
 * ----------------
 *   cn_dev_stream_create(s) / _adopt(s, raw) / _destroy(s)
 *                               a stream is a host struct the caller owns
 *                               (struct cn_dev_stream) that wraps the CUDA
 *                               stream; adopt wraps a caller's stream (a cq_
 *                               entry's, or one bound by cairn_NAME_device_
 *                               stream) and never destroys it
 *   cn_dev_event_create(e) / _destroy(e) / _record(e, s)
 *   cn_dev_stream_wait_event(s, e)   device-side order: no host wait
 *   cn_dev_stream_synchronize(s)     THE wait. The only call that blocks the
 *                                    host on the device, and the place a
 *                                    trapped lane surfaces: the process aborts
 *                                    there with the guard's message
 *   cn_dev_malloc(n) / cn_dev_free(p)
 *   cn_dev_malloc_mem(kind, n) / cn_dev_free_mem(kind, p)
 *                                    device, pinned or unified memory
 *   cn_dev_copy(s, dir, dst, src, n) async on s; dir is CN_DEV_H2D, _D2H, _D2D
 *   cn_dev_copy_behind(s, dst, src, n)  device to host, queued behind s's
 *                                    unwaited work on purpose: the caller
 *                                    waits on s next and reads dst after
 *   cn_dev_memset(s, dst, byte, n)   async on s
 *   cn_dev_launch(s, k, n, args)     run kernel k's lane over [0, n) on s
 *   cn_dev_count_snapshot()          the counting machine's counters
 *   cn_coop_launch(s, k, grid, args) a cooperative region's launch, with its
 *                                    block names and finish (cairn_coopdev.h)
 *   cn_dev_current() / cn_dev_select(d)   the calling thread's current device,
 *                                    and making d current (cudaGetDevice and
 *                                    cudaSetDevice; the emulated machine keeps
 *                                    its own, over cn_dev_emu_devices(n) devices)
 *
 * There is no device-wide synchronisation in the seam at all, so nothing can
 * wait on work that is not its own stream's.
 *
 * Kernels
 * -------
 * The emitted program writes each region's lane once, as a function of its
 * argument struct and one index, and names it with CN_DEV_KERNEL:
 *
 *   struct r1 { float a; const float *x; float *y; size_t n; };
 *   CN_DEV_LANE void r1_lane(const struct r1 *c, size_t i) {
 *       if (i >= c->n) cn_dev_trap_bounds("f.cairn", 3, 9, (long long)i, c->n, "y");
 *       c->y[i] = c->a * c->x[i];
 *   }
 *   CN_DEV_KERNEL(r1_k, struct r1, r1_lane, 256)
 *   ...  struct r1 args = {a, x, y, n};  cn_dev_launch(s, &r1_k, n, &args);
 *
 * (The descriptor's name must differ from the struct's tag: in C++ a
 * variable of the tag's name hides the type.)
 *
 * Under CUDA the macro writes a __global__ kernel that takes the struct by
 * value and runs the lane in a grid-stride loop, a host launcher next to it
 * (`r1_k_kernel<<<blocks, threads, 0, stream>>>(*(const struct r1 *)args, n)`)
 * and a descriptor holding the launcher's address. cn_dev_launch computes the
 * grid and calls the launcher through that pointer: the one place C reaches
 * the triple-chevron syntax, generated next to the kernel it launches. Under
 * emulation it writes a host function that runs the lanes of one block of
 * the pool's partition, and the descriptor holds that.
 *
 * A trapped lane
 * --------------
 * A guard that fails in a lane calls cn_dev_trap (or cn_dev_trap_bounds),
 * which never returns:
 *
 *   CUDA: the lane printf()s `FILE:LINE:COL: guard failed: MESSAGE` from the
 *   device and executes __trap(). The kernel ends, the context is poisoned
 *   and every later CUDA call fails, so the host cannot copy a mailbox back:
 *   the device's printf is the message. The next cudaStreamSynchronize
 *   returns the error (the CUDA runtime prints the device's printf buffer at
 *   synchronization points; not yet checked on a GPU for a trapped kernel),
 *   and the seam aborts naming the error and the kernels queued on that
 *   stream since its last wait. Any other failing CUDA call aborts the same
 *   way (a failed enqueue or a lost device traps).
 *
 *   Emulated: the first failing lane of each stream records its message in
 *   the stream, and the first of the process poisons the machine (as __trap
 *   poisons the context): the failing lane's block ends (a longjmp back to
 *   the launch's trampoline), the other lanes stop at their next index, and
 *   every launch, copy and memset queued after it is skipped. The next
 *   synchronize on that stream prints the message exactly as a host guard
 *   would, says which kernel trapped, and aborts (SIGABRT), as the device
 *   would. A synchronize on another stream aborts too, naming the trap.
 *   The longjmp crosses only the lane's own frames, which the emitted code
 *   keeps free of C++ destructors.
 *
 * The seam's only mutable global state is the emulated machine's poison
 * record and the counting machine's counters, both weak so every translation
 * unit of a program shares them.
 */
#ifndef CAIRN_DEV_H
#define CAIRN_DEV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/* ------------------------------------------------------ which machine */

#if defined(CAIRN_COUNT) && !defined(CAIRN_EMULATE)
#define CAIRN_EMULATE 1
#endif
#if defined(CAIRN_EMULATE)
#define CN_DEV_EMULATED 1
#define CN_DEV_CUDA 0
#if defined(CAIRN_COUNT)
#define CN_DEV_COUNTING 1
#define CN_DEV_MACHINE "counting"
#else
#define CN_DEV_COUNTING 0
#define CN_DEV_MACHINE "emulated"
#endif
#elif defined(__CUDACC__)
#define CN_DEV_EMULATED 0
#define CN_DEV_COUNTING 0
#define CN_DEV_CUDA 1
#define CN_DEV_MACHINE "cuda"
#else
#error "cairn_dev.h: device work needs nvcc, -DCAIRN_EMULATE or -DCAIRN_COUNT"
#endif

#if CN_DEV_CUDA
#include <cuda_runtime.h>
#else
#include <setjmp.h>
#include "cairn_pool.h"
#endif

#ifndef CN_THREAD_LOCAL
#ifdef __cplusplus
#define CN_THREAD_LOCAL thread_local
#else
#define CN_THREAD_LOCAL _Thread_local
#endif
#endif

/* ------------------------------------------------------------ limits */

/* Kernel names a stream remembers since its last wait, for the abort
 * message: the CUDA machine cannot tell which of them trapped, and the
 * last few are what a person needs. */
#define CN_DEV_KERNEL_LOG 4
/* A trapped lane's message, as the host guard prints it. Longer ones are
 * cut: the file, line and column come first. */
#define CN_DEV_TRAP_TEXT 512
/* Blocks of one launch: a grid-stride loop covers any n, so a region's grid
 * stops at the threads the device holds at once (every multiprocessor
 * full). A launch is never more than this many blocks, whatever the device. */
#define CN_DEV_MAX_BLOCKS (1u << 20)
/* Devices the runtime keeps an execution context for, per thread. */
#define CN_DEV_MAX_DEVICES 16
/* Kernels whose full grid a stream remembers (cn_dev_grid). */
#define CN_DEV_GRIDS 8

/* ------------------------------------------------------------- types */

enum cn_dev_dir { CN_DEV_H2D, CN_DEV_D2H, CN_DEV_D2D };

/* What a buffer's placement asks of the runtime: device memory, pinned
 * (page-locked) host memory, or unified (managed) memory both sides see. */
enum cn_dev_mem { CN_DEV_MEM_DEVICE, CN_DEV_MEM_PINNED, CN_DEV_MEM_UNIFIED };

static inline const char *cn_dev_mem_name(enum cn_dev_mem k)
{
    return k == CN_DEV_MEM_PINNED ? "pinned" : k == CN_DEV_MEM_UNIFIED ? "unified" : "device";
}

/* A stream: a host struct its owner embeds (the execution context does), so
 * a stream costs no host allocation. */
struct cn_dev_stream {
#if CN_DEV_CUDA
    cudaStream_t cu;
#else
    int trapped;                      /* 0, or 1 once a lane on it trapped (atomic) */
    const char *trap_kernel;
    char trap_text[CN_DEV_TRAP_TEXT]; /* written by the lane that set `trapped` */
#endif
    bool made;                        /* created here (destroy releases it) */
    bool adopted;                     /* a caller's stream: never destroyed here */
    int device;                       /* the device current when it was made (cn_dev_current) */
    unsigned sms;                     /* CUDA: the device's multiprocessors, 0 until asked */
    const void *grid_of[CN_DEV_GRIDS]; /* CUDA: the last kernels launched here (a ring) ... */
    unsigned grid[CN_DEV_GRIDS];       /* ... and the blocks of each the device holds at once */
    unsigned grid_next;
    unsigned long unwaited;           /* operations queued since its last wait */
    unsigned long waits;              /* synchronizes on it, ever */
    unsigned long nkernels;           /* launches since its last wait */
    const char *kernels[CN_DEV_KERNEL_LOG]; /* the last of them, a ring */
};

struct cn_dev_event {
#if CN_DEV_CUDA
    cudaEvent_t cu;
#else
    unsigned long records;
#endif
    bool made;
};

/* What the counting machine counts: every call of the seam. `waits` is
 * stream synchronizes; `hidden_waits` counts frees made while some stream
 * held unwaited work (cudaFree waits for the whole device there). */
struct cn_dev_counts {
    unsigned long stream_create, stream_destroy, event_create, event_destroy;
    unsigned long event_record, stream_wait_event, waits, hidden_waits;
    unsigned long malloc, malloc_bytes, free;
    unsigned long copy_h2d, copy_d2h, copy_d2d, memset, launch;
    unsigned long open_streams; /* streams now holding unwaited work (a level, not a count) */
};

/* ------------------------------------------------- the failure paths */

#define CN_DEV_COLD __attribute__((cold, noinline, noreturn, unused))

CN_DEV_COLD static void cn_dev_die(const char *what, const char *detail)
{
    fflush(stdout);
    fprintf(stderr, "cairn: device (%s machine): %s%s\n", CN_DEV_MACHINE, what, detail ? detail : "");
    fflush(stderr);
    abort();
}

/* "kernels since its last wait: A; B; C (and 3 earlier)" for the abort message,
 * each named by its source construct (the emitter's NAME_what). */
static inline void cn_dev_describe_queue(const struct cn_dev_stream *s, char *buf, size_t size)
{
    size_t o = 0;
    unsigned long shown = s->nkernels < CN_DEV_KERNEL_LOG ? s->nkernels : CN_DEV_KERNEL_LOG;
    buf[0] = 0;
    if (!s->nkernels) {
        snprintf(buf, size, "no kernel since its last wait");
        return;
    }
    o += (size_t)snprintf(buf + o, size - o, "kernels since its last wait:");
    for (unsigned long k = s->nkernels - shown; k < s->nkernels && o < size; k++)
        o += (size_t)snprintf(buf + o, size - o, "%s %s", k == s->nkernels - shown ? "" : ";",
                              s->kernels[k % CN_DEV_KERNEL_LOG]);
    if (s->nkernels > shown && o < size)
        snprintf(buf + o, size - o, " (and %lu earlier)", s->nkernels - shown);
}

static inline void cn_dev_log_kernel(struct cn_dev_stream *s, const char *name)
{
    s->kernels[s->nkernels % CN_DEV_KERNEL_LOG] = name;
    s->nkernels++;
}

/* ============================================================ counting */

#if CN_DEV_COUNTING
__attribute__((weak)) struct cn_dev_counts cn_dev_count_global;
#define CN_DEV_COUNT(field, v) __atomic_fetch_add(&cn_dev_count_global.field, (unsigned long)(v), __ATOMIC_RELAXED)

/* A snapshot of the counters (each read atomically). */
static inline struct cn_dev_counts cn_dev_count_snapshot(void)
{
    struct cn_dev_counts c;
    unsigned long *dst = (unsigned long *)&c;
    unsigned long *src = (unsigned long *)&cn_dev_count_global;
    for (size_t k = 0; k < sizeof c / sizeof(unsigned long); k++)
        dst[k] = __atomic_load_n(&src[k], __ATOMIC_RELAXED);
    return c;
}
#else
#define CN_DEV_COUNT(field, v) ((void)0)
#endif

/* Work queued on s that no wait has covered yet. */
static inline void cn_dev_queued(struct cn_dev_stream *s)
{
#if CN_DEV_COUNTING
    if (s->unwaited == 0)
        CN_DEV_COUNT(open_streams, 1);
#endif
    s->unwaited++;
}

/* The counting machine's one refusal: a copy to or from host memory queued
 * behind work no wait has covered. The one-wait rule waits before every
 * such copy, so this is a bug in the lowering (or a hand-made call). */
static inline void cn_dev_check_host_copy(const struct cn_dev_stream *s, enum cn_dev_dir dir)
{
#if CN_DEV_COUNTING
    if (dir != CN_DEV_D2D && s->unwaited) {
        char msg[160];
        snprintf(msg, sizeof msg, "a copy inside an open run: a copy %s host memory queued behind %lu "
                                  "operation(s) that no wait has covered",
                 dir == CN_DEV_D2H ? "to" : "from", s->unwaited);
        cn_dev_die(msg, NULL);
    }
#else
    (void)s;
    (void)dir;
#endif
}

/* ======================================================= the CUDA machine */

#if CN_DEV_CUDA

struct cn_dev_kernel {
    const char *name;
    unsigned threads; /* per block: the kernel's __launch_bounds__ */
    bool exact;       /* a collector's pass: one block per part, never capped */
    void (*launch)(cudaStream_t s, unsigned blocks, unsigned threads, const void *args, size_t n);
    int (*per_sm)(unsigned threads); /* blocks one multiprocessor holds at once; NULL when exact */
    unsigned group;                  /* a wide kernel's lanes a thread (below); 0 otherwise */
};

/* Lanes are device code; helpers both sides call are CN_DEV_BOTH. */
#define CN_DEV_LANE static __device__ inline
#define CN_DEV_BOTH static __host__ __device__ inline

/* A grid-stride kernel's host side: the launcher (the one triple-chevron
 * launch), the blocks of it one multiprocessor holds, and its descriptor. */
#define CN_DEV_KERNEL_HOST(NAME, ARGS, THREADS) CN_DEV_KERNEL_HOST_G(NAME, ARGS, THREADS, 0)
#define CN_DEV_KERNEL_HOST_G(NAME, ARGS, THREADS, GROUP)                                     \
    static void NAME##_launch(cudaStream_t s, unsigned blocks, unsigned threads,             \
                              const void *args, size_t n)                                    \
    {                                                                                        \
        NAME##_kernel<<<blocks, threads, 0, s>>>(*(const ARGS *)args, n);                    \
    }                                                                                        \
    static int NAME##_per_sm(unsigned threads)                                               \
    {                                                                                        \
        int b = 0;                                                                           \
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, NAME##_kernel, (int)threads, 0) \
                       == cudaSuccess ? b : 0;                                               \
    }                                                                                        \
    static const struct cn_dev_kernel NAME = {NAME##_what, THREADS, false, NAME##_launch, NAME##_per_sm, GROUP};

/* GROUP 0: the one full wave of blocks (cn_dev_grid); 1: a block for each
 * THREADS lanes, for lanes whose accesses are 16 bytes wide (cn_dev_launch
 * says why: CN_DEV_KERNEL_ONESHOT). */
#define CN_DEV_KERNEL_G(NAME, ARGS, LANE, THREADS, GROUP)                                    \
    static __global__ void __launch_bounds__(THREADS) NAME##_kernel(ARGS a, size_t n)       \
    {                                                                                        \
        size_t step = (size_t)gridDim.x * blockDim.x;                                        \
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)     \
            LANE(&a, i);                                                                     \
    }                                                                                        \
    CN_DEV_KERNEL_HOST_G(NAME, ARGS, THREADS, GROUP)
#define CN_DEV_KERNEL(NAME, ARGS, LANE, THREADS) CN_DEV_KERNEL_G(NAME, ARGS, LANE, THREADS, 0)
#define CN_DEV_KERNEL_ONESHOT(NAME, ARGS, LANE, THREADS) CN_DEV_KERNEL_G(NAME, ARGS, LANE, THREADS, 1)

/* A region whose lanes read ro views at their own index (x[i], with x a
 * parameter no lane may write: E-ALIAS) is emitted in two parts: LOAD reads
 * those elements into a PRE, LANE is the body with them in hand. The kernel
 * runs UNROLL lanes a thread at a time and reads all their PREs before it
 * runs any body, so UNROLL loads are in flight where one lane has one; a
 * body's branches (a math function's second try) no longer keep the next
 * load waiting. For a memory-bound map of portable exp that took the time
 * from 1.09x CUDA's expf to 0.87x (evidence/2026-12-02-math-occupancy.md).
 * The loop is also pipelined: the next UNROLL PREs are read before this
 * group's bodies run, so a thread's loads wait while its arithmetic runs
 * instead of after it (a map of portable tanh, 1.20x CUDA's tanhf to 1.15x;
 * exp 0.86x to 0.82x: evidence/2026-12-02-math-host-fma.md). The same lanes
 * run, each once, with the same index: only the loads move, and a load of a
 * later lane never sees a body's write (the E-ALIAS rule above). */
#define CN_DEV_KERNEL_PRE(NAME, ARGS, PRE, LOAD, LANE, THREADS, UNROLL)                      \
    static __global__ void __launch_bounds__(THREADS) NAME##_kernel(ARGS a, size_t n)       \
    {                                                                                        \
        size_t step = (size_t)gridDim.x * blockDim.x;                                        \
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;                            \
        if (i < n && n - i > (UNROLL - 1) * step) {                                          \
            PRE p[UNROLL];                                                                   \
            _Pragma("unroll") for (int u = 0; u < UNROLL; u++) LOAD(&a, i + u * step, &p[u]); \
            for (;;) {                                                                       \
                size_t nx = i + UNROLL * step;                                               \
                bool more = nx < n && n - nx > (UNROLL - 1) * step;                          \
                PRE q[UNROLL];                                                               \
                if (more)                                                                    \
                    _Pragma("unroll") for (int u = 0; u < UNROLL; u++) LOAD(&a, nx + u * step, &q[u]); \
                _Pragma("unroll") for (int u = 0; u < UNROLL; u++) LANE(&a, i + u * step, &p[u]); \
                i = nx;                                                                      \
                if (!more)                                                                   \
                    break;                                                                   \
                _Pragma("unroll") for (int u = 0; u < UNROLL; u++) p[u] = q[u];              \
            }                                                                                \
        }                                                                                    \
        for (; i < n; i += step) {                                                           \
            PRE p;                                                                           \
            LOAD(&a, i, &p);                                                                 \
            LANE(&a, i, &p);                                                                 \
        }                                                                                    \
    }                                                                                        \
    CN_DEV_KERNEL_HOST(NAME, ARGS, THREADS)

/* Wide lanes (the emitter's analysis, "Wide lanes"): K consecutive lanes
 * i0 .. i0+K-1 a thread, i0 a multiple of K. LOADW reads their preloads, one
 * access of K elements a view (cn_dev_move_wide); the bodies run in order,
 * each storing what it writes to out[i] into its POST; STOREW writes the K
 * posts of each view in one access. ALIGNED says whether every such view's
 * pointer sits on its access's alignment: where one does not (a view the
 * caller offset), and for the last n mod K lanes, the lanes run one at a
 * time (LANE with no POST stores in place). As in CN_DEV_KERNEL_PRE, the
 * next group's loads are issued before this group's bodies run. Each lane
 * runs once with its own index: only the width of the accesses changes.
 * GRID: K for a grid of a block for each THREADS groups, 0 for the one full
 * wave (the emitter's wide_grid says which). */
#define CN_DEV_KERNEL_WIDE(NAME, ARGS, PRE, POST, LOAD, LOADW, LANE, STOREW, ALIGNED, THREADS, K, GRID) \
    static __global__ void __launch_bounds__(THREADS) NAME##_kernel(ARGS a, size_t n)       \
    {                                                                                        \
        size_t step = (size_t)gridDim.x * blockDim.x;                                        \
        size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;                            \
        size_t done = 0;                                                                     \
        bool wide = false;                                                                   \
        ALIGNED(&a, 0, &wide);                                                               \
        if (wide) {                                                                          \
            size_t groups = n / (K);                                                         \
            if (t < groups) {                                                                \
                PRE p[K];                                                                    \
                LOADW(&a, t * (K), p);                                                       \
                for (;;) {                                                                   \
                    size_t nx = t + step;                                                    \
                    bool more = nx < groups;                                                 \
                    PRE q[K];                                                                \
                    if (more)                                                                \
                        LOADW(&a, nx * (K), q);                                              \
                    POST o[K];                                                               \
                    _Pragma("unroll") for (int u = 0; u < (K); u++) LANE(&a, t * (K) + u, &p[u], &o[u]); \
                    STOREW(&a, t * (K), o);                                                  \
                    t = nx;                                                                  \
                    if (!more)                                                               \
                        break;                                                               \
                    _Pragma("unroll") for (int u = 0; u < (K); u++) p[u] = q[u];             \
                }                                                                            \
            }                                                                                \
            done = groups * (K);                                                             \
        }                                                                                    \
        for (size_t i = done + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) { \
            PRE p;                                                                           \
            LOAD(&a, i, &p);                                                                 \
            LANE(&a, i, &p, (POST *)0);                                                      \
        }                                                                                    \
    }                                                                                        \
    CN_DEV_KERNEL_HOST_G(NAME, ARGS, THREADS, GRID)

/* BYTES from src to dst in accesses of PIECE bytes (16, 8, 4, 2 or 1, a
 * divisor of BYTES; both ends aligned to it): a wide lane's loads and
 * stores. With constant arguments it is PIECE-wide loads and stores. */
static __device__ __forceinline__ void cn_dev_move_wide(void *dst, const void *src, size_t bytes, size_t piece)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
#pragma unroll
    for (size_t o = 0; o < bytes; o += piece) {
        switch (piece) {
        case 16: *(uint4 *)(d + o) = *(const uint4 *)(s + o); break;
        case 8: *(uint2 *)(d + o) = *(const uint2 *)(s + o); break;
        case 4: *(unsigned *)(d + o) = *(const unsigned *)(s + o); break;
        case 2: *(unsigned short *)(d + o) = *(const unsigned short *)(s + o); break;
        default: d[o] = s[o]; break;
        }
    }
}

/* A failed guard in a lane: print from the device, then trap. Every failing
 * lane prints (one may trap before another's print is out, so none waits for
 * a chosen one); the host's abort message names the kernels. */
static __device__ __noinline__ void cn_dev_trap(const char *file, int line, int col, const char *msg)
{
    printf("%s:%d:%d: guard failed: %s\n", file, line, col, msg);
    __trap();
}

static __device__ __noinline__ void cn_dev_trap_bounds(const char *file, int line, int col, long long i,
                                                       unsigned long long n, const char *name)
{
    printf("%s:%d:%d: guard failed: index %lld out of bounds for %s of length %llu\n", file, line, col, i,
           name, n);
    __trap();
}

CN_DEV_COLD static void cn_dev_cuda_fail(cudaError_t err, const char *call, const struct cn_dev_stream *s)
{
    char queue[1024], msg[1400];
    if (s)
        cn_dev_describe_queue(s, queue, sizeof queue);
    bool trap = err == cudaErrorLaunchFailure || err == cudaErrorIllegalInstruction ||
                err == cudaErrorAssert;
    /* Every index a lane uses is checked, so a lane that reads or writes
     * outside its memory has most likely overflowed its stack: recursion past
     * the device stack (cudaLimitStackSize, 1 KiB a thread by default). The
     * host's stack check is absent from device code (cairn_rt.h). */
    bool stack = err == cudaErrorIllegalAddress;
    /* a launch that fails so was not the one that trapped: earlier work,
     * perhaps queued by an earlier cq_ call, poisoned the context */
    bool at_launch = !strcmp(call, "kernel launch");
    snprintf(msg, sizeof msg, "%s: %s (%s)%s%s%s%s", call, cudaGetErrorString(err), cudaGetErrorName(err),
             trap ? (at_launch ? "; a lane of earlier device work trapped (a failed guard, whose message the device "
                                 "printed above) and poisoned the device context, so this CAIRN call aborts"
                               : "; a lane trapped: a failed guard, whose message the device printed above")
                  : "",
             stack ? "; every index is checked, so most likely a lane's stack overflowed: recursion deeper than "
                     "the device stack (cudaLimitStackSize) holds" : "",
             s ? "; this stream had " : "", s ? queue : "");
    cn_dev_die(msg, NULL);
}

static inline void cn_dev_cuda_check(cudaError_t err, const char *call, const struct cn_dev_stream *s)
{
    if (__builtin_expect(err != cudaSuccess, 0))
        cn_dev_cuda_fail(err, call, s);
}

/* The device current in the calling thread (cudaGetDevice), and making d
 * current: the runtime keeps a context per device (cairn_exec.h). */
static inline int cn_dev_current(void)
{
    int d = 0;
    cn_dev_cuda_check(cudaGetDevice(&d), "cudaGetDevice", NULL);
    if (d < 0 || d >= CN_DEV_MAX_DEVICES)
        cn_dev_die("the current device is past the devices the runtime keeps contexts for", NULL);
    return d;
}

static inline void cn_dev_select(int d)
{
    cn_dev_cuda_check(cudaSetDevice(d), "cudaSetDevice", NULL);
}

static inline void cn_dev_stream_create(struct cn_dev_stream *s)
{
    memset(s, 0, sizeof *s);
    cn_dev_cuda_check(cudaStreamCreateWithFlags(&s->cu, cudaStreamNonBlocking), "cudaStreamCreate", NULL);
    s->made = true;
    s->device = cn_dev_current();
}

static inline void cn_dev_stream_adopt(struct cn_dev_stream *s, void *raw)
{
    memset(s, 0, sizeof *s);
    s->cu = (cudaStream_t)raw;
    s->adopted = true;
}

static inline void cn_dev_stream_destroy(struct cn_dev_stream *s)
{
    if (s->made)
        cn_dev_cuda_check(cudaStreamDestroy(s->cu), "cudaStreamDestroy", s);
    s->made = false;
}

static inline void cn_dev_event_create(struct cn_dev_event *e)
{
    cn_dev_cuda_check(cudaEventCreateWithFlags(&e->cu, cudaEventDisableTiming), "cudaEventCreate", NULL);
    e->made = true;
}

static inline void cn_dev_event_destroy(struct cn_dev_event *e)
{
    if (e->made)
        cn_dev_cuda_check(cudaEventDestroy(e->cu), "cudaEventDestroy", NULL);
    e->made = false;
}

static inline void cn_dev_event_record(struct cn_dev_event *e, struct cn_dev_stream *s)
{
    cn_dev_cuda_check(cudaEventRecord(e->cu, s->cu), "cudaEventRecord", s);
}

static inline void cn_dev_stream_wait_event(struct cn_dev_stream *s, struct cn_dev_event *e)
{
    cn_dev_cuda_check(cudaStreamWaitEvent(s->cu, e->cu, 0), "cudaStreamWaitEvent", s);
}

static inline void cn_dev_stream_synchronize(struct cn_dev_stream *s)
{
    cn_dev_cuda_check(cudaStreamSynchronize(s->cu), "cudaStreamSynchronize", s);
    s->waits++;
    s->unwaited = 0;
    s->nkernels = 0;
}

/* NULL when the device is out of memory: the caller's guard says what for.
 * The failure is not sticky, so it is cleared here, or the next launch's
 * cudaGetLastError would report it. */
static inline void *cn_dev_malloc(size_t n)
{
    void *p = NULL;
    if (n == 0)
        return NULL;
    /* whole 8-byte words: an atomic on an 8- or 16-bit element updates the
     * 32-bit word around it (cairn_atomic.h), which may pass the last
     * element (compute-sanitizer's memcheck saw it for a u8[1]); the view
     * keeps its length, so its guards are unchanged */
    if (n > SIZE_MAX - 7)
        return NULL;
    n = (n + 7) / 8 * 8;
    if (cudaMalloc(&p, n) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

static inline void cn_dev_free(void *p)
{
    if (p)
        cn_dev_cuda_check(cudaFree(p), "cudaFree", NULL);
}

/* Pinned memory is cudaMallocHost's, unified memory cudaMallocManaged's
 * (attached globally, so any stream's kernels may touch it). NULL when out
 * of memory, the failure cleared as cn_dev_malloc clears it. */
static inline void *cn_dev_malloc_mem(enum cn_dev_mem kind, size_t n)
{
    void *p = NULL;
    cudaError_t e;
    if (kind == CN_DEV_MEM_DEVICE)
        return cn_dev_malloc(n);
    if (n == 0)
        return NULL;
    /* unified memory too ends on a whole 8-byte word: a device lane's 8- or
     * 16-bit atomic updates the 32-bit word around its element (as above) */
    if (kind == CN_DEV_MEM_UNIFIED) {
        if (n > SIZE_MAX - 7)
            return NULL;
        n = (n + 7) / 8 * 8;
    }
    e = kind == CN_DEV_MEM_PINNED ? cudaMallocHost(&p, n) : cudaMallocManaged(&p, n, cudaMemAttachGlobal);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

static inline void cn_dev_free_mem(enum cn_dev_mem kind, void *p)
{
    if (!p)
        return;
    if (kind == CN_DEV_MEM_PINNED)
        cn_dev_cuda_check(cudaFreeHost(p), "cudaFreeHost", NULL);
    else
        cn_dev_free(p);
}

static inline void cn_dev_copy(struct cn_dev_stream *s, enum cn_dev_dir dir, void *dst, const void *src,
                               size_t n)
{
    static const enum cudaMemcpyKind kind[] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                                               cudaMemcpyDeviceToDevice};
    if (n == 0)
        return;
    cn_dev_cuda_check(cudaMemcpyAsync(dst, src, n, kind[dir], s->cu), "cudaMemcpyAsync", s);
    cn_dev_queued(s);
}

static inline void cn_dev_copy_behind(struct cn_dev_stream *s, void *dst, const void *src, size_t n)
{
    if (n == 0)
        return;
    cn_dev_cuda_check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s->cu), "cudaMemcpyAsync", s);
    cn_dev_queued(s);
}

static inline void cn_dev_memset(struct cn_dev_stream *s, void *dst, int byte, size_t n)
{
    if (n == 0)
        return;
    cn_dev_cuda_check(cudaMemsetAsync(dst, byte, n, s->cu), "cudaMemsetAsync", s);
    cn_dev_queued(s);
}

/* The blocks of kernel k the current device runs at once: every
 * multiprocessor full, as many blocks on each as its registers let fit. A
 * grid-stride kernel launched with more blocks only queues them behind the
 * first wave (a persistent grid measured faster for saxpy on the H200:
 * evidence/2026-11-30-device-speed.md), and one sized for more blocks an SM
 * than fit runs a second, nearly empty wave that costs as long as the first
 * (a lane of portable log at 36 registers took 1.69x CUDA's logf so, 1.1x
 * with its grid from the occupancy: evidence/2026-12-02-math-occupancy.md).
 * Asked once per stream and kernel, while it stays among the last
 * CN_DEV_GRIDS launched there. */
static inline size_t cn_dev_grid(struct cn_dev_stream *s, const struct cn_dev_kernel *k)
{
    for (unsigned i = 0; i < CN_DEV_GRIDS; i++)
        if (s->grid_of[i] == (const void *)k)
            return s->grid[i];
    int dev = 0;
    if (!s->sms) {
        int sms = 0;
        cn_dev_cuda_check(cudaGetDevice(&dev), "cudaGetDevice", s);
        cn_dev_cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute", s);
        s->sms = (unsigned)sms;
    }
    int per_sm = k->per_sm ? k->per_sm(k->threads) : 0;
    if (per_sm <= 0) { /* not known: as many as the threads allow */
        cn_dev_cuda_check(cudaGetDevice(&dev), "cudaGetDevice", s);
        cn_dev_cuda_check(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev),
                          "cudaDeviceGetAttribute", s);
        per_sm = per_sm / (int)k->threads > 0 ? per_sm / (int)k->threads : 1;
    }
    unsigned i = s->grid_next++ % CN_DEV_GRIDS;
    s->grid_of[i] = k;
    s->grid[i] = s->sms * (unsigned)per_sm;
    return s->grid[i];
}

static inline void cn_dev_launch(struct cn_dev_stream *s, const struct cn_dev_kernel *k, size_t n,
                                 const void *args)
{
    if (n == 0)
        return;
    size_t blocks = (n + k->threads - 1) / k->threads;
    if (k->group) {
        /* A wide kernel streams 16-byte accesses: a block for each 256
         * groups, not the one full wave. On the H200 the scaled copy of 2^28
         * f32 took 0.925x the device copy's bandwidth on the one wave and
         * 1.00x so (bench/dev/wide_grid.cu, evidence/2026-12-04-wide-lanes.md). */
        size_t groups = (n + k->group - 1) / k->group;
        blocks = (groups + k->threads - 1) / k->threads;
    } else {
        size_t full = k->exact ? blocks : cn_dev_grid(s, k);
        if (blocks > full)
            blocks = full ? full : 1;
    }
    if (blocks > CN_DEV_MAX_BLOCKS)
        blocks = CN_DEV_MAX_BLOCKS;
    cn_dev_log_kernel(s, k->name);
    k->launch(s->cu, (unsigned)blocks, k->threads, args, n);
    cn_dev_cuda_check(cudaGetLastError(), "kernel launch", s);
    cn_dev_queued(s);
}

/* Queued work runs on the device: a trap in it surfaces at its wait. */
static inline void cn_dev_spawned(const struct cn_dev_stream *s) { (void)s; }

/* A CAIRN entry begins. After a trap the CUDA context is poisoned, and the
 * entry's first CUDA call fails and aborts (cn_dev_cuda_fail). */
static inline void cn_dev_entry_check(void) {}

/* ================================================ the emulated machine */

#else /* CN_DEV_EMULATED */

typedef void (*cn_dev_lanes_fn)(void *args, size_t lo, size_t hi);

struct cn_dev_kernel {
    const char *name;
    unsigned threads;      /* kept for the record: the host pool ignores it */
    bool exact;            /* kept for the record */
    cn_dev_lanes_fn lanes; /* lanes [lo, hi) of one block of the pool's partition */
};

#define CN_DEV_LANE static inline
#define CN_DEV_BOTH static inline

/* The first trap of the process: the machine is poisoned from then on. */
struct cn_emu_machine {
    int poisoned; /* atomic: 0, or 1 once a lane trapped */
    const char *kernel;
    char text[CN_DEV_TRAP_TEXT];
};
__attribute__((weak)) struct cn_emu_machine cn_emu_machine_global;

static inline bool cn_emu_poisoned(void)
{
    return __atomic_load_n(&cn_emu_machine_global.poisoned, __ATOMIC_ACQUIRE) != 0;
}

#define CN_DEV_KERNEL(NAME, ARGS, LANE, THREADS)                                             \
    static void NAME##_lanes(void *args, size_t lo, size_t hi)                               \
    {                                                                                        \
        const ARGS *a = (const ARGS *)args;                                                  \
        for (size_t i = lo; i < hi && !cn_emu_poisoned(); i++)                               \
            LANE(a, i);                                                                      \
    }                                                                                        \
    static const struct cn_dev_kernel NAME = {NAME##_what, THREADS, false, NAME##_lanes};

/* The grid is the pool's: a one-shot kernel is a plain one here. */
#define CN_DEV_KERNEL_ONESHOT(NAME, ARGS, LANE, THREADS) CN_DEV_KERNEL(NAME, ARGS, LANE, THREADS)

/* CN_DEV_KERNEL_PRE (see the CUDA machine's): each lane's loads, then its body. */
#define CN_DEV_KERNEL_PRE(NAME, ARGS, PRE, LOAD, LANE, THREADS, UNROLL)                      \
    static void NAME##_lanes(void *args, size_t lo, size_t hi)                               \
    {                                                                                        \
        const ARGS *a = (const ARGS *)args;                                                  \
        for (size_t i = lo; i < hi && !cn_emu_poisoned(); i++) {                             \
            PRE p;                                                                           \
            LOAD(a, i, &p);                                                                  \
            LANE(a, i, &p);                                                                  \
        }                                                                                    \
    }                                                                                        \
    static const struct cn_dev_kernel NAME = {NAME##_what, THREADS, false, NAME##_lanes};

/* CN_DEV_KERNEL_WIDE (see the CUDA machine's): groups of K lanes from lo
 * on, each group's preloads read at once, its bodies run in order into
 * their posts, the posts written at once; the rest one lane at a time. The
 * same grouping as the device's (groups start where the pool's block does,
 * which the host's memory does not mind), so the posts are tested here. */
#define CN_DEV_KERNEL_WIDE(NAME, ARGS, PRE, POST, LOAD, LOADW, LANE, STOREW, ALIGNED, THREADS, K, GRID) \
    static void NAME##_lanes(void *args, size_t lo, size_t hi)                               \
    {                                                                                        \
        const ARGS *a = (const ARGS *)args;                                                  \
        size_t i = lo;                                                                       \
        bool wide = false;                                                                   \
        ALIGNED(a, lo, &wide);                                                               \
        if (wide)                                                                            \
            for (; hi - i >= (K) && !cn_emu_poisoned(); i += (K)) {                          \
                PRE p[K];                                                                    \
                POST o[K];                                                                   \
                LOADW(a, i, p);                                                              \
                for (int u = 0; u < (K); u++)                                                \
                    LANE(a, i + u, &p[u], &o[u]);                                            \
                STOREW(a, i, o);                                                             \
            }                                                                                \
        for (; i < hi && !cn_emu_poisoned(); i++) {                                          \
            PRE p;                                                                           \
            LOAD(a, i, &p);                                                                  \
            LANE(a, i, &p, (POST *)0);                                                       \
        }                                                                                    \
    }                                                                                        \
    static const struct cn_dev_kernel NAME = {NAME##_what, THREADS, false, NAME##_lanes};

/* A wide lane's loads and stores on the host: the bytes, whatever the piece. */
static inline void cn_dev_move_wide(void *dst, const void *src, size_t bytes, size_t piece)
{
    (void)piece;
    memcpy(dst, src, bytes);
}

/* One launch as the pool's workers see it. */
struct cn_emu_launch {
    const struct cn_dev_kernel *k;
    const void *args;
    struct cn_dev_stream *s;
};

/* The launch a pool thread is running lanes of, and where a trap returns. */
struct cn_emu_lane {
    struct cn_emu_launch *launch;
    jmp_buf *trap_exit;
};
__attribute__((weak)) CN_THREAD_LOCAL struct cn_emu_lane cn_emu_lane_now;

CN_DEV_COLD static void cn_emu_trap_text(const char *text)
{
    struct cn_emu_launch *L = cn_emu_lane_now.launch;
    if (!L) { /* not in a lane: a host guard, which aborts where it stands */
        fflush(stdout);
        fprintf(stderr, "%s\n", text);
        fflush(stderr);
        abort();
    }
    int zero = 0;
    if (__atomic_compare_exchange_n(&L->s->trapped, &zero, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        snprintf(L->s->trap_text, sizeof L->s->trap_text, "%s", text);
        L->s->trap_kernel = L->k->name;
    }
    struct cn_emu_machine *m = &cn_emu_machine_global;
    zero = 0;
    if (__atomic_compare_exchange_n(&m->poisoned, &zero, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        snprintf(m->text, sizeof m->text, "%s", text);
        m->kernel = L->k->name;
    }
    longjmp(*cn_emu_lane_now.trap_exit, 1);
}

/* A failed guard in a lane: see "A trapped lane" above. */
CN_DEV_COLD static void cn_dev_trap(const char *file, int line, int col, const char *msg)
{
    char text[CN_DEV_TRAP_TEXT];
    snprintf(text, sizeof text, "%s:%d:%d: guard failed: %s", file, line, col, msg);
    cn_emu_trap_text(text);
}

CN_DEV_COLD static void cn_dev_trap_bounds(const char *file, int line, int col, long long i,
                                           unsigned long long n, const char *name)
{
    char text[CN_DEV_TRAP_TEXT];
    snprintf(text, sizeof text, "%s:%d:%d: guard failed: index %lld out of bounds for %s of length %llu", file,
             line, col, i, name, n);
    cn_emu_trap_text(text);
}

/* The pool runs this for each block: it sets where a trap returns to. */
static inline void cn_emu_run_lanes(void *launch, size_t lo, size_t hi)
{
    struct cn_emu_launch *L = (struct cn_emu_launch *)launch;
    struct cn_emu_lane saved = cn_emu_lane_now;
    jmp_buf exit_here;
    cn_emu_lane_now.launch = L;
    cn_emu_lane_now.trap_exit = &exit_here;
    if (setjmp(exit_here) == 0)
        L->k->lanes((void *)L->args, lo, hi);
    cn_emu_lane_now = saved;
}

/* The emulated machine's devices: cn_emu_devices of them (1 unless a test
 * asks for more with cn_dev_emu_devices), each thread's current one its own,
 * 0 at first, as CUDA's is. Their memory is all the host's; what differs per
 * device is the runtime's bookkeeping (cairn_exec.h's contexts), which is
 * what the counting machine shows on the CPU. */
__attribute__((weak)) int cn_emu_devices = 1;
__attribute__((weak)) CN_THREAD_LOCAL int cn_emu_device_now;

static inline void cn_dev_emu_devices(int n)
{
    cn_emu_devices = n < 1 ? 1 : n > CN_DEV_MAX_DEVICES ? CN_DEV_MAX_DEVICES : n;
}

static inline int cn_dev_current(void) { return cn_emu_device_now; }

static inline void cn_dev_select(int d)
{
    if (d < 0 || d >= cn_emu_devices)
        cn_dev_die("cn_dev_select: no such device on the emulated machine", NULL);
    cn_emu_device_now = d;
}

static inline void cn_dev_stream_create(struct cn_dev_stream *s)
{
    memset(s, 0, sizeof *s);
    s->made = true;
    s->device = cn_emu_device_now;
    CN_DEV_COUNT(stream_create, 1);
}

static inline void cn_dev_stream_adopt(struct cn_dev_stream *s, void *raw)
{
    (void)raw; /* the emulated machine has no caller streams: any is a fresh one */
    memset(s, 0, sizeof *s);
    s->adopted = true;
}

static inline void cn_dev_stream_destroy(struct cn_dev_stream *s)
{
    if (s->made)
        CN_DEV_COUNT(stream_destroy, 1);
    s->made = false;
}

static inline void cn_dev_event_create(struct cn_dev_event *e)
{
    e->records = 0;
    e->made = true;
    CN_DEV_COUNT(event_create, 1);
}

static inline void cn_dev_event_destroy(struct cn_dev_event *e)
{
    if (e->made)
        CN_DEV_COUNT(event_destroy, 1);
    e->made = false;
}

/* Queued work has already run when it was queued, so an event is complete
 * the moment it is recorded, and waiting on one orders nothing new. */
static inline void cn_dev_event_record(struct cn_dev_event *e, struct cn_dev_stream *s)
{
    (void)s;
    e->records++;
    CN_DEV_COUNT(event_record, 1);
}

static inline void cn_dev_stream_wait_event(struct cn_dev_stream *s, struct cn_dev_event *e)
{
    (void)s;
    (void)e;
    CN_DEV_COUNT(stream_wait_event, 1);
}

CN_DEV_COLD static void cn_emu_surface_trap(const struct cn_dev_stream *s)
{
    const struct cn_emu_machine *m = &cn_emu_machine_global;
    fflush(stdout);
    if (__atomic_load_n(&s->trapped, __ATOMIC_ACQUIRE)) {
        fprintf(stderr, "%s\n", s->trap_text);
        fprintf(stderr, "cairn: device (%s machine): a lane of the %s trapped; the wait on its stream "
                        "reports it\n", CN_DEV_MACHINE, s->trap_kernel);
    } else {
        fprintf(stderr, "%s\n", m->text);
        fprintf(stderr, "cairn: device (%s machine): a lane of the %s trapped on another stream and "
                        "poisoned the device context; this wait reports it\n", CN_DEV_MACHINE, m->kernel);
    }
    fflush(stderr);
    abort();
}

static inline void cn_dev_stream_synchronize(struct cn_dev_stream *s)
{
    CN_DEV_COUNT(waits, 1);
    s->waits++;
    if (__builtin_expect(cn_emu_poisoned(), 0))
        cn_emu_surface_trap(s);
#if CN_DEV_COUNTING
    if (s->unwaited)
        __atomic_fetch_sub(&cn_dev_count_global.open_streams, 1ul, __ATOMIC_RELAXED);
#endif
    s->unwaited = 0;
    s->nkernels = 0;
}

/* Exactly n bytes of host memory, so a read one past the end is a heap
 * overflow the address sanitizer reports, on 256 bytes as cudaMalloc's
 * are (what a WMMA fragment's 32-byte rule sees must be the device's).
 * NULL when out of memory. */
static inline void *cn_dev_malloc(size_t n)
{
    if (n == 0)
        return NULL;
    void *p = NULL;
    if (posix_memalign(&p, 256, n))
        p = NULL;
    if (p) {
        CN_DEV_COUNT(malloc, 1);
        CN_DEV_COUNT(malloc_bytes, n);
    }
    return p;
}

static inline void cn_dev_free(void *p)
{
    if (!p)
        return;
    CN_DEV_COUNT(free, 1);
#if CN_DEV_COUNTING
    if (__atomic_load_n(&cn_dev_count_global.open_streams, __ATOMIC_RELAXED))
        CN_DEV_COUNT(hidden_waits, 1);
#endif
    free(p);
}

/* Every placement is host memory here, exactly the size asked for. */
static inline void *cn_dev_malloc_mem(enum cn_dev_mem kind, size_t n)
{
    (void)kind;
    return cn_dev_malloc(n);
}

static inline void cn_dev_free_mem(enum cn_dev_mem kind, void *p)
{
    (void)kind;
    cn_dev_free(p);
}

static inline bool cn_emu_overlap(const void *a, const void *b, size_t n)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + n && y < x + n;
}

static inline void cn_dev_copy(struct cn_dev_stream *s, enum cn_dev_dir dir, void *dst, const void *src,
                               size_t n)
{
    if (n == 0)
        return;
    cn_dev_check_host_copy(s, dir);
    if (dir == CN_DEV_H2D)
        CN_DEV_COUNT(copy_h2d, 1);
    else if (dir == CN_DEV_D2H)
        CN_DEV_COUNT(copy_d2h, 1);
    else
        CN_DEV_COUNT(copy_d2d, 1);
    cn_dev_queued(s);
    if (cn_emu_poisoned()) /* nothing queued after a trap runs */
        return;
    if (cn_emu_overlap(dst, src, n)) /* undefined for cudaMemcpyAsync: the caller refuses it first */
        cn_dev_die("cn_dev_copy between overlapping ranges", NULL);
    memcpy(dst, src, n);
}

/* Counted as a device-to-host copy, and not refused for the open run: the
 * caller waits on s next, before anything reads dst. */
static inline void cn_dev_copy_behind(struct cn_dev_stream *s, void *dst, const void *src, size_t n)
{
    if (n == 0)
        return;
    CN_DEV_COUNT(copy_d2h, 1);
    cn_dev_queued(s);
    if (!cn_emu_poisoned())
        memcpy(dst, src, n);
}

static inline void cn_dev_memset(struct cn_dev_stream *s, void *dst, int byte, size_t n)
{
    if (n == 0)
        return;
    CN_DEV_COUNT(memset, 1);
    cn_dev_queued(s);
    if (!cn_emu_poisoned())
        memset(dst, byte, n);
}

static inline void cn_dev_launch(struct cn_dev_stream *s, const struct cn_dev_kernel *k, size_t n,
                                 const void *args)
{
    if (n == 0)
        return;
    CN_DEV_COUNT(launch, 1);
    cn_dev_log_kernel(s, k->name);
    cn_dev_queued(s);
    if (cn_emu_poisoned())
        return;
    struct cn_emu_launch L = {k, args, s};
    cn_pool_for(n, cn_emu_run_lanes, &L);
}

/* A CAIRN entry begins (cf_NAME, cq_NAME). After a trap in work an earlier
 * entry queued, "the next CAIRN entry the process calls aborts"
 * (devices.md): on a device its first CUDA call fails on the poisoned
 * context; the emulated machine, which would skip the work silently, says
 * so here. */
static inline void cn_dev_entry_check(void)
{
    if (__builtin_expect(!cn_emu_poisoned(), 1))
        return;
    const struct cn_emu_machine *m = &cn_emu_machine_global;
    fflush(stdout);
    fprintf(stderr, "%s\n", m->text);
    fprintf(stderr, "cairn: device (%s machine): a lane of the %s trapped in work an earlier call queued, and "
                    "poisoned the device context; this CAIRN entry reports it\n", CN_DEV_MACHINE, m->kernel);
    fflush(stderr);
    abort();
}

/* Queued work has just been queued on s. Emulated, it ran to completion
 * there, so a lane that trapped in it aborts the process at the spawn
 * (devices.md, "Emulating device code on the host"); a device run reports
 * it at the wait. */
static inline void cn_dev_spawned(const struct cn_dev_stream *s)
{
    if (__builtin_expect(!__atomic_load_n(&s->trapped, __ATOMIC_ACQUIRE), 1))
        return;
    fflush(stdout);
    fprintf(stderr, "%s\n", s->trap_text);
    fprintf(stderr, "cairn: device (%s machine): a lane of the %s trapped in queued work; emulated, queued "
                    "work runs at its spawn, which reports it (a device run reports it at the wait)\n",
            CN_DEV_MACHINE, s->trap_kernel);
    fflush(stderr);
    abort();
}

#endif /* CN_DEV_EMULATED */

/* The passes of a device collector. */
#include "cairn_devcoll.h"

/* Cooperative regions: block names by dividers, grids past the device's
 * limit, and the finish counters. */
#include "cairn_coopdev.h"

#endif /* CAIRN_DEV_H */
