/*
 * parse.c: tokens to AST, by recursive descent.
 *
 * Each parse function handles one rule of the grammar, written in a comment
 * above it (EBNF: {x} repeats, [x] is optional). Expressions use precedence
 * climbing over the table of notes/SYNTAX.md 20; everything else is plain
 * descent, one function a form. The forms are those of
 * ../shared/spec/SURFACE.md and notes/SYNTAX.md.
 *
 * Three choices shape the file:
 *
 * Errors. A syntax error is E-PARSE at the offending token, worded
 * "expected X, found Y" with the place (`after the condition of if`). The
 * parser then enters panic mode (Wirth, and clang after him): further errors
 * are swallowed until it resynchronises at a statement boundary (the next
 * `;` at the same brace depth, the end of a braced block, a word that only
 * starts a statement) or, at top level, at the next declaration. So one run
 * reports every independent error and no cascades. Under panic every list
 * loop stops, and every loop consumes a token or exits, so no input makes
 * the parser loop forever.
 *
 * Depth. Expressions, types and blocks nest, and the parser recurses with
 * them. A fuzzer will hand us ten thousand `(`; instead of running off the
 * C stack we refuse past MAX_DEPTH levels with an E-PARSE error. Else-if
 * chains are parsed by a loop so a long chain is never "too deep".
 *
 * Ambiguities, settled once here:
 *   - `x[...]` directly followed by `(` is a generic call: compile-time
 *     arguments, then run-time ones. Otherwise `[...]` is an index or a
 *     slice. We look ahead to the matching `]` to tell.
 *   - A compile-time argument is a type when it starts like one (a scalar
 *     type name not followed by `(`, `ro`, `rw`, `fn`, or a name followed
 *     by `[` or `<`), otherwise an expression.
 *   - After `reduce OP`, a destination is present iff the next token is
 *     not `for`, `parallel` or `warp`.
 *   - A collector's `yield e` and a closure's `= e` take a full expression,
 *     so they extend as far right as they can; expand.c parenthesises them
 *     wherever anything follows.
 *   - `..` is not an operator: it appears only between the bounds of a `for`
 *     and of a slice, and binds looser than everything.
 *
 * Requires: a lexer (parse_source) or a token list ending in T_EOF
 * (parse_program).
 * Guarantees: a tree whatever the input (nodes that could not be read are
 * N_NAME "<error>"), and an error in the sink for anything not read.
 */
#include "cairn.h"

#include <string.h>

/* How deep source may nest: parentheses, brackets, blocks, unary operators
 * and postfix suffixes all count. The bound is the emitted C's, not our
 * stack's: clang refuses C nested deeper than 256 brackets, and one level
 * of source becomes up to three levels of C braces (a `for` is two, a
 * collector a loop and its condition), under which an expression nests at
 * most SPILL_NEST brackets plus one operation's own (emit.h). 64 levels of
 * three, and an expression at the bottom, stay under 256 (docs/internals.md,
 * "Limits"). Chains (a + b + c ...) and else-if chains are loops here, not
 * nesting, and have no limit. */
enum { MAX_DEPTH = 64 };

/* Tokens come from the lexer as the parser needs them, through a ring that
 * holds the previous token (span_through), the current one and whatever is
 * looked at ahead. The file's whole token array was ~480 bytes a line of
 * fresh memory, and touching fresh memory was a third of a large check.
 * Lookahead is one token, except the scans to a matching `]`
 * (brackets_then_paren, parse_elem_type), which grow the ring when a
 * bracket holds more tokens than it has room for.
 *
 * So a Token* from peek or advance lasts only until the parser reads on:
 * code that needs a token after parsing something keeps a copy. */
enum { RING_MIN = 64 };

typedef struct {
    Arena *arena;
    Sink *sink;
    Lexer *lx;            /* where tokens come from; NULL: from list */
    const Token *list;    /* parse_program's token list (ends with T_EOF) */
    int list_n, list_next;
    Token *ring;          /* token i is ring[i & mask] while hi - (mask + 1) <= i < hi */
    int mask;
    int hi;               /* tokens fetched so far */
    int pos;              /* index of the current token */
    Token *cur;           /* its slot: peek is one load (it runs several times a token) */
    int depth;
    bool panic;           /* an error was reported; quiet until resynchronised */
} Parser;

/* Precedence levels of notes/SYNTAX.md 20, loosest first. */
enum { PREC_NONE, PREC_OR, PREC_AND, PREC_CMP, PREC_BOR, PREC_BXOR, PREC_BAND, PREC_ADD, PREC_MUL };

static Node *parse_expr(Parser *p);
static Node *parse_unary(Parser *p);
static Node *parse_postfix(Parser *p);
static Node *parse_type(Parser *p);
static Node *parse_block(Parser *p, const char *after);
static Node *parse_stmt(Parser *p);

/* ------------------------------------------------------------- tokens */

/* Makes the ring twice as big. The old ring is left as it was (the arena
 * frees nothing), so a Token* into it still reads the same token. */
static void ring_grow(Parser *p)
{
    int cap = p->mask + 1, ncap = 2 * cap;
    Token *nr = arena_alloc(p->arena, (size_t)ncap * sizeof *nr);
    for (int i = p->hi - cap > 0 ? p->hi - cap : 0; i < p->hi; i++)
        nr[i & (ncap - 1)] = p->ring[i & (cap - 1)];
    p->ring = nr;
    p->mask = ncap - 1;
    if (p->pos < p->hi)
        p->cur = &nr[p->pos & p->mask];
}

/* Fetches token p->hi into the ring, over a token already left behind. */
static void fetch(Parser *p)
{
    int keep = p->pos > 0 ? p->pos - 1 : 0;   /* the previous token stays (span_through) */
    if (p->hi - (p->mask + 1) >= keep)
        ring_grow(p);
    Token *t = &p->ring[p->hi & p->mask];
    if (p->lx)
        lex_next(p->lx, t);
    else
        *t = p->list[p->list_next < p->list_n - 1 ? p->list_next++ : p->list_n - 1];
    p->hi++;
}

/* Token i (i >= pos - 1); past the end, T_EOF again. */
static Token *tok_at(Parser *p, int i)
{
    while (i >= p->hi)
        fetch(p);
    return &p->ring[i & p->mask];
}

static Token *peek(Parser *p) { return p->cur; }

/* A span from `from` to the end of the last token consumed: a binary
 * expression's caret underlines all of it. Past one line it runs to the end
 * of the first (the sink clamps the caret to the line). */
static Span span_through(Parser *p, Span from)
{
    if (p->pos == 0)
        return from;
    const Span *last = &tok_at(p, p->pos - 1)->span;
    if (last->line == from.line && last->col + last->len > from.col)
        from.len = last->col + last->len - from.col;
    else if (last->line > from.line)
        from.len = 1 << 16;
    return from;
}
static Token *peek_at(Parser *p, int k) { return tok_at(p, p->pos + k); }
static bool at(Parser *p, TokKind k) { return p->cur->kind == k; }

