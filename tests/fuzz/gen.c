/*
 * gen.c: bytes in, a CAIRN program out: the fuzzer's structure-aware mode.
 *
 * libFuzzer mutates bytes. Mutated text seldom grows a 10^4-term `a + b +
 * ...`, 300 nested blocks or a 60 KiB name, and -max_len caps it anyway; yet
 * those are the inputs that overflow a recursive checker's stack, hit the
 * parser's nesting limit, or make a quadratic pass crawl. Here each input
 * byte is a choice of a small generator instead (which shape comes next, how
 * big, which operator, which operand), so a 30-byte input can mean a
 * 100,000-term chain, and libFuzzer's mutations (a byte changed, a byte
 * inserted) move between such programs.
 *
 * The program: a few helper functions, then functions t0, t1, ..., each
 * with the same prelude of typed locals (so chains of them type-check and
 * the checker goes deep) and then statements, each one of the shapes below.
 * Most are valid; some choices make errors on purpose (an unclosed block, a
 * mistyped term), since the error paths must not crash either. Sizes are
 * spread over the orders of magnitude (pick_count), and a long run of
 * terms or levels repeats a short pattern of choices rather than reading a
 * byte each, so small inputs make big programs.
 *
 * A choice past the input's end is 0, and 0 always means the plain, valid
 * case, so a short input makes a valid program; errors take a choice.
 *
 * Requires nothing of the compiler: it writes text. The same bytes always
 * make the same program (gen_main.c prints it, to reproduce a finding with
 * bin/cairn).
 */
#include "gen.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *data;
    size_t size, pos;     /* the choices, and the next one */
    char *out;            /* the program so far */
    size_t len, cap;
    char *top;            /* functions a shape needs at the top level, added at the end */
    size_t top_len, top_cap;
    int names;            /* fresh names made so far (v0, v1, ...) */
} Gen;

/* ------------------------------------------------------------ choices */

/* The next choice, 0..n-1; 0 once the bytes are used up. */
static unsigned pick(Gen *g, unsigned n)
{
    if (n <= 1 || g->pos >= g->size)
        return 0;
    return g->data[g->pos++] % n;
}

static bool full(const Gen *g) { return g->len + g->top_len >= GEN_MAX_BYTES; }

/* A count from 1 to max, spread over the orders of magnitude: one choice
 * picks the order (1-9, 10-99, ..., 100000-999999), two more the value. */
static size_t pick_count(Gen *g, size_t max)
{
    static const size_t lo[] = {1, 10, 100, 1000, 10000, 100000};
    size_t base = lo[pick(g, 6)];
    size_t v = base + ((size_t)pick(g, 256) << 8 | pick(g, 256)) % (base * 9);
    return v > max ? max : v;
}

/* A pattern of 1 to 8 choices below n, repeated over a long run: its length
 * in *m. */
static void pick_pattern(Gen *g, unsigned n, unsigned pat[8], unsigned *m)
{
    *m = 1 + pick(g, 8);
    for (unsigned i = 0; i < *m; i++)
        pat[i] = pick(g, n);
}

/* ------------------------------------------------------------- output */

static void buf_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (*len + n + 1 > c)
            c *= 2;
        char *nb = realloc(*buf, c);
        if (!nb)
            abort();
        *buf = nb;
        *cap = c;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
}

static void put(Gen *g, const char *s) { buf_put(&g->out, &g->len, &g->cap, s, strlen(s)); }

