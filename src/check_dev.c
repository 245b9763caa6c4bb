/*
 * check_dev.c: the rules of device work (devices.md), run after every body
 * is typed and the lane rules have run (check_par.c).
 *
 *   placement    a helper a device lane reaches runs on the device: a host
 *                view parameter or a closure made there is refused at the
 *                lane's call, naming the chain (E-PLACEMENT); a kernel fn is
 *                called only from device lanes and other kernels, and takes
 *                no host view (E-PLACEMENT)
 *   tickets      a ticket is linear: bound by let, waited once, in the block
 *                that spawned it, used only by wait and after; until its
 *                wait it leases every view its work touches, which nothing
 *                but work queued after it may name (E-TICKET)
 *
 * Requires: a program check_program typed without errors.
 * Guarantees: every function a device lane or a kernel reaches has
 * fn.on_device set (the emitter writes it for both sides), and
 * c->device_work counts the device constructs (a device build needs a
 * target only when it is not 0).
 */
#include "check.h"
#include "par.h"

#include <string.h>

static bool vec_has(const Vec *v, const void *p)
{
    for (int i = 0; i < v->n; i++)
        if (v->v[i] == p)
            return true;
    return false;
}

/* ------------------------------------------------------------ placement */

typedef struct {
    Ctx *x;
    PtrSet done;          /* N_FN already marked on_device */
} Reach;

typedef struct {
    Node *fn;             /* the first function of the chain that breaks the rule */
    const char *why;      /* "its parameter host_side is a host view (ro<u64>[m])" */
    const char *chain;    /* "peek (line 4)" or "f (line 3) -> g (line 9)" */
} HostOnly;

/* A function being followed: its closures and its calls of other functions
 * (not kernels), in source order, and how far they are followed. */
typedef struct {
    Node *fn;
    Vec events;           /* Node*: N_CLOSURE or N_CALL */
    int next;
    Node *closure;        /* the last closure it makes, once passed */
} ReachFrame;

typedef struct {
    Arena *a;
    Vec *out;
} EventWalk;

static bool reach_event(Node *n, void *p)
{
    EventWalk *w = p;
    if (n->kind == N_CLOSURE) {
        vec_push(w->a, w->out, n);
        return false;
    }
    if (n->kind == N_CALL && n->call.ck == CALL_FN && n->call.target && !n->call.target->fn.is_kernel)
        vec_push(w->a, w->out, n);
    return true;
}

/* fn is reached: a host view among its parameters is found at once;
 * otherwise, the first time, it is marked on_device and followed. */
static bool reach_push(Reach *r, Node *fn, HostOnly *out, Vec *stack)
{
    Arena *a = r->x->a;
    if (!fn || fn->kind != N_FN)
        return false;
    for (int i = 0; i < fn->fn.params.n; i++) {
        Node *p = fn->fn.params.v[i];
        Type *t = p->param.sym ? p->param.sym->ty : NULL;
        if (t && t->kind == TY_VIEW && (t->place == PLACE_HOST || t->place == PLACE_PINNED)) {
            out->fn = fn;
            out->why = arena_printf(a, "its parameter %s is a host view (%s)", p->param.id, type_str(a, t));
            out->chain = fn->fn.id;
            return true;
        }
    }
    if (!ptrset_add(a, &r->done, fn))
        return false;
    fn->fn.on_device = true;
    ReachFrame *f = arena_alloc(a, sizeof *f);
    f->fn = fn;
    EventWalk w = {a, &f->events};
    par_walk(fn->fn.body, reach_event, &w);
    vec_push(a, stack, f);
    return false;
}

/* What was found, with the calls that lead to it from the first function:
 * "f (line 3) -> g (line 9) -> h". */
static bool reach_found(Reach *r, const Vec *stack, int callers, HostOnly found, HostOnly *out)
{
    for (int i = callers - 1; i >= 0; i--) {
        const ReachFrame *f = stack->v[i];
        const Node *call = f->events.v[f->next - 1];
        found.chain = arena_printf(r->x->a, "%s (line %d) -> %s", f->fn->fn.id, call->span.line, found.chain);
    }
    *out = found;
    return true;
}

