/*
 * check_call.c: calls: user functions (arity, argument types, extents,
 * aliasing, placement), generic instances, function values, conversions,
 * built-ins and std.math.
 *
 * Requires: the callee's signature resolved (check.c), expressions checked
 * by check_expr.c.
 * Guarantees: every N_CALL gets call.ck, and call.target (CALL_FN),
 * call.builtin (CALL_BUILTIN) or call.math (CALL_MATH). For each view
 * argument, call.extent_proved[i] says the checker proved its extent equal
 * to the parameter's (the emitter guards every other one at run time);
 * provably different extents are E-EXTENT. Layout declarations and their
 * methods (below, "layouts") are evaluated here too: a method is a call.
 */
#include "check.h"
#include "layout.h"
#include "sym.h"
#include "par.h"

#include <string.h>

void check_args_loose(Ctx *x, Node *e)
{
    for (int i = 0; i < e->call.args.n; i++) {
        Node *a = e->call.args.v[i];
        Sym *ls = a && a->kind == N_NAME ? scope_find(x, a->name.id, NULL) : NULL;
        if (a && a->kind == N_STRING) {
            a->ty = type_prim(TY_STRING);
        } else if (ls && ls->kind == SYM_LAYOUT) {
            /* a layout argument of a call refused already (mma_load's): evaluated, not a value */
            a->name.sym = ls;
            a->ty = layout_resolve(x, ls) ? type_prim(TY_LAYOUT) : type_error();
        } else {
            check_expr(x, a, NULL);
        }
    }
}

static Type *refuse_call(Ctx *x, Node *e, const char *what)
{
    unsupported(x, e->span, what, NULL);
    check_args_loose(x, e);
    return type_error();
}

/* ------------------------------------------------------------ extents */

/* Extents are compared on the symbolic core (sym.h): the callee's
 * parameters bound to the arguments' values, immutable names followed to
 * their values, and a `let mut` any (it may have changed since a view was
 * made from it, so it proves nothing). */

/* ---------------------------------------------------- user functions */

static const char *param_name(Node *fn, int i)
{
    if (!fn || i >= fn->fn.params.n)
        return "?";
    Node *p = fn->fn.params.v[i];
    return p && p->param.id ? p->param.id : "?";
}

static Type *check_view_arg(Ctx *x, Node *a, Type *pt, const char *fname, const char *pname)
{
    Type *at = check_expr(x, a, NULL);
    if (is_error(at))
        return at;
    if (at->kind != TY_VIEW) {
        diag_error(x->sink, a->span, E_TYPE_MISMATCH,
                   at->kind == TY_ARRAY ? "an Array is a value, not a view: hold the elements in a buffer to lend them"
                                        : "pass a view, a buffer or a part of one (x[a..b])",
                   "%s's parameter %s is %s, but %s is %s", fname, pname,
                   tstr(x, pt), estr(x, a), tstr(x, at));
        return type_error();
    }
    if (!type_equal(at->elem, pt->elem)) {
        diag_error(x->sink, a->span, E_TYPE_MISMATCH, "pass a view of the element type the parameter names",
                   "%s's parameter %s takes elements of %s, but %s holds %s", fname, pname, tstr(x, pt->elem),
                   estr(x, a), tstr(x, at->elem));
        return type_error();
    }
    if (pt->access == ACC_RW && at->access == ACC_RO) {
        diag_error(x->sink, a->span, E_TYPE_MISMATCH, "take it as rw where it comes from, or make the parameter ro",
                   "cannot lend an ro view as rw: %s is %s, and %s's parameter %s is %s", estr(x, a),
                   tstr(x, at), fname, pname, tstr(x, pt));
        return type_error();
    }
    bool place_ok = at->place == pt->place ||
                    (pt->place == PLACE_HOST && (at->place == PLACE_PINNED || at->place == PLACE_UNIFIED));
    if (!place_ok) {
        diag_error(x->sink, a->span, E_PLACEMENT, "transfer the elements to memory of the placement asked for",
                   "%s's parameter %s wants @%s memory, but %s is @%s", fname, pname, place_name(pt->place),
                   estr(x, a), place_name(at->place));
        return type_error();
    }
    return at;
}

/* rw<T>: a scalar lent by reference: a `let mut`, an rw<T> parameter, an
 * element of an rw view or of a `let mut` Array. */
static Type *check_ref_arg(Ctx *x, Node *a, Type *pt, const char *fname, const char *pname)
{
    if (a->kind != N_NAME && a->kind != N_INDEX) {
        check_expr(x, a, pt->elem);
        diag_error(x->sink, a->span, E_TYPE_MISMATCH, "store it in a `let mut` first and pass that",
                   "%s's parameter %s is %s: it takes a variable, not the value %s", fname, pname, tstr(x, pt),
                   estr(x, a));
        return type_error();
    }
    Type *at = check_expectf(x, a, pt->elem, "%s's parameter %s", fname, pname, NULL);
    if (is_error(at) || !type_equal(a->ty, pt->elem))
        return type_error();
    return place_assignable(x, a, true, "lend as rw") ? at : type_error();
}

static Type *check_arg(Ctx *x, Node *a, Type *pt, Node *fn, int i, const char *fname)
{
    const char *pname = param_name(fn, i);
    if (!a)
        return type_error();
    if (pt->kind == TY_VIEW)
        return check_view_arg(x, a, pt, fname, pname);
    if (pt->kind == TY_REF)
        return check_ref_arg(x, a, pt, fname, pname);
    return check_expectf(x, a, pt, "%s's parameter %s", fname, pname, NULL);
}

/* An extent whose operands are all known but which is no length: a
 * subtraction below zero, an overflow, a division by zero. The run would
 * stop at the call's guard; the checker can say so now. *a and *b are the
 * operands of the operation at fault, for the message. */
