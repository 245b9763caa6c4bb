/*
 * sym.c: the symbolic core (sym.h): forms, environments, evaluation.
 *
 * Requires: a checked tree (names resolved, expressions typed).
 * Guarantees: a form is exact or any; nothing it cannot represent is
 * dropped. Forms are values (a few hundred bytes) passed by pointer and
 * copied by assignment; only keys and atoms live in the arena.
 */
#include "sym.h"

#include "chain.h"
#include "layout.h"
#include "par.h"

#include <string.h>

/* ---------------------------------------------------------- environment */

typedef struct {
    const Sym *s;
    bool bound;
    SVal v;
} Bind;

typedef struct {
    Bind *b;
    bool bound;
    SVal old;
} Undo;

struct SJoin {
    int n;
    Bind **b;
    bool *bound;
    SVal *v;
    int mark;
};

struct SEnv {
    Arena *a;
    SNames names;
    PtrMap binds;             /* Sym* -> Bind* */
    PtrMap keys;              /* Sym* -> SKey*: the key made for a symbol */
    SKey **atoms;             /* atoms by operation and operands */
    int acap, an;
    Undo *log;            /* kept only while a mark is open: a binding outside every if is never undone */
    int logn, logcap;
    int marks;
    int next_id;
    bool saw_mut;             /* the last evaluation read a `let mut` from outside */
    int depth;
    SElemFixed elem_fixed;
    void *hook;
    bool elems_opaque;        /* fixed elements read are uniform unknowns, not atoms */
};

SEnv *senv_new(Arena *a, SNames names)
{
    SEnv *e = arena_alloc(a, sizeof *e);
    e->a = a;
    e->names = names;
    return e;
}

void senv_hook(SEnv *e, SElemFixed f, void *ctx)
{
    e->elem_fixed = f;
    e->hook = ctx;
}

void senv_elems_opaque(SEnv *e)
{
    e->elems_opaque = true;
}

bool senv_saw_mut(SEnv *e, bool reset)
{
    bool saw = e->saw_mut;
    if (reset)
        e->saw_mut = false;
    return saw;
}

static Bind *bind_get(SEnv *e, const Sym *s, bool make)
{
    Bind *b = ptrmap_get(&e->binds, s);
    if (b || !make)
        return b;
    b = arena_alloc(e->a, sizeof *b);
    b->s = s;
    ptrmap_put(e->a, &e->binds, s, b);
    return b;
}

static void log_push(SEnv *e, Bind *b)
{
    if (e->logn == e->logcap) {
        int cap = e->logcap ? 2 * e->logcap : 8;
        Undo *l = arena_alloc(e->a, sizeof *l * (size_t)cap);
        if (e->logn)
            memcpy(l, e->log, sizeof *l * (size_t)e->logn);
        e->log = l;
        e->logcap = cap;
    }
    e->log[e->logn++] = (Undo){b, b->bound, b->v};
}

void senv_bind(SEnv *e, const Sym *s, SVal v)
{
    if (!s)
        return;
    Bind *b = bind_get(e, s, true);
    if (e->marks)
        log_push(e, b);
    b->bound = true;
    b->v = v;
}

bool senv_lookup(SEnv *e, const Sym *s, SVal *out)
{
    Bind *b = s ? bind_get(e, s, false) : NULL;
    if (!b || !b->bound)
        return false;
    *out = b->v;
    return true;
}

int senv_mark(SEnv *e)
{
    e->marks++;
    return e->logn;
}

void senv_undo(SEnv *e, int mark)
{
    while (e->logn > mark) {
        Undo *u = &e->log[--e->logn];
        u->b->bound = u->bound;
        u->b->v = u->old;
    }
}

SJoin *senv_join_begin(SEnv *e, int mark)
{
    SJoin *j = arena_alloc(e->a, sizeof *j);
    int n = e->logn - mark;
    j->mark = mark;
    j->b = arena_alloc(e->a, sizeof *j->b * (size_t)(n + 1));
    j->bound = arena_alloc(e->a, sizeof *j->bound * (size_t)(n + 1));
    j->v = arena_alloc(e->a, sizeof *j->v * (size_t)(n + 1));
    for (int i = mark; i < e->logn; i++) {   /* each binding once: its value after the path */
        Bind *b = e->log[i].b;
        bool seen = false;
        for (int k = 0; k < j->n && !seen; k++)
            seen = j->b[k] == b;
        if (seen)
            continue;
        j->b[j->n] = b;
        j->bound[j->n] = b->bound;
        j->v[j->n++] = b->v;
    }
    senv_undo(e, mark);
    return j;
}

static SVal merge(const SVal *a, const SVal *b, bool cond_uniform)
{
    SVal m;
    bool u = a->uniform && b->uniform;
    if (sform_equal(&a->f, &b->f)) {
        m.f = a->f;
        m.uniform = u;
    } else {
        m.f = sform_any();
        m.uniform = u && cond_uniform;
    }
    return m;
}

