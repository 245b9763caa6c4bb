/*
 * gen_sequential.c: writes a large CAIRN program of sequential code, to time
 * `cairn check` (bench/check_speed.sh).
 *
 *   gen_sequential LINES [SEED] [chains] > big.cairn
 *
 * With `chains`, each function also holds a long operator chain, one term a
 * line (a sum of 10 to 2,000 u64 terms: locals, elements, conversions and
 * literals), the shape generated code has and hand-written code does not:
 * about half the program's lines are then chain links.
 *
 * The program is a chain of functions of one shape,
 *   fn f_K(n:usize, x:ro<f64>[n], y:rw<u64>[n], a:f64, b:u64, c:i32) -> f64
 * whose bodies are random but well typed: let / let mut of i32 i64 u32 u64
 * usize f32 f64, arithmetic, comparisons, if/else, for and while loops,
 * conversions (u64(x), f64(i)), min/max/add_wrap, element reads of x and
 * writes of y, and calls to earlier f_K and to small expression-bodied
 * helpers h_K(p:i64, q:u32) -> i64. It stays inside the base language
 * (notes/SYNTAX.md, spec/SURFACE.md): no parallel regions, no device code, no
 * storage floats, so the checker must accept it whole.
 *
 * Why it is built this way: the checker's rules on literals (a literal takes
 * its context's type) are the part most likely to differ between readings,
 * so every operator and built-in gets a typed (non-literal) left operand,
 * and a literal only ever appears where the other operand fixes its type.
 * The generator is deterministic for a seed, so timings compare.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { I32, I64, U32, U64, USIZE, F32, F64, NTYPES } Ty;
static const char *const ty_name[NTYPES] = {"i32", "i64", "u32", "u64", "usize", "f32", "f64"};

static bool ty_signed(Ty t) { return t == I32 || t == I64; }
static bool ty_float(Ty t) { return t == F32 || t == F64; }

typedef struct {
    char name[24];
    Ty ty;
    bool mut;
} Var;

enum { MAX_VARS = 256, MAX_DEPTH = 3 };

/* One function being written: its variables in scope (a stack; a block pops
 * what it pushed), the loop binders in scope (usize, index x and y), and the
 * output line count. */
typedef struct {
    uint64_t rng;
    Var vars[MAX_VARS];
    int nvars;
    int binders;          /* loop binders in scope: i0 .. i{binders-1} */
    int fresh;            /* suffix for the next local's name */
    int depth;            /* block nesting, for indentation and limits */
    long lines;
    int fn;               /* index of the function being written */
    int helpers;          /* helpers h_0 .. h_{helpers-1} exist */
    bool chains;          /* each function holds a long chain (see the top) */
} Gen;

static uint64_t next(Gen *g)
{
    /* xorshift64*: fast, and the same stream on every machine */
    g->rng ^= g->rng >> 12;
    g->rng ^= g->rng << 25;
    g->rng ^= g->rng >> 27;
    return g->rng * 0x2545F4914F6CDD1DULL;
}

static int pick(Gen *g, int n) { return (int)(next(g) % (uint64_t)n); }

static void line(Gen *g, const char *fmt, ...)
{
    for (int i = 0; i < g->depth + 1; i++)
        fputs("  ", stdout);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    g->lines++;
}

/* ------------------------------------------------------------ expressions */

typedef struct {
    char s[1024];
    int n;
} Buf;

static void put(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int room = (int)sizeof b->s - b->n;
    int w = vsnprintf(b->s + b->n, (size_t)room, fmt, ap);
    va_end(ap);
    if (w >= room) {
        fprintf(stderr, "gen_sequential: expression too long\n");
        exit(2);
    }
    b->n += w;
}

/* A variable of type t, or NULL. */
static const Var *var_of(Gen *g, Ty t)
{
    int idx[MAX_VARS], k = 0;
    for (int i = 0; i < g->nvars; i++)
        if (g->vars[i].ty == t)
            idx[k++] = i;
    return k ? &g->vars[idx[pick(g, k)]] : NULL;
}

