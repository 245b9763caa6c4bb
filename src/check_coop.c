/*
 * check_coop.c: cooperative regions (issue 13): their typing, and the rules
 * of one block's threads (devices.md, "Cooperative regions").
 *
 * Their typing is check_stmt.c's (check_coop, check_shared, check_barrier).
 * The rules (coop_rules, in the parallel-rules pass), on the symbolic core:
 *   E-COOP-BARRIER  a barrier under a condition whose value differs between
 *                   the block's threads, in a loop whose trip count does, or
 *                   in a loop a break or continue can leave early
 *   E-COOP-WARP     a warp operation under a condition that splits a warp
 *   then one block is run, thread by thread, with the thread's names as
 *   constants and the block's names and everything from outside as
 *   unknowns (sym.h): every access of a shared array gives an element, a
 *   phase (the barriers before it) and a place in the thread's order, and
 *   E-COOP-CONFLICT  two threads write one element in a phase
 *   E-COOP-UNORDERED a thread reads what another writes before it in the
 *                    phase
 *   E-COOP-REUSE     a thread writes over what another reads before it in
 *                    the phase
 *   E-COOP-UNWRITTEN an unzeroed array's element read that no thread surely
 *                    wrote first
 *   E-COOP-UNDECIDED an element the run cannot name where a write is
 *                    involved, or a barrier in a loop it cannot count
 * are reported with the threads, the element and both lines.
 *
 * The phase rule over the accesses a run records is coop_phase.c's (what
 * the two share: coop.h). Arrays from outside the region are
 * coop_global.c's (E-COOP-GLOBAL).
 *
 * Requires: a typed program. Guarantees, for a region it passes: the phase
 * rule holds for its shared arrays, barriers and warp operations are
 * reached as the page says. The lowering is the next step of issue 13:
 * until then every region is also refused with E-UNSUPPORTED, after these
 * rules, so none is accepted unbuilt.
 */
#include "check.h"
#include "coop.h"
#include "layout.h"
#include "par.h"
#include "sym.h"
#include "wide.h"

#include <stdlib.h>
#include <string.h>

enum { UNROLL_LIMIT = 256, MAX_CONDS = 16, WORLD_BITS = 6 };


/* ------------------------------------------------------------ a block */

/* Binds the thread names of thread `flat` as constants. */
static void bind_thread(const Block *B, SEnv *e, int64_t flat)
{
    for (int i = 0; i < B->nt; i++) {
        senv_bind(e, B->tsyms->v[i], (SVal){sform_const(flat % B->ext[i]), true});
        flat /= B->ext[i];
    }
}

/* A shared array the phase rule follows. A pipeline's stages are the stage
 * rule's (check_stage.c): no thread writes them, a fill does, and a read
 * between a wait and the next barrier after its release is in order. */
static bool is_shared_view(const Node *v)
{
    return v && v->ty && v->ty->kind == TY_VIEW && v->ty->shared && !v->ty->pipeline;
}

/* --------------------------------------------- barriers and warps, statically */

/* A condition around a barrier or a warp operation: what it says, and
 * whether its value is the same in every thread of the block, or of a warp. */
typedef struct {
    Node *node;
    SCond conds[MAX_CONDS];
    int n;
    bool uniform;         /* the same in every thread of the block */
    bool warp;            /* the same in every thread of a warp: a vote's answer, a warp reduction's */
} Guard;

typedef struct {
    Block *B;
    SEnv *env;            /* thread names unknowns that differ between threads */
    SKey *keys[3];        /* their keys */
    Guard *guards[64];
    int ng;
    int loops_with_exit;  /* enclosing loops a break or continue can leave early */
    PtrSet warp_lets;     /* immutable locals whose value is the same in every thread of a warp */
} Uni;

/* Whether an element read has one value wherever every thread of the block
 * (or of a warp) reads it: an element of a shared array does, since the
 * phase rule leaves no thread writing it in a phase where another reads it
 * (and the run of the block checks that, read by read); so does an element
 * of an outside array the body never writes. */
static bool elem_fixed(void *ctx, Node *elem)
{
    const Block *B = ctx;
    const Sym *root = view_root(elem->index.base);
    return root && root->ty && root->ty->kind == TY_VIEW && (root->ty->shared || !ptrset_has(&B->written, root));
}

/* The value of the integer form f, thread by thread (false: it names more
 * than the thread's names), the same in the 32 threads of each warp. */
static bool lanes_agree(const Uni *u, const SForm *f)
{
    const SKey *keys[3];
    SNum vals[3], first = 0, v;
    for (int i = 0; i < u->B->nt; i++)
        keys[i] = u->keys[i];
    SAssign as = {keys, vals, u->B->nt};
    for (int64_t t = 0; t < u->B->T; t++) {
        int64_t flat = t;
        for (int i = 0; i < u->B->nt; i++) {
            vals[i] = flat % u->B->ext[i];
            flat /= u->B->ext[i];
        }
        if (!sform_eval(f, &as, &v))
            return false;
        if (t % 32 == 0)
            first = v;
        else if (v != first)
            return false;
    }
    return true;
}

static bool is_vote_call(const Node *e)
{
    return e->kind == N_CALL && e->call.ck == CALL_BUILTIN &&
           (e->call.builtin == B_WARP_ANY || e->call.builtin == B_WARP_ALL || e->call.builtin == B_WARP_BALLOT);
}

/* Is e's value the same in every thread of a warp? Where it is the same in
 * every thread of the block; a vote (devices.md: "each gives every thread of
 * the warp the same answer") and a warp reduction (every thread gets its
 * answer); a form of the thread's names that takes one value in each warp
 * (t / 32); and what is computed from those alone. */
