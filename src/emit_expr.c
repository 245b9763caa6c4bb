/*
 * emit_expr.c: CAIRN expressions as C expressions.
 *
 * Requires: what emit.c requires (a checked program).
 * Guarantees: emit_expr returns a C expression (an arena string) with the
 * value of the CAIRN one; whatever must run before it (a collector's loop,
 * temporaries) has been written to the current function's output.
 *
 * Order of evaluation. C leaves the order of operands and of arguments
 * unspecified; CAIRN computes them left to right. An operand is materialized
 * into a temporary when a later one has an effect (calls a function) or
 * needs statements of its own, so the C compiler has no order to choose.
 *
 * Integer arithmetic goes through the runtime's checked helpers (cn_add_i32,
 * ...), with the guard's location as CN_AT(line, col). Float arithmetic is
 * plain C: the host build uses -ffp-contract=off -fno-fast-math, so every
 * operation rounds once, as written.
 */
#include "chain.h"
#include "check.h"
#include "emit.h"
#include "par.h"
#include "wide.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------- purity */

static bool any_impure(const Vec *v)
{
    for (int i = 0; i < v->n; i++)
        if (emit_is_impure(v->v[i]))
            return true;
    return false;
}

/* Can evaluating e change what another expression sees, or print? Calls of
 * functions and function values can; so can print, assert, and a collector
 * that writes a destination. Guards are not effects here: a failing one
 * ends the process whichever runs first. */
bool emit_is_impure(const Node *e)
{
    if (!e)
        return false;
    switch (e->kind) {
    case N_CALL:
        if (e->call.ck == CALL_FN || e->call.ck == CALL_VALUE || e->call.ck == CALL_METHOD)
            return true;
        if (e->call.ck == CALL_BUILTIN && (e->call.builtin == B_PRINT ||
                                           e->call.builtin == B_PRINTLN ||
                                           e->call.builtin == B_ASSERT))
            return true;
        return any_impure(&e->call.args);
    case N_UNARY: return emit_is_impure(e->unary.a);
    case N_BINARY:
        for (; e->kind == N_BINARY; e = e->binary.a)   /* down a chain: no recursion (chain.h) */
            if (emit_is_impure(e->binary.b))
                return true;
        return emit_is_impure(e);
    case N_INDEX: return emit_is_impure(e->index.base) || emit_is_impure(e->index.index);
    case N_SLICE:
        return emit_is_impure(e->slice.base) || emit_is_impure(e->slice.lo) ||
               emit_is_impure(e->slice.hi);
    case N_FIELD: return emit_is_impure(e->field.base);
    case N_COLLECT:
        return e->collect.dest || emit_is_impure(e->collect.extent) ||
               emit_is_impure(e->collect.keep) || emit_is_impure(e->collect.value);
    default: return false;
    }
}

/* A value no call can change: literals, constants, generic values, and
 * immutable locals and parameters (a rw<T> parameter reads through a
 * pointer, so it can). */
static bool is_stable(const Node *e)
{
    switch (e->kind) {
    case N_INT: case N_FLOAT: case N_BOOL: case N_STRING: return true;
    case N_NAME: {
        Sym *s = e->name.sym;
        if (s->kind == SYM_CONST || s->kind == SYM_GENERIC || s->kind == SYM_FN)
            return true;
        return !s->mut && s->ty && s->ty->kind != TY_REF && s->ty->kind != TY_VIEW;
    }
    case N_UNARY: return is_stable(e->unary.a);
    default: return false;
    }
}

/* The operands of one operation, left to right. want_addr[k] asks for the
 * address of an lvalue (a rw<T> argument) instead of its value. */
/* Can evaluating e fail a guard? An index or a slice, checked integer
 * arithmetic, a call or a collector. Two such operands of one C call would
 * be evaluated in an order C leaves open, and the language reports the
 * first failure in written order (language.md). */
bool emit_may_guard(const Node *e)
{
    if (!e)
        return false;
    switch (e->kind) {
    case N_INDEX: case N_SLICE: case N_CALL: case N_COLLECT: return true;
    case N_UNARY: return (e->unary.op == T_MINUS && e->ty && type_is_int(e->ty)) || emit_may_guard(e->unary.a);
    case N_FIELD: return emit_may_guard(e->field.base);
    case N_BINARY:
        for (; e->kind == N_BINARY; e = e->binary.a) {   /* down a chain: no recursion (chain.h) */
            TokKind op = e->binary.op;
            bool checked = op == T_PLUS || op == T_MINUS || op == T_STAR || op == T_SLASH || op == T_PERCENT;
            if ((checked && e->binary.a->ty && type_is_int(e->binary.a->ty)) || emit_may_guard(e->binary.b))
                return true;
        }
        return emit_may_guard(e);
    default: return false;
    }
}

static void emit_operands(Ex *x, Node **ops, int n, const bool *want_addr, const char **out)
{
    bool *spilled = arena_alloc(x->a, sizeof *spilled * (size_t)(n + 1));   /* zeroed */
    for (int k = 0; k < n; k++) {
        Buf pre = {0};
        Buf *saved = x->fn->out;
        x->fn->out = &pre;
        out[k] = want_addr && want_addr[k] ? emit_addr(x, ops[k]) : emit_operand(x, ops[k]);
        x->fn->out = saved;
        bool all = pre.n || emit_is_impure(ops[k]);
        if (all || (k > 0 && emit_may_guard(ops[k]))) {
            /* everything before a side effect or a statement is computed
             * first; before a guard, whatever could fail a guard of its own */
            for (int j = 0; j < k; j++) {
                if (is_stable(ops[j]) && !(want_addr && want_addr[j]))
                    continue;
                if (!all && !emit_may_guard(ops[j]))
                    continue;
                if (spilled[j])
                    continue;
                const char *t = emit_tmp(x, "a");
                const char *ct = emit_ctype(x, ops[j]->ty);
                if (want_addr && want_addr[j])
                    emit_line(x, "%s *const %s = %s;", ct, t, out[j]);
                else
                    emit_line(x, "const %s %s = %s;", ct, t, out[j]);
                out[j] = t;
                spilled[j] = true;
            }
        }
        buf_append(x->a, x->fn->out, &pre);
    }
}

static const char *materialize(Ex *x, Node *e, const char *v)
{
    const char *t = emit_tmp(x, "t");
    emit_line(x, "const %s %s = %s;", emit_ctype(x, e->ty), t, v);
    return t;
}

/* ------------------------------------------------------ nesting in C */

/* How deep the brackets of a C expression nest ( (, [ and { alike, as
 * clang counts them), string and character literals skipped. */
static int c_nesting(const char *s)
{
    int d = 0, max = 0;
    for (; *s; s++) {
        if (*s == '"' || *s == '\'') {
            char q = *s;
            for (s++; *s && *s != q; s++)
                if (*s == '\\' && s[1])
                    s++;
            if (!*s)
                break;
        } else if (*s == '(' || *s == '[' || *s == '{') {
            if (++d > max)
                max = d;
        } else if (*s == ')' || *s == ']' || *s == '}') {
            d--;
        }
    }
    return max;
}

/* An operand's C expression. One nested deeper than SPILL_NEST brackets is
 * computed into a temporary first (its statements, like a collector's, come
 * before the statement that uses it, and emit_operands keeps the operands
 * before it in order), so however deep the source nests, no expression of
 * the emitted C nests deeper than SPILL_NEST plus the few brackets one
 * operation adds: clang refuses more than 256, and users compile our C with
 * their own compilers, so no -fbracket-depth. An Array is never spilled: a
 * copy of it is not the place an element is written to. */
