/*
 * check_builtin.c: the built-in functions' rules.
 *
 * Requires: the call's callee resolved to a built-in (check_call.c).
 * Guarantees: call.ck = CALL_BUILTIN and call.builtin set; the arguments
 * typed by each built-in's rule. Built-ins whose rules belong to a later
 * issue are refused (E-UNSUPPORTED, deferred) after the few rules the spec's
 * examples need now: E-MMA (mma_unordered). The storage-float operations
 * (quantize, to_bits, from_bits) and the wide accesses (load_wide,
 * store_wide) are complete.
 */
#include "check.h"
#include "layout.h"
#include "sym.h"
#include "wide.h"

#include <string.h>

static Node *arg(Node *e, int i)
{
    return e->call.args.v[i];
}

/* shape: how a call is written; "%s" in it stands for the built-in's name
 * (formatted only for a report). */
static bool want_args(Ctx *x, Node *e, int n, const char *shape)
{
    if (e->call.args.n == n)
        return true;
    const char *written = arena_printf(x->a, shape, builtin_name((Builtin)e->call.builtin));
    diag_error(x->sink, e->span, E_CALL, arena_printf(x->a, "write %s", written), "%s takes %d argument(s), %d given",
               builtin_name((Builtin)e->call.builtin), n, e->call.args.n);
    check_args_loose(x, e);
    return false;
}

static Type *check_warp_op(Ctx *x, Node *e, Builtin b);

static Type *later(Ctx *x, Node *e, const char *what)
{
    unsupported(x, e->span, what, NULL);
    check_args_loose(x, e);
    return type_error();
}

static bool is_number(const Type *t)
{
    return type_is_int(t) || type_is_float(t);
}

static Type *refuse_storage(Ctx *x, Node *e, Node *a, Type *t)
{
    const char *b = builtin_name((Builtin)e->call.builtin);
    diag_error(x->sink, a->span, E_OPERATOR, arena_printf(x->a, "widen first: %s(f32(%s))", b, estr(x, a)),
               "%s of %s, a storage float: storage floats never compute", b, tstr(x, t));
    return type_error();
}

/* min, max, add_wrap, sub_wrap, mul_wrap: two arguments of one type. */
static Type *same_pair(Ctx *x, Node *e, Type *expected, bool ints_only)
{
    const char *b = builtin_name((Builtin)e->call.builtin);
    if (!want_args(x, e, 2, "%s(a, b)"))
        return type_error();
    Type *ts[2];
    check_same(x, (Node **)e->call.args.v, 2, is_number(expected) ? expected : NULL, ts);
    for (int i = 0; i < 2; i++) {
        if (is_error(ts[i]))
            return type_error();
        if (type_is_storage_float(ts[i]))
            return refuse_storage(x, e, arg(e, i), ts[i]);
        if (ints_only ? !type_is_int(ts[i]) : !is_number(ts[i])) {
            diag_error(x->sink, arg(e, i)->span, E_TYPE_MISMATCH,
                       ints_only ? "pass an integer, or convert: i64(x)" : "pass a number, or convert: f64(x)",
                       "%s takes %s, and %s is %s", b,
                       ints_only ? "integers" : "numbers", estr(x, arg(e, i)), tstr(x, ts[i]));
            return type_error();
        }
    }
    if (!type_equal(ts[0], ts[1])) {
        diag_error(x->sink, e->span, E_TYPE_MISMATCH,
                   arena_printf(x->a, "convert one: %s(%s(%s), %s)", b, tstr(x, ts[1]), estr(x, arg(e, 0)),
                                estr(x, arg(e, 1))),
                   "%s takes two values of one type, here %s and %s", b, tstr(x, ts[0]), tstr(x, ts[1]));
        return type_error();
    }
    return ts[0];
}

/* abs, neg_wrap, sqrt, floor, ceil, trunc: one argument. */
static Type *one_arg(Ctx *x, Node *e, Type *expected, bool floats, bool ints, bool signed_only)
{
    const char *b = builtin_name((Builtin)e->call.builtin);
    if (!want_args(x, e, 1, "%s(x)"))
        return type_error();
    Node *a = arg(e, 0);
    Type *want = is_number(expected) ? expected : (floats && !ints && is_untyped(a) ? type_prim(TY_F64) : NULL);
    Type *t = check_expr(x, a, want);
    if (is_error(t))
        return t;
    if (type_is_storage_float(t))
        return refuse_storage(x, e, a, t);
    if (type_is_float(t) && floats)
        return t;
    if (type_is_int(t) && ints && (type_is_signed(t) || !signed_only))
        return t;
    DiagCode code = type_is_int(t) && ints ? E_OPERATOR : E_TYPE_MISMATCH;
    const char *help = type_is_int(t) && floats && !type_is_signed(t) && strcmp(b, "abs") == 0
                           ? arena_printf(x->a, "an unsigned value is its own absolute value: write `%s`", estr(x, a))
                       : type_is_int(t) && floats ? arena_printf(x->a, "convert: %s(f64(%s))", b, estr(x, a))
                       : code == E_OPERATOR     ? arena_printf(x->a, "convert to a signed type: %s(i64(%s))", b,
                                                               estr(x, a))
                                                : arena_printf(x->a, "pass %s", floats && ints ? "a signed integer or a float"
                                                                                : floats ? "an f32 or an f64"
                                                                                         : "a signed integer");
    diag_error(x->sink, a->span, code, help, "%s takes %s, and %s is %s", b,
               floats && ints ? "signed integers and floats" : floats ? "f32 or f64" : "signed integers",
               estr(x, a), tstr(x, t));
    return type_error();
}

/* shl(a, k), shr(a, k): a an integer; k of a's type or usize. A count
 * past a's width is a guard at run time. */
static Type *check_shift(Ctx *x, Node *e, Type *expected)
{
    const char *b = builtin_name((Builtin)e->call.builtin);
    if (!want_args(x, e, 2, "%s(a, k)"))
        return type_error();
    Node *a = arg(e, 0), *k = arg(e, 1);
    Type *tk = NULL;
    if (is_untyped(a) && !type_is_int(expected) && !is_untyped(k))
        tk = check_expr(x, k, NULL);
    Type *ta = check_expr(x, a, type_is_int(expected) ? expected : (type_is_int(tk) ? tk : NULL));
    if (!tk)
        tk = check_expr(x, k, type_is_int(ta) ? ta : type_prim(TY_USIZE));
    if (is_error(ta) || is_error(tk))
        return type_error();
    if (!type_is_int(ta)) {
        diag_error(x->sink, a->span, E_TYPE_MISMATCH, "shift an integer; a float scales by a power of two: x * 2.0",
                   "%s shifts integers, and %s is %s", b, estr(x, a),
                   tstr(x, ta));
        return type_error();
    }
    if (!type_is_int(tk) || (tk != ta && tk->kind != TY_USIZE)) {
        diag_error(x->sink, k->span, E_TYPE_MISMATCH, arena_printf(x->a, "convert: usize(%s)", estr(x, k)),
                   "%s's count must be %s or usize, and %s is %s", b, tstr(x, ta), estr(x, k), tstr(x, tk));
        return type_error();
    }
    return ta;
}

