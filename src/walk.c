/*
 * walk.c: the children of every node kind, the visitor and the rewriter
 * over them, and sets and maps of pointers (walk.h).
 *
 * walk_children is the one list of a kind's children. The visitor goes
 * down a chain (chain.h) and an else-if chain by a loop, so a million-term
 * sum does not recurse a million deep; every other child nests only as
 * deep as the parser lets source nest (MAX_DEPTH in parse.c). Every pass
 * that looks at the tree without changing it walks with walk_tree.
 */
#include "chain.h"
#include "walk.h"

#include <string.h>

/* ------------------------------------------------------------ children */

/* A child is written back only when f changed it: the visitor changes
 * nothing, and a store per child of a million-node tree shows. */
static inline __attribute__((always_inline)) void kids(Vec *v, WalkClass cls, WalkChild f, void *c)
{
    for (int i = 0; i < v->n; i++) {
        Node *k = f(v->v[i], cls, c);
        if (k != v->v[i])
            v->v[i] = k;
    }
}

#define KID(slot, cls)                                                        \
    do {                                                                      \
        Node *k_ = f((slot), (cls), c);                                       \
        if (k_ != (slot))                                                     \
            (slot) = k_;                                                      \
    } while (0)

static inline __attribute__((always_inline)) void fn_children(Node *n, WalkChild f, void *c)
{
    kids(&n->fn.generics, WALK_TYPES, f, c);
    kids(&n->fn.params, WALK_TYPES, f, c);
    KID(n->fn.ret, WALK_TYPES);
    KID(n->fn.body, WALK_CODE);
}

static inline __attribute__((always_inline)) void type_children(Node *n, WalkChild f, void *c)
{
    KID(n->type.elem, WALK_TYPES);
    KID(n->type.extent, WALK_TYPES);
    kids(&n->type.args, WALK_TYPES, f, c);
    KID(n->type.ret, WALK_TYPES);
}

static inline __attribute__((always_inline)) void coop_children(Node *n, WalkChild f, void *c)
{
    kids(&n->coop.bext, WALK_EXTRA, f, c);
    kids(&n->coop.text, WALK_EXTRA, f, c);
    KID(n->coop.body, WALK_CODE);
    kids(&n->coop.fext, WALK_EXTRA, f, c);
    KID(n->coop.finish, WALK_CODE);
}

static inline __attribute__((always_inline)) void collect_children(Node *n, WalkChild f, void *c)
{
    KID(n->collect.extent, WALK_CODE);
    KID(n->collect.dest, WALK_CODE);
    KID(n->collect.keep, WALK_CODE);
    KID(n->collect.value, WALK_CODE);
}

/* The children of n in source order, each with its class (walk.h). A kind
 * not named here has none: literals, names, break, continue, barrier,
 * derive (its names are strings). */
/* Inlined into the visitor and the rewriter, so each calls its own child
 * function directly (an indirect call a child was most of a walk's time). */
