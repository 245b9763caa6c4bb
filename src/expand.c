/*
 * expand.c: the AST back to CAIRN source, and the tree utilities that walk
 * every node kind (structural equality, deep copy, kind names).
 *
 * The printer's contract is the round trip: parse(expand(parse(S))) is
 * ast_equal to parse(S) for every program S. Comments and spacing are not
 * in the tree, so they do not survive; everything else does. To keep that
 * promise:
 *
 *   - Parentheses come from precedence, never from the source: an operand
 *     is wrapped exactly when its own precedence is below what its position
 *     needs (the right side of a left-associative operator needs one more,
 *     and both sides of a comparison, which does not chain, need one more).
 *   - Open-ended forms (a collector's `yield e`, a closure's `= e`,
 *     `spawn`) reach as far right as the parser can go, so they get the
 *     lowest precedence of all and are wrapped wherever they are an operand.
 *   - Literals print the text as written (`0x3555`, `1_000`, `2.50`), so a
 *     float reads back to the same bits; -2 stays a unary minus on 2.
 *   - A compile-time argument that is an expression but would read back as
 *     a type (`f32`, or `a < b`, `a[0]`) is wrapped in parentheses.
 *
 * One printer serves both outputs: a FILE (expand_program) or a growing
 * arena string (expand_expr).
 */
#include "chain.h"

#include <string.h>

static const char *const node_kind_names[] = {
#define X(id, m) #id,
    NODE_KINDS(X)
#undef X
};

const char *node_kind_name(NodeKind k)
{
    if ((int)k < 0 || k >= N_NKINDS)
        return "?";
    return node_kind_names[k];
}

/* ------------------------------------------------------------ printer */

typedef struct {
    FILE *out;            /* or, when NULL, the arena string below */
    Arena *arena;
    char *buf;
    size_t len, cap;
    int indent;
    size_t max;           /* the string stops growing past this (0: no limit) */
    bool cut;             /* ... and it did: the walk stops where it can */
} Printer;

static void put(Printer *pr, const char *fmt, ...)
{
    if (pr->max && pr->len >= pr->max) {
        pr->cut = true;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    if (pr->out) {
        vfprintf(pr->out, fmt, ap);
        va_end(ap);
        return;
    }
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (pr->len + (size_t)n + 1 > pr->cap) {
        size_t cap = pr->cap ? pr->cap * 2 : 64;
        while (cap < pr->len + (size_t)n + 1)
            cap *= 2;
        char *nb = arena_alloc(pr->arena, cap);
        if (pr->len)
            memcpy(nb, pr->buf, pr->len);
        pr->buf = nb;
        pr->cap = cap;
    }
    vsnprintf(pr->buf + pr->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    pr->len += (size_t)n;
}

static void put_indent(Printer *pr)
{
    for (int i = 0; i < pr->indent; i++)
        put(pr, "    ");
}

/* Precedence for printing: the parser's levels, plus the open forms below
 * everything and the unary and postfix levels above. */
enum {
    P_OPEN, P_OR, P_AND, P_CMP, P_BOR, P_BXOR, P_BAND, P_ADD, P_MUL, P_UNARY, P_POSTFIX
};

static int binary_prec(TokKind k)
{
    switch (k) {
    case T_OROR: return P_OR;
    case T_ANDAND: return P_AND;
    case T_EQ: case T_NE: case T_LT: case T_GT: case T_LE: case T_GE: return P_CMP;
    case T_PIPE: return P_BOR;
    case T_CARET: return P_BXOR;
    case T_AMP: return P_BAND;
    case T_PLUS: case T_MINUS: return P_ADD;
    default: return P_MUL;
    }
}

static int expr_prec(const Node *e)
{
    switch (e->kind) {
    case N_BINARY: return binary_prec(e->binary.op);
    case N_UNARY: return P_UNARY;
    case N_COLLECT: case N_SPAWN: return P_OPEN;
    case N_CLOSURE: return e->fn.expr_body ? P_OPEN : P_POSTFIX;
    default: return P_POSTFIX;
    }
}

static void print_expr(Printer *pr, const Node *e, int need);
static void print_type(Printer *pr, const Node *t);
static void print_block(Printer *pr, const Node *b);
static void print_stmts(Printer *pr, const Vec *stmts);

static void print_full(Printer *pr, const Node *e) { print_expr(pr, e, P_OPEN); }

static void print_list(Printer *pr, const Vec *v)
{
    for (int i = 0; i < v->n && !pr->cut; i++) {
        if (i)
            put(pr, ", ");
        print_full(pr, v->v[i]);
    }
}

static void print_names(Printer *pr, const Vec *v)
{
    for (int i = 0; i < v->n; i++)
        put(pr, "%s%s", i ? ", " : "", (const char *)v->v[i]);
}

static bool is_scalar_name(const char *s)
{
    static const char *const names[] = {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32",
                                        "u64", "usize", "f32", "f64", "f16", "bf16", "f8e4m3",
                                        "f8e5m2", "ro", "rw"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i]))
            return true;
    return false;
}

/* Whether an expression, printed bare among compile-time arguments, would
 * read back as a type: it starts with a type name, `fn`, or a name that a
 * `[` or `<` follows. */