const char *emit_operand(Ex *x, Node *e)
{
    const char *v = emit_expr(x, e);
    if (strlen(v) <= 2 * SPILL_NEST || !e->ty || e->ty->kind == TY_VOID || e->ty->kind == TY_ARRAY ||
        c_nesting(v) <= SPILL_NEST)
        return v;
    return materialize(x, e, v);
}

/* ------------------------------------------------------------ literals */

/* An integer literal of type t with value (neg ? -mag : mag), written so the
 * C expression has exactly type t (INT64_MIN has no literal of its own). */
const char *emit_int_lit(Ex *x, const Type *t, bool neg, uint64_t mag)
{
    if (neg && mag == 0)
        neg = false;
    const char *ds = emit_fmt(x, "%s%llu", neg ? "-" : "", (unsigned long long)mag);
    switch (t->kind) {
    case TY_BOOL: return mag ? "true" : "false";
    case TY_I64:
        if (neg && mag == (uint64_t)1 << 63)
            return "INT64_MIN";
        return emit_fmt(x, "INT64_C(%s)", ds);
    case TY_I32:
        if (neg && mag == (uint64_t)1 << 31)
            return "INT32_MIN";
        return neg ? emit_fmt(x, "(%s)", ds) : ds;
    case TY_I8: case TY_I16: case TY_U8: case TY_U16:
        return emit_fmt(x, "((%s)%s)", emit_ctype(x, (Type *)t), ds);
    case TY_U32: return emit_fmt(x, "%su", ds);
    case TY_U64: return emit_fmt(x, "UINT64_C(%s)", ds);
    case TY_USIZE: return emit_fmt(x, "((size_t)UINT64_C(%s))", ds);
    case TY_F32: return emit_fmt(x, "%s.0f", ds);
    case TY_F64: return emit_fmt(x, "%s.0", ds);
    default: die("emit: integer literal of type kind %d", (int)t->kind);
    }
}

/* A float as C: a hex float, exact, so the C compiler rounds nothing. */
static const char *float_value(Ex *x, const Type *t, double v)
{
    bool f32 = t->kind == TY_F32;
    if (isnan(v))
        return f32 ? "((float)NAN)" : "((double)NAN)";
    if (isinf(v))
        return v > 0 ? (f32 ? "HUGE_VALF" : "HUGE_VAL") : (f32 ? "(-HUGE_VALF)" : "(-HUGE_VAL)");
    if (f32)
        return emit_fmt(x, "%s%af", signbit(v) ? "-" : "", fabs(v));
    return emit_fmt(x, "%s%a", signbit(v) ? "-" : "", fabs(v));
}

/* A float literal is rounded once, straight from its decimal text to its
 * type: strtof for f32 (going through double first could round twice). */
static const char *float_lit(Ex *x, Node *e)
{
    Type *t = e->ty;
    const char *text = e->lit.text;
    if (!text)
        return float_value(x, t, e->lit.fval);
    char *clean = arena_strdup(x->a, text);
    char *w = clean;
    for (const char *p = text; *p; p++)
        if (*p != '_')
            *w++ = *p;
    *w = 0;
    if (t->kind == TY_F32)
        return float_value(x, t, (double)strtof(clean, NULL));
    if (t->kind == TY_F64)
        return float_value(x, t, strtod(clean, NULL));
    die("emit: float literal of type %s", emit_suffix(t));
}

static const char *int_node_lit(Ex *x, Node *e, bool neg)
{
    if (type_is_float(e->ty)) {
        double v = (double)e->lit.ival;
        return float_value(x, e->ty, neg ? -v : v);
    }
    return emit_int_lit(x, e->ty, neg, e->lit.ival);
}

/* --------------------------------------------------------------- names */

static bool is_captured(Ex *x, const Sym *s)
{
    const Vec *c = x->fn->captures;
    if (!c)
        return false;
    for (int i = 0; i < c->n; i++)
        if (c->v[i] == s)
            return true;
    return false;
}

/* The C lvalue holding a local or parameter: a closure reads its captures
 * from its environment; a rw<T> parameter is a pointer. raw gives the
 * pointer itself. */
static const char *sym_place(Ex *x, const Sym *s, bool raw)
{
    const char *base = is_captured(x, s) ? emit_fmt(x, "cn_env->%s", s->cname) : s->cname;
    if (!raw && s->ty && s->ty->kind == TY_REF)
        return emit_fmt(x, "(*%s)", base);
    return base;
}

static const char *const_value(Ex *x, const Sym *s, Type *t)
{
    if (!t)
        t = s->ty;
    if (type_is_float(t))
        return float_value(x, t, s->fvalue);
    if (t->kind == TY_BOOL)
        return s->value ? "true" : "false";
    if (s->value < 0)
        return emit_int_lit(x, t, true, (uint64_t)0 - (uint64_t)s->value);
    return emit_int_lit(x, t, false, (uint64_t)s->value);
}

static const char *fn_value(Ex *x, Node *fn, Type *fty);

static const char *emit_name(Ex *x, Node *e)
{
    Sym *s = e->name.sym;
    if (!s)
        die("emit: name %s has no symbol", e->name.id);
    switch (s->kind) {
    case SYM_LOCAL:
    case SYM_PARAM:
        return sym_place(x, s, false);
    case SYM_CONST:
    case SYM_GENERIC:
        if (s->has_value)
            return const_value(x, s, e->ty);
        return s->cname;
    case SYM_FN:
        return fn_value(x, s->decl, e->ty);
    default:
        die("emit: name %s of symbol kind %d", e->name.id, (int)s->kind);
    }
}

/* ------------------------------------------------------------ operators */

static const char *arith_name(TokKind op)
{
    switch (op) {
    case T_PLUS: return "add";
    case T_MINUS: return "sub";
    case T_STAR: return "mul";
    case T_SLASH: return "div";
    case T_PERCENT: return "rem";
    default: return NULL;
    }
}

static const char *emit_unary(Ex *x, Node *e)
{
    Node *a = e->unary.a;
    Type *t = e->ty;
    if (e->unary.op == T_MINUS && a->kind == N_INT)
        return int_node_lit(x, a, true);   /* -128 is an i8 literal, not -(128) */
    const char *v = emit_operand(x, a);
    switch (e->unary.op) {
    case T_MINUS:
        if (type_is_int(t))
            return emit_fmt(x, "cn_neg_%s(%s, %s)", emit_suffix(t), v, emit_at(x, e->span));
        return emit_fmt(x, "(-%s)", v);
    case T_BANG: return emit_fmt(x, "(!%s)", v);
    case T_TILDE: return emit_fmt(x, "((%s)~%s)", emit_ctype(x, t), v);
    default: die("emit: unary operator %s", tok_name(e->unary.op));
    }
}

/* One link of a chain: its operator on the C values of its operands. */
static const char *link_value(Ex *x, Node *e, const char *va, const char *vb)
{
    TokKind op = e->binary.op;
    Type *t = e->binary.a->ty;
    const char *name = arith_name(op);
    if (name && type_is_int(t) && fast_marked(x, e)) /* proved at launch: unchecked in the fast version */
        return emit_fmt(x, "CN_FAST_OP(%s, %s, %s, %s, %s)", name, emit_suffix(t), va, vb, emit_at(x, e->span));
    if (name && type_is_int(t))
        return emit_fmt(x, "cn_%s_%s(%s, %s, %s)", name, emit_suffix(t), va, vb, emit_at(x, e->span));
    if (op == T_PERCENT)
        return emit_fmt(x, "cn_rem_%s(%s, %s)", emit_suffix(t), va, vb);
    if (op == T_AMP || op == T_PIPE || op == T_CARET)
        return emit_fmt(x, "((%s)(%s %s %s))", emit_ctype(x, e->ty), va, tok_name(op), vb);
    return emit_fmt(x, "(%s %s %s)", va, tok_name(op), vb);
}