static bool warp_uniform(Uni *u, Node *e)
{
    if (!e)
        return true;
    SVal v = sym_eval(u->env, e);
    if (v.uniform || (!v.f.any && e->ty && type_is_int(e->ty) && lanes_agree(u, &v.f)))
        return true;
    switch (e->kind) {
    case N_NAME: return e->name.sym && ptrset_has(&u->warp_lets, e->name.sym);
    case N_UNARY: return warp_uniform(u, e->unary.a);
    case N_BINARY: return warp_uniform(u, e->binary.a) && warp_uniform(u, e->binary.b);
    case N_COLLECT: return e->collect.mode == MODE_WARP && e->collect.kind == COLLECT_REDUCE;
    case N_INDEX:
        return e->index.base && e->index.base->ty && e->index.base->ty->kind == TY_VIEW &&
               elem_fixed(u->B, e) && warp_uniform(u, e->index.index);
    case N_CALL:
        if (is_vote_call(e))
            return true;
        if (e->call.ck != CALL_CONVERT && e->call.ck != CALL_MATH &&
            !(e->call.ck == CALL_BUILTIN && (e->call.builtin == B_MIN || e->call.builtin == B_MAX ||
                                             e->call.builtin == B_SHL || e->call.builtin == B_SHR ||
                                             e->call.builtin == B_ABS)))
            return false;
        for (int i = 0; i < e->call.args.n; i++)
            if (!warp_uniform(u, e->call.args.v[i]))
                return false;
        return true;
    default:
        return false;
    }
}

static bool is_thread_name(const Block *B, const Sym *s)
{
    for (int i = 0; i < B->nt; i++)
        if (B->tsyms->v[i] == s)
            return true;
    return false;
}

/* What makes e's value differ between the block's threads (between the
 * threads of a warp, where warp): the first part of it that does, in words,
 * for a message. */
static const char *why_differs(Uni *u, Node *e, bool warp, int depth)
{
    Arena *a = u->B->a;
    if (!e || depth > 6)
        return "a value the checker cannot follow";
    const char *text = expand_expr_short(a, e, 40);
    switch (e->kind) {
    case N_NAME: {
        const Sym *s = e->name.sym;
        if (s && is_thread_name(u->B, s))
            return arena_printf(a, "the thread's name `%s`", s->id);
        if (s && ptrset_has(&u->warp_lets, s))
            return arena_printf(a, "`%s`, a vote's answer or a warp reduction's, the same in every thread of a warp "
                                "but not across the block", s->id);
        if (s && !s->mut && s->decl && s->decl->kind == N_LET && s->decl->let.init)
            return arena_printf(a, "`%s` (line %d), which is %s", s->id, s->decl->span.line,
                                why_differs(u, s->decl->let.init, warp, depth + 1));
        if (s && s->mut)
            return arena_printf(a, "`%s`, a `let mut` assigned a value that differs between threads, or under a "
                                "condition that does", s->id);
        return arena_printf(a, "`%s`", text);
    }
    case N_UNARY: return why_differs(u, e->unary.a, warp, depth);
    case N_BINARY: {
        bool a_ok = warp ? warp_uniform(u, e->binary.a) : sym_eval(u->env, e->binary.a).uniform;
        return why_differs(u, a_ok ? e->binary.b : e->binary.a, warp, depth);
    }
    case N_COLLECT:
        return arena_printf(a, "a warp reduction, `%s`: the same in every thread of a warp, not across the block", text);
    case N_INDEX: {
        const Sym *root = view_root(e->index.base);
        if (root && !elem_fixed(u->B, e))
            return arena_printf(a, "an element of `%s`, which the region writes", root->id);
        return arena_printf(a, "an element of `%s` at an index that differs between threads: %s", root ? root->id : "?",
                            why_differs(u, e->index.index, warp, depth + 1));
    }
    case N_CALL:
        if (is_vote_call(e))
            return arena_printf(a, "a vote, `%s`: the same in every thread of a warp, not across the block", text);
        if (e->call.ck == CALL_BUILTIN && builtin_is_atomic(e->call.builtin))
            return arena_printf(a, "what an atomic update returns (`%s`), which differs between threads", text);
        if (e->call.ck == CALL_BUILTIN && e->call.builtin >= B_SHUFFLE && e->call.builtin <= B_WARP_MATCH)
            return arena_printf(a, "`%s`, which differs from lane to lane", text);
        for (int i = 0; i < e->call.args.n; i++) {
            Node *x = e->call.args.v[i];
            if (!(warp ? warp_uniform(u, x) : sym_eval(u->env, x).uniform))
                return why_differs(u, x, warp, depth);
        }
        return arena_printf(a, "what `%s` returns", text);
    default:
        return arena_printf(a, "`%s`", text);
    }
}

static void guard_push(Uni *u, Node *c, bool truth, bool uniform, bool warp)
{
    Guard *g = arena_alloc(u->B->a, sizeof *g);
    g->node = c;
    g->uniform = uniform;
    g->warp = uniform || warp;
    g->n = c ? sym_conds(u->env, c, truth, g->conds, MAX_CONDS) : 1;
    if (!c)
        g->conds[0] = (SCond){sform_any(), T_EQ};   /* a for loop's trip: not a comparison the core states */
    if (u->ng < 64)
        u->guards[u->ng] = g;
    u->ng++;
    if (uniform && c)
        ptrset_add(u->B->a, &u->B->uniform, c);
}

/* The guard's truth in thread `flat`; false with *known false when the
 * guard names more than the thread's names. */
static bool guard_in(const Uni *u, const Guard *g, int64_t flat, bool *known)
{
    const SKey *keys[3];
    SNum vals[3];
    for (int i = 0; i < u->B->nt; i++) {
        keys[i] = u->keys[i];
        vals[i] = flat % u->B->ext[i];
        flat /= u->B->ext[i];
    }
    SAssign as = {keys, vals, u->B->nt};
    *known = true;
    for (int c = 0; c < g->n; c++) {
        bool k;
        if (!scond_holds(&g->conds[c], &as, &k)) {
            *known = k && *known;
            if (k)
                return false;
        }
    }
    return *known;
}

/* Does the guard split nothing the operation needs whole: the same in every
 * thread of the block (a barrier), or of a warp (a warp operation)? */
static bool guard_whole(const Guard *g, bool warp)
{
    return g->uniform || (warp && g->warp);
}

/* Whether thread `flat` reaches the point the guards lead to: every guard
 * holds that the thread's names decide, and every other may differ between
 * threads (the rest hold in all the threads that matter or in none).
 * *known false when one of them names more than the thread's names; *first
 * is then that guard. */