void senv_join_end(SEnv *e, SJoin *j, bool cond_uniform)
{
    e->marks--;
    /* the bindings either path changed: the first path's are in j, the
     * second's in the log since the mark (their values at the mark are the
     * oldest undo entries) */
    int n2 = e->logn - j->mark;
    Bind **b2 = arena_alloc(e->a, sizeof *b2 * (size_t)(n2 + 1));
    SVal *at_mark = arena_alloc(e->a, sizeof *at_mark * (size_t)(n2 + 1));
    bool *bound_at_mark = arena_alloc(e->a, sizeof *bound_at_mark * (size_t)(n2 + 1));
    int m = 0;
    for (int i = j->mark; i < e->logn; i++) {
        Bind *b = e->log[i].b;
        bool seen = false;
        for (int k = 0; k < m && !seen; k++)
            seen = b2[k] == b;
        if (seen)
            continue;
        b2[m] = b;
        at_mark[m] = e->log[i].old;
        bound_at_mark[m++] = e->log[i].bound;
    }
    for (int k = 0; k < j->n; k++) {             /* changed on the first path */
        Bind *b = j->b[k];
        if (!j->bound[k])
            continue;
        SVal second = b->v;
        if (!b->bound) {
            senv_bind(e, b->s, j->v[k]);          /* declared on one path only: out of scope after */
            continue;
        }
        SVal v = merge(&j->v[k], &second, cond_uniform);
        senv_bind(e, b->s, v);
    }
    for (int k = 0; k < m; k++) {                 /* changed on the second path only */
        Bind *b = b2[k];
        bool in_first = false;
        for (int i = 0; i < j->n && !in_first; i++)
            in_first = j->b[i] == b;
        if (in_first || !b->bound || !bound_at_mark[k])
            continue;
        SVal v = merge(&at_mark[k], &b->v, cond_uniform);
        senv_bind(e, b->s, v);
    }
}

/* ----------------------------------------------------------------- keys */

static SKey *key_new(SEnv *e, SKeyKind kind, const char *name)
{
    SKey *k = arena_alloc(e->a, sizeof *k);
    k->kind = kind;
    k->id = e->next_id++;
    k->name = name;
    return k;
}

/* An integer type's range, for the key of a symbol of that type. */
static void type_range(SKey *k, const Type *t)
{
    if (!t || !type_is_int(t))
        return;
    int bits = type_bits(t);
    k->has_lo = k->has_hi = true;
    if (type_is_signed(t)) {
        k->rlo = -((SNum)1 << (bits - 1));
        k->rhi = ((SNum)1 << (bits - 1)) - 1;
    } else {
        k->rlo = 0;
        k->rhi = ((SNum)1 << bits) - 1;
    }
}

SKey *senv_key(SEnv *e, const Sym *s)
{
    SKey *k = ptrmap_get(&e->keys, s);
    if (k)
        return k;
    k = key_new(e, SK_SYM, s->id);
    k->sym = s;
    k->uniform = true;
    type_range(k, s->ty);
    ptrmap_put(e->a, &e->keys, s, k);
    return k;
}

static SForm *form_copy(SEnv *e, const SForm *f)
{
    SForm *c = arena_alloc(e->a, sizeof *c);
    *c = *f;
    return c;
}

SKey *senv_lane(SEnv *e, const Sym *lane, const SForm *extent)
{
    SKey *k = key_new(e, SK_LANE, lane && lane->id ? lane->id : "lane");
    k->sym = lane;
    SForm zero = sform_const(0);
    k->lo = form_copy(e, &zero);
    k->hi = form_copy(e, extent);
    k->uniform = false;
    if (lane)
        senv_bind(e, lane, (SVal){sform_key(k), false});
    return k;
}

SKey *senv_counter(SEnv *e, const Sym *s, const SVal *lo, const SVal *hi)
{
    SKey *k = key_new(e, SK_COUNTER, s && s->id ? s->id : "k");
    k->sym = s;
    k->lo = form_copy(e, &lo->f);
    k->hi = form_copy(e, &hi->f);
    k->uniform = lo->uniform && hi->uniform;
    if (s)
        senv_bind(e, s, (SVal){sform_key(k), k->uniform});
    return k;
}

/* The atom op(a, b): made once per operation and operands. b may be NULL
 * (an element read: sym is the view). */
