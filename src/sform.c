/*
 * sform.c: the symbolic core's forms (sym.h): integer sums of products of
 * keys, their arithmetic, printing, ranges and evaluation under an
 * assignment. sym.c builds them from the tree (environments, keys,
 * evaluation of expressions); this file knows nothing of the tree.
 *
 * Requires: nothing but sym.h's types.
 * Guarantees: a form is exact or any: an operation that would overflow a
 * coefficient, or leave the representable, gives any.
 */
#include "sym.h"

#include <string.h>

/* ------------------------------------------------------------- numbers */

static bool num_add(SNum a, SNum b, SNum *out) { return !__builtin_add_overflow(a, b, out); }
static bool num_mul(SNum a, SNum b, SNum *out) { return !__builtin_mul_overflow(a, b, out); }

/* Does v fit the integer type t? (No type: any 64-bit value.) */
bool sform_num_fits(SNum v, const Type *t)
{
    if (!t || !type_is_int(t))
        return v >= (SNum)INT64_MIN && v <= (SNum)UINT64_MAX;
    int bits = type_bits(t);
    if (type_is_signed(t)) {
        SNum lim = (SNum)1 << (bits - 1);
        return v >= -lim && v < lim;
    }
    return v >= 0 && v <= (((SNum)1 << bits) - 1);
}

/* --------------------------------------------------------------- forms */

SForm sform_any(void)
{
    SForm f;
    f.any = true;
    f.n = 0;
    f.k = 0;
    return f;
}

SForm sform_const(SNum k)
{
    SForm f;
    f.any = false;
    f.n = 0;
    f.k = k;
    return f;
}

SForm sform_key(const SKey *k)
{
    SForm f = sform_const(0);
    f.n = 1;
    f.t[0].c = 1;
    f.t[0].deg = 1;
    f.t[0].v[0] = k;
    return f;
}

bool sform_is_const(const SForm *f, SNum *k)
{
    if (f->any || f->n)
        return false;
    if (k)
        *k = f->k;
    return true;
}

/* Monomials in one order (degree, then the keys' addresses), so equal
 * forms have equal term lists. */
static int mono_cmp(const STerm *a, const STerm *b)
{
    if (a->deg != b->deg)
        return a->deg < b->deg ? -1 : 1;
    for (int i = 0; i < a->deg; i++)
        if (a->v[i] != b->v[i])
            return (uintptr_t)a->v[i] < (uintptr_t)b->v[i] ? -1 : 1;
    return 0;
}

/* Adds c times the monomial of t into f. */
static bool add_term(SForm *f, const STerm *t, SNum c)
{
    int i = 0;
    while (i < f->n && mono_cmp(&f->t[i], t) < 0)
        i++;
    if (i < f->n && mono_cmp(&f->t[i], t) == 0) {
        if (!num_add(f->t[i].c, c, &f->t[i].c))
            return false;
        if (f->t[i].c == 0) {
            memmove(&f->t[i], &f->t[i + 1], sizeof *f->t * (size_t)(f->n - i - 1));
            f->n--;
        }
        return true;
    }
    if (c == 0)
        return true;
    if (f->n == SYM_TERMS)
        return false;
    memmove(&f->t[i + 1], &f->t[i], sizeof *f->t * (size_t)(f->n - i));
    f->t[i] = *t;
    f->t[i].c = c;
    f->n++;
    return true;
}

/* A form's header and its used terms only (a form is mostly empty slots). */
static void form_set(SForm *dst, const SForm *src)
{
    dst->any = src->any;
    dst->n = src->n;
    dst->k = src->k;
    memcpy(dst->t, src->t, sizeof *src->t * (size_t)src->n);
}

static bool fail(SForm *out)
{
    *out = sform_any();
    return false;
}

