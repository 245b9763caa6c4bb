/*
 * emit.c: the checked program as one C file.
 *
 * Requires: a program check_program accepted; every expression has its type
 * (node->ty), every name its symbol, every call its kind, and every function
 * to emit (generic instances included) is in check->fns with its C name.
 * Guarantees: one C file in the common subset of C17 and C++17 that includes
 * cairn_rt.h and does what the program says, with every guard the language
 * promises (bounds, overflow, division, shifts, conversions, extents).
 *
 * The file is laid out as
 *     #include "cairn_rt.h"  and the source name (CN_FILE, CN_AT)
 *     type definitions       Array[T, K] structs, function-value structs,
 *                            closure environments
 *     prototypes             every function, so definitions come in any order
 *     definitions            user functions, closures, adapters, wrappers
 *     main                   the program's entry, or the test runner's
 *
 * This file holds the layout, types, functions and statements; expressions
 * are in emit_expr.c. Every statement is preceded by a comment with its
 * CAIRN line and a #line directive, so a C compiler's message or a debugger
 * points into the .cairn file.
 *
 * Expressions that need statements of their own (a collector's loop, a
 * temporary that keeps left-to-right order) write those statements to the
 * current function's output before the statement that uses them: that is
 * why every statement computes its expressions before writing itself.
 */
#include "emit.h"
#include "par.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- output */

static void buf_reserve(Arena *a, Buf *b, size_t more)
{
    if (b->n + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->n + more + 1)
        cap *= 2;
    char *s = arena_alloc(a, cap);
    if (b->n)
        memcpy(s, b->s, b->n);
    b->s = s;
    b->cap = cap;
}

/* Formats straight into the buffer's free space, and only when that was too
 * small grows it and formats again: one vsnprintf a call, nearly always
 * (measuring first made two, and formatting was most of emitting). */
/* Appends n bytes the caller reserved room for. */
static void buf_put(Buf *b, const char *s, size_t n)
{
    memcpy(b->s + b->n, s, n);
    b->n += n;
}

static void buf_vprintf(Arena *a, Buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    buf_reserve(a, b, 128);
    size_t room = b->cap - b->n;
    int n = vsnprintf(b->s + b->n, room, fmt, ap2);
    va_end(ap2);
    if ((size_t)n >= room) {
        buf_reserve(a, b, (size_t)n);
        vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
    }
    b->n += (size_t)n;
}

void buf_printf(Arena *a, Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(a, b, fmt, ap);
    va_end(ap);
}

void buf_append(Arena *a, Buf *dst, const Buf *src)
{
    if (!src->n)
        return;
    buf_reserve(a, dst, src->n);
    memcpy(dst->s + dst->n, src->s, src->n);
    dst->n += src->n;
    dst->s[dst->n] = 0;
}

static Buf *buf_keep(Arena *a, const Buf *b)
{
    Buf *k = arena_alloc(a, sizeof *k);
    *k = *b;
    return k;
}

void emit_defs_add(Ex *x, const Buf *def)
{
    if (x->defs.n) {
        vec_push(x->a, &x->def_pieces, buf_keep(x->a, &x->defs));
        memset(&x->defs, 0, sizeof x->defs);
    }
    if (def->n)
        vec_push(x->a, &x->def_pieces, buf_keep(x->a, def));
}

/* arena_printf, formatting once: into a buffer on the stack, then copied
 * (arena_printf measures first, and an expression's C is built from many
 * small formatted pieces). */
const char *emit_fmt(Ex *x, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof tmp)
        return arena_strndup(x->a, tmp, (size_t)n);
    char *p = arena_alloc(x->a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* One line of the current function, indented. */
void emit_line(Ex *x, const char *fmt, ...)
{
    EFn *f = x->fn;
    size_t ind = f->indent > 0 ? 4 * (size_t)f->indent : 0;
    buf_reserve(x->a, f->out, ind);
    memset(f->out->s + f->out->n, ' ', ind);
    f->out->n += ind;
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(x->a, f->out, fmt, ap);
    va_end(ap);
    buf_reserve(x->a, f->out, 1);
    f->out->s[f->out->n++] = '\n';
    f->out->s[f->out->n] = '\0';
}

/* A fresh C name for a temporary; the cn_ prefix keeps it apart from every
 * user name (the checker gives those their own cnames). */
const char *emit_tmp(Ex *x, const char *what)
{
    return emit_fmt(x, "cn_%s%d", what, ++x->next_tmp);
}

/* A C string literal holding s: quotes, backslashes and anything not
 * printable escaped (octal, three digits, so a following digit is safe). */
const char *emit_str_lit(Ex *x, const char *s)
{
    size_t n = 2;   /* measured first, then written once: one is made for every guarded index */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += *p == '"' || *p == '\\' || *p == '\n' || *p == '\t' ? 2 : *p < 32 || *p >= 127 || *p == '?' ? 4 : 1;
    char *out = arena_alloc(x->a, n + 1), *w = out;
    *w++ = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            *w++ = '\\';
            *w++ = (char)*p;
        } else if (*p == '\n' || *p == '\t') {
            *w++ = '\\';
            *w++ = *p == '\n' ? 'n' : 't';
        } else if (*p < 32 || *p >= 127 || *p == '?') {   /* '?' too: no trigraphs */
            *w++ = '\\';
            *w++ = (char)('0' + (*p >> 6));
            *w++ = (char)('0' + ((*p >> 3) & 7));
            *w++ = (char)('0' + (*p & 7));
        } else {
            *w++ = (char)*p;
        }
    }
    *w++ = '"';
    *w = '\0';
    return out;
}

/* An expression's source text as a C string literal, for a guard's message
 * ("index 9 out of bounds for x", "assertion failed: ..."): at most
 * SRC_TEXT_MAX characters of it, then "...", so that a guard over a chain of
 * a million terms is not a line of megabytes. */
const char *emit_src_lit(Ex *x, const Node *e)
{
    if (e && e->kind == N_NAME && e->name.id && strlen(e->name.id) <= SRC_TEXT_MAX)
        return emit_str_lit(x, e->name.id);
    return emit_str_lit(x, expand_expr_short(x->a, e, SRC_TEXT_MAX));
}

