/*
 * emit_dev.c: device work as C that nvcc compiles for the device and cc
 * compiles for an emulated machine (runtime/cairn_dev.h, cairn_exec.h).
 *
 * Requires: a program check_program accepted: a region or collector marked
 * device reaches only @device (or @unified) memory, and every function its
 * lanes reach is marked on_device (check_dev.c).
 * Guarantees: the same emitted text runs on every machine; a lane is one
 * function of its context struct and one index, named by CN_DEV_KERNEL, so
 * the lanes of a region are a kernel on the CUDA machine and pool blocks on
 * the emulated one.
 *
 * A region `parallel i in n { body }` over @device views becomes
 *
 *     struct cn_dregionK { <what the body reads from outside> };
 *     CN_DEV_LANE void cn_dregionK_lane(const struct cn_dregionK *cn_c, size_t cn_i)
 *     { <the fields as locals>; const size_t i = cn_i; body }
 *     CN_DEV_KERNEL(cn_dregionK_k, struct cn_dregionK, cn_dregionK_lane, 256)
 *
 * and at its place, the struct filled and cn_exec_launch on the thread's
 * run: no wait. A function the one-wait rule keeps unheld (its effect row
 * has another way to observe: I/O, a call through a function value, an
 * atomic update, a @unified element) waits after each device operation.
 *
 * A collector runs in passes of independent lanes (cairn_dev.h, "the parts
 * of a device collector"): the parts' partials, then one lane that
 * combines them in order and stores the total, into the @device element
 * named, or into scratch that one copy brings back to the host. A scan and
 * a compaction add a third pass that writes each part from the partials
 * before it. Temporaries come from the context's arena.
 */
#include "emit.h"
#include "par.h"
#include "wide.h"

#include <string.h>

enum { DEV_THREADS = 256 };
/* Terms a collector's fold computes before folding any: a device thread's
 * loads in flight. 4 and 8 measured the same on the H200 with 1024 blocks;
 * 8 keeps enough in flight with the 512 blocks a pass now has. */
enum { FOLD_WIDTH = 8 };

/* ------------------------------------------------------------ lanes */

/* A device function of context K: a region's lane (PARAMS "size_t cn_i"),
 * or one of the functions the runtime's collector passes are written
 * around (cairn_dev.h, "the passes of a device collector"): K_ident,
 * K_merge, K_fold, K_term, K_put, K_finish. With UNPACK it takes the
 * context struct first and unpacks its fields into locals. */
static void dev_fn_begin(Ex *x, LaneFn *L, Ctxt *k, const char *suffix, const char *params, bool unpack)
{
    lane_fn_open(x, L);
    if (!unpack) {
        buf_printf(x->a, &L->out, "CN_DEV_LANE void %s%s(%s)\n{\n", k->name, suffix, params);
        return;
    }
    buf_printf(x->a, &L->out, "CN_DEV_LANE void %s%s(const struct %s *cn_c, %s)\n{\n", k->name, suffix, k->name,
               params);
    for (int i = 0; i < k->fields.n; i++)
        emit_line(x, "%s %s = cn_c->%s; (void)%s;", (const char *)k->ctypes.v[i], (const char *)k->fields.v[i],
                  (const char *)k->fields.v[i], (const char *)k->fields.v[i]);
}

static void dev_fn_end(Ex *x, LaneFn *L)
{
    buf_printf(x->a, &L->out, "}\n");
    x->fn = L->saved;
    buf_append(x->a, &x->kernels, &L->out);
}

static void dev_lane_begin(Ex *x, LaneFn *L, Ctxt *k, const char *suffix, const char *params)
{
    dev_fn_begin(x, L, k, suffix, params, true);
    emit_line(x, "(void)cn_c; (void)cn_i;");
}

/* ------------------------------------------------- kernels' names */

/* A kernel's name in the device's abort message is its source construct:
 * "parallel region at FILE:19:3 in fn main (its lanes call sq8)". A failed
 * guard in a called function prints only that function's line, so the
 * functions the lanes reach (directly or through others) complete the chain.
 * The text is a C string literal expression (CN_FILE is one). */
typedef struct {
    Ex *x;
    Vec fns;              /* Node* N_FN reached, in first-call order */
} Reach;

static bool reach_visit(Node *n, void *c)
{
    Reach *r = c;
    if (n->kind != N_CALL || n->call.ck != CALL_FN || !n->call.target || !n->call.target->fn.id)
        return true;
    for (int i = 0; i < r->fns.n; i++)
        if (r->fns.v[i] == n->call.target)
            return true;
    vec_push(r->x->a, &r->fns, n->call.target);
    return true;
}

static const char *kernel_what(Ex *x, const char *kind, Node *at, Node *b1, Node *b2)
{
    Reach r = {x, {0}};
    par_walk(b1, reach_visit, &r);
    par_walk(b2, reach_visit, &r);
    for (int i = 0; i < r.fns.n; i++)            /* grows as it goes: the transitive calls */
        par_walk(((Node *)r.fns.v[i])->fn.body, reach_visit, &r);
    const char *fn = x->fn && x->fn->fn && x->fn->fn->kind == N_FN && x->fn->fn->fn.id ? x->fn->fn->fn.id : NULL;
    const char *s = arena_printf(x->a, "%s at \" CN_FILE \":%d:%d%s%s", kind, at->span.line, at->span.col,
                                 fn ? " in fn " : "", fn ? fn : "");
    enum { SHOWN = 4 };    /* the message stays one line */
    for (int i = 0; i < r.fns.n && i < SHOWN; i++)
        s = arena_printf(x->a, "%s%s%s", s, i ? ", " : " (its lanes call ", ((Node *)r.fns.v[i])->fn.id);
    if (r.fns.n > SHOWN)
        s = arena_printf(x->a, "%s and %d more", s, r.fns.n - SHOWN);
    if (r.fns.n)
        s = arena_printf(x->a, "%s)", s);
    return arena_printf(x->a, "\"%s\"", s);
}

const char *emit_dev_what(Ex *x, const char *kind, Node *at, Node *b1, Node *b2)
{
    return kernel_what(x, kind, at, b1, b2);
}

/* NAME_what, which the kernel's descriptor names (cairn_dev.h). */
static void kernel_what_def(Ex *x, Buf *out, Ctxt *k, const char *suffix, const char *pass)
{
    buf_printf(x->a, out, "static const char %s%s_k_what[] = %s%s;\n", k->name, suffix,
               k->what ? k->what : "\"device work\"", pass ? pass : "");
}

/* The kernel around a lane. wide: the lanes a thread of a wide kernel
 * (analyze.c), else 0; unroll: else, the lanes a thread runs ahead with
 * their preloads (K_pre, read by K_load), or 0 for a plain lane. grid: the
 * lanes a thread cn_dev_launch sizes a one-shot grid by, or 0 for the one
 * full wave (wide_grid, lanes_stream_wide). */
