/*
 * emit_coop.c: cooperative regions (issue 13), on host threads against
 * runtime/cairn_coop.h, and on the device against runtime/cairn_coopdev.h.
 *
 * Requires: a region every rule accepted (check_coop.c, coop_global.c).
 * Guarantees, on the host: `blocks b in G threads t in T { body } [then
 * threads u in T { fin }]` becomes one cn_coop_run call: the body (and the
 * finish) as a function every thread of every block calls, its names
 * recovered from the flat block and thread numbers, its shared arrays at the
 * 128-byte offsets of a layout table the runtime prepares (zeroed, or filled
 * with a pattern), barrier as cn_coop_barrier, the warp operations as the
 * runtime's, floats by their bits, `reduce OP warp` through a combine
 * function written per use.
 *
 * On the device (a region that indexes a @device view) it becomes one
 * kernel, CN_COOP_KERNEL(_FINISH), launched once on the thread's execution
 * context (cn_exec_coop_launch on its run stream, so a cq_ entry's stream
 * too):
 *
 *     struct cn_coopK { <what the body reads from outside> };
 *     static __shared__ __align__(128) unsigned char cn_coopK_shared[BYTES];
 *     CN_DEV_LANE void cn_coopK_block(const struct cn_coopK *cn_c, size_t cn_b0,
 *                                     size_t cn_b1, size_t cn_b2)
 *     { <fields>; <each `= zeroed` array zeroed, a stride per thread>;
 *       __syncthreads(); <names: blocks from the runtime's dividers, threads
 *       from threadIdx.x>; body }
 *     [CN_DEV_LANE void cn_coopK_finish(const struct cn_coopK *cn_c) { ... }]
 *     CN_COOP_KERNEL(_FINISH)(cn_coopK_k, struct cn_coopK, cn_coopK_block, ...)
 *
 * The shared arrays sit in one static __shared__ buffer at the host's
 * layout (each on a 128-byte boundary), which the body and the finish
 * share: they never run at once (the kernel's barrier lies between), and
 * two separate sets could pass the 48 KiB of static shared memory a kernel
 * may have when each alone holds 48 KiB. barrier is __syncthreads(); the
 * warp operations are cn_coopd_* (__shfl_*_sync and the votes over the full
 * mask, the host's edge lanes, the host's butterfly); a failed guard traps
 * as a device lane's does.
 *
 * Under --emulate the same file runs on the emulated machine, so each device
 * region is written twice (coop_emulated): first, under `#if
 * CN_DEV_EMULATED`, its body and finish in the host's lowering (body_fn,
 * reading the device struct through the launch and naming its block from
 * the grid's dividers) with a CN_COOP_TEAMS(_FINISH) descriptor of the same
 * name as the kernel's; then, under `#else`, the CUDA kernel above. The
 * launch where the region stands is one text for both; cairn_coopdev.h
 * runs the emulated one on cairn_coop.h's teams of real threads.
 */
#include "emit.h"
#include "frag.h"
#include "layout.h"
#include "par.h"
#include "sym.h"

#include <string.h>

/* The layout of one body's shared arrays: each directly in the body, in
 * order, on a 128-byte boundary (the checker held them to 48 KiB). */
struct CoopLayout {
    Vec syms;             /* Sym* of the arrays */
    Vec offs;             /* the offsets, as (void *)(intptr_t) */
    int64_t bytes;
    int64_t threads;      /* the region's threads a block */
    Vec pipes;            /* Sym* of its pipelines, in order (their fills' teams) */
    bool swizzled;        /* a row fill of the body goes through a swizzle */
};
typedef struct CoopLayout ShLayout;

static int64_t elem_bytes(const Type *t)
{
    int bits = type_bits(t);
    return bits ? bits / 8 : 1;
}

/* A pipeline's depth (1 for a shared array): its stages lie one after
 * another. */
static int64_t stages_of(Ex *x, const Node *s)
{
    int64_t d = 1;
    if (s->kind == N_PIPELINE && (!sym_const(x->a, s->buffer.depth, &d) || d < 1))
        die("emit: pipeline %s has no constant depth", s->buffer.id);
    return d;
}

static bool in_layout(const Node *s)
{
    return (s->kind == N_SHARED || s->kind == N_PIPELINE) && s->buffer.sym && s->buffer.sym->ty &&
           s->buffer.sym->ty->extent;
}

static const Layout *fill_rows_layout(const Node *e);

/* A row fill through a swizzled layout, anywhere in a body. */
static bool swizzled_visit(Node *n, void *ctx)
{
    const Layout *L;
    if (n->kind == N_CALL && pipe_op_of(n) && n->call.builtin == PIPE_FILL_ROWS && (L = fill_rows_layout(n)) &&
        L->kind == LAYOUT_SWIZZLE)
        *(bool *)ctx = true;
    return true;
}

static void layout_of(Ex *x, Node *body, int64_t threads, ShLayout *L)
{
    memset(L, 0, sizeof *L);
    L->threads = threads;
    if (body)
        walk_tree(body, WALK_CODE, swizzled_visit, &L->swizzled);
    for (int i = 0; body && i < body->block.stmts.n; i++) {
        Node *s = body->block.stmts.v[i];
        int64_t n;
        if (!in_layout(s) || !sym_const(x->a, s->buffer.sym->ty->extent, &n))
            continue;
        n *= stages_of(x, s);
        int64_t off = (L->bytes + 127) / 128 * 128;
        vec_push(x->a, &L->syms, s->buffer.sym);
        vec_push(x->a, &L->offs, (void *)(intptr_t)off);
        if (s->kind == N_PIPELINE)
            vec_push(x->a, &L->pipes, s->buffer.sym);
        L->bytes = off + n * elem_bytes(s->buffer.sym->ty->elem);
    }
    /* whole 8-byte words: an atomic on an 8- or 16-bit element updates the
     * 32-bit word that holds it (cairn_atomic.h), which may reach past the
     * last array's end (compute-sanitizer's memcheck saw u8[2] at the end) */
    L->bytes = (L->bytes + 7) / 8 * 8;
}

/* The static layout table, named, at file scope: into OUT (the types, or
 * the emulated section). */
static const char *layout_table(Ex *x, Node *body, const ShLayout *L, const char *name, Buf *out)
{
    Buf b = {0};
    int k = 0;
    if (L->syms.n) {
        buf_printf(x->a, &b, "static const struct cn_coop_array %s_arrays[] = {", name);
        for (int i = 0; i < body->block.stmts.n; i++) {
            Node *s = body->block.stmts.v[i];
            if (!in_layout(s) || k >= L->syms.n || s->buffer.sym != L->syms.v[k])
                continue;
            int64_t n = 0;
            sym_const(x->a, s->buffer.sym->ty->extent, &n);
            n *= stages_of(x, s);
            buf_printf(x->a, &b, "%s{%lld, %lld, %d}", k ? ", " : "", (long long)(intptr_t)L->offs.v[k],
                       (long long)(n * elem_bytes(s->buffer.sym->ty->elem)), s->buffer.zeroed ? 1 : 0);
            k++;
        }
        buf_printf(x->a, &b, "};\n");
    }
    buf_printf(x->a, &b, "static const struct cn_coop_layout %s = {%lld, %s, %d};\n\n", name, (long long)L->bytes,
               L->syms.n ? emit_fmt(x, "%s_arrays", name) : "NULL", L->syms.n);
    buf_append(x->a, out, &b);
    return name;
}

