/*
 * cairn_proc.h: the process around an emitted program: how deep each
 * thread's stack may go, what a stack overflow says, and what an interrupt
 * (SIGINT, SIGTERM, SIGHUP) does to the output printed so far.
 *
 * Header-only, the common subset of C17 and C++17, host code only (nothing
 * here is compiled for a device: the stack check in cairn_rt.h is absent
 * from device code). Included first by cairn_rt.h and cairn_pool.h, so that
 * the POSIX interfaces it needs are asked for before any system header.
 *
 * Stack limits
 * ------------
 * Every thread that runs CAIRN code knows the lowest address its stack may
 * reach, its floor: the stack's low end (pthread_getattr_np, which for the
 * main thread reads RLIMIT_STACK and the memory map) plus a margin for the
 * failure report. The floor is found lazily, the first time a function's
 * stack check runs on the thread, so the main thread, the lane pool's
 * workers and a C caller's own threads are all covered without being told:
 * it starts at UINTPTR_MAX, which makes the first check take the slow path
 * and look. Where the stack cannot be found the floor becomes 0 and the
 * check never fires. cairn_rt.h holds the check itself (CN_STACK_CHECK), one
 * compare of the stack pointer with the floor at every function's start.
 *
 * A second line: on a fault, a SIGSEGV handler running on an alternate
 * stack (each thread that runs lanes has one) says "stack overflow" when the
 * faulting address lies at the end of the thread's stack, below the floor:
 * a frame too large for the margin, or C code with no check. It cannot say
 * which function. The process then dies of the SIGSEGV as before.
 *
 * Interrupts
 * ----------
 * A program's output sits in stdio's buffer until it is flushed; a program
 * killed by SIGINT would lose it, and fflush is not async-signal-safe, so
 * no signal handler may call it. Instead the program's first CAIRN function
 * (cn_program_begin, from the prologue of `main` or of a test) blocks the
 * three signals in every thread and starts one watcher thread that takes
 * them with sigwait. The watcher is an ordinary thread, not a handler: it
 * flushes stdout (waiting at most CN_FLUSH_WAIT_MS for the stdio lock, in
 * case the main thread is stuck inside a write), then restores the default
 * action and raises the signal, so the program dies of it as before and
 * its parent sees 128 + the signal. A SIGHUP ignored at start (nohup) stays
 * ignored. Libraries never call cn_program_begin: their host process keeps
 * its own signals.
 *
 * The process-wide state (the watcher's signal set, the main thread's
 * alternate stack) is one weak global, so every translation unit of a
 * program shares it, as cairn_pool.h shares its pool.
 */
#ifndef CAIRN_PROC_H
#define CAIRN_PROC_H

/* POSIX signals, threads and, on Linux, pthread_getattr_np: asked for when
 * the includer asked for nothing (an emitted program under -std=c17). */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE) && !defined(_DEFAULT_SOURCE)
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef CN_THREAD_LOCAL
#ifdef __cplusplus
#define CN_THREAD_LOCAL thread_local
#else
#define CN_THREAD_LOCAL _Thread_local
#endif
#endif

/* POSIX signals are declared unless a translation unit in strict ISO C
 * mode included a system header before this one (a C caller's main.c under
 * -std=c17, say): then there are no stack floors (the check never fires),
 * no fault report and no watcher, and the rest of the runtime is as ever. */
#if defined(SA_SIGINFO) && defined(SA_ONSTACK)
#define CN_PROC_POSIX 1
#else
#define CN_PROC_POSIX 0
#endif

/* glibc and musl declare it only under _GNU_SOURCE; C allows declaring it
 * again, compatibly, when an includer chose other feature macros. */
#if CN_PROC_POSIX && defined(__linux__) && !defined(__USE_GNU) && !defined(__cplusplus)
extern int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr);
#endif

/* ------------------------------------------------------------ limits */

/* Room left below the floor for the failure report (formatting and writing
 * a guard's message) and for the frame of the function whose check fired,
 * which is already allocated when its check runs. A quarter of the stack at
 * most, for small thread stacks. */
#define CN_STACK_MARGIN ((size_t)256 * 1024)
/* How far below a stack's low end a fault still counts as overflowing it:
 * Linux keeps a gap of 256 pages (1 MiB) below a growing stack. */
#define CN_STACK_GUARD_REACH ((uintptr_t)1024 * 1024)
/* Each thread's alternate signal stack: the SIGSEGV report needs little. */
#define CN_ALTSTACK_SIZE ((size_t)64 * 1024)
/* How long the watcher waits for stdout's lock before it gives up flushing. */
#define CN_FLUSH_WAIT_MS 200

/* ----------------------------------------------------- a thread's stack */

struct cn_stack {
    uintptr_t floor; /* UINTPTR_MAX: not yet known; 0: unknown, never checked */
    uintptr_t lo;    /* the stack's low end (0: unknown) */
    size_t size;
};
/* Per thread and per translation unit: each unit finds it once a thread. */
__attribute__((unused)) static CN_THREAD_LOCAL struct cn_stack cn_stack_here = {UINTPTR_MAX, 0, 0};

/* The stack pointer of the function it is inlined into: one instruction,
 * where __builtin_frame_address(0) would make that function keep a frame
 * pointer. */
