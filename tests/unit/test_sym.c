/*
 * test_sym.c: the symbolic core (src/sym.c), driven directly.
 *
 * - forms: the algebra against plain 128-bit arithmetic on random forms and
 *   random values of their unknowns (the oracle), overflow to any, split,
 *   substitution, equality, printing;
 * - ranges: bounds of forms from their unknowns' ranges, against every value
 *   of small ranges;
 * - evaluation of checked programs: constants (every intermediate within its
 *   type), lets, `let mut` through assignments and both paths of an if, loop
 *   counters (a range, or a constant per iteration: shr(128, k)), atoms made
 *   once, view lengths;
 * - uniformity: a lane's index, what it computes, && and ||, a join under a
 *   lane-dependent condition, atomics, locals lent rw;
 * - while loops (senv_while_counter): a local stepped by a stride the same in
 *   every iteration is start + stride * j, j's range from the condition;
 *   steps that change, a continue, a second assignment are not followed;
 *   fixed elements read opaque are uniform unknowns, two reads not one.
 * Prints `N passed, N failed, 0 skipped`.
 */
#include "cairn.h"
#include "sym.h"

#include <stdlib.h>
#include <string.h>

#include "expect.h"

#define CHECK EXPECT

/* ------------------------------------------------------------ forms */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;
static unsigned long long rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

enum { NKEYS = 3 };

/* One check of many random ones: counted, the first failures printed. */
#define TRY(cond, ...)                                                        \
    do {                                                                      \
        if (!(cond) && bad++ < 5) {                                           \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                       \
            printf(__VA_ARGS__);                                              \
            printf("\n");                                                    \
        }                                                                     \
    } while (0)

/* A random form over keys ks, and its value at vals. */
static SForm random_form(const SKey **ks, int depth)
{
    int pick = (int)(rnd() % 5);
    if (depth > 2 || pick == 0)
        return sform_const((SNum)(int)(rnd() % 21) - 10);
    if (pick == 1)
        return sform_key(ks[rnd() % NKEYS]);
    SForm a = random_form(ks, depth + 1), b = random_form(ks, depth + 1), r;
    if (pick == 2)
        sform_add(&r, &a, &b, 1);
    else if (pick == 3)
        sform_add(&r, &a, &b, -1);
    else
        sform_mul(&r, &a, &b);
    return r;
}

static void test_algebra(Arena *a)
{
    SEnv *e = senv_new(a, SN_FIXED);
    int bad = 0;
    Sym syms[NKEYS];
    const SKey *ks[NKEYS];
    for (int i = 0; i < NKEYS; i++) {
        memset(&syms[i], 0, sizeof syms[i]);
        syms[i].kind = SYM_PARAM;
        syms[i].id = (const char *[]){"p", "q", "r"}[i];
        syms[i].ty = type_prim(TY_I64);
        ks[i] = senv_key(e, &syms[i]);
    }
    CHECK(senv_key(e, &syms[0]) == ks[0], "one key per symbol");
    SNum vals[NKEYS];
    SAssign as = {ks, vals, NKEYS};
    int ops = 0, anys = 0;
    for (int trial = 0; trial < 20000; trial++) {
        for (int i = 0; i < NKEYS; i++)
            vals[i] = (SNum)(int)(rnd() % 41) - 20;
        SForm x = random_form(ks, 0), y = random_form(ks, 0), s, d, p;
        SNum vx, vy, v;
        if (!sform_eval(&x, &as, &vx) || !sform_eval(&y, &as, &vy)) {
            anys++;
            continue;
        }
        ops++;
        if (sform_add(&s, &x, &y, 1))
            TRY(sform_eval(&s, &as, &v) && v == vx + vy, "x + y");
        if (sform_add(&d, &x, &y, -1))
            TRY(sform_eval(&d, &as, &v) && v == vx - vy, "x - y");
        if (sform_mul(&p, &x, &y))
            TRY(sform_eval(&p, &as, &v) && v == vx * vy, "x * y");
        else
            TRY(p.any, "a product past the degree limit is any");
        SForm z;
        sform_add(&z, &x, &x, -1);
        TRY(sform_is_const(&z, &v) && v == 0, "x - x is 0");
        for (int k = 0; k < NKEYS; k++) {
            SForm c, r, back, t;
            if (!sform_split(&x, ks[k], &c, &r))
                continue;
            TRY(!sform_has(&c, ks[k]), "split: k left in its coefficient");
            SForm kk = sform_key(ks[k]);
            sform_mul(&t, &c, &kk);
            if (sform_add(&back, &t, &r, 1))
                TRY(sform_equal(&back, &x), "coef * k + rest is x");
            SForm g = sform_const(7), sub;
            if (sform_subst(&sub, &x, ks[k], &g)) {
                SNum saved = vals[k];
                vals[k] = 7;
                SNum w;
                TRY(sform_eval(&sub, &as, &w) && sform_eval(&x, &as, &v) && w == v, "subst k := 7");
                vals[k] = saved;
            }
        }
    }
    CHECK(bad == 0, "%d random algebra checks failed", bad);
    CHECK(ops > 10000, "random forms evaluated: %d (any: %d)", ops, anys);
    /* coefficients past 128 bits: any, never wrapped */
    SForm big = sform_const((SNum)1 << 100), r;
    CHECK(!sform_mul(&r, &big, &big) && r.any, "2^200 is any");
    SForm one = sform_const(1);
    CHECK(sform_add(&r, &big, &one, 1) && !r.any, "2^100 + 1 is exact");
    /* printing in key order */
    SForm f = sform_key(ks[1]), g = sform_key(ks[0]), h;
    sform_scale(&g, &g, 3);
    sform_add(&h, &f, &g, 1);
    SForm m4 = sform_const(-4);
    sform_add(&h, &h, &m4, 1);
    CHECK(!strcmp(sform_str(a, &h), "3 * p + q - 4"), "printed: %s", sform_str(a, &h));
    SForm any = sform_any();
    CHECK(!strcmp(sform_str(a, &any), "any"), "any printed");
    CHECK(!sform_equal(&any, &any), "any equals nothing, not even any");
}

