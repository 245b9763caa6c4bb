/*
 * emit_coop.c: cooperative regions on host threads (issue 13), against
 * runtime/cairn_coop.h.
 *
 * Requires: a region every rule accepted (check_coop.c, coop_global.c),
 * placed on the host.
 * Guarantees: `blocks b in G threads t in T { body } [then threads u in T
 * { fin }]` becomes one cn_coop_run call: the body (and the finish) as a
 * function every thread of every block calls, its names recovered from the
 * flat block and thread numbers, its shared arrays at the 128-byte offsets of
 * a layout table the runtime prepares (zeroed, or filled with a pattern),
 * barrier as cn_coop_barrier, the warp operations as the runtime's, floats by
 * their bits, `reduce OP warp` through a combine function written per use.
 */
#include "emit.h"
#include "par.h"
#include "sym.h"

#include <string.h>

/* The layout of one body's shared arrays: each directly in the body, in
 * order, on a 128-byte boundary (the checker held them to 48 KiB). */
struct CoopLayout {
    Vec syms;             /* Sym* of the arrays */
    Vec offs;             /* the offsets, as (void *)(intptr_t) */
    int64_t bytes;
};
typedef struct CoopLayout Layout;

static int64_t elem_bytes(const Type *t)
{
    int bits = type_bits(t);
    return bits ? bits / 8 : 1;
}

static void layout_of(Ex *x, Node *body, Layout *L)
{
    memset(L, 0, sizeof *L);
    for (int i = 0; body && i < body->block.stmts.n; i++) {
        Node *s = body->block.stmts.v[i];
        int64_t n;
        if (s->kind != N_SHARED || !s->buffer.sym || !s->buffer.sym->ty || !s->buffer.sym->ty->extent ||
            !sym_const(x->a, s->buffer.sym->ty->extent, &n))
            continue;
        int64_t off = (L->bytes + 127) / 128 * 128;
        vec_push(x->a, &L->syms, s->buffer.sym);
        vec_push(x->a, &L->offs, (void *)(intptr_t)off);
        L->bytes = off + n * elem_bytes(s->buffer.sym->ty->elem);
    }
}

/* The static layout table, named, at file scope. */
static const char *layout_table(Ex *x, Node *body, const Layout *L, const char *name)
{
    Buf b = {0};
    int k = 0;
    if (L->syms.n) {
        buf_printf(x->a, &b, "static const struct cn_coop_array %s_arrays[] = {", name);
        for (int i = 0; i < body->block.stmts.n; i++) {
            Node *s = body->block.stmts.v[i];
            if (s->kind != N_SHARED || k >= L->syms.n || s->buffer.sym != L->syms.v[k])
                continue;
            int64_t n = 0;
            sym_const(x->a, s->buffer.sym->ty->extent, &n);
            buf_printf(x->a, &b, "%s{%lld, %lld, %d}", k ? ", " : "", (long long)(intptr_t)L->offs.v[k],
                       (long long)(n * elem_bytes(s->buffer.sym->ty->elem)), s->buffer.zeroed ? 1 : 0);
            k++;
        }
        buf_printf(x->a, &b, "};\n");
    }
    buf_printf(x->a, &b, "static const struct cn_coop_layout %s = {%lld, %s, %d};\n\n", name, (long long)L->bytes,
               L->syms.n ? emit_fmt(x, "%s_arrays", name) : "NULL", L->syms.n);
    buf_append(x->a, &x->types, &b);
    return name;
}

/* A shared array, in the body function: a view of its place in the block's
 * memory. */
void emit_coop_shared(Ex *x, Node *s)
{
    const Layout *L = x->coop_layout;
    Sym *y = s->buffer.sym;
    for (int i = 0; L && i < L->syms.n; i++)
        if (L->syms.v[i] == y) {
            const char *suf = emit_suffix(y->ty->elem), *ct = emit_ctype(x, y->ty->elem);
            int64_t n = 0;
            sym_const(x->a, y->ty->extent, &n);
            emit_line(x, "cn_view_%s %s = cn_view_%s_make((%s *)(cn_shared + %lld), %lld);", suf, y->cname, suf, ct,
                      (long long)(intptr_t)L->offs.v[i], (long long)n);
            return;
        }
    die("emit: shared array %s has no place in its block's layout", y->id);
}

void emit_coop_barrier(Ex *x)
{
    if (!x->coop_layout)
        die("emit: a barrier outside a cooperative region");
    emit_line(x, "cn_coop_barrier(cn_th);");
}