static Token *advance(Parser *p)
{
    Token *t = p->cur;
    if (t->kind != T_EOF)
        p->cur = tok_at(p, ++p->pos);
    return t;
}

static bool accept(Parser *p, TokKind k)
{
    if (!at(p, k))
        return false;
    advance(p);
    return true;
}

/* "`;`", "name `x`", "integer `42`", "end of file". */
static const char *describe(Parser *p, const Token *t)
{
    switch (t->kind) {
    case T_EOF: return "end of file";
    case T_IDENT: return arena_printf(p->arena, "name `%s`", t->text);
    case T_INT: return arena_printf(p->arena, "integer `%s`", t->text);
    case T_FLOAT: return arena_printf(p->arena, "float `%s`", t->text);
    case T_STRING: return "a string";
    default: return arena_printf(p->arena, "`%s`", tok_name(t->kind));
    }
}

/* ------------------------------------------------------------- errors */

/* Diagnostics come out as when the whole file was lexed before parsing:
 * every lexer error before the parser's first. So before the parser
 * reports, the lexer reads the rest of the file into the ring (which grows
 * to hold it; the Token* of the caller stays readable, see ring_grow). Only
 * a file with a syntax error pays for this. */
static void lex_rest(Parser *p)
{
    while (p->lx && p->ring[(p->hi - 1) & p->mask].kind != T_EOF)
        fetch(p);
}

/* An error after which the parse is lost: report it and enter panic mode.
 * A token the lexer already complained about gets no second error. */
static void error_at(Parser *p, const Token *t, const char *help, const char *msg)
{
    if (!p->panic && !t->after_error) {
        lex_rest(p);
        diag_error(p->sink, t->span, E_PARSE, help, "%s", msg);
    }
    p->panic = true;
}

/* An error after which the parse goes on as it was (a chained comparison,
 * a bad assignment target): report it and stay in step. */
static void report(Parser *p, const Token *t, const char *help, const char *msg)
{
    if (!p->panic && !t->after_error) {
        lex_rest(p);
        diag_error(p->sink, t->span, E_PARSE, help, "%s", msg);
    }
}

/* "expected WHAT[ WHERE], found TOKEN" at the current token. */
static void expected(Parser *p, const char *what, const char *where, const char *help)
{
    if (p->panic)
        return;
    Token *t = peek(p);
    const char *msg = arena_printf(p->arena, "expected %s%s%s, found %s", what, where ? " " : "",
                                   where ? where : "", describe(p, t));
    error_at(p, t, help, msg);
}

static bool expect(Parser *p, TokKind k, const char *where)
{
    if (accept(p, k))
        return true;
    expected(p, arena_printf(p->arena, "`%s`", tok_name(k)), where, NULL);
    return false;
}

static const char *expect_name(Parser *p, const char *what, const char *where)
{
    if (at(p, T_IDENT))
        return advance(p)->text;
    expected(p, what, where, NULL);
    return "<error>";
}

/* expect and expect_name with a place that names a keyword (`after `%s``):
 * the message is formatted only when it is needed, never on the fast path. */
static bool expect_kw(Parser *p, TokKind k, const char *where_fmt, const char *kw)
{
    if (accept(p, k))
        return true;
    return expect(p, k, arena_printf(p->arena, where_fmt, kw));
}

static const char *expect_name_kw(Parser *p, const char *what, const char *where_fmt, const char *kw)
{
    if (at(p, T_IDENT))
        return advance(p)->text;
    return expect_name(p, what, arena_printf(p->arena, where_fmt, kw));
}

static Node *error_node(Parser *p)
{
    Node *n = node_new(p->arena, N_NAME, peek(p)->span);
    n->name.id = "<error>";
    return n;
}

static bool enter(Parser *p)
{
    if (p->depth >= MAX_DEPTH) {
        if (!p->panic) {
            lex_rest(p);
            diag_error(p->sink, peek(p)->span, E_PARSE, "split the expression or block into smaller parts",
                       "nesting deeper than %d levels", MAX_DEPTH);
        }
        p->panic = true;
        return false;
    }
    p->depth++;
    return true;
}

static void leave(Parser *p) { p->depth--; }

/* ---------------------------------------------------------- recovery */

/* Words that begin a declaration: where the top level resynchronises. A
 * `fn` counts only when a name follows (otherwise it is a closure). */
static bool at_decl_start(Parser *p)
{
    switch (peek(p)->kind) {
    case K_FN: return peek_at(p, 1)->kind == T_IDENT;
    case K_KERNEL: case K_EXTERN: case K_TEST: case K_CONST: case K_LAYOUT: case K_DERIVE:
    case K_PLAN: return true;
    default: return false;
    }
}

/* Words that only ever begin a statement (not `if`, `for`, `parallel`,
 * which also occur inside collectors). */
static bool at_stmt_only_start(Parser *p)
{
    switch (peek(p)->kind) {
    case K_LET: case K_RETURN: case K_WHILE: case K_BREAK: case K_CONTINUE: case K_BARRIER:
    case K_BUFFER: case K_SHARED: case K_PIPELINE: case K_UNSAFE: case K_LOCK: case K_LAUNCH:
    case K_ASM: return true;
    default: return false;
    }
}

/* Skips to the end of the broken statement: past the next `;` at this
 * brace depth, or past a braced block that closes at this depth, or up to
 * a `}` that closes the enclosing block, a statement word, or a
 * declaration. */
static void sync_stmt(Parser *p)
{
    int depth = 0;
    for (;;) {
        switch (peek(p)->kind) {
        case T_EOF: return;
        case T_LBRACE: depth++; break;
        case T_RBRACE:
            if (depth == 0)
                return;
            if (--depth == 0) {
                advance(p);
                accept(p, T_SEMI);   /* `let t = spawn blocks .. { };` */
                return;
            }
            break;
        case T_SEMI:
            if (depth == 0) {
                advance(p);
                return;
            }
            break;
        default:
            if (depth == 0 && (at_stmt_only_start(p) || at_decl_start(p)))
                return;
            break;
        }
        advance(p);
    }
}

/* Skips to the next declaration at brace depth 0. */
static void sync_top(Parser *p)
{
    int depth = 0;
    while (!at(p, T_EOF)) {
        if (depth == 0 && at_decl_start(p))
            return;
        if (at(p, T_LBRACE))
            depth++;
        else if (at(p, T_RBRACE) && depth > 0)
            depth--;
        advance(p);
    }
}

/* ------------------------------------------------------------- types */

static bool is_scalar_name(const char *s)
{
    static const char *const names[] = {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32",
                                        "u64", "usize", "f32", "f64", "f16", "bf16", "f8e4m3",
                                        "f8e5m2"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i]))
            return true;
    return false;
}

