/*
 * types.c: semantic types, the tables of built-in names and placements.
 *
 * Requires: nothing (pure functions over Type values).
 * Guarantees: the scalar types (and TY_ERROR, TY_VOID, the literal types,
 * TY_STRING) are shared constants, so `a == b` compares them; composite
 * types (views, refs, arrays, fn types, opaque) are compared by type_equal.
 */
#include "cairn.h"
#include "frag.h"

#include <string.h>

/* The shared constants. Never written after initialisation: a table of
 * constants, not state (STYLE: no globals holding state). */
static Type prim_types[TY_NKINDS] = {
#define X(id, s) [id] = {.kind = id},
    TYPE_KINDS(X)
#undef X
};

static const char *const type_names[TY_NKINDS] = {
#define X(id, s) [id] = s,
    TYPE_KINDS(X)
#undef X
};

Type *type_prim(TypeKind k)
{
    if (k < 0 || k >= TY_NKINDS || k == TY_VIEW || k == TY_REF || k == TY_ARRAY || k == TY_FN ||
        k == TY_FRAGMENT || k == TY_OPAQUE)
        die("type_prim(%d): not a shared type", (int)k);
    return &prim_types[k];
}

bool type_is_int(const Type *t)
{
    return t && t->kind >= TY_I8 && t->kind <= TY_USIZE;
}

bool type_is_signed(const Type *t)
{
    return t && t->kind >= TY_I8 && t->kind <= TY_I64;
}

bool type_is_float(const Type *t)
{
    return t && (t->kind == TY_F32 || t->kind == TY_F64);
}

bool type_is_storage_float(const Type *t)
{
    return t && t->kind >= TY_F16 && t->kind <= TY_F8E5M2;
}

bool type_is_scalar(const Type *t)
{
    return t && t->kind >= TY_BOOL && t->kind <= TY_F8E5M2;
}

int type_bits(const Type *t)
{
    if (!t)
        return 0;
    switch (t->kind) {
    case TY_BOOL: case TY_I8: case TY_U8: case TY_F8E4M3: case TY_F8E5M2: return 8;
    case TY_I16: case TY_U16: case TY_F16: case TY_BF16: return 16;
    case TY_I32: case TY_U32: case TY_F32: return 32;
    case TY_I64: case TY_U64: case TY_USIZE: case TY_F64: return 64;
    default: return 0;
    }
}

static bool extent_equal(const Node *a, const Node *b)
{
    if (!a || !b)
        return a == b;
    return ast_equal(a, b);
}

static bool fn_types_equal(const Type *a, const Type *b)
{
    if (a->params.n != b->params.n || !type_equal(a->ret, b->ret))
        return false;
    for (int i = 0; i < a->params.n; i++)
        if (!type_equal(a->params.v[i], b->params.v[i]))
            return false;
    return true;
}

bool type_equal(const Type *a, const Type *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind)
        return false;
    switch (a->kind) {
    case TY_VIEW:
        return a->access == b->access && a->place == b->place && type_equal(a->elem, b->elem) &&
               extent_equal(a->extent, b->extent);
    case TY_REF:
        return a->access == b->access && type_equal(a->elem, b->elem);
    case TY_ARRAY:
        return a->count == b->count && type_equal(a->elem, b->elem);
    case TY_FN:
        return fn_types_equal(a, b);
    case TY_FRAGMENT:
        return a->frag == b->frag && a->m == b->m && a->n == b->n && a->k == b->k && type_equal(a->elem, b->elem);
    case TY_OPAQUE:
        return a->name && b->name && strcmp(a->name, b->name) == 0;
    default:
        return true;   /* the same shared kind */
    }
}

static const char *fn_type_str(Arena *a, const Type *t)
{
    const char *s = "fn(";
    for (int i = 0; i < t->params.n; i++)
        s = arena_printf(a, "%s%s%s", s, i ? ", " : "", type_str(a, t->params.v[i]));
    s = arena_printf(a, "%s)", s);
    if (t->ret && t->ret->kind != TY_VOID)
        s = arena_printf(a, "%s -> %s", s, type_str(a, t->ret));
    return s;
}

const char *type_str(Arena *a, const Type *t)
{
    if (!t)
        return "<none>";
    switch (t->kind) {
    case TY_VIEW: {
        const char *ext = t->extent ? expand_expr(a, t->extent) : "?";
        const char *at = t->place == PLACE_HOST ? "" : arena_printf(a, "@%s", place_name(t->place));
        return arena_printf(a, "%s<%s>[%s]%s", t->access == ACC_RW ? "rw" : "ro",
                            type_str(a, t->elem), ext, at);
    }
    case TY_REF:
        return arena_printf(a, "rw<%s>", type_str(a, t->elem));
    case TY_ARRAY:
        return arena_printf(a, "Array[%s, %lld]", type_str(a, t->elem), (long long)t->count);
    case TY_FN:
        return fn_type_str(a, t);
    case TY_FRAGMENT:
        return arena_printf(a, "%s[%s, %d, %d, %d]", frag_name((FragKind)t->frag), type_str(a, t->elem), t->m, t->n,
                            t->k);
    case TY_OPAQUE:
        return t->name ? t->name : "opaque";
    default:
        return (t->kind >= 0 && t->kind < TY_NKINDS) ? type_names[t->kind] : "?";
    }
}

/* ------------------------------------------------------------ built-ins */

static const char *const builtin_names[B_NBUILTINS] = {
#define X(id, s) [id] = s,
    BUILTINS(X)
#undef X
};

const char *builtin_name(Builtin b)
{
    return (b >= 0 && b < B_NBUILTINS) ? builtin_names[b] : "?";
}

/* The atomic updates are listed together in BUILTINS. */
bool builtin_is_atomic(int b)
{
    return b >= B_ATOMIC_ADD_WRAP && b <= B_ATOMIC_ADD_UNORDERED;
}

/* A linear walk of ~50 names: the checker does not call this per name
 * (it keeps the built-ins in its universe hash table); tools may. */
int builtin_lookup(const char *id)
{
    if (!id)
        return -1;
    for (int b = 0; b < B_NBUILTINS; b++)
        if (builtin_names[b][0] == id[0] && strcmp(builtin_names[b], id) == 0)
            return b;
    return -1;
}

const char *place_name(Placement p)
{
    switch (p) {
    case PLACE_HOST: return "host";
    case PLACE_PINNED: return "pinned";
    case PLACE_UNIFIED: return "unified";
    case PLACE_DEVICE: return "device";
    }
    return "?";
}
