/*
 * emit_fast.c: launch-time proofs for a device region's fast version
 * (issue 13's speed).
 *
 * A cooperative region's body is mostly index arithmetic on names whose
 * ranges the launch knows: block names below the grid's extents, thread
 * names below constants, loop counters below bounds made of outside
 * values. Checked arithmetic and bounds checks on every such operation cost
 * a region several times a hand kernel's time (evidence/2026-12-01-coop-
 * speed.md), yet at launch one interval evaluation per operation decides
 * them for every thread of every block at once.
 *
 * Requires: a device region the checker accepted, its captures filled into
 * the launch's struct (args) and its grid extents in the host locals gv.
 * Guarantees: fast_prove walks the body once, in order, with an interval
 * for each integer local (an environment with scopes), and
 *   - marks each unsigned +, -, *, /, % (and x OP= e on a local) whose
 *     operands' intervals are bounded by the launch's values, and each view
 *     index whose index is, with the view's length known at launch;
 *   - writes host code before the launch that computes those intervals
 *     (runtime/cairn_coopdev.h, struct cn_iv: 128-bit bounds, a flag for an
 *     operation that could overflow, underflow or divide by zero, and one
 *     for code no thread runs) and sets args.cn_fast when every marked
 *     operation is safe for every thread and every marked index in bounds.
 * The kernel is instantiated twice (template <bool CN_FAST>); the fast one
 * writes the marked operations unchecked (CN_FAST_OP, CN_FAST_IDX), the
 * other checks everything, and the launch picks. A marked operation is thus
 * unchecked only where the launch proved it cannot fail: nothing is lost.
 *
 * Soundness of the walk: an interval covers every value an expression takes
 * in any thread, block and iteration. A local assigned anywhere in a loop
 * is unknown in the whole loop; one assigned in a branch, after it; one lent
 * to a call, after the call; a condition v < e, v <= e, v > e, v >= e (and
 * their &&) narrows v inside the branch or loop body it guards, until v is
 * assigned. A body with a closure, an unsafe block, a lock or asm gets no
 * proofs at all. Unsigned types only: signed arithmetic stays checked.
 *
 * It also marks, in the fast version, the grid-stride loop `while v < B {
 * ...; v += S; }` (B and S proved, neither assigned in the loop, no break,
 * continue, return, barrier or warp operation inside): FAST_UNROLL copies of
 * the body run back to back while the last of them still satisfies v < B,
 * so the copies' loads are in flight together (a thread's loop otherwise
 * keeps one load in flight: 3.4x CUB's time for a sum).
 */
#include "emit.h"
#include "sym.h"
#include "walk.h"

#include <string.h>

enum { FAST_UNROLL = 8 };

/* An interval: the host local holding its struct cn_iv, and whether it is
 * bounded by launch values (an unknown local's [0, max] is not). */
typedef struct {
    const char *v;
    bool bounded;
} Iv;

/* A binding: a local's interval, or (sym NULL) a fact a condition states
 * of an integer expression in the scope it guards, `expr` within `iv`. A
 * fact dies (expr NULL) when a name in it is assigned. */
typedef struct {
    Sym *sym;
    Iv iv;
    Node *expr;
} Bind;

typedef struct {
    Ex *x;
    const char *args;      /* the launch's struct, filled */
    PtrMap *marks;         /* Node* -> (void *)1, or FastLoop* for a while loop */
    Vec env;               /* Bind*, innermost last */
    PtrSet outside_bad;    /* captured locals the body assigns: never launch values */
    Caps *caps;
    Buf *ok;               /* the conjunction, as C */
} Fast;

/* ------------------------------------------------------------ types */

static bool fast_type(const Type *t)
{
    return t && type_is_int(t) && !type_is_signed(t) && type_bits(t) >= 32;
}

static const char *tmax(Ex *x, const Type *t)
{
    (void)x;
    return type_bits(t) == 32 ? "UINT32_MAX" : "UINT64_MAX";
}

static const char *new_iv(Fast *F, const char *init)
{
    const char *t = emit_tmp(F->x, "iv");
    emit_line(F->x, "const struct cn_iv %s = %s;", t, init);
    return t;
}

static void require(Fast *F, const char *cond)
{
    buf_printf(F->x->a, F->ok, " && %s", cond);
}

/* ------------------------------------------------------------ the environment */

static Iv lookup(Fast *F, Sym *s, bool *found)
{
    for (int i = F->env.n - 1; i >= 0; i--) {
        Bind *b = F->env.v[i];
        if (b->sym == s) {
            *found = true;
            return b->iv;
        }
    }
    *found = false;
    return (Iv){NULL, false};
}