/* Whether a body's pipelines each have a team (pipe_team). */
static bool teams_of(const ShLayout *L)
{
    return L->pipes.n > 1 && (L->threads / 32) % L->pipes.n == 0 && !L->swizzled;
}

/* The team that makes pipeline y's fills on the device (cairn_coopdev.h,
 * cn_coopd_in_team): the i-th K-th of the block's warps for the i-th of
 * its K pipelines where K > 1 divides the warps, else every thread. Not
 * where a row fill goes through a swizzle: its copies find their places by
 * a division each, which a team makes twice as many of a thread, and on
 * an H200 tile32 (A through a swizzle) lost 17% with teams where tile128
 * gained 10% and tile64 3% (evidence/2026-12-07-h200-fills.md). */
static void pipe_team(const Ex *x, const Sym *y, int64_t *lo, int64_t *n)
{
    const ShLayout *L = x->coop_layout;
    int64_t k = L->pipes.n;
    *lo = 0, *n = L->threads;
    if (!teams_of(L))
        return;
    for (int i = 0; i < k; i++)
        if (L->pipes.v[i] == y)
            *lo = i * (L->threads / k), *n = L->threads / k;
}

/* A constant a fill's rows or cols cannot pass, read off its expression
 * (a constant, or min with a constant on either side, through immutable
 * lets); 0 where there is none
 * (cairn_coopdev.h, CN_COOPD_CONST_ROWS). */
static int64_t fill_bound(Ex *x, Node *e)
{
    int64_t v = 0;
    for (int hops = 0; hops < 8 && e->kind == N_NAME && e->name.sym && !e->name.sym->mut && e->name.sym->decl &&
                       e->name.sym->decl->kind == N_LET && e->name.sym->decl->let.init;
         hops++)   /* an immutable let: its value's bound */
        e = e->name.sym->decl->let.init;
    if (sym_const(x->a, e, &v))
        return v > 0 && v < ((int64_t)1 << 32) ? v : 0;
    if (e->kind == N_CALL && e->call.ck == CALL_BUILTIN && e->call.builtin == B_MIN && e->call.args.n == 2)
        for (int i = 0; i < 2; i++)
            if (sym_const(x->a, e->call.args.v[i], &v))
                return v > 0 && v < ((int64_t)1 << 32) ? v : 0;
    return 0;
}

/* Opens a fill's team test where pipeline y's team is a part of the
 * block (LO and N its first thread and count); team_close ends it. */
static bool team_open(Ex *x, const Sym *y, int64_t *lo, int64_t *n)
{
    pipe_team(x, y, lo, n);
    if (*n == x->coop_layout->threads)
        return false;
    emit_line(x, "if (cn_coopd_in_team<%lldu, %lldu>()) {", (long long)*lo, (long long)*n);
    return true;
}

/* The threads outside the team commit an empty group, so every thread's
 * count of groups stays what the waits were given. */
static void team_close(Ex *x, bool team)
{
    if (team)
        emit_line(x, "} else cn_coopd_commit(); /* the team's group, empty here */");
}

/* A shared array or a pipeline, in the body function: a view of its place
 * in the block's memory. A pipeline also keeps its stages' start and the
 * fills and waits the thread has made (every thread makes the same); each
 * wait moves its view to the stage it made readable, so every use of the
 * name reads that stage. */
void emit_coop_shared(Ex *x, Node *s)
{
    const ShLayout *L = x->coop_layout;
    Sym *y = s->buffer.sym;
    for (int i = 0; L && i < L->syms.n; i++) {
        if (L->syms.v[i] != y)
            continue;
        const char *suf = emit_suffix(y->ty->elem), *ct = emit_ctype(x, y->ty->elem);
        const char *at = emit_fmt(x, "(%s *)(cn_shared + %lld)", ct, (long long)(intptr_t)L->offs.v[i]);
        int64_t n = 0;
        sym_const(x->a, y->ty->extent, &n);
        if (s->kind == N_PIPELINE) {
            emit_line(x, "%s *%s_stages = %s;", ct, y->cname, at);
            emit_line(x, "unsigned %s_fill_at = 0, %s_wait_at = 0;", y->cname, y->cname);
            emit_line(x, "(void)%s_fill_at; (void)%s_wait_at;", y->cname, y->cname);
            if (x->coop_device && teams_of(L) && L->pipes.v[0] != y) {
                /* with teams a thread fills one of them, so one memo serves */
                emit_line(x, "#if CN_COOPD_TEAMS");
                emit_line(x, "struct cn_coopd_padmemo &cn_pm_%s = cn_pm_%s;", y->cname,
                          ((Sym *)L->pipes.v[0])->cname);
                emit_line(x, "#else");
                emit_line(x, "struct cn_coopd_padmemo cn_pm_%s = {0, 0, 0, 0};", y->cname);
                emit_line(x, "#endif");
            } else if (x->coop_device) {
                emit_line(x, "struct cn_coopd_padmemo cn_pm_%s = {0, 0, 0, 0};", y->cname);
            }
            at = emit_fmt(x, "%s_stages", y->cname);
        }
        emit_line(x, "cn_view_%s %s = cn_view_%s_make(%s, %lld); (void)%s;", suf, y->cname, suf, at, (long long)n,
                  y->cname);
        return;
    }
    die("emit: %s %s has no place in its block's layout", s->kind == N_PIPELINE ? "pipeline" : "shared array", y->id);
}

/* The layout fill_rows' pitch names, if it names one (check_call.c: rows
 * or one swizzle of rows, as many elements as a stage). */
static const Layout *fill_rows_layout(const Node *e)
{
    const Node *ln = e->call.args.v[5];
    return ln->kind == N_NAME && ln->name.sym && ln->name.sym->kind == SYM_LAYOUT ? ln->name.sym->layout : NULL;
}

/* p.fill(x, start, count), p.wait(), p.release(): the stage at fills (or
 * waits) mod D, kept as a stage index that wraps (a 64-bit count mod 3 was
 * a division every step). A fill copies on the host (each thread its share, now); on
 * the device each thread starts its share's cp.async and commits them as
 * one group, and a wait lets the fills the stage checker counted stay in
 * flight (cp.async.wait_group), then meets the block, whose copies are
 * then visible to every thread. A release frees nothing until a barrier,
 * and writes nothing. */
