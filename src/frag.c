/*
 * frag.c: the table of fragment kinds (frag.h) and the fragment type.
 *
 * Requires: nothing (pure functions over the table).
 * Guarantees: every question about a fragment kind is answered from the
 * one table here; no other file spells a fragment's name.
 */
#include "frag.h"
#include "layout.h"

#include <string.h>

typedef struct {
    const char *name;
    FragFamily family;
    FragRole role;
} KindRow;

static const KindRow kinds[FRAG_N] = {
#define X(id, name, family, role) [id] = {name, family, role},
    FRAG_KINDS(X)
#undef X
};

typedef struct {
    const char *name;
    TargetFeature feature;
} FamilyRow;

static const FamilyRow families[FAM_N] = {
#define X(id, name, feature) [id] = {name, feature},
    FRAG_FAMILIES(X)
#undef X
};

/* numerics.md, "Tensor-core fragments": the M, N, K each family lowers.
 * WMMA's three f16/bf16 shapes; mma.sync's one; no TmemAcc shape. */
static const FragShape wmma_shapes[] = {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}};
static const FragShape mma_sync_shapes[] = {{16, 8, 16}};

int frag_lookup(const char *name)
{
    for (int f = 0; name && f < FRAG_N; f++)
        if (strcmp(kinds[f].name, name) == 0)
            return f;
    return -1;
}

static const KindRow *kind_row(FragKind f)
{
    if ((int)f < 0 || f >= FRAG_N)
        die("bad fragment kind %d", (int)f);
    return &kinds[f];
}

const char *frag_name(FragKind f) { return kind_row(f)->name; }
FragFamily frag_family(FragKind f) { return kind_row(f)->family; }
FragRole frag_role(FragKind f) { return kind_row(f)->role; }
TargetFeature frag_feature(FragKind f) { return families[frag_family(f)].feature; }

const char *frag_family_name(FragFamily fam)
{
    return (int)fam >= 0 && fam < FAM_N ? families[fam].name : "?";
}

int frag_shapes(FragFamily fam, const FragShape **shapes)
{
    switch (fam) {
    case FAM_WMMA:
        *shapes = wmma_shapes;
        return (int)(sizeof wmma_shapes / sizeof *wmma_shapes);
    case FAM_MMA_SYNC:
        *shapes = mma_sync_shapes;
        return (int)(sizeof mma_sync_shapes / sizeof *mma_sync_shapes);
    default:
        *shapes = NULL;
        return 0;
    }
}

bool frag_elem_allowed(FragKind f, TypeKind elem)
{
    if (frag_role(f) == ROLE_ACC)
        return elem == TY_F32;
    return elem == TY_F16 || elem == TY_BF16;
}

bool frag_shape_allowed(FragKind f, int m, int n, int k)
{
    const FragShape *s;
    int count = frag_shapes(frag_family(f), &s);
    for (int i = 0; i < count; i++)
        if (s[i].m == m && s[i].n == n && s[i].k == k)
            return true;
    return false;
}

Type *frag_type(Arena *a, FragKind f, Type *elem, int m, int n, int k)
{
    if (!elem || !frag_elem_allowed(f, elem->kind) || !frag_shape_allowed(f, m, n, k))
        return NULL;
    Type *t = arena_alloc(a, sizeof *t);
    t->kind = TY_FRAGMENT;
    t->frag = (int)f;
    t->elem = elem;
    t->m = m;
    t->n = n;
    t->k = k;
    return t;
}

unsigned frag_needs(const Type *t)
{
    if (!t || t->kind != TY_FRAGMENT)
        return 0;
    unsigned bits = 1u << frag_feature((FragKind)t->frag);
    if (t->elem && t->elem->kind == TY_BF16)
        bits |= 1u << TF_BF16;
    return bits;
}

void frag_tile(const Type *t, int *rows, int *cols)
{
    switch (frag_role((FragKind)t->frag)) {
    case ROLE_A: *rows = t->m, *cols = t->k; return;
    case ROLE_B: *rows = t->k, *cols = t->n; return;
    default: *rows = t->m, *cols = t->n; return;
    }
}

void frag_mma_acc_elem(int lane, int v, int *row, int *col)
{
    *row = lane / 4 + 8 * (v / 2);
    *col = 2 * (lane % 4) + v % 2;
}

bool frag_is_warp_op(const Node *e)
{
    if (e->kind != N_CALL || e->call.ck != CALL_BUILTIN)
        return false;
    switch (e->call.builtin) {
    case B_MMA_FILL: case B_MMA_LOAD: case B_MMA_STORE: return true;
    case B_MMA_UNORDERED: return e->call.args.n == 3;
    default: return false;
    }
}

int frag_elems(const Type *f, const Layout *L, int64_t fi, int64_t fj, int lane, int64_t *out, bool *whole)
{
    int fr, fc, n = 0;
    frag_tile(f, &fr, &fc);
    int64_t r0 = fi * fr, c0 = fj * fc;
    *whole = f->frag != FRAG_MMA_ACC;
    if (r0 < 0 || c0 < 0 || r0 + fr > L->rows || c0 + fc > L->cols)
        return 0;
    if (!*whole) {
        for (int v = 0; v < FRAG_MMA_ACC_VALUES; v++) {
            int rr, cc;
            frag_mma_acc_elem(lane, v, &rr, &cc);
            out[n++] = layout_offset(L, r0 + rr, c0 + cc);
        }
        return n;
    }
    for (int rr = 0; rr < fr; rr++)
        for (int cc = 0; cc < fc; cc++)
            out[n++] = layout_offset(L, r0 + rr, c0 + cc);
    return n;
}
