/*
 * cairn_coopdev.h: the device runtime of cooperative regions (devices.md,
 * "Cooperative regions" and "A finish"). Included by cairn_dev.h, after the
 * seam, so it runs on the CUDA, emulated and counting machines alike.
 *
 *   blocks b0, b1, b2 in g0, g1, g2 threads ... { BLOCK } then threads ... { FINISH }
 *
 * Three pieces, each usable alone:
 *
 *   1. Dividers. floor(x / d) for every 64-bit x as a multiply-high, a
 *      subtract, an add and two shifts, with (m, s1, s2) made once per d on
 *      the host (cn_divider_make). A block recovers its names from its flat
 *      number p with two of them (cn_coop_names): no 64-bit division on the
 *      device, where one is a ~70-instruction software routine.
 *
 *   2. Grids of any usize size. A region's grid is g0 * g1 * g2 blocks, which
 *      may be 0 or far past gridDim.x's limit. The launch starts
 *      min(total, CN_DEV_MAX_BLOCKS) device blocks (2^20: the hardware's
 *      scheduler balances blocks better than a wave that strides), and
 *      device block k runs the
 *      region's blocks p = k, k + gridDim.x, ... in turn, with a barrier
 *      between two of them so the shared arrays of one are not overwritten
 *      while a slower thread still reads them.
 *
 *   3. The finish counters. A table of CN_COOP_WORDS 64-bit words in the
 *      module's global memory (cn_coop_words: one per translation unit, and
 *      the emitted program is one). A word is (tag << 32) | count, and 0
 *      when free. Each launch of a region with a finish carries a word and a
 *      tag that no other launch has. When a device block has run its region
 *      blocks, every thread fences its writes (__threadfence) and thread 0
 *      counts the block in the word: a compare-and-swap puts the tag in a
 *      free word (0 becomes tag << 32), then an add counts the block; a word
 *      that holds another launch's tag, before or after the add, traps
 *      (cn_dev_trap's path: a device printf, then __trap). The block whose
 *      count reaches gridDim.x fences again, runs FINISH with all its
 *      threads, and puts the word back to 0. An empty grid launches one
 *      block that runs no region block and counts to 1 = gridDim.x: the
 *      finish runs exactly once there too, in the same single launch.
 *
 * Which launch gets which word (the host's bookkeeping, struct cn_coop_table,
 * one per module beside its device table):
 *
 *   - a launch on a stream takes that stream's word; the stream's launches
 *     run one after another, and each leaves the word 0 when its last block
 *     is done, so they share it. Two streams never share one;
 *   - a launch under CUDA graph capture (cudaStreamIsCapturing says
 *     cudaStreamCaptureStatusActive) takes a word of its own and keeps it
 *     for good: the graph may replay on any stream, at any time;
 *   - a stream's first launch takes a word no one has used yet; once all
 *     4096 are taken, it takes the word of the stream whose last launch is
 *     the oldest (captured words are never taken back). If that stream's
 *     last launch is still running, one of the two launches finds the
 *     other's tag and traps, never miscounts;
 *   - when every word is kept by a captured graph, the launch carries no
 *     word (CN_COOP_NO_WORD) and each of its blocks traps, saying so.
 *
 * Tags count up from 1 per module and wrap after 2^32 launches; a wrapped
 * tag could meet its namesake only in a word still held by a launch 2^32
 * launches old. Known limit: a caller's stream that is destroyed while its
 * last launch runs, whose handle CUDA then gives to a new stream, lends the
 * new stream the old word, and the new launch traps if it finds the old one
 * still counting. Two instances of one graph running at once share their
 * word, as they share every array they write.
 *
 * The emulated machine runs a region as the host does, on teams of real
 * threads (cairn_coop.h), as one launch on the stream: see its section at
 * the end of this file.
 *
 * What the compiler emits, for a region of T threads per block:
 *
 *   struct r1 { ... };                                   the region's arguments
 *   CN_DEV_LANE void r1_block(const struct r1 *a, size_t b0, size_t b1, size_t b2) { ... }
 *   CN_DEV_LANE void r1_finish(const struct r1 *a) { ... }
 *   static const char r1_k_what[] = "region at f.cairn:3:5";
 *   CN_COOP_KERNEL_FINISH(r1_k, struct r1, r1_block, r1_finish, T, "f.cairn", 3, 5)
 *     (or CN_COOP_KERNEL(r1_k, struct r1, r1_block, T) with no finish)
 *   ...
 *   struct cn_coop_grid g;
 *   if (!cn_coop_grid_make(&g, g0, g1, g2)) -> the region's guard: the grid overflows usize
 *   struct r1 args = {...};
 *   cn_coop_launch(s, &r1_k, &g, &args);                 s: the context's run stream
 *
 * On the device the block and finish functions read threadIdx and may
 * declare __shared__ arrays; every thread of the block calls them.
 */
#ifndef CAIRN_COOPDEV_H
#define CAIRN_COOPDEV_H

#ifndef CAIRN_DEV_H
#error "cairn_coopdev.h is included by cairn_dev.h"
#endif

/* ---------------------------------------------------------- dividers */

/*
 * floor(x / d) for d >= 1 and every x < 2^64, after Granlund and Montgomery,
 * "Division by Invariant Integers using Multiplication" (PLDI 1994), figure
 * 4.1: with l = ceil(log2 d),
 *
 *   m  = floor(2^64 * (2^l - d) / d) + 1     (< 2^64: the 65-bit multiplier
 *                                             2^64 + m, its top bit implied)
 *   t  = mulhi(m, x)
 *   q  = (t + ((x - t) >> s1)) >> s2,   s1 = min(l, 1), s2 = max(l - 1, 0)
 *
 * (x - t) >> 1 + t is (x + t) / 2 without the 65-bit sum overflowing. Their
 * theorem 4.2 gives the exactness: 2^(64+l) <= (2^64 + m) * d <= 2^(64+l) +
 * 2^l. d = 1 gives m = 1, s1 = s2 = 0, q = 0 + x; a power of two 2^k gives
 * m = 1, t = 0, q = (x >> 1) >> (k - 1). tests/unit/test_divider.c checks it
 * against plain division (exhaustively for x < 2^20 and d < 2^12).
 */
struct cn_divider {
    uint64_t m;
    unsigned char s1, s2;
};

