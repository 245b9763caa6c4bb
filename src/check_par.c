/*
 * check_par.c: the rules of host parallelism (issue 4), applied after every
 * body has been typed.
 *
 * Requires: check_program has typed every function (names resolved,
 * expressions typed, calls given their kind).
 * Guarantees: a region `parallel i in n { }` or a collector `... parallel i
 * in n ...` that passes here has lanes that cannot disturb each other:
 *
 *   E-PARALLEL-RACE   two lanes could write one element of an outside view,
 *                     or one lane reads an element another lane writes;
 *   E-PARALLEL-WRITE  a lane assigns (or lends as rw<T>) a scalar declared
 *                     outside the region;
 *   E-PARALLEL-NEST   a region, a pooled collector or mma_unordered inside
 *                     a lane, directly or through a call;
 *   E-PARALLEL-CALL   I/O, std.math, a buffer, a lock, a task, a wait, a
 *                     call through a function value, a closure in a lane;
 *   E-ATOMIC-MIXED    a view updated atomically in a region and touched
 *                     there another way;
 *   E-SCAN-ORDER      a float scan on the pool;
 *   E-PLAN            a plan for no function, or an item that does not
 *                     apply.
 *
 * The race rule itself is race.c's; this file walks each lane's body with
 * the symbolic core's environment (sym.h) and records every access of an
 * outside view, normalized to its root and offset (lane.h).
 */
#include "chain.h"
#include "lane.h"
#include "wide.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ a lane */

static bool vec_has(const Vec *v, const void *p)
{
    for (int i = 0; i < v->n; i++)
        if (v->v[i] == p)
            return true;
    return false;
}

static bool is_lane(const Lane *L, const Sym *s)
{
    return s && (s == L->lane[0] || s == L->lane[1]);
}

static bool is_inside(const Lane *L, const Sym *s)
{
    return is_lane(L, s) || ptrset_has(&L->inside, s);
}

static void inside_add(Lane *L, Sym *s)
{
    ptrset_add(L->a, &L->inside, s);
}

/* ------------------------------------------------------------ accesses */

enum { UNROLL_TRIP = 8, UNROLL_MAX = 64 };

static bool is_view_let(const Sym *s)
{
    return s && s->kind == SYM_LOCAL && s->ty && s->ty->kind == TY_VIEW && s->decl && s->decl->kind == N_LET &&
           s->decl->let.init;
}

static ViewLet *view_let_find(Lane *L, const Sym *s)
{
    for (int i = L->views.n - 1; i >= 0; i--) {
        ViewLet *v = L->views.v[i];
        if (v->let == s)
            return v;
    }
    return NULL;
}

static bool view_norm(Lane *L, Node *e, Sym **root, SForm *off, SForm *len, bool *whole);

/* A let-bound part, normalized where its `let` is: a let inside the lane
 * when the walk meets it (lane_let), one from outside on first use. An
 * outside let whose bounds read a `let mut` (which may have changed since)
 * starts at an unknown of its own. */
static ViewLet *view_let(Lane *L, Sym *s)
{
    ViewLet *v = view_let_find(L, s);
    if (v)
        return v;
    v = arena_alloc(L->a, sizeof *v);
    v->let = s;
    senv_saw_mut(L->env, true);
    if (!view_norm(L, s->decl->let.init, &v->root, &v->off, &v->len, &v->whole))
        v->root = NULL;
    if (senv_saw_mut(L->env, true) && !is_inside(L, s)) {
        v->off = sform_key(senv_key(L->env, s));
        v->len = sform_any();
        v->whole = false;
    }
    vec_push(L->a, &L->views, v);
    return v;
}

/* The root of a view expression (through slices and let-bound parts), the
 * offset of its first element in the root and its length (any: to the
 * end). False: an expression the walk does not follow. */
static bool view_norm(Lane *L, Node *e, Sym **root, SForm *off, SForm *len, bool *whole)
{
    *off = sform_const(0);
    *len = sform_any();
    *whole = true;
    for (int depth = 0; e; depth++) {
        if (e->kind == N_SLICE) {
            SVal lo = e->slice.lo ? sym_eval(L->env, e->slice.lo) : (SVal){sform_const(0), true};
            if (*whole && e->slice.hi) {
                SVal hi = sym_eval(L->env, e->slice.hi);
                sform_add(len, &hi.f, &lo.f, -1);
            }
            *whole = false;
            sform_add(off, off, &lo.f, 1);
            e = e->slice.base;
            continue;
        }
        if (e->kind != N_NAME || !e->name.sym)
            return false;
        Sym *s = e->name.sym;
        if (is_view_let(s)) {
            if (depth > 4096)
                return false;
            ViewLet *v = view_let(L, s);
            if (!v->root)
                return false;
            if (*whole) {
                *len = v->len;
                *whole = v->whole;
            }
            sform_add(off, off, &v->off, 1);
            *root = v->root;
            return true;
        }
        if (!s->ty || s->ty->kind != TY_VIEW || is_inside(L, s))
            return false;
        *root = s;
        return true;
    }
    return false;
}

/* An access through a view expression e: count elements from index idx
 * (an element, or a wide access's K), or all of them (idx NULL: a part, a
 * whole view). Nothing is dropped: an expression the walk cannot follow is
 * an access of any view, whole. */
