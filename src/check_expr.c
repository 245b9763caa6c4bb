/*
 * check_expr.c: expressions: literals, names, operators, indexing, slices,
 * fields and the sequential collectors (reduce, scan, compact).
 *
 * Requires: names in scope (check.c's scopes), calls handled by
 * check_call.c.
 * Guarantees: every expression node gets a concrete `ty` (TY_ERROR only
 * after a reported error, never a literal type). Literals are typed
 * bidirectionally (SYNTAX.md 21): an expected type flows down, and in a
 * binary operator a literal side takes the other side's type. Each float
 * rounding the program performs is listed in c->numerics.
 */
#include "check.h"
#include "sym.h"
#include "chain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

Type *type_error(void)
{
    return type_prim(TY_ERROR);
}

bool is_error(const Type *t)
{
    return !t || t->kind == TY_ERROR;
}

const char *tstr(Ctx *x, const Type *t)
{
    return type_str(x->a, t);
}

const char *estr(Ctx *x, const Node *e)
{
    return e ? expand_expr_short(x->a, e, 200) : "?";   /* a message quotes 200 characters at most */
}

static bool is_arith(TokKind op)
{
    return op == T_PLUS || op == T_MINUS || op == T_STAR || op == T_SLASH || op == T_PERCENT;
}

/* A literal, or an operator over literals only: it has no type of its own
 * and takes the one its context asks for. A chain is walked down its
 * spine (chain.h): every operator arithmetic, every right operand untyped. */
bool is_untyped(const Node *e)
{
    for (;;) {
        if (!e)
            return false;
        switch (e->kind) {
        case N_INT: case N_FLOAT:
            return true;
        case N_UNARY:
            if (e->unary.op != T_MINUS)
                return false;
            e = e->unary.a;
            break;
        case N_BINARY:
            if (!is_arith(e->binary.op) || !is_untyped(e->binary.b))
                return false;
            e = e->binary.a;
            break;
        default:
            return false;
        }
    }
}

/* Whether a float literal is among the literals of e (through unary and
 * binary operators). */
bool untyped_is_float(const Node *e)
{
    for (;;) {
        if (!e)
            return false;
        if (e->kind == N_FLOAT)
            return true;
        if (e->kind == N_UNARY) {
            e = e->unary.a;
        } else if (e->kind == N_BINARY) {
            if (untyped_is_float(e->binary.b))
                return true;
            e = e->binary.a;
        } else {
            return false;
        }
    }
}

static bool is_number(const Type *t)
{
    return type_is_int(t) || type_is_float(t);
}

/* ----------------------------------------------------------- literals */

static bool lit_fits(uint64_t v, bool neg, const Type *t)
{
    int bits = type_bits(t);
    if (type_is_signed(t)) {
        uint64_t lim = (uint64_t)1 << (bits - 1);
        return neg ? v <= lim : v < lim;
    }
    if (neg)
        return v == 0;
    return bits == 64 || v < ((uint64_t)1 << bits);
}

bool value_fits(int64_t v, const Type *t)
{
    if (type_is_signed(t))
        return lit_fits(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0, t);
    return v >= 0 && lit_fits((uint64_t)v, false, t);
}

static const char *int_range(Ctx *x, const Type *t)
{
    int bits = type_bits(t);
    if (type_is_signed(t))
        return arena_printf(x->a, "%lld..%llu", -(long long)(((uint64_t)1 << (bits - 1)) - 1) - 1,
                            (unsigned long long)(((uint64_t)1 << (bits - 1)) - 1));
    return arena_printf(x->a, "0..%llu", (unsigned long long)(bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1));
}

static const char *lit_text(Ctx *x, Node *lit, bool neg)
{
    return arena_printf(x->a, "%s%s", neg ? "-" : "", lit->lit.text ? lit->lit.text : "?");
}

/* An integer literal (neg: under a unary minus, `at` is that minus). */
static Type *int_literal(Ctx *x, Node *lit, Node *at, Type *expected, bool neg)
{
    if (type_is_float(expected) || type_is_storage_float(expected)) {
        const char *text = lit_text(x, lit, neg);
        const char *help = type_is_float(expected)
                               ? arena_printf(x->a, "write %s.0", text)
                               : arena_printf(x->a, "write %s(%s.0) (a storage float converts from f32)",
                                              tstr(x, expected), text);
        diag_error(x->sink, at->span, E_TYPE_MISMATCH, help, "the integer literal %s where a %s is expected",
                   text, tstr(x, expected));
        return type_error();
    }
    Type *t = type_is_int(expected) ? expected : type_prim(TY_I64);
    if (lit->lit.overflow || !lit_fits(lit->lit.ival, neg, t)) {
        const char *text = lit_text(x, lit, neg);
        const char *help = lit->lit.overflow ? "no integer type holds it: u64 reaches 18446744073709551615"
                           : type_is_int(expected) ? "use a wider integer type, or convert at run time (guarded)"
                                                   : "give it a type that holds it: `let x:u64 = ...;`";
        diag_error(x->sink, at->span, E_TYPE_MISMATCH, help, "the literal %s does not fit in %s (%s)", text,
                   tstr(x, t), int_range(x, t));
        return type_error();
    }
    lit->ty = t;
    return t;
}

static Type *float_literal(Ctx *x, Node *lit, Node *at, Type *expected, bool neg)
{
    const char *text = NULL;
    if (type_is_storage_float(expected)) {
        text = lit_text(x, lit, neg);
        diag_error(x->sink, at->span, E_TYPE_MISMATCH,
                   arena_printf(x->a, "write %s(%s): a storage float converts from f32", tstr(x, expected), text),
                   "a float literal cannot be a %s (a storage float)", tstr(x, expected));
        return type_error();
    }
    if (type_is_int(expected)) {
        text = lit_text(x, lit, neg);
        diag_error(x->sink, at->span, E_TYPE_MISMATCH,
                   arena_printf(x->a, "write an integer, or convert: %s(%s)", tstr(x, expected), text),
                   "the float literal %s where a %s is expected", text, tstr(x, expected));
        return type_error();
    }
    Type *t = type_is_float(expected) ? expected : type_prim(TY_F64);
    if (!isfinite(lit->lit.fval)) {
        diag_error(x->sink, at->span, E_TYPE_MISMATCH, "write a finite value; 1.0 / 0.0 is infinity",
                   "the literal %s is beyond f64's range", lit_text(x, lit, neg));
        return type_error();
    }
    if (t->kind == TY_F32 && !isfinite((float)lit->lit.fval)) {
        diag_error(x->sink, at->span, E_TYPE_MISMATCH, "use f64", "the literal %s is beyond f32's range",
                   lit_text(x, lit, neg));
        return type_error();
    }
    lit->ty = t;
    return t;
}

/* -------------------------------------------------------------- names */