static void putf(Gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(Gen *g, const char *fmt, ...)
{
    char b[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    buf_put(&g->out, &g->len, &g->cap, b, n < (int)sizeof b ? (size_t)n : sizeof b - 1);
}

static void put_times(Gen *g, const char *s, size_t times)
{
    for (size_t i = 0; i < times && !full(g); i++)
        put(g, s);
}

static int fresh(Gen *g) { return g->names++; }

/* -------------------------------------------------------------- chains */

/* A family of operators and operands of one type, so a chain of them
 * type-checks; the last family mixes types, so every term is an error. */
typedef struct {
    const char *ops[8];
    const char *atoms[8];
} Family;

static const Family families[] = {
    {{" + ", " - ", " * ", " / ", " % ", " & ", " | ", " ^ "},
     {"a", "b", "7", "f(a)", "buf[3]", "u64(k + 3)", "s", "0x10"}},
    {{" && ", " || ", " && ", " || ", " && ", " || ", " && ", " || "},
     {"p", "q", "a < b", "g(p)", "!q", "a == b", "x >= 1.0", "true"}},
    {{" + ", " - ", " * ", " / ", " + ", " - ", " * ", " / "},
     {"x", "2.5", "h(x)", "f64(a)", "1e3", "x", "0.125", "sqrt(x)"}},
    {{" + ", " - ", " * ", " + ", " - ", " * ", " + ", " - "},
     {"k", "-3", "i64(a)", "k", "9", "k * k", "-k", "i64(b)"}},
    {{" + ", " < ", " == ", " && ", " * ", " - ", " || ", " / "},
     {"a", "x", "p", "k", "\"s\"", "buf", "f", "1"}},
};

/* `let vN = t0 op t1 op ...;` with up to 10^5 terms; or nested to the
 * right, `t0 op (t1 op (...))`, which the parser must cut at its limit. */
static void gen_chain(Gen *g)
{
    const Family *fam = &families[pick(g, sizeof families / sizeof families[0])];
    size_t terms = pick_count(g, 200000);
    bool right = pick(g, 4) == 3;
    unsigned ops[8], atoms[8], mo, ma;
    pick_pattern(g, 8, ops, &mo);
    pick_pattern(g, 8, atoms, &ma);
    putf(g, "    let v%d = ", fresh(g));
    size_t opened = 0;
    for (size_t i = 0; i < terms && !full(g); i++) {
        if (i)
            put(g, fam->ops[ops[i % mo]]);
        if (right && i + 1 < terms) {
            put(g, "(");
            opened++;
        }
        put(g, fam->atoms[atoms[i % ma]]);
    }
    put_times(g, ")", opened);
    put(g, ";\n");
}

/* ------------------------------------------------------- deep nesting */

/* Blocks nested up to 2000 deep (past the parser's limit of 256): each
 * level opens one of these, and the innermost holds a statement. One
 * choice in eight leaves a block unclosed. */
static const char *const openers[] = {
    "if p {", "while q {", "for i in 0..2 {", "{", "if a < b { s += 1; } else {", "if q { } else if p {",
};

static void gen_blocks(Gen *g)
{
    size_t depth = pick_count(g, 2000);
    unsigned pat[8], m;
    pick_pattern(g, sizeof openers / sizeof openers[0], pat, &m);
    size_t opened = 0;
    for (size_t i = 0; i < depth && !full(g); i++, opened++) {
        put(g, openers[pat[i % m]]);
        put(g, i % 16 == 15 ? "\n" : " ");
    }
    put(g, "s += a;");
    if (pick(g, 8) == 7 && opened)
        opened--;
    put_times(g, "}", opened);
    put(g, "\n");
}

/* An expression nested up to 2000 deep: parentheses, prefix operators,
 * calls, indexes and conversions around one operand. */
static const char *const wrappers[][3] = {
    {"(", "a", ")"},    {"-(", "k", ")"},     {"!", "p", ""},  {"f(", "a", ")"},
    {"buf[", "0", "]"}, {"u64(", "a", ")"},   {"- ", "k", ""}, {"h(", "x", ")"},
};

static void gen_deep_expr(Gen *g)
{
    const char *const *w = wrappers[pick(g, sizeof wrappers / sizeof wrappers[0])];
    size_t depth = pick_count(g, 2000);
    putf(g, "    let v%d = ", fresh(g));
    put_times(g, w[0], depth);
    put(g, w[1]);
    put_times(g, w[2], depth);
    put(g, ";\n");
}

/* ---------------------------------------------------- many statements */

static void gen_many(Gen *g)
{
    size_t n = pick_count(g, 30000);
    unsigned pat[8], m;
    pick_pattern(g, 5, pat, &m);
    for (size_t i = 0; i < n && !full(g); i++) {
        switch (pat[i % m]) {
        case 0: putf(g, "    let v%d:u64 = a + %zu;\n", fresh(g), i); break;
        case 1: putf(g, "    s += %zu;\n", i % 7); break;
        case 2: put(g, "    if p { s += 1; } else { s -= 0; }\n"); break;
        case 3: putf(g, "    buf[%zu] = s;\n", i % 16); break;
        default: putf(g, "    let v%d = s * 2 + buf[%zu];\n", fresh(g), i % 16); break;
        }
    }
}

/* A function of up to 2000 parameters, called with as many arguments (or,
 * one choice in four, one fewer). */
static void gen_wide_call(Gen *g)
{
    size_t n = pick_count(g, 2000);
    int id = fresh(g);
    char head[64];
    int k = snprintf(head, sizeof head, "fn w%d(", id);
    buf_put(&g->top, &g->top_len, &g->top_cap, head, (size_t)k);
    for (size_t i = 0; i < n; i++) {
        k = snprintf(head, sizeof head, "%sp%zu:u64", i ? ", " : "", i);
        buf_put(&g->top, &g->top_len, &g->top_cap, head, (size_t)k);
    }
    buf_put(&g->top, &g->top_len, &g->top_cap, ") -> u64 = p0;\n", 15);
    size_t args = pick(g, 4) == 3 ? n - 1 : n;
    putf(g, "    let v%d = w%d(", fresh(g), id);
    for (size_t i = 0; i < args && !full(g); i++)
        put(g, i ? ", a" : "a");
    put(g, ");\n");
}

/* -------------------------------------------------- long tokens */

/* A name of up to 128 KiB, declared and used. */
static void gen_long_name(Gen *g)
{
    size_t n = pick_count(g, 128 << 10);
    unsigned pat[8], m;
    pick_pattern(g, 37, pat, &m);
    static const char chars[] = "abcdefghijklmnopqrstuvwxyz_0123456789";
    char *name = malloc(n + 2);
    if (!name)
        abort();
    name[0] = 'n';
    for (size_t i = 1; i <= n; i++)
        name[i] = chars[pat[i % m]];
    name[n + 1] = '\0';
    put(g, "    let ");
    put(g, name);
    put(g, ":u64 = a;\n    s += ");
    put(g, name);
    put(g, ";\n");
    free(name);
}

/* A literal of up to 10^5 digits: decimal, hex, a float's digits or its
 * exponent, or a string of escapes. */
static void gen_huge_literal(Gen *g)
{
    size_t n = pick_count(g, 100000);
    unsigned kind = pick(g, 6);
    static const char *const type[] = {":u64", "", ":f64", ":f64", "", ":i8"};
    if (kind == 4)
        put(g, "    println(");
    else
        putf(g, "    let v%d%s = ", fresh(g), type[kind]);
    switch (kind) {
    case 0: put(g, "1"); put_times(g, "9", n); break;
    case 1: put(g, "0x"); put_times(g, "F_", n); put(g, "F"); break;
    case 2: put(g, "1."); put_times(g, "0", n); put(g, "1"); break;
    case 3: put(g, "1e"); put_times(g, "9", n); break;
    case 4: put(g, "\""); put_times(g, "ab\\n\\t\\\\\\\"\\0", n); put(g, "\""); break;
    default: put(g, "-"); put_times(g, "1", n); break;
    }
    put(g, kind == 4 ? ");\n" : ";\n");
}

/* ------------------------------------------------------------ the rest */

/* Statements from the language's other corners, each valid here. */
static const char *const snippets[] = {
    "    for i in 0..16 { buf[i] = u64(i) * a; }\n",
    "    let r = reduce + for i in 16 yield buf[i];\n",
    "    parallel i in 16 { buf[i] = u64(i); }\n",
    "    println(\"s:\", s, x, p);\n",
    "    assert(a < b);\n",
    "    let c = min(a, b) + max(a, b);\n",
    "    let t = sqrt(x) + floor(x);\n",
    "    while s > 100 { s -= 1; }\n",
    "    let w = add_wrap(a, b);\n",
    "    let sl = len(buf);\n",
    "    let z = -k * (k + 1);\n",
    "    let q8 = quantize[i8](f32(x), 1.0);\n",
    "    s = s;\n",
    "    buffer tmp:f32[4] = zeroed;\n",
    "    let e = shl(a, 3);\n",
    "    let bits = to_bits(f32(x));\n",
};

/* Up to 24 bytes of the input as they are: mutations of these reach any
 * token, and any bad one, in the middle of a generated program. */
static void gen_raw(Gen *g)
{
    size_t n = pick(g, 25);
    put(g, "    ");
    for (size_t i = 0; i < n && g->pos < g->size; i++) {
        char c[2] = {(char)g->data[g->pos++], '\0'};
        buf_put(&g->out, &g->len, &g->cap, c, 1);
    }
    put(g, "\n");
}

static void gen_stmt(Gen *g)
{
    switch (pick(g, 10)) {
    case 0: gen_chain(g); break;
    case 1: gen_blocks(g); break;
    case 2: gen_deep_expr(g); break;
    case 3: gen_many(g); break;
    case 4: gen_wide_call(g); break;
    case 5: gen_long_name(g); break;
    case 6: gen_huge_literal(g); break;
    case 7: gen_raw(g); break;
    default: put(g, snippets[pick(g, sizeof snippets / sizeof snippets[0])]); break;
    }
}

static const char helpers[] =
    "fn f(x:u64) -> u64 = x + 1;\n"
    "fn g(b:bool) -> bool = !b;\n"
    "fn h(x:f64) -> f64 = x * 0.5;\n";

static const char prelude[] =
    "    let a:u64 = 3;\n    let b:u64 = 5;\n    let mut s:u64 = 0;\n    let p:bool = true;\n"
    "    let q:bool = false;\n    let x:f64 = 1.5;\n    let k:i64 = -2;\n"
    "    buffer buf:u64[16] = zeroed;\n";

/* Functions t0, t1, ... while choices last: each ends (a choice in
 * twelve) or when the bytes run out. */
char *gen_program(const uint8_t *data, size_t size, size_t *len)
{
    Gen g = {.data = data, .size = size};
    put(&g, helpers);
    int fns = 0;
    do {
        putf(&g, "fn t%d() -> i32 {\n", fns++);
        put(&g, prelude);
        while (g.pos < g.size && !full(&g) && pick(&g, 12) != 0)
            gen_stmt(&g);
        put(&g, "    return i32(s % 2);\n}\n");
    } while (g.pos < g.size && !full(&g));
    put(&g, "fn main() -> i32 { return t0(); }\n");
    if (g.top)
        buf_put(&g.out, &g.len, &g.cap, g.top, g.top_len);
    free(g.top);
    *len = g.len;
    return g.out;
}
