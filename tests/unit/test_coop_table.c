/*
 * test_coop_table.c: the host side of a cooperative region's finish
 * counters (struct cn_coop_table, cn_coop_claim in runtime/cairn_coopdev.h),
 * the device block count of its launch, and its launch on the counting
 * machine.
 *
 * What it shows:
 *   - launches on one stream share its word, every launch with a new tag;
 *     two streams never share a word, in any order of 4096 streams;
 *   - a captured launch keeps a word of its own for good: no stream and no
 *     later capture is given it, even once the table is full;
 *   - past 4096 streams, a new stream takes the word of the stream whose
 *     last launch is the oldest, and that stream gets a word again on its
 *     next launch (the index stays consistent through 100000 claims on
 *     random streams, checked against a plain array model);
 *   - with every word kept by captures, a launch gets CN_COOP_NO_WORD;
 *   - the device blocks of a launch: min(total, wave), one wave at most
 *     CN_DEV_MAX_BLOCKS, and one block for an empty grid with a finish;
 *   - on the counting machine a region with a finish over a 3-D grid runs
 *     every block exactly once, on a team of T threads that meet at a
 *     barrier, with the right names, then the finish once, and counts one
 *     launch; an empty grid runs the finish once and no block;
 *   - a machine poisoned by other work while a region runs stops it where
 *     its next block would start (no finish, no thread left waiting);
 *   - a thread that fails a guard there traps as an emulated lane does: the
 *     message in the stream, the machine poisoned, the region cancelled (no
 *     hang; the finish does not run), and a later launch runs nothing.
 *
 * Prints FAIL lines and a last line `N passed, N failed, N skipped`.
 */
#define CAIRN_COUNT 1
#include "cairn_dev.h"

#include "expect.h"

#define check(ok, what) EXPECT(ok, "%s", what)

/* Fake stream handles: the table only compares them. Scattered (a
 * splitmix64 of k), so the index meets collisions and long probe runs, as
 * arbitrary pointers give it; evenly spaced handles would hash apart. */
static const void *stream(unsigned k)
{
    uint64_t z = (uint64_t)k + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (const void *)(uintptr_t)((z ^ (z >> 31)) & 0x7ffffffffff0ull);
}

static struct cn_coop_table *table_new(void) { return (struct cn_coop_table *)calloc(1, sizeof(struct cn_coop_table)); }

static void one_stream_shares(void)
{
    struct cn_coop_table *T = table_new();
    struct cn_coop_claim a = cn_coop_claim(T, stream(1), false);
    struct cn_coop_claim b = cn_coop_claim(T, stream(1), false);
    struct cn_coop_claim c = cn_coop_claim(T, stream(2), false);
    struct cn_coop_claim z = cn_coop_claim(T, NULL, false); /* the legacy stream is a stream too */
    check(a.word == b.word, "one stream's launches share its word");
    check(a.tag != b.tag && a.tag && b.tag, "each launch has a tag of its own, never 0");
    check(c.word != a.word && z.word != a.word && z.word != c.word, "two streams never share a word");
    check(cn_coop_claim(T, NULL, false).word == z.word, "the NULL stream keeps its word");
    free(T);
}

static void captured_keeps(void)
{
    struct cn_coop_table *T = table_new();
    struct cn_coop_claim s = cn_coop_claim(T, stream(1), false);
    struct cn_coop_claim g = cn_coop_claim(T, stream(1), true);
    struct cn_coop_claim h = cn_coop_claim(T, stream(1), true);
    check(g.word != s.word && h.word != g.word && h.word != s.word,
          "a captured launch takes a word of its own, even on a stream that has one");
    check(cn_coop_claim(T, stream(1), false).word == s.word, "the stream keeps its word after a capture");
    /* fill the table with streams, then keep cycling: the kept words never move */
    bool ok = true;
    for (unsigned k = 2; k < 3 * CN_COOP_WORDS; k++) {
        struct cn_coop_claim c = cn_coop_claim(T, stream(k), false);
        ok = ok && c.word != g.word && c.word != h.word && c.word < CN_COOP_WORDS;
    }
    check(ok, "no stream is given a captured launch's word, through 12288 streams");
    check(T->owner[g.word].kind == CN_COOP_KEPT && T->owner[h.word].kind == CN_COOP_KEPT && T->kept == 2,
          "the table records both kept words");
    free(T);
}

