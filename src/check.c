/*
 * check.c: the checker's driver: scopes and names, top-level declarations,
 * types written in source, constants, and generic instances.
 *
 * Requires: a program the parser accepted (Check.program), an arena and a
 * sink. Parse errors stop the pipeline before us, but every function here
 * still tolerates NULL children.
 * Guarantees (when it reports no error): every N_NAME has a sym, every
 * expression a concrete type (never TY_ERROR or a literal type), every Sym a
 * unique C name that is no C/C++ keyword (cn_ functions, v_ locals, k_
 * consts, g_ generic parameters, cl_ closures), every call its kind and
 * target, and c->fns lists each function to emit (non-generic functions in
 * source order, then the instances of generics as they were first needed).
 * Anything whose rules belong to a later issue is refused with E-UNSUPPORTED
 * naming the construct; those refusals are reported last and only when no
 * other rule was broken (see Deferred in check.h).
 *
 * The design, in short: three kinds of scope (a universe of built-ins and
 * type names, the globals, then one per block), each a small hash table.
 * Globals are declared first so they may be used before their declaration;
 * signatures are resolved next; then bodies. A generic is checked once with
 * its parameters unknown (so a generic nobody calls is still checked), and
 * each distinct tuple of compile-time arguments gets an instance, a copy of
 * the function made by ast_clone, checked like any function from a worklist.
 */
#include "check.h"
#include "sym.h"
#include "par.h"
#include "pass.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- scopes */

Scope *scope_push(Ctx *x)
{
    Scope *s = arena_alloc(x->a, sizeof *s);
    s->parent = x->scope;
    s->fn_level = x->fn_level;
    x->scope = s;
    return s;
}

void scope_pop(Ctx *x)
{
    if (x->scope)
        x->scope = x->scope->parent;
}

/* A probe compares the stored hash first and the pointer next: names come
 * interned from the lexer, so the same name is mostly the same pointer and
 * strcmp runs only for names made elsewhere (built-ins, clones). */
static Sym *scope_get(const Scope *s, const char *id, uint32_t h)
{
    if (!s->cap)
        return NULL;
    for (uint32_t i = h & (uint32_t)(s->cap - 1);; i = (i + 1) & (uint32_t)(s->cap - 1)) {
        Sym *y = s->slots[i];
        if (!y)
            return NULL;
        if (s->hashes[i] == h && (y->id == id || strcmp(y->id, id) == 0))
            return y;
    }
}

static void scope_grow(Arena *a, Scope *s)
{
    int cap = s->cap ? s->cap * 2 : 8;
    Sym **slots = arena_alloc(a, sizeof *slots * (size_t)cap);
    uint32_t *hashes = arena_alloc(a, sizeof *hashes * (size_t)cap);
    for (int i = 0; i < s->cap; i++) {
        Sym *y = s->slots[i];
        if (!y)
            continue;
        uint32_t j = s->hashes[i] & (uint32_t)(cap - 1);
        while (slots[j])
            j = (j + 1) & (uint32_t)(cap - 1);
        slots[j] = y;
        hashes[j] = s->hashes[i];
    }
    s->slots = slots;
    s->hashes = hashes;
    s->cap = cap;
}

/* Adds y to s; returns the symbol already there under that name, if any. */
static Sym *scope_put(Arena *a, Scope *s, Sym *y)
{
    uint32_t h = str_hash(y->id);
    Sym *old = scope_get(s, y->id, h);
    if (old)
        return old;
    if ((s->n + 1) * 10 > s->cap * 7)
        scope_grow(a, s);
    uint32_t i = h & (uint32_t)(s->cap - 1);
    while (s->slots[i])
        i = (i + 1) & (uint32_t)(s->cap - 1);
    s->slots[i] = y;
    s->hashes[i] = h;
    s->n++;
    return NULL;
}

Sym *scope_find(Ctx *x, const char *id, Scope **where)
{
    if (!id)
        return NULL;
    uint32_t h = str_hash(id);
    for (Scope *s = x->scope; s; s = s->parent) {
        Sym *y = scope_get(s, id, h);
        if (y) {
            if (where)
                *where = s;
            return y;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------ symbols */

/* prefix_id_N, built by hand: one per local, on the hot path. */
const char *fresh_cname(Ctx *x, const char *prefix, const char *id)
{
    char num[24];
    int k = sizeof num;
    unsigned v = (unsigned)++x->next_id;
    num[--k] = 0;
    do
        num[--k] = (char)('0' + v % 10);
    while ((v /= 10) && k > 0);
    if (!id)
        id = "t";
    size_t lp = strlen(prefix), li = strlen(id), ln = sizeof num - 1 - (size_t)k;
    char *s = arena_alloc(x->a, lp + li + ln + 3);
    memcpy(s, prefix, lp);
    s[lp] = '_';
    memcpy(s + lp + 1, id, li);
    s[lp + 1 + li] = '_';
    memcpy(s + lp + li + 2, num + k, ln + 1);
    return s;
}

Sym *sym_new(Ctx *x, SymKind k, const char *id, Node *decl, Type *ty)
{
    Sym *s = arena_alloc(x->a, sizeof *s);
    s->kind = k;
    s->id = id ? id : "_";
    s->decl = decl;
    s->ty = ty;
    s->builtin = -1;
    return s;
}

static bool is_type_name(Ctx *x, const char *id)
{
    Sym *u = scope_get(x->universe, id, str_hash(id));
    return u && u->builtin < 0 && u->ty && u->ty->kind != TY_OPAQUE;
}

/* Declares a local (or parameter) in the innermost scope. Redeclaring a
 * name in the same block is E-NAME; shadowing an outer one is allowed. A
 * type name cannot be redeclared: `u64(x)` must keep meaning a conversion. */
bool declare_local(Ctx *x, Sym *s, Span at)
{
    if (!s->id || strcmp(s->id, "_") == 0)
        return true;   /* `for _ in ..`: nothing to name */
    if (is_type_name(x, s->id)) {
        diag_error(x->sink, at, E_NAME, "choose another name",
                   "`%s` is a type name and cannot name a variable", s->id);
        return false;
    }
    Sym *old = scope_put(x->a, x->scope, s);
    if (old) {
        int line = old->decl ? old->decl->span.line : 0;
        diag_error(x->sink, at, E_NAME, "rename one of them, or assign to the first (`let mut`)",
                   "`%s` is already declared in this block (line %d)", s->id, line);
        return false;
    }
    return true;
}

/* ------------------------------------------------------ did you mean */

/* Levenshtein distance, capped: we only care whether it is 1 or 2. */
static int edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 40 || lb > 40 || la - lb > 2 || lb - la > 2)
        return 99;
    int row[41], prev[41];
    for (int j = 0; j <= lb; j++)
        prev[j] = j;
    for (int i = 1; i <= la; i++) {
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, row, sizeof(int) * (size_t)(lb + 1));
    }
    return prev[lb];
}