/* A local of an enclosing function named inside a closure: captured by
 * value. Every closure between its level and ours records it. */
static void note_capture(Ctx *x, Node *e, Sym *s, Scope *where)
{
    if (where->fn_level >= x->fn_level || (s->kind != SYM_LOCAL && s->kind != SYM_PARAM))
        return;
    s->captured = true;
    if (s->ty && s->ty->kind == TY_VIEW && s->ty->access == ACC_RW)
        unsupported(x, e->span, arena_printf(x->a, "a closure capturing the rw view `%s` (a later issue)", s->id),
                    "pass the elements it needs as arguments, or capture an ro view");
    for (int l = where->fn_level + 1; l <= x->fn_level; l++) {
        Node *cl = x->closures[l];
        bool have = false;
        for (int i = 0; i < cl->fn.captures.n && !have; i++)
            have = cl->fn.captures.v[i] == s;
        if (!have)
            vec_push(x->a, &cl->fn.captures, s);
    }
}

static Type *fn_value_type(Ctx *x, Node *e, Sym *s)
{
    Node *d = s->decl;
    if (!s->ty || is_error(s->ty))
        return type_error();
    if (d && d->kind == N_FN && d->fn.generics.n && !d->fn.is_instance) {
        diag_error(x->sink, e->span, E_CALL,
                   arena_printf(x->a, "call it with its compile-time arguments, inside a closure: "
                                      "fn(..) = %s[..](..)", s->id),
                   "the generic function %s has no value until its compile-time arguments are given", s->id);
        return type_error();
    }
    for (int i = 0; i < s->ty->params.n; i++) {
        Type *p = s->ty->params.v[i];
        if (p->kind == TY_VIEW || p->kind == TY_REF) {
            unsupported(x, e->span, arena_printf(x->a, "%s as a value: function values with view or rw<T> "
                                                        "parameters (a later issue)", s->id), NULL);
            return type_error();
        }
    }
    return s->ty;
}

static Type *builtin_as_value(Ctx *x, Node *e, Sym *s)
{
    if (s->builtin >= 0)
        diag_error(x->sink, e->span, E_CALL, arena_printf(x->a, "call it: %s(..)", s->id),
                   "the built-in %s is not a value", s->id);
    else if (type_is_scalar(s->ty))
        diag_error(x->sink, e->span, E_TYPE_MISMATCH, arena_printf(x->a, "convert a value: %s(x)", s->id),
                   "%s is a type, not a value", s->id);
    else
        diag_error(x->sink, e->span, E_NAME, "name one of its members, e.g. std.math.exp(x), Cache.streaming",
                   "%s is a namespace, not a value", s->id);
    return type_error();
}

/* A name used as a value (callee: the caller handles fns and built-ins). */
Type *check_name(Ctx *x, Node *e, bool callee)
{
    Scope *where = NULL;
    Sym *s = scope_find(x, e->name.id, &where);
    if (!s && !(s = resolve_name(x, e)))
        return type_error();
    e->name.sym = s;
    switch (s->kind) {
    case SYM_LOCAL: case SYM_PARAM:
        note_capture(x, e, s, where);
        if (!s->ty)
            return type_error();
        return s->ty->kind == TY_REF ? s->ty->elem : s->ty;
    case SYM_CONST:
        const_resolve(x, s);
        return s->ty;
    case SYM_GENERIC:
        return type_prim(TY_USIZE);
    case SYM_FN:
        return callee ? (s->ty ? s->ty : type_error()) : fn_value_type(x, e, s);
    case SYM_LAYOUT:
        return layout_as_value(x, e, s);
    case SYM_BUILTIN:
        return callee ? type_prim(TY_VOID) : builtin_as_value(x, e, s);
    }
    return type_error();
}

/* ------------------------------------------------------ literal sides */

/* The type literal operands take beside typed ones (SYNTAX.md 21): the
 * first typed operand's, when it is a number; else the expected number
 * type; else f64 when a literal is a float, i64 otherwise. */
static Type *literal_type(Type *common, Type *expected, bool any_float)
{
    if (common && !type_is_storage_float(common) && is_number(common))
        return common;
    if (!common && is_number(expected))
        return expected;
    if (!common || type_is_storage_float(common))
        return any_float ? type_prim(TY_F64) : type_prim(TY_I64);
    return common;   /* bool, views: the literal side errs against it */
}

/* check_same, when the first `done` operands (typed ones) are checked
 * already and types[0..done-1] hold their types. */
static Type *check_same_from(Ctx *x, Node **es, int n, Type *expected, Type **types, int done)
{
    Type *common = NULL;
    for (int i = 0; i < n && i < 8; i++) {
        if (i >= done) {
            types[i] = NULL;
            if (!es[i] || is_untyped(es[i]))
                continue;
            types[i] = check_expr(x, es[i], expected);
        }
        if (!common && !is_error(types[i]))
            common = types[i];
    }
    bool any_float = false;
    if (!(common && !type_is_storage_float(common) && is_number(common)))
        for (int i = 0; i < n && i < 8; i++)
            any_float |= es[i] && types[i] == NULL && untyped_is_float(es[i]);
    Type *lit_t = literal_type(common, expected, any_float);
    for (int i = 0; i < n && i < 8; i++)
        if (es[i] && !types[i])
            types[i] = check_expr(x, es[i], lit_t);
    if (!common)
        for (int i = 0; i < n && i < 8 && !common; i++)
            if (!is_error(types[i]))
                common = types[i];
    return common ? common : type_error();
}

/* Checks n operands that must share one type: the typed ones first, then
 * the literal ones with that type (or the expected one, or i64 / f64).
 * types[i] gets each operand's type; returns the common candidate. */
Type *check_same(Ctx *x, Node **es, int n, Type *expected, Type **types)
{
    Type *tmp[8];
    return check_same_from(x, es, n, expected, types ? types : tmp, 0);
}

/* ----------------------------------------------------------- operators */

static bool is_bitwise(TokKind op)
{
    return op == T_AMP || op == T_PIPE || op == T_CARET;
}

static bool is_compare(TokKind op)
{
    return op == T_EQ || op == T_NE || op == T_LT || op == T_GT || op == T_LE || op == T_GE;
}

static const char *float_op_name(TokKind op)
{
    switch (op) {
    case T_PLUS: return "add";
    case T_MINUS: return "sub";
    case T_STAR: return "mul";
    case T_SLASH: return "div";
    default: return NULL;   /* % is fmod: exact */
    }
}