static void add_access_n(Lane *L, AccKind kind, Node *at, Node *e, Node *idx, int64_t count, const char *how)
{
    Acc *A = arena_alloc(L->a, sizeof *A);
    A->kind = kind;
    A->node = at;
    A->at = at->span;
    A->how = how;
    A->clo = A->clen = sform_any();
    Sym *root = NULL;
    if (!view_norm(L, e, &root, &A->lo, &A->len, &A->whole)) {
        A->view = NULL;
        A->whole = true;
        A->lo = sform_const(0);
        A->len = sform_any();
    } else {
        A->view = root;
        A->clo = A->lo;
        A->clen = A->whole ? sform_any() : A->len;
        if (idx) {
            SVal i = sym_eval(L->env, idx);
            sform_add(&A->lo, &A->lo, &i.f, 1);
            A->len = sform_const(count);
            A->whole = false;
        }
    }
    if (A->view && A->whole) {
        A->lo = sform_const(0);
        A->len = sform_any();
    }
    A->nconds = L->path.n;
    if (L->path.n) {
        A->conds = arena_alloc(L->a, sizeof *A->conds * (size_t)L->path.n);
        memcpy(A->conds, L->path.v, sizeof *A->conds * (size_t)L->path.n);
    }
    if (L->dump)
        fprintf(L->dump, "  %d:%d %s %s: %s + [%s] len %s\n", A->at.line, A->at.col,
                kind == AK_READ ? "read" : kind == AK_WRITE ? "write" : "atomic", expand_expr_short(L->a, at, 60),
                A->view ? A->view->id : "(any view)", A->whole ? "0" : sform_str(L->a, &A->lo),
                A->whole ? "all" : sform_str(L->a, &A->len));
    vec_push(L->a, &L->acc, A);
}

static void add_access(Lane *L, AccKind kind, Node *at, Node *e, Node *idx, const char *how)
{
    add_access_n(L, kind, at, e, idx, 1, how);
}

/* ------------------------------------------------------ the lane's body */

static void lw(Lane *L, Node *n);

static void lw_vec(Lane *L, const Vec *v)
{
    for (int i = 0; i < v->n; i++)
        lw(L, v->v[i]);
}

/* Walks the parts of a view expression that are values (slice bounds). */
static void lw_view_bounds(Lane *L, Node *e)
{
    while (e && e->kind == N_SLICE) {
        lw(L, e->slice.lo);
        lw(L, e->slice.hi);
        e = e->slice.base;
    }
}

static bool outside_scalar(Lane *L, Node *e)
{
    Sym *s = e && e->kind == N_NAME ? e->name.sym : NULL;
    return s && (s->kind == SYM_LOCAL || s->kind == SYM_PARAM) && !is_inside(L, s);
}

/* What runs the body: a lane, or a cooperative region's thread. */
static const char *lane_word(const Lane *L)
{
    return L->region && L->region->kind == N_COOP ? "thread" : "lane";
}

static void scalar_write(Lane *L, Node *at, Sym *s, const char *how)
{
    int line = s->decl ? s->decl->span.line : 0;
    LANE_ERROR(L, at->span, E_PARALLEL_WRITE,
               L->region->kind == N_COOP
                   ? "declare it inside the region, or combine the threads' values (`reduce + warp yield v`, a "
                     "shared array) and write the result to an element of a view"
                   : "compute it with a collector (`let s = reduce + parallel i in n yield ...;`), or declare it "
                     "inside the lane",
               "%ss %s and %s both %s `%s`, declared outside the region (line %d), in %s", lane_word(L), lane_eq(L, 0),
               lane_eq(L, 1), how, s->id, line, region_what(L));
}

/* An element or scalar written: by `=`, `op=`, or lent as rw<T>. */
static void lane_store(Lane *L, Node *lhs, const char *how)
{
    if (lhs->kind == N_NAME) {
        if (outside_scalar(L, lhs))
            scalar_write(L, lhs, lhs->name.sym, how);
        return;
    }
    if (lhs->kind != N_INDEX)
        return lw(L, lhs);
    Node *base = lhs->index.base;
    lw(L, lhs->index.index);
    lw_view_bounds(L, base);
    if (base->ty && base->ty->kind == TY_VIEW) {
        add_access(L, AK_WRITE, lhs, base, lhs->index.index, NULL);
        return;
    }
    Sym *r = view_root(base);   /* an element of an Array value */
    if (r && (r->kind == SYM_LOCAL || r->kind == SYM_PARAM) && !is_inside(L, r))
        scalar_write(L, lhs, r, arena_printf(L->a, "%s an element of", how));
}

static void lane_nest(Lane *L, Node *at, const char *what)
{
    LANE_ERROR(L, at->span, E_PARALLEL_NEST, "run it after the region, or use a `for` loop (or `reduce ... for`) "
               "inside the lane",
               "%s inside a %s of %s: regions do not nest", what, lane_word(L), region_what(L));
}

