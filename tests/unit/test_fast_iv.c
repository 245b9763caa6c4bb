/*
 * test_fast_iv.c: the interval arithmetic that decides, at a region's
 * launch, whether its fast version may run (struct cn_iv in
 * runtime/cairn_coopdev.h; src/emit_fast.c writes the calls).
 *
 * The judge is brute force: with a small type (max = 63, so every operand
 * pair can be enumerated), for every pair of intervals [a0, a1], [b0, b1]
 * inside 0..80 and every operation, it runs the operation on every value
 * pair the way the checked helper would (a guard when the exact result
 * passes max, goes below zero or divides by zero), and holds the interval
 * to it:
 *   - sound: when cn_iv_fine says the operation is fine, no value pair
 *     fails its guard, and every exact result lies in [lo, hi];
 *   - cn_iv_below(r, n) true means every result is below n;
 *   - narrowing (lt, le, gt, ge) keeps every value that passes the test;
 *     an empty narrowing means no value passes; a span holds every counter
 *     value of `for k in lo..hi` over every lo, hi in the intervals.
 * It also checks precision where the result is exact (a fine operation on
 * single values gives that value), and the 64-bit edges: 2^64 - 1 + 1 and
 * 2^32 * 2^32 are bad, 2^32 * (2^32 - 1) is fine, products of two maximal
 * bounds do not wrap 128 bits; and the meet a condition's fact adds.
 *
 * Prints FAIL lines and a last line `N passed, N failed, N skipped`.
 */
#define CAIRN_EMULATE 1
#include "cairn_dev.h"

static int passed, failed;

static void check(bool ok, const char *what, int a0, int a1, int b0, int b1)
{
    if (ok)
        passed++;
    else if (failed++ < 20)
        printf("FAIL fast intervals: %s ([%d, %d] with [%d, %d])\n", what, a0, a1, b0, b1);
}

static struct cn_iv iv(int lo, int hi)
{
    struct cn_iv r = {(unsigned __int128)lo, (unsigned __int128)hi, false, false};
    return r;
}

enum { MAX = 63, TOP = 80 };

/* The exact result of op on x and y, and whether the checked helper fails. */
static bool exact(int op, long x, long y, long *out)
{
    switch (op) {
    case 0: *out = x + y; return *out <= MAX;
    case 1: *out = x - y; return *out >= 0;
    case 2: *out = x * y; return *out <= MAX;
    case 3: if (!y) return false; *out = x / y; return true;
    default: if (!y) return false; *out = x % y; return true;
    }
}

static struct cn_iv apply(int op, struct cn_iv a, struct cn_iv b)
{
    switch (op) {
    case 0: return cn_iv_add(a, b, MAX);
    case 1: return cn_iv_sub(a, b, MAX);
    case 2: return cn_iv_mul(a, b, MAX);
    case 3: return cn_iv_div(a, b, MAX);
    default: return cn_iv_rem(a, b, MAX);
    }
}

static const char *const names[5] = {"add", "sub", "mul", "div", "rem"};

/* Operands inside 0..MAX (a value past max never reaches an operation: its
 * own operation was bad), intervals on a stride so the run stays short. */
static void operations(void)
{
    for (int op = 0; op < 5; op++)
        for (int a0 = 0; a0 <= MAX; a0 += 3)
            for (int a1 = a0; a1 <= MAX; a1 += 5)
                for (int b0 = 0; b0 <= MAX; b0 += 3)
                    for (int b1 = b0; b1 <= MAX; b1 += 7) {
                        struct cn_iv r = apply(op, iv(a0, a1), iv(b0, b1));
                        bool all_ok = true, in = true, below = true;
                        long n = (long)(r.hi + 1);
                        for (long x = a0; x <= a1; x++)
                            for (long y = b0; y <= b1; y++) {
                                long v;
                                if (!exact(op, x, y, &v)) {
                                    all_ok = false;
                                    continue;
                                }
                                in = in && (unsigned __int128)v >= r.lo && (unsigned __int128)v <= r.hi;
                                below = below && v < n;
                            }
                        if (cn_iv_fine(r)) {
                            check(all_ok, names[op], a0, a1, b0, b1);
                            check(in, "result inside [lo, hi]", a0, a1, b0, b1);
                            check(cn_iv_below(r, (uint64_t)n) == below, "below hi + 1", a0, a1, b0, b1);
                        } else {
                            check(!cn_iv_below(r, 1000), "a bad interval is below nothing", a0, a1, b0, b1);
                        }
                        if (a0 == a1 && b0 == b1 && all_ok)
                            check(cn_iv_fine(r) && r.lo == r.hi, "single values give their exact result", a0, a1,
                                  b0, b1);
                    }
}