static Type *storage_arith(Ctx *x, Node *at, TokKind op, Node *a, Type *ta, Node *b, Type *tb)
{
    Type *sf = type_is_storage_float(ta) ? ta : tb;
    const char *sa = type_is_storage_float(ta) ? arena_printf(x->a, "f32(%s)", estr(x, a)) : estr(x, a);
    const char *sb = type_is_storage_float(tb) ? arena_printf(x->a, "f32(%s)", estr(x, b)) : estr(x, b);
    const char *help = arena_printf(x->a, "widen, compute in f32, round back once: `%s(%s %s %s)`",
                                    tstr(x, sf), sa, tok_name(op), sb);
    diag_error(x->sink, at->span, E_OPERATOR, help,
               "`%s` on %s, a storage float: storage floats hold values and never compute", tok_name(op),
               tstr(x, sf));
    return type_error();
}

static Type *mismatch(Ctx *x, Node *at, TokKind op, Node *a, Type *ta, Node *b, Type *tb)
{
    /* Suggest the conversion that cannot lose anything where there is one:
     * widen the narrower side (u32 to u64, f32 to f64, an integer to a float). */
    bool widen_a = type_is_float(tb) ? !type_is_float(ta) || type_bits(ta) < type_bits(tb)
                                     : !type_is_float(ta) && type_bits(ta) < type_bits(tb);
    const char *help = NULL;
    if (type_is_scalar(ta) && type_is_scalar(tb))
        help = widen_a ? arena_printf(x->a, "convert one side: `%s(%s) %s %s`", tstr(x, tb), estr(x, a),
                                      tok_name(op), estr(x, b))
                       : arena_printf(x->a, "convert one side: `%s %s %s(%s)`", estr(x, a), tok_name(op),
                                      tstr(x, ta), estr(x, b));
    diag_error(x->sink, at->span, E_TYPE_MISMATCH, help, "`%s` between %s (%s) and %s (%s)", tok_name(op),
               tstr(x, ta), estr(x, a), tstr(x, tb), estr(x, b));
    return type_error();
}

static Type *compare_check(Ctx *x, Node *at, TokKind op, Node *a, Type *ta, Node *b, Type *tb)
{
    if (type_is_storage_float(ta) && type_is_storage_float(tb)) {
        diag_error(x->sink, at->span, E_TYPE_MISMATCH,
                   arena_printf(x->a, "compare them widened: `f32(%s) %s f32(%s)`", estr(x, a), tok_name(op),
                                estr(x, b)),
                   "a comparison of two storage floats (%s): storage floats never compute", tstr(x, ta));
        return type_error();
    }
    if (!type_equal(ta, tb))
        return mismatch(x, at, op, a, ta, b, tb);
    bool ok = is_number(ta) || (ta->kind == TY_BOOL && (op == T_EQ || op == T_NE));
    if (!ok) {
        diag_error(x->sink, at->span, E_OPERATOR, "compare numbers, or bools with == and !=",
                   "`%s` cannot compare %s values", tok_name(op), tstr(x, ta));
        return type_error();
    }
    return type_prim(TY_BOOL);
}

static Type *logic_check(Ctx *x, Node *at, TokKind op, Node *a, Type *ta, Node *b, Type *tb)
{
    Node *bad = ta->kind != TY_BOOL ? a : b;
    Type *bt = ta->kind != TY_BOOL ? ta : tb;
    if (ta->kind == TY_BOOL && tb->kind == TY_BOOL)
        return ta;
    diag_error(x->sink, bad->span, E_OPERATOR,
               is_number(bt) ? arena_printf(x->a, "compare: `%s != 0`", estr(x, bad)) : "give it a bool: a comparison or a bool value",
               "`%s` takes bools, and %s is %s", tok_name(op), estr(x, bad), tstr(x, bt));
    (void)at;
    return type_error();
}

/* The rules of a binary operator on operands already typed. */
Type *binop_check(Ctx *x, Node *at, TokKind op, Node *a, Type *ta, Node *b, Type *tb)
{
    if (is_error(ta) || is_error(tb))
        return type_error();
    if (op == T_ANDAND || op == T_OROR)
        return logic_check(x, at, op, a, ta, b, tb);
    if (is_compare(op))
        return compare_check(x, at, op, a, ta, b, tb);
    if (type_is_storage_float(ta) || type_is_storage_float(tb))
        return storage_arith(x, at, op, a, ta, b, tb);
    bool num = is_arith(op) ? (is_number(ta) && is_number(tb)) : (type_is_int(ta) && type_is_int(tb));
    if (!num && (is_arith(op) || is_bitwise(op))) {
        Type *bt = (is_arith(op) ? is_number(ta) : type_is_int(ta)) ? tb : ta;
        const char *help = is_bitwise(op) && bt->kind == TY_BOOL ? "use && or || on bools"
                           : is_bitwise(op) && type_is_float(bt)
                               ? "bitwise operators take integers; a float's bits are not an integer"
                               : "use numbers of one type on both sides";
        diag_error(x->sink, at->span, E_OPERATOR, help, "`%s` takes %s, not %s", tok_name(op),
                   is_arith(op) ? "numbers" : "integers", tstr(x, bt));
        return type_error();
    }
    if (!num)
        return type_error();
    if (!type_equal(ta, tb))
        return mismatch(x, at, op, a, ta, b, tb);
    if (type_is_float(ta) && float_op_name(op))
        numerics_add(x, float_op_name(op), ta, ta, "nearest-even");
    return ta;
}

/* ------------------------------------------------------------- chains */

/* A binary node is checked as one link of its chain (chain.h), bottom up,
 * by a loop: the rule is the recursive one (a typed left operand first,
 * then the right one; a literal-only left operand after a typed right one,
 * with the type that gives it), so diagnostics, numerics and every type
 * come out exactly as a recursion would give them, without its stack. */
typedef struct {
    Type *expected;       /* what the node's context asks of it */
    bool untyped;         /* literal-only: it takes its type from the context */
    bool float_lit;       /* a float literal is among its literals */
} Link;

static bool is_logical(TokKind op)
{
    return op == T_ANDAND || op == T_OROR;
}

/* What an operator asks of its operands, given what is asked of it. */
static Type *operand_want(TokKind op, Type *expected)
{
    return (is_arith(op) || is_bitwise(op)) && is_number(expected) ? expected : NULL;
}

/* What check_expr does with a type it is about to give a node. */
static Type *settle(Node *e, Type *t)
{
    if (!t || t->kind == TY_INT_LIT || t->kind == TY_FLOAT_LIT)
        t = type_error();
    e->ty = t;
    return t;
}

/* One link whose left operand is checked already (a typed one, or any one
 * under && or ||), with type ta. */
static Type *check_link(Ctx *x, Node *e, Type *expected, Type *ta)
{
    TokKind op = e->binary.op;
    Node *es[2] = {e->binary.a, e->binary.b};
    Type *ts[2] = {ta, NULL};
    if (!es[0] || !es[1])
        return type_error();
    if (is_logical(op))
        ts[1] = check_expr(x, es[1], type_prim(TY_BOOL));
    else
        check_same_from(x, es, 2, operand_want(op, expected), ts, 1);
    return binop_check(x, e, op, es[0], ta, es[1], ts[1]);
}