static inline __attribute__((always_inline)) void children(Node *n, WalkChild f, void *c)
{
    switch (n->kind) {
    case N_UNARY: case N_EXPR_STMT: case N_RETURN: KID(n->unary.a, WALK_CODE); break;
    case N_BINARY: KID(n->binary.a, WALK_CODE); KID(n->binary.b, WALK_CODE); break;
    case N_CALL:
        KID(n->call.callee, WALK_CODE);
        kids(&n->call.targs, WALK_EXTRA, f, c);
        kids(&n->call.args, WALK_CODE, f, c);
        break;
    case N_INDEX: KID(n->index.base, WALK_CODE); KID(n->index.index, WALK_CODE); break;
    case N_SLICE: KID(n->slice.base, WALK_CODE); KID(n->slice.lo, WALK_CODE); KID(n->slice.hi, WALK_CODE); break;
    case N_FIELD: KID(n->field.base, WALK_CODE); break;
    case N_COLLECT: collect_children(n, f, c); break;
    case N_SPAWN: KID(n->spawn.work, WALK_CODE); kids(&n->spawn.after, WALK_EXTRA, f, c); break;
    case N_CLOSURE: case N_FN: fn_children(n, f, c); break;
    case N_TASK: case N_BLOCK: case N_UNSAFE: case N_PROGRAM: kids(&n->block.stmts, WALK_CODE, f, c); break;
    case N_TYPE: type_children(n, f, c); break;
    case N_LET: case N_CONST: KID(n->let.type, WALK_TYPES); KID(n->let.init, WALK_CODE); break;
    case N_LAYOUT: KID(n->let.type, WALK_TYPES); KID(n->let.init, WALK_EXTRA); break;
    case N_BUFFER: case N_SHARED: case N_PIPELINE:
        KID(n->buffer.elem, WALK_TYPES);
        KID(n->buffer.size, WALK_CODE);
        KID(n->buffer.depth, WALK_EXTRA);
        break;
    case N_ASSIGN: KID(n->assign.lhs, WALK_CODE); KID(n->assign.rhs, WALK_CODE); break;
    case N_IF: KID(n->if_.cond, WALK_CODE); KID(n->if_.then, WALK_CODE); KID(n->if_.els, WALK_CODE); break;
    case N_FOR: case N_WHILE: case N_PARALLEL:
        KID(n->loop.lo, WALK_CODE);
        KID(n->loop.hi, WALK_CODE);
        KID(n->loop.cond, WALK_CODE);
        KID(n->loop.body, WALK_CODE);
        break;
    case N_COOP: coop_children(n, f, c); break;
    case N_ASM: kids(&n->asm_.ins, WALK_EXTRA, f, c); kids(&n->asm_.outs, WALK_TYPES, f, c); break;
    case N_LOCK: KID(n->lock.lock, WALK_CODE); KID(n->lock.body, WALK_CODE); break;
    case N_LAUNCH:
        KID(n->launch.grid, WALK_EXTRA);
        KID(n->launch.threads, WALK_EXTRA);
        KID(n->launch.call, WALK_CODE);
        break;
    case N_PARAM: KID(n->param.type, WALK_TYPES); break;
    case N_PLAN: kids(&n->plan.items, WALK_EXTRA, f, c); break;
    case N_PLAN_ITEM: kids(&n->plan_item.args, WALK_EXTRA, f, c); break;
    default: break;
    }
}

#undef KID

void walk_children(Node *n, WalkChild f, void *c)
{
    children(n, f, c);
}

/* ------------------------------------------------------------ visiting */

typedef struct {
    unsigned mask;
    WalkVisit f;
    void *ctx;
} Walker;

static void visit(Walker *w, Node *n);

static Node *visit_child(Node *child, WalkClass cls, void *p)
{
    Walker *w = p;
    if (child && (w->mask & cls))
        visit(w, child);
    return child;
}

/* A chain whose top node was visited: the nodes of its spine are visited
 * top down, each before its operands as any node is, and then the leaf and
 * the right operands in source order. A node whose visit says no keeps its
 * operands unwalked, and the spine stops there. */
static void visit_chain(Walker *w, Node *top)
{
    Spine sp;
    spine_of(&sp, NULL);
    spine_push(&sp, top);
    Node *n = top->binary.a;
    bool to_leaf = true;
    for (; n && n->kind == N_BINARY; n = n->binary.a) {
        if (!w->f(n, w->ctx)) {
            to_leaf = false;
            break;
        }
        spine_push(&sp, n);
    }
    if (to_leaf && n)
        visit(w, n);
    for (int i = sp.n - 1; i >= 0; i--)
        if (sp.v[i]->binary.b)
            visit(w, sp.v[i]->binary.b);
    spine_free(&sp);
}

/* An else-if chain by a loop: each else-if is visited as the else before
 * it, and a visit that says no ends the walk there. */
static void visit_ifs(Walker *w, Node *n)
{
    for (;;) {
        visit_child(n->if_.cond, WALK_CODE, w);
        visit_child(n->if_.then, WALK_CODE, w);
        n = n->if_.els;
        if (!n || n->kind != N_IF || !w->f(n, w->ctx))
            break;
    }
    if (n && n->kind != N_IF)
        visit(w, n);
}

static void visit(Walker *w, Node *n)
{
    if (!w->f(n, w->ctx))
        return;
    if ((n->kind == N_BINARY || n->kind == N_IF) && !(w->mask & WALK_CODE))
        return;   /* their children are all code */
    if (n->kind == N_BINARY && n->binary.a && n->binary.a->kind == N_BINARY)
        visit_chain(w, n);
    else if (n->kind == N_IF)
        visit_ifs(w, n);
    else
        children(n, visit_child, w);
}

void walk_tree(Node *n, unsigned mask, WalkVisit f, void *ctx)
{
    Walker w = {mask, f, ctx};
    if (n)
        visit(&w, n);
}