/* A compile-time argument that starts like a type (see the essay). */
static bool at_type_targ(Parser *p)
{
    Token *t = peek(p);
    if (t->kind == K_FN)
        return true;
    if (t->kind != T_IDENT)
        return false;
    TokKind next = peek_at(p, 1)->kind;
    if (!strcmp(t->text, "ro") || !strcmp(t->text, "rw"))
        return true;
    if (is_scalar_name(t->text))
        return next != T_LPAREN;
    return next == T_LBRACK || next == T_LT;
}

/* targ = type | expr   (chosen by at_type_targ) */
static Node *parse_targ(Parser *p) { return at_type_targ(p) ? parse_type(p) : parse_expr(p); }

/* targs = "[" [targ {"," targ}] "]" */
static void parse_targs(Parser *p, Vec *out)
{
    expect(p, T_LBRACK, NULL);
    while (!at(p, T_RBRACK) && !at(p, T_EOF) && !p->panic) {
        vec_push(p->arena, out, parse_targ(p));
        if (!accept(p, T_COMMA))
            break;
    }
    expect(p, T_RBRACK, "to close the compile-time arguments");
}

/* place = "@" ("host" | "pinned" | "unified" | "device") */
static void parse_place(Parser *p, Placement *place, bool *written)
{
    static const char *const words[] = {"host", "pinned", "unified", "device"};
    if (!accept(p, T_AT))
        return;
    Token *t = peek(p);
    for (int i = 0; i < 4; i++) {
        if (t->kind == T_IDENT && !strcmp(t->text, words[i])) {
            advance(p);
            *place = (Placement)i;
            *written = true;
            return;
        }
    }
    expected(p, "a placement (`@host`, `@pinned`, `@unified` or `@device`)", "after `@`", NULL);
}

/* Accepts `>`, or the `>` of a `>=` written with no space (`rw<f32>= x`). */
static void expect_close_angle(Parser *p)
{
    if (at(p, T_GE)) {
        Token *t = peek(p);
        t->kind = T_ASSIGN;
        t->text = "=";
        t->span.col++;
        return;
    }
    expect(p, T_GT, "to close the element type");
}

/* view = ("ro" | "rw") "<" type ">" ["[" expr "]" [place]] */
static void parse_view_type(Parser *p, Node *ty)
{
    ty->type.access = !strcmp(ty->type.id, "ro") ? ACC_RO : ACC_RW;
    expect_kw(p, T_LT, "after `%s`", ty->type.id);
    ty->type.elem = parse_type(p);
    expect_close_angle(p);
    if (accept(p, T_LBRACK)) {
        ty->type.extent = parse_expr(p);
        expect(p, T_RBRACK, "after the extent");
        parse_place(p, &ty->type.place, &ty->type.place_written);
    }
}

/* fntype = "fn" "(" [type {"," type}] ")" ["->" type] */
static void parse_fn_type(Parser *p, Node *ty)
{
    expect(p, T_LPAREN, "after `fn` in a function type");
    while (!at(p, T_RPAREN) && !at(p, T_EOF) && !p->panic) {
        vec_push(p->arena, &ty->type.args, parse_type(p));
        if (!accept(p, T_COMMA))
            break;
    }
    expect(p, T_RPAREN, "to close the parameter types");
    if (accept(p, T_ARROW))
        ty->type.ret = parse_type(p);
}

/* type = view | fntype | NAME [targs] */
static Node *parse_type(Parser *p)
{
    if (!enter(p))
        return error_node(p);
    Node *ty = node_new(p->arena, N_TYPE, peek(p)->span);
    if (accept(p, K_FN)) {
        ty->type.id = "fn";
        parse_fn_type(p, ty);
    } else if (at(p, T_IDENT)) {
        ty->type.id = advance(p)->text;
        if (!strcmp(ty->type.id, "ro") || !strcmp(ty->type.id, "rw"))
            parse_view_type(p, ty);
        else if (at(p, T_LBRACK))
            parse_targs(p, &ty->type.args);
    } else {
        expected(p, "a type", NULL, NULL);
        ty->type.id = "<error>";
    }
    leave(p);
    return ty;
}

/* ------------------------------------------------------- expressions */

static Node *new_name(Parser *p, Token *t)
{
    Node *n = node_new(p->arena, N_NAME, t->span);
    n->name.id = t->text;
    return n;
}

/* args = "(" [expr {"," expr}] ")"   (after the callee) */
static void parse_args(Parser *p, Vec *out)
{
    expect(p, T_LPAREN, NULL);
    while (!at(p, T_RPAREN) && !at(p, T_EOF) && !p->panic) {
        vec_push(p->arena, out, parse_expr(p));
        if (!accept(p, T_COMMA))
            break;
    }
    expect(p, T_RPAREN, "to close the arguments");
}

/* Whether the `[` at the cursor closes with a `]` directly followed by `(`.
 * The scan stops at `;` or a brace, which never occur inside brackets, so
 * an unclosed `[` costs one statement's length, not the file's. */
static bool brackets_then_paren(Parser *p)
{
    int depth = 0;
    for (int i = p->pos;; i++) {
        TokKind k = tok_at(p, i)->kind;
        switch (k) {
        case T_LBRACK: case T_LPAREN: depth++; break;
        case T_RBRACK: case T_RPAREN:
            if (--depth == 0)
                return k == T_RBRACK && tok_at(p, i + 1)->kind == T_LPAREN;
            break;
        case T_SEMI: case T_LBRACE: case T_RBRACE: case T_EOF: return false;
        default: break;
        }
    }
}

/* call = postfix args | postfix targs args */
static Node *parse_call(Parser *p, Node *callee, bool generic)
{
    Node *n = node_new(p->arena, N_CALL, callee->span);
    n->call.callee = callee;
    if (generic) {
        n->call.has_targs = true;
        parse_targs(p, &n->call.targs);
    }
    parse_args(p, &n->call.args);
    n->span = span_through(p, callee->span);   /* the caret underlines the whole call */
    return n;
}

/* index = postfix "[" expr "]" ; slice = postfix "[" expr ".." expr "]" */
static Node *parse_index(Parser *p, Node *base)
{
    advance(p);
    Node *lo = parse_expr(p);
    Node *n;
    if (accept(p, T_DOTDOT)) {
        n = node_new(p->arena, N_SLICE, base->span);
        n->slice.base = base;
        n->slice.lo = lo;
        n->slice.hi = parse_expr(p);
    } else {
        n = node_new(p->arena, N_INDEX, base->span);
        n->index.base = base;
        n->index.index = lo;
    }
    expect(p, T_RBRACK, "to close the index");
    n->span = span_through(p, base->span);   /* x[i], x[a..b]: all of it */
    return n;
}