static SKey *atom(SEnv *e, TokKind op, const SForm *a, const SForm *b, const Sym *view, bool uniform)
{
    for (int i = 0; i < e->an; i++) {   /* few atoms a scope: a list is enough */
        SKey *k = e->atoms[i];
        if (k->op == op && k->sym == view && sform_equal(k->a, a) && (b ? k->b && sform_equal(k->b, b) : !k->b))
            return k;
    }
    SKey *k = key_new(e, SK_ATOM, NULL);   /* named when printed */
    k->op = op;
    k->a = form_copy(e, a);
    k->b = b ? form_copy(e, b) : NULL;
    k->sym = view;
    k->uniform = uniform;
    SNum lo, hi;   /* a non-negative divisor or shift keeps a non-negative value non-negative */
    if (b && (op == T_SLASH || op == T_PERCENT || op == T_RBRACK || op == T_AMP) && sform_lower(a, &lo) && lo >= 0 &&
        sform_lower(b, &hi) && hi >= (op == T_RBRACK ? 0 : 1)) {
        k->has_lo = true;
        k->rlo = 0;
        if (sform_upper(a, &hi)) {
            k->has_hi = true;
            k->rhi = hi;
        }
    }
    if (e->an == e->acap) {
        int cap = e->acap ? 2 * e->acap : 16;
        SKey **v = arena_alloc(e->a, sizeof *v * (size_t)cap);
        if (e->an)
            memcpy(v, e->atoms, sizeof *v * (size_t)e->an);
        e->atoms = v;
        e->acap = cap;
    }
    e->atoms[e->an++] = k;
    return k;
}

/* ----------------------------------------------------------- evaluation */

static SVal val(SForm f, bool uniform) { return (SVal){f, uniform}; }
static SVal val_any(bool uniform) { return val(sform_any(), uniform); }

/* A concrete result that does not fit its node's type is no value: the
 * run traps there (or the constant is refused elsewhere). */
static SVal fit(SVal v, const Node *x)
{
    SNum k;
    if (sform_is_const(&v.f, &k) && x && x->ty && type_is_int(x->ty) && !sform_num_fits(k, x->ty))
        v.f = sform_any();
    return v;
}

static SVal eval(SEnv *e, Node *x);

/* op(a, b) where the forms have no rule: concrete when both are, else an
 * atom over the two forms. */
static SVal opaque(SEnv *e, TokKind op, const SVal *a, const SVal *b)
{
    bool u = a->uniform && b->uniform;
    if (a->f.any || b->f.any)
        return val_any(u);
    SNum x, y, r;
    if (sform_is_const(&a->f, &x) && sform_is_const(&b->f, &y))
        return sform_atom_apply(op, x, y, &r) ? val(sform_const(r), u) : val_any(u);
    if (e->names == SN_CONST_ONLY)
        return val_any(u);
    return val(sform_key(atom(e, op, &a->f, &b->f, NULL, u)), u);
}

static SVal binop(SEnv *e, TokKind op, const SVal *a, const SVal *b)
{
    SVal r;
    r.uniform = a->uniform && b->uniform;
    switch (op) {
    case T_PLUS: case T_PLUSEQ: sform_add(&r.f, &a->f, &b->f, 1); return r;
    case T_MINUS: case T_MINUSEQ: sform_add(&r.f, &a->f, &b->f, -1); return r;
    case T_STAR: case T_STAREQ: sform_mul(&r.f, &a->f, &b->f); return r;
    case T_SLASH: case T_SLASHEQ: return opaque(e, T_SLASH, a, b);
    case T_PERCENT: case T_PERCENTEQ: return opaque(e, T_PERCENT, a, b);
    case T_AMP: case T_PIPE: case T_CARET: return opaque(e, op, a, b);
    default: return val_any(r.uniform);   /* comparisons, && and ||: truth values */
    }
}

static SVal eval_chain(SEnv *e, Node *x)
{
    Spine sp;
    SVal a = eval(e, spine_of(&sp, x));
    for (int i = sp.n - 1; i >= 0; i--) {
        Node *n = sp.v[i];
        SVal b = eval(e, n->binary.b);
        a = fit(binop(e, n->binary.op, &a, &b), n);
        if (!type_is_int(n->ty) && n->ty)
            a.f = sform_any();
    }
    spine_free(&sp);
    return a;
}

/* An immutable let from outside the walked scope: its initializer's value,
 * unless that read a `let mut` (which may have changed since): then the
 * let is an unknown of its own. */
static SVal let_value(SEnv *e, const Sym *s, Node *init)
{
    if (e->depth > 48)
        return val_any(false);
    bool saw = e->saw_mut;
    e->saw_mut = false;
    e->depth++;
    SVal v = eval(e, init);
    e->depth--;
    bool mut = e->saw_mut;
    e->saw_mut = saw || mut;
    if ((mut || v.f.any) && e->names != SN_CONST_ONLY && v.uniform)
        return val(sform_key(senv_key(e, s)), true);
    return v;
}

static SVal name_value(SEnv *e, Node *x)
{
    const Sym *s = x->name.sym;
    SVal v;
    if (!s)
        return val_any(false);
    if (senv_lookup(e, s, &v))
        return v;
    if ((s->kind == SYM_CONST || s->kind == SYM_GENERIC) && s->has_value && type_is_int(s->ty))
        return val(sform_const(s->value), true);
    if (e->names == SN_CONST_ONLY || !s->ty || !type_is_int(s->ty))
        return val_any(true);
    if (s->kind == SYM_LOCAL && !s->mut && s->decl && s->decl->kind == N_LET && s->decl->let.init)
        return let_value(e, s, s->decl->let.init);
    bool by_ref = s->kind == SYM_PARAM && s->ty->kind == TY_REF;
    if (s->kind == SYM_LOCAL && s->mut) {
        e->saw_mut = true;
        if (e->names != SN_FIXED)
            return val_any(true);
    } else if (by_ref) {
        e->saw_mut = true;
        if (e->names != SN_FIXED)
            return val_any(true);
    } else if (s->kind != SYM_PARAM && s->kind != SYM_LOCAL) {
        return val_any(true);
    }
    return val(sform_key(senv_key(e, s)), true);
}