static void bind(Fast *F, Sym *s, Iv iv)
{
    Bind *b = arena_alloc(F->x->a, sizeof *b);
    b->sym = s;
    b->iv = iv;
    b->expr = NULL;
    vec_push(F->x->a, &F->env, b);
}

static bool mentions(const Node *e, const Sym *s)
{
    switch (e->kind) {
    case N_NAME: return e->name.sym == s;
    case N_BINARY: return mentions(e->binary.a, s) || mentions(e->binary.b, s);
    default: return false;
    }
}

/* s's value is unknown from here: [0, max] for a type we follow; the
 * facts that name it no longer hold. */
static void forget(Fast *F, Sym *s)
{
    for (int i = 0; i < F->env.n; i++) {
        Bind *b = F->env.v[i];
        if (b->expr && mentions(b->expr, s))
            b->expr = NULL;
    }
    if (fast_type(s->ty))
        bind(F, s, (Iv){new_iv(F, emit_fmt(F->x, "cn_iv_top(%s)", tmax(F->x, s->ty))), false});
    else
        bind(F, s, (Iv){NULL, false});
}

/* The locals a subtree assigns (or lends to a call, which may write them). */
typedef struct {
    Arena *a;
    Vec *out;
    PtrSet seen;
} Assigned;

/* Only a local named whole changes: an element written through a view (or
 * an Array's element) leaves the view's length and the integers alone. */
static void assigned_add(Assigned *A, Node *place)
{
    if (place && place->kind == N_NAME && place->name.sym && ptrset_add(A->a, &A->seen, place->name.sym))
        vec_push(A->a, A->out, place->name.sym);
}

/* Can a call change a local named as its argument (a function's rw<T>
 * parameter)? Not one that only takes values: min, max and abs, a
 * conversion, std.math, a pipeline's operations. */
static bool call_lends(const Node *n)
{
    switch (n->call.ck) {
    case CALL_CONVERT: case CALL_MATH: return false;
    case CALL_BUILTIN: return n->call.builtin != B_MIN && n->call.builtin != B_MAX && n->call.builtin != B_ABS;
    case CALL_METHOD: return !pipe_op_of(n);
    default: return true;
    }
}

static bool assigned_visit(Node *n, void *ctx)
{
    Assigned *A = ctx;
    if (n->kind == N_ASSIGN)
        assigned_add(A, n->assign.lhs);
    if (n->kind == N_COLLECT && n->collect.dest)
        assigned_add(A, n->collect.dest);
    if (n->kind == N_CALL && call_lends(n))
        for (int i = 0; i < n->call.args.n; i++)
            if (((Node *)n->call.args.v[i])->kind == N_NAME)
                assigned_add(A, n->call.args.v[i]);
    return true;
}

static void assigned_in(Arena *a, Node *n, Vec *out)
{
    Assigned A = {a, out, {0}};
    if (n)
        par_walk(n, assigned_visit, &A);
}

/* Leaves a scope: its bindings go, and what it assigned is unknown after. */
static void scope_end(Fast *F, int mark, Node *scope)
{
    F->env.n = mark;
    Vec as = {0};
    assigned_in(F->x->a, scope, &as);
    for (int i = 0; i < as.n; i++)
        forget(F, as.v[i]);
}

/* ------------------------------------------------------------ expressions */

static Iv iv_of(Fast *F, Node *e);
static void visit(Fast *F, Node *e);

static void mark(Fast *F, Node *e) { ptrmap_put(F->x->a, F->marks, e, (void *)1); }

/* A bounded interval whose root operation is marked: it must hold. */
static void root(Fast *F, Iv iv)
{
    if (iv.v && iv.bounded)
        require(F, emit_fmt(F->x, "cn_iv_fine(%s)", iv.v));
}

static const char *op_name(TokKind op)
{
    switch (op) {
    case T_PLUS: case T_PLUSEQ: return "add";
    case T_MINUS: case T_MINUSEQ: return "sub";
    case T_STAR: case T_STAREQ: return "mul";
    case T_SLASH: case T_SLASHEQ: return "div";
    case T_PERCENT: case T_PERCENTEQ: return "rem";
    default: return NULL;
    }
}

/* A name's interval: a binding, a constant, or a launch value (a capture
 * the body never assigns). */
static Iv name_iv(Fast *F, Node *e)
{
    Sym *s = e->name.sym;
    bool found;
    Iv iv = lookup(F, s, &found);
    if (found || !s || !fast_type(s->ty))
        return iv;
    if ((s->kind == SYM_CONST || s->kind == SYM_GENERIC) && s->has_value)   /* D of an instance too */
        return (Iv){new_iv(F, emit_fmt(F->x, "cn_iv_k(%lluu)", (unsigned long long)s->value)), true};
    if (ptrset_has(&F->caps->used_set, s) && !ptrset_has(&F->caps->declared_set, s) && !ptrset_has(&F->outside_bad, s) &&
        s->cname)
        return (Iv){new_iv(F, emit_fmt(F->x, "cn_iv_k((uint64_t)%s.%s)", F->args, s->cname)), true};
    return (Iv){NULL, false};
}