static void dev_lane_end(Ex *x, LaneFn *L, Ctxt *k, const char *suffix, int unroll, int wide, int grid)
{
    buf_printf(x->a, &L->out, "}\n");
    kernel_what_def(x, &L->out, k, suffix, NULL);
    if (wide)
        buf_printf(x->a, &L->out,
                   "CN_DEV_KERNEL_WIDE(%s%s_k, struct %s, struct %s_pre, struct %s_post, %s_load, %s_loadw, %s%s, "
                   "%s_storew, %s_aligned, %d, %d, %d)\n\n",
                   k->name, suffix, k->name, k->name, k->name, k->name, k->name, k->name, suffix, k->name, k->name,
                   DEV_THREADS, wide, grid);
    else if (unroll)
        buf_printf(x->a, &L->out, "CN_DEV_KERNEL_PRE(%s%s_k, struct %s, struct %s_pre, %s_load, %s%s, %d, %d)\n\n",
                   k->name, suffix, k->name, k->name, k->name, k->name, suffix, DEV_THREADS, unroll);
    else if (grid)
        buf_printf(x->a, &L->out, "CN_DEV_KERNEL_ONESHOT(%s%s_k, struct %s, %s%s, %d)\n\n", k->name, suffix,
                   k->name, k->name, suffix, DEV_THREADS);
    else
        buf_printf(x->a, &L->out, "CN_DEV_KERNEL(%s%s_k, struct %s, %s%s, %d)\n\n", k->name, suffix, k->name,
                   k->name, suffix, DEV_THREADS);
    x->fn = L->saved;
    buf_append(x->a, &x->kernels, &L->out);
}

/* Bytes of preloads a lane may hold for each lane its thread runs ahead:
 * PRELOAD_BYTES / (the lane's bytes) lanes a thread, at most MAX_UNROLL. 4
 * lanes of one f32 measured best for a map of portable exp, log and tanh
 * on the H200 (2 were 1.02x to 1.29x CUDA's, 4 0.87x to 1.19x). */
enum { PRELOAD_BYTES = 16, MAX_UNROLL = 4 };

/* struct K_pre (one field a slot) and K_load, which fills it: each slot's
 * x[i] as the body would read it, at the lane's own index. Returns how many
 * lanes a thread runs at a time. */
static int dev_preload_fns(Ex *x, Ctxt *k, const Vec *pre)
{
    LaneFn L;
    size_t bytes = 0;
    buf_printf(x->a, &x->kernels, "struct %s_pre {\n", k->name);
    if (!pre->n)
        buf_printf(x->a, &x->kernels, "    char cn_none;\n");   /* a wide lane that only stores */
    for (int i = 0; i < pre->n; i++) {
        Type *t = ((Node *)pre->v[i])->index.base->ty->elem;
        buf_printf(x->a, &x->kernels, "    %s p%d;\n", emit_ctype(x, t), i);
        bytes += (size_t)type_bits(t) / 8;
    }
    buf_printf(x->a, &x->kernels, "};\n");
    dev_lane_begin(x, &L, k, "_load", arena_printf(x->a, "size_t cn_i, struct %s_pre *cn_p", k->name));
    for (int i = 0; i < pre->n; i++)
        emit_line(x, "cn_p->p%d = %s.p[cn_i];", i, emit_expr(x, ((Node *)pre->v[i])->index.base));
    dev_fn_end(x, &L);
    int unroll = bytes ? (int)(PRELOAD_BYTES / bytes) : 1;
    return unroll < 1 ? 1 : unroll > MAX_UNROLL ? MAX_UNROLL : unroll;
}

/* One view's K elements from cn_i on, through a 16-byte-aligned local:
 * in (LOADW: from the view into each lane's preload slot FIELD) or out
 * (STOREW: from each lane's post into the view). */
static void wide_move(Ex *x, Node *base, const char *field, int K, bool in)
{
    Type *t = base->ty->elem;
    const char *ct = emit_ctype(x, t), *v = emit_expr(x, base);
    size_t bytes = (size_t)K * (size_t)type_bits(t) / 8;
    emit_line(x, "{");
    x->fn->indent++;
    emit_line(x, "%s cn_t[%d] __attribute__((aligned(16)));", ct, K);
    if (in) {
        emit_line(x, "cn_dev_move_wide(cn_t, %s.p + cn_i, %zu, %zu);", v, bytes, wide_piece(bytes));
        emit_line(x, "for (int cn_u = 0; cn_u < %d; cn_u++) cn_p[cn_u].%s = cn_t[cn_u];", K, field);
    } else {
        emit_line(x, "for (int cn_u = 0; cn_u < %d; cn_u++) cn_t[cn_u] = cn_o[cn_u].%s;", K, field);
        emit_line(x, "cn_dev_move_wide(%s.p + cn_i, cn_t, %zu, %zu);", v, bytes, wide_piece(bytes));
    }
    x->fn->indent--;
    emit_line(x, "}");
}

/* A wide region's functions (analyze.c, "Wide lanes"): struct K_post (one
 * field a post), K_loadw and K_storew (K lanes' preloads and posts from
 * cn_i on), and K_aligned (every such view's pointer on its access). */
static void dev_wide_fns(Ex *x, Ctxt *k, const RegionPlan *p, int K)
{
    LaneFn L;
    buf_printf(x->a, &x->kernels, "struct %s_post {\n", k->name);
    for (int i = 0; i < p->posts.n; i++)
        buf_printf(x->a, &x->kernels, "    %s o%d;\n",
                   emit_ctype(x, ((Node *)p->posts.v[i])->assign.lhs->index.base->ty->elem), i);
    if (!p->posts.n)
        buf_printf(x->a, &x->kernels, "    char cn_none;\n");
    buf_printf(x->a, &x->kernels, "};\n");
    dev_lane_begin(x, &L, k, "_loadw", arena_printf(x->a, "size_t cn_i, struct %s_pre *cn_p", k->name));
    for (int i = 0; i < p->preloads.n; i++)
        wide_move(x, ((Node *)p->preloads.v[i])->index.base, arena_printf(x->a, "p%d", i), K, true);
    dev_fn_end(x, &L);
    dev_lane_begin(x, &L, k, "_storew", arena_printf(x->a, "size_t cn_i, const struct %s_post *cn_o", k->name));
    for (int i = 0; i < p->posts.n; i++)
        wide_move(x, ((Node *)p->posts.v[i])->assign.lhs->index.base, arena_printf(x->a, "o%d", i), K, false);
    dev_fn_end(x, &L);
    dev_lane_begin(x, &L, k, "_aligned", "size_t cn_i, bool *cn_ok");
    const char *ok = "1";
    for (int i = 0; i < p->preloads.n + p->posts.n; i++) {
        Node *b = i < p->preloads.n ? ((Node *)p->preloads.v[i])->index.base
                                    : ((Node *)p->posts.v[i - p->preloads.n])->assign.lhs->index.base;
        size_t bytes = (size_t)K * (size_t)type_bits(b->ty->elem) / 8;
        ok = arena_printf(x->a, "%s && (uintptr_t)%s.p %% %zu == 0", ok, emit_expr(x, b), wide_piece(bytes));
    }
    emit_line(x, "*cn_ok = %s;", ok);
    dev_fn_end(x, &L);
}

