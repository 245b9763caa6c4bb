/*
 * coop_global.c: arrays from outside a cooperative region (devices.md,
 * "Arrays from outside the region"): E-COOP-GLOBAL and E-ATOMIC-MIXED.
 *
 * No barrier orders two blocks, so an outside element may be written by at
 * most one thread of one block, and read by another thread only if nobody
 * writes it. The body is walked once, symbolically: every block name, thread
 * name and loop counter is an unknown with its range (sym.h). A write's
 * index must then be a weighted sum of those names,
 *
 *     sum of w_n * n + c     (c the same in every thread),
 *
 * each |w_n| larger than everything the lighter terms can add up to (their
 * weights times their largest values; a condition on the path such as
 * `col < h` bounds the sub-sum it names by h - 1 when its names all count up),
 * so two threads with any name different write two elements. A block or
 * thread name the index leaves out must be pinned to one value by a
 * condition (`t == 0`, `tx == 31 && ty == 7`). A loop counter the index
 * leaves out rewrites the thread's own element. A read of an array the
 * region writes is allowed at the index of a write of the thread's own,
 * under that write's conditions. An array updated atomically is touched no
 * other way in the region (E-ATOMIC-MIXED).
 *
 * A finish is one block: its thread names follow the same rule, and it may
 * read anything the blocks wrote.
 */
#include "check.h"
#include "par.h"
#include "sym.h"
#include "wide.h"

#include <string.h>

enum { MAX_NAMES = 16, MAX_PATH = 32 };

typedef enum { GA_READ, GA_WRITE, GA_ATOMIC } GKind;

typedef struct {
    GKind kind;
    const Sym *arr;
    SForm f;              /* the element's offset in the root */
    SCond conds[MAX_PATH];
    int nconds;
    const SKey *loops[8]; /* the counters of the loops around it */
    int nloops;
    Node *node;
} GAcc;

typedef struct {
    Ctx *x;
    Arena *a;
    Node *region;
    bool finish;
    SEnv *env;
    const SKey *names[MAX_NAMES];   /* block and thread names */
    const char *what[MAX_NAMES];    /* "block" or "thread" */
    int nnames;
    SCond path[MAX_PATH];
    int npath;
    const SKey *loops[8];
    int nloops;
    Vec accs;             /* GAcc* */
    bool failed;
} Glob;

static bool outside_array(Glob *g, Node *view, const Sym **root, SForm *off)
{
    *off = sform_const(0);
    while (view && view->kind == N_SLICE) {
        SVal lo = view->slice.lo ? sym_eval(g->env, view->slice.lo) : (SVal){sform_const(0), true};
        sform_add(off, off, &lo.f, 1);
        view = view->slice.base;
    }
    const Sym *r = view_root(view);
    if (!view || !r || !r->ty || r->ty->kind != TY_VIEW || r->ty->shared)
        return false;
    if (view->kind == N_NAME && view->name.sym != r)
        *off = sform_any();   /* through a let-bound part: its start is not followed here */
    *root = r;
    return r->kind == SYM_PARAM || (r->kind == SYM_LOCAL && r->decl && r->decl->kind == N_BUFFER);
}

static void access(Glob *g, Node *at, Node *view, Node *idx, GKind k)
{
    const Sym *root;
    SForm off;
    if (!outside_array(g, view, &root, &off))
        return;
    GAcc *A = arena_alloc(g->a, sizeof *A);
    A->kind = k;
    A->arr = root;
    A->node = at;
    if (idx) {
        SVal i = sym_eval(g->env, idx);
        sform_add(&A->f, &off, &i.f, 1);
    } else {
        A->f = sform_any();   /* a whole view or a part: elements not followed */
    }
    A->nconds = g->npath;
    memcpy(A->conds, g->path, sizeof *A->conds * (size_t)g->npath);
    A->nloops = g->nloops;
    memcpy(A->loops, g->loops, sizeof *A->loops * (size_t)g->nloops);
    vec_push(g->a, &g->accs, A);
}

static void walk(Glob *g, Node *n);
static void walk_expr(Glob *g, Node *e);

/* load_wide / store_wide (wide.h): each of the K elements of x[i .. i + K]
 * an access of its own, so the one-writer rule sees every one. */
static void wide_access(Glob *g, Node *e)
{
    walk_expr(g, wide_index(e));
    walk_expr(g, wide_value(e));
    for (int64_t k = 0; k < wide_count(e); k++) {
        int before = g->accs.n;
        access(g, e, wide_view(e), wide_index(e), wide_is_store(e) ? GA_WRITE : GA_READ);
        if (g->accs.n > before) {
            GAcc *A = g->accs.v[before];
            SForm kf = sform_const(k);
            sform_add(&A->f, &A->f, &kf, 1);
        }
    }
}