/* v narrowed by v OP e keeps every v that passes for some e; empty: none does. */
static void narrowing(void)
{
    for (int op = 0; op < 4; op++)
        for (int a0 = 0; a0 <= 40; a0 += 3)
            for (int a1 = a0; a1 <= 40; a1 += 4)
                for (int b0 = 0; b0 <= 40; b0 += 3)
                    for (int b1 = b0; b1 <= 40; b1 += 5) {
                        struct cn_iv v = iv(a0, a1), e = iv(b0, b1);
                        struct cn_iv r = op == 0 ? cn_iv_lt(v, e) : op == 1 ? cn_iv_le(v, e)
                                       : op == 2 ? cn_iv_gt(v, e) : cn_iv_ge(v, e);
                        bool any = false, kept = true;
                        for (int x = a0; x <= a1; x++)
                            for (int y = b0; y <= b1; y++) {
                                bool pass = op == 0 ? x < y : op == 1 ? x <= y : op == 2 ? x > y : x >= y;
                                if (!pass)
                                    continue;
                                any = true;
                                kept = kept && !r.empty && (unsigned)x >= r.lo && (unsigned)x <= r.hi;
                            }
                        check(kept, "narrowing keeps every passing value", a0, a1, b0, b1);
                        if (r.empty)
                            check(!any, "an empty narrowing lets nothing through", a0, a1, b0, b1);
                    }
    for (int a0 = 0; a0 <= 20; a0++)
        for (int a1 = a0; a1 <= 20; a1 += 2)
            for (int b0 = 0; b0 <= 20; b0++)
                for (int b1 = b0; b1 <= 20; b1 += 3) {
                    struct cn_iv r = cn_iv_span(iv(a0, a1), iv(b0, b1));
                    bool any = false, kept = true;
                    for (int lo = a0; lo <= a1; lo++)
                        for (int hi = b0; hi <= b1; hi++)
                            for (int k = lo; k < hi; k++) {
                                any = true;
                                kept = kept && !r.empty && (unsigned)k >= r.lo && (unsigned)k <= r.hi;
                            }
                    check(kept, "a span holds every counter value", a0, a1, b0, b1);
                    if (r.empty)
                        check(!any, "an empty span runs no iteration", a0, a1, b0, b1);
                }
    check(cn_iv_upto(0).empty && !cn_iv_upto(1).empty && cn_iv_upto(1).hi == 0, "upto 0 is empty, upto 1 is {0}", 0,
          0, 0, 0);
}

/* The meet a condition's fact adds (src/emit_fast.c, with_facts): in a
 * branch where y < B holds, x + y has two sound intervals, its own and x's
 * plus y narrowed by the fact; their meet must hold every sum of a value
 * pair that passes the test when it is fine, be fine only where none of
 * them passes max (63), and be below n only where every one is. */
static void facts(void)
{
    for (int a0 = 0; a0 <= 40; a0 += 3)
        for (int a1 = a0; a1 <= 48; a1 += 5)
            for (int b0 = 0; b0 <= 40; b0 += 4)
                for (int b1 = b0; b1 <= 48; b1 += 5)
                    for (int B = 0; B <= 50; B += 7) {
                        struct cn_iv x = iv(a0, a1), y = iv(b0, b1);
                        struct cn_iv r = cn_iv_meet(cn_iv_add(x, y, 63), cn_iv_add(x, cn_iv_lt(y, cn_iv_k(B)), 63));
                        bool kept = true, none_over = true;
                        int most = -1;
                        for (int u = a0; u <= a1; u++)
                            for (int v = b0; v <= b1 && v < B; v++) {
                                kept = kept && !r.empty && (unsigned)(u + v) >= r.lo && (unsigned)(u + v) <= r.hi;
                                none_over = none_over && u + v <= 63;
                                most = u + v > most ? u + v : most;
                            }
                        if (cn_iv_fine(r)) { /* a bad interval is capped at max + 1: it only says "not proved" */
                            check(kept, "a fine meet holds every sum the branch computes", a0, a1, b0, b1);
                            check(none_over, "a fine meet: no sum the branch computes passes max", a0, a1, b0, b1);
                        }
                        for (int n = 0; n <= 64; n += 9)
                            if (cn_iv_below(r, (uint64_t)n))
                                check(most < n, "a meet below n: every sum the branch computes is", a0, a1, b0, b1);
                    }
}

/* The 64-bit edges, where 128-bit bounds matter. */
static void edges(void)
{
    const uint64_t M = UINT64_MAX;
    struct cn_iv big = cn_iv_k(M), one = cn_iv_k(1), p32 = cn_iv_k(1ull << 32), q32 = cn_iv_k((1ull << 32) - 1);
    check(!cn_iv_fine(cn_iv_add(big, one, M)), "2^64 - 1 + 1 is bad", 0, 0, 0, 0);
    check(cn_iv_fine(cn_iv_add(big, cn_iv_k(0), M)), "2^64 - 1 + 0 is fine", 0, 0, 0, 0);
    check(!cn_iv_fine(cn_iv_mul(p32, p32, M)), "2^32 * 2^32 is bad", 0, 0, 0, 0);
    check(cn_iv_fine(cn_iv_mul(p32, q32, M)), "2^32 * (2^32 - 1) is fine", 0, 0, 0, 0);
    struct cn_iv huge = cn_iv_mul(cn_iv_top(M), cn_iv_top(M), M);
    check(!cn_iv_fine(huge) && !cn_iv_fine(cn_iv_mul(huge, huge, M)), "bad products stay bad and do not wrap", 0, 0,
          0, 0);
    check(!cn_iv_fine(cn_iv_add(cn_iv_top(UINT32_MAX), one, UINT32_MAX)), "u32: max + 1 is bad", 0, 0, 0, 0);
    check(cn_iv_below(cn_iv_upto(100), 100) && !cn_iv_below(cn_iv_upto(101), 100), "names below their extent", 0, 0,
          0, 0);
    struct cn_iv none = cn_iv_lt(cn_iv_top(M), cn_iv_k(0));
    check(none.empty && cn_iv_fine(cn_iv_add(none, big, M)) && cn_iv_below(cn_iv_mul(none, big, M), 0),
          "code no value reaches proves everything (it never runs)", 0, 0, 0, 0);
    check(!cn_iv_fine(cn_iv_sub(cn_iv_k(3), cn_iv_upto(5), M)), "3 - [0, 4] may go below zero", 0, 0, 0, 0);
    check(!cn_iv_fine(cn_iv_div(cn_iv_k(3), cn_iv_upto(2), M)), "division by [0, 1] may divide by zero", 0, 0, 0, 0);
}

int main(void)
{
    operations();
    narrowing();
    facts();
    edges();
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
