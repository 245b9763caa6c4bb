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

#include <string.h>

enum { DEV_THREADS = 256 };

/* ------------------------------------------------------------ lanes */

static void dev_lane_begin(Ex *x, LaneFn *L, Ctxt *k, const char *suffix)
{
    memset(L, 0, sizeof *L);
    L->f.fn = x->fn ? x->fn->fn : NULL;
    L->f.ret = type_prim(TY_VOID);
    L->f.out = &L->out;
    L->f.indent = 1;
    L->saved = x->fn;
    x->fn = &L->f;
    buf_printf(x->a, &L->out, "CN_DEV_LANE void %s%s(const struct %s *cn_c, size_t cn_i)\n{\n", k->name, suffix,
               k->name);
    for (int i = 0; i < k->fields.n; i++)
        emit_line(x, "%s %s = cn_c->%s; (void)%s;", (const char *)k->ctypes.v[i], (const char *)k->fields.v[i],
                  (const char *)k->fields.v[i], (const char *)k->fields.v[i]);
    emit_line(x, "(void)cn_c; (void)cn_i;");
}

static void dev_lane_end(Ex *x, LaneFn *L, Ctxt *k, const char *suffix)
{
    buf_printf(x->a, &L->out, "}\nCN_DEV_KERNEL(%s%s_k, struct %s, %s%s, %d)\n\n", k->name, suffix, k->name,
               k->name, suffix, DEV_THREADS);
    x->fn = L->saved;
    buf_append(x->a, &x->kernels, &L->out);
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
    Caps caps = {0};
    for (int k = 0; k < n; k++) {
        caps_add(x, &caps, rs[k]->loop.body);
        if (rs[k]->loop.sym)
            vec_push(x->a, &caps.declared, rs[k]->loop.sym);
    }
    Ctxt u = {0};
    u.name = emit_tmp(x, "dregion");
    capture_fields(x, &u, &caps, NULL, NULL);
    ctx_struct(x, &u);
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
    dev_lane_begin(x, &L, &u, "_lane");
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
    dev_lane_end(x, &L, &u, "_lane");
}

/* ------------------------------------------------------------ collectors */

/* The fields every pass reads: the extent, the parts, the partials. */
static void part_fields(Ex *x, Ctxt *k, const char *n, const char *L, const char *part_t, const char *parts)
{
    field(x, k, "size_t", "cn_n", n);
    field(x, k, "size_t", "cn_L", L);
    field(x, k, arena_printf(x->a, "%s *", part_t), "cn_part", parts);
}

/* `for each index of this lane's part { const size_t IV = j; ... }` */
static void part_loop_open(Ex *x, Sym *is, bool reduction)
{
    const char *p = reduction ? "cn_rpart" : "cn_part";
    emit_line(x, "for (size_t cn_j = %s_lo(cn_n, cn_L, cn_i); cn_j < %s_hi(cn_n, cn_L, cn_i); cn_j += %s) {", p, p,
              reduction ? "cn_rpart_step(cn_L)" : "1");
    x->fn->indent++;
    emit_line(x, "const size_t %s = cn_j;", index_name(x, is));
}

static void part_loop_close(Ex *x)
{
    x->fn->indent--;
    emit_line(x, "}");
}

/* Pass 1 of a reduce or scan: lane p folds its part's terms into partial
 * p (a scan also stores each term where its prefix will go). */
static void fold_parts_lane(Ex *x, Ctxt *k, Coll *c, Node *e, bool store_terms)
{
    LaneFn F;
    dev_lane_begin(x, &F, k, "_l1");
    acc_decl(x, c, "cn_acc");
    part_loop_open(x, e->collect.sym, !store_terms);
    emit_line(x, "const %s cn_y = %s;", emit_ctype(x, c->vt), emit_expr(x, e->collect.value));
    if (store_terms)
        emit_line(x, "cn_dest.p[cn_j] = cn_y;");
    acc_fold(x, c, "cn_acc", "cn_y");
    part_loop_close(x);
    emit_line(x, "cn_part[cn_i] = cn_acc;");
    dev_lane_end(x, &F, k, "_l1");
}

