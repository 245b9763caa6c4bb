/*
 * analyze.c: the decisions the emitter used to make while it wrote C,
 * made once before emission and kept where it reads them.
 *
 * Requires: a program the checkers accepted (every pass up to the device
 * rules reported no error): names resolved, expressions typed, the race
 * rule applied, regions marked host or device.
 * Guarantees: c->analysis holds, for every region statement and device
 * collector the emitter lowers,
 *   - fusion (plan f { fuse; }): at the first region of each run of
 *     consecutive regions that may run as one pass, the run's length;
 *   - guard hoisting: the x[lane] accesses whose bound checks one guard
 *     before the lanes stands for, one per view (the first, which the guard's
 *     message names), for the region alone and for the fused run it starts;
 *   - preloads: in a device region that is not part of a fused run and
 *     whose body has no loop, the covered x[lane] whose x is an ro
 *     parameter, one slot per view;
 *   - wide lanes: in such a region, the leading `out[lane] = e` stores
 *     held and written a group of lanes at a time (assign.post), and how
 *     many consecutive lanes a device thread runs as one group;
 * and every such x[lane] in the tree has index.covered set, so the emitter
 * indexes it unchecked (and index.preload, so a device lane reads it from
 * what its load took). The emitter then neither calls a checker nor writes
 * into the tree.
 *
 * Which accesses are preloaded. A device lane's kernel reads the preloaded
 * elements of several lanes before it runs any of their bodies
 * (CN_DEV_KERNEL_PRE), so reading one earlier than the body would must give
 * the same value and must be allowed: the access is covered (every lane
 * makes it, in bounds once the guard before the launch passed), its index
 * is a name (nothing to evaluate), and x is an ro parameter, which no one
 * writes while the function runs (E-ALIAS at every call) and which the body
 * cannot rebind.
 *
 * Which accesses are covered. A lane's `x[i]`, with i the lane index and x
 * a view, runs for every i of a block when it sits in a statement every
 * lane reaches (the body's leading simple statements and the condition of
 * an if that follows them, outside the right side of && and ||, a
 * collector or a closure). One guard before the lane
 * loop then stands for all of them -- it reports the first index of the
 * block past x's end, the index that lane would have reported -- and the
 * lanes index unchecked, so the C compiler can vectorize the loop. Which
 * lane's guard fails first in a region is not fixed in any case; that one
 * fails is. "The lane index" is judged by the symbolic core: an index whose
 * value is the lane's unknown and nothing else (`x[i]`, `x[j]` after
 * `let j = i`, `x[i + 1 - 1]`). A device collector's value (or a compaction's keep) is
 * evaluated at every index; a compaction's value only where keep holds, so
 * its x[i] is unchecked only where keep's guards checked the same x.
 */
#include "chain.h"
#include "par.h"
#include "sym.h"

typedef struct {
    Arena *a;
    const Check *c;
    Analysis *out;
    bool fuse;            /* the function being walked has plan { fuse; } */
    int vector;           /* ... and its plan's `vector K`, or 0 */
} Ana;

/* ------------------------------------------------------------ covered x[lane] */

/* The walk of a lane's leading statements: the environment follows its
 * lets, so an index is judged by its value. */
typedef struct {
    Arena *a;
    SEnv *env;
    SForm lane;           /* the lane index's form */
    Vec *found;
    Vec locals;           /* Sym* the walked lets declared: their views exist only in the lane */
} Cover;

static bool is_local(const Cover *cv, const Sym *v)
{
    for (int i = 0; i < cv->locals.n; i++)
        if (cv->locals.v[i] == v)
            return true;
    return false;
}

static bool is_lane_index(Cover *cv, Node *idx)
{
    SVal v = sym_eval(cv->env, idx);
    return sform_equal(&v.f, &cv->lane);
}

