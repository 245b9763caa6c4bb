/*
 * test_layout.c: the laws of layouts (src/layout.h), by brute force over
 * every coordinate of every layout it names.
 *
 * What it shows:
 *   - rows(R, C) for every R, C in 1..24: each element's offset is in
 *     [0, cosize), cosize is R * C, and no two elements share an offset;
 *   - swizzle(rows(R, C), B, M, S) for every B 0..3, M 0..4, S B..5 and
 *     every rows(R, C) of 1..64 x 1..64 whose cosize 2^(M + B) divides:
 *     every offset in [0, cosize), a bijection onto it, runs of 2^M
 *     consecutive offsets of the base kept consecutive and in order, and a
 *     swizzle of a swizzle still a bijection; the page's swizzle(rows(16,
 *     16), 1, 3, 3) keeps 8-element (16-byte f16) runs;
 *   - spread(rows(16, 8), 8, 4, 1, 2) is the PTX ISA's m16n8k16 f32
 *     accumulator share, all 32 lanes x 4 values, the ISA's formula as the
 *     oracle (groupID = lane / 4, threadID_in_group = lane % 4: row
 *     groupID + 8 * (v / 2), column 2 * threadID_in_group + v % 2); and
 *     spread(rows(16, 16), 8, 4, 1, 2) the m16n8k16 f16 A operand's (a0..a7:
 *     rows + 8 for a2, a3, a6, a7, columns + 8 for a4..a7);
 *   - every spread of every rows(R, C) up to 64 x 64 with 32 lanes and
 *     blocks up to 4 x 4 that tiles it gives each element to exactly one
 *     (lane, value), and its cosize is its base's;
 *   - the refusals: a zero or too large extent, S < B, a cosize that
 *     2^(M + B) does not divide, a share of a share or of other than 32
 *     lanes, blocks that do not tile the tile, each with its reason.
 *
 * Prints FAIL lines and a last line `N passed, N failed, N skipped`.
 */
#include "layout.h"

#include <stdlib.h>
#include <string.h>

#include "expect.h"

/* Every element of L (rows or a swizzle) at an offset in [0, cosize), no
 * two at one offset. */
static bool offsets_biject(const Layout *L)
{
    int64_t cos = layout_cosize(L);
    if (cos != L->rows * L->cols)
        return false;
    unsigned char *seen = calloc((size_t)cos, 1);
    bool ok = seen != NULL;
    for (int64_t i = 0; ok && i < L->rows; i++)
        for (int64_t j = 0; ok && j < L->cols; j++) {
            int64_t o = layout_offset(L, i, j);
            ok = o >= 0 && o < cos && !seen[o];
            if (ok)
                seen[o] = 1;
        }
    free(seen);
    return ok;
}

static void test_rows(void)
{
    int bad = 0;
    for (int r = 1; r <= 24; r++)
        for (int c = 1; c <= 24; c++) {
            Layout L;
            const char *why = NULL;
            if (!layout_rows(&L, r, c, &why) || layout_cosize(&L) != r * c || !offsets_biject(&L) ||
                layout_offset(&L, r - 1, 0) != (int64_t)(r - 1) * c)
                bad++;
        }
    EXPECT(bad == 0, "rows(R, C), R, C in 1..24: %d layouts break a law", bad);
}

/* Offsets o .. o + 2^M - 1 of the base (o a multiple of 2^M) land on
 * consecutive offsets, in order. */
static bool keeps_runs(const Layout *S, const Layout *base)
{
    int64_t run = (int64_t)1 << S->low, cos = layout_cosize(base);
    /* the base is rows: offset k is element (k / cols, k % cols) */
    for (int64_t o = 0; o < cos; o += run) {
        int64_t first = layout_offset(S, o / base->cols, o % base->cols);
        for (int64_t k = 1; k < run; k++)
            if (layout_offset(S, (o + k) / base->cols, (o + k) % base->cols) != first + k)
                return false;
    }
    return true;
}