static void lane_forbidden(Lane *L, Node *at, const char *what)
{
    LANE_ERROR(L, at->span, E_PARALLEL_CALL, "do it before or after the region; a lane only computes and writes its "
               "own elements",
               "%s inside a %s of %s: a %s runs only pure lane operations", what, lane_word(L), region_what(L),
               lane_word(L));
}

static void lane_collect(Lane *L, Node *n)
{
    const char *k = n->collect.kind == COLLECT_REDUCE ? "reduce" : n->collect.kind == COLLECT_SCAN ? "scan" : "compact";
    if (n->collect.mode == MODE_PARALLEL)
        return lane_nest(L, n, arena_printf(L->a, "a pooled `%s ... parallel`", k));
    lw(L, n->collect.extent);
    Node *d = n->collect.dest;
    if (d && n->collect.kind == COLLECT_REDUCE) {
        lane_store(L, d, "assign");
    } else if (d) {
        lw_view_bounds(L, d);
        add_access(L, AK_WRITE, d, d, NULL, arena_printf(L->a, "written by the %s at line %d", k, n->span.line));
    }
    inside_add(L, n->collect.sym);
    /* the sequential collector's index: a counter over its extent */
    if (n->collect.sym && n->collect.extent) {
        SVal lo = {sform_const(0), true}, hi = sym_eval(L->env, n->collect.extent);
        senv_counter(L->env, n->collect.sym, &lo, &hi);
    }
    lw(L, n->collect.keep);
    lw(L, n->collect.value);
}

static void lane_fn_call(Lane *L, Node *n)
{
    Node *fn = n->call.target;
    FnEff *fe = L->eff ? effects_of(L->eff, fn) : NULL;
    const char *name = fn && fn->fn.id ? fn->fn.id : "the function";
    if (fe) {
        static const EffBit call_bits[] = {EF_IO, EF_LIBM, EF_ALLOC, EF_SYNC, EF_VALUE};
        static const EffBit nest_bits[] = {EF_PAR, EF_DEV, EF_MMA};
        for (size_t b = 0; b < sizeof nest_bits / sizeof *nest_bits; b++)
            if (fe->bits & (1u << nest_bits[b]))
                return lane_nest(L, n, arena_printf(L->a, "a call of %s, which reaches %s,", name,
                                                    effects_chain(L->a, fe, nest_bits[b])));
        for (size_t b = 0; b < sizeof call_bits / sizeof *call_bits; b++)
            if (fe->bits & (1u << call_bits[b]))
                return lane_forbidden(L, n, arena_printf(L->a, "a call of %s, which reaches %s,", name,
                                                         effects_chain(L->a, fe, call_bits[b])));
    }
    Type *ft = n->call.callee ? n->call.callee->ty : NULL;
    for (int i = 0; i < n->call.args.n; i++) {
        Node *a = n->call.args.v[i];
        Type *pt = ft && ft->kind == TY_FN && i < ft->params.n ? ft->params.v[i] : NULL;
        if (pt && pt->kind == TY_REF) {
            lane_store(L, a, arena_printf(L->a, "lend as rw to %s", name));
        } else if (pt && pt->kind == TY_VIEW) {
            lw_view_bounds(L, a);
            add_access(L, pt->access == ACC_RW ? AK_WRITE : AK_READ, a, a, NULL,
                       arena_printf(L->a, "passed as %s to %s", pt->access == ACC_RW ? "rw" : "ro", name));
        } else {
            lw(L, a);
        }
    }
    sym_lend(L->env, n);
}

/* load_wide / store_wide: the part x[i .. i + K], read or written, after
 * the index and the stored value are read. */
static void lane_wide(Lane *L, Node *n)
{
    if (!wide_is(n))
        return lw_vec(L, &n->call.args);
    lw(L, wide_index(n));
    lw(L, wide_value(n));
    lw_view_bounds(L, wide_view(n));
    add_access_n(L, wide_is_store(n) ? AK_WRITE : AK_READ, n, wide_view(n), wide_index(n), wide_count(n), NULL);
}

static void lane_builtin(Lane *L, Node *n)
{
    Builtin b = (Builtin)n->call.builtin;
    switch (b) {
    case B_PRINT: case B_PRINTLN: case B_TRANSFER: case B_WAIT: case B_LOCK_NEW:
        return lane_forbidden(L, n, arena_printf(L->a, "%s(..)", builtin_name(b)));
    case B_MMA_UNORDERED:   /* the whole-matrix form; the fragment form is a warp operation */
        if (n->call.args.n == 6)
            return lane_nest(L, n, "mma_unordered");
        return lw_vec(L, &n->call.args);
    case B_ATOMIC_ADD_WRAP: case B_ATOMIC_MIN: case B_ATOMIC_MAX: case B_ATOMIC_AND: case B_ATOMIC_OR:
    case B_ATOMIC_XOR: case B_ATOMIC_CAS: case B_ATOMIC_ADD_UNORDERED: {
        Node *el = n->call.args.n ? n->call.args.v[0] : NULL;
        if (el && el->kind == N_INDEX) {
            lw(L, el->index.index);
            lw_view_bounds(L, el->index.base);
            add_access(L, AK_ATOMIC, el, el->index.base, el->index.index, NULL);
        }
        for (int i = 1; i < n->call.args.n; i++)
            lw(L, n->call.args.v[i]);
        return;
    }
    case B_LEN:
        return;
    case B_LOAD_WIDE: case B_STORE_WIDE:
        return lane_wide(L, n);
    default:
        lw_vec(L, &n->call.args);
    }
}

