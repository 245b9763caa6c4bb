/*
 * race.c: the lane race rule (E-PARALLEL-RACE, E-ATOMIC-MIXED), over the
 * accesses the walk of a lane recorded (lane.h).
 *
 * Requires: each access normalized to its root view, the offset of its
 * first element and its length, as forms of the symbolic core.
 * Guarantees: an accepted region has no two lanes writing one element, and
 * no lane reading an element another lane writes.
 *
 * The footprint of an access is the interval [lo, lo + len) of its root,
 * widened over the loop counters in it to cover every iteration. Split by
 * the lane index, lo = C * i + K. Two accesses A and B are apart in two
 * different lanes when both have the same C (any form without the lane),
 * and either C, K_B - K_A and the lengths are constants and no non-zero
 * multiple of C lies in the difference of their offsets, or both footprints
 * fit one window of |C| elements at each lane, proved from the unknowns'
 * ranges (so `y[r * cols + c]` for c in 0..cols is apart with cols a run-time
 * value). Where no proof holds, the footprints are evaluated lane by lane
 * (each loop counter's values enumerated) to find a witness; with a
 * constant extent of at most WITNESS_LANES lanes that search is exhaustive
 * and its finding nothing is a proof too.
 */
#include "lane.h"

#include <string.h>

enum { WITNESS_LANES = 64, WITNESS_COMBOS = 16, CTR_MAX = 4, SEARCH_BUDGET = 64 };

/* --------------------------------------------------------- reports */

bool lane_report(Lane *L, Span at, DiagCode code)
{
    L->errors++;
    if (!L->sink)
        return false;
    const char *key = arena_printf(L->keep, "%p:%d:%d:%d", (const void *)at.src, at.line, at.col, (int)code);
    for (int i = 0; i < L->reported->n; i++)
        if (!strcmp(L->reported->v[i], key))
            return false;
    vec_push(L->keep, L->reported, (void *)key);
    return true;
}

const char *lane_eq(const Lane *L, long long v)
{
    if (!L->var || !strcmp(L->var, "_"))
        return arena_printf(L->a, "%lld", v);
    return arena_printf(L->a, "%s = %lld", L->var, v);
}

const char *region_what(const Lane *L)
{
    Node *r = L->region;
    if (r->kind == N_COOP)
        return arena_printf(L->a, "the cooperative region at line %d", r->span.line);
    if (r->kind == N_PARALLEL)
        return arena_printf(L->a, "the region at line %d", r->span.line);
    return arena_printf(L->a, "the pooled %s at line %d",
                        r->collect.kind == COLLECT_REDUCE ? "reduce" : r->collect.kind == COLLECT_SCAN ? "scan" : "compact",
                        r->span.line);
}

static const char *acc_text(const Lane *L, const Acc *A)
{
    const char *t = expand_expr(L->a, A->node);
    if (A->whole)
        t = arena_printf(L->a, "all of %s", t);
    return A->how ? arena_printf(L->a, "%s %s", t, A->how) : t;
}

/* ------------------------------------------------------- footprints */

/* Does k's value change from lane to lane or from iteration to iteration? */
static bool key_varies(const SKey *k, int depth)
{
    if (k->kind == SK_LANE || k->kind == SK_COUNTER)
        return true;
    if (k->kind != SK_ATOM || depth > 32)
        return depth > 32;
    for (int side = 0; side < 2; side++) {
        const SForm *f = side ? k->b : k->a;
        for (int i = 0; f && i < f->n; i++)
            for (int j = 0; j < f->t[i].deg; j++)
                if (key_varies(f->t[i].v[j], depth + 1))
                    return true;
    }
    return false;
}

static bool form_varies(const SForm *f)
{
    for (int i = 0; i < f->n; i++)
        for (int j = 0; j < f->t[i].deg; j++)
            if (key_varies(f->t[i].v[j], 0))
                return true;
    return false;
}

/* The loop counters a form names directly, latest first (an inner loop's
 * range may name an outer counter, never the other way). */