static bool is_wide16(Node *n, void *found)
{
    if (wide_is(n) && wide_bytes(n) == WIDE_MAX_BYTES)
        *(bool *)found = true;
    return !*(bool *)found;
}

static bool is_work_call(Node *n, void *found)
{
    if (n->kind == N_CALL && (n->call.ck == CALL_FN || n->call.ck == CALL_MATH || n->call.ck == CALL_VALUE))
        *(bool *)found = true;
    return !*(bool *)found;
}

/* A wide region's grid: a block for each 256 groups where its lanes only
 * move data and do arithmetic (the copy's bandwidth, cn_dev_launch), the
 * one full wave where they call a function (std.math or the program's
 * own): their work is what the wave hides. On the H200 maps of portable
 * exp, log and tanh over 2^28 f32 took 0.77x, 0.77x and 1.01x CUDA's on the
 * wave and 0.86x, 0.89x and 1.12x on the one-shot grid
 * (evidence/2026-12-04-wide-lanes.md). Returns the lanes a thread for
 * cn_dev_launch's grid, or 0 for the wave. */
static int wide_grid(Node **rs, int n, int wide)
{
    bool calls = false;
    for (int k = 0; k < n && !calls; k++)
        par_walk(rs[k]->loop.body, is_work_call, &calls);
    return calls ? 0 : wide;
}

/* Lanes that move 16 bytes an access (load_wide, store_wide) stream best on
 * a grid of a block a 256 lanes, not on the one full wave (the same finding
 * as the wide lanes': cairn_dev.h, cn_dev_launch). */
static bool lanes_stream_wide(Node **rs, int n)
{
    bool found = false;
    for (int k = 0; k < n && !found; k++)
        par_walk(rs[k]->loop.body, is_wide16, &found);
    return found;
}

static void launch(Ex *x, Ctxt *k, const char *suffix, const char *n, const char *ctx)
{
    emit_line(x, "cn_exec_launch(cn_exec_get(), &%s%s_k, %s, &%s);", k->name, suffix, n, ctx);
}

void emit_dev_after_op(Ex *x)
{
    if (x->fn && x->fn->unheld)
        emit_line(x, "cn_exec_observe(cn_exec_get());");
}

/* ------------------------------------------------------------ regions */

void emit_dev_regions(Ex *x, Node **rs, int n)
{
    x->uses_dev = true;
    Ctxt u = region_ctx(x, rs, n, "dregion");
    u.what = kernel_what(x, n > 1 ? "parallel regions" : "parallel region", rs[0], rs[0]->loop.body,
                         n > 1 ? rs[n - 1]->loop.body : NULL);
    const char *end = emit_tmp(x, "end");
    emit_line(x, "{");
    x->fn->indent++;
    emit_line(x, "const size_t %s = %s;", end, emit_expr(x, rs[0]->loop.hi));
    /* a lane's x[i] is checked here, once for all lanes, before the launch;
     * the lanes then index unchecked (the first index past x's end is the
     * one a lane would have reported) */
    emit_hoist_guards(x, rs, n, "0", end);
    const char *v = ctx_fill(x, &u);
    launch(x, &u, "_lane", end, v);
    emit_dev_after_op(x);
    x->fn->indent--;
    emit_line(x, "}");

    LaneFn L;
    const RegionPlan *rp = n == 1 ? analysis_of(x->e->check->analysis, rs[0]) : NULL;
    const Vec *pre = rp ? &rp->preloads : NULL;
    int wide = rp ? rp->wide : 0;
    int unroll = (pre && pre->n) || wide ? dev_preload_fns(x, &u, pre) : 0;
    if (wide)
        dev_wide_fns(x, &u, rp, wide);
    const char *params = "size_t cn_i";
    if (wide)
        params = arena_printf(x->a, "size_t cn_i, const struct %s_pre *cn_p, struct %s_post *cn_o", u.name, u.name);
    else if (unroll)
        params = arena_printf(x->a, "size_t cn_i, const struct %s_pre *cn_p", u.name);
    dev_lane_begin(x, &L, &u, "_lane", params);
    if (unroll)
        emit_line(x, "(void)cn_p;");
    if (wide)
        emit_line(x, "(void)cn_o;");
    x->wide_lane = wide > 0;
    for (int k = 0; k < n; k++) {
        emit_line(x, "{");
        x->fn->indent++;
        emit_line(x, "const size_t %s = cn_i;", index_name(x, rs[k]->loop.sym));
        emit_line(x, "{");
        emit_block(x, rs[k]->loop.body, true);
        emit_line(x, "}");
        x->fn->indent--;
        emit_line(x, "}");
    }
    x->wide_lane = false;
    int grid = wide ? wide_grid(rs, n, wide) : !unroll && lanes_stream_wide(rs, n) ? 1 : 0;
    dev_lane_end(x, &L, &u, "_lane", unroll, wide, grid);
}

/* ------------------------------------------------------------ collectors */

/* The fields every pass reads: the extent, the parts, the partials. */
static void part_fields(Ex *x, Ctxt *k, const char *n, const char *P, const char *parts)
{
    field(x, k, "size_t", "cn_n", n);
    field(x, k, "size_t", "cn_P", P);
    field(x, k, "void *", "cn_part", parts);
}

/* K_ident and K_merge: the accumulator's identity and its combination. */
static void ident_merge_fns(Ex *x, Ctxt *k, Coll *c)
{
    LaneFn F;
    dev_fn_begin(x, &F, k, "_ident", emit_fmt(x, "%s *cn_r", c->acc_t), false);
    acc_decl(x, c, "cn_acc");
    emit_line(x, "*cn_r = cn_acc;");
    dev_fn_end(x, &F);
    dev_fn_begin(x, &F, k, "_merge", emit_fmt(x, "%s *cn_a, const %s *cn_b", c->acc_t, c->acc_t), false);
    emit_line(x, "%s cn_acc = *cn_a;", c->acc_t);
    acc_merge(x, c, "cn_acc", "(*cn_b)");
    emit_line(x, "*cn_a = cn_acc;");
    dev_fn_end(x, &F);
}

