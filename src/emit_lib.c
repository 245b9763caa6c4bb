/*
 * emit_lib.c: the C entries of a library build (`cairn build --header`).
 *
 * Requires: a program check_program accepted, its effect rows computed
 * (fn.effects).
 * Guarantees: for each exported function (top level, not main, not a test,
 * not generic, not a kernel fn, every parameter a scalar, an rw<T> or a
 * view) the emitted C defines
 *
 *   cf_NAME(args)           the checked entry: builds each view from its
 *                           pointer and the extent its type names (computed
 *                           from the scalar arguments, checked), refuses a
 *                           NULL pointer with elements, calls the function,
 *                           and waits for its device work before returning
 *                           to the C caller (cn_exec_leave);
 *   cq_NAME(stream, args)   the enqueued entry, for a function with device
 *                           work whose effect row holds no way to observe
 *                           device memory (devices.md, "One wait, or none"):
 *                           the same checks, then the same work queued on
 *                           the caller's stream through a context on the
 *                           entry's own stack (no stream, event, allocation
 *                           or wait), returning at once;
 *
 * and cairn_LIB_device_stream(stream), which binds the calling thread's
 * synchronous device work to a caller's stream. The header declares them
 * with C linkage, and lists under E-ENQUEUE each function without a cq_
 * entry and the reason. The same signatures go to the receipt as JSON
 * (`exports`: each parameter's kind, type, access, placement and extent as
 * a tree over the integer parameters), so that a binding can check a
 * caller's arrays before any pointer crosses (issue 15).
 *
 * A library with no device work is plain C: no execution context, no
 * stream function, no cq_ entries (no function would have one), so its
 * object needs neither nvcc nor a device machine, and a C program links it
 * with the C library's math and threads alone (cli.md).
 */
#include "emit.h"
#include "par.h"

#include <string.h>

static bool exportable_type(const Type *t)
{
    if (!t)
        return false;
    if (t->kind == TY_VIEW || t->kind == TY_REF)
        return t->elem && type_is_scalar(t->elem);
    return type_is_scalar(t) || t->kind == TY_VOID;
}

/* Why a function has no C entry, or NULL when it has one. A benchmark
 * export names the reason (E-HARNESS-SYMBOL), so it is a sentence. */
static const char *no_entry(Ex *x, const Node *fn)
{
    if (!strcmp(fn->fn.id, "main"))
        return "it is the program's main";
    if (fn->fn.is_test)
        return "it is a test";
    if (fn->fn.is_kernel)
        return "it is a kernel fn, which only device code calls";
    if (fn->fn.is_extern || !fn->fn.body)
        return "it is declared without a body";
    if (fn->fn.generics.n)
        return "it is generic: only its instances, which CAIRN code makes, have code";
    for (int i = 0; i < fn->fn.params.n; i++) {
        Node *p = fn->fn.params.v[i];
        Type *t = emit_param_type(p);
        if (!exportable_type(t))
            return arena_printf(x->a, "its parameter %s is %s, which has no C form (a C entry takes scalars, "
                                      "rw<T> and views)", p->param.id, type_str(x->a, t));
    }
    Type *r = emit_fn_ret((Node *)fn);
    if (!exportable_type(r))
        return arena_printf(x->a, "it returns %s, which has no C form", type_str(x->a, r));
    return NULL;
}