static bool targ_reads_as_type(const Node *e)
{
    switch (e->kind) {
    case N_NAME: return is_scalar_name(e->name.id);
    case N_CLOSURE: return true;
    case N_BINARY:
        for (; e->kind == N_BINARY; e = e->binary.a) {   /* down a chain: no recursion */
            if (expr_prec(e->binary.a) < binary_prec(e->binary.op))
                return false;      /* the left side is parenthesised */
            if (e->binary.op == T_LT && e->binary.a->kind == N_NAME)
                return true;
        }
        return targ_reads_as_type(e);
    case N_INDEX: return e->index.base->kind == N_NAME || targ_reads_as_type(e->index.base);
    case N_SLICE: return e->slice.base->kind == N_NAME || targ_reads_as_type(e->slice.base);
    case N_CALL:
        if (e->call.has_targs && e->call.callee->kind == N_NAME)
            return true;
        if (e->call.callee->kind == N_NAME && is_scalar_name(e->call.callee->name.id))
            return false;      /* a conversion `f32(x)` reads as an expression */
        return targ_reads_as_type(e->call.callee);
    case N_FIELD: return targ_reads_as_type(e->field.base);
    default: return false;
    }
}

static void print_targ(Printer *pr, const Node *a)
{
    if (a->kind == N_TYPE) {
        print_type(pr, a);
    } else if (targ_reads_as_type(a)) {
        put(pr, "(");
        print_full(pr, a);
        put(pr, ")");
    } else {
        print_full(pr, a);
    }
}

static void print_targs(Printer *pr, const Vec *v)
{
    put(pr, "[");
    for (int i = 0; i < v->n; i++) {
        if (i)
            put(pr, ", ");
        print_targ(pr, v->v[i]);
    }
    put(pr, "]");
}

static const char *place_word(Placement p)
{
    static const char *const words[] = {"host", "pinned", "unified", "device"};
    return (int)p >= 0 && p <= PLACE_DEVICE ? words[p] : "host";
}

/* ro<T>[n]@P | rw<T> | fn(A, B) -> R | NAME[args] | NAME */
static void print_type(Printer *pr, const Node *t)
{
    if (!t || t->kind != N_TYPE) {
        print_full(pr, t);
        return;
    }
    const char *id = t->type.id ? t->type.id : "<error>";
    if (t->type.access != ACC_NONE) {
        put(pr, "%s<", t->type.access == ACC_RO ? "ro" : "rw");
        if (t->type.elem)
            print_type(pr, t->type.elem);
        put(pr, ">");
        if (t->type.extent) {
            put(pr, "[");
            print_full(pr, t->type.extent);
            put(pr, "]");
            if (t->type.place_written)
                put(pr, "@%s", place_word(t->type.place));
        }
        return;
    }
    if (!strcmp(id, "fn")) {
        put(pr, "fn(");
        for (int i = 0; i < t->type.args.n; i++) {
            if (i)
                put(pr, ", ");
            print_type(pr, t->type.args.v[i]);
        }
        put(pr, ")");
        if (t->type.ret) {
            put(pr, " -> ");
            print_type(pr, t->type.ret);
        }
        return;
    }
    put(pr, "%s", id);
    if (t->type.args.n)
        print_targs(pr, &t->type.args);
}

static void print_params(Printer *pr, const Vec *v)
{
    for (int i = 0; i < v->n; i++) {
        const Node *prm = v->v[i];
        if (i)
            put(pr, ", ");
        put(pr, "%s:", prm->param.id);
        print_type(pr, prm->param.type);
    }
}

static void print_string_lit(Printer *pr, const Node *e)
{
    if (e->lit.text) {
        put(pr, "%s", e->lit.text);
        return;
    }
    put(pr, "\"");
    for (const char *s = e->lit.sval ? e->lit.sval : ""; *s; s++) {
        switch (*s) {
        case '\n': put(pr, "\\n"); break;
        case '\t': put(pr, "\\t"); break;
        case '\\': put(pr, "\\\\"); break;
        case '"': put(pr, "\\\""); break;
        default: put(pr, "%c", *s); break;
        }
    }
    put(pr, "\"");
}