static int counters_of(const SForm *f, const SKey **out, int n)
{
    for (int i = 0; i < f->n; i++)
        for (int j = 0; j < f->t[i].deg; j++) {
            const SKey *k = f->t[i].v[j];
            bool seen = false;
            for (int m = 0; m < n && !seen; m++)
                seen = out[m] == k;
            if (k->kind != SK_COUNTER || seen)
                continue;
            if (n == CTR_MAX)
                return -1;
            int m = n++;
            while (m > 0 && out[m - 1]->id < k->id) {
                out[m] = out[m - 1];
                m--;
            }
            out[m] = k;
        }
    return n;
}

/* Widens [lo, lo + len) over counter k in [klo, khi): with lo = c * k +
 * rest and c a form that does not vary, the footprint over every k starts
 * at rest + c * klo (c >= 0) or rest + c * (khi - 1) (c <= 0) and is
 * |c| * (khi - 1 - klo) longer. False: no such widening. */
static bool widen(const SKey *k, SForm *lo, SForm *len)
{
    SForm c, rest, span, one = sform_const(1), t;
    if (sform_has(len, k) || !sform_split(lo, k, &c, &rest) || form_varies(&c))
        return false;
    bool up = sform_nonneg(&c);
    if (!up) {
        sform_scale(&c, &c, -1);
        if (!sform_nonneg(&c))
            return false;
    }
    /* span = khi - 1 - klo */
    if (!sform_add(&span, k->hi, &one, -1) || !sform_add(&span, &span, k->lo, -1))
        return false;
    if (!sform_mul(&t, &c, up ? k->lo : &span))
        return false;
    if (!up) {   /* lo = rest - |c| * (khi - 1): rest - c * klo - c * span */
        SForm u;
        if (!sform_mul(&u, &c, k->lo) || !sform_add(&t, &t, &u, 1))
            return false;
        sform_scale(&t, &t, -1);
    }
    if (!sform_add(lo, &rest, &t, 1) || !sform_mul(&t, &c, &span) || !sform_add(len, len, &t, 1))
        return false;
    return true;
}

static void widen_all(const SForm *lo, const SForm *len, SForm *flo, SForm *flen)
{
    *flo = *lo;
    *flen = *len;
    const SKey *ks[CTR_MAX];
    for (int round = 0; round < 2 * CTR_MAX; round++) {
        int n = counters_of(flo, ks, 0);
        if (n >= 0)
            n = counters_of(flen, ks, n);
        if (n == 0)
            return;
        if (n < 0 || !widen(ks[0], flo, flen))
            break;
    }
    *flo = sform_any();
    *flen = sform_any();
}

static void footprint(Acc *A)
{
    widen_all(&A->lo, &A->len, &A->flo, &A->flen);
    widen_all(&A->clo, &A->clen, &A->fclo, &A->fclen);
}

/* lo = C * i + K, with C, K and the length free of anything that varies. */
static bool lane_form(const Lane *L, const SForm *lo, const SForm *len, SForm *C, SForm *K)
{
    if (lo->any || len->any || form_varies(len))
        return false;
    if (!sform_split(lo, L->key, C, K))
        return false;
    return !form_varies(C) && !form_varies(K);
}

static bool fits_window(const SForm *C, const SForm *d, const SForm *la, const SForm *lb)
{
    SForm c = *C, x, y;
    if (!sform_nonneg(&c)) {
        sform_scale(&c, &c, -1);
        if (!sform_nonneg(&c))
            return false;
    }
    SNum k;
    if (sform_is_const(&c, &k) && k == 0)
        return false;
    if (sform_nonneg(d))       /* [0, max(la, d + lb)) */
        return sform_add(&x, &c, la, -1) && sform_nonneg(&x) && sform_add(&y, &c, d, -1) &&
               sform_add(&y, &y, lb, -1) && sform_nonneg(&y);
    SForm nd;
    sform_scale(&nd, d, -1);
    if (sform_nonneg(&nd))     /* [d, max(la, d + lb)) */
        return sform_add(&x, &c, la, -1) && sform_add(&x, &x, d, 1) && sform_nonneg(&x) && sform_add(&y, &c, lb, -1) &&
               sform_nonneg(&y);
    return false;
}

