/*
 * check_par.c: the rules of host parallelism (issue 4), applied after every
 * body has been typed.
 *
 * Requires: check_program has typed every function (names resolved,
 * expressions typed, calls given their kind).
 * Guarantees: a region `parallel i in n { }` or a collector `... parallel i
 * in n ...` that passes here has lanes that cannot disturb each other:
 *
 *   E-PARALLEL-RACE   two lanes could write one element of an outside view,
 *                     or one lane reads an element another lane writes;
 *   E-PARALLEL-WRITE  a lane assigns (or lends as rw<T>) a scalar declared
 *                     outside the region;
 *   E-PARALLEL-NEST   a region, a pooled collector or mma_unordered inside
 *                     a lane, directly or through a call;
 *   E-PARALLEL-CALL   I/O, std.math, a buffer, a lock, a task, a wait, a
 *                     call through a function value, a closure in a lane;
 *   E-ATOMIC-MIXED    a view updated atomically in a region and touched
 *                     there another way;
 *   E-SCAN-ORDER      a float scan on the pool;
 *   E-PLAN            a plan for no function, or an item that does not
 *                     apply.
 *
 * The race rule is proved from the index. Every access of an outside view
 * is an "access": the view's root symbol, and an element index or a part
 * lo..hi, each shifted by the starts of the slices it goes through. An index
 * is brought to the affine form coef * i + k + (lane-invariant terms); a
 * lane owns the elements at coef * i + k .. coef * i + k + w when coef is a
 * non-zero constant, and two lanes' footprints meet only if a non-zero
 * multiple of coef lies within the difference of their offsets. Where that
 * cannot be shown, the index is evaluated for small lanes to give a witness
 * ("lanes i = 0 and i = 4 both write out[0]"), and where it cannot even be
 * evaluated the message says the index is not proved one-to-one.
 */
#include "chain.h"
#include "check.h"
#include "par.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ a lane */

typedef enum { AK_READ, AK_WRITE, AK_ATOMIC } AccKind;

typedef struct {
    AccKind kind;
    Sym *view;            /* the root: a parameter or a buffer outside the lane */
    Node *node;           /* as written, for messages */
    Node *idx;            /* an element's index, or NULL */
    Node *lo, *hi;        /* a part's bounds (hi NULL: to the end) */
    bool part, whole;
    bool by_collector;    /* a pooled scan's or compaction's own write of its destination */
    Node *offs[4];        /* starts of the slices the access goes through */
    int noffs;
    const char *how;      /* "passed as rw to f": for messages */
    Span at;
} Acc;

typedef struct {
    Arena *a;
    Sink *sink;           /* NULL: silent (par_fusable) */
    EffTable *eff;
    Vec *reported;        /* "line:col:code" already said */
    Sym *lane[2];         /* the index (two when fusing) */
    const char *var;      /* its name as written */
    Node *region;
    PtrSet inside;        /* Sym* declared in the lane */
    Vec acc;              /* Acc* */
    Vec written;          /* Sym*: outside views written in the lane */
    int errors;
} Lane;

static bool vec_has(const Vec *v, const void *p)
{
    for (int i = 0; i < v->n; i++)
        if (v->v[i] == p)
            return true;
    return false;
}

static bool is_lane(const Lane *L, const Sym *s)
{
    return s && (s == L->lane[0] || s == L->lane[1]);
}

static bool is_inside(const Lane *L, const Sym *s)
{
    return is_lane(L, s) || ptrset_has(&L->inside, s);
}

static void inside_add(Lane *L, Sym *s)
{
    ptrset_add(L->a, &L->inside, s);
}

/* One report per place and code (a generic's instances meet it again). */
static bool first_report(Lane *L, Span at, DiagCode code)
{
    L->errors++;
    if (!L->sink)
        return false;
    const char *key = arena_printf(L->a, "%p:%d:%d:%d", (const void *)at.src, at.line, at.col, (int)code);
    for (int i = 0; i < L->reported->n; i++)
        if (!strcmp(L->reported->v[i], key))
            return false;
    vec_push(L->a, L->reported, (void *)key);
    return true;
}

#define LANE_ERROR(L, at, code, help, ...)                                    \
    do {                                                                      \
        if (first_report((L), (at), (code)))                                  \
            diag_error((L)->sink, (at), (code), (help), __VA_ARGS__);         \
    } while (0)

static const char *lane_eq(const Lane *L, long long v)
{
    if (!L->var || !strcmp(L->var, "_"))
        return arena_printf(L->a, "%lld", v);
    return arena_printf(L->a, "%s = %lld", L->var, v);
}

static const char *region_what(const Lane *L)
{
    Node *r = L->region;
    if (r->kind == N_PARALLEL)
        return arena_printf(L->a, "the region at line %d", r->span.line);
    return arena_printf(L->a, "the pooled %s at line %d",
                        r->collect.kind == COLLECT_REDUCE ? "reduce" : r->collect.kind == COLLECT_SCAN ? "scan" : "compact",
                        r->span.line);
}

/* ---------------------------------------------------- affine indices */

enum { AFF_TERMS = 8, WITNESS_LANES = 64 };

typedef struct {
    int64_t coef, k;
    int nt;
    const char *t[AFF_TERMS];
    int s[AFF_TERMS];
} Aff;

static bool aff_term(Aff *A, const char *t, int sign)
{
    for (int i = 0; i < A->nt; i++)
        if (!strcmp(A->t[i], t) && A->s[i] == -sign) {
            A->t[i] = A->t[A->nt - 1];
            A->s[i] = A->s[A->nt - 1];
            A->nt--;
            return true;
        }
    if (A->nt == AFF_TERMS)
        return false;
    A->t[A->nt] = t;
    A->s[A->nt++] = sign;
    return true;
}

static bool aff_add(Aff *A, const Aff *B, int sign)
{
    int64_t c, k;
    if (__builtin_mul_overflow(B->coef, (int64_t)sign, &c) || __builtin_add_overflow(A->coef, c, &A->coef))
        return false;
    if (__builtin_mul_overflow(B->k, (int64_t)sign, &k) || __builtin_add_overflow(A->k, k, &A->k))
        return false;
    for (int i = 0; i < B->nt; i++)
        if (!aff_term(A, B->t[i], B->s[i] * sign))
            return false;
    return true;
}

