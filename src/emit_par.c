/*
 * emit_par.c: parallel regions, pooled collectors and atomics as C over the
 * host lane pool (runtime/cairn_pool.h).
 *
 * Requires: a program check_program accepted, so every region's lanes are
 * independent (check_par.c): no lane writes an element another lane reads
 * or writes, assigns an outside scalar, does I/O or starts a region.
 * Guarantees: the result of every region and collector is the one the
 * program's written order gives (for floats: the exact sum of reduce +
 * parallel, rounded once), whatever the number of workers.
 *
 * A region `parallel i in n { body }` becomes
 *
 *     struct cn_regionK { <what the body reads from outside, by value> };
 *     static void cn_regionK(void *cn_vc, size_t cn_lo, size_t cn_hi)
 *     { <copy the fields to locals of the same C names>;
 *       for (size_t j = cn_lo; j < cn_hi; j++) { const size_t i = j; body } }
 *
 * and at its place: the extent, a struct filled from the function's
 * locals, and cn_pool_for(n, cn_regionK, &ctx). Views are copied (a
 * pointer and a length), scalars by value; a lane assigns nothing outside,
 * so no copy needs to go back.
 *
 * A collector `reduce OP parallel i in n yield e` gives each worker of
 * cn_pool_reduce its own accumulator, folds its block in index order, and
 * combines the partials in worker order:
 *   checked integer +   a 128-bit total per block (exact), one guard at the
 *                       end: it fails exactly when the total does not fit;
 *   checked integer *   zero, sign and a saturated magnitude (cn_pmul): the
 *                       guard fails exactly when the exact product does not fit;
 *   float +             the exact sum (cairn_sum.h), one state per block,
 *                       merged, rounded once;
 *   min, max, and, or, xor, & | ^, add_wrap, mul_wrap
 *                       associative and commutative as computed (IEEE
 *                       minimum/maximum for floats), so any split gives
 *                       the same bits.
 * scan runs two passes (each block stores its terms and its total; then
 * each block rewrites its part as prefixes from the totals before it), and
 * compact two (each block counts what it keeps; then writes from the count
 * before it), so both equal their `for` forms.
 *
 * Plans change the loop over a block's lanes, never what a lane computes:
 * `vector K` runs K lanes a step (strip-mined, with a remainder loop), so the
 * C compiler can vectorize; `unroll U` writes the step U times; `fuse` runs
 * consecutive fusable regions as one pass, one dispatch; `staged` folds
 * fixed tiles of 1024 indices into tile partials, then the tiles in order.
 */
#include "chain.h"
#include "emit.h"
#include "par.h"

#include <string.h>

enum { STAGE_TILE = 1024 };

/* -------------------------------------------------------- captures */

static bool has(const Vec *v, const void *p)
{
    for (int i = 0; i < v->n; i++)
        if (v->v[i] == p)
            return true;
    return false;
}

typedef struct {
    Arena *a;
    Caps *c;
} CapWalk;

static bool cap_visit(Node *n, void *p)
{
    CapWalk *w = p;
    Sym *s = NULL;
    switch (n->kind) {
    case N_LET: case N_CONST: s = n->let.sym; break;
    case N_FOR: s = n->loop.sym; break;
    case N_COLLECT: s = n->collect.sym; break;
    case N_SHARED: case N_PIPELINE: s = n->buffer.sym; break;
    case N_NAME:
        if (n->name.sym && (n->name.sym->kind == SYM_LOCAL || n->name.sym->kind == SYM_PARAM) &&
            ptrset_add(w->a, &w->c->used_set, n->name.sym))
            vec_push(w->a, &w->c->used, n->name.sym);
        return false;
    default: break;
    }
    if (s && ptrset_add(w->a, &w->c->declared_set, s))
        vec_push(w->a, &w->c->declared, s);
    return true;
}

void caps_add(Ex *x, Caps *c, Node *n)
{
    CapWalk w = {x->a, c};
    par_walk(n, cap_visit, &w);
}

/* The place of a symbol in the function being written: a closure reads its
 * captures through its environment; a rw<T> parameter is its pointer. */
static const char *raw_place(Ex *x, Sym *s)
{
    const Vec *c = x->fn->captures;
    if (c && has(c, s))
        return emit_fmt(x, "cn_env->%s", s->cname);
    return s->cname;
}

/* -------------------------------------------------------- the context */

void field(Ex *x, Ctxt *k, const char *ctype, const char *name, const char *value)
{
    vec_push(x->a, &k->ctypes, (void *)ctype);
    vec_push(x->a, &k->fields, (void *)name);
    vec_push(x->a, &k->values, (void *)value);
}