static void cover_expr(Cover *cv, Node *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case N_INDEX:
        /* a view a lane's let made has no guard before the lanes: it is not there yet */
        if (e->index.base && e->index.base->kind == N_NAME && e->index.base->ty &&
            e->index.base->ty->kind == TY_VIEW && !is_local(cv, e->index.base->name.sym) && e->index.index &&
            is_lane_index(cv, e->index.index))
            vec_push(cv->a, cv->found, e);
        cover_expr(cv, e->index.base);
        cover_expr(cv, e->index.index);
        break;
    case N_BINARY: {
        /* the leaf, then the right operands in source order, but not those
         * of && and ||, which not every lane reaches (chain.h) */
        Spine sp;
        cover_expr(cv, spine_of(&sp, e));
        for (int i = sp.n - 1; i >= 0; i--)
            if (sp.v[i]->binary.op != T_ANDAND && sp.v[i]->binary.op != T_OROR)
                cover_expr(cv, sp.v[i]->binary.b);
        spine_free(&sp);
        break;
    }
    case N_UNARY: cover_expr(cv, e->unary.a); break;
    case N_CALL:
        for (int i = 0; i < e->call.args.n; i++)
            cover_expr(cv, e->call.args.v[i]);
        break;
    case N_SLICE:
        cover_expr(cv, e->slice.base);
        cover_expr(cv, e->slice.lo);
        cover_expr(cv, e->slice.hi);
        break;
    case N_FIELD: cover_expr(cv, e->field.base); break;
    default: break;
    }
}

static void cover_start(Cover *cv, Arena *a, Sym *lane, Vec *found)
{
    cv->a = a;
    cv->locals = (Vec){0};
    cv->env = senv_new(a, SN_FIXED);
    SForm any = sform_any();
    cv->lane = sform_key(senv_lane(cv->env, lane, &any));
    cv->found = found;
}

static void cover_body(Node *body, Sym *lane, Vec *found, Arena *a)
{
    Cover cv;
    cover_start(&cv, a, lane, found);
    for (int i = 0; body && i < body->block.stmts.n; i++) {
        Node *s = body->block.stmts.v[i];
        if (s->kind == N_ASSIGN) {
            cover_expr(&cv, s->assign.lhs);
            cover_expr(&cv, s->assign.rhs);
            sym_assign(cv.env, s);
        } else if (s->kind == N_LET) {
            cover_expr(&cv, s->let.init);
            sym_let(cv.env, s);
            vec_push(a, &cv.locals, s->let.sym);
        } else if (s->kind == N_EXPR_STMT) {
            cover_expr(&cv, s->unary.a);
            if (s->unary.a)
                sym_lend(cv.env, s->unary.a);
        } else if (s->kind == N_IF) {
            cover_expr(&cv, s->if_.cond); /* every lane tests it; its branches may not run */
            return;
        } else {
            return;     /* what follows may not run in every lane */
        }
    }
}

static void cover_one(Node *e, Sym *lane, Vec *found, Arena *a)
{
    Cover cv;
    cover_start(&cv, a, lane, found);
    cover_expr(&cv, e);
}

static bool has_view(const Vec *guards, const Sym *v)
{
    for (int i = 0; i < guards->n; i++)
        if (((Node *)guards->v[i])->index.base->name.sym == v)
            return true;
    return false;
}

/* Marks each found access covered; the first of each view is guarded. */
static Vec guards_of(Ana *an, const Vec *found)
{
    Vec guards = {0};
    for (int i = 0; i < found->n; i++) {
        Node *e = found->v[i];
        e->index.covered = true;
        if (!has_view(&guards, e->index.base->name.sym))
            vec_push(an->a, &guards, e);
    }
    return guards;
}

static RegionPlan *plan_of(Ana *an, Node *n)
{
    RegionPlan *p = ptrmap_get(&an->out->plans, n);
    if (!p) {
        p = arena_alloc(an->a, sizeof *p);
        ptrmap_put(an->a, &an->out->plans, n, p);
    }
    return p;
}

static Vec region_guards(Ana *an, Node **rs, int n)
{
    Vec found = {0};
    for (int k = 0; k < n; k++)
        cover_body(rs[k]->loop.body, rs[k]->loop.sym, &found, an->a);
    return guards_of(an, &found);
}

static bool preloadable(const Node *e)
{
    const Node *b = e->index.base;
    const Sym *v = b->name.sym;
    return e->index.index->kind == N_NAME && v && v->kind == SYM_PARAM && !v->mut && b->ty->access == ACC_RO &&
           type_is_scalar(b->ty->elem);
}

/* The preloads of a device region alone: its covered accesses found. */
static void region_preloads(Ana *an, RegionPlan *p, const Vec *found)
{
    for (int i = 0; i < found->n; i++) {
        Node *e = found->v[i];
        if (!preloadable(e))
            continue;
        int slot = 0;
        while (slot < p->preloads.n && ((Node *)p->preloads.v[slot])->index.base->name.sym != e->index.base->name.sym)
            slot++;
        if (slot == p->preloads.n)
            vec_push(an->a, &p->preloads, e);
        e->index.preload = slot + 1;
    }
}