static void distinct_streams(void)
{
    struct cn_coop_table *T = table_new();
    static unsigned char seen[CN_COOP_WORDS];
    static uint32_t first[CN_COOP_WORDS];
    memset(seen, 0, sizeof seen);
    bool ok = true;
    for (unsigned k = 0; k < CN_COOP_WORDS; k++) {
        struct cn_coop_claim c = cn_coop_claim(T, stream(k * 7919u), false);
        ok = ok && c.word < CN_COOP_WORDS && !seen[c.word];
        if (c.word < CN_COOP_WORDS)
            seen[c.word] = 1;
        first[k] = c.word;
    }
    check(ok, "4096 streams get 4096 different words");
    /* all taken: stream 0's last launch is the oldest; touch it, and the
     * oldest is the second stream's */
    check(cn_coop_claim(T, stream(0), false).word == first[0], "a stream keeps its word in a full table");
    struct cn_coop_claim n = cn_coop_claim(T, stream(999999), false);
    check(n.word == first[1], "a new stream takes the word of the stream whose last launch is oldest");
    check(cn_coop_claim(T, stream(0), false).word == first[0], "a recently used stream keeps its word");
    struct cn_coop_claim back = cn_coop_claim(T, stream(7919u), false);
    check(back.word == first[2], "the stream that lost its word takes the next oldest on its next launch");
    check(cn_coop_claim(T, stream(999999), false).word == first[1], "the new stream keeps the word it took");
    free(T);
}

/* Random claims on 6000 streams (more than the words) against a plain
 * model of the rule: a stream that holds a word gets it again; one that
 * holds none gets a word no one has had, or, once all are given, the word
 * of the holder whose last launch is the oldest. */
static void random_model(void)
{
    enum { STREAMS = 6000 };
    struct cn_coop_table *T = table_new();
    static uint32_t model[STREAMS];
    static int holder[CN_COOP_WORDS];
    static long last[STREAMS];
    for (unsigned k = 0; k < STREAMS; k++)
        model[k] = CN_COOP_NO_WORD;
    for (unsigned w = 0; w < CN_COOP_WORDS; w++)
        holder[w] = -1;
    uint64_t r = 88172645463325252ull;
    unsigned given = 0;
    bool ok = true;
    for (long i = 0; i < 100000 && ok; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        /* a skewed choice: a few hot streams, many cold ones */
        unsigned k = (unsigned)(r % 8 ? (r >> 8) % 64 : (r >> 8) % STREAMS);
        uint32_t want = model[k];
        if (want == CN_COOP_NO_WORD && given < CN_COOP_WORDS)
            want = given++;
        else if (want == CN_COOP_NO_WORD)
            for (uint32_t w = 0; w < CN_COOP_WORDS; w++)
                if (want == CN_COOP_NO_WORD || last[holder[w]] < last[holder[want]])
                    want = w;
        struct cn_coop_claim c = cn_coop_claim(T, stream(k), false);
        ok = c.word == want;
        if (holder[want] >= 0 && holder[want] != (int)k)
            model[holder[want]] = CN_COOP_NO_WORD;
        model[k] = want;
        holder[want] = (int)k;
        last[k] = i;
    }
    check(ok, "100000 random claims on 6000 streams follow the model of the rule");
    free(T);
}

static void all_kept(void)
{
    struct cn_coop_table *T = table_new();
    bool ok = true;
    for (unsigned k = 0; k < CN_COOP_WORDS; k++)
        ok = ok && cn_coop_claim(T, stream(1), true).word == k;
    check(ok, "4096 captures take the 4096 words");
    check(cn_coop_claim(T, stream(1), false).word == CN_COOP_NO_WORD, "then a stream's launch gets no word");
    check(cn_coop_claim(T, stream(2), true).word == CN_COOP_NO_WORD, "and so does another capture");
    free(T);
}