/* The right operand of && or ||, with the statements it needs in pre,
 * indented one level deeper: they run only where the left lets them. */
static const char *right_operand(Ex *x, Node *e, Buf *pre)
{
    Buf *saved = x->fn->out;
    x->fn->out = pre;
    x->fn->indent++;
    const char *b = emit_operand(x, e->binary.b);
    x->fn->indent--;
    x->fn->out = saved;
    return b;
}

/* a && b, a || b: when b needs statements of its own they run only where
 * the left side lets b run. */
static const char *emit_logical(Ex *x, Node *e)
{
    bool and_ = e->binary.op == T_ANDAND;
    const char *a = emit_operand(x, e->binary.a);
    Buf pre = {0};
    const char *b = right_operand(x, e, &pre);
    if (!pre.n)
        return emit_fmt(x, "(%s %s %s)", a, and_ ? "&&" : "||", b);
    const char *t = emit_tmp(x, "c");
    emit_line(x, "bool %s = %s;", t, a);
    emit_line(x, "if (%s%s) {", and_ ? "" : "!", t);
    buf_append(x->a, x->fn->out, &pre);
    x->fn->indent++;
    emit_line(x, "%s = %s;", t, b);
    x->fn->indent--;
    emit_line(x, "}");
    return t;
}

/* A link of a long chain whose left value is in the temporary t: && and ||
 * run their right operand only where the left lets them. */
static void chain_logical_link(Ex *x, Node *e, const char *t)
{
    bool and_ = e->binary.op == T_ANDAND;
    Buf pre = {0};
    const char *b = right_operand(x, e, &pre);
    if (!pre.n) {
        emit_line(x, "%s = %s %s %s;", t, t, and_ ? "&&" : "||", b);
        return;
    }
    emit_line(x, "if (%s%s) {", and_ ? "" : "!", t);
    buf_append(x->a, x->fn->out, &pre);
    x->fn->indent++;
    emit_line(x, "%s = %s;", t, b);
    x->fn->indent--;
    emit_line(x, "}");
}

/* A chain longer than CHAIN_NEST links (chain.h) as statements, one link a
 * line, over a temporary: the leaf into it, then each link in turn, left
 * to right, so C nests nothing however long the chain is (clang refuses
 * 256 nested brackets and overflows its stack on a flat `a + b + ...` of
 * some ten thousand terms, comma chains included). Every link keeps its
 * own guard and location; a right operand's statements (a collector, a
 * temporary) come just before its link, after the left value is held. A
 * link whose type differs from the one below (a comparison over a sum)
 * starts a new temporary. */
static const char *emit_chain(Ex *x, Node *top)
{
    Spine sp;
    Node *leaf = spine_of(&sp, top);
    Type *tt = leaf->ty;
    const char *t = emit_tmp(x, "s");
    emit_line(x, "%s %s = %s;", emit_ctype(x, tt), t, emit_operand(x, leaf));
    for (int i = sp.n - 1; i >= 0; i--) {
        Node *e = sp.v[i];
        if (e->binary.op == T_ANDAND || e->binary.op == T_OROR) {
            chain_logical_link(x, e, t);   /* its left value is a bool, as t is */
            continue;
        }
        const char *v = link_value(x, e, t, emit_operand(x, e->binary.b));
        if (type_equal(e->ty, tt)) {
            emit_line(x, "%s = %s;", t, v);
            continue;
        }
        t = emit_tmp(x, "s");
        tt = e->ty;
        emit_line(x, "%s %s = %s;", emit_ctype(x, tt), t, v);
    }
    spine_free(&sp);
    return t;
}

static const char *emit_binary(Ex *x, Node *e)
{
    if (spine_length(e) > CHAIN_NEST)
        return emit_chain(x, e);
    if (e->binary.op == T_ANDAND || e->binary.op == T_OROR)
        return emit_logical(x, e);
    Node *ops[2] = {e->binary.a, e->binary.b};
    const char *v[2];
    emit_operands(x, ops, 2, NULL, v);
    return link_value(x, e, v[0], v[1]);
}

/* ------------------------------------------------------ index and slice */

/* An index of any integer type, checked against a length: signed ones go
 * through cn_idx_s so a negative index is reported as itself. */
static const char *checked_index(Ex *x, Node *idx, const char *iv, const char *len,
                                 const char *what, Span at)
{
    bool s = type_is_signed(idx->ty);
    return emit_fmt(x, "cn_idx_%s((%s)(%s), %s, %s, %s)", s ? "s" : "u",
                        s ? "long long" : "unsigned long long", iv, len, what, emit_at(x, at));
}

/* An element of an Array that is a place (a local, a parameter, an element
 * of one): the Array is designated by its address, so that an index with
 * statements of its own (a collector, a spilled operand) never leaves the
 * element in a copy of the Array, which a write would miss. */
static const char *array_element(Ex *x, Node *e, const char *what)
{
    Node *ops[2] = {e->index.base, e->index.index};
    const bool addr[2] = {true, false};
    const char *v[2];
    emit_operands(x, ops, 2, addr, v);
    const char *arr = v[0][0] == '&' ? v[0] + 1 : emit_fmt(x, "(*%s)", v[0]);
    const char *len = emit_fmt(x, "%lld", (long long)e->index.base->ty->count);
    return emit_fmt(x, "%s.v[%s]", arr, checked_index(x, e->index.index, v[1], len, what, e->span));
}

static const char *emit_index(Ex *x, Node *e)
{
    const char *ahead = x->fast_pre ? ptrmap_get(x->fast_pre, e) : NULL;
    if (ahead) /* loaded before the copies of a fast loop (emit_fast.c) */
        return ahead;
    Node *base = e->index.base;
    const char *what = emit_src_lit(x, base);
    Type *bt = base->ty;
    if (bt->kind == TY_ARRAY && (base->kind == N_NAME || base->kind == N_INDEX))
        return array_element(x, e, what);
    if (bt->kind == TY_VIEW && e->index.preload) /* read by the lane's load (emit_dev.c) */
        return emit_fmt(x, "cn_p->p%d", e->index.preload - 1);
    Node *ops[2] = {base, e->index.index};
    const char *v[2];
    emit_operands(x, ops, 2, NULL, v);
    if (bt->kind == TY_ARRAY) {
        const char *len = emit_fmt(x, "%lld", (long long)bt->count);
        return emit_fmt(x, "%s.v[%s]", v[0], checked_index(x, e->index.index, v[1], len, what, e->span));
    }
    if (bt->kind != TY_VIEW)
        die("emit: index into type kind %d", (int)bt->kind);
    if (base->kind == N_NAME && e->index.covered)
        return emit_fmt(x, "%s.p[%s]", v[0], v[1]);
    if (base->kind == N_NAME && fast_marked(x, e)) /* proved at launch (emit_fast.c) */
        return emit_fmt(x, "%s.p[CN_FAST_IDX((unsigned long long)(%s), %s.n, %s, %s)]", v[0], v[1], v[0], what,
                        emit_at(x, e->span));
    if (base->kind == N_NAME) {
        const char *len = emit_fmt(x, "%s.n", v[0]);
        return emit_fmt(x, "%s.p[%s]", v[0], checked_index(x, e->index.index, v[1], len, what, e->span));
    }
    bool s = type_is_signed(e->index.index->ty);
    return emit_fmt(x, "(*cn_at_%s_%s(%s, (%s)(%s), %s, %s))", emit_suffix(bt->elem),
                        s ? "s" : "u", v[0], s ? "long long" : "unsigned long long", v[1], what,
                        emit_at(x, e->span));
}