static bool aff_equal_terms(const Aff *A, const Aff *B)
{
    if (A->nt != B->nt)
        return false;
    for (int i = 0; i < A->nt; i++) {
        int j = 0;
        while (j < B->nt && !(B->s[j] == A->s[i] && !strcmp(B->t[j], A->t[i])))
            j++;
        if (j == B->nt)
            return false;
    }
    return true;
}

typedef struct {
    const Lane *L;
    bool ok;
} InvCtx;

static bool inv_visit(Node *n, void *c)
{
    InvCtx *v = c;
    if (!v->ok)
        return false;
    switch (n->kind) {
    case N_NAME:
        if (is_inside(v->L, n->name.sym))
            v->ok = false;
        return false;
    case N_CALL:
        if (n->call.ck != CALL_CONVERT)
            v->ok = false;
        return v->ok;
    case N_INDEX: {
        Sym *r = view_root(n->index.base);
        if (!r || vec_has(&v->L->written, r))
            v->ok = false;
        return v->ok;
    }
    case N_COLLECT: case N_CLOSURE: v->ok = false; return false;
    default: return true;
    }
}

/* Does e have one value in every lane? */
static bool lane_invariant(const Lane *L, Node *e)
{
    InvCtx v = {L, true};
    par_walk(e, inv_visit, &v);
    return v.ok;
}

static bool aff_of(const Lane *L, Node *e, Aff *A, int depth);

/* Does e have one value in every lane? */
static bool lane_invariant(const Lane *L, Node *e);

/* An index that is no affine form, but the same in every lane: one term. */
static bool aff_whole(const Lane *L, Node *e, Aff *A)
{
    memset(A, 0, sizeof *A);
    return lane_invariant(L, e) && aff_term(A, expand_expr(L->a, e), 1);
}

/* One link of a chain: A (the left operand's form) op C. False when the
 * link is no affine form the rule can use. */
static bool aff_link(Aff *A, TokKind op, const Aff *C)
{
    if (op != T_STAR) {
        Aff B = *A;
        memset(A, 0, sizeof *A);
        return aff_add(A, &B, 1) && aff_add(A, C, op == T_PLUS ? 1 : -1);
    }
    Aff B = *A;
    const Aff *cst = !B.coef && !B.nt ? &B : !C->coef && !C->nt ? C : NULL;
    const Aff *other = cst == &B ? C : &B;
    if (!cst || !(!other->nt || cst->k == 0 || cst->k == 1 || cst->k == -1))
        return false;
    memset(A, 0, sizeof *A);
    if (__builtin_mul_overflow(other->coef, cst->k, &A->coef) || __builtin_mul_overflow(other->k, cst->k, &A->k))
        return false;
    if (cst->k == 0)
        return true;
    for (int i = 0; i < other->nt; i++)
        if (!aff_term(A, other->t[i], other->s[i] * (cst->k < 0 ? -1 : 1)))
            return false;
    return true;
}

/* A chain of + - * (chain.h), folded up its spine by a loop; the chain is
 * one level of `depth`, its operands the next. Where a link is no affine
 * form, the link becomes one lane-invariant term when it is one, as in the
 * recursive rule; a second time, the whole chain must be one. A link that
 * is not invariant leaves nothing above it invariant, so the fold stops
 * there. At most two such fallbacks: linear, however long the chain. */
static bool aff_chain(const Lane *L, Node *top, Aff *A, int depth)
{
    Spine sp;
    spine_of(&sp, NULL);
    Node *base = top;
    while (base->kind == N_BINARY && (base->binary.op == T_PLUS || base->binary.op == T_MINUS ||
                                      base->binary.op == T_STAR)) {
        spine_push(&sp, base);
        base = base->binary.a;
    }
    bool ok = aff_of(L, base, A, depth + 1), fell = false;
    for (int j = sp.n - 1; j >= 0; j--) {
        Node *e = sp.v[j];
        Aff C;
        if (ok && e->ty && type_is_int(e->ty) && aff_of(L, e->binary.b, &C, depth + 1) &&
            aff_link(A, e->binary.op, &C))
            continue;
        ok = aff_whole(L, fell ? top : e, A);
        if (fell || !ok)
            break;
        fell = true;
    }
    spine_free(&sp);
    if (!ok)
        memset(A, 0, sizeof *A);
    return ok;
}

static bool aff_of(const Lane *L, Node *e, Aff *A, int depth)
{
    memset(A, 0, sizeof *A);
    if (!e || depth > 32 || !e->ty || !type_is_int(e->ty))
        return false;
    Aff B;
    switch (e->kind) {
    case N_INT:
        if (e->lit.overflow || e->lit.ival > (uint64_t)INT64_MAX)
            return false;
        A->k = (int64_t)e->lit.ival;
        return true;
    case N_NAME: {
        Sym *s = e->name.sym;
        if (is_lane(L, s)) {
            A->coef = 1;
            return true;
        }
        if (s && (s->kind == SYM_CONST || s->kind == SYM_GENERIC) && s->has_value) {
            A->k = s->value;
            return true;
        }
        if (s && ptrset_has(&L->inside, s)) {
            if (!s->mut && s->decl && s->decl->kind == N_LET && s->decl->let.init)
                return aff_of(L, s->decl->let.init, A, depth + 1);
            return false;
        }
        return aff_term(A, expand_expr(L->a, e), 1);
    }
    case N_UNARY:
        if (e->unary.op != T_MINUS || !aff_of(L, e->unary.a, &B, depth + 1))
            break;
        return aff_add(A, &B, -1);
    case N_BINARY:
        if (e->binary.op == T_PLUS || e->binary.op == T_MINUS || e->binary.op == T_STAR)
            return aff_chain(L, e, A, depth);
        break;
    case N_CALL:
        if (e->call.ck == CALL_CONVERT && e->call.args.n == 1)
            return aff_of(L, e->call.args.v[0], A, depth + 1);
        break;
    default:
        break;
    }
    memset(A, 0, sizeof *A);
    if (lane_invariant(L, e))
        return aff_term(A, expand_expr(L->a, e), 1);
    return false;
}

static bool eval_op(TokKind op, int64_t a, int64_t b, int64_t *out)
{
    switch (op) {
    case T_PLUS: return !__builtin_add_overflow(a, b, out);
    case T_MINUS: return !__builtin_sub_overflow(a, b, out);
    case T_STAR: return !__builtin_mul_overflow(a, b, out);
    case T_SLASH: return b != 0 && !(a == INT64_MIN && b == -1) && (*out = a / b, true);
    case T_PERCENT: return b != 0 && !(a == INT64_MIN && b == -1) && (*out = a % b, true);
    default: return false;
    }
}