void emit_coop_pipe_op(Ex *x, Node *e)
{
    Sym *y = pipe_op_of(e);
    Node *d = y ? y->decl : NULL;
    if (!d || !x->coop_layout)
        die("emit: a pipeline operation outside its region");
    int64_t n = 0, depth = stages_of(x, d);
    sym_const(x->a, y->ty->extent, &n);
    const char *c = y->cname;
    switch ((PipeOp)e->call.builtin) {
    case PIPE_FILL: {
        Node *src = e->call.args.v[0];
        const char *sv = emit_expr(x, src), *start = emit_expr(x, e->call.args.v[1]);
        const char *count = emit_expr(x, e->call.args.v[2]);
        const char *st = emit_fmt(x, "cn_fs_%s", c), *ct = emit_fmt(x, "cn_fc_%s", c);
        int64_t lo = 0, tn = x->coop_layout->threads;
        emit_line(x, "{");
        emit_line(x, "size_t %s = (size_t)(%s), %s = (size_t)(%s);", st, start, ct, count);
        bool team = x->coop_device && team_open(x, y, &lo, &tn);
        emit_line(x, "cn_fill_check(%s, %s, %s.n, %lldu, \"%s\", %s, %s);", st, ct, sv, (long long)n, y->id,
                  emit_src_lit(x, src), emit_at(x, e->span));
        if (x->coop_device)
            emit_line(x, "cn_coopd_fill<%lldu, %lldu, %lldu>(%s_stages + %s_fill_at * %lldu, %s.p, %s, %s, %lldu, "
                         "sizeof *%s_stages);",
                      (long long)lo, (long long)tn, (long long)x->coop_layout->threads, c, c, (long long)n, sv, st,
                      ct, (long long)n, c);
        else
            emit_line(x, "cn_coop_fill(cn_th, %s_stages + %s_fill_at * %lldu, %s.p, %s, %s, %lldu, sizeof *%s_stages);",
                      c, c, (long long)n, sv, st, ct, (long long)n, c);
        if (x->coop_device) {   /* the whole stage is rewritten: no row fill's pads stay */
            emit_line(x, "cn_pm_%s.held &= ~(1u << %s_fill_at);", c, c);
            team_close(x, team);
        }
        emit_line(x, "%s_fill_at = %s_fill_at + 1 == %lldu ? 0 : %s_fill_at + 1;", c, c, (long long)depth, c);
        emit_line(x, "}");
        return;
    }
    case PIPE_FILL_ROWS: {
        Node *src = e->call.args.v[0];
        const char *sv = emit_expr(x, src), *a[5];
        static const char *const nm[] = {"st", "sd", "rw", "cl", "pt"};
        for (int i = 0; i < 5; i++)
            a[i] = emit_fmt(x, "cn_f%s_%s", nm[i], c);
        unsigned swz = 0;   /* a layout's swizzle, B | M << 8 | S << 16; 0: rows as they are */
        const Layout *L = fill_rows_layout(e);
        emit_line(x, "{");
        for (int i = 0; i < 5; i++)
            if (i == 4 && L)
                emit_line(x, "size_t %s = %lldu;", a[i], (long long)(L->kind == LAYOUT_SWIZZLE ? L->base : L)->cols);
            else
                emit_line(x, "size_t %s = (size_t)(%s);", a[i], emit_expr(x, e->call.args.v[i + 1]));
        if (L && L->kind == LAYOUT_SWIZZLE)
            swz = (unsigned)L->bits | (unsigned)L->low << 8 | (unsigned)L->shift << 16;
        const char *pad = emit_fmt(x, "cn_fpad_%s", c);
        emit_line(x, "%s %s = %s;", emit_ctype(x, y->ty->elem), pad, emit_expr(x, e->call.args.v[6]));
        int64_t lo = 0, tn = x->coop_layout->threads;
        bool team = x->coop_device && team_open(x, y, &lo, &tn);
        emit_line(x, "cn_fill_rows_check(%s, %s, %s, %s, %s, %s.n, %lldu, \"%s\", %s, %s);", a[0], a[1], a[2], a[3],
                  a[4], sv, (long long)n, y->id, emit_src_lit(x, src), emit_at(x, e->span));
        if (x->coop_device) {
            emit_line(x, "uint64_t cn_fpb_%s = 0;", c);
            emit_line(x, "memcpy(&cn_fpb_%s, &%s, sizeof %s);", c, pad, pad);
            emit_line(x, "cn_coopd_fill_rows<%lldu, %lldu, %lldu, %lldu, %lldu>(%s_stages + %s_fill_at * %lldu, %s.p, "
                         "%s, %s, %s, %s, %s, %#xu, %lldu, sizeof *%s_stages, cn_fpb_%s, &cn_pm_%s, %s_fill_at);",
                      (long long)lo, (long long)tn, (long long)x->coop_layout->threads,
                      (long long)fill_bound(x, e->call.args.v[3]), (long long)fill_bound(x, e->call.args.v[4]), c, c,
                      (long long)n, sv, a[0], a[1], a[2], a[3], a[4], swz, (long long)n, c, c, c, c);
            team_close(x, team);
        } else {
            emit_line(x, "cn_coop_fill_rows(cn_th, %s_stages + %s_fill_at * %lldu, %s.p, %s, %s, %s, %s, %s, %#xu, "
                         "%lldu, sizeof *%s_stages, &%s);",
                      c, c, (long long)n, sv, a[0], a[1], a[2], a[3], a[4], swz, (long long)n, c, pad);
        }
        emit_line(x, "%s_fill_at = %s_fill_at + 1 == %lldu ? 0 : %s_fill_at + 1;", c, c, (long long)depth, c);
        emit_line(x, "}");
        return;
    }
    case PIPE_WAIT: {
        int keep = e->call.stage_keep > 0 ? e->call.stage_keep : 0;
        if (x->wait_then_wait)   /* the next statement's wait meets the block for both */
            emit_line(x, x->coop_device ? "CN_COOPD_STAGE_WAIT_ONLY(%d);" : "/* the next wait's barrier */", keep);
        else if (x->coop_device)
            emit_line(x, "CN_COOPD_STAGE_WAIT(%d);", keep);
        else
            emit_line(x, "cn_coop_barrier(cn_th);");
        x->wait_then_wait = false;
        emit_line(x, "%s.p = %s_stages + %s_wait_at * %lldu;", c, c, c, (long long)n);
        emit_line(x, "%s_wait_at = %s_wait_at + 1 == %lldu ? 0 : %s_wait_at + 1;", c, c, (long long)depth, c);
        return;
    }
    case PIPE_RELEASE:
        emit_line(x, "/* %s.release(): its stage is free after the next barrier */", y->id);
        return;
    default:
        die("emit: pipeline operation %d", e->call.builtin);
    }
}

/* Whether a body declares a pipeline (its copies are drained at its end). */
static bool has_pipeline(const Node *body)
{
    for (int i = 0; body && i < body->block.stmts.n; i++)
        if (((Node *)body->block.stmts.v[i])->kind == N_PIPELINE)
            return true;
    return false;
}

void emit_coop_barrier(Ex *x)
{
    if (!x->coop_layout)
        die("emit: a barrier outside a cooperative region");
    emit_line(x, x->coop_device ? "__syncthreads();" : "cn_coop_barrier(cn_th);");
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

/* The region's captures, as host regions take them (names of every side
 * declared inside, so never captured). */
static void region_caps(Ex *x, Node *s, Caps *caps)
{
    memset(caps, 0, sizeof *caps);
    caps_add(x, caps, s->coop.body);
    caps_add(x, caps, s->coop.finish);
    const Vec *sides[3] = {&s->coop.bsyms, &s->coop.tsyms, &s->coop.fsyms};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < sides[k]->n; i++)
            if (ptrset_add(x->a, &caps->declared_set, sides[k]->v[i]))
                vec_push(x->a, &caps->declared, sides[k]->v[i]);
}

/* The thread extents of a side as C constants, for names_from. */
static const char **thread_exts(Ex *x, const Vec *text)
{
    const char **te = arena_alloc(x->a, sizeof *te * 4);
    for (int i = 0; i < text->n && i < 3; i++) {
        int64_t v = 1;
        sym_const(x->a, text->v[i], &v);
        te[i] = emit_fmt(x, "%lldu", (long long)v);
    }
    return te;
}