static void print_float_lit(Printer *pr, const Node *e)
{
    if (e->lit.text) {
        put(pr, "%s", e->lit.text);
        return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", e->lit.fval);
    put(pr, "%s%s", buf, strpbrk(buf, ".eEn") ? "" : ".0");
}

static void print_collect(Printer *pr, const Node *e)
{
    static const char *const kw[] = {"reduce", "scan", "compact"};
    put(pr, "%s", kw[e->collect.kind]);
    if (e->collect.kind != COLLECT_COMPACT)
        put(pr, " %s", e->collect.op);
    if (e->collect.dest) {
        put(pr, " ");
        print_expr(pr, e->collect.dest, P_POSTFIX);
    }
    if (e->collect.mode == MODE_WARP) {
        put(pr, " warp");
    } else {
        put(pr, " %s %s in ", e->collect.mode == MODE_FOR ? "for" : "parallel", e->collect.var);
        print_full(pr, e->collect.extent);
    }
    if (e->collect.keep) {
        put(pr, " if ");
        print_full(pr, e->collect.keep);
    }
    put(pr, " yield ");
    print_full(pr, e->collect.value);
}

static void print_after(Printer *pr, const Vec *after)
{
    if (!after->n)
        return;
    put(pr, " after ");
    print_list(pr, after);
}

static void print_spawn(Printer *pr, const Node *e)
{
    const Node *w = e->spawn.work;
    put(pr, "spawn ");
    if (w->kind == N_PARALLEL) {
        put(pr, "parallel %s in ", w->loop.var);
        print_full(pr, w->loop.hi);
        print_after(pr, &e->spawn.after);
        put(pr, " ");
        print_block(pr, w->loop.body);
        return;
    }
    print_expr(pr, w, P_POSTFIX);
    print_after(pr, &e->spawn.after);
}

static void print_closure(Printer *pr, const Node *e)
{
    put(pr, "fn(");
    print_params(pr, &e->fn.params);
    put(pr, ")");
    if (e->fn.ret) {
        put(pr, " -> ");
        print_type(pr, e->fn.ret);
    }
    if (e->fn.expr_body) {
        put(pr, " = ");
        print_full(pr, e->fn.body);
    } else {
        put(pr, " ");
        print_block(pr, e->fn.body);
    }
}

static void print_call(Printer *pr, const Node *e)
{
    print_expr(pr, e->call.callee, P_POSTFIX);
    if (e->call.has_targs)
        print_targs(pr, &e->call.targs);
    put(pr, "(");
    print_list(pr, &e->call.args);
    put(pr, ")");
}

/* The precedence the left operand of op needs: its own (left-associative),
 * one more after a comparison (comparisons do not chain). */
static int left_need(TokKind op)
{
    int prec = binary_prec(op);
    return prec == P_CMP ? prec + 1 : prec;
}

/* A chain (chain.h), wrapped when its top's precedence is below `need`: the
 * parentheses its spine needs open on the way down, the leaf, then each
 * operator and right operand, closing on the way up. */
static void print_chain(Printer *pr, const Node *top, int need)
{
    Spine sp;
    const Node *leaf = spine_of(&sp, top);
    int below = need;     /* what the node being passed asks of its left operand */
    for (int i = 0; i < sp.n; i++) {
        if (binary_prec(sp.v[i]->binary.op) < below)
            put(pr, "(");
        below = left_need(sp.v[i]->binary.op);
    }
    print_expr(pr, leaf, below);
    for (int i = sp.n - 1; i >= 0 && !pr->cut; i--) {
        const Node *e = sp.v[i];
        int prec = binary_prec(e->binary.op);
        put(pr, " %s ", tok_name(e->binary.op));
        print_expr(pr, e->binary.b, prec + 1);
        if (prec < (i ? left_need(sp.v[i - 1]->binary.op) : need))
            put(pr, ")");
    }
    spine_free(&sp);
}

/* One expression; wrapped in parentheses when its precedence is below `need`. */
static void print_expr(Printer *pr, const Node *e, int need)
{
    if (!e) {
        put(pr, "<missing>");
        return;
    }
    if (e->kind == N_BINARY) {
        print_chain(pr, e, need);
        return;
    }
    bool paren = expr_prec(e) < need;
    if (paren)
        put(pr, "(");
    switch (e->kind) {
    case N_INT:
        if (e->lit.text)
            put(pr, "%s", e->lit.text);
        else
            put(pr, "%llu", (unsigned long long)e->lit.ival);
        break;
    case N_FLOAT: print_float_lit(pr, e); break;
    case N_BOOL: put(pr, "%s", e->lit.bval ? "true" : "false"); break;
    case N_STRING: print_string_lit(pr, e); break;
    case N_NAME: put(pr, "%s", e->name.id); break;
    case N_UNARY:
        put(pr, "%s", tok_name(e->unary.op));
        print_expr(pr, e->unary.a, P_UNARY);
        break;
    case N_CALL: print_call(pr, e); break;
    case N_INDEX:
        print_expr(pr, e->index.base, P_POSTFIX);
        put(pr, "[");
        print_full(pr, e->index.index);
        put(pr, "]");
        break;
    case N_SLICE:
        print_expr(pr, e->slice.base, P_POSTFIX);
        put(pr, "[");
        print_full(pr, e->slice.lo);
        put(pr, "..");
        print_full(pr, e->slice.hi);
        put(pr, "]");
        break;
    case N_FIELD:
        print_expr(pr, e->field.base, P_POSTFIX);
        put(pr, ".%s", e->field.id);
        break;
    case N_COLLECT: print_collect(pr, e); break;
    case N_SPAWN: print_spawn(pr, e); break;
    case N_CLOSURE: print_closure(pr, e); break;
    case N_TASK:
        put(pr, "task ");
        print_block(pr, e);
        break;
    case N_TYPE: print_type(pr, e); break;
    default: put(pr, "<%s>", node_kind_name(e->kind)); break;
    }
    if (paren)
        put(pr, ")");
}

/* --------------------------------------------------------- statements */

/* "{", the statements one a line, "}" at the current indentation. Works for
 * every kind with a `block` member. */
static void print_block(Printer *pr, const Node *b)
{
    put(pr, "{\n");
    pr->indent++;
    if (b)
        print_stmts(pr, &b->block.stmts);
    pr->indent--;
    put_indent(pr);
    put(pr, "}");
}

static void print_storage(Printer *pr, const Node *s)
{
    static const char *const kw[] = {"buffer", "shared", "pipeline"};
    put(pr, "%s %s:", kw[s->kind - N_BUFFER], s->buffer.id);
    print_type(pr, s->buffer.elem);
    put(pr, "[");
    print_full(pr, s->buffer.size);
    put(pr, "]");
    if (s->kind == N_BUFFER && s->buffer.place_written)
        put(pr, "@%s", place_word(s->buffer.place));
    if (s->kind == N_PIPELINE) {
        put(pr, " depth ");
        print_full(pr, s->buffer.depth);
    } else if (s->buffer.zeroed || s->kind == N_BUFFER) {
        put(pr, " = zeroed");
    }
    put(pr, ";");
}

static void print_let(Printer *pr, const Node *s)
{
    const char *kw = s->kind == N_LET ? "let" : s->kind == N_CONST ? "const" : "layout";
    put(pr, "%s %s%s", kw, s->let.mut ? "mut " : "", s->let.id);
    if (s->let.type) {
        put(pr, ":");
        print_type(pr, s->let.type);
    }
    put(pr, " = ");
    print_full(pr, s->let.init);
    put(pr, ";");
}

/* if c { } else if d { } else { }: an else-if chain by a loop, however long */
static void print_if(Printer *pr, const Node *s)
{
    for (;;) {
        put(pr, "if ");
        print_full(pr, s->if_.cond);
        put(pr, " ");
        print_block(pr, s->if_.then);
        if (!s->if_.els)
            return;
        put(pr, " else ");
        if (s->if_.els->kind != N_IF) {
            print_block(pr, s->if_.els);
            return;
        }
        s = s->if_.els;
    }
}

static void print_shape(Printer *pr, const Vec *vars, const Vec *exts)
{
    print_names(pr, vars);
    put(pr, " in ");
    print_list(pr, exts);
}

static void print_coop(Printer *pr, const Node *s)
{
    put(pr, "blocks ");
    print_shape(pr, &s->coop.bvars, &s->coop.bext);
    put(pr, " threads ");
    print_shape(pr, &s->coop.tvars, &s->coop.text);
    put(pr, " ");
    print_block(pr, s->coop.body);
    if (s->coop.finish) {
        put(pr, " then threads ");
        print_shape(pr, &s->coop.fvars, &s->coop.fext);
        put(pr, " ");
        print_block(pr, s->coop.finish);
    }
}

static void print_asm(Printer *pr, const Node *s)
{
    put(pr, "asm %s", s->asm_.dialect);
    if (s->asm_.min_target)
        put(pr, "[%s]", s->asm_.min_target);
    Node lit = {.kind = N_STRING};
    lit.lit.sval = s->asm_.tpl;
    put(pr, " ");
    print_string_lit(pr, &lit);
    if (s->asm_.ins.n) {
        put(pr, " (");
        print_list(pr, &s->asm_.ins);
        put(pr, ")");
    }
    if (s->asm_.outs.n) {
        put(pr, " -> (");
        print_params(pr, &s->asm_.outs);
        put(pr, ")");
    }
    if (s->asm_.effects.n) {
        put(pr, " effects(");
        print_names(pr, &s->asm_.effects);
        put(pr, ")");
    }
    put(pr, ";");
}

static void print_assign(Printer *pr, const Node *s)
{
    print_full(pr, s->assign.lhs);
    put(pr, " %s ", tok_name(s->assign.op));
    print_full(pr, s->assign.rhs);
    put(pr, ";");
}

static void print_loop(Printer *pr, const Node *s)
{
    if (s->kind == N_FOR) {
        put(pr, "for %s in ", s->loop.var);
        print_full(pr, s->loop.lo);
        put(pr, "..");
        print_full(pr, s->loop.hi);
    } else if (s->kind == N_WHILE) {
        put(pr, "while ");
        print_full(pr, s->loop.cond);
    } else {
        put(pr, "parallel %s in ", s->loop.var);
        print_full(pr, s->loop.hi);
    }
    put(pr, " ");
    print_block(pr, s->loop.body);
}

static void print_launch(Printer *pr, const Node *s)
{
    put(pr, "launch(");
    print_full(pr, s->launch.grid);
    put(pr, ", ");
    print_full(pr, s->launch.threads);
    put(pr, ") ");
    print_expr(pr, s->launch.call, P_POSTFIX);
    put(pr, ";");
}

/* One statement, without indentation or newline. */
static void print_stmt(Printer *pr, const Node *s)
{
    switch (s->kind) {
    case N_BLOCK: print_block(pr, s); break;
    case N_LET: print_let(pr, s); break;
    case N_BUFFER: case N_SHARED: case N_PIPELINE: print_storage(pr, s); break;
    case N_ASSIGN: print_assign(pr, s); break;
    case N_EXPR_STMT:
        print_full(pr, s->unary.a);
        put(pr, ";");
        break;
    case N_IF: print_if(pr, s); break;
    case N_FOR: case N_WHILE: case N_PARALLEL: print_loop(pr, s); break;
    case N_BREAK: put(pr, "break;"); break;
    case N_CONTINUE: put(pr, "continue;"); break;
    case N_BARRIER: put(pr, "barrier;"); break;
    case N_RETURN:
        put(pr, "return");
        if (s->unary.a) {
            put(pr, " ");
            print_full(pr, s->unary.a);
        }
        put(pr, ";");
        break;
    case N_COOP: print_coop(pr, s); break;
    case N_UNSAFE:
        put(pr, "unsafe ");
        print_block(pr, s);
        break;
    case N_ASM: print_asm(pr, s); break;
    case N_LOCK:
        put(pr, "lock ");
        print_full(pr, s->lock.lock);
        put(pr, " ");
        print_block(pr, s->lock.body);
        break;
    case N_LAUNCH: print_launch(pr, s); break;
    default:
        print_full(pr, s);
        put(pr, ";");
        break;
    }
}

static void print_stmts(Printer *pr, const Vec *stmts)
{
    for (int i = 0; i < stmts->n && !pr->cut; i++) {
        put_indent(pr);
        print_stmt(pr, stmts->v[i]);
        put(pr, "\n");
    }
}

/* ------------------------------------------------------- declarations */

static void print_fn(Printer *pr, const Node *f)
{
    if (f->fn.is_extern)
        put(pr, "extern ");
    if (f->fn.is_kernel)
        put(pr, "kernel ");
    if (f->fn.is_test)
        put(pr, "test ");
    put(pr, "fn %s", f->fn.id);
    if (f->fn.generics.n) {
        put(pr, "[");
        print_params(pr, &f->fn.generics);
        put(pr, "]");
    }
    put(pr, "(");
    print_params(pr, &f->fn.params);
    put(pr, ")");
    if (f->fn.ret) {
        put(pr, " -> ");
        print_type(pr, f->fn.ret);
    }
    if (!f->fn.body) {
        put(pr, ";");
    } else if (f->fn.expr_body) {
        put(pr, " = ");
        print_full(pr, f->fn.body);
        put(pr, ";");
    } else {
        put(pr, " ");
        print_block(pr, f->fn.body);
    }
}

static void print_derive(Printer *pr, const Node *d)
{
    put(pr, "derive %s", d->derive.what);
    if (d->derive.has_list) {
        put(pr, "[");
        print_names(pr, &d->derive.only);
        put(pr, "]");
    }
    put(pr, " for %s;", d->derive.target);
    if (!d->derive.made)
        return;
    /* what the checker wrote for it (cairn expand checks a program with derives), as comment lines:
     * the source stays the same program when parsed back */
    Arena *a = arena_new();
    Printer fp = {.arena = a};
    print_fn(&fp, d->derive.made);
    put(pr, "\n// written by derive grad:");
    for (const char *p = fp.buf, *e; p && *p; p = *e ? e + 1 : e) {
        e = strchr(p, '\n');
        if (!e)
            e = p + strlen(p);
        put(pr, "\n// %.*s", (int)(e - p), p);
    }
    arena_free(a);
}

static void print_plan(Printer *pr, const Node *pl)
{
    put(pr, "plan %s {\n", pl->plan.target);
    for (int i = 0; i < pl->plan.items.n; i++) {
        const Node *it = pl->plan.items.v[i];
        put(pr, "    %s", it->plan_item.id);
        if (it->plan_item.args.n) {
            put(pr, " ");
            print_list(pr, &it->plan_item.args);
        }
        put(pr, ";\n");
    }
    put(pr, "}");
}

static void print_decl(Printer *pr, const Node *d)
{
    switch (d->kind) {
    case N_FN: print_fn(pr, d); break;
    case N_CONST: case N_LAYOUT: print_let(pr, d); break;
    case N_DERIVE: print_derive(pr, d); break;
    case N_PLAN: print_plan(pr, d); break;
    default: print_stmt(pr, d); break;
    }
    put(pr, "\n");
}

void expand_program(FILE *out, const Node *prog)
{
    Printer pr = {.out = out};
    const Vec *ds = &prog->block.stmts;
    for (int i = 0; i < ds->n; i++) {
        const Node *d = ds->v[i];
        const Node *prev = i ? ds->v[i - 1] : NULL;
        if (d->kind == N_FN && d->fn.derived)
            continue;   /* printed as comments after its derive */
        /* A blank line around functions and plans; consts, layouts and
         * derives of one kind stay together. */
        if (prev && (d->kind == N_FN || d->kind == N_PLAN || prev->kind != d->kind))
            put(&pr, "\n");
        print_decl(&pr, d);
    }
}

const char *expand_expr(Arena *a, const Node *e)
{
    return expand_expr_short(a, e, 0);
}

const char *expand_expr_short(Arena *a, const Node *e, size_t max)
{
    Printer pr = {.arena = a, .max = max};
    if (e && e->kind == N_TYPE)
        print_type(&pr, e);
    else
        print_full(&pr, e);
    if (!pr.buf)
        return "";
    if (max && pr.len > max) {
        pr.cut = true;
        pr.len = max;
    }
    if (pr.cut)
        return arena_printf(a, "%.*s...", (int)pr.len, pr.buf);
    return pr.buf;
}

/* ---------------------------------------------------------- ast_equal */

static bool str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return !strcmp(a, b);
}