static bool is_loop(Node *n, void *found)
{
    if (n->kind == N_FOR || n->kind == N_WHILE)
        *(bool *)found = true;
    return !*(bool *)found;
}

/* A lane that loops is bound by its work, not by its loads: running several
 * a thread would only hold more registers (fewer blocks an SM). */
static bool body_loops(Node *body)
{
    bool found = false;
    par_walk(body, is_loop, &found);
    return found;
}

/* ------------------------------------------------------------ wide lanes */

/* Wide lanes: plain code gets the 16-byte accesses d19 writes by hand. A
 * device thread runs K consecutive lanes i0 .. i0+K-1 as a group: their
 * preloads come in one access of K elements per view (split into pieces of
 * at most 16 bytes), their bodies run one after another, and each lane's
 * store to out[i] is held in a post and written for the K lanes in one
 * access per view. Only the grouping of memory accesses changes: every lane
 * runs its body once with its own index, reads what it read before (x is
 * an ro parameter, which no one writes while the function runs), and leaves
 * in out[i] what it stored; no other lane could see out[i] before (the race
 * rule), and this lane does not read it back (below). The kernel takes the
 * wide form only where every such view's pointer is aligned for its access,
 * and runs the last n mod K lanes one at a time (cairn_dev.h,
 * CN_DEV_KERNEL_WIDE).
 *
 * A store is held as a post when it is `out[i] = e` with plain `=`, i the
 * lane's own name, out a view parameter the function does not rebind with a
 * scalar element, the statement is one of the lane's leading ones (every
 * lane reaches it once, before any branch: a group's posts are all set
 * when the group stores them) and covered by the guard before the lanes,
 * and out is named nowhere else in the body: no lane reads back what it
 * stored, passes out on or stores it twice. */
enum { WIDE_BYTES = 16, WIDE_MOST = 16 };

typedef struct {
    const Sym *v;
    int uses;
} NameUses;

static bool count_uses(Node *n, void *c)
{
    NameUses *u = c;
    if (n->kind == N_NAME && n->name.sym == u->v)
        u->uses++;
    return true;
}

static bool postable(Node *s, Node *body, Sym *lane)
{
    if (s->kind != N_ASSIGN || s->assign.op != T_ASSIGN || s->assign.lhs->kind != N_INDEX)
        return false;
    Node *e = s->assign.lhs, *b = e->index.base, *i = e->index.index;
    if (!e->index.covered || !b || b->kind != N_NAME || !i || i->kind != N_NAME || i->name.sym != lane)
        return false;
    const Sym *v = b->name.sym;
    if (!v || v->kind != SYM_PARAM || v->mut || !b->ty || b->ty->kind != TY_VIEW || b->ty->access == ACC_RO ||
        !type_is_scalar(b->ty->elem))
        return false;
    NameUses u = {v, 0};
    walk_tree(body, WALK_ALL, count_uses, &u);
    return u.uses == 1;
}

/* The posts of a region: its leading statements' stores that qualify. */
static void region_posts(Ana *an, RegionPlan *p, Node *n)
{
    Node *body = n->loop.body;
    for (int i = 0; body && i < body->block.stmts.n; i++) {
        Node *s = body->block.stmts.v[i];
        if (s->kind != N_ASSIGN && s->kind != N_LET && s->kind != N_EXPR_STMT)
            break;     /* what follows may not run in every lane */
        if (postable(s, body, n->loop.sym)) {
            s->assign.post = p->posts.n + 1;
            vec_push(an->a, &p->posts, s);
        }
    }
}

static size_t elem_bytes(const Node *access)
{
    return (size_t)type_bits(access->index.base->ty->elem) / 8;
}

/* K: the plan's `vector K` where written (1 keeps the lanes one a thread);
 * else enough lanes that the narrowest view moves 16 bytes an access. */
static int wide_lanes(const RegionPlan *p, int planned)
{
    if (!p->preloads.n && !p->posts.n)
        return 0;
    if (planned)
        return planned > 1 ? planned : 0;
    size_t least = 8;
    for (int i = 0; i < p->preloads.n; i++)
        if (elem_bytes(p->preloads.v[i]) < least)
            least = elem_bytes(p->preloads.v[i]);
    for (int i = 0; i < p->posts.n; i++)
        if (elem_bytes(((Node *)p->posts.v[i])->assign.lhs) < least)
            least = elem_bytes(((Node *)p->posts.v[i])->assign.lhs);
    size_t k = WIDE_BYTES / (least ? least : 1);
    return k > WIDE_MOST ? WIDE_MOST : (int)k;
}