/* The emulated machine's body function reads the device region's struct
 * through the launch (cairn_coopdev.h, cn_coop_emu_args). */
static void emu_unpack(Ex *x, Ctxt *u)
{
    emit_line(x, "const struct %s *cn_c = (const struct %s *)cn_coop_emu_args(cn_vc);", u->name, u->name);
    for (int i = 0; i < u->fields.n; i++)
        emit_line(x, "%s %s = cn_c->%s; (void)%s;", (const char *)u->ctypes.v[i], (const char *)u->fields.v[i],
                  (const char *)u->fields.v[i], (const char *)u->fields.v[i]);
}

/* ... and names its block from the grid's dividers, as the device does. */
static void emu_block_names(Ex *x, Node *s)
{
    static const char *const bv[3] = {"cn_b0", "cn_b1", "cn_b2"};
    emit_line(x, "size_t cn_b0, cn_b1, cn_b2;");
    emit_line(x, "cn_coop_emu_names(cn_vc, cn_block, &cn_b0, &cn_b1, &cn_b2);");
    emit_line(x, "(void)cn_b0; (void)cn_b1; (void)cn_b2;");
    for (int i = 0; i < s->coop.bsyms.n && i < 3; i++) {
        Sym *b = s->coop.bsyms.v[i];
        emit_line(x, "const size_t %s = %s;", b->cname, bv[i]);
        emit_line(x, "(void)%s;", b->cname);
    }
}

/* A body function's opening: its header, then its context's fields as
 * locals. The host's goes among the definitions (with a prototype); the
 * emulated machine's into EMU. */
static void body_open(Ex *x, LaneFn *F, const char *header, Ctxt *u, Buf *emu)
{
    if (emu) {
        lane_fn_open(x, F);
        buf_printf(x->a, &F->out, "%s\n{\n", header);
        emu_unpack(x, u);
    } else {
        lane_fn_begin(x, F, header);
        ctx_unpack(x, u);
    }
}

static void body_close(Ex *x, LaneFn *F, Buf *emu)
{
    if (!emu) {
        lane_fn_end(x, F);
        return;
    }
    buf_printf(x->a, &F->out, "}\n\n");
    x->fn = F->saved;
    buf_append(x->a, emu, &F->out);
}

/* The statements of a body in the host's lowering, its shared arrays at
 * L's offsets (and, emulated, its combine functions into EMU). */
/* A region's body as a block, with the writer's state for it (its shared
 * layout, the emulated section, the device's intrinsics, the fast
 * version's proofs) set for the body and put back after. */
static void region_block(Ex *x, Node *body, const ShLayout *L, Buf *emu, bool dev, const PtrMap *fast)
{
    const ShLayout *saved = x->coop_layout;
    Buf *saved_emu = x->coop_emu;
    bool saved_dev = x->coop_device;
    const PtrMap *saved_fast = x->fast;
    x->coop_layout = L;
    x->coop_emu = emu;
    x->coop_device = dev;
    x->fast = fast;
    emit_line(x, "{");
    emit_block(x, body, false);
    if (dev && has_pipeline(body))
        emit_line(x, "CN_COOPD_STAGES_DRAIN(); /* no copy lands after the block: the next one reuses its memory */");
    emit_line(x, "}");
    x->coop_layout = saved;
    x->coop_emu = saved_emu;
    x->coop_device = saved_dev;
    x->fast = saved_fast;
}

static void body_stmts(Ex *x, Node *body, const ShLayout *L, Buf *emu)
{
    region_block(x, body, L, emu, false, NULL);
}

/* One body function: the region's or its finish's, in the host's lowering
 * (threads meeting at cn_coop_barrier, the host's warp operations). With
 * EMU it is a device region's, written for the emulated machine into EMU
 * (the emitted file's CN_DEV_EMULATED section, with its layout and combine
 * functions); without, a host region's, among the definitions. */
static const char *body_fn(Ex *x, Node *s, bool finish, Ctxt *u, const char **gext, Buf *emu)
{
    Node *body = finish ? s->coop.finish : s->coop.body;
    const Vec *tsyms = finish ? &s->coop.fsyms : &s->coop.tsyms, *text = finish ? &s->coop.fext : &s->coop.text;
    ShLayout *L = arena_alloc(x->a, sizeof *L);
    layout_of(x, body, s->coop.threads, L);
    const char *name = emit_fmt(x, "%s_%s%s", u->name, emu ? "e" : "", finish ? "finish" : "body");
    LaneFn F;
    body_open(x, &F, emit_fmt(x, "static void %s(void *cn_vc, size_t cn_block, unsigned cn_thread, unsigned char "
                                 "*cn_shared, struct cn_coop_thread *cn_th)", name), u, emu);
    emit_line(x, "(void)cn_block; (void)cn_shared; (void)cn_th;");
    if (!finish && emu)
        emu_block_names(x, s);
    else if (!finish)
        names_from(x, &s->coop.bsyms, "cn_block", gext);
    names_from(x, tsyms, "(size_t)cn_thread", thread_exts(x, text));
    body_stmts(x, body, L, emu);
    body_close(x, &F, emu);
    layout_table(x, body, L, emit_fmt(x, "%s_layout", name), emu ? emu : &x->types);
    return name;
}

/* A device region for the emulated machine: its body and finish in the
 * host's lowering and its kernel descriptor, CN_COOP_TEAMS(_FINISH), in the
 * emitted file's `#if CN_DEV_EMULATED` section, which this opens and whose
 * `#else` it writes; the CUDA kernel follows it, then the `#endif`. One
 * emitted file for every machine; the launch where the region stands is the
 * same cn_exec_coop_launch (cairn_coopdev.h runs it on teams of threads). */
static void coop_emulated(Ex *x, Node *s, Ctxt *u)
{
    Buf emu = {0};
    buf_printf(x->a, &emu, "#if CN_DEV_EMULATED\n");
    const char *body = body_fn(x, s, false, u, NULL, &emu);
    const char *fin = s->coop.finish ? body_fn(x, s, true, u, NULL, &emu) : NULL;
    buf_printf(x->a, &emu, "static const char %s_k_what[] = %s;\n", u->name, u->what);
    if (fin)
        buf_printf(x->a, &emu, "CN_COOP_TEAMS_FINISH(%s_k, %s, &%s_layout, %s, &%s_layout, %lld)\n", u->name, body, body,
                   fin, fin, (long long)s->coop.threads);
    else
        buf_printf(x->a, &emu, "CN_COOP_TEAMS(%s_k, %s, &%s_layout, %lld)\n", u->name, body, body,
                   (long long)s->coop.threads);
    buf_printf(x->a, &emu, "#else /* the CUDA machine's kernel */\n\n");
    buf_append(x->a, &x->kernels, &emu);
}

static void coop_device(Ex *x, Node *s);

/* The grid's extents as size_t locals, their product into G with the
 * host's guard where it passes usize; the locals' names into gv. */
static void grid_extents(Ex *x, Node *s, const char *G, const char **gv)
{
    emit_line(x, "size_t %s = 1;", G);
    for (int i = 0; i < s->coop.bext.n && i < 3; i++) {
        Node *e = s->coop.bext.v[i];
        const char *v = emit_tmp(x, "g");
        emit_line(x, "const size_t %s = %s;", v, emit_expr(x, e));
        emit_line(x, "if (__builtin_mul_overflow(%s, %s, &%s))", G, v, G);
        /* the grid's block count past usize: the product as the page's checked arithmetic reports it */
        emit_line(x, "    cn_fail_binop_u(%s, (unsigned long long)%s, \"*\", (unsigned long long)%s, \"usize\");",
                  emit_at(x, e->span), G, v);
        gv[i] = v;
    }
}