/* The scratch of a collector: L + 1 partials, then room for one value. */
static const char *scratch(Ex *x, const char *L, const char *part_t, const char *at)
{
    const char *s = emit_tmp(x, "scr");
    emit_line(x, "char *%s = (char *)cn_exec_scratch(cn_exec_get(), (%s + 1) * sizeof(%s) + 16, %s);", s, L, part_t,
              at);
    return s;
}

/* A device accumulator: the exact sum is the host's; on the device a float
 * total combines in an order the hardware leaves open (numerics.md). */
static void dev_coll_init(Ex *x, Coll *c, Node *e)
{
    coll_init(x, c, e);
    if (c->ak == ACC_EXACT) {
        c->ak = ACC_PLAIN;
        c->acc_t = emit_ctype(x, c->vt);
    }
    if (c->ak == ACC_SUM128 || c->ak == ACC_PMUL)
        x->uses_par = true;   /* cn_i128, cn_pmul and their fits */
}

/* The value stored where the host reads it, brought back with one copy. */
static const char *copy_back(Ex *x, const char *ctype, const char *src, const char *at)
{
    const char *res = emit_tmp(x, "dtot");
    emit_line(x, "%s %s;", ctype, res);
    emit_line(x, "cn_exec_transfer(cn_exec_get(), CN_DEV_D2H, &%s, 1, %s, 1, sizeof(%s), %s);", res, src, ctype, at);
    return res;
}

static const char *dev_reduce(Ex *x, Node *e)
{
    Coll c;
    dev_coll_init(x, &c, e);
    const char *vt = emit_ctype(x, c.vt);
    Ctxt k = coll_ctx(x, e, "dreduce");
    const char *n = emit_tmp(x, "n"), *L = emit_tmp(x, "L"), *parts = emit_tmp(x, "part"), *out = emit_tmp(x, "out");
    part_fields(x, &k, n, L, c.acc_t, parts);
    field(x, &k, arena_printf(x->a, "%s *", vt), "cn_out", out);
    ctx_struct(x, &k);
    emit_line(x, "const size_t %s = %s;", n, emit_expr(x, e->collect.extent));
    emit_line(x, "const size_t %s = cn_dev_parts(%s);", L, n);
    const char *s = scratch(x, L, c.acc_t, c.at);
    emit_line(x, "%s *%s = (%s *)%s;", c.acc_t, parts, c.acc_t, s);
    if (e->collect.dest)
        emit_line(x, "%s *%s = %s;", vt, out, emit_addr(x, e->collect.dest));
    else
        emit_line(x, "%s *%s = (%s *)(%s + (%s + 1) * sizeof(%s));", vt, out, vt, s, L, c.acc_t);
    const char *v = ctx_fill(x, &k);
    launch(x, &k, "_l1", L, v);
    launch(x, &k, "_l2", "1", v);
    const char *res = "0";
    if (!e->collect.dest)
        res = copy_back(x, vt, out, c.at);
    else
        emit_dev_after_op(x);

    fold_parts_lane(x, &k, &c, e, false);
    LaneFn F;
    dev_lane_begin(x, &F, &k, "_l2");
    acc_decl(x, &c, "cn_acc");
    emit_line(x, "for (size_t cn_p = 0; cn_p < cn_L; cn_p++) {");
    acc_merge(x, &c, "cn_acc", "cn_part[cn_p]");
    emit_line(x, "}");
    emit_line(x, "*cn_out = %s;", acc_value(x, &c, "cn_acc"));
    dev_lane_end(x, &F, &k, "_l2");
    return res;
}

/* scan OP DEST over @device views (integers: floats are E-SCAN-ORDER):
 * the terms and each part's partial; the partials made exclusive prefixes
 * by one lane (the total after them); each part rewritten as prefixes. */
