/*
 * wide.h: wide loads and stores (load_wide[K](x, i[, hint]) and
 * store_wide(x, i, v[, hint])), as every stage after the checker reads them.
 *
 * The checker (check_wide.c) accepts a call only when its shape is right, so
 * these accessors read a checked call and nothing else: its view, its index,
 * K, the bytes one access moves and its cache hint. The race rule, the phase
 * rules, the effect rows, explain and the emitter all see an access as the
 * part x[i .. i + K] through them, so they cannot disagree about it.
 */
#ifndef CAIRN_WIDE_H
#define CAIRN_WIDE_H

#include "cairn.h"

/* The hints, as written after `Cache.`, with the PTX cache operator each
 * asks for ("" for the default, which PTX writes without one) and the
 * runtime's constant (runtime/cairn_wide.h). */
#define WIDE_HINTS(X)                                                      \
    X(WIDE_ALL, "all", "", "CN_CACHE_ALL")                                 \
    X(WIDE_L2, "l2", ".cg", "CN_CACHE_L2")                                 \
    X(WIDE_STREAMING, "streaming", ".cs", "CN_CACHE_STREAMING")            \
    X(WIDE_LAST_USE, "last_use", ".lu", "CN_CACHE_LAST_USE")               \
    X(WIDE_READ_ONLY, "read_only", ".nc", "CN_CACHE_READ_ONLY")

typedef enum {
#define X(id, name, ptx, rt) id,
    WIDE_HINTS(X)
#undef X
    WIDE_NHINTS
} WideHint;

/* The widest access a thread makes at once: 16 bytes (ld.global.v4.u32). */
enum { WIDE_MAX_BYTES = 16 };

const char *wide_hint_name(WideHint h);   /* "streaming" */
const char *wide_hint_ptx(WideHint h);    /* ".cs", "" for Cache.all */
const char *wide_hint_rt(WideHint h);     /* "CN_CACHE_STREAMING" */
/* The hint named id ("streaming"); -1 when there is none of that name. */
int wide_hint_named(const char *id);

/* Is e a call of load_wide or store_wide that the checker accepted? */
bool wide_is(const Node *e);
bool wide_is_store(const Node *e);
Node *wide_view(const Node *e);           /* x */
Node *wide_index(const Node *e);          /* i */
Node *wide_value(const Node *e);          /* store_wide's v; NULL for a load */
int64_t wide_count(const Node *e);        /* K */
int wide_bytes(const Node *e);            /* K * sizeof(T) */
/* The hint a checked call names (WIDE_ALL when it names none). */
WideHint wide_hint(const Node *e);
/* Does the device access go through the global state space, where the cache
 * operators live? A @device or @unified view that is not a block's shared
 * array; anything else is a plain vector access. */
bool wide_global(const Node *e);
/* A wide lane group's access of BYTES (analyze.c, "Wide lanes"): the
 * largest power of two, at most WIDE_MAX_BYTES, that divides it; each
 * access moves that many bytes, and the view's pointer must sit on a
 * multiple of it. */
size_t wide_piece(size_t bytes);
/* The device instruction, as PTX spells it: "ld.global.cs.v4.u32". */
const char *wide_ptx(Arena *a, const Node *e);

#endif