static Node *ext_broken(SEnv *env, Node *e, int64_t *a, int64_t *b, int depth)
{
    if (!e || e->kind != N_BINARY || depth > 64)
        return NULL;
    Node *in = ext_broken(env, e->binary.a, a, b, depth + 1);
    if (!in)
        in = ext_broken(env, e->binary.b, a, b, depth + 1);
    if (in)
        return in;
    SVal va = sym_eval(env, e->binary.a), vb = sym_eval(env, e->binary.b);
    SNum l, r;
    if (!sform_is_const(&va.f, &l) || !sform_is_const(&vb.f, &r) || l < INT64_MIN || l > INT64_MAX ||
        r < INT64_MIN || r > INT64_MAX)
        return NULL;
    *a = (int64_t)l;
    *b = (int64_t)r;
    int64_t t;
    switch (e->binary.op) {
    case T_PLUS: return __builtin_add_overflow(*a, *b, &t) ? e : NULL;
    case T_MINUS: return *a < *b ? e : NULL;
    case T_STAR: return __builtin_mul_overflow(*a, *b, &t) ? e : NULL;
    case T_SLASH: case T_PERCENT: return *b == 0 ? e : NULL;
    default: return NULL;
    }
}

/* av: the argument's extent, evaluated before the callee's parameters were
 * bound (a recursive call names the same parameters). */
static void check_extent(Ctx *x, Node *call, int i, Type *pt, const SVal *av, SEnv *env, const char *fname,
                         const char *pname)
{
    Node *a = call->call.args.v[i];
    int64_t l, r;
    Node *bad = ext_broken(env, pt->extent, &l, &r, 0);
    if (bad) {
        diag_error(x->sink, a->span, E_EXTENT, "pass arguments for which the extent is a length",
                   "%s's parameter %s:%s has no length for these arguments: %s is %lld %s %lld", fname, pname,
                   tstr(x, pt), estr(x, bad), (long long)l, tok_name(bad->binary.op), (long long)r);
        return;
    }
    SVal pv = sym_eval(env, pt->extent);
    SNum p, q;
    bool pk = sform_is_const(&pv.f, &p), ak = sform_is_const(&av->f, &q);
    if (pk && ak && p != q) {
        diag_error(x->sink, a->span, E_EXTENT,
                   arena_printf(x->a, "pass a view of %lld elements (a slice: %s[0..%lld]), or change the arguments "
                                      "its extent depends on", (long long)p, estr(x, a), (long long)p),
                   "%s has %lld elements, but %s's parameter %s:%s asks for %s = %lld", estr(x, a), (long long)q,
                   fname, pname, tstr(x, pt), estr(x, pt->extent), (long long)p);
        return;
    }
    if (sform_equal(&pv.f, &av->f))
        call->call.extent_proved[i] = true;
}

/* The witness: both arguments as written (`x[0..2]` and `x[2..4]` are two
 * parts of one buffer), and a help that fits scalars or views. */
static void report_alias(Ctx *x, Node *first, Node *second, Sym *root, const char *fname, int i, int j,
                         bool scalars)
{
    const char *a = estr(x, first), *b = estr(x, second);
    const char *what = strcmp(a, b) == 0 ? arena_printf(x->a, "`%s` is passed to %s twice", a, fname)
                                         : arena_printf(x->a, "`%s` and `%s` both reach `%s`, passed to %s", a, b,
                                                        root->id, fname);
    diag_error(x->sink, second->span, E_ALIAS,
               scalars ? "copy one into a `let mut` of its own, pass that, and store it back after the call"
                       : "pass distinct views, or copy one into a buffer first",
               "%s (arguments %d and %d), and one of them is written (rw)", what, i + 1, j + 1);
}

/* E-ALIAS: a view (or lent scalar) written through one argument may not
 * be reachable through another of the same call. Conservative: two
 * disjoint slices of one buffer count as one view. */
static void check_alias(Ctx *x, Node *call, Type *ft, const char *fname)
{
    int n = call->call.args.n;
    for (int j = 0; j < n; j++) {
        Type *pj = ft->params.v[j];
        if (pj->kind != TY_VIEW && pj->kind != TY_REF)
            continue;
        Sym *rj = view_root(call->call.args.v[j]);
        bool wj = pj->kind == TY_REF || pj->access == ACC_RW;
        for (int i = 0; i < j && rj; i++) {
            Type *pi = ft->params.v[i];
            if (pi->kind != TY_VIEW && pi->kind != TY_REF)
                continue;
            bool wi = pi->kind == TY_REF || pi->access == ACC_RW;
            if ((wi || wj) && view_root(call->call.args.v[i]) == rj) {
                report_alias(x, call->call.args.v[i], call->call.args.v[j], rj, fname, i, j,
                             pi->kind == TY_REF && pj->kind == TY_REF);
                return;
            }
        }
    }
}

static bool check_arity(Ctx *x, Node *e, Type *ft, const char *fname)
{
    if (e->call.args.n == ft->params.n)
        return true;
    diag_error(x->sink, e->span, E_CALL, arena_printf(x->a, "%s is %s", fname, tstr(x, ft)),
               "%s takes %d argument(s), but %d are given", fname, ft->params.n, e->call.args.n);
    check_args_loose(x, e);
    return false;
}

/* Each view argument's extent against its parameter's, with the callee's
 * parameters bound to the arguments' values: every value on the caller's
 * side is taken before any parameter is bound. */
static bool names_param(Node *n, void *c)
{
    PtrSet *used = ((void **)c)[0];
    Arena *a = ((void **)c)[1];
    if (n->kind == N_NAME && n->name.sym && n->name.sym->kind == SYM_PARAM)
        ptrset_add(a, used, n->name.sym);
    return true;
}

/* The common case, decided without building forms: the parameter's extent
 * is a parameter p, the argument for p is a name, and the view's extent is
 * that same name, which cannot change (f(n, x) with x:ro<T>[n] on both
 * sides). The core would give both one key. */
static bool same_name_extent(Node *fn, Node *call, Type *pt, Type *at)
{
    Node *pe = pt->extent, *ae = at->extent;
    if (!pe || !ae || pe->kind != N_NAME || ae->kind != N_NAME || !ae->name.sym)
        return false;
    const Sym *s = ae->name.sym;
    if (s->mut || (s->kind != SYM_PARAM && s->kind != SYM_LOCAL) || !s->ty || s->ty->kind == TY_REF)
        return false;
    for (int i = 0; i < fn->fn.params.n && i < call->call.args.n; i++) {
        Node *arg = call->call.args.v[i];
        if (((Node *)fn->fn.params.v[i])->param.sym == pe->name.sym)
            return arg->kind == N_NAME && arg->name.sym == s;
    }
    return false;
}