/* The captures as fields (the lane's own index is declared by the loop). */
void capture_fields(Ex *x, Ctxt *k, Caps *c, Sym *skip0, Sym *skip1)
{
    for (int i = 0; i < c->used.n; i++) {
        Sym *s = c->used.v[i];
        if (s == skip0 || s == skip1 || ptrset_has(&c->declared_set, s) || !s->ty || !s->cname)
            continue;
        field(x, k, emit_ctype(x, s->ty), s->cname, raw_place(x, s));
    }
}

/* The struct, after every field's type has been written to the types. */
void ctx_struct(Ex *x, Ctxt *k)
{
    buf_printf(x->a, &x->types, "struct %s {\n", k->name);
    for (int i = 0; i < k->fields.n; i++)
        buf_printf(x->a, &x->types, "    %s %s;\n", (const char *)k->ctypes.v[i], (const char *)k->fields.v[i]);
    if (!k->fields.n)
        buf_printf(x->a, &x->types, "    char cn_unused;\n");
    buf_printf(x->a, &x->types, "};\n\n");
}

/* At the call site: the struct, filled. */
const char *ctx_fill(Ex *x, Ctxt *k)
{
    const char *v = emit_tmp(x, "rc");
    emit_line(x, "struct %s %s;", k->name, v);
    emit_line(x, "memset(&%s, 0, sizeof %s);", v, v);
    for (int i = 0; i < k->fields.n; i++)
        emit_line(x, "%s.%s = %s;", v, (const char *)k->fields.v[i], (const char *)k->values.v[i]);
    return v;
}

/* In the lane function: the fields as locals of their C names. */
void ctx_unpack(Ex *x, Ctxt *k)
{
    emit_line(x, "struct %s *cn_c = (struct %s *)cn_vc;", k->name, k->name);
    for (int i = 0; i < k->fields.n; i++)
        emit_line(x, "%s %s = cn_c->%s;", (const char *)k->ctypes.v[i], (const char *)k->fields.v[i],
                  (const char *)k->fields.v[i]);
    emit_line(x, "(void)cn_c;");
}

/* Statements from here on go to L's own output, until the caller restores
 * L->saved. */
void lane_fn_open(Ex *x, LaneFn *L)
{
    memset(L, 0, sizeof *L);
    L->f.fn = x->fn ? x->fn->fn : NULL;
    L->f.ret = type_prim(TY_VOID);
    L->f.out = &L->out;
    L->f.indent = 1;
    L->saved = x->fn;
    x->fn = &L->f;
}

/* A lane function: its own output and scope, appended to the definitions. */
void lane_fn_begin(Ex *x, LaneFn *L, const char *header)
{
    lane_fn_open(x, L);
    buf_printf(x->a, &x->protos, "%s;\n", header);
    buf_printf(x->a, &L->out, "%s\n{\n", header);
}

void lane_fn_end(Ex *x, LaneFn *L)
{
    buf_printf(x->a, &L->out, "}\n\n");
    x->fn = L->saved;
    emit_defs_add(x, &L->out);
}

/* ------------------------------------------------------ the lane loop */

typedef void (*LaneStep)(Ex *x, const char *iv, void *ctx);

/* Lanes lo .. hi - 1, each as `const size_t IV = j; step`, strip-mined by
 * the plan (vector K lanes a step, unrolled U times) with a remainder loop. */
static void lane_loop(Ex *x, const char *iv, const char *lo, const char *hi, PlanInfo p, LaneStep step, void *c)
{
    int K = p.vector > 1 ? p.vector : 1, U = p.unroll > 1 ? p.unroll : 1;
    const char *j = emit_tmp(x, "j");
    if (K * U > 1) {
        emit_line(x, "size_t %s = %s;", j, lo);
        emit_line(x, "for (; %s - %s >= %d; %s += %d) {", hi, j, K * U, j, K * U);
        x->fn->indent++;
        for (int u = 0; u < U; u++) {
            const char *k = emit_tmp(x, "k");
            if (K > 1) {
                emit_line(x, "for (size_t %s = 0; %s < %d; %s++) {", k, k, K, k);
                x->fn->indent++;
                emit_line(x, "const size_t %s = %s + %d + %s;", iv, j, u * K, k);
            } else {
                emit_line(x, "{");
                x->fn->indent++;
                emit_line(x, "const size_t %s = %s + %d;", iv, j, u);
            }
            step(x, iv, c);
            x->fn->indent--;
            emit_line(x, "}");
        }
        x->fn->indent--;
        emit_line(x, "}");
        emit_line(x, "for (; %s < %s; %s++) {", j, hi, j);
    } else {
        emit_line(x, "for (size_t %s = %s; %s < %s; %s++) {", j, lo, j, hi, j);
    }
    x->fn->indent++;
    emit_line(x, "const size_t %s = %s;", iv, j);
    step(x, iv, c);
    x->fn->indent--;
    emit_line(x, "}");
}