/* The value of an index in lane i, when it depends on nothing else. */
static bool eval_at(const Lane *L, Node *e, int64_t i, int64_t *out, int depth)
{
    int64_t a, b;
    if (!e || depth > 32)
        return false;
    switch (e->kind) {
    case N_INT:
        if (e->lit.overflow || e->lit.ival > (uint64_t)INT64_MAX)
            return false;
        *out = (int64_t)e->lit.ival;
        return true;
    case N_NAME: {
        Sym *s = e->name.sym;
        if (is_lane(L, s)) {
            *out = i;
            return true;
        }
        if (s && (s->kind == SYM_CONST || s->kind == SYM_GENERIC) && s->has_value && type_is_int(s->ty)) {
            *out = s->value;
            return true;
        }
        if (s && ptrset_has(&L->inside, s) && !s->mut && s->decl && s->decl->kind == N_LET)
            return eval_at(L, s->decl->let.init, i, out, depth + 1);
        return false;
    }
    case N_UNARY:
        return e->unary.op == T_MINUS && eval_at(L, e->unary.a, i, &a, depth + 1) && a != INT64_MIN &&
               (*out = -a, true);
    case N_BINARY: {
        /* a chain (chain.h) folded up its spine: one level of depth */
        Spine sp;
        bool ok = eval_at(L, spine_of(&sp, e), i, &a, depth + 1);
        for (int j = sp.n - 1; ok && j >= 0; j--)
            ok = eval_at(L, sp.v[j]->binary.b, i, &b, depth + 1) && eval_op(sp.v[j]->binary.op, a, b, &a);
        spine_free(&sp);
        *out = a;
        return ok;
    }
    case N_CALL:
        if (e->call.ck == CALL_CONVERT && e->call.args.n == 1 && type_is_int(e->ty))
            return eval_at(L, e->call.args.v[0], i, out, depth + 1);
        if (e->call.ck == CALL_BUILTIN && e->call.args.n == 2 &&
            (e->call.builtin == B_MIN || e->call.builtin == B_MAX)) {
            if (!eval_at(L, e->call.args.v[0], i, &a, depth + 1) || !eval_at(L, e->call.args.v[1], i, &b, depth + 1))
                return false;
            *out = e->call.builtin == B_MIN ? (a < b ? a : b) : (a > b ? a : b);
            return true;
        }
        return false;
    default:
        return false;
    }
}

/* ------------------------------------------------------- footprints */

/* An access's elements in lane i: [lo, hi). */
static bool fp_eval(const Lane *L, const Acc *A, int64_t i, int64_t *lo, int64_t *hi)
{
    int64_t off = 0, v;
    for (int k = 0; k < A->noffs; k++) {
        if (!eval_at(L, A->offs[k], i, &v, 0) || __builtin_add_overflow(off, v, &off))
            return false;
    }
    if (A->whole) {
        *lo = INT64_MIN / 4;
        *hi = INT64_MAX / 4;
        return true;
    }
    if (A->idx) {
        if (!eval_at(L, A->idx, i, &v, 0) || __builtin_add_overflow(v, off, lo))
            return false;
        *hi = *lo + 1;
        return true;
    }
    int64_t l = 0, h = INT64_MAX / 4;
    if (A->lo && !eval_at(L, A->lo, i, &l, 0))
        return false;
    if (A->hi && !eval_at(L, A->hi, i, &h, 0))
        return false;
    if (__builtin_add_overflow(l, off, lo))
        return false;
    *hi = A->hi ? h + off : h;
    return true;
}

typedef struct {
    Aff base;             /* coef * i + k + terms: the first element */
    int64_t w;            /* elements from there */
} Foot;

/* An access's footprint as coef * i + k .. + w, when the index shows it. */
static bool fp_aff(const Lane *L, const Acc *A, Foot *F)
{
    memset(F, 0, sizeof *F);
    if (A->whole)
        return false;
    Aff off = {0}, t;
    for (int k = 0; k < A->noffs; k++)
        if (!aff_of(L, A->offs[k], &t, 0) || !aff_add(&off, &t, 1))
            return false;
    if (A->idx) {
        if (!aff_of(L, A->idx, &t, 0))
            return false;
        F->base = off;
        F->w = 1;
        return aff_add(&F->base, &t, 1);
    }
    Aff lo = {0}, hi;
    if (A->lo && !aff_of(L, A->lo, &lo, 0))
        return false;
    if (!A->hi || !aff_of(L, A->hi, &hi, 0))
        return false;
    if (lo.coef != hi.coef || !aff_equal_terms(&lo, &hi) || hi.k < lo.k)
        return false;
    F->base = off;
    F->w = hi.k - lo.k;
    return aff_add(&F->base, &lo, 1);
}

/* Lanes i != j where the footprints of A (lane i) and B (lane j) meet:
 * true with the lanes and the first shared element. */
static bool find_meeting(const Lane *L, const Acc *A, const Acc *B, int64_t *li, int64_t *lj, int64_t *elem)
{
    int64_t alo[WITNESS_LANES], ahi[WITNESS_LANES], blo[WITNESS_LANES], bhi[WITNESS_LANES];
    for (int i = 0; i < WITNESS_LANES; i++)
        if (!fp_eval(L, A, i, &alo[i], &ahi[i]) || !fp_eval(L, B, i, &blo[i], &bhi[i]))
            return false;
    for (int s = 1; s < WITNESS_LANES; s++)          /* smallest lanes first */
        for (int t = 0; t < s; t++)
            for (int pass = 0; pass < 2; pass++) {
                int i = pass ? s : t, j = pass ? t : s;
                int64_t lo = alo[i] > blo[j] ? alo[i] : blo[j];
                int64_t hi = ahi[i] < bhi[j] ? ahi[i] : bhi[j];
                if (lo < hi) {
                    *li = i;
                    *lj = j;
                    *elem = lo;
                    return true;
                }
            }
    return false;
}

/* Are the footprints of two accesses, in two different lanes, proved
 * apart? (A non-zero multiple of coef in the difference of offsets would
 * put them on one element.) */
