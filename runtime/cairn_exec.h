/*
 * cairn_exec.h: the execution context, what the lowering of device work
 * calls (devices.md, "Device execution" and "One wait, or none").
 *
 * Header-only, the common subset of C17 and C++17, every function static
 * inline but the cold failure paths. It sits on the device seam
 * (cairn_dev.h), so it runs unchanged on the CUDA, emulated and counting
 * machines.
 *
 * The context
 * -----------
 * Each host thread has one per device, made by its first device operation
 * while that device is current (cudaGetDevice; cudaSetDevice moves a thread
 * between devices, and the next entry runs on the new one's context) and
 * kept until the thread ends (a pthread key's destructor releases them all;
 * the main thread's live until exit). It holds:
 *
 *   own, event      the thread's stream and its event, made with the context;
 *   run             where synchronous device work goes: &own, or a caller's
 *                   stream bound by cairn_NAME_device_stream (cn_exec_bind_stream);
 *   arena           one device allocation for the temporaries of device
 *                   reduce, scan and compact: it grows to the largest request
 *                   it has met and never shrinks, so a request within it
 *                   calls nothing. A request past the budget
 *                   ($CAIRN_ARENA_MAX bytes, unlimited by default) is a guard;
 *   slots           the streams queued work borrows: spawn takes the first
 *                   slot no live ticket holds, making its stream and event
 *                   only the first time, and wait(t) gives it back;
 *   open_run        the one-wait bookkeeping, below.
 *
 * So the same sequence of device work, run a second time, finds every stream,
 * event and byte of scratch it needs and makes none.
 *
 * One wait, or none
 * -----------------
 * Device work queued on the run stream (a region, a device-to-device copy,
 * a memset, a collector that leaves its result on the device) opens a run:
 * `open_run` is set and nothing waits. The next thing through which the host
 * could observe device memory first calls cn_exec_observe, which waits on the
 * run stream once if a run is open and closes it. Those observations are:
 *
 *   a copy to or from host memory     cn_exec_transfer (H2D, D2H): observe,
 *                                     copy, and wait for the copy itself
 *   a device buffer's allocation      cn_exec_alloc, cn_exec_free
 *   and its release
 *   the arena's growth                cn_exec_scratch, when it must grow: the
 *                                     old block may be in use by the run
 *   a collector returning to the host the lowering's own cn_exec_transfer D2H
 *                                     of the total
 *   queued work                       cn_exec_spawn_*
 *   a return to a C caller, or main   cn_exec_leave
 *
 * A held function lowers its device work to these calls alone. A function
 * the rule keeps unheld (its effect row has another way to observe) calls
 * cn_exec_observe after each device operation, so each waits where it
 * stands. The counting machine refuses a copy to or from host memory queued
 * behind work no wait covered, which is what a missing observe would do.
 *
 * A trapped lane surfaces at the next wait on its stream (cairn_dev.h says
 * how on each machine), and every observation waits before it acts, so the
 * process aborts before the host reads a copy, frees or reuses memory the
 * work may still touch, or returns to a C caller.
 *
 * Queued work
 * -----------
 *   struct cn_ticket t = cn_exec_spawn_transfer(x, dir, dst, dn, src, sn, elem, after, nafter, at);
 *   struct cn_ticket u = cn_exec_spawn_launch(x, &kernel, n, &args, &t, 1, at);   // after t
 *   cn_exec_wait(&t, at); cn_exec_wait(&u, at);
 *
 * Spawn observes (queued work ends a run), borrows a slot, orders its stream
 * behind the run stream when that is a caller's (an event: work the caller
 * queued before is not ours to wait for) and behind each `after` ticket's
 * event, queues the work, and records the slot's event. Nothing in a spawn
 * waits. wait(t) waits on the ticket's stream alone, and only there. The
 * emulated machine runs queued work when it is queued, in program order,
 * which is one of the orders the language allows; a lane that traps in it
 * aborts the process at the spawn (a device run aborts at the wait).
 *
 * A cq_NAME entry uses no context at all: it wraps the caller's stream with
 * cn_dev_stream_adopt on its own stack and calls the seam, so it makes no
 * stream, event or allocation even as a thread's first device work.
 *
 * API (`at` is FILE, LINE, COL of the CAIRN statement, for guards):
 *   cn_exec_get()                        the thread's context, made on first use
 *   cn_exec_current()                    the thread's context, or NULL (makes none)
 *   cn_exec_observe(x)                   the one wait, if a run is open
 *   cn_exec_launch(x, k, n, args)        a region or a collector's kernel: opens a run
 *   cn_exec_memset(x, dst, byte, n)      opens a run
 *   cn_exec_transfer(x, dir, dst, dn, src, sn, elem, at)
 *                                        transfer(dst, src): extents must agree and
 *                                        the sides must not overlap; H2D and D2H
 *                                        observe and wait, D2D opens a run
 *   cn_exec_alloc(x, bytes, at) / cn_exec_free(x, p)   a device buffer
 *   cn_exec_scratch(x, bytes, at)        the arena, at least `bytes` long
 *   cn_exec_spawn_transfer / cn_exec_spawn_launch / cn_exec_wait
 *   cn_exec_bind_stream(raw)             cairn_NAME_device_stream(raw); NULL unbinds
 *   cn_exec_leave()                      return to a C caller, or leave main
 *   cn_exec_release_thread()             give the thread's context back now
 */