static void check_extents(Ctx *x, Node *e, Node *fn, Type *ft, Type **ats, const char *fname)
{
    int n = e->call.args.n;
    PtrSet used = {0};   /* the callee's parameters its view extents name: only their arguments are evaluated */
    void *walk[2] = {&used, x->a};
    bool views = false;
    for (int i = 0; i < n; i++) {
        Type *pt = ft->params.v[i];
        if (pt->kind != TY_VIEW || ats[i]->kind != TY_VIEW)
            continue;
        if (same_name_extent(fn, e, pt, ats[i])) {
            e->call.extent_proved[i] = true;
            continue;
        }
        views = true;
        par_walk(pt->extent, names_param, walk);
    }
    if (!views)
        return;
    ArenaMark scratch = arena_mark(x->a);   /* forms and keys die with the call's check */
    /* values in compact arrays (a form is a few hundred bytes, and a
     * program has a call every few lines) */
    SEnv *env = senv_new(x->a, SN_IMMUTABLE);
    int nv = 0, na = 0;
    for (int i = 0; i < n; i++)
        nv += ((Type *)ft->params.v[i])->kind == TY_VIEW && ats[i]->kind == TY_VIEW;
    SVal *exts = arena_alloc(x->a, sizeof *exts * (size_t)nv), *args = arena_alloc(x->a, sizeof *args * (size_t)(used.n + 1));
    for (int i = 0, k = 0; i < n; i++)
        if (((Type *)ft->params.v[i])->kind == TY_VIEW && ats[i]->kind == TY_VIEW && !e->call.extent_proved[i])
            exts[k++] = ats[i]->extent ? sym_eval(env, ats[i]->extent) : (SVal){sform_any(), true};
    for (int i = 0; i < n && i < fn->fn.params.n && na < used.n; i++)
        if (ptrset_has(&used, ((Node *)fn->fn.params.v[i])->param.sym))
            args[na++] = sym_eval(env, e->call.args.v[i]);
    for (int i = 0, k = 0; i < n && i < fn->fn.params.n && k < na; i++)
        if (ptrset_has(&used, ((Node *)fn->fn.params.v[i])->param.sym))
            senv_bind(env, ((Node *)fn->fn.params.v[i])->param.sym, args[k++]);
    for (int i = 0, k = 0; i < n; i++) {
        Type *pt = ft->params.v[i];
        if (pt->kind == TY_VIEW && ats[i]->kind == TY_VIEW && !e->call.extent_proved[i])
            check_extent(x, e, i, pt, &exts[k++], env, fname, param_name(fn, i));
    }
    arena_release(x->a, scratch);
}

static void check_fn_args(Ctx *x, Node *e, Node *fn, Type *ft, const char *fname)
{
    if (!check_arity(x, e, ft, fname))
        return;
    int n = e->call.args.n;
    Type **ats = arena_alloc(x->a, sizeof *ats * (size_t)(n + 1));
    bool ok = true;
    for (int i = 0; i < n; i++) {
        ats[i] = check_arg(x, e->call.args.v[i], ft->params.v[i], fn, i, fname);
        ok &= !is_error(ats[i]);
    }
    e->call.extent_proved = arena_alloc(x->a, sizeof(bool) * (size_t)(n + 1));
    if (!ok || !fn)
        return;
    check_extents(x, e, fn, ft, ats, fname);
    check_alias(x, e, ft, fname);
}

static Type *call_generic(Ctx *x, Node *e, Sym *s, Node **target)
{
    if (!e->call.has_targs) {
        diag_error(x->sink, e->span, E_CALL,
                   arena_printf(x->a, "give its compile-time arguments: %s[..](..)", s->id),
                   "%s is generic: its compile-time parameters need values", s->id);
        return type_error();
    }
    Node *inst = instantiate(x, s, e);
    if (inst) {
        *target = inst;
        return inst->fn.sym->ty;
    }
    /* Inside a generic checked with unknown parameters: check the
     * arguments against the generic signature itself. */
    return x->generic_unknown && !is_error(s->ty) ? s->ty : type_error();
}

static Type *call_fn(Ctx *x, Node *e, Sym *s)
{
    Node *target = s->decl;
    Type *ft = s->ty;
    e->call.ck = CALL_FN;
    if (!target || !ft || is_error(ft)) {   /* f_grad, kernels: refused elsewhere */
        check_args_loose(x, e);
        return type_error();
    }
    if (target->fn.generics.n && !target->fn.is_instance) {
        ft = call_generic(x, e, s, &target);
        if (is_error(ft)) {
            check_args_loose(x, e);
            return ft;
        }
    } else if (e->call.has_targs) {
        diag_error(x->sink, e->span, E_CALL, arena_printf(x->a, "call it as %s(..)", s->id),
                   "%s takes no compile-time arguments", s->id);
        check_args_loose(x, e);
        return type_error();
    }
    e->call.target = target;
    check_fn_args(x, e, target, ft, s->id);
    return ft->ret;
}

/* f(x) where f is a function value: a local, a parameter, a closure. */
static Type *call_value(Ctx *x, Node *e, Type *ft)
{
    e->call.ck = CALL_VALUE;
    if (is_error(ft)) {
        check_args_loose(x, e);
        return ft;
    }
    if (ft->kind != TY_FN) {
        diag_error(x->sink, e->call.callee->span, E_CALL, "call a function, or a binding of type fn(..) -> R",
                   "%s is %s, not a function", estr(x, e->call.callee),
                   tstr(x, ft));
        check_args_loose(x, e);
        return type_error();
    }
    if (!check_arity(x, e, ft, e->call.callee->kind == N_NAME ? e->call.callee->name.id : "this function value"))
        return ft->ret;
    for (int i = 0; i < e->call.args.n; i++)
        check_expectf(x, e->call.args.v[i], ft->params.v[i], "an argument of %s%s", "", NULL, e->call.callee);
    return ft->ret;
}

/* -------------------------------------------------------- conversions */