/* Does fn (reached from a device lane) use what only the host has: a host
 * view among the parameters of a function it reaches, or a closure it makes
 * (a call found after a closure is reported first)? Marks every function it
 * reaches on_device. A depth-first walk with a stack of its own: a chain of
 * calls of any length is followed to its end (a recursion stopped at 32
 * calls, leaving the rest host code that device code called). */
static bool host_only_of(Reach *r, Node *root, HostOnly *out)
{
    Vec stack = {0};   /* ReachFrame* */
    if (reach_push(r, root, out, &stack))
        return true;
    while (stack.n) {
        ReachFrame *f = stack.v[stack.n - 1];
        if (f->next < f->events.n) {
            Node *ev = f->events.v[f->next++];
            HostOnly sub = {0};
            if (ev->kind == N_CLOSURE)
                f->closure = ev;
            else if (reach_push(r, ev->call.target, &sub, &stack))
                return reach_found(r, &stack, stack.n, sub, out);
            continue;
        }
        stack.n--;
        if (f->closure) {
            HostOnly h = {f->fn,
                          arena_printf(r->x->a, "it makes a closure (line %d), whose environment lives in host memory",
                                       f->closure->span.line),
                          f->fn->fn.id};
            return reach_found(r, &stack, stack.n, h, out);
        }
    }
    return false;
}

typedef struct {
    Reach *r;
    const char *lane;     /* "the region at line 7" */
} LaneWalk;

/* A device lane's calls: each callee, and what it reaches, is device code. */
static bool device_lane_visit(Node *n, void *p)
{
    LaneWalk *w = p;
    Ctx *x = w->r->x;
    if (n->kind != N_CALL || n->call.ck != CALL_FN || !n->call.target)
        return true;
    Node *fn = n->call.target;
    if (fn->fn.is_kernel)
        return true;
    HostOnly h = {0};
    if (host_only_of(w->r, fn, &h))
        diag_error(x->sink, n->span, E_PLACEMENT,
                   arena_printf(x->a, "give %s only @device views and values, or call it before the region on the "
                                      "host", h.fn->fn.id),
                   "a device lane of %s reaches %s, where %s: whatever a device lane reaches runs on the device",
                   w->lane, h.chain, h.why);
    return true;
}

/* kernel fn: device code, reached only from device lanes and kernels. */
static bool host_code_visit(Node *n, void *p)
{
    Ctx *x = p;
    if ((n->kind == N_PARALLEL && n->loop.device) || (n->kind == N_COLLECT && n->collect.device))
        return false;
    if (n->kind == N_CALL && n->call.ck == CALL_FN && n->call.target && n->call.target->fn.is_kernel)
        diag_error(x->sink, n->span, E_PLACEMENT,
                   "call it from a lane of a region over @device views, or make it a plain fn",
                   "host code calls %s, a kernel fn: a kernel fn runs only on the device, from device lanes and "
                   "other kernels", n->call.target->fn.id);
    return true;
}

static void check_kernel_params(Ctx *x, Node *fn)
{
    for (int i = 0; i < fn->fn.params.n; i++) {
        Node *p = fn->fn.params.v[i];
        Type *t = p->param.sym ? p->param.sym->ty : NULL;
        if (t && t->kind == TY_VIEW && (t->place == PLACE_HOST || t->place == PLACE_PINNED))
            diag_error(x->sink, p->span, E_PLACEMENT, arena_printf(x->a, "take it @device: %s:%s[..]@device",
                                                                   p->param.id, t->access == ACC_RW ? "rw<..>" : "ro<..>"),
                       "kernel fn %s takes %s, a host view (%s): a kernel runs on the device", fn->fn.id,
                       p->param.id, type_str(x->a, t));
    }
}

typedef struct {
    Reach *r;
    int device_work;
} DevWalk;