/* Why a function gets no cq_ entry, or NULL when it gets one. */
static const char *no_enqueue(Ex *x, Node *fn)
{
    const FnEff *f = fn->fn.effects;
    unsigned b = f ? f->bits : 0;
    /* device work: lanes, device memory (a buffer of any device placement,
     * the arena), a copy with a device side, queued work */
    unsigned dev = (1u << EF_DEV) | (1u << EF_GPU_ALLOC) | (1u << EF_HOST_COPY) | (1u << EF_QUEUE);
    if (!(b & dev))
        return "it does no device work: cf_ runs it on the host and returns when it is done";
    if (emit_fn_ret(fn)->kind != TY_VOID)
        return "it returns a value, which the host has only once its work is done";
    if (b & (1u << EF_GPU_ALLOC))
        return "it allocates device memory: a device buffer, or the scratch of a device reduce, scan or compact, "
               "which grows when a call needs more than it holds, and a caller's graph capture cannot allocate";
    if (b & (1u << EF_HOST_COPY))
        return "it copies to or from host memory, which waits for the device work before it";
    if (b & (1u << EF_QUEUE))
        return "it queues work on streams of its own (spawn), and waits for it";
    static const struct { EffBit bit; const char *what; } other[] = {
        {EF_IO, "I/O"}, {EF_VALUE, "a call through a function value"}, {EF_HOST_ATOMIC, "an atomic update outside a device region"},
        {EF_UNIFIED, "a @unified view, which the host reads without a CUDA call"},
    };
    for (size_t i = 0; i < sizeof other / sizeof *other; i++)
        if (b & (1u << other[i].bit))
            return arena_printf(x->a, "its effect row has another way to observe device memory: %s", other[i].what);
    return NULL;
}

/* The C type of a parameter as a C caller passes it. */
static const char *c_param_type(Ex *x, const Type *t)
{
    if (t->kind == TY_VIEW)
        return arena_printf(x->a, "%s%s *", t->access == ACC_RW ? "" : "const ", emit_ctype(x, t->elem));
    if (t->kind == TY_REF)
        return arena_printf(x->a, "%s *", emit_ctype(x, t->elem));   /* "float *": no space before the name */
    return emit_ctype(x, (Type *)t);
}

/* "size_t n, float *out, ..." with the CAIRN names (header) or the C names
 * (definition: a view's pointer is cn_p_NAME). */
static const char *c_params(Ex *x, Node *fn, bool definition)
{
    Buf b = {0};
    for (int i = 0; i < fn->fn.params.n; i++) {
        Node *p = fn->fn.params.v[i];
        Type *t = emit_param_type(p);
        const char *name = !definition ? p->param.id
                           : t->kind == TY_VIEW ? arena_printf(x->a, "cn_p_%s", p->param.sym->cname)
                                                : p->param.sym->cname;
        const char *ct = c_param_type(x, t);
        buf_printf(x->a, &b, "%s%s%s%s", i ? ", " : "", ct, ct[strlen(ct) - 1] == '*' ? "" : " ", name);
    }
    return b.s ? b.s : "";
}

/* The body both entries share: the views made and checked, then the call. */
static void entry_body(Ex *x, Node *fn, const char *at)
{
    Buf args = {0};
    for (int i = 0; i < fn->fn.params.n; i++) {
        Node *p = fn->fn.params.v[i];
        Type *t = emit_param_type(p);
        const char *c = p->param.sym->cname;
        if (t->kind == TY_VIEW) {
            const char *n = emit_tmp(x, "n");
            const char *ext = t->extent ? emit_expr(x, t->extent) : "0";
            if (t->extent && type_is_signed(t->extent->ty))
                ext = arena_printf(x->a, "cn_to_usize_s((long long)(%s), %s)", ext, at);
            emit_line(x, "const size_t %s = %s;", n, ext);
            emit_line(x, "if (!cn_p_%s && %s)", c, n);
            emit_line(x, "    cn_guard_fail(%s, \"%s: %s is NULL, with %%zu elements\", %s);", at, fn->fn.id,
                      p->param.id, n);
            emit_line(x, "const cn_view_%s %s = cn_view_%s_make((%s *)cn_p_%s, %s);", emit_suffix(t->elem), c,
                      emit_suffix(t->elem), emit_ctype(x, t->elem), c, n);
        }
        buf_printf(x->a, &args, "%s%s", i ? ", " : "", c);
    }
    Type *ret = emit_fn_ret(fn);
    if (ret->kind == TY_VOID)
        emit_line(x, "%s(%s);", fn->fn.cname, args.s ? args.s : "");
    else
        emit_line(x, "const %s cn_r = %s(%s);", emit_ctype(x, ret), fn->fn.cname, args.s ? args.s : "");
}