void emit_coop(Ex *x, Node *s)
{
    if (s->coop.device) {
        coop_device(x, s);
        return;
    }
    x->uses_par = true;
    x->uses_coop = true;
    Caps caps;
    region_caps(x, s, &caps);
    Ctxt u = {0};
    u.name = emit_tmp(x, "coop");
    /* the grid's extents, computed once where the region starts */
    emit_line(x, "{");
    x->fn->indent++;
    const char **gext = arena_alloc(x->a, sizeof *gext * 4), *G = emit_tmp(x, "grid");
    const char *gv[3] = {0};
    grid_extents(x, s, G, gv);
    for (int i = 0; i < s->coop.bext.n && i < 3; i++)
        field(x, &u, "size_t", gv[i], gv[i]);
    capture_fields(x, &u, &caps, NULL, NULL);
    ctx_struct(x, &u);
    const char *v = ctx_fill(x, &u);
    for (int i = 0; i < s->coop.bext.n && i < 3; i++)
        gext[i] = (const char *)u.fields.v[i];
    const char *body = body_fn(x, s, false, &u, gext, NULL);
    const char *fin = s->coop.finish ? body_fn(x, s, true, &u, gext, NULL) : NULL;
    emit_line(x, "(void)cn_coop_run(%s, %lldu, &%s_layout, %s, %s, %s, &%s);", G, (long long)s->coop.threads, body,
              body, fin ? emit_fmt(x, "&%s_layout", fin) : "NULL", fin ? fin : "NULL", v);
    x->fn->indent--;
    emit_line(x, "}");
}

/* ------------------------------------------------------------ on the device */

/* One device function every thread of a block calls: the block's (names
 * from the runtime's cn_b0..2) or the finish's; its fields unpacked, its
 * `= zeroed` arrays zeroed where it starts, then the body. Written to the
 * kernels. */
static const char *dev_body_fn(Ex *x, Node *s, bool finish, Ctxt *u, ShLayout *L, const char *shmem,
                               const PtrMap *fast)
{
    Node *body = finish ? s->coop.finish : s->coop.body;
    const Vec *tsyms = finish ? &s->coop.fsyms : &s->coop.tsyms, *text = finish ? &s->coop.fext : &s->coop.text;
    const char *name = emit_fmt(x, "%s_%s", u->name, finish ? "finish" : "block");
    LaneFn F;
    lane_fn_open(x, &F);
    /* the block is written once for both versions (CN_FAST: emit_fast.c) */
    buf_printf(x->a, &F.out, "CN_COOP_FAST_TEMPLATE CN_DEV_LANE void %s(const struct %s *cn_c%s)\n{\n", name,
               u->name, finish ? "" : ", size_t cn_b0, size_t cn_b1, size_t cn_b2");
    for (int i = 0; i < u->fields.n; i++)
        emit_line(x, "%s %s = cn_c->%s; (void)%s;", (const char *)u->ctypes.v[i], (const char *)u->fields.v[i],
                  (const char *)u->fields.v[i], (const char *)u->fields.v[i]);
    emit_line(x, "unsigned char *cn_shared = %s; (void)cn_shared;", L->syms.n ? shmem : "NULL");
    bool zeroed = false;
    for (int i = 0; i < L->syms.n; i++) {
        Sym *y = L->syms.v[i];
        for (int j = 0; j < body->block.stmts.n; j++) {
            Node *d = body->block.stmts.v[j];
            if (d->kind != N_SHARED || d->buffer.sym != y || !d->buffer.zeroed)
                continue;
            if (d->buffer.zero_probed && !d->buffer.zero_seen) {
                /* the phase rule followed every read: each reads an element a
                 * thread surely wrote first, so none can see the zeroing */
                emit_line(x, "/* %s: no read can see its zeroing (check_coop.c): not zeroed */", y->id);
                continue;
            }
            int64_t n = 0;
            sym_const(x->a, y->ty->extent, &n);
            emit_line(x, "cn_coopd_zero(cn_shared + %lld, %lld);", (long long)(intptr_t)L->offs.v[i],
                      (long long)(n * elem_bytes(y->ty->elem)));
            zeroed = true;
        }
    }
    if (zeroed)
        emit_line(x, "__syncthreads(); /* every thread's share of the zeroing is done */");
    if (!finish) {
        static const char *const bv[3] = {"cn_b0", "cn_b1", "cn_b2"};
        emit_line(x, "(void)cn_b0; (void)cn_b1; (void)cn_b2;");
        for (int i = 0; i < s->coop.bsyms.n && i < 3; i++) {
            Sym *b = s->coop.bsyms.v[i];
            emit_line(x, "const size_t %s = %s;", b->cname, bv[i]);
            emit_line(x, "(void)%s;", b->cname);
        }
    }
    /* the block has exactly the region's threads (its launch says so): told
     * to nvcc, a thread name's range is known, and a fragment's coordinate
     * check such as wr + 3 < 8 for wr = ty / 4 * 4 folds away */
    emit_line(x, "__builtin_assume(threadIdx.x < %lldu);", (long long)s->coop.threads);
    names_from(x, tsyms, "(size_t)threadIdx.x", thread_exts(x, text));
    region_block(x, body, L, NULL, true, fast);
    buf_printf(x->a, &F.out, "}\n\n");
    x->fn = F.saved;
    buf_append(x->a, &x->kernels, &F.out);
    return name;
}

/* A region on the device: the grid made where it starts (its product
 * guarded as on the host), the struct filled, one launch on the thread's
 * execution context; the kernel written beside the other device lanes. */
