/*
 * test_divider.c: the dividers a cooperative region's blocks find their
 * names with (cn_divider_make, cn_divide, cn_coop_names in
 * runtime/cairn_coopdev.h).
 *
 * What it shows:
 *   - floor(x / d) is exact for every x < 2^20 and every d < 2^12, against
 *     an oracle with no division at all (a quotient and a remainder counted
 *     up as x steps by one);
 *   - exact for 4 million random (x, d) of every bit length, and at the
 *     remainders that matter (x = q * d - 1, q * d, q * d + d - 1), against
 *     the C division;
 *   - the edges: d = 1, every d = 2^k, 2^k - 1 and 2^k + 1, d = 2^64 - 1,
 *     x = 0 and x = 2^64 - 1 with each of them;
 *   - block names: for grids with extents 1, 0, around 65535 and past 2^32,
 *     p = b0 + g0 * (b1 + g1 * b2) with each name below its extent, for the
 *     first and last blocks and random ones; the names of every block of
 *     small grids, each exactly once;
 *   - a grid whose block count overflows usize is refused.
 *
 * Prints FAIL lines and a last line `N passed, N failed, N skipped`.
 */
#define CAIRN_EMULATE 1
#include "cairn_dev.h"

static int passed, failed;

static void check(bool ok, const char *what, unsigned long long x, unsigned long long d)
{
    if (ok) {
        passed++;
    } else if (failed++ < 20) {
        printf("FAIL divider: %s (x = %llu, d = %llu)\n", what, x, d);
    }
}

/* xorshift64*: a fixed seed, so a failure repeats. */
static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

/* A random value of a random bit length from 1 to 64, so small values are
 * as common as large ones. */
static uint64_t rng_bits(void)
{
    unsigned bits = 1 + (unsigned)(rng() % 64);
    uint64_t v = rng();
    return bits == 64 ? v : v & (((uint64_t)1 << bits) - 1);
}

/* Every x < 2^20, every d < 2^12. One check per d (the loop stops at the
 * first wrong quotient), so the count stays readable. */
static void exhaustive_small(void)
{
    for (uint64_t d = 1; d < (1u << 12); d++) {
        struct cn_divider v = cn_divider_make(d);
        uint64_t q = 0, r = 0, x = 0;
        for (; x < (1u << 20); x++) {
            if (cn_divide(v, x) != q)
                break;
            if (++r == d)
                r = 0, q++;
        }
        check(x == (1u << 20), "exhaustive x < 2^20", x, d);
    }
}

static void one(uint64_t x, uint64_t d, const char *what)
{
    check(cn_divide(cn_divider_make(d), x) == x / d, what, x, d);
}

static void random_pairs(void)
{
    int bad = 0;
    for (int k = 0; k < 4000000; k++) {
        uint64_t d = rng_bits(), x = k & 1 ? rng() : rng_bits();
        if (d == 0)
            d = 1;
        struct cn_divider v = cn_divider_make(d);
        if (cn_divide(v, x) != x / d && bad++ < 5)
            printf("FAIL divider: random x = %llu, d = %llu\n", (unsigned long long)x, (unsigned long long)d);
        /* around a multiple of d, where a quotient one off shows */
        uint64_t q = x / d, m = q * d;
        if (cn_divide(v, m) != q || (m && cn_divide(v, m - 1) != (m - 1) / d) ||
            cn_divide(v, m + (d - 1)) != (m + (d - 1)) / d) {
            if (bad++ < 5)
                printf("FAIL divider: near a multiple, q = %llu, d = %llu\n", (unsigned long long)q,
                       (unsigned long long)d);
        }
    }
    check(bad == 0, "4M random pairs and their neighbouring multiples", 0, 0);
}