static void convert_numerics(Ctx *x, Type *from, Type *to)
{
    if (type_is_int(from) && type_is_float(to)) {
        int mant = to->kind == TY_F32 ? 24 : 53;
        if (type_bits(from) - (type_is_signed(from) ? 1 : 0) > mant)
            numerics_add(x, "convert", from, to, "nearest-even");
    } else if (type_is_float(from) && type_is_int(to)) {
        numerics_add(x, "convert", from, to, "toward-zero");
    } else if (from->kind == TY_F64 && to->kind == TY_F32) {
        numerics_add(x, "convert", from, to, "nearest-even");
    }
}

/* What a storage float's conversion does past the range (numerics.md):
 * infinity, except in f8e4m3, which has none and traps. */
static const char *storage_overflow(const Type *to)
{
    return to->kind == TY_F8E4M3 ? "trap" : "infinity";
}

/* A conversion from or to a storage float. Widening to f32 or f64 is exact;
 * narrowing from f32 or f64 rounds once, to nearest even. An integer, a
 * bool or another storage float goes through f32 first (E-CAST), and so
 * does a storage float on its way to an integer or a bool. */
static Type *storage_convert(Ctx *x, Node *e, Node *a, Type *from, Type *to)
{
    if (from == to || (type_is_storage_float(from) && type_is_float(to)))
        return to;
    if (type_is_float(from)) {
        numerics_add_overflow(x, "convert", from, to, "nearest-even", storage_overflow(to));
        return to;
    }
    const char *help;
    if (type_is_storage_float(from) && to->kind == TY_BOOL)
        help = arena_printf(x->a, "widen and compare: `f32(%s) != 0.0`", estr(x, a));
    else if (type_is_storage_float(from))
        help = arena_printf(x->a, "convert through f32: %s(f32(%s))", tstr(x, to), estr(x, a));
    else if (a->kind == N_INT || (a->kind == N_UNARY && a->unary.a && a->unary.a->kind == N_INT))
        help = arena_printf(x->a, "write a float literal: %s(%s.0)", tstr(x, to), estr(x, a));
    else if (type_is_int(from))
        help = arena_printf(x->a, "convert through f32: %s(f32(%s))", tstr(x, to), estr(x, a));
    else if (from->kind == TY_BOOL)
        help = arena_printf(x->a, "go through an integer and f32: %s(f32(u8(%s)))", tstr(x, to), estr(x, a));
    else if (from->kind == TY_VIEW || from->kind == TY_ARRAY)
        help = arena_printf(x->a, "convert one element: %s(%s[i])", tstr(x, to), estr(x, a));
    else
        help = "a storage float converts from f32 or f64, and widens to them";
    diag_error(x->sink, e->span, E_CAST, help, "cannot convert %s (%s) to %s%s", estr(x, a), tstr(x, from),
               tstr(x, to),
               type_is_storage_float(from) && type_is_storage_float(to) ? ": storage floats convert only through f32"
               : type_is_int(from) || type_is_int(to) ? ": a storage float and an integer convert only through f32"
                                                      : "");
    return type_error();
}

/* T(x) for a scalar type T: between integers (guarded at run time when it
 * does not fit), int <-> float, f32 <-> f64, bool -> int. */
static Type *check_convert(Ctx *x, Node *e, Type *to)
{
    e->call.ck = CALL_CONVERT;
    if (e->call.args.n != 1 || e->call.has_targs) {
        diag_error(x->sink, e->span, E_CALL, arena_printf(x->a, "write %s(x)", tstr(x, to)),
                   "a conversion to %s takes one value, %d given", tstr(x, to), e->call.args.n);
        check_args_loose(x, e);
        return type_error();
    }
    Node *a = e->call.args.v[0];
    Type *want = NULL;
    if (is_untyped(a) && ((type_is_int(to) && !untyped_is_float(a)) || (type_is_float(to) && untyped_is_float(a))))
        want = to;
    Type *from = check_expr(x, a, want);
    if (is_error(from))
        return to;
    if (type_is_storage_float(to) || type_is_storage_float(from))
        return storage_convert(x, e, a, from, to);
    bool ok = type_is_scalar(from) &&
              ((type_is_int(to) && from->kind != TY_BOOL) || (type_is_int(to) && from->kind == TY_BOOL) ||
               (type_is_float(to) && from->kind != TY_BOOL) || (to->kind == TY_BOOL && from->kind == TY_BOOL));
    if (!ok) {
        const char *help = to->kind == TY_BOOL && type_is_scalar(from)
                               ? arena_printf(x->a, "compare instead: `%s != 0`", estr(x, a))
                           : from->kind == TY_BOOL ? arena_printf(x->a, "go through an integer: %s(u8(%s))",
                                                                  tstr(x, to), estr(x, a))
                           : from->kind == TY_VIEW || from->kind == TY_ARRAY
                               ? arena_printf(x->a, "convert one element: %s(%s[i])", tstr(x, to), estr(x, a))
                               : "only scalars (integers, floats, bools) convert";
        diag_error(x->sink, e->span, E_CAST, help, "cannot convert %s (%s) to %s", estr(x, a), tstr(x, from),
                   tstr(x, to));
        return type_error();
    }
    convert_numerics(x, from, to);
    return to;
}

/* Array[T, K](): a zeroed array of K elements. */
static Type *check_construct(Ctx *x, Node *e)
{
    e->call.ck = CALL_CONSTRUCT;
    Node t = {.kind = N_TYPE, .span = e->span};
    t.type.id = "Array";
    t.type.args = e->call.targs;
    Type *at = e->call.has_targs ? resolve_type(x, &t) : type_error();
    if (!e->call.has_targs)
        diag_error(x->sink, e->span, E_CALL, "write Array[T, K]()", "Array needs its element type and count");
    if (e->call.args.n) {
        diag_error(x->sink, e->span, E_CALL, "write Array[T, K]() and assign the elements",
                   "Array[T, K]() takes no arguments (it starts zeroed), %d given", e->call.args.n);
        check_args_loose(x, e);
        return type_error();
    }
    return at;
}

/* ------------------------------------------------------------ std.math */