void par_walk(Node *n, ParVisit f, void *ctx)
{
    walk_tree(n, WALK_CODE, f, ctx);
}

/* ------------------------------------------------------------ rewriting */

typedef struct {
    RewriteFn f;
    void *ctx;
} Rewriter;

static Node *rewrite(Rewriter *r, Node *n);

static Node *rewrite_child(Node *child, WalkClass cls, void *p)
{
    (void)cls;
    return rewrite(p, child);
}

/* A chain bottom up: the leaf, then each link's right operand and the link
 * itself, its left operand being what the link below became. */
static Node *rewrite_chain(Rewriter *r, Node *top)
{
    Spine sp;
    Node *below = rewrite(r, spine_of(&sp, top));
    for (int i = sp.n - 1; i >= 0; i--) {
        Node *link = sp.v[i];
        link->binary.a = below;
        link->binary.b = rewrite(r, link->binary.b);
        below = r->f(link, r->ctx);
    }
    spine_free(&sp);
    return below;
}

/* An else-if chain: conditions and branches top down, the last else, then
 * each if bottom up with the else below it as rewritten. */
static Node *rewrite_ifs(Rewriter *r, Node *top)
{
    Spine sp;
    spine_of(&sp, NULL);
    Node *n = top;
    for (; n && n->kind == N_IF; n = n->if_.els) {
        n->if_.cond = rewrite(r, n->if_.cond);
        n->if_.then = rewrite(r, n->if_.then);
        spine_push(&sp, n);
    }
    Node *below = rewrite(r, n);
    for (int i = sp.n - 1; i >= 0; i--) {
        sp.v[i]->if_.els = below;
        below = r->f(sp.v[i], r->ctx);
    }
    spine_free(&sp);
    return below;
}

static Node *rewrite(Rewriter *r, Node *n)
{
    if (!n)
        return NULL;
    if (n->kind == N_BINARY)
        return rewrite_chain(r, n);
    if (n->kind == N_IF)
        return rewrite_ifs(r, n);
    children(n, rewrite_child, r);
    return r->f(n, r->ctx);
}

Node *walk_rewrite(Node *n, RewriteFn f, void *ctx)
{
    Rewriter r = {f, ctx};
    return rewrite(&r, n);
}

/* A set of pointers: a list searched for every name a lane reads was
 * quadratic in its body. */
static unsigned ptr_hash(const void *p)
{
    uintptr_t v = (uintptr_t)p;
    v ^= v >> 17;
    v *= 0xed5ad4bbu;
    return (unsigned)(v ^ (v >> 11));
}

bool ptrset_has(const PtrSet *s, const void *p)
{
    if (!s->cap || !p)
        return false;
    for (int i = (int)(ptr_hash(p) & (unsigned)(s->cap - 1)); s->keys[i]; i = (i + 1) & (s->cap - 1))
        if (s->keys[i] == p)
            return true;
    return false;
}

bool ptrset_add(Arena *a, PtrSet *s, const void *p)
{
    if (!p || ptrset_has(s, p))
        return false;
    if (2 * (s->n + 1) > s->cap) {   /* at most half full */
        PtrSet old = *s;
        s->cap = old.cap ? 2 * old.cap : 16;
        s->keys = arena_alloc(a, sizeof *s->keys * (size_t)s->cap);
        s->n = 0;
        for (int i = 0; i < old.cap; i++)
            if (old.keys[i])
                ptrset_add(a, s, old.keys[i]);
    }
    int i = (int)(ptr_hash(p) & (unsigned)(s->cap - 1));
    while (s->keys[i])
        i = (i + 1) & (s->cap - 1);
    s->keys[i] = p;
    s->n++;
    return true;
}


static int map_slot(const PtrMap *m, const void *k)
{
    int i = (int)(ptr_hash(k) & (unsigned)(m->cap - 1));
    while (m->keys[i] && m->keys[i] != k)
        i = (i + 1) & (m->cap - 1);
    return i;
}

void *ptrmap_get(const PtrMap *m, const void *k)
{
    if (!m->cap || !k)
        return NULL;
    int i = map_slot(m, k);
    return m->keys[i] ? m->vals[i] : NULL;
}