CN_DEV_BOTH uint64_t cn_mulhi64(uint64_t a, uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

CN_DEV_BOTH uint64_t cn_divide(struct cn_divider v, uint64_t x)
{
    uint64_t t = cn_mulhi64(v.m, x);
    return (t + ((x - t) >> v.s1)) >> v.s2;
}

/* The divider of d; d = 0 has none, and gets d = 1's (a grid with an extent
 * 0 has no block to name). Made on the host, once per extent. */
static inline struct cn_divider cn_divider_make(uint64_t d)
{
    struct cn_divider v;
    unsigned l = d <= 1 ? 0 : 64 - (unsigned)__builtin_clzll(d - 1);
    uint64_t two_l_minus_d = (l == 64 ? 0 : (uint64_t)1 << l) - (d ? d : 1); /* mod 2^64: exact, < d */
    v.m = (uint64_t)(((unsigned __int128)two_l_minus_d << 64) / (d ? d : 1)) + 1;
    v.s1 = (unsigned char)(l < 1 ? l : 1);
    v.s2 = (unsigned char)(l > 1 ? l - 1 : 0);
    return v;
}

/* --------------------------------------------------------- the grid */

/* A region's grid as its launch carries it: the extents, their product and
 * the dividers of the first two (block p is b0 + g0 * (b1 + g1 * b2)). */
struct cn_coop_grid {
    uint64_t g0, g1, g2, total;
    struct cn_divider d0, d1;
};

/* false when g0 * g1 * g2 overflows usize: the caller's guard says so. */
static inline bool cn_coop_grid_make(struct cn_coop_grid *g, uint64_t g0, uint64_t g1, uint64_t g2)
{
    uint64_t t01, t;
    if (__builtin_mul_overflow(g0, g1, &t01) || __builtin_mul_overflow(t01, g2, &t))
        return false;
    g->g0 = g0, g->g1 = g1, g->g2 = g2, g->total = t;
    g->d0 = cn_divider_make(g0);
    g->d1 = cn_divider_make(g1);
    return true;
}

/* The names of block p < total: two divisions by dividers, two multiplies. */
CN_DEV_BOTH void cn_coop_names(const struct cn_coop_grid *g, uint64_t p, size_t *b0, size_t *b1, size_t *b2)
{
    uint64_t q = cn_divide(g->d0, p);
    uint64_t r = cn_divide(g->d1, q);
    *b0 = (size_t)(p - q * g->g0);
    *b1 = (size_t)(q - r * g->g1);
    *b2 = (size_t)r;
}

/* Device blocks of a launch: the region's blocks up to `wave` (the launch
 * passes CN_DEV_MAX_BLOCKS; `wave`,
 * the blocks the device holds at once, at least 1, at most
 * CN_DEV_MAX_BLOCKS); an empty grid with a finish still launches one. */
static inline uint64_t cn_coop_device_blocks(uint64_t total, uint64_t wave, bool finish)
{
    if (wave < 1)
        wave = 1;
    if (wave > CN_DEV_MAX_BLOCKS)
        wave = CN_DEV_MAX_BLOCKS;
    if (total == 0)
        return finish ? 1 : 0;
    return total < wave ? total : wave;
}

/* ------------------------------------- launch-time proofs (emit_fast.c) */

/*
 * The interval of an unsigned value over every thread, block and iteration
 * of a region, computed on the host before its launch: lo..hi in 128 bits
 * (so a product of two 64-bit bounds is exact), `bad` when an operation on
 * the way could overflow its type (max), go below zero or divide by zero,
 * and `empty` when no thread ever computes it (a loop that never runs, a
 * branch no value enters). A region's fast version runs only where every
 * interval it marked is fine and every index below its length.
 */
struct cn_iv {
    unsigned __int128 lo, hi;
    bool bad, empty;
};

static inline struct cn_iv cn_iv_k(uint64_t v)
{
    struct cn_iv r = {v, v, false, false};
    return r;
}

/* An unknown value of a type: [0, max]. */
static inline struct cn_iv cn_iv_top(uint64_t max)
{
    struct cn_iv r = {0, max, false, false};
    return r;
}

/* A name below n: [0, n - 1]; none when n is 0. */
static inline struct cn_iv cn_iv_upto(uint64_t n)
{
    struct cn_iv r = {0, n ? n - 1 : 0, false, n == 0};
    return r;
}

static inline struct cn_iv cn_iv_join(struct cn_iv a, struct cn_iv b)
{
    struct cn_iv r = {0, 0, a.bad || b.bad, a.empty || b.empty};
    return r;
}

/* past max: bad, and the bound held at max + 1 so nothing overflows 128 bits */
static inline struct cn_iv cn_iv_cap(struct cn_iv r, uint64_t max)
{
    if (r.hi > max) {
        r.bad = true;
        r.hi = (unsigned __int128)max + 1;
    }
    if (r.lo > r.hi)
        r.lo = r.hi;
    return r;
}

static inline struct cn_iv cn_iv_add(struct cn_iv a, struct cn_iv b, uint64_t max)
{
    struct cn_iv r = cn_iv_join(a, b);
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi;
    return cn_iv_cap(r, max);
}

/* min(a, b) and max(a, b): each bound's min or max (their type's: no cap) */
static inline struct cn_iv cn_iv_min(struct cn_iv a, struct cn_iv b)
{
    struct cn_iv r = cn_iv_join(a, b);
    r.lo = a.lo < b.lo ? a.lo : b.lo;
    r.hi = a.hi < b.hi ? a.hi : b.hi;
    return r;
}

static inline struct cn_iv cn_iv_max(struct cn_iv a, struct cn_iv b)
{
    struct cn_iv r = cn_iv_join(a, b);
    r.lo = a.lo > b.lo ? a.lo : b.lo;
    r.hi = a.hi > b.hi ? a.hi : b.hi;
    return r;
}

static inline struct cn_iv cn_iv_sub(struct cn_iv a, struct cn_iv b, uint64_t max)
{
    struct cn_iv r = cn_iv_join(a, b);
    if (a.lo < b.hi) { /* some a - b could go below zero */
        r.bad = true;
        r.lo = 0;
        r.hi = a.hi;
        return r;
    }
    r.lo = a.lo - b.hi;
    r.hi = a.hi - b.lo;
    return cn_iv_cap(r, max);
}

static inline struct cn_iv cn_iv_mul(struct cn_iv a, struct cn_iv b, uint64_t max)
{
    struct cn_iv r = cn_iv_join(a, b);
    r.lo = a.lo * b.lo;
    r.hi = a.hi * b.hi;   /* each at most 2^64: no overflow of 128 bits */
    return cn_iv_cap(r, max);
}

static inline struct cn_iv cn_iv_div(struct cn_iv a, struct cn_iv b, uint64_t max)
{
    struct cn_iv r = cn_iv_join(a, b);
    if (b.lo == 0) {
        r.bad = true;
        r.hi = a.hi;
        return r;
    }
    r.lo = a.lo / b.hi;
    r.hi = a.hi / b.lo;
    return cn_iv_cap(r, max);
}

static inline struct cn_iv cn_iv_rem(struct cn_iv a, struct cn_iv b, uint64_t max)
{
    struct cn_iv r = cn_iv_join(a, b);
    if (b.lo == 0) {
        r.bad = true;
        r.hi = a.hi;
        return r;
    }
    if (a.hi < b.lo) { /* every a below every b: a itself */
        r.lo = a.lo;
        r.hi = a.hi;
    } else if (a.lo == a.hi && b.lo == b.hi) {
        r.lo = r.hi = a.lo % b.lo;
    } else {
        r.lo = 0;
        r.hi = a.hi < b.hi - 1 ? a.hi : b.hi - 1;
    }
    return cn_iv_cap(r, max);
}

/* for k in lo..hi: k takes lo.lo .. hi.hi - 1, none when that is empty */
static inline struct cn_iv cn_iv_span(struct cn_iv lo, struct cn_iv hi)
{
    struct cn_iv r = cn_iv_join(lo, hi);
    r.lo = lo.lo;
    r.hi = hi.hi ? hi.hi - 1 : 0;
    if (hi.hi == 0 || hi.hi <= lo.lo)
        r.empty = true, r.hi = r.lo;
    return r;
}

/* v narrowed by a condition that holds where it guards: v < e, v <= e,
 * v > e, v >= e. What the condition lets no value through is empty. */
static inline struct cn_iv cn_iv_narrow(struct cn_iv v, unsigned __int128 lo, unsigned __int128 hi, bool none)
{
    if (lo > v.lo)
        v.lo = lo;
    if (hi < v.hi)
        v.hi = hi;
    if (none || v.lo > v.hi)
        v.empty = true, v.hi = v.lo;
    return v;
}

static inline struct cn_iv cn_iv_lt(struct cn_iv v, struct cn_iv e)
{
    return cn_iv_narrow(v, 0, e.hi ? e.hi - 1 : 0, e.hi == 0 || e.empty);
}

static inline struct cn_iv cn_iv_le(struct cn_iv v, struct cn_iv e) { return cn_iv_narrow(v, 0, e.hi, e.empty); }
static inline struct cn_iv cn_iv_gt(struct cn_iv v, struct cn_iv e) { return cn_iv_narrow(v, e.lo + 1, v.hi, e.empty); }
static inline struct cn_iv cn_iv_ge(struct cn_iv v, struct cn_iv e) { return cn_iv_narrow(v, e.lo, v.hi, e.empty); }

/* Two sound intervals of one value (its operations' own, and a
 * condition's fact of it): both hold; bad only where neither shows every
 * operation on the way fine. */
static inline struct cn_iv cn_iv_meet(struct cn_iv a, struct cn_iv b)
{
    struct cn_iv r = a;
    r.bad = a.bad && b.bad;
    r.empty = a.empty || b.empty;
    if (b.lo > r.lo)
        r.lo = b.lo;
    if (b.hi < r.hi)
        r.hi = b.hi;
    if (r.lo > r.hi)
        r.empty = true, r.hi = r.lo;
    return r;
}

/* Every value of a is computed without overflow: a marked operation. */
static inline bool cn_iv_fine(struct cn_iv a) { return a.empty || !a.bad; }

/* ... and lies below n: a marked index of a view of length n. */
static inline bool cn_iv_below(struct cn_iv a, uint64_t n) { return a.empty || (!a.bad && a.hi < n); }

/* Which version a launch runs, on stderr, in a build with
 * -DCN_COOP_FAST_TRACE (tests/coop/test_coop_fast.sh); nothing otherwise. */
#ifdef CN_COOP_FAST_TRACE
#define CN_COOP_FAST_NOTE(what, fast) fprintf(stderr, "cairn: %s: the %s version\n", what, (fast) ? "fast" : "checked")
#else
#define CN_COOP_FAST_NOTE(what, fast) ((void)0)
#endif

/* ------------------------------------- the counters: host bookkeeping */

/* Words of the table: each stream in use and each captured launch holds
 * one. A fixed size, so a finish allocates nothing (devices.md). */
#define CN_COOP_WORDS 4096
/* What a launch carries when no word is left: every word is kept by a
 * captured graph. Its blocks trap. */
#define CN_COOP_NO_WORD 0xffffffffu
/* Slots of the stream-to-word index: twice the words, so linear probing
 * stays short. A power of two. */
#define CN_COOP_INDEX (2 * CN_COOP_WORDS)

enum cn_coop_owner_kind { CN_COOP_FREE, CN_COOP_STREAM, CN_COOP_KEPT };

struct cn_coop_owner {
    const void *stream; /* CN_COOP_STREAM: the stream whose word it is */
    uint64_t used;      /* the table's clock at its owner's last launch */
    unsigned char kind; /* enum cn_coop_owner_kind */
};

/* The host's record of one module's device table. Zeroed is empty. */
struct cn_coop_table {
    int lock;                   /* a spin lock: every claim is a few loads */
    uint32_t next_tag;          /* the last tag given; 0 is never one */
    uint64_t clock;             /* counts claims, for "oldest" */
    unsigned fresh;             /* words [fresh, CN_COOP_WORDS) never given */
    unsigned kept;              /* words kept by captured launches */
    struct cn_coop_owner owner[CN_COOP_WORDS];
    uint16_t index[CN_COOP_INDEX]; /* word + 1 of a stream, 0 empty: linear probing */
};

/* What a launch carries to its blocks. */
struct cn_coop_claim {
    uint32_t word; /* < CN_COOP_WORDS, or CN_COOP_NO_WORD */
    uint32_t tag;
};

static inline unsigned cn_coop_hash(const void *stream)
{
    uint64_t h = (uint64_t)(uintptr_t)stream * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 40) & (CN_COOP_INDEX - 1);
}