#ifndef CAIRN_EXEC_H
#define CAIRN_EXEC_H

#include "cairn_rt.h"
#include "cairn_dev.h"

#include <pthread.h>

/* Tickets one thread holds live at once. A ticket is linear and each one
 * borrows a stream until its wait, so this bounds the streams a thread ever
 * makes; programs queue two or three. */
#define CN_EXEC_MAX_TICKETS 16

struct cn_exec_slot {
    struct cn_dev_stream stream;
    struct cn_dev_event event; /* recorded when the ticket's work is queued */
    bool live;                 /* a ticket holds it */
    unsigned gen;              /* bumped by each wait, so a stale ticket is caught */
};

struct cn_exec {
    int device;                /* the device it serves: its streams and its arena are that device's */
    struct cn_dev_stream own;  /* made with the context */
    struct cn_dev_stream bound; /* a caller's stream, adopted */
    struct cn_dev_stream *run; /* &own or &bound */
    struct cn_dev_event event; /* orders queued work behind a caller's stream */
    bool open_run;             /* work queued on `run` that no wait has covered */
    void *arena;
    size_t arena_size;         /* the largest request met */
    size_t arena_budget;
    unsigned nslots;           /* slots made so far: each has a stream and an event */
    struct cn_exec_slot slots[CN_EXEC_MAX_TICKETS];
};

/* A ticket of queued work: linear, waited exactly once. */
struct cn_ticket {
    struct cn_exec *x;
    unsigned slot;
    unsigned gen;
};

/* The thread's contexts, one per device (the device current when device
 * work starts picks it): weak, so every translation unit shares them. */
__attribute__((weak)) CN_THREAD_LOCAL struct cn_exec *cn_exec_tls[CN_DEV_MAX_DEVICES];
__attribute__((weak)) pthread_key_t cn_exec_key;
__attribute__((weak)) pthread_once_t cn_exec_key_once = PTHREAD_ONCE_INIT;

/* ------------------------------------------------- making and releasing */

static inline void cn_exec_observe(struct cn_exec *x);

/* Its device made current while its streams, events and arena go (a thread
 * may have moved to another since), then the thread's own put back. */
static inline void cn_exec_destroy(struct cn_exec *x)
{
    int was = cn_dev_current();
    if (was != x->device)
        cn_dev_select(x->device);
    cn_exec_observe(x);
    for (unsigned k = 0; k < x->nslots; k++) {
        struct cn_exec_slot *t = &x->slots[k];
        if (t->live) /* a ticket nobody waited for: the compiler's linearity forbids it */
            cn_dev_stream_synchronize(&t->stream);
        cn_dev_event_destroy(&t->event);
        cn_dev_stream_destroy(&t->stream);
    }
    cn_dev_free(x->arena);
    cn_dev_event_destroy(&x->event);
    cn_dev_stream_destroy(&x->own);
    free(x);
    if (was != cn_dev_current())
        cn_dev_select(was);
}