static const char *dev_scan(Ex *x, Node *e, bool discarded)
{
    Coll c;
    dev_coll_init(x, &c, e);
    const char *vt = emit_ctype(x, c.vt);
    Ctxt k = coll_ctx(x, e, "dscan");
    const char *n = emit_tmp(x, "n"), *L = emit_tmp(x, "L"), *parts = emit_tmp(x, "part"), *dname;
    emit_line(x, "const size_t %s = %s;", n, emit_expr(x, e->collect.extent));
    const char *d = emit_dest_view(x, e, &k, &dname);
    part_fields(x, &k, n, L, c.acc_t, parts);
    const char *out = emit_tmp(x, "out");
    field(x, &k, arena_printf(x->a, "%s *", vt), "cn_out", out);
    ctx_struct(x, &k);
    emit_line(x, "if (%s > %s.n)", n, d);
    emit_line(x, "    (void)cn_idx_u(%s.n, %s.n, %s, %s);", d, d, dname, c.at);
    emit_line(x, "const size_t %s = cn_dev_parts(%s);", L, n);
    const char *s = scratch(x, L, c.acc_t, c.at);
    emit_line(x, "%s *%s = (%s *)%s;", c.acc_t, parts, c.acc_t, s);
    emit_line(x, "%s *%s = (%s *)(%s + (%s + 1) * sizeof(%s));", vt, out, vt, s, L, c.acc_t);
    const char *v = ctx_fill(x, &k);
    launch(x, &k, "_l1", L, v);
    launch(x, &k, "_l2", "1", v);
    launch(x, &k, "_l3", L, v);
    const char *res = "0";
    if (discarded)
        emit_dev_after_op(x);
    else
        res = copy_back(x, vt, out, c.at);

    fold_parts_lane(x, &k, &c, e, true);
    LaneFn F;
    dev_lane_begin(x, &F, &k, "_l2");
    acc_decl(x, &c, "cn_acc");
    emit_line(x, "for (size_t cn_p = 0; cn_p < cn_L; cn_p++) {");
    emit_line(x, "    const %s cn_blk = cn_part[cn_p];", c.acc_t);
    emit_line(x, "    cn_part[cn_p] = cn_acc;");
    acc_merge(x, &c, "cn_acc", "cn_blk");
    emit_line(x, "}");
    emit_line(x, "*cn_out = %s;", acc_value(x, &c, "cn_acc"));
    dev_lane_end(x, &F, &k, "_l2");

    dev_lane_begin(x, &F, &k, "_l3");
    emit_line(x, "%s cn_acc = cn_part[cn_i];", c.acc_t);
    emit_line(x, "for (size_t cn_j = cn_part_lo(cn_n, cn_L, cn_i); cn_j < cn_part_hi(cn_n, cn_L, cn_i); cn_j++) {");
    acc_fold(x, &c, "cn_acc", "cn_dest.p[cn_j]");
    emit_line(x, "    cn_dest.p[cn_j] = %s;", acc_value(x, &c, "cn_acc"));
    emit_line(x, "}");
    dev_lane_end(x, &F, &k, "_l3");
    return res;
}

/* compact DEST over @device views: each part counts what it keeps; one
 * lane makes the counts offsets (and checks the total fits DEST); each
 * part writes what it keeps from its offset, in index order. */