/* Only on the error path, so a walk of every visible name is fine here. */
static const char *closest_name(Ctx *x, const char *id)
{
    const char *best = NULL;
    int bestd = 3;
    for (Scope *s = x->scope; s; s = s->parent)
        for (int i = 0; i < s->cap; i++) {
            Sym *y = s->slots[i];
            if (!y || y->kind == SYM_BUILTIN)
                continue;
            int d = edit_distance(id, y->id);
            if (d < bestd) {
                bestd = d;
                best = y->id;
            }
        }
    for (int b = 0; b < B_NBUILTINS && bestd > 1; b++) {
        int d = edit_distance(id, builtin_name((Builtin)b));
        if (d < bestd) {
            bestd = d;
            best = builtin_name((Builtin)b);
        }
    }
    return best;
}

Sym *resolve_name(Ctx *x, Node *name)
{
    const char *id = name->name.id ? name->name.id : "";
    Sym *s = scope_find(x, id, NULL);
    if (s)
        return s;
    const char *near = closest_name(x, id);
    const char *help = near ? arena_printf(x->a, "did you mean `%s`?", near)
                            : "declare it first (`let`, a parameter, a fn or a const)";
    diag_error(x->sink, name->span, E_NAME, help, "unknown name `%s`", id);
    return NULL;
}

/* ------------------------------------------------- deferred refusals */

void unsupported(Ctx *x, Span at, const char *what, const char *help)
{
    /* A generic and its instances meet the same construct: say it once. */
    for (int i = x->deferred.n - 1; i >= 0 && i >= x->deferred.n - 64; i--) {
        Deferred *o = x->deferred.v[i];
        if (o->at.line == at.line && o->at.col == at.col && o->at.src == at.src && strcmp(o->what, what) == 0)
            return;
    }
    Deferred *d = arena_alloc(x->a, sizeof *d);
    d->at = at;
    d->what = what;
    d->help = help;
    vec_push(x->a, &x->deferred, d);
}

static void report_deferred(Ctx *x)
{
    for (int i = 0; i < x->deferred.n; i++) {
        Deferred *d = x->deferred.v[i];
        diag_error(x->sink, d->at, E_UNSUPPORTED,
                   d->help ? d->help : "this construct's rules land in a later issue; until then it is refused",
                   "not supported yet: %s", d->what);
    }
}

/* ------------------------------------------------------------ numerics */

void numerics_add(Ctx *x, const char *op, const Type *from, const Type *to, const char *rounding)
{
    numerics_add_overflow(x, op, from, to, rounding, NULL);
}

/* One entry of the receipt's list, once. A handful of distinct kinds at
 * most (ops x types): a walk is fine. */
static void numerics_push(Ctx *x, const char *json)
{
    for (int i = 0; i < x->c->numerics.n; i++)
        if (strcmp(x->c->numerics.v[i], json) == 0)
            return;
    vec_push(x->a, &x->c->numerics, (void *)json);
}

/* overflow: what a result past the target's range becomes ("infinity",
 * "trap", "saturate"), listed for the storage floats and quantize; NULL
 * leaves the key out. */
void numerics_add_overflow(Ctx *x, const char *op, const Type *from, const Type *to, const char *rounding,
                           const char *overflow)
{
    /* Seen already? Compared by kinds and strings, before any formatting:
     * this runs for every float operator. */
    const char *ov = overflow ? overflow : "";
    for (int i = 0; i < x->nnum; i++) {
        NumSeen *n = &x->num_seen[i];
        if (n->from == from->kind && n->to == to->kind && strcmp(n->op, op) == 0 &&
            strcmp(n->rounding, rounding) == 0 && strcmp(n->overflow, ov) == 0)
            return;
    }
    if (x->nnum < (int)(sizeof x->num_seen / sizeof *x->num_seen))
        x->num_seen[x->nnum++] = (NumSeen){op, rounding, ov, from->kind, to->kind};
    const char *j = arena_printf(x->a, "{\"op\": \"%s\", \"from\": \"%s\", \"to\": \"%s\", \"rounding\": \"%s\"%s%s%s}",
                                 op, type_str(x->a, from), type_str(x->a, to), rounding,
                                 overflow ? ", \"overflow\": \"" : "", ov, overflow ? "\"" : "");
    numerics_push(x, j);
}

/* A std.math call: whose implementation runs and how far from the exact
 * value it may be. claim is the portable implementation's ("correctly
 * rounded", "<= 1 ulp"); NULL is the host's C library, whose error no one
 * states. */
void numerics_add_math(Ctx *x, const char *op, const Type *t, const char *claim)
{
    const char *j = arena_printf(x->a, "{\"op\": \"%s\", \"from\": \"%s\", \"impl\": \"%s\", \"error\": \"%s\"}", op,
                                 type_str(x->a, t), claim ? "cairn" : "libm", claim ? claim : "unstated");
    numerics_push(x, j);
}

/* A float reduction on the device: each partial rounds to nearest, and
 * the partials combine in a tree whose order the language leaves open
 * (numerics.md). The receipt says so: a reader comparing a device run with
 * a host one must not expect the same bits. */
void numerics_add_unordered(Ctx *x, const char *op, const Type *t)
{
    const char *j = arena_printf(x->a, "{\"op\": \"%s\", \"from\": \"%s\", \"to\": \"%s\", \"rounding\": "
                                       "\"nearest-even\", \"order\": \"unspecified\", \"where\": \"device\"}",
                                 op, type_str(x->a, t), type_str(x->a, t));
    numerics_push(x, j);
}

/* The host's exact float sum (reduce + parallel on the pool): one
 * rounding of the exact total (numerics.md, "Parallel float sums"). */
void numerics_add_exact_sum(Ctx *x, const Type *t)
{
    numerics_push(x, arena_printf(x->a, "{\"op\": \"sum\", \"from\": \"%s\", \"to\": \"%s\", \"rounding\": "
                                        "\"nearest-even\", \"sum\": \"exact\"}", type_str(x->a, t), type_str(x->a, t)));
}

/* atomic_add_unordered's contract (numerics.md, "Atomic float addition"):
 * each partial sum rounded once, in the order the adds arrive; on the device
 * an f32 add flushes a subnormal operand or result to zero (atom.add.f32 in
 * global memory, the runtime's add.rn.ftz loop in shared memory), an f64 add
 * and every host add (an emulated device one too) keep them; and the bound
 * that follows, as the page states it, after k adds. */