/* Gives back every context of the calling thread. */
static inline void cn_exec_release_all(void)
{
    for (int d = 0; d < CN_DEV_MAX_DEVICES; d++) {
        struct cn_exec *x = cn_exec_tls[d];
        if (x) {
            cn_exec_tls[d] = NULL;
            cn_exec_destroy(x);
        }
    }
}

/* The pthread key's destructor: a thread that ends gives its contexts back
 * (the key holds any non-NULL value while the thread has one). */
static inline void cn_exec_thread_exit(void *p)
{
    if (p)
        cn_exec_release_all();
}

static inline void cn_exec_make_key(void)
{
    if (pthread_key_create(&cn_exec_key, cn_exec_thread_exit))
        cn_dev_die("cannot create the execution context's thread key", NULL);
}

static inline size_t cn_exec_env_budget(void)
{
    const char *s = getenv("CAIRN_ARENA_MAX");
    if (!s || !*s)
        return SIZE_MAX;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || s[0] == '-')
        cn_dev_die("CAIRN_ARENA_MAX is not a number of bytes: ", s);
    return (size_t)v;
}

__attribute__((cold, noinline)) static struct cn_exec *cn_exec_make(int d)
{
    pthread_once(&cn_exec_key_once, cn_exec_make_key);
    struct cn_exec *x = (struct cn_exec *)calloc(1, sizeof *x);
    if (!x)
        cn_dev_die("out of host memory for the execution context", NULL);
    x->device = d;
    cn_dev_stream_create(&x->own);
    cn_dev_event_create(&x->event);
    x->run = &x->own;
    x->arena_budget = cn_exec_env_budget();
    cn_exec_tls[d] = x;
    pthread_setspecific(cn_exec_key, x);
    return x;
}

/* The current device's context: the device asked for (cudaGetDevice, a
 * thread-local read in CUDA's runtime), then one thread-local load; making
 * the context is out of line. So a thread that moves between devices
 * (cudaSetDevice), or two threads on two, run each entry on its own
 * device's streams and arena. */
static inline struct cn_exec *cn_exec_get(void)
{
    int d = cn_dev_current();
    struct cn_exec *x = cn_exec_tls[d];
    return __builtin_expect(x != NULL, 1) ? x : cn_exec_make(d);
}

static inline struct cn_exec *cn_exec_current(void) { return cn_exec_tls[cn_dev_current()]; }

static inline void cn_exec_release_thread(void)
{
    cn_exec_release_all();
    pthread_setspecific(cn_exec_key, NULL);
}

/* ------------------------------------------------------ the one wait */

static inline void cn_exec_observe(struct cn_exec *x)
{
    if (x->open_run) {
        cn_dev_stream_synchronize(x->run);
        x->open_run = false;
    }
}

/* Return to a C caller, or leave main: nothing may stay unwaited. */
static inline void cn_exec_leave(void)
{
    struct cn_exec *x = cn_exec_current();
    if (x)
        cn_exec_observe(x);
}

/* cairn_NAME_device_stream(raw): later synchronous work goes on the caller's
 * stream, after what the caller queued there; NULL gives back the thread's
 * own. The open run, on whichever stream, is waited for first. */
static inline void cn_exec_bind_stream(void *raw)
{
    struct cn_exec *x = cn_exec_get();
    cn_exec_observe(x);
    if (raw) {
        cn_dev_stream_adopt(&x->bound, raw);
        x->run = &x->bound;
    } else {
        x->run = &x->own;
    }
}

/* A cq_ entry: a context on the entry's own stack whose run is the caller's
 * stream, adopted, so the work is queued there behind what the caller
 * queued, and nothing is made, allocated or waited for. It has no arena (a
 * function with device scratch has no cq_ entry) and no ticket slots (nor
 * one that spawns). The thread's own context, if any, is set aside and put
 * back at the end, with nothing of its own changed. */