static void walk_expr(Glob *g, Node *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case N_BINARY: walk_expr(g, e->binary.a); walk_expr(g, e->binary.b); return;
    case N_UNARY: walk_expr(g, e->unary.a); return;
    case N_FIELD: walk_expr(g, e->field.base); return;
    case N_INDEX:
        walk_expr(g, e->index.index);
        access(g, e, e->index.base, e->index.index, GA_READ);
        return;
    case N_SLICE:
        walk_expr(g, e->slice.lo);
        walk_expr(g, e->slice.hi);
        access(g, e, e, NULL, GA_READ);
        return;
    case N_COLLECT: walk_expr(g, e->collect.value); walk_expr(g, e->collect.keep); return;
    case N_CALL: {
        Builtin b = (Builtin)e->call.builtin;
        bool atomic = e->call.ck == CALL_BUILTIN && builtin_is_atomic(b);
        if (wide_is(e))
            return wide_access(g, e);
        Type *ft = e->call.ck == CALL_FN && e->call.callee ? e->call.callee->ty : NULL;
        for (int i = 0; i < e->call.args.n; i++) {
            Node *a = e->call.args.v[i];
            Type *pt = ft && ft->kind == TY_FN && i < ft->params.n ? ft->params.v[i] : NULL;
            if (i == 0 && atomic && a->kind == N_INDEX) {
                walk_expr(g, a->index.index);
                access(g, a, a->index.base, a->index.index, GA_ATOMIC);
            } else if ((pt && pt->kind == TY_VIEW) || (i == 0 && pipe_op_of(e))) {
                /* a view passed on, or a pipeline's fill: any of its elements */
                access(g, a, a, NULL, pt && pt->access == ACC_RW ? GA_WRITE : GA_READ);
            } else {
                walk_expr(g, a);
            }
        }
        return;
    }
    default:
        return;
    }
}

static void push_conds(Glob *g, Node *c, bool truth)
{
    if (g->npath < MAX_PATH)
        g->npath += sym_conds(g->env, c, truth, g->path + g->npath, MAX_PATH - g->npath);
}

/* A loop, once for all its iterations: a for's counter, or a while's (its
 * strides followed, `i += g * 256`), is a name the index may weigh, and one
 * it leaves out rewrites the thread's own element. */
static void walk_loop(Glob *g, Node *n)
{
    SKey *k = NULL;
    if (n->kind == N_FOR) {
        walk_expr(g, n->loop.lo);
        walk_expr(g, n->loop.hi);
        SVal lo = sym_eval(g->env, n->loop.lo), hi = sym_eval(g->env, n->loop.hi);
        senv_havoc_assigned(g->env, n->loop.body);
        k = senv_counter(g->env, n->loop.sym, &lo, &hi);
    } else {
        k = senv_while_counter(g->env, n);
        walk_expr(g, n->loop.cond);
    }
    int np = g->npath;
    if (n->kind == N_WHILE)
        push_conds(g, n->loop.cond, true);
    if (k && g->nloops < 8)
        g->loops[g->nloops++] = k;
    walk(g, n->loop.body);
    if (k && g->nloops && g->loops[g->nloops - 1] == k)
        g->nloops--;
    g->npath = np;
    senv_havoc_assigned(g->env, n->loop.body);
}

static void walk(Glob *g, Node *n)
{
    if (!n)
        return;
    switch (n->kind) {
    case N_BLOCK: case N_UNSAFE:
        for (int i = 0; i < n->block.stmts.n; i++)
            walk(g, n->block.stmts.v[i]);
        return;
    case N_LET: walk_expr(g, n->let.init); sym_let(g->env, n); return;
    case N_ASSIGN: {
        Node *lhs = n->assign.lhs;
        walk_expr(g, n->assign.rhs);
        if (lhs->kind == N_INDEX) {
            walk_expr(g, lhs->index.index);
            if (n->assign.op != T_ASSIGN)
                access(g, lhs, lhs->index.base, lhs->index.index, GA_READ);
            access(g, lhs, lhs->index.base, lhs->index.index, GA_WRITE);
        }
        sym_assign(g->env, n);
        return;
    }
    case N_EXPR_STMT: walk_expr(g, n->unary.a); if (n->unary.a) sym_lend(g->env, n->unary.a); return;
    case N_IF: {
        walk_expr(g, n->if_.cond);
        int np = g->npath, mark = senv_mark(g->env);
        push_conds(g, n->if_.cond, true);
        walk(g, n->if_.then);
        g->npath = np;
        SJoin *j = senv_join_begin(g->env, mark);
        push_conds(g, n->if_.cond, false);
        walk(g, n->if_.els);
        g->npath = np;
        senv_join_end(g->env, j, true);
        return;
    }
    case N_FOR: case N_WHILE: return walk_loop(g, n);
    default: walk_expr(g, n); return;
    }
}

