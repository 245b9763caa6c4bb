/*
 * effects.c: each function's effect row.
 *
 * Requires: a program check_program typed (calls have their kind and
 * target; names their symbols).
 * Guarantees: for every function in check->fns, the union of what its own
 * body does and what everything it calls does, computed to a fixpoint over
 * the call graph (so recursion terminates):
 *
 *   par:host     a parallel region or a pooled collector
 *   read:NAME    an element of the view NAME (a parameter or a buffer) is read
 *   write:NAME   an element of NAME is written (a rw<T> parameter: assigned)
 *   trap         a guard: an index, a part, checked arithmetic, a narrowing
 *                or float-to-integer conversion, assert, shl/shr, an extent
 *   io           print / println
 *   libm         std.math
 *   alloc        a buffer
 *   atomic       an atomic update
 *
 * A callee's read:p / write:p become the caller's read / write of the view
 * passed for p (its root: the parameter or buffer it is a part of); the
 * callee's own buffers stay the callee's. A call through a function value
 * adds what the closures the function makes do (it cannot see further), and
 * marks the row (EF_VALUE) so that a lane refuses it.
 */
#include "check.h"
#include "par.h"
#include "wide.h"

#include <stdlib.h>
#include <string.h>


/* The row hangs on the function's node, so a lookup costs nothing: a
 * search of the table per call site made the pass quadratic in the number
 * of functions. */
FnEff *effects_of(const EffTable *t, const Node *fn)
{
    if (!t || !fn || fn->kind != N_FN)
        return NULL;
    return fn->fn.effects;
}

/* ------------------------------------------------------- local effects */

static bool int_narrowing(const Type *from, const Type *to)
{
    if (!from || !to || !type_is_int(to))
        return false;
    if (type_is_float(from) || type_is_storage_float(from))
        return true;
    if (!type_is_int(from))
        return false;
    bool fs = type_is_signed(from), ts = type_is_signed(to);
    int fb = type_bits(from), tb = type_bits(to);
    if (fs == ts)
        return fb > tb;
    return !( !fs && ts && fb < tb);
}

static bool checked_op(TokKind op)
{
    return op == T_PLUS || op == T_MINUS || op == T_STAR || op == T_SLASH || op == T_PERCENT ||
           op == T_PLUSEQ || op == T_MINUSEQ || op == T_STAREQ || op == T_SLASHEQ || op == T_PERCENTEQ;
}

int effects_construct(Node *n, const char **what)
{
    const char *w = NULL;
    int bit = -1;
    switch (n->kind) {
    case N_PARALLEL:
        bit = n->loop.device ? EF_DEV : EF_PAR;
        w = n->loop.device ? "a device region" : "a parallel region";
        break;
    case N_COLLECT:
        if (n->collect.device) {
            bit = EF_DEV;
            w = "a device collector";
        } else if (n->collect.mode == MODE_PARALLEL) {
            bit = EF_PAR;
            w = "a pooled collector";
        }
        break;
    case N_COOP:
        bit = n->coop.device ? EF_DEV : EF_PAR;
        w = n->coop.device ? "a device cooperative region" : "a cooperative region";
        break;
    case N_BUFFER: bit = EF_ALLOC; w = "a buffer"; break;
    case N_SHARED:
        if (n->buffer.zeroed) {
            bit = EF_ZERO_INIT;
            w = "a shared array declared = zeroed";
        }
        break;
    case N_LOCK: bit = EF_SYNC; w = "a lock"; break;
    case N_TASK: bit = EF_SYNC; w = "a host task"; break;
    case N_SPAWN: bit = EF_SYNC; w = "spawn"; break;
    case N_CALL:
        if (n->call.ck == CALL_MATH) {
            /* the portable functions are pure; the rest is the host's C library */
            if (!math_claim(n->call.math, n->ty)) {
                bit = EF_LIBM;
                w = "std.math";
            }
        } else if (n->call.ck == CALL_VALUE) {
            bit = EF_VALUE;
            w = "a call through a function value";
        } else if (n->call.ck == CALL_BUILTIN) {
            switch ((Builtin)n->call.builtin) {
            case B_PRINT: case B_PRINTLN: bit = EF_IO; break;
            case B_TRANSFER: case B_WAIT: case B_LOCK_NEW: bit = EF_SYNC; break;
            case B_MMA_UNORDERED: bit = n->call.args.n == 6 ? EF_MMA : 0; break;   /* not the fragment form */
            case B_ATOMIC_ADD_WRAP: case B_ATOMIC_MIN: case B_ATOMIC_MAX: case B_ATOMIC_AND:
            case B_ATOMIC_OR: case B_ATOMIC_XOR: case B_ATOMIC_CAS: case B_ATOMIC_ADD_UNORDERED:
                bit = EF_ATOMIC;
                break;
            default: break;
            }
            w = builtin_name((Builtin)n->call.builtin);
        }
        break;
    default: break;
    }
    if (what)
        *what = w;
    return bit;
}