static inline struct cn_exec *cn_exec_enqueue_begin(struct cn_exec *q, void *raw)
{
    int d = cn_dev_current();
    struct cn_exec *saved = cn_exec_tls[d];
    memset(q, 0, sizeof *q);
    q->device = d;
    cn_dev_stream_adopt(&q->own, raw);
    q->own.device = d;
    q->run = &q->own;
    cn_exec_tls[d] = q;
    return saved;
}

static inline void cn_exec_enqueue_end(struct cn_exec *q, struct cn_exec *saved)
{
    cn_exec_tls[q->device] = saved;
}

/* ---------------------------------------------------- synchronous work */

static inline void cn_exec_launch(struct cn_exec *x, const struct cn_dev_kernel *k, size_t n, const void *args)
{
    if (n == 0)
        return;
    cn_dev_launch(x->run, k, n, args);
    x->open_run = true;
}

/* A cooperative region's one launch (cairn_coopdev.h), blocks, finish and
 * all: it opens a run as any launch does. An empty grid with no finish
 * launches nothing. */
static inline void cn_exec_coop_launch(struct cn_exec *x, const struct cn_coop_kernel *k,
                                       const struct cn_coop_grid *g, const void *args)
{
    if (g->total == 0 && !k->finish)
        return;
    cn_coop_launch(x->run, k, g, args);
    x->open_run = true;
}

static inline void cn_exec_memset(struct cn_exec *x, void *dst, int byte, size_t n)
{
    if (n == 0)
        return;
    cn_dev_memset(x->run, dst, byte, n);
    x->open_run = true;
}

static inline bool cn_exec_overlap(const void *a, const void *b, size_t n)
{
    uintptr_t p = (uintptr_t)a, q = (uintptr_t)b;
    return n && p < q + n && q < p + n;
}

/* transfer(dst, src)'s two checks, which the language states and the seam
 * relies on: extents that agree, and sides that do not overlap. */
static inline size_t cn_exec_transfer_bytes(void *dst, size_t dn, const void *src, size_t sn, size_t elem,
                                            const char *f, int l, int c)
{
    if (CN_UNLIKELY(dn != sn))
        cn_guard_fail(f, l, c, "transfer: the destination has %zu elements and the source %zu", dn, sn);
    if (CN_UNLIKELY(cn_exec_overlap(dst, src, dn * elem)))
        cn_guard_fail(f, l, c, "transfer: the two sides overlap (%zu elements of %zu bytes)", dn, elem);
    return dn * elem;
}

static inline void cn_exec_transfer(struct cn_exec *x, enum cn_dev_dir dir, void *dst, size_t dn,
                                    const void *src, size_t sn, size_t elem, const char *f, int l, int c)
{
    size_t bytes = cn_exec_transfer_bytes(dst, dn, src, sn, elem, f, l, c);
    if (bytes == 0)
        return;
    if (dir == CN_DEV_D2D) { /* device to device: nothing the host sees */
        cn_dev_copy(x->run, dir, dst, src, bytes);
        x->open_run = true;
        return;
    }
    cn_exec_observe(x); /* the run's wait */
    cn_dev_copy(x->run, dir, dst, src, bytes);
    cn_dev_stream_synchronize(x->run); /* the copy's own: it returns once its stream ran it */
}

/* A device collector's result brought back to the host: the copy is queued
 * behind the run's work on its own stream, and one wait covers both. The
 * destination is the lowering's own temporary, which nothing reads before
 * that wait, and a trapped lane fails the copy or the wait, so the process
 * aborts before the host reads it (devices.md: "a copy and two waits" for a
 * normalize that reads its total on the host). */
static inline void cn_exec_copy_total(struct cn_exec *x, void *dst, const void *src, size_t bytes)
{
    cn_dev_copy_behind(x->run, dst, src, bytes);
    cn_dev_stream_synchronize(x->run);
    x->open_run = false;
}

/* --------------------------------------------------------- device memory */