static bool dev_visit(Node *n, void *p)
{
    DevWalk *d = p;
    bool lanes = (n->kind == N_PARALLEL && n->loop.device) || (n->kind == N_COLLECT && n->collect.device) ||
                 (n->kind == N_COOP && n->coop.device);
    if (lanes) {
        d->device_work++;
        const char *what = n->kind == N_PARALLEL ? "region" : n->kind == N_COOP ? "cooperative region" : "collector";
        LaneWalk w = {d->r, arena_printf(d->r->x->a, "the %s at line %d", what, n->span.line)};
        par_walk(n, device_lane_visit, &w);
        return false;
    }
    if ((n->kind == N_BUFFER && n->buffer.place != PLACE_HOST) || n->kind == N_SPAWN ||
        (n->kind == N_CALL && n->call.ck == CALL_BUILTIN && n->call.builtin == B_TRANSFER) ||
        (n->kind == N_CALL && n->call.ck == CALL_BUILTIN && n->call.builtin == B_MMA_UNORDERED &&
         n->call.args.n == 6 && mma_on_device(n)))
        d->device_work++;
    return true;
}

/* ------------------------------------------------------------ tickets */

typedef struct {
    Sym *t;               /* the ticket */
    Node *let;            /* its binding */
    Vec leased;           /* Sym*: the roots of the views its work touches */
    bool waited;
    Node *wait;           /* the wait that ended it (NULL: none yet) */
    int depth, loops;     /* the block nesting and loop nesting where it was spawned */
} Live;

typedef struct {
    Arena *a;
    Vec *out;
} RootWalk;

static bool root_visit(Node *n, void *p)
{
    RootWalk *w = p;
    if (n->kind == N_NAME && n->ty && n->ty->kind == TY_VIEW) {
        Sym *s = view_root(n);
        if (s && !vec_has(w->out, s))
            vec_push(w->a, w->out, s);
    }
    return true;
}

typedef struct {
    Ctx *x;
    Vec live;             /* Live*, innermost last */
    int depth, loops;     /* block nesting and loop nesting of the statement being judged */
} Tk;

static Live *live_of(Tk *k, Sym *s)
{
    for (int i = 0; i < k->live.n; i++)
        if (((Live *)k->live.v[i])->t == s)
            return k->live.v[i];
    return NULL;
}

static bool spawn_after(const Node *sp, const Sym *t)
{
    for (int i = 0; sp && i < sp->spawn.after.n; i++) {
        const Node *a = sp->spawn.after.v[i];
        if (a->kind == N_NAME && a->name.sym == t)
            return true;
    }
    return false;
}

typedef struct {
    Tk *k;
    Node *spawn;          /* the spawn the statement is, or NULL */
} UseWalk;

/* A statement's uses of tickets and leased views. */
static bool use_visit(Node *n, void *p)
{
    UseWalk *u = p;
    Tk *k = u->k;
    Ctx *x = k->x;
    if (n->kind == N_CALL && n->call.ck == CALL_BUILTIN && n->call.builtin == B_WAIT)
        return false;                               /* judged by the statement walk */
    if (n->kind == N_SPAWN && n != u->spawn) {
        diag_error(x->sink, n->span, E_TICKET, "bind it: `let t = spawn ...;` and `wait(t);` once",
                   "a spawn whose ticket is not bound by let: nothing could wait for its work");
        return false;
    }
    if (n->kind == N_SPAWN)
        return true;
    if (n->kind != N_NAME || !n->name.sym)
        return true;
    Sym *s = n->name.sym;
    if (s->ty && s->ty->kind == TY_TICKET) {
        bool in_after = u->spawn && spawn_after(u->spawn, s);
        if (!in_after)
            diag_error(x->sink, n->span, E_TICKET, arena_printf(x->a, "wait for it: `wait(%s);`", s->id),
                       "ticket %s used as a value: a ticket is linear, and only wait and after take it", s->id);
        return true;
    }
    for (int i = 0; i < k->live.n; i++) {
        Live *L = k->live.v[i];
        if (L->waited || !vec_has(&L->leased, s) || (u->spawn && spawn_after(u->spawn, L->t)))
            continue;
        diag_error(x->sink, n->span, E_TICKET,
                   arena_printf(x->a, "wait(%s) first, or queue the work after it: `spawn ... after %s`",
                                L->t->id, L->t->id),
                   "%s is leased by ticket %s (line %d) until its wait: its work may still be using it",
                   s->id, L->t->id, L->let->span.line);
        return true;
    }
    return true;
}

static void tk_block(Tk *k, Node *b, bool loop_body);