/* The literal-only run v[from..n-1] of a spine and its leaf, asked to be
 * `lit`: each node passes its literal type down, and the run is checked
 * bottom up, left operand before right. */
static Type *check_untyped_run(Ctx *x, const Spine *sp, Link *li, int from, Node *leaf, Type *lit)
{
    int n = sp->n;
    li[from].expected = lit;
    for (int j = from; j < n; j++) {
        TokKind op = sp->v[j]->binary.op;
        li[j + 1].expected = literal_type(NULL, operand_want(op, li[j].expected), li[j].float_lit);
    }
    Type *ta = check_expr(x, leaf, li[n].expected);
    for (int j = n - 1; j >= from; j--) {
        Node *e = sp->v[j];
        Type *tb = e->binary.b ? check_expr(x, e->binary.b, li[j + 1].expected) : type_error();
        ta = settle(e, e->binary.b ? binop_check(x, e, e->binary.op, e->binary.a, ta, e->binary.b, tb)
                                   : type_error());
    }
    return ta;
}

/* Link m, whose left operand is literal-only: its typed right operand
 * first, then the left run with the type that gives it, then a literal
 * right operand. */
static Type *check_link_late_left(Ctx *x, const Spine *sp, Link *li, int m, Node *leaf)
{
    Node *e = sp->v[m], *b = e->binary.b;
    if (!b)
        return type_error();
    TokKind op = e->binary.op;
    Type *want = operand_want(op, li[m].expected), *tb = NULL, *common = NULL;
    bool b_untyped = is_untyped(b);
    if (!b_untyped) {
        tb = check_expr(x, b, want);
        common = is_error(tb) ? NULL : tb;
    }
    bool any_float = li[m + 1].float_lit || (b_untyped && untyped_is_float(b));
    Type *lit = literal_type(common, want, any_float);
    Type *ta = check_untyped_run(x, sp, li, m + 1, leaf, lit);
    if (b_untyped)
        tb = check_expr(x, b, lit);
    return binop_check(x, e, op, e->binary.a, ta, b, tb);
}

/* A binary node whose left operand is no chain: the rule as it stands. */
static Type *check_link_alone(Ctx *x, Node *e, Type *expected)
{
    TokKind op = e->binary.op;
    Node *es[2] = {e->binary.a, e->binary.b};
    Type *ts[2];
    if (!es[0] || !es[1])
        return type_error();
    if (is_logical(op)) {
        ts[0] = check_expr(x, es[0], type_prim(TY_BOOL));
        ts[1] = check_expr(x, es[1], type_prim(TY_BOOL));
    } else {
        check_same(x, es, 2, operand_want(op, expected), ts);
    }
    return binop_check(x, e, op, es[0], ts[0], es[1], ts[1]);
}

static Type *check_binary(Ctx *x, Node *top, Type *expected)
{
    if (!top->binary.a || top->binary.a->kind != N_BINARY)
        return check_link_alone(x, top, expected);
    Spine sp;
    Node *leaf = spine_of(&sp, top);
    int n = sp.n;
    Link local[SPINE_LOCAL + 1];
    Link *li = n < SPINE_LOCAL ? local : malloc(sizeof *li * (size_t)(n + 1));
    if (!li) {
        fprintf(stderr, "cairn: out of memory\n");
        exit(2);
    }
    /* li[n] is the leaf; li[i] the node sp.v[i] */
    li[n].untyped = is_untyped(leaf);
    li[n].float_lit = untyped_is_float(leaf);
    for (int i = n - 1; i >= 0; i--) {
        Node *e = sp.v[i];
        li[i].untyped = is_arith(e->binary.op) && li[i + 1].untyped && is_untyped(e->binary.b);
        li[i].float_lit = li[i + 1].float_lit || untyped_is_float(e->binary.b);
    }
    /* down: what each node asks of its left operand, to the first node
     * whose left operand is literal-only (m), below which all are */
    li[0].expected = expected;
    int m = n;
    for (int i = 0; i < n && m == n; i++) {
        TokKind op = sp.v[i]->binary.op;
        if (!is_logical(op) && li[i + 1].untyped)
            m = i;
        else
            li[i + 1].expected = is_logical(op) ? type_prim(TY_BOOL) : operand_want(op, li[i].expected);
    }
    /* up: the leaf (unless it is in the literal run), then each link */
    Type *t = m == n ? check_expr(x, leaf, li[n].expected) : NULL;
    for (int i = m == n ? n - 1 : m; i >= 0; i--) {
        Node *e = sp.v[i];
        t = settle(e, i == m ? check_link_late_left(x, &sp, li, m, leaf) : check_link(x, e, li[i].expected, t));
    }
    if (li != local)
        free(li);
    spine_free(&sp);
    return t;
}

static Type *neg_literal(Ctx *x, Node *e, Type *expected)
{
    Node *a = e->unary.a;
    Type *t = a->kind == N_INT ? int_literal(x, a, e, expected, true) : float_literal(x, a, e, expected, true);
    if (type_is_int(t) && !type_is_signed(t))
        t = type_error();   /* -0 as unsigned: reported by int_literal unless 0 */
    if (a->kind == N_INT && type_is_int(expected) && !type_is_signed(expected) && !is_error(a->ty) &&
        a->lit.ival == 0)
        t = expected;
    a->ty = is_error(t) ? a->ty : t;
    return t;
}

static Type *check_unary(Ctx *x, Node *e, Type *expected)
{
    TokKind op = e->unary.op;
    Node *a = e->unary.a;
    if (!a)
        return type_error();
    if (op == T_MINUS && (a->kind == N_INT || a->kind == N_FLOAT))
        return neg_literal(x, e, expected);
    Type *t = check_expr(x, a, op == T_BANG ? type_prim(TY_BOOL) : expected);
    if (is_error(t))
        return t;
    if (op == T_BANG && t->kind == TY_BOOL)
        return t;
    if (op == T_TILDE && type_is_int(t))
        return t;
    if (op == T_MINUS && (type_is_signed(t) || type_is_float(t)))
        return t;
    const char *help = NULL;
    if (op == T_MINUS && type_is_storage_float(t))
        help = arena_printf(x->a, "widen, negate, round back: `%s(-f32(%s))`", tstr(x, t), estr(x, a));
    else if (op == T_MINUS && type_is_int(t))
        help = arena_printf(x->a, "convert to a signed type first: `-i64(%s)`", estr(x, a));
    else if (op == T_BANG && is_number(t))
        help = arena_printf(x->a, "compare: `%s == 0`", estr(x, a));
    diag_error(x->sink, e->span, E_OPERATOR, help, "unary `%s` cannot apply to %s (%s)", tok_name(op),
               estr(x, a), tstr(x, t));
    return type_error();
}