static inline void *cn_exec_alloc_mem(struct cn_exec *x, enum cn_dev_mem kind, size_t bytes, const char *f,
                                      int l, int c)
{
    cn_exec_observe(x);
    void *p = cn_dev_malloc_mem(kind, bytes);
    if (CN_UNLIKELY(!p && bytes))
        cn_guard_fail(f, l, c, "out of %s memory: a buffer of %zu bytes", cn_dev_mem_name(kind), bytes);
    return p;
}

static inline void *cn_exec_alloc(struct cn_exec *x, size_t bytes, const char *f, int l, int c)
{
    return cn_exec_alloc_mem(x, CN_DEV_MEM_DEVICE, bytes, f, l, c);
}

/* buffer x:T[n]@device = zeroed: its bytes (n * size must fit), allocated
 * (an observation) and zeroed on the run (queued, no wait). A @pinned or
 * @unified one is zeroed by the host at once: it is host-visible memory
 * that no device work can have touched yet, and the host may read it next. */
static inline void *cn_exec_buffer(enum cn_dev_mem kind, size_t n, size_t size, const char *name, const char *f,
                                   int l, int c)
{
    struct cn_exec *x = cn_exec_get();
    if (CN_UNLIKELY(size && n > SIZE_MAX / size))
        cn_guard_fail(f, l, c, "%s buffer %s of %zu elements of %zu bytes: the size does not fit",
                      cn_dev_mem_name(kind), name, n, size);
    void *p = cn_exec_alloc_mem(x, kind, n * size, f, l, c);
    if (kind == CN_DEV_MEM_DEVICE)
        cn_exec_memset(x, p, 0, n * size);
    else if (p)
        memset(p, 0, n * size);
    return p;
}

static inline void cn_exec_free_mem(struct cn_exec *x, enum cn_dev_mem kind, void *p)
{
    if (!p)
        return;
    cn_exec_observe(x);
    cn_dev_free_mem(kind, p);
}

static inline void cn_exec_free(struct cn_exec *x, void *p)
{
    cn_exec_free_mem(x, CN_DEV_MEM_DEVICE, p);
}

CN_DEV_COLD static void cn_exec_arena_fail(const char *f, int l, int c, size_t bytes, size_t budget)
{
    if (bytes > budget)
        cn_guard_fail(f, l, c, "device scratch of %zu bytes is past the arena's budget of %zu bytes "
                               "(CAIRN_ARENA_MAX)", bytes, budget);
    cn_guard_fail(f, l, c, "out of device memory: device scratch of %zu bytes", bytes);
}

/* Grow the arena to exactly `bytes`: the old block may be in use by the open
 * run, so this observes first. Queued work never takes scratch. */
static inline void cn_exec_arena_grow(struct cn_exec *x, size_t bytes, const char *f, int l, int c)
{
    if (bytes > x->arena_budget)
        cn_exec_arena_fail(f, l, c, bytes, x->arena_budget);
    cn_exec_observe(x);
    cn_dev_free(x->arena);
    x->arena = cn_dev_malloc(bytes);
    x->arena_size = x->arena ? bytes : 0;
    if (!x->arena)
        cn_exec_arena_fail(f, l, c, bytes, x->arena_budget);
}

/* Scratch for one device reduce, scan or compact: valid until the next
 * call, and in stream order, so consecutive collectors share it. */
static inline void *cn_exec_scratch(struct cn_exec *x, size_t bytes, const char *f, int l, int c)
{
    if (CN_UNLIKELY(bytes > x->arena_size))
        cn_exec_arena_grow(x, bytes, f, l, c);
    return x->arena;
}

/* ------------------------------------------------------------ queued work */

CN_DEV_COLD static void cn_exec_ticket_fail(const char *f, int l, int c, const char *what)
{
    cn_guard_fail(f, l, c, "queued work: %s", what);
}