/* The term at index j into the variable y: the value of a reduce or a scan,
 * the keep of a compaction (as 0 or 1). */
static void term_into(Ex *x, Node *e, const char *j, const char *y)
{
    emit_line(x, "{");
    x->fn->indent++;
    emit_line(x, "const size_t %s = %s;", index_name(x, e->collect.sym), j);
    if (e->collect.kind == COLLECT_COMPACT)
        emit_line(x, "%s = (%s) ? 1 : 0;", y, emit_expr(x, e->collect.keep));
    else
        emit_line(x, "%s = %s;", y, emit_expr(x, e->collect.value));
    x->fn->indent--;
    emit_line(x, "}");
}

/* K_fold: the terms at lo, lo + step, ... < hi, folded in that order,
 * FOLD_WIDTH terms computed before any is folded so a device thread has
 * that many loads in flight (a trip-count test between them would keep
 * them apart). */
static void fold_fn(Ex *x, Ctxt *k, const char *pre, Coll *c, Node *e, const char *acc_t, const char *term_t)
{
    LaneFn F;
    dev_fn_begin(x, &F, k, emit_fmt(x, "%s_fold", pre),
                 emit_fmt(x, "size_t cn_lo, size_t cn_hi, size_t cn_step, %s *cn_r", acc_t), true);
    if (c)
        acc_decl(x, c, "cn_acc");
    else
        emit_line(x, "%s cn_acc = 0;", acc_t);
    emit_line(x, "size_t cn_j = cn_lo;");
    emit_line(x, "for (; cn_hi > %d * cn_step && cn_j < cn_hi - %d * cn_step; cn_j += %d * cn_step) {", FOLD_WIDTH - 1,
              FOLD_WIDTH - 1, FOLD_WIDTH);
    x->fn->indent++;
    for (int q = 0; q < FOLD_WIDTH; q++)
        emit_line(x, "%s cn_y%d;", term_t, q);
    for (int q = 0; q < FOLD_WIDTH; q++)
        term_into(x, e, emit_fmt(x, "cn_j + %d * cn_step", q), emit_fmt(x, "cn_y%d", q));
    for (int q = 0; q < FOLD_WIDTH; q++) {
        const char *y = emit_fmt(x, "cn_y%d", q);
        if (c)
            acc_fold(x, c, "cn_acc", y);
        else
            emit_line(x, "cn_acc += %s;", y);
    }
    x->fn->indent--;
    emit_line(x, "}");
    emit_line(x, "for (; cn_j < cn_hi; cn_j += cn_step) {");
    x->fn->indent++;
    emit_line(x, "%s cn_y;", term_t);
    term_into(x, e, "cn_j", "cn_y");
    if (c)
        acc_fold(x, c, "cn_acc", "cn_y");
    else
        emit_line(x, "cn_acc += cn_y;");
    x->fn->indent--;
    emit_line(x, "}");
    emit_line(x, "*cn_r = cn_acc;");
    dev_fn_end(x, &F);
}

/* K_term: the term at j, as an accumulator. */
static void term_fn(Ex *x, Ctxt *k, const char *pre, Coll *c, Node *e, const char *acc_t, const char *term_t)
{
    LaneFn F;
    dev_fn_begin(x, &F, k, emit_fmt(x, "%s_term", pre), emit_fmt(x, "size_t cn_j, %s *cn_r", acc_t), true);
    emit_line(x, "%s cn_y;", term_t);
    term_into(x, e, "cn_j", "cn_y");
    if (c) {
        acc_decl(x, c, "cn_acc");
        acc_fold(x, c, "cn_acc", "cn_y");
        emit_line(x, "*cn_r = cn_acc;");
    } else {
        emit_line(x, "*cn_r = cn_y;");
    }
    dev_fn_end(x, &F);
}

/* The scratch of a reduction: P + 1 partials, then room for one value. */
static const char *scratch(Ex *x, const char *P, const char *acc_t, const char *at)
{
    const char *s = emit_tmp(x, "scr");
    emit_line(x, "char *%s = (char *)cn_exec_scratch(cn_exec_get(), (%s + 1) * sizeof(%s) + 16, %s);", s, P, acc_t,
              at);
    return s;
}

/* A device accumulator: `reduce + parallel` over floats is the exact sum
 * (cairn_devsum.h); `reduce + for` over floats combines in a fixed tree
 * whose order the language leaves open (numerics.md). A scan's checked +
 * over integers keeps partials of the value type that wrap (emit.h,
 * ACC_WRAP): a quarter of the shared memory and registers a tile of
 * 128-bit partials takes for i32, half for i64, and the look-back's one
 * 16-byte slot a tile. */
static void dev_coll_init(Ex *x, Coll *c, Node *e)
{
    coll_init(x, c, e);
    if (c->ak == ACC_EXACT && !(e->collect.kind == COLLECT_REDUCE && e->collect.mode == MODE_PARALLEL)) {
        c->ak = ACC_PLAIN;
        c->acc_t = emit_ctype(x, c->vt);
    }
    if (c->ak == ACC_SUM128 && e->collect.kind == COLLECT_SCAN) {
        c->ak = ACC_WRAP;
        c->acc_t = emit_ctype(x, c->vt);
    }
    if (c->ak == ACC_SUM128 || c->ak == ACC_PMUL || c->ak == ACC_WRAP)
        x->uses_par = true;   /* cn_i128, cn_pmul and their fits */
}

/* The value stored where the host reads it, brought back with one copy
 * queued behind the collector's passes and one wait after it. */
static const char *copy_back(Ex *x, const char *ctype, const char *src, const char *at)
{
    const char *res = emit_tmp(x, "dtot");
    emit_line(x, "%s %s;", ctype, res);
    emit_line(x, "cn_exec_copy_total(cn_exec_get(), &%s, %s, sizeof(%s));", res, src, ctype);
    (void)at;
    return res;
}

/* The host side of a collector: the extent, the parts, the scratch, the
 * lanes the part passes launch with. */
typedef struct {
    const char *n, *P, *lanes, *parts, *scr;
} DevParts;

static DevParts dev_parts(Ex *x, Ctxt *k, Node *e)
{
    DevParts d;
    d.n = emit_tmp(x, "n");
    d.P = emit_tmp(x, "P");
    d.lanes = emit_tmp(x, "lanes");
    d.parts = emit_tmp(x, "part");
    emit_line(x, "const size_t %s = %s;", d.n, emit_expr(x, e->collect.extent));
    part_fields(x, k, d.n, d.P, d.parts);
    return d;
}