/* Intervals [alo, alo + alen) in lane i and [blo, blo + blen) in lane
 * j != i have no common element. */
static bool spans_apart(const Lane *L, const SForm *alo, const SForm *alen, const SForm *blo, const SForm *blen)
{
    SForm Ca, Ka, Cb, Kb, d;
    if (!lane_form(L, alo, alen, &Ca, &Ka) || !lane_form(L, blo, blen, &Cb, &Kb) || !sform_equal(&Ca, &Cb))
        return false;
    SNum wa, wb;
    if (sform_is_const(alen, &wa) && sform_is_const(blen, &wb) && (wa <= 0 || wb <= 0))
        return true;   /* no element */
    if (!sform_add(&d, &Kb, &Ka, -1))
        return false;
    SNum c, dk;
    if (sform_is_const(&Ca, &c) && c != 0 && sform_is_const(&d, &dk) && sform_is_const(alen, &wa) &&
        sform_is_const(blen, &wb)) {
        /* lane i's A at c*i + [0, wa), lane j's B at c*j + d + [0, wb): they
         * meet iff some m = i - j != 0 has c*m in (d - wa, d + wb) */
        SNum a = c < 0 ? -c : c, lo = dk - (wa - 1), hi = dk + wb - 1;
        for (SNum m = lo / a - 1; m <= hi / a + 1; m++)
            if (m != 0 && m * a >= lo && m * a <= hi)
                return false;
        return true;
    }
    return fits_window(&Ca, &d, alen, blen);
}

/* Whether s = q * p for an integer q (forms; s 0 is q = 0). */
static bool multiple_of(const SForm *s, const SForm *p)
{
    SNum q, ks, kp;
    if (s->any || p->any)
        return false;
    if (p->n == 0) {
        return sform_is_const(s, &ks) && sform_is_const(p, &kp) && kp != 0 && ks % kp == 0;
    }
    const STerm *lead = &p->t[0];
    const STerm *match = NULL;
    for (int i = 0; i < s->n && !match; i++)
        if (s->t[i].deg == lead->deg && !memcmp(s->t[i].v, lead->v, sizeof lead->v[0] * (size_t)lead->deg))
            match = &s->t[i];
    if (!match)
        return sform_is_const(s, &ks) && ks == 0;
    if (match->c % lead->c != 0)
        return false;
    q = match->c / lead->c;
    SForm t;
    return sform_scale(&t, p, q) && sform_equal(&t, s);
}

/* A lane's access as a residue class: lo = C * i + sum S_m * k_m + rest,
 * with C the same in every lane, each stride counter k_m's coefficient S_m
 * a multiple of C * E (E the lane count: i in [0, E)), and the other
 * counters widened into [rest, rest + len) (their footprint over every
 * iteration), with rest free of what varies and len at most |C|. Lane i's
 * elements then lie in C * i + rest + C * E * z + [0, len) for integers z.
 * C and len come back with C >= 0 (the access negated where C < 0 is the
 * same set of offsets mirrored: both accesses of a pair must agree). */
static bool strided_form(const Lane *L, const SForm *lo, const SForm *len, SForm *C, SForm *K, SForm *W)
{
    SForm rest, P, w = *len, gap;
    if (lo->any || len->any || form_varies(len) || !L->key->hi || L->key->hi->any || !sform_split(lo, L->key, C, &rest) ||
        form_varies(C) || !sform_nonneg(C) || !sform_mul(&P, C, L->key->hi))
        return false;
    SNum c;
    if (sform_is_const(C, &c) && c == 0)
        return false;
    const SKey *ks[CTR_MAX];
    int n = counters_of(&rest, ks, 0);
    if (n < 0)
        return false;
    for (int m = 0; m < n; m++) {   /* the stride counters out */
        SForm S, r;
        if (!sform_split(&rest, ks[m], &S, &r))
            return false;
        if (multiple_of(&S, &P))
            rest = r;
    }
    n = counters_of(&rest, ks, 0);  /* the others into the window, latest first */
    for (int m = 0; m < n; m++)
        if (!widen(ks[m], &rest, &w))
            return false;
    if (n < 0 || form_varies(&rest) || form_varies(&w) || !sform_add(&gap, C, &w, -1) || !sform_nonneg(&gap))
        return false;
    *K = rest;
    *W = w;
    return true;
}