static void literal(Gen *g, Buf *b, Ty t)
{
    if (ty_float(t))
        put(b, "%d.%d", pick(g, 100), 1 + pick(g, 9));
    else
        put(b, "%d", 1 + pick(g, 60));
}

static void expr(Gen *g, Buf *b, Ty t, int depth);

/* An expression of type t that is never a bare literal: a variable, an
 * element, a conversion, or an operator over one. */
static void typed(Gen *g, Buf *b, Ty t, int depth)
{
    int choice = depth <= 0 ? pick(g, 3) : pick(g, 10);
    if (choice == 1 && g->binders > 0 && (t == F64 || t == U64)) {
        put(b, "%s[i%d]", t == F64 ? "x" : "y", pick(g, g->binders));
        return;
    }
    if (choice == 2 || choice >= 8) {   /* a conversion from another type */
        Ty from = (Ty)pick(g, NTYPES);
        const Var *v = var_of(g, from);
        if (v && from != t) {
            put(b, "%s(%s)", ty_name[t], v->name);
            return;
        }
    }
    if (choice >= 3 && choice < 8) {
        int form = pick(g, 8);
        if (form < 4) {               /* binary arithmetic */
            static const char *const iops[] = {"+", "-", "*", "%"};
            static const char *const fops[] = {"+", "-", "*", "/"};
            put(b, "(");
            typed(g, b, t, depth - 1);
            put(b, " %s ", ty_float(t) ? fops[form] : iops[form]);
            if (!ty_float(t) && form == 3)
                literal(g, b, t);     /* % by a literal: never by zero */
            else
                expr(g, b, t, depth - 1);
            put(b, ")");
            return;
        }
        if (form < 6) {               /* min / max */
            put(b, "%s(", form == 4 ? "min" : "max");
            typed(g, b, t, depth - 1);
            put(b, ", ");
            expr(g, b, t, depth - 1);
            put(b, ")");
            return;
        }
        if (form == 6 && !ty_float(t)) {
            put(b, "add_wrap(");
            typed(g, b, t, depth - 1);
            put(b, ", ");
            expr(g, b, t, depth - 1);
            put(b, ")");
            return;
        }
        if (form == 7 && t == I64 && g->helpers > 0) {
            put(b, "h_%d(", pick(g, g->helpers));
            typed(g, b, I64, depth - 1);
            put(b, ", ");
            expr(g, b, U32, depth - 1);
            put(b, ")");
            return;
        }
        if (ty_signed(t) || ty_float(t)) {
            put(b, "(-");
            typed(g, b, t, depth - 1);
            put(b, ")");
            return;
        }
    }
    const Var *v = var_of(g, t);
    if (v) {
        put(b, "%s", v->name);
        return;
    }
    /* no variable of t in scope: convert one of another type (c:i32 always is) */
    put(b, "%s(c)", ty_name[t]);
    if (t == I32) {
        b->n -= (int)strlen("i32(c)");
        b->s[b->n] = '\0';
        put(b, "c");
    }
}

/* Any expression of type t: a typed one, or a literal (which then takes t
 * from the operator or binding it sits in). */
static void expr(Gen *g, Buf *b, Ty t, int depth)
{
    if (pick(g, 4) == 0)
        literal(g, b, t);
    else
        typed(g, b, t, depth);
}

/* A bool: a comparison of two t, maybe joined by && or ||. */
static void cond(Gen *g, Buf *b, int depth)
{
    static const char *const cmps[] = {"<", ">", "<=", ">=", "==", "!="};
    Ty t = (Ty)pick(g, NTYPES);
    put(b, "(");
    typed(g, b, t, 1);
    put(b, " %s ", cmps[pick(g, 6)]);
    expr(g, b, t, 1);
    put(b, ")");
    if (depth > 0 && pick(g, 3) == 0) {
        put(b, pick(g, 2) ? " && " : " || ");
        cond(g, b, depth - 1);
    }
}

/* ------------------------------------------------------------- statements */