static void dev_parts_alloc(Ex *x, DevParts *d, const char *acc_t, const char *at)
{
    emit_line(x, "const size_t %s = cn_dev_parts(%s);", d->P, d->n);
    emit_line(x, "const size_t %s = cn_dev_part_lanes(%s);", d->lanes, d->P);
    d->scr = scratch(x, d->P, acc_t, at);
    emit_line(x, "%s *%s = (%s *)%s;", acc_t, d->parts, acc_t, d->scr);
}

/* A collector's parts (P_expr) and scratch (bytes_expr: the runtime's
 * part, cn_dev_scan_bytes or cn_dev_xsum_bytes), with 16 bytes after it
 * for the total: returns the address of those. */
static const char *scan_alloc(Ex *x, DevParts *d, const char *P_expr, const char *bytes_expr, const char *at)
{
    const char *b = emit_tmp(x, "sb");
    emit_line(x, "const size_t %s = %s;", d->P, P_expr);
    emit_line(x, "const size_t %s = %s;", b, bytes_expr);
    d->scr = emit_tmp(x, "scr");
    emit_line(x, "char *%s = (char *)cn_exec_scratch(cn_exec_get(), %s + 16, %s);", d->scr, b, at);
    emit_line(x, "void *%s = %s;", d->parts, d->scr);
    return emit_fmt(x, "(%s + %s)", d->scr, b);
}

/* The guards of the terms' x[i], once before the launch (analyze.c says
 * which: a compaction's keep is computed at every index, its value is not). */
static void hoist_term_guards(Ex *x, Node *e, const char *n)
{
    emit_hoist_collect_guards(x, e, "0", n);
}

/* After a scan's or compaction's launch: its result, none when discarded
 * (an unheld function observes), else the value at src copied back. */
static const char *scan_result(Ex *x, bool discarded, const char *ctype, const char *src, const char *at)
{
    if (!discarded)
        return copy_back(x, ctype, src, at);
    emit_dev_after_op(x);
    return NULL;
}

static void pass_line(Ex *x, const char *macro, Ctxt *k, const char *suffix, const char *acc_t, const char *fns)
{
    kernel_what_def(x, &x->kernels, k, suffix, arena_printf(x->a, " \" (pass %c)\"", suffix[2]));
    buf_printf(x->a, &x->kernels, "%s(%s%s_k, struct %s, %s, %s)\n\n", macro, k->name, suffix, k->name, acc_t, fns);
}

/* CN_DEV_SCAN(K<pre>_k, ...) over the functions K<pre>_ident .. K<pre>_finish. */
static void scan_line(Ex *x, Ctxt *k, const char *pre, const char *acc_t)
{
    const char *f = emit_fmt(x, "%s%s", k->name, pre);
    kernel_what_def(x, &x->kernels, k, pre, NULL);
    buf_printf(x->a, &x->kernels, "CN_DEV_SCAN(%s_k, struct %s, %s, %s_ident, %s_merge, %s_fold, %s_term, %s_put, %s_finish)\n\n",
               f, k->name, acc_t, f, f, f, f, f, f);
}

/* "reduce +", "scan max", "compact": the collector as the message names it. */
static const char *collector_what(Ex *x, Node *e)
{
    const char *kind = e->collect.kind == COLLECT_REDUCE ? "reduce" : e->collect.kind == COLLECT_SCAN ? "scan" : "compact";
    if (e->collect.op)
        kind = arena_printf(x->a, "%s %s", kind, e->collect.op);
    return kernel_what(x, kind, e, e->collect.keep, e->collect.value);
}

static const char *fnames(Ex *x, Ctxt *k, const char *a, const char *b, const char *c, const char *d)
{
    const char *s = emit_fmt(x, "%s_%s, %s_%s", k->name, a, k->name, b);
    if (c)
        s = emit_fmt(x, "%s, %s_%s", s, k->name, c);
    if (d)
        s = emit_fmt(x, "%s, %s_%s", s, k->name, d);
    return s;
}

/* The host side every reduction begins with: its context (named PREFIX),
 * the extent and parts, the field cn_out for the total (of C type vt),
 * the struct, and the terms' guards. */
static DevParts reduce_begin(Ex *x, Node *e, const char *prefix, const char *vt, Ctxt *k, const char **out)
{
    *k = coll_ctx(x, e, prefix);
    k->what = collector_what(x, e);
    DevParts d = dev_parts(x, k, e);
    *out = emit_tmp(x, "out");
    field(x, k, emit_fmt(x, "%s *", vt), "cn_out", *out);
    ctx_struct(x, k);
    hoist_term_guards(x, e, d.n);
    return d;
}

/* The view an exact sum's term reads as it is: `yield x[i]`, i the
 * parallel's own index and the read covered by the guard before the
 * launch, so every element of x's data in the range is a term and the
 * fold may read them 16 bytes at a time (cairn_devsum.h, CN_DSUM_VEC).
 * NULL for any other term. */
static Node *plain_read(Node *e, Type *vt)
{
    Node *v = e->collect.value;
    if (!v || v->kind != N_INDEX || !v->index.covered || v->index.preload)
        return NULL;
    Node *b = v->index.base, *i = v->index.index;
    if (b->kind != N_NAME || b->ty->kind != TY_VIEW || b->ty->elem->kind != vt->kind)
        return NULL;
    if (i->kind != N_NAME || !i->name.sym || i->name.sym != e->collect.sym)
        return NULL;
    return b;
}

/* reduce + parallel over f32 or f64 @device views: the exact sum
 * (cairn_devsum.h), its passes written around the term at j and the store
 * of the rounded total, and for a plain read of a view its data (_base). */
static const char *dev_exact_sum(Ex *x, Node *e, Coll *c)
{
    const char *vt = emit_ctype(x, c->vt), *out;
    int wide = c->vt->kind == TY_F64;
    Ctxt k;
    DevParts d = reduce_begin(x, e, "dxsum", vt, &k, &out);
    const char *slot = scan_alloc(x, &d, emit_fmt(x, "%s_k_parts(%s)", k.name, d.n),
                                  emit_fmt(x, "cn_dev_xsum_bytes(%s, %d)", d.P, wide), c->at);
    if (e->collect.dest)
        emit_line(x, "%s *%s = %s;", vt, out, emit_addr(x, e->collect.dest));
    else
        emit_line(x, "%s *%s = (%s *)%s;", vt, out, vt, slot);
    const char *v = ctx_fill(x, &k);
    emit_line(x, "%s_k_run(cn_exec_get(), &%s);", k.name, v);
    const char *res = "0";
    if (!e->collect.dest)
        res = copy_back(x, vt, out, c->at);
    else
        emit_dev_after_op(x);

    term_fn(x, &k, "", NULL, e, vt, vt);
    LaneFn F;
    dev_fn_begin(x, &F, &k, "_store", emit_fmt(x, "%s cn_v", vt), true);
    emit_line(x, "*cn_out = cn_v;");
    dev_fn_end(x, &F);
    Node *view = plain_read(e, c->vt);
    if (view) {
        dev_fn_begin(x, &F, &k, "_base", emit_fmt(x, "const %s **cn_r", vt), true);
        emit_line(x, "*cn_r = %s.p;", emit_operand(x, view));
        dev_fn_end(x, &F);
    }
    kernel_what_def(x, &x->kernels, &k, "", NULL);
    if (view)
        buf_printf(x->a, &x->kernels, "CN_DEV_EXACT_SUM%dV(%s_k, struct %s, %s_term, %s_store, %s_base)\n\n",
                   wide ? 64 : 32, k.name, k.name, k.name, k.name, k.name);
    else
        buf_printf(x->a, &x->kernels, "CN_DEV_EXACT_SUM%d(%s_k, struct %s, %s_term, %s_store)\n\n", wide ? 64 : 32,
                   k.name, k.name, k.name, k.name);
    return res;
}