static Type *check_print(Ctx *x, Node *e)
{
    for (int i = 0; i < e->call.args.n; i++) {
        Node *a = arg(e, i);
        if (a && a->kind == N_STRING) {
            a->ty = type_prim(TY_STRING);
            continue;
        }
        Type *t = check_expr(x, a, NULL);
        if (is_error(t) || (type_is_scalar(t) && !type_is_storage_float(t)))
            continue;
        const char *help = type_is_storage_float(t) ? arena_printf(x->a, "widen it: f32(%s)", estr(x, a))
                                                    : "print its elements: for i in 0..len(x) { print(x[i]); }";
        diag_error(x->sink, a->span, E_TYPE_MISMATCH, help, "%s prints scalars and strings, and %s is %s",
                   builtin_name((Builtin)e->call.builtin), estr(x, a), tstr(x, t));
    }
    return type_prim(TY_VOID);
}

static Type *check_assert(Ctx *x, Node *e)
{
    if (want_args(x, e, 1, "assert(condition)"))
        check_expect(x, arg(e, 0), type_prim(TY_BOOL), "assert's condition");
    return type_prim(TY_VOID);
}

static Type *check_len(Ctx *x, Node *e)
{
    if (!want_args(x, e, 1, "len(x)"))
        return type_error();
    Type *t = check_expr(x, arg(e, 0), NULL);
    if (is_error(t))
        return t;
    if (t->kind != TY_VIEW && t->kind != TY_ARRAY) {
        diag_error(x->sink, arg(e, 0)->span, E_TYPE_MISMATCH, "pass a view, a buffer or an Array",
                   "len takes a view or an Array, and %s is %s",
                   estr(x, arg(e, 0)), tstr(x, t));
        return type_error();
    }
    return type_prim(TY_USIZE);
}

/* ------------------------------------------------- transfer and wait */

/* transfer(dst, src): the only crossing between placements. Two views of
 * one element type, dst rw; extents that agree (proved here when both are
 * known, else checked where it runs); sides that do not overlap (two parts
 * of one owner are refused here, and the run-time check covers the rest). */
static Type *check_transfer(Ctx *x, Node *e)
{
    if (!want_args(x, e, 2, "transfer(dst, src)"))
        return type_error();
    Type *td = check_expr(x, arg(e, 0), NULL), *ts = check_expr(x, arg(e, 1), NULL);
    if (is_error(td) || is_error(ts))
        return type_error();
    for (int i = 0; i < 2; i++) {
        Type *t = i ? ts : td;
        if (t->kind != TY_VIEW) {
            diag_error(x->sink, arg(e, i)->span, E_TYPE_MISMATCH, "pass a view or a buffer",
                       "transfer copies between views, and %s is %s", estr(x, arg(e, i)), tstr(x, t));
            return type_error();
        }
    }
    if (!type_equal(td->elem, ts->elem)) {
        diag_error(x->sink, arg(e, 1)->span, E_TYPE_MISMATCH, "convert the elements on one side first",
                   "transfer copies elements as they are: %s holds %s and %s holds %s", estr(x, arg(e, 0)),
                   tstr(x, td->elem), estr(x, arg(e, 1)), tstr(x, ts->elem));
        return type_error();
    }
    if (td->access != ACC_RW) {
        diag_error(x->sink, arg(e, 0)->span, E_ASSIGN, "take the destination as an rw view",
                   "transfer writes into %s, an ro view", estr(x, arg(e, 0)));
        return type_error();
    }
    int64_t dn, sn;
    if (sym_const(x->a, td->extent, &dn) && sym_const(x->a, ts->extent, &sn) && dn != sn) {
        diag_error(x->sink, arg(e, 1)->span, E_EXTENT,
                   arena_printf(x->a, "copy parts of the same length (%lld elements each)",
                                (long long)(dn < sn ? dn : sn)),
                   "transfer's sides must have extents that agree: %s has %lld elements and %s has %lld",
                   estr(x, arg(e, 0)), (long long)dn, estr(x, arg(e, 1)), (long long)sn);
        return type_error();
    }
    Sym *rd = view_root(arg(e, 0)), *rs = view_root(arg(e, 1));
    if (rd && rd == rs) {
        diag_error(x->sink, e->span, E_ALIAS, "copy through a buffer of its own, or between different owners",
                   "transfer's sides are parts of one owner, %s: they must not overlap, and two parts of one "
                   "owner are not proved apart", rd->id);
        return type_error();
    }
    return type_prim(TY_VOID);
}

/* wait(t): the ticket's one wait (its linearity is checked per function,
 * check_tickets in check_par.c). */
static Type *check_wait(Ctx *x, Node *e)
{
    if (!want_args(x, e, 1, "wait(ticket)"))
        return type_error();
    Node *a = arg(e, 0);
    Type *t = check_expr(x, a, NULL);
    if (is_error(t))
        return t;
    if (t->kind != TY_TICKET || a->kind != N_NAME) {
        diag_error(x->sink, a->span, E_TYPE_MISMATCH, "wait for the ticket a spawn gave: `let t = spawn ...; wait(t);`",
                   "wait takes a ticket by its name, and %s is %s", estr(x, a), tstr(x, t));
        return type_error();
    }
    return type_prim(TY_VOID);
}

/* ------------------------------------------------- wide loads and stores */