static void test_ranges(Arena *a)
{
    SEnv *e = senv_new(a, SN_FIXED);
    Sym n = {.kind = SYM_PARAM, .id = "n", .ty = type_prim(TY_USIZE)};
    Sym k = {.kind = SYM_LOCAL, .id = "k", .ty = type_prim(TY_USIZE)};
    SKey *kn = senv_key(e, &n);
    SVal lo = {sform_const(2), true}, hi = {sform_const(6), true};
    SKey *kk = senv_counter(e, &k, &lo, &hi);
    SForm fk = sform_key(kk), fn = sform_key(kn), t, three = sform_const(3);
    SNum l, h;
    int bad = 0;
    sform_scale(&t, &fk, -3);
    sform_add(&t, &t, &three, 1);   /* 3 - 3k, k in [2, 6) */
    CHECK(sform_lower(&t, &l) && l == -12 && sform_upper(&t, &h) && h == -3, "3 - 3k over k in 2..6");
    CHECK(sform_lower(&fn, &l) && l == 0, "usize >= 0");
    SForm p;
    sform_mul(&p, &fn, &fk);        /* n * k >= 0 */
    CHECK(sform_nonneg(&p), "n * k >= 0");
    sform_add(&p, &p, &fn, -1);     /* n * k - n: k >= 2, so >= n >= 0, but intervals cannot see it */
    CHECK(!sform_nonneg(&p), "n*k - n is not proved by intervals (sound: not claimed)");
    /* every value of a small range lies within the bounds */
    for (int trial = 0; trial < 200; trial++) {
        SForm f = sform_const((SNum)(int)(rnd() % 9) - 4), kt;
        sform_scale(&kt, &fk, (SNum)(int)(rnd() % 9) - 4);
        sform_add(&f, &f, &kt, 1);
        SForm kk2;
        sform_mul(&kk2, &fk, &fk);
        sform_scale(&kk2, &kk2, (SNum)(int)(rnd() % 5) - 2);
        sform_add(&f, &f, &kk2, 1);
        bool ok = sform_lower(&f, &l) && sform_upper(&f, &h);
        for (SNum v = 2; ok && v < 6; v++) {
            const SKey *keys[] = {kk};
            SNum vals[] = {v}, x;
            SAssign as = {keys, vals, 1};
            ok = sform_eval(&f, &as, &x) && x >= l && x <= h;
        }
        if (!ok)
            bad++;
    }
    CHECK(bad == 0, "bounds fail over the range in %d of 200 trials", bad);
}

/* ------------------------------------------------------------ programs */

typedef struct {
    Arena *a;
    Sink sink;
    Source src;
    Check c;
} Prog;