/* std.math in a lane: the portable functions give the same bits on every
 * placement, so a lane may call them; the rest would be the host's C library
 * on one side and libdevice on the other. */
static void lane_math(Lane *L, Node *n)
{
    const char *id = n->call.math ? n->call.math : "?";
    if (math_claim(id, n->ty))
        return lw_vec(L, &n->call.args);
    LANE_ERROR(L, n->span, E_PARALLEL_CALL,
               arena_printf(L->a, "a lane may call std.math's portable functions (%s), on f32 and f64; "
                            "compute %s before or after the region",
                            math_portable_names(L->a), id),
               "std.math.%s has no portable implementation (it is the host's C library) and is called inside "
               "a %s of %s", id, lane_word(L), region_what(L));
}

static void lane_call(Lane *L, Node *n)
{
    switch (n->call.ck) {
    case CALL_BUILTIN: return lane_builtin(L, n);
    case CALL_MATH: return lane_math(L, n);
    case CALL_VALUE: return lane_forbidden(L, n, "a call through a function value");
    case CALL_FN: return lane_fn_call(L, n);
    default: return lw_vec(L, &n->call.args);
    }
}

/* A chain in a lane: its leaf, then its right operands in source order. */
static void lw_chain(Lane *L, Node *n)
{
    if (!n->binary.a || n->binary.a->kind != N_BINARY) {   /* one link */
        lw(L, n->binary.a);
        lw(L, n->binary.b);
        return;
    }
    Spine sp;
    lw(L, spine_of(&sp, n));
    for (int i = sp.n - 1; i >= 0; i--)
        lw(L, sp.v[i]->binary.b);
    spine_free(&sp);
}

/* A let: a part of a view is bound, not read (its bounds are); any other
 * value is followed by the environment. */
static void lane_let(Lane *L, Node *n)
{
    Sym *s = n->let.sym;
    if (n->kind == N_LET && is_view_let(s)) {
        lw_view_bounds(L, n->let.init);
        if (n->let.init->kind != N_SLICE && n->let.init->kind != N_NAME)
            lw(L, n->let.init);
        inside_add(L, s);
        ViewLet *v = arena_alloc(L->a, sizeof *v);   /* normalized here, with the values of now */
        v->let = s;
        if (!view_norm(L, n->let.init, &v->root, &v->off, &v->len, &v->whole))
            v->root = NULL;
        vec_push(L->a, &L->views, v);
        return;
    }
    lw(L, n->let.init);
    inside_add(L, s);
    if (n->kind == N_LET)
        sym_let(L->env, n);
}

/* A loop in a lane: a constant trip count of a few iterations is walked
 * iteration by iteration (the counter a constant in each, so `shr(128, k)`
 * is known); any other loop once, its counter an unknown over its range and
 * every local it assigns any. */
static void lane_for(Lane *L, Node *n)
{
    lw(L, n->loop.lo);
    lw(L, n->loop.hi);
    inside_add(L, n->loop.sym);
    SNum lo, count;
    if (sym_trip(L->env, n, &lo, &count) && count <= UNROLL_TRIP && L->unrolled * (count ? count : 1) <= UNROLL_MAX) {
        int saved = L->unrolled;
        L->unrolled *= count ? (int)count : 1;
        for (SNum k = 0; k < count; k++) {
            senv_bind(L->env, n->loop.sym, (SVal){sform_const(lo + k), true});
            lw(L, n->loop.body);
        }
        L->unrolled = saved;
        return;
    }
    SVal l = sym_eval(L->env, n->loop.lo), h = sym_eval(L->env, n->loop.hi);
    senv_havoc_assigned(L->env, n->loop.body);
    senv_counter(L->env, n->loop.sym, &l, &h);
    lw(L, n->loop.body);
    senv_havoc_assigned(L->env, n->loop.body);
}

/* Pushes what `c == truth` says on the path (sym_conds). */
static void path_push(Lane *L, Node *c, bool truth)
{
    SCond tmp[16];
    int n = sym_conds(L->env, c, truth, tmp, 16);
    for (int i = 0; i < n; i++) {
        Cond *k = arena_alloc(L->a, sizeof *k);
        *k = tmp[i];
        vec_push(L->a, &L->path, k);
    }
}

static void lane_if(Lane *L, Node *n)
{
    SVal c = sym_eval(L->env, n->if_.cond);
    lw(L, n->if_.cond);
    int mark = senv_mark(L->env), depth = L->path.n;
    path_push(L, n->if_.cond, true);
    lw(L, n->if_.then);
    L->path.n = depth;
    SJoin *j = senv_join_begin(L->env, mark);
    path_push(L, n->if_.cond, false);
    lw(L, n->if_.els);   /* an else-if chain: its depth is the program's (parse limits it) */
    L->path.n = depth;
    senv_join_end(L->env, j, c.uniform);
}