static inline struct cn_exec_slot *cn_exec_ticket_slot(const struct cn_ticket *t, const char *f, int l, int c)
{
    struct cn_exec *x = t->x;
    if (CN_UNLIKELY(!x || t->slot >= x->nslots || !x->slots[t->slot].live || x->slots[t->slot].gen != t->gen))
        cn_exec_ticket_fail(f, l, c, "a ticket that is not live (waited already, or another thread's)");
    if (CN_UNLIKELY(x != cn_exec_tls[x->device]))
        cn_exec_ticket_fail(f, l, c, "a ticket of another thread's execution context");
    if (CN_UNLIKELY(x->device != cn_dev_current()))
        cn_exec_ticket_fail(f, l, c, "a ticket of work on another device than the current one: make its device "
                                     "current before the wait");
    return &x->slots[t->slot];
}

/* Observe, borrow a slot, and order its stream behind what it must follow. */
static inline struct cn_ticket cn_exec_spawn_begin(struct cn_exec *x, const struct cn_ticket *after,
                                                   unsigned nafter, const char *f, int l, int c)
{
    cn_exec_observe(x);
    unsigned k = 0;
    while (k < x->nslots && x->slots[k].live)
        k++;
    if (k == x->nslots) {
        if (CN_UNLIKELY(k == CN_EXEC_MAX_TICKETS))
            cn_exec_ticket_fail(f, l, c, "more tickets live at once than one thread may hold (16)");
        cn_dev_stream_create(&x->slots[k].stream);
        cn_dev_event_create(&x->slots[k].event);
        x->nslots++;
    }
    struct cn_exec_slot *s = &x->slots[k];
    if (x->run != &x->own) { /* a caller's stream: follow what the caller queued there */
        cn_dev_event_record(&x->event, x->run);
        cn_dev_stream_wait_event(&s->stream, &x->event);
    }
    for (unsigned a = 0; a < nafter; a++)
        cn_dev_stream_wait_event(&s->stream, &cn_exec_ticket_slot(&after[a], f, l, c)->event);
    s->live = true;
    struct cn_ticket t = {x, k, s->gen};
    return t;
}

static inline struct cn_dev_stream *cn_exec_ticket_stream(const struct cn_ticket *t)
{
    return &t->x->slots[t->slot].stream;
}

static inline void cn_exec_spawn_end(const struct cn_ticket *t)
{
    struct cn_exec_slot *s = &t->x->slots[t->slot];
    cn_dev_event_record(&s->event, &s->stream);
}

/* spawn transfer(dst, src) [after ...] */
static inline struct cn_ticket cn_exec_spawn_transfer(struct cn_exec *x, enum cn_dev_dir dir, void *dst, size_t dn,
                                                      const void *src, size_t sn, size_t elem,
                                                      const struct cn_ticket *after, unsigned nafter,
                                                      const char *f, int l, int c)
{
    size_t bytes = cn_exec_transfer_bytes(dst, dn, src, sn, elem, f, l, c);
    struct cn_ticket t = cn_exec_spawn_begin(x, after, nafter, f, l, c);
    cn_dev_copy(cn_exec_ticket_stream(&t), dir, dst, src, bytes);
    cn_exec_spawn_end(&t);
    return t;
}

/* spawn parallel i in n [after ...] { body } */
static inline struct cn_ticket cn_exec_spawn_launch(struct cn_exec *x, const struct cn_dev_kernel *k, size_t n,
                                                    const void *args, const struct cn_ticket *after,
                                                    unsigned nafter, const char *f, int l, int c)
{
    struct cn_ticket t = cn_exec_spawn_begin(x, after, nafter, f, l, c);
    cn_dev_launch(cn_exec_ticket_stream(&t), k, n, args);
    cn_exec_spawn_end(&t);
    cn_dev_spawned(cn_exec_ticket_stream(&t));
    return t;
}

/* wait(t): its own stream, and nothing else; ends the ticket's leases. */
static inline void cn_exec_wait(struct cn_ticket *t, const char *f, int l, int c)
{
    struct cn_exec_slot *s = cn_exec_ticket_slot(t, f, l, c);
    cn_dev_stream_synchronize(&s->stream);
    s->live = false;
    s->gen++;
    t->x = NULL;
}

/* reduce + parallel over floats on the device: the exact sum. */
#include "cairn_devsum.h"

#endif /* CAIRN_EXEC_H */
