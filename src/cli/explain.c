/*
 * explain.c: `cairn explain FILE`, each function's effect row and its
 * regions and collectors.
 *
 *   fn dot: [par:host, read:x, read:y, trap]
 *     line 6: reduce + parallel i in n (par:host; reads x[i], y[i])
 *
 * Functions in source order (a generic once per instance, with its
 * values); under each, every region and collector in source order with its
 * line, kind, index, extent and mode, what it writes, reads and updates
 * atomically, and the plan that shapes it; and each std.math call with the
 * implementation it runs and the accuracy that implementation claims; and
 * each wide access with the bytes it moves at once and its instruction, with
 * the cache operator its hint names.
 */
#include "cli.h"
#include "../check.h"
#include "../par.h"
#include "../wide.h"

#include <string.h>

static const char explain_help[] =
    "usage: cairn explain [--device-target T] [--emulate] FILE\n"
    "\n"
    "Checks FILE, then prints each function's effect row (what it and\n"
    "everything it calls may do: par:host, par:device, read:x, write:x, trap,\n"
    "io, libm, alloc, atomic, ...), and under it one line per parallel region\n"
    "and collector: its line, kind, index, extent, where its lanes run\n"
    "(par:host on the pool of host threads, par:device on the device), and the\n"
    "elements it writes, reads and updates atomically; and a line per std.math\n"
    "call: cairn's portable implementation and its accuracy, or libm; and a\n"
    "line per load_wide / store_wide: the part it moves, its bytes, its cache\n"
    "hint and the device instruction (ld.global.cs.v4.u32, ...).\n"
    "--device-target and --emulate are taken as `cairn check` takes them.\n"
    "Exits 1 (with the diagnostics) when FILE is refused. docs/concurrency.md\n"
    "describes the rows; docs/numerics.md the math functions.\n";

typedef struct {
    Arena *a;
    Vec writes, reads, atomics;   /* const char*, distinct, in order */
} Uses;

static void use(Uses *u, Vec *v, const char *s)
{
    for (int i = 0; i < v->n; i++)
        if (!strcmp(v->v[i], s))
            return;
    vec_push(u->a, v, (void *)s);
}

static bool is_view(const Node *e)
{
    return e && e->ty && e->ty->kind == TY_VIEW;
}

/* The part a wide access reaches, as written: "x[4 * i..4 * i + 4]". */
static const char *wide_part(Arena *a, const Node *n)
{
    const Node *ix = wide_index(n);
    const char *v = expand_expr(a, wide_view(n));
    if (ix->kind == N_INT && !ix->lit.overflow && ix->lit.ival <= (uint64_t)INT64_MAX - 16)
        return arena_printf(a, "%s[%llu..%llu]", v, (unsigned long long)ix->lit.ival,
                            (unsigned long long)ix->lit.ival + (unsigned long long)wide_count(n));
    const char *i = expand_expr(a, ix);
    return arena_printf(a, "%s[%s..%s + %lld]", v, i, i, (long long)wide_count(n));
}

static bool uses_visit(Node *n, void *c)
{
    Uses *u = c;
    if (wide_is(n)) {
        use(u, wide_is_store(n) ? &u->writes : &u->reads, wide_part(u->a, n));
        return true;
    }
    switch (n->kind) {
    case N_ASSIGN:
        if (n->assign.lhs->kind == N_INDEX && is_view(n->assign.lhs->index.base)) {
            use(u, &u->writes, expand_expr(u->a, n->assign.lhs));
            if (n->assign.op != T_ASSIGN)
                use(u, &u->reads, expand_expr(u->a, n->assign.lhs));
            par_walk(n->assign.lhs->index.index, uses_visit, c);
            par_walk(n->assign.rhs, uses_visit, c);
            return false;
        }
        return true;
    case N_INDEX:
        if (is_view(n->index.base))
            use(u, &u->reads, expand_expr(u->a, n));
        return true;
    case N_COLLECT:
        if (n->collect.dest)
            use(u, &u->writes, expand_expr(u->a, n->collect.dest));
        return true;
    case N_CALL:
        if (n->call.ck == CALL_BUILTIN && effects_construct(n, NULL) == EF_ATOMIC && n->call.args.n) {
            Node *el = n->call.args.v[0];
            use(u, &u->atomics, expand_expr(u->a, el));
            if (el->kind == N_INDEX)
                par_walk(el->index.index, uses_visit, c);
            for (int i = 1; i < n->call.args.n; i++)
                par_walk(n->call.args.v[i], uses_visit, c);
            return false;
        }
        if (n->call.ck == CALL_FN && n->call.callee && n->call.callee->ty && n->call.callee->ty->kind == TY_FN) {
            Type *ft = n->call.callee->ty;
            for (int i = 0; i < n->call.args.n && i < ft->params.n; i++) {
                Type *pt = ft->params.v[i];
                Node *a = n->call.args.v[i];
                if (pt->kind == TY_VIEW)
                    use(u, pt->access == ACC_RW ? &u->writes : &u->reads,
                        arena_printf(u->a, "%s (via %s)", expand_expr(u->a, a),
                                     n->call.target && n->call.target->fn.id ? n->call.target->fn.id : "a call"));
            }
        }
        return true;
    default:
        return true;
    }
}