static PlanInfo plan_here(Ex *x)
{
    PlanInfo none = {0};
    Node *fn = x->fn ? x->fn->fn : NULL;
    if (!fn || fn->kind != N_FN || !fn->fn.id)
        return none;
    return par_plan_for(x->e->check->program, fn->fn.id);
}

const char *index_name(Ex *x, Sym *s)
{
    return s && s->cname ? s->cname : emit_tmp(x, "i");
}

/* ------------------------------------------------------------ regions */

typedef struct {
    Node **regions;
    int n;
    const char **ivs;
} RegionSteps;

static void region_step(Ex *x, const char *iv, void *c)
{
    RegionSteps *r = c;
    for (int k = 0; k < r->n; k++) {
        if (k > 0) {
            emit_line(x, "{");
            x->fn->indent++;
            emit_line(x, "const size_t %s = %s;", r->ivs[k], iv);
        }
        emit_line(x, "{");
        emit_block(x, r->regions[k]->loop.body, true);
        emit_line(x, "}");
        if (k > 0) {
            x->fn->indent--;
            emit_line(x, "}");
        }
    }
}

/* How many statements from stmts[i] on run as one fused region (at least
 * 2), or 0: the analysis pass decided (analyze.c). */
int emit_par_fused(Ex *x, const Vec *stmts, int i)
{
    Node *s = stmts->v[i];
    if (!s || s->kind != N_PARALLEL)
        return 0;
    return analysis_of(x->e->check->analysis, s)->fused;
}

/* Hoisted guards (analyze.c decided which): hi past the view's end fails as
 * the first lane past it would. */
static void emit_guards(Ex *x, const Vec *guards, const char *lo, const char *hi)
{
    for (int i = 0; i < guards->n; i++) {
        Node *e = guards->v[i];
        const char *view = emit_expr(x, e->index.base);
        emit_line(x, "if (%s > %s.n)", hi, view);
        emit_line(x, "    (void)cn_idx_u(%s > %s.n ? %s : %s.n, %s.n, %s, %s);", lo, view, lo, view, view,
                  emit_str_lit(x, e->index.base->name.id), emit_at(x, e->span));
    }
}

/* lo and hi: the C names of the lanes' bounds where the guard stands (the
 * block's, in a lane function; 0 and the extent, before a device launch). */
void emit_hoist_guards(Ex *x, Node **rs, int n, const char *lo, const char *hi)
{
    const RegionPlan *p = analysis_of(x->e->check->analysis, rs[0]);
    emit_guards(x, n > 1 ? &p->group_guards : &p->guards, lo, hi);
}

/* The same for a device collector's terms, with 0 and its extent. */
void emit_hoist_collect_guards(Ex *x, Node *e, const char *lo, const char *hi)
{
    emit_guards(x, &analysis_of(x->e->check->analysis, e)->guards, lo, hi);
}

/* The context struct of n fused regions: what their bodies read from
 * outside, each lane's index excepted; declared, not filled. */
Ctxt region_ctx(Ex *x, Node **rs, int n, const char *prefix)
{
    Caps caps = {0};
    for (int k = 0; k < n; k++) {
        caps_add(x, &caps, rs[k]->loop.body);
        if (rs[k]->loop.sym)
            if (ptrset_add(x->a, &caps.declared_set, rs[k]->loop.sym))
                vec_push(x->a, &caps.declared, rs[k]->loop.sym);   /* each lane's index */
    }
    Ctxt u = {0};
    u.name = emit_tmp(x, prefix);
    capture_fields(x, &u, &caps, NULL, NULL);
    ctx_struct(x, &u);
    return u;
}

void emit_par_regions(Ex *x, Node **rs, int n)
{
    if (rs[0]->loop.device)
        return emit_dev_regions(x, rs, n);
    x->uses_par = true;
    Node *first = rs[0];
    PlanInfo plan = plan_here(x);
    Ctxt u = region_ctx(x, rs, n, "region");
    const char *end = emit_tmp(x, "end");
    emit_line(x, "{");
    x->fn->indent++;
    emit_line(x, "const size_t %s = %s;", end, emit_expr(x, first->loop.hi));
    const char *v = ctx_fill(x, &u);
    emit_line(x, "cn_pool_for(%s, %s, &%s);", end, u.name, v);
    x->fn->indent--;
    emit_line(x, "}");

    LaneFn L;
    lane_fn_begin(x, &L, emit_fmt(x, "static void %s(void *cn_vc, size_t cn_lo, size_t cn_hi)", u.name));
    ctx_unpack(x, &u);
    emit_hoist_guards(x, rs, n, "cn_lo", "cn_hi");
    RegionSteps st = {rs, n, arena_alloc(x->a, sizeof(char *) * (size_t)n)};
    for (int r = 0; r < n; r++)
        st.ivs[r] = index_name(x, rs[r]->loop.sym);
    lane_loop(x, st.ivs[0], "cn_lo", "cn_hi", plan, region_step, &st);
    lane_fn_end(x, &L);
}