/* Two residue-class accesses (strided_form) with one C and one start are
 * apart: for lanes i != j in [0, E), C * (i - j) + C * E * z lies in
 * (-C, C) only for i - j = -E * z, and |i - j| < E makes that z = 0, so
 * i = j. A lane per column reaching `y[r * cols + j]` for every row r is
 * apart from the others, as is a lane per row's `y[r * cols + c]` for c
 * in 0..cols once its rows are dealt out in turns (r = t * rows + j). */
static bool strided_apart(const Lane *L, const Acc *A, const Acc *B)
{
    SForm Ca, Ka, Wa, Cb, Kb, Wb;
    return strided_form(L, &A->lo, &A->len, &Ca, &Ka, &Wa) && strided_form(L, &B->lo, &B->len, &Cb, &Kb, &Wb) &&
           sform_equal(&Ca, &Cb) && sform_equal(&Ka, &Kb);
}

/* A in lane i and B in lane j != i touch no common element: shown for the
 * accesses themselves, or for the parts they lie in (a superset). */
static bool proved_apart(const Lane *L, const Acc *A, const Acc *B)
{
    if (A->whole || B->whole)
        return false;
    if (strided_apart(L, A, B))
        return true;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            if (spans_apart(L, a ? &A->fclo : &A->flo, a ? &A->fclen : &A->flen, b ? &B->fclo : &B->flo,
                            b ? &B->fclen : &B->flen))
                return true;
    return false;
}

/* ------------------------------------------------------------ witnesses */

typedef struct {
    SNum lo[WITNESS_COMBOS], hi[WITNESS_COMBOS];
    int n;
} Spans;

/* The lane count when the extent is a constant, else -1. */
static SNum lane_count(const Lane *L)
{
    SNum n;
    if (L->key && L->key->hi && sform_is_const(L->key->hi, &n))
        return n;
    return -1;
}

/* Do A's conditions hold under as? *exact is cleared when one cannot be
 * decided (it is then taken to hold: the access may run). */
static bool conds_hold(const Acc *A, const SAssign *as, bool *exact)
{
    for (int c = 0; c < A->nconds; c++) {
        bool known;
        bool ok = scond_holds(A->conds[c], as, &known);
        if (!known) {
            *exact = false;
            continue;
        }
        if (!ok)
            return false;
    }
    return true;
}

/* The lanes A can run in, from conditions `i - K < 0` and the like on its
 * path: [0, hi), or -1 when they set no bound. */
static SNum cond_lanes(const Lane *L, const Acc *A)
{
    SNum hi = -1;
    for (int c = 0; c < A->nconds; c++) {
        SForm coef, rest;
        SNum one, k;
        const Cond *C = A->conds[c];
        if (!sform_split(&C->d, L->key, &coef, &rest) || !sform_is_const(&coef, &one) || one != 1 ||
            !sform_is_const(&rest, &k))
            continue;
        SNum b = C->op == T_LT ? -k : C->op == T_LE || C->op == T_EQ ? -k + 1 : -1;   /* i < -k, i <= -k, i == -k */
        if (b >= 0 && (hi < 0 || b < hi))
            hi = b;
    }
    return hi;
}

/* Every interval A touches in lane i, its loop counters enumerated, where
 * its conditions hold. */