bool sform_add(SForm *out, const SForm *a, const SForm *b, int sign)
{
    if (a->any || b->any)
        return fail(out);
    SForm r;
    form_set(&r, a);
    SNum k;
    if (!num_mul(b->k, sign, &k) || !num_add(r.k, k, &r.k))
        return fail(out);
    for (int i = 0; i < b->n; i++) {
        SNum c;
        if (!num_mul(b->t[i].c, sign, &c) || !add_term(&r, &b->t[i], c))
            return fail(out);
    }
    form_set(out, &r);
    return true;
}

bool sform_scale(SForm *out, const SForm *a, SNum c)
{
    SForm k = sform_const(c);
    return sform_mul(out, a, &k);
}

/* The product of two monomials, keys merged in address order. */
static bool mono_mul(const STerm *a, const STerm *b, STerm *out)
{
    if (a->deg + b->deg > SYM_DEG)
        return false;
    int i = 0, j = 0;
    out->deg = 0;
    while (i < a->deg || j < b->deg) {
        bool from_a = j == b->deg || (i < a->deg && (uintptr_t)a->v[i] <= (uintptr_t)b->v[j]);
        out->v[out->deg++] = from_a ? a->v[i++] : b->v[j++];
    }
    return num_mul(a->c, b->c, &out->c);
}

bool sform_mul(SForm *out, const SForm *a, const SForm *b)
{
    if (a->any || b->any)
        return fail(out);
    SForm r = sform_const(0);
    if (!num_mul(a->k, b->k, &r.k))
        return fail(out);
    for (int side = 0; side < 2; side++) {            /* constant times terms */
        const SForm *c = side ? a : b, *ts = side ? b : a;
        for (int i = 0; c->k && i < ts->n; i++) {
            SNum v;
            if (!num_mul(ts->t[i].c, c->k, &v) || !add_term(&r, &ts->t[i], v))
                return fail(out);
        }
    }
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++) {
            STerm t;
            if (!mono_mul(&a->t[i], &b->t[j], &t) || !add_term(&r, &t, t.c))
                return fail(out);
        }
    form_set(out, &r);
    return true;
}

bool sform_equal(const SForm *a, const SForm *b)
{
    if (a->any || b->any || a->k != b->k || a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++)
        if (a->t[i].c != b->t[i].c || mono_cmp(&a->t[i], &b->t[i]))
            return false;
    return true;
}

static int key_degree(const STerm *t, const SKey *k)
{
    int d = 0;
    for (int i = 0; i < t->deg; i++)
        d += t->v[i] == k;
    return d;
}

bool sform_has(const SForm *f, const SKey *k)
{
    for (int i = 0; !f->any && i < f->n; i++)
        if (key_degree(&f->t[i], k))
            return true;
    return false;
}

bool sform_split(const SForm *f, const SKey *k, SForm *coef, SForm *rest)
{
    if (f->any)
        return false;
    SForm c = sform_const(0), r = sform_const(f->k);
    for (int i = 0; i < f->n; i++) {
        const STerm *t = &f->t[i];
        int d = key_degree(t, k);
        if (d > 1)
            return false;
        if (!d) {
            if (!add_term(&r, t, t->c))
                return false;
            continue;
        }
        STerm q = {.c = t->c, .deg = 0};
        for (int j = 0; j < t->deg; j++)
            if (t->v[j] != k)
                q.v[q.deg++] = t->v[j];
        if (q.deg == 0) {
            if (!num_add(c.k, t->c, &c.k))
                return false;
        } else if (!add_term(&c, &q, q.c)) {
            return false;
        }
    }
    *coef = c;
    *rest = r;
    return true;
}

bool sform_subst(SForm *out, const SForm *f, const SKey *k, const SForm *g)
{
    SForm c, r, p;
    if (!sform_split(f, k, &c, &r))
        return fail(out);
    if (!sform_mul(&p, &c, g))
        return fail(out);
    return sform_add(out, &r, &p, 1);
}