/* ------------------------------------------------------- index, slice */

static Type *check_index_value(Ctx *x, Node *i)
{
    Type *t = check_expr(x, i, is_untyped(i) ? type_prim(TY_USIZE) : NULL);
    if (is_error(t) || type_is_int(t))
        return t;
    diag_error(x->sink, i->span, E_TYPE_MISMATCH, type_is_float(t) ? arena_printf(x->a, "convert: usize(%s)", estr(x, i)) : "index with an integer (usize, i32, ...)",
               "an index must be an integer, not %s", tstr(x, t));
    return type_error();
}

/* Where an element may be reached. A lane's index is counted (the region
 * or collector decides its placement from what its lanes reach); a kernel
 * fn is device code; any other code is the host's, which cannot reach
 * @device memory. @unified memory is reachable from both sides. */
static bool index_placement(Ctx *x, Node *e, Node *base, Type *bt)
{
    bool kernel = x->fs && x->fs->fn && x->fs->fn->kind == N_FN && x->fs->fn->fn.is_kernel;
    if (bt->place == PLACE_UNIFIED || bt->shared)
        return false;   /* a shared array is its block's memory, on whichever side the region runs */
    if (bt->place != PLACE_DEVICE) {
        if (kernel) {
            diag_error(x->sink, e->span, E_PLACEMENT, "take the view @device, and transfer the host data to it first",
                       "kernel fn %s indexes %s, a host view (%s): a kernel runs on the device",
                       x->fs->fn->fn.id, estr(x, base), tstr(x, bt));
            return true;
        }
        if (x->fs && x->fs->parallel && !x->host_index)
            x->host_index = e;
        return false;
    }
    if (kernel)
        return false;
    if (x->fs && x->fs->parallel) {
        x->device_indexes++;   /* device work: the region or collector runs on the device */
        return false;
    }
    diag_error(x->sink, e->span, E_PLACEMENT,
               arena_printf(x->a, "transfer it to a host buffer first: `buffer h:%s[..] = zeroed; "
                                  "transfer(h, %s);`", tstr(x, bt->elem), estr(x, base)),
               "host code indexes %s, a @device view (%s)", estr(x, base), tstr(x, bt));
    return true;
}

bool check_index_placement(Ctx *x, Node *e, Node *base, Type *bt)
{
    return index_placement(x, e, base, bt);
}

/* Lanes: a region's or a collector's body. They run on the device when
 * they reach a @device element, and then reaching a host element too is
 * E-PLACEMENT. Lanes inside another region's lane are that lane's: only
 * the outermost decide (x->fs->parallel was 0 when they began). */
void lanes_begin(Ctx *x, LanePlace *p)
{
    p->device_before = x->device_indexes;
    p->host_before = x->host_index;
    p->outermost = !x->fs || x->fs->parallel == 0;
    if (p->outermost)
        x->host_index = NULL;
}

bool lanes_end(Ctx *x, LanePlace *p, const char *what)
{
    bool dev = x->device_indexes != p->device_before;
    Node *h = x->host_index;
    if (!p->outermost)
        return false;
    x->host_index = p->host_before;
    if (!dev || !h)
        return dev;
    Node *base = h->kind == N_INDEX ? h->index.base : h->kind == N_CALL && h->call.args.n ? h->call.args.v[0] : h;
    diag_error(x->sink, h->span, E_PLACEMENT,
               arena_printf(x->a, "transfer %s to a @device buffer before %s, or take it as a @device view",
                            estr(x, base), what),
               "a device lane of %s indexes %s, a host view (%s): lanes that reach @device memory run on the "
               "device, where host memory cannot be reached",
               what, estr(x, base), base->ty ? tstr(x, base->ty) : "a view");
    return dev;
}

/* The length of a view or an Array when the symbolic core knows it as a
 * constant; -1 otherwise. */
static int64_t known_length(Ctx *x, const Type *t)
{
    int64_t n;
    if (t->kind == TY_ARRAY)
        return t->count;
    if (t->kind == TY_VIEW && t->extent && sym_const(x->a, t->extent, &n))
        return n;
    return -1;
}

/* An index the core proves past the end on every run that reaches it is
 * refused now (its guard could only fail). */
static bool index_in_bounds(Ctx *x, Node *e, Node *base, const Type *bt)
{
    int64_t i, n = known_length(x, bt);
    if (n < 0 || !sym_const(x->a, e->index.index, &i) || (i >= 0 && i < n))
        return true;
    diag_error(x->sink, e->index.index->span, E_BOUNDS,
               n ? arena_printf(x->a, "index %s from 0 to %lld", estr(x, base), (long long)(n - 1))
                 : "an empty view has no element to index",
               "index %lld is past the end of %s, which has %lld element%s: the access would fail on every run",
               (long long)i, estr(x, base), (long long)n, n == 1 ? "" : "s");
    return false;
}

static Type *check_index(Ctx *x, Node *e)
{
    Node *base = e->index.base;
    if (!base || !e->index.index)
        return type_error();
    Type *bt = check_expr(x, base, NULL);
    Type *it = check_index_value(x, e->index.index);
    if (is_error(bt) || is_error(it))
        return type_error();
    if ((bt->kind == TY_VIEW || bt->kind == TY_ARRAY) && !index_in_bounds(x, e, base, bt))
        return type_error();
    if (bt->kind == TY_VIEW)
        return index_placement(x, e, base, bt) ? type_error() : bt->elem;
    if (bt->kind == TY_ARRAY)
        return bt->elem;
    diag_error(x->sink, base->span, E_TYPE_MISMATCH, "index a view, a buffer or an Array", "%s is %s: it has no elements to index",
               estr(x, base), tstr(x, bt));
    return type_error();
}

/* x[a..b]: a view of the same elements, of extent b - a (just b when a is
 * the literal 0, so `x[0..n]` proves equal to an extent n). */