/* The names of a side from the flat number: the first fastest. */
static void names_from(Ex *x, const Vec *syms, const char *flat, const char **ext)
{
    const char *rest = flat;
    for (int i = 0; i < syms->n; i++) {
        Sym *s = syms->v[i];
        if (i + 1 < syms->n) {
            emit_line(x, "const size_t %s = %s %% %s;", s->cname, rest, ext[i]);
            const char *r = emit_tmp(x, "rest");
            emit_line(x, "const size_t %s = %s / %s;", r, rest, ext[i]);
            rest = r;
        } else {
            emit_line(x, "const size_t %s = %s;", s->cname, rest);
        }
        emit_line(x, "(void)%s;", s->cname);
    }
}

/* One body function: the region's or its finish's. */
static const char *body_fn(Ex *x, Node *s, bool finish, Ctxt *u, const char **gext)
{
    Node *body = finish ? s->coop.finish : s->coop.body;
    const Vec *tsyms = finish ? &s->coop.fsyms : &s->coop.tsyms, *text = finish ? &s->coop.fext : &s->coop.text;
    Layout *L = arena_alloc(x->a, sizeof *L);
    layout_of(x, body, L);
    const char *name = emit_fmt(x, "%s_%s", u->name, finish ? "finish" : "body");
    LaneFn F;
    lane_fn_begin(x, &F, emit_fmt(x, "static void %s(void *cn_vc, size_t cn_block, unsigned cn_thread, unsigned char "
                                     "*cn_shared, struct cn_coop_thread *cn_th)", name));
    ctx_unpack(x, u);
    emit_line(x, "(void)cn_block; (void)cn_shared; (void)cn_th;");
    if (!finish)
        names_from(x, &s->coop.bsyms, "cn_block", gext);
    const char **te = arena_alloc(x->a, sizeof *te * 4);
    for (int i = 0; i < text->n && i < 3; i++) {
        int64_t v = 1;
        sym_const(x->a, text->v[i], &v);
        te[i] = emit_fmt(x, "%lldu", (long long)v);
    }
    names_from(x, tsyms, "(size_t)cn_thread", te);
    const Layout *saved = x->coop_layout;
    x->coop_layout = L;
    emit_line(x, "{");
    emit_block(x, body, false);
    emit_line(x, "}");
    x->coop_layout = saved;
    lane_fn_end(x, &F);
    layout_table(x, body, L, emit_fmt(x, "%s_layout", name));
    return name;
}

void emit_coop(Ex *x, Node *s)
{
    if (s->coop.device)
        die("emit: cooperative regions on the device are not lowered yet");
    x->uses_par = true;
    x->uses_coop = true;
    Caps caps = {0};
    caps_add(x, &caps, s->coop.body);
    caps_add(x, &caps, s->coop.finish);
    const Vec *sides[3] = {&s->coop.bsyms, &s->coop.tsyms, &s->coop.fsyms};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < sides[k]->n; i++)
            if (ptrset_add(x->a, &caps.declared_set, sides[k]->v[i]))
                vec_push(x->a, &caps.declared, sides[k]->v[i]);
    Ctxt u = {0};
    u.name = emit_tmp(x, "coop");
    /* the grid's extents, computed once where the region starts */
    emit_line(x, "{");
    x->fn->indent++;
    const char **gext = arena_alloc(x->a, sizeof *gext * 4), *G = emit_tmp(x, "grid");
    emit_line(x, "size_t %s = 1;", G);
    for (int i = 0; i < s->coop.bext.n && i < 3; i++) {
        Node *e = s->coop.bext.v[i];
        const char *v = emit_tmp(x, "g");
        emit_line(x, "const size_t %s = %s;", v, emit_expr(x, e));
        emit_line(x, "if (__builtin_mul_overflow(%s, %s, &%s))", G, v, G);
        /* the grid's block count past usize: the product as the page's checked arithmetic reports it */
        emit_line(x, "    cn_fail_binop_u(%s, (unsigned long long)%s, \"*\", (unsigned long long)%s, \"usize\");",
                  emit_at(x, e->span), G, v);
        gext[i] = emit_fmt(x, "cn_c->%s", v);
        field(x, &u, "size_t", v, v);
    }
    capture_fields(x, &u, &caps, NULL, NULL);
    ctx_struct(x, &u);
    const char *v = ctx_fill(x, &u);
    for (int i = 0; i < s->coop.bext.n && i < 3; i++)
        gext[i] = (const char *)u.fields.v[i];
    const char *body = body_fn(x, s, false, &u, gext);
    const char *fin = s->coop.finish ? body_fn(x, s, true, &u, gext) : NULL;
    emit_line(x, "(void)cn_coop_run(%s, %lldu, &%s_layout, %s, %s, %s, &%s);", G, (long long)s->coop.threads, body,
              body, fin ? emit_fmt(x, "&%s_layout", fin) : "NULL", fin ? fin : "NULL", v);
    x->fn->indent--;
    emit_line(x, "}");
}