/* field = postfix "." NAME */
static Node *parse_field(Parser *p, Node *base)
{
    advance(p);
    Node *n = node_new(p->arena, N_FIELD, base->span);
    n->field.base = base;
    n->field.id = expect_name(p, "a field or method name", "after `.`");
    n->span = span_through(p, base->span);
    return n;
}

/* collect_op = "+" | "*" | "&" | "|" | "^" | NAME */
static const char *parse_collect_op(Parser *p)
{
    switch (peek(p)->kind) {
    case T_PLUS: case T_STAR: case T_AMP: case T_PIPE: case T_CARET: case T_IDENT:
        return advance(p)->text;
    default:
        expected(p, "a reduction operator", NULL,
                 "the operators are `+ * & | ^` or a name: min max and or xor add_wrap mul_wrap");
        return "<error>";
    }
}

/* mode = ("for" | "parallel") NAME "in" expr | "warp"   (warp: reduce only) */
static void parse_collect_mode(Parser *p, Node *n, bool warp_ok)
{
    const char *kw = n->collect.kind == COLLECT_REDUCE ? "reduce" : n->collect.kind == COLLECT_SCAN ? "scan" : "compact";
    if (warp_ok && accept(p, K_WARP)) {
        n->collect.mode = MODE_WARP;
        return;
    }
    if (accept(p, K_PARALLEL)) {
        n->collect.mode = MODE_PARALLEL;
    } else if (accept(p, K_FOR)) {
        n->collect.mode = MODE_FOR;
    } else {
        expected(p, warp_ok ? "`for`, `parallel` or `warp`" : "`for` or `parallel`",
                 arena_printf(p->arena, "in `%s`", kw), NULL);
        n->collect.var = "<error>";
        return;
    }
    n->collect.var = expect_name_kw(p, "the index name", "in `%s`", kw);
    expect(p, K_IN, "after the index name");
    n->collect.extent = parse_expr(p);
}

/* collector = "reduce" collect_op [postfix] mode "yield" expr
 *           | "scan" collect_op postfix mode "yield" expr
 *           | "compact" postfix mode "if" expr "yield" expr */
static Node *parse_collector(Parser *p)
{
    Token t = *advance(p);   /* a copy: named again after the parts are parsed */
    Node *n = node_new(p->arena, N_COLLECT, t.span);
    n->collect.kind = t.kind == K_REDUCE ? COLLECT_REDUCE : t.kind == K_SCAN ? COLLECT_SCAN : COLLECT_COMPACT;
    if (n->collect.kind != COLLECT_COMPACT)
        n->collect.op = parse_collect_op(p);
    bool dest = true;
    if (n->collect.kind == COLLECT_REDUCE)
        dest = !at(p, K_FOR) && !at(p, K_PARALLEL) && !at(p, K_WARP);
    if (dest)
        n->collect.dest = parse_postfix(p);
    parse_collect_mode(p, n, n->collect.kind == COLLECT_REDUCE);
    if (n->collect.kind == COLLECT_COMPACT) {
        expect(p, K_IF, "before the condition of `compact`");
        n->collect.keep = parse_expr(p);
    }
    if (!accept(p, K_YIELD)) {
        expected(p, "`yield`", arena_printf(p->arena, "in `%s`", tok_name(t.kind)),
                 at(p, T_DOTDOT) ? "a collector's `for i in n` takes an extent n (i runs over 0..n), not a range"
                                 : NULL);
        return n;
    }
    n->collect.value = parse_expr(p);
    return n;
}

/* param = NAME ":" type */
static Node *parse_param(Parser *p, const char *where)
{
    Node *n = node_new(p->arena, N_PARAM, peek(p)->span);
    n->param.id = expect_name(p, "a parameter name", where);
    expect(p, T_COLON, "after the parameter name");
    n->param.type = parse_type(p);
    return n;
}

/* params = "(" [param {"," param}] ")" */
static void parse_params(Parser *p, Vec *out)
{
    expect(p, T_LPAREN, "before the parameters");
    while (!at(p, T_RPAREN) && !at(p, T_EOF) && !p->panic) {
        vec_push(p->arena, out, parse_param(p, "in the parameters"));
        if (!accept(p, T_COMMA))
            break;
    }
    expect(p, T_RPAREN, "to close the parameters");
}

/* closure = "fn" params ["->" type] ("=" expr | block) */
static Node *parse_closure(Parser *p)
{
    Node *n = node_new(p->arena, N_CLOSURE, advance(p)->span);
    parse_params(p, &n->fn.params);
    if (accept(p, T_ARROW))
        n->fn.ret = parse_type(p);
    if (accept(p, T_ASSIGN)) {
        n->fn.body = parse_expr(p);
        n->fn.expr_body = true;
    } else if (at(p, T_LBRACE)) {
        n->fn.body = parse_block(p, "of the closure");
    } else {
        expected(p, "`=` or `{`", "after the closure's parameters", NULL);
        n->fn.body = error_node(p);
    }
    return n;
}

/* task = "task" block */
static Node *parse_task(Parser *p)
{
    Node *n = node_new(p->arena, N_TASK, advance(p)->span);
    Node *b = parse_block(p, "after `task`");
    n->block = b->block;
    return n;
}

/* after = "after" NAME {"," NAME} */
static void parse_after(Parser *p, Vec *out)
{
    if (!accept(p, K_AFTER))
        return;
    do {
        Token *t = peek(p);
        expect_name(p, "a ticket name", "after `after`");
        if (t->kind == T_IDENT)
            vec_push(p->arena, out, new_name(p, t));
    } while (!p->panic && accept(p, T_COMMA));
}

/* spawn = "spawn" postfix [after]                       (a call of transfer)
 *       | "spawn" "parallel" NAME "in" expr [after] block */
static Node *parse_spawn(Parser *p)
{
    Node *n = node_new(p->arena, N_SPAWN, advance(p)->span);
    if (at(p, K_BLOCKS)) {
        error_at(p, peek(p), "queue a `parallel` region, or call the cooperative region's function",
                 "expected `transfer(..)` or `parallel` after `spawn`, found `blocks`: a cooperative region is not queued");
        n->spawn.work = error_node(p);
        return n;
    }
    if (at(p, K_PARALLEL)) {
        Node *w = node_new(p->arena, N_PARALLEL, advance(p)->span);
        w->loop.var = expect_name(p, "the index name", "after `parallel`");
        expect(p, K_IN, "after the index name");
        w->loop.hi = parse_expr(p);
        parse_after(p, &n->spawn.after);
        w->loop.body = parse_block(p, "of the spawned region");
        n->spawn.work = w;
        return n;
    }
    Token t = *peek(p);   /* a copy: reported after the postfix is parsed */
    n->spawn.work = parse_postfix(p);
    if (n->spawn.work->kind != N_CALL && !p->panic)
        report(p, &t, NULL, "expected `transfer(..)` or `parallel` after `spawn`");
    parse_after(p, &n->spawn.after);
    return n;
}