/* std.math's functions. f32 and f64 give the accuracy the portable
 * implementation (runtime/cairn_math.h) claims for that type, as the receipt
 * states it, or NULL where there is none: such a call is the host's C
 * library, allowed only in sequential host code (E-PARALLEL-CALL in a lane,
 * a thread or on the device). docs/numerics.md gives the methods and the
 * evidence for each claim. */
static const MathFn math_fns[] = {
    {"exp", 1, "correctly rounded", "<= 0.501 ulp"},
    {"exp2", 1, "correctly rounded", "<= 0.501 ulp"},
    {"expm1", 1, "correctly rounded", "<= 0.501 ulp"},
    {"log", 1, "correctly rounded", "<= 0.501 ulp"},
    {"log2", 1, "correctly rounded", "<= 0.501 ulp"},
    {"log1p", 1, "correctly rounded", "<= 0.501 ulp"},
    {"sin", 1, "correctly rounded", "<= 0.51 ulp"},
    {"cos", 1, "correctly rounded", "<= 0.51 ulp"},
    {"tanh", 1, "correctly rounded", "<= 0.501 ulp"},
    {"erf", 1, "correctly rounded", "<= 0.501 ulp"},
    {"pow", 2, "correctly rounded", "<= 0.501 ulp"},
    {"atan2", 2, "correctly rounded", "<= 0.501 ulp"},
    {"log10", 1, NULL, NULL},
    {"tan", 1, NULL, NULL},
    {"asin", 1, NULL, NULL},
    {"acos", 1, NULL, NULL},
    {"atan", 1, "correctly rounded", "<= 0.501 ulp"},
    {"sinh", 1, NULL, NULL},
    {"cosh", 1, NULL, NULL},
    {"cbrt", 1, NULL, NULL},
    {"hypot", 2, NULL, NULL},
};

const MathFn *math_fn(const char *id)
{
    for (size_t i = 0; i < sizeof math_fns / sizeof *math_fns; i++)
        if (id && strcmp(id, math_fns[i].id) == 0)
            return &math_fns[i];
    return NULL;
}

/* The number of arguments of std.math.ID, 0 when there is no such function. */
int math_arity(const char *id)
{
    const MathFn *m = math_fn(id);
    return m ? m->arity : 0;
}

/* What the portable std.math.ID on t claims ("correctly rounded", "<= 1 ulp"),
 * NULL when it has no portable implementation for t. */
const char *math_claim(const char *id, const Type *t)
{
    const MathFn *m = math_fn(id);
    if (!m || !t)
        return NULL;
    return t->kind == TY_F32 ? m->f32 : t->kind == TY_F64 ? m->f64 : NULL;
}

/* "exp, exp2, ..., atan2": the functions a lane may call (both types). */
const char *math_portable_names(Arena *a)
{
    const char *s = "";
    for (size_t i = 0; i < sizeof math_fns / sizeof *math_fns; i++)
        if (math_fns[i].f32 && math_fns[i].f64)
            s = arena_printf(a, "%s%s%s", s, *s ? ", " : "", math_fns[i].id);
    return s;
}

static bool is_std_math(Ctx *x, Node *callee)
{
    Node *b = callee->field.base;
    if (!b || b->kind != N_FIELD || !b->field.id || strcmp(b->field.id, "math") != 0)
        return false;
    Node *s = b->field.base;
    if (!s || s->kind != N_NAME || !s->name.id || strcmp(s->name.id, "std") != 0)
        return false;
    Sym *y = scope_find(x, "std", NULL);
    if (!y || y->kind != SYM_BUILTIN)
        return false;
    s->name.sym = y;
    s->ty = b->ty = callee->ty = type_prim(TY_VOID);
    return true;
}

static Type *check_math(Ctx *x, Node *e, Type *expected)
{
    Node *callee = e->call.callee;
    const char *id = callee->field.id ? callee->field.id : "?";
    int n = math_arity(id);
    e->call.ck = CALL_MATH;
    e->call.math = id;
    if (!n) {
        diag_error(x->sink, callee->span, E_NAME, "std.math has exp log exp2 log2 log10 sin cos tan asin acos atan "
                   "atan2 sinh cosh tanh pow hypot cbrt expm1 log1p erf", "std.math has no function `%s`", id);
        check_args_loose(x, e);
        return type_error();
    }
    if (e->call.args.n != n) {
        diag_error(x->sink, e->span, E_CALL, arena_printf(x->a, n == 1 ? "pass one argument: std.math.%s(x)" : "pass two arguments: std.math.%s(x, y)", id),
                   "std.math.%s takes %d argument(s), %d given", id, n,
                   e->call.args.n);
        check_args_loose(x, e);
        return type_error();
    }
    Type *ts[2];
    Type *t = check_same(x, (Node **)e->call.args.v, n, type_is_float(expected) ? expected : type_prim(TY_F64), ts);
    for (int i = 0; i < n; i++) {
        if (is_error(ts[i]))
            return type_error();
        if (!type_is_float(ts[i]) || !type_equal(ts[i], t)) {
            Node *a = e->call.args.v[i];
            diag_error(x->sink, a->span, E_TYPE_MISMATCH, arena_printf(x->a, "convert: f64(%s)", estr(x, a)),
                       "std.math.%s takes f32 or f64 (all arguments alike), and %s is %s", id, estr(x, a),
                       tstr(x, ts[i]));
            return type_error();
        }
    }
    numerics_add_math(x, id, t, math_claim(id, t));
    return t;
}

/* fill_rows' pitch may name the stage's layout instead: rows(R, C), whose
 * rows are C apart, or a swizzle of it, through which each element lands
 * (a swizzled tile for mma.sync's ldmatrix). True when argument 6 names a
 * layout, reported or not; false for a number, checked as one. */