/* A region alone: its guards, and a device one's preloads and wide lanes. */
static void analyze_region(Ana *an, Node *n)
{
    RegionPlan *p = plan_of(an, n);
    Vec found = {0};
    cover_body(n->loop.body, n->loop.sym, &found, an->a);
    p->guards = guards_of(an, &found);
    if (n->loop.device && !p->in_run && !body_loops(n->loop.body)) {
        region_preloads(an, p, &found);
        region_posts(an, p, n);
        p->wide = wide_lanes(p, an->vector);
    }
}

static void analyze_collect(Ana *an, Node *e)
{
    bool compact = e->collect.kind == COLLECT_COMPACT;
    Vec found = {0}, also = {0};
    cover_one(compact ? e->collect.keep : e->collect.value, e->collect.sym, &found, an->a);
    RegionPlan *p = plan_of(an, e);
    p->guards = guards_of(an, &found);
    if (compact)
        cover_one(e->collect.value, e->collect.sym, &also, an->a);
    for (int i = 0; i < also.n; i++) {
        Node *m = also.v[i];
        if (has_view(&p->guards, m->index.base->name.sym))
            m->index.covered = true;
    }
}

/* ------------------------------------------------------------ fusion */

/* How many statements from stmts[i] on run as one fused region (at least
 * 2), or 0: every pair of the run must be fusable, not only each with the
 * first. */
static int fused_run(Ana *an, const Vec *stmts, int i)
{
    Node *s = stmts->v[i];
    if (!s || s->kind != N_PARALLEL || !an->fuse)
        return 0;
    int k = i + 1;
    while (k < stmts->n && par_fusable(an->a, s, stmts->v[k])) {
        bool ok = true;
        for (int m = i + 1; m < k && ok; m++)
            ok = par_fusable(an->a, stmts->v[m], stmts->v[k]);
        if (!ok)
            break;
        k++;
    }
    return k - i >= 2 ? k - i : 0;
}

static void analyze_stmts(Ana *an, const Vec *stmts)
{
    for (int i = 0; i < stmts->n; i++) {
        int n = fused_run(an, stmts, i);
        if (!n)
            continue;
        RegionPlan *p = plan_of(an, stmts->v[i]);
        p->fused = n;
        p->group_guards = region_guards(an, (Node **)stmts->v + i, n);
        for (int k = i; k < i + n; k++)
            plan_of(an, stmts->v[k])->in_run = true;
        i += n - 1;
    }
}

/* ------------------------------------------------------------ the walk */

static bool analyze_visit(Node *n, void *p)
{
    Ana *an = p;
    switch (n->kind) {
    case N_BLOCK: case N_UNSAFE: case N_TASK: analyze_stmts(an, &n->block.stmts); return true;
    case N_PARALLEL: analyze_region(an, n); return true;
    case N_COLLECT:
        if (n->collect.device)
            analyze_collect(an, n);
        return true;
    case N_SPAWN: return false;   /* a spawned region hoists nothing, and holds no region */
    case N_CLOSURE: {             /* its own function: no plan of its own, so no fusion */
        bool fuse = an->fuse;
        int vector = an->vector;
        an->fuse = false;
        an->vector = 0;
        par_walk(n->fn.body, analyze_visit, an);
        an->fuse = fuse;
        an->vector = vector;
        return false;
    }
    default: return true;
    }
}

Analysis *analyze_program(Arena *a, const Check *c)
{
    Analysis *out = arena_alloc(a, sizeof *out);
    Ana an = {a, c, out, false, 0};
    for (int i = 0; i < c->fns.n; i++) {
        Node *fn = c->fns.v[i];
        PlanInfo plan = fn->fn.id ? par_plan_for(c->program, fn->fn.id) : (PlanInfo){0};
        an.fuse = plan.fuse;
        an.vector = plan.vector;
        par_walk(fn->fn.body, analyze_visit, &an);
    }
    return out;
}

const RegionPlan *analysis_of(const Analysis *an, const Node *n)
{
    const RegionPlan *p = an ? ptrmap_get(&an->plans, n) : NULL;
    if (!p)
        die("analysis: nothing recorded for the %s at line %d", node_kind_name(n->kind), n->span.line);
    return p;
}