static bool args_uniform(SEnv *e, Node *x, int from)
{
    bool u = true;
    for (int i = from; i < x->call.args.n; i++)
        u = eval(e, x->call.args.v[i]).uniform && u;
    return u;
}

/* The length of a view: its type's extent, as a form. */
static SVal view_len(SEnv *e, Node *v)
{
    if (!v || !v->ty || v->ty->kind != TY_VIEW || !v->ty->extent)
        return val_any(true);
    return eval(e, v->ty->extent);
}

/* What load_wide gives: the same in every lane only where an element read
 * x[i] would be (a uniform index into a view the scope does not write),
 * asked of the hook through that element; never an integer form. */
static SVal wide_loaded(SEnv *e, Node *x)
{
    bool u = args_uniform(e, x, 0);
    if (!u || x->call.args.n < 2 || !e->elem_fixed)
        return val_any(false);
    Node *el = node_new(e->a, N_INDEX, x->span);
    el->index.base = x->call.args.v[0];
    el->index.index = x->call.args.v[1];
    return val_any(e->elem_fixed(e->hook, el));
}

static SVal eval_builtin(SEnv *e, Node *x)
{
    Vec *args = &x->call.args;
    switch ((Builtin)x->call.builtin) {
    case B_MIN: case B_MAX: case B_SHL: case B_SHR: {
        if (args->n != 2)
            return val_any(false);
        SVal a = eval(e, args->v[0]), b = eval(e, args->v[1]);
        TokKind op = x->call.builtin == B_MIN ? T_LT : x->call.builtin == B_MAX ? T_GT
                   : x->call.builtin == B_SHL ? T_LBRACK : T_RBRACK;
        return fit(opaque(e, op, &a, &b), x);
    }
    case B_LEN:
        return args->n == 1 ? view_len(e, args->v[0]) : val_any(false);
    case B_ATOMIC_ADD_WRAP: case B_ATOMIC_MIN: case B_ATOMIC_MAX: case B_ATOMIC_AND: case B_ATOMIC_OR:
    case B_ATOMIC_XOR: case B_ATOMIC_CAS: case B_ATOMIC_ADD_UNORDERED:
        args_uniform(e, x, 0);
        return val_any(false);   /* what an atomic update returns differs between lanes */
    case B_LOAD_WIDE:
        return wide_loaded(e, x);
    default:
        return val_any(args_uniform(e, x, 0));
    }
}

/* TILE.offset(i, j), SHARE.row(t, v), SHARE.col(t, v) (layout.h): their
 * value where the arguments are constants, rows(R, C)'s offset i C + j as
 * a form, anything else an unknown (the method's guard keeps (i, j) in
 * range wherever a thread goes on). Any other method is an unknown. */
static SVal eval_layout_method(SEnv *e, Node *x)
{
    Node *c = x->call.callee, *base = c && c->kind == N_FIELD ? c->field.base : NULL;
    const Sym *s = base && base->kind == N_NAME ? base->name.sym : NULL;
    if (!s || s->kind != SYM_LAYOUT || !s->layout || x->call.args.n != 2)
        return val_any(args_uniform(e, x, 0));
    SVal a = eval(e, x->call.args.v[0]), b = eval(e, x->call.args.v[1]);
    LayoutMethod m = layout_method_of(c->field.id);
    SNum ka, kb;
    int64_t v;
    if (sform_is_const(&a.f, &ka) && sform_is_const(&b.f, &kb))
        return layout_method_at(s->layout, m, ka, kb, &v) ? (SVal){sform_const(v), true} : val_any(true);
    SForm f;
    if (m == LAYOUT_M_OFFSET && s->layout->kind == LAYOUT_ROWS && sform_scale(&f, &a.f, s->layout->cols) &&
        sform_add(&f, &f, &b.f, 1))
        return fit((SVal){f, a.uniform && b.uniform}, x);
    return val_any(a.uniform && b.uniform);
}

static SVal eval_call(SEnv *e, Node *x)
{
    switch (x->call.ck) {
    case CALL_CONVERT: {
        if (x->call.args.n != 1)
            return val_any(false);
        SVal a = eval(e, x->call.args.v[0]);
        Node *from = x->call.args.v[0];
        if (!x->ty || !type_is_int(x->ty) || !from->ty || (!type_is_int(from->ty) && from->ty->kind != TY_INT_LIT))
            return val_any(a.uniform);
        return fit(a, x);
    }
    case CALL_BUILTIN: return eval_builtin(e, x);
    case CALL_MATH: return val_any(args_uniform(e, x, 0));
    case CALL_METHOD: return eval_layout_method(e, x);
    case CALL_FN: {
        /* a function with uniform arguments gives one value to every lane
         * unless it reads memory (which a lane may be writing) */
        bool u = args_uniform(e, x, 0);
        Node *fn = x->call.target;
        for (int i = 0; u && fn && i < fn->fn.params.n; i++) {
            Node *p = fn->fn.params.v[i];
            u = !(p->param.sym && p->param.sym->ty && p->param.sym->ty->kind == TY_VIEW);
        }
        return val_any(u);
    }
    default:
        args_uniform(e, x, 0);
        return val_any(false);
    }
}