static const char *dev_reduce(Ex *x, Node *e)
{
    Coll c;
    dev_coll_init(x, &c, e);
    if (c.ak == ACC_EXACT)
        return dev_exact_sum(x, e, &c);
    const char *vt = emit_ctype(x, c.vt), *out;
    Ctxt k;
    DevParts d = reduce_begin(x, e, "dreduce", vt, &k, &out);
    dev_parts_alloc(x, &d, c.acc_t, c.at);
    if (e->collect.dest)
        emit_line(x, "%s *%s = %s;", vt, out, emit_addr(x, e->collect.dest));
    else
        emit_line(x, "%s *%s = (%s *)(%s + (%s + 1) * sizeof(%s));", vt, out, vt, d.scr, d.P, c.acc_t);
    const char *v = ctx_fill(x, &k);
    launch(x, &k, "_l1", d.lanes, v);
    launch(x, &k, "_l2", "1", v);
    const char *res = "0";
    if (!e->collect.dest)
        res = copy_back(x, vt, out, c.at);
    else
        emit_dev_after_op(x);

    ident_merge_fns(x, &k, &c);
    fold_fn(x, &k, "", &c, e, c.acc_t, vt);
    LaneFn F;
    dev_fn_begin(x, &F, &k, "_finish", emit_fmt(x, "%s *cn_tot", c.acc_t), true);
    emit_line(x, "%s cn_acc = *cn_tot;", c.acc_t);
    emit_line(x, "*cn_out = %s;", acc_value(x, &c, "cn_acc"));
    dev_fn_end(x, &F);
    pass_line(x, "CN_DEV_FOLD_PASS", &k, "_l1", c.acc_t, fnames(x, &k, "fold", "merge", NULL, NULL));
    pass_line(x, "CN_DEV_TOTAL_PASS", &k, "_l2", c.acc_t, fnames(x, &k, "ident", "merge", "finish", NULL));
    return res;
}

/* scan OP DEST over @device views (integers: floats are E-SCAN-ORDER):
 * CN_DEV_SCAN, each index storing the prefix through it, checked; the
 * total FINISHed into the scratch after the runtime's part. */
static const char *dev_scan(Ex *x, Node *e, bool discarded)
{
    Coll c;
    dev_coll_init(x, &c, e);
    const char *vt = emit_ctype(x, c.vt);
    Ctxt k = coll_ctx(x, e, "dscan");
    k.what = collector_what(x, e);
    DevParts d = dev_parts(x, &k, e);
    const char *dname, *dv = emit_dest_view(x, e, &k, &dname);
    const char *out = emit_tmp(x, "out");
    field(x, &k, emit_fmt(x, "%s *", vt), "cn_out", out);
    ctx_struct(x, &k);
    emit_line(x, "if (%s > %s.n)", d.n, dv);
    emit_line(x, "    (void)cn_idx_u(%s.n, %s.n, %s, %s);", dv, dv, dname, c.at);
    hoist_term_guards(x, e, d.n);
    const char *slot = scan_alloc(x, &d, emit_fmt(x, "cn_dev_scan_parts(%s, sizeof(%s))", d.n, c.acc_t),
                                  emit_fmt(x, "cn_dev_scan_bytes(%s, sizeof(%s))", d.P, c.acc_t), c.at);
    emit_line(x, "%s *%s = (%s *)%s;", vt, out, vt, slot);
    const char *v = ctx_fill(x, &k);
    emit_line(x, "%s_k_run(cn_exec_get(), &%s);", k.name, v);
    const char *res = scan_result(x, discarded, vt, out, c.at);

    ident_merge_fns(x, &k, &c);
    fold_fn(x, &k, "", &c, e, c.acc_t, vt);
    term_fn(x, &k, "", &c, e, c.acc_t, vt);
    LaneFn F;
    dev_fn_begin(x, &F, &k, "_put",
                 emit_fmt(x, "size_t cn_j, const %s *cn_before, const %s *cn_after", c.acc_t, c.acc_t), true);
    if (c.ak == ACC_WRAP) {
        emit_line(x, "cn_dest.p[cn_j] = cn_par_step_%s(*cn_before, *cn_after, %s, %s);", c.suf, c.what, c.at);
    } else {
        emit_line(x, "(void)cn_before;");
        emit_line(x, "%s cn_acc = *cn_after;", c.acc_t);
        emit_line(x, "cn_dest.p[cn_j] = %s;", acc_value(x, &c, "cn_acc"));
    }
    dev_fn_end(x, &F);
    dev_fn_begin(x, &F, &k, "_finish", emit_fmt(x, "%s *cn_tot", c.acc_t), true);
    emit_line(x, "%s cn_acc = *cn_tot;", c.acc_t);
    emit_line(x, "*cn_out = %s;", acc_value(x, &c, "cn_acc"));
    dev_fn_end(x, &F);
    scan_line(x, &k, "", c.acc_t);
    return res ? res : "0";
}

/* A compaction's functions with partials (counts) of type ACC_T, named
 * K<pre>_ident .. K<pre>_finish: the term is what index j keeps (0 or 1);
 * a kept index stores its value at the count kept before it, so in index
 * order; the total is stored where the host reads it, and checked against
 * DEST. */