static void tk_wait(Tk *k, Node *call)
{
    Ctx *x = k->x;
    Node *a = call->call.args.n ? call->call.args.v[0] : NULL;
    Sym *s = a && a->kind == N_NAME ? a->name.sym : NULL;
    Live *L = s ? live_of(k, s) : NULL;
    if (!s)
        return;
    if (!L) {
        diag_error(x->sink, call->span, E_TICKET, "wait for a ticket in the block whose let bound it",
                   "wait(%s) outside the block that spawned %s: a ticket is waited once, in its own block",
                   s->id, s->id);
        return;
    }
    if (L->depth != k->depth) {
        diag_error(x->sink, call->span, E_TICKET,
                   arena_printf(x->a, "wait(%s) in the block of its let (line %d), where every path reaches it once",
                                s->id, L->let->span.line),
                   "wait(%s) inside a nested block (a branch or a loop): on some path it would run never or more "
                   "than once, and a ticket is waited exactly once", s->id);
        L->waited = true;
        L->wait = call;
        return;
    }
    if (L->waited) {
        diag_error(x->sink, call->span, E_TICKET, "drop this wait: the first one ended the ticket",
                   "ticket %s is waited twice: a ticket is linear, and its first wait ended it", s->id);
        return;
    }
    L->waited = true;
    L->wait = call;
}

/* after takes live tickets: a wait ends one, so naming it after its wait
 * orders nothing (its work is done) and is a use of an ended ticket. */
static void tk_after(Tk *k, Node *sp)
{
    for (int i = 0; i < sp->spawn.after.n; i++) {
        Node *a = sp->spawn.after.v[i];
        Live *L = a->kind == N_NAME && a->name.sym ? live_of(k, a->name.sym) : NULL;
        if (L && L->waited && L->wait)
            diag_error(k->x->sink, a->span, E_TICKET,
                       arena_printf(k->x->a, "drop %s from after: its work is done, so nothing needs to wait for it",
                                    L->t->id),
                       "after %s names a ticket already waited (line %d): after takes live tickets, and a wait "
                       "ends one", L->t->id, L->wait->span.line);
    }
}

static void tk_stmt(Tk *k, Node *s, bool loop_body)
{
    if (s->kind == N_EXPR_STMT && s->unary.a && s->unary.a->kind == N_CALL &&
        s->unary.a->call.ck == CALL_BUILTIN && s->unary.a->call.builtin == B_WAIT)
        return tk_wait(k, s->unary.a);
    Node *sp = s->kind == N_LET && s->let.init && s->let.init->kind == N_SPAWN ? s->let.init : NULL;
    UseWalk u = {k, sp};
    switch (s->kind) {
    case N_BLOCK: case N_UNSAFE: return tk_block(k, s, false);
    case N_IF:
        for (; s->if_.els && s->if_.els->kind == N_IF; s = s->if_.els) {   /* else-if: a loop */
            par_walk(s->if_.cond, use_visit, &u);
            tk_block(k, s->if_.then, false);
        }
        par_walk(s->if_.cond, use_visit, &u);
        tk_block(k, s->if_.then, false);
        if (s->if_.els)
            tk_stmt(k, s->if_.els, false);
        return;
    case N_FOR: case N_WHILE:
        par_walk(s->loop.lo, use_visit, &u);
        par_walk(s->loop.hi, use_visit, &u);
        par_walk(s->loop.cond, use_visit, &u);
        return tk_block(k, s->loop.body, true);
    case N_BREAK: case N_CONTINUE:
        for (int i = 0; i < k->live.n; i++) {
            Live *L = k->live.v[i];
            if (!L->waited && L->loops == k->loops && k->loops > 0)
                diag_error(k->x->sink, s->span, E_TICKET, arena_printf(k->x->a, "wait(%s) before leaving", L->t->id),
                           "%s while ticket %s (line %d), spawned in this loop's body, is not waited",
                           s->kind == N_BREAK ? "break" : "continue", L->t->id, L->let->span.line);
        }
        return;
    case N_RETURN:
        par_walk(s, use_visit, &u);
        for (int i = 0; i < k->live.n; i++) {
            Live *L = k->live.v[i];
            if (!L->waited)
                diag_error(k->x->sink, s->span, E_TICKET, arena_printf(k->x->a, "wait(%s) before returning", L->t->id),
                           "return while ticket %s (line %d) is not waited: its work would outlive the views it "
                           "leases", L->t->id, L->let->span.line);
        }
        return;
    default:
        break;
    }
    par_walk(s, use_visit, &u);
    if (sp)
        tk_after(k, sp);
    if (sp && s->let.sym) {
        Live *L = arena_alloc(k->x->a, sizeof *L);
        memset(L, 0, sizeof *L);
        L->t = s->let.sym;
        L->let = s;
        L->depth = k->depth;
        L->loops = k->loops;
        RootWalk rw = {k->x->a, &L->leased};
        par_walk(sp->spawn.work, root_visit, &rw);
        vec_push(k->x->a, &k->live, L);
    }
}

