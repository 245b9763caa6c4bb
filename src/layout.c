/*
 * layout.c: the layout values of layout.h, built and checked, and the maps
 * they stand for.
 *
 * Why these semantics. The pages name rows, swizzle, spread and cosize and
 * show three uses (rows(16, 16) as WMMA's row-major operand, a swizzle WMMA
 * refuses and mma.sync reads when its 16-byte runs stay together, and
 * spread(rows(16, 8), 8, 4, 1, 2) as the mma.sync accumulator's share,
 * lane l's value v at (l / 4 + 8 * (v / 2), 2 * (l % 4) + v % 2)). A swizzle
 * of (B, M, S) that XORs B bits from bit M + S into the B bits from bit M
 * is the form CUDA's libraries use, keeps runs of 2^M offsets whole (the
 * "16-byte runs" for f16 at M = 3), and is its own inverse. A spread whose
 * lanes form an LR x LC grid of VR x VC blocks, repeated down the rows and
 * then across, gives the accumulator's share at (8, 4, 1, 2) and the
 * m16n8k16 A operand's at rows(16, 16); tests/unit/test_layout.c holds
 * both to the PTX ISA's formulas over every lane and value.
 */
#include "layout.h"

#include <string.h>

#include <stddef.h>

static bool refuse(const char **why, const char *text)
{
    if (why)
        *why = text;
    return false;
}

bool layout_rows(Layout *out, int64_t r, int64_t c, const char **why)
{
    if (r < 1 || c < 1)
        return refuse(why, "rows(R, C) needs R and C of at least 1");
    if (r > LAYOUT_MAX_CELLS || c > LAYOUT_MAX_CELLS || r * c > LAYOUT_MAX_CELLS)
        return refuse(why, "rows(R, C) holds at most 2^20 elements");
    *out = (Layout){.kind = LAYOUT_ROWS, .rows = r, .cols = c};
    return true;
}

bool layout_swizzle(Layout *out, const Layout *base, int64_t b, int64_t m, int64_t s, const char **why)
{
    if (!base || base->kind == LAYOUT_SPREAD)
        return refuse(why, "swizzle(L, B, M, S) takes a layout of offsets (rows or another swizzle), not a lane share");
    if (b < 0 || m < 0 || s < 0 || b > LAYOUT_MAX_BITS || m > LAYOUT_MAX_BITS || s > LAYOUT_MAX_BITS)
        return refuse(why, "swizzle(L, B, M, S) needs B, M and S from 0 to 20");
    if (s < b)
        return refuse(why, "swizzle(L, B, M, S) needs S >= B: the B bits it reads from bit M + S must not overlap "
                           "the B bits it changes from bit M");
    /* it changes only bits M .. M + B - 1 of an offset, so offsets stay
     * inside L's when L's cosize is a multiple of 2^(M + B) */
    if (m + b > LAYOUT_MAX_BITS || layout_cosize(base) % ((int64_t)1 << (m + b)) != 0)
        return refuse(why, "swizzle(L, B, M, S) needs L's cosize to be a multiple of 2^(M + B), so every "
                           "offset it moves stays inside L's");
    *out = (Layout){.kind = LAYOUT_SWIZZLE, .rows = base->rows, .cols = base->cols, .base = base,
                    .bits = (int)b, .low = (int)m, .shift = (int)s};
    return true;
}

bool layout_spread(Layout *out, const Layout *base, int64_t lr, int64_t lc, int64_t vr, int64_t vc,
                   const char **why)
{
    if (!base || base->kind == LAYOUT_SPREAD)
        return refuse(why, "spread(L, LR, LC, VR, VC) takes a tile's layout (rows or a swizzle), not another share");
    if (lr < 1 || lc < 1 || vr < 1 || vc < 1 || lr > 32 || lc > 32 || vr > 64 || vc > 64)
        return refuse(why, "spread(L, LR, LC, VR, VC) needs each of LR, LC from 1 to 32 and VR, VC from 1 to 64");
    if (lr * lc != 32)
        return refuse(why, "spread(L, LR, LC, VR, VC) shares a tile among a warp: LR x LC must be 32 lanes");
    if (base->rows % (lr * vr) != 0 || base->cols % (lc * vc) != 0)
        return refuse(why, "spread(L, LR, LC, VR, VC) needs L's rows a multiple of LR x VR and its columns a "
                           "multiple of LC x VC, so the lanes' blocks tile it");
    *out = (Layout){.kind = LAYOUT_SPREAD, .rows = base->rows, .cols = base->cols, .base = base,
                    .lane_rows = (int)lr, .lane_cols = (int)lc, .val_rows = (int)vr, .val_cols = (int)vc};
    return true;
}

int64_t layout_cosize(const Layout *L)
{
    /* a swizzle permutes its base's offsets inside aligned blocks of its
     * base's cosize; a spread places nothing of its own */
    return L->kind == LAYOUT_ROWS ? L->rows * L->cols : layout_cosize(L->base);
}

int64_t layout_offset(const Layout *L, int64_t i, int64_t j)
{
    switch (L->kind) {
    case LAYOUT_ROWS: return i * L->cols + j;
    case LAYOUT_SWIZZLE: {
        int64_t o = layout_offset(L->base, i, j);
        int64_t mask = (((int64_t)1 << L->bits) - 1) << L->low;
        return o ^ ((o >> L->shift) & mask);
    }
    default: return layout_offset(L->base, i, j);
    }
}

int layout_lanes(const Layout *L) { return L->kind == LAYOUT_SPREAD ? L->lane_rows * L->lane_cols : 0; }

int layout_values(const Layout *L)
{
    return L->kind == LAYOUT_SPREAD ? (int)(L->rows * L->cols / layout_lanes(L)) : 0;
}

void layout_lane_elem(const Layout *L, int lane, int v, int64_t *row, int64_t *col)
{
    int block = L->val_rows * L->val_cols;
    int w = v % block, q = v / block;
    int64_t reps = L->rows / ((int64_t)L->lane_rows * L->val_rows);   /* repetitions down the rows */
    int64_t qr = q % reps, qc = q / reps;
    *row = (int64_t)(lane / L->lane_cols) * L->val_rows + w / L->val_cols + qr * L->lane_rows * L->val_rows;
    *col = (int64_t)(lane % L->lane_cols) * L->val_cols + w % L->val_cols + qc * L->lane_cols * L->val_cols;
}

LayoutMethod layout_method_of(const char *name)
{
    if (!name)
        return LAYOUT_M_NONE;
    if (!strcmp(name, "offset"))
        return LAYOUT_M_OFFSET;
    if (!strcmp(name, "row"))
        return LAYOUT_M_ROW;
    return !strcmp(name, "col") ? LAYOUT_M_COL : LAYOUT_M_NONE;
}

bool layout_method_at(const Layout *L, LayoutMethod m, int64_t a, int64_t b, int64_t *out)
{
    if (m == LAYOUT_M_OFFSET) {
        if (a < 0 || b < 0 || a >= L->rows || b >= L->cols)
            return false;
        *out = layout_offset(L, a, b);
        return true;
    }
    if ((m != LAYOUT_M_ROW && m != LAYOUT_M_COL) || L->kind != LAYOUT_SPREAD || a < 0 || b < 0 ||
        a >= layout_lanes(L) || b >= layout_values(L))
        return false;
    int64_t r, c;
    layout_lane_elem(L, (int)a, (int)b, &r, &c);
    *out = m == LAYOUT_M_ROW ? r : c;
    return true;
}