static SVal eval_index(SEnv *e, Node *x)
{
    SVal i = eval(e, x->index.index);
    SVal b = x->index.base && x->index.base->ty && x->index.base->ty->kind == TY_VIEW ? val_any(true)
                                                                                     : eval(e, x->index.base);
    if (!x->index.base || !x->index.base->ty || x->index.base->ty->kind != TY_VIEW)
        return val_any(b.uniform && i.uniform);       /* an element of an Array value */
    if (!e->elem_fixed || !i.uniform || !e->elem_fixed(e->hook, x))
        return val_any(false);
    if (!x->ty || !type_is_int(x->ty) || i.f.any || e->names != SN_FIXED || e->elems_opaque)
        return val_any(true);
    /* the root view and the element's offset in it: one unknown per element */
    Node *v = x->index.base;
    SForm off = i.f;
    while (v && v->kind == N_SLICE) {
        SVal lo = v->slice.lo ? eval(e, v->slice.lo) : val(sform_const(0), true);
        if (!lo.uniform)
            return val_any(false);
        sform_add(&off, &off, &lo.f, 1);
        v = v->slice.base;
    }
    if (!v || v->kind != N_NAME || !v->name.sym || off.any)
        return val_any(true);
    return val(sform_key(atom(e, T_LBRACE, &off, NULL, v->name.sym, true)), true);
}

static SVal eval(SEnv *e, Node *x)
{
    if (!x)
        return val_any(false);
    switch (x->kind) {
    case N_INT:
        if (x->lit.overflow)
            return val_any(true);
        return fit(val(sform_const((SNum)x->lit.ival), true), x);
    case N_BOOL: case N_FLOAT: case N_STRING: case N_CLOSURE: case N_FIELD: case N_TYPE:
        return val_any(true);
    case N_NAME: return name_value(e, x);
    case N_UNARY: {
        /* -9223372036854775808: the literal alone does not fit an i64, its negation does */
        Node *lit = x->unary.a;
        SVal a = lit && lit->kind == N_INT && !lit->lit.overflow ? val(sform_const((SNum)lit->lit.ival), true)
                                                                 : eval(e, x->unary.a);
        if (x->unary.op != T_MINUS || !x->ty || !type_is_int(x->ty))
            return val_any(a.uniform);
        sform_scale(&a.f, &a.f, -1);
        return fit(a, x);
    }
    case N_BINARY: return eval_chain(e, x);
    case N_CALL: return eval_call(e, x);
    case N_INDEX: return eval_index(e, x);
    case N_SLICE:
        return val_any(eval(e, x->slice.lo).uniform && eval(e, x->slice.hi).uniform);
    default:
        return val_any(false);
    }
}

SVal sym_eval(SEnv *e, Node *x)
{
    return eval(e, x);
}

bool sym_const(Arena *a, Node *x, int64_t *out)
{
    if (!x || !x->ty || !type_is_int(x->ty))
        return false;
    SEnv e = {.a = a, .names = SN_CONST_ONLY};
    SVal v = eval(&e, x);
    SNum k;
    if (!sform_is_const(&v.f, &k) || k < INT64_MIN || k > INT64_MAX)
        return false;
    *out = (int64_t)k;
    return true;
}

/* ------------------------------------------------------------ statements */

void sym_let(SEnv *e, Node *let)
{
    if (let->let.sym)
        senv_bind(e, let->let.sym, eval(e, let->let.init));
}

/* The local an assignment or a lending changes: a name, or the Array an
 * element of it belongs to. */
static const Sym *assigned_local(Node *lhs)
{
    while (lhs && lhs->kind == N_INDEX)
        lhs = lhs->index.base;
    if (!lhs || lhs->kind != N_NAME || !lhs->name.sym || lhs->name.sym->kind != SYM_LOCAL)
        return NULL;
    return lhs->name.sym;
}

void sym_assign(SEnv *e, Node *as)
{
    Node *lhs = as->assign.lhs;
    const Sym *s = assigned_local(lhs);
    SVal r = eval(e, as->assign.rhs);
    if (!s)
        return;
    if (lhs->kind != N_NAME) {   /* written through an element: any, uniform where index and value are */
        SVal i = eval(e, lhs->index.index), old;
        bool u = r.uniform && i.uniform && (!senv_lookup(e, s, &old) || old.uniform);
        senv_bind(e, s, val_any(u));
        return;
    }
    if (as->assign.op != T_ASSIGN) {
        SVal old = eval(e, lhs);
        r = fit(binop(e, as->assign.op, &old, &r), lhs);
    }
    if (!s->ty || !type_is_int(s->ty))
        r.f = sform_any();
    senv_bind(e, s, r);
}