static void entry(Ex *x, Node *fn, bool enqueue, FILE *h)
{
    Type *ret = emit_fn_ret(fn);
    const char *rt = emit_ctype(x, ret), *at = emit_at(x, fn->span);
    const char *pre = enqueue ? "cq_" : "cf_";
    const char *hp = c_params(x, fn, false), *dp = c_params(x, fn, true);
    const char *sep = fn->fn.params.n ? ", " : "";
    fprintf(h, "%s %s%s(%s%s%s);\n", rt, pre, fn->fn.id, enqueue ? "void *stream" : "", enqueue ? sep : "",
            enqueue ? hp : (*hp ? hp : "void"));
    Buf out = {0};
    EFn f = {0};
    f.fn = fn;
    f.ret = ret;
    f.out = &out;
    f.indent = 1;
    EFn *saved = x->fn;
    x->fn = &f;
    buf_printf(x->a, &out, "CN_EXPORT %s %s%s(%s%s%s)\n{\n", rt, pre, fn->fn.id, enqueue ? "void *cn_stream" : "",
               enqueue ? sep : "", enqueue ? dp : (*dp ? dp : "void"));
    if (x->uses_dev)
        emit_line(x, "cn_dev_entry_check();");   /* after a trap, the next entry aborts */
    if (enqueue) {
        emit_line(x, "struct cn_exec cn_q;");
        emit_line(x, "struct cn_exec *cn_saved = cn_exec_enqueue_begin(&cn_q, cn_stream);");
    }
    entry_body(x, fn, at);
    if (x->uses_dev)
        emit_line(x, enqueue ? "cn_exec_enqueue_end(&cn_q, cn_saved);" : "cn_exec_leave();");
    if (ret->kind != TY_VOID)
        emit_line(x, "return cn_r;");
    buf_printf(x->a, &out, "}\n\n");
    x->fn = saved;
    buf_append(x->a, &x->defs, &out);
}

/* ------------------------------------------------------------ the receipt's exports */

/* s as a JSON string (the names and types here are ASCII; quotes,
 * backslashes and control bytes are escaped all the same). */