static bool proved_apart(const Lane *L, const Acc *A, const Acc *B)
{
    Foot F, G;
    if (!fp_aff(L, A, &F) || !fp_aff(L, B, &G))
        return false;
    if (F.base.coef == 0 || F.base.coef != G.base.coef || !aff_equal_terms(&F.base, &G.base))
        return false;
    if (F.w == 0 || G.w == 0)
        return true;
    int64_t a = F.base.coef < 0 ? -F.base.coef : F.base.coef;
    /* q' - p' over p' in [kF, kF + wF), q' in [kG, kG + wG) */
    int64_t dlo = G.base.k - (F.base.k + F.w - 1), dhi = G.base.k + G.w - 1 - F.base.k;
    for (int64_t m = dlo / a - 1; m <= dhi / a + 1; m++) {
        int64_t d = m * a;
        if (m != 0 && d >= dlo && d <= dhi)
            return false;
    }
    return true;
}

/* Is R within the footprint W has in the same lane? */
static bool own_element(const Lane *L, const Acc *R, const Acc *W)
{
    Foot F, G;
    if (!fp_aff(L, R, &F) || !fp_aff(L, W, &G))
        return false;
    return F.base.coef == G.base.coef && aff_equal_terms(&F.base, &G.base) && F.base.k >= G.base.k &&
           F.base.k + F.w <= G.base.k + G.w;
}

static const char *acc_text(const Lane *L, const Acc *A)
{
    const char *t = expand_expr(L->a, A->node);
    if (A->whole)
        t = arena_printf(L->a, "all of %s", t);
    return A->how ? arena_printf(L->a, "%s %s", t, A->how) : t;
}

/* --------------------------------------------------------- the race rule */

static bool writes_conflict(Lane *L, Sym *v, const Acc *A, const Acc *B)
{
    int64_t i, j, e;
    /* the proof first: it is cheap, and where it holds no witness exists,
     * so the search for one (64 lanes each way) runs only where it may */
    if (proved_apart(L, A, B))
        return false;
    if (find_meeting(L, A, B, &i, &j, &e)) {
        const char *el = A->whole && B->whole ? arena_printf(L->a, "all of %s", v->id)
                                              : arena_printf(L->a, "%s[%lld]", v->id, (long long)e);
        LANE_ERROR(L, B->at, E_PARALLEL_RACE, "let each lane write only its own elements: `out[i]`, `out[4 * i .. 4 * i + 4]`",
                   "lanes %s and %s both write %s: %s (line %d)%s%s, in %s", lane_eq(L, i < j ? i : j),
                   lane_eq(L, i < j ? j : i), el, acc_text(L, A), A->at.line, A == B ? "" : "; and ",
                   A == B ? "" : arena_printf(L->a, "%s (line %d)", acc_text(L, B), B->at.line), region_what(L));
        return true;
    }
    LANE_ERROR(L, B->at, E_PARALLEL_RACE, "index the view by the lane: `out[i]`, `out[2 * i + 1]`, or a part `out[4 * i .. 4 * i + 4]`",
               "lanes %s and %s may both write %s: the index is not proved one-to-one in %s (%s, line %d), in %s",
               lane_eq(L, 0), lane_eq(L, 1), expand_expr(L->a, B->node),
               L->var && strcmp(L->var, "_") ? L->var : "the lane", acc_text(L, B), B->at.line, region_what(L));
    return true;
}

static void read_conflict(Lane *L, Sym *v, const Acc *R, Vec *writes)
{
    for (int k = 0; k < writes->n; k++)
        if (own_element(L, R, writes->v[k]))
            return;
    for (int k = 0; k < writes->n; k++) {
        const Acc *W = writes->v[k];
        int64_t i, j, e;
        if (find_meeting(L, R, W, &i, &j, &e)) {
            LANE_ERROR(L, R->at, E_PARALLEL_RACE, "read a view the region writes only at the lane's own element, or "
                       "write into another view",
                       "lane %s reads %s[%lld] through %s (line %d), which lane %s writes through %s (line %d), in %s",
                       lane_eq(L, i), v->id, (long long)e, acc_text(L, R), R->at.line, lane_eq(L, j),
                       acc_text(L, W), W->at.line, region_what(L));
            return;
        }
    }
    const Acc *W = writes->v[0];
    LANE_ERROR(L, R->at, E_PARALLEL_RACE, "read a view the region writes only at the lane's own element, or write "
               "into another view",
               "lane %s reads %s (line %d), which is not the element it writes (%s, line %d): another lane may "
               "write it in %s", lane_eq(L, 1), acc_text(L, R), R->at.line, acc_text(L, W), W->at.line,
               region_what(L));
}

/* Keeps the first of each group of writes with one footprint (the same
 * affine form of the lane and width): two such writes race with each other
 * exactly as one of them races with itself, and with a third exactly as the
 * first does, so the first pair in order that conflicts is unchanged, and a
 * lane of ten thousand `y[i] = ...` is not checked ten thousand squared
 * times. A collector's own write is always kept (it is never compared with
 * itself). */
static void distinct_writes(Lane *L, Vec *writes)
{
    Vec kept = {0};
    Foot *feet = arena_alloc(L->a, sizeof *feet * (size_t)(writes->n + 1));
    bool *has = arena_alloc(L->a, sizeof *has * (size_t)(writes->n + 1));
    for (int a = 0; a < writes->n; a++) {
        Acc *A = writes->v[a];
        int k = kept.n;
        has[k] = !A->by_collector && fp_aff(L, A, &feet[k]);
        bool dup = false;
        for (int j = 0; has[k] && j < kept.n && !dup; j++)
            dup = has[j] && feet[j].w == feet[k].w && feet[j].base.coef == feet[k].base.coef &&
                  feet[j].base.k == feet[k].base.k && aff_equal_terms(&feet[j].base, &feet[k].base);
        if (!dup)
            vec_push(L->a, &kept, A);
    }
    *writes = kept;
}