void ptrmap_put(Arena *a, PtrMap *m, const void *k, void *v)
{
    if (!k)
        die("ptrmap_put: a NULL key");
    if (2 * (m->n + 1) > m->cap) {   /* at most half full */
        PtrMap old = *m;
        m->cap = old.cap ? 2 * old.cap : 16;
        m->keys = arena_alloc(a, sizeof *m->keys * (size_t)m->cap);
        m->vals = arena_alloc(a, sizeof *m->vals * (size_t)m->cap);
        m->n = 0;
        for (int i = 0; i < old.cap; i++)
            if (old.keys[i])
                ptrmap_put(a, m, old.keys[i], old.vals[i]);
    }
    int i = map_slot(m, k);
    if (!m->keys[i]) {
        m->keys[i] = k;
        m->n++;
    }
    m->vals[i] = v;
}

/* The variable a view or a lent scalar comes from (through slices and
 * `let` bindings of views, `let mut` ones too: a view is never reassigned):
 * two arguments with one root alias. */
Sym *view_root(Node *e)
{
    while (e) {
        if (e->kind == N_SLICE) {
            e = e->slice.base;
        } else if (e->kind == N_INDEX) {
            e = e->index.base;
        } else if (e->kind == N_NAME) {
            Sym *y = e->name.sym;
            if (y && y->kind == SYM_LOCAL && y->ty && y->ty->kind == TY_VIEW && y->decl &&
                y->decl->kind == N_LET && y->decl->let.init)
                e = y->decl->let.init;
            else
                return y;
        } else {
            return NULL;
        }
    }
    return NULL;
}

Sym *pipeline_named(const Node *e)
{
    Sym *y = e && e->kind == N_NAME ? e->name.sym : NULL;
    return y && y->ty && y->ty->kind == TY_VIEW && y->ty->pipeline ? y : NULL;
}

Sym *pipe_op_of(const Node *e)
{
    if (!e || e->kind != N_CALL || e->call.ck != CALL_METHOD || e->call.builtin == PIPE_NONE || !e->call.callee ||
        e->call.callee->kind != N_FIELD)
        return NULL;
    return pipeline_named(e->call.callee->field.base);
}

/* The name of argument i of a fill: p.fill(x, start, count) or
 * p.fill_rows(x, start, stride, rows, cols, pitch, pad). */
const char *pipe_fill_arg(const Node *e, int i)
{
    static const char *const fill[] = {"array", "start", "count"};
    static const char *const rows[] = {"array", "start", "stride", "rows", "cols", "pitch", "pad"};
    if (e->call.builtin == PIPE_FILL_ROWS)
        return i >= 0 && i < 7 ? rows[i] : "?";
    return i >= 0 && i < 3 ? fill[i] : "?";
}

bool pipe_is_fill(const Node *e) { return pipe_op_of(e) && (e->call.builtin == PIPE_FILL || e->call.builtin == PIPE_FILL_ROWS); }

/* ------------------------------------------------------------ string maps */

uint32_t str_hash(const char *s)
{
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

void *strmap_get(const StrMap *m, const char *k)
{
    if (!m->cap)
        return NULL;
    for (uint32_t i = str_hash(k) & (uint32_t)(m->cap - 1);; i = (i + 1) & (uint32_t)(m->cap - 1)) {
        if (!m->keys[i])
            return NULL;
        if (strcmp(m->keys[i], k) == 0)
            return m->vals[i];
    }
}

/* k -> v, in place of what k mapped to. */
void strmap_put(Arena *a, StrMap *m, const char *k, void *v)
{
    for (uint32_t i = m->cap ? str_hash(k) & (uint32_t)(m->cap - 1) : 0; m->cap && m->keys[i];
         i = (i + 1) & (uint32_t)(m->cap - 1))
        if (strcmp(m->keys[i], k) == 0) {
            m->vals[i] = v;
            return;
        }
    if ((m->n + 1) * 10 > m->cap * 7) {
        StrMap g = {.cap = m->cap ? m->cap * 2 : 16};
        g.keys = arena_alloc(a, sizeof *g.keys * (size_t)g.cap);
        g.vals = arena_alloc(a, sizeof *g.vals * (size_t)g.cap);
        for (int i = 0; i < m->cap; i++)
            if (m->keys[i])
                strmap_put(a, &g, m->keys[i], m->vals[i]);
        *m = g;
    }
    uint32_t i = str_hash(k) & (uint32_t)(m->cap - 1);
    while (m->keys[i])
        i = (i + 1) & (uint32_t)(m->cap - 1);
    m->keys[i] = k;
    m->vals[i] = v;
    m->n++;
}