static void lw(Lane *L, Node *n)
{
    if (!n)
        return;
    switch (n->kind) {
    case N_LET: case N_CONST: return lane_let(L, n);
    case N_FOR: return lane_for(L, n);
    case N_WHILE:
        senv_havoc_assigned(L->env, n->loop.body);
        lw(L, n->loop.cond);
        lw(L, n->loop.body);
        senv_havoc_assigned(L->env, n->loop.body);
        return;
    case N_PARALLEL: return lane_nest(L, n, "a parallel region");
    case N_COOP:
        if (L->region->kind == N_COOP)   /* check_coop said so, at this very place */
            return;
        return lane_nest(L, n, "a cooperative region");
    case N_SHARED: case N_PIPELINE:      /* the block's own arrays */
        inside_add(L, n->buffer.sym);
        return;
    case N_COLLECT: return lane_collect(L, n);
    case N_ASSIGN:
        lw(L, n->assign.rhs);
        lane_store(L, n->assign.lhs, "assign");
        sym_assign(L->env, n);
        return;
    case N_INDEX:
        lw(L, n->index.index);
        lw_view_bounds(L, n->index.base);
        if (n->index.base->ty && n->index.base->ty->kind == TY_VIEW)
            add_access(L, AK_READ, n, n->index.base, n->index.index, NULL);
        else
            lw(L, n->index.base);
        return;
    case N_SLICE:
        lw_view_bounds(L, n);
        add_access(L, AK_READ, n, n, NULL, NULL);
        return;
    case N_NAME:
        /* a let-bound part named on its own (passed on, len of it) reads
         * nothing; a view from outside likewise: its elements are read
         * where they are indexed */
        return;
    case N_CALL: return lane_call(L, n);
    case N_CLOSURE: return lane_forbidden(L, n, "a closure made");
    case N_BUFFER: return lane_forbidden(L, n, "a buffer allocated");
    case N_LOCK: return lane_forbidden(L, n, "a lock");
    case N_TASK: return lane_forbidden(L, n, "a host task");
    case N_SPAWN: return lane_forbidden(L, n, "spawn");
    case N_LAUNCH: return lane_forbidden(L, n, "a kernel launch");
    case N_ASM: return lane_forbidden(L, n, "typed assembly");
    case N_RETURN:
        LANE_ERROR(L, n->span, E_RETURN, "a lane ends at the end of its body; compute what you need with a collector",
                   "`return` inside a %s of %s: it cannot return from its function", lane_word(L),
                   region_what(L));
        return;
    case N_UNARY: lw(L, n->unary.a); return;
    case N_EXPR_STMT:
        lw(L, n->unary.a);
        return;
    case N_BINARY: return lw_chain(L, n);
    case N_FIELD: lw(L, n->field.base); return;
    case N_BLOCK: case N_UNSAFE: lw_vec(L, &n->block.stmts); return;
    case N_IF: return lane_if(L, n);
    default: return;
    }
}

/* ------------------------------------------------------------- regions */

/* An element a lane reads has one value in every lane when the region
 * writes its view nowhere (the race rule then has nothing to say of it). */
static bool elem_fixed(void *ctx, Node *elem)
{
    Lane *L = ctx;
    Sym *r = view_root(elem->index.base);
    return r && !vec_has(&L->written, r);
}

/* The views the lanes write, known before the walk (an index that reads
 * one is not the same in every lane). */
static void note_written(Lane *L, Node *view)
{
    Sym *r = view_root(view);
    if (r && !vec_has(&L->written, r))
        vec_push(L->a, &L->written, r);
}

static bool written_visit(Node *n, void *c)
{
    Lane *L = c;
    if (n->kind == N_ASSIGN && n->assign.lhs->kind == N_INDEX)
        note_written(L, n->assign.lhs->index.base);
    else if (n->kind == N_COLLECT && n->collect.dest && n->collect.kind != COLLECT_REDUCE)
        note_written(L, n->collect.dest);
    else if (n->kind == N_COLLECT && n->collect.dest && n->collect.dest->kind == N_INDEX)
        note_written(L, n->collect.dest->index.base);
    else if (n->kind == N_CALL && n->call.ck == CALL_BUILTIN && builtin_is_atomic(n->call.builtin) && n->call.args.n &&
             ((Node *)n->call.args.v[0])->kind == N_INDEX)
        note_written(L, ((Node *)n->call.args.v[0])->index.base);
    else if (wide_is_store(n))
        note_written(L, wide_view(n));
    else if (n->kind == N_CALL && n->call.ck == CALL_FN && n->call.callee && n->call.callee->ty &&
             n->call.callee->ty->kind == TY_FN) {
        Type *ft = n->call.callee->ty;
        for (int i = 0; i < n->call.args.n && i < ft->params.n; i++) {
            Type *pt = ft->params.v[i];
            if (pt && (pt->kind == TY_REF || (pt->kind == TY_VIEW && pt->access == ACC_RW)))
                note_written(L, n->call.args.v[i]);
        }
    }
    return true;
}

static void lane_init(Lane *L, Arena *a, Sink *sink, EffTable *eff, Vec *reported, Node *region)
{
    memset(L, 0, sizeof *L);
    L->a = a;
    L->keep = a;
    L->sink = sink;
    L->eff = eff;
    L->reported = reported;
    L->region = region;
    L->unrolled = 1;
    L->env = senv_new(a, SN_FIXED);
    senv_hook(L->env, elem_fixed, L);
}