static void check_view(Lane *L, Sym *v)
{
    Vec writes = {0}, reads = {0};
    const Acc *atomic = NULL, *plain = NULL;
    for (int k = 0; k < L->acc.n; k++) {
        Acc *A = L->acc.v[k];
        if (A->view != v)
            continue;
        if (A->kind == AK_ATOMIC) {
            if (!atomic)
                atomic = A;
            continue;
        }
        if (!plain)
            plain = A;
        vec_push(L->a, A->kind == AK_WRITE ? &writes : &reads, A);
    }
    if (atomic && plain) {
        const Acc *later = plain->at.line > atomic->at.line ||
                           (plain->at.line == atomic->at.line && plain->at.col > atomic->at.col) ? plain : atomic;
        LANE_ERROR(L, later->at, E_ATOMIC_MIXED, "update it atomically everywhere in the region, or split the region",
                   "%s is updated atomically (%s, line %d) and %s plainly (%s, line %d) in %s", v->id,
                   expand_expr(L->a, atomic->node), atomic->at.line, plain->kind == AK_WRITE ? "written" : "read",
                   acc_text(L, plain), plain->at.line, region_what(L));
        return;
    }
    distinct_writes(L, &writes);
    for (int a = 0; a < writes.n; a++)
        for (int b = a; b < writes.n; b++) {
            if (a == b && ((Acc *)writes.v[a])->by_collector)
                continue;   /* the collector places its own values */
            if (writes_conflict(L, v, writes.v[a], writes.v[b]))
                return;
        }
    if (writes.n)
        for (int r = 0; r < reads.n; r++)
            read_conflict(L, v, reads.v[r], &writes);
}

static void check_races(Lane *L)
{
    Vec views = {0};
    for (int k = 0; k < L->acc.n; k++) {
        Acc *A = L->acc.v[k];
        if (A->kind != AK_READ && !vec_has(&L->written, A->view))
            vec_push(L->a, &L->written, A->view);
        if (!vec_has(&views, A->view))
            vec_push(L->a, &views, A->view);
    }
    for (int k = 0; k < views.n; k++)
        check_view(L, views.v[k]);
}

/* ------------------------------------------------------ the lane's body */

static void lw(Lane *L, Node *n);

static void lw_vec(Lane *L, const Vec *v)
{
    for (int i = 0; i < v->n; i++)
        lw(L, v->v[i]);
}

/* An access through a view expression: x, x[a..b], a let-bound part of x;
 * e is the outermost node (an element's base when elem is set). */
static void add_access(Lane *L, AccKind kind, Node *at, Node *e, Node *idx, const char *how)
{
    Acc *A = arena_alloc(L->a, sizeof *A);
    A->kind = kind;
    A->node = at;
    A->at = at->span;
    A->idx = idx;
    A->how = how;
    bool have = idx != NULL;
    for (int depth = 0; e && depth < 64; depth++) {
        if (e->kind == N_SLICE) {
            if (!have) {
                A->part = true;
                A->lo = e->slice.lo;
                A->hi = e->slice.hi;
                have = true;
            } else if (e->slice.lo) {
                if (A->noffs == 4)
                    return;
                A->offs[A->noffs++] = e->slice.lo;
            }
            e = e->slice.base;
        } else if (e->kind == N_NAME) {
            Sym *s = e->name.sym;
            if (s && s->kind == SYM_LOCAL && !s->mut && s->ty && s->ty->kind == TY_VIEW && s->decl &&
                s->decl->kind == N_LET && s->decl->let.init) {
                e = s->decl->let.init;
                continue;
            }
            if (!s || is_inside(L, s) || !s->ty || s->ty->kind != TY_VIEW)
                return;
            A->view = s;
            A->whole = !have;
            vec_push(L->a, &L->acc, A);
            return;
        } else {
            return;
        }
    }
}

/* Walks the parts of a view expression that are values (slice bounds). */
static void lw_view_bounds(Lane *L, Node *e)
{
    while (e && e->kind == N_SLICE) {
        lw(L, e->slice.lo);
        lw(L, e->slice.hi);
        e = e->slice.base;
    }
}

static bool outside_scalar(Lane *L, Node *e)
{
    Sym *s = e && e->kind == N_NAME ? e->name.sym : NULL;
    return s && (s->kind == SYM_LOCAL || s->kind == SYM_PARAM) && !is_inside(L, s);
}

static void scalar_write(Lane *L, Node *at, Sym *s, const char *how)
{
    int line = s->decl ? s->decl->span.line : 0;
    LANE_ERROR(L, at->span, E_PARALLEL_WRITE,
               "compute it with a collector (`let s = reduce + parallel i in n yield ...;`), or declare it inside "
               "the lane",
               "lanes %s and %s both %s `%s`, declared outside the region (line %d), in %s", lane_eq(L, 0),
               lane_eq(L, 1), how, s->id, line, region_what(L));
}

/* An element or scalar written: by `=`, `op=`, or lent as rw<T>. */
static void lane_store(Lane *L, Node *lhs, const char *how)
{
    if (lhs->kind == N_NAME) {
        if (outside_scalar(L, lhs))
            scalar_write(L, lhs, lhs->name.sym, how);
        return;
    }
    if (lhs->kind != N_INDEX)
        return lw(L, lhs);
    Node *base = lhs->index.base;
    lw(L, lhs->index.index);
    lw_view_bounds(L, base);
    if (base->ty && base->ty->kind == TY_VIEW) {
        add_access(L, AK_WRITE, lhs, base, lhs->index.index, NULL);
        return;
    }
    Sym *r = view_root(base);   /* an element of an Array value */
    if (r && (r->kind == SYM_LOCAL || r->kind == SYM_PARAM) && !is_inside(L, r))
        scalar_write(L, lhs, r, arena_printf(L->a, "%s an element of", how));
}

static void lane_nest(Lane *L, Node *at, const char *what)
{
    LANE_ERROR(L, at->span, E_PARALLEL_NEST, "run it after the region, or use a `for` loop (or `reduce ... for`) "
               "inside the lane",
               "%s inside a lane of %s: regions do not nest", what, region_what(L));
}

static void lane_forbidden(Lane *L, Node *at, const char *what)
{
    LANE_ERROR(L, at->span, E_PARALLEL_CALL, "do it before or after the region; a lane only computes and writes its "
               "own elements",
               "%s inside a lane of %s: a lane runs only pure lane operations", what, region_what(L));
}

static void lane_collect(Lane *L, Node *n)
{
    const char *k = n->collect.kind == COLLECT_REDUCE ? "reduce" : n->collect.kind == COLLECT_SCAN ? "scan" : "compact";
    if (n->collect.mode == MODE_PARALLEL)
        return lane_nest(L, n, arena_printf(L->a, "a pooled `%s ... parallel`", k));
    lw(L, n->collect.extent);
    Node *d = n->collect.dest;
    if (d && n->collect.kind == COLLECT_REDUCE) {
        lane_store(L, d, "assign");
    } else if (d) {
        lw_view_bounds(L, d);
        add_access(L, AK_WRITE, d, d, NULL, arena_printf(L->a, "written by the %s at line %d", k, n->span.line));
    }
    inside_add(L, n->collect.sym);
    lw(L, n->collect.keep);
    lw(L, n->collect.value);
}