static void device_blocks(void)
{
    check(cn_coop_device_blocks(0, 1000, false) == 0, "an empty grid, no finish: no launch");
    check(cn_coop_device_blocks(0, 1000, true) == 1, "an empty grid with a finish: one block");
    check(cn_coop_device_blocks(5, 1000, true) == 5, "a small grid: one device block each");
    check(cn_coop_device_blocks(UINT64_MAX, 1056, true) == 1056, "a huge grid: one wave");
    check(cn_coop_device_blocks(UINT64_MAX, 0, false) == 1, "a wave of 0 is 1");
    check(cn_coop_device_blocks(UINT64_MAX, (uint64_t)1 << 40, false) == CN_DEV_MAX_BLOCKS,
          "never past CN_DEV_MAX_BLOCKS");
}

/* ---- a region on the counting machine */

/* The threads of a block: a team of real threads (cairn_coop.h). */
#define REG_T 32

struct reg {
    size_t g0, g1, g2;
    uint32_t *hits;     /* per block: how many of its threads ran */
    uint32_t *bad;      /* names that do not give back the block's number; a thread that
                           passed the barrier before every thread of its block had arrived */
    uint64_t *partial;  /* per block: b0 + 3 * b1 + 5 * b2 */
    uint64_t *out;      /* out[0]: the finish's total; out[1]: finishes run */
    size_t trap_at;     /* the block whose thread 5 fails a guard (SIZE_MAX: none) */
    size_t poison_at;   /* the block whose thread 0 poisons the machine, as a trap in other
                           work would (SIZE_MAX: none) */
};

static void reg_body(void *e, size_t p, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    const struct reg *a = (const struct reg *)cn_coop_emu_args(e);
    size_t b0, b1, b2;
    cn_coop_emu_names(e, p, &b0, &b1, &b2);
    (void)sh;
    if (b0 >= a->g0 || b1 >= a->g1 || b2 >= a->g2 || b0 + a->g0 * (b1 + a->g1 * b2) != p)
        __atomic_fetch_add(a->bad, 1, __ATOMIC_RELAXED);
    if (p == a->trap_at && t == 5)
        cn_dev_trap("coop.cairn", 7, 9, "a thread's guard");
    if (p == a->poison_at && t == 0)
        __atomic_store_n(&cn_emu_machine_global.poisoned, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&a->hits[p], 1, __ATOMIC_RELAXED);
    cn_coop_barrier(th);
    if (__atomic_load_n(&a->hits[p], __ATOMIC_RELAXED) != REG_T)
        __atomic_fetch_add(a->bad, 1, __ATOMIC_RELAXED);
    if (t == 0)
        a->partial[p] = b0 + 3 * b1 + 5 * b2;
}

static void reg_finish(void *e, size_t p, unsigned t, unsigned char *sh, struct cn_coop_thread *th)
{
    const struct reg *a = (const struct reg *)cn_coop_emu_args(e);
    (void)p, (void)sh, (void)th;
    if (t != 0)
        return;
    uint64_t s = 0;
    for (size_t q = 0; q < a->g0 * a->g1 * a->g2; q++)
        s += a->partial[q];
    a->out[0] = s;
    a->out[1]++;
}

static const struct cn_coop_layout reg_layout = {0, NULL, 0};
static const char reg_k_what[] = "region at coop.cairn:1:1";
CN_COOP_TEAMS_FINISH(reg_k, reg_body, &reg_layout, reg_finish, &reg_layout, REG_T)

static struct reg reg_new(size_t g0, size_t g1, size_t g2)
{
    size_t n = g0 * g1 * g2;
    struct reg a = {g0, g1, g2, (uint32_t *)calloc(n + 1, 4), (uint32_t *)calloc(1, 4),
                    (uint64_t *)calloc(n + 1, 8), (uint64_t *)calloc(2, 8), SIZE_MAX, SIZE_MAX};
    a.out[0] = 12345;
    return a;
}

static void reg_free(struct reg *a) { free(a->hits), free(a->bad), free(a->partial), free(a->out); }

