/*
 * test_scan_step.c: a device scan's checked + keeps prefixes that wrap in
 * the value type (src/emit.h, ACC_WRAP) and checks, where it stores each
 * prefix, the one step from the prefix before it (runtime/cairn_par.h,
 * cn_par_step_T). The claim: the scan traps exactly when some prefix does
 * not fit, whatever order the look-back merged the partials in.
 *
 *   1. The step's predicate on every (before, term) pair of i8 and u8, and
 *      of i16 and u16 against every term for 512 befores (the edges and a
 *      stride), against the exact sum in 64 bits.
 *   2. A brute-force judge: random sequences of i8, u8, i16 and u16 terms
 *      (drawn to wander near the type's edges), their wrapped prefixes
 *      built as the device does (tiles of random sizes, each tile's
 *      aggregate merged in a random tree of wrapping adds), and every
 *      stored prefix's step checked. A trap must happen exactly when an
 *      exact prefix leaves the type, and the first index whose exact prefix
 *      leaves it must be among those that trap; when none traps every
 *      stored prefix must equal the exact one.
 *   3. The guard itself, in a child: its message.
 */
#include "cairn_rt.h"
#include "cairn_par.h"

#include "child_guard.h"
#include "expect.h"

#include <stdlib.h>

/* The four types as one interface: wrap v into the type, the step's predicate. */
typedef struct {
    const char *name;
    int bits, sgn;
} Ty;

static const Ty TYS[] = {{"i8", 8, 1}, {"u8", 8, 0}, {"i16", 16, 1}, {"u16", 16, 0}};

static int64_t lo_of(const Ty *t) { return t->sgn ? -((int64_t)1 << (t->bits - 1)) : 0; }
static int64_t hi_of(const Ty *t) { return t->sgn ? ((int64_t)1 << (t->bits - 1)) - 1 : ((int64_t)1 << t->bits) - 1; }

static int64_t wrap(const Ty *t, int64_t v)
{
    uint64_t m = ((uint64_t)1 << t->bits) - 1, u = (uint64_t)v & m;
    if (t->sgn && (u >> (t->bits - 1)))
        return (int64_t)u - ((int64_t)1 << t->bits);
    return (int64_t)u;
}

static bool over(const Ty *t, int64_t b, int64_t a)
{
    switch (t->bits * 2 + t->sgn) {
    case 17: return cn_par_step_over_i8((int8_t)b, (int8_t)a);
    case 16: return cn_par_step_over_u8((uint8_t)b, (uint8_t)a);
    case 33: return cn_par_step_over_i16((int16_t)b, (int16_t)a);
    default: return cn_par_step_over_u16((uint16_t)b, (uint16_t)a);
    }
}

/* 1: the predicate is "before + term leaves the type". */
static void step_pairs(const Ty *t)
{
    int64_t lo = lo_of(t), hi = hi_of(t), bad = 0, pairs = 0;
    for (int64_t bi = 0; bi <= hi - lo; bi += t->bits == 8 ? 1 : 131) {
        int64_t b = lo + bi;
        for (int64_t y = lo; y <= hi; y++) {
            int64_t s = b + y;
            bool want = s < lo || s > hi;
            pairs++;
            if (over(t, b, wrap(t, s)) != want && bad++ < 3)
                printf("  %s: before %lld term %lld: step says %d\n", t->name, (long long)b, (long long)y, !want);
        }
    }
    EXPECT(bad == 0, "%s: %lld of %lld (before, term) pairs judged wrong", t->name, (long long)bad, (long long)pairs);
}

/* A term near the edges: small steps mostly, the type's extremes sometimes. */
static int64_t draw(const Ty *t, unsigned *seed)
{
    int64_t lo = lo_of(t), hi = hi_of(t);
    int r = rand_r(seed) % 8;
    if (r == 0)
        return hi;
    if (r == 1)
        return lo;
    if (r < 4)
        return lo + rand_r(seed) % (hi - lo + 1);
    int64_t s = (hi - lo) / 5;
    int64_t v = rand_r(seed) % (2 * s + 1) - s;
    return v < lo ? lo : v > hi ? hi : v;
}

/* The merge of x[i..j) in a random tree of wrapping adds. */
static int64_t tree(const Ty *t, const int64_t *x, int i, int j, unsigned *seed)
{
    if (j - i == 1)
        return x[i];
    int m = i + 1 + rand_r(seed) % (j - i - 1);
    return wrap(t, tree(t, x, i, m, seed) + tree(t, x, m, j, seed));
}