/* The location arguments of a guard: CN_AT(line, col) is defined once at
 * the top of the file as the source name, line, column. */
const char *emit_at(Ex *x, Span at)
{
    return emit_fmt(x, "CN_AT(%d, %d)", at.line, at.col);
}

/* ----------------------------------------------------------------- types */

/* The CAIRN name of a scalar type: the suffix of the runtime's helpers. */
const char *emit_suffix(const Type *t)
{
    switch (t->kind) {
    case TY_BOOL: return "bool";
    case TY_I8: return "i8";
    case TY_I16: return "i16";
    case TY_I32: return "i32";
    case TY_I64: return "i64";
    case TY_U8: return "u8";
    case TY_U16: return "u16";
    case TY_U32: return "u32";
    case TY_U64: return "u64";
    case TY_USIZE: return "usize";
    case TY_F32: return "f32";
    case TY_F64: return "f64";
    case TY_F16: return "f16";
    case TY_BF16: return "bf16";
    case TY_F8E4M3: return "f8e4m3";
    case TY_F8E5M2: return "f8e5m2";
    default: die("emit: no scalar suffix for type kind %d", (int)t->kind);
    }
}

static const char *scalar_ctype(const Type *t)
{
    switch (t->kind) {
    case TY_BOOL: return "bool";
    case TY_I8: return "int8_t";
    case TY_I16: return "int16_t";
    case TY_I32: return "int32_t";
    case TY_I64: return "int64_t";
    case TY_U8: return "uint8_t";
    case TY_U16: return "uint16_t";
    case TY_U32: return "uint32_t";
    case TY_U64: return "uint64_t";
    case TY_USIZE: return "size_t";
    case TY_F32: return "float";
    case TY_F64: return "double";
    case TY_F16: case TY_BF16: return "uint16_t";      /* storage floats are their bits */
    case TY_F8E4M3: case TY_F8E5M2: return "uint8_t";
    default: return NULL;
    }
}

/* A C identifier fragment naming a type, for typedef names. */
static const char *mangle(Ex *x, const Type *t)
{
    if (scalar_ctype(t))
        return emit_suffix(t);
    switch (t->kind) {
    case TY_VOID: return "void";
    case TY_STRING: return "str";
    case TY_VIEW: return emit_fmt(x, "v%s", mangle(x, t->elem));
    case TY_REF: return emit_fmt(x, "r%s", mangle(x, t->elem));
    case TY_ARRAY: return emit_fmt(x, "a%lld_%s", (long long)t->count, mangle(x, t->elem));
    case TY_FN: {
        const char *s = emit_fmt(x, "F%s", mangle(x, t->ret));
        for (int i = 0; i < t->params.n; i++)
            s = emit_fmt(x, "%s_%s", s, mangle(x, t->params.v[i]));
        return emit_fmt(x, "%sE", s);
    }
    default: die("emit: type kind %d has no C form", (int)t->kind);
    }
}