/* x[a..b]: a view of x[a], .., x[b - 1], guarded 0 <= a <= b <= len(x). */
static const char *emit_slice(Ex *x, Node *e)
{
    Node *base = e->slice.base;
    const char *bv = emit_operand(x, base);
    if (!is_stable(base) && base->kind != N_NAME)
        bv = materialize(x, base, bv);
    Type *bt = base->ty;
    const char *suf = emit_suffix(bt->elem);
    if (bt->kind == TY_ARRAY)
        bv = emit_fmt(x, "cn_view_%s_make(%s.v, %lld)", suf, bv, (long long)bt->count);
    const char *lo = "0", *hi = emit_fmt(x, "%s.n", bv);
    bool lo_s = false, hi_s = false;
    if (e->slice.lo) {
        lo = emit_operand(x, e->slice.lo);
        lo_s = type_is_signed(e->slice.lo->ty);
    }
    if (e->slice.hi) {
        if (e->slice.lo && emit_is_impure(e->slice.hi) && !is_stable(e->slice.lo))
            lo = materialize(x, e->slice.lo, lo);
        hi = emit_operand(x, e->slice.hi);
        hi_s = type_is_signed(e->slice.hi->ty);
    }
    return emit_fmt(x, "cn_slice_%s(%s, (long long)(%s), %s, (long long)(%s), %s, %s, %s)",
                        suf, bv, lo, lo_s ? "true" : "false", hi, hi_s ? "true" : "false",
                        emit_src_lit(x, base), emit_at(x, e->span));
}

/* The address of an lvalue: a rw<T> argument, or the place of x OP= e. */
const char *emit_addr(Ex *x, Node *e)
{
    if (e->kind == N_NAME) {
        Sym *s = e->name.sym;
        if (s->ty && s->ty->kind == TY_REF)
            return sym_place(x, s, true);
        return emit_fmt(x, "&%s", sym_place(x, s, false));
    }
    if (e->kind == N_INDEX)
        return emit_fmt(x, "&%s", emit_index(x, e));
    die("emit: %s is not a place", node_kind_name(e->kind));
}

/* --------------------------------------------------------- conversions */

static bool int_range_within(const Type *from, const Type *to)
{
    bool fs = type_is_signed(from), ts = type_is_signed(to);
    int fb = type_bits(from), tb = type_bits(to);
    if (fs == ts)
        return fb <= tb;
    return !fs && ts && fb < tb;   /* u8 fits i16; nothing signed fits an unsigned type */
}

/* f32(h): exact (runtime/cairn_float.h). */
static const char *storage_to_f32(Ex *x, const Type *from, const char *v)
{
    x->uses_float = true;
    return emit_fmt(x, "cn_widen_%s(%s)", emit_suffix(from), v);
}

/* T(v): a conversion that may not fit is guarded; int to float, f64 to f32
 * and back are C casts (round to nearest even); storage floats go through
 * the runtime's exact widening and its single rounding, straight from the
 * f32 or f64 (the checker lets nothing else reach one). */
static const char *emit_convert(Ex *x, Node *e)
{
    Node *arg = e->call.args.v[0];
    Type *from = arg->ty, *to = e->ty;
    const char *v = emit_operand(x, arg);
    const char *ct = emit_ctype(x, to);
    if (from == to || (from->kind == to->kind && type_is_scalar(from)))
        return v;
    if (type_is_storage_float(from)) {
        v = storage_to_f32(x, from, v);
        from = type_prim(TY_F32);
        if (to->kind == TY_F32)
            return v;
    }
    if (type_is_storage_float(to)) {
        x->uses_float = true;
        return emit_fmt(x, "cn_narrow_%s%s(%s, %s)", emit_suffix(to), from->kind == TY_F64 ? "_f64" : "", v,
                            emit_at(x, e->span));
    }
    if (to->kind == TY_BOOL)
        return emit_fmt(x, "((%s) != 0)", v);
    if (type_is_float(to))
        return emit_fmt(x, "((%s)(%s))", ct, v);
    /* to an integer */
    if (from->kind == TY_BOOL)
        return emit_fmt(x, "((%s)(%s))", ct, v);
    if (type_is_float(from))
        return emit_fmt(x, "cn_f2i_%s((double)(%s), %s)", emit_suffix(to), v, emit_at(x, e->span));
    if (int_range_within(from, to))
        return emit_fmt(x, "((%s)(%s))", ct, v);
    bool s = type_is_signed(from);
    return emit_fmt(x, "cn_to_%s_%s((%s)(%s), %s)", emit_suffix(to), s ? "s" : "u",
                        s ? "long long" : "unsigned long long", v, emit_at(x, e->span));
}

/* ---------------------------------------------------------------- calls */

static const char *join(Ex *x, const char **v, int n, const char *first)
{
    Buf b = {0};
    buf_printf(x->a, &b, "%s", first ? first : "");
    for (int i = 0; i < n; i++)
        buf_printf(x->a, &b, "%s%s", i || (first && *first) ? ", " : "", v[i]);
    return b.s ? b.s : "";
}

void emit_params_decl(Ex *x, Node *fn, Buf *b, bool env_first)
{
    const Vec *ps = &fn->fn.params;
    if (env_first)
        buf_printf(x->a, b, "void *cn_envp");
    for (int i = 0; i < ps->n; i++) {
        Node *p = ps->v[i];
        if (!p->param.sym)
            die("emit: parameter %s has no symbol", p->param.id);
        buf_printf(x->a, b, "%s%s %s", i || env_first ? ", " : "", emit_ctype(x, emit_param_type(p)),
                   p->param.sym->cname);
    }
    if (!env_first && !ps->n)
        buf_printf(x->a, b, "void");
}

static bool needs_extent_check(Node *fn)
{
    for (int i = 0; i < fn->fn.params.n; i++) {
        Type *t = emit_param_type(fn->fn.params.v[i]);
        if (t->kind == TY_VIEW && t->extent)
            return true;
    }
    return false;
}


/* A helper C function with its own output; the caller writes its body. */
static EFn *helper_begin(Ex *x, EFn *f, Buf *out, Type *ret)
{
    memset(f, 0, sizeof *f);
    f->ret = ret;
    f->out = out;
    f->indent = 1;
    EFn *saved = x->fn;
    x->fn = f;
    return saved;
}

/* fn__chk(CN_AT(l, c), args): checks each view argument's length against
 * the extent its parameter's type asks for, computed from the arguments
 * themselves (the wrapper's parameters are the callee's, so the extent
 * expression names them as they are), then calls fn. */
