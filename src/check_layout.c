/*
 * check_layout.c: `layout NAME = ...;` declarations evaluated into the
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
#include "check.h"
#include "layout.h"
#include "sym.h"

#include <string.h>

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
    if (later) {
        unsupported(x, e->span, "layout methods whose arguments are known only at run time (a later issue)",
                    "give the arguments as constants");
        return type_error();
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