static bool spans_in(const Lane *L, const Acc *A, SNum i, Spans *S, bool *exact)
{
    const SKey *ks[CTR_MAX], *keys[CTR_MAX + 1];
    SNum vals[CTR_MAX + 1];
    int n = counters_of(&A->lo, ks, 0);
    if (n >= 0)
        n = counters_of(&A->len, ks, n);
    if (n < 0)
        return false;
    /* outermost first: ks is latest first */
    SAssign as = {keys, vals, 1};
    keys[0] = L->key;
    vals[0] = i;
    SNum idx[CTR_MAX] = {0}, cnt[CTR_MAX] = {0}, base[CTR_MAX] = {0};
    S->n = 0;
    int level = 0;
    for (;;) {
        if (level < n) {   /* enter the next counter: its range under the outer values */
            const SKey *k = ks[n - 1 - level];
            SNum lo, hi;
            if (!sform_eval(k->lo, &as, &lo) || !sform_eval(k->hi, &as, &hi))
                return false;
            base[level] = lo;
            cnt[level] = hi > lo ? hi - lo : 0;
            idx[level] = 0;
            if (!cnt[level])
                goto next;
            keys[as.n] = k;
            vals[as.n++] = lo;
            level++;
            continue;
        }
        if (conds_hold(A, &as, exact)) {
            SNum lo, len = 0;
            if (!sform_eval(&A->lo, &as, &lo))
                return false;
            if (A->len.any)
                len = (SNum)1 << 100;
            else if (!sform_eval(&A->len, &as, &len))
                return false;
            if (S->n == WITNESS_COMBOS)
                return false;
            S->lo[S->n] = lo;
            S->hi[S->n++] = lo + len;
        }
    next:
        while (level > 0) {   /* the innermost counter's next value, or back out */
            int l = level - 1;
            if (++idx[l] < cnt[l]) {
                vals[as.n - 1] = base[l] + idx[l];
                break;
            }
            as.n--;
            level--;
        }
        if (level == 0)
            return true;
    }
}

enum { CANDIDATES = 256 };

/* F runs only in lanes [0, nf) (spans sf, every condition decided); G in
 * any lane, with the footprint C * j + K + [0, W) over every iteration
 * (constants). For each interval of F, the lanes j of G that may meet it
 * solve C * j in (lo - K - W, hi - K); each is checked lane by lane. None
 * meets: *all (proved apart). swapped: F is the second access (the lanes in
 * the witness are given back in the caller's order). */
static bool finite_vs_affine(const Lane *L, const Acc *F, const Acc *G, const Spans *sf, int nf, SNum *li, SNum *lj,
                             SNum *elem, bool *all, bool swapped)
{
    SForm Cf, Kf;
    SNum c, k, w, n = lane_count(L);
    if (!lane_form(L, &G->flo, &G->flen, &Cf, &Kf) || !sform_is_const(&Cf, &c) || c == 0 ||
        !sform_is_const(&Kf, &k) || !sform_is_const(&G->flen, &w))
        return false;
    SNum a = c < 0 ? -c : c;
    for (int i = 0; i < nf; i++)
        for (int p = 0; p < sf[i].n; p++) {
            SNum lo = sf[i].lo[p], hi = sf[i].hi[p];
            /* c*j in (lo - k - w, hi - k): j between the two quotients */
            SNum x = lo - k - w, y = hi - k, jlo, jhi;
            if (c > 0) {
                jlo = x >= 0 ? x / c : -((-x + c - 1) / c);
                jhi = y >= 0 ? (y + c - 1) / c : -(-y / c);
            } else {
                jlo = -y >= 0 ? -y / a : -((y + a - 1) / a);
                jhi = -x >= 0 ? (-x + a - 1) / a : -(x / a);
            }
            if (jlo < 0)
                jlo = 0;
            if (n >= 0 && jhi > n)
                jhi = n;
            if (jhi - jlo > CANDIDATES)
                return false;
            for (SNum j = jlo; j <= jhi; j++) {
                Spans sg;
                bool exact = true;
                if (j == i || (n >= 0 && j >= n))
                    continue;
                if (!spans_in(L, G, j, &sg, &exact) || !exact)
                    return false;
                for (int q = 0; q < sg.n; q++) {
                    SNum m = lo > sg.lo[q] ? lo : sg.lo[q];
                    if (m < (hi < sg.hi[q] ? hi : sg.hi[q])) {
                        *li = swapped ? j : i;
                        *lj = swapped ? i : j;
                        *elem = m;
                        return true;
                    }
                }
            }
        }
    *all = true;
    return false;
}