static Node *parse_literal(Parser *p)
{
    Token *t = advance(p);
    Node *n;
    switch (t->kind) {
    case T_INT:
        n = node_new(p->arena, N_INT, t->span);
        n->lit.ival = t->ival;
        n->lit.overflow = t->ival_overflow;
        break;
    case T_FLOAT:
        n = node_new(p->arena, N_FLOAT, t->span);
        n->lit.fval = t->fval;
        break;
    case T_STRING:
        n = node_new(p->arena, N_STRING, t->span);
        n->lit.sval = t->sval;
        break;
    default:
        n = node_new(p->arena, N_BOOL, t->span);
        n->lit.bval = t->kind == K_TRUE;
        break;
    }
    n->lit.text = t->text;
    return n;
}

/* primary = INT | FLOAT | STRING | "true" | "false" | NAME | "(" expr ")"
 *         | collector | closure | task | spawn */
static Node *parse_primary(Parser *p)
{
    switch (peek(p)->kind) {
    case T_INT: case T_FLOAT: case T_STRING: case K_TRUE: case K_FALSE:
        return parse_literal(p);
    case T_IDENT:
        return new_name(p, advance(p));
    case T_LPAREN: {
        advance(p);
        Node *e = parse_expr(p);
        expect(p, T_RPAREN, "to close the parenthesis");
        return e;
    }
    case K_REDUCE: case K_SCAN: case K_COMPACT:
        return parse_collector(p);
    case K_FN:
        return parse_closure(p);
    case K_TASK:
        return parse_task(p);
    case K_SPAWN:
        return parse_spawn(p);
    default:
        expected(p, "an expression", NULL, NULL);
        return error_node(p);
    }
}

/* postfix = primary {args | targs args | "[" expr ["..", expr] "]" | "." NAME}
 * Each suffix nests the expression before it one level deeper (x[0..n][1..n]
 * is a slice of a slice, in the tree and in the C it becomes), so each
 * counts against MAX_DEPTH like a parenthesis. */
static Node *parse_postfix(Parser *p)
{
    Node *n = parse_primary(p);
    int suffixes = 0;
    while (!p->panic && (at(p, T_LPAREN) || at(p, T_LBRACK) || at(p, T_DOT))) {
        if (!enter(p))
            break;
        suffixes++;
        if (at(p, T_LPAREN))
            n = parse_call(p, n, false);
        else if (at(p, T_LBRACK))
            n = brackets_then_paren(p) ? parse_call(p, n, true) : parse_index(p, n);
        else
            n = parse_field(p, n);
    }
    p->depth -= suffixes;
    return n;
}

/* unary = ("-" | "!" | "~") unary | postfix */
static Node *parse_unary(Parser *p)
{
    if (!at(p, T_MINUS) && !at(p, T_BANG) && !at(p, T_TILDE))
        return parse_postfix(p);
    if (!enter(p))
        return error_node(p);
    Token t = *advance(p);   /* a copy: its span is needed after the operand is parsed */
    Node *n = node_new(p->arena, N_UNARY, t.span);
    n->unary.op = t.kind;
    n->unary.a = parse_unary(p);
    n->span = span_through(p, t.span);   /* -x underlines the operand too */
    leave(p);
    return n;
}

static int binary_prec(TokKind k)
{
    switch (k) {
    case T_OROR: return PREC_OR;
    case T_ANDAND: return PREC_AND;
    case T_EQ: case T_NE: case T_LT: case T_GT: case T_LE: case T_GE: return PREC_CMP;
    case T_PIPE: return PREC_BOR;
    case T_CARET: return PREC_BXOR;
    case T_AMP: return PREC_BAND;
    case T_PLUS: case T_MINUS: return PREC_ADD;
    case T_STAR: case T_SLASH: case T_PERCENT: return PREC_MUL;
    default: return PREC_NONE;
    }
}

/* binary(k) = unary {op(>=k) binary(prec(op)+1)}; comparisons do not chain */
static Node *parse_binary(Parser *p, int min_prec)
{
    Node *left = parse_unary(p);
    bool compared = false;
    for (;;) {
        Token *t = peek(p);
        int prec = binary_prec(t->kind);
        if (prec == PREC_NONE || prec < min_prec)
            return left;
        if (prec == PREC_CMP && compared)
            report(p, t, "write `a < b && b < c`, or parenthesise one side",
                     arena_printf(p->arena, "comparisons do not chain: `%s` after a comparison",
                                  tok_name(t->kind)));
        compared = prec == PREC_CMP;
        advance(p);
        Node *n = node_new(p->arena, N_BINARY, t->span);
        n->binary.op = t->kind;
        n->binary.a = left;
        n->binary.b = parse_binary(p, prec + 1);
        n->span = span_through(p, left->span);
        left = n;
    }
}

/* expr = binary(||) */
static Node *parse_expr(Parser *p)
{
    if (!enter(p))
        return error_node(p);
    Node *n = parse_binary(p, PREC_OR);
    leave(p);
    return n;
}

/* -------------------------------------------------------- statements */

/* block = "{" {stmt} "}" */
static Node *parse_block(Parser *p, const char *after)
{
    Node *b = node_new(p->arena, N_BLOCK, peek(p)->span);
    if (!enter(p))
        return b;
    if (!expect(p, T_LBRACE, after)) {
        leave(p);
        return b;
    }
    while (!at(p, T_RBRACE) && !at(p, T_EOF) && !at_decl_start(p)) {
        int before = p->pos;
        Node *s = parse_stmt(p);
        if (s)
            vec_push(p->arena, &b->block.stmts, s);
        if (p->panic) {
            sync_stmt(p);
            if (at_decl_start(p))
                break;           /* a missing `}`: leave the error standing */
            p->panic = false;
        }
        if (p->pos == before)
            advance(p);
    }
    leave(p);
    if (!p->panic && !at(p, T_RBRACE)) {
        expected(p, "`}`", "to close the block", NULL);
        return b;
    }
    accept(p, T_RBRACE);
    return b;
}

static void expect_semi(Parser *p, const char *after)
{
    expect(p, T_SEMI, after);
}

/* let = "let" ["mut"] NAME [":" type] "=" expr ";" */
static Node *parse_let(Parser *p)
{
    Node *n = node_new(p->arena, N_LET, advance(p)->span);
    n->let.mut = accept(p, K_MUT);
    n->let.id = expect_name(p, "a name", n->let.mut ? "after `let mut`" : "after `let`");
    if (accept(p, T_COLON))
        n->let.type = parse_type(p);
    expect(p, T_ASSIGN, "in `let` (a binding needs a value)");
    n->let.init = parse_expr(p);
    expect_semi(p, "after the `let`");
    return n;
}