static const char *join(Arena *a, const Vec *v)
{
    const char *s = "";
    for (int i = 0; i < v->n; i++)
        s = arena_printf(a, "%s%s%s", s, i ? ", " : "", (const char *)v->v[i]);
    return s;
}

static const char *plan_text(Arena *a, PlanInfo p, bool collector)
{
    const char *s = "";
    if (p.vector)
        s = arena_printf(a, "%s%svector %d", s, *s ? ", " : "", p.vector);
    if (p.unroll)
        s = arena_printf(a, "%s%sunroll %d", s, *s ? ", " : "", p.unroll);
    if (p.fuse && !collector)
        s = arena_printf(a, "%s%sfuse", s, *s ? ", " : "");
    if (p.staged && collector)
        s = arena_printf(a, "%s%sstaged", s, *s ? ", " : "");
    return s;
}

typedef struct {
    Arena *a;
    PlanInfo plan;
    const Analysis *an;   /* the emitter's decisions (analyze.c): how a device region is lowered */
} ExplainWalk;

/* How a device region's lanes run (analyze.c, "Wide lanes"): "wide: 4 lanes
 * a thread, x, y loaded and out stored 4 elements at a time, in accesses of
 * up to 16 bytes", "lanes one a thread, ..." under `vector 1`, or NULL for a
 * region that neither preloads nor stores at its own index. */
static const char *device_lanes(ExplainWalk *w, const Node *n)
{
    if (n->kind != N_PARALLEL || !n->loop.device || !w->an)
        return NULL;
    const RegionPlan *p = analysis_of(w->an, n);
    if (!p->wide)
        return p->preloads.n ? "lanes one a thread, each lane's own elements loaded ahead" : NULL;
    Vec in = {0}, out = {0};
    int most = 0;
    for (int i = 0; i < p->preloads.n; i++) {
        const Node *b = ((const Node *)p->preloads.v[i])->index.base;
        vec_push(w->a, &in, (void *)b->name.id);
        int bytes = p->wide * type_bits(b->ty->elem) / 8;
        most = bytes > most ? bytes : most;
    }
    for (int i = 0; i < p->posts.n; i++) {
        const Node *b = ((const Node *)p->posts.v[i])->assign.lhs->index.base;
        vec_push(w->a, &out, (void *)b->name.id);
        int bytes = p->wide * type_bits(b->ty->elem) / 8;
        most = bytes > most ? bytes : most;
    }
    int piece = (int)wide_piece((size_t)most);   /* the widest view's access */
    const char *s = arena_printf(w->a, "wide: %d lanes a thread", p->wide);
    if (in.n)
        s = arena_printf(w->a, "%s, %s loaded", s, join(w->a, &in));
    if (out.n)
        s = arena_printf(w->a, "%s%s %s stored", s, in.n ? " and" : ",", join(w->a, &out));
    return arena_printf(w->a, "%s %d elements at a time, in accesses of up to %d bytes", s, p->wide, piece);
}

/* Where an item's lanes run: "par:device" (a device region or collector),
 * "par:host" (the pool), or NULL (a sequential collector). */