static bool reaches(const Uni *u, int64_t flat, bool warp, bool *known, const Guard **first)
{
    *known = true;
    for (int i = 0; i < u->ng && i < 64; i++) {
        const Guard *g = u->guards[i];
        bool k, h = guard_in(u, g, flat, &k);
        if (!k && guard_whole(g, warp))
            continue;   /* the same in all the threads that matter: it keeps them together */
        if (!k) {
            *known = false;
            *first = g;
            return false;
        }
        if (!h)
            return false;
    }
    return true;
}

/* The innermost guard that may differ between threads (for messages). */
static const Guard *split_guard(const Uni *u, bool warp)
{
    for (int i = (u->ng < 64 ? u->ng : 64) - 1; i >= 0; i--)
        if (!guard_whole(u->guards[i], warp))
            return u->guards[i];
    return NULL;
}

static const char *guard_text(const Uni *u, const Guard *g)
{
    if (!g || !g->node)
        return "a loop whose trip count differs between threads";
    return arena_printf(u->B->a, "`%s` (line %d)", expand_expr_short(u->B->a, g->node, 60), g->node->span.line);
}

/* Why the guard g may differ between threads, for a message. */
static const char *guard_why(Uni *u, const Guard *g, bool warp)
{
    if (!g || !g->node)
        return "its trip count may differ between threads";
    return arena_printf(u->B->a, "it depends on %s", why_differs(u, g->node, warp, 0));
}

/* WHAT: "a barrier", or a pipeline's operation ("tiles.fill"), which the
 * whole block reaches together too. */
static void check_barrier_guards(Uni *u, Node *at, const char *what)
{
    Block *B = u->B;
    bool pipe = strcmp(what, "a barrier") != 0;
    if (u->loops_with_exit) {
        if (pipe)
            coop_report(B, at->span, E_STAGE_LOOP, "take the break or continue out of the loop",
                   arena_printf(B->a, "%s in a loop that a break or continue can leave early: the stages would be "
                                "in another state on each way out", what));
        else
            coop_report(B, at->span, E_COOP_BARRIER, "take the break or continue out of the loop, or the barrier out of it",
                   "a barrier in a loop that a break or continue can leave early: the threads that leave would never "
                   "arrive");
        return;
    }
    const Guard *g = split_guard(u, false);
    if (!g)
        return;
    /* every thread of the block reaches it, or none does: then the
     * conditions split nothing, whatever names they mention */
    int64_t in = -1, out = -1;
    bool known = true;
    const Guard *unknown = NULL;
    for (int64_t t = 0; t < B->T && known && (in < 0 || out < 0); t++) {
        bool r = reaches(u, t, false, &known, &unknown);
        if (known && r && in < 0)
            in = t;
        if (known && !r && out < 0)
            out = t;
    }
    if (known && (in < 0 || out < 0))
        return;
    const Guard *at_g = known ? g : unknown;
    const char *why = known
        ? arena_printf(B->a, "%s: thread %s reaches it and thread %s never does", guard_why(u, at_g, false),
                       coop_thread_str(B, in), coop_thread_str(B, out))
        : arena_printf(B->a, "%s", guard_why(u, at_g, false));
    coop_report(B, at->span, E_COOP_BARRIER,
           arena_printf(B->a, "every thread of the block must reach each %s: move it out of the condition",
                        pipe ? "pipeline operation" : "barrier"),
           arena_printf(B->a, "%s under %s, whose value may differ between the block's threads: %s", what,
                        guard_text(u, at_g), why));
}

/* A pipeline's operation: reached by the whole block together, and a fill
 * brings in one part of its array, the same in every thread. */
static void check_pipe_op(Uni *u, Node *call, const Sym *p)
{
    const char *op = call->call.callee->field.id;
    check_barrier_guards(u, call, arena_printf(u->B->a, "%s.%s", p->id, op));
    for (int i = 0; i < call->call.args.n && !u->B->failed; i++) {
        Node *a = call->call.args.v[i];
        if (a->ty && a->ty->kind == TY_VIEW ? view_root(a) != NULL : sym_eval(u->env, a).uniform)
            continue;
        coop_report(u->B, a->span, E_COOP_BARRIER, "compute the fill's arguments from values the whole block shares",
               arena_printf(u->B->a, "%s.%s's %s `%s` may differ between the block's threads (%s): a fill brings one "
                            "part of one array into the stage for the whole block", p->id, op,
                            pipe_fill_arg(call, i), expand_expr_short(u->B->a, a, 40),
                            why_differs(u, a, false, 0)));
    }
}

static void check_warp_guards(Uni *u, Node *at, const char *what)
{
    Block *B = u->B;
    const Guard *g = split_guard(u, true);
    if (!g)
        return;
    /* whole warps: the threads of each warp all reach it or none does */
    int64_t bad_a = -1, bad_b = -1;
    bool known = true;
    const Guard *unknown = NULL;
    for (int64_t w = 0; w * 32 < B->T && known && bad_a < 0; w++) {
        bool first = reaches(u, w * 32, true, &known, &unknown);
        for (int64_t l = 1; l < 32 && known && bad_a < 0; l++)
            if (reaches(u, w * 32 + l, true, &known, &unknown) != first && known) {
                bad_a = w * 32;
                bad_b = w * 32 + l;
            }
    }
    if (known && bad_a < 0)
        return;
    const Guard *at_g = known ? g : unknown;
    const char *why = known
        ? arena_printf(B->a, "threads %s and %s of one warp disagree on it", coop_thread_str(B, bad_a), coop_thread_str(B, bad_b))
        : arena_printf(B->a, "the checker cannot show it keeps each warp whole: %s", guard_why(u, at_g, true));
    coop_report(B, at->span, E_COOP_WARP, "put warp operations under conditions that keep each warp whole: `if t < 32`, "
           "`if t / 32 == w`, or a vote",
           arena_printf(B->a, "%s under %s: %s", what, guard_text(u, at_g), why));
}

static void uni_stmt(Uni *u, Node *n);

/* A fragment operation: under conditions that keep each warp whole, and
 * naming one fragment in every thread of the warp: its row and column, or
 * its fill's value, the same across the warp. */