/* The index slot of stream's entry, or of the empty slot where it would go. */
static inline unsigned cn_coop_find(const struct cn_coop_table *T, const void *stream)
{
    unsigned i = cn_coop_hash(stream);
    while (T->index[i] && T->owner[T->index[i] - 1].stream != stream)
        i = (i + 1) & (CN_COOP_INDEX - 1);
    return i;
}

/* Removes the entry at slot i, shifting back the entries after it that
 * probed past it (linear probing's deletion: no tombstones). */
static inline void cn_coop_unindex(struct cn_coop_table *T, unsigned i)
{
    unsigned j = i;
    T->index[i] = 0;
    for (;;) {
        j = (j + 1) & (CN_COOP_INDEX - 1);
        if (!T->index[j])
            return;
        unsigned home = cn_coop_hash(T->owner[T->index[j] - 1].stream);
        /* the entry at j stays if its home lies cyclically in (i, j] */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            T->index[i] = T->index[j];
            T->index[j] = 0;
            i = j;
        }
    }
}

/* A word for a new owner: one never given, or else the word of the stream
 * whose last launch is the oldest. CN_COOP_NO_WORD when all are kept. */
static inline uint32_t cn_coop_take_word(struct cn_coop_table *T)
{
    if (T->fresh < CN_COOP_WORDS)
        return T->fresh++;
    uint32_t best = CN_COOP_NO_WORD;
    for (uint32_t w = 0; w < CN_COOP_WORDS; w++)
        if (T->owner[w].kind == CN_COOP_STREAM && (best == CN_COOP_NO_WORD || T->owner[w].used < T->owner[best].used))
            best = w;
    if (best != CN_COOP_NO_WORD)
        cn_coop_unindex(T, cn_coop_find(T, T->owner[best].stream));
    return best;
}

static inline void cn_coop_lock(struct cn_coop_table *T)
{
    while (__atomic_exchange_n(&T->lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&T->lock, __ATOMIC_RELAXED))
            ;
}

static inline void cn_coop_unlock(struct cn_coop_table *T) { __atomic_store_n(&T->lock, 0, __ATOMIC_RELEASE); }

/* The word and a fresh tag for one launch on `stream`; `captured` when the
 * stream is being captured into a graph. Any thread may call it. */
static inline struct cn_coop_claim cn_coop_claim(struct cn_coop_table *T, const void *stream, bool captured)
{
    struct cn_coop_claim c;
    cn_coop_lock(T);
    if (++T->next_tag == 0)
        T->next_tag = 1;
    c.tag = T->next_tag;
    T->clock++;
    unsigned i = cn_coop_find(T, stream);
    if (!captured && T->index[i]) {
        c.word = T->index[i] - 1u;
    } else {
        c.word = cn_coop_take_word(T);
        if (c.word != CN_COOP_NO_WORD) {
            struct cn_coop_owner *o = &T->owner[c.word];
            o->stream = captured ? NULL : stream;
            o->kind = captured ? CN_COOP_KEPT : CN_COOP_STREAM;
            T->kept += captured;
            if (!captured) /* the slot may have moved if a word was taken back */
                T->index[cn_coop_find(T, stream)] = (uint16_t)(c.word + 1);
        }
    }
    if (c.word != CN_COOP_NO_WORD)
        T->owner[c.word].used = T->clock;
    cn_coop_unlock(T);
    return c;
}

/* ========================================== the CUDA machine's kernels */

#if CN_DEV_CUDA

/* The module's counters: zero when the module loads, and back to zero
 * after every launch that completes. */
static __device__ __attribute__((unused)) unsigned long long cn_coop_words[CN_COOP_WORDS];
/* The host's record of which launch holds which of them. */
static __attribute__((unused)) struct cn_coop_table cn_coop_table_here;

struct cn_coop_launch {
    struct cn_coop_grid grid;
    struct cn_coop_claim claim;
};

struct cn_coop_kernel {
    const char *name;
    unsigned threads; /* per block: the kernel's __launch_bounds__ */
    bool finish;      /* the region has a finish: the launch claims a word */
    void (*launch)(cudaStream_t s, unsigned blocks, const void *args, const struct cn_coop_launch *L);
};

static __device__ __noinline__ void cn_coop_trap_word(const char *file, int line, int col, uint32_t word,
                                                      uint32_t mine, uint32_t found)
{
    if (word == CN_COOP_NO_WORD)
        printf("%s:%d:%d: guard failed: no finish counter is free: all %d are kept by captured CUDA graphs\n",
               file, line, col, CN_COOP_WORDS);
    else
        printf("%s:%d:%d: guard failed: finish counter %u holds launch tag %u, not this launch's %u: its "
               "stream's word was given to another stream while that stream's last launch still ran\n",
               file, line, col, word, found, mine);
    __trap();
}

/* Thread 0 of a device block, done with its region blocks (and fenced):
 * counts the block in its launch's word. True for the block that counts
 * to gridDim.x. */