/* ------------------------------------------------------------ collectors */



static const char *plain_identity(Ex *x, Coll *c)
{
    const char *op = c->op, *ct = emit_ctype(x, c->vt);
    bool fl = type_is_float(c->vt), f32 = c->vt->kind == TY_F32;
    if (!strcmp(op, "and"))
        return "true";
    if (!strcmp(op, "or"))
        return "false";
    if (!strcmp(op, "min") || !strcmp(op, "max")) {
        bool mx = !strcmp(op, "max");
        if (fl)
            return mx ? (f32 ? "(-HUGE_VALF)" : "(-HUGE_VAL)") : (f32 ? "HUGE_VALF" : "HUGE_VAL");
        return emit_int_limit(c->vt, !mx);
    }
    if (!strcmp(op, "mul_wrap") || !strcmp(op, "*"))
        return emit_fmt(x, "((%s)1)", ct);
    if (!strcmp(op, "&"))
        return c->vt->kind == TY_BOOL ? "true" : emit_fmt(x, "((%s)~(%s)0)", ct, ct);
    return c->vt->kind == TY_BOOL ? "false" : emit_fmt(x, "((%s)0)", ct);
}

static const char *plain_combine(Ex *x, Coll *c, const char *a, const char *b)
{
    const char *op = c->op;
    if (!strcmp(op, "min") || !strcmp(op, "max") || !strcmp(op, "add_wrap") || !strcmp(op, "mul_wrap"))
        return emit_fmt(x, "cn_%s_%s(%s, %s)", op, c->suf, a, b);
    if (!strcmp(op, "and"))
        return emit_fmt(x, "(%s && %s)", a, b);
    if (!strcmp(op, "or"))
        return emit_fmt(x, "(%s || %s)", a, b);
    if (!strcmp(op, "xor") && c->vt->kind == TY_BOOL)
        return emit_fmt(x, "(%s != %s)", a, b);
    const char *o = !strcmp(op, "xor") ? "^" : op;
    return emit_fmt(x, "((%s)(%s %s %s))", emit_ctype(x, c->vt), a, o, b);
}

void coll_init(Ex *x, Coll *c, Node *e)
{
    memset(c, 0, sizeof *c);
    c->e = e;
    c->vt = e->collect.value->ty;
    c->op = e->collect.op ? e->collect.op : "+";
    c->suf = emit_suffix(c->vt);
    c->at = emit_at(x, e->span);
    bool in = type_is_int(c->vt);
    if (in && !strcmp(c->op, "+"))
        c->ak = ACC_SUM128;
    else if (in && !strcmp(c->op, "*"))
        c->ak = ACC_PMUL;
    else if (type_is_float(c->vt) && !strcmp(c->op, "+"))
        c->ak = ACC_EXACT;
    else
        c->ak = ACC_PLAIN;
    switch (c->ak) {
    case ACC_SUM128: c->acc_t = "cn_i128"; break;
    case ACC_PMUL: c->acc_t = "cn_pmul"; break;
    case ACC_EXACT: c->acc_t = c->vt->kind == TY_F32 ? "cn_sum32" : "cn_sum64"; break;
    default: c->acc_t = emit_ctype(x, c->vt);
    }
    const char *k = e->collect.kind == COLLECT_REDUCE ? "the total" : "a prefix";
    c->what = emit_str_lit(x, emit_fmt(x, "%s of %s %s %s", k,
                                           e->collect.kind == COLLECT_SCAN ? "scan" : "reduce", c->op,
                                           e->collect.mode == MODE_FOR ? "for" : "parallel"));
}

/* `ACC a = identity;` (declaration statement). */
void acc_decl(Ex *x, Coll *c, const char *a)
{
    switch (c->ak) {
    case ACC_SUM128: emit_line(x, "cn_i128 %s = 0;", a); break;
    case ACC_WRAP: emit_line(x, "%s %s = 0;", c->acc_t, a); break;
    case ACC_PMUL: emit_line(x, "cn_pmul %s = cn_pmul_one();", a); break;
    case ACC_EXACT:
        emit_line(x, "%s %s;", c->acc_t, a);
        emit_line(x, "%s_init(&%s);", c->acc_t, a);
        break;
    default: emit_line(x, "%s %s = %s;", c->acc_t, a, plain_identity(x, c));
    }
}

/* a = a OP y, for a term y of the value type. */
void acc_fold(Ex *x, Coll *c, const char *a, const char *y)
{
    switch (c->ak) {
    case ACC_SUM128: emit_line(x, "%s += (cn_i128)%s;", a, y); break;
    case ACC_WRAP: emit_line(x, "%s = cn_add_wrap_%s(%s, %s);", a, c->suf, a, y); break;
    case ACC_PMUL:
        if (type_is_signed(c->vt))
            emit_line(x, "cn_pmul_add_s(&%s, (long long)%s);", a, y);
        else
            emit_line(x, "cn_pmul_add_u(&%s, (unsigned long long)%s);", a, y);
        break;
    case ACC_EXACT: emit_line(x, "%s_add(&%s, %s);", c->acc_t, a, y); break;
    default: emit_line(x, "%s = %s;", a, plain_combine(x, c, a, y));
    }
}