static void check_frag_op(Uni *u, Node *e)
{
    const char *what = e->call.builtin == B_MMA_FILL ? "a fragment's fill"
                                                     : arena_printf(u->B->a, "%s(..)", builtin_name((Builtin)e->call.builtin));
    check_warp_guards(u, e, what);
    int first = e->call.builtin == B_MMA_FILL ? 0 : 2, last = e->call.builtin == B_MMA_FILL ? 0 : 3;
    if (e->call.builtin == B_MMA_UNORDERED)
        return;
    for (int i = first; i <= last && i < e->call.args.n && !u->B->failed; i++) {
        Node *a = e->call.args.v[i];
        if (warp_uniform(u, a))
            continue;
        coop_report(u->B, a->span, E_COOP_WARP, "give every thread of a warp the same value: the warp's number t / 32, "
               "loop counters and constants",
               arena_printf(u->B->a, "the lanes of a warp name one fragment together, and %s's %s, `%s`, differs "
                            "within a warp: %s", what, first == 0 ? "value" : i == 2 ? "row" : "column",
                            expand_expr_short(u->B->a, a, 40), why_differs(u, a, true, 0)));
    }
}

/* An assignment of a fragment that every lane of a warp holds the same
 * (all but an mma.sync accumulator, whose lanes hold their own elements)
 * keeps the warp whole, as the operation that made it did. */
static void check_frag_assign(Uni *u, Node *n)
{
    const Type *t = n->assign.lhs ? n->assign.lhs->ty : NULL;
    if (t && t->kind == TY_FRAGMENT && t->frag != FRAG_MMA_ACC)
        check_warp_guards(u, n, arena_printf(u->B->a, "an assignment of %s", type_str(u->B->a, t)));
}

/* Warp operations in an expression; the right side of && and || runs only
 * where the left one lets it. Notes the shared accesses whose index is the
 * same in every thread. */
static void uni_expr(Uni *u, Node *e)
{
    if (!e || u->B->failed)
        return;
    switch (e->kind) {
    case N_BINARY:
        uni_expr(u, e->binary.a);
        if (e->binary.op == T_ANDAND || e->binary.op == T_OROR) {
            SVal l = sym_eval(u->env, e->binary.a);
            int ng = u->ng;
            guard_push(u, e->binary.a, e->binary.op == T_ANDAND, l.uniform, !l.uniform && warp_uniform(u, e->binary.a));
            uni_expr(u, e->binary.b);
            u->ng = ng;
        } else {
            uni_expr(u, e->binary.b);
        }
        return;
    case N_UNARY: uni_expr(u, e->unary.a); return;
    case N_INDEX:
        uni_expr(u, e->index.base);
        uni_expr(u, e->index.index);
        if (is_shared_view(e->index.base) && sym_eval(u->env, e->index.index).uniform)
            ptrset_add(u->B->a, &u->B->uniform, e);
        return;
    case N_SLICE: uni_expr(u, e->slice.base); uni_expr(u, e->slice.lo); uni_expr(u, e->slice.hi); return;
    case N_FIELD: uni_expr(u, e->field.base); return;
    case N_COLLECT:
        if (e->collect.mode == MODE_WARP)
            check_warp_guards(u, e, arena_printf(u->B->a, "`reduce %s warp`", e->collect.op ? e->collect.op : "?"));
        uni_expr(u, e->collect.value);
        uni_expr(u, e->collect.keep);
        return;
    case N_CALL:
        for (int i = 0; i < e->call.args.n; i++)
            uni_expr(u, e->call.args.v[i]);
        if (e->call.ck == CALL_BUILTIN && e->call.builtin >= B_SHUFFLE && e->call.builtin <= B_WARP_MATCH)
            check_warp_guards(u, e, arena_printf(u->B->a, "%s(..)", builtin_name((Builtin)e->call.builtin)));
        if (frag_is_warp_op(e))
            check_frag_op(u, e);
        return;
    default:
        return;
    }
}

/* Does a loop's body hold a break or continue of its own (not of a loop
 * inside it)? */
static bool own_exit(Node *n)
{
    if (!n)
        return false;
    switch (n->kind) {
    case N_BREAK: case N_CONTINUE: return true;
    case N_BLOCK: case N_UNSAFE:
        for (int i = 0; i < n->block.stmts.n; i++)
            if (own_exit(n->block.stmts.v[i]))
                return true;
        return false;
    case N_IF: return own_exit(n->if_.then) || own_exit(n->if_.els);
    default: return false;
    }
}

/* A loop's body, once for all its iterations: the loop's guard (its trip
 * count, the same in every thread or not) around it. */
static void uni_loop(Uni *u, Node *n, bool uniform, bool warp)
{
    int ng = u->ng;
    bool exits = own_exit(n->loop.body);
    guard_push(u, n->kind == N_WHILE ? n->loop.cond : NULL, true, uniform, warp);
    if (uniform)
        ptrset_add(u->B->a, &u->B->uniform, n);
    u->loops_with_exit += exits;
    uni_stmt(u, n->loop.body);
    senv_havoc_assigned(u->env, n->loop.body);
    u->loops_with_exit -= exits;
    u->ng = ng;
}

static void uni_let(Uni *u, Node *n)
{
    uni_expr(u, n->let.init);
    sym_let(u->env, n);
    Sym *s = n->let.sym;
    if (s && !s->mut && n->let.init && !sym_eval(u->env, n->let.init).uniform && warp_uniform(u, n->let.init))
        ptrset_add(u->B->a, &u->warp_lets, s);
}

static void uni_if(Uni *u, Node *n)
{
    uni_expr(u, n->if_.cond);
    SVal c = sym_eval(u->env, n->if_.cond);
    bool warp = !c.uniform && warp_uniform(u, n->if_.cond);
    int ng = u->ng, mark = senv_mark(u->env);
    guard_push(u, n->if_.cond, true, c.uniform, warp);
    uni_stmt(u, n->if_.then);
    u->ng = ng;
    SJoin *j = senv_join_begin(u->env, mark);
    guard_push(u, n->if_.cond, false, c.uniform, warp);
    uni_stmt(u, n->if_.els);
    u->ng = ng;
    senv_join_end(u->env, j, c.uniform);
}