static const char *extent_wrapper(Ex *x, Node *fn)
{
    const char *name = emit_fmt(x, "%s__chk", fn->fn.cname);
    if (!nameset_add(x->a, &x->written, name))
        return name;
    Type *ret = emit_fn_ret(fn);
    Buf params = {0}, out = {0};
    emit_params_decl(x, fn, &params, false);
    const char *qual = fn->fn.is_kernel ? "CN_DEV_LANE" : fn->fn.on_device ? "CN_DEV_BOTH" : "static";
    const char *header = emit_fmt(x, "%s %s %s(const char *cn_f, int cn_l, int cn_c%s%s)", qual,
                                      emit_ctype(x, ret), name, fn->fn.params.n ? ", " : "",
                                      fn->fn.params.n ? params.s : "");
    buf_printf(x->a, &x->protos, "%s;\n", header);
    EFn f;
    EFn *saved = helper_begin(x, &f, &out, ret);
    buf_printf(x->a, &out, "%s\n{\n", header);
    const char **args = arena_alloc(x->a, sizeof *args * (size_t)(fn->fn.params.n + 1));
    for (int i = 0; i < fn->fn.params.n; i++) {
        Node *p = fn->fn.params.v[i];
        Type *t = emit_param_type(p);
        args[i] = p->param.sym->cname;
        if (t->kind != TY_VIEW || !t->extent)
            continue;
        const char *want = emit_expr(x, t->extent);
        bool s = t->extent->ty && type_is_signed(t->extent->ty);
        emit_line(x, "cn_extent_check(%s.n, (long long)(%s), %s, %s, %s, %s, cn_f, cn_l, cn_c);",
                  args[i], want, s ? "true" : "false", emit_str_lit(x, fn->fn.id),
                  emit_str_lit(x, p->param.id), emit_src_lit(x, t->extent));
    }
    const char *call = emit_fmt(x, "%s(%s)", fn->fn.cname, join(x, args, fn->fn.params.n, NULL));
    if (ret->kind == TY_VOID)
        emit_line(x, "%s;", call);
    else
        emit_line(x, "return %s;", call);
    buf_printf(x->a, &out, "}\n\n");
    x->fn = saved;
    emit_defs_add(x, &out);
    return name;
}

/* A function whose work may leave device work open when it returns (a
 * held one lets its last run go on): a region or a collector on the device,
 * its own or a callee's. */
static bool leaves_device_work(const Node *fn)
{
    const FnEff *f = fn->fn.effects;
    return f && (f->bits & (1u << EF_DEV));
}

/* devices.md, "One wait, or none": a function whose row has another way
 * to observe keeps every device operation waiting where it stands, and a
 * call that ran device work is one: it waits as soon as the call returns,
 * so a guard that failed in the callee's lanes ends the process before the
 * caller does anything else, as it would have had each region waited. */
static const char *call_then_wait(Ex *x, Node *e, Node *fn, const char *call)
{
    if (!x->fn || !x->fn->unheld || !leaves_device_work(fn))
        return call;
    if (e->ty && e->ty->kind != TY_VOID && emit_fn_ret(fn)->kind != TY_VOID) {
        const char *t = materialize(x, e, call);
        emit_dev_after_op(x);
        return t;
    }
    emit_line(x, "%s;", call);
    emit_dev_after_op(x);
    return "(void)0";
}

static const char *emit_fn_call(Ex *x, Node *e)
{
    Node *fn = e->call.target;
    if (!fn || !fn->fn.cname)
        die("emit: call without a target");
    int n = e->call.args.n;
    bool *addr = arena_alloc(x->a, sizeof *addr * (size_t)(n + 1));
    const char **v = arena_alloc(x->a, sizeof *v * (size_t)(n + 1));
    for (int i = 0; i < n && i < fn->fn.params.n; i++)
        addr[i] = emit_param_type(fn->fn.params.v[i])->kind == TY_REF;
    emit_operands(x, (Node **)e->call.args.v, n, addr, v);
    const char *c = needs_extent_check(fn) ? emit_fmt(x, "%s(%s)", extent_wrapper(x, fn), join(x, v, n, emit_at(x, e->span)))
                                           : emit_fmt(x, "%s(%s)", fn->fn.cname, join(x, v, n, NULL));
    return call_then_wait(x, e, fn, c);
}

/* A call through a function value: its pointer, given its environment. */
static const char *emit_value_call(Ex *x, Node *e)
{
    Node *callee = e->call.callee;
    Type *ft = callee->ty;
    int n = e->call.args.n;
    Node **ops = arena_alloc(x->a, sizeof *ops * (size_t)(n + 1));
    bool *addr = arena_alloc(x->a, sizeof *addr * (size_t)(n + 1));
    const char **v = arena_alloc(x->a, sizeof *v * (size_t)(n + 1));
    ops[0] = callee;
    for (int i = 0; i < n; i++) {
        ops[i + 1] = e->call.args.v[i];
        addr[i + 1] = i < ft->params.n && ((Type *)ft->params.v[i])->kind == TY_REF;
    }
    emit_operands(x, ops, n + 1, addr, v);
    const char *c = v[0];
    if (callee->kind != N_NAME && strncmp(c, "cn_a", 4))
        c = materialize(x, callee, c);
    return emit_fmt(x, "%s.fn(%s)", c, join(x, v + 1, n, emit_fmt(x, "%s.env", c)));
}

static const char *print_one(Ex *x, Type *t, const char *v)
{
    if (t->kind == TY_STRING)
        return emit_fmt(x, "cn_print_str(%s)", v);
    if (t->kind == TY_BOOL)
        return emit_fmt(x, "cn_print_bool(%s)", v);
    if (type_is_int(t))
        return type_is_signed(t) ? emit_fmt(x, "cn_print_i64((long long)(%s))", v)
                                 : emit_fmt(x, "cn_print_u64((unsigned long long)(%s))", v);
    if (type_is_float(t))
        return emit_fmt(x, "cn_print_%s(%s)", emit_suffix(t), v);
    if (type_is_storage_float(t))
        return emit_fmt(x, "cn_print_f32(%s)", storage_to_f32(x, t, v));
    die("emit: print of type kind %d", (int)t->kind);
}

/* print(a, b): every argument is computed before anything is printed, then
 * the values separated by one space; println ends the line. */
static const char *emit_print(Ex *x, Node *e, bool newline)
{
    int n = e->call.args.n;
    Node **args = (Node **)e->call.args.v;
    const char **v = arena_alloc(x->a, sizeof *v * (size_t)(n + 1));
    emit_operands(x, args, n, NULL, v);
    if (any_impure(&e->call.args))
        for (int i = 0; i < n; i++)
            if (!is_stable(args[i]))
                v[i] = materialize(x, args[i], v[i]);
    if (n > CHAIN_NEST) {
        /* many values: one statement each, since a comma expression is a
         * chain to a C compiler (chain.h) */
        for (int i = 0; i < n; i++) {
            if (i)
                emit_line(x, "cn_print_sep();");
            emit_line(x, "%s;", print_one(x, args[i]->ty, v[i]));
        }
        if (newline)
            emit_line(x, "cn_print_nl();");
        return "((void)0)";
    }
    Buf b = {0};
    buf_printf(x->a, &b, "(");
    for (int i = 0; i < n; i++)
        buf_printf(x->a, &b, "%s%s", i ? ", cn_print_sep(), " : "", print_one(x, args[i]->ty, v[i]));
    if (newline)
        buf_printf(x->a, &b, "%scn_print_nl()", n ? ", " : "");
    else if (!n)
        buf_printf(x->a, &b, "(void)0");
    buf_printf(x->a, &b, ")");
    return b.s;
}

/* shl/shr take their count as a long long; a u64 count past LLONG_MAX is
 * out of range anyway, so it saturates. */
static const char *shift_count(Ex *x, Type *t, const char *k)
{
    if (!type_is_signed(t) && type_bits(t) == 64)
        return emit_fmt(x, "cn_count_u64(%s)", k);
    return emit_fmt(x, "(long long)(%s)", k);
}