/* elem = NAME [targs]   (the targs only when another "[" follows them) */
static Node *parse_elem_type(Parser *p)
{
    Node *ty = node_new(p->arena, N_TYPE, peek(p)->span);
    ty->type.id = expect_name(p, "an element type", "after `:`");
    if (at(p, T_LBRACK)) {
        int depth = 0, i = p->pos;
        for (; tok_at(p, i)->kind != T_EOF; i++) {
            TokKind k = tok_at(p, i)->kind;
            if (k == T_LBRACK)
                depth++;
            else if (k == T_RBRACK && --depth == 0)
                break;
            else if (k == T_SEMI || k == T_LBRACE)
                break;
        }
        if (tok_at(p, i)->kind == T_RBRACK && tok_at(p, i + 1)->kind == T_LBRACK)
            parse_targs(p, &ty->type.args);
    }
    return ty;
}

/* The common head of buffer, shared and pipeline: NAME ":" elem "[" expr "]" */
static Node *parse_storage_head(Parser *p, NodeKind k, const char *kw)
{
    Node *n = node_new(p->arena, k, advance(p)->span);
    n->buffer.id = expect_name_kw(p, "a name", "after `%s`", kw);
    if (!at(p, T_COLON))
        expect(p, T_COLON, arena_printf(p->arena, "after the name of the %s (`%s x:f32[n]`)", kw, kw));
    accept(p, T_COLON);
    n->buffer.elem = parse_elem_type(p);
    expect(p, T_LBRACK, "before the length");
    n->buffer.size = parse_expr(p);
    expect(p, T_RBRACK, "after the length");
    return n;
}

/* buffer = "buffer" NAME ":" elem "[" expr "]" [place] "=" "zeroed" ";" */
static Node *parse_buffer(Parser *p)
{
    Node *n = parse_storage_head(p, N_BUFFER, "buffer");
    parse_place(p, &n->buffer.place, &n->buffer.place_written);
    expect(p, T_ASSIGN, "after the buffer's type (`= zeroed`)");
    if (!p->panic)
        expect(p, K_ZEROED, "after `=` (a buffer starts zeroed)");
    n->buffer.zeroed = true;
    expect_semi(p, "after the buffer");
    return n;
}

/* shared = "shared" NAME ":" elem "[" expr "]" ["=" "zeroed"] ";" */
static Node *parse_shared(Parser *p)
{
    Node *n = parse_storage_head(p, N_SHARED, "shared");
    if (accept(p, T_ASSIGN)) {
        expect(p, K_ZEROED, "after `=` (a shared array is `= zeroed` or not initialised)");
        n->buffer.zeroed = true;
    }
    expect_semi(p, "after the shared array");
    return n;
}

/* pipeline = "pipeline" NAME ":" elem "[" expr "]" "depth" expr ";" */
static Node *parse_pipeline(Parser *p)
{
    Node *n = parse_storage_head(p, N_PIPELINE, "pipeline");
    expect(p, K_DEPTH, "after the pipeline's stage (`depth D`)");
    n->buffer.depth = parse_expr(p);
    expect_semi(p, "after the pipeline");
    return n;
}

/* if = "if" expr block ["else" (if | block)]   (the chain is a loop) */
static Node *parse_if(Parser *p)
{
    Node *first = NULL, *last = NULL;
    do {
        Node *n = node_new(p->arena, N_IF, advance(p)->span);
        n->if_.cond = parse_expr(p);
        n->if_.then = parse_block(p, "after the condition of `if`");
        if (last)
            last->if_.els = n;
        else
            first = n;
        last = n;
        if (p->panic || !accept(p, K_ELSE))
            return first;
    } while (at(p, K_IF));
    last->if_.els = parse_block(p, "after `else`");
    return first;
}

/* for = "for" NAME "in" expr ".." expr block */
static Node *parse_for(Parser *p)
{
    Node *n = node_new(p->arena, N_FOR, advance(p)->span);
    n->loop.var = expect_name(p, "the loop variable", "after `for`");
    expect(p, K_IN, "after the loop variable");
    n->loop.lo = parse_expr(p);
    if (!accept(p, T_DOTDOT))
        expected(p, "`..`", "in the range of `for`", "a loop runs over a range: `for i in 0..n`");
    n->loop.hi = parse_expr(p);
    n->loop.body = parse_block(p, "after the range of `for`");
    return n;
}

/* while = "while" expr block */
static Node *parse_while(Parser *p)
{
    Node *n = node_new(p->arena, N_WHILE, advance(p)->span);
    n->loop.cond = parse_expr(p);
    n->loop.body = parse_block(p, "after the condition of `while`");
    return n;
}

/* parallel = "parallel" NAME "in" expr block */
static Node *parse_parallel(Parser *p)
{
    Node *n = node_new(p->arena, N_PARALLEL, advance(p)->span);
    n->loop.var = expect_name(p, "the index name", "after `parallel`");
    expect(p, K_IN, "after the index name");
    n->loop.hi = parse_expr(p);
    n->loop.body = parse_block(p, "after the extent of `parallel`");
    return n;
}

/* shape = NAME {"," NAME} "in" expr {"," expr}   (one to three, as many of each) */
static void parse_shape(Parser *p, Vec *vars, Vec *exts, const char *kw)
{
    Token start = *peek(p);   /* a copy: reported after the extents are parsed */
    do
        vec_push(p->arena, vars, (void *)expect_name_kw(p, "a name", "after `%s`", kw));
    while (!p->panic && accept(p, T_COMMA));
    expect_kw(p, K_IN, "after the names of `%s`", kw);
    do
        vec_push(p->arena, exts, parse_expr(p));
    while (!p->panic && accept(p, T_COMMA));
    if (p->panic)
        return;
    if (vars->n != exts->n)
        report(p, &start, NULL,
                 arena_printf(p->arena, "`%s` names %d %s but gives %d %s", kw, vars->n,
                              vars->n == 1 ? "index" : "indices", exts->n,
                              exts->n == 1 ? "extent" : "extents"));
    else if (vars->n > 3)
        report(p, &start, NULL,
                 arena_printf(p->arena, "`%s` takes one to three names, found %d", kw, vars->n));
}

/* coop = "blocks" shape "threads" shape block ["then" "threads" shape block] */
static Node *parse_coop(Parser *p)
{
    Node *n = node_new(p->arena, N_COOP, advance(p)->span);
    parse_shape(p, &n->coop.bvars, &n->coop.bext, "blocks");
    expect(p, K_THREADS, "after the grid of `blocks` (`blocks b in g threads t in 256`)");
    parse_shape(p, &n->coop.tvars, &n->coop.text, "threads");
    n->coop.body = parse_block(p, "after the shape of the cooperative region");
    if (!p->panic && accept(p, K_THEN)) {
        expect(p, K_THREADS, "after `then` (a finish is `then threads t in T { }`)");
        parse_shape(p, &n->coop.fvars, &n->coop.fext, "threads");
        n->coop.finish = parse_block(p, "after the shape of the finish");
    }
    return n;
}