static bool load(Prog *p, const char *text)
{
    memset(p, 0, sizeof *p);
    p->a = arena_new();
    sink_init(&p->sink, stdout, false);
    p->src.name = "test.cairn";
    p->src.text = text;
    p->src.len = strlen(text);
    p->c.arena = p->a;
    p->c.sink = &p->sink;
    p->c.program = parse_source(p->a, &p->sink, &p->src);
    return p->sink.errors == 0 && check_program(&p->c);
}

static Node *fn_named(Prog *p, const char *id)
{
    for (int i = 0; i < p->c.program->block.stmts.n; i++) {
        Node *d = p->c.program->block.stmts.v[i];
        if (d->kind == N_FN && d->fn.id && !strcmp(d->fn.id, id))
            return d;
    }
    return NULL;
}

static Node *let_named(Node *block, const char *id)
{
    for (int i = 0; block && i < block->block.stmts.n; i++) {
        Node *s = block->block.stmts.v[i];
        if (s->kind == N_LET && !strcmp(s->let.id, id))
            return s;
    }
    return NULL;
}

static void test_constants(void)
{
    Prog p;
    const char *text = "const K:usize = 6;\n"
                       "fn f() -> i32 {\n"
                       "  let a:usize = (K * 7 - 2) / 4 % 7;\n"
                       "  let b:u8 = u8(200) + u8(100) - u8(100);\n"
                       "  let c:i32 = min(3, 9) + max(2, 5) + shr(128, 3);\n"
                       "  let d:i64 = -9223372036854775807 - 1;\n"
                       "  return 0;\n"
                       "}\n";
    CHECK(load(&p, text), "constants program checks");
    Node *body = fn_named(&p, "f")->fn.body;
    int64_t v;
    CHECK(sym_const(p.a, let_named(body, "a")->let.init, &v) && v == (6 * 7 - 2) / 4 % 7, "a = %lld", (long long)v);
    CHECK(!sym_const(p.a, let_named(body, "b")->let.init, &v), "200u8 + 100u8 overflows u8: no constant");
    CHECK(sym_const(p.a, let_named(body, "c")->let.init, &v) && v == 3 + 5 + 16, "c = %lld", (long long)v);
    CHECK(sym_const(p.a, let_named(body, "d")->let.init, &v) && v == INT64_MIN, "d = i64 min");
    arena_free(p.a);
}

static void test_environment(void)
{
    Prog p;
    const char *text = "fn f(n:usize, c:bool) {\n"
                       "  let mut s:usize = 3;\n"
                       "  s = s + n;\n"
                       "  s += 2 * n;\n"
                       "  let t = s;\n"
                       "  let mut u:usize = 1;\n"
                       "  if c { u = 4; } else { u = 4; }\n"
                       "  let same = u;\n"
                       "  if c { u = 5; }\n"
                       "  let differ = u;\n"
                       "  let h1 = n / 2;\n"
                       "  let h2 = n / 2 + 1;\n"
                       "  let mut acc:usize = 0;\n"
                       "  for k in 0..n { acc = acc + k; }\n"
                       "  let after_loop = acc;\n"
                       "}\n"
                       "fn g(x:rw<usize>[8]) { for k in 0..3 { let s:usize = shr(128, k); x[k] = s; } }\n";
    CHECK(load(&p, text), "environment program checks");
    Node *f = fn_named(&p, "f");
    SEnv *e = senv_new(p.a, SN_FIXED);
    sym_exec(e, f->fn.body);
    SVal v;
    Node *body = f->fn.body;
    senv_lookup(e, let_named(body, "t")->let.sym, &v);
    CHECK(!strcmp(sform_str(p.a, &v.f), "3 * n + 3") && v.uniform, "t = %s", sform_str(p.a, &v.f));
    senv_lookup(e, let_named(body, "same")->let.sym, &v);
    SNum k;
    CHECK(sform_is_const(&v.f, &k) && k == 4, "both paths assign 4: %s", sform_str(p.a, &v.f));
    senv_lookup(e, let_named(body, "differ")->let.sym, &v);
    CHECK(v.f.any && v.uniform, "one path assigns 5: any, uniform (c is): %s", sform_str(p.a, &v.f));
    SVal h1, h2;
    senv_lookup(e, let_named(body, "h1")->let.sym, &h1);
    senv_lookup(e, let_named(body, "h2")->let.sym, &h2);
    SForm diff;
    sform_add(&diff, &h2.f, &h1.f, -1);
    CHECK(sform_is_const(&diff, &k) && k == 1, "n / 2 is one atom: h2 - h1 = %s", sform_str(p.a, &diff));
    senv_lookup(e, let_named(body, "after_loop")->let.sym, &v);
    CHECK(v.f.any, "a sum over a run-time loop is any after it");

    /* per iteration: the counter a constant, shr(128, k) known */
    Node *g = fn_named(&p, "g");
    Node *loop = g->fn.body->block.stmts.v[0];
    SEnv *e2 = senv_new(p.a, SN_FIXED);
    SNum lo, count;
    CHECK(sym_trip(e2, loop, &lo, &count) && lo == 0 && count == 3, "trip 0..3");
    for (SNum it = 0; it < 3; it++) {
        senv_bind(e2, loop->loop.sym, (SVal){sform_const(it), true});
        Node *let = loop->loop.body->block.stmts.v[0];
        sym_let(e2, let);
        senv_lookup(e2, let->let.sym, &v);
        CHECK(sform_is_const(&v.f, &k) && k == (128 >> it), "iteration %d: s = %s", (int)it, sform_str(p.a, &v.f));
    }
    /* as one walk: the counter an unknown in its range */
    SEnv *e3 = senv_new(p.a, SN_FIXED);
    sym_exec(e3, g->fn.body);
    SVal kv;
    CHECK(senv_lookup(e3, loop->loop.sym, &kv) && kv.f.n == 1, "counter bound to its key");
    SNum l, h;
    CHECK(sform_lower(&kv.f, &l) && l == 0 && sform_upper(&kv.f, &h) && h == 2, "k in [0, 2]");
    arena_free(p.a);
}

