/*
 * wide.c: the accessors of wide.h, over calls the checker accepted.
 *
 * Requires: a call check_wide.c typed (its view, index and value typed, its
 * load's type an Array[T, K]).
 * Guarantees: nothing is decided here that the checker did not: K comes from
 * the types the checker gave, the hint from the name it accepted.
 */
#include "wide.h"

#include <string.h>

static const char *const hint_names[] = {
#define X(id, name, ptx, rt) name,
    WIDE_HINTS(X)
#undef X
};
static const char *const hint_ptx[] = {
#define X(id, name, ptx, rt) ptx,
    WIDE_HINTS(X)
#undef X
};
static const char *const hint_rt[] = {
#define X(id, name, ptx, rt) rt,
    WIDE_HINTS(X)
#undef X
};

const char *wide_hint_name(WideHint h) { return h < WIDE_NHINTS ? hint_names[h] : "?"; }
const char *wide_hint_ptx(WideHint h) { return h < WIDE_NHINTS ? hint_ptx[h] : ""; }
const char *wide_hint_rt(WideHint h) { return h < WIDE_NHINTS ? hint_rt[h] : "CN_CACHE_ALL"; }

int wide_hint_named(const char *id)
{
    for (int h = 0; id && h < WIDE_NHINTS; h++)
        if (strcmp(id, hint_names[h]) == 0)
            return h;
    return -1;
}

bool wide_is(const Node *e)
{
    return e && e->kind == N_CALL && e->call.ck == CALL_BUILTIN &&
           (e->call.builtin == B_LOAD_WIDE || e->call.builtin == B_STORE_WIDE) && e->call.args.n >= 2;
}

bool wide_is_store(const Node *e)
{
    return wide_is(e) && e->call.builtin == B_STORE_WIDE;
}

Node *wide_view(const Node *e) { return e->call.args.v[0]; }
Node *wide_index(const Node *e) { return e->call.args.v[1]; }
Node *wide_value(const Node *e) { return wide_is_store(e) ? e->call.args.v[2] : NULL; }

int64_t wide_count(const Node *e)
{
    const Type *t = wide_is_store(e) ? wide_value(e)->ty : e->ty;
    return t && t->kind == TY_ARRAY ? t->count : 0;
}

int wide_bytes(const Node *e)
{
    const Type *v = wide_view(e)->ty;
    return (int)wide_count(e) * (v && v->elem ? type_bits(v->elem) / 8 : 0);
}

WideHint wide_hint(const Node *e)
{
    int at = wide_is_store(e) ? 3 : 2;
    if (e->call.args.n <= at)
        return WIDE_ALL;
    const Node *h = e->call.args.v[at];
    int k = h->kind == N_FIELD ? wide_hint_named(h->field.id) : -1;
    return k < 0 ? WIDE_ALL : (WideHint)k;
}

bool wide_global(const Node *e)
{
    const Type *v = wide_view(e)->ty;
    return v && !v->shared && (v->place == PLACE_DEVICE || v->place == PLACE_UNIFIED);
}

/* The vector shape of n bytes in 32-bit words, or one narrower scalar. */
static const char *shape_of(int bytes)
{
    switch (bytes) {
    case 16: return ".v4.u32";
    case 8: return ".v2.u32";
    case 4: return ".u32";
    case 2: return ".u16";
    default: return ".u8";
    }
}

const char *wide_ptx(Arena *a, const Node *e)
{
    bool global = wide_global(e);
    return arena_printf(a, "%s%s%s%s", wide_is_store(e) ? "st" : "ld", global ? ".global" : "",
                        global ? wide_hint_ptx(wide_hint(e)) : "", shape_of(wide_bytes(e)));
}

size_t wide_piece(size_t bytes)
{
    size_t p = WIDE_MAX_BYTES;
    while (p > 1 && bytes % p)
        p /= 2;
    return p;
}