static Var *declare(Gen *g, Ty t, bool mut)
{
    if (g->nvars == MAX_VARS) {
        fprintf(stderr, "gen_sequential: too many variables\n");
        exit(2);
    }
    Var *v = &g->vars[g->nvars++];
    snprintf(v->name, sizeof v->name, "%c%d", ty_float(t) ? 'v' : 'k', g->fresh++);
    v->ty = t;
    v->mut = mut;
    return v;
}

static void stmt_let(Gen *g)
{
    Ty t = (Ty)pick(g, NTYPES);
    bool mut = pick(g, 2);
    Buf b = {.n = 0};
    expr(g, &b, t, 2);
    Var *v = declare(g, t, mut);
    line(g, "let %s%s:%s = %s;", mut ? "mut " : "", v->name, ty_name[t], b.s);
}

static void stmt_assign(Gen *g)
{
    int idx[MAX_VARS], k = 0;
    for (int i = 0; i < g->nvars; i++)
        if (g->vars[i].mut)
            idx[k++] = i;
    if (g->binders > 0 && (k == 0 || pick(g, 3) == 0)) {
        Buf b = {.n = 0};
        int i = pick(g, g->binders);
        expr(g, &b, U64, 2);
        if (pick(g, 2))
            line(g, "y[i%d] = add_wrap(y[i%d], %s);", i, i, b.s);
        else
            line(g, "y[i%d] += %s;", i, b.s);
        return;
    }
    if (k == 0) {
        stmt_let(g);
        return;
    }
    const Var *v = &g->vars[idx[pick(g, k)]];
    Buf b = {.n = 0};
    expr(g, &b, v->ty, 2);
    static const char *const ops[] = {"=", "+=", "-=", "*="};
    int op = pick(g, 4);
    if (op == 2 && !ty_signed(v->ty) && !ty_float(v->ty))
        op = 1;                      /* keep unsigned values from going below zero */
    line(g, "%s %s %s;", v->name, ops[op], b.s);
}

static void block(Gen *g, int stmts);

static void stmt_if(Gen *g)
{
    Buf b = {.n = 0};
    cond(g, &b, 1);
    line(g, "if %s {", b.s);
    block(g, 1 + pick(g, 3));
    if (pick(g, 2)) {
        line(g, "} else {");
        block(g, 1 + pick(g, 3));
    }
    line(g, "}");
}

static void stmt_for(Gen *g)
{
    int i = g->binders;
    if (pick(g, 2))
        line(g, "for i%d in 0..n {", i);
    else
        line(g, "for i%d in %d..n {", i, pick(g, 4));
    g->binders++;
    block(g, 2 + pick(g, 3));
    g->binders--;
    line(g, "}");
}

static void stmt_while(Gen *g)
{
    Var *k = declare(g, USIZE, true);
    line(g, "let mut %s:usize = 0;", k->name);
    line(g, "while %s < n && %s < %d {", k->name, k->name, 4 + pick(g, 60));
    k->mut = false;                  /* only the loop's own step moves it */
    block(g, 1 + pick(g, 3));
    g->depth++;
    line(g, "%s = %s + 1;", k->name, k->name);
    g->depth--;
    k->mut = true;
    line(g, "}");
}

static void stmt_call(Gen *g)
{
    Buf a = {.n = 0}, bb = {.n = 0}, c = {.n = 0};
    expr(g, &a, F64, 1);
    expr(g, &bb, U64, 1);
    expr(g, &c, I32, 1);
    int callee = g->fn - 1 - pick(g, g->fn < 8 ? g->fn : 8);
    Var *r = declare(g, F64, false);
    line(g, "let %s:f64 = f_%d(n, x, y, %s, %s, %s);", r->name, callee, a.s, bb.s, c.s);
}

static void stmt(Gen *g)
{
    int r = pick(g, 20);
    bool nest = g->depth < MAX_DEPTH;
    if (r < 6)
        stmt_let(g);
    else if (r < 11)
        stmt_assign(g);
    else if (r < 14 && nest)
        stmt_if(g);
    else if (r < 16 && nest)
        stmt_for(g);
    else if (r < 17 && nest)
        stmt_while(g);
    else if (r < 18 && g->fn > 0)
        stmt_call(g);
    else
        stmt_let(g);
}