static bool vec_eq(const Vec *a, const Vec *b)
{
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++)
        if (!ast_equal(a->v[i], b->v[i]))
            return false;
    return true;
}

static bool names_eq(const Vec *a, const Vec *b)
{
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++)
        if (!str_eq(a->v[i], b->v[i]))
            return false;
    return true;
}

static bool lit_eq(const Node *a, const Node *b)
{
    switch (a->kind) {
    case N_INT: return a->lit.ival == b->lit.ival && a->lit.overflow == b->lit.overflow;
    case N_FLOAT: return a->lit.fval == b->lit.fval;
    case N_BOOL: return a->lit.bval == b->lit.bval;
    case N_STRING: return str_eq(a->lit.sval, b->lit.sval);
    default: return true;   /* break, continue, barrier */
    }
}

static bool type_eq(const Node *a, const Node *b)
{
    return str_eq(a->type.id, b->type.id) && a->type.access == b->type.access &&
           ast_equal(a->type.elem, b->type.elem) && ast_equal(a->type.extent, b->type.extent) &&
           a->type.place == b->type.place && a->type.place_written == b->type.place_written &&
           vec_eq(&a->type.args, &b->type.args) && ast_equal(a->type.ret, b->type.ret);
}

static bool collect_eq(const Node *a, const Node *b)
{
    return a->collect.kind == b->collect.kind && str_eq(a->collect.op, b->collect.op) &&
           ast_equal(a->collect.dest, b->collect.dest) && a->collect.mode == b->collect.mode &&
           str_eq(a->collect.var, b->collect.var) && ast_equal(a->collect.extent, b->collect.extent) &&
           ast_equal(a->collect.keep, b->collect.keep) && ast_equal(a->collect.value, b->collect.value);
}