/* mma_unordered's whole-matrix form, as checked (six arguments). */
static bool is_mma_whole(const Node *n)
{
    return n->kind == N_CALL && n->call.ck == CALL_BUILTIN && n->call.builtin == B_MMA_UNORDERED &&
           n->call.args.n == 6;
}

/* Does evaluating this node (not its children) possibly fail a guard? */
static bool may_trap(Node *n)
{
    switch (n->kind) {
    case N_INDEX: case N_SLICE: case N_BUFFER: return true;
    case N_UNARY: return n->unary.op == T_MINUS && n->ty && type_is_int(n->ty);
    case N_BINARY: return checked_op(n->binary.op) && n->binary.a->ty && type_is_int(n->binary.a->ty);
    case N_ASSIGN: return checked_op(n->assign.op) && n->assign.lhs->ty && type_is_int(n->assign.lhs->ty);
    case N_COLLECT:
        if (n->collect.kind != COLLECT_REDUCE)
            return true;
        return n->collect.op && (!strcmp(n->collect.op, "+") || !strcmp(n->collect.op, "*")) && n->ty &&
               type_is_int(n->ty);
    case N_CALL:
        if (n->call.ck == CALL_CONVERT)   /* f8e4m3 has no infinity: past its range, a guard */
            return n->call.args.n == 1 && (int_narrowing(((Node *)n->call.args.v[0])->ty, n->ty) ||
                                           (n->ty && n->ty->kind == TY_F8E4M3));
        if (n->call.ck == CALL_BUILTIN) {
            Builtin b = (Builtin)n->call.builtin;
            if (b == B_ASSERT || b == B_SHL || b == B_SHR || b == B_QUANTIZE || b == B_QUANTIZE_STOCHASTIC ||
                b == B_LOAD_WIDE || b == B_STORE_WIDE)   /* a wide access's bounds and alignment */
                return true;
            if (b == B_ABS)
                return n->ty && type_is_int(n->ty);
            return false;
        }
        if (n->call.ck == CALL_FN && n->call.target) {
            Node *fn = n->call.target;
            for (int i = 0; i < fn->fn.params.n; i++) {
                Node *p = fn->fn.params.v[i];
                Type *t = p->param.sym ? p->param.sym->ty : NULL;
                if (t && t->kind == TY_VIEW && t->extent)
                    return true;
            }
        }
        return false;
    default: return false;
    }
}

typedef struct {
    EffTable *t;
    FnEff *f;
    bool changed;
    int device_depth;     /* > 0 inside a device region's or collector's lanes */
    Node *entering;       /* the device region being entered (eff_visit) */
} Walk;

static void set_bit(Walk *w, int bit, Node *why, FnEff *via)
{
    if (bit < 0 || (w->f->bits & (1u << bit)))
        return;
    w->f->bits |= 1u << bit;
    w->f->why[bit] = why;
    w->f->via[bit] = via;
    w->changed = true;
}

/* A parameter or a buffer of this function: what a row names. */
static bool nameable(Sym *s)
{
    if (!s)
        return false;
    if (s->kind == SYM_PARAM)
        return s->ty && (s->ty->kind == TY_VIEW || s->ty->kind == TY_REF);
    return s->kind == SYM_LOCAL && s->decl && s->decl->kind == N_BUFFER;
}

static void touch(Walk *w, Sym *s, bool write)
{
    if (!nameable(s))
        return;
    Vec *v = write ? &w->f->writes : &w->f->reads;
    if (ptrset_add(w->t->a, write ? &w->f->write_set : &w->f->read_set, s)) {
        vec_push(w->t->a, v, s);
        w->changed = true;
    }
}

static void touch_expr(Walk *w, Node *e, bool write)
{
    if (e && e->kind == N_NAME && e->name.sym && e->name.sym->ty && e->name.sym->ty->kind == TY_REF) {
        touch(w, e->name.sym, write);
        return;
    }
    touch(w, view_root(e), write);
}