/* The lane index, an unknown in [0, extent); the same for a fused
 * region's second index. */
static void lane_start(Lane *L, Node *extent, Node *body)
{
    SVal n = extent ? sym_eval(L->env, extent) : (SVal){sform_any(), true};
    L->key = senv_lane(L->env, L->lane[0], &n.f);
    if (L->lane[1])
        senv_bind(L->env, L->lane[1], (SVal){sform_key(L->key), false});
    par_walk(body, written_visit, L);
}

static void check_region(Ctx *x, Arena *scratch, EffTable *eff, Vec *reported, Node *r, FILE *dump)
{
    Lane L;
    lane_init(&L, scratch, dump ? NULL : x->sink, eff, reported, r);
    L.keep = x->a;
    L.dump = dump;
    L.lane[0] = r->loop.sym;
    L.var = r->loop.var;
    if (dump)
        fprintf(dump, "region at %d:%d, lane %s in [0, %s)\n", r->span.line, r->span.col, r->loop.var,
                expand_expr_short(x->a, r->loop.hi, 60));
    lane_start(&L, r->loop.hi, r->loop.body);
    lw(&L, r->loop.body);
    race_check(&L);
}

static void check_pooled_collect(Ctx *x, Arena *scratch, EffTable *eff, Vec *reported, Node *c, FILE *dump)
{
    if (c->collect.kind == COLLECT_SCAN && c->collect.value && type_is_float(c->collect.value->ty)) {
        if (dump)
            return;
        if (c->collect.device)
            diag_error(x->sink, c->span, E_SCAN_ORDER,
                       "transfer the values to host memory and scan them there in written order",
                       "a float scan (%s) over @device views: the device combines in a tree, so each prefix would "
                       "be rounded in another order than written", tstr(x, c->collect.value->ty));
        else
            diag_error(x->sink, c->span, E_SCAN_ORDER, "scan floats in written order: `scan + out for i in n yield ...`",
                       "a float scan (%s) on the pool: each prefix would be rounded in another order than written",
                       tstr(x, c->collect.value->ty));
        return;
    }
    Lane L;
    lane_init(&L, scratch, dump ? NULL : x->sink, eff, reported, c);
    L.keep = x->a;
    L.dump = dump;
    L.lane[0] = c->collect.sym;
    L.var = c->collect.var;
    if (dump)
        fprintf(dump, "collector at %d:%d, lane %s in [0, %s)\n", c->span.line, c->span.col,
                c->collect.var ? c->collect.var : "_", expand_expr_short(x->a, c->collect.extent, 60));
    lane_start(&L, c->collect.extent, c->collect.value);
    par_walk(c->collect.keep, written_visit, &L);
    Node *d = c->collect.dest;
    if (d && c->collect.kind != COLLECT_REDUCE)
        note_written(&L, d);
    lw(&L, c->collect.keep);
    lw(&L, c->collect.value);
    if (d && c->collect.kind != COLLECT_REDUCE) {
        const char *how = arena_printf(scratch, "written by the %s", c->collect.kind == COLLECT_SCAN ? "scan" : "compaction");
        if (c->collect.kind == COLLECT_SCAN && c->collect.sym) {
            Node *iname = node_new(scratch, N_NAME, d->span);
            iname->name.id = c->collect.var;
            iname->name.sym = c->collect.sym;
            iname->ty = type_prim(TY_USIZE);
            add_access(&L, AK_WRITE, d, d, iname, how);
        } else {
            add_access(&L, AK_WRITE, d, d, NULL, how);
        }
        ((Acc *)L.acc.v[L.acc.n - 1])->by_collector = true;
    }
    race_check(&L);
}

/* A cooperative region's threads obey what a lane obeys (no outside
 * scalar assigned, no region inside, no I/O, only the portable std.math),
 * in the body and in the finish. Their accesses of views and shared arrays
 * are the cooperative checker's (coop_rules), so no race rule runs here. */
static void check_coop_threads(Ctx *x, Arena *scratch, EffTable *eff, Vec *reported, Node *r)
{
    Lane L;
    lane_init(&L, scratch, x->sink, eff, reported, r);
    L.keep = x->a;
    L.var = r->coop.tvars.n ? r->coop.tvars.v[0] : NULL;
    for (int i = 0; i < r->coop.bsyms.n; i++)
        inside_add(&L, r->coop.bsyms.v[i]);
    for (int i = 0; i < r->coop.tsyms.n; i++)
        inside_add(&L, r->coop.tsyms.v[i]);
    for (int i = 0; i < r->coop.fsyms.n; i++)
        inside_add(&L, r->coop.fsyms.v[i]);
    lw(&L, r->coop.body);
    lw(&L, r->coop.finish);
}

typedef struct {
    Ctx *x;
    EffTable *eff;
    Vec *reported;
    FILE *dump;
    Arena *scratch;       /* each region's lane work, given back after it */
} RegionWalk;