void numerics_add_atomic(Ctx *x, const Type *t, bool device)
{
    bool flush = device && t->kind == TY_F32 && !x->c->emulate;   /* emulated: a host add, which keeps them */
    const char *bound = t->kind == TY_F32 ? "k * 2^-23 * (|old| + sum |v|) + k * 2^-125, k < 2^22"
                                          : "k * 2^-52 * (|old| + sum |v|), k < 2^51";
    numerics_push(x, arena_printf(x->a, "{\"op\": \"atomic_add\", \"from\": \"%s\", \"to\": \"%s\", \"rounding\": "
                                        "\"nearest-even\", \"order\": \"unspecified\", \"where\": \"%s\", "
                                        "\"subnormals\": \"%s\", \"bound\": \"%s\"}",
                                  type_str(x->a, t), type_str(x->a, t), device ? "device" : "host",
                                  flush ? "flushed" : "kept", bound));
}

/* mma_unordered's contract (numerics.md, "The tensor-core multiply"): each
 * product exact in f32, each partial sum rounded to f32, in increasing k on
 * the host (and emulated: the reference loop's bits) and in the hardware's
 * order on a device; the bound that follows. */
void numerics_add_mma(Ctx *x, const Type *operand, bool device)
{
    bool ordered = !device || x->c->emulate;
    numerics_push(x, arena_printf(x->a, "{\"op\": \"mma\", \"from\": \"%s\", \"to\": \"f32\", \"rounding\": "
                                        "\"nearest-even\", \"order\": \"%s\", \"where\": \"%s\", \"bound\": "
                                        "\"(k + 1) * 2^-22 * (|c| + sum |a b|)\"}",
                                  type_str(x->a, operand), ordered ? "increasing k" : "unspecified",
                                  device ? "device" : "host"));
}

/* Whether an atomic's element is one of a cooperative region's shared
 * arrays: where its add runs is the region's place, which is known only
 * once the whole region is checked (check_coop lists it then). */
bool numerics_atomic_in_shared(Ctx *x, Node *el)
{
    Sym *root = view_root(el);
    return x->fs && x->fs->coop && root && root->decl && root->decl->kind == N_SHARED;
}

static bool shared_atomic_visit(Node *n, void *ctx)
{
    void **c = ctx;
    Ctx *x = c[0];
    Node *region = c[1];
    if (n->kind == N_CALL && n->call.ck == CALL_BUILTIN && n->call.builtin == B_ATOMIC_ADD_UNORDERED &&
        n->call.args.n == 2) {
        Node *el = n->call.args.v[0];
        Sym *root = view_root(el);
        if (el->ty && type_is_float(el->ty) && root && root->decl && root->decl->kind == N_SHARED)
            numerics_add_atomic(x, el->ty, region->coop.device);
    }
    return true;
}

/* The float atomic adds on a region's shared arrays, listed where the
 * region runs: on the device when it indexes a device view. */
void numerics_add_region_atomics(Ctx *x, Node *region)
{
    void *c[2] = {x, region};
    par_walk(region->coop.body, shared_atomic_visit, c);
    if (region->coop.finish)
        par_walk(region->coop.finish, shared_atomic_visit, c);
}

/* ---------------------------------------------------- closing brace */

/* Where the `}` matching the `{` at `open` is: E-RETURN points there. We
 * scan the source text, skipping strings and line comments. */
Span closing_brace(Span open)
{
    const Source *src = open.src;
    if (!src || !src->text)
        return open;
    const char *t = src->text, *p = t;
    for (int line = 1; line < open.line && *p; p++)
        if (*p == '\n')
            line++;
    for (int c = 1; c < open.col && *p && *p != '\n'; c++)
        p++;
    while (*p && *p != '{')
        p++;
    int depth = 0;
    for (; *p; p++) {
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (!*p)
                break;
        } else if (*p == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
            if (!*p)
                break;
        } else if (*p == '{') {
            depth++;
        } else if (*p == '}' && --depth == 0) {
            break;
        }
    }
    if (!*p)
        return open;
    Span s = {.src = src, .line = 1, .col = 1, .len = 1};
    for (const char *q = t; q < p; q++) {
        if (*q == '\n') {
            s.line++;
            s.col = 1;
        } else {
            s.col++;
        }
    }
    return s;
}

/* ------------------------------------------------------------ universe */

static void universe_add(Ctx *x, const char *id, int builtin, Type *ty)
{
    Sym *s = sym_new(x, SYM_BUILTIN, id, NULL, ty);
    s->builtin = builtin;
    s->cname = id;
    scope_put(x->a, x->universe, s);
    if (builtin >= 0)
        x->builtin_syms[builtin] = s;
}

static Type *opaque(Ctx *x, const char *name)
{
    Type *t = arena_alloc(x->a, sizeof *t);
    t->kind = TY_OPAQUE;
    t->name = name;
    return t;
}

/* The universe: built-in functions, scalar type names (as conversion
 * callees), and the namespaces `std` and `Cache`. User names shadow the
 * built-ins (d17 names a parameter `rows`), never the type names. */
static void universe_init(Ctx *x)
{
    x->universe = scope_push(x);
    for (int b = 0; b < B_NBUILTINS; b++)
        universe_add(x, builtin_name((Builtin)b), b, type_prim(TY_VOID));
    for (int k = TY_BOOL; k <= TY_F8E5M2; k++) {
        Type *t = type_prim((TypeKind)k);
        universe_add(x, type_str(x->a, t), -1, t);
    }
    universe_add(x, "std", -1, opaque(x, "std"));
    universe_add(x, "Cache", -1, opaque(x, "Cache"));
    universe_add(x, "Array", -1, opaque(x, "Array"));
}

/* ------------------------------------------------------------- types */

static Type *prim_by_name(Ctx *x, const char *id)
{
    if (!id)
        return NULL;
    Sym *u = scope_get(x->universe, id, str_hash(id));
    if (u && u->builtin < 0 && type_is_scalar(u->ty))
        return u->ty;
    return NULL;
}

Type *view_type(Ctx *x, Access acc, Type *elem, Node *extent, Placement p)
{
    Type *t = arena_alloc(x->a, sizeof *t);
    t->kind = TY_VIEW;
    t->access = acc;
    t->elem = elem;
    t->extent = extent;
    t->place = p;
    return t;
}

Type *array_type(Ctx *x, Type *elem, int64_t count)
{
    Type *t = arena_alloc(x->a, sizeof *t);
    t->kind = TY_ARRAY;
    t->elem = elem;
    t->count = count;
    return t;
}