/* Structurally the same integer expression of names and constants (no
 * reads: memory may change between a condition and what it guards). */
static bool same_expr(const Node *a, const Node *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case N_INT: return a->lit.ival == b->lit.ival && !a->lit.overflow && !b->lit.overflow;
    case N_NAME: return a->name.sym && a->name.sym == b->name.sym;
    case N_BINARY:
        return a->binary.op == b->binary.op && same_expr(a->binary.a, b->binary.a) && same_expr(a->binary.b, b->binary.b);
    default: return false;
    }
}

/* The terms of a sum t1 + t2 + ... + tn as the parser nests it,
 * ((t1 + t2) + ...) + tn: node k of the chain is the sum of the first k + 1
 * terms. Returns n (at most max), the sums in sums[0..n-1] and the last
 * term of each in last[]. */
static int plus_chain(Node *e, Node **sums, Node **last, int max)
{
    int n = 0;
    Node *stack[16];
    while (e->kind == N_BINARY && e->binary.op == T_PLUS && n < 15) {
        stack[n++] = e;
        e = e->binary.a;
    }
    if (n + 1 > max)
        return 0;
    sums[0] = e, last[0] = e;
    for (int i = 0; i < n; i++)
        sums[i + 1] = stack[n - 1 - i], last[i + 1] = stack[n - 1 - i]->binary.b;
    return n + 1;
}

/* Whether fact expression f is the sum of e's terms k+1 .. n-1 (with
 * e's chain in sums/last): f's own chain has the same terms in order. */
static bool sum_suffix(Node *f, Node **last, int k, int n)
{
    Node *fs[16], *fl[16];
    int m = plus_chain(f, fs, fl, 16);
    if (m != n - 1 - k || m < 2)
        return false;
    for (int i = 0; i < m; i++)
        if (!same_expr(fl[i], last[k + 1 + i]))
            return false;
    return true;
}

/* r, the interval of e, met with what the live facts say of e: a fact of e
 * itself, or of the sum of its last terms (a + (b + c) where the fact is of
 * b + c: a's interval plus the fact's). Each is a sound interval of the
 * same value, so their meet is; its `bad` is clear when either shows every
 * operation fine (the terms are unsigned, so no partial sum passes the
 * whole). */
static Iv with_facts(Fast *F, Node *e, Iv r)
{
    Node *sums[16], *last[16];
    int n = e->binary.op == T_PLUS ? plus_chain(e, sums, last, 16) : 0;
    for (int i = 0; i < F->env.n; i++) {
        Bind *b = F->env.v[i];
        if (!b->expr)
            continue;
        if (same_expr(b->expr, e)) {
            r.v = new_iv(F, emit_fmt(F->x, "cn_iv_meet(%s, %s)", r.v, b->iv.v));
            continue;
        }
        for (int k = 0; k + 2 < n; k++)
            if (sum_suffix(b->expr, last, k, n)) {
                Iv head = iv_of(F, sums[k]);
                if (head.v && head.bounded)
                    r.v = new_iv(F, emit_fmt(F->x, "cn_iv_meet(%s, cn_iv_add(%s, %s, %s))", r.v, head.v, b->iv.v,
                                             tmax(F->x, e->ty)));
                break;
            }
    }
    return r;
}

static Iv binary_iv(Fast *F, Node *e)
{
    const char *op = op_name(e->binary.op);
    if (!op || !fast_type(e->ty) || !fast_type(e->binary.a->ty)) {
        visit(F, e->binary.a);
        visit(F, e->binary.b);
        return (Iv){NULL, false};
    }
    Iv a = iv_of(F, e->binary.a), b = iv_of(F, e->binary.b);
    if (a.v && b.v && a.bounded && b.bounded) {
        mark(F, e);
        Iv r = {new_iv(F, emit_fmt(F->x, "cn_iv_%s(%s, %s, %s)", op, a.v, b.v, tmax(F->x, e->ty))), true};
        return with_facts(F, e, r);
    }
    root(F, a);
    root(F, b);
    return (Iv){NULL, false};
}

/* The length of a view named by base, at launch: a shared array's constant,
 * or a captured view's n. NULL when unknown. */