static void lane_fn_call(Lane *L, Node *n)
{
    Node *fn = n->call.target;
    FnEff *fe = L->eff ? effects_of(L->eff, fn) : NULL;
    const char *name = fn && fn->fn.id ? fn->fn.id : "the function";
    if (fe) {
        static const EffBit call_bits[] = {EF_IO, EF_LIBM, EF_ALLOC, EF_SYNC, EF_VALUE};
        static const EffBit nest_bits[] = {EF_PAR, EF_DEV, EF_MMA};
        for (size_t b = 0; b < sizeof nest_bits / sizeof *nest_bits; b++)
            if (fe->bits & (1u << nest_bits[b]))
                return lane_nest(L, n, arena_printf(L->a, "a call of %s, which reaches %s,", name,
                                                    effects_chain(L->a, fe, nest_bits[b])));
        for (size_t b = 0; b < sizeof call_bits / sizeof *call_bits; b++)
            if (fe->bits & (1u << call_bits[b]))
                return lane_forbidden(L, n, arena_printf(L->a, "a call of %s, which reaches %s,", name,
                                                         effects_chain(L->a, fe, call_bits[b])));
    }
    Type *ft = n->call.callee ? n->call.callee->ty : NULL;
    for (int i = 0; i < n->call.args.n; i++) {
        Node *a = n->call.args.v[i];
        Type *pt = ft && ft->kind == TY_FN && i < ft->params.n ? ft->params.v[i] : NULL;
        if (pt && pt->kind == TY_REF) {
            lane_store(L, a, arena_printf(L->a, "lend as rw to %s", name));
        } else if (pt && pt->kind == TY_VIEW) {
            lw_view_bounds(L, a);
            add_access(L, pt->access == ACC_RW ? AK_WRITE : AK_READ, a, a, NULL,
                       arena_printf(L->a, "passed as %s to %s", pt->access == ACC_RW ? "rw" : "ro", name));
        } else {
            lw(L, a);
        }
    }
}

static void lane_builtin(Lane *L, Node *n)
{
    Builtin b = (Builtin)n->call.builtin;
    switch (b) {
    case B_PRINT: case B_PRINTLN: case B_TRANSFER: case B_WAIT: case B_LOCK_NEW:
        return lane_forbidden(L, n, arena_printf(L->a, "%s(..)", builtin_name(b)));
    case B_MMA_UNORDERED:
        return lane_nest(L, n, "mma_unordered");
    case B_ATOMIC_ADD_WRAP: case B_ATOMIC_MIN: case B_ATOMIC_MAX: case B_ATOMIC_AND: case B_ATOMIC_OR:
    case B_ATOMIC_XOR: case B_ATOMIC_CAS: case B_ATOMIC_ADD_UNORDERED: {
        Node *el = n->call.args.n ? n->call.args.v[0] : NULL;
        if (el && el->kind == N_INDEX) {
            lw(L, el->index.index);
            lw_view_bounds(L, el->index.base);
            add_access(L, AK_ATOMIC, el, el->index.base, el->index.index, NULL);
        }
        for (int i = 1; i < n->call.args.n; i++)
            lw(L, n->call.args.v[i]);
        return;
    }
    case B_LEN:
        return;
    default:
        lw_vec(L, &n->call.args);
    }
}

static void lane_call(Lane *L, Node *n)
{
    switch (n->call.ck) {
    case CALL_BUILTIN: return lane_builtin(L, n);
    case CALL_MATH:
        return lane_forbidden(L, n, arena_printf(L->a, "std.math.%s (the host's C library)",
                                                 n->call.math ? n->call.math : "?"));
    case CALL_VALUE: return lane_forbidden(L, n, "a call through a function value");
    case CALL_FN: return lane_fn_call(L, n);
    default: return lw_vec(L, &n->call.args);
    }
}

/* A chain in a lane: its leaf, then its right operands in source order. */
static void lw_chain(Lane *L, Node *n)
{
    if (!n->binary.a || n->binary.a->kind != N_BINARY) {   /* one link */
        lw(L, n->binary.a);
        lw(L, n->binary.b);
        return;
    }
    Spine sp;
    lw(L, spine_of(&sp, n));
    for (int i = sp.n - 1; i >= 0; i--)
        lw(L, sp.v[i]->binary.b);
    spine_free(&sp);
}

static void lw(Lane *L, Node *n)
{
    if (!n)
        return;
    switch (n->kind) {
    case N_LET: case N_CONST: lw(L, n->let.init); inside_add(L, n->let.sym); return;
    case N_FOR:
        lw(L, n->loop.lo);
        lw(L, n->loop.hi);
        inside_add(L, n->loop.sym);
        lw(L, n->loop.body);
        return;
    case N_WHILE: lw(L, n->loop.cond); lw(L, n->loop.body); return;
    case N_PARALLEL: return lane_nest(L, n, "a parallel region");
    case N_COOP: return lane_nest(L, n, "a cooperative region");
    case N_COLLECT: return lane_collect(L, n);
    case N_ASSIGN:
        lw(L, n->assign.rhs);
        return lane_store(L, n->assign.lhs, "assign");
    case N_INDEX:
        lw(L, n->index.index);
        lw_view_bounds(L, n->index.base);
        if (n->index.base->ty && n->index.base->ty->kind == TY_VIEW)
            add_access(L, AK_READ, n, n->index.base, n->index.index, NULL);
        else
            lw(L, n->index.base);
        return;
    case N_SLICE:
        lw_view_bounds(L, n);
        add_access(L, AK_READ, n, n, NULL, NULL);
        return;
    case N_CALL: return lane_call(L, n);
    case N_CLOSURE: return lane_forbidden(L, n, "a closure made");
    case N_BUFFER: return lane_forbidden(L, n, "a buffer allocated");
    case N_LOCK: return lane_forbidden(L, n, "a lock");
    case N_TASK: return lane_forbidden(L, n, "a host task");
    case N_SPAWN: return lane_forbidden(L, n, "spawn");
    case N_LAUNCH: return lane_forbidden(L, n, "a kernel launch");
    case N_ASM: return lane_forbidden(L, n, "typed assembly");
    case N_RETURN:
        LANE_ERROR(L, n->span, E_RETURN, "a lane ends at the end of its body; compute what you need with a collector",
                   "`return` inside a lane of %s: a lane cannot return from its function", region_what(L));
        return;
    case N_UNARY: case N_EXPR_STMT: lw(L, n->unary.a); return;
    case N_BINARY: return lw_chain(L, n);
    case N_FIELD: lw(L, n->field.base); return;
    case N_BLOCK: case N_UNSAFE: lw_vec(L, &n->block.stmts); return;
    case N_IF:
        for (; n && n->kind == N_IF; n = n->if_.els) {   /* an else-if chain: a loop */
            lw(L, n->if_.cond);
            lw(L, n->if_.then);
        }
        lw(L, n);
        return;
    default: return;
    }
}