static void test_swizzle(void)
{
    int made = 0, bad = 0, twice = 0;
    for (int b = 0; b <= 3; b++)
        for (int m = 0; m <= 4; m++)
            for (int s = b; s <= 5; s++)
                for (int r = 1; r <= 64; r++)
                    for (int c = 1; c <= 64; c++) {
                        if ((r * c) % (1 << (m + b)) != 0)
                            continue;
                        Layout R, S, S2;
                        const char *why = NULL;
                        if (!layout_rows(&R, r, c, &why) || !layout_swizzle(&S, &R, b, m, s, &why)) {
                            bad++;
                            continue;
                        }
                        made++;
                        if (!offsets_biject(&S) || !keeps_runs(&S, &R))
                            bad++;
                        /* every 97th: a swizzle of it, still a bijection */
                        if (made % 97 == 0 && layout_swizzle(&S2, &S, b, m, s + 1 > 20 ? 20 : s + 1, &why)) {
                            twice++;
                            if (!offsets_biject(&S2))
                                bad++;
                        }
                    }
    EXPECT(bad == 0 && made > 10000 && twice > 50,
           "swizzles: %d made, %d swizzles of swizzles, %d break a law", made, twice, bad);
    /* the page's: runs of 8 f16 (16 bytes) stay together, the map moves something */
    Layout R, S;
    const char *why = NULL;
    bool ok = layout_rows(&R, 16, 16, &why) && layout_swizzle(&S, &R, 1, 3, 3, &why);
    EXPECT(ok && offsets_biject(&S) && keeps_runs(&S, &R) && layout_cosize(&S) == 256,
           "swizzle(rows(16, 16), 1, 3, 3): a bijection of [0, 256) keeping 8-element runs");
    int moved = 0;
    for (int i = 0; ok && i < 16; i++)
        for (int j = 0; j < 16; j++)
            moved += layout_offset(&S, i, j) != layout_offset(&R, i, j);
    /* bit 6 of an offset (rows 4..7 and 12..15) flips bit 3: those rows' two runs of 8 swap */
    EXPECT(moved == 128, "swizzle(rows(16, 16), 1, 3, 3) moves half the elements: %d moved", moved);
    EXPECT(ok && layout_offset(&S, 4, 0) == 72 && layout_offset(&S, 4, 8) == 64 && layout_offset(&S, 1, 8) == 24 &&
               layout_offset(&S, 12, 15) == 199,
           "swizzle(rows(16, 16), 1, 3, 3): row 4's two runs swap places, row 1's stay (offsets %lld, %lld)",
           ok ? (long long)layout_offset(&S, 4, 0) : -1LL, ok ? (long long)layout_offset(&S, 4, 8) : -1LL);
}

/* Each element of the tile held by exactly one (lane, value). */
static bool spread_biject(const Layout *P)
{
    int64_t n = P->rows * P->cols;
    unsigned char *seen = calloc((size_t)n, 1);
    bool ok = seen != NULL && layout_lanes(P) * layout_values(P) == n;
    for (int l = 0; ok && l < layout_lanes(P); l++)
        for (int v = 0; ok && v < layout_values(P); v++) {
            int64_t r, c;
            layout_lane_elem(P, l, v, &r, &c);
            ok = r >= 0 && r < P->rows && c >= 0 && c < P->cols && !seen[r * P->cols + c];
            if (ok)
                seen[r * P->cols + c] = 1;
        }
    free(seen);
    return ok;
}

static void test_spread_isa(void)
{
    Layout R, P;
    const char *why = NULL;
    bool ok = layout_rows(&R, 16, 8, &why) && layout_spread(&P, &R, 8, 4, 1, 2, &why);
    EXPECT(ok && layout_lanes(&P) == 32 && layout_values(&P) == 4 && layout_cosize(&P) == 128,
           "spread(rows(16, 8), 8, 4, 1, 2): 32 lanes of 4 values over 128 elements");
    int bad = 0;
    for (int l = 0; ok && l < 32; l++)
        for (int v = 0; v < 4; v++) {
            int64_t r, c;
            layout_lane_elem(&P, l, v, &r, &c);
            int g = l / 4, t = l % 4;   /* the ISA's groupID and threadID_in_group */
            if (r != g + 8 * (v / 2) || c != 2 * t + v % 2)
                bad++;
        }
    EXPECT(ok && bad == 0, "spread(rows(16, 8), 8, 4, 1, 2) is the m16n8k16 accumulator's share: %d of 128 differ",
           bad);
    Layout A, Q;
    ok = layout_rows(&A, 16, 16, &why) && layout_spread(&Q, &A, 8, 4, 1, 2, &why);
    bad = 0;
    for (int l = 0; ok && l < 32; l++)
        for (int v = 0; v < 8; v++) {
            int64_t r, c;
            layout_lane_elem(&Q, l, v, &r, &c);
            int g = l / 4, t = l % 4;
            /* the ISA's A fragment of m16n8k16 (f16): a_i for i in 0..7 */
            int64_t wr = g + ((v == 2 || v == 3 || v == 6 || v == 7) ? 8 : 0);
            int64_t wc = 2 * t + (v & 1) + (v >= 4 ? 8 : 0);
            if (r != wr || c != wc)
                bad++;
        }
    EXPECT(ok && bad == 0, "spread(rows(16, 16), 8, 4, 1, 2) is the m16n8k16 A operand's share: %d of 256 differ",
           bad);
    EXPECT(ok && spread_biject(&P) && spread_biject(&Q), "both shares give each element one lane and value");
}