static const char *view_len(Fast *F, Node *base)
{
    if (base->kind != N_NAME || !base->name.sym || !base->ty || base->ty->kind != TY_VIEW)
        return NULL;
    Sym *s = base->name.sym;
    int64_t n;
    if (base->ty->shared && s->decl && (s->decl->kind == N_SHARED || s->decl->kind == N_PIPELINE) && s->ty && s->ty->extent &&
        sym_const(F->x->a, s->ty->extent, &n) && n >= 0)
        return emit_fmt(F->x, "%lldu", (long long)n);
    if (ptrset_has(&F->caps->used_set, s) && !ptrset_has(&F->caps->declared_set, s) && !ptrset_has(&F->outside_bad, s) &&
        s->cname)
        return emit_fmt(F->x, "%s.%s.n", F->args, s->cname);
    return NULL;
}

static void index_iv(Fast *F, Node *e)
{
    visit(F, e->index.base);
    Iv i = iv_of(F, e->index.index);
    const char *len = view_len(F, e->index.base);
    if (i.v && i.bounded && len) {
        mark(F, e);
        require(F, emit_fmt(F->x, "cn_iv_below(%s, %s)", i.v, len));
    } else {
        root(F, i);
    }
}

/* min(a, b) and max(a, b) of unsigned integers: the bounds' min or max;
 * neither can fail, so nothing is marked for them. */
static Iv minmax_iv(Fast *F, Node *e)
{
    Node *a = e->call.args.v[0], *b = e->call.args.v[1];
    Iv ia = iv_of(F, a), ib = iv_of(F, b);
    if (ia.v && ib.v && ia.bounded && ib.bounded)
        return (Iv){new_iv(F, emit_fmt(F->x, "cn_iv_%s(%s, %s)", e->call.builtin == B_MIN ? "min" : "max", ia.v, ib.v)),
                    true};
    root(F, ia);
    root(F, ib);
    return (Iv){NULL, false};
}

static bool is_minmax(const Node *e)
{
    return e->kind == N_CALL && e->call.ck == CALL_BUILTIN && (e->call.builtin == B_MIN || e->call.builtin == B_MAX) &&
           e->call.args.n == 2 && fast_type(e->ty) && fast_type(((Node *)e->call.args.v[0])->ty) &&
           fast_type(((Node *)e->call.args.v[1])->ty);
}

/* The interval of an integer expression (NULL when it is none we follow);
 * any other expression is visited for the indices and arithmetic in it. */
static Iv iv_of(Fast *F, Node *e)
{
    if (!e)
        return (Iv){NULL, false};
    switch (e->kind) {
    case N_INT:
        if (!fast_type(e->ty) || e->lit.overflow)
            return (Iv){NULL, false};
        return (Iv){new_iv(F, emit_fmt(F->x, "cn_iv_k(%lluu)", (unsigned long long)e->lit.ival)), true};
    case N_NAME: return name_iv(F, e);
    case N_BINARY: return binary_iv(F, e);
    case N_INDEX: index_iv(F, e); return (Iv){NULL, false};
    case N_CALL:
        if (is_minmax(e))
            return minmax_iv(F, e);
        visit(F, e);
        return (Iv){NULL, false};
    default: visit(F, e); return (Iv){NULL, false};
    }
}

static Node *visit_child(Node *c, WalkClass cls, void *ctx)
{
    if (c && (cls & WALK_CODE))
        root(ctx, iv_of(ctx, c));
    return c;
}

/* Every child of a node that is not itself an integer operation. */
static void visit(Fast *F, Node *e)
{
    if (!e)
        return;
    if (e->kind == N_BINARY || e->kind == N_INDEX || e->kind == N_INT || e->kind == N_NAME) {
        root(F, iv_of(F, e));
        return;
    }
    walk_children(e, visit_child, F);
    if (e->kind == N_CALL && call_lends(e)) /* a local lent to a call may come back changed */
        for (int i = 0; i < e->call.args.n; i++) {
            Node *a = e->call.args.v[i];
            if (a->kind == N_NAME && a->name.sym && a->name.sym->kind == SYM_LOCAL)
                forget(F, a->name.sym);
        }
}

/* ------------------------------------------------------------ conditions */

static const char *turned(const char *how)
{
    return !strcmp(how, "lt") ? "gt" : !strcmp(how, "le") ? "ge" : !strcmp(how, "gt") ? "lt" : "le";
}

/* A fact: in the scope a condition guards, the integer expression x
 * (an operation, not a name) is `how` bound. */
static void fact(Fast *F, Node *x, const char *how, Node *bound)
{
    if (x->kind != N_BINARY || !fast_type(x->ty) || !fast_type(bound->ty))
        return;
    Iv xi = iv_of(F, x), bi = iv_of(F, bound); /* their operations were required where the condition was visited */
    if (!xi.v || !xi.bounded || !bi.v || !bi.bounded)
        return;
    Bind *b = arena_alloc(F->x->a, sizeof *b);
    b->sym = NULL;
    b->iv = (Iv){new_iv(F, emit_fmt(F->x, "cn_iv_%s(%s, %s)", how, xi.v, bi.v)), true};
    b->expr = x;
    vec_push(F->x->a, &F->env, b);
}