static const char *item_place(const Node *n, bool pooled)
{
    if (n->kind == N_PARALLEL ? n->loop.device : n->collect.device)
        return "par:device";
    return pooled ? "par:host" : NULL;
}

static void print_item(ExplainWalk *w, Node *n, const char *head, Node *body1, Node *body2, bool pooled,
                       bool collector)
{
    Uses u = {.a = w->a};
    par_walk(body1, uses_visit, &u);
    par_walk(body2, uses_visit, &u);
    if (n->kind == N_COLLECT && n->collect.dest)
        use(&u, &u.writes, expand_expr(w->a, n->collect.dest));
    const char *parts[6];
    int k = 0;
    const char *place = item_place(n, pooled);
    if (place)
        parts[k++] = place;
    if (u.writes.n)
        parts[k++] = arena_printf(w->a, "writes %s", join(w->a, &u.writes));
    if (u.reads.n)
        parts[k++] = arena_printf(w->a, "reads %s", join(w->a, &u.reads));
    if (u.atomics.n)
        parts[k++] = arena_printf(w->a, "atomic %s", join(w->a, &u.atomics));
    const char *plan = place && !strcmp(place, "par:host") ? plan_text(w->a, w->plan, collector) : "";
    if (*plan)
        parts[k++] = arena_printf(w->a, "plan %s", plan);
    const char *lanes = device_lanes(w, n);
    if (lanes)
        parts[k++] = lanes;
    printf("  line %d: %s", n->span.line, head);
    for (int i = 0; i < k; i++)
        printf("%s%s", i ? "; " : " (", parts[i]);
    printf("%s\n", k ? ")" : "");
}

/* A std.math call: which implementation runs and what it claims, as the
 * receipt's numerics list says it. */
static void print_math(ExplainWalk *w, Node *n)
{
    const char *id = n->call.math ? n->call.math : "?";
    const char *claim = math_claim(id, n->ty);
    printf("  line %d: std.math.%s on %s: %s\n", n->span.line, id, type_str(w->a, n->ty),
           claim ? arena_printf(w->a, "cairn's portable implementation, %s", claim)
                 : "the host's C library (libm), error unstated");
}

/* A wide access: the bytes it moves at once and the instruction with its
 * cache operator, where the hint means something (wide.h). */
static void print_wide(ExplainWalk *w, Node *n)
{
    const Type *vt = wide_view(n)->ty;
    WideHint h = wide_hint(n);
    const char *hint = *wide_hint_ptx(h) ? arena_printf(w->a, "Cache.%s (%s)", wide_hint_name(h), wide_hint_ptx(h))
                                         : arena_printf(w->a, "Cache.%s", wide_hint_name(h));
    const char *how;
    if (wide_global(n))
        how = arena_printf(w->a, "%s on the device", wide_ptx(w->a, n));
    else if (vt->shared)
        how = arena_printf(w->a, "%s in the block's shared memory", wide_ptx(w->a, n));
    else
        how = arena_printf(w->a, "%lld %s %s in host memory, where a hint means nothing", (long long)wide_count(n),
                           type_str(w->a, vt->elem), wide_is_store(n) ? "stores" : "loads");
    printf("  line %d: %s %s: %d bytes at once, %s: %s\n", n->span.line, wide_is_store(n) ? "store_wide" : "load_wide",
           wide_part(w->a, n), wide_bytes(n), hint, how);
}

/* The whole-matrix multiply: where it runs, how, and its contract, as the
 * receipt's numerics list says it (cairn_mma.h). */
static void print_mma(ExplainWalk *w, Node *n)
{
    const Type *a = ((Node *)n->call.args.v[4])->ty;
    const char *how = mma_on_device(n)
                          ? "on the device: 64 x 64 tiles of c, four warps of 2 x 2 WMMA 16x16x16 fragments, k in "
                            "steps of 32 through two stages, its sums in the hardware's order"
                          : "on the host: the reference loop, each output's products in increasing k";
    printf("  line %d: mma_unordered on %s operands into f32, %s; each output within (k + 1) * 2^-22 * (|c| + sum "
           "|a b|) of the exact sum; the extents checked at the call\n",
           n->span.line, a && a->elem ? type_str(w->a, a->elem) : "?", how);
}