/* The callee's reads and writes of its parameters, as the caller's. */
static void map_call(Walk *w, Node *call, FnEff *ce)
{
    Node *fn = ce->fn;
    for (int i = 0; i < fn->fn.params.n && i < call->call.args.n; i++) {
        Node *p = fn->fn.params.v[i];
        Sym *ps = p->param.sym;
        if (ptrset_has(&ce->read_set, ps))
            touch_expr(w, call->call.args.v[i], false);
        if (ptrset_has(&ce->write_set, ps))
            touch_expr(w, call->call.args.v[i], true);
    }
}

/* What device work adds to a row beyond its one construct bit: the ways
 * the host observes device memory (devices.md, "One wait, or none"). */
static void device_bits(Walk *w, Node *n)
{
    switch (n->kind) {
    case N_BUFFER:
        /* pinned and unified owners come from the CUDA runtime too, and
         * freeing them waits for the device; a unified one is host-visible
         * memory device work may touch, so it keeps the function unheld */
        if (n->buffer.place != PLACE_HOST)
            set_bit(w, EF_GPU_ALLOC, n, NULL);
        if (n->buffer.place == PLACE_UNIFIED)
            set_bit(w, EF_UNIFIED, n, NULL);
        break;
    case N_COLLECT:
        if (n->collect.device)
            set_bit(w, EF_GPU_ALLOC, n, NULL);
        break;
    case N_SPAWN: set_bit(w, EF_QUEUE, n, NULL); break;
    case N_INDEX:
        if (n->index.base->ty && n->index.base->ty->kind == TY_VIEW && n->index.base->ty->place == PLACE_UNIFIED)
            set_bit(w, EF_UNIFIED, n, NULL);
        break;
    case N_CALL:
        if (wide_is(n) && wide_view(n)->ty && wide_view(n)->ty->kind == TY_VIEW &&
            wide_view(n)->ty->place == PLACE_UNIFIED)
            set_bit(w, EF_UNIFIED, n, NULL);
        if (is_mma_whole(n) && mma_on_device(n))   /* one launch, as a device region's */
            set_bit(w, EF_DEV, n, NULL);
        if (is_mma_whole(n))   /* its views, on either side: @unified memory is the host's too */
            for (int i = 3; i < 6; i++) {
                Type *t = ((Node *)n->call.args.v[i])->ty;
                if (t && t->kind == TY_VIEW && t->place == PLACE_UNIFIED)
                    set_bit(w, EF_UNIFIED, n, NULL);
            }
        if (n->call.ck == CALL_BUILTIN && n->call.builtin == B_TRANSFER) {
            for (int i = 0; i < n->call.args.n; i++) {
                Type *t = ((Node *)n->call.args.v[i])->ty;
                if (t && t->kind == TY_VIEW && t->place != PLACE_DEVICE)
                    set_bit(w, t->place == PLACE_UNIFIED ? EF_UNIFIED : EF_HOST_COPY, n, NULL);
            }
        }
        break;
    default: break;
    }
}

/* Code that runs on the device: a region's lanes, a collector's, and a
 * cooperative region's blocks and finish. */
static bool device_lanes(const Node *n)
{
    return (n->kind == N_PARALLEL && n->loop.device) || (n->kind == N_COLLECT && n->collect.device) ||
           (n->kind == N_COOP && n->coop.device);
}