static void edges(void)
{
    const uint64_t top = UINT64_MAX;
    uint64_t xs[] = {0, 1, 2, 3, top, top - 1, top / 2, top / 2 + 1, (uint64_t)1 << 63, ((uint64_t)1 << 32) - 1};
    for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        one(xs[i], 1, "d = 1");
        one(xs[i], top, "d = 2^64 - 1");
        one(xs[i], top - 1, "d = 2^64 - 2");
        for (unsigned k = 1; k < 64; k++) {
            uint64_t p = (uint64_t)1 << k;
            one(xs[i], p, "d = 2^k");
            one(xs[i], p - 1, "d = 2^k - 1");
            one(xs[i], p + 1, "d = 2^k + 1");
        }
    }
    struct cn_divider one_ = cn_divider_make(1);
    check(one_.m == 1 && one_.s1 == 0 && one_.s2 == 0, "d = 1 is m = 1 and no shift", 0, 1);
    check(cn_divide(cn_divider_make(top), top) == 1, "(2^64 - 1) / (2^64 - 1)", top, top);
}

/* Names of block p, checked against the grid's definition. */
static bool names_ok(const struct cn_coop_grid *g, uint64_t p)
{
    size_t b0, b1, b2;
    cn_coop_names(g, p, &b0, &b1, &b2);
    return b0 < g->g0 && b1 < g->g1 && b2 < g->g2 && b0 + g->g0 * (b1 + g->g1 * b2) == p;
}

static void names(void)
{
    static const uint64_t grids[][3] = {
        {1, 1, 1}, {7, 1, 1}, {1, 7, 1}, {1, 1, 7}, {65535, 65535, 1}, {65536, 3, 65537},
        {3, 65537, 65535}, {70001, 3, 2}, {2, 65537, 16385}, {(uint64_t)1 << 33, (uint64_t)1 << 29, 3},
        {UINT64_MAX, 1, 1}, {1, UINT64_MAX, 1}, {1, 1, UINT64_MAX}, {4294967291ull, 4294967279ull, 1}, {1, 4294967291ull, 4294967279ull},
    };
    for (unsigned i = 0; i < sizeof grids / sizeof grids[0]; i++) {
        struct cn_coop_grid g;
        bool made = cn_coop_grid_make(&g, grids[i][0], grids[i][1], grids[i][2]);
        check(made && g.total == grids[i][0] * grids[i][1] * grids[i][2], "grid made", i, 0);
        bool ok = names_ok(&g, 0) && names_ok(&g, g.total - 1);
        for (int k = 0; k < 100000 && ok; k++)
            ok = names_ok(&g, rng() % g.total);
        check(ok, "names of first, last and random blocks", i, g.total);
    }
    /* every block of small grids, in order: b0 fastest, then b1, then b2 */
    for (uint64_t g0 = 1; g0 <= 9; g0++)
        for (uint64_t g1 = 1; g1 <= 9; g1++) {
            struct cn_coop_grid g;
            cn_coop_grid_make(&g, g0, g1, 5);
            bool ok = true;
            uint64_t p = 0;
            for (size_t c = 0; c < 5; c++)
                for (size_t b = 0; b < g1; b++)
                    for (size_t a = 0; a < g0; a++, p++) {
                        size_t b0, b1, b2;
                        cn_coop_names(&g, p, &b0, &b1, &b2);
                        ok = ok && b0 == a && b1 == b && b2 == c;
                    }
            check(ok && p == g.total, "every block of a small grid, in order", g0, g1);
        }
    struct cn_coop_grid g;
    check(cn_coop_grid_make(&g, 0, 5, 3) && g.total == 0, "an extent 0: no block", 0, 0);
    check(!cn_coop_grid_make(&g, (uint64_t)1 << 32, (uint64_t)1 << 32, 1), "2^32 * 2^32 overflows", 0, 0);
    check(!cn_coop_grid_make(&g, 3, (uint64_t)1 << 32, (uint64_t)1 << 31), "3 * 2^63 overflows", 0, 0);
    check(cn_coop_grid_make(&g, 1, UINT64_MAX, 1), "1 * (2^64 - 1) * 1 fits", 0, 0);
}

int main(void)
{
    exhaustive_small();
    random_pairs();
    edges();
    names();
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