__attribute__((always_inline)) static inline uintptr_t cn_stack_pointer(void)
{
    uintptr_t sp;
#if defined(__x86_64__)
    __asm__ __volatile__("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
    __asm__ __volatile__("mov %0, sp" : "=r"(sp));
#else
    sp = (uintptr_t)__builtin_frame_address(0);
#endif
    return sp;
}

/* Finds this thread's stack and sets its floor (0 where it cannot). */
__attribute__((cold, noinline, unused)) static void cn_stack_find(void)
{
    struct cn_stack *s = &cn_stack_here;
    s->floor = 0;
#if CN_PROC_POSIX && defined(__linux__)
    pthread_attr_t at;
    if (pthread_getattr_np(pthread_self(), &at) != 0)
        return;
    void *addr;
    size_t size;
    if (pthread_attr_getstack(&at, &addr, &size) == 0 && addr && size > 0) {
        size_t margin = size / 4 < CN_STACK_MARGIN ? size / 4 : CN_STACK_MARGIN;
        s->lo = (uintptr_t)addr;
        s->size = size;
        s->floor = s->lo + margin;
    }
    pthread_attr_destroy(&at);
#endif
}

#if CN_PROC_POSIX

/* ------------------------------------------------- the SIGSEGV report */

/* Async-signal-safe: write(2) of fixed text only. */
__attribute__((unused)) static void cn_stack_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    const struct cn_stack *s = &cn_stack_here;
    uintptr_t a = (uintptr_t)si->si_addr;
    if (s->lo && s->floor != UINTPTR_MAX && a < s->floor && a + CN_STACK_GUARD_REACH >= s->lo) {
        static const char msg[] = "cairn: stack overflow: a call went past the end of this thread's stack in "
                                  "code the stack check does not cover (a C function, or a frame larger than "
                                  "its margin); deep or unbounded recursion?\n";
        ssize_t w = write(2, msg, sizeof msg - 1);
        (void)w;
    }
    /* Only now the default action, so that the first fault's report is out
     * before any fault can kill the process: with SA_RESETHAND a second
     * thread overflowing at the same moment died of the default action
     * while the first was still in here, and nothing was said. Returning
     * re-runs the faulting access, and the process dies of the signal. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
}

/* An alternate signal stack for this thread, so the fault handler can run
 * when the thread's own stack is used up. */
static inline void cn_stack_altstack(void *mem, size_t size)
{
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = mem;
    ss.ss_size = size;
    if (mem)
        sigaltstack(&ss, NULL);
}

/* A lane pool worker, as it starts: its floor, and an alternate stack it
 * never frees (the workers live as long as the process). */
static inline void cn_stack_thread_begin(void)
{
    cn_stack_find();
    cn_stack_altstack(malloc(CN_ALTSTACK_SIZE), CN_ALTSTACK_SIZE);
}

/* ------------------------------------------------------ the program */

struct cn_program {
    int started;
    sigset_t interrupts;     /* what the watcher takes */
    unsigned char altstack[CN_ALTSTACK_SIZE] __attribute__((aligned(16)));
};
__attribute__((weak)) struct cn_program cn_program_global;

/* stdout flushed, unless another thread holds its lock past the wait. */
static inline void cn_flush_stdout_soon(void)
{
    for (int ms = 0; ms < CN_FLUSH_WAIT_MS; ms++) {
        if (ftrylockfile(stdout) == 0) {
            fflush(stdout);
            funlockfile(stdout);
            return;
        }
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
}

static inline void *cn_interrupt_watcher(void *arg)
{
    sigset_t *set = (sigset_t *)arg;
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);   /* a closed stdout fails the flush, not the watcher */
    pthread_sigmask(SIG_BLOCK, &pipe_only, NULL);
    int sig = 0;
    while (sigwait(set, &sig) != 0)
        ;
    cn_flush_stdout_soon();
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    _exit(128 + sig);   /* not reached: the default action of all three ends the process */
    return NULL;
}

static inline void cn_interrupts_start(struct cn_program *p)
{
    sigemptyset(&p->interrupts);
    sigaddset(&p->interrupts, SIGINT);
    sigaddset(&p->interrupts, SIGTERM);
    struct sigaction hup;
    if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN)
        sigaddset(&p->interrupts, SIGHUP);
    sigset_t saved;
    pthread_sigmask(SIG_BLOCK, &p->interrupts, &saved);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, (size_t)256 * 1024);
    pthread_t t;
    if (pthread_create(&t, &at, cn_interrupt_watcher, &p->interrupts) != 0)
        pthread_sigmask(SIG_SETMASK, &saved, NULL);   /* no watcher: the signals act as before */
    pthread_attr_destroy(&at);
}

/* Once a process, from the first CAIRN function of a program or a test:
 * the fault report and the interrupt watcher. Threads started after it (the
 * lane pool's) inherit the blocked interrupts. */
static inline void cn_program_begin(void)
{
    struct cn_program *p = &cn_program_global;
    if (p->started)
        return;
    p->started = 1;
    if (cn_stack_here.floor == UINTPTR_MAX)
        cn_stack_find();   /* the fault report needs the stack's bounds */
    cn_stack_altstack(p->altstack, sizeof p->altstack);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = cn_stack_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    cn_interrupts_start(p);
}

#else /* !CN_PROC_POSIX */

static inline void cn_stack_thread_begin(void) { cn_stack_find(); }
static inline void cn_program_begin(void) {}

#endif /* CN_PROC_POSIX */

#endif /* CAIRN_PROC_H */