static void coop_device(Ex *x, Node *s)
{
    x->uses_dev = true;
    Caps caps;
    region_caps(x, s, &caps);
    Ctxt u = {0};
    u.name = emit_tmp(x, "coop");
    u.what = emit_dev_what(x, "cooperative region", s, s->coop.body, s->coop.finish);
    emit_line(x, "{");
    x->fn->indent++;
    const char *gv[3] = {"1", "1", "1"}, *G = emit_tmp(x, "grid"), *grid = emit_tmp(x, "cgrid");
    grid_extents(x, s, G, gv);
    emit_line(x, "struct cn_coop_grid %s;", grid);
    emit_line(x, "(void)cn_coop_grid_make(&%s, %s, %s, %s); /* the product was checked above */", grid, gv[0], gv[1],
              gv[2]);
    capture_fields(x, &u, &caps, NULL, NULL);
    field(x, &u, "bool", "cn_fast", "false");
    ctx_struct(x, &u);
    const char *v = ctx_fill(x, &u);
    PtrMap *fast = arena_alloc(x->a, sizeof *fast);
    const char *proved = fast_prove(x, s, v, gv, &caps, fast);
    if (proved)
        emit_line(x, "%s.cn_fast = %s;", v, proved);
    emit_line(x, "CN_COOP_FAST_NOTE(%s, %s.cn_fast);", u.what, v);
    emit_line(x, "cn_exec_coop_launch(cn_exec_get(), &%s_k, &%s, &%s);", u.name, grid, v);
    emit_dev_after_op(x);
    x->fn->indent--;
    emit_line(x, "}");

    coop_emulated(x, s, &u); /* under CN_DEV_EMULATED; the CUDA kernel below is its #else */
    /* the layouts first: the body and the finish share one buffer of the larger's bytes */
    ShLayout *Lb = arena_alloc(x->a, sizeof *Lb), *Lf = arena_alloc(x->a, sizeof *Lf);
    layout_of(x, s->coop.body, s->coop.threads, Lb);
    layout_of(x, s->coop.finish, s->coop.threads, Lf);
    int64_t bytes = Lb->bytes > Lf->bytes ? Lb->bytes : Lf->bytes;
    const char *shmem = emit_fmt(x, "%s_shared", u.name);
    if (bytes)
        buf_printf(x->a, &x->kernels, "static __shared__ __align__(128) unsigned char %s[%lld];\n", shmem,
                   (long long)bytes);
    const char *body = dev_body_fn(x, s, false, &u, Lb, shmem, proved ? fast : NULL);
    const char *fin = s->coop.finish ? dev_body_fn(x, s, true, &u, Lf, shmem, proved ? fast : NULL) : NULL;
    buf_printf(x->a, &x->kernels, "static const char %s_k_what[] = %s;\n", u.name, u.what);
    /* its shared memory, for its bounds (cairn_coopdev.h, CN_COOPD_BOUNDS) */
    buf_printf(x->a, &x->kernels, "#undef CN_COOPD_REGION_SMEM\n#define CN_COOPD_REGION_SMEM %lld\n", (long long)bytes);
    if (fin)
        buf_printf(x->a, &x->kernels, "CN_COOP_KERNEL_FINISH(%s_k, struct %s, %s, %s, %lld, CN_FILE, %d, %d)\n\n",
                   u.name, u.name, body, fin, (long long)s->coop.threads, s->span.line, s->span.col);
    else
        buf_printf(x->a, &x->kernels, "CN_COOP_KERNEL(%s_k, struct %s, %s, %lld)\n\n", u.name, u.name, body,
                   (long long)s->coop.threads);
    buf_printf(x->a, &x->kernels, "#endif /* CN_DEV_EMULATED */\n\n");
}

/* ------------------------------------------------------------ warp operations */

/* The runtime's prefix for a warp operation and the thread argument it
 * takes first: the host's (cairn_coop.h) take the thread's handle, the
 * device's (cairn_coopdev.h) know their lane from threadIdx. */
static const char *wpre(const Ex *x) { return x->coop_device ? "cn_coopd" : "cn_coop"; }
static const char *wth(const Ex *x) { return x->coop_device ? "" : "cn_th, "; }

/* A value's bits as a u32 or u64 (floats by their bits), and back. */
static const char *to_bits(Ex *x, Type *t, const char *v, bool *wide)
{
    *wide = type_bits(t) == 64;
    const char *u = *wide ? "uint64_t" : "uint32_t";
    if (type_is_float(t))
        return emit_fmt(x, "%s_bits_%s(%s)", wpre(x), emit_suffix(t), v);
    return emit_fmt(x, "(%s)(%s)", u, v);
}

static const char *from_bits(Ex *x, Type *t, const char *b)
{
    if (type_is_float(t))
        return emit_fmt(x, "%s_from_bits_%s(%s)", wpre(x), emit_suffix(t), b);
    return emit_fmt(x, "(%s)(%s)", emit_ctype(x, t), b);
}

const char *emit_warp_op(Ex *x, Node *e)
{
    int b = e->call.builtin;
    Node **args = (Node **)e->call.args.v;
    const char *v0 = emit_operand(x, args[0]), *p = wpre(x), *th = wth(x);
    switch (b) {
    case B_WARP_BALLOT: return emit_fmt(x, "%s_ballot(%s%s)", p, th, v0);
    case B_WARP_ANY: return emit_fmt(x, "%s_any(%s%s)", p, th, v0);
    case B_WARP_ALL: return emit_fmt(x, "%s_all(%s%s)", p, th, v0);
    default: break;
    }
    bool wide;
    const char *bits = to_bits(x, args[0]->ty, v0, &wide);
    const char *w = wide ? "u64" : "u32";
    if (b == B_WARP_MATCH)
        return emit_fmt(x, "%s_match_%s(%s%s)", p, w, th, bits);
    const char *k = emit_operand(x, args[1]);
    const char *fn = b == B_SHUFFLE ? "shfl" : b == B_SHUFFLE_XOR ? "shfl_xor" : b == B_SHUFFLE_DOWN ? "shfl_down"
                   : "shfl_up";
    return from_bits(x, args[0]->ty, emit_fmt(x, "%s_%s_%s(%s%s, %s)", p, fn, w, th, bits, k));
}

/* reduce OP warp yield v: a combine function of the lower lane's value and
 * the higher lane's, written for this use (its guard names this place). */
const char *emit_warp_reduce(Ex *x, Node *e)
{
    Type *t = e->ty;
    bool wide = type_bits(t) == 64;
    const char *u = wide ? "uint64_t" : "uint32_t", *ct = emit_ctype(x, t), *name = emit_tmp(x, "wop");
    Buf d = {0};
    /* on the device a device function, beside the kernels that call it */
    buf_printf(x->a, &d, "%s %s %s(%s cn_lo, %s cn_hi)\n{\n", x->coop_device ? "CN_DEV_LANE" : "static", u, name, u,
               u);
    if (type_is_float(t)) {
        buf_printf(x->a, &d, "    %s a = %s_from_bits_%s(cn_lo), b = %s_from_bits_%s(cn_hi);\n", ct, wpre(x),
                   emit_suffix(t), wpre(x), emit_suffix(t));
        buf_printf(x->a, &d, "    return %s_bits_%s(%s);\n}\n\n", wpre(x), emit_suffix(t),
                   emit_combine(x, e->collect.op, t, "a", "b", e->span));
    } else {
        buf_printf(x->a, &d, "    %s a = (%s)cn_lo, b = (%s)cn_hi;\n", ct, ct, ct);
        buf_printf(x->a, &d, "    return (%s)(%s);\n}\n\n", u, emit_combine(x, e->collect.op, t, "a", "b", e->span));
    }
    buf_append(x->a, x->coop_device ? &x->kernels : x->coop_emu ? x->coop_emu : &x->types, &d);
    const char *v = emit_operand(x, e->collect.value);
    bool w;
    const char *bits = to_bits(x, t, v, &w);
    return from_bits(x, t, emit_fmt(x, "%s_reduce_%s(%s%s, %s)", wpre(x), wide ? "u64" : "u32", wth(x), bits, name));
}

/* ------------------------------------------------------------ fragments */

/*
 * Tensor-core fragments in a region's body (runtime/cairn_frag.h): in the
 * host form (a host region, and an emulated device one) a fragment is a
 * cn_hfrag each thread holds whole; in a device body, nvcuda::wmma's
 * fragment for Wmma*. A layout is a function of (row, col), written once
 * per layout a fragment operation names; each load and store checks where
 * it runs that its tile holds the layout's offsets and that the fragment
 * lies inside the layout, and a WMMA one (emulated too) that its first
 * element lies on 32 bytes.
 */