/* Arguments lent rw to a call change the local they name, differently in
 * each lane. */
void sym_lend(SEnv *e, Node *call)
{
    if (call->kind != N_CALL || call->call.ck != CALL_FN || !call->call.callee || !call->call.callee->ty)
        return;
    Type *ft = call->call.callee->ty;
    for (int i = 0; i < call->call.args.n && ft->kind == TY_FN && i < ft->params.n; i++) {
        Type *pt = ft->params.v[i];
        const Sym *s = pt && pt->kind == TY_REF ? assigned_local(call->call.args.v[i]) : NULL;
        if (s)
            senv_bind(e, s, val_any(false));
    }
}

typedef struct {
    SEnv *e;
    Vec found;      /* Node*: assignments and calls in the body */
} Havoc;

static bool havoc_visit(Node *n, void *c)
{
    Havoc *h = c;
    if (n->kind == N_ASSIGN || n->kind == N_CALL)
        vec_push(h->e->a, &h->found, n);
    return n->kind != N_CLOSURE;
}

void senv_havoc_assigned(SEnv *e, Node *body)
{
    Havoc h = {e, {0}};
    par_walk(body, havoc_visit, &h);
    /* every local assigned becomes any, uniform at first; then, to a fixed
     * point, non-uniform when an assignment to it has a non-uniform value */
    for (int i = 0; i < h.found.n; i++) {
        Node *n = h.found.v[i];
        const Sym *s = n->kind == N_ASSIGN ? assigned_local(n->assign.lhs) : NULL;
        SVal old;
        if (s)
            senv_bind(e, s, val_any(!senv_lookup(e, s, &old) || old.uniform));
        else if (n->kind == N_CALL)
            sym_lend(e, n);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < h.found.n; i++) {
            Node *n = h.found.v[i];
            const Sym *s = n->kind == N_ASSIGN ? assigned_local(n->assign.lhs) : NULL;
            SVal old;
            if (!s || !senv_lookup(e, s, &old) || !old.uniform)
                continue;
            bool u = eval(e, n->assign.rhs).uniform;
            if (n->assign.lhs->kind == N_INDEX)
                u = u && eval(e, n->assign.lhs->index.index).uniform;
            if (!u) {
                senv_bind(e, s, val_any(false));
                changed = true;
            }
        }
    }
}

/* ---------------------------------------------------------- while loops */

typedef struct {
    const Sym *s;
    int assigns;          /* assignments and rw lendings of s in the loop, closures too */
} Count;

static bool count_visit(Node *n, void *c)
{
    Count *k = c;
    if (n->kind == N_ASSIGN && assigned_local(n->assign.lhs) == k->s)
        k->assigns++;
    if (n->kind == N_CALL && n->call.ck == CALL_FN && n->call.callee && n->call.callee->ty &&
        n->call.callee->ty->kind == TY_FN) {
        Type *ft = n->call.callee->ty;
        for (int i = 0; i < n->call.args.n && i < ft->params.n; i++) {
            Type *pt = ft->params.v[i];
            if (pt && pt->kind == TY_REF && assigned_local(n->call.args.v[i]) == k->s)
                k->assigns++;
        }
    }
    return true;
}

/* A continue of the loop itself (not of a loop inside it). */
static bool own_continue(Node *n)
{
    if (!n)
        return false;
    switch (n->kind) {
    case N_CONTINUE: return true;
    case N_BLOCK: case N_UNSAFE:
        for (int i = 0; i < n->block.stmts.n; i++)
            if (own_continue(n->block.stmts.v[i]))
                return true;
        return false;
    case N_IF: return own_continue(n->if_.then) || own_continue(n->if_.els);
    default: return false;
    }
}

/* Does f read an element (an amount that may change between iterations)? */
static bool form_reads_elems(const SForm *f, int depth)
{
    for (int i = 0; !f->any && i < f->n; i++)
        for (int j = 0; j < f->t[i].deg; j++) {
            const SKey *k = f->t[i].v[j];
            if (k->kind != SK_ATOM)
                continue;
            if (!k->b || depth > 16 || form_reads_elems(k->a, depth + 1) || form_reads_elems(k->b, depth + 1))
                return true;
        }
    return false;
}

/* `v += S`, `v -= S`, `v = v + S`, `v = S + v`, `v = v - S`: v and S (and
 * the sign), or NULL. */