/* unsafe = "unsafe" block */
static Node *parse_unsafe(Parser *p)
{
    Node *n = node_new(p->arena, N_UNSAFE, advance(p)->span);
    Node *b = parse_block(p, "after `unsafe`");
    n->block = b->block;
    return n;
}

/* asm = "asm" NAME ["[" NAME "]"] STRING ["(" [expr {"," expr}] ")"]
 *       ["->" "(" param {"," param} ")"] ["effects" "(" NAME {"," NAME} ")"] ";" */
static Node *parse_asm(Parser *p)
{
    Node *n = node_new(p->arena, N_ASM, advance(p)->span);
    n->asm_.dialect = expect_name(p, "the assembly dialect", "after `asm` (`asm ptx ...`)");
    if (accept(p, T_LBRACK)) {
        n->asm_.min_target = expect_name(p, "a target such as sm_80", "in `asm ptx[...]`");
        expect(p, T_RBRACK, "after the target");
    }
    if (at(p, T_STRING))
        n->asm_.tpl = advance(p)->sval;
    else
        expected(p, "the template string", "of `asm`", NULL);
    if (at(p, T_LPAREN))
        parse_args(p, &n->asm_.ins);
    if (accept(p, T_ARROW)) {
        expect(p, T_LPAREN, "before the outputs of `asm`");
        while (!at(p, T_RPAREN) && !at(p, T_EOF) && !p->panic) {
            vec_push(p->arena, &n->asm_.outs, parse_param(p, "in the outputs of `asm`"));
            if (!accept(p, T_COMMA))
                break;
        }
        expect(p, T_RPAREN, "to close the outputs");
    }
    if (accept(p, K_EFFECTS)) {
        expect(p, T_LPAREN, "after `effects`");
        while (!at(p, T_RPAREN) && !at(p, T_EOF) && !p->panic) {
            vec_push(p->arena, &n->asm_.effects, (void *)expect_name(p, "an effect name", "in `effects(...)`"));
            if (!accept(p, T_COMMA))
                break;
        }
        expect(p, T_RPAREN, "to close the effects");
    }
    expect_semi(p, "after `asm`");
    return n;
}

/* lock = "lock" expr block */
static Node *parse_lock(Parser *p)
{
    Node *n = node_new(p->arena, N_LOCK, advance(p)->span);
    n->lock.lock = parse_expr(p);
    n->lock.body = parse_block(p, "after the lock");
    return n;
}

/* launch = "launch" "(" expr "," expr ")" postfix ";"   (the postfix a call) */
static Node *parse_launch(Parser *p)
{
    Node *n = node_new(p->arena, N_LAUNCH, advance(p)->span);
    expect(p, T_LPAREN, "after `launch` (`launch(grid, threads) k(args);`)");
    n->launch.grid = parse_expr(p);
    expect(p, T_COMMA, "after the grid of `launch`");
    n->launch.threads = parse_expr(p);
    expect(p, T_RPAREN, "after the threads of `launch`");
    Token t = *peek(p);   /* a copy: reported after the postfix is parsed */
    n->launch.call = parse_postfix(p);
    if (n->launch.call->kind != N_CALL && !p->panic)
        report(p, &t, NULL, "expected a call of an extern kernel after `launch(grid, threads)`");
    expect_semi(p, "after `launch`");
    return n;
}

/* return = "return" [expr] ";" */
static Node *parse_return(Parser *p)
{
    Node *n = node_new(p->arena, N_RETURN, advance(p)->span);
    if (!at(p, T_SEMI))
        n->unary.a = parse_expr(p);
    expect_semi(p, "after `return`");
    return n;
}

/* "break" ";" | "continue" ";" | "barrier" ";" */
static Node *parse_word_stmt(Parser *p, NodeKind k)
{
    Token *t = advance(p);
    Node *n = node_new(p->arena, k, t->span);
    expect_kw(p, T_SEMI, "after `%s`", tok_name(t->kind));
    return n;
}

static bool is_assign_op(TokKind k)
{
    return k == T_ASSIGN || k == T_PLUSEQ || k == T_MINUSEQ || k == T_STAREQ || k == T_SLASHEQ ||
           k == T_PERCENTEQ;
}

/* simple = expr [("=" | "+=" | "-=" | "*=" | "/=" | "%=") expr] ";" */
static Node *parse_simple(Parser *p)
{
    Token start = *peek(p);   /* a copy: used after the expression is parsed */
    Node *e = parse_expr(p);
    if (is_assign_op(peek(p)->kind) && !p->panic) {
        Token *op = advance(p);
        if (e->kind != N_NAME && e->kind != N_INDEX && e->kind != N_FIELD)
            report(p, &start, "assign to a name `x`, an element `x[i]` or a field",
                     arena_printf(p->arena, "cannot assign to this expression with `%s`", tok_name(op->kind)));
        Node *n = node_new(p->arena, N_ASSIGN, op->span);
        n->assign.op = op->kind;
        n->assign.lhs = e;
        n->assign.rhs = parse_expr(p);
        expect_semi(p, "after the assignment");
        return n;
    }
    Node *n = node_new(p->arena, N_EXPR_STMT, start.span);
    n->unary.a = e;
    expect_semi(p, "after the expression");
    return n;
}

/* stmt = let | buffer | shared | pipeline | if | for | while | parallel | coop
 *      | unsafe | asm | lock | launch | return | block
 *      | "break" ";" | "continue" ";" | "barrier" ";" | simple */
static Node *parse_stmt(Parser *p)
{
    switch (peek(p)->kind) {
    case K_LET: return parse_let(p);
    case K_BUFFER: return parse_buffer(p);
    case K_SHARED: return parse_shared(p);
    case K_PIPELINE: return parse_pipeline(p);
    case K_IF: return parse_if(p);
    case K_FOR: return parse_for(p);
    case K_WHILE: return parse_while(p);
    case K_PARALLEL: return parse_parallel(p);
    case K_BLOCKS: return parse_coop(p);
    case K_UNSAFE: return parse_unsafe(p);
    case K_ASM: return parse_asm(p);
    case K_LOCK: return parse_lock(p);
    case K_LAUNCH: return parse_launch(p);
    case K_RETURN: return parse_return(p);
    case K_BREAK: return parse_word_stmt(p, N_BREAK);
    case K_CONTINUE: return parse_word_stmt(p, N_CONTINUE);
    case K_BARRIER: return parse_word_stmt(p, N_BARRIER);
    case T_LBRACE: return parse_block(p, NULL);
    case K_ELSE:
        error_at(p, peek(p), "`else` follows the `}` of an `if`", "found `else` without an `if`");
        return NULL;
    default: return parse_simple(p);
    }
}

/* ------------------------------------------------------ declarations */