static void tk_block(Tk *k, Node *b, bool loop_body)
{
    if (!b)
        return;
    if (b->kind != N_BLOCK && b->kind != N_UNSAFE)
        return tk_stmt(k, b, loop_body);
    int base = k->live.n;
    k->depth++;
    k->loops += loop_body;
    for (int i = 0; i < b->block.stmts.n; i++)
        tk_stmt(k, b->block.stmts.v[i], loop_body);
    k->depth--;
    k->loops -= loop_body;
    for (int i = base; i < k->live.n; i++) {
        Live *L = k->live.v[i];
        if (!L->waited)
            diag_error(k->x->sink, L->let->span, E_TICKET,
                       arena_printf(k->x->a, "wait for it before the block ends: `wait(%s);`", L->t->id),
                       "ticket %s is never waited: queued work must be waited once, in the block that spawned it",
                       L->t->id);
    }
    k->live.n = base;
}

static bool has_spawn(Node *n, void *p)
{
    if (n->kind == N_SPAWN || (n->ty && n->ty->kind == TY_TICKET))
        *(bool *)p = true;
    return !*(bool *)p;
}

/* ------------------------------------------------------------ the pass */

/* Whether fn's body may hold device work, spawns or waits, from its effect
 * row (effects.c, computed before this pass; it covers what fn calls too,
 * so it only ever says yes too often): a host-only program is not walked
 * three more times for nothing. */
static bool may_touch_device(const Node *fn)
{
    const FnEff *row = fn->fn.effects;
    unsigned bits = (1u << EF_DEV) | (1u << EF_GPU_ALLOC) | (1u << EF_QUEUE) | (1u << EF_SYNC) |
                    (1u << EF_HOST_COPY) | (1u << EF_UNIFIED);
    return !row || (row->bits & bits);
}

void check_dev_program(Ctx *x)
{
    Check *c = x->c;
    Reach r = {x, {0}};
    DevWalk d = {&r, 0};
    bool kernels = false;   /* any kernel fn, extern ones included: else no host code calls one */
    const Vec *decls = c->program ? &c->program->block.stmts : NULL;
    for (int i = 0; decls && i < decls->n && !kernels; i++) {
        const Node *d = decls->v[i];
        kernels = d && d->kind == N_FN && d->fn.is_kernel;
    }
    for (int i = 0; i < c->fns.n; i++) {
        Node *fn = c->fns.v[i];
        if (fn->fn.is_kernel) {
            fn->fn.on_device = true;
            d.device_work++;
            check_kernel_params(x, fn);
            LaneWalk w = {&r, arena_printf(x->a, "kernel fn %s", fn->fn.id)};
            par_walk(fn->fn.body, device_lane_visit, &w);
            continue;
        }
        bool device = may_touch_device(fn);
        if (device)
            par_walk(fn->fn.body, dev_visit, &d);
        if (kernels)
            par_walk(fn->fn.body, host_code_visit, x);
        bool spawns = false;
        if (device)
            par_walk(fn->fn.body, has_spawn, &spawns);
        if (spawns) {
            Tk k = {x, {0}, 0, 0};
            tk_block(&k, fn->fn.body, false);
        }
    }
    c->device_work += d.device_work;
}

/* The device-rules pass (pass.c). */
void check_device_rules(Check *c)
{
    check_dev_program(c->ctx);
}