/* A nested block: what it declares goes out of scope at its `}`. */
static void block(Gen *g, int stmts)
{
    int saved = g->nvars;
    g->depth++;
    for (int i = 0; i < stmts; i++)
        stmt(g);
    g->depth--;
    g->nvars = saved;
}

/* ---------------------------------------------------------------- program */

static void helper(Gen *g, int k)
{
    g->nvars = 0;
    g->binders = 0;
    Var *p = declare(g, I64, false);
    strcpy(p->name, "p");
    Var *q = declare(g, U32, false);
    strcpy(q->name, "q");
    Buf b = {.n = 0};
    g->helpers = k;                  /* a helper calls only earlier helpers */
    typed(g, &b, I64, 3);
    printf("fn h_%d(p:i64, q:u32) -> i64 = %s;\n\n", k, b.s);
    g->lines += 2;
    g->helpers = k + 1;
}

/* let sK:u64 = b + TERM + TERM ...; one term a line. The terms are typed
 * (a literal only ever beside them), so the chain's type is u64 throughout. */
static void chain_stmt(Gen *g)
{
    int terms = 10 + pick(g, 1991);
    char name[24];
    snprintf(name, sizeof name, "k%d", g->fresh);   /* the name declare gives it below */
    line(g, "let %s:u64 = b", name);
    g->depth++;
    for (int i = 1; i < terms; i++) {
        Buf t = {.n = 0};
        int r = pick(g, 4);
        if (r == 0)
            literal(g, &t, U64);
        else
            typed(g, &t, U64, 0);
        line(g, "%s %s", pick(g, 8) ? "+" : "*", t.s);
    }
    line(g, ";");
    g->depth--;
    declare(g, U64, false);   /* in scope only after its own value */
}

static void function(Gen *g, int k)
{
    g->fn = k;
    g->nvars = 0;
    g->binders = 0;
    g->fresh = 0;
    g->depth = 0;
    static const struct { const char *name; Ty ty; } params[] = {
        {"n", USIZE}, {"a", F64}, {"b", U64}, {"c", I32}};
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
        Var *v = declare(g, params[i].ty, false);
        strcpy(v->name, params[i].name);
    }
    printf("fn f_%d(n:usize, x:ro<f64>[n], y:rw<u64>[n], a:f64, b:u64, c:i32) -> f64 {\n", k);
    g->lines++;
    Var *acc = declare(g, F64, true);
    line(g, "let mut %s:f64 = a;", acc->name);
    int stmts = 6 + pick(g, 8);
    for (int i = 0; i < stmts; i++)
        stmt(g);
    if (g->chains)
        chain_stmt(g);
    Buf b = {.n = 0};
    expr(g, &b, F64, 2);
    line(g, "return %s + %s;", acc->name, b.s);
    printf("}\n\n");
    g->lines += 2;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4 || (argc == 4 && strcmp(argv[3], "chains"))) {
        fprintf(stderr, "usage: gen_sequential LINES [SEED] [chains] > out.cairn\n");
        return 2;
    }
    long want = atol(argv[1]);
    Gen g = {.rng = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x9E3779B97F4A7C15ULL};
    if (!g.rng)
        g.rng = 1;
    g.chains = argc == 4;
    printf("// generated by bench/gen_sequential %ld: sequential code for timing `cairn check`\n\n",
           want);
    g.lines = 2;
    int helpers = 0, fns = 0;
    while (g.lines < want - 4) {
        if (pick(&g, 4) == 0)
            helper(&g, helpers++);
        else
            function(&g, fns++);
    }
    printf("fn main() -> i32 {\n  return 0;\n}\n");
    g.lines += 3;
    fprintf(stderr, "gen_sequential: %ld lines, %d functions, %d helpers\n", g.lines, fns, helpers);
    return 0;
}