/* ------------------------------------------------------------ atomic slots */

typedef struct {
    Node *body;
    const Sym *s;
    Node *found;
    int depth;
} Origin;

static Node *atomic_in(Node *body, Node *e, int depth);

static bool origin_visit(Node *n, void *c)
{
    Origin *o = c;
    if (!o->found && n->kind == N_ASSIGN && n->assign.lhs->kind == N_NAME && n->assign.lhs->name.sym == o->s)
        o->found = atomic_in(o->body, n->assign.rhs, o->depth + 1);
    return !o->found;
}

/* The atomic update e's value comes from: e itself, a part of it, or the
 * value of a local it names (its let, its assignments in body). */
static Node *atomic_in(Node *body, Node *e, int depth)
{
    if (!e || depth > 8)
        return NULL;
    switch (e->kind) {
    case N_CALL: {
        if (e->call.ck == CALL_BUILTIN && builtin_is_atomic(e->call.builtin))
            return e;
        for (int i = 0; i < e->call.args.n; i++) {
            Node *f = atomic_in(body, e->call.args.v[i], depth + 1);
            if (f)
                return f;
        }
        return NULL;
    }
    case N_BINARY: {
        Node *f = atomic_in(body, e->binary.a, depth + 1);
        return f ? f : atomic_in(body, e->binary.b, depth + 1);
    }
    case N_UNARY: return atomic_in(body, e->unary.a, depth + 1);
    case N_INDEX: return atomic_in(body, e->index.index, depth + 1);
    case N_NAME: {
        const Sym *s = e->name.sym;
        if (!s || s->kind != SYM_LOCAL || !s->decl || s->decl->kind != N_LET)
            return NULL;
        Node *f = atomic_in(body, s->decl->let.init, depth + 1);
        if (f || !s->mut)
            return f;
        Origin o = {body, s, NULL, depth};
        walk_tree(body, WALK_CODE, origin_visit, &o);
        return o.found;
    }
    default:
        return NULL;
    }
}

Node *coop_atomic_origin(Node *body, Node *e)
{
    return atomic_in(body, e, 0);
}

/* ------------------------------------------------------------ one writer */

static void refuse(Glob *g, const GAcc *A, const char *help, const char *msg)
{
    g->failed = true;
    diag_error(g->x->sink, A->node->span, E_COOP_GLOBAL, help, "%s", msg);
}

static const char *acc_str(Glob *g, const GAcc *A)
{
    return expand_expr_short(g->a, A->node, 60);
}


typedef struct {
    const SKey *n;
    SForm w;              /* |weight| */
    SForm max;            /* the name's largest value */
    bool done;
} Term;

static bool fixed_form(const SForm *f);

/* A key the same in every thread: a symbol, or an operation the core keeps
 * whole (a division, a min) whose operands are the same in every thread, as
 * the grid extent (n + 255) / 256 is. */
static bool fixed_key(const SKey *k)
{
    if (k->kind == SK_SYM)
        return true;
    return k->kind == SK_ATOM && (!k->a || fixed_form(k->a)) && (!k->b || fixed_form(k->b));
}

/* Is the form free of block, thread and loop names (the same in every
 * thread)? */
static bool fixed_form(const SForm *f)
{
    if (f->any)
        return false;
    for (int i = 0; i < f->n; i++)
        for (int j = 0; j < f->t[i].deg; j++)
            if (!fixed_key(f->t[i].v[j]))
                return false;
    return true;
}

/* f as a sum of weighted names over keys[0..nk) plus a part the same in
 * every thread: the terms with a weight (|w|, the name's largest value; a
 * name of extent 1 is always 0 and adds nothing), and the names f leaves
 * out. false: f is no such sum (a product of names, an atom of one, a
 * name whose range moves with another name). */
static bool terms_of(const SForm *f, const SKey *const *keys, int nk, Term *t, int *n, const SKey **left, int *nleft)
{
    SForm rest = *f;
    *n = *nleft = 0;
    if (f->any)
        return false;
    for (int i = 0; i < nk; i++) {
        SForm coef, r, one = sform_const(1), max;
        const SKey *k = keys[i];
        SNum lo, only;
        if (!sform_split(&rest, k, &coef, &r))
            return false;
        rest = r;
        if (coef.n == 0 && coef.k == 0) {
            left[(*nleft)++] = k;
            continue;
        }
        if (!fixed_form(&coef))
            return false;   /* a product of two names */
        if (!sform_nonneg(&coef)) {
            sform_scale(&coef, &coef, -1);
            if (!sform_nonneg(&coef))
                return false;
        }
        if (!k->lo || !k->hi || !sform_lower(k->lo, &lo) || lo < 0 || !fixed_form(k->hi))
            return false;   /* a range that moves with another name is bounded by nothing */
        sform_add(&max, k->hi, &one, -1);
        if (sform_is_const(&max, &only) && only == 0)
            continue;
        t[(*n)++] = (Term){k, coef, max, false};
    }
    return fixed_form(&rest);   /* what is left: no atom of a name, no local that differs */
}