static void test_uniformity(void)
{
    Prog p;
    const char *text = "fn f(n:usize, y:rw<usize>[n], z:rw<u32>[n]) {\n"
                       "  parallel i in n {\n"
                       "    let a = 2 * i + 1;\n"
                       "    let b = n + 1;\n"
                       "    let c1 = b > 3 && n > 2;\n"
                       "    let c2 = b > 3 || i > 2;\n"
                       "    let mut m:usize = 0;\n"
                       "    if i > 2 { m = 1; }\n"
                       "    let lm = m;\n"
                       "    let mut w:usize = 7;\n"
                       "    if n > 2 { w = 1; } else { w = 2; }\n"
                       "    let lw = w;\n"
                       "    let at = atomic_add_wrap(z[0], u32(1));\n"
                       "    y[i] = a + b + lm + lw;\n"
                       "  }\n"
                       "}\n";
    CHECK(load(&p, text), "uniformity program checks");
    Node *region = fn_named(&p, "f")->fn.body->block.stmts.v[0];
    SEnv *e = senv_new(p.a, SN_FIXED);
    SVal ext = sym_eval(e, region->loop.hi);
    senv_lane(e, region->loop.sym, &ext.f);
    sym_exec(e, region->loop.body);
    Node *body = region->loop.body;
    struct {
        const char *id;
        bool uniform;
    } want[] = {{"a", false}, {"b", true}, {"c1", true}, {"c2", false}, {"lm", false}, {"lw", true}, {"at", false}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        SVal v;
        bool found = senv_lookup(e, let_named(body, want[i].id)->let.sym, &v);
        CHECK(found && v.uniform == want[i].uniform, "%s is %suniform", want[i].id, want[i].uniform ? "" : "not ");
    }
    SVal a = {sform_any(), false};
    senv_lookup(e, let_named(body, "a")->let.sym, &a);
    CHECK(!strcmp(sform_str(p.a, &a.f), "2 * i + 1"), "a = %s", sform_str(p.a, &a.f));
    SVal w = {sform_const(0), false};
    senv_lookup(e, let_named(body, "lw")->let.sym, &w);
    CHECK(w.f.any, "w differs between the paths: any");
    arena_free(p.a);
}

static bool fixed_always(void *ctx, Node *elem)
{
    (void)ctx;
    (void)elem;
    return true;
}

/* The while loop of body statement `at`, walked once with its strides
 * followed: the local `id` in the body (the value it has where the body
 * starts) as text, and j's range. */