static const char *num_str(Arena *a, SNum v)
{
    char buf[48], *p = buf + sizeof buf - 1;
    *p = 0;
    bool neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    do {
        *--p = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (neg)
        *--p = '-';
    return arena_strdup(a, p);
}

static const char *atom_str(Arena *a, const SKey *k);

static const char *key_str(Arena *a, const SKey *k)
{
    if (k->name)
        return k->name;
    return k->kind == SK_ATOM ? atom_str(a, k) : arena_printf(a, "#%d", k->id);
}

/* An atom's name, made when it is printed (most never are). */
static const char *atom_str(Arena *a, const SKey *k)
{
    static const char *const names[] = {[T_SLASH] = "/", [T_PERCENT] = "%", [T_AMP] = "&", [T_PIPE] = "|",
                                        [T_CARET] = "^", [T_LT] = "min", [T_GT] = "max", [T_LBRACK] = "shl",
                                        [T_RBRACK] = "shr"};
    const char *op = (size_t)k->op < sizeof names / sizeof *names && names[k->op] ? names[k->op] : "?";
    if (!k->b)
        return arena_printf(a, "%s[%s]", k->sym && k->sym->id ? k->sym->id : "?", sform_str(a, k->a));
    if (k->op == T_LT || k->op == T_GT || k->op == T_LBRACK || k->op == T_RBRACK)
        return arena_printf(a, "%s(%s, %s)", op, sform_str(a, k->a), sform_str(a, k->b));
    return arena_printf(a, "(%s %s %s)", sform_str(a, k->a), op, sform_str(a, k->b));
}

const char *sform_str(Arena *a, const SForm *f)
{
    if (f->any)
        return "any";
    /* terms in the order their keys were made: the same on every run */
    int order[SYM_TERMS];
    for (int i = 0; i < f->n; i++)
        order[i] = i;
    for (int i = 1; i < f->n; i++)
        for (int j = i; j > 0 && f->t[order[j]].v[0]->id < f->t[order[j - 1]].v[0]->id; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    const char *s = "";
    for (int i = 0; i < f->n; i++) {
        const STerm *t = &f->t[order[i]];
        SNum c = t->c < 0 ? -t->c : t->c;
        const char *m = c == 1 ? "" : arena_printf(a, "%s * ", num_str(a, c));
        const SKey *ks[SYM_DEG];   /* a product's keys in creation order too */
        for (int j = 0; j < t->deg; j++) {
            int p = j;
            for (; p > 0 && ks[p - 1]->id > t->v[j]->id; p--)
                ks[p] = ks[p - 1];
            ks[p] = t->v[j];
        }
        for (int j = 0; j < t->deg; j++)
            m = arena_printf(a, "%s%s%s", m, j ? " * " : "", key_str(a, ks[j]));
        s = *s ? arena_printf(a, "%s %s %s", s, t->c < 0 ? "-" : "+", m) : arena_printf(a, "%s%s", t->c < 0 ? "-" : "", m);
    }
    if (!*s)
        return num_str(a, f->k);
    if (f->k)
        s = arena_printf(a, "%s %s %s", s, f->k < 0 ? "-" : "+", num_str(a, f->k < 0 ? -f->k : f->k));
    return s;
}

/* --------------------------------------------------------------- ranges */

static bool key_range(const SKey *k, SNum *lo, SNum *hi, bool want_lo)
{
    if (k->kind == SK_COUNTER || k->kind == SK_LANE) {
        if (want_lo)
            return k->lo && sform_lower(k->lo, lo);
        SNum h;
        if (!k->hi || !sform_upper(k->hi, &h))
            return false;
        *hi = h - 1;
        return true;
    }
    if (want_lo) {
        if (k->has_lo)
            *lo = k->rlo;
        return k->has_lo;
    }
    if (k->has_hi)
        *hi = k->rhi;
    return k->has_hi;
}

/* The interval of one monomial; false when unbounded on the side asked. */
static bool term_bounds(const STerm *t, SNum *lo, SNum *hi)
{
    SNum l = t->c, h = t->c;
    for (int i = 0; i < t->deg; i++) {
        SNum kl, kh;
        if (!key_range(t->v[i], &kl, &kh, true) || !key_range(t->v[i], &kl, &kh, false))
            return false;
        SNum c[4];
        if (!num_mul(l, kl, &c[0]) || !num_mul(l, kh, &c[1]) || !num_mul(h, kl, &c[2]) || !num_mul(h, kh, &c[3]))
            return false;
        l = h = c[0];
        for (int j = 1; j < 4; j++) {
            l = c[j] < l ? c[j] : l;
            h = c[j] > h ? c[j] : h;
        }
    }
    *lo = l;
    *hi = h;
    return true;
}

/* One side only needs the keys bounded on that side when every key is
 * non-negative (the common case: sizes, lanes, counters from 0). */
static bool term_side(const STerm *t, bool low, SNum *out)
{
    SNum lo, hi;
    if (term_bounds(t, &lo, &hi)) {
        *out = low ? lo : hi;
        return true;
    }
    bool all_nonneg = true;
    SNum prod_lo = 1;
    for (int i = 0; i < t->deg && all_nonneg; i++) {
        SNum kl;
        all_nonneg = key_range(t->v[i], &kl, &kl, true) && kl >= 0 && num_mul(prod_lo, kl, &prod_lo);
    }
    if (!all_nonneg)
        return false;
    /* keys >= their lows, unbounded above: the term is >= c * prod_lo when
     * c > 0 (bounded below only), <= c * prod_lo when c < 0 */
    if ((t->c > 0) != low)
        return false;
    return num_mul(t->c, prod_lo, out);
}

static bool form_side(const SForm *f, bool low, SNum *out)
{
    if (f->any)
        return false;
    SNum s = f->k;
    for (int i = 0; i < f->n; i++) {
        SNum v;
        if (!term_side(&f->t[i], low, &v) || !num_add(s, v, &s))
            return false;
    }
    *out = s;
    return true;
}

bool sform_lower(const SForm *f, SNum *lo) { return form_side(f, true, lo); }
bool sform_upper(const SForm *f, SNum *hi) { return form_side(f, false, hi); }

bool sform_nonneg(const SForm *f)
{
    SNum lo;
    return sform_lower(f, &lo) && lo >= 0;
}

/* ----------------------------------------------------------- evaluation */

bool sform_atom_apply(TokKind op, SNum a, SNum b, SNum *out)
{
    switch (op) {
    case T_SLASH: if (b == 0) return false; *out = a / b; return true;
    case T_PERCENT: if (b == 0) return false; *out = a % b; return true;
    case T_AMP: *out = a & b; return true;
    case T_PIPE: *out = a | b; return true;
    case T_CARET: *out = a ^ b; return true;
    case T_LT: *out = a < b ? a : b; return true;     /* min */
    case T_GT: *out = a > b ? a : b; return true;     /* max */
    case T_LBRACK:                                    /* shl, without losing bits */
        if (a < 0 || b < 0 || b >= 64 || (a >> (64 - b)) != 0)
            return false;
        *out = a << b;
        return true;
    case T_RBRACK:                                    /* shr (arithmetic) */
        if (b < 0 || b >= 64)
            return false;
        *out = a >> b;
        return true;
    default: return false;
    }
}

static bool key_eval(const SKey *k, const SAssign *as, SNum *out, int depth)
{
    for (int i = 0; as && i < as->n; i++)
        if (as->keys[i] == k) {
            *out = as->vals[i];
            return true;
        }
    if (k->kind != SK_ATOM || !k->a || !k->b || depth > 16)
        return false;
    SNum a, b;
    return sform_eval(k->a, as, &a) && sform_eval(k->b, as, &b) && sform_atom_apply(k->op, a, b, out);
}

bool sform_eval(const SForm *f, const SAssign *as, SNum *out)
{
    if (f->any)
        return false;
    SNum s = f->k;
    for (int i = 0; i < f->n; i++) {
        SNum t = f->t[i].c, v;
        for (int j = 0; j < f->t[i].deg; j++)
            if (!key_eval(f->t[i].v[j], as, &v, 0) || !num_mul(t, v, &t))
                return false;
        if (!num_add(s, t, &s))
            return false;
    }
    *out = s;
    return true;
}