/* -------------------------------------------------- wide loads and stores */

/* load_wide and store_wide as calls of the runtime's cn_wide_load_T /
 * cn_wide_store_T (runtime/cairn_wide.h), which check the bounds and the
 * alignment first, then move the K elements in one vector access on the
 * device (with the hint's cache operator when the view is global memory)
 * and as K ordinary accesses elsewhere. A load is written
 *
 *     cn_arr_4_f32 cn_wK;
 *     cn_wide_load_f32(x, i, 4, cn_wK.v, CN_CACHE_STREAMING, 1, "x", CN_AT(3, 13));
 *
 * and its value is cn_wK, an Array local that nvcc keeps in registers; a
 * store passes the Array's elements the same way, from a local. */
/* The runtime's arguments after the view, the index and the elements. */
static const char *tail(Ex *x, Node *e)
{
    return emit_fmt(x, "%s, %d, %s, %s", wide_hint_rt(wide_hint(e)), wide_global(e) ? 1 : 0,
                    emit_src_lit(x, wide_view(e)), emit_at(x, e->span));
}

static const char *emit_wide(Ex *x, Node *e)
{
    x->uses_wide = true;
    bool store = wide_is_store(e);
    Node *ops[3] = {wide_view(e), wide_index(e), wide_value(e)};
    const char *v[3];
    emit_operands(x, ops, store ? 3 : 2, NULL, v);
    const char *suf = emit_suffix(wide_view(e)->ty->elem);
    long long k = (long long)wide_count(e);
    if (store) {
        const char *src = emit_tmp(x, "w");
        emit_line(x, "const %s %s = %s;", emit_ctype(x, ops[2]->ty), src, v[2]);
        return emit_fmt(x, "cn_wide_store_%s(%s, %s, %lld, %s.v, %s)", suf, v[0], v[1], k, src, tail(x, e));
    }
    const char *dst = emit_tmp(x, "w");
    emit_line(x, "%s %s;", emit_ctype(x, e->ty), dst);
    emit_line(x, "cn_wide_load_%s(%s, %s, %lld, %s.v, %s);", suf, v[0], v[1], k, dst, tail(x, e));
    return dst;
}

static const char *emit_builtin(Ex *x, Node *e)
{
    int b = e->call.builtin, n = e->call.args.n;
    Node **args = (Node **)e->call.args.v;
    if (b == B_PRINT || b == B_PRINTLN)
        return emit_print(x, e, b == B_PRINTLN);
    if (builtin_is_atomic(b))
        return emit_par_atomic(x, e);
    if (b == B_TRANSFER)
        return emit_dev_transfer(x, e);
    if (b == B_MMA_UNORDERED && n == 6)
        return emit_mma(x, e);
    if (b == B_MMA_UNORDERED || b == B_MMA_LOAD || b == B_MMA_STORE || b == B_MMA_GET || b == B_MMA_SET ||
        b == B_MMA_FILL)
        return emit_frag_op(x, e);
    if (b >= B_SHUFFLE && b <= B_WARP_MATCH)
        return emit_warp_op(x, e);
    if (b == B_WAIT)
        return emit_dev_wait(x, e);
    if (b == B_LOAD_WIDE || b == B_STORE_WIDE)
        return emit_wide(x, e);
    const char **v = arena_alloc(x->a, sizeof *v * (size_t)(n + 1));
    emit_operands(x, args, n, NULL, v);
    Type *t = n ? args[0]->ty : e->ty;
    const char *at = emit_at(x, e->span);
    switch (b) {
    case B_ASSERT:
        return emit_fmt(x, "cn_assert(%s, %s, %s)", v[0],
                            emit_src_lit(x, args[0]), at);
    case B_LEN:
        if (t->kind == TY_ARRAY)
            return emit_fmt(x, "((size_t)%lld)", (long long)t->count);
        return emit_fmt(x, "(%s).n", v[0]);
    case B_MIN: case B_MAX:
        return emit_fmt(x, "cn_%s_%s(%s, %s)", b == B_MIN ? "min" : "max",
                            emit_suffix(e->ty), v[0], v[1]);
    case B_ABS:
        if (type_is_int(t))
            return emit_fmt(x, "cn_abs_%s(%s, %s)", emit_suffix(t), v[0], at);
        return emit_fmt(x, "cn_abs_%s(%s)", emit_suffix(t), v[0]);
    case B_SQRT: case B_FLOOR: case B_CEIL: case B_TRUNC:
        return emit_fmt(x, "cn_%s_%s(%s)", builtin_name(b), emit_suffix(t), v[0]);
    case B_SHL: case B_SHR:
        return emit_fmt(x, "cn_%s_%s(%s, %s, %s)", builtin_name(b), emit_suffix(t), v[0],
                            shift_count(x, args[1]->ty, v[1]), at);
    case B_ADD_WRAP: case B_SUB_WRAP: case B_MUL_WRAP:
        return emit_fmt(x, "cn_%s_%s(%s, %s)", builtin_name(b), emit_suffix(t), v[0], v[1]);
    case B_NEG_WRAP:
        return emit_fmt(x, "cn_neg_wrap_%s(%s)", emit_suffix(t), v[0]);
    case B_TO_BITS:
        x->uses_float |= type_is_storage_float(t);
        return emit_fmt(x, "cn_bits_%s(%s)", emit_suffix(t), v[0]);
    case B_FROM_BITS:
        x->uses_float |= type_is_storage_float(e->ty);
        return emit_fmt(x, "cn_from_bits_%s(%s)", emit_suffix(e->ty), v[0]);
    case B_QUANTIZE:
        x->uses_float = true;
        return emit_fmt(x, "cn_quantize_%s(%s, %s, %s)", emit_suffix(e->ty), v[0], v[1], at);
    case B_QUANTIZE_STOCHASTIC:
        x->uses_float = true;
        return emit_fmt(x, "cn_quantize_stochastic_%s(%s, %s, %s, %s)", emit_suffix(e->ty), v[0], v[1],
                            v[2], at);
    default:
        die("emit: built-in %s is not lowered to C yet", builtin_name(b));
    }
}

static const char *emit_call(Ex *x, Node *e)
{
    switch (e->call.ck) {
    case CALL_FN: return emit_fn_call(x, e);
    case CALL_BUILTIN: return emit_builtin(x, e);
    case CALL_CONVERT: return emit_convert(x, e);
    case CALL_VALUE: return emit_value_call(x, e);
    case CALL_METHOD: return emit_layout_method(x, e);   /* a pipeline's are statements (emit_coop_pipe_op) */
    case CALL_MATH: {
        int n = e->call.args.n;
        const char **v = arena_alloc(x->a, sizeof *v * (size_t)(n + 1));
        emit_operands(x, (Node **)e->call.args.v, n, NULL, v);
        if (math_claim(e->call.math, e->ty))
            x->uses_math = true;
        return emit_fmt(x, "cn_math_%s_%s(%s)", e->call.math, emit_suffix(e->ty),
                            join(x, v, n, NULL));
    }
    case CALL_CONSTRUCT:
        if (e->ty->kind == TY_ARRAY)
            return emit_fmt(x, "%s_zero()", emit_ctype(x, e->ty));
        die("emit: constructing %s is not lowered to C yet", type_str(x->a, e->ty));
    default:
        die("emit: call kind %d is not lowered to C yet", (int)e->call.ck);
    }
}

/* ---------------------------------------------- closures, function values */