static bool fill_layout(Ctx *x, Node *e, Sym *p)
{
    Node *ln = e->call.args.v[5];
    Sym *ls = ln->kind == N_NAME ? scope_find(x, ln->name.id, NULL) : NULL;
    if (!ls || ls->kind != SYM_LAYOUT)
        return false;
    ln->name.sym = ls;
    const Layout *L = layout_resolve(x, ls);
    ln->ty = L ? type_prim(TY_LAYOUT) : type_error();
    if (!L)
        return true;
    const Layout *base = L->kind == LAYOUT_SWIZZLE ? L->base : L;
    int64_t n = 0;
    if (L->kind == LAYOUT_SPREAD || base->kind != LAYOUT_ROWS) {
        diag_error(x->sink, ln->span, E_LAYOUT_CONSUMER, "name rows(R, C), or one swizzle of it",
                   "%s is %s, and %s.fill_rows places a tile through rows(R, C) or a swizzle of one", ln->name.id,
                   L->kind == LAYOUT_SPREAD ? "a spread, a warp's share of a tile" : "a swizzle of a swizzle", p->id);
    } else if (sym_const(x->a, p->ty->extent, &n) && n != layout_cosize(L)) {
        diag_error(x->sink, ln->span, E_LAYOUT_CONSUMER,
                   arena_printf(x->a, "give the layout %lld elements, or the pipeline stages of %lld",
                                (long long)n, (long long)layout_cosize(L)),
                   "%s places %lld elements and a stage of %s holds %lld: a fill through a layout fills its whole stage",
                   ln->name.id, (long long)layout_cosize(L), p->id, (long long)n);
    }
    return true;
}

/* p.fill(x, start, count) and p.fill_rows(x, start, stride, rows, cols,
 * pitch, pad): X from outside the region, where the region runs, of the
 * stage's element type; the numbers usize, the pad a value of the element
 * type. The stage rules are check_stage.c's. */
static void check_fill(Ctx *x, Node *e, Sym *p)
{
    Node *src = e->call.args.v[0];
    Type *st = check_expr(x, src, NULL);
    bool rows = e->call.builtin == PIPE_FILL_ROWS;
    const char *form = rows ? "fill_rows(x, start, stride, rows, cols, pitch, pad)" : "fill(x, start, count)";
    for (int i = 1; i < e->call.args.n; i++) {
        if (rows && i == 5 && fill_layout(x, e, p))
            continue;
        if (rows && i == 6)
            check_expect(x, e->call.args.v[i], p->ty->elem, "a fill's pad (a value of the stage's element type)");
        else
            check_expect(x, e->call.args.v[i], type_prim(TY_USIZE),
                         arena_printf(x->a, "a fill's %s", pipe_fill_arg(e, i)));
    }
    if (is_error(st))
        return;
    if (st->kind != TY_VIEW) {
        diag_error(x->sink, src->span, E_TYPE_MISMATCH, arena_printf(x->a, "fill from a view: %s.%s", p->id, form),
                   "%s.%s copies from a view, and %s is %s", p->id, rows ? "fill_rows" : "fill", estr(x, src),
                   tstr(x, st));
        return;
    }
    if (!type_equal(st->elem, p->ty->elem)) {
        diag_error(x->sink, src->span, E_TYPE_MISMATCH, arena_printf(x->a, "fill it from a view of %s", tstr(x, p->ty->elem)),
                   "%s holds %s, and %s has elements of %s: a fill copies bits, it does not convert", p->id,
                   tstr(x, p->ty->elem), estr(x, src), tstr(x, st->elem));
        return;
    }
    if (st->shared) {
        diag_error(x->sink, src->span, E_PLACEMENT, "fill from a view the region was given; copy between shared arrays by hand",
                   "%s.fill copies from %s, which is the block's own memory: a fill brings in an array from outside "
                   "the region", p->id, estr(x, src));
        return;
    }
    check_index_placement(x, src, src, st);   /* the fill reaches x's elements */
}

/* p.fill(x, start, count), p.fill_rows(x, start, stride, rows, cols,
 * pitch, pad), p.wait(), p.release(). */
static Type *check_pipe_call(Ctx *x, Node *e, Sym *p)
{
    static const char *const ops[] = {"fill", "wait", "release", "fill_rows"};
    static const int nargs[] = {3, 0, 0, 7};
    const char *id = e->call.callee->field.id ? e->call.callee->field.id : "?";
    e->ty = type_prim(TY_VOID);
    e->call.builtin = PIPE_NONE;
    for (int i = 0; i < 4; i++)
        if (strcmp(id, ops[i]) == 0)
            e->call.builtin = PIPE_FILL + i;
    if (e->call.builtin == PIPE_NONE) {
        diag_error(x->sink, e->call.callee->span, E_CALL,
                   arena_printf(x->a, "write %s.fill(x, start, count), %s.fill_rows(x, start, stride, rows, cols, pitch, "
                                "pad), %s.wait() or %s.release()", p->id, p->id, p->id, p->id),
                   "a pipeline has no operation .%s: its operations are fill, fill_rows, wait and release", id);
        check_args_loose(x, e);
        return type_error();
    }
    int want = nargs[e->call.builtin - PIPE_FILL];
    if (e->call.args.n != want || e->call.has_targs) {
        const char *form = e->call.builtin == PIPE_FILL        ? "fill(x, start, count)"
                           : e->call.builtin == PIPE_FILL_ROWS ? "fill_rows(x, start, stride, rows, cols, pitch, pad)"
                                                               : arena_printf(x->a, "%s()", id);
        diag_error(x->sink, e->span, E_CALL, arena_printf(x->a, "write %s.%s", p->id, form),
                   "%s.%s takes %d argument(s)%s, %d given", p->id, id, want, e->call.has_targs ? " and no [..]" : "",
                   e->call.args.n);
        check_args_loose(x, e);
        return type_error();
    }
    if (want)
        check_fill(x, e, p);
    return type_prim(TY_VOID);
}

static Type *check_field_call(Ctx *x, Node *e, Type *expected)
{
    Node *callee = e->call.callee;
    if (is_std_math(x, callee))
        return check_math(x, e, expected);
    e->call.ck = CALL_METHOD;
    Node *base = callee->field.base;
    if (base && base->kind == N_NAME) {
        Sym *ls = scope_find(x, base->name.id, NULL);
        if (ls && ls->kind == SYM_LAYOUT) {
            base->name.sym = ls;
            return check_layout_method(x, e, ls);
        }
    }
    Type *bt = check_expr(x, callee->field.base, NULL);
    callee->ty = type_prim(TY_VOID);
    if (is_error(bt)) {
        check_args_loose(x, e);
        return bt;
    }
    Sym *p = pipeline_named(callee->field.base);
    if (p)
        return check_pipe_call(x, e, p);
    return refuse_call(x, e, arena_printf(x->a, "the method call .%s (a method of what is not a pipeline or a layout)",
                                          callee->field.id ? callee->field.id : "?"));
}