static bool region_visit(Node *n, void *c)
{
    RegionWalk *w = c;
    if (n->kind == N_COOP) {
        if (!w->dump) {
            ArenaMark m = arena_mark(w->scratch);
            check_coop_threads(w->x, w->scratch, w->eff, w->reported, n);
            arena_release(w->scratch, m);
        }
        return false;
    }
    bool region = n->kind == N_PARALLEL;
    if (!region && !(n->kind == N_COLLECT && (n->collect.mode == MODE_PARALLEL || n->collect.device)))
        return true;
    ArenaMark m = arena_mark(w->scratch);
    if (region)
        check_region(w->x, w->scratch, w->eff, w->reported, n, w->dump);
    else
        check_pooled_collect(w->x, w->scratch, w->eff, w->reported, n, w->dump);
    arena_release(w->scratch, m);
    return false;
}

static bool fusable(Arena *a, Node *ra, Node *rb);

bool par_fusable(Arena *a, Node *ra, Node *rb)
{
    if (!ra || !rb || ra->kind != N_PARALLEL || rb->kind != N_PARALLEL || !ast_equal(ra->loop.hi, rb->loop.hi))
        return false;
    ArenaMark m = arena_mark(a);   /* the lanes' walk leaves nothing behind but the answer */
    bool ok = fusable(a, ra, rb);
    arena_release(a, m);
    return ok;
}

static bool fusable(Arena *a, Node *ra, Node *rb)
{
    Lane L;
    Vec reported = {0};
    lane_init(&L, a, NULL, NULL, &reported, ra);
    L.lane[0] = ra->loop.sym;
    L.lane[1] = rb->loop.sym;
    L.var = ra->loop.var;
    /* the extent: evaluated once for both, so it must be the same in both */
    if (!sym_eval(L.env, ra->loop.hi).uniform)
        return false;
    lane_start(&L, ra->loop.hi, ra->loop.body);
    par_walk(rb->loop.body, written_visit, &L);
    lw(&L, ra->loop.body);
    lw(&L, rb->loop.body);
    race_check(&L);
    return L.errors == 0;
}

/* ----------------------------------------------------------------- plans */

static int plan_literal(const Node *item, int at)
{
    if (item->plan_item.args.n <= at)
        return -1;
    const Node *v = item->plan_item.args.v[at];
    if (!v || v->kind != N_INT || v->lit.overflow || v->lit.ival > 1 << 20)
        return -1;
    return (int)v->lit.ival;
}

PlanInfo par_plan_for(const Node *program, const char *id)
{
    PlanInfo p = {0};
    if (!program || !id)
        return p;
    for (int i = 0; i < program->block.stmts.n; i++) {
        const Node *d = program->block.stmts.v[i];
        if (!d || d->kind != N_PLAN || !d->plan.target || strcmp(d->plan.target, id))
            continue;
        for (int k = 0; k < d->plan.items.n; k++) {
            const Node *it = d->plan.items.v[k];
            const char *n = it->plan_item.id ? it->plan_item.id : "";
            if (!strcmp(n, "vector"))
                p.vector = plan_literal(it, 0);
            else if (!strcmp(n, "unroll"))
                p.unroll = plan_literal(it, 0);
            else if (!strcmp(n, "fuse"))
                p.fuse = true;
            else if (!strcmp(n, "staged"))
                p.staged = true;
        }
    }
    if (p.vector < 0)
        p.vector = 0;
    if (p.unroll < 0)
        p.unroll = 0;
    return p;
}

typedef struct {
    int regions, collectors, pairs, fusable;
    Node *first_pair;
    Arena *a;
} PlanScan;

static void scan_block_pairs(PlanScan *s, Node *b)
{
    for (int i = 0; i + 1 < b->block.stmts.n; i++) {
        Node *p = b->block.stmts.v[i], *q = b->block.stmts.v[i + 1];
        if (!p || !q || p->kind != N_PARALLEL || q->kind != N_PARALLEL || !ast_equal(p->loop.hi, q->loop.hi))
            continue;
        s->pairs++;
        if (!s->first_pair)
            s->first_pair = p;
        if (par_fusable(s->a, p, q))
            s->fusable++;
    }
}

static bool plan_visit(Node *n, void *c)
{
    PlanScan *s = c;
    if (n->kind == N_PARALLEL)
        s->regions++;
    if (n->kind == N_COLLECT && n->collect.mode == MODE_PARALLEL)
        s->collectors++;
    if (n->kind == N_BLOCK)
        scan_block_pairs(s, n);
    return true;
}

static Node *find_fn(Node *prog, const char *id)
{
    for (int i = 0; i < prog->block.stmts.n; i++) {
        Node *d = prog->block.stmts.v[i];
        if (d && d->kind == N_FN && d->fn.id && id && !strcmp(d->fn.id, id) && !d->fn.is_extern)
            return d;
    }
    return NULL;
}