static void emulated_region(size_t g0, size_t g1, size_t g2)
{
    struct reg a = reg_new(g0, g1, g2);
    struct cn_coop_grid g;
    cn_coop_grid_make(&g, g0, g1, g2);
    struct cn_dev_stream s;
    cn_dev_stream_create(&s);
    unsigned long before = cn_dev_count_snapshot().launch;
    cn_coop_launch(&s, &reg_k, &g, &a);
    cn_dev_stream_synchronize(&s);
    bool once = true;
    uint64_t want = 0;
    for (size_t c = 0; c < g2; c++)
        for (size_t b = 0; b < g1; b++)
            for (size_t x = 0; x < g0; x++) {
                once = once && a.hits[x + g0 * (b + g1 * c)] == REG_T;
                want += x + 3 * b + 5 * c;
            }
    char what[200];
    snprintf(what, sizeof what, "grid %zu x %zu x %zu: every block once on a team of %d threads, names right, "
             "the finish once with the total, one launch", g0, g1, g2, REG_T);
    check(once && *a.bad == 0 && a.out[1] == 1 && a.out[0] == want &&
          cn_dev_count_snapshot().launch == before + 1, what);
    reg_free(&a);
}

/* Work on another stream traps while a region runs (here: a block poisons
 * the machine as that trap would): no later block starts, as no later index
 * of a lane does, the finish does not run, and the region ends, no thread
 * left waiting. The machine is then made clean again for the next test. */
static void emulated_stop(void)
{
    struct reg a = reg_new(200, 1, 1);
    a.poison_at = 5;
    struct cn_coop_grid g;
    cn_coop_grid_make(&g, 200, 1, 1);
    struct cn_dev_stream s;
    cn_dev_stream_create(&s);
    cn_coop_launch(&s, &reg_k, &g, &a);
    size_t ran = 0;
    for (size_t p = 0; p < 200; p++)
        ran += a.hits[p] != 0;
    /* at most the blocks the two teams had started when block 5 poisoned the machine */
    check(cn_emu_poisoned() && !s.trapped && a.hits[5] == REG_T && ran <= 8 && a.out[1] == 0,
          "a machine poisoned while a region runs: no later block starts, the finish does not run");
    __atomic_store_n(&cn_emu_machine_global.poisoned, 0, __ATOMIC_RELEASE);
    reg_free(&a);
}

/* Last: the machine stays poisoned for the rest of the process. */
static void emulated_trap(void)
{
    struct reg a = reg_new(40, 1, 1);
    a.trap_at = 3;
    struct cn_coop_grid g;
    cn_coop_grid_make(&g, 40, 1, 1);
    struct cn_dev_stream s;
    cn_dev_stream_create(&s);
    cn_coop_launch(&s, &reg_k, &g, &a);
    size_t ran = 0;
    for (size_t p = 0; p < 40; p++)
        ran += a.hits[p] != 0;
    check(cn_emu_poisoned() && s.trapped && strstr(s.trap_text, "coop.cairn:7:9: guard failed: a thread's guard") &&
          s.trap_kernel == reg_k.name, "a thread's failed guard: the message in its stream, the machine poisoned");
    check(a.out[1] == 0 && a.out[0] == 12345 && ran < 40 && a.hits[3] < REG_T,
          "a thread's failed guard: the region is cancelled, no later block starts, the finish does not run");
    struct reg b = reg_new(4, 1, 1);
    cn_coop_grid_make(&g, 4, 1, 1);
    unsigned long before = cn_dev_count_snapshot().launch;
    cn_coop_launch(&s, &reg_k, &g, &b);
    check(b.hits[0] == 0 && b.out[1] == 0 && cn_dev_count_snapshot().launch == before + 1,
          "after a trap a launch is counted and runs nothing");
    reg_free(&a);
    reg_free(&b);
}

int main(void)
{
    one_stream_shares();
    captured_keeps();
    distinct_streams();
    random_model();
    all_kept();
    device_blocks();
    emulated_region(37, 5, 3);
    emulated_region(1000, 1, 1);
    emulated_region(1, 1, 700);
    emulated_region(0, 4, 4);
    emulated_region(4, 0, 4);
    emulated_region(4, 4, 0);
    emulated_stop();
    emulated_trap();
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