/* a = a OP b, for two partials (b an lvalue). */
void acc_merge(Ex *x, Coll *c, const char *a, const char *b)
{
    switch (c->ak) {
    case ACC_SUM128: emit_line(x, "%s += %s;", a, b); break;
    case ACC_WRAP: emit_line(x, "%s = cn_add_wrap_%s(%s, %s);", a, c->suf, a, b); break;
    case ACC_PMUL: emit_line(x, "cn_pmul_merge(&%s, %s);", a, b); break;
    case ACC_EXACT: emit_line(x, "%s_merge(&%s, &%s);", c->acc_t, a, b); break;
    default: emit_line(x, "%s = %s;", a, plain_combine(x, c, a, b));
    }
}

/* The value of a partial, as the value type (guarded where it may not fit;
 * ACC_WRAP's are checked where each prefix is stored: emit_dev.c). */
const char *acc_value(Ex *x, Coll *c, const char *a)
{
    switch (c->ak) {
    case ACC_SUM128:
        return emit_fmt(x, "cn_par_fit_%s(%s, %s, %s)", c->suf, a, c->what, c->at);
    case ACC_PMUL:
        return emit_fmt(x, "cn_par_fit_%s(cn_pmul_value(%s), %s, %s)", c->suf, a, c->what, c->at);
    case ACC_EXACT: return emit_fmt(x, "%s_round(&%s)", c->acc_t, a);
    default: return a;
    }
}

/* One lane of a reduce (or of a scan's first pass): the term, folded. */
static void fold_step(Ex *x, const char *iv, void *p)
{
    Coll *c = p;
    const char *y = emit_tmp(x, "y");
    emit_line(x, "const %s %s = %s;", emit_ctype(x, c->vt), y, emit_expr(x, c->e->collect.value));
    if (c->dest)
        emit_line(x, "%s.p[%s] = %s;", c->dest, iv, y);
    acc_fold(x, c, c->staged ? "cn_tile" : "cn_acc", y);
}

/* A scan's second pass: each prefix, from the partial before the block. */
static void prefix_step(Ex *x, const char *iv, void *p)
{
    Coll *c = p;
    acc_fold(x, c, "cn_acc", emit_fmt(x, "%s.p[%s]", c->dest, iv));
    emit_line(x, "%s.p[%s] = %s;", c->dest, iv, acc_value(x, c, "cn_acc"));
}

/* `reduce + parallel i in n yield x[i]` over floats: the terms of a block
 * are x[lo..hi] as they lie in memory, so the block hands them to the exact
 * sum's array routine at once instead of one term at a time (which spent
 * most of the time buffering terms: evidence/2026-11-29-host-parallel-bench.md).
 * The result is the same: the sum is exact whatever the grouping. */
static bool exact_over_elements(Coll *c)
{
    Node *v = c->e->collect.value;
    return !c->staged && c->ak == ACC_EXACT && c->e->collect.kind == COLLECT_REDUCE && v &&
           v->kind == N_INDEX && v->index.base && v->index.base->kind == N_NAME &&
           v->index.base->ty && v->index.base->ty->kind == TY_VIEW && v->index.index &&
           v->index.index->kind == N_NAME && v->index.index->name.sym == c->e->collect.sym;
}

/* The guard of the lanes' indices, once for the block: the first index
 * past the view's end is the one a lane would have reported. */
static void exact_elements_block(Ex *x, Coll *c)
{
    Node *v = c->e->collect.value;
    const char *view = emit_expr(x, v->index.base);
    emit_line(x, "if (cn_hi > %s.n)", view);
    emit_line(x, "    (void)cn_idx_u(cn_lo > %s.n ? cn_lo : %s.n, %s.n, %s, %s);", view, view, view,
              emit_str_lit(x, v->index.base->name.id), emit_at(x, v->span));
    emit_line(x, "%s_add_array(&cn_acc, %s.p + cn_lo, cn_hi - cn_lo);", c->acc_t, view);
}