/* Inside what cond guards: each conjunct v < e (and kin) narrows v, and
 * where `facts` (an if's condition) one whose side is an operation states
 * a fact of it. */
static void narrow(Fast *F, Node *c, bool facts)
{
    if (!c || c->kind != N_BINARY)
        return;
    TokKind op = c->binary.op;
    if (op == T_ANDAND) {
        narrow(F, c->binary.a, facts);
        narrow(F, c->binary.b, facts);
        return;
    }
    Node *v = c->binary.a, *e = c->binary.b;
    const char *how = op == T_LT ? "lt" : op == T_LE ? "le" : op == T_GT ? "gt" : op == T_GE ? "ge" : NULL;
    if (!how)
        return;
    if (facts) {
        fact(F, v, how, e);
        fact(F, e, turned(how), v);
    }
    if (v->kind != N_NAME) { /* e OP v: turned around */
        Node *t = v;
        v = e;
        e = t;
        how = turned(how);
    }
    if (v->kind != N_NAME || !v->name.sym || !fast_type(v->ty) || !fast_type(e->ty))
        return;
    Iv cur = name_iv(F, v);
    if (!cur.v)
        return;
    Iv ev = iv_of(F, e);   /* its operations were required where the condition was visited */
    if (!ev.v || !ev.bounded)
        return;
    bool bounded = cur.bounded || !strcmp(how, "lt") || !strcmp(how, "le");
    if (!cur.bounded && (!strcmp(how, "gt") || !strcmp(how, "ge")))
        return; /* a lower bound alone leaves it unbounded */
    bind(F, v->name.sym, (Iv){new_iv(F, emit_fmt(F->x, "cn_iv_%s(%s, %s)", how, cur.v, ev.v)), bounded});
}

/* ------------------------------------------------------------ statements */

static bool walk_stmt(Fast *F, Node *s);

static bool walk_block(Fast *F, Node *b)
{
    int mark0 = F->env.n;
    bool ok = true;
    for (int i = 0; i < b->block.stmts.n && ok; i++)
        ok = walk_stmt(F, b->block.stmts.v[i]);
    scope_end(F, mark0, b);
    return ok;
}

/* Every local the loop assigns is unknown throughout it. */
static void loop_forget(Fast *F, Node *body)
{
    Vec as = {0};
    assigned_in(F->x->a, body, &as);
    for (int i = 0; i < as.n; i++)
        forget(F, as.v[i]);
}

/* What a strip-mined while loop needs at emission: its variable, bound and
 * step, and the reads each copy loads before the copies run. */
struct FastLoop {
    Node *var, *bound, *step;
    Vec reads;            /* N_INDEX */
};

/* ------------------------------------------------------------ loads ahead */

/*
 * A copy's read may load before the copies run when nothing can change
 * what it reads or make it fail: an element of a ro view from outside (no
 * thread of the launch writes it: the function holds it ro, and a rw view
 * may not alias it), at an index proved in bounds (marked), made only of
 * constants, the loop's variable and values the loop never assigns nor
 * declares, and read unconditionally in a statement directly in the body:
 * not under an if, a nested loop or the right of && and ||, where the
 * proof (narrowed by a condition) would not cover it.
 */
typedef struct {
    Fast *F;
    Sym *var;
    const PtrSet *assigned, *declared;
    Vec *out;
} Reads;

static bool invariant_index(Reads *R, Node *e)
{
    switch (e->kind) {
    case N_INT: return true;
    case N_NAME:
        return e->name.sym && (e->name.sym == R->var ||
                               (!ptrset_has(R->assigned, e->name.sym) && !ptrset_has(R->declared, e->name.sym)));
    case N_BINARY: return invariant_index(R, e->binary.a) && invariant_index(R, e->binary.b);
    default: return false;
    }
}

static void reads_in(Reads *R, Node *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case N_INDEX: {
        Node *b = e->index.base;
        if (b->kind == N_NAME && b->ty && b->ty->kind == TY_VIEW && b->ty->access == ACC_RO && !b->ty->shared &&
            ptrmap_get(R->F->marks, e) && invariant_index(R, e->index.index) &&
            ptrset_has(&R->F->caps->used_set, b->name.sym) && !ptrset_has(R->assigned, b->name.sym))
            vec_push(R->F->x->a, R->out, e);
        else
            reads_in(R, e->index.index);
        return;
    }
    case N_BINARY:
        reads_in(R, e->binary.a);
        if (e->binary.op != T_ANDAND && e->binary.op != T_OROR)
            reads_in(R, e->binary.b);
        return;
    case N_UNARY: reads_in(R, e->unary.a); return;
    case N_CALL:
        for (int i = 0; i < e->call.args.n; i++)
            reads_in(R, e->call.args.v[i]);
        return;
    default: return;
    }
}