static __device__ inline bool cn_coop_count(const struct cn_coop_claim *c, const char *file, int line, int col)
{
    if (c->word >= CN_COOP_WORDS)
        cn_coop_trap_word(file, line, col, CN_COOP_NO_WORD, c->tag, 0);
    unsigned long long *w = &cn_coop_words[c->word];
    unsigned long long mine = (unsigned long long)c->tag << 32;
    /* two atomics a block, never a loop: a compare-and-swap loop over one
     * word made a thousand blocks queue behind each other (0.2 ms of a
     * 0.45 ms sum, evidence/2026-12-01-coop-speed.md). The first block to
     * come puts the tag in a free word; each then counts itself with an
     * add. Every block's swap comes before its add, so the block whose add
     * completes the count comes after every swap, and puts the word back
     * to 0 only when no block of the launch will touch it again. */
    unsigned long long was = atomicCAS(w, 0ull, mine);
    if (was && (was >> 32) != c->tag)
        cn_coop_trap_word(file, line, col, c->word, c->tag, (uint32_t)(was >> 32));
    unsigned long long old = atomicAdd(w, 1ull);
    if ((old >> 32) != c->tag)
        cn_coop_trap_word(file, line, col, c->word, c->tag, (uint32_t)(old >> 32));
    return (uint32_t)old + 1u == gridDim.x;
}

/* Device block k runs region blocks k, k + gridDim.x, ... (the last step
 * is not taken when it would pass 2^64). */
#define CN_COOP_BLOCK_LOOP(a, L, BLOCK)                                                      \
    do {                                                                                     \
        uint64_t cn_total = (L).grid.total, cn_step = gridDim.x;                             \
        for (uint64_t cn_p = blockIdx.x; cn_p < cn_total; cn_p += cn_step) {                 \
            size_t cn_b0, cn_b1, cn_b2;                                                      \
            cn_coop_names(&(L).grid, cn_p, &cn_b0, &cn_b1, &cn_b2);                          \
            BLOCK(&(a), cn_b0, cn_b1, cn_b2);                                                \
            if (cn_total - cn_p <= cn_step)                                                  \
                break;                                                                       \
            __syncthreads(); /* the next block's threads reuse the shared arrays */          \
        }                                                                                    \
    } while (0)

/* The launch picks the kernel's version: the fast one where the host
 * proved its marked operations safe for every thread (args.cn_fast). */