static void compact_fns(Ex *x, Ctxt *k, Node *e, const char *pre, const char *acc_t, const char *dname)
{
    const char *at = emit_at(x, e->span), *vt = emit_ctype(x, e->collect.value->ty);
    LaneFn F;
    dev_fn_begin(x, &F, k, emit_fmt(x, "%s_ident", pre), emit_fmt(x, "%s *cn_r", acc_t), false);
    emit_line(x, "*cn_r = 0;");
    dev_fn_end(x, &F);
    dev_fn_begin(x, &F, k, emit_fmt(x, "%s_merge", pre), emit_fmt(x, "%s *cn_a, const %s *cn_b", acc_t, acc_t),
                 false);
    emit_line(x, "*cn_a += *cn_b;");
    dev_fn_end(x, &F);
    fold_fn(x, k, pre, NULL, e, acc_t, acc_t);
    term_fn(x, k, pre, NULL, e, acc_t, acc_t);
    dev_fn_begin(x, &F, k, emit_fmt(x, "%s_value", pre), emit_fmt(x, "size_t cn_j, %s *cn_v", vt), true);
    emit_line(x, "const size_t %s = cn_j;", index_name(x, e->collect.sym));
    emit_line(x, "*cn_v = %s;", emit_expr(x, e->collect.value));
    dev_fn_end(x, &F);
    dev_fn_begin(x, &F, k, emit_fmt(x, "%s_store", pre), emit_fmt(x, "%s cn_at, const %s *cn_v", acc_t, vt), true);
    emit_line(x, "cn_dest.p[cn_idx_u(cn_at, cn_dest.n, %s, %s)] = *cn_v;", dname, at);
    dev_fn_end(x, &F);
    dev_fn_begin(x, &F, k, emit_fmt(x, "%s_put", pre),
                 emit_fmt(x, "const struct %s *cn_c, size_t cn_j, const %s *cn_before, const %s *cn_after", k->name,
                          acc_t, acc_t),
                 false);
    emit_line(x, "if (*cn_after == *cn_before)");
    emit_line(x, "    return;");
    emit_line(x, "%s cn_y;", vt);
    emit_line(x, "%s%s_value(cn_c, cn_j, &cn_y);", k->name, pre);
    emit_line(x, "%s%s_store(cn_c, *cn_before, &cn_y);", k->name, pre);
    dev_fn_end(x, &F);
    dev_fn_begin(x, &F, k, emit_fmt(x, "%s_finish", pre), emit_fmt(x, "%s *cn_tot", acc_t), true);
    emit_line(x, "*cn_count = (size_t)*cn_tot;");
    emit_line(x, "if (*cn_tot > cn_dest.n)");
    emit_line(x, "    (void)cn_idx_u(cn_dest.n, cn_dest.n, %s, %s);", dname, at);
    dev_fn_end(x, &F);
    const char *f = emit_fmt(x, "%s%s", k->name, pre);
    kernel_what_def(x, &x->kernels, k, pre, NULL);
    buf_printf(x->a, &x->kernels, "typedef %s %s_vt;\nCN_DEV_COMPACT(%s_k, struct %s, %s, %s)\n\n", vt, f, f, k->name,
               acc_t, f);
}

/* compact DEST over @device views: CN_DEV_SCAN of what each index keeps.
 * The count is 32 bits where the extent is below 2^32 (half the shared
 * memory of a tile of 64-bit counts), else 64. */
static const char *dev_compact(Ex *x, Node *e, bool discarded)
{
    const char *at = emit_at(x, e->span);
    Ctxt k = coll_ctx(x, e, "dcompact");
    k.what = collector_what(x, e);
    DevParts d = dev_parts(x, &k, e);
    const char *dname;
    emit_dest_view(x, e, &k, &dname);
    const char *cnt = emit_tmp(x, "count");
    field(x, &k, "size_t *", "cn_count", cnt);
    ctx_struct(x, &k);
    hoist_term_guards(x, e, d.n);
    const char *narrow = emit_tmp(x, "narrow");
    emit_line(x, "const bool %s = %s <= CN_DEV_COUNT32_MAX;", narrow, d.n);
    const char *slot = scan_alloc(
        x, &d,
        emit_fmt(x, "cn_dev_compact_parts(%s, sizeof(%s), %s ? sizeof(uint32_t) : sizeof(size_t))", d.n,
                 emit_ctype(x, e->collect.value->ty), narrow),
        emit_fmt(x, "%s ? cn_dev_scan_bytes(%s, sizeof(uint32_t)) : cn_dev_scan_bytes(%s, sizeof(size_t))", narrow,
                 d.P, d.P),
        at);
    emit_line(x, "size_t *%s = (size_t *)%s;", cnt, slot);
    const char *v = ctx_fill(x, &k);
    emit_line(x, "if (%s)", narrow);
    emit_line(x, "    %s_n_k_run(cn_exec_get(), &%s);", k.name, v);
    emit_line(x, "else");
    emit_line(x, "    %s_k_run(cn_exec_get(), &%s);", k.name, v);
    const char *res = scan_result(x, discarded, "size_t", cnt, at);
    compact_fns(x, &k, e, "_n", "uint32_t", dname);
    compact_fns(x, &k, e, "", "size_t", dname);
    return res ? res : "((size_t)0)";
}

const char *emit_dev_collect(Ex *x, Node *e)
{
    x->uses_dev = true;
    bool discarded = x->stmt_expr == e;
    switch (e->collect.kind) {
    case COLLECT_SCAN: return dev_scan(x, e, discarded);
    case COLLECT_COMPACT: return dev_compact(x, e, discarded);
    default: return dev_reduce(x, e);
    }
}

/* ------------------------------------------------------------ transfers */

static const char *dir_of(const Type *dst, const Type *src)
{
    bool dd = dst->place == PLACE_DEVICE || dst->place == PLACE_UNIFIED;
    bool sd = src->place == PLACE_DEVICE || src->place == PLACE_UNIFIED;
    if (dd && sd)
        return "CN_DEV_D2D";
    if (dd)
        return "CN_DEV_H2D";
    if (sd)
        return "CN_DEV_D2H";
    return NULL;
}

/* transfer's two sides as view locals (*d, *s); its direction, or NULL
 * when both sides are host memory. */
static const char *transfer_sides(Ex *x, Node *call, const char **d, const char **s)
{
    Node *dn = call->call.args.v[0], *sn = call->call.args.v[1];
    const char *vt = emit_fmt(x, "cn_view_%s", emit_suffix(dn->ty->elem));
    *d = emit_tmp(x, "td");
    *s = emit_tmp(x, "ts");
    emit_line(x, "const %s %s = %s;", vt, *d, emit_expr(x, dn));
    emit_line(x, "const %s %s = %s;", vt, *s, emit_expr(x, sn));
    return dir_of(dn->ty, sn->ty);
}

/* transfer(dst, src): the extents and the overlap are checked where it runs
 * (cn_exec_transfer_bytes); a copy with a host side observes first. */