static const char *while_form(Prog *p, Node *body, int at, const char *id, SNum *hi)
{
    SEnv *e = senv_new(p->a, SN_FIXED);
    Node *loop = NULL;
    for (int i = 0; i < body->block.stmts.n; i++) {
        Node *s = body->block.stmts.v[i];
        if (i == at) {
            loop = s;
            break;
        }
        sym_exec(e, s);
    }
    SKey *j = loop && loop->kind == N_WHILE ? senv_while_counter(e, loop) : NULL;
    *hi = -1;
    if (j && j->hi)
        sform_is_const(j->hi, hi);
    for (int i = 0; i < body->block.stmts.n; i++) {
        Node *s = body->block.stmts.v[i];
        if (s->kind == N_LET && !strcmp(s->let.id, id)) {
            SVal v;
            senv_lookup(e, s->let.sym, &v);
            return sform_str(p->a, &v.f);
        }
    }
    return "?";
}

static void test_while(void)
{
    Prog p;
    const char *text = "fn a(n:usize, g:usize, t:usize) {\n"
                       "  let mut i = t;\n"
                       "  while i < 300 { i += 64; }\n"
                       "}\n"
                       "fn b(n:usize, g:usize, t:usize) {\n"
                       "  let mut i = g * 4 + t;\n"
                       "  while i < n { i = i + g * 256; }\n"
                       "}\n"
                       "fn c(n:usize, t:usize) {\n"
                       "  let mut i = t;\n"
                       "  let mut s:usize = 1;\n"
                       "  while i < n { s = s * 2; i += s; }\n"
                       "}\n"
                       "fn d(n:usize, t:usize) {\n"
                       "  let mut i = t;\n"
                       "  while i < n { if n > 3 { i += 1; continue; } i += 2; }\n"
                       "}\n"
                       "fn e(x:ro<usize>[4]) {\n"
                       "  let mut k:usize = 0;\n"
                       "  while k <= 9 { k += 3; }\n"
                       "  let p = x[0];\n"
                       "  let q = x[0];\n"
                       "}\n";
    CHECK(load(&p, text), "while program checks");
    SNum hi;
    const char *f = while_form(&p, fn_named(&p, "a")->fn.body, 1, "i", &hi);
    CHECK(!strcmp(f, "t + 64 * steps(i)") && hi == 5, "i = %s, j < %lld (t >= 0: 64 j < 300)", f, (long long)hi);
    f = while_form(&p, fn_named(&p, "b")->fn.body, 1, "i", &hi);
    CHECK(!strcmp(f, "4 * g + 256 * g * steps(i) + t") && hi == -1, "i = %s, j's range open (n)", f);
    f = while_form(&p, fn_named(&p, "c")->fn.body, 2, "i", &hi);
    CHECK(!strcmp(f, "any"), "a step that changes is not followed: i = %s", f);
    f = while_form(&p, fn_named(&p, "d")->fn.body, 1, "i", &hi);
    CHECK(!strcmp(f, "any"), "two assignments and a continue: i = %s", f);
    f = while_form(&p, fn_named(&p, "e")->fn.body, 1, "k", &hi);
    CHECK(!strcmp(f, "3 * steps(k)") && hi == 4, "k = %s, j < %lld (3 j <= 9)", f, (long long)hi);

    /* reads of a fixed element: one unknown per element, or (opaque) two uniform unknowns */
    Node *eb = fn_named(&p, "e")->fn.body;
    SEnv *e1 = senv_new(p.a, SN_FIXED), *e2 = senv_new(p.a, SN_FIXED);
    senv_hook(e1, fixed_always, NULL);
    senv_hook(e2, fixed_always, NULL);
    senv_elems_opaque(e2);
    for (int i = 2; i < 4; i++) {
        sym_exec(e1, eb->block.stmts.v[i]);
        sym_exec(e2, eb->block.stmts.v[i]);
    }
    SVal p1, q1, p2, q2;
    senv_lookup(e1, let_named(eb, "p")->let.sym, &p1);
    senv_lookup(e1, let_named(eb, "q")->let.sym, &q1);
    senv_lookup(e2, let_named(eb, "p")->let.sym, &p2);
    senv_lookup(e2, let_named(eb, "q")->let.sym, &q2);
    CHECK(sform_equal(&p1.f, &q1.f), "x[0] read twice is one unknown");
    CHECK(p2.f.any && q2.f.any && p2.uniform && q2.uniform, "opaque: two uniform unknowns");
    arena_free(p.a);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    Arena *a = arena_new();
    test_algebra(a);
    test_ranges(a);
    arena_free(a);
    test_constants();
    test_environment();
    test_uniformity();
    test_while();
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