static bool eff_visit(Node *n, void *c)
{
    Walk *w = c;
    if (device_lanes(n) && n != w->entering) {
        /* its lanes run on the device: an atomic there is device work, not a
         * way for the host to observe (devices.md, "One wait, or none") */
        w->entering = n;
        w->device_depth++;
        par_walk(n, eff_visit, c);
        w->device_depth--;
        return false;
    }
    if (n == w->entering)
        w->entering = NULL;
    const char *what;
    int bit = effects_construct(n, &what);
    set_bit(w, bit, n, NULL);
    if (bit == EF_ATOMIC && !w->device_depth)
        set_bit(w, EF_HOST_ATOMIC, n, NULL);
    device_bits(w, n);
    if (may_trap(n))
        set_bit(w, EF_TRAP, n, NULL);
    switch (n->kind) {
    case N_INDEX:
        touch_expr(w, n->index.base, false);
        break;
    case N_ASSIGN: {
        Node *l = n->assign.lhs;
        if (l->kind == N_INDEX) {
            touch_expr(w, l->index.base, true);
            if (n->assign.op != T_ASSIGN)
                touch_expr(w, l->index.base, false);
            par_walk(l->index.base, eff_visit, c);
            par_walk(l->index.index, eff_visit, c);
            par_walk(n->assign.rhs, eff_visit, c);
            return false;
        }
        if (l->kind == N_NAME)
            touch_expr(w, l, true);
        break;
    }
    case N_COLLECT:
        if (n->collect.dest)
            touch_expr(w, n->collect.kind == COLLECT_REDUCE && n->collect.dest->kind == N_INDEX
                              ? n->collect.dest->index.base : n->collect.dest, true);
        break;
    case N_CALL:
        /* transfer(dst, src) writes dst and reads src, and its extents and
         * overlap are checked where it runs */
        if (n->call.ck == CALL_BUILTIN && n->call.builtin == B_TRANSFER && n->call.args.n == 2) {
            touch_expr(w, n->call.args.v[0], true);
            touch_expr(w, n->call.args.v[1], false);
            set_bit(w, EF_TRAP, n, NULL);
        }
        /* mma_unordered(m, n, k, c, a, b) adds into c and reads a and b, and
         * its extents are checked where it runs */
        if (is_mma_whole(n)) {
            touch_expr(w, n->call.args.v[3], true);
            touch_expr(w, n->call.args.v[3], false);
            touch_expr(w, n->call.args.v[4], false);
            touch_expr(w, n->call.args.v[5], false);
            set_bit(w, EF_TRAP, n, NULL);
        }
        /* p.fill(x, ...) and p.fill_rows(x, ...) read x, and their guards may fail */
        if (pipe_is_fill(n) && n->call.args.n >= 3) {
            touch_expr(w, n->call.args.v[0], false);
            set_bit(w, EF_TRAP, n, NULL);
        }
        if (wide_is(n))   /* the part x[i .. i + K]: read, or written */
            touch_expr(w, wide_view(n), wide_is_store(n));
        if (n->call.ck == CALL_BUILTIN && effects_construct(n, NULL) == EF_ATOMIC && n->call.args.n &&
            ((Node *)n->call.args.v[0])->kind == N_INDEX) {
            Node *el = n->call.args.v[0];
            touch_expr(w, el->index.base, true);
            touch_expr(w, el->index.base, false);
        }
        if (n->call.ck == CALL_FN && n->call.target) {
            FnEff *ce = effects_of(w->t, n->call.target);
            if (ce) {
                for (int b = 0; b < EF_N; b++)
                    if ((ce->bits & (1u << b)) && !(b == EF_HOST_ATOMIC && w->device_depth))
                        set_bit(w, b, n, ce);
                map_call(w, n, ce);
            }
        }
        break;
    default:
        break;
    }
    return true;
}

static FnEff *table_add(EffTable *t, Node *fn)
{
    FnEff *f = effects_of(t, fn);
    if (f)
        return f;
    f = arena_alloc(t->a, sizeof *f);
    f->fn = fn;
    fn->fn.effects = f;
    vec_push(t->a, &t->fns, f);
    return f;
}

/* Direct callees of each function, found once. */
typedef struct {
    EffTable *t;
    FnEff *f;
} CalleeWalk;

static bool collect_callee(Node *n, void *ctx)
{
    CalleeWalk *w = ctx;
    if (n->kind == N_CALL && n->call.ck == CALL_FN && n->call.target) {
        FnEff *ce = n->call.target->fn.effects;
        if (ce && ptrset_add(w->t->a, &w->f->callee_set, ce))
            vec_push(w->t->a, &w->f->callees, ce);
    }
    return true;
}

/* Callees before callers (a depth-first post-order), so that on a call
 * graph without cycles the fixpoint settles in one round plus the round
 * that sees nothing change. An explicit stack: a chain of a million calls
 * must not overflow ours. */
static void order_callees_first(EffTable *t, Vec *order)
{
    Vec stack = {0}, next = {0};
    for (int i = 0; i < t->fns.n; i++) {
        FnEff *root = t->fns.v[i];
        if (root->visited)
            continue;
        root->visited = true;
        vec_push(t->a, &stack, root);
        vec_push(t->a, &next, (void *)(intptr_t)0);
        while (stack.n) {
            FnEff *f = stack.v[stack.n - 1];
            intptr_t k = (intptr_t)next.v[next.n - 1];
            if (k < f->callees.n) {
                next.v[next.n - 1] = (void *)(k + 1);
                FnEff *c = f->callees.v[k];
                if (!c->visited) {
                    c->visited = true;
                    vec_push(t->a, &stack, c);
                    vec_push(t->a, &next, (void *)(intptr_t)0);
                }
                continue;
            }
            vec_push(t->a, order, f);
            stack.n--;
            next.n--;
        }
    }
}