static const char *layout_expr(Ex *x, const Layout *L, const char *i, const char *j)
{
    if (L->kind == LAYOUT_SWIZZLE)
        return emit_fmt(x, "cn_frag_swizzle(%s, %du, (size_t)%lldu)", layout_expr(x, L->base, i, j), L->shift,
                        (long long)((((int64_t)1 << L->bits) - 1) << L->low));
    if (L->kind == LAYOUT_SPREAD)   /* a spread places its base's elements where its base does */
        return layout_expr(x, L->base, i, j);
    return emit_fmt(x, "%s * (size_t)%lldu + %s", i, (long long)L->cols, j);
}

/* The layout named by a fragment operation's argument, as its C function. */
static const char *layout_fn(Ex *x, Node *ln, const Layout **L)
{
    const Sym *s = ln->kind == N_NAME ? ln->name.sym : NULL;
    if (!s || !s->layout)
        die("emit: a fragment operation's layout is not evaluated");
    *L = s->layout;
    const char *name = emit_fmt(x, "cn_layout_%s", s->id);
    if (nameset_add(x->a, &x->written, name))
        buf_printf(x->a, &x->types, "CN_LAYOUT_FN %s(size_t cn_i, size_t cn_j) { return %s; }\n", name,
                   layout_expr(x, s->layout, "cn_i", "cn_j"));
    return name;
}

/* TILE.offset(i, j), SHARE.row(t, v), SHARE.col(t, v) with arguments known
 * where they run: a function per layout and method, written once, whose
 * guards keep the arguments in the method's range. */
const char *emit_layout_method(Ex *x, Node *e)
{
    Node *c = e->call.callee;
    const Sym *s = c->field.base->name.sym;
    const Layout *L = s ? s->layout : NULL;
    LayoutMethod m = layout_method_of(c->field.id);
    if (!L || m == LAYOUT_M_NONE || e->call.args.n != 2)
        die("emit: a layout method the checker did not fold or type");
    x->uses_frag = true;
    const char *name = emit_fmt(x, "cn_layout_%s_%s", s->id, c->field.id);
    if (nameset_add(x->a, &x->written, name)) {
        int64_t na = m == LAYOUT_M_OFFSET ? L->rows : layout_lanes(L);
        int64_t nb = m == LAYOUT_M_OFFSET ? L->cols : layout_values(L);
        const char *body;
        if (m == LAYOUT_M_OFFSET) {
            body = layout_expr(x, L, "cn_a", "cn_b");
        } else {   /* layout_lane_elem, with the spread's numbers */
            int64_t block = L->val_rows * L->val_cols, reps = L->rows / ((int64_t)L->lane_rows * L->val_rows);
            body = m == LAYOUT_M_ROW
                       ? emit_fmt(x, "cn_a / %d * %d + cn_b %% %lld / %d + cn_b / %lld %% %lld * %lld", L->lane_cols,
                                  L->val_rows, (long long)block, L->val_cols, (long long)block, (long long)reps,
                                  (long long)L->lane_rows * L->val_rows)
                       : emit_fmt(x, "cn_a %% %d * %d + cn_b %% %lld %% %d + cn_b / %lld / %lld * %lld", L->lane_cols,
                                  L->val_cols, (long long)block, L->val_cols, (long long)block, (long long)reps,
                                  (long long)L->lane_cols * L->val_cols);
        }
        const char *an = m == LAYOUT_M_OFFSET ? "row" : "lane", *bn = m == LAYOUT_M_OFFSET ? "column" : "value";
        buf_printf(x->a, &x->types,
                   "CN_LAYOUT_FN %s(size_t cn_a, size_t cn_b, const char *cn_f, int cn_l, int cn_c)\n{\n"
                   "    if (CN_UNLIKELY(cn_a >= %lld))\n"
                   "        CN_GUARD(cn_f, cn_l, cn_c, \"%s.%s: the %s, %%llu, is outside 0 .. %lld\", (unsigned long long)cn_a);\n"
                   "    if (CN_UNLIKELY(cn_b >= %lld))\n"
                   "        CN_GUARD(cn_f, cn_l, cn_c, \"%s.%s: the %s, %%llu, is outside 0 .. %lld\", (unsigned long long)cn_b);\n"
                   "    return %s;\n}\n",
                   name, (long long)na, s->id, c->field.id, an, (long long)(na - 1), (long long)nb, s->id, c->field.id,
                   bn, (long long)(nb - 1), body);
    }
    const char *a = emit_operand(x, e->call.args.v[0]), *b = emit_operand(x, e->call.args.v[1]);
    return emit_fmt(x, "%s((size_t)(%s), (size_t)(%s), %s)", name, a, b, emit_at(x, e->span));
}

static const char *wmma_elem(const Type *t)
{
    return t->kind == TY_BF16 ? "__nv_bfloat16" : "__half";
}

const char *emit_frag_ctype(Ex *x, const Type *t)
{
    x->uses_frag = true;
    if (!x->coop_device)
        return "cn_hfrag";
    switch ((FragKind)t->frag) {
    case FRAG_WMMA_A: return emit_fmt(x, "CN_WMMA_A(%d, %d, %d, %s)", t->m, t->n, t->k, wmma_elem(t->elem));
    case FRAG_WMMA_B: return emit_fmt(x, "CN_WMMA_B(%d, %d, %d, %s)", t->m, t->n, t->k, wmma_elem(t->elem));
    case FRAG_WMMA_ACC: return emit_fmt(x, "CN_WMMA_ACC(%d, %d, %d)", t->m, t->n, t->k);
    case FRAG_MMA_A: return "cn_dmma_a";
    case FRAG_MMA_B: return "cn_dmma_b";
    case FRAG_MMA_ACC: return "cn_dmma_acc";
    default: die("emit: %s has no device form", frag_name((FragKind)t->frag));
    }
}

static bool is_wmma(const Type *t)
{
    return frag_family((FragKind)t->frag) == FAM_WMMA;
}

/* A value into a local of its own: a fragment operand the runtime takes by
 * address, a view whose .p and .n both serve. */
static const char *local(Ex *x, Type *t, Node *e, const char *stem)
{
    const char *v = emit_tmp(x, stem);
    emit_line(x, "const %s %s = %s;", emit_ctype(x, t), v, emit_operand(x, e));
    return v;
}

/* mma_load and mma_store's common part: the tile and fragment (i, j) as
 * locals, and the guards; rows and cols, the fragment's tile. */
typedef struct {
    const char *tile, *fn, *i, *j;   /* C locals, and the layout's function */
    int rows, cols;
    const Layout *L;
} FragAt;

/* Whether every fragment of a WMMA load or store lies on 32 bytes by
 * construction, so that cn_frag_aligned's guard (a branch before each
 * load, which kept nvcc from issuing the next loads early) can go: the
 * tile is one of the block's shared arrays or pipelines (each on 128 bytes,
 * the stages of a pipeline a multiple of 32 bytes apart) and its layout
 * rows(R, C), so fragment (i, j) starts esz * (i * rows * C + j * cols)
 * bytes in, a multiple of 32 when both steps are. */