/* The lanes to search for A: its conditions' bound, the extent's when it
 * is a constant, at most WITNESS_LANES; *bounded: the search covers every
 * lane A can run in. */
static int search_lanes(const Lane *L, const Acc *A, bool *bounded)
{
    SNum n = lane_count(L), c = cond_lanes(L, A);
    if (c >= 0 && (n < 0 || c < n))
        n = c;
    *bounded = n >= 0 && n <= WITNESS_LANES;
    return *bounded ? (int)n : WITNESS_LANES;
}

/* Lanes i != j where A (lane i) and B (lane j) meet: the smallest pair, the
 * first element. *all: every lane pair was searched and every condition
 * decided, so finding none proves them apart. */
static bool find_meeting(const Lane *L, const Acc *A, const Acc *B, SNum *li, SNum *lj, SNum *elem, bool *all)
{
    *all = false;
    if (!A->view || !B->view)
        return false;   /* a view not followed: no element to name */
    bool ba, bb, exact = true;
    int na = search_lanes(L, A, &ba), nb = search_lanes(L, B, &bb);
    int n = na > nb ? na : nb;
    Spans *sa = arena_alloc(L->a, sizeof *sa * (size_t)(n + 1)), *sb = arena_alloc(L->a, sizeof *sb * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        sa[i].n = sb[i].n = 0;
        if ((i < na && !spans_in(L, A, i, &sa[i], &exact)) || (i < nb && !spans_in(L, B, i, &sb[i], &exact)))
            return false;
    }
    for (int s = 1; s < n; s++)            /* smallest lanes first */
        for (int t = 0; t < s; t++)
            for (int pass = 0; pass < 2; pass++) {
                int i = pass ? s : t, j = pass ? t : s;
                for (int p = 0; p < sa[i].n; p++)
                    for (int q = 0; q < sb[j].n; q++) {
                        SNum lo = sa[i].lo[p] > sb[j].lo[q] ? sa[i].lo[p] : sb[j].lo[q];
                        SNum hi = sa[i].hi[p] < sb[j].hi[q] ? sa[i].hi[p] : sb[j].hi[q];
                        if (lo < hi) {
                            *li = i;
                            *lj = j;
                            *elem = lo;
                            return true;
                        }
                    }
            }
    *all = ba && bb && exact;
    if (*all || !exact || ba == bb)
        return false;
    /* one side runs in a few lanes, the other in any: the second's lanes
     * that can meet the first's elements, from its affine footprint, each
     * confirmed lane by lane */
    return ba ? finite_vs_affine(L, A, B, sa, na, li, lj, elem, all, false)
              : finite_vs_affine(L, B, A, sb, nb, li, lj, elem, all, true);
}

/* --------------------------------------------------------- the race rule */

typedef enum { APART, MET, UNPROVED } Verdict;

/* The read of f whose adjoint a write of f_grad adds (derive grad marks
 * it), or NULL: a race there is the gradient's, E-GRAD-RACE at the read. */
static const Node *adjoint_read(const Acc *A)
{
    return A->node && A->node->kind == N_INDEX ? A->node->index.adjoint_of : NULL;
}

static const char *const GRAD_RACE_HELP = "read a differentiated view in a region only at elements no other lane "
                                          "reads, or differentiate a sequential loop";

/* The message for two writes not proved apart and with no witness. */
static void report_unproved_writes(Lane *L, const Acc *B)
{
    const Node *r = adjoint_read(B);
    if (r) {
        LANE_ERROR(L, r->span, E_GRAD_RACE, GRAD_RACE_HELP,
                   "derive grad for %s: the adjoint of %s adds into %s, which is not proved apart from another "
                   "lane's elements, in the backward region of the derive at line %d", B->node->index.adjoint_fn,
                   expand_expr(L->a, (Node *)r), expand_expr(L->a, B->node), L->region->span.line);
        return;
    }
    LANE_ERROR(L, B->at, E_PARALLEL_RACE, "index the view by the lane: `out[i]`, `out[2 * i + 1]`, or a part `out[4 * i .. 4 * i + 4]`",
               "lanes %s and %s may both write %s: the index is not proved one-to-one in %s (%s, line %d), in %s",
               lane_eq(L, 0), lane_eq(L, 1), expand_expr(L->a, B->node),
               L->var && strcmp(L->var, "_") ? L->var : "the lane", acc_text(L, B), B->at.line, region_what(L));
}