static Type *scalar_elem(Ctx *x, Node *t, const char *what)
{
    Type *e = resolve_type(x, t);
    if (is_error(e) || type_is_scalar(e))
        return e;
    diag_error(x->sink, t->span, E_TYPE_MISMATCH, "use a scalar type (f32, u64, bf16, ...)",
               "the elements of %s must be scalars, not %s", what, tstr(x, e));
    return type_error();
}

static Type *resolve_view_type(Ctx *x, Node *t)
{
    Type *elem = scalar_elem(x, t->type.elem, "a view");
    if (!t->type.extent) {            /* rw<T>: a scalar passed by reference */
        if (t->type.access == ACC_RO) {
            diag_error(x->sink, t->span, E_TYPE_MISMATCH, "write the scalar type itself, or give an extent: ro<T>[n]",
                       "ro<%s> without an extent is not a type", tstr(x, elem));
            return type_error();
        }
        Type *r = arena_alloc(x->a, sizeof *r);
        r->kind = TY_REF;
        r->access = ACC_RW;
        r->elem = elem;
        return is_error(elem) ? elem : r;
    }
    Type *n = check_expect(x, t->type.extent, type_prim(TY_USIZE), "a view's extent");
    if (is_error(elem) || is_error(n))
        return type_error();
    return view_type(x, t->type.access, elem, t->type.extent, t->type.place);
}

static Type *resolve_array_type(Ctx *x, Node *t)
{
    if (t->type.args.n != 2) {
        diag_error(x->sink, t->span, E_TYPE_MISMATCH, "write Array[T, K], e.g. Array[f32, 4]",
                   "Array takes an element type and a count, not %d arguments", t->type.args.n);
        return type_error();
    }
    Node *en = t->type.args.v[0], *kn = t->type.args.v[1];
    Type *elem = scalar_elem(x, en, "an Array");
    int64_t k = 0;
    int errors_before = x->sink->errors;   /* a count of the wrong type is reported once, as that */
    if (kn && kn->kind != N_TYPE)
        check_expect(x, kn, type_prim(TY_USIZE), "an Array's count");
    bool typed = x->sink->errors == errors_before;
    if (!kn || kn->kind == N_TYPE || !sym_const(x->a, kn, &k) || k <= 0) {
        if ((!x->generic_unknown || !kn || kn->kind == N_TYPE) && typed)
            diag_error(x->sink, kn ? kn->span : t->span, E_CONST, "write a positive constant, e.g. Array[f32, 4]",
                       "an Array's count must be a positive constant, not %s", kn ? estr(x, kn) : "nothing");
        return type_error();
    }
    return is_error(elem) ? elem : array_type(x, elem, k);
}

static Type *resolve_fn_type(Ctx *x, Node *t)
{
    Type *f = arena_alloc(x->a, sizeof *f);
    f->kind = TY_FN;
    bool bad = false;
    for (int i = 0; i < t->type.args.n; i++) {
        Type *p = resolve_type(x, t->type.args.v[i]);
        if (p->kind == TY_VIEW || p->kind == TY_REF) {
            unsupported(x, ((Node *)t->type.args.v[i])->span, "a view or rw<T> in a function type",
                        "function values take and give scalars and Arrays for now");
            bad = true;
        }
        bad |= is_error(p);
        vec_push(x->a, &f->params, p);
    }
    f->ret = t->type.ret ? resolve_type(x, t->type.ret) : type_prim(TY_VOID);
    return (bad || is_error(f->ret)) ? type_error() : f;
}

/* Whether an integer expression is made only of what sym_const folds
 * (literals, known consts, + - * / % & | ^, min, max, shl, shr, conversions): when it
 * is and folding failed, a guard failed (overflow, division by zero), which
 * is not the same as a value unknown at compile time. */
static bool const_shape(const Node *e)
{
    if (!e)
        return false;
    switch (e->kind) {
    case N_INT: return !e->lit.overflow;
    case N_UNARY: return e->unary.op == T_MINUS && const_shape(e->unary.a);
    case N_BINARY:
        for (; e->kind == N_BINARY; e = e->binary.a)   /* down a chain's spine: no recursion */
            if (!const_shape(e->binary.b))
                return false;
        return const_shape(e);
    case N_NAME: return e->name.sym && e->name.sym->has_value;
    case N_CALL:
        if (e->call.ck == CALL_CONVERT && e->call.args.n == 1)
            return const_shape(e->call.args.v[0]);
        return e->call.ck == CALL_BUILTIN &&
               (e->call.builtin == B_MIN || e->call.builtin == B_MAX || e->call.builtin == B_SHL ||
                e->call.builtin == B_SHR) &&
               e->call.args.n == 2 && const_shape(e->call.args.v[0]) && const_shape(e->call.args.v[1]);
    default: return false;
    }
}

/* A float const's literal, rounded once from its decimal text to the
 * const's type, as the emitter rounds a literal: the f32 nearest the digits,
 * not the f32 nearest the f64 nearest them (which can differ). */
static double const_float_lit(Ctx *x, const Node *lit, const Type *t)
{
    if (!lit->lit.text || t->kind != TY_F32)
        return lit->lit.fval;
    char *clean = arena_strdup(x->a, lit->lit.text);
    char *w = clean;
    for (const char *p = lit->lit.text; *p; p++)
        if (*p != '_')
            *w++ = *p;
    *w = 0;
    return (double)strtof(clean, NULL);
}

static Type *resolve_named_type(Ctx *x, Node *t)
{
    const char *id = t->type.id;
    int frag = frag_lookup(id);
    if (frag >= 0)
        return check_fragment_type(x, t, (FragKind)frag);
    if (strcmp(id, "Ticket") == 0)
        return type_prim(TY_TICKET);
    if (strcmp(id, "Lock") == 0 || strcmp(id, "Layout") == 0) {
        unsupported(x, t->span, arena_printf(x->a, "the type %s (a later issue)", id), NULL);
        return type_error();
    }
    if (strcmp(id, "nat") == 0) {
        diag_error(x->sink, t->span, E_TYPE_MISMATCH, "write `usize`; `nat` is for compile-time parameters [D:nat]",
                   "`nat` is the kind of a compile-time parameter, not a value type");
        return type_error();
    }
    diag_error(x->sink, t->span, E_NAME, "the types are i8..i64, u8..u64, usize, f32, f64, bool, f16, bf16, "
               "f8e4m3, f8e5m2, ro<T>[n], rw<T>[n], rw<T>, Array[T, K] and fn(..) -> R",
               "unknown type `%s`", id);
    return type_error();
}