static const Sym *stride_of(Node *st, Node **amount, int *sign)
{
    if (!st || st->kind != N_ASSIGN || !st->assign.lhs || st->assign.lhs->kind != N_NAME)
        return NULL;
    const Sym *v = st->assign.lhs->name.sym;
    Node *r = st->assign.rhs;
    if (!v || v->kind != SYM_LOCAL || !v->mut || !v->ty || !type_is_int(v->ty) || !r)
        return NULL;
    *amount = r;
    *sign = 1;
    switch (st->assign.op) {
    case T_PLUSEQ: return v;
    case T_MINUSEQ: *sign = -1; return v;
    case T_ASSIGN: break;
    default: return NULL;
    }
    if (r->kind != N_BINARY || (r->binary.op != T_PLUS && r->binary.op != T_MINUS))
        return NULL;
    bool left = r->binary.a && r->binary.a->kind == N_NAME && r->binary.a->name.sym == v;
    bool right = r->binary.b && r->binary.b->kind == N_NAME && r->binary.b->name.sym == v;
    if (left) {
        *amount = r->binary.b;
        *sign = r->binary.op == T_MINUS ? -1 : 1;
        return v;
    }
    if (right && r->binary.op == T_PLUS) {
        *amount = r->binary.a;
        return v;
    }
    return NULL;
}

/* The iterations a while loop's condition lets run, once its strides are
 * bound: from each part `S * j + R < 0` (or <= 0) of it, with S a positive
 * constant and R bounded below by R0, j < (-R0) / S rounded up (a for over
 * the same progression has as many). false: no such part. */
static bool while_trips(SEnv *e, Node *cond, const SKey *j, SNum *trips)
{
    SCond parts[8];
    int n = sym_conds(e, cond, true, parts, 8);
    bool found = false;
    for (int i = 0; i < n; i++) {
        SForm coef, rest;
        SNum step, r0, lim;
        if ((parts[i].op != T_LT && parts[i].op != T_LE) || !sform_split(&parts[i].d, j, &coef, &rest) ||
            !sform_is_const(&coef, &step) || step <= 0 || !sform_lower(&rest, &r0))
            continue;
        /* S * j < -R0 (LT), <= -R0 (LE) */
        SNum room = -r0 - (parts[i].op == T_LT ? 1 : 0);
        lim = room < 0 ? 0 : room / step + 1;
        if (!found || lim < *trips)
            *trips = lim;
        found = true;
    }
    return found;
}

SKey *senv_while_counter(SEnv *e, Node *loop)
{
    Node *body = loop->loop.body;
    enum { MAX_STRIDES = 8 };
    const Sym *vs[MAX_STRIDES];
    Node *amounts[MAX_STRIDES];
    int signs[MAX_STRIDES];
    SVal starts[MAX_STRIDES];
    int n = 0;
    if (loop->kind == N_WHILE && body && (body->kind == N_BLOCK || body->kind == N_UNSAFE) && !own_continue(body))
        for (int i = 0; i < body->block.stmts.n && n < MAX_STRIDES; i++) {
            Node *amount;
            int sign;
            const Sym *v = stride_of(body->block.stmts.v[i], &amount, &sign);
            Count c = {v, 0};
            if (!v || !senv_lookup(e, v, &starts[n]))
                continue;
            walk_tree(body, WALK_CODE, count_visit, &c);   /* closures too */
            if (c.assigns != 1)
                continue;
            vs[n] = v;
            amounts[n] = amount;
            signs[n++] = sign;
        }
    senv_havoc_assigned(e, body);
    SKey *j = NULL;
    for (int i = 0; i < n; i++) {
        /* evaluated with the body's locals havocked: an amount that reads
         * one (or the local itself) is any */
        SVal step = eval(e, amounts[i]);
        SForm scaled, f;
        if (step.f.any || form_reads_elems(&step.f, 0) || !sform_scale(&step.f, &step.f, signs[i]))
            continue;
        if (!j) {
            SKey *trips = key_new(e, SK_SYM, arena_printf(e->a, "trips(%s)", vs[i]->id));
            trips->has_lo = trips->has_hi = true;
            trips->rlo = 0;
            trips->rhi = ((SNum)1 << 64) - 1;
            SForm zero = sform_const(0), hi = sform_key(trips);
            j = key_new(e, SK_COUNTER, arena_printf(e->a, "steps(%s)", vs[i]->id));
            j->lo = form_copy(e, &zero);
            j->hi = form_copy(e, &hi);
            j->uniform = true;    /* the iteration's number: the same in every thread that runs it */
        }
        SForm jf = sform_key(j);
        if (!sform_mul(&scaled, &step.f, &jf) || !sform_add(&f, &starts[i].f, &scaled, 1))
            continue;
        senv_bind(e, vs[i], val(f, starts[i].uniform && step.uniform));
    }
    SNum trips = 0;
    if (j && while_trips(e, loop->loop.cond, j, &trips)) {
        SForm hi = sform_const(trips);
        j->hi = form_copy(e, &hi);
    }
    return j;
}

bool sym_trip(SEnv *e, Node *loop, SNum *lo, SNum *count)
{
    if (loop->kind != N_FOR)
        return false;
    SVal l = eval(e, loop->loop.lo), h = eval(e, loop->loop.hi);
    SNum a, b;
    if (!sform_is_const(&l.f, &a) || !sform_is_const(&h.f, &b))
        return false;
    *lo = a;
    *count = b > a ? b - a : 0;
    return true;
}