/* ------------------------------------------------------------- regions */

static void lane_init(Lane *L, Arena *a, Sink *sink, EffTable *eff, Vec *reported, Node *region)
{
    memset(L, 0, sizeof *L);
    L->a = a;
    L->sink = sink;
    L->eff = eff;
    L->reported = reported;
    L->region = region;
}

/* The outside views written, known before the race rule runs (an index
 * that reads one is not lane-invariant). */
static void lane_finish(Lane *L)
{
    for (int k = 0; k < L->acc.n; k++) {
        Acc *A = L->acc.v[k];
        if (A->kind != AK_READ && !vec_has(&L->written, A->view))
            vec_push(L->a, &L->written, A->view);
    }
    check_races(L);
}

static void check_region(Ctx *x, EffTable *eff, Vec *reported, Node *r)
{
    Lane L;
    lane_init(&L, x->a, x->sink, eff, reported, r);
    L.lane[0] = r->loop.sym;
    L.var = r->loop.var;
    lw(&L, r->loop.body);
    lane_finish(&L);
}

static void check_pooled_collect(Ctx *x, EffTable *eff, Vec *reported, Node *c)
{
    if (c->collect.kind == COLLECT_SCAN && c->collect.value && type_is_float(c->collect.value->ty)) {
        if (c->collect.device)
            diag_error(x->sink, c->span, E_SCAN_ORDER,
                       "transfer the values to host memory and scan them there in written order",
                       "a float scan (%s) over @device views: the device combines in a tree, so each prefix would "
                       "be rounded in another order than written", tstr(x, c->collect.value->ty));
        else
            diag_error(x->sink, c->span, E_SCAN_ORDER, "scan floats in written order: `scan + out for i in n yield ...`",
                       "a float scan (%s) on the pool: each prefix would be rounded in another order than written",
                       tstr(x, c->collect.value->ty));
        return;
    }
    Lane L;
    lane_init(&L, x->a, x->sink, eff, reported, c);
    L.lane[0] = c->collect.sym;
    L.var = c->collect.var;
    lw(&L, c->collect.keep);
    lw(&L, c->collect.value);
    Node *d = c->collect.dest;
    if (d && c->collect.kind != COLLECT_REDUCE) {
        const char *how = arena_printf(x->a, "written by the %s", c->collect.kind == COLLECT_SCAN ? "scan" : "compaction");
        if (c->collect.kind == COLLECT_SCAN && c->collect.sym) {
            Node *iname = node_new(x->a, N_NAME, d->span);
            iname->name.id = c->collect.var;
            iname->name.sym = c->collect.sym;
            iname->ty = type_prim(TY_USIZE);
            add_access(&L, AK_WRITE, d, d, iname, how);
        } else {
            add_access(&L, AK_WRITE, d, d, NULL, how);
        }
        if (L.acc.n)
            ((Acc *)L.acc.v[L.acc.n - 1])->by_collector = true;
    }
    lane_finish(&L);
}

typedef struct {
    Ctx *x;
    EffTable *eff;
    Vec *reported;
} RegionWalk;

static bool region_visit(Node *n, void *c)
{
    RegionWalk *w = c;
    if (n->kind == N_PARALLEL) {
        check_region(w->x, w->eff, w->reported, n);
        return false;
    }
    if (n->kind == N_COLLECT && (n->collect.mode == MODE_PARALLEL || n->collect.device)) {
        check_pooled_collect(w->x, w->eff, w->reported, n);
        return false;
    }
    return true;
}

bool par_fusable(Arena *a, Node *ra, Node *rb)
{
    if (!ra || !rb || ra->kind != N_PARALLEL || rb->kind != N_PARALLEL || !ast_equal(ra->loop.hi, rb->loop.hi))
        return false;
    Lane L;
    Vec reported = {0};
    lane_init(&L, a, NULL, NULL, &reported, ra);
    L.lane[0] = ra->loop.sym;
    L.lane[1] = rb->loop.sym;
    L.var = ra->loop.var;
    lw(&L, ra->loop.body);
    lw(&L, rb->loop.body);
    InvCtx v = {&L, true};
    par_walk(ra->loop.hi, inv_visit, &v);    /* the extent: evaluated once for both */
    if (!v.ok)
        return false;
    lane_finish(&L);
    return L.errors == 0;
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
    if (fl)
        numerics_add_atomic(x, t, el->index.base->ty->place != PLACE_HOST && el->index.base->ty->place != PLACE_PINNED);
    return t;
}

/* ----------------------------------------------------------------- plans */

static int plan_literal(const Node *item, int at)
{
    if (item->plan_item.args.n <= at)
        return -1;
    const Node *v = item->plan_item.args.v[at];
    if (!v || v->kind != N_INT || v->lit.overflow || v->lit.ival > 1 << 20)
        return -1;
    return (int)v->lit.ival;
}

PlanInfo par_plan_for(const Node *program, const char *id)
{
    PlanInfo p = {0};
    if (!program || !id)
        return p;
    for (int i = 0; i < program->block.stmts.n; i++) {
        const Node *d = program->block.stmts.v[i];
        if (!d || d->kind != N_PLAN || !d->plan.target || strcmp(d->plan.target, id))
            continue;
        for (int k = 0; k < d->plan.items.n; k++) {
            const Node *it = d->plan.items.v[k];
            const char *n = it->plan_item.id ? it->plan_item.id : "";
            if (!strcmp(n, "vector"))
                p.vector = plan_literal(it, 0);
            else if (!strcmp(n, "unroll"))
                p.unroll = plan_literal(it, 0);
            else if (!strcmp(n, "fuse"))
                p.fuse = true;
            else if (!strcmp(n, "staged"))
                p.staged = true;
        }
    }
    if (p.vector < 0)
        p.vector = 0;
    if (p.unroll < 0)
        p.unroll = 0;
    return p;
}