static void uni_stmt(Uni *u, Node *n)
{
    if (!n || u->B->failed)
        return;
    switch (n->kind) {
    case N_BLOCK: case N_UNSAFE:
        for (int i = 0; i < n->block.stmts.n && !u->B->failed; i++)
            uni_stmt(u, n->block.stmts.v[i]);
        return;
    case N_LET: uni_let(u, n); return;
    case N_ASSIGN:
        uni_expr(u, n->assign.rhs);
        uni_expr(u, n->assign.lhs);
        check_frag_assign(u, n);
        sym_assign(u->env, n);
        return;
    case N_EXPR_STMT: {
        const Sym *p = pipe_op_of(n->unary.a);
        uni_expr(u, n->unary.a);
        if (p)
            check_pipe_op(u, n->unary.a, p);
        if (n->unary.a)
            sym_lend(u->env, n->unary.a);
        return;
    }
    case N_BARRIER: check_barrier_guards(u, n, "a barrier"); return;
    case N_IF: uni_if(u, n); return;
    case N_FOR: {
        uni_expr(u, n->loop.lo);
        uni_expr(u, n->loop.hi);
        SVal lo = sym_eval(u->env, n->loop.lo), hi = sym_eval(u->env, n->loop.hi);
        bool uniform = lo.uniform && hi.uniform;
        bool warp = !uniform && warp_uniform(u, n->loop.lo) && warp_uniform(u, n->loop.hi);
        senv_havoc_assigned(u->env, n->loop.body);
        senv_counter(u->env, n->loop.sym, &lo, &hi);
        uni_loop(u, n, uniform, warp);
        return;
    }
    case N_WHILE: {
        /* the condition as the loop sees it: after any iteration, its
         * strides followed */
        senv_while_counter(u->env, n);
        uni_expr(u, n->loop.cond);
        bool uniform = sym_eval(u->env, n->loop.cond).uniform;
        uni_loop(u, n, uniform, !uniform && warp_uniform(u, n->loop.cond));
        return;
    }
    default:
        uni_expr(u, n);
        return;
    }
}

static void check_uniform(Block *B)
{
    Uni u = {B, senv_new(B->a, SN_FIXED), {0}, {0}, 0, 0, {0}};
    senv_hook(u.env, elem_fixed, B);
    senv_elems_opaque(u.env);
    for (int i = 0; i < B->nt; i++) {
        SForm ext = sform_const(B->ext[i]);
        u.keys[i] = senv_lane(u.env, B->tsyms->v[i], &ext);
    }
    uni_stmt(&u, B->body);
}

/* ------------------------------------------------------------ one block, thread by thread */

typedef struct {
    Block *B;
    SEnv *env;
    int64_t thread;
    int phase;
    int iter[4];
    int niter;
    int maybe;            /* undecided conditions and uncounted loops around the walk */
    int split;            /* of those, the ones that may differ between threads */
    Vec *evs;             /* Ev*, in each thread's order */
    int max_phase;
    unsigned world;       /* the paths taken at undecided conditions around barriers, a bit each */
    int decisions;        /* how many such conditions this run met */
} Run;

static int pos_of(const Node *n)
{
    return n ? n->span.line * 4096 + (n->span.col < 4094 ? n->span.col : 4094) : 0;
}

static bool end_visit(Node *n, void *c)
{
    int *m = c, p = pos_of(n);
    *m = p > *m ? p : *m;
    return true;
}

/* Where an assignment's write happens: after everything the statement
 * reads, so just past the last of its parts, whichever line that is on
 * (the same in every thread). */
static int end_pos(Block *B, Node *n)
{
    intptr_t p = (intptr_t)ptrmap_get(&B->ends, n);
    if (!p) {
        int m = 0;
        walk_tree(n, WALK_CODE, end_visit, &m);
        p = m + 1;
        ptrmap_put(B->keep, &B->ends, n, (void *)p);
    }
    return (int)p;
}

static Ev *record_ev(Run *r, Node *at, const Sym *arr, EvKind k, int pos)
{
    Ev *e = arena_alloc(r->B->a, sizeof *e);
    e->arr = arr;
    e->kind = k;
    e->node = at;
    e->phase = r->phase;
    e->thread = r->thread;
    e->sure = r->maybe == 0;
    e->uniform = ptrset_has(&r->B->uniform, at);
    e->together = r->split == 0;
    e->niter = r->niter;
    memcpy(e->iter, r->iter, sizeof e->iter);
    e->pos = pos;
    e->known = false;
    vec_push(r->B->a, r->evs, e);
    return e;
}

static void record(Run *r, Node *at, Node *view, Node *idx, EvKind k, int pos)
{
    const Sym *arr = view_root(view);
    if (!arr)
        return;
    Ev *e = record_ev(r, at, arr, k, pos);
    if (idx && view->kind == N_NAME) {
        SVal v = sym_eval(r->env, idx);
        e->known = sform_is_const(&v.f, &e->elem);
    }
}

static void run_stmt(Run *r, Node *n);
static void run_expr(Run *r, Node *e);

/*
 * mma_load and mma_store of a shared array: the elements of fragment
 * (i, j), through the tile's layout. A load or a store of a whole warp
 * (every family's operands, and a WMMA accumulator, whose share no one
 * states) is one access by the warp as a whole, made where its lane 0 runs
 * it: a writer apart from every thread, its own lanes included, so anything
 * else touching those elements in the phase meets it (numerics.md: "any
 * access to what it wrote before a barrier, the storing thread's own
 * included, is refused"). The warp's loads and its stores are two writers
 * apart, so a warp's load of what it stored meets the store. An mma.sync
 * accumulator is each lane's own elements (the PTX ISA's share).
 */