/* A type written in source. The parser gives N_TYPE; a bare name may
 * arrive as N_NAME where a type and an expression look alike (targs). */
Type *resolve_type(Ctx *x, Node *t)
{
    if (!t)
        return type_error();
    if (t->kind == N_NAME) {
        Type *p = prim_by_name(x, t->name.id);
        if (p)
            return t->ty = p;
        diag_error(x->sink, t->span, E_NAME, "write a scalar type (i32, f64, ...), a view ro<T>[n], Array[T, K] or fn(A) -> R",
                   "`%s` is not a type", t->name.id);
        return type_error();
    }
    if (t->kind != N_TYPE) {
        diag_error(x->sink, t->span, E_TYPE_MISMATCH, "write a type here: i32, f64, ro<T>[n], Array[T, K], ...",
                   "a type is expected here, not %s", estr(x, t));
        return type_error();
    }
    const char *id = t->type.id ? t->type.id : "";
    Type *r;
    if (t->type.access != ACC_NONE || strcmp(id, "ro") == 0 || strcmp(id, "rw") == 0) {
        if (t->type.access == ACC_NONE)
            t->type.access = id[1] == 'o' ? ACC_RO : ACC_RW;
        r = resolve_view_type(x, t);
    } else if (strcmp(id, "Array") == 0) {
        r = resolve_array_type(x, t);
    } else if (strcmp(id, "fn") == 0) {
        r = resolve_fn_type(x, t);
    } else if ((r = prim_by_name(x, id)) == NULL) {
        r = resolve_named_type(x, t);
    }
    return t->ty = r;
}

/* ------------------------------------------------------------ consts */

/* Consts are global and may be used before their declaration, so each is
 * resolved on first use; Sym.ty == x->resolving marks one in progress. */
void const_resolve(Ctx *x, Sym *s)
{
    if (s->ty == x->resolving) {
        diag_error(x->sink, s->decl->span, E_CONST, "give it a value that does not depend on itself",
                   "const %s depends on its own value", s->id);
        s->ty = type_error();
        return;
    }
    if (s->ty)
        return;
    Node *d = s->decl;
    s->ty = x->resolving;
    Type *want = d->let.type ? resolve_type(x, d->let.type) : NULL;
    if (want && !is_error(want) && !type_is_int(want) && !type_is_float(want) && want->kind != TY_BOOL) {
        diag_error(x->sink, d->let.type->span, E_CONST, "a const is an integer, a float or a bool",
                   "const %s cannot be of type %s", s->id, tstr(x, want));
        want = type_error();
    }
    Type *got = want && !is_error(want) ? check_expect(x, d->let.init, want, "the const's value")
                                         : check_expr(x, d->let.init, NULL);
    if (s->ty != x->resolving)
        return;   /* a cycle through it was reported meanwhile */
    s->ty = want ? want : got;
    if (is_error(got))
        s->ty = got;   /* its uses stay quiet: the error is reported once */
    if (is_error(s->ty))
        return;
    Node *e = d->let.init;
    if (type_is_int(s->ty) && sym_const(x->a, e, &s->value)) {
        s->has_value = true;
    } else if (type_is_int(s->ty) && e && e->kind == N_INT && !e->lit.overflow) {
        s->value = (int64_t)e->lit.ival;   /* a u64 past INT64_MAX: its bits (not usable as an extent) */
        s->has_value = true;
    } else if (type_is_float(s->ty) && e && (e->kind == N_FLOAT || (e->kind == N_UNARY && e->unary.a &&
                                                                    e->unary.a->kind == N_FLOAT))) {
        s->fvalue = e->kind == N_FLOAT ? const_float_lit(x, e, s->ty) : -const_float_lit(x, e->unary.a, s->ty);
        s->has_value = true;
    } else if (s->ty->kind == TY_BOOL && e && e->kind == N_BOOL) {
        s->value = e->lit.bval;
        s->has_value = true;
    } else if (type_is_int(s->ty) && const_shape(e)) {
        diag_error(x->sink, e->span, E_CONST, "compute it in a wider type, or change the operands",
                   "const %s = %s does not fit in %s, or divides by zero (the guards of run time apply)", s->id,
                   estr(x, e), tstr(x, s->ty));
    } else {
        diag_error(x->sink, e ? e->span : d->span, E_CONST,
                   "use literals, other consts and + - * / % & | ^ min max",
                   "the value of const %s is not known at compile time: %s", s->id, e ? estr(x, e) : "?");
    }
}

/* --------------------------------------------------------- functions */

static bool fn_is_generic(const Node *fn)
{
    return fn->fn.generics.n > 0 && !fn->fn.is_instance;
}

/* Resolves a function's parameters in a fresh scope (its own), declaring
 * each in order so an extent names earlier parameters: `n:usize,
 * x:ro<f32>[n]`. Gives the function's Sym its TY_FN type. */
static void resolve_signature(Ctx *x, Node *fn)
{
    Sym *fs = fn->fn.sym;
    Type *ft = arena_alloc(x->a, sizeof *ft);
    ft->kind = TY_FN;
    for (int i = 0; i < fn->fn.generics.n; i++) {
        Node *g = fn->fn.generics.v[i];
        Sym *gs = sym_new(x, SYM_GENERIC, g->param.id, g, type_prim(TY_USIZE));
        gs->cname = fresh_cname(x, "g", g->param.id);
        if (fn->fn.is_instance && fn->fn.gvals) {
            gs->has_value = true;
            gs->value = fn->fn.gvals[i];
        }
        g->param.sym = gs;
        declare_local(x, gs, g->span);
    }
    for (int i = 0; i < fn->fn.params.n; i++) {
        Node *p = fn->fn.params.v[i];
        Type *pt = resolve_type(x, p->param.type);
        Sym *ps = sym_new(x, SYM_PARAM, p->param.id, p, pt);
        ps->cname = fresh_cname(x, "v", p->param.id);
        ps->mut = pt->kind == TY_REF;
        p->param.sym = ps;
        declare_local(x, ps, p->span);
        vec_push(x->a, &ft->params, pt);
    }
    ft->ret = fn->fn.ret ? resolve_type(x, fn->fn.ret) : type_prim(TY_VOID);
    if (ft->ret->kind == TY_VIEW || ft->ret->kind == TY_REF) {
        diag_error(x->sink, fn->fn.ret->span, E_TYPE_MISMATCH, "take an rw view parameter and write into it",
                   "a function cannot give a view (%s) as its result", tstr(x, ft->ret));
        ft->ret = type_error();
    }
    fs->ty = ft;
}