/* A named function as a value: an adapter that takes (and ignores) the
 * environment pointer every function value's pointer takes. */
static const char *fn_value(Ex *x, Node *fn, Type *fty)
{
    if (!fn || fn->kind != N_FN || !fty || fty->kind != TY_FN)
        die("emit: function value without a function or its type");
    const char *ft = emit_ctype(x, fty);
    const char *name = emit_fmt(x, "%s__val", fn->fn.cname);
    if (nameset_add(x->a, &x->written, name)) {
        const char *ret = emit_ctype(x, fty->ret);
        Buf ps = {0}, as = {0};
        buf_printf(x->a, &ps, "void *cn_envp");
        for (int i = 0; i < fty->params.n; i++) {
            buf_printf(x->a, &ps, ", %s a%d", emit_ctype(x, fty->params.v[i]), i);
            buf_printf(x->a, &as, "%sa%d", i ? ", " : "", i);
        }
        const char *header = emit_fmt(x, "static %s %s(%s)", ret, name, ps.s);
        buf_printf(x->a, &x->protos, "%s;\n", header);
        buf_printf(x->a, &x->defs, "%s\n{\n    (void)cn_envp;\n    %s%s(%s);\n}\n\n", header,
                   fty->ret->kind == TY_VOID ? "" : "return ", fn->fn.cname, as.s ? as.s : "");
    }
    return emit_fmt(x, "%s_make(%s, NULL)", ft, name);
}

/* The environment of a closure: a struct of copies of what it captures, and
 * a constructor that allocates and fills it. */
static void closure_env(Ex *x, const char *name, const Vec *caps)
{
    Buf *t = &x->types;
    const char **ct = arena_alloc(x->a, sizeof *ct * (size_t)(caps->n + 1));
    for (int i = 0; i < caps->n; i++)
        ct[i] = emit_ctype(x, ((Sym *)caps->v[i])->ty);
    buf_printf(x->a, t, "struct cn_env_%s {\n", name);
    for (int i = 0; i < caps->n; i++)
        buf_printf(x->a, t, "    %s %s;\n", ct[i], ((Sym *)caps->v[i])->cname);
    buf_printf(x->a, t, "};\nstatic inline void *cn_env_%s_new(cn_env_head **cn_list", name);
    for (int i = 0; i < caps->n; i++)
        buf_printf(x->a, t, ", %s %s", ct[i], ((Sym *)caps->v[i])->cname);
    buf_printf(x->a, t, ", const char *cn_f, int cn_l, int cn_c)\n{\n");
    buf_printf(x->a, t, "    struct cn_env_%s *cn_e = (struct cn_env_%s *)cn_env_alloc(cn_list, "
                        "sizeof *cn_e, cn_f, cn_l, cn_c);\n", name, name);
    for (int i = 0; i < caps->n; i++) {
        const char *c = ((Sym *)caps->v[i])->cname;
        buf_printf(x->a, t, "    cn_e->%s = %s;\n", c, c);
    }
    buf_printf(x->a, t, "    return cn_e;\n}\n\n");
}

/* fn(p:T) -> R = e: a C function taking the environment first, and a value
 * pairing it with a fresh environment holding copies of the captures. */
static const char *emit_closure(Ex *x, Node *e)
{
    int id = ++x->next_closure;
    const char *name = e->fn.cname ? e->fn.cname : emit_fmt(x, "cn_closure%d", id);
    const char *ft = emit_ctype(x, e->ty);
    const Vec *caps = &e->fn.captures;
    if (caps->n)
        closure_env(x, name, caps);
    Buf params = {0};
    emit_params_decl(x, e, &params, true);
    const char *header = emit_fmt(x, "static %s %s(%s)", emit_ctype(x, emit_fn_ret(e)), name,
                                      params.s);
    buf_printf(x->a, &x->protos, "%s;\n", header);
    emit_fn_body(x, e, name, caps, header);
    if (!caps->n)
        return emit_fmt(x, "%s_make(%s, NULL)", ft, name);
    const char *list = x->fn->has_envs && x->fn->free_envs ? "&cn_envs" : "NULL";
    Buf b = {0};
    buf_printf(x->a, &b, "%s_make(%s, cn_env_%s_new(%s", ft, name, name, list);
    for (int i = 0; i < caps->n; i++)
        buf_printf(x->a, &b, ", %s", sym_place(x, caps->v[i], true));
    buf_printf(x->a, &b, ", %s))", emit_at(x, e->span));
    return b.s;
}

/* ----------------------------------------------------------- collectors */

/* The symbol of a collector's index when the checker did not record it in
 * collect.sym: the first use of its name in the yield (or condition). */
static Sym *find_index_sym(Node *n, const char *var)
{
    if (!n)
        return NULL;
    Sym *s = NULL;
    switch (n->kind) {
    case N_NAME:
        if (!strcmp(n->name.id, var) && n->name.sym && n->name.sym->kind == SYM_LOCAL)
            return n->name.sym;
        return NULL;
    case N_UNARY: return find_index_sym(n->unary.a, var);
    case N_BINARY: {
        /* the leaf, then the right operands in source order (chain.h) */
        Spine sp;
        s = find_index_sym(spine_of(&sp, n), var);
        for (int i = sp.n - 1; !s && i >= 0; i--)
            s = find_index_sym(sp.v[i]->binary.b, var);
        spine_free(&sp);
        return s;
    }
    case N_CALL:
        for (int i = 0; i < n->call.args.n; i++)
            if ((s = find_index_sym(n->call.args.v[i], var)))
                return s;
        return find_index_sym(n->call.callee, var);
    case N_INDEX:
        return (s = find_index_sym(n->index.base, var)) ? s : find_index_sym(n->index.index, var);
    case N_SLICE:
        if ((s = find_index_sym(n->slice.lo, var)) || (s = find_index_sym(n->slice.hi, var)))
            return s;
        return find_index_sym(n->slice.base, var);
    case N_FIELD: return find_index_sym(n->field.base, var);
    case N_COLLECT:
        if ((s = find_index_sym(n->collect.extent, var)) || (s = find_index_sym(n->collect.dest, var)))
            return s;
        if (n->collect.var && !strcmp(n->collect.var, var))
            return NULL;   /* shadowed inside */
        return (s = find_index_sym(n->collect.keep, var)) ? s : find_index_sym(n->collect.value, var);
    default: return NULL;
    }
}

/* The C spelling of an integer type's largest or smallest value. */
const char *emit_int_limit(const Type *t, bool max)
{
    switch (t->kind) {
    case TY_I8: return max ? "INT8_MAX" : "INT8_MIN";
    case TY_I16: return max ? "INT16_MAX" : "INT16_MIN";
    case TY_I32: return max ? "INT32_MAX" : "INT32_MIN";
    case TY_I64: return max ? "INT64_MAX" : "INT64_MIN";
    case TY_U8: return max ? "UINT8_MAX" : "((uint8_t)0)";
    case TY_U16: return max ? "UINT16_MAX" : "((uint16_t)0)";
    case TY_U32: return max ? "UINT32_MAX" : "0u";
    case TY_U64: return max ? "UINT64_MAX" : "UINT64_C(0)";
    case TY_USIZE: return max ? "SIZE_MAX" : "((size_t)0)";
    default: die("emit: no limits for type kind %d", (int)t->kind);
    }
}

/* The value of an operator over no terms. A float sum starts from -0.0,
 * which leaves every first term as it is (+0.0 included), and an empty sum
 * is set to +0.0 after the loop. */