const char *emit_dev_transfer(Ex *x, Node *call)
{
    x->uses_dev = true;
    const char *d, *s, *at = emit_at(x, call->span);
    const char *dir = transfer_sides(x, call, &d, &s);
    if (!dir) {   /* host to host: the same two checks, then a copy */
        emit_line(x, "memcpy(%s.p, %s.p, cn_exec_transfer_bytes(%s.p, %s.n, %s.p, %s.n, sizeof *%s.p, %s));", d, s, d,
                  d, s, s, d, at);
        return "((void)0)";
    }
    emit_line(x, "cn_exec_transfer(cn_exec_get(), %s, %s.p, %s.n, %s.p, %s.n, sizeof *%s.p, %s);", dir, d, d, s, s,
              d, at);
    if (!strcmp(dir, "CN_DEV_D2D"))
        emit_dev_after_op(x);
    return "((void)0)";
}

/* mma_unordered(m, n, k, c, a, b) (cairn_mma.h): the reference loop on the
 * host, the tiling on the context's run for @device views; either checks
 * the extents where it runs. */
const char *emit_mma(Ex *x, Node *call)
{
    x->uses_mma = true;
    Node **args = (Node **)call->call.args.v;
    const char *v[6], *suf = emit_suffix(args[4]->ty->elem), *at = emit_at(x, call->span);
    for (int i = 0; i < 6; i++) {
        v[i] = emit_tmp(x, i < 3 ? "mk" : "mv");
        if (i < 3)
            emit_line(x, "const size_t %s = %s;", v[i], emit_expr(x, args[i]));
        else
            emit_line(x, "const cn_view_%s %s = %s;", emit_suffix(args[i]->ty->elem), v[i], emit_expr(x, args[i]));
    }
    if (!mma_on_device(call)) {
        emit_line(x, "cn_mma_host_%s(%s, %s, %s, %s.p, %s.n, %s.p, %s.n, %s.p, %s.n, %s);", suf, v[0], v[1], v[2],
                  v[3], v[3], v[4], v[4], v[5], v[5], at);
        return "((void)0)";
    }
    x->uses_dev = true;
    char fmt[16];
    size_t i = 0;
    for (; suf[i] && i < sizeof fmt - 1; i++)
        fmt[i] = (char)(suf[i] >= 'a' && suf[i] <= 'z' ? suf[i] - 'a' + 'A' : suf[i]);
    fmt[i] = 0;
    emit_line(x, "cn_exec_mma(cn_exec_get(), CN_MMA_%s, %s, %s, %s, %s.p, %s.n, %s.p, %s.n, %s.p, %s.n, %s);", fmt,
              v[0], v[1], v[2], v[3], v[3], v[4], v[4], v[5], v[5], at);
    emit_dev_after_op(x);
    return "((void)0)";
}

/* ------------------------------------------------------------ queued work */

static const char *after_list(Ex *x, Node *e, const char **count)
{
    int n = e->spawn.after.n;
    *count = emit_fmt(x, "%d", n);
    if (n == 0)
        return "NULL";
    const char *a = emit_tmp(x, "after");
    Buf b = {0};
    for (int i = 0; i < n; i++)
        buf_printf(x->a, &b, "%s%s", i ? ", " : "", emit_expr(x, e->spawn.after.v[i]));
    emit_line(x, "const struct cn_ticket %s[%d] = {%s};", a, n, b.s);
    return a;
}

const char *emit_dev_spawn(Ex *x, Node *e)
{
    x->uses_dev = true;
    Node *w = e->spawn.work;
    const char *at = emit_at(x, e->span), *count, *t = emit_tmp(x, "ticket");
    const char *after = after_list(x, e, &count);
    if (w->kind == N_CALL) {
        const char *d, *s;
        const char *dir = transfer_sides(x, w, &d, &s);   /* never NULL: check_spawn refuses host to host */
        emit_line(x, "const struct cn_ticket %s = cn_exec_spawn_transfer(cn_exec_get(), %s, %s.p, %s.n, %s.p, %s.n, "
                     "sizeof *%s.p, %s, %s, %s);", t, dir, d, d, s, s, d, after, count, at);
        return t;
    }
    Ctxt u = region_ctx(x, &w, 1, "dspawn");
    u.what = kernel_what(x, "spawned parallel region", w, w->loop.body, NULL);
    const char *end = emit_tmp(x, "end");
    emit_line(x, "const size_t %s = %s;", end, emit_expr(x, w->loop.hi));
    const char *v = ctx_fill(x, &u);
    emit_line(x, "const struct cn_ticket %s = cn_exec_spawn_launch(cn_exec_get(), &%s_lane_k, %s, &%s, %s, %s, %s);",
              t, u.name, end, v, after, count, at);
    LaneFn L;
    dev_lane_begin(x, &L, &u, "_lane", "size_t cn_i");
    emit_line(x, "const size_t %s = cn_i;", index_name(x, w->loop.sym));
    emit_line(x, "{");
    emit_block(x, w->loop.body, true);
    emit_line(x, "}");
    dev_lane_end(x, &L, &u, "_lane", 0, 0, 0);
    return t;
}

const char *emit_dev_wait(Ex *x, Node *call)
{
    x->uses_dev = true;
    Node *a = call->call.args.v[0];
    const char *t = emit_tmp(x, "wt");
    emit_line(x, "struct cn_ticket %s = %s;", t, emit_expr(x, a));
    emit_line(x, "cn_exec_wait(&%s, %s);", t, emit_at(x, call->span));
    return "((void)0)";
}

/* ------------------------------------------------------------ buffers */

/* buffer x:T[n]@device = zeroed (or @pinned, @unified): allocated from
 * the CUDA runtime and zeroed, freed at every exit of its block (each an
 * observation). */
void emit_dev_buffer(Ex *x, Node *s)
{
    const char *kind = s->buffer.place == PLACE_PINNED    ? "CN_DEV_MEM_PINNED"
                       : s->buffer.place == PLACE_UNIFIED ? "CN_DEV_MEM_UNIFIED"
                                                          : "CN_DEV_MEM_DEVICE";
    x->uses_dev = true;
    Sym *sym = s->buffer.sym;
    Type *elem = sym->ty->elem;
    const char *suf = emit_suffix(elem), *ct = emit_ctype(x, elem);
    const char *n = emit_expr(x, s->buffer.size);
    if (type_is_signed(s->buffer.size->ty))
        n = emit_fmt(x, "cn_to_usize_s((long long)(%s), %s)", n, emit_at(x, s->buffer.size->span));
    const char *nv = emit_tmp(x, "bn");
    emit_line(x, "const size_t %s = %s;", nv, n);
    emit_line(x, "cn_view_%s %s = cn_view_%s_make((%s *)cn_exec_buffer(%s, %s, sizeof(%s), %s, %s), %s);", suf,
              sym->cname, suf, ct, kind, nv, ct, emit_str_lit(x, s->buffer.id), emit_at(x, s->span), nv);
    vec_push(x->a, &x->fn->scope->releases,
             (void *)emit_fmt(x, "cn_exec_free_mem(cn_exec_get(), %s, %s.p);", kind, sym->cname));
}