/* The block function: (ctx, worker, lo, hi); body emits the lanes. */
static void block_fn(Ex *x, Ctxt *k, Coll *c, PlanInfo plan, Sym *is, LaneStep step, const char *pre, const char *post)
{
    LaneFn L;
    lane_fn_begin(x, &L, emit_fmt(x, "static void %s(void *cn_vc, unsigned cn_w, size_t cn_lo, size_t cn_hi)",
                                      k->name));
    ctx_unpack(x, k);
    if (pre)
        emit_line(x, "%s", pre);
    const char *iv = index_name(x, is);
    if (exact_over_elements(c)) {
        (void)iv;
        exact_elements_block(x, c);
    } else if (c->staged) {
        emit_line(x, "for (size_t cn_t = cn_lo; cn_t < cn_hi; cn_t += %d) {", STAGE_TILE);
        x->fn->indent++;
        emit_line(x, "const size_t cn_te = cn_hi - cn_t < %d ? cn_hi : cn_t + %d;", STAGE_TILE, STAGE_TILE);
        acc_decl(x, c, "cn_tile");
        lane_loop(x, iv, "cn_t", "cn_te", plan, step, c);
        acc_merge(x, c, "cn_acc", "cn_tile");
        x->fn->indent--;
        emit_line(x, "}");
    } else {
        lane_loop(x, iv, "cn_lo", "cn_hi", plan, step, c);
    }
    if (post)
        emit_line(x, "%s", post);
    lane_fn_end(x, &L);
}

Ctxt coll_ctx(Ex *x, Node *e, const char *prefix)
{
    Caps caps = {0};
    caps_add(x, &caps, e->collect.keep);
    caps_add(x, &caps, e->collect.value);
    Ctxt k = {0};
    k.name = emit_tmp(x, prefix);
    capture_fields(x, &k, &caps, e->collect.sym, NULL);
    return k;
}

/* Partials of W workers, combined in worker order into `tot`. */
static void combine_parts(Ex *x, Coll *c, const char *parts, const char *W, const char *tot)
{
    acc_decl(x, c, tot);
    emit_line(x, "for (unsigned cn_w = 0; cn_w < %s; cn_w++) {", W);
    x->fn->indent++;
    acc_merge(x, c, tot, emit_fmt(x, "%s[cn_w]", parts));
    x->fn->indent--;
    emit_line(x, "}");
}

/* The block functions need `ACC cn_acc` declared before the lanes and
 * stored after: block_fn's pre and post lines carry them. */
static void reduce_block_lines(Ex *x, Coll *c, const char **pre, const char **post)
{
    Buf b = {0};
    EFn f = {0};
    EFn *saved = x->fn;
    f.out = &b;
    x->fn = &f;
    acc_decl(x, c, "cn_acc");
    x->fn = saved;
    *pre = b.s;
    *post = "cn_c->cn_part[cn_w] = cn_acc;";
}

const char *emit_dest_view(Ex *x, Node *e, Ctxt *k, const char **name)
{
    Type *dt = e->collect.dest->ty;
    const char *d = emit_tmp(x, "dest");
    emit_line(x, "const cn_view_%s %s = %s;", emit_suffix(dt->elem), d, emit_expr(x, e->collect.dest));
    field(x, k, emit_fmt(x, "cn_view_%s", emit_suffix(dt->elem)), "cn_dest", d);
    *name = emit_src_lit(x, e->collect.dest);
    return d;
}

/* scan OP DEST parallel: pass 1 stores the terms and each block's total;
 * pass 2 turns each block's part into prefixes, from the blocks before. */
static const char *emit_par_scan(Ex *x, Node *e)
{
    Coll c;
    coll_init(x, &c, e);
    PlanInfo plan = plan_here(x);
    Ctxt k1 = coll_ctx(x, e, "scan");
    const char *dname, *end = emit_tmp(x, "end"), *W = emit_tmp(x, "W"), *parts = emit_tmp(x, "part");
    emit_line(x, "const size_t %s = %s;", end, emit_expr(x, e->collect.extent));
    const char *d = emit_dest_view(x, e, &k1, &dname);
    field(x, &k1, emit_fmt(x, "%s *", c.acc_t), "cn_part", parts);
    ctx_struct(x, &k1);
    Ctxt k2 = {0};
    k2.name = emit_tmp(x, "scan");
    field(x, &k2, emit_fmt(x, "cn_view_%s", c.suf), "cn_dest", d);
    field(x, &k2, emit_fmt(x, "%s *", c.acc_t), "cn_part", parts);
    ctx_struct(x, &k2);
    emit_line(x, "if (%s > %s.n)", end, d);
    emit_line(x, "    (void)cn_idx_u(%s.n, %s.n, %s, %s);", d, d, dname, c.at);
    emit_line(x, "const unsigned %s = cn_pool_workers();", W);
    emit_line(x, "%s *%s = (%s *)cn_par_alloc(%s, sizeof(%s), %s);", c.acc_t, parts, c.acc_t, W, c.acc_t, c.at);
    const char *v1 = ctx_fill(x, &k1);
    emit_line(x, "cn_pool_reduce(%s, %s, &%s);", end, k1.name, v1);
    /* partial w becomes the combination of the blocks before it */
    const char *run = emit_tmp(x, "run"), *res = emit_tmp(x, "acc");
    acc_decl(x, &c, run);
    emit_line(x, "for (unsigned cn_w = 0; cn_w < %s; cn_w++) {", W);
    x->fn->indent++;
    emit_line(x, "const %s cn_blk = %s[cn_w];", c.acc_t, parts);
    emit_line(x, "%s[cn_w] = %s;", parts, run);
    acc_merge(x, &c, run, "cn_blk");
    x->fn->indent--;
    emit_line(x, "}");
    const char *v2 = ctx_fill(x, &k2);
    emit_line(x, "cn_pool_reduce(%s, %s, &%s);", end, k2.name, v2);
    emit_line(x, "const %s %s = %s;", emit_ctype(x, c.vt), res, acc_value(x, &c, run));
    emit_line(x, "free(%s);", parts);

    const char *pre, *post;
    reduce_block_lines(x, &c, &pre, &post);
    c.dest = "cn_dest";
    block_fn(x, &k1, &c, plan, e->collect.sym, fold_step, pre, post);
    /* pass 2 reads no captures: its lanes only rewrite dest */
    block_fn(x, &k2, &c, plan, e->collect.sym, prefix_step,
             emit_fmt(x, "%s cn_acc = cn_c->cn_part[cn_w];", c.acc_t), NULL);
    return res;
}