static Type *check_slice(Ctx *x, Node *e)
{
    Node *base = e->slice.base;
    if (!base || !e->slice.lo || !e->slice.hi)
        return type_error();
    Type *bt = check_expr(x, base, NULL);
    Type *lt = check_expect(x, e->slice.lo, type_prim(TY_USIZE), "a slice's start");
    Type *ht = check_expect(x, e->slice.hi, type_prim(TY_USIZE), "a slice's end");
    if (is_error(bt) || is_error(lt) || is_error(ht))
        return type_error();
    if (bt->kind != TY_VIEW) {
        diag_error(x->sink, base->span, E_TYPE_MISMATCH, "slice a view or a buffer; an Array is indexed element by element",
                   "only a view can be sliced; %s is %s",
                   estr(x, base), tstr(x, bt));
        return type_error();
    }
    Node *lo = e->slice.lo, *ext = e->slice.hi;
    int64_t l = 0, h, n = known_length(x, bt);
    bool kl = sym_const(x->a, lo, &l), kh = sym_const(x->a, e->slice.hi, &h);
    if (kl && kh && l > h) {
        diag_error(x->sink, e->span, E_BOUNDS, "take a part inside the view: x[a..b] with a <= b <= len(x)",
                   "the part %s starts at %lld, past its end %lld: it would fail on every run", estr(x, e),
                   (long long)l, (long long)h);
        return type_error();
    }
    if (kh && n >= 0 && h > n) {
        diag_error(x->sink, e->span, E_BOUNDS, "take a part inside the view: x[a..b] with a <= b <= len(x)",
                   "the part %s ends at %lld, past the end of %s (%lld element%s): it would fail on every run",
                   estr(x, e), (long long)h, estr(x, base), (long long)n, n == 1 ? "" : "s");
        return type_error();
    }
    if (!(lo->kind == N_INT && lo->lit.ival == 0)) {
        ext = node_new(x->a, N_BINARY, e->span);
        ext->binary.op = T_MINUS;
        ext->binary.a = e->slice.hi;
        ext->binary.b = lo;
        ext->ty = type_prim(TY_USIZE);
    }
    return view_type(x, bt->access, bt->elem, ext, bt->place);
}

static Type *check_field(Ctx *x, Node *e)
{
    Node *base = e->field.base;
    const char *id = e->field.id ? e->field.id : "?";
    if (base && base->kind == N_NAME && base->name.id && strcmp(base->name.id, "Cache") == 0 &&
        !scope_find(x, "Cache", NULL)->decl) {
        check_name(x, base, true);
        base->ty = base->name.sym->ty;   /* the namespace's opaque type: the tree stays typed */
        static const char *const hints[] = {"all", "l2", "streaming", "last_use", "read_only"};
        for (size_t i = 0; i < sizeof hints / sizeof *hints; i++)
            if (strcmp(id, hints[i]) == 0)
                return base->name.sym->ty;
        diag_error(x->sink, e->span, E_NAME, "the hints are Cache.all, Cache.l2, Cache.streaming, "
                   "Cache.last_use, Cache.read_only", "unknown cache hint Cache.%s", id);
        return type_error();
    }
    if (base && base->kind == N_FIELD && base->field.base && base->field.base->kind == N_NAME &&
        strcmp(base->field.base->name.id, "std") == 0) {
        if (strcmp(base->field.id ? base->field.id : "", "math") == 0 && !math_arity(id)) {
            diag_error(x->sink, e->span, E_NAME, "std.math has exp log exp2 log2 log10 sin cos tan asin acos atan "
                       "atan2 sinh cosh tanh pow hypot cbrt expm1 log1p erf", "std.math has no function `%s`", id);
            return type_error();
        }
        diag_error(x->sink, e->span, E_CALL, arena_printf(x->a, "call it: std.%s.%s(x)", base->field.id, id),
                   "std.%s.%s is a library function: it can only be called", base->field.id, id);
        return type_error();
    }
    Type *bt = check_expr(x, base, NULL);
    if (is_error(bt))
        return bt;
    diag_error(x->sink, e->span, E_TYPE_MISMATCH, "views have len(x); values have no fields",
               "%s (%s) has no field `%s`", estr(x, base), tstr(x, bt), id);
    return type_error();
}

/* ------------------------------------------------------- assignability */

static bool refuse_place(Ctx *x, Node *e, bool report, const char *help, const char *fmt, const char *a,
                         const char *b)
{
    if (report)
        diag_error(x->sink, e->span, E_ASSIGN, help, fmt, a, b);
    return false;
}

static bool name_assignable(Ctx *x, Node *e, bool report, const char *why)
{
    Scope *where = NULL;
    Sym *s = e->name.sym;
    if (!s)
        return false;
    Sym *found = scope_find(x, e->name.id, &where);
    if (found == s && where && where->fn_level < x->fn_level && (s->kind == SYM_LOCAL || s->kind == SYM_PARAM))
        return refuse_place(x, e, report, "a closure captures by value: return the new value instead",
                            "cannot %s `%s`: a closure holds a copy of it", why, s->id);
    if (s->ty && s->ty->kind == TY_VIEW)
        return refuse_place(x, e, report, "assign its elements: x[i] = v", "cannot %s `%s`: a view is not reassigned",
                            why, s->id);
    if (s->kind == SYM_PARAM && s->ty && s->ty->kind == TY_REF)
        return true;
    if (s->kind == SYM_LOCAL && s->mut)
        return true;
    if (s->kind == SYM_LOCAL)
        return refuse_place(x, e, report, arena_printf(x->a, "declare it `let mut %s`", s->id),
                            "cannot %s `%s`: it is immutable", why, s->id);
    if (s->kind == SYM_PARAM)
        return refuse_place(x, e, report, arena_printf(x->a, "copy it first: `let mut %s2 = %s;`", s->id, s->id),
                            "cannot %s the parameter `%s`: parameters are immutable (rw<T> is passed by reference)",
                            why, s->id);
    return refuse_place(x, e, report, "assign a `let mut` binding, an rw<T> parameter or an element",
                        "cannot %s `%s`: it is not a variable", why, s->id);
}

/* Whether e (already checked) names a place that may be written: a `let
 * mut` local, an rw<T> parameter, an element of an rw view, an element of
 * an assignable Array. why: "assign to", "lend as rw". */
bool place_assignable(Ctx *x, Node *e, bool report, const char *why)
{
    if (!why)
        why = "assign to";
    if (!e)
        return false;
    if (e->kind == N_NAME)
        return name_assignable(x, e, report, why);
    if (e->kind == N_INDEX && e->index.base) {
        Type *bt = e->index.base->ty;
        if (is_error(bt))
            return false;
        if (bt->kind == TY_VIEW && bt->access == ACC_RW)
            return true;
        if (bt->kind == TY_VIEW && bt->pipeline)
            return refuse_place(x, e, report, "copy what you compute into a shared array",
                                "cannot %s an element of %s: it is a pipeline's stage, which only its fills write",
                                why, estr(x, e->index.base));
        if (bt->kind == TY_VIEW)
            return refuse_place(x, e, report,
                                arena_printf(x->a, "take it as rw<%s>[..] to write it", tstr(x, bt->elem)),
                                "cannot %s an element of %s: it is an ro view", why, estr(x, e->index.base));
        if (bt->kind == TY_ARRAY)
            return place_assignable(x, e->index.base, report, why);
    }
    return refuse_place(x, e, report, "assign a `let mut` binding, an rw<T> parameter or an element",
                        "cannot %s %s: it is a value, not a variable", why, estr(x, e));
}