/* ------------------------------------------------------------ warp operations */

/* A value's bits as a u32 or u64 (floats by memcpy), and back. */
static const char *to_bits(Ex *x, Type *t, const char *v, bool *wide)
{
    *wide = type_bits(t) == 64;
    const char *u = *wide ? "uint64_t" : "uint32_t";
    if (type_is_float(t))
        return emit_fmt(x, "cn_coop_bits_%s(%s)", emit_suffix(t), v);
    return emit_fmt(x, "(%s)(%s)", u, v);
}

static const char *from_bits(Ex *x, Type *t, const char *b)
{
    if (type_is_float(t))
        return emit_fmt(x, "cn_coop_from_bits_%s(%s)", emit_suffix(t), b);
    return emit_fmt(x, "(%s)(%s)", emit_ctype(x, t), b);
}

const char *emit_warp_op(Ex *x, Node *e)
{
    int b = e->call.builtin;
    Node **args = (Node **)e->call.args.v;
    const char *v0 = emit_operand(x, args[0]);
    switch (b) {
    case B_WARP_BALLOT: return emit_fmt(x, "cn_coop_ballot(cn_th, %s)", v0);
    case B_WARP_ANY: return emit_fmt(x, "cn_coop_any(cn_th, %s)", v0);
    case B_WARP_ALL: return emit_fmt(x, "cn_coop_all(cn_th, %s)", v0);
    default: break;
    }
    bool wide;
    const char *bits = to_bits(x, args[0]->ty, v0, &wide);
    const char *w = wide ? "u64" : "u32";
    if (b == B_WARP_MATCH)
        return emit_fmt(x, "cn_coop_match_%s(cn_th, %s)", w, bits);
    const char *k = emit_operand(x, args[1]);
    const char *fn = b == B_SHUFFLE ? "shfl" : b == B_SHUFFLE_XOR ? "shfl_xor" : b == B_SHUFFLE_DOWN ? "shfl_down"
                   : "shfl_up";
    return from_bits(x, args[0]->ty, emit_fmt(x, "cn_coop_%s_%s(cn_th, %s, %s)", fn, w, bits, k));
}

/* reduce OP warp yield v: a combine function of the lower lane's value and
 * the higher lane's, written for this use (its guard names this place). */
const char *emit_warp_reduce(Ex *x, Node *e)
{
    Type *t = e->ty;
    bool wide = type_bits(t) == 64;
    const char *u = wide ? "uint64_t" : "uint32_t", *ct = emit_ctype(x, t), *name = emit_tmp(x, "wop");
    Buf d = {0};
    buf_printf(x->a, &d, "static %s %s(%s cn_lo, %s cn_hi)\n{\n", u, name, u, u);
    if (type_is_float(t)) {
        buf_printf(x->a, &d, "    %s a = cn_coop_from_bits_%s(cn_lo), b = cn_coop_from_bits_%s(cn_hi);\n", ct,
                   emit_suffix(t), emit_suffix(t));
        buf_printf(x->a, &d, "    return cn_coop_bits_%s(%s);\n}\n\n", emit_suffix(t),
                   emit_combine(x, e->collect.op, t, "a", "b", e->span));
    } else {
        buf_printf(x->a, &d, "    %s a = (%s)cn_lo, b = (%s)cn_hi;\n", ct, ct, ct);
        buf_printf(x->a, &d, "    return (%s)(%s);\n}\n\n", u, emit_combine(x, e->collect.op, t, "a", "b", e->span));
    }
    buf_append(x->a, &x->types, &d);
    const char *v = emit_operand(x, e->collect.value);
    bool w;
    const char *bits = to_bits(x, t, v, &w);
    return from_bits(x, t, emit_fmt(x, "cn_coop_reduce_%s(cn_th, %s, %s)", wide ? "u64" : "u32", bits, name));
}
