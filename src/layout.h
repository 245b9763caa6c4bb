/*
 * layout.h: layouts, the compile-time values that map a tile's coordinates
 * to offsets in memory and a warp's lanes to the elements they hold
 * (docs/memory.md, "Layouts"; issue 18). The language's forms
 *
 *   rows(R, C)                  row-major R x C: (i, j) at i * C + j
 *   swizzle(L, B, M, S)         L's offsets with the B bits from bit M + S
 *                               XORed into the B bits from bit M (the form
 *                               CUDA's libraries call Swizzle<B, M, S>): runs
 *                               of 2^M offsets stay together, and the map is
 *                               a bijection of [0, cosize)
 *   spread(L, LR, LC, VR, VC)   a lane share of L's R x C elements: 32 lanes
 *                               as an LR x LC grid, each holding VR x VC
 *                               blocks, repeated down the rows, then across
 *
 * are values of this struct, built and checked here, so the checker (which
 * evaluates a `layout NAME = ...;` declaration and its methods cosize(),
 * row(t, v), col(t, v)), the emitter and the law tests read one definition.
 *
 * Requires: nothing (pure functions).
 * Guarantees: a Layout a constructor returned is well formed: its offsets
 * lie in [0, cosize), a swizzle permutes its base's offsets, and a spread
 * gives each element of its tile to exactly one (lane, value).
 */
#ifndef CAIRN_LAYOUT_H
#define CAIRN_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { LAYOUT_ROWS, LAYOUT_SWIZZLE, LAYOUT_SPREAD } LayoutKind;

/* The bounds a layout's numbers must keep (so every offset fits 32 bits
 * and a tile fits the 48 KiB a block may hold, at one byte an element). */
enum { LAYOUT_MAX_CELLS = 1 << 20, LAYOUT_MAX_BITS = 20 };

typedef struct Layout Layout;
struct Layout {
    LayoutKind kind;
    int64_t rows, cols;       /* the tile: R x C (a swizzle's and a spread's are their base's) */
    const Layout *base;       /* SWIZZLE, SPREAD: the layout they act on */
    int bits, low, shift;     /* SWIZZLE: B, M, S */
    int lane_rows, lane_cols; /* SPREAD: LR x LC lanes */
    int val_rows, val_cols;   /* SPREAD: each lane's VR x VC block */
};

/* Each returns false with *why (a sentence for the diagnostic) when the
 * arguments do not make a layout; *out is then unspecified. */
bool layout_rows(Layout *out, int64_t r, int64_t c, const char **why);
bool layout_swizzle(Layout *out, const Layout *base, int64_t b, int64_t m, int64_t s, const char **why);
bool layout_spread(Layout *out, const Layout *base, int64_t lr, int64_t lc, int64_t vr, int64_t vc,
                   const char **why);

/* One past the largest offset the layout places: what an array that holds
 * a tile stored through it needs (TILE.cosize()). */
int64_t layout_cosize(const Layout *L);
/* The offset of element (i, j) of the tile, 0 <= i < rows, 0 <= j < cols. */
int64_t layout_offset(const Layout *L, int64_t i, int64_t j);
/* A spread's lanes (LR * LC) and values a lane holds. */
int layout_lanes(const Layout *L);
int layout_values(const Layout *L);
/* A spread: the element (row, col) of the tile that lane `lane` holds as
 * its value v (SHARE.row(t, v), SHARE.col(t, v)). */
void layout_lane_elem(const Layout *L, int lane, int v, int64_t *row, int64_t *col);

/* The methods with two arguments: TILE.offset(i, j), SHARE.row(t, v),
 * SHARE.col(t, v). Their value at (a, b), or false when (a, b) lies
 * outside the method's range (where it runs, its guard stops the thread). */
typedef enum { LAYOUT_M_OFFSET, LAYOUT_M_ROW, LAYOUT_M_COL, LAYOUT_M_NONE } LayoutMethod;
LayoutMethod layout_method_of(const char *name);
bool layout_method_at(const Layout *L, LayoutMethod m, int64_t a, int64_t b, int64_t *out);

#endif