/*
 * load_wide[K](x, i[, hint]) and store_wide(x, i, v[, hint]) (devices.md,
 * "Wide loads and stores"). For an accepted call: x is a view of a scalar
 * element T, i a usize, K a power of two with K * sizeof(T) <= 16 (E-WIDE),
 * a load's type Array[T, K] and a store's v an Array[T, K] of x's own
 * element type (E-TYPE-MISMATCH), x rw for a store (E-ASSIGN), and a hint
 * written as Cache.NAME (E-TYPE-MISMATCH, E-CONST) that the access may take
 * (E-WIDE): last_use and read_only only on loads, read_only only from an ro
 * view of @device memory, a shared array only Cache.all. The placement of x
 * is the one an element x[i] would have (E-PLACEMENT), and a part that lies
 * past the end of x on every run is E-BOUNDS now. wide.h reads the result;
 * the part x[i .. i + K] it reaches is the race rule's (check_par.c), the
 * cooperative rules' (check_coop.c, coop_global.c) and the effect rows'.
 */

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
    if (kn && kn->kind != N_TYPE && is_error(check_expect(x, kn, type_prim(TY_USIZE), "load_wide's K")))
        return -1;   /* said already */
    if (!kn || kn->kind == N_TYPE || !sym_const(x->a, kn, &k)) {
        if (!x->generic_unknown || !kn || kn->kind == N_TYPE)   /* a generic's K: its instances say */
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

/* ------------------------------------------------- E-MMA, then later */

static bool mma_operands_ok(Ctx *x, Node *e, Type *c, Type *a, Type *b)
{
    if (is_error(c) || is_error(a) || is_error(b))
        return false;
    if (c->kind != TY_VIEW || c->access != ACC_RW || c->elem->kind != TY_F32) {
        diag_error(x->sink, arg(e, 3)->span, E_MMA, "c accumulates in f32: pass an rw<f32>[..] view",
                   "mma_unordered's c must be an rw view of f32, and %s is %s", estr(x, arg(e, 3)), tstr(x, c));
        return false;
    }
    bool av = a->kind == TY_VIEW && type_is_storage_float(a->elem);
    bool bv = b->kind == TY_VIEW && type_is_storage_float(b->elem);
    if (!av || !bv || a->elem != b->elem) {
        Node *bad = !av ? arg(e, 4) : arg(e, 5);
        diag_error(x->sink, bad->span, E_MMA, "store the operands in one storage float (f16 or bf16), e.g. with quantize",
                   "mma_unordered's a and b must be views of one storage float, and here a is %s and b is %s",
                   tstr(x, a), tstr(x, b));
        return false;
    }
    return true;
}

/* The fragment operations (below, "fragments"). */
static Type *check_mma_frag(Ctx *x, Node *e);
static Type *check_mma_load(Ctx *x, Node *e);
static Type *check_mma_store(Ctx *x, Node *e);
static Type *check_mma_elem(Ctx *x, Node *e, bool set);

/* Where the whole-matrix multiply runs: on the device when any of its three
 * views is @device, else on the host (@unified memory is both sides'). The
 * checker refuses a device multiply with a host view, so the emitter reads
 * the answer from the types. */
bool mma_on_device(const Node *e)
{
    for (int i = 3; i < 6 && i < e->call.args.n; i++) {
        const Type *t = ((const Node *)e->call.args.v[i])->ty;
        if (t && t->kind == TY_VIEW && t->place == PLACE_DEVICE)
            return true;
    }
    return false;
}

/* On the device all three views live there (@device, or @unified). */
static bool mma_placement_ok(Ctx *x, Node *e)
{
    if (!mma_on_device(e))
        return true;
    for (int i = 3; i < 6; i++) {
        Node *v = arg(e, i);
        if (v->ty->place == PLACE_DEVICE || v->ty->place == PLACE_UNIFIED)
            continue;
        diag_error(x->sink, v->span, E_PLACEMENT,
                   arena_printf(x->a, "transfer %s to a @device buffer first, or take it as a @device view", estr(x, v)),
                   "mma_unordered runs on the device, since one of its views is @device, and there all three must "
                   "be: %s is %s", estr(x, v), tstr(x, v->ty));
        return false;
    }
    return true;
}

/* mma_unordered(m, n, k, c, a, b): the whole-matrix multiply, on the host
 * (the reference loop) or the device (cairn_mma.h's tiling); its contract
 * goes into the receipt. The fragment form (three arguments) is a later
 * issue. */
static Type *check_mma(Ctx *x, Node *e)
{
    if (e->call.args.n == 3)
        return check_mma_frag(x, e);
    if (e->call.args.n != 6) {
        diag_error(x->sink, e->span, E_CALL, "write mma_unordered(m, n, k, c, a, b), or acc = mma_unordered(acc, a, b) "
                   "on fragments", "mma_unordered takes six arguments (matrices) or three (fragments), %d given",
                   e->call.args.n);
        check_args_loose(x, e);
        return type_error();
    }
    for (int i = 0; i < 3; i++)
        check_expect(x, arg(e, i), type_prim(TY_USIZE), "mma_unordered's m, n and k");
    Type *c = check_expr(x, arg(e, 3), NULL), *a = check_expr(x, arg(e, 4), NULL), *b = check_expr(x, arg(e, 5), NULL);
    if (mma_operands_ok(x, e, c, a, b) && mma_placement_ok(x, e))
        numerics_add_mma(x, a->elem, mma_on_device(e));
    return type_prim(TY_VOID);
}

/* ------------------------------------------- storage-float operations */

/* The one type argument of quantize[T] and from_bits[T]; NULL after a
 * report (the arguments are then checked loosely). */
static Type *type_targ(Ctx *x, Node *e, const char *shape)
{
    if (!e->call.has_targs || e->call.targs.n != 1) {
        diag_error(x->sink, e->span, E_CALL, arena_printf(x->a, "write %s", shape), "%s takes one type argument",
                   builtin_name((Builtin)e->call.builtin));
        check_args_loose(x, e);
        return NULL;
    }
    Type *t = resolve_type(x, e->call.targs.v[0]);
    if (is_error(t)) {
        check_args_loose(x, e);
        return NULL;
    }
    return t;
}

/* The call as written with argument i replaced by conv(argument i): the
 * help of a mismatched argument. */
static const char *call_with(Ctx *x, Node *e, int i, const char *conv)
{
    const char *s = builtin_name((Builtin)e->call.builtin);
    if (e->call.has_targs && e->call.targs.n == 1)
        s = arena_printf(x->a, "%s[%s]", s, estr(x, e->call.targs.v[0]));
    for (int k = 0; k < e->call.args.n; k++) {
        const char *v = estr(x, arg(e, k));
        s = arena_printf(x->a, "%s%s%s", s, k ? ", " : "(", k == i ? arena_printf(x->a, "%s(%s)", conv, v) : v);
    }
    return arena_printf(x->a, "%s)", s);
}

/* Argument i must be exactly `want` (quantize's f32 x and scale, its u32
 * noise): E-TYPE-MISMATCH, with the conversion in the help, otherwise. */
static bool want_exact(Ctx *x, Node *e, int i, Type *want, const char *what)
{
    Type *t = check_expr(x, arg(e, i), want);
    if (is_error(t))
        return false;
    if (type_equal(t, want))
        return true;
    diag_error(x->sink, arg(e, i)->span, E_TYPE_MISMATCH, arena_printf(x->a, "convert it: %s",
                                                                       call_with(x, e, i, tstr(x, want))),
               "%s's %s must be %s, and %s is %s", builtin_name((Builtin)e->call.builtin), what, tstr(x, want),
               estr(x, arg(e, i)), tstr(x, t));
    return false;
}

static bool quantize_target(const Type *t)
{
    switch (t->kind) {
    case TY_I8: case TY_U8: case TY_I16: case TY_U16: return true;
    default: return type_is_storage_float(t);
    }
}

/* quantize[T](x, scale) and quantize_stochastic[T](x, scale, noise): x /
 * scale rounded once to T and clamped to its finite range; T a storage
 * float or i8, u8, i16, u16 (E-QUANTIZE); x and scale f32, noise u32
 * (E-TYPE-MISMATCH). The scale's guard is the runtime's. */
static Type *check_quantize(Ctx *x, Node *e, bool stochastic)
{
    const char *shape = stochastic ? "quantize_stochastic[i8](x, scale, noise)" : "quantize[i8](x, scale)";
    Type *t = type_targ(x, e, shape);
    if (!t)
        return type_error();
    if (!quantize_target(t)) {
        diag_error(x->sink, ((Node *)e->call.targs.v[0])->span, E_QUANTIZE,
                   type_is_float(t) ? arena_printf(x->a, "%s computes: divide instead (x / scale), or quantize into "
                                                         "f16, bf16, f8e4m3, f8e5m2, i8, u8, i16 or u16", tstr(x, t))
                                    : "quantize into f16, bf16, f8e4m3, f8e5m2, i8, u8, i16 or u16",
                   "%s[%s]: %s is not a quantize target (a storage float, or i8, u8, i16, u16)",
                   builtin_name((Builtin)e->call.builtin), tstr(x, t), tstr(x, t));
        check_args_loose(x, e);
        return type_error();
    }
    if (!want_args(x, e, stochastic ? 3 : 2, stochastic ? "%s[T](x, scale, noise)" : "%s[T](x, scale)"))
        return type_error();
    bool ok = want_exact(x, e, 0, type_prim(TY_F32), "x");
    ok &= want_exact(x, e, 1, type_prim(TY_F32), "scale");
    if (stochastic)
        ok &= want_exact(x, e, 2, type_prim(TY_U32), "noise");
    if (!ok)
        return type_error();
    numerics_add_overflow(x, builtin_name((Builtin)e->call.builtin), type_prim(TY_F32), t,
                          stochastic ? "stochastic" : "nearest-even", "saturate");
    return t;
}

/* The unsigned integer as wide as a float: its bits. NULL: not a float. */
static Type *bits_type(const Type *t)
{
    switch (t->kind) {
    case TY_F8E4M3: case TY_F8E5M2: return type_prim(TY_U8);
    case TY_F16: case TY_BF16: return type_prim(TY_U16);
    case TY_F32: return type_prim(TY_U32);
    case TY_F64: return type_prim(TY_U64);
    default: return NULL;
    }
}

/* to_bits(h): a float's bits, as the unsigned integer of its width. */
static Type *check_to_bits(Ctx *x, Node *e)
{
    if (!want_args(x, e, 1, "%s(x)"))
        return type_error();
    Node *a = arg(e, 0);
    Type *t = check_expr(x, a, NULL);
    if (is_error(t))
        return t;
    Type *u = bits_type(t);
    if (u)
        return u;
    diag_error(x->sink, a->span, E_TYPE_MISMATCH,
               type_is_int(t) ? "an integer is its own bits: use it as it is" : "pass a float",
               "to_bits takes a float (f16, bf16, f8e4m3, f8e5m2, f32 or f64), and %s is %s", estr(x, a), tstr(x, t));
    return type_error();
}

/* --------------------------------------------------------------- atomics */

/* atomic_OP(x[i], v), atomic_cas(x[i], expected, desired): the element of
 * an rw view, and values of its type; the result is the old value. */
Type *check_atomic(Ctx *x, Node *e, Builtin b)
{
    const char *name = builtin_name(b);
    int want = b == B_ATOMIC_CAS ? 3 : 2;
    if (e->call.args.n != want) {
        diag_error(x->sink, e->span, E_CALL,
                   arena_printf(x->a, "write %s(x[i], %s)", name, b == B_ATOMIC_CAS ? "expected, desired" : "v"),
                   "%s takes %d arguments, %d given", name, want, e->call.args.n);
        check_args_loose(x, e);
        return type_error();
    }
    Node *el = e->call.args.v[0];
    Type *t = check_expr(x, el, NULL);
    if (is_error(t))
        return t;
    if (el->kind != N_INDEX || !el->index.base->ty || el->index.base->ty->kind != TY_VIEW) {
        diag_error(x->sink, el->span, E_CALL, arena_printf(x->a, "write %s(x[i], ..) with x an rw view", name),
                   "%s updates an element of a view, and %s is not one", name, estr(x, el));
        return type_error();
    }
    if (!place_assignable(x, el, true, "update"))
        return type_error();
    bool fl = b == B_ATOMIC_ADD_UNORDERED;
    bool ok = fl ? type_is_float(t) : (type_is_int(t) || (b == B_ATOMIC_CAS && t->kind == TY_BOOL));
    if (!ok) {
        diag_error(x->sink, el->span, E_OPERATOR,
                   fl ? "use atomic_add_wrap for integers" : "use atomic_add_unordered for f32 and f64",
                   "%s updates %s elements, and %s is %s", name, fl ? "f32 or f64" : "integer", estr(x, el), tstr(x, t));
        return type_error();
    }
    for (int i = 1; i < want; i++)
        check_expectf(x, e->call.args.v[i], t, "the value %s takes", name, NULL, NULL);
    if (fl && !numerics_atomic_in_shared(x, el))
        numerics_add_atomic(x, t, el->index.base->ty->place != PLACE_HOST && el->index.base->ty->place != PLACE_PINNED);
    return t;
}

/* from_bits[T](u): the float T whose bits are u, which is exactly the
 * unsigned integer of T's width. */
static Type *check_from_bits(Ctx *x, Node *e)
{
    Type *t = type_targ(x, e, "from_bits[f16](u)");
    if (!t)
        return type_error();
    Type *u = bits_type(t);
    if (!u) {
        diag_error(x->sink, ((Node *)e->call.targs.v[0])->span, E_TYPE_MISMATCH,
                   "name a float: from_bits[f16](u), from_bits[f32](u), ...",
                   "from_bits makes a float (f16, bf16, f8e4m3, f8e5m2, f32 or f64), and %s is not one", tstr(x, t));
        check_args_loose(x, e);
        return type_error();
    }
    if (!want_args(x, e, 1, "%s[T](u)"))
        return type_error();
    Node *a = arg(e, 0);
    Type *ut = check_expr(x, a, u);
    if (is_error(ut))
        return type_error();
    if (type_equal(ut, u))
        return t;
    diag_error(x->sink, a->span, E_TYPE_MISMATCH,
               arena_printf(x->a, "convert it: from_bits[%s](%s(%s))", tstr(x, t), tstr(x, u), estr(x, a)),
               "from_bits[%s] takes its %d bits as %s, and %s is %s", tstr(x, t), type_bits(t), tstr(x, u),
               estr(x, a), tstr(x, ut));
    return type_error();
}

static Type *check_later(Ctx *x, Node *e, Builtin b)
{
    switch (b) {
    case B_FIRST:   /* every rule would have to see it as x[0]; until then, x[0] itself */
        unsupported(x, e->span, "first(x) (a later issue)", "write x[0]");
        check_args_loose(x, e);
        return type_error();
    case B_ROWS: case B_SWIZZLE: case B_SPREAD:
        return later(x, e, "layouts (a later issue)");
    case B_LOCK_NEW:
        return later(x, e, "locks (a later issue)");
    default:
        break;
    }
    if (b >= B_SHUFFLE && b <= B_WARP_MATCH)
        return check_warp_op(x, e, b);
    return later(x, e, arena_printf(x->a, "%s (atomics, a later issue)", builtin_name(b)));
}

/* shuffle(v, lane), shuffle_xor(v, mask), shuffle_down(v, d), shuffle_up(v,
 * d): v a number, the lane a u32; warp_ballot(c) -> u32, warp_any(c) and
 * warp_all(c) -> bool; warp_match(v) -> u32 for a 32- or 64-bit number.
 * Only in a cooperative region (E-COOP-WARP). */
static Type *check_warp_op(Ctx *x, Node *e, Builtin b)
{
    const char *name = builtin_name(b);
    bool vote = b == B_WARP_BALLOT || b == B_WARP_ANY || b == B_WARP_ALL;
    int want = vote || b == B_WARP_MATCH ? 1 : 2;
    if (!coop_warp_place(x, e, arena_printf(x->a, "%s(..)", name))) {
        check_args_loose(x, e);
        return type_error();
    }
    if (e->call.args.n != want) {
        diag_error(x->sink, e->span, E_CALL, arena_printf(x->a, "write %s(%s)", name, want == 1 ? "v" : "v, lane"),
                   "%s takes %d argument%s, %d given", name, want, want == 1 ? "" : "s", e->call.args.n);
        check_args_loose(x, e);
        return type_error();
    }
    Node *v = e->call.args.v[0];
    if (vote) {
        if (is_error(check_expect(x, v, type_prim(TY_BOOL), arena_printf(x->a, "%s's condition", name))))
            return type_error();
        return type_prim(b == B_WARP_BALLOT ? TY_U32 : TY_BOOL);
    }
    Type *t = check_expr(x, v, NULL);
    if (is_error(t))
        return t;
    int bits = type_bits(t);
    bool number = (type_is_int(t) || type_is_float(t)) && !type_is_storage_float(t);
    if (!number || (b == B_WARP_MATCH && bits != 32 && bits != 64)) {
        diag_error(x->sink, v->span, E_TYPE_MISMATCH,
                   b == B_WARP_MATCH ? "match a 32-bit or 64-bit integer or float" : "exchange a number",
                   "%s takes %s, and %s is %s", name,
                   b == B_WARP_MATCH ? "a 32-bit or 64-bit integer or float" : "a number", estr(x, v), tstr(x, t));
        return type_error();
    }
    if (b == B_WARP_MATCH)
        return type_prim(TY_U32);
    const char *what = b == B_SHUFFLE ? "the lane" : b == B_SHUFFLE_XOR ? "the mask" : "the distance";
    if (is_error(check_expectf(x, e->call.args.v[1], type_prim(TY_U32), "%s of %s", what, name, NULL)))
        return type_error();
    return t;
}

static bool takes_targs(Builtin b)
{
    return b == B_LOAD_WIDE || b == B_QUANTIZE || b == B_QUANTIZE_STOCHASTIC || b == B_FROM_BITS ||
           b == B_MMA_LOAD;
}

Type *check_builtin(Ctx *x, Node *e, Builtin b, Type *expected)
{
    e->call.ck = CALL_BUILTIN;
    e->call.builtin = b;
    if (e->call.has_targs && !takes_targs(b)) {
        diag_error(x->sink, e->span, E_CALL, arena_printf(x->a, "call it as %s(..)", builtin_name(b)),
                   "%s takes no compile-time arguments", builtin_name(b));
        check_args_loose(x, e);
        return type_error();
    }
    switch (b) {
    case B_MIN: case B_MAX: return same_pair(x, e, expected, false);
    case B_ADD_WRAP: case B_SUB_WRAP: case B_MUL_WRAP: return same_pair(x, e, expected, true);
    case B_ABS: return one_arg(x, e, expected, true, true, true);
    case B_NEG_WRAP: return one_arg(x, e, expected, false, true, true);
    case B_SQRT: {
        Type *t = one_arg(x, e, expected, true, false, false);
        if (type_is_float(t))
            numerics_add(x, "sqrt", t, t, "nearest-even");
        return t;
    }
    case B_FLOOR: case B_CEIL: case B_TRUNC: return one_arg(x, e, expected, true, false, false);
    case B_SHL: case B_SHR: return check_shift(x, e, expected);
    case B_PRINT: case B_PRINTLN: return check_print(x, e);
    case B_ASSERT: return check_assert(x, e);
    case B_LEN: return check_len(x, e);
    case B_TRANSFER: return check_transfer(x, e);
    case B_WAIT: return check_wait(x, e);
    case B_LOAD_WIDE: return check_load_wide(x, e);
    case B_STORE_WIDE: return check_store_wide(x, e);
    case B_MMA_UNORDERED: return check_mma(x, e);
    case B_MMA_LOAD: return check_mma_load(x, e);
    case B_MMA_STORE: return check_mma_store(x, e);
    case B_MMA_GET: return check_mma_elem(x, e, false);
    case B_MMA_SET: return check_mma_elem(x, e, true);
    case B_QUANTIZE: return check_quantize(x, e, false);
    case B_QUANTIZE_STOCHASTIC: return check_quantize(x, e, true);
    case B_TO_BITS: return check_to_bits(x, e);
    case B_FROM_BITS: return check_from_bits(x, e);
    case B_ATOMIC_ADD_WRAP: case B_ATOMIC_MIN: case B_ATOMIC_MAX: case B_ATOMIC_AND: case B_ATOMIC_OR:
    case B_ATOMIC_XOR: case B_ATOMIC_CAS: case B_ATOMIC_ADD_UNORDERED: return check_atomic(x, e, b);
    default: return check_later(x, e, b);
    }
}

/* ------------------------------------------------------------ fragments */

/* A fragment kind whose family lowers no shape (TmemAcc: tcgen05 and
 * tensor memory, which sm_100a and its family have and no sm_120 does) is
 * refused wherever it stands, with the target's code, whatever the target
 * provides: nothing here lowers it, and it is never emulated. */
static Type *refuse_unlowered(Ctx *x, Span at, FragKind f)
{
    const Target *t = x->c->target;
    const char *feature = target_feature_name(frag_feature(f));
    diag_error(x->sink, at, E_TARGET_FEATURE,
               "accumulate in registers with WmmaAcc or MmaAcc, or keep the kernel in a foreign CUDA "
               "implementation of a CAIRN reference (devices.md, \"What fast kernels use\")",
               "%s needs tensor memory (the %s feature), and no %s shape is lowered for %s%s", frag_name(f), feature,
               frag_name(f), t ? "the target " : "any target", t ? t->name : "");
    return type_error();
}

static bool family_lowers_none(FragKind f)
{
    const FragShape *shapes;
    return frag_shapes(frag_family(f), &shapes) == 0;
}

/* ------------------------------------------- fragments: the types */

static bool in_coop(Ctx *x)
{
    return x->fs && x->fs->coop;
}

/* E-FRAGMENT outside a cooperative region: a fragment is a warp's, so it
 * lives only where a block's threads do. */
static bool frag_inside(Ctx *x, Span at, const char *what)
{
    if (in_coop(x))
        return true;
    diag_error(x->sink, at, E_FRAGMENT,
               "write it inside a cooperative region (blocks g in G threads t in T { ... }), where a warp runs it whole",
               "%s outside a cooperative region: every fragment operation is a warp's", what);
    return false;
}

/* One dimension of WmmaA[T, M, N, K]: a constant usize, else 0 after a
 * report. */
static int frag_dim(Ctx *x, Node *d, const char *kind)
{
    int64_t v = 0;
    if (d->kind == N_TYPE || is_error(check_expect(x, d, type_prim(TY_USIZE), "a fragment's M, N and K")))
        return 0;
    if (!sym_const(x->a, d, &v) || v <= 0 || v > 4096) {
        diag_error(x->sink, d->span, E_FRAGMENT, "write the shape as constants, e.g. WmmaA[f16, 16, 16, 16]",
                   "%s's M, N and K are constants, and %s is not one", kind, estr(x, d));
        return 0;
    }
    return (int)v;
}

static const char *shapes_text(Ctx *x, FragKind f)
{
    const FragShape *sh;
    int n = frag_shapes(frag_family(f), &sh);
    const char *t = "";
    for (int i = 0; i < n; i++)
        t = arena_printf(x->a, "%s%s%d x %d x %d", t, i ? ", " : "", sh[i].m, sh[i].n, sh[i].k);
    return t;
}

/* Kind[T, M, N, K] from its four arguments (a type node's args, or a
 * constructor's targs), with E-FRAGMENT for an element type or a shape the
 * table does not allow. */
static Type *frag_from_args(Ctx *x, Span at, FragKind f, const Vec *args)
{
    const char *kind = frag_name(f);
    if (args->n != 4 || ((Node *)args->v[0])->kind != N_TYPE) {
        diag_error(x->sink, at, E_FRAGMENT, arena_printf(x->a, "write %s[T, M, N, K], e.g. %s[%s, 16, 16, 16]", kind,
                                                         kind, frag_role(f) == ROLE_ACC ? "f32" : "f16"),
                   "%s takes an element type and three constants, M, N and K", kind);
        return type_error();
    }
    Type *elem = resolve_type(x, args->v[0]);
    int d[3];
    for (int i = 0; i < 3; i++)
        d[i] = frag_dim(x, args->v[i + 1], kind);
    if (is_error(elem) || !d[0] || !d[1] || !d[2])
        return type_error();
    if (!frag_elem_allowed(f, elem->kind)) {
        bool acc = frag_role(f) == ROLE_ACC;
        diag_error(x->sink, ((Node *)args->v[0])->span, E_FRAGMENT,
                   acc ? "accumulate in f32" : "store the operands as f16 or bf16 (quantize, or f16(x))",
                   "%s holds %s, not %s", kind, acc ? "f32" : "f16 or bf16", tstr(x, elem));
        return type_error();
    }
    if (!frag_shape_allowed(f, d[0], d[1], d[2])) {
        diag_error(x->sink, at, E_FRAGMENT, arena_printf(x->a, "%s lowers M x N x K = %s", frag_family_name(frag_family(f)),
                                                         shapes_text(x, f)),
                   "%s has no shape %d x %d x %d", kind, d[0], d[1], d[2]);
        return type_error();
    }
    return frag_type(x->a, f, elem, d[0], d[1], d[2]);
}

/* WmmaA[f16, 16, 16, 16] written as a type: inside a cooperative region
 * only (a let's type, mma_load's argument). */
Type *check_fragment_type(Ctx *x, Node *t, FragKind f)
{
    if (family_lowers_none(f))
        return refuse_unlowered(x, t->span, f);
    if (!frag_inside(x, t->span, arena_printf(x->a, "the fragment type %s", frag_name(f))))
        return type_error();
    return frag_from_args(x, t->span, f, &t->type.args);
}

/* WmmaAcc[f32, 16, 16, 16](0.0): an accumulator, each element the value.
 * Operands are loaded, not filled. */
Type *check_fragment_call(Ctx *x, Node *e, FragKind f)
{
    if (family_lowers_none(f)) {
        check_args_loose(x, e);
        return refuse_unlowered(x, e->span, f);
    }
    if (!frag_inside(x, e->span, arena_printf(x->a, "%s[..](..)", frag_name(f)))) {
        check_args_loose(x, e);
        return type_error();
    }
    e->call.ck = CALL_BUILTIN;
    e->call.builtin = B_MMA_FILL;
    e->call.callee->ty = type_prim(TY_VOID);   /* a kind's name, as a built-in's callee is typed */
    Type *t = frag_from_args(x, e->span, f, &e->call.targs);
    if (frag_role(f) != ROLE_ACC) {
        diag_error(x->sink, e->span, E_FRAGMENT, arena_printf(x->a, "load it: mma_load[%s[..]](tile, L, i, j)", frag_name(f)),
                   "%s is an operand, and only an accumulator is filled", frag_name(f));
        check_args_loose(x, e);
        return type_error();
    }
    if (e->call.args.n != 1) {
        diag_error(x->sink, e->span, E_CALL, arena_printf(x->a, "write %s[..](0.0)", frag_name(f)),
                   "%s[..](v) takes one value, %d given", frag_name(f), e->call.args.n);
        check_args_loose(x, e);
        return type_error();
    }
    if (is_error(check_expect(x, arg(e, 0), type_prim(TY_F32), "an accumulator's fill")))
        return type_error();
    return t;
}

/* ------------------------------------ fragments: loads, stores, multiply */

/* A fragment-typed argument of the role wanted (-1: any accumulator). */
static Type *frag_arg(Ctx *x, Node *e, int i, int role, const char *what)
{
    Type *t = check_expr(x, arg(e, i), NULL);
    if (is_error(t))
        return t;
    bool ok = t->kind == TY_FRAGMENT && (role < 0 ? frag_role((FragKind)t->frag) == ROLE_ACC
                                                   : frag_role((FragKind)t->frag) == (FragRole)role);
    if (!ok) {
        diag_error(x->sink, arg(e, i)->span, E_FRAGMENT, "pass a fragment of that role (WmmaA/MmaA, WmmaB/MmaB, WmmaAcc/MmaAcc)",
                   "%s is %s, and %s %s", estr(x, arg(e, i)), tstr(x, t), bname(e), what);
        return type_error();
    }
    return t;
}

/* The layout argument: a layout's name, evaluated (check_call.c). */
static const Layout *frag_layout(Ctx *x, Node *e, int i)
{
    Node *l = arg(e, i);
    Sym *s = l->kind == N_NAME ? scope_find(x, l->name.id, NULL) : NULL;
    if (!s || s->kind != SYM_LAYOUT) {
        check_expr(x, l, NULL);
        diag_error(x->sink, l->span, E_LAYOUT, "name a layout declared with `layout NAME = rows(R, C);`",
                   "%s's argument %d is the tile's layout, and %s is not one", bname(e), i + 1, estr(x, l));
        return NULL;
    }
    l->name.sym = s;
    const Layout *L = layout_resolve(x, s);
    l->ty = L ? type_prim(TY_LAYOUT) : type_error();
    return L;
}

static bool layout_consumer(Ctx *x, Node *at, const char *why, const char *help)
{
    diag_error(x->sink, at->span, E_LAYOUT_CONSUMER, help, "%s", why);
    return false;
}

/* What a family can read or write through a layout (numerics.md): WMMA
 * takes a pointer and a row stride, so its tiles are rows(R, C) with rows a
 * multiple of 16 bytes apart; mma.sync reads an operand in shared memory
 * with ldmatrix, eight 16-byte rows at a time, so a swizzle must keep runs
 * of 16 bytes and rows must start on 16 bytes; its accumulators, and its
 * operands in a view, are each lane's own elements, through any tile. */
static bool layout_fits(Ctx *x, Node *e, const Type *f, const Layout *L, const Type *tile)
{
    Node *ln = arg(e, e->call.builtin == B_MMA_STORE ? 1 : 1);
    const char *lname = ln->kind == N_NAME ? ln->name.id : "the layout";
    int eb = type_bits(tile->elem) / 8;
    if (L->kind == LAYOUT_SPREAD)
        return layout_consumer(x, ln, arena_printf(x->a, "%s is a spread, a warp's share of a tile, and %s needs the "
                                                         "tile's own layout", lname, bname(e)),
                               "name the tile's layout: rows(R, C), or a swizzle of one");
    const Layout *rows = L->kind == LAYOUT_SWIZZLE ? L->base : L;
    int64_t row_bytes = rows->cols * eb;
    if (frag_family((FragKind)f->frag) == FAM_WMMA) {
        if (L->kind == LAYOUT_SWIZZLE)
            return layout_consumer(x, ln, arena_printf(x->a, "%s is a swizzled tile, and WMMA reads a tile through a "
                                                             "pointer and a row stride: its rows must be plain", lname),
                                   "give WMMA a rows(R, C) tile; swizzle the tiles mma.sync reads (MmaA, MmaB)");
        if (row_bytes % 16)
            return layout_consumer(x, ln, arena_printf(x->a, "%s's rows are %lld bytes apart, and WMMA needs a multiple "
                                                             "of 16", lname, (long long)row_bytes),
                                   "pad each row to a multiple of 16 bytes: rows(R, C) with C a multiple of 8 for "
                                   "16-bit elements, of 4 for f32");
        return true;
    }
    bool ldmatrix = frag_role((FragKind)f->frag) != ROLE_ACC && tile->shared;
    if (!ldmatrix)
        return true;
    if (row_bytes % 16)
        return layout_consumer(x, ln, arena_printf(x->a, "%s's rows are %lld bytes apart: the pad splits the 16-byte "
                                                         "runs ldmatrix reads", lname, (long long)row_bytes),
                               "pad each row to a multiple of 16 bytes (C a multiple of 8 for 16-bit elements)");
    if (L->kind == LAYOUT_SWIZZLE && ((int64_t)1 << L->low) * eb < 16)
        return layout_consumer(x, ln, arena_printf(x->a, "%s keeps runs of %lld bytes together, and ldmatrix reads "
                                                         "runs of 16", lname, (long long)(((int64_t)1 << L->low) * eb)),
                               "swizzle above the 16-byte runs: swizzle(L, B, M, S) with 2^M elements >= 16 bytes");
    return true;
}

/* The tile of fragment (i, j) inside the layout's R x C (the fragments
 * are counted from the corner; columns or rows past the last whole one, a
 * pad, hold none), and the array holding every offset the layout places:
 * checked here where they are constants, where the operation runs
 * otherwise. */
static bool frag_bounds(Ctx *x, Node *e, int ti, const Type *f, const Layout *L, const Type *tile)
{
    int fr, fc;
    frag_tile(f, &fr, &fc);
    int64_t i, j, n;
    const char *lname = arg(e, ti + 1)->kind == N_NAME ? arg(e, ti + 1)->name.id : "the layout";
    if (L->rows < fr || L->cols < fc) {
        diag_error(x->sink, arg(e, ti + 1)->span, E_FRAGMENT, arena_printf(x->a, "give the tile at least %d x %d", fr, fc),
                   "%s is %lld x %lld, too small for one of %s's %d x %d tiles", lname, (long long)L->rows,
                   (long long)L->cols, tstr(x, f), fr, fc);
        return false;
    }
    if (sym_const(x->a, arg(e, ti + 2), &i) && (i < 0 || i >= L->rows / fr)) {
        diag_error(x->sink, arg(e, ti + 2)->span, E_FRAGMENT, arena_printf(x->a, "give a row below %lld", (long long)(L->rows / fr)),
                   "fragment row %lld is outside %s, which holds %lld rows of %s", (long long)i, lname,
                   (long long)(L->rows / fr), tstr(x, f));
        return false;
    }
    if (sym_const(x->a, arg(e, ti + 3), &j) && (j < 0 || j >= L->cols / fc)) {
        diag_error(x->sink, arg(e, ti + 3)->span, E_FRAGMENT, arena_printf(x->a, "give a column below %lld", (long long)(L->cols / fc)),
                   "fragment column %lld is outside %s, which holds %lld columns of %s", (long long)j, lname,
                   (long long)(L->cols / fc), tstr(x, f));
        return false;
    }
    if (tile->extent && sym_const(x->a, tile->extent, &n) && n < layout_cosize(L)) {
        diag_error(x->sink, arg(e, ti)->span, E_FRAGMENT,
                   arena_printf(x->a, "give it %lld elements (%s.cosize())", (long long)layout_cosize(L), lname),
                   "%s holds %lld elements, and %s places offsets up to %lld", estr(x, arg(e, ti)), (long long)n, lname,
                   (long long)(layout_cosize(L) - 1));
        return false;
    }
    return true;
}

/* The tile of a load or store: a view of the fragment's element type. */
static Type *frag_tile_arg(Ctx *x, Node *e, int i, const Type *f)
{
    Type *t = check_expr(x, arg(e, i), NULL);
    if (is_error(t))
        return t;
    if (t->kind != TY_VIEW || !type_equal(t->elem, f->elem)) {
        diag_error(x->sink, arg(e, i)->span, E_FRAGMENT,
                   arena_printf(x->a, "pass a view or shared array of %s", tstr(x, f->elem)),
                   "%s holds %s, and %s's tile is %s", tstr(x, f), tstr(x, f->elem), bname(e), tstr(x, t));
        return type_error();
    }
    return t;
}

static bool frag_coords(Ctx *x, Node *e, int first)
{
    bool ok = true;
    for (int i = first; i < first + 2; i++)
        ok &= !is_error(check_expect(x, arg(e, i), type_prim(TY_USIZE), "a fragment's row and column"));
    return ok;
}

/* A load's or a store's tile, layout and fragment coordinates, typed; false
 * after a report. */
static bool frag_place_ok(Ctx *x, Node *e, const Type *f, Type **tile, const Layout **L)
{
    *tile = frag_tile_arg(x, e, 0, f);
    *L = frag_layout(x, e, 1);
    bool coords = frag_coords(x, e, 2);
    return !is_error(*tile) && *L && coords;
}

/* mma_load[F](tile, L, i, j). Its own rules first, then where it stands
 * (a swizzled tile is E-LAYOUT-CONSUMER wherever it is written). */
static Type *check_mma_load(Ctx *x, Node *e)
{
    Node *tn = e->call.targs.n == 1 ? e->call.targs.v[0] : NULL;
    if (!tn || tn->kind != N_TYPE || e->call.args.n != 4) {
        diag_error(x->sink, e->span, E_CALL, "write mma_load[WmmaA[f16, 16, 16, 16]](tile, L, i, j)",
                   "mma_load takes a fragment type, then a tile, its layout and the fragment's row and column");
        check_args_loose(x, e);
        return type_error();
    }
    int fk = tn->type.id ? frag_lookup(tn->type.id) : -1;
    Type *f = fk >= 0 && !family_lowers_none((FragKind)fk) ? frag_from_args(x, tn->span, (FragKind)fk, &tn->type.args)
                                                           : resolve_type(x, tn);
    tn->ty = f;
    if (!is_error(f) && f->kind != TY_FRAGMENT) {
        diag_error(x->sink, tn->span, E_FRAGMENT, "name a fragment type: WmmaA, WmmaB, WmmaAcc, MmaA, MmaB, MmaAcc",
                   "mma_load[%s] loads a fragment, and %s is not one", tstr(x, f), tstr(x, f));
        f = type_error();
    }
    if (is_error(f)) {
        check_args_loose(x, e);
        return f;
    }
    Type *tile;
    const Layout *L;
    if (!frag_place_ok(x, e, f, &tile, &L) || !layout_fits(x, e, f, L, tile) || !frag_bounds(x, e, 0, f, L, tile))
        return type_error();
    if (!frag_inside(x, e->span, "mma_load") || check_index_placement(x, e, arg(e, 0), tile))
        return type_error();
    return f;
}

/* mma_store(tile, L, i, j, acc): an accumulator into a shared array. */
static Type *check_mma_store(Ctx *x, Node *e)
{
    if (e->call.args.n != 5) {
        diag_error(x->sink, e->span, E_CALL, "write mma_store(tile, L, i, j, acc)",
                   "mma_store takes a shared array, its layout, the fragment's row and column, and the accumulator");
        check_args_loose(x, e);
        return type_error();
    }
    Type *f = frag_arg(x, e, 4, -1, "stores an accumulator");
    if (is_error(f)) {
        check_args_loose(x, e);
        return f;
    }
    Type *tile;
    const Layout *L;
    if (!frag_place_ok(x, e, f, &tile, &L))
        return type_error();
    if (!tile->shared || tile->access != ACC_RW) {
        diag_error(x->sink, arg(e, 0)->span, E_FRAGMENT, "store into a shared array of the block, then copy out",
                   "mma_store writes into a shared array of the block, and %s is %s", estr(x, arg(e, 0)), tstr(x, tile));
        return type_error();
    }
    if (!layout_fits(x, e, f, L, tile) || !frag_bounds(x, e, 0, f, L, tile) || !frag_inside(x, e->span, "mma_store"))
        return type_error();
    return type_prim(TY_VOID);
}

/* acc = mma_unordered(acc, a, b): one family, one shape, one operand type. */
static Type *check_mma_frag(Ctx *x, Node *e)
{
    if (!frag_inside(x, e->span, "mma_unordered(acc, a, b)")) {
        check_args_loose(x, e);
        return type_error();
    }
    Type *c = frag_arg(x, e, 0, -1, "adds into an accumulator");
    Type *a = frag_arg(x, e, 1, ROLE_A, "takes an A operand second");
    Type *b = frag_arg(x, e, 2, ROLE_B, "takes a B operand third");
    if (is_error(c) || is_error(a) || is_error(b))
        return type_error();
    bool fam = frag_family((FragKind)a->frag) == frag_family((FragKind)c->frag) &&
               frag_family((FragKind)b->frag) == frag_family((FragKind)c->frag);
    bool shape = a->m == c->m && a->n == c->n && a->k == c->k && b->m == c->m && b->n == c->n && b->k == c->k;
    if (!fam || !shape || !type_equal(a->elem, b->elem)) {
        diag_error(x->sink, e->span, E_FRAGMENT, "take the accumulator and both operands of one family and one shape, "
                   "and A and B of one element type",
                   "mma_unordered multiplies %s by %s into %s: %s", tstr(x, a), tstr(x, b), tstr(x, c),
                   !fam ? "they are of different families" : !shape ? "their shapes differ" : "A and B hold different types");
        return type_error();
    }
    return c;
}

/* mma_get(acc, v) and acc = mma_set(acc, v, x): value v of this thread's
 * lane, in an mma.sync accumulator (WMMA does not say which lane holds
 * which element). */
static Type *check_mma_elem(Ctx *x, Node *e, bool set)
{
    const char *name = set ? "mma_set" : "mma_get";
    if (!frag_inside(x, e->span, name)) {
        check_args_loose(x, e);
        return type_error();
    }
    if (e->call.args.n != (set ? 3 : 2)) {
        diag_error(x->sink, e->span, E_CALL, set ? "write acc = mma_set(acc, v, x)" : "write mma_get(acc, v)",
                   "%s takes %d arguments, %d given", name, set ? 3 : 2, e->call.args.n);
        check_args_loose(x, e);
        return type_error();
    }
    Type *c = frag_arg(x, e, 0, -1, set ? "replaces an accumulator's element" : "reads an accumulator's element");
    bool v_ok = !is_error(check_expect(x, arg(e, 1), type_prim(TY_USIZE), "the value's number"));
    bool x_ok = !set || !is_error(check_expect(x, arg(e, 2), type_prim(TY_F32), "the element's new value"));
    if (is_error(c) || !v_ok || !x_ok)
        return type_error();
    if (frag_family((FragKind)c->frag) != FAM_MMA_SYNC) {
        diag_error(x->sink, e->span, E_FRAGMENT, "use an MmaAcc, whose share the PTX ISA states, or store the "
                   "accumulator with mma_store and read the shared array",
                   "%s reaches an element of %s, and WMMA leaves which lane holds which element unspecified", name, tstr(x, c));
        return type_error();
    }
    int64_t v;
    if (sym_const(x->a, arg(e, 1), &v) && (v < 0 || v >= FRAG_MMA_ACC_VALUES)) {
        diag_error(x->sink, arg(e, 1)->span, E_FRAGMENT, arena_printf(x->a, "give a value below %d", FRAG_MMA_ACC_VALUES),
                   "a lane holds values 0 .. %d of %s, and %lld is not one", FRAG_MMA_ACC_VALUES - 1, tstr(x, c), (long long)v);
        return type_error();
    }
    return set ? c : type_prim(TY_F32);
}