static const char *dev_compact(Ex *x, Node *e, bool discarded)
{
    const char *at = emit_at(x, e->span), *vt = emit_ctype(x, e->collect.value->ty);
    Ctxt k = coll_ctx(x, e, "dcompact");
    const char *n = emit_tmp(x, "n"), *L = emit_tmp(x, "L"), *parts = emit_tmp(x, "cnt"), *dname;
    emit_line(x, "const size_t %s = %s;", n, emit_expr(x, e->collect.extent));
    emit_dest_view(x, e, &k, &dname);
    part_fields(x, &k, n, L, "size_t", parts);
    ctx_struct(x, &k);
    emit_line(x, "const size_t %s = cn_dev_parts(%s);", L, n);
    const char *s = scratch(x, L, "size_t", at);
    emit_line(x, "size_t *%s = (size_t *)%s;", parts, s);
    const char *v = ctx_fill(x, &k);
    launch(x, &k, "_l1", L, v);
    launch(x, &k, "_l2", "1", v);
    launch(x, &k, "_l3", L, v);
    const char *res = "((size_t)0)";
    if (discarded)
        emit_dev_after_op(x);
    else
        res = copy_back(x, "size_t", arena_printf(x->a, "%s + %s", parts, L), at);

    LaneFn F;
    dev_lane_begin(x, &F, &k, "_l1");
    emit_line(x, "size_t cn_count = 0;");
    part_loop_open(x, e->collect.sym, false);
    emit_line(x, "cn_count += (%s) ? 1 : 0;", emit_expr(x, e->collect.keep));
    part_loop_close(x);
    emit_line(x, "cn_part[cn_i] = cn_count;");
    dev_lane_end(x, &F, &k, "_l1");

    dev_lane_begin(x, &F, &k, "_l2");
    emit_line(x, "size_t cn_run = 0;");
    emit_line(x, "for (size_t cn_p = 0; cn_p < cn_L; cn_p++) {");
    emit_line(x, "    const size_t cn_b = cn_part[cn_p];");
    emit_line(x, "    cn_part[cn_p] = cn_run;");
    emit_line(x, "    cn_run += cn_b;");
    emit_line(x, "}");
    emit_line(x, "cn_part[cn_L] = cn_run;");
    emit_line(x, "if (cn_run > cn_dest.n)");
    emit_line(x, "    (void)cn_idx_u(cn_dest.n, cn_dest.n, %s, %s);", dname, at);
    dev_lane_end(x, &F, &k, "_l2");

    dev_lane_begin(x, &F, &k, "_l3");
    emit_line(x, "size_t cn_pos = cn_part[cn_i];");
    part_loop_open(x, e->collect.sym, false);
    emit_line(x, "if (%s) {", emit_expr(x, e->collect.keep));
    x->fn->indent++;
    emit_line(x, "const %s cn_y = %s;", vt, emit_expr(x, e->collect.value));
    emit_line(x, "cn_dest.p[cn_pos++] = cn_y;");
    x->fn->indent--;
    emit_line(x, "}");
    part_loop_close(x);
    dev_lane_end(x, &F, &k, "_l3");
    return res;
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
    const char *vt = arena_printf(x->a, "cn_view_%s", emit_suffix(dn->ty->elem));
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

/* ------------------------------------------------------------ queued work */

static const char *after_list(Ex *x, Node *e, const char **count)
{
    int n = e->spawn.after.n;
    *count = arena_printf(x->a, "%d", n);
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
    Caps caps = {0};
    caps_add(x, &caps, w->loop.body);
    if (w->loop.sym)
        vec_push(x->a, &caps.declared, w->loop.sym);
    Ctxt u = {0};
    u.name = emit_tmp(x, "dspawn");
    capture_fields(x, &u, &caps, NULL, NULL);
    ctx_struct(x, &u);
    const char *end = emit_tmp(x, "end");
    emit_line(x, "const size_t %s = %s;", end, emit_expr(x, w->loop.hi));
    const char *v = ctx_fill(x, &u);
    emit_line(x, "const struct cn_ticket %s = cn_exec_spawn_launch(cn_exec_get(), &%s_lane_k, %s, &%s, %s, %s, %s);",
              t, u.name, end, v, after, count, at);
    LaneFn L;
    dev_lane_begin(x, &L, &u, "_lane");
    emit_line(x, "const size_t %s = cn_i;", index_name(x, w->loop.sym));
    emit_line(x, "{");
    emit_block(x, w->loop.body, true);
    emit_line(x, "}");
    dev_lane_end(x, &L, &u, "_lane");
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

/* buffer x:T[n]@device = zeroed: allocated and zeroed on the run, freed
 * at every exit of its block (each an observation). */
void emit_dev_buffer(Ex *x, Node *s)
{
    x->uses_dev = true;
    Sym *sym = s->buffer.sym;
    Type *elem = sym->ty->elem;
    const char *suf = emit_suffix(elem), *ct = emit_ctype(x, elem);
    const char *n = emit_expr(x, s->buffer.size);
    if (type_is_signed(s->buffer.size->ty))
        n = arena_printf(x->a, "cn_to_usize_s((long long)(%s), %s)", n, emit_at(x, s->buffer.size->span));
    const char *nv = emit_tmp(x, "bn");
    emit_line(x, "const size_t %s = %s;", nv, n);
    emit_line(x, "cn_view_%s %s = cn_view_%s_make((%s *)cn_exec_buffer(%s, sizeof(%s), %s, %s), %s);", suf,
              sym->cname, suf, ct, nv, ct, emit_str_lit(x, s->buffer.id), emit_at(x, s->span), nv);
    vec_push(x->a, &x->fn->scope->releases,
             (void *)arena_printf(x->a, "cn_exec_free(cn_exec_get(), %s.p);", sym->cname));
}