#define CN_COOP_LAUNCHER(NAME, ARGS, THREADS, FINISH)                                        \
    static void NAME##_launch(cudaStream_t s, unsigned blocks, const void *args,             \
                              const struct cn_coop_launch *L)                                \
    {                                                                                        \
        const ARGS *A = (const ARGS *)args;                                                  \
        if (A->cn_fast)                                                                      \
            NAME##_kernel<true><<<blocks, THREADS, 0, s>>>(*A, *L);                          \
        else                                                                                 \
            NAME##_kernel<false><<<blocks, THREADS, 0, s>>>(*A, *L);                         \
    }                                                                                        \
    static const struct cn_coop_kernel NAME = {NAME##_what, THREADS, FINISH, NAME##_launch};

/* A region's kernel's bounds: its threads, and the blocks an SM must hold
 * (ptxas caps the registers to fit; 0: no such bound). The fast version
 * (F) of a region of 256 threads whose shared memory (CN_COOPD_REGION_SMEM,
 * the emitter's #define before each kernel) leaves room for few blocks
 * anyway, more than 32 KiB, must let two share an SM: 128 registers a
 * thread. tile128's fast kernel (46 KiB) took 166 with the pad skip, one
 * block an SM, and ran at 101-107 TFLOP/s on an H100; held to 128 (no
 * spill) it ran at 145-154 (evidence/2026-12-07-h100-fills.md). Elsewhere
 * no bound: given one, ptxas spends what it allows (tile32's fast kernel,
 * 20 KiB, went from 80 registers to 110, three blocks an SM to two), and
 * the checked version spills under it. CN_COOPD_MIN_BLOCKS sets one for
 * every kernel (bench/dev/call28.sh, call33.sh). */
#ifndef CN_COOPD_REGION_SMEM
#define CN_COOPD_REGION_SMEM 0
#endif
#ifdef CN_COOPD_MIN_BLOCKS
#define CN_COOPD_BOUNDS(THREADS, F) __launch_bounds__(THREADS, CN_COOPD_MIN_BLOCKS)
#else
#define CN_COOPD_BOUNDS(THREADS, F)                                                          \
    __launch_bounds__(THREADS, (F) && (THREADS) == 256 && CN_COOPD_REGION_SMEM > 32768 ? 2 : 0)
#endif

/* A region with no finish. */
#define CN_COOP_KERNEL(NAME, ARGS, BLOCK, THREADS)                                           \
    template <bool CN_F>                                                                     \
    static __global__ void CN_COOPD_BOUNDS(THREADS, CN_F) NAME##_kernel(ARGS a, struct cn_coop_launch L) \
    {                                                                                        \
        CN_COOP_BLOCK_LOOP(a, L, BLOCK<CN_F>);                                               \
    }                                                                                        \
    CN_COOP_LAUNCHER(NAME, ARGS, THREADS, false)

/* A region with a finish: the blocks, the count, and in the last block to
 * count, the finish. FILE, LINE, COL: the region, for a trap's message. */
#define CN_COOP_KERNEL_FINISH(NAME, ARGS, BLOCK, FINISH, THREADS, FILE, LINE, COL)          \
    template <bool CN_F>                                                                     \
    static __global__ void CN_COOPD_BOUNDS(THREADS, CN_F) NAME##_kernel(ARGS a, struct cn_coop_launch L) \
    {                                                                                        \
        __shared__ bool cn_last;                                                             \
        CN_COOP_BLOCK_LOOP(a, L, BLOCK<CN_F>);                                               \
        __threadfence(); /* this thread's writes reach the device before the count */        \
        __syncthreads();                                                                     \
        if (threadIdx.x == 0)                                                                \
            cn_last = cn_coop_count(&L.claim, FILE, LINE, COL);                              \
        __syncthreads();                                                                     \
        if (!cn_last)                                                                        \
            return;                                                                          \
        __threadfence(); /* every other block's writes are seen from here on */             \
        FINISH<CN_F>(&a);                                                                    \
        __syncthreads();                                                                     \
        if (threadIdx.x == 0)                                                                \
            atomicExch(&cn_coop_words[L.claim.word], 0ull);                                  \
    }                                                                                        \
    CN_COOP_LAUNCHER(NAME, ARGS, THREADS, true)

/* The launch of region k over grid g on stream s, args its struct. */
static inline void cn_coop_launch(struct cn_dev_stream *s, const struct cn_coop_kernel *k,
                                  const struct cn_coop_grid *g, const void *args)
{
    /* a device block for each region block up to CN_DEV_MAX_BLOCKS: the
     * hardware's scheduler balances them better than a wave that strides
     * (a 16384^2 transpose: 1.038x a hand kernel against 1.053x with one
     * wave, evidence/2026-12-01-coop-speed.md); larger grids stride */
    uint64_t blocks = cn_coop_device_blocks(g->total, CN_DEV_MAX_BLOCKS, k->finish);
    if (blocks == 0)
        return;
    struct cn_coop_launch L;
    L.grid = *g;
    L.claim.word = CN_COOP_NO_WORD;
    L.claim.tag = 0;
    if (k->finish) {
        enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
        cn_dev_cuda_check(cudaStreamIsCapturing(s->cu, &st), "cudaStreamIsCapturing", s);
        L.claim = cn_coop_claim(&cn_coop_table_here, (const void *)s->cu, st == cudaStreamCaptureStatusActive);
    }
    cn_dev_log_kernel(s, k->name);
    k->launch(s->cu, (unsigned)blocks, args, &L);
    cn_dev_cuda_check(cudaGetLastError(), "kernel launch", s);
    cn_dev_queued(s);
}

/* ------------------------------------- the fast version's operations */

/*
 * A region's block function is written once and instantiated twice
 * (template <bool CN_FAST>). An operation the launch proved safe for every
 * thread is written CN_FAST_OP / CN_FAST_IDX: plain in the fast version,
 * the usual checked helper in the other.
 */
#define CN_COOP_FAST_TEMPLATE template <bool CN_FAST>
#define CN_FAST_OP(op, T, a, b, ...) cn_fast_##op##_##T<CN_FAST>(a, b, __VA_ARGS__)
#define CN_FAST_IDX(i, n, ...) cn_fast_idx<CN_FAST>(i, n, __VA_ARGS__)

#define CN_FAST_DEF(op, T, C, expr)                                                          \
    template <bool F>                                                                        \
    static __device__ __forceinline__ C cn_fast_##op##_##T(C a, C b, const char *f, int l, int c) \
    {                                                                                        \
        return F ? (C)(expr) : cn_##op##_##T(a, b, f, l, c);                                 \
    }
#define CN_FAST_DEFS(T, C)                                                                   \
    CN_FAST_DEF(add, T, C, a + b) CN_FAST_DEF(sub, T, C, a - b) CN_FAST_DEF(mul, T, C, a * b) \
    CN_FAST_DEF(div, T, C, a / b) CN_FAST_DEF(rem, T, C, a % b)
#ifdef CAIRN_RT_H /* the checked helpers: emitted programs include them, hand-written kernels need not */
CN_FAST_DEFS(usize, size_t)
CN_FAST_DEFS(u64, uint64_t)
CN_FAST_DEFS(u32, uint32_t)

template <bool F>
static __device__ __forceinline__ size_t cn_fast_idx(unsigned long long i, size_t n, const char *name, const char *f,
                                                     int l, int c)
{
    return F ? (size_t)i : cn_idx_u(i, n, name, f, l, c);
}
#endif

/* ------------------------------------- what a region's threads call */

/*
 * The compiler's lowering of a region's body on the device (emit_coop.c):
 * barrier is __syncthreads(), and the warp operations below give what the
 * host's (cairn_coop.h) give, bit for bit, for every argument:
 *
 *   shuffle(v, lane)       lane & 31's v. shfl.idx reads only the lane's
 *                          low 5 bits, so __shfl_sync is the host's as is.
 *   shuffle_xor(v, m)      lane ^ m's v, and the thread's own v when
 *                          lane ^ m is no lane (m >= 32). shfl.bfly would
 *                          use m & 31 (PTX: bval = b[4:0]), so m >= 32
 *                          keeps the own value explicitly.
 *   shuffle_down(v, d)     lane + d's v, own v past lane 31; d >= 32
 *   shuffle_up(v, d)       lane - d's v, own v below lane 0: the same fix.
 *
 * Every lane runs each shuffle with the full mask, whatever its own
 * argument: the checker keeps the warp whole where one runs (E-COOP-WARP),
 * and the fix-up is a select after it. Floats travel by their bits.
 *
 * `reduce OP warp` is the host's butterfly: steps m = 16, 8, 4, 2, 1, each
 * lane combining its value with lane ^ m's as op(the lower lane's, the
 * higher lane's), so both partners compute the same bits and after step m
 * lane l holds what the host's tree holds at l mod m (cairn_coop.h, "The
 * butterfly"): every lane ends with the host's x[0].
 */
#define CN_COOPD_FULL 0xffffffffu

static __device__ __forceinline__ unsigned cn_coopd_lane(void) { return threadIdx.x & 31u; }

static __device__ __forceinline__ uint32_t cn_coopd_shfl_u32(uint32_t v, uint32_t lane)
{
    return __shfl_sync(CN_COOPD_FULL, v, (int)(lane & 31u));
}
static __device__ __forceinline__ uint64_t cn_coopd_shfl_u64(uint64_t v, uint32_t lane)
{
    return __shfl_sync(CN_COOPD_FULL, (unsigned long long)v, (int)(lane & 31u));
}
static __device__ __forceinline__ uint32_t cn_coopd_shfl_xor_u32(uint32_t v, uint32_t m)
{
    uint32_t r = __shfl_xor_sync(CN_COOPD_FULL, v, (int)(m & 31u));
    return m < 32u ? r : v;
}
static __device__ __forceinline__ uint64_t cn_coopd_shfl_xor_u64(uint64_t v, uint32_t m)
{
    uint64_t r = __shfl_xor_sync(CN_COOPD_FULL, (unsigned long long)v, (int)(m & 31u));
    return m < 32u ? r : v;
}
static __device__ __forceinline__ uint32_t cn_coopd_shfl_down_u32(uint32_t v, uint32_t d)
{
    uint32_t r = __shfl_down_sync(CN_COOPD_FULL, v, d & 31u);
    return d < 32u ? r : v;
}
static __device__ __forceinline__ uint64_t cn_coopd_shfl_down_u64(uint64_t v, uint32_t d)
{
    uint64_t r = __shfl_down_sync(CN_COOPD_FULL, (unsigned long long)v, d & 31u);
    return d < 32u ? r : v;
}
static __device__ __forceinline__ uint32_t cn_coopd_shfl_up_u32(uint32_t v, uint32_t d)
{
    uint32_t r = __shfl_up_sync(CN_COOPD_FULL, v, d & 31u);
    return d < 32u ? r : v;
}
static __device__ __forceinline__ uint64_t cn_coopd_shfl_up_u64(uint64_t v, uint32_t d)
{
    uint64_t r = __shfl_up_sync(CN_COOPD_FULL, (unsigned long long)v, d & 31u);
    return d < 32u ? r : v;
}

static __device__ __forceinline__ uint32_t cn_coopd_ballot(bool c) { return __ballot_sync(CN_COOPD_FULL, c); }
static __device__ __forceinline__ bool cn_coopd_any(bool c) { return __any_sync(CN_COOPD_FULL, c) != 0; }
static __device__ __forceinline__ bool cn_coopd_all(bool c) { return __all_sync(CN_COOPD_FULL, c) != 0; }
static __device__ __forceinline__ uint32_t cn_coopd_match_u32(uint32_t v) { return __match_any_sync(CN_COOPD_FULL, v); }
static __device__ __forceinline__ uint32_t cn_coopd_match_u64(uint64_t v)
{
    return __match_any_sync(CN_COOPD_FULL, (unsigned long long)v);
}

static __device__ __forceinline__ uint32_t cn_coopd_reduce_u32(uint32_t v, uint32_t (*op)(uint32_t, uint32_t))
{
    bool hi;
    for (unsigned m = 16; m >= 1; m /= 2) {
        uint32_t o = __shfl_xor_sync(CN_COOPD_FULL, v, (int)m);
        hi = (cn_coopd_lane() & m) != 0;
        v = hi ? op(o, v) : op(v, o);
    }
    return v;
}
static __device__ __forceinline__ uint64_t cn_coopd_reduce_u64(uint64_t v, uint64_t (*op)(uint64_t, uint64_t))
{
    bool hi;
    for (unsigned m = 16; m >= 1; m /= 2) {
        uint64_t o = __shfl_xor_sync(CN_COOPD_FULL, (unsigned long long)v, (int)m);
        hi = (cn_coopd_lane() & m) != 0;
        v = hi ? op(o, v) : op(v, o);
    }
    return v;
}

static __device__ __forceinline__ uint32_t cn_coopd_bits_f32(float v) { return __float_as_uint(v); }
static __device__ __forceinline__ uint64_t cn_coopd_bits_f64(double v) { return (uint64_t)__double_as_longlong(v); }
static __device__ __forceinline__ float cn_coopd_from_bits_f32(uint32_t b) { return __uint_as_float(b); }
static __device__ __forceinline__ double cn_coopd_from_bits_f64(uint64_t b) { return __longlong_as_double((long long)b); }

/* ------------------------------------------------- pipeline stages */

/* p.fill(x, start, count) on the device, after its guards (cn_fill_check),
 * this thread's share of the stage (elements threadIdx.x, + blockDim.x, ...): from sm_80 one cp.async per
 * element -- 16 bytes at a time where the source and the stage allow --
 * committed as one group (every thread commits one per fill, so the
 * groups count alike in every thread); below sm_80 plain copies, which the
 * wait's __syncthreads() publishes. Past count the stage is zeroed by plain
 * stores, published by the same barrier. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
static __device__ __forceinline__ void cn_coopd_cp_elem(char *d, const char *s, size_t esz)
{
    unsigned sa = (unsigned)__cvta_generic_to_shared(d);
    if (esz == 4)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(sa), "l"(s) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(sa), "l"(s) : "memory");
}
#endif

/* An element of esz bytes (2, 4 or 8) stored at d: the low bytes of bits. */
static __device__ __forceinline__ void cn_coopd_put_elem(char *d, uint64_t bits, unsigned esz)
{
    if (esz == 2)
        *(uint16_t *)d = (uint16_t)bits;
    else if (esz == 4)
        *(uint32_t *)d = (uint32_t)bits;
    else
        *(uint64_t *)d = bits;
}

/* One element copied from s to d: a cp.async from sm_80 for 4 and 8
 * bytes; 2 bytes (no cp.async moves them) and older targets by a plain load
 * and store, which the wait's __syncthreads() publishes. */
static __device__ __forceinline__ void cn_coopd_copy_elem(char *d, const char *s, unsigned esz)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (esz != 2) {
        cn_coopd_cp_elem(d, s, esz);
        return;
    }
#endif
    cn_coopd_put_elem(d, esz == 2 ? *(const uint16_t *)s : esz == 4 ? *(const uint32_t *)s : *(const uint64_t *)s,
                      esz);
}