/* Declares the symbols resolve_signature made in the body's scope: the
 * signature is resolved once (its errors reported once), bound again here. */
static void bind_signature(Ctx *x, Node *fn)
{
    for (int i = 0; i < fn->fn.generics.n; i++) {
        Node *g = fn->fn.generics.v[i];
        if (g->param.sym)
            scope_put(x->a, x->scope, g->param.sym);
    }
    for (int i = 0; i < fn->fn.params.n; i++) {
        Node *p = fn->fn.params.v[i];
        if (p->param.sym && strcmp(p->param.sym->id, "_") != 0)
            scope_put(x->a, x->scope, p->param.sym);
    }
}

/* Checks a body in a scope of its own under the globals (a function sees
 * no caller's locals). */
static void check_function(Ctx *x, Node *fn)
{
    Scope *saved = x->scope;
    int saved_level = x->fn_level;
    x->scope = x->globals;
    x->fn_level = 0;
    scope_push(x);
    bind_signature(x, fn);
    check_fn_body(x, fn);
    x->scope = saved;
    x->fn_level = saved_level;
}

static void check_main(Ctx *x, Node *fn)
{
    Type *ft = fn->fn.sym->ty;
    bool ok = fn->fn.params.n == 0 && fn->fn.generics.n == 0 && ft && ft->kind == TY_FN &&
              ft->ret->kind == TY_I32;
    if (!ok)
        diag_error(x->sink, fn->span, E_MAIN, "write `fn main() -> i32 { ... return 0; }`",
                   "main must take no parameters and give an i32 (the exit status), here it is %s",
                   ft && ft->kind == TY_FN ? tstr(x, ft) : "malformed");
}

static void check_test_signature(Ctx *x, Node *fn)
{
    if (fn->fn.params.n || fn->fn.ret || fn->fn.generics.n)
        diag_error(x->sink, fn->span, E_MAIN, "write `test fn name() { assert(...); }`",
                   "test fn %s must take no parameters and give no value", fn->fn.id);
}

/* ------------------------------------------------------------ generics */

static const char *instance_key(Ctx *x, const char *id, const int64_t *vals, int n, bool cname)
{
    const char *k = cname ? arena_printf(x->a, "fn_%s_", id) : arena_printf(x->a, "%s|", id);
    for (int i = 0; i < n; i++)
        k = arena_printf(x->a, "%s%s%lld", k, cname ? "_" : (i ? "," : ""), (long long)vals[i]);
    return k;
}


/* Evaluates the compile-time arguments of `f[..](..)`; false (after a
 * report, or silently while the caller's own generics are unknown). */
static bool generic_args(Ctx *x, Node *fn, Node *call, int64_t *vals)
{
    Vec *ta = &call->call.targs;
    if (ta->n != fn->fn.generics.n) {
        diag_error(x->sink, call->span, E_CALL, arena_printf(x->a, "give %d compile-time argument(s): %s[..](..)",
                                                              fn->fn.generics.n, fn->fn.id),
                   "%s takes %d compile-time argument(s), %d given", fn->fn.id, fn->fn.generics.n, ta->n);
        return false;
    }
    bool ok = true;
    for (int i = 0; i < ta->n; i++) {
        Node *a = ta->v[i];
        if (a && a->kind == N_TYPE && a->type.id && !a->type.args.n && a->type.access == ACC_NONE) {
            Node *nm = node_new(x->a, N_NAME, a->span);   /* `f[D]` parsed as a type name */
            nm->name.id = a->type.id;
            ta->v[i] = a = nm;
        }
        if (!a || a->kind == N_TYPE) {
            diag_error(x->sink, a ? a->span : call->span, E_CONST, "give a constant natural number",
                       "a compile-time argument of %s must be a number, not a type", fn->fn.id);
            ok = false;
            continue;
        }
        Type *t = check_expect(x, a, type_prim(TY_USIZE), "a compile-time argument");
        if (is_error(t)) {
            ok = false;
        } else if (!sym_const(x->a, a, &vals[i])) {
            if (!x->generic_unknown)
                diag_error(x->sink, a->span, E_CONST, "use literals, consts and compile-time parameters",
                           "the compile-time argument %s of %s is not a constant", estr(x, a), fn->fn.id);
            ok = false;
        } else if (vals[i] < 0) {
            diag_error(x->sink, a->span, E_CONST, "a nat is 0 or more",
                       "the compile-time argument of %s is %lld, not a natural number", fn->fn.id,
                       (long long)vals[i]);
            ok = false;
        }
    }
    return ok;
}

/* The instance of a generic for the call's compile-time arguments: made
 * once per distinct tuple of values, its signature resolved now (the call
 * is checked against it), its body checked later from the worklist. */
Node *instantiate(Ctx *x, Sym *generic, Node *call)
{
    Node *g = generic->decl;
    int64_t *vals = arena_alloc(x->a, sizeof *vals * (size_t)(g->fn.generics.n + 1));
    if (!generic_args(x, g, call, vals))
        return NULL;
    const char *key = instance_key(x, g->fn.id, vals, g->fn.generics.n, false);
    Node *inst = strmap_get(&x->instances, key);
    if (inst)
        return inst;
    if (++x->instance_count > 2000) {
        diag_error(x->sink, call->span, E_CONST, "bound the recursion on compile-time parameters",
                   "more than 2000 instances of generic functions (%s grows without end?)", key);
        return NULL;
    }
    inst = ast_clone(x->a, g);
    inst->fn.is_instance = true;
    inst->fn.gvals = vals;
    inst->fn.cname = instance_key(x, g->fn.id, vals, g->fn.generics.n, true);
    Sym *s = sym_new(x, SYM_FN, g->fn.id, inst, NULL);
    s->cname = inst->fn.cname;
    inst->fn.sym = s;
    strmap_put(x->a, &x->instances, key, inst);
    Scope *saved = x->scope;
    bool saved_unknown = x->generic_unknown;
    int saved_level = x->fn_level;
    x->scope = x->globals;
    x->generic_unknown = false;
    x->fn_level = 0;
    scope_push(x);
    resolve_signature(x, inst);
    x->scope = saved;
    x->generic_unknown = saved_unknown;
    x->fn_level = saved_level;
    vec_push(x->a, &x->c->fns, inst);
    vec_push(x->a, &x->work, inst);
    vec_push(x->a, &x->work_generic, g);
    return inst;
}

/* --------------------------------------------------- top-level pass */