static void run_frag(Run *r, Node *e)
{
    bool store = e->call.builtin == B_MMA_STORE;
    Node *tile = e->call.args.v[0], *ln = e->call.args.v[1];
    for (int i = 2; i < e->call.args.n; i++)
        run_expr(r, e->call.args.v[i]);
    const Type *f = store ? ((Node *)e->call.args.v[4])->ty : e->ty;
    const Sym *arr = view_root(tile);
    const Layout *L = ln->kind == N_NAME && ln->name.sym ? ln->name.sym->layout : NULL;
    if (!is_shared_view(tile) || !arr || !L || !f || f->kind != TY_FRAGMENT) {
        run_expr(r, tile);
        return;
    }
    EvKind k = store ? EV_WRITE : EV_READ;
    int pos = store ? end_pos(r->B, e) : pos_of(e);
    SNum fi = 0, fj = 0;
    SVal vi = sym_eval(r->env, e->call.args.v[2]), vj = sym_eval(r->env, e->call.args.v[3]);
    if (!sform_is_const(&vi.f, &fi) || !sform_is_const(&vj.f, &fj)) {
        record_ev(r, e, arr, k, pos);   /* an element the run cannot name */
        return;
    }
    int64_t el[512];
    bool whole;
    int n = frag_elems(f, L, (int64_t)fi, (int64_t)fj, (int)(r->thread % 32), el, &whole);
    if (whole && r->thread % 32 != 0)
        return;   /* the warp's access, made where its lane 0 runs */
    for (int q = 0; q < n; q++) {   /* n is 0 outside the tile: the operation's guard stops the thread */
        Ev *ev = record_ev(r, e, arr, k, pos);
        if (whole)
            ev->thread = r->B->T + 2 * (r->thread / 32) + store;
        ev->elem = el[q];
        ev->known = true;
    }
}

/* load_wide / store_wide of a shared array (wide.h): each of its K
 * elements an access of its own, a store's after everything it reads. */
static void run_wide(Run *r, Node *e)
{
    run_expr(r, wide_index(e));
    run_expr(r, wide_value(e));
    bool store = wide_is_store(e);
    for (int64_t k = 0; k < wide_count(e); k++) {
        int before = r->evs->n;
        record(r, e, wide_view(e), wide_index(e), store ? EV_WRITE : EV_READ, store ? end_pos(r->B, e) : pos_of(e));
        if (r->evs->n > before)
            ((Ev *)r->evs->v[before])->elem += k;
    }
}

/* The shared reads an expression makes; && and || decided where the
 * thread's names decide them. */
static void run_expr(Run *r, Node *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case N_BINARY:
        run_expr(r, e->binary.a);
        if (e->binary.op == T_ANDAND || e->binary.op == T_OROR) {
            bool left;
            if (sym_truth(r->env, e->binary.a, &left)) {
                if (left == (e->binary.op == T_ANDAND))
                    run_expr(r, e->binary.b);
                return;
            }
            bool split = !ptrset_has(&r->B->uniform, e->binary.a);
            r->maybe++;
            r->split += split;
            run_expr(r, e->binary.b);
            r->maybe--;
            r->split -= split;
            return;
        }
        run_expr(r, e->binary.b);
        return;
    case N_UNARY: run_expr(r, e->unary.a); return;
    case N_INDEX:
        run_expr(r, e->index.index);
        if (is_shared_view(e->index.base))
            record(r, e, e->index.base, e->index.index, EV_READ, pos_of(e));
        else
            run_expr(r, e->index.base);
        return;
    case N_SLICE:
        run_expr(r, e->slice.lo);
        run_expr(r, e->slice.hi);
        if (is_shared_view(e->slice.base))
            record(r, e, e->slice.base, NULL, EV_READ, pos_of(e));   /* a part: elements not followed */
        return;
    case N_FIELD: run_expr(r, e->field.base); return;
    case N_COLLECT: run_expr(r, e->collect.value); run_expr(r, e->collect.keep); return;
    case N_CALL: {
        Builtin b = (Builtin)e->call.builtin;
        bool atomic = e->call.ck == CALL_BUILTIN && builtin_is_atomic(b);
        if (wide_is(e) && is_shared_view(wide_view(e)))
            return run_wide(r, e);
        if (e->call.ck == CALL_BUILTIN && (b == B_MMA_LOAD || b == B_MMA_STORE) && e->call.args.n >= 4)
            return run_frag(r, e);
        for (int i = 0; i < e->call.args.n; i++) {
            Node *a = e->call.args.v[i];
            if (i == 0 && atomic && a->kind == N_INDEX && is_shared_view(a->index.base)) {
                run_expr(r, a->index.index);
                record(r, a, a->index.base, a->index.index, EV_ATOMIC, pos_of(a));
            } else if (is_shared_view(a)) {
                /* passed on: every element, read or written by the callee */
                Type *ft = e->call.callee ? e->call.callee->ty : NULL;
                Type *pt = ft && ft->kind == TY_FN && i < ft->params.n ? ft->params.v[i] : NULL;
                record(r, a, a, NULL, pt && pt->access == ACC_RW ? EV_WRITE : EV_READ, pos_of(e));
            } else {
                run_expr(r, a);
            }
        }
        return;
    }
    default:
        return;
    }
}

static void run_assign(Run *r, Node *n)
{
    Node *lhs = n->assign.lhs;
    run_expr(r, n->assign.rhs);
    if (lhs->kind == N_INDEX && is_shared_view(lhs->index.base)) {
        run_expr(r, lhs->index.index);
        if (n->assign.op != T_ASSIGN)   /* s[i] += v reads s[i] first */
            record(r, lhs, lhs->index.base, lhs->index.index, EV_READ, pos_of(lhs));
        /* the write happens after everything the statement reads */
        record(r, lhs, lhs->index.base, lhs->index.index, EV_WRITE, end_pos(r->B, n));
    } else {
        run_expr(r, lhs);
    }
    sym_assign(r->env, n);
}

static bool has_barrier(Node *n);

/* Entering an iteration of a loop the run cannot count: its counter and
 * what the body assigns unknown (a while loop's strides followed). */
static void iteration_unknown(Run *r, Node *n)
{
    if (n->kind == N_FOR) {
        SVal lo = sym_eval(r->env, n->loop.lo), hi = sym_eval(r->env, n->loop.hi);
        senv_havoc_assigned(r->env, n->loop.body);
        senv_counter(r->env, n->loop.sym, &lo, &hi);
    } else {
        senv_while_counter(r->env, n);
        run_expr(r, n->loop.cond);
    }
}

/* A loop the run cannot count, with a barrier in it. Its trip count is the
 * same in every thread (E-COOP-BARRIER), so the block runs it in one world
 * zero times and in another twice, each time with its counter and what the
 * body assigns unknown. That is every phase the loop can make: a phase
 * holds at most the end of one iteration and the start of the next (or
 * what precedes the loop and its first iteration, its last and what
 * follows, or, run zero times, what precedes and what follows), and any two
 * iterations i < j meet as the first and the second, each of them unknown. */