static void json_quote(Arena *a, Buf *b, const char *s)
{
    buf_printf(a, b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p == '"' || *p == '\\')
            buf_printf(a, b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            buf_printf(a, b, "\\u%04x", *p);
        else
            buf_printf(a, b, "%c", *p);
    buf_printf(a, b, "\"");
}

/* Whether id names one of fn's integer parameters. */
static bool int_param(Node *fn, const char *id)
{
    for (int i = 0; i < fn->fn.params.n; i++) {
        Node *p = fn->fn.params.v[i];
        if (!strcmp(p->param.id, id))
            return type_is_int(emit_param_type(p));
    }
    return false;
}

/* A view's extent as a JSON tree a binding can evaluate before it passes a
 * pointer: {"param": "n"}, {"int": 4} or {"op": "+", "args": [A, B]} with
 * + - * / % (integer arithmetic: / and % truncate, and every value is
 * checked as the entry checks it: a negative or overflowing extent is an
 * error). Anything else (a call, a cast, a field) gives false, and the
 * binding must refuse to pass such a view: it cannot know its length. */
static bool extent_json(Arena *a, Buf *b, Node *fn, const Node *e)
{
    if (e->kind == N_INT && !e->lit.overflow) {
        buf_printf(a, b, "{\"int\": %llu}", (unsigned long long)e->lit.ival);
        return true;
    }
    if (e->kind == N_NAME && int_param(fn, e->name.id)) {
        buf_printf(a, b, "{\"param\": ");
        json_quote(a, b, e->name.id);
        buf_printf(a, b, "}");
        return true;
    }
    if (e->kind != N_BINARY)
        return false;
    TokKind op = e->binary.op;
    const char *o = op == T_PLUS ? "+" : op == T_MINUS ? "-" : op == T_STAR ? "*" : op == T_SLASH ? "/"
                    : op == T_PERCENT ? "%" : NULL;
    if (!o)
        return false;
    buf_printf(a, b, "{\"op\": \"%s\", \"args\": [", o);
    if (!extent_json(a, b, fn, e->binary.a))
        return false;
    buf_printf(a, b, ", ");
    if (!extent_json(a, b, fn, e->binary.b))
        return false;
    buf_printf(a, b, "]}");
    return true;
}

static const char *const place_names[] = {"host", "pinned", "unified", "device"};

/* One parameter: a scalar {"name", "kind": "scalar", "type"}, a view (with
 * its access, element, placement and extent) or an rw<T> reference. */
static void param_json(Ex *x, Buf *b, Node *fn, Node *p)
{
    Arena *a = x->a;
    Type *t = emit_param_type(p);
    buf_printf(a, b, "{\"name\": ");
    json_quote(a, b, p->param.id);
    buf_printf(a, b, ", \"type\": ");
    json_quote(a, b, type_str(a, t));
    if (t->kind != TY_VIEW && t->kind != TY_REF) {
        buf_printf(a, b, ", \"kind\": \"scalar\", \"c\": ");
        json_quote(a, b, emit_ctype(x, t));
        buf_printf(a, b, "}");
        return;
    }
    buf_printf(a, b, ", \"kind\": \"%s\", \"access\": \"%s\", \"elem\": ", t->kind == TY_VIEW ? "view" : "ref",
               t->access == ACC_RW ? "rw" : "ro");
    json_quote(a, b, type_str(a, t->elem));
    buf_printf(a, b, ", \"c\": ");
    json_quote(a, b, emit_ctype(x, t->elem));
    if (t->kind == TY_VIEW) {
        buf_printf(a, b, ", \"placement\": \"%s\", \"extent\": ", place_names[t->place]);
        Buf ext = {0};
        if (t->extent && extent_json(a, &ext, fn, t->extent))
            buf_append(a, b, &ext);
        else
            buf_printf(a, b, "null");
    }
    buf_printf(a, b, "}");
}

/* One exported function: its entries (cq null with the reason when there
 * is none), its parameters in order and its result. */
static void export_json(Ex *x, Buf *b, Node *fn, const char *no_cq)
{
    Arena *a = x->a;
    buf_printf(a, b, "%s\n    {\"name\": ", b->s ? "," : "");
    json_quote(a, b, fn->fn.id);
    buf_printf(a, b, ", \"cf\": \"cf_%s\", \"cq\": ", fn->fn.id);
    if (no_cq) {
        buf_printf(a, b, "null, \"no_cq\": ");
        json_quote(a, b, no_cq);
    } else {
        buf_printf(a, b, "\"cq_%s\"", fn->fn.id);
    }
    Type *ret = emit_fn_ret(fn);
    buf_printf(a, b, ", \"returns\": ");
    json_quote(a, b, ret->kind == TY_VOID ? "void" : type_str(a, ret));
    buf_printf(a, b, ", \"params\": [");
    for (int i = 0; i < fn->fn.params.n; i++) {
        buf_printf(a, b, "%s", i ? ", " : "");
        param_json(x, b, fn, fn->fn.params.v[i]);
    }
    buf_printf(a, b, "]}");
}

/* " * text" lines of at most about 110 columns, broken at spaces. */
static void comment_wrapped(FILE *h, const char *text)
{
    const char *p = text;
    while (*p) {
        size_t n = strlen(p);
        if (n > 110) {
            n = 110;
            while (n > 0 && p[n] != ' ')
                n--;
            if (n == 0)
                n = strlen(p);
        }
        fprintf(h, " * %.*s\n", (int)n, p);
        p += n;
        while (*p == ' ')
            p++;
    }
}

/* The header's opening: what the entries promise, the include guard, and
 * for a device library the stream binding. */
static void header_begin(Ex *x, FILE *h, const char *lib)
{
    char *guard = arena_printf(x->a, "CAIRN_%s_H", lib);
    for (char *p = guard; *p; p++)
        *p = (*p >= 'a' && *p <= 'z') ? (char)(*p - 'a' + 'A') : (*p >= '0' && *p <= '9') || *p == '_' ? *p
             : (*p >= 'A' && *p <= 'Z') ? *p : '_';
    if (x->uses_dev)
        fprintf(h, "/* Generated by cairn: the C entries of the library %s. Do not edit.\n"
                   " * cf_NAME checks its arguments, runs the work and returns when it is done; cq_NAME, where\n"
                   " * there is one, checks them as cf_NAME does and queues the same work on the caller's CUDA\n"
                   " * stream, returning without waiting (no stream, event or allocation is made). A failed\n"
                   " * guard in queued work surfaces at the caller's next synchronization. */\n", lib);
    else
        fprintf(h, "/* Generated by cairn: the C entries of the library %s, which does no device work. Do not\n"
                   " * edit. cf_NAME checks its arguments, runs the function and returns when it is done. A C\n"
                   " * program links it with: cc main.c -IDIR -LDIR -l%s -lm -lpthread (DIR: this header's). */\n",
                lib, lib);
    fprintf(h, "#ifndef %s\n#define %s\n\n#include <stddef.h>\n#include <stdint.h>\n#ifndef __cplusplus\n"
               "#include <stdbool.h>\n#endif\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", guard, guard);
    if (!x->uses_dev)
        return;
    fprintf(h, "/* Synchronous device work of the calling thread runs on this stream (NULL: its own). */\n");
    fprintf(h, "void cairn_%s_device_stream(void *stream);\n\n", lib);
    buf_printf(x->a, &x->defs, "CN_EXPORT void cairn_%s_device_stream(void *cn_stream)\n{\n"
                               "    cn_exec_bind_stream(cn_stream);\n}\n\n", lib);
}

void emit_library(Ex *x, FILE *h, const char *lib)
{
    /* a function a lane reaches has set uses_dev already */
    if (x->e->check->device_work > 0)
        x->uses_dev = true;
    const Vec *fns = &x->e->check->fns;
    header_begin(x, h, lib);
    Vec refused = {0}, why = {0};
    Buf exports = {0}, unexported = {0};
    for (int i = 0; i < fns->n; i++) {
        Node *fn = fns->v[i];
        if (!fn->fn.id || fn->fn.is_instance)
            continue;
        const char *no = no_entry(x, fn);
        if (no) {
            buf_printf(x->a, &unexported, "%s{\"name\": ", unexported.s ? ", " : "");
            json_quote(x->a, &unexported, fn->fn.id);
            buf_printf(x->a, &unexported, ", \"line\": %d, \"reason\": ", fn->span.line);
            json_quote(x->a, &unexported, no);
            buf_printf(x->a, &unexported, "}");
            continue;
        }
        entry(x, fn, false, h);
        const char *r = x->uses_dev ? no_enqueue(x, fn) : NULL;
        export_json(x, &exports, fn, x->uses_dev ? r : "it does no device work: cf_ runs it on the host");
        if (r) {
            vec_push(x->a, &refused, fn);
            vec_push(x->a, &why, (void *)r);
        } else if (x->uses_dev) {
            entry(x, fn, true, h);
        }
    }
    if (refused.n) {
        fprintf(h, "/* No enqueued entry (E-ENQUEUE), because each must wait on the host before it returns:\n");
        for (int i = 0; i < refused.n; i++)
            comment_wrapped(h, arena_printf(x->a, "%s: %s.", ((Node *)refused.v[i])->fn.id, (const char *)why.v[i]));
        fprintf(h, " */\n");
    }
    fprintf(h, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
    Buf j = {0};
    buf_printf(x->a, &j, "{\"library\": ");
    json_quote(x->a, &j, lib);
    buf_printf(x->a, &j, ", \"device\": %s, \"functions\": [%s%s], \"unexported\": [%s]}",
               x->uses_dev ? "true" : "false", exports.s ? exports.s : "", exports.s ? "\n  " : "",
               unexported.s ? unexported.s : "");
    x->e->exports = j.s;
}