/* ------------------------------------------------------------- layouts
 *
 * `layout NAME = ...;` declarations evaluated into the
 * values of layout.h, and the layout methods (docs/memory.md, "Layouts").
 *
 * A layout is a compile-time value: its declaration is rows(R, C),
 * swizzle(L, B, M, S), spread(L, LR, LC, VR, VC) or another layout's name,
 * its numbers compile-time integers (literals, consts, arithmetic of them).
 * It is evaluated where it is first named, as a const is, so layouts and
 * consts name each other in any order (a cycle is E-LAYOUT). What does not
 * make a layout is E-LAYOUT with layout.c's reason.
 *
 * Its methods are numbers the checker folds: the call becomes an integer
 * literal of type usize, so every later pass (the symbolic core, the race
 * and phase checkers, the emitter) reads a plain constant:
 *
 *   L.cosize()       one past the largest offset L places
 *   L.offset(i, j)   the offset of element (i, j) of L's tile
 *   S.row(t, v)      for a spread: the row of the element lane t holds as
 *   S.col(t, v)      its value v, and its column
 *
 * Arguments known only at run time (SHARE.col(t, v) in a lane) are not
 * lowered yet: E-UNSUPPORTED, never a guess.
 */
static void layout_error(Ctx *x, Span at, const char *help, const char *msg)
{
    diag_error(x->sink, at, E_LAYOUT, help, "%s", msg);
}

/* Argument k of a layout form: a compile-time integer, else E-LAYOUT. */
static bool layout_number(Ctx *x, Node *e, const char *form, int k, int64_t *out)
{
    Type *t = check_expr(x, e, type_prim(TY_I64));
    if (is_error(t))
        return false;
    if (!type_is_int(t) || !sym_const(x->a, e, out)) {
        layout_error(x, e->span, "give it a literal, a const, or arithmetic of them",
                     arena_printf(x->a, "argument %d of %s must be an integer known when the program is checked", k + 1,
                                  form));
        return false;
    }
    return true;
}

static const Layout *layout_eval(Ctx *x, Node *e);

/* The form a call names, when its callee is the builtin rows, swizzle or spread. */
static int layout_form(Ctx *x, Node *e)
{
    if (e->kind != N_CALL || !e->call.callee || e->call.callee->kind != N_NAME || e->call.has_targs)
        return -1;
    Sym *s = scope_find(x, e->call.callee->name.id, NULL);
    if (!s || s->kind != SYM_BUILTIN)
        return -1;
    return s->builtin == B_ROWS || s->builtin == B_SWIZZLE || s->builtin == B_SPREAD ? s->builtin : -1;
}

static const Layout *layout_call(Ctx *x, Node *e, int form)
{
    static const char *const shapes[] = {[B_ROWS] = "rows(R, C)", [B_SWIZZLE] = "swizzle(L, B, M, S)",
                                         [B_SPREAD] = "spread(L, LR, LC, VR, VC)"};
    const char *shape = shapes[form];
    int want = form == B_ROWS ? 2 : form == B_SWIZZLE ? 4 : 5;
    if (e->call.args.n != want) {
        layout_error(x, e->span, arena_printf(x->a, "write %s", shape),
                     arena_printf(x->a, "%s takes %d arguments, %d given", shape, want, e->call.args.n));
        return NULL;
    }
    const Layout *base = NULL;
    int first = 0;
    if (form != B_ROWS) {
        base = layout_eval(x, e->call.args.v[0]);
        if (!base)
            return NULL;
        first = 1;
    }
    int64_t v[4] = {0};
    for (int k = first; k < want; k++)
        if (!layout_number(x, e->call.args.v[k], shape, k, &v[k - first]))
            return NULL;
    Layout *L = arena_alloc(x->a, sizeof *L);
    const char *why = NULL;
    bool ok = form == B_ROWS      ? layout_rows(L, v[0], v[1], &why)
              : form == B_SWIZZLE ? layout_swizzle(L, base, v[0], v[1], v[2], &why)
                                  : layout_spread(L, base, v[0], v[1], v[2], v[3], &why);
    if (!ok) {
        layout_error(x, e->span, "docs/memory.md says what each form needs", why);
        return NULL;
    }
    return L;
}

/* A layout expression's value, or NULL after an error. */
static const Layout *layout_eval(Ctx *x, Node *e)
{
    if (e->kind == N_NAME) {
        Sym *s = resolve_name(x, e);
        if (!s)
            return NULL;
        if (s->kind == SYM_LAYOUT)
            return layout_resolve(x, s);
        layout_error(x, e->span, "name a layout declared with `layout NAME = ...;`",
                     arena_printf(x->a, "%s is not a layout", e->name.id));
        return NULL;
    }
    int form = layout_form(x, e);
    if (form >= 0)
        return layout_call(x, e, form);
    layout_error(x, e->span, "write rows(R, C), swizzle(L, B, M, S), spread(L, LR, LC, VR, VC) or a layout's name",
                 "this is not a layout");
    return NULL;
}

const Layout *layout_resolve(Ctx *x, Sym *s)
{
    if (s->ty == x->resolving) {
        layout_error(x, s->decl->span, "give it a value that does not depend on itself",
                     arena_printf(x->a, "layout %s depends on its own value", s->id));
        s->ty = type_error();
        return NULL;
    }
    if (s->ty)
        return s->layout;
    s->ty = x->resolving;
    const Layout *L = s->decl->let.init ? layout_eval(x, s->decl->let.init) : NULL;
    if (s->ty != x->resolving)
        return NULL;   /* a cycle through it was reported meanwhile */
    s->layout = L;
    s->ty = L ? type_prim(TY_LAYOUT) : type_error();
    return L;
}

/* ------------------------------------------------------------- methods */