static void plan_item_check(Ctx *x, Node *d, Node *it, PlanScan *s)
{
    const char *n = it->plan_item.id ? it->plan_item.id : "?";
    const char *f = d->plan.target;
    bool counted = !strcmp(n, "vector") || !strcmp(n, "unroll");
    if (!counted && strcmp(n, "fuse") && strcmp(n, "staged")) {
        diag_error(x->sink, it->span, E_PLAN, "the items are `vector K;`, `unroll U;`, `fuse;` and `staged;`",
                   "unknown plan item `%s`", n);
        return;
    }
    int want = counted ? 1 : 0;
    int v = counted ? plan_literal(it, 0) : 0;
    int most = !strcmp(n, "vector") ? 64 : 16;
    if (it->plan_item.args.n != want || (counted && (v < 1 || v > most))) {
        diag_error(x->sink, it->span, E_PLAN,
                   counted ? arena_printf(x->a, "write `%s K;` with K a literal from 1 to %d", n, most)
                           : arena_printf(x->a, "write `%s;`", n),
                   "plan item `%s` takes %s", n, counted ? arena_printf(x->a, "one literal from 1 to %d", most) : "no arguments");
        return;
    }
    if (counted && !s->regions && !s->collectors) {
        diag_error(x->sink, it->span, E_PLAN, "plan a function that runs a parallel region or a pooled collector",
                   "`%s` does not apply to %s: it has no parallel region or pooled collector", n, f);
    } else if (!strcmp(n, "staged") && !s->collectors) {
        diag_error(x->sink, it->span, E_PLAN, "`staged` applies to `reduce`, `scan` and `compact ... parallel`",
                   "`staged` does not apply to %s: it has no pooled collector", f);
    } else if (!strcmp(n, "fuse") && !s->pairs) {
        diag_error(x->sink, it->span, E_PLAN, "write the regions one after the other, over one extent",
                   "`fuse` does not apply to %s: it has no two consecutive regions over the same extent", f);
    } else if (!strcmp(n, "fuse") && !s->fusable) {
        Node *p = s->first_pair;
        diag_error(x->sink, it->span, E_PLAN, "fuse only regions whose later lanes read what earlier ones wrote at "
                   "their own element",
                   "`fuse` does not apply to %s: the regions at lines %d and %d cannot run as one pass (a lane of the "
                   "second touches an element another lane of the first writes, or writes one it reads)",
                   f, p->span.line, p->span.line + 1);
    }
}

static void check_plans(Ctx *x)
{
    Node *prog = x->c->program;
    Vec seen = {0};
    for (int i = 0; i < prog->block.stmts.n; i++) {
        Node *d = prog->block.stmts.v[i];
        if (!d || d->kind != N_PLAN)
            continue;
        Node *fn = find_fn(prog, d->plan.target);
        if (!fn || fn->fn.is_kernel) {
            diag_error(x->sink, d->span, E_PLAN, "name a function of this file: `plan f { vector 4; }`",
                       fn ? "plan for `%s`, a kernel fn: plans of device work arrive with device execution"
                          : "plan for `%s`, but no function has that name", d->plan.target ? d->plan.target : "?");
            continue;
        }
        for (int k = 0; k < seen.n; k++)
            if (!strcmp(seen.v[k], d->plan.target)) {
                diag_error(x->sink, d->span, E_PLAN, "write all of its items in one plan",
                           "a second plan for `%s`", d->plan.target);
                fn = NULL;
                break;
            }
        if (!fn)
            continue;
        vec_push(x->a, &seen, (void *)d->plan.target);
        PlanScan s = {0};
        s.a = x->a;
        par_walk(fn->fn.body, plan_visit, &s);
        for (int k = 0; k < d->plan.items.n; k++)
            plan_item_check(x, d, d->plan.items.v[k], &s);
    }
}

/* ------------------------------------------------------------ the pass */

void check_par_program(Ctx *x)
{
    Check *c = x->c;
    EffTable *eff = c->effects;
    Vec reported = {0};
    RegionWalk w = {x, eff, &reported, NULL, arena_new()};
    /* eff->fns is c->fns in order, each function once: a search of the
     * functions already done made this quadratic in their number. A body
     * with a region or a pooled collector (closures included) has par:host
     * in its row, so a function without it has nothing to walk for. */
    for (int i = 0; i < eff->fns.n; i++) {
        FnEff *f = eff->fns.v[i];
        if (f->bits & ((1u << EF_PAR) | (1u << EF_DEV)))
            par_walk(f->fn->fn.body, region_visit, &w);
    }
    arena_free(w.scratch);
    coop_rules(x);
    check_plans(x);
}

/* The parallel-rules pass (pass.c). */
void check_parallel_rules(Check *c)
{
    check_par_program(c->ctx);
}

/* `cairn check --dump=accesses`: each region's and pooled collector's
 * accesses, as the race rule sees them (root + offset form, length). */
void par_dump_accesses(FILE *out, const Check *c)
{
    Ctx x = {.c = (Check *)c, .a = c->arena, .sink = c->sink};   /* read, never written: no sink is used */
    Vec reported = {0};
    RegionWalk w = {&x, c->effects, &reported, out, arena_new()};
    for (int i = 0; c->effects && i < c->effects->fns.n; i++) {
        FnEff *f = c->effects->fns.v[i];
        if (f->bits & ((1u << EF_PAR) | (1u << EF_DEV))) {
            fprintf(out, "fn %s\n", f->fn->fn.id ? f->fn->fn.id : "(closure)");
            par_walk(f->fn->fn.body, region_visit, &w);
        }
    }
    arena_free(w.scratch);
}