static bool fn_eq(const Node *a, const Node *b)
{
    return str_eq(a->fn.id, b->fn.id) && a->fn.is_kernel == b->fn.is_kernel &&
           a->fn.is_extern == b->fn.is_extern && a->fn.is_test == b->fn.is_test &&
           vec_eq(&a->fn.generics, &b->fn.generics) && vec_eq(&a->fn.params, &b->fn.params) &&
           ast_equal(a->fn.ret, b->fn.ret) && ast_equal(a->fn.body, b->fn.body) &&
           a->fn.expr_body == b->fn.expr_body;
}

static bool coop_eq(const Node *a, const Node *b)
{
    return names_eq(&a->coop.bvars, &b->coop.bvars) && vec_eq(&a->coop.bext, &b->coop.bext) &&
           names_eq(&a->coop.tvars, &b->coop.tvars) && vec_eq(&a->coop.text, &b->coop.text) &&
           ast_equal(a->coop.body, b->coop.body) && names_eq(&a->coop.fvars, &b->coop.fvars) &&
           vec_eq(&a->coop.fext, &b->coop.fext) && ast_equal(a->coop.finish, b->coop.finish);
}

static bool asm_eq(const Node *a, const Node *b)
{
    return str_eq(a->asm_.dialect, b->asm_.dialect) && str_eq(a->asm_.min_target, b->asm_.min_target) &&
           str_eq(a->asm_.tpl, b->asm_.tpl) && vec_eq(&a->asm_.ins, &b->asm_.ins) &&
           vec_eq(&a->asm_.outs, &b->asm_.outs) && names_eq(&a->asm_.effects, &b->asm_.effects);
}