/* Element e of a fill (32-bit counters: a stage is at most 48 KiB, and
 * count <= n, which cn_fill_check made sure of before the call). */
static __device__ __forceinline__ void cn_coopd_fill_elem(char *d, const char *s, unsigned e, unsigned count,
                                                          unsigned esz)
{
    if (e >= count)
        cn_coopd_put_elem(d + e * esz, 0, esz);
    else
        cn_coopd_copy_elem(d + e * esz, s + (size_t)e * esz, esz);
}

/*
 * A pipeline's team: the threads [LO, LO + N) that make all its fills. The
 * emitter gives each of a region's K pipelines its own K-th of the block's
 * warps where the warps divide evenly (emit_coop.c, pipe_team), else the
 * whole block. Each warp then pays one fill's fixed part (the guards, the
 * 16-byte test, the walk's setup, the pad memo) where it paid every
 * pipeline's: in tile128's step that part was 320 of 469 instructions
 * (evidence/2026-12-07-h100-call34.md), and a team makes the same copies in
 * all with twice as many a thread. A team is fixed for the pipeline, so
 * each member's pad memo sees every fill of it. A thread outside the team
 * commits an empty group (cn_coopd_commit), so every thread's groups keep
 * the count the waits were given (cp.async.wait_group is per thread).
 */
#ifndef CN_COOPD_TEAMS
/* 1 (the default): teams. On an H100 (evidence/2026-12-07-h100-call37.md)
 * tile128 ran at 187-202 TFLOP/s with them where it ran at 160-171
 * without, tile64 at 109-114 (105-111), tile32 42-44 (41-44); they passed
 * the device programs' criteria and memcheck and racecheck there. 0: every
 * thread makes every fill (the device suite's `noteams` test). */
#define CN_COOPD_TEAMS 1
#endif
template <unsigned LO, unsigned N>
static __device__ __forceinline__ bool cn_coopd_in_team()
{
    return !CN_COOPD_TEAMS || threadIdx.x - LO < N;
}
/* A fill's first thread and its thread count: the team's, or, with teams
 * off, the block's T. */
#define CN_COOPD_TEAM_TID(LO) (CN_COOPD_TEAMS ? threadIdx.x - (LO) : threadIdx.x)
#define CN_COOPD_TEAM_N(N, T) (CN_COOPD_TEAMS ? (N) : (T))

static __device__ __forceinline__ void cn_coopd_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

/* p.fill(x, start, count) by the block's threads: 16-byte copies where
 * both ends allow, the rest (and the zeroes past count) an element each.
 * The counters are 32-bit: a fill runs every step of a pipelined loop, and
 * 64-bit counters made it most of the step's instructions (the strided sums
 * of bench/dev/pipe_bench.cu, evidence/2026-12-04-wide-lanes.md). */
template <unsigned LO, unsigned N, unsigned T>
static __device__ __forceinline__ void cn_coopd_fill(void *stage, const void *src, size_t start, size_t count,
                                                     unsigned n, unsigned esz)
{
    char *d = (char *)stage;
    const char *s = (const char *)src + start * esz;
    const unsigned cnt = (unsigned)count, tid = CN_COOPD_TEAM_TID(LO), step = CN_COOPD_TEAM_N(N, T);
    unsigned e0 = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if ((((uintptr_t)d | (uintptr_t)s) & 15) == 0) {
        /* whole 16-byte chunks inside count by one copy each */
        const unsigned per = 16 / esz, full = cnt / per;
        const unsigned da = (unsigned)__cvta_generic_to_shared(d);
        for (unsigned k = tid; k < full; k += step)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(da + k * 16), "l"(s + (size_t)k * 16)
                         : "memory");
        e0 = full * per;
    }
#endif
    for (unsigned e = e0 + tid; e < n; e += step)
        cn_coopd_fill_elem(d, s, e, cnt, esz);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

/* 1: fill_rows writes the pad past each row's columns in 16-byte stores
 * where the stage allows (opt-in until measured on a GPU). */
#ifndef CN_COOPD_PAD16
#define CN_COOPD_PAD16 0
#endif

/* cairn_coop.h's cn_coop_swizzle on the device. */
static __device__ __forceinline__ unsigned cn_coopd_swizzle(unsigned o, unsigned swz)
{
    unsigned mask = ((1u << (swz & 255)) - 1) << (swz >> 8 & 255);
    return o ^ ((o >> (swz >> 16)) & mask);
}

/* The pads of a row fill (what cn_coopd_fill_rows says), by the block's
 * threads: the rest of each row, then the rows past R. */
static __device__ __forceinline__ void cn_coopd_fill_pads(char *d, unsigned R, unsigned C, unsigned P, unsigned swz,
                                                          unsigned n, unsigned esz, uint64_t pad, unsigned tid,
                                                          unsigned step)
{
#if CN_COOPD_PAD16
    /* the pad in 16-byte stores: a row's pad is whole runs of 16 bytes
     * that the swizzle keeps whole (bench/dev/call28.sh measures it) */
    if (P > C && esz >= 2 && (((uintptr_t)d & 15) | ((C * esz) & 15) | ((P * esz) & 15)) == 0 &&
        (swz == 0 || (esz << (swz >> 8 & 255)) % 16 == 0)) {
        const unsigned runs = (P - C) * esz / 16;
        const uint32_t w = esz == 2 ? (uint32_t)(pad & 0xffffu) * 0x10001u : (uint32_t)pad,
                       w2 = esz == 8 ? (uint32_t)(pad >> 32) : w;
#pragma unroll 1
        for (unsigned k = tid; k < R * runs; k += step) {
            unsigned r = k / runs, q = k - r * runs;
            *(uint4 *)(d + cn_coopd_swizzle(r * P + C + q * 16 / esz, swz) * esz) = make_uint4(w, w2, w, w2);
        }
        C = P; /* nothing left for the element loop below */
    }
#endif
    /* (not unrolled: with the step a constant nvcc unrolled these loops,
     * which run on a stage's first fills only, and the registers they took
     * spilled tile128's fast kernel) */
    if (P > C) /* the rest of each row */
#pragma unroll 1
        for (unsigned k = tid, g = P - C; k < R * g; k += step) {
            unsigned r = k / g, c = C + (k - r * g);
            cn_coopd_put_elem(d + cn_coopd_swizzle(r * P + c, swz) * esz, pad, esz);
        }
#pragma unroll 1
    for (unsigned e = R * P + tid; e < n; e += step) /* the rows past rows */
        cn_coopd_put_elem(d + cn_coopd_swizzle(e, swz) * esz, pad, esz);
}