static void run_loop_phases(Run *r, Node *n)
{
    if (r->decisions == WORLD_BITS || r->niter == 4) {
        if (!r->B->failed)
            coop_report(r->B, n->span, E_COOP_UNDECIDED, "count the loop, or move its barrier out of deep loops",
                   arena_printf(r->B->a, "a barrier in a loop the checker cannot count (line %d), with %s: it would "
                                "run the block in too many ways", n->span.line,
                                r->niter == 4 ? "four loops around it" : "too many undecided paths before it"));
        return;
    }
    bool twice = (r->world >> r->decisions++) & 1;
    r->maybe++;
    r->niter++;
    for (int k = 0; twice && k < 2 && !r->B->failed; k++) {
        r->iter[r->niter - 1] = k;
        iteration_unknown(r, n);
        run_stmt(r, n->loop.body);
    }
    r->niter--;
    r->iter[r->niter] = 0;
    r->maybe--;
    if (!twice && n->kind == N_WHILE)
        run_expr(r, n->loop.cond);
    senv_havoc_assigned(r->env, n->loop.body);
}

static void run_loop_once(Run *r, Node *n)
{
    if (has_barrier(n->loop.body) && ptrset_has(&r->B->uniform, n))
        return run_loop_phases(r, n);
    /* a loop the run cannot count: walked once for every iteration, what it
     * does not sure */
    iteration_unknown(r, n);
    bool split = !ptrset_has(&r->B->uniform, n);
    r->maybe++;
    r->split += split;
    int phase = r->phase;
    run_stmt(r, n->loop.body);
    r->maybe--;
    r->split -= split;
    if (r->phase != phase && !r->B->failed)
        coop_report(r->B, n->span, E_COOP_UNDECIDED, "give a loop with a barrier in it constant bounds: `for k in 0..8`",
               arena_printf(r->B->a, "a barrier in a loop whose trip count the checker cannot count (line %d): "
                            "it cannot tell the phases apart", n->span.line));
    senv_havoc_assigned(r->env, n->loop.body);
}

static void run_for(Run *r, Node *n)
{
    run_expr(r, n->loop.lo);
    run_expr(r, n->loop.hi);
    SNum lo, count;
    if (!sym_trip(r->env, n, &lo, &count) || count > UNROLL_LIMIT || r->niter == 4)
        return run_loop_once(r, n);
    /* a break or continue may end an iteration early: what follows it in
     * the body is not sure */
    bool exits = own_exit(n->loop.body);
    r->maybe += exits;
    r->niter++;
    for (SNum k = 0; k < count && !r->B->failed; k++) {
        r->iter[r->niter - 1] = (int)k;
        senv_bind(r->env, n->loop.sym, (SVal){sform_const(lo + k), true});
        run_stmt(r, n->loop.body);
    }
    r->niter--;
    r->iter[r->niter] = 0;
    r->maybe -= exits;
}

/* A while loop, as a for over the same progression: iteration after
 * iteration while the thread's values decide its condition (its counter
 * advancing by a constant stride from a thread's name, say), then, from the
 * first iteration they do not decide, once for all the rest. */
static void run_while(Run *r, Node *n)
{
    if (r->niter == 4)
        return run_loop_once(r, n);
    bool exits = own_exit(n->loop.body);
    r->maybe += exits;
    r->niter++;
    bool done = false, decided = true;
    for (int k = 0; k < UNROLL_LIMIT && decided && !done && !r->B->failed; k++) {
        bool c;
        decided = sym_truth(r->env, n->loop.cond, &c);
        if (!decided)
            break;
        r->iter[r->niter - 1] = k;
        run_expr(r, n->loop.cond);
        done = !c;
        if (c)
            run_stmt(r, n->loop.body);
    }
    r->niter--;
    r->iter[r->niter] = 0;
    r->maybe -= exits;
    if (!done && !r->B->failed)
        run_loop_once(r, n);
}

static bool has_barrier_visit(Node *n, void *c)
{
    if (n->kind == N_BARRIER)
        *(bool *)c = true;
    return !*(bool *)c && n->kind != N_CLOSURE;
}

static bool has_barrier(Node *n)
{
    bool found = false;
    par_walk(n, has_barrier_visit, &found);
    return found;
}

static void run_if(Run *r, Node *n)
{
    run_expr(r, n->if_.cond);
    bool c;
    if (sym_truth(r->env, n->if_.cond, &c))
        return run_stmt(r, c ? n->if_.then : n->if_.els);
    if (has_barrier(n->if_.then) || has_barrier(n->if_.els)) {
        /* a barrier on a path the run cannot decide: the condition is the
         * same in every thread (E-COOP-BARRIER holds), so the block takes one
         * path, and the block is run once for each way (a "world") */
        if (r->decisions == WORLD_BITS) {
            if (!r->B->failed)
                coop_report(r->B, n->span, E_COOP_UNDECIDED, "decide fewer barriers by conditions known only when the region runs",
                       arena_printf(r->B->a, "more than %d conditions the checker cannot decide around barriers (the "
                                    "last `%s`, line %d): it would run the block in too many ways", WORLD_BITS,
                                    expand_expr_short(r->B->a, n->if_.cond, 60), n->span.line));
            return;
        }
        bool take = (r->world >> r->decisions++) & 1;
        return run_stmt(r, take ? n->if_.els : n->if_.then);
    }
    bool split = !ptrset_has(&r->B->uniform, n->if_.cond);
    int mark = senv_mark(r->env);
    r->maybe++;
    r->split += split;
    run_stmt(r, n->if_.then);
    SJoin *j = senv_join_begin(r->env, mark);
    run_stmt(r, n->if_.els);
    r->maybe--;
    r->split -= split;
    senv_join_end(r->env, j, true);
}