static const char *identity(Ex *x, const char *op, Type *t)
{
    bool fl = type_is_float(t), f32 = t->kind == TY_F32;
    if (!strcmp(op, "and"))
        return "true";
    if (!strcmp(op, "or"))
        return "false";
    if (!strcmp(op, "min") || !strcmp(op, "max")) {
        bool mx = !strcmp(op, "max");
        if (fl)
            return mx ? (f32 ? "(-HUGE_VALF)" : "(-HUGE_VAL)") : (f32 ? "HUGE_VALF" : "HUGE_VAL");
        return emit_int_limit(t, !mx);
    }
    if (!strcmp(op, "*") || !strcmp(op, "mul_wrap"))
        return fl ? (f32 ? "1.0f" : "1.0") : emit_int_lit(x, t, false, 1);
    if (!strcmp(op, "&"))
        return t->kind == TY_BOOL ? "true" : emit_fmt(x, "((%s)~(%s)0)", emit_ctype(x, t), emit_ctype(x, t));
    if (fl)
        return f32 ? "(-0.0f)" : "(-0.0)";
    return t->kind == TY_BOOL ? "false" : emit_int_lit(x, t, false, 0);
}

const char *emit_combine(Ex *x, const char *op, Type *t, const char *acc, const char *y, Span at)
{
    const char *suf = emit_suffix(t);
    bool in = type_is_int(t);
    if (!strcmp(op, "+") || !strcmp(op, "*")) {
        if (in)
            return emit_fmt(x, "cn_%s_%s(%s, %s, %s)", *op == '+' ? "add" : "mul", suf, acc, y,
                                emit_at(x, at));
        return emit_fmt(x, "%s %s %s", acc, op, y);
    }
    if (!strcmp(op, "min") || !strcmp(op, "max") || !strcmp(op, "add_wrap") || !strcmp(op, "mul_wrap"))
        return emit_fmt(x, "cn_%s_%s(%s, %s)", op, suf, acc, y);
    if (!strcmp(op, "and"))
        return emit_fmt(x, "%s && %s", acc, y);
    if (!strcmp(op, "or"))
        return emit_fmt(x, "%s || %s", acc, y);
    if (!strcmp(op, "xor") && t->kind == TY_BOOL)
        return emit_fmt(x, "%s != %s", acc, y);
    const char *c = !strcmp(op, "xor") ? "^" : op;
    if (!strcmp(c, "&") || !strcmp(c, "|") || !strcmp(c, "^"))
        return emit_fmt(x, "(%s)(%s %s %s)", emit_ctype(x, t), acc, c, y);
    die("emit: reduce operator %s", op);
}

/* reduce / scan / compact over `for i in n`, in index order, as a loop
 * before the statement that uses the value; the value is a temporary (the
 * total, or compact's count). */
static const char *emit_collect(Ex *x, Node *e)
{
    CollectKind k = e->collect.kind;
    if (e->collect.mode == MODE_PARALLEL || e->collect.device)
        return emit_par_collect(x, e);   /* on the pool or the device: emit_par.c, emit_dev.c */
    if (e->collect.mode == MODE_WARP)
        return emit_warp_reduce(x, e);
    if (!e->collect.extent)
        die("emit: a collector without an extent");
    Node *ext = e->collect.extent, *value = e->collect.value;
    const char *var = e->collect.var;
    Sym *is = e->collect.sym;
    if (!is && var && strcmp(var, "_"))
        is = find_index_sym(value, var);
    if (!is && var && strcmp(var, "_") && e->collect.keep)
        is = find_index_sym(e->collect.keep, var);
    Type *nt = ext->ty, *it = is && is->ty ? is->ty : nt, *vt = value->ty;
    const char *iv = is ? is->cname : emit_tmp(x, "i");
    const char *acc = emit_tmp(x, k == COLLECT_COMPACT ? "count" : "acc");
    const char *dest = NULL, *dsuf = NULL, *dname = NULL;
    if (k != COLLECT_REDUCE) {
        Type *dt = e->collect.dest->ty;
        dsuf = emit_suffix(dt->elem);
        dname = emit_src_lit(x, e->collect.dest);
        dest = emit_tmp(x, "dest");
        emit_line(x, "const cn_view_%s %s = %s;", dsuf, dest, emit_expr(x, e->collect.dest));
    }
    const char *end = emit_tmp(x, "end");
    emit_line(x, "const %s %s = %s;", emit_ctype(x, nt), end, emit_expr(x, ext));
    if (k == COLLECT_COMPACT)
        emit_line(x, "size_t %s = 0;", acc);
    else
        emit_line(x, "%s %s = %s;", emit_ctype(x, vt), acc, identity(x, e->collect.op, vt));
    const char *ict = emit_ctype(x, it);
    emit_line(x, "for (%s %s = 0; %s < %s; %s++) {", ict, iv, iv, end, iv);
    x->fn->indent++;
    if (k == COLLECT_COMPACT) {
        emit_line(x, "if (%s) {", emit_expr(x, e->collect.keep));
        x->fn->indent++;
    }
    const char *y = emit_tmp(x, "y");
    emit_line(x, "const %s %s = %s;", emit_ctype(x, vt), y, emit_expr(x, value));
    if (k == COLLECT_COMPACT) {
        emit_line(x, "%s.p[cn_idx_u(%s, %s.n, %s, %s)] = %s;", dest, acc, dest, dname,
                  emit_at(x, e->span), y);
        emit_line(x, "%s++;", acc);
        x->fn->indent--;
        emit_line(x, "}");
    } else {
        emit_line(x, "%s = %s;", acc, emit_combine(x, e->collect.op, vt, acc, y, e->span));
        if (k == COLLECT_SCAN) {
            bool s = type_is_signed(it);
            emit_line(x, "*cn_at_%s_%s(%s, (%s)%s, %s, %s) = %s;", dsuf, s ? "s" : "u", dest,
                      s ? "long long" : "unsigned long long", iv, dname, emit_at(x, e->span), acc);
        }
    }
    x->fn->indent--;
    emit_line(x, "}");
    if (k != COLLECT_COMPACT && !strcmp(e->collect.op, "+") && type_is_float(vt))
        emit_line(x, "if (%s == 0)\n%*s    %s = 0.0%s;", end, 4 * x->fn->indent, "", acc,
                  vt->kind == TY_F32 ? "f" : "");
    if (k == COLLECT_REDUCE && e->collect.dest)
        emit_line(x, "%s = %s;", emit_expr(x, e->collect.dest), acc);
    return acc;
}

/* ------------------------------------------------------------- dispatch */

const char *emit_expr(Ex *x, Node *e)
{
    switch (e->kind) {
    case N_INT: return int_node_lit(x, e, false);
    case N_FLOAT: return float_lit(x, e);
    case N_BOOL: return e->lit.bval ? "true" : "false";
    case N_STRING: return emit_str_lit(x, e->lit.sval ? e->lit.sval : "");
    case N_NAME: return emit_name(x, e);
    case N_UNARY: return emit_unary(x, e);
    case N_BINARY: return emit_binary(x, e);
    case N_CALL: return emit_call(x, e);
    case N_INDEX: return emit_index(x, e);
    case N_SLICE: return emit_slice(x, e);
    case N_COLLECT: return emit_collect(x, e);
    case N_CLOSURE: return emit_closure(x, e);
    case N_SPAWN: return emit_dev_spawn(x, e);
    default: die("emit: %s expressions are not lowered to C yet", node_kind_name(e->kind));
    }
}