static bool buffer_eq(const Node *a, const Node *b)
{
    return str_eq(a->buffer.id, b->buffer.id) && ast_equal(a->buffer.elem, b->buffer.elem) &&
           ast_equal(a->buffer.size, b->buffer.size) && a->buffer.place == b->buffer.place &&
           a->buffer.place_written == b->buffer.place_written && a->buffer.zeroed == b->buffer.zeroed &&
           ast_equal(a->buffer.depth, b->buffer.depth);
}

static bool loop_eq(const Node *a, const Node *b)
{
    return str_eq(a->loop.var, b->loop.var) && ast_equal(a->loop.lo, b->loop.lo) &&
           ast_equal(a->loop.hi, b->loop.hi) && ast_equal(a->loop.cond, b->loop.cond) &&
           ast_equal(a->loop.body, b->loop.body);
}

static bool call_eq(const Node *a, const Node *b)
{
    return ast_equal(a->call.callee, b->call.callee) && a->call.has_targs == b->call.has_targs &&
           vec_eq(&a->call.targs, &b->call.targs) && vec_eq(&a->call.args, &b->call.args);
}

bool ast_equal(const Node *a, const Node *b)
{
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case N_INT: case N_FLOAT: case N_BOOL: case N_STRING: case N_BREAK: case N_CONTINUE:
    case N_BARRIER:
        return lit_eq(a, b);
    case N_NAME: return str_eq(a->name.id, b->name.id);
    case N_UNARY: case N_EXPR_STMT: case N_RETURN:
        return a->unary.op == b->unary.op && ast_equal(a->unary.a, b->unary.a);
    case N_BINARY:
        for (;;) {   /* down both spines together (chain.h): no recursion on a chain */
            if (a->binary.op != b->binary.op || !ast_equal(a->binary.b, b->binary.b))
                return false;
            a = a->binary.a;
            b = b->binary.a;
            if (!a || !b || a->kind != N_BINARY || b->kind != N_BINARY)
                return ast_equal(a, b);
        }
    case N_CALL: return call_eq(a, b);
    case N_INDEX: return ast_equal(a->index.base, b->index.base) && ast_equal(a->index.index, b->index.index);
    case N_SLICE:
        return ast_equal(a->slice.base, b->slice.base) && ast_equal(a->slice.lo, b->slice.lo) &&
               ast_equal(a->slice.hi, b->slice.hi);
    case N_FIELD: return str_eq(a->field.id, b->field.id) && ast_equal(a->field.base, b->field.base);
    case N_COLLECT: return collect_eq(a, b);
    case N_SPAWN: return ast_equal(a->spawn.work, b->spawn.work) && vec_eq(&a->spawn.after, &b->spawn.after);
    case N_CLOSURE: case N_FN: return fn_eq(a, b);
    case N_TASK: case N_BLOCK: case N_UNSAFE: case N_PROGRAM: return vec_eq(&a->block.stmts, &b->block.stmts);
    case N_TYPE: return type_eq(a, b);
    case N_LET: case N_CONST: case N_LAYOUT:
        return str_eq(a->let.id, b->let.id) && a->let.mut == b->let.mut &&
               ast_equal(a->let.type, b->let.type) && ast_equal(a->let.init, b->let.init);
    case N_BUFFER: case N_SHARED: case N_PIPELINE: return buffer_eq(a, b);
    case N_ASSIGN:
        return a->assign.op == b->assign.op && ast_equal(a->assign.lhs, b->assign.lhs) &&
               ast_equal(a->assign.rhs, b->assign.rhs);
    case N_IF:
        for (;;) {   /* an else-if chain: a loop */
            if (!ast_equal(a->if_.cond, b->if_.cond) || !ast_equal(a->if_.then, b->if_.then))
                return false;
            a = a->if_.els;
            b = b->if_.els;
            if (!a || !b || a->kind != N_IF || b->kind != N_IF)
                return ast_equal(a, b);
        }
    case N_FOR: case N_WHILE: case N_PARALLEL: return loop_eq(a, b);
    case N_COOP: return coop_eq(a, b);
    case N_ASM: return asm_eq(a, b);
    case N_LOCK: return ast_equal(a->lock.lock, b->lock.lock) && ast_equal(a->lock.body, b->lock.body);
    case N_LAUNCH:
        return ast_equal(a->launch.grid, b->launch.grid) && ast_equal(a->launch.threads, b->launch.threads) &&
               ast_equal(a->launch.call, b->launch.call);
    case N_PARAM: return str_eq(a->param.id, b->param.id) && ast_equal(a->param.type, b->param.type);
    case N_DERIVE:
        return str_eq(a->derive.what, b->derive.what) && a->derive.has_list == b->derive.has_list &&
               names_eq(&a->derive.only, &b->derive.only) && str_eq(a->derive.target, b->derive.target);
    case N_PLAN: return str_eq(a->plan.target, b->plan.target) && vec_eq(&a->plan.items, &b->plan.items);
    case N_PLAN_ITEM:
        return str_eq(a->plan_item.id, b->plan_item.id) && vec_eq(&a->plan_item.args, &b->plan_item.args);
    default: return false;
    }
}