enum { NMAX = 96 };

/* 2: one random scan; returns 1 when it trapped. */
static int judge_one(const Ty *t, unsigned *seed, int *wrong)
{
    int n = 1 + rand_r(seed) % NMAX;
    int64_t x[NMAX], exact[NMAX], pre[NMAX], lo = lo_of(t), hi = hi_of(t);
    for (int i = 0; i < n; i++)
        x[i] = draw(t, seed);
    /* Keep the exact prefixes in range for most of the run, then let them go. */
    int64_t s = 0;
    int first_out = -1;
    for (int i = 0; i < n; i++) {
        if (rand_r(seed) % 4 && (s + x[i] < lo || s + x[i] > hi))
            x[i] = -x[i] < lo || -x[i] > hi ? 0 : -x[i];
        if (s + x[i] < lo || s + x[i] > hi)
            x[i] = rand_r(seed) % 3 ? 0 : x[i];
        s += x[i];
        exact[i] = s;
        if (first_out < 0 && (s < lo || s > hi))
            first_out = i;
    }
    /* The device's order: tiles; a tile's prefix from the aggregates of
     * earlier tiles merged in a random tree; within a tile, a running sum. */
    int tiles[NMAX + 1], T = 0;
    for (int i = 0; i < n; i += 1 + rand_r(seed) % 9)
        tiles[T++] = i;
    tiles[T] = n;
    int64_t agg[NMAX + 1];
    for (int k = 0; k < T; k++)
        agg[k] = tree(t, x, tiles[k], tiles[k + 1], seed);
    for (int k = 0; k < T; k++) {
        int64_t p = k == 0 ? 0 : tree(t, agg, 0, k, seed);
        for (int i = tiles[k]; i < tiles[k + 1]; i++)
            pre[i] = p = wrap(t, p + x[i]);
    }
    int trapped = 0, first_trapped = 0;
    for (int i = 0; i < n; i++)
        if (over(t, i ? pre[i - 1] : 0, pre[i])) {
            trapped = 1;
            if (i == first_out)
                first_trapped = 1;
        }
    if (trapped != (first_out >= 0) || (first_out >= 0 && !first_trapped))
        (*wrong)++;
    if (!trapped)
        for (int i = 0; i < n; i++)
            if (pre[i] != exact[i])
                (*wrong)++;
    return trapped;
}

static void judge(const Ty *t)
{
    unsigned seed = 0x5ca9u + (unsigned)t->bits * 7 + (unsigned)t->sgn;
    int wrong = 0, traps = 0, runs = 20000;
    for (int r = 0; r < runs; r++)
        traps += judge_one(t, &seed, &wrong);
    EXPECT(wrong == 0, "%s: %d of %d random scans judged wrong", t->name, wrong, runs);
    /* The draw must exercise both outcomes, or the judge proves nothing. */
    EXPECT(traps > runs / 20 && traps < runs - runs / 20, "%s: %d of %d scans trapped", t->name, traps, runs);
}

static void trap_i32(void) { (void)cn_par_step_i32(INT32_MAX - 2, INT32_MIN + 1, "a prefix of scan + parallel", "s.cairn", 4, 3); }
static void trap_u64(void) { (void)cn_par_step_u64(5, 1, "a prefix of scan + parallel", "s.cairn", 7, 9); }

int main(void)
{
    for (size_t i = 0; i < sizeof TYS / sizeof TYS[0]; i++) {
        step_pairs(&TYS[i]);
        judge(&TYS[i]);
    }
    EXPECT(cn_par_step_i32(-7, 5, "w", "s.cairn", 1, 1) == 5, "a step that fits returns the prefix");
    EXPECT(cn_par_step_i64(INT64_MAX - 1, INT64_MAX, "w", "s.cairn", 1, 1) == INT64_MAX, "a step to INT64_MAX fits");
    EXPECT(cn_par_step_over_i64(INT64_MIN, INT64_MAX), "INT64_MIN + (-1) does not fit, though its wrap is INT64_MAX");
    EXPECT(child_guard(trap_i32, "s.cairn:4:3: guard failed: integer overflow: a prefix of scan + parallel does not fit in i32"),
           "an i32 step past INT32_MAX traps with the scan's message");
    EXPECT(child_guard(trap_u64, "s.cairn:7:9: guard failed: integer overflow: a prefix of scan + parallel does not fit in u64"),
           "a u64 step past 2^64 traps");
    return expect_summary();
}
