/*
 * check_wide.c: the rules of wide loads and stores (devices.md, "Wide
 * loads and stores"):
 *
 *     load_wide[K](x, i)        load_wide[K](x, i, Cache.streaming)
 *     store_wide(x, i, v)       store_wide(x, i, v, Cache.streaming)
 *
 * Requires: the callee resolved to the built-in (check_builtin.c).
 * Guarantees, for an accepted call: x is a view of a scalar element T, i a
 * usize, K a power of two with K * sizeof(T) <= 16 (E-WIDE), a load's type
 * Array[T, K] and a store's v an Array[T, K] of x's own element type
 * (E-TYPE-MISMATCH), x rw for a store (E-ASSIGN), and a hint written as
 * Cache.NAME (E-TYPE-MISMATCH, E-CONST) that the access may take (E-WIDE):
 * last_use and read_only only on loads, read_only only from an ro view of
 * @device memory, a shared array only Cache.all. The placement of x is the
 * one an element x[i] would have (E-PLACEMENT), and a part that lies past
 * the end of x on every run is E-BOUNDS now. wide.h reads the result.
 *
 * What the access then is for every other rule (the part x[i .. i + K]) is
 * the race rule's (check_par.c), the cooperative rules' (check_coop.c,
 * coop_global.c) and the effect rows' (effects.c).
 */
#include "check.h"
#include "sym.h"
#include "wide.h"

#include <string.h>

static Node *arg(Node *e, int i)
{
    return e->call.args.v[i];
}

static const char *bname(Node *e)
{
    return builtin_name((Builtin)e->call.builtin);
}

/* The widest K of an element of `bytes` bytes: 16 / bytes. */
static int64_t most_of(int bytes)
{
    return bytes > 0 ? WIDE_MAX_BYTES / bytes : 1;
}

/* K elements of T in one access: K a power of two, K * sizeof(T) <= 16.
 * what: the access as the message names it ("load_wide[4] of f64"). */
static bool width_ok(Ctx *x, Node *at, const char *what, int64_t k, Type *elem)
{
    int bytes = type_bits(elem) / 8;
    bool pow2 = k > 0 && (k & (k - 1)) == 0;
    if (pow2 && k <= WIDE_MAX_BYTES && k * bytes <= WIDE_MAX_BYTES)
        return true;
    int64_t most = most_of(bytes), fit = 1;
    while (fit * 2 <= most && fit * 2 <= k)
        fit *= 2;
    bool store = at->call.builtin == B_STORE_WIDE;
    diag_error(x->sink, at->span, E_WIDE,
               store ? arena_printf(x->a, "store an Array[%s, %lld] (or a shorter one, a power of two) at a time",
                                    tstr(x, elem), (long long)fit)
                     : arena_printf(x->a, "write load_wide[%lld] (or a smaller power of two)", (long long)fit),
               "%s moves %s%s; one access moves a power of two of elements in at most 16 bytes: %s takes 1 to %lld",
               what, k > WIDE_MAX_BYTES ? "more than 16 bytes" : arena_printf(x->a, "%lld bytes", (long long)(k * bytes)),
               pow2 ? "" : arena_printf(x->a, ", and %lld is not a power of two", (long long)k), tstr(x, elem),
               (long long)most);
    return false;
}

/* x: a view (or buffer) of scalars. */
static Type *wide_view_type(Ctx *x, Node *e)
{
    Node *v = arg(e, 0);
    Type *t = check_expr(x, v, NULL);
    if (is_error(t))
        return NULL;
    if (t->kind != TY_VIEW) {
        diag_error(x->sink, v->span, E_TYPE_MISMATCH,
                   t->kind == TY_ARRAY ? "an Array is already a value in registers: index it, v[k]"
                                       : "pass a view or a buffer",
                   "%s moves elements of a view, and %s is %s", bname(e), estr(x, v), tstr(x, t));
        return NULL;
    }
    if (!type_is_scalar(t->elem)) {
        diag_error(x->sink, v->span, E_WIDE, "move views of scalars or storage floats",
                   "%s moves scalars, and %s holds %s", bname(e), estr(x, v), tstr(x, t->elem));
        return NULL;
    }
    return t;
}