typedef struct {
    Node *e;
    const char *elem_t;
} CompactStep;

static void keep_step(Ex *x, const char *iv, void *p)
{
    CompactStep *s = p;
    const char *f = emit_tmp(x, "keep");
    emit_line(x, "const bool %s = %s;", f, emit_expr(x, s->e->collect.keep));
    emit_line(x, "cn_flags[%s] = %s;", iv, f);
    emit_line(x, "cn_count += %s;", f);
}

static void write_step(Ex *x, const char *iv, void *p)
{
    CompactStep *s = p;
    emit_line(x, "if (cn_flags[%s] && cn_pos < cn_dest.n) {", iv);
    x->fn->indent++;
    const char *y = emit_tmp(x, "y");
    emit_line(x, "const %s %s = %s;", s->elem_t, y, emit_expr(x, s->e->collect.value));
    emit_line(x, "cn_dest.p[cn_pos++] = %s;", y);
    x->fn->indent--;
    emit_line(x, "}");
}

static void compact_block(Ex *x, Ctxt *k, Node *e, PlanInfo plan, LaneStep step, const char *pre, const char *post)
{
    CompactStep s = {e, emit_ctype(x, e->collect.value->ty)};
    LaneFn L;
    lane_fn_begin(x, &L, emit_fmt(x, "static void %s(void *cn_vc, unsigned cn_w, size_t cn_lo, size_t cn_hi)",
                                      k->name));
    ctx_unpack(x, k);
    emit_line(x, "%s", pre);
    lane_loop(x, index_name(x, e->collect.sym), "cn_lo", "cn_hi", plan, step, &s);
    if (post)
        emit_line(x, "%s", post);
    lane_fn_end(x, &L);
}

/* compact DEST parallel: pass 1 keeps a flag per index and counts per
 * block; pass 2 writes each block's kept values from the count before it. */
static const char *emit_par_compact(Ex *x, Node *e)
{
    PlanInfo plan = plan_here(x);
    const char *at = emit_at(x, e->span);
    Ctxt k = coll_ctx(x, e, "compact");
    const char *dname, *end = emit_tmp(x, "end"), *W = emit_tmp(x, "W"), *cnt = emit_tmp(x, "cnt");
    const char *flags = emit_tmp(x, "flags"), *res = emit_tmp(x, "count");
    emit_line(x, "const size_t %s = %s;", end, emit_expr(x, e->collect.extent));
    const char *d = emit_dest_view(x, e, &k, &dname);
    field(x, &k, "size_t *", "cn_cnt", cnt);
    field(x, &k, "unsigned char *", "cn_flags", flags);
    ctx_struct(x, &k);
    Ctxt k2 = k;
    k2.name = emit_tmp(x, "compact");
    ctx_struct(x, &k2);
    emit_line(x, "const unsigned %s = cn_pool_workers();", W);
    emit_line(x, "size_t *%s = (size_t *)cn_par_alloc(%s, sizeof(size_t), %s);", cnt, W, at);
    emit_line(x, "unsigned char *%s = (unsigned char *)cn_par_alloc(%s, 1, %s);", flags, end, at);
    const char *v = ctx_fill(x, &k);
    emit_line(x, "cn_pool_reduce(%s, %s, &%s);", end, k.name, v);
    emit_line(x, "size_t %s = 0;", res);
    emit_line(x, "for (unsigned cn_w = 0; cn_w < %s; cn_w++) {", W);
    emit_line(x, "    const size_t cn_b = %s[cn_w];", cnt);
    emit_line(x, "    %s[cn_w] = %s;", cnt, res);
    emit_line(x, "    %s += cn_b;", res);
    emit_line(x, "}");
    const char *v2 = ctx_fill(x, &k2);
    emit_line(x, "cn_pool_reduce(%s, %s, &%s);", end, k2.name, v2);
    emit_line(x, "free(%s);", cnt);
    emit_line(x, "free(%s);", flags);
    emit_line(x, "if (%s > %s.n)", res, d);
    emit_line(x, "    (void)cn_idx_u(%s.n, %s.n, %s, %s);", d, d, dname, at);
    compact_block(x, &k, e, plan, keep_step, "size_t cn_count = 0;", "cn_c->cn_cnt[cn_w] = cn_count;");
    compact_block(x, &k2, e, plan, write_step, "size_t cn_pos = cn_c->cn_cnt[cn_w];", NULL);
    return res;
}