/* Every lighter term together: each weight times its largest value, or a
 * sub-sum a path condition of A (when given) `S < B` bounds by B - 1. */
static bool rest_bound(const GAcc *A, Term *t, int n, int skip, SForm *out)
{
    bool used[MAX_NAMES + 8] = {0};
    *out = sform_const(0);
    for (int c = 0; A && c < A->nconds; c++) {
        const SCond *k = &A->conds[c];
        if (k->op != T_LT && k->op != T_LE)
            continue;
        /* d = S - B with S a sum of remaining terms at their weights */
        SForm rest = k->d;
        bool ok = true, any = false;
        bool mine[MAX_NAMES + 8] = {0};
        for (int i = 0; i < n && ok; i++) {
            if (t[i].done || i == skip || used[i])
                continue;
            SForm coef, r;
            if (!sform_split(&rest, t[i].n, &coef, &r))
                ok = false;
            else if (!(coef.n == 0 && coef.k == 0)) {
                ok = sform_equal(&coef, &t[i].w);
                mine[i] = any = true;
                rest = r;
            }
        }
        if (!ok || !any || !fixed_form(&rest))
            continue;
        /* S + rest OP 0: S <= -rest - 1 (LT) or -rest (LE) */
        SForm b;
        sform_scale(&b, &rest, -1);
        if (k->op == T_LT) {
            SForm one = sform_const(1);
            sform_add(&b, &b, &one, -1);
        }
        if (!sform_add(out, out, &b, 1))
            return false;
        for (int i = 0; i < n; i++)
            used[i] = used[i] || mine[i];
    }
    for (int i = 0; i < n; i++) {
        if (t[i].done || i == skip || used[i])
            continue;
        SForm p;
        if (!sform_mul(&p, &t[i].w, &t[i].max) || !sform_add(out, out, &p, 1))
            return false;
    }
    return true;
}

/* Two different values of the names give two different sums: the heaviest
 * first, each weight above all the lighter ones can add. */
static bool injective(const GAcc *A, Term *t, int n)
{
    for (int left = n; left > 0; left--) {
        int pick = -1;
        for (int i = 0; i < n && pick < 0; i++) {
            SForm bound, d, one = sform_const(1);
            if (t[i].done || !rest_bound(A, t, n, i, &bound))
                continue;
            if (sform_add(&d, &t[i].w, &bound, -1) && sform_add(&d, &d, &one, -1) && sform_nonneg(&d))
                pick = i;
        }
        if (pick < 0)
            return false;
        t[pick].done = true;
    }
    return true;
}

/* Is name k pinned to one value on A's path: a condition S == K with S a
 * sum of names that takes each value once (k == 0, tx == 31 && ty == 7,
 * tx + 64 * ty == 0) and K the same in every thread? */
static bool pinned(const Glob *g, const GAcc *A, const SKey *k)
{
    for (int c = 0; c < A->nconds; c++) {
        Term t[MAX_NAMES + 8];
        const SKey *left[MAX_NAMES + 8];
        int n, nleft;
        if (A->conds[c].op != T_EQ || !sform_has(&A->conds[c].d, k) ||
            !terms_of(&A->conds[c].d, g->names, g->nnames, t, &n, left, &nleft))
            continue;
        if (injective(NULL, t, n))
            return true;
    }
    return false;
}

/* Two values of name k that A's conditions let through (those naming
 * other names taken to hold), for the witness: the first two, or 0 and 1. */
static void two_values(const GAcc *A, const SKey *k, SNum *v0, SNum *v1)
{
    SNum hi = 64, found[2] = {0, 1};
    int n = 0;
    if (k->hi && sform_is_const(k->hi, &hi) && hi > 4096)
        hi = 4096;
    for (SNum v = 0; v < hi && n < 2; v++) {
        const SKey *keys[1] = {k};
        SNum vals[1] = {v};
        SAssign as = {keys, vals, 1};
        bool ok = true;
        for (int c = 0; c < A->nconds && ok; c++) {
            bool known;
            bool h = scond_holds(&A->conds[c], &as, &known);
            ok = !known || h;
        }
        if (ok)
            found[n++] = v;
    }
    *v0 = found[0];
    *v1 = n == 2 ? found[1] : found[0] + 1;
}