static bool frag_aligned_static(Ex *x, const Node *tile, const Layout *L, int rows, int cols)
{
    const ShLayout *S = x->coop_layout;
    if (!S || !L || L->kind != LAYOUT_ROWS || tile->kind != N_NAME || !tile->name.sym)
        return false;
    for (int i = 0; i < S->syms.n; i++) {
        const Sym *y = S->syms.v[i];
        int64_t n = 0, esz;
        if (y != tile->name.sym || !sym_const(x->a, y->ty->extent, &n))
            continue;
        esz = elem_bytes(y->ty->elem);
        return (intptr_t)S->offs.v[i] % 32 == 0 && n * esz % 32 == 0 && esz * rows * L->cols % 32 == 0 &&
               esz * cols % 32 == 0;
    }
    return false;
}

static FragAt frag_place(Ex *x, Node *e, const Type *f)
{
    Node **a = (Node **)e->call.args.v;
    const char *op = builtin_name((Builtin)e->call.builtin), *at = emit_at(x, e->span);
    const char *name = emit_str_lit(x, expand_expr_short(x->a, a[0], 40));
    FragAt p;
    p.tile = local(x, a[0]->ty, a[0], "ft");
    p.fn = layout_fn(x, a[1], &p.L);
    p.i = local(x, type_prim(TY_USIZE), a[2], "fi");
    p.j = local(x, type_prim(TY_USIZE), a[3], "fj");
    frag_tile(f, &p.rows, &p.cols);
    emit_line(x, "cn_frag_where(\"%s\", %s, %s.n, (size_t)%lldu, %s, %lld, %s, %lld, %s);", op, name, p.tile,
              (long long)layout_cosize(p.L), p.i, (long long)(p.L->rows / p.rows), p.j, (long long)(p.L->cols / p.cols),
              at);
    if (is_wmma(f) && (x->coop_device || x->coop_emu) && frag_aligned_static(x, a[0], p.L, p.rows, p.cols))
        emit_line(x, "/* on 32 bytes by the tile's place and layout: no guard */");
    else if (is_wmma(f) && (x->coop_device || x->coop_emu))
        emit_line(x, "cn_frag_aligned(\"%s\", %s, %s.p + %s(%s * %d, %s * %d), %s);", op, name, p.tile, p.fn, p.i,
                  p.rows, p.j, p.cols, at);
    return p;
}

/* The fragment's first element, and the arguments naming its place. */
static const char *first_elem(Ex *x, const FragAt *p)
{
    return emit_fmt(x, "%s.p + %s(%s * %d, %s * %d)", p->tile, p->fn, p->i, p->rows, p->j, p->cols);
}

static const char *place_args(Ex *x, const FragAt *p)
{
    return emit_fmt(x, "%s.p, %s, %s * %d, %s * %d", p->tile, p->fn, p->i, p->rows, p->j, p->cols);
}

static const char *frag_load(Ex *x, Node *e)
{
    const Type *f = e->ty;
    FragAt p = frag_place(x, e, f);
    FragRole r = frag_role((FragKind)f->frag);
    if (!x->coop_device)
        return emit_fmt(x, "cn_hfrag_load_%s(%s, %d, %d)", emit_suffix(f->elem), place_args(x, &p), p.rows, p.cols);
    if (!is_wmma(f) && r == ROLE_ACC)
        return emit_fmt(x, "cn_dmma_load_acc(%s)", place_args(x, &p));
    if (!is_wmma(f))
        return emit_fmt(x, "cn_dmma_load_%s(%s, %s)", r == ROLE_A ? "a" : "b", place_args(x, &p),
                        ((Node *)e->call.args.v[0])->ty->shared ? "true" : "false");
    if (r == ROLE_ACC)
        return emit_fmt(x, "cn_wmma_load_acc<%s>(%s, %lldu)", emit_ctype(x, (Type *)f), first_elem(x, &p),
                        (long long)p.L->cols);
    return emit_fmt(x, "cn_wmma_load<%s, %s>(%s, %lldu)", emit_ctype(x, (Type *)f), wmma_elem(f->elem),
                    first_elem(x, &p), (long long)p.L->cols);
}

static const char *frag_store(Ex *x, Node *e)
{
    Node *accn = e->call.args.v[4];
    const Type *f = accn->ty;
    const char *acc = local(x, accn->ty, accn, "fa");
    FragAt p = frag_place(x, e, f);
    if (x->coop_device && !is_wmma(f))
        return emit_fmt(x, "cn_dmma_store(%s, %s)", place_args(x, &p), acc);
    if (x->coop_device)
        return emit_fmt(x, "cn_wmma_store(%s, %s, %lldu)", first_elem(x, &p), acc, (long long)p.L->cols);
    if (is_wmma(f))
        return emit_fmt(x, "cn_hfrag_store_wmma(%s, %d, %d, &%s, cn_thread)", place_args(x, &p), p.rows, p.cols, acc);
    return emit_fmt(x, "cn_hfrag_store_mma(%s, &%s, cn_thread)", place_args(x, &p), acc);
}

static const char *frag_mma(Ex *x, Node *e)
{
    Node **a = (Node **)e->call.args.v;
    const char *c = local(x, a[0]->ty, a[0], "fc"), *p = local(x, a[1]->ty, a[1], "fa"),
               *q = local(x, a[2]->ty, a[2], "fb");
    const Type *t = e->ty;
    if (x->coop_device && !is_wmma(t))
        return emit_fmt(x, "cn_dmma_%s(%s, %s, %s)", emit_suffix(a[1]->ty->elem), c, p, q);
    if (x->coop_device)
        return emit_fmt(x, "cn_wmma_mma(%s, %s, %s)", c, p, q);
    return emit_fmt(x, "cn_hfrag_mma(&%s, &%s, &%s, %d, %d, %d)", c, p, q, t->m, t->n, t->k);
}

const char *emit_frag_op(Ex *x, Node *e)
{
    x->uses_frag = true;
    Node **a = (Node **)e->call.args.v;
    const Type *t = e->ty;
    const char *at = emit_at(x, e->span);
    switch (e->call.builtin) {
    case B_MMA_FILL: {
        const char *v = emit_operand(x, a[0]);
        int rows, cols;
        frag_tile(t, &rows, &cols);
        if (x->coop_device && !is_wmma(t))
            return emit_fmt(x, "cn_dmma_fill(%s)", v);
        if (x->coop_device)
            return emit_fmt(x, "cn_wmma_fill<%s>(%s)", emit_ctype(x, (Type *)t), v);
        return emit_fmt(x, "cn_hfrag_fill(%d, %s)", rows * cols, v);
    }
    case B_MMA_LOAD: return frag_load(x, e);
    case B_MMA_STORE: return frag_store(x, e);
    case B_MMA_UNORDERED: return frag_mma(x, e);
    case B_MMA_GET: {
        const char *acc = local(x, a[0]->ty, a[0], "fa"), *v = emit_operand(x, a[1]);
        if (x->coop_device)
            return emit_fmt(x, "cn_dmma_get(%s, %s, %s)", acc, v, at);
        return emit_fmt(x, "cn_hfrag_get(&%s, cn_thread, %s, %s)", acc, v, at);
    }
    case B_MMA_SET: {
        const char *acc = emit_operand(x, a[0]), *v = emit_operand(x, a[1]), *y = emit_operand(x, a[2]);
        if (x->coop_device)
            return emit_fmt(x, "cn_dmma_set(%s, %s, %s, %s)", acc, v, y, at);
        return emit_fmt(x, "cn_hfrag_set(%s, cn_thread, %s, %s, %s)", acc, v, y, at);
    }
    default: die("emit: builtin %d is not a fragment operation", e->call.builtin);
    }
}