/* ---------------------------------------------------------- ast_clone */

static Vec clone_vec(Arena *a, const Vec *v)
{
    Vec out = {0};
    for (int i = 0; i < v->n; i++)
        vec_push(a, &out, ast_clone(a, v->v[i]));
    return out;
}

/* Strings are never changed after parsing, so a copy shares them. */
static Vec copy_names(Arena *a, const Vec *v)
{
    Vec out = {0};
    for (int i = 0; i < v->n; i++)
        vec_push(a, &out, v->v[i]);
    return out;
}

static void clone_fn(Arena *a, Node *c)
{
    c->fn.generics = clone_vec(a, &c->fn.generics);
    c->fn.params = clone_vec(a, &c->fn.params);
    c->fn.ret = ast_clone(a, c->fn.ret);
    c->fn.body = ast_clone(a, c->fn.body);
    c->fn.sym = NULL;
    c->fn.cname = NULL;
    c->fn.gvals = NULL;
    c->fn.is_instance = false;
    memset(&c->fn.captures, 0, sizeof c->fn.captures);
}

static void clone_call(Arena *a, Node *c)
{
    c->call.callee = ast_clone(a, c->call.callee);
    c->call.targs = clone_vec(a, &c->call.targs);
    c->call.args = clone_vec(a, &c->call.args);
    c->call.ck = CALL_UNRESOLVED;
    c->call.target = NULL;
    c->call.builtin = 0;
    c->call.math = NULL;
    c->call.extent_proved = NULL;
}

static void clone_collect(Arena *a, Node *c)
{
    c->collect.dest = ast_clone(a, c->collect.dest);
    c->collect.extent = ast_clone(a, c->collect.extent);
    c->collect.keep = ast_clone(a, c->collect.keep);
    c->collect.value = ast_clone(a, c->collect.value);
    c->collect.sym = NULL;
}

static void clone_type(Arena *a, Node *c)
{
    c->type.elem = ast_clone(a, c->type.elem);
    c->type.extent = ast_clone(a, c->type.extent);
    c->type.args = clone_vec(a, &c->type.args);
    c->type.ret = ast_clone(a, c->type.ret);
}

static void clone_coop(Arena *a, Node *c)
{
    c->coop.bvars = copy_names(a, &c->coop.bvars);
    c->coop.bext = clone_vec(a, &c->coop.bext);
    c->coop.tvars = copy_names(a, &c->coop.tvars);
    c->coop.text = clone_vec(a, &c->coop.text);
    c->coop.body = ast_clone(a, c->coop.body);
    c->coop.fvars = copy_names(a, &c->coop.fvars);
    c->coop.fext = clone_vec(a, &c->coop.fext);
    c->coop.finish = ast_clone(a, c->coop.finish);
}