/* The weighted-sum rule for one write; false: refused. */
static bool one_writer(Glob *g, const GAcc *A)
{
    Node *slot = A->f.any && A->node->kind == N_INDEX
        ? coop_atomic_origin(g->finish ? g->region->coop.finish : g->region->coop.body, A->node->index.index) : NULL;
    if (slot) {
        refuse(g, A, "write outside arrays at an index made of the block's and thread's names (a static schedule); "
               "writes at the slots a counter hands out are foreign CUDA (devices.md, \"Persistent kernels\")",
               arena_printf(g->a, "%s writes %s at an index an atomic update hands out (`%s`, line %d): what an atomic "
                            "returns differs between threads, and no rule shows such writes one writer per element",
                            acc_str(g, A), A->arr->id, expand_expr_short(g->a, slot, 40), slot->span.line));
        return false;
    }
    if (A->f.any) {
        refuse(g, A, "write outside arrays element by element, at an index made of the block's and thread's names",
               arena_printf(g->a, "%s writes %s where the checker cannot follow which elements: two threads may write "
                            "one element", acc_str(g, A), A->arr->id));
        return false;
    }
    const SKey *keys[MAX_NAMES + 8], *left[MAX_NAMES + 8];
    Term t[MAX_NAMES + 8];
    int nk = 0, n, nleft;
    for (int i = 0; i < g->nnames; i++)
        keys[nk++] = g->names[i];
    for (int i = 0; i < A->nloops && nk < MAX_NAMES + 8; i++)
        keys[nk++] = A->loops[i];
    bool sum = terms_of(&A->f, keys, nk, t, &n, left, &nleft);
    for (int i = 0; sum && i < nleft; i++) {
        const SKey *k = left[i];
        int name = -1;
        for (int j = 0; j < g->nnames; j++)
            if (g->names[j] == k)
                name = j;
        SNum ext;
        if (name < 0 || pinned(g, A, k) || (k->hi && sform_is_const(k->hi, &ext) && ext <= 1))
            continue;   /* a loop the index leaves out rewrites the thread's own element; a name of
                           extent 1 (blocks b in 1) takes one value */
        SNum v0, v1;
        two_values(A, k, &v0, &v1);
        refuse(g, A, arena_printf(g->a, "put %s in the index, or write under a condition that pins it: `if %s == 0`",
                                  k->name, k->name),
               arena_printf(g->a, "%s %s = %lld and %s = %lld both write %s (%s): the index leaves %s out, and no "
                            "condition pins it to one value", g->what[name], k->name, (long long)v0, k->name,
                            (long long)v1, A->arr->id, acc_str(g, A), k->name));
        return false;
    }
    if (sum && injective(A, t, n))
        return true;
    refuse(g, A, "index outside arrays by a sum of the block, thread and loop names, each weighted above all the "
           "lighter ones add up to: `out[b * 256 + t]`",
           arena_printf(g->a, "%s writes %s at %s: the checker cannot show one writer per element (the index is no sum of "
                        "the names with each weight above what the lighter terms add up to)", acc_str(g, A),
                        A->arr->id, sform_str(g->a, &A->f)));
    return false;
}

/* A read of a written array: at the index of a write of the thread's own,
 * under that write's conditions. */
static bool own_read(const GAcc *R, const GAcc *W)
{
    if (!sform_equal(&R->f, &W->f))
        return false;
    for (int c = 0; c < W->nconds; c++) {
        bool found = false;
        for (int d = 0; d < R->nconds && !found; d++)
            found = R->conds[d].op == W->conds[c].op && sform_equal(&R->conds[d].d, &W->conds[c].d);
        if (!found)
            return false;
    }
    return true;
}

/* An index split by what moves it: a weight per block or thread name, the
 * terms with a loop counter, and the rest, the same in every thread. */
typedef struct {
    SForm w[MAX_NAMES];
    SForm loops;
    SForm fixed;
} Split;

static bool split_index(const Glob *g, const SForm *f, Split *s)
{
    SForm rest = *f;
    if (f->any)
        return false;
    for (int i = 0; i < g->nnames; i++) {
        SForm r;
        if (!sform_split(&rest, g->names[i], &s->w[i], &r) || !fixed_form(&s->w[i]))
            return false;   /* a product of two names, or an atom of one */
        rest = r;
    }
    s->loops = sform_const(0);
    s->fixed = sform_const(rest.k);
    for (int i = 0; i < rest.n; i++) {
        bool counter = false;
        for (int j = 0; j < rest.t[i].deg; j++) {
            SKeyKind k = rest.t[i].v[j]->kind;
            if (k != SK_SYM && k != SK_COUNTER)
                return false;
            counter = counter || k == SK_COUNTER;
        }
        SForm term = sform_const(0);
        term.n = 1;
        term.t[0] = rest.t[i];
        if (!sform_add(counter ? &s->loops : &s->fixed, counter ? &s->loops : &s->fixed, &term, 1))
            return false;
    }
    return true;
}