typedef struct {
    int regions, collectors, pairs, fusable;
    Node *first_pair;
    Arena *a;
} PlanScan;

static void scan_block_pairs(PlanScan *s, Node *b)
{
    for (int i = 0; i + 1 < b->block.stmts.n; i++) {
        Node *p = b->block.stmts.v[i], *q = b->block.stmts.v[i + 1];
        if (!p || !q || p->kind != N_PARALLEL || q->kind != N_PARALLEL || !ast_equal(p->loop.hi, q->loop.hi))
            continue;
        s->pairs++;
        if (!s->first_pair)
            s->first_pair = p;
        if (par_fusable(s->a, p, q))
            s->fusable++;
    }
}

static bool plan_visit(Node *n, void *c)
{
    PlanScan *s = c;
    if (n->kind == N_PARALLEL)
        s->regions++;
    if (n->kind == N_COLLECT && n->collect.mode == MODE_PARALLEL)
        s->collectors++;
    if (n->kind == N_BLOCK)
        scan_block_pairs(s, n);
    return true;
}

static Node *find_fn(Node *prog, const char *id)
{
    for (int i = 0; i < prog->block.stmts.n; i++) {
        Node *d = prog->block.stmts.v[i];
        if (d && d->kind == N_FN && d->fn.id && id && !strcmp(d->fn.id, id) && !d->fn.is_extern)
            return d;
    }
    return NULL;
}

static void plan_item_check(Ctx *x, Node *d, Node *it, PlanScan *s)
{
    const char *n = it->plan_item.id ? it->plan_item.id : "?";
    const char *f = d->plan.target;
    bool counted = !strcmp(n, "vector") || !strcmp(n, "unroll");
    if (!counted && strcmp(n, "fuse") && strcmp(n, "staged")) {
        diag_error(x->sink, it->span, E_PLAN, "the items are `vector K;`, `unroll U;`, `fuse;` and `staged;`",
                   "unknown plan item `%s`", n);
        return;
    }
    int want = counted ? 1 : 0;
    int v = counted ? plan_literal(it, 0) : 0;
    int most = !strcmp(n, "vector") ? 64 : 16;
    if (it->plan_item.args.n != want || (counted && (v < 1 || v > most))) {
        diag_error(x->sink, it->span, E_PLAN,
                   counted ? arena_printf(x->a, "write `%s K;` with K a literal from 1 to %d", n, most)
                           : arena_printf(x->a, "write `%s;`", n),
                   "plan item `%s` takes %s", n, counted ? arena_printf(x->a, "one literal from 1 to %d", most) : "no arguments");
        return;
    }
    if (counted && !s->regions && !s->collectors) {
        diag_error(x->sink, it->span, E_PLAN, "plan a function that runs a parallel region or a pooled collector",
                   "`%s` does not apply to %s: it has no parallel region or pooled collector", n, f);
    } else if (!strcmp(n, "staged") && !s->collectors) {
        diag_error(x->sink, it->span, E_PLAN, "`staged` applies to `reduce`, `scan` and `compact ... parallel`",
                   "`staged` does not apply to %s: it has no pooled collector", f);
    } else if (!strcmp(n, "fuse") && !s->pairs) {
        diag_error(x->sink, it->span, E_PLAN, "write the regions one after the other, over one extent",
                   "`fuse` does not apply to %s: it has no two consecutive regions over the same extent", f);
    } else if (!strcmp(n, "fuse") && !s->fusable) {
        Node *p = s->first_pair;
        diag_error(x->sink, it->span, E_PLAN, "fuse only regions whose later lanes read what earlier ones wrote at "
                   "their own element",
                   "`fuse` does not apply to %s: the regions at lines %d and %d cannot run as one pass (a lane of the "
                   "second touches an element another lane of the first writes, or writes one it reads)",
                   f, p->span.line, p->span.line + 1);
    }
}

static void check_plans(Ctx *x)
{
    Node *prog = x->c->program;
    Vec seen = {0};
    for (int i = 0; i < prog->block.stmts.n; i++) {
        Node *d = prog->block.stmts.v[i];
        if (!d || d->kind != N_PLAN)
            continue;
        Node *fn = find_fn(prog, d->plan.target);
        if (!fn || fn->fn.is_kernel) {
            diag_error(x->sink, d->span, E_PLAN, "name a function of this file: `plan f { vector 4; }`",
                       fn ? "plan for `%s`, a kernel fn: plans of device work arrive with device execution"
                          : "plan for `%s`, but no function has that name", d->plan.target ? d->plan.target : "?");
            continue;
        }
        for (int k = 0; k < seen.n; k++)
            if (!strcmp(seen.v[k], d->plan.target)) {
                diag_error(x->sink, d->span, E_PLAN, "write all of its items in one plan",
                           "a second plan for `%s`", d->plan.target);
                fn = NULL;
                break;
            }
        if (!fn)
            continue;
        vec_push(x->a, &seen, (void *)d->plan.target);
        PlanScan s = {0};
        s.a = x->a;
        par_walk(fn->fn.body, plan_visit, &s);
        for (int k = 0; k < d->plan.items.n; k++)
            plan_item_check(x, d, d->plan.items.v[k], &s);
    }
}

/* ------------------------------------------------------------ the pass */

void check_par_program(Ctx *x)
{
    Check *c = x->c;
    EffTable *eff = c->effects;
    Vec reported = {0};
    RegionWalk w = {x, eff, &reported};
    /* eff->fns is c->fns in order, each function once: a search of the
     * functions already done made this quadratic in their number. A body
     * with a region or a pooled collector (closures included) has par:host
     * in its row, so a function without it has nothing to walk for. */
    for (int i = 0; i < eff->fns.n; i++) {
        FnEff *f = eff->fns.v[i];
        if (f->bits & ((1u << EF_PAR) | (1u << EF_DEV)))
            par_walk(f->fn->fn.body, region_visit, &w);
    }
    check_plans(x);
}