static bool declared_visit(Node *n, void *ctx)
{
    Reads *R = ctx;
    PtrSet *d = (PtrSet *)R->declared;
    if (n->kind == N_LET && n->let.sym)
        ptrset_add(R->F->x->a, d, n->let.sym);
    if ((n->kind == N_FOR) && n->loop.sym)
        ptrset_add(R->F->x->a, d, n->loop.sym);
    return true;
}

static void loads_ahead(Fast *F, Node *body, Sym *var, const PtrSet *assigned, struct FastLoop *L)
{
    PtrSet declared = {0};
    Reads R = {F, var, assigned, &declared, &L->reads};
    par_walk(body, declared_visit, &R);
    for (int i = 0; i + 1 < body->block.stmts.n; i++) {
        Node *st = body->block.stmts.v[i];
        switch (st->kind) {
        case N_LET: reads_in(&R, st->let.init); break;
        case N_ASSIGN: reads_in(&R, st->assign.rhs); break;
        case N_EXPR_STMT: reads_in(&R, st->unary.a); break;
        default: break;
        }
    }
}

static bool no_exit_visit(Node *n, void *ctx)
{
    bool *ok = ctx;
    if (n->kind == N_BREAK || n->kind == N_CONTINUE || n->kind == N_RETURN || n->kind == N_BARRIER || pipe_op_of(n) ||
        n->kind == N_COLLECT || n->kind == N_CLOSURE || (n->kind == N_CALL && n->call.ck == CALL_BUILTIN &&
                                                        n->call.builtin >= B_SHUFFLE && n->call.builtin <= B_WARP_MATCH))
        *ok = false;
    return *ok;
}

static bool names_assigned(Node *e, const PtrSet *as)
{
    if (!e)
        return false;
    if (e->kind == N_NAME)
        return ptrset_has(as, e->name.sym);
    if (e->kind == N_BINARY)
        return names_assigned(e->binary.a, as) || names_assigned(e->binary.b, as);
    return e->kind != N_INT;   /* anything else: not a plain invariant */
}

/* `while v < B { ...; v += S; }` as the fast version may unroll it. */
static void strip_loop(Fast *F, Node *w, Iv bound, Iv step)
{
    Node *c = w->loop.cond, *body = w->loop.body;
    if (!c || c->kind != N_BINARY || c->binary.op != T_LT || c->binary.a->kind != N_NAME || !body ||
        body->block.stmts.n < 2 || !bound.bounded || !step.bounded)
        return;
    Sym *v = c->binary.a->name.sym;
    Node *last = body->block.stmts.v[body->block.stmts.n - 1];
    if (!v || v->kind != SYM_LOCAL || !fast_type(v->ty) || last->kind != N_ASSIGN || last->assign.op != T_PLUSEQ ||
        last->assign.lhs->kind != N_NAME || last->assign.lhs->name.sym != v)
        return;
    bool ok = true;
    for (int i = 0; i + 1 < body->block.stmts.n && ok; i++)
        par_walk(body->block.stmts.v[i], no_exit_visit, &ok);
    Vec as = {0};
    assigned_in(F->x->a, body, &as);
    PtrSet set = {0};
    for (int i = 0; i < as.n; i++)
        ptrset_add(F->x->a, &set, as.v[i]);
    for (int i = 0; i + 1 < body->block.stmts.n && ok; i++) {
        Vec inner = {0};
        assigned_in(F->x->a, body->block.stmts.v[i], &inner);
        for (int j = 0; j < inner.n; j++)
            ok = ok && inner.v[j] != v;
    }
    if (!ok || names_assigned(c->binary.b, &set) || names_assigned(last->assign.rhs, &set))
        return;
    /* (FAST_UNROLL - 1) * S must fit: the unrolled test computes it */
    require(F, emit_fmt(F->x, "cn_iv_fine(cn_iv_mul(%s, cn_iv_k(%du), %s))", step.v, FAST_UNROLL - 1,
                        tmax(F->x, v->ty)));
    struct FastLoop *L = arena_alloc(F->x->a, sizeof *L);
    L->var = c->binary.a;
    L->bound = c->binary.b;
    L->step = last->assign.rhs;
    loads_ahead(F, body, v, &set, L);
    ptrmap_put(F->x->a, F->marks, w, L);
}