/* Two writes: apart, met (reported, with the witness), or not proved (the
 * caller reports it once no pair has a witness: a concrete race is the
 * more useful message). */
static Verdict writes_conflict(Lane *L, Sym *v, const Acc *A, const Acc *B)
{
    SNum i, j, e;
    bool all;
    /* the proof first: it is cheap, and where it holds no witness exists,
     * so the search for one runs only where it may */
    if (proved_apart(L, A, B))
        return APART;
    const char *vid = v ? v->id : "a view";
    if (find_meeting(L, A, B, &i, &j, &e, &all)) {
        const char *el = A->whole && B->whole ? arena_printf(L->a, "all of %s", vid)
                                              : arena_printf(L->a, "%s[%lld]", vid, (long long)e);
        const Acc *G = adjoint_read(B) ? B : A;
        const Node *r = adjoint_read(G);
        if (r) {
            LANE_ERROR(L, r->span, E_GRAD_RACE, GRAD_RACE_HELP,
                       "derive grad for %s: the adjoint of %s adds into %s at another lane's element: lanes %s and %s "
                       "both add into %s, in the backward region of the derive at line %d",
                       G->node->index.adjoint_fn, expand_expr(L->a, (Node *)r), vid, lane_eq(L, (long long)(i < j ? i : j)),
                       lane_eq(L, (long long)(i < j ? j : i)), el, L->region->span.line);
            return MET;
        }
        LANE_ERROR(L, B->at, E_PARALLEL_RACE, "let each lane write only its own elements: `out[i]`, `out[4 * i .. 4 * i + 4]`",
                   "lanes %s and %s both write %s: %s (line %d)%s%s, in %s", lane_eq(L, (long long)(i < j ? i : j)),
                   lane_eq(L, (long long)(i < j ? j : i)), el, acc_text(L, A), A->at.line, A->node == B->node ? "" : "; and ",
                   A->node == B->node ? "" : arena_printf(L->a, "%s (line %d)", acc_text(L, B), B->at.line), region_what(L));
        return MET;
    }
    return all ? APART : UNPROVED;   /* all: every lane pair searched, every condition decided */
}

/* A read is safe when no other lane writes what it reads: it is apart,
 * lane by lane, from every write (so a lane reads the elements it writes
 * itself, `y[i] += 1`, and nothing another lane writes). */
static void read_conflict(Lane *L, Sym *v, const Acc *R, Vec *writes)
{
    const char *vid = v ? v->id : "a view";
    const Acc *unproved = NULL;
    for (int k = 0; k < writes->n; k++) {
        const Acc *W = writes->v[k];
        SNum i, j, e;
        bool all;
        if (proved_apart(L, R, W))
            continue;
        if (find_meeting(L, R, W, &i, &j, &e, &all)) {
            LANE_ERROR(L, R->at, E_PARALLEL_RACE, "read a view the region writes only at the lane's own element, or "
                       "write into another view",
                       "lane %s reads %s[%lld] through %s (line %d), which lane %s writes through %s (line %d), in %s",
                       lane_eq(L, (long long)i), vid, (long long)e, acc_text(L, R), R->at.line, lane_eq(L, (long long)j),
                       acc_text(L, W), W->at.line, region_what(L));
            return;
        }
        if (!all && !unproved)
            unproved = W;
    }
    if (unproved)
        LANE_ERROR(L, R->at, E_PARALLEL_RACE, "read a view the region writes only at the lane's own element, or write "
                   "into another view",
                   "lane %s reads %s (line %d), which is not the element it writes (%s, line %d): another lane may "
                   "write it in %s", lane_eq(L, 1), acc_text(L, R), R->at.line, acc_text(L, unproved),
                   unproved->at.line, region_what(L));
}