static unsigned name_hash(const char *s)
{
    unsigned h = 2166136261u;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void nameset_put(NameSet *s, const char *key, unsigned h)
{
    int i = (int)(h & (unsigned)(s->cap - 1));
    while (s->keys[i])
        i = (i + 1) & (s->cap - 1);
    s->keys[i] = key;
    s->hashes[i] = h;
    s->n++;
}

bool nameset_add(Arena *a, NameSet *s, const char *key)
{
    unsigned h = name_hash(key);
    for (int i = s->cap ? (int)(h & (unsigned)(s->cap - 1)) : 0; s->cap && s->keys[i];
         i = (i + 1) & (s->cap - 1))
        if (s->hashes[i] == h && !strcmp(s->keys[i], key))
            return false;
    if (2 * (s->n + 1) > s->cap) {   /* at most half full */
        NameSet old = *s;
        s->cap = old.cap ? 2 * old.cap : 64;
        s->keys = arena_alloc(a, sizeof *s->keys * (size_t)s->cap);
        s->hashes = arena_alloc(a, sizeof *s->hashes * (size_t)s->cap);
        s->n = 0;
        for (int i = 0; i < old.cap; i++)
            if (old.keys[i])
                nameset_put(s, old.keys[i], old.hashes[i]);
    }
    nameset_put(s, key, h);
    return true;
}

/* Marks a typedef name written; false when it already was. */
static bool type_once(Ex *x, const char *name)
{
    return nameset_add(x->a, &x->written, name);
}

/* Array[T, K]: a struct holding T v[K], so it is a value (copied on
 * assignment and at calls), and a constructor giving it zeroed, which a
 * device lane may call too (CN_HD). */
static const char *array_type(Ex *x, Type *t)
{
    const char *name = emit_fmt(x, "cn_arr_%s", mangle(x, t)+1);
    if (!type_once(x, name))
        return name;
    const char *elem = emit_ctype(x, t->elem);
    long long k = t->count > 0 ? (long long)t->count : 1;
    buf_printf(x->a, &x->types, "typedef struct {\n    %s v[%lld];\n} %s;\n", elem, k, name);
    buf_printf(x->a, &x->types,
               "static inline CN_HD %s %s_zero(void)\n{\n    %s r;\n    memset(&r, 0, sizeof r);\n"
               "    return r;\n}\n\n", name, name, name);
    return name;
}

/* fn(A, B) -> R: a struct of a function pointer, which takes the closure's
 * environment first, and that environment (NULL for a named function). */
static const char *fn_type(Ex *x, Type *t)
{
    const char *name = emit_fmt(x, "cn_fn_%s", mangle(x, t) + 1);
    const char *ret = emit_ctype(x, t->ret);
    const char *params = "void *";
    for (int i = 0; i < t->params.n; i++)
        params = emit_fmt(x, "%s, %s", params, emit_ctype(x, t->params.v[i]));
    if (!type_once(x, name))
        return name;
    buf_printf(x->a, &x->types, "typedef struct {\n    %s (*fn)(%s);\n    void *env;\n} %s;\n",
               ret, params, name);
    buf_printf(x->a, &x->types,
               "static inline %s %s_make(%s (*fn)(%s), void *env)\n{\n    %s v;\n    v.fn = fn;\n"
               "    v.env = env;\n    return v;\n}\n\n", name, name, ret, params, name);
    return name;
}

/* The C type of a CAIRN type; typedefs it needs are written on first use. */
const char *emit_ctype(Ex *x, Type *t)
{
    if (!t)
        return "void";
    const char *s = scalar_ctype(t);
    if (s)
        return s;
    switch (t->kind) {
    case TY_VOID: return "void";
    case TY_STRING: return "const char *";
    case TY_VIEW:
        if (!scalar_ctype(t->elem))
            die("emit: views of %s are not lowered", mangle(x, t->elem));
        return emit_fmt(x, "cn_view_%s", emit_suffix(t->elem));
    case TY_REF: return emit_fmt(x, "%s *", emit_ctype(x, t->elem));
    case TY_ARRAY: return array_type(x, t);
    case TY_FN: return fn_type(x, t);
    case TY_TICKET: return "struct cn_ticket";
    case TY_FRAGMENT: return emit_frag_ctype(x, t);
    default: die("emit: type kind %d has no C form", (int)t->kind);
    }
}

/* A function's result type: from its own type when the checker gave it one,
 * else from the written result type. */
Type *emit_fn_ret(Node *fn)
{
    if (fn->ty && fn->ty->kind == TY_FN)
        return fn->ty->ret;
    if (fn->fn.sym && fn->fn.sym->ty && fn->fn.sym->ty->kind == TY_FN)
        return fn->fn.sym->ty->ret;
    if (fn->fn.ret && fn->fn.ret->ty)
        return fn->fn.ret->ty;
    return type_prim(TY_VOID);
}

Type *emit_param_type(Node *param)
{
    if (param->param.sym && param->param.sym->ty)
        return param->param.sym->ty;
    if (param->param.type && param->param.type->ty)
        return param->param.type->ty;
    die("emit: parameter %s has no type", param->param.id);
}

static bool type_has_fn(const Type *t)
{
    if (!t)
        return false;
    if (t->kind == TY_FN)
        return true;
    return (t->kind == TY_ARRAY || t->kind == TY_VIEW || t->kind == TY_REF) && type_has_fn(t->elem);
}

/* ---------------------------------------------------------- statements */

static void emit_stmt(Ex *x, Node *s);

/* The comment and #line above a statement: the CAIRN line number and its
 * text (trimmed, and with any star-slash broken so the comment holds). */
/* Where line `line` of src starts: from a table of line starts made once
 * per source, so that finding a statement's line costs nothing (a scan from
 * the top for each statement made emitting quadratic in the file's lines). */
static const char *line_start(Ex *x, const Source *src, int line)
{
    if (x->lines_src != src) {
        int n = 1;
        for (const char *p = src->text; *p; p++)
            n += *p == '\n';
        x->line_starts = arena_alloc(x->a, sizeof *x->line_starts * (size_t)(n + 1));
        int k = 0;
        x->line_starts[k++] = src->text;
        for (const char *p = src->text; *p; p++)
            if (*p == '\n')
                x->line_starts[k++] = p + 1;
        x->nlines = n;
        x->lines_src = src;
    }
    return line <= x->nlines ? x->line_starts[line - 1] : src->text + strlen(src->text);
}

static void emit_loc(Ex *x, Node *s)
{
    const Source *src = s->span.src;
    char text[91] = "";   /* at most 90 characters of the line */
    if (src && src->text && s->span.line > 0) {
        const char *p = line_start(x, src, s->span.line);
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = 0;   /* a bounded scan: a line may be megabytes long */
        while (n < 90 && p[n] && p[n] != '\n')
            n++;
        memcpy(text, p, n);
        text[n] = '\0';
        for (char *q = text; *q; q++)
            if ((q[0] == '*' && q[1] == '/') || (q[0] == '/' && q[1] == '*') || *q == '\r')
                q[0] = ' ';
    }
    /* written piece by piece, not formatted: two lines for every statement
     * were a good part of emitting */
    char num[16];
    int k = sizeof num;
    unsigned v = (unsigned)(s->span.line > 0 ? s->span.line : 0);
    do
        num[--k] = (char)('0' + v % 10);
    while ((v /= 10) && k > 0);
    size_t nn = sizeof num - (size_t)k, ind = x->fn->indent > 0 ? 4 * (size_t)x->fn->indent : 0;
    size_t tn = strlen(text), fn = strlen(x->file_lit);
    Buf *b = x->fn->out;
    buf_reserve(x->a, b, ind + 3 + nn + 2 + tn + 4 + 6 + nn + 1 + fn + 1);
    memset(b->s + b->n, ' ', ind);
    b->n += ind;
    buf_put(b, "/* ", 3);
    buf_put(b, num + k, nn);
    buf_put(b, ": ", 2);
    buf_put(b, text, tn);
    buf_put(b, " */\n#line ", 10);
    buf_put(b, num + k, nn);
    buf_put(b, " ", 1);
    buf_put(b, x->file_lit, fn);
    buf_put(b, "\n", 1);
    b->s[b->n] = '\0';
}

static EScope *scope_open(Ex *x, bool loop_body)
{
    EScope *s = arena_alloc(x->a, sizeof *s);
    s->up = x->fn->scope;
    s->loop_body = loop_body;
    x->fn->scope = s;
    return s;
}

static void scope_release(Ex *x, EScope *s)
{
    for (int i = s->releases.n - 1; i >= 0; i--)
        emit_line(x, "%s", (const char *)s->releases.v[i]);
}

/* Releases for a jump out of scopes: break and continue stop at the loop
 * body, return goes through all of them (stop == NULL). */
static void release_until_loop(Ex *x, bool whole_function)
{
    for (EScope *s = x->fn->scope; s; s = s->up) {
        scope_release(x, s);
        if (!whole_function && s->loop_body)
            break;
    }
}

static bool is_jump(const Node *s)
{
    return s && (s->kind == N_RETURN || s->kind == N_BREAK || s->kind == N_CONTINUE);
}

/* Whether a statement is a pipeline's wait, p.wait(). */
static bool is_pipe_wait(const Node *s)
{
    return s && s->kind == N_EXPR_STMT && pipe_op_of(s->unary.a) && s->unary.a->call.builtin == PIPE_WAIT;
}

static void emit_stmts(Ex *x, const Vec *stmts)
{
    for (int i = 0; i < stmts->n; i++) {
        /* waits one after another (tile64's sa.wait(); sb.wait();) meet the
         * block once, after the last: nothing between them touches memory */
        x->wait_then_wait = x->coop_layout && i + 1 < stmts->n && is_pipe_wait(stmts->v[i]) &&
                            is_pipe_wait(stmts->v[i + 1]);
        int fused = emit_par_fused(x, stmts, i);   /* plan f { fuse; } */
        if (fused) {
            emit_loc(x, stmts->v[i]);
            emit_par_regions(x, (Node **)stmts->v + i, fused);
            i += fused - 1;
            continue;
        }
        emit_stmt(x, stmts->v[i]);
    }
}

/* A block's statements inside braces the caller wrote, then its releases
 * (unless it ended by jumping, which released already). */
static void emit_block_inner(Ex *x, Node *b, bool loop_body)
{
    EScope *s = scope_open(x, loop_body);
    if (b->kind == N_BLOCK || b->kind == N_UNSAFE) {
        emit_stmts(x, &b->block.stmts);
        Node *last = b->block.stmts.n ? b->block.stmts.v[b->block.stmts.n - 1] : NULL;
        if (!is_jump(last))
            scope_release(x, s);
    } else {
        emit_stmt(x, b);
        if (!is_jump(b))
            scope_release(x, s);
    }
    x->fn->scope = s->up;
}

void emit_block(Ex *x, Node *b, bool loop_body)
{
    x->fn->indent++;
    emit_block_inner(x, b, loop_body);
    x->fn->indent--;
}

static void emit_let(Ex *x, Node *s)
{
    Sym *sym = s->let.sym;
    if (!sym)
        die("emit: let %s has no symbol", s->let.id);
    Type *t = sym->ty ? sym->ty : s->let.init->ty;
    const char *init = emit_expr(x, s->let.init);
    /* CAIRN allows a binding that is never read; the void cast keeps C's
     * -Wunused-variable and -Wunused-but-set-variable quiet about it. */
    emit_line(x, "%s%s %s = %s; (void)%s;", sym->mut ? "" : "const ", emit_ctype(x, t), sym->cname, init,
              sym->cname);
}

/* buffer x:T[n] = zeroed; zeroed host memory, released at every exit of
 * its block. A buffer is a view the block owns. */
static void emit_buffer(Ex *x, Node *s)
{
    Sym *sym = s->buffer.sym;
    if (!sym)
        die("emit: buffer %s has no symbol", s->buffer.id);
    if (s->buffer.place != PLACE_HOST)
        return emit_dev_buffer(x, s);
    Type *elem = sym->ty && sym->ty->kind == TY_VIEW ? sym->ty->elem : s->buffer.elem->ty;
    const char *suf = emit_suffix(elem);
    const char *n = emit_expr(x, s->buffer.size);
    if (type_is_signed(s->buffer.size->ty))
        n = emit_fmt(x, "cn_to_usize_s((long long)(%s), %s)", n, emit_at(x, s->buffer.size->span));
    emit_line(x, "cn_view_%s %s = cn_alloc_%s(%s, %s, %s);", suf, sym->cname, suf, n,
              emit_str_lit(x, s->buffer.id), emit_at(x, s->span));
    vec_push(x->a, &x->fn->scope->releases,
             (void *)emit_fmt(x, "cn_release_%s(%s);", suf, sym->cname));
}

static const char *compound_op(TokKind op)
{
    switch (op) {
    case T_PLUSEQ: return "+";
    case T_MINUSEQ: return "-";
    case T_STAREQ: return "*";
    case T_SLASHEQ: return "/";
    case T_PERCENTEQ: return "%";
    default: die("emit: assignment operator %s", tok_name(op));
    }
}

/* x OP= e through a pointer to the element, so its index is computed (and
 * checked) once; the right side is computed first. */
static void emit_compound(Ex *x, Node *s)
{
    Type *t = s->assign.lhs->ty;
    const char *rhs = emit_expr(x, s->assign.rhs);
    if (emit_is_impure(s->assign.rhs)) {
        const char *tmp = emit_tmp(x, "v");
        emit_line(x, "const %s %s = %s;", emit_ctype(x, s->assign.rhs->ty), tmp, rhs);
        rhs = tmp;
    }
    const char *p = emit_tmp(x, "p");
    emit_line(x, "%s *%s = %s;", emit_ctype(x, t), p, emit_addr(x, s->assign.lhs));
    const char *op = compound_op(s->assign.op);
    const char *cur = emit_fmt(x, "(*%s)", p);
    const char *v;
    if (type_is_int(t)) {
        const char *name = *op == '+' ? "add" : *op == '-' ? "sub" : *op == '*' ? "mul"
                         : *op == '/' ? "div" : "rem";
        if (fast_marked(x, s)) /* proved at launch: unchecked in the fast version (emit_fast.c) */
            v = emit_fmt(x, "CN_FAST_OP(%s, %s, %s, %s, %s)", name, emit_suffix(t), cur, rhs, emit_at(x, s->span));
        else
            v = emit_fmt(x, "cn_%s_%s(%s, %s, %s)", name, emit_suffix(t), cur, rhs, emit_at(x, s->span));
    } else if (*op == '%') {
        v = emit_fmt(x, "cn_rem_%s(%s, %s)", emit_suffix(t), cur, rhs);
    } else {
        v = emit_fmt(x, "%s %s %s", cur, op, rhs);
    }
    emit_line(x, "*%s = %s;", p, v);
}

/* lhs = e: the right side first (its calls may not see a half-done
 * assignment), then the place. */
static void emit_assign(Ex *x, Node *s)
{
    if (s->assign.op != T_ASSIGN) {
        emit_compound(x, s);
        return;
    }
    const char *rhs = emit_expr(x, s->assign.rhs);
    if (s->assign.post && x->wide_lane) {
        /* a wide lane's store: into its post, which the group writes at
         * once; with no post (a lane run alone), in place (analyze.c) */
        const char *tmp = emit_tmp(x, "v");
        emit_line(x, "const %s %s = %s;", emit_ctype(x, s->assign.lhs->ty), tmp, rhs);
        emit_line(x, "if (cn_o) cn_o->o%d = %s; else %s = %s;", s->assign.post - 1, tmp,
                  emit_expr(x, s->assign.lhs), tmp);
        return;
    }
    /* the value first, then the place: C leaves the order of the two sides
     * open, and either may fail a guard (language.md) */
    if (s->assign.lhs->kind != N_NAME &&
        (emit_is_impure(s->assign.rhs) || (emit_may_guard(s->assign.rhs) && emit_may_guard(s->assign.lhs)))) {
        const char *tmp = emit_tmp(x, "v");
        emit_line(x, "const %s %s = %s;", emit_ctype(x, s->assign.rhs->ty), tmp, rhs);
        rhs = tmp;
    }
    const char *lhs = emit_expr(x, s->assign.lhs);
    emit_line(x, "%s = %s;", lhs, rhs);
}

static void emit_expr_stmt(Ex *x, Node *s)
{
    Node *e = s->unary.a;
    if (pipe_op_of(e)) {
        emit_coop_pipe_op(x, e);
        return;
    }
    x->stmt_expr = e;
    const char *v = emit_expr(x, e);
    x->stmt_expr = NULL;
    if (e->kind == N_COLLECT || e->kind == N_NAME || e->kind == N_INT || e->kind == N_FLOAT ||
        e->kind == N_BOOL)
        emit_line(x, "(void)%s;", v);
    else
        emit_line(x, "%s;", v);
}

/* Computes an expression into a side buffer: the hoisted statements it
 * needed, and its value. */
static const char *capture_expr(Ex *x, Node *e, Buf *pre)
{
    Buf *saved = x->fn->out;
    x->fn->out = pre;
    const char *v = emit_expr(x, e);
    x->fn->out = saved;
    return v;
}

/* An else-if chain by a loop, however long; each condition after the first
 * computed into a side buffer first, to see whether any needs statements
 * of its own. When none does: if (c) { } else if (d) { } else { }. */
typedef struct {
    Node *s;              /* the N_IF */
    const char *cond;     /* its condition's C value */
    Buf pre;              /* the statements that value needs */
} Branch;

static void emit_else_ifs(Ex *x, const Branch *br, int n, Node *last_else)
{
    emit_line(x, "if (%s) {", br[0].cond);
    emit_block(x, br[0].s->if_.then, false);
    for (int k = 1; k < n; k++) {
        emit_line(x, "} else");
        emit_line(x, "if (%s) {", br[k].cond);
        emit_block(x, br[k].s->if_.then, false);
    }
    if (last_else) {
        emit_line(x, "} else {");
        emit_block(x, last_else, false);
    }
    emit_line(x, "}");
}

/* When a later condition needs statements of its own, nesting each rest of
 * the chain in the else of the one before would nest C as deep as the
 * chain is long; instead a flag says a branch was taken, and each later
 * condition and the final else run only while none was:
 *     bool t = false;  if (c) { t = true; .. }  if (!t) { pre; if (d) { t = true; .. } }  if (!t) { .. } */
static void emit_flagged_ifs(Ex *x, const Branch *br, int n, Node *last_else)
{
    const char *taken = emit_tmp(x, "taken");
    emit_line(x, "bool %s = false;", taken);
    for (int k = 0; k < n; k++) {
        if (k) {
            emit_line(x, "if (!%s) {", taken);
            buf_append(x->a, x->fn->out, &br[k].pre);
            x->fn->indent++;
        }
        emit_line(x, "if (%s) {", br[k].cond);
        emit_line(x, "    %s = true;", taken);
        emit_block(x, br[k].s->if_.then, false);
        emit_line(x, "}");
        if (k) {
            x->fn->indent--;
            emit_line(x, "}");
        }
    }
    if (last_else) {
        emit_line(x, "if (!%s) {", taken);
        emit_block(x, last_else, false);
        emit_line(x, "}");
    }
}

static void emit_if(Ex *x, Node *s)
{
    int n = 1;
    for (Node *e = s->if_.els; e && e->kind == N_IF; e = e->if_.els)
        n++;
    Branch *br = arena_alloc(x->a, sizeof *br * (size_t)n);
    br[0].s = s;
    br[0].cond = emit_expr(x, s->if_.cond);
    bool pre = false;
    Node *e = s;
    for (int k = 1; k < n; k++) {
        e = e->if_.els;
        br[k].s = e;
        x->fn->indent++;
        br[k].cond = capture_expr(x, e->if_.cond, &br[k].pre);
        x->fn->indent--;
        pre |= br[k].pre.n > 0;
    }
    if (pre)
        emit_flagged_ifs(x, br, n, br[n - 1].s->if_.els);
    else
        emit_else_ifs(x, br, n, br[n - 1].s->if_.els);
}

/* for i in a..b: a and b computed once, before the loop. The test i < hi
 * keeps i + 1 <= hi, so the increment never passes the type's top. */
static void emit_for(Ex *x, Node *s)
{
    Sym *sym = s->loop.sym;
    Type *t = sym && sym->ty ? sym->ty : s->loop.hi->ty;
    const char *ct = emit_ctype(x, t);
    const char *lo = emit_expr(x, s->loop.lo);
    const char *hi = emit_expr(x, s->loop.hi);
    const char *var = sym && sym->cname ? sym->cname : emit_tmp(x, "i");
    const char *end = emit_tmp(x, "end");
    emit_line(x, "{");
    x->fn->indent++;
    emit_line(x, "const %s %s = %s;", ct, end, hi);
    emit_line(x, "for (%s %s = %s; %s < %s; %s++) {", ct, var, lo, var, end, var);
    emit_block(x, s->loop.body, true);
    emit_line(x, "}");
    x->fn->indent--;
    emit_line(x, "}");
}

/* parallel i in n { }: lanes on the host pool (emit_par.c). */
static void emit_parallel(Ex *x, Node *s)
{
    emit_par_regions(x, &s, 1);
}

/* while c { }: a condition that needs statements of its own is computed at
 * the top of an endless loop, so continue recomputes it. */
static void emit_while(Ex *x, Node *s)
{
    Buf pre = {0};
    x->fn->indent++;
    const char *c = capture_expr(x, s->loop.cond, &pre);
    x->fn->indent--;
    /* for (;;) with the test inside, even when the condition needs no
     * statements: C11 lets a compiler assume that a loop whose controlling
     * expression is not a constant ends, and clang deleted an endless
     * `while k > 0 { k = k * 1; }`; a CAIRN loop that never ends must
     * never end (tests/lang/test_endless_loop.sh) */
    const struct FastLoop *L = fast_loop(x, s);
    if (L)
        fast_emit_group(x, s, L);
    emit_line(x, "for (;;) {");
    buf_append(x->a, x->fn->out, &pre);
    x->fn->indent++;
    emit_line(x, "if (!(%s))", c);
    emit_line(x, "    break;");
    emit_line(x, "{");
    emit_block(x, s->loop.body, true);
    emit_line(x, "}");
    x->fn->indent--;
    emit_line(x, "}");
}

/* Everything a function does on its way out, after the value is known. */
static void release_for_return(Ex *x)
{
    release_until_loop(x, true);
    if (x->fn->has_envs && x->fn->free_envs)
        emit_line(x, "cn_env_free_all(&cn_envs);");
}

static bool has_releases(Ex *x)
{
    for (EScope *s = x->fn->scope; s; s = s->up)
        if (s->releases.n)
            return true;
    return x->fn->has_envs && x->fn->free_envs;
}

/* return e: the value is computed before anything is released (it may read
 * a buffer), then every owner of the function is released. */
static void emit_return(Ex *x, Node *s)
{
    Node *e = s->unary.a;
    if (!e) {
        release_for_return(x);
        emit_line(x, "return;");
        return;
    }
    const char *v = emit_expr(x, e);
    if (!has_releases(x)) {
        emit_line(x, "return %s;", v);
        return;
    }
    emit_line(x, "{");
    x->fn->indent++;
    emit_line(x, "const %s cn_ret = %s;", emit_ctype(x, x->fn->ret), v);
    release_for_return(x);
    emit_line(x, "return cn_ret;");
    x->fn->indent--;
    emit_line(x, "}");
}

static void emit_const_stmt(Ex *x, Node *s)
{
    Sym *sym = s->let.sym;
    if (sym && sym->has_value)
        return;   /* every use is replaced by its value */
    emit_let(x, s);
}

static void emit_stmt(Ex *x, Node *s)
{
    if (s->kind != N_BLOCK && s->kind != N_UNSAFE)
        emit_loc(x, s);
    switch (s->kind) {
    case N_BLOCK:
    case N_UNSAFE:
        emit_line(x, "{");
        emit_block(x, s, false);
        emit_line(x, "}");
        break;
    case N_LET: emit_let(x, s); break;
    case N_CONST: emit_const_stmt(x, s); break;
    case N_BUFFER: emit_buffer(x, s); break;
    case N_ASSIGN: emit_assign(x, s); break;
    case N_EXPR_STMT: emit_expr_stmt(x, s); break;
    case N_IF: emit_if(x, s); break;
    case N_FOR: emit_for(x, s); break;
    case N_PARALLEL: emit_parallel(x, s); break;
    case N_COOP: emit_coop(x, s); break;
    case N_SHARED: case N_PIPELINE: emit_coop_shared(x, s); break;
    case N_BARRIER: emit_coop_barrier(x); break;
    case N_WHILE: emit_while(x, s); break;
    case N_BREAK:
        release_until_loop(x, false);
        emit_line(x, "break;");
        break;
    case N_CONTINUE:
        release_until_loop(x, false);
        emit_line(x, "continue;");
        break;
    case N_RETURN: emit_return(x, s); break;
    default:
        die("emit: %s statements are not lowered to C yet", node_kind_name(s->kind));
    }
}

/* ------------------------------------------------------------ functions */

/* Does this function body make closures (not counting those inside the
 * closures it makes, which are theirs)? */
static bool has_closure_in(Node *n, int depth);

static bool any_closure(const Vec *v, int depth)
{
    for (int i = 0; i < v->n; i++)
        if (has_closure_in(v->v[i], depth))
            return true;
    return false;
}

static bool has_closure_in(Node *n, int depth)
{
    if (!n)
        return false;
    switch (n->kind) {
    case N_CLOSURE: return depth == 0 ? true : false;
    case N_UNARY: case N_EXPR_STMT: case N_RETURN: return has_closure_in(n->unary.a, depth);
    case N_BINARY:
        for (; n->kind == N_BINARY; n = n->binary.a)   /* down a chain: no recursion (chain.h) */
            if (has_closure_in(n->binary.b, depth))
                return true;
        return has_closure_in(n, depth);
    case N_CALL:
        return has_closure_in(n->call.callee, depth) || any_closure(&n->call.args, depth);
    case N_INDEX: return has_closure_in(n->index.base, depth) || has_closure_in(n->index.index, depth);
    case N_SLICE:
        return has_closure_in(n->slice.base, depth) || has_closure_in(n->slice.lo, depth) ||
               has_closure_in(n->slice.hi, depth);
    case N_FIELD: return has_closure_in(n->field.base, depth);
    case N_COLLECT:
        return has_closure_in(n->collect.dest, depth) || has_closure_in(n->collect.extent, depth) ||
               has_closure_in(n->collect.keep, depth) || has_closure_in(n->collect.value, depth);
    case N_BLOCK: case N_UNSAFE: return any_closure(&n->block.stmts, depth);
    case N_LET: case N_CONST: return has_closure_in(n->let.init, depth);
    case N_BUFFER: return has_closure_in(n->buffer.size, depth);
    case N_ASSIGN: return has_closure_in(n->assign.lhs, depth) || has_closure_in(n->assign.rhs, depth);
    case N_IF:
        for (; n && n->kind == N_IF; n = n->if_.els)   /* an else-if chain: a loop */
            if (has_closure_in(n->if_.cond, depth) || has_closure_in(n->if_.then, depth))
                return true;
        return has_closure_in(n, depth);
    case N_FOR: case N_WHILE: case N_PARALLEL:
        return has_closure_in(n->loop.lo, depth) || has_closure_in(n->loop.hi, depth) ||
               has_closure_in(n->loop.cond, depth) || has_closure_in(n->loop.body, depth);
    default: return false;
    }
}

bool emit_has_closure(Node *n)
{
    return has_closure_in(n, 0);
}

/* devices.md, "One wait, or none": a function whose effect row holds another
 * way to observe device memory than the runtime's own observation points
 * (I/O, a call through a function value, an atomic update outside a device region, a @unified
 * element) keeps each device operation waiting where it stands. A closure
 * has no row of its own here, so it waits too. */
static bool fn_unheld(Node *fn)
{
    const FnEff *f = fn->kind == N_FN ? fn->fn.effects : NULL;
    if (!f)
        return true;
    unsigned other = (1u << EF_IO) | (1u << EF_VALUE) | (1u << EF_HOST_ATOMIC) | (1u << EF_UNIFIED);
    return (f->bits & other) != 0;
}

/* Where a function's output is written. A top-level function writes at the
 * end of a large block it shares with the ones before it, and its text is
 * kept where it was written (a block is started anew when little is left;
 * a function that outgrows the block moves, as any buffer grows). A closure
 * or helper written while its maker is being written gets a scratch buffer
 * of its nesting level, reused, its text copied out at its exact size. A
 * buffer of its own per function, doubled as it grew, left twice the
 * program's C in the arena, and filling the arena's pages was a fifth of
 * emitting. */
enum { RUN_BLOCK = 4 << 20, RUN_SLACK = 64 << 10 };

static Buf *fn_buf_open(Ex *x)
{
    if (x->fn_level == x->fn_bufs.n)
        vec_push(x->a, &x->fn_bufs, arena_alloc(x->a, sizeof(Buf)));
    Buf *b = x->fn_bufs.v[x->fn_level++];
    if (x->fn_level == 1) {
        if (x->run_cap - x->run_used < RUN_SLACK) {
            x->run = arena_alloc(x->a, RUN_BLOCK);
            x->run_cap = RUN_BLOCK;
            x->run_used = 0;
        }
        b->s = x->run + x->run_used;
        b->cap = x->run_cap - x->run_used;
    }
    b->n = 0;
    if (b->s)
        b->s[0] = '\0';
    return b;
}

static void fn_buf_close(Ex *x, Buf *b)
{
    if (x->fn_level == 1) {
        if (b->s == x->run + x->run_used)
            x->run_used += b->n + 1;   /* it stayed in the block: the rest of the block is free */
        emit_defs_add(x, b);           /* kept where it is */
        memset(b, 0, sizeof *b);
    } else {
        Buf exact = {arena_strndup(x->a, b->s ? b->s : "", b->n), b->n, b->n + 1};
        emit_defs_add(x, &exact);
    }
    x->fn_level--;
}

/* The body of a function or closure, after its header line: its own
 * output, scope and closure list, appended to the definitions when done. */
void emit_fn_body(Ex *x, Node *fn, const char *cname, const Vec *captures, const char *header)
{
    (void)cname;
    Buf *out = fn_buf_open(x);
    EFn f = {0};
    f.fn = fn;
    f.ret = emit_fn_ret(fn);
    f.out = out;
    f.indent = 1;
    f.captures = captures;
    f.unheld = fn_unheld(fn);
    f.has_envs = emit_has_closure(fn->fn.body);
    f.free_envs = !type_has_fn(f.ret);
    EFn *saved = x->fn;
    x->fn = &f;
    buf_printf(x->a, out, "%s\n{\n", header);
    if (fn->kind == N_FN && fn->fn.id) {
        /* the stack check (cairn_rt.h); a program's or a test's first CAIRN
         * function starts the fault report and interrupt watcher (cairn_proc.h) */
        emit_line(x, "CN_STACK_CHECK(%s, CN_AT(%d, %d));", emit_str_lit(x, fn->fn.id), fn->span.line, fn->span.col);
        if (fn->fn.is_test || (!strcmp(fn->fn.id, "main") && x->e->with_main))
            emit_line(x, "cn_program_begin();");
    }
    if (captures && captures->n)
        emit_line(x, "struct cn_env_%s *cn_env = (struct cn_env_%s *)cn_envp;", cname, cname);
    else if (fn->kind == N_CLOSURE)
        emit_line(x, "(void)cn_envp;");
    if (f.has_envs && f.free_envs)
        emit_line(x, "cn_env_head *cn_envs = NULL;");
    if (fn->fn.expr_body) {
        Node ret = {0};
        ret.kind = N_RETURN;
        ret.span = fn->fn.body->span;
        ret.unary.a = f.ret->kind == TY_VOID ? NULL : fn->fn.body;
        EScope *root = scope_open(x, false);
        emit_loc(x, fn->fn.body);
        if (!ret.unary.a)
            emit_line(x, "%s;", emit_expr(x, fn->fn.body));
        emit_return(x, &ret);
        x->fn->scope = root->up;
    } else {
        emit_block_inner(x, fn->fn.body, false);
        Vec *st = &fn->fn.body->block.stmts;
        if (f.has_envs && f.free_envs && !(st->n && is_jump(st->v[st->n - 1])))
            emit_line(x, "cn_env_free_all(&cn_envs);");
    }
    buf_printf(x->a, out, "}\n\n");
    x->fn = saved;
    fn_buf_close(x, out);
}


static bool fn_is_emitted(const Node *fn)
{
    if (fn->fn.is_extern || !fn->fn.body)
        return false;
    return !(fn->fn.generics.n > 0 && !fn->fn.is_instance);
}

static void emit_fn(Ex *x, Node *fn)
{
    if (!fn_is_emitted(fn))
        return;
    if (!fn->fn.cname)
        die("emit: function %s has no C name", fn->fn.id);
    Buf params = {0};
    emit_params_decl(x, fn, &params, false);
    /* what a device lane reaches is device code too: both sides (a kernel
     * fn: the device only, CN_DEV_LANE) */
    const char *qual = fn->fn.is_kernel ? "CN_DEV_LANE" : fn->fn.on_device ? "CN_DEV_BOTH" : "static";
    if (fn->fn.on_device)
        x->uses_dev = true;
    const char *header = emit_fmt(x, "%s %s %s(%s)", qual, emit_ctype(x, emit_fn_ret(fn)),
                                      fn->fn.cname, params.s);
    buf_printf(x->a, &x->protos, "%s;\n", header);
    emit_fn_body(x, fn, fn->fn.cname, NULL, header);
}

/* ----------------------------------------------------------------- entry */

static Node *find_main(const Check *c)
{
    for (int i = 0; i < c->fns.n; i++) {
        Node *fn = c->fns.v[i];
        if (fn->fn.id && !strcmp(fn->fn.id, "main") && !fn->fn.is_test)
            return fn;
    }
    return NULL;
}

static void emit_c_main(Ex *x)
{
    Node *m = find_main(x->e->check);
    if (!m)
        return;
    Buf *d = &x->defs;
    buf_printf(x->a, d, "int main(int argc, char **argv)\n{\n    (void)argc;\n    (void)argv;\n");
    /* Leaving main waits for the open run and gives the thread's context back (its streams and
     * scratch arena): a pthread key's destructor never runs for the main thread, so without this
     * memcheck reports the arena as leaked. */
    const char *leave = x->uses_dev ? "    cn_exec_release_thread();\n" : "";
    if (emit_fn_ret(m)->kind == TY_VOID)
        buf_printf(x->a, d, "    %s();\n%s    return 0;\n}\n", m->fn.cname, leave);
    else
        buf_printf(x->a, d, "    const int cn_r = (int)%s();\n%s    return cn_r;\n}\n", m->fn.cname, leave);
}

/* The test runner's entry: argv[1] names the test fn to run (exit 0 when it
 * returns; a failing guard aborts); --list, or no argument, prints their
 * names, one a line. */
static void emit_test_main(Ex *x)
{
    Buf *d = &x->defs;
    const Vec *fns = &x->e->check->fns;
    buf_printf(x->a, d, "int main(int argc, char **argv)\n{\n");
    buf_printf(x->a, d, "    if (argc < 2 || strcmp(argv[1], \"--list\") == 0) {\n");
    Vec tests = {0};
    NameSet names = {0};
    for (int i = 0; i < fns->n; i++) {
        Node *fn = fns->v[i];
        if (fn->fn.is_test && nameset_add(x->a, &names, fn->fn.cname))
            vec_push(x->a, &tests, fn);
    }
    for (int i = 0; i < tests.n; i++)
        buf_printf(x->a, d, "        puts(%s);\n", emit_str_lit(x, ((Node *)tests.v[i])->fn.id));
    buf_printf(x->a, d, "        return argc < 2 ? 2 : 0;\n    }\n");
    for (int i = 0; i < tests.n; i++) {
        Node *fn = tests.v[i];
        buf_printf(x->a, d, "    if (strcmp(argv[1], %s) == 0) {\n        %s();\n%s        return 0;\n    }\n",
                   emit_str_lit(x, fn->fn.id), fn->fn.cname, x->uses_dev ? "        cn_exec_release_thread();\n" : "");
    }
    buf_printf(x->a, d, "    fprintf(stderr, \"no test named %%s\\n\", argv[1]);\n    return 2;\n}\n");
}

void emit_program(Emit *e)
{
    Ex x = {0};
    x.e = e;
    x.a = e->arena;
    const char *name = "program.cairn";
    if (e->check->program && e->check->program->span.src && e->check->program->span.src->name)
        name = e->check->program->span.src->name;
    x.file_lit = emit_str_lit(&x, name);
    NameSet done = {0};   /* C names written: a function listed twice is written once */
    for (int i = 0; i < e->check->fns.n; i++) {
        Node *fn = e->check->fns.v[i];
        if (!fn->fn.cname || nameset_add(x.a, &done, fn->fn.cname))
            emit_fn(&x, fn);
    }
    if (e->header)
        emit_library(&x, e->header, e->lib_name ? e->lib_name : "lib");
    if (e->test_main)
        emit_test_main(&x);
    else if (e->with_main)
        emit_c_main(&x);
    fprintf(e->out, "/* Generated by cairn from %s: C17 and C++17. Do not edit. */\n", name);
    fprintf(e->out, "#include \"cairn_rt.h\"\n%s%s%s%s%s%s%s%s\n", x.uses_math ? "#include \"cairn_math.h\"\n" : "",
            x.uses_float ? "#include \"cairn_float.h\"\n" : "", x.uses_wide ? "#include \"cairn_wide.h\"\n" : "",
            x.uses_par ? "#include \"cairn_par.h\"\n" : "", x.uses_coop ? "#include \"cairn_coop.h\"\n" : "",
            x.uses_dev ? "#include \"cairn_exec.h\"\n" : "", x.uses_mma ? "#include \"cairn_mma.h\"\n" : "",
            x.uses_frag ? "#include \"cairn_frag.h\"\n" : "");
    if (e->header)
        fprintf(e->out, "#ifdef __cplusplus\n#define CN_EXPORT extern \"C\"\n#else\n#define CN_EXPORT\n#endif\n\n");
    fprintf(e->out, "/* The location of a guard: source name, line, column. */\n");
    fprintf(e->out, "#define CN_FILE %s\n#define CN_AT(line, col) CN_FILE, line, col\n\n", x.file_lit);
    fwrite(x.types.s ? x.types.s : "", 1, x.types.n, e->out);
    fwrite(x.protos.s ? x.protos.s : "", 1, x.protos.n, e->out);
    fprintf(e->out, "\n");
    fwrite(x.kernels.s ? x.kernels.s : "", 1, x.kernels.n, e->out);
    for (int i = 0; i < x.def_pieces.n; i++) {
        const Buf *b = x.def_pieces.v[i];
        fwrite(b->s, 1, b->n, e->out);
    }
    fwrite(x.defs.s ? x.defs.s : "", 1, x.defs.n, e->out);
}