/* The hint argument: Cache.NAME written where the access is, so the
 * operator is known when the access is compiled. -1: refused. */
static int hint_of(Ctx *x, Node *e, Node *h)
{
    Type *t = check_expr(x, h, NULL);
    if (is_error(t))
        return -1;
    bool cache = t->kind == TY_OPAQUE && t->name && strcmp(t->name, "Cache") == 0;
    if (!cache) {
        diag_error(x->sink, h->span, E_TYPE_MISMATCH,
                   "name a hint: Cache.all, Cache.l2, Cache.streaming, Cache.last_use or Cache.read_only",
                   "%s's last argument is its cache hint, and %s is %s", bname(e), estr(x, h), tstr(x, t));
        return -1;
    }
    int k = h->kind == N_FIELD ? wide_hint_named(h->field.id) : -1;
    if (k < 0)
        diag_error(x->sink, h->span, E_CONST, "write the hint where the access is: Cache.streaming",
                   "%s's hint must be written as Cache.NAME, so the access's cache operator is known when it "
                   "is compiled, and %s is not", bname(e), estr(x, h));
    return k;
}

/* What the hint may go with: the kind of access, the view's access and
 * placement, a shared array. */
static bool hint_fits(Ctx *x, Node *e, Node *h, WideHint k, Type *vt)
{
    bool store = e->call.builtin == B_STORE_WIDE;
    const char *name = wide_hint_name(k), *view = estr(x, arg(e, 0));
    if (store && (k == WIDE_LAST_USE || k == WIDE_READ_ONLY)) {
        diag_error(x->sink, h->span, E_WIDE, "a store takes Cache.all, Cache.l2 or Cache.streaming",
                   "Cache.%s (%s) is a hint for loads, and store_wide writes %s", name, wide_hint_ptx(k), view);
        return false;
    }
    if (vt->shared && k != WIDE_ALL) {
        diag_error(x->sink, h->span, E_WIDE, "leave the hint out (Cache.all): a block's shared memory has no caches",
                   "%s is a shared array of the block, and Cache.%s (%s) names a cache it does not pass through",
                   view, name, wide_hint_ptx(k));
        return false;
    }
    if (k == WIDE_READ_ONLY && (vt->access != ACC_RO || vt->place != PLACE_DEVICE)) {
        diag_error(x->sink, h->span, E_WIDE,
                   vt->place == PLACE_DEVICE ? "take the view as ro<..>, or use Cache.all or Cache.l2"
                                             : "read @device memory through it, or use Cache.all or Cache.l2",
                   "Cache.read_only (.nc) reads only an ro view of @device memory, which nothing writes while it is "
                   "lent, and %s is %s", view, tstr(x, vt));
        return false;
    }
    return true;
}

/* A part that lies past the end on every run: refused now, as an index is. */
static bool part_in_bounds(Ctx *x, Node *e, Type *vt, int64_t k)
{
    int64_t i, n;
    if (!vt->extent || !sym_const(x->a, vt->extent, &n) || !sym_const(x->a, arg(e, 1), &i))
        return true;
    if (i >= 0 && i <= n && k <= n - i)
        return true;
    diag_error(x->sink, arg(e, 1)->span, E_BOUNDS,
               n >= k ? arena_printf(x->a, "start the %lld elements at most at %lld", (long long)k, (long long)(n - k))
                      : arena_printf(x->a, "%s has %lld element%s: move fewer at a time", estr(x, arg(e, 0)),
                                     (long long)n, n == 1 ? "" : "s"),
               "%s of %s[%lld..%lld] lies past the end of %s, which has %lld element%s: it would fail on every run",
               bname(e), estr(x, arg(e, 0)), (long long)i, (long long)(i + k), estr(x, arg(e, 0)), (long long)n,
               n == 1 ? "" : "s");
    return false;
}

/* The checks both forms share once K is known: the index, the hint, the
 * width, the bounds and the placement. */