/* What a pipeline's row fills last padded: the geometry and the pad of
 * the last row fill, and which stages (bit s) hold its pads since. Only
 * fills write a stage (E-ASSIGN refuses any other write), and a row fill's
 * copies touch only elements r * pitch + c with r < rows and c < cols, so
 * a stage filled again with the same rows, cols, pitch, swizzle and pad
 * holds every pad already: the fill skips them. In tile64's steady loop
 * the pads were most of a step's instructions (counted in its sm_90a SASS).
 * A plain fill rewrites its whole stage and clears the stage's bit. Each
 * thread keeps its own copy; the arguments are the same in every thread,
 * so every thread skips or writes alike. */
/* 1 (the default): row fills skip the pads their stage holds. On an H100
 * it took tile64 from 60-66 TFLOP/s to 77-83 at 4096^3 and 8192^3, and,
 * with tile128's fast kernel held to 128 registers (CN_COOPD_BOUNDS),
 * tile128 from 122-130 to 145-154; tests/dev/run_pipeline_pads.cairn and
 * the device suite's padmemo test passed there
 * (evidence/2026-12-07-h100-fills.md). 0 writes every pad every fill. */
#ifndef CN_COOPD_PADMEMO
#define CN_COOPD_PADMEMO 1
#endif
struct cn_coopd_padmemo {
    uint32_t rc, psw;   /* rows | cols << 16, pitch | swizzle << 16 | 1 << 31; psw 0: none */
    uint64_t pad;
    unsigned held;
};

/* Whether stage `slot`'s pads are there already; else records that this
 * fill writes them. The geometry is two words (R, C, P below 2^16: a
 * stage is at most 48 KiB; the swizzle's three fields below 2^5), compared
 * as they are, where a 64-bit key built each fill took 20 instructions of
 * tile128's step; one that does not pack writes its pads every time. */
static __device__ __forceinline__ bool cn_coopd_pads_held(struct cn_coopd_padmemo *m, unsigned slot, unsigned R,
                                                          unsigned C, unsigned P, unsigned swz, uint64_t pad)
{
    if (!CN_COOPD_PADMEMO || (R | C | P) >> 16 || (swz & ~0x1f1f1fu))
        return false;
    const uint32_t rc = R | C << 16,
                   psw = P | ((swz & 31) | (swz >> 8 & 31) << 5 | (swz >> 16 & 31) << 10) << 16 | 1u << 31;
    if (m->rc == rc && m->psw == psw && m->pad == pad) {
        if (m->held >> slot & 1)
            return true;
    } else {
        m->rc = rc, m->psw = psw, m->pad = pad, m->held = 0;
    }
    m->held |= 1u << slot;
    return false;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
/* Whether a row fill moves in 16-byte copies: both bases, each row's
 * columns, the pitch and the stride whole 16-byte runs, and a swizzle
 * that keeps 16-byte runs together. One OR and one test where the sizes
 * are constants. */
static __device__ __forceinline__ bool cn_coopd_rows_chunky(const char *d, const char *s, unsigned C, unsigned P,
                                                            size_t stride, unsigned swz, unsigned esz)
{
    return ((((uintptr_t)d | (uintptr_t)s) | (C * esz) | (P * esz) | ((unsigned)stride * esz)) & 15) == 0 &&
           (swz == 0 || (esz << (swz >> 8 & 255)) % 16 == 0);
}

/* R rows of `per` 16-byte chunks, a power of two dividing the block's
 * `step` threads, stage rows P elements apart: each thread keeps one column
 * of chunks, q, and steps down the rows step / per at a time, so both
 * addresses move by a constant, where a chunk's (row, column) from its
 * number took a division and two products a copy (25 instructions a copy
 * in tile128's sm_90a SASS, 9 so). */
static __device__ __forceinline__ void cn_coopd_rows_columns(unsigned da, const char *s, unsigned R, unsigned per,
                                                             unsigned P, size_t stride, unsigned esz, unsigned tid,
                                                             unsigned step)
{
    const unsigned lg = (unsigned)__popc(per - 1), r0 = tid >> lg, dr = step >> lg;
    const size_t rs = stride * esz;
    const char *from = s + (size_t)r0 * rs + (tid & (per - 1)) * 16;
    unsigned to = da + r0 * P * esz + (tid & (per - 1)) * 16;
    for (unsigned r = r0; r < R; r += dr, from += (size_t)dr * rs, to += dr * P * esz)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to), "l"(from) : "memory");
}
#endif

/* p.fill_rows(x, start, stride, rows, cols, pitch, pad) by the block's
 * threads, after its guards (cn_fill_rows_check): row r < rows of the
 * stage (at r * pitch) takes x[start + r * stride ..][0 .. cols], by
 * 16-byte cp.async copies where every row's ends and both bases allow
 * (a tile of a row-major matrix whose rows are whole 16-byte runs), else
 * an element at a time; the rest of each row, and the rows past rows, get
 * pad (its low esz bytes) by plain stores. All counters 32-bit (a stage
 * is at most 48 KiB). The pads are skipped where the stage holds them
 * already (cn_coopd_padmemo). By the pipeline's team, threads [LO, LO + N)
 * (cn_coopd_in_team), of a block of T: the emitter's constants. */
template <unsigned LO, unsigned N, unsigned T>
static __device__ __forceinline__ void cn_coopd_fill_rows_rc(void *stage, const void *src, size_t start,
                                                             size_t stride, unsigned R, unsigned C, size_t pitch,
                                                             unsigned swz, unsigned n, unsigned esz, uint64_t pad,
                                                             struct cn_coopd_padmemo *memo, unsigned slot)
{
    char *d = (char *)stage;
    const char *s = (const char *)src + start * esz;
    const unsigned tid = CN_COOPD_TEAM_TID(LO), step = CN_COOPD_TEAM_N(N, T);
    const unsigned P = (unsigned)pitch;
    bool chunks = false;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    chunks = cn_coopd_rows_chunky(d, s, C, P, stride, swz, esz);
    if (chunks && C) {
        const unsigned per = C * esz / 16, da = (unsigned)__cvta_generic_to_shared(d);
        if (swz == 0 && 16 % esz == 0 && (per & (per - 1)) == 0 && (step & (per - 1)) == 0) {
            cn_coopd_rows_columns(da, s, R, per, P, stride, esz, tid, step);
        } else {
#pragma unroll 1 /* not the common case: kept short (T a constant unrolled it fourfold) */
            for (unsigned k = tid; k < R * per; k += step) {
                unsigned r = k / per, q = k - r * per;
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                                 da + (unsigned)cn_coopd_swizzle(r * P + q * 16 / esz, swz) * esz),
                             "l"(s + ((size_t)r * stride) * esz + q * 16)
                             : "memory");
            }
        }
    }
#endif
    if (!chunks && C)
#pragma unroll 1
        for (unsigned k = tid; k < R * C; k += step) {
            unsigned r = k / C, c = k - r * C;
            cn_coopd_copy_elem(d + cn_coopd_swizzle(r * P + c, swz) * esz, s + ((size_t)r * stride + c) * esz, esz);
        }
    if (!cn_coopd_pads_held(memo, slot, R, C, P, swz, pad))
        cn_coopd_fill_pads(d, R, C, P, swz, n, esz, pad, tid, step);
    cn_coopd_commit();
}

/* 1: a row fill whose rows and cols are the bounds the emitter read off
 * them (RMAX, CMAX: `min(128, m - i0)` is at most 128) is written a second
 * time with those constants, so its walk's setup, trip count and pad memo
 * key fold; a pipelined loop's fills are that but the last. Opt-in until
 * timed on a GPU (bench/dev/call36.sh). */
#ifndef CN_COOPD_CONST_ROWS
#define CN_COOPD_CONST_ROWS 0
#endif

/* p.fill_rows(...) (cn_coopd_fill_rows_rc), with the bounds of its rows
 * and cols where the emitter knows them (0: none). */