static void clone_buffer(Arena *a, Node *c)
{
    c->buffer.elem = ast_clone(a, c->buffer.elem);
    c->buffer.size = ast_clone(a, c->buffer.size);
    c->buffer.depth = ast_clone(a, c->buffer.depth);
    c->buffer.sym = NULL;
}

static void clone_loop(Arena *a, Node *c)
{
    c->loop.lo = ast_clone(a, c->loop.lo);
    c->loop.hi = ast_clone(a, c->loop.hi);
    c->loop.cond = ast_clone(a, c->loop.cond);
    c->loop.body = ast_clone(a, c->loop.body);
    c->loop.sym = NULL;
}

static void clone_asm(Arena *a, Node *c)
{
    c->asm_.ins = clone_vec(a, &c->asm_.ins);
    c->asm_.outs = clone_vec(a, &c->asm_.outs);
    c->asm_.effects = copy_names(a, &c->asm_.effects);
}

/* A chain (chain.h) whose top c is a shallow copy: down its spine, each
 * node copied and hung on the one above, each right operand cloned. */
static void clone_chain(Arena *a, Node *c)
{
    for (;;) {
        c->binary.b = ast_clone(a, c->binary.b);
        const Node *l = c->binary.a;
        if (!l || l->kind != N_BINARY) {
            c->binary.a = ast_clone(a, l);
            return;
        }
        Node *lc = node_new(a, l->kind, l->span);
        memcpy(lc, l, node_size(l->kind));
        lc->ty = NULL;
        c->binary.a = lc;
        c = lc;
    }
}

/* The children of c (a shallow copy) replaced by copies of their own. */
static void clone_children(Arena *a, Node *c)
{
    switch (c->kind) {
    case N_NAME: c->name.sym = NULL; break;
    case N_UNARY: case N_EXPR_STMT: case N_RETURN: c->unary.a = ast_clone(a, c->unary.a); break;
    case N_BINARY: clone_chain(a, c); break;
    case N_CALL: clone_call(a, c); break;
    case N_INDEX:
        c->index.base = ast_clone(a, c->index.base);
        c->index.index = ast_clone(a, c->index.index);
        break;
    case N_SLICE:
        c->slice.base = ast_clone(a, c->slice.base);
        c->slice.lo = ast_clone(a, c->slice.lo);
        c->slice.hi = ast_clone(a, c->slice.hi);
        break;
    case N_FIELD: c->field.base = ast_clone(a, c->field.base); break;
    case N_COLLECT: clone_collect(a, c); break;
    case N_SPAWN:
        c->spawn.work = ast_clone(a, c->spawn.work);
        c->spawn.after = clone_vec(a, &c->spawn.after);
        break;
    case N_CLOSURE: case N_FN: clone_fn(a, c); break;
    case N_TASK: case N_BLOCK: case N_UNSAFE: case N_PROGRAM: c->block.stmts = clone_vec(a, &c->block.stmts); break;
    case N_TYPE: clone_type(a, c); break;
    case N_LET: case N_CONST: case N_LAYOUT:
        c->let.type = ast_clone(a, c->let.type);
        c->let.init = ast_clone(a, c->let.init);
        c->let.sym = NULL;
        break;
    case N_BUFFER: case N_SHARED: case N_PIPELINE: clone_buffer(a, c); break;
    case N_ASSIGN:
        c->assign.lhs = ast_clone(a, c->assign.lhs);
        c->assign.rhs = ast_clone(a, c->assign.rhs);
        break;
    case N_IF:
        for (;;) {   /* an else-if chain: each copied and hung on the one before, by a loop */
            c->if_.cond = ast_clone(a, c->if_.cond);
            c->if_.then = ast_clone(a, c->if_.then);
            const Node *e = c->if_.els;
            if (!e || e->kind != N_IF) {
                c->if_.els = ast_clone(a, e);
                break;
            }
            Node *ec = node_new(a, e->kind, e->span);
            memcpy(ec, e, node_size(e->kind));
            ec->ty = NULL;
            c->if_.els = ec;
            c = ec;
        }
        break;
    case N_FOR: case N_WHILE: case N_PARALLEL: clone_loop(a, c); break;
    case N_COOP: clone_coop(a, c); break;
    case N_ASM: clone_asm(a, c); break;
    case N_LOCK:
        c->lock.lock = ast_clone(a, c->lock.lock);
        c->lock.body = ast_clone(a, c->lock.body);
        break;
    case N_LAUNCH:
        c->launch.grid = ast_clone(a, c->launch.grid);
        c->launch.threads = ast_clone(a, c->launch.threads);
        c->launch.call = ast_clone(a, c->launch.call);
        break;
    case N_PARAM:
        c->param.type = ast_clone(a, c->param.type);
        c->param.sym = NULL;
        break;
    case N_DERIVE: c->derive.only = copy_names(a, &c->derive.only); break;
    case N_PLAN: c->plan.items = clone_vec(a, &c->plan.items); break;
    case N_PLAN_ITEM: c->plan_item.args = clone_vec(a, &c->plan_item.args); break;
    default: break;   /* literals and word statements have no children */
    }
}

Node *ast_clone(Arena *a, const Node *n)
{
    if (!n)
        return NULL;
    Node *c = node_new(a, n->kind, n->span);
    memcpy(c, n, node_size(n->kind));   /* only its kind's member: see node_new */
    c->ty = NULL;
    clone_children(a, c);
    return c;
}