/* Whether a function f calls grew its row after f's body was last walked
 * (f itself included, when it calls itself). */
static bool callee_grew(const FnEff *f)
{
    for (int i = 0; i < f->callees.n; i++)
        if (((const FnEff *)f->callees.v[i])->changed_at > f->walked_at)
            return true;
    return false;
}

EffTable *effects_compute(Arena *a, const Check *c)
{
    EffTable *t = arena_alloc(a, sizeof *t);
    t->a = a;
    for (int i = 0; i < c->fns.n; i++)
        if (c->fns.v[i])
            table_add(t, c->fns.v[i]);
    for (int i = 0; i < t->fns.n; i++) {
        CalleeWalk cw = {t, t->fns.v[i]};
        par_walk(cw.f->fn->fn.body, collect_callee, &cw);
    }
    Vec order = {0};
    order_callees_first(t, &order);
    /* Each round can only add; a row has at most EF_N bits and as many
     * names as the function has parameters and buffers. A body walked
     * again gives the same row unless a callee's row grew since it was
     * last walked, so after the first round only those are walked: on a
     * call graph without cycles the first round is the last (a second,
     * full round that found nothing was a quarter of the pass). */
    long clock = 0;
    for (int round = 0; round < 10000; round++) {
        bool changed = false;
        for (int i = 0; i < order.n; i++) {
            FnEff *f = order.v[i];
            if (round > 0 && !callee_grew(f))
                continue;
            Walk w = {t, f, false, 0, NULL};
            f->walked_at = ++clock;
            par_walk(f->fn->fn.body, eff_visit, &w);
            if (w.changed)
                f->changed_at = ++clock;
            changed |= w.changed;
        }
        if (!changed)
            break;
    }
    return t;
}

/* ------------------------------------------------------------- printing */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *effects_row(Arena *a, const FnEff *f)
{
    static const struct { EffBit b; const char *s; } names[] = {
        {EF_ALLOC, "alloc"}, {EF_ATOMIC, "atomic"}, {EF_IO, "io"}, {EF_LIBM, "libm"},
        {EF_PAR, "par:host"}, {EF_TRAP, "trap"}, {EF_DEV, "par:device"}, {EF_GPU_ALLOC, "gpu_alloc"},
        {EF_GPU_ALLOC, "gpu_free"}, {EF_HOST_COPY, "copy:host"}, {EF_QUEUE, "queue"}, {EF_UNIFIED, "unified"},
        {EF_ZERO_INIT, "zero_init"},
    };
    int cap = 16 + f->reads.n + f->writes.n, n = 0;
    const char **v = arena_alloc(a, sizeof *v * (size_t)cap);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (f->bits & (1u << names[i].b))
            v[n++] = names[i].s;
    for (int i = 0; i < f->reads.n; i++)
        v[n++] = arena_printf(a, "read:%s", ((Sym *)f->reads.v[i])->id);
    for (int i = 0; i < f->writes.n; i++)
        v[n++] = arena_printf(a, "write:%s", ((Sym *)f->writes.v[i])->id);
    qsort(v, (size_t)n, sizeof *v, cmp_str);
    char *out = arena_strdup(a, "[");
    for (int i = 0; i < n; i++)
        out = arena_printf(a, "%s%s%s", out, i ? ", " : "", v[i]);
    return arena_printf(a, "%s]", out);
}

const char *effects_chain(Arena *a, const FnEff *f, EffBit b)
{
    const char *out = "";
    for (int depth = 0; f && depth < 64; depth++) {
        Node *why = f->why[b];
        if (!why)
            break;
        const FnEff *via = f->via[b];
        const char *step;
        if (via) {
            step = arena_printf(a, "%s (line %d)", via->fn->fn.id ? via->fn->fn.id : "a function", why->span.line);
        } else {
            const char *what = NULL;
            effects_construct(why, &what);
            if (why->kind == N_CALL && why->call.ck == CALL_MATH)
                what = arena_printf(a, "std.math.%s", why->call.math ? why->call.math : "?");
            step = arena_printf(a, "%s (line %d)", what ? what : node_kind_name(why->kind), why->span.line);
        }
        out = *out ? arena_printf(a, "%s -> %s", out, step) : step;
        f = via;
    }
    return out;
}