static bool access_ok(Ctx *x, Node *e, Type *vt, int64_t k, int nargs)
{
    bool ok = !is_error(check_expectf(x, arg(e, 1), type_prim(TY_USIZE), "%s's index", bname(e), NULL, NULL));
    int hint = WIDE_ALL;
    if (e->call.args.n == nargs + 1) {
        hint = hint_of(x, e, arg(e, nargs));
        ok = hint >= 0 && ok;
    }
    if (!vt || !ok)
        return false;
    const char *what = nargs == 2 ? arena_printf(x->a, "load_wide[%lld] of %s", (long long)k, tstr(x, vt->elem))
                                  : arena_printf(x->a, "store_wide of %s (%s)", estr(x, arg(e, 2)),
                                                 tstr(x, arg(e, 2)->ty));
    if (!width_ok(x, e, what, k, vt->elem) ||
        (hint != WIDE_ALL && !hint_fits(x, e, arg(e, nargs), (WideHint)hint, vt)) || !part_in_bounds(x, e, vt, k))
        return false;
    return !check_index_placement(x, e, arg(e, 0), vt);
}

static bool want_count(Ctx *x, Node *e, int lo, const char *shape)
{
    int n = e->call.args.n;
    if (n == lo || n == lo + 1)
        return true;
    diag_error(x->sink, e->span, E_CALL, arena_printf(x->a, "write %s", shape),
               "%s takes %d arguments, or %d with a cache hint; %d given", bname(e), lo, lo + 1, n);
    check_args_loose(x, e);
    return false;
}

/* K of load_wide[K]: one constant count. -1: refused. */
static int64_t count_of(Ctx *x, Node *e)
{
    int64_t k = 0;
    Node *kn = e->call.targs.n == 1 ? e->call.targs.v[0] : NULL;
    if (!kn || kn->kind == N_TYPE || is_error(check_expect(x, kn, type_prim(TY_USIZE), "load_wide's K")) ||
        !sym_const(x->a, kn, &k)) {
        diag_error(x->sink, kn ? kn->span : e->span, E_CONST, "write load_wide[4](x, i)",
                   "load_wide takes one constant count K, the elements it reads at once");
        return -1;
    }
    return k;
}

/* load_wide[K](x, i[, hint]) -> Array[T, K] */
Type *check_load_wide(Ctx *x, Node *e)
{
    int64_t k = count_of(x, e);
    if (k < 0) {
        check_args_loose(x, e);
        return type_error();
    }
    if (!want_count(x, e, 2, "load_wide[K](x, i) or load_wide[K](x, i, Cache.streaming)"))
        return type_error();
    Type *vt = wide_view_type(x, e);
    if (!access_ok(x, e, vt, k, 2))
        return type_error();
    return array_type(x, vt->elem, k);
}

/* v of store_wide: an Array of x's own element type; K is its length. */
static int64_t stored_count(Ctx *x, Node *e, Type *vt)
{
    Node *v = arg(e, 2);
    Type *t = check_expr(x, v, NULL);
    if (is_error(t) || !vt)
        return -1;
    if (t->kind == TY_ARRAY && type_equal(t->elem, vt->elem))
        return t->count;
    diag_error(x->sink, v->span, E_TYPE_MISMATCH,
               t->kind == TY_ARRAY ? arena_printf(x->a, "store an Array[%s, K]: convert the elements first", tstr(x, vt->elem))
                                   : arena_printf(x->a, "store an Array[%s, K], e.g. one load_wide gave",
                                                  tstr(x, vt->elem)),
               "store_wide writes an Array of %s's own element type %s, and %s is %s", estr(x, arg(e, 0)),
               tstr(x, vt->elem), estr(x, v), tstr(x, t));
    return -1;
}

/* store_wide(x, i, v[, hint]) */
Type *check_store_wide(Ctx *x, Node *e)
{
    if (!want_count(x, e, 3, "store_wide(x, i, v) or store_wide(x, i, v, Cache.streaming)"))
        return type_error();
    Type *vt = wide_view_type(x, e);
    int64_t k = stored_count(x, e, vt);
    if (!access_ok(x, e, k < 0 ? NULL : vt, k, 3))
        return type_error();
    if (vt->access != ACC_RW) {
        diag_error(x->sink, arg(e, 0)->span, E_ASSIGN,
                   arena_printf(x->a, "take it as rw<%s>[..] to write it", tstr(x, vt->elem)),
                   "store_wide writes into %s, an ro view", estr(x, arg(e, 0)));
        return type_error();
    }
    return type_prim(TY_VOID);
}