/* generics = "[" param {"," param} "]" */
static void parse_generics(Parser *p, Vec *out)
{
    advance(p);
    while (!at(p, T_RBRACK) && !at(p, T_EOF) && !p->panic) {
        vec_push(p->arena, out, parse_param(p, "in the compile-time parameters (`[D:nat]`)"));
        if (!accept(p, T_COMMA))
            break;
    }
    expect(p, T_RBRACK, "to close the compile-time parameters");
}

/* body = block | "=" expr ";" | ";"   (";" for an extern kernel only) */
static void parse_fn_body(Parser *p, Node *n)
{
    if (n->fn.is_extern) {
        if (!accept(p, T_SEMI))
            expected(p, "`;`", "after an extern function's signature", "an extern kernel has no body here");
        return;
    }
    if (accept(p, T_ASSIGN)) {
        n->fn.body = parse_expr(p);
        n->fn.expr_body = true;
        expect_semi(p, "after the function's expression body");
    } else if (at(p, T_LBRACE)) {
        n->fn.body = parse_block(p, NULL);
    } else {
        expected(p, "`{` or `=`", "before the function body", NULL);
    }
}

/* fn = ["kernel" | "extern" ["kernel"] | "test"] "fn" NAME [generics] params ["->" type] body */
static Node *parse_fn(Parser *p)
{
    Node *n = node_new(p->arena, N_FN, peek(p)->span);
    n->fn.id = "<error>";
    if (accept(p, K_KERNEL)) {
        n->fn.is_kernel = true;
    } else if (accept(p, K_EXTERN)) {
        n->fn.is_extern = true;
        n->fn.is_kernel = accept(p, K_KERNEL);
    } else if (accept(p, K_TEST)) {
        n->fn.is_test = true;
    }
    if (!expect(p, K_FN, "to start a function"))
        return n;
    n->fn.id = expect_name(p, "the function's name", "after `fn`");
    if (at(p, T_LBRACK))
        parse_generics(p, &n->fn.generics);
    parse_params(p, &n->fn.params);
    if (accept(p, T_ARROW))
        n->fn.ret = parse_type(p);
    if (!p->panic)
        parse_fn_body(p, n);
    return n;
}

/* const = "const" NAME [":" type] "=" expr ";"
 * layout = "layout" NAME "=" expr ";" */
static Node *parse_const(Parser *p)
{
    Token t = *advance(p);   /* a copy: named again after the type and value */
    TokKind kw = t.kind;
    Node *n = node_new(p->arena, kw == K_CONST ? N_CONST : N_LAYOUT, t.span);
    n->let.id = expect_name_kw(p, "a name", "after `%s`", tok_name(kw));
    if (kw == K_CONST && accept(p, T_COLON))
        n->let.type = parse_type(p);
    expect_kw(p, T_ASSIGN, "in `%s`", tok_name(kw));
    n->let.init = parse_expr(p);
    expect_kw(p, T_SEMI, "after the `%s`", tok_name(kw));
    return n;
}

/* derive = "derive" NAME ["[" NAME {"," NAME} "]"] "for" NAME ";" */
static Node *parse_derive(Parser *p)
{
    Node *n = node_new(p->arena, N_DERIVE, advance(p)->span);
    n->derive.what = expect_name(p, "what to derive (`grad`)", "after `derive`");
    if (accept(p, T_LBRACK)) {
        n->derive.has_list = true;
        while (!at(p, T_RBRACK) && !at(p, T_EOF) && !p->panic) {
            vec_push(p->arena, &n->derive.only, (void *)expect_name(p, "a parameter name", "in `derive grad[...]`"));
            if (!accept(p, T_COMMA))
                break;
        }
        expect(p, T_RBRACK, "to close the parameter list");
    }
    expect(p, K_FOR, "in `derive` (`derive grad for f;`)");
    n->derive.target = expect_name(p, "a function name", "after `for`");
    expect_semi(p, "after `derive`");
    return n;
}

/* plan_item = NAME [expr {"," expr}] ";" */
static Node *parse_plan_item(Parser *p)
{
    Node *n = node_new(p->arena, N_PLAN_ITEM, peek(p)->span);
    n->plan_item.id = expect_name(p, "a plan item (`vector 4;`, `unroll 2;`, `fuse;`, `staged;`)", NULL);
    if (!at(p, T_SEMI) && !p->panic) {
        do
            vec_push(p->arena, &n->plan_item.args, parse_expr(p));
        while (!p->panic && accept(p, T_COMMA));
    }
    expect_semi(p, "after the plan item");
    return n;
}

/* plan = "plan" NAME "{" {plan_item} "}" */
static Node *parse_plan(Parser *p)
{
    Node *n = node_new(p->arena, N_PLAN, advance(p)->span);
    n->plan.target = expect_name(p, "a function name", "after `plan`");
    if (!expect(p, T_LBRACE, "after the plan's function"))
        return n;
    while (!at(p, T_RBRACE) && !at(p, T_EOF) && !at_decl_start(p)) {
        int before = p->pos;
        vec_push(p->arena, &n->plan.items, parse_plan_item(p));
        if (p->panic) {
            sync_stmt(p);
            if (at_decl_start(p))
                return n;
            p->panic = false;
        }
        if (p->pos == before)
            advance(p);
    }
    expect(p, T_RBRACE, "to close the plan");
    return n;
}

/* decl = fn | const | layout | derive | plan */
static Node *parse_decl(Parser *p)
{
    switch (peek(p)->kind) {
    case K_FN: case K_KERNEL: case K_EXTERN: case K_TEST: return parse_fn(p);
    case K_CONST: case K_LAYOUT: return parse_const(p);
    case K_DERIVE: return parse_derive(p);
    case K_PLAN: return parse_plan(p);
    default:
        expected(p, "a declaration", NULL,
                 "a file holds `fn`, `kernel fn`, `extern kernel fn`, `test fn`, `const`, `layout`, "
                 "`derive` and `plan` declarations");
        return NULL;
    }
}

/* program = {decl} EOF */
static Node *parse_all(Parser *p)
{
    p->ring = arena_alloc(p->arena, RING_MIN * sizeof *p->ring);
    p->mask = RING_MIN - 1;
    p->cur = tok_at(p, 0);
    Node *prog = node_new(p->arena, N_PROGRAM, peek(p)->span);
    while (!at(p, T_EOF)) {
        int before = p->pos;
        Node *d = parse_decl(p);
        if (d)
            vec_push(p->arena, &prog->block.stmts, d);
        if (p->panic) {
            if (p->pos == before)
                advance(p);
            sync_top(p);
            p->panic = false;
        }
    }
    return prog;
}

Node *parse_program(Arena *a, Sink *s, TokenList toks)
{
    Parser p = {.arena = a, .sink = s, .list = toks.v, .list_n = toks.n};
    return parse_all(&p);
}

Node *parse_source(Arena *a, Sink *s, const Source *src)
{
    Parser p = {.arena = a, .sink = s, .lx = lex_open(a, s, src)};
    return parse_all(&p);
}