/* ----------------------------------------------------------- collectors */

typedef enum { OPK_NUM, OPK_BOOL, OPK_BOOL_INT, OPK_INT } OpKind;

static bool reduce_op_kind(const char *op, OpKind *k, const char **rounding_op)
{
    static const struct { const char *op; OpKind k; const char *num; } ops[] = {
        {"+", OPK_NUM, "add"}, {"*", OPK_NUM, "mul"}, {"min", OPK_NUM, NULL}, {"max", OPK_NUM, NULL},
        {"and", OPK_BOOL, NULL}, {"or", OPK_BOOL, NULL}, {"xor", OPK_BOOL_INT, NULL},
        {"&", OPK_INT, NULL}, {"|", OPK_INT, NULL}, {"^", OPK_INT, NULL},
        {"add_wrap", OPK_INT, NULL}, {"mul_wrap", OPK_INT, NULL},
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (op && strcmp(op, ops[i].op) == 0) {
            *k = ops[i].k;
            *rounding_op = ops[i].num;
            return true;
        }
    return false;
}

static bool op_takes(OpKind k, const Type *t)
{
    switch (k) {
    case OPK_NUM: return is_number(t);
    case OPK_BOOL: return t->kind == TY_BOOL;
    case OPK_BOOL_INT: return t->kind == TY_BOOL || type_is_int(t);
    case OPK_INT: return type_is_int(t);
    }
    return false;
}

/* What each kind of collector operator combines, for the help line. */
static const char *op_help(OpKind k)
{
    switch (k) {
    case OPK_NUM: return "+ * min max combine numbers; for bools use and, or, xor";
    case OPK_BOOL: return "and, or combine bools; for integers use & or |";
    case OPK_BOOL_INT: return "xor combines bools or integers";
    case OPK_INT: return "& | ^ add_wrap mul_wrap combine integers; for bools use and, or, xor";
    }
    return "see the operators in docs/language.md";
}

static const char *collect_name(const Node *e)
{
    return e->collect.kind == COLLECT_REDUCE ? "reduce" : e->collect.kind == COLLECT_SCAN ? "scan" : "compact";
}

static Type *collect_op(Ctx *x, Node *e, Type *vt, bool device)
{
    if (e->collect.kind == COLLECT_COMPACT || is_error(vt))
        return vt;
    OpKind k;
    const char *num = NULL, *op = e->collect.op ? e->collect.op : "?";
    if (!reduce_op_kind(op, &k, &num)) {
        diag_error(x->sink, e->span, E_OPERATOR, "the operators are + * & | ^ min max and or xor add_wrap mul_wrap",
                   "unknown %s operator `%s`", collect_name(e), op);
        return type_error();
    }
    if (type_is_storage_float(vt) || !op_takes(k, vt)) {
        const char *help = type_is_storage_float(vt) ? "yield f32(x) and round the total back once" : op_help(k);
        diag_error(x->sink, e->collect.value->span, E_OPERATOR, help, "%s `%s` cannot combine %s values",
                   collect_name(e), op, tstr(x, vt));
        return type_error();
    }
    /* numerics.md: refused on the pool; on the device a float reduction, a
     * product too, combines in an unspecified order (the receipt says so) */
    if (e->collect.mode == MODE_PARALLEL && !device && type_is_float(vt) && strcmp(op, "*") == 0) {
        diag_error(x->sink, e->span, E_REDUCE_ORDER,
                   "multiply in written order: `reduce * for i in n yield ...`",
                   "a float product (%s) on the pool: a product rounded in blocks is another number, and no "
                   "exact product is offered", tstr(x, vt));
        return type_error();
    }
    if (type_is_float(vt) && num && e->collect.mode == MODE_FOR)
        numerics_add(x, num, vt, vt, "nearest-even");
    return vt;
}

/* scan and compact write into a view; reduce may write one element. */
static Type *collect_dest(Ctx *x, Node *e)
{
    Node *d = e->collect.dest;
    if (!d)
        return NULL;
    int device_before = x->device_indexes;
    Node *host_before = x->host_index;
    if (x->fs)
        x->fs->parallel++;    /* a device total's element: judged below, not as host code */
    Type *t = check_expr(x, d, NULL);
    if (x->fs)
        x->fs->parallel--;
    if (is_error(t))
        return t;
    if (e->collect.kind == COLLECT_REDUCE) {
        /* the total's element is not a lane's: collect_total_placement judges it */
        x->device_indexes = device_before;
        x->host_index = host_before;
        return place_assignable(x, d, true, "write the total into") ? t : type_error();
    }
    if (t->kind != TY_VIEW) {
        diag_error(x->sink, d->span, E_TYPE_MISMATCH, "write into an rw view: `scan + out for ...`",
                   "%s writes into a view, and %s is %s", collect_name(e), estr(x, d), tstr(x, t));
        return type_error();
    }
    if (t->access != ACC_RW) {
        diag_error(x->sink, d->span, E_ASSIGN, "take it as an rw view", "%s writes into %s, an ro view",
                   collect_name(e), estr(x, d));
        return type_error();
    }
    if (t->place == PLACE_DEVICE)
        x->device_indexes++;
    else if (t->place != PLACE_UNIFIED && !x->host_index)
        x->host_index = d;
    return t->elem;
}

/* A device total lands only in a @device element, and a @device element
 * takes only a device reduction: the other way, the total would cross
 * placements without a transfer. A device reduction without an element
 * returns its total to the host (bound with let). */
static bool collect_total_placement(Ctx *x, Node *e)
{
    Node *d = e->collect.dest;
    if (e->collect.kind != COLLECT_REDUCE || !d)
        return true;
    bool dest_device = d->kind == N_INDEX && d->index.base->ty && d->index.base->ty->kind == TY_VIEW &&
                       d->index.base->ty->place == PLACE_DEVICE;
    bool dest_unified = d->kind == N_INDEX && d->index.base->ty && d->index.base->ty->kind == TY_VIEW &&
                        d->index.base->ty->place == PLACE_UNIFIED;
    if (dest_unified || dest_device == e->collect.device)
        return true;
    if (e->collect.device)
        diag_error(x->sink, d->span, E_PLACEMENT,
                   arena_printf(x->a, "bind the total on the host: `let s = reduce %s for ...;`, or write it into "
                                      "a @device element", e->collect.op ? e->collect.op : "+"),
                   "a device reduction writes its total into %s, which is not a @device element: a device total "
                   "lands only in device memory", estr(x, d));
    else
        diag_error(x->sink, d->span, E_PLACEMENT,
                   "reduce over @device views into it, or bind a host total with let and transfer it",
                   "a reduction on the host writes its total into %s, a @device element: a device element takes "
                   "only a device reduction", estr(x, d));
    return false;
}

static Type *collect_body(Ctx *x, Node *e, Type *want)
{
    Type *vt;
    scope_push(x);
    if (e->collect.var) {
        Sym *s = sym_new(x, SYM_LOCAL, e->collect.var, e, type_prim(TY_USIZE));
        s->cname = fresh_cname(x, "v", e->collect.var);
        declare_local(x, s, e->span);
        e->collect.sym = s;
    }
    if (e->collect.keep)
        check_expect(x, e->collect.keep, type_prim(TY_BOOL), "compact's condition");
    vt = want ? check_expectf(x, e->collect.value, want, "the value %s yields", collect_name(e), NULL, NULL)
              : check_expr(x, e->collect.value, NULL);
    scope_pop(x);
    return vt;
}

Type *check_collect(Ctx *x, Node *e, Type *expected)
{
    if (!e->collect.value)
        return type_error();
    if (e->collect.mode == MODE_WARP) {
        /* every thread of the warp gets the one total of its fixed butterfly */
        Type *vt = check_expr(x, e->collect.value, is_number(expected) ? expected : NULL);
        if (!coop_warp_place(x, e, arena_printf(x->a, "`%s %s warp`", collect_name(e), e->collect.op ? e->collect.op : "?")))
            return type_error();
        return collect_op(x, e, vt, false);
    }
    if (e->collect.extent)
        check_expect(x, e->collect.extent, type_prim(TY_USIZE), "a collector's extent");
    LanePlace lp;
    lanes_begin(x, &lp);
    Type *dt = collect_dest(x, e);
    if (dt && is_error(dt))
        return type_error();
    Type *want = dt ? dt : (e->collect.kind != COLLECT_COMPACT && is_number(expected) ? expected : NULL);
    if (x->fs)
        x->fs->parallel++;   /* a collector over @device views is device work: refused below, not E-PLACEMENT */
    Type *vt = collect_body(x, e, want);
    if (x->fs)
        x->fs->parallel--;
    bool device = lanes_end(x, &lp, arena_printf(x->a, "the %s at line %d", collect_name(e), e->span.line));
    vt = collect_op(x, e, vt, device);
    if (is_error(vt))
        return vt;
    e->collect.device = device;
    if (!collect_total_placement(x, e))
        return type_error();
    const char *num = NULL;
    OpKind k;
    /* reduce + parallel over floats is the exact sum on every placement
     * (cairn_sum.h, cairn_devsum.h); any other float reduction on the
     * device combines in a tree whose order the language leaves open */
    bool num_ok = type_is_float(vt) && reduce_op_kind(e->collect.op ? e->collect.op : "+", &k, &num) && num;
    if (num_ok && e->collect.mode == MODE_PARALLEL && e->collect.kind == COLLECT_REDUCE && !strcmp(num, "add"))
        numerics_add_exact_sum(x, vt);
    else if (num_ok && e->collect.device)
        numerics_add_unordered(x, num, vt);
    if (vt->kind == TY_VOID) {
        diag_error(x->sink, e->collect.value->span, E_TYPE_MISMATCH, "yield a number (or a bool)", "%s yields no value", collect_name(e));
        return type_error();
    }
    return e->collect.kind == COLLECT_COMPACT ? type_prim(TY_USIZE) : vt;
}

/* ------------------------------------------------------------ constants */

/* ------------------------------------------------------------ dispatch */

static Type *check_string(Ctx *x, Node *e)
{
    diag_error(x->sink, e->span, E_TYPE_MISMATCH, "print it: print(\"...\") or println(\"...\")",
               "a string literal can only be an argument of print or println");
    return type_error();
}

static Type *check_expr_kind(Ctx *x, Node *e, Type *expected)
{
    switch (e->kind) {
    case N_INT: return int_literal(x, e, e, expected, false);
    case N_FLOAT: return float_literal(x, e, e, expected, false);
    case N_BOOL: return type_prim(TY_BOOL);
    case N_STRING: return check_string(x, e);
    case N_NAME: return check_name(x, e, false);
    case N_UNARY: return check_unary(x, e, expected);
    case N_BINARY: return check_binary(x, e, expected);
    case N_CALL: return check_call(x, e, expected);
    case N_INDEX: return check_index(x, e);
    case N_SLICE: return check_slice(x, e);
    case N_FIELD: return check_field(x, e);
    case N_COLLECT: return check_collect(x, e, expected);
    case N_CLOSURE: return check_closure(x, e, expected);
    case N_SPAWN: return check_spawn(x, e);
    case N_TASK:
        unsupported(x, e->span, "host tasks (a later issue)", NULL);
        return type_error();
    case N_TYPE:
        diag_error(x->sink, e->span, E_TYPE_MISMATCH, arena_printf(x->a, "convert a value to it: %s(x)", estr(x, e)),
                   "the type %s where a value is expected", estr(x, e));
        return type_error();
    default:
        diag_error(x->sink, e->span, E_UNSUPPORTED, "write it as a statement of its own", "a %s where a value is expected is not supported",
                   node_kind_name(e->kind));
        return type_error();
    }
}

Type *check_expr(Ctx *x, Node *e, Type *expected)
{
    if (!e)
        return type_error();
    return settle(e, check_expr_kind(x, e, expected));
}

static const char *convert_help(Ctx *x, Node *e, Type *want, Type *got)
{
    if (type_is_scalar(want) && type_is_scalar(got))
        return arena_printf(x->a, "convert it: %s(%s)", tstr(x, want), estr(x, e));
    if (want->kind == TY_VIEW && got->kind == TY_VIEW && want->access == ACC_RW && got->access == ACC_RO)
        return "an ro view cannot be lent as rw: take it rw where it comes from";
    return NULL;
}

/* Checks e against the type it must have; reports E-TYPE-MISMATCH and
 * gives `want` back, so the surrounding code checks on without a cascade.
 * The description `what` is formatted only for a report (fmt with a and
 * b, or with a and the source of node): the common path stays cheap. */
Type *check_expectf(Ctx *x, Node *e, Type *want, const char *fmt, const char *a, const char *b, const Node *node)
{
    if (!e)
        return type_error();
    Type *t = check_expr(x, e, want);
    if (is_error(t) || is_error(want) || type_equal(t, want))
        return is_error(t) ? t : want;
    const char *what = arena_printf(x->a, fmt ? fmt : "this", a ? a : "", node ? estr(x, node) : b ? b : "");
    diag_error(x->sink, e->span, E_TYPE_MISMATCH, convert_help(x, e, want, t), "%s must be %s, but %s is %s", what,
               tstr(x, want), estr(x, e), tstr(x, t));
    return want;
}

Type *check_expect(Ctx *x, Node *e, Type *want, const char *what)
{
    return check_expectf(x, e, want, "%s%s", what ? what : "this", NULL, NULL);
}