/* The method's arguments as compile-time integers: false after an error,
 * or (with *later set) when one is known only at run time. */
static bool method_args(Ctx *x, Node *e, int64_t *v, bool *later)
{
    *later = false;
    bool ok = true;
    for (int k = 0; k < e->call.args.n; k++) {
        Node *a = e->call.args.v[k];
        Type *t = check_expect(x, a, type_prim(TY_USIZE), "a layout method's argument");
        if (is_error(t))
            ok = false;
        else if (!sym_const(x->a, a, &v[k]))
            *later = true;
    }
    return ok;
}

/* The call becomes the literal v, of type usize. */
static Type *fold(Ctx *x, Node *e, int64_t v)
{
    Span at = e->span;
    memset(&e->lit, 0, sizeof e->lit);
    e->kind = N_INT;
    e->span = at;
    e->lit.ival = (uint64_t)v;
    e->lit.text = arena_printf(x->a, "%lld", (long long)v);
    e->ty = type_prim(TY_USIZE);
    return e->ty;
}

static Type *out_of_range(Ctx *x, Node *e, const char *what, int64_t got, int64_t n)
{
    layout_error(x, e->span, arena_printf(x->a, "give a value below %lld", (long long)n),
                 arena_printf(x->a, "%s is %lld, outside 0 .. %lld", what, (long long)got, (long long)(n - 1)));
    return type_error();
}

Type *check_layout_method(Ctx *x, Node *e, Sym *s)
{
    Node *callee = e->call.callee;
    const char *m = callee->field.id ? callee->field.id : "?";
    e->call.ck = CALL_METHOD;
    callee->ty = type_prim(TY_VOID);
    callee->field.base->ty = type_prim(TY_LAYOUT);
    const Layout *L = layout_resolve(x, s);
    int want = !strcmp(m, "cosize") ? 0 : !strcmp(m, "offset") || !strcmp(m, "row") || !strcmp(m, "col") ? 2 : -1;
    if (want < 0) {
        layout_error(x, callee->span, "a layout has cosize(), offset(i, j), and for a spread row(t, v) and col(t, v)",
                     arena_printf(x->a, "a layout has no method %s", m));
        check_args_loose(x, e);
        return type_error();
    }
    if (e->call.args.n != want) {
        layout_error(x, e->span, arena_printf(x->a, "write %s.%s(%s)", s->id, m, want ? "a, b" : ""),
                     arena_printf(x->a, "%s() takes %d arguments, %d given", m, want, e->call.args.n));
        check_args_loose(x, e);
        return type_error();
    }
    int64_t v[2] = {0, 0};
    bool later;
    if (!method_args(x, e, v, &later) || !L)
        return type_error();
    bool share = !strcmp(m, "row") || !strcmp(m, "col");
    if (share && L->kind != LAYOUT_SPREAD) {
        layout_error(x, e->span, "name a spread(...) layout: it gives each lane its elements",
                     arena_printf(x->a, "%s.%s(t, v) names a lane's element, and %s is not a spread", s->id, m, s->id));
        return type_error();
    }
    if (later) {   /* computed where it runs, its arguments checked against the ranges below */
        callee->field.base->name.sym = s;
        return e->ty = type_prim(TY_USIZE);
    }
    if (want == 0)
        return fold(x, e, layout_cosize(L));
    if (share) {
        if (v[0] >= layout_lanes(L))
            return out_of_range(x, e->call.args.v[0], "the lane", v[0], layout_lanes(L));
        if (v[1] >= layout_values(L))
            return out_of_range(x, e->call.args.v[1], "the value", v[1], layout_values(L));
        int64_t r, c;
        layout_lane_elem(L, (int)v[0], (int)v[1], &r, &c);
        return fold(x, e, m[0] == 'r' ? r : c);
    }
    if (v[0] >= L->rows)
        return out_of_range(x, e->call.args.v[0], "the row", v[0], L->rows);
    if (v[1] >= L->cols)
        return out_of_range(x, e->call.args.v[1], "the column", v[1], L->cols);
    return fold(x, e, layout_offset(L, v[0], v[1]));
}

/* A layout's name where a value is wanted. */
Type *layout_as_value(Ctx *x, Node *e, Sym *s)
{
    layout_error(x, e->span, "use its methods (cosize(), offset(i, j), row(t, v), col(t, v))",
                 arena_printf(x->a, "layout %s is not a value", s->id));
    return type_error();
}

/* ------------------------------------------------------------- dispatch */

static Type *call_named(Ctx *x, Node *e, Node *callee, Type *expected)
{
    const char *id = callee->name.id ? callee->name.id : "";
    Sym *s = scope_find(x, id, NULL);
    int frag = s ? -1 : frag_lookup(id);
    if (frag >= 0)
        return check_fragment_call(x, e, (FragKind)frag);
    if (!s) {
        resolve_name(x, callee);
        check_args_loose(x, e);
        return type_error();
    }
    switch (s->kind) {
    case SYM_BUILTIN:
        callee->name.sym = s;
        callee->ty = type_prim(TY_VOID);
        if (s->builtin >= 0)
            return check_builtin(x, e, (Builtin)s->builtin, expected);
        if (type_is_scalar(s->ty))
            return check_convert(x, e, s->ty);
        if (strcmp(id, "Array") == 0)
            return check_construct(x, e);
        diag_error(x->sink, callee->span, E_CALL, "call one of its functions: std.math.exp(x)", "%s is a namespace, not a function", id);
        check_args_loose(x, e);
        return type_error();
    case SYM_FN:
        callee->name.sym = s;
        callee->ty = s->ty ? s->ty : type_error();
        return call_fn(x, e, s);
    default:
        break;
    }
    Type *t = check_name(x, callee, false);
    callee->ty = t;
    return call_value(x, e, t);
}

Type *check_call(Ctx *x, Node *e, Type *expected)
{
    Node *callee = e->call.callee;
    if (!callee)
        return type_error();
    if (callee->kind == N_NAME)
        return call_named(x, e, callee, expected);
    if (callee->kind == N_FIELD)
        return check_field_call(x, e, expected);
    return call_value(x, e, check_expr(x, callee, NULL));
}