const char *emit_par_collect(Ex *x, Node *e)
{
    if (e->collect.device)
        return emit_dev_collect(x, e);
    x->uses_par = true;
    switch (e->collect.kind) {
    case COLLECT_SCAN: return emit_par_scan(x, e);
    case COLLECT_COMPACT: return emit_par_compact(x, e);
    default: break;
    }
    /* reduce: the block keeps cn_acc and stores it in its partial */
    Coll c;
    coll_init(x, &c, e);
    PlanInfo plan = plan_here(x);
    c.staged = plan.staged;
    Ctxt k = coll_ctx(x, e, "reduce");
    const char *end = emit_tmp(x, "end"), *W = emit_tmp(x, "W"), *parts = emit_tmp(x, "part");
    const char *tot = emit_tmp(x, "tot"), *res = emit_tmp(x, "acc");
    field(x, &k, emit_fmt(x, "%s *", c.acc_t), "cn_part", parts);
    ctx_struct(x, &k);
    emit_line(x, "const size_t %s = %s;", end, emit_expr(x, e->collect.extent));
    emit_line(x, "const unsigned %s = cn_pool_workers();", W);
    emit_line(x, "%s *%s = (%s *)cn_par_alloc(%s, sizeof(%s), %s);", c.acc_t, parts, c.acc_t, W, c.acc_t, c.at);
    const char *v = ctx_fill(x, &k);
    emit_line(x, "cn_pool_reduce(%s, %s, &%s);", end, k.name, v);
    combine_parts(x, &c, parts, W, tot);
    emit_line(x, "const %s %s = %s;", emit_ctype(x, c.vt), res, acc_value(x, &c, tot));
    emit_line(x, "free(%s);", parts);
    if (e->collect.dest)
        emit_line(x, "%s = %s;", emit_expr(x, e->collect.dest), res);
    const char *pre, *post;
    reduce_block_lines(x, &c, &pre, &post);
    block_fn(x, &k, &c, plan, e->collect.sym, fold_step, pre, post);
    return res;
}

/* ----------------------------------------------------------------- atomics */

/* Which family of runtime/cairn_atomic.h an update calls: in a region on
 * the device, a shared array's is a shared-memory atomic ("shared_") and an
 * outside array's a relaxed one ("relaxed_"), which the phase rule makes
 * enough; everywhere else the seq_cst update a lane needs (""). */
static const char *atomic_family(const Ex *x, Node *el)
{
    if (!x->coop_device)
        return "";
    Sym *root = view_root(el);
    return root && root->decl && root->decl->kind == N_SHARED ? "shared_" : "relaxed_";
}

const char *emit_par_atomic(Ex *x, Node *e)
{
    x->uses_par = true;
    Builtin b = (Builtin)e->call.builtin;
    Node *el = e->call.args.v[0];
    Type *t = el->ty;
    const char *p = emit_tmp(x, "p");
    emit_line(x, "%s *const %s = %s;", emit_ctype(x, t), p, emit_addr(x, el));
    const char *v[3] = {p, NULL, NULL};
    for (int i = 1; i < e->call.args.n && i < 3; i++) {
        v[i] = emit_expr(x, e->call.args.v[i]);
        if (i == 1 && e->call.args.n == 3 && emit_is_impure(e->call.args.v[2])) {
            const char *tmp = emit_tmp(x, "a");
            emit_line(x, "const %s %s = %s;", emit_ctype(x, t), tmp, v[1]);
            v[1] = tmp;
        }
    }
    const char *name = builtin_name(b) + strlen("atomic_"), *fam = atomic_family(x, el);
    if (b == B_ATOMIC_CAS)
        return emit_fmt(x, "cn_atomic_%scas_%s(%s, %s, %s)", fam, emit_suffix(t), p, v[1], v[2]);
    return emit_fmt(x, "cn_atomic_%s%s_%s(%s, %s)", fam, name, emit_suffix(t), p, v[1]);
}