static void walk_while(Fast *F, Node *s)
{
    int m = F->env.n;
    loop_forget(F, s->loop.body);
    Node *c = s->loop.cond;
    Iv bound = {NULL, false}, step = {NULL, false};
    if (c && c->kind == N_BINARY && c->binary.op == T_LT) {
        root(F, iv_of(F, c->binary.a));
        bound = iv_of(F, c->binary.b);
        root(F, bound);
    } else {
        visit(F, c);
    }
    narrow(F, c, false); /* no facts: the copies of a strip-mined loop run past the first test */
    Node *body = s->loop.body;
    Node *last = body && body->block.stmts.n ? body->block.stmts.v[body->block.stmts.n - 1] : NULL;
    bool ok = walk_block(F, body);
    if (ok && last && last->kind == N_ASSIGN && last->assign.op == T_PLUSEQ) {
        /* the step's interval, where the loop's locals are unknown */
        int m2 = F->env.n;
        loop_forget(F, body);
        step = iv_of(F, last->assign.rhs);
        F->env.n = m2;
        strip_loop(F, s, bound, step);
    }
    scope_end(F, m, s);
}

static void walk_for(Fast *F, Node *s)
{
    Iv lo = iv_of(F, s->loop.lo), hi = iv_of(F, s->loop.hi);
    root(F, lo);
    root(F, hi);
    int m = F->env.n;
    loop_forget(F, s->loop.body);
    if (s->loop.sym && lo.v && hi.v && lo.bounded && hi.bounded && fast_type(s->loop.sym->ty))
        bind(F, s->loop.sym, (Iv){new_iv(F, emit_fmt(F->x, "cn_iv_span(%s, %s)", lo.v, hi.v)), true});
    else if (s->loop.sym)
        forget(F, s->loop.sym);
    walk_block(F, s->loop.body);
    scope_end(F, m, s);
}

static void walk_if(Fast *F, Node *s)
{
    visit(F, s->if_.cond);
    int m = F->env.n;
    narrow(F, s->if_.cond, true);
    walk_block(F, s->if_.then);
    scope_end(F, m, s->if_.then);
    if (s->if_.els) {
        if (s->if_.els->kind == N_IF)
            walk_if(F, s->if_.els);
        else
            walk_block(F, s->if_.els);
    }
}

static void walk_assign(Fast *F, Node *s)
{
    Node *lhs = s->assign.lhs;
    const char *op = s->assign.op == T_ASSIGN ? NULL : op_name(s->assign.op);
    if (lhs->kind == N_NAME && op && fast_type(lhs->ty)) {
        Iv a = name_iv(F, lhs), b = iv_of(F, s->assign.rhs);
        if (a.v && b.v && a.bounded && b.bounded) {
            mark(F, s);
            require(F, emit_fmt(F->x, "cn_iv_fine(cn_iv_%s(%s, %s, %s))", op, a.v, b.v, tmax(F->x, lhs->ty)));
        } else {
            root(F, b);
        }
    } else {
        root(F, iv_of(F, s->assign.rhs));
        if (lhs->kind == N_INDEX)
            index_iv(F, lhs);
    }
    if (lhs->kind == N_NAME && lhs->name.sym)
        forget(F, lhs->name.sym);
}

static void walk_let(Fast *F, Node *s)
{
    Iv v = iv_of(F, s->let.init);
    root(F, v);
    Sym *y = s->let.sym;
    if (!y)
        return;
    if (!s->let.mut && v.v && fast_type(y->ty))
        bind(F, y, v);
    else
        forget(F, y);
}

/* False: a statement the proofs do not follow; the region gets none. */
static bool walk_stmt(Fast *F, Node *s)
{
    switch (s->kind) {
    case N_LET: walk_let(F, s); return true;
    case N_ASSIGN: walk_assign(F, s); return true;
    case N_EXPR_STMT: case N_RETURN: visit(F, s->unary.a); return true;
    case N_IF: walk_if(F, s); return true;
    case N_FOR: walk_for(F, s); return true;
    case N_WHILE: walk_while(F, s); return true;
    case N_BLOCK: return walk_block(F, s);
    case N_SHARED: case N_PIPELINE: case N_BARRIER: case N_BREAK: case N_CONTINUE: return true;
    default: return false;
    }
}

static bool closure_visit(Node *n, void *ctx)
{
    bool *bad = ctx;
    if (n->kind == N_CLOSURE || n->kind == N_UNSAFE || n->kind == N_LOCK || n->kind == N_ASM || n->kind == N_TASK)
        *bad = true;
    return !*bad;
}

static void bind_threads(Fast *F, const Vec *syms, const Vec *exts)
{
    for (int i = 0; i < syms->n && i < 3; i++) {
        int64_t v = 1;
        sym_const(F->x->a, exts->v[i], &v);
        bind(F, syms->v[i], (Iv){new_iv(F, emit_fmt(F->x, "cn_iv_upto(%lldu)", (long long)v)), true});
    }
}