static void run_stmt(Run *r, Node *n)
{
    if (!n || r->B->failed)
        return;
    switch (n->kind) {
    case N_BLOCK: case N_UNSAFE:
        for (int i = 0; i < n->block.stmts.n; i++)
            run_stmt(r, n->block.stmts.v[i]);
        return;
    case N_LET: run_expr(r, n->let.init); sym_let(r->env, n); return;
    case N_ASSIGN: run_assign(r, n); return;
    case N_EXPR_STMT: run_expr(r, n->unary.a); if (n->unary.a) sym_lend(r->env, n->unary.a); return;
    case N_BARRIER:
        r->phase++;
        if (r->phase > r->max_phase)
            r->max_phase = r->phase;
        return;
    case N_IF: return run_if(r, n);
    case N_FOR: return run_for(r, n);
    case N_WHILE: return run_while(r, n);
    default: run_expr(r, n); return;
    }
}

/* ------------------------------------------------------------ the pass */

/* Every thread of the block, one way through the undecided conditions
 * around barriers, then the rules over what they did. Returns how many such
 * conditions the runs met. */
static int run_world(Block *B, Node *body, unsigned world)
{
    Vec evs = {0};
    int phases = 0, decisions = 0;
    ArenaMark mark = arena_mark(B->a);
    Arena *envs = arena_new();   /* each thread's environment, given back after it */
    for (int64_t t = 0; t < B->T && !B->failed; t++) {
        ArenaMark m = arena_mark(envs);
        Run r = {B, senv_new(envs, SN_FIXED), t, 0, {0}, 0, 0, 0, &evs, 0, world, 0};
        bind_thread(B, r.env, t);
        run_stmt(&r, body);
        if (r.max_phase > phases)
            phases = r.max_phase;
        if (r.decisions > decisions)
            decisions = r.decisions;
        arena_release(envs, m);
    }
    arena_free(envs);
    Vec arrays = {0};
    for (int i = 0; i < evs.n; i++) {
        const Sym *a = ((Ev *)evs.v[i])->arr;
        bool seen = false;
        for (int k = 0; k < arrays.n && !seen; k++)
            seen = arrays.v[k] == a;
        if (!seen)
            vec_push(B->a, &arrays, (void *)a);
    }
    for (int k = 0; k < arrays.n && !B->failed; k++)
        coop_check_array(B, arrays.v[k], &evs, phases);
    arena_release(B->a, mark);
    return decisions;
}

static bool written_visit(Node *n, void *c)
{
    Block *B = c;
    const Sym *root = NULL;
    if (n->kind == N_ASSIGN && n->assign.lhs->kind == N_INDEX)
        root = view_root(n->assign.lhs->index.base);
    if (n->kind == N_CALL) {
        bool atomic = n->call.ck == CALL_BUILTIN && builtin_is_atomic(n->call.builtin);
        Type *ft = n->call.ck == CALL_FN && n->call.callee ? n->call.callee->ty : NULL;
        for (int i = 0; i < n->call.args.n; i++) {
            Node *a = n->call.args.v[i];
            Type *pt = ft && ft->kind == TY_FN && i < ft->params.n ? ft->params.v[i] : NULL;
            if ((i == 0 && atomic && a->kind == N_INDEX) || (i == 0 && wide_is_store(n)))
                ptrset_add(B->a, &B->written, view_root(i == 0 && atomic ? a->index.base : a));
            else if (pt && pt->kind == TY_VIEW && pt->access == ACC_RW)
                ptrset_add(B->a, &B->written, view_root(a));
        }
    }
    if (root)
        ptrset_add(B->a, &B->written, root);
    return true;
}

static void check_block_rules(Ctx *x, Arena *scratch, Node *region, Node *body, const Vec *tsyms, const Vec *text)
{
    Block B = {x, scratch, region, body, tsyms, {1, 1, 1}, tsyms->n, 1, false, {0}, {0}, {0}, NULL};
    if (tsyms->n < 1 || tsyms->n > 3 || tsyms->n != text->n)
        return;
    for (int i = 0; i < tsyms->n; i++) {
        int64_t v;
        if (!sym_const(scratch, text->v[i], &v) || v <= 0)
            return;   /* E-COOP-SHAPE said so */
        B.ext[i] = v;
        B.T *= v;
    }
    if (B.T < 32 || B.T > 1024)
        return;
    walk_tree(body, WALK_CODE, written_visit, &B);   /* closures too */
    check_uniform(&B);
    if (B.failed)
        return;
    B.keep = arena_new();
    /* world 0 first; it says how many undecided conditions around barriers
     * the block meets, and the other worlds follow. A world may meet more
     * than those before it (the path a decision takes may hold more, a loop
     * run twice meets its body's twice): the worlds grow to cover them, so
     * every sequence of choices is run (a path's first k choices are some
     * world below 2^k, which meets its next decision and grows the set) */
    int worlds = 1;
    for (int w = 0; w < worlds && !B.failed; w++) {
        int decisions = run_world(&B, body, (unsigned)w);
        if ((1 << decisions) > worlds)
            worlds = 1 << decisions;
    }
    arena_free(B.keep);
}

typedef struct {
    Ctx *x;
    Arena *scratch;
} Rules;

static bool coop_visit(Node *n, void *c)
{
    Rules *r = c;
    if (n->kind != N_COOP)
        return true;
    ArenaMark m = arena_mark(r->scratch);
    check_block_rules(r->x, r->scratch, n, n->coop.body, &n->coop.tsyms, &n->coop.text);
    coop_global(r->x, r->scratch, n, false);
    stage_rules(r->x, r->scratch, n->coop.body, &n->coop.tsyms, &n->coop.text);
    arena_release(r->scratch, m);
    if (n->coop.finish) {
        m = arena_mark(r->scratch);
        check_block_rules(r->x, r->scratch, n, n->coop.finish, &n->coop.fsyms, &n->coop.fext);
        coop_global(r->x, r->scratch, n, true);
        stage_rules(r->x, r->scratch, n->coop.finish, &n->coop.fsyms, &n->coop.fext);
        arena_release(r->scratch, m);
    }
    return false;
}

void coop_rules(Ctx *x)
{
    Rules r = {x, arena_new()};
    for (int i = 0; i < x->c->fns.n; i++) {
        Node *fn = x->c->fns.v[i];
        const FnEff *row = fn->fn.effects;
        if (!row || (row->bits & ((1u << EF_PAR) | (1u << EF_DEV))))
            par_walk(fn->fn.body, coop_visit, &r);
    }
    arena_free(r.scratch);
}