void sym_exec(SEnv *e, Node *s)
{
    if (!s)
        return;
    switch (s->kind) {
    case N_LET: sym_let(e, s); return;
    case N_ASSIGN: sym_assign(e, s); return;
    case N_EXPR_STMT: if (s->unary.a) sym_lend(e, s->unary.a); return;
    case N_BLOCK: case N_UNSAFE:
        for (int i = 0; i < s->block.stmts.n; i++)
            sym_exec(e, s->block.stmts.v[i]);
        return;
    case N_IF: {
        SVal c = eval(e, s->if_.cond);
        int mark = senv_mark(e);
        sym_exec(e, s->if_.then);
        SJoin *j = senv_join_begin(e, mark);
        sym_exec(e, s->if_.els);
        senv_join_end(e, j, c.uniform);
        return;
    }
    case N_FOR: {
        SVal lo = eval(e, s->loop.lo), hi = eval(e, s->loop.hi);
        senv_havoc_assigned(e, s->loop.body);
        senv_counter(e, s->loop.sym, &lo, &hi);
        sym_exec(e, s->loop.body);
        senv_havoc_assigned(e, s->loop.body);   /* after the loop: any of its iterations' values */
        return;
    }
    case N_WHILE:
        senv_havoc_assigned(e, s->loop.body);
        sym_exec(e, s->loop.body);
        senv_havoc_assigned(e, s->loop.body);
        return;
    default:
        return;
    }
}

/* ------------------------------------------------------------ conditions */

static bool compare(TokKind op, SNum d)
{
    switch (op) {
    case T_LT: return d < 0;
    case T_LE: return d <= 0;
    case T_GT: return d > 0;
    case T_GE: return d >= 0;
    case T_EQ: return d == 0;
    default: return d != 0;   /* T_NE */
    }
}

bool sym_truth(SEnv *e, Node *c, bool *out)
{
    bool a, b;
    if (!c)
        return false;
    switch (c->kind) {
    case N_BOOL:
        *out = c->lit.bval;
        return true;
    case N_UNARY:
        if (c->unary.op != T_BANG || !sym_truth(e, c->unary.a, &a))
            return false;
        *out = !a;
        return true;
    case N_BINARY: {
        TokKind op = c->binary.op;
        if (op == T_ANDAND || op == T_OROR) {
            /* the right side decides only where the left one lets it run */
            if (!sym_truth(e, c->binary.a, &a))
                return false;
            if (a == (op == T_OROR)) {
                *out = a;
                return true;
            }
            if (!sym_truth(e, c->binary.b, &b))
                return false;
            *out = b;
            return true;
        }
        if (op != T_LT && op != T_LE && op != T_GT && op != T_GE && op != T_EQ && op != T_NE)
            return false;
        if (!c->binary.a || !c->binary.a->ty || !type_is_int(c->binary.a->ty))
            return false;
        SVal l = eval(e, c->binary.a), r = eval(e, c->binary.b);
        SForm d;
        SNum k;
        if (!sform_add(&d, &l.f, &r.f, -1) || !sform_is_const(&d, &k))
            return false;
        *out = compare(op, k);
        return true;
    }
    default:
        return false;
    }
}

static TokKind negate_cmp(TokKind op)
{
    switch (op) {
    case T_LT: return T_GE;
    case T_LE: return T_GT;
    case T_GT: return T_LE;
    case T_GE: return T_LT;
    case T_EQ: return T_NE;
    default: return T_EQ;   /* T_NE */
    }
}

int sym_conds(SEnv *e, Node *c, bool truth, SCond *out, int max)
{
    if (max <= 0)
        return 0;
    if (c && c->kind == N_UNARY && c->unary.op == T_BANG)
        return sym_conds(e, c->unary.a, !truth, out, max);
    if (c && c->kind == N_BINARY && ((c->binary.op == T_ANDAND && truth) || (c->binary.op == T_OROR && !truth))) {
        int n = sym_conds(e, c->binary.a, truth, out, max);
        return n + sym_conds(e, c->binary.b, truth, out + n, max - n);
    }
    out->d = sform_any();
    out->op = T_EQ;
    if (c && c->kind == N_BOOL) {
        out->d = sform_const(c->lit.bval == truth ? 0 : 1);   /* 0 == 0 holds, 1 == 0 never */
    } else if (c && c->kind == N_BINARY && c->binary.a && c->binary.a->ty && type_is_int(c->binary.a->ty)) {
        TokKind op = c->binary.op;
        if (op == T_LT || op == T_LE || op == T_GT || op == T_GE || op == T_EQ || op == T_NE) {
            SVal a = eval(e, c->binary.a), b = eval(e, c->binary.b);
            sform_add(&out->d, &a.f, &b.f, -1);
            out->op = truth ? op : negate_cmp(op);
        }
    }
    return 1;
}

bool scond_holds(const SCond *c, const SAssign *as, bool *known)
{
    SNum d;
    *known = sform_eval(&c->d, as, &d);
    return *known && compare(c->op, d);
}