const char *fast_prove(Ex *x, Node *s, const char *args, const char **gv, Caps *caps, PtrMap *marks)
{
    bool bad = false;
    par_walk(s->coop.body, closure_visit, &bad);
    if (s->coop.finish)
        par_walk(s->coop.finish, closure_visit, &bad);
    if (bad)
        return NULL;
    Buf need = {0};
    Fast F = {x, args, marks, {0}, {0}, caps, &need};
    Vec as = {0};
    assigned_in(x->a, s->coop.body, &as);
    assigned_in(x->a, s->coop.finish, &as);
    for (int i = 0; i < as.n; i++)
        ptrset_add(x->a, &F.outside_bad, as.v[i]);
    emit_line(x, "/* the fast version's proofs: intervals of every thread's values (emit_fast.c) */");
    for (int i = 0; i < s->coop.bsyms.n && i < 3; i++)
        bind(&F, s->coop.bsyms.v[i], (Iv){new_iv(&F, emit_fmt(x, "cn_iv_upto(%s)", gv[i])), true});
    bind_threads(&F, &s->coop.tsyms, &s->coop.text);
    bool ok = walk_block(&F, s->coop.body);
    if (ok && s->coop.finish) { /* the finish: its own threads, no block */
        F.env.n = 0;
        bind_threads(&F, &s->coop.fsyms, &s->coop.fext);
        ok = walk_block(&F, s->coop.finish);
    }
    if (!ok) /* the caller then writes both versions checked (it passes no marks) */
        return NULL;
    const char *flag = emit_tmp(x, "fast");
    emit_line(x, "const bool %s = true%.*s;", flag, (int)need.n, need.s ? need.s : "");
    return flag;
}

bool fast_marked(const Ex *x, const Node *e)
{
    return x->fast && ptrmap_get(x->fast, e) != NULL;
}

const struct FastLoop *fast_loop(const Ex *x, const Node *w)
{
    return x->fast ? ptrmap_get(x->fast, w) : NULL;
}

/* Before the emitted `for (;;)` of a marked while loop, in the fast
 * version: a loop of FAST_UNROLL copies of the body that runs while the
 * last copy's v still lies below B (B - v > (FAST_UNROLL - 1) * S, which
 * the launch proved cannot overflow); the plain loop then runs what is
 * left. The copies are the body exactly, its own v += S included, so every
 * thread runs the same statements in the same order; a loop of its own
 * keeps the copies in one basic block, where their loads issue together (a
 * test inside the plain loop let the compiler merge the first copy with
 * the plain body, and a load waited before each group). */
void fast_emit_group(Ex *x, Node *w, const struct FastLoop *L)
{
    const char *ct = emit_ctype(x, L->var->ty);
    emit_line(x, "if (CN_FAST) { /* %d iterations at once while the last is sure to run (emit_fast.c) */",
              FAST_UNROLL);
    x->fn->indent++;
    const char *b = emit_tmp(x, "b"), *st = emit_tmp(x, "s");
    emit_line(x, "const %s %s = %s;", ct, b, emit_expr(x, L->bound));
    emit_line(x, "const %s %s = %s;", ct, st, emit_expr(x, L->step));
    emit_line(x, "for (;;) {");
    x->fn->indent++;
    const char *v = emit_expr(x, L->var);
    emit_line(x, "if (!(%s < %s && %s - %s > (%s)%du * %s))", v, b, b, v, ct, FAST_UNROLL - 1, st);
    emit_line(x, "    break;");
    /* every copy's reads first, at v + k * S (below B: no overflow), so the
     * loads are in flight together; then the copies, which use them */
    PtrMap *pre = arena_alloc(x->a, sizeof *pre * FAST_UNROLL);
    Sym *var = L->var->name.sym;
    const char *cname = var->cname;
    for (int k = 0; k < FAST_UNROLL && L->reads.n; k++) {
        const char *vk = emit_tmp(x, "v");
        emit_line(x, "const %s %s = %s + (%s)%du * %s;", ct, vk, v, ct, k, st);
        var->cname = vk;
        for (int j = 0; j < L->reads.n; j++) {
            Node *r = L->reads.v[j];
            const char *t = emit_tmp(x, "ld");
            emit_line(x, "const %s %s = %s;", emit_ctype(x, r->ty), t, emit_expr(x, r));
            ptrmap_put(x->a, &pre[k], r, (void *)t);
        }
        var->cname = cname;
    }
    const PtrMap *saved = x->fast_pre;
    for (int k = 0; k < FAST_UNROLL; k++) {
        x->fast_pre = L->reads.n ? &pre[k] : NULL;
        emit_line(x, "{");
        emit_block(x, w->loop.body, true);
        emit_line(x, "}");
    }
    x->fast_pre = saved;
    x->fn->indent--;
    emit_line(x, "}");
    x->fn->indent--;
    emit_line(x, "}");
}