static void test_spreads(void)
{
    static const int lanes[][2] = {{1, 32}, {2, 16}, {4, 8}, {8, 4}, {16, 2}, {32, 1}};
    int made = 0, bad = 0;
    for (int r = 1; r <= 64; r++)
        for (int c = 1; c <= 64; c++)
            for (size_t k = 0; k < sizeof lanes / sizeof lanes[0]; k++)
                for (int vr = 1; vr <= 4; vr++)
                    for (int vc = 1; vc <= 4; vc++) {
                        int lr = lanes[k][0], lc = lanes[k][1];
                        if (r % (lr * vr) || c % (lc * vc))
                            continue;
                        Layout R, P;
                        const char *why = NULL;
                        if (!layout_rows(&R, r, c, &why) || !layout_spread(&P, &R, lr, lc, vr, vc, &why)) {
                            bad++;
                            continue;
                        }
                        made++;
                        if (!spread_biject(&P) || layout_cosize(&P) != r * c)
                            bad++;
                    }
    EXPECT(bad == 0 && made > 1000, "spreads of rows up to 64 x 64: %d made, %d break a law", made, bad);
}

static bool refused(bool made, const char *const *why, const char *needle)
{
    return !made && *why && strstr(*why, needle);   /* *why read after the call set it */
}

static void test_refusals(void)
{
    Layout R, S, P, Q;
    const char *why = NULL;
    EXPECT(refused(layout_rows(&R, 0, 4, &why), &why, "at least 1"), "rows(0, 4) is refused: %s", why ? why : "");
    why = NULL;
    EXPECT(refused(layout_rows(&R, 2048, 1024, &why), &why, "2^20"), "rows(2048, 1024) is refused: %s",
           why ? why : "");
    layout_rows(&R, 16, 16, &why);
    why = NULL;
    EXPECT(refused(layout_swizzle(&S, &R, 3, 3, 2, &why), &why, "S >= B"), "swizzle(.., 3, 3, 2) is refused: %s",
           why ? why : "");
    Layout R6;
    layout_rows(&R6, 6, 6, &why);
    why = NULL;
    EXPECT(refused(layout_swizzle(&S, &R6, 1, 3, 3, &why), &why, "multiple of 2^(M + B)"),
           "swizzle(rows(6, 6), 1, 3, 3) is refused: %s", why ? why : "");
    why = NULL;
    EXPECT(refused(layout_spread(&P, &R, 4, 4, 1, 2, &why), &why, "32 lanes"), "a share of 16 lanes is refused: %s",
           why ? why : "");
    why = NULL;
    EXPECT(refused(layout_spread(&P, &R, 8, 4, 3, 2, &why), &why, "tile it"),
           "a share whose blocks do not tile the rows is refused: %s", why ? why : "");
    layout_spread(&P, &R, 8, 4, 1, 2, &why);
    why = NULL;
    EXPECT(refused(layout_spread(&Q, &P, 8, 4, 1, 2, &why), &why, "not another share"),
           "a share of a share is refused: %s", why ? why : "");
    why = NULL;
    EXPECT(refused(layout_swizzle(&S, &P, 1, 3, 3, &why), &why, "not a lane share"),
           "a swizzle of a share is refused: %s", why ? why : "");
}

int main(void)
{
    test_rows();
    test_swizzle();
    test_spread_isa();
    test_spreads();
    test_refusals();
    return expect_summary();
}