static void declare_global(Ctx *x, Sym *s, Span at)
{
    if (is_type_name(x, s->id)) {
        diag_error(x->sink, at, E_NAME, "choose another name", "`%s` is a type name", s->id);
        return;
    }
    Sym *old = scope_put(x->a, x->globals, s);
    if (old)
        diag_error(x->sink, at, E_NAME, "rename one of them",
                   "`%s` is already declared at line %d", s->id, old->decl ? old->decl->span.line : 0);
}

static void declare_fn(Ctx *x, Node *d)
{
    Sym *s = sym_new(x, SYM_FN, d->fn.id, d, NULL);
    s->cname = arena_printf(x->a, "fn_%s", d->fn.id ? d->fn.id : "anon");
    d->fn.cname = s->cname;
    d->fn.sym = s;
    if (d->fn.is_extern) {
        s->ty = type_error();
        if (x->c->emulate)   /* final under emulation: the host has its declaration, not its body */
            diag_error(x->sink, d->span, E_EMULATE, "build for the device target without --emulate",
                       "extern kernel %s under --emulate: the host has its declaration and not its body",
                       d->fn.id ? d->fn.id : "?");
        else
            unsupported(x, d->span, "extern kernels (foreign CUDA, a later issue)", NULL);
    }
    declare_global(x, s, d->span);
}

/* A placeholder for f_grad when no signature could be written: its calls
 * stay quiet after the derive's own error. */
static void derived_placeholder(Ctx *x, const char *target)
{
    const char *id = arena_printf(x->a, "%s_grad", target);
    if (scope_find(x, id, NULL))
        return;
    Sym *s = sym_new(x, SYM_FN, id, NULL, type_error());
    s->cname = arena_printf(x->a, "fn_%s", s->id);
    scope_put(x->a, x->globals, s);
}

/* derive grad [list] for f: f_grad's signature now (grad.c), declared and
 * resolved like a written function's and added to the program; its body
 * once f's is checked (check_derived). */
static void declare_derived(Ctx *x, Node *d)
{
    if (!d->derive.target)
        return;
    const char *f_id = d->derive.target;
    Sym *fs = scope_find(x, f_id, NULL);
    Node *f = fs && fs->kind == SYM_FN ? fs->decl : NULL;
    const char *why = NULL, *help = "derive grad for a function declared in this program: `derive grad for f;`";
    if (!d->derive.what || strcmp(d->derive.what, "grad") != 0) {
        why = arena_printf(x->a, "derive %s: only grad is derived", d->derive.what ? d->derive.what : "?");
        help = "write `derive grad for f;`";
    } else if (!f || f->kind != N_FN) {
        why = arena_printf(x->a, "derive grad for %s: %s is not a function", f_id, f_id);
    } else if (f->fn.is_extern || f->fn.is_kernel || fn_is_generic(f)) {
        why = arena_printf(x->a, "derive grad for %s: %s is %s", f_id, f_id,
                           f->fn.is_extern ? "an extern kernel" : f->fn.is_kernel ? "a kernel fn" : "generic");
        help = "derive the gradient of a plain function (of a generic, wrap an instance in one)";
    } else if ((fs = scope_find(x, arena_printf(x->a, "%s_grad", f_id), NULL)) != NULL) {
        bool twice = fs->kind == SYM_FN && (!fs->decl || (fs->decl->kind == N_FN && fs->decl->fn.derived));
        why = twice ? arena_printf(x->a, "derive grad for %s: %s is derived twice", f_id, f_id)
                    : arena_printf(x->a, "derive grad for %s: %s_grad is declared already", f_id, f_id);
        help = twice ? "keep one derive a function" : "rename that function, or drop the derive";
    }
    if (why) {
        diag_error(x->sink, d->span, E_GRAD, help, "%s", why);
        derived_placeholder(x, f_id);
        return;
    }
    Node *g = f->fn.sym && f->fn.sym->ty && !is_error(f->fn.sym->ty) ? grad_signature(x, d, f) : NULL;
    if (!g) {
        derived_placeholder(x, f_id);
        return;
    }
    declare_fn(x, g);
    Scope *saved = x->scope;
    x->scope = x->globals;
    scope_push(x);
    resolve_signature(x, g);
    x->scope = saved;
    d->derive.made = g;
    vec_push(x->a, &x->c->program->block.stmts, g);
}

/* f_grad's body, from f's checked body, then checked as a written body
 * is. A body refused (E-GRAD-FORM, E-GRAD-CALL), or an f whose own body
 * was refused, leaves the program without f_grad, so nothing half-made is
 * checked or emitted. */
static void check_derived(Ctx *x, Node *d)
{
    Node *g = d->derive.made, *f = g ? scope_find(x, d->derive.target, NULL)->decl : NULL;
    if (!g)
        return;
    Vec *stmts = &x->c->program->block.stmts;
    /* f's own errors say what is wrong; a gradient of a refused body would only repeat them */
    if (f->fn.refused || !grad_body(x, d, f, g)) {
        for (int i = 0; i < stmts->n; i++)
            if (stmts->v[i] == g)
                stmts->v[i] = stmts->v[--stmts->n];
        d->derive.made = NULL;
        return;
    }
    vec_push(x->a, &x->c->fns, g);
    check_function(x, g);
}

static void declare_top(Ctx *x, Node *d)
{
    Sym *s;
    switch (d->kind) {
    case N_FN:
        declare_fn(x, d);
        break;
    case N_CONST:
        s = sym_new(x, SYM_CONST, d->let.id, d, NULL);
        s->cname = arena_printf(x->a, "k_%s", d->let.id ? d->let.id : "c");
        d->let.sym = s;
        declare_global(x, s, d->span);
        break;
    case N_LAYOUT:
        s = sym_new(x, SYM_LAYOUT, d->let.id, d, NULL);   /* its value: layout_resolve */
        s->cname = arena_printf(x->a, "l_%s", d->let.id ? d->let.id : "l");
        d->let.sym = s;
        declare_global(x, s, d->span);
        break;
    case N_DERIVE:
    case N_PLAN:
        break;   /* after every fn, so f_grad never hides a user's fn */
    default:
        diag_error(x->sink, d->span, E_UNSUPPORTED, "put it inside a function",
                   "%s at top level is not supported", node_kind_name(d->kind));
    }
}

/* ------------------------------------------------- chains of consts */

/* Top-level consts name each other in any order, and const_resolve resolves
 * each where it is first named, by recursion: consts declared last-first,
 * each naming the one after it, recursed once per const, and a long such
 * chain overflowed the C stack. So before they are resolved in order, a
 * walk with a stack of its own resolves, deepest first, every const that
 * lies more than CONST_RECURSION below the const it starts from: the
 * recursion then never goes deeper than that. A program whose chains are
 * shorter is resolved exactly as before; a cycle is left to const_resolve,
 * which reports it. */