/* Keeps the first of each group of writes with one footprint under the
 * same conditions: two such
 * writes race with each other exactly as one of them races with itself, so
 * the first pair in order that conflicts is unchanged, and a lane of ten
 * thousand `y[i] = ...` is not checked ten thousand squared times. A
 * collector's own write is always kept (it is never compared with itself). */
/* The same conditions, in the same order (a path's conditions are shared
 * by the accesses on it). */
static bool same_conds(const Acc *A, const Acc *B)
{
    if (A->nconds != B->nconds)
        return false;
    for (int c = 0; c < A->nconds; c++)
        if (A->conds[c] != B->conds[c])
            return false;
    return true;
}

static void distinct_writes(Lane *L, Vec *writes)
{
    Vec kept = {0};
    for (int a = 0; a < writes->n; a++) {
        Acc *A = writes->v[a];
        bool dup = false;
        for (int j = 0; !A->by_collector && !A->whole && j < kept.n && !dup; j++) {
            Acc *K = kept.v[j];
            dup = !K->by_collector && !K->whole && K->view == A->view && sform_equal(&K->lo, &A->lo) &&
                  sform_equal(&K->len, &A->len) && same_conds(K, A);
        }
        if (!dup)
            vec_push(L->a, &kept, A);
    }
    *writes = kept;
}

/* The accesses of view v; a view the walk could not follow (NULL) may be
 * any of them, so its accesses join every view's. */
static void check_view(Lane *L, Sym *v)
{
    Vec writes = {0}, reads = {0};
    const Acc *atomic = NULL, *plain = NULL;
    for (int k = 0; k < L->acc.n; k++) {
        Acc *A = L->acc.v[k];
        if (A->view != v && A->view && v)
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
    const char *vid = v ? v->id : "a view";
    if (atomic && plain) {
        const Acc *later = plain->at.line > atomic->at.line ||
                           (plain->at.line == atomic->at.line && plain->at.col > atomic->at.col) ? plain : atomic;
        LANE_ERROR(L, later->at, E_ATOMIC_MIXED, "update it atomically everywhere in the region, or split the region",
                   "%s is updated atomically (%s, line %d) and %s plainly (%s, line %d) in %s", vid,
                   expand_expr(L->a, atomic->node), atomic->at.line, plain->kind == AK_WRITE ? "written" : "read",
                   acc_text(L, plain), plain->at.line, region_what(L));
        return;
    }
    distinct_writes(L, &writes);
    const Acc *unproved = NULL;
    int searched = 0;   /* witness searches after the first pair not proved: a budget, not a rule */
    for (int a = 0; a < writes.n; a++)
        for (int b = a; b < writes.n; b++) {
            if (a == b && ((Acc *)writes.v[a])->by_collector)
                continue;   /* the collector places its own values */
            if (unproved && ++searched > SEARCH_BUDGET)
                goto report;
            Verdict d = writes_conflict(L, v, writes.v[a], writes.v[b]);
            if (d == MET)
                return;
            if (d == UNPROVED && !unproved)
                unproved = writes.v[b];
        }
report:
    if (unproved) {
        report_unproved_writes(L, unproved);
        return;
    }
    if (writes.n)
        for (int r = 0; r < reads.n; r++)
            read_conflict(L, v, reads.v[r], &writes);
}

static bool has_view(const Vec *v, const void *p)
{
    for (int i = 0; i < v->n; i++)
        if (v->v[i] == p)
            return true;
    return false;
}

void race_check(Lane *L)
{
    SNum lanes = lane_count(L);
    if (lanes >= 0 && lanes <= 1)
        return;   /* no two lanes */
    Vec views = {0};
    bool unknown = false;
    for (int k = 0; k < L->acc.n; k++) {
        Acc *A = L->acc.v[k];
        footprint(A);
        if (!A->view)
            unknown = true;
        else if (!has_view(&views, A->view))
            vec_push(L->a, &views, A->view);
    }
    for (int k = 0; k < views.n; k++)
        check_view(L, views.v[k]);
    if (unknown && !views.n)
        check_view(L, NULL);
}