template <unsigned LO, unsigned N, unsigned T, unsigned RMAX, unsigned CMAX>
static __device__ __forceinline__ void cn_coopd_fill_rows(void *stage, const void *src, size_t start, size_t stride,
                                                          size_t rows, size_t cols, size_t pitch, unsigned swz,
                                                          unsigned n, unsigned esz, uint64_t pad,
                                                          struct cn_coopd_padmemo *memo, unsigned slot)
{
    if (CN_COOPD_CONST_ROWS && RMAX && CMAX && rows == RMAX && cols == CMAX)
        cn_coopd_fill_rows_rc<LO, N, T>(stage, src, start, stride, RMAX, CMAX, pitch, swz, n, esz, pad, memo, slot);
    else
        cn_coopd_fill_rows_rc<LO, N, T>(stage, src, start, stride, (unsigned)rows, (unsigned)cols, pitch, swz, n, esz,
                                        pad, memo, slot);
}

/* p.wait(): the thread's own fills but the newest K landed, then the block
 * meets, so every thread's copies are visible to every thread. K is the
 * stage checker's count of the fills that stay in flight (call.stage_keep). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define CN_COOPD_STAGE_WAIT(K)                                                \
    do {                                                                      \
        asm volatile("cp.async.wait_group %0;" ::"n"(K) : "memory");          \
        __syncthreads();                                                      \
    } while (0)
/* A wait another wait follows at once: the later one's barrier serves both
 * (CN_COOPD_WAIT_MERGE=0: each its own, for bench/dev/call28.sh). */
#if defined(CN_COOPD_WAIT_MERGE) && !CN_COOPD_WAIT_MERGE
#define CN_COOPD_STAGE_WAIT_ONLY(K) CN_COOPD_STAGE_WAIT(K)
#else
#define CN_COOPD_STAGE_WAIT_ONLY(K) asm volatile("cp.async.wait_group %0;" ::"n"(K) : "memory")
#endif
/* The end of a block with pipelines: no copy may land in the next block's
 * shared memory. */
#define CN_COOPD_STAGES_DRAIN() asm volatile("cp.async.wait_all;" ::: "memory")
#else
#define CN_COOPD_STAGE_WAIT(K) __syncthreads()
#define CN_COOPD_STAGE_WAIT_ONLY(K) ((void)0)
#define CN_COOPD_STAGES_DRAIN() ((void)0)
#endif

/* Where a block (or the finish) starts: its `= zeroed` array of `bytes`
 * bytes at p (128-byte aligned) zeroed, every thread a stride of words.
 * The caller's __syncthreads() follows. */
static __device__ __forceinline__ void cn_coopd_zero(unsigned char *p, size_t bytes)
{
    size_t words = bytes / 4;
    for (size_t i = threadIdx.x; i < words; i += blockDim.x)
        ((uint32_t *)p)[i] = 0;
    for (size_t i = words * 4 + threadIdx.x; i < bytes; i += blockDim.x)
        p[i] = 0;
}

/* ====================================== the emulated machine's kernels */

#else /* CN_DEV_EMULATED */

/*
 * A region on the emulated machine runs as the host runs one: each block's
 * T threads are real threads that meet at barriers, two blocks at a time,
 * with the host's warp operations, the same butterfly and the pattern fill
 * of unzeroed shared arrays (cairn_coop.h, cn_coop_run_hooked; no second
 * thread-team runtime). The compiler writes the region's body and finish a
 * second time for it, in the host's lowering (emit_coop.c, the emitted
 * file's `#if CN_DEV_EMULATED` section beside the CUDA kernel):
 *
 *   static void r1_ebody(void *e, size_t p, unsigned t, unsigned char *sh,
 *                        struct cn_coop_thread *th)
 *   {   const struct r1 *a = cn_coop_emu_args(e);   the launch's arguments
 *       size_t b0, b1, b2; cn_coop_emu_names(e, p, &b0, &b1, &b2);
 *       ... the body: cn_coop_barrier(th), cn_coop_reduce_u32(th, ...) ... }
 *   static const struct cn_coop_layout r1_ebody_layout = {...};
 *   static const char r1_k_what[] = "cooperative region at f.cairn:3:5 in fn g";
 *   CN_COOP_TEAMS(r1_k, r1_ebody, &r1_ebody_layout, T)
 *     (or CN_COOP_TEAMS_FINISH(r1_k, r1_ebody, &.._layout, r1_efinish, &.._layout, T))
 *
 * and the launch is the device's, cn_coop_launch(s, &r1_k, &grid, &args):
 * device work on the stream like any kernel (counted once, logged, queued,
 * skipped once the machine is poisoned), whose blocks' names come from the
 * grid's dividers as on the device, the finish once after every block, also
 * for an empty grid.
 *
 * A failed guard in a thread traps as an emulated lane does: each thread's
 * emulated lane (cn_emu_lane_now) names the launch and, as its trap exit,
 * the thread's cn_coop_trap_exit, so cn_emu_trap_text records the message
 * in the stream, poisons the machine and longjmps out of the body; the
 * region is cancelled (every thread leaves at its next barrier, no block
 * starts, the finish does not run) and the next wait aborts with the
 * guard's line, as on the device. A machine poisoned by other work stops
 * the region where its next block would start.
 */
#include "cairn_coop.h"

struct cn_coop_kernel {
    const char *name;
    unsigned threads;
    bool finish;
    const struct cn_coop_layout *body_layout, *finish_layout;
    cn_coop_body_fn body, last; /* last: the finish, or NULL */
};

/* What a launch's threads see: the region's arguments, its grid, and the
 * launch as the emulated machine's trap path names it. */
struct cn_coop_emu {
    const void *args;
    const struct cn_coop_grid *grid;
    struct cn_emu_launch *launch;
};

static inline const void *cn_coop_emu_args(const void *e) { return ((const struct cn_coop_emu *)e)->args; }

/* Block p's names, from the grid's dividers as on the device. */
static inline void cn_coop_emu_names(const void *e, size_t p, size_t *b0, size_t *b1, size_t *b2)
{
    cn_coop_names(((const struct cn_coop_emu *)e)->grid, p, b0, b1, b2);
}

#define CN_COOP_TEAMS(NAME, BODY, BODY_LAYOUT, THREADS)                                      \
    static const struct cn_coop_kernel NAME = {NAME##_what, THREADS, false, BODY_LAYOUT, NULL, BODY, NULL};

#define CN_COOP_TEAMS_FINISH(NAME, BODY, BODY_LAYOUT, FINISH, FINISH_LAYOUT, THREADS)       \
    static const struct cn_coop_kernel NAME = {NAME##_what, THREADS, true, BODY_LAYOUT, FINISH_LAYOUT, BODY, FINISH};

/* Each thread of the launch is a lane of it for the trap path: a failed
 * guard longjmps to the thread's way out of the region. The thread is new,
 * and ends with the region, so nothing needs putting back. */
static inline void cn_coop_emu_enter(void *e, struct cn_coop_thread *th)
{
    cn_emu_lane_now.launch = ((struct cn_coop_emu *)e)->launch;
    cn_emu_lane_now.trap_exit = cn_coop_trap_exit(th);
}

static inline bool cn_coop_emu_stop(void *e)
{
    (void)e;
    return cn_emu_poisoned();
}

/* The region's blocks on teams of host threads, then its finish once (also
 * for an empty grid), each thread behind the emulated trap path; one launch
 * counted, as the device makes one. */
static inline void cn_coop_launch(struct cn_dev_stream *s, const struct cn_coop_kernel *k,
                                  const struct cn_coop_grid *g, const void *args)
{
    if (g->total == 0 && !k->finish)
        return;
    CN_DEV_COUNT(launch, 1);
    cn_dev_log_kernel(s, k->name);
    cn_dev_queued(s);
    if (cn_emu_poisoned()) /* nothing queued after a trap runs */
        return;
    struct cn_dev_kernel kd = {k->name, k->threads, true, NULL}; /* CUDA: per_sm NULL (exact) */
    struct cn_emu_launch L = {&kd, args, s};
    struct cn_coop_emu E = {args, g, &L};
    struct cn_coop_hooks H = {cn_coop_emu_enter, cn_coop_emu_stop, &E};
    (void)cn_coop_run_hooked((size_t)g->total, k->threads, k->body_layout, k->body, k->finish_layout, k->last, &E,
                             &H);
}

#endif /* CN_DEV_EMULATED */

#endif /* CAIRN_COOPDEV_H */