enum { CONST_RECURSION = 64 };

typedef struct {
    Ctx *x;
    Vec *deps;
} DepWalk;

/* The unresolved top-level consts a const's value names. */
static bool const_dep_visit(Node *n, void *p)
{
    DepWalk *w = p;
    if (n->kind == N_NAME && n->name.id) {
        Sym *d = scope_find(w->x, n->name.id, NULL);
        if (d && d->kind == SYM_CONST && !d->ty && d->decl && d->decl->kind == N_CONST)
            vec_push(w->x->a, w->deps, d);
    }
    return n->kind != N_CLOSURE;
}

typedef struct {
    Sym *s;
    Vec deps;
    int next;
} DepFrame;

static void const_resolve_deep(Ctx *x, Sym *root, StrMap *seen)
{
    enum { VISITING = 1, DONE = 2 };
    Vec stack = {0};   /* DepFrame* */
    DepFrame *f = arena_alloc(x->a, sizeof *f);
    f->s = root;
    vec_push(x->a, &stack, f);
    strmap_put(x->a, seen, root->id, (void *)(intptr_t)VISITING);
    DepWalk w = {x, &f->deps};
    par_walk(root->decl->let.init, const_dep_visit, &w);
    while (stack.n) {
        f = stack.v[stack.n - 1];
        if (f->next < f->deps.n) {
            Sym *d = f->deps.v[f->next++];
            intptr_t mark = (intptr_t)strmap_get(seen, d->id);
            if (mark == VISITING)
                return;   /* a cycle: const_resolve reports it */
            if (mark == DONE || d->ty)
                continue;
            DepFrame *g = arena_alloc(x->a, sizeof *g);
            g->s = d;
            strmap_put(x->a, seen, d->id, (void *)(intptr_t)VISITING);
            w.deps = &g->deps;
            par_walk(d->decl->let.init, const_dep_visit, &w);
            vec_push(x->a, &stack, g);
            continue;
        }
        stack.n--;
        strmap_put(x->a, seen, f->s->id, (void *)(intptr_t)DONE);
        if (stack.n >= CONST_RECURSION && !f->s->ty)
            const_resolve(x, f->s);
    }
}

static void check_top_signatures(Ctx *x, Node *prog)
{
    StrMap seen = {0};
    for (int i = 0; i < prog->block.stmts.n; i++) {
        Node *d = prog->block.stmts.v[i];
        if (d && d->kind == N_CONST && d->let.sym && d->let.init && !d->let.sym->ty &&
            !strmap_get(&seen, d->let.sym->id))
            const_resolve_deep(x, d->let.sym, &seen);
    }
    for (int i = 0; i < prog->block.stmts.n; i++) {
        Node *d = prog->block.stmts.v[i];
        if (d && d->kind == N_DERIVE)
            declare_derived(x, d);
        else if (d && d->kind == N_CONST && d->let.sym)
            const_resolve(x, d->let.sym);
        else if (d && d->kind == N_LAYOUT && d->let.sym)
            layout_resolve(x, d->let.sym);
    }
}

/* Every function's body: non-generic ones in source order (queued for the
 * emitter first), generics once with their parameters unknown. */
static void check_top_bodies(Ctx *x, Node *prog)
{
    for (int i = 0; i < prog->block.stmts.n; i++) {
        Node *d = prog->block.stmts.v[i];
        if (!d || d->kind != N_FN || d->fn.is_extern || !d->fn.sym)
            continue;
        if (fn_is_generic(d)) {
            int before = x->sink->errors;
            x->generic_unknown = true;
            check_function(x, d);
            x->generic_unknown = false;
            if (x->sink->errors != before)
                vec_push(x->a, &x->broken, d);
            continue;
        }
        if (d->fn.derived)
            continue;   /* f_grad: below, once every written body is checked */
        vec_push(x->a, &x->c->fns, d);
        int before = x->sink->errors;
        check_function(x, d);
        d->fn.refused = x->sink->errors != before;
        if (d->fn.id && strcmp(d->fn.id, "main") == 0)
            check_main(x, d);
        if (d->fn.is_test)
            check_test_signature(x, d);
    }
    for (int i = 0; i < prog->block.stmts.n; i++) {
        Node *d = prog->block.stmts.v[i];
        if (d && d->kind == N_DERIVE)
            check_derived(x, d);
    }
}

/* A function's signature is needed before any body (or const) calls it,
 * so signatures are resolved first, each in its own scope; a const an
 * extent names is resolved on the way (const_resolve is lazy). */
static void resolve_top_signatures(Ctx *x, Node *prog)
{
    for (int i = 0; i < prog->block.stmts.n; i++) {
        Node *d = prog->block.stmts.v[i];
        if (!d || d->kind != N_FN || !d->fn.sym || d->fn.sym->ty)
            continue;
        Scope *saved = x->scope;
        x->scope = x->globals;
        x->generic_unknown = fn_is_generic(d);
        scope_push(x);
        resolve_signature(x, d);
        x->scope = saved;
        x->generic_unknown = false;
    }
}

/* Instances made while checking (including by other instances). */
static void check_worklist(Ctx *x)
{
    for (int i = 0; i < x->work.n; i++) {
        bool broken = false;   /* its errors are already reported once */
        for (int j = 0; j < x->broken.n && !broken; j++)
            broken = x->broken.v[j] == x->work_generic.v[i];
        if (!broken)
            check_function(x, x->work.v[i]);
    }
}

/* The resolve-and-types pass (pass.c): names, types, generic instances.
 * Its state (scopes, instances, held-back refusals) stays in c->ctx for
 * the checker's later passes. */
void check_resolve(Check *c)
{
    Ctx *x = arena_alloc(c->arena, sizeof *x);
    *x = (Ctx){.c = c, .a = c->arena, .sink = c->sink};
    c->ctx = x;
    x->resolving = arena_alloc(x->a, sizeof(Type));
    x->resolving->kind = TY_ERROR;
    universe_init(x);
    x->globals = scope_push(x);
    Node *prog = c->program;
    for (int i = 0; i < prog->block.stmts.n; i++)
        if (prog->block.stmts.v[i])
            declare_top(x, prog->block.stmts.v[i]);
    resolve_top_signatures(x, prog);
    check_top_signatures(x, prog);
    check_top_bodies(x, prog);
    check_worklist(x);
    c->device_work = x->device_indexes;
}

/* E-UNSUPPORTED refusals held back until every rule ran (Deferred). */
void check_deferred(Check *c)
{
    report_deferred(c->ctx);
}