static bool explain_visit(Node *n, void *c)
{
    ExplainWalk *w = c;
    if (n->kind == N_CALL && n->call.ck == CALL_BUILTIN && n->call.builtin == B_MMA_UNORDERED &&
        n->call.args.n == 6) {
        print_mma(w, n);
        return true;
    }
    if (n->kind == N_CALL && n->call.ck == CALL_MATH) {
        print_math(w, n);
        return true;
    }
    if (wide_is(n)) {
        print_wide(w, n);
        return true;
    }
    if (n->kind == N_PARALLEL) {
        print_item(w, n, arena_printf(w->a, "parallel %s in %s", n->loop.var, expand_expr(w->a, n->loop.hi)),
                   n->loop.body, NULL, true, false);
        return true;
    }
    if (n->kind != N_COLLECT || n->collect.mode == MODE_WARP)
        return true;
    const char *kind = n->collect.kind == COLLECT_REDUCE ? "reduce" : n->collect.kind == COLLECT_SCAN ? "scan" : "compact";
    const char *head = kind;
    if (n->collect.op)
        head = arena_printf(w->a, "%s %s", head, n->collect.op);
    if (n->collect.dest)
        head = arena_printf(w->a, "%s %s", head, expand_expr(w->a, n->collect.dest));
    bool pooled = n->collect.mode == MODE_PARALLEL;
    head = arena_printf(w->a, "%s %s %s in %s", head, pooled ? "parallel" : "for", n->collect.var,
                        expand_expr(w->a, n->collect.extent));
    print_item(w, n, head, n->collect.keep, n->collect.value, pooled, true);
    return true;
}

static const char *fn_title(Arena *a, const Node *fn)
{
    const char *t = fn->fn.id ? fn->fn.id : "?";
    if (fn->fn.is_instance && fn->fn.gvals && fn->fn.generics.n) {
        t = arena_printf(a, "%s[", t);
        for (int i = 0; i < fn->fn.generics.n; i++)
            t = arena_printf(a, "%s%s%lld", t, i ? ", " : "", (long long)fn->fn.gvals[i]);
        t = arena_printf(a, "%s]", t);
    }
    return t;
}

static void explain_fn(Unit *u, EffTable *t, Node *fn)
{
    FnEff *f = effects_of(t, fn);
    if (!f)
        return;
    printf("fn %s: %s\n", fn_title(u->arena, fn), effects_row(u->arena, f));
    ExplainWalk w = {u->arena, par_plan_for(u->program, fn->fn.id), u->check.analysis};
    par_walk(fn->fn.body, explain_visit, &w);
}

int cmd_explain(int argc, char **argv)
{
    Options o;
    if (!opts_parse(&o, "explain", argc, argv, "emulate device-target"))
        return EXIT_USAGE;
    if (o.help) {
        fputs(explain_help, stdout);
        return EXIT_OK;
    }
    if (!o.path) {
        fputs(explain_help, stderr);
        return EXIT_USAGE;
    }
    Unit u;
    if (!unit_load(&u, o.path, &o)) {
        unit_free(&u);
        return EXIT_USAGE;
    }
    if (!unit_check_target(&u, &o, NULL, NULL)) {
        unit_verdict(&u, o.path, false);
        unit_free(&u);
        return EXIT_REFUSED;
    }
    EffTable *t = u.check.effects;   /* the effects pass's rows, as the checker used them */
    u.check.analysis = analyze_program(u.arena, &u.check);   /* the lowering's decisions, for device regions */
    /* source order: each declared fn, or each of a generic's instances */
    Node *prog = u.program;
    for (int i = 0; i < prog->block.stmts.n; i++) {
        Node *d = prog->block.stmts.v[i];
        if (!d || d->kind != N_FN)
            continue;
        if (!d->fn.generics.n) {
            explain_fn(&u, t, d);
            continue;
        }
        for (int k = 0; k < u.check.fns.n; k++) {
            Node *fn = u.check.fns.v[k];
            if (fn->fn.is_instance && fn->fn.id && d->fn.id && !strcmp(fn->fn.id, d->fn.id))
                explain_fn(&u, t, fn);
        }
    }
    unit_free(&u);
    return EXIT_OK;
}