static SNum gcd(SNum a, SNum b)
{
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) {
        SNum t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Is a multiple of d other than 0 in [lo, hi]? (d = 0: only 0 is.) */
static bool nonzero_multiple_in(SNum d, SNum lo, SNum hi)
{
    if (d == 0 || lo > hi)
        return false;
    SNum m = lo >= 0 ? (lo + d - 1) / d * d : -((-lo) / d * d);   /* the least multiple >= lo */
    if (m == 0)
        m = d;
    return m <= hi;
}

/* Do both accesses hold one condition that pins name k (as pinned() says)?
 * Then a thread of each has one value of k. */
static bool pinned_alike(const Glob *g, const GAcc *X, const GAcc *Y, const SKey *k)
{
    for (int c = 0; c < X->nconds; c++) {
        const SCond *p = &X->conds[c];
        Term t[MAX_NAMES + 8];
        const SKey *left[MAX_NAMES + 8];
        int n, nleft;
        if (p->op != T_EQ || !sform_has(&p->d, k) || !terms_of(&p->d, g->names, g->nnames, t, &n, left, &nleft) ||
            !injective(NULL, t, n))
            continue;
        for (int d = 0; d < Y->nconds; d++)
            if (Y->conds[d].op == T_EQ && sform_equal(&Y->conds[d].d, &p->d))
                return true;
    }
    return false;
}

/* The names' part of a split index: the sum of each name times its weight. */
static bool names_part(const Glob *g, const Split *s, SForm *L)
{
    *L = sform_const(0);
    for (int i = 0; i < g->nnames; i++) {
        SForm key = sform_key(g->names[i]), p;
        if (!sform_mul(&p, &s->w[i], &key) || !sform_add(L, L, &p, 1))
            return false;
    }
    return true;
}

/* Where two accesses' parts L (a sum over keys: the names, and a counter
 * where counter_as_name says) are equal, do equal parts mean one thread? L
 * takes each value once (its weights, the conditions both hold), and each
 * name it leaves out is pinned alike in both, or has one value. */
static bool one_thread_where_equal(const Glob *g, const GAcc *X, const GAcc *Y, const SForm *L, const SKey **keys,
                                   int nk)
{
    Term t[MAX_NAMES + 8];
    const SKey *left[MAX_NAMES + 8];
    int n, nleft;
    if (!terms_of(L, keys, nk, t, &n, left, &nleft))
        return false;
    GAcc both = *X;   /* the conditions X and Y both hold */
    both.nconds = 0;
    for (int c = 0; c < X->nconds; c++)
        for (int d = 0; d < Y->nconds; d++)
            if (X->conds[c].op == Y->conds[d].op && sform_equal(&X->conds[c].d, &Y->conds[d].d)) {
                both.conds[both.nconds++] = X->conds[c];
                break;
            }
    if (!injective(&both, t, n))
        return false;
    for (int i = 0; i < nleft; i++) {
        SNum ext;
        if (!(left[i]->hi && sform_is_const(left[i]->hi, &ext) && ext <= 1) && !pinned_alike(g, X, Y, left[i]))
            return false;
    }
    return true;
}

/* The loop part of an index as a sum of coef * k, each counter k once with
 * a weight the same in every thread (256 * g * steps(i)): at most
 * MAX_COUNTERS of them, else false. */
enum { MAX_COUNTERS = 4 };
static bool counters_of(const SForm *loops, const SKey **k, SForm *coef, int *n)
{
    SForm rest = *loops;
    SNum r;
    if (loops->any || loops->n == 0)
        return false;
    for (*n = 0; !(sform_is_const(&rest, &r) && r == 0); (*n)++) {
        const SKey *key = NULL;
        for (int j = 0; j < rest.t[0].deg && !key; j++)
            if (rest.t[0].v[j]->kind == SK_COUNTER)
                key = rest.t[0].v[j];
        SForm left;
        if (!key || *n == MAX_COUNTERS || !sform_split(&rest, key, &coef[*n], &left) || !fixed_form(&coef[*n]))
            return false;
        k[*n] = key;
        rest = left;
    }
    return true;
}

/* An access's conditions with counter k written as key (a counter that
 * stands for both of a pair in counter_as_name). */
static bool rename_counter(GAcc *A, const SKey *k, const SForm *key)
{
    for (int c = 0; c < A->nconds; c++) {
        SForm d;
        if (sform_has(&A->conds[c].d, k)) {
            if (!sform_subst(&d, &A->conds[c].d, k, key))
                return false;
            A->conds[c].d = d;
        }
    }
    return true;
}

/* Two accesses whose indices are L + sum c_i * kx_i + F and L + sum c_i *
 * ky_i + F, their counters paired by weight (two loop nests over one range
 * each, two strides alike, or the same loops): each pair is one more name
 * of the sum, over the wider of its two counters' ranges. They meet in two
 * threads only if the sum takes a value twice over those ranges; when it
 * does not (and the names it leaves out are pinned alike), equal values
 * mean one thread and one iteration's values (the conditions both hold
 * read with the pair's counters as one). Two counters of one access
 * with one weight pair no way for sure: false. (tile128's c goes in and out
 * through two loops of two counters each: examples/tensor/tile128.cairn.) */
static bool counter_as_name(const Glob *g, const GAcc *X, const GAcc *Y, const Split *a, const Split *b)
{
    const SKey *kx[MAX_COUNTERS], *ky[MAX_COUNTERS], *keys[MAX_NAMES + MAX_COUNTERS];
    SForm cx[MAX_COUNTERS], cy[MAX_COUNTERS];
    int nx, ny;
    if (!counters_of(&a->loops, kx, cx, &nx) || !counters_of(&b->loops, ky, cy, &ny) || nx != ny)
        return false;
    SForm zf = sform_const(0), p;
    GAcc xs = *X, ys = *Y;   /* their conditions with each pair's counter as one */
    for (int i = 0; i < g->nnames; i++) {
        SForm name = sform_key(g->names[i]);
        if (!sform_mul(&p, &a->w[i], &name) || !sform_add(&zf, &zf, &p, 1))
            return false;
        keys[i] = g->names[i];
    }
    for (int i = 0; i < nx; i++) {
        int j = -1;
        for (int m = 0; m < ny; m++)
            if (sform_equal(&cx[i], &cy[m])) {
                if (j >= 0)
                    return false;   /* two of Y's counters weigh alike */
                j = m;
            }
        for (int m = 0; m < nx; m++)
            if (m != i && sform_equal(&cx[i], &cx[m]))
                return false;
        SNum xl, xh, yl, yh;
        if (j < 0 || !kx[i]->lo || !kx[i]->hi || !ky[j]->lo || !ky[j]->hi || !sform_lower(kx[i]->lo, &xl) ||
            !sform_upper(kx[i]->hi, &xh) || !sform_lower(ky[j]->lo, &yl) || !sform_upper(ky[j]->hi, &yh))
            return false;
        const SKey *k = xl <= yl && xh >= yh ? kx[i] : yl <= xl && yh >= xh ? ky[j] : NULL;
        SForm key;
        if (!k)
            return false;
        key = sform_key(k);
        if (!sform_mul(&p, &cx[i], &key) || !sform_add(&zf, &zf, &p, 1) ||
            !rename_counter(&xs, kx[i], &key) || !rename_counter(&ys, ky[j], &key))
            return false;
        keys[g->nnames + i] = k;
    }
    return one_thread_where_equal(g, &xs, &ys, &zf, keys, g->nnames + nx);
}

/* Can a thread's access X and another thread's access Y (of one array)
 * reach one element? Apart when their values lie in separate ranges; or
 * when the names weigh alike in both, L, and what else they add differs by
 * D: two threads meet only where L's difference, a multiple of the weights'
 * common divisor, is -D, so never when no such multiple lies in D's range,
 * or only 0 does and equal L means one thread (2 * i and 2 * i + 1; (b * 64
 * + t) * 8 + 3 and (b * 64 + t) * 8 + k with k < 8). Loop counters count
 * as independent in X and Y: they may be in different iterations. */
static bool apart(const Glob *g, const GAcc *X, const GAcc *Y)
{
    SNum xl, xh, yl, yh;
    if ((sform_upper(&X->f, &xh) && sform_lower(&Y->f, &yl) && xh < yl) ||
        (sform_upper(&Y->f, &yh) && sform_lower(&X->f, &xl) && yh < xl))
        return true;
    Split a, b;
    if (!split_index(g, &X->f, &a) || !split_index(g, &Y->f, &b))
        return false;
    SNum gd = 0;
    for (int i = 0; i < g->nnames; i++) {
        if (!sform_equal(&a.w[i], &b.w[i]))
            return false;
        /* a weight known only when it runs is a multiple of its terms' coefficients */
        gd = gcd(gd, a.w[i].k);
        for (int j = 0; j < a.w[i].n; j++)
            gd = gcd(gd, a.w[i].t[j].c);
    }
    SForm fd;
    SNum c0, al, ah, bl, bh, lo, hi;
    if (!sform_add(&fd, &b.fixed, &a.fixed, -1) || !sform_is_const(&fd, &c0))
        return false;
    if (c0 == 0 && counter_as_name(g, X, Y, &a, &b))
        return true;
    if (!sform_lower(&a.loops, &al) || !sform_upper(&a.loops, &ah) || !sform_lower(&b.loops, &bl) ||
        !sform_upper(&b.loops, &bh) || __builtin_sub_overflow(bl, ah, &lo) || __builtin_sub_overflow(bh, al, &hi) ||
        __builtin_add_overflow(lo, c0, &lo) || __builtin_add_overflow(hi, c0, &hi))
        return false;
    if (nonzero_multiple_in(gd, lo, hi))
        return false;
    if (lo > 0 || hi < 0)
        return true;
    SForm L;
    const SKey *keys[MAX_NAMES];
    for (int i = 0; i < g->nnames; i++)
        keys[i] = g->names[i];
    return names_part(g, &a, &L) && one_thread_where_equal(g, X, Y, &L, keys, g->nnames);
}

static void check_array(Glob *g, const Sym *arr)
{
    const GAcc *atomic = NULL, *plain = NULL;
    Vec writes = {0};
    for (int i = 0; i < g->accs.n; i++) {
        const GAcc *A = g->accs.v[i];
        if (A->arr != arr)
            continue;
        if (A->kind == GA_ATOMIC)
            atomic = atomic ? atomic : A;
        else
            plain = plain ? plain : A;
        if (A->kind == GA_WRITE)
            vec_push(g->a, &writes, (void *)A);
    }
    if (atomic && plain) {
        g->failed = true;
        diag_error(g->x->sink, plain->node->span, E_ATOMIC_MIXED, "update it atomically everywhere in the region, or split the region",
                   "%s is updated atomically (%s, line %d) and touched plainly (%s, line %d) in the cooperative region at "
                   "line %d", arr->id, acc_str(g, atomic), atomic->node->span.line, acc_str(g, plain),
                   plain->node->span.line, g->region->span.line);
        return;
    }
    for (int i = 0; i < writes.n && !g->failed; i++)
        one_writer(g, writes.v[i]);
    for (int i = 0; i < writes.n && !g->failed; i++)
        for (int j = i + 1; j < writes.n && !g->failed; j++) {
            const GAcc *A = writes.v[i], *B = writes.v[j];
            if (apart(g, A, B))
                continue;
            refuse(g, B, "let each thread write its own elements: the writes of one array at one index form, or "
                   "at forms that cannot meet (`2 * i` and `2 * i + 1`)",
                   arena_printf(g->a, "%s and %s (line %d) both write %s: a thread of one may write the element a "
                                "thread of the other writes", acc_str(g, B), acc_str(g, A), A->node->span.line,
                                arr->id));
        }
    for (int i = 0; i < g->accs.n && !g->failed && writes.n; i++) {
        const GAcc *R = g->accs.v[i];
        if (R->arr != arr || R->kind != GA_READ)
            continue;
        /* its own write's element, or an element no write reaches */
        bool own = false, away = true;
        for (int k = 0; k < writes.n && !own; k++)
            own = own_read(R, writes.v[k]);
        for (int k = 0; k < writes.n && away && !own; k++)
            away = apart(g, R, writes.v[k]);
        own = own || away;
        if (!own) {
            const GAcc *W = writes.v[0];
            refuse(g, R, "read an outside array the region writes only at the element the thread itself writes, under "
                   "the same conditions, or read it in the finish",
                   arena_printf(g->a, "%s reads %s, which the region writes (%s, line %d): another thread, of this block "
                                "or another, may write that element while it reads", acc_str(g, R), arr->id,
                                acc_str(g, W), W->node->span.line));
        }
    }
}

static void name_keys(Glob *g, const Vec *syms, const Vec *exts, const char *what)
{
    for (int i = 0; i < syms->n && g->nnames < MAX_NAMES; i++) {
        SVal e = i < exts->n ? sym_eval(g->env, exts->v[i]) : (SVal){sform_any(), true};
        g->what[g->nnames] = what;
        g->names[g->nnames++] = senv_lane(g->env, syms->v[i], &e.f);
    }
}

/* The rule for one body: the region's (block and thread names) or its
 * finish's (thread names only). */
void coop_global(Ctx *x, Arena *scratch, Node *region, bool finish)
{
    Glob g;
    memset(&g, 0, sizeof g);
    g.x = x;
    g.a = scratch;
    g.region = region;
    g.finish = finish;
    g.env = senv_new(scratch, SN_FIXED);
    if (!finish)
        name_keys(&g, &region->coop.bsyms, &region->coop.bext, "blocks");
    name_keys(&g, finish ? &region->coop.fsyms : &region->coop.tsyms, finish ? &region->coop.fext : &region->coop.text,
              "threads");
    walk(&g, finish ? region->coop.finish : region->coop.body);
    Vec arrays = {0};
    for (int i = 0; i < g.accs.n; i++) {
        const Sym *a = ((GAcc *)g.accs.v[i])->arr;
        bool seen = false;
        for (int k = 0; k < arrays.n && !seen; k++)
            seen = arrays.v[k] == a;
        if (!seen)
            vec_push(scratch, &arrays, (void *)a);
    }
    for (int k = 0; k < arrays.n && !g.failed; k++)
        check_array(&g, arrays.v[k]);
}
